/* Unit tests for the allocator (alloc.c, alloc_policy.c, alloc_inode.c;
 * alloc.h) on small mke2fs images:
 *  - full groups are skipped by their descriptor counts: a read hook sees
 *    no read of their bitmaps;
 *  - range allocation: the first run of N at or after the goal, else the
 *    longest run (>= min), wrapping; runs crossing a group boundary;
 *  - goals: the inode's group, flex_bg data area, regular files one group
 *    later with 4 groups per flex group, last + 1;
 *  - bigalloc: whole clusters, descriptor counts in clusters, superblock
 *    counts in blocks;
 *  - the caller's maps (e4fsck's hook): allocation from them, nothing on
 *    disk changed until e4_bmap_store_*;
 *  - INODE_UNINIT / BLOCK_UNINIT groups initialised, the inode table's
 *    never-used part zeroed up to a new inode (garbage planted there);
 *  - directories spread over flex groups under the root, subdirectories
 *    and files near their parent: written as real directories and files,
 *    the image judged by the reference e2fsck -fn, debugfs and the kernel.
 * Images that changed end clean for the reference e2fsck -fn.
 * Catches: a full group's bitmap read anyway, a run that stops at a group
 * boundary, a bigalloc count in the wrong unit, a hook allocation that
 * writes the on-disk bitmaps, garbage left in the inode table below a
 * new inode (e2fsck then finds phantom inodes).
 * Needs mke2fs, debugfs and e2fsck (REF_* or PATH); skipped without. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "e4.h"
#include "extent.h"
#include "unit_images.h"
#include "unit_oracle.h"

static struct unit_images imgs;
static const char *img_skip, *img_range, *img_flex, *img_flex4, *img_big, *img_uninit,
	*img_hook;

#define BASE_OPTS "-t ext4 -O ^has_journal -b 1024 -g 1024 -E lazy_itable_init=1,nodiscard "

static int setup(void **state)
{
	(void)state;
	e4_init_errors();
	if (unit_images_init(&imgs, "test_alloc"))
		return -1;
	/* 8 groups of 1024 blocks, 32 inodes each, bitmaps in their groups */
	img_skip = unit_image_add(&imgs, "skip", BASE_OPTS "-O ^flex_bg -N 256", "8M");
	img_range = unit_image_add(&imgs, "range", BASE_OPTS "-O ^flex_bg -N 256", "8M");
	img_hook = unit_image_add(&imgs, "hook", BASE_OPTS "-O ^flex_bg -N 256", "8M");
	/* 16 groups, flex groups of 2 (8 of them) and of 4 */
	img_flex = unit_image_add(&imgs, "flex", BASE_OPTS "-G 2 -N 512", "16M");
	img_flex4 = unit_image_add(&imgs, "flex4", BASE_OPTS "-G 4 -N 512", "16M");
	img_uninit = unit_image_add(&imgs, "uninit", BASE_OPTS "-N 512", "16M");
	img_big = unit_image_add(&imgs, "big", "-t ext4 -O bigalloc,^has_journal -b 1024 -C 16384",
				 "16M");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return unit_images_remove(&imgs);
}

/* A test's start: skipped without images, else img opened (rw 1 or 0;
 * -1: nothing opened). */
static e4_fs *begin(void **state, const char *img, int rw)
{
	e4_fs *fs = NULL;

	(void)state;
	if (!imgs.ok)
		skip();
	if (rw < 0)	/* only the skip */
		return NULL;
	assert_int_equal(e4_open(img, rw ? E4_OPEN_RW : 0, 0, 0, &fs), 0);
	return fs;
}

static void close_clean(e4_fs *fs, const char *img)
{
	assert_int_equal(e4_alloc_flush(fs), 0);
	assert_int_equal(e4_close(fs), 0);
	assert_int_equal(oracle_fsck(img), 0);
}

static struct e4_group grp(e4_fs *fs, e4_group_t g)
{
	struct e4_group d;

	assert_int_equal(e4_group_get(fs, g, &d), 0);
	return d;
}

/* First block after group g's own bitmaps and inode table (no flex_bg). */
static e4_blk_t data_start(e4_fs *fs, e4_group_t g)
{
	struct e4_group d = grp(fs, g);

	return d.inode_table + e4_geom(fs)->inode_blocks_per_group;
}

/* The filesystem's block and inode maps as they are now (to put back). */
static void snapshot(e4_fs *fs, struct e4_bmap **b, struct e4_bmap **i)
{
	assert_int_equal(e4_bmap_load_blocks(fs, E4_BMAP_FLAT, 0, NULL, NULL, b), 0);
	assert_int_equal(e4_bmap_load_inodes(fs, E4_BMAP_FLAT, 0, NULL, NULL, i), 0);
}

static void restore(e4_fs *fs, struct e4_bmap *b, struct e4_bmap *i)
{
	assert_int_equal(e4_bmap_store_blocks(fs, b, 0), 0);
	assert_int_equal(e4_bmap_store_inodes(fs, i, 0), 0);
	e4_bmap_free(b);
	e4_bmap_free(i);
}

/* ---- full groups skipped unread --------------------------------------- */
struct reads {
	uint64_t off[4096];
	size_t len[4096];
	unsigned n;
};

static errcode_t read_hook(void *priv, uint64_t offset, size_t len)
{
	struct reads *r = priv;

	if (r->n < 4096) {
		r->off[r->n] = offset;
		r->len[r->n++] = len;
	}
	return 0;
}

