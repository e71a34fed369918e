/*
 * common/shortdev.h: the words every tool uses for a device shorter than
 * the filesystem it should hold, when e4_open() returned
 * E4_ERR_DEVICE_TOO_SMALL (shortdev.c).
 */
#ifndef E4_SHORTDEV_H
#define E4_SHORTDEV_H

#include <stddef.h>

/* Into buf (len bytes, always terminated): both sizes, from
 * e4_device_short_sizes(): "the filesystem is N blocks of B bytes (its
 * superblock says so), but the device holds only D bytes", or, when the
 * device ends before the superblock does, "the device holds only D
 * bytes, less than an ext2/3/4 filesystem needs (its superblock lies at
 * bytes 1024-2047)".  Returns buf. */
const char *short_device_sizes(const char *device, char *buf, size_t len);

#endif
