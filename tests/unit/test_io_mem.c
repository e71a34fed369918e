/* Unit tests for the memory device (io.c e4_io_open_mem, io_mem.c) the
 * fuzz targets open filesystems on (issue 18), and e4_open_io. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "e4.h"
#include "unit_images.h"

static struct unit_images imgs;
static const char *img;

static int setup(void **state)
{
	(void)state;
	e4_init_errors();
	if (unit_images_init(&imgs, "test_io_mem"))
		return -1;
	img = unit_image_add(&imgs, "plain", "-t ext4 -b 1024 -N 32 -O metadata_csum", "2M");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return unit_images_remove(&imgs);
}

/* Unwritten bytes read as zeros up to the size; loaded and written bytes
 * read back, across page boundaries; nothing past the size. */
static void reads_and_writes(void **state)
{
	uint8_t buf[10000], got[10000];
	e4_io *io;

	(void)state;
	assert_int_equal(e4_io_open_mem(1ULL << 40, 1 << 20, E4_IO_RW, &io), 0);
	assert_int_equal(e4_io_size(io), 1ULL << 40);
	memset(got, 0xAA, sizeof(got));
	assert_int_equal(e4_io_pread(io, (1ULL << 40) - sizeof(got), got, sizeof(got)), 0);
	for (size_t i = 0; i < sizeof(got); i++)
		assert_int_equal(got[i], 0);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 + 1);
	/* straddles three pages, one of them far away from the others */
	assert_int_equal(e4_io_mem_load(io, 4000, buf, sizeof(buf)), 0);
	assert_int_equal(e4_io_pwrite(io, (1ULL << 39) + 4090, buf, 20), 0);
	assert_int_equal(e4_io_pread(io, 4000, got, sizeof(buf)), 0);
	assert_memory_equal(got, buf, sizeof(buf));
	assert_int_equal(e4_io_pread(io, (1ULL << 39) + 4080, got, 40), 0);
	for (int i = 0; i < 10; i++)
		assert_int_equal(got[i], 0);
	assert_memory_equal(got + 10, buf, 20);
	for (int i = 30; i < 40; i++)
		assert_int_equal(got[i], 0);
	assert_int_equal(e4_io_pread(io, 1ULL << 40, got, 1), E4_ERR_SHORT_READ);
	assert_int_equal(e4_io_mem_load(io, (1ULL << 40) - 1, buf, 2), E4_ERR_SHORT_WRITE);
	/* blocks through the cache, then flushed into the store */
	assert_int_equal(e4_io_set_blksize(io, 4096), 0);
	assert_int_equal(e4_io_write_blk(io, 5, 1, buf), 0);
	assert_int_equal(e4_io_flush(io), 0);
	assert_int_equal(e4_io_pread(io, 5 * 4096, got, 4096), 0);
	assert_memory_equal(got, buf, 4096);
	e4_io_close(io);
}

/* Stored bytes are bounded: a write needing one more page fails with
 * ENOSPC; zeros need no page; without E4_IO_NO_GROW the size grows, with
 * it a write past the end fails; a read-only device refuses writes. */
static void bounds(void **state)
{
	uint8_t page[4096], zeros[8192] = { 0 };
	e4_io *io;

	(void)state;
	memset(page, 1, sizeof(page));
	assert_int_equal(e4_io_open_mem(1 << 20, 2 * 4096, E4_IO_RW, &io), 0);
	assert_int_equal(e4_io_pwrite(io, 0, page, sizeof(page)), 0);
	assert_int_equal(e4_io_pwrite(io, 8192, page, sizeof(page)), 0);
	assert_int_equal(e4_io_pwrite(io, 16384, page, sizeof(page)), ENOSPC);
	assert_int_equal(e4_io_pwrite(io, 32768, zeros, sizeof(zeros)), 0);
	assert_int_equal(e4_io_pwrite(io, 1 << 20, zeros, 1), 0);
	assert_int_equal(e4_io_size(io), (1 << 20) + 1);
	e4_io_close(io);
	assert_int_equal(e4_io_open_mem(4096, 1 << 20, E4_IO_RW | E4_IO_NO_GROW, &io), 0);
	assert_int_equal(e4_io_pwrite(io, 4095, page, 2), E4_ERR_SHORT_WRITE);
	e4_io_close(io);
	assert_int_equal(e4_io_open_mem(4096, 1 << 20, 0, &io), 0);
	assert_int_equal(e4_io_pwrite(io, 0, page, 1), E4_ERR_READ_ONLY);
	assert_int_equal(e4_io_mem_load(io, 0, page, 1), 0);
	e4_io_close(io);
}

