/*
 * pass1_meta.c: pass 1's maps (issue 15): the filesystem's metadata,
 * the clusters claimed (and claimed twice), the xattr blocks and who
 * names them.
 *
 * Maps use the library's run-based backend: memory follows the runs, not
 * the size of the device.  The in-use map counts clusters (the shape of
 * e4_bmap_new_blocks(), which pass 5 compares with the on-disk bitmaps);
 * the metadata map counts blocks, so that a data block is judged against
 * metadata block by block.  A cluster the current inode claims again
 * (bigalloc: two extents in one cluster) is its own, not claimed twice;
 * one that another inode or the metadata already holds is recorded in the
 * claimed-twice map for the duplicate-block passes (part 2b).
 */
#include "pass1.h"

#include <stdlib.h>
#include <string.h>

errcode_t p1_maps_create(struct pass1 *p)
{
	const struct e4_geom *geo = p->geo;
	errcode_t err;

	err = e4_bmap_new_blocks(p->fs, E4_BMAP_RUNS, &p->inuse);
	if (!err)
		err = e4_bmap_new_blocks(p->fs, E4_BMAP_RUNS, &p->dup);
	if (!err)
		err = e4_bmap_new_inodes(p->fs, E4_BMAP_RUNS, &p->inodes);
	if (!err)
		err = e4_bmap_create(E4_BMAP_RUNS, geo->first_data_block, geo->blocks_count,
				     &p->meta);
	if (!err)
		err = e4_bmap_create(E4_BMAP_RUNS, geo->first_data_block, geo->blocks_count,
				     &p->xattr);
	if (!err)
		err = e4_bmap_new_inodes(p->fs, E4_BMAP_RUNS, &p->regs);
	if (!err)
		err = links_create(geo->inodes_count, &p->links);
	if (!err && !(p->dirs = calloc(geo->group_count, sizeof(*p->dirs))))
		err = E4_ERR_NO_MEMORY;
	if (!err && !(p->buf = malloc(geo->block_size)))
		err = E4_ERR_NO_MEMORY;
	return err;
}

void p1_maps_free(struct pass1 *p)
{
	if (p->scan)
		e4_inode_scan_close(p->scan);
	p->scan = NULL;
	e4_bmap_free(p->inuse);
	e4_bmap_free(p->dup);
	e4_bmap_free(p->inodes);
	e4_bmap_free(p->meta);
	e4_bmap_free(p->xattr);
	e4_bmap_free(p->regs);
	links_free(p->links);
	dirs_free(&p->dirinfo);
	p->regs = NULL;
	p->links = NULL;
	free(p->dirs);
	free(p->xrefs);
	free(p->own);
	free(p->csums);
	p->csums = NULL;
	p->ncsums = 0;
	p1_ea_free(p);
	free(p->buf);
	p->buf = NULL;
	p->inuse = p->dup = p->inodes = p->meta = p->xattr = NULL;
	p->dirs = NULL;
	p->xrefs = NULL;
	p->own = NULL;
}

/* Clusters [*c0, *c0 + *n) covering blocks [blk, blk + len), len > 0. */
static void to_clusters(const struct pass1 *p, e4_blk_t blk, uint64_t len, uint64_t *c0,
			uint64_t *n)
{
	unsigned cb = p->geo->cluster_bits;

	*c0 = blk >> cb;
	*n = ((blk + len - 1) >> cb) - *c0 + 1;
}

/* Metadata blocks [blk, blk + n), cut to the filesystem (a location out
 * of it was said by pass 0's descriptor checks). */
static errcode_t mark_meta(struct pass1 *p, uint64_t blk, uint64_t n)
{
	uint64_t end = blk + n, c0, nc;
	errcode_t err;

	if (blk < p->geo->first_data_block)
		blk = p->geo->first_data_block;
	if (end > p->geo->blocks_count || end < blk)
		end = p->geo->blocks_count;
	if (blk >= end)
		return 0;
	err = e4_bmap_set_range(p->meta, blk, end - blk);
	to_clusters(p, blk, end - blk, &c0, &nc);
	return err ? err : e4_bmap_set_range(p->inuse, c0, nc);
}

