/*
 * bitmap.c: reading block and inode bitmaps, with their checksums and
 * the synthesis of BLOCK_UNINIT / INODE_UNINIT groups (format doc 4.2, 5),
 * and loading / storing whole-filesystem maps of the bmap type (bmap.h)
 * from and to them.
 */
#include "e4_private.h"

#include <stdlib.h>
#include <string.h>

static int uninit_flags_valid(e4_fs *fs)
{
	return fs->geom.metadata_csum || fs->geom.gdt_csum;
}

/* Mark blocks [blk, blk+n) of group g (clusters in bigalloc). */
static void mark_range(e4_fs *fs, e4_group_t g, uint8_t *map, e4_blk_t blk, uint64_t n)
{
	e4_blk_t first = e4_group_first_block(fs, g), last = e4_group_last_block(fs, g);
	e4_blk_t end = blk + n;
	unsigned cb = fs->geom.cluster_bits;

	if (blk < first)
		blk = first;
	if (end > last + 1)
		end = last + 1;
	if (blk >= end)
		return;
	/* every cluster the range touches */
	e4_bits_set(map, (blk - first) >> cb, ((end - 1 - first) >> cb) - ((blk - first) >> cb) + 1);
}

/* Clusters of group g (the last group may be short). */
static uint64_t group_clusters(e4_fs *fs, e4_group_t g)
{
	return ((e4_group_last_block(fs, g) - e4_group_first_block(fs, g)) >>
		fs->geom.cluster_bits) + 1;
}

static void synth_block_bitmap(e4_fs *fs, e4_group_t g, uint8_t *buf)
{
	const struct e4_geom *geo = &fs->geom;
	struct e4_group d;
	e4_blk_t first;
	uint32_t count;
	uint64_t nclusters = group_clusters(fs, g), bits = (uint64_t)geo->block_size * 8;

	memset(buf, 0, geo->block_size);
	e4_group_super_area(fs, g, &first, &count);
	if (count)
		mark_range(fs, g, buf, first, count);
	if (!e4_group_get(fs, g, &d)) {
		mark_range(fs, g, buf, d.block_bitmap, 1);
		mark_range(fs, g, buf, d.inode_bitmap, 1);
		mark_range(fs, g, buf, d.inode_table, geo->inode_blocks_per_group);
	}
	/* Padding: clusters past the end of the group / filesystem. */
	if (nclusters < bits)
		e4_bits_set(buf, nclusters, bits - nclusters);
}

errcode_t e4_read_block_bitmap(e4_fs *fs, e4_group_t g, uint8_t *buf)
{
	struct e4_group d;
	errcode_t err;

	err = e4_group_get(fs, g, &d);
	if (err)
		return err;
	if (uninit_flags_valid(fs) && (d.flags & EXT4_BG_BLOCK_UNINIT)) {
		synth_block_bitmap(fs, g, buf);
		return 0;
	}
	if (d.block_bitmap < fs->geom.first_data_block || d.block_bitmap >= fs->geom.blocks_count)
		return E4_ERR_GD_BAD_LOCATION;
	err = e4_read_block(fs, d.block_bitmap, buf);
	if (err)
		return err;
	if (fs->geom.metadata_csum && !e4_ignore_csum(fs)) {
		uint32_t c = e4_bitmap_csum(fs, buf, fs->geom.clusters_per_group / 8);
		if (fs->geom.desc_size < EXT4_BG_BLOCK_BITMAP_CSUM_HI_END)
			c &= 0xFFFF;
		if (c != d.block_bitmap_csum)
			return E4_ERR_BLOCK_BITMAP_CSUM;
	}
	return 0;
}

errcode_t e4_read_inode_bitmap(e4_fs *fs, e4_group_t g, uint8_t *buf)
{
	struct e4_group d;
	errcode_t err;

	err = e4_group_get(fs, g, &d);
	if (err)
		return err;
	if (uninit_flags_valid(fs) && (d.flags & EXT4_BG_INODE_UNINIT)) {
		uint64_t bits = (uint64_t)fs->geom.block_size * 8;
		memset(buf, 0, fs->geom.block_size);
		if (fs->geom.inodes_per_group < bits)
			e4_bits_set(buf, fs->geom.inodes_per_group, bits - fs->geom.inodes_per_group);
		return 0;
	}
	if (d.inode_bitmap < fs->geom.first_data_block || d.inode_bitmap >= fs->geom.blocks_count)
		return E4_ERR_GD_BAD_LOCATION;
	err = e4_read_block(fs, d.inode_bitmap, buf);
	if (err)
		return err;
	if (fs->geom.metadata_csum && !e4_ignore_csum(fs)) {
		uint32_t c = e4_bitmap_csum(fs, buf, fs->geom.inodes_per_group / 8);
		if (fs->geom.desc_size < EXT4_BG_INODE_BITMAP_CSUM_HI_END)
			c &= 0xFFFF;
		if (c != d.inode_bitmap_csum)
			return E4_ERR_INODE_BITMAP_CSUM;
	}
	return 0;
}

