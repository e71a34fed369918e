/*
 * extent.h: changing extent trees (format doc section 7.2), included by
 * e4.h.  The readers (lookup, walk, entries) are declared in e4.h.
 *
 * A cursor (e4_extent_handle) stands on one leaf entry of one inode's
 * tree and keeps the path from the root to it.  Every change keeps the
 * tree valid as the kernel reads it: entries sorted and non-overlapping,
 * each index key equal to its child's first key, eh_entries <= eh_max,
 * eh_max 4 in i_block and (block_size - 12) / 12 in tree blocks, depths
 * consistent, tail checksums set (metadata_csum), i_blocks counting the
 * mapped blocks plus the tree blocks.  A full node is split (a new
 * sibling; at the end of a node the sibling starts with the new entry, so
 * appending fills nodes), a full root moves into a new block and the tree
 * grows one level (at most 5); a node left empty is freed and its parent
 * entry removed; an empty tree is an empty root of depth 0.
 *
 * New tree blocks come from the allocator (e4_block_find_free,
 * e4_block_mark) near the extent the cursor stands on, else near the
 * inode's group; the bitmaps change in memory (e4_alloc_flush() writes
 * them).  Tree blocks are written through the block cache as they change.
 * The root lives in the caller's inode image: after a successful change
 * the caller writes the inode (e4_inode_write()).  Logical and physical
 * numbers are filesystem blocks, in CPU order.  On bigalloc filesystems
 * only removal (delete, punch, truncate) is supported.
 */
#ifndef E4_EXTENT_H
#define E4_EXTENT_H

#include "e4.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct e4_extent_handle e4_extent_handle;

/* Open flags. */
#define E4_EXTENT_NOCSUM	0x0001	/* tree blocks read are not checked against
					   their checksum (as e2fsck's orphan
					   release reads them); written ones get
					   a correct one */

/* Put an empty root (depth 0, no entries, eh_max 4) into inode's i_block
 * and set EXTENTS_FL: a new file's map.  No I/O. */
void e4_extent_root_init(struct ext4_inode *inode);

/* A cursor over inode ino's extent tree; *inode (at least the 128-byte
 * base) is the caller's image, read and changed in place.  The root is
 * checked, nothing else is read; the cursor stands nowhere until
 * e4_extent_goto().  E4_ERR_EXTENT_HEADER (no EXTENTS_FL or a bad root),
 * E4_ERR_EXTENT_ORDER, E4_ERR_EXTENT_TOO_DEEP, E4_ERR_NO_MEMORY. */
errcode_t e4_extent_open(e4_fs *fs, e4_ino_t ino, struct ext4_inode *inode, unsigned flags,
			 e4_extent_handle **ret);
void e4_extent_close(e4_extent_handle *h);
/* The tree's depth (root eh_depth; 0: the extents are in i_block). */
unsigned e4_extent_depth(e4_extent_handle *h);

/* Stand on the extent holding logical block lblk: 0.  Otherwise
 * E4_ERR_EXTENT_NOT_FOUND, the cursor on the last extent before lblk, or
 * (nothing before it) on the first extent after it, or nowhere (an empty
 * tree).  Errors reading nodes: E4_ERR_EXTENT_HEADER, E4_ERR_EXTENT_CSUM
 * (unless NOCSUM or IGNORE_CSUM), E4_ERR_EXTENT_ORDER,
 * E4_ERR_EXTENT_ZERO_LEN, E4_ERR_BAD_BLOCK_NUM, E4_ERR_FILE_TOO_BIG (lblk
 * >= 2^32), read errors. */
errcode_t e4_extent_goto(e4_extent_handle *h, uint64_t lblk);
/* The extent the cursor stands on (flags: E4_MAP_UNWRITTEN).
 * E4_ERR_EXTENT_NOT_FOUND when it stands nowhere. */
errcode_t e4_extent_get(e4_extent_handle *h, struct e4_map_extent *ext);
/* Move to the next / previous extent in logical order, across leaves.
 * E4_ERR_EXTENT_NO_NEXT / E4_ERR_EXTENT_NO_PREV at the end (the cursor
 * does not move), E4_ERR_EXTENT_NOT_FOUND when it stands nowhere, node
 * read errors as e4_extent_goto(). */
errcode_t e4_extent_next(e4_extent_handle *h);
errcode_t e4_extent_prev(e4_extent_handle *h);

