/*
 * csumrw.c: turning metadata_csum on or off on an existing filesystem and
 * rewriting every checksum after the seed changed (a new UUID); format doc
 * section 10 (what each checksum covers), 8.3 and 8.5 (directory tails).
 *
 * Write order: the superblock on the device marked not clean (with the
 * old features and UUID), then the blocks that carry checksums (extent
 * blocks, directory blocks, xattr blocks, inodes, bitmaps) -- their
 * checksum fields are ignored by a filesystem without metadata_csum, and a
 * directory tail is an ordinary empty entry to it -- then the descriptor
 * table, the superblock with the new rules and its state as it was last.
 * A stop before that leaves the old feature set, marked not clean, with
 * checksums (and htree limits) of the new rules that the next check
 * recomputes: no rule change can flip them all in one write (DESIGN.md
 * "Writing safely"; judged by tests/t/tune_crash.sh).
 */
#include "e4_private.h"

#include <stdlib.h>
#include <string.h>

#define DX_ROOT_OFF	0x20	/* dx_countlimit in a dx root */
#define DX_NODE_OFF	8	/* dx_countlimit in a dx node */

struct rw_ctx {
	e4_fs *fs;
	e4_ino_t ino;
	uint32_t gen;
	const struct ext4_inode *inode;
	uint8_t *buf;
	int dx_levels;		/* root's indirect_levels, -1 without an index */
	e4_ino_t *bad_ino;
	errcode_t err;
	int go_on;		/* e4_csum_rewrite_best_effort(): past damage */
	errcode_t first;	/* then the first error met */
};

/* Under go_on, keep the first error in c->first and carry on (0). */
static errcode_t pass_over(struct rw_ctx *c, errcode_t err)
{
	if (!err || !c->go_on)
		return err;
	if (!c->first)
		c->first = err;
	return 0;
}

static errcode_t write_blk(e4_fs *fs, e4_blk_t blk, const void *buf)
{
	if (blk < fs->geom.first_data_block || blk >= fs->geom.blocks_count)
		return E4_ERR_BAD_BLOCK_NUM;
	return e4_io_write_blk(fs->io, blk, 1, buf);
}

/* Tail of an extent tree block: checksum after eh_max entries. */
static errcode_t fix_extent_block(struct rw_ctx *c, e4_blk_t blk)
{
	e4_fs *fs = c->fs;
	unsigned bs = fs->geom.block_size;
	struct ext4_extent_header *eh = (struct ext4_extent_header *)c->buf;
	size_t off;
	errcode_t err;

	err = e4_read_block(fs, blk, c->buf);
	if (err)
		return err;
	if (e4_le16(eh->eh_magic) != EXT4_EXT_MAGIC)
		return E4_ERR_EXTENT_HEADER;
	off = sizeof(*eh) + (size_t)e4_le16(eh->eh_max) * sizeof(struct ext4_extent);
	if (off + sizeof(struct ext4_extent_tail) > bs)
		return E4_ERR_EXTENT_HEADER;
	if (fs->geom.metadata_csum) {
		uint32_t v = e4_cpu_to_le32(e4_extent_block_csum(fs, c->ino, c->gen, c->buf));

		memcpy(c->buf + off, &v, 4);
	}
	return write_blk(fs, blk, c->buf);
}

/* A leaf block: make sure the 12-byte tail exists (taking it from the last
 * entry's slack), then set its checksum. */
