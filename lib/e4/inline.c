/*
 * inline.c: inline data (format doc section 8.6).  The first 60 bytes of
 * the content are i_block; the rest is the value of the in-inode xattr
 * system.data (index 7, name "data").
 */
#include <string.h>

#include "e4_private.h"

/* Locate system.data in inode (read into *ib when inode is NULL).  A
 * missing one counts as empty: the i_block part is still usable. */
static errcode_t inline_tail(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			     union e4_inode_buf *ib, const void **tail, uint32_t *tail_len)
{
	errcode_t err;

	if (!inode) {
		err = e4_inode_read(fs, ino, ib);
		if (err)
			return err;
		inode = &ib->inode;
	}
	if (!(e4_le32(inode->i_flags) & EXT4_INLINE_DATA_FL))
		return E4_ERR_NO_INLINE_DATA;
	err = e4_xattr_ibody_find(fs, inode, EXT4_XATTR_INDEX_SYSTEM, "data", 4, tail, tail_len);
	if (err == E4_ERR_XATTR_NOT_FOUND) {
		*tail = NULL;
		*tail_len = 0;
		return 0;
	}
	if (err == E4_ERR_XATTR_CORRUPT || err == E4_ERR_BAD_EXTRA_ISIZE)
		return E4_ERR_INLINE_DATA;
	return err;
}

errcode_t e4_inline_data_size(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			      size_t *size)
{
	union e4_inode_buf ib;
	const void *tail;
	uint32_t tail_len;
	errcode_t err;

	err = inline_tail(fs, ino, inode, &ib, &tail, &tail_len);
	if (err)
		return err;
	*size = EXT4_MIN_INLINE_DATA_SIZE + (size_t)tail_len;
	return 0;
}

errcode_t e4_inline_data_get(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			     void *buf, size_t bufsize, size_t *size)
{
	union e4_inode_buf ib;
	const struct ext4_inode *in = inode ? inode : &ib.inode;
	const void *tail;
	uint32_t tail_len;
	size_t total, n;
	errcode_t err;

	err = inline_tail(fs, ino, inode, &ib, &tail, &tail_len);
	if (err)
		return err;
	total = EXT4_MIN_INLINE_DATA_SIZE + (size_t)tail_len;
	n = bufsize < EXT4_MIN_INLINE_DATA_SIZE ? bufsize : EXT4_MIN_INLINE_DATA_SIZE;
	memcpy(buf, in->i_block, n);
	if (bufsize > EXT4_MIN_INLINE_DATA_SIZE && tail_len) {
		n = bufsize - EXT4_MIN_INLINE_DATA_SIZE;
		if (n > tail_len)
			n = tail_len;
		memcpy((uint8_t *)buf + EXT4_MIN_INLINE_DATA_SIZE, tail, n);
	}
	if (size)
		*size = total;
	return 0;
}
