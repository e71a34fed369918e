/*
 * group.c: group descriptors, backup placement and geometry helpers
 * (format doc sections 1.2-1.4 and 4).
 */
#include "e4_private.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const struct ext4_group_desc *desc_ptr(e4_fs *fs, e4_group_t g)
{
	return (const struct ext4_group_desc *)(fs->gdt + (size_t)g * fs->geom.desc_size);
}

const void *e4_group_desc_raw(e4_fs *fs, e4_group_t g)
{
	if (g >= fs->geom.group_count || !fs->gdt)
		return NULL;
	return desc_ptr(fs, g);
}

/* ---- descriptor fields: where each half sits (section 4.1) ------------ */
#define GD_OFF(f) ((uint8_t)offsetof(struct ext4_group_desc, f))
#define GD_FIELD(lo, hi, w) { GD_OFF(lo), GD_OFF(hi), (w) }
#define GD_LO_ONLY(lo) { GD_OFF(lo), 0, 2 }
static const struct {
	uint8_t lo, hi;		/* byte offsets; hi 0: no high half */
	uint8_t width;		/* bytes of each half: 2 or 4 */
} gd_fields[E4_GDF_COUNT] = {
	[E4_GDF_BLOCK_BITMAP] = GD_FIELD(bg_block_bitmap_lo, bg_block_bitmap_hi, 4),
	[E4_GDF_INODE_BITMAP] = GD_FIELD(bg_inode_bitmap_lo, bg_inode_bitmap_hi, 4),
	[E4_GDF_INODE_TABLE] = GD_FIELD(bg_inode_table_lo, bg_inode_table_hi, 4),
	[E4_GDF_FREE_BLOCKS] = GD_FIELD(bg_free_blocks_count_lo, bg_free_blocks_count_hi, 2),
	[E4_GDF_FREE_INODES] = GD_FIELD(bg_free_inodes_count_lo, bg_free_inodes_count_hi, 2),
	[E4_GDF_USED_DIRS] = GD_FIELD(bg_used_dirs_count_lo, bg_used_dirs_count_hi, 2),
	[E4_GDF_ITABLE_UNUSED] = GD_FIELD(bg_itable_unused_lo, bg_itable_unused_hi, 2),
	[E4_GDF_EXCLUDE_BITMAP] = GD_FIELD(bg_exclude_bitmap_lo, bg_exclude_bitmap_hi, 4),
	[E4_GDF_BLOCK_BITMAP_CSUM] = GD_FIELD(bg_block_bitmap_csum_lo, bg_block_bitmap_csum_hi, 2),
	[E4_GDF_INODE_BITMAP_CSUM] = GD_FIELD(bg_inode_bitmap_csum_lo, bg_inode_bitmap_csum_hi, 2),
	[E4_GDF_FLAGS] = GD_LO_ONLY(bg_flags),
	[E4_GDF_CHECKSUM] = GD_LO_ONLY(bg_checksum),
};

static uint32_t gd_half_get(const uint8_t *p, unsigned width)
{
	uint32_t v;
	uint16_t s;

	if (width == 4) {
		memcpy(&v, p, 4);
		return e4_le32(v);
	}
	memcpy(&s, p, 2);
	return e4_le16(s);
}

static void gd_half_put(uint8_t *p, unsigned width, uint32_t v)
{
	uint32_t w = e4_cpu_to_le32(v);
	uint16_t s = e4_cpu_to_le16((uint16_t)v);

	if (width == 4)
		memcpy(p, &w, 4);
	else
		memcpy(p, &s, 2);
}

/* High halves exist in descriptors of 64 bytes and more (64bit). */
static int gd_has_hi(unsigned desc_size, enum e4_gd_field f)
{
	return gd_fields[f].hi && desc_size >= EXT4_MIN_DESC_SIZE_64BIT;
}

uint64_t e4_gd_field_get(const void *desc, unsigned desc_size, enum e4_gd_field f)
{
	const uint8_t *d = desc;
	unsigned w = gd_fields[f].width;
	uint64_t v = gd_half_get(d + gd_fields[f].lo, w);

	if (gd_has_hi(desc_size, f))
		v |= (uint64_t)gd_half_get(d + gd_fields[f].hi, w) << (8 * w);
	return v;
}

