/*
 * dir_build.c: writing a whole directory in one pass from a known list of
 * entries (format doc section 8): linear, or an htree built bottom-up
 * (sorted leaves, then the index levels that hold them).  For e4mkfs -d
 * and e4fsck -D.
 */
#include <stdlib.h>
#include <string.h>

#include "dir_int.h"

struct bent {
	uint32_t hash, minor;
	size_t i;		/* index into the caller's array */
};

static int bent_cmp(const void *a, const void *b, void *ctx)
{
	const struct bent *x = a, *y = b;
	const struct e4_new_dirent *e = ctx;
	const struct e4_new_dirent *ex = &e[x->i], *ey = &e[y->i];
	int c;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	c = memcmp(ex->name, ey->name, ex->name_len < ey->name_len ? ex->name_len : ey->name_len);
	if (c)
		return c;
	return (int)ex->name_len - (int)ey->name_len;
}

/* The plan: which entries go to which block, and the blocks' order. */
struct plan {
	size_t nleaves;		/* leaf blocks (linear: every block) */
	size_t *first;		/* nleaves + 1: first entry (in order[]) of each leaf */
	uint32_t *key;		/* indexed: each leaf's key in the index */
	unsigned levels;	/* indexed: indirect_levels */
	size_t nodes[2];	/* indexed: index nodes at depth 1 and 2 */
	size_t nblocks;		/* all blocks */
};

/* Split the entries (in order[]) into leaves; block 0 of a linear
 * directory starts with "." and ".." (24 bytes). */
static errcode_t plan_leaves(struct e4_dirw *w, const struct e4_new_dirent *ents,
			     const struct bent *order, size_t n, int indexed, unsigned slack_pct,
			     struct plan *pl)
{
	unsigned cap = indexed ? w->leaf_end * (100 - slack_pct) / 100 : w->leaf_end;
	unsigned used = indexed ? 0 : 24;
	size_t i, nl = 0, max = n + 1;

	pl->first = malloc(sizeof(*pl->first) * (max + 1));
	pl->key = malloc(sizeof(*pl->key) * (max + 1));
	if (!pl->first || !pl->key)
		return E4_ERR_NO_MEMORY;
	pl->first[nl++] = 0;
	pl->key[0] = 0;
	for (i = 0; i < n; i++) {
		unsigned size = e4_dirent_min_rec(ents[order[i].i].name_len);

		/* a leaf takes at least one entry (at most 264 bytes: it fits) */
		if (used && used + size > cap) {
			pl->key[nl] = order[i].hash;
			if (indexed && order[i].hash == order[i - 1].hash)
				pl->key[nl] |= 1;	/* the run of equal hashes goes on */
			pl->first[nl++] = i;
			used = 0;
		}
		used += size;
	}
	pl->nleaves = nl;
	pl->first[nl] = n;
	return 0;
}

/* The index over the leaves: levels and node counts, or
 * E4_ERR_DIR_INDEX_FULL. */
static errcode_t plan_index(struct e4_dirw *w, struct plan *pl)
{
	int csum = w->fs->geom.metadata_csum;
	size_t root = e4_dx_limit(w->bs, E4_DX_ROOT_COUNT_OFF, csum);
	size_t node = e4_dx_limit(w->bs, E4_DX_NODE_COUNT_OFF, csum);
	size_t l = pl->nleaves;

	pl->nodes[0] = pl->nodes[1] = 0;
	if (l <= root) {
		pl->levels = 0;
	} else if ((l + node - 1) / node <= root) {
		pl->levels = 1;
		pl->nodes[0] = (l + node - 1) / node;
	} else {
		size_t n1 = (l + node - 1) / node, n2 = (n1 + node - 1) / node;

		if (e4_dx_max_levels(w->fs) < 2 || n2 > root)
			return E4_ERR_DIR_INDEX_FULL;
		pl->levels = 2;
		pl->nodes[0] = n2;	/* below the root */
		pl->nodes[1] = n1;	/* above the leaves */
	}
	pl->nblocks = 1 + pl->nodes[0] + pl->nodes[1] + l;
	return 0;
}

/* The physical blocks of the directory, as runs. */
struct runs {
	struct e4_map_extent *ext;
	unsigned n;
};

static e4_blk_t runs_pblk(const struct runs *r, uint64_t lblk)
{
	for (unsigned i = 0; i < r->n; i++)
		if (lblk < r->ext[i].lblk + r->ext[i].len)
			return r->ext[i].pblk + (lblk - r->ext[i].lblk);
	return 0;
}