errcode_t p1_mark_metadata(struct pass1 *p)
{
	const struct e4_geom *geo = p->geo;
	struct ext4_super_block *sb = e4_super(p->fs);
	errcode_t err = 0;

	for (e4_group_t g = 0; g < geo->group_count && !err; g++) {
		struct e4_group d;
		e4_blk_t first;
		uint32_t count;

		e4_group_super_area(p->fs, g, &first, &count);
		err = mark_meta(p, first, count);
		if (!err)
			err = e4_group_get(p->fs, g, &d);
		if (!err)
			err = mark_meta(p, d.block_bitmap, 1);
		if (!err)
			err = mark_meta(p, d.inode_bitmap, 1);
		if (!err)
			err = mark_meta(p, d.inode_table, geo->inode_blocks_per_group);
	}
	if (!err && e4_has_incompat(p->fs, EXT4_FEATURE_INCOMPAT_MMP) &&
	    e4_le64(sb->s_mmp_block))
		err = mark_meta(p, e4_le64(sb->s_mmp_block), 1);
	return err;
}

/* Room for one more element in *arr (n used of *cap): 0, or 1 without
 * memory (*arr unchanged). */
int p1_grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	size_t c = *cap ? *cap * 2 : 16;
	void *r;

	if (n < *cap)
		return 0;
	r = realloc(*arr, c * elem);
	if (!r)
		return 1;
	*arr = r;
	*cap = c;
	return 0;
}

/* ---- the current inode's clusters ----------------------------------------- */

void p1_inode_begin(struct pass1 *p, e4_ino_t ino)
{
	p->ino = ino;
	p->nown = 0;
	p->ndup = 0;
	p->data_end[0] = p->data_end[1] = 0;
	p->data_frag[0] = p->data_frag[1] = 0;
}

static errcode_t own_add(struct pass1 *p, uint64_t c0, uint64_t n)
{
	struct p1_range *last = p->nown ? &p->own[p->nown - 1] : NULL;

	if (last && c0 >= last->first && c0 <= last->first + last->len) {
		if (c0 + n > last->first + last->len)
			last->len = c0 + n - last->first;
		return 0;
	}
	if (p1_grow((void **)&p->own, &p->capown, p->nown, sizeof(*p->own)))
		return E4_ERR_NO_MEMORY;
	p->own[p->nown++] = (struct p1_range){ c0, n };
	return 0;
}

