/* Unit tests for symlink.c: e4_inode_is_fast_symlink(), the one rule for
 * "i_block holds the target" (the kernel's: i_blocks less one whole
 * cluster for an xattr block is 0, and the target fits i_block).  Inodes
 * are built in memory against two small mke2fs images, one with 1 KiB
 * blocks and one bigalloc with 16 KiB clusters.  Catches: the xattr
 * block charged as one block instead of one cluster on bigalloc (a fast
 * symlink with an xattr block then reads as block-mapped).
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

static struct unit_images imgs;
static const char *img_plain, *img_bigalloc;

static int setup(void **state)
{
	(void)state;
	e4_init_errors();
	if (unit_images_init(&imgs, "test_symlink"))
		return -1;
	img_plain = unit_image_add(&imgs, "plain",
				   "-t ext4 -b 1024 -N 32 -O ^has_journal,^resize_inode", "1M");
	img_bigalloc = unit_image_add(&imgs, "bigalloc", "-t ext4 -b 1024 -C 16384 -N 32 "
				      "-O bigalloc,^has_journal,^resize_inode", "4M");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return unit_images_remove(&imgs);
}

/* A symlink inode: size bytes of target, i_blocks in 512-byte units, an
 * xattr block or none, extra i_flags. */
static void make_link(struct ext4_inode *in, uint32_t size, uint32_t blocks, uint32_t acl,
		      uint32_t flags)
{
	memset(in, 0, sizeof(*in));
	in->i_mode = e4_cpu_to_le16(EXT4_S_IFLNK | 0777);
	in->i_links_count = e4_cpu_to_le16(1);
	in->i_size_lo = e4_cpu_to_le32(size);
	in->i_blocks_lo = e4_cpu_to_le32(blocks);
	in->i_file_acl_lo = e4_cpu_to_le32(acl);
	in->i_flags = e4_cpu_to_le32(flags);
}

struct fcase {
	uint32_t size, blocks, acl, flags;
	int fast;
};

static void check(const char *img, const struct fcase *c, size_t n)
{
	struct ext4_inode in;
	e4_fs *fs;

	assert_int_equal(e4_open(img, 0, 0, 0, &fs), 0);
	for (size_t i = 0; i < n; i++) {
		make_link(&in, c[i].size, c[i].blocks, c[i].acl, c[i].flags);
		if (e4_inode_is_fast_symlink(fs, &in) != c[i].fast)
			fail_msg("%s case %zu: size %u blocks %u acl %u flags 0x%x: want %d", img, i,
				 c[i].size, c[i].blocks, c[i].acl, c[i].flags, c[i].fast);
	}
	/* not a symlink at all */
	make_link(&in, 6, 0, 0, 0);
	in.i_mode = e4_cpu_to_le16(EXT4_S_IFREG | 0644);
	assert_int_equal(e4_inode_is_fast_symlink(fs, &in), 0);
	e4_close(fs);
}

static void plain_blocks(void **state)
{
	/* 1 KiB blocks: an xattr block is 2 sectors */
	static const struct fcase c[] = {
		{ 6, 0, 0, 0, 1 },			/* plain fast link */
		{ 59, 0, 0, 0, 1 },			/* the longest that fits i_block */
		{ 60, 0, 0, 0, 0 },			/* too long for i_block */
		{ 6, 2, 0, 0, 0 },			/* one data block: slow */
		{ 6, 2, 40, 0, 1 },			/* the xattr block only */
		{ 6, 4, 40, 0, 0 },			/* xattr block and a data block */
		{ 6, 0, 0, EXT4_INLINE_DATA_FL, 0 },	/* inline data, not i_block */
	};

	(void)state;
	if (!imgs.ok)
		skip();
	check(img_plain, c, sizeof(c) / sizeof(c[0]));
}

static void bigalloc_cluster(void **state)
{
	/* 16 KiB clusters: an xattr block is charged 32 sectors */
	static const struct fcase c[] = {
		{ 6, 0, 0, 0, 1 },
		{ 6, 32, 0, 0, 0 },			/* a data cluster: slow */
		{ 6, 32, 64, 0, 1 },			/* the xattr block's cluster only */
		{ 6, 64, 64, 0, 0 },			/* xattr cluster and a data cluster */
		{ 60, 32, 64, 0, 0 },
	};

	(void)state;
	if (!imgs.ok)
		skip();
	check(img_bigalloc, c, sizeof(c) / sizeof(c[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plain_blocks),
		cmocka_unit_test(bigalloc_cluster),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
