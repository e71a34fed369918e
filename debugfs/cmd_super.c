/*
 * cmd_super.c: "stats": the superblock, the journal superblock and the
 * group descriptors.  Superblock lines use the labels dumpe2fs -h uses for
 * the same fields, one "Label:  value" per line, so the two outputs can
 * be compared field by field.
 */
#include <getopt.h>
#include <grp.h>
#include <stdarg.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "debugfs.h"

#define LABEL_WIDTH	26

/* Print "Label:" padded to the value column, then the formatted value. */
static void field(const char *label, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void field(const char *label, const char *fmt, ...)
{
	va_list ap;
	int n = printf("%s:", label);

	printf("%*s", n < LABEL_WIDTH ? LABEL_WIDTH - n : 1, "");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
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
	int k, bit, n = 0;

	(void)fs;
	masks[0] = e4_le32(sb->s_feature_compat);
	masks[1] = e4_le32(sb->s_feature_incompat);
	masks[2] = e4_le32(sb->s_feature_ro_compat);
	printf("%-*s", LABEL_WIDTH - 1, "Filesystem features:");
	for (k = 0; k < 3; k++)
		for (bit = 0; bit < 32; bit++)
			if (masks[k] & (1U << bit)) {
				printf(" %s", e4_feature_name(order[k], 1U << bit, buf));
				n++;
			}
	printf("%s\n", n ? "" : " (none)");
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
	int bit, n = 0;

	printf("%-*s", LABEL_WIDTH - 1, "Default mount options:");
	if (opts & EXT4_DEFM_JMODE) {
		printf(" %s", jmodes[(opts & EXT4_DEFM_JMODE) >> 5]);
		n++;
	}
	for (bit = 0; bit < 32; bit++) {
		uint32_t m = 1U << bit;

		if (!(opts & m) || (m & EXT4_DEFM_JMODE))
			continue;
		if (bit < (int)(sizeof(names) / sizeof(names[0])) && names[bit])
			printf(" %s", names[bit]);
		else
			printf(" MNTOPT_%d", bit);
		n++;
	}
	printf("%s\n", n ? "" : " (none)");
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
	field(label, "%u (%s %s)", id, is_group ? "group" : "user", name ? name : "unknown");
}

static void print_error_info(const char *which, uint32_t t, uint8_t t_hi,
			     const uint8_t *func, uint32_t line, uint32_t ino,
			     uint64_t blk, uint8_t code)
{
	char label[40], fn[33], buf[32];

	if (!t && !t_hi)
		return;
	snprintf(label, sizeof(label), "%s error time", which);
	field(label, "%s", time_ctime(e4_sb_time(t, t_hi)));
	fixed_string(fn, func, 32);
	snprintf(label, sizeof(label), "%s error function", which);
	field(label, "%s", fn);
	snprintf(label, sizeof(label), "%s error line #", which);
	field(label, "%u", line);
	if (ino) {
		snprintf(label, sizeof(label), "%s error inode #", which);
		field(label, "%u", ino);
	}
	if (blk) {
		snprintf(label, sizeof(label), "%s error block #", which);
		field(label, "%llu", (unsigned long long)blk);
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
	field("Filesystem UUID", "%s", uuid_string(sb->s_uuid, uuid, 1));
	field("Filesystem magic number", "0x%04X", e4_le16(sb->s_magic));
	field("Filesystem revision #", "%u (%s)", rev,
	      rev == 0 ? "original" : rev == 1 ? "dynamic" : "unknown");
	print_features(fs, sb);
	if (flags) {
		printf("%-*s", LABEL_WIDTH, "Filesystem flags:");
		if (flags & EXT2_FLAGS_SIGNED_HASH)
			printf("signed_directory_hash ");
		if (flags & EXT2_FLAGS_UNSIGNED_HASH)
			printf("unsigned_directory_hash ");
		if (flags & EXT2_FLAGS_TEST_FILESYS)
			printf("test_filesystem ");
		if (!(flags & (EXT2_FLAGS_SIGNED_HASH | EXT2_FLAGS_UNSIGNED_HASH |
			       EXT2_FLAGS_TEST_FILESYS)))
			printf("(none)");
		putchar('\n');
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
	field("Inode count", "%u", e4_le32(sb->s_inodes_count));
	field("Block count", "%llu", (unsigned long long)e4_sb_blocks_count(sb));
	field("Reserved block count", "%llu", (unsigned long long)e4_sb_r_blocks_count(sb));
	if (sb->s_overhead_clusters)
		field("Overhead clusters", "%u", e4_le32(sb->s_overhead_clusters));
	field("Free blocks", "%llu", (unsigned long long)e4_sb_free_blocks_count(sb));
	field("Free inodes", "%u", e4_le32(sb->s_free_inodes_count));
	field("First block", "%u", e4_le32(sb->s_first_data_block));
	field("Block size", "%u", geo->block_size);
	if (bigalloc)
		field("Cluster size", "%u", geo->cluster_size);
	else
		field("Fragment size", "%u", geo->cluster_size);
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_64BIT))
		field("Group descriptor size", "%u", e4_le16(sb->s_desc_size));
	if (sb->s_reserved_gdt_blocks)
		field("Reserved GDT blocks", "%u", e4_le16(sb->s_reserved_gdt_blocks));
	field("Blocks per group", "%u", e4_le32(sb->s_blocks_per_group));
	field(bigalloc ? "Clusters per group" : "Fragments per group", "%u",
	      e4_le32(sb->s_clusters_per_group));
	field("Inodes per group", "%u", e4_le32(sb->s_inodes_per_group));
	field("Inode blocks per group", "%u", geo->inode_blocks_per_group);
	if (sb->s_raid_stride)
		field("RAID stride", "%u", e4_le16(sb->s_raid_stride));
	if (sb->s_raid_stripe_width)
		field("RAID stripe width", "%u", e4_le32(sb->s_raid_stripe_width));
	if (sb->s_first_meta_bg)
		field("First meta block group", "%u", e4_le32(sb->s_first_meta_bg));
	if (sb->s_log_groups_per_flex)
		field("Flex block group size", "%llu",
		      sb->s_log_groups_per_flex < 64 ? 1ULL << sb->s_log_groups_per_flex : 0ULL);
	if (sb->s_mkfs_time || sb->s_mkfs_time_hi)
		field("Filesystem created", "%s",
		      time_ctime(e4_sb_time(e4_le32(sb->s_mkfs_time), sb->s_mkfs_time_hi)));
	if (sb->s_mtime || sb->s_mtime_hi)
		field("Last mount time", "%s",
		      time_ctime(e4_sb_time(e4_le32(sb->s_mtime), sb->s_mtime_hi)));
	else
		field("Last mount time", "n/a");
	field("Last write time", "%s", time_ctime(e4_sb_time(e4_le32(sb->s_wtime), sb->s_wtime_hi)));
	field("Mount count", "%u", e4_le16(sb->s_mnt_count));
	field("Maximum mount count", "%d", (int16_t)e4_le16((uint16_t)sb->s_max_mnt_count));
	field("Last checked", "%s", time_ctime(lastcheck));
	field("Check interval", "%u (%s)", ival, interval_text(ival, buf, sizeof(buf)));
	if (ival)
		field("Next check after", "%s", time_ctime(lastcheck + ival));
	print_lifetime_writes(e4_le64(sb->s_kbytes_written));
	print_owner("Reserved blocks uid", e4_le16(sb->s_def_resuid), 0);
	print_owner("Reserved blocks gid", e4_le16(sb->s_def_resgid), 1);
	if (rev >= EXT4_DYNAMIC_REV) {
		field("First inode", "%u", e4_le32(sb->s_first_ino));
		field("Inode size", "%u", e4_le16(sb->s_inode_size));
		if (sb->s_min_extra_isize)
			field("Required extra isize", "%u", e4_le16(sb->s_min_extra_isize));
		if (sb->s_want_extra_isize)
			field("Desired extra isize", "%u", e4_le16(sb->s_want_extra_isize));
	}
	if (!is_zero(sb->s_journal_uuid, 16))
		field("Journal UUID", "%s", uuid_string(sb->s_journal_uuid, uuid, 0));
	if (sb->s_journal_inum)
		field("Journal inode", "%u", e4_le32(sb->s_journal_inum));
	if (sb->s_journal_dev)
		field("Journal device", "0x%04x", e4_le32(sb->s_journal_dev));
	if (sb->s_last_orphan)
		field("First orphan inode", "%u", e4_le32(sb->s_last_orphan));
	if (e4_has_compat(fs, EXT4_FEATURE_COMPAT_DIR_INDEX) || sb->s_def_hash_version)
		field("Default directory hash", "%s", hash_name(sb->s_def_hash_version, buf));
	if (!is_zero(sb->s_hash_seed, 16))
		field("Directory Hash Seed", "%s",
		      uuid_string((const uint8_t *)sb->s_hash_seed, uuid, 0));
	if (sb->s_jnl_backup_type) {
		if (sb->s_jnl_backup_type == 1)
			field("Journal backup", "inode blocks");
		else
			field("Journal backup", "type %u", sb->s_jnl_backup_type);
	}
	if (e4_has_compat(fs, EXT4_FEATURE_COMPAT_SPARSE_SUPER2)) {
		printf("%-*s", LABEL_WIDTH, "Backup block groups:");
		if (sb->s_backup_bgs[0])
			printf("%u ", e4_le32(sb->s_backup_bgs[0]));
		if (sb->s_backup_bgs[1])
			printf("%u", e4_le32(sb->s_backup_bgs[1]));
		putchar('\n');
	}
	if (sb->s_snapshot_inum) {
		field("Snapshot inode", "%u", e4_le32(sb->s_snapshot_inum));
		field("Snapshot ID", "%u", e4_le32(sb->s_snapshot_id));
		field("Snapshot reserved blocks", "%llu",
		      (unsigned long long)e4_le64(sb->s_snapshot_r_blocks_count));
	}
	if (sb->s_snapshot_list)
		field("Snapshot list head", "%u", e4_le32(sb->s_snapshot_list));
	if (sb->s_error_count)
		field("FS Error count", "%u", e4_le32(sb->s_error_count));
	print_error_info("First", e4_le32(sb->s_first_error_time), sb->s_first_error_time_hi,
			 sb->s_first_error_func, e4_le32(sb->s_first_error_line),
			 e4_le32(sb->s_first_error_ino), e4_le64(sb->s_first_error_block),
			 sb->s_first_error_errcode);
	print_error_info("Last", e4_le32(sb->s_last_error_time), sb->s_last_error_time_hi,
			 sb->s_last_error_func, e4_le32(sb->s_last_error_line),
			 e4_le32(sb->s_last_error_ino), e4_le64(sb->s_last_error_block),
			 sb->s_last_error_errcode);
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_MMP)) {
		field("MMP block number", "%llu", (unsigned long long)e4_le64(sb->s_mmp_block));
		field("MMP update interval", "%u", e4_le16(sb->s_mmp_update_interval));
	}
	if (sb->s_usr_quota_inum)
		field("User quota inode", "%u", e4_le32(sb->s_usr_quota_inum));
	if (sb->s_grp_quota_inum)
		field("Group quota inode", "%u", e4_le32(sb->s_grp_quota_inum));
	if (sb->s_prj_quota_inum)
		field("Project quota inode", "%u", e4_le32(sb->s_prj_quota_inum));
	if (e4_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)) {
		field("Checksum type", "%s",
		      sb->s_checksum_type == EXT4_CRC32C_CHKSUM ? "crc32c" : "unknown");
		field("Checksum", "0x%08x", e4_le32(sb->s_checksum));
	}
	if (!is_zero(sb->s_encrypt_pw_salt, 16))
		field("Encryption PW Salt", "%s", uuid_string(sb->s_encrypt_pw_salt, uuid, 0));
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_CSUM_SEED))
		field("Checksum seed", "0x%08x", e4_le32(sb->s_checksum_seed));
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_CASEFOLD)) {
		uint16_t enc = e4_le16(sb->s_encoding);

		if (enc == 1)
			field("Character encoding", "utf8-12.1");
		else
			field("Character encoding", "UNKNOWN_ENCODING_%u", enc);
	}
	if (e4_has_compat(fs, EXT4_FEATURE_COMPAT_ORPHAN_FILE))
		field("Orphan file inode", "%u", e4_le32(sb->s_orphan_file_inum));
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
	int k, bit, n = 0;

	masks[0] = e4_be32(jsb->s_feature_compat);
	masks[1] = e4_be32(jsb->s_feature_incompat);
	masks[2] = e4_be32(jsb->s_feature_ro_compat);
	printf("%-*s", LABEL_WIDTH - 1, "Journal features:");
	for (k = 0; k < 3; k++)
		for (bit = 0; bit < 32; bit++)
			if (masks[k] & (1U << bit)) {
				printf(" %s", e4_jfeature_name((enum e4_feature_kind)k,
							       1U << bit, buf));
				n++;
			}
	printf("%s\n", n ? "" : " (none)");

	kb = (uint64_t)(bsize / 1024) * maxlen;
	if (kb < 8192)
		field("Total journal size", "%lluk", (unsigned long long)kb);
	else
		field("Total journal size", "%lluM", (unsigned long long)(kb >> 10));
	if (bsize != fs_bs)
		field("Journal block size", "%u", bsize);
	if (fast_commit) {
		fc = e4_be32(jsb->s_num_fc_blks);
		if (!fc)
			fc = JBD2_DEFAULT_FAST_COMMIT_BLOCKS;
		if (fc > maxlen)
			fc = maxlen;
	}
	field("Total journal blocks", "%u", maxlen);
	field("Max transaction length", "%u", maxlen - fc);
	field("Fast commit length", "%u", fc);
	if (e4_be32(jsb->s_first) != 1)
		field("Journal first block", "%u", e4_be32(jsb->s_first));
	field("Journal sequence", "0x%08x", e4_be32(jsb->s_sequence));
	field("Journal start", "%u", e4_be32(jsb->s_start));
	if (nr_users != 1)
		field("Journal number of users", "%u", nr_users);
	if (masks[0] & JBD2_FEATURE_COMPAT_CHECKSUM)
		field("Journal checksum type", "crc32");
	if (masks[1] & (JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3)) {
		field("Journal checksum type", "%s", jcsum_type_name(jsb->s_checksum_type));
		field("Journal checksum", "0x%08x", e4_be32(jsb->s_checksum));
	}
	if (nr_users > 1 || !is_zero(jsb->s_users, 16)) {
		for (i = 0; i < nr_users && i < JBD2_USERS_MAX; i++) {
			if (i == 0)
				field("Journal users", "%s",
				      uuid_string(jsb->s_users, uuid, 1));
			else
				printf("%*s%s\n", LABEL_WIDTH, "",
				       uuid_string(jsb->s_users + 16 * i, uuid, 1));
		}
	}
	if (jsb->s_errno)
		field("Journal errno", "%d", (int32_t)e4_be32((uint32_t)jsb->s_errno));
}

