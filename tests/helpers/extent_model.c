/*
 * extent_model.c: the model and validator of extent_model.h.  The
 * validator parses nodes itself (it shares no parsing code with libe4).
 */
#include "extent_model.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define LIMIT	(1ULL << 32)

/* libe4's test knob for narrow nodes (lib/e4/extent_int.h, not public). */
errcode_t e4_extent_set_node_max(e4_extent_handle *h, unsigned max);

static int fail(struct xm *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->err, sizeof(m->err), fmt, ap);
	va_end(ap);
	return 1;
}

uint64_t xm_rand(struct xm *m)
{
	/* xorshift64* */
	m->rng ^= m->rng >> 12;
	m->rng ^= m->rng << 25;
	m->rng ^= m->rng >> 27;
	return m->rng * 0x2545F4914F6CDD1DULL;
}

static uint64_t below(struct xm *m, uint64_t n)
{
	return n ? xm_rand(m) % n : 0;
}

void xm_pattern(e4_blk_t p, void *buf, unsigned bs)
{
	uint64_t *w = buf;

	for (unsigned i = 0; i < bs / 8; i++)
		w[i] = e4_cpu_to_le64(p * 0x9E3779B97F4A7C15ULL + i);
}

errcode_t xm_init(struct xm *m, e4_fs *fs, e4_ino_t ino, uint64_t nlblk, unsigned node_max,
		  uint64_t seed, int write_data)
{
	errcode_t err;

	memset(m, 0, sizeof(*m));
	m->fs = fs;
	m->ino = ino;
	m->nlblk = nlblk;
	m->rng = seed ? seed : 1;
	m->write_data = write_data;
	m->strict_merge = 1;
	m->map = calloc(nlblk, sizeof(*m->map));
	m->unw = calloc(nlblk, 1);
	if (!m->map || !m->unw)
		return E4_ERR_NO_MEMORY;
	err = e4_inode_read(fs, ino, &m->ib);
	if (err)
		return err;
	if (!(e4_le32(m->ib.inode.i_flags) & EXT4_EXTENTS_FL))
		e4_extent_root_init(&m->ib.inode);
	err = e4_extent_open(fs, ino, &m->ib.inode, 0, &m->h);
	if (err)
		return err;
	if (node_max) {
		m->node_max = node_max;
		err = e4_extent_set_node_max(m->h, node_max);
		if (err)
			return err;
	} else {
		m->node_max = (e4_geom(fs)->block_size - 12) / 12;
	}
	m->free0 = e4_sb_free_blocks_count(e4_super(fs));
	if (e4_inode_blocks(fs, &m->ib.inode) != 0 ||
	    ((struct ext4_extent_header *)m->ib.inode.i_block)->eh_entries)
		return fail(m, "inode %u is not an empty file", ino), E4_ERR_INVALID_ARGUMENT;
	return 0;
}

void xm_free(struct xm *m)
{
	e4_extent_close(m->h);
	free(m->map);
	free(m->unw);
	m->h = NULL;
	m->map = NULL;
	m->unw = NULL;
}

static void model_clear(struct xm *m, uint64_t lblk, uint64_t n)
{
	for (uint64_t l = lblk; l < lblk + n && l < m->nlblk; l++) {
		if (m->map[l])
			m->mapped--;
		m->map[l] = 0;
		m->unw[l] = 0;
	}
}

errcode_t xm_punch(struct xm *m, uint64_t lblk, uint64_t n)
{
	uint64_t freed = 0, want = 0;
	errcode_t err;

	for (uint64_t l = lblk; l < m->nlblk && l - lblk < n; l++)
		want += m->map[l] != 0;
	err = e4_extent_punch(m->h, lblk, n, &freed);
	if (err) {
		fail(m, "punch %llu+%llu: %s", (unsigned long long)lblk, (unsigned long long)n,
		     error_message(err));
		return err;
	}
	if (freed < want) {
		fail(m, "punch %llu+%llu freed %llu, the range mapped %llu", (unsigned long long)lblk,
		     (unsigned long long)n, (unsigned long long)freed, (unsigned long long)want);
		return E4_ERR_CORRUPT;
	}
	model_clear(m, lblk, n > m->nlblk ? m->nlblk : n);
	return 0;
}

/* Map [lblk, lblk + n) to new blocks found from goal (fewer if no run of
 * n is free), after punching what was there. */
