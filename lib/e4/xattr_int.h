/*
 * xattr_int.h: internals of the xattr writer shared by xattr_area.c (an
 * area's entries as a list: load, sizes, encoding), xattr_ea.c (EA inodes
 * and their reference counts) and xattr_write.c (the operations).  Not
 * installed.
 */
#ifndef E4_XATTR_INT_H
#define E4_XATTR_INT_H

#include "e4_private.h"

#define E4_XATTR_BLOCK_HDR	sizeof(struct ext4_xattr_header)	/* 32 */
#define E4_XATTR_ENTRY_HDR	sizeof(struct ext4_xattr_entry)		/* 16 */
#define E4_XATTR_EXTRA_ISIZE_DEF 32	/* sizeof(struct ext4_inode) - 128 */

/* ---- entry lists (xattr_area.c) -------------------------------------- */
struct e4_xent {
	uint8_t index, name_len;
	char name[256];
	uint32_t value_len;	/* bytes */
	uint32_t inum;		/* EA inode holding the value, 0 in place */
	uint32_t hash;		/* e_hash as stored (CPU order) */
	uint8_t *value;		/* malloc'd copy: in place, or the new EA value */
	int new_ea;		/* the value goes to a new EA inode (commit) */
};

struct e4_xlist {
	struct e4_xent *e;
	unsigned n, cap;
};

void e4_xlist_free(struct e4_xlist *l);
/* Insert *x at pos (x->value now belongs to the list).  E4_ERR_NO_MEMORY. */
errcode_t e4_xlist_insert(struct e4_xlist *l, unsigned pos, const struct e4_xent *x);
void e4_xlist_delete(struct e4_xlist *l, unsigned pos);
/* The kernel's order of block entries: index, name length, name bytes. */
int e4_xent_cmp(uint8_t index, size_t len, const char *name, const struct e4_xent *b);
/* Position of (index, name) in l, or -1. */
int e4_xlist_find(const struct e4_xlist *l, uint8_t index, const char *name, size_t len);
/* Where (index, name) goes in a sorted list. */
unsigned e4_xlist_sorted_pos(const struct e4_xlist *l, uint8_t index, const char *name,
			     size_t len);
void e4_xlist_sort(struct e4_xlist *l);
/* Bytes an entry takes in its area (the value too if in place); a list
 * with its terminator; the padded values of a list. */
size_t e4_xent_cost(const struct e4_xent *x);
size_t e4_xlist_cost(const struct e4_xlist *l);
size_t e4_xlist_values(const struct e4_xlist *l);
/* Same names, places and values (both sorted alike). */
int e4_xlist_equal(const struct e4_xlist *a, const struct e4_xlist *b);
/* What the values in EA inodes that l names cost the owner's i_blocks
 * (512-byte units): each rounded up to whole clusters, as the kernel
 * charges them to the owner's quota and e2fsck counts them. */
uint64_t e4_xlist_ea_charge(e4_fs *fs, const struct e4_xlist *l);
/* The EA inode numbers l names (malloc'd, NULL when none). */
errcode_t e4_xlist_inums(const struct e4_xlist *l, uint32_t **out, unsigned *n);

/* Name and value size checks of the public calls: E4_ERR_XATTR_NAME,
 * E4_ERR_XATTR_TOO_BIG. */
errcode_t e4_xattr_name_check(uint8_t index, size_t name_len, size_t value_len);
/* The entries of the inode body of *inode (no block read) / of xattr
 * block blk (the raw block into buf), through the reader's checks. */
errcode_t e4_xattr_ibody_load(e4_fs *fs, const struct ext4_inode *inode, struct e4_xlist *l);
errcode_t e4_xattr_block_load(e4_fs *fs, e4_blk_t blk, uint8_t *buf, struct e4_xlist *l);
/* Bytes for entries, values and terminator in the inode body of inode
 * (0: none; an i_extra_isize of 0 counts as the kernel's 32). */
size_t e4_xattr_ibody_room(e4_fs *fs, const struct ext4_inode *inode);
/* Rewrite the in-inode area of ib from l (magic 0 when l is empty). */
void e4_xattr_ibody_encode(e4_fs *fs, union e4_inode_buf *ib, const struct e4_xlist *l);
/* A whole xattr block for l (sorted on the way) with refcount refs. */
void e4_xattr_block_encode(e4_fs *fs, uint8_t *buf, struct e4_xlist *l, uint32_t refs);
/* Checksum (metadata_csum) and write xattr block blk from buf. */
errcode_t e4_xattr_block_write(e4_fs *fs, e4_blk_t blk, uint8_t *buf);

/* ---- EA inodes (xattr_ea.c) ------------------------------------------ */
struct e4_xref {
	uint32_t ino;
	int64_t delta;			/* reference count change */
	union e4_inode_buf *ib;		/* its image, read while planning */
};

/* An operation's EA inode work: count changes and at most one new EA
 * inode. */
struct e4_xea {
	e4_fs *fs;
	e4_ino_t owner;
	int64_t now;			/* seconds */
	struct e4_xref *refs;
	unsigned nrefs;
	e4_ino_t ino;			/* the new EA inode (0: none) */
	union e4_inode_buf *ib;
	struct e4_map_extent ext[64];	/* its data */
	unsigned next;
	e4_blk_t meta;			/* its leaf or indirect block (0: none) */
	uint8_t *meta_buf;
};

void e4_xea_free(struct e4_xea *ea);
/* Count delta more references to EA inode ino. */
errcode_t e4_xea_ref_add(struct e4_xea *ea, uint32_t ino, int64_t delta);
/* Allocate the EA inode for x's value (inode near the owner, data near
 * it, reference count 0) and prepare its image; nothing written.  Sets
 * x->inum and x->hash.  Allocation errors (undone). */
errcode_t e4_xea_create(struct e4_xea *ea, const struct ext4_inode *owner, struct e4_xent *x);
/* Give back what e4_xea_create() allocated. */
void e4_xea_undo(struct e4_xea *ea);
/* Write the new EA inode's data and map blocks. */
errcode_t e4_xea_write_data(struct e4_xea *ea, const uint8_t *value, uint32_t len);
/* Read and check every EA inode whose count moves: E4_ERR_EA_INODE_BAD
 * (no EXT4_EA_INODE_FL, or the owner itself), read errors. */
errcode_t e4_xea_refs_prepare(struct e4_xea *ea);
/* Write the count increases (up 1) or decreases (up 0); an EA inode left
 * without references is freed (blocks, inode). */
errcode_t e4_xea_refs_apply(struct e4_xea *ea, int up);

#endif
