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
#include "dirpass.h"

#include <string.h>

/* One chunk of inode table the scan could not read: said and left; the
 * maps are then incomplete and pass 5 must not act on them. */
static void scan_error(struct pass1 *p, errcode_t err, e4_ino_t ino, uint32_t count)
{
	struct problem_ctx pctx = { 0 };

	pctx.err = err;
	pctx.ino = ino;
	pctx.num = (uint64_t)ino + (count ? count : 1) - 1;
	pctx.group = e4_group_of_ino(p->fs, ino);
	fix_problem(p->ctx, PR_1_SCAN_ERROR, &pctx);
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

	err = e4_inode_scan_open(p->fs, 0, 0, &p->scan);
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
	if (!err)
		err = p1_xattr_refcounts(p);
	if (!err)
		err = p1_ea_refcounts(p);
	if (!err)
		err = p1_csum_write(p);
	e4fsck_problem_summary(ctx);
	if (err)
		e4fsck_fail_msg(ctx, err, "in pass 1");
	return err;
}

/* Pass 5 answering no to everything: what pass 1 could not settle
 * (damaged maps, blocks passes 1B-1D left claimed twice) makes its maps
 * unfit to rebuild bitmaps from. */
static errcode_t pass5_report_only(struct e4fsck *ctx, const struct e4fsck_pass5_input *in)
{
	enum e4fsck_answer answer = ctx->answer;
	int ro = ctx->read_only;
	errcode_t err;

	if (!ro)
		fix_problem(ctx, PR_1_PASS5_NO_REPAIR, NULL);
	ctx->answer = ANSWER_NO;
	ctx->read_only = 1;
	err = e4fsck_pass5(ctx, in);
	ctx->answer = answer;
	ctx->read_only = ro;
	return err;
}

/* A stop inside a question (preen, quit) frees the maps. */
static void free_maps(void *priv)
{
	e4fsck_pass1_dup_free(priv);
	p1_maps_free(priv);
}

errcode_t e4fsck_full_check(struct e4fsck *ctx)
{
	struct pass1 p;
	struct e4fsck_pass5_input in;
	errcode_t err;

	memset(&p, 0, sizeof(p));
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
	if (!err && (p.ran & E4FSCK_RAN_DIRPASSES) != E4FSCK_RAN_DIRPASSES)
		fix_problem(ctx, PR_1_DIR_PASSES_NOT_RUN, NULL);
	if (!err && p.scan_failed) {
		fix_problem(ctx, PR_1_PASS5_SKIPPED, NULL);
	} else if (!err) {
		in.blocks = p.inuse;
		in.inodes = p.inodes;
		in.dirs = p.dirs;
		err = p.maps_unsure ? pass5_report_only(ctx, &in) : e4fsck_pass5(ctx, &in);
		if (!err)
			err = e4fsck_pass1_dup_finish(ctx, &p);
	}
	ctx->stop_free = NULL;
	p1_maps_free(&p);
	return err;
}
