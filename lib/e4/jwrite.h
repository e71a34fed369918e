/*
 * jwrite.h: writing jbd2 transactions by hand (jwrite.c): an internal
 * journal (inode 8) or an external journal device.  Used to make test
 * logs (e4debugfs journal_open/journal_write/journal_close) the way the
 * kernel would have left them.  Format doc sections 11 and 12.
 *
 * A transaction is built in memory (e4_jwrite_add_block(),
 * e4_jwrite_add_revoke()) and written by e4_jwrite_commit() in this order:
 * revoke blocks, then descriptor blocks each followed by the blocks it
 * logs; an ordering point; the commit block; an ordering point; then, for
 * the first committed transaction of a log that was empty, the filesystem's
 * needs_recovery flag, an ordering point, and the journal superblock's
 * s_start/s_sequence pointing at it.  A stop at any write therefore
 * leaves a log that recovery replays whole or not at all.
 */
#ifndef E4_JWRITE_H
#define E4_JWRITE_H

#include "e4.h"

typedef struct e4_jwrite e4_jwrite;

#define E4_JWRITE_SET_CSUM	0x0001	/* set the checksum version (csum_version) */

struct e4_jwrite_opts {
	unsigned flags;			/* E4_JWRITE_* */
	int csum_version;		/* E4_JWRITE_SET_CSUM: 0 none, 1 (crc32 commit
					   checksum, compat CHECKSUM), 2, 3 (crc32c) */
	uint32_t set_incompat;		/* jbd2 incompat bits to set / clear at open: */
	uint32_t clear_incompat;	/* 64BIT, ASYNC_COMMIT, REVOKE only */
	uint32_t start;			/* an empty log starts here (0: s_first) */
	uint64_t commit_sec;		/* commit time (0: the clock) */
	uint32_t commit_nsec;
};

/* Open fs's journal (fs opened E4_OPEN_RW) for writing: the internal
 * journal, or with ext_path the external journal device.  An empty log
 * (s_start 0) is written from opts->start (or s_first) with tid
 * s_sequence; otherwise after the last committed transaction found by the
 * recovery scan, with the next tid (an uncommitted tail is overwritten).
 * Feature changes in opts (may be NULL) need an empty log; they are
 * written with the first transaction or at e4_jwrite_close().
 * Errors: E4_ERR_READ_ONLY, e4_journal_open()'s, E4_ERR_JOURNAL_BUSY
 * (features to change on a log holding transactions),
 * E4_ERR_JOURNAL_VERSION (features asked of a v1 journal superblock),
 * E4_ERR_INVALID_ARGUMENT (bad opts), E4_ERR_JOURNAL_LOG_CORRUPT (a log
 * whose end the scan cannot decide), read errors, E4_ERR_NO_MEMORY. */
errcode_t e4_jwrite_open(e4_fs *fs, const char *ext_path, const struct e4_jwrite_opts *opts,
			 e4_jwrite **ret);
/* Add a copy of data (one journal block) to the transaction, to be
 * replayed at filesystem block blk.  Blocks that start with the jbd2
 * magic number are escaped when written.  E4_ERR_BAD_BLOCK_NUM (blk at or
 * past the filesystem's blocks_count, or needing 64-bit tags the journal
 * has not), E4_ERR_JOURNAL_FULL (the transaction with its commit block
 * would no longer fit in the free log space), E4_ERR_NO_MEMORY.  On error
 * the transaction is kept as it was (e4_jwrite_drop() discards it). */
errcode_t e4_jwrite_add_block(e4_jwrite *w, uint64_t blk, const void *data);
/* Add a revoke record for filesystem block blk.  Errors as above. */
errcode_t e4_jwrite_add_revoke(e4_jwrite *w, uint64_t blk);
/* Discard the blocks and revokes added since the last commit. */
void e4_jwrite_drop(e4_jwrite *w);
#define E4_JWRITE_NO_COMMIT	0x0001	/* write the blocks, no commit block */
/* Write the transaction built so far (the order is in the file comment)
 * and flush; the next one gets the next tid.  With E4_JWRITE_NO_COMMIT
 * the commit block is left out (an uncommitted transaction: recovery
 * ignores it) and the next transaction is written over it with the same
 * tid; it does not make an empty log live (s_start and needs_recovery are
 * left alone), as the reference debugfs's "journal_write -c".
 * E4_ERR_JOURNAL_FULL (it does not fit in the free log space), write
 * errors; the transaction is dropped either way (after an error the next
 * one is written where it began). */
errcode_t e4_jwrite_commit(e4_jwrite *w, unsigned flags);
/* Drop what was added since the last commit, write the journal
 * superblock if a feature changed, flush, free w (also on error).
 * Write errors. */
errcode_t e4_jwrite_close(e4_jwrite *w);
/* Where the next transaction goes: its first log block and tid. */
uint32_t e4_jwrite_head(const e4_jwrite *w);
uint32_t e4_jwrite_tid(const e4_jwrite *w);
/* The journal being written (for its superblock and geometry). */
e4_journal *e4_jwrite_journal(const e4_jwrite *w);

#endif /* E4_JWRITE_H */
