/*
 * Unit tests for directory writing (dir_write.c, htree_write.c,
 * dir_build.c; format doc section 8) on images the reference mke2fs makes:
 *  - linear directories (ext2 without dir_index): random inserts and
 *    removes against a model set of names;
 *  - indexed directories (ext4 4 KiB): the same, from one linear block
 *    through the conversion and leaf splits;
 *  - ext4 1 KiB with long names: leaf splits, the new index level, index
 *    node splits; then removes;
 *  - large_dir: a third level; without it the full index is refused
 *    (E4_ERR_DIR_INDEX_FULL) and the directory stays whole;
 *  - the bulk builder at 1 and 2 levels (3 with large_dir), linear and
 *    empty, then inserts and removes into what it built;
 *  - 64 KiB blocks (rec_len 0xFFFF for a whole-block record);
 *  - bigalloc (blocks in their clusters, i_blocks in whole clusters);
 *  - a full filesystem (E4_ERR_NO_SPACE, nothing changed);
 *  - inline directories: i_block, system.data grown, converted to a block;
 *  - refusals (duplicate, bad names, damaged block left untouched).
 *  - the index-driven lookup (e4_dir_lookup_index) against the linear
 *    one, with colliding hashes across leaves.
 * Every entry names one regular file /f, whose link count is set to match,
 * so e2fsck has nothing to say.  Each test ends with unit_oracle.h: the
 * reference e2fsck -fn clean, debugfs ls and the kernel listing exactly
 * the model.  Names mix lengths 1-255 and bytes >= 0x80 (signed hashing).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "e4.h"
#include "unit_images.h"
#include "unit_dirs.h"
#include "unit_oracle.h"
#include "unit_dirmodel.h"

static struct unit_images imgs;
static char src[128];

/* ---- images ------------------------------------------------------------ */

static int setup(void **state)
{
	char path[256];
	FILE *f;

	(void)state;
	e4_init_errors();
	if (unit_images_init(&imgs, "test_dir_write"))
		return -1;
	snprintf(src, sizeof(src), "%s/src", imgs.dir);
	snprintf(path, sizeof(path), "%s/f", src);
	if (mkdir(src, 0755) || !(f = fopen(path, "w")))
		return -1;
	fclose(f);
	snprintf(path, sizeof(path), "%s/r", src);	/* inline with inline_data */
	return mkdir(path, 0755);
}

static int teardown(void **state)
{
	char path[256];

	(void)state;
	snprintf(path, sizeof(path), "%s/f", src);
	unlink(path);
	snprintf(path, sizeof(path), "%s/r", src);
	rmdir(path);
	rmdir(src);
	return unit_images_remove(&imgs);
}

/* A fresh image (mke2fs opts, size) holding /f, opened read-write; *f
 * gets /f's inode.  Skips when mke2fs is missing. */
static e4_fs *image(const char *name, const char *opts, const char *size, e4_ino_t *f,
		    const char **path)
{
	char o[256];
	e4_fs *fs;

	/* fixed UUID and hash seed: the same hashes, so the same trees, every run */
	snprintf(o, sizeof(o), "%s -N 256 -O ^has_journal -U 6d1c2b8e-3f4a-4c5d-9e7f-a1b2c3d4e5f6 "
		 "-E hash_seed=0b9f3c1e-5a7d-4e22-8c6b-d4f0a1e2b3c4 -d %s", opts, src);
	*path = unit_image_add(&imgs, name, o, size);
	if (!imgs.ok)
		skip();
	assert_int_equal(e4_open(*path, E4_OPEN_RW, 0, 0, &fs), 0);
	assert_int_equal(e4_namei(fs, 0, 0, "/f", 0, f), 0);
	return fs;
}

/* A new empty directory /name (e4_dir_build with no entries). */
static e4_ino_t new_dir(e4_fs *fs, const char *name)
{
	e4_ino_t ino;

	assert_int_equal(udir_mkdir_build(fs, EXT4_ROOT_INO, name, NULL, 0, 0, 0, &ino), 0);
	return ino;
}

/* Set /f's links to the entries naming it, write, close, and judge the
 * image with the oracles against models m[0..nm). */
static void finish(e4_fs *fs, const char *img, e4_ino_t target, struct model *m, size_t nm)
{
	struct oracle_dir d[8];
	size_t links = 1;

	assert_true(nm <= 8);
	for (size_t i = 0; i < nm; i++) {
		size_t k = 0, a = 0;

		d[i].path = m[i].path;
		d[i].names = malloc(sizeof(char *) * (m[i].n + 1));
		d[i].absent = malloc(sizeof(char *) * 51);
		for (size_t j = 0; j < m[i].n; j++) {
			if (m[i].in[j])
				d[i].names[k++] = m[i].pool[j];
			else if (a < 50)
				d[i].absent[a++] = m[i].pool[j];
		}
		d[i].n = k;
		d[i].nabsent = a;
		links += k;
	}
	assert_int_equal(udir_links_set(fs, target, (unsigned)links), 0);
	assert_int_equal(e4_alloc_flush(fs), 0);
	assert_int_equal(e4_close(fs), 0);
	assert_int_equal(oracle_check(img, d, nm), 0);
	unlink(img);		/* judged: its room is not needed any more */
	for (size_t i = 0; i < nm; i++) {
		free(d[i].names);
		free(d[i].absent);
	}
}

/* ---- tests ----------------------------------------------------------- */

/* ext2 without dir_index, 1 KiB: a linear directory grows past the 12
 * direct blocks; random inserts and removes; a second directory built
 * linear in one pass (block map with an indirect block). */
static void linear_random(void **state)
{
	const char *img;
	e4_ino_t f, d;
	e4_fs *fs = image("ext2", "-t ext2 -O ^dir_index -b 1024", "8M", &f, &img);
	struct model m[2];
	struct e4_new_dirent *ents;
	uint32_t seed = 0x1234567;
	uint64_t nb;
	unsigned lv, cnt;

	(void)state;
	d = new_dir(fs, "d");
	model_init(&m[0], "/d", d, make_names(300, 1, 255, 11), 300);
	random_ops(fs, &m[0], f, 2500, 65, 250, &seed);
	dx_shape(fs, d, &lv, &cnt, &nb);
	assert_true(nb > 12);		/* past the direct blocks */
	assert_true(nb < 60);		/* freed room is used again (300 names) */
	assert_int_equal(cnt, 0);	/* never indexed */

	model_init(&m[1], "/b", 0, make_names(600, 1, 100, 12), 600);
	ents = model_ents(&m[1], 600, f);
	assert_int_equal(udir_mkdir_build(fs, EXT4_ROOT_INO, "b", ents, 600, 0, 0, &m[1].dir), 0);
	free(ents);
	model_verify(fs, &m[1], f);
	random_ops(fs, &m[1], f, 500, 50, 500, &seed);
	finish(fs, img, f, m, 2);
	model_free(&m[0]);
	model_free(&m[1]);
}

/* ext4 4 KiB: from one linear block through the conversion to an index
 * and its leaf splits, random inserts and removes. */
static void htree_random(void **state)
{
	const char *img;
	e4_ino_t f, d;
	e4_fs *fs = image("ext4_4k", "-t ext4 -b 4096", "16M", &f, &img);
	struct model m;
	uint32_t seed = 0xabcdef1;
	uint64_t nb;
	unsigned lv, cnt;

	(void)state;
	d = new_dir(fs, "d");
	model_init(&m, "/d", d, make_names(2500, 1, 255, 21), 2500);
	random_ops(fs, &m, f, 400, 100, 400, &seed);
	random_ops(fs, &m, f, 8000, 60, 1000, &seed);
	dx_shape(fs, d, &lv, &cnt, &nb);
	assert_int_equal(lv, 0);
	assert_true(cnt > 20);		/* leaves split many times */
	random_ops(fs, &m, f, 3000, 20, 1000, &seed);
	finish(fs, img, f, &m, 1);
	model_free(&m);
}

