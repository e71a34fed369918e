/*
 * Unit tests for file writes (file_write.h: e4_file_write, truncate,
 * punch, fallocate; inline data) through the mapping interface, on files
 * that mke2fs -d made (so they are linked): ext4 with extents (1 and
 * 4 KiB blocks), ext3 with block maps, ext4 with inline_data, ext4 with
 * bigalloc (16-block clusters).
 *  - fixed-seed random sequences (writes short and long, some with
 *    E4_FILE_SPARSE and zero blocks in the source, appends, truncations
 *    down and up, punches, fallocate with and without KEEP_SIZE) against
 *    a byte model of the file: after every step the file read back
 *    (e4_file_pread) equals the model, every mapped block is in use,
 *    i_blocks equals the blocks the map holds (bigalloc: their clusters,
 *    whole) and the free count dropped by exactly those (nothing leaked, nothing freed twice); fallocate on
 *    a block map is refused (E4_ERR_UNSUPPORTED, as the kernel does) and
 *    changes nothing;
 *  - a sparse source stays sparse (zero blocks over holes not allocated);
 *  - a block-mapped file written by appends is one physical run in
 *    e2fsck's walk order (indirect blocks before their data, as the
 *    kernel places them);
 *  - inline data: a small file is created inline, grows inside the inode,
 *    shrinks and grows by truncation, is punched, and is converted to
 *    extents when it outgrows the inode (the content kept); exactly the
 *    largest inline size stays inline, one byte more converts.
 * Each image is then written: the reference e2fsck -fn is clean and a
 * read-only kernel mount reads every file as the model says.
 * Needs mke2fs (REF_MKE2FS or PATH); skipped without it.
 * Catches (each planted once and seen failing): truncate not zeroing the
 * tail of the last block (a later extension reads old bytes); unwritten
 * blocks written without conversion (read back as zeros); the sparse
 * flag ignored (zero blocks allocated); inline conversion losing the
 * content; EXTENTS_FL left on an inline file (only e2fsck -fn sees it:
 * "seems to have inline data but extent flag is set"); bigalloc: a new
 * cluster not counted in i_blocks, a block put at the wrong offset of its
 * cluster.
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

#define NFILES	6
#define MAXSZ	(600u * 1024)

static struct unit_images imgs;
static char src[64];
static const char *img_ext4, *img_ext4_4k, *img_ext3, *img_inline, *img_bigalloc, *img_ext3b;

static int setup(void **state)
{
	char opts[200];

	(void)state;
	e4_init_errors();
	if (unit_images_init(&imgs, "file_write") || uf_src_make(src, "fw", NFILES))
		return -1;
	snprintf(opts, sizeof(opts), "-t ext4 -b 1024 -N 64 -O ^has_journal -d %s", src);
	img_ext4 = unit_image_add(&imgs, "ext4", opts, "64M");
	snprintf(opts, sizeof(opts), "-t ext4 -b 4096 -N 64 -O ^metadata_csum -d %s", src);
	img_ext4_4k = unit_image_add(&imgs, "ext4_4k", opts, "64M");
	snprintf(opts, sizeof(opts), "-t ext3 -b 1024 -N 64 -d %s", src);
	img_ext3 = unit_image_add(&imgs, "ext3", opts, "64M");
	img_ext3b = unit_image_add(&imgs, "ext3b", opts, "16M");	/* untouched till layout */
	snprintf(opts, sizeof(opts), "-t ext4 -b 1024 -I 256 -N 64 -O inline_data,^has_journal -d %s",
		 src);
	img_inline = unit_image_add(&imgs, "inline", opts, "32M");
	snprintf(opts, sizeof(opts), "-t ext4 -b 1024 -N 64 -O bigalloc,^has_journal -C 16384 -d %s",
		 src);
	img_bigalloc = unit_image_add(&imgs, "bigalloc", opts, "64M");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	uf_src_remove(src, NFILES);
	return unit_images_remove(&imgs);
}

/* ---- the model -------------------------------------------------------------- */
struct fmodel {
	e4_fs *fs;
	const char *img;
	e4_ino_t ino;
	union e4_inode_buf ib;
	char name[16];
	uint8_t *data;			/* MAXSZ + slack; zeros past size */
	uint64_t size;
	uint64_t free0;			/* free blocks with the file empty */
	uint64_t rng;
	unsigned bs;
};

