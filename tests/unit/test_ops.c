/*
 * Unit tests for the inode layer and the namespace operations (ops.h:
 * inode_new.c, ops.c, ops_remove.c) on images the reference mke2fs makes:
 * ext4 (extents, htree directories, metadata_csum, 1 KiB blocks), ext2
 * (block maps, no dir_index), ext4 with inline_data, ext3 with 128-byte
 * inodes, ext4 with bigalloc.  Each operation's own rules are checked on each image (inode
 * fields, link counts, '..', the three kinds of symlink, both device
 * encodings, freeing at the last link with the xattr block's refcount,
 * refusals that change nothing); then random sequences of operations run
 * against a model of the tree (unit_opsmodel.h).  Every image ends judged
 * by the reference e2fsck -fn (clean) and by the kernel (read-only loop
 * mount: the whole tree, names, types, inode numbers, link counts, symlink
 * targets, device numbers).  Placement: new inodes and blocks where the
 * allocator's policy puts them (ext2 three groups; ext4 flex_bg).  Stops
 * at sampled device writes of eight operations (ext4, ext2) are judged by DESIGN.md "Writing safely":
 * nothing in use but marked free, no entry naming a freed inode, no block
 * claimed twice, and anything at all only on a superblock marked not
 * clean.  Bugs it catches: rename of a directory to another parent that
 * leaves '..' or either parent's link count wrong; unlink freeing the
 * inode before its entry is gone.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "e4.h"
#include "unit_images.h"
#include "unit_oracle.h"
#define OPS_TEST_TAG "test_ops"
#include "unit_opsmodel.h"

/* ---- one operation at a time, on each kind ---------------------------- */

static void check_new_inode(e4_fs *fs, e4_ino_t ino, uint16_t type)
{
	union e4_inode_buf ib;
	struct e4_time t;
	int ext = e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EXTENTS);
	uint32_t fl;

	read_ino(fs, ino, &ib);
	fl = e4_le32(ib.inode.i_flags);
	assert_int_equal(e4_le16(ib.inode.i_mode) & EXT4_S_IFMT, type);
	assert_int_not_equal(e4_le32(ib.inode.i_generation), 0);
	assert_int_equal(e4_le32(ib.inode.i_dtime), 0);
	if (e4_geom(fs)->inode_size > 128) {
		assert_int_equal(e4_le16(ib.inode.i_extra_isize), 32);
		assert_int_equal(e4_inode_time(fs, &ib.inode, E4_CRTIME, &t), 1);
		assert_true(t.sec > 1700000000);
	} else {
		assert_int_equal(e4_le16(ib.inode.i_extra_isize), 0);
	}
	if (type == EXT4_S_IFREG || (type == EXT4_S_IFDIR && !(fl & EXT4_INLINE_DATA_FL)))
		assert_int_equal(!!(fl & EXT4_EXTENTS_FL), ext);
	if (type == EXT4_S_IFCHR || type == EXT4_S_IFIFO)
		assert_int_equal(fl & EXT4_EXTENTS_FL, 0);
}