/* ext4 1 KiB, 200-byte names: leaf splits, the root full (123 entries)
 * pushed down to a new level, then index node splits; a third removed. */
static void htree_levels(void **state)
{
	const char *img;
	e4_ino_t f, d;
	e4_fs *fs = image("ext4_1k", "-t ext4 -b 1024", "16M", &f, &img);
	struct model m;
	uint32_t seed = 0x5eed;
	uint64_t nb;
	unsigned lv = 0, cnt = 0, max_cnt0 = 0, i;

	(void)state;
	d = new_dir(fs, "d");
	model_init(&m, "/d", d, make_names(1400, 200, 200, 31), 1400);
	/* block 0 holds "." and ".." and four 208-byte records: the fifth
	 * converts it, and the moved entries are split at once (root + 2) */
	for (i = 0; i < 5; i++) {
		dx_shape(fs, d, &lv, &cnt, &nb);
		assert_int_equal(nb, 1);
		assert_int_equal(e4_dir_insert(fs, d, m.pool[i], 200, f, EXT4_FT_REG_FILE), 0);
		m.in[i] = 1;
	}
	dx_shape(fs, d, &lv, &cnt, &nb);
	assert_int_equal(cnt, 2);
	assert_int_equal(nb, 3);
	for (; i < m.n && !(lv == 1 && cnt >= 3); i++) {
		assert_int_equal(e4_dir_insert(fs, d, m.pool[i], 200, f, EXT4_FT_REG_FILE), 0);
		m.in[i] = 1;
		dx_shape(fs, d, &lv, &cnt, &nb);
		if (lv == 0 && cnt > max_cnt0)
			max_cnt0 = cnt;
	}
	assert_int_equal(max_cnt0, 123);	/* the root filled up... */
	assert_int_equal(lv, 1);		/* ...then went one level down */
	assert_true(cnt >= 3);			/* and its node split twice */
	model_verify(fs, &m, f);
	random_ops(fs, &m, f, 1500, 30, 500, &seed);
	finish(fs, img, f, &m, 1);
	model_free(&m);
}

/* large_dir, 1 KiB: a third level (indirect_levels 2), and a bulk-built
 * 3-level directory; without large_dir inserts into a full bulk-built
 * index stop with E4_ERR_DIR_INDEX_FULL and nothing lost. */
static void htree_large_dir(void **state)
{
	const char *img, *img2;
	e4_ino_t f, d, f2;
	e4_fs *fs = image("largedir", "-t ext4 -O large_dir -b 1024", "48M", &f, &img);
	struct model m[2];
	struct e4_new_dirent *ents;
	uint64_t nb;
	unsigned lv = 0, cnt, i;
	errcode_t err = 0;

	(void)state;
	d = new_dir(fs, "d");
	model_init(&m[0], "/d", d, make_names(40000, 200, 200, 41), 40000);
	for (i = 0; i < m[0].n && lv < 2; i++) {
		assert_int_equal(e4_dir_insert(fs, d, m[0].pool[i], 200, f, EXT4_FT_REG_FILE), 0);
		m[0].in[i] = 1;
		if (i % 500 == 0)
			dx_shape(fs, d, &lv, &cnt, &nb);
	}
	assert_int_equal(lv, 2);
	/* 16,000 one-entry leaves (slack 90%): more than 123 * 126 */
	model_init(&m[1], "/b", 0, make_names(16000, 110, 110, 42), 16000);
	ents = model_ents(&m[1], 16000, f);
	assert_int_equal(udir_mkdir_build(fs, EXT4_ROOT_INO, "b", ents, 16000, 0, 90, &m[1].dir), 0);
	dx_shape(fs, m[1].dir, &lv, &cnt, &nb);
	assert_int_equal(lv, 2);
	assert_int_equal(nb, 16000 + 1 + 127 + 2);	/* leaves, root, nodes */
	finish(fs, img, f, m, 2);

	model_free(&m[0]);
	model_free(&m[1]);
	free(ents);

	/* without large_dir: a full 2-level index built in one pass (123 x 126
	 * one-entry leaves of 260-byte records), then inserts until a leaf
	 * must split and no index node can take it; one leaf more is refused
	 * to the builder */
	fs = image("nolargedir", "-t ext4 -b 1024", "32M", &f2, &img2);
	model_init(&m[0], "/d", 0, make_names(17500, 250, 250, 43), 17500);
	ents = model_ents(&m[0], 123 * 126 + 1, f2);
	m[0].in[123 * 126] = 0;
	assert_int_equal(udir_mkdir_build(fs, EXT4_ROOT_INO, "d", ents, 123 * 126, 0, 90,
					  &m[0].dir), 0);
	dx_shape(fs, m[0].dir, &lv, &cnt, &nb);
	assert_int_equal(lv, 1);
	assert_int_equal(cnt, 123);
	assert_int_equal(e4_dir_build(fs, m[0].dir, EXT4_ROOT_INO, ents, 1, 0, 0),
			 E4_ERR_INVALID_ARGUMENT);	/* it has blocks */
	for (i = 123 * 126; i < m[0].n; i++) {
		err = e4_dir_insert(fs, m[0].dir, m[0].pool[i], 250, f2, EXT4_FT_REG_FILE);
		if (err)
			break;
		m[0].in[i] = 1;
	}
	assert_int_equal(err, E4_ERR_DIR_INDEX_FULL);
	assert_true(i > 123 * 126);
	dx_shape(fs, m[0].dir, &lv, &cnt, &nb);
	assert_int_equal(lv, 1);
	assert_int_equal(cnt, 123);
	{
		e4_ino_t nd;

		assert_int_equal(udir_new_inode(fs, EXT4_ROOT_INO, &nd), 0);
		assert_int_equal(e4_dir_build(fs, nd, EXT4_ROOT_INO, ents, 123 * 126 + 1, 0, 90),
				 E4_ERR_DIR_INDEX_FULL);
		assert_int_equal(e4_dir_build(fs, nd, EXT4_ROOT_INO, ents, 0, 0, 0), 0);
		assert_int_equal(e4_dir_insert(fs, EXT4_ROOT_INO, "e", 1, nd, EXT4_FT_DIR), 0);
		assert_int_equal(udir_links_add(fs, EXT4_ROOT_INO, 1), 0);
	}
	free(ents);
	model_verify(fs, &m[0], f2);	/* every name inserted before the refusal */
	finish(fs, img2, f2, m, 1);
	model_free(&m[0]);
}

/* Two directories growing in turn, so each new block of one is not next
 * to its previous one: on ext4 every block is an extent of its own (the
 * root's 4, then a leaf, then leaves under an index, then depth 2); on
 * ext3 the block map's indirect and double indirect blocks. */
static void fragmented(void **state)
{
	static const char *const opts[2] = { "-t ext4 -b 1024", "-t ext3 -b 1024" };
	const char *img;
	e4_ino_t f;
	struct model m[2];
	uint32_t seed = 99;

	(void)state;
	for (int k = 0; k < 2; k++) {
		e4_fs *fs = image(k ? "frag3" : "frag4", opts[k], "16M", &f, &img);

		model_init(&m[0], "/a", new_dir(fs, "a"), make_names(1600, 250, 250, 91), 1600);
		model_init(&m[1], "/b", new_dir(fs, "b"), make_names(1600, 250, 250, 92), 1600);
		for (size_t i = 0; i < 1600; i++)
			for (int j = 0; j < 2; j++) {
				assert_int_equal(e4_dir_insert(fs, m[j].dir, m[j].pool[i], 250, f, 1), 0);
				m[j].in[i] = 1;
			}
		if (k == 0) {
			assert_int_equal(ext_depth(fs, m[0].dir), 2);
			assert_int_equal(ext_depth(fs, m[1].dir), 2);
		} else {
			union e4_inode_buf ib;

			assert_int_equal(e4_inode_read(fs, m[0].dir, &ib), 0);
			assert_true(ib.inode.i_block[EXT4_IND_BLOCK + 1] != 0);	/* DIND */
		}
		random_ops(fs, &m[0], f, 500, 40, 500, &seed);
		finish(fs, img, f, m, 2);
		model_free(&m[0]);
		model_free(&m[1]);
	}
}