static errcode_t bitmap_cached(e4_fs *fs, e4_group_t g, int inode, int relaxed, uint8_t **out)
{
	uint8_t **slot = inode ? &fs->inode_bitmaps[g] : &fs->block_bitmaps[g];
	uint8_t *buf;
	errcode_t err;

	if (*slot) {
		*out = *slot;
		return 0;
	}
	buf = malloc(fs->geom.block_size);
	if (!buf)
		return E4_ERR_NO_MEMORY;
	err = inode ? e4_read_inode_bitmap(fs, g, buf) : e4_read_block_bitmap(fs, g, buf);
	if (relaxed && err == (inode ? E4_ERR_INODE_BITMAP_CSUM : E4_ERR_BLOCK_BITMAP_CSUM))
		err = 0;
	if (err) {
		free(buf);
		return err;
	}
	*slot = *out = buf;
	return 0;
}

errcode_t e4_bitmap_cached(e4_fs *fs, e4_group_t g, int inode, uint8_t **out)
{
	return bitmap_cached(fs, g, inode, 0, out);
}

errcode_t e4_bitmap_cached_relaxed(e4_fs *fs, e4_group_t g, int inode, uint8_t **out)
{
	return bitmap_cached(fs, g, inode, 1, out);
}

errcode_t e4_test_block(e4_fs *fs, e4_blk_t blk, int *in_use)
{
	e4_group_t g;
	uint8_t *map;
	errcode_t err;

	if (blk < fs->geom.first_data_block || blk >= fs->geom.blocks_count)
		return E4_ERR_BAD_BLOCK_NUM;
	g = e4_group_of_block(fs, blk);
	err = e4_bitmap_cached(fs, g, 0, &map);
	if (err)
		return err;
	*in_use = e4_bit_test(map, (blk - e4_group_first_block(fs, g)) >> fs->geom.cluster_bits);
	return 0;
}

errcode_t e4_test_inode(e4_fs *fs, e4_ino_t ino, int *in_use)
{
	e4_group_t g;
	uint8_t *map;
	errcode_t err;

	if (ino < 1 || ino > fs->geom.inodes_count)
		return E4_ERR_BAD_INODE_NUM;
	g = e4_group_of_ino(fs, ino);
	err = e4_bitmap_cached(fs, g, 1, &map);
	if (err)
		return err;
	*in_use = e4_bit_test(map, (ino - 1) % fs->geom.inodes_per_group);
	return 0;
}

/* ---- whole-filesystem maps (bmap.h) ------------------------------------ */
/* Group g's bits in a block (inode) map: [*base, *base + *n). */
static void group_span(e4_fs *fs, e4_group_t g, int inode, uint64_t *base, uint64_t *n)
{
	if (inode) {
		*base = (uint64_t)g * fs->geom.inodes_per_group + 1;
		*n = fs->geom.inodes_per_group;
	} else {
		*base = e4_group_first_block(fs, g) >> fs->geom.cluster_bits;
		*n = group_clusters(fs, g);
	}
}

static errcode_t bmap_new(e4_fs *fs, int inode, enum e4_bmap_kind kind, struct e4_bmap **ret)
{
	uint64_t base, n;

	if (!fs->geom.group_count)
		return E4_ERR_INVALID_ARGUMENT;
	group_span(fs, fs->geom.group_count - 1, inode, &base, &n);
	if (inode)
		return e4_bmap_create(kind, 1, base + n, ret);
	return e4_bmap_create(kind, fs->geom.first_data_block >> fs->geom.cluster_bits, base + n,
			      ret);
}

errcode_t e4_bmap_new_blocks(e4_fs *fs, enum e4_bmap_kind kind, struct e4_bmap **ret)
{
	return bmap_new(fs, 0, kind, ret);
}

errcode_t e4_bmap_new_inodes(e4_fs *fs, enum e4_bmap_kind kind, struct e4_bmap **ret)
{
	return bmap_new(fs, 1, kind, ret);
}

static errcode_t csum_error(int inode)
{
	return inode ? E4_ERR_INODE_BITMAP_CSUM : E4_ERR_BLOCK_BITMAP_CSUM;
}

