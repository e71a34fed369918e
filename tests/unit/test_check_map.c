/*
 * test_check_map.c: pass 1's map checker (fsck/check_map*.c) on files
 * built by the library in small mke2fs images (a linked empty file f0
 * given a map): extent trees of 1, 2 and 3 levels below the root (1 KiB
 * blocks, metadata_csum: 100, 400 and 28225 one-block extents in full
 * nodes) and block maps with single and double indirect blocks (ext2).
 *
 * Each case damages one thing (through the library, with a correct
 * checksum, or as raw bytes), then runs the checker with the stand-in
 * driver of unit_mapstub.h (metadata: superblocks, descriptors, bitmaps,
 * inode tables): under -n exactly the expected problem codes, in order,
 * and nothing written; under -y the same codes (a repair's consequences,
 * such as a key following a dropped first extent, are not asked), i_blocks set from
 * res.blocks and the blocks the map no longer holds freed in the bitmaps
 * (pass 5's part, done here so the whole image can be judged); then a
 * second -n says nothing, the library's strict map walk accepts the map,
 * res.blocks equals the blocks it walks (data and tree/indirect), and the
 * reference e2fsck -fn finds the whole image clean.  Each built image is
 * judged clean by the reference before it is damaged.  Under -p a
 * checksum is fixed without stopping and a dropped extent stops the run
 * (preen does not drop data), twice the same.  A tree or indirect block
 * whose read fails (a read hook) is said and kept: -y drops nothing.
 * Needs mke2fs (REF_MKE2FS or PATH) and e2fsck; skipped without them.
 * Catches (planted once each): an index key fixed to the wrong child's
 * first block (e2fsck: "index ... does not match"); a dropped extent whose
 * node is not written back (the second -n finds it again); a garbage
 * indirect block left claimed (res.blocks one too many).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <cmocka.h>

#include "unit_capture.h"
#include "unit_fsck.h"
#include "unit_files.h"
#include "unit_mapstub.h"

static const char *ext4_base, *ext2_base;
static char src[64];

enum kind { K_EXT1, K_EXT2, K_EXT3, K_IND };

struct mcase {
	const char *name;
	enum kind kind;
	void (*damage)(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib);
	uint32_t codes[4];	/* under -n, in order (0 ends) */
};

/* ---- building -------------------------------------------------------------------- */
static const uint64_t kind_extents[] = { 100, 400, 28225, 0 };

/* f0 gets n one-block extents at logical 2i (a hole between each). */
static void build_extents(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, uint64_t n)
{
	unsigned bs = e4_geom(fs)->block_size, nb = e4_extent_tree_blocks(fs, n);
	struct e4_map_extent *ext = calloc(n, sizeof(*ext));
	e4_blk_t *blks = calloc(nb, sizeof(*blks)), first = 1;
	uint8_t *bufs = calloc(nb, bs);

	assert_true(ext && blks && bufs);
	for (unsigned i = 0; i < nb; i++) {
		assert_int_equal(e4_block_find_free(fs, first, 1, &blks[i]), 0);
		assert_int_equal(e4_block_mark(fs, blks[i], 1, 1, NULL), 0);
		first = blks[i] + 1;
	}
	for (uint64_t i = 0; i < n; i++) {
		assert_int_equal(e4_block_find_free(fs, first, 1, &ext[i].pblk), 0);
		assert_int_equal(e4_block_mark(fs, ext[i].pblk, 1, 1, NULL), 0);
		first = ext[i].pblk + 1;
		ext[i].lblk = 2 * i;
		ext[i].len = 1;
	}
	assert_int_equal(e4_extent_tree_build_n(fs, ino, &ib->inode, ext, n, blks, nb, bufs), 0);
	for (unsigned i = 0; i < nb; i++)
		assert_int_equal(e4_io_write_blk(e4_fs_io(fs), blks[i], 1, bufs + (size_t)i * bs), 0);
	assert_int_equal(e4_inode_blocks_set(fs, &ib->inode, (n + nb) * (bs / 512)), 0);
	ib->inode.i_size_lo = e4_cpu_to_le32((uint32_t)((2 * n - 1) * bs));
	free(ext);
	free(blks);
	free(bufs);
}

