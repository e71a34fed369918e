/*
 * Unit tests for jbd2 recovery (recovery.c; format doc section 12).
 *
 * Each test builds a small ext4 image in a temporary file byte by byte
 * (1 KiB blocks, one group, journal inode 8 mapped by one extent), writes
 * a hand-made log into its journal, runs e4_journal_recover() and checks
 * which logged blocks reached the filesystem and what the journal and
 * filesystem superblocks say afterwards (the rows of section 12.6).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "e4.h"

#define BS		1024
#define FS_BLOCKS	4096
#define JFS		512		/* fs block of journal block 0 */
#define JLEN		1100		/* journal blocks (s_maxlen) */
#define TGT		3000		/* first fs block used as a replay target */
#define BASE_FILL	0xEE		/* contents of never-replayed targets */
#define NOT_REPLAYED	0xEEEEEEEEu
#define ESC_TARGET	(TGT + 50)	/* logged data starts with the jbd2 magic */

/* Features of the journal under test. */
#define J_V1		0x0001		/* compat CHECKSUM */
#define J_V2		0x0002
#define J_V3		0x0004
#define J_64		0x0008
#define J_ASYNC		0x0010
#define J_FC		0x0020
#define J_REVOKE	0x0040

/* Damage options for the writers. */
#define W_BAD_CSUM	0x0001		/* descriptor/revoke tail, commit checksum */
#define W_BAD_TAG0	0x0002		/* first tag's checksum */
#define W_BAD_RCOUNT	0x0004		/* revoke r_count past the block */
#define W_NO_COMMIT	0x0008

struct img {
	char path[64];
	int fd;
	unsigned jf;			/* J_* */
	uint32_t first, last;		/* log area */
	uint8_t uuid[16];
	uint32_t seed;
	uint32_t pos;			/* next journal block to write */
	uint32_t crc;			/* v1 running checksum */
};

static void put_be16(uint8_t *p, uint16_t v) { p[0] = v >> 8; p[1] = (uint8_t)v; }
static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24; p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static void put_be64(uint8_t *p, uint64_t v) { put_be32(p, v >> 32); put_be32(p + 4, (uint32_t)v); }
static uint32_t get_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static void write_fs_block(struct img *im, uint64_t blk, const void *buf)
{
	assert_int_equal(pwrite(im->fd, buf, BS, (off_t)(blk * BS)), BS);
}

static void read_fs_block(struct img *im, uint64_t blk, void *buf)
{
	assert_int_equal(pread(im->fd, buf, BS, (off_t)(blk * BS)), BS);
}

static void write_jblock(struct img *im, uint32_t jblk, const void *buf)
{
	assert_true(jblk < JLEN);
	write_fs_block(im, JFS + jblk, buf);
}

/* With metadata_csum, give inode 8 and the descriptor their checksums so
 * that the reference tools accept the image too. */
static void fix_csums(struct img *im)
{
	uint8_t blk[BS];
	e4_fs *fs;
	union e4_inode_buf ib;
	uint32_t c;

	assert_int_equal(e4_open(im->path, E4_OPEN_IGNORE_CSUM, 0, 0, &fs), 0);
	read_fs_block(im, 5, blk);
	memcpy(ib.raw, blk + 7 * 128, 128);
	c = e4_inode_csum(fs, EXT4_JOURNAL_INO, &ib.inode);
	ib.inode.l_i_checksum_lo = e4_cpu_to_le16((uint16_t)c);
	memcpy(blk + 7 * 128, ib.raw, 128);
	write_fs_block(im, 5, blk);
	read_fs_block(im, 2, blk);
	((struct ext4_group_desc *)blk)->bg_checksum = e4_cpu_to_le16(e4_group_desc_csum(fs, 0, blk));
	write_fs_block(im, 2, blk);
	e4_close(fs);
}

/* Build the filesystem: superblock, one descriptor, inode 8 with an
 * extent over the journal, target blocks filled with BASE_FILL. */
static void make_fs(struct img *im, unsigned jf, int metadata_csum)
{
	uint8_t blk[BS];
	struct ext4_super_block *sb = (struct ext4_super_block *)blk;
	struct ext4_group_desc *gd = (struct ext4_group_desc *)blk;
	union e4_inode_buf ib;
	struct ext4_inode *ino;
	struct ext4_extent_header *eh;
	struct ext4_extent *ex;

	memset(im, 0, sizeof(*im));
	strcpy(im->path, "/tmp/e4_test_recovery.XXXXXX");
	im->fd = mkstemp(im->path);
	assert_true(im->fd >= 0);
	assert_int_equal(ftruncate(im->fd, (off_t)FS_BLOCKS * BS), 0);
	im->jf = jf;
	for (int i = 0; i < 16; i++)
		im->uuid[i] = (uint8_t)(0x10 + i * 7);
	im->seed = e4_crc32c(~0U, im->uuid, 16);
	im->first = 1;
	im->last = (jf & J_FC) ? JLEN - 16 : JLEN;

	memset(blk, 0, sizeof(blk));
	sb->s_inodes_count = e4_cpu_to_le32(16);
	sb->s_blocks_count_lo = e4_cpu_to_le32(FS_BLOCKS);
	sb->s_free_blocks_count_lo = e4_cpu_to_le32(1000);
	sb->s_free_inodes_count = e4_cpu_to_le32(5);
	sb->s_first_data_block = e4_cpu_to_le32(1);
	sb->s_blocks_per_group = e4_cpu_to_le32(8192);
	sb->s_clusters_per_group = e4_cpu_to_le32(8192);
	sb->s_inodes_per_group = e4_cpu_to_le32(16);
	sb->s_mnt_count = e4_cpu_to_le16(5);
	sb->s_magic = e4_cpu_to_le16(EXT4_SUPER_MAGIC);
	sb->s_state = e4_cpu_to_le16(EXT4_VALID_FS);
	sb->s_rev_level = e4_cpu_to_le32(EXT4_DYNAMIC_REV);
	sb->s_first_ino = e4_cpu_to_le32(11);
	sb->s_inode_size = e4_cpu_to_le16(128);
	sb->s_feature_compat = e4_cpu_to_le32(EXT4_FEATURE_COMPAT_HAS_JOURNAL);
	sb->s_feature_incompat = e4_cpu_to_le32(EXT4_FEATURE_INCOMPAT_EXTENTS |
						EXT4_FEATURE_INCOMPAT_RECOVER);
	memcpy(sb->s_uuid, im->uuid, 16);
	sb->s_journal_inum = e4_cpu_to_le32(EXT4_JOURNAL_INO);
	sb->s_kbytes_written = e4_cpu_to_le64(100);
	sb->s_error_count = e4_cpu_to_le32(3);
	if (metadata_csum) {
		sb->s_feature_ro_compat = e4_cpu_to_le32(EXT4_FEATURE_RO_COMPAT_METADATA_CSUM);
		sb->s_checksum_type = 1;
		sb->s_checksum = e4_cpu_to_le32(e4_superblock_csum(sb));
	}
	write_fs_block(im, 1, blk);

	memset(blk, 0, sizeof(blk));
	gd->bg_block_bitmap_lo = e4_cpu_to_le32(3);
	gd->bg_inode_bitmap_lo = e4_cpu_to_le32(4);
	gd->bg_inode_table_lo = e4_cpu_to_le32(5);
	write_fs_block(im, 2, blk);

	/* Inode 8 is the 8th 128-byte inode: block 5 + 7 * 128 / BS. */
	memset(blk, 0, sizeof(blk));
	memset(&ib, 0, sizeof(ib));
	ino = &ib.inode;
	ino->i_mode = e4_cpu_to_le16(0100600);
	ino->i_links_count = e4_cpu_to_le16(1);
	ino->i_size_lo = e4_cpu_to_le32(JLEN * BS);
	ino->i_blocks_lo = e4_cpu_to_le32(JLEN * 2);
	ino->i_flags = e4_cpu_to_le32(EXT4_EXTENTS_FL);
	eh = (struct ext4_extent_header *)ino->i_block;
	eh->eh_magic = e4_cpu_to_le16(EXT4_EXT_MAGIC);
	eh->eh_entries = e4_cpu_to_le16(1);
	eh->eh_max = e4_cpu_to_le16(4);
	ex = (struct ext4_extent *)(eh + 1);
	ex->ee_len = e4_cpu_to_le16(JLEN);
	ex->ee_start_lo = e4_cpu_to_le32(JFS);
	memcpy(blk + 7 * 128, ib.raw, 128);
	write_fs_block(im, 5, blk);

	memset(blk, BASE_FILL, sizeof(blk));
	for (int i = 0; i < 100; i++)
		write_fs_block(im, TGT + i, blk);
	if (metadata_csum)
		fix_csums(im);
}

