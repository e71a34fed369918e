/*
 * feature.c: the one table of ext2/3/4 features (names as e2fsprogs spells
 * them, format doc section 3) and the jbd2 feature names.
 */
#include "e4_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define C E4_FEAT_COMPAT
#define I E4_FEAT_INCOMPAT
#define R E4_FEAT_RO_COMPAT

/* name, kind, mask, Linux, e2fsprogs, libe4 reads it.  The first entry
 * for a bit is its canonical name; later entries are aliases. */
static const struct e4_feature features[] = {
	{ "dir_prealloc",	C, EXT4_FEATURE_COMPAT_DIR_PREALLOC,	"2.2",  "1.12", 1 },
	{ "imagic_inodes",	C, EXT4_FEATURE_COMPAT_IMAGIC_INODES,	"2.2",  "1.19", 1 },
	{ "has_journal",	C, EXT4_FEATURE_COMPAT_HAS_JOURNAL,	"2.4",  "1.19", 1 },
	{ "ext_attr",		C, EXT4_FEATURE_COMPAT_EXT_ATTR,	"2.6",  "1.28", 1 },
	{ "resize_inode",	C, EXT4_FEATURE_COMPAT_RESIZE_INODE,	"2.6.10", "1.36", 1 },
	{ "dir_index",		C, EXT4_FEATURE_COMPAT_DIR_INDEX,	"2.6",  "1.33", 1 },
	{ "lazy_bg",		C, EXT4_FEATURE_COMPAT_LAZY_BG,		"-",    "1.40", 1 },
	{ "exclude_inode",	C, EXT4_FEATURE_COMPAT_EXCLUDE_INODE,	"-",    "1.42", 1 },
	{ "snapshot_bitmap",	C, EXT4_FEATURE_COMPAT_EXCLUDE_BITMAP,	"-",    "1.42", 1 },
	{ "sparse_super2",	C, EXT4_FEATURE_COMPAT_SPARSE_SUPER2,	"3.16", "1.42.10", 1 },
	{ "fast_commit",	C, EXT4_FEATURE_COMPAT_FAST_COMMIT,	"5.10", "1.46", 1 },
	{ "stable_inodes",	C, EXT4_FEATURE_COMPAT_STABLE_INODES,	"5.5",  "1.45.6", 1 },
	{ "orphan_file",	C, EXT4_FEATURE_COMPAT_ORPHAN_FILE,	"5.15", "1.47", 1 },

	{ "sparse_super",	R, EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER,	"2.2",  "1.12", 1 },
	{ "large_file",		R, EXT4_FEATURE_RO_COMPAT_LARGE_FILE,	"2.4",  "1.19", 1 },
	{ "huge_file",		R, EXT4_FEATURE_RO_COMPAT_HUGE_FILE,	"2.6.26", "1.41", 1 },
	{ "uninit_bg",		R, EXT4_FEATURE_RO_COMPAT_GDT_CSUM,	"2.6.26", "1.41", 1 },
	{ "uninit_groups",	R, EXT4_FEATURE_RO_COMPAT_GDT_CSUM,	"2.6.26", "1.41", 1 },
	{ "dir_nlink",		R, EXT4_FEATURE_RO_COMPAT_DIR_NLINK,	"2.6.23", "1.41", 1 },
	{ "extra_isize",	R, EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE,	"2.6.23", "1.41", 1 },
	{ "snapshot",		R, EXT4_FEATURE_RO_COMPAT_HAS_SNAPSHOT,	"-",    "1.42", 1 },
	{ "quota",		R, EXT4_FEATURE_RO_COMPAT_QUOTA,	"3.6",  "1.42", 1 },
	{ "bigalloc",		R, EXT4_FEATURE_RO_COMPAT_BIGALLOC,	"3.2",  "1.42", 1 },
	{ "metadata_csum",	R, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM, "3.18", "1.43", 1 },
	{ "replica",		R, EXT4_FEATURE_RO_COMPAT_REPLICA,	"-",    "1.42.10", 1 },
	{ "read-only",		R, EXT4_FEATURE_RO_COMPAT_READONLY,	"4.3",  "1.43", 1 },
	{ "project",		R, EXT4_FEATURE_RO_COMPAT_PROJECT,	"4.5",  "1.43", 1 },
	{ "shared_blocks",	R, EXT4_FEATURE_RO_COMPAT_SHARED_BLOCKS, "-",   "1.44", 1 },
	{ "verity",		R, EXT4_FEATURE_RO_COMPAT_VERITY,	"5.4",  "1.45.5", 1 },
	{ "orphan_present",	R, EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT, "5.15", "1.47", 1 },

	{ "compression",	I, EXT4_FEATURE_INCOMPAT_COMPRESSION,	"-",    "1.19", 0 },
	{ "filetype",		I, EXT4_FEATURE_INCOMPAT_FILETYPE,	"2.2",  "1.16", 1 },
	{ "needs_recovery",	I, EXT4_FEATURE_INCOMPAT_RECOVER,	"2.4",  "1.19", 1 },
	{ "journal_dev",	I, EXT4_FEATURE_INCOMPAT_JOURNAL_DEV,	"2.4",  "1.19", 1 },
	{ "meta_bg",		I, EXT4_FEATURE_INCOMPAT_META_BG,	"2.6",  "1.33", 1 },
	{ "extent",		I, EXT4_FEATURE_INCOMPAT_EXTENTS,	"2.6.23", "1.41", 1 },
	{ "extents",		I, EXT4_FEATURE_INCOMPAT_EXTENTS,	"2.6.23", "1.41", 1 },
	{ "64bit",		I, EXT4_FEATURE_INCOMPAT_64BIT,		"2.6.28", "1.42", 1 },
	{ "mmp",		I, EXT4_FEATURE_INCOMPAT_MMP,		"3.0",  "1.42", 1 },
	{ "flex_bg",		I, EXT4_FEATURE_INCOMPAT_FLEX_BG,	"2.6.28", "1.41", 1 },
	{ "ea_inode",		I, EXT4_FEATURE_INCOMPAT_EA_INODE,	"4.13", "1.44", 1 },
	{ "dirdata",		I, EXT4_FEATURE_INCOMPAT_DIRDATA,	"-",    "1.42", 0 },
	{ "metadata_csum_seed",	I, EXT4_FEATURE_INCOMPAT_CSUM_SEED,	"4.4",  "1.43", 1 },
	{ "large_dir",		I, EXT4_FEATURE_INCOMPAT_LARGEDIR,	"4.13", "1.44", 1 },
	{ "inline_data",	I, EXT4_FEATURE_INCOMPAT_INLINE_DATA,	"3.8",  "1.43", 1 },
	{ "encrypt",		I, EXT4_FEATURE_INCOMPAT_ENCRYPT,	"4.1",  "1.43", 1 },
	{ "casefold",		I, EXT4_FEATURE_INCOMPAT_CASEFOLD,	"5.2",  "1.45", 1 },
	{ "fname_encoding",	I, EXT4_FEATURE_INCOMPAT_CASEFOLD,	"5.2",  "1.45", 1 },
	{ NULL, 0, 0, NULL, NULL, 0 }
};

