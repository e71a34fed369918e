/*
 * Unit tests for changing extent trees (extent.h: the cursor, map/punch,
 * the bulk builder) and the i_blocks setter.  A fresh inode of a small
 * mke2fs image (1 KiB blocks, metadata_csum, no journal) is changed by
 * fixed-seed random sequences; after every step the tree is parsed and
 * checked against a logical->physical array (tests/helpers/extent_model.c:
 * order, overlaps, index keys, eh_max and eh_entries, depths, checksums,
 * i_blocks, bitmaps, free count).  Narrow nodes (eh_max 4, a test knob)
 * reach 3 to 5 levels in a few thousand steps; full-size nodes reach 2.
 * The suite ends by writing an image (random operations on a linked
 * file, compacted): the reference e2fsck -fn is clean and a read-only
 * kernel mount reads the file as the model says; tests/t/lib_extent.sh
 * judges more images the same way (same model, tests/helpers/extent_drv.c).
 * Needs mke2fs (REF_MKE2FS or PATH); skipped without it.
 * Catches (each planted once and seen failing): index keys not updated
 * after a first entry changes; a node written without its tail checksum;
 * i_blocks not lowered on delete; emptied tree blocks not freed; merging
 * off; the root not taking a small child back; a bulk index key off by
 * one; the unwritten flag lost on a split tail; HUGE_FILE_FL kept when
 * i_blocks fits 48 bits again.
 */
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
#include "unit_files.h"
#include "../helpers/extent_model.h"

#define INO	12

static struct unit_images imgs;
static const char *img1k, *img4k, *imgbig, *imgfile;
static char src[64];

static int setup(void **state)
{
	(void)state;
	e4_init_errors();
	char opts[160];

	if (unit_images_init(&imgs, "extent_write") || uf_src_make(src, "xw", 1))
		return -1;
	/* a linked file (f0) for the image e2fsck and the kernel judge */
	snprintf(opts, sizeof(opts), "-t ext4 -b 1024 -N 64 -O ^has_journal,metadata_csum -d %s",
		 src);
	imgfile = unit_image_add(&imgs, "file", opts, "64M");
	img1k = unit_image_add(&imgs, "1k", "-t ext4 -b 1024 -N 64 -O ^has_journal,metadata_csum",
			       "64M");
	img4k = unit_image_add(&imgs, "4k", "-t ext4 -b 4096 -N 64 -O ^has_journal,^metadata_csum",
			       "64M");
	/* no backup superblocks, metadata in group 0: 70000 free blocks in
	 * one run */
	imgbig = unit_image_add(&imgs, "big", "-t ext4 -b 4096 -N 64 -O ^has_journal,sparse_super2 "
				"-E num_backup_sb=0", "1G");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	uf_src_remove(src, 1);
	return unit_images_remove(&imgs);
}

/* Open img read-write with inode INO made a fresh empty extent-mapped file
 * (generation nonzero, so checksums depend on it). */
static e4_fs *fresh(const char *img)
{
	union e4_inode_buf ib;
	e4_fs *fs;

	if (!imgs.ok)
		skip();
	assert_int_equal(e4_open(img, E4_OPEN_RW, 0, 0, &fs), 0);
	memset(&ib, 0, sizeof(ib));
	ib.inode.i_mode = e4_cpu_to_le16(EXT4_S_IFREG | 0644);
	ib.inode.i_links_count = e4_cpu_to_le16(1);
	ib.inode.i_generation = e4_cpu_to_le32(0x5eed1234);
	if (e4_geom(fs)->inode_size > 128)
		ib.inode.i_extra_isize = e4_cpu_to_le16(32);
	e4_extent_root_init(&ib.inode);
	assert_int_equal(e4_inode_write(fs, INO, &ib), 0);
	return fs;
}

/* Close without writing the bitmaps back: every test starts from the
 * image mke2fs made (the inode table block written above is dropped
 * too). */
static void drop(e4_fs *fs)
{
	e4_io_discard(e4_fs_io(fs));
	e4_close(fs);
}

static void must_validate(struct xm *m, const char *what, unsigned long step)
{
	if (xm_validate(m))
		fail_msg("%s, step %lu: %s", what, step, m->err);
}

