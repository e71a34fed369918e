/*
 * super.c: opening a filesystem: superblock parsing and validation,
 * geometry, feature policy, loading the group descriptors
 * (format doc sections 1-4).
 */
#include "e4_private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void e4_init_errors(void)
{
	initialize_e4_error_table();
}

uint64_t e4_sb_blocks_count(const struct ext4_super_block *sb)
{
	uint64_t v = e4_le32(sb->s_blocks_count_lo);

	if (e4_le32(sb->s_feature_incompat) & EXT4_FEATURE_INCOMPAT_64BIT)
		v |= (uint64_t)e4_le32(sb->s_blocks_count_hi) << 32;
	return v;
}

uint64_t e4_sb_r_blocks_count(const struct ext4_super_block *sb)
{
	uint64_t v = e4_le32(sb->s_r_blocks_count_lo);

	if (e4_le32(sb->s_feature_incompat) & EXT4_FEATURE_INCOMPAT_64BIT)
		v |= (uint64_t)e4_le32(sb->s_r_blocks_count_hi) << 32;
	return v;
}

uint64_t e4_sb_free_blocks_count(const struct ext4_super_block *sb)
{
	uint64_t v = e4_le32(sb->s_free_blocks_count_lo);

	if (e4_le32(sb->s_feature_incompat) & EXT4_FEATURE_INCOMPAT_64BIT)
		v |= (uint64_t)e4_le32(sb->s_free_blocks_count_hi) << 32;
	return v;
}

int64_t e4_sb_time(uint32_t lo, uint8_t hi)
{
	return (int64_t)((uint64_t)lo | ((uint64_t)hi << 32));
}

/* ---- setters: each field's halves written in one place ----------------- */
static int sb_is_64bit(const struct ext4_super_block *sb)
{
	return (e4_le32(sb->s_feature_incompat) & EXT4_FEATURE_INCOMPAT_64BIT) != 0;
}

static void sb_set_split(const struct ext4_super_block *sb, uint32_t *lo, uint32_t *hi, uint64_t v)
{
	*lo = e4_cpu_to_le32((uint32_t)v);
	if (sb_is_64bit(sb))
		*hi = e4_cpu_to_le32((uint32_t)(v >> 32));
}

void e4_sb_set_blocks_count(struct ext4_super_block *sb, uint64_t blocks)
{
	sb_set_split(sb, &sb->s_blocks_count_lo, &sb->s_blocks_count_hi, blocks);
}

void e4_sb_set_r_blocks_count(struct ext4_super_block *sb, uint64_t blocks)
{
	sb_set_split(sb, &sb->s_r_blocks_count_lo, &sb->s_r_blocks_count_hi, blocks);
}

void e4_sb_set_free_blocks_count(struct ext4_super_block *sb, uint64_t blocks)
{
	sb_set_split(sb, &sb->s_free_blocks_count_lo, &sb->s_free_blocks_count_hi, blocks);
}

void e4_sb_set_free_inodes_count(struct ext4_super_block *sb, uint32_t inodes)
{
	sb->s_free_inodes_count = e4_cpu_to_le32(inodes);
}

void e4_sb_set_time(struct ext4_super_block *sb, enum e4_sb_time_field f, int64_t t)
{
	uint32_t lo = e4_cpu_to_le32((uint32_t)t);
	uint8_t hi = (uint8_t)((uint64_t)t >> 32);

	switch (f) {
	case E4_SB_MTIME: sb->s_mtime = lo; sb->s_mtime_hi = hi; break;
	case E4_SB_WTIME: sb->s_wtime = lo; sb->s_wtime_hi = hi; break;
	case E4_SB_LASTCHECK: sb->s_lastcheck = lo; sb->s_lastcheck_hi = hi; break;
	case E4_SB_MKFS_TIME: sb->s_mkfs_time = lo; sb->s_mkfs_time_hi = hi; break;
	case E4_SB_FIRST_ERROR_TIME:
		sb->s_first_error_time = lo;
		sb->s_first_error_time_hi = hi;
		break;
	case E4_SB_LAST_ERROR_TIME:
		sb->s_last_error_time = lo;
		sb->s_last_error_time_hi = hi;
		break;
	}
}

static uint32_t *sb_feature_word(struct ext4_super_block *sb, enum e4_feature_kind kind)
{
	switch (kind) {
	case E4_FEAT_COMPAT: return &sb->s_feature_compat;
	case E4_FEAT_INCOMPAT: return &sb->s_feature_incompat;
	case E4_FEAT_RO_COMPAT: break;
	}
	return &sb->s_feature_ro_compat;
}

void e4_sb_set_features(struct ext4_super_block *sb, enum e4_feature_kind kind, uint32_t mask)
{
	*sb_feature_word(sb, kind) = e4_cpu_to_le32(mask);
}

void e4_sb_feature_change(struct ext4_super_block *sb, enum e4_feature_kind kind,
			  uint32_t mask, int on)
{
	uint32_t *w = sb_feature_word(sb, kind);
	uint32_t v = e4_le32(*w);

	*w = e4_cpu_to_le32(on ? v | mask : v & ~mask);
}

void e4_sb_state_change(struct ext4_super_block *sb, uint16_t set, uint16_t clear)
{
	sb->s_state = e4_cpu_to_le16((uint16_t)((e4_le16(sb->s_state) & ~clear) | set));
}

