/*
 * cmd_dir.c: "ls", "cd" and "pwd".
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "debugfs.h"

#define LS_LONG		0x1
#define LS_PARSE	0x2
#define LS_DELETED	0x4

#define LS_WIDTH	80

/* Entries are collected first (no inode reads while the library walks
 * the directory), packed in one growing buffer. */
struct ls_entry {
	e4_ino_t inode;
	unsigned rec_len;
	uint8_t file_type;
	uint8_t name_len;
	char name[];		/* name_len bytes, not NUL-terminated */
};

struct ls_list {
	uint8_t *buf;
	size_t used, cap;
	size_t count;
	int failed;		/* out of memory */
};

static size_t entry_size(uint8_t name_len)
{
	size_t s = sizeof(struct ls_entry) + name_len;

	return (s + 7) & ~(size_t)7;
}

static int collect_cb(const struct e4_dirent *d, void *priv)
{
	struct ls_list *l = priv;
	size_t need = entry_size(d->name_len);
	struct ls_entry *e;

	if (l->used + need > l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 65536;
		uint8_t *nb;

		while (cap < l->used + need)
			cap *= 2;
		nb = realloc(l->buf, cap);
		if (!nb) {
			l->failed = 1;
			return 1;
		}
		l->buf = nb;
		l->cap = cap;
	}
	e = (struct ls_entry *)(l->buf + l->used);
	e->inode = d->inode;
	e->rec_len = d->rec_len;
	e->file_type = d->file_type;
	e->name_len = d->name_len;
	memcpy(e->name, d->name, d->name_len);
	l->used += need;
	l->count++;
	return 0;
}

/* Read the inode an entry names.  Like the reference, an entry whose inode
 * cannot be read (bad number, bad checksum, missing inode table) is left
 * out of the listing with one error line. */
static int entry_inode(const struct ls_entry *e, union e4_inode_buf *ib)
{
	errcode_t err = e4_inode_read(current_fs, e->inode, ib);

	if (err) {
		com_err("ls", err, "while reading inode %u", e->inode);
		memset(ib, 0, sizeof(*ib));
		return 1;
	}
	return 0;
}

static int print_long(const struct ls_entry *e, int deleted)
{
	union e4_inode_buf ib;
	char date[48];
	struct e4_time t = { 0, 0 };
	int ok = 0;

	ok = e->inode != 0;
	memset(&ib, 0, sizeof(ib));
	if (ok && entry_inode(e, &ib))
		return 1;
	if (ok)
		e4_inode_time(current_fs, &ib.inode, E4_MTIME, &t);
	if (deleted)
		printf("%c%6u%c", '<', e->inode, '>');
	else
		printf("%8u", e->inode);
	printf(" %7o (%u) %6u %6u %10llu %s ", e4_le16(ib.inode.i_mode), e->file_type,
	       e4_inode_uid(&ib.inode), e4_inode_gid(&ib.inode),
	       (unsigned long long)e4_inode_size(&ib.inode),
	       ok ? time_iso(t.sec, date, sizeof(date)) : "                   ");
	print_raw_name(stdout, e->name, e->name_len);
	putchar('\n');
	return 0;
}

static int print_parseable(const struct ls_entry *e)
{
	union e4_inode_buf ib;

	memset(&ib, 0, sizeof(ib));
	if (e->inode && entry_inode(e, &ib))
		return 1;
	printf("/%u/%06o/%u/%u/", e->inode, e4_le16(ib.inode.i_mode),
	       e4_inode_uid(&ib.inode), e4_inode_gid(&ib.inode));
	print_raw_name(stdout, e->name, e->name_len);
	if (e4_is_dir(&ib.inode))
		printf("//\n");
	else
		printf("/%llu/\n", (unsigned long long)e4_inode_size(&ib.inode));
	return 0;
}

