/* Unit tests for xattr.c's entry checks (format doc section 9): an entry
 * whose value lives in an EA inode is accepted only as the kernel accepts
 * it: the ea_inode feature, an ordinary inode number (first_ino up to the
 * inode count) and a value size that is not 0.  An in-inode area is built
 * in memory against two small mke2fs images (with and without ea_inode).
 * Catches: an entry with an EA inode and size 0 listed as an attribute
 * (the kernel calls the area corrupt: "invalid size in ea xattr").
 * Needs mke2fs (REF_MKE2FS or PATH); skipped without it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "e4.h"
#include "unit_images.h"

#define EXTRA	32

static struct unit_images imgs;
static const char *img_ea, *img_plain;

static int setup(void **state)
{
	(void)state;
	e4_init_errors();
	if (unit_images_init(&imgs, "test_xattr"))
		return -1;
	img_ea = unit_image_add(&imgs, "ea", "-t ext4 -I 256 -N 32 -O ea_inode,^has_journal", "1M");
	img_plain = unit_image_add(&imgs, "plain", "-t ext4 -I 256 -N 32 -O ^has_journal", "1M");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return unit_images_remove(&imgs);
}

static void put32(uint8_t *p, uint32_t v)
{
	v = e4_cpu_to_le32(v);
	memcpy(p, &v, 4);
}

/* An inode whose in-inode area holds one entry "user.v": a value of 4
 * bytes in place (inum 0) or in EA inode inum with the given size. */
static void make_inode(union e4_inode_buf *ib, uint32_t inum, uint32_t size)
{
	uint8_t *area = ib->raw + EXT4_GOOD_OLD_INODE_SIZE + EXTRA;
	uint8_t *e = area + 4;

	memset(ib, 0, sizeof(*ib));
	ib->inode.i_mode = e4_cpu_to_le16(EXT4_S_IFREG | 0644);
	ib->inode.i_links_count = e4_cpu_to_le16(1);
	ib->inode.i_extra_isize = e4_cpu_to_le16(EXTRA);
	put32(area, EXT4_XATTR_MAGIC);
	e[0] = 1;				/* e_name_len */
	e[1] = EXT4_XATTR_INDEX_USER;
	put32(e + 4, inum);		/* e_value_inum */
	put32(e + 8, size);		/* e_value_size */
	e[16] = 'v';
	if (!inum) {
		/* the value after the table (entry 20 bytes, terminator 4) */
		e[2] = 24;			/* e_value_offs */
		memcpy(area + 4 + 24, "abcd", 4);
	}
}

static int count_cb(e4_fs *fs, const struct e4_xattr *x, void *priv)
{
	(void)fs;
	(void)x;
	(*(unsigned *)priv)++;
	return 0;
}

/* e4_xattr_iterate's result for the entry; *n gets the entries reported. */
static errcode_t walk(e4_fs *fs, uint32_t inum, uint32_t size, unsigned *n)
{
	union e4_inode_buf ib;

	make_inode(&ib, inum, size);
	*n = 0;
	return e4_xattr_iterate(fs, 12, &ib.inode, count_cb, n);
}

static void ea_inode_entries(void **state)
{
	const struct e4_geom *g;
	unsigned n;
	e4_fs *fs;

	(void)state;
	if (!imgs.ok)
		skip();
	assert_int_equal(e4_open(img_ea, 0, 0, 0, &fs), 0);
	g = e4_geom(fs);
	assert_int_equal(walk(fs, 0, 4, &n), 0);		/* value in place */
	assert_int_equal(n, 1);
	assert_int_equal(walk(fs, g->first_ino + 2, 100, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(walk(fs, g->inodes_count, 1, &n), 0);
	assert_int_equal(n, 1);
	/* each of these makes the area corrupt: nothing is reported */
	assert_int_equal(walk(fs, g->first_ino + 2, 0, &n), E4_ERR_XATTR_CORRUPT);
	assert_int_equal(n, 0);
	assert_int_equal(walk(fs, EXT4_ROOT_INO, 100, &n), E4_ERR_XATTR_CORRUPT);
	assert_int_equal(walk(fs, g->first_ino - 1, 100, &n), E4_ERR_XATTR_CORRUPT);
	assert_int_equal(walk(fs, g->inodes_count + 1, 100, &n), E4_ERR_XATTR_CORRUPT);
	e4_close(fs);

	/* without the feature no EA inode is valid */
	assert_int_equal(e4_open(img_plain, 0, 0, 0, &fs), 0);
	assert_int_equal(walk(fs, 0, 4, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(walk(fs, e4_geom(fs)->first_ino + 2, 100, &n), E4_ERR_XATTR_CORRUPT);
	e4_close(fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ea_inode_entries),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
