/*
 * extent_cursor.c: the extent tree cursor (extent.h; format doc 7.2).
 *
 * The cursor keeps the path from the root (level 0, the inode's i_block)
 * down to a leaf (level depth): per level the node's bytes, its block
 * number, the entry the path goes through and the logical range [lo, hi)
 * the parent gives the node.  Every node is read through the checks of
 * extent.c (header, order, range, checksum).  After a change of the tree's
 * shape (split, new level, freed node) the path is rebuilt from the root
 * by logical block: nodes come from the block cache, so that is cheap and
 * keeps one way of building a path.
 *
 * Insertion into a full leaf: the topmost full node on the path below a
 * non-full one is split (or, when the root is full too, the root's
 * entries move into a new block and the tree grows a level), then the
 * path is rebuilt and the next full node split, until the leaf has room.
 * A split keeps the lower half and gives the upper half to a new right
 * sibling; at the end of a node (appending) the new leaf starts empty and
 * receives the new entry, a new index node takes the last child, so
 * sequential appends leave full nodes behind, as the kernel does.
 */
#include <stdlib.h>
#include <string.h>

#include "extent_int.h"

struct ext_level {
	uint8_t *node;		/* level 0: inode->i_block; else a buffer */
	e4_blk_t blk;		/* 0 for the root */
	int idx;		/* entry the path goes through; -1: none */
	uint64_t lo, hi;	/* logical range the parent gives the node */
};

struct e4_extent_handle {
	e4_fs *fs;
	e4_ino_t ino;
	struct ext4_inode *inode;
	uint32_t gen;
	unsigned flags;
	unsigned node_max;	/* eh_max of new tree blocks */
	unsigned depth;		/* root eh_depth */
	int placed;		/* path[0..depth] describes a position */
	uint64_t tree_freed;	/* blocks of tree nodes freed */
	struct ext_level path[EXT4_MAX_EXTENT_DEPTH + 1];
	uint8_t *bufs[EXT4_MAX_EXTENT_DEPTH + 1];	/* [0]: scratch */
};

/* ---- node bytes ------------------------------------------------------- */
#define ENT_SIZE	12

static inline struct ext4_extent_header *hdr(uint8_t *n)
{
	return (struct ext4_extent_header *)n;
}

static inline unsigned n_entries(uint8_t *n) { return e4_le16(hdr(n)->eh_entries); }
static inline unsigned n_max(uint8_t *n) { return e4_le16(hdr(n)->eh_max); }
static inline unsigned n_depth(uint8_t *n) { return e4_le16(hdr(n)->eh_depth); }

static inline void n_set_entries(uint8_t *n, unsigned v)
{
	hdr(n)->eh_entries = e4_cpu_to_le16((uint16_t)v);
}

static inline uint8_t *ent(uint8_t *n, unsigned i)
{
	return n + sizeof(struct ext4_extent_header) + (size_t)i * ENT_SIZE;
}

/* First logical block of entry i (leaf or index: the same 4 bytes). */
static inline uint32_t key_of(uint8_t *n, unsigned i)
{
	return e4_get_le32(ent(n, i));
}

static inline void set_key(uint8_t *n, unsigned i, uint32_t k)
{
	((struct ext4_extent_idx *)ent(n, i))->ei_block = e4_cpu_to_le32(k);
}

static inline e4_blk_t child_of(uint8_t *n, unsigned i)
{
	const struct ext4_extent_idx *x = (const struct ext4_extent_idx *)ent(n, i);

	return (e4_blk_t)e4_le32(x->ei_leaf_lo) | (e4_blk_t)e4_le16(x->ei_leaf_hi) << 32;
}

static void put_idx(uint8_t *n, unsigned i, uint32_t k, e4_blk_t child)
{
	struct ext4_extent_idx *x = (struct ext4_extent_idx *)ent(n, i);

	x->ei_block = e4_cpu_to_le32(k);
	x->ei_leaf_lo = e4_cpu_to_le32((uint32_t)child);
	x->ei_leaf_hi = e4_cpu_to_le16((uint16_t)(child >> 32));
	x->ei_unused = 0;
}

