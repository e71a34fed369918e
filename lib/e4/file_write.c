/*
 * file_write.c: writing regular files (file_write.h): write at an offset,
 * truncate, punch and fallocate on either kind of map (map_write.c), and
 * inline data (inline_write.c).
 */
#include <stdlib.h>
#include <string.h>

#include "map_int.h"

/* Largest single data write (bytes). */
#define FW_MAX_IO	(8u << 20)

struct fw {
	e4_fs *fs;
	e4_ino_t ino;
	union e4_inode_buf *ib;
	unsigned bs;
	uint64_t off, end;		/* the write's byte range */
	const uint8_t *src;
	unsigned flags;
	e4_blk_t goal;
	uint8_t *bounce;		/* one block */
};

static errcode_t check_file(e4_fs *fs, const union e4_inode_buf *ib)
{
	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (!e4_is_reg(&ib->inode))
		return E4_ERR_INVALID_ARGUMENT;
	return 0;
}

static int is_inline(const union e4_inode_buf *ib)
{
	return (e4_le32(ib->inode.i_flags) & EXT4_INLINE_DATA_FL) != 0;
}

static void size_set(e4_fs *fs, struct ext4_inode *inode, uint64_t size)
{
	inode->i_size_lo = e4_cpu_to_le32((uint32_t)size);
	inode->i_size_high = e4_cpu_to_le32((uint32_t)(size >> 32));
	if (size > 0x7FFFFFFFULL && !e4_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_LARGE_FILE)) {
		/* as the kernel does for the first file past 2 GiB */
		fs->sb->s_feature_ro_compat = e4_cpu_to_le32(e4_le32(fs->sb->s_feature_ro_compat) |
							     EXT4_FEATURE_RO_COMPAT_LARGE_FILE);
		fs->sb_dirty = 1;
	}
}

/* Blocks of the range [a, b) bytes, rounded out. */
static uint64_t blk_lo(uint64_t a, unsigned bs) { return a / bs; }
static uint64_t blk_hi(uint64_t b, unsigned bs) { return (b + bs - 1) / bs; }

/* ---- the tail of the last block --------------------------------------- */
errcode_t e4_file_zero_tail(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			    uint64_t size)
{
	unsigned bs = fs->geom.block_size, off = (unsigned)(size % bs);
	e4_blk_t pblk = 0;
	uint32_t len;
	unsigned flags = 0;
	uint8_t *buf;
	errcode_t err;

	if (!off || !e4_inode_has_map(fs, inode))
		return 0;
	err = e4_bmap(fs, ino, inode, size / bs, &pblk, &len, &flags);
	if (err == E4_ERR_FILE_TOO_BIG)
		return 0;
	if (err || !pblk || (flags & E4_MAP_UNWRITTEN))
		return err;
	if (pblk < fs->geom.first_data_block || pblk >= fs->geom.blocks_count)
		return E4_ERR_BAD_BLOCK_NUM;
	buf = malloc(bs);
	if (!buf)
		return E4_ERR_NO_MEMORY;
	err = e4_io_read_nocache(fs->io, (uint64_t)pblk * bs, buf, bs);
	if (!err) {
		memset(buf + off, 0, bs - off);
		err = e4_io_pwrite(fs->io, (uint64_t)pblk * bs, buf, bs);
	}
	free(buf);
	return err;
}

/* ---- writing data into blocks ---------------------------------------------- */
/* Write the part of the source that falls in logical blocks [lblk, lblk +
 * n), stored at [pblk, pblk + n).  Blocks only partly covered: with
 * `fresh` (a new or unwritten block) the rest is zeros, else the block's
 * current bytes. */
static errcode_t put_blocks(struct fw *w, uint64_t lblk, e4_blk_t pblk, uint64_t n, int fresh)
{
	uint64_t b = lblk, end = lblk + n;
	errcode_t err = 0;

	while (!err && b < end) {
		uint64_t bstart = b * w->bs, lo, hi, dev = (uint64_t)(pblk + (b - lblk)) * w->bs;

		lo = w->off > bstart ? w->off : bstart;
		hi = w->end < bstart + w->bs ? w->end : bstart + w->bs;
		if (lo == bstart && hi == bstart + w->bs) {
			/* whole blocks: straight from the source */
			uint64_t m = 1;

			while (b + m < end && (b + m + 1) * w->bs <= w->end &&
			       (m + 1) * w->bs <= FW_MAX_IO)
				m++;
			err = e4_io_pwrite(w->fs->io, dev, w->src + (bstart - w->off), m * w->bs);
			b += m;
			continue;
		}
		if (fresh)
			memset(w->bounce, 0, w->bs);
		else
			err = e4_io_read_nocache(w->fs->io, dev, w->bounce, w->bs);
		if (!err) {
			memcpy(w->bounce + (lo - bstart), w->src + (lo - w->off), hi - lo);
			err = e4_io_pwrite(w->fs->io, dev, w->bounce, w->bs);
		}
		b++;
	}
	return err;
}