/* Journal part of "stats": nothing without an internal journal.  Returns
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
	print_journal_super(e4_journal_super(j), e4_geom(fs)->block_size,
			    e4_has_compat(fs, EXT4_FEATURE_COMPAT_FAST_COMMIT));
	e4_journal_close(j);
	return 0;
}

/* ---- bad blocks ------------------------------------------------------- */
struct bb_list {
	e4_blk_t *blk;
	size_t n, cap;
};

static int bb_cb(e4_fs *fs, const struct e4_map_extent *ext, void *priv)
{
	struct bb_list *l = priv;
	uint32_t i;

	(void)fs;
	if (ext->flags & E4_MAP_META)
		return 0;
	for (i = 0; i < ext->len; i++) {
		if (l->n == l->cap) {
			size_t cap = l->cap ? l->cap * 2 : 64;
			e4_blk_t *nb;

			if (cap > (1U << 24))
				return 0;	/* absurd list: stop collecting */
			nb = realloc(l->blk, cap * sizeof(*nb));
			if (!nb)
				return 0;
			l->blk = nb;
			l->cap = cap;
		}
		l->blk[l->n++] = ext->pblk + i;
	}
	return 0;
}

static int cmp_blk(const void *a, const void *b)
{
	e4_blk_t x = *(const e4_blk_t *)a, y = *(const e4_blk_t *)b;

	return x < y ? -1 : x > y;
}

