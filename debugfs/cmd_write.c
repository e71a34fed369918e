/*
 * cmd_write.c: e4debugfs's simple write commands (a filesystem opened
 * with -w): clri, freei/seti, freeb/setb, feature, dirty,
 * set_current_time, ea_set and ea_rm.  Every change goes through libe4
 * (inode writer, allocation calls, feature table, xattr writer); the
 * bitmaps, descriptors and superblock are written when the filesystem is
 * closed (debugfs.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uuid/uuid.h>

#include "debugfs.h"

static int64_t current_time_set;	/* set_current_time; 0: the clock */

int check_fs_read_write(const char *cmd)
{
	if (check_fs_open(cmd))
		return 1;
	if (current_rw) {
		/* the library's operations take "now" from set_current_time */
		struct e4_time t = { .sec = current_time_set, .nsec = 0 };

		e4_fs_clock_set(current_fs, current_time_set ? &t : NULL);
		return 0;
	}
	com_err(cmd, 0, "Filesystem opened read/only");
	return 1;
}

int64_t debugfs_now(void)
{
	return current_time_set ? current_time_set : (int64_t)time(NULL);
}

static void gen_uuid(uint8_t out[16], int time_based)
{
	if (time_based)
		uuid_generate_time(out);
	else
		uuid_generate(out);
}

const struct e4_field_opts *debugfs_field_opts(void)
{
	static struct e4_field_opts o;

	o.now = debugfs_now();
	o.gen_uuid = gen_uuid;
	return &o;
}

/* ---- inodes ----------------------------------------------------------- */
int do_clri(int argc, char **argv)
{
	int i, failed = 0;

	if (argc < 2)
		return usage(argv[0], NULL);
	if (check_fs_read_write(argv[0]))
		return 1;
	for (i = 1; i < argc; i++) {
		union e4_inode_buf ib;
		e4_ino_t ino;
		errcode_t err;

		if (parse_inode(argv[0], argv[i], &ino)) {
			failed = 1;
			continue;
		}
		memset(&ib, 0, sizeof(ib));
		err = e4_inode_write(current_fs, ino, &ib);
		if (err) {
			com_err(argv[0], err, "while clearing inode %u", ino);
			failed = 1;
		}
	}
	return failed;
}

/* A count argument: 1 to max (0 would name an empty range).  Prints the
 * error; 0 or 1. */
static int parse_count(const char *cmd, const char *str, unsigned long long max,
		       unsigned long long *n)
{
	if (parse_number(cmd, str, "count", max, n))
		return 1;
	if (!*n) {
		com_err(cmd, 0, "Bad count - %s (at least 1)", str);
		return 1;
	}
	return 0;
}

/* "<inode> [count]": the first inode and how many, inside the filesystem. */
static int inode_range(int argc, char **argv, e4_ino_t *ino, uint32_t *count)
{
	unsigned long long n = 1;
	uint32_t max;

	if (argc < 2 || argc > 3)
		return usage(argv[0], NULL);
	if (check_fs_read_write(argv[0]) || parse_inode(argv[0], argv[1], ino))
		return 1;
	max = e4_geom(current_fs)->inodes_count;
	if (argc == 3 && parse_count(argv[0], argv[2], max, &n))
		return 1;
	if (*ino > max || n > max - *ino + 1) {
		com_err(argv[0], 0, "inodes %u to %llu are not all inside the filesystem "
			"(1 to %u)", *ino, *ino + n - 1, max);
		return 1;
	}
	*count = (uint32_t)n;
	return 0;
}

/* freei / seti: the bitmap bit and the group's counts (free inodes, used
 * directories for a directory inode) through e4_inode_mark(). */
static int mark_inodes(int argc, char **argv, int in_use)
{
	e4_ino_t ino = 0;
	uint32_t count = 0, i;

	if (inode_range(argc, argv, &ino, &count))
		return 1;
	for (i = 0; i < count; i++, ino++) {
		union e4_inode_buf ib;
		int changed = 0, is_dir = 0;
		errcode_t err;

		/* a checksum mismatch still fills the buffer */
		memset(&ib, 0, sizeof(ib));
		(void)e4_inode_read(current_fs, ino, &ib);
		is_dir = e4_is_dir(&ib.inode);
		err = e4_inode_mark(current_fs, ino, in_use, is_dir, &changed);
		if (err) {
			com_err(argv[0], err, "while marking inode %u %s", ino,
				in_use ? "in use" : "free");
			return 1;
		}
		if (!changed && count == 1)
			com_err(argv[0], 0, "warning: inode %u was already %s", ino,
				in_use ? "in use" : "free");
	}
	return 0;
}

int do_freei(int argc, char **argv)
{
	return mark_inodes(argc, argv, 0);
}

int do_seti(int argc, char **argv)
{
	return mark_inodes(argc, argv, 1);
}

