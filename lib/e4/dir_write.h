/*
 * dir_write.h: changing directories (dir_write.c, htree_write.c,
 * dir_build.c, dir_inline.c; format doc section 8).  Included by e4.h.
 *
 * Every call works on an open read-write filesystem and leaves its changes
 * in the block cache and the allocation state: the caller writes them with
 * e4_alloc_flush() (bitmaps, descriptors, superblock, then e4_flush()).
 * Directory blocks get their checksum tails (dirent tail, dx tail) with the
 * directory's i_generation; rec_len is encoded for every block size
 * (e4_rec_len_to_disk, section 8.2).  i_size and i_blocks of the directory
 * follow the blocks it gains; its times, link count and the inodes its
 * entries name are the caller's (the operations layer).  A directory block
 * that fails its checks (entries, checksum unless E4_OPEN_IGNORE_CSUM,
 * index layout) is never changed: the call returns the reader's error.
 * With bigalloc a directory's blocks fill its clusters as the kernel fills
 * them, and i_blocks counts whole clusters.  Not supported
 * (E4_ERR_UNSUPPORTED): casefolded or encrypted directories.
 */
#ifndef E4_DIR_WRITE_H
#define E4_DIR_WRITE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Add the entry name (len bytes, 1..255, no '/' or NUL, not "." or "..")
 * naming inode ino with file type file_type (EXT4_FT_*; stored only with
 * the filetype feature) to directory dir, as the kernel places it: in a
 * linear directory the first block whose slack holds it (an unused
 * entry's whole record, or the end of a live entry's record, which is
 * split), else a new block appended (allocated near the directory's last
 * block, mapped through its extent tree or block map); a linear directory
 * of one full block is converted to an indexed one when the filesystem has
 * dir_index (root block with dx_root, the entries moved to a new leaf,
 * which is split).  In an indexed directory the leaf the hash names, split
 * in hash order when full (the upper half moves to a new leaf whose first
 * hash goes into the index, bit 0 set when it continues a run of equal
 * hashes); a full index node is split, a full root pushes the index down
 * one level, up to 2 levels below the root with largedir, else 1.  An
 * inline directory (section 8.6) takes the entry in i_block, else in
 * system.data, else in system.data grown once to what the inode body
 * holds; when it still does not fit, the directory becomes a one-block
 * directory (same entries, system.data removed, EXTENTS_FL with the
 * extent feature) and the entry goes there.  ino is not checked or
 * changed.  A new index is hashed with s_def_hash_version and the
 * signedness s_flags names; when it names none, SIGNED_HASH is set (the
 * superblock goes out with the next e4_alloc_flush()).
 * Errors: E4_ERR_EXISTS (the name is there), E4_ERR_NAME_TOO_LONG,
 * E4_ERR_INLINE_DATA (a damaged inline directory), xattr writer errors,
 * E4_ERR_INVALID_ARGUMENT (bad name, ino 0 or above s_inodes_count),
 * E4_ERR_READ_ONLY, E4_ERR_NOT_DIR, E4_ERR_NO_SPACE (no free block),
 * E4_ERR_DIR_INDEX_FULL (the index is at its deepest and full),
 * E4_ERR_FILE_TOO_BIG (2 GiB directory without largedir),
 * E4_ERR_UNSUPPORTED, E4_ERR_BAD_HASH_VERSION (s_def_hash_version not
 * 0-2 when converting), the reader's errors for a damaged directory
 * (E4_ERR_DIR_CORRUPT, E4_ERR_BAD_REC_LEN, E4_ERR_DIR_CSUM,
 * E4_ERR_DIR_NO_CSUM_TAIL, E4_ERR_HTREE_CORRUPT, E4_ERR_HTREE_CSUM, map
 * errors), allocation and read errors, E4_ERR_NO_MEMORY. */
errcode_t e4_dir_insert(e4_fs *fs, e4_ino_t dir, const char *name, size_t len, e4_ino_t ino,
			uint8_t file_type);

/* Whether name (len bytes) can go into directory dir, checked without
 * writing anything: the directory opens for writing (not casefold or
 * encrypted: E4_ERR_UNSUPPORTED), the name is valid and not there
 * (E4_ERR_EXISTS), and what e4_dir_insert() reads first is sound: an
 * inline directory's data; an indexed one's root, nodes and the leaves
 * the name hashes to; every block of a linear one (reader errors as
 * e4_dir_insert()'s).  The operations call it before they allocate an
 * inode (ops.c), so a directory that would refuse the name costs
 * nothing.  0: the insert may still fail (no space, a full index). */
errcode_t e4_dir_insert_check(e4_fs *fs, e4_ino_t dir, const char *name, size_t len);

