/*
 * alloc.h: the allocation policy (alloc_policy.c over alloc.c), included
 * by e4.h.  Where new blocks and inodes go on a filesystem opened
 * read-write; the primitives below them (e4_block_mark, e4_inode_mark,
 * e4_block_find_free, e4_inode_find_free, e4_alloc_flush) are in e4.h.
 *
 * Rules (facts from the kernel's ext4 allocator, format doc 4.2, 4.4, 5):
 *  - A group whose descriptor says it has no free cluster (inode) is
 *    skipped without reading its bitmap.
 *  - Block goals: the inode's group; with flex_bg the data area of its
 *    flex group, after the flex group's bitmaps and inode tables, and with
 *    4 or more groups per flex group regular files start one group later
 *    (the kernel keeps the first group of a flex group for directories).
 *  - Inodes: directories under the root go to the (flex) group with the
 *    fewest directories among those with at least the average free inodes
 *    and free clusters (a simplified Orlov); other directories near their
 *    parent while it has room; other inodes in the parent's group, then
 *    the following groups.
 *  - bigalloc: the bitmaps and descriptors count clusters, the superblock
 *    counts blocks; a cluster is allocated or freed as a whole.
 * Changes wait in memory until e4_alloc_flush().
 */
#ifndef E4_ALLOC_H
#define E4_ALLOC_H

/* Block goal for a new block of inode ino of type mode (i_mode; only the
 * type bits matter), following the rules above: a block number inside the
 * filesystem.  No I/O.  ino out of range: the first group's data area. */
e4_blk_t e4_alloc_goal_for_mode(e4_fs *fs, e4_ino_t ino, uint16_t mode);
/* The same for an existing inode, its mode read from the inode table
 * (a read error counts as a non-regular file). */
e4_blk_t e4_alloc_goal_for_inode(e4_fs *fs, e4_ino_t ino);
/* Goal for the next block of a file whose last allocated block is
 * last_pblk: last_pblk + 1, the kernel's rule for appending, when that is
 * inside the filesystem; else (last_pblk 0 too) e4_alloc_goal_for_mode(). */
e4_blk_t e4_alloc_goal_for_file(e4_fs *fs, e4_ino_t ino, uint16_t mode, e4_blk_t last_pblk);

/* Allocate and mark in use a run of contiguous blocks near goal: the first
 * run of want free blocks at or after goal, wrapping once to the start of
 * the filesystem (runs may cross group boundaries); if there is none, the
 * longest free run found, when it has at least min blocks.  want and min
 * are in blocks, rounded up to whole clusters (bigalloc); min 0 means 1
 * cluster, min above want means want.  *first gets the run's first block
 * (the first block of a cluster), *got its length in blocks (whole
 * clusters: up to want rounded up).  Group and superblock free counts move
 * as e4_block_mark() moves them.  E4_ERR_READ_ONLY, E4_ERR_INVALID_ARGUMENT
 * (want 0), E4_ERR_NO_SPACE (no run of min blocks), bitmap read errors. */
errcode_t e4_alloc_blocks(e4_fs *fs, e4_blk_t goal, uint64_t want, uint64_t min,
			  e4_blk_t *first, uint64_t *got);
/* Mark count blocks from blk free (whole clusters).  E4_ERR_CORRUPT when
 * some of them were already free (the others are freed all the same),
 * errors of e4_block_mark(). */
errcode_t e4_alloc_free_blocks(e4_fs *fs, e4_blk_t blk, uint64_t count);

/* Allocate and mark in use a new inode for a child of directory
 * parent_ino (0: none, as the root) of type mode (i_mode), chosen by the
 * rules above; directories count in bg_used_dirs_count.  An INODE_UNINIT
 * group is initialised (flag cleared, its synthesised all-free bitmap
 * becomes real) and bg_itable_unused lowered below the new inode; the
 * inode table blocks between the old end of the used part and the new
 * inode are zeroed at once unless the group has ITABLE_ZEROED (e2fsck
 * reads every inode of the used part); a BLOCK_UNINIT group's block
 * bitmap is initialised too, as the kernel does.  The inode itself is
 * not written.  E4_ERR_READ_ONLY, E4_ERR_NO_SPACE, bitmap read and write
 * errors. */
errcode_t e4_alloc_inode(e4_fs *fs, e4_ino_t parent_ino, uint16_t mode, e4_ino_t *ino);
/* Mark inode ino free (a directory by mode: bg_used_dirs_count drops).
 * E4_ERR_CORRUPT when it was already free, errors of e4_inode_mark(). */
errcode_t e4_alloc_free_inode(e4_fs *fs, e4_ino_t ino, uint16_t mode);

/* The caller's maps (e4fsck): while set, every allocation call above and
 * e4_block_find_free, e4_block_mark, e4_inode_find_free, e4_inode_mark
 * search and change blocks (a map shaped by e4_bmap_new_blocks(): one bit
 * per cluster) and inodes (e4_bmap_new_inodes()) instead of the on-disk
 * bitmaps.  A mark in use is made on the cached on-disk bitmaps too, with
 * the descriptors' counts and flags and bg_itable_unused as without the
 * maps (written at the next flush or ordering point, before what names
 * it: a stop before the maps are stored never leaves something in use
 * marked free; a bitmap failing its checksum is marked as it reads, one
 * placed outside the filesystem is not); a mark free changes only the
 * map (a stop leaves a leak).  e4_bmap_store_blocks() /
 * e4_bmap_store_inodes() then write the bitmaps and counts from the maps
 * (bg_used_dirs_count is the caller's).  Full groups are then found from
 * the map, not the descriptors.  Inode table blocks are still zeroed as
 * e4_alloc_inode() says, from past the group's highest inode in the map.
 * Either map may be NULL (that kind goes on using the on-disk bitmaps);
 * both NULL removes the hook.  The maps stay the caller's.
 * e4_test_block() / e4_test_inode() still read the on-disk bitmaps.
 * E4_ERR_INVALID_ARGUMENT (a map of another shape). */
errcode_t e4_alloc_set_maps(e4_fs *fs, struct e4_bmap *blocks, struct e4_bmap *inodes);

#endif /* E4_ALLOC_H */