/* ---- the cursor itself ------------------------------------------------------ */
static void cursor_basics(void **state)
{
	struct e4_map_extent e, a = { .lblk = 10, .pblk = 5000, .len = 5 };
	struct xm m;
	e4_fs *fs;

	(void)state;
	fs = fresh(img1k);
	assert_int_equal(xm_init(&m, fs, INO, 100, 0, 1, 0), 0);
	assert_int_equal(e4_extent_goto(m.h, 0), E4_ERR_EXTENT_NOT_FOUND);
	assert_int_equal(e4_extent_get(m.h, &e), E4_ERR_EXTENT_NOT_FOUND);
	assert_int_equal(e4_extent_next(m.h), E4_ERR_EXTENT_NOT_FOUND);
	assert_int_equal(e4_block_mark(fs, 5000, 40, 1, NULL), 0);
	assert_int_equal(e4_extent_insert(m.h, &a), 0);
	assert_int_equal(e4_extent_get(m.h, &e), 0);
	assert_true(e.lblk == 10 && e.pblk == 5000 && e.len == 5 && e.flags == 0);
	/* overlaps and bad extents are refused */
	a.lblk = 14;
	assert_int_equal(e4_extent_insert(m.h, &a), E4_ERR_EXTENT_OVERLAP);
	a.lblk = 6;
	assert_int_equal(e4_extent_insert(m.h, &a), E4_ERR_EXTENT_OVERLAP);
	a.lblk = 0, a.len = 0;
	assert_int_equal(e4_extent_insert(m.h, &a), E4_ERR_INVALID_ARGUMENT);
	a.len = 32768, a.flags = E4_MAP_UNWRITTEN;
	assert_int_equal(e4_extent_insert(m.h, &a), E4_ERR_INVALID_ARGUMENT);
	a.flags = 0, a.len = 1, a.pblk = e4_geom(fs)->blocks_count;
	assert_int_equal(e4_extent_insert(m.h, &a), E4_ERR_INVALID_ARGUMENT);
	a.pblk = 5005, a.lblk = (1ULL << 32) - 1, a.len = 2;
	assert_int_equal(e4_extent_insert(m.h, &a), E4_ERR_INVALID_ARGUMENT);
	/* before it, after it (unwritten) */
	a.lblk = 0, a.pblk = 5010, a.len = 3;
	assert_int_equal(e4_extent_insert(m.h, &a), 0);
	a.lblk = 20, a.pblk = 5020, a.len = 4, a.flags = E4_MAP_UNWRITTEN;
	assert_int_equal(e4_extent_insert(m.h, &a), 0);
	for (unsigned i = 0; i < 5; i++)
		m.map[10 + i] = 5000 + i;
	for (unsigned i = 0; i < 3; i++)
		m.map[i] = 5010 + i;
	for (unsigned i = 0; i < 4; i++)
		m.map[20 + i] = 5020 + i, m.unw[20 + i] = 1;
	m.mapped = 12;
	m.free0 -= 40 - 12;	/* the blocks marked above and not mapped */
	must_validate(&m, "three inserts", 0);
	/* walk both ways */
	assert_int_equal(e4_extent_goto(m.h, 12), 0);
	assert_int_equal(e4_extent_goto(m.h, 15), E4_ERR_EXTENT_NOT_FOUND);
	assert_int_equal(e4_extent_get(m.h, &e), 0);
	assert_true(e.lblk == 10);
	assert_int_equal(e4_extent_next(m.h), 0);
	assert_int_equal(e4_extent_get(m.h, &e), 0);
	assert_true(e.lblk == 20 && e.flags == E4_MAP_UNWRITTEN && e.len == 4);
	assert_int_equal(e4_extent_next(m.h), E4_ERR_EXTENT_NO_NEXT);
	assert_int_equal(e4_extent_prev(m.h), 0);
	assert_int_equal(e4_extent_prev(m.h), 0);
	assert_int_equal(e4_extent_get(m.h, &e), 0);
	assert_true(e.lblk == 0 && e.pblk == 5010);
	assert_int_equal(e4_extent_prev(m.h), E4_ERR_EXTENT_NO_PREV);
	/* replace: may not reach into a neighbour */
	e.len = 11;
	assert_int_equal(e4_extent_replace(m.h, &e), E4_ERR_EXTENT_OVERLAP);
	e.len = 2;
	assert_int_equal(e4_extent_replace(m.h, &e), 0);
	m.map[2] = 0, m.mapped--, m.free0--;
	must_validate(&m, "replace", 0);
	/* delete everything: an empty root of depth 0 */
	for (;;) {
		errcode_t err = e4_extent_goto(m.h, 0);

		assert_true(err == 0 || err == E4_ERR_EXTENT_NOT_FOUND);
		if (e4_extent_get(m.h, &e))
			break;
		assert_int_equal(e4_extent_delete(m.h), 0);
	}
	memset(m.map, 0, 100 * sizeof(*m.map));
	m.free0 -= m.mapped;
	m.mapped = 0;
	must_validate(&m, "all deleted", 0);
	assert_int_equal(e4_extent_depth(m.h), 0);
	xm_free(&m);
	drop(fs);
}

