/* Unit tests for the rules e4fsck's superblock and descriptor checks share
 * (issue 11): descriptor locations and field bounds (group.c), where
 * backup superblocks may lie (group.c), the superblock fields the
 * geometry decides and those the kernel checks at mount (super.c).  Format doc sections 1.1-1.3, 4. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "e4.h"

/* ---- backup superblock locations ------------------------------------- */
static void backup_locations(void **state)
{
	e4_blk_t out[16];
	const uint32_t extra[2] = { 2, 0 };

	(void)state;
	/* 64 MiB, 1 KiB blocks: groups 0-7, copies in 1 3 5 7 (7 is the last) */
	assert_int_equal(e4_backup_sb_locations(1024, 0, 64 << 20, NULL, out, 16), 4);
	assert_int_equal(out[0], 8193);
	assert_int_equal(out[1], 24577);
	assert_int_equal(out[2], 40961);
	assert_int_equal(out[3], 57345);
	/* 72 MiB: group 8 is the last one on the device (sparse_super2) */
	assert_int_equal(e4_backup_sb_locations(1024, 0, 72 << 20, NULL, out, 16), 5);
	assert_int_equal(out[4], 65537);
	/* 512 MiB, 4 KiB: groups 1 and 3, plus s_backup_bgs' group 2 */
	assert_int_equal(e4_backup_sb_locations(4096, 0, 512 << 20, extra, out, 16), 3);
	assert_int_equal(out[0], 32768);
	assert_int_equal(out[1], 65536);
	assert_int_equal(out[2], 98304);
	/* one group: nothing; a group-1 superblock past the end: nothing */
	assert_int_equal(e4_backup_sb_locations(1024, 0, 4 << 20, NULL, out, 16), 0);
	assert_int_equal(e4_backup_sb_locations(1024, 0, 8193ull * 1024, NULL, out, 16), 0);
	assert_int_equal(e4_backup_sb_locations(1024, 0, 8194ull * 1024, NULL, out, 16), 1);
	/* max: the count is whole, the smallest are stored */
	assert_int_equal(e4_backup_sb_locations(1024, 0, 64 << 20, NULL, out, 2), 4);
	assert_int_equal(out[0], 8193);
	assert_int_equal(out[1], 24577);
	/* blocks per group given: 1 KiB blocks, 1024 per group, 8 MiB: 1 3 5 7 */
	assert_int_equal(e4_backup_sb_locations(1024, 1024, 8 << 20, NULL, out, 16), 4);
	assert_int_equal(out[3], 7169);
}

/* ---- geometry repair ---------------------------------------------------- */
/* One group: 4 MiB, 1 KiB blocks, 1024 inodes. */
static void one_group_sb(struct ext4_super_block *sb)
{
	memset(sb, 0, sizeof(*sb));
	sb->s_magic = e4_cpu_to_le16(EXT4_SUPER_MAGIC);
	sb->s_rev_level = e4_cpu_to_le32(1);
	sb->s_blocks_count_lo = e4_cpu_to_le32(4096);
	sb->s_first_data_block = e4_cpu_to_le32(1);
	sb->s_blocks_per_group = e4_cpu_to_le32(8192);
	sb->s_clusters_per_group = e4_cpu_to_le32(8192);
	sb->s_inodes_per_group = e4_cpu_to_le32(1024);
	sb->s_inodes_count = e4_cpu_to_le32(1024);
	sb->s_first_ino = e4_cpu_to_le32(11);
	sb->s_inode_size = e4_cpu_to_le16(256);
}

