/*
 * pass5.c: pass 5, the bitmaps and counts against what the passes before
 * it found (issue 15).
 *
 * Input: the clusters and inodes in use (maps shaped as
 * e4_bmap_new_blocks() / e4_bmap_new_inodes() make them) and each group's
 * directories.  The on-disk bitmaps are loaded with checksums relaxed and
 * compared; differences are said as ranges in block (inode) order,
 * e2fsck's "Block bitmap differences:  -(1234--1240) +5000", with one
 * question per bitmap.  Then each group's free blocks, free inodes and
 * directories counts, then the superblock's totals, each against what the
 * maps count (the counts as the descriptors held them before any repair).
 * Then the descriptors' own fields: an uninit flag the maps contradict is
 * said before the bitmap differences (the bitmap's repair clears it), a
 * bg_itable_unused covering inodes in use is lowered, and a descriptor
 * still failing its checksum (ctx->gd_damaged: pass 0 left it here) gets
 * a new one.  Repairs are written in a safe order: bitmaps, then the
 * primary descriptor table, then the superblock last (e4_flush_primary()).
 * With in->report_only everything is said and answered no, nothing
 * written.
 *
 * Run by the full check (pass1.c, e4fsck_full_check()) on pass 1's maps.
 */
#include "e4fsck.h"

#include <stdlib.h>
#include <string.h>

/* The first range at or after from where have is set and want is clear:
 * [*first, *first + *len).  0, or 1 when there is none. */
static int next_diff(const struct e4_bmap *have, const struct e4_bmap *want, uint64_t from,
		     uint64_t *first, uint64_t *len)
{
	uint64_t rf, rl, z, s;

	while (!e4_bmap_next_run(have, from, &rf, &rl)) {
		if (!e4_bmap_find_first_zero(want, rf, rf + rl, &z)) {
			if (e4_bmap_find_first_set(want, z, rf + rl, &s))
				s = rf + rl;
			*first = z;
			*len = s - z;
			return 0;
		}
		from = rf + rl;
	}
	return 1;
}

/* Pass 5's run: the context, its input, the descriptors as they were
 * before any repair, whether nothing may be written. */
struct p5 {
	struct e4fsck *ctx;
	const struct e4fsck_pass5_input *in;
	const struct e4_group *snap;
	int ro;			/* -n, or in->report_only */
};

/* Ask about a problem (answered no when reporting only): 1 when it is to
 * be repaired. */
static int ask(const struct p5 *p, uint32_t code, struct problem_ctx *pctx)
{
	pctx->answer_no = p->in->report_only;
	return fix_problem(p->ctx, code, pctx) && !p->ro;
}

/* How a bitmap's differences are said. */
struct diff_kind {
	enum problem_latch latch;
	uint32_t unused, used, range_unused, range_used;	/* -x +x -(x--y) +(x--y) */
	unsigned shift;		/* bit to block: cluster_bits (blocks), 0 (inodes) */
	int inodes;
	uint32_t csum;		/* a group's bitmap fails its checksum */
};

/* Say one range: "-" marked in use on disk but not in use, "+" the other
 * way round. */
static void say_range(const struct p5 *p, const struct diff_kind *k, int plus, uint64_t first,
		      uint64_t len)
{
	struct problem_ctx pctx = { 0 };
	uint64_t lo = first << k->shift, hi = ((first + len) << k->shift) - 1;
	uint32_t code;

	if (lo == hi)
		code = plus ? k->used : k->unused;
	else
		code = plus ? k->range_used : k->range_unused;
	if (k->inodes) {
		pctx.ino = (e4_ino_t)lo;
		pctx.num = hi;
	} else {
		pctx.blk = lo;
		pctx.blk2 = hi;
	}
	ask(p, code, &pctx);
}

/* Compare the on-disk map with the one in use; say every difference in
 * increasing order.  Returns 1 when the bitmap is to be rewritten. */