/* Random inserts, deletes and replaces of single extents (no merging);
 * every step validated; traversals with next/prev against the model. */
static void random_cursor_ops(void **state)
{
	const unsigned long steps = 4000;
	struct xm m;
	e4_fs *fs;
	unsigned long s;

	(void)state;
	fs = fresh(img1k);
	assert_int_equal(xm_init(&m, fs, INO, 60000, 8, 42, 0), 0);
	m.strict_merge = 0;
	for (s = 0; s < steps; s++) {
		uint64_t r = xm_rand(&m) % 100, l = xm_rand(&m) % m.nlblk;
		struct e4_map_extent e;

		if (r < 60) {
			/* insert into the hole at l, at most 20 blocks */
			uint64_t n = 0;
			e4_blk_t p;

			while (n < 1 + xm_rand(&m) % 20 && l + n < m.nlblk && !m.map[l + n])
				n++;
			if (!n || e4_block_find_free(fs, xm_rand(&m) % e4_geom(fs)->blocks_count, n, &p))
				continue;
			assert_int_equal(e4_block_mark(fs, p, n, 1, NULL), 0);
			e = (struct e4_map_extent){ .lblk = l, .pblk = p, .len = (uint32_t)n,
						    .flags = (xm_rand(&m) & 1) ? E4_MAP_UNWRITTEN : 0 };
			assert_int_equal(e4_extent_insert(m.h, &e), 0);
			for (uint64_t i = 0; i < n; i++) {
				m.map[l + i] = p + i;
				m.unw[l + i] = e.flags ? 1 : 0;
			}
			m.mapped += n;
		} else if (r < 90) {
			/* delete the extent at or before l */
			errcode_t err = e4_extent_goto(m.h, l);

			if (err && err != E4_ERR_EXTENT_NOT_FOUND)
				fail_msg("goto: %s", error_message(err));
			if (e4_extent_get(m.h, &e))
				continue;
			assert_int_equal(e4_extent_delete(m.h), 0);
			assert_int_equal(e4_block_mark(fs, e.pblk, e.len, 0, NULL), 0);
			for (uint64_t i = 0; i < e.len; i++)
				m.map[e.lblk + i] = 0;
			m.mapped -= e.len;
		} else {
			/* shorten an extent from the front (index keys move) */
			errcode_t err = e4_extent_goto(m.h, l);

			if (err && err != E4_ERR_EXTENT_NOT_FOUND)
				fail_msg("goto: %s", error_message(err));
			if (e4_extent_get(m.h, &e) || e.len < 2)
				continue;
			assert_int_equal(e4_block_mark(fs, e.pblk, 1, 0, NULL), 0);
			m.map[e.lblk] = 0;
			m.mapped--;
			e.lblk++, e.pblk++, e.len--;
			assert_int_equal(e4_extent_replace(m.h, &e), 0);
		}
		must_validate(&m, "random cursor ops", s);
		if (s % 500 == 499) {
			/* next from the first, prev from the last: every extent */
			uint64_t fwd = 0, back = 0;

			if (e4_extent_goto(m.h, 0) == E4_ERR_EXTENT_NOT_FOUND &&
			    e4_extent_get(m.h, &e))
				continue;
			do {
				assert_int_equal(e4_extent_get(m.h, &e), 0);
				fwd += e.len;
			} while (e4_extent_next(m.h) == 0);
			do {
				assert_int_equal(e4_extent_get(m.h, &e), 0);
				back += e.len;
			} while (e4_extent_prev(m.h) == 0);
			assert_true(fwd == m.mapped && back == m.mapped);
		}
	}
	print_message("random cursor ops: %lu steps, %llu mapped, depth up to %u, %llu tree blocks\n",
		      steps, (unsigned long long)m.mapped, m.max_depth,
		      (unsigned long long)m.nodes);
	assert_true(m.max_depth >= 3);
	xm_free(&m);
	drop(fs);
}