/* The image file into a new memory device. */
static e4_io *load_image(void)
{
	static uint8_t data[2 << 20];
	FILE *f = fopen(img, "rb");
	size_t n;
	e4_io *io;

	assert_non_null(f);
	n = fread(data, 1, sizeof(data), f);
	fclose(f);
	assert_int_equal(n, 2 << 20);
	assert_int_equal(e4_io_open_mem(n, 1 << 22, E4_IO_RW | E4_IO_NO_GROW, &io), 0);
	assert_int_equal(e4_io_mem_load(io, 0, data, n), 0);
	return io;
}

/* Every checksum must change (a new UUID) and the root's extent header
 * is broken: e4_csum_rewrite_all stops at the root and leaves the old
 * UUID on disk; e4_csum_rewrite_best_effort passes over it, rewrites the
 * rest (lost+found, the descriptors, the superblock) and returns the
 * root's error. */
static void csum_best_effort(void **state)
{
	union e4_inode_buf ib;
	uint8_t uuid[16];

	(void)state;
	if (!imgs.ok)
		skip();
	for (int best = 0; best < 2; best++) {
		e4_io *io = load_image();
		e4_fs *fs;

		assert_int_equal(e4_open_io(io, "mem", E4_OPEN_RW, 0, 0, &fs), 0);
		assert_true(e4_geom(fs)->metadata_csum);
		assert_int_equal(e4_inode_read(fs, EXT4_ROOT_INO, &ib), 0);
		ib.inode.i_block[0] = 0;
		assert_int_equal(e4_inode_write(fs, EXT4_ROOT_INO, &ib), 0);
		e4_super(fs)->s_uuid[0] ^= 1;
		memcpy(uuid, e4_super(fs)->s_uuid, 16);
		if (best)
			assert_int_equal(e4_csum_rewrite_best_effort(fs), E4_ERR_EXTENT_HEADER);
		else
			assert_int_not_equal(e4_csum_rewrite_all(fs, NULL), 0);
		assert_int_equal(e4_close(fs), 0);
		assert_int_equal(e4_open_io(io, "mem", 0, 0, 0, &fs), 0);
		if (best) {
			assert_memory_equal(e4_super(fs)->s_uuid, uuid, 16);
			assert_int_equal(e4_check_group_descs(fs, NULL), 0);
			assert_int_equal(e4_inode_read(fs, 11, &ib), 0);
			assert_int_equal(e4_inode_read(fs, EXT4_ROOT_INO, &ib), 0);
		} else {
			assert_memory_not_equal(e4_super(fs)->s_uuid, uuid, 16);
		}
		assert_int_equal(e4_close(fs), 0);
		e4_io_close(io);
	}
}

/* e4_open_io leaves the device open: a filesystem loaded into memory
 * opens, is changed through the library, closes, and opens again as the
 * first open left it; an empty device has no filesystem. */
