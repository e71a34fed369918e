/*
 * xattr_write.h: writing extended attributes (xattr_write.c; format doc
 * section 9), included by e4.h after the types it uses.  The reader is in
 * e4.h ("extended attributes").
 *
 * An attribute is a name index (EXT4_XATTR_INDEX_*: 1 "user.", 4
 * "trusted.", 6 "security.", 7 "system.", ...), a name suffix of up to
 * 255 bytes (no NUL; empty only for the indexes whose prefix is a whole
 * name, the POSIX ACLs and richacl) and a value of up to 65536 bytes.
 * Values are stored as given (an ACL must already be in ext4's compact
 * encoding).  The kernel's placement rules (fs/ext4/xattr.c, Linux 6.x):
 *  - set: a value whose padded size exceeds block size - 56 goes to an EA
 *    inode at once when the filesystem has ea_inode; otherwise the inode
 *    body is tried first (after i_extra_isize, behind the magic
 *    0xEA020000; an inode with i_extra_isize 0 gets 32, as the kernel
 *    does), then the xattr block; with ea_inode a value that fits neither
 *    goes to an EA inode, and a block value must leave the lowest value
 *    offset at least min(block size / 8, 1024).  An attribute that moves
 *    from the inode to the block or back is removed from where it was.
 *    Setting the value an attribute already has (not in an EA inode)
 *    changes nothing.  system.data (inline data) lives in the inode body
 *    only.
 *  - in the block, entries are sorted by (name index, name length, name
 *    bytes); in the inode they keep their order, new ones last.  Values
 *    are padded to 4 bytes and packed from the end of the area.  e_hash:
 *    over the name and the value's words for block entries, over the name
 *    and the EA inode's value hash for values in EA inodes (also in the
 *    inode body), 0 for other in-inode entries; h_hash folds the entry
 *    hashes; h_checksum with metadata_csum.
 *  - a block shared by several inodes (h_refcount > 1, at most 1024) is
 *    never changed for one of them: the inode gets a copy (a new block
 *    near its group's start) and the old block's refcount drops.  An
 *    emptied block is freed at refcount 1, else its refcount drops.  A
 *    new block may instead be shared with an identical block the caller
 *    names (the kernel finds one through its cache; we have none).
 *  - an EA inode is a new regular inode (mode 0600, the owner's uid and
 *    gid, EXT4_EA_INODE_FL, extents when the filesystem has them) holding
 *    the value as its data; its i_atime holds crc32c(checksum seed,
 *    value), its i_ctime (high 32 bits) and l_i_version (low 32 bits) the
 *    number of inode bodies and xattr blocks naming it (a shared block
 *    counts once, as e2fsck counts).  At 0 it is freed.
 *  - i_file_acl follows the block; i_blocks counts the block as one
 *    cluster (bigalloc: a whole cluster) in 512-byte units, huge_file
 *    rules applied.  The ext_attr feature is set when missing.
 * Writes: new EA inodes and blocks first, then the owner inode, then old
 * blocks and EA inodes released, through the block cache; block and inode
 * usage changes are in memory until the caller's e4_alloc_flush().  The
 * owner's times are not touched.  On an error nothing has been written
 * (allocation is undone) unless the error is a write error.
 */
#ifndef E4_XATTR_WRITE_H
#define E4_XATTR_WRITE_H

/* Options for the calls below (NULL: now = time(NULL), no sharing). */
struct e4_xattr_opts {
	int64_t now;		/* seconds: a new EA inode's mtime and crtime,
				   a freed one's dtime */
	e4_blk_t share_blk;	/* 0, or an xattr block to take (refcount + 1)
				   when the inode's new block would hold the
				   same attributes */
};

/* The largest value (bytes), as the kernel's XATTR_SIZE_MAX. */
#define E4_XATTR_VALUE_MAX	65536

