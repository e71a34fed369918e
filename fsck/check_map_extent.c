/*
 * check_map_extent.c: one inode's extent tree, judged node by node and
 * entry by entry (check_map.h; format doc section 7.2).
 *
 * Nodes are read as stored (the checksum is checked here, not by the
 * reader) and a bad node never stops the walk over its siblings.  The
 * logical order is the authority: every extent must start at or after the
 * end of the one kept before it (c->prev_end) and below the bound its
 * ancestors give it (the next index key, or the next sibling node's own
 * first key when that node is readable: a key that is too low does not cut
 * the extents of the node before it).  Index keys are derived: after a
 * child is checked its key becomes the child's first logical block.
 *
 * Repairs (a yes): an entry is dropped with e4_extent_node_remove() on
 * the node image (the root in i_block, or a tree block written back with a
 * fresh checksum once its children are done); a node left empty is freed
 * with its index entry; keys, eh_max and checksums are rewritten.  What was
 * claimed below a dropped entry is unclaimed.
 *
 * What could be recovered is not discarded (the project rule): a root
 * whose magic is damaged over entries that read as extents for its
 * eh_max/depth gets its header rebuilt before any block-map reading; a
 * root counting past its 4 slots keeps its valid prefix, the stale slots
 * named in one row; a tree block failing its checksum gets back the
 * eh_entries its checksum matches, and its rewrite is refused by -y
 * (PR_DESTRUCTIVE with pctx.recoverable) while slots past eh_entries
 * still continue the entries; a zero-length extent over blocks inside the
 * filesystem with a length implied after it is left by -y (a hole cannot
 * be told from a longer extent, so the length is not guessed).  None of
 * these is preen's to do.
 */
#include <stdio.h>
#include <string.h>

#include "check_map_int.h"

#define LBLK_LIMIT	(1ULL << 32)	/* ee_block is 32 bits */

static const char *fault_name(enum e4_extent_node_fault f)
{
	switch (f) {
	case E4_XNODE_MAGIC: return "bad magic";
	case E4_XNODE_ENTRIES: return "more entries than it holds";
	case E4_XNODE_DEPTH: return "bad depth";
	case E4_XNODE_MAX: return "bad eh_max";
	default: return "sound";
	}
}

int cm_root_plausible(const struct ext4_inode *inode)
{
	enum e4_extent_node_fault f = e4_extent_node_fault(inode->i_block, 4, -1);

	return f == E4_XNODE_OK || f == E4_XNODE_MAX;
}

/* Where the data of a zero-length leaf entry i would end: the next
 * entry's start, else the bound hi or the size (in blocks), whichever is
 * lower. */
static uint64_t zero_implied_end(const struct cm *c, const void *node, unsigned i, uint64_t hi)
{
	struct e4_extent_node_head h;
	struct e4_extent_raw next;
	uint64_t size_blks = (e4_inode_size(c->inode) + c->bs - 1) / c->bs;

	e4_extent_node_head(node, &h);
	if (i + 1 < h.entries) {
		e4_extent_node_entry(node, i + 1, &next);
		return next.lblk;
	}
	return size_blks < hi ? size_blks : hi;
}

/* 1 if slot i of node, read as an entry of depth `depth`, continues the
 * entries before it plausibly: a leaf extent not empty, after the end of
 * *prev_end, inside the filesystem and below 2^32; an index entry above
 * the key before it, its child inside the filesystem.  *prev_end moves
 * on. */
static int slot_plausible(const struct cm *c, const void *node, unsigned i, unsigned depth,
			  uint64_t *prev_end)
{
	struct e4_extent_raw e;

	e4_extent_node_entry(node, i, &e);
	if (!depth) {
		if (!e.len || e.lblk < *prev_end || !cm_in_fs(c, e.pblk, e.len) ||
		    (uint64_t)e.lblk + e.len > LBLK_LIMIT - 1)
			return 0;
		*prev_end = (uint64_t)e.lblk + e.len;
		return 1;
	}
	if ((i && e.lblk < *prev_end) || !cm_in_fs(c, e.pblk, 1))
		return 0;
	*prev_end = (uint64_t)e.lblk + 1;
	return 1;
}

/* A leaf entry; dirty set when the entry was changed in place. */
static enum cm_verdict leaf_entry(struct cm *c, void *node, unsigned i, uint64_t hi, int *dirty)
{
	struct e4_extent_raw e;
	struct problem_ctx p = { 0 };
	uint64_t end;

