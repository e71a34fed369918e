/*
 * check_map_run.c: run pass 1's map checker (fsck/check_map.c) on chosen
 * inodes of an image, with the stand-in driver of unit_mapstub.h: a test
 * entry until pass 1's driver calls the checker (tests/t/fsck_map_corrupt.sh).
 * Not installed.
 *
 * check_map_run -n|-y IMAGE INO...
 * check_map_run -n|-y IMAGE all: every in-use inode with a map (not the
 * bad blocks and resize inodes, which pass 1 treats apart; not inline
 * data, fast symlinks, devices, fifos, sockets), printing only the
 * problems and a count: the "no false alarm" check on clean images, and
 * (-y, then -n) "a repaired map is clean" on damaged ones.  With -y an
 * inode the checker gives up (clear_inode) is cleared as the driver would
 * (links 0, dtime set).
 * Prints each problem's row name in brackets before its message, then per
 * inode "ino N: blocks B end E init I changed C clear X"; with -y the
 * changed inodes are written back (i_blocks set from the blocks the map
 * kept, as the driver does) and the filesystem flushed.  Exit: 0,
 * or 8 on an operational error (opening, reading, the checker's error).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_mapstub.h"

void e4fsck_exit(struct e4fsck *ctx)
{
	fflush(stdout);
	exit(e4fsck_exit_code(ctx));
}

static int quiet;
static int run_one(struct e4fsck *ctx, struct mapstub *st, e4_ino_t ino);

/* 1 if pass 1 would give ino's map to the checker. */
static int has_map(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *in)
{
	unsigned fmt = e4_le16(in->i_mode) & EXT4_S_IFMT;

	if (ino == 1 || ino == 7 || !in->i_links_count || in->i_dtime || !in->i_mode)
		return 0;
	if (e4_le32(in->i_flags) & EXT4_INLINE_DATA_FL)
		return 0;
	if (fmt == EXT4_S_IFLNK)
		return !e4_inode_is_fast_symlink(fs, in);
	return fmt == EXT4_S_IFREG || fmt == EXT4_S_IFDIR;
}

/* Every inode with a map (-n only); 0, or 8 after an error. */
static int run_all(struct e4fsck *ctx, struct mapstub *st, unsigned *n)
{
	uint32_t count = e4_geom(ctx->fs)->inodes_count;
	int rc = 0;

	quiet = 1;
	for (e4_ino_t ino = 1; ino <= count && !rc; ino++) {
		union e4_inode_buf ib;

		if (e4_inode_read(ctx->fs, ino, &ib) || !has_map(ctx->fs, ino, &ib.inode))
			continue;
		rc = run_one(ctx, st, ino);
		++*n;
	}
	e4fsck_check_map_release(ctx);
	return rc;
}

static int run_one(struct e4fsck *ctx, struct mapstub *st, e4_ino_t ino)
{
	union e4_inode_buf ib;
	struct check_map_result res;
	errcode_t err = e4_inode_read(ctx->fs, ino, &ib);

	if (!err)
		err = e4fsck_check_map(ctx, ino, &ib.inode, &mapstub_ops, st, &res);
	if (err) {
		fprintf(stderr, "check_map_run: inode %u: %s\n", ino, error_message(err));
		return 8;
	}
	if (!quiet)
		printf("ino %u: blocks %llu end %llu init %llu changed %d clear %d\n", ino,
	       (unsigned long long)res.blocks, (unsigned long long)res.end_lblk,
	       (unsigned long long)res.end_init_lblk, res.inode_changed, res.clear_inode);
	if (!ctx->read_only && !res.clear_inode &&
	    e4_inode_blocks(ctx->fs, &ib.inode) != res.blocks * (e4_geom(ctx->fs)->block_size / 512)) {
		/* what pass 1's driver does with res.blocks */
		err = e4_inode_blocks_set(ctx->fs, &ib.inode,
					  res.blocks * (e4_geom(ctx->fs)->block_size / 512));
		res.inode_changed = !err;
	}
	if (!ctx->read_only && res.clear_inode) {
		/* what the driver does with a map it may not keep */
		ib.inode.i_links_count = 0;
		ib.inode.i_dtime = e4_cpu_to_le32(1);
		res.inode_changed = 1;
	}
	if (!ctx->read_only && res.inode_changed) {
		err = e4_inode_write(ctx->fs, ino, &ib);
		if (err) {
			fprintf(stderr, "check_map_run: writing inode %u: %s\n", ino,
				error_message(err));
			return 8;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct e4fsck ctx;
	struct mapstub st;
	errcode_t err;
	int rc = 0;

	if (argc < 4 || (strcmp(argv[1], "-n") && strcmp(argv[1], "-y"))) {
		fprintf(stderr, "usage: check_map_run -n|-y IMAGE INO...\n");
		return 16;
	}
	e4_init_errors();
	memset(&ctx, 0, sizeof(ctx));
	ctx.prog = "check_map_run";
	ctx.device = argv[2];
	ctx.answer = argv[1][1] == 'y' ? ANSWER_YES : ANSWER_NO;
	ctx.read_only = ctx.answer == ANSWER_NO;
	err = e4_open(argv[2], ctx.read_only ? 0 : E4_OPEN_RW | E4_OPEN_IGNORE_CSUM, 0, 0,
		      &ctx.fs);
	if (!err)
		err = mapstub_init(&st, ctx.fs);
	if (err) {
		fprintf(stderr, "check_map_run: %s: %s\n", argv[2], error_message(err));
		return 8;
	}
	mapstub_print = 1;
	if (!strcmp(argv[3], "all")) {
		unsigned n = 0;

		rc = run_all(&ctx, &st, &n);
		printf("%u inodes checked, %u problems\n", n, mapstub_ncodes);
	} else {
		for (int i = 3; i < argc; i++)
			rc |= run_one(&ctx, &st, (e4_ino_t)strtoul(argv[i], NULL, 0));
	}
	mapstub_free(&st);
	err = ctx.sb_dirty && !ctx.read_only ? e4_super_write(ctx.fs) : 0;
	if (!err)
		err = e4_close(ctx.fs);
	if (err) {
		fprintf(stderr, "check_map_run: closing: %s\n", error_message(err));
		rc |= 8;
	}
	e4fsck_problem_release(&ctx);
	return rc;
}
