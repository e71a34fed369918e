/*
 * e4fsck.h: e4fsck internals shared by main.c (options, flow, exit code),
 * problem.c (the problem table and the answer policy), pass0_journal.c
 * (journal checks, replay, orphans) and super_check.c (superblock and
 * descriptor checks).
 */
#ifndef E4FSCK_H
#define E4FSCK_H

#include <stdint.h>
#include <stdio.h>
#include "e4.h"

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

	/* What happened: the exit code is derived from these only. */
	unsigned found;			/* problems reported */
	unsigned fixed;			/* problems answered yes (repairs) */
	unsigned uncorrected;		/* problems answered no */
	int fatal;			/* an operational error stopped us */
	int cancelled;
	int full_needed;		/* a full check is required but not run */
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
	 * explain, a count its uninit flag contradicts): nothing writes
	 * descriptors, bitmaps or orphans; the full check is left due. */
	int gd_damaged;
	int sb_given;			/* -b was given (-b 0: the primary only) */

	/* Stopping before the end (e4fsck_stop(), e4fsck_exit()): the
	 * journal open and the memory held while a question is asked
	 * (closed and freed by the stop), the run's jmp_buf (e4fsck_run()),
	 * whether the run stopped. */
	e4_journal *journal;
	void *owned[3];
	void *stop_jmp;
	int stopped;
};

/* e4fsck_open() and the passes: the run stopped (said, closed). */
#define E4FSCK_STOPPED	((errcode_t)-1)

/* ---- problem table (problem.c) ---------------------------------------- */
/* Values a message template can show: %i inode, %b block, %B second
 * block, %g group, %n number, %N second number (%x, %X: the same in
 * hex), %s string, %S second
 * string, %e error message of err, %d device, %t num as a date, %T now as
 * a date, %% a percent sign. */
struct problem_ctx {
	e4_ino_t ino;
	e4_blk_t blk, blk2;
	e4_group_t group;
	uint64_t num, num2;
	const char *str, *str2;
	errcode_t err;
	/* Set by a check before asking a PR_DESTRUCTIVE row when its fix
	 * would lose something that can still be recovered: what, in a few
	 * words ("the log holds committed transactions").  Then -y answers
	 * no and -p stops (problem.c). */
	const char *recoverable;
};

enum e4fsck_problem {
	/* superblock and descriptors */
	PR_0_SB_USE_BACKUP = 1,
	PR_0_SB_WRITE_PRIMARY,
	PR_0_FUTURE_SB_LAST_MOUNT,
	PR_0_FUTURE_SB_LAST_WRITE,
	PR_0_GD_BAD_LOCATION,
	PR_0_GD_CSUM,
	PR_0_GD_FREE_BLOCKS,
	PR_0_GD_FREE_INODES,
	PR_0_GD_UNINIT_FLAGS,
	PR_0_ERRORS_RECORDED,
	PR_0_ORPHAN_PRESENT_NO_FILE,
	/* journal */
	PR_0_JOURNAL_BAD_INODE,
	PR_0_JOURNAL_NO_INODE,
	PR_0_JOURNAL_RECOVER_NO_JOURNAL,
	PR_0_JOURNAL_PRESENT_NO_FEATURE,
	PR_0_JOURNAL_BAD_SUPER,
	PR_0_EXT_JOURNAL_SB_CSUM,
	PR_0_JOURNAL_UNSUPPORTED,
	PR_0_JOURNAL_DATA_NO_RECOVER,
	PR_0_JOURNAL_RESET,
	PR_0_JOURNAL_SKIP_READONLY,
	PR_0_JOURNAL_RECOVERING,
	PR_0_JOURNAL_CSUM_ERROR,
	PR_0_JOURNAL_FAILED_COMMIT,
	PR_0_JOURNAL_RECOVERY_ERROR,
	PR_0_JOURNAL_ERRNO,
	PR_0_JOURNAL_FC_SKIPPED,
	PR_0_JOURNAL_DELETED,
	/* orphans */
	PR_0_ORPHAN_RELEASE,
	PR_0_ORPHAN_BAD_INODE,
	PR_0_ORPHAN_ERROR,
	PR_0_ORPHAN_FILE_BAD,
	/* answer policy (issue 11 items 1, 2, 11) */
	PR_0_JOURNAL_SB_CSUM,
	PR_0_JOURNAL_FEATURE_SET,
	PR_0_JOURNAL_FC_PENDING,
	PR_0_EXT_JOURNAL_MISSING,
	/* superblock and descriptors (issue 11) */
	PR_0_SB_USE_FAR_BACKUP,
	PR_0_SB_GEOMETRY,
	PR_0_GD_USE_COPY,
	PR_0_GD_NO_GOOD_COPY,
	PR_0_GD_BITMAP_UNUSABLE,
	PR_0_JOURNAL_STALE_NAME,
	PR_0_JOURNAL_REPOINT,
	PR_0_GD_BAD_FIELD,
	PR_0_GD_CSUM_DAMAGE,
	PR_0_GD_UNINIT_COUNT,
	PR_0_ROOT_UNMOUNTABLE,
	PR_MAX
};

/* Report problem code with the values in *pctx and decide what to do,
 * according to the answer policy.  Returns 1 if the fix should be
 * applied, 0 if not.  In preen mode a problem that is not safe to fix
 * without a human ends the run (exit 4).  Counts what was found, fixed
 * and left, for the exit code. */
int fix_problem(struct e4fsck *ctx, int code, struct problem_ctx *pctx);
/* Print a one-line message for an operational error: "prog: device: msg". */
void e4fsck_error(struct e4fsck *ctx, errcode_t err, const char *what);
/* Compute the exit status from what was found and fixed. */
int e4fsck_exit_code(const struct e4fsck *ctx);
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
/* Write the list of destructive problems and what each answer mode does
 * with them (Markdown, doc/e4fsck-destructive.md) to f.  Returns 0, or 1
 * when a PR_DESTRUCTIVE row and the table describing them disagree. */
int e4fsck_list_destructive(FILE *f);
/* Print the "time" argument of %t in the C locale (ctime style). */
void e4fsck_fmt_time(int64_t t, char *buf, size_t len);

/* ---- passes ----------------------------------------------------------- */
/* Journal: validate, then replay (or, with -n, say it is skipped).
 * Reopens ctx->fs after a replay.  Returns 0, or an error that stops the
 * run (already reported). */
errcode_t e4fsck_journal(struct e4fsck *ctx);
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

#endif