static void get_ext(uint8_t *n, unsigned i, struct e4_map_extent *m)
{
	const struct ext4_extent *e = (const struct ext4_extent *)ent(n, i);
	unsigned len = e4_le16(e->ee_len);

	memset(m, 0, sizeof(*m));
	m->lblk = e4_le32(e->ee_block);
	m->pblk = (e4_blk_t)e4_le32(e->ee_start_lo) | (e4_blk_t)e4_le16(e->ee_start_hi) << 32;
	if (len > EXT_INIT_MAX_LEN) {
		m->len = len - EXT_INIT_MAX_LEN;
		m->flags = E4_MAP_UNWRITTEN;
	} else {
		m->len = len;
	}
}

void e4_extent_encode(struct ext4_extent *e, const struct e4_map_extent *m)
{
	unsigned len = m->len + ((m->flags & E4_MAP_UNWRITTEN) ? EXT_INIT_MAX_LEN : 0);

	e->ee_block = e4_cpu_to_le32((uint32_t)m->lblk);
	e->ee_len = e4_cpu_to_le16((uint16_t)len);
	e->ee_start_hi = e4_cpu_to_le16((uint16_t)(m->pblk >> 32));
	e->ee_start_lo = e4_cpu_to_le32((uint32_t)m->pblk);
}

static void put_ext(uint8_t *n, unsigned i, const struct e4_map_extent *m)
{
	e4_extent_encode((struct ext4_extent *)ent(n, i), m);
}

void e4_extent_tail_set(e4_fs *fs, e4_ino_t ino, uint32_t gen, void *node)
{
	if (fs->geom.metadata_csum) {
		struct ext4_extent_tail *t = (struct ext4_extent_tail *)ent(node, n_max(node));

		t->et_checksum = e4_cpu_to_le32(e4_extent_block_csum(fs, ino, gen, node));
	}
}

