/*
 * blockmap_write.c: changing ext2/ext3 indirect block maps (format doc
 * section 7.1): map a logical range to physical blocks (indirect blocks
 * created on the way) and punch a range (data blocks and indirect blocks
 * left empty freed).  The readers are in blockmap.c.
 *
 * Addressing: logical blocks 0..11 are i_block[0..11]; then apb = bs/4
 * blocks under the single indirect block (i_block[12]), apb^2 under the
 * double (i_block[13]) and apb^3 under the triple (i_block[14]).  A level-k
 * indirect block holds apb le32 numbers of level-(k-1) blocks (level 1:
 * data blocks); 0 is a hole.  The kernel's logical block numbers are
 * 32-bit (ext4_lblk_t), so nothing at or past 2^32 is mapped either (that
 * only binds with 16 KiB blocks and more).
 *
 * i_blocks counts data and indirect blocks (e4_inode_blocks_set(): the
 * huge_file rules).  Indirect blocks are written through the block cache;
 * bitmaps change in memory (e4_alloc_flush() writes them).
 */
#include <stdlib.h>
#include <string.h>

#include "map_int.h"

#define BM_NDIR		EXT4_NDIR_BLOCKS
#define BM_LIMIT	(1ULL << 32)	/* 32-bit logical block numbers */

uint64_t e4_blockmap_max_blocks(e4_fs *fs)
{
	uint64_t apb = fs->geom.block_size / 4;
	uint64_t n = BM_NDIR + apb + apb * apb + apb * apb * apb;

	return n < BM_LIMIT ? n : BM_LIMIT;
}

static int blk_ok(e4_fs *fs, uint64_t blk)
{
	return blk > fs->geom.first_data_block && blk < fs->geom.blocks_count;
}

/* ---- mapping a range ---------------------------------------------------- */
/* The indirect blocks the set walks through, one per level (1..3), each
 * written back when the walk leaves it. */
struct bm_set {
	e4_fs *fs;
	struct ext4_inode *inode;
	unsigned apb;
	int64_t delta;			/* i_blocks change, filesystem blocks */
	e4_blk_t goal;			/* for new indirect blocks */
	struct {
		uint32_t *buf;
		uint32_t blk;		/* 0: nothing loaded */
		int dirty;
	} lv[4];
};

static errcode_t lv_flush(struct bm_set *c, unsigned k)
{
	errcode_t err = 0;

	if (c->lv[k].blk && c->lv[k].dirty)
		err = e4_io_write_blk(c->fs->io, c->lv[k].blk, 1, c->lv[k].buf);
	c->lv[k].dirty = 0;
	return err;
}

/* Make indirect block blk the one loaded at level k. */
static errcode_t lv_load(struct bm_set *c, unsigned k, uint32_t blk)
{
	errcode_t err;

	if (c->lv[k].blk == blk)
		return 0;
	err = lv_flush(c, k);
	if (err)
		return err;
	c->lv[k].blk = 0;
	if (!blk_ok(c->fs, blk))
		return E4_ERR_BAD_IND_BLOCK;
	err = e4_read_block(c->fs, blk, c->lv[k].buf);
	if (!err)
		c->lv[k].blk = blk;
	return err;
}

/* A new zeroed indirect block loaded at level k, its number put in *slot. */
static errcode_t lv_new(struct bm_set *c, unsigned k, uint32_t *slot)
{
	uint64_t got;
	e4_blk_t b;
	errcode_t err;

	err = lv_flush(c, k);
	if (!err)
		err = e4_alloc_blocks(c->fs, c->goal, 1, 1, &b, &got);
	if (!err && b >= BM_LIMIT) {
		(void)e4_block_mark(c->fs, b, got, 0, NULL);
		err = E4_ERR_NO_SPACE;		/* block maps hold 32-bit numbers */
	}
	if (err)
		return err;
	memset(c->lv[k].buf, 0, c->fs->geom.block_size);
	c->lv[k].blk = (uint32_t)b;
	c->lv[k].dirty = 1;
	*slot = e4_cpu_to_le32((uint32_t)b);
	c->delta++;
	c->goal = b + 1;
	return 0;
}

/* The slot mapping logical block lblk (< e4_blockmap_max_blocks()), with
 * the indirect blocks above it created; *left = slots after it in the
 * same array; *level = the level whose buffer holds it (0: the inode). */
static errcode_t slot_of(struct bm_set *c, uint64_t lblk, uint32_t **slot, uint64_t *left,
			 unsigned *level)
{
	uint64_t rel, span = 1;
	uint32_t *s;
	unsigned k;

	if (lblk < BM_NDIR) {
		*slot = &c->inode->i_block[lblk];
		*left = BM_NDIR - lblk - 1;
		*level = 0;
		return 0;
	}
	rel = lblk - BM_NDIR;
	for (k = 1; k <= 3; k++) {
		span *= c->apb;
		if (rel < span)
			break;
		rel -= span;
	}
	s = &c->inode->i_block[BM_NDIR + k - 1];
	*level = 0;
	for (; k >= 1; k--) {
		errcode_t err;

		if (*s) {
			err = lv_load(c, k, e4_le32(*s));
		} else {
			err = lv_new(c, k, s);
			if (!err && *level)
				c->lv[*level].dirty = 1;
		}
		if (err)
			return err;
		span /= c->apb;
		s = &c->lv[k].buf[rel / span];
		*level = k;
		rel %= span;
	}
	*slot = s;
	*left = c->apb - 1 - (s - c->lv[1].buf);
	return 0;
}