/* Journal superblock at journal block 0. */
static void write_jsb(struct img *im, uint32_t seq, uint32_t start, int32_t jerrno)
{
	uint8_t blk[BS];
	journal_superblock_t *jsb = (journal_superblock_t *)blk;
	uint32_t compat = 0, incompat = 0;

	memset(blk, 0, sizeof(blk));
	jsb->s_header.h_magic = e4_cpu_to_be32(JBD2_MAGIC_NUMBER);
	jsb->s_header.h_blocktype = e4_cpu_to_be32(JBD2_SUPERBLOCK_V2);
	jsb->s_blocksize = e4_cpu_to_be32(BS);
	jsb->s_maxlen = e4_cpu_to_be32(JLEN);
	jsb->s_first = e4_cpu_to_be32(im->first);
	jsb->s_sequence = e4_cpu_to_be32(seq);
	jsb->s_start = e4_cpu_to_be32(start);
	jsb->s_errno = (int32_t)e4_cpu_to_be32((uint32_t)jerrno);
	if (im->jf & J_V1)
		compat |= JBD2_FEATURE_COMPAT_CHECKSUM;
	if (im->jf & J_V2)
		incompat |= JBD2_FEATURE_INCOMPAT_CSUM_V2;
	if (im->jf & J_V3)
		incompat |= JBD2_FEATURE_INCOMPAT_CSUM_V3;
	if (im->jf & J_64)
		incompat |= JBD2_FEATURE_INCOMPAT_64BIT;
	if (im->jf & J_ASYNC)
		incompat |= JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT;
	if (im->jf & J_FC)
		incompat |= JBD2_FEATURE_INCOMPAT_FAST_COMMIT;
	if (im->jf & J_REVOKE)
		incompat |= JBD2_FEATURE_INCOMPAT_REVOKE;
	jsb->s_feature_compat = e4_cpu_to_be32(compat);
	jsb->s_feature_incompat = e4_cpu_to_be32(incompat);
	memcpy(jsb->s_uuid, im->uuid, 16);
	jsb->s_nr_users = e4_cpu_to_be32(1);
	if (im->jf & J_FC)
		jsb->s_num_fc_blks = e4_cpu_to_be32(16);
	if (im->jf & (J_V2 | J_V3)) {
		jsb->s_checksum_type = JBD2_CRC32C_CHKSUM;
		jsb->s_checksum = e4_cpu_to_be32(e4_jsb_csum(jsb));
	}
	write_jblock(im, 0, blk);
}

static uint32_t next_pos(struct img *im)
{
	uint32_t p = im->pos++;

	if (im->pos >= im->last)
		im->pos = im->first;
	return p;
}

static int v23(const struct img *im) { return (im->jf & (J_V2 | J_V3)) != 0; }

static unsigned tag_bytes(const struct img *im)
{
	if (im->jf & J_V3)
		return 16;
	return 8 + ((im->jf & J_64) ? 4 : 0) + ((im->jf & J_V2) ? 2 : 0);
}

static void set_tail(struct img *im, uint8_t *blk, int bad)
{
	uint32_t c;

	if (!v23(im))
		return;
	memset(blk + BS - 4, 0, 4);
	c = e4_crc32c(im->seed, blk, BS);
	put_be32(blk + BS - 4, bad ? c ^ 1 : c);
}

/* The fs block contents logged for target in transaction tid. */
static void make_data(uint8_t *d, uint32_t tid, uint64_t target)
{
	memset(d, (int)((tid * 7 + target) & 0xFF), BS);
	put_be32(d + 8, tid);
	put_be32(d + 12, (uint32_t)target);
	if (target == ESC_TARGET)
		put_be32(d, JBD2_MAGIC_NUMBER);
}

