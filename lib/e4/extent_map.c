/*
 * extent_map.c: range operations on extent trees, on the cursor
 * (extent_cursor.c): map a logical range to physical blocks, punch (and
 * truncate, a punch to the end), and the bulk builder that writes a whole
 * tree for a known list of extents (format doc 7.2).
 */
#include <stdlib.h>
#include <string.h>

#include "extent_int.h"

static uint32_t max_len(unsigned flags)
{
	return (flags & E4_MAP_UNWRITTEN) ? EXT_UNWRITTEN_MAX_LEN : EXT_INIT_MAX_LEN;
}

/* a continues into b: logically, physically, in the same state, and the
 * two fit one extent. */
static int continues(const struct e4_map_extent *a, const struct e4_map_extent *b)
{
	return a->lblk + a->len == b->lblk && a->pblk + a->len == b->pblk &&
	       (a->flags & E4_MAP_UNWRITTEN) == (b->flags & E4_MAP_UNWRITTEN) &&
	       (uint64_t)a->len + b->len <= max_len(a->flags);
}

/* ---- freeing data blocks -------------------------------------------------- */
/* Does the file map any block of [a, b)?  Moves the cursor. */
static errcode_t maps_any(e4_extent_handle *h, uint64_t a, uint64_t b, int *any)
{
	struct e4_map_extent e;
	errcode_t err;

	*any = 0;
	if (a >= b)
		return 0;
	err = e4_extent_goto(h, a);
	if (!err) {
		*any = 1;
		return 0;
	}
	if (err != E4_ERR_EXTENT_NOT_FOUND || e4_extent_get(h, &e))
		return err == E4_ERR_EXTENT_NOT_FOUND ? 0 : err;	/* an empty tree */
	if (e.lblk < a) {
		/* the last extent before a: look at the one after it */
		err = e4_extent_next(h);
		if (err)
			return err == E4_ERR_EXTENT_NO_NEXT ? 0 : err;
		e4_extent_get(h, &e);
	}
	*any = e.lblk < b;
	return 0;
}

/*
 * Free the data blocks [pblk, pblk + len) that logical [lblk, lblk + len)
 * mapped (already unmapped).  Without bigalloc each block must have been
 * in use (else E4_ERR_CORRUPT).  With bigalloc whole clusters are freed,
 * except a cluster at either end that a block of the file outside the
 * range still uses (a logical cluster maps one physical cluster), and
 * i_blocks drops by the clusters freed.
 */
static errcode_t free_data(e4_extent_handle *h, uint64_t lblk, e4_blk_t pblk, uint64_t len,
			   uint64_t *freed)
{
	e4_fs *fs = e4_extent_fs(h);
	unsigned cb = fs->geom.cluster_bits;
	uint64_t changed = 0, mask = ((uint64_t)1 << cb) - 1;
	e4_blk_t c0, c1;
	errcode_t err;
	int any;

	if (!cb) {
		err = e4_block_mark(fs, pblk, len, 0, &changed);
		if (err)
			return err;
		*freed += len;
		return changed != len ? E4_ERR_CORRUPT : 0;
	}
	c0 = pblk >> cb;
	c1 = (pblk + len - 1) >> cb;
	if (lblk & mask) {
		err = maps_any(h, lblk & ~mask, lblk, &any);
		if (err)
			return err;
		if (any)
			c0++;
	}
	if ((lblk + len) & mask) {
		err = maps_any(h, lblk + len, (lblk + len + mask) & ~mask, &any);
		if (err)
			return err;
		if (any && c1 >= c0) {
			if (c1 == 0)
				return 0;
			c1--;
		}
	}
	if (c0 > c1)
		return 0;
	{
		e4_blk_t first = c0 << cb;
		uint64_t count = (c1 - c0 + 1) << cb;

		if (first < fs->geom.first_data_block)
			first = fs->geom.first_data_block;
		if (count > fs->geom.blocks_count - first)
			count = fs->geom.blocks_count - first;
		err = e4_block_mark(fs, first, count, 0, &changed);
	}
	if (err)
		return err;
	*freed += (c1 - c0 + 1) << cb;
	return e4_extent_iblocks_add(h, -(int64_t)((c1 - c0 + 1) << cb));
}

/* ---- removing a range ------------------------------------------------------ */
/*
 * Unmap [lblk, end), from the last extent backwards: whole extents are
 * deleted, one reaching in is cut, one spanning the range is split (its
 * leaf first gets room, so the split needs no new block once the extent
 * is cut).  With do_free the data blocks are freed once unmapped.
 */
