/*
 * dirinfo.c: the directory records and link counts passes 1-4 share
 * (dirinfo.h).
 */
#include "dirinfo.h"

#include <stdlib.h>
#include <string.h>

/* ---- directories ---------------------------------------------------- */

/* The first index whose inode is >= ino. */
static size_t dirs_lower(const struct e4fsck_dirs *d, e4_ino_t ino)
{
	size_t lo = 0, hi = d->n;

	if (d->n && d->v[d->n - 1].ino < ino)
		return d->n;	/* the common case: appending */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->v[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

errcode_t dirs_add(struct e4fsck_dirs *d, e4_ino_t ino)
{
	size_t i = dirs_lower(d, ino);

	if (i < d->n && d->v[i].ino == ino)
		return 0;
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 256;
		struct dir_info *v = realloc(d->v, cap * sizeof(*v));

		if (!v)
			return E4_ERR_NO_MEMORY;
		d->v = v;
		d->cap = cap;
	}
	memmove(d->v + i + 1, d->v + i, (d->n - i) * sizeof(*d->v));
	d->v[i].ino = ino;
	d->v[i].dotdot = 0;
	d->v[i].parent = ino == EXT4_ROOT_INO ? ino : 0;
	d->n++;
	return 0;
}

struct dir_info *dirs_find(const struct e4fsck_dirs *d, e4_ino_t ino)
{
	size_t i = dirs_lower(d, ino);

	return i < d->n && d->v[i].ino == ino ? &d->v[i] : NULL;
}

void dirs_remove(struct e4fsck_dirs *d, e4_ino_t ino)
{
	size_t i = dirs_lower(d, ino);

	if (i < d->n && d->v[i].ino == ino) {
		memmove(d->v + i, d->v + i + 1, (d->n - i - 1) * sizeof(*d->v));
		d->n--;
	}
}

void dirs_free(struct e4fsck_dirs *d)
{
	free(d->v);
	memset(d, 0, sizeof(*d));
}

/* ---- link counts ------------------------------------------------------ */

/* Counts per inode: a 1 is a bit in one; any other value, once set, an
 * entry of an open-addressing table (keys 0 = empty; never removed, a
 * count returning to 1 or 0 keeps its entry). */
struct icount {
	struct e4_bmap *one;
	uint32_t *keys, *vals;
	size_t cap, n;		/* cap: a power of two */
};

struct e4fsck_links {
	e4_ino_t max;
	struct icount stored, counted;
};

static size_t slot_of(const struct icount *c, e4_ino_t ino)
{
	size_t i = ((size_t)ino * 2654435761u) & (c->cap - 1);

	while (c->keys[i] && c->keys[i] != ino)
		i = (i + 1) & (c->cap - 1);
	return i;
}

static errcode_t ic_grow(struct icount *c)
{
	size_t cap = c->cap ? c->cap * 2 : 1024, i;
	struct icount nc = { c->one, NULL, NULL, cap, c->n };

	nc.keys = calloc(cap, sizeof(*nc.keys));
	nc.vals = malloc(cap * sizeof(*nc.vals));
	if (!nc.keys || !nc.vals) {
		free(nc.keys);
		free(nc.vals);
		return E4_ERR_NO_MEMORY;
	}
	for (i = 0; i < c->cap; i++) {
		if (c->keys[i]) {
			size_t s = slot_of(&nc, c->keys[i]);

			nc.keys[s] = c->keys[i];
			nc.vals[s] = c->vals[i];
		}
	}
	free(c->keys);
	free(c->vals);
	*c = nc;
	return 0;
}

static uint32_t ic_get(const struct icount *c, e4_ino_t ino)
{
	if (c->cap) {
		size_t s = slot_of(c, ino);

		if (c->keys[s])
			return c->vals[s];
	}
	return e4_bmap_test(c->one, ino) ? 1 : 0;
}

static errcode_t ic_set(struct icount *c, e4_ino_t ino, uint32_t v)
{
	size_t s = c->cap ? slot_of(c, ino) : 0;
	errcode_t err;

	if (c->cap && c->keys[s]) {
		c->vals[s] = v;
		return 0;
	}
	if (v <= 1)
		return v ? e4_bmap_set(c->one, ino) : e4_bmap_clear(c->one, ino);
	/* at most half full */
	if ((c->n + 1) * 2 > c->cap) {
		err = ic_grow(c);
		if (err)
			return err;
		s = slot_of(c, ino);
	}
	err = e4_bmap_clear(c->one, ino);
	if (err)
		return err;
	c->keys[s] = ino;
	c->vals[s] = v;
	c->n++;
	return 0;
}

static void ic_free(struct icount *c)
{
	e4_bmap_free(c->one);
	free(c->keys);
	free(c->vals);
}

errcode_t links_create(e4_ino_t inodes_count, struct e4fsck_links **ret)
{
	struct e4fsck_links *l = calloc(1, sizeof(*l));
	errcode_t err;

	if (!l)
		return E4_ERR_NO_MEMORY;
	l->max = inodes_count;
	err = e4_bmap_create(E4_BMAP_RUNS, 1, (uint64_t)l->max + 1, &l->stored.one);
	if (!err)
		err = e4_bmap_create(E4_BMAP_RUNS, 1, (uint64_t)l->max + 1, &l->counted.one);
	if (err) {
		links_free(l);
		return err;
	}
	*ret = l;
	return 0;
}

void links_free(struct e4fsck_links *l)
{
	if (!l)
		return;
	ic_free(&l->stored);
	ic_free(&l->counted);
	free(l);
}

static int ino_ok(const struct e4fsck_links *l, e4_ino_t ino)
{
	return ino >= 1 && ino <= l->max;
}

errcode_t links_set_stored(struct e4fsck_links *l, e4_ino_t ino, uint32_t n)
{
	return ino_ok(l, ino) ? ic_set(&l->stored, ino, n) : E4_ERR_BAD_INODE_NUM;
}

uint32_t links_stored(const struct e4fsck_links *l, e4_ino_t ino)
{
	return ino_ok(l, ino) ? ic_get(&l->stored, ino) : 0;
}

errcode_t links_set_counted(struct e4fsck_links *l, e4_ino_t ino, uint32_t n)
{
	return ino_ok(l, ino) ? ic_set(&l->counted, ino, n) : E4_ERR_BAD_INODE_NUM;
}

uint32_t links_counted(const struct e4fsck_links *l, e4_ino_t ino)
{
	return ino_ok(l, ino) ? ic_get(&l->counted, ino) : 0;
}

errcode_t links_inc(struct e4fsck_links *l, e4_ino_t ino)
{
	uint32_t v = links_counted(l, ino);

	return links_set_counted(l, ino, v == UINT32_MAX ? v : v + 1);
}

errcode_t links_dec(struct e4fsck_links *l, e4_ino_t ino)
{
	uint32_t v = links_counted(l, ino);

	return links_set_counted(l, ino, v ? v - 1 : 0);
}

size_t links_memory(const struct e4fsck_links *l)
{
	return sizeof(*l) + e4_bmap_memory(l->stored.one) + e4_bmap_memory(l->counted.one) +
	       (l->stored.cap + l->counted.cap) * 2 * sizeof(uint32_t);
}