static void runs_free(e4_fs *fs, struct runs *r)
{
	for (unsigned i = 0; i < r->n; i++)
		e4_block_mark(fs, r->ext[i].pblk, r->ext[i].len, 0, NULL);
	r->n = 0;
}

/* Allocate count blocks near goal: one run if there is one, else cluster
 * by cluster (a block without bigalloc; runs merged, at most 32768 blocks
 * each).  *alloc gets the blocks taken (whole clusters). */
static errcode_t alloc_runs(e4_fs *fs, e4_blk_t goal, size_t count, struct runs *r,
			    uint64_t *alloc)
{
	unsigned c = e4_dirw_cluster(fs);
	size_t whole = (count + c - 1) / c * c, done = 0;
	errcode_t err;
	e4_blk_t b;

	r->ext = calloc(count, sizeof(*r->ext));
	if (!r->ext)
		return E4_ERR_NO_MEMORY;
	r->n = 0;
	*alloc = whole;
	if (count <= EXT_INIT_MAX_LEN && !e4_dirw_alloc(fs, goal, whole, &b)) {
		r->ext[0] = (struct e4_map_extent){ 0, b, (uint32_t)count, 0, 0 };
		r->n = 1;
		return 0;
	}
	while (done < count) {
		struct e4_map_extent *last = r->n ? &r->ext[r->n - 1] : NULL;
		uint32_t take = count - done < c ? (uint32_t)(count - done) : c;

		err = e4_dirw_alloc(fs, goal, c, &b);
		if (err) {
			runs_free(fs, r);
			return err;
		}
		if (last && last->pblk + last->len == b && last->len + take <= EXT_INIT_MAX_LEN)
			last->len += take;
		else
			r->ext[r->n++] = (struct e4_map_extent){ done, b, take, 0, 0 };
		goal = b + c;
		done += take;
	}
	return 0;
}

/* Indirect blocks a block map of nblocks blocks needs (section 7.1). */
static uint32_t blockmap_meta(uint64_t nblocks, uint64_t apb)
{
	uint64_t r, m = 0;

	if (nblocks <= EXT4_NDIR_BLOCKS)
		return 0;
	r = nblocks - EXT4_NDIR_BLOCKS;
	m++;				/* IND */
	if (r <= apb)
		return (uint32_t)m;
	r -= apb;
	if (r <= apb * apb)
		return (uint32_t)(m + 1 + (r + apb - 1) / apb);
	m += 1 + apb;			/* a full DIND */
	r -= apb * apb;
	return (uint32_t)(m + 1 + (r + apb * apb - 1) / (apb * apb) + (r + apb - 1) / apb);
}

/* Map the runs into the inode; the mapping blocks taken are counted in
 * i_blocks. */
static errcode_t map_runs(struct e4_dirw *w, struct runs *r, e4_blk_t goal)
{
	e4_fs *fs = w->fs;
	struct ext4_inode *inode = &w->ib.inode;
	uint8_t *buf = NULL;
	e4_blk_t *mb = NULL;
	uint32_t nm = 0, i;
	errcode_t err;

	if (e4_le32(inode->i_flags) & EXT4_EXTENTS_FL) {
		/* the extent bulk builder, tree blocks a cluster each */
		unsigned nt = e4_extent_tree_blocks(fs, r->n), got = 0;

		if (nt) {
			buf = malloc((size_t)w->bs * nt);
			mb = malloc(sizeof(*mb) * nt);
			if (!buf || !mb) {
				err = E4_ERR_NO_MEMORY;
				goto out;
			}
		}
		for (err = 0; got < nt; got++) {
			err = e4_dirw_meta_alloc(fs, inode, goal, &mb[got]);
			if (err)
				break;
			goal = mb[got] + e4_dirw_cluster(fs);
		}
		if (!err)
			err = e4_extent_tree_build_n(fs, w->ino, inode, r->ext, r->n, mb, nt, buf);
		for (i = 0; i < nt && !err; i++)
			err = e4_io_write_blk(e4_fs_io(fs), mb[i], 1, buf + (size_t)w->bs * i);
		if (err)
			while (got)
				e4_dirw_meta_free(fs, inode, mb[--got]);
		goto out;
	}
	nm = blockmap_meta(r->ext[r->n - 1].lblk + r->ext[r->n - 1].len, w->bs / 4);
	if (nm) {
		mb = malloc(sizeof(*mb) * nm);
		if (!mb)
			return E4_ERR_NO_MEMORY;
		for (i = 0; i < nm; i++) {
			err = e4_dirw_alloc(fs, goal, 1, &mb[i]);
			if (err) {
				while (i--)
					e4_block_mark(fs, mb[i], 1, 0, NULL);
				goto out;
			}
			goal = mb[i] + 1;
		}
	}
	err = e4_blockmap_build(fs, inode, r->ext, r->n, mb, nm);
	if (!err)
		err = e4_dirw_blocks_add(fs, inode, nm);
	if (err)
		for (i = 0; i < nm; i++)
			e4_block_mark(fs, mb[i], 1, 0, NULL);
out:
	free(buf);
	free(mb);
	return err;
}

