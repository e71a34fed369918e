/*
 * extent_int.h: extent tree internals shared by extent.c (the readers),
 * extent_cursor.c (the cursor) and extent_map.c (range operations and the
 * bulk builder).  Not installed.
 */
#ifndef E4_EXTENT_INT_H
#define E4_EXTENT_INT_H

#include "e4_private.h"

/* Logical blocks an extent tree can address (ee_block is 32 bits). */
#define EXT_LBLK_LIMIT		(1ULL << 32)
/* What a new mapping may reach: the kernel's EXT_MAX_BLOCKS (0xFFFFFFFF)
 * rejects an extent whose end wraps, so block 4294967295 is never mapped
 * and 4294967294 is the last logical block a writer may map. */
#define EXT_LBLK_WRITE_LIMIT	0xFFFFFFFFULL
/* Entries of the root node in i_block (60 bytes: header + 4). */
#define EXT_ROOT_CAPACITY	4

/* Read tree block blk into buf (block_size bytes) and check it as a node
 * of depth want_depth whose entries lie in [lo, hi): header, entries
 * sorted and non-overlapping, and with verify_csum (and metadata_csum,
 * unless the filesystem was opened IGNORE_CSUM) the tail checksum.
 * E4_ERR_BAD_BLOCK_NUM, E4_ERR_EXTENT_HEADER, E4_ERR_EXTENT_CSUM,
 * E4_ERR_EXTENT_ORDER, E4_ERR_EXTENT_ZERO_LEN, E4_ERR_FILE_TOO_BIG, read
 * errors (extent.c). */
errcode_t e4_extent_node_read(e4_fs *fs, e4_ino_t ino, uint32_t gen, e4_blk_t blk, void *buf,
			      int want_depth, uint64_t lo, uint64_t hi, int verify_csum);
/* The root in i_block: header (capacity 4, depth at most 5) and entries. */
errcode_t e4_extent_root_check(const struct ext4_inode *inode);
/* Entries a tree block holds: (block_size - 12) / 12 (section 7.2). */
unsigned e4_extent_node_capacity(e4_fs *fs);

/* A leaf entry from m (length + 32768 for UNWRITTEN). */
void e4_extent_encode(struct ext4_extent *e, const struct e4_map_extent *m);
/* Set the tail checksum of tree block node (no-op without metadata_csum;
 * covers 12 + 12 * eh_max bytes). */
void e4_extent_tail_set(e4_fs *fs, e4_ino_t ino, uint32_t gen, void *node);

/* Cursor internals used by extent_map.c (extent_cursor.c). */
/* Make room for one more entry in the leaf where logical block lblk
 * belongs (splitting or growing as insertion does, never leaving an empty
 * leaf), so that a later insert there needs no new block.  The path is
 * left on that leaf. */
errcode_t e4_extent_reserve(e4_extent_handle *h, uint64_t lblk);
/* e4_extent_insert() on bigalloc too (punch puts back the tail of an
 * extent it splits). */
errcode_t e4_extent_insert_any(e4_extent_handle *h, const struct e4_map_extent *ext);
/* e4_extent_map_set() on bigalloc too: the data clusters are the
 * caller's to count in i_blocks (the tree's blocks are counted). */
errcode_t e4_extent_map_set_any(e4_extent_handle *h, uint64_t lblk, uint64_t count,
				e4_blk_t pblk, unsigned flags);
/* Replace the current entry without the neighbour checks (the caller
 * knows the range is free), on bigalloc too. */
errcode_t e4_extent_replace_nocheck(e4_extent_handle *h, const struct e4_map_extent *ext);
/* The root has one child whose entries fit in i_block: the root takes
 * them, the child is freed, the tree loses a level; while that applies. */
errcode_t e4_extent_merge_up(e4_extent_handle *h);
/* 1 when the handle keeps i_blocks per entry (not bigalloc). */
int e4_extent_counts_data(e4_extent_handle *h);
/* Add delta filesystem blocks (may be negative) to the inode's i_blocks. */
errcode_t e4_extent_iblocks_add(e4_extent_handle *h, int64_t delta);
/* The inode, its number and the filesystem of a handle. */
e4_fs *e4_extent_fs(e4_extent_handle *h);
e4_ino_t e4_extent_ino(e4_extent_handle *h);
struct ext4_inode *e4_extent_inode(e4_extent_handle *h);
/* Tree blocks freed by the handle since it was opened. */
uint64_t e4_extent_tree_freed(e4_extent_handle *h);
/* eh_max of the tree blocks the handle creates from now on (1 up to the
 * capacity; default the capacity).  For tests that want deep trees from
 * few extents: the kernel accepts such nodes, e2fsck does not (it wants
 * at least capacity - 2).  E4_ERR_INVALID_ARGUMENT. */
errcode_t e4_extent_set_node_max(e4_extent_handle *h, unsigned max);

#endif
