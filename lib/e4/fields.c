/*
 * fields.c: named fields of the superblock, group descriptor and inode,
 * and setting them from text (fields.h).  One row per field: name, offset
 * and size of the low part, offset and size of the high part, type, array
 * count, flags (format doc sections 2, 4.1, 6.1).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "e4.h"
#include "e4_private.h"

#define U	E4_FIELD_UINT
#define I	E4_FIELD_INT
#define S	E4_FIELD_STRING
#define T	E4_FIELD_TIME
#define UU	E4_FIELD_UUID
#define H	E4_FIELD_HASHALG
#define EN	E4_FIELD_ENCODING
#define CS	E4_FIELD_F_CSUM
#define TX	E4_FIELD_F_TIME_EXTRA

/* name, off, size, hi_size, hi_off, type, count, flags */
static const struct e4_field super_fields[] = {
	{ "inodes_count", 0x000, 4, 0, 0, U, 0, 0 },
	{ "blocks_count", 0x004, 4, 4, 0x150, U, 0, 0 },
	{ "r_blocks_count", 0x008, 4, 4, 0x154, U, 0, 0 },
	{ "free_blocks_count", 0x00C, 4, 4, 0x158, U, 0, 0 },
	{ "free_inodes_count", 0x010, 4, 0, 0, U, 0, 0 },
	{ "first_data_block", 0x014, 4, 0, 0, U, 0, 0 },
	{ "log_block_size", 0x018, 4, 0, 0, U, 0, 0 },
	{ "log_cluster_size", 0x01C, 4, 0, 0, I, 0, 0 },
	{ "blocks_per_group", 0x020, 4, 0, 0, U, 0, 0 },
	{ "clusters_per_group", 0x024, 4, 0, 0, U, 0, 0 },
	{ "inodes_per_group", 0x028, 4, 0, 0, U, 0, 0 },
	{ "mtime", 0x02C, 4, 1, 0x275, T, 0, 0 },
	{ "wtime", 0x030, 4, 1, 0x274, T, 0, 0 },
	{ "mnt_count", 0x034, 2, 0, 0, U, 0, 0 },
	{ "max_mnt_count", 0x036, 2, 0, 0, I, 0, 0 },
	{ "magic", 0x038, 2, 0, 0, U, 0, 0 },
	{ "state", 0x03A, 2, 0, 0, U, 0, 0 },
	{ "errors", 0x03C, 2, 0, 0, U, 0, 0 },
	{ "minor_rev_level", 0x03E, 2, 0, 0, U, 0, 0 },
	{ "lastcheck", 0x040, 4, 1, 0x277, T, 0, 0 },
	{ "checkinterval", 0x044, 4, 0, 0, U, 0, 0 },
	{ "creator_os", 0x048, 4, 0, 0, U, 0, 0 },
	{ "rev_level", 0x04C, 4, 0, 0, U, 0, 0 },
	{ "def_resuid", 0x050, 2, 0, 0, U, 0, 0 },
	{ "def_resgid", 0x052, 2, 0, 0, U, 0, 0 },
	{ "first_ino", 0x054, 4, 0, 0, U, 0, 0 },
	{ "inode_size", 0x058, 2, 0, 0, U, 0, 0 },
	{ "block_group_nr", 0x05A, 2, 0, 0, U, 0, 0 },
	{ "feature_compat", 0x05C, 4, 0, 0, U, 0, 0 },
	{ "feature_incompat", 0x060, 4, 0, 0, U, 0, 0 },
	{ "feature_ro_compat", 0x064, 4, 0, 0, U, 0, 0 },
	{ "uuid", 0x068, 16, 0, 0, UU, 0, 0 },
	{ "volume_name", 0x078, 16, 0, 0, S, 0, 0 },
	{ "last_mounted", 0x088, 64, 0, 0, S, 0, 0 },
	{ "algorithm_usage_bitmap", 0x0C8, 4, 0, 0, U, 0, 0 },
	{ "prealloc_blocks", 0x0CC, 1, 0, 0, U, 0, 0 },
	{ "prealloc_dir_blocks", 0x0CD, 1, 0, 0, U, 0, 0 },
	{ "reserved_gdt_blocks", 0x0CE, 2, 0, 0, U, 0, 0 },
	{ "journal_uuid", 0x0D0, 16, 0, 0, UU, 0, 0 },
	{ "journal_inum", 0x0E0, 4, 0, 0, U, 0, 0 },
	{ "journal_dev", 0x0E4, 4, 0, 0, U, 0, 0 },
	{ "last_orphan", 0x0E8, 4, 0, 0, U, 0, 0 },
	{ "hash_seed", 0x0EC, 16, 0, 0, UU, 0, 0 },
	{ "def_hash_version", 0x0FC, 1, 0, 0, H, 0, 0 },
	{ "jnl_backup_type", 0x0FD, 1, 0, 0, U, 0, 0 },
	{ "desc_size", 0x0FE, 2, 0, 0, U, 0, 0 },
	{ "default_mount_opts", 0x100, 4, 0, 0, U, 0, 0 },
	{ "first_meta_bg", 0x104, 4, 0, 0, U, 0, 0 },
	{ "mkfs_time", 0x108, 4, 1, 0x276, T, 0, 0 },
	{ "jnl_blocks", 0x10C, 4, 0, 0, U, 17, 0 },
	{ "min_extra_isize", 0x15C, 2, 0, 0, U, 0, 0 },
	{ "want_extra_isize", 0x15E, 2, 0, 0, U, 0, 0 },
	{ "flags", 0x160, 4, 0, 0, U, 0, 0 },
	{ "raid_stride", 0x164, 2, 0, 0, U, 0, 0 },
	{ "mmp_interval", 0x166, 2, 0, 0, U, 0, 0 },
	{ "mmp_block", 0x168, 8, 0, 0, U, 0, 0 },
	{ "raid_stripe_width", 0x170, 4, 0, 0, U, 0, 0 },
	{ "log_groups_per_flex", 0x174, 1, 0, 0, U, 0, 0 },
	{ "checksum_type", 0x175, 1, 0, 0, U, 0, 0 },
	{ "encryption_level", 0x176, 1, 0, 0, U, 0, 0 },
	{ "kbytes_written", 0x178, 8, 0, 0, U, 0, 0 },
	{ "snapshot_inum", 0x180, 4, 0, 0, U, 0, 0 },
	{ "snapshot_id", 0x184, 4, 0, 0, U, 0, 0 },
	{ "snapshot_r_blocks_count", 0x188, 8, 0, 0, U, 0, 0 },
	{ "snapshot_list", 0x190, 4, 0, 0, U, 0, 0 },
	{ "error_count", 0x194, 4, 0, 0, U, 0, 0 },
	{ "first_error_time", 0x198, 4, 1, 0x278, T, 0, 0 },
	{ "first_error_ino", 0x19C, 4, 0, 0, U, 0, 0 },
	{ "first_error_block", 0x1A0, 8, 0, 0, U, 0, 0 },
	{ "first_error_func", 0x1A8, 32, 0, 0, S, 0, 0 },
	{ "first_error_line", 0x1C8, 4, 0, 0, U, 0, 0 },
	{ "last_error_time", 0x1CC, 4, 1, 0x279, T, 0, 0 },
	{ "last_error_ino", 0x1D0, 4, 0, 0, U, 0, 0 },
	{ "last_error_line", 0x1D4, 4, 0, 0, U, 0, 0 },
	{ "last_error_block", 0x1D8, 8, 0, 0, U, 0, 0 },
	{ "last_error_func", 0x1E0, 32, 0, 0, S, 0, 0 },
	{ "mount_opts", 0x200, 64, 0, 0, S, 0, 0 },
	{ "usr_quota_inum", 0x240, 4, 0, 0, U, 0, 0 },
	{ "grp_quota_inum", 0x244, 4, 0, 0, U, 0, 0 },
	{ "overhead_clusters", 0x248, 4, 0, 0, U, 0, 0 },
	{ "backup_bgs", 0x24C, 4, 0, 0, U, 2, 0 },
	{ "encrypt_algos", 0x254, 1, 0, 0, U, 4, 0 },
	{ "encrypt_pw_salt", 0x258, 16, 0, 0, UU, 0, 0 },
	{ "lpf_ino", 0x268, 4, 0, 0, U, 0, 0 },
	{ "prj_quota_inum", 0x26C, 4, 0, 0, U, 0, 0 },
	{ "checksum_seed", 0x270, 4, 0, 0, U, 0, 0 },
	{ "first_error_errcode", 0x27A, 1, 0, 0, U, 0, 0 },
	{ "last_error_errcode", 0x27B, 1, 0, 0, U, 0, 0 },
	{ "encoding", 0x27C, 2, 0, 0, EN, 0, 0 },
	{ "encoding_flags", 0x27E, 2, 0, 0, U, 0, 0 },
	{ "orphan_file_inum", 0x280, 4, 0, 0, U, 0, 0 },
	{ "checksum", 0x3FC, 4, 0, 0, U, 0, CS },
	{ NULL, 0, 0, 0, 0, 0, 0, 0 }
};

