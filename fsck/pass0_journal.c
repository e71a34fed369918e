/*
 * pass0_journal.c: the journal before anything else (format doc sections
 * 11 and 12): is there a journal the superblock agrees with, is its
 * superblock usable, does it need replaying; then the replay through
 * e4_journal_recover(), the reopen, and the orphans.
 *
 * What e4fsck does with each finding is a row of the problem table:
 *  - needs_recovery without a journal: the flag is cleared;
 *  - has_journal without a journal: the feature is cleared;
 *  - a journal inode that is no valid journal: the journal is removed
 *    (its blocks freed, the inode zeroed, has_journal cleared);
 *  - a journal superblock with a bad magic, version or checksum: a fresh
 *    empty journal superblock is written and the log is not replayed (the
 *    reference does the same: replaying a log whose superblock cannot be
 *    trusted could write garbage over the filesystem);
 *  - an external journal superblock failing only its checksum: the
 *    checksum is rewritten and the log replayed (as the reference);
 *  - an external journal for another filesystem, or with unknown
 *    features: e4fsck stops (exit 12: operational error, errors left);
 *  - a log with transactions but needs_recovery clear: replayed anyway
 *    (-y, -p, yes), or discarded (no);
 *  - -n: nothing is replayed, and e4fsck says so.
 */
#include "e4fsck.h"

#include <stdlib.h>
#include <string.h>

static void set_incompat(struct ext4_super_block *sb, uint32_t mask, int on)
{
	uint32_t v = e4_le32(sb->s_feature_incompat);

	sb->s_feature_incompat = e4_cpu_to_le32(on ? v | mask : v & ~mask);
}

static void set_compat(struct ext4_super_block *sb, uint32_t mask, int on)
{
	uint32_t v = e4_le32(sb->s_feature_compat);

	sb->s_feature_compat = e4_cpu_to_le32(on ? v | mask : v & ~mask);
}

static void clear_valid(struct ext4_super_block *sb)
{
	sb->s_state = e4_cpu_to_le16(e4_le16(sb->s_state) & ~EXT4_VALID_FS);
}

/* Remove the internal journal: free its blocks when its map is readable,
 * zero the inode, clear has_journal/needs_recovery and the superblock's
 * journal fields.  A full check is left due (VALID_FS cleared) when the
 * blocks could not be freed or the log held unreplayed transactions. */
static errcode_t remove_journal(struct e4fsck *ctx)
{
	e4_fs *fs = ctx->fs;
	struct ext4_super_block *sb = e4_super(fs);
	e4_ino_t ino = e4_le32(sb->s_journal_inum);
	union e4_inode_buf ib;
	errcode_t err;
	int clean = !e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_RECOVER);

	if (ino && ino <= e4_geom(fs)->inodes_count && !e4_inode_read(fs, ino, &ib)) {
		uint64_t freed = 0;

		/* Blocks that cannot be walked stay marked in use: the full
		 * check will find them. */
		if (!e4_inode_truncate_blocks(fs, ino, &ib, 0, &freed)) {
			memset(&ib, 0, sizeof(ib));
			err = e4_inode_write(fs, ino, &ib);
			if (err)
				return err;
		} else {
			clean = 0;
		}
	} else {
		clean = 0;
	}
	sb->s_journal_inum = 0;
	memset(sb->s_jnl_blocks, 0, sizeof(sb->s_jnl_blocks));
	sb->s_jnl_backup_type = 0;
	set_compat(sb, EXT4_FEATURE_COMPAT_HAS_JOURNAL, 0);
	set_incompat(sb, EXT4_FEATURE_INCOMPAT_RECOVER, 0);
	if (!clean)
		clear_valid(sb);
	ctx->sb_dirty = 1;
	err = e4_flush_primary(fs, 0);
	if (!err)
		fix_problem(ctx, PR_0_JOURNAL_DELETED, NULL);
	return err;
}

/* Does inode ino (named by s_journal_inum) hold anything? */
static int journal_inode_used(e4_fs *fs, e4_ino_t ino)
{
	union e4_inode_buf ib;
	static const uint32_t zero[EXT4_N_BLOCKS];

	if (ino > e4_geom(fs)->inodes_count || e4_inode_read(fs, ino, &ib))
		return 1;	/* unreadable: let the fix clear the name */
	return ib.inode.i_mode || memcmp(ib.inode.i_block, zero, sizeof(zero));
}

/* Write a fresh, empty journal superblock (same size, this fs's UUID);
 * needs_recovery is cleared and a full check left due if it was set. */