static void each_op(void **state)
{
	(void)state;
	for (size_t k = 0; k < NKINDS; k++) {
		const struct kind *kd = &kinds[k];
		const char *img;
		e4_fs *fs = image(kd, "each", &img);
		struct omodel m;
		union e4_inode_buf ib, pb;
		e4_ino_t f, d, d2, s1, s2, s3, c, b, p, x;
		char t300[301], t100[101], buf[400];
		struct e4_group gr;
		uint32_t dirs0, maj, min, free0;
		size_t len;
		int used;

		fprintf(stderr, "-- %s\n", kd->name);
		model_start(fs, &m);
		/* create */
		free0 = e4_le32(e4_super(fs)->s_free_inodes_count);
		assert_int_equal(e4_op_create(fs, EXT4_ROOT_INO, "f", 1, NULL, &f), 0);
		node_add(&m, EXT4_ROOT_INO, "f", f, EXT4_S_IFREG, NULL);
		check_new_inode(fs, f, EXT4_S_IFREG);
		assert_int_equal(e4_le32(e4_super(fs)->s_free_inodes_count), free0 - 1);
		assert_int_equal(e4_op_create(fs, EXT4_ROOT_INO, "f", 1, NULL, &x), E4_ERR_EXISTS);
		assert_int_equal(e4_op_create(fs, EXT4_ROOT_INO, "a/b", 3, NULL, &x),
				 E4_ERR_INVALID_ARGUMENT);
		assert_int_equal(e4_op_create(fs, f, "x", 1, NULL, &x), E4_ERR_NOT_DIR);
		/* mkdir: parent links, used dirs, '..' */
		e4_group_get(fs, e4_group_of_ino(fs, EXT4_ROOT_INO), &gr);
		dirs0 = gr.used_dirs;
		assert_int_equal(e4_op_mkdir(fs, EXT4_ROOT_INO, "d", 1, NULL, &d), 0);
		node_add(&m, EXT4_ROOT_INO, "d", d, EXT4_S_IFDIR, NULL);
		check_new_inode(fs, d, EXT4_S_IFDIR);
		e4_group_get(fs, e4_group_of_ino(fs, d), &gr);
		if (e4_group_of_ino(fs, d) == 0)
			assert_int_equal(gr.used_dirs, dirs0 + 1);
		assert_int_equal(e4_dir_lookup(fs, d, "..", 2, &x, NULL), 0);
		assert_int_equal(x, EXT4_ROOT_INO);
		read_ino(fs, d, &ib);
		assert_int_equal(!!(e4_le32(ib.inode.i_flags) & EXT4_INLINE_DATA_FL),
				 !strcmp(kd->name, "inline"));
		read_ino(fs, EXT4_ROOT_INO, &pb);
		assert_int_equal(e4_le16(pb.inode.i_links_count), 4);
		assert_int_equal(e4_op_mkdir(fs, d, "e", 1, NULL, &d2), 0);
		node_add(&m, d, "e", d2, EXT4_S_IFDIR, NULL);
		/* symlinks: fast, inline (with inline_data), slow */
		memset(t300, 'y', 300);
		t300[300] = 0;
		memset(t100, 'z', 100);
		t100[100] = 0;
		assert_int_equal(e4_op_symlink(fs, d, "s1", 2, "../f", 4, NULL, &s1), 0);
		node_add(&m, d, "s1", s1, EXT4_S_IFLNK, "../f");
		read_ino(fs, s1, &ib);
		assert_true(e4_inode_is_fast_symlink(fs, &ib.inode));
		assert_int_equal(e4_le32(ib.inode.i_flags) & EXT4_EXTENTS_FL, 0);
		assert_int_equal(e4_op_symlink(fs, d, "s2", 2, t100, 100, NULL, &s2), 0);
		node_add(&m, d, "s2", s2, EXT4_S_IFLNK, t100);
		read_ino(fs, s2, &ib);
		assert_int_equal(!!(e4_le32(ib.inode.i_flags) & EXT4_INLINE_DATA_FL),
				 !strcmp(kd->name, "inline"));
		free0 = (uint32_t)e4_sb_free_blocks_count(e4_super(fs));
		assert_int_equal(e4_op_symlink(fs, d, "s3", 2, t300, 300, NULL, &s3), 0);
		node_add(&m, d, "s3", s3, EXT4_S_IFLNK, t300);
		read_ino(fs, s3, &ib);
		if (strcmp(kd->name, "inline"))
			assert_true(e4_inode_blocks(fs, &ib.inode) > 0);
		assert_int_equal(e4_readlink(fs, s3, NULL, buf, sizeof(buf), &len), 0);
		assert_int_equal(len, 300);
		assert_memory_equal(buf, t300, 300);
		/* mknod: old and new device encodings, fifo, socket */
		assert_int_equal(e4_op_mknod(fs, d, "c", 1, EXT4_S_IFCHR, 4, 5, NULL, &c), 0);
		node_add(&m, d, "c", c, EXT4_S_IFCHR, NULL);
		m.n[c].major = 4, m.n[c].minor = 5;
		check_new_inode(fs, c, EXT4_S_IFCHR);
		read_ino(fs, c, &ib);
		assert_int_equal(e4_le32(ib.inode.i_block[0]), 0x405);
		assert_int_equal(e4_op_mknod(fs, d, "b", 1, EXT4_S_IFBLK, 300, 70000, NULL, &b), 0);
		node_add(&m, d, "b", b, EXT4_S_IFBLK, NULL);
		m.n[b].major = 300, m.n[b].minor = 70000;
		read_ino(fs, b, &ib);
		assert_int_equal(e4_le32(ib.inode.i_block[0]), 0);
		assert_int_equal(e4_le32(ib.inode.i_block[1]),
				 (70000 & 0xff) | 300 << 8 | (70000 & ~0xff) << 12);
		e4_inode_dev_get(&ib.inode, &maj, &min);
		assert_int_equal(maj, 300);
		assert_int_equal(min, 70000);
		assert_int_equal(e4_op_mknod(fs, d, "p", 1, EXT4_S_IFIFO, 0, 0, NULL, &p), 0);
		node_add(&m, d, "p", p, EXT4_S_IFIFO, NULL);
		check_new_inode(fs, p, EXT4_S_IFIFO);
		assert_int_equal(e4_op_mknod(fs, d, "k", 1, EXT4_S_IFSOCK, 0, 0, NULL, &x), 0);
		node_add(&m, d, "k", x, EXT4_S_IFSOCK, NULL);
		assert_int_equal(e4_op_mknod(fs, d, "q", 1, EXT4_S_IFREG, 0, 0, NULL, &x),
				 E4_ERR_INVALID_ARGUMENT);
		/* link: counted, and entry only (counted by hand here) */
		assert_int_equal(e4_op_link(fs, d, "f2", 2, f, 0), 0);
		om_add(&m, d, "f2", f);
		read_ino(fs, f, &ib);
		assert_int_equal(e4_le16(ib.inode.i_links_count), 2);
		assert_int_equal(e4_op_link(fs, d2, "f3", 2, f, E4_OP_ENTRY_ONLY), 0);
		read_ino(fs, f, &ib);
		assert_int_equal(e4_le16(ib.inode.i_links_count), 2);
		om_add(&m, d2, "f3", f);
		assert_int_equal(e4_inode_links_set(fs, &ib.inode, 3), 0);
		assert_int_equal(e4_inode_write(fs, f, &ib), 0);
		assert_int_equal(e4_op_link(fs, d, "dd", 2, d2, 0), E4_ERR_IS_DIR);
		assert_int_equal(e4_op_link(fs, d, "s1", 2, f, 0), E4_ERR_EXISTS);
		read_ino(fs, f, &ib);
		assert_int_equal(e4_le16(ib.inode.i_links_count), 3);	/* given back */
		/* rmdir refusals, unlink of a directory refused */
		assert_int_equal(e4_op_rmdir(fs, EXT4_ROOT_INO, "d", 1), E4_ERR_DIR_NOT_EMPTY);
		assert_int_equal(e4_op_rmdir(fs, d, "c", 1), E4_ERR_NOT_DIR);
		assert_int_equal(e4_op_unlink(fs, EXT4_ROOT_INO, "d", 1, 0, NULL), E4_ERR_IS_DIR);
		/* unlink: the slow symlink's block comes back; the inode is free */
		assert_int_equal(e4_op_unlink(fs, d, "s3", 2, 0, &x), 0);
		assert_int_equal(x, s3);
		entry_drop(&m, (size_t)om_find(&m, d, "s3"));
		assert_int_equal(e4_test_inode(fs, s3, &used), 0);
		assert_int_equal(used, 0);
		read_ino(fs, s3, &ib);
		assert_int_not_equal(e4_le32(ib.inode.i_dtime), 0);
		assert_int_equal(e4_le16(ib.inode.i_links_count), 0);
		assert_int_equal(e4_sb_free_blocks_count(e4_super(fs)), free0);
		/* unlink of one name of three */
		assert_int_equal(e4_op_unlink(fs, d2, "f3", 2, 0, NULL), 0);
		entry_drop(&m, (size_t)om_find(&m, d2, "f3"));
		/* rename: same dir, replace a file, move a directory, replace an
		 * empty directory, refusals */
		assert_int_equal(e4_op_rename(fs, d, "p", 1, d, "p2", 2), 0);
		om_del(&m, (size_t)om_find(&m, d, "p"));
		om_add(&m, d, "p2", p);
		assert_int_equal(e4_op_rename(fs, d, "k", 1, d, "c", 1), 0);
		x = m.e[om_find(&m, d, "k")].ino;
		entry_drop(&m, (size_t)om_find(&m, d, "c"));
		om_del(&m, (size_t)om_find(&m, d, "k"));
		om_add(&m, d, "c", x);
		assert_int_equal(e4_op_rename(fs, EXT4_ROOT_INO, "d", 1, d2, "x", 1),
				 E4_ERR_INVALID_ARGUMENT);
		assert_int_equal(e4_op_rename(fs, d, "e", 1, EXT4_ROOT_INO, "e", 1), 0);
		om_del(&m, (size_t)om_find(&m, d, "e"));
		om_add(&m, EXT4_ROOT_INO, "e", d2);
		assert_int_equal(e4_dir_lookup(fs, d2, "..", 2, &x, NULL), 0);
		assert_int_equal(x, EXT4_ROOT_INO);
		assert_int_equal(e4_op_mkdir(fs, d, "g", 1, NULL, &x), 0);
		node_add(&m, d, "g", x, EXT4_S_IFDIR, NULL);
		/* an empty directory replaced by one from another parent */
		assert_int_equal(e4_op_rename(fs, EXT4_ROOT_INO, "e", 1, d, "g", 1), 0);
		entry_drop(&m, (size_t)om_find(&m, d, "g"));
		om_del(&m, (size_t)om_find(&m, EXT4_ROOT_INO, "e"));
		om_add(&m, d, "g", d2);
		assert_int_equal(e4_test_inode(fs, x, &used), 0);
		assert_int_equal(used, 0);
		assert_int_equal(e4_op_rename(fs, d, "g", 1, EXT4_ROOT_INO, "d", 1),
				 E4_ERR_DIR_NOT_EMPTY);
		assert_int_equal(e4_op_rename(fs, d, "g", 1, EXT4_ROOT_INO, "f", 1), E4_ERR_NOT_DIR);
		assert_int_equal(e4_op_rename(fs, d, "f2", 2, d, "g", 1), E4_ERR_IS_DIR);
		/* debugfs's unlink then kill_file: the entry only, then the inode */
		assert_int_equal(e4_op_symlink(fs, d, "k2", 2, t300, 300, NULL, &x), 0);
		assert_int_equal(e4_op_unlink(fs, d, "k2", 2, E4_OP_ENTRY_ONLY, NULL), 0);
		assert_int_equal(e4_test_inode(fs, x, &used), 0);
		assert_int_equal(used, 1);
		assert_int_equal(e4_op_release(fs, x), 0);
		assert_int_equal(e4_test_inode(fs, x, &used), 0);
		assert_int_equal(used, 0);
		assert_int_equal(e4_op_release(fs, EXT4_ROOT_INO), E4_ERR_INVALID_ARGUMENT);
		/* the same inode under both names: nothing */
		assert_int_equal(e4_op_rename(fs, d, "f2", 2, EXT4_ROOT_INO, "f", 1), 0);
		judge(fs, img, &m);
		om_free(&m);
	}
}


