/*
 * problem.c: e4fsck's problem engine: the one answer policy.
 *
 * The rows live per pass in problems_passN.c (problem.h says how codes
 * are made); the documentation printed from them in problem_doc.c.
 * Checks call fix_problem(); whether the fix is applied comes from -n /
 * -y / -p or a question on the terminal, decided only in this file, and
 * the counters the exit status is computed from change only here.
 */
#include "e4fsck.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
	[PROMPT_CLONE]	= { "Clone the shared blocks", "CLONED" },
	[PROMPT_CONNECT] = { "Connect to /lost+found", "RECONNECTED" },
	[PROMPT_CREATE] = { "Create", "CREATED" },
	[PROMPT_ALLOCATE] = { "Allocate", "ALLOCATED" },
	[PROMPT_UNLINK] = { "Unlink", "UNLINKED" },
	[PROMPT_EXPAND] = { "Expand", "EXPANDED" },
};

const char *e4fsck_prompt_question(enum prompt p)
{
	return p < PROMPT_MAX ? prompts[p].question : NULL;
}

/* ---- the tables ---------------------------------------------------------- */

static const struct problem_pass *const passes[] = {
	&e4fsck_problems_pass0,
	&e4fsck_problems_pass1,
	&e4fsck_problems_pass1_map,
	&e4fsck_problems_pass1b,
	&e4fsck_problems_pass3,
	&e4fsck_problems_pass4,
	&e4fsck_problems_pass2,
	&e4fsck_problems_pass5,
};

const struct problem_pass *const *e4fsck_problem_passes(size_t *n)
{
	*n = sizeof(passes) / sizeof(passes[0]);
	return passes;
}

/* Rows are sorted by code within a table; a pass may have several tables,
 * each searched (tests/unit/test_problem.c checks codes are unique). */
