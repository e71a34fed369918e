/*
 * check_map_simple.c: a stand-in for pass 1's map checker (check_map.h)
 * until the real one (fsck/check_map.c, verdicts per node and entry) is
 * merged; the merge deletes this file.
 *
 * It walks the map as stored (e4_map_iterate(), E4_ITER_META |
 * E4_ITER_AS_STORED), claims every range inside the filesystem through
 * ops->claim, and counts blocks and the logical end.  Damage (a walk
 * error, a range outside the filesystem, a range on metadata) is said as
 * one problem for the inode, PR_1_MAP_DAMAGED, and left: nothing is
 * repaired here.
 */
#include "check_map.h"

#include <string.h>

struct walk {
	struct e4fsck *ctx;
	e4_ino_t ino;
	const struct check_map_ops *ops;
	void *priv;
	struct check_map_result *res;
	errcode_t damage;	/* first damage met (0: none) */
};

static int walk_cb(e4_fs *fs, const struct e4_map_extent *e, void *priv)
{
	struct walk *w = priv;
	const struct e4_geom *geo = e4_geom(fs);
	int meta = (e->flags & E4_MAP_META) != 0;

	if (!e->len)
		return 0;
	if (e->pblk < geo->first_data_block || e->pblk >= geo->blocks_count ||
	    e->len > geo->blocks_count - e->pblk) {
		if (!w->damage)
			w->damage = E4_ERR_BAD_BLOCK_NUM;
		return 0;
	}
	if (w->ops->claim(w->priv, w->ino, e->pblk, e->len, meta) == CLAIM_META) {
		if (!w->damage)
			w->damage = E4_ERR_CORRUPT;
		return 0;
	}
	w->res->blocks += e->len;
	if (!meta) {
		uint64_t end = e->lblk + e->len;

		if (end > w->res->end_lblk)
			w->res->end_lblk = end;
		if (!(e->flags & E4_MAP_UNWRITTEN) && end > w->res->end_init_lblk)
			w->res->end_init_lblk = end;
	}
	return 0;
}

errcode_t e4fsck_check_map(struct e4fsck *ctx, e4_ino_t ino, struct ext4_inode *inode,
			   const struct check_map_ops *ops, void *priv,
			   struct check_map_result *res)
{
	struct walk w = { ctx, ino, ops, priv, res, 0 };
	struct problem_ctx pctx = { 0 };
	errcode_t err;

	memset(res, 0, sizeof(*res));
	err = e4_map_iterate(ctx->fs, ino, inode, E4_ITER_META | E4_ITER_AS_STORED, walk_cb, &w);
	if (err == E4_ERR_NO_MEMORY)
		return err;
	if (err && !w.damage)
		w.damage = err;
	if (w.damage) {
		pctx.ino = ino;
		pctx.err = w.damage;
		fix_problem(ctx, PR_1_MAP_DAMAGED, &pctx);
	}
	return 0;
}