/* f0 (block-mapped) gets 600 blocks: direct, single and double indirect. */
static void build_blockmap(e4_fs *fs, union e4_inode_buf *ib)
{
	unsigned bs = e4_geom(fs)->block_size;
	e4_blk_t b;

	assert_int_equal(e4_block_find_free(fs, 1, 600, &b), 0);
	assert_int_equal(e4_block_mark(fs, b, 600, 1, NULL), 0);
	assert_int_equal(e4_blockmap_set(fs, &ib->inode, 0, 600, b, 0), 0);
	ib->inode.i_size_lo = e4_cpu_to_le32(600 * bs);
}

/* img: a copy of the base image of kind k with f0 given its map, written
 * and flushed; returned open (read-write, checksums not enforced) with
 * f0's number and image, for the caller to look at or damage. */
static e4_fs *built_open(const char *img, enum kind k, e4_ino_t *ino, union e4_inode_buf *ib)
{
	char cmd[400];
	e4_fs *fs;

	snprintf(cmd, sizeof(cmd), "cp %s %s", k == K_IND ? ext2_base : ext4_base, img);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(e4_open(img, E4_OPEN_RW | E4_OPEN_IGNORE_CSUM, 0, 0, &fs), 0);
	assert_int_equal(uf_open(fs, "/f0", ino, ib), 0);
	if (k == K_IND)
		build_blockmap(fs, ib);
	else
		build_extents(fs, *ino, ib, kind_extents[k]);
	assert_int_equal(e4_inode_write(fs, *ino, ib), 0);
	assert_int_equal(e4_alloc_flush(fs), 0);
	return fs;
}

static int count_cb(e4_fs *fs, const struct e4_map_extent *e, void *priv)
{
	(void)fs;
	*(uint64_t *)priv += e->len;
	return 0;
}

/* The blocks of the map (data and tree/indirect), by the strict walk. */
static errcode_t map_blocks(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *in, uint64_t *n)
{
	*n = 0;
	return e4_map_iterate(fs, ino, in, E4_ITER_META, count_cb, n);
}

struct blist {
	e4_blk_t *b;
	size_t n, cap;
};

static int list_cb(e4_fs *fs, const struct e4_map_extent *e, void *priv)
{
	struct blist *l = priv;

	(void)fs;
	for (uint32_t i = 0; i < e->len; i++) {
		if (l->n == l->cap) {
			l->cap = l->cap ? 2 * l->cap : 1024;
			l->b = realloc(l->b, l->cap * sizeof(*l->b));
			assert_non_null(l->b);
		}
		l->b[l->n++] = e->pblk + i;
	}
	return 0;
}

/* ---- the run ----------------------------------------------------------------------- */
static e4_blk_t fail_blk;	/* nonzero: reads of this block fail (EIO) */
static unsigned fail_bs;
static int last_exit;		/* e4fsck_exit_code() of the last check() */

static errcode_t failing_read(void *priv, uint64_t offset, size_t len)
{
	uint64_t at = (uint64_t)fail_blk * fail_bs;

	(void)priv;
	return offset < at + fail_bs && at < offset + len ? EIO : 0;
}

/* Run the checker on f0 of img in mode a; the codes said are in
 * mapstub_codes.  With -y: the inode written (i_blocks from res.blocks)
 * and the blocks of built no longer claimed freed. */
