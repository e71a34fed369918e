/*
 * e4fsck.h: e4fsck internals shared by main.c (options, flow, exit code),
 * problem.c (the problem engine and the answer policy; its rows and codes:
 * problem.h, problems_pass*.c), pass0_journal.c (journal checks, replay,
 * orphans), super_check.c (superblock and descriptor checks) and pass5.c
 * (bitmaps and counts), pass1*.c (inodes and blocks, and the full check).
 */
#ifndef E4FSCK_H
#define E4FSCK_H

#include <stdint.h>
#include <stdio.h>
#include "e4.h"
#include "problem.h"

/* Exit status bits, OR-combined (fsck(8) convention). */
#define FSCK_OK			0
#define FSCK_NONDESTRUCT	1	/* errors corrected */
#define FSCK_REBOOT		2	/* corrected, reboot needed (mounted root) */
#define FSCK_UNCORRECTED	4	/* errors left uncorrected */
#define FSCK_ERROR		8	/* operational error */
#define FSCK_USAGE		16	/* usage or syntax error */
#define FSCK_CANCELED		32	/* cancelled by the user */

/* Who answers the questions of the problem table. */
enum e4fsck_answer {
	ANSWER_ASK = 0,		/* interactive (only on a terminal) */
	ANSWER_NO,		/* -n: read-only, every answer no */
	ANSWER_YES,		/* -y */
	ANSWER_PREEN,		/* -p / -a: fix what is safe, stop otherwise */
};

struct e4fsck {
	const char *prog;
	const char *device;
	enum e4fsck_answer answer;
	int force;			/* -f */
	int verbose;			/* -v */
	int timing;			/* -t */
	int journal_only;		/* -E journal_only */
	int progress_fd;		/* -C fd (-1: none) */
	e4_blk_t superblock;		/* -b (0: primary) */
	unsigned blocksize;		/* -B bytes (0: probe) */
	const char *ext_journal;	/* -j */
	int64_t now;			/* the clock (E4FSCK_TIME / E2FSCK_TIME) */
	int read_only;			/* -n: the device is opened read-only */

	e4_fs *fs;
	e4_blk_t sb_used;		/* superblock the fs was opened from */

	/* What happened: the exit code is derived from these only, and
	 * only the problem engine (problem.c) changes them. */
	unsigned found;			/* problems reported */
	unsigned fixed;			/* problems answered yes (repairs) */
	unsigned uncorrected;		/* problems answered no */
	int fatal;			/* an operational error stopped us */
	int cancelled;
	int full_needed;		/* a full check is required but not run */
	int full_left;			/* ... for a problem passes 1 and 5 do not
					   repair (PR_FULL_CHECK_P15 unset) */
	struct problem_state pr;	/* the engine's latches and tallies */
	int sb_dirty;			/* the in-memory superblock must be written */

	/* Journal pass results (printed in -v and used by the flow). */
	int journal_replayed;
	int journal_failed;		/* recovery ran and reported an error */
	unsigned orphans_freed, orphans_truncated;

	/* Descriptors: the primary table's locations are unsound and this
	 * group's backup copy is used for the run (0: the table opened);
	 * nothing writes descriptors or bitmaps then. */
	e4_group_t gd_copy;
	int gd_reported;		/* the primary table's faults were said */
	/* A descriptor is damaged (a checksum failure its fields do not
	 * explain, a count its uninit flag contradicts, a field out of its
	 * bounds) while the locations are sound: nothing before the full
	 * check writes descriptors, bitmaps or orphans; the full check runs
	 * (pass 1 reads such groups' whole inode tables) and pass 5 rebuilds
	 * counts, flags, unused inodes and checksums. */
	int gd_damaged;
	int sb_given;			/* -b was given (-b 0: the primary only) */

	/* Stopping before the end (e4fsck_stop(), e4fsck_exit()): the
	 * journal open and the memory held while a question is asked
	 * (closed and freed by the stop), the run's jmp_buf (e4fsck_run()),
	 * whether the run stopped. */
	e4_journal *journal;
	void *owned[3];
	/* a pass's state a stop frees (stop_free(stop_free_priv)), set
	 * while the pass runs */
	void (*stop_free)(void *priv);
	void *stop_free_priv;
	void *stop_jmp;
	int stopped;
	/* pass 0 found the journal inode bad and kept it: pass 1 leaves it */
	int journal_kept_bad;
	/* pass 0 removed an invalid, empty journal: recreated after the full check */
	int journal_recreate;
	/* the directory passes the full check ran (E4FSCK_RAN_PASS*, dirpass.h) */
	unsigned dir_passes_ran;
	/* problems answered no whose row says no is harmless (PR_NO_OK):
	 * found, not left (problem.c) */
	unsigned found_ok;
	/* pass 1 cleared an invalid resize inode: recreated after the full check */
	int resize_recreate;
};

/* e4fsck_open() and the passes: the run stopped (said, closed). */
#define E4FSCK_STOPPED	((errcode_t)-1)