const struct problem_row *e4fsck_problem_find(uint32_t code)
{
	for (size_t k = 0; k < sizeof(passes) / sizeof(passes[0]); k++) {
		const struct problem_pass *p = passes[k];
		size_t lo = 0, hi = p->nrows;

		if (p->pass != PR_PASS(code))
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (p->rows[mid].code == code)
				return &p->rows[mid];
			if (p->rows[mid].code < code)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	return NULL;
}

const struct problem_destructive *e4fsck_problem_destructive(uint32_t code)
{
	for (size_t k = 0; k < sizeof(passes) / sizeof(passes[0]); k++)
		for (size_t i = 0; i < passes[k]->ndestructive; i++)
			if (passes[k]->destructive[i].code == code)
				return &passes[k]->destructive[i];
	return NULL;
}

static const struct problem_latch_desc latches[] = {
	{ PR_LATCH_NONE, 0, 0 },
	{ PR_LATCH_BBITMAP, PR_5_BLOCK_BITMAP_HEADER, PR_5_BLOCK_BITMAP_END },
	{ PR_LATCH_IBITMAP, PR_5_INODE_BITMAP_HEADER, PR_5_INODE_BITMAP_END },
};

const struct problem_latch_desc *e4fsck_latch_desc(enum problem_latch latch)
{
	if ((unsigned)latch >= PR_LATCH_MAX || latches[latch].latch != latch)
		return NULL;
	return &latches[latch];
}

/* ---- messages and questions ---------------------------------------------- */

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
		case 'I': printf("%u", p->dir); break;
		case 'b': printf("%llu", (unsigned long long)p->blk); break;
		case 'C': printf("%llu", (unsigned long long)p->blkcount); break;
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

void e4fsck_error(struct e4fsck *ctx, errcode_t err, const char *what)
{
	if (what)
		fprintf(stderr, "%s: %s: %s %s\n", ctx->prog, ctx->device, error_message(err), what);
	else
		fprintf(stderr, "%s: %s: %s\n", ctx->prog, ctx->device, error_message(err));
}

/* ---- the counters ---------------------------------------------------------- */

void e4fsck_fail(struct e4fsck *ctx)
{
	ctx->fatal = 1;
}

void e4fsck_fail_msg(struct e4fsck *ctx, errcode_t err, const char *what)
{
	e4fsck_error(ctx, err, what);
	ctx->fatal = 1;
}

void e4fsck_left(struct e4fsck *ctx)
{
	ctx->uncorrected++;
}

/* Latch state bits (struct problem_state.latch). */
#define LATCH_STARTED	0x01	/* a member was said */
#define LATCH_ANSWERED	0x02	/* the start row asked its question */
#define LATCH_YES	0x04	/* ... and the answer was yes */

/* The tally of a row with a max_count (NULL without memory: then every
 * message is said). */
static struct problem_tally *tally_of(struct e4fsck *ctx, const struct problem_row *row)
{
	struct problem_state *st = &ctx->pr;

	for (size_t i = 0; i < st->ntally; i++)
		if (st->tally[i].row == row)
			return &st->tally[i];
	if (st->ntally == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 8;
		struct problem_tally *t = realloc(st->tally, cap * sizeof(*t));

		if (!t)
			return NULL;
		st->tally = t;
		st->cap = cap;
	}
	st->tally[st->ntally] = (struct problem_tally){ row, 0, 0 };
	return &st->tally[st->ntally++];
}

/* Is this message one too many (max_count reached)?  Counts it.  Never
 * when a human answers: they see what they answer. */
static int held_back(struct e4fsck *ctx, const struct problem_row *row)
{
	struct problem_tally *t;

	if (!row->max_count || ctx->answer == ANSWER_ASK || !(t = tally_of(ctx, row)))
		return 0;
	if (t->shown < row->max_count) {
		t->shown++;
		return 0;
	}
	t->hidden++;
	return 1;
}

/* A no whose alternative was not asked next is an error left. */
static void alt_settle(struct e4fsck *ctx, uint32_t next)
{
	if (ctx->pr.alt_pending && ctx->pr.alt_pending != next)
		ctx->uncorrected++;
	ctx->pr.alt_pending = 0;
}

void e4fsck_problem_summary(struct e4fsck *ctx)
{
	struct problem_state *st = &ctx->pr;

	alt_settle(ctx, 0);

	for (size_t i = 0; i < st->ntally; i++) {
		if (st->tally[i].hidden)
			printf("%s: %u more problem(s) %s (0x%06x) not shown.\n", ctx->device,
			       st->tally[i].hidden, st->tally[i].row->name,
			       (unsigned)st->tally[i].row->code);
	}
	st->ntally = 0;
	fflush(stdout);
}

void e4fsck_problem_release(struct e4fsck *ctx)
{
	free(ctx->pr.tally);
	memset(&ctx->pr, 0, sizeof(ctx->pr));
}

/* A latch member: start its group (say the start row, whose question, if
 * any, answers for every member). */
static void latch_start(struct e4fsck *ctx, enum problem_latch latch, struct problem_ctx *pctx)
{
	const struct problem_latch_desc *ld = e4fsck_latch_desc(latch);
	const struct problem_row *start;
	unsigned char *st;

	if (!ld)
		return;
	st = &ctx->pr.latch[ld->latch];
	if (*st & LATCH_STARTED)
		return;
	*st = LATCH_STARTED;
	if (!ld->start || !(start = e4fsck_problem_find(ld->start)))
		return;
	if (e4fsck_fix_row(ctx, start, pctx) && start->prompt != PROMPT_NONE)
		*st |= LATCH_ANSWERED | LATCH_YES;
	else if (start->prompt != PROMPT_NONE)
		*st |= LATCH_ANSWERED;
}

int e4fsck_latch_end(struct e4fsck *ctx, enum problem_latch latch, struct problem_ctx *pctx)
{
	const struct problem_latch_desc *ld = e4fsck_latch_desc(latch);
	unsigned char st;

	if (!ld || !((st = ctx->pr.latch[ld->latch]) & LATCH_STARTED))
		return 0;
	ctx->pr.latch[ld->latch] = 0;
	if (ld->end)
		return fix_problem(ctx, ld->end, pctx);
	return (st & LATCH_YES) != 0;
}

int fix_problem(struct e4fsck *ctx, uint32_t code, struct problem_ctx *pctx)
{
	const struct problem_row *p = e4fsck_problem_find(code);

	if (!p) {
		fprintf(stderr, "%s: internal error: unknown problem code 0x%06x\n", ctx->prog,
			(unsigned)code);
		ctx->fatal = 1;
		return 0;
	}
	return e4fsck_fix_row(ctx, p, pctx);
}

/* Preen meets a problem it must not fix alone: say it and stop (exit 4).
 * Nothing more is written (what was fixed before stays). */
static void preen_stop(struct e4fsck *ctx, const struct problem_row *p,
		       const struct problem_ctx *pctx, int keep)
{
	printf("%s: ", ctx->device);
	print_msg(ctx, p->msg, pctx);
	if (keep)
		printf("%s: not done without a human: %s.\n", ctx->device, pctx->recoverable);
	printf("\n%s: UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY.\n"
	       "\t(i.e., without -a or -p options)\n", ctx->device);
	ctx->uncorrected++;
	e4fsck_exit(ctx);
}

/* The answer to a row with a question, said as the mode says it. */
static int answer_row(struct e4fsck *ctx, const struct problem_row *p,
		      const struct problem_ctx *pctx, int quiet, int keep)
{
	const struct problem_destructive *d = e4fsck_problem_destructive(p->code);
	const char *q = prompts[p->prompt].question;
	int answer;

	switch (pctx->answer_no ? ANSWER_NO : ctx->answer) {
	case ANSWER_NO:
		answer = 0;
		if (!quiet)
			printf("%s? no\n\n", q);
		break;
	case ANSWER_YES:
		answer = !(p->flags & PR_NO_DEFAULT) && !keep;
		if (!quiet && keep)
			printf("%s? no\n\t(not done by -y: %s%s%s)\n\n", q, pctx->recoverable,
			       d && d->instead ? "; " : "", d && d->instead ? d->instead : "");
		else if (!quiet)
			printf("%s? %s\n\n", q, answer ? "yes" : "no");
		break;
	case ANSWER_PREEN:
		answer = !(p->flags & PR_NO_DEFAULT);
		if (!quiet)
			printf("%s.\n", answer ? prompts[p->prompt].preen : "SKIPPED");
		break;
	case ANSWER_ASK:
	default:
		answer = ask(ctx, q);
		break;
	}
	return answer;
}

int e4fsck_fix_row(struct e4fsck *ctx, const struct problem_row *p, struct problem_ctx *pctx)
{
	const struct problem_destructive *d;
	struct problem_ctx empty = { 0 };
	int answer, quiet = 0, keep;
	int member = p->latch > PR_LATCH_NONE && p->latch < PR_LATCH_MAX;
	enum e4fsck_answer mode;

	if (!pctx)
		pctx = &empty;
	alt_settle(ctx, p->code);
	if (member)
		latch_start(ctx, p->latch, pctx);
	/* A destructive fix that would lose what can still be recovered is
	 * for a human to decide: never a default answer. */
	keep = (p->flags & PR_DESTRUCTIVE) && pctx->recoverable;
	if (!(p->flags & PR_NOT_A_FIX) && p->prompt != PROMPT_NONE)
		ctx->found++;
	mode = pctx->answer_no ? ANSWER_NO : ctx->answer;
	if (mode == ANSWER_PREEN && p->prompt != PROMPT_NONE &&
	    (!(p->flags & PR_PREEN_OK) || keep))
		preen_stop(ctx, p, pctx, keep);
	if (mode == ANSWER_PREEN && (p->flags & PR_PREEN_NOMSG))
		quiet = 1;
	if (mode == ANSWER_NO && (p->flags & PR_NO_NOMSG))
		quiet = 1;
	if (!quiet && held_back(ctx, p))
		quiet = 1;
	if (!quiet) {
		if (mode == ANSWER_PREEN && !member && !(p->flags & PR_PREEN_NOHDR))
			printf("%s: ", ctx->device);
		print_msg(ctx, p->msg, pctx);
	}
	if (p->flags & PR_FULL_CHECK)
		ctx->full_needed = 1;
	if ((p->flags & PR_FULL_CHECK) && !(p->flags & PR_FULL_CHECK_P15))
		ctx->full_left = 1;
	if (p->prompt == PROMPT_NONE) {
		if (p->flags & PR_FATAL)
			ctx->fatal = 1;
		if (p->flags & (PR_FATAL | PR_LEFT))
			ctx->uncorrected++;
		fflush(stdout);
		if (member)
			return (ctx->pr.latch[p->latch] & LATCH_YES) != 0;
		return 1;
	}
	answer = answer_row(ctx, p, pctx, quiet, keep);
	fflush(stdout);
	d = e4fsck_problem_destructive(p->code);
	if (answer && !(p->flags & PR_NOT_A_FIX))
		ctx->fixed++;
	/* A no to a row with a non-destructive alternative is counted by
	 * the alternative when the check asks it next (alt_settle()). */
	if (!answer && !(p->flags & PR_NO_OK) && d && d->alt)
		ctx->pr.alt_pending = d->alt;
	else if (!answer && !(p->flags & PR_NO_OK))
		ctx->uncorrected++;
	else if (!answer && !(p->flags & PR_NOT_A_FIX))
		ctx->found_ok++;
	if (p->flags & PR_FATAL)
		ctx->fatal = 1;
	return answer;
}

int e4fsck_exit_code(const struct e4fsck *ctx)
{
	int code = FSCK_OK;

	if (ctx->fixed)
		code |= FSCK_NONDESTRUCT;
	if (ctx->uncorrected || ctx->pr.alt_pending)
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