errcode_t xm_write(struct xm *m, uint64_t lblk, uint64_t n, e4_blk_t goal, unsigned flags)
{
	unsigned bs = e4_geom(m->fs)->block_size;
	e4_blk_t p;
	errcode_t err;

	err = xm_punch(m, lblk, n);
	if (err)
		return err;
	while ((err = e4_block_find_free(m->fs, goal, n, &p)) == E4_ERR_NO_SPACE && n > 1)
		n /= 2;
	if (err == E4_ERR_NO_SPACE)
		return 0;	/* full: nothing written */
	if (!err)
		err = e4_block_mark(m->fs, p, n, 1, NULL);
	if (err)
		return err;
	if (m->write_data) {
		uint8_t *buf = malloc(bs);

		if (!buf)
			return E4_ERR_NO_MEMORY;
		for (uint64_t i = 0; !err && i < n; i++) {
			xm_pattern(p + i, buf, bs);
			err = e4_io_pwrite(e4_fs_io(m->fs), (p + i) * bs, buf, bs);
		}
		free(buf);
		if (err)
			return err;
	}
	err = e4_extent_map_set(m->h, lblk, n, p, flags);
	if (err) {
		fail(m, "map %llu+%llu -> %llu%s: %s", (unsigned long long)lblk,
		     (unsigned long long)n, (unsigned long long)p,
		     flags ? " unwritten" : "", error_message(err));
		return err;
	}
	for (uint64_t i = 0; i < n; i++) {
		m->mapped += !m->map[lblk + i];
		m->map[lblk + i] = p + i;
		m->unw[lblk + i] = flags ? 1 : 0;
	}
	return 0;
}

/* Flip a physically contiguous mapped run between unwritten and written
 * (the same blocks mapped again in the other state). */
static errcode_t convert(struct xm *m, uint64_t lblk, uint64_t max)
{
	uint64_t n = 1;
	unsigned flags;
	errcode_t err;

	if (!m->map[lblk])
		return 0;
	while (n < max && lblk + n < m->nlblk && m->map[lblk + n] == m->map[lblk] + n &&
	       m->unw[lblk + n] == m->unw[lblk])
		n++;
	flags = m->unw[lblk] ? 0 : E4_MAP_UNWRITTEN;
	err = e4_extent_map_set(m->h, lblk, n, m->map[lblk], flags);
	if (err) {
		fail(m, "convert %llu+%llu: %s", (unsigned long long)lblk, (unsigned long long)n,
		     error_message(err));
		return err;
	}
	memset(m->unw + lblk, flags ? 1 : 0, n);
	return 0;
}

errcode_t xm_random_op(struct xm *m)
{
	uint64_t r = below(m, 1000), n, lblk;
	e4_blk_t goal;

	if (r < 550) {
		/* mostly short writes, some long ones, now and then past the
		 * extent length limit */
		uint64_t k = below(m, 1000);

		if (m->fragment)
			k = 0;
		n = k < 800 ? 1 + below(m, 8) : k < 997 ? 1 + below(m, 300) : 1 + below(m, 70000);
		if (n > m->nlblk)
			n = m->nlblk;
		lblk = below(m, m->nlblk - n + 1);
		/* after the block before it (merges), or anywhere */
		goal = lblk && m->map[lblk - 1] && below(m, 2) ? m->map[lblk - 1] + 1
			: below(m, e4_geom(m->fs)->blocks_count);
		return xm_write(m, lblk, n, goal, below(m, 4) ? 0 : E4_MAP_UNWRITTEN);
	}
	if (r < 800 || (m->fragment && r >= 997)) {
		n = 1 + below(m, m->fragment ? 8 : below(m, 10) ? 16 : 400);
		return xm_punch(m, below(m, m->nlblk), n);
	}
	if (r < 997)
		return convert(m, below(m, m->nlblk), 1 + below(m, 40));
	/* truncate, rarely, and not too short */
	lblk = m->nlblk / 2 + below(m, m->nlblk / 2);
	return xm_punch(m, lblk, UINT64_MAX);
}

/* ---- the validator -------------------------------------------------------- */
struct vwalk {
	struct xm *m;
	uint8_t *bufs[6];
	uint64_t nodes, mapped, end;	/* end: logical end of the last extent */
	uint64_t extents;
	int have_prev;
	uint32_t prev_lblk, prev_len, prev_unw;
	e4_blk_t prev_pblk;
};

