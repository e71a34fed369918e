/*
 * features.c: -O.  Which toggles are allowed and the refusal messages
 * follow tune2fs 1.47.0; the toggles e4tune cannot make yet are refused
 * with a reason of their own, before anything is written.
 *
 * Structural changes and their write order:
 *  - uninit_bg on: descriptors get ITABLE_ZEROED, no unused inodes and a
 *    checksum, written (all copies) before the superblock names the
 *    feature (a kernel or fsck that does not know the feature ignores
 *    them).
 *  - uninit_bg off: uninitialised bitmaps are written out and unzeroed
 *    inode tables zeroed first, then descriptors without flags, then the
 *    superblock.
 *  - has_journal on/off: lib/e4/jcreate.c.
 */
#include "tune.h"

#include "crashpoint.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <uuid/uuid.h>

#define C E4_FEAT_COMPAT
#define I E4_FEAT_INCOMPAT
#define R E4_FEAT_RO_COMPAT

/* What tune2fs 1.47.0 lets -O set and clear (per kind). */
static const uint32_t ref_set_ok[3] = {
	EXT4_FEATURE_COMPAT_HAS_JOURNAL | EXT4_FEATURE_COMPAT_DIR_INDEX |
	EXT4_FEATURE_COMPAT_FAST_COMMIT | EXT4_FEATURE_COMPAT_STABLE_INODES |
	EXT4_FEATURE_COMPAT_ORPHAN_FILE,
	EXT4_FEATURE_INCOMPAT_FILETYPE | EXT4_FEATURE_INCOMPAT_EXTENTS |
	EXT4_FEATURE_INCOMPAT_FLEX_BG | EXT4_FEATURE_INCOMPAT_EA_INODE |
	EXT4_FEATURE_INCOMPAT_MMP | EXT4_FEATURE_INCOMPAT_64BIT |
	EXT4_FEATURE_INCOMPAT_ENCRYPT | EXT4_FEATURE_INCOMPAT_CSUM_SEED |
	EXT4_FEATURE_INCOMPAT_LARGEDIR | EXT4_FEATURE_INCOMPAT_CASEFOLD,
	EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER | EXT4_FEATURE_RO_COMPAT_LARGE_FILE |
	EXT4_FEATURE_RO_COMPAT_HUGE_FILE | EXT4_FEATURE_RO_COMPAT_DIR_NLINK |
	EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE | EXT4_FEATURE_RO_COMPAT_GDT_CSUM |
	EXT4_FEATURE_RO_COMPAT_QUOTA | EXT4_FEATURE_RO_COMPAT_METADATA_CSUM |
	EXT4_FEATURE_RO_COMPAT_READONLY | EXT4_FEATURE_RO_COMPAT_PROJECT |
	EXT4_FEATURE_RO_COMPAT_VERITY,
};
static const uint32_t ref_clear_ok[3] = {
	EXT4_FEATURE_COMPAT_HAS_JOURNAL | EXT4_FEATURE_COMPAT_RESIZE_INODE |
	EXT4_FEATURE_COMPAT_DIR_INDEX | EXT4_FEATURE_COMPAT_FAST_COMMIT |
	EXT4_FEATURE_COMPAT_ORPHAN_FILE,
	EXT4_FEATURE_INCOMPAT_FILETYPE | EXT4_FEATURE_INCOMPAT_FLEX_BG |
	EXT4_FEATURE_INCOMPAT_MMP | EXT4_FEATURE_INCOMPAT_64BIT |
	EXT4_FEATURE_INCOMPAT_CSUM_SEED | EXT4_FEATURE_INCOMPAT_CASEFOLD,
	EXT4_FEATURE_RO_COMPAT_LARGE_FILE | EXT4_FEATURE_RO_COMPAT_HUGE_FILE |
	EXT4_FEATURE_RO_COMPAT_DIR_NLINK | EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE |
	EXT4_FEATURE_RO_COMPAT_GDT_CSUM | EXT4_FEATURE_RO_COMPAT_QUOTA |
	EXT4_FEATURE_RO_COMPAT_PROJECT | EXT4_FEATURE_RO_COMPAT_METADATA_CSUM |
	EXT4_FEATURE_RO_COMPAT_READONLY,
};