/* Map-level random sequences (write = punch + allocate + map, punch,
 * unwritten <-> written conversion, truncate), every step validated, no
 * two neighbouring extents left mergeable. */
static void random_map(const char *img, unsigned node_max, uint64_t nlblk, uint64_t seed,
		       unsigned long steps, unsigned min_depth)
{
	struct xm m;
	e4_fs *fs;
	unsigned long s;

	fs = fresh(img);
	assert_int_equal(xm_init(&m, fs, INO, nlblk, node_max, seed, 0), 0);
	for (s = 0; s < steps; s++) {
		errcode_t err = xm_random_op(&m);

		if (err)
			fail_msg("step %lu: %s (%s)", s, error_message(err), m.err);
		must_validate(&m, "random map ops", s);
	}
	print_message("random map ops (eh_max %u): %lu steps, %llu mapped, depth up to %u, "
		      "%llu tree blocks\n", m.node_max, steps, (unsigned long long)m.mapped,
		      m.max_depth, (unsigned long long)m.nodes);
	assert_true(m.max_depth >= min_depth);
	/* compaction: the fewest full nodes, the same mapping */
	{
		uint64_t before = m.nodes;
		int rebuilt = 0;

		assert_int_equal(e4_extent_compact(m.h, &rebuilt), 0);
		must_validate(&m, "compacted", s);
		assert_true(m.nodes <= before);
		assert_int_equal(m.nodes, e4_extent_tree_blocks(fs, m.extents));
		assert_int_equal(e4_extent_compact(m.h, &rebuilt), 0);
		assert_int_equal(rebuilt, 0);	/* nothing left to gain */
	}
	xm_free(&m);
	drop(fs);
}

static void random_map_narrow(void **state)
{
	(void)state;
	random_map(img1k, 4, 20000, 7, 3000, 4);
}

static void random_map_full_nodes(void **state)
{
	(void)state;
	random_map(img1k, 0, 30000, 11, 3000, 2);
}

static void random_map_4k(void **state)
{
	(void)state;
	random_map(img4k, 0, 12000, 13, 1500, 1);
}

/* ---- lengths, merges, depth limit ------------------------------------------ */
struct seen {
	struct e4_map_extent e[16];
	unsigned n;
};

static int collect(e4_fs *fs, const struct e4_map_extent *e, void *priv)
{
	struct seen *s = priv;

	(void)fs;
	if (!(e->flags & E4_MAP_META) && s->n < 16)
		s->e[s->n++] = *e;
	return 0;
}

