/*
 * main.c: e4fsck's command line, the order of the checks, and the exit
 * status.
 *
 * e4fsck [-n|-y|-p|-a] [-f] [-v] [-t] [-C fd] [-b superblock] [-B blocksize]
 *        [-j external_journal] [-E journal_only] device
 *
 * Flow: open (a backup superblock when the primary is unusable, a backup
 * descriptor table when the primary's is unsound) -> journal (validate,
 * replay, reopen) -> descriptor checksums -> orphans -> superblock-level
 * checks -> the decision whether a full check is due -> the full check
 * (pass1.c: passes 1-5; this version's checks are not complete, and
 * e4fsck never claims they are: see full_check() for the exit status).
 */
#include "config.h"
#include "e4fsck.h"
#include "crashpoint.h"
#include "shortdev.h"
#include "stdfds.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <getopt.h>
#include <setjmp.h>
#include <sys/time.h>

/* parse_args() and the steps of the run return this to go on; anything
 * else is the exit status to stop with. */
#define RUN_ON	(-1)

static int fatal(struct e4fsck *ctx, errcode_t err, const char *what);

/* The usage text: on stdout with exit 0 for --help, else on stderr with
 * e2fsck's usage exit code (16).  Returns that exit code. */
static int usage(const char *prog, int help)
{
	fprintf(help ? stdout : stderr,
		"Usage: %s [-panyfvt] [-b superblock] [-B blocksize] [-C fd]\n"
		"\t\t[-j external_journal] [-E journal_only] device\n"
		"\n"
		" -p, -a   repair automatically what is safe (preen)\n"
		" -n       open read-only and answer no to every question\n"
		" -y       answer yes to every question\n"
		" -f       check even if the filesystem seems clean\n"
		" -v       verbose\n"
		" -t       print timing\n"
		" -b blk   use the superblock at block blk (0: the primary only)\n"
		" -B size  block size to look for the superblock with\n"
		" -C fd    progress to file descriptor fd (accepted, not written yet)\n"
		" -j dev   external journal device\n"
		" -E journal_only  replay the journal (and release orphans), then stop\n"
		" -V       print the version and exit\n"
		" --help   print this text and exit\n",
		prog);
	return help ? FSCK_OK : FSCK_USAGE;
}

static int64_t clock_now(void)
{
	const char *names[] = { "E4FSCK_TIME", "E2FSCK_TIME" };

	for (unsigned i = 0; i < 2; i++) {
		const char *v = getenv(names[i]);
		char *end;
		long long t;

		if (!v || !*v)
			continue;
		errno = 0;
		t = strtoll(v, &end, 0);
		if (!errno && !*end && t >= 0)
			return t;
	}
	return (int64_t)time(NULL);
}

/* -E: RUN_ON or the exit status. */
static int parse_extended(struct e4fsck *ctx, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int bad = 0;

	if (!copy)
		return FSCK_ERROR;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "journal_only")) {
			ctx->journal_only = 1;
		} else {
			fprintf(stderr, "%s: unknown extended option: %s\n", ctx->prog, tok);
			bad = 1;
		}
	}
	free(copy);
	if (bad) {
		fprintf(stderr, "Extended options (-E): journal_only\n");
		return FSCK_USAGE;
	}
	return RUN_ON;
}

/* A number option's value into *out: RUN_ON or the exit status. */
static int parse_num(struct e4fsck *ctx, const char *arg, const char *what,
		     unsigned long *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno || !*arg || *end || *arg == '-') {
		fprintf(stderr, "%s: invalid %s: %s\n", ctx->prog, what, arg);
		return FSCK_USAGE;
	}
	*out = (unsigned long)v;
	return RUN_ON;
}

/* The command line into ctx: RUN_ON or the exit status (usage, -V,
 * --help). */
