/*
 * layout_params.c: the parameters mke2fs's option parsing settles (block
 * and cluster size, features, inode size and count, reserved blocks,
 * journal), from the options, the profile and the size class; feature
 * lists, default journal and orphan file sizes (see e4.h, "layout").
 */
#include "layout_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Features mke2fs accepts with -O (its ok_features). */
static const uint32_t ok_features[3] = {
	EXT4_FEATURE_COMPAT_HAS_JOURNAL | EXT4_FEATURE_COMPAT_RESIZE_INODE |
	EXT4_FEATURE_COMPAT_DIR_INDEX | EXT4_FEATURE_COMPAT_EXT_ATTR |
	EXT4_FEATURE_COMPAT_SPARSE_SUPER2 | EXT4_FEATURE_COMPAT_FAST_COMMIT |
	EXT4_FEATURE_COMPAT_STABLE_INODES | EXT4_FEATURE_COMPAT_ORPHAN_FILE,
	EXT4_FEATURE_INCOMPAT_FILETYPE | EXT4_FEATURE_INCOMPAT_EXTENTS |
	EXT4_FEATURE_INCOMPAT_JOURNAL_DEV | EXT4_FEATURE_INCOMPAT_META_BG |
	EXT4_FEATURE_INCOMPAT_FLEX_BG | EXT4_FEATURE_INCOMPAT_EA_INODE |
	EXT4_FEATURE_INCOMPAT_MMP | EXT4_FEATURE_INCOMPAT_64BIT |
	EXT4_FEATURE_INCOMPAT_INLINE_DATA | EXT4_FEATURE_INCOMPAT_ENCRYPT |
	EXT4_FEATURE_INCOMPAT_CASEFOLD | EXT4_FEATURE_INCOMPAT_CSUM_SEED |
	EXT4_FEATURE_INCOMPAT_LARGEDIR,
	EXT4_FEATURE_RO_COMPAT_LARGE_FILE | EXT4_FEATURE_RO_COMPAT_HUGE_FILE |
	EXT4_FEATURE_RO_COMPAT_DIR_NLINK | EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE |
	EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER | EXT4_FEATURE_RO_COMPAT_GDT_CSUM |
	EXT4_FEATURE_RO_COMPAT_BIGALLOC | EXT4_FEATURE_RO_COMPAT_QUOTA |
	EXT4_FEATURE_RO_COMPAT_METADATA_CSUM | EXT4_FEATURE_RO_COMPAT_PROJECT |
	EXT4_FEATURE_RO_COMPAT_VERITY,
};

int e4_layout_known_type(const struct e4_profile *p, const char *name)
{
	struct e4_profile *own = NULL;
	int r;

	if (!name)
		return 0;
	if (!strcmp(name, "ext2"))
		return 1;
	if (!p && e4_profile_builtin(&own))
		return 0;
	r = e4_lay_prof_has_sub(p ? p : own, "fs_types", name);
	e4_profile_free(own);
	return r;
}

/* Apply one comma-separated edit list to feat[3] (set) / clr[3] (clear). */
static errcode_t edit_features(const char *list, uint32_t set[3], uint32_t clr[3])
{
	char tok[64];
	const char *p = list;

	while (p && *p) {
		const char *e = strpbrk(p, ", \t");
		size_t n = e ? (size_t)(e - p) : strlen(p);
		int neg = 0;
		enum e4_feature_kind kind;
		uint32_t mask;

		if (n == 0) {
			p = e + 1;
			continue;
		}
		if (n >= sizeof(tok))
			return E4_ERR_INVALID_ARGUMENT;
		memcpy(tok, p, n);
		tok[n] = 0;
		p = e ? e + 1 : NULL;
		if (tok[0] == '^' || tok[0] == '-') {
			neg = 1;
			memmove(tok, tok + 1, n);
		} else if (tok[0] == '+') {
			memmove(tok, tok + 1, n);
		}
		if (!strcasecmp(tok, "none") || !strcasecmp(tok, "clear")) {
			for (int k = 0; k < 3; k++) {
				set[k] = 0;
				clr[k] = ~0U;
			}
			continue;
		}
		if (e4_feature_lookup(tok, &kind, &mask))
			return E4_ERR_INVALID_ARGUMENT;
		if (neg) {
			clr[kind] |= mask;
			set[kind] &= ~mask;
		} else {
			set[kind] |= mask;
			clr[kind] &= ~mask;
		}
	}
	return 0;
}

