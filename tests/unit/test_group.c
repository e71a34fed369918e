/* Unit tests for the rules e4fsck's superblock and descriptor checks share
 * (issue 11): descriptor locations (group.c), where backup superblocks
 * may lie (group.c) and the superblock fields the geometry decides
 * (super.c).  Format doc sections 1.1-1.3, 4. */
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
static e4_fs *make_fs(int flex, char *path)
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
	sb.s_feature_ro_compat = e4_cpu_to_le32(EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(backup_locations),
		cmocka_unit_test(fix_geometry),
		cmocka_unit_test(locations),
	};

	e4_init_errors();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