/* bigalloc (1 KiB blocks, 4-block clusters): a directory's blocks fill
 * its clusters in order (a block whose logical cluster is mapped takes the
 * implied block; a new logical cluster a new cluster), i_blocks counts
 * whole clusters, extent nodes take a cluster each; two directories
 * growing in turn, random inserts and removes, bulk builds. */
static void bigalloc(void **state)
{
	const char *img;
	e4_ino_t f;
	e4_fs *fs = image("bigalloc", "-t ext4 -O bigalloc -C 4096 -b 1024", "32M", &f, &img);
	struct model m[3];
	struct e4_new_dirent *ents;
	uint32_t seed = 1616;
	union e4_inode_buf ib;

	(void)state;
	model_init(&m[0], "/a", new_dir(fs, "a"), make_names(3000, 200, 250, 111), 3000);
	model_init(&m[1], "/b", new_dir(fs, "b"), make_names(3000, 200, 250, 112), 3000);
	for (size_t i = 0; i < 3000; i++)
		for (int j = 0; j < 2; j++) {
			assert_int_equal(e4_dir_insert(fs, m[j].dir, m[j].pool[i],
						       strlen(m[j].pool[i]), f, 1), 0);
			m[j].in[i] = 1;
		}
	assert_int_equal(e4_inode_read(fs, m[0].dir, &ib), 0);
	/* i_blocks: whole 4 KiB clusters, the tree's nodes included; more
	 * extents than a leaf holds (a second leaf under the index) */
	assert_int_equal(e4_inode_blocks(fs, &ib.inode) % 8, 0);
	assert_true(e4_inode_blocks(fs, &ib.inode) >= e4_inode_size(&ib.inode) / 512);
	assert_int_equal(ext_depth(fs, m[0].dir), 1);
	assert_true(e4_le16(((const struct ext4_extent_header *)ib.inode.i_block)->eh_entries) >= 2);
	random_ops(fs, &m[0], f, 1500, 40, 500, &seed);

	model_init(&m[2], "/c", 0, make_names(3000, 20, 120, 113), 3000);
	ents = model_ents(&m[2], 3000, f);
	assert_int_equal(udir_mkdir_build(fs, EXT4_ROOT_INO, "c", ents, 3000, 0, 20, &m[2].dir), 0);
	free(ents);
	random_ops(fs, &m[2], f, 500, 60, 500, &seed);
	finish(fs, img, f, m, 3);
	for (int k = 0; k < 3; k++)
		model_free(&m[k]);
}

/* The bulk builder: one linear block, 1 level, 2 levels (with slack), a
 * forced linear one and an empty one; then inserts and removes into them. */
static void bulk_build(void **state)
{
	static const struct { const char *name; size_t n; unsigned minl, maxl, flags, slack, levels; }
	cases[] = {
		{ "small", 20, 1, 20, 0, 0, 99 },		/* fits one block: linear */
		{ "one", 400, 1, 60, 0, 20, 0 },
		{ "two", 2500, 60, 140, 0, 20, 1 },
		{ "lin", 300, 1, 255, E4_DIR_BUILD_LINEAR, 0, 99 },
		{ "empty", 0, 1, 1, 0, 0, 99 },
	};
	const char *img;
	e4_ino_t f;
	e4_fs *fs = image("bulk", "-t ext4 -b 1024", "16M", &f, &img);
	struct model m[5];
	char paths[5][16];
	uint32_t seed = 77;

	(void)state;
	for (size_t c = 0; c < 5; c++) {
		struct e4_new_dirent *ents;
		uint64_t nb;
		unsigned lv, cnt;

		snprintf(paths[c], sizeof(paths[c]), "/%s", cases[c].name);
		model_init(&m[c], paths[c], 0,
			   make_names(cases[c].n + 50, cases[c].minl, cases[c].maxl, 50 + (uint32_t)c),
			   cases[c].n + 50);
		ents = model_ents(&m[c], cases[c].n, f);
		if (cases[c].n > 1) {	/* a name twice is refused */
			e4_ino_t nd;

			ents[cases[c].n] = ents[0];
			assert_int_equal(udir_new_inode(fs, EXT4_ROOT_INO, &nd), 0);
			assert_int_equal(e4_dir_build(fs, nd, EXT4_ROOT_INO, ents, cases[c].n + 1,
						      cases[c].flags, cases[c].slack),
					 E4_ERR_EXISTS);
			assert_int_equal(udir_free_inode(fs, nd), 0);
		}
		assert_int_equal(udir_mkdir_build(fs, EXT4_ROOT_INO, cases[c].name, ents,
						  cases[c].n, cases[c].flags, cases[c].slack,
						  &m[c].dir), 0);
		free(ents);
		dx_shape(fs, m[c].dir, &lv, &cnt, &nb);
		if (cases[c].levels == 99)
			assert_int_equal(cnt, 0);
		else
			assert_int_equal(lv, cases[c].levels);
		model_verify(fs, &m[c], f);
		random_ops(fs, &m[c], f, 600, 50, 600, &seed);
	}
	finish(fs, img, f, m, 5);
	for (size_t c = 0; c < 5; c++)
		model_free(&m[c]);
}

/* 64 KiB blocks (rec_len of a whole-block record stored as 0xFFFF
 * without metadata_csum): a linear ext2 directory gets a second block
 * holding one entry; ext4 converts and splits. */
static void blocks_64k(void **state)
{
	const char *img, *img2;
	e4_ino_t f, d;
	e4_fs *fs = image("ext2_64k", "-t ext2 -O ^dir_index -b 65536", "16M", &f, &img);
	struct model m;
	uint8_t *buf = malloc(65536);
	union e4_inode_buf ib;
	uint32_t seed = 64;
	size_t i;

	(void)state;
	d = new_dir(fs, "d");
	model_init(&m, "/d", d, make_names(600, 200, 255, 61), 600);
	for (i = 0; i < m.n; i++) {
		assert_int_equal(e4_dir_insert(fs, d, m.pool[i], strlen(m.pool[i]), f,
					       EXT4_FT_REG_FILE), 0);
		m.in[i] = 1;
		assert_int_equal(e4_inode_read(fs, d, &ib), 0);
		if (e4_inode_size(&ib.inode) == 2 * 65536)
			break;
	}
	assert_int_equal(e4_dir_block_read(fs, d, &ib.inode, 1, buf, NULL), 0);
	assert_int_equal(e4_get_le16(buf + 4), 0xFFFF);
	assert_int_equal(e4_dir_remove(fs, d, m.pool[i], strlen(m.pool[i]), NULL, NULL), 0);
	m.in[i] = 0;
	assert_int_equal(e4_dir_block_read(fs, d, &ib.inode, 1, buf, NULL), 0);
	assert_int_equal(e4_get_le32(buf), 0);
	assert_int_equal(e4_get_le16(buf + 4), 0xFFFF);
	/* block 0 still has no room: the name takes the whole record again */
	assert_int_equal(e4_dir_insert(fs, d, m.pool[i], strlen(m.pool[i]), f,
				       EXT4_FT_REG_FILE), 0);
	m.in[i] = 1;
	assert_int_equal(e4_dir_block_read(fs, d, &ib.inode, 1, buf, NULL), 0);
	assert_int_equal(e4_get_le32(buf), f);
	assert_int_equal(e4_get_le16(buf + 4), 0xFFFF);
	random_ops(fs, &m, f, 600, 60, 600, &seed);
	finish(fs, img, f, &m, 1);
	model_free(&m);

	fs = image("ext4_64k", "-t ext4 -b 65536", "16M", &f, &img2);
	d = new_dir(fs, "d");
	model_init(&m, "/d", d, make_names(1500, 100, 255, 62), 1500);
	random_ops(fs, &m, f, 3000, 75, 1000, &seed);
	{
		uint64_t nb;
		unsigned lv, cnt;

		dx_shape(fs, d, &lv, &cnt, &nb);
		assert_true(cnt >= 3);
	}
	finish(fs, img2, f, &m, 1);
	model_free(&m);
	free(buf);
}