void e4_layout_opts_init(struct e4_layout_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->reserved_percent = -1.0;
	o->num_backup_sb = E4_LAYOUT_AUTO;
	o->journal_blocks = E4_LAYOUT_AUTO;
	o->orphan_file_blocks = E4_LAYOUT_AUTO;
}

errcode_t e4_layout_opts_features(struct e4_layout_opts *o, const char *list)
{
	uint32_t set[3], clr[3];
	errcode_t err;

	memcpy(set, o->feat_set, sizeof(set));
	memcpy(clr, o->feat_clear, sizeof(clr));
	err = edit_features(list, set, clr);
	if (err)
		return err;
	memcpy(o->feat_set, set, sizeof(set));
	memcpy(o->feat_clear, clr, sizeof(clr));
	return 0;
}

uint32_t e4_layout_default_journal_blocks(uint64_t n)
{
	if (n < 2048)
		return 0;
	if (n < 32768)
		return 1024;
	if (n < 256 * 1024)
		return 4096;
	if (n < 512 * 1024)
		return 8192;
	if (n < 4096 * 1024)
		return 16384;
	if (n < 8192 * 1024)
		return 32768;
	if (n < 16384 * 1024)
		return 65536;
	if (n < 32768 * 1024)
		return 131072;
	return 262144;
}

uint32_t e4_layout_default_orphan_blocks(uint64_t n, unsigned cluster_bits)
{
	uint32_t b = 512, mask = (1U << cluster_bits) - 1;

	if (n < 128 * 1024)
		b = 32;
	else if (n < 2 * 1024 * 1024)
		b = (uint32_t)(n / 4096);
	return (b + mask) & ~mask;
}

uint32_t e4_layout_max_orphan_blocks(unsigned block_size)
{
	uint32_t n = block_size ? (uint32_t)((8U << 20) / block_size) : 512;

	return n < 512 ? n : 512;
}

/* What mke2fs uses for a key no profile line sets. */
#define PROF_BASE_FEATURES	"sparse_super,large_file,filetype,resize_inode,dir_index"
#define PROF_DEFAULT_BLOCK_SIZE	4096
#define PROF_DEFAULT_INODE_RATIO 8192

/* ---- the parameters mke2fs's option parsing settles ------------------- */
/* An integer key for the layout's type list: the profile's value (as
 * strtol reads it; a malformed one is ignored, as the reference does), or
 * def. */
static long prof_long(const struct e4_profile *pr, const struct e4_layout *l, const char *key,
		      long def)
{
	const char *types[E4_LAYOUT_MAX_TYPES];
	const char *v;
	char *end;
	long r;

	for (unsigned i = 0; i < l->ntypes; i++)
		types[i] = l->types[i];
	v = e4_profile_lookup(pr, types, l->ntypes, key);
	if (!v || !*v)
		return def;
	errno = 0;
	r = strtol(v, &end, 0);
	if (errno || *end)
		return def;
	return r;
}

static const char *prof_str(const struct e4_profile *pr, const struct e4_layout *l,
			    const char *key)
{
	const char *types[E4_LAYOUT_MAX_TYPES];

	for (unsigned i = 0; i < l->ntypes; i++)
		types[i] = l->types[i];
	return e4_profile_lookup(pr, types, l->ntypes, key);
}

/* err, saying (when the caller asked) that the profile's key was the cause */
static errcode_t prof_bad(const struct e4_layout_opts *o, const char *key, errcode_t err)
{
	if (o->bad_key)
		*o->bad_key = key;
	return err;
}

static void add_type(struct e4_layout *l, const char *name, size_t n)
{
	if (l->ntypes >= E4_LAYOUT_MAX_TYPES || n >= sizeof(l->types[0]))
		return;
	memcpy(l->types[l->ntypes], name, n);
	l->types[l->ntypes][n] = 0;
	l->ntypes++;
}

errcode_t e4_lay_settle_params(const struct e4_layout_opts *o, struct e4_layout *l,
			       struct params *p, const struct e4_profile *pr)
{
	unsigned page = o->page_size ? o->page_size : 4096;
	unsigned bs, inode_ratio, inode_size;
	uint64_t blocks, cs;
	uint32_t set[3] = { 0, 0, 0 }, clr[3] = { 0, 0, 0 };
	const char *ext_type = o->fs_type;
	const char *v;
	errcode_t err;