static errcode_t reset_journal(struct e4fsck *ctx, e4_journal *j)
{
	struct ext4_super_block *sb = e4_super(ctx->fs);
	const journal_superblock_t *old = e4_journal_super(j);
	journal_superblock_t jsb;
	uint32_t maxlen = e4_journal_blocks(j);
	errcode_t err;

	e4_jsb_init(&jsb, e4_journal_blocksize(j), maxlen, sb->s_uuid, 0);
	/* A sequence number unrelated to stale blocks left in the log. */
	jsb.s_sequence = e4_cpu_to_be32((uint32_t)ctx->now | 1);
	if (e4_be32(old->s_header.h_magic) == JBD2_MAGIC_NUMBER &&
	    e4_be32(old->s_first) && e4_be32(old->s_first) < maxlen)
		jsb.s_first = old->s_first;
	err = e4_journal_write_super(j, &jsb);
	if (err)
		return err;
	if (e4_has_incompat(ctx->fs, EXT4_FEATURE_INCOMPAT_RECOVER)) {
		set_incompat(sb, EXT4_FEATURE_INCOMPAT_RECOVER, 0);
		clear_valid(sb);
	}
	ctx->sb_dirty = 1;
	return 0;
}

/* A journal superblock read raw from the internal journal's first block,
 * for judging one that e4_journal_open() refused. */
static int jsb_magic_bad(errcode_t err)
{
	return err == E4_ERR_JOURNAL_MAGIC || err == E4_ERR_JOURNAL_VERSION ||
	       err == E4_ERR_JOURNAL_CORRUPT;
}

/* Open the journal the superblock describes, repairing what the problem
 * table allows.  *jp is NULL when there is no (longer a) journal. */
static errcode_t open_journal(struct e4fsck *ctx, e4_journal **jp)
{
	e4_fs *fs = ctx->fs;
	struct ext4_super_block *sb = e4_super(fs);
	struct problem_ctx pctx = { 0 };
	int has = e4_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL);
	int recover = e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_RECOVER);
	e4_ino_t jino = e4_le32(sb->s_journal_inum);
	static const uint8_t zero_uuid[16];
	int ext = !jino && (ctx->ext_journal || memcmp(sb->s_journal_uuid, zero_uuid, 16));
	e4_journal *j = NULL;
	errcode_t err;

	*jp = NULL;
	if (!has) {
		if (recover && fix_problem(ctx, PR_0_JOURNAL_RECOVER_NO_JOURNAL, &pctx)) {
			set_incompat(sb, EXT4_FEATURE_INCOMPAT_RECOVER, 0);
			ctx->sb_dirty = 1;
		}
		if (jino && journal_inode_used(fs, jino)) {
			pctx.ino = jino;
			if (fix_problem(ctx, PR_0_JOURNAL_PRESENT_NO_FEATURE, &pctx) &&
			    !ctx->read_only)
				return remove_journal(ctx);
		}
		return 0;
	}
	if (!jino && !ext) {
		if (fix_problem(ctx, PR_0_JOURNAL_NO_INODE, &pctx)) {
			set_compat(sb, EXT4_FEATURE_COMPAT_HAS_JOURNAL, 0);
			if (recover) {
				set_incompat(sb, EXT4_FEATURE_INCOMPAT_RECOVER, 0);
				clear_valid(sb);
			}
			ctx->sb_dirty = 1;
		}
		return 0;
	}
	if (ext && !ctx->ext_journal) {
		pctx.err = E4_ERR_EXTERNAL_JOURNAL;
		fix_problem(ctx, PR_0_JOURNAL_UNSUPPORTED, &pctx);
		ctx->fatal = 1;
		ctx->uncorrected++;
		return E4_ERR_EXTERNAL_JOURNAL;
	}

	err = e4_journal_open2(fs, ext ? ctx->ext_journal : NULL, E4_JOPEN_IGNORE_CSUM, &j);
	pctx.ino = jino;
	pctx.err = err;
	if (err && !ext && jsb_magic_bad(err)) {
		/* The inode maps a journal but its superblock is unusable:
		 * open it without judging the superblock to rewrite it. */
		if (!fix_problem(ctx, PR_0_JOURNAL_BAD_SUPER, &pctx))
			return 0;
		if (ctx->read_only)
			return 0;
		err = e4_journal_open2(fs, NULL, E4_JOPEN_RAW, &j);
		if (!err) {
			err = reset_journal(ctx, j);
			e4_journal_close(j);
			return err;
		}
		/* not even the map is usable: remove the journal */
		return remove_journal(ctx);
	}
	/* System errors (I/O, memory) and unknown features are no reason to
	 * throw a journal away: they stop e4fsck below. */
	if (err && !ext && err != E4_ERR_NO_MEMORY && err != E4_ERR_JOURNAL_UNSUPP &&
	    (err < 0 || err >= 256)) {
		if (!fix_problem(ctx, PR_0_JOURNAL_BAD_INODE, &pctx))
			return 0;
		return ctx->read_only ? 0 : remove_journal(ctx);
	}
	if (err) {
		/* External journal: wrong device, foreign UUID; unknown
		 * features; unreadable: nothing safe to do. */
		fix_problem(ctx, PR_0_JOURNAL_UNSUPPORTED, &pctx);
		ctx->fatal = 1;
		ctx->uncorrected++;
		return err;
	}
	if (!e4_journal_csum_ok(j)) {
		pctx.err = E4_ERR_JOURNAL_CSUM;
		if (ext) {
			if (fix_problem(ctx, PR_0_EXT_JOURNAL_SB_CSUM, &pctx) && !ctx->read_only) {
				journal_superblock_t jsb = *e4_journal_super(j);

				err = e4_journal_write_super(j, &jsb);
				if (err) {
					e4_journal_close(j);
					return err;
				}
			}
		} else {
			if (fix_problem(ctx, PR_0_JOURNAL_BAD_SUPER, &pctx) && !ctx->read_only)
				err = reset_journal(ctx, j);
			e4_journal_close(j);
			return err;
		}
	}
	*jp = j;
	return 0;
}