/* Remove the entry name (len bytes) from directory dir, as the kernel does:
 * its record is merged into the previous entry of its block, or, first in
 * its block (or part of an inline directory), keeps its rec_len with
 * inode 0; the freed bytes are zeroed.
 * Blocks are never freed, the index is not changed, an inline directory
 * stays inline.  *ino and
 * *file_type (may be NULL) get what the entry named.  "." and ".." are
 * refused (E4_ERR_INVALID_ARGUMENT).  Errors: E4_ERR_NOT_FOUND, the
 * others of e4_dir_insert() that apply. */
errcode_t e4_dir_remove(e4_fs *fs, e4_ino_t dir, const char *name, size_t len, e4_ino_t *ino,
			uint8_t *file_type);

/* Point the existing entry name of dir at ino with file_type (rename over
 * an entry; ".." of a moved directory: name ".." is allowed here, kept in
 * i_block[0] by an inline directory).
 * *old_ino (may be NULL) gets the inode it named.  Errors as
 * e4_dir_remove(). */
errcode_t e4_dir_set_entry(e4_fs *fs, e4_ino_t dir, const char *name, size_t len, e4_ino_t ino,
			   uint8_t file_type, e4_ino_t *old_ino);

/* *room = 1 when an entry of a name of len bytes fits in linear directory
 * dir without a new block (an entry's slack or an empty entry holds it),
 * else 0; an indexed or inline directory: 1 (not judged here).  Errors
 * of e4_inode_read() and e4_dir_iterate(). */
errcode_t e4_dir_has_room(e4_fs *fs, e4_ino_t dir, size_t len, int *room);

#define E4_DIR_BUILD_LINEAR	0x0001	/* never index, even with dir_index */
#define E4_DIR_BUILD_INLINE	0x0002	/* inline (section 8.6) when it fits */
/* Write directory dir from scratch in one pass: "." (dir), ".." (parent)
 * and ents[0..n) (names as e4_dir_insert() takes them, distinct).  The
 * inode (already initialised by the caller as a directory: mode, links;
 * EXTENTS_FL chooses an extent tree over a block map) must map no blocks
 * yet (size 0, an empty map; an xattr block is kept).  With
 * E4_DIR_BUILD_INLINE, on a filesystem with inline_data and inodes larger
 * than 128 bytes, entries that fit i_block make an inline directory as the
 * kernel's mkdir does (parent in i_block[0], the entries, an empty
 * system.data, INLINE_DATA_FL, i_size 60); otherwise, and when everything
 * fits one block, or without dir_index or with
 * E4_DIR_BUILD_LINEAR, the entries fill blocks in the given order;
 * otherwise an indexed directory is built with the superblock's
 * s_def_hash_version: leaves in hash order, each filled to (100 -
 * slack_pct)% of its room (at least one entry; a run of equal hashes
 * continued in the next leaf is marked in the index), then the fewest
 * index levels that hold them (1 below the root, 2 with largedir), the
 * index nodes filled evenly.  Blocks: root, index nodes, leaves, in
 * logical order, allocated as one run near the inode's group when
 * possible.  i_size, i_blocks, INDEX_FL and the map are set and the inode
 * written.  slack_pct: 0..90 (e2fsck -D leaves 20).
 * Errors: E4_ERR_EXISTS (a name twice), E4_ERR_INVALID_ARGUMENT (a bad
 * name or inode, the inode has blocks, slack_pct above 90),
 * E4_ERR_DIR_INDEX_FULL (more leaves than the deepest index holds),
 * E4_ERR_NO_SPACE,
 * E4_ERR_BAD_HASH_VERSION, allocation and write errors,
 * E4_ERR_NO_MEMORY. */
errcode_t e4_dir_build(e4_fs *fs, e4_ino_t dir, e4_ino_t parent, const struct e4_new_dirent *ents,
		       size_t n, unsigned flags, unsigned slack_pct);
/* e4_dir_build() on the inode image ib (initialised as it says), not
 * read from the disk: the inode is written once, after the blocks it
 * names and their bitmap marks (a stop before leaves only a leak; a
 * new inode need not be written first).  ib gets the inode as written.
 * Errors of e4_dir_build(); E4_ERR_INVALID_ARGUMENT for ib NULL. */
errcode_t e4_dir_build_inode(e4_fs *fs, e4_ino_t dir, union e4_inode_buf *ib, e4_ino_t parent,
			     const struct e4_new_dirent *ents, size_t n, unsigned flags,
			     unsigned slack_pct);

/* Set the 12-byte dirent tail of a leaf block of directory dir (section
 * 8.3): reserved fields, rec_len 12, file type 0xDE and the crc32c over
 * block[0 .. bs - 12) seeded with (dir, generation; CPU order).  No-op
 * without metadata_csum. */
void e4_dir_leaf_csum_set(e4_fs *fs, e4_ino_t dir, uint32_t generation, void *block);
/* Set the dx tail checksum of a dx root (count_off 0x20) or node (8) of
 * directory dir (section 8.5): the tail sits after limit entries; its
 * dt_reserved is kept.  No-op without metadata_csum.
 * E4_ERR_DIR_NO_CSUM_TAIL when the block's limit leaves no room for it. */