/* The kernel's entry hash (section 9.2): each name byte (unsigned, or
 * signed with signed_chars as kernels before 6.2 hashed on x86), then
 * each little-endian 32-bit word of the value, zero-padded to 4 bytes.
 * For a value in an EA inode the value is that inode's hash as one le32
 * word.  Result in CPU order. */
uint32_t e4_xattr_hash_entry(const char *name, size_t name_len, const void *value,
			     size_t value_len, int signed_chars);
/* The block hash (section 9.2) of an xattr block of block_size bytes:
 * the entries' e_hash folded, 0 if one of them is 0.  CPU order. */
uint32_t e4_xattr_block_hash(const void *block, size_t block_size);

/* Split a full name ("user.foo", "system.posix_acl_access") into its name
 * index and suffix (*suffix points into fullname; longest prefix wins).
 * E4_ERR_XATTR_NAME: no known prefix, a suffix longer than 255 bytes, or
 * an empty one after a prefix ending in '.'. */
errcode_t e4_xattr_name_parse(const char *fullname, uint8_t *name_index, const char **suffix,
			      size_t *suffix_len);

/* Set attribute (name_index, name[0..name_len)) of inode ino to
 * value[0..value_len) (bytes, stored as given; value may be NULL when
 * value_len is 0) following the kernel's rules above.  *ib is ino's inode
 * image (read by the caller); it is updated and written (checksum set);
 * the caller flushes (e4_alloc_flush()).  E4_ERR_READ_ONLY,
 * E4_ERR_XATTR_NAME, E4_ERR_XATTR_TOO_BIG (more than E4_XATTR_VALUE_MAX),
 * E4_ERR_INVALID_ARGUMENT (value NULL with a length),
 * E4_ERR_XATTR_NO_ROOM (fits neither the inode nor the block and no
 * ea_inode, the kernel's ENOSPC), E4_ERR_NO_SPACE (no free block or
 * inode), the reader's
 * errors on a damaged area (nothing is changed then), E4_ERR_EA_INODE_BAD
 * (an entry names an inode without EXT4_EA_INODE_FL), E4_ERR_FILE_TOO_BIG
 * (i_blocks), read and write errors. */
errcode_t e4_xattr_set(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, uint8_t name_index,
		       const char *name, size_t name_len, const void *value, size_t value_len,
		       const struct e4_xattr_opts *opts);
/* Remove the attribute (from the inode body, else the block), as
 * e4_xattr_set().  E4_ERR_XATTR_NOT_FOUND when the inode has no such
 * attribute (nothing written). */
errcode_t e4_xattr_remove(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, uint8_t name_index,
			  const char *name, size_t name_len, const struct e4_xattr_opts *opts);
/* Drop every attribute of inode ino (an inode being freed): the in-inode
 * area cleared, the block reference released (freed at the last one,
 * i_file_acl 0, i_blocks lowered), EA inode references dropped; *ib
 * written.  An inode with none (nothing in the body, no block) is left
 * as it is, nothing written.  Errors as e4_xattr_set(). */
errcode_t e4_xattr_remove_all(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib,
			      const struct e4_xattr_opts *opts);
/* Make inode ino use xattr block blk (another inode's) as the kernel
 * shares identical blocks: blk's h_refcount + 1 (checksum updated), the
 * inode's previous block released as in e4_xattr_remove_all(), i_file_acl
 * and i_blocks set, *ib written.  The inode's block attributes become
 * blk's.  E4_ERR_XATTR_SHARE (refcount already 1024, or a name of blk
 * also in the inode body), the reader's errors on blk, errors as
 * e4_xattr_set(). */
errcode_t e4_xattr_block_share(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, e4_blk_t blk,
			       const struct e4_xattr_opts *opts);

/* The in-inode extended attribute area of inode (inode_size bytes) as the
 * reader judges it, with no I/O and no value read from an EA inode: 0
 * (also for an inode without an area), E4_ERR_XATTR_CORRUPT (an entry or
 * value outside the area, no terminator, an EA inode entry the kernel
 * refuses), E4_ERR_NO_MEMORY. */
