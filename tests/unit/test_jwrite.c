/* Unit tests for jwrite.c, the jbd2 transaction writer, read back through
 * the library's recovery scan (e4_journal_scan with tag verification):
 *  - every tag layout (no checksum, v1, v2, v3; 32- and 64-bit) fills a
 *    descriptor with exactly as many tags as the format doc's table
 *    allows (header, first tag + 16-byte UUID, tail), the next block goes
 *    into a second descriptor; flags: SAME_UUID on all but a descriptor's
 *    first tag, LAST_TAG on its last, ESCAPE on the block starting with
 *    the magic; every checksum verifies;
 *  - refusals: a read-only fs, a 64-bit block without 64-bit tags, a
 *    transaction larger than the free log (nothing written: s_start stays
 *    0, needs_recovery clear), feature changes on a log in use, a start
 *    outside the log;
 *  - a log filled by transactions across writer runs (the free space is
 *    counted from s_start to the last commit) ends in E4_ERR_JOURNAL_FULL
 *    after the number that fits, and the scan finds them all.
 * Catches: a tags-per-descriptor count that forgets the UUID after the
 * first tag (one tag too many: the reader sees fewer tags than written).
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
#include "jwrite.h"
#include "unit_images.h"

#define MKFS_OPTS	"-t ext4 -b 1024 -J size=1 -O metadata_csum,64bit"

static struct unit_images imgs;
static int nimg;

static int setup(void **state)
{
	(void)state;
	e4_init_errors();
	return unit_images_init(&imgs, "test_jwrite") ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	unit_images_remove(&imgs);
	return 0;
}

/* A fresh 8 MiB image with a 1024-block journal. */
static const char *fresh(void)
{
	char name[32];

	snprintf(name, sizeof(name), "img%d", nimg++);
	return unit_image_add(&imgs, name, MKFS_OPTS, "8M");
}

struct seen {
	unsigned descriptors, tags, commits, bad;
	unsigned desc_count[8];
	int escape_first, flags_ok;
	unsigned in_desc;		/* tags seen in the current descriptor */
};

static int scan_cb(const struct e4_jlog_item *it, void *priv)
{
	struct seen *s = priv;
	int want_same, want_last;

	if (it->csum == E4_JCSUM_BAD || it->csum == E4_JCSUM_PARTIAL ||
	    it->csum == E4_JCSUM_UNREADABLE)
		s->bad++;
	switch (it->kind) {
	case E4_JLOG_DESCRIPTOR:
		if (s->descriptors < 8)
			s->desc_count[s->descriptors] = it->count;
		s->descriptors++;
		s->in_desc = 0;
		break;
	case E4_JLOG_TAG:
		want_same = it->index != 0;
		want_last = it->index + 1 == s->desc_count[(s->descriptors - 1) & 7];
		if (!!(it->tag_flags & JBD2_FLAG_SAME_UUID) != want_same ||
		    !!(it->tag_flags & JBD2_FLAG_LAST_TAG) != want_last)
			s->flags_ok = 0;
		if (s->tags == 0)
			s->escape_first = !!(it->tag_flags & JBD2_FLAG_ESCAPE);
		else if (it->tag_flags & JBD2_FLAG_ESCAPE)
			s->flags_ok = 0;
		s->tags++;
		break;
	case E4_JLOG_COMMIT:
		s->commits++;
		break;
	default:
		break;
	}
	return 0;
}

static void scan(const char *path, struct seen *s, struct e4_jscan_result *res)
{
	e4_fs *fs;
	e4_journal *j;

	memset(s, 0, sizeof(*s));
	s->flags_ok = 1;
	assert_int_equal(e4_open(path, 0, 0, 0, &fs), 0);
	assert_int_equal(e4_journal_open(fs, NULL, &j), 0);
	assert_int_equal(e4_journal_scan(j, E4_JSCAN_VERIFY_TAGS, scan_cb, s, res), 0);
	e4_journal_close(j);
	e4_close(fs);
}