static int compare_maps(const struct p5 *p, const struct diff_kind *k,
			const struct e4_bmap *disk, const struct e4_bmap *inuse)
{
	struct problem_ctx pctx = { 0 };
	uint64_t mf, ml, pf, pl;
	int mdone = next_diff(disk, inuse, e4_bmap_start(disk), &mf, &ml);
	int pdone = next_diff(inuse, disk, e4_bmap_start(inuse), &pf, &pl);

	while (!mdone || !pdone) {
		if (!mdone && (pdone || mf < pf)) {
			say_range(p, k, 0, mf, ml);
			mdone = next_diff(disk, inuse, mf + ml, &mf, &ml);
		} else {
			say_range(p, k, 1, pf, pl);
			pdone = next_diff(inuse, disk, pf + pl, &pf, &pl);
		}
	}
	pctx.answer_no = p->in->report_only;
	return e4fsck_latch_end(p->ctx, k->latch, &pctx) && !p->ro;
}

/* One count against what was counted: said, and on a yes set (in
 * memory).  1 when it changed. */
static int check_count(const struct p5 *p, uint32_t code, e4_group_t g, uint64_t have,
		       uint64_t counted)
{
	struct problem_ctx pctx = { 0 };

	if (have == counted)
		return 0;
	pctx.group = g;
	pctx.num = have;
	pctx.num2 = counted;
	return ask(p, code, &pctx);
}

/* Each group's counts, then the superblock's totals, against the maps;
 * snap holds the descriptors as they were before any bitmap repair,
 * sb_free_* the superblock's.  *dirty set when something changed. */
static errcode_t check_counts(const struct p5 *p, uint64_t sb_free_blocks,
			      uint64_t sb_free_inodes, int *dirty)
{
	const struct e4fsck_pass5_input *in = p->in;
	const struct e4_group *snap = p->snap;
	int ro = p->ro;
	e4_fs *fs = p->ctx->fs;
	const struct e4_geom *geo = e4_geom(fs);
	struct ext4_super_block *sb = e4_super(fs);
	uint64_t free_clusters = 0, free_inodes = 0;
	errcode_t err = 0;

	for (e4_group_t g = 0; g < geo->group_count && !err; g++) {
		uint64_t c0 = e4_group_first_block(fs, g) >> geo->cluster_bits;
		uint64_t nc = ((uint64_t)e4_group_last_block(fs, g) >> geo->cluster_bits) - c0 + 1;
		uint64_t i0 = (uint64_t)g * geo->inodes_per_group + 1;
		uint64_t fc = nc - e4_bmap_count_range(in->blocks, c0, nc);
		uint64_t fi = geo->inodes_per_group -
			      e4_bmap_count_range(in->inodes, i0, geo->inodes_per_group);

		free_clusters += fc;
		free_inodes += fi;
		if (check_count(p, PR_5_FREE_BLOCK_COUNT_GROUP, g, snap[g].free_blocks, fc))
			err = e4_group_set_field(fs, g, E4_GDF_FREE_BLOCKS, fc);
		if (!err && check_count(p, PR_5_FREE_INODE_COUNT_GROUP, g, snap[g].free_inodes, fi))
			err = e4_group_set_field(fs, g, E4_GDF_FREE_INODES, fi);
		if (!err && in->dirs &&
		    check_count(p, PR_5_FREE_DIR_COUNT_GROUP, g, snap[g].used_dirs, in->dirs[g]))
			err = e4_group_set_field(fs, g, E4_GDF_USED_DIRS, in->dirs[g]);
		*dirty |= !ro && (snap[g].free_blocks != fc || snap[g].free_inodes != fi ||
				  (in->dirs && snap[g].used_dirs != in->dirs[g]));
	}
	if (err)
		return err;
	if (check_count(p, PR_5_FREE_BLOCK_COUNT, 0, sb_free_blocks,
			free_clusters << geo->cluster_bits)) {
		e4_sb_set_free_blocks_count(sb, free_clusters << geo->cluster_bits);
		*dirty = 1;
	}
	if (check_count(p, PR_5_FREE_INODE_COUNT, 0, sb_free_inodes, free_inodes)) {
		e4_sb_set_free_inodes_count(sb, (uint32_t)free_inodes);
		*dirty = 1;
	}
	return 0;
}

