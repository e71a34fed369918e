/*
 * extent.c: extent trees (format doc section 7.2).
 *
 * The root node lives in i_block (capacity 4 entries), every other node
 * in one block (capacity (bs - 12) / 12, then a 4-byte checksum tail when
 * metadata_csum is set).  Every node is checked before it is used: magic,
 * eh_max within capacity, eh_entries <= eh_max, depth one less than the
 * parent's, non-empty index nodes, and entries sorted, non-overlapping and
 * inside the logical range the parent gives the node.  Physical block
 * numbers are checked when an entry is used, so one bad extent does not
 * hide the rest of its leaf from a lookup.
 */
#include <stdlib.h>
#include <string.h>

#include "e4_private.h"
#include "extent_int.h"

static inline const struct ext4_extent_idx *node_idx(const void *node)
{
	return (const struct ext4_extent_idx *)((const uint8_t *)node +
						sizeof(struct ext4_extent_header));
}

static inline const struct ext4_extent *node_ext(const void *node)
{
	return (const struct ext4_extent *)((const uint8_t *)node +
					    sizeof(struct ext4_extent_header));
}

/* How many of n entries (leaf extents or index entries: both 12 bytes,
 * the first logical block in the first 4, little-endian) start at or
 * before lblk: the last such is entry [result - 1].  Entries are sorted. */
