/*
 * common/stdfds.h: the standard descriptors of every tool (stdfds.c).
 */
#ifndef E4_STDFDS_H
#define E4_STDFDS_H

/* The bits OR'd into the exit status when what the tool wrote to standard
 * output was lost (default 1; e4fsck passes 8, its operational error).
 * Call before anything can exit. */
void std_fds_write_error_status(int bits);

#endif
