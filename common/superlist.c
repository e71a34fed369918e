/*
 * superlist.c: the superblock and journal superblock as fields of a
 * listing (common/listing.h), with the labels dumpe2fs -h uses, so that
 * e4tune -l (and any tool) can be compared field by field with it.
 * Lifted from e4debugfs's "stats" (debugfs/cmd_super.c), whose printers
 * can move onto this file.
 */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "superlist.h"

#define LABEL_WIDTH	26

/*
 * The fields: one row each, its text label (as dumpe2fs -h spells it) and
 * its JSON key side by side.  The key is part of the JSON interface: it
 * stays when a label changes.  ROW(id, label, key)
 */
#define SUPERLIST_ROWS(ROW) \
	ROW(VOLUME_NAME,         "Filesystem volume name", "filesystem_volume_name") \
	ROW(LAST_MOUNTED,        "Last mounted on", "last_mounted_on") \
	ROW(UUID,                "Filesystem UUID", "filesystem_uuid") \
	ROW(MAGIC,               "Filesystem magic number", "filesystem_magic_number") \
	ROW(REVISION,            "Filesystem revision #", "filesystem_revision") \
	ROW(FEATURES,            "Filesystem features", "filesystem_features") \
	ROW(FLAGS,               "Filesystem flags", "filesystem_flags") \
	ROW(DEFAULT_MOUNT_OPTS,  "Default mount options", "default_mount_options") \
	ROW(MOUNT_OPTS,          "Mount options", "mount_options") \
	ROW(STATE,               "Filesystem state", "filesystem_state") \
	ROW(ERRORS,              "Errors behavior", "errors_behavior") \
	ROW(OS_TYPE,             "Filesystem OS type", "filesystem_os_type") \
	ROW(INODE_COUNT,         "Inode count", "inode_count") \
	ROW(BLOCK_COUNT,         "Block count", "block_count") \
	ROW(R_BLOCK_COUNT,       "Reserved block count", "reserved_block_count") \
	ROW(OVERHEAD,            "Overhead clusters", "overhead_clusters") \
	ROW(FREE_BLOCKS,         "Free blocks", "free_blocks") \
	ROW(FREE_INODES,         "Free inodes", "free_inodes") \
	ROW(FIRST_BLOCK,         "First block", "first_block") \
	ROW(BLOCK_SIZE,          "Block size", "block_size") \
	ROW(CLUSTER_SIZE,        "Cluster size", "cluster_size") \
	ROW(FRAGMENT_SIZE,       "Fragment size", "fragment_size") \
	ROW(DESC_SIZE,           "Group descriptor size", "group_descriptor_size") \
	ROW(RESERVED_GDT,        "Reserved GDT blocks", "reserved_gdt_blocks") \
	ROW(BLOCKS_PER_GROUP,    "Blocks per group", "blocks_per_group") \
	ROW(CLUSTERS_PER_GROUP,  "Clusters per group", "clusters_per_group") \
	ROW(FRAGMENTS_PER_GROUP, "Fragments per group", "fragments_per_group") \
	ROW(INODES_PER_GROUP,    "Inodes per group", "inodes_per_group") \
	ROW(ITABLE_BLOCKS,       "Inode blocks per group", "inode_blocks_per_group") \
	ROW(RAID_STRIDE,         "RAID stride", "raid_stride") \
	ROW(RAID_STRIPE_WIDTH,   "RAID stripe width", "raid_stripe_width") \
	ROW(FIRST_META_BG,       "First meta block group", "first_meta_block_group") \
	ROW(FLEX_BG_SIZE,        "Flex block group size", "flex_block_group_size") \
	ROW(MKFS_TIME,           "Filesystem created", "filesystem_created") \
	ROW(MOUNT_TIME,          "Last mount time", "last_mount_time") \
	ROW(WRITE_TIME,          "Last write time", "last_write_time") \
	ROW(MOUNT_COUNT,         "Mount count", "mount_count") \
	ROW(MAX_MOUNT_COUNT,     "Maximum mount count", "maximum_mount_count") \
	ROW(LASTCHECK,           "Last checked", "last_checked") \
	ROW(CHECKINTERVAL,       "Check interval", "check_interval") \
	ROW(NEXT_CHECK,          "Next check after", "next_check_after") \
	ROW(LIFETIME_WRITES,     "Lifetime writes", "lifetime_writes") \
	ROW(RESUID,              "Reserved blocks uid", "reserved_blocks_uid") \
	ROW(RESGID,              "Reserved blocks gid", "reserved_blocks_gid") \
	ROW(FIRST_INO,           "First inode", "first_inode") \
	ROW(INODE_SIZE,          "Inode size", "inode_size") \
	ROW(MIN_EXTRA_ISIZE,     "Required extra isize", "required_extra_isize") \
	ROW(WANT_EXTRA_ISIZE,    "Desired extra isize", "desired_extra_isize") \
	ROW(JOURNAL_UUID,        "Journal UUID", "journal_uuid") \
	ROW(JOURNAL_INUM,        "Journal inode", "journal_inode") \
	ROW(JOURNAL_DEV,         "Journal device", "journal_device") \
	ROW(LAST_ORPHAN,         "First orphan inode", "first_orphan_inode") \
	ROW(DEF_HASH,            "Default directory hash", "default_directory_hash") \
	ROW(HASH_SEED,           "Directory Hash Seed", "directory_hash_seed") \
	ROW(JNL_BACKUP,          "Journal backup", "journal_backup") \
	ROW(BACKUP_BGS,          "Backup block groups", "backup_block_groups") \
	ROW(SNAPSHOT_INUM,       "Snapshot inode", "snapshot_inode") \
	ROW(SNAPSHOT_ID,         "Snapshot ID", "snapshot_id") \
	ROW(SNAPSHOT_R_BLOCKS,   "Snapshot reserved blocks", "snapshot_reserved_blocks") \
	ROW(SNAPSHOT_LIST,       "Snapshot list head", "snapshot_list_head") \
	ROW(ERROR_COUNT,         "FS Error count", "fs_error_count") \
	ROW(FIRST_ERROR_TIME,    "First error time", "first_error_time") \
	ROW(FIRST_ERROR_FUNC,    "First error function", "first_error_function") \
	ROW(FIRST_ERROR_LINE,    "First error line #", "first_error_line") \
	ROW(FIRST_ERROR_INO,     "First error inode #", "first_error_inode") \
	ROW(FIRST_ERROR_BLOCK,   "First error block #", "first_error_block") \
	ROW(FIRST_ERROR_ERR,     "First error err", "first_error_err") \
	ROW(LAST_ERROR_TIME,     "Last error time", "last_error_time") \
	ROW(LAST_ERROR_FUNC,     "Last error function", "last_error_function") \
	ROW(LAST_ERROR_LINE,     "Last error line #", "last_error_line") \
	ROW(LAST_ERROR_INO,      "Last error inode #", "last_error_inode") \
	ROW(LAST_ERROR_BLOCK,    "Last error block #", "last_error_block") \
	ROW(LAST_ERROR_ERR,      "Last error err", "last_error_err") \
	ROW(MMP_BLOCK,           "MMP block number", "mmp_block_number") \
	ROW(MMP_INTERVAL,        "MMP update interval", "mmp_update_interval") \
	ROW(USR_QUOTA,           "User quota inode", "user_quota_inode") \
	ROW(GRP_QUOTA,           "Group quota inode", "group_quota_inode") \
	ROW(PRJ_QUOTA,           "Project quota inode", "project_quota_inode") \
	ROW(CSUM_TYPE,           "Checksum type", "checksum_type") \
	ROW(CSUM,                "Checksum", "checksum") \
	ROW(CSUM_EXPECTED,       "Expected Checksum", "expected_checksum") \
	ROW(PW_SALT,             "Encryption PW Salt", "encryption_pw_salt") \
	ROW(CSUM_SEED,           "Checksum seed", "checksum_seed") \
	ROW(ENCODING,            "Character encoding", "character_encoding") \
	ROW(ORPHAN_FILE,         "Orphan file inode", "orphan_file_inode") \
	ROW(JOURNAL,             NULL, "journal") \
	ROW(J_FEATURES,          "Journal features", "journal_features") \
	ROW(J_SIZE,              "Total journal size", "total_journal_size") \
	ROW(J_BLOCK_SIZE,        "Journal block size", "journal_block_size") \
	ROW(J_BLOCKS,            "Total journal blocks", "total_journal_blocks") \
	ROW(J_MAX_TRANS,         "Max transaction length", "max_transaction_length") \
	ROW(J_FC_BLOCKS,         "Fast commit length", "fast_commit_length") \
	ROW(J_FIRST,             "Journal first block", "journal_first_block") \
	ROW(J_SEQUENCE,          "Journal sequence", "journal_sequence") \
	ROW(J_START,             "Journal start", "journal_start") \
	ROW(J_NR_USERS,          "Journal number of users", "journal_number_of_users") \
	ROW(J_CSUM_TYPE,         "Journal checksum type", "journal_checksum_type") \
	ROW(J_CSUM,              "Journal checksum", "journal_checksum") \
	ROW(J_USERS,             "Journal users", "journal_users") \
	ROW(J_ERRNO,             "Journal errno", "journal_errno")