static int check(const char *img, enum e4fsck_answer a, struct check_map_result *res,
		 const struct blist *built)
{
	struct e4fsck ctx;
	struct mapstub st;
	union e4_inode_buf ib;
	e4_ino_t ino;
	const char *out;
	volatile errcode_t err = 0;
	volatile int stopped = 0;
	jmp_buf jb;

	unit_fsck_open(&ctx, img, a);
	assert_int_equal(mapstub_init(&st, ctx.fs), 0);
	assert_int_equal(uf_open(ctx.fs, "/f0", &ino, &ib), 0);
	if (fail_blk) {
		fail_bs = e4_geom(ctx.fs)->block_size;
		e4_io_set_read_hook(e4_fs_io(ctx.fs), failing_read, NULL);
	}
	mapstub_ncodes = 0;
	unit_fsck_stop_at = a == ANSWER_PREEN ? &jb : NULL;	/* only preen stops */
	cap_start();
	if (setjmp(jb))
		stopped = 1;
	else
		err = e4fsck_check_map(&ctx, ino, &ib.inode, &mapstub_ops, &st, res);
	out = cap_end();
	unit_fsck_stop_at = NULL;
	if (err)
		fail_msg("%s: %s", img, error_message(err));
	if (getenv("E4_VERBOSE"))
		print_message("%s", out);
	last_exit = e4fsck_exit_code(&ctx);
	if (a == ANSWER_YES && built) {
		unsigned spb = e4_geom(ctx.fs)->block_size / 512;

		assert_int_equal(e4_inode_blocks_set(ctx.fs, &ib.inode, res->blocks * spb), 0);
		assert_int_equal(e4_inode_write(ctx.fs, ino, &ib), 0);
		for (size_t i = 0; i < built->n; i++)
			if (!e4_bmap_test(st.used, built->b[i]))
				assert_int_equal(e4_block_mark(ctx.fs, built->b[i], 1, 0, NULL), 0);
		assert_int_equal(e4_alloc_flush(ctx.fs), 0);
	}
	mapstub_free(&st);
	if (stopped) {
		e4_io_discard(e4_fs_io(ctx.fs));	/* the stop writes nothing more */
		/* what e4fsck_stop() frees: the checker's buffers */
		for (size_t k = 0; k < sizeof(ctx.owned) / sizeof(ctx.owned[0]); k++)
			free(ctx.owned[k]);
	} else {
		e4fsck_check_map_release(&ctx);	/* what the pass does at its end */
	}
	unit_fsck_close(&ctx);
	return stopped;
}

static void run_case(const struct mcase *k)
{
	char img[160];
	struct check_map_result res;
	struct blist built = { 0 };
	union e4_inode_buf ib;
	uint64_t walked;
	e4_ino_t ino;
	e4_fs *fs;
	unsigned n = 0;

	if (!unit_fsck_imgs.ok)
		skip();
	snprintf(img, sizeof(img), "%s/case_%s", unit_fsck_imgs.dir, k->name);
	fs = built_open(img, k->kind, &ino, &ib);
	assert_int_equal(e4_map_iterate(fs, ino, &ib.inode, E4_ITER_META, list_cb, &built), 0);
	assert_int_equal(e4_close(fs), 0);
	if (oracle_fsck(img))
		fail_msg("%s: the built image is not clean", k->name);
	/* damage */
	assert_int_equal(e4_open(img, E4_OPEN_RW | E4_OPEN_IGNORE_CSUM, 0, 0, &fs), 0);
	assert_int_equal(uf_open(fs, "/f0", &ino, &ib), 0);
	k->damage(fs, ino, &ib);
	assert_int_equal(e4_inode_write(fs, ino, &ib), 0);
	assert_int_equal(e4_close(fs), 0);
	/* -n: exactly the codes */
	check(img, ANSWER_NO, &res, NULL);
	while (n < 4 && k->codes[n])
		n++;
	if (mapstub_ncodes != n || memcmp(mapstub_codes, k->codes, n * sizeof(uint32_t))) {
		for (unsigned i = 0; i < mapstub_ncodes; i++)
			print_message("%s: said 0x%06x\n", k->name, (unsigned)mapstub_codes[i]);
		fail_msg("%s: %u codes said, %u expected", k->name, mapstub_ncodes, n);
	}
	/* -y, then nothing left */
	check(img, ANSWER_YES, &res, &built);
	/* the same problems: a repair's consequences are not asked again */
	if (mapstub_ncodes != n || memcmp(mapstub_codes, k->codes, n * sizeof(uint32_t))) {
		for (unsigned i = 0; i < mapstub_ncodes; i++)
			print_message("%s: -y said 0x%06x\n", k->name, (unsigned)mapstub_codes[i]);
		fail_msg("%s: -y: %u codes said, %u expected", k->name, mapstub_ncodes, n);
	}
	assert_int_equal(res.clear_inode, 0);
	check(img, ANSWER_NO, &res, NULL);
	if (mapstub_ncodes)
		fail_msg("%s: after -y, -n says 0x%06x", k->name, (unsigned)mapstub_codes[0]);
	assert_int_equal(e4_open(img, 0, 0, 0, &fs), 0);
	assert_int_equal(uf_open(fs, "/f0", &ino, &ib), 0);
	assert_int_equal(map_blocks(fs, ino, &ib.inode, &walked), 0);
	assert_int_equal(e4_close(fs), 0);
	assert_int_equal(res.blocks, walked);
	if (oracle_fsck(img))
		fail_msg("%s: after -y the reference e2fsck -fn is not clean", k->name);
	free(built.b);
	unlink(img);
}

