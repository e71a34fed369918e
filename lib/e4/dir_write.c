/*
 * dir_write.c: adding, removing and changing directory entries (format doc
 * section 8), in linear directories here and through htree_write.c in
 * indexed ones.
 *
 * Placement follows the kernel: an entry goes into the first block with a
 * slot that holds its minimum record, a slot being an unused entry's whole
 * record or the slack after a live entry's minimum record (the record is
 * split).  A full one-block linear directory becomes indexed when the
 * filesystem has dir_index; a larger linear directory (made without
 * dir_index) grows by appending blocks.  Removal merges the record into
 * its predecessor in the block, or leaves an unused entry at a block start,
 * and zeroes the freed bytes (as Linux since 5.13 does).
 *
 * Every block is checked (entries, checksum tail) before it is changed;
 * a damaged directory is left alone with the reader's error code.
 */
#include <stdlib.h>
#include <string.h>

#include "dir_int.h"

static int is_dots(const char *name, size_t len)
{
	return (len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.');
}

/* ---- checksums ---------------------------------------------------------- */

void e4_dir_leaf_csum_set(e4_fs *fs, e4_ino_t dir, uint32_t generation, void *block)
{
	unsigned bs = fs->geom.block_size;
	struct ext4_dir_entry_tail *t =
		(struct ext4_dir_entry_tail *)((uint8_t *)block + bs - sizeof(*t));

	if (!fs->geom.metadata_csum)
		return;
	memset(t, 0, sizeof(*t));
	t->det_rec_len = e4_cpu_to_le16(sizeof(*t));
	t->det_reserved_ft = EXT4_FT_DIR_CSUM;
	t->det_checksum = e4_cpu_to_le32(e4_dirblock_csum(fs, dir, generation, block));
}

errcode_t e4_dx_csum_set(e4_fs *fs, e4_ino_t dir, uint32_t generation, void *block,
			 unsigned count_off)
{
	uint8_t *b = block;
	unsigned limit = e4_get_le16(b + count_off), count = e4_get_le16(b + count_off + 2);
	size_t toff = count_off + (size_t)limit * sizeof(struct dx_entry);
	struct dx_tail t;

	if (!fs->geom.metadata_csum)
		return 0;
	if (toff + sizeof(t) > fs->geom.block_size)
		return E4_ERR_DIR_NO_CSUM_TAIL;
	memcpy(&t, b + toff, sizeof(t));
	t.dt_checksum = e4_cpu_to_le32(e4_dx_csum(fs, dir, generation, b, count_off, count, &t));
	memcpy(b + toff, &t, sizeof(t));
	return 0;
}

/* ---- the directory handle ---------------------------------------------- */

errcode_t e4_dirw_open(e4_fs *fs, e4_ino_t dir, struct e4_dirw *w)
{
	return e4_dirw_open_ib(fs, dir, NULL, w);
}

errcode_t e4_dirw_open_ib(e4_fs *fs, e4_ino_t dir, const union e4_inode_buf *ib,
			  struct e4_dirw *w)
{
	errcode_t err = 0;
	uint32_t iflags;

	memset(w, 0, sizeof(*w));
	if (!(e4_open_flags(fs) & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (ib)
		w->ib = *ib;
	else
		err = e4_inode_read(fs, dir, &w->ib);
	if (err)
		return err;
	if (!e4_is_dir(&w->ib.inode))
		return E4_ERR_NOT_DIR;
	iflags = e4_le32(w->ib.inode.i_flags);
	if (iflags & (EXT4_CASEFOLD_FL | EXT4_ENCRYPT_FL))
		return E4_ERR_UNSUPPORTED;
	w->fs = fs;
	w->ino = dir;
	w->gen = e4_le32(w->ib.inode.i_generation);
	w->bs = fs->geom.block_size;
	w->leaf_end = w->bs - (fs->geom.metadata_csum ? E4_DIRENT_TAIL : 0);
	w->nblocks = (e4_inode_size(&w->ib.inode) + w->bs - 1) / w->bs;
	w->filetype = e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_FILETYPE);
	return 0;
}

errcode_t e4_dirw_close(struct e4_dirw *w)
{
	if (w->pend) {		/* appended, never mapped: given back */
		w->pend = 0;
		if (w->pend_fresh)
			e4_block_mark(w->fs, w->pend_pblk, e4_dirw_cluster(w->fs), 0, NULL);
	}
	if (!w->dirty)
		return 0;
	w->dirty = 0;
	return e4_inode_write(w->fs, w->ino, &w->ib);
}

static errcode_t dirw_map(struct e4_dirw *w, uint64_t lblk, e4_blk_t *pblk)
{
	uint32_t len;
	unsigned flags;
	errcode_t err;

	err = e4_bmap(w->fs, w->ino, &w->ib.inode, lblk, pblk, &len, &flags);
	if (err)
		return err;
	return *pblk ? 0 : E4_ERR_DIR_CORRUPT;	/* directories have no holes */
}

errcode_t e4_dirw_read(struct e4_dirw *w, uint64_t lblk, void *buf)
{
	return e4_dir_read_lblk(w->fs, w->ino, &w->ib.inode, lblk, buf);
}

errcode_t e4_dirw_write(struct e4_dirw *w, uint64_t lblk, const void *buf)
{
	e4_blk_t pblk;
	errcode_t err;

	if (w->pend && lblk == w->nblocks)	/* appended, not mapped yet */
		return e4_io_write_blk(e4_fs_io(w->fs), w->pend_pblk, 1, buf);
	err = dirw_map(w, lblk, &pblk);

	return err ? err : e4_io_write_blk(e4_fs_io(w->fs), pblk, 1, buf);
}

errcode_t e4_dirw_alloc(e4_fs *fs, e4_blk_t goal, uint64_t count, e4_blk_t *first)
{
	uint64_t got;

	return e4_alloc_blocks(fs, goal, count, count, first, &got);
}

errcode_t e4_dirw_meta_alloc(e4_fs *fs, struct ext4_inode *inode, e4_blk_t goal, e4_blk_t *blk)
{
	unsigned r = e4_dirw_cluster(fs);
	errcode_t err = e4_dirw_alloc(fs, goal, r, blk);

	if (!err) {
		err = e4_dirw_blocks_add(fs, inode, r);
		if (err)
			e4_block_mark(fs, *blk, r, 0, NULL);
	}
	return err;
}

void e4_dirw_meta_free(e4_fs *fs, struct ext4_inode *inode, e4_blk_t blk)
{
	unsigned r = e4_dirw_cluster(fs);

	e4_block_mark(fs, blk, r, 0, NULL);
	(void)e4_dirw_blocks_add(fs, inode, -(int64_t)r);
}

errcode_t e4_dirw_order_new(struct e4_dirw *w)
{
	/* the block, marked in use, with its contents on disk before a map
	 * names it */
	errcode_t err = e4_order_point_primary(w->fs, 0);
	uint64_t size;

	if (err || !w->pend)
		goto inode;
	w->pend = 0;
	err = e4_map_append_block(w->fs, w->ino, &w->ib, w->nblocks, w->pend_pblk,
				  w->pend_fresh);
	if (err) {
		if (w->pend_fresh)
			e4_block_mark(w->fs, w->pend_pblk, e4_dirw_cluster(w->fs), 0, NULL);
		return err;
	}
	w->nblocks++;
	size = w->nblocks * w->bs;
	w->ib.inode.i_size_lo = e4_cpu_to_le32((uint32_t)size);
	w->ib.inode.i_size_high = e4_cpu_to_le32((uint32_t)(size >> 32));
	w->dirty = 1;
	/* a map block naming it (indirect, extent tree; new ones marked in
	 * use) before the inode, whose size then takes it in: a stop between
	 * leaves a block past i_size, which a check adds back, not a size
	 * over a hole */
	err = e4_order_point_primary(w->fs, 0);
inode:
	if (!err)
		err = e4_dirw_close(w);		/* the map and size naming the block */
	return err ? err : e4_order_point(w->fs);	/* both before what names it */
}

errcode_t e4_dirw_append(struct e4_dirw *w, uint64_t *lblk)
{
	e4_fs *fs = w->fs;
	unsigned r = e4_dirw_cluster(fs);
	e4_blk_t goal, pblk;
	int fresh = 1;		/* a new cluster (a new block without bigalloc) */
	errcode_t err;

	if (w->pend)
		return E4_ERR_INVALID_ARGUMENT;	/* one block at a time */
	if ((w->nblocks + 1) * w->bs > E4_DIR_MAX_BYTES &&
	    !e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_LARGEDIR))
		return E4_ERR_FILE_TOO_BIG;
	if (w->nblocks) {
		err = dirw_map(w, w->nblocks - 1, &goal);
		if (err)
			return err;
		goal++;
		if (w->nblocks % r) {
			/* the logical cluster is mapped: its implied block */
			if (goal % r == 0)
				return E4_ERR_EXTENT_HEADER;
			fresh = 0;
		}
	} else {
		goal = e4_alloc_goal_for_mode(fs, w->ino, EXT4_S_IFDIR);
	}
	pblk = goal;
	if (fresh) {
		err = e4_dirw_alloc(fs, goal, r, &pblk);
		if (err)
			return err;
	}
	w->pend = 1;
	w->pend_pblk = pblk;
	w->pend_fresh = fresh;
	*lblk = w->nblocks;
	return 0;
}

/* ---- leaf blocks --------------------------------------------------------- */

/* 1 if the block ends with a well-formed dirent tail. */
static int has_tail(const uint8_t *b, unsigned bs)
{
	const uint8_t *t = b + bs - E4_DIRENT_TAIL;

	return e4_get_le32(t) == 0 && e4_get_le16(t + 4) == E4_DIRENT_TAIL && t[6] == 0 &&
	       t[7] == EXT4_FT_DIR_CSUM;
}

errcode_t e4_dirw_region_check(struct e4_dirw *w, const uint8_t *buf, unsigned start,
				unsigned end)
{
	unsigned off = start;

	while (off < end) {
		const uint8_t *d = buf + off;
		unsigned rec_len, name_len;
		uint32_t ino;

		if (end - off < E4_DIRENT_HDR)
			return E4_ERR_DIR_CORRUPT;
		ino = e4_get_le32(d);
		rec_len = e4_rec_len_from_disk(e4_get_le16(d + 4), w->bs);
		name_len = d[6];
		if (rec_len < E4_DIRENT_HDR || (rec_len & 3) || rec_len > end - off ||
		    (ino && e4_dirent_min_rec(name_len) > rec_len))
			return E4_ERR_BAD_REC_LEN;
		if (ino && (name_len == 0 || ino > w->fs->geom.inodes_count))
			return E4_ERR_DIR_CORRUPT;
		off += rec_len;
	}
	return 0;
}

errcode_t e4_dirw_leaf_check(struct e4_dirw *w, const uint8_t *buf)
{
	e4_fs *fs = w->fs;

	if (fs->geom.metadata_csum) {
		if (!has_tail(buf, w->bs))
			return E4_ERR_DIR_NO_CSUM_TAIL;
		if (!(e4_open_flags(fs) & E4_OPEN_IGNORE_CSUM) &&
		    e4_get_le32(buf + w->bs - 4) != e4_dirblock_csum(fs, w->ino, w->gen, buf))
			return E4_ERR_DIR_CSUM;
	}
	return e4_dirw_region_check(w, buf, 0, w->leaf_end);
}

int e4_dirw_region_find(struct e4_dirw *w, const uint8_t *buf, unsigned start, unsigned end,
			const char *name, size_t len, unsigned *off, unsigned *prev)
{
	unsigned o = start, p = UINT32_MAX;

	while (o + E4_DIRENT_HDR <= end) {
		const uint8_t *d = buf + o;

		if (e4_get_le32(d) && d[6] == len && !memcmp(d + E4_DIRENT_HDR, name, len)) {
			*off = o;
			*prev = p;
			return (int)o;
		}
		p = o;
		o += e4_dirent_rec(d, w->bs);
	}
	return -1;
}

/* Write an entry header and name at d (rec_len already there or given). */
static void put_entry(struct e4_dirw *w, uint8_t *d, unsigned rec_len, const char *name,
		      size_t len, e4_ino_t ino, uint8_t file_type)
{
	uint16_t dlen;

	/* rec_len <= leaf_end: always encodable (e4_rec_len_to_disk). */
	(void)e4_rec_len_to_disk(rec_len, w->bs, &dlen);
	e4_put_le32(d, ino);
	e4_put_le16(d + 4, dlen);
	d[6] = (uint8_t)len;
	d[7] = w->filetype ? file_type : 0;
	memcpy(d + E4_DIRENT_HDR, name, len);
}

/* The first entry of a checked region with room for a record of need
 * bytes (an unused entry's whole record, or a live one's slack), or -1. */
static int region_slot(struct e4_dirw *w, const uint8_t *buf, unsigned start, unsigned end,
		       unsigned need)
{
	unsigned o = start;

	while (o + E4_DIRENT_HDR <= end) {
		const uint8_t *d = buf + o;
		unsigned rec_len = e4_dirent_rec(d, w->bs);
		unsigned used = e4_get_le32(d) ? e4_dirent_min_rec(d[6]) : 0;

		if (rec_len - used >= need)
			return (int)o;
		o += rec_len;
	}
	return -1;
}

int e4_dirw_region_add(struct e4_dirw *w, uint8_t *buf, unsigned start, unsigned end,
		       const char *name, size_t len, e4_ino_t ino, uint8_t file_type)
{
	int o = region_slot(w, buf, start, end, e4_dirent_min_rec((unsigned)len));
	unsigned rec_len, used;
	uint8_t *d;

	if (o < 0)
		return 0;
	d = buf + o;
	rec_len = e4_rec_len_from_disk(e4_get_le16(d + 4), w->bs);
	used = e4_get_le32(d) ? e4_dirent_min_rec(d[6]) : 0;
	if (used) {
		uint16_t dlen;

		(void)e4_rec_len_to_disk(used, w->bs, &dlen);
		e4_put_le16(d + 4, dlen);
		d += used;
		rec_len -= used;
	}
	memset(d, 0, rec_len);
	put_entry(w, d, rec_len, name, len, ino, file_type);
	return 1;
}

errcode_t e4_dirw_leaf_build(struct e4_dirw *w, const struct e4_new_dirent *ents, unsigned n,
			     void *buf)
{
	errcode_t err = e4_dir_block_build(w->fs, w->ino, ents, n, buf);

	if (!err)
		e4_dir_leaf_csum_set(w->fs, w->ino, w->gen, buf);
	return err;
}

/* ---- names ----------------------------------------------------------------- */

static errcode_t check_name(const char *name, size_t len)
{
	if (!name || len == 0)
		return E4_ERR_INVALID_ARGUMENT;
	if (len > EXT4_NAME_LEN)
		return E4_ERR_NAME_TOO_LONG;
	if (memchr(name, '/', len) || memchr(name, '\0', len))
		return E4_ERR_INVALID_ARGUMENT;
	return 0;
}

/* ---- finding an entry -------------------------------------------------------- */

struct found {
	uint64_t lblk;
	unsigned off, prev;
	int kind;		/* E4_DX_LEAF, or E4_DX_ROOT for ".." in a dx root */
};

static int is_indexed(struct e4_dirw *w)
{
	return (e4_le32(w->ib.inode.i_flags) & EXT4_INDEX_FL) &&
	       e4_has_compat(w->fs, EXT4_FEATURE_COMPAT_DIR_INDEX);
}

/* Search leaf lblk (read into buf and checked).  1 found, 0 not, or an
 * error (< 0 never: errors are returned through *err). */
static int search_leaf(struct e4_dirw *w, uint64_t lblk, uint8_t *buf, const char *name,
		       size_t len, struct found *f, errcode_t *err)
{
	*err = e4_dirw_read(w, lblk, buf);
	if (!*err)
		*err = e4_dirw_leaf_check(w, buf);
	if (*err)
		return 0;
	if (e4_dirw_leaf_find(w, buf, name, len, &f->off, &f->prev) < 0)
		return 0;
	f->lblk = lblk;
	f->kind = E4_DX_LEAF;
	return 1;
}

/* Find the live entry name: "." and ".." in block 0, other names through
 * the index's leaves, else (not indexed, or missed there: a stale index)
 * every leaf.  The block is left in buf. */
static errcode_t find_entry(struct e4_dirw *w, const char *name, size_t len, uint8_t *buf,
			    struct found *f)
{
	errcode_t err;
	uint64_t lblk;

	if (is_dots(name, len)) {
		err = e4_dirw_read(w, 0, buf);
		if (err)
			return err;
		if (e4_dx_block_kind(w->fs, buf, 0) == E4_DX_ROOT) {
			err = e4_dx_block_verify(w->fs, w->ino, &w->ib.inode, buf, E4_DX_ROOT);
			if (err)
				return err;
			f->kind = E4_DX_ROOT;
			f->lblk = 0;
			f->off = len == 1 ? 0 : 12;
			f->prev = len == 1 ? UINT32_MAX : 0;
			return e4_get_le32(buf + f->off) ? 0 : E4_ERR_NOT_FOUND;
		}
		err = e4_dirw_leaf_check(w, buf);
		if (err)
			return err;
		if (e4_dirw_leaf_find(w, buf, name, len, &f->off, &f->prev) < 0)
			return E4_ERR_NOT_FOUND;
		f->lblk = 0;
		f->kind = E4_DX_LEAF;
		return 0;
	}
	if (is_indexed(w)) {
		uint64_t *leaves;
		size_t n, i;
		int hit = 0;

		err = e4_dx_lookup_leaves(w->fs, w->ino, &w->ib.inode, name, len, &leaves, &n);
		if (err)
			return err;
		for (i = 0; i < n && !hit; i++) {
			hit = search_leaf(w, leaves[i], buf, name, len, f, &err);
			if (err)
				break;
		}
		free(leaves);
		if (hit || err)
			return err;
	}
	for (lblk = 0; lblk < w->nblocks; lblk++) {
		err = e4_dirw_read(w, lblk, buf);
		if (err)
			return err;
		if (e4_dx_block_kind(w->fs, buf, lblk) != E4_DX_LEAF && is_indexed(w))
			continue;
		if (search_leaf(w, lblk, buf, name, len, f, &err))
			return 0;
		if (err)
			return err;
	}
	return E4_ERR_NOT_FOUND;
}

/* Write back the block holding a changed entry, with its checksum. */
static errcode_t write_found(struct e4_dirw *w, const struct found *f, uint8_t *buf)
{
	errcode_t err;

	if (f->kind == E4_DX_ROOT) {
		err = e4_dx_csum_set(w->fs, w->ino, w->gen, buf, E4_DX_ROOT_COUNT_OFF);
		if (err)
			return err;
	} else {
		e4_dir_leaf_csum_set(w->fs, w->ino, w->gen, buf);
	}
	return e4_dirw_write(w, f->lblk, buf);
}

/* ---- linear insert ------------------------------------------------------------ */

static errcode_t linear_insert(struct e4_dirw *w, const char *name, size_t len, e4_ino_t ino,
			       uint8_t file_type)
{
	uint8_t *buf = malloc((size_t)w->bs * 2), *slot;
	uint64_t lblk, slot_lblk = UINT64_MAX;
	unsigned need = e4_dirent_min_rec((unsigned)len);
	errcode_t err = 0;

	if (!buf)
		return E4_ERR_NO_MEMORY;
	slot = buf + w->bs;
	if (w->nblocks == 0) {
		err = E4_ERR_DIR_CORRUPT;	/* no "." and ".." */
		goto out;
	}
	/* Every block: the name must not be there; the first slot wins. */
	for (lblk = 0; lblk < w->nblocks; lblk++) {
		unsigned off, prev;

		err = e4_dirw_read(w, lblk, buf);
		if (!err)
			err = e4_dirw_leaf_check(w, buf);
		if (err)
			goto out;
		if (e4_dirw_leaf_find(w, buf, name, len, &off, &prev) >= 0) {
			err = E4_ERR_EXISTS;
			goto out;
		}
		if (slot_lblk == UINT64_MAX && region_slot(w, buf, 0, w->leaf_end, need) >= 0) {
			memcpy(slot, buf, w->bs);
			slot_lblk = lblk;
		}
	}
	if (slot_lblk != UINT64_MAX) {
		e4_dirw_leaf_add(w, slot, name, len, ino, file_type);
		e4_dir_leaf_csum_set(w->fs, w->ino, w->gen, slot);
		err = e4_dirw_write(w, slot_lblk, slot);
		goto out;
	}
	if (w->nblocks == 1 && e4_has_compat(w->fs, EXT4_FEATURE_COMPAT_DIR_INDEX)) {
		/* block 0 is still in buf, checked */
		err = e4_dx_convert_insert(w, buf, name, len, ino, file_type);
		goto out;
	}
	{
		struct e4_new_dirent e = { ino, name, (uint8_t)len, file_type };

		err = e4_dirw_append(w, &lblk);
		if (!err)
			err = e4_dirw_leaf_build(w, &e, 1, buf);
		if (!err)
			err = e4_dirw_write(w, lblk, buf);
		if (!err)
			err = e4_dirw_order_new(w);
	}
out:
	free(buf);
	return err;
}

/* ---- public calls ------------------------------------------------------------------ */

errcode_t e4_dir_insert(e4_fs *fs, e4_ino_t dir, const char *name, size_t len, e4_ino_t ino,
			uint8_t file_type)
{
	struct e4_dirw w;
	errcode_t err, err2;

	err = check_name(name, len);
	if (err)
		return err;
	if (is_dots(name, len) || ino == 0 || ino > e4_geom(fs)->inodes_count)
		return E4_ERR_INVALID_ARGUMENT;
	err = e4_dirw_open(fs, dir, &w);
	if (err)
		return err;
	if (e4_le32(w.ib.inode.i_flags) & EXT4_INLINE_DATA_FL) {
		int placed = 0;

		err = e4_dir_inline_insert(&w, name, len, ino, file_type, &placed);
		if (err || placed)
			goto out;
		/* no room left in the inode: a block directory from now on */
		err = e4_dir_inline_convert(&w);
		if (!err)
			err = e4_dirw_open(fs, dir, &w);
		if (err)
			return err;
	}
	if (is_indexed(&w))
		err = e4_dx_insert(&w, name, len, ino, file_type);
	else
		err = linear_insert(&w, name, len, ino, file_type);
out:
	err2 = e4_dirw_close(&w);
	return err ? err : err2;
}

errcode_t e4_dir_insert_check(e4_fs *fs, e4_ino_t dir, const char *name, size_t len)
{
	struct e4_dirw w;
	struct found f;
	uint8_t *buf = NULL;
	errcode_t err;

	err = check_name(name, len);
	if (!err && is_dots(name, len))
		err = E4_ERR_INVALID_ARGUMENT;
	if (!err)
		err = e4_dirw_open(fs, dir, &w);
	if (err)
		return err;
	if (e4_le32(w.ib.inode.i_flags) & EXT4_INLINE_DATA_FL)
		return e4_dir_inline_check(&w, name, len);
	buf = malloc(w.bs);
	if (!buf)
		return E4_ERR_NO_MEMORY;
	if (!w.nblocks) {
		err = E4_ERR_DIR_CORRUPT;	/* no "." and ".." */
	} else if (is_indexed(&w)) {
		/* the root and the leaves the name hashes to (what the insert
		 * reads first), not the whole-directory scan */
		uint64_t *leaves;
		size_t n, i;
		int hit = 0;

		err = e4_dx_lookup_leaves(fs, dir, &w.ib.inode, name, len, &leaves, &n);
		if (!err) {
			for (i = 0; i < n && !hit && !err; i++)
				hit = search_leaf(&w, leaves[i], buf, name, len, &f, &err);
			free(leaves);
			if (!err && hit)
				err = E4_ERR_EXISTS;
		}
	} else {
		err = find_entry(&w, name, len, buf, &f);
		err = err == E4_ERR_NOT_FOUND ? 0 : err ? err : E4_ERR_EXISTS;
	}
	free(buf);
	return err;
}

/* A change to one existing entry of the open directory w: find name
 * (its block in a buffer), call change, write the block back.  Inline
 * directories through dir_inline.c. */
static errcode_t change_entry(struct e4_dirw *w, const char *name, size_t len,
			      e4_dirw_change change, void *priv)
{
	struct found f;
	uint8_t *buf;
	errcode_t err;

	if (e4_le32(w->ib.inode.i_flags) & EXT4_INLINE_DATA_FL)
		return e4_dir_inline_change(w, name, len, change, priv);
	buf = malloc(w->bs);
	if (!buf)
		return E4_ERR_NO_MEMORY;
	err = find_entry(w, name, len, buf, &f);
	if (!err) {
		change(w, buf, f.off, f.prev, priv);
		err = write_found(w, &f, buf);
	}
	free(buf);
	return err;
}

/* What the entry named before the change. */
struct entry_was {
	e4_ino_t ino, new_ino;
	uint8_t file_type, new_type;
};

static void note_entry(struct e4_dirw *w, const uint8_t *buf, unsigned off,
		       struct entry_was *was)
{
	was->ino = e4_get_le32(buf + off);
	was->file_type = w->filetype ? buf[off + 7] : 0;
}

/* Remove the entry at off (kernel's rule, see the top); prev: the entry
 * before it in its block or region, or UINT_MAX. */
static void remove_in_block(struct e4_dirw *w, uint8_t *buf, unsigned off, unsigned prev,
			    void *priv)
{
	uint8_t *d = buf + off;
	unsigned rec_len = e4_rec_len_from_disk(e4_get_le16(d + 4), w->bs);

	note_entry(w, buf, off, priv);
	if (prev != UINT32_MAX) {
		uint8_t *p = buf + prev;
		unsigned plen = e4_rec_len_from_disk(e4_get_le16(p + 4), w->bs);
		uint16_t dlen;

		(void)e4_rec_len_to_disk(plen + rec_len, w->bs, &dlen);
		e4_put_le16(p + 4, dlen);
		memset(d, 0, rec_len);
	} else {
		e4_put_le32(d, 0);
		memset(d + 6, 0, rec_len - 6);
	}
}

errcode_t e4_dir_remove(e4_fs *fs, e4_ino_t dir, const char *name, size_t len, e4_ino_t *ino,
			uint8_t *file_type)
{
	struct entry_was was = { 0 };
	struct e4_dirw w;
	errcode_t err, err2;

	err = check_name(name, len);
	if (err)
		return err;
	if (is_dots(name, len))
		return E4_ERR_INVALID_ARGUMENT;
	err = e4_dirw_open(fs, dir, &w);
	if (err)
		return err;
	err = change_entry(&w, name, len, remove_in_block, &was);
	err2 = e4_dirw_close(&w);
	if (!err && ino)
		*ino = was.ino;
	if (!err && file_type)
		*file_type = was.file_type;
	return err ? err : err2;
}

static void set_in_block(struct e4_dirw *w, uint8_t *buf, unsigned off, unsigned prev,
			 void *priv)
{
	struct entry_was *was = priv;

	(void)prev;
	note_entry(w, buf, off, was);
	e4_put_le32(buf + off, was->new_ino);
	buf[off + 7] = w->filetype ? was->new_type : 0;
}

errcode_t e4_dir_set_entry(e4_fs *fs, e4_ino_t dir, const char *name, size_t len, e4_ino_t ino,
			   uint8_t file_type, e4_ino_t *old_ino)
{
	struct entry_was was = { 0, ino, 0, file_type };
	struct e4_dirw w;
	errcode_t err, err2;

	err = check_name(name, len);
	if (err)
		return err;
	if ((len == 1 && name[0] == '.') || ino == 0 || ino > e4_geom(fs)->inodes_count)
		return E4_ERR_INVALID_ARGUMENT;
	err = e4_dirw_open(fs, dir, &w);
	if (err)
		return err;
	if (is_dots(name, len) && (e4_le32(w.ib.inode.i_flags) & EXT4_INLINE_DATA_FL)) {
		/* an inline directory keeps its parent in i_block[0] */
		was.ino = e4_le32(w.ib.inode.i_block[0]);
		w.ib.inode.i_block[0] = e4_cpu_to_le32(ino);
		w.dirty = 1;
	} else {
		err = change_entry(&w, name, len, set_in_block, &was);
	}
	err2 = e4_dirw_close(&w);
	if (!err && old_ino)
		*old_ino = was.ino;
	return err ? err : err2;
}

struct room {
	unsigned need;
	int found;
};

static int room_cb(const struct e4_dirent *d, void *priv)
{
	struct room *r = priv;
	unsigned used = d->inode ? e4_dirent_min_rec(d->name_len) : 0;

	if (d->rec_len < used + r->need)
		return 0;
	r->found = 1;
	return 1;
}

errcode_t e4_dir_has_room(e4_fs *fs, e4_ino_t dir, size_t len, int *room)
{
	struct room r = { e4_dirent_min_rec((unsigned)len), 0 };
	union e4_inode_buf ib;
	errcode_t err;

	*room = 1;
	err = e4_inode_read(fs, dir, &ib);
	if (err || (e4_le32(ib.inode.i_flags) & (EXT4_INDEX_FL | EXT4_INLINE_DATA_FL)))
		return err;
	err = e4_dir_iterate(fs, dir, E4_DIR_EMPTY, room_cb, &r);
	*room = r.found;
	return r.found ? 0 : err;	/* (the walk stopped by room_cb) */
}