static void layouts(void **state)
{
	/* csum version, 64-bit tags, tag bytes (format doc 11.3) */
	static const struct { int v, is64; unsigned tag; } L[] = {
		{ 0, 0, 8 }, { 0, 1, 12 }, { 1, 0, 8 }, { 1, 1, 12 },
		{ 2, 0, 10 }, { 2, 1, 14 }, { 3, 0, 16 }, { 3, 1, 16 },
	};
	uint8_t data[1024];

	(void)state;
	for (size_t i = 0; i < sizeof(L) / sizeof(L[0]); i++) {
		const char *path = fresh();
		unsigned tail = L[i].v >= 2 ? 4 : 0;
		unsigned per = (1024 - 12 - 16 - tail) / L[i].tag;
		struct e4_jwrite_opts o;
		struct e4_jscan_result res;
		struct seen s;
		e4_jwrite *w;
		e4_fs *fs;

		if (!imgs.ok)
			skip();
		memset(&o, 0, sizeof(o));
		o.flags = E4_JWRITE_SET_CSUM;
		o.csum_version = L[i].v;
		if (L[i].is64)
			o.set_incompat = JBD2_FEATURE_INCOMPAT_64BIT;
		else
			o.clear_incompat = JBD2_FEATURE_INCOMPAT_64BIT;
		assert_int_equal(e4_open(path, E4_OPEN_RW, 0, 0, &fs), 0);
		assert_int_equal(e4_jwrite_open(fs, NULL, &o, &w), 0);
		for (unsigned k = 0; k <= per; k++) {
			memset(data, (int)k, sizeof(data));
			if (k == 0)
				memcpy(data, "\xc0\x3b\x39\x98", 4);
			assert_int_equal(e4_jwrite_add_block(w, 6000 + k, data), 0);
		}
		assert_int_equal(e4_jwrite_commit(w, 0), 0);
		assert_int_equal(e4_jwrite_close(w), 0);
		assert_int_equal(e4_close(fs), 0);

		scan(path, &s, &res);
		if (s.descriptors != 2 || s.desc_count[0] != per || s.desc_count[1] != 1)
			fail_msg("v%d %s-bit: descriptors %u with %u, %u tags; expected 2 with %u, 1",
				 L[i].v, L[i].is64 ? "64" : "32", s.descriptors, s.desc_count[0],
				 s.desc_count[1], per);
		assert_int_equal(s.tags, per + 1);
		assert_int_equal(s.commits, 1);
		assert_int_equal(s.bad, 0);
		assert_true(s.flags_ok);
		assert_true(s.escape_first);
		assert_int_equal(res.outcome, E4_JSCAN_END);
		assert_int_equal(res.transactions, 1);
	}
}