/* ---- damage ------------------------------------------------------------------------ */
/* The tree block root entry r points to; through index entry j below it
 * when deep. */
static e4_blk_t child_of(e4_fs *fs, const union e4_inode_buf *ib, unsigned r, int deep,
			 unsigned j)
{
	struct e4_extent_raw e;
	uint8_t *buf = malloc(e4_geom(fs)->block_size);

	assert_non_null(buf);
	e4_extent_node_entry(ib->inode.i_block, r, &e);
	if (deep) {
		assert_int_equal(e4_io_read_blk(e4_fs_io(fs), e.pblk, 1, buf), 0);
		e4_extent_node_entry(buf, j, &e);
	}
	free(buf);
	return e.pblk;
}

/* Change entry i of tree block blk by fn, written with a right checksum
 * (raw: the checksum left as it was). */
static void edit_entry(e4_fs *fs, e4_ino_t ino, const union e4_inode_buf *ib, e4_blk_t blk,
		       unsigned i, void (*fn)(struct e4_extent_raw *e, e4_fs *fs))
{
	uint8_t *buf = malloc(e4_geom(fs)->block_size);
	struct e4_extent_raw e;

	assert_non_null(buf);
	assert_int_equal(e4_io_read_blk(e4_fs_io(fs), blk, 1, buf), 0);
	e4_extent_node_entry(buf, i, &e);
	fn(&e, fs);
	e4_extent_node_set_entry(buf, i, &e);
	assert_int_equal(e4_extent_node_write(fs, ino, e4_le32(ib->inode.i_generation), blk, buf),
			 0);
	free(buf);
}

/* A few raw bytes into block blk at off (no checksum update). */
static void poke(e4_fs *fs, e4_blk_t blk, unsigned off, const void *bytes, size_t len)
{
	uint8_t *buf = malloc(e4_geom(fs)->block_size);

	assert_non_null(buf);
	assert_int_equal(e4_io_read_blk(e4_fs_io(fs), blk, 1, buf), 0);
	memcpy(buf + off, bytes, len);
	assert_int_equal(e4_io_write_blk(e4_fs_io(fs), blk, 1, buf), 0);
	free(buf);
}

static e4_blk_t group0_item(e4_fs *fs, int which)
{
	struct e4_group g;

	assert_int_equal(e4_group_get(fs, 0, &g), 0);
	return which == 0 ? g.block_bitmap : which == 1 ? g.inode_bitmap : g.inode_table;
}

static void far_pblk(struct e4_extent_raw *e, e4_fs *fs) { e->pblk = e4_geom(fs)->blocks_count + 5; }
/* length 0 and block 0: nothing to recover, so -y drops it (a zero
 * length over blocks inside the filesystem is left by -y: its data can be
 * recovered; tests/t/fsck_map_safe.sh) */
static void zero_len(struct e4_extent_raw *e, e4_fs *fs) { (void)fs; e->len = 0; e->pblk = 0; }
static void into_bitmap(struct e4_extent_raw *e, e4_fs *fs) { e->pblk = group0_item(fs, 0); }
static void back_4(struct e4_extent_raw *e, e4_fs *fs) { (void)fs; e->lblk -= 4; }
static void key_up(struct e4_extent_raw *e, e4_fs *fs) { (void)fs; e->lblk += 3; }

static void d_ext1_range(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib)
{
	edit_entry(fs, ino, ib, child_of(fs, ib, 0, 0, 0), 7, far_pblk);
}

static void d_ext2_first(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib)
{
	/* the first extent of a leaf (the second under the first index
	 * node): dropping it moves the leaf's key, unasked */
	edit_entry(fs, ino, ib, child_of(fs, ib, 0, 1, 1), 0, far_pblk);
}

static void d_ext1_zero(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib)
{
	edit_entry(fs, ino, ib, child_of(fs, ib, 0, 0, 0), 9, zero_len);
}