enum superlist_row {
#define ROW_ENUM(id, label, key)	F_##id,
	SUPERLIST_ROWS(ROW_ENUM)
	F_COUNT
};

static const struct listing_field rows[F_COUNT] = {
#define ROW_TABLE(id, label, key)	[F_##id] = { label, key },
	SUPERLIST_ROWS(ROW_TABLE)
};

#define F(id)	(&rows[F_##id])

/* The listing being filled (set by the entry points). */
static listing *L;

#define field(id, ...)	listing_fmt(L, F(id), __VA_ARGS__)
#define num(id, v)	listing_u64(L, F(id), v)

const char *superlist_uuid(const uint8_t u[16], char *buf, int none_if_null)
{
	int i, null = 1;

	for (i = 0; i < 16; i++)
		if (u[i])
			null = 0;
	if (null && none_if_null) {
		strcpy(buf, "<none>");
		return buf;
	}
	sprintf(buf, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
		u[12], u[13], u[14], u[15]);
	return buf;
}

/* A NUL-padded fixed-size text field, cut at the first NUL. */
static void fixed_string(char *out, const void *in, size_t len)
{
	memcpy(out, in, len);
	out[len] = 0;
}

static int is_zero(const void *p, size_t len)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i])
			return 0;
	return 1;
}