static void random_seq(void **state)
{
	(void)state;
	for (size_t k = 0; k < NKINDS; k++) {
		const char *img;
		e4_fs *fs = image(&kinds[k], "random", &img);
		uint32_t seed = 0x5eed0000u + (uint32_t)k;
		unsigned id = 0;
		struct omodel m;

		fprintf(stderr, "-- %s\n", kinds[k].name);
		model_start(fs, &m);
		for (int i = 0; i < 1500; i++) {
			random_op(fs, &m, &seed, &id);
			if (i % 250 == 249)
				assert_int_equal(om_check_lib(fs, &m), 0);
		}
		/* the shapes the kinds make: indexed directories with dir_index,
		 * multi-block linear ones without, inline ones with inline_data */
		{
			unsigned indexed = 0, multi = 0, inl = 0;

			for (size_t i = 0; i <= m.ne; i++) {
				e4_ino_t di = i < m.ne ? m.e[i].ino : EXT4_ROOT_INO;
				union e4_inode_buf ib;
				uint32_t fl;

				if (m.n[di].type != EXT4_S_IFDIR)
					continue;
				read_ino(fs, di, &ib);
				fl = e4_le32(ib.inode.i_flags);
				indexed += !!(fl & EXT4_INDEX_FL);
				inl += !!(fl & EXT4_INLINE_DATA_FL);
				multi += e4_inode_size(&ib.inode) > e4_geom(fs)->block_size;
			}
			fprintf(stderr, "%u indexed, %u multi-block, %u inline directories\n",
				indexed, multi, inl);
			assert_int_equal(indexed > 0,
					 e4_has_compat(fs, EXT4_FEATURE_COMPAT_DIR_INDEX));
			assert_true(multi > 0);
			assert_int_equal(inl > 0,
					 e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_INLINE_DATA));
		}
		/* existing names refused, the inodes given back, still clean */
		for (size_t i = 0; i < m.ne; i += 1 + m.ne / 20) {
			uint32_t fi = e4_le32(e4_super(fs)->s_free_inodes_count);
			e4_ino_t x;

			assert_int_equal(e4_op_create(fs, m.e[i].dir, m.e[i].name,
						      strlen(m.e[i].name), NULL, &x), E4_ERR_EXISTS);
			assert_int_equal(e4_op_mkdir(fs, m.e[i].dir, m.e[i].name,
						     strlen(m.e[i].name), NULL, &x), E4_ERR_EXISTS);
			assert_int_equal(e4_le32(e4_super(fs)->s_free_inodes_count), fi);
		}
		judge(fs, img, &m);
		om_free(&m);
	}
}