static int parse_args(struct e4fsck *ctx, int argc, char **argv)
{
	int c, modes = 0, rc = RUN_ON;
	unsigned long v;

	static const struct option long_opts[] = {
		{ "help", no_argument, NULL, 'h' + 256 },
		{ NULL, 0, NULL, 0 },
	};

	opterr = 0;
	optind = 0;	/* getopt starts afresh (a second run in one process) */
	while (rc == RUN_ON &&
	       (c = getopt_long(argc, argv, "panyfvtVC:b:B:j:E:", long_opts, NULL)) != -1) {
		switch (c) {
		case 'p':
		case 'a':
			if (ctx->answer != ANSWER_PREEN)
				modes++;
			ctx->answer = ANSWER_PREEN;
			break;
		case 'n':
			if (ctx->answer != ANSWER_NO)
				modes++;
			ctx->answer = ANSWER_NO;
			break;
		case 'y':
			if (ctx->answer != ANSWER_YES)
				modes++;
			ctx->answer = ANSWER_YES;
			break;
		case 'f': ctx->force = 1; break;
		case 'v': ctx->verbose = 1; break;
		case 't': ctx->timing = 1; break;
		case 'C':
			rc = parse_num(ctx, optarg, "file descriptor", &v);
			ctx->progress_fd = (int)v;
			break;
		case 'b':
			rc = parse_num(ctx, optarg, "superblock", &v);
			ctx->superblock = v;
			ctx->sb_given = 1;	/* -b 0: the primary, and only it */
			break;
		case 'B':
			rc = parse_num(ctx, optarg, "block size", &v);
			if (rc != RUN_ON)
				break;
			if (v < 1024 || v > 65536 || (v & (v - 1))) {
				fprintf(stderr, "%s: invalid block size: %s\n", ctx->prog, optarg);
				rc = FSCK_USAGE;
			}
			ctx->blocksize = (unsigned)v;
			break;
		case 'j': ctx->ext_journal = optarg; break;
		case 'E': rc = parse_extended(ctx, optarg); break;
		case 'V':
			printf("e4fsck %s (e4kit)\n", PACKAGE_VERSION);
			rc = FSCK_OK;
			break;
		case 'h' + 256:
			rc = usage(ctx->prog, 1);
			break;
		default:
			if (optopt && strchr("CbBjE", optopt))
				fprintf(stderr, "%s: option requires an argument -- '%c'\n",
					ctx->prog, optopt);
			else if (optopt)
				fprintf(stderr, "%s: invalid option -- '%c'\n", ctx->prog, optopt);
			else
				fprintf(stderr, "%s: unrecognized option '%s'\n", ctx->prog,
					argv[optind - 1]);
			rc = usage(ctx->prog, 0);
		}
	}
	if (rc != RUN_ON)
		return rc;
	if (modes > 1) {
		fprintf(stderr, "%s: only one of the options -p/-a, -n or -y may be given\n",
			ctx->prog);
		return FSCK_USAGE;
	}
	if (optind != argc - 1)
		return usage(ctx->prog, 0);
	ctx->device = argv[optind];
	ctx->read_only = ctx->answer == ANSWER_NO;
	return RUN_ON;
}

/* Superblock errors for which a backup copy may help. */
static int sb_damage(errcode_t err)
{
	return err == E4_ERR_BAD_MAGIC || err == E4_ERR_BAD_BLOCK_SIZE ||
	       err == E4_ERR_BAD_GEOMETRY || err == E4_ERR_SB_CSUM ||
	       err == E4_ERR_BAD_INODE_SIZE || err == E4_ERR_BAD_DESC_SIZE ||
	       err == E4_ERR_BAD_REV || err == E4_ERR_BAD_CLUSTER_SIZE ||
	       err == E4_ERR_SHORT_READ || err == E4_ERR_CORRUPT ||
	       e4_err_is_mount_check(err);
}

/* Crash-safety tests (E4_CRASH_AFTER_WRITES): stop after N writes. */
static errcode_t install_crashpoint(struct e4fsck *ctx)
{
	errcode_t err = crashpoint_install(e4_fs_io(ctx->fs));

	if (err) {
		e4_close(ctx->fs);
		ctx->fs = NULL;
	}
	return err;
}

/* The device must hold the whole filesystem (e4_check_device_size()):
 * said before anything else is looked at; the primary superblock records
 * the error (not with -n, not from a backup) and e4fsck stops, exit 8.
 * Nothing past the end of the device is ever read or written.  0, or 1
 * when the run stopped (e4fsck_stop()). */
static int check_device_size(struct e4fsck *ctx)
{
	const struct e4_geom *g = e4_geom(ctx->fs);
	struct ext4_super_block *sb = e4_super(ctx->fs);
	uint64_t dev_blocks;
	int record = !ctx->read_only && !ctx->sb_used;

	if (!e4_check_device_size(ctx->fs, &dev_blocks))
		return 0;
	fprintf(stderr, "%s: %s: the filesystem is %llu blocks of %u bytes (its superblock "
		"says so), but the device holds only %llu: either the superblock or the "
		"partition table is wrong (a truncated image, the wrong partition?)\n",
		ctx->prog, ctx->device, (unsigned long long)g->blocks_count, g->block_size,
		(unsigned long long)dev_blocks);
	if (record && !(e4_le16(sb->s_state) & EXT4_ERROR_FS)) {
		e4_sb_state_change(sb, EXT4_ERROR_FS, 0);
		ctx->sb_dirty = 1;
	}
	fprintf(stderr, "%s: %s: nothing was checked or repaired%s\n", ctx->prog, ctx->device,
		record ? "; the superblock records the error" : "");
	e4fsck_fail(ctx);
	e4fsck_stop(ctx);
	return 1;
}

