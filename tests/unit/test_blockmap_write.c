/*
 * Unit tests for the block-map writer (map_write.h: e4_map_set and
 * e4_map_punch on inodes without EXTENTS_FL; blockmap_write.c).  A file
 * of an ext3 image (1 KiB blocks: 256 numbers per indirect block) gets
 * fixed-seed random sets and punches in four windows of its logical
 * space: the direct blocks into the single and double indirect ranges,
 * the double -> triple indirect boundary, a boundary inside the triple
 * indirect range, and the last blocks a triple indirect map addresses.
 * After every step the map is parsed from the raw blocks here (not by
 * libe4's reader) and compared with the model: every mapped block as the
 * model says and nothing else, no indirect block left empty, every data
 * and indirect block marked in use, i_blocks = (data + indirect) blocks,
 * the free count lowered by exactly that many (nothing leaked, nothing
 * freed twice).  Limits: past the triple indirect range
 * E4_ERR_FILE_TOO_BIG, unwritten E4_ERR_UNSUPPORTED, nothing changed.
 * One interface: the same e4_map_set / e4_map_punch sequence on a
 * block-mapped and an extent-mapped file gives the same e4_bmap answer
 * for every block, accounting right in both.
 * The suite ends by writing the image (each data block holds a pattern
 * of its number): the reference e2fsck -fn is clean, and a read-only
 * kernel mount reads every window as the model says (holes as zeros).
 * Needs mke2fs (REF_MKE2FS or PATH); skipped without it.
 * Catches (each planted once and seen failing): an emptied indirect block
 * not freed (punch_ind's *empty forced 0: "indirect block ... has no
 * entry"); the parent of a new indirect block not written back (lv_new
 * without marking the parent dirty: blocks missing from the raw parse);
 * i_blocks not counting new indirect blocks.
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
#include "unit_oracle.h"
#include "unit_files.h"

static struct unit_images imgs;
static char src[64];
static const char *img3, *img4;

#define NWIN	4
#define WLEN	600

struct bmodel {
	e4_fs *fs;
	e4_ino_t ino;
	union e4_inode_buf ib;
	unsigned bs, apb;
	uint64_t max;			/* blocks the map addresses */
	uint64_t win[NWIN];		/* first logical block of each window */
	e4_blk_t map[NWIN][WLEN];
	uint64_t mapped, free0;
	uint64_t rng;
	char err[200];
	/* the raw parse */
	uint64_t seen, ind;
};

static int setup(void **state)
{
	char opts[160];

	(void)state;
	e4_init_errors();
	if (unit_images_init(&imgs, "blockmap_write") || uf_src_make(src, "bmw", 2))
		return -1;
	snprintf(opts, sizeof(opts), "-t ext3 -b 1024 -N 64 -d %s", src);
	img3 = unit_image_add(&imgs, "ext3", opts, "32M");
	snprintf(opts, sizeof(opts), "-t ext4 -b 1024 -N 64 -O ^has_journal -d %s", src);
	img4 = unit_image_add(&imgs, "ext4", opts, "32M");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	uf_src_remove(src, 2);
	return unit_images_remove(&imgs);
}

static uint64_t rnd(struct bmodel *m)
{
	m->rng ^= m->rng << 13;
	m->rng ^= m->rng >> 7;
	m->rng ^= m->rng << 17;
	return m->rng;
}

/* ---- the raw parse --------------------------------------------------------- */
static int bad(struct bmodel *m, const char *fmt, unsigned long long a, unsigned long long b)
{
	snprintf(m->err, sizeof(m->err), fmt, a, b);
	return 1;
}

/* The model's block for lblk (0: a hole; lblk outside every window: 0). */
static e4_blk_t model_at(struct bmodel *m, uint64_t lblk, int *in_win)
{
	for (int w = 0; w < NWIN; w++)
		if (lblk >= m->win[w] && lblk < m->win[w] + WLEN) {
			*in_win = 1;
			return m->map[w][lblk - m->win[w]];
		}
	*in_win = 0;
	return 0;
}

static int check_data(struct bmodel *m, uint64_t lblk, uint32_t p)
{
	int in_win, in_use = 0;

	if (model_at(m, lblk, &in_win) != p)
		return bad(m, "logical %llu maps %llu, not as the model says", lblk, p);
	if (e4_test_block(m->fs, p, &in_use) || !in_use)
		return bad(m, "data block %llu (logical %llu) not in use", p, lblk);
	m->seen++;
	return 0;
}