void e4_sb_add_kbytes_written(struct ext4_super_block *sb, uint64_t kbytes)
{
	sb->s_kbytes_written = e4_cpu_to_le64(e4_le64(sb->s_kbytes_written) + kbytes);
}

void e4_sb_jnl_backup_set(struct ext4_super_block *sb, const struct ext4_inode *journal)
{
	memcpy(sb->s_jnl_blocks, journal->i_block, sizeof(journal->i_block));
	sb->s_jnl_blocks[15] = journal->i_size_high;
	sb->s_jnl_blocks[16] = journal->i_size_lo;
	sb->s_jnl_backup_type = 1;
}

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* s_min_extra_isize / s_want_extra_isize v for inodes of isize bytes. */
static int extra_isize_ok(unsigned v, unsigned isize)
{
	return !v || (v >= 4 && !(v & 3) && v <= isize - EXT4_GOOD_OLD_INODE_SIZE);
}

errcode_t e4_super_validate(const struct ext4_super_block *sb, uint64_t dev_bytes)
{
	uint32_t log_bs = e4_le32(sb->s_log_block_size);
	uint32_t log_cs = e4_le32(sb->s_log_cluster_size);
	uint32_t incompat = e4_le32(sb->s_feature_incompat);
	uint32_t ro = e4_le32(sb->s_feature_ro_compat);
	uint64_t blocks, groups;
	uint32_t bs, bpg, cpg, ipg, fdb, isize;

	(void)dev_bytes;
	if (e4_le16(sb->s_magic) != EXT4_SUPER_MAGIC)
		return E4_ERR_BAD_MAGIC;
	if (incompat & EXT4_FEATURE_INCOMPAT_JOURNAL_DEV)
		return E4_ERR_JOURNAL_DEV;
	if (e4_le32(sb->s_rev_level) > EXT4_DYNAMIC_REV)
		return E4_ERR_BAD_REV;
	if (log_bs > EXT4_MAX_BLOCK_LOG_SIZE - EXT4_MIN_BLOCK_LOG_SIZE)
		return E4_ERR_BAD_BLOCK_SIZE;
	bs = EXT4_MIN_BLOCK_SIZE << log_bs;
	if (ro & EXT4_FEATURE_RO_COMPAT_BIGALLOC) {
		if (log_cs < log_bs || log_cs > EXT4_MAX_CLUSTER_LOG_SIZE - EXT4_MIN_BLOCK_LOG_SIZE)
			return E4_ERR_BAD_CLUSTER_SIZE;
	} else if (log_cs != log_bs) {
		return E4_ERR_BAD_CLUSTER_SIZE;
	}
	if (e4_le32(sb->s_rev_level) == EXT4_GOOD_OLD_REV) {
		isize = EXT4_GOOD_OLD_INODE_SIZE;
	} else {
		isize = e4_le16(sb->s_inode_size);
		if (isize < EXT4_GOOD_OLD_INODE_SIZE || isize > bs || !is_pow2(isize))
			return E4_ERR_BAD_INODE_SIZE;
	}
	if (incompat & EXT4_FEATURE_INCOMPAT_64BIT) {
		uint32_t ds = e4_le16(sb->s_desc_size);
		if (ds < EXT4_MIN_DESC_SIZE_64BIT || ds > EXT4_MAX_DESC_SIZE || !is_pow2(ds))
			return E4_ERR_BAD_DESC_SIZE;
	}
	blocks = e4_sb_blocks_count(sb);
	fdb = e4_le32(sb->s_first_data_block);
	bpg = e4_le32(sb->s_blocks_per_group);
	cpg = e4_le32(sb->s_clusters_per_group);
	ipg = e4_le32(sb->s_inodes_per_group);
	/* the superblock's block: 1 with 1 KiB blocks (0 allowed for 1 KiB
	 * blocks in larger clusters, as mke2fs makes them), else 0 */
	if (!blocks || fdb >= blocks ||
	    (bs == 1024 ? fdb > 1 || (fdb == 0 && log_cs == log_bs) : fdb != 0))
		return E4_ERR_BAD_GEOMETRY;
	if (ro & EXT4_FEATURE_RO_COMPAT_BIGALLOC) {
		if (!cpg || cpg > 8 * bs || (uint64_t)cpg << (log_cs - log_bs) != bpg)
			return E4_ERR_BAD_GEOMETRY;
	} else if (!bpg || bpg > 8 * bs || cpg != bpg) {
		return E4_ERR_BAD_GEOMETRY;
	}
	if (!ipg || ipg > 8 * bs)
		return E4_ERR_BAD_GEOMETRY;
	groups = (blocks - fdb + bpg - 1) / bpg;
	if (groups > UINT32_MAX || groups * ipg != e4_le32(sb->s_inodes_count))
		return E4_ERR_BAD_GEOMETRY;
	if (e4_le32(sb->s_rev_level) != EXT4_GOOD_OLD_REV &&
	    (e4_le32(sb->s_first_ino) < EXT4_GOOD_OLD_FIRST_INO ||
	     e4_le32(sb->s_first_ino) > e4_le32(sb->s_inodes_count)))
		return E4_ERR_BAD_GEOMETRY;
	if ((incompat & EXT4_FEATURE_INCOMPAT_META_BG) &&
	    e4_le32(sb->s_first_meta_bg) > (groups + bs / 32 - 1) / (bs / 32) + 1)
		return E4_ERR_BAD_GEOMETRY;
	return e4_super_validate_mount(sb);
}