int e4fsck_report_gd_field(struct e4fsck *ctx, const struct e4_gd_fault *f)
{
	struct problem_ctx pctx = { 0 };
	unsigned long long v = f->value, lim = f->limit;
	const char *what;
	char why[160];

	switch (f->err) {
	case E4_ERR_GD_FREE_BLOCKS_COUNT:
	case E4_ERR_GD_FREE_INODES_COUNT:
		what = f->err == E4_ERR_GD_FREE_BLOCKS_COUNT ? "free blocks count" :
		       "free inodes count";
		snprintf(why, sizeof(why), "%llu; at most %llu allowed", v, lim);
		break;
	case E4_ERR_GD_USED_DIRS:
		what = "directories count";
		snprintf(why, sizeof(why), "%llu; at most %llu (the inodes in use)", v, lim);
		break;
	case E4_ERR_GD_ITABLE_UNUSED:
		what = "unused inodes count";
		snprintf(why, sizeof(why), "%llu; at most %llu (its free inodes)", v, lim);
		break;
	case E4_ERR_GD_FLAGS:
		what = "flags field";
		snprintf(why, sizeof(why), "0x%llx; bits other than 0x%llx are unknown", v, lim);
		break;
	default:
		what = "flags field";
		snprintf(why, sizeof(why), "0x%llx; %s", v, error_message(f->err));
		break;
	}
	pctx.group = f->group;
	pctx.str = what;
	pctx.str2 = why;
	fix_problem(ctx, PR_0_GD_BAD_FIELD, &pctx);
	return ++ctx->gd_reported > 20;
}

static int report_gd_fault(e4_fs *fs, const struct e4_gd_fault *f, void *priv)
{
	static const char *const items[] = { "block bitmap", "inode bitmap", "inode table" };
	struct e4fsck *ctx = priv;
	struct problem_ctx pctx = { 0 };
	char why[160];

	if (f->err != E4_ERR_GD_BLOCK_BITMAP && f->err != E4_ERR_GD_INODE_BITMAP &&
	    f->err != E4_ERR_GD_INODE_TABLE && f->err != E4_ERR_GD_OVERLAP_SUPER &&
	    f->err != E4_ERR_GD_OVERLAP)
		return e4fsck_report_gd_field(ctx, f);
	switch (f->err) {
	case E4_ERR_GD_OVERLAP_SUPER:
		snprintf(why, sizeof(why), "overlaps a superblock or group descriptor copy");
		break;
	case E4_ERR_GD_OVERLAP:
		snprintf(why, sizeof(why), "overlaps group %u's %s", f->other_group,
			 items[f->other_item]);
		break;
	default:
		snprintf(why, sizeof(why), "lies outside %s (blocks %llu-%llu)",
			 e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_FLEX_BG) ?
			 "the filesystem" : "its group",
			 (unsigned long long)f->lo, (unsigned long long)f->hi);
		break;
	}
	pctx.group = f->group;
	pctx.str = items[f->item];
	pctx.blk = f->blk;
	pctx.str2 = why;
	fix_problem(ctx, PR_0_GD_BAD_LOCATION, &pctx);
	return ++ctx->gd_reported > 20;
}

/* Copies of the descriptor table tried when the opened one is unsound. */
#define GD_COPIES_TRIED	16


/* Descriptor locations as the kernel and e2fsprogs check them at open
 * (e4_group_check_locations()).  Unsound ones are corruption: the copy
 * kept with the first backup superblock whose table is sound is used for
 * the run (said once, a full check left due); without one e4fsck stops
 * before the journal, exit 4, nothing written (1: stopped).  With sound
 * locations, fields out of their bounds (counts, flags, unused inodes:
 * e4_group_check_fields()) are said and the table kept: the descriptors
 * are damaged (ctx->gd_damaged), and the full check rebuilds those fields
 * from what it finds, as e2fsck does (the backup's are older still). */
static int check_descriptors(struct e4fsck *ctx)
{
	e4_fs *fs = ctx->fs;
	const struct e4_geom *geo = e4_geom(fs);
	struct problem_ctx pctx = { 0 };
	unsigned tried = 0;
	int first = !ctx->gd_reported;

	ctx->gd_copy = 0;
	if (e4fsck_table_sound(fs, NULL, NULL))
		return 0;
	if (!e4_group_check_locations(fs, NULL, NULL, NULL)) {
		if (first) {
			e4_group_check_fields(fs, report_gd_fault, ctx, NULL);
			if (!ctx->gd_reported)
				ctx->gd_reported = 1;
		}
		ctx->gd_damaged = 1;
		return 0;
	}
	if (first) {
		e4fsck_table_sound(fs, report_gd_fault, ctx);
		if (!ctx->gd_reported)
			ctx->gd_reported = 1;
	}
	for (e4_group_t g = 1; g < geo->group_count && tried < GD_COPIES_TRIED; g++) {
		if (!e4_group_has_super(fs, g))
			continue;
		tried++;
		if (e4_gdt_load_copy(fs, g) || !e4fsck_table_sound(fs, NULL, NULL))
			continue;
		ctx->gd_copy = g;
		if (first) {
			pctx.group = g;
			pctx.blk = e4_group_first_block(fs, g);
			fix_problem(ctx, PR_0_GD_USE_COPY, &pctx);
		}
		return 0;
	}
	e4_gdt_load_copy(fs, 0);
	fix_problem(ctx, PR_0_GD_NO_GOOD_COPY, &pctx);	/* PR_LEFT */
	e4fsck_stop(ctx);
	return 1;
}

/* A freshly opened filesystem: crash tests' layer, the device's size,
 * the descriptors.  E4FSCK_STOPPED when one of them stopped the run. */
static errcode_t opened(struct e4fsck *ctx)
{
	errcode_t err;

	/* also under -n: E4_FAIL_READ's read errors (nothing is written) */
	if ((err = install_crashpoint(ctx)))
		return err;
	if (check_device_size(ctx) || check_descriptors(ctx))
		return E4FSCK_STOPPED;
	return 0;
}

