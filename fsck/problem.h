/*
 * problem.h: e4fsck's problem engine (problem.c) and its rows
 * (problems_pass0.c, problems_pass5.c, ...).
 *
 * Every inconsistency e4fsck can report is one row: a stable numeric code,
 * a message template, the fix it proposes (the prompt), flags, a latch
 * group and a maximum count.  A check fills a struct problem_ctx and calls
 * fix_problem(ctx, code, &pctx); the engine prints, decides the answer
 * (-n, -y, -p or the terminal), counts what was found, fixed and left,
 * and derives the exit status from those counts alone.
 *
 * Codes: 0xPPNNNN (the scheme of e2fsck's problem codes): PP is the pass
 * (0 superblock, journal and orphans; 1 inodes and blocks; 2 directory
 * entries; 3 directory connectivity; 4 link counts; 5 bitmaps and counts),
 * NNNN the problem within it, never reused once published
 * (doc/e4fsck-problems.md lists them).  Each pass's rows live in
 * fsck/problems_passN.c, sorted by code; a pass may have more than one
 * table (pass 1: problems_pass1.c, the driver's, and problems_pass1_map.c,
 * the map checker's), each holding its own range of codes.
 */
#ifndef E4FSCK_PROBLEM_H
#define E4FSCK_PROBLEM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "e4.h"

struct e4fsck;

#define PR_PASS(code)	((unsigned)(code) >> 16)

/* Values a message template can show: %i inode, %I directory, %b block,
 * %B second block, %C block count, %g group,
 * %n number, %N second number (%x, %X: the same in hex), %s string,
 * %S second string, %e error message of err, %d device, %t num as a
 * date, %T now as a date, %% a percent sign. */
struct problem_ctx {
	e4_ino_t ino;
	e4_ino_t dir;
	e4_blk_t blk, blk2;
	uint64_t blkcount;
	e4_group_t group;
	uint64_t num, num2;
	const char *str, *str2;
	errcode_t err;
	/* Set by a check before asking a PR_DESTRUCTIVE row when its fix
	 * would lose something that can still be recovered: what, in a few
	 * words ("the log holds committed transactions").  Then -y answers
	 * no and -p stops (problem.c). */
	const char *recoverable;
	/* Set by a check that cannot act on a yes (pass 5 reporting only,
	 * struct e4fsck_pass5_input's report_only): the row is said and
	 * answered as under -n, whatever the mode. */
	int answer_no;
};

/* What a yes does (the question asked, the word preen prints). */
enum prompt {
	PROMPT_NONE = 0,	/* informational, or an automatic action */
	PROMPT_FIX,
	PROMPT_CLEAR,
	PROMPT_RELOCATE,
	PROMPT_RUN,		/* replay the journal */
	PROMPT_CLEAR_JOURNAL,
	PROMPT_REPLAY_NO_FC,
	PROMPT_CLONE,		/* copy shared blocks (pass 1D) */
	PROMPT_CONNECT,		/* to /lost+found (passes 3 and 4) */
	PROMPT_CREATE,
	PROMPT_ALLOCATE,
	PROMPT_UNLINK,
	PROMPT_EXPAND,		/* grow /lost+found (passes 3 and 4) */
	PROMPT_MAX
};

/* Row flags. */
#define PR_PREEN_OK	0x0001	/* preen may fix it without asking */
#define PR_NO_OK	0x0002	/* answering no does not leave an error */
#define PR_PREEN_NOMSG	0x0004	/* preen fixes it silently */
#define PR_NOT_A_FIX	0x0008	/* yes is not a repair (no exit bit 1) */
#define PR_NO_DEFAULT	0x0010	/* preen/-y answer no (a risky action) */
#define PR_FULL_CHECK	0x0020	/* leaves the need for a full check */
#define PR_NO_NOMSG	0x0040	/* -n: say nothing */
#define PR_DESTRUCTIVE	0x0080	/* yes clears, discards or deletes something:
				   see struct problem_destructive */
