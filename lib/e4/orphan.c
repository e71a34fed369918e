/*
 * orphan.c: orphan processing as the kernel does it at mount and e2fsck
 * before its passes (format doc sections 6.7 and 6.8): walk the classic
 * s_last_orphan chain and the orphan file; an orphan with no links is
 * freed (all blocks, its xattr block reference, the inode), one with links
 * is truncated to i_size.  Block and inode usage changes go through the
 * allocation API (alloc.c); the caller flushes with e4_alloc_flush().
 *
 * Bounds: the chain is followed at most s_inodes_count times, extent
 * trees at most EXT4_MAX_EXTENT_DEPTH deep, indirect maps three levels;
 * every block number is checked against the filesystem before use.
 */
#include "e4_private.h"

#include <stdlib.h>
#include <string.h>

struct trunc {
	e4_fs *fs;
	e4_ino_t ino;
	uint32_t gen;
	uint64_t first;		/* first logical block to drop */
	uint64_t freed;		/* blocks freed (data and map blocks) */
	uint8_t *bufs[EXT4_MAX_EXTENT_DEPTH + 1];	/* one per level */
};

static int blk_ok(e4_fs *fs, e4_blk_t blk, uint64_t count)
{
	return blk >= fs->geom.first_data_block && count <= fs->geom.blocks_count &&
	       blk < fs->geom.blocks_count && blk + count <= fs->geom.blocks_count;
}

static errcode_t free_run(struct trunc *t, e4_blk_t blk, uint64_t count)
{
	errcode_t err;

	if (!count)
		return 0;
	uint64_t changed = 0;

	if (!blk_ok(t->fs, blk, count))
		return E4_ERR_BAD_BLOCK_NUM;
	err = e4_block_mark(t->fs, blk, count, 0, &changed);
	if (err)
		return err;
	t->freed += count;
	/* A block of the orphan already free means the map is not to be
	 * trusted (or blocks are shared): stop, as e2fsck does.  With
	 * bigalloc one cluster may hold several of the file's runs. */
	if (!t->fs->geom.cluster_bits && changed != count)
		return E4_ERR_CORRUPT;
	return 0;
}

/* ---- extent trees ----------------------------------------------------- */

static inline e4_blk_t ext_pblk(const struct ext4_extent *e)
{
	return ((e4_blk_t)e4_le16(e->ee_start_hi) << 32) | e4_le32(e->ee_start_lo);
}

static inline e4_blk_t idx_pblk(const struct ext4_extent_idx *x)
{
	return ((e4_blk_t)e4_le16(x->ei_leaf_hi) << 32) | e4_le32(x->ei_leaf_lo);
}

/* Entries of a node whose header is at hdr inside a buffer of size bytes:
 * E4_ERR_EXTENT_HEADER unless the header is sane. */
static errcode_t check_header(const struct ext4_extent_header *h, size_t size, unsigned depth)
{
	size_t cap = (size - sizeof(*h)) / sizeof(struct ext4_extent);

	if (e4_le16(h->eh_magic) != EXT4_EXT_MAGIC || e4_le16(h->eh_max) > cap ||
	    e4_le16(h->eh_entries) > e4_le16(h->eh_max) || e4_le16(h->eh_depth) != depth)
		return E4_ERR_EXTENT_HEADER;
	return 0;
}

static void ext_node_csum_set(struct trunc *t, void *block)
{
	struct ext4_extent_header *h = block;
	struct ext4_extent_tail *tail;
	size_t off = sizeof(*h) + e4_le16(h->eh_max) * sizeof(struct ext4_extent);

	if (!t->fs->geom.metadata_csum || off + sizeof(*tail) > t->fs->geom.block_size)
		return;
	tail = (struct ext4_extent_tail *)((uint8_t *)block + off);
	tail->et_checksum = e4_cpu_to_le32(e4_extent_block_csum(t->fs, t->ino, t->gen, block));
}

/* Truncate node hdr (depth levels above the leaves) at t->first.  *empty
 * is set when no entry is left. */
