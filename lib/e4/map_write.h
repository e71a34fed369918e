/*
 * map_write.h: changing a file's block map, whichever kind the inode has
 * (format doc section 7), included by e4.h.  Extent trees go through the
 * extent cursor (extent.h), indirect maps through blockmap_write.c; a
 * caller never needs to know which one the inode uses.
 *
 * The inode is the caller's image (*ib, changed in place: i_block,
 * i_flags, i_blocks); the caller writes it (e4_inode_write()) after a
 * successful change.  Tree and indirect blocks are written through the
 * block cache; block usage changes in the cached bitmaps (e4_alloc_flush()
 * writes them).  Logical and physical numbers are filesystem blocks, in
 * CPU order.  i_size is never touched here.
 */
#ifndef E4_MAP_WRITE_H
#define E4_MAP_WRITE_H

#include "e4.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Logical blocks an indirect map addresses: 12 + apb + apb^2 + apb^3
 * (apb = block_size / 4), at most 2^32 (the kernel's 32-bit logical block
 * numbers). */
uint64_t e4_blockmap_max_blocks(e4_fs *fs);
/* Indirect maps: map [lblk, lblk + count) to [pblk, pblk + count),
 * creating (zeroed) indirect blocks near the data; what the range mapped
 * before is unmapped, not freed.  i_blocks follows data and new indirect
 * blocks (e4_inode_blocks_set(): checked for the worst case before
 * anything changes).  The data blocks are the caller's (marked in use).
 * E4_ERR_READ_ONLY, E4_ERR_UNSUPPORTED (E4_MAP_UNWRITTEN: block maps have
 * no unwritten state, as the kernel refuses fallocate on them; bigalloc),
 * E4_ERR_FILE_TOO_BIG (past e4_blockmap_max_blocks(), or i_blocks would
 * not fit), E4_ERR_INVALID_ARGUMENT (other flags; blocks outside the
 * filesystem or past 2^32), E4_ERR_BAD_IND_BLOCK, E4_ERR_NO_SPACE, read
 * errors. */
errcode_t e4_blockmap_set(e4_fs *fs, struct ext4_inode *inode, uint64_t lblk, uint64_t count,
			  e4_blk_t pblk, unsigned flags);
/* Indirect maps: unmap [lblk, lblk + count) (count may run past the end)
 * and free the data blocks, and the indirect blocks left empty (their
 * slots zeroed; a block freed is still written with its entries zeroed,
 * as e2fsck leaves it).  i_blocks drops by the blocks freed, *freed (may
 * be NULL) gets them.  E4_ERR_READ_ONLY, E4_ERR_BAD_IND_BLOCK,
 * E4_ERR_BAD_BLOCK_NUM (a data block outside the fs), E4_ERR_CORRUPT (a
 * block to free was free already: the walk stops there), read errors. */
errcode_t e4_blockmap_punch(e4_fs *fs, struct ext4_inode *inode, uint64_t lblk, uint64_t count,
			    uint64_t *freed);

/* Logical blocks the inode's map can address: 2^32 for extent trees,
 * e4_blockmap_max_blocks() for indirect maps, 0 for inodes without a
 * map (inline data, fast symlinks, devices). */
uint64_t e4_map_max_blocks(e4_fs *fs, const struct ext4_inode *inode);
/* Map logical [lblk, lblk + count) to physical [pblk, pblk + count),
 * initialised, or unwritten with flags E4_MAP_UNWRITTEN (extent trees
 * only), on either kind of map (EXTENTS_FL decides; an extent inode whose
 * i_block is all zero gets an empty root first).  What the range mapped
 * before is unmapped, its blocks not freed (e4_map_punch() first to free
 * them).  The data blocks are the caller's, marked in use.  i_blocks
 * follows (bigalloc: only the tree blocks; the data clusters are the
 * caller's to count; a logical cluster is the caller's to map into one
 * physical cluster).  Errors of e4_extent_map_set() and
 * e4_blockmap_set(); E4_ERR_INVALID_ARGUMENT for an inode without a map,
 * or on bigalloc for pblk at another offset in its cluster than lblk in
 * its logical cluster; E4_ERR_FILE_TOO_BIG past e4_map_max_blocks(). */
errcode_t e4_map_set(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, uint64_t lblk,
		     uint64_t count, e4_blk_t pblk, unsigned flags);
/* Unmap [lblk, lblk + count) (count may run past the end: to the end)
 * and free the blocks it mapped, with the tree or indirect blocks left
 * empty; i_blocks drops by the blocks freed, *freed (may be NULL) gets
 * them.  Inodes without a map: nothing to do.  Errors of
 * e4_extent_punch() and e4_blockmap_punch(). */
errcode_t e4_map_punch(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, uint64_t lblk,
		       uint64_t count, uint64_t *freed);

#ifdef __cplusplus
}
#endif
#endif /* E4_MAP_WRITE_H */