int e4_gd_field_put(void *desc, unsigned desc_size, enum e4_gd_field f, uint64_t v)
{
	uint8_t *d = desc;
	unsigned w = gd_fields[f].width;
	unsigned bits = 8 * w;

	gd_half_put(d + gd_fields[f].lo, w, (uint32_t)v);
	if (gd_has_hi(desc_size, f)) {
		gd_half_put(d + gd_fields[f].hi, w, (uint32_t)(v >> bits));
		bits *= 2;
	}
	return bits >= 64 || !(v >> bits);
}

errcode_t e4_group_get(e4_fs *fs, e4_group_t g, struct e4_group *out)
{
	const struct ext4_group_desc *d;
	unsigned dsz = fs->geom.desc_size;

	memset(out, 0, sizeof(*out));
	if (g >= fs->geom.group_count || !fs->gdt)
		return E4_ERR_BAD_GROUP_NUM;
	d = desc_ptr(fs, g);
	out->block_bitmap = e4_gd_field_get(d, dsz, E4_GDF_BLOCK_BITMAP);
	out->inode_bitmap = e4_gd_field_get(d, dsz, E4_GDF_INODE_BITMAP);
	out->inode_table = e4_gd_field_get(d, dsz, E4_GDF_INODE_TABLE);
	out->free_blocks = (uint32_t)e4_gd_field_get(d, dsz, E4_GDF_FREE_BLOCKS);
	out->free_inodes = (uint32_t)e4_gd_field_get(d, dsz, E4_GDF_FREE_INODES);
	out->used_dirs = (uint32_t)e4_gd_field_get(d, dsz, E4_GDF_USED_DIRS);
	out->itable_unused = (uint32_t)e4_gd_field_get(d, dsz, E4_GDF_ITABLE_UNUSED);
	out->exclude_bitmap = e4_gd_field_get(d, dsz, E4_GDF_EXCLUDE_BITMAP);
	out->block_bitmap_csum = (uint32_t)e4_gd_field_get(d, dsz, E4_GDF_BLOCK_BITMAP_CSUM);
	out->inode_bitmap_csum = (uint32_t)e4_gd_field_get(d, dsz, E4_GDF_INODE_BITMAP_CSUM);
	out->flags = (uint16_t)e4_gd_field_get(d, dsz, E4_GDF_FLAGS);
	out->checksum = (uint16_t)e4_gd_field_get(d, dsz, E4_GDF_CHECKSUM);
	return 0;
}

int e4_group_csum_ok(e4_fs *fs, e4_group_t g)
{
	const struct ext4_group_desc *d;

	if (!fs->geom.metadata_csum && !fs->geom.gdt_csum)
		return 1;
	if (g >= fs->geom.group_count || !fs->gdt)
		return 0;
	d = desc_ptr(fs, g);
	return e4_le16(d->bg_checksum) == e4_group_desc_csum(fs, g, d);
}

e4_blk_t e4_group_first_block(e4_fs *fs, e4_group_t g)
{
	return fs->geom.first_data_block + (e4_blk_t)g * fs->geom.blocks_per_group;
}

e4_blk_t e4_group_last_block(e4_fs *fs, e4_group_t g)
{
	e4_blk_t last = e4_group_first_block(fs, g) + fs->geom.blocks_per_group - 1;

	return last >= fs->geom.blocks_count ? fs->geom.blocks_count - 1 : last;
}

e4_group_t e4_group_of_block(e4_fs *fs, e4_blk_t blk)
{
	if (blk < fs->geom.first_data_block)
		return 0;
	return (e4_group_t)((blk - fs->geom.first_data_block) / fs->geom.blocks_per_group);
}

e4_group_t e4_group_of_ino(e4_fs *fs, e4_ino_t ino)
{
	return ino ? (ino - 1) / fs->geom.inodes_per_group : 0;
}

static int is_power_of(uint32_t n, uint32_t base)
{
	while (n % base == 0)
		n /= base;
	return n == 1;
}

int e4_group_is_sparse_backup(uint32_t g)
{
	return g <= 1 || is_power_of(g, 3) || is_power_of(g, 5) || is_power_of(g, 7);
}

