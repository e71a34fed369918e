/*
 * io_mem.h: the sparse page store behind e4_io_open_mem() (io_mem.c).
 * Library-internal.
 */
#ifndef E4_IO_MEM_H
#define E4_IO_MEM_H

#include "e4.h"

struct e4_iomem;

/* An empty store (every byte reads as zero) holding at most max_bytes of
 * written pages.  E4_ERR_NO_MEMORY. */
errcode_t e4_iomem_new(uint64_t max_bytes, struct e4_iomem **ret);
void e4_iomem_free(struct e4_iomem *m);
/* Copy len bytes at byte offset off (zeros where nothing was written). */
void e4_iomem_read(const struct e4_iomem *m, uint64_t off, void *buf, size_t len);
/* Store len bytes at off.  ENOSPC when a new page would pass max_bytes
 * (the pages before it are written), E4_ERR_NO_MEMORY. */
errcode_t e4_iomem_write(struct e4_iomem *m, uint64_t off, const void *buf, size_t len);

#endif
