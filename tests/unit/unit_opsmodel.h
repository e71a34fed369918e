/*
 * unit_opsmodel.h: a model of a directory tree for the namespace
 * operations' tests (test_ops.c): entries (directory, name, inode) and
 * inodes (type, links, symlink target, device), checked against libe4's
 * own view and against the kernel's (read-only loop mount: names, types,
 * inode numbers, link counts, sizes, symlink targets, device numbers).
 * Header-only.
 */
#ifndef UNIT_OPSMODEL_H
#define UNIT_OPSMODEL_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "e4.h"
#include "unit_oracle.h"

struct mnode {
	int used;
	uint16_t type;		/* EXT4_S_IF* */
	char *target;		/* symlink */
	uint32_t major, minor;
};
struct ment {
	e4_ino_t dir, ino;
	char *name;
};
struct omodel {
	struct mnode *n;	/* by inode number */
	uint32_t ninodes;
	struct ment *e;
	size_t ne, cap;
};

static inline void om_init(struct omodel *m, uint32_t ninodes)
{
	memset(m, 0, sizeof(*m));
	m->ninodes = ninodes;
	m->n = calloc(ninodes + 1, sizeof(*m->n));
	m->n[EXT4_ROOT_INO].used = 1;
	m->n[EXT4_ROOT_INO].type = EXT4_S_IFDIR;
}

static inline void om_free(struct omodel *m)
{
	for (size_t i = 0; i < m->ne; i++)
		free(m->e[i].name);
	for (uint32_t i = 0; i <= m->ninodes; i++)
		free(m->n[i].target);
	free(m->e);
	free(m->n);
}

static inline void om_add(struct omodel *m, e4_ino_t dir, const char *name, e4_ino_t ino)
{
	if (m->ne == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 256;
		m->e = realloc(m->e, m->cap * sizeof(*m->e));
	}
	m->e[m->ne].dir = dir;
	m->e[m->ne].ino = ino;
	m->e[m->ne].name = strdup(name);
	m->ne++;
}

/* Index of entry (dir, name), or -1. */
static inline long om_find(const struct omodel *m, e4_ino_t dir, const char *name)
{
	for (size_t i = 0; i < m->ne; i++)
		if (m->e[i].dir == dir && !strcmp(m->e[i].name, name))
			return (long)i;
	return -1;
}

static inline void om_del(struct omodel *m, size_t i)
{
	free(m->e[i].name);
	m->e[i] = m->e[--m->ne];
}

/* Entries naming ino; for a directory, 2 + its subdirectories. */
static inline unsigned om_links(const struct omodel *m, e4_ino_t ino)
{
	unsigned n = 0;

	if (m->n[ino].type == EXT4_S_IFDIR) {
		n = 2;
		for (size_t i = 0; i < m->ne; i++)
			n += m->e[i].dir == ino && m->n[m->e[i].ino].type == EXT4_S_IFDIR;
		return n;
	}
	for (size_t i = 0; i < m->ne; i++)
		n += m->e[i].ino == ino;
	return n;
}

static inline size_t om_count(const struct omodel *m, e4_ino_t dir)
{
	size_t n = 0;

	for (size_t i = 0; i < m->ne; i++)
		n += m->e[i].dir == dir;
	return n;
}

/* 1 if directory a is d or lies below it. */
static inline int om_below(const struct omodel *m, e4_ino_t a, e4_ino_t d)
{
	while (a != EXT4_ROOT_INO) {
		size_t i;

		if (a == d)
			return 1;
		for (i = 0; i < m->ne; i++)
			if (m->e[i].ino == a)
				break;
		if (i == m->ne)
			return 0;
		a = m->e[i].dir;
	}
	return d == EXT4_ROOT_INO;
}

/* libe4's view: every entry found with its inode, every inode's type and
 * link count; 0 or -1 (printed). */
static inline int om_check_lib(e4_fs *fs, const struct omodel *m)
{
	for (size_t i = 0; i < m->ne; i++) {
		e4_ino_t ino;
		errcode_t err = e4_dir_lookup(fs, m->e[i].dir, m->e[i].name, strlen(m->e[i].name),
					      &ino, NULL);

		if (err || ino != m->e[i].ino) {
			fprintf(stderr, "lib: %u/%s: %s, ino %u expected %u\n", m->e[i].dir,
				m->e[i].name, err ? error_message(err) : "ok", err ? 0 : ino,
				m->e[i].ino);
			return -1;
		}
	}
	for (uint32_t ino = 1; ino <= m->ninodes; ino++) {
		union e4_inode_buf ib;
		int used = 0;

		if (!m->n[ino].used)
			continue;
		if (e4_inode_read(fs, ino, &ib) || e4_test_inode(fs, ino, &used) || !used) {
			fprintf(stderr, "lib: inode %u unreadable or free\n", ino);
			return -1;
		}
		if ((e4_le16(ib.inode.i_mode) & EXT4_S_IFMT) != m->n[ino].type ||
		    e4_le16(ib.inode.i_links_count) != om_links(m, ino)) {
			fprintf(stderr, "lib: inode %u mode %o links %u, expected type %o links %u\n",
				ino, e4_le16(ib.inode.i_mode), e4_le16(ib.inode.i_links_count),
				m->n[ino].type, om_links(m, ino));
			return -1;
		}
	}
	return 0;
}