/* Offset of name in a leaf block, its rec_len in *rec; -1 if absent. */
static int find_rec(const uint8_t *b, unsigned bs, const char *name, unsigned *rec)
{
	unsigned o = 0;

	while (o < bs) {
		unsigned r = e4_get_le16(b + o + 4);

		if (r < 8)
			return -1;
		if (e4_get_le32(b + o) && b[o + 6] == strlen(name) &&
		    !memcmp(b + o + 8, name, b[o + 6])) {
			*rec = r;
			return (int)o;
		}
		o += r;
	}
	return -1;
}

/* Where entries go and what removal leaves, as the kernel does it: the
 * first slot with room (a live record's slack is split), a removed record
 * merged into its predecessor with its bytes zeroed, one first in its
 * block left as an unused record with its rec_len; that slot taken again
 * whole. */
static void remove_layout(void **state)
{
	const char *img;
	e4_ino_t f, d;
	e4_fs *fs = image("layout", "-t ext2 -O ^dir_index -b 1024", "4M", &f, &img);
	union e4_inode_buf ib;
	uint8_t b[1024];
	char name[64];
	unsigned rec, rec_a, i;
	int oa, ob;
	struct model m;

	(void)state;
	d = new_dir(fs, "d");
	model_init(&m, "/d", d, make_names(40, 50, 50, 81), 40);
	for (i = 0; i < 40; i++) {	/* 58-byte records: 17 in block 0, then block 1 */
		assert_int_equal(e4_dir_insert(fs, d, m.pool[i], 50, f, 1), 0);
		m.in[i] = 1;
	}
	assert_int_equal(e4_inode_read(fs, d, &ib), 0);
	assert_int_equal(e4_dir_block_read(fs, d, &ib.inode, 0, b, NULL), 0);
	oa = find_rec(b, 1024, m.pool[3], &rec_a);
	ob = find_rec(b, 1024, m.pool[4], &rec);
	assert_true(oa > 0 && ob == oa + 60 && rec_a == 60);
	assert_int_equal(e4_dir_remove(fs, d, m.pool[4], 50, NULL, NULL), 0);
	m.in[4] = 0;
	assert_int_equal(e4_dir_block_read(fs, d, &ib.inode, 0, b, NULL), 0);
	assert_int_equal(find_rec(b, 1024, m.pool[3], &rec), oa);
	assert_int_equal(rec, 120);			/* merged */
	for (i = 0; i < 60; i++)
		assert_int_equal(b[oa + 60 + i], 0);	/* zeroed */
	/* a short name goes into that slack, not at the end */
	snprintf(name, sizeof(name), "s");
	assert_int_equal(e4_dir_insert(fs, d, name, 1, f, 1), 0);
	assert_int_equal(e4_dir_block_read(fs, d, &ib.inode, 0, b, NULL), 0);
	assert_int_equal(find_rec(b, 1024, "s", &rec), oa + 60);
	assert_int_equal(rec, 60);
	assert_int_equal(e4_dir_remove(fs, d, "s", 1, NULL, NULL), 0);
	/* the first record of block 1: inode 0, rec_len kept */
	assert_int_equal(e4_dir_block_read(fs, d, &ib.inode, 1, b, NULL), 0);
	assert_int_equal(e4_get_le32(b), f);
	for (i = 0; i < 40 && memcmp(b + 8, m.pool[i], 50); i++)
		;
	assert_true(i < 40);
	rec = e4_get_le16(b + 4);
	assert_int_equal(e4_dir_remove(fs, d, m.pool[i], 50, NULL, NULL), 0);
	m.in[i] = 0;
	assert_int_equal(e4_dir_block_read(fs, d, &ib.inode, 1, b, NULL), 0);
	assert_int_equal(e4_get_le32(b), 0);
	assert_int_equal(e4_get_le16(b + 4), rec);
	assert_int_equal(b[6], 0);
	/* block 0 full again (pool[4] back in its slot): a 50-byte name goes
	 * into block 1's free record */
	assert_int_equal(e4_dir_insert(fs, d, m.pool[4], 50, f, 1), 0);
	m.in[4] = 1;
	assert_int_equal(e4_dir_block_read(fs, d, &ib.inode, 0, b, NULL), 0);
	assert_int_equal(find_rec(b, 1024, m.pool[4], &rec_a), oa + 60);
	assert_int_equal(e4_dir_insert(fs, d, m.pool[i], 50, f, 1), 0);
	m.in[i] = 1;
	assert_int_equal(e4_dir_block_read(fs, d, &ib.inode, 1, b, NULL), 0);
	assert_int_equal(e4_get_le32(b), f);
	assert_int_equal(e4_get_le16(b + 4), rec);
	assert_memory_equal(b + 8, m.pool[i], 50);
	finish(fs, img, f, &m, 1);
	model_free(&m);
}

/* A full filesystem: inserts go on while leaves have room; the first
 * that needs a block fails with E4_ERR_NO_SPACE and changes nothing
 * (linear on ext2, indexed on ext4).  The blocks taken to fill it are
 * given back before the oracles judge the image. */
static void no_space(void **state)
{
	static const char *const opts[2] = { "-t ext4 -b 1024", "-t ext2 -O ^dir_index -b 1024" };
	const char *img;
	e4_ino_t f;
	struct model m;

	(void)state;
	for (int k = 0; k < 2; k++) {
		e4_fs *fs = image(k ? "full2" : "full4", opts[k], "2M", &f, &img);
		e4_blk_t *taken = malloc(sizeof(*taken) * 4096), b;
		size_t nt = 0, i;
		errcode_t err = 0;
		uint64_t nb0, nb1;
		unsigned lv, cnt;

		model_init(&m, "/d", new_dir(fs, "d"), make_names(2000, 100, 100, 101), 2000);
		for (i = 0; i < 40; i++) {
			assert_int_equal(e4_dir_insert(fs, m.dir, m.pool[i], 100, f, 1), 0);
			m.in[i] = 1;
		}
		while (!e4_block_find_free(fs, 0, 1, &b)) {
			assert_int_equal(e4_block_mark(fs, b, 1, 1, NULL), 0);
			taken[nt++] = b;
		}
		dx_shape(fs, m.dir, &lv, &cnt, &nb0);
		for (; i < m.n; i++) {
			err = e4_dir_insert(fs, m.dir, m.pool[i], 100, f, 1);
			if (err)
				break;
			m.in[i] = 1;
		}
		assert_int_equal(err, E4_ERR_NO_SPACE);
		dx_shape(fs, m.dir, &lv, &cnt, &nb1);
		assert_int_equal(nb1, nb0);
		model_verify(fs, &m, f);
		while (nt)
			assert_int_equal(e4_block_mark(fs, taken[--nt], 1, 0, NULL), 0);
		free(taken);
		finish(fs, img, f, &m, 1);
		model_free(&m);
	}
}

