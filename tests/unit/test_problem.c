/*
 * test_problem.c: e4fsck's problem engine (fsck/problem.c) and its tables
 * (fsck/problems_pass*.c).
 *
 * Guards: the answer each mode (-n, -y, -p, a terminal) gives to each
 * flag combination and what it counts; latch groups (one header, one
 * question for the group); max_count's "N more"; the exit status derived
 * from the counts (1 fixed, 4 left, 8 operational, 32 cancelled); the
 * tables (codes unique, each in its own pass's file and order, templates
 * well formed, latch and destructive rows consistent).  A realistic bug
 * caught: -y taking a destructive fix while something is recoverable, or
 * a no under -n to a row without PR_NO_OK leaving exit 0.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "e4fsck.h"
#include "unit_capture.h"

/* ---- the run's stop (main.c's, here a jump back into the test) ---------- */

static jmp_buf *stop_at;

void e4fsck_exit(struct e4fsck *ctx)
{
	(void)ctx;
	longjmp(*stop_at, 1);
}

static void ctx_init(struct e4fsck *ctx, enum e4fsck_answer a)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->prog = "e4fsck";
	ctx->device = "dev";
	ctx->answer = a;
	ctx->read_only = a == ANSWER_NO;
}

/* ---- answers per flag combination --------------------------------------- */

struct answer_case {
	enum e4fsck_answer mode;
	enum prompt prompt;
	unsigned flags;
	const char *recoverable;
	int stops;		/* preen stops the run (e4fsck_exit()) */
	int answer;		/* fix_problem()'s return (when it returns) */
	int exit_code;		/* e4fsck_exit_code() afterwards */
	const char *out;	/* stdout, exactly */
};

static const struct answer_case answer_cases[] = {
	/* -n: always no; an error is left unless no is fine */
	{ ANSWER_NO, PROMPT_FIX, PR_PREEN_OK, NULL, 0, 0, 4, "Bad 7.\nFix? no\n\n" },
	{ ANSWER_NO, PROMPT_FIX, PR_NO_OK, NULL, 0, 0, 0, "Bad 7.\nFix? no\n\n" },
	{ ANSWER_NO, PROMPT_CLEAR, PR_DESTRUCTIVE | PR_PREEN_OK, NULL, 0, 0, 4,
	  "Bad 7.\nClear? no\n\n" },
	{ ANSWER_NO, PROMPT_FIX, PR_NO_NOMSG, NULL, 0, 0, 4, "" },
	/* -y: yes, except risky or destructive-with-something-recoverable */
	{ ANSWER_YES, PROMPT_FIX, 0, NULL, 0, 1, 1, "Bad 7.\nFix? yes\n\n" },
	{ ANSWER_YES, PROMPT_FIX, PR_NO_DEFAULT, NULL, 0, 0, 4, "Bad 7.\nFix? no\n\n" },
	{ ANSWER_YES, PROMPT_CLEAR, PR_DESTRUCTIVE, NULL, 0, 1, 1, "Bad 7.\nClear? yes\n\n" },
	{ ANSWER_YES, PROMPT_CLEAR, PR_DESTRUCTIVE, "a log", 0, 0, 4,
	  "Bad 7.\nClear? no\n\t(not done by -y: a log)\n\n" },
	{ ANSWER_YES, PROMPT_FIX, PR_NOT_A_FIX, NULL, 0, 1, 0, "Bad 7.\nFix? yes\n\n" },
	{ ANSWER_YES, PROMPT_FIX, PR_FATAL, NULL, 0, 1, 9, "Bad 7.\nFix? yes\n\n" },
	/* -p: what is PREEN_OK, else stop with exit 4 */
	{ ANSWER_PREEN, PROMPT_FIX, PR_PREEN_OK, NULL, 0, 1, 1, "dev: Bad 7.\nFIXED.\n" },
	{ ANSWER_PREEN, PROMPT_FIX, PR_PREEN_OK | PR_PREEN_NOMSG, NULL, 0, 1, 1, "" },
	{ ANSWER_PREEN, PROMPT_FIX, PR_PREEN_OK | PR_NO_DEFAULT, NULL, 0, 0, 4,
	  "dev: Bad 7.\nSKIPPED.\n" },
	{ ANSWER_PREEN, PROMPT_FIX, 0, NULL, 1, 0, 4,
	  "dev: Bad 7.\n\ndev: UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY.\n"
	  "\t(i.e., without -a or -p options)\n" },
	{ ANSWER_PREEN, PROMPT_CLEAR, PR_PREEN_OK | PR_DESTRUCTIVE, NULL, 0, 1, 1,
	  "dev: Bad 7.\nCLEARED.\n" },
	{ ANSWER_PREEN, PROMPT_CLEAR, PR_PREEN_OK | PR_DESTRUCTIVE, "a log", 1, 0, 4,
	  "dev: Bad 7.\ndev: not done without a human: a log.\n\n"
	  "dev: UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY.\n"
	  "\t(i.e., without -a or -p options)\n" },
	/* no question: said, returns 1; FATAL and LEFT count, the rest not */
	{ ANSWER_NO, PROMPT_NONE, 0, NULL, 0, 1, 0, "Bad 7.\n" },
	{ ANSWER_PREEN, PROMPT_NONE, 0, NULL, 0, 1, 0, "dev: Bad 7.\n" },
	{ ANSWER_PREEN, PROMPT_NONE, PR_PREEN_NOHDR, NULL, 0, 1, 0, "Bad 7.\n" },
	{ ANSWER_YES, PROMPT_NONE, PR_FULL_CHECK, NULL, 0, 1, 0, "Bad 7.\n" },
	{ ANSWER_YES, PROMPT_NONE, PR_LEFT, NULL, 0, 1, 4, "Bad 7.\n" },
	{ ANSWER_YES, PROMPT_NONE, PR_FATAL, NULL, 0, 1, 12, "Bad 7.\n" },
};