static errcode_t trunc_node(struct trunc *t, struct ext4_extent_header *h, size_t size,
			    unsigned depth, int *empty)
{
	unsigned n, i, keep = 0;
	errcode_t err;

	err = check_header(h, size, depth);
	if (err)
		return err;
	n = e4_le16(h->eh_entries);
	if (depth == 0) {
		struct ext4_extent *e = (struct ext4_extent *)(h + 1);

		for (i = 0; i < n; i++) {
			uint64_t start = e4_le32(e[i].ee_block);
			unsigned raw = e4_le16(e[i].ee_len);
			unsigned unwritten = raw > EXT_INIT_MAX_LEN;
			unsigned len = unwritten ? raw - EXT_INIT_MAX_LEN : raw;

			if (start >= t->first) {
				err = free_run(t, ext_pblk(&e[i]), len);
			} else if (start + len > t->first) {
				unsigned nl = (unsigned)(t->first - start);

				err = free_run(t, ext_pblk(&e[i]) + nl, len - nl);
				e[i].ee_len = e4_cpu_to_le16(nl + (unwritten ? EXT_INIT_MAX_LEN : 0));
				e[keep++] = e[i];
			} else {
				e[keep++] = e[i];
			}
			if (err)
				return err;
		}
	} else {
		struct ext4_extent_idx *x = (struct ext4_extent_idx *)(h + 1);
		unsigned bs = t->fs->geom.block_size;
		uint8_t *buf = t->bufs[depth - 1];

		for (i = 0; i < n; i++) {
			e4_blk_t child = idx_pblk(&x[i]);
			uint64_t next = i + 1 < n ? e4_le32(x[i + 1].ei_block) : UINT64_MAX;
			uint64_t saved = t->first;
			int cempty = 0;

			if (next <= t->first) {
				x[keep++] = x[i];
				continue;
			}
			if (!blk_ok(t->fs, child, 1))
				return E4_ERR_BAD_BLOCK_NUM;
			err = e4_read_block(t->fs, child, buf);
			if (err)
				return err;
			if (e4_le32(x[i].ei_block) >= t->first)
				t->first = 0;	/* the whole subtree goes */
			err = trunc_node(t, (struct ext4_extent_header *)buf, bs, depth - 1, &cempty);
			t->first = saved;
			if (err)
				return err;
			if (cempty) {
				err = free_run(t, child, 1);
				if (err)
					return err;
				continue;
			}
			ext_node_csum_set(t, buf);
			err = e4_io_write_blk(t->fs->io, child, 1, buf);
			if (err)
				return err;
			x[keep++] = x[i];
		}
	}
	h->eh_entries = e4_cpu_to_le16(keep);
	*empty = keep == 0;
	return 0;
}

static errcode_t trunc_extents(struct trunc *t, struct ext4_inode *inode)
{
	struct ext4_extent_header *h = (struct ext4_extent_header *)inode->i_block;
	unsigned depth = e4_le16(h->eh_depth);
	errcode_t err;
	int empty = 0;

	if (e4_le16(h->eh_magic) != EXT4_EXT_MAGIC || depth > EXT4_MAX_EXTENT_DEPTH)
		return E4_ERR_EXTENT_HEADER;
	for (unsigned d = 0; d < depth; d++) {
		t->bufs[d] = malloc(t->fs->geom.block_size);
		if (!t->bufs[d])
			return E4_ERR_NO_MEMORY;
	}
	err = trunc_node(t, h, sizeof(inode->i_block), depth, &empty);
	if (!err && empty)
		h->eh_depth = 0;	/* an empty tree is an empty root leaf */
	return err;
}

/* ---- indirect maps ---------------------------------------------------- */

/* Drop the entries of indirect block blk (level 1..3, covering logical
 * blocks from base) at or past t->first; *empty when all are zero. */
