/*
 * problem.c: e4fsck's problem table and its one answer policy.
 *
 * Every inconsistency e4fsck can report is one row here: a code, a
 * message template, the fix it proposes (the prompt) and flags.  Checks
 * call fix_problem(); whether the fix is applied comes from -n / -y / -p
 * or a question on the terminal, decided only in this file.  The exit
 * status is computed from the counts fix_problem() keeps.
 */
#include "e4fsck.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum prompt {
	PROMPT_NONE = 0,	/* informational, or an automatic action */
	PROMPT_FIX,
	PROMPT_CLEAR,
	PROMPT_RELOCATE,
	PROMPT_RUN,		/* replay the journal */
	PROMPT_CLEAR_JOURNAL,
	PROMPT_REPLAY_NO_FC,
};

static const struct {
	const char *question;	/* asked: "Fix? yes" */
	const char *preen;	/* said in preen mode: "FIXED." */
} prompts[] = {
	[PROMPT_NONE]	= { NULL, NULL },
	[PROMPT_FIX]	= { "Fix", "FIXED" },
	[PROMPT_CLEAR]	= { "Clear", "CLEARED" },
	[PROMPT_RELOCATE] = { "Relocate", "RELOCATED" },
	[PROMPT_RUN]	= { "Replay the journal anyway", "REPLAYED" },
	[PROMPT_CLEAR_JOURNAL] = { "Discard the journal's contents", "DISCARDED" },
	[PROMPT_REPLAY_NO_FC] = { "Replay the journal without them", "REPLAYED" },
};

/* Row flags. */
#define PR_PREEN_OK	0x0001	/* preen may fix it without asking */
#define PR_NO_OK	0x0002	/* answering no does not leave an error */
#define PR_PREEN_NOMSG	0x0004	/* preen fixes it silently */
#define PR_NOT_A_FIX	0x0008	/* yes is not a repair (no exit bit 1) */
#define PR_NO_DEFAULT	0x0010	/* preen/-y answer no (a risky action) */
#define PR_FULL_CHECK	0x0020	/* leaves the need for a full check */
#define PR_NO_NOMSG	0x0040	/* -n: say nothing */
#define PR_DESTRUCTIVE	0x0080	/* yes clears, discards or deletes something:
				   see destructive[] below */

struct problem {
	int code;
	const char *msg;	/* template, see e4fsck.h */
	enum prompt prompt;
	unsigned flags;
};

