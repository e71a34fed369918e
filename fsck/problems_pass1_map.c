/*
 * problems_pass1_map.c: the rows of pass 1's map checker (check_map*.c:
 * extent trees and block maps), codes 0x010200-0x0103FF (problem.h),
 * sorted by code.  The driver's rows (0x010000-0x0101FF) are in
 * problems_pass1.c.
 *
 * What a yes does: a bad entry is dropped (an extent, an index entry and
 * with it the subtree below, a block pointer set to 0); keys, eh_max and
 * checksums are rewritten; nothing is dropped that a key or header repair
 * can keep.  Dropping is not PR_PREEN_OK (preen stops); rewriting what is
 * derived (keys, eh_max, an empty node) is; a failing checksum is not
 * (it is evidence of damage the checks did not see).  A zero-length extent
 * and a checksum rewrite are PR_DESTRUCTIVE: with something recoverable
 * -y answers no and pass 5 only reports.
 */
#include "e4fsck.h"

#define R(code, msg, prompt, flags) { code, #code, msg, prompt, flags, PR_LATCH_NONE, 0 }
/* Rows that may come once per block of a damaged map: at most 20 said. */
#define M(code, msg, prompt, flags) { code, #code, msg, prompt, flags, PR_LATCH_NONE, 20 }

static const struct problem_row rows[] = {
	/* ---- the inode's flags against i_block ---- */
	R(PR_1_MAP_EXTENT_FEATURE,
	  "Inode %i is in extent format, but the superblock lacks the extent feature.\n",
	  PROMPT_FIX, 0),
	R(PR_1_MAP_EXTENT_FL_NO_TREE,
	  "Inode %i has EXTENTS_FL on a filesystem without the extent feature and "
	  "i_block holds no extent tree (the flag is cleared; the map is checked as a "
	  "block map).\n",
	  PROMPT_FIX, 0),
	R(PR_1_MAP_HEADER_NO_FL,
	  "Inode %i holds an extent tree in i_block, but EXTENTS_FL is not set.\n",
	  PROMPT_FIX, PR_PREEN_OK),
	/* ---- the root in i_block ---- */
	R(PR_1_MAP_ROOT_BAD,
	  "Inode %i's extent tree root is unusable (%s).\n",
	  PROMPT_CLEAR, PR_DESTRUCTIVE),
	R(PR_1_MAP_ROOT_MAX,
	  "Inode %i's extent tree root has eh_max %n, expected %N.\n",
	  PROMPT_FIX, PR_PREEN_OK),
	R(PR_1_MAP_ROOT_ENTRIES,
	  "Inode %i's extent tree root claims %n entries; i_block holds %N.\n",
	  PROMPT_FIX, 0),
	R(PR_1_MAP_ROOT_EMPTY_INDEX,
	  "Inode %i's extent tree root is an index node without entries.\n",
	  PROMPT_FIX, PR_PREEN_OK),
	/* ---- tree blocks ---- */
	M(PR_1_MAP_NODE_BAD_BLOCK,
	  "Inode %i's extent tree node for logical block %n is at block %b, outside "
	  "the filesystem.\n",
	  PROMPT_CLEAR, 0),
	M(PR_1_MAP_NODE_IN_META,
	  "Inode %i's extent tree node at block %b (logical %n) overlaps filesystem "
	  "metadata.\n",
	  PROMPT_CLEAR, 0),
	M(PR_1_MAP_NODE_READ,
	  "Inode %i's extent tree node at block %b cannot be read: %e.\n",
	  PROMPT_NONE, PR_LEFT),
	M(PR_1_MAP_NODE_HEADER,
	  "Inode %i's extent tree node at block %b (logical %n) has a bad header (%s).\n",
	  PROMPT_CLEAR, 0),
	M(PR_1_MAP_NODE_DEPTH,
	  "Inode %i's extent tree node at block %b has depth %n, expected %N (its "
	  "entries are of depth %N).\n",
	  PROMPT_FIX, PR_PREEN_OK),
	M(PR_1_MAP_NODE_MAX,
	  "Inode %i's extent tree node at block %b has eh_max %n, expected %N.\n",
	  PROMPT_FIX, PR_PREEN_OK),
	/* A failing checksum is evidence of damage the checks did not see:
	 * never rewritten by preen; destructive when the slots past
	 * eh_entries still name blocks (pass 5 would free them). */
	M(PR_1_MAP_NODE_CSUM,
	  "Inode %i's extent tree node at block %b passes its checks but fails its "
	  "checksum.\n",
	  PROMPT_FIX, PR_DESTRUCTIVE),
	M(PR_1_MAP_NODE_EMPTY,
	  "Inode %i's extent tree node at block %b (logical %n) has no entries.\n",
	  PROMPT_CLEAR, PR_PREEN_OK),
	M(PR_1_MAP_INDEX_KEY,
	  "Inode %i's index entry for the node at block %b has key %n, but the node "
	  "starts at logical block %N.\n",
	  PROMPT_FIX, PR_PREEN_OK),
	/* ---- leaf extents ---- */
	M(PR_1_MAP_EXTENT_ZERO,
	  "Inode %i has an extent of length 0 (logical %n, physical %b).\n",
	  PROMPT_CLEAR, PR_DESTRUCTIVE),
	M(PR_1_MAP_EXTENT_RANGE,
	  "Inode %i has an extent (logical %n, physical %b, length %N) outside the "
	  "filesystem.\n",
	  PROMPT_CLEAR, 0),
	M(PR_1_MAP_EXTENT_IN_META,
	  "Inode %i has an extent (logical %n, physical %b, length %N) overlapping "
	  "filesystem metadata.\n",
	  PROMPT_CLEAR, 0),
	M(PR_1_MAP_EXTENT_ORDER,
	  "Inode %i has an extent (logical %n, physical %b, length %N) out of order: it "
	  "starts before the end of the one before it (%C).\n",
	  PROMPT_CLEAR, 0),
	M(PR_1_MAP_EXTENT_END_KEY,
	  "Inode %i has an extent (logical %n, physical %b, length %N) ending past the "
	  "next index key %C (it is shortened).\n",
	  PROMPT_FIX, 0),
	M(PR_1_MAP_EXTENT_START_KEY,
	  "Inode %i has an extent (logical %n, physical %b, length %N) starting at or "
	  "past the next index key %C.\n",
	  PROMPT_CLEAR, 0),
	M(PR_1_MAP_EXTENT_LBLK,
	  "Inode %i has an extent (logical %n, physical %b, length %N) ending past the "
	  "last logical block an extent tree addresses.\n",
	  PROMPT_CLEAR, 0),
	M(PR_1_MAP_UNWRITTEN_DIR,
	  "Directory inode %i has an unwritten extent (logical %n, physical %b, "
	  "length %N).\n",
	  PROMPT_FIX, PR_PREEN_OK),
	M(PR_1_MAP_NODE_TWICE,
	  "Inode %i's map names block %b as a tree or indirect block a second time.\n",
	  PROMPT_CLEAR, 0),
	R(PR_1_MAP_ROOT_AS_BLOCKMAP,
	  "Inode %i's i_block reads as a block map: EXTENTS_FL is cleared and the map "
	  "checked as one.\n",
	  PROMPT_FIX, 0),
	/* ---- block maps ---- */
	M(PR_1_MAP_BLOCK_BAD,
	  "Inode %i's block %b (logical %n) is outside the filesystem.\n",
	  PROMPT_CLEAR, 0),
	M(PR_1_MAP_BLOCK_IN_META,
	  "Inode %i's block %b (logical %n) overlaps filesystem metadata.\n",
	  PROMPT_CLEAR, 0),
	M(PR_1_MAP_IND_BAD,
	  "Inode %i's %s block %b is outside the filesystem.\n",
	  PROMPT_CLEAR, 0),
	M(PR_1_MAP_IND_IN_META,
	  "Inode %i's %s block %b overlaps filesystem metadata.\n",
	  PROMPT_CLEAR, 0),
	M(PR_1_MAP_IND_READ,
	  "Inode %i's %s block %b cannot be read: %e.\n",
	  PROMPT_NONE, PR_LEFT),
	M(PR_1_MAP_IND_GARBAGE,
	  "Inode %i's %s block %b holds %n block numbers outside the filesystem "
	  "(of %N): it is not an indirect block.\n",
	  PROMPT_CLEAR, 0),
	R(PR_1_MAP_BLOCKMAP_SIZE,
	  "Inode %i's size %n is beyond the %N bytes a block map addresses.\n",
	  PROMPT_FIX, PR_PREEN_OK),
	/* ---- header repairs that keep entries (not preen: a guess at a count) ---- */
	R(PR_1_MAP_ROOT_REBUILD,
	  "Inode %i's extent tree root header is damaged (%s), but its entries are "
	  "intact: the header is rebuilt with %n entries, depth %N.\n",
	  PROMPT_FIX, 0),
	M(PR_1_MAP_NODE_ENTRIES_CSUM,
	  "Inode %i's extent tree node at block %b claims %n entries, but its checksum "
	  "matches %N (the entries past the count are intact): the count is restored.\n",
	  PROMPT_FIX, 0),
	R(PR_1_MAP_ROOT_STALE,
	  "Inode %i's extent tree root claims %n entries with room for 4; %N are valid, "
	  "the slots after them are dropped (%s).\n",
	  PROMPT_FIX, 0),
	/* ---- a directory's bound (a yes drops the entry; e2fsck's "too big") ---- */
	M(PR_1_MAP_DIR_TOO_BIG,
	  "Directory inode %i maps logical block %n (physical %b, length %N) past the "
	  "%C blocks a directory may have without the large_dir feature.\n",
	  PROMPT_CLEAR, 0),
};