errcode_t e4_super_validate_mount(const struct ext4_super_block *sb)
{
	uint32_t compat = e4_le32(sb->s_feature_compat);
	uint32_t incompat = e4_le32(sb->s_feature_incompat);
	uint32_t ro = e4_le32(sb->s_feature_ro_compat);
	unsigned isize = e4_le32(sb->s_rev_level) == EXT4_GOOD_OLD_REV ?
			 EXT4_GOOD_OLD_INODE_SIZE : e4_le16(sb->s_inode_size);
	uint32_t orphan = e4_le32(sb->s_orphan_file_inum);

	/* e2fsck's bound (the kernel mounts more; e2fsck calls it corrupt) */
	if (e4_sb_r_blocks_count(sb) > e4_sb_blocks_count(sb) / 2)
		return E4_ERR_SB_R_BLOCKS;
	/* the kernel's mballoc refuses a flex group of 2^32 groups or more */
	if ((incompat & EXT4_FEATURE_INCOMPAT_FLEX_BG) && sb->s_log_groups_per_flex >= 32)
		return E4_ERR_SB_GROUPS_PER_FLEX;
	/* extra_isize: both sizes must fit the bytes after the first 128 (the
	 * kernel's rule); 0, or a multiple of 4 from 4 up (e2fsck's) */
	if ((ro & EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE) && isize > EXT4_GOOD_OLD_INODE_SIZE) {
		if (!extra_isize_ok(e4_le16(sb->s_min_extra_isize), isize))
			return E4_ERR_SB_MIN_EXTRA_ISIZE;
		if (!extra_isize_ok(e4_le16(sb->s_want_extra_isize), isize))
			return E4_ERR_SB_WANT_EXTRA_ISIZE;
	}
	if ((ro & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) &&
	    sb->s_checksum_type != EXT4_CRC32C_CHKSUM)
		return E4_ERR_SB_CSUM_TYPE;
	/* the kernel reads the orphan file at mount (a special inode: root
	 * or above, within the inode count) */
	if ((compat & EXT4_FEATURE_COMPAT_ORPHAN_FILE) &&
	    (orphan < EXT4_ROOT_INO || orphan > e4_le32(sb->s_inodes_count)))
		return E4_ERR_SB_ORPHAN_FILE_INUM;
	return 0;
}

int e4_err_is_mount_check(errcode_t err)
{
	return err == E4_ERR_SB_R_BLOCKS || err == E4_ERR_SB_GROUPS_PER_FLEX ||
	       err == E4_ERR_SB_MIN_EXTRA_ISIZE || err == E4_ERR_SB_WANT_EXTRA_ISIZE ||
	       err == E4_ERR_SB_CSUM_TYPE || err == E4_ERR_SB_ORPHAN_FILE_INUM;
}

void e4_geom_from_sb(e4_fs *fs)
{
	struct ext4_super_block *sb = fs->sb;
	struct e4_geom *g = &fs->geom;

	memset(g, 0, sizeof(*g));
	g->log_block_size = e4_le32(sb->s_log_block_size);
	g->block_size = EXT4_MIN_BLOCK_SIZE << g->log_block_size;
	g->cluster_size = EXT4_MIN_BLOCK_SIZE << e4_le32(sb->s_log_cluster_size);
	g->cluster_bits = e4_le32(sb->s_log_cluster_size) - g->log_block_size;
	g->blocks_count = e4_sb_blocks_count(sb);
	g->r_blocks_count = e4_sb_r_blocks_count(sb);
	g->first_data_block = e4_le32(sb->s_first_data_block);
	g->blocks_per_group = e4_le32(sb->s_blocks_per_group);
	g->clusters_per_group = e4_le32(sb->s_clusters_per_group);
	g->inodes_per_group = e4_le32(sb->s_inodes_per_group);
	g->inodes_count = e4_le32(sb->s_inodes_count);
	if (e4_le32(sb->s_rev_level) == EXT4_GOOD_OLD_REV) {
		g->first_ino = EXT4_GOOD_OLD_FIRST_INO;
		g->inode_size = EXT4_GOOD_OLD_INODE_SIZE;
	} else {
		g->first_ino = e4_le32(sb->s_first_ino);
		g->inode_size = e4_le16(sb->s_inode_size);
	}
	g->group_count = (uint32_t)((g->blocks_count - g->first_data_block +
				     g->blocks_per_group - 1) / g->blocks_per_group);
	g->desc_size = (e4_le32(sb->s_feature_incompat) & EXT4_FEATURE_INCOMPAT_64BIT) ?
		       e4_le16(sb->s_desc_size) : EXT4_MIN_DESC_SIZE;
	g->desc_per_block = g->block_size / g->desc_size;
	/* Descriptors lie at a multiple of 8 bytes: a size that is no
	 * multiple (only opened in catastrophic mode) is rounded down for
	 * the stride, as the reference tools do, while the count per block
	 * keeps the size as written. */
	g->desc_size &= ~7u;
	g->desc_blocks = (g->group_count + g->desc_per_block - 1) / g->desc_per_block;
	g->inode_blocks_per_group = (uint32_t)(((uint64_t)g->inodes_per_group * g->inode_size +
						g->block_size - 1) / g->block_size);
	g->metadata_csum = !!(e4_le32(sb->s_feature_ro_compat) & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM);
	g->gdt_csum = !!(e4_le32(sb->s_feature_ro_compat) & EXT4_FEATURE_RO_COMPAT_GDT_CSUM);
}