/* Did any read recorded touch block blk? */
static int was_read(const struct reads *r, e4_fs *fs, e4_blk_t blk)
{
	uint64_t lo = blk * (uint64_t)e4_geom(fs)->block_size, hi = lo + e4_geom(fs)->block_size;

	for (unsigned i = 0; i < r->n; i++)
		if (r->off[i] < hi && r->off[i] + r->len[i] > lo)
			return 1;
	return 0;
}

static void full_groups_skipped(void **state)
{
	static struct reads r;
	struct e4_bmap *ob, *oi;
	e4_blk_t first;
	e4_ino_t ino;
	uint64_t got;
	uint32_t ipg;
	e4_fs *fs;

	fs = begin(state, img_skip, 1);
	snapshot(fs, &ob, &oi);
	ipg = e4_geom(fs)->inodes_per_group;
	for (e4_group_t g = 1; g <= 4; g++) {
		e4_blk_t f = e4_group_first_block(fs, g);

		assert_int_equal(e4_block_mark(fs, f, e4_group_last_block(fs, g) - f + 1, 1, NULL), 0);
		for (uint32_t i = 1; i <= ipg; i++)
			assert_int_equal(e4_inode_mark(fs, g * ipg + i, 1, 0, NULL), 0);
		assert_int_equal(grp(fs, g).free_blocks, 0);
		assert_int_equal(grp(fs, g).free_inodes, 0);
	}
	assert_int_equal(e4_alloc_flush(fs), 0);
	assert_int_equal(e4_close(fs), 0);

	/* a fresh open: nothing cached; every device read recorded */
	fs = begin(NULL, img_skip, 1);
	memset(&r, 0, sizeof(r));
	e4_io_set_read_hook(e4_fs_io(fs), read_hook, &r);
	assert_int_equal(e4_alloc_blocks(fs, e4_group_first_block(fs, 1), 8, 8, &first, &got), 0);
	assert_int_equal(first, data_start(fs, 5));
	assert_int_equal(got, 8);
	assert_int_equal(e4_block_find_free(fs, e4_group_first_block(fs, 2), 4, &first), 0);
	assert_int_equal(first, data_start(fs, 5) + 8);
	assert_int_equal(e4_inode_find_free(fs, 1, &ino), 0);
	assert_int_equal(ino, 5 * ipg + 1);
	assert_int_equal(e4_alloc_inode(fs, 2 * ipg + 3, EXT4_S_IFREG | 0644, &ino), 0);
	assert_int_equal(ino, 5 * ipg + 1);
	for (e4_group_t g = 1; g <= 4; g++) {
		struct e4_group d = grp(fs, g);

		if (was_read(&r, fs, d.block_bitmap) || was_read(&r, fs, d.inode_bitmap))
			fail_msg("group %u is full but its bitmaps were read", g);
	}
	/* the hook does see a bitmap read */
	{
		int in_use;

		assert_int_equal(e4_test_block(fs, e4_group_first_block(fs, 3), &in_use), 0);
		assert_true(was_read(&r, fs, grp(fs, 3).block_bitmap));
	}
	e4_io_set_read_hook(e4_fs_io(fs), NULL, NULL);
	restore(fs, ob, oi);
	close_clean(fs, img_skip);
}

/* ---- range allocation ------------------------------------------------- */
static void range_longest_near_goal(void **state)
{
	struct e4_bmap *ob, *oi;
	e4_blk_t a, b, c, first;
	uint64_t got;
	e4_fs *fs;

	fs = begin(state, img_range, 1);
	snapshot(fs, &ob, &oi);
	/* everything in use but three runs in group 2: 5 at a, 40 at b, 20 at c */
	a = data_start(fs, 2) + 10;
	b = a + 100;
	c = b + 200;
	assert_int_equal(e4_group_of_block(fs, c + 120), 2);
	assert_int_equal(e4_block_mark(fs, e4_geom(fs)->first_data_block,
				       e4_geom(fs)->blocks_count - e4_geom(fs)->first_data_block, 1,
				       NULL), 0);
	assert_int_equal(e4_block_mark(fs, a, 5, 0, NULL), 0);
	assert_int_equal(e4_block_mark(fs, b, 40, 0, NULL), 0);
	assert_int_equal(e4_block_mark(fs, c, 20, 0, NULL), 0);

	/* no run of 100 anywhere: the longest, 40 at b */
	assert_int_equal(e4_alloc_blocks(fs, a, 100, 1, &first, &got), 0);
	assert_int_equal(first, b);
	assert_int_equal(got, 40);
	/* the longest of equals (20 at c and at c + 100): the nearest */
	assert_int_equal(e4_block_mark(fs, c + 100, 20, 0, NULL), 0);
	assert_int_equal(e4_alloc_blocks(fs, a, 30, 1, &first, &got), 0);
	assert_int_equal(first, c);
	assert_int_equal(got, 20);
	assert_int_equal(e4_alloc_free_blocks(fs, c, 20), 0);
	assert_int_equal(e4_block_mark(fs, c + 100, 20, 1, NULL), 0);
	/* a run of 3 at the goal itself */
	assert_int_equal(e4_alloc_blocks(fs, a, 3, 1, &first, &got), 0);
	assert_int_equal(first, a);
	assert_int_equal(got, 3);
	/* from a + 3 (2 left there): the first run of 10 is at c */
	assert_int_equal(e4_alloc_blocks(fs, a + 3, 10, 1, &first, &got), 0);
	assert_int_equal(first, c);
	assert_int_equal(got, 10);
	/* 10 left at c + 10, 2 at a + 3: nothing of 25 */
	assert_int_equal(e4_alloc_blocks(fs, a, 30, 25, &first, &got), E4_ERR_NO_SPACE);
	/* from group 6 the search wraps to group 2 */
	assert_int_equal(e4_alloc_blocks(fs, e4_group_first_block(fs, 6), 5, 5, &first, &got), 0);
	assert_int_equal(first, c + 10);
	assert_int_equal(got, 5);
	/* the longest of equals: the nearest after the goal, then wrapping */
	assert_int_equal(e4_alloc_blocks(fs, c + 16, 9, 1, &first, &got), 0);
	assert_int_equal(first, c + 16);
	assert_int_equal(got, 4);
	assert_int_equal(e4_alloc_blocks(fs, c + 16, 9, 1, &first, &got), 0);
	assert_int_equal(first, a + 3);
	assert_int_equal(got, 2);
	assert_int_equal(e4_alloc_blocks(fs, 0, 1, 1, &first, &got), 0);
	assert_int_equal(first, c + 15);
	assert_int_equal(e4_alloc_blocks(fs, 0, 1, 1, &first, &got), E4_ERR_NO_SPACE);
	assert_int_equal(e4_alloc_blocks(fs, 0, 0, 0, &first, &got), E4_ERR_INVALID_ARGUMENT);
	/* freeing: twice is an error */
	assert_int_equal(e4_alloc_free_blocks(fs, b, 40), 0);
	assert_int_equal(e4_alloc_free_blocks(fs, b + 39, 2), E4_ERR_CORRUPT);
	restore(fs, ob, oi);
	close_clean(fs, img_range);
}