static uint64_t rnd(struct fmodel *m)
{
	m->rng ^= m->rng << 13;
	m->rng ^= m->rng >> 7;
	m->rng ^= m->rng << 17;
	return m->rng;
}

static e4_fs *open_img(const char *img)
{
	e4_fs *fs;

	if (!imgs.ok)
		skip();
	assert_int_equal(e4_open(img, E4_OPEN_RW, 0, 0, &fs), 0);
	return fs;
}

static void model_start(struct fmodel *m, e4_fs *fs, const char *img, unsigned n, uint64_t seed)
{
	char path[16];

	memset(m, 0, sizeof(*m));
	m->fs = fs;
	m->img = img;
	snprintf(m->name, sizeof(m->name), "f%u", n % 100);
	snprintf(path, sizeof(path), "/f%u", n % 100);
	assert_int_equal(uf_open(fs, path, &m->ino, &m->ib), 0);
	assert_int_equal(e4_inode_size(&m->ib.inode), 0);
	m->data = calloc(1, MAXSZ + 65536);
	assert_non_null(m->data);
	m->free0 = e4_sb_free_blocks_count(e4_super(fs));
	m->rng = seed;
	m->bs = e4_geom(fs)->block_size;
}

/* The file as libe4 reads it, its accounting, against the model. */
static void validate(struct fmodel *m, const char *what, unsigned long step)
{
	union e4_inode_buf disk;
	uint8_t *got = malloc(m->size + 1);
	const char *why;
	uint64_t blocks = 0;
	size_t n = 0;
	e4_file *f;

	assert_non_null(got);
	/* what was written is what the image holds */
	assert_int_equal(e4_inode_read(m->fs, m->ino, &disk), 0);
	if (memcmp(&disk, &m->ib, e4_geom(m->fs)->inode_size))
		fail_msg("%s, step %lu: the inode on disk differs from the image", what, step);
	if (e4_inode_size(&m->ib.inode) != m->size)
		fail_msg("%s, step %lu: i_size %llu, the model %llu", what, step,
			 (unsigned long long)e4_inode_size(&m->ib.inode), (unsigned long long)m->size);
	assert_int_equal(e4_file_open(m->fs, m->ino, &m->ib.inode, &f), 0);
	assert_int_equal(e4_file_pread(f, 0, got, m->size, &n), 0);
	e4_file_close(f);
	if (n != m->size || memcmp(got, m->data, m->size)) {
		size_t i = 0;

		while (i < n && got[i] == m->data[i])
			i++;
		fail_msg("%s, step %lu: the file differs from the model at byte %zu (read %zu of %llu)",
			 what, step, i, n, (unsigned long long)m->size);
	}
	free(got);
	why = uf_accounting(m->fs, m->ino, &m->ib.inode, &blocks);
	if (why)
		fail_msg("%s, step %lu: %s", what, step, why);
	if (e4_sb_free_blocks_count(e4_super(m->fs)) + blocks != m->free0)
		fail_msg("%s, step %lu: %llu blocks free, expected %llu", what, step,
			 (unsigned long long)e4_sb_free_blocks_count(e4_super(m->fs)),
			 (unsigned long long)(m->free0 - blocks));
}

/* A file whose only byte is the last (huge and sparse): its size, its
 * last byte, its accounting (no full read). */
static void validate_tail(struct fmodel *m, uint64_t off, uint8_t want)
{
	uint64_t blocks = 0;
	const char *why = uf_accounting(m->fs, m->ino, &m->ib.inode, &blocks);
	uint8_t got = 0;
	size_t n = 0;
	e4_file *f;

	if (why)
		fail_msg("%s: %s", m->name, why);
	assert_int_equal(e4_inode_size(&m->ib.inode), m->size);
	assert_int_equal(e4_file_open(m->fs, m->ino, &m->ib.inode, &f), 0);
	assert_int_equal(e4_file_pread(f, off, &got, 1, &n), 0);
	e4_file_close(f);
	assert_int_equal(n, 1);
	assert_int_equal(got, want);
}