static void compute_seeds(e4_fs *fs)
{
	struct ext4_super_block *sb = fs->sb;
	int zero = 1;

	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_CSUM_SEED))
		fs->csum_seed = e4_le32(sb->s_checksum_seed);
	else
		fs->csum_seed = e4_crc32c(~0U, sb->s_uuid, sizeof(sb->s_uuid));
	for (int i = 0; i < 4; i++) {
		fs->hash_seed[i] = e4_le32(sb->s_hash_seed[i]);
		if (fs->hash_seed[i])
			zero = 0;
	}
	if (zero) {
		fs->hash_seed[0] = 0x67452301;
		fs->hash_seed[1] = 0xEFCDAB89;
		fs->hash_seed[2] = 0x98BADCFE;
		fs->hash_seed[3] = 0x10325476;
	}
}

int e4_super_fixable(errcode_t err)
{
	return err == E4_ERR_SB_MIN_EXTRA_ISIZE || err == E4_ERR_SB_WANT_EXTRA_ISIZE;
}

/* s_min_extra_isize / s_want_extra_isize that do not fit the inode: what
 * mke2fs writes for the inode size (the fields up to i_projid: 32 bytes
 * past the first 128, or less in a smaller inode). */
static void fix_extra_isize(struct ext4_super_block *sb, struct e4_sb_fix *fixes, unsigned *n)
{
	unsigned isize = e4_le32(sb->s_rev_level) == EXT4_GOOD_OLD_REV ?
			 EXT4_GOOD_OLD_INODE_SIZE : e4_le16(sb->s_inode_size);
	unsigned room = isize > EXT4_GOOD_OLD_INODE_SIZE ? isize - EXT4_GOOD_OLD_INODE_SIZE : 0;
	unsigned want = EXT4_INODE_FIELD_END(i_projid) - EXT4_GOOD_OLD_INODE_SIZE;
	uint16_t *field[2] = { &sb->s_min_extra_isize, &sb->s_want_extra_isize };
	static const char *const name[2] = { "minimum extra inode size",
					     "wanted extra inode size" };

	if (!(e4_le32(sb->s_feature_ro_compat) & EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE) || !room)
		return;
	if (want > room)
		want = room;
	for (int k = 0; k < 2; k++) {
		if (extra_isize_ok(e4_le16(*field[k]), isize))
			continue;
		if (*n < E4_SB_MAX_FIXES) {
			fixes[*n].name = name[k];
			fixes[*n].was = e4_le16(*field[k]);
			fixes[*n].now = want;
			(*n)++;
		}
		*field[k] = e4_cpu_to_le16((uint16_t)want);
	}
}

errcode_t e4_super_fix_geometry(struct ext4_super_block *sb, struct e4_sb_fix *fixes,
				unsigned *nfix)
{
	errcode_t err = e4_super_validate(sb, 0);
	uint32_t log_bs = e4_le32(sb->s_log_block_size);
	unsigned cbits = e4_le32(sb->s_log_cluster_size) - log_bs;
	uint32_t bs = EXT4_MIN_BLOCK_SIZE << log_bs, maxc = 8 * bs;
	uint64_t blocks = e4_sb_blocks_count(sb), groups, span;
	uint32_t fdb = e4_le32(sb->s_first_data_block);
	uint32_t cpg = e4_le32(sb->s_clusters_per_group), bpg = e4_le32(sb->s_blocks_per_group);
	uint32_t ipg = e4_le32(sb->s_inodes_per_group), icount = e4_le32(sb->s_inodes_count);
	int cpg_ok, bpg_ok;
	unsigned n = 0;

	*nfix = 0;
	if ((err != E4_ERR_BAD_GEOMETRY && !e4_super_fixable(err)) || !blocks)
		return err;
	if (err != E4_ERR_BAD_GEOMETRY)
		goto out;
#define FIX(label, field, val, conv) do { \
		if (n < E4_SB_MAX_FIXES) { \
			fixes[n].name = label; \
			fixes[n].was = e4_le32(sb->field); \
			fixes[n].now = (val); \
			n++; \
		} \
		sb->field = conv(val); \
	} while (0)
	/* the superblock's own block decides the first data block */
	if (bs == 1024 ? fdb > 1 || (fdb == 0 && !cbits) : fdb != 0) {
		fdb = (bs == 1024 && !cbits) ? 1 : 0;
		FIX("first data block", s_first_data_block, fdb, e4_cpu_to_le32);
	}
	if (fdb >= blocks)
		goto out;
	span = blocks - fdb;
	/* blocks and clusters per group: one from the other; both unusable
	 * on a filesystem of one group: 8 * block size clusters (mke2fs) */
	cpg_ok = cpg && cpg <= maxc;
	bpg_ok = bpg && !(bpg & ((1u << cbits) - 1)) && (bpg >> cbits) <= maxc;
	if (cpg_ok && bpg_ok && (uint64_t)cpg << cbits != bpg) {
		/* both possible, they disagree: the one whose group count
		 * gives the inode count */
		uint64_t gc = (span + ((uint64_t)cpg << cbits) - 1) / ((uint64_t)cpg << cbits);
		uint64_t gb = (span + bpg - 1) / bpg;
		int c_fits = ipg && gc * ipg == icount, b_fits = ipg && gb * ipg == icount;

		if (c_fits == b_fits)
			goto out;
		cpg_ok = c_fits;
		bpg_ok = b_fits;
	}
	if (cpg_ok && (uint64_t)cpg << cbits != bpg) {
		FIX("blocks per group", s_blocks_per_group, cpg << cbits, e4_cpu_to_le32);
	} else if (!cpg_ok && bpg_ok) {
		FIX("clusters per group", s_clusters_per_group, bpg >> cbits, e4_cpu_to_le32);
	} else if (!cpg_ok) {
		if (span > (uint64_t)maxc << cbits)
			goto out;
		FIX("clusters per group", s_clusters_per_group, maxc, e4_cpu_to_le32);
		FIX("blocks per group", s_blocks_per_group, maxc << cbits, e4_cpu_to_le32);
	}
	bpg = e4_le32(sb->s_blocks_per_group);
	groups = (span + bpg - 1) / bpg;
	/* inodes per group from the inode count only when it is unusable */
	if (!ipg || ipg > 8 * bs) {
		if (icount % groups || !icount || icount / groups > 8 * bs)
			goto out;
		ipg = (uint32_t)(icount / groups);
		FIX("inodes per group", s_inodes_per_group, ipg, e4_cpu_to_le32);
	}
	if (groups * ipg != icount && groups * ipg <= UINT32_MAX)
		FIX("inode count", s_inodes_count, (uint32_t)(groups * ipg), e4_cpu_to_le32);
	if (e4_le32(sb->s_rev_level) != EXT4_GOOD_OLD_REV &&
	    (e4_le32(sb->s_first_ino) < EXT4_GOOD_OLD_FIRST_INO ||
	     e4_le32(sb->s_first_ino) > e4_le32(sb->s_inodes_count)))
		FIX("first inode", s_first_ino, EXT4_GOOD_OLD_FIRST_INO, e4_cpu_to_le32);