/* What e4tune does itself (a subset). */
static const uint32_t our_set_ok[3] = {
	EXT4_FEATURE_COMPAT_HAS_JOURNAL | EXT4_FEATURE_COMPAT_DIR_INDEX |
	EXT4_FEATURE_COMPAT_STABLE_INODES | EXT4_FEATURE_COMPAT_FAST_COMMIT,
	EXT4_FEATURE_INCOMPAT_EXTENTS | EXT4_FEATURE_INCOMPAT_CSUM_SEED |
	EXT4_FEATURE_INCOMPAT_LARGEDIR | EXT4_FEATURE_INCOMPAT_ENCRYPT |
	EXT4_FEATURE_INCOMPAT_FLEX_BG | EXT4_FEATURE_INCOMPAT_EA_INODE |
	EXT4_FEATURE_INCOMPAT_CASEFOLD,
	EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER | EXT4_FEATURE_RO_COMPAT_LARGE_FILE |
	EXT4_FEATURE_RO_COMPAT_HUGE_FILE | EXT4_FEATURE_RO_COMPAT_DIR_NLINK |
	EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE | EXT4_FEATURE_RO_COMPAT_GDT_CSUM |
	EXT4_FEATURE_RO_COMPAT_READONLY | EXT4_FEATURE_RO_COMPAT_METADATA_CSUM |
	EXT4_FEATURE_RO_COMPAT_VERITY,
};
static const uint32_t our_clear_ok[3] = {
	EXT4_FEATURE_COMPAT_HAS_JOURNAL | EXT4_FEATURE_COMPAT_DIR_INDEX |
	EXT4_FEATURE_COMPAT_FAST_COMMIT,
	EXT4_FEATURE_INCOMPAT_CSUM_SEED,
	EXT4_FEATURE_RO_COMPAT_HUGE_FILE | EXT4_FEATURE_RO_COMPAT_DIR_NLINK |
	EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE | EXT4_FEATURE_RO_COMPAT_GDT_CSUM |
	EXT4_FEATURE_RO_COMPAT_READONLY | EXT4_FEATURE_RO_COMPAT_METADATA_CSUM,
};

struct fedit {
	uint32_t old[3], set[3], clear[3];	/* clear: bits to clear that were set */
};

static int on(const struct fedit *e, int k, uint32_t m)
{
	return (e->set[k] & m) != 0;
}

static int off(const struct fedit *e, int k, uint32_t m)
{
	return (e->clear[k] & m) != 0;
}

static void sb_features(const struct ext4_super_block *sb, uint32_t f[3])
{
	f[C] = e4_le32(sb->s_feature_compat);
	f[I] = e4_le32(sb->s_feature_incompat);
	f[R] = e4_le32(sb->s_feature_ro_compat);
}

static void sb_set_features(struct ext4_super_block *sb, const uint32_t f[3])
{
	e4_sb_set_features(sb, C, f[C]);
	e4_sb_set_features(sb, I, f[I]);
	e4_sb_set_features(sb, R, f[R]);
}

/* Parse the list left to right; only real changes end up in set/clear. */
static int parse_list(struct tune *t, struct fedit *e)
{
	char *buf = strdup(t->features), *save = NULL, *tok;
	uint32_t want[3];

	if (!buf)
		return 1;
	sb_features(e4_super(t->fs), e->old);
	memcpy(want, e->old, sizeof(want));
	for (tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		int neg = *tok == '^';
		enum e4_feature_kind kind;
		uint32_t mask;

		if (e4_feature_lookup(tok + neg, &kind, &mask)) {
			tune_err(t, 0, "invalid filesystem option set: %s", t->features);
			free(buf);
			return 1;
		}
		if (neg)
			want[kind] &= ~mask;
		else
			want[kind] |= mask;
	}
	free(buf);
	for (int k = 0; k < 3; k++) {
		e->set[k] = want[k] & ~e->old[k];
		e->clear[k] = e->old[k] & ~want[k];
	}
	return 0;
}

static const char *fname(int k, uint32_t m, char *buf)
{
	return e4_feature_name((enum e4_feature_kind)k, m, buf);
}

/* Refuse the first feature e sets (clears) outside set_ok (clear_ok);
 * what is "setting "/"clearing " followed by a format naming the feature. */
static int check_allowed(struct tune *t, const struct fedit *e, const uint32_t set_ok[3],
			 const uint32_t clear_ok[3], const char *what)
{
	char buf[32], fmt[96];

	for (int k = 0; k < 3; k++)
		for (int b = 0; b < 32; b++) {
			uint32_t m = 1U << b;
			const char *verb = (e->set[k] & m) && !(set_ok[k] & m) ? "setting" :
					   (e->clear[k] & m) && !(clear_ok[k] & m) ? "clearing" : NULL;

			if (!verb)
				continue;
			snprintf(fmt, sizeof(fmt), "%s %s", verb, what);
			tune_err(t, 0, fmt, fname(k, m, buf));
			return 1;
		}
	return 0;
}

