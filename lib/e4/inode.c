/*
 * inode.c: reading inodes, their extra fields, timestamps and sizes
 * (format doc section 6).
 */
#include "e4_private.h"

#include <stdlib.h>
#include <string.h>

errcode_t e4_inode_location(e4_fs *fs, e4_ino_t ino, uint64_t *offset)
{
	const struct e4_geom *g = &fs->geom;
	struct e4_group d;
	uint32_t idx;
	e4_blk_t blk;
	errcode_t err;

	if (ino < 1 || ino > g->inodes_count)
		return E4_ERR_BAD_INODE_NUM;
	err = e4_group_get(fs, e4_group_of_ino(fs, ino), &d);
	if (err)
		return err;
	idx = (ino - 1) % g->inodes_per_group;
	blk = d.inode_table + ((uint64_t)idx * g->inode_size) / g->block_size;
	if (d.inode_table < g->first_data_block || blk >= g->blocks_count)
		return E4_ERR_GD_BAD_LOCATION;
	*offset = blk * (uint64_t)g->block_size + ((uint64_t)idx * g->inode_size) % g->block_size;
	return 0;
}

errcode_t e4_inode_read(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *buf)
{
	const struct e4_geom *g = &fs->geom;
	uint64_t off;
	uint8_t *blk;
	errcode_t err;

	memset(buf, 0, sizeof(*buf));
	err = e4_inode_location(fs, ino, &off);
	if (err)
		return err;
	blk = malloc(g->block_size);
	if (!blk)
		return E4_ERR_NO_MEMORY;
	err = e4_io_read_blk(fs->io, off / g->block_size, 1, blk);
	if (!err)
		memcpy(buf->raw, blk + off % g->block_size, g->inode_size);
	free(blk);
	if (err)
		return err;
	if (!e4_ignore_csum(fs) && !e4_inode_csum_verify(fs, ino, &buf->inode))
		return E4_ERR_INODE_CSUM;
	return 0;
}

errcode_t e4_inode_read_nocache(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *buf)
{
	uint64_t off;
	errcode_t err;

	memset(buf, 0, sizeof(*buf));
	err = e4_inode_location(fs, ino, &off);
	if (!err)
		err = e4_io_read_nocache(fs->io, off, buf->raw, fs->geom.inode_size);
	if (err)
		return err;
	if (!e4_ignore_csum(fs) && !e4_inode_csum_verify(fs, ino, &buf->inode))
		return E4_ERR_INODE_CSUM;
	return 0;
}

uint64_t e4_inode_size(const struct ext4_inode *inode)
{
	return (uint64_t)e4_le32(inode->i_size_lo) | ((uint64_t)e4_le32(inode->i_size_high) << 32);
}

uint64_t e4_inode_blocks(e4_fs *fs, const struct ext4_inode *inode)
{
	uint64_t b = e4_le32(inode->i_blocks_lo);

	if (e4_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_HUGE_FILE)) {
		b |= (uint64_t)e4_le16(inode->l_i_blocks_high) << 32;
		if (e4_le32(inode->i_flags) & EXT4_HUGE_FILE_FL)
			b *= fs->geom.block_size / 512;
	}
	return b;
}

errcode_t e4_inode_blocks_set(e4_fs *fs, struct ext4_inode *inode, uint64_t sectors)
{
	uint32_t flags = e4_le32(inode->i_flags);
	uint64_t v = sectors;

	if (sectors > 0xFFFFFFFFULL && !e4_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_HUGE_FILE))
		return E4_ERR_FILE_TOO_BIG;
	if (sectors <= 0xFFFFFFFFFFFFULL) {
		flags &= ~(uint32_t)EXT4_HUGE_FILE_FL;
	} else {
		/* beyond 48 bits: counted in filesystem blocks */
		v = sectors / (fs->geom.block_size / 512);
		if (v > 0xFFFFFFFFFFFFULL)
			return E4_ERR_FILE_TOO_BIG;
		flags |= EXT4_HUGE_FILE_FL;
	}
	inode->i_blocks_lo = e4_cpu_to_le32((uint32_t)v);
	inode->l_i_blocks_high = e4_cpu_to_le16((uint16_t)(v >> 32));
	inode->i_flags = e4_cpu_to_le32(flags);
	return 0;
}

uint32_t e4_inode_uid(const struct ext4_inode *inode)
{
	return e4_le16(inode->i_uid) | ((uint32_t)e4_le16(inode->l_i_uid_high) << 16);
}