static void run_case(size_t i)
{
	const struct answer_case *c = &answer_cases[i];
	struct problem_row row = { 0x00ff01, "PR_0_TEST", "Bad %i.\n", c->prompt, c->flags,
				   PR_LATCH_NONE, 0 };
	struct problem_ctx pctx = { .ino = 7, .recoverable = c->recoverable };
	struct e4fsck ctx;
	jmp_buf jb;
	volatile int stopped = 0, answer = -1;
	const char *out;

	ctx_init(&ctx, c->mode);
	stop_at = &jb;
	cap_start();
	if (setjmp(jb))
		stopped = 1;
	else
		answer = e4fsck_fix_row(&ctx, &row, &pctx);
	out = cap_end();
	if (stopped != c->stops || (!stopped && answer != c->answer) ||
	    e4fsck_exit_code(&ctx) != c->exit_code || strcmp(out, c->out))
		fail_msg("case %zu: stopped %d answer %d exit %d output \"%s\"", i,
			 stopped, answer, e4fsck_exit_code(&ctx), out);
	/* found counts questions that are repairs */
	assert_int_equal(ctx.found, c->prompt != PROMPT_NONE && !(c->flags & PR_NOT_A_FIX));
	assert_int_equal(ctx.full_needed, !!(c->flags & PR_FULL_CHECK));
}

static void test_answers(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(answer_cases) / sizeof(answer_cases[0]); i++)
		run_case(i);
}

/* The terminal: an empty line is yes, "n" no, end of input cancels (32),
 * "q" cancels and stops the run. */
static int ask_with(const char *input, int *answer, struct e4fsck *ctx)
{
	struct problem_row row = { 0x00ff02, "PR_0_TEST", "Bad.\n", PROMPT_FIX, PR_PREEN_OK,
				   PR_LATCH_NONE, 0 };
	FILE *in = tmpfile();
	int saved = dup(0);
	jmp_buf jb;
	volatile int stopped = 0;

	assert_non_null(in);
	fputs(input, in);
	rewind(in);
	dup2(fileno(in), 0);
	clearerr(stdin);
	ctx_init(ctx, ANSWER_ASK);
	stop_at = &jb;
	cap_start();
	if (setjmp(jb))
		stopped = 1;
	else
		*answer = e4fsck_fix_row(ctx, &row, NULL);
	cap_end();
	dup2(saved, 0);
	close(saved);
	clearerr(stdin);
	fclose(in);
	return stopped;
}

static void test_ask(void **state)
{
	struct e4fsck ctx;
	int answer = -1;

	(void)state;
	assert_false(ask_with("\n", &answer, &ctx));
	assert_int_equal(answer, 1);
	assert_int_equal(e4fsck_exit_code(&ctx), 1);
	assert_false(ask_with("x\nn\n", &answer, &ctx));
	assert_int_equal(answer, 0);
	assert_int_equal(e4fsck_exit_code(&ctx), 4);
	assert_false(ask_with("", &answer, &ctx));
	assert_int_equal(answer, 0);
	assert_true(e4fsck_exit_code(&ctx) & FSCK_CANCELED);
	assert_true(ask_with("q\n", &answer, &ctx));
	assert_true(e4fsck_exit_code(&ctx) & FSCK_CANCELED);
}

