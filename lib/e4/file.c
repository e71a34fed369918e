/*
 * file.c: reading file data through the mapping interface (format doc
 * sections 6.4, 7 and 8.6).
 *
 * The run found by the last e4_bmap() (mapped, unwritten or hole) is kept,
 * so a sequential read walks the map once per run, not once per block.
 * A mapped run goes straight from the device into the caller's buffer
 * with one uncached read (partial first and last blocks included); only
 * reads smaller than a block pass through a one-block bounce buffer, which
 * serves small sequential reads of the same block.  Inline data and
 * fast symlink targets are copied from the inode at open.
 */
#include <stdlib.h>
#include <string.h>

#include "e4_private.h"

/* Largest single device read (bytes), to keep requests reasonable. */
#define FILE_MAX_IO	(8u << 20)

enum file_kind {
	FILE_MAPPED,	/* i_block is an extent tree or indirect map */
	FILE_BUFFER,	/* inline data or fast symlink: data[] */
	FILE_EMPTY,	/* devices, fifos, sockets: no data blocks */
};

struct e4_file {
	e4_fs *fs;
	e4_ino_t ino;
	union e4_inode_buf ib;
	uint64_t size;			/* bytes (i_size) */
	unsigned bs;
	enum file_kind kind;
	uint8_t *data;			/* FILE_BUFFER contents */
	size_t data_len;
	/* Cached run: [run_lblk, run_lblk + run_len) maps to run_pblk.. */
	int run_valid;
	uint64_t run_lblk;
	uint64_t run_len;
	e4_blk_t run_pblk;		/* 0: hole */
	unsigned run_flags;
	uint8_t *bounce;		/* one block */
	e4_blk_t bounce_pblk;		/* block held in bounce (0: none) */
};

errcode_t e4_file_open(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
		       e4_file **ret)
{
	const struct ext4_inode *in;
	size_t isize = fs->geom.inode_size;
	e4_file *f;
	errcode_t err;

	*ret = NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return E4_ERR_NO_MEMORY;
	f->fs = fs;
	f->ino = ino;
	f->bs = fs->geom.block_size;
	if (inode) {
		if (isize > sizeof(f->ib))
			isize = sizeof(f->ib);
		memcpy(f->ib.raw, inode, isize);
	} else {
		err = e4_inode_read(fs, ino, &f->ib);
		if (err)
			goto fail;
	}
	in = &f->ib.inode;
	f->size = e4_inode_size(in);

	if (e4_le32(in->i_flags) & EXT4_INLINE_DATA_FL) {
		size_t n = 0;

		f->kind = FILE_BUFFER;
		err = e4_inline_data_size(fs, ino, in, &n);
		if (err)
			goto fail;
		f->data = malloc(n ? n : 1);
		if (!f->data) {
			err = E4_ERR_NO_MEMORY;
			goto fail;
		}
		err = e4_inline_data_get(fs, ino, in, f->data, n, &f->data_len);
		if (err)
			goto fail;
		if (f->data_len > n)
			f->data_len = n;
	} else if (e4_inode_is_fast_symlink(fs, in)) {
		f->kind = FILE_BUFFER;
		f->data_len = (size_t)f->size;	/* < 60 */
		f->data = malloc(sizeof(in->i_block));
		if (!f->data) {
			err = E4_ERR_NO_MEMORY;
			goto fail;
		}
		memcpy(f->data, in->i_block, sizeof(in->i_block));
	} else if (!e4_inode_has_map(fs, in)) {
		f->kind = FILE_EMPTY;
	} else {
		f->kind = FILE_MAPPED;
	}
	*ret = f;
	return 0;
fail:
	e4_file_close(f);
	return err;
}

void e4_file_close(e4_file *f)
{
	if (!f)
		return;
	free(f->data);
	free(f->bounce);
	free(f);
}

uint64_t e4_file_size(e4_file *f)
{
	return f->size;
}

/* Make the cached run cover lblk. */
static errcode_t file_find_run(e4_file *f, uint64_t lblk)
{
	e4_blk_t pblk;
	uint32_t len;
	unsigned flags;
	errcode_t err;

	if (f->run_valid && lblk >= f->run_lblk && lblk - f->run_lblk < f->run_len)
		return 0;
	f->run_valid = 0;
	err = e4_bmap(f->fs, f->ino, &f->ib.inode, lblk, &pblk, &len, &flags);
	if (err == E4_ERR_FILE_TOO_BIG) {
		/* Beyond what the map can address: nothing is stored there. */
		pblk = 0;
		len = UINT32_MAX;
		flags = 0;
	} else if (err) {
		return err;
	}
	if (len == 0)
		return E4_ERR_CORRUPT;		/* cannot happen; never loop */
	f->run_lblk = lblk;
	f->run_pblk = pblk;
	f->run_flags = flags;
	/* A hole with no end runs to the end of the logical space. */
	f->run_len = (!pblk && len == UINT32_MAX) ? UINT64_MAX - lblk : len;
	f->run_valid = 1;
	return 0;
}