static const struct problem table[] = {
	/* ---- superblock ---- */
	{ PR_0_SB_USE_BACKUP,
	  "The primary superblock is unusable (%e); using the backup at block %b.\n",
	  PROMPT_NONE, PR_FULL_CHECK },
	{ PR_0_SB_WRITE_PRIMARY,
	  "The primary superblock will be rewritten from the backup "
	  "(descriptors are left to the full check).\n",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_0_FUTURE_SB_LAST_MOUNT,
	  "The superblock's last mount time (%t, now %T) lies in the future.\n",
	  PROMPT_FIX, PR_PREEN_OK | PR_NO_OK },
	{ PR_0_FUTURE_SB_LAST_WRITE,
	  "The superblock's last write time (%t, now %T) lies in the future.\n",
	  PROMPT_FIX, PR_PREEN_OK | PR_NO_OK },
	{ PR_0_GD_BAD_LOCATION,
	  "Group %g's %s (block %b) %S.\n",
	  PROMPT_NONE, PR_FULL_CHECK },
	{ PR_0_GD_CSUM,
	  "Group descriptor %g fails its checksum (%x, expected %X).\n",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_0_GD_FREE_BLOCKS,
	  "Group %g's free blocks count is %n; its block bitmap says %N.\n",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_0_GD_FREE_INODES,
	  "Group %g's free inodes count is %n; its inode bitmap says %N.\n",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_0_GD_UNINIT_FLAGS,
	  "Group %g has uninit flags or an unused inodes count without a descriptor "
	  "checksum feature.\n",
	  PROMPT_CLEAR, PR_PREEN_OK },
	{ PR_0_ERRORS_RECORDED,
	  "The filesystem records errors from an earlier use.\n",
	  PROMPT_NONE, PR_FULL_CHECK },
	{ PR_0_ORPHAN_PRESENT_NO_FILE,
	  "The orphan_present feature is set without an orphan file.\n",
	  PROMPT_CLEAR, PR_PREEN_OK },

	/* ---- journal ---- */
	{ PR_0_JOURNAL_BAD_INODE,
	  "The superblock names an invalid journal (inode %i): %e.\n",
	  PROMPT_CLEAR, PR_PREEN_OK | PR_FULL_CHECK | PR_DESTRUCTIVE },
	{ PR_0_JOURNAL_NO_INODE,
	  "The has_journal feature is set but there is no journal.\n",
	  PROMPT_CLEAR, PR_PREEN_OK | PR_DESTRUCTIVE },
	{ PR_0_JOURNAL_RECOVER_NO_JOURNAL,
	  "The needs_recovery flag is set but there is no journal.\n",
	  PROMPT_CLEAR, PR_PREEN_OK },
	{ PR_0_JOURNAL_PRESENT_NO_FEATURE,
	  "The has_journal feature is clear but a journal (inode %i) is present.\n",
	  PROMPT_CLEAR, PR_PREEN_OK | PR_DESTRUCTIVE },
	{ PR_0_JOURNAL_BAD_SUPER,
	  "The journal superblock is corrupt (%e); the journal will be reset "
	  "and its contents not replayed.\n",
	  PROMPT_FIX, PR_PREEN_OK | PR_FULL_CHECK | PR_DESTRUCTIVE },
	{ PR_0_EXT_JOURNAL_SB_CSUM,
	  "The external journal's superblock fails its checksum.\n",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_0_JOURNAL_UNSUPPORTED,
	  "The journal cannot be used: %e.\n",
	  PROMPT_NONE, 0 },
	{ PR_0_JOURNAL_DATA_NO_RECOVER,
	  "The journal holds committed transactions but needs_recovery is not set.\n",
	  PROMPT_RUN, 0 },
	{ PR_0_JOURNAL_RESET,
	  "The journal's transactions will be discarded unreplayed.\n",
	  PROMPT_CLEAR_JOURNAL, PR_PREEN_OK | PR_DESTRUCTIVE },
	{ PR_0_JOURNAL_SKIP_READONLY,
	  "Warning: skipping journal recovery because doing a read-only "
	  "filesystem check.\n",
	  PROMPT_NONE, PR_NOT_A_FIX },
	{ PR_0_JOURNAL_RECOVERING,
	  "%d: recovering journal\n",
	  PROMPT_NONE, PR_NOT_A_FIX },
	{ PR_0_JOURNAL_CSUM_ERROR,
	  "Journal checksum error found in %d: %e.\n",
	  PROMPT_NONE, PR_FULL_CHECK },
	{ PR_0_JOURNAL_FAILED_COMMIT,
	  "Journal transaction %n was corrupt; replay stopped before it.\n",
	  PROMPT_NONE, PR_FULL_CHECK },
	{ PR_0_JOURNAL_RECOVERY_ERROR,
	  "Journal recovery of %d failed: %e.\n",
	  PROMPT_NONE, PR_FULL_CHECK },
	{ PR_0_JOURNAL_ERRNO,
	  "The journal recorded an error (errno %n); the filesystem is marked "
	  "as having errors.\n",
	  PROMPT_NONE, PR_NOT_A_FIX },
	{ PR_0_JOURNAL_FC_SKIPPED,
	  "Fast-commit records of transaction %n were not replayed "
	  "(not supported yet).\n",
	  PROMPT_NONE, PR_NOT_A_FIX },
	{ PR_0_JOURNAL_DELETED,
	  "*** the journal has been removed ***\n",
	  PROMPT_NONE, PR_NOT_A_FIX },

	/* ---- orphans ---- */
	{ PR_0_ORPHAN_RELEASE,
	  "%s orphaned inode %i (uid=%n, gid=%N, mode=0%S, size=%B)\n",
	  PROMPT_NONE, PR_NOT_A_FIX },
	{ PR_0_ORPHAN_BAD_INODE,
	  "Illegal inode %i in the orphaned inode list.\n",
	  PROMPT_NONE, PR_FULL_CHECK },
	{ PR_0_ORPHAN_ERROR,
	  "Orphan processing of inode %i stopped: %e.\n",
	  PROMPT_NONE, PR_FULL_CHECK },
	{ PR_0_ORPHAN_FILE_BAD,
	  "The orphan file (inode %i) is damaged: %e.\n",
	  PROMPT_NONE, PR_FULL_CHECK },

	/* ---- answer policy (issue 11) ---- */
	{ PR_0_JOURNAL_SB_CSUM,
	  "The journal superblock fails its checksum.\n",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_0_JOURNAL_FEATURE_SET,
	  "The journal is kept: the has_journal feature will be set again.\n",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_0_JOURNAL_FC_PENDING,
	  "Transaction %n of the journal ends in fast-commit records, which e4fsck "
	  "cannot replay yet (the kernel replays them at mount).\n",
	  PROMPT_REPLAY_NO_FC, PR_PREEN_OK | PR_DESTRUCTIVE },
	{ PR_0_EXT_JOURNAL_MISSING,
	  "The journal is on an external device (its UUID is the \"Journal UUID\" "
	  "of e4tune -l), which was not given: name it with -j external_journal.\n",
	  PROMPT_NONE, 0 },
	/* ---- superblock and descriptors (issue 11) ---- */
	{ PR_0_SB_USE_FAR_BACKUP,
	  "The primary superblock and the first backups are unusable (%e); "
	  "using the backup at block %b (group %g, %n-byte blocks), found by "
	  "searching every backup location.\n",
	  PROMPT_NONE, PR_FULL_CHECK },
	{ PR_0_SB_GEOMETRY,
	  "The superblock's %s is %n; the geometry says %N (no backup superblock "
	  "is usable, the value is recomputed).\n",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_0_GD_USE_COPY,
	  "Using the group descriptor copy kept with group %g's backup superblock "
	  "(block %b) for this run; the full check must rebuild the primary "
	  "descriptors.\n",
	  PROMPT_NONE, PR_FULL_CHECK },
	{ PR_0_GD_NO_GOOD_COPY,
	  "No copy of the group descriptors has sound locations; the full check "
	  "must rebuild them.\n",
	  PROMPT_NONE, PR_FULL_CHECK },
	{ PR_0_GD_BITMAP_UNUSABLE,
	  "Group %g's free counts cannot be checked against its bitmaps (%e); "
	  "the full check must rebuild them.\n",
	  PROMPT_NONE, PR_FULL_CHECK },
	{ PR_0_JOURNAL_STALE_NAME,
	  "The filesystem has an internal journal (inode %i), but the superblock "
	  "also names an external journal (%s).\n",
	  PROMPT_CLEAR, PR_PREEN_OK },
	{ PR_0_ROOT_UNMOUNTABLE,
	  "The root inode is one the kernel refuses at mount (%e); the full "
	  "check must repair it.\n",
	  PROMPT_NONE, PR_FULL_CHECK },
	{ PR_0_JOURNAL_REPOINT,
	  "Inode %i holds the journal: the superblock's s_journal_inum will name "
	  "it again.\n",
	  PROMPT_FIX, PR_PREEN_OK },
	{ PR_0_GD_BAD_FIELD,
	  "Group %g's %s is %S.\n",
	  PROMPT_NONE, PR_FULL_CHECK },
	{ PR_0_GD_CSUM_DAMAGE,
	  "Group descriptor %g fails its checksum (%x, expected %X) and its "
	  "fields cannot be confirmed: %s; it is left to the full check.\n",
	  PROMPT_NONE, PR_FULL_CHECK },
	{ PR_0_GD_UNINIT_COUNT,
	  "Group %g is marked %s, but its %S count is %n where that flag means "
	  "%N: the flag or the count is damaged.\n",
	  PROMPT_NONE, PR_FULL_CHECK },
};