#define PR_FATAL	0x0100	/* the check cannot go on: an operational
				   error (8) with the error left (4); the
				   caller stops */
#define PR_LEFT		0x0200	/* found, and nothing this run does fixes
				   it: counted as left (4) */
#define PR_PREEN_NOHDR	0x0400	/* preen: no "device: " before the message
				   (it names the device itself) */
#define PR_FULL_CHECK_P15 0x0800 /* with PR_FULL_CHECK: this version's full
				   check (passes 1 and 5) repairs it; any
				   other PR_FULL_CHECK row is left by it */

/* Latch groups: rows said as one problem.  The group's first member says
 * the start row first (a header, or a question whose answer every member
 * takes); e4fsck_latch_end() asks the end row (when there is one and the
 * group was started) and returns its answer.  Members are PROMPT_NONE
 * rows: the group's start or end row is what counts. */
enum problem_latch {
	PR_LATCH_NONE = 0,
	PR_LATCH_BBITMAP,	/* block bitmap differences */
	PR_LATCH_IBITMAP,	/* inode bitmap differences */
	PR_LATCH_MAX
};

struct problem_row {
	uint32_t code;
	const char *name;	/* "PR_0_SB_USE_BACKUP" */
	const char *msg;	/* template, see struct problem_ctx */
	enum prompt prompt;
	unsigned flags;
	enum problem_latch latch;
	/* after this many messages of the row the rest are not printed
	 * (still answered and counted) and summed up as "N more" by
	 * e4fsck_problem_summary() (0: no limit; not in interactive mode) */
	unsigned max_count;
};

/* A destructive row: what a yes destroys, when some of that can still be
 * recovered (the check then sets pctx->recoverable), and what happens
 * instead under -y: the non-destructive row asked next (alt), or
 * nothing.  doc/e4fsck-destructive.md is printed from these. */
struct problem_destructive {
	uint32_t code;
	const char *name;
	const char *destroys;		/* what a yes removes */
	const char *recoverable;	/* when the check sets pctx->recoverable */
	uint32_t alt;			/* non-destructive row a check may ask after a no
					   (0: none); not asked, the no is left */
	const char *instead;		/* what -y leaves when there is no alt */
};

/* One table of a pass's rows (fsck/problems_passN*.c), sorted by code.  A
 * pass may have several tables (pass 1: the driver's and the map
 * checker's): codes unique, the tables' code ranges not overlapping. */
struct problem_pass {
	unsigned pass;
	const char *title;
	const struct problem_row *rows;
	size_t nrows;
	const struct problem_destructive *destructive;
	size_t ndestructive;
};

/* A latch group: its start and end rows (0: none). */
struct problem_latch_desc {
	enum problem_latch latch;
	uint32_t start, end;
};

/* Messages of a row with a max_count: said, and held back. */
struct problem_tally {
	const struct problem_row *row;
	unsigned shown, hidden;
};

/* The engine's state in the run's context (struct e4fsck). */
struct problem_state {
	unsigned char latch[PR_LATCH_MAX];	/* LATCH_* bits (problem.c) */
	struct problem_tally *tally;	/* rows with a max_count that were said */
	size_t ntally, cap;
	/* a destructive row answered no whose alternative (alt) may come
	 * next: that row counts the no; anything else asked first, the end
	 * of a pass or the exit status counts it as left (problem.c) */
	uint32_t alt_pending;
};

/* ---- codes ---------------------------------------------------------------
 * Pass 0: superblock, descriptors, journal, orphans (problems_pass0.c). */
