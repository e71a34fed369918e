/*
 * super_check.c: superblock-level checks (format doc sections 2 and 4):
 * times in the future, descriptor checksums (confirmed field by field
 * before one is rewritten), free counts, flags the features do not allow,
 * errors recorded by the kernel, and the superblock's summary counts
 * against the descriptors.  Geometry and the fields the kernel checks at
 * mount are validated by e4_open(), descriptor locations and field bounds
 * at open too (main.c: a superblock or table that fails makes e4fsck use
 * a backup).
 */
#include "e4fsck.h"

#include <stdlib.h>
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
		e4_sb_set_free_blocks_count(sb, free_blocks);
		*changed = 1;
	}
	if (e4_le32(sb->s_free_inodes_count) != free_inodes) {
		e4_sb_set_free_inodes_count(sb, (uint32_t)free_inodes);
		*changed = 1;
	}
	return 0;
}

/* Group i's free counts against what its bitmaps say (fb, fi from
 * e4_group_count_free(), BLOCK_UNINIT / INODE_UNINIT respected): a count
 * that disagrees is set to the bitmap's, never to a guess. */
static void recount_group(struct e4fsck *ctx, e4_group_t i, struct e4_group *g,
			  uint32_t fb, uint32_t fi, int *dirty)
{
	struct problem_ctx pctx = { 0 };

	pctx.group = i;
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

/* A count an uninit flag contradicts: the bitmap it would be recounted
 * from is synthesised from the flag, which is no evidence (a stray
 * BLOCK_UNINIT would make the journal's blocks free).  1 if so (said). */
static int uninit_contradicted(struct e4fsck *ctx, e4_group_t i, const struct e4_group *g,
			       uint32_t fb, uint32_t fi)
{
	const struct e4_geom *geo = e4_geom(ctx->fs);
	struct problem_ctx pctx = { 0 };
	int bad = 0;

	if (!geo->metadata_csum && !geo->gdt_csum)
		return 0;
	pctx.group = i;
	if ((g->flags & EXT4_BG_BLOCK_UNINIT) && g->free_blocks != fb) {
		pctx.str = "BLOCK_UNINIT";
		pctx.str2 = "free blocks";
		pctx.num = g->free_blocks;
		pctx.num2 = fb;
		fix_problem(ctx, PR_0_GD_UNINIT_COUNT, &pctx);
		bad = 1;
	}
	if ((g->flags & EXT4_BG_INODE_UNINIT) && g->free_inodes != fi) {
		pctx.str = "INODE_UNINIT";
		pctx.str2 = "free inodes";
		pctx.num = g->free_inodes;
		pctx.num2 = fi;
		fix_problem(ctx, PR_0_GD_UNINIT_COUNT, &pctx);
		bad = 1;
	}
	return bad;
}

/* The free counts group i's bitmaps show (fb, fi) against the
 * descriptor's other fields: more directories than the bitmap's inodes in
 * use, more never-used inodes (bg_itable_unused) than its free ones.
 * Then the bitmap or those fields are damaged, and which only the full
 * check can tell (whether a directory names the inodes); setting the
 * counts alone would leave a descriptor out of the format's bounds
 * (e4_group_count_faults()), which the next run calls unsound.  1 if so
 * (said). */
static int recount_contradicted(struct e4fsck *ctx, e4_group_t i, const struct e4_group *g,
				uint32_t fb, uint32_t fi)
{
	struct e4_gd_fault f[E4_GD_COUNT_FAULTS_MAX];
	struct e4_group c = *g;
	unsigned n;

	if (c.free_blocks == fb && c.free_inodes == fi)
		return 0;
	c.free_blocks = fb;
	c.free_inodes = fi;
	n = e4_group_count_faults(ctx->fs, i, &c, f);
	for (unsigned k = 0; k < n; k++)
		e4fsck_report_gd_field(ctx, &f[k]);
	return n > 0;
}

/* Descriptor flags and free counts.  Locations and field bounds were
 * judged at open (main.c), checksums before the orphans
 * (e4fsck_check_gd_csums()).  A count an uninit flag contradicts is
 * damage: then nothing is changed (the full check decides). */
static errcode_t check_groups(struct e4fsck *ctx)
{
	e4_fs *fs = ctx->fs;
	const struct e4_geom *geo = e4_geom(fs);
	/* an unreplayed journal (-n) holds newer bitmaps than the disk */
	int recount = !e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_RECOVER);
	struct problem_ctx pctx;
	struct e4_group g;
	uint32_t *counts = NULL;	/* per group: free clusters, free inodes */
	uint8_t *usable = NULL;
	int gd_dirty = 0;
	errcode_t err = 0;

	if (recount) {
		counts = calloc((size_t)geo->group_count * 2, sizeof(*counts));
		usable = calloc(geo->group_count, 1);
		if (!counts || !usable) {
			err = E4_ERR_NO_MEMORY;
			goto out;
		}
		/* freed by a stop at a question (e4fsck_stop()) */
		ctx->owned[0] = counts;
		ctx->owned[1] = usable;
	}
	for (e4_group_t i = 0; recount && i < geo->group_count; i++) {
		err = e4_group_get(fs, i, &g);
		if (err)
			goto out;
		memset(&pctx, 0, sizeof(pctx));
		pctx.group = i;
		pctx.err = e4_group_count_free(fs, i, &counts[2 * i], &counts[2 * i + 1]);
		if (pctx.err) {
			/* unreadable or failing its checksum: left to the full check */
			fix_problem(ctx, PR_0_GD_BITMAP_UNUSABLE, &pctx);
			continue;
		}
		usable[i] = 1;
		if (uninit_contradicted(ctx, i, &g, counts[2 * i], counts[2 * i + 1]) ||
		    recount_contradicted(ctx, i, &g, counts[2 * i], counts[2 * i + 1]))
			ctx->gd_damaged = 1;
	}
	err = 0;
	if (ctx->gd_damaged)
		goto out;
	for (e4_group_t i = 0; i < geo->group_count; i++) {
		int changed = 0;

		err = e4_group_get(fs, i, &g);
		if (err)
			goto out;
		memset(&pctx, 0, sizeof(pctx));
		pctx.group = i;
		if (!geo->metadata_csum && !geo->gdt_csum &&
		    ((g.flags & (EXT4_BG_INODE_UNINIT | EXT4_BG_BLOCK_UNINIT)) || g.itable_unused)) {
			/* meaningless without a descriptor checksum feature */
			if (fix_problem(ctx, PR_0_GD_UNINIT_FLAGS, &pctx)) {
				g.flags &= ~(EXT4_BG_INODE_UNINIT | EXT4_BG_BLOCK_UNINIT);
				g.itable_unused = 0;
				changed = 1;
			}
		}
		if (recount && usable[i])
			recount_group(ctx, i, &g, counts[2 * i], counts[2 * i + 1], &changed);
		if (changed) {
			err = e4_group_set(fs, i, &g);
			if (err)
				goto out;
			gd_dirty = 1;
		}
	}
	if (gd_dirty && !ctx->read_only)
		err = e4_flush_primary(fs, 1);
out:
	memset(ctx->owned, 0, sizeof(ctx->owned));
	free(counts);
	free(usable);
	return err;
}

