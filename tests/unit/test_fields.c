/* Unit tests for fields.c: the field tables and e4_field_parse_set() on
 * structure images in memory (no filesystem).  Each table row against the
 * kernel's struct offsets (ext4_fs.h, offsetof); numbers in C notation,
 * ranges at their edges (both parts joined, one part alone, a part past
 * the structure's size), signed fields, dates in UTC and their epoch bits,
 * UUIDs, strings up to the whole field, hash names; a refused value leaves
 * the image untouched.  Catches: a row at the wrong offset, a high part
 * written at the low part's offset, a date taken in local time, a value
 * one past the maximum accepted. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "e4.h"

#define SB	EXT4_SUPERBLOCK_SIZE

/* set NAME to VALUE in a zeroed image of len bytes; returns the error */
static errcode_t set(enum e4_field_struct s, size_t len, uint8_t *img, const char *name,
		     const char *value)
{
	struct e4_field_opts o = { .now = 1234567890, .gen_uuid = NULL };
	struct e4_field_ref ref;
	errcode_t err = e4_field_lookup(s, len, name, &ref);

	return err ? err : e4_field_parse_set(&ref, img, len, value, &o);
}

static uint64_t le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

static void test_offsets(void **state)
{
	struct { enum e4_field_struct s; const char *name; size_t off, size; } rows[] = {
		{ E4_FIELDS_SUPER, "mnt_count", offsetof(struct ext4_super_block, s_mnt_count), 2 },
		{ E4_FIELDS_SUPER, "jnl_blocks",
		  offsetof(struct ext4_super_block, s_jnl_blocks), 4 },
		{ E4_FIELDS_SUPER, "encoding", offsetof(struct ext4_super_block, s_encoding), 2 },
		{ E4_FIELDS_SUPER, "checksum", offsetof(struct ext4_super_block, s_checksum), 4 },
		{ E4_FIELDS_SUPER, "orphan_file_inum",
		  offsetof(struct ext4_super_block, s_orphan_file_inum), 4 },
		{ E4_FIELDS_GROUP, "itable_unused",
		  offsetof(struct ext4_group_desc, bg_itable_unused_lo), 2 },
		{ E4_FIELDS_GROUP, "checksum", offsetof(struct ext4_group_desc, bg_checksum), 2 },
		{ E4_FIELDS_INODE, "projid", offsetof(struct ext4_inode, i_projid), 4 },
		{ E4_FIELDS_INODE, "crtime", offsetof(struct ext4_inode, i_crtime), 4 },
		{ E4_FIELDS_INODE, "links_count", offsetof(struct ext4_inode, i_links_count), 2 },
	};
	const struct e4_field *f;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		for (f = e4_fields(rows[i].s); f->name; f++)
			if (!strcmp(f->name, rows[i].name))
				break;
		assert_non_null(f->name);
		assert_int_equal(f->off, rows[i].off);
		assert_int_equal(f->size, rows[i].size);
	}
	/* every row lies inside its structure */
	for (f = e4_fields(E4_FIELDS_SUPER); f->name; f++)
		assert_true(f->off + f->size * (f->count ? f->count : 1) <= SB);
	for (f = e4_fields(E4_FIELDS_GROUP); f->name; f++)
		assert_true(f->off + f->size <= 64 && (!f->hi_size || f->hi_off + f->hi_size <= 64));
}

static void test_numbers(void **state)
{
	uint8_t sb[SB], d[64], d32[32], ino[256], copy[SB];

	(void)state;
	memset(sb, 0, sizeof(sb));
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "mnt_count", "0x10"), 0);
	assert_int_equal(le(sb + 0x34, 2), 16);
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "s_mnt_count", "010"), 0);
	assert_int_equal(le(sb + 0x34, 2), 8);
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "mnt_count", "65535"), 0);
	memcpy(copy, sb, SB);
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "mnt_count", "65536"), E4_ERR_FIELD_RANGE);
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "mnt_count", "-1"), E4_ERR_FIELD_RANGE);
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "mnt_count", "1x"), E4_ERR_FIELD_VALUE);
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "mnt_count", ""), E4_ERR_FIELD_VALUE);
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "max_mnt_count", "32768"),
			 E4_ERR_FIELD_RANGE);
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "kbytes_written",
			     "0x10000000000000000"), E4_ERR_FIELD_RANGE);
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "jnl_blocks[17]", "1"), E4_ERR_FIELD_INDEX);
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "jnl_blocks", "1"), E4_ERR_FIELD_INDEX);
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "nope", "1"), E4_ERR_FIELD_UNKNOWN);
	assert_memory_equal(copy, sb, SB);	/* refusals change nothing */
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "max_mnt_count", "-32768"), 0);
	assert_int_equal(le(sb + 0x36, 2), 0x8000);
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "jnl_blocks[16]", "7"), 0);
	assert_int_equal(le(sb + 0x10C + 64, 4), 7);
	/* both parts, one part */
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "blocks_count", "0x123456789"), 0);
	assert_int_equal(le(sb + 0x04, 4), 0x23456789);
	assert_int_equal(le(sb + 0x150, 4), 1);
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "blocks_count_hi", "5"), 0);
	assert_int_equal(le(sb + 0x04, 4), 0x23456789);
	assert_int_equal(le(sb + 0x150, 4), 5);
	/* descriptors: 64 bytes have the high halves, 32 bytes do not */
	memset(d, 0, sizeof(d));
	memset(d32, 0, sizeof(d32));
	assert_int_equal(set(E4_FIELDS_GROUP, 64, d, "free_blocks_count", "0x10005"), 0);
	assert_int_equal(le(d + 0x0C, 2), 5);
	assert_int_equal(le(d + 0x2C, 2), 1);
	assert_int_equal(set(E4_FIELDS_GROUP, 32, d32, "free_blocks_count", "0x10005"),
			 E4_ERR_FIELD_RANGE);
	assert_int_equal(set(E4_FIELDS_GROUP, 32, d32, "free_blocks_count_hi", "1"),
			 E4_ERR_FIELD_UNKNOWN);
	assert_int_equal(set(E4_FIELDS_GROUP, 32, d32, "bg_free_blocks_count", "0xffff"), 0);
	assert_int_equal(le(d32 + 0x0C, 2), 0xffff);
	/* inodes: block[IND] is a row of its own; 128 bytes end the fields */
	memset(ino, 0, sizeof(ino));
	assert_int_equal(set(E4_FIELDS_INODE, 256, ino, "block[IND]", "9"), 0);
	assert_int_equal(le(ino + 0x58, 4), 9);
	assert_int_equal(set(E4_FIELDS_INODE, 256, ino, "i_block[11]", "8"), 0);
	assert_int_equal(le(ino + 0x54, 4), 8);
	assert_int_equal(set(E4_FIELDS_INODE, 256, ino, "uid", "0x10005"), 0);
	assert_int_equal(le(ino + 0x02, 2), 5);
	assert_int_equal(le(ino + 0x78, 2), 1);
	assert_int_equal(set(E4_FIELDS_INODE, 128, ino, "projid", "1"), E4_ERR_FIELD_UNKNOWN);
	assert_int_equal(set(E4_FIELDS_INODE, 128, ino, "checksum", "0x10000"),
			 E4_ERR_FIELD_RANGE);
}