int e4_group_has_super(e4_fs *fs, e4_group_t g)
{
	if (g == 0)
		return 1;
	if (e4_has_compat(fs, EXT4_FEATURE_COMPAT_SPARSE_SUPER2))
		return g == e4_le32(fs->sb->s_backup_bgs[0]) ||
		       g == e4_le32(fs->sb->s_backup_bgs[1]);
	if (!e4_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER))
		return 1;
	return e4_group_is_sparse_backup(g);
}

/* Block holding the superblock copy of group g (1 KiB bigalloc: block 1). */
static e4_blk_t super_block_of(e4_fs *fs, e4_group_t g)
{
	e4_blk_t b = e4_group_first_block(fs, g);

	if (g == 0 && b == 0 && fs->geom.block_size == 1024)
		b = 1;
	return b;
}

e4_blk_t e4_group_desc_block(e4_fs *fs, e4_group_t sb_group, uint32_t i)
{
	uint32_t first_meta_bg = e4_le32(fs->sb->s_first_meta_bg);
	e4_group_t bg;

	if (!e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_META_BG) || i < first_meta_bg)
		return super_block_of(fs, sb_group) + 1 + i;
	/* meta_bg: the descriptor block of meta group i sits in its first
	 * group (a backup in the second and last ones), after any
	 * superblock copy. */
	bg = (e4_group_t)((uint64_t)i * fs->geom.desc_per_block);
	if (sb_group != 0 && bg + 1 < fs->geom.group_count)
		bg++;
	return e4_group_meta_desc_block(fs, bg);
}

e4_blk_t e4_group_meta_desc_block(e4_fs *fs, e4_group_t g)
{
	return super_block_of(fs, g) + (e4_group_has_super(fs, g) ? 1 : 0);
}

void e4_group_super_blocks(e4_fs *fs, e4_group_t g, e4_blk_t *sb_blk,
			   uint32_t *gdt_blocks, uint32_t *reserved_gdt)
{
	uint32_t dpb = fs->geom.desc_per_block;
	int has_super = e4_group_has_super(fs, g);

	*sb_blk = has_super ? super_block_of(fs, g) : 0;
	*gdt_blocks = 0;
	*reserved_gdt = 0;
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_META_BG)) {
		uint32_t first_meta_bg = e4_le32(fs->sb->s_first_meta_bg);
		uint32_t mg = g / dpb, idx = g % dpb;

		if (mg < first_meta_bg) {
			if (has_super) {
				*gdt_blocks = first_meta_bg;
				*reserved_gdt = e4_le16(fs->sb->s_reserved_gdt_blocks);
			}
		} else if (idx == 0 || idx == 1 || idx == dpb - 1) {
			*gdt_blocks = 1;
		}
	} else if (has_super) {
		*gdt_blocks = fs->geom.desc_blocks;
		*reserved_gdt = e4_le16(fs->sb->s_reserved_gdt_blocks);
	}
}

void e4_group_super_area(e4_fs *fs, e4_group_t g, e4_blk_t *first, uint32_t *count)
{
	e4_blk_t sb_blk, start = e4_group_first_block(fs, g);
	uint32_t gdt, res;

	e4_group_super_blocks(fs, g, &sb_blk, &gdt, &res);
	*first = start;
	if (sb_blk || (g == 0 && e4_group_has_super(fs, 0)))
		*count = (uint32_t)(sb_blk - start) + 1 + gdt + res;
	else
		*count = gdt;	/* meta_bg descriptor block without a superblock copy */
}

/* ---- descriptor locations ------------------------------------------- */

/* A run of metadata blocks for the overlap sweep: a group's item, or
 * (item -1) a superblock + descriptor (+ reserved GDT) copy. */
struct loc_run {
	e4_blk_t start, end;		/* inclusive */
	e4_group_t group;
	int item;
};

static int run_cmp(const void *a, const void *b)
{
	const struct loc_run *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->item < y->item) ? -1 : (x->item > y->item);
}

static const errcode_t item_err[3] = {
	E4_ERR_GD_BLOCK_BITMAP, E4_ERR_GD_INODE_BITMAP, E4_ERR_GD_INODE_TABLE,
};