static void fix_geometry(void **state)
{
	struct ext4_super_block sb, good;
	struct e4_sb_fix fixes[E4_SB_MAX_FIXES];
	unsigned n;

	(void)state;
	one_group_sb(&good);
	assert_int_equal(e4_super_validate(&good, 0), 0);
	/* a sound superblock: nothing to do, nothing changed */
	sb = good;
	assert_int_equal(e4_super_fix_geometry(&sb, fixes, &n), 0);
	assert_int_equal(n, 0);
	/* inode count from inodes per group */
	sb = good;
	sb.s_inodes_count = e4_cpu_to_le32(100);
	assert_int_equal(e4_super_fix_geometry(&sb, fixes, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(fixes[0].name, "inode count");
	assert_int_equal(fixes[0].was, 100);
	assert_int_equal(fixes[0].now, 1024);
	assert_memory_equal(&sb, &good, sizeof(sb));
	/* neither blocks nor clusters per group usable, one group: 8 * bs */
	sb = good;
	sb.s_blocks_per_group = 0;
	sb.s_clusters_per_group = e4_cpu_to_le32(100000);
	assert_int_equal(e4_super_fix_geometry(&sb, fixes, &n), 0);
	assert_int_equal(n, 2);
	assert_memory_equal(&sb, &good, sizeof(sb));
	/* first data block 0 with 1 KiB blocks and clusters: 1 */
	sb = good;
	sb.s_first_data_block = 0;
	assert_int_equal(e4_super_validate(&sb, 0), E4_ERR_BAD_GEOMETRY);
	assert_int_equal(e4_super_fix_geometry(&sb, fixes, &n), 0);
	assert_int_equal(n, 1);
	assert_memory_equal(&sb, &good, sizeof(sb));
	/* inodes per group from the inode count only when unusable */
	sb = good;
	sb.s_inodes_per_group = 0;
	assert_int_equal(e4_super_fix_geometry(&sb, fixes, &n), 0);
	assert_memory_equal(&sb, &good, sizeof(sb));
	/* both inode fields unusable: no guess */
	sb = good;
	sb.s_inodes_per_group = 0;
	sb.s_inodes_count = 0;
	assert_int_equal(e4_super_fix_geometry(&sb, fixes, &n), E4_ERR_BAD_GEOMETRY);
	/* several groups, no usable blocks per group: no guess */
	sb = good;
	sb.s_blocks_count_lo = e4_cpu_to_le32(65536);
	sb.s_inodes_count = e4_cpu_to_le32(8192);
	sb.s_blocks_per_group = 0;
	sb.s_clusters_per_group = 0;
	assert_int_equal(e4_super_fix_geometry(&sb, fixes, &n), E4_ERR_BAD_GEOMETRY);
	/* other faults are not the geometry's: untouched */
	sb = good;
	sb.s_magic = 0;
	assert_int_equal(e4_super_fix_geometry(&sb, fixes, &n), E4_ERR_BAD_MAGIC);
	assert_int_equal(n, 0);
}

/* ---- descriptor locations ----------------------------------------------- */
/* 2 groups of 32768 4 KiB blocks, sparse_super, 8192 inodes of 256 bytes
 * per group (512 table blocks), one GDT block, no reserved GDT. */
static e4_fs *make_fs_ro(int flex, uint32_t ro, char *path)
{
	struct ext4_super_block sb;
	e4_io *io;
	e4_fs *fs;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 65536ll * 4096), 0);
	close(fd);
	memset(&sb, 0, sizeof(sb));
	sb.s_magic = e4_cpu_to_le16(EXT4_SUPER_MAGIC);
	sb.s_rev_level = e4_cpu_to_le32(1);
	sb.s_log_block_size = e4_cpu_to_le32(2);
	sb.s_log_cluster_size = e4_cpu_to_le32(2);
	sb.s_blocks_count_lo = e4_cpu_to_le32(65536);
	sb.s_blocks_per_group = e4_cpu_to_le32(32768);
	sb.s_clusters_per_group = e4_cpu_to_le32(32768);
	sb.s_inodes_per_group = e4_cpu_to_le32(8192);
	sb.s_inodes_count = e4_cpu_to_le32(16384);
	sb.s_first_ino = e4_cpu_to_le32(11);
	sb.s_inode_size = e4_cpu_to_le16(256);
	sb.s_feature_ro_compat = e4_cpu_to_le32(EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER | ro);
	if (flex)
		sb.s_feature_incompat = e4_cpu_to_le32(EXT4_FEATURE_INCOMPAT_FLEX_BG);
	assert_int_equal(e4_io_open(path, E4_IO_RW, &io), 0);
	assert_int_equal(e4_fs_create(io, path, &sb, &fs), 0);
	for (e4_group_t g = 0; g < 2; g++) {
		struct e4_group d = { 0 };
		e4_blk_t first = g * 32768;

		d.block_bitmap = first + 2;
		d.inode_bitmap = first + 3;
		d.inode_table = first + 4;
		assert_int_equal(e4_group_set(fs, g, &d), 0);
	}
	return fs;
}