/* ---- operations, on the file and the model ----------------------------------- */
static void op_write(struct fmodel *m, uint64_t off, size_t len, unsigned flags)
{
	uint8_t *buf = malloc(len + 1);

	assert_non_null(buf);
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(rnd(m) | 1);
	/* some block-aligned stretches of zeros, for the sparse flag */
	for (uint64_t b = (off + m->bs - 1) / m->bs; (b + 1) * m->bs <= off + len; b++)
		if (rnd(m) % 3 == 0)
			memset(buf + (b * m->bs - off), 0, m->bs);
	assert_int_equal(e4_file_write(m->fs, m->ino, &m->ib, off, buf, len, flags), 0);
	memcpy(m->data + off, buf, len);
	if (off + len > m->size)
		m->size = off + len;
	free(buf);
}

static void op_truncate(struct fmodel *m, uint64_t size)
{
	assert_int_equal(e4_file_truncate(m->fs, m->ino, &m->ib, size), 0);
	if (size < m->size)
		memset(m->data + size, 0, m->size - size);
	m->size = size;
}

static void op_punch(struct fmodel *m, uint64_t off, uint64_t len)
{
	assert_int_equal(e4_file_punch(m->fs, m->ino, &m->ib, off, len), 0);
	if (off < m->size)
		memset(m->data + off, 0, (off + len < m->size ? off + len : m->size) - off);
}

static void op_falloc(struct fmodel *m, uint64_t off, uint64_t len, unsigned flags)
{
	union e4_inode_buf before = m->ib;
	errcode_t err = e4_file_fallocate(m->fs, m->ino, &m->ib, off, len, flags);
	int extents = e4_has_incompat(m->fs, EXT4_FEATURE_INCOMPAT_EXTENTS);

	if (!extents) {
		assert_int_equal(err, E4_ERR_UNSUPPORTED);
		assert_memory_equal(&before, &m->ib, sizeof(before));
		return;
	}
	assert_int_equal(err, 0);
	if (!(flags & E4_FALLOC_KEEP_SIZE) && off + len > m->size)
		m->size = off + len;
}

static void random_ops(struct fmodel *m, unsigned long steps)
{
	for (unsigned long s = 0; s < steps; s++) {
		uint64_t r = rnd(m) % 100, off = rnd(m) % MAXSZ, len;

		len = r % 2 ? 1 + rnd(m) % 3000 : 1 + rnd(m) % 65536;
		if (off + len > MAXSZ)
			len = MAXSZ - off;
		if (r < 40)
			op_write(m, off, len, rnd(m) % 2 ? E4_FILE_SPARSE : 0);
		else if (r < 50)
			op_write(m, m->size, m->size + len > MAXSZ ? MAXSZ - m->size : len, 0);
		else if (r < 62)
			op_truncate(m, rnd(m) % 2 ? off : m->size / 2);
		else if (r < 80)
			op_punch(m, off, len);
		else
			op_falloc(m, off, len, rnd(m) % 2 ? E4_FALLOC_KEEP_SIZE : 0);
		validate(m, m->name, s);
	}
}

/* Write the image out; e2fsck -fn clean; the kernel reads each model. */
static void finish(e4_fs *fs, const char *img, struct fmodel *ms, int n)
{
	char mnt[64];
	int mounted, rc = 0;

	assert_int_equal(e4_alloc_flush(fs), 0);
	assert_int_equal(e4_close(fs), 0);
	assert_int_equal(oracle_fsck(img), 0);
	mounted = oracle_mount(img, mnt);
	assert_true(mounted >= 0);
	for (int i = 0; mounted > 0 && i < n && !rc; i++)
		rc = uf_kernel_cmp(mnt, ms[i].name, ms[i].size, 0, ms[i].data, ms[i].size);
	if (mounted > 0)
		assert_int_equal(oracle_umount(mnt), 0);
	assert_int_equal(rc, 0);
	for (int i = 0; i < n; i++)
		free(ms[i].data);
}

static void random_case(const char *img, unsigned long steps, uint64_t seed)
{
	struct fmodel m;
	e4_fs *fs = open_img(img);

	model_start(&m, fs, img, 0, seed);
	random_ops(&m, steps);
	print_message("%s: %lu random steps, size %llu, i_blocks %llu\n", img, steps,
		      (unsigned long long)m.size,
		      (unsigned long long)e4_inode_blocks(fs, &m.ib.inode));
	finish(fs, img, &m, 1);
}

static void random_ext4(void **state)
{
	(void)state;
	random_case(img_ext4, 1500, 0xf11e);
}

static void random_ext4_4k(void **state)
{
	(void)state;
	random_case(img_ext4_4k, 800, 0xf4f4);
}

