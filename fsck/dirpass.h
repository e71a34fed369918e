/*
 * dirpass.h: the directory passes of the full check (issue 16), run by
 * e4fsck_full_check() (pass1.c) after pass 1 on its state (struct pass1:
 * maps, p->dirinfo, p->links, p->regs; dirinfo.h).
 *
 * pass2.c: every directory block; entries checked and counted
 *   (links_inc for each entry kept, '.' and '..' included), each
 *   directory's dotdot and parent recorded.
 * pass3.c: every directory reachable from the root; root and lost+found
 *   made or repaired; unreachable directories reconnected; '..' fixed.
 * pass4.c: each in-use inode's counted links against its stored count;
 *   inodes no entry names reconnected to lost+found or cleared when empty.
 *
 * Each returns 0 or an operational error (said), and sets its p->ran bit
 * when it ran whole; the full check says which directory passes did not
 * run (PR_1_DIR_PASSES_NOT_RUN: what they depend on could not be read).
 */
#ifndef E4FSCK_DIRPASS_H
#define E4FSCK_DIRPASS_H

#include "pass1.h"

#define E4FSCK_RAN_PASS2	0x1
#define E4FSCK_RAN_PASS3	0x2
#define E4FSCK_RAN_PASS4	0x4
#define E4FSCK_RAN_DIRPASSES	(E4FSCK_RAN_PASS2 | E4FSCK_RAN_PASS3 | E4FSCK_RAN_PASS4)

errcode_t e4fsck_pass2(struct e4fsck *ctx, struct pass1 *p);
errcode_t e4fsck_pass3(struct e4fsck *ctx, struct pass1 *p);
errcode_t e4fsck_pass4(struct e4fsck *ctx, struct pass1 *p);

#endif
