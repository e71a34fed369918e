/*
 * pass2.c: pass 2 of the full check, directory structure (dirpass.h,
 * pass2.h; issue 16).
 *
 * Every directory pass 1 found in use (p->dirinfo, inode order) is read
 * block by block through its map: an indexed directory's index first
 * (pass2_htree.c), then each block below i_size: the index root's '.'
 * and '..', index nodes skipped, leaves checked record by record
 * (pass2_entry.c).  An inline directory's records are read from the
 * inode (i_block, then system.data) and written back the same way.  Each
 * kept entry is counted for pass 4 ('.' and '..' included) and each
 * directory's '..' and first parent noted for pass 3.  Holes, unreadable
 * blocks and maps that cannot be followed are said and left: nothing is
 * allocated or cleared for them here.
 */
#include "pass2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An inline directory (section 8.6): parent in i_block[0..4), records in
 * i_block[4..60) and in system.data. */
static errcode_t check_inline(struct pass2 *p)
{
	struct problem_ctx pctx = { 0 };
	size_t size = 0, got = 0;
	uint8_t *buf = NULL;
	uint32_t parent;
	int changed = 0;
	errcode_t err;

	pctx.dir = p->dir;
	err = e4_inline_data_size(p->fs, p->dir, &p->ib.inode, &size);
	if (!err && (size < EXT4_MIN_INLINE_DATA_SIZE || size > EXT4_MIN_INLINE_DATA_SIZE + 65536 ||
		     size % 4))
		err = E4_ERR_INLINE_DATA;
	if (!err && !(buf = p->tmp = malloc(size)))
		return E4_ERR_NO_MEMORY;
	if (!err)
		err = e4_inline_data_get(p->fs, p->dir, &p->ib.inode, buf, size, &got);
	if (!err && got != size)
		err = E4_ERR_INLINE_DATA;
	if (err) {
		free(buf);
		p->tmp = NULL;
		pctx.err = err;
		fix_problem(p->ctx, PR_2_INLINE_BAD, &pctx);
		return 0;
	}
	parent = e4_get_le32(buf);
	pctx.ino = parent;
	if ((parent > p->inodes_count || !e4_bmap_test(p->p->inodes, parent) ||
	     (parent < p->first_ino && parent != EXT4_ROOT_INO)) &&
	    fix_problem(p->ctx, PR_2_INLINE_PARENT, &pctx)) {
		parent = EXT4_ROOT_INO;
		buf[0] = EXT4_ROOT_INO;
		buf[1] = buf[2] = buf[3] = 0;
		changed = 1;
	}
	dirs_find(&p->p->dirinfo, p->dir)->dotdot = parent;
	p->dots = 2;
	err = p2_count(p, p->dir);
	if (!err)
		err = p2_count(p, parent);
	if (!err)
		err = p2_check_region(p, buf, EXT4_INLINE_DOTDOT_SIZE, EXT4_MIN_INLINE_DATA_SIZE,
				      &changed);
	if (!err && size > EXT4_MIN_INLINE_DATA_SIZE)
		err = p2_check_region(p, buf + EXT4_MIN_INLINE_DATA_SIZE, 0,
				      (unsigned)(size - EXT4_MIN_INLINE_DATA_SIZE), &changed);
	if (!err && changed && !p->ctx->read_only)
		err = e4_dir_inline_put(p->fs, p->dir, &p->ib, buf, size);
	free(buf);
	p->tmp = NULL;
	return err;
}

