/*
 * pass1.c: pass 1's driver (inodes, blocks and sizes) and the full check
 * as this version runs it: pass 1, then pass 5 (issue 15).
 *
 * Pass 1 marks every metadata block in use (pass1_meta.c), then walks the
 * inode tables with the library's buffered scan and checks each inode
 * (pass1_inode.c), whose map checker (check_map.h) claims its blocks.
 * Afterwards each xattr block's reference count is compared with the
 * inodes naming it.  The maps it leaves (clusters and inodes in use,
 * directories per group) are pass 5's input.  Passes 2-4 do not exist
 * yet: the full check says so, and main.c never calls the result clean.
 */
#include "pass34.h"

#include <string.h>

/* A run of inode table blocks the scan could not read: said, and an
 * operational error (exit 8: the check is incomplete, as e2fsck exits
 * when a read error is not ignored); the inodes are left as they are
 * (never cleared), the maps are then incomplete and neither pass 5 nor
 * the xattr block reference counts act on them. */
static void scan_error(struct pass1 *p, errcode_t err, e4_ino_t ino, uint32_t count)
{
	struct problem_ctx pctx = { 0 };

	pctx.err = err;
	pctx.ino = ino;
	pctx.num = (uint64_t)ino + (count ? count : 1) - 1;
	pctx.group = e4_group_of_ino(p->fs, ino);
	fix_problem(p->ctx, PR_1_SCAN_ERROR, &pctx);
	e4fsck_fail(p->ctx);
	p->scan_failed = 1;
}

/* Every inode the scan reports, in order. */
static errcode_t scan_inodes(struct pass1 *p)
{
	union e4_inode_buf ib;
	const struct ext4_inode *inode;
	e4_ino_t ino;
	uint32_t count;
	int csum_ok;
	errcode_t err;

	/* a bitmap marking inodes past the unused mark: read them (the
	 * descriptor's count is wrong, the inodes may be in use) */
	err = e4_inode_scan_open(p->fs, 0, E4_SCAN_CHECK_BITMAP, &p->scan);
	if (err)
		return err;
	for (;;) {
		err = e4_inode_scan_next(p->scan, &ino, &inode, &count, &csum_ok);
		if (err == E4_ERR_NOT_FOUND) {
			err = 0;
			break;
		}
		if (err == E4_ERR_NO_MEMORY)
			break;
		if (err) {
			scan_error(p, err, ino, count);
			continue;
		}
		memset(&ib, 0, sizeof(ib));
		memcpy(ib.raw, inode, p->geo->inode_size);
		err = p1_check_inode(p, ino, &ib, csum_ok);
		if (err)
			break;
	}
	e4_inode_scan_close(p->scan);
	p->scan = NULL;
	return err;
}

errcode_t e4fsck_pass1(struct e4fsck *ctx, struct pass1 *p)
{
	errcode_t err;

	memset(p, 0, sizeof(*p));
	p->ctx = ctx;
	p->fs = ctx->fs;
	p->geo = e4_geom(ctx->fs);
	fix_problem(ctx, PR_1_PASS_HEADER, NULL);
	if (e4_has_ro_compat(p->fs, EXT4_FEATURE_RO_COMPAT_QUOTA))
		fix_problem(ctx, PR_1_QUOTA_NOT_VERIFIED, NULL);
	err = p1_maps_create(p);
	if (!err)
		err = p1_mark_metadata(p);
	if (!err)
		err = scan_inodes(p);
	e4fsck_check_map_release(ctx);	/* its buffers served every inode */
	if (!err)
		err = p1_xattr_refcounts(p);
	if (!err)
		err = p1_ea_refcounts(p);
	if (!err)
		err = p1_ea_hashes(p);
	if (!err)
		err = p1_csum_write(p);
	e4fsck_problem_summary(ctx);
	if (err)
		e4fsck_fail_msg(ctx, err, "in pass 1");
	return err;
}

/* A stop inside a question (preen, quit) frees the maps. */
static void free_maps(void *priv)
{
	struct pass1 *p = priv;

	/* passes 3-4 writing: the allocation hook leaves the maps first (the
	 * superblock stays marked not clean: the window is not ended) */
	if (p->writing)
		e4_alloc_set_maps(p->fs, NULL, NULL);
	e4_bmap_free(p->p3_done);
	e4_bmap_free(p->p3_path);
	p->p3_done = p->p3_path = NULL;
	e4fsck_pass1_dup_free(priv);
	p1_maps_free(priv);
}

errcode_t e4fsck_full_check(struct e4fsck *ctx)
{
	struct pass1 p;
	struct e4fsck_pass5_input in;
	errcode_t err, err2;

	memset(&p, 0, sizeof(p));
	memset(&in, 0, sizeof(in));
	ctx->stop_free = free_maps;
	ctx->stop_free_priv = &p;
	err = e4fsck_pass1(ctx, &p);
	if (!err && p.dup_inodes)
		err = e4fsck_pass1_dup(ctx, &p);
	if (!err && !p.scan_failed)
		err = e4fsck_pass2(ctx, &p);
	if (!err && (p.ran & E4FSCK_RAN_PASS2))
		err = e4fsck_pass3(ctx, &p);
	if (!err && (p.ran & E4FSCK_RAN_PASS3))
		err = e4fsck_pass4(ctx, &p);
	ctx->dir_passes_ran = p.ran;
	if (!err && (p.ran & E4FSCK_RAN_DIRPASSES) != E4FSCK_RAN_DIRPASSES) {
		struct e4fsck_missing m;
		struct problem_ctx pctx = { 0 };

		e4fsck_dir_passes_missing(p.ran, &m);
		m.which[0] = (char)(m.which[0] - 'a' + 'A');
		pctx.str = m.which;
		pctx.str2 = m.what;
		fix_problem(ctx, PR_1_DIR_PASSES_NOT_RUN, &pctx);
	}
	if (!err && p.scan_failed) {
		fix_problem(ctx, PR_1_PASS5_SKIPPED, NULL);
	} else if (!err) {
		in.blocks = p.inuse;
		in.inodes = p.inodes;
		in.dirs = p.dirs;
		/* what pass 1 and passes 1B-1D could not settle (damaged
		 * maps, blocks left claimed twice) makes the maps unfit to
		 * rebuild bitmaps from: pass 5 only reports */
		in.report_only = p.maps_unsure;
		if (in.report_only && !ctx->read_only)
			fix_problem(ctx, PR_1_PASS5_NO_REPAIR, NULL);
		err = e4fsck_pass5(ctx, &in);
		if (!err)
			err = e4fsck_pass1_dup_finish(ctx, &p);
	}
	/* passes 3-4 wrote: the superblock's state back after pass 5 */
	err2 = p34_window_close(&p);
	if (err2 && !err) {
		e4fsck_fail_msg(ctx, err2, "ending the repairs of passes 3-4");
		err = err2;
	}
	/* -v: e2fsck's summary of what was seen, in place of the one line
	 * (main.c); counted in pass 1, so only when it read every inode */
	if (!err && ctx->verbose && !p.scan_failed)
		p1_stats_print(&p);
	ctx->stop_free = NULL;
	p1_maps_free(&p);
	return err;
}