/* ---- the field rules ------------------------------------------------------ */

static void setters(void **state)
{
	const char *img;
	e4_fs *fs = image(&kinds[1], "setters", &img);	/* ext2: no large_file below */
	union e4_inode_buf ib;
	struct e4_time t = { 0x100000005LL, 123456789 }, got;
	uint32_t ma, mi;
	e4_ino_t ino;

	(void)state;
	/* times: base, nanoseconds and the epoch bits (2106 and later) */
	assert_int_equal(e4_inode_init(fs, 20, EXT4_S_IFREG | 0600, 0x12345678, 0x9abcdef0, &t, 7,
				       &ib), 0);
	assert_int_equal(e4_le32(ib.inode.i_generation), 7);
	assert_int_equal(e4_inode_uid(&ib.inode), 0x12345678);
	assert_int_equal(e4_inode_gid(&ib.inode), 0x9abcdef0);
	assert_int_equal(e4_le32(ib.inode.i_mtime), 5);
	assert_int_equal(e4_le32(ib.inode.i_mtime_extra), 123456789u << 2 | 1);
	assert_int_equal(e4_inode_time(fs, &ib.inode, E4_CRTIME, &got), 1);
	assert_int_equal(got.sec, t.sec);
	assert_int_equal(got.nsec, t.nsec);
	assert_int_equal(e4_inode_init(fs, 20, 0644, 0, 0, &t, 0, &ib), E4_ERR_INVALID_ARGUMENT);
	assert_int_equal(e4_inode_init(fs, e4_geom(fs)->inodes_count + 1, EXT4_S_IFREG, 0, 0, &t,
				       0, &ib), E4_ERR_INVALID_ARGUMENT);
	/* sizes: 3 GiB on a regular file turns large_file on; a directory or
	 * a symlink stays below 4 GiB without largedir */
	e4_super(fs)->s_feature_ro_compat &= e4_cpu_to_le32(~EXT4_FEATURE_RO_COMPAT_LARGE_FILE);
	assert_int_equal(e4_inode_size_set(fs, &ib.inode, 3ULL << 30), 0);
	assert_true(e4_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_LARGE_FILE));
	assert_int_equal(e4_inode_size_set(fs, &ib.inode, 5ULL << 32), 0);
	assert_int_equal(e4_inode_size(&ib.inode), 5ULL << 32);
	assert_int_equal(e4_inode_init(fs, 20, EXT4_S_IFDIR | 0755, 0, 0, &t, 0, &ib), 0);
	assert_int_equal(e4_le16(ib.inode.i_links_count), 2);
	assert_int_equal(e4_inode_size_set(fs, &ib.inode, 5ULL << 32), E4_ERR_FILE_TOO_BIG);
	assert_int_equal(e4_inode_size_set(fs, &ib.inode, 0xFFFFF000ULL), 0);
	assert_int_equal(e4_le32(ib.inode.i_size_high), 0);
	/* links: a directory past E4_LINK_MAX stores 1 with dir_nlink */
	assert_int_equal(e4_inode_links_set(fs, &ib.inode, 65000), 0);
	e4_super(fs)->s_feature_ro_compat &= e4_cpu_to_le32(~EXT4_FEATURE_RO_COMPAT_DIR_NLINK);
	assert_int_equal(e4_inode_links_set(fs, &ib.inode, 65001), E4_ERR_TOO_MANY_LINKS);
	assert_int_equal(e4_inode_links_inc(fs, &ib.inode), E4_ERR_TOO_MANY_LINKS);
	e4_super(fs)->s_feature_ro_compat |= e4_cpu_to_le32(EXT4_FEATURE_RO_COMPAT_DIR_NLINK);
	assert_int_equal(e4_inode_links_inc(fs, &ib.inode), E4_ERR_TOO_MANY_LINKS); /* not indexed */
	ib.inode.i_flags |= e4_cpu_to_le32(EXT4_INDEX_FL);
	assert_int_equal(e4_inode_links_inc(fs, &ib.inode), 0);
	assert_int_equal(e4_le16(ib.inode.i_links_count), 1);
	assert_int_equal(e4_inode_links_inc(fs, &ib.inode), 0);
	assert_int_equal(e4_le16(ib.inode.i_links_count), 1);
	e4_inode_links_dec(&ib.inode);
	assert_int_equal(e4_le16(ib.inode.i_links_count), 1);
	assert_int_equal(e4_inode_links_set(fs, &ib.inode, 70000), 0);
	assert_int_equal(e4_le16(ib.inode.i_links_count), 1);
	assert_int_equal(e4_inode_links_set(fs, &ib.inode, 2), 0);
	e4_inode_links_dec(&ib.inode);
	assert_int_equal(e4_le16(ib.inode.i_links_count), 2);
	/* a file past E4_LINK_MAX is refused */
	assert_int_equal(e4_inode_init(fs, 20, EXT4_S_IFREG | 0644, 0, 0, &t, 0, &ib), 0);
	assert_int_equal(e4_inode_links_set(fs, &ib.inode, 65001), E4_ERR_TOO_MANY_LINKS);
	assert_int_equal(e4_inode_links_set(fs, &ib.inode, 65000), 0);
	assert_int_equal(e4_inode_links_inc(fs, &ib.inode), E4_ERR_TOO_MANY_LINKS);
	e4_inode_perm_set(&ib.inode, 04711);
	assert_int_equal(e4_le16(ib.inode.i_mode), EXT4_S_IFREG | 04711);
	/* devices: both encodings, the new one's limits */
	assert_int_equal(e4_inode_dev_set(&ib.inode, 255, 255), 0);
	assert_int_equal(e4_le32(ib.inode.i_block[0]), 0xffff);
	assert_int_equal(e4_inode_dev_set(&ib.inode, 4095, (1u << 20) - 1), 0);
	e4_inode_dev_get(&ib.inode, &ma, &mi);
	assert_int_equal(ma, 4095);
	assert_int_equal(mi, (1u << 20) - 1);
	assert_int_equal(e4_inode_dev_set(&ib.inode, 4096, 0), E4_ERR_INVALID_ARGUMENT);
	assert_int_equal(e4_mode_file_type(EXT4_S_IFSOCK | 0777), EXT4_FT_SOCK);
	/* nothing above was written: the image is as mke2fs left it, but for
	 * large_file in memory; a create with attributes */
	{
		struct e4_op_attr a = { 0640, 1000, 100, { 1800000000, 5 }, 99 };

		assert_int_equal(e4_op_create(fs, EXT4_ROOT_INO, "owned", 5, &a, &ino), 0);
		read_ino(fs, ino, &ib);
		assert_int_equal(e4_le16(ib.inode.i_mode), EXT4_S_IFREG | 0640);
		assert_int_equal(e4_inode_uid(&ib.inode), 1000);
		assert_int_equal(e4_le32(ib.inode.i_generation), 99);
		assert_int_equal(e4_le32(ib.inode.i_ctime), 1800000000);
	}
	assert_int_equal(e4_close(fs), 0);
	assert_int_equal(oracle_fsck(img), 0);
	unlink(img);
}