/* With E4_FILE_SPARSE: the source's bytes in logical block b are zeros. */
static int src_zero(struct fw *w, uint64_t b)
{
	uint64_t bstart = b * w->bs, lo, hi;

	if (!(w->flags & E4_FILE_SPARSE))
		return 0;
	lo = w->off > bstart ? w->off : bstart;
	hi = w->end < bstart + w->bs ? w->end : bstart + w->bs;
	for (uint64_t i = lo; i < hi; i++)
		if (w->src[i - w->off])
			return 0;
	return 1;
}

/* A goal for new blocks of logical block lblk (the allocator's policy,
 * e4_alloc_goal_for_file()): after the block before it when that one is
 * mapped, else where the inode's data starts. */
static e4_blk_t goal_for(struct fw *w, uint64_t lblk)
{
	e4_blk_t p = 0;
	uint32_t len;
	unsigned fl;

	if (!lblk || e4_bmap(w->fs, w->ino, &w->ib->inode, lblk - 1, &p, &len, &fl))
		p = 0;
	return e4_alloc_goal_for_file(w->fs, w->ino, e4_le16(w->ib->inode.i_mode), p);
}

/* Up to *n contiguous free blocks near goal, marked in use (fewer when no
 * run that long is free; at least one). */
static errcode_t take_blocks(struct fw *w, uint64_t *n, e4_blk_t *p)
{
	uint64_t want = *n, got = 0;
	errcode_t err;

	if (want > 32768)
		want = 32768;
	/* the first run of want at the goal, else the longest one there is
	 * (no bigalloc here: got <= want) */
	err = e4_alloc_blocks(w->fs, w->goal, want, 1, p, &got);
	/* an indirect map holds 32-bit block numbers */
	if (!err && !(e4_le32(w->ib->inode.i_flags) & EXT4_EXTENTS_FL) && *p + got > 1ULL << 32) {
		(void)e4_block_mark(w->fs, *p, got, 0, NULL);
		err = E4_ERR_NO_SPACE;
	}
	if (!err)
		*n = got;
	return err;
}

/* ---- bigalloc: a logical cluster maps one physical cluster -------------------- */
/* The first block of the physical cluster logical cluster lc maps (some
 * block of it is mapped), else *pc = 0. */
static errcode_t cluster_of(struct fw *w, uint64_t lc, e4_blk_t *pc)
{
	unsigned cb = w->fs->geom.cluster_bits;
	uint64_t l = lc << cb, end = (lc + 1) << cb;

	*pc = 0;
	while (l < end) {
		e4_blk_t p;
		uint32_t len;
		unsigned fl;
		errcode_t err = e4_bmap(w->fs, w->ino, &w->ib->inode, l, &p, &len, &fl);

		if (err == E4_ERR_FILE_TOO_BIG)
			return 0;
		if (err)
			return err;
		if (p) {
			*pc = p - (l - (lc << cb));
			return 0;
		}
		if (len >= end - l)
			break;
		l += len;
	}
	return 0;
}

/* Map [lblk, lblk + k) (inside one logical cluster) into its physical
 * cluster, a new one (counted in i_blocks) when it has none. */
