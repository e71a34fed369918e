/* Unit tests for dir.c: rec_len encoding and decoding for every block size
 * from 1 KiB to 64 KiB (format doc 8.2), and the 2^18 scheme beyond; a
 * directory block in an unwritten extent read as stored, as the kernel
 * reads it (an mke2fs -d image; skipped without mke2fs); dir_repair.c's
 * record stores and leaf tail verification. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "e4.h"
#include "unit_images.h"

static struct unit_images imgs;
static const char *img_tree;
static char src[128];

/* A 1 MiB ext4 image holding /d/f. */
static int setup(void **state)
{
	char path[256];
	FILE *f;

	(void)state;
	e4_init_errors();
	if (unit_images_init(&imgs, "test_dir"))
		return -1;
	snprintf(src, sizeof(src), "%s/src", imgs.dir);
	snprintf(path, sizeof(path), "%s/d", src);
	if (mkdir(src, 0755) || mkdir(path, 0755))
		return -1;
	snprintf(path, sizeof(path), "%s/d/f", src);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fclose(f);
	snprintf(path, sizeof(path), "-t ext4 -N 32 -O ^has_journal -d %s", src);
	img_tree = unit_image_add(&imgs, "tree", path, "1M");
	return 0;
}

static int teardown(void **state)
{
	char path[256];

	(void)state;
	snprintf(path, sizeof(path), "%s/d/f", src);
	unlink(path);
	snprintf(path, sizeof(path), "%s/d", src);
	rmdir(path);
	rmdir(src);
	return unit_images_remove(&imgs);
}

static const unsigned block_sizes[] = { 1024, 2048, 4096, 8192, 16384, 32768, 65536 };
#define N_BS (sizeof(block_sizes) / sizeof(block_sizes[0]))

/* Every valid length survives encode + decode, for every block size. */
static void round_trip_all_lengths(void **state)
{
	unsigned i, len;
	uint16_t d;

	(void)state;
	for (i = 0; i < N_BS; i++) {
		unsigned bs = block_sizes[i];

		for (len = 4; len <= bs; len += 4) {
			assert_int_equal(e4_rec_len_to_disk(len, bs, &d), 0);
			assert_int_equal(e4_rec_len_from_disk(d, bs), len);
		}
	}
}

/* Below 64 KiB the stored value is the length itself. */
static void small_blocks_identity(void **state)
{
	unsigned i, v;
	uint16_t d;

	(void)state;
	for (i = 0; i < N_BS; i++) {
		unsigned bs = block_sizes[i];

		if (bs >= 65536)
			continue;
		for (v = 0; v <= 0xFFFF; v++)
			assert_int_equal(e4_rec_len_from_disk((uint16_t)v, bs), v);
		assert_int_equal(e4_rec_len_to_disk(12, bs, &d), 0);
		assert_int_equal(d, 12);
		assert_int_equal(e4_rec_len_to_disk(bs - 12, bs, &d), 0);
		assert_int_equal(d, bs - 12);
	}
}

/* A whole-block entry: stored as the block size below 64 KiB, as 0xFFFF
 * at 64 KiB. */
static void whole_block_entries(void **state)
{
	unsigned i;
	uint16_t d;

	(void)state;
	for (i = 0; i < N_BS; i++) {
		unsigned bs = block_sizes[i];

		assert_int_equal(e4_rec_len_to_disk(bs, bs, &d), 0);
		if (bs < 65536)
			assert_int_equal(d, bs);
		else
			assert_int_equal(d, 0xFFFF);
		assert_int_equal(e4_rec_len_from_disk(d, bs), bs);
	}
}

/* 0 decodes to 0 (invalid: shorter than any entry) below 64 KiB, and to
 * the whole block at 64 KiB, like 0xFFFF. */
static void stored_zero(void **state)
{
	unsigned i;

	(void)state;
	for (i = 0; i < N_BS; i++) {
		unsigned bs = block_sizes[i];

		if (bs < 65536)
			assert_true(e4_rec_len_from_disk(0, bs) < 8);
		else
			assert_int_equal(e4_rec_len_from_disk(0, bs), bs);
	}
	assert_int_equal(e4_rec_len_from_disk(0xFFFF, 65536), 65536);
}