/* A descriptor block for n targets and their data blocks. */
static void w_desc(struct img *im, uint32_t tid, int n, const uint64_t *targets, unsigned opts)
{
	uint8_t desc[BS], data[64][BS];
	uint32_t dpos = next_pos(im);
	unsigned off = 12, tb = tag_bytes(im);

	assert_true(n <= 64);
	memset(desc, 0, sizeof(desc));
	put_be32(desc, JBD2_MAGIC_NUMBER);
	put_be32(desc + 4, JBD2_DESCRIPTOR_BLOCK);
	put_be32(desc + 8, tid);
	for (int i = 0; i < n; i++) {
		uint8_t *tag = desc + off;
		uint16_t flags = 0;
		uint32_t c = 0;

		make_data(data[i], tid, targets[i]);
		if (get_be32(data[i]) == JBD2_MAGIC_NUMBER) {
			memset(data[i], 0, 4);
			flags |= JBD2_FLAG_ESCAPE;
		}
		if (i > 0)
			flags |= JBD2_FLAG_SAME_UUID;
		if (i == n - 1)
			flags |= JBD2_FLAG_LAST_TAG;
		if (v23(im)) {
			uint8_t seq[4];

			put_be32(seq, tid);
			c = e4_crc32c(e4_crc32c(im->seed, seq, 4), data[i], BS);
			if (i == 0 && (opts & W_BAD_TAG0))
				c ^= 0x10001;
		}
		put_be32(tag, (uint32_t)targets[i]);
		if (im->jf & J_V3) {
			put_be32(tag + 4, flags);
			put_be32(tag + 8, (im->jf & J_64) ? (uint32_t)(targets[i] >> 32) : 0);
			put_be32(tag + 12, c);
		} else {
			put_be16(tag + 4, (uint16_t)c);
			put_be16(tag + 6, flags);
			if (im->jf & J_64)
				put_be32(tag + 8, (uint32_t)(targets[i] >> 32));
		}
		off += tb;
		if (!(flags & JBD2_FLAG_SAME_UUID))
			off += 16;
		assert_true(off + (v23(im) ? 4 : 0) <= BS);
	}
	set_tail(im, desc, opts & W_BAD_CSUM);
	write_jblock(im, dpos, desc);
	im->crc = e4_crc32_be(im->crc, desc, BS);
	for (int i = 0; i < n; i++) {
		write_jblock(im, next_pos(im), data[i]);
		im->crc = e4_crc32_be(im->crc, data[i], BS);
	}
}

static void w_revoke(struct img *im, uint32_t tid, int n, const uint64_t *blocks, unsigned opts)
{
	uint8_t blk[BS];
	unsigned rlen = (im->jf & J_64) ? 8 : 4, off = 16;

	memset(blk, 0, sizeof(blk));
	put_be32(blk, JBD2_MAGIC_NUMBER);
	put_be32(blk + 4, JBD2_REVOKE_BLOCK);
	put_be32(blk + 8, tid);
	for (int i = 0; i < n; i++, off += rlen) {
		if (rlen == 8)
			put_be64(blk + off, blocks[i]);
		else
			put_be32(blk + off, (uint32_t)blocks[i]);
	}
	put_be32(blk + 12, (opts & W_BAD_RCOUNT) ? BS + 8 : off);
	set_tail(im, blk, opts & W_BAD_CSUM);
	write_jblock(im, next_pos(im), blk);
}

static void w_commit(struct img *im, uint32_t tid, uint64_t sec, unsigned opts)
{
	uint8_t blk[BS];

	memset(blk, 0, sizeof(blk));
	put_be32(blk, JBD2_MAGIC_NUMBER);
	put_be32(blk + 4, JBD2_COMMIT_BLOCK);
	put_be32(blk + 8, tid);
	put_be64(blk + 0x30, sec);
	put_be32(blk + 0x38, 1234);
	if (im->jf & J_V1) {
		blk[0x0C] = JBD2_CRC32_CHKSUM;
		blk[0x0D] = JBD2_CRC32_CHKSUM_SIZE;
		put_be32(blk + 0x10, (opts & W_BAD_CSUM) ? im->crc ^ 1 : im->crc);
	} else if (v23(im)) {
		uint32_t c = e4_crc32c(im->seed, blk, BS);

		put_be32(blk + 0x10, (opts & W_BAD_CSUM) ? c ^ 1 : c);
	}
	im->crc = ~0U;
	write_jblock(im, next_pos(im), blk);
}

/* One whole transaction: [revoke] descriptor + data, commit. */
static void w_txn(struct img *im, uint32_t tid, uint64_t sec, int n, const uint64_t *targets,
		  int nrev, const uint64_t *revoked, unsigned opts)
{
	if (nrev)
		w_revoke(im, tid, nrev, revoked, 0);
	if (n)
		w_desc(im, tid, n, targets, opts & (W_BAD_TAG0));
	if (!(opts & W_NO_COMMIT))
		w_commit(im, tid, sec, opts & W_BAD_CSUM);
}

static void begin_log(struct img *im, uint32_t start)
{
	im->pos = start;
	im->crc = ~0U;
}

/* The tid stored in fs block blk (NOT_REPLAYED if untouched). */
static uint32_t blk_tid(struct img *im, uint64_t blk)
{
	uint8_t b[BS];

	read_fs_block(im, blk, b);
	return get_be32(b + 8);
}

/* Run full recovery and return its result and error. */
static errcode_t recover(struct img *im, struct e4_jrecover_result *res)
{
	e4_fs *fs;
	e4_journal *j;
	errcode_t err;

	assert_int_equal(e4_open(im->path, E4_OPEN_RW, 0, 0, &fs), 0);
	assert_int_equal(e4_journal_open(fs, NULL, &j), 0);
	err = e4_journal_recover(fs, j, NULL, NULL, res);
	e4_journal_close(j);
	assert_int_equal(e4_close(fs), 0);
	return err;
}

struct after {
	uint32_t seq, start;
	int32_t jerrno;
	uint16_t state;
	uint32_t incompat;
	uint32_t error_count;
	uint16_t mnt_count;
	uint64_t kbytes;
};

/* The journal and fs superblocks after recovery, read through libe4
 * (which also proves the image still opens: checksums are right). */
static void after(struct img *im, struct after *a)
{
	e4_fs *fs;
	e4_journal *j;
	const journal_superblock_t *jsb;
	struct ext4_super_block *sb;

	assert_int_equal(e4_open(im->path, 0, 0, 0, &fs), 0);
	assert_int_equal(e4_journal_open(fs, NULL, &j), 0);
	jsb = e4_journal_super(j);
	sb = e4_super(fs);
	a->seq = e4_be32(jsb->s_sequence);
	a->start = e4_be32(jsb->s_start);
	a->jerrno = (int32_t)e4_be32((uint32_t)jsb->s_errno);
	a->state = e4_le16(sb->s_state);
	a->incompat = e4_le32(sb->s_feature_incompat);
	a->error_count = e4_le32(sb->s_error_count);
	a->mnt_count = e4_le16(sb->s_mnt_count);
	a->kbytes = e4_le64(sb->s_kbytes_written);
	e4_journal_close(j);
	e4_close(fs);
}

static void cleanup(struct img *im)
{
	close(im->fd);
	unlink(im->path);
}

