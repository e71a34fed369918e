/*
 * extent_node.c: one extent tree node as it is stored, for checkers that
 * must judge and edit damaged trees entry by entry (e4fsck's pass 1).
 *
 * The cursor (extent_cursor.c) refuses nodes that fail their checks; a
 * checker instead reads the raw node, asks what is wrong with its header
 * (e4_extent_node_fault()), reads and rewrites single entries, removes
 * entries, and writes the node back with a fresh tail checksum.  The
 * layout (section 7.2): a 12-byte header (eh_magic 0xF30A, eh_entries,
 * eh_max, eh_depth, eh_generation), then eh_max 12-byte entries (leaf:
 * ee_block, ee_len, ee_start_hi, ee_start_lo; index: ei_block, ei_leaf_lo,
 * ei_leaf_hi), then in a tree block the 4-byte tail after eh_max entries.
 */
#include <string.h>

#include "e4_private.h"
#include "extent_int.h"

static inline const struct ext4_extent_header *hdr(const void *node)
{
	return node;
}

static inline uint8_t *entry_at(void *node, unsigned i)
{
	return (uint8_t *)node + sizeof(struct ext4_extent_header) + (size_t)i * 12;
}

unsigned e4_extent_node_cap(e4_fs *fs, int root)
{
	return root ? EXT_ROOT_CAPACITY : e4_extent_node_capacity(fs);
}

void e4_extent_node_head(const void *node, struct e4_extent_node_head *h)
{
	const struct ext4_extent_header *eh = hdr(node);

	h->magic = e4_le16(eh->eh_magic);
	h->entries = e4_le16(eh->eh_entries);
	h->max = e4_le16(eh->eh_max);
	h->depth = e4_le16(eh->eh_depth);
}

enum e4_extent_node_fault e4_extent_node_fault(const void *node, unsigned capacity,
					       int want_depth)
{
	struct e4_extent_node_head h;

	e4_extent_node_head(node, &h);
	if (h.magic != EXT4_EXT_MAGIC)
		return E4_XNODE_MAGIC;
	if (h.entries > h.max || h.entries > capacity)
		return E4_XNODE_ENTRIES;
	if (want_depth < 0 ? h.depth > EXT4_MAX_EXTENT_DEPTH : h.depth != (unsigned)want_depth)
		return E4_XNODE_DEPTH;
	/* e2fsck leaves room for two entries' worth of tail: eh_max may be
	 * capacity - 2 .. capacity; the kernel refuses only > capacity */
	if (h.max > capacity || h.max + 2 < capacity || h.max == 0)
		return E4_XNODE_MAX;
	return E4_XNODE_OK;
}

void e4_extent_node_entry(const void *node, unsigned i, struct e4_extent_raw *e)
{
	const uint8_t *p = entry_at((void *)node, i);

	memset(e, 0, sizeof(*e));
	e->lblk = e4_get_le32(p);
	if (e4_le16(hdr(node)->eh_depth) == 0) {
		const struct ext4_extent *ex = (const struct ext4_extent *)p;
		unsigned l = e4_le16(ex->ee_len);

		e->unwritten = l > EXT_INIT_MAX_LEN;
		e->len = e->unwritten ? l - EXT_INIT_MAX_LEN : l;
		e->pblk = (e4_blk_t)e4_le32(ex->ee_start_lo) |
			  (e4_blk_t)e4_le16(ex->ee_start_hi) << 32;
	} else {
		const struct ext4_extent_idx *ix = (const struct ext4_extent_idx *)p;

		e->pblk = (e4_blk_t)e4_le32(ix->ei_leaf_lo) |
			  (e4_blk_t)e4_le16(ix->ei_leaf_hi) << 32;
	}
}

void e4_extent_node_set_entry(void *node, unsigned i, const struct e4_extent_raw *e)
{
	uint8_t *p = entry_at(node, i);

	if (e4_le16(hdr(node)->eh_depth) == 0) {
		struct e4_map_extent m = { .lblk = e->lblk, .pblk = e->pblk, .len = e->len,
					   .flags = e->unwritten ? E4_MAP_UNWRITTEN : 0 };

		e4_extent_encode((struct ext4_extent *)p, &m);
	} else {
		struct ext4_extent_idx *ix = (struct ext4_extent_idx *)p;

		ix->ei_block = e4_cpu_to_le32(e->lblk);
		ix->ei_leaf_lo = e4_cpu_to_le32((uint32_t)e->pblk);
		ix->ei_leaf_hi = e4_cpu_to_le16((uint16_t)(e->pblk >> 32));
	}
}

void e4_extent_node_remove(void *node, unsigned i)
{
	struct ext4_extent_header *eh = node;
	unsigned n = e4_le16(eh->eh_entries);

	if (i >= n)
		return;
	memmove(entry_at(node, i), entry_at(node, i + 1), (size_t)(n - 1 - i) * 12);
	memset(entry_at(node, n - 1), 0, 12);
	eh->eh_entries = e4_cpu_to_le16((uint16_t)(n - 1));
}

void e4_extent_node_set_head(void *node, unsigned entries, unsigned max, unsigned depth)
{
	struct ext4_extent_header *eh = node;

	eh->eh_magic = e4_cpu_to_le16(EXT4_EXT_MAGIC);
	eh->eh_entries = e4_cpu_to_le16((uint16_t)entries);
	eh->eh_max = e4_cpu_to_le16((uint16_t)max);
	eh->eh_depth = e4_cpu_to_le16((uint16_t)depth);
}

int e4_extent_node_csum_ok(e4_fs *fs, e4_ino_t ino, uint32_t gen, const void *node)
{
	unsigned max = e4_le16(hdr(node)->eh_max);
	const uint8_t *t;

	if (!fs->geom.metadata_csum)
		return 1;
	if (max > e4_extent_node_capacity(fs))
		return 0;	/* no room for the tail where eh_max puts it */
	t = entry_at((void *)node, max);
	return e4_get_le32(t) == e4_extent_block_csum(fs, ino, gen, node);
}

errcode_t e4_extent_node_write(e4_fs *fs, e4_ino_t ino, uint32_t gen, e4_blk_t blk, void *node)
{
	if (blk <= fs->geom.first_data_block || blk >= fs->geom.blocks_count ||
	    e4_le16(hdr(node)->eh_max) > e4_extent_node_capacity(fs))
		return E4_ERR_INVALID_ARGUMENT;
	e4_extent_tail_set(fs, ino, gen, node);
	return e4_io_write_blk(fs->io, blk, 1, node);
}