/* ---- blocks ----------------------------------------------------------- */
static int mark_blocks(int argc, char **argv, int in_use)
{
	const struct e4_geom *g;
	unsigned long long blk, n = 1, i;
	errcode_t err;

	if (argc < 2 || argc > 3)
		return usage(argv[0], NULL);
	if (check_fs_read_write(argv[0]))
		return 1;
	g = e4_geom(current_fs);
	if (parse_number(argv[0], argv[1], "block number", UINT64_MAX, &blk) ||
	    (argc == 3 && parse_count(argv[0], argv[2], UINT64_MAX, &n)))
		return 1;
	if (blk < g->first_data_block || blk >= g->blocks_count ||
	    n > g->blocks_count - blk) {
		com_err(argv[0], 0, "blocks %llu to %llu are not all inside the filesystem "
			"(%u to %llu)", blk, blk + n - 1, g->first_data_block,
			(unsigned long long)g->blocks_count - 1);
		return 1;
	}
	for (i = 0; i < n; i++) {
		int used;

		if (!e4_test_block(current_fs, blk + i, &used) && used == in_use)
			com_err(argv[0], 0, "warning: block %llu was already %s", blk + i,
				in_use ? "in use" : "free");
	}
	err = e4_block_mark(current_fs, blk, n, in_use, NULL);
	if (err) {
		com_err(argv[0], err, "while marking blocks %llu to %llu %s", blk, blk + n - 1,
			in_use ? "in use" : "free");
		return 1;
	}
	return 0;
}

int do_freeb(int argc, char **argv)
{
	return mark_blocks(argc, argv, 0);
}

int do_setb(int argc, char **argv)
{
	return mark_blocks(argc, argv, 1);
}

/* ---- superblock ------------------------------------------------------- */
static void print_features(void)
{
	const struct ext4_super_block *sb = e4_super(current_fs);
	uint32_t w[3] = { e4_le32(sb->s_feature_compat), e4_le32(sb->s_feature_incompat),
			  e4_le32(sb->s_feature_ro_compat) };
	int any = 0;

	printf("Filesystem features:");
	for (int k = 0; k < 3; k++)
		for (int bit = 0; bit < 32; bit++) {
			char buf[16];

			if (!(w[k] & (1U << bit)))
				continue;
			printf(" %s", e4_feature_name((enum e4_feature_kind)k, 1U << bit, buf));
			any = 1;
		}
	printf("%s\n", any ? "" : " (none)");
}

/* Clearing has_journal while needs_recovery stays set (jw sets it; the
 * kernel refuses needs_recovery without a journal, and the log would be
 * lost): refused, one line.  Clearing needs_recovery in the same command
 * allows it (a raw edit).  1 when refused. */
static int journal_kept(int argc, char **argv)
{
	int i;

	if (!e4_has_incompat(current_fs, EXT4_FEATURE_INCOMPAT_RECOVER))
		return 0;
	for (i = 1; i < argc; i++)
		if ((argv[i][0] == '^' || argv[i][0] == '-') && !strcmp(argv[i] + 1, "needs_recovery"))
			return 0;
	com_err(argv[0], 0, "clearing has_journal refused: the filesystem needs journal "
		"recovery (jr first, or clear needs_recovery too)");
	return 1;
}

int do_feature(int argc, char **argv)
{
	enum e4_feature_kind kind;
	uint32_t mask;
	int i;

	if (check_fs_open(argv[0]))
		return 1;
	if (argc > 1 && check_fs_read_write(argv[0]))
		return 1;
	/* every name is checked before the first change */
	for (i = 1; i < argc; i++) {
		const char *name = argv[i] + (argv[i][0] == '-' || argv[i][0] == '^');

		if (e4_feature_lookup(name, &kind, &mask)) {
			com_err(argv[0], 0, "unknown feature: %s", name);
			return 1;
		}
		if (name != argv[i] && kind == E4_FEAT_COMPAT &&
		    mask == EXT4_FEATURE_COMPAT_HAS_JOURNAL && journal_kept(argc, argv))
			return 1;
	}
	for (i = 1; i < argc; i++) {
		errcode_t err = e4_super_feature_edit(current_fs, argv[i]);

		if (err) {
			com_err(argv[0], err, "while changing feature %s", argv[i]);
			return 1;
		}
		mark_super_dirty();
	}
	print_features();
	return 0;
}

int do_dirty(int argc, char **argv)
{
	int clean = argc == 2 && !strcmp(argv[1], "-clean");
	uint16_t state;
	char value[16];
	errcode_t err;

	if (argc != 1 && !clean)
		return usage(argv[0], NULL);
	if (check_fs_read_write(argv[0]))
		return 1;
	state = e4_le16(e4_super(current_fs)->s_state);
	state = clean ? state | EXT4_VALID_FS : state & ~EXT4_VALID_FS;
	snprintf(value, sizeof(value), "%u", state);
	err = e4_super_field_set(current_fs, "state", value, NULL, NULL);
	if (err) {
		com_err(argv[0], err, "while changing the state");
		return 1;
	}
	mark_super_dirty();
	return 0;
}