/* ---- latch groups ------------------------------------------------------------ */

static int bitmap_diffs(struct e4fsck *ctx, const char **out)
{
	struct problem_ctx pctx = { 0 };
	int r;

	cap_start();
	pctx.blk = 5;
	assert_int_equal(fix_problem(ctx, PR_5_BLOCK_UNUSED, &pctx), 0);
	pctx.blk = 10;
	pctx.blk2 = 12;
	assert_int_equal(fix_problem(ctx, PR_5_BLOCK_RANGE_USED, &pctx), 0);
	r = e4fsck_latch_end(ctx, PR_LATCH_BBITMAP, &pctx);
	/* ended: a second end asks nothing */
	assert_int_equal(e4fsck_latch_end(ctx, PR_LATCH_BBITMAP, &pctx), 0);
	*out = cap_end();
	return r;
}

static void test_latch(void **state)
{
	struct e4fsck ctx;
	const char *out;

	(void)state;
	ctx_init(&ctx, ANSWER_YES);
	assert_int_equal(bitmap_diffs(&ctx, &out), 1);
	assert_string_equal(out, "Block bitmap differences:  -5 +(10--12)\nFix? yes\n\n");
	assert_int_equal(ctx.found, 1);
	assert_int_equal(ctx.fixed, 1);
	assert_int_equal(e4fsck_exit_code(&ctx), 1);

	ctx_init(&ctx, ANSWER_NO);
	assert_int_equal(bitmap_diffs(&ctx, &out), 0);
	assert_string_equal(out, "Block bitmap differences:  -5 +(10--12)\nFix? no\n\n");
	assert_int_equal(e4fsck_exit_code(&ctx), 4);

	ctx_init(&ctx, ANSWER_PREEN);
	assert_int_equal(bitmap_diffs(&ctx, &out), 1);
	assert_string_equal(out, "");
	assert_int_equal(e4fsck_exit_code(&ctx), 1);

	/* a group never started asks nothing and counts nothing */
	ctx_init(&ctx, ANSWER_YES);
	cap_start();
	assert_int_equal(e4fsck_latch_end(&ctx, PR_LATCH_IBITMAP, NULL), 0);
	assert_string_equal(cap_end(), "");
	assert_int_equal(e4fsck_exit_code(&ctx), 0);
}

/* ---- max_count ---------------------------------------------------------------- */

static void test_max_count(void **state)
{
	struct problem_row row = { 0x00ff03, "PR_0_TEST_MANY", "Bad %i.\n", PROMPT_FIX,
				   PR_PREEN_OK, PR_LATCH_NONE, 3 };
	struct problem_ctx pctx = { 0 };
	struct e4fsck ctx;
	const char *out;
	int yes = 0;

	(void)state;
	ctx_init(&ctx, ANSWER_YES);
	cap_start();
	for (unsigned i = 1; i <= 10; i++) {
		pctx.ino = i;
		yes += e4fsck_fix_row(&ctx, &row, &pctx);
	}
	e4fsck_problem_summary(&ctx);
	out = cap_end();
	/* every one answered and counted, three said, the rest summed up */
	assert_int_equal(yes, 10);
	assert_int_equal(ctx.fixed, 10);
	assert_string_equal(out, "Bad 1.\nFix? yes\n\nBad 2.\nFix? yes\n\nBad 3.\nFix? yes\n\n"
			    "dev: 7 more problem(s) PR_0_TEST_MANY (0x00ff03) not shown.\n");
	/* the summary starts the count again */
	cap_start();
	e4fsck_problem_summary(&ctx);
	pctx.ino = 11;
	e4fsck_fix_row(&ctx, &row, &pctx);
	assert_string_equal(cap_end(), "Bad 11.\nFix? yes\n\n");
	e4fsck_problem_release(&ctx);
}

/* ---- the exit status ----------------------------------------------------------- */