static errcode_t trunc_ind(struct trunc *t, e4_blk_t blk, unsigned level, uint64_t base,
			   int *empty)
{
	unsigned apb = t->fs->geom.block_size / 4;
	uint64_t span = 1;
	uint32_t *map;
	errcode_t err;
	int dirty = 0, any = 0;

	for (unsigned l = 1; l < level; l++)
		span *= apb;
	if (!blk_ok(t->fs, blk, 1))
		return E4_ERR_BAD_IND_BLOCK;
	map = malloc(t->fs->geom.block_size);
	if (!map)
		return E4_ERR_NO_MEMORY;
	err = e4_read_block(t->fs, blk, map);
	for (unsigned i = 0; !err && i < apb; i++) {
		uint64_t lb = base + i * span;
		e4_blk_t b = e4_le32(map[i]);
		int cempty = 1;

		if (!b)
			continue;
		if (lb + span <= t->first) {
			any = 1;
			continue;
		}
		if (level > 1) {
			err = trunc_ind(t, b, level - 1, lb, &cempty);
			if (err)
				break;
		}
		if (!cempty) {
			any = 1;
			continue;
		}
		err = free_run(t, b, 1);
		map[i] = 0;
		dirty = 1;
	}
	/* Written even when it is about to be freed: like e2fsck, the
	 * dropped entries read as zero afterwards. */
	if (!err && dirty)
		err = e4_io_write_blk(t->fs->io, blk, 1, map);
	free(map);
	*empty = !any;
	return err;
}

static errcode_t trunc_blockmap(struct trunc *t, struct ext4_inode *inode)
{
	unsigned apb = t->fs->geom.block_size / 4;
	uint64_t base = EXT4_NDIR_BLOCKS, span = apb;
	errcode_t err;

	for (unsigned i = 0; i < EXT4_NDIR_BLOCKS; i++) {
		e4_blk_t b = e4_le32(inode->i_block[i]);

		if (b && i >= t->first) {
			err = free_run(t, b, 1);
			if (err)
				return err;
			inode->i_block[i] = 0;
		}
	}
	for (unsigned level = 1; level <= 3; level++) {
		unsigned slot = EXT4_NDIR_BLOCKS + level - 1;
		e4_blk_t b = e4_le32(inode->i_block[slot]);
		int empty = 0;

		if (b && base + span > t->first) {
			err = trunc_ind(t, b, level, base, &empty);
			if (err)
				return err;
			if (empty) {
				err = free_run(t, b, 1);
				if (err)
					return err;
				inode->i_block[slot] = 0;
			}
		}
		base += span;
		span *= apb;
	}
	return 0;
}

/* ---- inodes ----------------------------------------------------------- */

static void iblocks_sub(e4_fs *fs, struct ext4_inode *inode, uint64_t blocks)
{
	uint64_t cur = e4_le32(inode->i_blocks_lo) |
		       ((uint64_t)e4_le16(inode->l_i_blocks_high) << 32);
	uint64_t units = blocks;

	if (!(e4_le32(inode->i_flags) & EXT4_HUGE_FILE_FL) ||
	    !e4_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_HUGE_FILE))
		units = blocks * (fs->geom.block_size / 512);
	cur = cur > units ? cur - units : 0;
	inode->i_blocks_lo = e4_cpu_to_le32((uint32_t)cur);
	inode->l_i_blocks_high = e4_cpu_to_le16((uint16_t)(cur >> 32));
}

errcode_t e4_inode_truncate_blocks(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib,
				   uint64_t first_lblk, uint64_t *freed)
{
	struct ext4_inode *inode = &ib->inode;
	struct trunc t;
	errcode_t err = 0;

	if (freed)
		*freed = 0;
	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (!e4_inode_has_map(fs, inode))
		return 0;
	memset(&t, 0, sizeof(t));
	t.fs = fs;
	t.ino = ino;
	t.gen = e4_le32(inode->i_generation);
	t.first = first_lblk;
	if (e4_le32(inode->i_flags) & EXT4_EXTENTS_FL)
		err = trunc_extents(&t, inode);
	else
		err = trunc_blockmap(&t, inode);
	for (unsigned d = 0; d <= EXT4_MAX_EXTENT_DEPTH; d++)
		free(t.bufs[d]);
	iblocks_sub(fs, inode, t.freed);
	if (freed)
		*freed = t.freed;
	return err;
}

