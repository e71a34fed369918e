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
	/* alloc.c: what changed since the last e4_alloc_flush() (lazily
	 * allocated, group_count entries; bit 0 block bitmap, bit 1 inode
	 * bitmap, bit 2 descriptor) */
	uint8_t *alloc_dirty;
	int sb_dirty;
	/* alloc.c: only the superblock's free counts changed (inside an
	 * e4_ops_begin() window written by its end, not at each ordering
	 * point) */
	int sb_counts_dirty;
	/* e4_gdt_load_copy(): the descriptors in memory are the copy kept
	 * with group gdt_copy's superblock backup (0: the table the open
	 * read); bitmaps and descriptors are then never written */
	e4_group_t gdt_copy;
	/* E4_OPEN_FIX_GEOMETRY: what e4_super_fix_geometry() changed */
	struct e4_sb_fix sb_fixes[E4_SB_MAX_FIXES];
	unsigned sb_nfixes;
	int io_borrowed;			/* e4_open_io(): e4_close() leaves io open */
	/* e4_alloc_set_maps(): the caller's block and inode maps (alloc_policy.c) */
	struct e4_bmap *alloc_maps[2];
	/* e4_super_hold(): the primary superblock is not written (super.c) */
	int sb_hold;
	/* ops.c: e4_ops_begin() nesting, the superblock state to put back
	 * at the outermost e4_ops_end(), and whether an operation inside
	 * failed leaving the filesystem not clean */
	int ops_depth, ops_failed;
	uint16_t ops_state;
	/* e4_fs_clock_set(): the time the operations use (set: nonzero) */
	struct e4_time clock;
	int clock_set;
};

/* Helpers used by several modules. */
static inline int e4_ignore_csum(e4_fs *fs)
{
	return (fs->flags & E4_OPEN_IGNORE_CSUM) != 0;
}

/* Fill fs->geom from fs->sb (already validated by e4_super_validate();
 * revision 0 gets the fixed first inode and inode size) (super.c). */
void e4_geom_from_sb(e4_fs *fs);

/* Read one metadata block through the cache, checking the range. */
errcode_t e4_read_block(e4_fs *fs, e4_blk_t blk, void *buf);
/* probe.c: for a descriptor of a loop device, the file it is bound to
 * opened read-only (checked against LOOP_GET_STATUS64's lo_device and
 * lo_inode), or -1 (not a loop device, or its file out of reach). */
int e4_loop_backing_open(int fd);

/* Write the primary descriptor table only: the classic GDT after the
 * primary superblock, and with meta_bg each later descriptor block in the
 * first group of its meta group (write.c; section 4.5).  Uncached.
 * E4_ERR_GD_BAD_LOCATION, write errors. */
errcode_t e4_gdt_write_primary(e4_fs *fs);
/* The primary table's descriptor blocks i with which[i] set (all when
 * which is NULL): what changed, not the whole table at each ordering
 * point.  Errors as e4_gdt_write_primary(). */
errcode_t e4_gdt_write_primary_blocks(e4_fs *fs, const uint8_t *which);
/* With meta_bg: where group g keeps its copy of its meta group's
 * descriptor block (its first block, after a superblock copy; group 0 of
 * a 1 KiB-block filesystem from block 1).  group.c; section 4.5. */
e4_blk_t e4_group_meta_desc_block(e4_fs *fs, e4_group_t g);

/* Group g's block (inode != 0: inode) bitmap, read once and cached in
 * fs->block_bitmaps / fs->inode_bitmaps (bitmap.c).  Bitmap read errors. */
errcode_t e4_bitmap_cached(e4_fs *fs, e4_group_t g, int inode, uint8_t **map);
/* e4_bitmap_cached(), but a bitmap failing its checksum is cached as it
 * reads (for marks in use that must reach it; bitmap.c). */
errcode_t e4_bitmap_cached_relaxed(e4_fs *fs, e4_group_t g, int inode, uint8_t **map);

