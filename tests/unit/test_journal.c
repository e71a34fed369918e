/* Unit tests for the journal helpers: tid comparison across the 2^32
 * wrap (format doc 12.2) and journal superblock validation. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "e4.h"

static void tid_plain(void **state)
{
	(void)state;
	assert_true(e4_tid_gt(2, 1));
	assert_false(e4_tid_gt(1, 2));
	assert_false(e4_tid_gt(5, 5));
	assert_true(e4_tid_geq(5, 5));
	assert_false(e4_tid_geq(4, 5));
}

static void tid_wraparound(void **state)
{
	(void)state;
	/* 0xFFFFFFFE, 0xFFFFFFFF, 0 are consecutive transactions. */
	assert_true(e4_tid_gt(0xFFFFFFFFu, 0xFFFFFFFEu));
	assert_true(e4_tid_gt(0, 0xFFFFFFFFu));
	assert_true(e4_tid_gt(1, 0xFFFFFFFEu));
	assert_false(e4_tid_gt(0xFFFFFFFFu, 0));
	assert_true(e4_tid_geq(0, 0xFFFFFFFFu));
	/* Half the space apart is the boundary of "after". */
	assert_true(e4_tid_gt(0x7FFFFFFFu, 0));
	assert_false(e4_tid_gt(0x80000000u, 0));
	assert_true(e4_tid_gt(0, 0x80000001u));
}

static void fill_jsb(journal_superblock_t *jsb, uint32_t type)
{
	memset(jsb, 0, sizeof(*jsb));
	jsb->s_header.h_magic = e4_cpu_to_be32(JBD2_MAGIC_NUMBER);
	jsb->s_header.h_blocktype = e4_cpu_to_be32(type);
	jsb->s_blocksize = e4_cpu_to_be32(4096);
	jsb->s_maxlen = e4_cpu_to_be32(1024);
	jsb->s_first = e4_cpu_to_be32(1);
	jsb->s_sequence = e4_cpu_to_be32(1);
	jsb->s_nr_users = e4_cpu_to_be32(1);
}

static void jsb_validate(void **state)
{
	journal_superblock_t jsb;

	(void)state;
	fill_jsb(&jsb, JBD2_SUPERBLOCK_V2);
	assert_int_equal(e4_journal_super_validate(&jsb, 4096), 0);
	assert_int_equal(e4_journal_super_validate(&jsb, 1024), E4_ERR_JOURNAL_CORRUPT);
	jsb.s_header.h_magic = 0;
	assert_int_equal(e4_journal_super_validate(&jsb, 4096), E4_ERR_JOURNAL_MAGIC);
	fill_jsb(&jsb, 7);
	assert_int_equal(e4_journal_super_validate(&jsb, 4096), E4_ERR_JOURNAL_VERSION);
	fill_jsb(&jsb, JBD2_SUPERBLOCK_V2);
	jsb.s_feature_incompat = e4_cpu_to_be32(0x80);
	assert_int_equal(e4_journal_super_validate(&jsb, 4096), E4_ERR_JOURNAL_UNSUPP);
	/* CSUM_V3: the checksum must match, and checksum type 4 is required. */
	fill_jsb(&jsb, JBD2_SUPERBLOCK_V2);
	jsb.s_feature_incompat = e4_cpu_to_be32(JBD2_FEATURE_INCOMPAT_CSUM_V3);
	jsb.s_checksum_type = JBD2_CRC32C_CHKSUM;
	jsb.s_checksum = e4_cpu_to_be32(e4_jsb_csum(&jsb));
	assert_int_equal(e4_journal_super_validate(&jsb, 4096), 0);
	jsb.s_sequence = e4_cpu_to_be32(2);
	assert_int_equal(e4_journal_super_validate(&jsb, 4096), E4_ERR_JOURNAL_CSUM);
	/* CHECKSUM and CSUM_V3 together are corrupt. */
	jsb.s_feature_compat = e4_cpu_to_be32(JBD2_FEATURE_COMPAT_CHECKSUM);
	jsb.s_checksum = e4_cpu_to_be32(e4_jsb_csum(&jsb));
	assert_int_equal(e4_journal_super_validate(&jsb, 4096), E4_ERR_JOURNAL_CORRUPT);
	/* s_start outside [s_first, s_maxlen) */
	fill_jsb(&jsb, JBD2_SUPERBLOCK_V2);
	jsb.s_start = e4_cpu_to_be32(1024);
	assert_int_equal(e4_journal_super_validate(&jsb, 4096), E4_ERR_JOURNAL_CORRUPT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tid_plain),
		cmocka_unit_test(tid_wraparound),
		cmocka_unit_test(jsb_validate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