static int parse_ind(struct bmodel *m, uint32_t blk, int level, uint64_t base)
{
	uint32_t *b = malloc(m->bs);
	uint64_t span = 1;
	int in_use = 0, any = 0, rc = 0;

	for (int l = 1; l < level; l++)
		span *= m->apb;
	if (!b || e4_io_read_blk(e4_fs_io(m->fs), blk, 1, b)) {
		free(b);
		return bad(m, "indirect block %llu unreadable%llu", blk, 0);
	}
	if (e4_test_block(m->fs, blk, &in_use) || !in_use)
		rc = bad(m, "indirect block %llu (level %llu) not in use", blk, level);
	m->ind++;
	for (unsigned i = 0; !rc && i < m->apb; i++) {
		uint32_t e = e4_le32(b[i]);

		if (!e)
			continue;
		any = 1;
		rc = level == 1 ? check_data(m, base + i, e) : parse_ind(m, e, level - 1, base + i * span);
	}
	if (!rc && !any)
		rc = bad(m, "indirect block %llu (level %llu) has no entry", blk, level);
	free(b);
	return rc;
}

static int validate(struct bmodel *m)
{
	struct ext4_inode *in = &m->ib.inode;
	uint64_t base = EXT4_NDIR_BLOCKS, span = m->apb, freenow;

	m->seen = m->ind = 0;
	for (unsigned i = 0; i < EXT4_NDIR_BLOCKS; i++)
		if (in->i_block[i] && check_data(m, i, e4_le32(in->i_block[i])))
			return 1;
	for (int level = 1; level <= 3; level++) {
		uint32_t b = e4_le32(in->i_block[EXT4_NDIR_BLOCKS + level - 1]);

		if (b && parse_ind(m, b, level, base))
			return 1;
		base += span;
		span *= m->apb;
	}
	if (m->seen != m->mapped)
		return bad(m, "the map holds %llu blocks, the model %llu", m->seen, m->mapped);
	if (e4_inode_blocks(m->fs, in) != (m->seen + m->ind) * (m->bs / 512))
		return bad(m, "i_blocks %llu, expected %llu", e4_inode_blocks(m->fs, in),
			   (m->seen + m->ind) * (m->bs / 512));
	freenow = e4_sb_free_blocks_count(e4_super(m->fs));
	if (freenow + m->seen + m->ind != m->free0)
		return bad(m, "%llu blocks free, expected %llu", freenow,
			   m->free0 - m->seen - m->ind);
	return 0;
}

static void must_validate(struct bmodel *m, const char *what, unsigned long step)
{
	if (validate(m))
		fail_msg("%s, step %lu: %s", what, step, m->err);
}

/* ---- operations ----------------------------------------------------------------- */
static void fill_pattern(struct bmodel *m, e4_blk_t p, uint64_t n)
{
	uint8_t *buf = malloc(m->bs);

	assert_non_null(buf);
	for (uint64_t i = 0; i < n; i++) {
		for (unsigned k = 0; k < m->bs; k += 8) {
			uint64_t v = (p + i) * 0x9E3779B97F4A7C15ULL + k;

			memcpy(buf + k, &v, 8);
		}
		assert_int_equal(e4_io_pwrite(e4_fs_io(m->fs), (p + i) * m->bs, buf, m->bs), 0);
	}
	free(buf);
}

/* Map [lblk, lblk + n) of window w to new blocks; the blocks it mapped
 * before are freed by the test (the set unmaps, never frees). */
static void op_set(struct bmodel *m, int w, uint64_t off, uint64_t n)
{
	e4_blk_t p;

	if (e4_block_find_free(m->fs, 1 + rnd(m) % e4_geom(m->fs)->blocks_count, n, &p))
		return;
	assert_int_equal(e4_block_mark(m->fs, p, n, 1, NULL), 0);
	fill_pattern(m, p, n);
	assert_int_equal(e4_map_set(m->fs, m->ino, &m->ib, m->win[w] + off, n, p, 0), 0);
	for (uint64_t i = 0; i < n; i++) {
		e4_blk_t old = m->map[w][off + i];

		if (old)
			assert_int_equal(e4_block_mark(m->fs, old, 1, 0, NULL), 0);
		else
			m->mapped++;
		m->map[w][off + i] = p + i;
	}
}

static void op_punch(struct bmodel *m, uint64_t lblk, uint64_t n)
{
	uint64_t freed = 0, want = 0;

	for (int w = 0; w < NWIN; w++)
		for (unsigned i = 0; i < WLEN; i++) {
			uint64_t l = m->win[w] + i;

			if (l >= lblk && l - lblk < n && m->map[w][i]) {
				m->map[w][i] = 0;
				m->mapped--;
				want++;
			}
		}
	assert_int_equal(e4_map_punch(m->fs, m->ino, &m->ib, lblk, n, &freed), 0);
	/* freed counts the indirect blocks too */
	assert_true(freed >= want);
}

