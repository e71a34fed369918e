/*
 * dirinfo.h: what the full check knows of each directory and of each
 * inode's link count, shared by passes 1-4 (issue 16).
 *
 * Pass 1 adds every directory in use (ascending inode numbers) and every
 * in-use inode's stored link count; pass 2 fills each directory's '..'
 * and parent and counts the entries naming each inode; pass 3 follows
 * parents to the root and changes what it relinks (through these calls,
 * so the counts stay true); pass 4 compares counted with stored.
 * Memory follows use: 12 bytes a directory; a link count costs one bit
 * when it is 1 and 8 bytes otherwise.
 */
#ifndef E4FSCK_DIRINFO_H
#define E4FSCK_DIRINFO_H

#include "e4.h"

/* One directory in use. */
struct dir_info {
	e4_ino_t ino;
	e4_ino_t dotdot;	/* the inode its '..' entry names (0: no '..' yet) */
	e4_ino_t parent;	/* the directory whose entry (not '.' or '..')
				   names it, the first found (0: none yet); the
				   root's parent is the root */
};

/* The directories, sorted by inode number. */
struct e4fsck_dirs {
	struct dir_info *v;
	size_t n, cap;
};

/* Add directory ino (dotdot and parent 0; the root's parent is the root).
 * Appending in ascending order costs O(1); a smaller number is inserted
 * in place (pass 3 making lost+found).  Adding one already there does
 * nothing.  E4_ERR_NO_MEMORY (nothing changed). */
errcode_t dirs_add(struct e4fsck_dirs *d, e4_ino_t ino);
/* The record of directory ino, or NULL when ino is not one (binary
 * search; the pointer is valid until the next dirs_add/dirs_remove). */
struct dir_info *dirs_find(const struct e4fsck_dirs *d, e4_ino_t ino);
/* Forget directory ino (cleared by a pass); absent: nothing. */
void dirs_remove(struct e4fsck_dirs *d, e4_ino_t ino);
void dirs_free(struct e4fsck_dirs *d);

/* Link counts, per inode in [1, inodes_count]: the count stored in the
 * inode (i_links_count, set by pass 1) and the count of directory entries
 * naming it (counted by pass 2, '.' and '..' entries included as the
 * kernel counts them in i_links_count; changed by pass 3 when it adds,
 * rewrites or removes an entry). */
struct e4fsck_links;

/* Counts for inodes [1, inodes_count], all 0.  E4_ERR_NO_MEMORY. */
errcode_t links_create(e4_ino_t inodes_count, struct e4fsck_links **ret);
void links_free(struct e4fsck_links *l);
/* Set / read the stored count (0 for an inode never set).  Inode numbers
 * outside [1, inodes_count]: E4_ERR_BAD_INODE_NUM (set), 0 (read).
 * E4_ERR_NO_MEMORY (nothing changed). */
errcode_t links_set_stored(struct e4fsck_links *l, e4_ino_t ino, uint32_t n);
uint32_t links_stored(const struct e4fsck_links *l, e4_ino_t ino);
/* One more / one fewer entry names ino (saturating at UINT32_MAX / 0),
 * set the counted value outright, read it.  Errors as links_set_stored. */
errcode_t links_inc(struct e4fsck_links *l, e4_ino_t ino);
errcode_t links_dec(struct e4fsck_links *l, e4_ino_t ino);
errcode_t links_set_counted(struct e4fsck_links *l, e4_ino_t ino, uint32_t n);
uint32_t links_counted(const struct e4fsck_links *l, e4_ino_t ino);
/* Bytes held (for bench/fsck's memory figures). */
size_t links_memory(const struct e4fsck_links *l);

#endif
