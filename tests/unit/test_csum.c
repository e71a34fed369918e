/* Unit tests for csum.c: the three CRCs against published check values
 * (format doc 10.4) and the filesystem seed derivation. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "e4.h"

static const char check[] = "123456789";

static void crc32c_check_value(void **state)
{
	(void)state;
	/* Raw kernel-convention update; the standard CRC-32C check value
	 * 0xE3069283 is its complement. */
	assert_int_equal(e4_crc32c(~0U, check, 9), 0x1CF96D7C);
	assert_int_equal(e4_crc32c(~0U, check, 9) ^ 0xFFFFFFFF, 0xE3069283);
	assert_int_equal(e4_crc32c(0, check, 9), 0x58E3FA20);
}

static void crc32c_rfc3720_zeros(void **state)
{
	uint8_t zeros[32] = { 0 };
	uint8_t ones[32];

	(void)state;
	memset(ones, 0xFF, sizeof(ones));
	/* RFC 3720 B.4: 32 bytes of zeros -> 0x8A9136AA, of ones -> 0x62A8AB43 */
	assert_int_equal(e4_crc32c(~0U, zeros, 32), 0x756EC955);
	assert_int_equal(e4_crc32c(~0U, zeros, 32) ^ 0xFFFFFFFF, 0x8A9136AA);
	assert_int_equal(e4_crc32c(~0U, ones, 32) ^ 0xFFFFFFFF, 0x62A8AB43);
}

static void crc32c_chaining(void **state)
{
	(void)state;
	/* Feeding the buffer in pieces gives the same result. */
	uint32_t c = e4_crc32c(~0U, check, 4);
	c = e4_crc32c(c, check + 4, 5);
	assert_int_equal(c, 0x1CF96D7C);
	assert_int_equal(e4_crc32c(0x12345678, check, 0), 0x12345678);
}

static void crc16_check_value(void **state)
{
	(void)state;
	assert_int_equal(e4_crc16(0xFFFF, check, 9), 0x4B37);	/* CRC-16/MODBUS */
	assert_int_equal(e4_crc16(0, check, 9), 0xBB3D);	/* CRC-16/ARC */
}

static void crc32_be_check_value(void **state)
{
	(void)state;
	assert_int_equal(e4_crc32_be(~0U, check, 9), 0x0376E6E7);	/* CRC-32/MPEG-2 */
	assert_int_equal(e4_crc32_be(~0U, check, 9) ^ 0xFFFFFFFF, 0xFC891918);	/* BZIP2 */
	uint32_t c = e4_crc32_be(~0U, check, 3);
	assert_int_equal(e4_crc32_be(c, check + 3, 6), 0x0376E6E7);
}

static void fs_seed_from_uuid(void **state)
{
	uint8_t uuid[16];

	(void)state;
	for (int i = 0; i < 16; i++)
		uuid[i] = (uint8_t)i;
	/* format doc 10.4: UUID 00010203-...-0e0f gives seed 0x2636F714 */
	assert_int_equal(e4_crc32c(~0U, uuid, 16), 0x2636F714);
}

static void superblock_csum_covers_all_but_tail(void **state)
{
	struct ext4_super_block sb;
	uint32_t a, b;

	(void)state;
	memset(&sb, 0x5A, sizeof(sb));
	a = e4_superblock_csum(&sb);
	sb.s_checksum = 0;		/* the stored field is not covered */
	b = e4_superblock_csum(&sb);
	assert_int_equal(a, b);
	sb.s_inodes_count ^= 1;		/* every other byte is */
	assert_int_not_equal(a, e4_superblock_csum(&sb));
	assert_int_equal(sizeof(sb), 1024);
	assert_int_equal(offsetof(struct ext4_super_block, s_checksum), 0x3FC);
}

static void struct_layouts(void **state)
{
	(void)state;
	assert_int_equal(offsetof(struct ext4_super_block, s_uuid), 0x68);
	assert_int_equal(offsetof(struct ext4_super_block, s_jnl_blocks), 0x10C);
	assert_int_equal(offsetof(struct ext4_super_block, s_mount_opts), 0x200);
	assert_int_equal(offsetof(struct ext4_super_block, s_checksum_seed), 0x270);
	assert_int_equal(offsetof(struct ext4_super_block, s_orphan_file_inum), 0x280);
	assert_int_equal(sizeof(struct ext4_group_desc), 64);
	assert_int_equal(offsetof(struct ext4_group_desc, bg_checksum), 0x1E);
	assert_int_equal(offsetof(struct ext4_inode, i_block), 0x28);
	assert_int_equal(offsetof(struct ext4_inode, i_extra_isize), 0x80);
	assert_int_equal(sizeof(struct ext4_inode), 0xA0);
	assert_int_equal(sizeof(journal_superblock_t), 1024);
	assert_int_equal(offsetof(journal_superblock_t, s_checksum), 0xFC);
	assert_int_equal(offsetof(struct commit_header, h_commit_sec), 0x30);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(crc32c_check_value),
		cmocka_unit_test(crc32c_rfc3720_zeros),
		cmocka_unit_test(crc32c_chaining),
		cmocka_unit_test(crc16_check_value),
		cmocka_unit_test(crc32_be_check_value),
		cmocka_unit_test(fs_seed_from_uuid),
		cmocka_unit_test(superblock_csum_covers_all_but_tail),
		cmocka_unit_test(struct_layouts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