/* Common expectations for a clean recovery ending at end_tid. */
static void expect_clean(struct img *im, uint32_t end_tid)
{
	struct after a;

	after(im, &a);
	assert_int_equal(a.seq, end_tid + 1);
	assert_int_equal(a.start, 0);
	assert_int_equal(a.jerrno, 0);
	assert_false(a.incompat & EXT4_FEATURE_INCOMPAT_RECOVER);
	assert_int_equal(a.state & (EXT4_VALID_FS | EXT4_ERROR_FS), EXT4_VALID_FS);
}

static const uint64_t T3[] = { TGT + 1, TGT + 2, TGT + 3 };

/* ---- tests ----------------------------------------------------------- */

static void revoke_table(void **state)
{
	e4_revoke_table *t;
	uint32_t tid;

	(void)state;
	assert_int_equal(e4_revoke_table_create(&t), 0);
	assert_int_equal(e4_revoke_table_set(t, 100, 5), 0);
	/* Own and earlier transactions are covered, later ones are not. */
	assert_true(e4_revoke_table_test(t, 100, 5));
	assert_true(e4_revoke_table_test(t, 100, 4));
	assert_false(e4_revoke_table_test(t, 100, 6));
	assert_false(e4_revoke_table_test(t, 101, 1));
	/* The latest revoking tid is kept, modulo 2^32. */
	assert_int_equal(e4_revoke_table_set(t, 100, 3), 0);
	assert_true(e4_revoke_table_lookup(t, 100, &tid));
	assert_int_equal(tid, 5);
	assert_int_equal(e4_revoke_table_set(t, 200, 0xFFFFFFFFu), 0);
	assert_int_equal(e4_revoke_table_set(t, 200, 1), 0);
	assert_true(e4_revoke_table_lookup(t, 200, &tid));
	assert_int_equal(tid, 1);
	assert_true(e4_revoke_table_test(t, 200, 0xFFFFFFFEu));
	/* Growth keeps every entry. */
	for (uint64_t b = 0; b < 100000; b++)
		assert_int_equal(e4_revoke_table_set(t, (b << 20) | 7, (uint32_t)b), 0);
	for (uint64_t b = 0; b < 100000; b += 997) {
		assert_true(e4_revoke_table_lookup(t, (b << 20) | 7, &tid));
		assert_int_equal(tid, (uint32_t)b);
	}
	assert_int_equal(e4_revoke_table_count(t), 100002);
	e4_revoke_table_free(t);
}

/* Plain journal (no checksums): two transactions, later overwrites
 * earlier, ESCAPE restored. */
static void replay_plain(void **state)
{
	struct img im;
	struct e4_jrecover_result r;
	const uint64_t t2[] = { TGT + 2, ESC_TARGET };
	uint8_t b[BS];

	(void)state;
	make_fs(&im, 0, 0);
	begin_log(&im, 1);
	w_txn(&im, 10, 1000, 3, T3, 0, NULL, 0);
	w_txn(&im, 11, 1001, 2, t2, 0, NULL, 0);
	write_jsb(&im, 10, 1, 0);
	assert_int_equal(recover(&im, &r), 0);
	assert_int_equal(r.replay.scan.outcome, E4_JSCAN_END);
	assert_int_equal(r.replay.scan.end_tid, 12);
	assert_int_equal(r.replay.replayed, 5);
	assert_int_equal(blk_tid(&im, TGT + 1), 10);
	assert_int_equal(blk_tid(&im, TGT + 2), 11);
	assert_int_equal(blk_tid(&im, TGT + 3), 10);
	assert_int_equal(blk_tid(&im, ESC_TARGET), 11);
	read_fs_block(&im, ESC_TARGET, b);
	assert_int_equal(get_be32(b), JBD2_MAGIC_NUMBER);
	assert_int_equal(blk_tid(&im, TGT + 4), NOT_REPLAYED);
	assert_int_equal(r.new_sequence, 13);
	expect_clean(&im, 12);
	cleanup(&im);
}

/* v1: crc32_be commit checksums; the last commit bad fails it. */
static void replay_v1(void **state)
{
	struct img im;
	struct e4_jrecover_result r;
	struct after a;

	(void)state;
	make_fs(&im, J_V1, 0);
	begin_log(&im, 1);
	w_txn(&im, 5, 1000, 3, T3, 0, NULL, 0);
	w_txn(&im, 6, 1001, 1, T3 + 1, 0, NULL, 0);
	write_jsb(&im, 5, 1, 0);
	assert_int_equal(recover(&im, &r), 0);
	assert_int_equal(r.replay.scan.outcome, E4_JSCAN_END);
	assert_int_equal(blk_tid(&im, TGT + 1), 5);
	assert_int_equal(blk_tid(&im, TGT + 2), 6);
	expect_clean(&im, 7);
	cleanup(&im);

	/* Last commit bad, no async: transaction 6 corrupt (section 12.6). */
	make_fs(&im, J_V1, 0);
	begin_log(&im, 1);
	w_txn(&im, 5, 1000, 3, T3, 0, NULL, 0);
	w_txn(&im, 6, 1001, 1, T3 + 1, 0, NULL, W_BAD_CSUM);
	write_jsb(&im, 5, 1, 0);
	assert_int_equal(recover(&im, &r), 0);
	assert_int_equal(r.replay.scan.outcome, E4_JSCAN_FAILED_COMMIT);
	assert_int_equal(r.replay.scan.failed_tid, 6);
	assert_true(r.errno_carried);
	assert_int_equal(blk_tid(&im, TGT + 2), 5);
	after(&im, &a);
	assert_int_equal(a.seq, 7);
	assert_int_equal(a.start, 0);
	assert_int_equal(a.jerrno, 0);
	assert_true(a.state & EXT4_ERROR_FS);
	assert_true(a.state & EXT4_VALID_FS);
	cleanup(&im);
}

