/*
 * check_map_int.h: the state the map checker's parts share: check_map.c
 * (flags, dispatch, claims), check_map_extent.c (extent trees) and
 * check_map_ind.c (block maps).
 */
#ifndef E4FSCK_CHECK_MAP_INT_H
#define E4FSCK_CHECK_MAP_INT_H

#include "check_map.h"

#define CM_LEVELS	(EXT4_MAX_EXTENT_DEPTH + 1)	/* root + 5 levels */

struct cm {
	struct e4fsck *ctx;
	e4_fs *fs;
	e4_ino_t ino;
	struct ext4_inode *inode;
	const struct check_map_ops *ops;
	void *priv;
	struct check_map_result *res;
	uint32_t gen;
	unsigned bs;
	uint64_t blocks_count;
	uint32_t first_data;
	int is_dir;
	uint64_t dir_end;	/* a directory without large_dir: one past the last
				   logical block it may map (2^31 bytes, its i_size
				   is 32 bits; e2fsck's bound); else 0, no bound */
	uint64_t prev_end;	/* extents: one past the last extent kept so far */
	struct cm_seen *seen;	/* tree / indirect blocks met so far (nseen) */
	size_t nseen;
	uint8_t *buf[CM_LEVELS];	/* one block per tree level */
	uint8_t *peek;		/* a block to look at a sibling node */
	int to_blockmap;	/* EXTENTS_FL was dropped: check i_block as a block map */
	unsigned root_slots;	/* root slots walked (0: all it claims, at most 4):
				   the valid ones when stale slots were left */
};

/* An open-addressing set of blocks (0: an empty slot), kept in
 * ctx->owned[1] from one inode to the next (emptied after each). */
struct cm_seen {
	size_t cap;		/* slots, a power of two */
	e4_blk_t slot[];
};

/* A verdict on one entry. */
enum cm_verdict {
	CM_KEEP = 0,	/* claimed and counted */
	CM_DROP,	/* answered yes: the caller removes it */
	CM_SKIP,	/* answered no: left as stored, not claimed nor counted */
};

/* 1 if [pblk, pblk + len) lies inside the filesystem's blocks after the
 * boot block (first_data_block on; block 0 is never a file's). */
int cm_in_fs(const struct cm *c, e4_blk_t pblk, uint64_t len);
/* Claim through ops (counted in res->blocks when CLAIM_OK). */
enum claim_verdict cm_claim(struct cm *c, e4_blk_t pblk, uint64_t len, int meta);
void cm_unclaim(struct cm *c, e4_blk_t pblk, uint64_t len, int meta);
/* A logical range kept: res->end_lblk / end_init_lblk follow. */
void cm_note_end(struct cm *c, uint64_t end, int unwritten);
/* Note tree / indirect block blk as met: 0 the first time, 1 when the map
 * named it before (a second parent: walking it again could repeat the
 * walk without end), E4_ERR_NO_MEMORY. */
errcode_t cm_seen(struct cm *c, e4_blk_t blk, int *twice);
/* Ask code about pctx: 1 if the fix is to be made. */
int cm_ask(struct cm *c, uint32_t code, struct problem_ctx *pctx);

/* check_map_extent.c: the extent tree in c->inode (EXTENTS_FL set). */
errcode_t cm_check_extents(struct cm *c);
/* 1 if i_block holds a usable extent root header (magic, entries within
 * the root's 4 slots, depth at most 5). */
int cm_root_plausible(const struct ext4_inode *inode);
/* check_map_ind.c: the direct and indirect block map. */
errcode_t cm_check_blockmap(struct cm *c);

#endif