static int om_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The kernel's view of directory dir mounted at path. */
static int om_kernel_dir(const struct omodel *m, const char *path, e4_ino_t dir)
{
	size_t n = om_count(m, dir), k = 0, got = 0;
	char **want = calloc(n + 1, sizeof(char *)), **have = calloc(n + 1, sizeof(char *));
	char p[8192], buf[4096];
	struct dirent *de;
	struct stat st;
	DIR *dp = opendir(path);
	int rc = 0;

	if (!dp) {
		fprintf(stderr, "kernel: opendir %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((de = readdir(dp))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (got == n) {
			fprintf(stderr, "kernel: %s has more than %zu names (%s)\n", path, n,
				de->d_name);
			rc = -1;
			break;
		}
		have[got++] = strdup(de->d_name);
	}
	closedir(dp);
	for (size_t i = 0; i < m->ne; i++)
		if (m->e[i].dir == dir)
			want[k++] = m->e[i].name;
	qsort(want, k, sizeof(char *), om_strcmp);
	qsort(have, got, sizeof(char *), om_strcmp);
	for (size_t i = 0; !rc && i < k; i++)
		if (i >= got || strcmp(want[i], have[i])) {
			fprintf(stderr, "kernel: %s: expected name %s, got %s\n", path, want[i],
				i < got ? have[i] : "(none)");
			rc = -1;
		}
	for (size_t i = 0; !rc && i < m->ne; i++) {
		const struct ment *e = &m->e[i];
		const struct mnode *nd = &m->n[e->ino];
		mode_t want_fmt = (mode_t)nd->type << 0;

		if (e->dir != dir)
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, e->name);
		if (lstat(p, &st)) {
			fprintf(stderr, "kernel: lstat %s: %s\n", p, strerror(errno));
			rc = -1;
			break;
		}
		if ((st.st_mode & S_IFMT) != want_fmt || st.st_ino != e->ino ||
		    st.st_nlink != om_links(m, e->ino)) {
			fprintf(stderr, "kernel: %s: mode %o ino %lu nlink %lu, expected type %o "
				"ino %u nlink %u\n", p, st.st_mode, (unsigned long)st.st_ino,
				(unsigned long)st.st_nlink, nd->type, e->ino, om_links(m, e->ino));
			rc = -1;
		} else if (nd->type == EXT4_S_IFLNK) {
			ssize_t l = readlink(p, buf, sizeof(buf) - 1);

			if (l < 0 || (size_t)l != strlen(nd->target) || memcmp(buf, nd->target, l) ||
			    (size_t)st.st_size != strlen(nd->target)) {
				fprintf(stderr, "kernel: %s: link target differs (len %zd)\n", p, l);
				rc = -1;
			}
		} else if (nd->type == EXT4_S_IFCHR || nd->type == EXT4_S_IFBLK) {
			if (major(st.st_rdev) != nd->major || minor(st.st_rdev) != nd->minor) {
				fprintf(stderr, "kernel: %s: device %u:%u, expected %u:%u\n", p,
					major(st.st_rdev), minor(st.st_rdev), nd->major, nd->minor);
				rc = -1;
			}
		} else if (nd->type == EXT4_S_IFREG && st.st_size != 0) {
			fprintf(stderr, "kernel: %s: size %ld\n", p, (long)st.st_size);
			rc = -1;
		} else if (nd->type == EXT4_S_IFDIR) {
			rc = om_kernel_dir(m, p, e->ino);
		}
	}
	for (size_t i = 0; i < got; i++)
		free(have[i]);
	free(have);
	free(want);
	return rc;
}

static int om_kernel_root(const char *mnt, const void *priv)
{
	return om_kernel_dir(priv, mnt, EXT4_ROOT_INO);
}

/* Mount img read-only and compare the whole tree; 0 or -1
 * (oracle_mounted()). */
static inline int om_check_kernel(const char *img, const struct omodel *m)
{
	return oracle_mounted(img, om_kernel_root, m);
}

#endif
