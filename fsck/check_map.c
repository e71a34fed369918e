/*
 * check_map.c: pass 1's map checker (check_map.h): one inode's extent tree
 * or block map, judged node by node and entry by entry.
 *
 * This file decides which kind of map the inode has (EXTENTS_FL against
 * the extent feature and what i_block holds), keeps the claims the
 * driver's ops make and the result's counts, and hands the map to
 * check_map_extent.c or check_map_ind.c.  The rows are in
 * problems_pass1_map.c.  Under -n every question is answered no: the
 * walk goes on over what is stored, a bad entry is neither claimed nor
 * counted, nothing is written.
 */
#include <stdlib.h>
#include <string.h>

#include "check_map_int.h"

int cm_in_fs(const struct cm *c, e4_blk_t pblk, uint64_t len)
{
	uint64_t lo = c->first_data ? c->first_data : 1;

	return pblk >= lo && pblk < c->blocks_count && len <= c->blocks_count - pblk;
}

enum claim_verdict cm_claim(struct cm *c, e4_blk_t pblk, uint64_t len, int meta)
{
	enum claim_verdict v = c->ops->claim(c->priv, c->ino, pblk, len, meta);

	if (v == CLAIM_OK)
		c->res->blocks += len;
	return v;
}

void cm_unclaim(struct cm *c, e4_blk_t pblk, uint64_t len, int meta)
{
	if (c->ops->unclaim)
		c->ops->unclaim(c->priv, c->ino, pblk, len, meta);
	c->res->blocks -= len;
}

void cm_note_end(struct cm *c, uint64_t end, int unwritten)
{
	if (end > c->res->end_lblk)
		c->res->end_lblk = end;
	if (!unwritten && end > c->res->end_init_lblk)
		c->res->end_init_lblk = end;
}

/* A set larger than this many slots is not kept for the next inode
 * (emptying it would cost every inode after one large map). */
#define CM_SEEN_KEEP	1024

errcode_t cm_seen(struct cm *c, e4_blk_t blk, int *twice)
{
	struct cm_seen *s = c->seen;
	size_t i;

	if (!s || 2 * (c->nseen + 1) > s->cap) {
		size_t cap = s ? 2 * s->cap : 64;
		struct cm_seen *t = calloc(1, sizeof(*t) + cap * sizeof(t->slot[0]));

		if (!t)
			return E4_ERR_NO_MEMORY;
		t->cap = cap;
		c->seen = t;
		c->ctx->owned[1] = t;
		c->nseen = 0;
		for (size_t j = 0; s && j < s->cap; j++)
			if (s->slot[j]) {
				int dummy;

				cm_seen(c, s->slot[j], &dummy);
			}
		free(s);
		s = t;
	}
	/* blk != 0: the callers have checked it lies in the filesystem */
	for (i = (size_t)(blk * 0x9E3779B97F4A7C15ULL >> 7) & (s->cap - 1); s->slot[i];
	     i = (i + 1) & (s->cap - 1))
		if (s->slot[i] == blk) {
			*twice = 1;
			return 0;
		}
	s->slot[i] = blk;
	c->nseen++;
	*twice = 0;
	return 0;
}

void e4fsck_check_map_release(struct e4fsck *ctx)
{
	free(ctx->owned[0]);
	free(ctx->owned[1]);
	ctx->owned[0] = ctx->owned[1] = NULL;
}

int cm_ask(struct cm *c, uint32_t code, struct problem_ctx *pctx)
{
	pctx->ino = c->ino;
	return fix_problem(c->ctx, code, pctx);
}

/* EXTENTS_FL against the feature and i_block: 1 if the map is to be
 * checked as an extent tree. */
