/*
 * Unit tests for the buffered inode scan (inode_scan.c; ops.h): on images
 * the reference mke2fs makes (the kinds of test_ops.c) after random
 * operations, every inode the scan gives equals e4_inode_read()'s, the
 * inodes it skips (unused tails, INODE_UNINIT groups) are free, chunks of
 * one block, three blocks and the default, with and without read-ahead;
 * a descriptor failing its checksum is not believed (its whole table is
 * read), nor one whose counts contradict its INODE_UNINIT or unused
 * inodes count, nor (E4_SCAN_CHECK_BITMAP) one whose inode bitmap marks
 * an inode in use past that count; a chunk that cannot be read is reported once with its inode
 * count and the scan goes on; with E4_MATRIX set, every matrix image.
 * A bug it catches: a scan that skips an inode in use (an off-by-one in
 * the unused tail), or believes INODE_UNINIT of a damaged descriptor.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "e4.h"
#include "unit_images.h"
#include "unit_oracle.h"
#define OPS_TEST_TAG "test_inode_scan"
#include "unit_opsmodel.h"

/* ---- the buffered inode scan -------------------------------------------- */

struct fail_at {
	uint64_t lo, hi;	/* byte range whose reads fail */
};

static errcode_t fail_read(void *priv, uint64_t offset, size_t len)
{
	const struct fail_at *f = priv;

	return offset < f->hi && offset + len > f->lo ? EIO : 0;
}

/* Every inode the scan gives equals e4_inode_read's; the ones it skips
 * are in unused tails or INODE_UNINIT groups (never in use). */
static void scan_compare(e4_fs *fs, size_t chunk, unsigned flags, uint64_t *skipped)
{
	const struct e4_geom *g = e4_geom(fs);
	e4_inode_scan *s;
	const struct ext4_inode *in;
	union e4_inode_buf ib;
	e4_ino_t ino, expect = 1;
	uint64_t bytes;
	int ok;

	assert_int_equal(e4_inode_scan_open(fs, chunk, flags, &s), 0);
	while (!e4_inode_scan_next(s, &ino, &in, NULL, &ok)) {
		assert_true(ino >= expect);
		for (; expect < ino; expect++) {	/* skipped: free */
			int used = 1;

			assert_false(flags & E4_SCAN_ALL_INODES);
			assert_int_equal(e4_test_inode(fs, expect, &used), 0);
			assert_int_equal(used, 0);
		}
		if (e4_inode_read(fs, ino, &ib) == 0 || !(flags & E4_SCAN_ALL_INODES))
			assert_memory_equal(in, ib.raw, g->inode_size);
		assert_int_equal(ok, 1);
		expect = ino + 1;
	}
	assert_int_equal(ino, 0);
	e4_inode_scan_stats(s, &bytes, skipped);
	assert_true(bytes <= (uint64_t)g->group_count * g->inode_blocks_per_group * g->block_size);
	e4_inode_scan_close(s);
}

/* Inodes the scan (flags) reports from group g. */
static uint32_t scan_group_count_f(e4_fs *fs, e4_group_t g, unsigned flags)
{
	const struct ext4_inode *in;
	e4_inode_scan *s;
	e4_ino_t ino;
	uint32_t n = 0, ipg = e4_geom(fs)->inodes_per_group;

	assert_int_equal(e4_inode_scan_open(fs, 0, flags, &s), 0);
	while (!e4_inode_scan_next(s, &ino, &in, NULL, NULL))
		n += (ino - 1) / ipg == g;
	e4_inode_scan_close(s);
	return n;
}

static uint32_t scan_group_count(e4_fs *fs, e4_group_t g)
{
	return scan_group_count_f(fs, g, 0);
}

/* Descriptors with right checksums whose counts contradict INODE_UNINIT
 * or bg_itable_unused: not believed, group 0's whole table is read
 * (in memory; the descriptor put back after).  A count consistent in
 * itself that covers an inode the bitmap marks in use: read whole with
 * E4_SCAN_CHECK_BITMAP only. */
