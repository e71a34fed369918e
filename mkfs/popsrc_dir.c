/*
 * popsrc_dir.c: the directory reader of e4mkfs -d (popsrc.h).  Everything
 * is read relative to directory descriptors (openat, statx with
 * AT_SYMLINK_NOFOLLOW); attributes of every namespace through
 * llistxattr/lgetxattr on /proc/self/fd/DIRFD/NAME (no path length
 * limit, symlinks not followed); regular files' data runs through
 * SEEK_DATA/SEEK_HOLE (a filesystem without them: one run).  Data is read
 * only when the walk delivers the file, from a descriptor checked to be
 * the inode the scan saw.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "popsrc_int.h"

/* "SOURCE/PATH: what: cause", a path over 300 bytes cut (the cause must
 * fit the message). */
static int fail_errno(struct pop_src *s, uint32_t n, const char *what, int e)
{
	char rel[POP_PATH_MAX + 1];

	pop_node_path(s, n, rel, sizeof(rel));
	return pop_fail(s, "%s%s%.300s%s: %s%s%s", s->spec, *rel ? "/" : "", rel,
			strlen(rel) > 300 ? "..." : "", what, e ? ": " : "", e ? strerror(e) : "");
}

static int fail_changed(struct pop_src *s, uint32_t n)
{
	return fail_errno(s, n, "changed while being read (type, size, identity or ctime)", 0);
}

static enum pop_type type_of(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG: return POP_REG;
	case S_IFDIR: return POP_DIR;
	case S_IFLNK: return POP_SYMLINK;
	case S_IFCHR: return POP_CHR;
	case S_IFBLK: return POP_BLK;
	case S_IFIFO: return POP_FIFO;
	case S_IFSOCK: return POP_SOCK;
	}
	return 0;
}

static struct pop_time ts(struct statx_timestamp t)
{
	return (struct pop_time){ t.tv_sec, t.tv_nsec };
}

static void set_meta(struct pop_node *nd, const struct statx *x)
{
	nd->type = type_of(x->stx_mode);
	nd->mode = x->stx_mode & 07777;
	nd->uid = x->stx_uid;
	nd->gid = x->stx_gid;
	nd->t[0] = ts(x->stx_atime);
	nd->t[1] = ts(x->stx_mtime);
	nd->t[2] = ts(x->stx_ctime);
	nd->has_cr = !!(x->stx_mask & STATX_BTIME);
	nd->t[3] = nd->has_cr ? ts(x->stx_btime) : nd->t[2];
	nd->major = x->stx_rdev_major;
	nd->minor = x->stx_rdev_minor;
	nd->dev = makedev(x->stx_dev_major, x->stx_dev_minor);
	nd->ino = x->stx_ino;
	nd->stnlink = x->stx_nlink;
	nd->size = nd->type == POP_REG ? x->stx_size : 0;
}

/* All attributes of name in dirfd (".": the directory itself). */
static int read_xattrs(struct pop_src *s, uint32_t n, int dirfd, const char *name)
{
	char path[64 + 256], *list = NULL, *p;
	ssize_t len, vl;
	char *val = s->xbuf;

	if (s->opts.no_xattrs)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", dirfd, name);
	len = llistxattr(path, NULL, 0);
	if (len < 0 && (errno == ENOTSUP || errno == ENODATA))
		return 0;
	if (len > 0) {
		list = malloc(len + 1);
		if (!list)
			return pop_fail(s, "%s: out of memory", s->spec);
		len = llistxattr(path, list, len);
	}
	if (len < 0) {
		free(list);
		return fail_errno(s, n, "cannot list extended attributes", errno);
	}
	for (p = list; p && p < list + len; p += strlen(p) + 1) {
		vl = lgetxattr(path, p, val, POP_XBUF);
		if (vl < 0 && errno == ENODATA)
			continue;	/* removed meanwhile */
		if (vl < 0) {
			char what[300];

			snprintf(what, sizeof(what), "cannot read extended attribute %s", p);
			free(list);
			return fail_errno(s, n, what, errno);
		}
		if (pop_xa_add(s, n, p, val, (size_t)vl)) {
			free(list);
			return -1;
		}
	}
	free(list);
	{
		char rel[POP_PATH_MAX + 1], what[600];

		pop_node_path(s, n, rel, sizeof(rel));
		snprintf(what, sizeof(what), "%s%s%.300s%s", s->spec, *rel ? "/" : "", rel,
			 strlen(rel) > 300 ? "..." : "");
		return pop_xa_finish(s, n, what);
	}
}