/* Group g's bitmap as it reads now: the allocation API's cached copy, or
 * read (synthesised for UNINIT groups) into buf.  Reader errors; with a
 * checksum error *map is still good. */
static errcode_t group_bitmap(e4_fs *fs, e4_group_t g, int inode, uint8_t *buf,
			      const uint8_t **map)
{
	uint8_t **cache = inode ? fs->inode_bitmaps : fs->block_bitmaps;

	if (cache && cache[g]) {
		*map = cache[g];
		return 0;
	}
	*map = buf;
	return inode ? e4_read_inode_bitmap(fs, g, buf) : e4_read_block_bitmap(fs, g, buf);
}

static errcode_t bmap_load(e4_fs *fs, int inode, enum e4_bmap_kind kind, unsigned flags,
			   e4_bmap_group_cb cb, void *priv, struct e4_bmap **ret)
{
	struct e4_bmap *bm;
	uint8_t *buf;
	errcode_t err;

	err = bmap_new(fs, inode, kind, &bm);
	if (err)
		return err;
	buf = malloc(fs->geom.block_size);
	if (!buf) {
		e4_bmap_free(bm);
		return E4_ERR_NO_MEMORY;
	}
	for (e4_group_t g = 0; g < fs->geom.group_count && !err; g++) {
		const uint8_t *map;
		uint64_t base, n;

		err = group_bitmap(fs, g, inode, buf, &map);
		if (err == csum_error(inode) && !(cb && cb(fs, g, err, priv)) &&
		    (flags & E4_BMAP_RELAX_CSUM))
			err = 0;
		if (!err) {
			group_span(fs, g, inode, &base, &n);
			err = e4_bmap_import(bm, base, map, n);
		}
	}
	free(buf);
	if (err) {
		e4_bmap_free(bm);
		return err;
	}
	*ret = bm;
	return 0;
}

errcode_t e4_bmap_load_blocks(e4_fs *fs, enum e4_bmap_kind kind, unsigned flags,
			      e4_bmap_group_cb cb, void *priv, struct e4_bmap **ret)
{
	return bmap_load(fs, 0, kind, flags, cb, priv, ret);
}

errcode_t e4_bmap_load_inodes(e4_fs *fs, enum e4_bmap_kind kind, unsigned flags,
			      e4_bmap_group_cb cb, void *priv, struct e4_bmap **ret)
{
	return bmap_load(fs, 1, kind, flags, cb, priv, ret);
}

struct store {
	e4_fs *fs;
	const struct e4_bmap *bm;
	int inode;
	unsigned flags;
	uint8_t *want, *cur;		/* one block each */
	uint64_t nfree;			/* clusters or inodes, summed */
	int gdt_changed;
};

/* The descriptor fields group g's part of the map decides: free count,
 * bg_itable_unused (inodes), the UNINIT flag when the bitmap is written
 * over a synthesised one. */
static void store_counts(struct store *st, e4_group_t g, struct e4_group *d, int clear_uninit)
{
	uint64_t base, n, used, last;

	group_span(st->fs, g, st->inode, &base, &n);
	used = e4_bmap_count_range(st->bm, base, n);
	st->nfree += n - used;
	if (!st->inode) {
		d->free_blocks = (uint32_t)(n - used);
		if (clear_uninit)
			d->flags &= (uint16_t)~EXT4_BG_BLOCK_UNINIT;
		return;
	}
	d->free_inodes = (uint32_t)(n - used);
	if (clear_uninit)
		d->flags &= (uint16_t)~EXT4_BG_INODE_UNINIT;
	if (uninit_flags_valid(st->fs) && !e4_bmap_find_last_set(st->bm, base, base + n, &last) &&
	    d->itable_unused > n - (last - base + 1))
		d->itable_unused = (uint32_t)(n - (last - base + 1));
}