struct loc_report {
	e4_gd_fault_cb cb;
	void *priv;
	unsigned n;
	errcode_t first;
	int stop;
};

static void report(e4_fs *fs, struct loc_report *r, const struct e4_gd_fault *f)
{
	if (r->stop)
		return;
	if (!r->first)
		r->first = f->err;
	r->n++;
	if (r->cb && r->cb(fs, f, r->priv))
		r->stop = 1;
}

/* Range faults; the sound items (and every superblock/GDT copy) go to
 * runs[] for the overlap sweep. */
static size_t range_check(e4_fs *fs, struct loc_report *r, struct loc_run *runs)
{
	const struct e4_geom *geo = &fs->geom;
	int flex = e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_FLEX_BG);
	size_t n = 0;

	for (e4_group_t g = 0; g < geo->group_count && !r->stop; g++) {
		struct e4_group d;
		e4_blk_t lo = geo->first_data_block, hi = geo->blocks_count - 1, sb_blk;
		uint32_t gdt, res;

		if (!flex) {
			lo = e4_group_first_block(fs, g);
			hi = e4_group_last_block(fs, g);
		}
		e4_group_get(fs, g, &d);
		const e4_blk_t at[3] = { d.block_bitmap, d.inode_bitmap, d.inode_table };
		const uint32_t len[3] = { 1, 1, geo->inode_blocks_per_group };

		for (int k = 0; k < 3; k++) {
			if (at[k] >= lo && at[k] <= hi && len[k] && len[k] - 1 <= hi - at[k]) {
				runs[n++] = (struct loc_run){ at[k], at[k] + len[k] - 1, g, k };
				continue;
			}
			report(fs, r, &(struct e4_gd_fault){ .err = item_err[k], .group = g,
				.item = (enum e4_gd_item)k, .blk = at[k], .len = len[k],
				.lo = lo, .hi = hi });
		}
		e4_group_super_blocks(fs, g, &sb_blk, &gdt, &res);
		if (e4_group_has_super(fs, g) || gdt) {
			e4_blk_t first = e4_group_has_super(fs, g) ? sb_blk : e4_group_first_block(fs, g);
			uint64_t cnt = (e4_group_has_super(fs, g) ? 1 : 0) + (uint64_t)gdt + res;

			if (cnt)
				runs[n++] = (struct loc_run){ first, first + cnt - 1, g, -1 };
		}
	}
	return n;
}

errcode_t e4_group_check_locations(e4_fs *fs, e4_gd_fault_cb cb, void *priv,
				   unsigned *nfaults)
{
	const struct e4_geom *geo = &fs->geom;
	struct loc_report r = { cb, priv, 0, 0, 0 };
	struct loc_run *runs, *cur = NULL;
	uint8_t *seen;
	size_t n;

	if (nfaults)
		*nfaults = 0;
	if (!fs->gdt)
		return E4_ERR_BAD_GROUP_NUM;
	runs = calloc((size_t)geo->group_count * 4 + 1, sizeof(*runs));
	seen = calloc((size_t)geo->group_count * 4 + 1, 1);
	if (!runs || !seen) {
		free(runs);
		free(seen);
		return E4_ERR_NO_MEMORY;
	}
	n = range_check(fs, &r, runs);
	qsort(runs, n, sizeof(*runs), run_cmp);
	/* sweep in block order: a run starting inside the furthest-reaching
	 * run so far overlaps it */
	for (size_t i = 0; i < n && !r.stop; i++) {
		struct loc_run *x = &runs[i];

		if (cur && x->start <= cur->end) {
			struct loc_run *item = x->item >= 0 ? x : cur;
			struct loc_run *other = item == x ? cur : x;

			if (item->item >= 0 && !seen[item - runs]) {
				struct e4_gd_fault f = { .group = item->group,
					.item = (enum e4_gd_item)item->item, .blk = item->start,
					.len = (uint32_t)(item->end - item->start + 1) };

				if (other->item < 0) {
					f.err = E4_ERR_GD_OVERLAP_SUPER;
				} else {
					f.err = E4_ERR_GD_OVERLAP;
					f.other_group = other->group;
					f.other_item = (enum e4_gd_item)other->item;
				}
				seen[item - runs] = 1;
				report(fs, &r, &f);
			}
		}
		if (!cur || x->end > cur->end)
			cur = x;
	}
	free(runs);
	free(seen);
	if (nfaults)
		*nfaults = r.n;
	return r.first;
}