static errcode_t remove_range(e4_extent_handle *h, uint64_t lblk, uint64_t end, int do_free,
			      uint64_t *freed)
{
	struct e4_map_extent x, y;
	errcode_t err;

	for (;;) {
		uint64_t xe;

		err = e4_extent_goto(h, end - 1);
		if (err && err != E4_ERR_EXTENT_NOT_FOUND)
			return err;
		if (e4_extent_get(h, &x))
			return 0;	/* an empty tree */
		xe = x.lblk + x.len;
		if (x.lblk >= end || xe <= lblk)
			return 0;	/* nothing (more) in the range */
		y = x;
		if (x.lblk >= lblk && xe <= end) {
			err = e4_extent_delete(h);
			if (!err && do_free)
				err = free_data(h, x.lblk, x.pblk, x.len, freed);
			if (err)
				return err;
			continue;
		}
		if (x.lblk < lblk && xe > end) {
			/* keep [x.lblk, lblk) and [end, xe) */
			struct e4_map_extent tail = x;

			tail.lblk = end;
			tail.pblk = x.pblk + (end - x.lblk);
			tail.len = (uint32_t)(xe - end);
			err = e4_extent_reserve(h, end);
			if (!err)
				err = e4_extent_goto(h, x.lblk);
			y.len = (uint32_t)(lblk - x.lblk);
			if (!err)
				err = e4_extent_replace_nocheck(h, &y);
			if (!err)
				err = e4_extent_insert_any(h, &tail);
			if (!err && do_free)
				err = free_data(h, lblk, x.pblk + (lblk - x.lblk), end - lblk, freed);
			return err;
		}
		if (x.lblk < lblk) {
			/* keep the head [x.lblk, lblk); nothing before it is in range */
			y.len = (uint32_t)(lblk - x.lblk);
			err = e4_extent_replace_nocheck(h, &y);
			if (!err && do_free)
				err = free_data(h, lblk, x.pblk + y.len, xe - lblk, freed);
			return err;
		}
		/* keep the tail [end, xe) */
		y.lblk = end;
		y.pblk = x.pblk + (end - x.lblk);
		y.len = (uint32_t)(xe - end);
		err = e4_extent_replace_nocheck(h, &y);
		if (!err && do_free)
			err = free_data(h, x.lblk, x.pblk, end - x.lblk, freed);
		if (err)
			return err;
	}
}

