/*
 * layout_files.c: the blocks of the special files e4_layout_compute()
 * lays out: root, lost+found, the resize inode, the journal and the
 * orphan file, found by first fit as mke2fs's allocator finds them.
 */
#include "layout_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- special files ---------------------------------------------------- */
static errcode_t file_add_extent(struct e4_layout_file *f, uint64_t start, uint64_t len)
{
	if (f->nr_extents && f->extents[f->nr_extents - 1].start +
	    f->extents[f->nr_extents - 1].len == start &&
	    f->extents[f->nr_extents - 1].len + len <= LAYOUT_EXT_MAX_LEN) {
		f->extents[f->nr_extents - 1].len += (uint32_t)len;
		return 0;
	}
	if ((f->nr_extents & 63) == 0) {
		struct e4_layout_extent *e = realloc(f->extents,
						     (f->nr_extents + 64) * sizeof(*e));
		if (!e)
			return E4_ERR_NO_MEMORY;
		f->extents = e;
	}
	f->extents[f->nr_extents].start = start;
	f->extents[f->nr_extents].len = (uint32_t)len;
	f->nr_extents++;
	return 0;
}

static errcode_t file_add_meta(struct e4_layout_file *f, uint64_t blk)
{
	if ((f->nr_meta & 63) == 0) {
		e4_blk_t *m = realloc(f->meta, (f->nr_meta + 64) * sizeof(*m));

		if (!m)
			return E4_ERR_NO_MEMORY;
		f->meta = m;
	}
	f->meta[f->nr_meta++] = blk;
	return 0;
}

/* Take a block at the first free cluster from goal; *blk = it. */
static errcode_t take_block(struct ctx *c, uint64_t goal, uint64_t *blk)
{
	if (e4_lay_new_block(c, goal, blk))
		return E4_ERR_FS_TOO_SMALL;
	e4_lay_mark(c, *blk, 1);
	e4_lay_clear_uninit(c, *blk, 1);
	return c->oom ? E4_ERR_NO_MEMORY : 0;
}

/* Where the reference starts looking for a new file's first block: the
 * first block of the inode's group, or with flex_bg of its flex group's
 * first group (with -N small, lost+found's inode 11 is not in group 0). */
static uint64_t ino_goal(const struct ctx *c, uint32_t ino)
{
	uint64_t g = (ino - 1) / c->l->inodes_per_group;

	g &= ~((1ULL << c->l->log_groups_per_flex) - 1);
	return g_first(c, g);
}

/* File of n blocks taken one at a time, each after the one before (the
 * first from goal): the rest of a cluster first, then the first free
 * cluster, as the reference grows lost+found and the orphan file. */
static errcode_t alloc_chained_file(struct ctx *c, struct e4_layout_file *f, uint64_t goal,
				    uint64_t n)
{
	uint64_t prev = goal, b;
	errcode_t err;

	for (uint64_t i = 0; i < n; i++) {
		if (i && ((prev + 1) & ~c->cmask) == (prev & ~c->cmask)) {
			b = prev + 1;
			e4_lay_mark(c, b, 1);
		} else {
			err = take_block(c, i ? prev & ~c->cmask : prev, &b);
			if (err)
				return err;
		}
		err = file_add_extent(f, b, 1);
		if (err)
			return err;
		f->blocks++;
		prev = b;
	}
	return c->oom ? E4_ERR_NO_MEMORY : 0;
}

/* Extent-mapped file of n blocks allocated as the reference's preallocation does:
 * maximal free runs from goal, each at most 32768 blocks; the extent leaf
 * (needed with a fifth extent) goes at the first free block from one
 * before the first data block. */
static errcode_t alloc_extent_file(struct ctx *c, struct e4_layout_file *f, uint64_t goal,
				   uint64_t n)
{
	uint64_t cur = goal, maxlen = LAYOUT_EXT_MAX_LEN & ~c->cmask;
	uint32_t leaf_cap = (c->l->block_size - 12) / 12;
	uint32_t extents = 0;
	errcode_t err;

	while (n) {
		uint64_t s, len, u;

		if (e4_lay_new_block(c, cur, &s))
			return E4_ERR_FS_TOO_SMALL;
		len = n < maxlen ? n : maxlen;
		u = e4_lay_first_used(c, s, len);
		if (u != NONE)
			len = u - s;
		if (len > n)
			len = n;
		e4_lay_mark(c, s, (len + c->cmask) & ~c->cmask);
		e4_lay_clear_uninit(c, s, len);
		f->blocks += len;
		err = file_add_extent(f, s, len);
		if (err)
			return err;
		extents++;
		if (extents == 5) {
			uint64_t leaf;

			err = take_block(c, f->extents[0].start - 1, &leaf);
			if (err)
				return err;
			err = file_add_meta(f, leaf);
			if (err)
				return err;
		} else if (extents > leaf_cap) {
			return E4_ERR_UNSUPPORTED;
		}
		n -= len;
		cur = s + len;
	}
	return c->oom ? E4_ERR_NO_MEMORY : 0;
}

