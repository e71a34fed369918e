/*
 * map_int.h: block-map internals shared by blockmap_write.c, map_write.c,
 * file_write*.c and orphan.c.  Not installed.
 */
#ifndef E4_MAP_INT_H
#define E4_MAP_INT_H

#include "e4_private.h"

/* Free count blocks from blk that a file's map named (in the cached
 * bitmaps) and add count to *freed.  E4_ERR_BAD_BLOCK_NUM (outside the
 * filesystem), E4_ERR_CORRUPT when one was free already (without
 * bigalloc, where one cluster may hold several of the file's runs): the
 * map is not to be trusted or blocks are shared; the caller stops, as
 * e2fsck does.  Bitmap errors (map_write.c). */
errcode_t e4_map_free_blocks(e4_fs *fs, e4_blk_t blk, uint64_t count, uint64_t *freed);

/* i_blocks += delta filesystem blocks (negative: fewer, never below 0),
 * by e4_inode_blocks_set()'s rules.  E4_ERR_FILE_TOO_BIG (map_write.c). */
errcode_t e4_map_iblocks_add(e4_fs *fs, struct ext4_inode *inode, int64_t delta);
/* Indirect maps: create the indirect blocks missing on the way to
 * logical block lblk's slot (zeroed, written through the cache, counted
 * in i_blocks), from *goal on; *goal then follows the last one created,
 * so the data allocated next comes after its indirect blocks, as the
 * kernel lays block-mapped files out.  Nothing for lblk < 12.
 * E4_ERR_READ_ONLY, E4_ERR_UNSUPPORTED (bigalloc), E4_ERR_FILE_TOO_BIG,
 * E4_ERR_BAD_IND_BLOCK, E4_ERR_NO_SPACE, read errors (blockmap_write.c). */
errcode_t e4_blockmap_reserve(e4_fs *fs, struct ext4_inode *inode, uint64_t lblk,
			      e4_blk_t *goal);
/* An extent inode (EXTENTS_FL) whose i_block is all zero (a new inode
 * given the flag only) gets an empty root (map_write.c). */
void e4_map_root_fix(struct ext4_inode *inode);

/* ---- inline data (inline_write.c; section 8.6) ---- */
/* The largest system.data value (a multiple of 4 bytes, at least have)
 * the inode body of ib holds, found by trying sizes on a copy. */
size_t e4_inline_value_max(e4_fs *fs, const union e4_inode_buf *ib, size_t have);
/* Bytes of inline content inode ib can hold: 60 + e4_inline_value_max();
 * 0 without inline_data, with 128-byte inodes, or when not even an empty
 * system.data fits in the inode body. */
size_t e4_inline_data_max(e4_fs *fs, const union e4_inode_buf *ib);
/* Make data[0..len) the inode's inline content: i_block, system.data
 * (empty when len <= 60), INLINE_DATA_FL set, EXTENTS_FL cleared, i_size
 * len.  Image only.  E4_ERR_UNSUPPORTED (no inline_data or 128-byte
 * inodes), E4_ERR_NO_SPACE (does not fit), xattr errors. */
errcode_t e4_inline_data_set(e4_fs *fs, union e4_inode_buf *ib, const void *data, size_t len);
/* Drop the inline content: system.data removed, i_block zeroed,
 * INLINE_DATA_FL cleared, an empty extent root with the extent feature
 * (else an empty block map).  i_size untouched.  Image only. */
errcode_t e4_inline_data_remove(e4_fs *fs, union e4_inode_buf *ib);
/* Zero the bytes of the block holding byte `size` from there to the
 * block's end when it is mapped and written (a truncated or extended file
 * reads zeros there, as the kernel's truncate leaves it).  Nothing for
 * a block-aligned size, holes, unwritten blocks, inodes without a map
 * (file_write.c).  E4_ERR_BAD_BLOCK_NUM, mapping and I/O errors. */
errcode_t e4_file_zero_tail(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			    uint64_t size);

#endif
