/* Unit tests for the directory records and link counts passes 1-4 share
 * (fsck/dirinfo.h): dirs_add in and out of order, find, remove; link
 * counts against a plain array model over random operations (fixed seed),
 * the values 0, 1 and above (a bit, then a table entry), saturation, the
 * inode-number bounds, and memory for a million inodes of count 1. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>
#include "dirinfo.h"

static void test_dirs(void **state)
{
	struct e4fsck_dirs d = { 0 };
	e4_ino_t order[] = { 2, 11, 12, 40, 7, 41, 3, 12 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		assert_int_equal(dirs_add(&d, order[i]), 0);
	assert_int_equal(d.n, 7);	/* 12 twice: once */
	for (i = 1; i < d.n; i++)
		assert_true(d.v[i - 1].ino < d.v[i].ino);
	assert_non_null(dirs_find(&d, 7));
	assert_null(dirs_find(&d, 8));
	assert_null(dirs_find(&d, 100));
	assert_int_equal(dirs_find(&d, 2)->parent, 2);	/* the root */
	assert_int_equal(dirs_find(&d, 11)->parent, 0);
	dirs_find(&d, 40)->dotdot = 12;
	dirs_remove(&d, 12);
	dirs_remove(&d, 13);
	assert_int_equal(d.n, 6);
	assert_null(dirs_find(&d, 12));
	assert_int_equal(dirs_find(&d, 40)->dotdot, 12);
	dirs_free(&d);
	assert_int_equal(d.n, 0);
}

static uint64_t rng = 42;

static uint32_t rnd(uint32_t n)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng >> 33) % n;
}

static void test_links_model(void **state)
{
	enum { N = 5000 };
	struct e4fsck_links *l;
	static uint32_t stored[N + 1], counted[N + 1];
	e4_ino_t ino;
	int i;

	(void)state;
	assert_int_equal(links_create(N, &l), 0);
	for (i = 0; i < 200000; i++) {
		ino = 1 + rnd(N);
		switch (rnd(5)) {
		case 0:
			stored[ino] = rnd(4) ? rnd(3) : rnd(70000);
			assert_int_equal(links_set_stored(l, ino, stored[ino]), 0);
			break;
		case 1:
		case 2:
			assert_int_equal(links_inc(l, ino), 0);
			counted[ino]++;
			break;
		case 3:
			assert_int_equal(links_dec(l, ino), 0);
			if (counted[ino])
				counted[ino]--;
			break;
		default:
			counted[ino] = rnd(3);
			assert_int_equal(links_set_counted(l, ino, counted[ino]), 0);
		}
	}
	for (ino = 1; ino <= N; ino++) {
		assert_int_equal(links_stored(l, ino), stored[ino]);
		assert_int_equal(links_counted(l, ino), counted[ino]);
	}
	links_free(l);
}

static void test_links_edges(void **state)
{
	struct e4fsck_links *l;

	(void)state;
	assert_int_equal(links_create(100, &l), 0);
	assert_int_equal(links_set_stored(l, 0, 1), E4_ERR_BAD_INODE_NUM);
	assert_int_equal(links_set_stored(l, 101, 1), E4_ERR_BAD_INODE_NUM);
	assert_int_equal(links_inc(l, 101), E4_ERR_BAD_INODE_NUM);
	assert_int_equal(links_counted(l, 101), 0);
	assert_int_equal(links_set_stored(l, 100, 65535), 0);
	assert_int_equal(links_stored(l, 100), 65535);
	assert_int_equal(links_set_counted(l, 5, UINT32_MAX), 0);
	assert_int_equal(links_inc(l, 5), 0);
	assert_int_equal(links_counted(l, 5), UINT32_MAX);
	assert_int_equal(links_dec(l, 6), 0);
	assert_int_equal(links_counted(l, 6), 0);
	links_free(l);
}

/* A million inodes each linked once cost bits, not table entries. */
static void test_links_memory(void **state)
{
	struct e4fsck_links *l;
	e4_ino_t ino;

	(void)state;
	assert_int_equal(links_create(1000000, &l), 0);
	for (ino = 1; ino <= 1000000; ino++) {
		assert_int_equal(links_set_stored(l, ino, 1), 0);
		assert_int_equal(links_inc(l, ino), 0);
	}
	assert_true(links_memory(l) < 64 * 1024);
	for (ino = 1; ino <= 1000; ino++)
		assert_int_equal(links_set_stored(l, ino * 997, 2), 0);
	assert_true(links_memory(l) < 64 * 1024 + 1000 * 16 * 2);
	assert_int_equal(links_stored(l, 997), 2);
	assert_int_equal(links_stored(l, 998), 1);
	links_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dirs),
		cmocka_unit_test(test_links_model),
		cmocka_unit_test(test_links_edges),
		cmocka_unit_test(test_links_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
