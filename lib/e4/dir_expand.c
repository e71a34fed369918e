/*
 * dir_expand.c: growing a directory by one empty block (e4debugfs's
 * expand_dir; format doc section 8).  Built on the directory writer's
 * internals (dir_int.h): the block is appended and mapped as an insert
 * would append it, and written with an empty entry and its tail; in an
 * indexed directory it becomes the index's last leaf.
 */
#include <stdlib.h>
#include <string.h>

#include "dir_int.h"

/* One empty leaf (an unused entry over it, the tail) into buf. */
static errcode_t empty_leaf(struct e4_dirw *w, uint8_t *buf)
{
	uint16_t rec;
	errcode_t err = e4_rec_len_to_disk(w->leaf_end, w->bs, &rec);

	if (err)
		return err;
	memset(buf, 0, w->bs);
	e4_put_le16(buf + 4, rec);
	e4_dir_leaf_csum_set(w->fs, w->ino, w->gen, buf);
	return 0;
}

/* Read dx block lblk of w as kind (root or node) into f, checked: layout,
 * tail checksum, count within limit. */
static errcode_t dx_frame_read(struct e4_dirw *w, uint64_t lblk, int kind, struct e4_dx_frame *f)
{
	errcode_t err;

	if (lblk >= w->nblocks || (kind == E4_DX_NODE && !lblk))
		return E4_ERR_HTREE_CORRUPT;
	err = e4_dirw_read(w, lblk, f->buf);
	if (err)
		return err;
	if (e4_dx_block_kind(w->fs, f->buf, lblk) != kind)
		return E4_ERR_HTREE_CORRUPT;
	err = e4_dx_block_verify(w->fs, w->ino, &w->ib.inode, f->buf, kind);
	if (err)
		return err;
	f->lblk = lblk;
	f->off = kind == E4_DX_ROOT ? E4_DX_ROOT_COUNT_OFF : E4_DX_NODE_COUNT_OFF;
	f->limit = e4_get_le16(f->buf + f->off);
	f->count = e4_get_le16(f->buf + f->off + 2);
	f->pos = f->count - 1;
	if (!f->count || f->count > f->limit ||
	    f->off + 8 * f->limit > w->bs)
		return E4_ERR_HTREE_CORRUPT;
	return 0;
}

/* The largest hash (bit 0 clear) of the live entries of leaf buf, or 0. */
static errcode_t leaf_max_hash(struct e4_dirw *w, const uint8_t *buf, int version, uint32_t *max)
{
	*max = 0;
	for (unsigned off = 0; off + E4_DIRENT_HDR <= w->leaf_end;
	     off += e4_dirent_rec(buf + off, w->bs)) {
		uint32_t h;
		errcode_t err;

		if (!e4_get_le32(buf + off))
			continue;
		err = e4_dx_hash(version, (const char *)buf + off + E4_DIRENT_HDR, buf[off + 6],
				 w->fs->hash_seed, &h, NULL);
		if (err)
			return err;
		if ((h & ~1u) > *max)
			*max = h & ~1u;
	}
	return 0;
}

/* The path from the root along the last entries down to the last leaf
 * (read into p->mem, one block per frame, then the leaf into leaf). */
static errcode_t last_path(struct e4_dirw *w, struct e4_dx_path *p, uint8_t *leaf)
{
	unsigned k;
	errcode_t err;

	memset(p, 0, sizeof(*p));
	p->mem = malloc((size_t)w->bs * E4_DX_MAX_FRAMES);
	if (!p->mem)
		return E4_ERR_NO_MEMORY;
	for (k = 0; k < E4_DX_MAX_FRAMES; k++)
		p->fr[k].buf = p->mem + (size_t)w->bs * k;
	err = dx_frame_read(w, 0, E4_DX_ROOT, &p->fr[0]);
	if (err)
		return err;
	p->levels = p->fr[0].buf[0x1E];
	if (p->levels > e4_dx_max_levels(w->fs))
		return E4_ERR_HTREE_CORRUPT;
	p->version = e4_dx_effective_version(w->fs, p->fr[0].buf[0x1C]);
	for (k = 0; k < p->levels; k++) {
		err = dx_frame_read(w, e4_dx_frame_block(&p->fr[k], p->fr[k].pos), E4_DX_NODE,
				    &p->fr[k + 1]);
		if (err)
			return err;
	}
	err = e4_dirw_read(w, e4_dx_frame_block(&p->fr[p->levels], p->fr[p->levels].pos), leaf);
	return err ? err : e4_dirw_leaf_check(w, leaf);
}