/* 64 KiB: lengths below 65536 are stored as is, 0xFFFC is the largest
 * partial entry; the two low bits carry bits 16-17. */
static void large_block_values(void **state)
{
	uint16_t d;

	(void)state;
	assert_int_equal(e4_rec_len_to_disk(65532, 65536, &d), 0);
	assert_int_equal(d, 0xFFFC);
	assert_int_equal(e4_rec_len_from_disk(0xFFFC, 65536), 65532);
	assert_int_equal(e4_rec_len_to_disk(65524, 65536, &d), 0);
	assert_int_equal(d, 65524);
	assert_int_equal(e4_rec_len_from_disk(12, 65536), 12);
	/* Low bits set: 65536 + the rest. */
	assert_int_equal(e4_rec_len_from_disk(0x0001, 65536), 65536);
	assert_int_equal(e4_rec_len_from_disk(0x0005, 65536), 65540);
	assert_int_equal(e4_rec_len_from_disk(0xFFFD, 65536), 131068);
	/* Not multiples of 4, beyond the block, and 0: refused. */
	assert_int_equal(e4_rec_len_to_disk(65537, 65536, &d), E4_ERR_BAD_REC_LEN);
	assert_int_equal(e4_rec_len_to_disk(65540, 65536, &d), E4_ERR_BAD_REC_LEN);
	assert_int_equal(e4_rec_len_to_disk(14, 65536, &d), E4_ERR_BAD_REC_LEN);
	assert_int_equal(e4_rec_len_to_disk(0, 65536, &d), E4_ERR_BAD_REC_LEN);
}

static void invalid_lengths(void **state)
{
	unsigned i;
	uint16_t d;

	(void)state;
	for (i = 0; i < N_BS; i++) {
		unsigned bs = block_sizes[i];

		assert_int_equal(e4_rec_len_to_disk(0, bs, &d), E4_ERR_BAD_REC_LEN);
		assert_int_equal(e4_rec_len_to_disk(bs + 4, bs, &d), E4_ERR_BAD_REC_LEN);
		assert_int_equal(e4_rec_len_to_disk(2 * bs, bs, &d), E4_ERR_BAD_REC_LEN);
		assert_int_equal(e4_rec_len_to_disk(13, bs, &d), E4_ERR_BAD_REC_LEN);
		assert_int_equal(e4_rec_len_to_disk(bs - 2, bs, &d), E4_ERR_BAD_REC_LEN);
	}
}

/* Blocks above 64 KiB (never made by mke2fs; the scheme reaches 2^18). */
static void beyond_64k(void **state)
{
	unsigned bs, len;
	uint16_t d;

	(void)state;
	for (bs = 131072; bs <= 262144; bs *= 2) {
		for (len = 4; len <= bs; len += 4) {
			if (len == 0x3FFFC && bs > len) {
				/* Would be stored as 0xFFFF = whole block. */
				assert_int_equal(e4_rec_len_to_disk(len, bs, &d),
						 E4_ERR_BAD_REC_LEN);
				continue;
			}
			assert_int_equal(e4_rec_len_to_disk(len, bs, &d), 0);
			assert_int_equal(e4_rec_len_from_disk(d, bs), len);
		}
		/* A whole block is stored as 0 there. */
		assert_int_equal(e4_rec_len_to_disk(bs, bs, &d), 0);
		assert_int_equal(d, 0);
	}
	assert_int_equal(e4_rec_len_to_disk(65536, 262144, &d), 0);
	assert_int_equal(d, 1);
	assert_int_equal(e4_rec_len_to_disk(131076, 262144, &d), 0);
	assert_int_equal(d, 6);
	assert_int_equal(e4_rec_len_from_disk(6, 262144), 131076);
	assert_int_equal(e4_rec_len_to_disk(262148, 524288, &d), E4_ERR_BAD_REC_LEN);
}

static int count_cb(const struct e4_dirent *d, void *priv)
{
	(void)d;
	(*(unsigned *)priv)++;
	return 0;
}

/* /d's only block marked unwritten: its entries are still read (the
 * kernel lists them; e2fsck clears the flag and keeps them). */
