/*
 * main.c: e4mkfs, make an ext2/ext3/ext4 filesystem.  Options are spelled
 * and mean what mke2fs's do; the geometry comes from libe4's layout
 * (lib/e4/layout.c), the writing from writer.c.
 */
#include "mkfs.h"
#include "optlist.h"
#include "popsize.h"
#include "popsrc.h"

#include <errno.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <fcntl.h>
#include <signal.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uuid/uuid.h>

#include "config.h"

/* Features this version creates ("created in this issue"). */
static const uint32_t supported[3] = {
	EXT4_FEATURE_COMPAT_HAS_JOURNAL | EXT4_FEATURE_COMPAT_EXT_ATTR |
	EXT4_FEATURE_COMPAT_RESIZE_INODE | EXT4_FEATURE_COMPAT_DIR_INDEX |
	EXT4_FEATURE_COMPAT_SPARSE_SUPER2 | EXT4_FEATURE_COMPAT_ORPHAN_FILE,
	EXT4_FEATURE_INCOMPAT_FILETYPE | EXT4_FEATURE_INCOMPAT_META_BG |
	EXT4_FEATURE_INCOMPAT_EXTENTS | EXT4_FEATURE_INCOMPAT_64BIT |
	EXT4_FEATURE_INCOMPAT_FLEX_BG | EXT4_FEATURE_INCOMPAT_CSUM_SEED |
	EXT4_FEATURE_INCOMPAT_LARGEDIR | EXT4_FEATURE_INCOMPAT_INLINE_DATA,
	EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER | EXT4_FEATURE_RO_COMPAT_LARGE_FILE |
	EXT4_FEATURE_RO_COMPAT_HUGE_FILE | EXT4_FEATURE_RO_COMPAT_GDT_CSUM |
	EXT4_FEATURE_RO_COMPAT_DIR_NLINK | EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE |
	EXT4_FEATURE_RO_COMPAT_BIGALLOC | EXT4_FEATURE_RO_COMPAT_METADATA_CSUM,
};

/* The usage text: on stdout with exit 0 for --help, else on stderr with
 * exit 1. */
static void usage_to(const char *prog, int help)
{
	fprintf(help ? stdout : stderr,
		"Usage: %s [options] device [size]\n"
		"  type and features: -t ext2|ext3|ext4  -T usage-types  -O feature,...\n"
		"                     -j  -J size=MiB  -E extended-option,...\n"
		"  geometry:          -b block-size  -C cluster-size  -g blocks-per-group\n"
		"                     -G groups-per-flex  -i bytes-per-inode  -I inode-size\n"
		"                     -N inode-count  -m reserved-percent  -r 0|1\n"
		"  identity:          -L label  -M last-mounted-dir  -U uuid|random|time|clear\n"
		"                     -o creator-os  -e continue|remount-ro|panic\n"
		"  content:           -d directory|archive|- (a tar archive on stdin)\n"
		"  run:               -n (write nothing)  -q  -v  -F  -S  -V\n"
		"  size: blocks, or bytes with a k/m/g/t suffix (see e4mkfs(8))\n"
		"  -V prints the version, --help this text\n", prog);
	exit(help ? 0 : 1);
}

static void usage(const char *prog)
{
	usage_to(prog, 0);
}

static int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

/* Append item to the comma-separated list *list (repeated -O and -E
 * accumulate).  0, or -1 when out of memory. */
static int append_list(char **list, const char *item)
{
	size_t n = (*list ? strlen(*list) + 1 : 0) + strlen(item) + 1;
	char *s = malloc(n);

	if (!s)
		return -1;
	snprintf(s, n, "%s%s%s", *list ? *list : "", *list ? "," : "", item);
	free(*list);
	*list = s;
	return 0;
}

static int feature_unsupported(const uint32_t f[3], char *name, size_t len)
{
	for (int k = 0; k < 3; k++) {
		uint32_t bad = f[k] & ~supported[k];

		if (bad) {
			char buf[16];
			uint32_t bit = bad & -bad;

			snprintf(name, len, "%s", e4_feature_name((enum e4_feature_kind)k, bit, buf));
			return 1;
		}
	}
	return 0;
}

/* The configuration in use, for messages (mkfs_read_config's choice). */
static const char *config_name(void)
{
	const char *p = getenv("E4MKFS_CONFIG");

	if (!p)
		p = getenv("MKE2FS_CONFIG");
	return p && *p ? p : "(built in)";
}

