/*
 * alloc.c: changing block and inode usage on an open filesystem (format
 * doc sections 4 and 5).  Every change lands in the cached bitmaps
 * (bitmap.c), the in-memory descriptor table and the in-memory superblock;
 * e4_alloc_flush() writes what changed: bitmaps first, then the
 * descriptors, the superblock last, so an interruption leaves at worst
 * counts that fsck recomputes.  Where new blocks and inodes go (and the
 * caller's maps, which the marks below defer to): alloc_policy.c,
 * alloc_inode.c.
 */
#include "alloc_int.h"

#include <stdlib.h>
#include <string.h>

#define DIRTY_BB	0x1
#define DIRTY_IB	0x2
#define DIRTY_GD	0x4

static errcode_t writable(e4_fs *fs)
{
	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (!fs->alloc_dirty) {
		fs->alloc_dirty = calloc(fs->geom.group_count ? fs->geom.group_count : 1, 1);
		if (!fs->alloc_dirty)
			return E4_ERR_NO_MEMORY;
	}
	return 0;
}

static uint32_t group_inodes(e4_fs *fs)
{
	return fs->geom.inodes_per_group;
}

/* ---- superblock counts (section 2: s_free_blocks_count counts blocks,
 * the descriptors count clusters) -------------------------------------- */
static void sb_free_blocks_set(e4_fs *fs, uint64_t blocks)
{
	e4_sb_set_free_blocks_count(fs->sb, blocks);
	fs->sb_counts_dirty = 1;
}

static void sb_free_inodes_set(e4_fs *fs, uint32_t inodes)
{
	e4_sb_set_free_inodes_count(fs->sb, inodes);
	fs->sb_counts_dirty = 1;
}

static void sb_free_blocks_add(e4_fs *fs, int64_t clusters)
{
	uint64_t cur = e4_sb_free_blocks_count(fs->sb);
	int64_t delta = clusters * ((int64_t)1 << fs->geom.cluster_bits);

	if (delta < 0 && (uint64_t)-delta > cur)
		cur = 0;
	else
		cur += (uint64_t)delta;
	sb_free_blocks_set(fs, cur);
}

static void sb_free_inodes_add(e4_fs *fs, int64_t n)
{
	int64_t cur = e4_le32(fs->sb->s_free_inodes_count) + n;

	if (cur < 0)
		cur = 0;
	sb_free_inodes_set(fs, (uint32_t)cur);
}

/* ---- blocks ----------------------------------------------------------- */
/* Group g's cached on-disk bitmap (inode: the inode bitmap) for a mark;
 * with the caller's maps set (lax) one failing its checksum is taken as
 * it reads (the mark and the flush give it a new one; pass 5 rewrites it
 * from the maps anyway) and *map is NULL when the descriptor places it
 * outside the filesystem (nothing to mark). */
static errcode_t disk_map(e4_fs *fs, e4_group_t g, int inode, uint8_t **map)
{
	errcode_t err = e4_bitmap_cached(fs, g, inode, map);

	if (!fs->alloc_maps[inode])
		return err;
	if (err == (inode ? E4_ERR_INODE_BITMAP_CSUM : E4_ERR_BLOCK_BITMAP_CSUM)) {
		err = e4_bitmap_cached_relaxed(fs, g, inode, map);
		/* written at the next flush with its checksum, whether or
		 * not the mark changes a bit (the copy hides the mismatch) */
		if (!err)
			fs->alloc_dirty[g] |= (inode ? DIRTY_IB : DIRTY_BB) | DIRTY_GD;
	}
	if (err == E4_ERR_GD_BAD_LOCATION) {
		*map = NULL;
		err = 0;
	}
	return err;
}