static const struct e4_field group_fields[] = {
	{ "block_bitmap", 0x00, 4, 4, 0x20, U, 0, 0 },
	{ "inode_bitmap", 0x04, 4, 4, 0x24, U, 0, 0 },
	{ "inode_table", 0x08, 4, 4, 0x28, U, 0, 0 },
	{ "free_blocks_count", 0x0C, 2, 2, 0x2C, U, 0, 0 },
	{ "free_inodes_count", 0x0E, 2, 2, 0x2E, U, 0, 0 },
	{ "used_dirs_count", 0x10, 2, 2, 0x30, U, 0, 0 },
	{ "flags", 0x12, 2, 0, 0, U, 0, 0 },
	{ "exclude_bitmap", 0x14, 4, 4, 0x34, U, 0, 0 },
	{ "block_bitmap_csum", 0x18, 2, 2, 0x38, U, 0, 0 },
	{ "inode_bitmap_csum", 0x1A, 2, 2, 0x3A, U, 0, 0 },
	{ "itable_unused", 0x1C, 2, 2, 0x32, U, 0, 0 },
	{ "checksum", 0x1E, 2, 0, 0, U, 0, CS },
	{ NULL, 0, 0, 0, 0, 0, 0, 0 }
};

/* osd1/osd2 aliases (translator, faddr, frag, fsize, author) as the
 * reference names them: the Hurd's fields at the same offsets */