static void test_times(void **state)
{
	uint8_t sb[SB], ino[256];

	(void)state;
	memset(sb, 0, sizeof(sb));
	memset(ino, 0, sizeof(ino));
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "mtime", "19700102"), 0);
	assert_int_equal(le(sb + 0x2C, 4), 86400);
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "mtime", "20200101123456"), 0);
	assert_int_equal(le(sb + 0x2C, 4), 1577882096);
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "mtime", "now"), 0);
	assert_int_equal(le(sb + 0x2C, 4), 1234567890);
	/* 2200-01-01: 7258118400 s, the high byte 1 */
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "mtime", "22000101000000"), 0);
	assert_int_equal(le(sb + 0x2C, 4), 7258118400ULL & 0xffffffff);
	assert_int_equal(sb[0x275], 1);
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "mtime", "@-1"), E4_ERR_FIELD_RANGE);
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "mtime", "2020010100000x"),
			 E4_ERR_FIELD_VALUE);
	/* inode: epoch bits in the extra word, nanoseconds cleared */
	ino[0x8C] = 0xfc;
	assert_int_equal(set(E4_FIELDS_INODE, 256, ino, "atime", "22000101000000"), 0);
	assert_int_equal(le(ino + 0x08, 4), 7258118400ULL & 0xffffffff);
	assert_int_equal(le(ino + 0x8C, 4), 2);
	assert_int_equal(set(E4_FIELDS_INODE, 256, ino, "atime", "@-5"), 0);
	assert_int_equal(le(ino + 0x08, 4), 0xfffffffb);
	assert_int_equal(le(ino + 0x8C, 4), 0);
	/* 128-byte inodes: signed 32-bit seconds only */
	assert_int_equal(set(E4_FIELDS_INODE, 128, ino, "atime", "20400101"), E4_ERR_FIELD_RANGE);
}

static void test_text(void **state)
{
	uint8_t sb[SB];

	(void)state;
	memset(sb, 0, sizeof(sb));
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "uuid",
			     "01234567-89ab-cdef-0123-456789ABCDEF"), 0);
	assert_int_equal(sb[0x68], 0x01);
	assert_int_equal(sb[0x77], 0xef);
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "uuid", "0123456789abcdef0123456789abcdef"),
			 E4_ERR_FIELD_VALUE);
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "uuid", "random"), E4_ERR_FIELD_VALUE);
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "uuid", "null"), 0);
	assert_int_equal(sb[0x68], 0);
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "volume_name", "0123456789abcdef"), 0);
	assert_memory_equal(sb + 0x78, "0123456789abcdef", 16);
	assert_int_equal(sb[0x88], 0);
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "volume_name", "0123456789abcdefg"),
			 E4_ERR_FIELD_RANGE);
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "volume_name", "x"), 0);
	assert_int_equal(sb[0x79], 0);	/* the rest cleared */
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "def_hash_version", "tea_unsigned"), 0);
	assert_int_equal(sb[0xFC], 5);
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "def_hash_version", "md5"),
			 E4_ERR_FIELD_VALUE);
	assert_int_equal(set(E4_FIELDS_SUPER, SB, sb, "encoding", "utf8"), 0);
	assert_int_equal(le(sb + 0x27C, 2), 1);
	assert_string_equal(e4_hash_alg_name(6), "siphash");
	assert_null(e4_hash_alg_name(7));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offsets),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_text),
	};

	e4_init_errors();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