/* Insert ext (len 1..32768 initialised, 1..32767 with E4_MAP_UNWRITTEN;
 * pblk inside the filesystem; lblk + len <= 2^32) where it belongs,
 * splitting full nodes and growing the tree as needed; the cursor then
 * stands on it.  Adjacent extents are not merged (e4_extent_map_set()
 * does).  i_blocks grows by len plus any new tree blocks.  The data
 * blocks are the caller's (allocated, marked in use).
 * E4_ERR_READ_ONLY, E4_ERR_INVALID_ARGUMENT (bad ext),
 * E4_ERR_EXTENT_OVERLAP (it overlaps a mapped block), E4_ERR_NO_SPACE
 * (no block for a split), E4_ERR_EXTENT_TOO_DEEP (a sixth level),
 * E4_ERR_FILE_TOO_BIG (i_blocks out of range), E4_ERR_UNSUPPORTED
 * (bigalloc), node read errors. */
errcode_t e4_extent_insert(e4_extent_handle *h, const struct e4_map_extent *ext);
/* Replace the extent the cursor stands on by ext, which must not overlap
 * its neighbours; a changed first block of a node updates the index keys
 * above it.  i_blocks follows the length.  The blocks the old extent
 * mapped and ext does not are not freed.  Errors as e4_extent_insert(),
 * E4_ERR_EXTENT_NOT_FOUND (standing nowhere). */
errcode_t e4_extent_replace(e4_extent_handle *h, const struct e4_map_extent *ext);
/* Remove the extent the cursor stands on (its data blocks are not freed;
 * i_blocks drops by its length).  A node left empty is freed, up to the
 * root; an empty root becomes depth 0.  The cursor then stands on the
 * extent before it (else the first one, else nowhere).
 * E4_ERR_READ_ONLY, E4_ERR_EXTENT_NOT_FOUND, node read errors. */
errcode_t e4_extent_delete(e4_extent_handle *h);

/* Map logical blocks [lblk, lblk + count) to physical [pblk, pblk +
 * count), initialised or (flags E4_MAP_UNWRITTEN) unwritten, in extents
 * of at most 32768 / 32767 blocks, merged with neighbours that continue
 * them logically and physically in the same state (within those limits).
 * What the range mapped before is unmapped, its blocks not freed (punch
 * first to free them).  Afterwards a root whose single child's entries
 * fit in i_block takes them and the tree loses a level (the kernel's
 * rule after an insert).  The data blocks are the caller's (marked in
 * use).  On an error the range may be left partly unmapped, never mapped
 * twice.  Errors as e4_extent_insert(); E4_ERR_FILE_TOO_BIG for a range
 * reaching logical block 4294967295 (the kernel's EXT_MAX_BLOCKS: the
 * last mappable block is 4294967294), E4_ERR_INVALID_ARGUMENT for one
 * outside the filesystem. */
errcode_t e4_extent_map_set(e4_extent_handle *h, uint64_t lblk, uint64_t count, e4_blk_t pblk,
			    unsigned flags);
/* Unmap logical blocks [lblk, lblk + count) (count may run past 2^32:
 * to the end) and free their data blocks in the bitmaps (in memory); an
 * extent reaching into the range is cut, one spanning it split in two.
 * Nodes left empty are freed; the tree keeps its depth otherwise (the
 * kernel's truncate and punch do not merge up).  i_blocks drops by the
 * blocks freed.  *freed (may be NULL) gets the blocks freed, data and
 * tree (bigalloc: blocks of the clusters freed; a cluster still used by a
 * block of the file outside the range stays).  E4_ERR_READ_ONLY,
 * E4_ERR_CORRUPT (a block to free was free already: the map is not to
 * be trusted; the walk stops there), E4_ERR_NO_SPACE (a split needs a
 * block), node read errors, bitmap errors. */
errcode_t e4_extent_punch(e4_extent_handle *h, uint64_t lblk, uint64_t count,
			  uint64_t *freed);

/* Rebuild the tree as the bulk builder packs it (continuing extents
 * merged, full nodes, the fewest levels) when that takes fewer tree
 * blocks or fewer extents: what e2fsck's "extent tree could be narrower /
 * shallower" asks for, which the kernel's own trees also get after
 * punches.  The new tree blocks (near the old first one) are written
 * before the root names them, the old ones freed after; i_blocks
 * follows.  *rebuilt (may be NULL) = 1 if it was rebuilt.
 * E4_ERR_READ_ONLY, E4_ERR_UNSUPPORTED (bigalloc), E4_ERR_NO_SPACE,
 * E4_ERR_NO_MEMORY, errors of e4_map_iterate(). */
errcode_t e4_extent_compact(e4_extent_handle *h, int *rebuilt);

