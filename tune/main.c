/*
 * main.c: e4tune option parsing, the superblock settings (-c -C -e -g -i
 * -m -r -T -u -L -M -U -E), and the order in which changes are made:
 * every option is checked before anything is written; superblock-only
 * changes are made in memory and written once, at the end, after the
 * structural changes (features, journal) that write their own blocks.
 * A device in use is left to online.c (through the kernel or not at all).
 */
#include "config.h"
#include "tune.h"

#include "crashpoint.h"
#include "optlist.h"
#include "shortdev.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <uuid/uuid.h>

/* The parsing steps return this to go on; anything else is the exit
 * status to stop with. */
#define RUN_ON	(-1)

static int usage_err(struct tune *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* One line naming the problem; exit status 1, before anything is opened. */
static int usage_err(struct tune *t, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", t->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see %s --help)\n", t->prog);
	return 1;
}

static int help(const char *prog)
{
	printf("Usage: %s [-c max_mounts_count] [-e errors_behavior] [-f] [-g group]\n"
	       "\t[-i interval[d|m|w]] [-j] [-J journal_options] [-l [--json]]\n"
	       "\t[-m reserved_blocks_percent] [-o [^]mount_options[,...]]\n"
	       "\t[-r reserved_blocks_count] [-u user] [-C mount_count]\n"
	       "\t[-L volume_label] [-M last_mounted_dir]\n"
	       "\t[-O [^]feature[,...]] [-E extended-option[,...]]\n"
	       "\t[-T last_check_time] [-U UUID] device\n"
	       "       %s -V | --help\n", prog, prog);
	return 0;
}

/* One line on stderr: "prog: device: [warning: ][error text ]message". */
static void report(struct tune *t, errcode_t err, int warning, const char *fmt, va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fflush(stdout);
	fprintf(stderr, "%s: %s: %s%s%s%s\n", t->prog, t->device, warning ? "warning: " : "",
		err ? error_message(err) : "", err ? " " : "", msg);
}

void tune_err(struct tune *t, errcode_t err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(t, err, 0, fmt, ap);
	va_end(ap);
}

void tune_warn(struct tune *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(t, 0, 1, fmt, ap);
	va_end(ap);
}