/* Drop one reference to the xattr block of a freed inode. */
static errcode_t release_xattr_block(e4_fs *fs, struct ext4_inode *inode)
{
	e4_blk_t blk = e4_inode_file_acl(fs, inode);
	struct ext4_xattr_header *h;
	uint8_t *buf;
	uint32_t refs;
	errcode_t err;

	if (!blk)
		return 0;
	if (!blk_ok(fs, blk, 1))
		return E4_ERR_BAD_BLOCK_NUM;
	buf = malloc(fs->geom.block_size);
	if (!buf)
		return E4_ERR_NO_MEMORY;
	err = e4_read_block(fs, blk, buf);
	h = (struct ext4_xattr_header *)buf;
	if (!err && e4_le32(h->h_magic) != EXT4_XATTR_MAGIC)
		err = E4_ERR_XATTR_MAGIC;
	if (!err) {
		refs = e4_le32(h->h_refcount);
		/* The count is written even when it drops to 0 and the
		 * block is freed (as e2fsck leaves it). */
		h->h_refcount = e4_cpu_to_le32(refs ? refs - 1 : 0);
		if (fs->geom.metadata_csum)
			h->h_checksum = e4_cpu_to_le32(e4_xattr_block_csum(fs, blk, buf));
		err = e4_io_write_blk(fs->io, blk, 1, buf);
		if (!err && refs <= 1)
			err = e4_block_mark(fs, blk, 1, 0, NULL);
	}
	free(buf);
	if (!err) {
		inode->i_file_acl_lo = 0;
		inode->l_i_file_acl_high = 0;
	}
	return err;
}

static int free_map_cb(e4_fs *fs, const struct e4_map_extent *ext, void *priv)
{
	struct trunc *t = priv;

	(void)fs;
	return (int)free_run(t, ext->pblk, ext->len);
}

/* Free every block an inode maps (data and tree/indirect blocks) in the
 * bitmaps only: the inode itself keeps its map, as e2fsck leaves a
 * released orphan (the inode is free, its map is never read again). */
static errcode_t free_all_blocks(e4_fs *fs, e4_ino_t ino, struct ext4_inode *inode)
{
	struct trunc t;

	if (!e4_inode_has_map(fs, inode))
		return 0;
	memset(&t, 0, sizeof(t));
	t.fs = fs;
	t.ino = ino;
	return e4_map_iterate(fs, ino, inode, E4_ITER_META, free_map_cb, &t);
}

/* A file truncated to a size inside a block: the bytes of that block past
 * i_size become zeros, as the kernel's truncate leaves them (so a later
 * extension reads zeros, not old data).  e2fsck 1.47.0 differs: it
 * zeroes that range in the first block past the end, which it frees. */
static errcode_t zero_tail(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode)
{
	unsigned bs = fs->geom.block_size;
	uint64_t size = e4_inode_size(inode);
	unsigned off = (unsigned)(size % bs);
	e4_blk_t pblk = 0;
	uint32_t len;
	unsigned flags = 0;
	uint8_t *buf;
	errcode_t err;

	if (!off || !e4_inode_has_map(fs, inode))
		return 0;
	err = e4_bmap(fs, ino, inode, size / bs, &pblk, &len, &flags);
	if (err || !pblk || (flags & E4_MAP_UNWRITTEN))
		return err;
	if (!blk_ok(fs, pblk, 1))
		return E4_ERR_BAD_BLOCK_NUM;
	buf = malloc(bs);
	if (!buf)
		return E4_ERR_NO_MEMORY;
	err = e4_io_read_blk(fs->io, pblk, 1, buf);
	if (!err) {
		memset(buf + off, 0, bs - off);
		err = e4_io_write_blk(fs->io, pblk, 1, buf);
	}
	free(buf);
	return err;
}