	memset(p, 0, sizeof(*p));
	if (o->block_size) {
		if (o->block_size < 1024 || o->block_size > 65536 || !is_pow2(o->block_size))
			return E4_ERR_BAD_BLOCK_SIZE;
		if (o->sector_size && o->block_size < o->sector_size)
			return E4_ERR_BAD_BLOCK_SIZE;
		p->log_bs = ilog2(o->block_size) - 10;
	}
	if (o->journal_blocks < -2)
		return E4_ERR_INVALID_ARGUMENT;
	p->journal_req = o->journal_blocks > 0 ? o->journal_blocks : 0;

	/* device size: in the block size known so far (1 KiB if none) */
	if (o->blocks_count) {
		blocks = o->blocks_count;
	} else {
		unsigned ubs = 1024U << p->log_bs;

		blocks = o->dev_bytes / ubs;
		if (page > ubs)
			blocks &= ~((uint64_t)(page / ubs) - 1);
		if (!blocks)
			return E4_ERR_FS_TOO_SMALL;
	}

	/* size class and the list of profile types */
	{
		uint64_t meg = (1024 * 1024) >> (10 + p->log_bs);
		const char *size_type;

		if (blocks < 3 * meg)
			size_type = "floppy";
		else if (blocks < 512 * meg)
			size_type = "small";
		else if (blocks < 4ULL * 1024 * 1024 * meg)
			size_type = "default";
		else if (blocks < 16ULL * 1024 * 1024 * meg)
			size_type = "big";
		else
			size_type = "huge";
		l->size_type = size_type;
		if (!ext_type) {
			ext_type = e4_profile_get(pr, "defaults", NULL, "fs_type");
			if (!ext_type)
				ext_type = "ext2";
			if (!strcmp(ext_type, "ext2") && (o->journal_blocks > 0 ||
			    o->journal_blocks == E4_LAYOUT_JOURNAL_FORCE))
				ext_type = "ext3";
		}
		if (!e4_layout_known_type(pr, ext_type))
			return E4_ERR_INVALID_ARGUMENT;
		l->ntypes = 0;
		add_type(l, ext_type, strlen(ext_type));
		if (!l->ntypes)
			return E4_ERR_INVALID_ARGUMENT;
		l->fs_type = l->types[0];
		{
			const char *s = o->usage_types ? o->usage_types : size_type;

			while (*s) {
				size_t n = strcspn(s, ",");
				char name[32];

				if (n && n < sizeof(name)) {
					memcpy(name, s, n);
					name[n] = 0;
					if (e4_lay_prof_has_sub(pr, "fs_types", name))
						add_type(l, s, n);
				}
				s += n;
				if (*s)
					s++;
			}
		}
	}

	/* features: base, each type's, then the user's edits (or the
	 * profile's default_features without any); revision 0: only the
	 * edits, which may not leave one set (mke2fs 1.47.0 -r 0) */
	l->rev_level = o->good_old_rev ? EXT4_GOOD_OLD_REV : EXT4_DYNAMIC_REV;
	v = prof_str(pr, l, "base_features");
	err = o->good_old_rev ? 0 : edit_features(v ? v : PROF_BASE_FEATURES, set, clr);
	if (err)
		return prof_bad(o, "base_features", err);
	for (unsigned i = 0; !err && !o->good_old_rev && i < l->ntypes; i++) {
		v = e4_profile_get(pr, "fs_types", l->types[i], "features");
		if (v && *v && (err = edit_features(v, set, clr)))
			return prof_bad(o, "features", err);
	}
	if (!err && !o->good_old_rev &&
	    !o->feat_set[0] && !o->feat_set[1] && !o->feat_set[2] &&
	    !o->feat_clear[0] && !o->feat_clear[1] && !o->feat_clear[2]) {
		v = prof_str(pr, l, "default_features");
		if (v && *v && (err = edit_features(v, set, clr)))
			return prof_bad(o, "default_features", err);
	}
	if (err)
		return err;
	for (int k = 0; k < 3; k++) {
		p->feat[k] = (set[k] & ~o->feat_clear[k]) | o->feat_set[k];
		if (o->feat_set[k] & ~ok_features[k])
			return E4_ERR_INVALID_ARGUMENT;
	}
	if (o->good_old_rev && (p->feat[0] || p->feat[1] || p->feat[2] ||
				o->journal_blocks > 0 ||
				o->journal_blocks == E4_LAYOUT_JOURNAL_FORCE))
		return E4_ERR_CONFLICT_REV0;
	if (o->journal_blocks == 0)
		p->feat[0] &= ~EXT4_FEATURE_COMPAT_HAS_JOURNAL;
	if (p->feat[1] & EXT4_FEATURE_INCOMPAT_JOURNAL_DEV)
		return E4_ERR_UNSUPPORTED;
	if (p->feat[2] & (EXT4_FEATURE_RO_COMPAT_QUOTA | EXT4_FEATURE_RO_COMPAT_PROJECT))
		return E4_ERR_UNSUPPORTED;