/* An indexed directory: the empty block becomes a new last leaf whose
 * index entry starts above every hash the directory holds, in the node at
 * the end of the index (a hash range no name is in, so every lookup still
 * finds its leaf).  A full last node is split, or the index gains a level,
 * by the insert path's rule (e4_dx_make_room); each new node is on disk
 * with the inode mapping it before an index names it.  The leaf and the
 * inode (map, size) are written before the index names the leaf.
 * E4_ERR_DIR_INDEX_FULL: the index is at its depth limit and full, or no
 * hash is left above. */
static errcode_t expand_indexed(struct e4_dirw *w)
{
	struct e4_dx_path p = { 0 };
	struct e4_dx_frame *f;
	uint8_t *leaf = malloc(w->bs);
	uint32_t top, h;
	uint64_t lblk;
	unsigned tries;
	errcode_t err = leaf ? 0 : E4_ERR_NO_MEMORY;

	/* a split or a new level each time: at most one per level */
	for (tries = 0; !err; tries++) {
		e4_dx_path_free(&p);
		err = last_path(w, &p, leaf);
		if (err)
			goto out;
		f = &p.fr[p.levels];
		err = leaf_max_hash(w, leaf, p.version, &top);
		if (err)
			goto out;
		h = e4_dx_frame_hash(f, f->pos) & ~1u;
		if (h > top)
			top = h;
		if (top >= 0xFFFFFFFCu) {
			err = E4_ERR_DIR_INDEX_FULL;
			goto out;
		}
		if (f->count < f->limit)
			break;
		if (tries > E4_DX_MAX_FRAMES) {
			err = E4_ERR_HTREE_CORRUPT;
			goto out;
		}
		err = e4_dx_make_room(w, &p);
	}
	if (err)
		goto out;
	err = empty_leaf(w, leaf);
	if (!err)
		err = e4_dirw_append(w, &lblk);
	if (!err)
		err = e4_dirw_write(w, lblk, leaf);
	if (!err)
		err = e4_dirw_order_new(w);
	if (err)
		goto out;
	e4_dx_put_entry(f->buf, f->off, f->count, top + 2, (uint32_t)lblk);
	e4_put_le16(f->buf + f->off + 2, (uint16_t)(f->count + 1));
	err = e4_dx_csum_set(w->fs, w->ino, w->gen, f->buf, f->off);
	if (!err)
		err = e4_dirw_write(w, f->lblk, f->buf);
out:
	e4_dx_path_free(&p);
	free(leaf);
	return err;
}

errcode_t e4_dir_expand(e4_fs *fs, e4_ino_t dir)
{
	struct e4_dirw w;
	uint64_t lblk;
	uint8_t *buf;
	errcode_t err;

	err = e4_dirw_open(fs, dir, &w);
	if (err)
		return err;
	if (e4_le32(w.ib.inode.i_flags) & EXT4_INLINE_DATA_FL)
		return e4_dir_inline_convert(&w);	/* closes w */
	if ((e4_le32(w.ib.inode.i_flags) & EXT4_INDEX_FL) &&
	    e4_has_compat(fs, EXT4_FEATURE_COMPAT_DIR_INDEX)) {
		err = expand_indexed(&w);
	} else {
		buf = malloc(w.bs);
		if (!buf)
			return E4_ERR_NO_MEMORY;
		err = empty_leaf(&w, buf);
		if (!err)
			err = e4_dirw_append(&w, &lblk);
		if (!err)
			err = e4_dirw_write(&w, lblk, buf);
		free(buf);
		if (!err)
			err = e4_dirw_order_new(&w);
	}
	if (!err)
		err = e4_dirw_close(&w);
	return err;
}
