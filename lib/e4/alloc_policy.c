/*
 * alloc_policy.c: where new blocks go (alloc.h): searches that skip full
 * groups by their descriptor counts, block goals (flex_bg aware), range
 * allocation, and the caller's own maps (e4fsck).  Inodes:
 * alloc_inode.c; the marks themselves: alloc.c.
 */
#include "alloc_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- one group's bits, from the cached on-disk bitmap or the caller's
 * map ------------------------------------------------------------------ */
/* Bit of the group's first cluster (inode) in a whole-filesystem map. */
uint64_t e4_alloc_group_base(e4_fs *fs, e4_group_t g, int inode)
{
	if (inode)
		return (uint64_t)g * fs->geom.inodes_per_group + 1;
	return e4_group_first_block(fs, g) >> fs->geom.cluster_bits;
}

static uint64_t group_bits(e4_fs *fs, e4_group_t g, int inode)
{
	return inode ? fs->geom.inodes_per_group : e4_alloc_group_clusters(fs, g);
}

errcode_t e4_alloc_src_get(e4_fs *fs, e4_group_t g, int inode, struct e4_alloc_src *s)
{
	uint8_t *map;
	errcode_t err;

	memset(s, 0, sizeof(*s));
	if (fs->alloc_maps[inode]) {
		s->bm = fs->alloc_maps[inode];
		s->base = e4_alloc_group_base(fs, g, inode);
		return 0;
	}
	err = e4_bitmap_cached(fs, g, inode, &map);
	s->map = map;
	return err;
}

/* The first bit in [i, n) that is set (want 1) or clear (want 0); n if
 * none. */
uint64_t e4_alloc_src_next(const struct e4_alloc_src *s, uint64_t i, uint64_t n, int want)
{
	if (s->bm) {
		uint64_t out;
		errcode_t err = want ? e4_bmap_find_first_set(s->bm, s->base + i, s->base + n, &out)
				     : e4_bmap_find_first_zero(s->bm, s->base + i, s->base + n, &out);

		return err ? n : out - s->base;
	}
	while (i < n) {
		if (!(i & 7) && i + 8 <= n && s->map[i >> 3] == (want ? 0x00 : 0xFF)) {
			i += 8;
			continue;
		}
		if (e4_bit_test(s->map, i) == want)
			return i;
		i++;
	}
	return n;
}

/* Free clusters (inodes) of group g: the descriptor's count, or the
 * caller's map when the hook is set.  Never reads a bitmap. */
errcode_t e4_alloc_group_free(e4_fs *fs, e4_group_t g, int inode, uint64_t *nfree)
{
	struct e4_group d;
	errcode_t err;

	if (fs->alloc_maps[inode]) {
		uint64_t n = group_bits(fs, g, inode);

		*nfree = n - e4_bmap_count_range(fs->alloc_maps[inode], e4_alloc_group_base(fs, g, inode), n);
		return 0;
	}
	err = e4_group_get(fs, g, &d);
	if (err)
		return err;
	*nfree = inode ? d.free_inodes : d.free_blocks;
	return 0;
}

/* ---- block runs ------------------------------------------------------- */
struct run {
	e4_blk_t start;		/* first block */
	uint64_t len;		/* clusters */
};

/* best becomes r if r is longer (of equals the first seen stays: the
 * nearest to the goal in search order). */
static void keep_longer(struct run *best, const struct run *r)
{
	if (r->len > best->len)
		*best = *r;
}

/* The first run of want free clusters at or after goal's cluster, groups
 * in order from goal's and wrapping once (a run goes on into the next
 * group when their clusters touch); else the longest run seen (the
 * nearest of equals) if it has min clusters.  Groups whose count says
 * full are skipped unread.  E4_ERR_NO_SPACE, bitmap errors. */
