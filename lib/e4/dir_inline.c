/*
 * dir_inline.c: inline directories (format doc section 8.6), as the kernel
 * keeps them: i_block[0..4) the parent's inode number, entries in
 * i_block[4..60) (the last record reaching byte 60), more entries in the
 * value of the in-inode attribute system.data (records relative to the
 * value, the last reaching its end); no "." or ".." records, no checksum
 * tail; i_size 60 + the value's size.
 *
 * An insert tries the i_block part, then the system.data part, then grows
 * system.data once to the largest value the inode body holds (the last
 * record, or a new unused one, covers the new room; less than one 12-byte
 * record of growth does not count) and tries it again.  When the name
 * still does not fit, the directory becomes a one-block directory with
 * the same entries in the same order (e4_dir_build), system.data removed,
 * and the insert continues there.  Removal merges a record into its
 * predecessor within its part, or leaves it unused first in its part.
 */
#include <stdlib.h>
#include <string.h>

#include "dir_int.h"
#include "map_int.h"

#define INL_IBLOCK	EXT4_MIN_INLINE_DATA_SIZE	/* 60: i_block's bytes */
#define INL_FIRST	EXT4_INLINE_DOTDOT_SIZE		/* 4: first entry offset */

/* The directory's data: buf[0..60) i_block, then the system.data value of
 * *xlen bytes (buf has room for grow more bytes after it).  Both parts are
 * checked. */
static errcode_t inline_load(struct e4_dirw *w, uint8_t **buf, size_t *xlen, size_t grow)
{
	size_t size, got;
	errcode_t err;

	*buf = NULL;
	err = e4_inline_data_size(w->fs, w->ino, &w->ib.inode, &size);
	if (err)
		return err;
	if (size < INL_IBLOCK || size > INL_IBLOCK + 65536)
		return E4_ERR_INLINE_DATA;
	*buf = calloc(1, size + grow);
	if (!*buf)
		return E4_ERR_NO_MEMORY;
	err = e4_inline_data_get(w->fs, w->ino, &w->ib.inode, *buf, size, &got);
	if (!err && got != size)
		err = E4_ERR_INLINE_DATA;
	*xlen = size - INL_IBLOCK;
	if (!err)
		err = e4_dirw_region_check(w, *buf, INL_FIRST, INL_IBLOCK);
	if (!err)
		err = e4_dirw_region_check(w, *buf, INL_IBLOCK, (unsigned)size);
	if (err) {
		free(*buf);
		*buf = NULL;
	}
	return err;
}

/* Put the data back into the inode image: i_block, system.data, i_size. */
static errcode_t inline_store(struct e4_dirw *w, const uint8_t *buf, size_t xlen)
{
	errcode_t err;

	err = e4_xattr_ibody_set(w->fs, &w->ib, EXT4_XATTR_INDEX_SYSTEM, "data", 4,
				 buf + INL_IBLOCK, xlen);
	if (err)
		return err;
	memcpy(w->ib.inode.i_block, buf, INL_IBLOCK);
	w->ib.inode.i_size_lo = e4_cpu_to_le32((uint32_t)(INL_IBLOCK + xlen));
	w->ib.inode.i_size_high = 0;
	w->dirty = 1;
	return 0;
}

/* The largest system.data value (a multiple of 4 bytes) the inode body
 * holds (inline_write.c). */
static size_t inline_max_value(struct e4_dirw *w, size_t xlen)
{
	return e4_inline_value_max(w->fs, &w->ib, xlen);
}