#undef FIX
out:
	fix_extra_isize(sb, fixes, &n);
	*nfix = n < E4_SB_MAX_FIXES ? n : E4_SB_MAX_FIXES;
	return e4_super_validate(sb, 0);
}

/* E4_OPEN_FIX_GEOMETRY: the primary superblock in fs->sb fails only its
 * geometry; check its checksum as it is on disk, then repair it in
 * memory (the checksum set for the repaired copy). */
static errcode_t fix_geometry(e4_fs *fs)
{
	errcode_t err;

	if ((e4_le32(fs->sb->s_feature_ro_compat) & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) &&
	    !e4_ignore_csum(fs) && e4_le32(fs->sb->s_checksum) != e4_superblock_csum(fs->sb))
		return E4_ERR_SB_CSUM;
	err = e4_super_fix_geometry(fs->sb, fs->sb_fixes, &fs->sb_nfixes);
	if (err)
		return err;
	if (e4_le32(fs->sb->s_feature_ro_compat) & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
		fs->sb->s_checksum = e4_cpu_to_le32(e4_superblock_csum(fs->sb));
	return 0;
}

unsigned e4_super_fixes(e4_fs *fs, const struct e4_sb_fix **fixes)
{
	*fixes = fs->sb_fixes;
	return fs->sb_nfixes;
}

/* Read the superblock copy at byte offset off and validate it. */
static errcode_t read_super(e4_fs *fs, uint64_t off)
{
	errcode_t err;

	err = e4_io_pread(fs->io, off, fs->sb, EXT4_SUPERBLOCK_SIZE);
	if (err == E4_ERR_SHORT_READ)
		return E4_ERR_BAD_MAGIC;
	if (err)
		return err;
	err = e4_super_validate(fs->sb, e4_io_size(fs->io));
	if ((err == E4_ERR_BAD_GEOMETRY || e4_super_fixable(err)) &&
	    (fs->flags & E4_OPEN_FIX_GEOMETRY) && off == EXT4_SUPERBLOCK_OFFSET)
		return fix_geometry(fs);
	/* Fields only the kernel's mount and e2fsck judge (reading does not
	 * depend on them): a read-only open that did not ask for the
	 * kernel's checks goes on, as the reference inspection tools do. */
	if (e4_err_is_mount_check(err) &&
	    ((fs->flags & (E4_OPEN_CATASTROPHIC | E4_OPEN_NO_MOUNT_CHECKS)) ||
	     !(fs->flags & (E4_OPEN_RW | E4_OPEN_MOUNT_CHECKS))))
		return 0;
	if (err == E4_ERR_BAD_DESC_SIZE && (fs->flags & E4_OPEN_CATASTROPHIC)) {
		/* As the reference's catastrophic mode: a descriptor size that
		 * is no power of two (but holds a 64-byte descriptor) is used
		 * as it is; the rest of the superblock must still be valid. */
		struct ext4_super_block tmp = *fs->sb;
		unsigned ds = e4_le16(fs->sb->s_desc_size);

		if (ds >= EXT4_MIN_DESC_SIZE_64BIT && ds <= EXT4_MAX_DESC_SIZE) {
			tmp.s_desc_size = e4_cpu_to_le16(EXT4_MIN_DESC_SIZE_64BIT);
			err = e4_super_validate(&tmp, e4_io_size(fs->io));
		}
	}
	return err;
}

static errcode_t check_features(e4_fs *fs)
{
	uint32_t c, i, r;

	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_JOURNAL_DEV))
		return E4_ERR_JOURNAL_DEV;
	if (fs->flags & E4_OPEN_FORCE)
		return 0;
	e4_unsupported_features(fs->sb, &c, &i, &r);
	if (i)
		return E4_ERR_UNSUPP_FEATURE;
	if (r && (fs->flags & E4_OPEN_RW))
		return E4_ERR_RO_UNSUPP_FEATURE;
	return 0;
}

