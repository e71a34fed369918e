/* Unit tests for extent.c, map.c and file.c: a hand-built depth-1 extent
 * tree (format doc 7.2) grafted onto a file of a small mke2fs image, then
 * lookups, the ordered walk, reads, one corruption per check, and the
 * walk that goes on past damage (E4_ITER_AS_STORED).
 * Needs mke2fs (REF_MKE2FS or PATH); skipped without it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "e4.h"

#define BS		1024
#define NBLK		40	/* blocks of the test file */
#define INO		12	/* first inode mke2fs -d allocates */
#define LEAF_MAX	((BS - 12) / 12)

static char dir[64];
static char img[96];
static int have_image;
static e4_blk_t p0;		/* first data block of the file */
static e4_blk_t leaf_blk;	/* = p0 + NBLK - 1, sacrificed for the leaf */

struct tcase {
	uint32_t lblk;
	uint32_t off;		/* physical = p0 + off */
	uint16_t len;
	int unwritten;
};

/* Six extents with holes; the last lies beyond i_size. */
static const struct tcase good[] = {
	{ 0, 0, 3, 0 }, { 5, 10, 2, 1 }, { 10, 20, 4, 0 },
	{ 20, 30, 1, 0 }, { 30, 31, 2, 0 }, { 100, 35, 4, 0 },
};
#define NGOOD (sizeof(good) / sizeof(good[0]))

static void put_ext(struct ext4_extent *e, uint32_t lblk, e4_blk_t p, unsigned len, int unw)
{
	e->ee_block = e4_cpu_to_le32(lblk);
	e->ee_len = e4_cpu_to_le16(len + (unw ? EXT_INIT_MAX_LEN : 0));
	e->ee_start_hi = e4_cpu_to_le16((uint16_t)(p >> 32));
	e->ee_start_lo = e4_cpu_to_le32((uint32_t)p);
}

static void put_hdr(void *node, unsigned entries, unsigned max, unsigned depth)
{
	struct ext4_extent_header *eh = node;

	eh->eh_magic = e4_cpu_to_le16(EXT4_EXT_MAGIC);
	eh->eh_entries = e4_cpu_to_le16(entries);
	eh->eh_max = e4_cpu_to_le16(max);
	eh->eh_depth = e4_cpu_to_le16(depth);
	eh->eh_generation = 0;
}

/* What a corruption case changes, applied before checksums are set. */
typedef void (*mutator)(union e4_inode_buf *ib, uint8_t *leaf);

/* Write inode INO as ib holds it, with its checksum set. */
static void put_inode(union e4_inode_buf *ib)
{
	uint64_t ioff;
	unsigned isize;
	e4_fs *fs;
	int fd;

	assert_int_equal(e4_open(img, E4_OPEN_IGNORE_CSUM, 0, 0, &fs), 0);
	assert_int_equal(e4_inode_location(fs, INO, &ioff), 0);
	if (e4_geom(fs)->metadata_csum) {
		uint32_t c = e4_inode_csum(fs, INO, &ib->inode);

		ib->inode.l_i_checksum_lo = e4_cpu_to_le16((uint16_t)c);
		ib->inode.i_checksum_hi = e4_cpu_to_le16((uint16_t)(c >> 16));
	}
	isize = e4_geom(fs)->inode_size;
	assert_int_equal(e4_close(fs), 0);
	fd = open(img, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, ib->raw, isize, (off_t)ioff), (ssize_t)isize);
	close(fd);
}

/*
 * Write the good tree (root in i_block with one index entry, a leaf in
 * leaf_blk), let mut corrupt it, then set the leaf tail checksum (unless
 * keep_bad_csum) and the inode checksum, and write both to the image.
 */