int e4fsck_table_sound(e4_fs *fs, e4_gd_fault_cb cb, void *priv)
{
	errcode_t a = e4_group_check_locations(fs, cb, priv, NULL);
	errcode_t b = e4_group_check_fields(fs, cb, priv, NULL);

	return !a && !b;
}

/* ---- descriptor checksums ---------------------------------------------- */

/* Copies of the descriptor table compared with when one fails its checksum. */
#define GD_BACKUPS_TRIED	16

/* The descriptors (desc_size bytes each, group order) of the copy kept
 * with the first backup superblock whose table is sound, or NULL (none,
 * or no memory).  The table the open read is loaded back. */
static uint8_t *sound_backup_table(struct e4fsck *ctx, e4_group_t *from)
{
	e4_fs *fs = ctx->fs;
	const struct e4_geom *geo = e4_geom(fs);
	uint8_t *copy = NULL;
	unsigned tried = 0;

	for (e4_group_t g = 1; g < geo->group_count && tried < GD_BACKUPS_TRIED && !copy; g++) {
		if (!e4_group_has_super(fs, g))
			continue;
		tried++;
		if (e4_gdt_load_copy(fs, g) || !e4fsck_table_sound(fs, NULL, NULL))
			continue;
		copy = malloc((size_t)geo->group_count * geo->desc_size);
		for (e4_group_t i = 0; copy && i < geo->group_count; i++)
			memcpy(copy + (size_t)i * geo->desc_size, e4_group_desc_raw(fs, i),
			       geo->desc_size);
		*from = g;
	}
	if (tried && e4_gdt_load_copy(fs, 0)) {
		free(copy);
		return NULL;
	}
	return copy;
}