static errcode_t fix_dir_leaf(struct rw_ctx *c, uint8_t *b)
{
	e4_fs *fs = c->fs;
	unsigned bs = fs->geom.block_size, off = 0, last = 0, n = 0;
	struct ext4_dir_entry_tail *t = (struct ext4_dir_entry_tail *)(b + bs - 12);
	int has_tail = e4_le32(t->det_reserved_zero1) == 0 && e4_le16(t->det_rec_len) == 12 &&
		       t->det_reserved_zero2 == 0 && t->det_reserved_ft == 0xDE;

	if (!has_tail) {
		unsigned len, need;
		uint16_t dlen;
		struct ext4_dir_entry_2 *de;

		/* each entry's 8-byte header must lie inside the block */
		while (off + 8 <= bs && n++ < bs / 8) {
			len = e4_rec_len_from_disk(e4_le16(((struct ext4_dir_entry_2 *)(b + off))->rec_len), bs);
			if (len < 8 || off + len > bs || (len & 3))
				return E4_ERR_DIR_CORRUPT;
			last = off;
			off += len;
		}
		if (off != bs)
			return E4_ERR_DIR_CORRUPT;
		de = (struct ext4_dir_entry_2 *)(b + last);
		len = e4_rec_len_from_disk(e4_le16(de->rec_len), bs);
		need = (8U + de->name_len + 3) & ~3U;
		if (last && !de->inode && len == 12) {
			/* an unused 12-byte entry at the end becomes the tail */
			memset(t, 0, sizeof(*t));
			t->det_rec_len = e4_cpu_to_le16(12);
			t->det_reserved_ft = 0xDE;
			goto csum;
		}
		if (len < need + 12)
			return E4_ERR_BUFFER_TOO_SMALL;
		if (e4_rec_len_to_disk(len - 12, bs, &dlen))
			return E4_ERR_BAD_REC_LEN;
		de->rec_len = e4_cpu_to_le16(dlen);
		memset(t, 0, sizeof(*t));
		t->det_rec_len = e4_cpu_to_le16(12);
		t->det_reserved_ft = 0xDE;
	}
csum:
	if (fs->geom.metadata_csum)
		t->det_checksum = e4_cpu_to_le32(e4_dirblock_csum(fs, c->ino, c->gen, b));
	return 0;
}

/* A dx root or node: room for the dx_tail (lowering the limit by one when
 * the entries leave room), then its checksum. */
static errcode_t fix_dx(struct rw_ctx *c, uint8_t *b, unsigned off)
{
	e4_fs *fs = c->fs;
	unsigned bs = fs->geom.block_size;
	struct dx_countlimit *cl = (struct dx_countlimit *)(b + off);
	unsigned limit = e4_le16(cl->limit), count = e4_le16(cl->count);
	struct dx_tail *t;

	if (count > limit || off + (size_t)limit * 8 > bs)
		return E4_ERR_HTREE_CORRUPT;
	if (!fs->geom.metadata_csum) {
		/* without checksums the index fills the block */
		cl->limit = e4_cpu_to_le16((uint16_t)((bs - off) / 8));
		return 0;
	}
	if (off + (size_t)limit * 8 + sizeof(*t) > bs) {
		if (count >= limit)
			return E4_ERR_BUFFER_TOO_SMALL;
		limit = (bs - off - sizeof(*t)) / 8;
		if (count > limit)
			return E4_ERR_BUFFER_TOO_SMALL;
		cl->limit = e4_cpu_to_le16((uint16_t)limit);
	}
	t = (struct dx_tail *)(b + off + limit * 8);
	if (fs->geom.metadata_csum) {
		t->dt_reserved = 0;
		t->dt_checksum = e4_cpu_to_le32(e4_dx_csum(fs, c->ino, c->gen, b, off, count, t));
	}
	return 0;
}

static int dir_cb(e4_fs *fs, const struct e4_map_extent *ext, void *priv)
{
	struct rw_ctx *c = priv;

	if (ext->flags & E4_MAP_META) {
		if (fs->geom.metadata_csum && e4_inode_has_map(fs, c->inode) &&
		    (e4_le32(c->inode->i_flags) & EXT4_EXTENTS_FL))
			c->err = pass_over(c, fix_extent_block(c, ext->pblk));
		return c->err ? 1 : 0;
	}
	if (ext->flags & E4_MAP_UNWRITTEN)
		return 0;
	for (uint32_t i = 0; i < ext->len && !c->err; i++) {
		uint64_t lblk = ext->lblk + i;
		e4_blk_t pblk = ext->pblk + i;
		int kind = E4_DX_LEAF;

		c->err = e4_read_block(fs, pblk, c->buf);
		if (c->err) {
			c->err = pass_over(c, c->err);
			continue;
		}
		if (c->dx_levels >= 0) {
			kind = e4_dx_block_kind(fs, c->buf, lblk);
			if (kind == E4_DX_NODE && c->dx_levels == 0)
				kind = E4_DX_LEAF;
		}
		if (kind == E4_DX_ROOT)
			c->err = fix_dx(c, c->buf, DX_ROOT_OFF);
		else if (kind == E4_DX_NODE)
			c->err = fix_dx(c, c->buf, DX_NODE_OFF);
		else if (fs->geom.metadata_csum)
			c->err = fix_dir_leaf(c, c->buf);
		else
			continue;	/* a leaf keeps its tail: an empty entry */
		if (!c->err)
			c->err = write_blk(fs, pblk, c->buf);
		c->err = pass_over(c, c->err);
	}
	return c->err ? 1 : 0;
}