static int open_file(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NOATIME);

	if (fd < 0 && errno == EPERM)	/* O_NOATIME: owner or CAP_FOWNER only */
		fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY);
	return fd;
}

/* fd is still the inode the scan saw: identity, type, size and ctime (a
 * new inode that got the old number, or any change of data or metadata,
 * moves the ctime). */
static int same_file(const struct pop_node *nd, int fd)
{
	struct stat st;

	return !fstat(fd, &st) && st.st_ino == nd->ino && st.st_dev == nd->dev &&
	       type_of(st.st_mode) == nd->type &&
	       (nd->type != POP_REG || (uint64_t)st.st_size == nd->size) &&
	       st.st_ctim.tv_sec == nd->t[2].sec && (uint32_t)st.st_ctim.tv_nsec == nd->t[2].nsec;
}

/* Data runs of a regular file. */
static int read_segs(struct pop_src *s, uint32_t n, int dirfd, const char *name)
{
	uint64_t size = s->nodes[n].size, pos = 0;
	int fd;

	if (!size)
		return 0;
	fd = open_file(dirfd, name);
	if (fd < 0)
		return fail_errno(s, n, "cannot open", errno);
	if (!same_file(&s->nodes[n], fd)) {
		close(fd);
		return fail_changed(s, n);
	}
	while (pos < size) {
		off_t d = lseek(fd, (off_t)pos, SEEK_DATA), h;

		if (d < 0 && errno == ENXIO)
			break;
		if (d < 0 && errno == EINVAL) {	/* no SEEK_DATA: all data */
			d = (off_t)pos;
			h = (off_t)size;
		} else if (d < 0 || (h = lseek(fd, d, SEEK_HOLE)) < 0) {
			int e = errno;

			close(fd);
			return fail_errno(s, n, "cannot find data (SEEK_DATA/SEEK_HOLE)", e);
		}
		if ((uint64_t)d >= size)
			break;
		if ((uint64_t)h > size)
			h = (off_t)size;
		if (pop_seg_add(s, n, (uint64_t)d, (uint64_t)(h - d))) {
			close(fd);
			return -1;
		}
		pos = (uint64_t)h;
	}
	close(fd);
	return 0;
}