static void scan_contradicted(e4_fs *fs)
{
	const struct e4_geom *g = e4_geom(fs);
	uint32_t ipg = g->inodes_per_group, last = 0;
	struct e4_group keep, d;

	assert_int_equal(e4_group_get(fs, 0, &keep), 0);
	for (uint32_t k = 1; k <= ipg; k++) {
		int used = 0;

		assert_int_equal(e4_test_inode(fs, k, &used), 0);
		if (used)
			last = k;
	}
	assert_true(last >= g->first_ino - 1 && last < ipg);
	/* more unused inodes than free ones */
	d = keep;
	d.itable_unused = d.free_inodes + 1;
	assert_int_equal(e4_group_set(fs, 0, &d), 0);
	assert_true(e4_group_csum_ok(fs, 0));
	assert_int_equal(scan_group_count(fs, 0), ipg);
	/* INODE_UNINIT with inodes counted in use */
	d = keep;
	d.flags |= EXT4_BG_INODE_UNINIT;
	assert_int_equal(e4_group_set(fs, 0, &d), 0);
	assert_int_equal(scan_group_count(fs, 0), ipg);
	/* consistent counts hiding the last inode in use */
	d = keep;
	d.itable_unused = d.free_inodes = ipg - last + 1;
	d.used_dirs = 0;
	assert_int_equal(e4_group_set(fs, 0, &d), 0);
	assert_int_equal(scan_group_count(fs, 0), last - 1);
	assert_int_equal(scan_group_count_f(fs, 0, E4_SCAN_CHECK_BITMAP), ipg);
	/* the descriptor as it was: believed, with the bitmap too */
	assert_int_equal(e4_group_set(fs, 0, &keep), 0);
	assert_int_equal(scan_group_count_f(fs, 0, E4_SCAN_CHECK_BITMAP),
			 ipg - keep.itable_unused);
}

/* A descriptor whose checksum fails: its INODE_UNINIT and
 * bg_itable_unused are not believed, the whole table is read. */
static void scan_untrusted(e4_fs *fs, const char *img)
{
	const struct e4_geom *g = e4_geom(fs);
	e4_group_t last = g->group_count - 1;
	struct e4_group gr;
	/* the descriptor table follows the superblock's block (byte 1024) */
	uint64_t off = (uint64_t)(1024 / g->block_size + 1) * g->block_size +
		       (uint64_t)last * g->desc_size + 0x1E;	/* bg_checksum */
	uint8_t b[2];
	FILE *f;
	e4_fs *ro;

	assert_int_equal(e4_group_get(fs, last, &gr), 0);
	assert_true(gr.itable_unused > 0);
	assert_int_equal(scan_group_count(fs, last), g->inodes_per_group - gr.itable_unused);
	assert_int_equal(e4_flush(fs), 0);
	f = fopen(img, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, (long)off, SEEK_SET), 0);
	assert_int_equal(fread(b, 1, 2, f), 2);
	b[0] ^= 0xFF;
	assert_int_equal(fseek(f, (long)off, SEEK_SET), 0);
	assert_int_equal(fwrite(b, 1, 2, f), 2);
	fclose(f);
	assert_int_equal(e4_open(img, E4_OPEN_IGNORE_CSUM, 0, 0, &ro), 0);
	assert_false(e4_group_csum_ok(ro, last));
	assert_int_equal(scan_group_count(ro, last), g->inodes_per_group);
	e4_close(ro);
}

static void inode_scan(void **state)
{
	(void)state;
	for (size_t k = 0; k < NKINDS; k++) {
		const char *img;
		e4_fs *fs = image(&kinds[k], "scan", &img);
		uint32_t seed = 0x5ca40000u + (uint32_t)k;
		unsigned id = 0;
		struct omodel m;
		uint64_t skipped;

		model_start(fs, &m);
		for (int i = 0; i < 300; i++)
			random_op(fs, &m, &seed, &id);
		/* chunks of one block, 3 blocks, the default */
		scan_compare(fs, 1, 0, &skipped);
		scan_compare(fs, 3 * e4_geom(fs)->block_size, E4_SCAN_READAHEAD, &skipped);
		scan_compare(fs, 0, 0, &skipped);
		/* uninit_bg / metadata_csum: unused tails and groups not read */
		assert_int_equal(skipped > 0, e4_geom(fs)->gdt_csum || e4_geom(fs)->metadata_csum);
		scan_compare(fs, 0, E4_SCAN_ALL_INODES, &skipped);
		om_free(&m);
		if (e4_geom(fs)->metadata_csum) {
			scan_contradicted(fs);
			scan_untrusted(fs, img);
		}
		e4_close(fs);
		unlink(img);
	}
}

/* Every image of the test matrix (E4_MATRIX, when set: populated trees,
 * every layout the matrix makes), opened read-only. */