/*
 * The destructive rows: what a yes destroys, when some of that can still
 * be recovered (the check then sets pctx->recoverable), and what happens
 * instead under -y: the non-destructive row asked next (alt), or nothing.
 * fix_problem() takes a destructive fix under -y and -p only when the
 * check found nothing recoverable; otherwise -p stops (exit 4) and -y
 * answers no.  e4fsck_list_destructive() prints this table as
 * doc/e4fsck-destructive.md (the build compares the committed copy).
 */
static const struct destructive {
	int code;
	const char *name;
	const char *destroys;		/* what a yes removes */
	const char *recoverable;	/* when the check sets pctx->recoverable */
	int alt;			/* non-destructive row asked after a no (0: none) */
	const char *instead;		/* what -y leaves when there is no alt */
} destructive[] = {
#define D(code, destroys, when, alt, instead) { code, #code, destroys, when, alt, instead }
	D(PR_0_JOURNAL_BAD_INODE,
	  "the journal inode and the log it maps; the blocks its map names are freed",
	  "needs_recovery is set (the log holds committed transactions), or the "
	  "inode's block map differs from the superblock's backup of it (the "
	  "blocks it names may be other files')", 0,
	  "the journal is left as it is"),
	D(PR_0_JOURNAL_NO_INODE,
	  "the journal: has_journal and needs_recovery are cleared, so the log "
	  "inode 8 holds is never replayed (its blocks are left to the full check)",
	  "s_journal_inum is 0 but inode 8 holds a journal (its block map is the "
	  "superblock's backup s_jnl_blocks, or it starts with a valid journal "
	  "superblock)", PR_0_JOURNAL_REPOINT, NULL),
	D(PR_0_JOURNAL_PRESENT_NO_FEATURE,
	  "the journal inode and the log it maps; the blocks its map names are freed",
	  "needs_recovery is set, the log holds committed transactions, or the "
	  "inode's block map differs from the superblock's backup of it",
	  PR_0_JOURNAL_FEATURE_SET, NULL),
	D(PR_0_JOURNAL_BAD_SUPER,
	  "the log (a fresh, empty journal superblock is written to the block the "
	  "inode's map names as the journal's first)",
	  "needs_recovery is set (the log holds committed transactions), or the "
	  "inode's block map differs from the superblock's backup of it (that "
	  "block may be another file's)", 0,
	  "the journal is left as it is"),
	D(PR_0_JOURNAL_RESET,
	  "the log's transactions",
	  "the log holds committed transactions (always, once the replay was declined)", 0,
	  "the journal is left as it is"),
	D(PR_0_JOURNAL_FC_PENDING,
	  "the fast-commit records of the last transaction (the replay empties the log)",
	  "always (the records hold committed changes, which the kernel replays)", 0,
	  "the journal is left for the kernel to replay at mount"),
#undef D
};