/* Is the backup superblock at blk (in bs units) usable: it opens, it is
 * where its own geometry puts a copy, and (*sound) its descriptors'
 * locations are sound?  Leaves ctx->fs open on success. */
static int try_backup(struct e4fsck *ctx, int flags, e4_blk_t blk, unsigned bs, int *sound)
{
	if (e4_open(ctx->device, flags, blk, bs, &ctx->fs))
		return 0;
	if (!e4_super_is_backup_copy(ctx->fs)) {
		e4_close(ctx->fs);
		ctx->fs = NULL;
		return 0;
	}
	*sound = e4fsck_table_sound(ctx->fs, NULL, NULL);
	return 1;
}

/* The primary superblock is unusable (first): every backup location the
 * geometry allows, for block sizes 1 KiB to 64 KiB (or -B): group 1's
 * first for each size, as e2fsck looks, then the other sparse_super
 * groups and the last group on the device (sparse_super2's second copy
 * as mke2fs places it).  A backup whose descriptors are sound is
 * preferred to one whose are not.  Says which one is used.  0 with
 * ctx->fs open, or -1. */
static int search_backups(struct e4fsck *ctx, int flags, errcode_t first)
{
	struct problem_ctx pctx = { 0 };
	e4_blk_t locs[64], blk = 0;
	unsigned bs = 0;
	uint64_t dev_bytes;
	int pass, sound = 0;
	e4_io *io;

	if (e4_io_open(ctx->device, 0, &io))
		return -1;
	dev_bytes = e4_io_size(io);
	e4_io_close(io);
	for (pass = 0; pass < 2 && !sound; pass++) {
		for (unsigned b = 1024; b <= 65536 && !sound; b *= 2) {
			size_t n = e4_backup_sb_locations(b, 0, dev_bytes, NULL, locs, 64);

			if (ctx->blocksize && b != ctx->blocksize)
				continue;
			for (size_t k = pass; k < (pass ? n : n > 0) && k < 64 && !sound; k++) {
				int ok;

				if (!try_backup(ctx, flags, locs[k], b, &ok))
					continue;
				e4_close(ctx->fs);
				ctx->fs = NULL;
				if (!blk || ok) {
					blk = locs[k];
					bs = b;
					sound = ok;
				}
			}
		}
	}
	if (!blk || !try_backup(ctx, flags, blk, bs, &sound))
		return -1;
	ctx->sb_used = blk;
	ctx->blocksize = bs;
	pctx.err = first;
	pctx.blk = blk;
	if (blk == (e4_blk_t)bs * 8 + (bs == 1024)) {
		fix_problem(ctx, PR_0_SB_USE_BACKUP, &pctx);
	} else {
		pctx.group = e4_group_of_block(ctx->fs, blk);
		pctx.num = bs;
		fix_problem(ctx, PR_0_SB_USE_FAR_BACKUP, &pctx);
	}
	return 0;
}

/* No backup superblock is usable: the fields the geometry decides are
 * recomputed (e4_super_fix_geometry()) and said; with yes they are
 * written at once (a journal replay re-reads the superblock from the
 * device), with no e4fsck goes on read-only (-n) or stops (exit 4).
 * 0, -1 (it does not open) or 1 (stopped: e4fsck_stop()). */
static int fix_geometry(struct e4fsck *ctx, int flags)
{
	const struct e4_sb_fix *fixes;
	struct problem_ctx pctx = { 0 };
	unsigned n, yes = 0;
	errcode_t err;

	if (e4_open(ctx->device, flags | E4_OPEN_FIX_GEOMETRY, 0, 0, &ctx->fs))
		return -1;
	n = e4_super_fixes(ctx->fs, &fixes);
	for (unsigned k = 0; k < n; k++) {
		pctx.str = fixes[k].name;
		pctx.num = fixes[k].was;
		pctx.num2 = fixes[k].now;
		yes += fix_problem(ctx, PR_0_SB_GEOMETRY, &pctx);
	}
	if (ctx->read_only)
		return 0;
	if (yes < n) {
		e4fsck_stop(ctx);
		return 1;
	}
	err = e4_super_write(ctx->fs);
	if (!err)
		err = e4_flush(ctx->fs);
	if (err) {
		fatal(ctx, err, "while writing the repaired superblock");
		return 1;
	}
	return 0;
}

errcode_t e4fsck_open(struct e4fsck *ctx)
{
	int flags = E4_OPEN_MOUNT_CHECKS | (ctx->read_only ? 0 : E4_OPEN_RW);
	errcode_t err;

	ctx->fs = NULL;
	err = e4_open(ctx->device, flags, ctx->sb_used, ctx->sb_used ? ctx->blocksize : 0,
		      &ctx->fs);
	if (!err)
		return opened(ctx);
	if (ctx->sb_used || ctx->sb_given || !sb_damage(err))
		return err;
	if (!search_backups(ctx, flags, err))
		return opened(ctx);
	if (err == E4_ERR_BAD_GEOMETRY || e4_super_fixable(err)) {
		int r = fix_geometry(ctx, flags);

		if (!r)
			return opened(ctx);
		if (r > 0)
			return E4FSCK_STOPPED;
	}
	ctx->fs = NULL;
	return err;
}