errcode_t e4_dir_inline_insert(struct e4_dirw *w, const char *name, size_t len, e4_ino_t ino,
			       uint8_t file_type, int *placed)
{
	unsigned need = e4_dirent_min_rec((unsigned)len), off, prev;
	size_t xlen, nx, grow = w->fs->geom.inode_size;
	uint8_t *buf;
	errcode_t err;

	*placed = 0;
	err = inline_load(w, &buf, &xlen, grow);
	if (err)
		return err;
	if (e4_dirw_region_find(w, buf, INL_FIRST, INL_IBLOCK, name, len, &off, &prev) >= 0 ||
	    e4_dirw_region_find(w, buf, INL_IBLOCK, INL_IBLOCK + (unsigned)xlen, name, len, &off,
				&prev) >= 0) {
		err = E4_ERR_EXISTS;
		goto out;
	}
	if (e4_dirw_region_add(w, buf, INL_FIRST, INL_IBLOCK, name, len, ino, file_type) ||
	    e4_dirw_region_add(w, buf, INL_IBLOCK, INL_IBLOCK + (unsigned)xlen, name, len, ino,
			       file_type)) {
		*placed = 1;
		err = inline_store(w, buf, xlen);
		goto out;
	}
	/* grow system.data to the most the inode holds, once */
	nx = inline_max_value(w, xlen);
	if (nx - xlen <= e4_dirent_min_rec(1) || nx - xlen < need)
		goto out;	/* not placed: convert */
	if (xlen == 0) {
		uint16_t dlen;

		(void)e4_rec_len_to_disk((unsigned)nx, w->bs, &dlen);
		e4_put_le16(buf + INL_IBLOCK + 4, dlen);	/* an unused record */
	} else {
		unsigned o = INL_IBLOCK, last = o;
		uint16_t dlen;

		while (o + E4_DIRENT_HDR <= INL_IBLOCK + xlen) {
			last = o;
			o += e4_dirent_rec(buf + o, w->bs);
		}
		(void)e4_rec_len_to_disk(INL_IBLOCK + (unsigned)nx - last, w->bs, &dlen);
		e4_put_le16(buf + last + 4, dlen);
	}
	if (e4_dirw_region_add(w, buf, INL_IBLOCK, INL_IBLOCK + (unsigned)nx, name, len, ino,
			       file_type)) {
		*placed = 1;
		err = inline_store(w, buf, nx);
	}
out:
	free(buf);
	return err;
}

/* Live entries of one part of the data, appended to ents[*n]. */
static void inline_collect(struct e4_dirw *w, const uint8_t *buf, unsigned start, unsigned end,
			   struct e4_new_dirent *ents, size_t *n)
{
	while (start + E4_DIRENT_HDR <= end) {
		const uint8_t *d = buf + start;

		if (e4_get_le32(d))
			ents[(*n)++] = (struct e4_new_dirent){ e4_get_le32(d),
				(const char *)d + E4_DIRENT_HDR, d[6], d[7] };
		start += e4_dirent_rec(d, w->bs);
	}
}

errcode_t e4_dir_inline_convert(struct e4_dirw *w)
{
	struct e4_new_dirent *ents = NULL;
	union e4_inode_buf *orig = NULL;
	e4_fs *fs = w->fs;
	uint32_t flags;
	size_t xlen, n = 0;
	uint8_t *buf;
	errcode_t err;

	err = inline_load(w, &buf, &xlen, 0);
	if (err)
		goto out;
	ents = malloc(sizeof(*ents) * ((INL_IBLOCK + xlen) / 12 + 1));
	orig = malloc(sizeof(*orig));	/* the inline inode, put back on failure */
	if (orig)
		memcpy(orig, &w->ib, sizeof(*orig));
	if (!ents || !orig) {
		err = E4_ERR_NO_MEMORY;
		goto out;
	}
	inline_collect(w, buf, INL_FIRST, INL_IBLOCK, ents, &n);
	inline_collect(w, buf, INL_IBLOCK, INL_IBLOCK + (unsigned)xlen, ents, &n);
	err = e4_xattr_ibody_set(fs, &w->ib, EXT4_XATTR_INDEX_SYSTEM, "data", 4, NULL, 0);
	if (err && err != E4_ERR_XATTR_NOT_FOUND)
		goto out;
	flags = e4_le32(w->ib.inode.i_flags) & ~(uint32_t)EXT4_INLINE_DATA_FL;
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EXTENTS))
		flags |= EXT4_EXTENTS_FL;
	w->ib.inode.i_flags = e4_cpu_to_le32(flags);
	memset(w->ib.inode.i_block, 0, sizeof(w->ib.inode.i_block));
	w->ib.inode.i_size_lo = 0;
	w->ib.inode.i_size_high = 0;
	w->dirty = 1;
	err = e4_dirw_close(w);
	if (!err) {
		err = e4_dir_build(fs, w->ino, e4_get_le32(buf), ents, n, E4_DIR_BUILD_LINEAR, 0);
		/* no block (a full filesystem: e4_dir_build() allocates
		 * before it maps or writes anything): the inline directory
		 * back as it was, its entries kept; a later failure (a write
		 * error) may leave the block it took in use */
		if (err)
			(void)e4_inode_write(fs, w->ino, orig);
	}