errcode_t e4fsck_journal(struct e4fsck *ctx)
{
	struct problem_ctx pctx = { 0 };
	struct e4_jrecover_result res;
	e4_journal *j = NULL;
	errcode_t err;
	int recover;

	err = open_journal(ctx, &j);
	if (err) {
		if (!ctx->fatal)
			e4fsck_error(ctx, err, "while checking the journal");
		ctx->fatal = 1;
		return err;
	}
	if (!j)
		goto flush;
	recover = e4_has_incompat(ctx->fs, EXT4_FEATURE_INCOMPAT_RECOVER);
	if (!recover && e4_be32(e4_journal_super(j)->s_start)) {
		if (fix_problem(ctx, PR_0_JOURNAL_DATA_NO_RECOVER, &pctx)) {
			recover = 1;
			ctx->force = 1;
		} else if (fix_problem(ctx, PR_0_JOURNAL_RESET, &pctx) && !ctx->read_only) {
			journal_superblock_t jsb = *e4_journal_super(j);

			jsb.s_start = 0;
			err = e4_journal_write_super(j, &jsb);
			clear_valid(e4_super(ctx->fs));
			ctx->sb_dirty = 1;
		}
	}
	if (!recover) {
		/* An error the journal recorded (an abort) becomes the
		 * filesystem's, so that it is checked. */
		if (e4_journal_super(j)->s_errno && !ctx->read_only) {
			int carried = 0;

			pctx.num = (uint32_t)-(int32_t)e4_be32((uint32_t)e4_journal_super(j)->s_errno);
			err = e4_journal_errno_to_fs(ctx->fs, j, &carried);
			if (!err && carried)
				fix_problem(ctx, PR_0_JOURNAL_ERRNO, &pctx);
		}
		e4_journal_close(j);
		if (err) {
			e4fsck_error(ctx, err, "while updating the journal superblock");
			ctx->fatal = 1;
			return err;
		}
		goto flush;
	}
	if (ctx->read_only) {
		fix_problem(ctx, PR_0_JOURNAL_SKIP_READONLY, &pctx);
		e4_journal_close(j);
		return 0;
	}

	fix_problem(ctx, PR_0_JOURNAL_RECOVERING, &pctx);
	if (ctx->sb_dirty) {
		/* e.g. needs_recovery set by the answer above: on disk first */
		e4_super(ctx->fs)->s_feature_incompat |=
			e4_cpu_to_le32(EXT4_FEATURE_INCOMPAT_RECOVER);
		err = e4_super_write(ctx->fs);
		if (!err)
			err = e4_flush(ctx->fs);
		ctx->sb_dirty = 0;
		if (err) {
			e4_journal_close(j);
			e4fsck_error(ctx, err, "while writing the superblock");
			ctx->fatal = 1;
			return err;
		}
	}
	err = e4_journal_recover(ctx->fs, j, NULL, NULL, &res);
	e4_journal_close(j);
	ctx->journal_replayed = 1;
	if (ctx->verbose)
		printf("%s: journal: %u transaction(s) from tid %u, %llu block(s) replayed, "
		       "%llu revoked\n", ctx->device, res.replay.scan.transactions,
		       res.replay.scan.start_tid, (unsigned long long)res.replay.replayed,
		       (unsigned long long)res.replay.revoked);
	if (res.replay.scan.failed_commit) {
		pctx.num = res.replay.scan.failed_tid;
		fix_problem(ctx, PR_0_JOURNAL_FAILED_COMMIT, &pctx);
	}
	if (res.fc_not_replayed) {
		pctx.num = res.replay.scan.fc_tid;
		fix_problem(ctx, PR_0_JOURNAL_FC_SKIPPED, &pctx);
	}
	if (err) {
		ctx->journal_failed = 1;
		pctx.err = err;
		if (err == E4_ERR_JOURNAL_CHECKSUM)
			fix_problem(ctx, PR_0_JOURNAL_CSUM_ERROR, &pctx);
		else
			fix_problem(ctx, PR_0_JOURNAL_RECOVERY_ERROR, &pctx);
		if (err == E4_ERR_NO_MEMORY || err == E4_ERR_READ_ONLY ||
		    res.replay.scan.outcome == E4_JSCAN_NONE) {
			/* the journal was left as it was: nothing more to do safely */
			ctx->fatal = 1;
			return err;
		}
	}
	if (res.errno_carried) {
		pctx.num = 22;
		fix_problem(ctx, PR_0_JOURNAL_ERRNO, &pctx);
	}
	/* Cached descriptors and bitmaps are stale: reopen, then check the
	 * journal the replayed filesystem describes (it may have changed). */
	err = e4fsck_close(ctx);
	if (!err)
		err = e4fsck_open(ctx);
	if (err) {
		e4fsck_error(ctx, err, "while reopening the filesystem after the replay");
		ctx->fatal = 1;
		return err;
	}
	err = open_journal(ctx, &j);
	if (err) {
		ctx->fatal = 1;
		return err;
	}
	if (j)
		e4_journal_close(j);
flush:
	if (ctx->sb_dirty && !ctx->read_only) {
		err = e4_super_write(ctx->fs);
		if (!err)
			err = e4_flush(ctx->fs);
		if (err) {
			e4fsck_error(ctx, err, "while writing the superblock");
			ctx->fatal = 1;
			return err;
		}
	}
	return 0;
}

