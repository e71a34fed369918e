/*
 * map.c: one mapping interface over extent trees and indirect maps
 * (format doc section 7).  Dispatches on EXT4_EXTENTS_FL; inodes whose
 * i_block is not a map (devices, fifos, sockets, inline data, fast
 * symlinks) have no blocks.
 */
#include <string.h>

#include "e4_private.h"

/* Holes are extended across tree-node / indirect-block boundaries by
 * further lookups; this bounds the work on a crafted map. */
#define BMAP_HOLE_STEPS		1024

int e4_inode_has_map(e4_fs *fs, const struct ext4_inode *inode)
{
	switch (e4_le16(inode->i_mode) & EXT4_S_IFMT) {
	case EXT4_S_IFCHR:
	case EXT4_S_IFBLK:
	case EXT4_S_IFIFO:
	case EXT4_S_IFSOCK:
		return 0;
	default:
		break;
	}
	if (e4_le32(inode->i_flags) & EXT4_INLINE_DATA_FL)
		return 0;
	return !e4_inode_is_fast_symlink(fs, inode);
}

static errcode_t lookup(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			uint64_t lblk, e4_blk_t *pblk, uint64_t *len, unsigned *flags)
{
	if (e4_le32(inode->i_flags) & EXT4_EXTENTS_FL)
		return e4_extent_lookup(fs, ino, inode, lblk, pblk, len, flags);
	return e4_blockmap_lookup(fs, inode, lblk, pblk, len, flags);
}

errcode_t e4_bmap(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
		  uint64_t lblk, e4_blk_t *pblk, uint32_t *len, unsigned *flags)
{
	union e4_inode_buf ib;
	uint64_t cur = lblk, l;
	e4_blk_t p;
	unsigned fl;
	errcode_t err;
	int step;

	*pblk = 0;
	*len = UINT32_MAX;
	*flags = 0;
	if (!inode) {
		err = e4_inode_read(fs, ino, &ib);
		if (err)
			return err;
		inode = &ib.inode;
	}
	if (!e4_inode_has_map(fs, inode))
		return 0;

	for (step = 0; step < BMAP_HOLE_STEPS; step++) {
		err = lookup(fs, ino, inode, cur, &p, &l, &fl);
		if (err == E4_ERR_FILE_TOO_BIG && cur > lblk)
			return 0;		/* hole to the end of the map */
		if (err)
			return err;
		if (p) {
			if (cur == lblk) {
				*pblk = p;
				*len = l > UINT32_MAX ? UINT32_MAX : (uint32_t)l;
				*flags = fl;
				return 0;
			}
			break;			/* the hole ends at cur */
		}
		if (l == UINT64_MAX || l > UINT64_MAX - cur)
			return 0;		/* nothing mapped after lblk */
		cur += l;
	}
	/* A finite hole (possibly a lower bound after BMAP_HOLE_STEPS). */
	l = cur - lblk;
	*len = l >= UINT32_MAX ? UINT32_MAX - 1 : (uint32_t)l;
	return 0;
}

errcode_t e4_map_iterate(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			 unsigned flags, e4_map_cb cb, void *priv)
{
	union e4_inode_buf ib;
	errcode_t err;

	if (!inode) {
		err = e4_inode_read(fs, ino, &ib);
		if (err)
			return err;
		inode = &ib.inode;
	}
	if (!e4_inode_has_map(fs, inode))
		return 0;
	if (e4_le32(inode->i_flags) & EXT4_EXTENTS_FL)
		return e4_extent_walk(fs, ino, inode, flags, cb, priv);
	return e4_blockmap_walk(fs, inode, flags, cb, priv);
}
