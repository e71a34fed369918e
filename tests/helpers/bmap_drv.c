/*
 * bmap_drv: drives libe4's whole-filesystem bitmap maps (bmap.h, bitmap.c)
 * for tests/t/lib_bmap.sh.  KIND is flat or runs.
 *   bmap_drv IMAGE check        load the block and inode maps in both
 *                               backends: the backends agree, every block
 *                               and inode agrees with e4_test_block() /
 *                               e4_test_inode(), each group's free counts
 *                               with its descriptor; prints the totals
 *   bmap_drv IMAGE store KIND [all]   load and store back unchanged
 *                               (all: E4_BMAP_STORE_ALL)
 *   bmap_drv IMAGE take KIND GOAL COUNT GROUP   load; mark the first COUNT
 *                               free clusters from block GOAL (wrapping) and
 *                               the first free inode of group GROUP (not
 *                               below s_first_ino); store; prints
 *                               "blocks FIRST LAST inode INO" (LAST: first
 *                               block of the last cluster, as e2fsck says);
 *                               e4_test_block() / e4_test_inode() must see
 *                               them free before and in use after
 *   bmap_drv IMAGE give KIND BLOCK COUNT INO   load; the COUNT clusters
 *                               from BLOCK and inode INO must be marked:
 *                               clear them; store
 *   bmap_drv IMAGE csum         a strict load must fail on a checksum and
 *                               name the groups; a relaxed load, stored
 *                               back, rewrites them; prints "bad block
 *                               groups: G..." and "bad inode groups: G..."
 * Exit 1 on the first error, with a message.
 */
#include "e4.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, errcode_t err)
{
	fprintf(stderr, "bmap_drv: %s: %s\n", what, err ? error_message(err) : "wrong");
	return 1;
}

static enum e4_bmap_kind kind_of(const char *s)
{
	return !strcmp(s, "flat") ? E4_BMAP_FLAT : !strcmp(s, "runs") ? E4_BMAP_RUNS : 0;
}

/* ---- check ------------------------------------------------------------- */
static int check_blocks(e4_fs *fs, const struct e4_bmap *bm)
{
	const struct e4_geom *geo = e4_geom(fs);
	uint64_t used = 0;

	for (e4_blk_t b = geo->first_data_block; b < geo->blocks_count; b++) {
		int in_use = 0;
		errcode_t err = e4_test_block(fs, b, &in_use);

		if (err)
			return fail("e4_test_block", err);
		if (in_use != e4_bmap_test(bm, b >> geo->cluster_bits)) {
			fprintf(stderr, "bmap_drv: block %llu: map %d, bitmap %d\n",
				(unsigned long long)b, !in_use, in_use);
			return 1;
		}
	}
	for (e4_group_t g = 0; g < geo->group_count; g++) {
		struct e4_group d;
		uint64_t base = e4_group_first_block(fs, g) >> geo->cluster_bits;
		uint64_t n = ((e4_group_last_block(fs, g) - e4_group_first_block(fs, g)) >>
			      geo->cluster_bits) + 1;
		uint64_t u = e4_bmap_count_range(bm, base, n);

		e4_group_get(fs, g, &d);
		if (n - u != d.free_blocks) {
			fprintf(stderr, "bmap_drv: group %u: %llu free clusters in the map, %u in "
				"the descriptor\n", g, (unsigned long long)(n - u), d.free_blocks);
			return 1;
		}
		used += u;
	}
	if (used != e4_bmap_count(bm))
		return fail("cluster count", 0);
	return 0;
}

static int check_inodes(e4_fs *fs, const struct e4_bmap *bm)
{
	const struct e4_geom *geo = e4_geom(fs);

	for (e4_ino_t i = 1; i <= geo->inodes_count; i++) {
		int in_use = 0;
		errcode_t err = e4_test_inode(fs, i, &in_use);

		if (err)
			return fail("e4_test_inode", err);
		if (in_use != e4_bmap_test(bm, i)) {
			fprintf(stderr, "bmap_drv: inode %u: map %d, bitmap %d\n", i, !in_use, in_use);
			return 1;
		}
	}
	for (e4_group_t g = 0; g < geo->group_count; g++) {
		struct e4_group d;
		uint64_t u = e4_bmap_count_range(bm, (uint64_t)g * geo->inodes_per_group + 1,
						 geo->inodes_per_group);

		e4_group_get(fs, g, &d);
		if (geo->inodes_per_group - u != d.free_inodes) {
			fprintf(stderr, "bmap_drv: group %u: %llu free inodes in the map, %u in the "
				"descriptor\n", g, (unsigned long long)(geo->inodes_per_group - u),
				d.free_inodes);
			return 1;
		}
	}
	return 0;
}