static const struct e4_field inode_fields[] = {
	{ "mode", 0x00, 2, 0, 0, U, 0, 0 },
	{ "uid", 0x02, 2, 2, 0x78, U, 0, 0 },
	{ "size", 0x04, 4, 4, 0x6C, U, 0, 0 },
	{ "atime", 0x08, 4, 4, 0x8C, T, 0, TX },
	{ "ctime", 0x0C, 4, 4, 0x84, T, 0, TX },
	{ "mtime", 0x10, 4, 4, 0x88, T, 0, TX },
	{ "dtime", 0x14, 4, 0, 0, T, 0, 0 },
	{ "gid", 0x18, 2, 2, 0x7A, U, 0, 0 },
	{ "links_count", 0x1A, 2, 0, 0, U, 0, 0 },
	{ "blocks", 0x1C, 4, 2, 0x74, U, 0, 0 },
	{ "flags", 0x20, 4, 0, 0, U, 0, 0 },
	{ "version", 0x24, 4, 4, 0x98, U, 0, 0 },
	{ "translator", 0x24, 4, 0, 0, U, 0, 0 },
	{ "block", 0x28, 4, 0, 0, U, 12, 0 },
	{ "block[IND]", 0x58, 4, 0, 0, U, 0, 0 },
	{ "block[DIND]", 0x5C, 4, 0, 0, U, 0, 0 },
	{ "block[TIND]", 0x60, 4, 0, 0, U, 0, 0 },
	{ "generation", 0x64, 4, 0, 0, U, 0, 0 },
	{ "file_acl", 0x68, 4, 2, 0x76, U, 0, 0 },
	{ "faddr", 0x70, 4, 0, 0, U, 0, 0 },
	{ "frag", 0x74, 1, 0, 0, U, 0, 0 },
	{ "fsize", 0x75, 1, 0, 0, U, 0, 0 },
	{ "checksum", 0x7C, 2, 2, 0x82, U, 0, CS },
	{ "author", 0x7C, 4, 0, 0, U, 0, 0 },
	{ "extra_isize", 0x80, 2, 0, 0, U, 0, 0 },
	{ "ctime_extra", 0x84, 4, 0, 0, U, 0, 0 },
	{ "mtime_extra", 0x88, 4, 0, 0, U, 0, 0 },
	{ "atime_extra", 0x8C, 4, 0, 0, U, 0, 0 },
	{ "crtime", 0x90, 4, 4, 0x94, T, 0, TX },
	{ "crtime_extra", 0x94, 4, 0, 0, U, 0, 0 },
	{ "projid", 0x9C, 4, 0, 0, U, 0, 0 },
	{ NULL, 0, 0, 0, 0, 0, 0, 0 }
};

