/*
 * check_map_ind.c: one inode's direct and indirect block map (check_map.h;
 * format doc section 7.1): i_block[0..11] data blocks, [12] the indirect,
 * [13] the double and [14] the triple indirect block, each holding
 * block_size / 4 le32 block numbers (0: a hole).
 *
 * A block number outside the filesystem or into metadata is cleared (set
 * to 0) under a yes.  An indirect block that is mostly bad numbers is not
 * an indirect block at all (a stray write, a block reused by another file)
 * and the pointer to it is cleared instead of each of its entries.  A read
 * error is said and the block kept, never repaired by a deletion.  How
 * many of i_block's pointers the size needs is the driver's business.
 */
#include <string.h>

#include "check_map_int.h"

static const char *const level_name[] = { "data", "indirect", "double indirect",
					  "triple indirect" };

/* The garbage rule: an indirect block holding at least GARBAGE_MIN block
 * numbers outside the filesystem, which are more than half of its nonzero
 * entries, is garbage.  A real indirect block with a few flipped numbers
 * stays below it (each bad number is cleared alone); a block of text,
 * zeros-and-noise or another file's data has mostly huge numbers once
 * read as le32 (blocks_count is far below 2^32 on any filesystem that
 * has block maps), and is above it. */
#define GARBAGE_MIN	8

static inline uint32_t ptr_get(const uint8_t *b, unsigned i)
{
	return e4_get_le32(b + 4 * (size_t)i);
}

static inline void ptr_clear(uint8_t *b, unsigned i)
{
	memset(b + 4 * (size_t)i, 0, 4);
}

/* Data block b at logical lblk, alone: verdict (a yes clears it). */
static enum cm_verdict data_ptr(struct cm *c, uint32_t b, uint64_t lblk)
{
	struct problem_ctx p = { 0 };

	p.blk = b;
	p.num = lblk;
	if (!cm_in_fs(c, b, 1))
		return cm_ask(c, PR_1_MAP_BLOCK_BAD, &p) ? CM_DROP : CM_SKIP;
	if (c->dir_end && lblk >= c->dir_end) {
		/* its size could not cover it: a size fix would not be written */
		p.num2 = 1;
		p.blkcount = c->dir_end;
		return cm_ask(c, PR_1_MAP_DIR_TOO_BIG, &p) ? CM_DROP : CM_SKIP;
	}
	if (cm_claim(c, b, 1, 0) == CLAIM_META)
		return cm_ask(c, PR_1_MAP_BLOCK_IN_META, &p) ? CM_DROP : CM_SKIP;
	cm_note_end(c, lblk + 1, 0);
	return CM_KEEP;
}

/* Data block numbers slots[0..n) (le32) mapping logical base on: claimed
 * a run of contiguous blocks at a time (one claim for a whole contiguous
 * file), one by one where a run touches metadata; *dirty when a slot was
 * cleared. */
static void data_ptrs(struct cm *c, uint8_t *slots, unsigned n, uint64_t base, int *dirty)
{
	unsigned j = 0, k;

	if (base >= (1ULL << 32))
		return;	/* past 32-bit logical block numbers: nothing maps there */
	if (base + n > (1ULL << 32))
		n = (unsigned)((1ULL << 32) - base);
	while (j < n) {
		uint32_t b = ptr_get(slots, j);

		if (!b) {
			j++;
			continue;
		}
		for (k = j + 1; k < n && ptr_get(slots, k) == b + (k - j) && cm_in_fs(c, b, k - j + 1);
		     k++)
			;
		if (cm_in_fs(c, b, k - j) && !(c->dir_end && base + k > c->dir_end) &&
		    cm_claim(c, b, k - j, 0) == CLAIM_OK) {
			cm_note_end(c, base + k, 0);
			j = k;
			continue;
		}
		for (; j < k; j++)
			if (data_ptr(c, ptr_get(slots, j), base + j) == CM_DROP) {
				ptr_clear(slots, j);
				*dirty = 1;
			}
	}
}

/* Logical blocks one entry of a level-`level` indirect block covers. */
static uint64_t span(const struct cm *c, unsigned level)
{
	uint64_t apb = c->bs / 4, s = 1;

	while (--level)
		s *= apb;
	return s;
}

static errcode_t ind_block(struct cm *c, uint32_t b, unsigned level, uint64_t base,
			   enum cm_verdict *v);

/* The entries of indirect block buf (level `level`, first logical block
 * base); *dirty when one was cleared. */
