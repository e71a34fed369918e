/*
 * pass2.h: pass 2's state and its subject files (issue 16).
 *
 * pass2.c drives the pass: every directory pass 1 found (p->dirinfo), in
 * inode order, block by block (inline directories from the inode);
 * pass2_entry.c checks one block's records ('.' and '..', rec_len,
 * names, inode numbers, file types, the checksum tail) and repairs them
 * in the block; pass2_htree.c checks an indexed directory's index (root,
 * nodes, the hash ranges of its leaves) and clears the index flag of one
 * it cannot use.  Each kept entry is counted (links_inc) and each
 * directory's dotdot and parent recorded for passes 3 and 4 (dirinfo.h).
 */
#ifndef E4FSCK_PASS2_H
#define E4FSCK_PASS2_H

#include "dirpass.h"

/* The hash range of one leaf as the index names it: hashes in
 * [lo, hi), or up to hi itself when the next leaf continues a run of
 * equal hashes (hi's bit 0 set). */
struct p2_range {
	uint32_t lo;
	uint64_t hi;		/* 2^32 for the last leaf */
	int refs;		/* entries of the index naming the block */
	int node;		/* the block is an index node */
};

struct pass2 {
	struct e4fsck *ctx;
	struct pass1 *p;
	e4_fs *fs;
	unsigned bs;
	int filetype, csum, dir_index;
	e4_ino_t first_ino, inodes_count;
	uint32_t seed[4];
	uint8_t *buf;			/* one block */
	uint8_t *dxbufs;		/* 4 blocks: an index root and its nodes */
	uint8_t *tmp;			/* an inline directory's data */
	unsigned *seen;			/* offsets of the block's kept names */
	size_t nseen, capseen;
	/* a stop inside a question frees the above, then what was to be
	 * freed before (pass 1's maps) */
	void (*prev_free)(void *priv);
	void *prev_priv;
	char name[EXT4_NAME_LEN * 4 + 1];	/* printable copy of a name */

	/* the directory being checked */
	e4_ino_t dir;
	union e4_inode_buf ib;
	uint32_t gen;
	uint64_t nblocks;
	unsigned dots;			/* records of block 0 seen (0, 1, 2+) */
	int encrypted;			/* names are ciphertext: any byte may occur */
	int count;			/* count the entries (0: a block read again) */
	/* indexed directories (pass2_htree.c) */
	int indexed;			/* INDEX_FL and the index is used */
	int dx_kept_bad;		/* the index is bad and its flag kept (-n) */
	uint64_t dx_unread;		/* 1 + the block the index check could not
					   read (said once; 0: none) */
	int dx_version;			/* effective hash version */
	int dx_late;			/* a leaf holds a hash outside its range */
	struct p2_range *ranges;	/* per logical block (nblocks), or NULL */
};

/* pass2_entry.c: check block lblk of p->dir (in p->buf, read from
 * physical block pblk): a leaf, or with root its index root's '.' and
 * '..'; repairs are made in the block and written.  0 or an operational
 * error. */
errcode_t p2_check_leaf(struct pass2 *p, uint64_t lblk, e4_blk_t pblk, int root);
/* The records of an inline directory's region buf[start, end): checked,
 * repaired in buf, counted; *changed set when buf changed.  0 or
 * E4_ERR_NO_MEMORY. */
errcode_t p2_check_region(struct pass2 *p, uint8_t *buf, unsigned start, unsigned end,
			  int *changed);
/* Count one entry naming ino (links_inc): 0 or E4_ERR_NO_MEMORY. */
errcode_t p2_count(struct pass2 *p, e4_ino_t ino);
/* A printable copy of a name (p->name). */
const char *p2_name(struct pass2 *p, const char *name, unsigned len);

/* pass2_htree.c: an indexed directory's index, read before its blocks:
 * the root and nodes checked, each leaf's hash range noted in
 * p->ranges; a bad index is said and its flag cleared on a yes
 * (p->indexed 0 afterwards).  0 or an operational error. */
errcode_t p2_check_index(struct pass2 *p);
/* A leaf entry's name against its block's range (p->dx_late on a miss). */
void p2_check_hash(struct pass2 *p, uint64_t lblk, const char *name, unsigned len);
/* After the blocks: a leaf held a hash outside its range: said, and the
 * index cleared on a yes (its blocks then checked again as leaves). */
errcode_t p2_index_done(struct pass2 *p);
/* Clear INDEX_FL of p->dir (the inode written).  0 or a write error. */
errcode_t p2_clear_index(struct pass2 *p);
/* Read logical block lblk of p->dir into p->buf (*pblk: where).  0,
 * E4_ERR_DIR_CORRUPT (a hole), map or read errors. */
errcode_t p2_read(struct pass2 *p, uint64_t lblk, e4_blk_t *pblk);

#endif