#define D(code, destroys, when, alt, instead) { code, #code, destroys, when, alt, instead }

static const struct problem_destructive destructive[] = {
	D(PR_1_MAP_ROOT_BAD,
	  "the inode (its tree blocks and data are left for pass 5 to free)",
	  "i_block has no extent magic but reads as a block map (block numbers, "
	  "every one inside the filesystem)", PR_1_MAP_ROOT_AS_BLOCKMAP, NULL),
	D(PR_1_MAP_EXTENT_ZERO,
	  "the extent (pass 5 frees its blocks)",
	  "its length is implied by what follows it (the next extent's logical start, "
	  "or the size) and its first block lies inside the filesystem: a hole there "
	  "cannot be told from a longer extent, so the length is not guessed",
	  0, "the extent is left as stored and pass 5 frees nothing"),
	D(PR_1_MAP_NODE_CSUM,
	  "the node's slots past eh_entries (pass 5 frees the blocks they name)",
	  "slots past eh_entries continue the node's entries in order inside the "
	  "filesystem: the count may be what was damaged",
	  0, "the node is left as stored and pass 5 frees nothing"),
};

const struct problem_pass e4fsck_problems_pass1_map = {
	1, "inodes and blocks: extent trees and block maps",
	rows, sizeof(rows) / sizeof(rows[0]),
	destructive, sizeof(destructive) / sizeof(destructive[0]),
};