/* The descriptors and the superblock's free counts before any repair. */
static errcode_t snapshot(e4_fs *fs, struct e4_group **snap, uint64_t *fb, uint64_t *fi)
{
	const struct e4_geom *geo = e4_geom(fs);
	errcode_t err = 0;

	*snap = calloc(geo->group_count, sizeof(**snap));
	if (!*snap)
		return E4_ERR_NO_MEMORY;
	for (e4_group_t g = 0; g < geo->group_count && !err; g++)
		err = e4_group_get(fs, g, &(*snap)[g]);
	*fb = e4_sb_free_blocks_count(e4_super(fs));
	*fi = e4_le32(e4_super(fs)->s_free_inodes_count);
	return err;
}

/* The loader's report of a bitmap failing its checksum: the group, in a
 * map of groups (asked after the load, outside the library's loop). */
static int csum_bad(e4_fs *fs, e4_group_t g, errcode_t err, void *priv)
{
	(void)fs;
	(void)err;
	e4_bmap_set(priv, g);
	return 0;
}

/* Ask about every group of bad: 1 when one was answered yes. */
static int ask_csums(const struct p5 *p, const struct diff_kind *k, const struct e4_bmap *bad)
{
	struct problem_ctx pctx = { 0 };
	uint64_t g = 0;
	int yes = 0;

	while (!e4_bmap_find_first_set(bad, g, e4_bmap_end(bad), &g)) {
		pctx.group = (e4_group_t)g++;
		yes |= ask(p, k->csum, &pctx);
	}
	return yes;
}

/* Groups whose uninit flag (as the descriptor held it) the maps
 * contradict: something in use that the bitmap the flag stands for (disk,
 * as loaded: synthesised from the flag) has free.  Said before the
 * differences; rewriting the bitmap clears the flag (e4_bmap_store_*()). */
static void say_uninit(const struct p5 *p, const struct diff_kind *k, const struct e4_bmap *disk,
		       const struct e4_bmap *inuse)
{
	e4_fs *fs = p->ctx->fs;
	const struct e4_geom *geo = e4_geom(fs);
	uint16_t flag = k->inodes ? EXT4_BG_INODE_UNINIT : EXT4_BG_BLOCK_UNINIT;
	struct problem_ctx pctx = { 0 };

	if (!geo->metadata_csum && !geo->gdt_csum)
		return;
	for (e4_group_t g = 0; g < geo->group_count; g++) {
		uint64_t first, n, df, dl;

		if (!(p->snap[g].flags & flag))
			continue;
		if (k->inodes) {
			first = (uint64_t)g * geo->inodes_per_group + 1;
			n = geo->inodes_per_group;
		} else {
			first = e4_group_first_block(fs, g) >> geo->cluster_bits;
			n = ((uint64_t)e4_group_last_block(fs, g) >> geo->cluster_bits) - first + 1;
		}
		/* in use where the flag says free */
		if (next_diff(inuse, disk, first, &df, &dl) || df >= first + n)
			continue;
		pctx.group = g;
		pctx.num = e4_bmap_count_range(inuse, first, n);
		pctx.num2 = e4_bmap_count_range(disk, first, n);
		ask(p, k->inodes ? PR_5_INODE_UNINIT : PR_5_BLOCK_UNINIT, &pctx);
	}
}

/* The last group marked BLOCK_UNINIT (e4_group_check_fields(); the
 * reference clears it too): on a yes the flag is cleared in memory and 1
 * returned, and the caller writes that group's bitmap as loaded or
 * repaired (E4_BMAP_STORE_ALL: the flag no longer says what it holds). */