static const char *layout_error(const struct mkfs *m, errcode_t err, char *buf, size_t len)
{
	switch (err) {
	case E4_ERR_FS_TOO_SMALL:
		return "too small for a filesystem with these options";
	case E4_ERR_FS_TOO_BIG:
		return "too many blocks for this block size and these features "
		       "(without 64bit, 2^32 at most)";
	case E4_ERR_TOO_MANY_INODES:
		return "too many inodes for this size (lower -N, raise -i, or use a larger device)";
	case E4_ERR_BAD_BLOCKS_PER_GROUP:
		return "invalid blocks per group (-g must be a multiple of 8 between 256 and "
		       "8 x block size)";
	case E4_ERR_RESERVED_GDT:
		return "the resize= limit needs more reserved GDT blocks than a group allows";
	case E4_ERR_JOURNAL_SIZE:
		return "invalid journal size (between 1024 blocks and 10240000 blocks, "
		       "and at most half the filesystem)";
	case E4_ERR_BAD_BLOCK_SIZE:
		snprintf(buf, len, "invalid block size %u (a power of two from 1024 to 65536, "
			 "and not below the device's %u-byte sectors)", m->lo.block_size,
			 m->lo.sector_size);
		return buf;
	case E4_ERR_BAD_CLUSTER_SIZE:
		snprintf(buf, len, "invalid cluster size %u (a power of two, larger than the "
			 "block size, with bigalloc)", m->lo.cluster_size);
		return buf;
	case E4_ERR_BAD_INODE_SIZE:
		snprintf(buf, len, "invalid inode size %u (a power of two from 128 to the "
			 "block size)", m->lo.inode_size);
		return buf;
	case E4_ERR_BAD_DESC_SIZE:
		return "invalid descriptor size (desc_size needs 64bit and a power of two "
		       "from 64 to 1024)";
	case E4_ERR_UNSUPPORTED:
		return "this feature set or size is not supported yet";
	case E4_ERR_CONFLICT_REV0:
		if (m->lo.journal_blocks > 0 || m->lo.journal_blocks == E4_LAYOUT_JOURNAL_FORCE)
			return "journals are not supported with revision 0 filesystems";
		return "filesystem features are not supported with revision 0 filesystems";
	case E4_ERR_TOO_MANY_GROUPS:
		snprintf(buf, len, "more than %u block groups (256 TiB with 4 KiB blocks) are "
			 "not supported yet; larger blocks or -g raise the limit",
			 E4_LAYOUT_MAX_GROUPS);
		return buf;
	case E4_ERR_INVALID_ARGUMENT:
		snprintf(buf, len, "an invalid value in the options or in the configuration (%s)",
			 config_name());
		return buf;
	default:
		return error_message(err);
	}
}

static int compute_layout(struct mkfs *m, int64_t journal_mb)
{
	const char *bad_key = NULL;
	errcode_t err;

	m->lo.bad_key = &bad_key;
	err = e4_layout_compute(&m->lo, &m->l);
	if (!err && (journal_mb > 0 || m->orphan_size)) {
		unsigned bs = m->l->block_size;

		if (journal_mb > 0)
			m->lo.journal_blocks = journal_mb * (1024 * 1024 / bs);
		if (m->orphan_size)
			m->lo.orphan_file_blocks = (int64_t)(m->orphan_size_bytes ?
							     m->orphan_size / bs : m->orphan_size);
		if (!m->lo.block_size) {
			/* the size was in 1 KiB units until the block size was known */
			m->lo.block_size = bs;
			m->lo.blocks_count /= bs / 1024;
		}
		e4_layout_free(m->l);
		m->l = NULL;
		err = e4_layout_compute(&m->lo, &m->l);
	}
	if (err && bad_key) {
		fprintf(stderr, "%s: configuration %s: the value of %s is not valid here\n",
			m->prog, config_name(), bad_key);
		return -1;
	}
	if (err) {
		char buf[200];

		fprintf(stderr, "%s: %s: %s\n", m->prog, m->device, layout_error(m, err, buf,
										sizeof(buf)));
		return -1;
	}
	return 0;
}

/* "Superblock backups stored on blocks: " and the list, as mke2fs lays
 * it out: ", " before every entry but group 1's, a new tab-indented line
 * when the number and two more columns do not fit in what is left of 72;
 * the heading also when no group holds a backup (sparse_super2). */
static void print_backups(const struct mkfs *m)
{
	const struct e4_layout *l = m->l;
	int left = 0;

	printf("Superblock backups stored on blocks: ");
	for (uint32_t g = 1; g < l->group_count; g++) {
		char num[32];
		int n;

		if (!l->groups[g].has_super)
			continue;
		if (g != 1)
			printf(", ");
		n = snprintf(num, sizeof(num), "%llu",
			     (unsigned long long)l->groups[g].first_block);
		if (n + 2 > left) {
			printf("\n\t");
			left = 72;
		}
		left -= n + 2;
		printf("%s", num);
	}
	printf("\n\n");
}

