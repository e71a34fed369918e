/*
 * util.c: helpers shared by e4debugfs commands: inode arguments, numbers,
 * time and UUID formatting, paths.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "debugfs.h"
#include "superlist.h"

int check_fs_open(const char *cmd)
{
	if (current_fs)
		return 0;
	com_err(cmd, 0, "Filesystem not open");
	return 1;
}

void reset_getopt(void)
{
	optind = 0;	/* glibc: full re-initialisation */
	opterr = 0;	/* commands print their own usage line */
}

int parse_number(const char *cmd, const char *str, const char *what,
		 unsigned long long max, unsigned long long *val)
{
	unsigned long long v;
	char *end;

	errno = 0;
	if (!*str || *str == '-' || isspace((unsigned char)*str))
		goto bad;
	v = strtoull(str, &end, 0);
	if (errno || *end || v > max)
		goto bad;
	*val = v;
	return 0;
bad:
	com_err(cmd, 0, "Bad %s - %s", what, str);
	return 1;
}

static int inode_arg(const char *cmd, const char *arg, e4_ino_t *ino, int follow)
{
	size_t len = strlen(arg);
	errcode_t err;

	if (len > 2 && arg[0] == '<' && arg[len - 1] == '>') {
		unsigned long long v;
		char num[32];
		char *end;

		if (len - 2 >= sizeof(num))
			goto bad_number;
		memcpy(num, arg + 1, len - 2);
		num[len - 2] = 0;
		errno = 0;
		if (!isdigit((unsigned char)num[0]))
			goto bad_number;
		v = strtoull(num, &end, 0);
		if (errno || *end)
			goto bad_number;
		if (v == 0 || v > e4_geom(current_fs)->inodes_count) {
			com_err(cmd, E4_ERR_BAD_INODE_NUM, "- %s (the filesystem has %u inodes)",
				arg, e4_geom(current_fs)->inodes_count);
			return 1;
		}
		*ino = (e4_ino_t)v;
		return 0;
bad_number:
		com_err(cmd, 0, "Bad inode number - %s", arg);
		return 1;
	}
	err = e4_namei(current_fs, root_ino, cwd_ino, arg, follow, ino);
	if (err) {
		com_err(cmd, err, "while looking up %s", arg);
		return 1;
	}
	return 0;
}

int parse_inode(const char *cmd, const char *arg, e4_ino_t *ino)
{
	return inode_arg(cmd, arg, ino, 0);
}

int parse_inode_follow(const char *cmd, const char *arg, e4_ino_t *ino)
{
	return inode_arg(cmd, arg, ino, 1);
}

int read_inode(const char *cmd, e4_ino_t ino, union e4_inode_buf *buf, int flags)
{
	errcode_t err;

	err = e4_inode_read(current_fs, ino, buf);
	if (!err)
		return 0;
	if (err == E4_ERR_INODE_CSUM && (flags & READ_INODE_WARN_CSUM)) {
		com_err(cmd, err, "(inode %u): showing it anyway", ino);
		return 0;
	}
	com_err(cmd, err, "while reading inode %u", ino);
	return 1;
}

const char *time_ctime(int64_t sec)
{
	static char buf[64];
	time_t t = (time_t)sec;
	struct tm tm;

	if (!localtime_r(&t, &tm) ||
	    !strftime(buf, sizeof(buf), "%a %b %e %H:%M:%S %Y", &tm))
		snprintf(buf, sizeof(buf), "(time %lld)", (long long)sec);
	return buf;
}

const char *time_iso(int64_t sec, char *buf, size_t len)
{
	time_t t = (time_t)sec;
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "(time %lld)", (long long)sec);
	return buf;
}

const char *inode_type_name(uint16_t mode)
{
	switch (mode & EXT4_S_IFMT) {
	case EXT4_S_IFREG:
		return "regular";
	case EXT4_S_IFDIR:
		return "directory";
	case EXT4_S_IFLNK:
		return "symlink";
	case EXT4_S_IFCHR:
		return "character special";
	case EXT4_S_IFBLK:
		return "block special";
	case EXT4_S_IFIFO:
		return "FIFO";
	case EXT4_S_IFSOCK:
		return "socket";
	case 0:
		return "none";
	default:
		return "bad type";
	}
}

const char *uuid_string(const uint8_t u[16], char *buf, int none_if_null)
{
	return superlist_uuid(u, buf, none_if_null);
}

void print_raw_name(FILE *f, const char *name, size_t len)
{
	fwrite(name, 1, len, f);
}

/* ---- path of a directory --------------------------------------------- */
struct name_search {
	e4_ino_t want;
	char name[EXT4_NAME_LEN + 1];
	int found;
};

static int find_name_cb(const struct e4_dirent *d, void *priv)
{
	struct name_search *s = priv;

	if (d->inode != s->want)
		return 0;
	memcpy(s->name, d->name, d->name_len);
	s->name[d->name_len] = 0;
	s->found = 1;
	return 1;
}

/*
 * Walk up through ".." from ino, finding each directory's name in its
 * parent, and build "/a/b/c".  At most 1024 levels (a loop of ".."
 * entries in a corrupt filesystem stops there).
 */