/* Apply the change to clusters [c0, c1) of group g. */
static errcode_t mark_clusters(e4_fs *fs, e4_group_t g, uint64_t c0, uint64_t c1, int in_use,
			       uint64_t *changed)
{
	struct e4_group d;
	uint8_t *map;
	uint64_t n = 0;
	errcode_t err;

	err = e4_group_get(fs, g, &d);
	if (err)
		return err;
	err = disk_map(fs, g, 0, &map);
	if (err || !map)
		return err;
	for (uint64_t c = c0; c < c1; c++) {
		if (e4_bit_test(map, c) != !!in_use) {
			e4_bit_put(map, c, in_use);
			n++;
		}
	}
	if (e4_alloc_uninit_valid(fs) && (d.flags & EXT4_BG_BLOCK_UNINIT)) {
		/* the cached bitmap was synthesised: from now on it is real */
		d.flags &= (uint16_t)~EXT4_BG_BLOCK_UNINIT;
		fs->alloc_dirty[g] |= DIRTY_BB | DIRTY_GD;
	}
	if (n) {
		if (in_use)
			d.free_blocks = d.free_blocks >= n ? d.free_blocks - (uint32_t)n : 0;
		else
			d.free_blocks += (uint32_t)n;
		sb_free_blocks_add(fs, in_use ? -(int64_t)n : (int64_t)n);
		fs->alloc_dirty[g] |= DIRTY_BB | DIRTY_GD;
	}
	if (fs->alloc_dirty[g] & DIRTY_GD) {
		err = e4_group_set(fs, g, &d);
		if (err)
			return err;
	}
	*changed += n;
	return 0;
}

errcode_t e4_block_mark(e4_fs *fs, e4_blk_t blk, uint64_t count, int in_use,
			uint64_t *changed)
{
	const struct e4_geom *geo = &fs->geom;
	uint64_t done = 0;
	errcode_t err;

	if (changed)
		*changed = 0;
	err = writable(fs);
	if (err)
		return err;
	if (count == 0)
		return 0;
	if (blk < geo->first_data_block || blk >= geo->blocks_count ||
	    count > geo->blocks_count - blk)
		return E4_ERR_BAD_BLOCK_NUM;
	if (!in_use)	/* after a failed write-back: see e4_io_forget() */
		e4_io_forget(fs->io, blk, count);
	if (fs->alloc_maps[0]) {
		/* the caller's map; a mark in use reaches the on-disk bitmap
		 * too (below), so a stop before pass 5 never leaves a block
		 * in use marked free; a free waits for pass 5 (a leak) */
		err = e4_alloc_hook_block_mark(fs, blk, count, in_use, changed);
		if (err || !in_use)
			return err;
		changed = NULL;
	}
	while (count) {
		e4_group_t g = e4_group_of_block(fs, blk);
		e4_blk_t first = e4_group_first_block(fs, g), last = e4_group_last_block(fs, g);
		uint64_t n = last - blk + 1;

		if (n > count)
			n = count;
		err = mark_clusters(fs, g, (blk - first) >> geo->cluster_bits,
				    ((blk + n - 1 - first) >> geo->cluster_bits) + 1, in_use, &done);
		if (err)
			break;
		blk += n;
		count -= n;
	}
	if (changed)
		*changed = done;
	return err;
}

errcode_t e4_alloc_block_group_init(e4_fs *fs, e4_group_t g)
{
	uint64_t n = 0;
	errcode_t err = writable(fs);

	/* an empty range: only the BLOCK_UNINIT flag goes */
	return err ? err : mark_clusters(fs, g, 0, 0, 1, &n);
}

/* ---- inodes ----------------------------------------------------------- */
/* Inode idx of group g (descriptor d, bitmap map) marked: the used
 * table, INODE_UNINIT and bg_itable_unused as the kernel keeps them, the
 * counts.  force_zero: zero up to idx even when the bitmap has it in use
 * already (the caller's map decides what is free there). */
static errcode_t disk_inode_mark(e4_fs *fs, e4_group_t g, struct e4_group *d, uint8_t *map,
				 uint32_t idx, int in_use, int is_dir, int force_zero, int *changed)
{
	errcode_t err;

	if (in_use && e4_alloc_uninit_valid(fs)) {
		/* the table up to ino becomes the used part: no garbage there */
		if ((force_zero || !e4_bit_test(map, idx)) && idx > e4_alloc_itable_dirty_from(fs, d)) {
			err = e4_alloc_itable_zero(fs, g, e4_alloc_itable_dirty_from(fs, d), idx);
			if (err)
				return err;
		}
		if (d->flags & EXT4_BG_INODE_UNINIT) {
			d->flags &= (uint16_t)~EXT4_BG_INODE_UNINIT;
			fs->alloc_dirty[g] |= DIRTY_IB | DIRTY_GD;
		}
		if (d->itable_unused > group_inodes(fs) - (idx + 1)) {
			d->itable_unused = group_inodes(fs) - (idx + 1);
			fs->alloc_dirty[g] |= DIRTY_GD;
		}
	}
	if (e4_bit_test(map, idx) != !!in_use) {
		e4_bit_put(map, idx, in_use);
		if (in_use) {
			d->free_inodes = d->free_inodes ? d->free_inodes - 1 : 0;
			if (is_dir)
				d->used_dirs++;
		} else {
			d->free_inodes++;
			if (is_dir && d->used_dirs)
				d->used_dirs--;
		}
		sb_free_inodes_add(fs, in_use ? -1 : 1);
		fs->alloc_dirty[g] |= DIRTY_IB | DIRTY_GD;
		if (changed)
			*changed = 1;
	}
	if (fs->alloc_dirty[g] & DIRTY_GD)
		return e4_group_set(fs, g, d);
	return 0;
}