errcode_t e4fsck_close(struct e4fsck *ctx)
{
	errcode_t err = 0, err2;
	struct ext4_super_block *sb;

	if (!ctx->fs)
		return 0;
	sb = e4_super(ctx->fs);
	if (!ctx->read_only && ctx->sb_dirty) {
		e4_sb_set_time(sb, E4_SB_WTIME, ctx->now);
		err = e4_super_write(ctx->fs);
		ctx->sb_dirty = 0;
	}
	err2 = e4_close(ctx->fs);
	ctx->fs = NULL;
	return err ? err : err2;
}

int e4fsck_stop(struct e4fsck *ctx)
{
	if (ctx->stop_free) {
		ctx->stop_free(ctx->stop_free_priv);
		ctx->stop_free = NULL;
	}
	for (unsigned k = 0; k < sizeof(ctx->owned) / sizeof(ctx->owned[0]); k++) {
		free(ctx->owned[k]);
		ctx->owned[k] = NULL;
	}
	if (ctx->journal) {
		e4_journal_close(ctx->journal);
		ctx->journal = NULL;
	}
	if (ctx->fs) {
		errcode_t err = e4fsck_close(ctx);

		if (err) {
			e4fsck_fail_msg(ctx, err, "while closing the filesystem");
		}
	}
	fflush(stdout);
	ctx->stopped = 1;
	return e4fsck_exit_code(ctx);
}

void e4fsck_exit(struct e4fsck *ctx)
{
	e4fsck_stop(ctx);
	longjmp(*(jmp_buf *)ctx->stop_jmp, 1);
}

/* An operational error: report it and stop with FSCK_ERROR (the exit
 * status). */
static int fatal(struct e4fsck *ctx, errcode_t err, const char *what)
{
	e4fsck_fail_msg(ctx, err, what);
	return e4fsck_stop(ctx);
}

/* The device's size in bytes (0 when it cannot be opened). */
static uint64_t device_bytes(struct e4fsck *ctx)
{
	uint64_t n = 0;
	e4_io *io;

	if (!e4_io_open(ctx->device, 0, &io)) {
		n = e4_io_size(io);
		e4_io_close(io);
	}
	return n;
}

/* -b: a superblock past the end of the device, for every block size it
 * may be read with (-B, else 1 KiB: the nearest), is said as such and
 * stops the run (exit 8) before anything is opened.  RUN_ON or the exit
 * status. */
static int check_sb_block(struct e4fsck *ctx)
{
	uint64_t dev = device_bytes(ctx);
	unsigned bs = ctx->blocksize ? ctx->blocksize : 1024;

	if (!ctx->superblock || !dev ||
	    (uint64_t)ctx->superblock < (dev - EXT4_SUPERBLOCK_SIZE) / bs + 1)
		return RUN_ON;
	fprintf(stderr, "%s: %s: -b %llu: the device ends before that block (it holds %llu "
		"blocks of %u bytes)\n", ctx->prog, ctx->device,
		(unsigned long long)ctx->superblock, (unsigned long long)(dev / bs), bs);
	e4fsck_fail(ctx);
	return e4fsck_stop(ctx);
}

/* After -b blk failed: the superblock copies elsewhere that open, as -b /
 * -B arguments ("" when none), at most three. */
static void other_backups(struct e4fsck *ctx, char *buf, size_t len)
{
	uint64_t dev = device_bytes(ctx);
	unsigned found = 0;
	e4_blk_t locs[64];
	size_t used = 0;
	e4_fs *fs;

	buf[0] = 0;
	for (unsigned bs = 1024; bs <= 65536 && found < 3; bs *= 2) {
		size_t n = e4_backup_sb_locations(bs, 0, dev, NULL, locs, 64);

		/* every block size, whatever -B said: the hint names its own */
		for (size_t k = 0; k < n && k < 64 && found < 3; k++) {
			int ok;

			if (locs[k] == ctx->superblock || e4_open(ctx->device, 0, locs[k], bs, &fs))
				continue;
			ok = e4_super_is_backup_copy(fs);
			e4_close(fs);
			if (!ok || used >= len)
				continue;
			used += (size_t)snprintf(buf + used, len - used, "%s-b %llu -B %u",
						 found ? ", " : "", (unsigned long long)locs[k], bs);
			found++;
		}
	}
}

/* The device ends before the superblock or its descriptors (e4_open():
 * E4_ERR_DEVICE_TOO_SMALL): both sizes said, as check_device_size() says
 * them for a filesystem that opens; nothing is read past the end or
 * written (exit 8, as the reference's short read). */
static void say_short_device(struct e4fsck *ctx)
{
	char sizes[256];

	fprintf(stderr, "%s: %s: %s: a truncated image, the wrong partition?\n", ctx->prog,
		ctx->device, short_device_sizes(ctx->device, sizes, sizeof(sizes)));
	fprintf(stderr, "%s: %s: nothing was checked or repaired\n", ctx->prog, ctx->device);
}