/* A run goes on into the next group when no metadata parts them (flex_bg:
 * group 11's bitmaps and table are in group 10, neither has a superblock
 * backup). */
static void range_across_groups(void **state)
{
	e4_blk_t goal, first;
	uint64_t got;
	e4_fs *fs;

	fs = begin(state, img_flex, 1);
	goal = e4_alloc_goal_for_mode(fs, 10 * e4_geom(fs)->inodes_per_group + 1, EXT4_S_IFDIR);
	assert_int_equal(e4_group_of_block(fs, goal), 10);
	assert_int_equal(e4_alloc_blocks(fs, goal, 1500, 1500, &first, &got), 0);
	assert_int_equal(first, goal);
	assert_int_equal(got, 1500);
	assert_int_equal(e4_group_of_block(fs, first + got - 1), 11);
	assert_int_equal(grp(fs, 11).free_blocks, 1024 - (1500 - (e4_group_first_block(fs, 11) - goal)));
	assert_int_equal(e4_alloc_free_blocks(fs, first, got), 0);
	close_clean(fs, img_flex);
}

/* The same rule, written plainly over a flat model of the clusters: the
 * first run of want at or after goal (to the end, then from the start up
 * to goal), else the longest (the first seen of equals) if >= min.
 * Returns the run's first cluster and *len, or -1. */
static int64_t model_find(const uint8_t *used, uint64_t c0, uint64_t cend, uint64_t goal,
			  uint64_t want, uint64_t min, uint64_t *len)
{
	uint64_t best = 0, bestlen = 0, start = 0, run = 0;

	for (uint64_t k = 0; k < cend - c0; k++) {
		uint64_t c = goal + k < cend ? goal + k : goal + k - (cend - c0);

		if (c == c0 && k) {		/* the wrap ends a run */
			if (run > bestlen)
				best = start, bestlen = run;
			run = 0;
		}
		if (used[c - c0]) {
			if (run > bestlen)
				best = start, bestlen = run;
			run = 0;
			continue;
		}
		if (!run++)
			start = c;
		if (run == want) {
			*len = want;
			return (int64_t)start;
		}
	}
	if (run > bestlen)
		best = start, bestlen = run;
	if (!bestlen || bestlen < min)
		return -1;
	*len = bestlen;
	return (int64_t)best;
}