/* ---- descriptor fields ------------------------------------------------ */

#define KNOWN_BG_FLAGS	E4_BG_KNOWN_FLAGS

/* Clusters group g spans (the last group may be short). */
static uint32_t group_span_clusters(e4_fs *fs, e4_group_t g)
{
	uint64_t n = e4_group_last_block(fs, g) - e4_group_first_block(fs, g) + 1;

	return (uint32_t)((n + (1u << fs->geom.cluster_bits) - 1) >> fs->geom.cluster_bits);
}

/* holds[g] = 1 for each group g that holds a block of another group's
 * bitmaps or inode table (flex_bg packs them into a few groups). */
static void mark_foreign_metadata(e4_fs *fs, uint8_t *holds)
{
	const struct e4_geom *geo = &fs->geom;

	for (e4_group_t h = 0; h < geo->group_count; h++) {
		struct e4_group d;

		e4_group_get(fs, h, &d);
		const e4_blk_t at[4] = { d.block_bitmap, d.inode_bitmap, d.inode_table,
					 d.inode_table + geo->inode_blocks_per_group - 1 };

		for (int k = 0; k < 4; k++) {
			e4_group_t o;

			if (at[k] < geo->first_data_block || at[k] >= geo->blocks_count)
				continue;	/* the location check's business */
			o = e4_group_of_block(fs, at[k]);
			if (o != h)
				holds[o] = 1;
		}
	}
}

errcode_t e4_group_check_fields(e4_fs *fs, e4_gd_fault_cb cb, void *priv, unsigned *nfaults)
{
	const struct e4_geom *geo = &fs->geom;
	int csum = geo->metadata_csum || geo->gdt_csum;
	struct loc_report r = { cb, priv, 0, 0, 0 };
	uint8_t *holds;

	if (nfaults)
		*nfaults = 0;
	if (!fs->gdt)
		return E4_ERR_BAD_GROUP_NUM;
	holds = calloc(geo->group_count, 1);
	if (!holds)
		return E4_ERR_NO_MEMORY;
	mark_foreign_metadata(fs, holds);
	for (e4_group_t g = 0; g < geo->group_count && !r.stop; g++) {
		struct e4_group d;
		struct e4_gd_fault f = { .group = g }, cf[E4_GD_COUNT_FAULTS_MAX];
		unsigned n;

		e4_group_get(fs, g, &d);
#define FAULT(code, v, l) do { \
		f.err = code; f.value = v; f.limit = l; report(fs, &r, &f); \
	} while (0)
		if (d.flags & ~KNOWN_BG_FLAGS)
			FAULT(E4_ERR_GD_FLAGS, d.flags, KNOWN_BG_FLAGS);
		n = e4_group_count_faults(fs, g, &d, cf);
		for (unsigned k = 0; k < n; k++)
			FAULT(cf[k].err, cf[k].value, cf[k].limit);
		if (!csum)
			continue;
		if ((d.flags & EXT4_BG_BLOCK_UNINIT) && g == geo->group_count - 1)
			FAULT(E4_ERR_GD_BLOCK_UNINIT_LAST, d.flags, 0);
		else if ((d.flags & EXT4_BG_BLOCK_UNINIT) && holds[g])
			FAULT(E4_ERR_GD_BLOCK_UNINIT_META, d.flags, 0);
#undef FAULT
	}
	free(holds);
	if (nfaults)
		*nfaults = r.n;
	return r.first;
}

int e4_group_desc_same_static(e4_fs *fs, const void *a, const void *b)
{
	/* the fields the kernel changes while the filesystem is in use */
#define VAR(first, last) { offsetof(struct ext4_group_desc, first), \
		offsetof(struct ext4_group_desc, last) + 2 }
	static const struct { size_t from, to; } var[] = {
		VAR(bg_free_blocks_count_lo, bg_flags),
		VAR(bg_block_bitmap_csum_lo, bg_checksum),
		VAR(bg_free_blocks_count_hi, bg_itable_unused_hi),
		VAR(bg_block_bitmap_csum_hi, bg_inode_bitmap_csum_hi),
	};