static e4_fs *start(struct bmodel *m, uint64_t seed)
{
	e4_fs *fs;

	if (!imgs.ok)
		skip();
	memset(m, 0, sizeof(*m));
	assert_int_equal(e4_open(img3, E4_OPEN_RW, 0, 0, &fs), 0);
	m->fs = fs;
	assert_int_equal(uf_open(fs, "/f0", &m->ino, &m->ib), 0);
	assert_false(e4_le32(m->ib.inode.i_flags) & EXT4_EXTENTS_FL);
	m->bs = e4_geom(fs)->block_size;
	m->apb = m->bs / 4;
	m->max = e4_blockmap_max_blocks(fs);
	assert_int_equal(m->max, 12 + 256 + 65536 + 16777216ULL);
	m->win[0] = 0;
	m->win[1] = 12 + 256 + 65536 - WLEN / 2;		/* dind -> tind */
	m->win[2] = 12 + 256 + 65536 + 65536 - WLEN / 2;	/* inside tind */
	m->win[3] = m->max - WLEN;				/* the end */
	m->free0 = e4_sb_free_blocks_count(e4_super(fs));
	m->rng = seed;
	return fs;
}

/* ---- tests ---------------------------------------------------------------------- */
static void limits(void **state)
{
	struct bmodel m;
	union e4_inode_buf before;
	e4_fs *fs;

	(void)state;
	fs = start(&m, 1);
	assert_int_equal(e4_block_mark(fs, 5000, 4, 1, NULL), 0);
	m.free0 -= 3;	/* 5001-5003 stay in use, unmapped; 5000 gets mapped */
	memcpy(&before, &m.ib, sizeof(before));
	assert_int_equal(e4_map_set(fs, m.ino, &m.ib, m.max, 1, 5000, 0), E4_ERR_FILE_TOO_BIG);
	assert_int_equal(e4_map_set(fs, m.ino, &m.ib, m.max - 1, 2, 5000, 0), E4_ERR_FILE_TOO_BIG);
	assert_int_equal(e4_map_set(fs, m.ino, &m.ib, 0, 1, 5000, E4_MAP_UNWRITTEN),
			 E4_ERR_UNSUPPORTED);
	assert_int_equal(e4_map_set(fs, m.ino, &m.ib, 0, 1, e4_geom(fs)->blocks_count, 0),
			 E4_ERR_INVALID_ARGUMENT);
	assert_memory_equal(&before, &m.ib, sizeof(before));
	/* the very last block it addresses is fine, three new indirect blocks */
	assert_int_equal(e4_map_set(fs, m.ino, &m.ib, m.max - 1, 1, 5000, 0), 0);
	m.map[3][WLEN - 1] = 5000;
	m.mapped = 1;
	must_validate(&m, "last block", 0);
	assert_int_equal(m.ind, 3);
	/* punching it frees the three */
	op_punch(&m, m.max - 1, 1);
	must_validate(&m, "last block punched", 0);
	assert_int_equal(m.ind, 0);
	assert_int_equal(e4_inode_blocks(fs, &m.ib.inode), 0);
	e4_io_discard(e4_fs_io(fs));
	e4_close(fs);
}