/* Read the descriptor table kept with the superblock copy of group
 * sb_group at block sb_blk (0: the primary) into dst (desc_blocks
 * blocks). */
static errcode_t read_gdt(e4_fs *fs, e4_group_t sb_group, e4_blk_t sb_blk, uint8_t *dst)
{
	const struct e4_geom *g = &fs->geom;
	int meta_bg = e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_META_BG);
	errcode_t err;

	for (uint32_t i = 0; i < g->desc_blocks; i++) {
		e4_blk_t b;

		if (sb_blk && !(meta_bg && i >= e4_le32(fs->sb->s_first_meta_bg)))
			b = sb_blk + 1 + i;
		else
			b = e4_group_desc_block(fs, sb_group, i);
		if (b >= g->blocks_count)
			return E4_ERR_GD_BAD_LOCATION;
		err = e4_io_read_blk(fs->io, b, 1, dst + (size_t)i * g->block_size);
		if (err)
			return err;
	}
	return 0;
}

static errcode_t load_gdt(e4_fs *fs)
{
	const struct e4_geom *g = &fs->geom;
	e4_group_t sb_group = fs->sb_block ? e4_group_of_block(fs, fs->sb_block) : 0;

	fs->gdt = calloc(g->desc_blocks, g->block_size);
	if (!fs->gdt)
		return E4_ERR_NO_MEMORY;
	return read_gdt(fs, sb_group, fs->sb_block, fs->gdt);
}

errcode_t e4_gdt_load_copy(e4_fs *fs, e4_group_t g)
{
	const struct e4_geom *geo = &fs->geom;
	e4_group_t own = fs->sb_block ? e4_group_of_block(fs, fs->sb_block) : 0;
	uint8_t *buf;
	errcode_t err;

	if (g >= geo->group_count || !e4_group_has_super(fs, g))
		return E4_ERR_INVALID_ARGUMENT;
	buf = calloc(geo->desc_blocks, geo->block_size);
	if (!buf)
		return E4_ERR_NO_MEMORY;
	if (g == own)
		err = read_gdt(fs, own, fs->sb_block, buf);
	else
		err = read_gdt(fs, g, g ? e4_group_first_block(fs, g) : 0, buf);
	if (err) {
		free(buf);
		return err;
	}
	free(fs->gdt);
	fs->gdt = buf;
	/* bitmaps cached from the other table's locations are not these */
	for (e4_group_t i = 0; fs->block_bitmaps && i < geo->group_count; i++) {
		free(fs->block_bitmaps[i]);
		free(fs->inode_bitmaps[i]);
		fs->block_bitmaps[i] = fs->inode_bitmaps[i] = NULL;
	}
	fs->gdt_copy = g == own ? 0 : g;
	return 0;
}

/* First location fault (e4_group_check_locations' callback). */
static int first_fault(e4_fs *fs, const struct e4_gd_fault *f, void *priv)
{
	(void)fs;
	*(e4_group_t *)priv = f->group;
	return 1;
}

errcode_t e4_check_group_descs(e4_fs *fs, e4_group_t *bad_group)
{
	const struct e4_geom *g = &fs->geom;
	e4_group_t bad = 0;
	errcode_t err;

	err = e4_group_check_locations(fs, first_fault, &bad, NULL);
	if (err) {
		if (bad_group)
			*bad_group = bad;
		return err;
	}
	for (e4_group_t i = 0; i < g->group_count; i++) {
		if (!e4_ignore_csum(fs) && !e4_group_csum_ok(fs, i)) {
			if (bad_group)
				*bad_group = i;
			return E4_ERR_GD_CSUM;
		}
	}
	return 0;
}

errcode_t e4_check_device_size(e4_fs *fs, uint64_t *dev_blocks)
{
	uint64_t n = e4_io_size(fs->io) / fs->geom.block_size;

	if (dev_blocks)
		*dev_blocks = n;
	return fs->geom.blocks_count > n ? E4_ERR_DEVICE_TOO_SMALL : 0;
}

errcode_t e4_device_short_sizes(const char *path, uint64_t *dev_bytes, uint64_t *blocks,
				unsigned *block_size)
{
	struct ext4_super_block sb;
	e4_io *io;
	errcode_t err;

	*dev_bytes = 0;
	*blocks = 0;
	*block_size = 0;
	err = e4_io_open(path, 0, &io);
	if (err)
		return err;
	*dev_bytes = e4_io_size(io);
	if (!e4_io_pread(io, EXT4_SUPERBLOCK_OFFSET, &sb, sizeof(sb)) &&
	    e4_le16(sb.s_magic) == EXT4_SUPER_MAGIC &&
	    e4_le32(sb.s_log_block_size) <= EXT4_MAX_BLOCK_LOG_SIZE - EXT4_MIN_BLOCK_LOG_SIZE) {
		*blocks = e4_sb_blocks_count(&sb);
		*block_size = EXT4_MIN_BLOCK_SIZE << e4_le32(sb.s_log_block_size);
	}
	e4_io_close(io);
	return 0;
}

