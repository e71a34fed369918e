/*
 * pass0_journal.c: the journal before anything else (format doc sections
 * 11 and 12): is there a journal the superblock agrees with, is its
 * superblock usable, does it need replaying; then the replay through
 * e4_journal_recover(), the reopen, and the orphans.
 *
 * What e4fsck does with each finding is a row of the problem table:
 *  - needs_recovery without a journal: the flag is cleared;
 *  - has_journal without a journal: the feature is cleared, unless inode 8
 *    still holds the journal (s_journal_inum zeroed): then it is named
 *    again (destructive policy: -y re-points, -p stops);
 *  - a journal inode that is no valid journal: the journal is removed
 *    (its blocks freed, the inode zeroed, has_journal cleared);
 *  - a journal superblock with a bad magic or version: a fresh empty
 *    journal superblock is written and the log is not replayed (replaying
 *    a log whose superblock cannot be trusted could write garbage over the
 *    filesystem);
 *  - a journal superblock failing only its checksum (internal or
 *    external): the checksum is rewritten and the log replayed (the
 *    log's own checksums still guard every transaction; e2fsck discards
 *    an internal one);
 *  - an external journal for another filesystem, or with unknown
 *    features, or not given with -j: e4fsck stops (exit 12: operational
 *    error, errors left);
 *  - a log with committed transactions but needs_recovery clear: replayed
 *    with yes (-y), a stop with -p, left with no; discarded only on a yes
 *    to the next question;
 *  - a last transaction ending in fast-commit records (not replayed by
 *    libe4 yet): the journal is left for the kernel unless a human says
 *    to replay without them;
 *  - -n: nothing is replayed, and e4fsck says so.
 * Removing or resetting a journal is destructive (problem.c): -y and -p do
 * it only when the log holds nothing committed.
 */
#include "e4fsck.h"

#include <stdlib.h>
#include <string.h>

static void set_incompat(struct ext4_super_block *sb, uint32_t mask, int on)
{
	e4_sb_feature_change(sb, E4_FEAT_INCOMPAT, mask, on);
}

static void set_compat(struct ext4_super_block *sb, uint32_t mask, int on)
{
	e4_sb_feature_change(sb, E4_FEAT_COMPAT, mask, on);
}

static void clear_valid(struct ext4_super_block *sb)
{
	e4_sb_state_change(sb, 0, EXT4_VALID_FS);
}