	e4_extent_node_entry(node, i, &e);
	end = (uint64_t)e.lblk + e.len;
	p.num = e.lblk;
	p.blk = e.pblk;
	p.num2 = e.len;
	if (e.len == 0) {
		/* Its data may still be there: what follows it (the next
		 * extent's start, or the size) implies a length, but a hole
		 * cannot be told from a longer extent, so it is not guessed;
		 * dropping it would let pass 5 free the data. */
		if (cm_in_fs(c, e.pblk, 1) && zero_implied_end(c, node, i, hi) > e.lblk)
			p.recoverable = "the next extent's start or the size implies its "
					"length and its first block lies inside the filesystem";
		return cm_ask(c, PR_1_MAP_EXTENT_ZERO, &p) ? CM_DROP : CM_SKIP;
	}
	if (!cm_in_fs(c, e.pblk, e.len))
		return cm_ask(c, PR_1_MAP_EXTENT_RANGE, &p) ? CM_DROP : CM_SKIP;
	if (end > LBLK_LIMIT - 1)
		return cm_ask(c, PR_1_MAP_EXTENT_LBLK, &p) ? CM_DROP : CM_SKIP;
	if (e.lblk < c->prev_end) {
		p.blkcount = c->prev_end;
		return cm_ask(c, PR_1_MAP_EXTENT_ORDER, &p) ? CM_DROP : CM_SKIP;
	}
	p.blkcount = hi;
	if (e.lblk >= hi)
		return cm_ask(c, PR_1_MAP_EXTENT_START_KEY, &p) ? CM_DROP : CM_SKIP;
	if (end > hi && cm_ask(c, PR_1_MAP_EXTENT_END_KEY, &p)) {
		/* the blocks past the key are not claimed: pass 5 frees them */
		e.len = (unsigned)(hi - e.lblk);
		end = hi;
		e4_extent_node_set_entry(node, i, &e);
		*dirty = 1;
	}
	if (c->is_dir && e.unwritten && cm_ask(c, PR_1_MAP_UNWRITTEN_DIR, &p)) {
		e.unwritten = 0;
		e4_extent_node_set_entry(node, i, &e);
		*dirty = 1;
	}
	if (cm_claim(c, e.pblk, e.len, 0) == CLAIM_META)
		return cm_ask(c, PR_1_MAP_EXTENT_IN_META, &p) ? CM_DROP : CM_SKIP;
	c->prev_end = end;
	cm_note_end(c, end, e.unwritten);
	return CM_KEEP;
}

/* The first logical block of the node at blk as stored, when its header
 * is sound and it has entries (the bound for the sibling before it). */
static int peek_first(struct cm *c, e4_blk_t blk, int depth, uint64_t *first)
{
	struct e4_extent_node_head h;
	struct e4_extent_raw e;

	if (!cm_in_fs(c, blk, 1) || e4_io_read_blk(e4_fs_io(c->fs), blk, 1, c->peek))
		return 0;
	e4_extent_node_head(c->peek, &h);
	if (e4_extent_node_fault(c->peek, e4_extent_node_cap(c->fs, 0), depth) != E4_XNODE_OK ||
	    !h.entries)
		return 0;
	e4_extent_node_entry(c->peek, 0, &e);
	*first = e.lblk;
	return 1;
}

static errcode_t scan_node(struct cm *c, void *node, unsigned level, uint64_t hi, int *dirty);

/* The logical bound of index entry i's subtree, below hi: where the next
 * entry's node starts (its own first key when it is readable, so a key
 * that is too low cuts nothing), else the next key; a next entry that is
 * itself implausible (a key not above this one, a child outside the
 * filesystem) bounds nothing: it is judged on its own. */
static uint64_t next_bound(struct cm *c, const void *node, unsigned i, uint64_t hi)
{
	struct e4_extent_node_head h;
	struct e4_extent_raw cur, next;
	uint64_t bound, first;

	e4_extent_node_head(node, &h);
	e4_extent_node_entry(node, i, &cur);
	e4_extent_node_entry(node, i + 1, &next);
	if (next.lblk <= cur.lblk || !cm_in_fs(c, next.pblk, 1))
		return hi;
	bound = next.lblk;
	if (peek_first(c, next.pblk, (int)h.depth - 1, &first) && first > bound)
		bound = first;
	return bound < hi ? bound : hi;
}

