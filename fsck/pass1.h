/*
 * pass1.h: pass 1's state and its subject files (issue 15).
 *
 * pass1.c drives the inode scan and then pass 5; pass1_meta.c builds the
 * maps (filesystem metadata, clusters claimed, claimed twice, xattr block
 * references); pass1_inode.c checks one inode's fields.  All state lives
 * in struct pass1, so the scan can later be split by block group.
 */
#ifndef E4FSCK_PASS1_H
#define E4FSCK_PASS1_H

#include "e4fsck.h"
#include "check_map.h"
#include "dirinfo.h"

/* A range of clusters one inode claimed. */
struct p1_range {
	uint64_t first, len;
};

struct pass1 {
	struct e4fsck *ctx;
	e4_fs *fs;
	const struct e4_geom *geo;

	struct e4_bmap *inuse;		/* clusters in use (e4_bmap_new_blocks()) */
	struct e4_bmap *meta;		/* blocks of filesystem metadata */
	struct e4_bmap *dup;		/* clusters claimed more than once */
	struct e4_bmap *inodes;		/* inodes in use (e4_bmap_new_inodes()) */
	struct e4_bmap *xattr;		/* xattr blocks claimed (blocks) */
	uint32_t *dirs;			/* per group: directories in use */
	/* for passes 2-4 (dirinfo.h): every directory in use, every in-use
	 * inode's stored link count, the regular files in use */
	struct e4fsck_dirs dirinfo;
	struct e4fsck_links *links;
	struct e4_bmap *regs;
	uint8_t *buf;			/* one block (xattr block reads) */
	e4_inode_scan *scan;		/* the scan while it runs */

	/* one entry per inode naming an xattr block (sorted at the end) */
	e4_blk_t *xrefs;
	size_t nxrefs, capxrefs;

	/* the inode being checked: the clusters it claimed, and how many
	 * of them another inode or the metadata holds too */
	e4_ino_t ino;
	struct p1_range *own;
	size_t nown, capown;
	uint64_t ndup;

	/* ea_inode: the EA inodes seen with the count each keeps, and one
	 * entry per reference an xattr entry makes (sorted at the end) */
	struct p1_ea_inode { e4_ino_t ino; uint64_t ref; uint32_t mtime, gen; } *eas;
	size_t neas, capeas;
	struct p1_ea_ref { e4_ino_t ea_ino, owner; uint32_t owner_gen; } *earefs;
	size_t nearefs, capearefs;
	int ea_unsure;			/* some attributes unread: counts not judged */

	unsigned ran;			/* E4FSCK_RAN_PASS* (dirpass.h) */
	int quota_said;
	int scan_failed;		/* an inode table chunk could not be read */
	int maps_unsure;		/* blocks claimed twice, or a map left damaged */
	errcode_t err;			/* an operational error in a callback */
	/* passes 1B-1D (pass1b.h): inodes holding clusters claimed twice,
	 * and their state while they run (freed by a stop) */
	uint64_t dup_inodes;
	struct dup_state *dup_state;
	int dup_restore;		/* 1D marked the fs not clean: clean again
					   after pass 5 */
	/* passes 3 and 4 (pass34.h): lost+found's inode (0: not known),
	 * whether it could not be had (not asked again), the write window */
	e4_ino_t lpf;
	int lpf_failed;
	int writing;			/* the allocation hook is on the maps */
	int window;			/* e4_ops_begin() done (pass34.h) */
	/* pass 3's walk: directories known connected, the walk under way
	 * (freed by a stop, too) */
	struct e4_bmap *p3_done, *p3_path;

	/* -v's counts (pass1_stats.c); the current inode's blocks in map
	 * order, data only [0] and with tree or indirect blocks [1]: where
	 * the last run ended, and whether they make more than one */
	struct p1_stats {
		uint64_t regular, dirs, chrdev, blkdev, fifos, sockets;
		uint64_t symlinks, fast_symlinks, large, badblocks;
		uint64_t frag_files, frag_dirs, ind, dind, tind;
		uint64_t depth[EXT4_MAX_EXTENT_DEPTH + 1];
	} st;
	e4_blk_t data_end[2];
	int data_frag[2];

	/* EA inodes whose kept value hash is to be set after the scan */
	struct p1_ea_hash { e4_ino_t ino; uint32_t stored, hash; } *eahash;
	size_t neahash, capeahash;
	/* tree blocks whose checksum is to be rewritten (pass1_csum.c) */
	struct p1_csum { e4_ino_t ino; uint32_t gen; e4_blk_t blk; } *csums;
	size_t ncsums, capcsums;
};

/* pass1_meta.c */
errcode_t p1_maps_create(struct pass1 *p);
/* Free the maps (and close the scan, if open: a stop inside pass 1). */
void p1_maps_free(struct pass1 *p);
/* Every metadata block into p->meta (blocks) and p->inuse (clusters):
 * superblock, descriptor and reserved GDT copies, bitmaps, inode tables,
 * the MMP block. */
errcode_t p1_mark_metadata(struct pass1 *p);
/* The claim callbacks the map checker calls (priv: struct pass1). */
extern const struct check_map_ops p1_claim_ops;
/* Start inode ino's accounting. */
void p1_inode_begin(struct pass1 *p, e4_ino_t ino);
/* The current inode is cleared: release the clusters it claimed (but
 * those claimed twice) and, with xattr, its last xattr block reference. */