errcode_t e4_inode_mark(e4_fs *fs, e4_ino_t ino, int in_use, int is_dir, int *changed)
{
	int hook = fs->alloc_maps[1] != NULL;
	struct e4_group d;
	e4_group_t g;
	uint32_t idx;
	uint8_t *map;
	errcode_t err;

	if (changed)
		*changed = 0;
	err = writable(fs);
	if (err)
		return err;
	if (ino < 1 || ino > fs->geom.inodes_count)
		return E4_ERR_BAD_INODE_NUM;
	if (hook && !in_use)	/* the caller's map: a free waits for it */
		return e4_alloc_hook_inode_mark(fs, ino, in_use, changed);
	g = e4_group_of_ino(fs, ino);
	idx = (ino - 1) % group_inodes(fs);
	err = e4_group_get(fs, g, &d);
	if (!err)
		err = disk_map(fs, g, 1, &map);
	if (err || !hook)
		return err ? err : disk_inode_mark(fs, g, &d, map, idx, in_use, is_dir, 0, changed);
	/* the caller's map set: in use on disk too (a stop before the map
	 * is stored never leaves the inode marked free), then in the map
	 * (which has nothing more to zero: the used part covers ino now) */
	if (map)
		err = disk_inode_mark(fs, g, &d, map, idx, 1, is_dir, 1, NULL);
	return err ? err : e4_alloc_hook_inode_mark(fs, ino, in_use, changed);
}

/* ---- counts ----------------------------------------------------------- */
static uint64_t count_zero_bits(const uint8_t *map, uint64_t nbits)
{
	uint64_t used = 0, i = 0;

	for (; i + 8 <= nbits; i += 8)
		used += (uint64_t)__builtin_popcount(map[i >> 3]);
	for (; i < nbits; i++)
		used += (uint64_t)e4_bit_test(map, i);
	return nbits - used;
}

/* Are the clusters of blocks [blk, blk + n) (clipped to group g) all
 * marked in use in g's block bitmap map? */
static int range_in_use(e4_fs *fs, e4_group_t g, const uint8_t *map, e4_blk_t blk, uint64_t n)
{
	e4_blk_t first = e4_group_first_block(fs, g), last = e4_group_last_block(fs, g);
	e4_blk_t end = blk + n;

	if (blk < first)
		blk = first;
	if (end > last + 1)
		end = last + 1;
	for (; blk < end; blk++)
		if (!e4_bit_test(map, (blk - first) >> fs->geom.cluster_bits))
			return 0;
	return 1;
}

/* A block bitmap is believed only if it marks in use the group's own
 * bitmaps and inode table where they lie in the group (the kernel's test,
 * ext4_valid_block_bitmap) and its superblock and descriptor copies. */
static errcode_t block_bitmap_check(e4_fs *fs, e4_group_t g, const uint8_t *map)
{
	struct e4_group d;
	e4_blk_t sb_blk;
	uint32_t gdt, res;

	e4_group_get(fs, g, &d);
	if (!range_in_use(fs, g, map, d.block_bitmap, 1) ||
	    !range_in_use(fs, g, map, d.inode_bitmap, 1) ||
	    !range_in_use(fs, g, map, d.inode_table, fs->geom.inode_blocks_per_group))
		return E4_ERR_BLOCK_BITMAP_BAD;
	e4_group_super_blocks(fs, g, &sb_blk, &gdt, &res);
	if (e4_group_has_super(fs, g) &&
	    !range_in_use(fs, g, map, sb_blk, 1 + (uint64_t)gdt + res))
		return E4_ERR_BLOCK_BITMAP_BAD;
	if (!e4_group_has_super(fs, g) && gdt &&
	    !range_in_use(fs, g, map, e4_group_first_block(fs, g), gdt))
		return E4_ERR_BLOCK_BITMAP_BAD;
	return 0;
}

/* An inode bitmap is believed only if it marks the reserved inodes
 * (1 .. s_first_ino - 1) of group g in use. */
