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
#include "map_int.h"

#include <stdlib.h>
#include <string.h>

struct trunc {
	e4_fs *fs;
	e4_ino_t ino;
	uint64_t freed;		/* blocks freed (data and map blocks) */
};

static int blk_ok(e4_fs *fs, e4_blk_t blk, uint64_t count)
{
	return blk >= fs->geom.first_data_block && count <= fs->geom.blocks_count &&
	       blk < fs->geom.blocks_count && blk + count <= fs->geom.blocks_count;
}

static errcode_t free_run(struct trunc *t, e4_blk_t blk, uint64_t count)
{
	return count ? e4_map_free_blocks(t->fs, blk, count, &t->freed) : 0;
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
	return e4_file_zero_tail(fs, ino, inode, e4_inode_size(inode));
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
	e4_sb_feature_change(fs->sb, E4_FEAT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT, 0);
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
