/*
 * problems_pass0.c: the rows of pass 0 (superblock, group descriptors,
 * journal, orphans), codes 0x00NNNN (problem.h), sorted by code.
 */
#include "e4fsck.h"

/* A row without a latch group or a message limit. */
#define R(code, msg, prompt, flags) { code, #code, msg, prompt, flags, PR_LATCH_NONE, 0 }

static const struct problem_row rows[] = {
	/* ---- superblock ---- */
	R(PR_0_SB_USE_BACKUP,
	  "The primary superblock is unusable (%e); using the backup at block %b.\n",
	  PROMPT_NONE, PR_FULL_CHECK),
	R(PR_0_SB_WRITE_PRIMARY,
	  "The primary superblock will be rewritten from the backup "
	  "(descriptors are left to the full check).\n",
	  PROMPT_FIX, PR_PREEN_OK),
	R(PR_0_FUTURE_SB_LAST_MOUNT,
	  "The superblock's last mount time (%t, now %T) lies in the future.\n",
	  PROMPT_FIX, PR_PREEN_OK | PR_NO_OK),
	R(PR_0_FUTURE_SB_LAST_WRITE,
	  "The superblock's last write time (%t, now %T) lies in the future.\n",
	  PROMPT_FIX, PR_PREEN_OK | PR_NO_OK),
	R(PR_0_GD_BAD_LOCATION,
	  "Group %g's %s (block %b) %S.\n",
	  PROMPT_NONE, PR_FULL_CHECK),
	R(PR_0_GD_CSUM,
	  "Group descriptor %g fails its checksum (%x, expected %X).\n",
	  PROMPT_FIX, PR_PREEN_OK),
	R(PR_0_GD_FREE_BLOCKS,
	  "Group %g's free blocks count is %n; its block bitmap says %N.\n",
	  PROMPT_FIX, PR_PREEN_OK),
	R(PR_0_GD_FREE_INODES,
	  "Group %g's free inodes count is %n; its inode bitmap says %N.\n",
	  PROMPT_FIX, PR_PREEN_OK),
	R(PR_0_GD_UNINIT_FLAGS,
	  "Group %g has uninit flags or an unused inodes count without a descriptor "
	  "checksum feature.\n",
	  PROMPT_CLEAR, PR_PREEN_OK),
	R(PR_0_ERRORS_RECORDED,
	  "The filesystem records errors from an earlier use.\n",
	  PROMPT_NONE, PR_FULL_CHECK),
	R(PR_0_ORPHAN_PRESENT_NO_FILE,
	  "The orphan_present feature is set without an orphan file.\n",
	  PROMPT_CLEAR, PR_PREEN_OK),

	/* ---- journal ---- */
	R(PR_0_JOURNAL_BAD_INODE,
	  "The superblock names an invalid journal (inode %i): %e.\n",
	  PROMPT_CLEAR, PR_PREEN_OK | PR_FULL_CHECK | PR_DESTRUCTIVE),
	R(PR_0_JOURNAL_NO_INODE,
	  "The has_journal feature is set but there is no journal.\n",
	  PROMPT_CLEAR, PR_PREEN_OK | PR_DESTRUCTIVE),
	R(PR_0_JOURNAL_RECOVER_NO_JOURNAL,
	  "The needs_recovery flag is set but there is no journal.\n",
	  PROMPT_CLEAR, PR_PREEN_OK),
	R(PR_0_JOURNAL_PRESENT_NO_FEATURE,
	  "The has_journal feature is clear but a journal (inode %i) is present.\n",
	  PROMPT_CLEAR, PR_PREEN_OK | PR_DESTRUCTIVE),
	R(PR_0_JOURNAL_BAD_SUPER,
	  "The journal superblock is corrupt (%e); the journal will be reset "
	  "and its contents not replayed.\n",
	  PROMPT_FIX, PR_PREEN_OK | PR_FULL_CHECK | PR_DESTRUCTIVE),
	R(PR_0_EXT_JOURNAL_SB_CSUM,
	  "The external journal's superblock fails its checksum.\n",
	  PROMPT_FIX, PR_PREEN_OK),
	R(PR_0_JOURNAL_UNSUPPORTED,
	  "The journal cannot be used: %e.\n",
	  PROMPT_NONE, PR_FATAL),
	R(PR_0_JOURNAL_DATA_NO_RECOVER,
	  "The journal holds committed transactions but needs_recovery is not set.\n",
	  PROMPT_RUN, 0),
	R(PR_0_JOURNAL_RESET,
	  "The journal's transactions will be discarded unreplayed.\n",
	  PROMPT_CLEAR_JOURNAL, PR_PREEN_OK | PR_DESTRUCTIVE),
	R(PR_0_JOURNAL_SKIP_READONLY,
	  "Warning: skipping journal recovery because doing a read-only "
	  "filesystem check.\n",
	  PROMPT_NONE, PR_NOT_A_FIX),
	R(PR_0_JOURNAL_RECOVERING,
	  "%d: recovering journal\n",
	  PROMPT_NONE, PR_NOT_A_FIX | PR_PREEN_NOHDR),
	R(PR_0_JOURNAL_CSUM_ERROR,
	  "Journal checksum error found in %d: %e.\n",
	  PROMPT_NONE, PR_FULL_CHECK),
	R(PR_0_JOURNAL_FAILED_COMMIT,
	  "Journal transaction %n was corrupt; replay stopped before it.\n",
	  PROMPT_NONE, PR_FULL_CHECK),
	R(PR_0_JOURNAL_RECOVERY_ERROR,
	  "Journal recovery of %d failed: %e.\n",
	  PROMPT_NONE, PR_FULL_CHECK),
	R(PR_0_JOURNAL_ERRNO,
	  "The journal recorded an error (errno %n); the filesystem is marked "
	  "as having errors.\n",
	  PROMPT_NONE, PR_NOT_A_FIX),
	R(PR_0_JOURNAL_FC_SKIPPED,
	  "Fast-commit records of transaction %n were not replayed "
	  "(not supported yet).\n",
	  PROMPT_NONE, PR_NOT_A_FIX),
	R(PR_0_JOURNAL_DELETED,
	  "*** the journal has been removed ***\n",
	  PROMPT_NONE, PR_NOT_A_FIX),

	/* ---- orphans ---- */
	R(PR_0_ORPHAN_RELEASE,
	  "%s orphaned inode %i (uid=%n, gid=%N, mode=0%S, size=%B)\n",
	  PROMPT_NONE, PR_NOT_A_FIX),
	R(PR_0_ORPHAN_BAD_INODE,
	  "Illegal inode %i in the orphaned inode list.\n",
	  PROMPT_NONE, PR_FULL_CHECK),
	R(PR_0_ORPHAN_ERROR,
	  "Orphan processing of inode %i stopped: %e.\n",
	  PROMPT_NONE, PR_FULL_CHECK),
	R(PR_0_ORPHAN_FILE_BAD,
	  "The orphan file (inode %i) is damaged: %e.\n",
	  PROMPT_NONE, PR_FULL_CHECK),

	/* ---- answer policy (issue 11) ---- */
	R(PR_0_JOURNAL_SB_CSUM,
	  "The journal superblock fails its checksum.\n",
	  PROMPT_FIX, PR_PREEN_OK),
	R(PR_0_JOURNAL_FEATURE_SET,
	  "The journal is kept: the has_journal feature will be set again.\n",
	  PROMPT_FIX, PR_PREEN_OK),
	R(PR_0_JOURNAL_FC_PENDING,
	  "Transaction %n of the journal ends in fast-commit records, which e4fsck "
	  "cannot replay yet (the kernel replays them at mount).\n",
	  PROMPT_REPLAY_NO_FC, PR_PREEN_OK | PR_DESTRUCTIVE),
	R(PR_0_EXT_JOURNAL_MISSING,
	  "The journal is on an external device (its UUID is the \"Journal UUID\" "
	  "of e4tune -l), which was not given: name it with -j external_journal.\n",
	  PROMPT_NONE, PR_FATAL),
	/* ---- superblock and descriptors (issue 11) ---- */
	R(PR_0_SB_USE_FAR_BACKUP,
	  "The primary superblock and the first backups are unusable (%e); "
	  "using the backup at block %b (group %g, %n-byte blocks), found by "
	  "searching every backup location.\n",
	  PROMPT_NONE, PR_FULL_CHECK),
	R(PR_0_SB_GEOMETRY,
	  "The superblock's %s is %n; the geometry says %N (no backup superblock "
	  "is usable, the value is recomputed).\n",
	  PROMPT_FIX, PR_PREEN_OK),
	R(PR_0_GD_USE_COPY,
	  "Using the group descriptor copy kept with group %g's backup superblock "
	  "(block %b) for this run; the full check must rebuild the primary "
	  "descriptors.\n",
	  PROMPT_NONE, PR_FULL_CHECK),
	R(PR_0_GD_NO_GOOD_COPY,
	  "No copy of the group descriptors has sound locations; the full check "
	  "must rebuild them.\n",
	  PROMPT_NONE, PR_FULL_CHECK | PR_LEFT),
	R(PR_0_GD_BITMAP_UNUSABLE,
	  "Group %g's free counts cannot be checked against its bitmaps (%e); "
	  "the full check must rebuild them.\n",
	  PROMPT_NONE, PR_FULL_CHECK | PR_FULL_CHECK_P15),
	R(PR_0_JOURNAL_STALE_NAME,
	  "The filesystem has an internal journal (inode %i), but the superblock "
	  "also names an external journal (%s).\n",
	  PROMPT_CLEAR, PR_PREEN_OK),
	R(PR_0_JOURNAL_REPOINT,
	  "Inode %i holds the journal: the superblock's s_journal_inum will name "
	  "it again.\n",
	  PROMPT_FIX, PR_PREEN_OK),
	R(PR_0_GD_BAD_FIELD,
	  "Group %g's %s is %S.\n",
	  PROMPT_NONE, PR_FULL_CHECK | PR_FULL_CHECK_P15),
	R(PR_0_GD_CSUM_DAMAGE,
	  "Group descriptor %g fails its checksum (%x, expected %X) and its "
	  "fields cannot be confirmed: %s; it is left to the full check.\n",
	  PROMPT_NONE, PR_FULL_CHECK | PR_FULL_CHECK_P15),
	R(PR_0_GD_UNINIT_COUNT,
	  "Group %g is marked %s, but its %S count is %n where that flag means "
	  "%N: the flag or the count is damaged.\n",
	  PROMPT_NONE, PR_FULL_CHECK | PR_FULL_CHECK_P15),
	R(PR_0_ROOT_UNMOUNTABLE,
	  "The root inode is one the kernel refuses at mount (%e); the full "
	  "check must repair it.\n",
	  PROMPT_NONE, PR_FULL_CHECK | PR_FULL_CHECK_P15),	/* passes 1 and 3 do */
	R(PR_0_JOURNAL_HOLE,
	  "The journal (inode %i) is invalid: its logical block %n maps to no "
	  "block inside the filesystem (the kernel aborts such a journal at its "
	  "first write).\n",
	  PROMPT_CLEAR, PR_PREEN_OK | PR_FULL_CHECK | PR_FULL_CHECK_P15 | PR_DESTRUCTIVE),
	R(PR_0_JOURNAL_RECREATE,
	  "The journal removed before the check is to be replaced by a new, "
	  "empty one of %n blocks.\n",
	  PROMPT_CREATE, PR_PREEN_OK),
	R(PR_0_JOURNAL_RECREATE_FAILED,
	  "No new journal was created (%e); e4tune -j adds one.\n",
	  PROMPT_NONE, PR_NOT_A_FIX),
};