/* ---- argument parsing ------------------------------------------------- */
static int parse_ulong(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!s || !*s || *s == '-' || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_interval(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mult = 86400;

	if (!*s || *s == '-' || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno)
		return -1;
	switch (*end) {
	case 's':
		mult = 1;
		end++;
		break;
	case '\0':
		break;
	case 'd': case 'D':
		end++;
		break;
	case 'm': case 'M':
		mult = 86400ULL * 30;
		end++;
		break;
	case 'w': case 'W':
		mult = 86400ULL * 7;
		end++;
		break;
	default:
		return -1;
	}
	if (*end || (v && mult > UINT64_MAX / v))
		return -1;
	*out = v * mult;
	return 0;
}

/* "now" or YYYYMMDD[HH[MM[SS]]] in local time. */
static int parse_time(const char *s, int64_t *out)
{
	struct tm tm;
	size_t n = strlen(s);
	time_t t;

	if (!strcmp(s, "now")) {
		*out = time(NULL);
		return 0;
	}
	if (n != 8 && n != 10 && n != 12 && n != 14)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return -1;
	memset(&tm, 0, sizeof(tm));
	if (sscanf(s, "%4d%2d%2d%2d%2d%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec) < 3)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	tm.tm_isdst = -1;
	if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
	    tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 61)
		return -1;
	t = mktime(&tm);
	if (t == (time_t)-1)
		return -1;
	*out = t;
	return 0;
}

/* A uid (group: a gid) as a number or a name, at most 65535 (the
 * superblock's s_def_resuid/s_def_resgid are 16 bits). */
static int parse_id(const char *s, int group, unsigned long *out)
{
	unsigned long id;

	if (!parse_ulong(s, 65535, out))
		return 0;
	if (group) {
		struct group *gr = getgrnam(s);

		if (!gr)
			return -1;
		id = gr->gr_gid;
	} else {
		struct passwd *pw = getpwnam(s);

		if (!pw)
			return -1;
		id = pw->pw_uid;
	}
	if (id > 65535)
		return -1;
	*out = id;
	return 0;
}

static const char *const hash_names[] = {
	"legacy", "half_md4", "tea", "legacy_unsigned", "half_md4_unsigned", "tea_unsigned",
	"siphash",
};

/* -E: checked here, applied in apply_extended(). */
/* RUN_ON or the exit status. */
static int parse_extended(struct tune *t, const char *arg)
{
	struct optlist o;
	char *tok, *val;
	unsigned long v;
	int rc = RUN_ON;

	if (optlist_start(&o, arg))
		return 1;
	while (rc == RUN_ON && optlist_next(&o, &tok, &val)) {
		if (!strcmp(tok, "test_fs") && !val) {
			t->test_fs = 1;
		} else if (!strcmp(tok, "^test_fs") && !val) {
			t->test_fs = -1;
		} else if (!strcmp(tok, "force_fsck") && !val) {
			t->force_fsck = 1;
		} else if (!strcmp(tok, "stride")) {
			if (!val || parse_ulong(val, 65535, &v)) {
				rc = usage_err(t, "invalid RAID stride: %s", val ? val : "");
				break;
			}
			t->stride = v;
			t->stride_set = 1;
		} else if (!strcmp(tok, "stripe_width")) {
			if (!val || parse_ulong(val, UINT32_MAX, &v)) {
				rc = usage_err(t, "invalid RAID stripe-width: %s", val ? val : "");
				break;
			}
			t->stripe_width = v;
			t->stripe_set = 1;
		} else if (!strcmp(tok, "hash_alg")) {
			int h = -1;

			for (unsigned i = 0; val && i < sizeof(hash_names) / sizeof(hash_names[0]); i++)
				if (!strcasecmp(val, hash_names[i]))
					h = (int)i;
			if (val && h < 0 && !parse_ulong(val, 6, &v))
				h = (int)v;
			/* the unsigned variants are chosen by s_flags, not stored */
			if (h < 0 || (h >= 3 && h <= 5)) {
				rc = usage_err(t, "invalid hash algorithm: %s", val ? val : "");
				break;
			}
			t->hash_alg = h;
			t->hash_set = 1;
		} else if (!strcmp(tok, "mount_opts")) {
			/* the value cannot hold a comma, as with tune2fs */
			if (!val)
				rc = usage_err(t, "mount_opts= needs a value");
			else if (strlen(val) >= 64)
				rc = usage_err(t, "extended mount options too long (at most 63 "
					       "characters)");
			if (rc != RUN_ON)
				break;
			free(t->ext_mount_opts);
			t->ext_mount_opts = strdup(val);
			if (!t->ext_mount_opts)
				rc = 1;
		} else {
			rc = usage_err(t, "bad extended option: %s", tok);
		}
	}
	optlist_done(&o);
	return rc;
}

/* -J: size=MiB (other journal options are not supported). */
/* RUN_ON or the exit status. */
static int parse_journal_opts(struct tune *t, const char *arg)
{
	struct optlist o;
	char *tok, *val;
	unsigned long v;
	int rc = RUN_ON;

	if (optlist_start(&o, arg))
		return 1;
	if (!optlist_next(&o, &tok, &val)) {
		optlist_done(&o);
		return usage_err(t, "-J needs a journal option (size=MiB)");
	}
	do {
		if (!strcmp(tok, "size")) {
			if (!val || parse_ulong(val, 1UL << 30, &v) || !v)
				rc = usage_err(t, "invalid journal size: %s", val ? val : "");
			else
				t->journal_mb = v;
		} else if (!strcmp(tok, "device") || !strcmp(tok, "location") ||
			   !strcmp(tok, "fast_commit_size") || !strcmp(tok, "v1_superblock")) {
			rc = usage_err(t, "journal option '%s' is not supported", tok);
		} else {
			rc = usage_err(t, "bad journal option: %s", tok);
		}
	} while (rc == RUN_ON && optlist_next(&o, &tok, &val));
	optlist_done(&o);
	if (rc == RUN_ON)
		t->journal = 1;
	return rc;
}

static const struct option long_opts[] = {
	{ "json", no_argument, NULL, 'J' + 256 },
	{ "help", no_argument, NULL, 'h' + 256 },
	{ NULL, 0, NULL, 0 },
};

/* The command line into t: RUN_ON or the exit status (usage, -V, --help). */
static int parse_args(struct tune *t, int argc, char **argv)
{
	int c, any = 0, rc;
	long l;
	char *end;

	opterr = 0;
	optind = 0;	/* getopt starts afresh (a second run in one process) */
	while ((c = getopt_long(argc, argv, "c:e:fg:i:jlm:o:r:u:C:E:I:J:L:M:O:Q:T:U:Vz:",
				long_opts, NULL)) != -1) {
		any++;
		switch (c) {
		case 'c':
			t->c_flag = 1;
			if (!strcmp(optarg, "random")) {
				t->max_mnt_count = 65536;
				break;
			}
			errno = 0;
			l = strtol(optarg, &end, 0);
			if (!*optarg || *end || errno || l > 16000 || l < -16000)
				return usage_err(t, "bad mounts count - %s", optarg);
			t->max_mnt_count = l ? l : -1;
			break;
		case 'C':
			t->C_flag = 1;
			if (parse_ulong(optarg, 16000, &t->mnt_count))
				return usage_err(t, "bad mounts count - %s", optarg);
			break;
		case 'e':
			t->e_flag = 1;
			if (!strcmp(optarg, "continue"))
				t->errors = 1;
			else if (!strcmp(optarg, "remount-ro"))
				t->errors = 2;
			else if (!strcmp(optarg, "panic"))
				t->errors = 3;
			else
				return usage_err(t, "bad error behavior - %s", optarg);
			break;
		case 'E':
			if (t->extended)
				return usage_err(t, "-E may only be given once");
			t->extended = optarg;
			rc = parse_extended(t, optarg);
			if (rc != RUN_ON)
				return rc;
			break;
		case 'f':
			t->force++;
			break;
		case 'g':
			t->g_flag = 1;
			if (parse_id(optarg, 1, &t->resgid))
				return usage_err(t, "bad gid/group name - %s", optarg);
			break;
		case 'i':
			t->i_flag = 1;
			if (parse_interval(optarg, &t->interval))
				return usage_err(t, "bad interval - %s", optarg);
			if (t->interval >= (1ULL << 32))
				return usage_err(t, "interval between checks is too big (%llu)",
					   (unsigned long long)t->interval);
			break;
		case 'j':
			t->journal = 1;
			break;
		case 'J':
			rc = parse_journal_opts(t, optarg);
			if (rc != RUN_ON)
				return rc;
			break;
		case 'l':
			t->l_flag = 1;
			break;
		case 'L':
			t->L_flag = 1;
			t->label = optarg;
			break;
		case 'm':
			t->m_flag = 1;
			errno = 0;
			t->reserved_ratio = strtod(optarg, &end);
			if (!*optarg || *end || errno || !(t->reserved_ratio >= 0) ||
			    t->reserved_ratio > 50)
				return usage_err(t, "bad reserved block ratio - %s", optarg);
			break;
		case 'M':
			t->M_flag = 1;
			t->last_mounted = optarg;
			break;
		case 'o':
			if (t->mntopts)
				return usage_err(t, "-o may only be given once");
			t->mntopts = optarg;
			break;
		case 'O':
			if (t->features)
				return usage_err(t, "-O may only be given once");
			t->features = optarg;
			break;
		case 'r': {
			unsigned long v;

			t->r_flag = 1;
			if (parse_ulong(optarg, ULONG_MAX, &v))
				return usage_err(t, "bad reserved blocks count - %s", optarg);
			t->reserved_blocks = v;
			break;
		}
		case 'T':
			t->T_flag = 1;
			if (parse_time(optarg, &t->last_check))
				return usage_err(t, "couldn't parse date/time specifier: %s", optarg);
			break;
		case 'u':
			t->u_flag = 1;
			if (parse_id(optarg, 0, &t->resuid))
				return usage_err(t, "bad uid/user name - %s", optarg);
			break;
		case 'U':
			t->U_flag = 1;
			t->uuid = optarg;
			break;
		case 'I':
			return usage_err(t, "changing the inode size (-I) is not supported");
		case 'Q':
			return usage_err(t, "quota options (-Q) are not supported");
		case 'z':
			return usage_err(t, "undo files (-z) are not supported");
		case 'J' + 256:
			t->json = 1;
			break;
		case 'h' + 256:
			return help(t->prog);
		case 'V':
			/* tune2fs refuses -V (exit 1); every e4kit tool takes it */
			printf("e4tune %s (e4kit)\n", PACKAGE_VERSION);
			return 0;
		default:
			if (optopt && optopt < 256 && strchr("ceEgiJLmMoOrTuUIQz", optopt))
				return usage_err(t, "option -%c needs an argument", optopt);
			if (optopt && optopt < 256)
				return usage_err(t, "invalid option -- '%c'", optopt);
			return usage_err(t, "invalid option -- '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return usage_err(t, optind >= argc ? "no device given" : "too many arguments");
	if (!any)
		return usage_err(t, "nothing to do");
	if (t->json && !t->l_flag)
		return usage_err(t, "--json only goes with -l");
	t->device = argv[optind];
	return RUN_ON;
}

/* ---- writing ------------------------------------------------------------ */
/* Write the superblock: primary and every backup, with s_wtime = now. */
int tune_write_super(struct tune *t)
{
	struct ext4_super_block *sb = e4_super(t->fs);
	time_t now = time(NULL);
	errcode_t err;

	e4_sb_set_time(sb, E4_SB_WTIME, now);
	err = e4_super_write_backups(t->fs);
	if (!err)
		err = e4_super_write(t->fs);
	if (!err)
		err = e4_flush(t->fs);
	if (err) {
		tune_err(t, err, "while writing the superblock");
		return 1;
	}
	t->sb_dirty = 0;
	return 0;
}

/* Close and reopen the filesystem (after a change of geometry-defining
 * features, or a journal replay: cached descriptors and bitmaps go). */
int tune_reopen(struct tune *t)
{
	errcode_t err;

	err = e4_close(t->fs);
	t->fs = NULL;
	if (!err)
		err = e4_open(t->device, E4_OPEN_RW, 0, 0, &t->fs);
	if (!err)
		err = crashpoint_install(e4_fs_io(t->fs));
	if (err) {
		tune_err(t, err, "while reopening the filesystem");
		return 1;
	}
	return 0;
}

/* ---- -U ----------------------------------------------------------------- */
int tune_parse_uuid(const char *s, uint8_t out[16])
{
	if (!strcasecmp(s, "random"))
		uuid_generate(out);
	else if (!strcasecmp(s, "time"))
		uuid_generate_time(out);
	else if (!strcasecmp(s, "clear") || !strcasecmp(s, "null"))
		memset(out, 0, 16);
	else if (uuid_parse(s, out))
		return -1;
	return 0;
}

static int set_uuid(struct tune *t)
{
	e4_fs *fs = t->fs;
	struct ext4_super_block *sb = e4_super(fs);
	const struct e4_geom *geo = e4_geom(fs);
	uint8_t uuid[16];
	int gd_ok = 1;

	if (tune_parse_uuid(t->uuid, uuid)) {
		tune_err(t, 0, "invalid UUID format: %s", t->uuid);
		return 1;
	}
	if (geo->metadata_csum && !e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_CSUM_SEED)) {
		/* every checksum depends on the UUID: rewrite them all, as
		 * tune2fs does, on a freshly checked filesystem only */
		if (tune_require_fresh(t, "changing the UUID of a metadata_csum filesystem "
				       "(without metadata_csum_seed, Linux 4.4 and later)"))
			return 1;
		memcpy(sb->s_uuid, uuid, 16);
		return tune_csum_rewrite(t, "for the new UUID");
	}
	/* descriptor checksums (crc16 over the UUID) are rewritten, but only
	 * when they were all correct before, as tune2fs does */
	if (geo->gdt_csum || geo->metadata_csum)
		for (e4_group_t g = 0; g < geo->group_count; g++)
			if (!e4_group_csum_ok(fs, g))
				gd_ok = 0;
	memcpy(sb->s_uuid, uuid, 16);
	/* without metadata_csum, bg_checksum is a crc16 over the raw UUID */
	if (geo->gdt_csum && !geo->metadata_csum && gd_ok) {
		errcode_t err;

		for (e4_group_t g = 0; g < geo->group_count; g++)
			e4_group_csum_set(fs, g);
		/* descriptors of the new UUID under the old one: not clean
		 * until the superblock follows (DESIGN.md "Writing safely") */
		err = e4_super_mark_unclean(fs);
		if (!err)
			err = e4_gdt_write(fs);
		if (err) {
			tune_err(t, err, "while writing the group descriptors");
			return 1;
		}
	}
	t->sb_dirty = 1;
	return 0;
}

/* A freshly checked filesystem: clean, no errors, checked since mounted. */
int tune_fsck_fresh(e4_fs *fs)
{
	const struct ext4_super_block *sb = e4_super(fs);
	uint16_t state = e4_le16(sb->s_state);

	return (state & EXT4_VALID_FS) && !(state & EXT4_ERROR_FS) &&
	       e4_sb_time(e4_le32(sb->s_lastcheck), sb->s_lastcheck_hi) >=
	       e4_sb_time(e4_le32(sb->s_mtime), sb->s_mtime_hi);
}

int tune_csum_rewrite(struct tune *t, const char *why)
{
	e4_ino_t bad = 0;
	errcode_t err = e4_csum_rewrite_all(t->fs, &bad);

	if (err) {
		/* some structures carry new checksums, some old ones */
		tune_err(t, err, "while rewriting checksums %s (inode %u); run e2fsck -f", why,
			 bad);
		return 1;
	}
	t->sb_dirty = 0;
	return tune_reopen(t);
}

int tune_require_fresh(struct tune *t, const char *what)
{
	if (tune_fsck_fresh(t->fs))
		return 0;
	/* e4fsck has no full check yet: it cannot make the filesystem
	 * "freshly checked"; the reference e2fsck -f can */
	tune_err(t, 0, "%s rewrites every checksum and needs a freshly checked filesystem "
		 "(clean, and checked since its last mount): run e2fsck -f first (e4fsck "
		 "cannot run the full check yet)", what);
	return 1;
}

/* ---- the superblock settings -------------------------------------------- */
int tune_check_settings(struct tune *t)
{
	struct ext4_super_block *sb = e4_super(t->fs);

	if (t->r_flag && t->reserved_blocks > e4_sb_blocks_count(sb) / 2) {
		tune_err(t, 0, "reserved blocks count is too big (%llu)",
			 (unsigned long long)t->reserved_blocks);
		return 1;
	}
	return 0;
}

void tune_apply_settings(struct tune *t)
{
	e4_fs *fs = t->fs;
	struct ext4_super_block *sb = e4_super(fs);

	if (t->c_flag) {
		long v = t->max_mnt_count;

		if (v == 65536)
			v = 20 + random() % 20;
		sb->s_max_mnt_count = e4_cpu_to_le16((uint16_t)(int16_t)v);
		printf("Setting maximal mount count to %ld\n", v);
	}
	if (t->C_flag) {
		sb->s_mnt_count = e4_cpu_to_le16((uint16_t)t->mnt_count);
		printf("Setting current mount count to %lu\n", t->mnt_count);
	}
	if (t->e_flag) {
		sb->s_errors = e4_cpu_to_le16((uint16_t)t->errors);
		printf("Setting error behavior to %u\n", t->errors);
	}
	if (t->g_flag) {
		sb->s_def_resgid = e4_cpu_to_le16((uint16_t)t->resgid);
		printf("Setting reserved blocks gid to %lu\n", t->resgid);
	}
	if (t->i_flag) {
		sb->s_checkinterval = e4_cpu_to_le32((uint32_t)t->interval);
		printf("Setting interval between checks to %llu seconds\n",
		       (unsigned long long)t->interval);
	}
	if (t->m_flag) {
		uint64_t r = (uint64_t)(t->reserved_ratio * (double)e4_sb_blocks_count(sb) / 100.0);

		e4_sb_set_r_blocks_count(sb, r);
		printf("Setting reserved blocks percentage to %g%% (%llu blocks)\n",
		       t->reserved_ratio, (unsigned long long)r);
	}
	if (t->r_flag) {
		e4_sb_set_r_blocks_count(sb, t->reserved_blocks);
		printf("Setting reserved blocks count to %llu\n",
		       (unsigned long long)t->reserved_blocks);
	}
	if (t->T_flag) {
		time_t tt = (time_t)t->last_check;

		e4_sb_set_time(sb, E4_SB_LASTCHECK, t->last_check);
		printf("Setting time filesystem last checked to %s\n", ctime(&tt));
	}
	if (t->u_flag) {
		sb->s_def_resuid = e4_cpu_to_le16((uint16_t)t->resuid);
		printf("Setting reserved blocks uid to %lu\n", t->resuid);
	}
	if (t->L_flag) {
		if (strlen(t->label) > sizeof(sb->s_volume_name))
			fputs("Warning: label too long, truncating.\n", stderr);
		size_t n = strlen(t->label);

		memset(sb->s_volume_name, 0, sizeof(sb->s_volume_name));
		memcpy(sb->s_volume_name, t->label,
		       n < sizeof(sb->s_volume_name) ? n : sizeof(sb->s_volume_name));
	}
	if (t->M_flag) {
		size_t n = strlen(t->last_mounted);

		memset(sb->s_last_mounted, 0, sizeof(sb->s_last_mounted));
		memcpy(sb->s_last_mounted, t->last_mounted,
		       n < sizeof(sb->s_last_mounted) ? n : sizeof(sb->s_last_mounted));
	}
	t->sb_dirty = 1;
}

void tune_apply_extended(struct tune *t)
{
	struct ext4_super_block *sb = e4_super(t->fs);
	uint32_t flags = e4_le32(sb->s_flags);

	if (t->force_fsck) {
		e4_sb_state_change(sb, EXT4_ERROR_FS, 0);
		printf("Setting filesystem error flag to force fsck.\n");
	}
	if (t->hash_set) {
		sb->s_def_hash_version = (uint8_t)t->hash_alg;
		printf("Setting default hash algorithm to %s (%d)\n", hash_names[t->hash_alg],
		       t->hash_alg);
	}
	if (t->test_fs > 0) {
		flags |= EXT2_FLAGS_TEST_FILESYS;
		printf("Setting test filesystem flag\n");
	} else if (t->test_fs < 0) {
		flags &= ~EXT2_FLAGS_TEST_FILESYS;
		printf("Clearing test filesystem flag\n");
	}
	sb->s_flags = e4_cpu_to_le32(flags);
	if (t->stride_set) {
		sb->s_raid_stride = e4_cpu_to_le16((uint16_t)t->stride);
		printf("Setting stride size to %lu\n", t->stride);
	}
	if (t->stripe_set) {
		sb->s_raid_stripe_width = e4_cpu_to_le32((uint32_t)t->stripe_width);
		printf("Setting stripe width to %lu\n", t->stripe_width);
	}
	if (t->ext_mount_opts) {
		memset(sb->s_mount_opts, 0, sizeof(sb->s_mount_opts));
		memcpy(sb->s_mount_opts, t->ext_mount_opts, strlen(t->ext_mount_opts));
		printf("Setting extended default mount options to '%s'\n", t->ext_mount_opts);
	}
	t->sb_dirty = 1;
}

/* Does the command set or clear a feature (-O, or a journal added)? */
static int features_change(struct tune *t)
{
	const struct ext4_super_block *sb = e4_super(t->fs);
	uint32_t f[3];

	if (t->journal && !e4_has_compat(t->fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL))
		return 1;
	if (!t->features || tune_features_after(t, f))
		return 0;
	return f[E4_FEAT_COMPAT] != e4_le32(sb->s_feature_compat) ||
	       f[E4_FEAT_INCOMPAT] != e4_le32(sb->s_feature_incompat) ||
	       f[E4_FEAT_RO_COMPAT] != e4_le32(sb->s_feature_ro_compat);
}

int tune_open_fs(struct tune *t, int rw)
{
	errcode_t err = e4_open(t->device, rw ? E4_OPEN_RW : 0, 0, 0, &t->fs);

	if (!err && rw) {
		err = crashpoint_install(e4_fs_io(t->fs));
		if (err) {
			fprintf(stderr, "%s: invalid E4_CRASH_AFTER_WRITES\n", t->prog);
			e4_close(t->fs);
			return 1;
		}
	}
	if (err == E4_ERR_DEVICE_TOO_SMALL) {
		char sizes[256];

		fflush(stdout);
		fprintf(stderr, "%s: %s while trying to open %s: %s; nothing was changed\n",
			t->prog, error_message(err), t->device,
			short_device_sizes(t->device, sizes, sizeof(sizes)));
		return 1;
	}
	if (err) {
		fflush(stdout);
		fprintf(stderr, "%s: %s while trying to open %s\n", t->prog, error_message(err),
			t->device);
		return 1;
	}
	return 0;
}

/* The device must hold the whole filesystem (e4_check_device_size(), the
 * rule e4fsck applies): a change written to a device shorter than the
 * filesystem stops at the first block past its end, leaving part of it
 * done (a journal half removed, checksums half rewritten).  Refused
 * before anything is written, even a journal replay.  0 or 1 (message
 * printed). */
static int check_device_size(struct tune *t)
{
	const struct e4_geom *g = e4_geom(t->fs);
	uint64_t dev_blocks;

	if (!e4_check_device_size(t->fs, &dev_blocks))
		return 0;
	tune_err(t, E4_ERR_DEVICE_TOO_SMALL, "(%llu blocks of %u bytes; the device holds %llu): "
		 "a truncated image or the wrong partition? Nothing was changed",
		 (unsigned long long)g->blocks_count, g->block_size,
		 (unsigned long long)dev_blocks);
	return 1;
}

int tune_check_all(struct tune *t)
{
	uint8_t tmp[16];

	if (check_device_size(t) || tune_journal_log_check(t))
		return 1;
	if (tune_check_settings(t))
		return 1;
	if (t->mntopts && tune_mntopts_check(t))
		return 1;
	if (t->features && (tune_features_check(t) || tune_journal_remove_check(t)))
		return 1;
	if ((t->mntopts || t->ext_mount_opts || t->features || t->journal) &&
	    tune_mount_combo_check(t))
		return 1;
	if (t->U_flag && tune_parse_uuid(t->uuid, tmp)) {
		tune_err(t, 0, "invalid UUID format: %s", t->uuid);
		return 1;
	}
	return 0;
}

/* --json: standard output carries the JSON document and nothing else.
 * Every message of the run ("Setting maximal mount count to 20",
 * "Recovering journal.", ...) goes to stderr: descriptor 1 becomes a copy
 * of descriptor 2, and the document is written to a stream on a saved
 * copy of the original standard output (t->json_out, closed by main()). */
static int json_stdout_only(struct tune *t)
{
	int fd;

	if (fflush(stdout))
		return 1;
	fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (fd < 0 || !(t->json_out = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		tune_err(t, errno, "while setting up the JSON output");
		return 1;
	}
	if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		tune_err(t, errno, "while setting up the JSON output");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	return 0;
}

static int run(struct tune *t, int argc, char **argv)
{
	struct e4_probe probe;
	int rc = 0, writes, failed_replay = 0, r;
	errcode_t err;

	t->prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	t->tty = isatty(0) && isatty(1);
	e4_init_errors();
	srandom((unsigned)time(NULL) ^ (unsigned)getpid());
	rc = parse_args(t, argc, argv);
	if (rc != RUN_ON)
		return rc;
	rc = 0;
	if (t->json && json_stdout_only(t))
		return 1;
	if (t->mntopts && tune_mntopts_parse(t))
		return 1;

	writes = t->c_flag || t->C_flag || t->e_flag || t->g_flag || t->i_flag || t->m_flag ||
		 t->r_flag || t->T_flag || t->u_flag || t->L_flag || t->M_flag || t->U_flag ||
		 t->mntopts || t->features || t->extended || t->journal;
	if (!writes) {
		if (tune_open_fs(t, 0))
			return 1;
		rc = tune_list(t);
		e4_close(t->fs);
		return rc;
	}

	err = e4_probe_device(t->device, &probe);
	if (err) {
		fprintf(stderr, "%s: %s while trying to open %s\n", t->prog, error_message(err),
			t->device);
		return 1;
	}
	/* mounted: the kernel's copy of the superblock is the one that
	 * counts, and writing under it is lost (or races) */
	if (probe.busy)
		return tune_online(t, &probe);
	if (tune_open_fs(t, 1))
		return 1;

	/* everything that can be refused is refused before the first write */
	if (tune_check_all(t))
		goto fail;
	r = tune_recover_if_needed(t);
	if (r == 1)
		goto fail;
	if (r == 2)
		failed_replay = 1;

	/* features are only valid on revision 1: upgrade first, as tune2fs */
	if (features_change(t) && e4_super_update_dynamic_rev(e4_super(t->fs)))
		t->sb_dirty = 1;
	tune_apply_settings(t);
	if (t->features) {
		rc = tune_features(t);
		if (rc)
			goto out;
	}
	if (t->extended)
		tune_apply_extended(t);
	if (t->journal && !e4_has_compat(t->fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL)) {
		rc = tune_journal_add(t);
		if (rc)
			goto out;
	}
	if (t->mntopts && tune_mntopts_apply(t))
		goto fail;
	if (t->U_flag && set_uuid(t))
		goto fail;
	if (t->sb_dirty && tune_write_super(t))
		goto fail;
	if (t->l_flag)
		rc = tune_list(t);
	if (failed_replay)
		rc = 1;
out:
	err = e4_close(t->fs);
	if (err && !rc) {
		tune_err(t, err, "while closing the filesystem");
		rc = 1;
	}
	return rc;
fail:
	e4_close(t->fs);
	return 1;
}

int e4tune_run(int argc, char **argv)
{
	struct tune tune;
	int rc;

	memset(&tune, 0, sizeof(tune));
	rc = run(&tune, argc, argv);
	free(tune.ext_mount_opts);
	if (tune.json_out) {
		/* descriptor 1 back to the real standard output */
		fflush(stdout);
		if (dup2(fileno(tune.json_out), STDOUT_FILENO) < 0 && !rc)
			rc = 1;
		if (fclose(tune.json_out) && !rc) {
			fprintf(stderr, "%s: error writing the JSON listing: %s\n", tune.prog,
				strerror(errno));
			rc = 1;
		}
	}
	return rc;
}

int main(int argc, char **argv)
{
	return e4tune_run(argc, argv);
}