/* Directory dn (its relative path plen bytes long) open as dirfd. */
static int scan_dir(struct pop_src *s, int dirfd, uint32_t dn, size_t plen)
{
	char *target = s->xbuf;
	struct dirent *de;
	DIR *d;
	int fd;
	uint32_t c;

	fd = dup(dirfd);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return fail_errno(s, dn, "cannot read directory", errno);
	}
	while (errno = 0, (de = readdir(d))) {
		struct statx x;
		uint32_t n;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n = pop_node_new(s, dn, de->d_name, strlen(de->d_name));
		if (n == POP_NONE)
			goto fail;
		pop_node_link(s, n);
		if (strlen(de->d_name) > POP_NAME_MAX) {
			fail_errno(s, n, "name longer than 255 bytes", ENAMETOOLONG);
			goto fail;
		}
		if (plen + (plen ? 1 : 0) + strlen(de->d_name) > POP_PATH_MAX) {
			fail_errno(s, dn, "a path below it is longer than 4095 bytes",
				   ENAMETOOLONG);
			goto fail;
		}
		if (statx(dirfd, de->d_name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
			  STATX_BASIC_STATS | STATX_BTIME, &x)) {
			fail_errno(s, n, "cannot stat", errno);
			goto fail;
		}
		set_meta(&s->nodes[n], &x);
		if (!s->nodes[n].type) {
			fail_errno(s, n, "unknown file type", EINVAL);
			goto fail;
		}
		if (s->nodes[n].type == POP_SYMLINK) {
			ssize_t l = readlinkat(dirfd, de->d_name, target, POP_XBUF);
			uint64_t off;

			if (l < 0 || l == POP_XBUF) {
				fail_errno(s, n, "cannot read symlink", l < 0 ? errno : ENAMETOOLONG);
				goto fail;
			}
			off = pop_arena_put(s, target, (size_t)l);
			if (off == UINT64_MAX)
				goto fail;
			s->nodes[n].target_off = off;
			s->nodes[n].target_len = (uint32_t)l;
		}
		if (read_xattrs(s, n, dirfd, de->d_name))
			goto fail;
		if (s->nodes[n].type == POP_REG && read_segs(s, n, dirfd, de->d_name))
			goto fail;
	}
	if (errno) {
		fail_errno(s, dn, "cannot read directory", errno);
		goto fail;
	}
	closedir(d);
	/* then the subdirectories, one descriptor open per level */
	for (c = s->nodes[dn].kid_first; c != POP_NONE; c = s->nodes[c].next) {
		int sub;
		int rc;

		if (s->nodes[c].type != POP_DIR)
			continue;
		sub = openat(dirfd, s->arena + s->nodes[c].name_off,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
		if (sub < 0)
			return fail_errno(s, c, "cannot open directory", errno);
		if (!same_file(&s->nodes[c], sub)) {
			close(sub);
			return fail_changed(s, c);
		}
		rc = scan_dir(s, sub, c, plen + (plen ? 1 : 0) + s->nodes[c].name_len);
		close(sub);
		if (rc)
			return rc;
	}
	return 0;
fail:
	closedir(d);
	return -1;
}

int pop_dir_scan(struct pop_src *s)
{
	struct statx x;

	s->rootfd = open(s->spec, O_RDONLY | O_DIRECTORY);
	if (s->rootfd < 0)
		return fail_errno(s, 0, "cannot open directory", errno);
	if (statx(s->rootfd, "", AT_EMPTY_PATH, STATX_BASIC_STATS | STATX_BTIME, &x))
		return fail_errno(s, 0, "cannot stat", errno);
	set_meta(&s->nodes[0], &x);
	if (read_xattrs(s, 0, s->rootfd, "."))
		return -1;
	return scan_dir(s, s->rootfd, 0, 0);
}

int pop_dir_enter(struct pop_src *s, uint32_t dir, const char *path)
{
	if (s->walk_dirfd >= 0)
		close(s->walk_dirfd);
	s->walk_dirfd = openat(s->rootfd, *path ? path : ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	if (s->walk_dirfd < 0)
		return fail_errno(s, dir, "cannot open directory", errno);
	if (!same_file(&s->nodes[dir], s->walk_dirfd))
		return fail_changed(s, dir);
	return 0;
}

int pop_dir_read(struct pop_src *s, uint32_t n, const char *path, uint64_t off, void *buf,
		 size_t len)
{
	const struct pop_node *nd = &s->nodes[n];
	char *p = buf;

	(void)path;
	if (s->cur_fd < 0) {
		s->cur_fd = open_file(s->walk_dirfd, s->arena + nd->name_off);
		if (s->cur_fd < 0)
			return fail_errno(s, n, "cannot open", errno);
		if (!same_file(nd, s->cur_fd))
			return fail_changed(s, n);
	}
	while (len) {
		ssize_t r = pread(s->cur_fd, p, len, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return fail_errno(s, n, "read error", errno);
		if (r == 0)
			return fail_changed(s, n);
		p += r;
		off += (uint64_t)r;
		len -= (size_t)r;
	}
	return 0;
}
