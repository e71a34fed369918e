/*
 * problems_pass1.c: the rows of pass 1's driver (inodes, blocks and
 * sizes: pass1.c, pass1_inode.c, pass1_meta.c), codes 0x010000-0x0101FF
 * (problem.h), sorted by code.  The map checker's rows (0x010200 on)
 * live in their own table.
 *
 * Repairs here change one inode field (or one xattr block's reference
 * count) to what the rest of the filesystem says; what only the later
 * passes can repair is said and left (PR_LEFT).
 */
#include "e4fsck.h"

#define R(code, msg, prompt, flags) { code, #code, msg, prompt, flags, PR_LATCH_NONE, 0 }
/* A row said at most max times (then summed up as "N more"). */
#define M(code, msg, prompt, flags, max) { code, #code, msg, prompt, flags, PR_LATCH_NONE, max }

static const struct problem_row rows[] = {
	R(PR_1_PASS_HEADER,
	  "Pass 1: Checking inodes, blocks, and sizes\n",
	  PROMPT_NONE, PR_PREEN_NOMSG | PR_NOT_A_FIX),
	R(PR_1_DIR_PASSES_NOT_RUN,
	  "%s (%S) did not run: what they judge depends on what an earlier pass could "
	  "not read.\n",
	  PROMPT_NONE, PR_NOT_A_FIX),
	M(PR_1_MAP_DAMAGED,
	  "Inode %i has a damaged block map (%e).\n",
	  PROMPT_NONE, PR_LEFT, 50),
	M(PR_1_ZERO_DTIME,
	  "Inode %i is deleted (no links) but its deletion time is zero.\n",
	  PROMPT_FIX, PR_PREEN_OK, 50),
	M(PR_1_SET_DTIME,
	  "Inode %i is in use but has a deletion time set (%n).\n",
	  PROMPT_FIX, PR_PREEN_OK, 50),
	M(PR_1_BAD_MODE,
	  "Inode %i has mode %x: its file type is none the kernel knows (left for the "
	  "directory checks).\n",
	  PROMPT_NONE, PR_LEFT, 50),
	M(PR_1_BAD_I_SIZE,
	  "Inode %i's size is %n, but its blocks call for %N.\n",
	  PROMPT_FIX, PR_PREEN_OK, 50),
	M(PR_1_BAD_I_BLOCKS,
	  "Inode %i's i_blocks is %n, but it holds %N (512-byte units).\n",
	  PROMPT_FIX, PR_PREEN_OK, 50),
	M(PR_1_INODE_CSUM,
	  "Inode %i passes every check but its checksum does not match.\n",
	  PROMPT_FIX, PR_PREEN_OK, 50),
	M(PR_1_EXTRA_ISIZE,
	  "Inode %i's extra field size (i_extra_isize) is %n, which is not valid here.\n",
	  PROMPT_FIX, PR_PREEN_OK, 50),
	M(PR_1_FAST_SYMLINK_SIZE,
	  "Fast symlink %i has size %n, but the target it holds is %N bytes long.\n",
	  PROMPT_FIX, PR_PREEN_OK, 50),
	M(PR_1_SPECIAL_FLAGS,
	  "Device, FIFO or socket inode %i has flags %x set, which such inodes never carry.\n",
	  PROMPT_FIX, PR_PREEN_OK, 50),
	M(PR_1_SPECIAL_SIZE,
	  "Device, FIFO or socket inode %i has size %n; such inodes have none.\n",
	  PROMPT_FIX, PR_PREEN_OK, 50),
	R(PR_1_INLINE_NO_FEATURE,
	  "Inode %i has the inline data flag, but the filesystem lacks the inline_data "
	  "feature and the inode holds no block map: left (one inode's flag never turns a "
	  "feature on).\n",
	  PROMPT_NONE, PR_LEFT),
	M(PR_1_INLINE_BAD,
	  "Inode %i's inline data cannot be read (%e).\n",
	  PROMPT_NONE, PR_LEFT, 50),
	M(PR_1_INLINE_SIZE,
	  "Directory inode %i's size is %n, but its inline data holds %N bytes.\n",
	  PROMPT_FIX, PR_PREEN_OK, 50),
	M(PR_1_XATTR_BLOCK_RANGE,
	  "Inode %i names extended attribute block %b, which lies outside the filesystem.\n",
	  PROMPT_CLEAR, PR_PREEN_OK, 50),
	M(PR_1_XATTR_BLOCK_BAD,
	  "Inode %i's extended attribute block %b is not one (%e).\n",
	  PROMPT_CLEAR, 0, 50),
	M(PR_1_XATTR_REFCOUNT,
	  "Extended attribute block %b has reference count %n, but %N inode(s) name it.\n",
	  PROMPT_FIX, PR_PREEN_OK, 50),
	M(PR_1_DUP_BLOCKS,
	  "Inode %i has %C block(s) claimed by another inode (left for passes 1B-1D).\n",
	  PROMPT_NONE, PR_LEFT, 50),
	R(PR_1_QUOTA_NOT_VERIFIED,
	  "Note: the quota inodes are taken as in use; their contents (quota not verified) "
	  "are not checked by this version.\n",
	  PROMPT_NONE, PR_PREEN_NOMSG | PR_NOT_A_FIX),
	M(PR_1_SCAN_ERROR,
	  "The inode table of group %g cannot be read (%e): inodes %i-%n not checked "
	  "(left as they are).\n",
	  PROMPT_NONE, 0, 20),
	M(PR_1_XATTR_BLOCK_CSUM,
	  "Extended attribute block %b (of inode %i) does not match its checksum.\n",
	  PROMPT_FIX, PR_PREEN_OK, 50),
	M(PR_1_XATTR_BLOCK_META,
	  "Inode %i names extended attribute block %b, which is filesystem metadata.\n",
	  PROMPT_CLEAR, PR_PREEN_OK, 50),
	R(PR_1_PASS5_SKIPPED,
	  "Pass 5 and the extended attribute block reference counts are skipped: pass 1 "
	  "could not read every inode, so its maps are incomplete.\n",
	  PROMPT_NONE, 0),
	R(PR_1_PASS5_NO_REPAIR,
	  "Pass 5 only reports: pass 1 left blocks claimed twice or a damaged block map, "
	  "and bitmaps rebuilt from its maps could free blocks a file still uses.\n",
	  PROMPT_NONE, PR_NOT_A_FIX),
	M(PR_1_XATTR_IBODY_BAD,
	  "Inode %i's in-inode extended attributes are damaged (%e).\n",
	  PROMPT_CLEAR, 0, 50),
	M(PR_1_TIME_EPOCH,
	  "Inode %i has timestamp(s) with a negative 32-bit base and epoch bits 3: read as "
	  "dates after 2310, they are most likely pre-1970 dates an old kernel stored (the "
	  "fix clears the epoch bits).\n",
	  PROMPT_FIX, PR_PREEN_OK, 50),
	M(PR_1_EA_INODE_REFCOUNT,
	  "EA inode %i keeps reference count %n, but %N attribute entries name it.\n",
	  PROMPT_FIX, PR_PREEN_OK, 50),
	M(PR_1_EA_INODE_UNNAMED,
	  "Note: EA inode %i (reference count %n) is named by no attribute entry: pass 4 "
	  "judges it as any inode (unattached unless a directory names it).\n",
	  PROMPT_NONE, PR_NOT_A_FIX, 50),
	M(PR_1_SPECIAL_HAS_DATA,
	  "Device, FIFO or socket inode %i (mode %x) holds a block map: its file type may be "
	  "what is damaged (its directory entry's file type is the other witness, left to "
	  "passes 2-4).\n",
	  PROMPT_FIX, PR_DESTRUCTIVE, 50),
	M(PR_1_XATTR_BLOCK_READ,
	  "Inode %i's extended attribute block %b cannot be read (%e): left as it is, still "
	  "in use.\n",
	  PROMPT_NONE, PR_LEFT, 50),
	M(PR_1_INLINE_FL_HAS_MAP,
	  "Inode %i has the inline data flag, but the filesystem lacks the inline_data "
	  "feature and the inode holds a valid block map (the fix clears the flag).\n",
	  PROMPT_FIX, 0, 50),
	M(PR_1_UNLINKED_HAS_DATA,
	  "Inode %i has no links and a zero deletion time, but holds %n blocks (512-byte "
	  "units): kept in use, its links left to passes 2-4 to count (reconnected to "
	  "/lost+found if nothing names it).\n",
	  PROMPT_NONE, PR_NOT_A_FIX, 50),
	R(PR_1_JOURNAL_KEPT,
	  "Journal inode %i is damaged (pass 0 kept it, or it differs from the superblock's "
	  "backup of its map): left as it is, and pass 5 only reports.\n",
	  PROMPT_NONE, PR_LEFT),
	M(PR_1_INDEX_FL_NOT_DIR,
	  "Inode %i has the hashed-directory flag (INDEX_FL) but is not a directory.\n",
	  PROMPT_FIX, PR_PREEN_OK, 50),
	M(PR_1_CASEFOLD_NO_FEATURE,
	  "Inode %i has the casefold flag, but the filesystem lacks the casefold feature.\n",
	  PROMPT_FIX, PR_PREEN_OK, 50),
	M(PR_1_ENCRYPT_NO_CONTEXT,
	  "Inode %i has the encrypt flag but no encryption context (attribute c of index 9): "
	  "the fix clears the flag.\n",
	  PROMPT_FIX, 0, 50),
	M(PR_1_XATTR_HASH,
	  "Extended attribute %s of inode %i has entry hash %x, but its name and value give %X "
	  "(the fix rewrites the hash; the value is kept).\n",
	  PROMPT_FIX, PR_PREEN_OK, 50),
	M(PR_1_EA_INODE_HASH,
	  "EA inode %i keeps value hash %x (in i_atime), but its value, and the entry naming it, "
	  "give %X.\n",
	  PROMPT_FIX, PR_PREEN_OK, 50),
	M(PR_1_EA_INODE_VALUE,
	  "Extended attribute %s of inode %i: the value in EA inode %n does not match the hash "
	  "it keeps (%X) and %S: the value may be damaged (left as it is; the kernel refuses "
	  "to read it).\n",
	  PROMPT_NONE, PR_LEFT, 50),
	M(PR_1_MODE_REALLY_DIR,
	  "Inode %i has mode %x, but its first block is a directory block naming it as '.': "
	  "its mode is what is damaged (the fix makes it a directory again).\n",
	  PROMPT_FIX, 0, 50),
	M(PR_1_BAD_INO_INVALID,
	  "The bad-block inode (%i) is no valid bad-block list (%s): it holds no "
	  "user data, and is to be emptied.\n",
	  PROMPT_CLEAR, PR_PREEN_OK, 0),
	M(PR_1_QUOTA_INO_UNUSED_DATA,
	  "Inode %i, kept for a quota file the superblock does not name, holds "
	  "links or blocks: it is to be emptied.\n",
	  PROMPT_CLEAR, PR_PREEN_OK, 0),
	M(PR_1_RESERVED_BAD_MODE,
	  "Reserved inode %i has mode %x, which that inode cannot have: the mode "
	  "is to be cleared.\n",
	  PROMPT_CLEAR, PR_PREEN_OK, 0),
	M(PR_1_RESERVED_INLINE,
	  "Reserved inode %i, which nothing uses, is flagged as holding inline data: "
	  "its contents are not an inode's, and it is to be emptied.\n",
	  PROMPT_CLEAR, PR_PREEN_OK, 0),
	/* a directory whose map keeps no block (no data, no tree block) has
	 * no entry left to lose: cleared (as e2fsck), its name goes in pass
	 * 2, what it held is reconnected by passes 3-4 */
	M(PR_1_ZERO_LENGTH_DIR,
	  "Directory inode %i maps no block: it holds no entries, not even '.' and '..'.\n",
	  PROMPT_CLEAR, 0, 50),
	/* the size its blocks call for cannot be stored (a revision-0
	 * filesystem cannot take large_file): no question whose yes could
	 * not be written */
	M(PR_1_SIZE_CANNOT_HOLD,
	  "Inode %i's size is %n, but its blocks call for %N, which this inode cannot hold "
	  "(%e): left.\n",
	  PROMPT_NONE, PR_LEFT, 50),
	R(PR_1_RESIZE_INVALID,
	  "Resize inode not valid (its map is not the reserved GDT blocks' map): it is "
	  "cleared and recreated after the full check.\n",
	  PROMPT_FIX, 0),
	R(PR_1_RESIZE_RECREATE_FAILED,
	  "The resize inode could not be recreated (%e).\n",
	  PROMPT_NONE, PR_NOT_A_FIX),
};

#define D(code, destroys, when, alt, instead) { code, #code, destroys, when, alt, instead }

static const struct problem_destructive destructive[] = {
	D(PR_1_SPECIAL_HAS_DATA,
	  "the inode's map: its flags, size and i_blocks are cleared and pass 5 frees the "
	  "blocks it maps",
	  "the inode holds blocks of data (i_blocks or an extent tree)", 0,
	  "the inode is left as it is and pass 5 only reports"),
};

const struct problem_pass e4fsck_problems_pass1 = {
	1, "inodes, blocks and sizes",
	rows, sizeof(rows) / sizeof(rows[0]),
	destructive, sizeof(destructive) / sizeof(destructive[0]),
};
