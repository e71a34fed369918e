/* Unit tests for inode.c: timestamp encoding with the extended epoch
 * (format doc 6.3, kernel-written vectors) and superblock validation. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "e4.h"

struct tv { int64_t sec; uint32_t nsec; uint32_t base, extra; };

static const struct tv vectors[] = {
	{ 4102444800LL, 123456789, 0xF4865700, 0x1D6F3455 },	/* 2100-01-01 */
	{ -315619200LL, 5, 0xED300880, 0x00000014 },		/* 1960-01-01 */
	{ 2208988800LL, 0, 0x83AA7E80, 0x00000001 },		/* 2040-01-01 */
	{ 0, 0, 0, 0 },
	{ 0x7FFFFFFFLL, 999999999, 0x7FFFFFFF, 999999999u << 2 },
	{ -0x80000000LL, 0, 0x80000000, 0 },			/* 1901-12-13 */
	{ 0x37FFFFFFFLL, 0, 0x7FFFFFFF, 3 },			/* 2446-05-10 */
};

static void time_encode_decode(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		uint32_t base, extra, nsec;

		e4_time_encode(vectors[i].sec, vectors[i].nsec, &base, &extra);
		assert_int_equal(base, vectors[i].base);
		assert_int_equal(extra, vectors[i].extra);
		assert_true(e4_time_decode(base, extra, 1, &nsec) == vectors[i].sec);
		assert_int_equal(nsec, vectors[i].nsec);
	}
}

static void time_without_extra_is_signed32(void **state)
{
	uint32_t nsec = 7;

	(void)state;
	assert_true(e4_time_decode(0xED300880, 0, 0, &nsec) == -315619200LL);
	assert_int_equal(nsec, 0);
	assert_true(e4_time_decode(0xF4865700, 0x1D6F3455, 0, NULL) == (int32_t)0xF4865700);
}

static void make_sb(struct ext4_super_block *sb)
{
	memset(sb, 0, sizeof(*sb));
	sb->s_magic = e4_cpu_to_le16(EXT4_SUPER_MAGIC);
	sb->s_rev_level = e4_cpu_to_le32(1);
	sb->s_log_block_size = e4_cpu_to_le32(2);
	sb->s_log_cluster_size = e4_cpu_to_le32(2);
	sb->s_blocks_count_lo = e4_cpu_to_le32(65536);
	sb->s_blocks_per_group = e4_cpu_to_le32(32768);
	sb->s_clusters_per_group = e4_cpu_to_le32(32768);
	sb->s_inodes_per_group = e4_cpu_to_le32(8192);
	sb->s_inodes_count = e4_cpu_to_le32(16384);
	sb->s_first_ino = e4_cpu_to_le32(11);
	sb->s_inode_size = e4_cpu_to_le16(256);
}

static void super_validate(void **state)
{
	struct ext4_super_block sb;

	(void)state;
	make_sb(&sb);
	assert_int_equal(e4_super_validate(&sb, 1ull << 28), 0);
	make_sb(&sb);
	sb.s_magic = 0;
	assert_int_equal(e4_super_validate(&sb, 1ull << 28), E4_ERR_BAD_MAGIC);
	make_sb(&sb);
	sb.s_log_block_size = e4_cpu_to_le32(7);
	assert_int_equal(e4_super_validate(&sb, 1ull << 28), E4_ERR_BAD_BLOCK_SIZE);
	make_sb(&sb);
	sb.s_inode_size = e4_cpu_to_le16(200);
	assert_int_equal(e4_super_validate(&sb, 1ull << 28), E4_ERR_BAD_INODE_SIZE);
	make_sb(&sb);
	sb.s_inodes_count = e4_cpu_to_le32(16383);
	assert_int_equal(e4_super_validate(&sb, 1ull << 28), E4_ERR_BAD_GEOMETRY);
	make_sb(&sb);
	sb.s_blocks_per_group = e4_cpu_to_le32(0);
	assert_int_equal(e4_super_validate(&sb, 1ull << 28), E4_ERR_BAD_GEOMETRY);
	make_sb(&sb);
	sb.s_feature_incompat = e4_cpu_to_le32(EXT4_FEATURE_INCOMPAT_64BIT);
	sb.s_desc_size = e4_cpu_to_le16(48);
	assert_int_equal(e4_super_validate(&sb, 1ull << 28), E4_ERR_BAD_DESC_SIZE);
}

static void feature_names(void **state)
{
	char buf[16];
	enum e4_feature_kind k;
	uint32_t m;

	(void)state;
	assert_string_equal(e4_feature_name(E4_FEAT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_GDT_CSUM, buf),
			    "uninit_bg");
	assert_string_equal(e4_feature_name(E4_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_EXTENTS, buf),
			    "extent");
	assert_string_equal(e4_feature_name(E4_FEAT_COMPAT, 1u << 20, buf), "FEATURE_C20");
	assert_int_equal(e4_feature_lookup("extents", &k, &m), 0);
	assert_int_equal(k, E4_FEAT_INCOMPAT);
	assert_int_equal(m, EXT4_FEATURE_INCOMPAT_EXTENTS);
	assert_int_equal(e4_feature_lookup("FEATURE_R31", &k, &m), 0);
	assert_int_equal(k, E4_FEAT_RO_COMPAT);
	assert_int_equal(m, 1u << 31);
	assert_int_equal(e4_feature_lookup("nonsense", &k, &m), E4_ERR_INVALID_ARGUMENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(time_encode_decode),
		cmocka_unit_test(time_without_extra_is_signed32),
		cmocka_unit_test(super_validate),
		cmocka_unit_test(feature_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