/* Random allocations and frees against the model (fixed seed). */
static void random_model(const char *img)
{
	struct e4_bmap *ob, *oi;
	struct { e4_blk_t first; uint64_t n; } runs[512];
	unsigned nruns = 0, seed = 12345;
	uint64_t c0, cend, cb;
	uint8_t *used;
	e4_fs *fs;

	fs = begin(NULL, img, 1);
	snapshot(fs, &ob, &oi);
	cb = e4_geom(fs)->cluster_bits;
	c0 = e4_bmap_start(ob);
	cend = e4_bmap_end(ob);
	used = malloc(cend - c0);
	assert_non_null(used);
	for (uint64_t c = c0; c < cend; c++)
		used[c - c0] = (uint8_t)e4_bmap_test(ob, c);
	for (int op = 0; op < 1500; op++) {
		seed = seed * 1103515245u + 12345u;
		if ((seed >> 16) % 3 || !nruns) {
			uint64_t r = seed >> 8, goal = r % e4_geom(fs)->blocks_count, want, min, len = 0;
			uint64_t wantc, minc, gc, got = 0;
			e4_blk_t first = 0;
			int64_t exp;
			errcode_t err;

			seed = seed * 1103515245u + 12345u;
			want = 1 + (seed >> 8) % (op % 7 ? 40 : 600);
			min = 1 + (seed >> 20) % want;
			wantc = (want + (1u << cb) - 1) >> cb;
			minc = (min + (1u << cb) - 1) >> cb;
			gc = (goal < e4_geom(fs)->first_data_block ? e4_geom(fs)->first_data_block : goal) >> cb;
			exp = model_find(used, c0, cend, gc, wantc, minc, &len);
			err = e4_alloc_blocks(fs, goal, want, min, &first, &got);
			if (exp < 0) {
				assert_int_equal(err, E4_ERR_NO_SPACE);
				continue;
			}
			assert_int_equal(err, 0);
			assert_int_equal(first, (uint64_t)exp << cb);
			assert_int_equal(got, len << cb);
			memset(used + (exp - c0), 1, len);
			if (nruns < 512) {
				runs[nruns].first = first;
				runs[nruns++].n = got;
			}
		} else {
			unsigned i = (seed >> 8) % nruns;

			assert_int_equal(e4_alloc_free_blocks(fs, runs[i].first, runs[i].n), 0);
			memset(used + ((runs[i].first >> cb) - c0), 0, runs[i].n >> cb);
			runs[i] = runs[--nruns];
		}
	}
	/* the descriptors counted along */
	for (e4_group_t g = 0; g < e4_geom(fs)->group_count; g++) {
		uint64_t a = e4_group_first_block(fs, g) >> cb, b = e4_group_last_block(fs, g) >> cb;
		uint32_t nfree = 0;

		for (uint64_t c = a; c <= b; c++)
			nfree += !used[c - c0];
		assert_int_equal(grp(fs, g).free_blocks, nfree);
	}
	free(used);
	restore(fs, ob, oi);
	close_clean(fs, img);
}

static void range_random_model(void **state)
{
	(void)begin(state, NULL, -1);
	random_model(img_flex);
	random_model(img_big);
}

/* ---- goals ------------------------------------------------------------ */
static void goals(void **state)
{
	uint32_t ipg;
	e4_blk_t end = 0;
	e4_fs *fs;

	/* flex groups of 4: groups 4-7 keep their bitmaps and tables in 4 */
	fs = begin(state, img_flex4, 0);
	ipg = e4_geom(fs)->inodes_per_group;
	for (e4_group_t g = 4; g < 8; g++) {
		struct e4_group d = grp(fs, g);
		e4_blk_t t = d.inode_table + e4_geom(fs)->inode_blocks_per_group;

		assert_int_equal(e4_group_of_block(fs, d.inode_table), 4);
		end = t > end ? t : end;
	}
	assert_int_equal(e4_alloc_goal_for_mode(fs, 5 * ipg + 3, EXT4_S_IFDIR), end);
	assert_int_equal(e4_alloc_goal_for_mode(fs, 7 * ipg + 1, EXT4_S_IFLNK), end);
	/* regular files: the flex group's second group (ext4_inode_to_goal_block) */
	assert_int_equal(e4_alloc_goal_for_mode(fs, 6 * ipg + 1, EXT4_S_IFREG),
			 e4_group_first_block(fs, 5));
	assert_int_equal(e4_alloc_goal_for_file(fs, 6 * ipg + 1, EXT4_S_IFREG, 9000), 9001);
	assert_int_equal(e4_alloc_goal_for_file(fs, 6 * ipg + 1, EXT4_S_IFREG, 0),
			 e4_group_first_block(fs, 5));
	/* the root (a directory in group 0) */
	assert_int_equal(e4_alloc_goal_for_inode(fs, EXT4_ROOT_INO),
			 e4_alloc_goal_for_mode(fs, 1, EXT4_S_IFDIR));
	assert_int_equal(e4_close(fs), 0);

	/* without flex_bg: after the group's own table */
	assert_int_equal(e4_open(img_hook, 0, 0, 0, &fs), 0);
	ipg = e4_geom(fs)->inodes_per_group;
	assert_int_equal(e4_alloc_goal_for_mode(fs, 3 * ipg + 7, EXT4_S_IFREG), data_start(fs, 3));
	assert_int_equal(e4_alloc_goal_for_mode(fs, 0, EXT4_S_IFREG), data_start(fs, 0));
	assert_int_equal(e4_close(fs), 0);
}

/* ---- bigalloc --------------------------------------------------------- */
static void bigalloc_counts(void **state)
{
	uint64_t sb_free, got;
	uint32_t gd_free;
	e4_blk_t first;
	e4_fs *fs;

	fs = begin(state, img_big, 1);
	assert_int_equal(e4_geom(fs)->cluster_bits, 4);
	sb_free = e4_sb_free_blocks_count(e4_super(fs));
	gd_free = grp(fs, 0).free_blocks;
	assert_int_equal(sb_free, (uint64_t)gd_free << 4);
	/* 20 blocks: two whole clusters */
	assert_int_equal(e4_alloc_blocks(fs, 5000, 20, 1, &first, &got), 0);
	assert_int_equal(first % 16, 0);
	assert_true(first >= 4992);
	assert_int_equal(got, 32);
	assert_int_equal(grp(fs, 0).free_blocks, gd_free - 2);
	assert_int_equal(e4_sb_free_blocks_count(e4_super(fs)), sb_free - 32);
	/* the next run starts at the next cluster */
	assert_int_equal(e4_block_find_free(fs, first, 1, &first), 0);
	assert_int_equal(first % 16, 0);
	/* one block of a cluster frees the cluster */
	assert_int_equal(e4_alloc_free_blocks(fs, first - 32 + 17, 1), 0);
	assert_int_equal(grp(fs, 0).free_blocks, gd_free - 1);
	assert_int_equal(e4_alloc_free_blocks(fs, first - 32, 32), E4_ERR_CORRUPT);
	assert_int_equal(grp(fs, 0).free_blocks, gd_free);
	assert_int_equal(e4_sb_free_blocks_count(e4_super(fs)), sb_free);
	assert_int_equal(e4_alloc_blocks(fs, 8000, 16, 16, &first, &got), 0);
	assert_int_equal(got, 16);
	assert_int_equal(e4_alloc_flush(fs), 0);
	assert_int_equal(e4_alloc_free_blocks(fs, first, got), 0);
	close_clean(fs, img_big);
}