static int vleaf_entry(struct vwalk *w, const uint8_t *e, uint64_t lo, uint64_t hi)
{
	struct xm *m = w->m;
	uint32_t lb = e4_get_le32(e), raw = e4_get_le16(e + 4);
	e4_blk_t pb = (e4_blk_t)e4_get_le32(e + 8) | (e4_blk_t)e4_get_le16(e + 6) << 32;
	uint32_t unw = raw > 32768, len = unw ? raw - 32768 : raw;

	if (!len)
		return fail(m, "extent at %u has length 0", lb);
	if (lb < lo || (uint64_t)lb + len > hi)
		return fail(m, "extent %u+%u outside its node's range [%llu,%llu)", lb, len,
			    (unsigned long long)lo, (unsigned long long)hi);
	if (lb < w->end)
		return fail(m, "extent %u+%u overlaps or precedes the one before (end %llu)", lb,
			    len, (unsigned long long)w->end);
	if (m->strict_merge && w->have_prev && w->prev_lblk + w->prev_len == lb &&
	    w->prev_pblk + w->prev_len == pb && w->prev_unw == unw &&
	    w->prev_len + len <= (unw ? 32767u : 32768u))
		return fail(m, "extents at %u and %u could be one", w->prev_lblk, lb);
	for (uint64_t l = w->end; l < lb && l < m->nlblk; l++)
		if (m->map[l])
			return fail(m, "block %llu is a hole, the model maps it", (unsigned long long)l);
	for (uint32_t i = 0; i < len; i++) {
		uint64_t l = (uint64_t)lb + i;
		int in_use = 0;

		if (l >= m->nlblk || m->map[l] != pb + i || m->unw[l] != unw)
			return fail(m, "block %llu maps %llu%s, the model %llu%s",
				    (unsigned long long)l, (unsigned long long)(pb + i),
				    unw ? " (unwritten)" : "",
				    (unsigned long long)(l < m->nlblk ? m->map[l] : 0),
				    l < m->nlblk && m->unw[l] ? " (unwritten)" : "");
		if (e4_test_block(m->fs, pb + i, &in_use) || !in_use)
			return fail(m, "data block %llu is not marked in use",
				    (unsigned long long)(pb + i));
	}
	w->have_prev = 1;
	w->prev_lblk = lb;
	w->prev_len = len;
	w->prev_unw = unw;
	w->prev_pblk = pb;
	w->end = (uint64_t)lb + len;
	w->mapped += len;
	w->extents++;
	return 0;
}

/* Node at tree level `level` (0: the root, in node) of depth `depth`,
 * entries inside [lo, hi). */
static int vnode(struct vwalk *w, const uint8_t *node, unsigned level, unsigned depth,
		 uint64_t lo, uint64_t hi)
{
	struct xm *m = w->m;
	e4_fs *fs = m->fs;
	unsigned bs = e4_geom(fs)->block_size;
	unsigned entries = e4_get_le16(node + 2), max = e4_get_le16(node + 4);
	unsigned want_max = level ? m->node_max : 4;

	if (e4_get_le16(node) != EXT4_EXT_MAGIC)
		return fail(m, "level %u: bad magic", level);
	if (max != want_max && !(level && max == (bs - 12) / 12))
		return fail(m, "level %u: eh_max %u, expected %u", level, max, want_max);
	if (entries > max)
		return fail(m, "level %u: %u entries > eh_max %u", level, entries, max);
	if (e4_get_le16(node + 6) != depth)
		return fail(m, "level %u: eh_depth %u, expected %u", level, e4_get_le16(node + 6),
			    depth);
	if (level && !entries)
		return fail(m, "level %u: an empty node", level);
	if (depth == 0) {
		for (unsigned i = 0; i < entries; i++)
			if (vleaf_entry(w, node + 12 + 12 * i, lo, hi))
				return 1;
		return 0;
	}
	if (level >= 5)
		return fail(m, "deeper than 5 levels");
	for (unsigned i = 0; i < entries; i++) {
		const uint8_t *x = node + 12 + 12 * i;
		uint32_t key = e4_get_le32(x);
		uint64_t next = i + 1 < entries ? e4_get_le32(x + 12) : hi;
		e4_blk_t child = (e4_blk_t)e4_get_le32(x + 4) | (e4_blk_t)e4_get_le16(x + 8) << 32;
		uint8_t *buf = w->bufs[level];
		int in_use = 0;

		if (key < lo || key >= next || next > hi)
			return fail(m, "level %u: index key %u out of order or range", level, key);
		if (child <= e4_geom(fs)->first_data_block || child >= e4_geom(fs)->blocks_count)
			return fail(m, "level %u: child block %llu outside the fs", level,
				    (unsigned long long)child);
		if (e4_test_block(fs, child, &in_use) || !in_use)
			return fail(m, "tree block %llu is not marked in use",
				    (unsigned long long)child);
		if (e4_io_read_blk(e4_fs_io(fs), child, 1, buf))
			return fail(m, "cannot read tree block %llu", (unsigned long long)child);
		if (e4_geom(fs)->metadata_csum) {
			unsigned cmax = e4_get_le16(buf + 4);

			if (12 + 12 * cmax + 4 > bs ||
			    e4_get_le32(buf + 12 + 12 * cmax) !=
				    e4_extent_block_csum(fs, m->ino,
							 e4_le32(m->ib.inode.i_generation), buf))
				return fail(m, "tree block %llu: bad tail checksum",
					    (unsigned long long)child);
		}
		if (e4_get_le16(buf + 2) && e4_get_le32(buf + 12) != key)
			return fail(m, "level %u: index key %u, its child starts at %u", level, key,
				    e4_get_le32(buf + 12));
		w->nodes++;
		if (vnode(w, buf, level + 1, depth - 1, key, next))
			return 1;
	}
	return 0;
}

