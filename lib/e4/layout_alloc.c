/*
 * layout_alloc.c: the allocation model of e4_layout_compute() (used
 * blocks: each group's superblock/descriptor prefix plus the blocks
 * marked since; mke2fs's first-fit searches over them) and the placement
 * of bitmaps and inode tables (flex_bg packing, stride, packed metadata).
 */
#include "layout_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- the allocation model -------------------------------------------- */
/* First used block in [b, b + n), NONE if all free.  Blocks outside the
 * filesystem count as used. */
uint64_t e4_lay_first_used(const struct ctx *c, uint64_t b, uint64_t n)
{
	uint64_t end = b + n, res = NONE, x;

	if (b < c->fdb)
		return b;
	if (b >= c->blocks)
		return b;
	if (end > c->blocks)
		res = c->blocks;
	for (uint64_t g = g_of(c, b); g < c->groups; g++) {
		uint64_t gs = g_first(c, g), p = c->l->groups[g].sb_blocks;

		if (gs >= end || gs >= res)
			break;
		if (p && gs + p > b) {
			uint64_t cand = gs > b ? gs : b;

			if (cand < res)
				res = cand;
			break;
		}
	}
	if (!e4_bmap_find_first_set(c->used, b, end, &x) && x < res)
		res = x;
	return res < end ? res : NONE;
}

/* First free block at or after u (c->blocks if none): past the used run
 * and the superblock copy holding u.  The searches below step over a used
 * stretch at once; one block at a time, packed metadata (packed_meta_blocks:
 * every group's bitmaps and inode table in a row) cost a step per block. */
static uint64_t next_free(const struct ctx *c, uint64_t u)
{
	for (;;) {
		uint64_t v = u < c->fdb ? c->fdb : u, gs, p;

		if (v >= c->blocks)
			return c->blocks;
		gs = g_first(c, g_of(c, v));
		p = c->l->groups[g_of(c, v)].sb_blocks;
		if (p && v < gs + p)
			v = gs + p;
		if (e4_bmap_test(c->used, v) &&
		    e4_bmap_find_first_zero(c->used, v, c->blocks, &v))
			v = c->blocks;
		if (v == u)
			return u;
		u = v;
	}
}

void e4_lay_clear_uninit(struct ctx *c, uint64_t b, uint64_t n)
{
	uint64_t g0 = g_of(c, b), g1 = g_of(c, b + n - 1);

	if (g1 >= c->groups)
		g1 = c->groups - 1;
	if (g0 <= g1 && e4_bmap_set_range(c->uninit_cleared, g0, g1 - g0 + 1))
		c->oom = 1;
}

/* Mark [b, b + n) used (the part inside the filesystem). */
void e4_lay_mark(struct ctx *c, uint64_t b, uint64_t n)
{
	if (b >= c->blocks)
		return;
	if (n > c->blocks - b)
		n = c->blocks - b;
	if (e4_bmap_set_range(c->used, b, n))
		c->oom = 1;
}

/*
 * The reference's search for a free run, at block granularity: the first
 * b in [start, finish) (wrapping to the first data block when finish <=
 * start) with [b, b + num) free.
 */
int e4_lay_get_free_blocks(const struct ctx *c, uint64_t start, uint64_t finish,
			   uint64_t num, uint64_t *ret)
{
	uint64_t b = start, limit;
	int wraps = 0;

	if (!b)
		b = c->fdb;
	if (!finish)
		finish = start;
	if (!num)
		num = 1;
	if (num > c->blocks - c->fdb)
		return -1;
	limit = c->blocks - num + 1;	/* first b whose range passes the end */
	for (;;) {
		uint64_t u, t;

		if (b >= limit) {
			if (finish > start || ++wraps > 1)
				return -1;
			b = c->fdb;
		}
		u = e4_lay_first_used(c, b, num);
		if (u == NONE) {
			*ret = b;
			return 0;
		}
		t = next_free(c, u);
		if (t > limit)
			t = limit;
		if (finish > b && finish <= t)
			return -1;
		b = t;
	}
}

/* First free cluster at or after goal (then from the first data block),
 * as the reference's single-block allocator does on the cluster bitmap.
 * Returns its first block. */
int e4_lay_new_block(const struct ctx *c, uint64_t goal, uint64_t *ret)
{
	uint64_t ratio = c->cmask + 1;

	if (!goal || goal >= c->blocks)
		goal = c->fdb;
	goal &= ~c->cmask;
	for (int pass = 0; pass < 2; pass++) {
		uint64_t b = pass ? (c->fdb & ~c->cmask) : goal;
		uint64_t end = pass ? goal : c->blocks;

		while (b < end) {
			uint64_t n = ratio, u;

			if (b + n > c->blocks)
				n = c->blocks - b;
			u = e4_lay_first_used(c, b, n);
			if (u == NONE) {
				*ret = b;
				return 0;
			}
			b = (next_free(c, u) + c->cmask) & ~c->cmask;
		}
		if (goal == c->fdb)
			break;
	}
	return -1;
}