/* Open, or say why not and stop: RUN_ON or the exit status. */
static int open_or_stop(struct e4fsck *ctx)
{
	errcode_t err = e4fsck_open(ctx);
	char others[160];

	if (!err)
		return RUN_ON;
	if (err == E4FSCK_STOPPED)
		return e4fsck_exit_code(ctx);
	if (err == E4_ERR_DEVICE_TOO_SMALL) {
		say_short_device(ctx);
	} else if (ctx->sb_given && ctx->superblock && sb_damage(err)) {
		/* name the block tried, suggest only others that open */
		char bsz[32] = "";

		if (ctx->blocksize)
			snprintf(bsz, sizeof(bsz), " of %u bytes", ctx->blocksize);
		fprintf(stderr, "%s: %s: -b: no usable superblock at block %llu%s: %s\n",
			ctx->prog, ctx->device, (unsigned long long)ctx->superblock, bsz,
			error_message(err));
		other_backups(ctx, others, sizeof(others));
		if (others[0])
			fprintf(stderr, "%s: %s: superblock copies that open: %s\n", ctx->prog,
				ctx->device, others);
		else
			fprintf(stderr, "%s: %s: no other superblock copy was found\n", ctx->prog,
				ctx->device);
	} else {
		fprintf(stderr, "%s: %s: %s while trying to open the filesystem\n", ctx->prog,
			ctx->device, error_message(err));
		if (sb_damage(err) && !ctx->sb_given)
			fprintf(stderr, "%s: %s: no usable superblock was found: the primary and "
				"every backup location for block sizes of 1 to 64 KiB were tried\n",
				ctx->prog, ctx->device);
		else if (sb_damage(err) && !ctx->superblock)
			fprintf(stderr, "%s: %s: -b 0 names the primary superblock only (without "
				"-b the backups are searched)\n", ctx->prog, ctx->device);
	}
	e4fsck_fail(ctx);
	return e4fsck_stop(ctx);
}

/* A mounted filesystem (or the backing file of a mounted loop device)
 * must not be changed under the kernel: refuse unless -n.  RUN_ON or the
 * exit status. */
static int check_in_use(struct e4fsck *ctx)
{
	struct e4_probe p;

	if (e4_probe_device(ctx->device, &p) || !p.busy)
		return RUN_ON;
	if (ctx->read_only) {
		fprintf(stderr, "%s: warning: %s is in use (%s); the results of a read-only "
			"check may be inconsistent\n", ctx->prog, ctx->device, p.busy_what);
		return RUN_ON;
	}
	fprintf(stderr, "%s: %s is in use (%s); refusing to change it (use -n to look)\n",
		ctx->prog, ctx->device, p.busy_what);
	e4fsck_fail(ctx);
	return e4fsck_stop(ctx);
}

/* Why a full check is due, or NULL; *damage is set when the reason is
 * possible damage (as opposed to routine: mount count, interval).  -f is
 * not a reason here: main() handles it. */
static const char *full_check_reason(struct e4fsck *ctx, int *damage, char *buf, size_t len)
{
	struct ext4_super_block *sb = e4_super(ctx->fs);
	uint16_t state = e4_le16(sb->s_state);
	int64_t lastcheck = e4_sb_time(e4_le32(sb->s_lastcheck), sb->s_lastcheck_hi);
	uint32_t interval = e4_le32(sb->s_checkinterval);
	int16_t maxmnt = (int16_t)e4_le16((uint16_t)sb->s_max_mnt_count);

	*damage = 1;
	if (state & EXT4_ERROR_FS)
		return "contains a file system with errors";
	if (!(state & EXT4_VALID_FS))
		return "was not cleanly unmounted";
	if (ctx->full_needed)
		return "has problems that need a full check";
	if (ctx->sb_used)
		return "was opened from a backup superblock";
	*damage = 0;
	if (maxmnt > 0 && e4_le16(sb->s_mnt_count) >= (uint16_t)maxmnt) {
		snprintf(buf, len, "has been mounted %u times without being checked",
			 e4_le16(sb->s_mnt_count));
		return buf;
	}
	if (lastcheck > ctx->now)
		return "has its last check time in the future";
	if (interval && ctx->now >= lastcheck + interval) {
		snprintf(buf, len, "has gone %lld days without being checked",
			 (long long)((ctx->now - lastcheck) / 86400));
		return buf;
	}
	return NULL;
}

static void print_clean(struct e4fsck *ctx)
{
	struct ext4_super_block *sb = e4_super(ctx->fs);
	const struct e4_geom *g = e4_geom(ctx->fs);
	uint32_t files = g->inodes_count - e4_le32(sb->s_free_inodes_count);
	uint64_t blocks = g->blocks_count - e4_sb_free_blocks_count(sb);

	/* "clean" only when nothing was left uncorrected (-n reports) */
	printf("%s: %s%u/%u files, %llu/%llu blocks\n", ctx->device,
	       ctx->uncorrected ? "" : "clean, ", files, g->inodes_count,
	       (unsigned long long)blocks, (unsigned long long)g->blocks_count);
}