/* Write leaf j (entries first[j] .. first[j + 1] of order[]). */
static errcode_t write_leaf(struct e4_dirw *w, const struct runs *r, uint64_t lblk,
			    const struct e4_new_dirent *ents, const struct bent *order,
			    size_t from, size_t to, e4_ino_t parent, int dots,
			    struct e4_new_dirent *tmp, uint8_t *buf)
{
	unsigned k = 0;
	errcode_t err;

	if (dots) {
		tmp[k++] = (struct e4_new_dirent){ w->ino, ".", 1, EXT4_FT_DIR };
		tmp[k++] = (struct e4_new_dirent){ parent, "..", 2, EXT4_FT_DIR };
	}
	for (size_t i = from; i < to; i++)
		tmp[k++] = ents[order[i].i];
	err = e4_dirw_leaf_build(w, tmp, k, buf);
	return err ? err : e4_io_write_blk(e4_fs_io(w->fs), runs_pblk(r, lblk), 1, buf);
}

/* Write the index: root, then nodes; leaves start at logical block lf. */
static errcode_t write_index(struct e4_dirw *w, const struct runs *r, const struct plan *pl,
			     e4_ino_t parent, int version, uint8_t *buf)
{
	size_t n1 = pl->levels == 2 ? pl->nodes[1] : pl->nodes[0];
	size_t lf = 1 + pl->nodes[0] + pl->nodes[1];	/* first leaf */
	size_t b1 = 1 + (pl->levels == 2 ? pl->nodes[0] : 0);	/* first bottom node */
	size_t i, j;
	errcode_t err;

	/* bottom nodes (above the leaves): leaves spread evenly */
	for (i = 0; i < n1; i++) {
		size_t from = pl->nleaves * i / n1, to = pl->nleaves * (i + 1) / n1;

		e4_dx_node_init(w, buf);
		for (j = from; j < to; j++)
			e4_dx_put_entry(buf, E4_DX_NODE_COUNT_OFF, (unsigned)(j - from), pl->key[j],
					(uint32_t)(lf + j));
		buf[E4_DX_NODE_COUNT_OFF + 2] = (uint8_t)(to - from);
		buf[E4_DX_NODE_COUNT_OFF + 3] = (uint8_t)((to - from) >> 8);
		err = e4_dx_csum_set(w->fs, w->ino, w->gen, buf, E4_DX_NODE_COUNT_OFF);
		if (!err)
			err = e4_io_write_blk(e4_fs_io(w->fs), runs_pblk(r, b1 + i), 1, buf);
		if (err)
			return err;
	}
	/* middle nodes (levels 2): bottom nodes spread evenly */
	if (pl->levels == 2) {
		size_t n0 = pl->nodes[0];

		for (i = 0; i < n0; i++) {
			size_t from = n1 * i / n0, to = n1 * (i + 1) / n0;

			e4_dx_node_init(w, buf);
			for (j = from; j < to; j++)
				e4_dx_put_entry(buf, E4_DX_NODE_COUNT_OFF, (unsigned)(j - from),
						pl->key[pl->nleaves * j / n1], (uint32_t)(b1 + j));
			buf[E4_DX_NODE_COUNT_OFF + 2] = (uint8_t)(to - from);
			buf[E4_DX_NODE_COUNT_OFF + 3] = (uint8_t)((to - from) >> 8);
			err = e4_dx_csum_set(w->fs, w->ino, w->gen, buf, E4_DX_NODE_COUNT_OFF);
			if (!err)
				err = e4_io_write_blk(e4_fs_io(w->fs), runs_pblk(r, 1 + i), 1, buf);
			if (err)
				return err;
		}
	}
	/* the root: leaves, bottom nodes or middle nodes */
	e4_dx_root_init(w, buf, w->ino, parent, version, pl->levels);
	{
		size_t cnt = pl->levels == 0 ? pl->nleaves : pl->nodes[0];

		for (i = 0; i < cnt; i++) {
			uint32_t key, child;

			if (pl->levels == 0) {
				key = pl->key[i];
				child = (uint32_t)(lf + i);
			} else if (pl->levels == 1) {
				key = pl->key[pl->nleaves * i / n1];
				child = (uint32_t)(b1 + i);
			} else {
				key = pl->key[pl->nleaves * (n1 * i / cnt) / n1];
				child = (uint32_t)(1 + i);
			}
			e4_dx_put_entry(buf, E4_DX_ROOT_COUNT_OFF, (unsigned)i, key, child);
		}
		buf[E4_DX_ROOT_COUNT_OFF + 2] = (uint8_t)cnt;
		buf[E4_DX_ROOT_COUNT_OFF + 3] = (uint8_t)(cnt >> 8);
	}
	err = e4_dx_csum_set(w->fs, w->ino, w->gen, buf, E4_DX_ROOT_COUNT_OFF);
	return err ? err : e4_io_write_blk(e4_fs_io(w->fs), runs_pblk(r, 0), 1, buf);
}