static void inode_scan_matrix(void **state)
{
	const char *dir = getenv("E4_MATRIX");
	struct dirent *de;
	unsigned n = 0;
	DIR *dp;

	(void)state;
	if (!dir || !(dp = opendir(dir))) {
		fprintf(stderr, "E4_MATRIX not set: the matrix images are not scanned\n");
		return;
	}
	while ((de = readdir(dp))) {
		size_t l = strlen(de->d_name);
		char path[512];
		uint64_t skipped;
		e4_fs *fs;

		if (l < 5 || strcmp(de->d_name + l - 4, ".img"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (e4_open(path, 0, 0, 0, &fs))
			continue;	/* images made to be refused */
		scan_compare(fs, 0, 0, &skipped);
		e4_close(fs);
		n++;
	}
	closedir(dp);
	fprintf(stderr, "%u matrix images scanned\n", n);
	assert_true(n > 0);
}

/* A chunk that cannot be read is reported once, with its inodes counted,
 * and the scan goes on after it. */
static void inode_scan_read_error(void **state)
{
	const char *img;
	e4_fs *fs = image(&kinds[1], "scanerr", &img);
	const struct e4_geom *g = e4_geom(fs);
	struct e4_group gr;
	struct fail_at f;
	e4_inode_scan *s;
	const struct ext4_inode *in;
	e4_ino_t ino, last = 0;
	uint32_t count, errors = 0, after = 0;
	errcode_t err;

	(void)state;
	assert_int_equal(e4_group_get(fs, 0, &gr), 0);
	/* the second chunk of 2 blocks of group 0's table fails */
	f.lo = (gr.inode_table + 2) * (uint64_t)g->block_size;
	f.hi = f.lo + 2 * (uint64_t)g->block_size;
	e4_io_set_read_hook(e4_fs_io(fs), fail_read, &f);
	assert_int_equal(e4_inode_scan_open(fs, 2 * g->block_size, 0, &s), 0);
	while ((err = e4_inode_scan_next(s, &ino, &in, &count, NULL)) != E4_ERR_NOT_FOUND) {
		if (err) {
			errors++;
			assert_int_equal(err, EIO);
			assert_int_equal(ino, 2 * g->block_size / g->inode_size + 1);
			assert_int_equal(count, 2 * g->block_size / g->inode_size);
			last = ino + count - 1;
			continue;
		}
		if (last)
			after++;
		assert_true(ino > last);
	}
	assert_int_equal(errors, 1);
	assert_true(after > 0);
	e4_inode_scan_close(s);
	e4_io_set_read_hook(e4_fs_io(fs), NULL, NULL);
	e4_close(fs);
	unlink(img);
}

/* A chunk of 4 blocks whose third block alone fails: the chunk is read
 * again block by block and only that block's inodes are reported. */
static void inode_scan_read_error_block(void **state)
{
	const char *img;
	e4_fs *fs = image(&kinds[1], "scanerr1", &img);
	const struct e4_geom *g = e4_geom(fs);
	uint32_t ipb = g->block_size / g->inode_size;
	struct e4_group gr;
	struct fail_at f;
	e4_inode_scan *s;
	const struct ext4_inode *in;
	e4_ino_t ino, next = 1;
	uint32_t count, errors = 0;
	errcode_t err;

	(void)state;
	assert_int_equal(e4_group_get(fs, 0, &gr), 0);
	f.lo = (gr.inode_table + 2) * (uint64_t)g->block_size;
	f.hi = f.lo + g->block_size;
	e4_io_set_read_hook(e4_fs_io(fs), fail_read, &f);
	assert_int_equal(e4_inode_scan_open(fs, 4 * g->block_size, 0, &s), 0);
	while ((err = e4_inode_scan_next(s, &ino, &in, &count, NULL)) != E4_ERR_NOT_FOUND) {
		if (ino > 4 * ipb)
			break;
		assert_int_equal(ino, next);
		if (err) {
			errors++;
			assert_int_equal(err, EIO);
			assert_int_equal(ino, 2 * ipb + 1);
			assert_int_equal(count, ipb);
			next = ino + count;
			continue;
		}
		next = ino + 1;
	}
	assert_int_equal(errors, 1);
	assert_int_equal(next, 4 * ipb + 1);
	e4_inode_scan_close(s);
	e4_io_set_read_hook(e4_fs_io(fs), NULL, NULL);
	e4_close(fs);
	unlink(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(inode_scan),
		cmocka_unit_test(inode_scan_read_error),
		cmocka_unit_test(inode_scan_read_error_block),
		cmocka_unit_test(inode_scan_matrix),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
