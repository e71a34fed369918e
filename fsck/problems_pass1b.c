/*
 * problems_pass1b.c: the rows of passes 1B-1D (pass1b.c, pass1d.c):
 * blocks claimed by more than one inode, codes 0x011000 (1B: who claims
 * them), 0x012000 (1C: the owners' names), 0x013000 (1D: cloning), sorted
 * by code.
 *
 * Cloning copies: the original blocks stay with one owner, the others get
 * copies, so a yes destroys nothing.  It is not done without a human
 * (preen stops), as the reference does.
 */
#include "e4fsck.h"

#define R(code, msg, prompt, flags) { code, #code, msg, prompt, flags, PR_LATCH_NONE, 0 }

static const struct problem_row rows[] = {
	R(PR_1B_PASS_HEADER,
	  "\nSome blocks are claimed by more than one inode: passes 1B-1D find their "
	  "owners.\nPass 1B: Rescanning the inodes for blocks claimed more than once\n",
	  PROMPT_NONE, PR_NOT_A_FIX),
	R(PR_1B_DUP_BLOCKS,
	  "Inode %i holds block(s) claimed more than once:%s\n",
	  PROMPT_NONE, PR_NOT_A_FIX),
	R(PR_1B_SCAN_ERROR,
	  "Pass 1B cannot read inodes %i-%n: %e.\n",
	  PROMPT_NONE, PR_LEFT),
	R(PR_1B_MAP_ERROR,
	  "Pass 1B cannot walk all of inode %i's block map: %e.\n",
	  PROMPT_NONE, PR_NOT_A_FIX),
	R(PR_1B_PREEN_STOP,
	  "Blocks are claimed by more than one inode (a block in use twice, or a file over "
	  "filesystem metadata).\n",
	  PROMPT_CLONE, 0),
	R(PR_1C_PASS_HEADER,
	  "Pass 1C: Looking through the directories for the names of those inodes\n",
	  PROMPT_NONE, PR_NOT_A_FIX),
	R(PR_1D_PASS_HEADER,
	  "Pass 1D: Settling the blocks claimed more than once\n",
	  PROMPT_NONE, PR_NOT_A_FIX),
	R(PR_1D_NUM_DUP_INODES,
	  "(%N inodes hold blocks claimed more than once.)\n\n",
	  PROMPT_NONE, PR_NOT_A_FIX),
	R(PR_1D_DUP_FILE,
	  "File %s (inode #%i, mod time %t)\n  holds %C block(s) claimed more than once, "
	  "shared with %N file(s):\n",
	  PROMPT_NONE, PR_NOT_A_FIX),
	R(PR_1D_DUP_FILE_LIST,
	  "\t%s (inode #%i, mod time %t)\n",
	  PROMPT_NONE, PR_NOT_A_FIX),
	R(PR_1D_SHARE_METADATA,
	  "\t<filesystem metadata>\n",
	  PROMPT_NONE, PR_NOT_A_FIX),
	R(PR_1D_DUP_BLOCKS_DEALT,
	  "Its other owners took copies already: it keeps the blocks.\n\n",
	  PROMPT_NONE, PR_NOT_A_FIX),
	R(PR_1D_CLONE_QUESTION,
	  "",
	  PROMPT_CLONE, 0),
	R(PR_1D_CLONE_ERROR,
	  "Inode %i's shared blocks could not be cloned: %e.\n",
	  PROMPT_NONE, PR_LEFT),
	R(PR_1D_CLONE_LEFT,
	  "Inode %i's shared blocks are left shared: %s.\n",
	  PROMPT_NONE, PR_LEFT),
};

const struct problem_pass e4fsck_problems_pass1b = {
	1, "blocks claimed by more than one inode (passes 1B-1D)",
	rows, sizeof(rows) / sizeof(rows[0]),
	NULL, 0,
};