static void v1_async(void **state)
{
	struct img im;
	struct e4_jrecover_result r;

	(void)state;
	/* Middle commit bad with ASYNC, v1: a later commit exists, so the
	 * transaction is reported corrupt. */
	make_fs(&im, J_V1 | J_ASYNC, 0);
	begin_log(&im, 1);
	w_txn(&im, 5, 1000, 1, T3, 0, NULL, 0);
	w_txn(&im, 6, 1001, 1, T3 + 1, 0, NULL, W_BAD_CSUM);
	w_txn(&im, 7, 1002, 1, T3 + 2, 0, NULL, 0);
	write_jsb(&im, 5, 1, 0);
	assert_int_equal(recover(&im, &r), 0);
	assert_int_equal(r.replay.scan.outcome, E4_JSCAN_FAILED_COMMIT);
	assert_int_equal(r.replay.scan.failed_tid, 6);
	assert_int_equal(r.replay.scan.end_tid, 6);
	assert_int_equal(blk_tid(&im, TGT + 1), 5);
	assert_int_equal(blk_tid(&im, TGT + 2), NOT_REPLAYED);
	assert_int_equal(blk_tid(&im, TGT + 3), NOT_REPLAYED);
	assert_true(r.errno_carried);
	assert_int_equal(r.new_sequence, 7);
	cleanup(&im);

	/* Last commit bad with ASYNC, v1: silently stops before it. */
	make_fs(&im, J_V1 | J_ASYNC, 0);
	begin_log(&im, 1);
	w_txn(&im, 5, 1000, 1, T3, 0, NULL, 0);
	w_txn(&im, 6, 1001, 1, T3 + 1, 0, NULL, W_BAD_CSUM);
	write_jsb(&im, 5, 1, 0);
	assert_int_equal(recover(&im, &r), 0);
	assert_int_equal(r.replay.scan.outcome, E4_JSCAN_ASYNC_END);
	assert_int_equal(blk_tid(&im, TGT + 1), 5);
	assert_int_equal(blk_tid(&im, TGT + 2), NOT_REPLAYED);
	assert_false(r.errno_carried);
	expect_clean(&im, 6);
	cleanup(&im);
}

/* v2 (16-bit tag checksums, 10-byte tags) and v3 (16-byte tags). */
static void replay_v2_v3(void **state)
{
	static const unsigned feats[] = { J_V2, J_V3, J_V2 | J_64, J_V3 | J_64 };
	const uint64_t t2[] = { TGT + 3, TGT + 4, ESC_TARGET };

	(void)state;
	for (unsigned k = 0; k < 4; k++) {
		struct img im;
		struct e4_jrecover_result r;

		make_fs(&im, feats[k] | J_REVOKE, k & 1);
		begin_log(&im, 1);
		w_txn(&im, 20, 1000, 3, T3, 0, NULL, 0);
		w_txn(&im, 21, 1001, 3, t2, 1, T3, 0);
		write_jsb(&im, 20, 1, 0);
		assert_int_equal(recover(&im, &r), 0);
		assert_int_equal(r.replay.scan.end_tid, 22);
		/* TGT+1 revoked by 21: its copy from 20 is not replayed. */
		assert_int_equal(blk_tid(&im, TGT + 1), NOT_REPLAYED);
		assert_int_equal(blk_tid(&im, TGT + 2), 20);
		assert_int_equal(blk_tid(&im, TGT + 3), 21);
		assert_int_equal(blk_tid(&im, TGT + 4), 21);
		assert_int_equal(blk_tid(&im, ESC_TARGET), 21);
		assert_int_equal(r.replay.replayed, 5);
		assert_int_equal(r.replay.revoked, 1);
		expect_clean(&im, 22);
		cleanup(&im);
	}
}

/* 64-bit tags: a target above 2^32 lies outside the filesystem and is
 * skipped and reported; the rest is replayed. */
static void tags_64bit(void **state)
{
	static const unsigned feats[] = { J_64, J_V3 | J_64 };
	const uint64_t t[] = { TGT + 1, ((uint64_t)1 << 32) | (TGT + 2), TGT + 3 };

	(void)state;
	for (unsigned k = 0; k < 2; k++) {
		struct img im;
		struct e4_jrecover_result r;
		struct after a;

		make_fs(&im, feats[k], 0);
		begin_log(&im, 1);
		w_txn(&im, 7, 1000, 3, t, 0, NULL, 0);
		write_jsb(&im, 7, 1, 0);
		assert_int_equal(recover(&im, &r), E4_ERR_JOURNAL_BLOCK_RANGE);
		assert_int_equal(r.replay.out_of_range, 1);
		assert_int_equal(r.replay.replayed, 2);
		assert_int_equal(blk_tid(&im, TGT + 1), 7);
		assert_int_equal(blk_tid(&im, TGT + 2), NOT_REPLAYED);
		assert_int_equal(blk_tid(&im, TGT + 3), 7);
		after(&im, &a);
		/* A failed recovery keeps s_sequence and forces a check. */
		assert_int_equal(a.seq, 7);
		assert_int_equal(a.start, 0);
		assert_false(a.state & EXT4_VALID_FS);
		assert_false(a.incompat & EXT4_FEATURE_INCOMPAT_RECOVER);
		cleanup(&im);
	}
}

/* Revokes cover their own and earlier transactions, never later ones. */
static void revoke_across(void **state)
{
	struct img im;
	struct e4_jrecover_result r;
	const uint64_t a1[] = { TGT + 1, TGT + 2, TGT + 3 };
	const uint64_t r2[] = { TGT + 1, TGT + 2 };
	const uint64_t a3[] = { TGT + 1, TGT + 4 };
	const uint64_t r3[] = { TGT + 4 };

	(void)state;
	make_fs(&im, J_REVOKE, 0);
	begin_log(&im, 1);
	w_txn(&im, 30, 1000, 3, a1, 0, NULL, 0);
	w_txn(&im, 31, 1001, 0, NULL, 2, r2, 0);
	w_txn(&im, 32, 1002, 2, a3, 1, r3, 0);
	write_jsb(&im, 30, 1, 0);
	assert_int_equal(recover(&im, &r), 0);
	assert_int_equal(blk_tid(&im, TGT + 1), 32);	/* re-logged after the revoke */
	assert_int_equal(blk_tid(&im, TGT + 2), NOT_REPLAYED);
	assert_int_equal(blk_tid(&im, TGT + 3), 30);
	assert_int_equal(blk_tid(&im, TGT + 4), NOT_REPLAYED);	/* own transaction */
	assert_int_equal(r.replay.revoked, 3);
	assert_int_equal(r.replay.revoke_records, 3);
	expect_clean(&im, 33);
	cleanup(&im);
}

/* tids 0xFFFFFFFE, 0xFFFFFFFF, 0 replay in order; s_sequence becomes 2. */
static void tid_wrap(void **state)
{
	struct img im;
	struct e4_jrecover_result r;
	const uint64_t r0[] = { TGT + 2 };

	(void)state;
	make_fs(&im, J_V3 | J_REVOKE, 0);
	begin_log(&im, 1);
	w_txn(&im, 0xFFFFFFFEu, 1000, 3, T3, 0, NULL, 0);
	w_txn(&im, 0xFFFFFFFFu, 1001, 2, T3, 0, NULL, 0);
	w_txn(&im, 0, 1002, 1, T3, 1, r0, 0);
	write_jsb(&im, 0xFFFFFFFEu, 1, 0);
	assert_int_equal(recover(&im, &r), 0);
	assert_int_equal(r.replay.scan.end_tid, 1);
	assert_int_equal(r.replay.scan.transactions, 3);
	assert_int_equal(blk_tid(&im, TGT + 1), 0);
	assert_int_equal(blk_tid(&im, TGT + 2), NOT_REPLAYED);	/* revoked by tid 0 */
	assert_int_equal(blk_tid(&im, TGT + 3), 0xFFFFFFFEu);
	assert_int_equal(r.new_sequence, 2);
	expect_clean(&im, 1);
	cleanup(&im);
}

