/*
 * problems_pass3.c: the rows of pass 3, directory connectivity (pass3.c,
 * lost_found.c), codes 0x03NNNN (problem.h), sorted by code.
 *
 * A directory the root does not reach is connected to /lost+found (its
 * entries and data kept); nothing here clears an inode.  What the
 * directory writers refuse (damage, no space) is said and left.
 */
#include "e4fsck.h"

#define R(code, msg, prompt, flags) { code, #code, msg, prompt, flags, PR_LATCH_NONE, 0 }

static const struct problem_row rows[] = {
	R(PR_3_PASS_HEADER,
	  "Pass 3: Checking directory connectivity\n",
	  PROMPT_NONE, PR_PREEN_NOMSG | PR_NOT_A_FIX),
	R(PR_3_NO_ROOT,
	  "Root inode not allocated.  ",
	  PROMPT_ALLOCATE, 0),
	R(PR_3_NO_ROOT_STOP,
	  "Without a root directory, connectivity and reference counts cannot be checked.\n",
	  PROMPT_NONE, PR_LEFT),
	R(PR_3_ROOT_NOT_DIR,
	  "Root inode is not a directory (mode %x) but holds data: left as it is; "
	  "connectivity and reference counts cannot be checked.\n",
	  PROMPT_NONE, PR_LEFT),
	R(PR_3_UNCONNECTED_DIR,
	  "Unconnected directory inode %i (was in %s)\n",
	  PROMPT_CONNECT, 0),
	R(PR_3_LOOPED_DIR,
	  "Directory inode %i is in a loop the root does not reach (its parent %I is "
	  "below it)\n",
	  PROMPT_CONNECT, 0),
	R(PR_3_BAD_DOTDOT,
	  "'..' in %s (%i) is %S.\n",
	  PROMPT_FIX, 0),
	R(PR_3_NO_LPF,
	  "/lost+found not found.  ",
	  PROMPT_CREATE, PR_PREEN_OK),
	R(PR_3_LPF_NOT_DIR,
	  "/lost+found is not a directory (inode %i).\n",
	  PROMPT_UNLINK, 0),
	R(PR_3_LPF_ERROR,
	  "/lost+found cannot be made or unlinked: %e.\n",
	  PROMPT_NONE, PR_LEFT),
	R(PR_3_NO_LPF_CONNECT,
	  "Inode %i cannot be connected: there is no /lost+found.\n",
	  PROMPT_NONE, PR_LEFT),
	R(PR_3_CONNECT_ERROR,
	  "Inode %i cannot be connected to /lost+found (inode %I): %e.\n",
	  PROMPT_NONE, PR_LEFT),
	R(PR_3_DOTDOT_ERROR,
	  "'..' of directory inode %i cannot be set to %I: %e.\n",
	  PROMPT_NONE, PR_LEFT),
	R(PR_3_LOOP_CUT_ERROR,
	  "The entry of directory %I naming directory %i cannot be removed (%e): "
	  "it keeps two names.\n",
	  PROMPT_NONE, PR_LEFT),
	R(PR_3_CONNECT_MAPS_UNSURE,
	  "Inode %i is named by no directory the root reaches; it is not connected to "
	  "/lost+found while blocks claimed twice (or a damaged map) are unresolved: "
	  "nothing is allocated until they are.\n",
	  PROMPT_NONE, PR_LEFT),
	R(PR_3_EXPAND_LPF,
	  "No room in lost+found directory.  ",
	  PROMPT_EXPAND, 0),
	R(PR_3_NO_ROOM_LEFT,
	  "Inode %i is not connected: /lost+found (inode %I) has no room and was not "
	  "expanded.\n",
	  PROMPT_NONE, PR_LEFT),
};

const struct problem_pass e4fsck_problems_pass3 = {
	3, "directory connectivity",
	rows, sizeof(rows) / sizeof(rows[0]),
	NULL, 0,
};
