/*
 * unit_dirs.h: test-only helpers for directory writing tests (unit tests
 * and tests/helpers/dir_drv): a new empty directory inode, link counts.
 * The operations layer (mkdir) will replace these; they exist so tests can
 * make the inodes their entries point to without it.
 */
#ifndef UNIT_DIRS_H
#define UNIT_DIRS_H

#include <string.h>
#include <time.h>
#include "e4.h"

/* Allocate and write a directory inode without blocks (mode 040755,
 * links 2, times now, extra isize as the superblock wants, EXTENTS_FL with
 * the extent feature, i_generation not 0 as the kernel's are, so the
 * checksums' use of it is tested).  The caller gives it blocks (e4_dir_build) and a
 * name in its parent. */
static inline errcode_t udir_new_inode(e4_fs *fs, e4_ino_t parent, e4_ino_t *ino)
{
	union e4_inode_buf ib;
	struct ext4_super_block *sb = e4_super(fs);
	uint32_t now = (uint32_t)time(NULL);
	errcode_t err;

	err = e4_inode_find_free(fs, e4_group_of_ino(fs, parent), ino);
	if (!err)
		err = e4_inode_mark(fs, *ino, 1, 1, NULL);
	if (err)
		return err;
	memset(&ib, 0, sizeof(ib));
	ib.inode.i_mode = e4_cpu_to_le16(040755);
	ib.inode.i_links_count = e4_cpu_to_le16(2);
	ib.inode.i_generation = e4_cpu_to_le32(0x9E3779B9u * *ino);
	ib.inode.i_atime = ib.inode.i_ctime = ib.inode.i_mtime = e4_cpu_to_le32(now);
	if (e4_geom(fs)->inode_size > 128) {
		ib.inode.i_extra_isize = sb->s_want_extra_isize ? sb->s_want_extra_isize
							      : e4_cpu_to_le16(32);
		ib.inode.i_crtime = e4_cpu_to_le32(now);
	}
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EXTENTS))
		ib.inode.i_flags = e4_cpu_to_le32(EXT4_EXTENTS_FL);
	return e4_inode_write(fs, *ino, &ib);
}

/* Zero inode ino and mark it free (undo udir_new_inode). */
static inline errcode_t udir_free_inode(e4_fs *fs, e4_ino_t ino)
{
	union e4_inode_buf ib;
	errcode_t err;

	memset(&ib, 0, sizeof(ib));
	err = e4_inode_write(fs, ino, &ib);
	return err ? err : e4_inode_mark(fs, ino, 0, 1, NULL);
}

/* Add delta to inode ino's link count. */
static inline errcode_t udir_links_add(e4_fs *fs, e4_ino_t ino, int delta)
{
	union e4_inode_buf ib;
	errcode_t err = e4_inode_read(fs, ino, &ib);

	if (err)
		return err;
	ib.inode.i_links_count = e4_cpu_to_le16((uint16_t)(e4_le16(ib.inode.i_links_count) + delta));
	return e4_inode_write(fs, ino, &ib);
}

/* Set inode ino's link count. */
static inline errcode_t udir_links_set(e4_fs *fs, e4_ino_t ino, unsigned links)
{
	union e4_inode_buf ib;
	errcode_t err = e4_inode_read(fs, ino, &ib);

	if (err)
		return err;
	ib.inode.i_links_count = e4_cpu_to_le16((uint16_t)links);
	return e4_inode_write(fs, ino, &ib);
}

/* A new directory name in parent, built from ents[0..n) in one pass
 * (e4_dir_build); parent gains a link. */
static inline errcode_t udir_mkdir_build(e4_fs *fs, e4_ino_t parent, const char *name,
					 const struct e4_new_dirent *ents, size_t n,
					 unsigned flags, unsigned slack, e4_ino_t *ino)
{
	errcode_t err = udir_new_inode(fs, parent, ino);

	if (!err)
		err = e4_dir_build(fs, *ino, parent, ents, n, flags, slack);
	if (!err)
		err = e4_dir_insert(fs, parent, name, strlen(name), *ino, EXT4_FT_DIR);
	if (!err)
		err = udir_links_add(fs, parent, 1);
	return err;
}

#endif