#define PR_0_SB_USE_BACKUP		0x000001
#define PR_0_SB_WRITE_PRIMARY		0x000002
#define PR_0_FUTURE_SB_LAST_MOUNT	0x000003
#define PR_0_FUTURE_SB_LAST_WRITE	0x000004
#define PR_0_GD_BAD_LOCATION		0x000005
#define PR_0_GD_CSUM			0x000006
#define PR_0_GD_FREE_BLOCKS		0x000007
#define PR_0_GD_FREE_INODES		0x000008
#define PR_0_GD_UNINIT_FLAGS		0x000009
#define PR_0_ERRORS_RECORDED		0x00000a
#define PR_0_ORPHAN_PRESENT_NO_FILE	0x00000b
#define PR_0_JOURNAL_BAD_INODE		0x00000c
#define PR_0_JOURNAL_NO_INODE		0x00000d
#define PR_0_JOURNAL_RECOVER_NO_JOURNAL	0x00000e
#define PR_0_JOURNAL_PRESENT_NO_FEATURE	0x00000f
#define PR_0_JOURNAL_BAD_SUPER		0x000010
#define PR_0_EXT_JOURNAL_SB_CSUM	0x000011
#define PR_0_JOURNAL_UNSUPPORTED	0x000012
#define PR_0_JOURNAL_DATA_NO_RECOVER	0x000013
#define PR_0_JOURNAL_RESET		0x000014
#define PR_0_JOURNAL_SKIP_READONLY	0x000015
#define PR_0_JOURNAL_RECOVERING		0x000016
#define PR_0_JOURNAL_CSUM_ERROR		0x000017
#define PR_0_JOURNAL_FAILED_COMMIT	0x000018
#define PR_0_JOURNAL_RECOVERY_ERROR	0x000019
#define PR_0_JOURNAL_ERRNO		0x00001a
#define PR_0_JOURNAL_FC_SKIPPED		0x00001b
#define PR_0_JOURNAL_DELETED		0x00001c
#define PR_0_ORPHAN_RELEASE		0x00001d
#define PR_0_ORPHAN_BAD_INODE		0x00001e
#define PR_0_ORPHAN_ERROR		0x00001f
#define PR_0_ORPHAN_FILE_BAD		0x000020
#define PR_0_JOURNAL_SB_CSUM		0x000021
#define PR_0_JOURNAL_FEATURE_SET	0x000022
#define PR_0_JOURNAL_FC_PENDING		0x000023
#define PR_0_EXT_JOURNAL_MISSING	0x000024
#define PR_0_SB_USE_FAR_BACKUP		0x000025
#define PR_0_SB_GEOMETRY		0x000026
#define PR_0_GD_USE_COPY		0x000027
#define PR_0_GD_NO_GOOD_COPY		0x000028
#define PR_0_GD_BITMAP_UNUSABLE		0x000029
#define PR_0_JOURNAL_STALE_NAME		0x00002a
#define PR_0_JOURNAL_REPOINT		0x00002b
#define PR_0_GD_BAD_FIELD		0x00002c
#define PR_0_GD_CSUM_DAMAGE		0x00002d
#define PR_0_GD_UNINIT_COUNT		0x00002e
#define PR_0_ROOT_UNMOUNTABLE		0x00002f
#define PR_0_JOURNAL_HOLE		0x000030
#define PR_0_JOURNAL_RECREATE		0x000031
#define PR_0_JOURNAL_RECREATE_FAILED	0x000032

/* Pass 1: inodes, blocks and sizes (problems_pass1.c: the driver,
 * 0x010000-0x0101FF; the map checker's rows follow from 0x010200). */