static const struct destructive *find_destructive(int code)
{
	for (size_t i = 0; i < sizeof(destructive) / sizeof(destructive[0]); i++)
		if (destructive[i].code == code)
			return &destructive[i];
	return NULL;
}

static const struct problem *find_problem(int code)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].code == code)
			return &table[i];
	return NULL;
}

void e4fsck_fmt_time(int64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(buf, len, "%a %b %e %H:%M:%S %Y", &tm))
		snprintf(buf, len, "%lld", (long long)t);
}

static void print_msg(struct e4fsck *ctx, const char *tpl, const struct problem_ctx *p)
{
	char tbuf[64];

	for (const char *s = tpl; *s; s++) {
		if (*s != '%' || !s[1]) {
			fputc(*s, stdout);
			continue;
		}
		switch (*++s) {
		case 'i': printf("%u", p->ino); break;
		case 'b': printf("%llu", (unsigned long long)p->blk); break;
		case 'B': printf("%llu", (unsigned long long)p->blk2); break;
		case 'g': printf("%u", p->group); break;
		case 'n': printf("%llu", (unsigned long long)p->num); break;
		case 'N': printf("%llu", (unsigned long long)p->num2); break;
		case 'x': printf("0x%llx", (unsigned long long)p->num); break;
		case 'X': printf("0x%llx", (unsigned long long)p->num2); break;
		case 's': fputs(p->str ? p->str : "", stdout); break;
		case 'S': fputs(p->str2 ? p->str2 : "", stdout); break;
		case 'e': fputs(p->err ? error_message(p->err) : "", stdout); break;
		case 'd': fputs(ctx->device, stdout); break;
		case 't':
			e4fsck_fmt_time((int64_t)p->num, tbuf, sizeof(tbuf));
			fputs(tbuf, stdout);
			break;
		case 'T':
			e4fsck_fmt_time(ctx->now, tbuf, sizeof(tbuf));
			fputs(tbuf, stdout);
			break;
		default: fputc(*s, stdout); break;
		}
	}
}