/* Free clusters of group g under the current model. */
uint32_t e4_lay_group_free(const struct ctx *c, uint32_t g)
{
	uint64_t gs = g_first(c, g), ge = g_last(c, g) + 1;
	uint64_t nclus = (ge - gs + c->cmask) >> c->cbits, used = 0;
	uint64_t last = NONE;		/* last cluster counted */
	uint64_t p = c->l->groups[g].sb_blocks;
	uint64_t s = gs, len;

	if (p) {
		used = ((gs + p - 1) >> c->cbits) - (gs >> c->cbits) + 1;
		last = (gs + p - 1) >> c->cbits;
	}
	/* each run of used blocks in the group, cut to start at s */
	while (!e4_bmap_next_run(c->used, s, &s, &len) && s < ge) {
		uint64_t e = s + len;
		uint64_t cs, ce;

		if (e > ge)
			e = ge;
		cs = s >> c->cbits;
		ce = (e - 1) >> c->cbits;
		if (last != NONE && cs <= last)
			cs = last + 1;
		if (cs <= ce)
			used += ce - cs + 1;
		if (last == NONE || ce > last)
			last = ce;
		s = e;
	}
	return (uint32_t)(nclus - used);
}

/* ---- group tables ----------------------------------------------------- */
void e4_lay_set_prefixes(struct ctx *c)
{
	struct e4_layout *l = c->l;
	int meta_bg = (l->feature_incompat & EXT4_FEATURE_INCOMPAT_META_BG) != 0;
	uint32_t dpb = l->block_size / l->desc_size;
	uint64_t old_desc = meta_bg ? l->first_meta_bg
				    : (uint64_t)l->desc_blocks + l->reserved_gdt_blocks;

	for (uint32_t g = 0; g < c->groups; g++) {
		struct e4_layout_group *gr = &l->groups[g];
		uint64_t first = g_first(c, g), gb = first, used = 0;
		int has_super = e4_lay_bg_has_super(l, g);

		if (gb == 0 && l->block_size == 1024)
			gb = 1;
		gr->first_block = first;
		gr->blocks = (uint32_t)(g_last(c, g) - first + 1);
		gr->has_super = (uint8_t)has_super;
		if (has_super)
			used++;
		if (!meta_bg || g / dpb < l->first_meta_bg) {
			if (has_super)
				used += old_desc;
		} else {
			uint32_t r = g % dpb;

			if (r == 0 || r == 1 || r == dpb - 1) {
				gr->has_meta_desc = 1;
				used++;
			}
		}
		used += gb - first;
		if (first + used > c->blocks)
			used = c->blocks - first;
		gr->sb_blocks = (uint32_t)used;
	}
}

static uint64_t flexbg_offset(const struct ctx *c, uint32_t group, uint64_t start_blk,
			      uint64_t rem_grp, uint64_t elem_size)
{
	uint32_t flexbg_size = 1U << c->l->log_groups_per_flex;
	uint32_t flexbg = group / flexbg_size;
	uint64_t size = rem_grp * elem_size, last_blk, first_free = 0;
	uint64_t last_grp;

	if (size > c->bpg / 4)
		size = c->bpg / 4;
	if (start_blk && start_blk < c->blocks &&
	    e4_lay_get_free_blocks(c, start_blk, start_blk + size, elem_size, &first_free) == 0)
		return first_free;
	start_blk = g_first(c, (uint64_t)flexbg_size * flexbg);
	last_grp = group | (flexbg_size - 1);
	if (last_grp > c->groups - 1)
		last_grp = c->groups - 1;
	last_blk = g_last(c, last_grp);
	if (e4_lay_get_free_blocks(c, start_blk, last_blk, size, &first_free) == 0)
		return first_free;
	if (e4_lay_get_free_blocks(c, start_blk, last_blk, elem_size, &first_free) == 0)
		return first_free;
	if (e4_lay_get_free_blocks(c, 0, last_blk, elem_size, &first_free) == 0)
		return first_free;
	return 0;
}

/* One bitmap block: the first free block from start, else from group_blk
 * (up to last); flex_bg: its group's BLOCK_UNINIT goes.  Returns -1 when
 * none is free. */
static int place_bitmap(struct ctx *c, uint64_t start, uint64_t group_blk, uint64_t last,
			int flex, uint64_t *blk)
{
	if (e4_lay_get_free_blocks(c, start, last, 1, blk) &&
	    e4_lay_get_free_blocks(c, group_blk, last, 1, blk))
		return -1;
	e4_lay_mark(c, *blk, 1);
	if (flex)
		e4_lay_clear_uninit(c, *blk, 1);
	return 0;
}