#define PR_1_PASS_HEADER		0x010000
#define PR_1_DIR_PASSES_NOT_RUN		0x010001
#define PR_1_MAP_DAMAGED		0x010002
#define PR_1_ZERO_DTIME			0x010003
#define PR_1_SET_DTIME			0x010004
#define PR_1_BAD_MODE			0x010005
#define PR_1_BAD_I_SIZE			0x010006
#define PR_1_BAD_I_BLOCKS		0x010007
#define PR_1_INODE_CSUM			0x010008
#define PR_1_EXTRA_ISIZE		0x010009
#define PR_1_FAST_SYMLINK_SIZE		0x01000a
#define PR_1_SPECIAL_FLAGS		0x01000b
#define PR_1_SPECIAL_SIZE		0x01000c
#define PR_1_INLINE_NO_FEATURE		0x01000d
#define PR_1_INLINE_BAD			0x01000e
#define PR_1_INLINE_SIZE		0x01000f
#define PR_1_XATTR_BLOCK_RANGE		0x010010
#define PR_1_XATTR_BLOCK_BAD		0x010011
#define PR_1_XATTR_REFCOUNT		0x010012
#define PR_1_DUP_BLOCKS			0x010013
#define PR_1_QUOTA_NOT_VERIFIED		0x010014
#define PR_1_SCAN_ERROR			0x010015
#define PR_1_XATTR_BLOCK_CSUM		0x010016
#define PR_1_XATTR_BLOCK_META		0x010017
#define PR_1_PASS5_SKIPPED		0x010018
#define PR_1_PASS5_NO_REPAIR		0x010019
#define PR_1_XATTR_IBODY_BAD		0x01001a
#define PR_1_TIME_EPOCH			0x01001b
#define PR_1_EA_INODE_REFCOUNT		0x01001c
#define PR_1_EA_INODE_UNNAMED		0x01001d
/* pass 1's driver, safety rows (0x010040 on; issue safep1) */
#define PR_1_SPECIAL_HAS_DATA		0x010040
#define PR_1_XATTR_BLOCK_READ		0x010041
#define PR_1_INLINE_FL_HAS_MAP		0x010042
#define PR_1_UNLINKED_HAS_DATA		0x010043
#define PR_1_JOURNAL_KEPT		0x010044
#define PR_1_INDEX_FL_NOT_DIR		0x010045
#define PR_1_CASEFOLD_NO_FEATURE	0x010046
#define PR_1_ENCRYPT_NO_CONTEXT		0x010047
/* pass 1's driver, xattr hashes (0x010060 on; issue 15 part 2a) */
#define PR_1_XATTR_HASH			0x010060
#define PR_1_EA_INODE_HASH		0x010061
#define PR_1_EA_INODE_VALUE		0x010062
/* pass 1: a directory whose mode was damaged */
#define PR_1_MODE_REALLY_DIR		0x010063
/* pass 1: reserved inodes (0x010070 on; review 3) */
#define PR_1_BAD_INO_INVALID		0x010070
#define PR_1_QUOTA_INO_UNUSED_DATA	0x010071
#define PR_1_RESERVED_BAD_MODE		0x010072
#define PR_1_RESERVED_INLINE		0x010073
/* pass 1's driver, directories (0x010080 on; review 3) */
#define PR_1_ZERO_LENGTH_DIR		0x010080
#define PR_1_SIZE_CANNOT_HOLD		0x010081
/* pass 1: the resize inode (0x010090 on; issue 15) */
#define PR_1_RESIZE_INVALID		0x010090
#define PR_1_RESIZE_RECREATE_FAILED	0x010091
/* Pass 1, the map checker (check_map*.c): extent trees and block maps
 * (problems_pass1_map.c; 0x010200-0x0103FF, the driver's rows are below
 * 0x010200). */
