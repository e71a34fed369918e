/*
 * layout_int.h: what the parts of e4_layout_compute() share (layout.c,
 * layout_profile.c, layout_params.c, layout_geom.c, layout_alloc.c,
 * layout_files.c); not installed.  The computation and its sources are
 * described in layout.c.
 */
#ifndef E4_LAYOUT_INT_H
#define E4_LAYOUT_INT_H

#include "e4_private.h"

#define MAX_32		0xFFFFFFFFULL
#define LAYOUT_EXT_MAX_LEN 32768U
#define NONE		UINT64_MAX

static inline unsigned ilog2(uint64_t v)
{
	unsigned r = 0;

	while (v > 1) {
		v >>= 1;
		r++;
	}
	return r;
}

static inline int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static inline uint64_t div_ceil(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

/* ---- the parameters mke2fs's option parsing settles (layout_params.c) -- */
struct params {
	uint64_t blocks;		/* fs_blocks_count */
	unsigned log_bs, log_cs;
	uint32_t feat[3];
	uint32_t bpg_param, cpg_param;
	uint32_t rsv_gdt_param;
	uint32_t inodes_param;
	uint64_t r_blocks;
	unsigned inode_size;		/* 0: 128 */
	unsigned log_flex;
	unsigned desc_size;
	uint32_t backup_param[2];
	int journal;			/* a journal is wanted */
	int64_t journal_req;		/* > 0: requested size */
	double reserved_ratio;
	int packed;
};

/* 1 if the profile has [section] sub = { ... } (layout_profile.c). */
int e4_lay_prof_has_sub(const struct e4_profile *p, const char *section, const char *sub);
/* Settle every parameter from the options, the profile pr and the size
 * class, as mke2fs's option parsing does.  E4_ERR_* as e4_layout_compute(). */
errcode_t e4_lay_settle_params(const struct e4_layout_opts *o, struct e4_layout *l,
			       struct params *p, const struct e4_profile *pr);

/* ---- geometry (layout_geom.c) ------------------------------------------ */
/* 1 if group g of l holds a superblock copy (sparse_super, sparse_super2). */
int e4_lay_bg_has_super(const struct e4_layout *l, uint32_t g);
/* The group geometry, as the reference first sets it up (with its retries). */
errcode_t e4_lay_geometry(struct e4_layout *l, struct params *p);

/* ---- the allocation model (layout_alloc.c) ----------------------------- */
struct ctx {
	struct e4_layout *l;
	uint64_t blocks;
	uint32_t fdb, bpg, groups;
	unsigned cbits;
	uint64_t cmask;
	struct e4_bmap *used;		/* blocks marked used (runs backend) */
	struct e4_bmap *uninit_cleared;	/* groups that lose BLOCK_UNINIT */
	int oom;			/* a map could not grow */
};

static inline uint64_t g_first(const struct ctx *c, uint64_t g)
{
	return c->fdb + g * c->bpg;
}

static inline uint64_t g_last(const struct ctx *c, uint64_t g)
{
	if (g + 1 >= c->groups)
		return c->blocks - 1;
	return g_first(c, g) + c->bpg - 1;
}

static inline uint32_t g_of(const struct ctx *c, uint64_t b)
{
	return (uint32_t)((b - c->fdb) / c->bpg);
}

/* Mark [b, b + n) used. */
void e4_lay_mark(struct ctx *c, uint64_t b, uint64_t n);
/* The groups [b, b + n) touches lose BLOCK_UNINIT. */
void e4_lay_clear_uninit(struct ctx *c, uint64_t b, uint64_t n);
/* The reference's search for a free run, at block granularity: the first
 * b in [start, finish) (wrapping to the first data block when finish <=
 * start) with [b, b + num) free.  0, or -1 if there is none. */
int e4_lay_get_free_blocks(const struct ctx *c, uint64_t start, uint64_t finish,
			   uint64_t num, uint64_t *ret);
/* First free cluster at or after goal (then from the first data block),
 * as the reference's single-block allocator does on the cluster bitmap.
 * Returns its first block: 0, or -1 if there is none. */
int e4_lay_new_block(const struct ctx *c, uint64_t goal, uint64_t *ret);
/* First used block in [b, b + n), NONE if all free.  Blocks outside the
 * filesystem count as used. */
uint64_t e4_lay_first_used(const struct ctx *c, uint64_t b, uint64_t n);
/* Free clusters of group g under the current model. */
uint32_t e4_lay_group_free(const struct ctx *c, uint32_t g);
/* Each group's superblock/descriptor prefix (sb_blocks). */
void e4_lay_set_prefixes(struct ctx *c);
/* mke2fs -E packed_meta_blocks with flex_bg: every bitmap, then every
 * table, from the start of the filesystem. */
errcode_t e4_lay_packed_tables(struct ctx *c);
/* Group group's bitmaps and inode table, as the reference places them
 * (flex_bg packing, stride). */
errcode_t e4_lay_allocate_group_table(struct ctx *c, uint32_t group);

/* ---- special files (layout_files.c) ------------------------------------ */
/* Root, lost+found, the resize inode, the journal and the orphan file:
 * their blocks found by first fit as mke2fs's allocator finds them. */
errcode_t e4_lay_special_files(struct ctx *c, const struct e4_layout_opts *o,
			       const struct params *p);
/* Inode ino counted in use (dir: a directory) in its group's counts. */
void e4_lay_use_inode(struct e4_layout *l, uint32_t ino, int dir, int csum);

#endif