/* Entries of n (sorted by first block) starting at or before lblk. */
static unsigned upto(uint8_t *n, uint64_t lblk)
{
	unsigned a = 0, b = n_entries(n);

	while (a < b) {
		unsigned m = a + (b - a) / 2;

		if (key_of(n, m) <= lblk)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

static void init_node(uint8_t *n, size_t size, unsigned max, unsigned depth)
{
	memset(n, 0, size);
	hdr(n)->eh_magic = e4_cpu_to_le16(EXT4_EXT_MAGIC);
	hdr(n)->eh_max = e4_cpu_to_le16((uint16_t)max);
	hdr(n)->eh_depth = e4_cpu_to_le16((uint16_t)depth);
}

/* ---- handle ------------------------------------------------------------ */
void e4_extent_root_init(struct ext4_inode *inode)
{
	init_node((uint8_t *)inode->i_block, sizeof(inode->i_block), EXT_ROOT_CAPACITY, 0);
	inode->i_flags = e4_cpu_to_le32(e4_le32(inode->i_flags) | EXT4_EXTENTS_FL);
}

errcode_t e4_extent_open(e4_fs *fs, e4_ino_t ino, struct ext4_inode *inode, unsigned flags,
			 e4_extent_handle **ret)
{
	e4_extent_handle *h;
	errcode_t err;

	*ret = NULL;
	if (!(e4_le32(inode->i_flags) & EXT4_EXTENTS_FL))
		return E4_ERR_EXTENT_HEADER;
	err = e4_extent_root_check(inode);
	if (err)
		return err;
	h = calloc(1, sizeof(*h));
	if (!h)
		return E4_ERR_NO_MEMORY;
	h->fs = fs;
	h->ino = ino;
	h->inode = inode;
	h->gen = e4_le32(inode->i_generation);
	h->flags = flags;
	h->node_max = e4_extent_node_capacity(fs);
	h->depth = n_depth((uint8_t *)inode->i_block);
	h->bufs[0] = malloc(fs->geom.block_size);
	if (!h->bufs[0]) {
		free(h);
		return E4_ERR_NO_MEMORY;
	}
	*ret = h;
	return 0;
}

void e4_extent_close(e4_extent_handle *h)
{
	if (!h)
		return;
	for (unsigned i = 0; i <= EXT4_MAX_EXTENT_DEPTH; i++)
		free(h->bufs[i]);
	free(h);
}

unsigned e4_extent_depth(e4_extent_handle *h)
{
	return h->depth;
}

errcode_t e4_extent_set_node_max(e4_extent_handle *h, unsigned max)
{
	if (max < EXT_ROOT_CAPACITY || max > e4_extent_node_capacity(h->fs))
		return E4_ERR_INVALID_ARGUMENT;
	h->node_max = max;
	return 0;
}

e4_fs *e4_extent_fs(e4_extent_handle *h) { return h->fs; }
e4_ino_t e4_extent_ino(e4_extent_handle *h) { return h->ino; }
struct ext4_inode *e4_extent_inode(e4_extent_handle *h) { return h->inode; }
uint64_t e4_extent_tree_freed(e4_extent_handle *h) { return h->tree_freed; }

int e4_extent_counts_data(e4_extent_handle *h)
{
	return h->fs->geom.cluster_bits == 0;
}

errcode_t e4_extent_iblocks_add(e4_extent_handle *h, int64_t delta)
{
	uint64_t cur = e4_inode_blocks(h->fs, h->inode);
	uint64_t d = (uint64_t)(delta < 0 ? -delta : delta) * (h->fs->geom.block_size / 512);

	if (delta < 0)
		cur = cur > d ? cur - d : 0;
	else
		cur += d;
	return e4_inode_blocks_set(h->fs, h->inode, cur);
}

/* i_blocks follows the blocks the leaves map (not on bigalloc, where
 * clusters are charged when they are freed: extent_map.c). */
static errcode_t account(e4_extent_handle *h, int64_t delta)
{
	return e4_extent_counts_data(h) && delta ? e4_extent_iblocks_add(h, delta) : 0;
}

static errcode_t writable(e4_extent_handle *h)
{
	if (!(h->fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	return 0;
}

/* ---- reading the path ---------------------------------------------------- */
static uint8_t *level_buf(e4_extent_handle *h, unsigned l)
{
	if (!h->bufs[l])
		h->bufs[l] = malloc(h->fs->geom.block_size);
	return h->bufs[l];
}

/* Load the child of level l's current entry as level l + 1. */
static errcode_t load_child(e4_extent_handle *h, unsigned l)
{
	struct ext_level *p = &h->path[l], *c = &h->path[l + 1];
	unsigned i = (unsigned)p->idx, n = n_entries(p->node);
	uint64_t lo = key_of(p->node, i), hi = i + 1 < n ? key_of(p->node, i + 1) : p->hi;
	e4_blk_t blk = child_of(p->node, i);
	uint8_t *buf = level_buf(h, l + 1);
	errcode_t err;

	if (!buf)
		return E4_ERR_NO_MEMORY;
	err = e4_extent_node_read(h->fs, h->ino, h->gen, blk, buf, (int)(h->depth - l - 1), lo, hi,
				  !(h->flags & E4_EXTENT_NOCSUM));
	if (err)
		return err;
	c->node = buf;
	c->blk = blk;
	c->idx = -1;
	c->lo = lo;
	c->hi = hi;
	return 0;
}

errcode_t e4_extent_goto(e4_extent_handle *h, uint64_t lblk)
{
	struct e4_map_extent e;
	errcode_t err;
	unsigned l;

	h->placed = 0;
	if (lblk >= EXT_LBLK_LIMIT)
		return E4_ERR_FILE_TOO_BIG;
	err = e4_extent_root_check(h->inode);
	if (err)
		return err;
	h->depth = n_depth((uint8_t *)h->inode->i_block);
	h->path[0].node = (uint8_t *)h->inode->i_block;
	h->path[0].blk = 0;
	h->path[0].lo = 0;
	h->path[0].hi = EXT_LBLK_LIMIT;
	for (l = 0;; l++) {
		struct ext_level *p = &h->path[l];
		unsigned a = upto(p->node, lblk);

		if (l == h->depth) {
			p->idx = a ? (int)a - 1 : (n_entries(p->node) ? 0 : -1);
			break;
		}
		p->idx = a ? (int)a - 1 : 0;	/* index nodes are never empty */
		err = load_child(h, l);
		if (err)
			return err;
	}
	h->placed = 1;
	if (h->path[l].idx < 0)
		return E4_ERR_EXTENT_NOT_FOUND;
	get_ext(h->path[l].node, (unsigned)h->path[l].idx, &e);
	return lblk >= e.lblk && lblk < e.lblk + e.len ? 0 : E4_ERR_EXTENT_NOT_FOUND;
}

errcode_t e4_extent_get(e4_extent_handle *h, struct e4_map_extent *ext)
{
	struct ext_level *leaf = &h->path[h->depth];

	if (!h->placed || leaf->idx < 0)
		return E4_ERR_EXTENT_NOT_FOUND;
	get_ext(leaf->node, (unsigned)leaf->idx, ext);
	return 0;
}

/* One step (dir +1 / -1) along the leaves; empty leaves are passed. */
static errcode_t step(e4_extent_handle *h, int dir)
{
	unsigned d = h->depth;
	struct ext_level *leaf = &h->path[d];
	struct e4_map_extent here;
	errcode_t err;
	int l;

	if (!h->placed || leaf->idx < 0)
		return E4_ERR_EXTENT_NOT_FOUND;
	if (dir > 0 ? leaf->idx + 1 < (int)n_entries(leaf->node) : leaf->idx > 0) {
		leaf->idx += dir;
		return 0;
	}
	get_ext(leaf->node, (unsigned)leaf->idx, &here);
	for (;;) {
		for (l = (int)d - 1; l >= 0; l--) {
			struct ext_level *p = &h->path[l];

			if (dir > 0 ? p->idx + 1 < (int)n_entries(p->node) : p->idx > 0)
				break;
		}
		if (l < 0) {
			/* the end; come back if empty leaves were passed */
			if (leaf->idx < 0)
				err = e4_extent_goto(h, here.lblk);
			else
				err = 0;
			return err ? err : dir > 0 ? E4_ERR_EXTENT_NO_NEXT : E4_ERR_EXTENT_NO_PREV;
		}
		h->path[l].idx += dir;
		for (; (unsigned)l < d; l++) {
			unsigned n;

			err = load_child(h, (unsigned)l);
			if (err) {
				h->placed = 0;
				return err;
			}
			n = n_entries(h->path[l + 1].node);
			h->path[l + 1].idx = dir > 0 ? (n ? 0 : -1) : (int)n - 1;
		}
		if (leaf->idx >= 0)
			return 0;
	}
}

errcode_t e4_extent_next(e4_extent_handle *h)
{
	return step(h, 1);
}

errcode_t e4_extent_prev(e4_extent_handle *h)
{
	return step(h, -1);
}

/* ---- writing nodes and tree blocks ---------------------------------------- */
/* Set the tail checksum of tree block node and write it (cached). */
static errcode_t put_block(e4_extent_handle *h, e4_blk_t blk, uint8_t *node)
{
	e4_extent_tail_set(h->fs, h->ino, h->gen, node);
	return e4_io_write_blk(h->fs->io, blk, 1, node);
}

/* Level l changed: write it (the root is in the caller's inode image). */
static errcode_t node_write(e4_extent_handle *h, unsigned l)
{
	return l ? put_block(h, h->path[l].blk, h->path[l].node) : 0;
}

/* A goal for a new tree block: the extent the cursor stands on, else the
 * deepest tree block on the path, else the inode's group. */
static e4_blk_t tree_goal(e4_extent_handle *h)
{
	if (h->placed) {
		struct ext_level *leaf = &h->path[h->depth];

		if (leaf->idx >= 0) {
			struct e4_map_extent e;

			get_ext(leaf->node, (unsigned)leaf->idx, &e);
			return e.pblk;
		}
		for (unsigned l = h->depth; l > 0; l--)
			if (h->path[l].blk)
				return h->path[l].blk;
	}
	return e4_group_first_block(h->fs, e4_group_of_ino(h->fs, h->ino));
}

static errcode_t tree_block_new(e4_extent_handle *h, e4_blk_t *blk)
{
	uint64_t got;
	errcode_t err;

	err = e4_alloc_blocks(h->fs, tree_goal(h), 1, 1, blk, &got);
	if (!err)
		err = e4_extent_iblocks_add(h, (int64_t)1 << h->fs->geom.cluster_bits);
	return err;
}

static errcode_t tree_block_free(e4_extent_handle *h, e4_blk_t blk)
{
	uint64_t changed = 0;
	errcode_t err = e4_block_mark(h->fs, blk, 1, 0, &changed);

	if (err)
		return err;
	h->tree_freed += (uint64_t)1 << h->fs->geom.cluster_bits;
	err = e4_extent_iblocks_add(h, -((int64_t)1 << h->fs->geom.cluster_bits));
	/* A tree block already free: the map is not to be trusted. */
	if (!err && !changed)
		err = E4_ERR_CORRUPT;
	return err;
}

/* After the first entry of level l's node changed: the index keys above
 * it follow, up to the first parent entry that is not its node's first. */
static errcode_t fix_keys(e4_extent_handle *h, unsigned l)
{
	errcode_t err;

	for (; l > 0; l--) {
		struct ext_level *c = &h->path[l], *p = &h->path[l - 1];
		uint32_t k;

		if (!n_entries(c->node))
			break;
		k = key_of(c->node, 0);
		if (key_of(p->node, (unsigned)p->idx) == k)
			break;
		set_key(p->node, (unsigned)p->idx, k);
		c->lo = k;
		err = node_write(h, l - 1);
		if (err)
			return err;
		if (p->idx != 0)
			break;
	}
	return 0;
}

/* ---- growing: a new level, a split ---------------------------------------- */
/* The root is full: its entries move into a new tree block, the root
 * keeps one index entry for it and the tree is one level deeper. */
static errcode_t grow(e4_extent_handle *h)
{
	uint8_t *root = (uint8_t *)h->inode->i_block, *nn = h->bufs[0];
	unsigned n = n_entries(root), max = h->node_max > n ? h->node_max : n;
	e4_blk_t nb;
	errcode_t err;

	if (h->depth >= EXT4_MAX_EXTENT_DEPTH)
		return E4_ERR_EXTENT_TOO_DEEP;
	err = tree_block_new(h, &nb);
	if (err)
		return err;
	init_node(nn, h->fs->geom.block_size, max, h->depth);
	memcpy(ent(nn, 0), ent(root, 0), (size_t)n * ENT_SIZE);
	n_set_entries(nn, n);
	err = put_block(h, nb, nn);
	if (err)
		return err;
	memset(ent(root, 0), 0, (size_t)EXT_ROOT_CAPACITY * ENT_SIZE);
	put_idx(root, 0, n ? key_of(nn, 0) : 0, nb);
	n_set_entries(root, 1);
	h->depth++;
	hdr(root)->eh_depth = e4_cpu_to_le16((uint16_t)h->depth);
	h->placed = 0;
	return 0;
}

/*
 * Split the full node at level l (> 0; its parent has room), where an
 * entry is about to go in at position pos with first block key: a new
 * right sibling takes entries [s, n) and is entered in the parent after
 * the node.  s = n / 2, or at the end of the node (pos == n) s = n for a
 * leaf (the sibling starts empty; key is its index key) and n - 1 for an
 * index node (an index node is never empty).
 */
static errcode_t split(e4_extent_handle *h, unsigned l, unsigned pos, uint32_t key)
{
	struct ext_level *p = &h->path[l], *par = &h->path[l - 1];
	uint8_t *node = p->node, *nn = h->bufs[0];
	unsigned n = n_entries(node), pn = n_entries(par->node), pi = (unsigned)par->idx + 1;
	unsigned cap = e4_extent_node_capacity(h->fs), s, max;
	uint32_t nkey;
	e4_blk_t nb;
	errcode_t err;

	if (pos >= n)
		s = l == h->depth ? n : n - 1;
	else
		s = n / 2;
	nkey = s < n ? key_of(node, s) : key;
	max = h->node_max >= n - s + 1 ? h->node_max : cap;
	err = tree_block_new(h, &nb);
	if (err)
		return err;
	/* the new sibling first, then the parent names it, then the node
	 * gives up the entries it moved */
	init_node(nn, h->fs->geom.block_size, max, n_depth(node));
	memcpy(ent(nn, 0), ent(node, s), (size_t)(n - s) * ENT_SIZE);
	n_set_entries(nn, n - s);
	err = put_block(h, nb, nn);
	if (err)
		return err;
	memmove(ent(par->node, pi + 1), ent(par->node, pi), (size_t)(pn - pi) * ENT_SIZE);
	put_idx(par->node, pi, nkey, nb);
	n_set_entries(par->node, pn + 1);
	err = node_write(h, l - 1);
	if (err)
		return err;
	memset(ent(node, s), 0, (size_t)(n - s) * ENT_SIZE);
	n_set_entries(node, s);
	err = node_write(h, l);
	h->placed = 0;
	return err;
}

/* The leaf on the path is full and an entry with first block key goes in
 * at pos: split the topmost full node below a non-full one, or grow. */
static errcode_t make_room(e4_extent_handle *h, unsigned pos, uint32_t key)
{
	unsigned l = h->depth;

	while (l > 0 && n_entries(h->path[l - 1].node) >= n_max(h->path[l - 1].node))
		l--;
	if (l == 0)
		return grow(h);
	return split(h, l, l == h->depth ? pos : (unsigned)h->path[l].idx + 1, key);
}

/* ---- insert, replace, delete --------------------------------------------- */
static errcode_t check_ext(e4_extent_handle *h, const struct e4_map_extent *e)
{
	const struct e4_geom *g = &h->fs->geom;
	uint32_t max = (e->flags & E4_MAP_UNWRITTEN) ? EXT_UNWRITTEN_MAX_LEN : EXT_INIT_MAX_LEN;

	if (e->flags & ~(unsigned)E4_MAP_UNWRITTEN)
		return E4_ERR_INVALID_ARGUMENT;
	if (!e->len || e->len > max || e->lblk >= EXT_LBLK_LIMIT ||
	    e->len > EXT_LBLK_LIMIT - e->lblk)
		return E4_ERR_INVALID_ARGUMENT;
	if (e->pblk == 0 || e->pblk < g->first_data_block || e->pblk >= g->blocks_count ||
	    e->len > g->blocks_count - e->pblk)
		return E4_ERR_INVALID_ARGUMENT;
	return 0;
}

/* Position the path for e (the leaf it belongs in, with room for it) and
 * return its position there; overlaps with the entries before and after
 * are refused. */
static errcode_t place_for(e4_extent_handle *h, const struct e4_map_extent *e, unsigned *pos)
{
	errcode_t err;

	for (;;) {
		struct ext_level *leaf;
		unsigned n, p;

		err = e4_extent_goto(h, e->lblk);
		if (err && err != E4_ERR_EXTENT_NOT_FOUND)
			return err;
		leaf = &h->path[h->depth];
		n = n_entries(leaf->node);
		p = upto(leaf->node, e->lblk);
		if (p > 0) {
			struct e4_map_extent prev;

			get_ext(leaf->node, p - 1, &prev);
			if (prev.lblk + prev.len > e->lblk)
				return E4_ERR_EXTENT_OVERLAP;
		}
		if (e->lblk + e->len > (p < n ? key_of(leaf->node, p) : leaf->hi))
			return E4_ERR_EXTENT_OVERLAP;
		if (n < n_max(leaf->node)) {
			*pos = p;
			return 0;
		}
		err = make_room(h, p, (uint32_t)e->lblk);
		if (err)
			return err;
	}
}

static errcode_t insert(e4_extent_handle *h, const struct e4_map_extent *e)
{
	struct ext_level *leaf;
	unsigned pos, n;
	errcode_t err;

	err = writable(h);
	if (!err)
		err = check_ext(h, e);
	if (!err)
		err = place_for(h, e, &pos);
	if (err)
		return err;
	leaf = &h->path[h->depth];
	n = n_entries(leaf->node);
	memmove(ent(leaf->node, pos + 1), ent(leaf->node, pos), (size_t)(n - pos) * ENT_SIZE);
	put_ext(leaf->node, pos, e);
	n_set_entries(leaf->node, n + 1);
	leaf->idx = (int)pos;
	err = node_write(h, h->depth);
	if (!err && pos == 0)
		err = fix_keys(h, h->depth);
	if (!err)
		err = account(h, e->len);
	return err;
}

errcode_t e4_extent_insert(e4_extent_handle *h, const struct e4_map_extent *ext)
{
	if (h->fs->geom.cluster_bits)
		return E4_ERR_UNSUPPORTED;
	return insert(h, ext);
}

errcode_t e4_extent_insert_any(e4_extent_handle *h, const struct e4_map_extent *ext)
{
	return insert(h, ext);
}

errcode_t e4_extent_reserve(e4_extent_handle *h, uint64_t lblk)
{
	errcode_t err;

	for (;;) {
		struct ext_level *leaf;

		err = e4_extent_goto(h, lblk);
		if (err && err != E4_ERR_EXTENT_NOT_FOUND)
			return err;
		leaf = &h->path[h->depth];
		if (n_entries(leaf->node) < n_max(leaf->node))
			return 0;
		/* position 0: a leaf is split in halves, never left empty */
		err = make_room(h, 0, (uint32_t)lblk);
		if (err)
			return err;
	}
}

/* Does e fit between the current entry's neighbours? */
static errcode_t check_neighbours(e4_extent_handle *h, const struct e4_map_extent *e)
{
	struct ext_level *leaf = &h->path[h->depth];
	unsigned i = (unsigned)leaf->idx, n = n_entries(leaf->node);
	uint64_t next = i + 1 < n ? key_of(leaf->node, i + 1) : leaf->hi;
	struct e4_map_extent cur, prev;
	errcode_t err;

	if (e->lblk + e->len > next)
		return E4_ERR_EXTENT_OVERLAP;
	if (i > 0) {
		get_ext(leaf->node, i - 1, &prev);
		return prev.lblk + prev.len > e->lblk ? E4_ERR_EXTENT_OVERLAP : 0;
	}
	if (h->depth == 0 || e->lblk >= leaf->lo)
		return 0;
	/* moving the first entry of a leaf before its key: the extent before
	 * it lives in another leaf */
	get_ext(leaf->node, i, &cur);
	err = step(h, -1);
	if (err == E4_ERR_EXTENT_NO_PREV)
		return 0;
	if (err)
		return err;
	get_ext(h->path[h->depth].node, (unsigned)h->path[h->depth].idx, &prev);
	err = e4_extent_goto(h, cur.lblk);
	if (err)
		return err;
	return prev.lblk + prev.len > e->lblk ? E4_ERR_EXTENT_OVERLAP : 0;
}

static errcode_t replace(e4_extent_handle *h, const struct e4_map_extent *e, int check)
{
	struct ext_level *leaf = &h->path[h->depth];
	struct e4_map_extent old;
	errcode_t err;

	err = writable(h);
	if (!err)
		err = check_ext(h, e);
	if (err)
		return err;
	if (!h->placed || leaf->idx < 0)
		return E4_ERR_EXTENT_NOT_FOUND;
	if (check) {
		err = check_neighbours(h, e);
		if (err)
			return err;
	}
	get_ext(leaf->node, (unsigned)leaf->idx, &old);
	put_ext(leaf->node, (unsigned)leaf->idx, e);
	err = node_write(h, h->depth);
	if (!err && leaf->idx == 0)
		err = fix_keys(h, h->depth);
	if (!err)
		err = account(h, (int64_t)e->len - (int64_t)old.len);
	return err;
}

errcode_t e4_extent_replace(e4_extent_handle *h, const struct e4_map_extent *ext)
{
	if (h->fs->geom.cluster_bits)
		return E4_ERR_UNSUPPORTED;
	return replace(h, ext, 1);
}

errcode_t e4_extent_replace_nocheck(e4_extent_handle *h, const struct e4_map_extent *ext)
{
	return replace(h, ext, 0);
}

errcode_t e4_extent_delete(e4_extent_handle *h)
{
	unsigned d = h->depth, l = d, i, nfree = 0;
	e4_blk_t freed[EXT4_MAX_EXTENT_DEPTH];
	struct e4_map_extent old;
	errcode_t err;

	err = writable(h);
	if (err)
		return err;
	if (!h->placed || h->path[d].idx < 0)
		return E4_ERR_EXTENT_NOT_FOUND;
	get_ext(h->path[d].node, (unsigned)h->path[d].idx, &old);
	/* remove the entry; a node left empty is removed from its parent */
	i = (unsigned)h->path[d].idx;
	for (;;) {
		uint8_t *node = h->path[l].node;
		unsigned n = n_entries(node);

		memmove(ent(node, i), ent(node, i + 1), (size_t)(n - i - 1) * ENT_SIZE);
		memset(ent(node, n - 1), 0, ENT_SIZE);
		n_set_entries(node, n - 1);
		if (n - 1 > 0 || l == 0)
			break;
		freed[nfree++] = h->path[l].blk;
		l--;
		i = (unsigned)h->path[l].idx;
	}
	if (l == 0 && n_entries(h->path[0].node) == 0 && d > 0) {
		/* nothing left: an empty root leaf */
		hdr(h->path[0].node)->eh_depth = 0;
		h->depth = 0;
	}
	/* the parent loses the entry before the emptied nodes are freed */
	err = node_write(h, l);
	if (!err && i == 0 && n_entries(h->path[l].node) > 0)
		err = fix_keys(h, l);
	for (unsigned k = 0; !err && k < nfree; k++)
		err = tree_block_free(h, freed[k]);
	if (!err)
		err = account(h, -(int64_t)old.len);
	h->placed = 0;
	if (!err) {
		err = e4_extent_goto(h, old.lblk);
		if (err == E4_ERR_EXTENT_NOT_FOUND)
			err = 0;
	}
	return err;
}

errcode_t e4_extent_merge_up(e4_extent_handle *h)
{
	uint8_t *root = (uint8_t *)h->inode->i_block;
	errcode_t err;

	while (h->depth > 0 && n_entries(root) == 1) {
		uint8_t *child;
		unsigned cn;
		e4_blk_t blk;

		err = e4_extent_goto(h, key_of(root, 0));
		if (err && err != E4_ERR_EXTENT_NOT_FOUND)
			return err;
		child = h->path[1].node;
		cn = n_entries(child);
		if (cn > EXT_ROOT_CAPACITY)
			break;
		blk = h->path[1].blk;
		memset(ent(root, 0), 0, (size_t)EXT_ROOT_CAPACITY * ENT_SIZE);
		memcpy(ent(root, 0), ent(child, 0), (size_t)cn * ENT_SIZE);
		n_set_entries(root, cn);
		hdr(root)->eh_depth = hdr(child)->eh_depth;
		h->depth--;
		h->placed = 0;
		err = tree_block_free(h, blk);
		if (err)
			return err;
	}
	return 0;
}
