/*
 * e4_private.h: libe4 internals shared between the library's modules.
 * Not installed; tools include only e4.h.
 */
#ifndef E4_PRIVATE_H
#define E4_PRIVATE_H

#include "e4.h"

struct e4_fs {
	e4_io *io;
	char *device_name;
	int flags;				/* E4_OPEN_* */
	struct ext4_super_block *sb;		/* EXT4_SUPERBLOCK_SIZE bytes, on-disk order */
	struct e4_geom geom;
	e4_blk_t sb_block;			/* 0 primary, else backup block used */
	uint8_t *gdt;				/* group_count * desc_size bytes */
	uint32_t csum_seed;
	uint32_t hash_seed[4];			/* CPU order */
	uint8_t **block_bitmaps;		/* lazily loaded, per group */
	uint8_t **inode_bitmaps;
};

/* Helpers used by several modules. */
static inline int e4_ignore_csum(e4_fs *fs)
{
	return (fs->flags & E4_OPEN_IGNORE_CSUM) != 0;
}

/* Read one metadata block through the cache, checking the range. */
errcode_t e4_read_block(e4_fs *fs, e4_blk_t blk, void *buf);

/* Whole blocks of the filesystem occupied by group g's metadata copies of
 * the superblock/GDT (group.c). */
int e4_group_is_sparse_backup(uint32_t g);

#endif