/* The last link of inodes sharing an xattr block: the block's refcount
 * drops, then the block is freed with the last one. */
static void xattr_refcount(void **state)
{
	const char *img;
	e4_fs *fs = image(&kinds[0], "xattr", &img);
	struct e4_xattr_opts xo = { 1700000000, 0 };
	union e4_inode_buf ib;
	char val[600];
	e4_ino_t a, b;
	e4_blk_t blk;
	uint8_t buf[4096];
	uint64_t free0;
	struct omodel m;
	int used;

	(void)state;
	model_start(fs, &m);
	memset(val, 'v', sizeof(val));
	free0 = e4_sb_free_blocks_count(e4_super(fs));
	assert_int_equal(e4_op_create(fs, EXT4_ROOT_INO, "a", 1, NULL, &a), 0);
	assert_int_equal(e4_op_create(fs, EXT4_ROOT_INO, "b", 1, NULL, &b), 0);
	read_ino(fs, a, &ib);
	assert_int_equal(e4_xattr_set(fs, a, &ib, EXT4_XATTR_INDEX_USER, "big", 3, val,
				      sizeof(val), &xo), 0);
	blk = e4_inode_file_acl(fs, &ib.inode);
	assert_int_not_equal(blk, 0);
	read_ino(fs, b, &ib);
	assert_int_equal(e4_xattr_block_share(fs, b, &ib, blk, &xo), 0);
	assert_int_equal(e4_alloc_flush(fs), 0);
	assert_int_equal(e4_op_unlink(fs, EXT4_ROOT_INO, "a", 1, 0, NULL), 0);
	assert_int_equal(e4_io_read_blk(e4_fs_io(fs), blk, 1, buf), 0);
	assert_int_equal(e4_get_le32(buf + 4), 1);	/* h_refcount */
	assert_int_equal(e4_test_block(fs, blk, &used), 0);
	assert_int_equal(used, 1);
	node_add(&m, EXT4_ROOT_INO, "b", b, EXT4_S_IFREG, NULL);
	assert_int_equal(om_check_lib(fs, &m), 0);
	assert_int_equal(e4_close(fs), 0);
	assert_int_equal(oracle_fsck(img), 0);
	assert_int_equal(e4_open(img, E4_OPEN_RW, 0, 0, &fs), 0);
	assert_int_equal(e4_op_unlink(fs, EXT4_ROOT_INO, "b", 1, 0, NULL), 0);
	assert_int_equal(e4_test_block(fs, blk, &used), 0);
	assert_int_equal(used, 0);
	assert_int_equal(e4_sb_free_blocks_count(e4_super(fs)), free0);
	om_del(&m, (size_t)om_find(&m, EXT4_ROOT_INO, "b"));
	m.n[b].used = 0;
	judge(fs, img, &m);
	om_free(&m);
}

