/*
 * blockmap.c: ext2/ext3 indirect block maps (format doc section 7.1).
 *
 * i_block[0..11] map the first 12 logical blocks directly; i_block[12],
 * [13] and [14] point to the single, double and triple indirect blocks.
 * An indirect block holds bs/4 le32 block numbers; 0 is a hole.  Data
 * block numbers at or beyond blocks_count give E4_ERR_BAD_BLOCK_NUM,
 * indirect block numbers out of range E4_ERR_BAD_IND_BLOCK.
 */
#include <stdlib.h>
#include <string.h>

#include "e4_private.h"

#define BM_NDIR		EXT4_NDIR_BLOCKS

static inline int bad_data_blk(e4_fs *fs, uint32_t b)
{
	return b >= fs->geom.blocks_count;
}

static inline int bad_ind_blk(e4_fs *fs, uint32_t b)
{
	return b <= fs->geom.first_data_block || b >= fs->geom.blocks_count;
}

/*
 * The run starting at entry i of a block-number array of n entries:
 * mapped (coalescing physically contiguous entries) or a hole up to the
 * next non-zero entry or the end of the array.
 */
static errcode_t array_run(e4_fs *fs, const uint32_t *a, unsigned n, unsigned i,
			   e4_blk_t *pblk, uint64_t *len)
{
	uint32_t b = e4_le32(a[i]);
	unsigned j;

	if (b) {
		if (bad_data_blk(fs, b))
			return E4_ERR_BAD_BLOCK_NUM;
		for (j = i + 1; j < n; j++) {
			uint32_t c = e4_le32(a[j]);

			if (c != b + (j - i) || c == 0 || bad_data_blk(fs, c))
				break;
		}
		*pblk = b;
		*len = j - i;
		return 0;
	}
	for (j = i + 1; j < n && a[j] == 0; j++)
		;
	*pblk = 0;
	*len = j - i;
	return 0;
}

errcode_t e4_blockmap_lookup(e4_fs *fs, const struct ext4_inode *inode, uint64_t lblk,
			     e4_blk_t *pblk, uint64_t *len, unsigned *flags)
{
	uint64_t per = fs->geom.block_size / 4;
	uint64_t span = 1, rel = lblk;
	uint32_t ptr;
	uint32_t *buf = NULL;
	errcode_t err = 0;
	int level;

	*pblk = 0;
	*len = UINT64_MAX;
	*flags = 0;
	if (rel < BM_NDIR)
		return array_run(fs, inode->i_block, BM_NDIR, (unsigned)rel, pblk, len);
	rel -= BM_NDIR;
	for (level = 1; level <= 3; level++) {
		span *= per;
		if (rel < span)
			break;
		rel -= span;
	}
	if (level > 3)
		return E4_ERR_FILE_TOO_BIG;

	/* rel is the offset inside a subtree of span blocks. */
	ptr = e4_le32(inode->i_block[BM_NDIR + level - 1]);
	for (; level >= 1; level--) {
		unsigned i;

		if (ptr == 0) {
			*len = span - rel;
			goto out;
		}
		if (bad_ind_blk(fs, ptr)) {
			err = E4_ERR_BAD_IND_BLOCK;
			goto out;
		}
		if (!buf) {
			buf = malloc(fs->geom.block_size);
			if (!buf)
				return E4_ERR_NO_MEMORY;
		}
		err = e4_read_block(fs, ptr, buf);
		if (err)
			goto out;
		span /= per;
		i = (unsigned)(rel / span);
		rel %= span;
		if (level == 1) {
			err = array_run(fs, buf, (unsigned)per, i, pblk, len);
			goto out;
		}
		ptr = e4_le32(buf[i]);
		if (ptr == 0) {
			unsigned j;

			for (j = i + 1; j < per && buf[j] == 0; j++)
				;
			*len = (span - rel) + (uint64_t)(j - i - 1) * span;
			goto out;
		}
	}
out:
	free(buf);
	return err;
}

struct bm_walk {
	e4_fs *fs;
	unsigned flags;
	e4_map_cb cb;
	void *priv;
	unsigned per;
	uint32_t *bufs[3];
	struct e4_map_extent run;	/* pending data run (len 0: none) */
	uint64_t nodes;			/* indirect blocks visited */
	int stopped;			/* the callback returned nonzero */
	errcode_t first_err;		/* E4_ITER_AS_STORED: damage passed over */
};

/* E4_ITER_AS_STORED: remember err and go on (1); otherwise stop (0). */
static int pass_over(struct bm_walk *w, errcode_t err)
{
	return e4_iter_pass_over(w->flags, &w->first_err, err);
}

