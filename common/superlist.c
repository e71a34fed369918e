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

/* The listing being filled (set by the entry points). */
static listing *L;

#define field(label, ...)	listing_fmt(L, label, __VA_ARGS__)
#define num(label, v)		listing_u64(L, label, v)

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
	listing_list_begin(L, "Filesystem features");
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

	listing_list_begin(L, "Default mount options");
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

static void print_owner(const char *label, unsigned id, int is_group)
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
	listing_num_text(L, label, id, "%u (%s %s)", id, is_group ? "group" : "user",
			 name ? name : "unknown");
}

static void print_error_info(const char *which, uint32_t t, uint8_t t_hi,
			     const uint8_t *func, uint32_t line, uint32_t ino,
			     uint64_t blk, uint8_t code)
{
	char label[40], fn[33], buf[32];

	if (!t && !t_hi)
		return;
	snprintf(label, sizeof(label), "%s error time", which);
	listing_time(L, label, e4_sb_time(t, t_hi));
	fixed_string(fn, func, 32);
	snprintf(label, sizeof(label), "%s error function", which);
	field(label, "%s", fn);
	snprintf(label, sizeof(label), "%s error line #", which);
	num(label, line);
	if (ino) {
		snprintf(label, sizeof(label), "%s error inode #", which);
		num(label, ino);
	}
	if (blk) {
		snprintf(label, sizeof(label), "%s error block #", which);
		num(label, blk);
	}
	if (code) {
		snprintf(label, sizeof(label), "%s error err", which);
		field(label, "%s", errcode_name(code, buf));
	}
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
	field("Lifetime writes", "%llu %s", (unsigned long long)v, units[u]);
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
	field("Filesystem volume name", "%s", buf[0] ? buf : "<none>");
	fixed_string(buf, sb->s_last_mounted, 64);
	field("Last mounted on", "%s", buf[0] ? buf : "<not available>");
	field("Filesystem UUID", "%s", superlist_uuid(sb->s_uuid, uuid, 1));
	listing_hex(L, "Filesystem magic number", e4_le16(sb->s_magic), 4, 1);
	listing_num_text(L, "Filesystem revision #", rev, "%u (%s)", rev,
	      rev == 0 ? "original" : rev == 1 ? "dynamic" : "unknown");
	print_features(fs, sb);
	if (flags) {
		listing_list_begin(L, "Filesystem flags");
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
		field("Mount options", "%s", buf);
	}
	field("Filesystem state", "%s%s", state & EXT4_VALID_FS ? "clean" : "not clean",
	      state & EXT4_ERROR_FS ? " with errors" : "");
	errors = e4_le16(sb->s_errors);
	field("Errors behavior", "%s", errors == 1 ? "Continue" :
	      errors == 2 ? "Remount read-only" : errors == 3 ? "Panic" : "Unknown (continue)");
	field("Filesystem OS type", "%s", os_name(e4_le32(sb->s_creator_os)));
	num("Inode count", e4_le32(sb->s_inodes_count));
	num("Block count", e4_sb_blocks_count(sb));
	num("Reserved block count", e4_sb_r_blocks_count(sb));
	if (sb->s_overhead_clusters)
		num("Overhead clusters", e4_le32(sb->s_overhead_clusters));
	num("Free blocks", e4_sb_free_blocks_count(sb));
	num("Free inodes", e4_le32(sb->s_free_inodes_count));
	num("First block", e4_le32(sb->s_first_data_block));
	num("Block size", geo->block_size);
	if (bigalloc)
		num("Cluster size", geo->cluster_size);
	else
		num("Fragment size", geo->cluster_size);
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_64BIT))
		num("Group descriptor size", e4_le16(sb->s_desc_size));
	if (sb->s_reserved_gdt_blocks)
		num("Reserved GDT blocks", e4_le16(sb->s_reserved_gdt_blocks));
	num("Blocks per group", e4_le32(sb->s_blocks_per_group));
	num(bigalloc ? "Clusters per group" : "Fragments per group",
	    e4_le32(sb->s_clusters_per_group));
	num("Inodes per group", e4_le32(sb->s_inodes_per_group));
	num("Inode blocks per group", geo->inode_blocks_per_group);
	if (sb->s_raid_stride)
		num("RAID stride", e4_le16(sb->s_raid_stride));
	if (sb->s_raid_stripe_width)
		num("RAID stripe width", e4_le32(sb->s_raid_stripe_width));
	if (sb->s_first_meta_bg)
		num("First meta block group", e4_le32(sb->s_first_meta_bg));
	if (sb->s_log_groups_per_flex)
		num("Flex block group size",
		    sb->s_log_groups_per_flex < 64 ? 1ULL << sb->s_log_groups_per_flex : 0ULL);
	if (sb->s_mkfs_time || sb->s_mkfs_time_hi)
		listing_time(L, "Filesystem created", e4_sb_time(e4_le32(sb->s_mkfs_time), sb->s_mkfs_time_hi));
	if (sb->s_mtime || sb->s_mtime_hi)
		listing_time(L, "Last mount time", e4_sb_time(e4_le32(sb->s_mtime), sb->s_mtime_hi));
	else
		field("Last mount time", "n/a");
	listing_time(L, "Last write time", e4_sb_time(e4_le32(sb->s_wtime), sb->s_wtime_hi));
	num("Mount count", e4_le16(sb->s_mnt_count));
	listing_i64(L, "Maximum mount count", (int16_t)e4_le16((uint16_t)sb->s_max_mnt_count));
	listing_time(L, "Last checked", lastcheck);
	listing_num_text(L, "Check interval", ival, "%u (%s)", ival,
			 interval_text(ival, buf, sizeof(buf)));
	if (ival)
		listing_time(L, "Next check after", lastcheck + ival);
	print_lifetime_writes(e4_le64(sb->s_kbytes_written));
	print_owner("Reserved blocks uid", e4_le16(sb->s_def_resuid), 0);
	print_owner("Reserved blocks gid", e4_le16(sb->s_def_resgid), 1);
	if (rev >= EXT4_DYNAMIC_REV) {
		num("First inode", e4_le32(sb->s_first_ino));
		num("Inode size", e4_le16(sb->s_inode_size));
		if (sb->s_min_extra_isize)
			num("Required extra isize", e4_le16(sb->s_min_extra_isize));
		if (sb->s_want_extra_isize)
			num("Desired extra isize", e4_le16(sb->s_want_extra_isize));
	}
	if (!is_zero(sb->s_journal_uuid, 16))
		field("Journal UUID", "%s", superlist_uuid(sb->s_journal_uuid, uuid, 0));
	if (sb->s_journal_inum)
		num("Journal inode", e4_le32(sb->s_journal_inum));
	if (sb->s_journal_dev)
		field("Journal device", "0x%04x", e4_le32(sb->s_journal_dev));
	if (sb->s_last_orphan)
		num("First orphan inode", e4_le32(sb->s_last_orphan));
	if (e4_has_compat(fs, EXT4_FEATURE_COMPAT_DIR_INDEX) || sb->s_def_hash_version)
		field("Default directory hash", "%s", hash_name(sb->s_def_hash_version, buf));
	if (!is_zero(sb->s_hash_seed, 16))
		field("Directory Hash Seed", "%s",
		      superlist_uuid((const uint8_t *)sb->s_hash_seed, uuid, 0));
	if (sb->s_jnl_backup_type) {
		if (sb->s_jnl_backup_type == 1)
			field("Journal backup", "inode blocks");
		else
			field("Journal backup", "type %u", sb->s_jnl_backup_type);
	}
	if (e4_has_compat(fs, EXT4_FEATURE_COMPAT_SPARSE_SUPER2)) {
		listing_list_begin(L, "Backup block groups");
		if (sb->s_backup_bgs[0]) {
			snprintf(buf, sizeof(buf), "%u", e4_le32(sb->s_backup_bgs[0]));
			listing_list_add(L, buf);
		}
		if (sb->s_backup_bgs[1]) {
			snprintf(buf, sizeof(buf), "%u", e4_le32(sb->s_backup_bgs[1]));
			listing_list_add(L, buf);
		}
		listing_list_end(L, "");
	}
	if (sb->s_snapshot_inum) {
		num("Snapshot inode", e4_le32(sb->s_snapshot_inum));
		num("Snapshot ID", e4_le32(sb->s_snapshot_id));
		num("Snapshot reserved blocks", e4_le64(sb->s_snapshot_r_blocks_count));
	}
	if (sb->s_snapshot_list)
		num("Snapshot list head", e4_le32(sb->s_snapshot_list));
	if (sb->s_error_count)
		num("FS Error count", e4_le32(sb->s_error_count));
	print_error_info("First", e4_le32(sb->s_first_error_time), sb->s_first_error_time_hi,
			 sb->s_first_error_func, e4_le32(sb->s_first_error_line),
			 e4_le32(sb->s_first_error_ino), e4_le64(sb->s_first_error_block),
			 sb->s_first_error_errcode);
	print_error_info("Last", e4_le32(sb->s_last_error_time), sb->s_last_error_time_hi,
			 sb->s_last_error_func, e4_le32(sb->s_last_error_line),
			 e4_le32(sb->s_last_error_ino), e4_le64(sb->s_last_error_block),
			 sb->s_last_error_errcode);
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_MMP)) {
		num("MMP block number", e4_le64(sb->s_mmp_block));
		num("MMP update interval", e4_le16(sb->s_mmp_update_interval));
	}
	if (sb->s_usr_quota_inum)
		num("User quota inode", e4_le32(sb->s_usr_quota_inum));
	if (sb->s_grp_quota_inum)
		num("Group quota inode", e4_le32(sb->s_grp_quota_inum));
	if (sb->s_prj_quota_inum)
		num("Project quota inode", e4_le32(sb->s_prj_quota_inum));
	if (e4_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)) {
		field("Checksum type", "%s",
		      sb->s_checksum_type == EXT4_CRC32C_CHKSUM ? "crc32c" : "unknown");
		listing_hex(L, "Checksum", e4_le32(sb->s_checksum), 8, 0);
		/* a damaged superblock (opened with checks off): what it
		 * should hold */
		if (e4_le32(sb->s_checksum) != e4_superblock_csum(sb))
			listing_hex(L, "Expected Checksum", e4_superblock_csum(sb), 8, 0);
	}
	if (!is_zero(sb->s_encrypt_pw_salt, 16))
		field("Encryption PW Salt", "%s", superlist_uuid(sb->s_encrypt_pw_salt, uuid, 0));
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_CSUM_SEED))
		listing_hex(L, "Checksum seed", e4_le32(sb->s_checksum_seed), 8, 0);
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_CASEFOLD)) {
		uint16_t enc = e4_le16(sb->s_encoding);

		if (enc == 1)
			field("Character encoding", "utf8-12.1");
		else
			field("Character encoding", "UNKNOWN_ENCODING_%u", enc);
	}
	if (e4_has_compat(fs, EXT4_FEATURE_COMPAT_ORPHAN_FILE))
		num("Orphan file inode", e4_le32(sb->s_orphan_file_inum));
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
	listing_list_begin(L, "Journal features");
	for (k = 0; k < 3; k++)
		for (bit = 0; bit < 32; bit++)
			if (masks[k] & (1U << bit))
				listing_list_add(L, e4_jfeature_name((enum e4_feature_kind)k,
								     1U << bit, buf));
	listing_list_end(L, "(none)");

	kb = (uint64_t)(bsize / 1024) * maxlen;
	if (kb < 8192)
		field("Total journal size", "%lluk", (unsigned long long)kb);
	else
		field("Total journal size", "%lluM", (unsigned long long)(kb >> 10));
	if (bsize != fs_bs)
		num("Journal block size", bsize);
	if (fast_commit) {
		fc = e4_be32(jsb->s_num_fc_blks);
		if (!fc)
			fc = JBD2_DEFAULT_FAST_COMMIT_BLOCKS;
		if (fc > maxlen)
			fc = maxlen;
	}
	num("Total journal blocks", maxlen);
	num("Max transaction length", maxlen - fc);
	num("Fast commit length", fc);
	if (e4_be32(jsb->s_first) != 1)
		num("Journal first block", e4_be32(jsb->s_first));
	listing_hex(L, "Journal sequence", e4_be32(jsb->s_sequence), 8, 0);
	num("Journal start", e4_be32(jsb->s_start));
	if (nr_users != 1)
		num("Journal number of users", nr_users);
	if (masks[0] & JBD2_FEATURE_COMPAT_CHECKSUM)
		field("Journal checksum type", "crc32");
	if (masks[1] & (JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3)) {
		field("Journal checksum type", "%s", jcsum_type_name(jsb->s_checksum_type));
		listing_hex(L, "Journal checksum", e4_be32(jsb->s_checksum), 8, 0);
	}
	if (nr_users > 1 || !is_zero(jsb->s_users, 16)) {
		/* text: the first user on the label's line, the others below */
		if (listing_get_format(L) == LISTING_JSON)
			listing_list_begin(L, "Journal users");
		for (i = 0; i < nr_users && i < JBD2_USERS_MAX; i++) {
			superlist_uuid(jsb->s_users + 16 * i, uuid, 1);
			if (listing_get_format(L) == LISTING_JSON)
				listing_list_add(L, uuid);
			else if (i == 0)
				listing_str(L, "Journal users", uuid);
			else
				listing_text(L, "%*s%s\n", LABEL_WIDTH, "", uuid);
		}
		if (listing_get_format(L) == LISTING_JSON)
			listing_list_end(L, "");
	}
	if (jsb->s_errno)
		listing_i64(L, "Journal errno", (int32_t)e4_be32((uint32_t)jsb->s_errno));
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
	listing_object(L, "Journal");
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
