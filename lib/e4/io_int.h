/*
 * io_int.h: the I/O stack's pieces shared by io.c (the block cache),
 * io_base.c (the bases: file or device, memory) and io_layer.c (the
 * layers).  Library-internal.
 */
#ifndef E4_IO_INT_H
#define E4_IO_INT_H

#include "e4_private.h"

struct e4_iomem;

/* A base: the bottom of every stack.  Offsets it gets are relative to
 * off (e4_io_set_offset()). */
struct e4_io_base {
	e4_io_layer l;
	uint64_t off;			/* device byte of offset 0 */
	int fd;				/* file or device; -1 for memory */
	struct e4_iomem *mem;		/* memory device, else NULL */
	int sync_barriers;		/* E4_IO_SYNC_BARRIERS */
	int unsynced;			/* written since the last sync */
	uint64_t ahead;			/* e4_io_set_writeback_ahead(), bytes */
	uint64_t unstarted;		/* written since writeback last started */
	unsigned dio_align;		/* E4_IO_DIRECT: transfer alignment, bytes
					 * (a power of two); 0: buffered */
	int wlock;			/* E4_IO_RW: the write lock held (io.c's
					 * slot + 1); 0: none */
	int wlock_file;			/* a loop device's: its backing file's */
};
/* Drop one reference to the write lock slot (e4_io_base's wlock; 0:
 * nothing); the last one releases the lock. */
void e4_io_wlock_release(int wlock);

/* A base over an open descriptor (taken over: closed by ops->free). */
errcode_t e4_io_base_fd(int fd, int flags, struct e4_io_base **ret);
/* A memory base (io_mem.c's store of at most max_bytes). */
errcode_t e4_io_base_mem(uint64_t max_bytes, struct e4_io_base **ret);

/* The write and read hooks of e4_io_set_write_hook()/_read_hook(): a
 * layer made on first use and pushed on top at that moment. */
struct e4_io_hooks {
	e4_io_layer l;
	e4_io_write_hook write_hook;
	void *write_priv;
	e4_io_read_hook read_hook;
	void *read_priv;
};
errcode_t e4_io_hooks_layer(struct e4_io_hooks **ret);

#endif