/* Ask on the terminal; default yes on an empty line. */
static int ask(struct e4fsck *ctx, const char *question)
{
	char line[64];

	for (;;) {
		printf("%s<y>? ", question);
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin)) {
			ctx->cancelled = 1;
			putchar('\n');
			return 0;
		}
		switch (tolower((unsigned char)line[0])) {
		case 'y': case '\n':
			printf("yes\n\n");
			return 1;
		case 'n':
			printf("no\n\n");
			return 0;
		case 'q':
			ctx->cancelled = 1;
			printf("cancelled\n\n");
			e4fsck_exit(ctx);
		default:
			break;
		}
	}
}

int fix_problem(struct e4fsck *ctx, int code, struct problem_ctx *pctx)
{
	const struct problem *p = find_problem(code);
	const struct destructive *d = find_destructive(code);
	struct problem_ctx empty = { 0 };
	int answer, quiet = 0, keep;

	if (!pctx)
		pctx = &empty;
	if (!p) {
		fprintf(stderr, "%s: internal error: unknown problem code %d\n", ctx->prog, code);
		return 0;
	}
	/* A destructive fix that would lose what can still be recovered is
	 * for a human to decide: never a default answer. */
	keep = (p->flags & PR_DESTRUCTIVE) && pctx->recoverable;
	if (!(p->flags & PR_NOT_A_FIX) && p->prompt != PROMPT_NONE)
		ctx->found++;
	if (ctx->answer == ANSWER_PREEN && p->prompt != PROMPT_NONE &&
	    (!(p->flags & PR_PREEN_OK) || keep)) {
		/* Not safe without a human: stop, as fsck -p users expect.
		 * Nothing more is written (what was fixed before stays). */
		printf("%s: ", ctx->device);
		print_msg(ctx, p->msg, pctx);
		if (keep)
			printf("%s: not done without a human: %s.\n", ctx->device,
			       pctx->recoverable);
		printf("\n%s: UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY.\n"
		       "\t(i.e., without -a or -p options)\n", ctx->device);
		ctx->uncorrected++;
		e4fsck_exit(ctx);
	}
	if (ctx->answer == ANSWER_PREEN && (p->flags & PR_PREEN_NOMSG))
		quiet = 1;
	if (ctx->answer == ANSWER_NO && (p->flags & PR_NO_NOMSG))
		quiet = 1;
	if (!quiet) {
		if (ctx->answer == ANSWER_PREEN && code != PR_0_JOURNAL_RECOVERING)
			printf("%s: ", ctx->device);
		print_msg(ctx, p->msg, pctx);
	}
	if (p->prompt == PROMPT_NONE) {
		if (p->flags & PR_FULL_CHECK)
			ctx->full_needed = 1;
		fflush(stdout);
		return 1;
	}

	switch (ctx->answer) {
	case ANSWER_NO:
		answer = 0;
		if (!quiet)
			printf("%s? no\n\n", prompts[p->prompt].question);
		break;
	case ANSWER_YES:
		answer = !(p->flags & PR_NO_DEFAULT) && !keep;
		if (!quiet && keep)
			printf("%s? no\n\t(not done by -y: %s%s%s)\n\n",
			       prompts[p->prompt].question, pctx->recoverable,
			       d && d->instead ? "; " : "", d && d->instead ? d->instead : "");
		else if (!quiet)
			printf("%s? %s\n\n", prompts[p->prompt].question, answer ? "yes" : "no");
		break;
	case ANSWER_PREEN:
		answer = !(p->flags & PR_NO_DEFAULT);
		if (!quiet)
			printf("%s%s\n", answer ? prompts[p->prompt].preen : "SKIPPED",
			       answer ? "." : ".");
		break;
	case ANSWER_ASK:
	default:
		answer = ask(ctx, prompts[p->prompt].question);
		break;
	}
	fflush(stdout);
	if (answer && !(p->flags & PR_NOT_A_FIX))
		ctx->fixed++;
	/* A no to a row with a non-destructive alternative is counted by
	 * the alternative, which the check asks next. */
	if (!answer && !(p->flags & PR_NO_OK) && !(d && d->alt))
		ctx->uncorrected++;
	if (p->flags & PR_FULL_CHECK)
		ctx->full_needed = 1;
	return answer;
}