static void free_fs(e4_fs *fs)
{
	if (!fs)
		return;
	if (fs->block_bitmaps)
		for (uint32_t i = 0; i < fs->geom.group_count; i++)
			free(fs->block_bitmaps[i]);
	if (fs->inode_bitmaps)
		for (uint32_t i = 0; i < fs->geom.group_count; i++)
			free(fs->inode_bitmaps[i]);
	free(fs->block_bitmaps);
	free(fs->inode_bitmaps);
	free(fs->alloc_dirty);
	free(fs->gdt);
	free(fs->sb);
	free(fs->device_name);
	if (fs->io && !fs->io_borrowed)
		e4_io_close(fs->io);
	free(fs);
}

/* e4_open() and e4_open_io(): io is the device (NULL: open path). */
static errcode_t open_fs(e4_io *io, const char *path, int flags, e4_blk_t superblock,
			 unsigned blocksize, e4_fs **ret)
{
	e4_fs *fs;
	errcode_t err;

	e4_init_errors();
	*ret = NULL;
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return E4_ERR_NO_MEMORY;
	fs->flags = flags;
	fs->device_name = strdup(path);
	fs->sb = malloc(EXT4_SUPERBLOCK_SIZE);
	if (!fs->device_name || !fs->sb) {
		err = E4_ERR_NO_MEMORY;
		goto fail;
	}
	if (io) {
		fs->io = io;
		fs->io_borrowed = 1;
	} else {
		err = e4_io_open(path, ((flags & E4_OPEN_RW) ? E4_IO_RW | E4_IO_NO_GROW : 0) |
					       ((flags & E4_OPEN_DIRECT) ? E4_IO_DIRECT : 0),
				 &fs->io);
		if (err)
			goto fail;
	}

	if (!superblock) {
		/* a device that ends before the primary superblock does holds
		 * no filesystem: said as a short device, not as bad magic */
		if (e4_io_size(fs->io) < EXT4_SUPERBLOCK_OFFSET + EXT4_SUPERBLOCK_SIZE)
			err = E4_ERR_DEVICE_TOO_SMALL;
		else
			err = read_super(fs, EXT4_SUPERBLOCK_OFFSET);
	} else if (blocksize) {
		if (blocksize < EXT4_MIN_BLOCK_SIZE || blocksize > EXT4_MAX_BLOCK_SIZE ||
		    !is_pow2(blocksize)) {
			err = E4_ERR_BAD_BLOCK_SIZE;
			goto fail;
		}
		err = read_super(fs, superblock * blocksize);
		if (!err && (EXT4_MIN_BLOCK_SIZE << e4_le32(fs->sb->s_log_block_size)) != (int)blocksize)
			err = E4_ERR_BAD_BLOCK_SIZE;
	} else {
		err = E4_ERR_BAD_MAGIC;
		for (blocksize = EXT4_MIN_BLOCK_SIZE; blocksize <= EXT4_MAX_BLOCK_SIZE; blocksize *= 2) {
			err = read_super(fs, superblock * blocksize);
			if (!err && (EXT4_MIN_BLOCK_SIZE << e4_le32(fs->sb->s_log_block_size)) == (int)blocksize)
				break;
			if (!err)
				err = E4_ERR_BAD_MAGIC;
		}
	}
	if (err)
		goto fail;
	fs->sb_block = superblock;
	e4_geom_from_sb(fs);
	/* Valid on disk (mke2fs -I 8192 on 64 KiB blocks), but larger than
	 * the inode buffers libe4 hands out. */
	if (fs->geom.inode_size > E4_INODE_MAX_SIZE) {
		err = E4_ERR_INODE_TOO_BIG;
		goto fail;
	}
	err = check_features(fs);
	if (err)
		goto fail;
	if (fs->geom.metadata_csum && !e4_ignore_csum(fs) &&
	    e4_le32(fs->sb->s_checksum) != e4_superblock_csum(fs->sb)) {
		err = E4_ERR_SB_CSUM;
		goto fail;
	}
	compute_seeds(fs);
	err = e4_io_set_blksize(fs->io, fs->geom.block_size);
	if (err)
		goto fail;
	err = load_gdt(fs);
	/* descriptors past the end of the device: a truncated image */
	if (err == E4_ERR_SHORT_READ)
		err = E4_ERR_DEVICE_TOO_SMALL;
	if (err && !(flags & E4_OPEN_CATASTROPHIC))
		goto fail;
	fs->block_bitmaps = calloc(fs->geom.group_count, sizeof(uint8_t *));
	fs->inode_bitmaps = calloc(fs->geom.group_count, sizeof(uint8_t *));
	if (!fs->block_bitmaps || !fs->inode_bitmaps) {
		err = E4_ERR_NO_MEMORY;
		goto fail;
	}
	*ret = fs;
	return 0;
fail:
	free_fs(fs);
	return err;
}

errcode_t e4_open(const char *path, int flags, e4_blk_t superblock,
		  unsigned blocksize, e4_fs **ret)
{
	return open_fs(NULL, path, flags, superblock, blocksize, ret);
}