static void open_io(void **state)
{
	e4_io *io;
	e4_fs *fs;

	(void)state;
	if (!imgs.ok)
		skip();
	assert_int_equal(e4_io_open_mem(2 << 20, 1 << 22, 0, &io), 0);
	assert_int_equal(e4_open_io(io, "mem", 0, 0, 0, &fs), E4_ERR_BAD_MAGIC);
	assert_null(fs);
	e4_io_close(io);
	io = load_image();
	assert_int_equal(e4_open_io(io, "mem", E4_OPEN_RW, 0, 0, &fs), 0);
	assert_string_equal(e4_device_name(fs), "mem");
	assert_int_equal(e4_geom(fs)->blocks_count, 2048);
	memcpy(e4_super(fs)->s_volume_name, "memlabel", 8);
	assert_int_equal(e4_super_write(fs), 0);
	assert_int_equal(e4_close(fs), 0);
	assert_int_equal(e4_open_io(io, "mem", 0, 0, 0, &fs), 0);
	assert_memory_equal(e4_super(fs)->s_volume_name, "memlabel", 8);
	assert_int_equal(e4_close(fs), 0);
	e4_io_close(io);
}

struct wlog {
	uint64_t off[64];
	unsigned n;
};

static errcode_t log_write(void *priv, uint64_t offset, size_t len)
{
	struct wlog *w = priv;

	(void)len;
	if (w->n < 64)
		w->off[w->n++] = offset;
	return 0;
}

/* e4_alloc_flush() writes the superblock last of all (DESIGN.md "Writing
 * safely"), after the blocks dirtied before it: here a data block, then
 * (after an ordering point, e4_order_point()) the inode that reaches it.
 * The data block goes out before the inode's table block although it
 * lies after it.  Bug it catches: the superblock written back with them
 * in block order (block 1 before the inode table), so a stop in between
 * leaves the superblock's new state with old blocks. */
static void superblock_last(void **state)
{
	union e4_inode_buf ib;
	struct wlog w = { .n = 0 };
	uint8_t blk[1024];
	e4_blk_t free_blk;
	e4_ino_t ino;
	uint64_t ioff;
	unsigned at_data = 99, at_inode = 99;
	e4_io *io;
	e4_fs *fs;

	(void)state;
	if (!imgs.ok)
		skip();
	io = load_image();
	assert_int_equal(e4_open_io(io, "mem", E4_OPEN_RW, 0, 0, &fs), 0);
	assert_int_equal(e4_inode_find_free(fs, 0, &ino), 0);
	assert_int_equal(e4_block_find_free(fs, 0, 1, &free_blk), 0);
	e4_io_set_write_hook(io, log_write, &w);
	memset(&ib, 0, sizeof(ib));
	ib.inode.i_mode = e4_cpu_to_le16(0100644);
	ib.inode.i_links_count = e4_cpu_to_le16(1);
	assert_int_equal(e4_inode_mark(fs, ino, 1, 0, NULL), 0);
	assert_int_equal(e4_block_mark(fs, free_blk, 1, 1, NULL), 0);
	memset(blk, 0x5a, sizeof(blk));
	assert_int_equal(e4_io_write_blk(io, free_blk, 1, blk), 0);
	assert_int_equal(e4_order_point(fs), 0);
	ib.inode.i_block[0] = e4_cpu_to_le32((uint32_t)free_blk);
	assert_int_equal(e4_inode_write(fs, ino, &ib), 0);
	assert_int_equal(e4_inode_location(fs, ino, &ioff), 0);
	assert_true(ioff / 1024 < free_blk);
	assert_int_equal(e4_alloc_flush(fs), 0);
	/* bitmaps, descriptors, the data block, the inode table, superblock */
	assert_true(w.n >= 4);
	assert_int_equal(w.off[w.n - 1], 1024);
	for (unsigned i = 0; i + 1 < w.n; i++) {
		assert_int_not_equal(w.off[i], 1024);
		if (w.off[i] == free_blk * 1024)
			at_data = i;
		if (w.off[i] == ioff / 1024 * 1024)
			at_inode = i;
	}
	assert_true(at_data < at_inode && at_inode < w.n);
	e4_io_set_write_hook(io, NULL, NULL);
	assert_int_equal(e4_close(fs), 0);
	e4_io_close(io);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_and_writes),
		cmocka_unit_test(bounds),
		cmocka_unit_test(open_io),
		cmocka_unit_test(csum_best_effort),
		cmocka_unit_test(superblock_last),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