/* s_free_blocks_count (and its high half with 64bit) = blocks; marks the
 * superblock dirty (alloc.c; section 2). */
void e4_sb_free_blocks_set(e4_fs *fs, uint64_t blocks);
/* e4_alloc_flush() with gdt_changed: the caller changed descriptors
 * itself, so the descriptor table is written (every copy) in any case. */
errcode_t e4_alloc_flush_gdt(e4_fs *fs, int gdt_changed);

/* Whole blocks of the filesystem occupied by group g's metadata copies of
 * the superblock/GDT (group.c). */
int e4_group_is_sparse_backup(uint32_t g);

/* Block mapping back ends (extent.c, blockmap.c), dispatched by map.c.
 * lookup: the run holding lblk; mapped: *pblk != 0 and *len blocks from
 * lblk alike; hole: *pblk = 0 and *len a lower bound on the hole
 * (UINT64_MAX: nothing mapped after lblk).  E4_ERR_FILE_TOO_BIG if lblk
 * is beyond what the map can address. */
errcode_t e4_extent_lookup(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			   uint64_t lblk, e4_blk_t *pblk, uint64_t *len, unsigned *flags);
errcode_t e4_extent_walk(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			 unsigned flags, e4_map_cb cb, void *priv);
errcode_t e4_blockmap_lookup(e4_fs *fs, const struct ext4_inode *inode, uint64_t lblk,
			     e4_blk_t *pblk, uint64_t *len, unsigned *flags);
errcode_t e4_blockmap_walk(e4_fs *fs, const struct ext4_inode *inode, unsigned flags,
			   e4_map_cb cb, void *priv);
/* The walks' rule for damage: under E4_ITER_AS_STORED keep the first
 * error in *first and go on (1); otherwise stop (0). */
static inline int e4_iter_pass_over(unsigned flags, errcode_t *first, errcode_t err)
{
	if (!(flags & E4_ITER_AS_STORED))
		return 0;
	if (!*first)
		*first = err;
	return 1;
}

/* Directory, htree and xattr internals (dir.c, htree.c, xattr.c). */
/* Map and read logical block lblk of a directory (one fs block into buf;
 * an unwritten block as stored, as the kernel reads it).  A hole:
 * E4_ERR_DIR_CORRUPT. */
errcode_t e4_dir_read_lblk(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			   uint64_t lblk, void *buf);
#define E4_DX_LEAF	0	/* an ordinary entry block */
#define E4_DX_ROOT	1	/* dx root: ".", "..", dx_root_info, entries */
#define E4_DX_NODE	2	/* dx interior node: fake empty entry, entries */
/* Classify a directory block by its layout (section 8.5). */
int e4_dx_block_kind(e4_fs *fs, const void *block, uint64_t lblk);
/* Check a dx root/node's tail checksum (kind from e4_dx_block_kind).
 * E4_ERR_HTREE_CSUM, E4_ERR_DIR_NO_CSUM_TAIL, E4_ERR_HTREE_CORRUPT. */
errcode_t e4_dx_block_verify(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			     const void *block, int kind);
/* Leaf blocks that may hold name in an indexed directory, in search order
 * (the hash's leaf, then collision continuations); *lblks is malloc'd.
 * E4_ERR_HTREE_CORRUPT, E4_ERR_HTREE_CSUM, E4_ERR_BAD_HASH_VERSION. */
errcode_t e4_dx_lookup_leaves(e4_fs *fs, e4_ino_t dir, const struct ext4_inode *inode,
			      const char *name, size_t len, uint64_t **lblks, size_t *count);
/* Find in-inode xattr (name_index, name); *value points into inode.
 * E4_ERR_XATTR_NOT_FOUND, E4_ERR_XATTR_CORRUPT. */
errcode_t e4_xattr_ibody_find(e4_fs *fs, const struct ext4_inode *inode, uint8_t name_index,
			      const char *name, size_t name_len, const void **value,
			      uint32_t *value_len);


#endif