static int clear_last_uninit(const struct p5 *p)
{
	e4_fs *fs = p->ctx->fs;
	const struct e4_geom *geo = e4_geom(fs);
	e4_group_t g = geo->group_count - 1;
	struct problem_ctx pctx = { 0 };

	if ((!geo->metadata_csum && !geo->gdt_csum) || !(p->snap[g].flags & EXT4_BG_BLOCK_UNINIT))
		return 0;
	pctx.group = g;
	if (!ask(p, PR_5_BLOCK_UNINIT_LAST, &pctx))
		return 0;
	return !e4_group_set_field(fs, g, E4_GDF_FLAGS, p->snap[g].flags & ~EXT4_BG_BLOCK_UNINIT);
}

/* Padding bits clear in some group's bitmap (e4_bitmap_padding_check()):
 * 1 when it is to be repaired (storing the bitmaps sets them). */
static int ask_padding(const struct p5 *p, const struct diff_kind *k, errcode_t *err)
{
	struct problem_ctx pctx = { 0 };
	e4_group_t nbad = 0;

	*err = e4_bitmap_padding_check(p->ctx->fs, k->inodes, &nbad);
	if (*err || !nbad)
		return 0;
	return ask(p, k->inodes ? PR_5_INODE_BITMAP_PADDING : PR_5_BLOCK_BITMAP_PADDING, &pctx);
}

/* Load one on-disk bitmap, compare it with the map in use and ask about
 * checksums; on a yes store (no flush): the map in use when the bits are
 * to be repaired, else the on-disk bits again (their checksums
 * rewritten). */
static errcode_t check_bitmap(const struct p5 *p, const struct diff_kind *k,
			      const struct e4_bmap *inuse, int *fixed)
{
	struct e4fsck *ctx = p->ctx;
	struct e4_bmap *disk = NULL, *bad = NULL;
	const struct e4_bmap *store;
	errcode_t err;
	int fix, csum, last = 0, pad;

	err = e4_bmap_create(E4_BMAP_FLAT, 0, e4_geom(ctx->fs)->group_count, &bad);
	if (!err)
		err = (k->inodes ? e4_bmap_load_inodes : e4_bmap_load_blocks)(
			ctx->fs, E4_BMAP_RUNS, E4_BMAP_RELAX_CSUM, csum_bad, bad, &disk);
	if (err) {
		e4_bmap_free(bad);
		return err;
	}
	say_uninit(p, k, disk, inuse);
	fix = compare_maps(p, k, disk, inuse);
	csum = ask_csums(p, k, bad);
	if (!k->inodes)
		last = clear_last_uninit(p);
	pad = ask_padding(p, k, &err);
	store = err ? NULL : fix ? inuse : csum || last || pad ? disk : NULL;
	if (store)
		err = (k->inodes ? e4_bmap_store_inodes : e4_bmap_store_blocks)(
			ctx->fs, store, E4_BMAP_STORE_NO_FLUSH | (last ? E4_BMAP_STORE_ALL : 0));
	*fixed = store != NULL;
	e4_bmap_free(disk);
	e4_bmap_free(bad);
	return err;
}

/* Unknown flag bits (cleared), each group's bg_itable_unused (as held
 * before any repair) against its last inode in use (the kernel never
 * reads, and its lazy init zeroes, the inodes that count covers), then
 * (descriptors pass 0 left to this check) each descriptor's checksum once
 * its fields are settled.  *dirty set when something changed. */