static void random_ext3(void **state)
{
	(void)state;
	random_case(img_ext3, 1500, 0xe3e3);
}

/* ---- a sparse source stays sparse ------------------------------------------------ */
static void sparse_case(const char *img)
{
	struct fmodel m[2];
	e4_fs *fs = open_img(img);
	unsigned bs;

	for (int k = 0; k < 2; k++) {
		uint8_t *buf;
		e4_blk_t p;
		uint32_t len;
		unsigned fl;

		model_start(&m[k], fs, img, 1 + k, 7);
		bs = m[k].bs;
		buf = malloc(20 * bs);
		assert_non_null(buf);
		memset(buf, 0x5a, 20 * bs);
		memset(buf + 3 * bs, 0, 2 * bs);	/* blocks 3, 4 */
		memset(buf + 15 * bs, 0, 5 * bs);	/* 15 .. the end */
		assert_int_equal(e4_file_write(fs, m[k].ino, &m[k].ib, 0, buf, 20 * bs - 7,
					       k ? 0 : E4_FILE_SPARSE), 0);
		memcpy(m[k].data, buf, 20 * bs - 7);
		m[k].size = 20 * bs - 7;
		validate(&m[k], "sparse", 0);
		for (uint64_t l = 0; l < 20; l++) {
			int hole = !k && (l == 3 || l == 4 || l >= 15);

			assert_int_equal(e4_bmap(fs, m[k].ino, &m[k].ib.inode, l, &p, &len, &fl), 0);
			if (hole != !p)
				fail_msg("%s: block %llu %s", k ? "dense" : "sparse",
					 (unsigned long long)l, p ? "mapped" : "a hole");
		}
		/* over mapped blocks zeros are written, not punched */
		memset(buf, 0, bs);
		assert_int_equal(e4_file_write(fs, m[k].ino, &m[k].ib, 0, buf, bs, E4_FILE_SPARSE),
				 0);
		memset(m[k].data, 0, bs);
		validate(&m[k], "zeros over a mapped block", 0);
		assert_int_equal(e4_bmap(fs, m[k].ino, &m[k].ib.inode, 0, &p, &len, &fl), 0);
		assert_true(p != 0);
		free(buf);
	}
	finish(fs, img, m, 2);
}

static void sparse_ext4(void **state)
{
	(void)state;
	sparse_case(img_ext4_4k);
}

static void sparse_ext3(void **state)
{
	(void)state;
	sparse_case(img_ext3);
}

/* ---- inline data ---------------------------------------------------------------------- */
static int inline_flag(struct fmodel *m)
{
	return (e4_le32(m->ib.inode.i_flags) & EXT4_INLINE_DATA_FL) != 0;
}