/* Clearing metadata_csum_seed (metadata_csum staying) when the stored
 * seed is not the UUID's: every checksum must be rewritten. */
static int seed_rewrite(struct tune *t, const struct fedit *e)
{
	const struct ext4_super_block *sb = e4_super(t->fs);

	return off(e, I, EXT4_FEATURE_INCOMPAT_CSUM_SEED) &&
	       (e->old[R] & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) &&
	       !off(e, R, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) &&
	       e4_le32(sb->s_checksum_seed) != e4_crc32c(~0U, sb->s_uuid, 16);
}

/* Refusals, tune2fs's first, then e4tune's own.  Nothing is written. */
static int check(struct tune *t, const struct fedit *e)
{
	e4_fs *fs = t->fs;

	if (check_allowed(t, e, ref_set_ok, ref_clear_ok, "filesystem feature '%s' not supported"))
		return 1;
	/* tune2fs's reasons for the ones it refuses in context */
	if (on(e, I, EXT4_FEATURE_INCOMPAT_64BIT)) {
		tune_err(t, 0, "enabling 64-bit mode needs resize2fs -b");
		return 1;
	}
	if (off(e, I, EXT4_FEATURE_INCOMPAT_64BIT)) {
		tune_err(t, 0, "disabling 64-bit mode needs resize2fs -s");
		return 1;
	}
	if (off(e, I, EXT4_FEATURE_INCOMPAT_FLEX_BG)) {
		tune_err(t, 0, "clearing the flex_bg flag would leave the filesystem inconsistent");
		return 1;
	}
	if (on(e, I, EXT4_FEATURE_INCOMPAT_CSUM_SEED) &&
	    !(e->old[R] & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)) {
		tune_err(t, 0, "setting feature 'metadata_csum_seed' is only supported on "
			 "filesystems with the metadata_csum feature enabled");
		return 1;
	}
	if (on(e, C, EXT4_FEATURE_COMPAT_ORPHAN_FILE) &&
	    !(e->old[C] & EXT4_FEATURE_COMPAT_HAS_JOURNAL)) {
		tune_err(t, 0, "the orphan_file feature can be set only for filesystems with a "
			 "journal");
		return 1;
	}
	if (off(e, C, EXT4_FEATURE_COMPAT_DIR_INDEX) && e4_geom(fs)->metadata_csum) {
		tune_err(t, 0, "clearing dir_index on a metadata_csum filesystem (directory "
			 "checksums rewritten) is not supported by e4tune yet");
		return 1;
	}
	if (seed_rewrite(t, e)) {
		/* the UUID changed since the seed was set: every checksum
		 * follows the UUID's seed from now on (as tune2fs) */
		if (tune_require_fresh(t, "clearing metadata_csum_seed after a UUID change"))
			return 1;
		if ((e->old[C] & EXT4_FEATURE_COMPAT_ORPHAN_FILE) ||
		    (e->old[I] & (EXT4_FEATURE_INCOMPAT_EA_INODE | EXT4_FEATURE_INCOMPAT_INLINE_DATA))) {
			tune_err(t, 0, "clearing metadata_csum_seed after a UUID change with "
				 "orphan_file, ea_inode or inline_data is not supported by e4tune yet");
			return 1;
		}
	}
	if (off(e, C, EXT4_FEATURE_COMPAT_HAS_JOURNAL) && !e4_super(fs)->s_journal_inum &&
	    (e->old[C] & EXT4_FEATURE_COMPAT_HAS_JOURNAL)) {
		tune_err(t, 0, "removing an external journal is not supported by e4tune");
		return 1;
	}
	if (on(e, R, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) ||
	    off(e, R, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)) {
		const char *what = on(e, R, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) ?
				   "enabling" : "disabling";

		if (tune_require_fresh(t, on(e, R, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) ?
				       "enabling metadata_csum" : "disabling metadata_csum"))
			return 1;
		if ((e->old[C] & EXT4_FEATURE_COMPAT_ORPHAN_FILE) ||
		    (e->old[I] & (EXT4_FEATURE_INCOMPAT_EA_INODE | EXT4_FEATURE_INCOMPAT_INLINE_DATA))) {
			tune_err(t, 0, "%s metadata_csum with orphan_file, ea_inode or inline_data is "
				 "not supported by e4tune yet", what);
			return 1;
		}
		if (e->set[I] & EXT4_FEATURE_INCOMPAT_CSUM_SEED || (e->clear[R] & EXT4_FEATURE_RO_COMPAT_GDT_CSUM)) {
			tune_err(t, 0, "metadata_csum can only be toggled alone or with flag-only "
				 "features");
			return 1;
		}
	}
	/* the toggles tune2fs makes that e4tune does not make yet */
	if (check_allowed(t, e, our_set_ok, our_clear_ok,
			  "feature '%s' is not supported by e4tune yet"))
		return 1;
	if (on(e, R, EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER)) {
		tune_err(t, 0, "setting sparse_super needs resize2fs; not supported");
		return 1;
	}
	return 0;
}