errcode_t e4_open_io(e4_io *io, const char *name, int flags, e4_blk_t superblock,
		     unsigned blocksize, e4_fs **ret)
{
	return open_fs(io, name, flags, superblock, blocksize, ret);
}

errcode_t e4_flush(e4_fs *fs)
{
	return e4_io_flush(fs->io);
}

errcode_t e4_close(e4_fs *fs)
{
	errcode_t err = 0;

	if (!fs)
		return 0;
	if (fs->flags & E4_OPEN_RW)
		err = e4_flush(fs);
	free_fs(fs);
	return err;
}

const char *e4_device_name(e4_fs *fs) { return fs->device_name; }
int e4_open_flags(e4_fs *fs) { return fs->flags; }
e4_io *e4_fs_io(e4_fs *fs) { return fs->io; }
struct ext4_super_block *e4_super(e4_fs *fs) { return fs->sb; }
const struct e4_geom *e4_geom(e4_fs *fs) { return &fs->geom; }

int e4_has_compat(e4_fs *fs, uint32_t mask)
{
	return (e4_le32(fs->sb->s_feature_compat) & mask) != 0;
}

int e4_has_incompat(e4_fs *fs, uint32_t mask)
{
	return (e4_le32(fs->sb->s_feature_incompat) & mask) != 0;
}

int e4_has_ro_compat(e4_fs *fs, uint32_t mask)
{
	return (e4_le32(fs->sb->s_feature_ro_compat) & mask) != 0;
}

errcode_t e4_read_block(e4_fs *fs, e4_blk_t blk, void *buf)
{
	if (blk >= fs->geom.blocks_count)
		return E4_ERR_BAD_BLOCK_NUM;
	return e4_io_read_blk(fs->io, blk, 1, buf);
}

errcode_t e4_super_write(e4_fs *fs)
{
	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (e4_le32(fs->sb->s_feature_ro_compat) & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
		fs->sb->s_checksum = e4_cpu_to_le32(e4_superblock_csum(fs->sb));
	return e4_super_write_as_is(fs);
}

errcode_t e4_super_write_as_is(e4_fs *fs)
{
	unsigned bs = fs->geom.block_size;
	e4_blk_t blk = EXT4_SUPERBLOCK_OFFSET / bs;
	uint8_t *buf;
	errcode_t err;

	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (fs->sb_hold)	/* e4_super_hold(): the copy in memory only */
		return 0;
	buf = malloc(bs);
	if (!buf)
		return E4_ERR_NO_MEMORY;
	err = e4_io_read_blk(fs->io, blk, 1, buf);
	if (!err) {
		memcpy(buf + EXT4_SUPERBLOCK_OFFSET % bs, fs->sb, EXT4_SUPERBLOCK_SIZE);
		err = e4_io_write_blk(fs->io, blk, 1, buf);
	}
	free(buf);
	return err;
}

int e4_super_update_dynamic_rev(struct ext4_super_block *sb)
{
	if (e4_le32(sb->s_rev_level) != EXT4_GOOD_OLD_REV)
		return 0;
	/* the values revision 0 implies, now written down */
	sb->s_rev_level = e4_cpu_to_le32(EXT4_DYNAMIC_REV);
	sb->s_first_ino = e4_cpu_to_le32(EXT4_GOOD_OLD_FIRST_INO);
	sb->s_inode_size = e4_cpu_to_le16(EXT4_GOOD_OLD_INODE_SIZE);
	return 1;
}

/* e4_super_mark_unclean(); ordered: ordering points around the write
 * instead of flushes. */
static errcode_t mark_unclean(e4_fs *fs, int ordered)
{
	unsigned bs = fs->geom.block_size;
	e4_blk_t blk = EXT4_SUPERBLOCK_OFFSET / bs;
	struct ext4_super_block *dsb;
	uint8_t *buf;
	errcode_t err;

	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	buf = malloc(bs);
	if (!buf)
		return E4_ERR_NO_MEMORY;
	/* what is on the device: anything still in the cache goes out first
	 * (ordered: before this write; the cache reads as the device will) */
	err = ordered ? e4_io_barrier(fs->io) : e4_io_flush(fs->io);
	if (!err)
		err = e4_io_read_blk(fs->io, blk, 1, buf);
	dsb = (struct ext4_super_block *)(buf + EXT4_SUPERBLOCK_OFFSET % bs);
	if (!err && (e4_le16(dsb->s_state) & EXT4_VALID_FS)) {
		e4_sb_state_change(dsb, 0, EXT4_VALID_FS);
		if (e4_le32(dsb->s_feature_ro_compat) & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
			dsb->s_checksum = e4_cpu_to_le32(e4_superblock_csum(dsb));
		err = e4_io_write_blk(fs->io, blk, 1, buf);
		if (!err)
			err = ordered ? e4_io_barrier(fs->io) : e4_io_flush(fs->io);
	}
	free(buf);
	return err;
}

void e4_super_hold(e4_fs *fs, int hold)
{
	fs->sb_hold = !!hold;
}

errcode_t e4_super_mark_unclean(e4_fs *fs)
{
	return mark_unclean(fs, 0);
}

errcode_t e4_super_mark_unclean_ordered(e4_fs *fs)
{
	return mark_unclean(fs, 1);
}