errcode_t e4_dx_csum_set(e4_fs *fs, e4_ino_t dir, uint32_t generation, void *block,
			 unsigned count_off);

/* Grow directory dir by one block holding no entry (e4debugfs's
 * expand_dir): appended and mapped as e4_dir_insert() appends, written
 * with one unused entry over the leaf and its tail; i_size and i_blocks
 * follow.  An inline directory becomes a one-block directory instead
 * (its entries kept), as e2fsprogs' expand does.  In an indexed directory
 * the block becomes the last leaf of the index: its entry, in the last
 * node, starts above every hash the last leaf holds, so no name moves
 * (e2fsprogs adds a block outside the index, which e2fsck reports); a
 * full last node is split, a full root gains a level (the insert path's
 * rule).  E4_ERR_DIR_INDEX_FULL when the index is full at its largest
 * depth or no hash is left above.
 * Errors of e4_dir_insert() that apply. */
errcode_t e4_dir_expand(e4_fs *fs, e4_ino_t dir);


/* ---- checking and repairing blocks in place (dir_repair.c) ----------
 * For a checker (e4fsck's pass 2): the caller reads a directory block,
 * looks at each record with e4_dirent_raw_at() (e4.h), changes records
 * with these calls and writes the block back (e4_io_write_blk()) after
 * setting its tail (e4_dir_leaf_csum_set(), e4_dx_csum_set()). */

/* Store the header of the record at byte off of a directory block of bs
 * bytes: inode, rec_len (bytes, encoded by e4_rec_len_to_disk(), section
 * 8.2), name_len and file_type; the name bytes are left as they are.
 * E4_ERR_BAD_REC_LEN (nothing stored) when the record would not fit the
 * block, the name not fit the record, or rec_len cannot be encoded. */
errcode_t e4_dirent_put(void *block, unsigned bs, unsigned off, uint32_t inode, unsigned rec_len,
			unsigned name_len, uint8_t file_type);
/* Store len name bytes into the record at byte off (after its 8-byte
 * header; name may overlap the block).  E4_ERR_BAD_REC_LEN past the
 * block or over 255 bytes. */
errcode_t e4_dirent_put_name(void *block, unsigned bs, unsigned off, const char *name,
			     unsigned len);
/* Move len bytes of records from byte from to byte to inside the block
 * (overlap allowed; the bytes left behind are not cleared).
 * E4_ERR_BAD_REC_LEN past the block. */
errcode_t e4_dirent_move(void *block, unsigned bs, unsigned from, unsigned to, unsigned len);
/* The smallest record for a name of name_len bytes: (8 + name_len + 3)
 * rounded down to 4 (section 8.1). */
unsigned e4_dirent_min_len(unsigned name_len);
/* The dirent tail of a leaf block of directory dir (section 8.3), its
 * checksum computed with generation (CPU order), whatever
 * E4_OPEN_IGNORE_CSUM says: 0 (or no metadata_csum),
 * E4_ERR_DIR_NO_CSUM_TAIL (the last 12 bytes are not a tail, or the
 * records followed from the start run over them, as e2fsck decides),
 * E4_ERR_DIR_CSUM (the checksum differs). */
errcode_t e4_dir_leaf_csum_verify(e4_fs *fs, e4_ino_t dir, uint32_t generation,
				  const void *block);
/* The dx tail of a dx root (count_off 0x18 + info_length) or node (8)
 * of directory dir (section 8.5), whatever E4_OPEN_IGNORE_CSUM says: 0
 * (or no metadata_csum), E4_ERR_HTREE_CORRUPT (count above limit, or the
 * limit entries past the block), E4_ERR_DIR_NO_CSUM_TAIL (no room for the
 * tail after limit entries), E4_ERR_HTREE_CSUM (the checksum differs). */
errcode_t e4_dx_csum_verify(e4_fs *fs, e4_ino_t dir, uint32_t generation, const void *block,
			    unsigned count_off);
/* The limit a dx block whose countlimit sits at count_off has on this
 * filesystem (room for the dx tail with metadata_csum; section 8.5). */
unsigned e4_dx_limit_for(e4_fs *fs, unsigned count_off);
/* Store the data of inline directory dir (section 8.6) as buf[0..size)
 * (parent and records as the reader gives them): i_block's 60 bytes and
 * the system.data value, in the image *ib, which is then written
 * (e4_inode_write()).  size must be the data's present size
 * (E4_ERR_INVALID_ARGUMENT otherwise: records are changed in place, never
 * grown).  Errors of e4_inline_data_size(), e4_xattr_ibody_set(),
 * e4_inode_write(). */
errcode_t e4_dir_inline_put(e4_fs *fs, e4_ino_t dir, union e4_inode_buf *ib, const void *buf,
			    size_t size);

#ifdef __cplusplus
}
#endif
#endif /* E4_DIR_WRITE_H */