/* "ino (rec_len) name" cells, wrapped at LS_WIDTH columns. */
static void print_compact(const struct ls_entry *e, int deleted, int *col)
{
	char head[48];
	int len;

	len = snprintf(head, sizeof(head), deleted ? "<%u> (%u) " : "%u (%u) ",
		       e->inode, e->rec_len);
	if (*col && *col + len + e->name_len > LS_WIDTH) {
		putchar('\n');
		*col = 0;
	}
	if (*col) {
		printf("   ");
		*col += 3;
	}
	fputs(head, stdout);
	print_raw_name(stdout, e->name, e->name_len);
	*col += len + e->name_len;
}

int do_ls(int argc, char **argv)
{
	struct ls_list l = { NULL, 0, 0, 0, 0 };
	union e4_inode_buf ib;
	unsigned flags = 0;
	size_t off;
	e4_ino_t dir;
	errcode_t err;
	int c, col = 0, ret = 0;

	reset_getopt();
	while ((c = getopt(argc, argv, "lpdr")) != -1) {
		switch (c) {
		case 'l':
			flags |= LS_LONG;
			break;
		case 'p':
			flags |= LS_PARSE;
			break;
		case 'd':
			flags |= LS_DELETED;
			break;
		case 'r':
			break;	/* raw names: names are always printed raw */
		default:
			return usage(argv[0], NULL);
		}
	}
	if (argc - optind > 1)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]))
		return 1;
	dir = cwd_ino;
	if (optind < argc && parse_inode(argv[0], argv[optind], &dir))
		return 1;
	if (read_inode(argv[0], dir, &ib, READ_INODE_WARN_CSUM))
		return 1;
	if (!e4_is_dir(&ib.inode)) {
		com_err(argv[0], E4_ERR_NOT_DIR, "- %s", optind < argc ? argv[optind] : ".");
		return 1;
	}

	/* Entries whose inode is 0 are listed too, as the reference does. */
	err = e4_dir_iterate(current_fs, dir, E4_DIR_EMPTY, collect_cb, &l);
	if (l.failed)
		err = E4_ERR_NO_MEMORY;
	for (off = 0; off < l.used; off += entry_size(((struct ls_entry *)(l.buf + off))->name_len)) {
		const struct ls_entry *e = (const struct ls_entry *)(l.buf + off);
		int deleted = 0;	/* ls -d: slack-space entries are not reported yet */

		if (flags & LS_PARSE)
			ret |= print_parseable(e);
		else if (flags & LS_LONG)
			ret |= print_long(e, deleted);
		else
			print_compact(e, deleted, &col);
	}
	if (col)
		putchar('\n');
	if (flags & LS_PARSE)
		putchar('\n');	/* the reference ends -p listings with an empty line */
	free(l.buf);
	if (err) {
		fflush(stdout);
		com_err(argv[0], err, "while reading directory %s",
			optind < argc ? argv[optind] : ".");
		ret = 1;
	}
	return ret;
}

int do_cd(int argc, char **argv)
{
	union e4_inode_buf ib;
	e4_ino_t ino;

	if (argc != 2)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]) || parse_inode_follow(argv[0], argv[1], &ino))
		return 1;
	if (read_inode(argv[0], ino, &ib, READ_INODE_WARN_CSUM))
		return 1;
	if (!e4_is_dir(&ib.inode)) {
		com_err(argv[0], E4_ERR_NOT_DIR, "- %s", argv[1]);
		return 1;
	}
	cwd_ino = ino;
	return 0;
}

int do_pwd(int argc, char **argv)
{
	char path[4096];
	errcode_t err;

	if (argc != 1)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]))
		return 1;
	err = dir_pathname(cwd_ino, path, sizeof(path));
	printf("cwd:  %s (inode %u)\n", path, cwd_ino);
	if (err) {
		fflush(stdout);
		com_err(argv[0], err, "while finding the path of inode %u", cwd_ino);
	}
	printf("root: / (inode %u)\n", root_ino);
	return err ? 1 : 0;
}