static void graft(mutator mut, int keep_bad_csum)
{
	union e4_inode_buf ib;
	uint8_t leaf[BS];
	struct ext4_extent_idx *ix;
	e4_fs *fs;
	int fd;
	unsigned i;

	assert_int_equal(e4_open(img, E4_OPEN_IGNORE_CSUM, 0, 0, &fs), 0);
	assert_int_equal(e4_inode_read(fs, INO, &ib), 0);

	memset(leaf, 0, sizeof(leaf));
	put_hdr(leaf, NGOOD, LEAF_MAX, 0);
	for (i = 0; i < NGOOD; i++)
		put_ext((struct ext4_extent *)(leaf + 12) + i, good[i].lblk,
			p0 + good[i].off, good[i].len, good[i].unwritten);

	memset(ib.inode.i_block, 0, sizeof(ib.inode.i_block));
	ib.inode.i_flags |= e4_cpu_to_le32(EXT4_EXTENTS_FL);
	put_hdr(ib.inode.i_block, 1, 4, 1);
	ix = (struct ext4_extent_idx *)((uint8_t *)ib.inode.i_block + 12);
	ix->ei_block = 0;
	ix->ei_leaf_lo = e4_cpu_to_le32((uint32_t)leaf_blk);
	ix->ei_leaf_hi = 0;

	if (mut)
		mut(&ib, leaf);
	if (!keep_bad_csum && e4_geom(fs)->metadata_csum) {
		unsigned max = e4_le16(((struct ext4_extent_header *)leaf)->eh_max);

		if (max <= LEAF_MAX) {
			uint32_t c = e4_extent_block_csum(fs, INO,
							  e4_le32(ib.inode.i_generation), leaf);

			*(uint32_t *)(leaf + 12 + 12 * max) = e4_cpu_to_le32(c);
		}
	}
	assert_int_equal(e4_close(fs), 0);

	fd = open(img, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, leaf, BS, (off_t)leaf_blk * BS), BS);
	close(fd);
	put_inode(&ib);
}

