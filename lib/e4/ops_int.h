/*
 * ops_int.h: what ops.c and ops_remove.c share (not installed).
 */
#ifndef E4_OPS_INT_H
#define E4_OPS_INT_H

#include <stdlib.h>

#include "dir_int.h"

/* End one operation's part of the not-clean window (e4_ops_end()): err
 * is the operation's result; an error that left the filesystem changed
 * (consistent 0) keeps the superblock not clean.  Returns err, else
 * e4_ops_end()'s error. */
errcode_t e4_ops_finish(e4_fs *fs, errcode_t err, int consistent);
/* An ordering point (e4_order_point_primary()): everything changed so
 * far (bitmaps, primary descriptors, superblock, cached blocks) reaches
 * the device before anything changed after; nothing is waited for (the
 * fsync is e4_ops_end()'s, once per not-clean window). */
errcode_t e4_ops_barrier(e4_fs *fs);
/* 1 if a failed e4_dir_insert() (inserting set) may have written part
 * of its change: its refusals before any write say 0. */
int e4_ops_insert_wrote(errcode_t err, int inserting);
/* A name the operations take: E4_ERR_INVALID_ARGUMENT (empty, '/', NUL,
 * "." or ".."), E4_ERR_NAME_TOO_LONG. */
errcode_t e4_ops_name_check(const char *name, size_t len);
/* Read inode dir and check it is a directory (E4_ERR_NOT_DIR). */
errcode_t e4_ops_read_dir(e4_fs *fs, e4_ino_t dir, union e4_inode_buf *ib);
/* The start of every operation: E4_ERR_READ_ONLY unless opened
 * read-write; *ib a new inode buffer (the caller frees it); *now attr's
 * time, or the current one.  E4_ERR_NO_MEMORY. */
errcode_t e4_ops_start(e4_fs *fs, const struct e4_op_attr *attr, struct e4_time *now,
		       union e4_inode_buf **ib);
/* Directory dir's entries changed: mtime and ctime = *now, and links
 * (+1: e4_inode_links_inc(); -1: e4_inode_links_dec(), recounted when
 * stored as 1), written. */
errcode_t e4_ops_dir_touch(e4_fs *fs, e4_ino_t dir, int links, const struct e4_time *now);
/* Set *ib's link count (directory dir) to 2 + its subdirectories
 * (E4_LINK_MAX rule applied), counting entries of file type directory,
 * or reading each inode without the filetype feature. */
errcode_t e4_ops_dir_recount(e4_fs *fs, e4_ino_t dir, union e4_inode_buf *ib);

#endif