static errcode_t ind_entries(struct cm *c, uint8_t *buf, unsigned level, uint64_t base,
			     int *dirty)
{
	unsigned apb = c->bs / 4;
	uint64_t s = span(c, level);

	if (level == 1) {
		data_ptrs(c, buf, apb, base, dirty);
		return 0;
	}
	for (unsigned j = 0; j < apb; j++) {
		uint32_t b = ptr_get(buf, j);
		enum cm_verdict v;
		errcode_t err;

		if (!b)
			continue;
		if (base + j * s >= (1ULL << 32))
			break;	/* past 32-bit logical block numbers: nothing maps there */
		err = ind_block(c, b, level - 1, base + j * s, &v);
		if (err)
			return err;
		if (v == CM_DROP) {
			ptr_clear(buf, j);
			*dirty = 1;
		}
	}
	return 0;
}

/* Indirect block b of level `level` (1 single, 2 double, 3 triple)
 * mapping from logical block base. */
static errcode_t ind_block(struct cm *c, uint32_t b, unsigned level, uint64_t base,
			   enum cm_verdict *v)
{
	struct problem_ctx p = { 0 };
	uint8_t *buf = c->buf[level];
	unsigned apb = c->bs / 4, bad = 0, used = 0;
	int dirty = 0, twice;
	errcode_t err;

	p.blk = b;
	p.str = level_name[level];
	if (!cm_in_fs(c, b, 1)) {
		*v = cm_ask(c, PR_1_MAP_IND_BAD, &p) ? CM_DROP : CM_SKIP;
		return 0;
	}
	err = cm_seen(c, b, &twice);
	if (err)
		return err;
	if (twice) {
		/* an indirect block with two parents: walked once */
		*v = cm_ask(c, PR_1_MAP_NODE_TWICE, &p) ? CM_DROP : CM_SKIP;
		return 0;
	}
	if (cm_claim(c, b, 1, 1) == CLAIM_META) {
		*v = cm_ask(c, PR_1_MAP_IND_IN_META, &p) ? CM_DROP : CM_SKIP;
		return 0;
	}
	*v = CM_KEEP;
	err = e4_io_read_blk(e4_fs_io(c->fs), b, 1, buf);
	if (err) {
		p.err = err;
		cm_ask(c, PR_1_MAP_IND_READ, &p);
		e4fsck_fail(c->ctx);	/* an operational error: exit 8 */
		return 0;
	}
	for (unsigned j = 0; j < apb; j++) {
		uint32_t x = ptr_get(buf, j);

		if (x) {
			used++;
			bad += !cm_in_fs(c, x, 1);
		}
	}
	if (bad >= GARBAGE_MIN && 2 * bad > used) {
		p.num = bad;
		p.num2 = used;
		*v = cm_ask(c, PR_1_MAP_IND_GARBAGE, &p) ? CM_DROP : CM_SKIP;
		cm_unclaim(c, b, 1, 1);
		return 0;
	}
	err = ind_entries(c, buf, level, base, &dirty);
	if (!err && dirty)
		err = e4_io_write_blk(e4_fs_io(c->fs), b, 1, buf);
	return err;
}

/* i_size against what a block map addresses (e4_blockmap_max_blocks()):
 * a yes lowers it to that (nothing can be mapped past it). */
static void size_limit(struct cm *c)
{
	uint64_t max = e4_blockmap_max_blocks(c->fs) * c->bs;
	uint64_t size = e4_inode_size(c->inode);
	struct problem_ctx p = { 0 };

	if (size <= max)
		return;
	p.num = size;
	p.num2 = max;
	if (cm_ask(c, PR_1_MAP_BLOCKMAP_SIZE, &p)) {
		c->inode->i_size_lo = e4_cpu_to_le32((uint32_t)max);
		c->inode->i_size_high = e4_cpu_to_le32((uint32_t)(max >> 32));
		c->res->inode_changed = 1;
	}
}

errcode_t cm_check_blockmap(struct cm *c)
{
	uint32_t *ib = c->inode->i_block;
	uint64_t base = EXT4_NDIR_BLOCKS;
	int dirty = 0;
	errcode_t err;

	size_limit(c);
	data_ptrs(c, (uint8_t *)ib, EXT4_NDIR_BLOCKS, 0, &dirty);
	for (unsigned level = 1; level <= 3; level++) {
		uint32_t b = e4_le32(ib[EXT4_NDIR_BLOCKS + level - 1]);
		enum cm_verdict v;

		if (b) {
			err = ind_block(c, b, level, base, &v);
			if (err)
				return err;
			if (v == CM_DROP) {
				ib[EXT4_NDIR_BLOCKS + level - 1] = 0;
				dirty = 1;
			}
		}
		base += span(c, level + 1);
	}
	if (dirty)
		c->res->inode_changed = 1;
	return 0;
}