static errcode_t fill_cluster(struct fw *w, uint64_t lblk, uint64_t k, int unwritten)
{
	e4_fs *fs = w->fs;
	unsigned cb = fs->geom.cluster_bits, ratio = 1u << cb;
	uint64_t got;
	e4_blk_t pc, p;
	int fresh = 0;
	errcode_t err;

	err = cluster_of(w, lblk >> cb, &pc);
	if (!err && !pc) {
		err = e4_alloc_blocks(fs, w->goal, ratio, ratio, &pc, &got);
		if (!err)
			err = e4_map_iblocks_add(fs, &w->ib->inode, ratio);
		fresh = !err;
	}
	if (err)
		return err;
	p = pc + (lblk & (ratio - 1));
	if (!unwritten)
		err = put_blocks(w, lblk, p, k, 1);
	if (err && fresh) {
		/* nothing of the new cluster mapped: given back */
		(void)e4_block_mark(fs, pc, ratio, 0, NULL);
		(void)e4_map_iblocks_add(fs, &w->ib->inode, -(int64_t)ratio);
	}
	/* a failed set leaves the cluster counted and marked (a leak at
	 * worst, never a free cluster in use) */
	if (!err)
		err = e4_map_set(fs, w->ino, w->ib, lblk, k, p, unwritten ? E4_MAP_UNWRITTEN : 0);
	if (!err)
		w->goal = pc + ratio;
	return err;
}

/* Block maps: the end of the logical blocks that share lblk's level-1
 * indirect block (the direct blocks: 12).  Every level-1 block covers
 * apb blocks from 12 + j * apb. */
static uint64_t ind_seg_end(struct fw *w, uint64_t lblk)
{
	uint64_t apb = w->bs / 4;

	if (lblk < EXT4_NDIR_BLOCKS)
		return EXT4_NDIR_BLOCKS;
	return EXT4_NDIR_BLOCKS + ((lblk - EXT4_NDIR_BLOCKS) / apb + 1) * apb;
}

/* After a failed e4_map_set() of [lblk, lblk + k) to [p, p + k): free
 * the blocks of the run the map does not name (no leak; a block the map
 * does name, or one that cannot be checked, stays marked). */
static void give_back_unmapped(struct fw *w, uint64_t lblk, e4_blk_t p, uint64_t k)
{
	for (uint64_t i = 0; i < k;) {
		e4_blk_t got;
		uint32_t len;
		unsigned fl;
		uint64_t n;

		if (e4_bmap(w->fs, w->ino, &w->ib->inode, lblk + i, &got, &len, &fl))
			return;
		n = len < k - i ? len : k - i;
		if (!n)
			return;
		if (got != p + i) {
			/* none of [i, i + n) is ours (a hole, or mapped elsewhere) */
			(void)e4_block_mark(w->fs, p + i, n, 0, NULL);
		}
		i += n;
	}
}

/* Fill the hole [lblk, lblk + n) with the source: new blocks, data
 * written before they are mapped (unwritten with `unwritten`: nothing
 * written, for fallocate).  With bigalloc, cluster by cluster. */
static errcode_t fill_hole(struct fw *w, uint64_t lblk, uint64_t n, int unwritten)
{
	unsigned cb = w->fs->geom.cluster_bits;
	int extents = (e4_le32(w->ib->inode.i_flags) & EXT4_EXTENTS_FL) != 0;
	errcode_t err = 0;

	w->goal = goal_for(w, lblk);
	while (!err && n) {
		uint64_t k = 0;
		e4_blk_t p;

		if (!unwritten && src_zero(w, lblk)) {
			lblk++, n--;
			continue;
		}
		while (k < n && (unwritten || !src_zero(w, lblk + k)) &&
		       (!cb || (lblk + k) >> cb == lblk >> cb) &&
		       (extents || lblk + k < ind_seg_end(w, lblk)))
			k++;
		if (cb) {
			err = fill_cluster(w, lblk, k, unwritten);
			lblk += k;
			n -= k;
			continue;
		}
		/* block maps: the indirect blocks first, the data after them */
		err = extents ? 0 : e4_blockmap_reserve(w->fs, &w->ib->inode, lblk, &w->goal);
		if (!err)
			err = take_blocks(w, &k, &p);
		if (err)
			break;
		if (!unwritten)
			err = put_blocks(w, lblk, p, k, 1);
		if (err) {
			/* not mapped yet: given back */
			(void)e4_block_mark(w->fs, p, k, 0, NULL);
			break;
		}
		/* a failed set may have mapped part of the run: what it did
		 * not map is given back */
		err = e4_map_set(w->fs, w->ino, w->ib, lblk, k, p, unwritten ? E4_MAP_UNWRITTEN : 0);
		if (err) {
			give_back_unmapped(w, lblk, p, k);
			break;
		}
		w->goal = p + k;
		lblk += k;
		n -= k;
	}
	return err;
}