static void limits_and_merges(void **state)
{
	struct seen sn;
	struct xm m;
	e4_fs *fs;
	e4_blk_t p;

	(void)state;
	fs = fresh(imgbig);
	assert_int_equal(xm_init(&m, fs, INO, 80000, 0, 3, 0), 0);
	/* 70000 contiguous blocks: 32768 + 32768 + 4464 written, */
	assert_int_equal(xm_write(&m, 0, 70000, 1, 0), 0);
	must_validate(&m, "70000 written", 0);
	memset(&sn, 0, sizeof(sn));
	assert_int_equal(e4_map_iterate(fs, INO, &m.ib.inode, 0, collect, &sn), 0);
	assert_int_equal(sn.n, 3);
	assert_true(sn.e[0].len == 32768 && sn.e[1].len == 32768 && sn.e[2].len == 4464);
	p = sn.e[0].pblk;
	/* 32767 + 32767 + 4466 unwritten (the same blocks) */
	assert_int_equal(e4_extent_map_set(m.h, 0, 70000, p, E4_MAP_UNWRITTEN), 0);
	memset(m.unw, 1, 70000);
	must_validate(&m, "70000 unwritten", 0);
	memset(&sn, 0, sizeof(sn));
	assert_int_equal(e4_map_iterate(fs, INO, &m.ib.inode, 0, collect, &sn), 0);
	assert_int_equal(sn.n, 3);
	assert_true(sn.e[0].len == 32767 && sn.e[1].len == 32767 && sn.e[2].len == 4466);
	/* written in the middle of an unwritten extent: three pieces */
	assert_int_equal(e4_extent_map_set(m.h, 100, 10, p + 100, 0), 0);
	memset(m.unw + 100, 0, 10);
	must_validate(&m, "written in the middle", 0);
	/* and back: the three become one again */
	assert_int_equal(e4_extent_map_set(m.h, 100, 10, p + 100, E4_MAP_UNWRITTEN), 0);
	memset(m.unw + 100, 1, 10);
	must_validate(&m, "merged again", 0);
	memset(&sn, 0, sizeof(sn));
	assert_int_equal(e4_map_iterate(fs, INO, &m.ib.inode, 0, collect, &sn), 0);
	assert_int_equal(sn.n, 3);
	/* punch all: nothing mapped, nothing leaked */
	assert_int_equal(xm_punch(&m, 0, UINT64_MAX), 0);
	must_validate(&m, "punched", 0);
	assert_int_equal(e4_extent_depth(m.h), 0);
	xm_free(&m);
	drop(fs);
}

/* Map lblk to pblk (a block the test marked in use beforehand). */
static void map_one(struct xm *m, uint64_t lblk, e4_blk_t pblk)
{
	assert_int_equal(e4_extent_map_set(m->h, lblk, 1, pblk, 0), 0);
	m->map[lblk] = pblk;
	m->mapped++;
	m->free0++;	/* one of the blocks marked up front is now mapped */
}

/* Extents that continue each other across a leaf boundary become one. */
static void merge_across_leaves(void **state)
{
	struct xm m;
	e4_fs *fs;
	e4_blk_t base;
	uint64_t l;

	(void)state;
	fs = fresh(img1k);
	assert_int_equal(xm_init(&m, fs, INO, 4000, 4, 5, 0), 0);
	assert_int_equal(e4_block_find_free(fs, 20000, 2000, &base), 0);
	assert_int_equal(e4_block_mark(fs, base, 2000, 1, NULL), 0);
	m.free0 -= 2000;
	/* every other block mapped to every other block of one run: no two
	 * extents continue each other */
	for (l = 0; l < 2000; l += 2)
		map_one(&m, l, base + l);
	must_validate(&m, "every other block", 0);
	assert_true(m.max_depth >= 3);
	/* fill the gaps with the blocks between: all merge into one extent,
	 * the emptied nodes go, and the tree comes back into the inode */
	for (l = 1; l < 2000; l += 2) {
		map_one(&m, l, base + l);
		must_validate(&m, "gap filled", l);
	}
	assert_int_equal(e4_extent_depth(m.h), 0);
	assert_int_equal(m.nodes, 0);
	xm_free(&m);
	drop(fs);
}

/* A sixth level is refused; the tree stays valid. */
static void depth_limit(void **state)
{
	struct xm m;
	e4_fs *fs;
	errcode_t err = 0;
	uint64_t l;

	(void)state;
	fs = fresh(img1k);
	assert_int_equal(xm_init(&m, fs, INO, 40000, 4, 9, 0), 0);
	for (l = 0; l < 40000 && !err; l += 2)
		err = xm_write(&m, l, 1, 1, 0);
	assert_int_equal(err, E4_ERR_EXTENT_TOO_DEEP);
	/* the refused write left its block allocated, unmapped: let the
	 * validator know */
	m.free0 -= 1;
	must_validate(&m, "after the refusal", l);
	assert_int_equal(e4_extent_depth(m.h), 5);
	xm_free(&m);
	drop(fs);
}

