/*
 * test_pass5.c: e4fsck's pass 5 (fsck/pass5.c) with a hand-made in-use
 * map on images made by mke2fs (ext4 with metadata_csum and flex_bg;
 * ext2).
 *
 * The true maps are the image's own bitmaps as mke2fs wrote them; the
 * test then damages the on-disk bitmaps (a used block and inode marked
 * free, a free range and inode marked used, the counts following them as
 * the library stores them) and a directories count.  Pass 5 under -n must
 * say exactly those differences, as ranges in order, and the counts, and
 * exit 4; under -y it must put back what mke2fs wrote (the reference
 * e2fsck -fn clean, when present) and a second -n run must say nothing.
 * A realistic bug caught: a range's end off by one, or the counts
 * compared after the bitmap repair instead of before (no message).
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
#include "unit_fsck.h"

struct truth {
	struct e4_bmap *blocks, *inodes;
	uint32_t dirs[64];
	e4_group_t groups;
	uint64_t used_blk, free_first;		/* U (group 0), F..F+4 (group 1) */
	uint32_t free0, free1, dirs0;
	uint64_t sb_free;
	int csum;			/* metadata_csum: a bitmap checksum damaged */
};

static const char *image;		/* the image a test works on */
static const char *ext4_image, *ext2_image;

/* The true maps; then the damage written to the image (csum_only: only
 * group 2's block bitmap checksum). */
static void make_case(struct truth *t, int csum_only)
{
	struct e4_bmap *bad_b, *bad_i;
	struct e4_group g0, g1;
	e4_fs *fs;

	assert_int_equal(e4_open(image, E4_OPEN_RW, 0, 0, &fs), 0);
	t->groups = e4_geom(fs)->group_count;
	assert_true(t->groups >= 2 && t->groups <= 64);
	assert_int_equal(e4_bmap_load_blocks(fs, E4_BMAP_RUNS, 0, NULL, NULL, &t->blocks), 0);
	assert_int_equal(e4_bmap_load_inodes(fs, E4_BMAP_RUNS, 0, NULL, NULL, &t->inodes), 0);
	for (e4_group_t g = 0; g < t->groups; g++) {
		struct e4_group d;

		assert_int_equal(e4_group_get(fs, g, &d), 0);
		t->dirs[g] = d.used_dirs;
	}
	assert_int_equal(e4_group_get(fs, 0, &g0), 0);
	assert_int_equal(e4_group_get(fs, 1, &g1), 0);
	t->free0 = g0.free_blocks;
	t->free1 = g1.free_blocks;
	t->dirs0 = g0.used_dirs;
	t->sb_free = e4_sb_free_blocks_count(e4_super(fs));
	assert_int_equal(e4_bmap_find_last_set(t->blocks, e4_group_first_block(fs, 0),
					       e4_group_last_block(fs, 0) + 1, &t->used_blk), 0);
	assert_int_equal(e4_bmap_find_zero_run(t->blocks, e4_group_first_block(fs, 1),
					       e4_group_last_block(fs, 1) + 1, 5,
					       &t->free_first), 0);
	/* the damage: U and inode 11 free, F..F+4 and inode 20 used */
	assert_int_equal(e4_bmap_copy(t->blocks, 0, &bad_b), 0);
	assert_int_equal(e4_bmap_copy(t->inodes, 0, &bad_i), 0);
	assert_int_equal(e4_bmap_clear(bad_b, t->used_blk), 0);
	assert_int_equal(e4_bmap_set_range(bad_b, t->free_first, 5), 0);
	assert_int_equal(e4_bmap_clear(bad_i, 11), 0);
	assert_int_equal(e4_bmap_set(bad_i, 20), 0);
	if (!csum_only) {
		assert_int_equal(e4_bmap_store_blocks(fs, bad_b, 0), 0);
		assert_int_equal(e4_bmap_store_inodes(fs, bad_i, 0), 0);
		assert_int_equal(e4_group_set_field(fs, 0, E4_GDF_USED_DIRS, t->dirs0 + 1), 0);
	}
	/* with metadata_csum, group 2's block bitmap (initialised, bits
	 * untouched) fails its checksum */
	t->csum = e4_geom(fs)->metadata_csum;
	if (t->csum) {
		struct e4_group g2;

		assert_int_equal(e4_group_get(fs, 2, &g2), 0);
		assert_int_equal(e4_group_set_field(fs, 2, E4_GDF_BLOCK_BITMAP_CSUM,
						    g2.block_bitmap_csum ^ 1), 0);
	}
	assert_int_equal(e4_flush_primary(fs, 1), 0);
	assert_int_equal(e4_close(fs), 0);
	e4_bmap_free(bad_b);
	e4_bmap_free(bad_i);
}