static int own_covers(const struct pass1 *p, uint64_t c)
{
	for (size_t k = 0; k < p->nown; k++)
		if (c >= p->own[k].first && c < p->own[k].first + p->own[k].len)
			return 1;
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct p1_range *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

uint64_t p1_inode_clusters(struct pass1 *p)
{
	uint64_t total = 0, end = 0;

	if (p->nown > 1)
		qsort(p->own, p->nown, sizeof(*p->own), range_cmp);
	for (size_t k = 0; k < p->nown; k++) {
		uint64_t f = p->own[k].first, e = f + p->own[k].len;

		if (f < end)
			f = end;
		if (e > f)
			total += e - f;
		if (e > end)
			end = e;
	}
	return total;
}

/* Clusters of [c0, c0 + n) already in use: those not the current inode's
 * own are claimed twice (recorded, counted for the inode). */
static errcode_t note_dups(struct pass1 *p, uint64_t c0, uint64_t n)
{
	uint64_t from = c0, rf, rl;
	errcode_t err = 0;

	while (!err && from < c0 + n && !e4_bmap_next_run(p->inuse, from, &rf, &rl) &&
	       rf < c0 + n) {
		if (rf + rl > c0 + n)
			rl = c0 + n - rf;
		for (uint64_t c = rf; c < rf + rl && !err; c++) {
			/* bigalloc: the inode's own cluster again is shared by
			 * its blocks; a block mapped twice by one inode is not */
			if (p->geo->cluster_bits && own_covers(p, c))
				continue;
			p->ndup++;
			err = e4_bmap_set(p->dup, c);
		}
		from = rf + rl;
	}
	return err;
}

/* Claim blocks [pblk, pblk + len) (inside the filesystem) for the current
 * inode; own: they count as the inode's (not for a shared xattr block);
 * data: file data, which over metadata is claimed twice (passes 1B-1D
 * clone it out, as e2fsck does) rather than refused. */
static enum claim_verdict claim_blocks(struct pass1 *p, e4_blk_t pblk, uint64_t len, int own,
				       int data)
{
	uint64_t c0, n;
	errcode_t err = 0;

	if (!len)
		return CLAIM_OK;
	if (!data && !e4_bmap_range_all_clear(p->meta, pblk, len))
		return CLAIM_META;
	to_clusters(p, pblk, len, &c0, &n);
	/* shared_blocks: files share blocks on purpose (a read-only image) */
	if (!e4_bmap_range_all_clear(p->inuse, c0, n) &&
	    !e4_has_ro_compat(p->fs, EXT4_FEATURE_RO_COMPAT_SHARED_BLOCKS))
		err = note_dups(p, c0, n);
	if (!err)
		err = e4_bmap_set_range(p->inuse, c0, n);
	if (!err && own)
		err = own_add(p, c0, n);
	if (err && !p->err)
		p->err = err;
	return CLAIM_OK;
}

static enum claim_verdict claim_cb(void *priv, e4_ino_t ino, e4_blk_t pblk, uint64_t len,
				   int meta)
{
	struct pass1 *p = priv;
	uint64_t c0, n;

	/* -v: blocks not in one run (map order), data alone and all */
	for (int k = meta ? 1 : 0; k < 2; k++) {
		if (p->data_end[k] && pblk != p->data_end[k])
			p->data_frag[k] = 1;
		p->data_end[k] = pblk + len;
	}
	if (ino != EXT4_BAD_INO)
		return claim_blocks(p, pblk, len, 1, !meta);
	if (!meta)
		p->st.badblocks += len;
	/* the bad-block list: its blocks are in use whatever else holds
	 * them (a bad block inside metadata is a problem of its own) */
	to_clusters(p, pblk, len, &c0, &n);
	if (e4_bmap_set_range(p->inuse, c0, n) && !p->err)
		p->err = E4_ERR_NO_MEMORY;
	return CLAIM_OK;
}

/* Take [c0, c0 + n) out of the current inode's ranges. */
static errcode_t own_remove(struct pass1 *p, uint64_t c0, uint64_t n)
{
	size_t k = 0;

	while (k < p->nown) {
		struct p1_range r = p->own[k];
		uint64_t e = r.first + r.len;

		if (e <= c0 || r.first >= c0 + n) {
			k++;
			continue;
		}
		p->own[k] = p->own[--p->nown];	/* order is restored by the count */
		if (r.first < c0 && own_add(p, r.first, c0 - r.first))
			return E4_ERR_NO_MEMORY;
		if (e > c0 + n && own_add(p, c0 + n, e - (c0 + n)))
			return E4_ERR_NO_MEMORY;
	}
	return 0;
}

static void unclaim_cb(void *priv, e4_ino_t ino, e4_blk_t pblk, uint64_t len, int meta)
{
	struct pass1 *p = priv;
	uint64_t c0, n;
	errcode_t err;

	(void)ino;
	(void)meta;
	if (!len)
		return;
	p1_csum_forget(p, pblk, len);	/* the block is no longer this tree's */
	to_clusters(p, pblk, len, &c0, &n);
	err = own_remove(p, c0, n);
	/* a cluster another claim still holds stays in use */
	for (uint64_t c = c0; c < c0 + n && !err; c++)
		if (!e4_bmap_test(p->dup, c) && !own_covers(p, c))
			err = e4_bmap_clear(p->inuse, c);
	if (err && !p->err)
		p->err = err;
}

const struct check_map_ops p1_claim_ops = { claim_cb, unclaim_cb, p1_csum_defer };

void p1_inode_release(struct pass1 *p, int xattr)
{
	while (p->nown) {
		struct p1_range r = p->own[p->nown - 1];

		unclaim_cb(p, p->ino, r.first << p->geo->cluster_bits,
			   r.len << p->geo->cluster_bits, 0);
	}
	if (xattr && p->nxrefs)
		p->nxrefs--;	/* the reference this inode added last */
}

/* ---- xattr blocks --------------------------------------------------------- */

enum claim_verdict p1_xattr_ref(struct pass1 *p, e4_ino_t ino, e4_blk_t blk)
{
	enum claim_verdict v = CLAIM_OK;

	(void)ino;
	if (!e4_bmap_test(p->xattr, blk)) {
		v = claim_blocks(p, blk, 1, 0, 0);
		if (v != CLAIM_OK)
			return v;
		if (e4_bmap_set(p->xattr, blk) && !p->err)
			p->err = E4_ERR_NO_MEMORY;
	}
	if (p1_grow((void **)&p->xrefs, &p->capxrefs, p->nxrefs, sizeof(*p->xrefs))) {
		p->err = E4_ERR_NO_MEMORY;
		return v;
	}
	p->xrefs[p->nxrefs++] = blk;
	return v;
}

static int blk_cmp(const void *a, const void *b)
{
	e4_blk_t x = *(const e4_blk_t *)a, y = *(const e4_blk_t *)b;

	return x < y ? -1 : x > y;
}

/* An xattr block claimed by an inode cleared afterwards, that no other
 * inode names: no longer in use (unless claimed twice). */
static int drop_unnamed(uint64_t first, uint64_t len, void *priv)
{
	struct pass1 *p = priv;

	for (uint64_t b = first; b < first + len; b++) {
		uint64_t c = b >> p->geo->cluster_bits;

		if ((!p->nxrefs || !bsearch(&b, p->xrefs, p->nxrefs, sizeof(*p->xrefs), blk_cmp)) &&
		    !e4_bmap_test(p->dup, c) && e4_bmap_clear(p->inuse, c))
			return 1;
	}
	return 0;
}

errcode_t p1_xattr_refcounts(struct pass1 *p)
{
	struct problem_ctx pctx = { 0 };
	errcode_t err = 0;

	/* inodes the scan could not read may name these blocks too */
	if (p->scan_failed)
		return 0;
	if (p->nxrefs > 1)
		qsort(p->xrefs, p->nxrefs, sizeof(*p->xrefs), blk_cmp);
	if (e4_bmap_iterate(p->xattr, e4_bmap_start(p->xattr), e4_bmap_end(p->xattr),
			    drop_unnamed, p))
		return E4_ERR_NO_MEMORY;
	for (size_t k = 0, n; k < p->nxrefs && !err; k += n) {
		uint32_t refs;

		for (n = 1; k + n < p->nxrefs && p->xrefs[k + n] == p->xrefs[k]; n++)
			;
		/* the block was read and judged when an inode named it */
		if (e4_xattr_block_refcount(p->fs, p->xrefs[k], &refs) || refs == n)
			continue;
		pctx.blk = p->xrefs[k];
		pctx.num = refs;
		pctx.num2 = n;
		if (fix_problem(p->ctx, PR_1_XATTR_REFCOUNT, &pctx) && !p->ctx->read_only)
			err = e4_xattr_block_refcount_set(p->fs, p->xrefs[k], (uint32_t)n);
	}
	return err;
}