/* 1 if inode ino has the attribute system.data (*len: its size). */
static int has_system_data(e4_fs *fs, e4_ino_t ino, size_t *len)
{
	union e4_inode_buf ib;
	void *v = NULL;
	errcode_t err;

	assert_int_equal(e4_inode_read(fs, ino, &ib), 0);
	err = e4_xattr_get(fs, ino, &ib.inode, "system.data", &v, len);
	free(v);
	if (err == E4_ERR_XATTR_NOT_FOUND)
		return 0;
	assert_int_equal(err, 0);
	return 1;
}

/* '..' of dir pointed at other and back: each read back. */
static void repoint_dotdot(e4_fs *fs, e4_ino_t dir, e4_ino_t other)
{
	e4_ino_t was, now;

	assert_int_equal(e4_dir_set_entry(fs, dir, "..", 2, other, EXT4_FT_DIR, &was), 0);
	assert_int_equal(was, EXT4_ROOT_INO);
	assert_int_equal(e4_dir_lookup(fs, dir, "..", 2, &now, NULL), 0);
	assert_int_equal(now, other);
	assert_int_equal(e4_dir_set_entry(fs, dir, "..", 2, EXT4_ROOT_INO, EXT4_FT_DIR, &was), 0);
	assert_int_equal(was, other);
	assert_int_equal(e4_dir_lookup(fs, dir, "..", 2, &now, NULL), 0);
	assert_int_equal(now, EXT4_ROOT_INO);
}

/* Inline state of dir: 1 inline (*size: i_size), 0 not. */
static int inline_state(e4_fs *fs, e4_ino_t dir, uint64_t *size)
{
	union e4_inode_buf ib;

	assert_int_equal(e4_inode_read(fs, dir, &ib), 0);
	*size = e4_inode_size(&ib.inode);
	return (e4_le32(ib.inode.i_flags) & EXT4_INLINE_DATA_FL) != 0;
}

/* Inline directories (inline_data, 256-byte inodes): one made by
 * e4_dir_build(E4_DIR_BUILD_INLINE) fills i_block (i_size 60), then a
 * grown system.data (i_size above 60), then becomes a block directory,
 * then indexed; one the reference mke2fs made (empty, from -d) the same;
 * random inserts and removes on a third with few names, which stays
 * inline; '..' repointed in i_block[0]. */
static void inline_dirs(void **state)
{
	const char *img;
	e4_ino_t f, r, ino;
	e4_fs *fs = image("inline", "-t ext4 -O inline_data -I 256 -b 1024", "8M", &f, &img);
	struct model m[3];
	uint32_t seed = 606;
	uint64_t size;
	int seen_60 = 0, seen_grown = 0, seen_regrown = 0, seen_block = 0;
	unsigned lv, cnt;
	size_t xl;

	(void)state;
	assert_int_equal(udir_mkdir_build(fs, EXT4_ROOT_INO, "a", NULL, 0, E4_DIR_BUILD_INLINE, 0,
					  &ino), 0);
	assert_int_equal(inline_state(fs, ino, &size), 1);
	assert_int_equal(size, 60);
	assert_int_equal(has_system_data(fs, ino, &xl), 1);	/* there, empty */
	assert_int_equal(xl, 0);
	/* an attribute in the inode body first: system.data grows to less */
	{
		union e4_inode_buf ib;

		assert_int_equal(e4_inode_read(fs, ino, &ib), 0);
		assert_int_equal(e4_xattr_set(fs, ino, &ib, EXT4_XATTR_INDEX_USER, "x", 1,
					      "01234567", 8, NULL), 0);
	}
	model_init(&m[0], "/a", ino, make_names(300, 5, 12, 601), 300);
	for (size_t i = 0; i < m[0].n; i++) {
		assert_int_equal(e4_dir_insert(fs, ino, m[0].pool[i], strlen(m[0].pool[i]), f, 1), 0);
		m[0].in[i] = 1;
		if (inline_state(fs, ino, &size)) {
			assert_false(seen_block);
			seen_60 |= size == 60;
			if (size > 60 && !seen_grown) {
				/* grown once: make room and grow it again */
				union e4_inode_buf ib;

				seen_grown = (int)size;
				assert_int_equal(e4_inode_read(fs, ino, &ib), 0);
				assert_int_equal(e4_xattr_remove(fs, ino, &ib, EXT4_XATTR_INDEX_USER,
								 "x", 1, NULL), 0);
			} else if (seen_grown && size > (uint64_t)seen_grown) {
				seen_regrown = 1;
			}
		} else if (!seen_block) {
			seen_block = 1;
			assert_int_equal(has_system_data(fs, ino, &xl), 0);	/* removed */
			assert_int_equal(size, 1024);
		}
		if (i < 16)
			model_verify(fs, &m[0], f);
	}
	assert_true(seen_60 && seen_grown && seen_regrown && seen_block);
	dx_shape(fs, ino, &lv, &cnt, &size);
	assert_true(cnt >= 2);		/* indexed by now */

	/* the reference's inline directory /r (mke2fs -d of an empty one) */
	assert_int_equal(e4_namei(fs, 0, 0, "/r", 0, &r), 0);
	assert_int_equal(inline_state(fs, r, &size), 1);
	model_init(&m[1], "/r", r, make_names(40, 1, 30, 602), 40);
	repoint_dotdot(fs, r, m[0].dir);
	random_ops(fs, &m[1], f, 300, 70, 10, &seed);

	/* few names: stays inline through inserts and removes */
	assert_int_equal(udir_mkdir_build(fs, EXT4_ROOT_INO, "c", NULL, 0, E4_DIR_BUILD_INLINE, 0,
					  &ino), 0);
	model_init(&m[2], "/c", ino, make_names(6, 1, 6, 603), 6);
	random_ops(fs, &m[2], f, 400, 50, 5, &seed);
	assert_int_equal(inline_state(fs, ino, &size), 1);
	repoint_dotdot(fs, ino, m[0].dir);
	finish(fs, img, f, m, 3);
	for (int k = 0; k < 3; k++)
		model_free(&m[k]);
}

/* e4_dir_expand (inline_data, 256-byte inodes, 1 KiB): a linear
 * directory gains an empty block (2048 bytes), which later inserts fill;
 * an inline one becomes a one-block directory with its entries; an
 * indexed one gains two empty leaves at the end of its index, every name
 * still found; a file is refused. */