static void d_ext1_meta(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib)
{
	edit_entry(fs, ino, ib, child_of(fs, ib, 0, 0, 0), 3, into_bitmap);
}

static void d_ext1_csum(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib)
{
	static const uint8_t x = 0x5a;

	(void)ino;
	/* a byte of an unused slot of the second leaf (16 of 84 used):
	 * covered by the checksum, read by no one */
	poke(fs, child_of(fs, ib, 1, 0, 0), 12 + 12 * 80 + 1, &x, 1);
}

static void d_ext1_node_meta(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib)
{
	struct e4_extent_raw e;

	(void)ino;
	e4_extent_node_entry(ib->inode.i_block, 1, &e);
	e.pblk = group0_item(fs, 2) + 1;
	e4_extent_node_set_entry(ib->inode.i_block, 1, &e);
}

static void d_ext2_key(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib)
{
	/* the middle index node's key for its second leaf, 3 too high */
	edit_entry(fs, ino, ib, child_of(fs, ib, 0, 0, 0), 1, key_up);
}

static void d_ext2_magic(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib)
{
	static const uint8_t zero[2];

	(void)ino;
	poke(fs, child_of(fs, ib, 0, 1, 2), 0, zero, 2);
}

static void d_ext2_depth(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib)
{
	static const uint8_t one[2] = { 1, 0 };

	(void)ino;
	/* a leaf saying depth 1: its entries are extents */
	poke(fs, child_of(fs, ib, 0, 1, 1), 6, one, 2);
}

static void d_ext3_order(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib)
{
	uint8_t *buf = malloc(e4_geom(fs)->block_size);
	struct e4_extent_raw e;
	e4_blk_t mid;

	assert_non_null(buf);
	/* root entry 0 -> level-1 index -> its entry 1 -> level-2 index ->
	 * its entry 0 -> leaf; that leaf's entry 10 moved 4 blocks back:
	 * over entry 8 (extents at even blocks) */
	mid = child_of(fs, ib, 0, 1, 1);
	assert_int_equal(e4_io_read_blk(e4_fs_io(fs), mid, 1, buf), 0);
	e4_extent_node_entry(buf, 0, &e);
	free(buf);
	edit_entry(fs, ino, ib, e.pblk, 10, back_4);
}

static void d_root_entries(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib)
{
	struct e4_extent_node_head h;

	(void)fs;
	(void)ino;
	e4_extent_node_head(ib->inode.i_block, &h);
	e4_extent_node_set_head(ib->inode.i_block, 9, h.max, h.depth);
}

static void d_root_blockmap(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib)
{
	uint8_t *buf = malloc(e4_geom(fs)->block_size);
	struct e4_extent_raw e;

	(void)ino;
	assert_non_null(buf);
	/* the first leaf's first 5 data blocks as direct pointers */
	assert_int_equal(e4_io_read_blk(e4_fs_io(fs), child_of(fs, ib, 0, 0, 0), 1, buf), 0);
	memset(ib->inode.i_block, 0, sizeof(ib->inode.i_block));
	for (unsigned i = 0; i < 5; i++) {
		e4_extent_node_entry(buf, i, &e);
		ib->inode.i_block[2 * i] = e4_cpu_to_le32((uint32_t)e.pblk);
	}
	free(buf);
}

static void d_ind_direct(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib)
{
	(void)ino;
	ib->inode.i_block[5] = e4_cpu_to_le32((uint32_t)e4_geom(fs)->blocks_count + 100);
}

static void d_ind_entry_meta(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib)
{
	uint32_t it = e4_cpu_to_le32((uint32_t)group0_item(fs, 2));

	(void)ino;
	poke(fs, e4_le32(ib->inode.i_block[EXT4_NDIR_BLOCKS]), 4 * 17, &it, 4);
}

static void d_ind_pointer(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib)
{
	(void)ino;
	ib->inode.i_block[EXT4_NDIR_BLOCKS] =
		e4_cpu_to_le32((uint32_t)e4_geom(fs)->blocks_count + 7);
}

static void d_dind_garbage(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib)
{
	char text[1024];

	(void)ino;
	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = "Not a double indirect block. "[i % 29];
	poke(fs, e4_le32(ib->inode.i_block[EXT4_NDIR_BLOCKS + 1]), 0, text, sizeof(text));
}