	/* block size */
	if (!o->block_size) {
		long use = prof_long(pr, l, "blocksize", PROF_DEFAULT_BLOCK_SIZE);

		if (use == -1)
			use = (long)page;
		if (o->sector_size && use < (long)o->sector_size)
			use = (long)o->sector_size;
		if (use < 1024 || use > 65536 || !is_pow2((unsigned)use))
			return prof_bad(o, "blocksize", E4_ERR_BAD_BLOCK_SIZE);
		bs = (unsigned)use;
		blocks /= bs / 1024;
		p->log_bs = ilog2(bs) - 10;
	} else {
		bs = o->block_size;
	}
	if (!blocks)
		return E4_ERR_FS_TOO_SMALL;

	if (blocks > MAX_32 && (p->feat[1] & EXT4_FEATURE_INCOMPAT_64BIT))
		p->feat[0] &= ~EXT4_FEATURE_COMPAT_RESIZE_INODE;
	if (blocks > MAX_32 && !(p->feat[1] & EXT4_FEATURE_INCOMPAT_64BIT))
		return E4_ERR_FS_TOO_BIG;
	if (p->log_bs + 10 + 3 + 32 < 64 &&
	    blocks > (1ULL << (p->log_bs + 10 + 3 + 32)) - 1)
		return E4_ERR_FS_TOO_BIG;

	if (o->journal_blocks > 0 || o->journal_blocks == E4_LAYOUT_JOURNAL_FORCE)
		p->feat[0] |= EXT4_FEATURE_COMPAT_HAS_JOURNAL;
	if (o->reserved_percent < 0) {
		const char *rv = prof_str(pr, l, "reserved_ratio");
		char *end;

		p->reserved_ratio = 5.0;
		if (rv && *rv) {
			double d = strtod(rv, &end);

			if (!*end)
				p->reserved_ratio = d;
		}
		if (p->reserved_ratio < 0 || p->reserved_ratio > 50)
			return prof_bad(o, "reserved_ratio", E4_ERR_INVALID_ARGUMENT);
	} else {
		p->reserved_ratio = o->reserved_percent;
	}
	if (p->reserved_ratio > 50)
		return E4_ERR_INVALID_ARGUMENT;

	if ((p->feat[1] & EXT4_FEATURE_INCOMPAT_64BIT) &&
	    !(p->feat[1] & EXT4_FEATURE_INCOMPAT_EXTENTS))
		return E4_ERR_CONFLICT_NEED_EXTENT;
	if ((p->feat[2] & EXT4_FEATURE_RO_COMPAT_VERITY) &&
	    !(p->feat[1] & EXT4_FEATURE_INCOMPAT_EXTENTS))
		return E4_ERR_CONFLICT_NEED_EXTENT;

	/* cluster size */
	if (p->feat[2] & EXT4_FEATURE_RO_COMPAT_BIGALLOC) {
		cs = o->cluster_size ? o->cluster_size :
		     (uint64_t)prof_long(pr, l, "cluster_size", (long)bs * 16);
		if (cs <= 1024 || cs > (1ULL << 29) || !is_pow2(cs))
			return E4_ERR_BAD_CLUSTER_SIZE;
		p->log_cs = ilog2(cs) - 10;
		if (p->log_cs < p->log_bs)
			return E4_ERR_BAD_CLUSTER_SIZE;
	} else if (o->cluster_size) {
		return E4_ERR_CONFLICT_CLUSTER;
	} else {
		p->log_cs = p->log_bs;
		cs = bs;
	}