/* Pass 5 over the image with answer mode a (report_only: its input's
 * flag): its output, *rc the exit status. */
static const char *run_pass5_in(const struct truth *t, enum e4fsck_answer a, int report_only,
				int *rc)
{
	struct e4fsck_pass5_input in = { t->blocks, t->inodes, t->dirs, report_only };
	struct e4fsck ctx;
	const char *out;

	unit_fsck_open(&ctx, image, a);
	cap_start();
	assert_int_equal(e4fsck_pass5(&ctx, &in), 0);
	out = cap_end();
	unit_fsck_close(&ctx);
	*rc = e4fsck_exit_code(&ctx);
	assert_int_equal(ctx.answer, a);	/* the context is left alone */
	assert_int_equal(ctx.read_only, a == ANSWER_NO);
	return out;
}

static const char *run_pass5(const struct truth *t, enum e4fsck_answer a, int *rc)
{
	return run_pass5_in(t, a, 0, rc);
}

/* -n says the whole damage and exits 4, -y the same and exits 1, a
 * second -n nothing, and the reference is clean. */
static void full_case(const char *img)
{
	struct truth t = { 0 };
	char want[2048];
	const char *out;
	int rc;

	if (!unit_fsck_imgs.ok)
		skip();
	image = img;
	make_case(&t, 0);
	for (int yes = 0; yes < 2; yes++) {
		const char *a = yes ? "yes" : "no";

		snprintf(want, sizeof(want),
			 "Pass 5: Checking group summary information\n"
			 "Block bitmap differences:  +%llu -(%llu--%llu)\nFix? %s\n\n"
			 "%s%s%s"
			 "Inode bitmap differences:  +11 -20\nFix? %s\n\n"
			 "Group 0's free blocks count is %u; counted %u.\nFix? %s\n\n"
			 "Group 0's directories count is %u; counted %u.\nFix? %s\n\n"
			 "Group 1's free blocks count is %u; counted %u.\nFix? %s\n\n"
			 "The superblock's free blocks count is %llu; counted %llu.\n"
			 "Fix? %s\n\n",
			 (unsigned long long)t.used_blk, (unsigned long long)t.free_first,
			 (unsigned long long)t.free_first + 4, a,
			 t.csum ? "Group 2's block bitmap fails its checksum.\nFix? " : "",
			 t.csum ? a : "", t.csum ? "\n\n" : "", a, t.free0 + 1, t.free0, a,
			 t.dirs0 + 1, t.dirs0, a, t.free1 - 5, t.free1, a,
			 (unsigned long long)t.sb_free - 4, (unsigned long long)t.sb_free, a);
		/* -n: said, nothing written, exit 4; then -y: repaired, exit 1 */
		out = run_pass5(&t, yes ? ANSWER_YES : ANSWER_NO, &rc);
		assert_string_equal(out, want);
		assert_int_equal(rc, yes ? FSCK_NONDESTRUCT : FSCK_UNCORRECTED);
	}
	/* a second look finds nothing */
	out = run_pass5(&t, ANSWER_NO, &rc);
	assert_string_equal(out, "Pass 5: Checking group summary information\n");
	assert_int_equal(rc, FSCK_OK);
	if (!access("/sbin/e2fsck", X_OK)) {
		char cmd[256];

		snprintf(cmd, sizeof(cmd), "/sbin/e2fsck -fn %s >/dev/null 2>&1", image);
		assert_int_equal(system(cmd), 0);
	}
	e4_bmap_free(t.blocks);
	e4_bmap_free(t.inodes);
}

