/*
 * super_check.c: superblock-level checks (format doc sections 2 and 4):
 * times in the future, group descriptor locations, free counts and
 * checksums, flags the features do not allow, errors recorded by the
 * kernel, and the superblock's summary counts against the descriptors.
 * Geometry itself is validated by e4_open() (a superblock that fails it
 * makes e4fsck use a backup, main.c).
 */
#include "e4fsck.h"

#include <string.h>

static void check_time(struct e4fsck *ctx, uint32_t *lo, uint8_t *hi, int code)
{
	struct problem_ctx pctx = { 0 };
	int64_t t = e4_sb_time(e4_le32(*lo), *hi);

	if (t <= ctx->now)
		return;
	pctx.num = (uint64_t)t;
	if (fix_problem(ctx, code, &pctx)) {
		*lo = e4_cpu_to_le32((uint32_t)ctx->now);
		*hi = (uint8_t)((uint64_t)ctx->now >> 32);
		ctx->sb_dirty = 1;
	}
}

errcode_t e4fsck_sync_free_counts(struct e4fsck *ctx, int *changed)
{
	e4_fs *fs = ctx->fs;
	struct ext4_super_block *sb = e4_super(fs);
	const struct e4_geom *geo = e4_geom(fs);
	uint64_t free_clusters = 0, free_blocks;
	uint64_t free_inodes = 0;
	struct e4_group g;
	errcode_t err;

	*changed = 0;
	for (e4_group_t i = 0; i < geo->group_count; i++) {
		err = e4_group_get(fs, i, &g);
		if (err)
			return err;
		free_clusters += g.free_blocks;
		free_inodes += g.free_inodes;
	}
	free_blocks = free_clusters << geo->cluster_bits;
	if (free_blocks > geo->blocks_count || free_inodes > geo->inodes_count)
		return 0;	/* descriptors are not to be trusted: leave them */
	if (e4_sb_free_blocks_count(sb) != free_blocks) {
		sb->s_free_blocks_count_lo = e4_cpu_to_le32((uint32_t)free_blocks);
		if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_64BIT))
			sb->s_free_blocks_count_hi = e4_cpu_to_le32((uint32_t)(free_blocks >> 32));
		*changed = 1;
	}
	if (e4_le32(sb->s_free_inodes_count) != free_inodes) {
		sb->s_free_inodes_count = e4_cpu_to_le32((uint32_t)free_inodes);
		*changed = 1;
	}
	return 0;
}

/* Group i's free counts against its bitmaps (e4_group_count_free(),
 * BLOCK_UNINIT / INODE_UNINIT respected): a count that disagrees is set
 * to the bitmap's, never to a guess.  A bitmap that cannot be read or
 * fails its checksum is left to the full check. */
static void recount_group(struct e4fsck *ctx, e4_group_t i, struct e4_group *g, int *dirty)
{
	struct problem_ctx pctx = { 0 };
	uint32_t fb, fi;
	errcode_t err;

	pctx.group = i;
	err = e4_group_count_free(ctx->fs, i, &fb, &fi);
	if (err) {
		pctx.err = err;
		fix_problem(ctx, PR_0_GD_BITMAP_UNUSABLE, &pctx);
		return;
	}
	if (g->free_blocks != fb) {
		pctx.num = g->free_blocks;
		pctx.num2 = fb;
		if (fix_problem(ctx, PR_0_GD_FREE_BLOCKS, &pctx)) {
			g->free_blocks = fb;
			*dirty = 1;
		}
	}
	if (g->free_inodes != fi) {
		pctx.num = g->free_inodes;
		pctx.num2 = fi;
		if (fix_problem(ctx, PR_0_GD_FREE_INODES, &pctx)) {
			g->free_inodes = fi;
			*dirty = 1;
		}
	}
}

/* Descriptor flags, checksums and free counts.  Locations were judged at
 * open (main.c: an unsound table is never used for this). */
static errcode_t check_groups(struct e4fsck *ctx)
{
	e4_fs *fs = ctx->fs;
	const struct e4_geom *geo = e4_geom(fs);
	/* an unreplayed journal (-n) holds newer bitmaps than the disk */
	int recount = !e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_RECOVER);
	struct problem_ctx pctx;
	struct e4_group g;
	int gd_dirty = 0;
	errcode_t err;
	unsigned bad_csum = 0;

	for (e4_group_t i = 0; i < geo->group_count; i++) {
		int changed = 0;

		err = e4_group_get(fs, i, &g);
		if (err)
			return err;
		memset(&pctx, 0, sizeof(pctx));
		pctx.group = i;
		if (!geo->metadata_csum && !geo->gdt_csum &&
		    (g.flags & (EXT4_BG_INODE_UNINIT | EXT4_BG_BLOCK_UNINIT))) {
			if (fix_problem(ctx, PR_0_GD_UNINIT_FLAGS, &pctx)) {
				g.flags &= ~(EXT4_BG_INODE_UNINIT | EXT4_BG_BLOCK_UNINIT);
				changed = 1;
			}
		}
		if (!e4_group_csum_ok(fs, i) && bad_csum < 1000) {
			const void *raw = e4_group_desc_raw(fs, i);

			pctx.num = raw ? e4_le16(((const struct ext4_group_desc *)raw)->bg_checksum) : 0;
			pctx.num2 = raw ? e4_group_desc_csum(fs, i, raw) : 0;
			bad_csum++;
			if (fix_problem(ctx, PR_0_GD_CSUM, &pctx)) {
				e4_group_csum_set(fs, i);
				gd_dirty = 1;
			}
		}
		if (changed) {
			err = e4_group_set(fs, i, &g);
			if (err)
				return err;
			gd_dirty = 1;
			changed = 0;
		}
		if (recount)
			recount_group(ctx, i, &g, &changed);
		if (changed) {
			err = e4_group_set(fs, i, &g);
			if (err)
				return err;
			gd_dirty = 1;
		}
	}
	if (gd_dirty && !ctx->read_only) {
		err = e4_flush_primary(fs, 1);
		if (err)
			return err;
	}
	return 0;
}