static int setup(void **state)
{
	char cmd[512], path[128];
	const char *mkfs = getenv("REF_MKE2FS");
	uint8_t blk[BS];
	FILE *fp;
	int i;

	(void)state;
	e4_init_errors();
	strcpy(dir, "/tmp/e4_test_extent.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/src", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/src/f", dir);
	fp = fopen(path, "wb");
	if (!fp)
		return -1;
	for (i = 0; i < NBLK; i++) {
		memset(blk, i + 1, sizeof(blk));
		fwrite(blk, 1, sizeof(blk), fp);
	}
	fclose(fp);
	snprintf(img, sizeof(img), "%s/img", dir);
	snprintf(cmd, sizeof(cmd),
		 "PATH=\"$PATH:/sbin:/usr/sbin\" %s -q -F -t ext4 -b %d -N 32 "
		 "-O ^has_journal,^resize_inode,metadata_csum -d %s/src %s 2M >/dev/null 2>&1",
		 mkfs ? mkfs : "mke2fs", BS, dir, img);
	have_image = system(cmd) == 0;
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static e4_fs *open_img(int flags)
{
	e4_fs *fs;

	assert_int_equal(e4_open(img, flags, 0, 0, &fs), 0);
	return fs;
}

/*
 * The file as mke2fs wrote it is mapped; then fill NBLK blocks near the end
 * of the image (physical block p0 + k holds bytes k + 1) for the grafted
 * trees to point at.  Filesystem consistency does not matter here.
 */
static void original_file(void **state)
{
	uint8_t blk[BS];
	e4_blk_t p;
	uint32_t len;
	unsigned fl;
	e4_fs *fs;
	int fd, k;

	(void)state;
	if (!have_image)
		skip();
	fs = open_img(0);
	assert_int_equal(e4_bmap(fs, INO, NULL, 0, &p, &len, &fl), 0);
	assert_true(p != 0 && len >= 1);
	assert_int_equal(fl, 0);
	assert_int_equal(e4_bmap(fs, INO, NULL, NBLK, &p, &len, &fl), 0);
	assert_true(p == 0 && len == UINT32_MAX);
	p0 = e4_geom(fs)->blocks_count - NBLK - 8;
	leaf_blk = p0 + NBLK - 1;
	e4_close(fs);

	fd = open(img, O_WRONLY);
	assert_true(fd >= 0);
	for (k = 0; k < NBLK; k++) {
		memset(blk, k + 1, sizeof(blk));
		assert_int_equal(pwrite(fd, blk, BS, (off_t)(p0 + k) * BS), BS);
	}
	close(fd);
}

struct seen {
	struct e4_map_extent e[16];
	int n;
	int stop_after;
};

static int collect(e4_fs *fs, const struct e4_map_extent *e, void *priv)
{
	struct seen *s = priv;

	(void)fs;
	if (s->n < 16)
		s->e[s->n] = *e;
	s->n++;
	return s->stop_after && s->n >= s->stop_after ? 4242 : 0;
}

static void depth1_lookup(void **state)
{
	e4_blk_t p;
	uint32_t len;
	unsigned fl;
	e4_fs *fs;
	unsigned i;

	(void)state;
	if (!have_image || !p0)
		skip();
	graft(NULL, 0);
	fs = open_img(0);
	for (i = 0; i < NGOOD; i++) {
		assert_int_equal(e4_bmap(fs, INO, NULL, good[i].lblk + 1 - (good[i].len == 1),
					 &p, &len, &fl), 0);
		assert_true(p == p0 + good[i].off + 1 - (good[i].len == 1));
		assert_int_equal(len, good[i].len - 1 + (good[i].len == 1));
		assert_int_equal(fl, good[i].unwritten ? E4_MAP_UNWRITTEN : 0);
	}
	/* Holes: exact lengths up to the next extent, none after the last. */
	assert_int_equal(e4_bmap(fs, INO, NULL, 3, &p, &len, &fl), 0);
	assert_true(p == 0 && len == 2);
	assert_int_equal(e4_bmap(fs, INO, NULL, 21, &p, &len, &fl), 0);
	assert_true(p == 0 && len == 9);
	assert_int_equal(e4_bmap(fs, INO, NULL, 104, &p, &len, &fl), 0);
	assert_true(p == 0 && len == UINT32_MAX);
	assert_int_equal(e4_bmap(fs, INO, NULL, 1ULL << 32, &p, &len, &fl),
			 E4_ERR_FILE_TOO_BIG);
	e4_close(fs);
}

static void depth1_walk(void **state)
{
	struct seen s;
	e4_fs *fs;
	unsigned i;

	(void)state;
	if (!have_image || !p0)
		skip();
	graft(NULL, 0);
	fs = open_img(0);
	memset(&s, 0, sizeof(s));
	assert_int_equal(e4_map_iterate(fs, INO, NULL, E4_ITER_META, collect, &s), 0);
	assert_int_equal(s.n, 1 + NGOOD);
	assert_int_equal(s.e[0].flags, E4_MAP_META);
	assert_true(s.e[0].pblk == leaf_blk && s.e[0].lblk == 0 && s.e[0].level == 0);
	for (i = 0; i < NGOOD; i++) {
		assert_true(s.e[1 + i].lblk == good[i].lblk);
		assert_true(s.e[1 + i].pblk == p0 + good[i].off);
		assert_int_equal(s.e[1 + i].len, good[i].len);
		assert_int_equal(s.e[1 + i].flags, good[i].unwritten ? E4_MAP_UNWRITTEN : 0);
	}
	/* Without META only data; a nonzero callback return stops the walk. */
	memset(&s, 0, sizeof(s));
	s.stop_after = 2;
	assert_int_equal(e4_map_iterate(fs, INO, NULL, 0, collect, &s), 4242);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.e[0].flags, 0);
	e4_close(fs);
}

static void depth1_read(void **state)
{
	uint8_t buf[NBLK * BS + 64];
	size_t got;
	e4_file *f;
	e4_fs *fs;
	unsigned lb, i;

	(void)state;
	if (!have_image || !p0)
		skip();
	graft(NULL, 0);
	fs = open_img(0);
	assert_int_equal(e4_file_open(fs, INO, NULL, &f), 0);
	assert_true(e4_file_size(f) == NBLK * BS);
	memset(buf, 0x5A, sizeof(buf));
	assert_int_equal(e4_file_pread(f, 0, buf, sizeof(buf), &got), 0);
	assert_int_equal(got, NBLK * BS);
	assert_int_equal(buf[NBLK * BS], 0x5A);	/* nothing past i_size */
	for (lb = 0; lb < NBLK; lb++) {
		uint8_t want = 0;

		for (i = 0; i < NGOOD; i++)
			if (lb >= good[i].lblk && lb < good[i].lblk + good[i].len &&
			    !good[i].unwritten)
				want = (uint8_t)(good[i].off + (lb - good[i].lblk) + 1);
		for (i = 0; i < BS; i++)
			if (buf[lb * BS + i] != want)
				fail_msg("lblk %u byte %u: %u, want %u", lb, i, buf[lb * BS + i], want);
	}
	/* An unaligned read across an extent end and into a hole. */
	assert_int_equal(e4_file_pread(f, 2 * BS + 100, buf, BS + 10, &got), 0);
	assert_int_equal(got, BS + 10);
	assert_int_equal(buf[0], 3);
	assert_int_equal(buf[BS - 100], 0);
	/* At and past the end. */
	assert_int_equal(e4_file_pread(f, NBLK * BS - 1, buf, 10, &got), 0);
	assert_int_equal(got, 1);
	assert_int_equal(e4_file_pread(f, NBLK * BS, buf, 10, &got), 0);
	assert_int_equal(got, 0);
	e4_file_close(f);
	e4_close(fs);
}

static errcode_t count_reads(void *priv, uint64_t offset, size_t len)
{
	(void)offset;
	(void)len;
	++*(unsigned *)priv;
	return 0;
}

/* A read inside one run is one device read, its partial first and last
 * blocks included (rdump reads 100,000 small files: two reads each for a
 * file with a partial last block cost a tenth of its time); a dirty cached
 * block overlays the bytes of an unaligned uncached read. */
static void run_read_calls(void **state)
{
	uint8_t buf[4 * BS], blk[BS];
	unsigned reads = 0, i;
	size_t got;
	e4_file *f;
	e4_fs *fs;

	(void)state;
	if (!have_image || !p0)
		skip();
	graft(NULL, 0);
	fs = open_img(0);
	assert_int_equal(e4_file_open(fs, INO, NULL, &f), 0);
	/* the leaf block comes into the cache with a first read */
	assert_int_equal(e4_file_pread(f, 10 * BS, buf, 1, &got), 0);
	e4_io_set_read_hook(e4_fs_io(fs), count_reads, &reads);
	/* lblk 10..13 map to p0 + 20..23, block k holding bytes k + 1 */
	assert_int_equal(e4_file_pread(f, 10 * BS + 100, buf, 3 * BS + 10, &got), 0);
	assert_int_equal(got, 3 * BS + 10);
	assert_int_equal(reads, 1);
	for (i = 0; i < got; i++)
		if (buf[i] != 21 + (100 + i) / BS)
			fail_msg("byte %u: %u, want %u", i, buf[i], 21 + (100 + i) / BS);
	e4_file_close(f);
	e4_close(fs);

	fs = open_img(E4_OPEN_RW);
	memset(blk, 0xEE, sizeof(blk));
	assert_int_equal(e4_io_write_blk(e4_fs_io(fs), p0 + 21, 1, blk), 0);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(e4_io_read_nocache(e4_fs_io(fs), (p0 + 20) * BS + 1000, buf,
					    2 * BS), 0);
	for (i = 0; i < 2 * BS; i++) {
		unsigned want = 1000 + i < BS ? 21 : 1000 + i < 2 * BS ? 0xEE : 23;

		if (buf[i] != want)
			fail_msg("overlay byte %u: %u, want %u", i, buf[i], want);
	}
	e4_io_discard(e4_fs_io(fs));
	e4_close(fs);
}

/* e4_file_locate: runs as device bytes, holes and unwritten extents as
 * zeros, lengths cut at the run and at i_size. */
static void locate(void **state)
{
	uint64_t dev, len;
	e4_file *f;
	e4_fs *fs;

	(void)state;
	if (!have_image || !p0)
		skip();
	graft(NULL, 0);
	fs = open_img(0);
	assert_int_equal(e4_file_open(fs, INO, NULL, &f), 0);
	/* lblk 0..2 at p0: from byte 100 */
	assert_int_equal(e4_file_locate(f, 100, &dev, &len), 0);
	assert_true(dev == p0 * BS + 100 && len == 3 * BS - 100);
	/* lblk 3..4: a hole up to lblk 5 */
	assert_int_equal(e4_file_locate(f, 3 * BS + 1, &dev, &len), 0);
	assert_true(dev == 0 && len == 2 * BS - 1);
	/* lblk 5..6: unwritten, zeros */
	assert_int_equal(e4_file_locate(f, 5 * BS, &dev, &len), 0);
	assert_true(dev == 0 && len == 2 * BS);
	/* lblk 30..31 at p0 + 31, then the hole to i_size (NBLK blocks) */
	assert_int_equal(e4_file_locate(f, 31 * BS + 5, &dev, &len), 0);
	assert_true(dev == (p0 + 32) * BS + 5 && len == BS - 5);
	assert_int_equal(e4_file_locate(f, 32 * BS, &dev, &len), 0);
	assert_true(dev == 0 && len == (NBLK - 32) * BS);
	assert_int_equal(e4_file_locate(f, NBLK * BS, &dev, &len), 0);
	assert_true(len == 0);
	e4_file_close(f);
	e4_close(fs);
}

/* ---- corruptions ---- */
static struct ext4_extent_header *leaf_hdr(uint8_t *leaf)
{
	return (struct ext4_extent_header *)leaf;
}

static struct ext4_extent *leaf_ext(uint8_t *leaf, int i)
{
	return (struct ext4_extent *)(leaf + 12) + i;
}

static struct ext4_extent_header *root_hdr(union e4_inode_buf *ib)
{
	return (struct ext4_extent_header *)ib->inode.i_block;
}

static void m_leaf_magic(union e4_inode_buf *ib, uint8_t *leaf)
{
	(void)ib;
	leaf_hdr(leaf)->eh_magic = e4_cpu_to_le16(0xF30B);
}

static void m_leaf_max(union e4_inode_buf *ib, uint8_t *leaf)
{
	(void)ib;
	leaf_hdr(leaf)->eh_max = e4_cpu_to_le16(LEAF_MAX + 1);
}

static void m_leaf_entries(union e4_inode_buf *ib, uint8_t *leaf)
{
	(void)ib;
	leaf_hdr(leaf)->eh_max = e4_cpu_to_le16(5);	/* < eh_entries (6) */
}

static void m_leaf_depth(union e4_inode_buf *ib, uint8_t *leaf)
{
	(void)ib;
	leaf_hdr(leaf)->eh_depth = e4_cpu_to_le16(1);
}

static void m_leaf_order(union e4_inode_buf *ib, uint8_t *leaf)
{
	(void)ib;
	leaf_ext(leaf, 3)->ee_block = e4_cpu_to_le32(9);	/* before lblk 10 */
}

static void m_leaf_overlap(union e4_inode_buf *ib, uint8_t *leaf)
{
	(void)ib;
	leaf_ext(leaf, 0)->ee_len = e4_cpu_to_le16(6);		/* 0..5 meets 5 */
}

static void m_leaf_zero_len(union e4_inode_buf *ib, uint8_t *leaf)
{
	(void)ib;
	leaf_ext(leaf, 2)->ee_len = 0;
}

static void m_ext_outside(union e4_inode_buf *ib, uint8_t *leaf)
{
	(void)ib;
	leaf_ext(leaf, 4)->ee_start_hi = e4_cpu_to_le16(7);
}

static void m_index_outside(union e4_inode_buf *ib, uint8_t *leaf)
{
	struct ext4_extent_idx *ix = (struct ext4_extent_idx *)(root_hdr(ib) + 1);

	(void)leaf;
	ix->ei_leaf_hi = e4_cpu_to_le16(1);
}

static void m_index_after_leaf(union e4_inode_buf *ib, uint8_t *leaf)
{
	struct ext4_extent_idx *ix = (struct ext4_extent_idx *)(root_hdr(ib) + 1);

	(void)leaf;
	ix->ei_block = e4_cpu_to_le32(1);	/* leaf starts at 0 < 1 */
}

static void m_root_deep(union e4_inode_buf *ib, uint8_t *leaf)
{
	(void)leaf;
	root_hdr(ib)->eh_depth = e4_cpu_to_le16(EXT4_MAX_EXTENT_DEPTH + 1);
}

static void m_root_max(union e4_inode_buf *ib, uint8_t *leaf)
{
	(void)leaf;
	root_hdr(ib)->eh_max = e4_cpu_to_le16(5);
}

static void m_root_empty_index(union e4_inode_buf *ib, uint8_t *leaf)
{
	(void)leaf;
	root_hdr(ib)->eh_entries = 0;
}

static void m_csum(union e4_inode_buf *ib, uint8_t *leaf)
{
	(void)ib;
	leaf_ext(leaf, 5)->ee_block = e4_cpu_to_le32(200);	/* after the csum */
}

struct bad {
	const char *name;
	mutator mut;
	int keep_bad_csum;
	errcode_t want;
	int lookup_lblk;	/* a lookup expected to fail */
	int ok_lblk;		/* -1, or a lookup still expected to work */
};

static const struct bad bads[] = {
	{ "leaf magic", m_leaf_magic, 0, E4_ERR_EXTENT_HEADER, 0, -1 },
	{ "leaf eh_max", m_leaf_max, 0, E4_ERR_EXTENT_HEADER, 0, -1 },
	{ "leaf entries", m_leaf_entries, 0, E4_ERR_EXTENT_HEADER, 0, -1 },
	{ "leaf depth", m_leaf_depth, 0, E4_ERR_EXTENT_HEADER, 0, -1 },
	{ "leaf order", m_leaf_order, 0, E4_ERR_EXTENT_ORDER, 0, -1 },
	{ "leaf overlap", m_leaf_overlap, 0, E4_ERR_EXTENT_ORDER, 0, -1 },
	{ "zero length", m_leaf_zero_len, 0, E4_ERR_EXTENT_ZERO_LEN, 0, -1 },
	{ "extent outside", m_ext_outside, 0, E4_ERR_BAD_BLOCK_NUM, 31, 10 },
	{ "index outside", m_index_outside, 0, E4_ERR_BAD_BLOCK_NUM, 0, -1 },
	{ "index after leaf", m_index_after_leaf, 0, E4_ERR_EXTENT_ORDER, 2, -1 },
	{ "root too deep", m_root_deep, 0, E4_ERR_EXTENT_TOO_DEEP, 0, -1 },
	{ "root eh_max", m_root_max, 0, E4_ERR_EXTENT_HEADER, 0, -1 },
	{ "root empty index", m_root_empty_index, 0, E4_ERR_EXTENT_HEADER, 0, -1 },
	{ "leaf checksum", m_csum, 1, E4_ERR_EXTENT_CSUM, 0, -1 },
};

static int nothing(e4_fs *fs, const struct e4_map_extent *e, void *priv)
{
	(void)fs;
	(void)e;
	(void)priv;
	return 0;
}

static void corruptions(void **state)
{
	uint8_t buf[NBLK * BS];
	e4_blk_t p;
	uint32_t len;
	unsigned fl, i;
	size_t got;
	e4_file *f;
	e4_fs *fs;

	(void)state;
	if (!have_image || !p0)
		skip();
	for (i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		const struct bad *b = &bads[i];
		errcode_t err;

		graft(b->mut, b->keep_bad_csum);
		fs = open_img(0);
		err = e4_bmap(fs, INO, NULL, b->lookup_lblk, &p, &len, &fl);
		if (err != b->want)
			fail_msg("%s: bmap gave %ld, want %ld", b->name, (long)err, (long)b->want);
		if (b->ok_lblk >= 0)
			assert_int_equal(e4_bmap(fs, INO, NULL, b->ok_lblk, &p, &len, &fl), 0);
		err = e4_map_iterate(fs, INO, NULL, E4_ITER_META, nothing, NULL);
		if (err != b->want)
			fail_msg("%s: walk gave %ld, want %ld", b->name, (long)err, (long)b->want);
		assert_int_equal(e4_file_open(fs, INO, NULL, &f), 0);
		memset(buf, 0, sizeof(buf));
		err = e4_file_pread(f, 0, buf, sizeof(buf), &got);
		if (err != b->want)
			fail_msg("%s: read gave %ld, want %ld", b->name, (long)err, (long)b->want);
		assert_true(got < sizeof(buf));
		e4_file_close(f);
		e4_close(fs);
		if (b->keep_bad_csum) {
			fs = open_img(E4_OPEN_IGNORE_CSUM);
			assert_int_equal(e4_bmap(fs, INO, NULL, 0, &p, &len, &fl), 0);
			assert_true(p == p0);
			assert_int_equal(e4_map_iterate(fs, INO, NULL, 0, nothing, NULL), 0);
			e4_close(fs);
		}
	}
}

/* ---- E4_ITER_AS_STORED: every block number, past the damage ---- */
struct stored {
	const char *name;
	mutator mut;
	int keep_bad_csum;
	errcode_t want;
	int data;		/* data extents reported */
	int wild;		/* of which (or the leaf) outside the filesystem */
};

static const struct stored storeds[] = {
	{ "intact", NULL, 0, 0, NGOOD, 0 },
	{ "leaf order", m_leaf_order, 0, E4_ERR_EXTENT_ORDER, NGOOD, 0 },
	{ "leaf overlap", m_leaf_overlap, 0, E4_ERR_EXTENT_ORDER, NGOOD, 0 },
	{ "zero length", m_leaf_zero_len, 0, E4_ERR_EXTENT_ZERO_LEN, NGOOD - 1, 0 },
	{ "extent outside", m_ext_outside, 0, E4_ERR_BAD_BLOCK_NUM, NGOOD, 1 },
	{ "index after leaf", m_index_after_leaf, 0, E4_ERR_EXTENT_ORDER, NGOOD, 0 },
	/* a leaf that cannot be used: reported, not walked */
	{ "index outside", m_index_outside, 0, E4_ERR_BAD_BLOCK_NUM, 0, 1 },
	{ "leaf magic", m_leaf_magic, 0, E4_ERR_EXTENT_HEADER, 0, 0 },
	{ "leaf checksum", m_csum, 1, E4_ERR_EXTENT_CSUM, 0, 0 },
	/* a root that cannot be used: nothing */
	{ "root too deep", m_root_deep, 0, E4_ERR_EXTENT_TOO_DEEP, -1, 0 },
};

static void as_stored(void **state)
{
	struct seen s;
	errcode_t err;
	e4_fs *fs;
	unsigned i;
	int k, data, wild, meta;

	(void)state;
	if (!have_image || !p0)
		skip();
	for (i = 0; i < sizeof(storeds) / sizeof(storeds[0]); i++) {
		const struct stored *b = &storeds[i];

		graft(b->mut, b->keep_bad_csum);
		fs = open_img(0);
		memset(&s, 0, sizeof(s));
		err = e4_map_iterate(fs, INO, NULL, E4_ITER_META | E4_ITER_AS_STORED, collect, &s);
		if (err != b->want)
			fail_msg("%s: walk gave %ld, want %ld", b->name, (long)err, (long)b->want);
		data = wild = meta = 0;
		for (k = 0; k < s.n && k < 16; k++) {
			if (s.e[k].flags & E4_MAP_META)
				meta++;
			else
				data++;
			if (s.e[k].pblk >= e4_geom(fs)->blocks_count)
				wild++;
		}
		/* the leaf is reported whenever the root could be used */
		if (meta != (b->data < 0 ? 0 : 1) || data != (b->data < 0 ? 0 : b->data) ||
		    wild != b->wild)
			fail_msg("%s: %d leaf, %d data, %d outside; want %d, %d, %d", b->name, meta,
				 data, wild, b->data >= 0, b->data < 0 ? 0 : b->data, b->wild);
		/* without the flag the walk stops at the damage, as before */
		if (b->want)
			assert_int_equal(e4_map_iterate(fs, INO, NULL, E4_ITER_META, nothing, NULL),
					 b->want);
		/* E4_ITER_NOCSUM: a leaf failing only its checksum is walked
		 * (every data extent, no error) */
		if (b->mut == m_csum) {
			memset(&s, 0, sizeof(s));
			assert_int_equal(e4_map_iterate(fs, INO, NULL, E4_ITER_META |
							E4_ITER_NOCSUM, collect, &s), 0);
			assert_int_equal(s.n, 1 + NGOOD);
		}
		e4_close(fs);
	}
}

/* An indirect map with a data block and the single indirect block
 * outside the filesystem: as stored, both are reported and the good
 * blocks between them too. */
static void as_stored_blockmap(void **state)
{
	union e4_inode_buf ib;
	struct seen s;
	uint32_t wild;
	e4_fs *fs;

	(void)state;
	if (!have_image || !p0)
		skip();
	fs = open_img(E4_OPEN_IGNORE_CSUM);
	assert_int_equal(e4_inode_read(fs, INO, &ib), 0);
	wild = (uint32_t)e4_geom(fs)->blocks_count + 5;
	e4_close(fs);
	ib.inode.i_flags &= ~e4_cpu_to_le32(EXT4_EXTENTS_FL);
	memset(ib.inode.i_block, 0, sizeof(ib.inode.i_block));
	ib.inode.i_block[0] = e4_cpu_to_le32(wild);
	ib.inode.i_block[1] = e4_cpu_to_le32((uint32_t)p0);
	ib.inode.i_block[2] = e4_cpu_to_le32((uint32_t)p0 + 1);
	ib.inode.i_block[EXT4_IND_BLOCK] = e4_cpu_to_le32(wild + 1);
	put_inode(&ib);

	fs = open_img(0);
	memset(&s, 0, sizeof(s));
	assert_int_equal(e4_map_iterate(fs, INO, NULL, E4_ITER_META | E4_ITER_AS_STORED, collect,
					&s), E4_ERR_BAD_BLOCK_NUM);
	assert_int_equal(s.n, 3);
	assert_true(s.e[0].lblk == 0 && s.e[0].pblk == wild && s.e[0].len == 1);
	assert_true(s.e[1].lblk == 1 && s.e[1].pblk == p0 && s.e[1].len == 2);
	assert_true(s.e[2].flags == E4_MAP_META && s.e[2].pblk == wild + 1);
	/* without the flag: the first damage ends the walk */
	memset(&s, 0, sizeof(s));
	assert_int_equal(e4_map_iterate(fs, INO, NULL, E4_ITER_META, collect, &s),
			 E4_ERR_BAD_BLOCK_NUM);
	assert_int_equal(s.n, 0);
	e4_close(fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(original_file),
		cmocka_unit_test(depth1_lookup),
		cmocka_unit_test(depth1_walk),
		cmocka_unit_test(depth1_read),
		cmocka_unit_test(run_read_calls),
		cmocka_unit_test(locate),
		cmocka_unit_test(corruptions),
		cmocka_unit_test(as_stored),
		cmocka_unit_test(as_stored_blockmap),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