/* Block-mapped file of n blocks: data and indirect blocks taken one after
 * the other from goal, in the order block_iterate visits them. */
static errcode_t alloc_blockmap_file(struct ctx *c, struct e4_layout_file *f, uint64_t goal,
				     uint64_t n)
{
	uint64_t apb = c->l->block_size / 4, prev = goal;
	errcode_t err;

	for (uint64_t i = 0; i < n; i++) {
		unsigned meta = 0;
		uint64_t b;

		if (i >= 12) {
			uint64_t j = i - 12;

			if (j == 0) {
				meta = 1;
			} else if (j >= apb && j < apb + apb * apb) {
				j -= apb;
				meta = (j == 0) ? 2 : (j % apb == 0);
			} else if (j >= apb + apb * apb) {
				j -= apb + apb * apb;
				meta = (j == 0) ? 3 : (j % (apb * apb) == 0) ? 2 : (j % apb == 0);
			}
		}
		for (unsigned k = 0; k < meta; k++) {
			err = take_block(c, prev, &b);
			if (!err)
				err = file_add_meta(f, b);
			if (err)
				return err;
			prev = b;
		}
		err = take_block(c, prev, &b);
		if (!err)
			err = file_add_extent(f, b, 1);
		if (err)
			return err;
		f->blocks++;
		prev = b;
	}
	return 0;
}

static uint32_t journal_goal_group(const struct ctx *c)
{
	const struct e4_layout *l = c->l;
	uint64_t mid = (c->blocks - c->fdb) / 2;
	uint32_t group = mid >= c->fdb ? g_of(c, mid) : 0, start, end;
	uint32_t flex = 1U << l->log_groups_per_flex;

	if (l->log_groups_per_flex && group > flex) {
		group &= ~(flex - 1);
		while (group < c->groups && e4_lay_group_free(c, group) == 0)
			group++;
		if (group == c->groups)
			group = 0;
		start = group;
	} else {
		start = group > 0 ? group - 1 : group;
	}
	end = (group + 1 < c->groups) ? group + 1 : group;
	group = start;
	for (uint32_t i = start + 1; i <= end; i++)
		if (e4_lay_group_free(c, i) > e4_lay_group_free(c, group))
			group = i;
	return group;
}

void e4_lay_use_inode(struct e4_layout *l, uint32_t ino, int dir, int csum)
{
	uint32_t g = (ino - 1) / l->inodes_per_group, idx = (ino - 1) % l->inodes_per_group;
	struct e4_layout_group *gr;

	if (ino == 0 || ino > l->inodes_count)
		return;
	gr = &l->groups[g];

	gr->flags &= ~EXT4_BG_INODE_UNINIT;
	gr->free_inodes--;
	if (dir)
		gr->used_dirs++;
	if (csum && idx + 1 > l->inodes_per_group - gr->itable_unused)
		gr->itable_unused = l->inodes_per_group - idx - 1;
}