	inode_ratio = o->inode_ratio;
	if (inode_ratio) {
		if (inode_ratio < 1024 || inode_ratio > 65536U * 1024)
			return E4_ERR_INVALID_ARGUMENT;
	} else {
		long r = prof_long(pr, l, "inode_ratio", PROF_DEFAULT_INODE_RATIO);

		if (r < 1024 || r > 65536L * 1024)
			return prof_bad(o, "inode_ratio", E4_ERR_INVALID_ARGUMENT);
		inode_ratio = (unsigned)r;
		if (inode_ratio < bs)
			inode_ratio = bs;
		if (inode_ratio < cs)
			inode_ratio = (unsigned)cs;
	}
	l->inode_ratio = inode_ratio;

	if (p->feat[1] & EXT4_FEATURE_INCOMPAT_64BIT)
		p->desc_size = EXT4_MIN_DESC_SIZE_64BIT;
	if (o->desc_size) {
		if (!(p->feat[1] & EXT4_FEATURE_INCOMPAT_64BIT))
			return E4_ERR_BAD_DESC_SIZE;
		if (o->desc_size < EXT4_MIN_DESC_SIZE_64BIT || o->desc_size > EXT4_MAX_DESC_SIZE ||
		    !is_pow2(o->desc_size))
			return E4_ERR_BAD_DESC_SIZE;
		p->desc_size = o->desc_size;
	}
	p->bpg_param = o->blocks_per_group;
	if (p->bpg_param % 8)
		return E4_ERR_BAD_BLOCKS_PER_GROUP;
	if (o->num_backup_sb > 2)
		return E4_ERR_INVALID_ARGUMENT;

	/* -E resize= (computed where mke2fs parses it; nothing without
	 * features) */
	if (o->resize_blocks && !o->good_old_rev) {
		uint64_t bpg = p->bpg_param ? p->bpg_param : (uint64_t)bs * 8;
		unsigned dsz = p->desc_size ? p->desc_size : EXT4_MIN_DESC_SIZE;
		uint64_t gdpb = bs / dsz, ngroups, desc_blocks, rsv_groups;
		int64_t rsv_gdb;

		if (o->resize_blocks <= blocks)
			return E4_ERR_RESIZE_TOO_SMALL;
		ngroups = (uint32_t)div_ceil(blocks, bpg);
		desc_blocks = (ngroups + gdpb - 1) / gdpb;
		rsv_groups = div_ceil(o->resize_blocks, bpg);
		rsv_gdb = (int64_t)(uint32_t)div_ceil(rsv_groups, gdpb) - (int64_t)desc_blocks;
		if (rsv_gdb > (int64_t)(bs / 4))
			rsv_gdb = bs / 4;
		if (rsv_gdb > 0) {
			p->feat[0] |= EXT4_FEATURE_COMPAT_RESIZE_INODE;
			p->rsv_gdt_param = (uint32_t)rsv_gdb;
		}
	}
	p->packed = o->packed_meta_blocks != 0 ||
		    e4_profile_bool(prof_str(pr, l, "packed_meta_blocks")) == 1;

	if ((p->feat[2] & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) &&
	    (p->feat[2] & EXT4_FEATURE_RO_COMPAT_GDT_CSUM))
		p->feat[2] &= ~EXT4_FEATURE_RO_COMPAT_GDT_CSUM;
	if ((p->feat[2] & EXT4_FEATURE_RO_COMPAT_BIGALLOC) &&
	    !(p->feat[1] & EXT4_FEATURE_INCOMPAT_EXTENTS))
		return E4_ERR_CONFLICT_NEED_EXTENT;
	if ((p->feat[1] & EXT4_FEATURE_INCOMPAT_META_BG) &&
	    (p->feat[0] & EXT4_FEATURE_COMPAT_RESIZE_INODE))
		return E4_ERR_CONFLICT_META_BG_RESIZE;
	if ((p->feat[0] & EXT4_FEATURE_COMPAT_RESIZE_INODE) &&
	    !(p->feat[2] & EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER))
		return E4_ERR_CONFLICT_RESIZE_SPARSE;
	if ((p->feat[1] & EXT4_FEATURE_INCOMPAT_CSUM_SEED) &&
	    !(p->feat[2] & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM))
		return E4_ERR_CONFLICT_CSUM_SEED;
	if ((p->feat[0] & EXT4_FEATURE_COMPAT_ORPHAN_FILE) &&
	    !(p->feat[0] & EXT4_FEATURE_COMPAT_HAS_JOURNAL))
		return E4_ERR_CONFLICT_ORPHAN_JOURNAL;