static const struct {
	enum e4_feature_kind kind;
	uint32_t mask;
	const char *name;
} jfeatures[] = {
	{ C, JBD2_FEATURE_COMPAT_CHECKSUM,		"journal_checksum" },
	{ I, JBD2_FEATURE_INCOMPAT_REVOKE,		"journal_incompat_revoke" },
	{ I, JBD2_FEATURE_INCOMPAT_64BIT,		"journal_64bit" },
	{ I, JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT,	"journal_async_commit" },
	{ I, JBD2_FEATURE_INCOMPAT_CSUM_V2,		"journal_checksum_v2" },
	{ I, JBD2_FEATURE_INCOMPAT_CSUM_V3,		"journal_checksum_v3" },
	{ 0, 0, NULL }
};

const struct e4_feature *e4_feature_table(void)
{
	return features;
}

static const char kind_char[] = { 'C', 'I', 'R' };

static int bit_of(uint32_t mask)
{
	int b = 0;

	while (b < 32 && !(mask & (1u << b)))
		b++;
	return b;
}

const char *e4_feature_name(enum e4_feature_kind kind, uint32_t mask, char *buf)
{
	for (const struct e4_feature *f = features; f->name; f++)
		if (f->kind == kind && f->mask == mask)
			return f->name;
	snprintf(buf, 16, "FEATURE_%c%d", kind_char[kind % 3], bit_of(mask));
	return buf;
}

const char *e4_jfeature_name(enum e4_feature_kind kind, uint32_t mask, char *buf)
{
	for (unsigned i = 0; jfeatures[i].name; i++)
		if (jfeatures[i].kind == kind && jfeatures[i].mask == mask)
			return jfeatures[i].name;
	snprintf(buf, 16, "FEATURE_%c%d", kind_char[kind % 3], bit_of(mask));
	return buf;
}

errcode_t e4_feature_lookup(const char *name, enum e4_feature_kind *kind, uint32_t *mask)
{
	for (const struct e4_feature *f = features; f->name; f++) {
		if (!strcasecmp(name, f->name)) {
			*kind = f->kind;
			*mask = f->mask;
			return 0;
		}
	}
	if (!strncasecmp(name, "FEATURE_", 8) && name[8]) {
		const char *k = strchr("CIRcir", name[8]);
		char *end;
		long bit;

		if (!k)
			return E4_ERR_INVALID_ARGUMENT;
		bit = strtol(name + 9, &end, 10);
		if (end == name + 9 || *end || bit < 0 || bit > 31)
			return E4_ERR_INVALID_ARGUMENT;
		*kind = (enum e4_feature_kind)((k - "CIRcir") % 3);
		*mask = 1u << bit;
		return 0;
	}
	return E4_ERR_INVALID_ARGUMENT;
}

void e4_unsupported_features(const struct ext4_super_block *sb, uint32_t *compat,
			     uint32_t *incompat, uint32_t *ro_compat)
{
	uint32_t known[3] = { 0, 0, 0 };

	for (const struct e4_feature *f = features; f->name; f++)
		if (f->read_support)
			known[f->kind] |= f->mask;
	*compat = e4_le32(sb->s_feature_compat) & ~known[E4_FEAT_COMPAT];
	*incompat = e4_le32(sb->s_feature_incompat) & ~known[E4_FEAT_INCOMPAT];
	*ro_compat = e4_le32(sb->s_feature_ro_compat) & ~known[E4_FEAT_RO_COMPAT];
}