#define PR_1_MAP_EXTENT_FEATURE		0x010200
#define PR_1_MAP_EXTENT_FL_NO_TREE	0x010201
#define PR_1_MAP_HEADER_NO_FL		0x010202
#define PR_1_MAP_ROOT_BAD		0x010203
#define PR_1_MAP_ROOT_MAX		0x010204
#define PR_1_MAP_ROOT_ENTRIES		0x010205
#define PR_1_MAP_ROOT_EMPTY_INDEX	0x010206
#define PR_1_MAP_NODE_BAD_BLOCK		0x010207
#define PR_1_MAP_NODE_IN_META		0x010208
#define PR_1_MAP_NODE_READ		0x010209
#define PR_1_MAP_NODE_HEADER		0x01020a
#define PR_1_MAP_NODE_DEPTH		0x01020b
#define PR_1_MAP_NODE_MAX		0x01020c
#define PR_1_MAP_NODE_CSUM		0x01020d
#define PR_1_MAP_NODE_EMPTY		0x01020e
#define PR_1_MAP_INDEX_KEY		0x01020f
#define PR_1_MAP_EXTENT_ZERO		0x010210
#define PR_1_MAP_EXTENT_RANGE		0x010211
#define PR_1_MAP_EXTENT_IN_META		0x010212
#define PR_1_MAP_EXTENT_ORDER		0x010213
#define PR_1_MAP_EXTENT_END_KEY		0x010214
#define PR_1_MAP_EXTENT_START_KEY	0x010215
#define PR_1_MAP_EXTENT_LBLK		0x010216
#define PR_1_MAP_UNWRITTEN_DIR		0x010217
#define PR_1_MAP_NODE_TWICE		0x010218
#define PR_1_MAP_ROOT_AS_BLOCKMAP	0x010219
#define PR_1_MAP_BLOCK_BAD		0x010220
#define PR_1_MAP_BLOCK_IN_META		0x010221
#define PR_1_MAP_IND_BAD		0x010222
#define PR_1_MAP_IND_IN_META		0x010223
#define PR_1_MAP_IND_READ		0x010224
#define PR_1_MAP_IND_GARBAGE		0x010225
#define PR_1_MAP_BLOCKMAP_SIZE		0x010226
#define PR_1_MAP_ROOT_REBUILD		0x010230
#define PR_1_MAP_NODE_ENTRIES_CSUM	0x010231
#define PR_1_MAP_ROOT_STALE		0x010232
#define PR_1_MAP_DIR_TOO_BIG		0x010233

/* Passes 1B-1D: blocks claimed by more than one inode (problems_pass1b.c;
 * 0x011000 1B, 0x012000 1C, 0x013000 1D, as e2fsck numbers them). */
#define PR_1B_PASS_HEADER		0x011000
#define PR_1B_DUP_BLOCKS		0x011001
#define PR_1B_SCAN_ERROR		0x011002
#define PR_1B_MAP_ERROR			0x011003
#define PR_1B_PREEN_STOP		0x011004
#define PR_1C_PASS_HEADER		0x012000
#define PR_1D_PASS_HEADER		0x013000
#define PR_1D_NUM_DUP_INODES		0x013001
#define PR_1D_DUP_FILE			0x013002
#define PR_1D_DUP_FILE_LIST		0x013003
#define PR_1D_SHARE_METADATA		0x013004
#define PR_1D_DUP_BLOCKS_DEALT		0x013005
#define PR_1D_CLONE_QUESTION		0x013006
#define PR_1D_CLONE_ERROR		0x013007
#define PR_1D_CLONE_LEFT		0x013008
/* Pass 3: directory connectivity (problems_pass3.c). */
#define PR_3_PASS_HEADER		0x030000
#define PR_3_NO_ROOT			0x030001
#define PR_3_NO_ROOT_STOP		0x030002
#define PR_3_ROOT_NOT_DIR		0x030003
#define PR_3_UNCONNECTED_DIR		0x030004
#define PR_3_LOOPED_DIR			0x030005
#define PR_3_BAD_DOTDOT			0x030006
#define PR_3_NO_LPF			0x030007
#define PR_3_LPF_NOT_DIR		0x030008
#define PR_3_LPF_ERROR			0x030009
#define PR_3_NO_LPF_CONNECT		0x03000a
#define PR_3_CONNECT_ERROR		0x03000b
#define PR_3_DOTDOT_ERROR		0x03000c
#define PR_3_LOOP_CUT_ERROR		0x03000d
#define PR_3_CONNECT_MAPS_UNSURE	0x03000e
#define PR_3_EXPAND_LPF			0x03000f
#define PR_3_NO_ROOM_LEFT		0x030010

