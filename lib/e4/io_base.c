/*
 * io_base.c: the bottom of an I/O stack (io_int.h): a file or block
 * device read and written with pread/pwrite, or memory (io_mem.c's sparse
 * store, for fuzzing and tests).  The block cache (io.c) and the layers
 * (io_layer.c) sit above.
 */
#include "io_int.h"
#include "io_mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static errcode_t base_errno(void)
{
	return errno ? (errcode_t)errno : EIO;
}

/* pread or pwrite all of len bytes, whatever the calls return short */
static errcode_t fd_io(struct e4_io_base *b, int write, uint64_t offset, uint8_t *p, size_t len)
{
	while (len) {
		off_t at = (off_t)(offset + b->off);
		ssize_t r = write ? pwrite(b->fd, p, len, at) : pread(b->fd, p, len, at);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return base_errno();
		}
		if (r == 0)
			return write ? E4_ERR_SHORT_WRITE : E4_ERR_SHORT_READ;
		p += r;
		offset += (uint64_t)r;
		len -= (size_t)r;
	}
	return 0;
}

/* E4_IO_DIRECT: the transfer as O_DIRECT takes it, offset, length and
 * buffer aligned to b->dio_align: as it is when they are, else through an
 * aligned bounce buffer covering the aligned span (a write reads the
 * span's partial first and last units first). */
static errcode_t fd_io_direct(struct e4_io_base *b, int write, uint64_t offset, uint8_t *p,
			      size_t len)
{
	uint64_t a = b->dio_align, at = offset + b->off;
	uint64_t start = at & ~(a - 1), end = (at + len + a - 1) & ~(a - 1);
	size_t span = (size_t)(end - start);
	void *bounce;
	errcode_t err;

	if (b->off & (a - 1))
		return E4_ERR_DIRECT_IO;	/* an origin inside a unit */
	if (start == at && end == at + len && !((uintptr_t)p & (a - 1)))
		return fd_io(b, write, offset, p, len);
	if (posix_memalign(&bounce, (size_t)a, span))
		return E4_ERR_NO_MEMORY;
	/* offsets below are relative to b->off, as fd_io() takes them */
	if (!write) {
		err = fd_io(b, 0, start - b->off, bounce, span);
		if (!err)
			memcpy(p, (uint8_t *)bounce + (at - start), len);
	} else {
		err = 0;
		if (at != start)
			err = fd_io(b, 0, start - b->off, bounce, (size_t)a);
		if (!err && (at + len) != end && (span > a || at == start))
			err = fd_io(b, 0, end - a - b->off, (uint8_t *)bounce + span - a, (size_t)a);
		if (!err) {
			memcpy((uint8_t *)bounce + (at - start), p, len);
			err = fd_io(b, 1, start - b->off, bounce, span);
		}
	}
	free(bounce);
	return err;
}

static errcode_t fd_read(e4_io_layer *l, uint64_t offset, void *buf, size_t len)
{
	struct e4_io_base *b = (struct e4_io_base *)l;

	if (b->dio_align)
		return fd_io_direct(b, 0, offset, buf, len);
	return fd_io(b, 0, offset, buf, len);
}

static errcode_t fd_write(e4_io_layer *l, uint64_t offset, const void *buf, size_t len)
{
	struct e4_io_base *b = (struct e4_io_base *)l;
	uint8_t *p = (uint8_t *)(uintptr_t)buf;
	errcode_t err = b->dio_align ? fd_io_direct(b, 1, offset, p, len) : fd_io(b, 1, offset, p, len);

	if (err)
		return err;
	b->unsynced = 1;
	if (b->ahead) {
		b->unstarted += len;
		if (b->unstarted >= b->ahead) {
			/* a hint: errors (EINVAL on some targets) come back, if
			 * real, from the fsync in e4_io_flush() */
			(void)sync_file_range(b->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
			b->unstarted = 0;
		}
	}
	return 0;
}

/* Data and what finds it (allocation, size) are what must be durable:
 * fdatasync, which skips a commit for timestamps alone; nothing written
 * since the last sync, nothing to wait for. */
static errcode_t fd_sync(e4_io_layer *l)
{
	struct e4_io_base *b = (struct e4_io_base *)l;

	if (!b->unsynced)
		return 0;
	if (fdatasync(b->fd) < 0)
		return base_errno();
	b->unsynced = 0;
	return 0;
}

static errcode_t fd_barrier(e4_io_layer *l)
{
	struct e4_io_base *b = (struct e4_io_base *)l;

	return b->sync_barriers ? fd_sync(l) : 0;
}

static void fd_free(e4_io_layer *l)
{
	struct e4_io_base *b = (struct e4_io_base *)l;

	if (b->fd >= 0)
		close(b->fd);
	e4_io_wlock_release(b->wlock);
	e4_io_wlock_release(b->wlock_file);
	free(b);
}

static const struct e4_io_layer_ops fd_ops = {
	.name = "file",
	.read = fd_read,
	.write = fd_write,
	.sync = fd_sync,
	.barrier = fd_barrier,
	.free = fd_free,
};

errcode_t e4_io_base_fd(int fd, int flags, struct e4_io_base **ret)
{
	struct e4_io_base *b = calloc(1, sizeof(*b));

	*ret = NULL;
	if (!b)
		return E4_ERR_NO_MEMORY;
	b->l.ops = &fd_ops;
	b->l.mt_read = 1;	/* pread() has no shared state */
	b->fd = fd;
	b->sync_barriers = (flags & E4_IO_SYNC_BARRIERS) != 0;
	*ret = b;
	return 0;
}

static errcode_t mem_read(e4_io_layer *l, uint64_t offset, void *buf, size_t len)
{
	struct e4_io_base *b = (struct e4_io_base *)l;

	e4_iomem_read(b->mem, offset + b->off, buf, len);
	return 0;
}

static errcode_t mem_write(e4_io_layer *l, uint64_t offset, const void *buf, size_t len)
{
	struct e4_io_base *b = (struct e4_io_base *)l;

	return e4_iomem_write(b->mem, offset + b->off, buf, len);
}

/* memory is as durable as it gets */
static errcode_t mem_sync(e4_io_layer *l)
{
	(void)l;
	return 0;
}

static void mem_free(e4_io_layer *l)
{
	struct e4_io_base *b = (struct e4_io_base *)l;

	e4_iomem_free(b->mem);
	free(b);
}

static const struct e4_io_layer_ops mem_ops = {
	.name = "memory",
	.read = mem_read,
	.write = mem_write,
	.sync = mem_sync,
	.barrier = mem_sync,
	.free = mem_free,
};

errcode_t e4_io_base_mem(uint64_t max_bytes, struct e4_io_base **ret)
{
	struct e4_io_base *b = calloc(1, sizeof(*b));
	errcode_t err;

	*ret = NULL;
	if (!b)
		return E4_ERR_NO_MEMORY;
	err = e4_iomem_new(max_bytes, &b->mem);
	if (err) {
		free(b);
		return err;
	}
	b->l.ops = &mem_ops;
	b->l.mt_read = 1;	/* reads of a store nobody writes */
	b->fd = -1;
	*ret = b;
	return 0;
}
