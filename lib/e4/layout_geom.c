/*
 * layout_geom.c: the group geometry mke2fs settles (blocks and inodes per
 * group, with its retries), and which groups hold superblock copies.
 */
#include "layout_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- superblock backups ---------------------------------------------- */
static int test_root(uint32_t a, uint32_t b)
{
	for (;;) {
		if (a < b)
			return 0;
		if (a == b)
			return 1;
		if (a % b)
			return 0;
		a /= b;
	}
}

int e4_lay_bg_has_super(const struct e4_layout *l, uint32_t g)
{
	if (g == 0)
		return 1;
	if (l->feature_compat & EXT4_FEATURE_COMPAT_SPARSE_SUPER2)
		return g == l->backup_bgs[0] || g == l->backup_bgs[1];
	if (g <= 1 || !(l->feature_ro_compat & EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER))
		return 1;
	if (!(g & 1))
		return 0;
	return test_root(g, 3) || test_root(g, 5) || test_root(g, 7);
}

/* ---- the group geometry, as the reference first sets it up ----------- */
errcode_t e4_lay_geometry(struct e4_layout *l, struct params *p)
{
	unsigned bs = 1024U << p->log_bs;
	uint64_t blocks, param_blocks = p->blocks;
	uint32_t bpg, cpg, ipg, ipb = 0, groups, desc_blocks, rsv;
	uint32_t inodes;
	unsigned cbits = p->log_cs - p->log_bs;
	unsigned isz = p->inode_size ? p->inode_size : EXT4_GOOD_OLD_INODE_SIZE;
	int bigalloc = (p->feat[2] & EXT4_FEATURE_RO_COMPAT_BIGALLOC) != 0;
	uint64_t r_blocks = p->r_blocks;
	int rounds = 0;

	l->block_size = bs;
	l->log_block_size = p->log_bs;
	l->log_cluster_size = p->log_cs;
	l->cluster_size = 1024U << p->log_cs;
	l->cluster_bits = cbits;
	l->first_data_block = p->log_cs ? 0 : 1;
	l->first_ino = EXT4_GOOD_OLD_FIRST_INO;
	l->inode_size = isz;
	l->feature_compat = p->feat[0];
	l->feature_incompat = p->feat[1];
	l->feature_ro_compat = p->feat[2];
	l->log_groups_per_flex = p->log_flex;

	if (bigalloc) {
		uint64_t bpg64;

		if (p->cpg_param)
			cpg = p->cpg_param;
		else if (p->log_cs + 10 + 15 < 32)
			cpg = bs * 8;
		else
			cpg = (bs - 1) * 8;
		if (cpg > 65528)
			cpg = 65528;
		bpg64 = (uint64_t)cpg << cbits;
		if (bpg64 >= (1ULL << 32))
			return E4_ERR_BAD_BLOCKS_PER_GROUP;
		bpg = (uint32_t)bpg64;
	} else {
		bpg = p->bpg_param ? p->bpg_param : bs * 8;
		if (bpg > 65528)
			bpg = 65528;
		cpg = bpg;
	}
	blocks = param_blocks & ~(((uint64_t)1 << cbits) - 1);
	if (r_blocks >= param_blocks)
		return E4_ERR_INVALID_ARGUMENT;

	l->desc_size = p->desc_size ? p->desc_size : EXT4_MIN_DESC_SIZE;
retry:
	if (++rounds > 100000)
		return E4_ERR_BAD_GEOMETRY;
	if (blocks <= l->first_data_block)
		return E4_ERR_FS_TOO_SMALL;
	{
		uint64_t g64 = div_ceil(blocks - l->first_data_block, bpg);

		if (g64 == 0)
			return E4_ERR_FS_TOO_SMALL;
		if (g64 > MAX_32)
			return E4_ERR_FS_TOO_BIG;
		groups = (uint32_t)g64;
	}
	desc_blocks = (uint32_t)div_ceil(groups, bs / l->desc_size);
	{
		unsigned i = bs >= 4096 ? 1 : 4096 / bs;

		if (p->inodes_param)
			inodes = p->inodes_param;
		else if ((l->feature_incompat & EXT4_FEATURE_INCOMPAT_64BIT) &&
			 blocks / i >= (1ULL << 32))
			inodes = ~0U;
		else
			inodes = (uint32_t)(blocks / i);
	}
	if (inodes < l->first_ino + 1)
		inodes = l->first_ino + 1;
	{
		uint64_t ipg64 = div_ceil(inodes, groups);

		if (ipg64 > (uint64_t)bs * 8) {
			if (!bigalloc && bpg >= 256) {
				bpg -= 8;
				blocks = param_blocks;
				cpg = bpg;
				goto retry;
			}
			return E4_ERR_TOO_MANY_INODES;
		}
		ipg = (uint32_t)ipg64;
	}
	if (ipg > 65536 - bs / isz)
		ipg = 65536 - bs / isz;
	for (uint32_t try_ipg = ipg;; try_ipg--) {
		uint32_t v = try_ipg;

		ipb = (uint32_t)div_ceil((uint64_t)v * isz, bs);
		v = (uint32_t)((uint64_t)ipb * bs / isz);
		if (v < 8)
			v = 8;
		v &= ~7U;
		ipb = (uint32_t)div_ceil((uint64_t)v * isz, bs);
		if ((uint64_t)v * groups > MAX_32) {
			if (try_ipg == 0)
				return E4_ERR_TOO_MANY_INODES;
			continue;
		}
		l->inodes_per_group = v;
		break;
	}
	/* e2fsprogs 1.47.1 and later: when rounding down to a multiple of 8
	 * leaves fewer than first_ino + 1 inodes (100 KiB, 1 KiB blocks,
	 * 256-byte inodes: 12 inodes fill 3 blocks, rounded down to 8),
	 * round up instead, to a multiple of 8 per group holding at least
	 * that many; 1.47.0 made the 8 and then failed */
	if ((uint64_t)l->inodes_per_group * groups < l->first_ino + 1) {
		uint32_t v = (uint32_t)div_ceil(l->first_ino + 1, groups);

		v = (v + 7) & ~7U;
		ipb = (uint32_t)div_ceil((uint64_t)v * isz, bs);
		l->inodes_per_group = v;
	}
	l->inode_blocks_per_group = ipb;
	l->inodes_count = l->inodes_per_group * groups;
	if (l->inodes_count < l->first_ino)	/* no room for lost+found */
		return E4_ERR_FS_TOO_SMALL;

	if (l->feature_compat & EXT4_FEATURE_COMPAT_RESIZE_INODE) {
		uint64_t max_blocks = MAX_32, rsv_groups;
		uint32_t gdpb = bs / l->desc_size;

		if (blocks < max_blocks / 1024)
			max_blocks = blocks * 1024;
		rsv_groups = div_ceil(max_blocks - l->first_data_block, bpg);
		rsv = (uint32_t)(div_ceil(rsv_groups, gdpb) - desc_blocks);
		if (rsv > bs / 4)
			rsv = bs / 4;
	} else {
		rsv = 0;
	}
	if (p->rsv_gdt_param)
		rsv = p->rsv_gdt_param;
	if (rsv > bs / 4)
		return E4_ERR_RESERVED_GDT;
	if ((uint64_t)rsv + desc_blocks > (uint64_t)bpg * 3 / 4) {
		l->feature_incompat |= EXT4_FEATURE_INCOMPAT_META_BG;
		l->feature_compat &= ~EXT4_FEATURE_COMPAT_RESIZE_INODE;
		rsv = p->rsv_gdt_param;
	}
	{
		uint64_t overhead = 3ULL + ipb + rsv;

		overhead += (l->feature_incompat & EXT4_FEATURE_INCOMPAT_META_BG) ? 1 : desc_blocks;
		if (overhead > bpg)
			return E4_ERR_TOO_MANY_INODES;
	}
	{
		uint64_t overhead = 2ULL + ipb, rem;
		int has_bg;

		l->group_count = groups;
		if (l->feature_compat & EXT4_FEATURE_COMPAT_SPARSE_SUPER2) {
			if (groups == 2)
				has_bg = p->backup_param[0] != 0;
			else
				has_bg = p->backup_param[1] != 0;
		} else {
			has_bg = e4_lay_bg_has_super(l, groups - 1);
		}
		if (has_bg)
			overhead += 1ULL + desc_blocks + rsv;
		rem = (blocks - l->first_data_block) % bpg;
		if (groups == 1 && rem && rem < overhead)
			return E4_ERR_FS_TOO_SMALL;
		if (rem && rem < overhead + 50) {
			double ratio = 100.0 * (double)p->r_blocks / (double)param_blocks;

			blocks -= rem;
			r_blocks = (uint64_t)(ratio * (double)blocks / 100.0);
			goto retry;
		}
	}

	l->blocks_count = blocks;
	l->r_blocks_count = r_blocks;
	l->blocks_per_group = bpg;
	l->clusters_per_group = cpg;
	l->group_count = groups;
	l->desc_blocks = desc_blocks;
	l->reserved_gdt_blocks = rsv;
	l->first_meta_bg = 0;
	if (l->feature_compat & EXT4_FEATURE_COMPAT_SPARSE_SUPER2) {
		uint32_t b0 = p->backup_param[0], b1 = p->backup_param[1];

		if (b0 >= groups)
			b0 = groups - 1;
		if (b1 >= groups)
			b1 = groups - 1;
		if (b0 == b1)
			b1 = 0;
		if (b0 > b1) {
			uint32_t t = b0;

			b0 = b1;
			b1 = t;
		}
		l->backup_bgs[0] = b0;
		l->backup_bgs[1] = b1;
	}
	return 0;
}