static void test_exit_code(void **state)
{
	struct problem_row yes = { 0x00ff04, "PR_0_T", "x\n", PROMPT_FIX, 0, PR_LATCH_NONE, 0 };
	struct problem_row no = { 0x00ff05, "PR_0_T", "x\n", PROMPT_FIX, PR_NO_DEFAULT,
				  PR_LATCH_NONE, 0 };
	struct e4fsck ctx;

	(void)state;
	ctx_init(&ctx, ANSWER_YES);
	assert_int_equal(e4fsck_exit_code(&ctx), 0);
	cap_start();
	e4fsck_fix_row(&ctx, &yes, NULL);
	cap_end();
	assert_int_equal(e4fsck_exit_code(&ctx), 1);
	cap_start();
	e4fsck_fix_row(&ctx, &no, NULL);
	cap_end();
	/* something left: not "corrected" */
	assert_int_equal(e4fsck_exit_code(&ctx), 4);
	e4fsck_fail(&ctx);
	assert_int_equal(e4fsck_exit_code(&ctx), 12);

	ctx_init(&ctx, ANSWER_NO);
	e4fsck_left(&ctx);
	assert_int_equal(e4fsck_exit_code(&ctx), 4);
	ctx_init(&ctx, ANSWER_NO);
	e4fsck_fail(&ctx);
	assert_int_equal(e4fsck_exit_code(&ctx), 8);
	/* an unknown code is an internal, operational error */
	ctx_init(&ctx, ANSWER_YES);
	assert_int_equal(fix_problem(&ctx, 0x7f0001, NULL), 0);
	assert_int_equal(e4fsck_exit_code(&ctx), 8);
}

/* ---- the tables ----------------------------------------------------------------- */

/* Only the directives print_msg() knows. */
static int template_ok(const char *msg)
{
	for (const char *s = msg; *s; s++) {
		if (*s != '%')
			continue;
		if (!s[1] || !strchr("iIbBCgnNxXsSedtT%", s[1]))
			return 0;
		s++;
	}
	return 1;
}

static void test_tables(void **state)
{
	size_t npass, total = 0;
	const struct problem_pass *const *passes = e4fsck_problem_passes(&npass);
	FILE *null = fopen("/dev/null", "w");

	(void)state;
	assert_true(npass >= 2);
	for (size_t k = 0; k < npass; k++) {
		const struct problem_pass *p = passes[k];
		char prefix[16];

		snprintf(prefix, sizeof(prefix), "PR_%u_", p->pass);
		for (size_t i = 0; i < p->nrows; i++) {
			const struct problem_row *r = &p->rows[i];

			total++;
			/* passes 1B-1D: PR_1B_, PR_1C_, PR_1D_ */
			int sub = p->pass == 1 && !strncmp(r->name, "PR_1", 4) &&
				  r->name[4] >= 'B' && r->name[4] <= 'D' && r->name[5] == '_';

			if (PR_PASS(r->code) != p->pass ||
			    (strncmp(r->name, prefix, strlen(prefix)) && !sub))
				fail_msg("%s (0x%06x) is in pass %u's file", r->name,
					 (unsigned)r->code, p->pass);
			if (i && r->code <= p->rows[i - 1].code)
				fail_msg("%s: not after %s", r->name, p->rows[i - 1].name);
			if (!template_ok(r->msg) || r->prompt >= PROMPT_MAX)
				fail_msg("%s: bad template or prompt", r->name);
			if (r->latch && r->prompt != PROMPT_NONE)
				fail_msg("%s: a latch member with a question", r->name);
			if ((r->flags & (PR_FATAL | PR_LEFT)) && r->prompt != PROMPT_NONE &&
			    (r->flags & PR_LEFT))
				fail_msg("%s: PR_LEFT on a question", r->name);
			assert_ptr_equal(e4fsck_problem_find(r->code), r);
			/* no code twice, in any pass */
			for (size_t k2 = 0; k2 < npass; k2++)
				for (size_t j = 0; j < passes[k2]->nrows; j++)
					if (&passes[k2]->rows[j] != r && passes[k2]->rows[j].code == r->code)
						fail_msg("0x%06x twice: %s and %s", (unsigned)r->code,
							 r->name, passes[k2]->rows[j].name);
		}
	}
	/* a pass may have several tables (pass 1: the driver's and the map
	 * checker's): their code ranges do not overlap */
	for (size_t k = 0; k < npass; k++)
		for (size_t k2 = 0; k2 < npass; k2++) {
			const struct problem_pass *a = passes[k], *b = passes[k2];

			if (k == k2 || !a->nrows || !b->nrows)
				continue;
			if (a->rows[0].code <= b->rows[b->nrows - 1].code &&
			    b->rows[0].code <= a->rows[a->nrows - 1].code)
				fail_msg("tables \"%s\" and \"%s\" overlap in codes", a->title,
					 b->title);
		}
	assert_non_null(e4fsck_problem_find(PR_1_MAP_EXTENT_FEATURE));
	assert_true(total >= 47 + 17);
	for (unsigned l = 1; l < PR_LATCH_MAX; l++) {
		const struct problem_latch_desc *ld = e4fsck_latch_desc(l);

		assert_non_null(ld);
		assert_true(!ld->start || e4fsck_problem_find(ld->start));
		assert_true(!ld->end || e4fsck_problem_find(ld->end));
	}
	/* the documentation generators find the tables consistent */
	assert_non_null(null);
	assert_int_equal(e4fsck_list_destructive(null), 0);
	assert_int_equal(e4fsck_list_problems(null), 0);
	fclose(null);
}