errcode_t e4_extent_punch(e4_extent_handle *h, uint64_t lblk, uint64_t count, uint64_t *freed)
{
	uint64_t end, done = 0, tree0 = e4_extent_tree_freed(h);
	errcode_t err;

	if (freed)
		*freed = 0;
	if (!(e4_extent_fs(h)->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (!count || lblk >= EXT_LBLK_LIMIT)
		return 0;
	end = count > EXT_LBLK_LIMIT - lblk ? EXT_LBLK_LIMIT : lblk + count;
	err = remove_range(h, lblk, end, 1, &done);
	if (freed)
		*freed = done + e4_extent_tree_freed(h) - tree0;
	return err;
}

/* ---- mapping a range ---------------------------------------------------------- */
/* The extent starting at lblk and the one before it become one when the
 * first continues into the second. */
static errcode_t merge_at(e4_extent_handle *h, uint64_t lblk)
{
	struct e4_map_extent cur, prev;
	errcode_t err;

	err = e4_extent_goto(h, lblk);
	if (err == E4_ERR_EXTENT_NOT_FOUND)
		return 0;
	if (!err)
		err = e4_extent_get(h, &cur);
	if (err || cur.lblk != lblk)
		return err;
	err = e4_extent_prev(h);
	if (err == E4_ERR_EXTENT_NO_PREV)
		return 0;
	if (!err)
		err = e4_extent_get(h, &prev);
	if (err || !continues(&prev, &cur))
		return err;
	/* the second goes first: a stop in between leaves it unmapped
	 * (a leak), never mapped twice */
	err = e4_extent_goto(h, cur.lblk);
	if (!err)
		err = e4_extent_delete(h);
	if (!err)
		err = e4_extent_goto(h, prev.lblk);
	prev.len += cur.len;
	if (!err)
		err = e4_extent_replace_nocheck(h, &prev);
	return err;
}

static errcode_t map_set(e4_extent_handle *h, uint64_t lblk, uint64_t count, e4_blk_t pblk,
			 unsigned flags)
{
	e4_fs *fs = e4_extent_fs(h);
	uint64_t off;
	errcode_t err;

	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (!count)
		return 0;
	if (lblk >= EXT_LBLK_WRITE_LIMIT || count > EXT_LBLK_WRITE_LIMIT - lblk)
		return E4_ERR_FILE_TOO_BIG;
	if ((flags & ~(unsigned)E4_MAP_UNWRITTEN) || !pblk || pblk < fs->geom.first_data_block ||
	    pblk >= fs->geom.blocks_count || count > fs->geom.blocks_count - pblk)
		return E4_ERR_INVALID_ARGUMENT;
	err = remove_range(h, lblk, lblk + count, 0, NULL);
	for (off = 0; !err && off < count;) {
		struct e4_map_extent e = { .lblk = lblk + off, .pblk = pblk + off, .flags = flags };

		e.len = (uint32_t)(count - off < max_len(flags) ? count - off : max_len(flags));
		err = e4_extent_insert_any(h, &e);
		off += e.len;
	}
	if (!err)
		err = merge_at(h, lblk);
	if (!err && lblk + count < EXT_LBLK_LIMIT)
		err = merge_at(h, lblk + count);
	if (!err)
		err = e4_extent_merge_up(h);
	return err;
}

errcode_t e4_extent_map_set(e4_extent_handle *h, uint64_t lblk, uint64_t count, e4_blk_t pblk,
			    unsigned flags)
{
	if (e4_extent_fs(h)->geom.cluster_bits)
		return E4_ERR_UNSUPPORTED;
	return map_set(h, lblk, count, pblk, flags);
}

errcode_t e4_extent_map_set_any(e4_extent_handle *h, uint64_t lblk, uint64_t count,
				e4_blk_t pblk, unsigned flags)
{
	return map_set(h, lblk, count, pblk, flags);
}

/* ---- bulk building --------------------------------------------------------------- */
unsigned e4_extent_tree_blocks(e4_fs *fs, uint64_t n)
{
	uint64_t cap = e4_extent_node_capacity(fs), total = 0;

	while (n > EXT_ROOT_CAPACITY) {
		n = (n + cap - 1) / cap;
		total += n;
	}
	return (unsigned)total;
}

struct bulk {
	e4_fs *fs;
	e4_ino_t ino;
	uint32_t gen;
	const struct e4_map_extent *ext;
	const e4_blk_t *blks;
	unsigned nblks, next;
	uint8_t *bufs;
	unsigned depth, cap;
	uint64_t span[EXT4_MAX_EXTENT_DEPTH + 1];	/* extents under a full node */
};

static void bulk_header(void *node, unsigned entries, unsigned max, unsigned depth)
{
	struct ext4_extent_header *eh = node;

	eh->eh_magic = e4_cpu_to_le16(EXT4_EXT_MAGIC);
	eh->eh_entries = e4_cpu_to_le16((uint16_t)entries);
	eh->eh_max = e4_cpu_to_le16((uint16_t)max);
	eh->eh_depth = e4_cpu_to_le16((uint16_t)depth);
}

/* Fill node (at tree level `level`, 0 = root) with extents [first,
 * first + count): leaves take them, index nodes take children of span
 * extents each, children built in the next blocks (tree order). */
static errcode_t bulk_node(struct bulk *b, void *node, unsigned level, uint64_t first,
			   uint64_t count)
{
	unsigned bs = b->fs->geom.block_size;

	if (level == b->depth) {
		struct ext4_extent *e = (struct ext4_extent *)((uint8_t *)node + 12);

		for (uint64_t i = 0; i < count; i++)
			e4_extent_encode(&e[i], &b->ext[first + i]);
		return 0;
	}
	{
		struct ext4_extent_idx *ix = (struct ext4_extent_idx *)((uint8_t *)node + 12);
		uint64_t span = b->span[level + 1];
		unsigned children = (unsigned)((count + span - 1) / span);

		for (unsigned c = 0; c < children; c++) {
			uint64_t cf = first + c * span;
			uint64_t cc = first + count - cf < span ? first + count - cf : span;
			unsigned cn = level + 1 == b->depth ? (unsigned)cc
				: (unsigned)((cc + b->span[level + 2] - 1) / b->span[level + 2]);
			e4_blk_t blk;
			uint8_t *buf;
			errcode_t err;

			if (b->next >= b->nblks)
				return E4_ERR_INVALID_ARGUMENT;
			blk = b->blks[b->next];
			if (blk <= b->fs->geom.first_data_block || blk >= b->fs->geom.blocks_count)
				return E4_ERR_INVALID_ARGUMENT;
			buf = b->bufs + (size_t)b->next * bs;
			b->next++;
			ix[c].ei_block = e4_cpu_to_le32((uint32_t)b->ext[cf].lblk);
			ix[c].ei_leaf_lo = e4_cpu_to_le32((uint32_t)blk);
			ix[c].ei_leaf_hi = e4_cpu_to_le16((uint16_t)(blk >> 32));
			ix[c].ei_unused = 0;
			memset(buf, 0, bs);
			bulk_header(buf, cn, b->cap, b->depth - level - 1);
			err = bulk_node(b, buf, level + 1, cf, cc);
			if (err)
				return err;
			e4_extent_tail_set(b->fs, b->ino, b->gen, buf);
		}
	}
	return 0;
}

/* The builders' extents: lengths within the limits, ascending and not
 * overlapping, inside the filesystem and the 2^32 logical blocks. */
static errcode_t check_list(e4_fs *fs, const struct e4_map_extent *ext, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		if (!ext[i].len || ext[i].len > max_len(ext[i].flags) ||
		    ext[i].lblk + ext[i].len > EXT_LBLK_LIMIT ||
		    (i && ext[i].lblk < ext[i - 1].lblk + ext[i - 1].len) ||
		    ext[i].pblk + ext[i].len > fs->geom.blocks_count)
			return E4_ERR_INVALID_ARGUMENT;
	}
	return 0;
}

errcode_t e4_extent_tree_build_n(e4_fs *fs, e4_ino_t ino, struct ext4_inode *inode,
				 const struct e4_map_extent *ext, uint64_t n,
				 const e4_blk_t *blks, unsigned nblks, void *bufs)
{
	struct ext4_extent_header *eh = (struct ext4_extent_header *)inode->i_block;
	struct bulk b;
	uint64_t cnt;
	unsigned roots;

	errcode_t err = check_list(fs, ext, n);

	if (err)
		return err;
	memset(&b, 0, sizeof(b));
	b.cap = e4_extent_node_capacity(fs);
	for (cnt = n; cnt > EXT_ROOT_CAPACITY; cnt = (cnt + b.cap - 1) / b.cap)
		b.depth++;
	if (b.depth > EXT4_MAX_EXTENT_DEPTH)
		return E4_ERR_EXTENT_TOO_DEEP;
	if (nblks != e4_extent_tree_blocks(fs, n) || (nblks && (!blks || !bufs)))
		return E4_ERR_INVALID_ARGUMENT;
	b.fs = fs;
	b.ino = ino;
	b.gen = e4_le32(inode->i_generation);
	b.ext = ext;
	b.blks = blks;
	b.nblks = nblks;
	b.bufs = bufs;
	/* span[l]: extents under a full node of level l (leaves: depth) */
	b.span[b.depth] = b.cap;
	for (int l = (int)b.depth - 1; l >= 1; l--)
		b.span[l] = b.span[l + 1] * b.cap;
	roots = b.depth ? (unsigned)((n + b.span[1] - 1) / b.span[1]) : (unsigned)n;
	memset(inode->i_block, 0, sizeof(inode->i_block));
	bulk_header(eh, roots, EXT_ROOT_CAPACITY, b.depth);
	inode->i_flags = e4_cpu_to_le32(e4_le32(inode->i_flags) | EXT4_EXTENTS_FL);
	return bulk_node(&b, eh, 0, 0, n);
}

errcode_t e4_extent_tree_build(e4_fs *fs, e4_ino_t ino, struct ext4_inode *inode,
			       const struct e4_map_extent *ext, unsigned n,
			       e4_blk_t leaf_blk, void *leaf_buf)
{
	unsigned need = e4_extent_tree_blocks(fs, n);
	errcode_t err = check_list(fs, ext, n);

	if (err)
		return err;
	if (need > 1)
		return E4_ERR_UNSUPPORTED;
	if (need && (!leaf_blk || !leaf_buf || leaf_blk >= fs->geom.blocks_count))
		return E4_ERR_INVALID_ARGUMENT;
	return e4_extent_tree_build_n(fs, ino, inode, ext, n, need ? &leaf_blk : NULL, need,
				      leaf_buf);
}

/* ---- compaction ------------------------------------------------------------------ */
struct gather {
	struct e4_map_extent *ext;
	uint64_t n, cap;
	uint64_t raw;		/* extents as the tree holds them */
	e4_blk_t *old;
	unsigned nold, oldcap;
};

static int gather_cb(e4_fs *fs, const struct e4_map_extent *e, void *priv)
{
	struct gather *g = priv;

	(void)fs;
	if (e->flags & E4_MAP_META) {
		if (g->nold == g->oldcap) {
			unsigned c = g->oldcap ? 2 * g->oldcap : 16;
			e4_blk_t *p = realloc(g->old, c * sizeof(*p));

			if (!p)
				return (int)E4_ERR_NO_MEMORY;
			g->old = p;
			g->oldcap = c;
		}
		g->old[g->nold++] = e->pblk;
		return 0;
	}
	g->raw++;
	if (g->n && continues(&g->ext[g->n - 1], e)) {
		g->ext[g->n - 1].len += e->len;
		return 0;
	}
	if (g->n == g->cap) {
		uint64_t c = g->cap ? 2 * g->cap : 64;
		struct e4_map_extent *p = realloc(g->ext, c * sizeof(*p));

		if (!p)
			return (int)E4_ERR_NO_MEMORY;
		g->ext = p;
		g->cap = c;
	}
	g->ext[g->n] = *e;
	g->ext[g->n].level = 0;
	g->n++;
	return 0;
}

errcode_t e4_extent_compact(e4_extent_handle *h, int *rebuilt)
{
	e4_fs *fs = e4_extent_fs(h);
	struct ext4_inode *inode = e4_extent_inode(h);
	unsigned bs = fs->geom.block_size, nb = 0, i;
	struct gather g;
	union e4_inode_buf tmp;
	e4_blk_t *blks = NULL, goal;
	uint8_t *bufs = NULL;
	errcode_t err;

	if (rebuilt)
		*rebuilt = 0;
	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (fs->geom.cluster_bits)
		return E4_ERR_UNSUPPORTED;
	memset(&g, 0, sizeof(g));
	err = e4_map_iterate(fs, e4_extent_ino(h), inode, E4_ITER_META, gather_cb, &g);
	if (!err) {
		nb = e4_extent_tree_blocks(fs, g.n);
		if (nb >= g.nold && g.n == g.raw)
			goto out;	/* as small as it gets */
		blks = calloc(nb ? nb : 1, sizeof(*blks));
		bufs = malloc((size_t)(nb ? nb : 1) * bs);
		if (!blks || !bufs)
			err = E4_ERR_NO_MEMORY;
	}
	/* the new tree blocks near the old first one (else the inode's goal) */
	goal = g.nold ? g.old[0] : e4_alloc_goal_for_inode(fs, e4_extent_ino(h));
	for (i = 0; !err && i < nb; i++) {
		uint64_t got;

		err = e4_alloc_blocks(fs, goal, 1, 1, &blks[i], &got);
		if (!err)
			err = e4_extent_iblocks_add(h, 1);
		goal = blks[i] + 1;
	}
	/* the new tree is written before the root names it; the old blocks
	 * are freed after */
	if (!err) {
		memcpy(&tmp.inode, inode, sizeof(tmp.inode));
		err = e4_extent_tree_build_n(fs, e4_extent_ino(h), &tmp.inode, g.ext, g.n, blks, nb,
					     bufs);
	}
	for (i = 0; !err && i < nb; i++)
		err = e4_io_write_blk(fs->io, blks[i], 1, bufs + (size_t)i * bs);
	if (!err) {
		memcpy(inode->i_block, tmp.inode.i_block, sizeof(inode->i_block));
		for (i = 0; !err && i < g.nold; i++) {
			err = e4_block_mark(fs, g.old[i], 1, 0, NULL);
			if (!err)
				err = e4_extent_iblocks_add(h, -1);
		}
		if (rebuilt)
			*rebuilt = 1;
	}
	if (!err) {
		err = e4_extent_goto(h, 0);
		if (err == E4_ERR_EXTENT_NOT_FOUND)
			err = 0;
	}
out:
	free(g.ext);
	free(g.old);
	free(blks);
	free(bufs);
	return err;
}