/* The summary line after a full check: never "clean" (passes 2-4 did
 * not run). */
static void print_summary(struct e4fsck *ctx)
{
	struct ext4_super_block *sb = e4_super(ctx->fs);
	const struct e4_geom *g = e4_geom(ctx->fs);

	printf("%s: %u/%u files, %llu/%llu blocks\n", ctx->device,
	       g->inodes_count - e4_le32(sb->s_free_inodes_count), g->inodes_count,
	       (unsigned long long)(g->blocks_count - e4_sb_free_blocks_count(sb)),
	       (unsigned long long)g->blocks_count);
}

/* The full check (passes 1-5, pass1.c), due for
 * damage (the superblock records errors, an unclean unmount, ...), for a
 * routine reason, or asked for with -f.  The exit status never claims
 * more than was done: what was found is fixed (1) or left (4); a check
 * that found nothing exits 8 when it was asked for or due for damage
 * (the directory checks did not run, so nothing is declared clean), and
 * 0 for a routine reason, as before passes 1 and 5 existed (the counters
 * that made it due are left alone: it stays due).  A recorded error state
 * or an unclean unmount is not cleared (left: 4, which already says the
 * filesystem is not clean, so no 8 is added), nor is a problem an earlier
 * step left to the full check unless passes 1 and 5 repair it (a bitmap
 * that cannot be believed: PR_FULL_CHECK_P15). */
static void full_check(struct e4fsck *ctx, int damage)
{
	uint16_t state = e4_le16(e4_super(ctx->fs)->s_state);
	struct e4fsck_missing m;
	const char *ok;
	int nothing;

	if (ctx->gd_copy) {
		/* the primary table's locations are unsound: the passes would
		 * read and write where a backup copy says, over what the
		 * primary names (damaged counts and flags, ctx->gd_damaged, are
		 * rebuilt by pass 5) */
		printf("%s: the primary group descriptors' locations are not sound: the full "
		       "check (passes 1-5) cannot run; it stays due.\n", ctx->device);
		e4fsck_left(ctx);
		return;
	}
	if (e4fsck_full_check(ctx))
		return;
	/* a journal pass 0 removed: a new one, before the summary counts */
	e4fsck_journal_recreate(ctx);
	e4fsck_resize_recreate(ctx);
	/* the recorded state stays as it is: the checks are not complete; and
	 * what an earlier step left to the full check stays left unless
	 * passes 1 and 5 repair it (PR_FULL_CHECK_P15) */
	if ((state & EXT4_ERROR_FS) || !(state & EXT4_VALID_FS) || ctx->full_left)
		e4fsck_left(ctx);
	/* (a read error in pass 1 is no "nothing found": it said so, exit 8) */
	/* (a problem answered no that may be left as it is, PR_NO_OK, is no
	 * repair found: the checks are no more complete for it) */
	nothing = ctx->found == ctx->found_ok && !ctx->fixed && !ctx->uncorrected &&
		  !ctx->fatal;
	ok = ctx->found_ok ? " (only what may be left as it is)" : "";
	/* -v printed the counts instead (pass1_stats.c), unless an inode
	 * table could not be read (an operational error) */
	if (!ctx->verbose || ctx->fatal)
		print_summary(ctx);
	e4fsck_dir_passes_missing(ctx->dir_passes_ran, &m);
	if (nothing && (ctx->force || damage)) {
		if (m.n)
			fprintf(stderr, "%s: %s: passes %s found nothing to repair%s, but %s (%s) "
				"did not run: the filesystem is not declared clean\n", ctx->prog,
				ctx->device, m.done, ok, m.which, m.what);
		else
			fprintf(stderr, "%s: %s: passes 1-5 found nothing to repair%s, but this "
				"version's checks are not complete (e4fsck(8), LIMITATIONS): the "
				"filesystem is not declared clean\n", ctx->prog, ctx->device, ok);
		e4fsck_fail(ctx);
	} else if (nothing && m.n) {
		printf("%s: passes %s found nothing to repair%s; %s did not run, so the routine "
		       "check stays due.\n", ctx->device, m.done, ok, m.which);
	} else if (nothing) {
		printf("%s: passes 1-5 found nothing to repair%s; this version's checks are not "
		       "complete (e4fsck(8), LIMITATIONS), so the routine check stays due.\n",
		       ctx->device, ok);
	}
}

/* The full check is not run: the superblock's summary counts follow the
 * descriptors silently, as the kernel computes them at mount (after a
 * replay the superblock's are stale).  Not when the descriptors are not
 * the primary's sound ones, nor while a journal is left unreplayed (its
 * descriptors are newer).  With the full check, pass 5 judges them
 * (PR_5_FREE_BLOCK_COUNT).  RUN_ON, or the exit status to stop with. */
static int sync_counts(struct e4fsck *ctx)
{
	errcode_t err;
	int changed;

	if (ctx->sb_used || ctx->gd_copy || ctx->gd_damaged ||
	    e4_has_incompat(ctx->fs, EXT4_FEATURE_INCOMPAT_RECOVER))
		return RUN_ON;
	err = e4fsck_sync_free_counts(ctx, &changed);
	if (err)
		return fatal(ctx, err, "while reading the group descriptors");
	if (changed && !ctx->read_only)
		ctx->sb_dirty = 1;
	return RUN_ON;
}