static void expand(void **state)
{
	const char *img;
	e4_ino_t f, e, i, x;
	e4_fs *fs = image("expand", "-t ext4 -O inline_data -I 256 -b 1024", "8M", &f, &img);
	struct model m[3];
	uint64_t size, after;
	unsigned lv, cnt;

	(void)state;
	e = new_dir(fs, "e");
	assert_int_equal(inline_state(fs, e, &size), 0);
	assert_int_equal(size, 1024);
	assert_int_equal(e4_dir_expand(fs, e), 0);
	assert_int_equal(inline_state(fs, e, &size), 0);
	assert_int_equal(size, 2048);
	model_init(&m[0], "/e", e, make_names(60, 8, 12, 701), 60);
	for (size_t k = 0; k < m[0].n; k++) {
		assert_int_equal(e4_dir_insert(fs, e, m[0].pool[k], strlen(m[0].pool[k]), f, 1), 0);
		m[0].in[k] = 1;
	}
	model_verify(fs, &m[0], f);

	assert_int_equal(udir_mkdir_build(fs, EXT4_ROOT_INO, "i", NULL, 0, E4_DIR_BUILD_INLINE, 0,
					  &i), 0);
	model_init(&m[1], "/i", i, make_names(2, 3, 5, 702), 2);
	for (size_t k = 0; k < m[1].n; k++) {
		assert_int_equal(e4_dir_insert(fs, i, m[1].pool[k], strlen(m[1].pool[k]), f, 1), 0);
		m[1].in[k] = 1;
	}
	assert_int_equal(inline_state(fs, i, &size), 1);
	assert_int_equal(e4_dir_expand(fs, i), 0);
	assert_int_equal(inline_state(fs, i, &size), 0);
	assert_int_equal(size, 1024);
	model_verify(fs, &m[1], f);

	x = new_dir(fs, "x");
	model_init(&m[2], "/x", x, make_names(200, 20, 30, 703), 200);
	for (size_t k = 0; k < m[2].n; k++) {
		assert_int_equal(e4_dir_insert(fs, x, m[2].pool[k], strlen(m[2].pool[k]), f, 1), 0);
		m[2].in[k] = 1;
	}
	dx_shape(fs, x, &lv, &cnt, &size);
	assert_true(cnt >= 2);
	{
		unsigned cnt0 = cnt;

		/* twice: the second empty leaf goes above the first */
		assert_int_equal(e4_dir_expand(fs, x), 0);
		assert_int_equal(e4_dir_expand(fs, x), 0);
		dx_shape(fs, x, &lv, &cnt, &after);
		assert_int_equal(after, size + 2);
		assert_int_equal(cnt, cnt0 + 2);
	}
	model_verify(fs, &m[2], f);
	assert_int_equal(e4_dir_expand(fs, f), E4_ERR_NOT_DIR);
	finish(fs, img, f, m, 3);
	for (int k = 0; k < 3; k++)
		model_free(&m[k]);
}

/* The logical block the last entry of the index of dir names, following
 * the last entries from the root down (levels: the root's). */
static uint32_t dx_last_leaf(e4_fs *fs, e4_ino_t dir, unsigned levels)
{
	union e4_inode_buf ib;
	static uint8_t buf[65536];
	unsigned off = 0x20, cnt;
	uint32_t blk = 0;

	assert_int_equal(e4_inode_read(fs, dir, &ib), 0);
	for (unsigned k = 0;; k++) {
		assert_int_equal(e4_dir_block_read(fs, dir, &ib.inode, blk, buf, NULL), 0);
		cnt = e4_get_le16(buf + off + 2);
		blk = e4_get_le32(buf + off + 8 * (cnt - 1) + 4);
		if (k == levels)
			return blk;
		off = 8;
	}
}

/* expand_dir on an indexed directory whose last index node is full
 * (1 KiB blocks: a root holds 123 entries, a node 126): the full root
 * gains a level (its entries move to a node below it), then the full
 * last node splits in two; every new leaf is the index's last, every
 * name still found, the reference e2fsck clean.  Before the fix the
 * 124th leaf failed with E4_ERR_DIR_INDEX_FULL. */
static void expand_full_index(void **state)
{
	const char *img;
	e4_ino_t f, x;
	e4_fs *fs = image("expfull", "-t ext4 -b 1024", "8M", &f, &img);
	struct model m;
	uint64_t nb, nb0;
	unsigned lv, cnt, k, splits = 0;

	(void)state;
	x = new_dir(fs, "x");
	model_init(&m, "/x", x, make_names(40, 20, 30, 811), 40);
	for (size_t i = 0; i < m.n; i++) {
		assert_int_equal(e4_dir_insert(fs, x, m.pool[i], strlen(m.pool[i]), f, 1), 0);
		m.in[i] = 1;
	}
	dx_shape(fs, x, &lv, &cnt, &nb0);
	assert_int_equal(lv, 0);
	assert_true(cnt >= 2 && cnt < 123);
	for (k = 0; k < 140; k++) {
		unsigned lv1, cnt1;

		assert_int_equal(e4_dir_expand(fs, x), 0);
		dx_shape(fs, x, &lv1, &cnt1, &nb);
		/* the new leaf, appended last, is the index's last */
		assert_int_equal(dx_last_leaf(fs, x, lv1), nb - 1);
		if (lv1 != lv || cnt1 != cnt)
			splits++;
		lv = lv1;
		cnt = cnt1;
	}
	assert_int_equal(lv, 1);	/* the root went one level down */
	assert_int_equal(cnt, 2);	/* and its node split once */
	/* 140 leaves, one node for the new level, one for the split */
	assert_int_equal(nb, nb0 + 140 + 2);
	model_verify(fs, &m, f);
	finish(fs, img, f, &m, 1);
	model_free(&m);
}

/* The bulk builder where free space is all holes of one block (one
 * cluster with bigalloc): the directory is allocated piece by piece, so
 * its map holds hundreds of runs (an extent tree of depth 2, a block map,
 * clusters); then inserts and removes.  The filler is given back before
 * the oracles judge. */
static void bulk_fragmented(void **state)
{
	static const char *const opts[3] = { "-t ext4 -b 1024", "-t ext3 -b 1024",
					     "-t ext4 -O bigalloc -C 4096 -b 1024" };
	const char *img;
	e4_ino_t f;
	struct model m;
	uint32_t seed = 5;

	(void)state;
	for (int k = 0; k < 3; k++) {
		e4_fs *fs = image(k == 0 ? "bfrag4" : k == 1 ? "bfrag3" : "bfragba", opts[k], "8M",
				  &f, &img);
		unsigned c = 1u << (k == 2 ? 2 : 0), lv, cnt;
		e4_blk_t *taken = malloc(sizeof(*taken) * 8192), b;
		struct e4_new_dirent *ents;
		size_t nt = 0, i;
		uint64_t nb;

		while (!e4_block_find_free(fs, 0, 1, &b)) {
			assert_int_equal(e4_block_mark(fs, b, c, 1, NULL), 0);
			taken[nt++] = b;
		}
		for (i = 0; i < nt; i += 2)	/* every other one back: holes */
			assert_int_equal(e4_block_mark(fs, taken[i], c, 0, NULL), 0);
		model_init(&m, "/d", 0, make_names(2000, 200, 200, 131), 2000);
		ents = model_ents(&m, 1500, f);
		assert_int_equal(udir_mkdir_build(fs, EXT4_ROOT_INO, "d", ents, 1500, 0, 20, &m.dir),
				 0);
		free(ents);
		dx_shape(fs, m.dir, &lv, &cnt, &nb);
		assert_int_equal(lv, 1);
		if (k == 0)
			assert_int_equal(ext_depth(fs, m.dir), 2);
		random_ops(fs, &m, f, 600, 50, 600, &seed);
		for (i = 1; i < nt; i += 2)
			assert_int_equal(e4_block_mark(fs, taken[i], c, 0, NULL), 0);
		free(taken);
		finish(fs, img, f, &m, 1);
		model_free(&m);
	}
}

/* Hash signedness (format doc 8.5): with UNSIGNED_HASH (what mke2fs writes
 * on ARM) names with bytes >= 0x80 hash unsigned, and the kernel finds
 * them; with neither flag the first index records SIGNED_HASH. */
static void hash_signedness(void **state)
{
	const char *img;
	e4_ino_t f;
	struct model m;
	uint32_t seed = 8;

	(void)state;
	for (int k = 0; k < 2; k++) {
		e4_fs *fs = image(k ? "noflag" : "unsigned", "-t ext4 -b 1024", "8M", &f, &img);
		struct ext4_super_block *sb = e4_super(fs);
		uint32_t flags = e4_le32(sb->s_flags) & ~3u;

		sb->s_flags = e4_cpu_to_le32(flags | (k ? 0 : EXT2_FLAGS_UNSIGNED_HASH));
		model_init(&m, "/d", new_dir(fs, "d"), make_names(800, 30, 120, 121), 800);
		random_ops(fs, &m, f, 1500, 70, 500, &seed);
		assert_int_equal(e4_le32(sb->s_flags) & 3,
				 k ? EXT2_FLAGS_SIGNED_HASH : EXT2_FLAGS_UNSIGNED_HASH);
		finish(fs, img, f, &m, 1);
		model_free(&m);
	}
}

