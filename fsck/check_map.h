/* fsck/check_map.h: pass 1's checker of one inode's block map (extent tree or
 * direct/indirect block map), with a verdict per node and per entry (issue 15). */
#ifndef E4FSCK_CHECK_MAP_H
#define E4FSCK_CHECK_MAP_H
#include "e4fsck.h"

/* What a claim finds (return of check_map_ops.claim). */
enum claim_verdict {
	CLAIM_OK = 0,		/* claimed (also when another inode claims it too: the
				   driver records it for pass 1b; the checker keeps it) */
	CLAIM_META,		/* overlaps filesystem metadata (superblocks, descriptors,
				   bitmaps, inode tables, ...): the checker reports it and
				   drops the entry (the extent / the block pointer) */
};

struct check_map_ops {
	/* Blocks [pblk, pblk+len) inside the filesystem (the checker has already
	 * refused ranges outside [first_data_block, blocks_count)) are claimed by
	 * inode ino; meta: a tree / indirect block rather than data.  The driver
	 * marks them in its in-use map.  Called once per accepted range. */
	enum claim_verdict (*claim)(void *priv, e4_ino_t ino, e4_blk_t pblk, uint64_t len,
				    int meta);
	/* Undo a claim made earlier in this same call (an entry dropped after
	 * its children were claimed, a tree truncated). */
	void (*unclaim)(void *priv, e4_ino_t ino, e4_blk_t pblk, uint64_t len, int meta);
	/* Optional: tree block blk, whose only fault is its checksum, is to
	 * get ino's (generation gen; answered yes).  A block another inode
	 * claims too can match one tree only, which the driver knows once
	 * every inode was walked: it writes the checksum then.  NULL: the
	 * checker writes it at once.  0 or E4_ERR_NO_MEMORY. */
	errcode_t (*defer_csum)(void *priv, e4_ino_t ino, uint32_t gen, e4_blk_t blk);
};

struct check_map_result {
	uint64_t blocks;	/* fs blocks the map holds after the check (data +
				   tree/indirect blocks): pass 1 compares i_blocks */
	uint64_t end_lblk;	/* one past the last mapped logical block
				   (unwritten extents included), for i_size */
	uint64_t end_init_lblk;	/* the same, initialised extents only */
	int inode_changed;	/* the checker changed the inode in memory (i_block,
				   i_flags): the driver writes it back */
	int clear_inode;	/* the map is unusable and the user agreed to clear
				   the inode: the driver clears it (counts it as cleared) */
};

/* Check inode ino's map (extents when EXT4_EXTENTS_FL, else a block map;
 * nothing for inline data, fast symlinks, devices: the driver does not
 * call it for those).  Problems are reported through fix_problem() with
 * codes 0x010200-0x0103FF, rows in problems_pass1_map.c; repairs are
 * written through the library under -y/-p when answered yes (tree blocks),
 * inode changes are left in *inode for the driver.  Returns 0 or an
 * operational error (memory, a write error). */
errcode_t e4fsck_check_map(struct e4fsck *ctx, e4_ino_t ino, struct ext4_inode *inode,
			   const struct check_map_ops *ops, void *priv,
			   struct check_map_result *res);
/* The checker keeps its buffers (a block per tree level, the set of tree
 * blocks met) in ctx->owned[0] and [1] from one call to the next, so a
 * pass allocates them once, not per inode (a stop frees them with
 * ctx->owned): the pass frees them with this when it ends. */
void e4fsck_check_map_release(struct e4fsck *ctx);
#endif