/*
 * The destructive rows (PR_DESTRUCTIVE): fix_problem() takes a destructive
 * fix under -y and -p only when the check found nothing recoverable;
 * otherwise -p stops (exit 4) and -y answers no.
 */
#define D(code, destroys, when, alt, instead) { code, #code, destroys, when, alt, instead }
static const struct problem_destructive destructive[] = {
	D(PR_0_JOURNAL_BAD_INODE,
	  "the journal inode and the log it maps; the blocks its map names are freed",
	  "needs_recovery is set (the log holds committed transactions), or the "
	  "inode's block map differs from the superblock's backup of it (the "
	  "blocks it names may be other files')", 0,
	  "the journal is left as it is"),
	D(PR_0_JOURNAL_NO_INODE,
	  "the journal: has_journal and needs_recovery are cleared, so the log "
	  "inode 8 holds is never replayed (its blocks are left to the full check)",
	  "s_journal_inum is 0 but inode 8 holds a journal (its block map is the "
	  "superblock's backup s_jnl_blocks, or it starts with a valid journal "
	  "superblock)", PR_0_JOURNAL_REPOINT, NULL),
	D(PR_0_JOURNAL_PRESENT_NO_FEATURE,
	  "the journal inode and the log it maps; the blocks its map names are freed",
	  "needs_recovery is set, the log holds committed transactions, or the "
	  "inode's block map differs from the superblock's backup of it",
	  PR_0_JOURNAL_FEATURE_SET, NULL),
	D(PR_0_JOURNAL_BAD_SUPER,
	  "the log (a fresh, empty journal superblock is written to the block the "
	  "inode's map names as the journal's first)",
	  "needs_recovery is set (the log holds committed transactions), or the "
	  "inode's block map differs from the superblock's backup of it (that "
	  "block may be another file's)", 0,
	  "the journal is left as it is"),
	D(PR_0_JOURNAL_RESET,
	  "the log's transactions",
	  "the log holds committed transactions (always, once the replay was declined)", 0,
	  "the journal is left as it is"),
	D(PR_0_JOURNAL_FC_PENDING,
	  "the fast-commit records of the last transaction (the replay empties the log)",
	  "always (the records hold committed changes, which the kernel replays)", 0,
	  "the journal is left for the kernel to replay at mount"),
	D(PR_0_JOURNAL_HOLE,
	  "the journal inode and the log it maps; the blocks its map names are freed "
	  "(a new, empty journal is created after the full check)",
	  "needs_recovery is set or the log holds committed transactions, or the "
	  "inode's block map differs from the superblock's backup of it", 0,
	  "the journal is left as it is (exit 4)"),
};

const struct problem_pass e4fsck_problems_pass0 = {
	0, "superblock, descriptors, journal and orphans",
	rows, sizeof(rows) / sizeof(rows[0]),
	destructive, sizeof(destructive) / sizeof(destructive[0]),
};