static int call_cb(struct bm_walk *w, const struct e4_map_extent *me)
{
	int ret = w->cb(w->fs, me, w->priv);

	if (ret)
		w->stopped = 1;
	return ret;
}

static int flush_run(struct bm_walk *w)
{
	int ret = 0;

	if (w->run.len) {
		ret = call_cb(w, &w->run);
		w->run.len = 0;
	}
	return ret;
}

static int add_block(struct bm_walk *w, uint64_t lblk, uint32_t b)
{
	struct e4_map_extent *r = &w->run;
	int ret;

	if (r->len && r->len < UINT32_MAX && r->lblk + r->len == lblk &&
	    r->pblk + r->len == b) {
		r->len++;
		return 0;
	}
	ret = flush_run(w);
	if (ret)
		return ret;
	r->lblk = lblk;
	r->pblk = b;
	r->len = 1;
	r->flags = 0;
	r->level = 0;
	return 0;
}

/* Walk the indirect block ptr of the given level covering from base. */
static errcode_t walk_ind(struct bm_walk *w, uint32_t ptr, int level, uint64_t base)
{
	uint32_t *buf = w->bufs[level - 1];
	uint64_t span = 1;
	errcode_t err;
	unsigned i;
	int l, ret;

	/* Distinct indirect blocks cannot outnumber the filesystem's. */
	if (++w->nodes > w->fs->geom.blocks_count)
		return E4_ERR_LOOP;
	err = bad_ind_blk(w->fs, ptr) ? E4_ERR_BAD_IND_BLOCK : e4_read_block(w->fs, ptr, buf);
	if (err && !pass_over(w, err))
		return err;
	/* as stored: a block that cannot be read is reported, not walked */
	if (w->flags & E4_ITER_META) {
		struct e4_map_extent me = {
			.lblk = base, .pblk = ptr, .len = 1,
			.flags = E4_MAP_META, .level = level,
		};

		ret = flush_run(w);
		if (!ret)
			ret = call_cb(w, &me);
		if (ret)
			return ret;
	}
	if (err)
		return 0;
	for (l = 1; l < level; l++)
		span *= w->per;
	for (i = 0; i < w->per; i++) {
		uint32_t b = e4_le32(buf[i]);

		if (b == 0)
			continue;
		if (level == 1) {
			if (bad_data_blk(w->fs, b) && !pass_over(w, E4_ERR_BAD_BLOCK_NUM))
				return E4_ERR_BAD_BLOCK_NUM;
			ret = add_block(w, base + i, b);
			if (ret)
				return ret;
		} else {
			err = walk_ind(w, b, level - 1, base + i * span);
			if (err)
				return err;
		}
	}
	return 0;
}

errcode_t e4_blockmap_walk(e4_fs *fs, const struct ext4_inode *inode, unsigned flags,
			   e4_map_cb cb, void *priv)
{
	struct bm_walk w;
	uint64_t base = BM_NDIR, span = 1;
	errcode_t err = 0;
	unsigned i;
	int level, ret;

	memset(&w, 0, sizeof(w));
	w.fs = fs;
	w.flags = flags;
	w.cb = cb;
	w.priv = priv;
	w.per = fs->geom.block_size / 4;

	for (i = 0; i < BM_NDIR; i++) {
		uint32_t b = e4_le32(inode->i_block[i]);

		if (b == 0)
			continue;
		if (bad_data_blk(fs, b) && !pass_over(&w, E4_ERR_BAD_BLOCK_NUM)) {
			err = E4_ERR_BAD_BLOCK_NUM;
			goto out;
		}
		ret = add_block(&w, i, b);
		if (ret) {
			err = ret;
			goto out;
		}
	}
	for (level = 1; level <= 3; level++) {
		uint32_t ptr = e4_le32(inode->i_block[BM_NDIR + level - 1]);

		span *= w.per;
		if (ptr) {
			if (!w.bufs[level - 1]) {
				int l;

				for (l = 0; l < level; l++) {
					if (w.bufs[l])
						continue;
					w.bufs[l] = malloc(fs->geom.block_size);
					if (!w.bufs[l]) {
						err = E4_ERR_NO_MEMORY;
						goto out;
					}
				}
			}
			err = walk_ind(&w, ptr, level, base);
			if (err)
				goto out;
		}
		base += span;
	}
out:
	/* Report what was mapped before a problem, unless the callback
	 * itself stopped the walk. */
	if (!w.stopped) {
		ret = flush_run(&w);
		if (ret && !err)
			err = ret;
	}
	if (!err)
		err = w.first_err;
	for (i = 0; i < 3; i++)
		free(w.bufs[i]);
	return err;
}