	if (p->bpg_param && (p->bpg_param < 256 || p->bpg_param > 8ULL * bs))
		return E4_ERR_BAD_BLOCKS_PER_GROUP;
	if (p->feat[2] & EXT4_FEATURE_RO_COMPAT_BIGALLOC) {
		p->cpg_param = p->bpg_param;
		p->bpg_param = 0;
	}

	inode_size = o->inode_size;
	if (!inode_size) {
		long r = prof_long(pr, l, "inode_size", 0);

		if (r < 0 || r > 65536)
			return prof_bad(o, "inode_size", E4_ERR_BAD_INODE_SIZE);
		inode_size = (unsigned)r;
	}
	if (p->feat[1] & EXT4_FEATURE_INCOMPAT_FLEX_BG) {
		long pf = prof_long(pr, l, "flex_bg_size", 16);
		uint32_t fsz = o->flex_bg_size ? o->flex_bg_size :
			       (pf > 0 && pf <= (1L << 30) ? (uint32_t)pf : 0);

		if (!is_pow2(fsz))
			return o->flex_bg_size ? E4_ERR_INVALID_ARGUMENT :
			       prof_bad(o, "flex_bg_size", E4_ERR_INVALID_ARGUMENT);
		p->log_flex = ilog2(fsz);
	} else if (o->flex_bg_size) {
		return E4_ERR_CONFLICT_FLEX_BG;
	}
	if (inode_size) {
		if (inode_size < EXT4_GOOD_OLD_INODE_SIZE || inode_size > bs || !is_pow2(inode_size))
			return o->inode_size ? E4_ERR_BAD_INODE_SIZE :
			       prof_bad(o, "inode_size", E4_ERR_BAD_INODE_SIZE);
	}
	if (o->good_old_rev)
		inode_size = EXT4_GOOD_OLD_INODE_SIZE;	/* fixed in revision 0 */
	p->inode_size = inode_size;
	if ((p->feat[1] & EXT4_FEATURE_INCOMPAT_INLINE_DATA) &&
	    (inode_size ? inode_size : EXT4_GOOD_OLD_INODE_SIZE) == EXT4_GOOD_OLD_INODE_SIZE)
		return E4_ERR_CONFLICT_INLINE_ISIZE;

	/* inode count */
	{
		uint64_t n = o->inodes_count;

		if (!n) {
			n = blocks * bs / inode_ratio;
			if (n > MAX_32) {
				if (!(p->feat[1] & EXT4_FEATURE_INCOMPAT_64BIT))
					return E4_ERR_TOO_MANY_INODES;
				n = MAX_32;
			}
		} else if (n > MAX_32) {
			return E4_ERR_TOO_MANY_INODES;
		}
		p->inodes_param = (uint32_t)n;
		if ((uint64_t)p->inodes_param * (inode_size ? inode_size : 128) >= blocks * bs)
			return E4_ERR_TOO_MANY_INODES;
	}
	p->r_blocks = (uint64_t)(p->reserved_ratio * (double)blocks / 100.0);

	if (p->feat[0] & EXT4_FEATURE_COMPAT_SPARSE_SUPER2) {
		long nb = o->num_backup_sb != E4_LAYOUT_AUTO ? o->num_backup_sb :
			  prof_long(pr, l, "num_backup_sb", 2);

		if (nb >= 1)
			p->backup_param[0] = 1;
		if (nb >= 2)
			p->backup_param[1] = ~0U;
	}
	p->journal = (p->feat[0] & EXT4_FEATURE_COMPAT_HAS_JOURNAL) != 0;
	p->blocks = blocks;
	l->dev_blocks = blocks;
	l->raid_stride = o->stride;
	l->raid_stripe_width = o->stripe_width;
	return 0;
}