/* The end of both summaries, as mke2fs prints it: an empty line for a
 * single group, else the UUID (unless null) and the backup list. */
static void print_uuid_backups(const struct mkfs *m)
{
	static const uint8_t null_uuid[16];
	char uuid[40];

	if (m->l->group_count == 1) {
		printf("\n");
		return;
	}
	uuid_unparse(m->uuid, uuid);
	if (memcmp(m->uuid, null_uuid, 16))
		printf("Filesystem UUID: %s\n", uuid);
	print_backups(m);
}

static void print_stats(const struct mkfs *m, int full)
{
	const struct e4_layout *l = m->l;

	if (!full) {
		printf("Creating filesystem with %llu %uk blocks and %u inodes\n",
		       (unsigned long long)l->blocks_count, l->block_size / 1024, l->inodes_count);
		print_uuid_backups(m);
		return;
	}
	printf("Filesystem label=%s\n", m->label);
	printf("OS type: %s\n", m->creator_os == EXT4_OS_HURD ? "GNU/Hurd" : "Linux");
	printf("Block size=%u (log=%u)\n", l->block_size, l->log_block_size);
	if (l->cluster_bits)
		printf("Cluster size=%u (log=%u)\n", l->cluster_size, l->log_cluster_size);
	else
		printf("Fragment size=%u (log=%u)\n", l->cluster_size, l->log_cluster_size);
	printf("Stride=%u blocks, Stripe width=%u blocks\n", l->raid_stride, l->raid_stripe_width);
	printf("%u inodes, %llu blocks\n", l->inodes_count, (unsigned long long)l->blocks_count);
	printf("%llu blocks (%2.2f%%) reserved for the super user\n",
	       (unsigned long long)l->r_blocks_count,
	       100.0 * (double)l->r_blocks_count / (double)l->blocks_count);
	printf("First data block=%u\n", l->first_data_block);
	printf("Root directory owner=%u:%u\n", m->root_uid, m->root_gid);
	printf("%u block group%s\n", l->group_count, l->group_count > 1 ? "s" : "");
	if (l->cluster_bits)
		printf("%u blocks per group, %u clusters per group\n", l->blocks_per_group,
		       l->clusters_per_group);
	else
		printf("%u blocks per group, %u fragments per group\n", l->blocks_per_group,
		       l->clusters_per_group);
	printf("%u inodes per group\n", l->inodes_per_group);
	print_uuid_backups(m);
	if (l->journal.ino)
		printf("Journal: %llu blocks\n", (unsigned long long)l->journal.blocks);
	{
		const struct e4_feature *t = e4_feature_table();
		uint32_t f[3] = { l->feature_compat, l->feature_incompat, l->feature_ro_compat };

		printf("Features:");
		for (int i = 0; t[i].name; i++)
			if (f[t[i].kind] & t[i].mask) {
				printf(" %s", t[i].name);
				f[t[i].kind] &= ~t[i].mask;	/* aliases once */
			}
		printf("\n");
	}
}

/* Ask on a terminal.  1 = go on. */
static int proceed(const char *prog)
{
	char line[64];

	printf("Proceed anyway? (y,N) ");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	(void)prog;
	return line[0] == 'y' || line[0] == 'Y';
}

/* The time written into the filesystem: SOURCE_DATE_EPOCH when set (a
 * malformed value is an error, as the reproducible-builds convention asks:
 * silently using the clock would make an image that is not reproducible),
 * else the clock.  ext4 timestamps reach 2446-05-10 (34 bits past 1901). */
#define MKFS_TIME_MAX	15032385535LL

static int pick_time(const char *prog, int64_t *now)
{
	const char *s = getenv("SOURCE_DATE_EPOCH");

	if (s && *s) {
		char *end;
		long long v;

		errno = 0;
		v = strtoll(s, &end, 10);
		if (errno || *end || v < 0 || v > MKFS_TIME_MAX) {
			fprintf(stderr, "%s: SOURCE_DATE_EPOCH must be whole seconds from 0 to %lld, "
				"not '%s'\n", prog, MKFS_TIME_MAX, s);
			return -1;
		}
		*now = v;
		return 0;
	}
	*now = (int64_t)time(NULL);
	return 0;
}

/* UUID and hash seed from the epoch, the options (every argument but
 * the device and -d's value) and the content (poprepro.c). */
