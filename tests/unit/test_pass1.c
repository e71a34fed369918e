/*
 * test_pass1.c: pass 1's maps (fsck/pass1_meta.c) on images made by
 * mke2fs: the metadata marked, claims by the map checker's callbacks
 * (check_map.h), blocks claimed twice, a claim undone, a cleared inode's
 * release, bigalloc clusters two extents of one file share, xattr block
 * references.  The release and undo paths run only when the map checker
 * drops or clears something, which the integration tests cannot make the
 * stand-in checker do.
 * A realistic bug caught: an undone claim that frees a cluster another
 * inode still holds (pass 5 then frees it on disk).
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

#include "pass1.h"
#include "unit_fsck.h"

static const char *ext4_image, *bigalloc_image;

struct fixture {
	struct e4fsck ctx;
	struct pass1 p;
	e4_blk_t free_first;	/* 64 free blocks (whole clusters) */
};

static void open_fixture(struct fixture *f, const char *image)
{
	struct e4_bmap *disk;
	uint64_t first;

	memset(f, 0, sizeof(*f));
	unit_fsck_open(&f->ctx, image, ANSWER_NO);
	f->p.ctx = &f->ctx;
	f->p.fs = f->ctx.fs;
	f->p.geo = e4_geom(f->ctx.fs);
	assert_int_equal(p1_maps_create(&f->p), 0);
	assert_int_equal(p1_mark_metadata(&f->p), 0);
	assert_int_equal(e4_bmap_load_blocks(f->p.fs, E4_BMAP_RUNS, 0, NULL, NULL, &disk), 0);
	assert_int_equal(e4_bmap_find_zero_run(disk, e4_bmap_start(disk), e4_bmap_end(disk),
					       64 >> f->p.geo->cluster_bits, &first), 0);
	f->free_first = first << f->p.geo->cluster_bits;
	e4_bmap_free(disk);
}

static void close_fixture(struct fixture *f)
{
	p1_maps_free(&f->p);
	unit_fsck_close(&f->ctx);
}

/* Every metadata block is in use: refused as a file's tree or indirect
 * block; a file's data over it is claimed twice (passes 1B-1D clone it
 * out, as e2fsck does). */
static void test_metadata(void **state)
{
	struct fixture f;
	struct e4_group g0;

	(void)state;
	open_fixture(&f, ext4_image);
	assert_int_equal(e4_group_get(f.p.fs, 0, &g0), 0);
	assert_true(e4_bmap_test(f.p.inuse, g0.block_bitmap));
	assert_true(e4_bmap_range_all_set(f.p.inuse, g0.inode_table,
					  f.p.geo->inode_blocks_per_group));
	assert_true(e4_bmap_test(f.p.inuse, f.p.geo->first_data_block));	/* superblock */
	p1_inode_begin(&f.p, 12);
	assert_int_equal(p1_claim_ops.claim(&f.p, 12, g0.inode_bitmap, 1, 1), CLAIM_META);
	assert_int_equal(p1_inode_clusters(&f.p), 0);
	assert_int_equal(p1_claim_ops.claim(&f.p, 12, g0.inode_bitmap, 1, 0), CLAIM_OK);
	assert_int_equal(f.p.ndup, 1);
	assert_true(e4_bmap_test(f.p.dup, g0.inode_bitmap >> f.p.geo->cluster_bits));
	close_fixture(&f);
}

/* Two inodes claim overlapping ranges: the second is counted and
 * recorded; undoing its claim keeps the shared blocks in use. */
static void test_dup_and_unclaim(void **state)
{
	struct fixture f;
	e4_blk_t a;

	(void)state;
	open_fixture(&f, ext4_image);
	a = f.free_first;
	p1_inode_begin(&f.p, 12);
	assert_int_equal(p1_claim_ops.claim(&f.p, 12, a, 10, 0), CLAIM_OK);
	assert_int_equal(p1_claim_ops.claim(&f.p, 12, a + 10, 1, 1), CLAIM_OK);
	assert_int_equal(p1_inode_clusters(&f.p), 11);
	assert_int_equal(f.p.ndup, 0);

	p1_inode_begin(&f.p, 13);
	assert_int_equal(p1_claim_ops.claim(&f.p, 13, a + 5, 20, 0), CLAIM_OK);
	assert_int_equal(f.p.ndup, 6);			/* a+5 .. a+10 */
	assert_true(e4_bmap_range_all_set(f.p.dup, a + 5, 6));
	assert_false(e4_bmap_test(f.p.dup, a + 11));
	/* undone: a+11 .. a+24 free again, the shared ones still in use */
	p1_claim_ops.unclaim(&f.p, 13, a + 5, 20, 0);
	assert_true(e4_bmap_range_all_set(f.p.inuse, a, 11));
	assert_true(e4_bmap_range_all_clear(f.p.inuse, a + 11, 14));
	assert_int_equal(p1_inode_clusters(&f.p), 0);

	/* a cleared inode releases what it alone claimed */
	p1_inode_begin(&f.p, 14);
	assert_int_equal(p1_claim_ops.claim(&f.p, 14, a + 30, 4, 0), CLAIM_OK);
	assert_int_equal(p1_claim_ops.claim(&f.p, 14, a + 40, 2, 0), CLAIM_OK);
	p1_inode_release(&f.p, 0);
	assert_true(e4_bmap_range_all_clear(f.p.inuse, a + 30, 12));
	assert_int_equal(f.p.nown, 0);
	close_fixture(&f);
}

