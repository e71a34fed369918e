/*
 * alloc_inode.c: where new inodes go (alloc.h): a simplified form of the
 * kernel's Orlov allocator over (flex) groups, INODE_UNINIT groups and
 * never-used inode table tails brought into use safely (format doc 4.2),
 * and inode marks in the caller's map.
 */
#include "alloc_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- the inode table's used part -------------------------------------- */
uint32_t e4_alloc_itable_dirty_from(e4_fs *fs, const struct e4_group *d)
{
	uint32_t ipg = fs->geom.inodes_per_group;

	if (!e4_alloc_uninit_valid(fs) || (d->flags & EXT4_BG_INODE_ZEROED))
		return ipg;
	if (d->flags & EXT4_BG_INODE_UNINIT)
		return 0;
	return d->itable_unused < ipg ? ipg - d->itable_unused : 0;
}

static errcode_t zero_slots(e4_fs *fs, const struct e4_group *d, uint32_t from, uint32_t to)
{
	static const uint8_t zeros[65536];
	uint64_t isz = fs->geom.inode_size, bs = fs->geom.block_size;
	uint64_t off = d->inode_table * bs + from * isz, len = (to - from) * isz;

	while (len) {
		size_t n = len < sizeof(zeros) ? (size_t)len : sizeof(zeros);
		errcode_t err = e4_io_pwrite(e4_fs_io(fs), off, zeros, n);

		if (err)
			return err;
		off += n;
		len -= n;
	}
	return 0;
}

errcode_t e4_alloc_itable_zero(e4_fs *fs, e4_group_t g, uint32_t from, uint32_t to)
{
	struct e4_alloc_src src;
	struct e4_group d;
	errcode_t err;

	if (from >= to)
		return 0;
	if (fs->gdt_copy)	/* a backup's descriptors are too old to trust */
		return E4_ERR_GDT_COPY;
	err = e4_group_get(fs, g, &d);
	if (err)
		return err;
	if (d.inode_table < fs->geom.first_data_block ||
	    d.inode_table + fs->geom.inode_blocks_per_group > fs->geom.blocks_count)
		return E4_ERR_GD_BAD_LOCATION;
	err = e4_alloc_src_get(fs, g, 1, &src);
	/* only slots free by the bitmap: a bit set out there is an inode */
	while (!err && from < to) {
		uint32_t z = (uint32_t)e4_alloc_src_next(&src, from, to, 0);
		uint32_t s = (uint32_t)e4_alloc_src_next(&src, z, to, 1);

		if (z < to)
			err = zero_slots(fs, &d, z, s);
		from = s;
	}
	return err;
}

/* ---- marks in the caller's map ---------------------------------------- */
errcode_t e4_alloc_hook_inode_mark(e4_fs *fs, e4_ino_t ino, int in_use, int *changed)
{
	struct e4_bmap *bm = fs->alloc_maps[1];
	uint32_t ipg = fs->geom.inodes_per_group;
	e4_group_t g = e4_group_of_ino(fs, ino);
	uint32_t idx = (ino - 1) % ipg;
	int was = e4_bmap_test(bm, ino);
	errcode_t err;

	if (in_use && !was) {
		uint64_t base = e4_alloc_group_base(fs, g, 1), last;
		struct e4_group d;
		uint32_t from;

		err = e4_group_get(fs, g, &d);
		if (err)
			return err;
		/* the descriptor is left to e4_bmap_store_inodes(): what was
		 * zeroed before is known from the highest inode in the map */
		from = e4_alloc_itable_dirty_from(fs, &d);
		if (from < idx && !e4_bmap_find_last_set(bm, base, base + ipg, &last) &&
		    last - base + 1 > from)
			from = (uint32_t)(last - base + 1);
		err = e4_alloc_itable_zero(fs, g, from, idx);
		if (err)
			return err;
	}
	if (was != !!in_use) {
		err = in_use ? e4_bmap_set(bm, ino) : e4_bmap_clear(bm, ino);
		if (err)
			return err;
		if (changed)
			*changed = 1;
	}
	return 0;
}

