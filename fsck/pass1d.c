/*
 * pass1d.c: pass 1D (issue 16): each inode holding blocks claimed more
 * than once, with the files (and the metadata) it shares them with; then
 * "clone?": its own copy of each shared data block.
 *
 * Inodes are settled in ascending order.  An inode is cloned while
 * another owner is still on one of its clusters, or the cluster is
 * filesystem metadata; the last owner of a cluster keeps the original
 * (e2fsck's choice, so both tools leave the same files on the same
 * blocks).  A clone copies, never frees: the originals stay with the
 * other owners (or the metadata).
 *
 * Writing order (DESIGN.md "Writing safely"): the filesystem is marked
 * not clean first; new blocks are taken from pass 1's in-use map (the
 * allocator's caller-map hook) and marked in the on-disk bitmaps too;
 * the copies are written; then the bitmaps; then the map change (new
 * tree blocks marked before the inode naming them is written; an extent
 * tree with blocks of its own is rebuilt aside, so no block the device
 * holds names a new one before the inode does); then an ordering point,
 * so nothing after (pass 5 freeing the old blocks) reaches the device
 * before the inode.  A stop leaves at most leaks.  The clean state comes back after pass 5, when
 * every shared block was settled (e4fsck_pass1_dup_finish()).
 */
#include "pass1b.h"

#include <stdlib.h>
#include <string.h>

#define COPY_MAX	256	/* blocks copied per read */

