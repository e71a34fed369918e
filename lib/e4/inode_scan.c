/*
 * inode_scan.c: every inode in order, its inode tables read in large
 * chunks, optionally with the next chunk announced ahead (ops.h; format doc 4.2 for
 * INODE_UNINIT and bg_itable_unused, which only descriptor checksums make
 * trustworthy, as e2fsck's scan also assumes).
 */
#include "e4_private.h"

#include <stdlib.h>
#include <string.h>

#define SCAN_CHUNK_DEFAULT	(1u << 20)	/* fastest measured (ops.h) */

struct e4_inode_scan {
	e4_fs *fs;
	unsigned flags;
	uint32_t chunk_blocks;
	uint8_t *buf;			/* chunk_blocks blocks */
	uint8_t *zero;			/* one zeroed inode (skipped inodes) */
	uint8_t *ibitmap;		/* one block (E4_SCAN_CHECK_BITMAP) */
	e4_group_t g;			/* current group */
	int group_ready;		/* g's limits below are set */
	uint32_t used;			/* inodes of g to read (the rest skipped) */
	uint32_t idx;			/* next inode index in g */
	e4_blk_t table;			/* g's inode table */
	uint32_t buf_first, buf_count;	/* inodes of g held in buf */
	/* buf's blocks that could not be read (a chunk whose read failed is
	 * read again block by block; NULL until then), and the error */
	uint8_t *bad;
	int has_bad;
	errcode_t bad_err;
	uint64_t bytes_read, blocks_skipped;
};

errcode_t e4_inode_scan_open(e4_fs *fs, size_t chunk_bytes, unsigned flags,
			     e4_inode_scan **ret)
{
	unsigned bs = fs->geom.block_size;
	e4_inode_scan *s;

	*ret = NULL;
	if (!chunk_bytes)
		chunk_bytes = SCAN_CHUNK_DEFAULT;
	s = calloc(1, sizeof(*s));
	if (!s)
		return E4_ERR_NO_MEMORY;
	s->fs = fs;
	s->flags = flags;
	s->chunk_blocks = (uint32_t)(chunk_bytes / bs ? chunk_bytes / bs : 1);
	if (s->chunk_blocks > fs->geom.inode_blocks_per_group)
		s->chunk_blocks = fs->geom.inode_blocks_per_group ? fs->geom.inode_blocks_per_group
								  : 1;
	s->buf = malloc((size_t)s->chunk_blocks * bs);
	s->zero = calloc(1, fs->geom.inode_size);
	if (flags & E4_SCAN_CHECK_BITMAP)
		s->ibitmap = malloc(bs);
	if (!s->buf || !s->zero || ((flags & E4_SCAN_CHECK_BITMAP) && !s->ibitmap)) {
		e4_inode_scan_close(s);
		return E4_ERR_NO_MEMORY;
	}
	*ret = s;
	return 0;
}

void e4_inode_scan_close(e4_inode_scan *s)
{
	if (!s)
		return;
	free(s->buf);
	free(s->zero);
	free(s->ibitmap);
	free(s->bad);
	free(s);
}

void e4_inode_scan_stats(e4_inode_scan *s, uint64_t *bytes_read, uint64_t *blocks_skipped)
{
	if (bytes_read)
		*bytes_read = s->bytes_read;
	if (blocks_skipped)
		*blocks_skipped = s->blocks_skipped;
}

/* Blocks of the inode table holding inodes [0, n) of a group. */
static uint32_t table_blocks(e4_fs *fs, uint32_t n)
{
	return (uint32_t)(((uint64_t)n * fs->geom.inode_size + fs->geom.block_size - 1) /
			  fs->geom.block_size);
}

/* Are group g's INODE_UNINIT and bg_itable_unused (d) to be believed:
 * a descriptor checksum feature, the checksum right, and the descriptor
 * not contradicting them (e4_group_count_faults(): more never-used inodes
 * than free ones; INODE_UNINIT with inodes or directories counted in
 * use).  A damaged descriptor with a recomputed checksum must not hide
 * inodes in use. */