const struct e4_field *e4_fields(enum e4_field_struct s)
{
	switch (s) {
	case E4_FIELDS_SUPER:
		return super_fields;
	case E4_FIELDS_GROUP:
		return group_fields;
	default:
		return inode_fields;
	}
}

const char *e4_field_type_name(const struct e4_field *f)
{
	static const char *const names[] = {
		"unsigned integer", "integer", "string", "date/time", "UUID",
		"hash algorithm", "encoding"
	};

	if (f->flags & E4_FIELD_F_CSUM)
		return "unsigned integer or \"calc\"";
	return f->type < sizeof(names) / sizeof(names[0]) ? names[f->type] : "unknown";
}

/* ---- names ------------------------------------------------------------ */
static const char *const hash_names[] = {
	"legacy", "half_md4", "tea", "legacy_unsigned", "half_md4_unsigned", "tea_unsigned",
	"siphash"
};

const char *e4_hash_alg_name(unsigned v)
{
	return v < sizeof(hash_names) / sizeof(hash_names[0]) ? hash_names[v] : NULL;
}

errcode_t e4_hash_alg_lookup(const char *name, unsigned *v)
{
	for (unsigned i = 0; i < sizeof(hash_names) / sizeof(hash_names[0]); i++)
		if (!strcasecmp(name, hash_names[i])) {
			*v = i;
			return 0;
		}
	return E4_ERR_FIELD_VALUE;
}

static int hi_exists(const struct e4_field *f, size_t len)
{
	return f->hi_size && (size_t)f->hi_off + f->hi_size <= len;
}

static const char *strip_prefix(enum e4_field_struct s, const char *name)
{
	static const char *const prefix[] = { "s_", "bg_", "i_" };
	size_t n = strlen(prefix[s]);

	return strncmp(name, prefix[s], n) ? name : name + n;
}

/* name (prefix stripped) against f: exact, "name[i]", "name_lo", "name_hi" */
static errcode_t match_field(const struct e4_field *f, const char *name, size_t len,
			     struct e4_field_ref *ref)
{
	size_t n = strlen(f->name);
	const char *rest;

	if (strncmp(name, f->name, n))
		return E4_ERR_FIELD_UNKNOWN;
	rest = name + n;
	ref->field = f;
	ref->index = 0;
	ref->part = 0;
	if (!*rest)
		return f->count ? E4_ERR_FIELD_INDEX : 0;
	if (*rest == '[') {
		char *end;
		unsigned long i;

		if (!f->count)
			return E4_ERR_FIELD_INDEX;
		errno = 0;
		i = strtoul(rest + 1, &end, 10);
		if (!isdigit((unsigned char)rest[1]) || errno || strcmp(end, "]"))
			return E4_ERR_FIELD_UNKNOWN;
		if (i >= f->count)
			return E4_ERR_FIELD_INDEX;
		ref->index = (unsigned)i;
		return 0;
	}
	if (f->hi_size && !strcmp(rest, "_lo")) {
		ref->part = 1;
		return 0;
	}
	if (f->hi_size && !strcmp(rest, "_hi") && hi_exists(f, len)) {
		ref->part = 2;
		return 0;
	}
	return E4_ERR_FIELD_UNKNOWN;
}

errcode_t e4_field_lookup(enum e4_field_struct s, size_t len, const char *name,
			  struct e4_field_ref *ref)
{
	const struct e4_field *f;
	errcode_t first = E4_ERR_FIELD_UNKNOWN;

	name = strip_prefix(s, name);
	/* exact names first: "block[IND]" is a row of its own */
	for (f = e4_fields(s); f->name; f++)
		if (!strcmp(f->name, name)) {
			errcode_t err = match_field(f, name, len, ref);

			if (!err)
				return 0;
			first = err;
		}
	for (f = e4_fields(s); f->name; f++) {
		errcode_t err = match_field(f, name, len, ref);

		if (!err)
			return 0;
		if (err != E4_ERR_FIELD_UNKNOWN)
			first = err;
	}
	return first;
}