static void inline_cases(void **state)
{
	struct fmodel m[5];
	e4_fs *fs = open_img(img_inline);
	uint8_t buf[4096];
	size_t max;

	(void)state;
	/* f1: small, inline, grows inside the inode, shrinks, grows and is
	 * punched by truncation: stays inline */
	model_start(&m[0], fs, img_inline, 1, 21);
	op_write(&m[0], 0, 10, 0);
	validate(&m[0], "10 bytes", 0);
	assert_true(inline_flag(&m[0]));
	assert_int_equal(e4_inode_blocks(fs, &m[0].ib.inode), 0);
	op_write(&m[0], 40, 50, 0);		/* 90 bytes: 30 in system.data */
	validate(&m[0], "90 bytes", 0);
	assert_true(inline_flag(&m[0]));
	op_truncate(&m[0], 20);
	validate(&m[0], "truncated to 20", 0);
	op_truncate(&m[0], 100);
	validate(&m[0], "extended to 100", 0);
	assert_true(inline_flag(&m[0]));
	op_punch(&m[0], 5, 10);
	validate(&m[0], "punched", 0);
	assert_true(inline_flag(&m[0]));
	op_truncate(&m[0], 30);		/* all in i_block, system.data empty */
	validate(&m[0], "truncated to 30", 0);
	assert_true(inline_flag(&m[0]));

	/* f2: grown 4 bytes at a time: the largest inline size, then
	 * converted to extents */
	model_start(&m[1], fs, img_inline, 2, 22);
	max = 60;
	for (;;) {
		op_write(&m[1], m[1].size, 4, 0);
		if (!inline_flag(&m[1]))
			break;
		max = m[1].size;
	}
	validate(&m[1], "grown past the inode", 0);
	assert_true(e4_le32(m[1].ib.inode.i_flags) & EXT4_EXTENTS_FL);
	print_message("inline: at most %zu bytes in a 256-byte inode\n", max);
	assert_true(max > 60 && max < 256);

	/* f3: written at once at that size: inline (system.data used) */
	model_start(&m[2], fs, img_inline, 3, 23);
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(e4_file_write(fs, m[2].ino, &m[2].ib, 0, buf, max, 0), 0);
	memcpy(m[2].data, buf, max);
	m[2].size = max;
	validate(&m[2], "largest inline", 0);
	assert_true(inline_flag(&m[2]));

	/* f4: the same, then one byte more: converted */
	model_start(&m[3], fs, img_inline, 4, 24);
	assert_int_equal(e4_file_write(fs, m[3].ino, &m[3].ib, 0, buf, max, 0), 0);
	memcpy(m[3].data, buf, max);
	m[3].size = max;
	assert_true(inline_flag(&m[3]));
	op_write(&m[3], max, 1, 0);
	validate(&m[3], "one more byte", 0);
	assert_false(inline_flag(&m[3]));

	/* f5: 100 inline bytes, then a write far past them: converted, the
	 * content kept; truncated back it stays mapped (as the kernel
	 * leaves it) */
	model_start(&m[4], fs, img_inline, 5, 25);
	op_write(&m[4], 0, 100, 0);
	assert_true(inline_flag(&m[4]));
	op_write(&m[4], 3000, 1, 0);
	validate(&m[4], "converted", 0);
	assert_false(inline_flag(&m[4]));
	op_truncate(&m[4], 50);
	validate(&m[4], "converted, truncated", 0);
	assert_false(inline_flag(&m[4]));
	finish(fs, img_inline, m, 5);
}

/* ---- layout ------------------------------------------------------------------------------ */
struct seq {
	e4_blk_t next;
	int breaks;
	uint64_t meta;
};

static int seq_cb(e4_fs *fs, const struct e4_map_extent *e, void *priv)
{
	struct seq *q = priv;

	(void)fs;
	if (q->next && e->pblk != q->next)
		q->breaks++;
	q->next = e->pblk + e->len;
	if (e->flags & E4_MAP_META)
		q->meta += e->len;
	return 0;
}

/* A dense file written into an empty block map lies in one physical run
 * in the order e2fsck walks it (an indirect block before the blocks it
 * maps, as the kernel lays it out): e2fsck counts it contiguous. */
static void layout_ext3(void **state)
{
	struct fmodel m;
	e4_fs *fs = open_img(img_ext3b);
	struct seq q = { 0 };

	(void)state;
	model_start(&m, fs, img_ext3b, 4, 41);
	for (uint64_t off = 0; off < 500 * (uint64_t)m.bs; off += 3000)
		op_write(&m, off, 3000, 0);	/* appends, not block-aligned */
	validate(&m, "appended", 0);
	assert_int_equal(e4_map_iterate(fs, m.ino, &m.ib.inode, E4_ITER_META, seq_cb, &q), 0);
	print_message("ext3 layout: %llu indirect blocks, %d breaks\n",
		      (unsigned long long)q.meta, q.breaks);
	assert_true(q.meta >= 3);	/* ind, dind and a child of it */
	assert_int_equal(q.breaks, 0);
	finish(fs, img_ext3b, &m, 1);
}

/* ---- limits and refusals ------------------------------------------------------------ */
/* Past what the map addresses: E4_ERR_FILE_TOO_BIG, nothing changed; the
 * last byte it addresses can be written (ext3: through the last triple
 * indirect block); read-only, directories and unknown flags refused. */