static errcode_t find_run(e4_fs *fs, e4_blk_t goal, uint64_t want, uint64_t min, struct run *out)
{
	const struct e4_geom *geo = &fs->geom;
	unsigned cb = geo->cluster_bits;
	struct run cur = { 0, 0 }, best = { 0, 0 };
	e4_group_t g0;
	errcode_t err;

	if (goal < geo->first_data_block || goal >= geo->blocks_count)
		goal = geo->first_data_block;
	g0 = e4_group_of_block(fs, goal);
	for (uint32_t k = 0; k <= geo->group_count; k++) {
		e4_group_t g = (g0 + k) % geo->group_count;
		e4_blk_t gfirst = e4_group_first_block(fs, g);
		uint64_t nc = e4_alloc_group_clusters(fs, g), c = 0, nfree;
		struct e4_alloc_src src;

		if (k == 0)
			c = (goal - gfirst) >> cb;
		if (k == geo->group_count)	/* the goal's group again, up to the goal */
			nc = (goal - gfirst) >> cb;
		if (c >= nc)
			continue;
		err = e4_alloc_group_free(fs, g, 0, &nfree);
		if (err)
			return err;
		if (nfree == 0)
			continue;
		err = e4_alloc_src_get(fs, g, 0, &src);
		if (err)
			return err;
		while (c < nc) {
			uint64_t z = e4_alloc_src_next(&src, c, nc, 0), s;
			e4_blk_t zb = gfirst + (z << cb);

			if (z >= nc)
				break;
			s = e4_alloc_src_next(&src, z, nc, 1);
			if (cur.len && cur.start + (cur.len << cb) == zb) {
				cur.len += s - z;	/* goes on from the previous group */
			} else {
				keep_longer(&best, &cur);
				cur.start = zb;
				cur.len = s - z;
			}
			if (cur.len >= want) {
				out->start = cur.start;
				out->len = want;
				return 0;
			}
			c = s;
		}
	}
	keep_longer(&best, &cur);
	if (!best.len || best.len < min)
		return E4_ERR_NO_SPACE;
	*out = best;
	return 0;
}

errcode_t e4_block_find_free(e4_fs *fs, e4_blk_t goal, uint64_t count, e4_blk_t *first)
{
	const struct e4_geom *geo = &fs->geom;
	uint64_t need;
	struct run r;
	errcode_t err;

	if (count == 0 || count > geo->blocks_count)
		return E4_ERR_NO_SPACE;
	need = (count + (1ull << geo->cluster_bits) - 1) >> geo->cluster_bits;
	err = find_run(fs, goal, need, need, &r);
	if (!err)
		*first = r.start;
	return err;
}

errcode_t e4_alloc_blocks(e4_fs *fs, e4_blk_t goal, uint64_t want, uint64_t min,
			  e4_blk_t *first, uint64_t *got)
{
	const struct e4_geom *geo = &fs->geom;
	uint64_t csize = 1ull << geo->cluster_bits, wantc, minc, blocks;
	struct run r;
	errcode_t err;

	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (want == 0)
		return E4_ERR_INVALID_ARGUMENT;
	if (want > geo->blocks_count)
		want = geo->blocks_count;
	wantc = (want + csize - 1) / csize;
	minc = (min + csize - 1) / csize;
	if (minc == 0)
		minc = 1;
	if (minc > wantc)
		minc = wantc;
	err = find_run(fs, goal, wantc, minc, &r);
	if (err)
		return err;
	blocks = r.len << geo->cluster_bits;
	if (blocks > geo->blocks_count - r.start)	/* a short last cluster */
		blocks = geo->blocks_count - r.start;
	err = e4_block_mark(fs, r.start, blocks, 1, NULL);
	if (err)
		return err;
	*first = r.start;
	*got = blocks;
	return 0;
}

errcode_t e4_alloc_free_blocks(e4_fs *fs, e4_blk_t blk, uint64_t count)
{
	unsigned cb = fs->geom.cluster_bits;
	uint64_t changed = 0, want;
	errcode_t err;

	err = e4_block_mark(fs, blk, count, 0, &changed);
	if (err || !count)
		return err;
	/* clusters never straddle groups: count them over the range */
	want = 0;
	for (e4_blk_t b = blk; b < blk + count;) {
		e4_group_t g = e4_group_of_block(fs, b);
		e4_blk_t first = e4_group_first_block(fs, g), last = e4_group_last_block(fs, g);
		e4_blk_t end = blk + count - 1 < last ? blk + count - 1 : last;

		want += ((end - first) >> cb) - ((b - first) >> cb) + 1;
		b = end + 1;
	}
	return changed < want ? E4_ERR_CORRUPT : 0;
}

/* ---- block goals ------------------------------------------------------ */
uint32_t e4_alloc_flex_size(e4_fs *fs)
{
	unsigned lg = fs->sb->s_log_groups_per_flex;

	if (!e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_FLEX_BG) || lg == 0 || lg > 31)
		return 1;
	return 1u << lg;
}

/* Past the last block of the bitmaps and inode tables of groups
 * [fg, fg + n) that lie in blocks [lo, hi]: the first block of the data
 * area there (lo when none lies there). */
