/*
 * pass34.h: what passes 3 and 4 share (lost_found.c): the write window,
 * lost+found (found, or made as the reference makes it), reconnecting an
 * inode there, rewriting a directory's '..', and moving a stored link
 * count with the entries (issue 16).
 *
 * Every change goes through the library (ops, directory writers) with
 * the allocation hook on pass 1's maps (p->inuse, p->inodes): the on-disk
 * bitmaps may be wrong until pass 5, which writes them from those maps.
 * Each change keeps p->dirinfo and p->links true: an entry added,
 * rewritten or removed moves the counted links of what it names, and,
 * as the reference does, the stored count too (so pass 4 then says only
 * what was already wrong, or what a new name makes wrong).
 */
#ifndef E4FSCK_PASS34_H
#define E4FSCK_PASS34_H

#include "dirpass.h"

/* Before a pass's first change: the allocation hook on p's maps and the
 * operations' clock at ctx->now (until p34_write_end(), at the end of
 * each pass), and, the first time, the not-clean window (e4_ops_begin()),
 * which stays open until p34_window_close() after pass 5 (pass1.c): the
 * superblock says not clean from passes 3-4's first write until the
 * bitmaps and counts are written.  A stop leaves it open (not clean).
 * Errors of e4_ops_begin() / e4_ops_end(). */
errcode_t p34_write_begin(struct pass1 *p);
void p34_write_end(struct pass1 *p);
errcode_t p34_window_close(struct pass1 *p);

/* The stored link count of in-use inode ino moved by adj (+1 / -1) on
 * disk and in p->links (0 and 65535 are not passed).  Read and write
 * errors. */
errcode_t p34_adjust_stored(struct pass1 *p, e4_ino_t ino, int adj);

/* lost+found's inode in *ret (0: none).  A lost+found entry of the root
 * naming something not a directory is offered for unlinking (its inode
 * then counts as unattached); a missing one, when create is set, is
 * offered for creation as the reference makes it (mode 040700, one
 * block, not inline).  What cannot be made is said (a PR_LEFT row) and
 * not asked again.  0 or an operational error. */
errcode_t p34_lost_found(struct pass1 *p, int create, e4_ino_t *ret);

/* Connect inode ino to lost+found as "#ino" (the count moves, as for
 * every entry; a directory's parent becomes lost+found, its '..' is the
 * caller's).  *done = 1 when connected; 0 when lost+found is missing or
 * refused the entry, or pass 1 left its maps unsure (p->maps_unsure:
 * pass 5 then writes no bitmap, so nothing may be allocated): said, left.
 * 0 or an operational error. */
errcode_t p34_reconnect(struct pass1 *p, e4_ino_t ino, int *done);

/* Point directory dir's '..' at parent (counts of the old and new
 * targets moved).  A directory without a '..' entry: said, left.
 * 0 or an operational error. */
errcode_t p34_fix_dotdot(struct pass1 *p, e4_ino_t dir, e4_ino_t parent);

/* The name of an entry of directory dir (not '.' or '..') naming ino,
 * NUL-terminated into name (EXT4_NAME_LEN + 1 bytes): its length, 0 when
 * there is none. */
size_t p34_entry_name(struct pass1 *p, e4_ino_t dir, e4_ino_t ino, char *name);

/* The path of directory ino by its parents ("/a/b") into buf, for
 * messages: "???" stands for a name not known (a directory without a
 * parent, a parent no longer naming it), "..." for what is past 32
 * levels; "/" for the root; "<inode N>" for an inode no directory. */
#define P34_PATH_MAX	512
void p34_path(struct pass1 *p, e4_ino_t ino, char *buf, size_t len);

/* 1 when err is a directory writer's refusal (damage, no space, a full
 * index, a name there or not): said and left by the caller; 0 for an
 * operational error (reads, writes, memory) that stops the pass. */
int p34_refusal(errcode_t err);

/* 1 when inode ino is in range and in use. */
static inline int p34_in_use(const struct pass1 *p, e4_ino_t ino)
{
	return ino >= 1 && ino <= p->geo->inodes_count && e4_bmap_test(p->inodes, ino);
}

#endif