/* 1 if node's entries (at most capacity of them, at least one) read as
 * entries of a node of depth `depth` are plausible: in logical order,
 * blocks inside the filesystem, extents not empty.  For a node whose
 * depth field alone disagrees with its parent's. */
static int plausible_as(struct cm *c, const void *node, unsigned depth)
{
	struct e4_extent_node_head h;
	struct e4_extent_raw e;
	unsigned cap = e4_extent_node_cap(c->fs, 0);
	uint64_t prev = 0;

	memcpy(c->peek, node, c->bs);
	e4_extent_node_head(c->peek, &h);
	if (!h.entries || h.entries > cap)
		return 0;
	e4_extent_node_set_head(c->peek, h.entries, h.max, depth);
	for (unsigned i = 0; i < h.entries; i++) {
		e4_extent_node_entry(c->peek, i, &e);
		if ((i && e.lblk <= prev) || !cm_in_fs(c, e.pblk, depth ? 1 : e.len) ||
		    (!depth && !e.len))
			return 0;
		prev = e.lblk;
	}
	return 1;
}

/* For a tree block failing its checksum: the count n (above eh_entries,
 * at most eh_max) with which the checksum matches and the entries up to n
 * are plausible (slot_plausible), else 0.  *lost is set when slot
 * eh_entries alone continues the entries (the blocks it names would be
 * freed by a rewrite that keeps the count). */
static unsigned csum_count(struct cm *c, const void *node, unsigned depth, const char **lost)
{
	struct e4_extent_node_head h;
	uint64_t end = 0;
	unsigned i, n = 0;

	e4_extent_node_head(node, &h);
	for (i = 0; i < h.max; i++) {
		if (!slot_plausible(c, node, i, depth, &end))
			break;
		if (i == h.entries)
			*lost = "slots past eh_entries continue its entries in order "
				"inside the filesystem";
	}
	/* i: the plausible prefix; try the counts past eh_entries within it */
	memcpy(c->peek, node, c->bs);
	for (n = i; n > h.entries; n--) {
		e4_extent_node_set_head(c->peek, n, h.max, h.depth);
		if (e4_extent_node_csum_ok(c->fs, c->ino, c->gen, c->peek))
			return n;
	}
	return 0;
}

/* The child of index entry i once read: its header judged (eh_max fixed
 * in place), its entries scanned, then written when changed.  *drop when
 * the entry is to go (answered yes) or the child was emptied by repairs;
 * *skip when a no leaves it as stored. */