/* Walk the blocks [first, last] of the range: each run of the map, as
 * e4_bmap() reports it, written (or, for fallocate, its holes allocated
 * unwritten). */
static errcode_t walk_range(struct fw *w, uint64_t first, uint64_t last, int falloc)
{
	errcode_t err = 0;

	for (uint64_t lblk = first; !err && lblk <= last;) {
		e4_blk_t pblk;
		uint32_t len;
		unsigned fl;
		uint64_t n;

		err = e4_bmap(w->fs, w->ino, &w->ib->inode, lblk, &pblk, &len, &fl);
		if (err)
			break;
		n = last - lblk + 1 < len ? last - lblk + 1 : len;
		if (!pblk)
			err = fill_hole(w, lblk, n, falloc);
		else if (falloc)
			;	/* mapped already: left as it is */
		else if (!(fl & E4_MAP_UNWRITTEN))
			err = put_blocks(w, lblk, pblk, n, 0);
		else {
			err = put_blocks(w, lblk, pblk, n, 1);
			if (!err)
				err = e4_map_set(w->fs, w->ino, w->ib, lblk, n, pblk, 0);
		}
		lblk += n;
	}
	return err;
}

/* ---- inline data -------------------------------------------------------------- */
/* The file has no content and no blocks: it may become inline. */
static int empty_file(e4_fs *fs, const union e4_inode_buf *ib)
{
	const struct ext4_inode *in = &ib->inode;
	e4_blk_t p;
	uint32_t len;
	unsigned fl;

	if (e4_inode_size(in) || e4_inode_blocks(fs, in))
		return 0;
	return !e4_bmap(fs, 0, in, 0, &p, &len, &fl) && !p && len == UINT32_MAX;
}

/* The inline content (*data, *len bytes; at least `room` bytes
 * allocated, zero past the content). */
static errcode_t inline_load(e4_fs *fs, e4_ino_t ino, const union e4_inode_buf *ib,
			     size_t room, uint8_t **data, size_t *len)
{
	size_t have = 0, size = (size_t)e4_inode_size(&ib->inode);
	errcode_t err;

	*data = NULL;
	err = e4_inline_data_size(fs, ino, &ib->inode, &have);
	if (err)
		return err;
	if (size > have)
		size = have;
	*data = calloc(1, (room > have ? room : have) + 1);
	if (!*data)
		return E4_ERR_NO_MEMORY;
	err = e4_inline_data_get(fs, ino, &ib->inode, *data, have, NULL);
	if (!err)
		memset(*data + size, 0, have - size);
	*len = size;
	return err;
}

/* The inline file's content as blocks: inline data dropped, the content
 * written to a new block (none when empty), i_size kept. */
static errcode_t inline_convert(struct fw *w)
{
	uint8_t *data;
	size_t len;
	uint64_t size = e4_inode_size(&w->ib->inode);
	errcode_t err;

	err = inline_load(w->fs, w->ino, w->ib, 0, &data, &len);
	if (!err)
		err = e4_inline_data_remove(w->fs, w->ib);
	if (!err && len) {
		struct fw c = *w;

		c.off = 0;
		c.end = len;
		c.src = data;
		c.flags = 0;
		err = walk_range(&c, 0, blk_hi(len, w->bs) - 1, 0);
	}
	size_set(w->fs, &w->ib->inode, size);
	free(data);
	return err;
}

/* Content [off, end) of the source, or zeros (src NULL), put into an
 * inline file (or an empty one becoming inline) of new size `size`. */
static errcode_t inline_put(struct fw *w, uint64_t size)
{
	uint8_t *data = NULL;
	size_t len = 0;
	errcode_t err = 0;

	if (is_inline(w->ib))
		err = inline_load(w->fs, w->ino, w->ib, (size_t)size, &data, &len);
	else if (!(data = calloc(1, (size_t)size + 1)))
		err = E4_ERR_NO_MEMORY;
	if (err)
		goto out;
	if (w->end > w->off) {
		if (w->src)
			memcpy(data + w->off, w->src, (size_t)(w->end - w->off));
		else
			memset(data + w->off, 0, (size_t)(w->end - w->off));
	}
	err = e4_inline_data_set(w->fs, w->ib, data, (size_t)size);
out:
	free(data);
	return err;
}