/* ---- the bulk builder --------------------------------------------------------- */
static void bulk_case(const char *img, uint64_t n, unsigned want_depth, unsigned want_blocks)
{
	unsigned bs, nb;
	e4_blk_t first, *blks;
	struct e4_map_extent *ext;
	uint8_t *bufs;
	struct xm m;
	e4_fs *fs;

	fs = fresh(img);
	bs = e4_geom(fs)->block_size;
	assert_int_equal(xm_init(&m, fs, INO, 2 * n + 1, 0, 1, 0), 0);
	nb = e4_extent_tree_blocks(fs, n);
	assert_int_equal(nb, want_blocks);
	ext = calloc(n, sizeof(*ext));
	blks = calloc(nb ? nb : 1, sizeof(*blks));
	bufs = calloc(nb ? nb : 1, bs);
	assert_non_null(ext);
	assert_non_null(blks);
	assert_non_null(bufs);
	/* tree blocks, then n one-block extents with holes between them */
	first = 1;
	for (unsigned i = 0; i < nb; i++) {
		assert_int_equal(e4_block_find_free(fs, first, 1, &blks[i]), 0);
		assert_int_equal(e4_block_mark(fs, blks[i], 1, 1, NULL), 0);
		first = blks[i] + 1;
	}
	for (uint64_t i = 0; i < n; i++) {
		assert_int_equal(e4_block_find_free(fs, first, 1, &ext[i].pblk), 0);
		assert_int_equal(e4_block_mark(fs, ext[i].pblk, 1, 1, NULL), 0);
		first = ext[i].pblk + 1;
		ext[i].lblk = 2 * i + 1;
		ext[i].len = 1;
		ext[i].flags = i % 7 == 3 ? E4_MAP_UNWRITTEN : 0;
		m.map[2 * i + 1] = ext[i].pblk;
		m.unw[2 * i + 1] = ext[i].flags ? 1 : 0;
	}
	m.mapped = n;
	m.strict_merge = 0;
	if (nb) {
		/* a wrong block count is refused */
		assert_int_equal(e4_extent_tree_build_n(fs, INO, &m.ib.inode, ext, n, blks, nb - 1,
							bufs), E4_ERR_INVALID_ARGUMENT);
	}
	assert_int_equal(e4_extent_tree_build_n(fs, INO, &m.ib.inode, ext, n, blks, nb, bufs), 0);
	for (unsigned i = 0; i < nb; i++)
		assert_int_equal(e4_io_write_blk(e4_fs_io(fs), blks[i], 1, bufs + (size_t)i * bs), 0);
	assert_int_equal(e4_inode_blocks_set(fs, &m.ib.inode, (n + nb) * (bs / 512)), 0);
	must_validate(&m, "bulk", 0);
	assert_int_equal(m.max_depth, want_depth);
	assert_int_equal(m.nodes, nb);
	/* the cursor takes over a bulk-built tree: full nodes split */
	e4_extent_close(m.h);
	assert_int_equal(e4_extent_open(fs, INO, &m.ib.inode, 0, &m.h), 0);
	for (uint64_t l = 0; l < 2 * n + 1; l += 2 * n / 50 + 2)
		assert_int_equal(xm_write(&m, l, 1, 1, 0), 0);
	must_validate(&m, "bulk, then written", 0);
	free(ext);
	free(blks);
	free(bufs);
	xm_free(&m);
	drop(fs);
}

static void bulk_levels(void **state)
{
	(void)state;
	/* 1 KiB blocks: 84 entries a node */
	bulk_case(img1k, 4, 0, 0);
	bulk_case(img1k, 84, 1, 1);
	bulk_case(img1k, 336, 1, 4);
	bulk_case(img1k, 337, 2, 5 + 1);
	bulk_case(img1k, 28224, 2, 336 + 4);
	bulk_case(img1k, 28225, 3, 337 + 5 + 1);
	/* 4 KiB blocks: 340 */
	bulk_case(img4k, 1361, 2, 5 + 1);
}

/* The old one-leaf builder is a thin wrapper: too many extents for one
 * leaf is still E4_ERR_UNSUPPORTED, bad extents E4_ERR_INVALID_ARGUMENT,
 * and the inode is not touched by a refusal. */