static int uninit_trusted(e4_inode_scan *s, e4_group_t g, const struct e4_group *d)
{
	struct e4_gd_fault f[E4_GD_COUNT_FAULTS_MAX];
	e4_fs *fs = s->fs;
	const struct e4_geom *geo = &fs->geom;
	uint32_t ipg = geo->inodes_per_group;

	if (!(geo->metadata_csum || geo->gdt_csum) || !e4_group_csum_ok(fs, g))
		return 0;
	if ((d->flags & EXT4_BG_INODE_UNINIT) && (d->free_inodes != ipg || d->used_dirs))
		return 0;
	if (e4_group_count_faults(fs, g, d, f))
		return 0;
	if (!(s->flags & E4_SCAN_CHECK_BITMAP) || (d->flags & EXT4_BG_INODE_UNINIT) ||
	    !d->itable_unused)
		return 1;
	/* the bitmap marks an inode in use past the unused mark, or
	 * cannot be believed: the count is not */
	if (e4_read_inode_bitmap(fs, g, s->ibitmap))
		return 0;
	for (uint32_t k = d->itable_unused < ipg ? ipg - d->itable_unused : 0; k < ipg; k++)
		if (e4_bit_test(s->ibitmap, k))
			return 0;
	return 1;
}

/* Set up group s->g: which inodes are read.  E4_ERR_GD_BAD_LOCATION for
 * an inode table outside the filesystem (the whole group is reported). */
static errcode_t group_start(e4_inode_scan *s)
{
	e4_fs *fs = s->fs;
	const struct e4_geom *geo = &fs->geom;
	uint32_t ipg = geo->inodes_per_group;
	struct e4_group d;
	int trusted;
	errcode_t err;

	s->idx = 0;
	s->buf_count = 0;
	s->group_ready = 1;
	err = e4_group_get(fs, s->g, &d);
	if (err)
		return err;
	s->table = d.inode_table;
	trusted = uninit_trusted(s, s->g, &d);
	s->used = ipg;
	if (trusted && (d.flags & EXT4_BG_INODE_UNINIT))
		s->used = 0;
	else if (trusted)
		s->used = d.itable_unused < ipg ? ipg - d.itable_unused : 0;
	s->blocks_skipped += geo->inode_blocks_per_group - table_blocks(fs, s->used);
	if (s->used && (d.inode_table < geo->first_data_block ||
			d.inode_table + table_blocks(fs, s->used) > geo->blocks_count))
		return E4_ERR_GD_BAD_LOCATION;
	return 0;
}

/* The chunk of n blocks from table block first_blk failed to read (err):
 * read it again block by block, so that only the blocks that fail are
 * lost (zeroed in buf, marked in s->bad).  0 when some block was read,
 * else err (the whole chunk is reported as before). */
static errcode_t chunk_reread(e4_inode_scan *s, uint32_t first_blk, uint32_t n, errcode_t err)
{
	e4_fs *fs = s->fs;
	unsigned bs = fs->geom.block_size;
	uint32_t good = 0;

	if (!s->bad && !(s->bad = malloc(s->chunk_blocks)))
		return err;
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *b = s->buf + (size_t)i * bs;
		errcode_t e = e4_io_read_nocache(fs->io, (s->table + first_blk + i) * (uint64_t)bs,
						 b, bs);

		s->bad[i] = e != 0;
		if (e) {
			memset(b, 0, bs);
			s->bad_err = e;
		} else {
			good++;
		}
	}
	if (!good)
		return err;
	s->bytes_read += (uint64_t)good * bs;
	s->has_bad = 1;
	return 0;
}

/* The inodes from index s->idx on that lie in blocks of buf which could
 * not be read (0: s->idx's block was read). */
static uint32_t bad_run(const e4_inode_scan *s)
{
	unsigned bs = s->fs->geom.block_size, isz = s->fs->geom.inode_size;
	uint64_t base = (uint64_t)s->buf_first * isz;	/* byte of buf[0] in the table */
	uint32_t b = (uint32_t)(((uint64_t)s->idx * isz - base) / bs), e = b;
	uint32_t nblk = (uint32_t)((((uint64_t)s->buf_first + s->buf_count) * isz - base +
				    bs - 1) / bs);
	uint64_t end;

	if (!s->has_bad || !s->bad[b])
		return 0;
	while (e < nblk && s->bad[e])
		e++;
	end = (base + (uint64_t)e * bs) / isz;
	if (end > (uint64_t)s->buf_first + s->buf_count)
		end = (uint64_t)s->buf_first + s->buf_count;
	return (uint32_t)(end - s->idx);
}