/* ---- the caller's maps ------------------------------------------------ */
static void hook_maps(void **state)
{
	struct e4_bmap *bm, *im, *wrong;
	struct e4_group d2, d0;
	uint64_t sb_free, got;
	uint32_t sb_ifree, ipg;
	e4_blk_t x, first;
	e4_ino_t ino, ino2;
	int in_use;
	e4_fs *fs;

	fs = begin(state, img_hook, 1);
	ipg = e4_geom(fs)->inodes_per_group;
	assert_int_equal(e4_bmap_load_blocks(fs, E4_BMAP_RUNS, 0, NULL, NULL, &bm), 0);
	assert_int_equal(e4_bmap_load_inodes(fs, E4_BMAP_RUNS, 0, NULL, NULL, &im), 0);
	assert_int_equal(e4_bmap_create(E4_BMAP_RUNS, 0, 100, &wrong), 0);
	assert_int_equal(e4_alloc_set_maps(fs, wrong, NULL), E4_ERR_INVALID_ARGUMENT);
	assert_int_equal(e4_alloc_set_maps(fs, NULL, wrong), E4_ERR_INVALID_ARGUMENT);
	e4_bmap_free(wrong);
	assert_int_equal(e4_alloc_set_maps(fs, bm, im), 0);
	d2 = grp(fs, 2);
	d0 = grp(fs, 0);
	sb_free = e4_sb_free_blocks_count(e4_super(fs));
	sb_ifree = e4_le32(e4_super(fs)->s_free_inodes_count);

	/* the map says 50 blocks are in use where the disk says free */
	x = data_start(fs, 2);
	assert_int_equal(e4_bmap_set_range(bm, x, 50), 0);
	assert_int_equal(e4_alloc_blocks(fs, x, 10, 10, &first, &got), 0);
	assert_int_equal(first, x + 50);
	assert_true(e4_bmap_range_all_set(bm, x + 50, 10));
	assert_int_equal(e4_block_find_free(fs, x, 1, &first), 0);
	assert_int_equal(first, x + 60);
	/* inodes: group 0's taken in the map go to group 1 */
	assert_int_equal(e4_alloc_inode(fs, EXT4_ROOT_INO, EXT4_S_IFREG | 0644, &ino), 0);
	assert_int_equal(e4_group_of_ino(fs, ino), 0);
	assert_true(e4_bmap_test(im, ino));
	assert_int_equal(e4_bmap_set_range(im, 1, ipg), 0);
	assert_int_equal(e4_inode_find_free(fs, 0, &ino2), 0);
	assert_int_equal(ino2, ipg + 1);
	assert_int_equal(e4_bmap_clear_range(im, ino + 1, ipg - ino), 0);

	/* what was allocated is in use on disk too, with the descriptors'
	 * and superblock's counts (a stop before the maps are stored never
	 * leaves it marked free); what was only found is not */
	assert_int_equal(e4_test_block(fs, x + 50, &in_use), 0);
	assert_int_equal(in_use, 1);
	assert_int_equal(e4_test_block(fs, x + 59, &in_use), 0);
	assert_int_equal(in_use, 1);
	assert_int_equal(e4_test_block(fs, x + 60, &in_use), 0);
	assert_int_equal(in_use, 0);
	assert_int_equal(e4_test_block(fs, x, &in_use), 0);
	assert_int_equal(in_use, 0);
	assert_int_equal(e4_test_inode(fs, ino, &in_use), 0);
	assert_int_equal(in_use, 1);
	assert_int_equal(grp(fs, 2).free_blocks, d2.free_blocks - 10);
	assert_int_equal(grp(fs, 0).free_inodes, d0.free_inodes - 1);
	assert_int_equal(e4_sb_free_blocks_count(e4_super(fs)), sb_free - 10);
	assert_int_equal(e4_le32(e4_super(fs)->s_free_inodes_count), sb_ifree - 1);
	/* a free changes only the map: the disk keeps it (a leak) */
	assert_int_equal(e4_block_mark(fs, x + 59, 1, 0, NULL), 0);
	assert_false(e4_bmap_test(bm, x + 59));
	assert_int_equal(e4_test_block(fs, x + 59, &in_use), 0);
	assert_int_equal(in_use, 1);
	assert_int_equal(e4_inode_mark(fs, ino, 0, 0, NULL), 0);
	assert_false(e4_bmap_test(im, ino));
	assert_int_equal(e4_test_inode(fs, ino, &in_use), 0);
	assert_int_equal(in_use, 1);
	assert_int_equal(grp(fs, 2).free_blocks, d2.free_blocks - 10);
	assert_int_equal(e4_block_mark(fs, x + 59, 1, 1, NULL), 0);
	assert_int_equal(e4_inode_mark(fs, ino, 1, 0, NULL), 0);
	assert_int_equal(grp(fs, 2).free_blocks, d2.free_blocks - 10);
	assert_int_equal(grp(fs, 0).free_inodes, d0.free_inodes - 1);
	/* written by the next flush, before anything names them */
	assert_int_equal(e4_alloc_flush(fs), 0);

	/* the caller stores its maps: the disk follows */
	assert_int_equal(e4_bmap_clear_range(bm, x, 50), 0);
	assert_int_equal(e4_alloc_set_maps(fs, NULL, NULL), 0);
	assert_int_equal(e4_bmap_store_blocks(fs, bm, 0), 0);
	assert_int_equal(e4_bmap_store_inodes(fs, im, 0), 0);
	assert_int_equal(grp(fs, 2).free_blocks, d2.free_blocks - 10);
	assert_int_equal(grp(fs, 0).free_inodes, d0.free_inodes - 1);
	assert_int_equal(e4_test_block(fs, x + 59, &in_use), 0);
	assert_int_equal(in_use, 1);
	assert_int_equal(e4_test_block(fs, x + 60, &in_use), 0);
	assert_int_equal(in_use, 0);
	/* and the normal path frees them */
	assert_int_equal(e4_alloc_free_blocks(fs, x + 50, 10), 0);
	assert_int_equal(e4_alloc_free_inode(fs, ino, EXT4_S_IFREG), 0);
	assert_int_equal(e4_alloc_free_inode(fs, ino, EXT4_S_IFREG), E4_ERR_CORRUPT);
	e4_bmap_free(bm);
	e4_bmap_free(im);
	close_clean(fs, img_hook);
}