/* "3 months, 2 weeks, 1 day, 4:05:06" style; "<none>" for 0. */
static const char *interval_text(uint32_t secs, char *buf, size_t len)
{
	static const struct {
		uint32_t secs;
		const char *unit;
	} units[] = {
		{ 86400 * 30, "month" },
		{ 86400 * 7, "week" },
		{ 86400, "day" },
	};
	size_t used = 0;
	unsigned i;

	if (!secs)
		return "<none>";
	buf[0] = 0;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		uint32_t n = secs / units[i].secs;

		if (!n)
			continue;
		secs -= n * units[i].secs;
		used += snprintf(buf + used, len - used, "%s%u %s%s", used ? ", " : "",
				 n, units[i].unit, n > 1 ? "s" : "");
	}
	if (secs)
		snprintf(buf + used, len - used, "%s%u:%02u:%02u", used ? ", " : "",
			 secs / 3600, secs / 60 % 60, secs % 60);
	return buf;
}

static const char *os_name(uint32_t os)
{
	static const char *const names[] = { "Linux", "Hurd", "Masix", "FreeBSD", "Lites" };

	return os < 5 ? names[os] : "(unknown os)";
}

static const char *hash_name(unsigned v, char *buf)
{
	static const char *const names[] = {
		"legacy", "half_md4", "tea", "legacy_unsigned", "half_md4_unsigned",
		"tea_unsigned", "siphash"
	};

	if (v < sizeof(names) / sizeof(names[0]))
		return names[v];
	sprintf(buf, "HASHALG_%u", v);
	return buf;
}

/* Kernel error codes stored in s_{first,last}_error_errcode. */
static const char *errcode_name(unsigned v, char *buf)
{
	static const char *const names[] = {
		"0", "UNKNOWN", "EIO", "ENOMEM", "EFSBADCRC", "EFSCORRUPTED", "ENOSPC",
		"ENOKEY", "EROFS", "EFBIG", "EEXIST", "ERANGE", "EOVERFLOW", "EBUSY",
		"ENOTDIR", "ENOTEMPTY", "ESHUTDOWN", "EFAULT"
	};

	if (v < sizeof(names) / sizeof(names[0]))
		return names[v];
	sprintf(buf, "error %u", v);
	return buf;
}