/* ---- searches --------------------------------------------------------- */
/* The first free inode of group g (not below s_first_ino): 0 and *ino,
 * or E4_ERR_NO_SPACE. */
static errcode_t group_first_free(e4_fs *fs, e4_group_t g, e4_ino_t *ino)
{
	uint32_t ipg = fs->geom.inodes_per_group;
	uint64_t base = (uint64_t)g * ipg + 1, i = 0, z;
	struct e4_alloc_src src;
	errcode_t err;

	if (base < fs->geom.first_ino)
		i = fs->geom.first_ino - base;
	if (i >= ipg)
		return E4_ERR_NO_SPACE;
	err = e4_alloc_src_get(fs, g, 1, &src);
	if (err)
		return err;
	z = e4_alloc_src_next(&src, i, ipg, 0);
	if (z >= ipg || base + z > fs->geom.inodes_count)
		return E4_ERR_NO_SPACE;
	*ino = (e4_ino_t)(base + z);
	return 0;
}

/* The first free inode from group start on, wrapping, skipping groups
 * whose count says full (unread); with need_blocks first only groups that
 * also have a free cluster. */
static errcode_t scan_groups(e4_fs *fs, e4_group_t start, int need_blocks, e4_ino_t *ino)
{
	uint32_t gc = fs->geom.group_count;
	errcode_t err;

	for (uint32_t k = 0; k < gc; k++) {
		e4_group_t g = (start + k) % gc;
		uint64_t fi, fc = 1;

		err = e4_alloc_group_free(fs, g, 1, &fi);
		if (!err && need_blocks)
			err = e4_alloc_group_free(fs, g, 0, &fc);
		if (err)
			return err;
		if (!fi || !fc)
			continue;
		err = group_first_free(fs, g, ino);
		if (err != E4_ERR_NO_SPACE)
			return err;
	}
	return E4_ERR_NO_SPACE;
}

errcode_t e4_inode_find_free(e4_fs *fs, e4_group_t goal_group, e4_ino_t *ino)
{
	if (goal_group >= fs->geom.group_count)
		goal_group = 0;
	return scan_groups(fs, goal_group, 0, ino);
}

/* ---- Orlov ------------------------------------------------------------ */
struct unit {
	uint64_t free_inodes, free_clusters, dirs;
};

/* Per (flex) group unit counts; *tot gets the sums.  *units malloc'd. */
static errcode_t unit_counts(e4_fs *fs, uint32_t fsz, struct unit **units, uint32_t *nunits,
			     struct unit *tot)
{
	uint32_t gc = fs->geom.group_count, n = (gc + fsz - 1) / fsz;
	struct unit *u = calloc(n, sizeof(*u));
	errcode_t err = 0;

	if (!u)
		return E4_ERR_NO_MEMORY;
	memset(tot, 0, sizeof(*tot));
	for (e4_group_t g = 0; g < gc && !err; g++) {
		struct e4_group d;
		uint64_t fi = 0, fc = 0;

		err = e4_group_get(fs, g, &d);
		if (!err)
			err = e4_alloc_group_free(fs, g, 1, &fi);
		if (!err)
			err = e4_alloc_group_free(fs, g, 0, &fc);
		u[g / fsz].free_inodes += fi;
		u[g / fsz].free_clusters += fc;
		u[g / fsz].dirs += d.used_dirs;
		tot->free_inodes += fi;
		tot->free_clusters += fc;
		tot->dirs += d.used_dirs;
	}
	if (err) {
		free(u);
		return err;
	}
	*units = u;
	*nunits = n;
	return 0;
}