/* ---- writing real inodes ---------------------------------------------- */
/* A new inode of type mode, child of parent, chosen by e4_alloc_inode and
 * written (links 1, or 2 for a directory; an empty extent root). */
static e4_ino_t new_inode(e4_fs *fs, e4_ino_t parent, uint16_t mode)
{
	union e4_inode_buf ib;
	uint32_t t = 1700000000;
	e4_ino_t ino;

	assert_int_equal(e4_alloc_inode(fs, parent, mode, &ino), 0);
	memset(&ib, 0, sizeof(ib));
	ib.inode.i_mode = e4_cpu_to_le16(mode);
	ib.inode.i_links_count = e4_cpu_to_le16((mode & EXT4_S_IFMT) == EXT4_S_IFDIR ? 2 : 1);
	ib.inode.i_ctime = ib.inode.i_mtime = ib.inode.i_atime = e4_cpu_to_le32(t);
	ib.inode.i_generation = e4_cpu_to_le32((uint32_t)ino * 2654435761u);
	if (e4_geom(fs)->inode_size > 128)
		ib.inode.i_extra_isize = e4_cpu_to_le16(32);
	e4_extent_root_init(&ib.inode);
	assert_int_equal(e4_inode_write(fs, ino, &ib), 0);
	return ino;
}

static void link_count_add(e4_fs *fs, e4_ino_t ino, int delta)
{
	union e4_inode_buf ib;

	assert_int_equal(e4_inode_read(fs, ino, &ib), 0);
	ib.inode.i_links_count = e4_cpu_to_le16((uint16_t)(e4_le16(ib.inode.i_links_count) + delta));
	assert_int_equal(e4_inode_write(fs, ino, &ib), 0);
}

static e4_ino_t make_dir(e4_fs *fs, e4_ino_t parent, const char *name)
{
	e4_ino_t ino = new_inode(fs, parent, EXT4_S_IFDIR | 0755);

	assert_int_equal(e4_dir_build(fs, ino, parent, NULL, 0, 0, 0), 0);
	assert_int_equal(e4_dir_insert(fs, parent, name, strlen(name), ino, EXT4_FT_DIR), 0);
	link_count_add(fs, parent, 1);
	return ino;
}

/* A regular file of nblocks blocks allocated from its goal; *first gets
 * its first block. */
static e4_ino_t make_file(e4_fs *fs, e4_ino_t parent, const char *name, uint64_t nblocks,
			  e4_blk_t *first)
{
	e4_ino_t ino = new_inode(fs, parent, EXT4_S_IFREG | 0644);
	e4_extent_handle *h;
	union e4_inode_buf ib;
	uint64_t got;

	assert_int_equal(e4_inode_read(fs, ino, &ib), 0);
	assert_int_equal(e4_alloc_blocks(fs, e4_alloc_goal_for_mode(fs, ino, EXT4_S_IFREG), nblocks,
					 nblocks, first, &got), 0);
	assert_int_equal(got, nblocks);
	assert_int_equal(e4_extent_open(fs, ino, &ib.inode, 0, &h), 0);
	assert_int_equal(e4_extent_map_set(h, 0, got, *first, 0), 0);
	e4_extent_close(h);
	ib.inode.i_size_lo = e4_cpu_to_le32((uint32_t)(got * e4_geom(fs)->block_size));
	assert_int_equal(e4_inode_write(fs, ino, &ib), 0);
	assert_int_equal(e4_dir_insert(fs, parent, name, strlen(name), ino, EXT4_FT_REG_FILE), 0);
	return ino;
}