/* More than E4_LINK_MAX subdirectories (dir_nlink, an indexed parent):
 * the parent's count becomes 1, as the kernel stores it, and goes back
 * to the true count when an rmdir brings it under the limit again.
 * Inline directories keep the image small.  About 4 s (65,000 mkdirs
 * on tmpfs, two e2fsck runs). */
static void many_subdirs(void **state)
{
	static const struct kind k = { "nlink", "-t ext4 -O inline_data,^has_journal -I 256 "
				       "-N 66000 -b 1024", "48M" };
	const char *img;
	e4_fs *fs;
	e4_ino_t d, x;
	union e4_inode_buf ib;
	char name[32];

	(void)state;
	fs = image(&k, "many", &img);
	assert_int_equal(e4_op_mkdir(fs, EXT4_ROOT_INO, "d", 1, NULL, &d), 0);
	assert_int_equal(e4_ops_begin(fs), 0);
	for (unsigned i = 0; i < E4_LINK_MAX - 2; i++) {
		snprintf(name, sizeof(name), "s%u", i);
		assert_int_equal(e4_op_mkdir(fs, d, name, strlen(name), NULL, &x), 0);
	}
	read_ino(fs, d, &ib);
	assert_int_equal(e4_le16(ib.inode.i_links_count), E4_LINK_MAX);
	assert_int_equal(e4_op_mkdir(fs, d, "over", 4, NULL, &x), 0);
	read_ino(fs, d, &ib);
	assert_int_equal(e4_le16(ib.inode.i_links_count), 1);
	assert_int_equal(e4_op_mkdir(fs, d, "over2", 5, NULL, &x), 0);
	assert_int_equal(e4_ops_end(fs), 0);
	assert_int_equal(e4_close(fs), 0);
	assert_int_equal(oracle_fsck(img), 0);
	/* two rmdirs: 65000 subdirectories, the count back to 65000 + 2 */
	assert_int_equal(e4_open(img, E4_OPEN_RW, 0, 0, &fs), 0);
	assert_int_equal(e4_op_rmdir(fs, d, "over", 4), 0);
	read_ino(fs, d, &ib);
	assert_int_equal(e4_le16(ib.inode.i_links_count), 1);
	assert_int_equal(e4_op_rmdir(fs, d, "over2", 5), 0);
	read_ino(fs, d, &ib);
	assert_int_equal(e4_le16(ib.inode.i_links_count), E4_LINK_MAX);
	assert_int_equal(e4_op_rmdir(fs, d, "s0", 2), 0);
	read_ino(fs, d, &ib);
	assert_int_equal(e4_le16(ib.inode.i_links_count), E4_LINK_MAX - 1);
	assert_int_equal(e4_close(fs), 0);
	assert_int_equal(oracle_fsck(img), 0);
	unlink(img);
}

/* Out of inodes, then out of blocks: E4_ERR_NO_SPACE, nothing allocated,
 * the superblock still clean, the reference e2fsck clean. */
static void no_space(void **state)
{
	static const struct kind k = { "full", "-t ext4 -b 1024 -N 32 -O ^has_journal,^resize_inode",
				       "512K" };
	const char *img;
	e4_fs *fs;
	char name[32], t[600];
	struct omodel m;
	e4_ino_t x;
	errcode_t err;

	(void)state;
	fs = image(&k, "nospace", &img);
	model_start(fs, &m);
	memset(t, 'x', sizeof(t) - 1);
	t[sizeof(t) - 1] = 0;
	for (unsigned i = 0; ; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		err = e4_op_create(fs, EXT4_ROOT_INO, name, strlen(name), NULL, &x);
		if (err)
			break;
		node_add(&m, EXT4_ROOT_INO, name, x, EXT4_S_IFREG, NULL);
	}
	assert_int_equal(err, E4_ERR_NO_SPACE);
	assert_int_equal(e4_le32(e4_super(fs)->s_free_inodes_count), 0);
	assert_true(e4_le16(e4_super(fs)->s_state) & EXT4_VALID_FS);
	/* free a few inodes, then fill the blocks with slow symlinks */
	for (unsigned j = 0; j < 8; j++) {
		snprintf(name, sizeof(name), "f%u", j);
		assert_int_equal(e4_op_unlink(fs, EXT4_ROOT_INO, name, strlen(name), 0, NULL), 0);
		entry_drop(&m, (size_t)om_find(&m, EXT4_ROOT_INO, name));
	}
	/* every free block taken (by hand): a slow symlink and a mkdir fail,
	 * their inodes given back; a fast symlink still fits */
	{
		e4_blk_t taken[600], b;
		unsigned nt = 0;
		uint32_t fi = e4_le32(e4_super(fs)->s_free_inodes_count);

		while (nt < 600 && !e4_block_find_free(fs, 0, 1, &b)) {
			assert_int_equal(e4_block_mark(fs, b, 1, 1, NULL), 0);
			taken[nt++] = b;
		}
		assert_int_equal(e4_sb_free_blocks_count(e4_super(fs)), 0);
		assert_int_equal(e4_op_symlink(fs, EXT4_ROOT_INO, "s", 1, t, sizeof(t) - 1, NULL,
					       &x), E4_ERR_NO_SPACE);
		assert_int_equal(e4_op_mkdir(fs, EXT4_ROOT_INO, "dd", 2, NULL, &x), E4_ERR_NO_SPACE);
		assert_int_equal(e4_le32(e4_super(fs)->s_free_inodes_count), fi);
		assert_true(e4_le16(e4_super(fs)->s_state) & EXT4_VALID_FS);
		assert_int_equal(e4_op_symlink(fs, EXT4_ROOT_INO, "fast", 4, "t", 1, NULL, &x), 0);
		node_add(&m, EXT4_ROOT_INO, "fast", x, EXT4_S_IFLNK, "t");
		while (nt)
			assert_int_equal(e4_block_mark(fs, taken[--nt], 1, 0, NULL), 0);
		assert_int_equal(e4_alloc_flush(fs), 0);
	}
	judge(fs, img, &m);
	om_free(&m);
}