static errcode_t check_descs(const struct p5 *p, int *dirty)
{
	e4_fs *fs = p->ctx->fs;
	const struct e4_geom *geo = e4_geom(fs);
	uint32_t ipg = geo->inodes_per_group;
	struct problem_ctx pctx;
	errcode_t err = 0;

	for (e4_group_t g = 0; g < geo->group_count && !err; g++) {
		struct e4_group d;

		if (!(p->snap[g].flags & ~E4_BG_KNOWN_FLAGS))
			continue;
		memset(&pctx, 0, sizeof(pctx));
		pctx.group = g;
		pctx.num = p->snap[g].flags;
		pctx.num2 = E4_BG_KNOWN_FLAGS;
		if (ask(p, PR_5_GD_FLAGS, &pctx) && !(err = e4_group_get(fs, g, &d))) {
			err = e4_group_set_field(fs, g, E4_GDF_FLAGS, d.flags & E4_BG_KNOWN_FLAGS);
			*dirty = 1;
		}
	}
	if (err || (!geo->metadata_csum && !geo->gdt_csum))
		return err;
	for (e4_group_t g = 0; g < geo->group_count && !err; g++) {
		uint64_t i0 = (uint64_t)g * ipg + 1, last;
		uint32_t most = ipg;

		if (!e4_bmap_find_last_set(p->in->inodes, i0, i0 + ipg, &last))
			most = (uint32_t)(ipg - (last - i0 + 1));
		if (p->snap[g].itable_unused <= most)
			continue;
		memset(&pctx, 0, sizeof(pctx));
		pctx.group = g;
		pctx.num = p->snap[g].itable_unused;
		pctx.num2 = most;
		if (ask(p, PR_5_ITABLE_UNUSED, &pctx)) {
			err = e4_group_set_field(fs, g, E4_GDF_ITABLE_UNUSED, most);
			*dirty = 1;
		}
	}
	for (e4_group_t g = 0; g < geo->group_count && !err && p->ctx->gd_damaged; g++) {
		const void *raw = e4_group_desc_raw(fs, g);

		if (e4_group_csum_ok(fs, g))
			continue;
		memset(&pctx, 0, sizeof(pctx));
		pctx.group = g;
		pctx.num = e4_le16(((const struct ext4_group_desc *)raw)->bg_checksum);
		pctx.num2 = e4_group_desc_csum(fs, g, raw);
		if (ask(p, PR_5_GD_CSUM, &pctx)) {
			e4_group_csum_set(fs, g);
			*dirty = 1;
		}
	}
	return err;
}

errcode_t e4fsck_pass5(struct e4fsck *ctx, const struct e4fsck_pass5_input *in)
{
	const struct diff_kind blocks = {
		PR_LATCH_BBITMAP, PR_5_BLOCK_UNUSED, PR_5_BLOCK_USED, PR_5_BLOCK_RANGE_UNUSED,
		PR_5_BLOCK_RANGE_USED, e4_geom(ctx->fs)->cluster_bits, 0, PR_5_BLOCK_BITMAP_CSUM,
	};
	const struct diff_kind inodes = {
		PR_LATCH_IBITMAP, PR_5_INODE_UNUSED, PR_5_INODE_USED, PR_5_INODE_RANGE_UNUSED,
		PR_5_INODE_RANGE_USED, 0, 1, PR_5_INODE_BITMAP_CSUM,
	};
	struct e4_group *snap = NULL;
	struct p5 p = { ctx, in, NULL, ctx->read_only || in->report_only };
	uint64_t sb_fb, sb_fi;
	int fix_b = 0, fix_i = 0, dirty = 0;
	errcode_t err;

	fix_problem(ctx, PR_5_PASS_HEADER, NULL);
	err = snapshot(ctx->fs, &snap, &sb_fb, &sb_fi);
	p.snap = snap;
	if (!err)
		err = check_bitmap(&p, &blocks, in->blocks, &fix_b);
	if (!err)
		err = check_bitmap(&p, &inodes, in->inodes, &fix_i);
	/* the bitmaps went to the cache (descriptors follow them in memory);
	 * then the counts and the descriptors' own fields, then everything
	 * in order */
	if (!err)
		err = check_counts(&p, sb_fb, sb_fi, &dirty);
	if (!err)
		err = check_descs(&p, &dirty);
	if (!err && !p.ro && (fix_b || fix_i || dirty))
		err = e4_flush_primary(ctx->fs, 1);
	free(snap);
	e4fsck_problem_summary(ctx);
	if (err)
		e4fsck_fail_msg(ctx, err, "in pass 5");
	return err;
}