static errcode_t inode_bitmap_check(e4_fs *fs, e4_group_t g, const uint8_t *map)
{
	uint64_t base = (uint64_t)g * fs->geom.inodes_per_group;

	for (uint64_t i = 0; i < fs->geom.inodes_per_group && base + i + 1 < fs->geom.first_ino; i++)
		if (!e4_bit_test(map, i))
			return E4_ERR_INODE_BITMAP_BAD;
	return 0;
}

/* Free inodes at the end of inode bitmap map (after the last one in use). */
static uint32_t tail_free_inodes(e4_fs *fs, const uint8_t *map)
{
	uint32_t n = group_inodes(fs), k = 0;

	while (k < n && !e4_bit_test(map, n - 1 - k))
		k++;
	return k;
}

/* e4_group_count_free(); check: refuse implausible bitmaps; tail (may be
 * NULL): the free inodes after the last one in use. */
static errcode_t count_free(e4_fs *fs, e4_group_t g, int check, uint32_t *free_clusters,
			    uint32_t *free_inodes, uint32_t *tail)
{
	uint8_t *buf = NULL;
	uint64_t nfree[2];
	errcode_t err = 0;

	if (g >= fs->geom.group_count || !fs->block_bitmaps)
		return E4_ERR_BAD_GROUP_NUM;
	if (!fs->block_bitmaps[g] || !fs->inode_bitmaps[g]) {
		buf = malloc(fs->geom.block_size);
		if (!buf)
			return E4_ERR_NO_MEMORY;
	}
	/* k 0: the block bitmap (clusters), 1: the inode bitmap */
	for (int k = 0; k < 2 && !err; k++) {
		const uint8_t *map = k ? fs->inode_bitmaps[g] : fs->block_bitmaps[g];

		if (!map) {
			err = k ? e4_read_inode_bitmap(fs, g, buf) : e4_read_block_bitmap(fs, g, buf);
			map = buf;
		}
		if (!err && check)
			err = k ? inode_bitmap_check(fs, g, map) : block_bitmap_check(fs, g, map);
		if (!err)
			nfree[k] = count_zero_bits(map, k ? group_inodes(fs) : e4_alloc_group_clusters(fs, g));
		if (!err && k && tail)
			*tail = tail_free_inodes(fs, map);
	}
	if (!err) {
		*free_clusters = (uint32_t)nfree[0];
		*free_inodes = (uint32_t)nfree[1];
	}
	free(buf);
	return err;
}

errcode_t e4_group_count_free(e4_fs *fs, e4_group_t g, uint32_t *free_clusters,
			      uint32_t *free_inodes)
{
	return count_free(fs, g, 1, free_clusters, free_inodes, NULL);
}

errcode_t e4_counts_recompute(e4_fs *fs, int *changed)
{
	const struct e4_geom *geo = &fs->geom;
	uint64_t free_clusters = 0, free_inodes = 0;
	struct e4_group *cand;
	errcode_t err;

	if (changed)
		*changed = 0;
	err = writable(fs);
	if (err)
		return err;
	cand = calloc(geo->group_count, sizeof(*cand));
	if (!cand)
		return E4_ERR_NO_MEMORY;
	/* every group's new counts first: nothing changes unless all fit */
	for (e4_group_t g = 0; g < geo->group_count && !err; g++) {
		struct e4_group *d = &cand[g];
		struct e4_gd_fault f[E4_GD_COUNT_FAULTS_MAX];
		uint32_t fb, fi, tail = 0;

		err = e4_group_get(fs, g, d);
		if (!err)
			err = count_free(fs, g, 0, &fb, &fi, &tail);
		if (err)
			break;
		free_clusters += fb;
		free_inodes += fi;
		d->free_blocks = fb;
		d->free_inodes = fi;
		/* an inode the bitmap has in use lies before the never-used
		 * tail (the rule of e4_inode_mark()) */
		if (e4_alloc_uninit_valid(fs) && d->itable_unused > tail)
			d->itable_unused = tail;
		if (e4_group_count_faults(fs, g, d, f))
			err = f[0].err;
	}
	for (e4_group_t g = 0; g < geo->group_count && !err; g++) {
		struct e4_group d;

		err = e4_group_get(fs, g, &d);
		if (err || (d.free_blocks == cand[g].free_blocks &&
			    d.free_inodes == cand[g].free_inodes &&
			    d.itable_unused == cand[g].itable_unused))
			continue;
		err = e4_group_set(fs, g, &cand[g]);
		if (err)
			break;
		fs->alloc_dirty[g] |= DIRTY_GD;
		if (changed)
			*changed = 1;
	}
	free(cand);
	if (err)
		return err;
	if (e4_sb_free_blocks_count(fs->sb) != free_clusters << geo->cluster_bits) {
		sb_free_blocks_set(fs, free_clusters << geo->cluster_bits);
		if (changed)
			*changed = 1;
	}
	if (e4_le32(fs->sb->s_free_inodes_count) != free_inodes) {
		sb_free_inodes_set(fs, (uint32_t)free_inodes);
		if (changed)
			*changed = 1;
	}
	return 0;
}