errcode_t e4_orphan_release_inode(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib,
				  int64_t now)
{
	struct ext4_inode *inode = &ib->inode;
	unsigned bs = fs->geom.block_size;
	int unlinked = e4_le16(inode->i_links_count) == 0;
	errcode_t err;

	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (unlinked) {
		err = free_all_blocks(fs, ino, inode);
		if (!err)
			err = release_xattr_block(fs, inode);
	} else {
		err = e4_inode_truncate_blocks(fs, ino, ib, (e4_inode_size(inode) + bs - 1) / bs,
					       NULL);
		if (!err)
			err = zero_tail(fs, ino, inode);
	}
	if (err)
		return err;
	if (unlinked) {
		err = e4_inode_mark(fs, ino, 0, e4_is_dir(inode), NULL);
		if (err)
			return err;
		inode->i_dtime = e4_cpu_to_le32((uint32_t)now);
	} else {
		inode->i_dtime = 0;
	}
	return e4_inode_write(fs, ino, ib);
}

/* ---- the chain and the orphan file ------------------------------------ */

static int ino_ok(e4_fs *fs, uint32_t ino)
{
	return ino >= fs->geom.first_ino && ino <= fs->geom.inodes_count;
}

static errcode_t release_one(e4_fs *fs, e4_ino_t ino, int64_t now, e4_orphan_cb cb,
			     void *priv, struct e4_orphan_result *res, uint32_t *next,
			     e4_orphan_flush flush)
{
	union e4_inode_buf ib;
	struct e4_orphan_info info;
	errcode_t err;

	err = e4_inode_read(fs, ino, &ib);
	if (err)
		return err;
	memset(&info, 0, sizeof(info));
	info.ino = ino;
	info.truncate = e4_le16(ib.inode.i_links_count) != 0;
	info.mode = e4_le16(ib.inode.i_mode);
	info.uid = e4_inode_uid(&ib.inode);
	info.gid = e4_inode_gid(&ib.inode);
	info.size = e4_inode_size(&ib.inode);
	if (next) {
		/* A bad link is reported before this inode is touched. */
		*next = e4_le32(ib.inode.i_dtime);
		if (*next && !ino_ok(fs, *next)) {
			res->bad_ino = *next;
			return E4_ERR_ORPHAN_LIST;
		}
	}
	if (cb) {
		int r = cb(fs, &info, priv);

		if (r)
			return r;
	}
	if (flush && next && !info.truncate) {
		/* off the chain before it is freed */
		fs->sb->s_last_orphan = e4_cpu_to_le32(*next);
		fs->sb_dirty = 1;
		err = flush(fs);
		if (err)
			return err;
	}
	err = e4_orphan_release_inode(fs, ino, &ib, now);
	if (err)
		return err;
	if (flush && next) {
		/* a truncated one (i_dtime 0: the chain ends here) goes off the
		 * chain after its new map; a freed one is written */
		fs->sb->s_last_orphan = e4_cpu_to_le32(*next);
		fs->sb_dirty = 1;
		err = flush(fs);
		if (err)
			return err;
	}
	if (info.truncate)
		res->truncated++;
	else
		res->freed++;
	return 0;
}

struct ofile_ctx {
	e4_fs *fs;
	int64_t now;
	e4_orphan_cb cb;
	void *priv;
	struct e4_orphan_result *res;
	uint32_t gen;
	uint8_t *buf;
	uint64_t blocks;
};

static uint32_t ofile_csum(struct ofile_ctx *c, e4_blk_t pblk, const uint8_t *buf)
{
	uint32_t crc = e4_inode_csum_seed(c->fs, e4_le32(c->fs->sb->s_orphan_file_inum), c->gen);
	uint64_t le = e4_cpu_to_le64(pblk);

	crc = e4_crc32c(crc, &le, sizeof(le));
	return e4_crc32c(crc, buf, c->fs->geom.block_size - 8);
}