static int map_nop(e4_fs *fs, const struct e4_map_extent *ext, void *priv)
{
	(void)fs;
	(void)ext;
	(void)priv;
	return 0;
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

	/* A journal that cannot be read is not removed: the device failed,
	 * not the journal.  Its map is walked first so that a read error
	 * stops before anything changes. */
	if (ino && ino <= e4_geom(fs)->inodes_count) {
		err = e4_inode_read(fs, ino, &ib);
		if (!err || err == E4_ERR_INODE_CSUM)
			err = e4_map_iterate(fs, ino, &ib.inode, E4_ITER_META, map_nop, NULL);
		if (e4_err_is_io(err))
			return err;
	}
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

/* What pctx->recoverable says when the log holds committed transactions. */
static const char committed[] = "the log holds committed transactions";
static const char recover_set[] =
	"needs_recovery is set: the log holds committed transactions";

/* Does the journal inode's block map name blocks and differ from the
 * superblock's backup of it (s_jnl_blocks, kept when s_jnl_backup_type is
 * 1)?  Then the blocks it names may be other files' (a damaged extent):
 * resetting the journal writes its block 0 and removing it frees them. */
static const char stray_map[] = "the journal inode's block map differs from "
	"the superblock's backup of it: the blocks it names may be other files'";

static int map_differs_from_backup(e4_fs *fs, e4_ino_t ino)
{
	struct ext4_super_block *sb = e4_super(fs);
	static const uint32_t zero[EXT4_N_BLOCKS];
	union e4_inode_buf ib;
	errcode_t err;

	if (sb->s_jnl_backup_type != 1 || !ino || ino > e4_geom(fs)->inodes_count)
		return 0;
	err = e4_inode_read(fs, ino, &ib);
	if (err && err != E4_ERR_INODE_CSUM)
		return 0;
	/* an empty map names no block: nothing to overwrite or free */
	return memcmp(ib.inode.i_block, zero, sizeof(zero)) &&
	       memcmp(ib.inode.i_block, sb->s_jnl_blocks, sizeof(ib.inode.i_block));
}

/* pctx->recoverable for removing or resetting the internal journal ino:
 * what either would lose, or NULL. */
static const char *journal_keep(e4_fs *fs, e4_ino_t ino, int recover)
{
	if (recover)
		return recover_set;
	return map_differs_from_backup(fs, ino) ? stray_map : NULL;
}

/* Does j's log hold committed transactions (a read-only scan)?  A log
 * the scan cannot judge counts as holding some: the replay decides. */
static int log_committed(e4_journal *j)
{
	struct e4_jscan_result scan;

	if (!e4_be32(e4_journal_super(j)->s_start))
		return 0;
	if (e4_journal_scan(j, 0, NULL, NULL, &scan))
		return 1;
	return scan.transactions > 0;
}

/* The internal journal of a superblock whose has_journal is clear: does
 * its log hold committed transactions?  0 when it cannot be opened. */
static int unflagged_log_committed(e4_fs *fs)
{
	struct ext4_super_block *sb = e4_super(fs);
	uint32_t compat = sb->s_feature_compat;
	e4_journal *j;
	int ret = 0;

	/* e4_journal_open2() opens only a journal the features announce */
	set_compat(sb, EXT4_FEATURE_COMPAT_HAS_JOURNAL, 1);
	if (!e4_journal_open2(fs, NULL, E4_JOPEN_IGNORE_CSUM, &j)) {
		ret = log_committed(j);
		e4_journal_close(j);
	}
	sb->s_feature_compat = compat;
	return ret;
}

/* s_journal_inum is 0 while has_journal is set: does inode 8
 * (EXT4_JOURNAL_INO, where mke2fs and the kernel keep the internal
 * journal) hold one?  Its block map is the superblock's backup of the
 * journal's (s_jnl_blocks, s_jnl_backup_type 1), or it opens as a journal
 * with a valid journal superblock.  An inode that cannot be read counts
 * as holding one: a read error never clears anything. */
static int journal_ino_holds_journal(e4_fs *fs)
{
	struct ext4_super_block *sb = e4_super(fs);
	static const uint32_t zero[EXT4_N_BLOCKS];
	union e4_inode_buf ib;
	e4_journal *j;
	errcode_t err;

	if (EXT4_JOURNAL_INO > e4_geom(fs)->inodes_count)
		return 0;
	err = e4_inode_read(fs, EXT4_JOURNAL_INO, &ib);
	if (err && err != E4_ERR_INODE_CSUM)
		return e4_err_is_io(err);
	if (sb->s_jnl_backup_type == 1 && memcmp(ib.inode.i_block, zero, sizeof(zero)) &&
	    !memcmp(ib.inode.i_block, sb->s_jnl_blocks, sizeof(ib.inode.i_block)))
		return 1;
	/* e4_journal_open2() opens the inode the superblock names */
	sb->s_journal_inum = e4_cpu_to_le32(EXT4_JOURNAL_INO);
	err = e4_journal_open2(fs, NULL, E4_JOPEN_IGNORE_CSUM, &j);
	sb->s_journal_inum = 0;
	if (err)
		return e4_err_is_io(err);
	e4_journal_close(j);
	return 1;
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
/* Close the journal open_journal() gave (ctx->journal). */
static void journal_done(struct e4fsck *ctx, e4_journal *j)
{
	if (ctx->journal == j)
		ctx->journal = NULL;
	e4_journal_close(j);
}

/* Remove an invalid journal (remove_journal()); after the full check a
 * new one is created in its place (e4fsck_journal_recreate()), as e2fsck
 * does after clearing an invalid journal. */
static errcode_t remove_and_recreate(struct e4fsck *ctx)
{
	errcode_t err = remove_journal(ctx);

	if (!err)
		ctx->journal_recreate = 1;
	return err;
}

/* The open internal journal j (inode jino): does its block map cover
 * every block up to i_size, inside the filesystem?  A journal that does
 * not is invalid (e2fsck: "invalid journal"; the kernel mounts it and
 * aborts the journal at the first write that reaches the hole).  It is
 * removed (and recreated after the full check, e4fsck_journal_recreate())
 * unless its log holds committed transactions: those a default answer
 * never discards, the journal is left (exit 4).  *done is set when the
 * journal was judged invalid (j closed, the return is open_journal()'s);
 * an I/O or memory error closes j and is returned with *done 0. */
static errcode_t journal_holes(struct e4fsck *ctx, e4_journal *j, e4_ino_t jino,
			       int recover, int *done)
{
	struct problem_ctx pctx = { 0 };
	uint64_t hole = 0;
	errcode_t err = e4_journal_inode_holes(ctx->fs, &hole);

	if (!err)
		return 0;
	if (err == E4_ERR_JOURNAL_INODE) {
		*done = 1;
		pctx.ino = jino;
		pctx.num = hole;
		pctx.err = err;
		if (recover)
			pctx.recoverable = recover_set;
		else if (log_committed(j))
			pctx.recoverable = committed;
		else
			pctx.recoverable = journal_keep(ctx->fs, jino, 0);
	}
	journal_done(ctx, j);
	if (!*done)
		return err;
	if (!fix_problem(ctx, PR_0_JOURNAL_HOLE, &pctx)) {
		ctx->journal_kept_bad = 1;
		return 0;
	}
	return ctx->read_only ? 0 : remove_and_recreate(ctx);
}

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
	if (!has && jino && journal_inode_used(fs, jino)) {
		/* A journal the features do not announce: removed, unless
		 * its log holds what the filesystem still needs; then the
		 * feature is set again and the journal checked as any. */
		pctx.ino = jino;
		pctx.recoverable = journal_keep(fs, jino, recover);
		if (!pctx.recoverable && unflagged_log_committed(fs))
			pctx.recoverable = committed;
		if (fix_problem(ctx, PR_0_JOURNAL_PRESENT_NO_FEATURE, &pctx))
			return ctx->read_only ? 0 : remove_journal(ctx);
		pctx.recoverable = NULL;
		if (!fix_problem(ctx, PR_0_JOURNAL_FEATURE_SET, &pctx) || ctx->read_only)
			return 0;
		set_compat(sb, EXT4_FEATURE_COMPAT_HAS_JOURNAL, 1);
		ctx->sb_dirty = 1;
		has = 1;
	}
	if (!has) {
		if (recover && fix_problem(ctx, PR_0_JOURNAL_RECOVER_NO_JOURNAL, &pctx)) {
			set_incompat(sb, EXT4_FEATURE_INCOMPAT_RECOVER, 0);
			ctx->sb_dirty = 1;
		}
		return 0;
	}
	if (!jino && !ext) {
		/* Clearing has_journal orphans a journal inode 8 still holds
		 * (and, with needs_recovery, its committed log): then the
		 * superblock names inode 8 again instead. */
		int held = journal_ino_holds_journal(fs);

		if (held)
			pctx.recoverable = recover ? "inode 8 holds the journal, and "
				"needs_recovery is set: its log holds committed transactions" :
				"inode 8 holds the journal";
		if (fix_problem(ctx, PR_0_JOURNAL_NO_INODE, &pctx)) {
			set_compat(sb, EXT4_FEATURE_COMPAT_HAS_JOURNAL, 0);
			if (recover) {
				set_incompat(sb, EXT4_FEATURE_INCOMPAT_RECOVER, 0);
				clear_valid(sb);
			}
			ctx->sb_dirty = 1;
			return 0;
		}
		pctx.recoverable = NULL;
		if (!held) {
			/* no alternative was asked to count the no */
			e4fsck_left(ctx);
			return 0;
		}
		pctx.ino = EXT4_JOURNAL_INO;
		if (!fix_problem(ctx, PR_0_JOURNAL_REPOINT, &pctx) || ctx->read_only)
			return 0;
		sb->s_journal_inum = e4_cpu_to_le32(EXT4_JOURNAL_INO);
		jino = EXT4_JOURNAL_INO;
		ctx->sb_dirty = 1;
	}
	if (ext && !ctx->ext_journal) {
		fix_problem(ctx, PR_0_EXT_JOURNAL_MISSING, &pctx);	/* PR_FATAL */
		return E4_ERR_EXTERNAL_JOURNAL;
	}

	err = e4_journal_open2(fs, ext ? ctx->ext_journal : NULL, E4_JOPEN_IGNORE_CSUM, &j);
	if (!err)
		ctx->journal = j;	/* closed by a stop inside a question */
	if (!err && !ext && (err = e4_journal_inode_mountable(fs))) {
		/* readable as a log, but the kernel will not use it */
		journal_done(ctx, j);
		j = NULL;
	}
	if (!err && !ext) {
		int done = 0;

		err = journal_holes(ctx, j, jino, recover, &done);
		if (done)
			return err;
		if (err)
			j = NULL;
	}
	pctx.ino = jino;
	pctx.err = err;
	if (err && !ext && jsb_magic_bad(err)) {
		/* The inode maps a journal but its superblock is unusable:
		 * open it without judging the superblock to rewrite it. */
		pctx.recoverable = journal_keep(fs, jino, recover);
		if (!fix_problem(ctx, PR_0_JOURNAL_BAD_SUPER, &pctx))
			return 0;
		if (ctx->read_only)
			return 0;
		err = e4_journal_open2(fs, NULL, E4_JOPEN_RAW, &j);
		if (!err) {
			err = reset_journal(ctx, j);
			journal_done(ctx, j);
			return err;
		}
		/* not even the map is usable: remove the journal (a new
		 * one follows the full check) */
		return remove_and_recreate(ctx);
	}
	/* System errors (I/O, memory) and unknown features are no reason to
	 * throw a journal away: they stop e4fsck below. */
	if (err && !ext && err != E4_ERR_NO_MEMORY && err != E4_ERR_JOURNAL_UNSUPP &&
	    !e4_err_is_io(err)) {
		pctx.recoverable = journal_keep(fs, jino, recover);
		if (!fix_problem(ctx, PR_0_JOURNAL_BAD_INODE, &pctx)) {
			ctx->journal_kept_bad = 1;
			return 0;
		}
		return ctx->read_only ? 0 : remove_and_recreate(ctx);
	}
	if (err) {
		/* External journal: wrong device, foreign UUID; unknown
		 * features; unreadable: nothing safe to do. */
		fix_problem(ctx, PR_0_JOURNAL_UNSUPPORTED, &pctx);	/* PR_FATAL */
		return err;
	}
	if (!e4_journal_csum_ok(j)) {
		/* Only the checksum is wrong (every other field validated):
		 * rewrite it and use the log, whose transactions carry their
		 * own checksums.  Resetting would discard them. */
		pctx.err = E4_ERR_JOURNAL_CSUM;
		if (fix_problem(ctx, ext ? PR_0_EXT_JOURNAL_SB_CSUM : PR_0_JOURNAL_SB_CSUM,
				&pctx) && !ctx->read_only) {
			journal_superblock_t jsb = *e4_journal_super(j);

			err = e4_journal_write_super(j, &jsb);
			if (err) {
				journal_done(ctx, j);
				return err;
			}
		} else if (!ext) {
			journal_done(ctx, j);
			return 0;
		}
	}
	*jp = j;
	return 0;
}

/* Does the log's last transaction end in fast-commit records, which the
 * kernel replays and libe4 does not yet?  Replaying without them empties
 * the log: destructive, so only a human's yes does it.  1 when the
 * journal is to be left alone. */
static int fc_pending(struct e4fsck *ctx, e4_journal *j)
{
	struct problem_ctx pctx = { 0 };
	struct e4_jscan_result scan;

	if (!(e4_be32(e4_journal_super(j)->s_feature_incompat) & JBD2_FEATURE_INCOMPAT_FAST_COMMIT) ||
	    e4_journal_scan(j, 0, NULL, NULL, &scan) || !scan.fc_pending)
		return 0;
	pctx.num = scan.fc_tid;
	pctx.recoverable = "the records hold committed changes";
	return !fix_problem(ctx, PR_0_JOURNAL_FC_PENDING, &pctx);
}

errcode_t e4fsck_journal(struct e4fsck *ctx)
{
	struct problem_ctx pctx = { 0 };
	struct e4_jrecover_result res;
	e4_journal *j = NULL;
	errcode_t err;
	int recover, committed_log;
	int32_t jerrno;

	err = open_journal(ctx, &j);
	if (err) {
		if (!ctx->fatal)
			e4fsck_fail_msg(ctx, err, "while checking the journal");
		return err;
	}
	if (!j)
		goto flush;
	recover = e4_has_incompat(ctx->fs, EXT4_FEATURE_INCOMPAT_RECOVER);
	if (!recover && e4_be32(e4_journal_super(j)->s_start)) {
		/* A log needs_recovery does not announce.  What it holds
		 * committed is replayed on a yes (-p stops: a human decides
		 * whether it is newer than the filesystem); only a yes to the
		 * second question discards it. */
		committed_log = log_committed(j);
		if (committed_log && fix_problem(ctx, PR_0_JOURNAL_DATA_NO_RECOVER, &pctx)) {
			recover = 1;
		} else {
			if (committed_log)
				pctx.recoverable = committed;
			if (fix_problem(ctx, PR_0_JOURNAL_RESET, &pctx) && !ctx->read_only) {
				journal_superblock_t jsb = *e4_journal_super(j);

				jsb.s_start = 0;
				err = e4_journal_write_super(j, &jsb);
				if (committed_log)
					clear_valid(e4_super(ctx->fs));
				ctx->sb_dirty = 1;
			}
			pctx.recoverable = NULL;
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
		journal_done(ctx, j);
		if (err) {
			e4fsck_fail_msg(ctx, err, "while updating the journal superblock");
			return err;
		}
		goto flush;
	}
	if (ctx->read_only) {
		fix_problem(ctx, PR_0_JOURNAL_SKIP_READONLY, &pctx);
		journal_done(ctx, j);
		return 0;
	}
	if (fc_pending(ctx, j)) {
		/* Left for the kernel, which replays only what needs_recovery
		 * announces (it wipes any other log at mount). */
		if (!e4_has_incompat(ctx->fs, EXT4_FEATURE_INCOMPAT_RECOVER)) {
			set_incompat(e4_super(ctx->fs), EXT4_FEATURE_INCOMPAT_RECOVER, 1);
			ctx->sb_dirty = 1;
		}
		journal_done(ctx, j);
		goto flush;
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
			journal_done(ctx, j);
			e4fsck_fail_msg(ctx, err, "while writing the superblock");
			return err;
		}
	}
	/* What the journal itself recorded (an abort), before the
	 * recovery adds its own -EINVAL for a failed commit. */
	jerrno = (int32_t)e4_be32((uint32_t)e4_journal_super(j)->s_errno);
	err = e4_journal_recover(ctx->fs, j, NULL, NULL, &res);
	journal_done(ctx, j);
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
		if (err == E4_ERR_NO_MEMORY || err == E4_ERR_READ_ONLY || e4_err_is_io(err) ||
		    res.replay.scan.outcome == E4_JSCAN_NONE) {
			/* the journal was left as it was: nothing more to do safely */
			e4fsck_fail(ctx);
			return err;
		}
	}
	if (res.errno_carried && jerrno) {
		pctx.num = (uint64_t)-(int64_t)jerrno;
		fix_problem(ctx, PR_0_JOURNAL_ERRNO, &pctx);
	}
	/* Cached descriptors and bitmaps are stale: reopen, then check the
	 * journal the replayed filesystem describes (it may have changed). */
	err = e4fsck_close(ctx);
	if (!err)
		err = e4fsck_open(ctx);
	if (err == E4FSCK_STOPPED)
		return err;
	if (err) {
		e4fsck_fail_msg(ctx, err, "while reopening the filesystem after the replay");
		return err;
	}
	err = open_journal(ctx, &j);
	if (err) {
		e4fsck_fail(ctx);
		return err;
	}
	if (j)
		journal_done(ctx, j);
flush:
	if (ctx->sb_dirty && !ctx->read_only) {
		err = e4_super_write(ctx->fs);
		if (!err)
			err = e4_flush(ctx->fs);
		if (err) {
			e4fsck_fail_msg(ctx, err, "while writing the superblock");
			return err;
		}
	}
	return 0;
}