/* Pass 4: reference counts (problems_pass4.c). */
#define PR_4_PASS_HEADER		0x040000
#define PR_4_ZERO_LEN_INODE		0x040001
#define PR_4_UNATTACHED_INODE		0x040002
#define PR_4_BAD_REF_COUNT		0x040003
#define PR_4_DIR_NLINK_FEATURE		0x040004
/* Pass 2: directory entries (problems_pass2.c). */
#define PR_2_PASS_HEADER                0x020000
#define PR_2_DIR_CORRUPT                0x020001
#define PR_2_NO_CSUM_TAIL               0x020002
#define PR_2_NO_CSUM_TAIL_ROOM          0x020003
#define PR_2_LEAF_CSUM                  0x020004
#define PR_2_MISSING_DOT                0x020005
#define PR_2_MISSING_DOTDOT             0x020006
#define PR_2_BAD_DOT_INODE              0x020007
#define PR_2_SPLIT_DOT                  0x020008
#define PR_2_DUP_DOT                    0x020009
#define PR_2_DUP_DOTDOT                 0x02000a
#define PR_2_NULL_NAME                  0x02000b
#define PR_2_BAD_INO                    0x02000c
#define PR_2_UNUSED_INODE               0x02000d
#define PR_2_BAD_NAME                   0x02000e
#define PR_2_BAD_FILETYPE               0x02000f
#define PR_2_FILETYPE_NO_FEATURE        0x020010
#define PR_2_SET_FILETYPE               0x020011
#define PR_2_LINK_DOT                   0x020012
#define PR_2_LINK_ROOT                  0x020013
#define PR_2_LINK_DIR                   0x020014
#define PR_2_HTREE_BAD                  0x020015
#define PR_2_HTREE_CLEAR                0x020016
#define PR_2_DIR_HOLE                   0x020017
#define PR_2_DIR_READ                   0x020018
#define PR_2_DIR_MAP                    0x020019
#define PR_2_INLINE_BAD                 0x02001a
#define PR_2_MISSING_DOT_NO_ROOM        0x02001b
#define PR_2_INLINE_PARENT              0x02001c
#define PR_2_HTREE_CLEAR_LEAVES         0x02001d
#define PR_2_BAD_DOTDOT_INO             0x02001e
#define PR_2_UNLINKED_NAMED             0x02001f
#define PR_2_DOT_NULL_TERM              0x020020
#define PR_2_DOTDOT_NULL_TERM           0x020021
#define PR_2_DUP_ENTRY                  0x020022
#define PR_2_DUP_RENAME                 0x020023
#define PR_2_DUP_NAME_LEFT              0x020024

/* Pass 5: bitmaps and counts (problems_pass5.c). */
#define PR_5_PASS_HEADER		0x050000
#define PR_5_BLOCK_BITMAP_HEADER	0x050001
#define PR_5_BLOCK_UNUSED		0x050002	/* -b */
#define PR_5_BLOCK_USED			0x050003	/* +b */
#define PR_5_BLOCK_RANGE_UNUSED		0x050004	/* -(b--c) */
#define PR_5_BLOCK_RANGE_USED		0x050005	/* +(b--c) */
#define PR_5_BLOCK_BITMAP_END		0x050006
#define PR_5_INODE_BITMAP_HEADER	0x050007
#define PR_5_INODE_UNUSED		0x050008
#define PR_5_INODE_USED			0x050009
#define PR_5_INODE_RANGE_UNUSED		0x05000a
#define PR_5_INODE_RANGE_USED		0x05000b
#define PR_5_INODE_BITMAP_END		0x05000c
#define PR_5_FREE_BLOCK_COUNT_GROUP	0x05000d
#define PR_5_FREE_INODE_COUNT_GROUP	0x05000e
#define PR_5_FREE_DIR_COUNT_GROUP	0x05000f
#define PR_5_FREE_BLOCK_COUNT		0x050010
#define PR_5_FREE_INODE_COUNT		0x050011
#define PR_5_BLOCK_BITMAP_CSUM		0x050012
#define PR_5_INODE_BITMAP_CSUM		0x050013
#define PR_5_BLOCK_UNINIT		0x050014
#define PR_5_INODE_UNINIT		0x050015
#define PR_5_ITABLE_UNUSED		0x050016
#define PR_5_GD_CSUM			0x050017
#define PR_5_GD_FLAGS			0x050018
#define PR_5_BLOCK_UNINIT_LAST		0x050019
#define PR_5_BLOCK_BITMAP_PADDING	0x05001a
#define PR_5_INODE_BITMAP_PADDING	0x05001b