/* ---- INODE_UNINIT groups and the table's never-used part -------------- */
/* Fill group g's inode table in image img (closed) with garbage that
 * reads as live inodes (mode 0100644, one link); *d gets g's descriptor. */
static void plant_junk(const char *img, e4_group_t g, struct e4_group *d)
{
	static uint8_t junk[256 * 32];
	uint32_t ipg, isz;
	e4_fs *fs;
	int fd;

	assert_int_equal(e4_open(img, 0, 0, 0, &fs), 0);
	ipg = e4_geom(fs)->inodes_per_group;
	isz = e4_geom(fs)->inode_size;
	*d = grp(fs, g);
	assert_int_equal(e4_close(fs), 0);
	assert_true(ipg * isz <= sizeof(junk));
	assert_int_equal(d->flags & (EXT4_BG_INODE_UNINIT | EXT4_BG_INODE_ZEROED),
			 EXT4_BG_INODE_UNINIT);
	memset(junk, 0xA5, sizeof(junk));
	for (uint32_t i = 0; i < ipg; i++) {
		junk[i * isz + 0] = 0xA4;	/* i_mode 0100644 */
		junk[i * isz + 1] = 0x81;
		junk[i * isz + 26] = 1;		/* i_links_count */
		junk[i * isz + 27] = 0;
	}
	fd = open(img, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, junk, (size_t)ipg * isz, (off_t)d->inode_table * 1024),
			 (ssize_t)ipg * isz);
	close(fd);
}

/* Write inode ino (marked in use already) as an empty file name in the
 * root. */
static void write_file_inode(e4_fs *fs, e4_ino_t ino, const char *name)
{
	union e4_inode_buf ib;

	memset(&ib, 0, sizeof(ib));
	ib.inode.i_mode = e4_cpu_to_le16(EXT4_S_IFREG | 0600);
	ib.inode.i_links_count = e4_cpu_to_le16(1);
	ib.inode.i_extra_isize = e4_cpu_to_le16(32);
	e4_extent_root_init(&ib.inode);
	assert_int_equal(e4_inode_write(fs, ino, &ib), 0);
	assert_int_equal(e4_dir_insert(fs, EXT4_ROOT_INO, name, strlen(name), ino, EXT4_FT_REG_FILE),
			 0);
}

static void uninit_groups(void **state)
{
	uint32_t ipg, isz;
	struct e4_group d4, d6;
	e4_ino_t ino, ino6;
	e4_blk_t first;
	uint8_t slot[256];
	e4_fs *fs;
	int fd;

	fs = begin(state, img_uninit, 0);
	ipg = e4_geom(fs)->inodes_per_group;
	isz = e4_geom(fs)->inode_size;
	d6 = grp(fs, 6);
	assert_int_equal(e4_close(fs), 0);
	assert_int_equal(d6.flags & (EXT4_BG_INODE_UNINIT | EXT4_BG_BLOCK_UNINIT),
			 EXT4_BG_INODE_UNINIT | EXT4_BG_BLOCK_UNINIT);
	plant_junk(img_uninit, 4, &d4);

	fs = begin(NULL, img_uninit, 1);
	/* a mark deep in the table: slots 0-4 zeroed, the group initialised */
	ino = 4 * ipg + 6;
	assert_int_equal(e4_inode_mark(fs, ino, 1, 0, NULL), 0);
	d4 = grp(fs, 4);
	assert_int_equal(d4.flags & EXT4_BG_INODE_UNINIT, 0);
	assert_int_equal(d4.itable_unused, ipg - 6);
	assert_int_equal(d4.free_inodes, ipg - 1);
	fd = open(img_uninit, O_RDONLY);
	for (uint32_t i = 0; i < 6; i++) {
		static const uint8_t zero[256];

		assert_int_equal(pread(fd, slot, isz, (off_t)d4.inode_table * 1024 + i * isz), isz);
		if (i < 5)
			assert_memory_equal(slot, zero, isz);
		else
			assert_int_equal(slot[26], 1);	/* the new inode: the caller's */
	}
	close(fd);
	/* the mark above is only the bitmap: write it as a file in the root */
	write_file_inode(fs, ino, "deep");
	/* e4_alloc_inode with the parent in group 6: its first inode, both
	 * UNINIT flags gone, its block bitmap made real */
	ino6 = new_inode(fs, 6 * ipg + 1, EXT4_S_IFREG | 0644);
	assert_int_equal(ino6, 6 * ipg + 1);
	d6 = grp(fs, 6);
	assert_int_equal(d6.flags & (EXT4_BG_INODE_UNINIT | EXT4_BG_BLOCK_UNINIT), 0);
	assert_int_equal(d6.itable_unused, ipg - 1);
	assert_int_equal(e4_dir_insert(fs, EXT4_ROOT_INO, "six", 3, ino6, EXT4_FT_REG_FILE), 0);
	/* a file's blocks in a BLOCK_UNINIT group */
	assert_int_equal(e4_block_find_free(fs, e4_group_first_block(fs, 8), 1, &first), 0);
	assert_int_equal(e4_group_of_block(fs, first), 8);
	assert_int_equal(e4_block_mark(fs, first, 1, 1, NULL), 0);
	assert_int_equal(grp(fs, 8).flags & EXT4_BG_BLOCK_UNINIT, 0);
	assert_int_equal(e4_block_mark(fs, first, 1, 0, NULL), 0);
	close_clean(fs, img_uninit);
}