static e4_fs *make_fs(int flex, char *path)
{
	return make_fs_ro(flex, 0, path);
}

static void set_loc(e4_fs *fs, e4_group_t g, int item, e4_blk_t blk)
{
	struct e4_group d;

	e4_group_get(fs, g, &d);
	if (item == E4_GD_BLOCK_BITMAP)
		d.block_bitmap = blk;
	else if (item == E4_GD_INODE_BITMAP)
		d.inode_bitmap = blk;
	else
		d.inode_table = blk;
	assert_int_equal(e4_group_set(fs, g, &d), 0);
}

struct faults {
	unsigned n;
	struct e4_gd_fault f[8];
};

static int collect(e4_fs *fs, const struct e4_gd_fault *f, void *priv)
{
	struct faults *r = priv;

	(void)fs;
	if (r->n < 8)
		r->f[r->n] = *f;
	r->n++;
	return 0;
}

static void locations(void **state)
{
	char path[] = "/tmp/e4unit.group.XXXXXX";
	struct faults r;
	unsigned n;
	e4_group_t bad;
	e4_fs *fs;

	(void)state;
	/* without flex_bg */
	fs = make_fs(0, path);
	assert_int_equal(e4_group_check_locations(fs, NULL, NULL, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(e4_check_group_descs(fs, NULL), 0);
	/* group 1's block bitmap in group 0: outside its group */
	set_loc(fs, 1, E4_GD_BLOCK_BITMAP, 1000);
	memset(&r, 0, sizeof(r));
	assert_int_equal(e4_group_check_locations(fs, collect, &r, &n), E4_ERR_GD_BLOCK_BITMAP);
	assert_int_equal(n, 1);
	assert_int_equal(r.f[0].group, 1);
	assert_int_equal(r.f[0].lo, 32768);
	assert_int_equal(r.f[0].hi, 65535);
	assert_int_equal(e4_check_group_descs(fs, &bad), E4_ERR_GD_BLOCK_BITMAP);
	assert_int_equal(bad, 1);
	/* the last inode table block past the end of the filesystem */
	set_loc(fs, 1, E4_GD_BLOCK_BITMAP, 32768 + 2);
	set_loc(fs, 1, E4_GD_INODE_TABLE, 65535 - 100);
	assert_int_equal(e4_group_check_locations(fs, NULL, NULL, NULL), E4_ERR_GD_INODE_TABLE);
	/* group 0's inode bitmap on the descriptor block */
	set_loc(fs, 1, E4_GD_INODE_TABLE, 32768 + 4);
	set_loc(fs, 0, E4_GD_INODE_BITMAP, 1);
	memset(&r, 0, sizeof(r));
	assert_int_equal(e4_group_check_locations(fs, collect, &r, NULL), E4_ERR_GD_OVERLAP_SUPER);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.f[0].item, E4_GD_INODE_BITMAP);
	/* group 1's backup superblock is metadata too */
	set_loc(fs, 0, E4_GD_INODE_BITMAP, 3);
	set_loc(fs, 1, E4_GD_INODE_BITMAP, 32768);
	assert_int_equal(e4_group_check_locations(fs, NULL, NULL, NULL), E4_ERR_GD_OVERLAP_SUPER);
	e4_close(fs);
	unlink(path);

	/* flex_bg: anywhere in the filesystem, but not on each other */
	strcpy(path, "/tmp/e4unit.group.XXXXXX");
	fs = make_fs(1, path);
	set_loc(fs, 1, E4_GD_BLOCK_BITMAP, 1000);
	set_loc(fs, 1, E4_GD_INODE_BITMAP, 1001);
	set_loc(fs, 1, E4_GD_INODE_TABLE, 1002);
	assert_int_equal(e4_group_check_locations(fs, NULL, NULL, NULL), 0);
	/* group 1's block bitmap inside group 0's inode table */
	set_loc(fs, 1, E4_GD_BLOCK_BITMAP, 100);
	memset(&r, 0, sizeof(r));
	assert_int_equal(e4_group_check_locations(fs, collect, &r, NULL), E4_ERR_GD_OVERLAP);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.f[0].group, 1);
	assert_int_equal(r.f[0].item, E4_GD_BLOCK_BITMAP);
	assert_int_equal(r.f[0].other_group, 0);
	assert_int_equal(r.f[0].other_item, E4_GD_INODE_TABLE);
	/* two items on one block: one fault */
	set_loc(fs, 1, E4_GD_BLOCK_BITMAP, 1001);
	memset(&r, 0, sizeof(r));
	assert_int_equal(e4_group_check_locations(fs, collect, &r, NULL), E4_ERR_GD_OVERLAP);
	assert_int_equal(r.n, 1);
	/* outside the filesystem */
	set_loc(fs, 1, E4_GD_BLOCK_BITMAP, 70000);
	memset(&r, 0, sizeof(r));
	assert_int_equal(e4_group_check_locations(fs, collect, &r, NULL), E4_ERR_GD_BLOCK_BITMAP);
	assert_int_equal(r.f[0].lo, 0);
	assert_int_equal(r.f[0].hi, 65535);
	e4_close(fs);
	unlink(path);
}