static void random_sets_and_punches(void **state)
{
	const unsigned long steps = 3000;
	struct bmodel m;
	char mnt[64];
	uint8_t *want, *blk;
	e4_fs *fs;
	uint64_t maxind = 0;
	int mounted;

	(void)state;
	fs = start(&m, 0x5eed);
	for (unsigned long s = 0; s < steps; s++) {
		uint64_t r = rnd(&m) % 100, w = rnd(&m) % NWIN, off = rnd(&m) % WLEN, n;

		n = 1 + rnd(&m) % (r < 10 ? 300 : 40);
		if (n > WLEN - off)
			n = WLEN - off;
		if (r < 60)
			op_set(&m, (int)w, off, n);
		else if (r < 98)
			op_punch(&m, m.win[w] + off, n);
		else
			op_punch(&m, m.win[w] + off, UINT64_MAX);	/* to the end */
		must_validate(&m, "random sets and punches", s);
		if (m.ind > maxind)
			maxind = m.ind;
	}
	print_message("block map: %lu steps, %llu blocks mapped, up to %llu indirect blocks\n",
		      steps, (unsigned long long)m.mapped, (unsigned long long)maxind);
	assert_true(maxind >= 8);
	/* write it out: size covers the last window */
	{
		uint64_t size = m.max * m.bs;

		m.ib.inode.i_size_lo = e4_cpu_to_le32((uint32_t)size);
		m.ib.inode.i_size_high = e4_cpu_to_le32((uint32_t)(size >> 32));
		assert_int_equal(e4_inode_write(fs, m.ino, &m.ib), 0);
		assert_int_equal(e4_alloc_flush(fs), 0);
		assert_int_equal(e4_close(fs), 0);
	}
	assert_int_equal(oracle_fsck(img3), 0);
	mounted = oracle_mount(img3, mnt);
	assert_true(mounted >= 0);
	if (mounted) {
		int rc = 0;

		want = calloc(WLEN, m.bs);
		blk = malloc(m.bs);
		assert_non_null(want);
		for (int w = 0; w < NWIN && !rc; w++) {
			memset(want, 0, (size_t)WLEN * m.bs);
			for (unsigned i = 0; i < WLEN; i++) {
				e4_blk_t p = m.map[w][i];

				for (unsigned k = 0; p && k < m.bs; k += 8) {
					uint64_t v = p * 0x9E3779B97F4A7C15ULL + k;

					memcpy(want + (size_t)i * m.bs + k, &v, 8);
				}
			}
			rc = uf_kernel_cmp(mnt, "f0", m.max * m.bs, m.win[w] * m.bs, want,
					   (size_t)WLEN * m.bs);
		}
		free(want);
		free(blk);
		assert_int_equal(oracle_umount(mnt), 0);
		assert_int_equal(rc, 0);
	}
}

/* One interface, both kinds: the same e4_map_set / e4_map_punch calls on
 * a block-mapped (ext3) and an extent-mapped (ext4) file leave the same
 * mapping (e4_bmap of every block), the same block accounting. */
static void same_calls_both_kinds(void **state)
{
	const char *img[2] = { img3, img4 };
	e4_blk_t got[2][2000];
	uint64_t blocks[2];
	e4_fs *fs[2];
	e4_ino_t ino[2];
	union e4_inode_buf ib[2];

	(void)state;
	if (!imgs.ok)
		skip();
	for (int k = 0; k < 2; k++) {
		uint64_t rng = 99;
		e4_blk_t base;

		assert_int_equal(e4_open(img[k], E4_OPEN_RW, 0, 0, &fs[k]), 0);
		assert_int_equal(uf_open(fs[k], "/f1", &ino[k], &ib[k]), 0);	/* empty */
		assert_int_equal(!!(e4_le32(ib[k].inode.i_flags) & EXT4_EXTENTS_FL), k);
		/* the same physical blocks in both images: a run free in both */
		base = 20000;
		assert_int_equal(e4_block_mark(fs[k], base, 2000, 1, NULL), 0);
		for (int s = 0; s < 300; s++) {
			uint64_t l, n;

			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			l = rng % 1900, n = 1 + (rng >> 20) % 100;
			if ((rng >> 40) % 3)
				assert_int_equal(e4_map_set(fs[k], ino[k], &ib[k], l, n, base + l, 0), 0);
			else
				assert_int_equal(e4_map_punch(fs[k], ino[k], &ib[k], l, n, NULL), 0);
			/* punched blocks were freed: take them back for the next set */
			assert_int_equal(e4_block_mark(fs[k], base, 2000, 1, NULL), 0);
		}
		for (uint64_t l = 0; l < 2000; l++) {
			uint32_t len;
			unsigned fl;

			assert_int_equal(e4_bmap(fs[k], ino[k], &ib[k].inode, l, &got[k][l], &len, &fl),
					 0);
		}
		{
			const char *why = uf_accounting(fs[k], ino[k], &ib[k].inode, &blocks[k]);

			if (why)
				fail_msg("%s: %s", k ? "extents" : "block map", why);
		}
	}
	assert_memory_equal(got[0], got[1], sizeof(got[0]));
	/* the data blocks alike; only the mapping blocks differ */
	print_message("same calls: %llu blocks (block map), %llu (extents)\n",
		      (unsigned long long)blocks[0], (unsigned long long)blocks[1]);
	for (int k = 0; k < 2; k++) {
		e4_io_discard(e4_fs_io(fs[k]));
		e4_close(fs[k]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(limits),
		cmocka_unit_test(random_sets_and_punches),
		cmocka_unit_test(same_calls_both_kinds),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