static errcode_t store_group(struct store *st, e4_group_t g)
{
	e4_fs *fs = st->fs;
	unsigned bs = fs->geom.block_size;
	uint16_t uflag = st->inode ? EXT4_BG_INODE_UNINIT : EXT4_BG_BLOCK_UNINIT;
	struct e4_group d, old;
	const uint8_t *map;
	uint8_t **cache = st->inode ? fs->inode_bitmaps : fs->block_bitmaps;
	uint64_t base, n;
	int uninit, write;
	errcode_t err;

	err = e4_group_get(fs, g, &d);
	if (err)
		return err;
	old = d;
	group_span(fs, g, st->inode, &base, &n);
	e4_bmap_export(st->bm, base, st->want, n);
	e4_bits_set(st->want, n, (uint64_t)bs * 8 - n);		/* padding */
	uninit = uninit_flags_valid(fs) && (d.flags & uflag);
	if (!uninit && (st->flags & E4_BMAP_STORE_ALL)) {
		/* rewritten whatever it reads as now: not read (on a new
		 * filesystem that is half of the bitmaps' I/O) */
		write = 1;
	} else {
		err = group_bitmap(fs, g, st->inode, st->cur, &map);
		if (err && err != csum_error(st->inode))
			return err;
		write = err || memcmp(map, st->want, bs);
	}
	store_counts(st, g, &d, write && uninit);
	if (memcmp(&d, &old, sizeof(d))) {
		err = e4_group_set(fs, g, &d);
		if (err)
			return err;
		st->gdt_changed = 1;
	}
	if (!write)
		return 0;
	/* the checksum goes into the descriptor set above */
	err = st->inode ? e4_inode_bitmap_write(fs, g, st->want) : e4_block_bitmap_write(fs, g, st->want);
	if (err)
		return err;
	if (fs->geom.metadata_csum)
		st->gdt_changed = 1;
	if (cache && cache[g])
		memcpy(cache[g], st->want, bs);
	return 0;
}

static errcode_t bmap_store(e4_fs *fs, const struct e4_bmap *bm, int inode, unsigned flags)
{
	struct store st = { fs, bm, inode, flags, NULL, NULL, 0, 0 };
	struct e4_bmap *shape;
	errcode_t err;

	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (fs->gdt_copy)
		return E4_ERR_GDT_COPY;
	err = bmap_new(fs, inode, E4_BMAP_RUNS, &shape);
	if (err)
		return err;
	if (e4_bmap_start(shape) != e4_bmap_start(bm) || e4_bmap_end(shape) != e4_bmap_end(bm))
		err = E4_ERR_INVALID_ARGUMENT;
	e4_bmap_free(shape);
	if (err)
		return err;
	st.want = malloc(fs->geom.block_size);
	st.cur = malloc(fs->geom.block_size);
	if (!st.want || !st.cur)
		err = E4_ERR_NO_MEMORY;
	for (e4_group_t g = 0; g < fs->geom.group_count && !err; g++)
		err = store_group(&st, g);
	free(st.want);
	free(st.cur);
	if (err)
		return err;
	if (!inode && e4_sb_free_blocks_count(fs->sb) != st.nfree << fs->geom.cluster_bits)
		e4_sb_free_blocks_set(fs, st.nfree << fs->geom.cluster_bits);
	if (inode && e4_le32(fs->sb->s_free_inodes_count) != st.nfree) {
		e4_sb_set_free_inodes_count(fs->sb, (uint32_t)st.nfree);
		fs->sb_dirty = 1;
	}
	if (flags & E4_BMAP_STORE_NO_FLUSH)
		return 0;
	return e4_alloc_flush_gdt(fs, st.gdt_changed);
}

errcode_t e4_bmap_store_blocks(e4_fs *fs, const struct e4_bmap *bm, unsigned flags)
{
	return bmap_store(fs, bm, 0, flags);
}

errcode_t e4_bmap_store_inodes(e4_fs *fs, const struct e4_bmap *bm, unsigned flags)
{
	return bmap_store(fs, bm, 1, flags);
}

errcode_t e4_bitmap_padding_check(e4_fs *fs, int inode, e4_group_t *nbad)
{
	unsigned bs = fs->geom.block_size;
	uint16_t uflag = inode ? EXT4_BG_INODE_UNINIT : EXT4_BG_BLOCK_UNINIT;
	uint8_t *buf = malloc(bs);
	errcode_t err = 0;

	*nbad = 0;
	if (!buf)
		return E4_ERR_NO_MEMORY;
	for (e4_group_t g = 0; g < fs->geom.group_count && !err; g++) {
		struct e4_group d;
		const uint8_t *map;
		uint64_t base, n;

		err = e4_group_get(fs, g, &d);
		if (err || (uninit_flags_valid(fs) && (d.flags & uflag)))
			continue;
		err = group_bitmap(fs, g, inode, buf, &map);
		if (err == csum_error(inode))
			err = 0;
		if (err)
			break;
		group_span(fs, g, inode, &base, &n);
		for (uint64_t b = n; b < (uint64_t)bs * 8; b++)
			if (!e4_bit_test(map, b)) {
				(*nbad)++;
				break;
			}
	}
	free(buf);
	return err;
}