/* A second handle on the device whose geometry follows sb (the features
 * being set), for writing descriptors with the new checksum rules. */
static errcode_t shadow_open(struct tune *t, const struct ext4_super_block *sb, e4_fs **ret)
{
	e4_io *io;
	errcode_t err;
	e4_fs *nfs;

	err = e4_io_open(t->device, E4_IO_RW, &io);
	if (err)
		return err;
	err = crashpoint_install(io);
	if (err) {
		e4_io_close(io);
		return err;
	}
	err = e4_io_set_blksize(io, e4_geom(t->fs)->block_size);
	if (err) {
		e4_io_close(io);
		return err;
	}
	err = e4_fs_create(io, t->device, sb, &nfs);
	if (err)
		return err;
	*ret = nfs;
	return 0;
}

static int uninit_bg_on(struct tune *t, const uint32_t newf[3])
{
	e4_fs *fs = t->fs, *nfs;
	struct ext4_super_block nsb;
	const struct e4_geom *geo = e4_geom(fs);
	errcode_t err;

	if (geo->metadata_csum)
		return 0;	/* metadata_csum supersedes it: the bit is dropped */
	memcpy(&nsb, e4_super(fs), sizeof(nsb));
	sb_set_features(&nsb, newf);
	err = shadow_open(t, &nsb, &nfs);
	if (err) {
		tune_err(t, err, "while enabling uninit_bg");
		return 1;
	}
	for (e4_group_t g = 0; g < geo->group_count && !err; g++) {
		struct e4_group gd;

		err = e4_group_get(fs, g, &gd);
		if (err)
			break;
		gd.flags = EXT4_BG_INODE_ZEROED;
		gd.itable_unused = 0;
		err = e4_group_set(nfs, g, &gd);
	}
	if (!err)
		err = e4_gdt_write(nfs);
	if (!err)
		err = e4_flush(nfs);
	e4_close(nfs);
	if (err) {
		tune_err(t, err, "while writing the group descriptors");
		return 1;
	}
	return 0;
}

static int uninit_bg_off(struct tune *t)
{
	e4_fs *fs = t->fs;
	const struct e4_geom *geo = e4_geom(fs);
	unsigned bs = geo->block_size;
	uint8_t *buf = malloc(bs), *zero = calloc(1, bs);
	errcode_t err = 0;

	if (!buf || !zero) {
		free(buf);
		free(zero);
		tune_err(t, E4_ERR_NO_MEMORY, "while disabling uninit_bg");
		return 1;
	}
	/* 1. real bitmaps and zeroed inode tables where they were implied */
	for (e4_group_t g = 0; g < geo->group_count && !err; g++) {
		struct e4_group gd;

		err = e4_group_get(fs, g, &gd);
		if (err)
			break;
		if (gd.flags & EXT4_BG_BLOCK_UNINIT) {
			err = e4_read_block_bitmap(fs, g, buf);
			if (!err)
				err = e4_block_bitmap_write(fs, g, buf);
		}
		if (!err && (gd.flags & EXT4_BG_INODE_UNINIT)) {
			err = e4_read_inode_bitmap(fs, g, buf);
			if (!err)
				err = e4_inode_bitmap_write(fs, g, buf);
		}
		if (!err && !(gd.flags & EXT4_BG_INODE_ZEROED)) {
			/* the unused tail of the inode table may hold garbage */
			uint32_t ipb = bs / geo->inode_size;
			uint32_t used = geo->inodes_per_group -
				(gd.flags & EXT4_BG_INODE_UNINIT ? geo->inodes_per_group
								 : gd.itable_unused);
			uint32_t first = (used + ipb - 1) / ipb;

			for (uint32_t b = first; b < geo->inode_blocks_per_group && !err; b++)
				err = e4_io_pwrite(e4_fs_io(fs), (gd.inode_table + b) * (uint64_t)bs,
						   zero, bs);
		}
		if (err)
			break;
		gd.flags = 0;
		gd.itable_unused = 0;
		err = e4_group_set(fs, g, &gd);
	}
	/* 2. descriptors without flags (still checksummed under the old rules) */
	if (!err)
		err = e4_flush(fs);
	if (!err)
		err = e4_gdt_write(fs);
	if (!err)
		err = e4_flush(fs);
	free(buf);
	free(zero);
	if (err) {
		tune_err(t, err, "while disabling uninit_bg");
		return 1;
	}
	return 0;
}