static unsigned entries_upto(const void *first, unsigned n, uint64_t lblk)
{
	const uint8_t *p = first;
	unsigned a = 0, b = n;

	_Static_assert(sizeof(struct ext4_extent) == 12 && sizeof(struct ext4_extent_idx) == 12,
		       "extent entries are 12 bytes");
	while (a < b) {
		unsigned m = a + (b - a) / 2;

		if (e4_get_le32(p + (size_t)m * 12) <= lblk)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* Length in blocks of a leaf entry; *unwritten set for uninitialised ones. */
static inline unsigned ext_len(const struct ext4_extent *ex, int *unwritten)
{
	unsigned l = e4_le16(ex->ee_len);

	*unwritten = l > EXT_INIT_MAX_LEN;
	return *unwritten ? l - EXT_INIT_MAX_LEN : l;
}

static inline e4_blk_t ext_pblk(const struct ext4_extent *ex)
{
	return (e4_blk_t)e4_le32(ex->ee_start_lo) |
	       (e4_blk_t)e4_le16(ex->ee_start_hi) << 32;
}

static inline e4_blk_t idx_pblk(const struct ext4_extent_idx *ix)
{
	return (e4_blk_t)e4_le32(ix->ei_leaf_lo) |
	       (e4_blk_t)e4_le16(ix->ei_leaf_hi) << 32;
}

static inline unsigned node_capacity(e4_fs *fs)
{
	return (fs->geom.block_size - sizeof(struct ext4_extent_header)) /
	       sizeof(struct ext4_extent);
}

/*
 * Header checks.  want_depth < 0: this is the root (depth only bounded by
 * EXT4_MAX_EXTENT_DEPTH); otherwise eh_depth must equal want_depth.
 */
static errcode_t check_header(const void *node, unsigned capacity, int want_depth)
{
	const struct ext4_extent_header *eh = node;
	unsigned entries = e4_le16(eh->eh_entries);
	unsigned max = e4_le16(eh->eh_max);
	unsigned depth = e4_le16(eh->eh_depth);

	if (e4_le16(eh->eh_magic) != EXT4_EXT_MAGIC)
		return E4_ERR_EXTENT_HEADER;
	if (max == 0 || max > capacity || entries > max)
		return E4_ERR_EXTENT_HEADER;
	if (want_depth < 0) {
		if (depth > EXT4_MAX_EXTENT_DEPTH)
			return E4_ERR_EXTENT_TOO_DEEP;
	} else if (depth != (unsigned)want_depth) {
		return E4_ERR_EXTENT_HEADER;
	}
	/* An index node must point somewhere; an empty leaf is legal. */
	if (depth > 0 && entries == 0)
		return E4_ERR_EXTENT_HEADER;
	return 0;
}

/*
 * Entry checks: sorted, non-overlapping and inside [lo, hi), the logical
 * range the parent index entry assigns to this node.
 */
static errcode_t check_entries(const void *node, uint64_t lo, uint64_t hi)
{
	const struct ext4_extent_header *eh = node;
	unsigned entries = e4_le16(eh->eh_entries);
	unsigned i;

	if (e4_le16(eh->eh_depth) > 0) {
		const struct ext4_extent_idx *ix = node_idx(node);
		uint64_t prev = 0;

		for (i = 0; i < entries; i++) {
			uint64_t b = e4_le32(ix[i].ei_block);

			if (b < lo || b >= hi || (i > 0 && b <= prev))
				return E4_ERR_EXTENT_ORDER;
			prev = b;
		}
	} else {
		const struct ext4_extent *ex = node_ext(node);
		uint64_t end = lo;

		for (i = 0; i < entries; i++) {
			uint64_t start = e4_le32(ex[i].ee_block);
			int unwritten;
			unsigned len = ext_len(&ex[i], &unwritten);

			if (len == 0)
				return E4_ERR_EXTENT_ZERO_LEN;
			if (start < end)
				return E4_ERR_EXTENT_ORDER;
			end = start + len;
			if (end > EXT_LBLK_LIMIT)
				return E4_ERR_FILE_TOO_BIG;
			if (end > hi)
				return E4_ERR_EXTENT_ORDER;
		}
	}
	return 0;
}

/* Checks a data extent's physical range against the filesystem. */
static errcode_t check_ext_pblk(e4_fs *fs, const struct ext4_extent *ex)
{
	int unwritten;
	e4_blk_t p = ext_pblk(ex);
	unsigned len = ext_len(ex, &unwritten);

	if (p == 0 || p >= fs->geom.blocks_count ||
	    len > fs->geom.blocks_count - p)
		return E4_ERR_BAD_BLOCK_NUM;
	return 0;
}

/*
 * Read the tree block blk into buf and check its header (and, with
 * verify_csum, its checksum) as a node of depth want_depth; its entries
 * are not checked.
 */
static errcode_t read_node_header(e4_fs *fs, e4_ino_t ino, uint32_t gen, e4_blk_t blk,
				  void *buf, int want_depth, int verify_csum)
{
	const struct ext4_extent_header *eh = buf;
	errcode_t err;

	if (blk == 0 || blk <= fs->geom.first_data_block ||
	    blk >= fs->geom.blocks_count)
		return E4_ERR_BAD_BLOCK_NUM;
	err = e4_read_block(fs, blk, buf);
	if (err)
		return err;
	err = check_header(buf, node_capacity(fs), want_depth);
	if (err)
		return err;
	if (verify_csum && fs->geom.metadata_csum && !e4_ignore_csum(fs)) {
		const struct ext4_extent_tail *t = (const struct ext4_extent_tail *)
			((const uint8_t *)buf + sizeof(*eh) +
			 sizeof(struct ext4_extent) * e4_le16(eh->eh_max));

		if (e4_le32(t->et_checksum) != e4_extent_block_csum(fs, ino, gen, buf))
			return E4_ERR_EXTENT_CSUM;
	}
	return 0;
}

/* read_node_header, then the entries: sorted, inside [lo, hi). */
static errcode_t read_node(e4_fs *fs, e4_ino_t ino, uint32_t gen, e4_blk_t blk,
			   void *buf, int want_depth, uint64_t lo, uint64_t hi)
{
	errcode_t err = read_node_header(fs, ino, gen, blk, buf, want_depth, 1);

	return err ? err : check_entries(buf, lo, hi);
}

static errcode_t check_root(const struct ext4_inode *inode)
{
	errcode_t err = check_header(inode->i_block, EXT_ROOT_CAPACITY, -1);

	if (err)
		return err;
	return check_entries(inode->i_block, 0, EXT_LBLK_LIMIT);
}

errcode_t e4_extent_node_read(e4_fs *fs, e4_ino_t ino, uint32_t gen, e4_blk_t blk, void *buf,
			      int want_depth, uint64_t lo, uint64_t hi, int verify_csum)
{
	errcode_t err = read_node_header(fs, ino, gen, blk, buf, want_depth, verify_csum);

	return err ? err : check_entries(buf, lo, hi);
}

errcode_t e4_extent_root_check(const struct ext4_inode *inode)
{
	return check_root(inode);
}

unsigned e4_extent_node_capacity(e4_fs *fs)
{
	return node_capacity(fs);
}

errcode_t e4_extent_lookup(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			   uint64_t lblk, e4_blk_t *pblk, uint64_t *len, unsigned *flags)
{
	uint32_t gen = e4_le32(inode->i_generation);
	const void *node = inode->i_block;
	uint64_t lo = 0, hi = EXT_LBLK_LIMIT;
	uint8_t *buf = NULL;
	errcode_t err;
	int level;

	*pblk = 0;
	*len = UINT64_MAX;
	*flags = 0;
	if (lblk >= EXT_LBLK_LIMIT)
		return E4_ERR_FILE_TOO_BIG;
	err = check_root(inode);
	if (err)
		return err;

	/* Depth strictly decreases, so this runs at most depth + 1 times. */
	for (level = 0; level <= EXT4_MAX_EXTENT_DEPTH; level++) {
		const struct ext4_extent_header *eh = node;
		unsigned entries = e4_le16(eh->eh_entries);
		unsigned depth = e4_le16(eh->eh_depth);
		unsigned a;

		if (depth == 0) {
			const struct ext4_extent *ex = node_ext(node);
			uint64_t next;

			/* Last extent starting at or before lblk. */
			a = entries_upto(ex, entries, lblk);
			if (a > 0) {
				const struct ext4_extent *e = &ex[a - 1];
				uint64_t start = e4_le32(e->ee_block);
				int unwritten;
				unsigned elen = ext_len(e, &unwritten);

				if (lblk < start + elen) {
					err = check_ext_pblk(fs, e);
					if (err)
						goto out;
					*pblk = ext_pblk(e) + (lblk - start);
					*len = start + elen - lblk;
					*flags = unwritten ? E4_MAP_UNWRITTEN : 0;
					goto out;
				}
			}
			next = a < entries ? e4_le32(ex[a].ee_block) : hi;
			*len = next >= EXT_LBLK_LIMIT ? UINT64_MAX : next - lblk;
			goto out;
		}

		/* Index node: last entry starting at or before lblk. */
		{
			const struct ext4_extent_idx *ix = node_idx(node);
			e4_blk_t child;

			a = entries_upto(ix, entries, lblk);
			if (a == 0) {
				/* Before the first subtree: a hole up to it. */
				*len = e4_le32(ix[0].ei_block) - lblk;
				goto out;
			}
			lo = e4_le32(ix[a - 1].ei_block);
			if (a < entries)
				hi = e4_le32(ix[a].ei_block);
			child = idx_pblk(&ix[a - 1]);
			if (!buf) {
				buf = malloc(fs->geom.block_size);
				if (!buf)
					return E4_ERR_NO_MEMORY;
			}
			err = read_node(fs, ino, gen, child, buf, (int)depth - 1, lo, hi);
			if (err)
				goto out;
			node = buf;
		}
	}
	err = E4_ERR_EXTENT_TOO_DEEP;	/* not reached: depths are checked */
out:
	free(buf);
	return err;
}

struct ext_walk {
	e4_fs *fs;
	e4_ino_t ino;
	uint32_t gen;
	unsigned flags;
	e4_map_cb cb;
	void *priv;
	uint8_t *bufs[EXT4_MAX_EXTENT_DEPTH];
	uint64_t nodes;		/* tree blocks visited so far */
	errcode_t first_err;	/* E4_ITER_AS_STORED: damage passed over */
};

/* E4_ITER_AS_STORED: remember err and go on (1); otherwise stop (0). */
static int pass_over(struct ext_walk *w, errcode_t err)
{
	return e4_iter_pass_over(w->flags, &w->first_err, err);
}

/*
 * Walk node (already checked) and its subtrees; level is the depth of the
 * node's children below the root (0 for the root's children).
 */
static errcode_t walk_node(struct ext_walk *w, const void *node, int level,
			   uint64_t hi)
{
	const struct ext4_extent_header *eh = node;
	unsigned entries = e4_le16(eh->eh_entries);
	unsigned depth = e4_le16(eh->eh_depth);
	struct e4_map_extent me;
	errcode_t err;
	unsigned i;
	int ret;

	if (depth == 0) {
		const struct ext4_extent *ex = node_ext(node);

		for (i = 0; i < entries; i++) {
			int unwritten;

			me.len = ext_len(&ex[i], &unwritten);
			if (!me.len)
				continue;	/* as stored: maps nothing */
			err = check_ext_pblk(w->fs, &ex[i]);
			if (err && !pass_over(w, err))
				return err;
			me.lblk = e4_le32(ex[i].ee_block);
			me.pblk = ext_pblk(&ex[i]);
			me.flags = unwritten ? E4_MAP_UNWRITTEN : 0;
			me.level = level;
			ret = w->cb(w->fs, &me, w->priv);
			if (ret)
				return ret;
		}
		return 0;
	}

	if (level >= EXT4_MAX_EXTENT_DEPTH)
		return E4_ERR_EXTENT_TOO_DEEP;
	for (i = 0; i < entries; i++) {
		const struct ext4_extent_idx *ix = node_idx(node);
		uint64_t clo = e4_le32(ix[i].ei_block);
		uint64_t chi = i + 1 < entries ? e4_le32(ix[i + 1].ei_block) : hi;
		e4_blk_t child = idx_pblk(&ix[i]);
		uint8_t *buf = w->bufs[level];

		/* Distinct tree blocks cannot outnumber the filesystem's. */
		if (++w->nodes > w->fs->geom.blocks_count)
			return E4_ERR_LOOP;
		err = read_node_header(w->fs, w->ino, w->gen, child, buf, (int)depth - 1,
				       !(w->flags & E4_ITER_NOCSUM));
		if (err && !pass_over(w, err))
			return err;
		if (!err) {
			/* as stored, entries out of place are walked anyway */
			errcode_t order = check_entries(buf, clo, chi);

			if (order && !pass_over(w, order))
				return order;
		}
		/* a node that cannot be used is reported, not walked */
		if (w->flags & E4_ITER_META) {
			me.lblk = clo;
			me.pblk = child;
			me.len = 1;
			me.flags = E4_MAP_META;
			me.level = level;
			ret = w->cb(w->fs, &me, w->priv);
			if (ret)
				return ret;
		}
		if (err)
			continue;
		/* buf (this level's) is reused by the next sibling; node
		 * itself lives one level up and stays intact. */
		err = walk_node(w, buf, level + 1, chi);
		if (err)
			return err;
	}
	return 0;
}

errcode_t e4_extent_walk(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			 unsigned flags, e4_map_cb cb, void *priv)
{
	struct ext_walk w;
	unsigned depth;
	errcode_t err;
	unsigned i;

	memset(&w, 0, sizeof(w));
	w.flags = flags;
	err = check_header(inode->i_block, EXT_ROOT_CAPACITY, -1);
	if (!err) {
		err = check_entries(inode->i_block, 0, EXT_LBLK_LIMIT);
		if (err && pass_over(&w, err))
			err = 0;
	}
	if (err)
		return err;
	w.fs = fs;
	w.ino = ino;
	w.gen = e4_le32(inode->i_generation);
	w.cb = cb;
	w.priv = priv;
	depth = e4_le16(((const struct ext4_extent_header *)inode->i_block)->eh_depth);
	for (i = 0; i < depth; i++) {
		w.bufs[i] = malloc(fs->geom.block_size);
		if (!w.bufs[i]) {
			err = E4_ERR_NO_MEMORY;
			goto out;
		}
	}
	err = walk_node(&w, inode->i_block, 0, EXT_LBLK_LIMIT);
	if (!err)
		err = w.first_err;
out:
	for (i = 0; i < EXT4_MAX_EXTENT_DEPTH; i++)
		free(w.bufs[i]);
	return err;
}

/* ---- entry-by-entry walk (e4_extent_entries) -------------------------- */
struct ext_entries {
	e4_fs *fs;
	e4_ino_t ino;
	uint32_t gen;
	int max_level;
	e4_extent_entry_cb cb;
	void *priv;
	uint8_t *bufs[EXT4_MAX_EXTENT_DEPTH];
	uint64_t nodes;
};

/* Report node's entries (node at tree level `level`, 0 = root) and descend
 * into each index entry's child.  end: the logical end the parent gives
 * the node's last entry. */
static errcode_t entries_node(struct ext_entries *w, const void *node, int level,
			      uint64_t end)
{
	const struct ext4_extent_header *eh = node;
	unsigned entries = e4_le16(eh->eh_entries);
	unsigned depth = e4_le16(eh->eh_depth);
	struct e4_extent_entry e;
	errcode_t err;
	unsigned i;
	int ret;

	memset(&e, 0, sizeof(e));
	e.level = level;
	e.max_level = w->max_level;
	e.entries = entries;
	for (i = 0; i < entries; i++) {
		e.index = i;
		if (depth == 0) {
			const struct ext4_extent *ex = &node_ext(node)[i];
			int unwritten;

			e.is_leaf = 1;
			e.lblk = e4_le32(ex->ee_block);
			e.pblk = ext_pblk(ex);
			e.len = ext_len(ex, &unwritten);
			e.unwritten = unwritten;
			ret = w->cb(w->fs, &e, w->priv);
			if (ret)
				return ret;
			continue;
		} else {
			const struct ext4_extent_idx *ix = node_idx(node);
			uint64_t next = i + 1 < entries ? e4_le32(ix[i + 1].ei_block) : end;
			uint8_t *buf;

			e.is_leaf = 0;
			e.lblk = e4_le32(ix[i].ei_block);
			e.pblk = idx_pblk(&ix[i]);
			e.len = (uint32_t)(next - e.lblk);
			ret = w->cb(w->fs, &e, w->priv);
			if (ret)
				return ret;
			if (level + 1 >= EXT4_MAX_EXTENT_DEPTH || level + 1 > w->max_level)
				return E4_ERR_EXTENT_TOO_DEEP;
			if (++w->nodes > w->fs->geom.blocks_count)
				return E4_ERR_LOOP;
			if (e.pblk <= w->fs->geom.first_data_block ||
			    e.pblk >= w->fs->geom.blocks_count)
				return E4_ERR_BAD_BLOCK_NUM;
			buf = w->bufs[level];
			err = e4_read_block(w->fs, e.pblk, buf);
			if (err)
				return err;
			err = check_header(buf, node_capacity(w->fs), (int)depth - 1);
			if (err)
				return err;
			if (w->fs->geom.metadata_csum && !e4_ignore_csum(w->fs)) {
				const struct ext4_extent_tail *t = (const struct ext4_extent_tail *)
					(buf + sizeof(*eh) + sizeof(struct ext4_extent) *
					 e4_le16(((const struct ext4_extent_header *)buf)->eh_max));

				if (e4_le32(t->et_checksum) !=
				    e4_extent_block_csum(w->fs, w->ino, w->gen, buf))
					return E4_ERR_EXTENT_CSUM;
			}
			err = entries_node(w, buf, level + 1, next);
			if (err)
				return err;
		}
	}
	return 0;
}

errcode_t e4_extent_entries(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			    e4_extent_entry_cb cb, void *priv)
{
	struct ext_entries w;
	errcode_t err;
	unsigned i;

	if (!(e4_le32(inode->i_flags) & EXT4_EXTENTS_FL))
		return E4_ERR_EXTENT_HEADER;
	err = check_header(inode->i_block, EXT_ROOT_CAPACITY, -1);
	if (err)
		return err;
	memset(&w, 0, sizeof(w));
	w.fs = fs;
	w.ino = ino;
	w.gen = e4_le32(inode->i_generation);
	w.max_level = e4_le16(((const struct ext4_extent_header *)inode->i_block)->eh_depth);
	w.cb = cb;
	w.priv = priv;
	for (i = 0; i < (unsigned)w.max_level; i++) {
		w.bufs[i] = malloc(fs->geom.block_size);
		if (!w.bufs[i]) {
			err = E4_ERR_NO_MEMORY;
			goto out;
		}
	}
	err = entries_node(&w, inode->i_block, 0,
			   (e4_inode_size(inode) + fs->geom.block_size - 1) / fs->geom.block_size);
out:
	for (i = 0; i < EXT4_MAX_EXTENT_DEPTH; i++)
		free(w.bufs[i]);
	return err;
}