static int map_is_extents(struct cm *c)
{
	struct ext4_inode *in = c->inode;
	uint32_t flags = e4_le32(in->i_flags);
	int feature = e4_has_incompat(c->fs, EXT4_FEATURE_INCOMPAT_EXTENTS);
	int tree = cm_root_plausible(in);
	struct problem_ctx pctx = { 0 };

	if (flags & EXT4_EXTENTS_FL) {
		if (feature)
			return 1;
		if (tree) {
			/* The tree is there: the feature is what is missing
			 * (the kernel's ext4 driver reads it then). */
			if (cm_ask(c, PR_1_MAP_EXTENT_FEATURE, &pctx)) {
				e4_sb_feature_change(e4_super(c->fs), E4_FEAT_INCOMPAT,
						     EXT4_FEATURE_INCOMPAT_EXTENTS, 1);
				c->ctx->sb_dirty = 1;
			}
			return 1;
		}
		if (cm_ask(c, PR_1_MAP_EXTENT_FL_NO_TREE, &pctx)) {
			in->i_flags = e4_cpu_to_le32(flags & ~EXT4_EXTENTS_FL);
			c->res->inode_changed = 1;
			return 0;
		}
		return 1;	/* as stored: the root check says the rest */
	}
	if (feature && tree) {
		/* Said, not converted: with a yes the flag is set, and in any
		 * case the words are read as the tree they are (as block
		 * numbers they would all be "bad" and cleared). */
		if (cm_ask(c, PR_1_MAP_HEADER_NO_FL, &pctx)) {
			in->i_flags = e4_cpu_to_le32(flags | EXT4_EXTENTS_FL);
			c->res->inode_changed = 1;
		}
		return 1;
	}
	return 0;
}

errcode_t e4fsck_check_map(struct e4fsck *ctx, e4_ino_t ino, struct ext4_inode *inode,
			   const struct check_map_ops *ops, void *priv,
			   struct check_map_result *res)
{
	const struct e4_geom *g = e4_geom(ctx->fs);
	struct cm c;
	uint8_t *bufs;
	errcode_t err = 0;
	unsigned i;

	memset(res, 0, sizeof(*res));
	memset(&c, 0, sizeof(c));
	c.ctx = ctx;
	c.fs = ctx->fs;
	c.ino = ino;
	c.inode = inode;
	c.ops = ops;
	c.priv = priv;
	c.res = res;
	c.gen = e4_le32(inode->i_generation);
	c.bs = g->block_size;
	c.blocks_count = g->blocks_count;
	c.first_data = g->first_data_block;
	c.is_dir = (e4_le16(inode->i_mode) & EXT4_S_IFMT) == EXT4_S_IFDIR;
	if (c.is_dir && !e4_has_incompat(ctx->fs, EXT4_FEATURE_INCOMPAT_LARGEDIR))
		c.dir_end = (1ULL << 31) / c.bs;
	/* One allocation for the level buffers and the peek block, held in
	 * ctx->owned[0] (and the seen set in owned[1], cm_seen()) from the
	 * first inode to e4fsck_check_map_release(): no allocation per
	 * inode, and a stop inside a question (preen) frees them. */
	bufs = ctx->owned[0];
	if (!bufs && !(bufs = ctx->owned[0] = malloc((size_t)c.bs * (CM_LEVELS + 1))))
		return E4_ERR_NO_MEMORY;
	for (i = 0; i < CM_LEVELS; i++)
		c.buf[i] = bufs + (size_t)i * c.bs;
	c.peek = bufs + (size_t)CM_LEVELS * c.bs;
	c.seen = ctx->owned[1];
	err = map_is_extents(&c) ? cm_check_extents(&c) : cm_check_blockmap(&c);
	/* the set, emptied for the next inode (or dropped when large) */
	if (c.seen && c.seen->cap > CM_SEEN_KEEP) {
		free(c.seen);
		ctx->owned[1] = NULL;
	} else if (c.seen && c.nseen) {
		memset(c.seen->slot, 0, c.seen->cap * sizeof(c.seen->slot[0]));
	}
	return err;
}
