/*
 * symlink.c: symbolic link targets (format doc sections 6.1 and 8.6).
 *
 * Three storages: fast (the target in i_block, no data blocks), slow (the
 * target in the first data block) and inline data (i_block plus the
 * system.data xattr).  A target is at most one block long.
 */
#include <stdlib.h>
#include <string.h>

#include "e4_private.h"

/* Copy a target of len bytes out, NUL-terminating when there is room.
 * A NUL inside the target is corruption, except in an encrypted link,
 * whose target is ciphertext. */
static errcode_t give(const struct ext4_inode *inode, const void *src, size_t len,
		      char *buf, size_t bufsize, size_t *outlen)
{
	if (!(e4_le32(inode->i_flags) & EXT4_ENCRYPT_FL) && memchr(src, 0, len))
		return E4_ERR_SYMLINK_CORRUPT;
	if (outlen)
		*outlen = len;
	if (len > bufsize) {
		if (bufsize)
			memcpy(buf, src, bufsize);
		return E4_ERR_BUFFER_TOO_SMALL;
	}
	memcpy(buf, src, len);
	if (len < bufsize)
		buf[len] = '\0';
	return 0;
}

/* i_blocks (512-byte units) less the xattr block's share: a whole
 * cluster on bigalloc. */
static uint64_t data_blocks(e4_fs *fs, const struct ext4_inode *inode)
{
	uint64_t blocks = e4_inode_blocks(fs, inode), ea = fs->geom.cluster_size / 512;

	if (e4_inode_file_acl(fs, inode))
		blocks = blocks > ea ? blocks - ea : 0;
	return blocks;
}

int e4_inode_is_fast_symlink(e4_fs *fs, const struct ext4_inode *inode)
{
	if (!e4_is_symlink(inode) || (e4_le32(inode->i_flags) & EXT4_INLINE_DATA_FL))
		return 0;
	return data_blocks(fs, inode) == 0 && e4_inode_size(inode) < sizeof(inode->i_block);
}

static errcode_t read_inline(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			     uint64_t size, char *buf, size_t bufsize, size_t *len)
{
	size_t cap, got;
	uint8_t *data;
	errcode_t err;

	err = e4_inline_data_size(fs, ino, inode, &cap);
	if (err)
		return err;
	if (size > cap)
		return E4_ERR_SYMLINK_CORRUPT;
	data = malloc(cap ? cap : 1);
	if (!data)
		return E4_ERR_NO_MEMORY;
	err = e4_inline_data_get(fs, ino, inode, data, cap, &got);
	if (!err)
		err = give(inode, data, (size_t)size, buf, bufsize, len);
	free(data);
	return err;
}

static errcode_t read_slow(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			   uint64_t size, char *buf, size_t bufsize, size_t *len)
{
	e4_blk_t pblk;
	uint32_t n;
	unsigned flags;
	uint8_t *blk;
	errcode_t err;

	if (size >= fs->geom.block_size)
		return E4_ERR_SYMLINK_CORRUPT;
	err = e4_bmap(fs, ino, inode, 0, &pblk, &n, &flags);
	if (err)
		return err;
	if (!pblk || (flags & E4_MAP_UNWRITTEN))
		return E4_ERR_SYMLINK_CORRUPT;
	blk = malloc(fs->geom.block_size);
	if (!blk)
		return E4_ERR_NO_MEMORY;
	err = e4_read_block(fs, pblk, blk);
	if (!err)
		err = give(inode, blk, (size_t)size, buf, bufsize, len);
	free(blk);
	return err;
}

errcode_t e4_readlink(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
		      char *buf, size_t bufsize, size_t *len)
{
	union e4_inode_buf ib;
	uint64_t size;
	errcode_t err;

	if (!inode) {
		err = e4_inode_read(fs, ino, &ib);
		if (err)
			return err;
		inode = &ib.inode;
	}
	if (!e4_is_symlink(inode))
		return E4_ERR_NOT_SYMLINK;
	size = e4_inode_size(inode);
	if (size == 0)
		return E4_ERR_SYMLINK_CORRUPT;
	if (e4_le32(inode->i_flags) & EXT4_INLINE_DATA_FL)
		return read_inline(fs, ino, inode, size, buf, bufsize, len);
	/* Fast: no data blocks (the xattr block aside) and a target that
	 * fits i_block with room to spare. */
	if (e4_inode_is_fast_symlink(fs, inode))
		return give(inode, inode->i_block, (size_t)size, buf, bufsize, len);
	if (data_blocks(fs, inode) == 0)
		return E4_ERR_SYMLINK_CORRUPT;	/* too long for i_block */
	return read_slow(fs, ino, inode, size, buf, bufsize, len);
}