/* The group of the block mapping logical block 0 of inode ino. */
static e4_group_t first_block_group(e4_fs *fs, e4_ino_t ino)
{
	union e4_inode_buf ib;
	e4_blk_t pblk = 0;
	uint32_t len;
	unsigned fl;

	read_ino(fs, ino, &ib);
	assert_int_equal(e4_bmap(fs, ino, &ib.inode, 0, &pblk, &len, &fl), 0);
	assert_true(pblk != 0);
	return e4_group_of_block(fs, pblk);
}

/* Where new inodes and blocks go (the allocator's policy, alloc.h):
 * directories under the root spread over the groups (Orlov), files and
 * symlinks in their parent's group, a directory's first block and a slow
 * symlink's block in their inode's group.  ext2, 1 KiB blocks, three
 * groups, no flex_bg.  Bug it catches: the operations taking the first
 * free inode from the parent's group for directories too (every
 * directory of the tree in group 0). */
static void placement(void **state)
{
	const char *img;
	e4_fs *fs = image(&kinds[1], "place", &img);
	e4_ino_t d[3], x;
	e4_group_t g[3];
	char t[300];
	int distinct;

	(void)state;
	assert_true(e4_geom(fs)->group_count >= 3);
	memset(t, 'p', sizeof(t));
	for (int i = 0; i < 3; i++) {
		char name[8];

		snprintf(name, sizeof(name), "top%d", i);
		assert_int_equal(e4_op_mkdir(fs, EXT4_ROOT_INO, name, strlen(name), NULL, &d[i]), 0);
		g[i] = e4_group_of_ino(fs, d[i]);
		/* the directory's block in its own group */
		assert_int_equal(first_block_group(fs, d[i]), g[i]);
		for (int k = 0; k < 4; k++) {
			snprintf(name, sizeof(name), "f%d", k);
			assert_int_equal(e4_op_create(fs, d[i], name, strlen(name), NULL, &x), 0);
			assert_int_equal(e4_group_of_ino(fs, x), g[i]);
		}
		assert_int_equal(e4_op_symlink(fs, d[i], "s", 1, t, sizeof(t), NULL, &x), 0);
		assert_int_equal(e4_group_of_ino(fs, x), g[i]);
		assert_int_equal(first_block_group(fs, x), g[i]);
	}
	distinct = (g[0] != g[1]) + (g[1] != g[2]) + (g[0] != g[2]);
	fprintf(stderr, "placement: top directories in groups %u %u %u\n", (unsigned)g[0],
		(unsigned)g[1], (unsigned)g[2]);
	assert_true(distinct >= 2);	/* at least two groups used */
	assert_int_equal(e4_close(fs), 0);
	assert_int_equal(oracle_fsck(img), 0);
	unlink(img);
}

/* The same with flex_bg (16 groups a flex group, 8 groups here): a
 * regular file's data starts in the flex group's second group, as the
 * kernel's ext4_inode_to_goal_block puts it; a directory's block stays in
 * the first group's data area.  Bug it catches: file writes with their own
 * goal (the inode group's first block) putting data among the
 * directories. */
static void placement_flex(void **state)
{
	static const struct kind k = { "flex", "-t ext4 -b 1024 -G 16 -N 3000", "64M" };
	const char *img;
	e4_fs *fs = image(&k, "place", &img);
	union e4_inode_buf ib;
	uint8_t data[10240];
	e4_ino_t f, d;
	e4_group_t fg;

	(void)state;
	assert_true(e4_geom(fs)->group_count >= 2);
	memset(data, 'x', sizeof(data));
	assert_int_equal(e4_op_create(fs, EXT4_ROOT_INO, "file", 4, NULL, &f), 0);
	read_ino(fs, f, &ib);
	assert_int_equal(e4_file_write(fs, f, &ib, 0, data, sizeof(data), 0), 0);
	fg = first_block_group(fs, f);
	fprintf(stderr, "placement_flex: file data in group %u\n", (unsigned)fg);
	assert_int_equal(fg, 1);
	assert_int_equal(e4_op_mkdir(fs, EXT4_ROOT_INO, "dir", 3, NULL, &d), 0);
	assert_int_equal(first_block_group(fs, d), 0);
	assert_int_equal(e4_close(fs), 0);
	assert_int_equal(oracle_fsck(img), 0);
	unlink(img);
}

/* ---- stops at every write ------------------------------------------------- */

/* Device writes counted; from stop_at on each one fails (the device is
 * gone: nothing more reaches it). */
struct stopper {
	unsigned writes, stop_at;	/* stop_at 0: never */
};

static errcode_t stop_hook(void *priv, uint64_t offset, size_t len)
{
	struct stopper *st = priv;

	(void)offset;
	(void)len;
	if (st->stop_at && ++st->writes >= st->stop_at)
		return EIO;
	if (!st->stop_at)
		st->writes++;
	return 0;
}