static errcode_t child_node(struct cm *c, void *node, unsigned i, unsigned level,
			    uint64_t hi, int *dirty, enum cm_verdict *v)
{
	struct e4_extent_raw e, first;
	struct e4_extent_node_head h, ph;
	struct problem_ctx p = { 0 };
	uint8_t *child = c->buf[level + 1];
	uint32_t orig_first;
	unsigned cap = e4_extent_node_cap(c->fs, 0);
	enum e4_extent_node_fault f;
	int csum_ok, cdirty = 0;
	const char *lost = NULL;
	errcode_t err;

	e4_extent_node_entry(node, i, &e);
	e4_extent_node_head(node, &ph);
	e4_extent_node_head(child, &h);
	p.blk = e.pblk;
	p.num = e.lblk;
	csum_ok = e4_extent_node_csum_ok(c->fs, c->ino, c->gen, child);
	f = e4_extent_node_fault(child, cap, (int)ph.depth - 1);
	if (f != E4_XNODE_MAGIC && h.depth != ph.depth - 1)
		f = E4_XNODE_DEPTH;	/* before an eh_max repair, whatever else */
	if (f == E4_XNODE_DEPTH && plausible_as(c, child, ph.depth - 1)) {
		/* the entries are what the parent's depth says: the depth
		 * field alone is wrong */
		p.num = h.depth;
		p.num2 = ph.depth - 1;
		if (!cm_ask(c, PR_1_MAP_NODE_DEPTH, &p)) {
			*v = CM_SKIP;
			return 0;
		}
		e4_extent_node_set_head(child, h.entries, h.max, ph.depth - 1);
		cdirty = 1;
		p.num = e.lblk;
		e4_extent_node_head(child, &h);
		f = e4_extent_node_fault(child, cap, (int)ph.depth - 1);
	}
	if (f == E4_XNODE_MAGIC || f == E4_XNODE_DEPTH ||
	    (f == E4_XNODE_ENTRIES && h.entries > cap)) {
		p.str = fault_name(f);
		*v = cm_ask(c, PR_1_MAP_NODE_HEADER, &p) ? CM_DROP : CM_SKIP;
		return 0;
	}
	if (f == E4_XNODE_ENTRIES || f == E4_XNODE_MAX) {
		/* the entries are there (at most cap of them): eh_max is what
		 * is wrong */
		p.num = h.max;
		p.num2 = cap;
		if (cm_ask(c, PR_1_MAP_NODE_MAX, &p)) {
			e4_extent_node_set_head(child, h.entries, cap, h.depth);
			cdirty = 1;
		}
		p.num = e.lblk;
	}
	e4_extent_node_head(child, &h);
	if (!csum_ok && h.max <= cap && h.entries < h.max) {
		/* A failing checksum is evidence of damage: when the slots
		 * past eh_entries continue the entries, the count may be what
		 * was damaged (restored when the checksum then matches). */
		unsigned n = csum_count(c, child, h.depth, &lost);

		if (n) {
			p.num = h.entries;
			p.num2 = n;
			if (cm_ask(c, PR_1_MAP_NODE_ENTRIES_CSUM, &p)) {
				e4_extent_node_set_head(child, n, h.max, h.depth);
				e4_extent_node_head(child, &h);
				csum_ok = 1;
				cdirty = 1;
				lost = NULL;
			}
			p.num = e.lblk;
		}
	}
	if (h.entries == 0) {
		*v = cm_ask(c, PR_1_MAP_NODE_EMPTY, &p) ? CM_DROP : CM_KEEP;
		return 0;
	}
	e4_extent_node_entry(child, 0, &first);
	orig_first = first.lblk;
	err = scan_node(c, child, level + 1, hi, &cdirty);
	if (err)
		return err;
	e4_extent_node_head(child, &h);
	if (h.entries == 0) {
		/* every entry was dropped by a yes: the node goes with them */
		*v = CM_DROP;
		return 0;
	}
	p.recoverable = lost;
	if (!cdirty && !csum_ok && cm_ask(c, PR_1_MAP_NODE_CSUM, &p)) {
		/* the block may be another tree's too: the driver writes
		 * the checksum once it knows (check_map.h) */
		if (c->ops->defer_csum)
			err = c->ops->defer_csum(c->priv, c->ino, c->gen, e.pblk);
		else
			cdirty = 1;
		if (err)
			return err;
	}
	p.recoverable = NULL;
	if (cdirty) {
		err = e4_extent_node_write(c->fs, c->ino, c->gen, e.pblk, child);
		if (err)
			return err;
	}
	/* The key is the child's first logical block: a key that was right
	 * follows the repairs below it (the first entry dropped) unasked. */
	e4_extent_node_entry(child, 0, &first);
	if (first.lblk != e.lblk) {
		p.num = e.lblk;
		p.num2 = first.lblk;
		if (orig_first == e.lblk || cm_ask(c, PR_1_MAP_INDEX_KEY, &p)) {
			e.lblk = first.lblk;
			e4_extent_node_set_entry(node, i, &e);
			*dirty = 1;
		}
	}
	*v = CM_KEEP;
	return 0;
}

/* Index entry i of node (at tree level `level`): the child's block is
 * judged and claimed, the child read and checked.  Claims below a
 * dropped entry are undone. */
static errcode_t index_entry(struct cm *c, void *node, unsigned i, unsigned level,
			     uint64_t hi, int *dirty, enum cm_verdict *v)
{
	struct e4_extent_raw e;
	struct problem_ctx p = { 0 };
	errcode_t err;
	int twice;

	e4_extent_node_entry(node, i, &e);
	p.blk = e.pblk;
	p.num = e.lblk;
	if (!cm_in_fs(c, e.pblk, 1)) {
		*v = cm_ask(c, PR_1_MAP_NODE_BAD_BLOCK, &p) ? CM_DROP : CM_SKIP;
		return 0;
	}
	err = cm_seen(c, e.pblk, &twice);
	if (err)
		return err;
	if (twice) {
		/* a node with two parents: walked once */
		*v = cm_ask(c, PR_1_MAP_NODE_TWICE, &p) ? CM_DROP : CM_SKIP;
		return 0;
	}
	if (cm_claim(c, e.pblk, 1, 1) == CLAIM_META) {
		*v = cm_ask(c, PR_1_MAP_NODE_IN_META, &p) ? CM_DROP : CM_SKIP;
		return 0;
	}
	err = e4_io_read_blk(e4_fs_io(c->fs), e.pblk, 1, c->buf[level + 1]);
	if (err) {
		/* a read error is said, not repaired by dropping the subtree */
		p.err = err;
		cm_ask(c, PR_1_MAP_NODE_READ, &p);
		e4fsck_fail(c->ctx);	/* an operational error: exit 8 */
		*v = CM_KEEP;
		return 0;
	}
	err = child_node(c, node, i, level, hi, dirty, v);
	if (err)
		return err;
	/* Dropped or left: only the child's own block is still claimed
	 * (each entry below that went was unclaimed as it went). */
	if (*v != CM_KEEP)
		cm_unclaim(c, e.pblk, 1, 1);
	return 0;
}