static int extent_meta_cb(e4_fs *fs, const struct e4_map_extent *ext, void *priv)
{
	struct rw_ctx *c = priv;

	(void)fs;
	if (!(ext->flags & E4_MAP_META))
		return 0;
	c->err = pass_over(c, fix_extent_block(c, ext->pblk));
	return c->err ? 1 : 0;
}

static errcode_t fix_xattr_block(struct rw_ctx *c, e4_blk_t blk)
{
	e4_fs *fs = c->fs;
	struct ext4_xattr_header *h = (struct ext4_xattr_header *)c->buf;
	errcode_t err = e4_read_block(fs, blk, c->buf);

	if (err)
		return err;
	if (e4_le32(h->h_magic) != EXT4_XATTR_MAGIC)
		return E4_ERR_XATTR_MAGIC;
	if (fs->geom.metadata_csum) {
		h->h_checksum = 0;
		h->h_checksum = e4_cpu_to_le32(e4_xattr_block_csum(fs, blk, c->buf));
	}
	return write_blk(fs, blk, c->buf);
}

/* One in-use inode: its blocks that carry checksums, then itself. */
static errcode_t fix_inode(struct rw_ctx *c, e4_ino_t ino)
{
	e4_fs *fs = c->fs;
	union e4_inode_buf ib;
	struct ext4_inode *in = &ib.inode;
	uint32_t flags;
	errcode_t err;

	err = e4_inode_read(fs, ino, &ib);
	if (err && err != E4_ERR_INODE_CSUM)
		return err;
	if (!in->i_mode && !in->i_links_count && ino >= fs->geom.first_ino)
		return 0;
	c->ino = ino;
	c->gen = e4_le32(in->i_generation);
	c->inode = in;
	c->err = 0;
	flags = e4_le32(in->i_flags);
	/* without checksums only the htree limits change */
	if (!fs->geom.metadata_csum && !(e4_is_dir(in) && (flags & EXT4_INDEX_FL)))
		return 0;
	if (e4_inode_has_map(fs, in) && !(flags & EXT4_INLINE_DATA_FL) && ino != EXT4_RESIZE_INO &&
	    ino != EXT4_BAD_INO) {
		unsigned walk = c->go_on ? E4_ITER_META | E4_ITER_AS_STORED : E4_ITER_META;

		if (e4_is_dir(in)) {
			c->dx_levels = -1;
			if (flags & EXT4_INDEX_FL) {
				e4_blk_t p;
				uint32_t len;
				unsigned mf;

				if (!e4_bmap(fs, ino, in, 0, &p, &len, &mf) && p &&
				    !e4_read_block(fs, p, c->buf))
					c->dx_levels = ((struct dx_root_info *)(c->buf + 24))->indirect_levels;
			}
			err = e4_map_iterate(fs, ino, in, walk, dir_cb, c);
		} else if (flags & EXT4_EXTENTS_FL) {
			err = e4_map_iterate(fs, ino, in, walk, extent_meta_cb, c);
		}
		if (c->err)
			err = c->err;
		if (pass_over(c, err))
			return err;
	}
	if (!fs->geom.metadata_csum)
		return 0;
	if (e4_inode_file_acl(fs, in)) {
		err = fix_xattr_block(c, e4_inode_file_acl(fs, in));
		if (pass_over(c, err))
			return err;
	}
	return e4_inode_write(fs, ino, &ib);
}

static void refresh(e4_fs *fs)
{
	struct ext4_super_block *sb = fs->sb;
	uint32_t ro = e4_le32(sb->s_feature_ro_compat);

	fs->geom.metadata_csum = !!(ro & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM);
	fs->geom.gdt_csum = !!(ro & EXT4_FEATURE_RO_COMPAT_GDT_CSUM);
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_CSUM_SEED))
		fs->csum_seed = e4_le32(sb->s_checksum_seed);
	else
		fs->csum_seed = e4_crc32c(~0U, sb->s_uuid, sizeof(sb->s_uuid));
}

/* Rewrite everything; the in-memory superblock already has the features
 * and UUID wanted. */