static void bulk_one_leaf_wrapper(void **state)
{
	struct e4_map_extent ext[85];
	union e4_inode_buf ib;
	uint8_t leaf[1024];
	e4_fs *fs;

	(void)state;
	fs = fresh(img1k);
	memset(&ib, 0, sizeof(ib));
	for (unsigned i = 0; i < 85; i++)
		ext[i] = (struct e4_map_extent){ .lblk = 2 * i, .pblk = 9000 + i, .len = 1 };
	assert_int_equal(e4_extent_tree_build(fs, INO, &ib.inode, ext, 85, 8000, leaf),
			 E4_ERR_UNSUPPORTED);
	ext[3].lblk = 0;
	assert_int_equal(e4_extent_tree_build(fs, INO, &ib.inode, ext, 85, 8000, leaf),
			 E4_ERR_INVALID_ARGUMENT);
	assert_int_equal(ib.inode.i_flags, 0);
	ext[3].lblk = 6;
	assert_int_equal(e4_extent_tree_build(fs, INO, &ib.inode, ext, 84, 0, leaf),
			 E4_ERR_INVALID_ARGUMENT);
	assert_int_equal(e4_extent_tree_build(fs, INO, &ib.inode, ext, 84, 8000, leaf), 0);
	assert_int_equal(e4_le16(((struct ext4_extent_header *)ib.inode.i_block)->eh_depth), 1);
	assert_int_equal(e4_le16(((struct ext4_extent_header *)leaf)->eh_entries), 84);
	drop(fs);
}

/* ---- read-only, bigalloc refusals and the i_blocks setter ------------------- */
static void refusals(void **state)
{
	struct e4_map_extent a = { .lblk = 0, .pblk = 5000, .len = 1 };
	union e4_inode_buf ib;
	e4_extent_handle *h;
	e4_fs *fs;

	(void)state;
	if (!imgs.ok)
		skip();
	assert_int_equal(e4_open(img1k, 0, 0, 0, &fs), 0);
	memset(&ib, 0, sizeof(ib));
	assert_int_equal(e4_extent_open(fs, INO, &ib.inode, 0, &h), E4_ERR_EXTENT_HEADER);
	e4_extent_root_init(&ib.inode);
	assert_int_equal(e4_extent_open(fs, INO, &ib.inode, 0, &h), 0);
	assert_int_equal(e4_extent_insert(h, &a), E4_ERR_READ_ONLY);
	assert_int_equal(e4_extent_map_set(h, 0, 1, 5000, 0), E4_ERR_READ_ONLY);
	assert_int_equal(e4_extent_punch(h, 0, 1, NULL), E4_ERR_READ_ONLY);
	e4_extent_close(h);
	e4_close(fs);
}

static void iblocks_setter(void **state)
{
	struct ext4_super_block *sb;
	union e4_inode_buf ib;
	uint32_t ro;
	e4_fs *fs;

	(void)state;
	if (!imgs.ok)
		skip();
	assert_int_equal(e4_open(img1k, 0, 0, 0, &fs), 0);
	sb = e4_super(fs);
	ro = e4_le32(sb->s_feature_ro_compat);
	memset(&ib, 0, sizeof(ib));
	/* huge_file (mke2fs's ext4 default) */
	assert_true(ro & EXT4_FEATURE_RO_COMPAT_HUGE_FILE);
	assert_int_equal(e4_inode_blocks_set(fs, &ib.inode, 0xFFFFFFFFULL), 0);
	assert_true(e4_le32(ib.inode.i_blocks_lo) == 0xFFFFFFFF && ib.inode.l_i_blocks_high == 0);
	assert_int_equal(e4_inode_blocks_set(fs, &ib.inode, 0x123456789AULL), 0);
	assert_true(e4_le32(ib.inode.i_blocks_lo) == 0x3456789A &&
		    e4_le16(ib.inode.l_i_blocks_high) == 0x12);
	assert_true(e4_inode_blocks(fs, &ib.inode) == 0x123456789AULL);
	/* beyond 48 bits: HUGE_FILE_FL and filesystem blocks (1 KiB = 2) */
	assert_int_equal(e4_inode_blocks_set(fs, &ib.inode, 1ULL << 48), 0);
	assert_true(e4_le32(ib.inode.i_flags) & EXT4_HUGE_FILE_FL);
	assert_true(e4_inode_blocks(fs, &ib.inode) == 1ULL << 48);
	assert_true(e4_le16(ib.inode.l_i_blocks_high) == 1 << 15);
	/* and back below: the flag goes */
	assert_int_equal(e4_inode_blocks_set(fs, &ib.inode, 8), 0);
	assert_false(e4_le32(ib.inode.i_flags) & EXT4_HUGE_FILE_FL);
	assert_true(e4_inode_blocks(fs, &ib.inode) == 8);
	assert_int_equal(e4_inode_blocks_set(fs, &ib.inode, 1ULL << 49), E4_ERR_FILE_TOO_BIG);
	assert_true(e4_inode_blocks(fs, &ib.inode) == 8);
	/* without huge_file: 32 bits */
	sb->s_feature_ro_compat = e4_cpu_to_le32(ro & ~EXT4_FEATURE_RO_COMPAT_HUGE_FILE);
	assert_int_equal(e4_inode_blocks_set(fs, &ib.inode, 1ULL << 32), E4_ERR_FILE_TOO_BIG);
	assert_int_equal(e4_inode_blocks_set(fs, &ib.inode, 0xFFFFFFFFULL), 0);
	assert_true(e4_inode_blocks(fs, &ib.inode) == 0xFFFFFFFFULL);
	e4_close(fs);
}