static const struct mcase cases[] = {
	{ "ext1_range", K_EXT1, d_ext1_range, { PR_1_MAP_EXTENT_RANGE } },
	{ "ext1_zero", K_EXT1, d_ext1_zero, { PR_1_MAP_EXTENT_ZERO } },
	{ "ext1_meta", K_EXT1, d_ext1_meta, { PR_1_MAP_EXTENT_IN_META } },
	{ "ext1_csum", K_EXT1, d_ext1_csum, { PR_1_MAP_NODE_CSUM } },
	{ "ext1_node_meta", K_EXT1, d_ext1_node_meta, { PR_1_MAP_NODE_IN_META } },
	{ "ext2_first", K_EXT2, d_ext2_first, { PR_1_MAP_EXTENT_RANGE } },
	{ "ext2_key", K_EXT2, d_ext2_key, { PR_1_MAP_INDEX_KEY } },
	{ "ext2_magic", K_EXT2, d_ext2_magic, { PR_1_MAP_NODE_HEADER } },
	{ "ext2_depth", K_EXT2, d_ext2_depth, { PR_1_MAP_NODE_DEPTH } },
	{ "ext3_order", K_EXT3, d_ext3_order, { PR_1_MAP_EXTENT_ORDER } },
	/* the root of 2 entries says 9: 4 fit, the 2 unused slots are zeros
	 * (child block 0): one row names them and the count becomes 2 (was
	 * ROOT_ENTRIES, then each slot dropped as a bad node block) */
	{ "root_entries", K_EXT1, d_root_entries, { PR_1_MAP_ROOT_STALE } },
	/* not cleared: EXTENTS_FL goes, the block map stays */
	{ "root_blockmap", K_EXT1, d_root_blockmap,
	  { PR_1_MAP_ROOT_BAD, PR_1_MAP_ROOT_AS_BLOCKMAP } },
	{ "ind_direct", K_IND, d_ind_direct, { PR_1_MAP_BLOCK_BAD } },
	{ "ind_entry_meta", K_IND, d_ind_entry_meta, { PR_1_MAP_BLOCK_IN_META } },
	{ "ind_pointer", K_IND, d_ind_pointer, { PR_1_MAP_IND_BAD } },
	{ "dind_garbage", K_IND, d_dind_garbage, { PR_1_MAP_IND_GARBAGE } },
};

static void test_case(void **state)
{
	run_case(*state);
}

/* An undamaged map of each shape: nothing said, the counts right. */
static void test_clean(void **state)
{
	static const enum kind kinds[] = { K_EXT1, K_EXT2, K_EXT3, K_IND };
	static const uint64_t want_blocks[] = { 100 + 2, 400 + 5 + 1, 28225 + 337 + 5 + 1,
						600 + 1 + 1 + 2 };
	static const uint64_t want_end[] = { 199, 799, 56449, 600 };

	(void)state;
	if (!unit_fsck_imgs.ok)
		skip();
	for (unsigned i = 0; i < 4; i++) {
		char img[160];
		struct check_map_result res;
		union e4_inode_buf ib;
		e4_ino_t ino;
		e4_fs *fs;

		snprintf(img, sizeof(img), "%s/clean", unit_fsck_imgs.dir);
		fs = built_open(img, kinds[i], &ino, &ib);
		assert_int_equal(e4_close(fs), 0);
		check(img, ANSWER_NO, &res, NULL);
		assert_int_equal(mapstub_ncodes, 0);
		assert_int_equal(res.blocks, want_blocks[i]);
		assert_int_equal(res.end_lblk, want_end[i]);
		assert_int_equal(res.end_init_lblk, want_end[i]);
		assert_int_equal(res.inode_changed, 0);
		unlink(img);
	}
}

/* A tree or indirect block that cannot be read: said (exit 12: 8 for the
 * read error, 4 for the map left unchecked, as e2fsck -n), kept; -y
 * drops nothing and writes nothing (a read error is no verdict on the
 * data). */