#undef VAR
	const uint8_t *x = a, *y = b;

	for (size_t i = 0, k = 0; i < fs->geom.desc_size; i++) {
		while (k < sizeof(var) / sizeof(var[0]) && i >= var[k].to)
			k++;
		if (k < sizeof(var) / sizeof(var[0]) && i >= var[k].from)
			continue;
		if (x[i] != y[i])
			return 0;
	}
	return 1;
}

/* ---- backup superblocks ----------------------------------------------- */

static int blk_cmp(const void *a, const void *b)
{
	e4_blk_t x = *(const e4_blk_t *)a, y = *(const e4_blk_t *)b;

	return (x > y) - (x < y);
}

size_t e4_backup_sb_locations(unsigned bs, uint32_t bpg, uint64_t dev_bytes,
			      const uint32_t extra[2], e4_blk_t *out, size_t max)
{
	/* groups 1, powers of 3, 5 and 7 below 2^64, the last and two extra */
	e4_blk_t all[1 + 41 + 28 + 23 + 3];
	uint32_t fdb = bs == 1024 ? 1 : 0;
	uint64_t dev_blocks = bs ? dev_bytes / bs : 0, last;
	size_t n = 0, k = 0;

	if (!bpg)
		bpg = 8 * bs;
	/* a group's superblock: its first block, 1024 bytes of it */
	if (bs < 1024 || dev_blocks <= (uint64_t)fdb + bpg)
		return 0;
	last = (dev_blocks - 1 - fdb) / bpg;
	all[n++] = 1;
	for (uint64_t base = 3; base <= 7; base += 2)
		for (uint64_t g = base; g <= last; g *= base)
			all[n++] = g;
	all[n++] = last;
	for (int i = 0; extra && i < 2; i++)
		if (extra[i] && extra[i] <= last)
			all[n++] = extra[i];
	qsort(all, n, sizeof(all[0]), blk_cmp);
	for (size_t i = 0; i < n; i++) {
		if (i && all[i] == all[i - 1])
			continue;
		if (k < max)
			out[k] = fdb + all[i] * bpg;
		k++;
	}
	return k;
}

int e4_super_is_backup_copy(e4_fs *fs)
{
	e4_blk_t b = fs->sb_block;
	e4_group_t g;
	uint32_t nr = e4_le16(fs->sb->s_block_group_nr);

	if (!b || b < fs->geom.first_data_block || b >= fs->geom.blocks_count)
		return 0;
	g = e4_group_of_block(fs, b);
	if (!g || b != e4_group_first_block(fs, g) || !e4_group_has_super(fs, g))
		return 0;
	return nr == 0 || nr == (g < 65535 ? g : 65535);
}

unsigned e4_group_count_faults(e4_fs *fs, e4_group_t g, const struct e4_group *d,
			       struct e4_gd_fault f[E4_GD_COUNT_FAULTS_MAX])
{
	const struct e4_geom *geo = &fs->geom;
	uint32_t ipg = geo->inodes_per_group, span = group_span_clusters(fs, g);
	unsigned n = 0;

#define COUNT_FAULT(code, v, l) do { \
		memset(&f[n], 0, sizeof(f[n])); \
		f[n].group = g; f[n].err = code; f[n].value = v; f[n].limit = l; n++; \
	} while (0)
	if (d->free_blocks > span)
		COUNT_FAULT(E4_ERR_GD_FREE_BLOCKS_COUNT, d->free_blocks, span);
	if (d->free_inodes > ipg)
		COUNT_FAULT(E4_ERR_GD_FREE_INODES_COUNT, d->free_inodes, ipg);
	else if (d->used_dirs > ipg - d->free_inodes)
		COUNT_FAULT(E4_ERR_GD_USED_DIRS, d->used_dirs, ipg - d->free_inodes);
	if ((geo->metadata_csum || geo->gdt_csum) &&
	    d->itable_unused > (d->free_inodes < ipg ? d->free_inodes : ipg))
		COUNT_FAULT(E4_ERR_GD_ITABLE_UNUSED, d->itable_unused,
			    d->free_inodes < ipg ? d->free_inodes : ipg);
#undef COUNT_FAULT
	return n;
}