errcode_t e4_xattr_ibody_check(e4_fs *fs, const struct ext4_inode *inode);
/* Empty the in-inode area of ib (zeroed after i_extra_isize, magic
 * included): e4fsck's repair of an area the reader refuses.  No I/O. */
void e4_xattr_ibody_clear(e4_fs *fs, union e4_inode_buf *ib);
/* The reference count (h_refcount, CPU order) of xattr block blk as
 * stored: the block read and its magic checked, nothing else (e4fsck
 * compares it with the inodes naming the block).  E4_ERR_BAD_BLOCK_NUM,
 * E4_ERR_XATTR_MAGIC, E4_ERR_NO_MEMORY, read errors. */
errcode_t e4_xattr_block_refcount(e4_fs *fs, e4_blk_t blk, uint32_t *refcount);
/* Set it, the block's checksum rewritten (metadata_csum), written
 * through the block cache: also the repair of a block whose checksum
 * alone is wrong.  E4_ERR_READ_ONLY and the errors above, write errors. */
errcode_t e4_xattr_block_refcount_set(e4_fs *fs, e4_blk_t blk, uint32_t refcount);
/* Rewrite the entry hash of attribute x (as e4_xattr_iterate() reported
 * it: x->e_offs) to hash (CPU order; e4_xattr_hashes()): in the inode
 * image ib when x->in_inode (no I/O; the caller writes ib), else in xattr
 * block blk (read; e_hash, then h_hash as the block hash of section 9.2,
 * and the checksum set; written through the cache).  e4fsck's repair of
 * a wrong e_hash: the value is kept.  E4_ERR_XATTR_CORRUPT (no entry at
 * x->e_offs), E4_ERR_READ_ONLY and the errors of
 * e4_xattr_block_refcount(), write errors. */
errcode_t e4_xattr_entry_hash_set(e4_fs *fs, union e4_inode_buf *ib, e4_blk_t blk,
				  const struct e4_xattr *x, uint32_t hash);
/* Set the value hash an EA inode keeps (i_atime, i_atime_extra 0 where
 * the inode has it), as the kernel stores it.  No I/O. */
void e4_ea_inode_hash_set(e4_fs *fs, struct ext4_inode *inode, uint32_t hash);

/* Set (value != NULL) or remove (value NULL) an attribute in the inode
 * body of the image ib only: no I/O, no block, no EA inode (the inline
 * data writer's system.data).  The value is stored in place; nothing else
 * in ib but the in-inode area (and an i_extra_isize of 0) changes; the
 * caller writes ib.  E4_ERR_NO_SPACE (does not fit, or no in-inode space),
 * E4_ERR_XATTR_NOT_FOUND (removing a missing name), E4_ERR_XATTR_NAME,
 * E4_ERR_XATTR_TOO_BIG, E4_ERR_INVALID_ARGUMENT (the attribute's value is
 * in an EA inode: e4_xattr_set() keeps its count), the reader's errors on
 * a damaged area. */
errcode_t e4_xattr_ibody_set(e4_fs *fs, union e4_inode_buf *ib, uint8_t name_index,
			     const char *name, size_t name_len, const void *value,
			     size_t value_len);

/* A POSIX ACL value (system.posix_acl_access / _default) in the form
 * Linux passes through the xattr calls (version 2, 8-byte entries) made
 * into ext4's on-disk form (version 1, entries without an id for the
 * owner, group, mask and other), which e4_xattr_set() stores as given
 * (xattr_acl.c; format doc section 9.5).  *out is malloc'd.
 * E4_ERR_INVALID_ARGUMENT (not a version 2 ACL, an unknown tag),
 * E4_ERR_NO_MEMORY. */
errcode_t e4_acl_to_disk(const void *value, size_t len, void **out, size_t *out_len);

#endif