/* The first owners[] entry of cluster c (or nowners). */
static size_t owners_of(const struct dup_state *st, uint64_t c)
{
	size_t lo = 0, hi = st->nowners;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (st->owners[mid].cluster < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int cluster_is_meta(const struct dup_state *st, uint64_t c)
{
	unsigned cb = st->p->geo->cluster_bits;

	return !e4_bmap_range_all_clear(st->p->meta, c << cb, 1ULL << cb);
}

static int ino_cmp(const void *a, const void *b)
{
	e4_ino_t x = *(const e4_ino_t *)a, y = *(const e4_ino_t *)b;

	return x < y ? -1 : x > y;
}

/* The other inodes on d's clusters (sorted, each once: *n), whether one
 * of them is metadata, whether d's is the only claim left on each. */
static errcode_t co_owners(struct dup_state *st, const struct dup_inode *d, e4_ino_t **out,
			   size_t *n, int *meta, int *last)
{
	unsigned cb = st->p->geo->cluster_bits;
	e4_ino_t *v = NULL;
	size_t nv = 0, cap = 0, m = 0;

	*meta = 0;
	*last = 1;
	for (size_t k = d->first; k < d->first + d->n; k++) {
		uint64_t c = st->claims[k].blk >> cb;
		size_t j = owners_of(st, c);

		if (cluster_is_meta(st, c))
			*meta = 1;
		if (j < st->nowners && st->left[j] > 1)
			*last = 0;
		for (; j < st->nowners && st->owners[j].cluster == c; j++) {
			if (st->owners[j].ino == d->ino)
				continue;
			if (p1_grow((void **)&v, &cap, nv, sizeof(*v))) {
				free(v);
				return E4_ERR_NO_MEMORY;
			}
			v[nv++] = st->owners[j].ino;
		}
	}
	if (nv > 1)
		qsort(v, nv, sizeof(*v), ino_cmp);
	for (size_t k = 0; k < nv; k++)
		if (!m || v[k] != v[m - 1])
			v[m++] = v[k];
	*out = v;
	*n = m;
	return 0;
}

/* The claims left on cluster c (every entry of its owners[] run holds
 * the count), and a change of it. */
static uint32_t left_get(const struct dup_state *st, uint64_t c)
{
	size_t j = owners_of(st, c);

	return j < st->nowners && st->owners[j].cluster == c ? st->left[j] : 0;
}

static void left_add(struct dup_state *st, uint64_t c, int delta)
{
	for (size_t i = owners_of(st, c); i < st->nowners && st->owners[i].cluster == c; i++)
		st->left[i] = (uint32_t)((int64_t)st->left[i] + delta);
}

/* The owners[] entry of (cluster c, inode ino). */
static size_t owner_at(const struct dup_state *st, uint64_t c, e4_ino_t ino)
{
	size_t j = owners_of(st, c);

	while (j < st->nowners && st->owners[j].cluster == c && st->owners[j].ino != ino)
		j++;
	return j;
}

/* bigalloc: the scratch marks of d's clusters cleared. */
static void marks_clear(struct dup_state *st, const struct dup_inode *d)
{
	unsigned cb = st->p->geo->cluster_bits;

	for (size_t k = d->first; cb && k < d->first + d->n; k++)
		st->mark[owner_at(st, st->claims[k].blk >> cb, d->ino)] = 0;
}

/* left[] of the clusters d's copied claims are on, by delta: once per
 * claim (bigalloc: once per cluster, d's claim on it). */
static void left_copied(struct dup_state *st, const struct dup_inode *d, int delta)
{
	unsigned cb = st->p->geo->cluster_bits;

	for (size_t k = d->first; k < d->first + d->n; k++) {
		uint64_t cl = st->claims[k].blk >> cb;

		if (!st->claims[k].copy)
			continue;
		if (cb) {
			size_t j = owner_at(st, cl, d->ino);

			if (st->mark[j])
				continue;
			st->mark[j] = 1;
		}
		left_add(st, cl, delta);
	}
	marks_clear(st, d);
}

/* Which of d's claims get a copy (claim->copy), as e2fsck decides: in
 * order, a data or xattr claim is copied while another claim remains on
 * its cluster or the cluster is metadata; the last claim keeps the
 * original (a block one inode maps twice: one mapping is copied).  When
 * one of d's tree or indirect blocks would stay shared, d's map is
 * rebuilt on new tree blocks (clone_data()): each of its tree-block
 * claims is marked copied (d leaves the block).  On bigalloc the unit is
 * the cluster: d's blocks of one cluster are copied or kept together (a
 * new cluster for the logical cluster, as e2fsck clones).  left[] is as
 * before; decide_commit() takes the copies off after a clone. */
static void decide(struct dup_state *st, struct dup_inode *d)
{
	unsigned cb = st->p->geo->cluster_bits;
	int rebuild = 0;

	for (size_t k = d->first; k < d->first + d->n; k++) {
		struct dup_claim *c = &st->claims[k];
		uint64_t cl = c->blk >> cb;
		size_t j = cb ? owner_at(st, cl, d->ino) : 0;

		c->copy = 0;
		if (c->kind == DUP_MAPBLK)
			continue;
		if (cb && (st->mark[j] & 1)) {
			c->copy = (st->mark[j] & 2) != 0;	/* as d's cluster goes */
			continue;
		}
		if (cb)
			st->mark[j] |= 1;
		if (left_get(st, cl) > 1 || cluster_is_meta(st, cl)) {
			c->copy = 1;
			left_add(st, cl, -1);
			if (cb)
				st->mark[j] |= 2;
		}
	}
	marks_clear(st, d);
	for (size_t k = d->first; k < d->first + d->n; k++) {
		uint64_t cl = st->claims[k].blk >> cb;

		if (st->claims[k].kind == DUP_MAPBLK &&
		    (left_get(st, cl) > 1 || cluster_is_meta(st, cl)))
			rebuild = 1;
	}
	for (size_t k = d->first; k < d->first + d->n && rebuild; k++)
		if (st->claims[k].kind == DUP_MAPBLK) {
			st->claims[k].copy = 1;
			left_add(st, st->claims[k].blk >> cb, -1);
		}
	left_copied(st, d, 1);
}

static void decide_commit(struct dup_state *st, const struct dup_inode *d)
{
	left_copied(st, d, -1);
}

/* Mark the filesystem not clean before the first change (once). */
static errcode_t mark_unclean(struct dup_state *st)
{
	struct ext4_super_block *sb = e4_super(st->fs);

	if (st->state_saved)
		return 0;
	st->old_state = e4_le16(sb->s_state);
	st->state_saved = 1;
	if (!(st->old_state & EXT4_VALID_FS))
		return 0;
	e4_sb_state_change(sb, 0, EXT4_VALID_FS);
	return e4_super_write(st->fs);
}

/* Mark [blk, blk + n) in use in the on-disk bitmaps.  A bitmap failing
 * its checksum (a stop between a bitmap and its descriptor, which the
 * kernel does not allocate from) is left to pass 5, which rewrites it. */
static errcode_t disk_mark(e4_fs *fs, e4_blk_t blk, uint64_t n)
{
	errcode_t err = e4_block_mark(fs, blk, n, 1, NULL);

	return err == E4_ERR_BLOCK_BITMAP_CSUM ? 0 : err;
}

/* Blocks [blk, blk + n) taken from pass 1's map (the allocator's hook),
 * then marked in the on-disk bitmaps as well. */
static errcode_t take_blocks(struct dup_state *st, e4_blk_t goal, uint64_t want, e4_blk_t *nb,
			     uint64_t *got)
{
	errcode_t err;

	err = e4_alloc_set_maps(st->fs, st->p->inuse, NULL);
	if (!err)
		err = e4_alloc_blocks(st->fs, goal, want, 1, nb, got);
	e4_alloc_set_maps(st->fs, NULL, NULL);
	if (!err)
		err = disk_mark(st->fs, *nb, *got);
	return err;
}

/* Copy n blocks; the source as the device holds it with this run's
 * pending writes over it (a shared metadata block this run changed). */
static errcode_t copy_blocks(struct dup_state *st, e4_blk_t from, e4_blk_t to, uint64_t n,
			     uint8_t *buf)
{
	e4_io *io = e4_fs_io(st->fs);
	uint64_t bs = st->p->geo->block_size;
	errcode_t err = 0;

	while (n && !err) {
		unsigned k = n > COPY_MAX ? COPY_MAX : (unsigned)n;

		err = e4_io_read_nocache(io, from * bs, buf, k * bs);
		if (!err)
			err = e4_io_write_blk(io, to, k, buf);
		from += k;
		to += k;
		n -= k;
	}
	return err;
}

/* d's xattr block x, shared: copied to a new block with a reference
 * count of 1 (the library sets the count and its checksum, which is
 * keyed by the block number), and named by *ib (written by the caller
 * after the copy).  The kernel does not need identical blocks shared. */
static errcode_t copy_xattr(struct dup_state *st, union e4_inode_buf *ib, e4_blk_t x,
			    uint8_t *buf)
{
	e4_blk_t nb;
	uint64_t got;
	errcode_t err;

	err = take_blocks(st, x, 1, &nb, &got);
	if (!err)
		err = copy_blocks(st, x, nb, 1, buf);
	if (!err)
		err = e4_xattr_block_refcount_set(st->fs, nb, 1);
	if (!err)
		e4_inode_file_acl_set(st->fs, &ib->inode, nb);
	return err;
}

/* One remap to make: logical [lblk, lblk + n) onto new blocks from nb. */
struct remap {
	uint64_t lblk, n;
	e4_blk_t nb;
	unsigned flags;
};

/* A growing list of map ranges (e4_map_iterate() callback). */
struct ranges {
	struct e4_map_extent *v;
	size_t n, cap;
};

static int collect_cb(e4_fs *fs, const struct e4_map_extent *ext, void *priv)
{
	struct ranges *r = priv;

	(void)fs;
	if (p1_grow((void **)&r->v, &r->cap, r->n, sizeof(*r->v)))
		return 1;
	r->v[r->n++] = *ext;
	return 0;
}

/* bigalloc: the logical cluster copied last and the new cluster it got. */
struct new_cluster {
	uint64_t lc;
	e4_blk_t pc;	/* 0: none yet */
};

/* bigalloc: claims c[done, n) (one run): those inside c's logical cluster
 * at done (*got of them) copied into the new cluster of that logical
 * cluster (taken when *lc holds another), at their offsets in it; the
 * remap noted. */
static errcode_t bigalloc_copy(struct dup_state *st, union e4_inode_buf *ib,
			       const struct dup_claim *c, uint64_t done, uint64_t n,
			       struct new_cluster *lc, struct remap **rm, size_t *nrm,
			       size_t *caprm, uint64_t *got, uint8_t *buf)
{
	unsigned cb = st->p->geo->cluster_bits;
	uint64_t l = c->lblk + done, csize = 1ULL << cb, k, g;
	e4_blk_t to;
	errcode_t err = 0;

	k = ((l >> cb) + 1) * csize - l;
	*got = k < n - done ? k : n - done;
	if (!lc->pc || lc->lc != l >> cb) {
		e4_blk_t goal = e4_alloc_goal_for_file(st->fs, c->ino, e4_le16(ib->inode.i_mode),
						       lc->pc ? lc->pc + csize : 0);

		err = take_blocks(st, goal, csize, &lc->pc, &g);
		if (err)
			return err;
		lc->lc = l >> cb;
	}
	to = lc->pc + (l & (csize - 1));
	err = copy_blocks(st, c->blk + done, to, *got, buf);
	if (!err && p1_grow((void **)rm, caprm, *nrm, sizeof(**rm)))
		err = E4_ERR_NO_MEMORY;
	if (!err)
		(*rm)[(*nrm)++] = (struct remap){ l, *got, to,
						  c->unwritten ? E4_MAP_UNWRITTEN : 0 };
	return err;
}

/* d's map rebuilt in *ib on new tree or indirect blocks (one of its old
 * ones is shared and is left to its other owner): the data ranges as
 * they are, then the copies over them.  The old map blocks d held alone
 * are listed in *old, to be released once the inode is written.  New
 * tree blocks come from pass 1's map (the hook).  Nothing is written
 * but new tree blocks. */
static errcode_t rebuild_map(struct dup_state *st, struct dup_inode *d, union e4_inode_buf *ib,
			     const struct remap *rm, size_t nrm, struct ranges *old)
{
	struct ranges data = { 0 };
	union e4_inode_buf nb = *ib;
	e4_blk_t acl = e4_inode_file_acl(st->fs, &ib->inode);
	errcode_t err;

	/* tree blocks are walked whatever their checksum (pass 1 judged
	 * them; a shared one can match one owner only) */
	err = e4_map_iterate(st->fs, d->ino, &ib->inode, E4_ITER_NOCSUM, collect_cb, &data);
	if (!err)
		err = e4_map_iterate(st->fs, d->ino, &ib->inode, E4_ITER_META | E4_ITER_NOCSUM,
				     collect_cb, old);
	if (err == 1)
		err = E4_ERR_NO_MEMORY;
	memset(nb.inode.i_block, 0, sizeof(nb.inode.i_block));
	if (!err && !st->p->geo->cluster_bits) {
		err = e4_inode_blocks_set(st->fs, &nb.inode,
					  acl ? st->p->geo->cluster_size / 512 : 0);
	} else if (!err) {
		/* bigalloc: the map does not count data clusters (their
		 * count stays); only the old tree's clusters go */
		uint64_t ib_now = e4_inode_blocks(st->fs, &nb.inode), drop = 0;

		for (size_t k = 0; k < old->n; k++)
			if (old->v[k].flags & E4_MAP_META)
				drop += st->p->geo->cluster_size / 512;
		err = e4_inode_blocks_set(st->fs, &nb.inode, ib_now > drop ? ib_now - drop : 0);
	}
	if (!err)
		err = e4_alloc_set_maps(st->fs, st->p->inuse, NULL);
	for (size_t k = 0; k < data.n && !err; k++)
		if (!(data.v[k].flags & E4_MAP_META))
			err = e4_map_set(st->fs, d->ino, &nb, data.v[k].lblk, data.v[k].len,
					 data.v[k].pblk, data.v[k].flags & E4_MAP_UNWRITTEN);
	for (size_t k = 0; k < nrm && !err; k++)
		err = e4_map_set(st->fs, d->ino, &nb, rm[k].lblk, rm[k].n, rm[k].nb, rm[k].flags);
	e4_alloc_set_maps(st->fs, NULL, NULL);
	free(data.v);
	if (!err)
		*ib = nb;
	return err;
}

/* After d's new map is written: its old map blocks that no claim holds
 * any more leave pass 1's map (pass 5 frees them on disk). */
static errcode_t release_old(struct dup_state *st, const struct ranges *old)
{
	unsigned cb = st->p->geo->cluster_bits;
	errcode_t err = 0;

	for (size_t k = 0; k < old->n && !err; k++) {
		if (!(old->v[k].flags & E4_MAP_META))
			continue;
		for (uint64_t b = old->v[k].pblk; b < old->v[k].pblk + old->v[k].len && !err; b++) {
			uint64_t c = b >> cb;

			if (b < st->p->geo->first_data_block || b >= st->p->geo->blocks_count ||
			    cluster_is_meta(st, c))
				continue;
			if (!e4_bmap_test(st->p->dup, c) || !left_get(st, c))
				err = e4_bmap_clear(st->p->inuse, c);
		}
	}
	return err;
}

static int mark_tree_cb(e4_fs *fs, const struct e4_map_extent *ext, void *priv)
{
	struct dup_state *st = priv;

	if (!(ext->flags & E4_MAP_META))
		return 0;
	st->err = disk_mark(fs, ext->pblk, ext->len);
	return st->err ? 1 : 0;
}

/* 1 if the inode's map is an extent tree deeper than its root. */
static int tree_has_blocks(const struct ext4_inode *in)
{
	struct e4_extent_node_head h;

	if (!(e4_le32(in->i_flags) & EXT4_EXTENTS_FL))
		return 0;
	e4_extent_node_head(in->i_block, &h);
	return h.depth > 0;
}

/* Copy d's shared data blocks and point its map at the copies. */
static errcode_t clone_data(struct dup_state *st, struct dup_inode *d)
{
	union e4_inode_buf ib;
	struct remap *rm = NULL;
	struct ranges old = { 0 };
	size_t nrm = 0, caprm = 0;
	uint8_t *buf = NULL;
	e4_blk_t last = 0;
	unsigned cb = st->p->geo->cluster_bits;
	struct new_cluster lc = { 0, 0 };
	int rebuild = 0;
	errcode_t err;

	for (size_t k = d->first; k < d->first + d->n; k++)
		if (st->claims[k].kind == DUP_MAPBLK && st->claims[k].copy)
			rebuild = 1;

	err = e4_inode_read(st->fs, d->ino, &ib);
	if (err)
		return err;
	/* An extent tree with blocks of its own is rebuilt on new blocks
	 * too: remapped in place, a leaf split rewrites a node the inode on
	 * disk names before the new sibling and the parent naming it reach
	 * the device (the cache writes in block order), and a stop there
	 * loses the entries moved.  Built aside, the new tree is reachable
	 * only through the inode, written last. */
	if (tree_has_blocks(&ib.inode))
		rebuild = 1;
	for (size_t k = d->first; k < d->first + d->n; k++)
		if (st->claims[k].kind == DUP_XATTR && e4_inode_file_acl(st->fs, &ib.inode) !=
							      st->claims[k].blk)
			return E4_ERR_CORRUPT;	/* changed since pass 1B */
	buf = malloc((size_t)COPY_MAX * st->p->geo->block_size);
	if (!buf)
		return E4_ERR_NO_MEMORY;
	err = mark_unclean(st);
	/* the copies, run by run (a run: logically and physically
	 * contiguous claims alike in state) */
	for (size_t k = d->first; k < d->first + d->n && !err;) {
		const struct dup_claim *c = &st->claims[k];
		uint64_t n = 1;

		if (c->kind != DUP_DATA || !c->copy) {
			k++;
			continue;
		}
		while (k + n < d->first + d->n && st->claims[k + n].kind == DUP_DATA &&
		       st->claims[k + n].copy &&
		       st->claims[k + n].blk == c->blk + n &&
		       st->claims[k + n].lblk == c->lblk + n &&
		       st->claims[k + n].unwritten == c->unwritten)
			n++;
		for (uint64_t done = 0; done < n && !err;) {
			e4_blk_t nb;
			uint64_t got;

			if (cb) {
				/* bigalloc: the blocks of one logical cluster into
				 * one new cluster, at their offsets in it */
				err = bigalloc_copy(st, &ib, c, done, n, &lc, &rm, &nrm, &caprm,
						    &got, buf);
				done += got;
				continue;
			}
			err = take_blocks(st, e4_alloc_goal_for_file(st->fs, d->ino,
								      e4_le16(ib.inode.i_mode), last),
					  n - done, &nb, &got);
			if (!err)
				err = copy_blocks(st, c->blk + done, nb, got, buf);
			if (!err && p1_grow((void **)&rm, &caprm, nrm, sizeof(*rm)))
				err = E4_ERR_NO_MEMORY;
			if (err)
				break;
			rm[nrm++] = (struct remap){ c->lblk + done, got, nb,
						    c->unwritten ? E4_MAP_UNWRITTEN : 0 };
			last = nb + got - 1;
			done += got;
		}
		k += n;
	}
	for (size_t k = d->first; k < d->first + d->n && !err; k++)
		if (st->claims[k].kind == DUP_XATTR && st->claims[k].copy)
			err = copy_xattr(st, &ib, st->claims[k].blk, buf);
	free(buf);
	/* the copies and their bitmap bits before anything names them */
	if (!err)
		err = e4_order_point(st->fs);
	if (!err)
		err = e4_alloc_flush(st->fs);
	if (rebuild && !err) {
		err = rebuild_map(st, d, &ib, rm, nrm, &old);
	} else {
		for (size_t k = 0; k < nrm && !err; k++) {
			err = e4_alloc_set_maps(st->fs, st->p->inuse, NULL);
			if (!err)
				err = e4_map_set(st->fs, d->ino, &ib, rm[k].lblk, rm[k].n,
						 rm[k].nb, rm[k].flags);
			e4_alloc_set_maps(st->fs, NULL, NULL);
		}
	}
	free(rm);
	/* tree blocks the remap added: in the on-disk bitmaps before the
	 * inode names them */
	if (!err) {
		st->err = 0;
		err = e4_map_iterate(st->fs, d->ino, &ib.inode, E4_ITER_META, mark_tree_cb, st);
		if (!err)
			err = st->err;
	}
	if (!err)
		err = e4_alloc_flush(st->fs);
	if (!err)
		err = e4_order_point(st->fs);
	if (!err)
		err = e4_inode_write(st->fs, d->ino, &ib);
	/* the inode on the device before anything frees what it named
	 * (pass 5 frees the old tree and indirect blocks) */
	if (!err)
		err = e4_order_point(st->fs);
	if (err) {
		free(old.v);
		return err;
	}
	/* done: the claims copied leave their clusters; old map blocks no
	 * claim holds leave pass 1's map */
	decide_commit(st, d);
	err = release_old(st, &old);
	free(old.v);
	/* the old xattr block loses the reference d no longer makes */
	for (size_t k = d->first; k < d->first + d->n && !err; k++) {
		uint32_t refs;

		if (st->claims[k].kind != DUP_XATTR || !st->claims[k].copy)
			continue;
		err = e4_xattr_block_refcount(st->fs, st->claims[k].blk, &refs);
		if (!err && refs > 1)
			err = e4_xattr_block_refcount_set(st->fs, st->claims[k].blk, refs - 1);
	}
	return err;
}

/* Say d, its co-owners, and settle it. */
static errcode_t settle(struct dup_state *st, struct dup_inode *d)
{
	struct problem_ctx pctx = { 0 };
	const char *why = NULL;
	e4_ino_t *co;
	size_t nco;
	int meta, last;
	errcode_t err;

	err = co_owners(st, d, &co, &nco, &meta, &last);
	if (err)
		return err;
	pctx.ino = d->ino;
	pctx.str = d->name ? d->name : "???";
	pctx.num = d->mtime;
	pctx.blkcount = d->nblocks;
	pctx.num2 = nco + (meta ? 1 : 0);
	fix_problem(st->ctx, PR_1D_DUP_FILE, &pctx);
	for (size_t k = 0; k < nco; k++) {
		struct dup_inode *o = dup_find(st, co[k]);
		struct problem_ctx q = { 0 };

		q.ino = co[k];
		q.str = o && o->name ? o->name : "???";
		q.num = o ? o->mtime : 0;
		fix_problem(st->ctx, PR_1D_DUP_FILE_LIST, &q);
	}
	free(co);
	if (meta)
		fix_problem(st->ctx, PR_1D_SHARE_METADATA, NULL);
	if (last && !meta) {
		fix_problem(st->ctx, PR_1D_DUP_BLOCKS_DEALT, &pctx);
		return 0;
	}
	why = st->clone_ok ? NULL : st->clone_why;
	for (size_t k = d->first; !why && st->p->geo->cluster_bits && k < d->first + d->n; k++)
		if (st->claims[k].kind == DUP_MAPBLK)
			why = "a shared extent tree block on bigalloc is not cloned in this version";
	if (!why)
		decide(st, d);
	if (why && !st->ctx->read_only) {
		/* said, not asked: a yes could not be carried out */
		pctx.str = why;
		fix_problem(st->ctx, PR_1D_CLONE_LEFT, &pctx);
		st->unresolved++;
		return 0;
	}
	if (!fix_problem(st->ctx, PR_1D_CLONE_QUESTION, &pctx) || st->ctx->read_only) {
		st->unresolved++;
		return 0;
	}
	err = clone_data(st, d);
	if (err == E4_ERR_NO_MEMORY)
		return err;
	if (err) {
		pctx.err = err;
		fix_problem(st->ctx, PR_1D_CLONE_ERROR, &pctx);
		st->unresolved++;
		return 0;
	}
	d->cloned = 1;
	return 0;
}

/* p1_csum_keepers(): 1 if ino is the one inode left on tree block blk
 * (the others were cloned away; its own claim there was not). */
static int keeps_node(void *priv, e4_ino_t ino, e4_blk_t blk)
{
	struct dup_state *st = priv;
	struct dup_inode *d = dup_find(st, ino);

	if (!d || left_get(st, blk >> st->p->geo->cluster_bits) != 1)
		return 0;
	for (size_t k = d->first; k < d->first + d->n; k++)
		if (st->claims[k].blk == blk && st->claims[k].kind == DUP_MAPBLK)
			return !(d->cloned && st->claims[k].copy);
	return 0;
}

errcode_t dup_pass1d(struct dup_state *st)
{
	struct problem_ctx pctx = { 0 };
	errcode_t err = 0;

	fix_problem(st->ctx, PR_1D_PASS_HEADER, NULL);
	pctx.num2 = st->ninodes;
	for (size_t k = 0; k < st->ninodes && st->inodes[k].ino <= EXT4_RESIZE_INO; k++)
		if (st->inodes[k].ino == EXT4_BAD_INO || st->inodes[k].ino == EXT4_RESIZE_INO)
			pctx.num2--;
	fix_problem(st->ctx, PR_1D_NUM_DUP_INODES, &pctx);
	for (size_t k = 0; k < st->ninodes && !err; k++)
		if (st->inodes[k].ino != EXT4_BAD_INO && st->inodes[k].ino != EXT4_RESIZE_INO)
			err = settle(st, &st->inodes[k]);
	/* a shared tree block whose checksum pass 1 was to rewrite: for the
	 * inode keeping it (pass1_csum.c) */
	if (!err && !st->ctx->read_only)
		err = p1_csum_keepers(st->p, keeps_node, st);
	/* the state the filesystem had comes back after pass 5 (the leaks
	 * the clones leave are its to free): e4fsck_pass1_dup_finish() */
	st->p->dup_restore = st->state_saved && (st->old_state & EXT4_VALID_FS);
	return err;
}