static void refusals(void **state)
{
	const char *path = fresh();
	struct e4_jwrite_opts o;
	uint8_t data[1024];
	errcode_t err_open;
	e4_jwrite *w;
	e4_fs *fs;

	(void)state;
	if (!imgs.ok)
		skip();
	memset(data, 0x5A, sizeof(data));
	/* read-only */
	assert_int_equal(e4_open(path, 0, 0, 0, &fs), 0);
	assert_int_equal(e4_jwrite_open(fs, NULL, NULL, &w), E4_ERR_READ_ONLY);
	e4_close(fs);

	assert_int_equal(e4_open(path, E4_OPEN_RW, 0, 0, &fs), 0);
	/* a start outside the log [1, 1024) */
	memset(&o, 0, sizeof(o));
	o.start = 1024;
	assert_int_equal(e4_jwrite_open(fs, NULL, &o, &w), E4_ERR_INVALID_ARGUMENT);
	/* 32-bit tags: no block at or past 2^32 */
	o.start = 0;
	o.clear_incompat = JBD2_FEATURE_INCOMPAT_64BIT;
	err_open = e4_jwrite_open(fs, NULL, &o, &w);
	if (err_open)
		fail_msg("open: %s", error_message(err_open));
	assert_int_equal(e4_jwrite_add_block(w, 1ULL << 32, data), E4_ERR_BAD_BLOCK_NUM);
	assert_int_equal(e4_jwrite_add_revoke(w, 1ULL << 32), E4_ERR_BAD_BLOCK_NUM);
	/* past the end of the filesystem: replay would write there */
	assert_int_equal(e4_jwrite_add_block(w, e4_geom(fs)->blocks_count, data),
			 E4_ERR_BAD_BLOCK_NUM);
	assert_int_equal(e4_jwrite_add_revoke(w, e4_geom(fs)->blocks_count),
			 E4_ERR_BAD_BLOCK_NUM);
	/* larger than the log (the log has 1023 blocks, one stays free; 1012
	 * blocks take 9 descriptors and a commit): the add past what fits is
	 * refused, so memory stays bounded; nothing written */
	for (unsigned k = 0; k < 1012; k++)
		assert_int_equal(e4_jwrite_add_block(w, 6000 + (k % 100), data), 0);
	assert_int_equal(e4_jwrite_add_block(w, 6000, data), E4_ERR_JOURNAL_FULL);
	assert_int_equal(e4_jwrite_add_revoke(w, 6000), E4_ERR_JOURNAL_FULL);
	e4_jwrite_drop(w);
	assert_int_equal(e4_be32(e4_journal_super(e4_jwrite_journal(w))->s_start), 0);
	assert_false(e4_le32(e4_super(fs)->s_feature_incompat) & EXT4_FEATURE_INCOMPAT_RECOVER);
	/* one that fits; then the log is in use: no feature change */
	assert_int_equal(e4_jwrite_add_block(w, 6000, data), 0);
	assert_int_equal(e4_jwrite_commit(w, 0), 0);
	assert_int_equal(e4_jwrite_close(w), 0);
	assert_true(e4_le32(e4_super(fs)->s_feature_incompat) & EXT4_FEATURE_INCOMPAT_RECOVER);
	memset(&o, 0, sizeof(o));
	o.flags = E4_JWRITE_SET_CSUM;
	o.csum_version = 2;
	assert_int_equal(e4_jwrite_open(fs, NULL, &o, &w), E4_ERR_JOURNAL_BUSY);
	o.csum_version = 0;	/* what it is (mke2fs sets no journal checksum) */
	assert_int_equal(e4_jwrite_open(fs, NULL, &o, &w), 0);
	assert_int_equal(e4_jwrite_close(w), 0);
	assert_int_equal(e4_close(fs), 0);
}

/* Transactions of 100 blocks: 2 descriptors (62 v3 tags each) and a
 * commit, 103 log blocks; 9 fit in the 1023-block log with one block to
 * spare (927 + 103 >= 1023). */
static void fill_log(void **state)
{
	const char *path = fresh();
	struct e4_jscan_result res;
	struct seen s;
	uint8_t data[1024];
	unsigned written = 0;
	errcode_t err = 0;
	struct e4_jwrite_opts o;

	(void)state;
	if (!imgs.ok)
		skip();
	memset(data, 0x33, sizeof(data));
	memset(&o, 0, sizeof(o));
	o.flags = E4_JWRITE_SET_CSUM;
	o.csum_version = 3;
	o.set_incompat = JBD2_FEATURE_INCOMPAT_64BIT;
	for (int run = 0; run < 2 && !err; run++) {
		e4_jwrite *w;
		e4_fs *fs;

		assert_int_equal(e4_open(path, E4_OPEN_RW, 0, 0, &fs), 0);
		/* the second run: the same features, on a log in use */
		assert_int_equal(e4_jwrite_open(fs, NULL, &o, &w), 0);
		assert_int_equal(e4_jwrite_head(w), 1 + 103 * written);
		for (int t = 0; t < (run ? 100 : 5); t++) {
			for (unsigned k = 0; k < 100 && !err; k++)
				err = e4_jwrite_add_block(w, 6000 + k, data);
			if (!err)
				err = e4_jwrite_commit(w, 0);
			if (err)
				break;
			written++;
		}
		assert_int_equal(e4_jwrite_close(w), 0);
		assert_int_equal(e4_close(fs), 0);
	}
	assert_int_equal(err, E4_ERR_JOURNAL_FULL);
	assert_int_equal(written, 9);
	scan(path, &s, &res);
	assert_int_equal(res.transactions, 9);
	assert_int_equal(s.tags, 900);
	assert_int_equal(s.bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(layouts),
		cmocka_unit_test(refusals),
		cmocka_unit_test(fill_log),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
