/*
 * pass2_htree.c: an indexed directory's hash index (pass 2; format doc
 * section 8.5), read before the directory's blocks.
 *
 * The root (its '.' and '..' laid out as a root has them, hash version,
 * info length, depth, flags, limit and count, checksum) and every index
 * node below it (fake entry, limit, count, checksum) are checked; the
 * hashes of each node must not go down, every block they name must be
 * inside the directory, and every block but the root must be named once,
 * as a node or a leaf.  Each leaf's hash range is noted, and the walk of
 * the leaves (pass2_entry.c) checks each name's hash against it.  An
 * index found bad is said once and, on a yes, its flag cleared: the
 * directory is then read linearly (as the kernel reads a directory whose
 * index it cannot use) and its blocks checked as leaves; e2fsck rebuilds
 * such an index at its pass 3A, which this version leaves to -D.
 */
#include "pass2.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DX_ROOT_COUNT_OFF	0x20	/* "." (12) + ".." (12) + dx_root_info (8) */
#define DX_NODE_COUNT_OFF	8	/* the fake entry */
#define DX_HASH_FLAG_INCOMPAT	0x1	/* dx_root_info.unused_flags */

/* The first fault found in an index (said once). */
struct dxcheck {
	struct pass2 *p;
	uint8_t *bufs;		/* one block per level below the root */
	unsigned levels;
	int leaves;		/* the fault is in what the index names (its
				   leaves), not in an index block's fields */
	char why[160];
	errcode_t read_err;	/* an index block could not be read (not a
				   fault of the index: nothing is cleared) */
	uint64_t read_lblk;
	e4_blk_t read_pblk;
};

/* Read block lblk for the index check; a read error is noted in c. */
static errcode_t dx_read(struct dxcheck *c, uint64_t lblk, e4_blk_t *pblk)
{
	errcode_t err;

	*pblk = 0;
	err = p2_read(c->p, lblk, pblk);
	if (err && err != E4_ERR_DIR_CORRUPT && !c->read_err) {
		c->read_err = err;
		c->read_lblk = lblk;
		c->read_pblk = *pblk;
	}
	return err;
}

static int bad(struct dxcheck *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(struct dxcheck *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->why[0]) {
		va_start(ap, fmt);
		vsnprintf(c->why, sizeof(c->why), fmt, ap);
		va_end(ap);
	}
	return 1;
}

errcode_t p2_read(struct pass2 *p, uint64_t lblk, e4_blk_t *pblk)
{
	uint32_t len;
	unsigned flags;
	errcode_t err;

	err = e4_bmap(p->fs, p->dir, &p->ib.inode, lblk, pblk, &len, &flags);
	if (err)
		return err;
	if (!*pblk)
		return E4_ERR_DIR_CORRUPT;
	return e4_io_read_blk_nocache(e4_fs_io(p->fs), *pblk, 1, p->buf);
}

/* The dx block at level (0: the root in p->buf) whose countlimit sits at
 * count_off: its entries name children with hashes in [lo, hi). */