static int repro_ids(struct mkfs *m, struct pop_src *src, int argc, char **argv,
		     const char *d_arg)
{
	char **opts = calloc((size_t)argc + 1, sizeof(*opts));
	int n = 0, r;

	if (!opts)
		return -1;
	for (int i = 1; i < argc; i++) {
		size_t al = strlen(argv[i]), dl = d_arg ? strlen(d_arg) : 0;

		if (argv[i] == m->device || argv[i] == d_arg)
			continue;
		/* "-dDIR" in one argument: only "-d" counts */
		if (d_arg && d_arg > argv[i] && d_arg < argv[i] + al && al > dl)
			opts[n++] = "-d";
		else
			opts[n++] = argv[i];
	}
	r = pop_repro_ids(src, m->now, n, opts, m->uuid, m->hash_seed);
	free(opts);
	if (r) {
		fprintf(stderr, "%s: %s\n", m->prog, pop_error(src));
		return -1;
	}
	m->pop_repro = 1;
	return 0;
}

static const struct option long_opts[] = {
	{ "help", no_argument, NULL, 'h' + 256 },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	struct mkfs m;
	const char *fs_type = NULL, *usage_types = NULL;
	char *features = NULL, *ext_opts = NULL;
	int64_t journal_mb = 0;
	uint64_t v;
	const char *uuid_arg = NULL, *d_arg = NULL;
	struct pop_src *src = NULL;
	int c, rc = 1, exists, suffix, warn_offset = 0;
	long page = sysconf(_SC_PAGESIZE);

	memset(&m, 0, sizeof(m));
	/* a reader of our output that goes away (e4mkfs ... | head) must not
	 * stop a format midway: output errors are ignored instead */
	signal(SIGPIPE, SIG_IGN);
	m.prog = "e4mkfs";
	e4_init_errors();
	e4_layout_opts_init(&m.lo);
	m.lazy_itable_init = 1;
	m.discard = 1;
	m.root_perms = -1;
	m.pop_margin = POP_MARGIN_DEFAULT;
	m.default_mntopts = EXT4_DEFM_XATTR_USER | EXT4_DEFM_ACL;
	m.tty = isatty(0) && isatty(1);
	m.lo.page_size = page > 0 ? (unsigned)page : 4096;

	while ((c = getopt_long(argc, argv, "b:cd:e:g:i:jl:m:no:qr:s:t:vC:DE:FG:I:J:KL:M:N:O:R:ST:U:Vz:",
				long_opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			/* bytes, with or without a k suffix (as mke2fs) */
			if (mkfs_parse_size(optarg, &v, &suffix) || v < 1024 || v > 65536 ||
			    (v & (v - 1))) {
				fprintf(stderr, "%s: invalid block size - %s\n", m.prog, optarg);
				goto out;
			}
			m.lo.block_size = (unsigned)v;
			break;
		case 'C':
			if (mkfs_parse_size(optarg, &v, &suffix) || v > (1U << 30)) {
				fprintf(stderr, "%s: invalid cluster size - %s\n", m.prog, optarg);
				goto out;
			}
			m.lo.cluster_size = (unsigned)v;
			break;
		case 'c':
		case 'l':
			fprintf(stderr, "%s: bad block checks (-%c) are not supported yet\n", m.prog, c);
			goto out;
		case 'd':
			m.pop_source = optarg;
			d_arg = optarg;
			break;
		case 'z':
			fprintf(stderr, "%s: undo files (-z) are not supported yet\n", m.prog);
			goto out;
		case 'D':
		case 'K':
			if (c == 'K') {
				m.discard = 0;
				m.discard_set = 1;
			}
			break;
		case 'e':
			if (!strcmp(optarg, "continue"))
				m.errors = 1;
			else if (!strcmp(optarg, "remount-ro"))
				m.errors = 2;
			else if (!strcmp(optarg, "panic"))
				m.errors = 3;
			else {
				fprintf(stderr, "%s: invalid errors behavior - %s\n", m.prog, optarg);
				goto out;
			}
			break;
		case 'E':
		case 'R':
			/* as mke2fs: the last -E list is the one used */
			free(ext_opts);
			ext_opts = NULL;
			if (append_list(&ext_opts, optarg))
				goto out;
			break;
		case 'F':
			m.force++;
			break;
		case 'g':
			if (parse_uint(optarg, UINT32_MAX, &v)) {
				fprintf(stderr, "%s: invalid blocks per group - %s\n", m.prog, optarg);
				goto out;
			}
			m.lo.blocks_per_group = (uint32_t)v;
			break;
		case 'G':
			if (parse_uint(optarg, 1U << 31, &v) || v == 0 || (v & (v - 1))) {
				fprintf(stderr, "%s: flex_bg size must be a power of 2 - %s\n", m.prog,
					optarg);
				goto out;
			}
			m.lo.flex_bg_size = (uint32_t)v;
			break;
		case 'i':
			if (mkfs_parse_size(optarg, &v, &suffix) || v < 1024 || v > 65536ULL * 1024) {
				fprintf(stderr, "%s: invalid inode ratio %s (min 1024/max %u)\n", m.prog,
					optarg, 65536 * 1024);
				goto out;
			}
			m.lo.inode_ratio = (unsigned)v;
			break;
		case 'I':
			if (parse_uint(optarg, 65536, &v) || v < 128 || (v & (v - 1))) {
				fprintf(stderr, "%s: invalid inode size - %s\n", m.prog, optarg);
				goto out;
			}
			m.lo.inode_size = (unsigned)v;
			break;
		case 'j':
			if (m.lo.journal_blocks <= 0)
				m.lo.journal_blocks = E4_LAYOUT_JOURNAL_FORCE;
			break;
		case 'J': {
			struct optlist o;
			char *key, *val;
			int bad = 0, items = 0;

			if (optlist_start(&o, optarg))
				goto out;
			while (!bad && optlist_next(&o, &key, &val)) {
				items++;
				if (!strcmp(key, "size") && val && !parse_uint(val, 1 << 30, &v) && v > 0) {
					journal_mb = (int64_t)v;
					m.lo.journal_blocks = E4_LAYOUT_JOURNAL_FORCE;
				} else if (!strcmp(key, "device") || !strcmp(key, "location") ||
					   !strcmp(key, "fast_commit_size") ||
					   !strcmp(key, "v1_superblock")) {
					fprintf(stderr, "%s: journal option '%s' is not supported yet\n",
						m.prog, key);
					bad = 1;
				} else {
					fprintf(stderr, "%s: invalid journal option '%s%s%s'\n", m.prog,
						key, val ? "=" : "", val ? val : "");
					bad = 1;
				}
			}
			optlist_done(&o);
			if (!bad && !items) {
				fprintf(stderr, "%s: -J needs a journal option (size=MiB)\n", m.prog);
				bad = 1;
			}
			if (bad)
				goto out;
			break;
		}
		case 'L':
			if (strlen(optarg) > 16)
				fprintf(stderr, "%s: warning: label too long; truncating.\n", m.prog);
			snprintf(m.label, sizeof(m.label), "%.16s", optarg);
			break;
		case 'm': {
			char *end;
			double d;

			errno = 0;
			d = strtod(optarg, &end);
			if (errno || *end || d < 0 || d > 50) {
				fprintf(stderr, "%s: invalid reserved blocks percent - %s\n", m.prog,
					optarg);
				goto out;
			}
			m.lo.reserved_percent = d;
			break;
		}
		case 'M':
			snprintf(m.last_mounted, sizeof(m.last_mounted), "%.64s", optarg);
			break;
		case 'n':
			m.noaction = 1;
			break;
		case 'N':
			/* 0: the default, as mke2fs */
			if (parse_uint(optarg, UINT32_MAX, &v)) {
				fprintf(stderr, "%s: invalid inodes count - %s\n", m.prog, optarg);
				goto out;
			}
			m.lo.inodes_count = v;
			break;
		case 'o':
			/* a name, or the number stored in s_creator_os (as mke2fs) */
			if (!parse_uint(optarg, UINT32_MAX, &v) && v != EXT4_OS_HURD)
				m.creator_os = (int)v;
			else if (!strcasecmp(optarg, "linux"))
				m.creator_os = EXT4_OS_LINUX;
			else if (!strcasecmp(optarg, "hurd") || !strcasecmp(optarg, "gnu") ||
				 !strcmp(optarg, "1")) {
				fprintf(stderr, "%s: creator OS hurd is not supported yet\n", m.prog);
				goto out;
			} else if (!strcasecmp(optarg, "freebsd"))
				m.creator_os = EXT4_OS_FREEBSD;
			else if (!strcasecmp(optarg, "masix"))
				m.creator_os = EXT4_OS_MASIX;
			else if (!strcasecmp(optarg, "lites"))
				m.creator_os = EXT4_OS_LITES;
			else {
				fprintf(stderr, "%s: invalid creator OS - %s\n", m.prog, optarg);
				goto out;
			}
			break;
		case 'O':
			if (append_list(&features, optarg))
				goto out;
			break;
		case 'q':
			m.quiet = 1;
			break;
		case 'r':
			/* mke2fs 1.47.0's spelling; -E revision= since 1.47.2 */
			if (mkfs_parse_revision(&m, optarg))
				goto out;
			break;
		case 's':
			break;		/* sparse_super: obsolete, use -O */
		case 'S':
			m.super_only = 1;
			break;
		case 't':
			if (fs_type) {
				fprintf(stderr, "%s: the -t option may only be used once\n", m.prog);
				goto out;
			}
			fs_type = optarg;
			break;
		case 'T':
			if (usage_types) {
				fprintf(stderr, "%s: the -T option may only be used once\n", m.prog);
				goto out;
			}
			usage_types = optarg;
			break;
		case 'U':
			uuid_arg = optarg;
			break;
		case 'v':
			m.verbose = 1;
			break;
		case 'V':
			printf("e4mkfs %s (e4kit)\n", PACKAGE_VERSION);
			rc = 0;
			goto out;
		case 'h' + 256:
			usage_to(m.prog, 1);
			break;
		default:
			usage(m.prog);
		}
	}
	if (optind >= argc)
		usage(m.prog);
	m.device = argv[optind++];
	if (optind < argc) {
		int suffix;
		uint64_t n;

		if (mkfs_parse_size(argv[optind], &n, &suffix) || !n) {
			fprintf(stderr, "%s: invalid blocks '%s' on device '%s'\n", m.prog,
				argv[optind], m.device);
			goto out;
		}
		if (suffix) {
			m.size_arg = n;
		} else {
			m.size_arg_blocks = 1;
			m.size_arg_count = n;
		}
		optind++;
	}
	if (optind < argc)
		usage(m.prog);
	if (!m.quiet)
		fprintf(stderr, "e4mkfs %s (e4kit)\n", PACKAGE_VERSION);
	if (mkfs_read_config(&m))
		goto out;

	/* -t, -T, -O, -E */
	if (fs_type && !e4_layout_known_type(m.lo.profile, fs_type)) {
		fprintf(stderr, "%s: invalid filesystem type '%s'\n", m.prog, fs_type);
		goto out;
	}
	m.lo.fs_type = fs_type;
	m.lo.usage_types = usage_types;
	/* like mke2fs, an unknown usage type is ignored with a warning (even
	 * with -q) */
	for (const char *s = usage_types; s && *s;) {
		size_t n = strcspn(s, ",");
		char name[64];

		if (n && n < sizeof(name)) {
			memcpy(name, s, n);
			name[n] = 0;
			/* "default" is a size class, defined or not */
			if (strcmp(name, "default") && !e4_layout_known_type(m.lo.profile, name))
				fprintf(stderr, "%s: warning: usage type '%s' is not defined in the "
					"configuration; ignoring it\n", m.prog, name);
		} else if (n) {
			fprintf(stderr, "%s: warning: usage type '%.*s...' is too long to be defined; "
				"ignoring it\n", m.prog, 32, s);
		}
		s += n + (s[n] == ',');
	}
	if (features) {
		char name[32];

		if (e4_layout_opts_features(&m.lo, features)) {
			fprintf(stderr, "%s: invalid filesystem option set: %s\n", m.prog, features);
			goto out;
		}
		if (feature_unsupported(m.lo.feat_set, name, sizeof(name))) {
			fprintf(stderr, "%s: feature '%s' is not supported yet\n", m.prog, name);
			goto out;
		}
	}
	if (ext_opts) {
		if (mkfs_parse_extended(&m, ext_opts))
			goto out;

	}
	m.lo.itable_zeroed = 0;
	if (m.super_only && m.root_selinux) {
		fprintf(stderr, "%s: -E root_selinux= cannot be combined with -S\n", m.prog);
		goto out;
	}
	if (m.pop_source) {
		/* -S keeps the inode tables: nothing to copy into (mke2fs
		 * 1.47.0 tries, fails and leaves no filesystem) */
		if (m.super_only) {
			fprintf(stderr, "%s: -d cannot be combined with -S\n", m.prog);
			goto out;
		}
		if (pick_time(m.prog, &m.now) || mkfs_pop_open(&m, &src))
			goto out;
	}

	/* the target */
	{
		struct stat st;

		exists = stat(m.device, &st) == 0;
		if (exists) {
			errcode_t err = e4_probe_device_at(m.device, m.offset, &m.probe);

			if (err) {
				fprintf(stderr, "%s: %s: %s\n", m.prog, m.device, error_message(err));
				goto out;
			}
		} else if (errno != ENOENT) {
			fprintf(stderr, "%s: %s: %s\n", m.prog, m.device, strerror(errno));
			goto out;
		} else if (!m.size_arg && !m.size_arg_blocks && m.pop_source) {
			/* sized from the content below */
			m.pop_autosize = 1;
			m.probe.is_regular = 1;
			m.probe.discard_zeroes = 1;
			m.probe.all_holes = 1;
			m.created = 1;
		} else if (!m.size_arg && !m.size_arg_blocks) {
			fprintf(stderr, "%s: the file %s does not exist and no size was specified.\n",
				m.prog, m.device);
			goto out;
		} else {
			m.probe.is_regular = 1;
			m.probe.discard_zeroes = 1;
			m.probe.all_holes = 1;
			m.created = 1;
		}
	}
	if (m.size_arg) {
		m.lo.blocks_count = m.size_arg / (m.lo.block_size ? m.lo.block_size : 1024);
		if (!m.lo.blocks_count) {
			fprintf(stderr, "%s: size %llu bytes is too small\n", m.prog,
				(unsigned long long)m.size_arg);
			goto out;
		}
	} else if (m.size_arg_blocks) {
		m.lo.blocks_count = m.size_arg_count;
	}
	m.lo.dev_bytes = m.probe.size;
	if (m.offset) {
		/* -E offset=: the filesystem begins that far into the target */
		if (!m.lo.blocks_count) {
			if (m.probe.size <= m.offset) {
				fprintf(stderr, "%s: offset %llu is beyond the end of %s\n", m.prog,
					(unsigned long long)m.offset, m.device);
				goto out;
			}
			m.lo.dev_bytes = m.probe.size - m.offset;
			warn_offset = 1;
		}
	}
	/* logical sector size: the device's; for testing, as the reference
	 * honours MKE2FS_DEVICE_SECTSIZE, E4MKFS_DEVICE_SECTSIZE (or that name)
	 * stands in for a device with such sectors */
	if (m.probe.is_blockdev)
		m.lo.sector_size = m.probe.logical_sector;
	{
		const char *ss = getenv("E4MKFS_DEVICE_SECTSIZE");

		if (!ss)
			ss = getenv("MKE2FS_DEVICE_SECTSIZE");
		if (ss && *ss && !parse_uint(ss, 65536, &v))
			m.lo.sector_size = (unsigned)v;
	}
	if (m.pop_autosize) {
		/* a provisional size picks the block size and the profile's
		 * values; the fit then gives the size */
		m.lo.blocks_count = m.lo.block_size ? (4ULL << 30) / m.lo.block_size : 4ULL << 20;
		if (compute_layout(&m, journal_mb) || mkfs_pop_fit(&m, src))
			goto out;
		e4_layout_free(m.l);
		m.l = NULL;
	}
	if (!m.lo.blocks_count && !m.probe.size) {
		if (m.probe.is_blockdev)
			fprintf(stderr, "%s: %s is a block device of size 0 (a loop device "
				"without a backing file?)\n", m.prog, m.device);
		else
			fprintf(stderr, "%s: %s is empty: give a size\n", m.prog, m.device);
		goto out;
	}

	if (compute_layout(&m, journal_mb))
		goto out;
	if (m.l->orphan.ino && m.lo.orphan_file_blocks > 0 &&
	    m.l->orphan.blocks < (uint64_t)m.lo.orphan_file_blocks)
		fprintf(stderr, "%s: warning: the orphan file gets %llu blocks, not %lld: the "
			"kernel mounts none larger than 8 MiB or 512 blocks\n", m.prog,
			(unsigned long long)m.l->orphan.blocks, (long long)m.lo.orphan_file_blocks);
	/* like mke2fs, even with -q */
	if (m.l->raid_stride && m.l->raid_stripe_width &&
	    m.l->raid_stripe_width % m.l->raid_stride)
		fprintf(stderr, "%s: warning: RAID stripe width %u is not a multiple of the "
			"stride %u\n", m.prog, m.l->raid_stripe_width, m.l->raid_stride);
	if (m.l->inode_size == EXT4_GOOD_OLD_INODE_SIZE && m.l->rev_level != EXT4_GOOD_OLD_REV)
		fprintf(stderr, "%s: warning: 128-byte inodes cannot hold dates after 2038; "
			"they are deprecated\n", m.prog);
	if (mkfs_apply_profile(&m))
		goto out;
	/* RAID geometry from the device's I/O topology, unless given */
	if (m.probe.is_blockdev && !m.lo.stride && !m.lo.stripe_width) {
		unsigned bs = m.l->block_size;
		uint32_t stride = m.probe.minimum_io > bs ? (uint32_t)(m.probe.minimum_io / bs) : 0;
		uint32_t width = m.probe.optimal_io > bs ? (uint32_t)(m.probe.optimal_io / bs) : 0;

		if (stride || width) {
			m.lo.stride = stride;
			m.lo.stripe_width = width;
			e4_layout_free(m.l);
			m.l = NULL;
			if (compute_layout(&m, journal_mb))
				goto out;
		}
		if (m.probe.alignment_offset && !m.quiet)
			fprintf(stderr, "%s: warning: %s is misaligned by %lu bytes; this may "
				"hurt performance\n", m.prog, m.device, m.probe.alignment_offset);
	}
	{
		char name[32];
		uint32_t f[3] = { m.l->feature_compat, m.l->feature_incompat,
				  m.l->feature_ro_compat };

		if (feature_unsupported(f, name, sizeof(name))) {
			fprintf(stderr, "%s: feature '%s' is not supported yet\n", m.prog, name);
			goto out;
		}
	}

	/* the requested size against a block device */
	if (m.probe.is_blockdev &&
	    m.offset + m.l->blocks_count * m.l->block_size > m.probe.size) {
		fprintf(stderr, "%s: filesystem of %llu blocks is larger than %s (%llu bytes); "
			"nothing written\n", m.prog, (unsigned long long)m.l->blocks_count,
			m.device, (unsigned long long)m.probe.size);
		goto out;
	}

	/* UUID, hash seed, time */
	if (!uuid_arg || !strcasecmp(uuid_arg, "random")) {
		uuid_generate(m.uuid);
	} else if (!strcasecmp(uuid_arg, "time")) {
		uuid_generate_time(m.uuid);
	} else if (!strcasecmp(uuid_arg, "clear") || !strcasecmp(uuid_arg, "null")) {
		memset(m.uuid, 0, 16);
	} else if (mkfs_parse_uuid(uuid_arg, m.uuid)) {
		fprintf(stderr, "%s: invalid UUID '%s'\n", m.prog, uuid_arg);
		goto out;
	}
	if (!m.have_hash_seed)
		uuid_generate(m.hash_seed);
	if (pick_time(m.prog, &m.now))
		goto out;
	/* -d with SOURCE_DATE_EPOCH: the same input gives the same bytes
	 * (popsize.h), unless -U or -E hash_seed= name them */
	if (src && getenv("SOURCE_DATE_EPOCH") && *getenv("SOURCE_DATE_EPOCH") && !uuid_arg &&
	    !m.have_hash_seed) {
		if (repro_ids(&m, src, argc, argv, d_arg))
			goto out;
	}

	/* large blocks */
	if (m.l->block_size > m.lo.page_size) {
		if (!m.force) {
			fprintf(stderr, "%s: %u-byte blocks are too big for this system (page size "
				"%u): such a filesystem mounts only where the page size is at least "
				"the block size; use -F to make it anyway\n", m.prog,
				m.l->block_size, m.lo.page_size);
			if (!m.tty || m.noaction || !proceed(m.prog))
				goto out;
		} else {
			fprintf(stderr, "Warning: %u-byte blocks too big for system (max %u), "
				"forced to continue\n", m.l->block_size, m.lo.page_size);
		}
	}

	if (!m.noaction) {
		char what[300];

		if (m.probe.busy) {
			fprintf(stderr, "%s: %s is %s; will not make a filesystem here\n", m.prog,
				m.device, m.probe.busy_what);
			goto out;
		}
		e4_probe_describe(&m.probe, what, sizeof(what));
		if (what[0] && !m.force) {
			if (!m.tty) {
				fprintf(stderr, "%s: %s holds %s; refusing to overwrite it without -F "
					"(no terminal to ask)\n", m.prog, m.device, what);
				goto out;
			}
			printf("%s holds %s\n", m.device, what);
			if (!proceed(m.prog))
				goto out;
		}
	}

	if (m.noaction) {
		/* as mke2fs -n (also with -q): the short summary, the full
		 * listing with -v */
		print_stats(&m, m.verbose);
		rc = 0;
		goto out;
	}
	/* a target we cannot write fails here, before the plan is printed */
	if (exists) {
		int fd = open(m.device, O_RDWR | O_CLOEXEC);
		int ro = 0;

		if (fd >= 0 && m.probe.is_blockdev && ioctl(fd, BLKROGET, &ro) == 0 && ro) {
			close(fd);
			fd = -1;
			errno = EROFS;
		}
		if (fd < 0) {
			fprintf(stderr, "%s: %s: cannot write to it: %s\n", m.prog, m.device,
				strerror(errno));
			goto out;
		}
		close(fd);
	} else {
		char *dir = strdup(m.device), *slash = dir ? strrchr(dir, '/') : NULL;
		int ok;

		if (slash)
			*(slash == dir ? slash + 1 : slash) = 0;
		ok = access(slash ? dir : ".", W_OK | X_OK) == 0;
		free(dir);
		if (!ok) {
			fprintf(stderr, "%s: %s: cannot create it: %s\n", m.prog, m.device,
				strerror(errno));
			goto out;
		}
	}
	if (warn_offset && !m.quiet)
		fprintf(stderr, "Warning: -E offset= given without a filesystem size: the filesystem "
			"takes the %llu blocks from the offset to the end of %s.\n",
			(unsigned long long)m.l->blocks_count, m.device);
	if (!m.quiet)
		print_stats(&m, m.verbose);
	if (mkfs_write(&m))
		goto out;
	if (src && mkfs_populate(&m, src))
		goto out;
	if (!src && m.root_selinux && !m.super_only && mkfs_root_label(&m))
		goto out;
	rc = 0;
out:
	if (src)
		pop_close(src);
	e4_layout_free(m.l);
	e4_profile_free(m.profile);
	free(features);
	free(ext_opts);
	free(m.root_selinux);
	return rc;
}