errcode_t dir_pathname(e4_ino_t ino, char *buf, size_t len)
{
	char *tmp;
	size_t pos;	/* the path is built right-aligned in tmp[0..len) */
	errcode_t err = 0;
	int depth;

	if (len < 2)
		return E4_ERR_BUFFER_TOO_SMALL;
	tmp = malloc(len);
	if (!tmp)
		return E4_ERR_NO_MEMORY;
	pos = len - 1;
	tmp[pos] = 0;
	for (depth = 0; ino != root_ino; depth++) {
		struct name_search s;
		e4_ino_t parent;
		uint8_t ft;
		size_t nl;

		if (depth >= 1024) {
			err = E4_ERR_LOOP;
			break;
		}
		err = e4_dir_lookup(current_fs, ino, "..", 2, &parent, &ft);
		if (err)
			break;
		memset(&s, 0, sizeof(s));
		s.want = ino;
		err = e4_dir_iterate(current_fs, parent, E4_DIR_NO_DOTS, find_name_cb, &s);
		if (err && err != 1)
			break;
		err = 0;
		if (!s.found) {
			snprintf(s.name, sizeof(s.name), "<%u>", ino);
			s.found = 1;
		}
		nl = strlen(s.name);
		if (nl + 1 > pos) {
			err = E4_ERR_BUFFER_TOO_SMALL;
			break;
		}
		pos -= nl;
		memcpy(tmp + pos, s.name, nl);
		tmp[--pos] = '/';
		if (parent == ino)
			break;	/* a directory that is its own parent */
		ino = parent;
	}
	if (pos == len - 1)
		tmp[--pos] = '/';
	if (err && pos > 0) {
		/* mark an incomplete path: "...<ino>/rest" */
		char mark[24];
		size_t ml = (size_t)snprintf(mark, sizeof(mark), "<%u>", ino);

		if (ml <= pos) {
			pos -= ml;
			memcpy(tmp + pos, mark, ml);
		}
	}
	memmove(buf, tmp + pos, len - pos);
	free(tmp);
	return err;
}

void warn_err(const char *cmd, errcode_t err, const char *fmt, ...)
{
	char who[96];
	va_list ap;

	fflush(stdout);
	snprintf(who, sizeof(who), "%s: warning", cmd);
	va_start(ap, fmt);
	com_err_va(who, err, fmt, ap);
	va_end(ap);
}

int parse_parent(const char *cmd, const char *path, e4_ino_t *dir, char *name,
		 size_t name_size)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t len = strlen(base);
	errcode_t err;

	if (len >= name_size) {
		com_err(cmd, E4_ERR_NAME_TOO_LONG, "- the last name of \"%s\" has %zu bytes, "
			"the most is %zu", path, len, name_size - 1);
		return 1;
	}
	if (!len || !strcmp(base, ".") || !strcmp(base, "..")) {
		com_err(cmd, E4_ERR_INVALID_ARGUMENT, "- \"%s\" does not end with a name", path);
		return 1;
	}
	memcpy(name, base, len + 1);
	if (!slash) {
		*dir = cwd_ino;
		return 0;
	}
	if (slash == path) {
		*dir = root_ino;
		return 0;
	}
	{
		char *d = strndup(path, (size_t)(slash - path));

		if (!d) {
			com_err(cmd, E4_ERR_NO_MEMORY, "while looking up %s", path);
			return 1;
		}
		err = e4_namei(current_fs, root_ino, cwd_ino, d, 1, dir);
		if (err)
			com_err(cmd, err, "while looking up %s", d);
		free(d);
	}
	return err ? 1 : 0;
}

void now_attr(struct e4_op_attr *a, uint16_t perm)
{
	memset(a, 0, sizeof(*a));
	a->perm = perm;
	a->now.sec = debugfs_now();
}

int rw_inode_cmd(int argc, char **argv, e4_ino_t *ino)
{
	if (argc != 2)
		return usage(argv[0], NULL);
	return check_fs_read_write(argv[0]) || parse_inode(argv[0], argv[1], ino);
}

int open_input(const char *cmd, const char *path, int regular_only, FILE **fp)
{
	struct stat st;
	int fd;

	/* O_NONBLOCK: a fifo without a writer must not hang the open */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		com_err(cmd, errno, "while opening %s", path);
		return -1;
	}
	if (fstat(fd, &st)) {
		com_err(cmd, errno, "while reading %s", path);
		close(fd);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		com_err(cmd, EISDIR, "while reading %s", path);
		close(fd);
		return -1;
	}
	if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || (regular_only && !S_ISREG(st.st_mode))) {
		com_err(cmd, 0, "%s is not a regular file%s", path,
			regular_only ? "" : " or a device");
		close(fd);
		return -1;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		com_err(cmd, errno, "while opening %s", path);
		close(fd);
		return -1;
	}
	if (fp && !(*fp = fdopen(fd, "rb"))) {
		com_err(cmd, errno, "while opening %s", path);
		close(fd);
		return -1;
	}
	return fd;
}