/* ---- values ----------------------------------------------------------- */
static void put_le(uint8_t *p, unsigned size, uint64_t v)
{
	for (unsigned i = 0; i < size; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Bytes of the selected parts: *lo_bytes, *hi_bytes (0 when not set). */
static void part_sizes(const struct e4_field_ref *ref, size_t len, unsigned *lo, unsigned *hi)
{
	const struct e4_field *f = ref->field;

	*lo = ref->part == 2 ? 0 : f->size;
	*hi = ref->part == 1 || !hi_exists(f, len) ? 0 : f->hi_size;
}

void e4_field_range(const struct e4_field_ref *ref, size_t len, int64_t *min, uint64_t *max)
{
	const struct e4_field *f = ref->field;
	unsigned lo, hi, bits;

	part_sizes(ref, len, &lo, &hi);
	if (f->type == E4_FIELD_TIME && ref->part != 2 && (f->flags & E4_FIELD_F_TIME_EXTRA)) {
		/* signed 32-bit seconds, plus two epoch bits with the extra word */
		*min = INT32_MIN;
		*max = hi ? (uint64_t)INT32_MAX + (3ULL << 32) : (uint64_t)INT32_MAX;
		return;
	}
	bits = 8 * (ref->part == 2 ? hi : lo + hi);
	if (f->type == E4_FIELD_INT && ref->part != 2) {
		*min = -(1LL << (bits - 1));
		*max = (1ULL << (bits - 1)) - 1;
		return;
	}
	*min = 0;
	*max = bits >= 64 ? UINT64_MAX : (1ULL << bits) - 1;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* YYYYMMDD[HH[MM[SS]]], all digits, a valid date: seconds (UTC). */
static int parse_date(const char *s, int64_t *t)
{
	size_t n = strlen(s);
	unsigned v[6] = { 0, 0, 0, 0, 0, 0 };
	const unsigned width[6] = { 4, 2, 2, 2, 2, 2 };
	const char *p = s;

	if (n != 8 && n != 10 && n != 12 && n != 14)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return -1;
	for (unsigned k = 0; k < 6 && *p; k++)
		for (unsigned j = 0; j < width[k]; j++)
			v[k] = v[k] * 10 + (unsigned)(*p++ - '0');
	if (v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > 31 || v[3] > 23 || v[4] > 59 ||
	    v[5] > 60)
		return -1;
	*t = days_from_civil(v[0], v[1], v[2]) * 86400 + v[3] * 3600 + v[4] * 60 + v[5];
	return 0;
}

/* A whole number in C notation (base 0), with a sign when allowed. */
static errcode_t parse_num(const char *s, int sign_ok, int64_t *sv, uint64_t *uv, int *neg)
{
	char *end;

	*neg = 0;
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '-') {
		long long v;

		if (!sign_ok)
			return E4_ERR_FIELD_RANGE;
		errno = 0;
		v = strtoll(s, &end, 0);
		if (end == s || *end)
			return E4_ERR_FIELD_VALUE;
		if (errno)
			return E4_ERR_FIELD_RANGE;
		*neg = v < 0;
		*sv = v;
		*uv = (uint64_t)v;
		return 0;
	}
	if (*s == '+' || !*s)
		return E4_ERR_FIELD_VALUE;
	errno = 0;
	*uv = strtoull(s, &end, 0);
	if (*end)
		return E4_ERR_FIELD_VALUE;
	if (errno)
		return E4_ERR_FIELD_RANGE;
	*sv = (int64_t)*uv;
	return 0;
}

static errcode_t parse_time(const char *s, const struct e4_field_opts *o, int64_t *t, int *neg)
{
	uint64_t u;

	*neg = 0;
	if (!strcmp(s, "now")) {
		*t = o ? o->now : 0;
		*neg = *t < 0;
		return 0;
	}
	if (*s == '@')
		return parse_num(s + 1, 1, t, &u, neg);
	if (!parse_date(s, t)) {
		*neg = *t < 0;
		return 0;
	}
	return parse_num(s, 1, t, &u, neg);
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static errcode_t parse_uuid(const char *s, const struct e4_field_opts *o, uint8_t out[16])
{
	if (!strcasecmp(s, "null") || !strcasecmp(s, "clear")) {
		memset(out, 0, 16);
		return 0;
	}
	if (!strcasecmp(s, "random") || !strcasecmp(s, "time")) {
		if (!o || !o->gen_uuid)
			return E4_ERR_FIELD_VALUE;
		o->gen_uuid(out, !strcasecmp(s, "time"));
		return 0;
	}
	/* 8-4-4-4-12 */
	if (strlen(s) != 36)
		return E4_ERR_FIELD_VALUE;
	for (unsigned i = 0, k = 0; i < 36; i++) {
		int hi, lo;

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return E4_ERR_FIELD_VALUE;
			continue;
		}
		hi = hexval((unsigned char)s[i]);
		lo = hexval((unsigned char)s[i + 1]);
		if (hi < 0 || lo < 0)
			return E4_ERR_FIELD_VALUE;
		out[k++] = (uint8_t)(hi << 4 | lo);
		i++;
	}
	return 0;
}

static errcode_t parse_encoding(const char *s, uint64_t *v)
{
	int64_t sv;
	int neg;

	if (!strcasecmp(s, "utf8") || !strcasecmp(s, "utf8-12.1")) {
		*v = 1;
		return 0;
	}
	return parse_num(s, 0, &sv, v, &neg);
}

/* Store v into the selected parts (low part first, the rest in the high). */
static void store_num(const struct e4_field_ref *ref, uint8_t *p, size_t len, uint64_t v)
{
	const struct e4_field *f = ref->field;
	unsigned lo, hi;

	part_sizes(ref, len, &lo, &hi);
	if (ref->part == 2) {
		put_le(p + f->hi_off, hi, v);
		return;
	}
	put_le(p + f->off + ref->index * f->size, lo, v);
	if (hi)
		put_le(p + f->hi_off, hi, lo >= 8 ? 0 : v >> (8 * lo));
}

static errcode_t set_time(const struct e4_field_ref *ref, uint8_t *p, size_t len, int64_t t)
{
	const struct e4_field *f = ref->field;
	uint32_t base, extra;

	if (!(f->flags & E4_FIELD_F_TIME_EXTRA) || ref->part == 1 || !hi_exists(f, len)) {
		store_num(ref, p, len, (uint64_t)t);
		return 0;
	}
	e4_time_encode(t, 0, &base, &extra);
	put_le(p + f->off, 4, base);
	put_le(p + f->hi_off, 4, extra);
	return 0;
}

errcode_t e4_field_parse_set(const struct e4_field_ref *ref, void *buf, size_t len,
			     const char *value, const struct e4_field_opts *o)
{
	const struct e4_field *f = ref->field;
	uint8_t *p = buf;
	int64_t sv = 0, min;
	uint64_t uv = 0, max;
	unsigned hv;
	errcode_t err;
	int neg = 0;

	if ((size_t)f->off + (size_t)(ref->index + 1) * f->size > len)
		return E4_ERR_FIELD_UNKNOWN;
	switch (ref->part == 2 ? E4_FIELD_UINT : f->type) {
	case E4_FIELD_STRING: {
		size_t n = strlen(value);

		if (n > f->size)
			return E4_ERR_FIELD_RANGE;
		memset(p + f->off, 0, f->size);
		memcpy(p + f->off, value, n);
		return 0;
	}
	case E4_FIELD_UUID: {
		uint8_t u[16];

		err = parse_uuid(value, o, u);
		if (!err)
			memcpy(p + f->off, u, 16);
		return err;
	}
	case E4_FIELD_HASHALG:
		err = e4_hash_alg_lookup(value, &hv);
		if (!err)
			p[f->off] = (uint8_t)hv;
		return err;
	case E4_FIELD_ENCODING:
		err = parse_encoding(value, &uv);
		break;
	case E4_FIELD_TIME:
		err = parse_time(value, o, &sv, &neg);
		uv = (uint64_t)sv;
		break;
	case E4_FIELD_INT:
		err = parse_num(value, 1, &sv, &uv, &neg);
		break;
	default:
		err = parse_num(value, 0, &sv, &uv, &neg);
		break;
	}
	if (err)
		return err;
	e4_field_range(ref, len, &min, &max);
	if (neg ? sv < min : uv > max)
		return E4_ERR_FIELD_RANGE;
	if (f->type == E4_FIELD_TIME && ref->part != 2)
		return set_time(ref, p, len, sv);
	store_num(ref, p, len, uv);
	return 0;
}

/* ---- on an open filesystem --------------------------------------------- */
static int is_calc(const struct e4_field_ref *ref, const char *value)
{
	return (ref->field->flags & E4_FIELD_F_CSUM) && !strcmp(value, "calc");
}

errcode_t e4_super_field_set(e4_fs *fs, const char *name, const char *value,
			     const struct e4_field_opts *o, int *is_csum)
{
	struct e4_field_ref ref;
	errcode_t err;

	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	err = e4_field_lookup(E4_FIELDS_SUPER, EXT4_SUPERBLOCK_SIZE, name, &ref);
	if (err)
		return err;
	if (is_csum)
		*is_csum = (ref.field->flags & E4_FIELD_F_CSUM) && !is_calc(&ref, value);
	if (is_calc(&ref, value)) {
		fs->sb->s_checksum = e4_cpu_to_le32(e4_superblock_csum(fs->sb));
		return 0;
	}
	return e4_field_parse_set(&ref, fs->sb, EXT4_SUPERBLOCK_SIZE, value, o);
}

errcode_t e4_group_field_set(e4_fs *fs, e4_group_t g, const char *name, const char *value,
			     const struct e4_field_opts *o, uint32_t *csum)
{
	size_t ds = fs->geom.desc_size;
	struct e4_field_ref ref;
	uint8_t *d;
	errcode_t err;

	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (g >= fs->geom.group_count || !fs->gdt)
		return E4_ERR_BAD_GROUP_NUM;
	err = e4_field_lookup(E4_FIELDS_GROUP, ds, name, &ref);
	if (err)
		return err;
	d = fs->gdt + (size_t)g * ds;
	if (!is_calc(&ref, value)) {
		err = e4_field_parse_set(&ref, d, ds, value, o);
		if (err || (ref.field->flags & E4_FIELD_F_CSUM))
			return err;
	}
	e4_group_csum_set(fs, g);
	if (csum)
		*csum = e4_le16(((struct ext4_group_desc *)d)->bg_checksum);
	return 0;
}

errcode_t e4_inode_field_set(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, const char *name,
			     const char *value, const struct e4_field_opts *o, uint32_t *csum)
{
	size_t is = fs->geom.inode_size;
	struct e4_field_ref ref;
	errcode_t err;

	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	err = e4_field_lookup(E4_FIELDS_INODE, is, name, &ref);
	if (err)
		return err;
	if (is_calc(&ref, value)) {
		err = e4_inode_write(fs, ino, ib);
		if (!err && csum)
			*csum = e4_le16(ib->inode.l_i_checksum_lo) |
				(hi_exists(ref.field, is) ?
				 (uint32_t)e4_le16(ib->inode.i_checksum_hi) << 16 : 0);
		return err;
	}
	err = e4_field_parse_set(&ref, ib->raw, is, value, o);
	if (err)
		return err;
	if (ref.field->flags & E4_FIELD_F_CSUM)
		return e4_inode_write_as_is(fs, ino, ib);
	return e4_inode_write(fs, ino, ib);
}

errcode_t e4_time_parse(const char *s, int64_t now, int64_t *t)
{
	struct e4_field_opts o = { .now = now, .gen_uuid = NULL };
	int neg;

	return parse_time(s, &o, t, &neg);
}

errcode_t e4_super_feature_edit(e4_fs *fs, const char *edit)
{
	static const size_t off[3] = {
		offsetof(struct ext4_super_block, s_feature_compat),
		offsetof(struct ext4_super_block, s_feature_incompat),
		offsetof(struct ext4_super_block, s_feature_ro_compat),
	};
	enum e4_feature_kind kind;
	uint32_t mask, *word, v;
	int clear = *edit == '-' || *edit == '^';
	errcode_t err;

	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	err = e4_feature_lookup(edit + clear, &kind, &mask);
	if (err)
		return err;
	word = (uint32_t *)((uint8_t *)fs->sb + off[kind]);
	v = e4_le32(*word);
	*word = e4_cpu_to_le32(clear ? v & ~mask : v | mask);
	return 0;
}