/* Clearing dir_index: every indexed directory becomes a linear one.
 * Without metadata_csum a dx root reads as "." and a ".." spanning the
 * block, a dx node as one empty entry spanning it: valid linear blocks,
 * so only INDEX_FL goes (the reference leaves it, which e2fsck reports). */
static int drop_index_flags(struct tune *t)
{
	e4_fs *fs = t->fs;
	const struct e4_geom *geo = e4_geom(fs);
	uint8_t *ibm = malloc(geo->block_size);
	errcode_t err = 0;

	if (!ibm) {
		tune_err(t, E4_ERR_NO_MEMORY, "while clearing dir_index");
		return 1;
	}
	for (e4_group_t g = 0; g < geo->group_count && !err; g++) {
		err = e4_read_inode_bitmap(fs, g, ibm);
		for (uint32_t i = 0; !err && i < geo->inodes_per_group; i++) {
			e4_ino_t ino = g * geo->inodes_per_group + i + 1;
			union e4_inode_buf ib;
			uint32_t flags;

			if (!((ibm[i >> 3] >> (i & 7)) & 1) || ino > geo->inodes_count)
				continue;
			err = e4_inode_read(fs, ino, &ib);
			if (err)
				break;
			flags = e4_le32(ib.inode.i_flags);
			if (!e4_is_dir(&ib.inode) || !(flags & EXT4_INDEX_FL))
				continue;
			ib.inode.i_flags = e4_cpu_to_le32(flags & ~EXT4_INDEX_FL);
			err = e4_inode_write(fs, ino, &ib);
		}
	}
	if (!err)
		err = e4_flush(fs);
	free(ibm);
	if (err) {
		tune_err(t, err, "while clearing the index flag of directories");
		return 1;
	}
	return 0;
}

int tune_features_after(struct tune *t, uint32_t f[3])
{
	struct fedit e;

	memset(&e, 0, sizeof(e));
	if (parse_list(t, &e))
		return 1;
	for (int k = 0; k < 3; k++)
		f[k] = (e.old[k] | e.set[k]) & ~e.clear[k];
	return 0;
}

int tune_features_check(struct tune *t)
{
	struct fedit e;

	memset(&e, 0, sizeof(e));
	return parse_list(t, &e) || check(t, &e);
}