static e4_blk_t after_metadata(e4_fs *fs, e4_group_t fg, uint32_t n, e4_blk_t lo, e4_blk_t hi)
{
	e4_blk_t end = lo;

	for (e4_group_t h = fg; h < fg + n && h < fs->geom.group_count; h++) {
		struct e4_group d;
		e4_blk_t item[3][2];

		if (e4_group_get(fs, h, &d))
			continue;
		item[0][0] = d.block_bitmap;
		item[0][1] = d.block_bitmap;
		item[1][0] = d.inode_bitmap;
		item[1][1] = d.inode_bitmap;
		item[2][0] = d.inode_table;
		item[2][1] = d.inode_table + fs->geom.inode_blocks_per_group - 1;
		for (int i = 0; i < 3; i++)
			if (item[i][0] >= lo && item[i][0] <= hi && item[i][1] + 1 > end)
				end = item[i][1] + 1;
	}
	return end;
}

e4_blk_t e4_alloc_goal_for_mode(e4_fs *fs, e4_ino_t ino, uint16_t mode)
{
	const struct e4_geom *geo = &fs->geom;
	uint32_t fsz = e4_alloc_flex_size(fs);
	e4_group_t g = 0, fg;
	e4_blk_t lo, hi, goal;

	if (ino >= 1 && ino <= geo->inodes_count)
		g = e4_group_of_ino(fs, ino);
	fg = g - g % fsz;
	lo = e4_group_first_block(fs, fg);
	hi = fg + fsz < geo->group_count ? e4_group_first_block(fs, fg + fsz) - 1
					 : geo->blocks_count - 1;
	goal = after_metadata(fs, fg, fsz, lo, hi);
	/* the kernel (ext4_inode_to_goal_block): with 4 or more groups per
	 * flex group, regular files start in its second group */
	if (fsz >= 4 && (mode & EXT4_S_IFMT) == EXT4_S_IFREG && fg + 1 < geo->group_count &&
	    goal < e4_group_first_block(fs, fg + 1))
		goal = e4_group_first_block(fs, fg + 1);
	if (goal >= geo->blocks_count)
		goal = lo;
	return goal;
}

e4_blk_t e4_alloc_goal_for_inode(e4_fs *fs, e4_ino_t ino)
{
	union e4_inode_buf ib;
	uint16_t mode = 0;

	if (ino >= 1 && ino <= fs->geom.inodes_count && !e4_inode_read(fs, ino, &ib))
		mode = e4_le16(ib.inode.i_mode);
	return e4_alloc_goal_for_mode(fs, ino, mode);
}

e4_blk_t e4_alloc_goal_for_file(e4_fs *fs, e4_ino_t ino, uint16_t mode, e4_blk_t last_pblk)
{
	if (last_pblk && last_pblk >= fs->geom.first_data_block &&
	    last_pblk + 1 < fs->geom.blocks_count)
		return last_pblk + 1;
	return e4_alloc_goal_for_mode(fs, ino, mode);
}

/* ---- the caller's maps ------------------------------------------------ */
/* 0 if bm has the shape of the filesystem's block (inode) maps. */
static errcode_t same_shape(e4_fs *fs, const struct e4_bmap *bm, int inode)
{
	struct e4_bmap *shape;
	errcode_t err;

	err = inode ? e4_bmap_new_inodes(fs, E4_BMAP_RUNS, &shape)
		    : e4_bmap_new_blocks(fs, E4_BMAP_RUNS, &shape);
	if (err)
		return err;
	if (e4_bmap_start(shape) != e4_bmap_start(bm) || e4_bmap_end(shape) != e4_bmap_end(bm))
		err = E4_ERR_INVALID_ARGUMENT;
	e4_bmap_free(shape);
	return err;
}

errcode_t e4_alloc_set_maps(e4_fs *fs, struct e4_bmap *blocks, struct e4_bmap *inodes)
{
	errcode_t err = 0;

	if (blocks)
		err = same_shape(fs, blocks, 0);
	if (!err && inodes)
		err = same_shape(fs, inodes, 1);
	if (err)
		return err;
	fs->alloc_maps[0] = blocks;
	fs->alloc_maps[1] = inodes;
	return 0;
}

errcode_t e4_alloc_hook_block_mark(e4_fs *fs, e4_blk_t blk, uint64_t count, int in_use,
				   uint64_t *changed)
{
	struct e4_bmap *bm = fs->alloc_maps[0];
	unsigned cb = fs->geom.cluster_bits;
	uint64_t c0 = blk >> cb, n = ((blk + count - 1) >> cb) - c0 + 1;
	uint64_t before = e4_bmap_count_range(bm, c0, n);
	errcode_t err;

	err = in_use ? e4_bmap_set_range(bm, c0, n) : e4_bmap_clear_range(bm, c0, n);
	if (!err && changed)
		*changed = in_use ? n - before : before;
	return err;
}