static int check_node(struct dxcheck *c, const uint8_t *b, unsigned level, unsigned count_off,
		      uint32_t lo, uint64_t hi)
{
	struct pass2 *p = c->p;
	struct e4_dx_node n;
	uint32_t prev = 0;
	errcode_t err;

	e4_dx_node_parse(p->fs, b, count_off, &n);
	if (n.limit != e4_dx_limit_for(p->fs, count_off))
		return bad(c, "an index block at depth %u has limit %u", level, n.limit);
	if (n.count == 0)
		c->leaves = 1;	/* it names no leaf: they are left unnamed */
	if (n.count == 0 || n.count > n.limit)
		return bad(c, "an index block at depth %u has count %u", level, n.count);
	err = e4_dx_csum_verify(p->fs, p->dir, p->gen, b, count_off);
	if (err)
		return bad(c, "an index block at depth %u does not match its checksum", level);
	for (unsigned i = 0; i < n.count; i++) {
		uint32_t hash, child, next = 0, nlb;
		uint64_t chi = hi;
		struct p2_range *r;

		e4_dx_node_entry(b, &n, i, &hash, &child);
		if (i && hash < prev)
			return bad(c, "the hashes of an index block at depth %u go down at entry "
				   "%u", level, i);
		if (i + 1 < n.count) {
			e4_dx_node_entry(b, &n, i + 1, &next, &nlb);
			chi = next;
		}
		if (!child || child >= p->nblocks)
			return bad(c, "the index names block %u, outside the directory's %llu",
				   child, (unsigned long long)p->nblocks);
		r = &p->ranges[child];
		if (r->refs++ || r->node) {
			c->leaves = 1;
			return bad(c, "the index names block %u twice", child);
		}
		r->lo = i ? hash : lo;
		r->hi = chi;
		prev = hash;
		if (level < c->levels) {
			uint8_t *cb = c->bufs + (size_t)(level + 1) * p->bs;
			e4_blk_t pblk;
			struct e4_dirent_raw fake;

			r->node = 1;
			if (dx_read(c, child, &pblk))
				return bad(c, "index block %u cannot be read", child);
			memcpy(cb, p->buf, p->bs);
			if (e4_dirent_raw_at(cb, p->bs, 0, &fake) || fake.inode ||
			    fake.rec_len != p->bs)
				return bad(c, "index block %u is not an index node", child);
			if (check_node(c, cb, level + 1, DX_NODE_COUNT_OFF, r->lo, r->hi))
				return 1;
		}
	}
	return 0;
}

/* The root in p->buf: its fields, then the tree below it. */
static int check_root(struct dxcheck *c)
{
	struct pass2 *p = c->p;
	struct e4_dirent_raw dot, dotdot;
	struct e4_dx_root r;
	uint32_t flags = e4_le32(p->ib.inode.i_flags);
	int hv;

	if (e4_dirent_raw_at(p->buf, p->bs, 0, &dot) || dot.rec_len != 12 ||
	    e4_dirent_raw_at(p->buf, p->bs, 12, &dotdot) || dotdot.rec_len != p->bs - 12)
		return bad(c, "its first block does not hold '.' and '..' as an index root "
			   "does");
	if (e4_dx_root_parse(p->fs, p->buf, &r) && r.info_length == 8)
		return bad(c, "the root's depth %u is more than the filesystem allows (%d)",
			   r.indirect_levels,
			   e4_has_incompat(p->fs, EXT4_FEATURE_INCOMPAT_LARGEDIR) ? 2 : 1);
	if (r.info_length != 8)
		return bad(c, "the root's info length is %u, not 8", r.info_length);
	hv = r.hash_version;
	if (hv > 2 && !(hv == 6 && (flags & EXT4_CASEFOLD_FL) && (flags & EXT4_ENCRYPT_FL)))
		return bad(c, "the root names hash version %d, which is none the kernel "
			   "knows", hv);
	if (r.unused_flags & DX_HASH_FLAG_INCOMPAT)
		return bad(c, "the root has flags 0x%x set", r.unused_flags);
	c->levels = r.indirect_levels;
	p->dx_version = e4_dx_effective_version(p->fs, hv);
	/* p->buf is where the nodes are read: the root is walked from a copy */
	memcpy(c->bufs, p->buf, p->bs);
	return check_node(c, c->bufs, 0, DX_ROOT_COUNT_OFF, 0, (uint64_t)1 << 32);
}

/* Say the fault and ask to clear the index (*cleared 1 when it was).
 * As e2fsck, a fault in an index block's own fields is cleared when
 * preening; one found in what it names (leaves named twice or not at
 * all, names outside their leaf's range) stops preen (leaves). */
static errcode_t give_up(struct pass2 *p, const char *why, int leaves, int *cleared)
{
	struct problem_ctx pctx = { 0 };

	*cleared = 0;
	pctx.dir = p->dir;
	pctx.str = why;
	fix_problem(p->ctx, PR_2_HTREE_BAD, &pctx);
	if (!fix_problem(p->ctx, leaves ? PR_2_HTREE_CLEAR_LEAVES : PR_2_HTREE_CLEAR, &pctx))
		return 0;
	*cleared = 1;
	return p2_clear_index(p);
}