int do_set_current_time(int argc, char **argv)
{
	int64_t t;

	if (argc != 2)
		return usage(argv[0], NULL);
	if (e4_time_parse(argv[1], (int64_t)time(NULL), &t) || !t) {
		com_err(argv[0], 0, "not a time: %s (YYYYMMDD[HH[MM[SS]]], @seconds or now)",
			argv[1]);
		return 1;
	}
	current_time_set = t;
	printf("Current time set to %s\n", time_ctime(t));
	return 0;
}

/* ---- extended attributes ---------------------------------------------- */
/* The whole of file path (at most E4_XATTR_VALUE_MAX + 1 bytes: more is
 * refused by the writer) into a malloc'd buffer. */
static int read_value_file(const char *cmd, const char *path, void **buf, size_t *len)
{
	size_t cap = E4_XATTR_VALUE_MAX + 1;
	FILE *f = NULL;
	char *b;

	if (open_input(cmd, path, 0, &f) < 0)
		return 1;
	b = malloc(cap);
	if (!b) {
		fclose(f);
		com_err(cmd, ENOMEM, "while reading %s", path);
		return 1;
	}
	*len = fread(b, 1, cap, f);
	if (ferror(f)) {
		com_err(cmd, errno, "while reading %s", path);
		fclose(f);
		free(b);
		return 1;
	}
	fclose(f);
	*buf = b;
	return 0;
}

int do_ea_set(int argc, char **argv)
{
	struct e4_xattr_opts xo = { .now = 0, .share_blk = 0 };
	const char *file = NULL, *suffix;
	union e4_inode_buf ib;
	void *value = NULL;
	size_t vlen = 0, slen;
	uint8_t index;
	e4_ino_t ino;
	errcode_t err;
	int c, raw = 0;

	reset_getopt();
	while ((c = getopt(argc, argv, "f:r")) != -1) {
		switch (c) {
		case 'f':
			file = optarg;
			break;
		case 'r':
			raw = 1;	/* an ACL stored as given */
			break;
		default:
			return usage(argv[0], NULL);
		}
	}
	if (argc - optind != (file ? 2 : 3))
		return usage(argv[0], NULL);
	if (check_fs_read_write(argv[0]) || parse_inode(argv[0], argv[optind], &ino))
		return 1;
	err = e4_xattr_name_parse(argv[optind + 1], &index, &suffix, &slen);
	if (err) {
		com_err(argv[0], err, "(%s)", argv[optind + 1]);
		return 1;
	}
	if (read_inode(argv[0], ino, &ib, 0))
		return 1;
	if (file) {
		if (read_value_file(argv[0], file, &value, &vlen))
			return 1;
	} else {
		vlen = strlen(argv[optind + 2]);
		value = strdup(argv[optind + 2]);
		if (!value) {
			com_err(argv[0], ENOMEM, "while setting %s", argv[optind + 1]);
			return 1;
		}
	}
	if (!raw && !slen && (index == EXT4_XATTR_INDEX_POSIX_ACL_ACCESS ||
			      index == EXT4_XATTR_INDEX_POSIX_ACL_DEFAULT)) {
		void *disk;

		/* the Linux xattr form, as getfattr gives it (-r: as is) */
		err = e4_acl_to_disk(value, vlen, &disk, &vlen);
		free(value);
		if (err) {
			com_err(argv[0], err, "while translating the ACL %s (-r stores it as is)",
				argv[optind + 1]);
			return 1;
		}
		value = disk;
	}
	xo.now = debugfs_now();
	err = e4_xattr_set(current_fs, ino, &ib, index, suffix, slen, value, vlen, &xo);
	free(value);
	if (err) {
		com_err(argv[0], err, "while setting %s on inode %u", argv[optind + 1], ino);
		return 1;
	}
	return 0;
}

int do_ea_rm(int argc, char **argv)
{
	struct e4_xattr_opts xo = { .now = 0, .share_blk = 0 };
	union e4_inode_buf ib;
	e4_ino_t ino;
	int i, failed = 0;

	if (argc < 3)
		return usage(argv[0], NULL);
	if (check_fs_read_write(argv[0]) || parse_inode(argv[0], argv[1], &ino) ||
	    read_inode(argv[0], ino, &ib, 0))
		return 1;
	xo.now = debugfs_now();
	for (i = 2; i < argc; i++) {
		const char *suffix;
		size_t slen;
		uint8_t index;
		errcode_t err;

		err = e4_xattr_name_parse(argv[i], &index, &suffix, &slen);
		if (!err)
			err = e4_xattr_remove(current_fs, ino, &ib, index, suffix, slen, &xo);
		if (err) {
			com_err(argv[0], err, "while removing %s from inode %u", argv[i], ino);
			failed = 1;
		}
	}
	return failed;
}