/* After the full check: the journal pass 0 removed as invalid
 * (ctx->journal_recreate) is replaced by a new, empty one of the default
 * size (e4_journal_create(), as e4tune -j), as e2fsck does.  Only when the
 * check ran to its end and left nothing: the allocation trusts the
 * bitmaps.  The filesystem is reopened first so that the allocator reads
 * the bitmaps the passes wrote. */
void e4fsck_journal_recreate(struct e4fsck *ctx)
{
	struct problem_ctx pctx = { 0 };
	uint64_t blocks;
	errcode_t err;

	if (!ctx->journal_recreate || ctx->read_only || ctx->fatal || ctx->uncorrected ||
	    !ctx->fs || e4_has_compat(ctx->fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL))
		return;
	/* the free count the passes wrote, not the one read at the start */
	err = e4fsck_close(ctx);
	if (!err)
		err = e4fsck_open(ctx);
	if (err) {
		e4fsck_fail_msg(ctx, err, "while reopening the filesystem to create the journal");
		return;
	}
	blocks = e4_layout_default_journal_blocks(e4_geom(ctx->fs)->blocks_count);
	if (!blocks || blocks > e4_sb_free_blocks_count(e4_super(ctx->fs)) / 2) {
		pctx.err = E4_ERR_JOURNAL_SIZE;
		fix_problem(ctx, PR_0_JOURNAL_RECREATE_FAILED, &pctx);
		return;
	}
	pctx.num = blocks;
	if (!fix_problem(ctx, PR_0_JOURNAL_RECREATE, &pctx))
		return;
	err = e4_journal_create(ctx->fs, (uint32_t)blocks, 0, 0, ctx->now);
	if (err) {
		pctx.err = err;
		fix_problem(ctx, PR_0_JOURNAL_RECREATE_FAILED, &pctx);
		e4fsck_fail(ctx);
		return;
	}
	ctx->journal_recreate = 0;
}