static errcode_t bm_set(struct bm_set *c, uint64_t lblk, uint64_t count, e4_blk_t pblk)
{
	uint64_t done = 0;
	errcode_t err = 0;

	while (done < count) {
		uint32_t *s;
		uint64_t left, n;
		unsigned level;

		err = slot_of(c, lblk + done, &s, &left, &level);
		if (err)
			break;
		n = count - done < left + 1 ? count - done : left + 1;
		for (uint64_t i = 0; i < n; i++) {
			if (s[i])
				c->delta--;	/* unmapped, not freed */
			s[i] = e4_cpu_to_le32((uint32_t)(pblk + done + i));
			c->delta++;
		}
		if (level)
			c->lv[level].dirty = 1;
		done += n;
	}
	return err;
}

/* Start a walk: buffers, goal; i_blocks must take `worst` more blocks
 * (checked on a copy, before anything changes). */
static errcode_t bm_begin(struct bm_set *c, e4_fs *fs, struct ext4_inode *inode, e4_blk_t goal,
			  uint64_t worst)
{
	struct ext4_inode probe;
	errcode_t err;

	memset(c, 0, sizeof(*c));
	memcpy(&probe, inode, sizeof(probe));
	err = e4_map_iblocks_add(fs, &probe, (int64_t)worst);
	if (err)
		return err;
	c->fs = fs;
	c->inode = inode;
	c->apb = fs->geom.block_size / 4;
	c->goal = goal;
	for (unsigned k = 1; k <= 3; k++) {
		c->lv[k].buf = malloc(fs->geom.block_size);
		if (!c->lv[k].buf)
			return E4_ERR_NO_MEMORY;
	}
	return 0;
}

/* End it: the indirect blocks changed written, i_blocks follows. */
static errcode_t bm_end(struct bm_set *c, errcode_t err)
{
	errcode_t err2;

	for (unsigned k = 1; k <= 3; k++) {
		err2 = c->lv[k].buf ? lv_flush(c, k) : 0;
		if (!err)
			err = err2;
		free(c->lv[k].buf);
		c->lv[k].buf = NULL;
	}
	err2 = c->inode ? e4_map_iblocks_add(c->fs, c->inode, c->delta) : 0;
	return err ? err : err2;
}

static errcode_t bm_writable(e4_fs *fs)
{
	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	return fs->geom.cluster_bits ? E4_ERR_UNSUPPORTED : 0;	/* bigalloc needs extents */
}

errcode_t e4_blockmap_set(e4_fs *fs, struct ext4_inode *inode, uint64_t lblk, uint64_t count,
			  e4_blk_t pblk, unsigned flags)
{
	struct bm_set c;
	errcode_t err = bm_writable(fs);

	if (err)
		return err;
	if (flags & E4_MAP_UNWRITTEN)
		return E4_ERR_UNSUPPORTED;	/* no unwritten state in block maps */
	if (flags)
		return E4_ERR_INVALID_ARGUMENT;
	if (!count)
		return 0;
	if (lblk >= e4_blockmap_max_blocks(fs) || count > e4_blockmap_max_blocks(fs) - lblk)
		return E4_ERR_FILE_TOO_BIG;
	if (!pblk || pblk <= fs->geom.first_data_block || pblk >= fs->geom.blocks_count ||
	    count > fs->geom.blocks_count - pblk || pblk + count > BM_LIMIT)
		return E4_ERR_INVALID_ARGUMENT;
	/* the worst case: every block new, every indirect block on the way */
	err = bm_begin(&c, fs, inode, pblk + count,
		       count + 2 * (count / (fs->geom.block_size / 4) + 3));
	if (!err)
		err = bm_set(&c, lblk, count, pblk);
	return bm_end(&c, err);
}

errcode_t e4_blockmap_reserve(e4_fs *fs, struct ext4_inode *inode, uint64_t lblk,
			      e4_blk_t *goal)
{
	struct bm_set c;
	uint32_t *slot;
	uint64_t left;
	unsigned level;
	errcode_t err = bm_writable(fs);

	if (err || lblk < BM_NDIR)
		return err;
	if (lblk >= e4_blockmap_max_blocks(fs))
		return E4_ERR_FILE_TOO_BIG;
	err = bm_begin(&c, fs, inode, *goal, 3);
	if (!err)
		err = slot_of(&c, lblk, &slot, &left, &level);
	*goal = c.goal;
	return bm_end(&c, err);
}