static int cmd_check(e4_fs *fs)
{
	struct e4_bmap *b[2], *i[2];
	errcode_t err;

	for (int k = 0; k < 2; k++) {
		enum e4_bmap_kind kind = k ? E4_BMAP_RUNS : E4_BMAP_FLAT;

		err = e4_bmap_load_blocks(fs, kind, 0, NULL, NULL, &b[k]);
		if (err)
			return fail("load blocks", err);
		err = e4_bmap_load_inodes(fs, kind, 0, NULL, NULL, &i[k]);
		if (err)
			return fail("load inodes", err);
	}
	if (e4_bmap_compare(b[0], b[1], NULL) || e4_bmap_compare(i[0], i[1], NULL))
		return fail("the backends differ", 0);
	if (check_blocks(fs, b[1]) || check_inodes(fs, i[1]))
		return 1;
	printf("clusters used %llu of %llu in %llu runs, inodes used %llu of %llu\n",
	       (unsigned long long)e4_bmap_count(b[1]),
	       (unsigned long long)(e4_bmap_end(b[1]) - e4_bmap_start(b[1])),
	       (unsigned long long)e4_bmap_run_count(b[1]),
	       (unsigned long long)e4_bmap_count(i[1]),
	       (unsigned long long)(e4_bmap_end(i[1]) - e4_bmap_start(i[1])));
	for (int k = 0; k < 2; k++) {
		e4_bmap_free(b[k]);
		e4_bmap_free(i[k]);
	}
	return 0;
}

/* ---- changes ------------------------------------------------------------ */
static int load_both(e4_fs *fs, enum e4_bmap_kind kind, unsigned flags, e4_bmap_group_cb cb,
		     void *priv, struct e4_bmap **b, struct e4_bmap **i)
{
	errcode_t err = e4_bmap_load_blocks(fs, kind, flags, cb, priv, b);

	if (err)
		return fail("load blocks", err);
	err = e4_bmap_load_inodes(fs, kind, flags, cb, priv, i);
	if (err)
		return fail("load inodes", err);
	return 0;
}

static int store_both(e4_fs *fs, struct e4_bmap *b, struct e4_bmap *i, unsigned flags)
{
	errcode_t err = e4_bmap_store_blocks(fs, b, flags);

	if (err)
		return fail("store blocks", err);
	err = e4_bmap_store_inodes(fs, i, flags);
	if (err)
		return fail("store inodes", err);
	e4_bmap_free(b);
	e4_bmap_free(i);
	return 0;
}

static int cmd_take(e4_fs *fs, enum e4_bmap_kind kind, e4_blk_t goal, uint64_t count,
		    e4_group_t group)
{
	const struct e4_geom *geo = e4_geom(fs);
	struct e4_bmap *b, *i;
	uint64_t c, ino;
	int used = 0;
	errcode_t err;

	if (load_both(fs, kind, 0, NULL, NULL, &b, &i))
		return 1;
	err = e4_bmap_find_zero_run(b, goal >> geo->cluster_bits, e4_bmap_end(b), count, &c);
	if (err == E4_ERR_BMAP_NOT_FOUND)
		err = e4_bmap_find_zero_run(b, e4_bmap_start(b), e4_bmap_end(b), count, &c);
	if (err)
		return fail("find clusters", err);
	ino = (uint64_t)group * geo->inodes_per_group + 1;
	if (ino < geo->first_ino)
		ino = geo->first_ino;
	err = e4_bmap_find_zero_wrap(i, ino, &ino);
	if (err)
		return fail("find inode", err);
	err = e4_bmap_set_range(b, c, count);
	if (!err)
		err = e4_bmap_set(i, ino);
	if (err)
		return fail("mark", err);
	printf("blocks %llu %llu inode %llu\n", (unsigned long long)(c << geo->cluster_bits),
	       (unsigned long long)((c + count - 1) << geo->cluster_bits), (unsigned long long)ino);
	/* the allocation API's cached bitmaps must follow the store */
	if (e4_test_block(fs, c << geo->cluster_bits, &used) || used ||
	    e4_test_inode(fs, (e4_ino_t)ino, &used) || used)
		return fail("the taken block or inode was in use", 0);
	if (store_both(fs, b, i, 0))
		return 1;
	if (e4_test_block(fs, c << geo->cluster_bits, &used) || !used ||
	    e4_test_inode(fs, (e4_ino_t)ino, &used) || !used)
		return fail("the cached bitmaps do not show the stored map", 0);
	return 0;
}