errcode_t e4_lay_special_files(struct ctx *c, const struct e4_layout_opts *o,
			       const struct params *p)
{
	struct e4_layout *l = c->l;
	int extents = (l->feature_incompat & EXT4_FEATURE_INCOMPAT_EXTENTS) != 0;
	uint64_t goal0 = c->fdb, b;
	errcode_t err;

	/* root, then lost+found (>= 16 KiB and >= 2 blocks, at most 12) */
	err = take_block(c, goal0, &b);
	if (err)
		return err;
	l->root_block = b;
	{
		/* 16 KiB, at least 2 blocks, at most 12 (the direct blocks).
		 * With inline_data mke2fs 1.47.0 makes lost+found inline, then
		 * grows it to one block less (root still gets a block: it is
		 * not made inline).  Each block is the next free one after
		 * the last: with flex_bg the gaps between the bitmaps come
		 * first, so the file need not be one run. */
		uint32_t want = 16384 / l->block_size;

		if (want < 2)
			want = 2;
		if (want > EXT4_NDIR_BLOCKS)
			want = EXT4_NDIR_BLOCKS;
		if (l->feature_incompat & EXT4_FEATURE_INCOMPAT_INLINE_DATA)
			want--;
		l->lpf.ino = l->first_ino;
		err = alloc_chained_file(c, &l->lpf, ino_goal(c, l->lpf.ino), want);
		if (err)
			return err;
		/* more than the inode's 4 extents would need a leaf */
		if (extents && l->lpf.nr_extents > 4)
			return E4_ERR_UNSUPPORTED;
	}
	if (l->feature_compat & EXT4_FEATURE_COMPAT_RESIZE_INODE) {
		err = take_block(c, c->fdb + l->desc_blocks + l->reserved_gdt_blocks + 2 +
				 l->inode_blocks_per_group, &b);
		if (err)
			return err;
		l->resize_dind_block = b;
	}

	/* journal */
	if (l->feature_compat & EXT4_FEATURE_COMPAT_HAS_JOURNAL) {
		uint32_t def = e4_layout_default_journal_blocks(l->blocks_count);
		uint64_t nj = def, fc = 0;

		if (!def) {
			/* too small for a journal: made without one, and
			 * without the orphan file that needs it (mke2fs) */
			l->feature_compat &= ~(EXT4_FEATURE_COMPAT_HAS_JOURNAL |
					       EXT4_FEATURE_COMPAT_ORPHAN_FILE);
			l->journal_dropped = 1;
		} else {
			if (l->feature_compat & EXT4_FEATURE_COMPAT_FAST_COMMIT)
				fc = def / 64;
			if (p->journal_req > 0) {
				uint64_t free_sb = 0;

				nj = (uint64_t)p->journal_req;
				/* the superblock's free count right after the geometry was set up */
				for (uint32_t g = 0; g < c->groups; g++) {
					uint64_t n = l->groups[g].blocks - l->groups[g].sb_blocks;

					if (!l->log_groups_per_flex)
						n -= 2 + l->inode_blocks_per_group;
					free_sb += n;
				}
				free_sb &= ~c->cmask;
				if (nj + fc < 1024 || nj + fc > 10240000 || nj + fc > free_sb / 2)
					return E4_ERR_JOURNAL_SIZE;
			}
			l->journal.ino = EXT4_JOURNAL_INO;
			l->journal_fc_blocks = (uint32_t)fc;
			if (extents) {
				uint64_t goal;

				if (p->packed) {
					goal = 0;
					l->journal_goal_group = 0;
				} else {
					l->journal_goal_group = journal_goal_group(c);
					goal = g_first(c, l->journal_goal_group);
				}
				err = alloc_extent_file(c, &l->journal, goal, nj + fc);
			} else {
				l->journal_goal_group = 0;
				err = alloc_blockmap_file(c, &l->journal, c->fdb, nj + fc);
			}
			if (err)
				return err;
			l->overhead_clusters += (nj + fc + c->cmask) >> c->cbits;
		}
	}

	/* orphan file */
	if (l->feature_compat & EXT4_FEATURE_COMPAT_ORPHAN_FILE) {
		uint64_t n = o->orphan_file_blocks > 0 ? (uint64_t)o->orphan_file_blocks
			: e4_layout_default_orphan_blocks(l->blocks_count, c->cbits);

		/* what the kernel mounts (mke2fs 1.47.0 does not cap: 159
		 * blocks of 64 KiB at 40 GiB) */
		if (n > e4_layout_max_orphan_blocks(l->block_size))
			n = e4_layout_max_orphan_blocks(l->block_size);

		l->orphan.ino = l->first_ino + 1;
		if (extents) {
			/* one block at a time from the start of the filesystem */
			err = alloc_chained_file(c, &l->orphan, 0, n);
			if (err)
				return err;
			if (l->orphan.nr_extents > 4)
				return E4_ERR_UNSUPPORTED;
		} else {
			err = alloc_blockmap_file(c, &l->orphan, 0, n);
			if (err)
				return err;
		}
	}
	return c->oom ? E4_ERR_NO_MEMORY : 0;
}