out:
	w->dirty = 0;		/* written above, or left as it was */
	free(orig);
	free(ents);
	free(buf);
	return err;
}

errcode_t e4_dir_inline_check(struct e4_dirw *w, const char *name, size_t len)
{
	errcode_t err = e4_dir_inline_change(w, name, len, NULL, NULL);

	return err == E4_ERR_NOT_FOUND ? 0 : err ? err : E4_ERR_EXISTS;
}

errcode_t e4_dir_inline_change(struct e4_dirw *w, const char *name, size_t len,
			       e4_dirw_change change, void *priv)
{
	unsigned off, prev;
	size_t xlen;
	uint8_t *buf;
	errcode_t err;

	err = inline_load(w, &buf, &xlen, 0);
	if (err)
		return err;
	if (e4_dirw_region_find(w, buf, INL_FIRST, INL_IBLOCK, name, len, &off, &prev) < 0 &&
	    e4_dirw_region_find(w, buf, INL_IBLOCK, INL_IBLOCK + (unsigned)xlen, name, len, &off,
				&prev) < 0)
		err = E4_ERR_NOT_FOUND;
	if (!err && change) {
		change(w, buf, off, prev, priv);
		err = inline_store(w, buf, xlen);
	}
	free(buf);
	return err;
}

errcode_t e4_dir_inline_build(struct e4_dirw *w, e4_ino_t parent,
			      const struct e4_new_dirent *ents, size_t n, int *done)
{
	uint8_t buf[INL_IBLOCK];
	unsigned off = INL_FIRST, size = 0;
	uint32_t flags;	/* i_flags as found (little-endian) */
	uint16_t dlen;
	size_t i;
	errcode_t err;

	*done = 0;
	for (i = 0; i < n; i++)
		size += e4_dirent_min_rec(ents[i].name_len);
	if (!e4_has_incompat(w->fs, EXT4_FEATURE_INCOMPAT_INLINE_DATA) ||
	    w->fs->geom.inode_size <= EXT4_GOOD_OLD_INODE_SIZE || size > INL_IBLOCK - INL_FIRST)
		return 0;
	memset(buf, 0, sizeof(buf));
	e4_put_le32(buf, parent);
	e4_put_le16(buf + INL_FIRST + 4, INL_IBLOCK - INL_FIRST);	/* n == 0: unused */
	for (i = 0; i < n; i++) {
		unsigned rec = i + 1 < n ? e4_dirent_min_rec(ents[i].name_len) : INL_IBLOCK - off;
		uint8_t *d = buf + off;

		e4_put_le32(d, ents[i].inode);
		(void)e4_rec_len_to_disk(rec, w->bs, &dlen);
		e4_put_le16(d + 4, dlen);
		d[6] = ents[i].name_len;
		d[7] = w->filetype ? ents[i].file_type : 0;
		memcpy(d + E4_DIRENT_HDR, ents[i].name, ents[i].name_len);
		off += rec;
	}
	flags = w->ib.inode.i_flags;
	w->ib.inode.i_flags = e4_cpu_to_le32((e4_le32(w->ib.inode.i_flags) &
					      ~(uint32_t)EXT4_EXTENTS_FL) | EXT4_INLINE_DATA_FL);
	/* an empty system.data: present even when everything fits i_block */
	err = inline_store(w, buf, 0);
	if (err == E4_ERR_NO_SPACE) {
		/* the inode body is full of other attributes (ACLs): a block
		 * directory, as the kernel's ext4_init_new_dir falls back on
		 * ENOSPC */
		w->ib.inode.i_flags = flags;
		return 0;
	}
	if (!err)
		*done = 1;
	return err;
}