uint32_t e4_inode_gid(const struct ext4_inode *inode)
{
	return e4_le16(inode->i_gid) | ((uint32_t)e4_le16(inode->l_i_gid_high) << 16);
}

e4_blk_t e4_inode_file_acl(e4_fs *fs, const struct ext4_inode *inode)
{
	e4_blk_t b = e4_le32(inode->i_file_acl_lo);

	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_64BIT))
		b |= (uint64_t)e4_le16(inode->l_i_file_acl_high) << 32;
	return b;
}

void e4_inode_file_acl_set(e4_fs *fs, struct ext4_inode *inode, e4_blk_t blk)
{
	inode->i_file_acl_lo = e4_cpu_to_le32((uint32_t)blk);
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_64BIT))
		inode->l_i_file_acl_high = e4_cpu_to_le16((uint16_t)(blk >> 32));
}

int e4_inode_has_field(e4_fs *fs, const struct ext4_inode *inode, size_t off, size_t len)
{
	size_t end = off + len;

	if (end <= EXT4_GOOD_OLD_INODE_SIZE)
		return 1;
	if (fs->geom.inode_size <= EXT4_GOOD_OLD_INODE_SIZE)
		return 0;
	return end <= EXT4_GOOD_OLD_INODE_SIZE + (size_t)e4_le16(inode->i_extra_isize) &&
	       end <= fs->geom.inode_size;
}

int64_t e4_time_decode(uint32_t base, uint32_t extra, int has_extra, uint32_t *nsec)
{
	int64_t sec = (int32_t)base;

	if (nsec)
		*nsec = has_extra ? extra >> 2 : 0;
	if (has_extra)
		sec += (int64_t)(extra & 3) << 32;
	return sec;
}

void e4_time_encode(int64_t sec, uint32_t nsec, uint32_t *base, uint32_t *extra)
{
	*base = (uint32_t)sec;
	*extra = (nsec << 2) | (uint32_t)(((sec - (int32_t)sec) >> 32) & 3);
}

#define FIELD(f) offsetof(struct ext4_inode, f), sizeof(((struct ext4_inode *)0)->f)

int e4_inode_time(e4_fs *fs, const struct ext4_inode *inode, enum e4_time_field f,
		  struct e4_time *t)
{
	uint32_t base, extra = 0;
	int has_extra;

	t->sec = 0;
	t->nsec = 0;
	switch (f) {
	case E4_ATIME:
		base = e4_le32(inode->i_atime);
		has_extra = e4_inode_has_field(fs, inode, FIELD(i_atime_extra));
		if (has_extra)
			extra = e4_le32(inode->i_atime_extra);
		break;
	case E4_CTIME:
		base = e4_le32(inode->i_ctime);
		has_extra = e4_inode_has_field(fs, inode, FIELD(i_ctime_extra));
		if (has_extra)
			extra = e4_le32(inode->i_ctime_extra);
		break;
	case E4_MTIME:
		base = e4_le32(inode->i_mtime);
		has_extra = e4_inode_has_field(fs, inode, FIELD(i_mtime_extra));
		if (has_extra)
			extra = e4_le32(inode->i_mtime_extra);
		break;
	case E4_CRTIME:
		if (!e4_inode_has_field(fs, inode, FIELD(i_crtime)))
			return 0;
		base = e4_le32(inode->i_crtime);
		has_extra = e4_inode_has_field(fs, inode, FIELD(i_crtime_extra));
		if (has_extra)
			extra = e4_le32(inode->i_crtime_extra);
		break;
	case E4_DTIME:
		t->sec = e4_le32(inode->i_dtime);
		return 1;
	default:
		return 0;
	}
	t->sec = e4_time_decode(base, extra, has_extra, &t->nsec);
	return 1;
}

errcode_t e4_inode_check_root(e4_fs *fs)
{
	union e4_inode_buf ib;
	errcode_t err = e4_inode_read(fs, EXT4_ROOT_INO, &ib);

	if (err)
		return err;
	if (e4_le32(ib.inode.i_flags) & EXT4_EA_INODE_FL)
		return E4_ERR_ROOT_EA_INODE;
	if (!e4_le16(ib.inode.i_links_count))
		return E4_ERR_ROOT_UNLINKED;
	if (!e4_is_dir(&ib.inode) || !e4_inode_size(&ib.inode) ||
	    !e4_inode_blocks(fs, &ib.inode))
		return E4_ERR_ROOT_NOT_DIR;
	return 0;
}