/* 1 if the inode maps no block and holds no data: size 0, not inline, an
 * empty extent root or block map (an xattr block may be counted in
 * i_blocks). */
static int empty_inode(const struct ext4_inode *inode)
{
	const struct ext4_extent_header *eh = (const struct ext4_extent_header *)inode->i_block;
	uint32_t flags = e4_le32(inode->i_flags);
	unsigned i;

	if (e4_inode_size(inode) || (flags & EXT4_INLINE_DATA_FL))
		return 0;
	if ((flags & EXT4_EXTENTS_FL) && e4_le16(eh->eh_magic) == EXT4_EXT_MAGIC)
		return eh->eh_entries == 0;
	for (i = 0; i < EXT4_N_BLOCKS; i++)
		if (inode->i_block[i])
			return 0;
	return 1;
}

static errcode_t check_args(e4_fs *fs, e4_ino_t parent, const struct e4_new_dirent *ents,
			    size_t n, unsigned slack_pct)
{
	uint32_t max = e4_geom(fs)->inodes_count;

	if (slack_pct > 90 || parent == 0 || parent > max || (n && !ents))
		return E4_ERR_INVALID_ARGUMENT;
	for (size_t i = 0; i < n; i++) {
		const struct e4_new_dirent *e = &ents[i];

		if (!e->name || e->name_len == 0 || e->inode == 0 || e->inode > max ||
		    memchr(e->name, '/', e->name_len) || memchr(e->name, '\0', e->name_len) ||
		    (e->name[0] == '.' && (e->name_len == 1 || (e->name_len == 2 && e->name[1] == '.'))))
			return E4_ERR_INVALID_ARGUMENT;
	}
	return 0;
}

