/*
 * bitmap.c: reading block and inode bitmaps, with their checksums and
 * the synthesis of BLOCK_UNINIT / INODE_UNINIT groups (format doc 4.2, 5).
 */
#include "e4_private.h"

#include <stdlib.h>
#include <string.h>

static int uninit_flags_valid(e4_fs *fs)
{
	return fs->geom.metadata_csum || fs->geom.gdt_csum;
}

/* Mark blocks [blk, blk+n) of group g (clusters in bigalloc). */
static void mark_range(e4_fs *fs, e4_group_t g, uint8_t *map, e4_blk_t blk, uint64_t n)
{
	e4_blk_t first = e4_group_first_block(fs, g), last = e4_group_last_block(fs, g);
	e4_blk_t end = blk + n;
	unsigned cb = fs->geom.cluster_bits;

	if (blk < first)
		blk = first;
	if (end > last + 1)
		end = last + 1;
	if (blk >= end)
		return;
	/* every cluster the range touches */
	e4_bits_set(map, (blk - first) >> cb, ((end - 1 - first) >> cb) - ((blk - first) >> cb) + 1);
}

static void synth_block_bitmap(e4_fs *fs, e4_group_t g, uint8_t *buf)
{
	const struct e4_geom *geo = &fs->geom;
	struct e4_group d;
	e4_blk_t sb_blk;
	uint32_t gdt, res;
	uint64_t nclusters, bits = (uint64_t)geo->block_size * 8;

	memset(buf, 0, geo->block_size);
	e4_group_super_blocks(fs, g, &sb_blk, &gdt, &res);
	if (sb_blk || (g == 0 && e4_group_has_super(fs, 0))) {
		e4_blk_t start = e4_group_first_block(fs, g);
		/* Group 0 of a 1 KiB fs with first_data_block 0 (bigalloc)
		 * also owns block 0. */
		mark_range(fs, g, buf, start, (sb_blk - start) + 1 + gdt + res);
	} else if (gdt) {
		/* meta_bg descriptor block without a superblock copy */
		mark_range(fs, g, buf, e4_group_first_block(fs, g), gdt);
	}
	if (!e4_group_get(fs, g, &d)) {
		mark_range(fs, g, buf, d.block_bitmap, 1);
		mark_range(fs, g, buf, d.inode_bitmap, 1);
		mark_range(fs, g, buf, d.inode_table, geo->inode_blocks_per_group);
	}
	/* Padding: clusters past the end of the group / filesystem. */
	nclusters = ((e4_group_last_block(fs, g) - e4_group_first_block(fs, g)) >> geo->cluster_bits) + 1;
	if (nclusters < bits)
		e4_bits_set(buf, nclusters, bits - nclusters);
}

errcode_t e4_read_block_bitmap(e4_fs *fs, e4_group_t g, uint8_t *buf)
{
	struct e4_group d;
	errcode_t err;

	err = e4_group_get(fs, g, &d);
	if (err)
		return err;
	if (uninit_flags_valid(fs) && (d.flags & EXT4_BG_BLOCK_UNINIT)) {
		synth_block_bitmap(fs, g, buf);
		return 0;
	}
	if (d.block_bitmap < fs->geom.first_data_block || d.block_bitmap >= fs->geom.blocks_count)
		return E4_ERR_GD_BAD_LOCATION;
	err = e4_read_block(fs, d.block_bitmap, buf);
	if (err)
		return err;
	if (fs->geom.metadata_csum && !e4_ignore_csum(fs)) {
		uint32_t c = e4_bitmap_csum(fs, buf, fs->geom.clusters_per_group / 8);
		if (fs->geom.desc_size < EXT4_BG_BLOCK_BITMAP_CSUM_HI_END)
			c &= 0xFFFF;
		if (c != d.block_bitmap_csum)
			return E4_ERR_BLOCK_BITMAP_CSUM;
	}
	return 0;
}

errcode_t e4_read_inode_bitmap(e4_fs *fs, e4_group_t g, uint8_t *buf)
{
	struct e4_group d;
	errcode_t err;

	err = e4_group_get(fs, g, &d);
	if (err)
		return err;
	if (uninit_flags_valid(fs) && (d.flags & EXT4_BG_INODE_UNINIT)) {
		uint64_t bits = (uint64_t)fs->geom.block_size * 8;
		memset(buf, 0, fs->geom.block_size);
		if (fs->geom.inodes_per_group < bits)
			e4_bits_set(buf, fs->geom.inodes_per_group, bits - fs->geom.inodes_per_group);
		return 0;
	}
	if (d.inode_bitmap < fs->geom.first_data_block || d.inode_bitmap >= fs->geom.blocks_count)
		return E4_ERR_GD_BAD_LOCATION;
	err = e4_read_block(fs, d.inode_bitmap, buf);
	if (err)
		return err;
	if (fs->geom.metadata_csum && !e4_ignore_csum(fs)) {
		uint32_t c = e4_bitmap_csum(fs, buf, fs->geom.inodes_per_group / 8);
		if (fs->geom.desc_size < EXT4_BG_INODE_BITMAP_CSUM_HI_END)
			c &= 0xFFFF;
		if (c != d.inode_bitmap_csum)
			return E4_ERR_INODE_BITMAP_CSUM;
	}
	return 0;
}

errcode_t e4_bitmap_cached(e4_fs *fs, e4_group_t g, int inode, uint8_t **out)
{
	uint8_t **slot = inode ? &fs->inode_bitmaps[g] : &fs->block_bitmaps[g];
	uint8_t *buf;
	errcode_t err;

	if (*slot) {
		*out = *slot;
		return 0;
	}
	buf = malloc(fs->geom.block_size);
	if (!buf)
		return E4_ERR_NO_MEMORY;
	err = inode ? e4_read_inode_bitmap(fs, g, buf) : e4_read_block_bitmap(fs, g, buf);
	if (err) {
		free(buf);
		return err;
	}
	*slot = *out = buf;
	return 0;
}

errcode_t e4_test_block(e4_fs *fs, e4_blk_t blk, int *in_use)
{
	e4_group_t g;
	uint8_t *map;
	errcode_t err;

	if (blk < fs->geom.first_data_block || blk >= fs->geom.blocks_count)
		return E4_ERR_BAD_BLOCK_NUM;
	g = e4_group_of_block(fs, blk);
	err = e4_bitmap_cached(fs, g, 0, &map);
	if (err)
		return err;
	*in_use = e4_bit_test(map, (blk - e4_group_first_block(fs, g)) >> fs->geom.cluster_bits);
	return 0;
}

errcode_t e4_test_inode(e4_fs *fs, e4_ino_t ino, int *in_use)
{
	e4_group_t g;
	uint8_t *map;
	errcode_t err;

	if (ino < 1 || ino > fs->geom.inodes_count)
		return E4_ERR_BAD_INODE_NUM;
	g = e4_group_of_ino(fs, ino);
	err = e4_bitmap_cached(fs, g, 1, &map);
	if (err)
		return err;
	*in_use = e4_bit_test(map, (ino - 1) % fs->geom.inodes_per_group);
	return 0;
}
