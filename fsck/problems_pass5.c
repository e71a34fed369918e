/*
 * problems_pass5.c: the rows of pass 5 (bitmaps and counts against what
 * the passes before it found), codes 0x05NNNN (problem.h), sorted by code.
 *
 * Bitmap differences are said as latch groups, as e2fsck users read them:
 * "Block bitmap differences:  -(1234--1240) +5000" then one question.
 */
#include "e4fsck.h"

#define R(code, msg, prompt, flags) { code, #code, msg, prompt, flags, PR_LATCH_NONE, 0 }
/* A member of latch group latch (PROMPT_NONE: the end row asks). */
#define L(code, msg, latch, flags) { code, #code, msg, PROMPT_NONE, flags, latch, 0 }

static const struct problem_row rows[] = {
	R(PR_5_PASS_HEADER,
	  "Pass 5: Checking group summary information\n",
	  PROMPT_NONE, PR_PREEN_NOMSG | PR_NOT_A_FIX),
	/* ---- block bitmap (latch PR_LATCH_BBITMAP) ---- */
	R(PR_5_BLOCK_BITMAP_HEADER,
	  "Block bitmap differences: ",
	  PROMPT_NONE, PR_PREEN_NOMSG | PR_NOT_A_FIX),
	L(PR_5_BLOCK_UNUSED, " -%b", PR_LATCH_BBITMAP, PR_PREEN_NOMSG),
	L(PR_5_BLOCK_USED, " +%b", PR_LATCH_BBITMAP, PR_PREEN_NOMSG),
	L(PR_5_BLOCK_RANGE_UNUSED, " -(%b--%B)", PR_LATCH_BBITMAP, PR_PREEN_NOMSG),
	L(PR_5_BLOCK_RANGE_USED, " +(%b--%B)", PR_LATCH_BBITMAP, PR_PREEN_NOMSG),
	R(PR_5_BLOCK_BITMAP_END,
	  "\n",
	  PROMPT_FIX, PR_PREEN_OK | PR_PREEN_NOMSG),
	/* ---- inode bitmap (latch PR_LATCH_IBITMAP) ---- */
	R(PR_5_INODE_BITMAP_HEADER,
	  "Inode bitmap differences: ",
	  PROMPT_NONE, PR_PREEN_NOMSG | PR_NOT_A_FIX),
	L(PR_5_INODE_UNUSED, " -%i", PR_LATCH_IBITMAP, PR_PREEN_NOMSG),
	L(PR_5_INODE_USED, " +%i", PR_LATCH_IBITMAP, PR_PREEN_NOMSG),
	L(PR_5_INODE_RANGE_UNUSED, " -(%i--%n)", PR_LATCH_IBITMAP, PR_PREEN_NOMSG),
	L(PR_5_INODE_RANGE_USED, " +(%i--%n)", PR_LATCH_IBITMAP, PR_PREEN_NOMSG),
	R(PR_5_INODE_BITMAP_END,
	  "\n",
	  PROMPT_FIX, PR_PREEN_OK | PR_PREEN_NOMSG),
	/* ---- counts ---- */
	R(PR_5_FREE_BLOCK_COUNT_GROUP,
	  "Group %g's free blocks count is %n; counted %N.\n",
	  PROMPT_FIX, PR_PREEN_OK | PR_PREEN_NOMSG),
	R(PR_5_FREE_INODE_COUNT_GROUP,
	  "Group %g's free inodes count is %n; counted %N.\n",
	  PROMPT_FIX, PR_PREEN_OK | PR_PREEN_NOMSG),
	R(PR_5_FREE_DIR_COUNT_GROUP,
	  "Group %g's directories count is %n; counted %N.\n",
	  PROMPT_FIX, PR_PREEN_OK | PR_PREEN_NOMSG),
	/* (the superblock's totals: the kernel recomputes them at mount, so a
	 * no leaves nothing wrong; a yes is a repair written, counted) */
	R(PR_5_FREE_BLOCK_COUNT,
	  "The superblock's free blocks count is %n; counted %N.\n",
	  PROMPT_FIX, PR_PREEN_OK | PR_PREEN_NOMSG | PR_NO_OK),
	R(PR_5_FREE_INODE_COUNT,
	  "The superblock's free inodes count is %n; counted %N.\n",
	  PROMPT_FIX, PR_PREEN_OK | PR_PREEN_NOMSG | PR_NO_OK),
	/* ---- checksums (the bits are right, or were just said) ---- */
	R(PR_5_BLOCK_BITMAP_CSUM,
	  "Group %g's block bitmap fails its checksum.\n",
	  PROMPT_FIX, PR_PREEN_OK | PR_PREEN_NOMSG),
	R(PR_5_INODE_BITMAP_CSUM,
	  "Group %g's inode bitmap fails its checksum.\n",
	  PROMPT_FIX, PR_PREEN_OK | PR_PREEN_NOMSG),
	/* ---- descriptors: flags, unused inodes, checksums ---- */
	R(PR_5_BLOCK_UNINIT,
	  "Group %g is marked BLOCK_UNINIT, but %n of its clusters are in use where "
	  "that flag means %N: the flag goes with the block bitmap's repair.\n",
	  PROMPT_NONE, 0),
	R(PR_5_INODE_UNINIT,
	  "Group %g is marked INODE_UNINIT, but %n of its inodes are in use: the "
	  "flag goes with the inode bitmap's repair.\n",
	  PROMPT_NONE, 0),
	R(PR_5_ITABLE_UNUSED,
	  "Group %g's unused inodes count is %n; its inodes in use allow at most %N.\n",
	  PROMPT_FIX, PR_PREEN_OK | PR_PREEN_NOMSG),
	R(PR_5_GD_CSUM,
	  "Group descriptor %g fails its checksum (%x, expected %X).\n",
	  PROMPT_FIX, PR_PREEN_OK),
	R(PR_5_GD_FLAGS,
	  "Group %g's flags are 0x%x: bits other than 0x%X are unknown.\n",
	  PROMPT_CLEAR, PR_PREEN_OK),
	R(PR_5_BLOCK_UNINIT_LAST,
	  "Group %g, the last, is marked BLOCK_UNINIT: its block bitmap is to be "
	  "written instead.\n",
	  PROMPT_FIX, PR_PREEN_OK),
	/* ---- padding: the bits past a group's end, up to its bitmap block's ---- */
	R(PR_5_BLOCK_BITMAP_PADDING,
	  "Padding at end of block bitmap is not set.\n",
	  PROMPT_FIX, PR_PREEN_OK),
	R(PR_5_INODE_BITMAP_PADDING,
	  "Padding at end of inode bitmap is not set.\n",
	  PROMPT_FIX, PR_PREEN_OK),
};

const struct problem_pass e4fsck_problems_pass5 = {
	5, "bitmaps and counts",
	rows, sizeof(rows) / sizeof(rows[0]),
	NULL, 0,
};