/* The entries of node (the root at level 0 or a tree block at level
 * `level`, header already judged), in order; hi bounds them (exclusive).
 * Dropped entries are removed from the image and *dirty set. */
static errcode_t scan_node(struct cm *c, void *node, unsigned level, uint64_t hi, int *dirty)
{
	struct e4_extent_node_head h;
	unsigned i = 0, stored;

	e4_extent_node_head(node, &h);
	stored = h.entries;
	if (level == 0 && c->root_slots && c->root_slots < h.entries)
		h.entries = c->root_slots;
	while (i < h.entries && i < e4_extent_node_cap(c->fs, level == 0)) {
		enum cm_verdict v;

		if (h.depth == 0) {
			v = leaf_entry(c, node, i, hi, dirty);
		} else {
			uint64_t bound = hi;
			errcode_t err;

			if (i + 1 < h.entries)
				bound = next_bound(c, node, i, hi);
			err = index_entry(c, node, i, level, bound, dirty, &v);
			if (err)
				return err;
		}
		if (v == CM_DROP && stored > e4_extent_node_cap(c->fs, level == 0))
			v = CM_SKIP;	/* its count was left wrong: no edit */
		if (v == CM_DROP) {
			e4_extent_node_remove(node, i);
			h.entries--;
			*dirty = 1;
			continue;
		}
		i++;
	}
	return 0;
}

/* 1 if i_block reads as a block map: some block numbers, every one
 * inside the filesystem (random words rarely are). */
static int blockmap_plausible(const struct cm *c)
{
	int any = 0;

	for (unsigned i = 0; i < EXT4_N_BLOCKS; i++) {
		uint32_t b = e4_le32(c->inode->i_block[i]);

		if (b && !cm_in_fs(c, b, 1))
			return 0;
		any |= b != 0;
	}
	return any;
}

/* The number of i_block's 4 slots, from the first, that read as entries
 * of a root of depth `depth` (slot_plausible; an index entry's child must
 * also hold a sound node header): the root's entries when its header is
 * damaged. */
static unsigned root_prefix(struct cm *c, unsigned depth)
{
	uint32_t root[EXT4_N_BLOCKS];
	uint64_t end = 0, first;
	unsigned n;

	memcpy(root, c->inode->i_block, sizeof(root));
	e4_extent_node_set_head(root, 4, 4, depth);
	for (n = 0; n < 4; n++) {
		struct e4_extent_raw e;

		if (!slot_plausible(c, root, n, depth, &end))
			break;
		e4_extent_node_entry(root, n, &e);
		if (depth && !peek_first(c, e.pblk, (int)depth - 1, &first))
			break;
	}
	return n;
}

/* "slot N: logical L, physical P, length K; ..." for root slots from..3
 * (1-based in the text) into buf. */
static void stale_slots(const struct cm *c, unsigned from, unsigned depth, char *buf, size_t size)
{
	uint32_t root[EXT4_N_BLOCKS];
	size_t used = 0;

	memcpy(root, c->inode->i_block, sizeof(root));
	e4_extent_node_set_head(root, 4, 4, depth);
	buf[0] = 0;
	for (unsigned i = from; i < 4 && used < size; i++) {
		struct e4_extent_raw e;
		int k;

		e4_extent_node_entry(root, i, &e);
		k = snprintf(buf + used, size - used, "%sslot %u: logical %u, physical %llu, length %u",
			     i > from ? "; " : "", i + 1, (unsigned)e.lblk,
			     (unsigned long long)e.pblk, (unsigned)e.len);
		if (k < 0)
			break;
		used += (size_t)k;
	}
}

/* The root's header: 0 to go on (repairs made in i_block), 1 when the
 * root is unusable (res->clear_inode after a yes). */