/* Read the chunk holding inode index s->idx of the current group, and
 * announce the next one. */
static errcode_t chunk_read(e4_inode_scan *s)
{
	e4_fs *fs = s->fs;
	unsigned bs = fs->geom.block_size, isz = fs->geom.inode_size;
	uint32_t first_blk = (uint32_t)((uint64_t)s->idx * isz / bs);
	uint32_t last_blk = table_blocks(fs, s->used);
	uint32_t n = last_blk - first_blk < s->chunk_blocks ? last_blk - first_blk : s->chunk_blocks;
	errcode_t err;

	s->buf_first = (uint32_t)((uint64_t)first_blk * bs / isz);
	s->buf_count = (uint32_t)((uint64_t)n * bs / isz);
	if (s->buf_first + s->buf_count > s->used)
		s->buf_count = s->used - s->buf_first;
	if (s->flags & E4_SCAN_READAHEAD) {
		uint64_t next = first_blk + n;

		if (next < last_blk)
			e4_io_readahead(fs->io, (s->table + next) * (uint64_t)bs,
					(uint64_t)(last_blk - next < s->chunk_blocks
						   ? last_blk - next : s->chunk_blocks) * bs);
		else if (s->g + 1 < fs->geom.group_count) {
			struct e4_group d;

			if (!e4_group_get(fs, s->g + 1, &d))
				e4_io_readahead(fs->io, d.inode_table * (uint64_t)bs,
						(uint64_t)s->chunk_blocks * bs);
		}
	}
	s->has_bad = 0;
	err = e4_io_read_nocache(fs->io, (s->table + first_blk) * (uint64_t)bs, s->buf,
				 (size_t)n * bs);
	if (!err)
		s->bytes_read += (uint64_t)n * bs;
	else if (n > 1 && err != E4_ERR_NO_MEMORY)
		err = chunk_reread(s, first_blk, n, err);
	return err;
}

errcode_t e4_inode_scan_next(e4_inode_scan *s, e4_ino_t *ino, const struct ext4_inode **inode,
			     uint32_t *count, int *csum_ok)
{
	e4_fs *fs = s->fs;
	uint32_t ipg = fs->geom.inodes_per_group, n;
	errcode_t err;

	for (;;) {
		*ino = 0;
		if (s->g >= fs->geom.group_count)
			return E4_ERR_NOT_FOUND;
		if (!s->group_ready) {
			err = group_start(s);
			if (err) {
				*ino = s->g * ipg + 1;
				if (count)
					*count = ipg;
				s->g++;
				s->group_ready = 0;
				return err;
			}
		}
		if (s->idx >= ipg || (s->idx >= s->used && !(s->flags & E4_SCAN_ALL_INODES))) {
			s->g++;
			s->group_ready = 0;
			continue;
		}
		*ino = s->g * ipg + s->idx + 1;
		if (s->idx >= s->used) {
			s->idx++;
			*inode = (const struct ext4_inode *)s->zero;
			if (csum_ok)
				*csum_ok = 1;
			return 0;
		}
		if (s->idx < s->buf_first || s->idx >= s->buf_first + s->buf_count) {
			err = chunk_read(s);
			if (err) {
				if (count)
					*count = s->buf_first + s->buf_count - s->idx;
				s->idx = s->buf_first + s->buf_count;
				s->buf_count = 0;
				return err;
			}
		}
		if ((n = bad_run(s)) != 0) {
			if (count)
				*count = n;
			s->idx += n;
			return s->bad_err;
		}
		*inode = (const struct ext4_inode *)(s->buf + (size_t)(s->idx - s->buf_first) *
								 fs->geom.inode_size);
		s->idx++;
		if (csum_ok)
			*csum_ok = e4_inode_csum_verify(fs, *ino, *inode);
		if (count)
			*count = 1;
		return 0;
	}
}