static int cmd_give(e4_fs *fs, enum e4_bmap_kind kind, e4_blk_t blk, uint64_t count,
		    e4_ino_t ino)
{
	const struct e4_geom *geo = e4_geom(fs);
	struct e4_bmap *b, *i;

	if (load_both(fs, kind, 0, NULL, NULL, &b, &i))
		return 1;
	if (!e4_bmap_range_all_set(b, blk >> geo->cluster_bits, count) || !e4_bmap_test(i, ino))
		return fail("the blocks or the inode taken are not marked", 0);
	if (e4_bmap_clear_range(b, blk >> geo->cluster_bits, count) || e4_bmap_clear(i, ino))
		return fail("clear", 0);
	return store_both(fs, b, i, 0);
}

/* ---- checksums ---------------------------------------------------------- */
struct bad {
	char list[2][256];
};

static int note_bad(e4_fs *fs, e4_group_t g, errcode_t err, void *priv)
{
	struct bad *bad = priv;
	char *l = bad->list[err == E4_ERR_INODE_BITMAP_CSUM];

	(void)fs;
	snprintf(l + strlen(l), 256 - strlen(l), " %u", g);
	return 0;
}

static int cmd_csum(e4_fs *fs)
{
	struct bad bad;
	struct e4_bmap *b, *i;
	errcode_t err;

	memset(&bad, 0, sizeof(bad));
	err = e4_bmap_load_blocks(fs, E4_BMAP_RUNS, 0, note_bad, &bad, &b);
	if (err != E4_ERR_BLOCK_BITMAP_CSUM)
		return fail("a strict block load did not fail on its checksum", err);
	err = e4_bmap_load_inodes(fs, E4_BMAP_RUNS, 0, note_bad, &bad, &i);
	if (err != E4_ERR_INODE_BITMAP_CSUM)
		return fail("a strict inode load did not fail on its checksum", err);
	memset(&bad, 0, sizeof(bad));
	if (load_both(fs, E4_BMAP_FLAT, E4_BMAP_RELAX_CSUM, note_bad, &bad, &b, &i))
		return 1;
	printf("bad block groups:%s\nbad inode groups:%s\n", bad.list[0], bad.list[1]);
	return store_both(fs, b, i, 0);
}

int main(int argc, char **argv)
{
	e4_fs *fs;
	errcode_t err;
	int rc = 2;

	if (argc < 3) {
		fprintf(stderr, "usage: bmap_drv IMAGE check | store KIND [all] | "
			"take KIND GOAL COUNT GROUP | give KIND BLOCK COUNT INO | csum\n");
		return 2;
	}
	e4_init_errors();
	err = e4_open(argv[1], !strcmp(argv[2], "check") ? 0 : E4_OPEN_RW, 0, 0, &fs);
	if (err)
		return fail("open", err);
	if (!strcmp(argv[2], "check")) {
		rc = cmd_check(fs);
	} else if (!strcmp(argv[2], "csum")) {
		rc = cmd_csum(fs);
	} else if (argc >= 4 && kind_of(argv[3])) {
		enum e4_bmap_kind kind = kind_of(argv[3]);
		struct e4_bmap *b, *i;

		if (!strcmp(argv[2], "store") && argc <= 5)
			rc = load_both(fs, kind, 0, NULL, NULL, &b, &i) ||
			     store_both(fs, b, i, argc == 5 && !strcmp(argv[4], "all") ?
					E4_BMAP_STORE_ALL : 0);
		else if (!strcmp(argv[2], "take") && argc == 7)
			rc = cmd_take(fs, kind, strtoull(argv[4], NULL, 0), strtoull(argv[5], NULL, 0),
				      (e4_group_t)strtoul(argv[6], NULL, 0));
		else if (!strcmp(argv[2], "give") && argc == 7)
			rc = cmd_give(fs, kind, strtoull(argv[4], NULL, 0), strtoull(argv[5], NULL, 0),
				      (e4_ino_t)strtoul(argv[6], NULL, 0));
	}
	if (rc == 2)
		fprintf(stderr, "bmap_drv: bad arguments\n");
	err = e4_close(fs);
	if (err && !rc)
		return fail("close", err);
	return rc;
}