/* ---- orphans ----------------------------------------------------------- */

static int orphan_cb(e4_fs *fs, const struct e4_orphan_info *o, void *priv)
{
	struct e4fsck *ctx = priv;
	struct problem_ctx pctx = { 0 };
	char mode[16];

	(void)fs;
	snprintf(mode, sizeof(mode), "%o", o->mode);
	pctx.ino = o->ino;
	pctx.str = o->truncate ? "Truncating" : "Clearing";
	pctx.num = o->uid;
	pctx.num2 = o->gid;
	pctx.str2 = mode;
	pctx.blk2 = o->size;
	fix_problem(ctx, PR_0_ORPHAN_RELEASE, &pctx);
	return 0;
}

/* The orphan release's flushes: cached blocks (inodes, maps), then the
 * primary bitmaps, descriptors and superblock. */
static errcode_t orphan_flush(e4_fs *fs)
{
	errcode_t err = e4_flush(fs);

	return err ? err : e4_flush_primary(fs, 0);
}

errcode_t e4fsck_orphans(struct e4fsck *ctx)
{
	e4_fs *fs = ctx->fs;
	struct ext4_super_block *sb = e4_super(fs);
	struct e4_orphan_result res;
	struct problem_ctx pctx = { 0 };
	int have_file = e4_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT);
	errcode_t err;

	/* Read-only, nothing listed, or a backup superblock (its list is as
	 * old as the backup): nothing to do here. */
	if (ctx->read_only || ctx->sb_used || (!sb->s_last_orphan && !have_file))
		return 0;
	if (e4_le16(sb->s_state) & EXT4_ERROR_FS) {
		/* The list cannot be trusted: the full check will sort the
		 * inodes out.  Its head is not used again. */
		if (sb->s_last_orphan) {
			sb->s_last_orphan = 0;
			ctx->sb_dirty = 1;
		}
		return 0;
	}
	err = e4_orphans_release(fs, ctx->now, orphan_cb, ctx, &res, orphan_flush);
	ctx->orphans_freed = res.freed;
	ctx->orphans_truncated = res.truncated;
	if (err) {
		pctx.ino = res.bad_ino;
		pctx.err = err;
		if (err == E4_ERR_ORPHAN_LIST)
			fix_problem(ctx, PR_0_ORPHAN_BAD_INODE, &pctx);
		else if (err == E4_ERR_ORPHAN_FILE)
			fix_problem(ctx, PR_0_ORPHAN_FILE_BAD, &pctx);
		else
			fix_problem(ctx, PR_0_ORPHAN_ERROR, &pctx);
		/* What was released stays released; the rest waits for a
		 * full check. */
		sb->s_last_orphan = 0;
		clear_valid(sb);
	}
	ctx->sb_dirty = 1;
	/* The release wrote in the order of "Writing safely" (marked not
	 * clean first, each orphan off the chain before it is freed, the
	 * state back last); what an error left is written now. */
	err = orphan_flush(fs);
	if (err) {
		e4fsck_error(ctx, err, "while writing the orphans' blocks and inodes");
		ctx->fatal = 1;
	}
	return err;
}
