/*
 * popsrc_dir.c: the directory reader of e4mkfs -d (popsrc.h).  Everything
 * is read relative to directory descriptors (openat, statx with
 * AT_SYMLINK_NOFOLLOW); attributes of every namespace through
 * llistxattr/lgetxattr on /proc/self/fd/DIRFD/NAME (no path length
 * limit, symlinks not followed); regular files' data runs through
 * SEEK_DATA/SEEK_HOLE (a filesystem without them: one run).  Data is read
 * only when the walk delivers the file, from a descriptor checked to be
 * the inode the listing saw.  No catalogue: each walk reads the tree
 * again, one directory at a time (see "the streaming walk" below).
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

/* "SOURCE/REL: what: cause", a path over 300 bytes cut (the cause must
 * fit the message). */
static int fail_rel(struct pop_src *s, const char *rel, const char *what, int e)
{
	return pop_fail(s, "%s%s%.300s%s: %s%s%s", s->spec, *rel ? "/" : "", rel,
			strlen(rel) > 300 ? "..." : "", what, e ? ": " : "", e ? strerror(e) : "");
}

static int fail_changed(struct pop_src *s, const char *rel)
{
	return fail_rel(s, rel, "changed while being read (type, size, identity or ctime)", 0);
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

/* All attributes of name in dirfd (".": the directory itself) into node
 * n; rel names it in messages. */
static int read_xattrs(struct pop_src *s, uint32_t n, int dirfd, const char *name,
		       const char *rel)
{
	char path[64 + 256], *list = NULL, *p;
	ssize_t len, vl;
	char *val = s->xbuf;

	s->xa_listed = 0;
	if (s->opts.no_xattrs)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", dirfd, name);
	len = llistxattr(path, NULL, 0);
	s->xa_listed = len > 0;
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
		return fail_rel(s, rel, "cannot list extended attributes", errno);
	}
	for (p = list; p && p < list + len; p += strlen(p) + 1) {
		vl = lgetxattr(path, p, val, POP_XBUF);
		if (vl < 0 && errno == ENODATA)
			continue;	/* removed meanwhile */
		if (vl < 0) {
			char what[300];

			snprintf(what, sizeof(what), "cannot read extended attribute %s", p);
			free(list);
			return fail_rel(s, rel, what, errno);
		}
		if (pop_xa_add(s, n, p, val, (size_t)vl)) {
			free(list);
			return -1;
		}
	}
	free(list);
	{
		char what[600];

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

/* fd is still the inode the listing saw: identity, type, size and ctime (a
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

/* Data runs of regular file n. */
static int read_segs(struct pop_src *s, uint32_t n, int dirfd, const char *name,
		     const char *rel)
{
	uint64_t size = s->nodes[n].size, pos = 0;
	int fd;

	if (!size)
		return 0;
	fd = open_file(dirfd, name);
	if (fd < 0)
		return fail_rel(s, rel, "cannot open", errno);
	if (!same_file(&s->nodes[n], fd)) {
		close(fd);
		return fail_changed(s, rel);
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
			return fail_rel(s, rel, "cannot find data (SEEK_DATA/SEEK_HOLE)", e);
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

/* ---- the streaming walk ----------------------------------------------------
 *
 * Nothing of the tree is kept between walks but one check word and one
 * "has attributes" bit per entry and the hard-linked inodes (about 4.1
 * bytes an entry): each walk reads each directory when its
 * turn comes (its names sorted, then each child stated, its attributes
 * and data runs read, delivered and forgotten), so the memory is that of
 * the directories on the current path.  pop_open's walk (no callbacks)
 * checks everything the later walks will meet, counts the entries, data
 * bytes and the links of each hard-linked inode, and records a check word
 * per entry (identity, type, size, ctime, ...); later walks fail on an
 * entry whose word differs (the tree changed between walks), and list
 * attributes only where pop_open's walk found some.  The entry
 * being delivered is the scratch node SCRATCH (nodes[], arena, xas[] and
 * segs[] reset for each entry).
 */
#define SCRATCH	1

/* a subdirectory listed and delivered, to be descended into */
struct dsub {
	uint32_t name_off, name_len;	/* in the listing's names */
	uint32_t nkids;			/* children it had when counted */
	struct pop_node node;		/* its metadata (identity checks) */
	struct pop_entry e;		/* its entry for dir_end (no attributes) */
};

struct dwalk {
	const struct pop_ops *ops;
	void *arg;
	uint32_t next;		/* stream index of the next entry */
	char *path;		/* the directory being listed, then "/" name */
	size_t mark;		/* arena bytes kept (the root's name) */
	struct pop_xattr *xa;	/* the delivered entry's attributes */
	uint32_t cxa;
};

/* One directory's names, sorted (memcmp, a prefix first). */
struct listing {
	char *names;		/* NUL-terminated, one after another */
	size_t len, cap;
	uint32_t *offs, n, cap_offs;
	struct dsub *subs;
	uint32_t nsubs, cap_subs;
};

static void listing_free(struct listing *l)
{
	free(l->names);
	free(l->offs);
	free(l->subs);
}

static int cmp_names(const void *a, const void *b, void *arg)
{
	const char *names = arg;
	const unsigned char *x = (const unsigned char *)names + *(const uint32_t *)a;
	const unsigned char *y = (const unsigned char *)names + *(const uint32_t *)b;

	return strcmp((const char *)x, (const char *)y);	/* bytes; a prefix first */
}

/* Read directory fd's names into l (sorted), or just count them (l NULL):
 * *nkids entries, *nsub of them directories. */
static int read_names(struct pop_src *s, int fd, const char *rel, struct listing *l,
		      uint32_t *nkids, uint32_t *nsub)
{
	struct dirent *de;
	DIR *d;
	int dfd = dup(fd);

	*nkids = *nsub = 0;
	d = dfd < 0 ? NULL : fdopendir(dfd);
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return fail_rel(s, rel, "cannot read directory", errno);
	}
	rewinddir(d);
	while (errno = 0, (de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		(*nkids)++;
		if (!l) {
			struct stat st;

			if (de->d_type == DT_DIR ||
			    (de->d_type == DT_UNKNOWN &&
			     !fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
			     S_ISDIR(st.st_mode)))
				(*nsub)++;
			continue;
		}
		if (l->len + n + 1 > l->cap || l->len + n + 1 > UINT32_MAX) {
			size_t c = l->cap ? l->cap * 2 : 4096;
			char *q;

			while (c < l->len + n + 1)
				c *= 2;
			q = c > UINT32_MAX ? NULL : realloc(l->names, c);
			if (!q)
				goto nomem;
			l->names = q;
			l->cap = c;
		}
		if (l->n == l->cap_offs) {
			uint32_t c = l->cap_offs ? l->cap_offs * 2 : 64;
			uint32_t *q = realloc(l->offs, (size_t)c * sizeof(*q));

			if (!q)
				goto nomem;
			l->offs = q;
			l->cap_offs = c;
		}
		l->offs[l->n++] = (uint32_t)l->len;
		memcpy(l->names + l->len, de->d_name, n + 1);
		l->len += n + 1;
	}
	if (errno) {
		int e = errno;

		closedir(d);
		return fail_rel(s, rel, "cannot read directory", e);
	}
	closedir(d);
	if (l && l->n)	/* an empty directory has no arrays */
		qsort_r(l->offs, l->n, sizeof(*l->offs), cmp_names, l->names);
	return 0;
nomem:
	closedir(d);
	return pop_fail(s, "%s: out of memory", s->spec);
}

/* ---- hard-linked inodes: (dev, ino) -> links in the tree, first entry ---- */

static struct pop_lnk *lnk_find(struct pop_src *s, uint64_t dev, uint64_t ino, int add)
{
	uint32_t i;

	if (add && (uint64_t)(s->nlnk + 1) * 2 > s->clnk) {
		uint32_t c = s->clnk ? s->clnk * 2 : 256, old = s->clnk;
		struct pop_lnk *o = s->lnk, *q = malloc((size_t)c * sizeof(*q));

		if (!q)
			return NULL;
		for (i = 0; i < c; i++)
			q[i].nlink = 0;
		s->lnk = q;
		s->clnk = c;
		for (uint32_t k = 0; k < old; k++)
			if (o[k].nlink)
				*lnk_find(s, o[k].dev, o[k].ino, 0) = o[k];
		free(o);
	}
	if (!s->clnk)
		return NULL;
	i = (uint32_t)((ino * 0x9e3779b97f4a7c15ull ^ dev) >> 7) & (s->clnk - 1);
	for (; s->lnk[i].nlink; i = (i + 1) & (s->clnk - 1))
		if (s->lnk[i].ino == ino && s->lnk[i].dev == dev)
			return &s->lnk[i];
	if (!add)	/* the free slot, for the rehash */
		return &s->lnk[i];
	s->lnk[i] = (struct pop_lnk){ .dev = dev, .ino = ino, .nlink = 0, .group = POP_NONE };
	s->nlnk++;
	return &s->lnk[i];
}

/* ---- one entry ------------------------------------------------------------ */

static uint32_t mix(uint32_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		h = (h ^ (uint8_t)(v >> (8 * i))) * 16777619u;
	return h;
}

/* The check word of the scratch node (see above). */
static uint32_t check_word(const struct pop_src *s, uint32_t nkids)
{
	const struct pop_node *nd = &s->nodes[SCRATCH];
	uint32_t h = 2166136261u;

	h = mix(h, nd->dev);
	h = mix(h, nd->ino);
	h = mix(h, nd->type | (uint64_t)nd->mode << 8 | (uint64_t)nd->stnlink << 32);
	h = mix(h, nd->size);
	h = mix(h, (uint64_t)nd->t[2].sec ^ (uint64_t)nd->t[2].nsec << 34);
	h = mix(h, nd->uid | (uint64_t)nd->gid << 32);
	h = mix(h, nd->major | (uint64_t)nd->minor << 32);
	h = mix(h, nkids | (uint64_t)nd->nxa << 32);
	return mix(h, nd->name_len);
}

/* The first walk records the word of entry idx, later walks compare. */
static int check(struct pop_src *s, uint32_t idx, uint32_t nkids, const char *rel)
{
	uint32_t w = check_word(s, nkids);

	if (!s->dir_checked) {
		if (idx >= s->cchk) {
			uint32_t c = s->cchk ? s->cchk * 2 : 1024;
			uint32_t *q = realloc(s->chk, (size_t)c * sizeof(*q));
			uint8_t *b = q ? realloc(s->hasxa, c / 8) : NULL;

			if (q)
				s->chk = q;
			if (!b)
				return pop_fail(s, "%s: out of memory", s->spec);
			s->hasxa = b;
			s->cchk = c;
		}
		s->chk[idx] = w;
		if ((idx & 7) == 0)
			s->hasxa[idx >> 3] = 0;
		if (s->xa_listed)
			s->hasxa[idx >> 3] |= (uint8_t)(1u << (idx & 7));
		return 0;
	}
	if (idx >= s->dir_count || s->chk[idx] != w)
		return fail_changed(s, rel);
	return 0;
}

/* Fill the scratch node with name in dirfd (rel: its path, for
 * messages): metadata, target, attributes, data runs (first links only).
 * *grp set for a hard-linked inode. */
static int stat_one(struct pop_src *s, struct dwalk *w, int dirfd, const char *name,
		    const char *rel, uint32_t idx, struct pop_lnk **grp)
{
	struct pop_node *nd;
	struct statx x;
	size_t len = strlen(name);

	*grp = NULL;
	s->alen = w->mark;
	s->nxas = s->nsegs = 0;
	s->nnodes = SCRATCH;
	if (pop_node_new(s, 0, name, len) != SCRATCH)
		return -1;
	if (len > POP_NAME_MAX)
		return fail_rel(s, rel, "name longer than 255 bytes", ENAMETOOLONG);
	if (strlen(rel) > POP_PATH_MAX)
		return fail_rel(s, rel, "path longer than 4095 bytes", ENAMETOOLONG);
	if (statx(dirfd, *name ? name : "", (*name ? AT_SYMLINK_NOFOLLOW : AT_EMPTY_PATH) |
		  AT_NO_AUTOMOUNT, STATX_BASIC_STATS | STATX_BTIME, &x))
		return fail_rel(s, rel, "cannot stat", errno);
	nd = &s->nodes[SCRATCH];
	set_meta(nd, &x);
	if (!nd->type)
		return fail_rel(s, rel, "unknown file type", EINVAL);
	if (nd->type == POP_SYMLINK) {
		ssize_t l = readlinkat(dirfd, name, s->xbuf, POP_XBUF);
		uint64_t off;

		if (l < 0 || l == POP_XBUF)
			return fail_rel(s, rel, "cannot read symlink", l < 0 ? errno : ENAMETOOLONG);
		off = pop_arena_put(s, s->xbuf, (size_t)l);
		if (off == UINT64_MAX)
			return -1;
		nd = &s->nodes[SCRATCH];
		nd->target_off = off;
		nd->target_len = (uint32_t)l;
	}
	/* later walks list the attributes of the entries pop_open's walk
	 * found some on (adding one moves the ctime: the check word) */
	if (s->dir_checked && !(s->hasxa[idx >> 3] & (1u << (idx & 7))))
		s->xa_listed = 0;
	else if (read_xattrs(s, SCRATCH, dirfd, *name ? name : ".", rel))
		return -1;
	nd = &s->nodes[SCRATCH];
	if (nd->type != POP_DIR && nd->stnlink > 1) {
		struct pop_lnk *k = lnk_find(s, nd->dev, nd->ino, !s->dir_checked);

		if (!k || (s->dir_checked && !k->nlink))	/* not seen by pop_open */
			return s->dir_checked ? fail_changed(s, rel) :
			       pop_fail(s, "%s: out of memory", s->spec);
		if (!s->dir_checked)
			k->nlink++;
		if (k->group == POP_NONE)
			k->group = idx;
		*grp = k;
	}
	if (nd->type == POP_REG && (!*grp || (*grp)->group == idx)) {
		if (read_segs(s, SCRATCH, dirfd, name, rel))
			return -1;
		if (!s->dir_checked)
			for (uint32_t i = 0; i < s->nsegs; i++)
				s->dir_bytes += s->segs[i].len;
	}
	return 0;
}

/* The entry of the scratch node; -1 on memory. */
static int fill(struct pop_src *s, struct dwalk *w, struct pop_entry *e, uint32_t idx,
		 uint32_t parent, const char *path, size_t name_at, uint32_t nkids, uint32_t nsub,
		 const struct pop_lnk *grp)
{
	const struct pop_node *nd = &s->nodes[SCRATCH];

	memset(e, 0, sizeof(*e));
	e->index = idx;
	e->parent = parent;
	e->path = path;
	e->name = path + name_at;
	e->name_len = nd->name_len;
	if (pop_entry_meta(s, nd, e, &w->xa, &w->cxa))
		return -1;
	e->link_group = grp ? grp->group : idx;
	e->nlink = nd->type == POP_DIR ? 2 + nsub : grp ? grp->nlink : 1;
	e->nchildren = nkids;
	if (nd->type == POP_REG && e->link_group == idx && s->nsegs) {
		e->segs = s->segs;
		e->nsegs = s->nsegs;
	}
	return 0;
}

/* Deliver the scratch node's entry (data readable through pop_read from
 * dirfd during the callback). */
static int deliver(struct pop_src *s, struct dwalk *w, int dirfd, const struct pop_entry *e)
{
	int rc = 0;

	if (w->ops && w->ops->entry) {
		s->walk_dirfd = dirfd;
		s->cur_node = e->index;
		rc = w->ops->entry(w->arg, s, e);
		s->cur_node = POP_NONE;
		s->walk_dirfd = -1;
	}
	if (s->cur_fd >= 0) {
		close(s->cur_fd);
		s->cur_fd = -1;
	}
	return rc;
}

/* A directory child just stated (scratch node) at dirfd/name: count its
 * children. */
static int count_kids(struct pop_src *s, int dirfd, const char *name, const char *rel,
		      uint32_t *nkids, uint32_t *nsub)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	int rc;

	if (fd < 0)
		return fail_rel(s, rel, "cannot open directory", errno);
	if (!same_file(&s->nodes[SCRATCH], fd)) {
		close(fd);
		return fail_changed(s, rel);
	}
	rc = read_names(s, fd, rel, NULL, nkids, nsub);
	close(fd);
	return rc;
}

/* List directory dir (open as fd, its path in w->path, plen bytes): its
 * children, dir_end, then its subdirectories, depth first. */
static int list_dir(struct pop_src *s, struct dwalk *w, int fd, size_t plen, struct dsub *dir)
{
	struct listing l = { 0 };
	uint32_t nkids, nsub, i;
	int rc;

	rc = read_names(s, fd, w->path, &l, &nkids, &nsub);
	if (!rc && l.n != dir->nkids)
		rc = fail_changed(s, w->path);
	for (i = 0; !rc && i < l.n; i++) {
		const char *name = l.names + l.offs[i];
		size_t at = plen + (plen ? 1 : 0), nlen = strlen(name);
		uint32_t idx = w->next++, ck = 0, cs = 0;
		struct pop_lnk *grp;
		struct pop_entry e;

		if (at + nlen > POP_PATH_MAX) {
			rc = fail_rel(s, w->path, "a path below it is longer than 4095 bytes",
				      ENAMETOOLONG);
			break;
		}
		if (plen)
			w->path[plen] = '/';
		memcpy(w->path + at, name, nlen + 1);
		rc = stat_one(s, w, fd, name, w->path, idx, &grp);
		if (!rc && s->nodes[SCRATCH].type == POP_DIR)
			rc = count_kids(s, fd, name, w->path, &ck, &cs);
		if (!rc)
			rc = check(s, idx, ck, w->path);
		if (rc)
			break;
		if (fill(s, w, &e, idx, dir->e.index, w->path, at, ck, cs, grp)) {
			rc = -1;
			break;
		}
		e.name = name;	/* the listing's copy lives until dir_end (popsrc.h) */
		if (e.type == POP_DIR) {
			struct dsub *d;

			if (l.nsubs == l.cap_subs) {
				uint32_t c = l.cap_subs ? l.cap_subs * 2 : 8;

				d = realloc(l.subs, (size_t)c * sizeof(*d));
				if (!d) {
					rc = pop_fail(s, "%s: out of memory", s->spec);
					break;
				}
				l.subs = d;
				l.cap_subs = c;
			}
			d = &l.subs[l.nsubs++];
			d->name_off = l.offs[i];
			d->name_len = (uint32_t)nlen;
			d->nkids = ck;
			d->node = s->nodes[SCRATCH];
			d->e = e;
			d->e.xattrs = NULL;
			d->e.nxattrs = 0;
			d->e.target = NULL;
		}
		rc = deliver(s, w, fd, &e);
	}
	w->path[plen] = 0;
	free(l.offs);	/* the names stay (until dir_end, popsrc.h); subs[] has the rest */
	l.offs = NULL;
	if (!rc && w->ops && w->ops->dir_end) {
		/* the directory's own entry, as delivered, without attributes */
		dir->e.path = w->path;
		dir->e.name = w->path + (plen > dir->e.name_len ? plen - dir->e.name_len : 0);
		rc = w->ops->dir_end(w->arg, s, &dir->e);
	}
	for (i = 0; !rc && i < l.nsubs; i++) {
		struct dsub *d = &l.subs[i];
		const char *name = l.names + d->name_off;
		size_t at = plen + (plen ? 1 : 0);
		int sub;

		if (plen)
			w->path[plen] = '/';
		memcpy(w->path + at, name, d->name_len + 1);
		sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
		if (sub < 0) {
			rc = fail_rel(s, w->path, "cannot open directory", errno);
			break;
		}
		if (!same_file(&d->node, sub)) {
			close(sub);
			rc = fail_changed(s, w->path);
			break;
		}
		rc = list_dir(s, w, sub, at + d->name_len, d);
		close(sub);
		w->path[plen] = 0;
	}
	listing_free(&l);
	return rc;
}

int pop_dir_walk(struct pop_src *s, const struct pop_ops *ops, void *arg)
{
	struct dwalk w = { ops, arg, 0, NULL, 0, NULL, 0 };
	struct pop_lnk *grp;
	struct dsub root;
	uint32_t nsub;
	int rc;

	w.path = malloc(POP_PATH_MAX + 1 + POP_NAME_MAX + 2);
	if (!w.path)
		return pop_fail(s, "%s: out of memory", s->spec);
	w.path[0] = 0;
	for (uint32_t i = 0; i < s->clnk; i++)
		s->lnk[i].group = POP_NONE;
	s->nnodes = 1;
	w.mark = 1;	/* the root node's name "" (pop_open's node 0) */
	memset(&root, 0, sizeof(root));
	rc = stat_one(s, &w, s->rootfd, "", "", 0, &grp);
	if (!rc)
		rc = read_names(s, s->rootfd, "", NULL, &root.nkids, &nsub);
	if (!rc)
		rc = check(s, 0, root.nkids, "");
	if (!rc) {
		w.next = 1;
		rc = fill(s, &w, &root.e, 0, 0, w.path, 0, root.nkids, nsub, NULL);
		if (!rc)
			rc = deliver(s, &w, s->rootfd, &root.e);
		root.e.xattrs = NULL;
		root.e.nxattrs = 0;
	}
	if (!rc)
		rc = list_dir(s, &w, s->rootfd, 0, &root);
	if (!rc && s->dir_checked && w.next != s->dir_count)
		rc = fail_changed(s, "");
	if (!rc && !s->dir_checked)
		s->dir_count = w.next;
	free(w.path);
	free(w.xa);
	return rc;
}

int pop_dir_scan(struct pop_src *s)
{
	s->rootfd = open(s->spec, O_RDONLY | O_DIRECTORY);
	if (s->rootfd < 0)
		return fail_rel(s, "", "cannot open directory", errno);
	s->dir_checked = 0;
	s->dir_bytes = 0;
	if (pop_dir_walk(s, NULL, NULL))
		return -1;
	s->dir_checked = 1;
	if (s->dir_count < s->cchk) {	/* the walk's growth slack back */
		uint32_t *q = realloc(s->chk, (size_t)s->dir_count * sizeof(*q));

		if (q) {
			s->chk = q;
			s->cchk = s->dir_count;
		}
	}
	return 0;
}

int pop_dir_read(struct pop_src *s, const struct pop_entry *e, uint64_t off, void *buf,
		 size_t len)
{
	const struct pop_node *nd = &s->nodes[SCRATCH];
	char *p = buf;

	if (s->cur_fd < 0) {
		s->cur_fd = open_file(s->walk_dirfd, s->arena + nd->name_off);
		if (s->cur_fd < 0)
			return fail_rel(s, e->path, "cannot open", errno);
		if (!same_file(nd, s->cur_fd))
			return fail_changed(s, e->path);
	}
	while (len) {
		ssize_t r = pread(s->cur_fd, p, len, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return fail_rel(s, e->path, "read error", errno);
		if (r == 0)
			return fail_changed(s, e->path);
		p += r;
		off += (uint64_t)r;
		len -= (size_t)r;
	}
	return 0;
}