static int ofile_cb(e4_fs *fs, const struct e4_map_extent *ext, void *priv)
{
	struct ofile_ctx *c = priv;
	unsigned bs = fs->geom.block_size, slots = (bs - 8) / 4;
	errcode_t err = 0;

	if (ext->flags & E4_MAP_META)
		return 0;
	for (uint32_t k = 0; k < ext->len && !err; k++) {
		e4_blk_t pblk = ext->pblk + k;
		uint32_t *w = (uint32_t *)c->buf;
		int dirty = 0;

		if (++c->blocks > (1u << 20))
			return (int)E4_ERR_ORPHAN_FILE;
		if (!blk_ok(fs, pblk, 1))
			return (int)E4_ERR_ORPHAN_FILE;
		err = e4_read_block(fs, pblk, c->buf);
		if (err)
			return (int)err;
		if (e4_le32(w[slots]) != EXT4_ORPHAN_BLOCK_MAGIC)
			return (int)E4_ERR_ORPHAN_FILE;
		if (fs->geom.metadata_csum && !e4_ignore_csum(fs) &&
		    e4_le32(w[slots + 1]) != ofile_csum(c, pblk, c->buf))
			return (int)E4_ERR_ORPHAN_FILE;
		for (unsigned s = 0; s < slots; s++) {
			uint32_t ino = e4_le32(w[s]);

			if (!ino)
				continue;
			if (!ino_ok(fs, ino)) {
				c->res->bad_ino = ino;
				return (int)E4_ERR_ORPHAN_LIST;
			}
			err = release_one(fs, ino, c->now, c->cb, c->priv, c->res, NULL, NULL);
			if (err) {
				c->res->bad_ino = ino;
				return (int)err;
			}
			/* the buffer may have been reused by the cache: reread */
			err = e4_read_block(fs, pblk, c->buf);
			if (err)
				return (int)err;
			w[s] = 0;
			dirty = 1;
		}
		if (dirty) {
			if (fs->geom.metadata_csum)
				w[slots + 1] = e4_cpu_to_le32(ofile_csum(c, pblk, c->buf));
			err = e4_io_write_blk(fs->io, pblk, 1, c->buf);
		}
	}
	return (int)err;
}

static errcode_t process_orphan_file(e4_fs *fs, int64_t now, e4_orphan_cb cb, void *priv,
				     struct e4_orphan_result *res)
{
	e4_ino_t ino = e4_le32(fs->sb->s_orphan_file_inum);
	union e4_inode_buf ib;
	struct ofile_ctx c;
	errcode_t err;

	if (!ino || ino > fs->geom.inodes_count) {
		res->bad_ino = ino;
		return E4_ERR_ORPHAN_FILE;
	}
	err = e4_inode_read(fs, ino, &ib);
	if (err)
		return err;
	memset(&c, 0, sizeof(c));
	c.fs = fs;
	c.now = now;
	c.cb = cb;
	c.priv = priv;
	c.res = res;
	c.gen = e4_le32(ib.inode.i_generation);
	c.buf = malloc(fs->geom.block_size);
	if (!c.buf)
		return E4_ERR_NO_MEMORY;
	err = e4_map_iterate(fs, ino, &ib.inode, 0, ofile_cb, &c);
	free(c.buf);
	if (err)
		return err;
	fs->sb->s_feature_ro_compat = e4_cpu_to_le32(e4_le32(fs->sb->s_feature_ro_compat) &
						     ~EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT);
	fs->sb_dirty = 1;
	return 0;
}

errcode_t e4_orphans_process(e4_fs *fs, int64_t now, e4_orphan_cb cb, void *priv,
			     struct e4_orphan_result *res)
{
	return e4_orphans_release(fs, now, cb, priv, res, NULL);
}

/* Read every inode of the s_last_orphan chain without changing anything,
 * so that a device that cannot be read stops the release before its first
 * write.  Only I/O errors are returned (what a bad link means is the
 * release's to report, in its order); the walk ends at a bad link, a loop
 * or the end of the chain. */
static errcode_t orphan_chain_readable(e4_fs *fs, uint32_t ino, uint32_t *bad)
{
	union e4_inode_buf ib;
	uint64_t steps = 0;
	errcode_t err;

	while (ino && ino_ok(fs, ino) && ++steps <= fs->geom.inodes_count) {
		err = e4_inode_read(fs, ino, &ib);
		if (err) {
			*bad = ino;
			return e4_err_is_io(err) ? err : 0;
		}
		ino = e4_le32(ib.inode.i_dtime);
	}
	return 0;
}