static void print_features(e4_fs *fs, const struct ext4_super_block *sb)
{
	static const enum e4_feature_kind order[3] = {
		E4_FEAT_COMPAT, E4_FEAT_INCOMPAT, E4_FEAT_RO_COMPAT
	};
	uint32_t masks[3];
	char buf[32];
	int k, bit;

	(void)fs;
	masks[0] = e4_le32(sb->s_feature_compat);
	masks[1] = e4_le32(sb->s_feature_incompat);
	masks[2] = e4_le32(sb->s_feature_ro_compat);
	listing_list_begin(L, F(FEATURES));
	for (k = 0; k < 3; k++)
		for (bit = 0; bit < 32; bit++)
			if (masks[k] & (1U << bit))
				listing_list_add(L, e4_feature_name(order[k], 1U << bit, buf));
	listing_list_end(L, "(none)");
}

static void print_mount_defaults(uint32_t opts)
{
	static const char *const names[] = {
		"debug", "bsdgroups", "user_xattr", "acl", "uid16", NULL, NULL,
		NULL, "nobarrier", "block_validity", "discard", "nodelalloc"
	};
	static const char *const jmodes[] = {
		NULL, "journal_data", "journal_data_ordered", "journal_data_writeback"
	};
	char buf[32];
	int bit;

	listing_list_begin(L, F(DEFAULT_MOUNT_OPTS));
	if (opts & EXT4_DEFM_JMODE)
		listing_list_add(L, jmodes[(opts & EXT4_DEFM_JMODE) >> 5]);
	for (bit = 0; bit < 32; bit++) {
		uint32_t m = 1U << bit;

		if (!(opts & m) || (m & EXT4_DEFM_JMODE))
			continue;
		if (bit < (int)(sizeof(names) / sizeof(names[0])) && names[bit]) {
			listing_list_add(L, names[bit]);
		} else {
			snprintf(buf, sizeof(buf), "MNTOPT_%d", bit);
			listing_list_add(L, buf);
		}
	}
	listing_list_end(L, "(none)");
}

static void print_owner(const struct listing_field *f, unsigned id, int is_group)
{
	const char *name = NULL;

	if (is_group) {
		struct group *g = getgrgid(id);

		if (g)
			name = g->gr_name;
	} else {
		struct passwd *p = getpwuid(id);

		if (p)
			name = p->pw_name;
	}
	listing_num_text(L, f, id, "%u (%s %s)", id, is_group ? "group" : "user",
			 name ? name : "unknown");
}

/* The first or last error: f points at the six rows "... error time",
 * "function", "line #", "inode #", "block #", "err", in that order. */
_Static_assert(F_FIRST_ERROR_ERR == F_FIRST_ERROR_TIME + 5 &&
	       F_LAST_ERROR_ERR == F_LAST_ERROR_TIME + 5, "error rows out of order");
static void print_error_info(const struct listing_field *f, uint32_t t, uint8_t t_hi,
			     const uint8_t *func, uint32_t line, uint32_t ino,
			     uint64_t blk, uint8_t code)
{
	char fn[33], buf[32];

	if (!t && !t_hi)
		return;
	listing_time(L, &f[0], e4_sb_time(t, t_hi));
	fixed_string(fn, func, 32);
	listing_str(L, &f[1], fn);
	listing_u64(L, &f[2], line);
	if (ino)
		listing_u64(L, &f[3], ino);
	if (blk)
		listing_u64(L, &f[4], blk);
	if (code)
		listing_str(L, &f[5], errcode_name(code, buf));
}

static void print_lifetime_writes(uint64_t kb)
{
	static const char *const units[] = { "kB", "MB", "GB", "TB", "PB" };
	unsigned u = 0;
	uint64_t v = kb;

	if (!kb)
		return;
	/* values stay below 8192 of their unit, rounded to nearest */
	while (u < 4 && kb >= (8192ULL << (10 * u))) {
		u++;
		v = (kb + (1ULL << (10 * u - 1))) >> (10 * u);
	}
	/* JSON: bytes (the field counts KiB; a value past 2^64 bytes saturates) */
	listing_num_text(L, F(LIFETIME_WRITES), kb > UINT64_MAX / 1024 ? UINT64_MAX : kb * 1024,
			 "%llu %s", (unsigned long long)v, units[u]);
}