/* A transaction spanning the end of the log wraps to s_first. */
static void log_wrap(void **state)
{
	struct img im;
	struct e4_jrecover_result r;
	const uint64_t t[] = { TGT + 1, TGT + 2, TGT + 3, TGT + 4, TGT + 5 };

	(void)state;
	make_fs(&im, J_V3, 0);
	begin_log(&im, JLEN - 3);
	w_txn(&im, 40, 1000, 5, t, 0, NULL, 0);
	w_txn(&im, 41, 1001, 1, t + 4, 0, NULL, 0);
	write_jsb(&im, 40, JLEN - 3, 0);
	/* Stale junk after the log must not matter. */
	assert_int_equal(recover(&im, &r), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(blk_tid(&im, t[i]), 40);
	assert_int_equal(blk_tid(&im, TGT + 5), 41);
	expect_clean(&im, 42);
	cleanup(&im);
}

/* Bad commit checksum, v3, without ASYNC: last and middle. */
static void bad_commit_sync(void **state)
{
	for (int middle = 0; middle < 2; middle++) {
		struct img im;
		struct e4_jrecover_result r;
		struct after a;

		(void)state;
		make_fs(&im, J_V3, 0);
		begin_log(&im, 1);
		w_txn(&im, 50, 1000, 1, T3, 0, NULL, 0);
		w_txn(&im, 51, 1001, 1, T3 + 1, 0, NULL, W_BAD_CSUM);
		if (middle)
			w_txn(&im, 52, 1002, 1, T3 + 2, 0, NULL, 0);
		write_jsb(&im, 50, 1, 0);
		assert_int_equal(recover(&im, &r), 0);
		assert_int_equal(r.replay.scan.outcome, E4_JSCAN_FAILED_COMMIT);
		assert_int_equal(r.replay.scan.failed_tid, 51);
		assert_int_equal(blk_tid(&im, TGT + 1), 50);
		assert_int_equal(blk_tid(&im, TGT + 2), NOT_REPLAYED);
		assert_int_equal(blk_tid(&im, TGT + 3), NOT_REPLAYED);
		after(&im, &a);
		assert_int_equal(a.seq, 52);
		assert_int_equal(a.start, 0);
		assert_int_equal(a.jerrno, 0);
		assert_true(a.state & EXT4_ERROR_FS);
		cleanup(&im);
	}
}

/* Middle commit bad with ASYNC, v3: silently stops before it. */
static void bad_commit_async_v3(void **state)
{
	struct img im;
	struct e4_jrecover_result r;

	(void)state;
	make_fs(&im, J_V3 | J_ASYNC, 0);
	begin_log(&im, 1);
	w_txn(&im, 60, 1000, 1, T3, 0, NULL, 0);
	w_txn(&im, 61, 1001, 1, T3 + 1, 0, NULL, W_BAD_CSUM);
	w_txn(&im, 62, 1002, 1, T3 + 2, 0, NULL, 0);
	write_jsb(&im, 60, 1, 0);
	assert_int_equal(recover(&im, &r), 0);
	assert_int_equal(r.replay.scan.outcome, E4_JSCAN_ASYNC_END);
	assert_int_equal(r.replay.scan.end_tid, 61);
	assert_int_equal(blk_tid(&im, TGT + 1), 60);
	assert_int_equal(blk_tid(&im, TGT + 2), NOT_REPLAYED);
	assert_int_equal(blk_tid(&im, TGT + 3), NOT_REPLAYED);
	expect_clean(&im, 61);
	cleanup(&im);
}

/* A bad commit older than the previous one is stale: end of log. */
static void stale_commit(void **state)
{
	struct img im;
	struct e4_jrecover_result r;

	(void)state;
	make_fs(&im, J_V3, 0);
	begin_log(&im, 1);
	w_txn(&im, 70, 1000, 1, T3, 0, NULL, 0);
	w_txn(&im, 71, 999, 1, T3 + 1, 0, NULL, W_BAD_CSUM);
	write_jsb(&im, 70, 1, 0);
	assert_int_equal(recover(&im, &r), 0);
	assert_int_equal(r.replay.scan.outcome, E4_JSCAN_STALE);
	assert_int_equal(blk_tid(&im, TGT + 1), 70);
	assert_int_equal(blk_tid(&im, TGT + 2), NOT_REPLAYED);
	expect_clean(&im, 71);
	cleanup(&im);
}

/* Bad descriptor checksum: nothing replayed when the commit is not older;
 * a stale end of log when it is. */
static void bad_descriptor(void **state)
{
	struct img im;
	struct e4_jrecover_result r;
	struct after a;

	(void)state;
	make_fs(&im, J_V3, 0);
	begin_log(&im, 1);
	w_txn(&im, 80, 1000, 1, T3, 0, NULL, 0);
	w_desc(&im, 81, 1, T3 + 1, W_BAD_CSUM);
	w_commit(&im, 81, 1001, 0);
	write_jsb(&im, 80, 1, 0);
	assert_int_equal(recover(&im, &r), E4_ERR_JOURNAL_CHECKSUM);
	assert_int_equal(r.replay.scan.outcome, E4_JSCAN_CSUM_ERROR);
	assert_int_equal(r.replay.scan.failed_tid, 81);
	assert_int_equal(r.replay.replayed, 0);
	assert_int_equal(blk_tid(&im, TGT + 1), NOT_REPLAYED);
	assert_int_equal(blk_tid(&im, TGT + 2), NOT_REPLAYED);
	after(&im, &a);
	assert_int_equal(a.seq, 80);		/* unchanged on failure */
	assert_int_equal(a.start, 0);
	assert_false(a.state & EXT4_VALID_FS);
	assert_false(a.incompat & EXT4_FEATURE_INCOMPAT_RECOVER);
	cleanup(&im);

	make_fs(&im, J_V3, 0);
	begin_log(&im, 1);
	w_txn(&im, 80, 1000, 1, T3, 0, NULL, 0);
	w_desc(&im, 81, 1, T3 + 1, W_BAD_CSUM);
	w_commit(&im, 81, 999, 0);
	write_jsb(&im, 80, 1, 0);
	assert_int_equal(recover(&im, &r), 0);
	assert_int_equal(r.replay.scan.outcome, E4_JSCAN_STALE);
	assert_int_equal(blk_tid(&im, TGT + 1), 80);
	assert_int_equal(blk_tid(&im, TGT + 2), NOT_REPLAYED);
	expect_clean(&im, 81);
	cleanup(&im);
}

/* Bad tag checksum: that block skipped, all others replayed, error. */
static void bad_tag(void **state)
{
	static const unsigned feats[] = { J_V2, J_V3 };

	(void)state;
	for (int k = 0; k < 2; k++) {
		struct img im;
		struct e4_jrecover_result r;
		struct after a;

		make_fs(&im, feats[k], 0);
		begin_log(&im, 1);
		w_txn(&im, 90, 1000, 3, T3, 0, NULL, W_BAD_TAG0);
		w_txn(&im, 91, 1001, 1, T3 + 2, 0, NULL, 0);
		write_jsb(&im, 90, 1, 0);
		assert_int_equal(recover(&im, &r), E4_ERR_JOURNAL_CHECKSUM);
		assert_int_equal(r.replay.scan.outcome, E4_JSCAN_END);
		assert_int_equal(r.replay.bad_csum, 1);
		assert_int_equal(blk_tid(&im, TGT + 1), NOT_REPLAYED);
		assert_int_equal(blk_tid(&im, TGT + 2), 90);
		assert_int_equal(blk_tid(&im, TGT + 3), 91);
		after(&im, &a);
		assert_int_equal(a.seq, 90);
		assert_int_equal(a.start, 0);
		assert_false(a.state & EXT4_VALID_FS);
		cleanup(&im);
	}
}

/* Clean journal: no replay, s_sequence + 1, flag cleared; a journal
 * s_errno becomes ERROR_FS and is cleared. */
static void empty_journal(void **state)
{
	struct img im;
	struct e4_jrecover_result r;
	struct after a;

	(void)state;
	make_fs(&im, J_V3, 0);
	write_jsb(&im, 77, 0, -5);
	assert_int_equal(recover(&im, &r), 0);
	assert_int_equal(r.replay.scan.outcome, E4_JSCAN_EMPTY);
	assert_true(r.errno_carried);
	after(&im, &a);
	assert_int_equal(a.seq, 78);
	assert_int_equal(a.start, 0);
	assert_int_equal(a.jerrno, 0);
	assert_true(a.state & EXT4_ERROR_FS);
	assert_false(a.incompat & EXT4_FEATURE_INCOMPAT_RECOVER);
	cleanup(&im);
}

/* The replay rewrites the superblock with an older copy: the error area
 * and ERROR_FS survive, the rest comes from the log; with metadata_csum
 * the checksum is right (the image reopens). */
static void superblock_replayed(void **state)
{
	struct img im;
	struct e4_jrecover_result r;
	struct after a;
	uint8_t old[BS], blk[BS];
	struct ext4_super_block *sb = (struct ext4_super_block *)old;
	uint64_t one = 1;

	(void)state;
	make_fs(&im, J_V3, 1);
	read_fs_block(&im, 1, old);
	/* The current superblock records ERROR_FS and 3 errors; the logged
	 * copy is older: 0 errors, other mount count. */
	sb->s_state = e4_cpu_to_le16(EXT4_VALID_FS | EXT4_ERROR_FS);
	sb->s_checksum = e4_cpu_to_le32(e4_superblock_csum(sb));
	write_fs_block(&im, 1, old);
	sb->s_state = e4_cpu_to_le16(EXT4_VALID_FS);
	sb->s_error_count = 0;
	sb->s_mnt_count = e4_cpu_to_le16(42);
	sb->s_checksum = e4_cpu_to_le32(e4_superblock_csum(sb));
	/* Log it by hand: descriptor + the block. */
	begin_log(&im, 1);
	memset(blk, 0, sizeof(blk));
	put_be32(blk, JBD2_MAGIC_NUMBER);
	put_be32(blk + 4, JBD2_DESCRIPTOR_BLOCK);
	put_be32(blk + 8, 3);
	put_be32(blk + 12, (uint32_t)one);
	put_be32(blk + 16, JBD2_FLAG_LAST_TAG);
	{
		uint8_t seq[4];

		put_be32(seq, 3);
		put_be32(blk + 24, e4_crc32c(e4_crc32c(im.seed, seq, 4), old, BS));
	}
	set_tail(&im, blk, 0);
	write_jblock(&im, next_pos(&im), blk);
	write_jblock(&im, next_pos(&im), old);
	w_commit(&im, 3, 1000, 0);
	write_jsb(&im, 3, 1, 0);
	assert_int_equal(recover(&im, &r), 0);
	assert_true(r.sb_replayed);
	after(&im, &a);
	assert_int_equal(a.mnt_count, 42);
	assert_int_equal(a.error_count, 3);
	assert_true(a.state & EXT4_ERROR_FS);
	assert_false(a.incompat & EXT4_FEATURE_INCOMPAT_RECOVER);
	assert_int_equal(a.kbytes, 102);
	assert_int_equal(a.seq, 5);
	cleanup(&im);
}

/* Fast commit: the log wraps at s_maxlen - 16; fast-commit records are
 * recognised, reported and left alone. */
static void fast_commit(void **state)
{
	struct img im;
	struct e4_jrecover_result r;
	uint8_t blk[BS];
	const uint64_t t[] = { TGT + 1, TGT + 2, TGT + 3, TGT + 4 };

	(void)state;
	make_fs(&im, J_V3 | J_FC, 0);
	begin_log(&im, JLEN - 16 - 2);
	w_txn(&im, 5, 1000, 4, t, 0, NULL, 0);
	/* Fast-commit area: HEAD(features 0, tid 6) then a TAIL-ish tag. */
	memset(blk, 0, sizeof(blk));
	blk[0] = 0x09; blk[2] = 8;
	blk[8] = 6;
	blk[12] = 0x08; blk[14] = 8;
	write_jblock(&im, JLEN - 16 + 1, blk);
	write_jsb(&im, 5, JLEN - 16 - 2, 0);
	assert_int_equal(recover(&im, &r), 0);
	assert_int_equal(r.replay.scan.fc_blocks, 1);
	assert_int_equal(r.replay.scan.fc_tid, 6);
	assert_true(r.fc_not_replayed);
	for (int i = 0; i < 4; i++)
		assert_int_equal(blk_tid(&im, t[i]), 5);
	expect_clean(&im, 6);
	cleanup(&im);
}

/* r_count past the block: the revoke pass fails, nothing replayed. */
static void bad_rcount(void **state)
{
	struct img im;
	struct e4_jrecover_result r;
	const uint64_t rv[] = { TGT + 9 };
	struct after a;

	(void)state;
	make_fs(&im, J_REVOKE, 0);
	begin_log(&im, 1);
	w_txn(&im, 8, 1000, 1, T3, 0, NULL, 0);
	w_revoke(&im, 9, 1, rv, W_BAD_RCOUNT);
	w_commit(&im, 9, 1001, 0);
	write_jsb(&im, 8, 1, 0);
	assert_int_equal(recover(&im, &r), E4_ERR_JOURNAL_LOG_CORRUPT);
	assert_int_equal(blk_tid(&im, TGT + 1), NOT_REPLAYED);
	after(&im, &a);
	assert_int_equal(a.seq, 8);
	assert_false(a.state & EXT4_VALID_FS);
	cleanup(&im);
}

/* A log made only of descriptors of one tid would never end: the walk is
 * bounded and the log declared corrupt. */
static void endless_log(void **state)
{
	struct img im;
	struct e4_jscan_result s;
	e4_fs *fs;
	e4_journal *j;
	uint8_t blk[BS];

	(void)state;
	make_fs(&im, 0, 0);
	memset(blk, 0, sizeof(blk));
	put_be32(blk, JBD2_MAGIC_NUMBER);
	put_be32(blk + 4, JBD2_DESCRIPTOR_BLOCK);
	put_be32(blk + 8, 4);
	put_be32(blk + 12, TGT + 1);
	put_be16(blk + 18, JBD2_FLAG_LAST_TAG);
	for (uint32_t p = 1; p < JLEN; p++)
		write_jblock(&im, p, blk);
	write_jsb(&im, 4, 1, 0);
	assert_int_equal(e4_open(im.path, 0, 0, 0, &fs), 0);
	assert_int_equal(e4_journal_open(fs, NULL, &j), 0);
	assert_int_equal(e4_journal_scan(j, 0, NULL, NULL, &s), E4_ERR_JOURNAL_LOG_CORRUPT);
	assert_int_equal(s.outcome, E4_JSCAN_CORRUPT);
	e4_journal_close(j);
	e4_close(fs);
	cleanup(&im);
}

struct counts {
	unsigned desc, tag, revoke, rec, commit, bad_tags, esc;
	uint64_t targets[16];
};

static int count_cb(const struct e4_jlog_item *it, void *priv)
{
	struct counts *c = priv;

	switch (it->kind) {
	case E4_JLOG_DESCRIPTOR: c->desc++; break;
	case E4_JLOG_TAG:
		if (c->tag < 16)
			c->targets[c->tag] = it->fs_block;
		c->tag++;
		if (it->csum == E4_JCSUM_BAD)
			c->bad_tags++;
		if (it->tag_flags & JBD2_FLAG_ESCAPE)
			c->esc++;
		break;
	case E4_JLOG_REVOKE: c->revoke++; break;
	case E4_JLOG_REVOKE_RECORD: c->rec++; break;
	case E4_JLOG_COMMIT: c->commit++; break;
	default: break;
	}
	return 0;
}

/* The scan reports every block for a logdump-style caller and does not
 * write anything. */
static void scan_items(void **state)
{
	struct img im;
	struct e4_jscan_result s;
	struct counts c;
	e4_fs *fs;
	e4_journal *j;
	const uint64_t t2[] = { ESC_TARGET, TGT + 5 };

	(void)state;
	make_fs(&im, J_V3 | J_64 | J_REVOKE, 0);
	begin_log(&im, 1);
	w_txn(&im, 100, 1000, 3, T3, 0, NULL, W_BAD_TAG0);
	w_txn(&im, 101, 1001, 2, t2, 2, T3, 0);
	write_jsb(&im, 100, 1, 0);
	memset(&c, 0, sizeof(c));
	assert_int_equal(e4_open(im.path, 0, 0, 0, &fs), 0);
	assert_int_equal(e4_journal_open(fs, NULL, &j), 0);
	assert_int_equal(e4_journal_scan(j, E4_JSCAN_VERIFY_TAGS, count_cb, &c, &s), 0);
	assert_int_equal(s.outcome, E4_JSCAN_END);
	assert_int_equal(s.end_tid, 102);
	assert_int_equal(s.end_block, 11);
	assert_false(s.end_magic);
	assert_int_equal(c.desc, 2);
	assert_int_equal(c.tag, 5);
	assert_int_equal(c.targets[3], ESC_TARGET);
	assert_int_equal(c.esc, 1);
	assert_int_equal(c.bad_tags, 1);
	assert_int_equal(c.revoke, 1);
	assert_int_equal(c.rec, 2);
	assert_int_equal(c.commit, 2);
	assert_int_equal(s.tags, 5);
	e4_journal_close(j);
	e4_close(fs);
	assert_int_equal(blk_tid(&im, TGT + 1), NOT_REPLAYED);
	cleanup(&im);
}

/* Replay refuses a read-only filesystem. */
static void read_only(void **state)
{
	struct img im;
	struct e4_jrecover_result r;
	e4_fs *fs;
	e4_journal *j;

	(void)state;
	make_fs(&im, 0, 0);
	begin_log(&im, 1);
	w_txn(&im, 1, 1000, 1, T3, 0, NULL, 0);
	write_jsb(&im, 1, 1, 0);
	assert_int_equal(e4_open(im.path, 0, 0, 0, &fs), 0);
	assert_int_equal(e4_journal_open(fs, NULL, &j), 0);
	assert_int_equal(e4_journal_recover(fs, j, NULL, NULL, &r), E4_ERR_READ_ONLY);
	e4_journal_close(j);
	e4_close(fs);
	assert_int_equal(blk_tid(&im, TGT + 1), NOT_REPLAYED);
	cleanup(&im);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(revoke_table),
		cmocka_unit_test(replay_plain),
		cmocka_unit_test(replay_v1),
		cmocka_unit_test(v1_async),
		cmocka_unit_test(replay_v2_v3),
		cmocka_unit_test(tags_64bit),
		cmocka_unit_test(revoke_across),
		cmocka_unit_test(tid_wrap),
		cmocka_unit_test(log_wrap),
		cmocka_unit_test(bad_commit_sync),
		cmocka_unit_test(bad_commit_async_v3),
		cmocka_unit_test(stale_commit),
		cmocka_unit_test(bad_descriptor),
		cmocka_unit_test(bad_tag),
		cmocka_unit_test(empty_journal),
		cmocka_unit_test(superblock_replayed),
		cmocka_unit_test(fast_commit),
		cmocka_unit_test(bad_rcount),
		cmocka_unit_test(endless_log),
		cmocka_unit_test(scan_items),
		cmocka_unit_test(read_only),
	};

	e4_init_errors();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