static errcode_t rewrite(e4_fs *fs, e4_ino_t *bad_ino, int go_on)
{
	const struct e4_geom *g = &fs->geom;
	struct rw_ctx c;
	uint8_t *ibm = NULL, *bbm = NULL;
	int saved = fs->flags;
	errcode_t err = 0;

	memset(&c, 0, sizeof(c));
	c.fs = fs;
	c.go_on = go_on;
	c.buf = malloc(g->block_size);
	ibm = malloc(g->block_size);
	bbm = malloc(g->block_size);
	if (!c.buf || !ibm || !bbm) {
		err = E4_ERR_NO_MEMORY;
		goto out;
	}
	/* start from the device: bitmaps written uncached (e4_alloc_flush)
	 * may be stale in the block cache */
	err = e4_io_flush(fs->io);
	if (!err)
		err = e4_io_set_blksize(fs->io, g->block_size);
	/* not clean on the device before the first block changes rules */
	if (!err)
		err = e4_super_mark_unclean(fs);
	if (err)
		goto out;
	/* the old checksums no longer verify under the new rules */
	fs->flags |= E4_OPEN_IGNORE_CSUM;
	refresh(fs);
	for (e4_group_t grp = 0; grp < g->group_count && !err; grp++) {
		err = e4_read_inode_bitmap(fs, grp, ibm);
		if (err) {
			err = pass_over(&c, err);
			continue;
		}
		for (uint32_t i = 0; !err && i < g->inodes_per_group; i++) {
			e4_ino_t ino = grp * g->inodes_per_group + i + 1;

			if (!((ibm[i >> 3] >> (i & 7)) & 1) || ino > g->inodes_count)
				continue;
			err = fix_inode(&c, ino);
			if (err && bad_ino)
				*bad_ino = ino;
			err = pass_over(&c, err);
		}
	}
	if (!err)
		err = e4_io_flush(fs->io);
	if (g->metadata_csum) {
		/* bitmaps: their checksums go into the descriptors */
		for (e4_group_t grp = 0; grp < g->group_count && !err; grp++) {
			struct e4_group gd;

			err = e4_group_get(fs, grp, &gd);
			if (err)
				break;
			if (!(gd.flags & EXT4_BG_BLOCK_UNINIT)) {
				err = e4_read_block_bitmap(fs, grp, bbm);
				if (!err)
					err = e4_block_bitmap_write(fs, grp, bbm);
				err = pass_over(&c, err);
			}
			if (!err && !(gd.flags & EXT4_BG_INODE_UNINIT)) {
				err = e4_read_inode_bitmap(fs, grp, ibm);
				if (!err)
					err = e4_inode_bitmap_write(fs, grp, ibm);
				err = pass_over(&c, err);
			}
		}
	}
	for (e4_group_t grp = 0; grp < g->group_count && !err; grp++)
		e4_group_csum_set(fs, grp);
	if (!err)
		err = pass_over(&c, e4_gdt_write(fs));
	if (!err)
		err = pass_over(&c, e4_super_write_backups(fs));
	if (!err)
		err = e4_super_write(fs);
	if (!err)
		err = e4_flush(fs);
out:
	if (!err)
		err = c.first;
	fs->flags = saved;
	free(c.buf);
	free(ibm);
	free(bbm);
	return err;
}

errcode_t e4_csum_rewrite_all(e4_fs *fs, e4_ino_t *bad_ino)
{
	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	return rewrite(fs, bad_ino, 0);
}

errcode_t e4_csum_rewrite_best_effort(e4_fs *fs)
{
	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	return rewrite(fs, NULL, 1);
}

errcode_t e4_metadata_csum_set(e4_fs *fs, int on, int uninit_bg, e4_ino_t *bad_ino)
{
	struct ext4_super_block *sb = fs->sb;
	uint32_t ro = e4_le32(sb->s_feature_ro_compat);
	uint32_t in = e4_le32(sb->s_feature_incompat);

	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (e4_has_compat(fs, EXT4_FEATURE_COMPAT_ORPHAN_FILE) ||
	    e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EA_INODE) ||
	    e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_INLINE_DATA))
		return E4_ERR_UNSUPPORTED;
	if (on) {
		ro |= EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
		ro &= ~EXT4_FEATURE_RO_COMPAT_GDT_CSUM;
		sb->s_checksum_type = EXT4_CRC32C_CHKSUM;
	} else {
		ro &= ~EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
		if (uninit_bg)
			ro |= EXT4_FEATURE_RO_COMPAT_GDT_CSUM;
		else
			ro &= ~EXT4_FEATURE_RO_COMPAT_GDT_CSUM;
		in &= ~EXT4_FEATURE_INCOMPAT_CSUM_SEED;
		sb->s_checksum_seed = 0;
		sb->s_checksum = 0;
	}
	e4_sb_set_features(sb, E4_FEAT_RO_COMPAT, ro);
	e4_sb_set_features(sb, E4_FEAT_INCOMPAT, in);
	return rewrite(fs, bad_ino, 0);
}