/* One block of a directory with a map. */
static errcode_t check_block(struct pass2 *p, uint64_t lblk, e4_blk_t pblk)
{
	struct problem_ctx pctx = { 0 };
	struct e4_dirent_raw d;
	int root = 0;
	errcode_t err;

	err = e4_io_read_blk_nocache(e4_fs_io(p->fs), pblk, 1, p->buf);
	if (err && p->dx_unread == lblk + 1)
		return 0;	/* said by the index check */
	if (err) {
		pctx.dir = p->dir;
		pctx.blk = pblk;
		pctx.num = lblk;
		pctx.err = err;
		fix_problem(p->ctx, PR_2_DIR_READ, &pctx);
		p->p->dir_unread = 1;
		e4fsck_fail(p->ctx);	/* a read error: exit 8 */
		return 0;
	}
	if (p->indexed) {
		if (lblk && p->ranges[lblk].node)
			return 0;
		root = lblk == 0;
	} else if (p->dx_kept_bad) {
		/* an index kept as it is (answered no): its blocks are not
		 * leaves; the root's '.' and '..' are still read */
		if (!e4_dirent_raw_at(p->buf, p->bs, 0, &d) && !d.inode && d.rec_len == p->bs)
			return 0;
		root = lblk == 0 && !e4_dirent_raw_at(p->buf, p->bs, 12, &d) &&
		       d.rec_len == p->bs - 12;
	}
	return p2_check_leaf(p, lblk, pblk, root);
}

/* Every block below i_size, through the map, one run at a time. */
static errcode_t check_blocks(struct pass2 *p)
{
	struct problem_ctx pctx = { 0 };
	uint64_t lblk = 0;
	errcode_t err;

	pctx.dir = p->dir;
	while (lblk < p->nblocks) {
		e4_blk_t pblk;
		uint32_t len;
		unsigned flags;

		err = e4_bmap(p->fs, p->dir, &p->ib.inode, lblk, &pblk, &len, &flags);
		if (err) {
			pctx.err = err;
			fix_problem(p->ctx, PR_2_DIR_MAP, &pctx);
			p->p->dir_unread = 1;
			return 0;
		}
		if (!len)
			len = 1;
		if (!pblk) {
			pctx.num = lblk;
			fix_problem(p->ctx, PR_2_DIR_HOLE, &pctx);
			if (len >= p->nblocks - lblk)
				break;
			lblk += len;
			continue;
		}
		for (uint32_t i = 0; i < len && lblk < p->nblocks; i++, lblk++) {
			err = check_block(p, lblk, pblk + i);
			if (err)
				return err;
		}
	}
	return p2_index_done(p);
}

static errcode_t check_dir(struct pass2 *p, e4_ino_t dir)
{
	uint64_t size, max;
	errcode_t err;

	p->dir = dir;
	p->dots = 0;
	p->count = 1;
	p->indexed = p->dx_kept_bad = p->dx_late = 0;
	p->dx_unread = 0;
	free(p->ranges);
	p->ranges = NULL;
	err = e4_inode_read_nocache(p->fs, dir, &p->ib);
	if (err && err != E4_ERR_INODE_CSUM) {
		/* pass 1 read it: a read error now is said and the directory left */
		struct problem_ctx pctx = { 0 };

		pctx.dir = dir;
		pctx.err = err;
		fix_problem(p->ctx, PR_2_DIR_MAP, &pctx);
		p->p->dir_unread = 1;
		e4fsck_fail(p->ctx);	/* a read error: exit 8 */
		return 0;
	}
	p->gen = e4_le32(p->ib.inode.i_generation);
	p->encrypted = (e4_le32(p->ib.inode.i_flags) & EXT4_ENCRYPT_FL) != 0;
	if (e4_le32(p->ib.inode.i_flags) & EXT4_INLINE_DATA_FL)
		return check_inline(p);
	if (!e4_inode_has_map(p->fs, &p->ib.inode))
		return 0;
	size = e4_inode_size(&p->ib.inode);
	max = e4_has_incompat(p->fs, EXT4_FEATURE_INCOMPAT_LARGEDIR) ? (1ULL << 44) : (1ULL << 31);
	if (size > max)
		size = max;
	p->nblocks = (size + p->bs - 1) / p->bs;
	if (e4_le32(p->ib.inode.i_flags) & EXT4_INDEX_FL) {
		err = p2_check_index(p);
		if (err)
			return err;
	}
	return check_blocks(p);
}