int xm_validate(struct xm *m)
{
	const uint8_t *root = (const uint8_t *)m->ib.inode.i_block;
	unsigned bs = e4_geom(m->fs)->block_size;
	unsigned depth = e4_get_le16(root + 6);
	uint64_t want_blocks, used;
	struct vwalk w;
	int bad;

	memset(&w, 0, sizeof(w));
	w.m = m;
	if (depth > 5)
		return fail(m, "root depth %u", depth);
	for (unsigned i = 0; i < depth; i++)
		w.bufs[i] = malloc(bs);
	bad = vnode(&w, root, 0, depth, 0, LIMIT);
	for (unsigned i = 0; i < depth; i++)
		free(w.bufs[i]);
	if (bad)
		return 1;
	for (uint64_t l = w.end; l < m->nlblk; l++)
		if (m->map[l])
			return fail(m, "block %llu is a hole, the model maps it", (unsigned long long)l);
	if (w.mapped != m->mapped)
		return fail(m, "the tree maps %llu blocks, the model %llu",
			    (unsigned long long)w.mapped, (unsigned long long)m->mapped);
	want_blocks = (w.mapped + w.nodes) * (bs / 512);
	if (e4_inode_blocks(m->fs, &m->ib.inode) != want_blocks)
		return fail(m, "i_blocks %llu, expected %llu (%llu mapped + %llu tree blocks)",
			    (unsigned long long)e4_inode_blocks(m->fs, &m->ib.inode),
			    (unsigned long long)want_blocks, (unsigned long long)w.mapped,
			    (unsigned long long)w.nodes);
	used = m->free0 - e4_sb_free_blocks_count(e4_super(m->fs));
	if (used != w.mapped + w.nodes)
		return fail(m, "%llu blocks in use since the start, the file holds %llu",
			    (unsigned long long)used, (unsigned long long)(w.mapped + w.nodes));
	if (depth > m->max_depth)
		m->max_depth = depth;
	m->nodes = w.nodes;
	m->extents = w.extents;
	return 0;
}

errcode_t xm_finish(struct xm *m)
{
	uint64_t size = m->nlblk * e4_geom(m->fs)->block_size;
	errcode_t err;

	m->ib.inode.i_size_lo = e4_cpu_to_le32((uint32_t)size);
	m->ib.inode.i_size_high = e4_cpu_to_le32((uint32_t)(size >> 32));
	err = e4_inode_write(m->fs, m->ino, &m->ib);
	if (!err)
		err = e4_alloc_flush(m->fs);
	return err;
}

int xm_expected(struct xm *m, FILE *out)
{
	unsigned bs = e4_geom(m->fs)->block_size;
	uint8_t *buf = malloc(bs);

	if (!buf)
		return -1;
	for (uint64_t l = 0; l < m->nlblk; l++) {
		if (m->map[l] && !m->unw[l])
			xm_pattern(m->map[l], buf, bs);
		else
			memset(buf, 0, bs);
		if (fwrite(buf, 1, bs, out) != bs) {
			free(buf);
			return -1;
		}
	}
	free(buf);
	return 0;
}