static errcode_t read_mapped(e4_file *f, uint64_t offset, uint8_t *buf, size_t n,
			     size_t *done)
{
	e4_io *io = f->fs->io;
	unsigned bs = f->bs;
	errcode_t err;

	*done = 0;
	while (*done < n) {
		uint64_t pos = offset + *done;
		uint64_t lblk = pos / bs;
		unsigned boff = (unsigned)(pos % bs);
		size_t want = n - *done;
		uint64_t left, avail;
		size_t chunk;

		err = file_find_run(f, lblk);
		if (err)
			return err;
		left = f->run_len - (lblk - f->run_lblk);	/* >= 1 */
		/* Bytes of this run from pos, saturating. */
		avail = left > (UINT64_MAX - bs) / bs ? UINT64_MAX : left * bs - boff;
		chunk = want < avail ? want : (size_t)avail;

		if (!f->run_pblk || (f->run_flags & E4_MAP_UNWRITTEN)) {
			memset(buf + *done, 0, chunk);
		} else {
			e4_blk_t pblk = f->run_pblk + (lblk - f->run_lblk);

			if (chunk >= bs) {
				/* straight into buf, partial blocks at either
				 * end included: one read per run */
				if (chunk > FILE_MAX_IO)
					chunk = FILE_MAX_IO;
				if (pblk > UINT64_MAX / bs)
					return E4_ERR_SHORT_READ;
				err = e4_io_read_nocache(io, pblk * (uint64_t)bs + boff,
							 buf + *done, chunk);
				if (err)
					return err;
			} else {
				if (!f->bounce) {
					f->bounce = malloc(bs);
					if (!f->bounce)
						return E4_ERR_NO_MEMORY;
				}
				if (chunk > bs - boff)
					chunk = bs - boff;
				/* Small sequential reads hit one block twice. */
				if (f->bounce_pblk != pblk) {
					f->bounce_pblk = 0;
					err = e4_io_read_blk_nocache(io, pblk, 1, f->bounce);
					if (err)
						return err;
					f->bounce_pblk = pblk;
				}
				memcpy(buf + *done, f->bounce + boff, chunk);
			}
		}
		*done += chunk;
	}
	return 0;
}

errcode_t e4_file_locate(e4_file *f, uint64_t offset, uint64_t *dev_off, uint64_t *len)
{
	uint64_t lblk = offset / f->bs, left, n;
	unsigned boff = (unsigned)(offset % f->bs);
	e4_blk_t pblk;
	errcode_t err;

	*dev_off = 0;
	*len = 0;
	if (f->kind != FILE_MAPPED)
		return E4_ERR_INVALID_ARGUMENT;
	if (offset >= f->size)
		return 0;
	err = file_find_run(f, lblk);
	if (err)
		return err;
	left = f->run_len - (lblk - f->run_lblk);	/* blocks, >= 1 */
	n = left > (UINT64_MAX - f->bs) / f->bs ? UINT64_MAX : left * f->bs - boff;
	*len = n < f->size - offset ? n : f->size - offset;
	if (f->run_pblk && !(f->run_flags & E4_MAP_UNWRITTEN)) {
		pblk = f->run_pblk + (lblk - f->run_lblk);
		if (pblk > (UINT64_MAX - boff) / f->bs)
			return E4_ERR_SHORT_READ;
		*dev_off = pblk * (uint64_t)f->bs + boff;
	}
	return 0;
}

errcode_t e4_file_pread(e4_file *f, uint64_t offset, void *buf, size_t len, size_t *got)
{
	uint8_t *out = buf;
	size_t n, done = 0;
	errcode_t err = 0;

	*got = 0;
	if (offset >= f->size || len == 0)
		return 0;
	n = f->size - offset < len ? (size_t)(f->size - offset) : len;

	switch (f->kind) {
	case FILE_BUFFER:
		/* Bytes past the stored data (i_size larger) read as zeros. */
		if (offset < f->data_len) {
			size_t c = f->data_len - offset;

			if (c > n)
				c = n;
			memcpy(out, f->data + offset, c);
			done = c;
		}
		memset(out + done, 0, n - done);
		done = n;
		break;
	case FILE_EMPTY:
		memset(out, 0, n);
		done = n;
		break;
	case FILE_MAPPED:
		err = read_mapped(f, offset, out, n, &done);
		break;
	}
	*got = done;
	return err;
}