void p1_inode_release(struct pass1 *p, int xattr);
/* Clusters the current inode claimed (each counted once). */
uint64_t p1_inode_clusters(struct pass1 *p);
/* Inode ino names xattr block blk (inside the filesystem, not metadata):
 * the first time the block is claimed (for ino); every time counted.
 * Returns the claim's verdict. */
enum claim_verdict p1_xattr_ref(struct pass1 *p, e4_ino_t ino, e4_blk_t blk);
/* After the scan: each xattr block's h_refcount against the inodes
 * naming it (PR_1_XATTR_REFCOUNT).  0 or an operational error. */
errcode_t p1_xattr_refcounts(struct pass1 *p);

/* Room for one more element in *arr (n used of *cap): 0, or 1 without
 * memory (*arr unchanged). */
int p1_grow(void **arr, size_t *cap, size_t n, size_t elem);

/* pass1_ea.c: note EA inode ino (EXT4_EA_INODE_FL) and the count it
 * keeps; note the reference entry x makes (x->value_inum); after the scan, each
 * count against the references (rows PR_1_EA_INODE_*); free the notes.
 * E4_ERR_NO_MEMORY, errors of e4_inode_read/e4_inode_write. */
errcode_t p1_ea_note_inode(struct pass1 *p, e4_ino_t ino, const struct ext4_inode *in);
errcode_t p1_ea_note_ref(struct pass1 *p, const struct e4_xattr *x);
errcode_t p1_ea_refcounts(struct pass1 *p);
void p1_ea_free(struct pass1 *p);

/* pass1_xattr_hash.c: the entry hashes of inode ino's in-inode
 * attributes (its image *ib, the area sound; *changed: an entry hash
 * rewritten in *ib), and of xattr block blk's entries (inode ino's, image
 * in; rewritten in the block); an EA inode whose kept value hash is wrong is noted.  1 when a
 * problem was said.  p->err on memory or write errors.  p1_ea_hashes()
 * (pass1_ea.c): after the scan, the noted EA inodes' hashes said and set;
 * the notes freed. */
int p1_xattr_hashes_ibody(struct pass1 *p, e4_ino_t ino, union e4_inode_buf *ib, int *changed);
int p1_xattr_hashes_block(struct pass1 *p, e4_ino_t ino, const struct ext4_inode *in,
			  e4_blk_t blk);
errcode_t p1_ea_hashes(struct pass1 *p);

/* pass1_stats.c: count inode ino (in use, checked; image in; has_map: its
 * map was checked, holding nblocks blocks; fast_symlink: its target is in
 * i_block) for -v, and
 * print the counts (after pass 5: the superblock's used counts). */
void p1_stats_inode(struct pass1 *p, e4_ino_t ino, const struct ext4_inode *in, int has_map,
		    uint64_t nblocks, int fast_symlink);
void p1_stats_print(const struct pass1 *p);

/* pass1_inode.c: check inode ino (its image in *ib, csum_ok from the
 * scan), mark it and what it claims; write it back when repaired.  0 or
 * an operational error. */
errcode_t p1_check_inode(struct pass1 *p, e4_ino_t ino, union e4_inode_buf *ib, int csum_ok);
/* Whether inode in holds a map whatever its type says: data blocks by
 * i_blocks (its xattr block aside), or EXTENTS_FL with an extent header
 * holding entries (pass 1's rule for a special inode or an unlinked one
 * it leaves as it is; pass 2 keeps the entries naming them). */
int p1_holds_map(e4_fs *fs, const struct ext4_inode *in);

/* pass1_csum.c: tree blocks failing only their checksum (answered yes).
 * p1_csum_defer() notes one (check_map_ops.defer_csum; priv: struct
 * pass1); p1_csum_forget() drops the current inode's notes in [blk, blk
 * + len) (its claim undone); p1_csum_write(), after the scan, writes
 * those of blocks no other inode claims and keeps the others for pass
 * 1D, whose p1_csum_keepers() writes those keeps() says the noted inode
 * alone holds now.  0, E4_ERR_NO_MEMORY, read and write errors. */
errcode_t p1_csum_defer(void *priv, e4_ino_t ino, uint32_t gen, e4_blk_t blk);
void p1_csum_forget(struct pass1 *p, e4_blk_t blk, uint64_t len);
errcode_t p1_csum_write(struct pass1 *p);
errcode_t p1_csum_keepers(struct pass1 *p, int (*keeps)(void *priv, e4_ino_t ino, e4_blk_t blk),
			  void *priv);

/* pass1.c: pass 1 into p (maps kept for pass 5; p1_maps_free() after). */
errcode_t e4fsck_pass1(struct e4fsck *ctx, struct pass1 *p);

/* pass1b.c: passes 1B-1D over the clusters pass 1 found claimed twice
 * (p->dup): their owners said and named, each shared block cloned for
 * all owners but one when answered yes.  Sets p->maps_unsure when some
 * are left shared.  0, or an operational error (said). */
errcode_t e4fsck_pass1_dup(struct e4fsck *ctx, struct pass1 *p);
/* Free the state of passes 1B-1D (a stop inside them). */
void e4fsck_pass1_dup_free(struct pass1 *p);
/* After pass 5 repaired the maps: the clean state 1D cleared while it
 * cloned is set again (when every shared block was settled).  0, or the
 * superblock write's error (said). */
errcode_t e4fsck_pass1_dup_finish(struct e4fsck *ctx, struct pass1 *p);

#endif