static void print_superblock(e4_fs *fs)
{
	const struct ext4_super_block *sb = e4_super(fs);
	const struct e4_geom *geo = e4_geom(fs);
	uint32_t rev = e4_le32(sb->s_rev_level);
	uint16_t state = e4_le16(sb->s_state);
	uint32_t flags = e4_le32(sb->s_flags);
	uint32_t ival = e4_le32(sb->s_checkinterval);
	int64_t lastcheck = e4_sb_time(e4_le32(sb->s_lastcheck), sb->s_lastcheck_hi);
	int bigalloc = e4_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_BIGALLOC);
	char buf[128], uuid[40];
	uint16_t errors;

	fixed_string(buf, sb->s_volume_name, 16);
	if (buf[0])
		listing_str(L, F(VOLUME_NAME), buf);
	else
		listing_null(L, F(VOLUME_NAME), "<none>");
	fixed_string(buf, sb->s_last_mounted, 64);
	if (buf[0])
		listing_str(L, F(LAST_MOUNTED), buf);
	else
		listing_null(L, F(LAST_MOUNTED), "<not available>");
	if (is_zero(sb->s_uuid, 16))
		listing_null(L, F(UUID), "<none>");
	else
		field(UUID, "%s", superlist_uuid(sb->s_uuid, uuid, 0));
	listing_hex(L, F(MAGIC), e4_le16(sb->s_magic), 4, 1);
	listing_num_text(L, F(REVISION), rev, "%u (%s)", rev,
	      rev == 0 ? "original" : rev == 1 ? "dynamic" : "unknown");
	print_features(fs, sb);
	if (flags) {
		listing_list_begin(L, F(FLAGS));
		if (flags & EXT2_FLAGS_SIGNED_HASH)
			listing_list_add(L, "signed_directory_hash");
		if (flags & EXT2_FLAGS_UNSIGNED_HASH)
			listing_list_add(L, "unsigned_directory_hash");
		if (flags & EXT2_FLAGS_TEST_FILESYS)
			listing_list_add(L, "test_filesystem");
		listing_list_end(L, "(none)");
	}
	print_mount_defaults(e4_le32(sb->s_default_mount_opts));
	if (sb->s_mount_opts[0]) {
		fixed_string(buf, sb->s_mount_opts, 64);
		field(MOUNT_OPTS, "%s", buf);
	}
	field(STATE, "%s%s", state & EXT4_VALID_FS ? "clean" : "not clean",
	      state & EXT4_ERROR_FS ? " with errors" : "");
	errors = e4_le16(sb->s_errors);
	field(ERRORS, "%s", errors == 1 ? "Continue" :
	      errors == 2 ? "Remount read-only" : errors == 3 ? "Panic" : "Unknown (continue)");
	field(OS_TYPE, "%s", os_name(e4_le32(sb->s_creator_os)));
	num(INODE_COUNT, e4_le32(sb->s_inodes_count));
	num(BLOCK_COUNT, e4_sb_blocks_count(sb));
	num(R_BLOCK_COUNT, e4_sb_r_blocks_count(sb));
	if (sb->s_overhead_clusters)
		num(OVERHEAD, e4_le32(sb->s_overhead_clusters));
	num(FREE_BLOCKS, e4_sb_free_blocks_count(sb));
	num(FREE_INODES, e4_le32(sb->s_free_inodes_count));
	num(FIRST_BLOCK, e4_le32(sb->s_first_data_block));
	num(BLOCK_SIZE, geo->block_size);
	if (bigalloc)
		num(CLUSTER_SIZE, geo->cluster_size);
	else
		num(FRAGMENT_SIZE, geo->cluster_size);
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_64BIT))
		num(DESC_SIZE, e4_le16(sb->s_desc_size));
	if (sb->s_reserved_gdt_blocks)
		num(RESERVED_GDT, e4_le16(sb->s_reserved_gdt_blocks));
	num(BLOCKS_PER_GROUP, e4_le32(sb->s_blocks_per_group));
	listing_u64(L, bigalloc ? F(CLUSTERS_PER_GROUP) : F(FRAGMENTS_PER_GROUP),
		    e4_le32(sb->s_clusters_per_group));
	num(INODES_PER_GROUP, e4_le32(sb->s_inodes_per_group));
	num(ITABLE_BLOCKS, geo->inode_blocks_per_group);
	if (sb->s_raid_stride)
		num(RAID_STRIDE, e4_le16(sb->s_raid_stride));
	if (sb->s_raid_stripe_width)
		num(RAID_STRIPE_WIDTH, e4_le32(sb->s_raid_stripe_width));
	if (sb->s_first_meta_bg)
		num(FIRST_META_BG, e4_le32(sb->s_first_meta_bg));
	if (sb->s_log_groups_per_flex)
		num(FLEX_BG_SIZE,
		    sb->s_log_groups_per_flex < 64 ? 1ULL << sb->s_log_groups_per_flex : 0ULL);
	if (sb->s_mkfs_time || sb->s_mkfs_time_hi)
		listing_time(L, F(MKFS_TIME), e4_sb_time(e4_le32(sb->s_mkfs_time), sb->s_mkfs_time_hi));
	if (sb->s_mtime || sb->s_mtime_hi)
		listing_time(L, F(MOUNT_TIME), e4_sb_time(e4_le32(sb->s_mtime), sb->s_mtime_hi));
	else
		listing_null(L, F(MOUNT_TIME), "n/a");
	listing_time(L, F(WRITE_TIME), e4_sb_time(e4_le32(sb->s_wtime), sb->s_wtime_hi));
	num(MOUNT_COUNT, e4_le16(sb->s_mnt_count));
	listing_i64(L, F(MAX_MOUNT_COUNT), (int16_t)e4_le16((uint16_t)sb->s_max_mnt_count));
	listing_time(L, F(LASTCHECK), lastcheck);
	listing_num_text(L, F(CHECKINTERVAL), ival, "%u (%s)", ival,
			 interval_text(ival, buf, sizeof(buf)));
	if (ival)
		listing_time(L, F(NEXT_CHECK), lastcheck + ival);
	print_lifetime_writes(e4_le64(sb->s_kbytes_written));
	print_owner(F(RESUID), e4_le16(sb->s_def_resuid), 0);
	print_owner(F(RESGID), e4_le16(sb->s_def_resgid), 1);
	if (rev >= EXT4_DYNAMIC_REV) {
		num(FIRST_INO, e4_le32(sb->s_first_ino));
		num(INODE_SIZE, e4_le16(sb->s_inode_size));
		if (sb->s_min_extra_isize)
			num(MIN_EXTRA_ISIZE, e4_le16(sb->s_min_extra_isize));
		if (sb->s_want_extra_isize)
			num(WANT_EXTRA_ISIZE, e4_le16(sb->s_want_extra_isize));
	}
	if (!is_zero(sb->s_journal_uuid, 16))
		field(JOURNAL_UUID, "%s", superlist_uuid(sb->s_journal_uuid, uuid, 0));
	if (sb->s_journal_inum)
		num(JOURNAL_INUM, e4_le32(sb->s_journal_inum));
	if (sb->s_journal_dev)
		listing_hex(L, F(JOURNAL_DEV), e4_le32(sb->s_journal_dev), 4, 0);
	if (sb->s_last_orphan)
		num(LAST_ORPHAN, e4_le32(sb->s_last_orphan));
	if (e4_has_compat(fs, EXT4_FEATURE_COMPAT_DIR_INDEX) || sb->s_def_hash_version)
		field(DEF_HASH, "%s", hash_name(sb->s_def_hash_version, buf));
	if (!is_zero(sb->s_hash_seed, 16))
		field(HASH_SEED, "%s",
		      superlist_uuid((const uint8_t *)sb->s_hash_seed, uuid, 0));
	if (sb->s_jnl_backup_type) {
		if (sb->s_jnl_backup_type == 1)
			field(JNL_BACKUP, "inode blocks");
		else
			field(JNL_BACKUP, "type %u", sb->s_jnl_backup_type);
	}
	if (e4_has_compat(fs, EXT4_FEATURE_COMPAT_SPARSE_SUPER2)) {
		listing_list_begin(L, F(BACKUP_BGS));
		if (sb->s_backup_bgs[0])
			listing_list_add_u64(L, e4_le32(sb->s_backup_bgs[0]));
		if (sb->s_backup_bgs[1])
			listing_list_add_u64(L, e4_le32(sb->s_backup_bgs[1]));
		listing_list_end(L, "");
	}
	if (sb->s_snapshot_inum) {
		num(SNAPSHOT_INUM, e4_le32(sb->s_snapshot_inum));
		num(SNAPSHOT_ID, e4_le32(sb->s_snapshot_id));
		num(SNAPSHOT_R_BLOCKS, e4_le64(sb->s_snapshot_r_blocks_count));
	}
	if (sb->s_snapshot_list)
		num(SNAPSHOT_LIST, e4_le32(sb->s_snapshot_list));
	if (sb->s_error_count)
		num(ERROR_COUNT, e4_le32(sb->s_error_count));
	print_error_info(F(FIRST_ERROR_TIME), e4_le32(sb->s_first_error_time), sb->s_first_error_time_hi,
			 sb->s_first_error_func, e4_le32(sb->s_first_error_line),
			 e4_le32(sb->s_first_error_ino), e4_le64(sb->s_first_error_block),
			 sb->s_first_error_errcode);
	print_error_info(F(LAST_ERROR_TIME), e4_le32(sb->s_last_error_time), sb->s_last_error_time_hi,
			 sb->s_last_error_func, e4_le32(sb->s_last_error_line),
			 e4_le32(sb->s_last_error_ino), e4_le64(sb->s_last_error_block),
			 sb->s_last_error_errcode);
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_MMP)) {
		num(MMP_BLOCK, e4_le64(sb->s_mmp_block));
		num(MMP_INTERVAL, e4_le16(sb->s_mmp_update_interval));
	}
	if (sb->s_usr_quota_inum)
		num(USR_QUOTA, e4_le32(sb->s_usr_quota_inum));
	if (sb->s_grp_quota_inum)
		num(GRP_QUOTA, e4_le32(sb->s_grp_quota_inum));
	if (sb->s_prj_quota_inum)
		num(PRJ_QUOTA, e4_le32(sb->s_prj_quota_inum));
	if (e4_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)) {
		field(CSUM_TYPE, "%s",
		      sb->s_checksum_type == EXT4_CRC32C_CHKSUM ? "crc32c" : "unknown");
		listing_hex(L, F(CSUM), e4_le32(sb->s_checksum), 8, 0);
		/* a damaged superblock (opened with checks off): what it
		 * should hold */
		if (e4_le32(sb->s_checksum) != e4_superblock_csum(sb))
			listing_hex(L, F(CSUM_EXPECTED), e4_superblock_csum(sb), 8, 0);
	}
	if (!is_zero(sb->s_encrypt_pw_salt, 16))
		field(PW_SALT, "%s", superlist_uuid(sb->s_encrypt_pw_salt, uuid, 0));
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_CSUM_SEED))
		listing_hex(L, F(CSUM_SEED), e4_le32(sb->s_checksum_seed), 8, 0);
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_CASEFOLD)) {
		uint16_t enc = e4_le16(sb->s_encoding);

		if (enc == 1)
			field(ENCODING, "utf8-12.1");
		else
			field(ENCODING, "UNKNOWN_ENCODING_%u", enc);
	}
	if (e4_has_compat(fs, EXT4_FEATURE_COMPAT_ORPHAN_FILE))
		num(ORPHAN_FILE, e4_le32(sb->s_orphan_file_inum));
}

