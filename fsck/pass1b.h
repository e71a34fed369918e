/*
 * pass1b.h: passes 1B-1D (issue 16): the blocks pass 1 found claimed by
 * more than one inode (its dup map), their owners, the owners' names,
 * and the clones that give each owner but one its own copy.
 *
 * pass1b.c: 1B rescans the inodes in use and records, for each inode
 * holding a cluster of the dup map, the blocks it holds there (memory
 * only for those inodes); 1C names them from the directories.
 * pass1d.c: 1D lists each such inode's co-owners and clones its shared
 * blocks (copies, then remaps; the original blocks stay with the last
 * owner, as e2fsck leaves them).
 */
#ifndef E4FSCK_PASS1B_H
#define E4FSCK_PASS1B_H

#include "pass1.h"

/* One block an inode holds in a cluster claimed more than once. */
struct dup_claim {
	e4_blk_t blk;
	uint64_t lblk;		/* logical block (data), else 0 */
	e4_ino_t ino;
	uint8_t kind;		/* DUP_DATA, DUP_MAPBLK, DUP_XATTR */
	uint8_t unwritten;
	uint8_t copy;		/* pass 1D: this claim gets a copy */
};
#define DUP_DATA	0
#define DUP_MAPBLK	1	/* an extent tree node or indirect block */
#define DUP_XATTR	2

/* One inode holding such blocks. */
struct dup_inode {
	e4_ino_t ino;
	uint32_t mtime;
	char *name;		/* path (pass 1C), NULL: not found */
	size_t first, n;	/* its claims: claims[first .. first + n) */
	uint64_t nblocks;	/* blocks it holds in shared clusters */
	int cloned;
};

/* A cluster and one inode claiming it (sorted by cluster, then inode). */
struct dup_owner {
	uint64_t cluster;
	e4_ino_t ino;
};

struct dup_state {
	struct pass1 *p;
	struct e4fsck *ctx;
	e4_fs *fs;
	struct dup_claim *claims;
	size_t nclaims, capclaims;
	struct dup_inode *inodes;	/* ascending inode numbers */
	size_t ninodes, capinodes;
	struct dup_owner *owners;
	size_t nowners, capowners;
	uint32_t *left;			/* per owners[] run: claims (bigalloc: owners)
					   still on it */
	uint8_t *mark;			/* per owners[] entry: 1D's scratch */
	int clone_ok;			/* maps complete: cloning may allocate */
	const char *clone_why;		/* why not, when not */
	int state_saved;		/* the fs was marked not clean by 1D */
	uint16_t old_state;
	uint64_t unresolved;		/* inodes left sharing */
	errcode_t err;
};

/* pass1b.c: 1B and 1C into st; dup_free() frees. */
errcode_t dup_pass1b(struct dup_state *st);
errcode_t dup_pass1c(struct dup_state *st);
void dup_free(struct dup_state *st);
/* The dup_inode of ino, or NULL. */
struct dup_inode *dup_find(struct dup_state *st, e4_ino_t ino);
/* pass1d.c: 1D. */
errcode_t dup_pass1d(struct dup_state *st);

#endif