/* Directories among group i's inodes in use (its inode bitmap, read as
 * the kernel reads it), in *dirs.  An inode that cannot be read is an
 * error. */
static errcode_t count_dirs(e4_fs *fs, e4_group_t i, const uint8_t *ibitmap, uint32_t *dirs)
{
	const struct e4_geom *geo = e4_geom(fs);
	union e4_inode_buf ib;
	errcode_t err;

	*dirs = 0;
	for (uint32_t k = 0; k < geo->inodes_per_group; k++) {
		e4_ino_t ino = (e4_ino_t)i * geo->inodes_per_group + k + 1;

		if (!e4_bit_test(ibitmap, k) || ino > geo->inodes_count)
			continue;
		err = e4_inode_read(fs, ino, &ib);
		if (err)
			return err;
		*dirs += e4_is_dir(&ib.inode);
	}
	return 0;
}

/* Why descriptor i, which fails its checksum, cannot be taken as it is,
 * or NULL when every field is confirmed: the ones the kernel never
 * changes in use equal the backup copy's (bk), flags only lost uninit
 * bits or gained ITABLE_ZEROED, the unused inodes count only shrank and
 * covers no inode in use, the bitmaps read with their checksums, an
 * uninit flag's count is the one it implies, and the directories count is
 * the backup's or the number of directories in use.  The free counts
 * are then recounted by check_groups(). */
static const char *gd_unconfirmed(struct e4fsck *ctx, e4_group_t i, const uint8_t *bk,
				  uint8_t *ibitmap)
{
	e4_fs *fs = ctx->fs;
	const struct e4_geom *geo = e4_geom(fs);
	const struct ext4_group_desc *bd = (const struct ext4_group_desc *)bk;
	struct e4_group g;
	uint32_t fb, fi, dirs, b_flags, b_unused;

	if (!bk)
		return "no backup copy with sound locations to compare it with";
	if (!e4_group_desc_same_static(fs, e4_group_desc_raw(fs, i), bk))
		return "its locations or reserved fields differ from the backup copy's";
	e4_group_get(fs, i, &g);
	b_flags = e4_le16(bd->bg_flags);
	b_unused = e4_le16(bd->bg_itable_unused_lo);
	if (geo->desc_size >= EXT4_MIN_DESC_SIZE_64BIT)
		b_unused |= (uint32_t)e4_le16(bd->bg_itable_unused_hi) << 16;
	if (g.flags & ~(b_flags | EXT4_BG_INODE_ZEROED))
		return "it has uninit flags its backup copy has not, and the kernel only clears them";
	if (g.itable_unused > b_unused)
		return "its unused inodes count is above the backup copy's, and the kernel only lowers it";
	if (e4_group_count_free(fs, i, &fb, &fi))
		return "its bitmaps cannot be read or fail their checksums";
	if (((g.flags & EXT4_BG_BLOCK_UNINIT) && g.free_blocks != fb) ||
	    ((g.flags & EXT4_BG_INODE_UNINIT) && g.free_inodes != fi))
		return "a count differs from the one its uninit flag implies";
	if (e4_read_inode_bitmap(fs, i, ibitmap))
		return "its inode bitmap cannot be read or fails its checksum";
	for (uint32_t k = geo->inodes_per_group - g.itable_unused; k < geo->inodes_per_group; k++)
		if (e4_bit_test(ibitmap, k))
			return "its unused inodes count covers an inode in use";
	if (g.used_dirs == ((uint32_t)e4_le16(bd->bg_used_dirs_count_lo) |
			    (geo->desc_size >= EXT4_MIN_DESC_SIZE_64BIT ?
			     (uint32_t)e4_le16(bd->bg_used_dirs_count_hi) << 16 : 0)))
		return NULL;
	if (count_dirs(fs, i, ibitmap, &dirs))
		return "an inode in use cannot be read";
	return dirs == g.used_dirs ? NULL : "its directories count is not the directories in use";
}