static void test_read_error(void **state)
{
	(void)state;
	if (!unit_fsck_imgs.ok)
		skip();
	for (unsigned i = 0; i < 2; i++) {
		char img[160];
		struct check_map_result res;
		union e4_inode_buf ib;
		uint64_t before, after;
		e4_ino_t ino;
		e4_fs *fs;

		snprintf(img, sizeof(img), "%s/readerr", unit_fsck_imgs.dir);
		fs = built_open(img, i ? K_IND : K_EXT1, &ino, &ib);
		fail_blk = i ? e4_le32(ib.inode.i_block[EXT4_NDIR_BLOCKS])
			     : child_of(fs, &ib, 1, 0, 0);
		assert_int_equal(map_blocks(fs, ino, &ib.inode, &before), 0);
		assert_int_equal(e4_close(fs), 0);
		check(img, ANSWER_YES, &res, NULL);
		fail_blk = 0;
		assert_int_equal(mapstub_ncodes, 1);
		assert_int_equal(mapstub_codes[0], i ? PR_1_MAP_IND_READ : PR_1_MAP_NODE_READ);
		assert_int_equal(last_exit, 12);
		assert_int_equal(res.inode_changed, 0);
		assert_int_equal(e4_open(img, 0, 0, 0, &fs), 0);
		assert_int_equal(uf_open(fs, "/f0", &ino, &ib), 0);
		assert_int_equal(map_blocks(fs, ino, &ib.inode, &after), 0);
		assert_int_equal(e4_close(fs), 0);
		assert_int_equal(after, before);
		check(img, ANSWER_NO, &res, NULL);
		assert_int_equal(mapstub_ncodes, 0);
		unlink(img);
	}
}

/* -p: a failing checksum is evidence of damage (not a derived field to
 * rewrite) and dropping an extent is not preen's to do: either way the run
 * stops (UNEXPECTED INCONSISTENCY) and nothing is written. */
static void test_preen(void **state)
{
	static const struct { void (*damage)(e4_fs *, e4_ino_t, union e4_inode_buf *); int stops;
			      uint32_t code; } pc[] = {
		{ d_ext1_csum, 1, PR_1_MAP_NODE_CSUM },
		{ d_ext1_range, 1, PR_1_MAP_EXTENT_RANGE },
	};

	(void)state;
	if (!unit_fsck_imgs.ok)
		skip();
	for (unsigned i = 0; i < 2; i++) {
		char img[160];
		struct check_map_result res;
		union e4_inode_buf ib;
		e4_ino_t ino;
		e4_fs *fs;

		snprintf(img, sizeof(img), "%s/preen", unit_fsck_imgs.dir);
		fs = built_open(img, K_EXT1, &ino, &ib);
		pc[i].damage(fs, ino, &ib);
		assert_int_equal(e4_inode_write(fs, ino, &ib), 0);
		assert_int_equal(e4_close(fs), 0);
		assert_int_equal(check(img, ANSWER_PREEN, &res, NULL), pc[i].stops);
		assert_int_equal(mapstub_ncodes, 1);
		assert_int_equal(mapstub_codes[0], pc[i].code);
		/* again: fixed (nothing said), or stopped again (nothing written) */
		assert_int_equal(check(img, ANSWER_PREEN, &res, NULL), pc[i].stops);
		assert_int_equal(mapstub_ncodes, (unsigned)pc[i].stops);
		unlink(img);
	}
}

static int setup(void **state)
{
	char opts[200];

	(void)state;
	e4_init_errors();
	if (unit_images_init(&unit_fsck_imgs, "check_map") || uf_src_make(src, "cm", 1))
		return -1;
	snprintf(opts, sizeof(opts), "-t ext4 -b 1024 -N 64 -O ^has_journal,metadata_csum -d %s",
		 src);
	ext4_base = unit_image_add(&unit_fsck_imgs, "ext4", opts, "64M");
	snprintf(opts, sizeof(opts), "-t ext2 -b 1024 -N 64 -d %s", src);
	ext2_base = unit_image_add(&unit_fsck_imgs, "ext2", opts, "8M");
	return 0;
}

static int teardown(void **state)
{
	uf_src_remove(src, 1);
	return unit_fsck_teardown(state);
}

int main(void)
{
	struct CMUnitTest tests[3 + sizeof(cases) / sizeof(cases[0])];
	size_t n = 0;

	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_clean);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_preen);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_read_error);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tests[n] = (struct CMUnitTest)cmocka_unit_test_prestate(test_case, (void *)&cases[i]);
		tests[n++].name = cases[i].name;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