/* One operation of the crash test on the tree crash_base() makes. */
static errcode_t crash_op(e4_fs *fs, int op)
{
	e4_ino_t d, x;
	char t[300];

	memset(t, 't', sizeof(t));
	assert_int_equal(e4_namei(fs, 0, 0, "/d", 0, &d), 0);
	switch (op) {
	case 0: return e4_op_create(fs, d, "new", 3, NULL, &x);
	case 1: return e4_op_mkdir(fs, d, "newdir", 6, NULL, &x);
	case 2: return e4_op_symlink(fs, d, "slow", 4, t, sizeof(t), NULL, &x);
	case 3:
		assert_int_equal(e4_namei(fs, 0, 0, "/d/f0", 0, &x), 0);
		return e4_op_link(fs, EXT4_ROOT_INO, "hard", 4, x, 0);
	case 4: return e4_op_unlink(fs, d, "s300", 4, 0, NULL);
	case 5: return e4_op_rmdir(fs, d, "empty", 5);
	case 6: return e4_op_rename(fs, d, "sub", 3, EXT4_ROOT_INO, "moved", 5);
	case 7: return e4_op_rename(fs, d, "f1", 2, d, "f2", 2);
	}
	return 0;
}
#define CRASH_OPS 8

/* The tree each trial starts from: /d with f0..f39, s300 (a slow
 * symlink), empty/, sub/ holding a file. */
static void crash_base(e4_fs *fs)
{
	char name[16], t[300];
	e4_ino_t d, x, sub;

	memset(t, 's', sizeof(t));
	assert_int_equal(e4_op_mkdir(fs, EXT4_ROOT_INO, "d", 1, NULL, &d), 0);
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		assert_int_equal(e4_op_create(fs, d, name, strlen(name), NULL, &x), 0);
	}
	assert_int_equal(e4_op_symlink(fs, d, "s300", 4, t, sizeof(t), NULL, &x), 0);
	assert_int_equal(e4_op_mkdir(fs, d, "empty", 5, NULL, &x), 0);
	assert_int_equal(e4_op_mkdir(fs, d, "sub", 3, NULL, &sub), 0);
	assert_int_equal(e4_op_create(fs, sub, "in", 2, NULL, &x), 0);
}

/* e2fsck -fn of an image stopped in the middle of an operation: never a
 * block or inode in use but marked free, never an entry naming a freed
 * inode, never a block claimed twice; anything at all only when the
 * superblock says not clean (DESIGN.md "Writing safely"). */
static int crash_judge(const char *img, const char *what, unsigned stop)
{
	char line[1024];
	uint16_t state = 0;
	int bad = 0;
	FILE *p, *f = fopen(img, "rb");

	if (!f || fseek(f, 1024 + 0x3A, SEEK_SET) || fread(&state, 2, 1, f) != 1)
		return -1;
	fclose(f);
	p = oracle_fsck_popen(img);
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		int forbidden = 0;

		if (oracle_fsck_frame(line) || strstr(line, "WARNING: Filesystem"))
			continue;
		if ((strstr(line, "bitmap differences:") && strstr(line, "+")) ||
		    strstr(line, "deleted/unused inode") || strstr(line, "multiply-claimed") ||
		    strstr(line, "shared with") || strstr(line, "uninitialized"))
			forbidden = 1;
		if (forbidden || (le16toh(state) & EXT4_VALID_FS)) {
			fprintf(stderr, "%s, stop at write %u (%s): %s", what, stop,
				(le16toh(state) & EXT4_VALID_FS) ? "marked clean" : "not clean", line);
			bad = 1;
		}
	}
	pclose(p);
	return bad ? -1 : 0;
}

static void crash_stops(void **state)
{
	(void)state;
	for (size_t k = 0; k < 2; k++) {	/* ext4, ext2 */
		const char *base;
		char img[160], cmd[400];
		e4_fs *fs = image(&kinds[k], "crashbase", &base);

		crash_base(fs);
		assert_int_equal(e4_close(fs), 0);
		assert_int_equal(oracle_fsck(base), 0);
		snprintf(img, sizeof(img), "%s.trial", base);
		for (int op = 0; op < CRASH_OPS; op++) {
			struct stopper st = { 0, 0 };
			unsigned total, step, judged = 0;
			char what[64];

			snprintf(what, sizeof(what), "%s op %d", kinds[k].name, op);
			/* count the operation's writes */
			snprintf(cmd, sizeof(cmd), "cp --sparse=always %s %s", base, img);
			assert_int_equal(system(cmd), 0);
			assert_int_equal(e4_open(img, E4_OPEN_RW, 0, 0, &fs), 0);
			e4_io_set_write_hook(e4_fs_io(fs), stop_hook, &st);
			assert_int_equal(crash_op(fs, op), 0);
			assert_int_equal(e4_close(fs), 0);
			assert_int_equal(crash_judge(img, what, 0), 0);
			total = st.writes;
			assert_true(total > 1);
			step = total > 24 ? total / 24 : 1;
			for (unsigned stop = 1; stop <= total; stop += step) {
				struct stopper s2 = { 0, stop };

				assert_int_equal(system(cmd), 0);
				assert_int_equal(e4_open(img, E4_OPEN_RW, 0, 0, &fs), 0);
				e4_io_set_write_hook(e4_fs_io(fs), stop_hook, &s2);
				assert_int_not_equal(crash_op(fs, op), 0);
				e4_io_discard(e4_fs_io(fs));
				e4_close(fs);
				assert_int_equal(crash_judge(img, what, stop), 0);
				judged++;
			}
			fprintf(stderr, "%s: %u writes, %u stops judged\n", what, total, judged);
		}
		unlink(img);
		unlink(base);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_op),
		cmocka_unit_test(random_seq),
		cmocka_unit_test(setters),
		cmocka_unit_test(xattr_refcount),
		cmocka_unit_test(many_subdirs),
		cmocka_unit_test(no_space),
		cmocka_unit_test(placement),
		cmocka_unit_test(placement_flex),
		cmocka_unit_test(crash_stops),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