/* ---- the engine (problem.c) ------------------------------------------- */
/* Report problem code with the values in *pctx (NULL: none) and decide
 * what to do, according to the answer policy.  Returns 1 if the fix
 * should be applied, 0 if not.  In preen mode a problem that is not safe
 * to fix without a human ends the run (exit 4, e4fsck_exit()).  Counts
 * what was found, fixed and left, for the exit code.  An unknown code is
 * an internal error: said, counted as an operational error, 0. */
int fix_problem(struct e4fsck *ctx, uint32_t code, struct problem_ctx *pctx);
/* fix_problem() for a row given directly (the unit tests' rows). */
int e4fsck_fix_row(struct e4fsck *ctx, const struct problem_row *row,
		   struct problem_ctx *pctx);
/* End latch group latch: when one of its members was said, ask its end
 * row (if any) and return the answer (1: fix); 0 when the group was not
 * started or has no end row.  The group can start again afterwards. */
int e4fsck_latch_end(struct e4fsck *ctx, enum problem_latch latch, struct problem_ctx *pctx);
/* Say how many messages max_count held back ("N more"), for each row,
 * and start the counts again; at the end of each pass. */
void e4fsck_problem_summary(struct e4fsck *ctx);
/* Free the engine's state (end of the run). */
void e4fsck_problem_release(struct e4fsck *ctx);

/* The counters of the exit status, for what is not a row.  An
 * operational error (8): e4fsck_fail(), with its one line on stderr
 * (e4fsck_fail_msg()); an error known and left for a later check (4):
 * e4fsck_left(). */
void e4fsck_fail(struct e4fsck *ctx);
void e4fsck_fail_msg(struct e4fsck *ctx, errcode_t err, const char *what);
void e4fsck_left(struct e4fsck *ctx);
/* The exit status from what was found and fixed (fsck(8) bits). */
int e4fsck_exit_code(const struct e4fsck *ctx);

/* The tables: every pass's rows, and lookups. */
extern const struct problem_pass e4fsck_problems_pass0, e4fsck_problems_pass5;
extern const struct problem_pass e4fsck_problems_pass1;
extern const struct problem_pass e4fsck_problems_pass1_map;
extern const struct problem_pass e4fsck_problems_pass1b;
extern const struct problem_pass e4fsck_problems_pass3, e4fsck_problems_pass4;
extern const struct problem_pass e4fsck_problems_pass2;
/* The passes' tables in order; *n gets their number. */
const struct problem_pass *const *e4fsck_problem_passes(size_t *n);
/* The row of code, or NULL. */
const struct problem_row *e4fsck_problem_find(uint32_t code);
const struct problem_destructive *e4fsck_problem_destructive(uint32_t code);
/* The latch groups' start and end rows. */
const struct problem_latch_desc *e4fsck_latch_desc(enum problem_latch latch);
/* The question and the preen word of a prompt. */
const char *e4fsck_prompt_question(enum prompt p);
/* The documentation (problem_doc.c): Markdown to f; 0, or 1 when the
 * tables are inconsistent (said on stderr). */
int e4fsck_list_problems(FILE *f);
int e4fsck_list_destructive(FILE *f);

#endif