static double now_seconds(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

/* The checks, after the command line: the exit status.  Every stop
 * before the end closes the filesystem (e4fsck_stop()); a stop inside a
 * question (fix_problem(): preen, or quit at the prompt) comes back to
 * e4fsck_run() instead. */
static int run_checks(struct e4fsck *ctx, double t0)
{
	const char *reason;
	char rbuf[96];
	errcode_t err;
	int damage = 0, rc;

	ctx->now = clock_now();

	if (ctx->answer == ANSWER_ASK && !isatty(0)) {
		fprintf(stderr, "%s: need a terminal for interactive repairs "
			"(use -p, -n or -y)\n", ctx->prog);
		return FSCK_ERROR;
	}
	if (ctx->answer != ANSWER_PREEN)
		fprintf(stderr, "e4fsck %s\n", PACKAGE_VERSION);

	ctx->sb_used = ctx->superblock;
	if ((rc = check_in_use(ctx)) != RUN_ON || (rc = check_sb_block(ctx)) != RUN_ON ||
	    (rc = open_or_stop(ctx)) != RUN_ON)
		return rc;

	/* The journal first: replaying it may change everything below. */
	err = e4fsck_journal(ctx);
	if (err)
		return e4fsck_stop(ctx);
	if (!ctx->fs && (rc = open_or_stop(ctx)) != RUN_ON)
		return rc;

	err = e4fsck_check_gd_csums(ctx);
	if (err)
		return fatal(ctx, err, "while checking the group descriptors");

	err = e4fsck_orphans(ctx);
	if (err)
		return e4fsck_stop(ctx);

	err = e4fsck_check_super(ctx);
	if (err)
		return e4fsck_stop(ctx);

	if (ctx->journal_only) {
		/* The journal part ran as asked and the exit status reports
		 * it; the rest is not claimed.  Damage this run found that
		 * only the full check repairs (a failed replay, a journal its
		 * own replay destroyed) is left: exit 4, never 0 or 1. */
		if (ctx->force || ctx->full_needed)
			printf("%s: -E journal_only: the full check (passes 1-5) is not run; "
			       "stopping after the journal.\n", ctx->device);
		if (ctx->full_needed)
			e4fsck_left(ctx);
		else if ((rc = sync_counts(ctx)) != RUN_ON)
			return rc;
		goto out;
	}
	reason = full_check_reason(ctx, &damage, rbuf, sizeof(rbuf));
	if (reason && (damage || !ctx->force))
		printf("%s %s, check forced.\n", ctx->device, reason);
	if (!reason && !ctx->force) {
		if ((rc = sync_counts(ctx)) != RUN_ON)
			return rc;
		print_clean(ctx);
		goto out;
	}
	full_check(ctx, damage);
out:
	if (ctx->fixed && ctx->answer != ANSWER_PREEN && !ctx->read_only)
		printf("\n%s: ***** FILE SYSTEM WAS MODIFIED *****\n", ctx->device);
	if (ctx->uncorrected && ctx->answer != ANSWER_PREEN)
		printf("\n%s: ********** WARNING: Filesystem still has errors **********\n\n",
		       ctx->device);
	err = e4fsck_close(ctx);
	if (err) {
		e4fsck_fail_msg(ctx, err, "while writing the superblock");
	}
	if (ctx->timing)
		printf("%s: time: %.3f s\n", ctx->device, now_seconds() - t0);
	return e4fsck_exit_code(ctx);
}

int e4fsck_run(int argc, char **argv)
{
	struct e4fsck c;
	struct e4fsck *ctx = &c;
	jmp_buf stop;
	double t0 = now_seconds();
	int rc;

	memset(ctx, 0, sizeof(*ctx));
	ctx->prog = "e4fsck";
	ctx->progress_fd = -1;
	ctx->stop_jmp = &stop;
	e4_init_errors();
	/* Hidden: the destructive-answer list of doc/ (built from the table). */
	if (argc == 2 && !strcmp(argv[1], "--list-destructive"))
		return e4fsck_list_destructive(stdout) ? FSCK_ERROR : FSCK_OK;
	/* Hidden: every problem code (doc/e4fsck-problems.md). */
	if (argc == 2 && !strcmp(argv[1], "--list-problems"))
		return e4fsck_list_problems(stdout) ? FSCK_ERROR : FSCK_OK;
	rc = parse_args(ctx, argc, argv);
	if (rc != RUN_ON)
		return rc;
	if (setjmp(stop))
		rc = e4fsck_exit_code(ctx);	/* e4fsck_exit(): closed */
	else
		rc = run_checks(ctx, t0);
	e4fsck_problem_release(ctx);
	return rc;
}

int main(int argc, char **argv)
{
	int rc;

	/* output lost on stdout: an operational error, OR'd into the status */
	std_fds_write_error_status(FSCK_ERROR);
	setvbuf(stdout, NULL, _IOLBF, 0);
	rc = e4fsck_run(argc, argv);
	fflush(stdout);
	return rc;
}
