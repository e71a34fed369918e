/*
 * unit_mapstub.h: a stand-in for pass 1's driver around the map checker
 * (fsck/check_map.h), for tests/unit/test_check_map.c and the helper
 * tests/unit/check_map_run.c.  Header-only.
 *
 * The metadata map holds every group's superblock copy, descriptor and
 * reserved-GDT blocks, bitmaps and inode table (as the descriptors say);
 * a claim that touches it gets CLAIM_META and marks nothing, any other is
 * marked in the in-use map (claims of a block twice are counted, not
 * refused: the driver's pass 1b business).  Every fix_problem() the
 * checker makes is recorded (the programs link with
 * -Wl,--wrap=fix_problem).
 */
#ifndef UNIT_MAPSTUB_H
#define UNIT_MAPSTUB_H

#include <stdio.h>
#include <string.h>
#include "e4fsck.h"
#include "check_map.h"

struct mapstub {
	e4_fs *fs;
	struct e4_bmap *meta, *used;
	uint64_t claimed, unclaimed, twice;
};

#define MAPSTUB_CODES_MAX 256
static uint32_t mapstub_codes[MAPSTUB_CODES_MAX];
static unsigned mapstub_ncodes;
static int mapstub_print;	/* print "[PR_...]" before each message */

int __real_fix_problem(struct e4fsck *ctx, uint32_t code, struct problem_ctx *pctx);
int __wrap_fix_problem(struct e4fsck *ctx, uint32_t code, struct problem_ctx *pctx);
int __wrap_fix_problem(struct e4fsck *ctx, uint32_t code, struct problem_ctx *pctx)
{
	const struct problem_row *r = e4fsck_problem_find(code);

	if (mapstub_ncodes < MAPSTUB_CODES_MAX)
		mapstub_codes[mapstub_ncodes++] = code;
	if (mapstub_print) {
		printf("[%s] ", r ? r->name : "?");
		fflush(stdout);
	}
	return __real_fix_problem(ctx, code, pctx);
}

static inline errcode_t mapstub_init(struct mapstub *s, e4_fs *fs)
{
	const struct e4_geom *g = e4_geom(fs);
	errcode_t err;

	memset(s, 0, sizeof(*s));
	s->fs = fs;
	err = e4_bmap_create(E4_BMAP_RUNS, 0, g->blocks_count, &s->meta);
	if (!err)
		err = e4_bmap_create(E4_BMAP_RUNS, 0, g->blocks_count, &s->used);
	if (!err && g->first_data_block)
		err = e4_bmap_set_range(s->meta, 0, g->first_data_block);
	for (e4_group_t i = 0; !err && i < g->group_count; i++) {
		struct e4_group d;
		e4_blk_t sb;
		uint32_t gdt, rsv;

		e4_group_super_blocks(fs, i, &sb, &gdt, &rsv);
		if (sb || (i == 0))
			err = e4_bmap_set_range(s->meta, sb ? sb : g->first_data_block,
						1 + gdt + rsv);
		if (!err)
			err = e4_group_get(fs, i, &d);
		if (!err)
			err = e4_bmap_set(s->meta, d.block_bitmap);
		if (!err)
			err = e4_bmap_set(s->meta, d.inode_bitmap);
		if (!err)
			err = e4_bmap_set_range(s->meta, d.inode_table, g->inode_blocks_per_group);
	}
	return err;
}

static inline void mapstub_free(struct mapstub *s)
{
	e4_bmap_free(s->meta);
	e4_bmap_free(s->used);
}

static enum claim_verdict mapstub_claim(void *priv, e4_ino_t ino, e4_blk_t pblk, uint64_t len,
					int meta)
{
	struct mapstub *s = priv;

	(void)ino;
	(void)meta;
	if (!e4_bmap_range_all_clear(s->meta, pblk, len))
		return CLAIM_META;
	if (!e4_bmap_range_all_clear(s->used, pblk, len))
		s->twice++;
	e4_bmap_set_range(s->used, pblk, len);
	s->claimed += len;
	return CLAIM_OK;
}

static void mapstub_unclaim(void *priv, e4_ino_t ino, e4_blk_t pblk, uint64_t len, int meta)
{
	struct mapstub *s = priv;

	(void)ino;
	(void)meta;
	e4_bmap_clear_range(s->used, pblk, len);
	s->unclaimed += len;
}

static const struct check_map_ops mapstub_ops = { mapstub_claim, mapstub_unclaim, NULL };

#endif