/* The suite's image: random map operations (data blocks holding their
 * pattern) on a linked file, every step validated, the tree compacted as
 * e2fsck's pass 1E would; then written: e2fsck -fn clean, the kernel reads
 * the file as the model says (holes and unwritten extents as zeros). */
static void image_judged(void **state)
{
	union e4_inode_buf ib;
	struct xm m;
	char mnt[64];
	uint8_t *want = NULL;
	size_t wlen = 0;
	FILE *out;
	e4_ino_t ino;
	e4_fs *fs;
	int rebuilt = 0, mounted;

	(void)state;
	if (!imgs.ok)
		skip();
	assert_int_equal(e4_open(imgfile, E4_OPEN_RW, 0, 0, &fs), 0);
	assert_int_equal(uf_open(fs, "/f0", &ino, &ib), 0);
	assert_int_equal(xm_init(&m, fs, ino, 20000, 0, 17, 1), 0);
	for (unsigned long s = 0; s < 2000; s++) {
		errcode_t err = xm_random_op(&m);

		if (err)
			fail_msg("step %lu: %s (%s)", s, error_message(err), m.err);
		must_validate(&m, "judged image", s);
	}
	assert_int_equal(e4_extent_compact(m.h, &rebuilt), 0);
	must_validate(&m, "judged image, compacted", 0);
	print_message("judged image: depth up to %u, %llu extents, %llu tree blocks\n",
		      m.max_depth, (unsigned long long)m.extents, (unsigned long long)m.nodes);
	assert_int_equal(xm_finish(&m), 0);
	out = open_memstream((char **)&want, &wlen);
	assert_non_null(out);
	assert_int_equal(xm_expected(&m, out), 0);
	fclose(out);
	xm_free(&m);
	assert_int_equal(e4_close(fs), 0);
	assert_int_equal(oracle_fsck(imgfile), 0);
	mounted = oracle_mount(imgfile, mnt);
	assert_true(mounted >= 0);
	if (mounted > 0) {
		int rc = uf_kernel_cmp(mnt, "f0", wlen, 0, want, wlen);

		assert_int_equal(oracle_umount(mnt), 0);
		assert_int_equal(rc, 0);
	}
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cursor_basics),
		cmocka_unit_test(random_cursor_ops),
		cmocka_unit_test(random_map_narrow),
		cmocka_unit_test(random_map_full_nodes),
		cmocka_unit_test(random_map_4k),
		cmocka_unit_test(limits_and_merges),
		cmocka_unit_test(merge_across_leaves),
		cmocka_unit_test(depth_limit),
		cmocka_unit_test(bulk_levels),
		cmocka_unit_test(bulk_one_leaf_wrapper),
		cmocka_unit_test(refusals),
		cmocka_unit_test(iblocks_setter),
		cmocka_unit_test(image_judged),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
