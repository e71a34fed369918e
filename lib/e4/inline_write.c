/*
 * inline_write.c: writing inline data (format doc section 8.6): the first
 * 60 bytes of the content in i_block, the rest as the value of the
 * in-inode attribute system.data (index 7, "data"), which exists, empty,
 * even when everything fits in i_block; INLINE_DATA_FL set, EXTENTS_FL
 * clear, i_blocks 0; i_size the content's length.  The readers are in
 * inline.c.
 */
#include <stdlib.h>
#include <string.h>

#include "map_int.h"
#include "xattr_write.h"

#define INL_IBLOCK	EXT4_MIN_INLINE_DATA_SIZE

size_t e4_inline_value_max(e4_fs *fs, const union e4_inode_buf *ib, size_t have)
{
	size_t lo = have, hi = fs->geom.inode_size;	/* lo fits, hi does not */
	union e4_inode_buf *copy = malloc(sizeof(*copy));
	uint8_t *zeros = calloc(1, hi);

	if (!copy || !zeros) {
		free(copy);
		free(zeros);
		return have;
	}
	while (hi - lo > 4) {
		size_t mid = (lo + (hi - lo) / 2) & ~(size_t)3;

		if (mid <= lo)
			mid = lo + 4;
		memcpy(copy, ib, sizeof(*copy));
		if (e4_xattr_ibody_set(fs, copy, EXT4_XATTR_INDEX_SYSTEM, "data", 4, zeros, mid))
			hi = mid;
		else
			lo = mid;
	}
	free(copy);
	free(zeros);
	return lo;
}

size_t e4_inline_data_max(e4_fs *fs, const union e4_inode_buf *ib)
{
	union e4_inode_buf copy;
	static const uint8_t none[1];

	if (!e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_INLINE_DATA) ||
	    fs->geom.inode_size <= EXT4_GOOD_OLD_INODE_SIZE)
		return 0;
	/* not even an empty system.data fits (no in-inode xattr room) */
	memcpy(&copy, ib, sizeof(copy));
	if (e4_xattr_ibody_set(fs, &copy, EXT4_XATTR_INDEX_SYSTEM, "data", 4, none, 0))
		return 0;
	return INL_IBLOCK + e4_inline_value_max(fs, ib, 0);
}

errcode_t e4_inline_data_set(e4_fs *fs, union e4_inode_buf *ib, const void *data, size_t len)
{
	struct ext4_inode *inode = &ib->inode;
	const uint8_t *d = data;
	size_t head = len < INL_IBLOCK ? len : INL_IBLOCK;
	static const uint8_t none[1];
	errcode_t err;

	if (!e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_INLINE_DATA) ||
	    fs->geom.inode_size <= EXT4_GOOD_OLD_INODE_SIZE)
		return E4_ERR_UNSUPPORTED;
	err = e4_xattr_ibody_set(fs, ib, EXT4_XATTR_INDEX_SYSTEM, "data", 4,
				 len > INL_IBLOCK ? d + INL_IBLOCK : none,
				 len > INL_IBLOCK ? len - INL_IBLOCK : 0);
	if (err)
		return err;
	memset(inode->i_block, 0, sizeof(inode->i_block));
	memcpy(inode->i_block, d, head);
	inode->i_flags = e4_cpu_to_le32((e4_le32(inode->i_flags) & ~(uint32_t)EXT4_EXTENTS_FL) |
					EXT4_INLINE_DATA_FL);
	inode->i_size_lo = e4_cpu_to_le32((uint32_t)len);
	inode->i_size_high = 0;
	return 0;
}

errcode_t e4_inline_data_remove(e4_fs *fs, union e4_inode_buf *ib)
{
	struct ext4_inode *inode = &ib->inode;
	errcode_t err;

	err = e4_xattr_ibody_set(fs, ib, EXT4_XATTR_INDEX_SYSTEM, "data", 4, NULL, 0);
	if (err && err != E4_ERR_XATTR_NOT_FOUND)
		return err;
	memset(inode->i_block, 0, sizeof(inode->i_block));
	inode->i_flags = e4_cpu_to_le32(e4_le32(inode->i_flags) & ~(uint32_t)EXT4_INLINE_DATA_FL);
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EXTENTS))
		e4_extent_root_init(inode);
	return 0;
}