/* Bitmaps, then descriptors (through gdt_write), then the superblock;
 * gdt_changed: the caller changed descriptors itself.  sync: e4_flush()
 * after (everything on the device, fsync'd); else an ordering point
 * after them (nothing waited for). */
static errcode_t flush_common(e4_fs *fs, int gdt_changed, int primary, int sync)
{
	uint8_t *which = NULL;	/* primary: the descriptor blocks changed */
	int any = 0;
	errcode_t err;

	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (primary && !gdt_changed) {
		which = calloc(fs->geom.desc_blocks ? fs->geom.desc_blocks : 1, 1);
		if (!which)
			return E4_ERR_NO_MEMORY;
	}
	for (e4_group_t g = 0; fs->alloc_dirty && g < fs->geom.group_count; g++) {
		uint8_t dirty = fs->alloc_dirty[g];

		if ((dirty & DIRTY_BB) && fs->block_bitmaps[g]) {
			err = e4_block_bitmap_write(fs, g, fs->block_bitmaps[g]);
			if (err)
				goto out;
			dirty |= DIRTY_GD;	/* bitmap checksum in the descriptor */
		}
		if ((dirty & DIRTY_IB) && fs->inode_bitmaps[g]) {
			err = e4_inode_bitmap_write(fs, g, fs->inode_bitmaps[g]);
			if (err)
				goto out;
			dirty |= DIRTY_GD;
		}
		if (dirty & DIRTY_GD) {
			any = 1;
			if (which)
				which[g / fs->geom.desc_per_block] = 1;
		}
		fs->alloc_dirty[g] = 0;
	}
	if (gdt_changed || any) {
		err = !primary ? e4_gdt_write(fs) : e4_gdt_write_primary_blocks(fs, which);
		if (err)
			goto out;
		gdt_changed = 1;
	}
	/* Inside an operations window the superblock on the device says
	 * not clean, so its free counts may lag (DESIGN.md "What a stop may
	 * leave": wrong counts on a filesystem marked not clean); e4_ops_end()
	 * writes them with the clean state.  Only other changes (features,
	 * flags, the state) are written at each ordering point. */
	/* a held superblock (e4_super_hold(): e4mkfs -d) is not written, so
	 * what made it dirty stays for the write after the hold */
	if (fs->sb_hold) {
		err = sync ? e4_flush(fs) : e4_io_barrier(fs->io);
		goto out;
	}
	if (fs->sb_dirty || ((gdt_changed || fs->sb_counts_dirty) && !fs->ops_depth)) {
		/* the superblock last of all (DESIGN.md "Writing safely"):
		 * every block dirtied before this flush reaches the device
		 * before it, not in block order beside it */
		err = e4_io_barrier(fs->io);
		if (!err)
			err = e4_super_write(fs);
		if (err)
			goto out;
		fs->sb_counts_dirty = 0;
	}
	fs->sb_dirty = 0;
	err = sync ? e4_flush(fs) : e4_io_barrier(fs->io);
out:
	free(which);
	return err;
}

errcode_t e4_alloc_flush(e4_fs *fs)
{
	return flush_common(fs, 0, 0, 1);
}

errcode_t e4_flush_primary(e4_fs *fs, int gdt_changed)
{
	return flush_common(fs, gdt_changed, 1, 1);
}

errcode_t e4_order_point_primary(e4_fs *fs, int gdt_changed)
{
	return flush_common(fs, gdt_changed, 1, 0);
}

void e4_sb_free_blocks_set(e4_fs *fs, uint64_t blocks)
{
	sb_free_blocks_set(fs, blocks);
}

errcode_t e4_alloc_flush_gdt(e4_fs *fs, int gdt_changed)
{
	return flush_common(fs, gdt_changed, 0, 1);
}