int tune_features(struct tune *t)
{
	e4_fs *fs = t->fs;
	struct ext4_super_block *sb = e4_super(fs);
	struct fedit e;
	uint32_t newf[3];
	int rc, reseed;

	memset(&e, 0, sizeof(e));
	if (parse_list(t, &e) || check(t, &e))
		return 1;
	reseed = seed_rewrite(t, &e);

	/* journal removal first: it rewrites the superblock itself */
	if (off(&e, C, EXT4_FEATURE_COMPAT_HAS_JOURNAL)) {
		rc = tune_journal_remove(t);
		if (rc)
			return rc;
		sb_features(sb, e.old);
		e.clear[C] &= ~EXT4_FEATURE_COMPAT_HAS_JOURNAL;
	}
	for (int k = 0; k < 3; k++)
		newf[k] = (e.old[k] | e.set[k]) & ~e.clear[k];
	/* has_journal is set by the journal creation itself */
	newf[C] &= ~(e.set[C] & EXT4_FEATURE_COMPAT_HAS_JOURNAL);
	if (on(&e, C, EXT4_FEATURE_COMPAT_HAS_JOURNAL))
		t->journal = 1;
	if (on(&e, R, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) ||
	    off(&e, R, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)) {
		int want = on(&e, R, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM);
		e4_ino_t bad = 0;
		errcode_t err;

		if (want && !(newf[I] & EXT4_FEATURE_INCOMPAT_EXTENTS))
			printf("Extents are not enabled: block maps cannot be checksummed.\n");
		if (want && !(newf[I] & EXT4_FEATURE_INCOMPAT_64BIT))
			printf("64-bit filesystem support is not enabled: the larger fields that "
			       "carry full 32-bit checksums are not available.\n");
		/* every other feature first, in memory; the rewrite writes the
		 * superblock last */
		newf[R] &= ~(EXT4_FEATURE_RO_COMPAT_METADATA_CSUM | EXT4_FEATURE_RO_COMPAT_GDT_CSUM);
		newf[R] |= e.old[R] & (EXT4_FEATURE_RO_COMPAT_METADATA_CSUM |
				       EXT4_FEATURE_RO_COMPAT_GDT_CSUM);
		if (on(&e, C, EXT4_FEATURE_COMPAT_DIR_INDEX)) {
			int zero = 1;

			for (int i = 0; i < 4; i++)
				if (sb->s_hash_seed[i])
					zero = 0;
			if (!sb->s_def_hash_version)
				sb->s_def_hash_version = DX_HASH_HALF_MD4;
			if (zero)
				uuid_generate((uint8_t *)sb->s_hash_seed);
		}
		sb_set_features(sb, newf);
		err = e4_metadata_csum_set(fs, want, 1, &bad);
		if (err) {
			if (err == E4_ERR_BUFFER_TOO_SMALL)
				tune_err(t, err, "while rewriting checksums: directory inode %u has a "
					 "full block; rebuild it with e2fsck -fD (e4fsck cannot yet) "
					 "and retry", bad);
			else
				tune_err(t, err, "while rewriting checksums (inode %u); run e2fsck -f",
					 bad);
			return 1;
		}
		t->sb_dirty = 0;
		return tune_reopen(t);
	}
	if (on(&e, R, EXT4_FEATURE_RO_COMPAT_GDT_CSUM)) {
		if (e4_geom(fs)->metadata_csum)
			newf[R] &= ~EXT4_FEATURE_RO_COMPAT_GDT_CSUM;
		else if (uninit_bg_on(t, newf))
			return 1;
	}
	if (off(&e, R, EXT4_FEATURE_RO_COMPAT_GDT_CSUM) && !e4_geom(fs)->metadata_csum &&
	    uninit_bg_off(t))
		return 1;
	if (on(&e, C, EXT4_FEATURE_COMPAT_DIR_INDEX)) {
		int zero = 1;

		for (int i = 0; i < 4; i++)
			if (sb->s_hash_seed[i])
				zero = 0;
		if (!sb->s_def_hash_version)
			sb->s_def_hash_version = DX_HASH_HALF_MD4;
		if (zero)
			uuid_generate((uint8_t *)sb->s_hash_seed);
	}
	if (off(&e, C, EXT4_FEATURE_COMPAT_DIR_INDEX) && drop_index_flags(t))
		return 1;
	if (off(&e, R, EXT4_FEATURE_RO_COMPAT_HUGE_FILE)) {
		/* files may carry HUGE_FILE_FL: as the reference, ask for a
		 * check (without requiring a fresh one first, as the reference) */
		e4_sb_state_change(sb, 0, EXT4_VALID_FS);
		printf("Please run e2fsck -f on the filesystem (e4fsck cannot run the full check "
		       "yet).\n");
	}
	if (on(&e, I, EXT4_FEATURE_INCOMPAT_CASEFOLD)) {
		/* the only encoding there is: UTF-8 12.1, not strict */
		sb->s_encoding = e4_cpu_to_le16(1);
		sb->s_encoding_flags = 0;
	}
	if (on(&e, I, EXT4_FEATURE_INCOMPAT_CSUM_SEED))
		sb->s_checksum_seed = e4_cpu_to_le32(e4_csum_seed(fs));
	if (off(&e, I, EXT4_FEATURE_INCOMPAT_CSUM_SEED))
		sb->s_checksum_seed = 0;
	sb_set_features(sb, newf);
	t->sb_dirty = 1;
	/* every checksum now follows the UUID's seed */
	if (reseed)
		return tune_csum_rewrite(t, "with the UUID's seed");
	if ((e.set[R] | e.clear[R]) & EXT4_FEATURE_RO_COMPAT_GDT_CSUM) {
		/* the descriptors follow new rules: write, then start afresh */
		if (tune_write_super(t) || tune_reopen(t))
			return 1;
	}
	return 0;
}