errcode_t e4fsck_check_gd_csums(struct e4fsck *ctx)
{
	e4_fs *fs = ctx->fs;
	const struct e4_geom *geo = e4_geom(fs);
	struct problem_ctx pctx;
	const char **why = NULL;
	uint8_t *backup = NULL, *ibitmap = NULL;
	e4_group_t from = 0, nbad = 0;
	unsigned said = 0;
	int fixed = 0;
	errcode_t err = 0;

	if (ctx->sb_used || ctx->gd_copy || (!geo->metadata_csum && !geo->gdt_csum) ||
	    (e4_open_flags(fs) & E4_OPEN_IGNORE_CSUM))
		return 0;
	for (e4_group_t i = 0; i < geo->group_count; i++)
		nbad += !e4_group_csum_ok(fs, i);
	if (!nbad)
		return 0;
	why = calloc(geo->group_count, sizeof(*why));
	ibitmap = malloc(geo->block_size);
	if (!why || !ibitmap) {
		err = E4_ERR_NO_MEMORY;
		goto out;
	}
	backup = sound_backup_table(ctx, &from);
	/* freed by a stop at the question (e4fsck_stop()) */
	ctx->owned[0] = why;
	ctx->owned[1] = backup;
	ctx->owned[2] = ibitmap;
	/* first every verdict, then the answers: a table with one damaged
	 * descriptor is left whole to the full check */
	for (e4_group_t i = 0; i < geo->group_count; i++) {
		if (e4_group_csum_ok(fs, i))
			continue;
		why[i] = gd_unconfirmed(ctx, i, backup ? backup + (size_t)i * geo->desc_size : NULL,
					ibitmap);
		if (why[i])
			ctx->gd_damaged = 1;
	}
	for (e4_group_t i = 0; i < geo->group_count && said < 1000; i++) {
		const void *raw = e4_group_desc_raw(fs, i);

		if (e4_group_csum_ok(fs, i))
			continue;
		memset(&pctx, 0, sizeof(pctx));
		pctx.group = i;
		pctx.num = e4_le16(((const struct ext4_group_desc *)raw)->bg_checksum);
		pctx.num2 = e4_group_desc_csum(fs, i, raw);
		said++;
		if (ctx->gd_damaged) {
			pctx.str = why[i] ? why[i] : "another descriptor of the table is damaged";
			fix_problem(ctx, PR_0_GD_CSUM_DAMAGE, &pctx);
		} else if (fix_problem(ctx, PR_0_GD_CSUM, &pctx)) {
			e4_group_csum_set(fs, i);
			fixed = 1;
		}
	}
	if (fixed && !ctx->read_only)
		err = e4_flush_primary(fs, 1);
out:
	memset(ctx->owned, 0, sizeof(ctx->owned));
	free(why);
	free(backup);
	free(ibitmap);
	return err;
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
		e4_sb_feature_change(sb, E4_FEAT_RO_COMPAT, EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT, 0);
		ctx->sb_dirty = 1;
	}
	check_journal_name(ctx);
	/* The kernel reads the root inode at mount: one it refuses makes any
	 * "clean" false (I/O errors are the device's, reported elsewhere). */
	if (!ctx->gd_copy && !ctx->gd_damaged) {
		err = e4_inode_check_root(fs);
		if (err && !e4_err_is_io(err)) {
			pctx.err = err;
			fix_problem(ctx, PR_0_ROOT_UNMOUNTABLE, &pctx);
		}
	}
	/* Descriptors read from a backup are as old as the backup, damaged
	 * ones unproven: judging (and writing) them is the full check's
	 * business. */
	err = ctx->sb_used || ctx->gd_copy || ctx->gd_damaged ? 0 : check_groups(ctx);
	/* (the superblock's totals are not synchronised here: pass 5 judges
	 * them; main.c sets them silently only when the full check is
	 * skipped) */
	if (err) {
		e4fsck_fail_msg(ctx, err, "while checking the group descriptors");
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
		e4_sb_state_change(sb, 0, EXT4_VALID_FS);
		err = e4_super_write(fs);
		if (!err)
			err = e4_flush(fs);
		if (err) {
			e4fsck_fail_msg(ctx, err, "while writing the primary superblock");
			return err;
		}
	}
	return 0;
}