/* ---- punching a range ----------------------------------------------------- */
struct bm_punch {
	e4_fs *fs;
	unsigned apb;
	uint64_t a, b;			/* logical range [a, b) */
	uint64_t freed;			/* blocks freed */
	e4_blk_t run, run_len;		/* data blocks to free, contiguous */
	uint32_t *buf[4];		/* one buffer per level */
};

static errcode_t free_now(struct bm_punch *p, e4_blk_t blk, uint64_t count)
{
	return e4_map_free_blocks(p->fs, blk, count, &p->freed);
}

static errcode_t run_flush(struct bm_punch *p)
{
	errcode_t err = p->run_len ? free_now(p, p->run, p->run_len) : 0;

	p->run_len = 0;
	return err;
}

/* Free data block blk, batched with the ones before it when contiguous. */
static errcode_t free_data(struct bm_punch *p, e4_blk_t blk)
{
	errcode_t err;

	if (p->run_len && p->run + p->run_len == blk) {
		p->run_len++;
		return 0;
	}
	err = run_flush(p);
	p->run = blk;
	p->run_len = 1;
	return err;
}

/* Drop the entries of level-`level` indirect block blk (covering logical
 * blocks from base) that fall in [a, b); *empty when no entry is left. */
static errcode_t punch_ind(struct bm_punch *p, uint32_t blk, unsigned level, uint64_t base,
			   int *empty)
{
	uint64_t span = 1, i0, i1;
	uint32_t *map = p->buf[level];
	errcode_t err;
	int dirty = 0;

	*empty = 0;
	for (unsigned l = 1; l < level; l++)
		span *= p->apb;
	if (!blk_ok(p->fs, blk))
		return E4_ERR_BAD_IND_BLOCK;
	err = e4_read_block(p->fs, blk, map);
	if (err)
		return err;
	i0 = p->a > base ? (p->a - base) / span : 0;
	i1 = (p->b - base + span - 1) / span;
	if (i1 > p->apb)
		i1 = p->apb;
	for (uint64_t i = i0; i < i1; i++) {
		uint32_t e = e4_le32(map[i]);
		int cempty = 1;

		if (!e)
			continue;
		if (level == 1) {
			err = free_data(p, e);
		} else {
			err = punch_ind(p, e, level - 1, base + i * span, &cempty);
			if (!err && cempty)
				err = run_flush(p);
			if (!err && cempty)
				err = free_now(p, e, 1);
			/* the child used the buffers below: ours is intact */
		}
		if (err)
			return err;
		if (cempty) {
			map[i] = 0;
			dirty = 1;
		}
	}
	/* written even when it is about to be freed: like e2fsck, the
	 * dropped entries read as zero afterwards */
	if (dirty)
		err = e4_io_write_blk(p->fs->io, blk, 1, map);
	*empty = 1;
	for (unsigned i = 0; i < p->apb && *empty; i++)
		if (map[i])
			*empty = 0;
	return err;
}

static errcode_t bm_punch(struct bm_punch *p, struct ext4_inode *inode)
{
	uint64_t base = BM_NDIR, span = p->apb;
	errcode_t err = 0;

	for (uint64_t i = p->a; i < BM_NDIR && i < p->b; i++) {
		uint32_t e = e4_le32(inode->i_block[i]);

		if (e) {
			err = free_data(p, e);
			if (err)
				return err;
			inode->i_block[i] = 0;
		}
	}
	for (unsigned level = 1; level <= 3 && base < p->b; level++) {
		uint32_t *slot = &inode->i_block[BM_NDIR + level - 1];
		int empty = 0;

		if (*slot && base + span > p->a) {
			err = punch_ind(p, e4_le32(*slot), level, base, &empty);
			if (!err && empty)
				err = run_flush(p);
			if (!err && empty)
				err = free_now(p, e4_le32(*slot), 1);
			if (err)
				return err;
			if (empty)
				*slot = 0;
		}
		base += span;
		span *= p->apb;
	}
	return run_flush(p);
}

errcode_t e4_blockmap_punch(e4_fs *fs, struct ext4_inode *inode, uint64_t lblk, uint64_t count,
			    uint64_t *freed)
{
	struct bm_punch p;
	errcode_t err = 0, err2;

	if (freed)
		*freed = 0;
	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (!count || lblk >= e4_blockmap_max_blocks(fs))
		return 0;
	memset(&p, 0, sizeof(p));
	p.fs = fs;
	p.apb = fs->geom.block_size / 4;
	p.a = lblk;
	p.b = count > e4_blockmap_max_blocks(fs) - lblk ? e4_blockmap_max_blocks(fs) : lblk + count;
	for (unsigned k = 1; k <= 3; k++) {
		p.buf[k] = malloc(fs->geom.block_size);
		if (!p.buf[k])
			err = E4_ERR_NO_MEMORY;
	}
	if (!err)
		err = bm_punch(&p, inode);
	for (unsigned k = 1; k <= 3; k++)
		free(p.buf[k]);
	/* a smaller count always fits */
	err2 = e4_map_iblocks_add(fs, inode, -(int64_t)p.freed);
	if (freed)
		*freed = p.freed;
	return err ? err : err2;
}