static int root_header(struct cm *c)
{
	struct ext4_inode *in = c->inode;
	struct e4_extent_node_head h;
	struct problem_ctx p = { 0 };
	enum e4_extent_node_fault f;
	char what[200];
	unsigned n;

	e4_extent_node_head(in->i_block, &h);
	f = e4_extent_node_fault(in->i_block, 4, -1);
	if (f == E4_XNODE_MAGIC && h.max == 4 && h.depth <= EXT4_MAX_EXTENT_DEPTH) {
		/* Before any other reading: the entries may be intact under a
		 * damaged magic (and count); then the header is rebuilt. */
		unsigned n = root_prefix(c, h.depth);

		if (n) {
			p.str = "bad magic";
			p.num = h.entries >= 1 && h.entries <= n ? h.entries : n;
			p.num2 = h.depth;
			if (!cm_ask(c, PR_1_MAP_ROOT_REBUILD, &p))
				return 1;	/* left as stored */
			e4_extent_node_set_head(in->i_block, (unsigned)p.num, 4, h.depth);
			c->res->inode_changed = 1;
			e4_extent_node_head(in->i_block, &h);
			f = E4_XNODE_OK;
			memset(&p, 0, sizeof(p));
		}
	}
	if (f == E4_XNODE_MAGIC || f == E4_XNODE_DEPTH) {
		p.str = f == E4_XNODE_MAGIC ? "no extent header magic" : "deeper than 5 levels";
		if (f == E4_XNODE_MAGIC && blockmap_plausible(c))
			p.recoverable = "i_block holds block numbers inside the filesystem: a "
					"block map with EXTENTS_FL set by mistake";
		if (cm_ask(c, PR_1_MAP_ROOT_BAD, &p)) {
			c->res->clear_inode = 1;
		} else if (p.recoverable && cm_ask(c, PR_1_MAP_ROOT_AS_BLOCKMAP, &p)) {
			in->i_flags = e4_cpu_to_le32(e4_le32(in->i_flags) & ~EXT4_EXTENTS_FL);
			c->res->inode_changed = 1;
			c->to_blockmap = 1;
		}
		return 1;
	}
	if (h.entries > 4 && (n = root_prefix(c, h.depth)) && n < 4) {
		/* the slots after the valid ones are stale: said by name,
		 * dropped with the count (not each as "out of order") */
		stale_slots(c, n, h.depth, what, sizeof(what));
		p.num = h.entries;
		p.num2 = n;
		p.str = what;
		if (cm_ask(c, PR_1_MAP_ROOT_STALE, &p)) {
			e4_extent_node_set_head(in->i_block, n, 4, h.depth);
			c->res->inode_changed = 1;
		} else {
			c->root_slots = n;	/* the stale slots are said: not walked */
		}
	} else if (h.entries > 4) {
		/* i_block has room for 4: the count is what is wrong */
		p.num = h.entries;
		p.num2 = 4;
		if (cm_ask(c, PR_1_MAP_ROOT_ENTRIES, &p)) {
			e4_extent_node_set_head(in->i_block, 4, 4, h.depth);
			c->res->inode_changed = 1;
		}
	} else if (f != E4_XNODE_OK) {
		p.num = h.max;
		p.num2 = 4;
		if (cm_ask(c, PR_1_MAP_ROOT_MAX, &p)) {
			e4_extent_node_set_head(in->i_block, h.entries, 4, h.depth);
			c->res->inode_changed = 1;
		}
	}
	if (h.depth > 0 && h.entries == 0) {
		if (cm_ask(c, PR_1_MAP_ROOT_EMPTY_INDEX, &p)) {
			e4_extent_node_set_head(in->i_block, 0, 4, 0);
			c->res->inode_changed = 1;
		}
		return 1;
	}
	return 0;
}

errcode_t cm_check_extents(struct cm *c)
{
	struct ext4_inode *in = c->inode;
	struct e4_extent_node_head h;
	int dirty = 0;
	errcode_t err;

	if (root_header(c))
		return c->to_blockmap ? cm_check_blockmap(c) : 0;
	/* the root's image: level 0 (the other levels' buffers are blocks) */
	err = scan_node(c, in->i_block, 0, LBLK_LIMIT, &dirty);
	if (dirty) {
		e4_extent_node_head(in->i_block, &h);
		/* every subtree dropped: an empty tree is an empty leaf root */
		if (h.depth > 0 && h.entries == 0)
			e4_extent_node_set_head(in->i_block, 0, 4, 0);
		c->res->inode_changed = 1;
	}
	return err;
}
