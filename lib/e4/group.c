/*
 * group.c: group descriptors, backup placement and geometry helpers
 * (format doc sections 1.2-1.4 and 4).
 */
#include "e4_private.h"

#include <string.h>

static const struct ext4_group_desc *desc_ptr(e4_fs *fs, e4_group_t g)
{
	return (const struct ext4_group_desc *)(fs->gdt + (size_t)g * fs->geom.desc_size);
}

const void *e4_group_desc_raw(e4_fs *fs, e4_group_t g)
{
	if (g >= fs->geom.group_count || !fs->gdt)
		return NULL;
	return desc_ptr(fs, g);
}

errcode_t e4_group_get(e4_fs *fs, e4_group_t g, struct e4_group *out)
{
	const struct ext4_group_desc *d;
	int wide;

	memset(out, 0, sizeof(*out));
	if (g >= fs->geom.group_count || !fs->gdt)
		return E4_ERR_BAD_GROUP_NUM;
	d = desc_ptr(fs, g);
	wide = fs->geom.desc_size >= EXT4_MIN_DESC_SIZE_64BIT;
	out->block_bitmap = e4_le32(d->bg_block_bitmap_lo);
	out->inode_bitmap = e4_le32(d->bg_inode_bitmap_lo);
	out->inode_table = e4_le32(d->bg_inode_table_lo);
	out->free_blocks = e4_le16(d->bg_free_blocks_count_lo);
	out->free_inodes = e4_le16(d->bg_free_inodes_count_lo);
	out->used_dirs = e4_le16(d->bg_used_dirs_count_lo);
	out->itable_unused = e4_le16(d->bg_itable_unused_lo);
	out->exclude_bitmap = e4_le32(d->bg_exclude_bitmap_lo);
	out->block_bitmap_csum = e4_le16(d->bg_block_bitmap_csum_lo);
	out->inode_bitmap_csum = e4_le16(d->bg_inode_bitmap_csum_lo);
	out->flags = e4_le16(d->bg_flags);
	out->checksum = e4_le16(d->bg_checksum);
	if (wide) {
		out->block_bitmap |= (uint64_t)e4_le32(d->bg_block_bitmap_hi) << 32;
		out->inode_bitmap |= (uint64_t)e4_le32(d->bg_inode_bitmap_hi) << 32;
		out->inode_table |= (uint64_t)e4_le32(d->bg_inode_table_hi) << 32;
		out->free_blocks |= (uint32_t)e4_le16(d->bg_free_blocks_count_hi) << 16;
		out->free_inodes |= (uint32_t)e4_le16(d->bg_free_inodes_count_hi) << 16;
		out->used_dirs |= (uint32_t)e4_le16(d->bg_used_dirs_count_hi) << 16;
		out->itable_unused |= (uint32_t)e4_le16(d->bg_itable_unused_hi) << 16;
		out->exclude_bitmap |= (uint64_t)e4_le32(d->bg_exclude_bitmap_hi) << 32;
		out->block_bitmap_csum |= (uint32_t)e4_le16(d->bg_block_bitmap_csum_hi) << 16;
		out->inode_bitmap_csum |= (uint32_t)e4_le16(d->bg_inode_bitmap_csum_hi) << 16;
	}
	return 0;
}

int e4_group_csum_ok(e4_fs *fs, e4_group_t g)
{
	const struct ext4_group_desc *d;

	if (!fs->geom.metadata_csum && !fs->geom.gdt_csum)
		return 1;
	if (g >= fs->geom.group_count || !fs->gdt)
		return 0;
	d = desc_ptr(fs, g);
	return e4_le16(d->bg_checksum) == e4_group_desc_csum(fs, g, d);
}

e4_blk_t e4_group_first_block(e4_fs *fs, e4_group_t g)
{
	return fs->geom.first_data_block + (e4_blk_t)g * fs->geom.blocks_per_group;
}

e4_blk_t e4_group_last_block(e4_fs *fs, e4_group_t g)
{
	e4_blk_t last = e4_group_first_block(fs, g) + fs->geom.blocks_per_group - 1;

	return last >= fs->geom.blocks_count ? fs->geom.blocks_count - 1 : last;
}

e4_group_t e4_group_of_block(e4_fs *fs, e4_blk_t blk)
{
	if (blk < fs->geom.first_data_block)
		return 0;
	return (e4_group_t)((blk - fs->geom.first_data_block) / fs->geom.blocks_per_group);
}

e4_group_t e4_group_of_ino(e4_fs *fs, e4_ino_t ino)
{
	return ino ? (ino - 1) / fs->geom.inodes_per_group : 0;
}

static int is_power_of(uint32_t n, uint32_t base)
{
	while (n % base == 0)
		n /= base;
	return n == 1;
}

int e4_group_is_sparse_backup(uint32_t g)
{
	return g <= 1 || is_power_of(g, 3) || is_power_of(g, 5) || is_power_of(g, 7);
}

int e4_group_has_super(e4_fs *fs, e4_group_t g)
{
	if (g == 0)
		return 1;
	if (e4_has_compat(fs, EXT4_FEATURE_COMPAT_SPARSE_SUPER2))
		return g == e4_le32(fs->sb->s_backup_bgs[0]) ||
		       g == e4_le32(fs->sb->s_backup_bgs[1]);
	if (!e4_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER))
		return 1;
	return e4_group_is_sparse_backup(g);
}

/* Block holding the superblock copy of group g (1 KiB bigalloc: block 1). */
static e4_blk_t super_block_of(e4_fs *fs, e4_group_t g)
{
	e4_blk_t b = e4_group_first_block(fs, g);

	if (g == 0 && b == 0 && fs->geom.block_size == 1024)
		b = 1;
	return b;
}

e4_blk_t e4_group_desc_block(e4_fs *fs, e4_group_t sb_group, uint32_t i)
{
	uint32_t first_meta_bg = e4_le32(fs->sb->s_first_meta_bg);
	e4_group_t bg;

	if (!e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_META_BG) || i < first_meta_bg)
		return super_block_of(fs, sb_group) + 1 + i;
	/* meta_bg: the descriptor block of meta group i sits in its first
	 * group (a backup in the second and last ones), after any
	 * superblock copy. */
	bg = (e4_group_t)((uint64_t)i * fs->geom.desc_per_block);
	if (sb_group != 0 && bg + 1 < fs->geom.group_count)
		bg++;
	return super_block_of(fs, bg) + (e4_group_has_super(fs, bg) ? 1 : 0);
}

void e4_group_super_blocks(e4_fs *fs, e4_group_t g, e4_blk_t *sb_blk,
			   uint32_t *gdt_blocks, uint32_t *reserved_gdt)
{
	uint32_t dpb = fs->geom.desc_per_block;
	int has_super = e4_group_has_super(fs, g);

	*sb_blk = has_super ? super_block_of(fs, g) : 0;
	*gdt_blocks = 0;
	*reserved_gdt = 0;
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_META_BG)) {
		uint32_t first_meta_bg = e4_le32(fs->sb->s_first_meta_bg);
		uint32_t mg = g / dpb, idx = g % dpb;

		if (mg < first_meta_bg) {
			if (has_super) {
				*gdt_blocks = first_meta_bg;
				*reserved_gdt = e4_le16(fs->sb->s_reserved_gdt_blocks);
			}
		} else if (idx == 0 || idx == 1 || idx == dpb - 1) {
			*gdt_blocks = 1;
		}
	} else if (has_super) {
		*gdt_blocks = fs->geom.desc_blocks;
		*reserved_gdt = e4_le16(fs->sb->s_reserved_gdt_blocks);
	}
}