static uint64_t sub_floor(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* The group a new directory's search starts at (kernel find_group_orlov,
 * simplified: no random start, no debt): under the root, the unit with
 * the fewest directories among those with at least the average free
 * inodes and free clusters; elsewhere the first unit from the parent's
 * with room (fewer directories than average + ipg/16 per group, free
 * inodes and clusters not a quarter group below average), then one with
 * the average free inodes, then the parent's group. */
static errcode_t orlov_start(e4_fs *fs, e4_group_t pg, int top, e4_group_t *start)
{
	uint32_t fsz = e4_alloc_flex_size(fs), n, pu = pg / fsz;
	uint64_t avei, avec, max_dirs, min_i, min_c;
	struct unit *u, tot;
	int64_t best = -1;
	errcode_t err;

	err = unit_counts(fs, fsz, &u, &n, &tot);
	if (err)
		return err;
	avei = tot.free_inodes / n;
	avec = tot.free_clusters / n;
	for (uint32_t i = 0; top && i < n; i++) {
		if (!u[i].free_inodes || u[i].free_inodes < avei || u[i].free_clusters < avec)
			continue;
		if (best < 0 || u[i].dirs < u[best].dirs)
			best = i;
	}
	max_dirs = tot.dirs / n + (uint64_t)fs->geom.inodes_per_group * fsz / 16;
	min_i = sub_floor(avei, (uint64_t)fs->geom.inodes_per_group * fsz / 4);
	min_c = sub_floor(avec, (uint64_t)fs->geom.clusters_per_group * fsz / 4);
	if (min_i < 1)
		min_i = 1;
	for (uint32_t i = 0; best < 0 && i < n; i++) {
		uint32_t k = (pu + i) % n;

		if (u[k].dirs < max_dirs && u[k].free_inodes >= min_i && u[k].free_clusters >= min_c)
			best = k;
	}
	for (uint32_t i = 0; best < 0 && i < n; i++) {
		uint32_t k = (pu + i) % n;

		if (u[k].free_inodes && u[k].free_inodes >= avei)
			best = k;
	}
	free(u);
	*start = best < 0 || (uint32_t)best == pu ? pg : (e4_group_t)best * fsz;
	return 0;
}

errcode_t e4_alloc_inode(e4_fs *fs, e4_ino_t parent_ino, uint16_t mode, e4_ino_t *ino)
{
	int is_dir = (mode & EXT4_S_IFMT) == EXT4_S_IFDIR;
	e4_group_t pg = 0, start;
	errcode_t err;

	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (parent_ino >= 1 && parent_ino <= fs->geom.inodes_count)
		pg = e4_group_of_ino(fs, parent_ino);
	start = pg;
	if (is_dir) {
		err = orlov_start(fs, pg, parent_ino == 0 || parent_ino == EXT4_ROOT_INO, &start);
		if (err)
			return err;
	}
	/* the parent's group (the chosen one), then the next groups: first
	 * those with free clusters too, then any */
	err = scan_groups(fs, start, 1, ino);
	if (err == E4_ERR_NO_SPACE)
		err = scan_groups(fs, start, 0, ino);
	if (err)
		return err;
	/* the kernel initialises the block bitmap of a group it puts an
	 * inode in (__ext4_new_inode) */
	if (!fs->alloc_maps[0] && e4_alloc_uninit_valid(fs)) {
		struct e4_group d;
		e4_group_t g = e4_group_of_ino(fs, *ino);

		err = e4_group_get(fs, g, &d);
		if (!err && (d.flags & EXT4_BG_BLOCK_UNINIT))
			err = e4_alloc_block_group_init(fs, g);
		if (err)
			return err;
	}
	return e4_inode_mark(fs, *ino, 1, is_dir, NULL);
}

errcode_t e4_alloc_free_inode(e4_fs *fs, e4_ino_t ino, uint16_t mode)
{
	int changed = 0;
	errcode_t err = e4_inode_mark(fs, ino, 0, (mode & EXT4_S_IFMT) == EXT4_S_IFDIR, &changed);

	return err ? err : changed ? 0 : E4_ERR_CORRUPT;
}