/* ---- superblock fields the kernel checks at mount (super.c) ---------- */
static void mount_checks(void **state)
{
	struct ext4_super_block sb, good;
	struct e4_sb_fix fixes[E4_SB_MAX_FIXES];
	unsigned n;

	(void)state;
	one_group_sb(&good);
	good.s_feature_ro_compat = e4_cpu_to_le32(EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE);
	good.s_min_extra_isize = e4_cpu_to_le16(32);
	good.s_want_extra_isize = e4_cpu_to_le16(32);
	assert_int_equal(e4_super_validate(&good, 0), 0);
	/* reserved blocks: up to half (e2fsck's bound) */
	sb = good;
	sb.s_r_blocks_count_lo = e4_cpu_to_le32(2048);
	assert_int_equal(e4_super_validate_mount(&sb), 0);
	sb.s_r_blocks_count_lo = e4_cpu_to_le32(2049);
	assert_int_equal(e4_super_validate(&sb, 0), E4_ERR_SB_R_BLOCKS);
	assert_true(e4_err_is_mount_check(E4_ERR_SB_R_BLOCKS));
	assert_false(e4_err_is_mount_check(E4_ERR_BAD_GEOMETRY));
	/* flex groups: 2^31 groups at most, and only flex_bg gives it meaning */
	sb = good;
	sb.s_log_groups_per_flex = 32;
	assert_int_equal(e4_super_validate_mount(&sb), 0);
	sb.s_feature_incompat = e4_cpu_to_le32(EXT4_FEATURE_INCOMPAT_FLEX_BG);
	assert_int_equal(e4_super_validate_mount(&sb), E4_ERR_SB_GROUPS_PER_FLEX);
	sb.s_log_groups_per_flex = 31;
	assert_int_equal(e4_super_validate_mount(&sb), 0);
	/* extra inode sizes: 0 or a multiple of 4 within inode size - 128 */
	sb = good;
	sb.s_min_extra_isize = e4_cpu_to_le16(128);
	assert_int_equal(e4_super_validate_mount(&sb), 0);
	sb.s_min_extra_isize = e4_cpu_to_le16(132);
	assert_int_equal(e4_super_validate_mount(&sb), E4_ERR_SB_MIN_EXTRA_ISIZE);
	sb.s_min_extra_isize = e4_cpu_to_le16(1);
	assert_int_equal(e4_super_validate_mount(&sb), E4_ERR_SB_MIN_EXTRA_ISIZE);
	sb.s_min_extra_isize = 0;
	sb.s_want_extra_isize = e4_cpu_to_le16(1000);
	assert_int_equal(e4_super_validate_mount(&sb), E4_ERR_SB_WANT_EXTRA_ISIZE);
	/* ... repaired to what mke2fs writes */
	assert_int_equal(e4_super_fix_geometry(&sb, fixes, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(fixes[0].name, "wanted extra inode size");
	assert_int_equal(fixes[0].was, 1000);
	assert_int_equal(e4_le16(sb.s_want_extra_isize), 32);
	/* without extra_isize the kernel does not look */
	sb.s_feature_ro_compat = 0;
	sb.s_want_extra_isize = e4_cpu_to_le16(1000);
	assert_int_equal(e4_super_validate_mount(&sb), 0);
	/* metadata_csum: crc32c only */
	sb = good;
	sb.s_feature_ro_compat |= e4_cpu_to_le32(EXT4_FEATURE_RO_COMPAT_METADATA_CSUM);
	sb.s_checksum_type = 7;
	assert_int_equal(e4_super_validate_mount(&sb), E4_ERR_SB_CSUM_TYPE);
	sb.s_checksum_type = EXT4_CRC32C_CHKSUM;
	assert_int_equal(e4_super_validate_mount(&sb), 0);
	/* orphan_file: an inode from 2 to the inode count */
	sb = good;
	sb.s_feature_compat = e4_cpu_to_le32(EXT4_FEATURE_COMPAT_ORPHAN_FILE);
	assert_int_equal(e4_super_validate_mount(&sb), E4_ERR_SB_ORPHAN_FILE_INUM);
	sb.s_orphan_file_inum = e4_cpu_to_le32(1025);
	assert_int_equal(e4_super_validate_mount(&sb), E4_ERR_SB_ORPHAN_FILE_INUM);
	sb.s_orphan_file_inum = e4_cpu_to_le32(12);
	assert_int_equal(e4_super_validate_mount(&sb), 0);
}

/* ---- descriptor fields (group.c) ------------------------------------- */
static void set_fields(e4_fs *fs, e4_group_t g, uint32_t fb, uint32_t fi, uint32_t dirs,
		       uint32_t unused, uint16_t flags)
{
	struct e4_group d;

	e4_group_get(fs, g, &d);
	d.free_blocks = fb;
	d.free_inodes = fi;
	d.used_dirs = dirs;
	d.itable_unused = unused;
	d.flags = flags;
	assert_int_equal(e4_group_set(fs, g, &d), 0);
}

static void fields(void **state)
{
	char path[] = "/tmp/e4unit.group.XXXXXX";
	uint8_t a[64], b[64];
	struct faults r;
	e4_fs *fs;

	(void)state;
	fs = make_fs(1, path);
	/* no checksum feature: flags and unused counts are not judged */
	set_fields(fs, 1, 32000, 8000, 3, 9999, EXT4_BG_BLOCK_UNINIT);
	assert_int_equal(e4_group_check_fields(fs, NULL, NULL, NULL), 0);
	set_fields(fs, 1, 32000, 8000, 3, 0, 0);
	set_fields(fs, 0, 32769, 8193, 0, 0, 0x8);
	memset(&r, 0, sizeof(r));
	assert_int_equal(e4_group_check_fields(fs, collect, &r, NULL), E4_ERR_GD_FLAGS);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.f[0].value, 8);
	assert_int_equal(r.f[1].err, E4_ERR_GD_FREE_BLOCKS_COUNT);
	assert_int_equal(r.f[1].limit, 32768);
	assert_int_equal(r.f[2].err, E4_ERR_GD_FREE_INODES_COUNT);
	/* directories: no more than the inodes in use */
	set_fields(fs, 0, 100, 8000, 192, 0, 0);
	assert_int_equal(e4_group_check_fields(fs, NULL, NULL, NULL), 0);
	set_fields(fs, 0, 100, 8000, 193, 0, 0);
	memset(&r, 0, sizeof(r));
	assert_int_equal(e4_group_check_fields(fs, collect, &r, NULL), E4_ERR_GD_USED_DIRS);
	assert_int_equal(r.f[0].limit, 192);
	set_fields(fs, 0, 100, 8000, 2, 0, 0);
	/* the same raw descriptor but for the counts: the same static fields */
	memcpy(a, e4_group_desc_raw(fs, 0), 64);
	set_fields(fs, 0, 5, 6, 7, 0, EXT4_BG_INODE_ZEROED);
	memcpy(b, e4_group_desc_raw(fs, 0), 64);
	assert_true(e4_group_desc_same_static(fs, a, b));
	set_loc(fs, 0, E4_GD_INODE_TABLE, 5);
	assert_false(e4_group_desc_same_static(fs, a, e4_group_desc_raw(fs, 0)));
	e4_close(fs);
	unlink(path);

	/* gdt_csum: the unused inodes count and BLOCK_UNINIT mean something */
	strcpy(path, "/tmp/e4unit.group.XXXXXX");
	fs = make_fs_ro(1, EXT4_FEATURE_RO_COMPAT_GDT_CSUM, path);
	set_fields(fs, 0, 100, 8000, 2, 8000, 0);
	assert_int_equal(e4_group_check_fields(fs, NULL, NULL, NULL), 0);
	set_fields(fs, 0, 100, 8000, 2, 8001, 0);
	assert_int_equal(e4_group_check_fields(fs, NULL, NULL, NULL), E4_ERR_GD_ITABLE_UNUSED);
	set_fields(fs, 0, 100, 8000, 2, 0, 0);
	/* the last group's bitmap needs its padding */
	set_fields(fs, 1, 100, 8000, 0, 0, EXT4_BG_BLOCK_UNINIT);
	assert_int_equal(e4_group_check_fields(fs, NULL, NULL, NULL), E4_ERR_GD_BLOCK_UNINIT_LAST);
	set_fields(fs, 1, 100, 8000, 0, 0, 0);
	/* group 0 holds group 1's bitmaps (flex_bg): never BLOCK_UNINIT */
	set_fields(fs, 0, 100, 8000, 2, 0, EXT4_BG_BLOCK_UNINIT);
	assert_int_equal(e4_group_check_fields(fs, NULL, NULL, NULL), 0);
	set_loc(fs, 1, E4_GD_BLOCK_BITMAP, 1000);
	assert_int_equal(e4_group_check_fields(fs, NULL, NULL, NULL), E4_ERR_GD_BLOCK_UNINIT_META);
	e4_close(fs);
	unlink(path);
}

/* ---- setters: each half where the readers read it -------------------- */
static void sb_setters(void **state)
{
	struct ext4_super_block sb;

	(void)state;
	memset(&sb, 0, sizeof(sb));
	/* without 64bit the high halves stay as they are */
	e4_sb_set_blocks_count(&sb, 0x123456789ull);
	assert_int_equal(e4_le32(sb.s_blocks_count_lo), 0x23456789);
	assert_int_equal(sb.s_blocks_count_hi, 0);
	e4_sb_set_features(&sb, E4_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_64BIT);
	e4_sb_set_blocks_count(&sb, 0x123456789ull);
	e4_sb_set_r_blocks_count(&sb, 0x200000001ull);
	e4_sb_set_free_blocks_count(&sb, 0x300000002ull);
	assert_true(e4_sb_blocks_count(&sb) == 0x123456789ull);
	assert_true(e4_sb_r_blocks_count(&sb) == 0x200000001ull);
	assert_true(e4_sb_free_blocks_count(&sb) == 0x300000002ull);
	/* 40-bit times: bits 32-39 in the _hi byte */
	e4_sb_set_time(&sb, E4_SB_WTIME, 0x1234567890ll);
	assert_true(e4_sb_time(e4_le32(sb.s_wtime), sb.s_wtime_hi) == 0x1234567890ll);
	e4_sb_set_time(&sb, E4_SB_LAST_ERROR_TIME, 0x0100000002ll);
	assert_int_equal(sb.s_last_error_time_hi, 1);
	assert_int_equal(e4_le32(sb.s_last_error_time), 2);
	assert_int_equal(sb.s_wtime_hi, 0x12);
	/* feature bits and state */
	e4_sb_feature_change(&sb, E4_FEAT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM, 1);
	e4_sb_feature_change(&sb, E4_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_64BIT, 0);
	assert_int_equal(e4_le32(sb.s_feature_ro_compat), EXT4_FEATURE_RO_COMPAT_METADATA_CSUM);
	assert_int_equal(sb.s_feature_incompat, 0);
	e4_sb_state_change(&sb, EXT4_VALID_FS | EXT4_ERROR_FS, 0);
	e4_sb_state_change(&sb, 0, EXT4_VALID_FS);
	assert_int_equal(e4_le16(sb.s_state), EXT4_ERROR_FS);
	e4_sb_add_kbytes_written(&sb, 5);
	e4_sb_add_kbytes_written(&sb, 7);
	assert_true(e4_le64(sb.s_kbytes_written) == 12);
}

static void gd_fields(void **state)
{
	struct ext4_group_desc d[2];

	(void)state;
	memset(d, 0, sizeof(d));
	/* 32-byte descriptors: the low halves only; what does not fit is said */
	assert_int_equal(e4_gd_field_put(d, 32, E4_GDF_INODE_TABLE, 0x100000005ull), 0);
	assert_int_equal(e4_le32(d->bg_inode_table_lo), 5);
	assert_int_equal(d->bg_inode_table_hi, 0);
	assert_int_equal(e4_gd_field_put(d, 32, E4_GDF_FREE_BLOCKS, 65535), 1);
	assert_int_equal(e4_gd_field_put(d, 32, E4_GDF_FREE_BLOCKS, 65536), 0);
	/* 64-byte ones: both halves, read back joined */
	memset(d, 0, sizeof(d));
	assert_int_equal(e4_gd_field_put(d, 64, E4_GDF_INODE_TABLE, 0x100000005ull), 1);
	assert_int_equal(e4_gd_field_put(d, 64, E4_GDF_FREE_INODES, 0x12345), 1);
	assert_int_equal(e4_gd_field_put(d, 64, E4_GDF_INODE_BITMAP_CSUM, 0xabcd1234), 1);
	assert_int_equal(e4_gd_field_put(d, 64, E4_GDF_FLAGS, EXT4_BG_INODE_ZEROED), 1);
	assert_int_equal(e4_le32(d->bg_inode_table_hi), 1);
	assert_int_equal(e4_le16(d->bg_free_inodes_count_lo), 0x2345);
	assert_int_equal(e4_le16(d->bg_free_inodes_count_hi), 1);
	assert_int_equal(e4_le16(d->bg_inode_bitmap_csum_hi), 0xabcd);
	assert_true(e4_gd_field_get(d, 64, E4_GDF_INODE_TABLE) == 0x100000005ull);
	assert_int_equal(e4_gd_field_get(d, 64, E4_GDF_FREE_INODES), 0x12345);
	assert_int_equal(e4_gd_field_get(d, 32, E4_GDF_FREE_INODES), 0x2345);
	assert_int_equal(e4_gd_field_get(d, 64, E4_GDF_INODE_BITMAP_CSUM), 0xabcd1234);
	assert_int_equal(e4_gd_field_get(d, 64, E4_GDF_FLAGS), EXT4_BG_INODE_ZEROED);
	assert_int_equal(e4_gd_field_get(d, 64, E4_GDF_CHECKSUM), 0);
}

/* e4_group_set_field: one field, then the checksum; a value the 32-byte
 * descriptor cannot hold changes nothing. */
static void gd_set_field(void **state)
{
	char path[] = "/tmp/e4unit.group.XXXXXX";
	struct e4_group d;
	e4_fs *fs;

	(void)state;
	fs = make_fs_ro(0, EXT4_FEATURE_RO_COMPAT_GDT_CSUM, path);
	assert_true(e4_group_csum_ok(fs, 1));
	assert_int_equal(e4_group_set_field(fs, 1, E4_GDF_FREE_BLOCKS, 1234), 0);
	assert_int_equal(e4_group_set_field(fs, 1, E4_GDF_FLAGS, EXT4_BG_INODE_ZEROED), 0);
	assert_int_equal(e4_group_get(fs, 1, &d), 0);
	assert_int_equal(d.free_blocks, 1234);
	assert_int_equal(d.flags, EXT4_BG_INODE_ZEROED);
	assert_true(e4_group_csum_ok(fs, 1));
	assert_int_equal(e4_group_set_field(fs, 1, E4_GDF_INODE_TABLE, 1ull << 32),
			 E4_ERR_BAD_BLOCK_NUM);
	assert_int_equal(e4_group_set_field(fs, 1, E4_GDF_FREE_INODES, 70000),
			 E4_ERR_BAD_BLOCK_NUM);
	assert_int_equal(e4_group_get(fs, 1, &d), 0);
	assert_int_equal(d.inode_table, 32768 + 4);
	assert_int_equal(d.free_inodes, 0);
	assert_true(e4_group_csum_ok(fs, 1));
	assert_int_equal(e4_group_set_field(fs, 2, E4_GDF_FREE_BLOCKS, 1), E4_ERR_BAD_GROUP_NUM);
	assert_int_equal(e4_group_set_field(fs, 1, E4_GDF_CHECKSUM, d.checksum ^ 1), 0);
	assert_false(e4_group_csum_ok(fs, 1));
	e4_close(fs);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sb_setters),
		cmocka_unit_test(gd_fields),
		cmocka_unit_test(gd_set_field),
		cmocka_unit_test(backup_locations),
		cmocka_unit_test(fix_geometry),
		cmocka_unit_test(locations),
		cmocka_unit_test(mount_checks),
		cmocka_unit_test(fields),
	};

	e4_init_errors();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
