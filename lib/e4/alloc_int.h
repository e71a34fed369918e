/*
 * alloc_int.h: what alloc.c (marks, counts, flush), alloc_policy.c
 * (block searches, goals, the caller's maps) and alloc_inode.c (inode
 * searches, Orlov, the inode table's used part) share.  Not installed.
 */
#ifndef E4_ALLOC_INT_H
#define E4_ALLOC_INT_H

#include "e4_private.h"

/* Clusters in group g (the last group may be short). */
static inline uint64_t e4_alloc_group_clusters(e4_fs *fs, e4_group_t g)
{
	return ((e4_group_last_block(fs, g) - e4_group_first_block(fs, g)) >>
		fs->geom.cluster_bits) + 1;
}

/* UNINIT flags and bg_itable_unused mean something (format doc 4.2). */
static inline int e4_alloc_uninit_valid(e4_fs *fs)
{
	return fs->geom.metadata_csum || fs->geom.gdt_csum;
}

/* Zero the free inode slots (by the allocator's bitmap of g) among
 * [from, to) (0-based indexes in group g) of g's inode table, at once
 * (uncached writes, the cache kept in step), before a descriptor says
 * they are part of the used table (alloc_inode.c).  Write errors,
 * E4_ERR_GD_BAD_LOCATION, E4_ERR_GDT_COPY (a backup descriptor table is
 * loaded). */
errcode_t e4_alloc_itable_zero(e4_fs *fs, e4_group_t g, uint32_t from, uint32_t to);

/* First inode slot of group g that may hold garbage: 0 for INODE_UNINIT,
 * else inodes_per_group - bg_itable_unused; inodes_per_group when the
 * flags mean nothing or the table is ITABLE_ZEROED (nothing to zero). */
uint32_t e4_alloc_itable_dirty_from(e4_fs *fs, const struct e4_group *d);

/* Initialise group g's block bitmap if BLOCK_UNINIT (its synthesised
 * bitmap becomes real, written at the next flush; alloc.c).  Bitmap read
 * errors, E4_ERR_READ_ONLY. */
errcode_t e4_alloc_block_group_init(e4_fs *fs, e4_group_t g);
/* Groups per flex group (1 without flex_bg; alloc_policy.c). */
uint32_t e4_alloc_flex_size(e4_fs *fs);

/* The caller's maps (e4_alloc_set_maps): marks in them (blocks:
 * alloc_policy.c, inodes: alloc_inode.c).  Arguments already checked. */
errcode_t e4_alloc_hook_block_mark(e4_fs *fs, e4_blk_t blk, uint64_t count, int in_use,
				   uint64_t *changed);
errcode_t e4_alloc_hook_inode_mark(e4_fs *fs, e4_ino_t ino, int in_use, int *changed);

/* One group's bits, from the cached on-disk bitmap or the caller's map
 * (alloc_policy.c). */
struct e4_alloc_src {
	const uint8_t *map;		/* cached on-disk bitmap, or NULL */
	const struct e4_bmap *bm;	/* the caller's map, or NULL */
	uint64_t base;			/* bm's bit for the group's bit 0 */
};
/* Bit of group g's first cluster (inode != 0: inode) in a
 * whole-filesystem map (e4_bmap_new_blocks / e4_bmap_new_inodes). */
uint64_t e4_alloc_group_base(e4_fs *fs, e4_group_t g, int inode);
/* Group g's blocks (inodes) as the allocator sees them: the caller's map
 * when set, else the cached bitmap (read if needed).  Bitmap errors. */
errcode_t e4_alloc_src_get(e4_fs *fs, e4_group_t g, int inode, struct e4_alloc_src *s);
/* The first group-relative bit in [i, n) that is set (want 1) or clear
 * (want 0); n if none. */
uint64_t e4_alloc_src_next(const struct e4_alloc_src *s, uint64_t i, uint64_t n, int want);
/* Free clusters (inodes) of group g: the descriptor's count, or the
 * caller's map when set; never reads a bitmap.  E4_ERR_BAD_GROUP_NUM. */
errcode_t e4_alloc_group_free(e4_fs *fs, e4_group_t g, int inode, uint64_t *nfree);

#endif