/* Part of a claim undone: the rest stays the inode's. */
static void test_unclaim_middle(void **state)
{
	struct fixture f;
	e4_blk_t a;

	(void)state;
	open_fixture(&f, ext4_image);
	a = f.free_first;
	p1_inode_begin(&f.p, 12);
	assert_int_equal(p1_claim_ops.claim(&f.p, 12, a, 20, 0), CLAIM_OK);
	p1_claim_ops.unclaim(&f.p, 12, a + 5, 5, 0);
	assert_int_equal(p1_inode_clusters(&f.p), 15);
	assert_true(e4_bmap_range_all_set(f.p.inuse, a, 5));
	assert_true(e4_bmap_range_all_clear(f.p.inuse, a + 5, 5));
	assert_true(e4_bmap_range_all_set(f.p.inuse, a + 10, 10));
	close_fixture(&f);
}

/* bigalloc: two extents of one file in one cluster are its own; another
 * inode in that cluster claims it twice. */
static void test_bigalloc(void **state)
{
	struct fixture f;
	unsigned per;
	e4_blk_t a;

	(void)state;
	open_fixture(&f, bigalloc_image);
	per = 1u << f.p.geo->cluster_bits;
	assert_true(per > 1);
	a = f.free_first;
	p1_inode_begin(&f.p, 12);
	assert_int_equal(p1_claim_ops.claim(&f.p, 12, a, 2, 0), CLAIM_OK);
	assert_int_equal(p1_claim_ops.claim(&f.p, 12, a + 3, 1, 0), CLAIM_OK);
	assert_int_equal(p1_claim_ops.claim(&f.p, 12, a + per, per, 0), CLAIM_OK);
	assert_int_equal(f.p.ndup, 0);
	assert_int_equal(p1_inode_clusters(&f.p), 2);
	p1_inode_begin(&f.p, 13);
	assert_int_equal(p1_claim_ops.claim(&f.p, 13, a + 5, 1, 0), CLAIM_OK);
	assert_int_equal(f.p.ndup, 1);
	close_fixture(&f);
}

/* An xattr block named by two inodes is claimed once and counted twice;
 * one no inode names any more is released at the end. */
static void test_xattr_refs(void **state)
{
	struct fixture f;
	e4_blk_t a;

	(void)state;
	open_fixture(&f, ext4_image);
	a = f.free_first;
	p1_inode_begin(&f.p, 12);
	assert_int_equal(p1_xattr_ref(&f.p, 12, a), CLAIM_OK);
	p1_inode_begin(&f.p, 13);
	assert_int_equal(p1_xattr_ref(&f.p, 13, a), CLAIM_OK);
	assert_int_equal(f.p.ndup, 0);
	assert_int_equal(f.p.nxrefs, 2);
	p1_inode_begin(&f.p, 14);
	assert_int_equal(p1_xattr_ref(&f.p, 14, a + 1), CLAIM_OK);
	p1_inode_release(&f.p, 1);	/* inode 14 cleared */
	/* the blocks hold no xattr header: refcounts are not read (errors
	 * skip the comparison); a + 1 is no longer in use */
	assert_int_equal(p1_xattr_refcounts(&f.p), 0);
	assert_true(e4_bmap_test(f.p.inuse, a));
	assert_false(e4_bmap_test(f.p.inuse, a + 1));
	close_fixture(&f);
}

static int setup(void **state)
{
	(void)state;
	if (!(ext4_image = unit_fsck_ext4_image("pass1")))
		return -1;
	bigalloc_image = unit_image_add(&unit_fsck_imgs, "bigalloc.img",
					"-t ext4 -b 1024 -O bigalloc -C 16384", "16M");
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metadata),
		cmocka_unit_test(test_dup_and_unclaim),
		cmocka_unit_test(test_unclaim_middle),
		cmocka_unit_test(test_bigalloc),
		cmocka_unit_test(test_xattr_refs),
	};

	e4_init_errors();
	return cmocka_run_group_tests(tests, setup, unit_fsck_teardown);
}