/* After the full check: the resize inode pass 1 cleared (pass1_inode.c)
 * is built again; here with the journal's recreation, outside the passes. */
void e4fsck_resize_recreate(struct e4fsck *ctx)
{
	struct problem_ctx pctx = { 0 };
	errcode_t err;

	if (!ctx->resize_recreate || ctx->read_only || ctx->fatal || ctx->uncorrected ||
	    !ctx->fs)
		return;
	/* the allocator reads the bitmaps the passes wrote */
	err = e4fsck_close(ctx);
	if (!err)
		err = e4fsck_open(ctx);
	if (!err)
		err = e4_resize_inode_create(ctx->fs, ctx->now);
	if (err) {
		pctx.err = err;
		fix_problem(ctx, PR_1_RESIZE_RECREATE_FAILED, &pctx);
		e4fsck_fail(ctx);
		return;
	}
	ctx->resize_recreate = 0;
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

	/* Read-only, nothing listed, a backup superblock (its list is as
	 * old as the backup) or descriptor copy, or a journal left
	 * unreplayed (the list is as old as the log): nothing to do here. */
	if (ctx->read_only || ctx->sb_used || ctx->gd_copy || ctx->gd_damaged ||
	    (!sb->s_last_orphan && !have_file) ||
	    e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_RECOVER))
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
	if (e4_err_is_io(err)) {
		/* The device failed: the list stays as it is and nothing of
		 * the release is written. */
		pctx.ino = res.bad_ino;
		pctx.err = err;
		fix_problem(ctx, PR_0_ORPHAN_ERROR, &pctx);
		e4_io_discard(e4_fs_io(fs));
		e4fsck_fail(ctx);
		return err;
	}
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
		e4fsck_fail_msg(ctx, err, "while writing the orphans' blocks and inodes");
	}
	return err;
}