/* ---- problem engine (problem.c, problem.h) ------------------------------ */
/* Print a one-line message for an operational error: "prog: device: msg". */
void e4fsck_error(struct e4fsck *ctx, errcode_t err, const char *what);
/* Stop now with the exit status computed so far (fs closed if open):
 * unwinds to e4fsck_run(), which returns that status.  For a stop inside
 * a question (problem.c); the steps of main.c return e4fsck_stop(). */
void e4fsck_exit(struct e4fsck *ctx) __attribute__((noreturn));
/* Close what is open (ctx->journal, then the filesystem, its dirty
 * superblock written) and return the exit status computed so far. */
int e4fsck_stop(struct e4fsck *ctx);
/* e4fsck's whole run on a command line (argv[0] is not used): the exit
 * status.  Callable again in the same process (main() is a wrapper). */
int e4fsck_run(int argc, char **argv);
/* Print the "time" argument of %t in the C locale (ctime style). */
void e4fsck_fmt_time(int64_t t, char *buf, size_t len);

/* ---- passes ----------------------------------------------------------- */
/* Journal: validate, then replay (or, with -n, say it is skipped).
 * Reopens ctx->fs after a replay.  Returns 0, or an error that stops the
 * run (already reported). */
errcode_t e4fsck_journal(struct e4fsck *ctx);
/* After the full check: a new journal in place of one pass 0 removed
 * (ctx->journal_recreate), as e2fsck does (pass0_journal.c). */
void e4fsck_journal_recreate(struct e4fsck *ctx);
/* After the full check: the resize inode pass 1 cleared as invalid
 * (ctx->resize_recreate) is built again (e4_resize_inode_create()), as
 * e2fsck does (pass0_journal.c; pass 1 clears it, pass1_inode.c). */
void e4fsck_resize_recreate(struct e4fsck *ctx);
/* Orphans: release the s_last_orphan chain and the orphan file. */
errcode_t e4fsck_orphans(struct e4fsck *ctx);
/* Descriptors failing their checksum (after the journal, before the
 * orphans): the checksum is rewritten only when every field is confirmed
 * (against a sound backup copy, the bitmaps, the inodes); otherwise
 * ctx->gd_damaged.  Errors: memory, writing. */
errcode_t e4fsck_check_gd_csums(struct e4fsck *ctx);
/* 1 if fs's in-memory descriptor table is sound: locations
 * (e4_group_check_locations()) and field bounds
 * (e4_group_check_fields()); with cb every fault is reported. */
int e4fsck_table_sound(e4_fs *fs, e4_gd_fault_cb cb, void *priv);
/* Say a descriptor field out of its bounds (e4_group_check_fields(),
 * e4_group_count_faults()): PR_0_GD_BAD_FIELD.  1 once more than 20
 * descriptor faults were said (stop listing). */
int e4fsck_report_gd_field(struct e4fsck *ctx, const struct e4_gd_fault *f);
/* Superblock-level checks (times, descriptors, counts, features). */
errcode_t e4fsck_check_super(struct e4fsck *ctx);
/* Sum of the descriptors' free counts into the superblock (as the kernel
 * computes them at mount); *changed = 1 if a count changed. */
errcode_t e4fsck_sync_free_counts(struct e4fsck *ctx, int *changed);
/* (Re)open ctx->fs from ctx->device with the current policy: 0, the
 * open's error, or E4FSCK_STOPPED (a check of the opened filesystem
 * stopped the run: said, closed). */
errcode_t e4fsck_open(struct e4fsck *ctx);
/* Write the superblock if dirty (s_wtime = now) and close the fs. */
errcode_t e4fsck_close(struct e4fsck *ctx);

/* Pass 5's input: what the passes before it found in use. */
struct e4fsck_pass5_input {
	const struct e4_bmap *blocks;	/* clusters in use (e4_bmap_new_blocks() shape) */
	const struct e4_bmap *inodes;	/* inodes in use (e4_bmap_new_inodes() shape) */
	const uint32_t *dirs;		/* per group: directories (NULL: not checked) */
	int report_only;		/* say every difference, answer no, write
					   nothing (maps not fit to rebuild from) */
};
/* Pass 5 (pass5.c): the on-disk bitmaps, the groups' free and directories
 * counts and the superblock's totals against in; differences said as
 * ranges, repairs written bitmaps first, superblock last.  0, or an
 * operational error (said; load, store, write, memory). */
errcode_t e4fsck_pass5(struct e4fsck *ctx, const struct e4fsck_pass5_input *in);
/* The full check (pass1.c): passes 1-5 (1B-1D when blocks are claimed
 * twice), the notice of the directory passes that did not run (what they
 * depend on could not be read), pass 5 (skipped when pass 1 could not
 * read every inode).  0, or an operational error (said). */
errcode_t e4fsck_full_check(struct e4fsck *ctx);
/* The directory passes (2-4) that did not run, from the full check's
 * E4FSCK_RAN_PASS* bits, for messages (pass2.c): which ("passes 3-4",
 * "pass 4"), what they check ("connectivity, reference counts"), the
 * passes that did run ("1, 2 and 5"), n how many are missing. */
struct e4fsck_missing {
	char which[32], what[80], done[32];
	unsigned n;
};
void e4fsck_dir_passes_missing(unsigned ran, struct e4fsck_missing *m);

#endif