/* ---- every row under -n ----------------------------------------------------------- */

/* Ask one row as a check would under -n (a latch member's group ended,
 * a destructive row's alternative asked after the no when something is
 * recoverable); the exit status afterwards. */
static int row_under_n(const struct problem_row *r, const char *recoverable)
{
	const struct problem_destructive *d = e4fsck_problem_destructive(r->code);
	struct problem_ctx pctx = { .ino = 12, .recoverable = recoverable };
	struct e4fsck ctx;
	jmp_buf jb;
	int code;

	ctx_init(&ctx, ANSWER_NO);
	stop_at = &jb;
	cap_start();
	if (!setjmp(jb)) {
		if (!e4fsck_fix_row(&ctx, r, &pctx) && recoverable && d && d->alt)
			fix_problem(&ctx, d->alt, &pctx);
		if (r->latch)
			e4fsck_latch_end(&ctx, r->latch, &pctx);
	}
	cap_end();
	code = e4fsck_exit_code(&ctx);
	e4fsck_problem_release(&ctx);
	return code;
}

/* A row said and answered no under -n leaves exit bit 4, in every table,
 * unless it is documented as harmless: PR_NO_OK (no is fine), or a note
 * (no question, not PR_LEFT or PR_FATAL, not in a latch group whose end
 * row asks).  Guards a row escaping the count (a destructive row whose
 * alternative the check did not ask left -fn at exit 0). */
static void test_rows_under_n(void **state)
{
	size_t npass, checked = 0;
	const struct problem_pass *const *passes = e4fsck_problem_passes(&npass);

	(void)state;
	for (size_t k = 0; k < npass; k++)
		for (size_t i = 0; i < passes[k]->nrows; i++) {
			const struct problem_row *r = &passes[k]->rows[i];
			const struct problem_latch_desc *ld =
				r->latch ? e4fsck_latch_desc(r->latch) : NULL;
			int note = r->prompt == PROMPT_NONE && !(r->flags & (PR_LEFT | PR_FATAL)) &&
				   !(ld && ld->end);

			if (note || (r->flags & PR_NO_OK))
				continue;
			checked++;
			if (!(row_under_n(r, NULL) & FSCK_UNCORRECTED))
				fail_msg("%s (0x%06x): answered no under -n, exit bit 4 not set",
					 r->name, (unsigned)r->code);
			if ((r->flags & PR_DESTRUCTIVE) &&
			    !(row_under_n(r, "something") & FSCK_UNCORRECTED))
				fail_msg("%s (0x%06x): answered no under -n with something "
					 "recoverable, exit bit 4 not set", r->name, (unsigned)r->code);
		}
	assert_true(checked > 100);
}

/* A destructive row's no, then its alternative: the alternative's answer
 * counts (-y: yes, exit 1); the alternative not asked, the no is left
 * (exit 4), whatever is asked next. */
static void test_alt_counts(void **state)
{
	struct problem_ctx pctx = { .ino = 13, .recoverable = "a block map" };
	struct e4fsck ctx;

	(void)state;
	ctx_init(&ctx, ANSWER_YES);
	cap_start();
	assert_int_equal(fix_problem(&ctx, PR_1_MAP_ROOT_BAD, &pctx), 0);
	assert_int_equal(fix_problem(&ctx, PR_1_MAP_ROOT_AS_BLOCKMAP, &pctx), 1);
	cap_end();
	assert_int_equal(e4fsck_exit_code(&ctx), 1);

	ctx_init(&ctx, ANSWER_NO);
	pctx.recoverable = NULL;
	cap_start();
	assert_int_equal(fix_problem(&ctx, PR_1_MAP_ROOT_BAD, &pctx), 0);
	assert_int_equal(e4fsck_exit_code(&ctx), 4);
	fix_problem(&ctx, PR_1_BAD_I_SIZE, &pctx);
	e4fsck_problem_summary(&ctx);
	cap_end();
	assert_int_equal(ctx.uncorrected, 2);
	e4fsck_problem_release(&ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_answers),
		cmocka_unit_test(test_ask),
		cmocka_unit_test(test_latch),
		cmocka_unit_test(test_max_count),
		cmocka_unit_test(test_exit_code),
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_rows_under_n),
		cmocka_unit_test(test_alt_counts),
	};

	e4_init_errors();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