static void limits_case(const char *img, uint64_t max_blocks)
{
	struct fmodel m;
	union e4_inode_buf before, dir;
	e4_fs *fs = open_img(img);
	uint8_t b = 0x77;
	char mnt[64];
	uint64_t last;
	int mounted, rc = 0;

	model_start(&m, fs, img, 3, 31);
	last = max_blocks * m.bs - 1;
	before = m.ib;
	assert_int_equal(e4_file_write(fs, m.ino, &m.ib, last + 1, &b, 1, 0), E4_ERR_FILE_TOO_BIG);
	assert_int_equal(e4_file_write(fs, m.ino, &m.ib, last, &b, 2, 0), E4_ERR_FILE_TOO_BIG);
	assert_int_equal(e4_file_truncate(fs, m.ino, &m.ib, last + 2), E4_ERR_FILE_TOO_BIG);
	assert_int_equal(e4_file_write(fs, m.ino, &m.ib, 0, &b, 1, 0x80), E4_ERR_INVALID_ARGUMENT);
	assert_memory_equal(&before, &m.ib, sizeof(before));
	assert_int_equal(e4_inode_read(fs, EXT4_ROOT_INO, &dir), 0);
	assert_int_equal(e4_file_write(fs, EXT4_ROOT_INO, &dir, 0, &b, 1, 0),
			 E4_ERR_INVALID_ARGUMENT);
	assert_int_equal(e4_file_write(fs, m.ino, &m.ib, last, &b, 1, 0), 0);
	m.size = last + 1;
	validate_tail(&m, last, b);
	assert_int_equal(e4_alloc_flush(fs), 0);
	assert_int_equal(e4_close(fs), 0);
	/* read-only */
	assert_int_equal(e4_open(img, 0, 0, 0, &fs), 0);
	assert_int_equal(e4_file_write(fs, m.ino, &m.ib, 0, &b, 1, 0), E4_ERR_READ_ONLY);
	assert_int_equal(e4_file_truncate(fs, m.ino, &m.ib, 0), E4_ERR_READ_ONLY);
	e4_close(fs);
	assert_int_equal(oracle_fsck(img), 0);
	mounted = oracle_mount(img, mnt);
	assert_true(mounted >= 0);
	if (mounted > 0) {
		rc = uf_kernel_cmp(mnt, m.name, last + 1, last, &b, 1);
		assert_int_equal(oracle_umount(mnt), 0);
	}
	assert_int_equal(rc, 0);
	free(m.data);
}

static void limits_ext3(void **state)
{
	(void)state;
	limits_case(img_ext3, 12 + 256 + 65536 + 16777216ULL);
}

static void limits_ext4(void **state)
{
	(void)state;
	/* one block below the tree's 2^32 (e2fsck refuses a 2^32-block size) */
	limits_case(img_ext4_4k, (1ULL << 32) - 1);
}

/* bigalloc (16-block clusters): blocks go into their logical cluster's
 * physical cluster, i_blocks counts whole clusters. */
static void random_bigalloc(void **state)
{
	(void)state;
	random_case(img_bigalloc, 1200, 0xb1b1);
}

/* bigalloc: e4_map_set() maps a block at its logical offset in the
 * cluster only (1D's per-cluster clone relies on the rule); a range
 * across logical clusters into a run of whole clusters is fine. */
static void bigalloc_offsets(void **state)
{
	e4_fs *fs = open_img(img_bigalloc);
	union e4_inode_buf ib;
	e4_blk_t pc = 16 * 100;	/* a cluster start (16-block clusters) */

	(void)state;
	memset(&ib, 0, sizeof(ib));
	ib.inode.i_flags = e4_cpu_to_le32(EXT4_EXTENTS_FL);
	e4_extent_root_init(&ib.inode);
	assert_int_equal(e4_map_set(fs, 30, &ib, 3, 2, pc + 4, 0), E4_ERR_INVALID_ARGUMENT);
	assert_int_equal(e4_map_set(fs, 30, &ib, 17, 1, pc, 0), E4_ERR_INVALID_ARGUMENT);
	assert_int_equal(e4_map_set(fs, 30, &ib, 3, 2, pc + 3, 0), 0);
	assert_int_equal(e4_map_set(fs, 30, &ib, 30, 5, pc + 30, 0), 0);
	e4_close(fs);
}

/* The random sequence on a file that starts inline. */
static void random_inline(void **state)
{
	(void)state;
	random_case(img_inline, 600, 0x1a1a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sparse_ext4),
		cmocka_unit_test(sparse_ext3),
		cmocka_unit_test(inline_cases),
		cmocka_unit_test(random_ext4),
		cmocka_unit_test(random_ext4_4k),
		cmocka_unit_test(random_ext3),
		cmocka_unit_test(random_inline),
		cmocka_unit_test(random_bigalloc),
		cmocka_unit_test(bigalloc_offsets),
		cmocka_unit_test(layout_ext3),
		cmocka_unit_test(limits_ext3),
		cmocka_unit_test(limits_ext4),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