static void test_pass5(void **state)
{
	(void)state;
	full_case(ext4_image);
}

/* ext2: no checksums, no flex_bg, no uninit flags */
static void test_pass5_ext2(void **state)
{
	(void)state;
	full_case(ext2_image);
}

/* Pass 5 in mode a over the damage make_case(csum_only) makes: its
 * output is want and its exit 1; a second look (-n) finds nothing. */
static void repair_once(enum e4fsck_answer a, int csum_only, const char *want)
{
	struct truth t = { 0 };
	const char *out;
	int rc;

	if (!unit_fsck_imgs.ok)
		skip();
	image = ext4_image;
	make_case(&t, csum_only);
	out = run_pass5(&t, a, &rc);
	assert_string_equal(out, want);
	assert_int_equal(rc, FSCK_NONDESTRUCT);
	out = run_pass5(&t, ANSWER_NO, &rc);
	assert_string_equal(out, "Pass 5: Checking group summary information\n");
	assert_int_equal(rc, FSCK_OK);
	e4_bmap_free(t.blocks);
	e4_bmap_free(t.inodes);
}

/* -p: the same damage repaired silently. */
static void test_pass5_preen(void **state)
{
	(void)state;
	repair_once(ANSWER_PREEN, 0, "");
}

/* Only a checksum is wrong (the bits are right): said, and on a yes the
 * bitmap is written again with its checksum. */
static void test_pass5_csum(void **state)
{
	(void)state;
	repair_once(ANSWER_YES, 1, "Pass 5: Checking group summary information\n"
		    "Group 2's block bitmap fails its checksum.\nFix? yes\n\n");
}

/* report_only (pass 1's maps unfit to rebuild from): under -y and -p
 * everything is said and answered no, exit 4, nothing written (a -n run
 * afterwards says the same), the context's mode untouched. */
static void test_pass5_report_only(void **state)
{
	struct truth t = { 0 };
	char said[4096];
	const char *out;
	int rc;

	(void)state;
	if (!unit_fsck_imgs.ok)
		skip();
	image = ext4_image;
	make_case(&t, 0);
	for (int preen = 0; preen < 2; preen++) {
		out = run_pass5_in(&t, preen ? ANSWER_PREEN : ANSWER_YES, 1, &rc);
		assert_int_equal(rc, FSCK_UNCORRECTED);
		assert_non_null(strstr(out, "Block bitmap differences:"));
		assert_null(strstr(out, "yes"));
		snprintf(said, sizeof(said), "%s", out);
		out = run_pass5(&t, ANSWER_NO, &rc);
		assert_int_equal(rc, FSCK_UNCORRECTED);
		/* the same (preen prints no pass header) */
		assert_string_equal(out + (preen ? strlen(out) - strlen(said) : 0), said);
	}
	e4_bmap_free(t.blocks);
	e4_bmap_free(t.inodes);
}

static int setup(void **state)
{
	(void)state;
	/* 4 groups of 2048 1 KiB blocks, ext4 with metadata_csum and flex_bg */
	if (!(ext4_image = unit_fsck_ext4_image("pass5")))
		return -1;
	ext2_image = unit_image_add(&unit_fsck_imgs, "ext2.img", "-t ext2 -b 1024 -g 2048", "8M");
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pass5),
		cmocka_unit_test(test_pass5_ext2),
		cmocka_unit_test(test_pass5_preen),
		cmocka_unit_test(test_pass5_csum),
		cmocka_unit_test(test_pass5_report_only),
	};

	e4_init_errors();
	return cmocka_run_group_tests(tests, setup, unit_fsck_teardown);
}
