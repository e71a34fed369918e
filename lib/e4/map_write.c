/*
 * map_write.c: one interface for changing block maps (map_write.h; format
 * doc section 7): extent trees through the cursor (extent_map.c), indirect
 * maps through blockmap_write.c.  Truncation (e4_inode_truncate_blocks,
 * used by orphan processing) and the directory writer's one-block append
 * (e4_map_append_block) stand on it.
 */
#include <string.h>

#include "dir_int.h"
#include "extent_int.h"
#include "map_int.h"

errcode_t e4_map_free_blocks(e4_fs *fs, e4_blk_t blk, uint64_t count, uint64_t *freed)
{
	uint64_t changed = 0;
	errcode_t err;

	if (blk < fs->geom.first_data_block || blk >= fs->geom.blocks_count ||
	    count > fs->geom.blocks_count - blk)
		return E4_ERR_BAD_BLOCK_NUM;
	err = e4_block_mark(fs, blk, count, 0, &changed);
	if (err)
		return err;
	*freed += count;
	if (!fs->geom.cluster_bits && changed != count)
		return E4_ERR_CORRUPT;
	return 0;
}

errcode_t e4_map_iblocks_add(e4_fs *fs, struct ext4_inode *inode, int64_t delta)
{
	uint64_t cur = e4_inode_blocks(fs, inode), d = (uint64_t)(delta < 0 ? -delta : delta) *
		(fs->geom.block_size / 512);

	if (delta < 0)
		return e4_inode_blocks_set(fs, inode, cur > d ? cur - d : 0);
	return e4_inode_blocks_set(fs, inode, cur + d);
}

static int is_extents(const struct ext4_inode *inode)
{
	return (e4_le32(inode->i_flags) & EXT4_EXTENTS_FL) != 0;
}

uint64_t e4_map_max_blocks(e4_fs *fs, const struct ext4_inode *inode)
{
	if (!e4_inode_has_map(fs, inode))
		return 0;
	return is_extents(inode) ? EXT_LBLK_LIMIT : e4_blockmap_max_blocks(fs);
}

void e4_map_root_fix(struct ext4_inode *inode)
{
	static const uint32_t zero[EXT4_N_BLOCKS];

	if (is_extents(inode) && !memcmp(inode->i_block, zero, sizeof(zero)))
		e4_extent_root_init(inode);
}

errcode_t e4_map_set(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, uint64_t lblk,
		     uint64_t count, e4_blk_t pblk, unsigned flags)
{
	struct ext4_inode *inode = &ib->inode;
	e4_extent_handle *h;
	errcode_t err;

	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (!e4_inode_has_map(fs, inode))
		return E4_ERR_INVALID_ARGUMENT;
	if (!count)
		return 0;
	if (lblk >= e4_map_max_blocks(fs, inode) || count > e4_map_max_blocks(fs, inode) - lblk)
		return E4_ERR_FILE_TOO_BIG;
	/* bigalloc: a logical cluster maps into one physical cluster, each
	 * block at its own offset there (the kernel finds a block's cluster
	 * from its logical cluster's other blocks) */
	if (fs->geom.cluster_bits && ((lblk ^ pblk) & ((1ULL << fs->geom.cluster_bits) - 1)))
		return E4_ERR_INVALID_ARGUMENT;
	if (!is_extents(inode))
		return e4_blockmap_set(fs, inode, lblk, count, pblk, flags);
	e4_map_root_fix(inode);
	err = e4_extent_open(fs, ino, inode, 0, &h);
	if (err)
		return err;
	err = e4_extent_map_set_any(h, lblk, count, pblk, flags);
	e4_extent_close(h);
	return err;
}

/* Punch with the cursor opened with ext_flags (E4_EXTENT_NOCSUM). */
static errcode_t punch(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, uint64_t lblk,
		       uint64_t count, unsigned ext_flags, uint64_t *freed)
{
	struct ext4_inode *inode = &ib->inode;
	e4_extent_handle *h;
	errcode_t err;

	if (freed)
		*freed = 0;
	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (!e4_inode_has_map(fs, inode))
		return 0;
	if (!is_extents(inode))
		return e4_blockmap_punch(fs, inode, lblk, count, freed);
	err = e4_extent_open(fs, ino, inode, ext_flags, &h);
	if (err)
		return err;
	err = e4_extent_punch(h, lblk, count, freed);
	e4_extent_close(h);
	return err;
}

errcode_t e4_map_punch(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, uint64_t lblk,
		       uint64_t count, uint64_t *freed)
{
	return punch(fs, ino, ib, lblk, count, 0, freed);
}

/* As e2fsck releases orphans, tree blocks are not held to their checksum
 * (the ones rewritten get a correct one). */
errcode_t e4_inode_truncate_blocks(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib,
				   uint64_t first_lblk, uint64_t *freed)
{
	return punch(fs, ino, ib, first_lblk, UINT64_MAX, E4_EXTENT_NOCSUM, freed);
}

errcode_t e4_map_append_block(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, uint64_t lblk,
			      e4_blk_t pblk, int new_cluster)
{
	errcode_t err = e4_map_set(fs, ino, ib, lblk, 1, pblk, 0);

	/* bigalloc: the data cluster is counted once, by its first block */
	if (!err && fs->geom.cluster_bits && new_cluster)
		err = e4_dirw_blocks_add(fs, &ib->inode, e4_dirw_cluster(fs));
	return err;
}
