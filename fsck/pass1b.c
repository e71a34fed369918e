/*
 * pass1b.c: passes 1B and 1C (issue 16), and the driver of 1B-1D.
 *
 * Pass 1 marks a cluster claimed a second time (by another inode, or a
 * file's data over filesystem metadata) in its dup map.  1B walks the
 * inodes in use again (the library's buffered scan, and each inode's map
 * with e4_map_iterate() and its xattr block) and records every block an
 * inode holds in such a cluster: memory follows the sharing inodes only.
 * 1C walks the directory tree from the root (e4_dir_iterate()) until
 * each sharing inode has a name.  1D (pass1d.c) settles them.
 */
#include "pass1b.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dup_free(struct dup_state *st)
{
	for (size_t k = 0; k < st->ninodes; k++)
		free(st->inodes[k].name);
	free(st->claims);
	free(st->inodes);
	free(st->owners);
	free(st->left);
	free(st->mark);
	st->mark = NULL;
	st->claims = NULL;
	st->inodes = NULL;
	st->owners = NULL;
	st->left = NULL;
	st->nclaims = st->ninodes = st->nowners = 0;
}

struct dup_inode *dup_find(struct dup_state *st, e4_ino_t ino)
{
	size_t lo = 0, hi = st->ninodes;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (st->inodes[mid].ino == ino)
			return &st->inodes[mid];
		if (st->inodes[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---- 1B ------------------------------------------------------------------ */

struct scan1b {
	struct dup_state *st;
	e4_ino_t ino;
};

static int in_dup(struct dup_state *st, e4_blk_t blk)
{
	const struct e4_geom *geo = st->p->geo;

	if (blk < geo->first_data_block || blk >= geo->blocks_count)
		return 0;
	return e4_bmap_test(st->p->dup, blk >> geo->cluster_bits);
}

static errcode_t add_claim(struct dup_state *st, e4_ino_t ino, e4_blk_t blk, uint64_t lblk,
			   int kind, int unwritten)
{
	struct dup_claim *c;

	if (p1_grow((void **)&st->claims, &st->capclaims, st->nclaims, sizeof(*st->claims)))
		return E4_ERR_NO_MEMORY;
	c = &st->claims[st->nclaims++];
	c->blk = blk;
	c->lblk = lblk;
	c->ino = ino;
	c->kind = (uint8_t)kind;
	c->unwritten = (uint8_t)unwritten;
	return 0;
}

/* One range of the inode's map: the blocks of it in clusters of the dup
 * map (found run by run in the map, not block by block). */
static int map_cb(e4_fs *fs, const struct e4_map_extent *ext, void *priv)
{
	struct scan1b *s = priv;
	struct dup_state *st = s->st;
	const struct e4_geom *geo = st->p->geo;
	unsigned cb = geo->cluster_bits;
	uint64_t b = ext->pblk, end = (uint64_t)ext->pblk + ext->len;
	int kind = (ext->flags & E4_MAP_META) ? DUP_MAPBLK : DUP_DATA;

	(void)fs;
	if (b < geo->first_data_block)
		b = geo->first_data_block;
	if (end > geo->blocks_count)
		end = geo->blocks_count;
	while (b < end) {
		uint64_t rf, rl, rb;

		if (e4_bmap_next_run(st->p->dup, b >> cb, &rf, &rl))
			break;
		rb = rf << cb;
		if (rb >= end)
			break;
		if (rb > b)
			b = rb;
		for (; b < end && b < (rf + rl) << cb; b++) {
			uint64_t lblk = kind == DUP_DATA ? ext->lblk + (b - ext->pblk) : 0;

			st->err = add_claim(st, s->ino, b, lblk, kind,
					    !!(ext->flags & E4_MAP_UNWRITTEN));
			if (st->err)
				return 1;
		}
	}
	return 0;
}

/* The blocks of " b1 b2--b3 ..." for the inode's claims (malloc'd). */
static char *claims_text(const struct dup_state *st, const struct dup_inode *d)
{
	size_t cap = 64, len = 0;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	s[0] = 0;
	for (size_t k = d->first; k < d->first + d->n;) {
		e4_blk_t b = st->claims[k].blk, e = b;
		char item[48];
		size_t il;

		for (k++; k < d->first + d->n && st->claims[k].blk == e + 1; k++)
			e++;
		if (e > b)
			il = (size_t)snprintf(item, sizeof(item), " %llu--%llu",
					      (unsigned long long)b, (unsigned long long)e);
		else
			il = (size_t)snprintf(item, sizeof(item), " %llu", (unsigned long long)b);
		if (len + il + 1 > cap) {
			char *r;

			while (len + il + 1 > cap)
				cap *= 2;
			r = realloc(s, cap);
			if (!r) {
				free(s);
				return NULL;
			}
			s = r;
		}
		memcpy(s + len, item, il + 1);
		len += il;
	}
	return s;
}

/* Inode ino (in use): its shared blocks, recorded and said. */
static errcode_t scan_inode(struct dup_state *st, e4_ino_t ino, const struct ext4_inode *in)
{
	struct scan1b s = { st, ino };
	struct problem_ctx pctx = { 0 };
	size_t first = st->nclaims;
	e4_blk_t acl = e4_inode_file_acl(st->fs, in);
	struct dup_inode *d;
	char *text;
	errcode_t err = 0;

	if (e4_inode_has_map(st->fs, in))
		err = e4_map_iterate(st->fs, ino, in,
				     E4_ITER_META | E4_ITER_AS_STORED | E4_ITER_NOCSUM, map_cb, &s);
	if (st->err)
		return st->err;
	if (err) {
		pctx.ino = ino;
		pctx.err = err;
		fix_problem(st->ctx, PR_1B_MAP_ERROR, &pctx);
	}
	if (acl && in_dup(st, acl) && (err = add_claim(st, ino, acl, 0, DUP_XATTR, 0)))
		return err;
	if (st->nclaims == first)
		return 0;
	if (p1_grow((void **)&st->inodes, &st->capinodes, st->ninodes, sizeof(*st->inodes)))
		return E4_ERR_NO_MEMORY;
	d = &st->inodes[st->ninodes++];
	memset(d, 0, sizeof(*d));
	d->ino = ino;
	d->mtime = e4_le32(in->i_mtime);
	d->first = first;
	d->n = st->nclaims - first;
	d->nblocks = d->n;
	if (ino == EXT4_BAD_INO)
		return 0;	/* an owner, not said (nor settled) */
	text = claims_text(st, d);
	if (!text)
		return E4_ERR_NO_MEMORY;
	pctx.ino = ino;
	pctx.str = text;
	fix_problem(st->ctx, PR_1B_DUP_BLOCKS, &pctx);
	free(text);
	return 0;
}

static int owner_cmp(const void *a, const void *b)
{
	const struct dup_owner *x = a, *y = b;

	if (x->cluster != y->cluster)
		return x->cluster < y->cluster ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* owners[]: each (cluster, inode) once, sorted; left[k]: the claims on
 * owners[k]'s cluster (set on every entry of the cluster's run): a block
 * one inode maps twice counts twice, as e2fsck counts it.  On bigalloc
 * the inodes on the cluster (an inode's blocks of one cluster are one
 * claim on it: pass 1 counts its own cluster again as its own). */
static errcode_t build_owners(struct dup_state *st)
{
	unsigned cb = st->p->geo->cluster_bits;
	size_t n = 0;

	if (!st->nclaims)
		return 0;
	st->owners = calloc(st->nclaims, sizeof(*st->owners));
	st->left = calloc(st->nclaims, sizeof(*st->left));
	st->mark = calloc(st->nclaims, 1);
	if (!st->owners || !st->left || !st->mark)
		return E4_ERR_NO_MEMORY;
	for (size_t k = 0; k < st->nclaims; k++)
		st->owners[k] = (struct dup_owner){ st->claims[k].blk >> cb, st->claims[k].ino };
	qsort(st->owners, st->nclaims, sizeof(*st->owners), owner_cmp);
	for (size_t k = 0, r; k < st->nclaims; k += r) {
		size_t start = n;

		for (r = 1; k + r < st->nclaims &&
			    st->owners[k + r].cluster == st->owners[k].cluster; r++)
			;
		for (size_t j = k; j < k + r; j++)
			if (n == start || st->owners[j].ino != st->owners[n - 1].ino)
				st->owners[n++] = st->owners[j];
		for (size_t j = start; j < n; j++)
			st->left[j] = (uint32_t)(cb ? n - start : r);
	}
	st->nowners = n;
	return 0;
}

errcode_t dup_pass1b(struct dup_state *st)
{
	e4_inode_scan *scan;
	const struct ext4_inode *in;
	e4_ino_t ino;
	uint32_t count;
	errcode_t err;

	fix_problem(st->ctx, PR_1B_PASS_HEADER, NULL);
	err = e4_inode_scan_open(st->fs, 0, 0, &scan);
	if (err)
		return err;
	for (;;) {
		err = e4_inode_scan_next(scan, &ino, &in, &count, NULL);
		if (err == E4_ERR_NOT_FOUND) {
			err = 0;
			break;
		}
		if (err == E4_ERR_NO_MEMORY)
			break;
		if (err) {
			struct problem_ctx pctx = { 0 };

			pctx.err = err;
			pctx.ino = ino;
			pctx.num = (uint64_t)ino + (count ? count : 1) - 1;
			fix_problem(st->ctx, PR_1B_SCAN_ERROR, &pctx);
			err = 0;
			continue;
		}
		/* the bad-block list and the resize inode are owners (files
		 * are cloned off their blocks) but never cloned themselves
		 * (pass1d.c) */
		if (ino != EXT4_BAD_INO && !e4_bmap_test(st->p->inodes, ino))
			continue;
		err = scan_inode(st, ino, in);
		if (err)
			break;
	}
	e4_inode_scan_close(scan);
	return err ? err : build_owners(st);
}

/* ---- 1C ------------------------------------------------------------------ */

/* A directory waiting to be read, with its path. */
struct dir_todo {
	e4_ino_t ino;
	char *path;
};

struct scan1c {
	struct dup_state *st;
	struct e4_bmap *seen;		/* directories queued */
	struct dir_todo *todo;
	size_t ntodo, captodo;
	const char *path;		/* of the directory being read */
	size_t unnamed;
	errcode_t err;
};

static char *join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *s = malloc(a + b + 2);

	if (!s)
		return NULL;
	memcpy(s, dir, a);
	if (!a || dir[a - 1] != '/')
		s[a++] = '/';
	memcpy(s + a, name, b + 1);
	return s;
}

/* Whether entry d names a directory (its file type, or its inode). */
static int names_dir(struct scan1c *c, const struct e4_dirent *d)
{
	union e4_inode_buf ib;

	if (d->file_type)
		return d->file_type == EXT4_FT_DIR;
	if (!e4_bmap_test(c->st->p->inodes, d->inode) || e4_inode_read(c->st->fs, d->inode, &ib))
		return 0;
	return e4_is_dir(&ib.inode);
}

static int dirent_cb(const struct e4_dirent *d, void *priv)
{
	struct scan1c *c = priv;
	struct dup_state *st = c->st;
	const struct e4_geom *geo = st->p->geo;
	struct dup_inode *di;

	if (!d->inode || d->inode > geo->inodes_count)
		return 0;
	di = dup_find(st, d->inode);
	if (di && !di->name) {
		if (!(di->name = join(c->path, d->name)))
			goto nomem;
		c->unnamed--;
	}
	if (!e4_bmap_test(c->seen, d->inode) && names_dir(c, d)) {
		if (e4_bmap_set(c->seen, d->inode) ||
		    p1_grow((void **)&c->todo, &c->captodo, c->ntodo, sizeof(*c->todo)))
			goto nomem;
		c->todo[c->ntodo].ino = d->inode;
		if (!(c->todo[c->ntodo].path = join(c->path, d->name)))
			goto nomem;
		c->ntodo++;
	}
	return c->unnamed ? 0 : 1;
nomem:
	c->err = E4_ERR_NO_MEMORY;
	return 1;
}

errcode_t dup_pass1c(struct dup_state *st)
{
	struct scan1c c = { .st = st, .unnamed = st->ninodes };
	struct dup_inode *root;
	errcode_t err;

	fix_problem(st->ctx, PR_1C_PASS_HEADER, NULL);
	if ((root = dup_find(st, EXT4_ROOT_INO)) && (root->name = strdup("/")))
		c.unnamed--;
	if ((root = dup_find(st, EXT4_BAD_INO)) && (root->name = strdup("<the bad blocks inode>")))
		c.unnamed--;
	if ((root = dup_find(st, EXT4_RESIZE_INO)) &&
	    (root->name = strdup("<the group descriptor inode>")))
		c.unnamed--;
	err = e4_bmap_new_inodes(st->fs, E4_BMAP_RUNS, &c.seen);
	if (err)
		return err;
	c.todo = malloc(sizeof(*c.todo));
	c.captodo = 1;
	if (!c.todo || !(c.todo[0].path = strdup("/"))) {
		free(c.todo);
		e4_bmap_free(c.seen);
		return E4_ERR_NO_MEMORY;
	}
	c.todo[0].ino = EXT4_ROOT_INO;
	c.ntodo = 1;
	e4_bmap_set(c.seen, EXT4_ROOT_INO);
	/* depth first; a damaged directory is read as far as it goes
	 * (names only: the directory pass judges it) */
	while (c.ntodo && c.unnamed && !c.err) {
		struct dir_todo t = c.todo[--c.ntodo];

		c.path = t.path;
		if (e4_bmap_test(st->p->inodes, t.ino))
			(void)e4_dir_iterate(st->fs, t.ino, E4_DIR_NO_DOTS, dirent_cb, &c);
		free(t.path);
	}
	while (c.ntodo)
		free(c.todo[--c.ntodo].path);
	free(c.todo);
	e4_bmap_free(c.seen);
	return c.err;
}

/* ---- the driver ---------------------------------------------------------- */

errcode_t e4fsck_pass1_dup(struct e4fsck *ctx, struct pass1 *p)
{
	struct dup_state st;
	errcode_t err;

	memset(&st, 0, sizeof(st));
	st.p = p;
	st.ctx = ctx;
	st.fs = p->fs;
	/* cloning allocates from pass 1's map: only when it is complete */
	if (p->scan_failed || p->maps_unsure)
		st.clone_why = "pass 1 could not account for every block, so no new block "
			       "can be chosen safely";
	else
		st.clone_ok = 1;
	if (ctx->answer == ANSWER_PREEN)
		fix_problem(ctx, PR_1B_PREEN_STOP, NULL);	/* stops */
	p->dup_state = &st;
	err = dup_pass1b(&st);
	if (!err)
		err = dup_pass1c(&st);
	if (!err)
		err = dup_pass1d(&st);
	e4fsck_problem_summary(ctx);
	if (err)
		e4fsck_fail_msg(ctx, err, "in pass 1D");
	else if (st.unresolved)
		p->maps_unsure = 1;
	p->dup_state = NULL;
	dup_free(&st);
	return err;
}

void e4fsck_pass1_dup_free(struct pass1 *p)
{
	if (p->dup_state)
		dup_free(p->dup_state);
	p->dup_state = NULL;
}

errcode_t e4fsck_pass1_dup_finish(struct e4fsck *ctx, struct pass1 *p)
{
	errcode_t err;

	if (!p->dup_restore || p->maps_unsure || ctx->read_only)
		return 0;
	p->dup_restore = 0;
	err = e4_order_point(p->fs);
	e4_sb_state_change(e4_super(p->fs), EXT4_VALID_FS, 0);
	if (!err)
		err = e4_super_write(p->fs);
	if (err)
		e4fsck_fail_msg(ctx, err, "marking the filesystem clean after pass 1D");
	return err;
}
