/*
 * extent_model.h: a model of one extent-mapped file and a tree validator,
 * shared by tests/unit/test_extent_write.c and tests/helpers/extent_drv.c.
 *
 * The model is a plain array: logical block -> physical block (0: hole)
 * and an unwritten flag.  Random operations (write: punch, allocate, map;
 * punch; convert between unwritten and written; truncate) change the tree
 * through libe4 (extent.h) and the model directly; xm_validate() then
 * parses the tree itself, from the raw blocks, and compares: header magic,
 * eh_max (4 in the root, the expected node size in blocks), eh_entries <=
 * eh_max, depths, non-empty non-root nodes, tail checksums, index keys
 * equal to their child's first key, ordering and no overlap, extent length
 * limits, every block as the model says, i_blocks = (mapped blocks + tree
 * blocks) in 512-byte units, every tree and data block marked in use, and
 * the superblock's free count lowered by exactly that many blocks (nothing
 * leaked, nothing freed twice).
 */
#ifndef EXTENT_MODEL_H
#define EXTENT_MODEL_H

#include <stdio.h>
#include "e4.h"

struct xm {
	e4_fs *fs;
	e4_ino_t ino;
	union e4_inode_buf ib;
	e4_extent_handle *h;
	uint64_t nlblk;		/* the model covers logical blocks [0, nlblk) */
	e4_blk_t *map;		/* physical block, 0: hole */
	uint8_t *unw;		/* 1: unwritten */
	uint64_t mapped;	/* blocks mapped */
	uint64_t free0;		/* free blocks when the model started (empty file) */
	unsigned node_max;	/* eh_max expected in tree blocks */
	int write_data;		/* fill each new data block with its pattern */
	int strict_merge;	/* no two neighbours may be mergeable */
	int fragment;		/* short writes and punches only: many extents */
	uint64_t rng;
	unsigned max_depth;	/* deepest tree seen */
	uint64_t nodes;		/* tree blocks at the last validation */
	uint64_t extents;	/* extents at the last validation */
	char err[256];		/* what the validator (or an op) found */
};

/* Start on inode ino (read; given an empty extent root if it has no
 * extents) with an empty file; node_max 0: the block's capacity.  0 or an
 * error (m->err says where). */
errcode_t xm_init(struct xm *m, e4_fs *fs, e4_ino_t ino, uint64_t nlblk, unsigned node_max,
		  uint64_t seed, int write_data);
void xm_free(struct xm *m);
uint64_t xm_rand(struct xm *m);
/* One random map-level operation (write, punch, convert, truncate). */
errcode_t xm_random_op(struct xm *m);
/* Operations, each on tree and model. */
errcode_t xm_write(struct xm *m, uint64_t lblk, uint64_t n, e4_blk_t goal, unsigned flags);
errcode_t xm_punch(struct xm *m, uint64_t lblk, uint64_t n);
/* 0 if the tree is valid and equal to the model; else 1 and m->err. */
int xm_validate(struct xm *m);
/* i_size = nlblk blocks, write the inode, flush the bitmaps and the cache. */
errcode_t xm_finish(struct xm *m);
/* The bytes a reader of the file gets (nlblk blocks), to out. */
int xm_expected(struct xm *m, FILE *out);
/* The content of data block p (block_size bytes into buf). */
void xm_pattern(e4_blk_t p, void *buf, unsigned bs);

#endif