/* ---- bulk building ---------------------------------------------------- */
/* Tree blocks e4_extent_tree_build_n() needs for n extents: 0 up to 4
 * extents, then full leaves of (block_size - 12) / 12 entries and full
 * index nodes above them until at most 4 entries remain for the root. */
unsigned e4_extent_tree_blocks(e4_fs *fs, uint64_t n);
/* Put an extent tree mapping ext[0..n) (ascending, non-overlapping;
 * UNWRITTEN honoured) into inode's i_block and set EXTENTS_FL: up to 4
 * extents in the inode, else depth 1, 2, ... (at most 5) of full nodes
 * in blks[0..nblks) (nblks = e4_extent_tree_blocks(fs, n)), used in tree
 * order (a node before its children, children left to right), each built
 * in bufs + i * block_size with its tail checksum (the inode's
 * generation); the caller writes them and counts them in i_blocks.
 * i_size and i_blocks are not touched.  E4_ERR_INVALID_ARGUMENT (bad
 * extents, wrong nblks, a block outside the fs), E4_ERR_EXTENT_TOO_DEEP. */
errcode_t e4_extent_tree_build_n(e4_fs *fs, e4_ino_t ino, struct ext4_inode *inode,
				 const struct e4_map_extent *ext, uint64_t n,
				 const e4_blk_t *blks, unsigned nblks, void *bufs);

/* ---- one node as stored (extent_node.c) --------------------------------
 * For checkers that judge and repair damaged trees entry by entry
 * (e4fsck's pass 1): no check is made on reading; node is the root
 * (inode->i_block, 60 bytes) or a tree block (block_size bytes). */
struct e4_extent_node_head {
	unsigned magic, entries, max, depth;	/* eh_* in CPU order */
};
/* One entry: leaf (depth 0) lblk, pblk, len (0..32768; ee_len above
 * 32768 is the unwritten form of len - 32768); index: lblk, pblk (the
 * child), len and unwritten 0. */
struct e4_extent_raw {
	uint32_t lblk;
	e4_blk_t pblk;
	unsigned len;
	int unwritten;
};
/* What is wrong with a node's header, the first fault in this order. */
enum e4_extent_node_fault {
	E4_XNODE_OK = 0,
	E4_XNODE_MAGIC,		/* eh_magic is not 0xF30A */
	E4_XNODE_ENTRIES,	/* eh_entries above eh_max or the capacity */
	E4_XNODE_DEPTH,		/* not want_depth (want_depth < 0, the root: above 5) */
	E4_XNODE_MAX,		/* eh_max 0, above the capacity, or below capacity - 2
				   (e2fsck's bound; the kernel refuses only above) */
};
/* Entries a node holds: 4 for the root, (block_size - 12) / 12 else. */
unsigned e4_extent_node_cap(e4_fs *fs, int root);
/* node's header fields as stored (nothing checked). */
void e4_extent_node_head(const void *node, struct e4_extent_node_head *h);
/* The first fault of node's header as a node of capacity entries and
 * depth want_depth (< 0: the root, depth at most 5); E4_XNODE_OK.  The
 * entries themselves are not looked at. */
enum e4_extent_node_fault e4_extent_node_fault(const void *node, unsigned capacity,
					       int want_depth);
/* Entry i of node (leaf or index by the node's eh_depth); i < eh_entries
 * is the caller's to check. */
void e4_extent_node_entry(const void *node, unsigned i, struct e4_extent_raw *e);
void e4_extent_node_set_entry(void *node, unsigned i, const struct e4_extent_raw *e);
/* Remove entry i (the later ones move down, eh_entries drops by one). */
void e4_extent_node_remove(void *node, unsigned i);
/* Rewrite the header: magic, eh_entries, eh_max, eh_depth. */
void e4_extent_node_set_head(void *node, unsigned entries, unsigned max, unsigned depth);
/* 1 if tree block node's tail checksum is right (always without
 * metadata_csum), 0 if not or eh_max leaves no room for the tail. */
int e4_extent_node_csum_ok(e4_fs *fs, e4_ino_t ino, uint32_t gen, const void *node);
/* Set node's tail checksum and write it to block blk through the cache.
 * E4_ERR_INVALID_ARGUMENT (blk outside the fs, eh_max above capacity),
 * E4_ERR_READ_ONLY, write errors. */
errcode_t e4_extent_node_write(e4_fs *fs, e4_ino_t ino, uint32_t gen, e4_blk_t blk, void *node);

#ifdef __cplusplus
}
#endif
#endif /* E4_EXTENT_H */