static void unwritten_dir_block(void **state)
{
	union e4_inode_buf ib;
	struct ext4_extent *ex;
	e4_ino_t d, f;
	unsigned n = 0;
	e4_fs *fs;

	(void)state;
	if (!imgs.ok)
		skip();
	assert_int_equal(e4_open(img_tree, E4_OPEN_RW, 0, 0, &fs), 0);
	assert_int_equal(e4_dir_lookup(fs, EXT4_ROOT_INO, "d", 1, &d, NULL), 0);
	assert_int_equal(e4_inode_read(fs, d, &ib), 0);
	assert_true(e4_le32(ib.inode.i_flags) & EXT4_EXTENTS_FL);
	ex = (struct ext4_extent *)((uint8_t *)ib.inode.i_block +
				    sizeof(struct ext4_extent_header));
	assert_int_equal(e4_le16(ex->ee_len), 1);
	ex->ee_len = e4_cpu_to_le16(1 + EXT_INIT_MAX_LEN);
	assert_int_equal(e4_inode_write(fs, d, &ib), 0);
	assert_int_equal(e4_close(fs), 0);

	assert_int_equal(e4_open(img_tree, 0, 0, 0, &fs), 0);
	assert_int_equal(e4_dir_iterate(fs, d, E4_DIR_NO_DOTS, count_cb, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(e4_dir_lookup(fs, d, "f", 1, &f, NULL), 0);
	assert_true(f > EXT4_ROOT_INO);
	assert_int_equal(e4_close(fs), 0);
}

/* dir_repair.c: a record header stored for a 64 KiB block reads back
 * (a whole-block record as 0xFFFF); records that would not fit are
 * refused with nothing stored. */
static void dirent_put_64k(void **state)
{
	static uint8_t blk[65536];
	struct e4_dirent_raw d;

	(void)state;
	memset(blk, 0xAA, sizeof(blk));
	assert_int_equal(e4_dirent_put(blk, 65536, 0, 0, 65536, 0, 0), 0);
	assert_int_equal(blk[4], 0xFF);
	assert_int_equal(blk[5], 0xFF);
	assert_int_equal(e4_dirent_raw_at(blk, 65536, 0, &d), 0);
	assert_int_equal(d.rec_len, 65536);
	assert_int_equal(e4_dirent_put(blk, 65536, 12, 11, 65524, 3, 1), 0);
	assert_int_equal(e4_dirent_put_name(blk, 65536, 12, "abc", 3), 0);
	assert_int_equal(e4_dirent_raw_at(blk, 65536, 12, &d), 0);
	assert_int_equal(d.rec_len, 65524);
	assert_int_equal(d.inode, 11);
	assert_memory_equal(d.name, "abc", 3);
	/* past the block, a name longer than the record, not a multiple of 4 */
	assert_int_equal(e4_dirent_put(blk, 65536, 12, 11, 65528, 3, 1), E4_ERR_BAD_REC_LEN);
	assert_int_equal(e4_dirent_put(blk, 65536, 0, 11, 12, 5, 1), E4_ERR_BAD_REC_LEN);
	assert_int_equal(e4_dirent_put(blk, 65536, 0, 11, 14, 1, 1), E4_ERR_BAD_REC_LEN);
	assert_int_equal(e4_dirent_raw_at(blk, 65536, 12, &d), 0);
	assert_int_equal(d.rec_len, 65524);
	assert_int_equal(e4_dirent_min_len(1), 12);
	assert_int_equal(e4_dirent_min_len(5), 16);
}

/* dir_repair.c: a leaf's tail is found by following the records: a last
 * record running over the tail's bytes means no tail, whatever they
 * hold; a changed byte, a checksum that differs. */
static void leaf_tail_verify(void **state)
{
	union e4_inode_buf ib;
	uint8_t blk[4096];
	struct e4_dirent_raw d;
	unsigned off = 0, last = 0, bs;
	e4_ino_t dir;
	uint32_t gen;
	e4_fs *fs;

	(void)state;
	if (!imgs.ok)
		skip();
	assert_int_equal(e4_open(img_tree, 0, 0, 0, &fs), 0);
	bs = e4_geom(fs)->block_size;
	assert_true(bs <= sizeof(blk));
	assert_int_equal(e4_dir_lookup(fs, EXT4_ROOT_INO, "d", 1, &dir, NULL), 0);
	assert_int_equal(e4_inode_read(fs, dir, &ib), 0);
	gen = e4_le32(ib.inode.i_generation);
	assert_int_equal(e4_dir_block_read(fs, dir, &ib.inode, 0, blk, NULL), 0);
	if (!e4_geom(fs)->metadata_csum) {
		e4_close(fs);
		skip();
	}
	assert_int_equal(e4_dir_leaf_csum_verify(fs, dir, gen, blk), 0);
	blk[bs - 1] ^= 1;
	assert_int_equal(e4_dir_leaf_csum_verify(fs, dir, gen, blk), E4_ERR_DIR_CSUM);
	blk[bs - 1] ^= 1;
	while (off < bs - 12 && !e4_dirent_raw_at(blk, bs, off, &d)) {
		last = off;
		off += d.rec_len;
	}
	assert_int_equal(off, bs - 12);
	assert_int_equal(e4_dirent_raw_at(blk, bs, last, &d), 0);
	assert_int_equal(e4_dirent_put(blk, bs, last, d.inode, d.rec_len + 12, d.name_len,
				       d.file_type), 0);
	assert_int_equal(e4_dir_leaf_csum_verify(fs, dir, gen, blk), E4_ERR_DIR_NO_CSUM_TAIL);
	assert_int_equal(e4_close(fs), 0);
}

/* e4_dir_block_is_first(): the root's and /d's first blocks are; a
 * block read for another inode, '.' damaged, a rec_len past the block,
 * a file's block are not. */
static void first_block_witness(void **state)
{
	union e4_inode_buf ib;
	uint8_t buf[65536];
	e4_ino_t d, f, dd = 0;
	e4_fs *fs;

	(void)state;
	if (!imgs.ok)
		skip();
	assert_int_equal(e4_open(img_tree, 0, 0, 0, &fs), 0);
	assert_int_equal(e4_inode_read(fs, EXT4_ROOT_INO, &ib), 0);
	assert_int_equal(e4_dir_block_read(fs, EXT4_ROOT_INO, &ib.inode, 0, buf, NULL), 0);
	assert_int_equal(e4_dir_block_is_first(fs, EXT4_ROOT_INO, buf, &dd), 1);
	assert_int_equal(dd, EXT4_ROOT_INO);
	assert_int_equal(e4_dir_block_is_first(fs, 12, buf, &dd), 0);
	buf[0] ^= 1;	/* '.' names another inode */
	assert_int_equal(e4_dir_block_is_first(fs, EXT4_ROOT_INO, buf, &dd), 0);
	buf[0] ^= 1;
	buf[12 + 4] = 0xfc;	/* '..' runs past the block */
	buf[12 + 5] = 0xff;
	assert_int_equal(e4_dir_block_is_first(fs, EXT4_ROOT_INO, buf, &dd), 0);
	assert_int_equal(e4_dir_lookup(fs, EXT4_ROOT_INO, "d", 1, &d, NULL), 0);
	assert_int_equal(e4_inode_read(fs, d, &ib), 0);
	assert_int_equal(e4_dir_block_read(fs, d, &ib.inode, 0, buf, NULL), 0);
	assert_int_equal(e4_dir_block_is_first(fs, d, buf, &dd), 1);
	assert_int_equal(dd, EXT4_ROOT_INO);
	assert_int_equal(e4_dir_lookup(fs, d, "f", 1, &f, NULL), 0);
	assert_int_equal(e4_inode_read(fs, f, &ib), 0);
	if (e4_inode_size(&ib.inode)) {
		assert_int_equal(e4_dir_block_read(fs, f, &ib.inode, 0, buf, NULL), 0);
		assert_int_equal(e4_dir_block_is_first(fs, f, buf, &dd), 0);
	}
	assert_int_equal(e4_close(fs), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(first_block_witness),
		cmocka_unit_test(round_trip_all_lengths),
		cmocka_unit_test(small_blocks_identity),
		cmocka_unit_test(whole_block_entries),
		cmocka_unit_test(stored_zero),
		cmocka_unit_test(large_block_values),
		cmocka_unit_test(invalid_lengths),
		cmocka_unit_test(beyond_64k),
		cmocka_unit_test(unwritten_dir_block),
		cmocka_unit_test(dirent_put_64k),
		cmocka_unit_test(leaf_tail_verify),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