static void free_state(struct pass2 *p)
{
	free(p->ranges);
	free(p->buf);
	free(p->dxbufs);
	free(p->tmp);
	free(p->seen);
	p->ranges = NULL;
	p->buf = p->dxbufs = p->tmp = NULL;
	p->seen = NULL;
}

/* A stop inside a question (preen, quit): pass 2's memory, then pass 1's. */
static void stop_free(void *priv)
{
	struct pass2 *p = priv;

	free_state(p);
	if (p->prev_free)
		p->prev_free(p->prev_priv);
}

errcode_t e4fsck_pass2(struct e4fsck *ctx, struct pass1 *p1)
{
	const struct e4_geom *g = e4_geom(ctx->fs);
	struct ext4_super_block *sb = e4_super(ctx->fs);
	struct pass2 p;
	errcode_t err = 0;

	memset(&p, 0, sizeof(p));
	p.ctx = ctx;
	p.p = p1;
	p.fs = ctx->fs;
	p.bs = g->block_size;
	p.filetype = e4_has_incompat(p.fs, EXT4_FEATURE_INCOMPAT_FILETYPE);
	p.csum = g->metadata_csum;
	p.dir_index = e4_has_compat(p.fs, EXT4_FEATURE_COMPAT_DIR_INDEX);
	p.first_ino = g->first_ino;
	p.inodes_count = g->inodes_count;
	for (int i = 0; i < 4; i++)
		p.seed[i] = e4_le32(sb->s_hash_seed[i]);
	p.buf = malloc(p.bs);
	p.dxbufs = malloc((size_t)4 * p.bs);
	if (!p.buf || !p.dxbufs)
		err = E4_ERR_NO_MEMORY;
	p.prev_free = ctx->stop_free;
	p.prev_priv = ctx->stop_free_priv;
	ctx->stop_free = stop_free;
	ctx->stop_free_priv = &p;
	fix_problem(ctx, PR_2_PASS_HEADER, NULL);
	for (size_t i = 0; !err && i < p1->dirinfo.n; i++)
		err = check_dir(&p, p1->dirinfo.v[i].ino);
	ctx->stop_free = p.prev_free;
	ctx->stop_free_priv = p.prev_priv;
	free_state(&p);
	e4fsck_problem_summary(ctx);
	if (err) {
		e4fsck_fail_msg(ctx, err, "in pass 2");
		return err;
	}
	p1->ran |= E4FSCK_RAN_PASS2;
	return 0;
}

void e4fsck_dir_passes_missing(unsigned ran, struct e4fsck_missing *m)
{
	static const char *const what[] = { "directory structure", "connectivity",
					     "reference counts" };
	static const unsigned bit[] = { E4FSCK_RAN_PASS2, E4FSCK_RAN_PASS3, E4FSCK_RAN_PASS4 };
	unsigned miss[3], nmiss = 0, done[5], ndone = 0;
	size_t w = 0;

	memset(m, 0, sizeof(*m));
	done[ndone++] = 1;
	for (unsigned i = 0; i < 3; i++) {
		if (ran & bit[i]) {
			done[ndone++] = i + 2;
			continue;
		}
		miss[nmiss++] = i + 2;
		w += (size_t)snprintf(m->what + w, sizeof(m->what) - w, "%s%s", w ? ", " : "",
				      what[i]);
	}
	done[ndone++] = 5;
	m->n = nmiss;
	if (nmiss == 1)
		snprintf(m->which, sizeof(m->which), "pass %u", miss[0]);
	else if (nmiss > 1 && miss[nmiss - 1] - miss[0] == nmiss - 1)
		snprintf(m->which, sizeof(m->which), "passes %u-%u", miss[0], miss[nmiss - 1]);
	else if (nmiss > 1)
		snprintf(m->which, sizeof(m->which), "passes %u and %u", miss[0], miss[1]);
	w = 0;
	for (unsigned i = 0; i < ndone; i++)
		w += (size_t)snprintf(m->done + w, sizeof(m->done) - w, "%s%u",
				      !i ? "" : i + 1 == ndone ? " and " : ", ", done[i]);
}