/* "Bad blocks: 4, 9, 10": the blocks listed by the bad-block inode. */
static void print_bad_blocks(e4_fs *fs)
{
	struct bb_list l = { NULL, 0, 0 };
	union e4_inode_buf ib;
	size_t i;

	if (e4_inode_read(fs, EXT4_BAD_INO, &ib) || !e4_inode_blocks(fs, &ib.inode))
		return;
	if (e4_map_iterate(fs, EXT4_BAD_INO, &ib.inode, 0, bb_cb, &l) && !l.n) {
		free(l.blk);
		return;
	}
	if (l.n) {
		qsort(l.blk, l.n, sizeof(*l.blk), cmp_blk);
		printf("Bad blocks: %llu", (unsigned long long)l.blk[0]);
		for (i = 1; i < l.n; i++)
			if (l.blk[i] != l.blk[i - 1])
				printf(", %llu", (unsigned long long)l.blk[i]);
		putchar('\n');
	}
	free(l.blk);
}

/* ---- groups ----------------------------------------------------------- */
static void print_range(const char *what, e4_blk_t first, uint64_t count)
{
	if (count == 1)
		printf("%s %llu", what, (unsigned long long)first);
	else
		printf("%s %llu-%llu", what, (unsigned long long)first,
		       (unsigned long long)(first + count - 1));
}

