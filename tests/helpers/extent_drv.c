/*
 * extent_drv: drives libe4's extent tree writers for tests/t/lib_extent.sh.
 *   extent_drv IMAGE random INO SEED STEPS NLBLK OUT
 *       STEPS random map operations (tests/helpers/extent_model.c) on the
 *       empty regular file INO, data blocks filled with their pattern,
 *       validated every 100 steps and at the end; i_size = NLBLK blocks;
 *       OUT gets what a reader of the file must see
 *   extent_drv IMAGE fragment INO SEED STEPS NLBLK OUT
 *       the same with short writes and punches only (many small extents)
 *   extent_drv IMAGE bulk INO N OUT
 *       the bulk builder: N one-block extents at logical 1, 3, 5, ...
 *       (every 7th unwritten); i_size = 2N + 1 blocks; OUT as above
 *   extent_drv IMAGE punch INO LBLK COUNT
 *       e4_extent_punch() on an existing file (COUNT "end": to the end)
 *   extent_drv IMAGE compact INO
 *       e4_extent_compact() on an existing file
 * Prints "depth D nodes N mapped M" (random, bulk), "freed F" (punch) or
 * "rebuilt R depth D" (compact);
 * exit 1 on the first error.
 */
#include "e4.h"
#include "extent_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check(const char *what, errcode_t err, const char *detail)
{
	if (err)
		fprintf(stderr, "extent_drv: %s: %s%s%s\n", what, error_message(err),
			detail && *detail ? ": " : "", detail ? detail : "");
	return err != 0;
}

static int write_expected(struct xm *m, const char *path)
{
	FILE *out = fopen(path, "wb");
	int bad = !out || xm_expected(m, out) != 0;

	if (out && fclose(out))
		bad = 1;
	if (bad)
		fprintf(stderr, "extent_drv: cannot write %s\n", path);
	return bad;
}

/* Write the file's inode and the bitmaps, the expected contents to out,
 * and the summary line. */
static int finish_run(struct xm *m, const char *out)
{
	if (check("finish", xm_finish(m), NULL) || write_expected(m, out))
		return 1;
	printf("depth %u nodes %llu mapped %llu\n", m->max_depth, (unsigned long long)m->nodes,
	       (unsigned long long)m->mapped);
	xm_free(m);
	return 0;
}

static int run_random(e4_fs *fs, e4_ino_t ino, uint64_t seed, unsigned long steps,
		      uint64_t nlblk, const char *out, int fragment)
{
	struct xm m;

	if (check("model", xm_init(&m, fs, ino, nlblk, 0, seed, 1), m.err))
		return 1;
	m.fragment = fragment;
	for (unsigned long s = 0; s < steps; s++) {
		if (check("step", xm_random_op(&m), m.err))
			return 1;
		if ((s % 100 == 99 || s + 1 == steps) && xm_validate(&m)) {
			fprintf(stderr, "extent_drv: step %lu: %s\n", s, m.err);
			return 1;
		}
	}
	return finish_run(&m, out);
}