static errcode_t dir_build(e4_fs *fs, e4_ino_t dir, union e4_inode_buf *ib, e4_ino_t parent,
			   const struct e4_new_dirent *ents, size_t n, unsigned flags,
			   unsigned slack_pct)
{
	struct e4_dirw w;
	struct plan pl = { 0 };
	struct runs r = { 0 };
	struct bent *order = NULL;
	struct e4_new_dirent *tmp = NULL;
	uint8_t *buf = NULL;
	int stored = DX_HASH_HALF_MD4, version = DX_HASH_HALF_MD4, indexed = 0;
	uint64_t taken = 0, total = 24, size;
	size_t i, lf;
	errcode_t err;

	err = check_args(fs, parent, ents, n, slack_pct);
	if (err)
		return err;
	err = e4_dirw_open_ib(fs, dir, ib, &w);
	if (err)
		return err;
	if (!empty_inode(&w.ib.inode)) {
		err = E4_ERR_INVALID_ARGUMENT;
		goto out;
	}
	if (flags & E4_DIR_BUILD_INLINE) {
		int done;

		err = e4_dir_inline_build(&w, parent, ents, n, &done);
		if (err || done) {
			if (!err)
				err = e4_dirw_close(&w);
			if (!err && ib)
				*ib = w.ib;
			goto out;
		}
	}
	for (i = 0; i < n; i++)
		total += e4_dirent_min_rec(ents[i].name_len);
	if (total > w.leaf_end && e4_has_compat(fs, EXT4_FEATURE_COMPAT_DIR_INDEX) &&
	    !(flags & E4_DIR_BUILD_LINEAR)) {
		indexed = 1;
		err = e4_dx_new_version(fs, &stored, &version);
		if (err)
			goto out;
	}
	/* Sorted by hash (the leaves' order when indexed), names compared to
	 * find duplicates. */
	order = malloc(sizeof(*order) * (n ? n : 1));
	tmp = malloc(sizeof(*tmp) * (w.bs / 12 + 2));
	buf = malloc(w.bs);
	if (!order || !tmp || !buf) {
		err = E4_ERR_NO_MEMORY;
		goto out;
	}
	for (i = 0; i < n; i++) {
		order[i].i = i;
		err = e4_dx_hash(version, ents[i].name, ents[i].name_len, fs->hash_seed,
				 &order[i].hash, &order[i].minor);
		if (err)
			goto out;
	}
	qsort_r(order, n, sizeof(*order), bent_cmp, (void *)ents);
	for (i = 1; i < n; i++)
		if (!bent_cmp(&order[i - 1], &order[i], (void *)ents)) {
			err = E4_ERR_EXISTS;
			goto out;
		}
	if (!indexed)
		for (i = 0; i < n; i++)
			order[i] = (struct bent){ 0, 0, i };	/* the caller's order */

	err = plan_leaves(&w, ents, order, n, indexed, slack_pct, &pl);
	if (!err && indexed)
		err = plan_index(&w, &pl);
	else
		pl.nblocks = pl.nleaves;
	if (err)
		goto out;

	err = alloc_runs(fs, e4_alloc_goal_for_mode(fs, dir, EXT4_S_IFDIR), pl.nblocks, &r,
			 &taken);
	if (err)
		goto out;
	err = map_runs(&w, &r, r.ext[r.n - 1].pblk + r.ext[r.n - 1].len);
	if (err) {
		runs_free(fs, &r);
		goto out;
	}
	lf = indexed ? 1 + pl.nodes[0] + pl.nodes[1] : 0;
	for (i = 0; i < pl.nleaves && !err; i++)
		err = write_leaf(&w, &r, lf + i, ents, order, pl.first[i], pl.first[i + 1], parent,
				 !indexed && i == 0, tmp, buf);
	if (!err && indexed)
		err = write_index(&w, &r, &pl, parent, stored, buf);
	if (!err)
		err = e4_dirw_blocks_add(fs, &w.ib.inode, (int64_t)taken);
	if (err)
		goto out;
	size = (uint64_t)pl.nblocks * w.bs;
	w.ib.inode.i_size_lo = e4_cpu_to_le32((uint32_t)size);
	w.ib.inode.i_size_high = e4_cpu_to_le32((uint32_t)(size >> 32));
	if (indexed)
		w.ib.inode.i_flags = e4_cpu_to_le32(e4_le32(w.ib.inode.i_flags) | EXT4_INDEX_FL);
	w.dirty = 1;
	/* e4_dir_build_inode(): the blocks, marked in use, on the disk
	 * before the inode naming them (the cache writes a step's blocks
	 * sorted by number).  e4_dir_build()'s callers wrote the inode
	 * without links first and count it after their own ordering point
	 * (ops.c node_body), and a failure there gives the inode back by
	 * what it reads from the disk */
	err = ib ? e4_order_point_primary(fs, 0) : 0;
	if (!err)
		err = e4_dirw_close(&w);
	if (!err && ib)
		*ib = w.ib;
out:
	free(order);
	free(tmp);
	free(buf);
	free(pl.first);
	free(pl.key);
	free(r.ext);
	return err;
}

errcode_t e4_dir_build(e4_fs *fs, e4_ino_t dir, e4_ino_t parent, const struct e4_new_dirent *ents,
		       size_t n, unsigned flags, unsigned slack_pct)
{
	return dir_build(fs, dir, NULL, parent, ents, n, flags, slack_pct);
}

errcode_t e4_dir_build_inode(e4_fs *fs, e4_ino_t dir, union e4_inode_buf *ib, e4_ino_t parent,
			     const struct e4_new_dirent *ents, size_t n, unsigned flags,
			     unsigned slack_pct)
{
	return ib ? dir_build(fs, dir, ib, parent, ents, n, flags, slack_pct)
		  : E4_ERR_INVALID_ARGUMENT;
}
