/*
 * unit_dirmodel.h: the model the directory-writing unit tests check the
 * library against (cmocka): pools of names, which of them a directory
 * holds, random inserts and removes answered as the model says, the
 * library's own listing and lookups compared with it, and the shape of a
 * directory (index depth and count, extent depth).  Header-only, for
 * test_dir_write.c.
 */
#ifndef UNIT_DIRMODEL_H
#define UNIT_DIRMODEL_H

#include <stdlib.h>
#include <string.h>
#include "e4.h"
#include "unit_oracle.h"

/* ---- names and the model --------------------------------------------- */

static inline uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* n distinct names: "<i>_" then random bytes (never '/', NUL or '\n')
 * up to a length in [minlen, maxlen]. */
static inline char **make_names(size_t n, unsigned minlen, unsigned maxlen, uint32_t seed)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz0123456789_-.ABCXYZ";
	char **v = calloc(n, sizeof(*v));

	for (size_t i = 0; i < n; i++) {
		unsigned len = minlen + rnd(&seed) % (maxlen - minlen + 1), k;
		char *s = malloc(len + 16);

		k = (unsigned)snprintf(s, 16, "%zu_", i);
		if (len < k)
			len = k;
		for (; k < len; k++) {
			uint32_t r = rnd(&seed);

			s[k] = (r & 7) == 0 ? (char)(0x80 + (r >> 8) % 0x80) : set[(r >> 8) % (sizeof(set) - 1)];
		}
		s[len] = '\0';
		v[i] = s;
	}
	return v;
}

struct model {
	const char *path;
	e4_ino_t dir;
	char **pool;
	size_t n;
	uint8_t *in;		/* pool[i] is in the directory */
};

static inline void model_init(struct model *m, const char *path, e4_ino_t dir, char **pool, size_t n)
{
	m->path = path;
	m->dir = dir;
	m->pool = pool;
	m->n = n;
	m->in = calloc(n, 1);
}

static inline void model_free(struct model *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->pool[i]);
	free(m->pool);
	free(m->in);
}

struct collect {
	char **v;
	size_t n, cap;
};

static inline int collect_cb(const struct e4_dirent *d, void *priv)
{
	struct collect *c = priv;

	if (c->n == c->cap)
		c->v = realloc(c->v, sizeof(*c->v) * (c->cap = c->cap ? c->cap * 2 : 256));
	c->v[c->n++] = strdup(d->name);
	return 0;
}

/* The library's own view equals the model: iterate, and look up every
 * name present (and a few absent). */
static inline void model_verify(e4_fs *fs, const struct model *m, e4_ino_t target)
{
	struct collect c = { 0 };
	char **want = malloc(sizeof(*want) * (m->n + 1));
	size_t nw = 0, absent = 0;

	assert_int_equal(e4_dir_iterate(fs, m->dir, E4_DIR_NO_DOTS, collect_cb, &c), 0);
	for (size_t i = 0; i < m->n; i++) {
		e4_ino_t ino = 0;

		if (m->in[i]) {
			want[nw++] = m->pool[i];
			assert_int_equal(e4_dir_lookup(fs, m->dir, m->pool[i], strlen(m->pool[i]),
						       &ino, NULL), 0);
			assert_int_equal(ino, target);
		} else if (absent++ < 20) {
			assert_int_equal(e4_dir_lookup(fs, m->dir, m->pool[i], strlen(m->pool[i]),
						       &ino, NULL), E4_ERR_NOT_FOUND);
		}
	}
	assert_int_equal(oracle_same(m->path, c.v, c.n, want, nw), 0);
	oracle_free(c.v, c.n);
	free(want);
}

/* ops random inserts (insert_pct of them) and removes of pool names, each
 * answer checked against the model; the model verified every `every`. */
static inline void random_ops(e4_fs *fs, struct model *m, e4_ino_t target, unsigned ops,
		       unsigned insert_pct, unsigned every, uint32_t *seed)
{
	for (unsigned i = 1; i <= ops; i++) {
		size_t k = rnd(seed) % m->n;
		const char *nm = m->pool[k];
		e4_ino_t ino = 0;
		uint8_t ft = 0;

		if (rnd(seed) % 100 < insert_pct) {
			assert_int_equal(e4_dir_insert(fs, m->dir, nm, strlen(nm), target,
						       EXT4_FT_REG_FILE),
					 m->in[k] ? E4_ERR_EXISTS : 0);
			m->in[k] = 1;
		} else {
			assert_int_equal(e4_dir_remove(fs, m->dir, nm, strlen(nm), &ino, &ft),
					 m->in[k] ? 0 : E4_ERR_NOT_FOUND);
			if (m->in[k]) {
				assert_int_equal(ino, target);
				assert_int_equal(ft, EXT4_FT_REG_FILE);
			}
			m->in[k] = 0;
		}
		if (i % every == 0)
			model_verify(fs, m, target);
	}
}

/* Entries for pool[0..n) of m, all naming target (regular files), marked
 * present in the model; caller frees. */
static inline struct e4_new_dirent *model_ents(struct model *m, size_t n, e4_ino_t target)
{
	struct e4_new_dirent *ents;

	assert_true(n <= m->n);
	ents = calloc(m->n + 1, sizeof(*ents));
	for (size_t i = 0; i < n; i++) {
		ents[i] = (struct e4_new_dirent){ target, m->pool[i], (uint8_t)strlen(m->pool[i]),
						  EXT4_FT_REG_FILE };
		m->in[i] = 1;
	}
	return ents;
}

/* Root of directory dir: indirect_levels, count; 0 levels / 0 count when
 * not indexed. */
static inline void dx_shape(e4_fs *fs, e4_ino_t dir, unsigned *levels, unsigned *count,
		     uint64_t *nblocks)
{
	union e4_inode_buf ib;
	uint8_t buf[65536];

	assert_int_equal(e4_inode_read(fs, dir, &ib), 0);
	*nblocks = e4_inode_size(&ib.inode) / e4_geom(fs)->block_size;
	*levels = *count = 0;
	if (!(e4_le32(ib.inode.i_flags) & EXT4_INDEX_FL))
		return;
	assert_int_equal(e4_dir_block_read(fs, dir, &ib.inode, 0, buf, NULL), 0);
	*levels = buf[0x1E];
	*count = e4_get_le16(buf + 0x22);
}

/* Extent depth of directory dir (0 without EXTENTS_FL). */
static inline unsigned ext_depth(e4_fs *fs, e4_ino_t dir)
{
	union e4_inode_buf ib;

	assert_int_equal(e4_inode_read(fs, dir, &ib), 0);
	if (!(e4_le32(ib.inode.i_flags) & EXT4_EXTENTS_FL))
		return 0;
	return e4_get_le16((const uint8_t *)ib.inode.i_block + 6);
}

#endif
