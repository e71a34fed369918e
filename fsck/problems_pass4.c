/*
 * problems_pass4.c: the rows of pass 4, reference counts (pass4.c),
 * codes 0x04NNNN (problem.h), sorted by code.
 *
 * An inode no entry names is connected to /lost+found; only one that
 * holds nothing (a regular file of size 0, no blocks, no attributes) is
 * offered for clearing.
 */
#include "e4fsck.h"

#define R(code, msg, prompt, flags) { code, #code, msg, prompt, flags, PR_LATCH_NONE, 0 }

static const struct problem_row rows[] = {
	R(PR_4_PASS_HEADER,
	  "Pass 4: Checking reference counts\n",
	  PROMPT_NONE, PR_PREEN_NOMSG | PR_NOT_A_FIX),
	R(PR_4_ZERO_LEN_INODE,
	  "Unattached zero-length inode %i.  ",
	  PROMPT_CLEAR, PR_PREEN_OK | PR_NO_OK),
	R(PR_4_UNATTACHED_INODE,
	  "Unattached inode %i\n",
	  PROMPT_CONNECT, 0),
	R(PR_4_BAD_REF_COUNT,
	  "Inode %i ref count is %n, should be %N.  ",
	  PROMPT_FIX, PR_PREEN_OK),
	R(PR_4_DIR_NLINK_FEATURE,
	  "Directory inode %i has %n links, more than 65000, and the filesystem lacks "
	  "dir_nlink.\n",
	  PROMPT_FIX, 0),
};

const struct problem_pass e4fsck_problems_pass4 = {
	4, "reference counts",
	rows, sizeof(rows) / sizeof(rows[0]),
	NULL, 0,
};