errcode_t e4_orphans_release(e4_fs *fs, int64_t now, e4_orphan_cb cb, void *priv,
			     struct e4_orphan_result *res, e4_orphan_flush flush)
{
	uint32_t ino, next;
	uint64_t steps = 0;
	uint16_t state = fs->sb->s_state;
	errcode_t err = 0;

	memset(res, 0, sizeof(*res));
	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	ino = e4_le32(fs->sb->s_last_orphan);
	if (flush && ino) {
		err = orphan_chain_readable(fs, ino, &res->bad_ino);
		if (err)
			return err;
		res->bad_ino = 0;
	}
	if (flush && (ino || e4_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT))) {
		/* not clean on the device before the first change */
		fs->sb->s_state = e4_cpu_to_le16(e4_le16(state) & ~EXT4_VALID_FS);
		fs->sb_dirty = 1;
		err = flush(fs);
		if (err)
			return err;
	}
	if (e4_has_compat(fs, EXT4_FEATURE_COMPAT_ORPHAN_FILE) &&
	    (e4_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT) ||
	     e4_le32(fs->sb->s_orphan_file_inum))) {
		err = process_orphan_file(fs, now, cb, priv, res);
		if (!err && flush)
			err = flush(fs);
		if (err)
			return err;
	}
	if (!ino) {
		if (flush && fs->sb->s_state != state) {
			fs->sb->s_state = state;
			fs->sb_dirty = 1;
			err = flush(fs);
		}
		return err;
	}
	if (!flush) {
		/* The head is used once, whatever happens next. */
		fs->sb->s_last_orphan = 0;
		fs->sb_dirty = 1;
	}
	while (ino) {
		if (!ino_ok(fs, ino) || ++steps > fs->geom.inodes_count) {
			res->bad_ino = ino;
			return E4_ERR_ORPHAN_LIST;
		}
		err = release_one(fs, ino, now, cb, priv, res, &next, flush);
		if (err) {
			if (err != E4_ERR_ORPHAN_LIST)
				res->bad_ino = ino;
			return err;
		}
		ino = next;
	}
	if (flush) {
		fs->sb->s_last_orphan = 0;
		fs->sb->s_state = state;
		fs->sb_dirty = 1;
		err = flush(fs);
	}
	return err;
}

/* ---- writing back, primary copies only ---------------------------------- */

/* The primary descriptor table: the classic GDT after the primary
 * superblock, and with meta_bg each later descriptor block in the first
 * group of its meta group (section 4.5). */
errcode_t e4_gdt_write_primary(e4_fs *fs)
{
	const struct e4_geom *g = &fs->geom;
	int meta_bg = e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_META_BG);
	uint32_t first_meta_bg = meta_bg ? e4_le32(fs->sb->s_first_meta_bg) : g->desc_blocks;
	uint32_t classic = first_meta_bg < g->desc_blocks ? first_meta_bg : g->desc_blocks;
	errcode_t err;

	if (fs->gdt_copy)
		return E4_ERR_GDT_COPY;
	for (uint32_t i = 0; i < g->desc_blocks; i++) {
		e4_blk_t b;

		if (i < classic) {
			b = e4_group_desc_block(fs, 0, i);
		} else {
			e4_group_t grp = (e4_group_t)((uint64_t)i * g->desc_per_block);

			if (grp >= g->group_count)
				break;
			b = e4_group_first_block(fs, grp);
			if (grp == 0 && g->block_size == 1024)
				b = 1;
			if (e4_group_has_super(fs, grp))
				b++;
		}
		if (b >= g->blocks_count)
			return E4_ERR_GD_BAD_LOCATION;
		err = e4_io_pwrite(fs->io, b * (uint64_t)g->block_size,
				   fs->gdt + (size_t)i * g->block_size, g->block_size);
		if (err)
			return err;
	}
	return 0;
}
