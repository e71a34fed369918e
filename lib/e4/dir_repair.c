/*
 * dir_repair.c: directory blocks checked and changed in place, entry by
 * entry, for a checker that repairs what the other readers refuse
 * (e4fsck's pass 2; format doc sections 8.1-8.3, 8.5).  The readers
 * (dir.c, htree.c) skip a damaged block whole; these calls let the caller
 * look at each record, rewrite one record's header or name, and verify or
 * set the checksum tails, without knowing the layout.
 */
#include <string.h>

#include "dir_int.h"

errcode_t e4_dirent_put(void *block, unsigned bs, unsigned off, uint32_t inode, unsigned rec_len,
			unsigned name_len, uint8_t file_type)
{
	uint8_t *d = (uint8_t *)block + off;
	uint16_t dlen;
	errcode_t err;

	if (off + E4_DIRENT_HDR > bs || off + rec_len > bs || name_len > EXT4_NAME_LEN ||
	    E4_DIRENT_HDR + name_len > rec_len)
		return E4_ERR_BAD_REC_LEN;
	err = e4_rec_len_to_disk(rec_len, bs, &dlen);
	if (err)
		return err;
	e4_put_le32(d, inode);
	e4_put_le16(d + 4, dlen);
	d[6] = (uint8_t)name_len;
	d[7] = file_type;
	return 0;
}

errcode_t e4_dirent_put_name(void *block, unsigned bs, unsigned off, const char *name,
			     unsigned len)
{
	uint8_t *d = (uint8_t *)block + off;

	if (len > EXT4_NAME_LEN || off + E4_DIRENT_HDR + len > bs)
		return E4_ERR_BAD_REC_LEN;
	memmove(d + E4_DIRENT_HDR, name, len);
	return 0;
}

errcode_t e4_dirent_move(void *block, unsigned bs, unsigned from, unsigned to, unsigned len)
{
	if (from + len > bs || to + len > bs)
		return E4_ERR_BAD_REC_LEN;
	memmove((uint8_t *)block + to, (uint8_t *)block + from, len);
	return 0;
}

unsigned e4_dirent_min_len(unsigned name_len)
{
	return e4_dirent_min_rec(name_len);
}

errcode_t e4_dir_leaf_csum_verify(e4_fs *fs, e4_ino_t dir, uint32_t generation,
				  const void *block)
{
	unsigned bs = fs->geom.block_size;
	struct e4_dirent_raw t;

	unsigned off = 0;

	if (!fs->geom.metadata_csum)
		return 0;
	/* the records, followed from the start, must stop where the tail
	 * starts (one that runs over it has taken its place); a damaged
	 * record before that leaves the question to the tail's own bytes */
	while (off < bs - E4_DIRENT_TAIL && !e4_dirent_raw_at(block, bs, off, &t) &&
	       t.rec_len >= 12)
		off += t.rec_len;
	if (off > bs - E4_DIRENT_TAIL)
		return E4_ERR_DIR_NO_CSUM_TAIL;
	if (e4_dirent_raw_at(block, bs, bs - E4_DIRENT_TAIL, &t) || !t.csum_tail)
		return E4_ERR_DIR_NO_CSUM_TAIL;
	if (t.tail_csum != e4_dirblock_csum(fs, dir, generation, block))
		return E4_ERR_DIR_CSUM;
	return 0;
}

errcode_t e4_dx_csum_verify(e4_fs *fs, e4_ino_t dir, uint32_t generation, const void *block,
			    unsigned count_off)
{
	const uint8_t *b = block;
	unsigned bs = fs->geom.block_size;
	unsigned limit, count;
	struct dx_tail tail;
	size_t toff;

	if (count_off + 4 > bs)
		return E4_ERR_HTREE_CORRUPT;
	limit = e4_get_le16(b + count_off);
	count = e4_get_le16(b + count_off + 2);
	toff = count_off + (size_t)limit * sizeof(struct dx_entry);
	if (count > limit || toff > bs)
		return E4_ERR_HTREE_CORRUPT;
	if (!fs->geom.metadata_csum)
		return 0;
	if (toff + sizeof(tail) > bs)
		return E4_ERR_DIR_NO_CSUM_TAIL;
	memcpy(&tail, b + toff, sizeof(tail));
	if (e4_dx_csum(fs, dir, generation, b, count_off, count, &tail) !=
	    e4_le32(tail.dt_checksum))
		return E4_ERR_HTREE_CSUM;
	return 0;
}

unsigned e4_dx_limit_for(e4_fs *fs, unsigned count_off)
{
	return e4_dx_limit(fs->geom.block_size, count_off, fs->geom.metadata_csum);
}

errcode_t e4_dir_inline_put(e4_fs *fs, e4_ino_t dir, union e4_inode_buf *ib, const void *buf,
			    size_t size)
{
	size_t cur;
	errcode_t err;

	err = e4_inline_data_size(fs, dir, &ib->inode, &cur);
	if (err)
		return err;
	if (cur != size || size < EXT4_MIN_INLINE_DATA_SIZE)
		return E4_ERR_INVALID_ARGUMENT;
	if (size > EXT4_MIN_INLINE_DATA_SIZE) {
		err = e4_xattr_ibody_set(fs, ib, EXT4_XATTR_INDEX_SYSTEM, "data", 4,
					 (const uint8_t *)buf + EXT4_MIN_INLINE_DATA_SIZE,
					 size - EXT4_MIN_INLINE_DATA_SIZE);
		if (err)
			return err;
	}
	memcpy(ib->inode.i_block, buf, EXT4_MIN_INLINE_DATA_SIZE);
	return e4_inode_write(fs, dir, ib);
}