/* Does an inline write of new size `size` fit (or is the file to be
 * converted / kept mapped)? */
static int inline_fits(struct fw *w, uint64_t size)
{
	if (is_inline(w->ib))
		return size <= e4_inline_data_max(w->fs, w->ib);
	if ((w->flags & E4_FILE_NO_INLINE) || !size || !empty_file(w->fs, w->ib))
		return 0;
	return size <= e4_inline_data_max(w->fs, w->ib);
}

static errcode_t fw_init(struct fw *w, e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib,
			 uint64_t off, uint64_t end, const void *src, unsigned flags)
{
	memset(w, 0, sizeof(*w));
	w->fs = fs;
	w->ino = ino;
	w->ib = ib;
	w->bs = fs->geom.block_size;
	w->off = off;
	w->end = end;
	w->src = src;
	w->flags = flags;
	w->bounce = malloc(w->bs);
	e4_map_root_fix(&ib->inode);
	return w->bounce ? 0 : E4_ERR_NO_MEMORY;
}

/* [off, end) must lie inside the largest file, in blocks: with extents
 * one block below the 2^32 the tree addresses (the kernel's
 * ext4_max_size() keeps ee_len able to cover the last extent; e2fsck -fn
 * finds a 2^32-block i_size wrong), with an indirect map its whole range
 * (e2fsck's limit; the kernel's s_bitmap_maxbytes may be lower, it only
 * limits its own writes). */
uint64_t e4_file_max_blocks(e4_fs *fs, const union e4_inode_buf *ib)
{
	int extents = is_inline(ib)
		? e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EXTENTS)
		: (e4_le32(ib->inode.i_flags) & EXT4_EXTENTS_FL) != 0;

	return extents ? (1ULL << 32) - 1 : e4_blockmap_max_blocks(fs);
}

static errcode_t range_ok(struct fw *w, uint64_t end)
{
	uint64_t max = e4_file_max_blocks(w->fs, w->ib);

	return blk_hi(end, w->bs) > max || end < w->off ? E4_ERR_FILE_TOO_BIG : 0;
}

errcode_t e4_file_write(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, uint64_t offset,
			const void *buf, size_t len, unsigned flags)
{
	uint64_t size, end = offset + len;
	struct fw w = { .bounce = NULL };
	errcode_t err;

	err = check_file(fs, ib);
	if (!err && (flags & ~(unsigned)(E4_FILE_SPARSE | E4_FILE_NO_INLINE)))
		err = E4_ERR_INVALID_ARGUMENT;
	if (err)
		return err;
	if (!len)
		return 0;
	err = fw_init(&w, fs, ino, ib, offset, end, buf, flags);
	if (!err)
		err = range_ok(&w, end);
	if (err)
		goto out;
	size = e4_inode_size(&ib->inode);
	if (end > size && inline_fits(&w, end)) {
		err = inline_put(&w, end);
		goto done;
	}
	if (is_inline(ib)) {
		if (end <= size) {
			err = inline_put(&w, size);
			goto done;
		}
		err = inline_convert(&w);
		if (err)
			goto out;
	}
	if (offset > size)
		err = e4_file_zero_tail(fs, ino, &ib->inode, size);
	if (!err)
		err = walk_range(&w, blk_lo(offset, w.bs), blk_hi(end, w.bs) - 1, 0);
done:
	if (!err && end > e4_inode_size(&ib->inode))
		size_set(fs, &ib->inode, end);
	/* the data, map blocks (extent nodes, indirect blocks) and bitmaps
	 * on disk before the inode that maps them (DESIGN.md "Writing
	 * safely"; the cache writes a step's blocks sorted by number, the
	 * inode table first) */
	if (!err)
		err = e4_order_point_primary(fs, 0);
	if (!err)
		err = e4_inode_write(fs, ino, ib);
out:
	free(w.bounce);
	return err;
}