static const char *answer_n(const struct problem *p)
{
	return p->flags & PR_NO_OK ? "no; nothing is written" :
	       "no; nothing is written, exit 4 (errors left)";
}

int e4fsck_list_destructive(FILE *f)
{
	int bad = 0;

	fprintf(f, "# e4fsck: destructive answers\n\n"
		"Generated by `e4fsck --list-destructive` from the problem table in\n"
		"fsck/problem.c; the build compares this file with what the table gives\n"
		"(`make update-destructive-doc` rewrites it).  Do not edit by hand.\n\n"
		"A destructive fix clears, discards or deletes something.  Under `-y` and\n"
		"`-p` e4fsck takes it only when the check found nothing that could still\n"
		"be recovered; otherwise `-p` stops (\"UNEXPECTED INCONSISTENCY\", exit 4)\n"
		"and `-y` answers no and takes the non-destructive path where one exists.\n"
		"Without `-n`, `-y` or `-p` e4fsck asks, and the answer is the user's.\n"
		"Messages are templates: %%i an inode, %%e an error message, %%n a number,\n"
		"%%s a string.\n");
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const struct problem *p = &table[i];
		const struct destructive *d = find_destructive(p->code);
		const struct problem *alt;

		if (!(p->flags & PR_DESTRUCTIVE) != !d) {
			fprintf(stderr, "e4fsck: problem %d: PR_DESTRUCTIVE and the destructive "
				"table disagree\n", p->code);
			bad = 1;
			continue;
		}
		if (!d)
			continue;
		alt = d->alt ? find_problem(d->alt) : NULL;
		fprintf(f, "\n## %s\n\n", d->name);
		fprintf(f, "- Message: \"");
		for (const char *s = p->msg; *s; s++)
			if (*s != '\n')
				fputc(*s, f);
		fprintf(f, "\"\n- Question: %s?\n", prompts[p->prompt].question);
		fprintf(f, "- A yes destroys: %s.\n", d->destroys);
		fprintf(f, "- Recoverable when: %s.\n", d->recoverable);
		fprintf(f, "- `-n`: %s.\n", answer_n(p));
		if (p->flags & PR_PREEN_OK)
			fprintf(f, "- `-p`: fixed when nothing is recoverable; otherwise e4fsck "
				"stops, exit 4.\n");
		else
			fprintf(f, "- `-p`: e4fsck stops, exit 4.\n");
		if (alt) {
			fprintf(f, "- `-y`: yes when nothing is recoverable; otherwise no, then "
				"\"");
			for (const char *s = alt->msg; *s; s++)
				if (*s != '\n')
					fputc(*s, f);
			fprintf(f, "\" (%s? yes).\n", prompts[alt->prompt].question);
		} else {
			fprintf(f, "- `-y`: yes when nothing is recoverable; otherwise no: %s "
				"(exit 4).\n", d->instead);
		}
	}
	for (size_t i = 0; i < sizeof(destructive) / sizeof(destructive[0]); i++) {
		const struct problem *p = find_problem(destructive[i].code);

		if (!p || !(p->flags & PR_DESTRUCTIVE)) {
			fprintf(stderr, "e4fsck: %s: in the destructive table but not a "
				"PR_DESTRUCTIVE row\n", destructive[i].name);
			bad = 1;
		}
	}
	return bad;
}

void e4fsck_error(struct e4fsck *ctx, errcode_t err, const char *what)
{
	if (what)
		fprintf(stderr, "%s: %s: %s %s\n", ctx->prog, ctx->device, error_message(err), what);
	else
		fprintf(stderr, "%s: %s: %s\n", ctx->prog, ctx->device, error_message(err));
}

int e4fsck_exit_code(const struct e4fsck *ctx)
{
	int code = FSCK_OK;

	if (ctx->fixed)
		code |= FSCK_NONDESTRUCT;
	if (ctx->uncorrected)
		code |= FSCK_UNCORRECTED;
	if (ctx->fatal)
		code |= FSCK_ERROR;
	if (ctx->cancelled)
		code |= FSCK_CANCELED;
	/* "Corrected" means nothing is left: drop it when errors remain. */
	if (code & FSCK_UNCORRECTED)
		code &= ~FSCK_NONDESTRUCT;
	return code;
}
