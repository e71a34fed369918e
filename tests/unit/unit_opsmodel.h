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

/* ---- what the operations' tests share (needs cmocka.h included first and
 * OPS_TEST_TAG defined: the scratch folder's name) ---------------------- */
#ifdef OPS_TEST_TAG
#include "unit_images.h"

static struct unit_images imgs;

static int setup(void **state)
{
	(void)state;
	e4_init_errors();
	if (unit_images_init(&imgs, OPS_TEST_TAG))
		return -1;
	/* on tmpfs when there is one: each operation syncs several times,
	 * which a disk makes slow (about 12 ms an operation measured on
	 * ext4 over virtio) and tmpfs makes free */
	if (!access("/dev/shm", W_OK)) {
		char dir[sizeof(imgs.dir)];

		snprintf(dir, sizeof(dir), "/dev/shm/e4_%s.XXXXXX", OPS_TEST_TAG);

		if (mkdtemp(dir)) {
			rmdir(imgs.dir);
			strcpy(imgs.dir, dir);
		}
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return unit_images_remove(&imgs);
}

struct kind {
	const char *name, *opts, *size;
};
static const struct kind kinds[] = {
	{ "ext4", "-t ext4 -b 1024 -O metadata_csum -N 3000", "24M" },
	{ "ext2", "-t ext2 -b 1024 -O ^dir_index -N 3000", "24M" },
	{ "inline", "-t ext4 -O inline_data,^has_journal -I 256 -N 3000", "24M" },
	{ "ext3_128", "-t ext3 -I 128 -b 2048 -N 3000", "24M" },
	{ "bigalloc", "-t ext4 -O bigalloc,^has_journal -C 16384 -N 3000", "32M" },
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

static inline e4_fs *image(const struct kind *k, const char *tag, const char **path)
{
	char name[64], o[256];
	e4_fs *fs;

	snprintf(name, sizeof(name), "%s_%s", k->name, tag);
	snprintf(o, sizeof(o), "%s -U 6d1c2b8e-3f4a-4c5d-9e7f-a1b2c3d4e5f6 "
		 "-E hash_seed=0b9f3c1e-5a7d-4e22-8c6b-d4f0a1e2b3c4", k->opts);
	*path = unit_image_add(&imgs, name, o, k->size);
	if (!imgs.ok)
		skip();
	assert_int_equal(e4_open(*path, E4_OPEN_RW, 0, 0, &fs), 0);
	return fs;
}

static inline void model_start(e4_fs *fs, struct omodel *m)
{
	e4_ino_t lf;

	om_init(m, e4_geom(fs)->inodes_count);
	assert_int_equal(e4_namei(fs, 0, 0, "/lost+found", 0, &lf), 0);
	m->n[lf].used = 1;
	m->n[lf].type = EXT4_S_IFDIR;
	om_add(m, EXT4_ROOT_INO, "lost+found", lf);
}

/* Close, then the three judges: libe4 before closing, e2fsck, kernel. */
static inline void judge(e4_fs *fs, const char *img, struct omodel *m)
{
	assert_int_equal(om_check_lib(fs, m), 0);
	assert_true(e4_le16(e4_super(fs)->s_state) & EXT4_VALID_FS);
	assert_int_equal(e4_close(fs), 0);
	assert_int_equal(oracle_fsck(img), 0);
	assert_int_equal(om_check_kernel(img, m), 0);
	unlink(img);
}

static inline void read_ino(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib)
{
	assert_int_equal(e4_inode_read(fs, ino, ib), 0);
}

static inline void node_add(struct omodel *m, e4_ino_t dir, const char *name, e4_ino_t ino,
		     uint16_t type, const char *target)
{
	m->n[ino].used = 1;
	m->n[ino].type = type;
	free(m->n[ino].target);
	m->n[ino].target = target ? strdup(target) : NULL;
	om_add(m, dir, name, ino);
}

/* The model after removing entry i: its inode freed when unnamed. */
static inline void entry_drop(struct omodel *m, size_t i)
{
	e4_ino_t ino = m->e[i].ino;

	om_del(m, i);
	for (size_t j = 0; j < m->ne; j++)
		if (m->e[j].ino == ino)
			return;
	m->n[ino].used = 0;
}


/* ---- random sequences against the model -------------------------------- */

static inline uint32_t rnd(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 8;
}

/* A random live directory of the model (the root included). */
static inline e4_ino_t pick_dir(const struct omodel *m, uint32_t *seed)
{
	size_t ndirs = 1, k;

	if (rnd(seed) % 5 < 2)
		return EXT4_ROOT_INO;	/* one big directory: indexed, multi-block */
	for (size_t i = 0; i < m->ne; i++)
		ndirs += m->n[m->e[i].ino].type == EXT4_S_IFDIR;
	k = rnd(seed) % ndirs;
	for (size_t i = 0; i < m->ne; i++)
		if (m->n[m->e[i].ino].type == EXT4_S_IFDIR && !k--)
			return m->e[i].ino;
	return EXT4_ROOT_INO;
}

/* A new name: short, or long enough to fill blocks (up to 200 bytes). */
static inline void new_name(char *buf, unsigned id, uint32_t *seed)
{
	unsigned long_len = rnd(seed) % 4 == 0 ? 40 + rnd(seed) % 160 : 0;
	int n = snprintf(buf, 256, "n%u_", id);

	for (unsigned i = 0; i < long_len; i++)
		buf[n++] = (char)('a' + (id + i) % 26);
	buf[n] = 0;
}

/* One random operation: done on fs and on the model, the result checked. */
static inline void random_op(e4_fs *fs, struct omodel *m, uint32_t *seed, unsigned *id)
{
	static const size_t tlens[] = { 1, 30, 59, 60, 61, 100, 150, 300, 900 };
	unsigned r = rnd(seed) % 100, bs = e4_geom(fs)->block_size;
	char name[256], target[1024];
	e4_ino_t dir = pick_dir(m, seed), ino;
	long ei = m->ne ? (long)(rnd(seed) % m->ne) : -1;
	struct ment *e = ei >= 0 ? &m->e[ei] : NULL;
	errcode_t err;

	new_name(name, (*id)++, seed);
	if (r < 22) {
		assert_int_equal(e4_op_create(fs, dir, name, strlen(name), NULL, &ino), 0);
		node_add(m, dir, name, ino, EXT4_S_IFREG, NULL);
	} else if (r < 34) {
		assert_int_equal(e4_op_mkdir(fs, dir, name, strlen(name), NULL, &ino), 0);
		node_add(m, dir, name, ino, EXT4_S_IFDIR, NULL);
	} else if (r < 44) {
		size_t tl = tlens[rnd(seed) % (sizeof(tlens) / sizeof(tlens[0]))];

		if (tl >= bs)
			tl = bs - 1;
		for (size_t i = 0; i < tl; i++)
			target[i] = (char)('A' + (i * 7 + *id) % 26);
		target[tl] = 0;
		assert_int_equal(e4_op_symlink(fs, dir, name, strlen(name), target, tl, NULL, &ino),
				 0);
		node_add(m, dir, name, ino, EXT4_S_IFLNK, target);
	} else if (r < 48) {
		uint16_t t = (uint16_t[]){ EXT4_S_IFCHR, EXT4_S_IFBLK, EXT4_S_IFIFO,
					   EXT4_S_IFSOCK }[rnd(seed) % 4];
		uint32_t ma = rnd(seed) % 2 ? rnd(seed) % 256 : rnd(seed) % 4096;
		uint32_t mi = rnd(seed) % 2 ? rnd(seed) % 256 : rnd(seed) % (1u << 20);

		assert_int_equal(e4_op_mknod(fs, dir, name, strlen(name), t, ma, mi, NULL, &ino), 0);
		node_add(m, dir, name, ino, t, NULL);
		if (t == EXT4_S_IFCHR || t == EXT4_S_IFBLK)
			m->n[ino].major = ma, m->n[ino].minor = mi;
	} else if (r < 56 && e && m->n[e->ino].type != EXT4_S_IFDIR) {
		assert_int_equal(e4_op_link(fs, dir, name, strlen(name), e->ino, 0), 0);
		om_add(m, dir, name, e->ino);
	} else if (r < 70 && e && m->n[e->ino].type != EXT4_S_IFDIR) {
		assert_int_equal(e4_op_unlink(fs, e->dir, e->name, strlen(e->name), 0, NULL), 0);
		entry_drop(m, (size_t)ei);
	} else if (r < 78 && e && m->n[e->ino].type == EXT4_S_IFDIR &&
		   strcmp(e->name, "lost+found")) {
		err = e4_op_rmdir(fs, e->dir, e->name, strlen(e->name));
		if (om_count(m, e->ino)) {
			assert_int_equal(err, E4_ERR_DIR_NOT_EMPTY);
		} else {
			assert_int_equal(err, 0);
			entry_drop(m, (size_t)ei);
		}
	} else if (e && strcmp(e->name, "lost+found")) {
		/* rename: to a new name, or over an existing entry of dir */
		long ti = -1;
		errcode_t want = 0;
		int sd = m->n[e->ino].type == EXT4_S_IFDIR, td;
		e4_ino_t src = e->ino;

		if (rnd(seed) % 3 == 0)
			for (size_t k = 0; k < m->ne; k++)
				if (m->e[k].dir == dir && strcmp(m->e[k].name, "lost+found")) {
					ti = (long)k;
					if (rnd(seed) % 2)
						break;
				}
		if (ti >= 0)
			strcpy(name, m->e[ti].name);
		td = ti >= 0 && m->n[m->e[ti].ino].type == EXT4_S_IFDIR;
		if (sd && om_below(m, dir, src))
			want = E4_ERR_INVALID_ARGUMENT;
		else if (ti < 0 || m->e[ti].ino == src)
			want = 0;
		else if (sd && !td)
			want = E4_ERR_NOT_DIR;
		else if (!sd && td)
			want = E4_ERR_IS_DIR;
		else if (td && om_count(m, m->e[ti].ino))
			want = E4_ERR_DIR_NOT_EMPTY;
		{
			char *oname = strdup(e->name);
			e4_ino_t odir = e->dir;
			long si;

			err = e4_op_rename(fs, odir, oname, strlen(oname), dir, name, strlen(name));
			if (err != want)
				fprintf(stderr, "rename %u/%s -> %u/%s: %s, expected %s\n", odir, oname,
					dir, name, error_message(err), error_message(want));
			assert_int_equal(err, want);
			if (!err && !(ti >= 0 && m->e[ti].ino == src)) {
				if (ti >= 0)
					entry_drop(m, (size_t)om_find(m, dir, name));
				si = om_find(m, odir, oname);
				assert_true(si >= 0);
				free(m->e[si].name);
				m->e[si].name = strdup(name);
				m->e[si].dir = dir;
			}
			free(oname);
		}
	}
}

#endif /* OPS_TEST_TAG */

#endif