static void print_rel(e4_fs *fs, e4_group_t g, e4_blk_t blk)
{
	e4_blk_t start = e4_group_first_block(fs, g);
	e4_group_t bg = e4_group_of_block(fs, blk);

	if (bg == g)
		printf(" (+%llu)", (unsigned long long)(blk - start));
	else
		printf(" (bg #%u + %llu)", bg,
		       (unsigned long long)(blk - e4_group_first_block(fs, bg)));
}

static void print_group(e4_fs *fs, e4_group_t g)
{
	const struct e4_geom *geo = e4_geom(fs);
	struct e4_group gd;
	e4_blk_t sb_blk, first, last;
	uint32_t gdt_blocks, reserved;
	errcode_t err;
	int csum = geo->metadata_csum || geo->gdt_csum;

	first = e4_group_first_block(fs, g);
	last = e4_group_last_block(fs, g);
	printf("Group %u: (Blocks %llu-%llu)", g, (unsigned long long)first,
	       (unsigned long long)last);
	err = e4_group_get(fs, g, &gd);
	if (err) {
		printf("\n");
		fflush(stdout);
		com_err("stats", err, "while reading group descriptor %u", g);
		return;
	}
	if (csum)
		printf(" csum 0x%04x%s", gd.checksum,
		       e4_group_csum_ok(fs, g) ? "" : " (does not match)");
	if (gd.flags) {
		const char *sep = " [";

		if (gd.flags & EXT4_BG_INODE_UNINIT) {
			printf("%sINODE_UNINIT", sep);
			sep = ", ";
		}
		if (gd.flags & EXT4_BG_BLOCK_UNINIT) {
			printf("%sBLOCK_UNINIT", sep);
			sep = ", ";
		}
		if (gd.flags & EXT4_BG_INODE_ZEROED) {
			printf("%sITABLE_ZEROED", sep);
			sep = ", ";
		}
		if (gd.flags & ~(EXT4_BG_INODE_UNINIT | EXT4_BG_BLOCK_UNINIT |
				 EXT4_BG_INODE_ZEROED))
			printf("%s0x%x", sep, gd.flags & ~(EXT4_BG_INODE_UNINIT |
				EXT4_BG_BLOCK_UNINIT | EXT4_BG_INODE_ZEROED));
		printf("]");
	}
	putchar('\n');

	/* descriptor blocks follow the superblock copy, or (meta_bg groups
	 * without one) start the group */
	e4_group_super_blocks(fs, g, &sb_blk, &gdt_blocks, &reserved);
	if (e4_group_has_super(fs, g)) {
		printf("  %s superblock at %llu", g ? "Backup" : "Primary",
		       (unsigned long long)sb_blk);
		if (gdt_blocks) {
			printf(", ");
			print_range("Group descriptors at", sb_blk + 1, gdt_blocks);
		}
		putchar('\n');
		if (reserved) {
			printf("  ");
			print_range("Reserved GDT blocks at", sb_blk + 1 + gdt_blocks, reserved);
			putchar('\n');
		}
	} else if (gdt_blocks) {
		printf("  ");
		print_range("Group descriptor at", first, 1);
		putchar('\n');
	}

	printf("  Block bitmap at %llu", (unsigned long long)gd.block_bitmap);
	print_rel(fs, g, gd.block_bitmap);
	if (geo->metadata_csum)
		printf(", csum 0x%08x", gd.block_bitmap_csum);
	printf("\n  Inode bitmap at %llu", (unsigned long long)gd.inode_bitmap);
	print_rel(fs, g, gd.inode_bitmap);
	if (geo->metadata_csum)
		printf(", csum 0x%08x", gd.inode_bitmap_csum);
	printf("\n  ");
	print_range("Inode table at", gd.inode_table, geo->inode_blocks_per_group);
	print_rel(fs, g, gd.inode_table);
	printf("\n  %u free %s, %u free inodes, %u directories", gd.free_blocks,
	       geo->cluster_bits ? "clusters" : "blocks", gd.free_inodes, gd.used_dirs);
	if (csum)
		printf(", %u unused inodes", gd.itable_unused);
	putchar('\n');
}

int do_stats(int argc, char **argv)
{
	int c, header_only = 0, ret;
	unsigned long long dirs = 0;
	e4_group_t g;

	reset_getopt();
	while ((c = getopt(argc, argv, "h")) != -1) {
		if (c != 'h')
			return usage(argv[0], NULL);
		header_only = 1;
	}
	if (optind != argc)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]))
		return 1;

	print_superblock(current_fs);
	ret = print_journal(argv[0], current_fs);
	print_bad_blocks(current_fs);
	if (header_only)
		return ret;
	for (g = 0; g < e4_geom(current_fs)->group_count; g++) {
		struct e4_group gd;

		if (!e4_group_get(current_fs, g, &gd))
			dirs += gd.used_dirs;
	}
	putchar('\n');
	field("Directories", "%llu", dirs);
	putchar('\n');
	for (g = 0; g < e4_geom(current_fs)->group_count; g++)
		print_group(current_fs, g);
	return ret;
}