errcode_t e4_file_truncate(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, uint64_t size)
{
	uint64_t old = e4_inode_size(&ib->inode);
	struct fw w = { .bounce = NULL };
	errcode_t err;

	err = check_file(fs, ib);
	if (!err)
		err = fw_init(&w, fs, ino, ib, size, size, NULL, 0);
	if (!err)
		err = range_ok(&w, size);
	if (err)
		goto out;
	if (is_inline(ib)) {
		if (size <= e4_inline_data_max(fs, ib)) {
			err = inline_put(&w, size);
			goto done;
		}
		err = inline_convert(&w);
		if (err)
			goto out;
	}
	if (size < old) {
		err = e4_map_punch(fs, ino, ib, blk_hi(size, w.bs), UINT64_MAX, NULL);
		if (!err)
			err = e4_file_zero_tail(fs, ino, &ib->inode, size);
	} else if (size > old) {
		err = e4_file_zero_tail(fs, ino, &ib->inode, old);
	}
done:
	if (!err)
		size_set(fs, &ib->inode, size);
	if (!err)
		err = e4_inode_write(fs, ino, ib);
out:
	free(w.bounce);
	return err;
}

/* Zero the bytes [a, b) inside one block of a mapped file, if written. */
static errcode_t zero_part(struct fw *w, uint64_t a, uint64_t b)
{
	e4_blk_t p;
	uint32_t len;
	unsigned fl;
	errcode_t err;

	if (a >= b)
		return 0;
	err = e4_bmap(w->fs, w->ino, &w->ib->inode, a / w->bs, &p, &len, &fl);
	if (err == E4_ERR_FILE_TOO_BIG)
		return 0;
	if (err || !p || (fl & E4_MAP_UNWRITTEN))
		return err;
	err = e4_io_read_nocache(w->fs->io, (uint64_t)p * w->bs, w->bounce, w->bs);
	if (!err) {
		memset(w->bounce + a % w->bs, 0, (size_t)(b - a));
		err = e4_io_pwrite(w->fs->io, (uint64_t)p * w->bs, w->bounce, w->bs);
	}
	return err;
}

errcode_t e4_file_punch(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, uint64_t offset,
			uint64_t len)
{
	uint64_t end = len > UINT64_MAX - offset ? UINT64_MAX : offset + len, size;
	uint64_t b0, b1;
	struct fw w = { .bounce = NULL };
	errcode_t err;

	err = check_file(fs, ib);
	if (err || !len)
		return err;
	err = fw_init(&w, fs, ino, ib, offset, end, NULL, 0);
	if (err)
		goto out;
	size = e4_inode_size(&ib->inode);
	if (is_inline(ib)) {
		if (offset < size) {
			w.end = end < size ? end : size;
			err = inline_put(&w, size);
		}
		goto done;
	}
	b0 = blk_hi(offset, w.bs);
	b1 = end / w.bs;
	if (b0 > b1) {
		/* inside one block */
		err = zero_part(&w, offset, end);
	} else {
		err = zero_part(&w, offset, b0 * w.bs);
		if (!err && end != UINT64_MAX)
			err = zero_part(&w, b1 * w.bs, end);
		if (!err && b1 > b0)
			err = e4_map_punch(fs, ino, ib, b0, b1 - b0, NULL);
	}
done:
	if (!err)
		err = e4_inode_write(fs, ino, ib);
out:
	free(w.bounce);
	return err;
}

errcode_t e4_file_fallocate(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, uint64_t offset,
			    uint64_t len, unsigned flags)
{
	uint64_t end = offset + len;
	struct fw w = { .bounce = NULL };
	errcode_t err;

	err = check_file(fs, ib);
	if (!err && (flags & ~(unsigned)E4_FALLOC_KEEP_SIZE))
		err = E4_ERR_INVALID_ARGUMENT;
	if (err || !len)
		return err;
	err = fw_init(&w, fs, ino, ib, offset, end, NULL, 0);
	if (!err)
		err = range_ok(&w, end);
	if (!err && is_inline(ib) && !e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EXTENTS))
		err = E4_ERR_UNSUPPORTED;	/* it would become a block map */
	if (!err && is_inline(ib))
		err = inline_convert(&w);
	if (!err && !(e4_le32(ib->inode.i_flags) & EXT4_EXTENTS_FL))
		err = E4_ERR_UNSUPPORTED;
	if (!err)
		err = walk_range(&w, blk_lo(offset, w.bs), blk_hi(end, w.bs) - 1, 1);
	if (!err && !(flags & E4_FALLOC_KEEP_SIZE) && end > e4_inode_size(&ib->inode))
		size_set(fs, &ib->inode, end);
	if (!err)
		err = e4_inode_write(fs, ino, ib);
	free(w.bounce);
	return err;
}