/* Refusals, and '..' repointed.  A leaf whose checksum is damaged is left
 * as it was. */
static void refusals(void **state)
{
	const char *img;
	e4_ino_t f, d;
	e4_fs *fs = image("refuse", "-t ext4 -b 1024", "8M", &f, &img);
	uint32_t seed = 71;
	char longname[257];
	union e4_inode_buf ib;
	uint8_t blk[1024], after[1024];
	e4_blk_t pblk;
	struct model m;

	(void)state;
	memset(longname, 'a', 256);
	longname[256] = '\0';
	d = new_dir(fs, "d");
	model_init(&m, "/d", d, make_names(3, 1, 10, 71), 3);
	assert_int_equal(e4_dir_insert(fs, d, "x", 1, f, EXT4_FT_REG_FILE), 0);
	assert_int_equal(e4_dir_insert(fs, d, "x", 1, f, EXT4_FT_REG_FILE), E4_ERR_EXISTS);
	assert_int_equal(e4_dir_insert(fs, d, longname, 256, f, 1), E4_ERR_NAME_TOO_LONG);
	assert_int_equal(e4_dir_insert(fs, d, longname, 255, f, 1), 0);
	assert_int_equal(e4_dir_insert(fs, d, "a/b", 3, f, 1), E4_ERR_INVALID_ARGUMENT);
	assert_int_equal(e4_dir_insert(fs, d, "..", 2, f, 1), E4_ERR_INVALID_ARGUMENT);
	assert_int_equal(e4_dir_insert(fs, d, "y", 1, 0, 1), E4_ERR_INVALID_ARGUMENT);
	assert_int_equal(e4_dir_insert(fs, d, "", 0, f, 1), E4_ERR_INVALID_ARGUMENT);
	assert_int_equal(e4_dir_insert(fs, f, "y", 1, f, 1), E4_ERR_NOT_DIR);
	assert_int_equal(e4_dir_remove(fs, d, "y", 1, NULL, NULL), E4_ERR_NOT_FOUND);
	assert_int_equal(e4_dir_remove(fs, d, ".", 1, NULL, NULL), E4_ERR_INVALID_ARGUMENT);
	assert_int_equal(e4_dir_remove(fs, d, longname, 255, NULL, NULL), 0);
	/* '..' repointed (to lost+found) and back, read back each time; also
	 * in an indexed directory (the dx root's checksum covers it) */
	repoint_dotdot(fs, d, 11);
	{
		e4_ino_t big = new_dir(fs, "big");
		struct model mb;

		model_init(&mb, "/big", big, make_names(200, 100, 100, 72), 200);
		random_ops(fs, &mb, f, 200, 100, 200, &seed);
		repoint_dotdot(fs, big, 11);
		for (size_t i = 0; i < mb.n; i++)
			if (mb.in[i])
				assert_int_equal(e4_dir_remove(fs, big, mb.pool[i], 100, NULL, NULL), 0);
		model_free(&mb);
	}

	/* damage the leaf's checksum: every change is refused, nothing written */
	assert_int_equal(e4_inode_read(fs, d, &ib), 0);
	assert_int_equal(e4_dir_block_read(fs, d, &ib.inode, 0, blk, &pblk), 0);
	blk[1020] ^= 0xFF;
	assert_int_equal(e4_io_write_blk(e4_fs_io(fs), pblk, 1, blk), 0);
	assert_int_equal(e4_dir_insert(fs, d, "z", 1, f, 1), E4_ERR_DIR_CSUM);
	assert_int_equal(e4_dir_remove(fs, d, "x", 1, NULL, NULL), E4_ERR_DIR_CSUM);
	assert_int_equal(e4_io_read_blk(e4_fs_io(fs), pblk, 1, after), 0);
	assert_memory_equal(blk, after, sizeof(blk));
	blk[1020] ^= 0xFF;
	assert_int_equal(e4_io_write_blk(e4_fs_io(fs), pblk, 1, blk), 0);
	m.pool[0][0] = 'x';
	m.pool[0][1] = '\0';
	m.in[0] = 1;
	{	/* read-only */
		e4_fs *ro;

		assert_int_equal(e4_open(img, 0, 0, 0, &ro), 0);
		assert_int_equal(e4_dir_insert(ro, EXT4_ROOT_INO, "q", 1, 2, 2), E4_ERR_READ_ONLY);
		e4_close(ro);
	}
	finish(fs, img, f, &m, 1);
	model_free(&m);
}

/* ---- the index-driven lookup (dir.c e4_dir_lookup_index) --------------- */

struct hname {
	uint32_t hash;
	char name[12];
};