/* An internal journal named together with an external one (a UUID or
 * device left by an earlier journal): the kernel uses the inode (and
 * refuses to mount when s_journal_dev is set too); the stale name is
 * cleared.  e2fsck 1.47 goes looking for the external journal instead. */
static void check_journal_name(struct e4fsck *ctx)
{
	struct ext4_super_block *sb = e4_super(ctx->fs);
	static const uint8_t zero[16];
	struct problem_ctx pctx = { 0 };
	int uuid = memcmp(sb->s_journal_uuid, zero, sizeof(zero)) != 0;
	uint32_t dev = e4_le32(sb->s_journal_dev);
	char what[64];

	if (!e4_has_compat(ctx->fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL) ||
	    !sb->s_journal_inum || (!uuid && !dev))
		return;
	snprintf(what, sizeof(what), "%s%s%s", uuid ? "s_journal_uuid" : "",
		 uuid && dev ? " and " : "", dev ? "s_journal_dev" : "");
	pctx.ino = e4_le32(sb->s_journal_inum);
	pctx.str = what;
	if (fix_problem(ctx, PR_0_JOURNAL_STALE_NAME, &pctx) && !ctx->read_only) {
		memset(sb->s_journal_uuid, 0, sizeof(sb->s_journal_uuid));
		sb->s_journal_dev = 0;
		ctx->sb_dirty = 1;
	}
}

errcode_t e4fsck_check_super(struct e4fsck *ctx)
{
	e4_fs *fs = ctx->fs;
	struct ext4_super_block *sb = e4_super(fs);
	struct problem_ctx pctx = { 0 };
	errcode_t err;

	if (!ctx->read_only) {
		check_time(ctx, &sb->s_mtime, &sb->s_mtime_hi, PR_0_FUTURE_SB_LAST_MOUNT);
		check_time(ctx, &sb->s_wtime, &sb->s_wtime_hi, PR_0_FUTURE_SB_LAST_WRITE);
	}
	if (e4_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT) &&
	    !e4_has_compat(fs, EXT4_FEATURE_COMPAT_ORPHAN_FILE) &&
	    fix_problem(ctx, PR_0_ORPHAN_PRESENT_NO_FILE, &pctx)) {
		sb->s_feature_ro_compat = e4_cpu_to_le32(e4_le32(sb->s_feature_ro_compat) &
							 ~EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT);
		ctx->sb_dirty = 1;
	}
	check_journal_name(ctx);
	/* Descriptors read from a backup are as old as the backup: judging
	 * (and writing) them is the full check's business. */
	err = ctx->sb_used || ctx->gd_copy ? 0 : check_groups(ctx);
	if (!err && !ctx->sb_used && !ctx->gd_copy &&
	    !e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_RECOVER)) {
		int changed;

		/* the superblock's totals: the sums of the groups' (not while
		 * a journal is left unreplayed: the log holds newer counts) */
		err = e4fsck_sync_free_counts(ctx, &changed);
		if (changed && !ctx->read_only)
			ctx->sb_dirty = 1;
	}
	if (err) {
		e4fsck_error(ctx, err, "while checking the group descriptors");
		ctx->fatal = 1;
		return err;
	}
	if (e4_le16(sb->s_state) & EXT4_ERROR_FS)
		fix_problem(ctx, PR_0_ERRORS_RECORDED, &pctx);

	/* Opened from a backup: put the primary superblock back, marked not
	 * clean.  Only the superblock: the backup's descriptors carry the
	 * counts and uninit flags of the time the backup was written, and
	 * the primary table may well be the newer one; which to keep is for
	 * the full check to decide. */
	if (ctx->sb_used && !ctx->read_only &&
	    fix_problem(ctx, PR_0_SB_WRITE_PRIMARY, &pctx)) {
		sb->s_block_group_nr = 0;
		sb->s_state = e4_cpu_to_le16(e4_le16(sb->s_state) & ~EXT4_VALID_FS);
		err = e4_super_write(fs);
		if (!err)
			err = e4_flush(fs);
		if (err) {
			e4fsck_error(ctx, err, "while writing the primary superblock");
			ctx->fatal = 1;
			return err;
		}
	}
	return 0;
}