/* The caller's maps over an INODE_UNINIT group: the table below a new
 * inode is zeroed as the map says, the descriptor follows (INODE_UNINIT
 * off, the used part up to it), then e4_bmap_store_inodes() stores; e2fsck finds the files
 * and no phantom inode in the slot left free. */
static void hook_uninit(void **state)
{
	struct e4_bmap *bm, *im;
	struct e4_group d3;
	uint32_t ipg;
	e4_ino_t ino;
	e4_fs *fs;

	fs = begin(state, img_hook, 0);
	ipg = e4_geom(fs)->inodes_per_group;
	assert_int_equal(e4_close(fs), 0);
	plant_junk(img_hook, 3, &d3);
	fs = begin(NULL, img_hook, 1);
	assert_int_equal(e4_bmap_load_blocks(fs, E4_BMAP_RUNS, 0, NULL, NULL, &bm), 0);
	assert_int_equal(e4_bmap_load_inodes(fs, E4_BMAP_RUNS, 0, NULL, NULL, &im), 0);
	assert_int_equal(e4_alloc_set_maps(fs, bm, im), 0);
	assert_int_equal(e4_inode_mark(fs, 3 * ipg + 4, 1, 0, NULL), 0);
	/* the disk's bitmap and descriptor follow a mark in use at once */
	assert_int_equal(grp(fs, 3).flags & EXT4_BG_INODE_UNINIT, 0);
	assert_int_equal(grp(fs, 3).itable_unused, ipg - 4);
	write_file_inode(fs, 3 * ipg + 4, "h4");
	assert_int_equal(e4_inode_mark(fs, 3 * ipg + 2, 1, 0, NULL), 0);
	write_file_inode(fs, 3 * ipg + 2, "h2");
	assert_int_equal(e4_alloc_inode(fs, 3 * ipg + 1, EXT4_S_IFREG | 0600, &ino), 0);
	assert_int_equal(ino, 3 * ipg + 1);
	write_file_inode(fs, ino, "h1");
	assert_int_equal(e4_alloc_set_maps(fs, NULL, NULL), 0);
	assert_int_equal(e4_bmap_store_blocks(fs, bm, 0), 0);
	assert_int_equal(e4_bmap_store_inodes(fs, im, 0), 0);
	d3 = grp(fs, 3);
	assert_int_equal(d3.flags & EXT4_BG_INODE_UNINIT, 0);
	assert_int_equal(d3.itable_unused, ipg - 4);
	e4_bmap_free(bm);
	e4_bmap_free(im);
	close_clean(fs, img_hook);
}

/* ---- Orlov and locality, then the judges ------------------------------ */
static void dirs_spread_files_near(void **state)
{
	static char *root_names[] = { "lost+found", "d0", "d1", "d2" };
	static char *d0_names[] = { "sub", "f0", "f1", "f2", "f3" };
	static char *sub_names[] = { "g0" };
	const struct oracle_dir dirs[] = {
		{ "/", root_names, 4, NULL, 0 },
		{ "/d0", d0_names, 5, NULL, 0 },
		{ "/d0/sub", sub_names, 1, NULL, 0 },
	};
	e4_ino_t d[3], sub, f[4];
	e4_blk_t first[4], g0first;
	uint32_t units[3];
	char name[4];
	e4_fs *fs;

	fs = begin(state, img_flex, 1);
	/* top-level directories: distinct flex groups of 2, never the
	 * root's, each with no directory before */
	for (int i = 0; i < 3; i++) {
		e4_group_t g;

		snprintf(name, sizeof(name), "d%d", i);
		d[i] = make_dir(fs, EXT4_ROOT_INO, name);
		g = e4_group_of_ino(fs, d[i]);
		units[i] = g / 2;
		assert_int_not_equal(units[i], 0);
		assert_int_equal(grp(fs, g - g % 2).used_dirs + grp(fs, g - g % 2 + 1).used_dirs, 1);
		for (int j = 0; j < i; j++)
			assert_int_not_equal(units[i], units[j]);
	}
	/* a subdirectory stays in its parent's flex group, files in its
	 * parent's group, their blocks from their goal */
	sub = make_dir(fs, d[0], "sub");
	assert_int_equal(e4_group_of_ino(fs, sub) / 2, units[0]);
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		f[i] = make_file(fs, d[0], name, 3 + i, &first[i]);
		assert_int_equal(e4_group_of_ino(fs, f[i]), e4_group_of_ino(fs, d[0]));
		assert_int_equal(e4_group_of_block(fs, first[i]) / 2, units[0]);
	}
	for (int i = 1; i < 4; i++)
		assert_true(first[i] > first[i - 1]);
	assert_int_equal(e4_group_of_ino(fs, make_file(fs, sub, "g0", 2, &g0first)),
			 e4_group_of_ino(fs, sub));
	assert_int_equal(e4_alloc_flush(fs), 0);
	assert_int_equal(e4_close(fs), 0);
	assert_int_equal(oracle_check(img_flex, dirs, 3), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(full_groups_skipped),
		cmocka_unit_test(range_longest_near_goal),
		cmocka_unit_test(range_across_groups),
		cmocka_unit_test(range_random_model),
		cmocka_unit_test(goals),
		cmocka_unit_test(bigalloc_counts),
		cmocka_unit_test(hook_maps),
		cmocka_unit_test(uninit_groups),
		cmocka_unit_test(hook_uninit),
		cmocka_unit_test(dirs_spread_files_near),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
