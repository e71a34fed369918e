/*
 * problems_pass2.c: the rows of pass 2 (directory entries: pass2*.c),
 * codes 0x020000-0x02FFFF (problem.h), sorted by code.
 *
 * In the messages %I is the directory, %i the inode an entry names, %s
 * the entry's name (bytes that do not print shown as '?'), %b the
 * physical block, %n the directory's logical block, %N the offset in it.
 * What the directory passes 3 and 4 settle (link counts, '..' against
 * the parent, lost+found) is not said here.
 */
#include "e4fsck.h"

#define R(code, msg, prompt, flags) { code, #code, msg, prompt, flags, PR_LATCH_NONE, 0 }
/* A row said at most max times (then summed up as "N more"). */
#define M(code, msg, prompt, flags, max) { code, #code, msg, prompt, flags, PR_LATCH_NONE, max }

static const struct problem_row rows[] = {
	R(PR_2_PASS_HEADER,
	  "Pass 2: Checking directory structure\n",
	  PROMPT_NONE, PR_PREEN_NOMSG | PR_NOT_A_FIX),
	M(PR_2_DIR_CORRUPT,
	  "Directory %I, block %n (physical %b), offset %N: a record's length or name length "
	  "does not fit (%S); the fix keeps the records before it and whatever still parses "
	  "after it.\n",
	  PROMPT_FIX, 0, 50),
	M(PR_2_NO_CSUM_TAIL,
	  "Directory %I, block %n (physical %b): the block has no checksum tail.\n",
	  PROMPT_FIX, PR_PREEN_OK, 50),
	M(PR_2_NO_CSUM_TAIL_ROOM,
	  "Directory %I, block %n (physical %b): the block has no checksum tail, and its last "
	  "record has no room for one (left: rebuilding the directory with -D makes room).\n",
	  PROMPT_NONE, PR_LEFT, 50),
	M(PR_2_LEAF_CSUM,
	  "Directory %I, block %n (physical %b): every record is sound but the block's "
	  "checksum does not match.\n",
	  PROMPT_FIX, PR_PREEN_OK, 50),
	M(PR_2_MISSING_DOT,
	  "Directory %I has no '.' record first in its first block.\n",
	  PROMPT_FIX, 0, 50),
	M(PR_2_MISSING_DOTDOT,
	  "Directory %I has no '..' record second in its first block (the fix makes the record "
	  "'..', naming the directory it named if it is one, else the root; the connectivity "
	  "pass checks it against the parent).\n",
	  PROMPT_FIX, 0, 50),
	M(PR_2_BAD_DOT_INODE,
	  "Directory %I's '.' record names inode %i instead of the directory itself.\n",
	  PROMPT_FIX, 0, 50),
	M(PR_2_SPLIT_DOT,
	  "Directory %I's '.' record is %n bytes long: the rest of its record becomes an unused "
	  "one.\n",
	  PROMPT_FIX, 0, 50),
	M(PR_2_DUP_DOT,
	  "Entry '%s' at block %n, offset %N of directory %I is a second '.' record.\n",
	  PROMPT_CLEAR, 0, 50),
	M(PR_2_DUP_DOTDOT,
	  "Entry '%s' at block %n, offset %N of directory %I is a second '..' record.\n",
	  PROMPT_CLEAR, 0, 50),
	M(PR_2_NULL_NAME,
	  "An entry at block %n, offset %N of directory %I names inode %i with an empty name.\n",
	  PROMPT_CLEAR, 0, 50),
	M(PR_2_BAD_INO,
	  "Entry '%s' in directory %I names inode %i, which is outside the filesystem or a "
	  "reserved inode.\n",
	  PROMPT_CLEAR, 0, 50),
	M(PR_2_UNUSED_INODE,
	  "Entry '%s' in directory %I names inode %i, which is not in use (deleted, or cleared "
	  "by pass 1).\n",
	  PROMPT_CLEAR, PR_PREEN_OK, 50),
	M(PR_2_BAD_NAME,
	  "Entry '%s' in directory %I (inode %i) has a '/' or NUL byte in its name (the fix "
	  "turns each into '.').\n",
	  PROMPT_FIX, 0, 50),
	M(PR_2_BAD_FILETYPE,
	  "Entry '%s' in directory %I (inode %i) has file type %n, but the inode's is %N.\n",
	  PROMPT_FIX, 0, 50),
	M(PR_2_FILETYPE_NO_FEATURE,
	  "Entry '%s' in directory %I (inode %i) has file type %n, but the filesystem lacks the "
	  "filetype feature.\n",
	  PROMPT_CLEAR, PR_PREEN_OK, 50),
	M(PR_2_SET_FILETYPE,
	  "Entry '%s' in directory %I (inode %i) has no file type: set to %N.\n",
	  PROMPT_FIX, PR_PREEN_OK | PR_PREEN_NOMSG | PR_NO_OK | PR_NO_NOMSG, 50),
	M(PR_2_LINK_DOT,
	  "Entry '%s' in directory %I names the directory itself.\n",
	  PROMPT_CLEAR, 0, 50),
	M(PR_2_LINK_ROOT,
	  "Entry '%s' in directory %I names the root directory.\n",
	  PROMPT_CLEAR, 0, 50),
	M(PR_2_LINK_DIR,
	  "Entry '%s' in directory %I names directory %i, which directory %N already holds "
	  "(a second name for a directory).\n",
	  PROMPT_CLEAR, 0, 50),
	M(PR_2_HTREE_BAD,
	  "Indexed directory %I: %s.\n",
	  PROMPT_NONE, PR_NOT_A_FIX, 50),
	M(PR_2_HTREE_CLEAR,
	  "Directory %I's hash index cannot be used: the fix clears its index flag, so it is "
	  "read linearly (e4fsck -D, or a later check, rebuilds the index).\n",
	  PROMPT_CLEAR, PR_PREEN_OK, 50),
	M(PR_2_DIR_HOLE,
	  "Directory %I has no block at logical block %n (a hole): left.\n",
	  PROMPT_NONE, PR_LEFT, 50),
	M(PR_2_DIR_READ,
	  "Directory %I, block %n (physical %b) cannot be read (%e): left.\n",
	  PROMPT_NONE, PR_LEFT, 50),
	M(PR_2_DIR_MAP,
	  "Directory %I's block map cannot be followed (%e): its entries are not checked.\n",
	  PROMPT_NONE, PR_LEFT, 50),
	M(PR_2_INLINE_BAD,
	  "Inline directory %I cannot be read (%e): its entries are not checked.\n",
	  PROMPT_NONE, PR_LEFT, 50),
	M(PR_2_MISSING_DOT_NO_ROOM,
	  "Directory %I's first block starts with entry '%s' (inode %i) and has no room for a "
	  "'%S' record before it: left.\n",
	  PROMPT_NONE, PR_LEFT, 50),
	M(PR_2_INLINE_PARENT,
	  "Inline directory %I names inode %i as its parent, which is outside the filesystem or "
	  "not in use (the fix names the root; the connectivity pass sets it to the parent).\n",
	  PROMPT_FIX, 0, 50),
	M(PR_2_HTREE_CLEAR_LEAVES,
	  "Directory %I's hash index does not match its leaves: the fix clears its index flag, "
	  "so it is read linearly (e4fsck -D, or a later check, rebuilds the index).\n",
	  PROMPT_CLEAR, 0, 50),
	M(PR_2_BAD_DOTDOT_INO,
	  "Directory %I's '..' record names inode %i, which is outside the filesystem, reserved "
	  "or not in use (the fix names the root; the connectivity pass sets it to the "
	  "parent).\n",
	  PROMPT_FIX, 0, 50),
	M(PR_2_UNLINKED_NAMED,
	  "Entry '%s' in directory %I names inode %i, which has no links but holds data (pass "
	  "1 left it as it is): the entry is kept (the reference-count pass, not in this "
	  "version, would set its link count).\n",
	  PROMPT_NONE, PR_LEFT, 50),
	M(PR_2_DOT_NULL_TERM,
	  "Directory %I's '.' record is not followed by a NUL byte.\n",
	  PROMPT_FIX, 0, 50),
	M(PR_2_DOTDOT_NULL_TERM,
	  "Directory %I's '..' record is not followed by a NUL byte.\n",
	  PROMPT_FIX, 0, 50),
	M(PR_2_DUP_ENTRY,
	  "Entry '%s' in directory %I (inode %i) is a second copy of an entry before it in its "
	  "block.\n",
	  PROMPT_CLEAR, 0, 50),
	M(PR_2_DUP_RENAME,
	  "Entry '%s' in directory %I (inode %i) has the name of an entry before it in its block "
	  "(inode %N): the fix renames it '%S'.\n",
	  PROMPT_FIX, 0, 50),
	M(PR_2_DUP_NAME_LEFT,
	  "Entry '%s' in directory %I (inode %i) has the name of an entry before it in its block "
	  "(inode %N), and its record has no room for another name: left.\n",
	  PROMPT_NONE, PR_LEFT, 50),
};

const struct problem_pass e4fsck_problems_pass2 = {
	2, "directory structure",
	rows, sizeof(rows) / sizeof(rows[0]),
	NULL, 0,
};