errcode_t p2_clear_index(struct pass2 *p)
{
	p->ib.inode.i_flags = e4_cpu_to_le32(e4_le32(p->ib.inode.i_flags) & ~EXT4_INDEX_FL);
	if (p->ctx->read_only)
		return 0;
	return e4_inode_write(p->fs, p->dir, &p->ib);
}

errcode_t p2_check_index(struct pass2 *p)
{
	struct dxcheck c = { p, NULL, 0, 0, "", 0, 0, 0 };
	e4_blk_t pblk;
	uint64_t lblk;
	errcode_t err;
	int cleared;

	p->indexed = 0;
	if (!p->dir_index) {
		snprintf(c.why, sizeof(c.why), "the filesystem lacks the dir_index feature");
	} else if (p->nblocks < 2 || p->nblocks > (1ULL << 28)) {
		snprintf(c.why, sizeof(c.why), "it has %llu blocks",
			 (unsigned long long)p->nblocks);
	} else {
		p->ranges = calloc(p->nblocks, sizeof(*p->ranges));
		c.bufs = p->dxbufs;	/* root + up to 3 levels */
		if (!p->ranges)
			return E4_ERR_NO_MEMORY;
		if (dx_read(&c, 0, &pblk))
			snprintf(c.why, sizeof(c.why), "its first block cannot be read");
		else
			check_root(&c);
		for (lblk = 1; !c.why[0] && lblk < p->nblocks; lblk++)
			if (!p->ranges[lblk].refs && (c.leaves = 1))
				bad(&c, "block %llu is not in the index", (unsigned long long)lblk);
	}
	if (!c.why[0]) {
		p->indexed = 1;
		return 0;
	}
	if (c.read_err) {
		/* a read error is said, not repaired: the index is kept as
		 * stored, the directory's entries are unknown (exit 8) */
		struct problem_ctx pctx = { 0 };

		pctx.dir = p->dir;
		pctx.num = c.read_lblk;
		pctx.blk = c.read_pblk;
		pctx.err = c.read_err;
		fix_problem(p->ctx, PR_2_DIR_READ, &pctx);
		p->p->dir_unread = 1;
		e4fsck_fail(p->ctx);
		p->dx_kept_bad = 1;
		p->dx_unread = c.read_lblk + 1;
		return 0;
	}
	err = give_up(p, c.why, c.leaves, &cleared);
	if (!cleared)
		p->dx_kept_bad = 1;
	else {
		free(p->ranges);
		p->ranges = NULL;
	}
	return err;
}

void p2_check_hash(struct pass2 *p, uint64_t lblk, const char *name, unsigned len)
{
	const struct p2_range *r;
	uint32_t h, minor;

	if (!p->indexed || !p->ranges || lblk >= p->nblocks || p->dx_late)
		return;
	if (e4_le32(p->ib.inode.i_flags) & (EXT4_CASEFOLD_FL | EXT4_ENCRYPT_FL))
		return;		/* hashed over a form of the name this pass does not make */
	if (e4_dx_hash(p->dx_version, name, len, p->seed, &h, &minor))
		return;
	h &= ~1u;
	r = &p->ranges[lblk];
	if (h < (r->lo & ~1u) || (h >= r->hi && !((r->hi & 1) && h == (r->hi & ~1ull))))
		p->dx_late = (int)(lblk ? lblk : 1);
}

errcode_t p2_index_done(struct pass2 *p)
{
	char why[128];
	uint64_t lblk;
	e4_blk_t pblk;
	errcode_t err;
	int cleared;

	if (!p->indexed || !p->dx_late)
		return 0;
	snprintf(why, sizeof(why), "block %d holds a name whose hash is outside the range the "
		 "index gives the block", p->dx_late);
	err = give_up(p, why, 1, &cleared);
	if (err || !cleared)
		return err;
	/* the root and the nodes are leaves now: checked as such, not counted
	 * again */
	p->indexed = 0;
	p->count = 0;
	for (lblk = 0; lblk < p->nblocks && !err; lblk++) {
		if (lblk && !p->ranges[lblk].node)
			continue;
		p->dots = 0;
		if (!p2_read(p, lblk, &pblk))
			err = p2_check_leaf(p, lblk, pblk, 0);
	}
	p->count = 1;
	return err;
}