errcode_t e4_lay_allocate_group_table(struct ctx *c, uint32_t group)
{
	struct e4_layout *l = c->l;
	struct e4_layout_group *gr = &l->groups[group];
	uint64_t group_blk = g_first(c, group), last_blk = g_last(c, group);
	uint64_t start_blk, new_blk, last_grp = 0;
	uint64_t rem_grps = 0, flexbg_size = 0, table_offset = 0;
	uint32_t ipb = l->inode_blocks_per_group;

	if ((l->feature_incompat & EXT4_FEATURE_INCOMPAT_FLEX_BG) && l->log_groups_per_flex) {
		flexbg_size = 1ULL << l->log_groups_per_flex;
		last_grp = group | (flexbg_size - 1);
		if (last_grp > c->groups - 1)
			last_grp = c->groups - 1;
		rem_grps = last_grp - group + 1;
	}
	if (l->raid_stride && !flexbg_size) {
		if (e4_lay_get_free_blocks(c, group_blk, last_blk, 1, &start_blk))
			return E4_ERR_FS_TOO_SMALL;
		start_blk += ipb;
		start_blk += (uint32_t)(l->raid_stride * group) % (last_blk - start_blk + 1);
		if (start_blk >= last_blk)
			start_blk = group_blk;
	} else {
		start_blk = group_blk;
	}

	if (flexbg_size) {
		uint64_t prev = 0;

		table_offset = flexbg_size;
		if (group % flexbg_size)
			prev = l->groups[group - 1].block_bitmap + 1;
		else if (last_grp == c->groups - 1) {
			table_offset = last_grp & (flexbg_size - 1);
			if (table_offset == 0)
				table_offset = flexbg_size;
			else
				table_offset++;
		}
		start_blk = flexbg_offset(c, group, prev, rem_grps, 1);
		last_blk = g_last(c, last_grp);
	}
	if (place_bitmap(c, start_blk, group_blk, last_blk, flexbg_size != 0, &gr->block_bitmap))
		return E4_ERR_FS_TOO_SMALL;

	if (flexbg_size) {
		uint64_t prev;

		if (group % flexbg_size)
			prev = l->groups[group - 1].inode_bitmap + 1;
		else
			prev = gr->block_bitmap + table_offset;
		start_blk = flexbg_offset(c, group, prev, rem_grps, 1);
		last_blk = g_last(c, last_grp);
	}
	if (place_bitmap(c, start_blk, group_blk, last_blk, flexbg_size != 0, &gr->inode_bitmap))
		return E4_ERR_FS_TOO_SMALL;

	if (flexbg_size) {
		uint64_t prev;

		if (group % flexbg_size)
			prev = l->groups[group - 1].inode_table + ipb;
		else
			prev = gr->inode_bitmap + table_offset;
		group_blk = flexbg_offset(c, group, prev, rem_grps, ipb);
		last_blk = g_last(c, last_grp);
	}
	if (e4_lay_get_free_blocks(c, group_blk, last_blk, ipb, &new_blk))
		return E4_ERR_FS_TOO_SMALL;
	e4_lay_mark(c, new_blk, ipb);
	gr->inode_table = new_blk;
	if (flexbg_size)
		e4_lay_clear_uninit(c, new_blk, ipb);
	return c->oom ? E4_ERR_NO_MEMORY : 0;
}

/* mke2fs -E packed_meta_blocks with flex_bg: every bitmap, then every
 * table, from the start of the filesystem. */
errcode_t e4_lay_packed_tables(struct ctx *c)
{
	struct e4_layout *l = c->l;
	uint64_t goal = 0;
	uint32_t ipb = l->inode_blocks_per_group;

	/* block by block, also with bigalloc: mke2fs 1.47.0 packs the
	 * bitmaps into the cluster that ends the reserved GDT blocks */
	for (uint32_t g = 0; g < c->groups; g++) {
		if (e4_lay_get_free_blocks(c, goal, c->blocks - 1, 1, &goal))
			return E4_ERR_FS_TOO_SMALL;
		e4_lay_mark(c, goal, 1);
		e4_lay_clear_uninit(c, goal, 1);
		l->groups[g].block_bitmap = goal;
	}
	for (uint32_t g = 0; g < c->groups; g++) {
		if (e4_lay_get_free_blocks(c, goal, c->blocks - 1, 1, &goal))
			return E4_ERR_FS_TOO_SMALL;
		e4_lay_mark(c, goal, 1);
		e4_lay_clear_uninit(c, goal, 1);
		l->groups[g].inode_bitmap = goal;
	}
	for (uint32_t g = 0; g < c->groups; g++) {
		if (e4_lay_get_free_blocks(c, goal, c->blocks - 1, ipb, &goal))
			return E4_ERR_FS_TOO_SMALL;
		e4_lay_mark(c, goal, ipb);
		e4_lay_clear_uninit(c, goal, ipb);
		l->groups[g].inode_table = goal;
	}
	return c->oom ? E4_ERR_NO_MEMORY : 0;
}