static int run_bulk(e4_fs *fs, e4_ino_t ino, uint64_t n, const char *out)
{
	unsigned bs = e4_geom(fs)->block_size, nb = e4_extent_tree_blocks(fs, n);
	struct e4_map_extent *ext = calloc(n ? n : 1, sizeof(*ext));
	e4_blk_t *blks = calloc(nb ? nb : 1, sizeof(*blks)), goal;
	uint8_t *bufs = calloc(nb ? nb : 1, bs), *data = malloc(bs);
	struct xm m;
	errcode_t err = 0;

	if (!ext || !blks || !bufs || !data)
		return check("bulk", E4_ERR_NO_MEMORY, NULL);
	if (check("model", xm_init(&m, fs, ino, 2 * n + 1, 0, 1, 1), m.err))
		return 1;
	m.strict_merge = 0;	/* the extents are as given */
	/* the tree blocks near the inode's group, then the data after them */
	goal = e4_group_first_block(fs, e4_group_of_ino(fs, ino));
	for (unsigned i = 0; !err && i < nb; i++) {
		err = e4_block_find_free(fs, goal, 1, &blks[i]);
		if (!err)
			err = e4_block_mark(fs, blks[i], 1, 1, NULL);
		goal = blks[i] + 1;
	}
	for (uint64_t i = 0; !err && i < n; i++) {
		err = e4_block_find_free(fs, goal, 1, &ext[i].pblk);
		if (!err)
			err = e4_block_mark(fs, ext[i].pblk, 1, 1, NULL);
		goal = ext[i].pblk + 1;
		ext[i].lblk = 2 * i + 1;
		ext[i].len = 1;
		ext[i].flags = i % 7 == 3 ? E4_MAP_UNWRITTEN : 0;
		m.map[ext[i].lblk] = ext[i].pblk;
		m.unw[ext[i].lblk] = ext[i].flags ? 1 : 0;
		xm_pattern(ext[i].pblk, data, bs);
		if (!err)
			err = e4_io_pwrite(e4_fs_io(fs), ext[i].pblk * bs, data, bs);
	}
	m.mapped = n;
	if (check("allocate", err, NULL))
		return 1;
	err = e4_extent_tree_build_n(fs, ino, &m.ib.inode, ext, n, blks, nb, bufs);
	for (unsigned i = 0; !err && i < nb; i++)
		err = e4_io_write_blk(e4_fs_io(fs), blks[i], 1, bufs + (size_t)i * bs);
	if (!err)
		err = e4_inode_blocks_set(fs, &m.ib.inode, (n + nb) * (bs / 512));
	if (check("build", err, NULL))
		return 1;
	if (xm_validate(&m)) {
		fprintf(stderr, "extent_drv: bulk: %s\n", m.err);
		return 1;
	}
	if (finish_run(&m, out))
		return 1;
	free(ext);
	free(blks);
	free(bufs);
	free(data);
	return 0;
}

/* punch (count) or compact (count 0) an existing file */
static int run_change(e4_fs *fs, e4_ino_t ino, uint64_t lblk, uint64_t count)
{
	union e4_inode_buf ib;
	e4_extent_handle *h;
	uint64_t freed = 0;
	int rebuilt = 0;

	if (check("read inode", e4_inode_read(fs, ino, &ib), NULL) ||
	    check("open", e4_extent_open(fs, ino, &ib.inode, 0, &h), NULL))
		return 1;
	if (count ? check("punch", e4_extent_punch(h, lblk, count, &freed), NULL)
		  : check("compact", e4_extent_compact(h, &rebuilt), NULL))
		return 1;
	if (count)
		printf("freed %llu\n", (unsigned long long)freed);
	else
		printf("rebuilt %d depth %u\n", rebuilt, e4_extent_depth(h));
	e4_extent_close(h);
	if (check("write inode", e4_inode_write(fs, ino, &ib), NULL) ||
	    check("flush", e4_alloc_flush(fs), NULL))
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	e4_fs *fs;
	int bad;

	if (argc < 4) {
		fprintf(stderr, "usage: extent_drv IMAGE random INO SEED STEPS NLBLK OUT | "
				"bulk INO N OUT | punch INO LBLK COUNT | compact INO\n");
		return 2;
	}
	if (check("open", e4_open(argv[1], E4_OPEN_RW, 0, 0, &fs), argv[1]))
		return 1;
	if ((!strcmp(argv[2], "random") || !strcmp(argv[2], "fragment")) && argc == 8)
		bad = run_random(fs, (e4_ino_t)strtoul(argv[3], NULL, 0), strtoull(argv[4], NULL, 0),
				 strtoul(argv[5], NULL, 0), strtoull(argv[6], NULL, 0), argv[7],
				 !strcmp(argv[2], "fragment"));
	else if (!strcmp(argv[2], "bulk") && argc == 6)
		bad = run_bulk(fs, (e4_ino_t)strtoul(argv[3], NULL, 0), strtoull(argv[4], NULL, 0),
			       argv[5]);
	else if (!strcmp(argv[2], "punch") && argc == 6)
		bad = run_change(fs, (e4_ino_t)strtoul(argv[3], NULL, 0), strtoull(argv[4], NULL, 0),
				 strcmp(argv[5], "end") ? strtoull(argv[5], NULL, 0) : UINT64_MAX);
	else if (!strcmp(argv[2], "compact") && argc == 4)
		bad = run_change(fs, (e4_ino_t)strtoul(argv[3], NULL, 0), 0, 0);
	else {
		fprintf(stderr, "extent_drv: bad arguments\n");
		bad = 2;
	}
	if (check("close", e4_close(fs), NULL))
		return 1;
	return bad;
}