static int hname_cmp(const void *a, const void *b)
{
	const struct hname *x = a, *y = b;

	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

static void names_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Pairs of names with one hash (version, the image's seed): a birthday
 * search over 2^20 short names; up to max pairs in pa[], pb[]. */
static size_t collisions(e4_fs *fs, int version, char (*pa)[12], char (*pb)[12], size_t max)
{
	size_t n = 1u << 20, np = 0;
	struct hname *v = malloc(n * sizeof(*v));
	const struct ext4_super_block *sb = e4_super(fs);
	uint32_t seed[4];

	assert_non_null(v);
	for (int i = 0; i < 4; i++)
		seed[i] = e4_le32(sb->s_hash_seed[i]);
	for (size_t i = 0; i < n; i++) {
		snprintf(v[i].name, sizeof(v[i].name), "c%07zx", i);
		assert_int_equal(e4_dx_hash(version, v[i].name, 8, seed, &v[i].hash, NULL), 0);
	}
	qsort(v, n, sizeof(*v), hname_cmp);
	for (size_t i = 1; i < n && np < max; i++) {
		if (v[i].hash != v[i - 1].hash)
			continue;
		memcpy(pa[np], v[i - 1].name, 12);
		memcpy(pb[np], v[i].name, 12);
		np++;
	}
	free(v);
	return np;
}

/* e4_dir_lookup_index() against e4_dir_lookup() and a model, in an
 * indexed directory (ext4 1 KiB, fixed hash seed) of 4,000 random names
 * (lengths 1-60, bytes >= 0x80) and names whose hashes collide (261 pairs
 * found by a birthday search over 2^20 names, inserted among the others:
 * one or both of a pair; leaf splits fall between some pairs, so dx
 * entries carry the continuation bit, checked): every present name found
 * with its inode by both, every absent one (random, or the other half of
 * a colliding pair) missed by both.  Then one leaf's checksum is
 * broken: the linear confirmation of e4_dir_lookup() trips over it on
 * every miss, the index lookup reads only the leaves the hash names, so
 * almost all of its misses stay E4_ERR_NOT_FOUND.  Bug it catches: an
 * index lookup that skips the continuation leaves or stops at the first
 * hash match (a colliding name reported missing), or one that still
 * scans the whole directory. */
/* dx entries of directory dir whose hash has the continuation bit (the
 * leaf goes on with the previous one's hash); one index level at most. */
static unsigned continued_entries(e4_fs *fs, e4_ino_t dir)
{
	union e4_inode_buf ib;
	uint8_t root[1024], node[1024];
	struct e4_dx_root r;
	struct e4_dx_node rn, nn;
	unsigned n = 0;
	uint32_t h, lb;

	assert_int_equal(e4_inode_read(fs, dir, &ib), 0);
	assert_int_equal(e4_dir_block_read(fs, dir, &ib.inode, 0, root, NULL), 0);
	assert_int_equal(e4_dx_root_parse(fs, root, &r), 0);
	assert_true(r.indirect_levels <= 1);
	e4_dx_node_parse(fs, root, r.count_off, &rn);
	for (unsigned i = 0; i < rn.count; i++) {
		e4_dx_node_entry(root, &rn, i, &h, &lb);
		n += i && (h & 1);
		if (!r.indirect_levels)
			continue;
		assert_int_equal(e4_dir_block_read(fs, dir, &ib.inode, lb & E4_DX_BLOCK_MASK, node,
						   NULL), 0);
		e4_dx_node_parse(fs, node, 8, &nn);
		for (unsigned j = 1; j < nn.count; j++) {
			e4_dx_node_entry(node, &nn, j, &h, &lb);
			n += h & 1;
		}
	}
	return n;
}

#define NINO(i)	(20 + (e4_ino_t)((i) % 200))
#define NPAIRS	400
static void index_lookup(void **state)
{
	const char *img;
	e4_ino_t f, d, ino;
	e4_fs *fs = image("ext4_lookup", "-t ext4 -b 1024 -O metadata_csum", "8M", &f, &img);
	size_t n = 4000, np, nabs = 0, miss_index = 0, miss_linear = 0, nleaf;
	char **names = make_names(n, 1, 60, 31), (*pa)[12], (*pb)[12];
	uint8_t buf[1024];
	union e4_inode_buf ib;
	unsigned lv, cnt;
	uint64_t nb;
	e4_blk_t pblk;
	int version;
	unsigned cont;

	(void)state;
	pa = malloc(NPAIRS * sizeof(*pa));
	pb = malloc(NPAIRS * sizeof(*pb));
	d = new_dir(fs, "d");
	version = e4_dx_effective_version(fs, e4_super(fs)->s_def_hash_version);
	np = collisions(fs, version, pa, pb, NPAIRS);
	assert_true(np >= 64);
	/* an entry's inode number is 20 + its index mod 200 (entries only:
	 * the image is not judged, only read back); the colliding pairs go
	 * in among them, so that leaf splits fall between some of them */
	for (size_t i = 0; i < n; i++) {
		size_t k = i / 8;

		assert_int_equal(e4_dir_insert(fs, d, names[i], strlen(names[i]), NINO(i),
					       EXT4_FT_REG_FILE), 0);
		if (i % 8 || k >= np)
			continue;
		assert_int_equal(e4_dir_insert(fs, d, pa[k], 8, 10 + (e4_ino_t)k % 90,
					       EXT4_FT_REG_FILE), 0);
		if (k & 3)
			assert_int_equal(e4_dir_insert(fs, d, pb[k], 8, 100 + (e4_ino_t)k % 100,
						       EXT4_FT_REG_FILE), 0);
	}
	dx_shape(fs, d, &lv, &cnt, &nb);
	assert_true(cnt > 1 && nb > 100);	/* indexed, many leaves */
	assert_int_equal(e4_inode_read(fs, d, &ib), 0);
	assert_int_equal(e4_dir_block_read(fs, d, &ib.inode, 0, buf, NULL), 0);
	assert_int_equal(e4_dx_effective_version(fs, buf[0x1C]), version);
	fprintf(stderr, "index_lookup: %zu colliding pairs, %u index levels, %llu blocks\n", np,
		lv, (unsigned long long)nb);
	/* some pairs were split across two leaves: the index says so */
	cont = continued_entries(fs, d);
	fprintf(stderr, "index_lookup: %u dx entries continue a hash\n", cont);
	assert_true(cont > 0);
	for (size_t i = 0; i < n; i++) {
		ino = 0;
		assert_int_equal(e4_dir_lookup_index(fs, d, names[i], strlen(names[i]), &ino, NULL), 0);
		assert_int_equal(ino, NINO(i));
		ino = 0;
		assert_int_equal(e4_dir_lookup(fs, d, names[i], strlen(names[i]), &ino, NULL), 0);
		assert_int_equal(ino, NINO(i));
	}
	for (size_t i = 0; i < np; i++) {
		assert_int_equal(e4_dir_lookup_index(fs, d, pa[i], 8, &ino, NULL), 0);
		assert_int_equal(ino, 10 + i % 90);
		if (i & 3) {
			assert_int_equal(e4_dir_lookup_index(fs, d, pb[i], 8, &ino, NULL), 0);
			assert_int_equal(ino, 100 + i % 100);
		} else {
			assert_int_equal(e4_dir_lookup_index(fs, d, pb[i], 8, &ino, NULL),
					 E4_ERR_NOT_FOUND);
			assert_int_equal(e4_dir_lookup(fs, d, pb[i], 8, &ino, NULL), E4_ERR_NOT_FOUND);
		}
	}
	/* absent names: other random names, each of them missed by both */
	names_free(names, n);
	names = make_names(n, 1, 60, 32);
	for (size_t i = 0; i < n; i++)
		names[i][0] = 'X';	/* "<i>_...": never a name of the first set */
	for (size_t i = 0; i < n; i++) {
		errcode_t a = e4_dir_lookup_index(fs, d, names[i], strlen(names[i]), &ino, NULL);
		errcode_t b = e4_dir_lookup(fs, d, names[i], strlen(names[i]), &ino, NULL);

		assert_int_equal(a, E4_ERR_NOT_FOUND);
		assert_int_equal(b, E4_ERR_NOT_FOUND);
		nabs++;
	}
	assert_int_equal(nabs, n);
	/* one leaf (the last block) with a broken checksum */
	dx_shape(fs, d, &lv, &cnt, &nb);
	assert_int_equal(e4_inode_read(fs, d, &ib), 0);
	assert_int_equal(e4_dir_block_read(fs, d, &ib.inode, nb - 1, buf, &pblk), 0);
	buf[sizeof(buf) - 1] ^= 0x55;
	assert_int_equal(e4_io_write_blk(e4_fs_io(fs), pblk, 1, buf), 0);
	for (size_t i = 0; i < n; i++) {
		miss_index += e4_dir_lookup_index(fs, d, names[i], strlen(names[i]), &ino, NULL) ==
			      E4_ERR_NOT_FOUND;
		miss_linear += e4_dir_lookup(fs, d, names[i], strlen(names[i]), &ino, NULL) ==
			       E4_ERR_NOT_FOUND;
	}
	nleaf = nb;
	fprintf(stderr, "index_lookup: %zu absent names; with a bad leaf (last of %zu blocks): %zu missed "
		"cleanly by the index, %zu by the linear scan\n", nabs, nleaf, miss_index,
		miss_linear);
	assert_int_equal(miss_linear, 0);
	assert_true(miss_index >= nabs - nabs / 10);
	names_free(names, n);
	free(pa);
	free(pb);
	assert_int_equal(e4_close(fs), 0);
	unlink(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(linear_random),
		cmocka_unit_test(htree_random),
		cmocka_unit_test(htree_levels),
		cmocka_unit_test(htree_large_dir),
		cmocka_unit_test(fragmented),
		cmocka_unit_test(bigalloc),
		cmocka_unit_test(bulk_build),
		cmocka_unit_test(blocks_64k),
		cmocka_unit_test(remove_layout),
		cmocka_unit_test(no_space),
		cmocka_unit_test(inline_dirs),
		cmocka_unit_test(bulk_fragmented),
		cmocka_unit_test(hash_signedness),
		cmocka_unit_test(refusals),
		cmocka_unit_test(index_lookup),
		cmocka_unit_test(expand),
		cmocka_unit_test(expand_full_index),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