/* ---- journal superblock ---------------------------------------------- */
static const char *jcsum_type_name(uint8_t t)
{
	switch (t) {
	case JBD2_CRC32_CHKSUM:
		return "crc32";
	case JBD2_MD5_CHKSUM:
		return "md5";
	case JBD2_SHA1_CHKSUM:
		return "sha1";
	case JBD2_CRC32C_CHKSUM:
		return "crc32c";
	default:
		return "unknown";
	}
}

/* fast_commit: the filesystem's compat feature says whether the journal
 * ends with a fast-commit area (s_num_fc_blks blocks, 0 meaning 256). */
static void print_journal_super(const journal_superblock_t *jsb, unsigned fs_bs,
				int fast_commit)
{
	uint32_t masks[3];
	uint32_t bsize = e4_be32(jsb->s_blocksize);
	uint32_t maxlen = e4_be32(jsb->s_maxlen);
	uint32_t nr_users = e4_be32(jsb->s_nr_users);
	uint32_t fc = 0, i;
	uint64_t kb;
	char buf[32], uuid[40];
	int k, bit;

	masks[0] = e4_be32(jsb->s_feature_compat);
	masks[1] = e4_be32(jsb->s_feature_incompat);
	masks[2] = e4_be32(jsb->s_feature_ro_compat);
	listing_list_begin(L, F(J_FEATURES));
	for (k = 0; k < 3; k++)
		for (bit = 0; bit < 32; bit++)
			if (masks[k] & (1U << bit))
				listing_list_add(L, e4_jfeature_name((enum e4_feature_kind)k,
								     1U << bit, buf));
	listing_list_end(L, "(none)");

	/* text in k or M as dumpe2fs prints it, JSON in bytes */
	kb = (uint64_t)(bsize / 1024) * maxlen;
	if (kb < 8192)
		listing_num_text(L, F(J_SIZE), kb << 10, "%lluk", (unsigned long long)kb);
	else
		listing_num_text(L, F(J_SIZE), kb << 10, "%lluM", (unsigned long long)(kb >> 10));
	if (bsize != fs_bs)
		num(J_BLOCK_SIZE, bsize);
	if (fast_commit) {
		fc = e4_be32(jsb->s_num_fc_blks);
		if (!fc)
			fc = JBD2_DEFAULT_FAST_COMMIT_BLOCKS;
		if (fc > maxlen)
			fc = maxlen;
	}
	num(J_BLOCKS, maxlen);
	num(J_MAX_TRANS, maxlen - fc);
	num(J_FC_BLOCKS, fc);
	if (e4_be32(jsb->s_first) != 1)
		num(J_FIRST, e4_be32(jsb->s_first));
	listing_hex(L, F(J_SEQUENCE), e4_be32(jsb->s_sequence), 8, 0);
	num(J_START, e4_be32(jsb->s_start));
	if (nr_users != 1)
		num(J_NR_USERS, nr_users);
	if (masks[0] & JBD2_FEATURE_COMPAT_CHECKSUM)
		field(J_CSUM_TYPE, "crc32");
	if (masks[1] & (JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3)) {
		field(J_CSUM_TYPE, "%s", jcsum_type_name(jsb->s_checksum_type));
		listing_hex(L, F(J_CSUM), e4_be32(jsb->s_checksum), 8, 0);
	}
	if (nr_users > 1 || !is_zero(jsb->s_users, 16)) {
		/* text: the first user on the label's line, the others below;
		 * JSON: an array, null for an all-zero UUID */
		if (listing_get_format(L) == LISTING_JSON)
			listing_list_begin(L, F(J_USERS));
		for (i = 0; i < nr_users && i < JBD2_USERS_MAX; i++) {
			superlist_uuid(jsb->s_users + 16 * i, uuid, 1);
			if (listing_get_format(L) == LISTING_JSON && is_zero(jsb->s_users + 16 * i, 16))
				listing_list_add_null(L, uuid);
			else if (listing_get_format(L) == LISTING_JSON)
				listing_list_add(L, uuid);
			else if (i == 0)
				listing_str(L, F(J_USERS), uuid);
			else
				listing_text(L, "%*s%s\n", LABEL_WIDTH, "", uuid);
		}
		if (listing_get_format(L) == LISTING_JSON)
			listing_list_end(L, "");
	}
	if (jsb->s_errno)
		listing_i64(L, F(J_ERRNO), (int32_t)e4_be32((uint32_t)jsb->s_errno));
}

/* The journal part: nothing without an internal journal.  Returns
 * nonzero when the journal superblock cannot be read. */
static int print_journal(const char *cmd, e4_fs *fs)
{
	const struct ext4_super_block *sb = e4_super(fs);
	e4_journal *j;
	errcode_t err;

	if (!e4_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL) || !sb->s_journal_inum)
		return 0;
	err = e4_journal_open(fs, NULL, &j);
	if (err == E4_ERR_EXTERNAL_JOURNAL || err == E4_ERR_NO_JOURNAL)
		return 0;
	if (err) {
		fflush(stdout);
		com_err(cmd, err, "while reading the journal superblock");
		return 1;
	}
	listing_object(L, F(JOURNAL));
	print_journal_super(e4_journal_super(j), e4_geom(fs)->block_size,
			    e4_has_compat(fs, EXT4_FEATURE_COMPAT_FAST_COMMIT));
	listing_close(L);
	e4_journal_close(j);
	return 0;
}

void superlist_super(listing *l, e4_fs *fs)
{
	L = l;
	print_superblock(fs);
}

int superlist_journal(listing *l, const char *prog, e4_fs *fs)
{
	L = l;
	return print_journal(prog, fs);
}
