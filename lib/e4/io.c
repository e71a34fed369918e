/*
 * io.c: the I/O manager over an image file or a block device.
 *
 * Metadata goes through a direct-mapped block cache with adaptive
 * read-ahead (sequential misses double the window up to E4_IO_RA_MAX
 * blocks); writes are kept dirty in the cache until e4_io_flush().
 * Bulk file data uses e4_io_read_blk_nocache(), which bypasses the cache.
 * The device is a file or block device (e4_io_open), or memory
 * (e4_io_open_mem: io_mem.c's sparse store, for fuzzing and tests).
 */
#include "e4_private.h"
#include "io_mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>

#define E4_IO_CACHE_BYTES	(16u << 20)	/* cache budget */
#define E4_IO_CACHE_MIN		64		/* entries */
#define E4_IO_RA_MAX		64		/* read-ahead window, blocks */
#define E4_IO_MEM_CACHE_BYTES	(256u << 10)	/* cache budget of a memory device */

struct e4_io_slot {
	e4_blk_t blk;
	uint8_t valid;
	uint8_t dirty;
};

struct e4_io {
	int fd;
	int flags;
	uint64_t size;			/* bytes */
	unsigned blksize;
	uint32_t nslots;
	struct e4_io_slot *slots;
	uint8_t *data;			/* nslots * blksize */
	e4_blk_t next_seq;		/* block after the last miss */
	unsigned ra_window;
	uint8_t *ra_buf;		/* E4_IO_RA_MAX * blksize */
	e4_io_write_hook write_hook;	/* stacked layer: tracing, crash tests */
	void *write_hook_priv;
	e4_io_read_hook read_hook;	/* stacked layer: read fault injection */
	void *read_hook_priv;
	uint64_t base;			/* byte offset of byte 0 (e4_io_set_offset) */
	uint64_t ahead;			/* e4_io_set_writeback_ahead(), bytes */
	uint64_t unstarted;		/* written since writeback last started */
	int unsynced;			/* written since the last fdatasync */
	struct e4_iomem *mem;		/* e4_io_open_mem(): the device (fd -1) */
};

static void io_cache_update(e4_io *io, uint64_t offset, const uint8_t *buf, size_t len);

static errcode_t io_errno(void)
{
	return errno ? (errcode_t)errno : EIO;
}

errcode_t e4_io_open(const char *path, int flags, e4_io **ret)
{
	struct stat st;
	e4_io *io;
	int oflags = (flags & E4_IO_RW) ? O_RDWR : O_RDONLY;

	*ret = NULL;
	io = calloc(1, sizeof(*io));
	if (!io)
		return E4_ERR_NO_MEMORY;
	io->flags = flags;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer; it is
	 * refused below like every other non-device, non-file */
	io->fd = open(path, oflags | O_CLOEXEC | O_NONBLOCK);
	if (io->fd < 0) {
		errcode_t err = io_errno();
		free(io);
		return err;
	}
	if (fstat(io->fd, &st) < 0)
		goto fail;
	if (S_ISBLK(st.st_mode)) {
		uint64_t bytes;
		if (ioctl(io->fd, BLKGETSIZE64, &bytes) < 0)
			goto fail;
		io->size = bytes;
	} else if (S_ISREG(st.st_mode)) {
		io->size = (uint64_t)st.st_size;
	} else {
		errno = S_ISDIR(st.st_mode) ? EISDIR : ENOTBLK;
		goto fail;
	}
	if (fcntl(io->fd, F_SETFL, fcntl(io->fd, F_GETFL) & ~O_NONBLOCK) < 0)
		goto fail;
	*ret = io;
	return e4_io_set_blksize(io, 1024);
fail:
	{
		errcode_t err = io_errno();
		close(io->fd);
		free(io);
		return err;
	}
}

errcode_t e4_io_open_mem(uint64_t size, uint64_t max_bytes, int flags, e4_io **ret)
{
	e4_io *io;
	errcode_t err;

	*ret = NULL;
	io = calloc(1, sizeof(*io));
	if (!io)
		return E4_ERR_NO_MEMORY;
	io->fd = -1;
	io->flags = flags;
	io->size = size;
	err = e4_iomem_new(max_bytes, &io->mem);
	if (!err)
		err = e4_io_set_blksize(io, 1024);
	if (err) {
		e4_io_close(io);
		return err;
	}
	*ret = io;
	return 0;
}

errcode_t e4_io_mem_load(e4_io *io, uint64_t offset, const void *buf, size_t len)
{
	errcode_t err;

	if (!io->mem)
		return E4_ERR_INVALID_ARGUMENT;
	if (offset > io->size || len > io->size - offset)
		return E4_ERR_SHORT_WRITE;
	err = e4_iomem_write(io->mem, offset + io->base, buf, len);
	if (!err)
		io_cache_update(io, offset, buf, len);
	return err;
}

static errcode_t io_write_slot(e4_io *io, uint32_t i)
{
	errcode_t err;

	err = e4_io_pwrite(io, io->slots[i].blk * (uint64_t)io->blksize,
			   io->data + (size_t)i * io->blksize, io->blksize);
	if (!err)
		io->slots[i].dirty = 0;
	return err;
}

/* Write every dirty block.  The cache is direct-mapped (slot = block mod
 * nslots), so dirty neighbours on disk sit in neighbouring slots: each
 * such run goes out as one write (the reserved GDT blocks, bitmaps and
 * inode table blocks of a new filesystem are long runs). */
static errcode_t io_writeback(e4_io *io)
{
	errcode_t err = 0, e;

	for (uint32_t i = 0; i < io->nslots; i++) {
		uint32_t n = 1;

		if (!io->slots[i].valid || !io->slots[i].dirty)
			continue;
		while (i + n < io->nslots && io->slots[i + n].valid && io->slots[i + n].dirty &&
		       io->slots[i + n].blk == io->slots[i].blk + n)
			n++;
		e = e4_io_pwrite(io, io->slots[i].blk * (uint64_t)io->blksize,
				 io->data + (size_t)i * io->blksize, (size_t)n * io->blksize);
		if (!e) {
			for (uint32_t k = 0; k < n; k++)
				io->slots[i + k].dirty = 0;
		} else if (!err) {
			err = e;
		}
		i += n - 1;
	}
	return err;
}

void e4_io_close(e4_io *io)
{
	if (!io)
		return;
	if (io->flags & E4_IO_RW)
		io_writeback(io);
	if (io->fd >= 0)
		close(io->fd);
	e4_iomem_free(io->mem);
	free(io->slots);
	free(io->data);
	free(io->ra_buf);
	free(io);
}

uint64_t e4_io_size(e4_io *io)
{
	return io->size;
}

errcode_t e4_io_set_offset(e4_io *io, uint64_t offset)
{
	uint64_t end = io->size + io->base;

	if (offset > end)
		return E4_ERR_INVALID_ARGUMENT;
	io->base = offset;
	io->size = end - offset;
	return 0;
}

errcode_t e4_io_set_blksize(e4_io *io, unsigned blocksize)
{
	uint32_t n;
	errcode_t err;

	if (blocksize < 512 || blocksize > EXT4_MAX_BLOCK_SIZE ||
	    (blocksize & (blocksize - 1)))
		return E4_ERR_INVALID_ARGUMENT;
	if (io->blksize == blocksize && io->slots)
		return 0;
	if (io->slots && (io->flags & E4_IO_RW)) {
		err = io_writeback(io);
		if (err)
			return err;
	}
	free(io->slots);
	free(io->data);
	free(io->ra_buf);
	io->slots = NULL;
	io->data = io->ra_buf = NULL;
	n = (io->mem ? E4_IO_MEM_CACHE_BYTES : E4_IO_CACHE_BYTES) / blocksize;
	if (n < E4_IO_CACHE_MIN)
		n = E4_IO_CACHE_MIN;
	io->slots = calloc(n, sizeof(*io->slots));
	io->data = malloc((size_t)n * blocksize);
	io->ra_buf = malloc((size_t)E4_IO_RA_MAX * blocksize);
	if (!io->slots || !io->data || !io->ra_buf)
		return E4_ERR_NO_MEMORY;
	io->nslots = n;
	io->blksize = blocksize;
	io->next_seq = 0;
	io->ra_window = 1;
	return 0;
}

errcode_t e4_io_pread(e4_io *io, uint64_t offset, void *buf, size_t len)
{
	uint8_t *p = buf;

	if (offset > io->size || len > io->size - offset)
		return E4_ERR_SHORT_READ;
	if (io->read_hook) {
		errcode_t err = io->read_hook(io->read_hook_priv, offset, len);
		if (err)
			return err;
	}
	if (io->mem) {
		e4_iomem_read(io->mem, offset + io->base, p, len);
		return 0;
	}
	while (len) {
		ssize_t r = pread(io->fd, p, len, (off_t)(offset + io->base));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return io_errno();
		}
		if (r == 0)
			return E4_ERR_SHORT_READ;
		p += r;
		offset += (uint64_t)r;
		len -= (size_t)r;
	}
	return 0;
}

static inline uint32_t io_slot(e4_io *io, e4_blk_t blk);

/* An uncached write must not leave an older copy of its blocks in the
 * cache: copy the new bytes into every cached block it touches (a slot
 * written back by io_write_slot() is its own source and is skipped). */
static void io_cache_update(e4_io *io, uint64_t offset, const uint8_t *buf, size_t len)
{
	uint64_t bs = io->blksize, first, last;

	if (!io->slots || !io->nslots || !bs || !len)
		return;
	first = offset / bs;
	last = (offset + len - 1) / bs;
	for (uint64_t b = first; b <= last; b++) {
		uint32_t i = io_slot(io, b);
		struct e4_io_slot *s = &io->slots[i];
		uint64_t bstart = b * bs, lo, hi;
		uint8_t *dst;
		const uint8_t *src;

		if (!s->valid || s->blk != b)
			continue;
		lo = offset > bstart ? offset : bstart;
		hi = offset + len < bstart + bs ? offset + len : bstart + bs;
		dst = io->data + (size_t)i * bs + (lo - bstart);
		src = buf + (lo - offset);
		if (dst != src)
			memcpy(dst, src, hi - lo);
	}
}

errcode_t e4_io_pwrite(e4_io *io, uint64_t offset, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (!(io->flags & E4_IO_RW))
		return E4_ERR_READ_ONLY;
	/* a regular file is never extended past the filesystem's device */
	if ((io->flags & E4_IO_NO_GROW) && (offset > io->size || len > io->size - offset))
		return E4_ERR_SHORT_WRITE;
	if (io->write_hook) {
		errcode_t err = io->write_hook(io->write_hook_priv, offset, len);
		if (err)
			return err;
	}
	io_cache_update(io, offset, buf, len);
	if (io->mem) {
		errcode_t err = e4_iomem_write(io->mem, offset + io->base, p, len);

		if (err)
			return err;
		p += len;
		offset += len;
		len = 0;
	}
	while (len) {
		ssize_t r = pwrite(io->fd, p, len, (off_t)(offset + io->base));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return io_errno();
		}
		if (r == 0)
			return E4_ERR_SHORT_WRITE;
		p += r;
		offset += (uint64_t)r;
		len -= (size_t)r;
	}
	if (offset > io->size)
		io->size = offset;
	io->unsynced = 1;
	if (io->ahead && !io->mem) {
		io->unstarted += (uint64_t)(p - (const uint8_t *)buf);
		if (io->unstarted >= io->ahead) {
			/* a hint: errors (EINVAL on some targets) come back, if
			 * real, from the fsync in e4_io_flush() */
			(void)sync_file_range(io->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
			io->unstarted = 0;
		}
	}
	return 0;
}

static inline uint32_t io_slot(e4_io *io, e4_blk_t blk)
{
	return (uint32_t)(blk % io->nslots);
}

/* Fill the cache with count blocks from blk, read in one call. */
static errcode_t io_fill(e4_io *io, e4_blk_t blk, unsigned count)
{
	uint64_t total = io->size / io->blksize;
	errcode_t err;

	if (blk >= total)
		return E4_ERR_SHORT_READ;
	if (count > total - blk)
		count = (unsigned)(total - blk);
	err = e4_io_pread(io, blk * (uint64_t)io->blksize, io->ra_buf,
			  (size_t)count * io->blksize);
	if (err)
		return err;
	for (unsigned k = 0; k < count; k++) {
		uint32_t i = io_slot(io, blk + k);
		struct e4_io_slot *s = &io->slots[i];

		if (s->valid && s->blk == blk + k)
			continue;	/* keep what we have (it may be newer) */
		if (s->valid && s->dirty) {
			err = io_write_slot(io, i);
			if (err)
				return err;
		}
		memcpy(io->data + (size_t)i * io->blksize,
		       io->ra_buf + (size_t)k * io->blksize, io->blksize);
		s->blk = blk + k;
		s->valid = 1;
		s->dirty = 0;
	}
	return 0;
}

errcode_t e4_io_read_blk(e4_io *io, e4_blk_t blk, unsigned count, void *buf)
{
	uint8_t *p = buf;
	errcode_t err;

	for (unsigned k = 0; k < count; k++, blk++, p += io->blksize) {
		uint32_t i = io_slot(io, blk);
		struct e4_io_slot *s = &io->slots[i];

		if (!(s->valid && s->blk == blk)) {
			unsigned want = count - k;

			if (blk == io->next_seq) {
				if (io->ra_window < E4_IO_RA_MAX)
					io->ra_window *= 2;
			} else {
				io->ra_window = 1;
			}
			if (want < io->ra_window)
				want = io->ra_window;
			if (want > E4_IO_RA_MAX)
				want = E4_IO_RA_MAX;
			err = io_fill(io, blk, want);
			/* a bad block in the read-ahead window is not this
			 * block's failure: read this one alone */
			if (err && want > 1)
				err = io_fill(io, blk, want = 1);
			if (err)
				return err;
			io->next_seq = blk + want;
			if (!(s->valid && s->blk == blk))
				return E4_ERR_SHORT_READ;
		}
		memcpy(p, io->data + (size_t)i * io->blksize, io->blksize);
	}
	return 0;
}

errcode_t e4_io_read_blk_nocache(e4_io *io, e4_blk_t blk, unsigned count, void *buf)
{
	uint64_t total = io->size / io->blksize;

	if (blk >= total || count > total - blk)
		return E4_ERR_SHORT_READ;
	return e4_io_read_nocache(io, blk * (uint64_t)io->blksize, buf,
				  (size_t)count * io->blksize);
}

errcode_t e4_io_read_nocache(e4_io *io, uint64_t offset, void *buf, size_t len)
{
	uint64_t bs = io->blksize, b;
	errcode_t err;

	err = e4_io_pread(io, offset, buf, len);
	if (err || !len || !(io->flags & E4_IO_RW))
		return err;
	/* Dirty cached blocks are newer than the device: their bytes in
	 * [offset, offset + len) replace what was read. */
	for (b = offset / bs; b <= (offset + len - 1) / bs; b++) {
		uint32_t i = io_slot(io, b);
		uint64_t lo = b * bs > offset ? b * bs : offset;
		uint64_t hi = (b + 1) * bs < offset + len ? (b + 1) * bs : offset + len;

		if (io->slots[i].valid && io->slots[i].dirty && io->slots[i].blk == b)
			memcpy((uint8_t *)buf + (lo - offset),
			       io->data + (size_t)i * bs + (lo - b * bs), hi - lo);
	}
	return 0;
}

int e4_io_read_nocache_threadsafe(e4_io *io)
{
	return !(io->flags & E4_IO_RW) && !io->read_hook;
}

errcode_t e4_io_write_blk(e4_io *io, e4_blk_t blk, unsigned count, const void *buf)
{
	const uint8_t *p = buf;
	errcode_t err;

	if (!(io->flags & E4_IO_RW))
		return E4_ERR_READ_ONLY;
	for (unsigned k = 0; k < count; k++, blk++, p += io->blksize) {
		uint32_t i = io_slot(io, blk);
		struct e4_io_slot *s = &io->slots[i];

		if (s->valid && s->dirty && s->blk != blk) {
			err = io_write_slot(io, i);
			if (err)
				return err;
		}
		memcpy(io->data + (size_t)i * io->blksize, p, io->blksize);
		s->blk = blk;
		s->valid = 1;
		s->dirty = 1;
	}
	return 0;
}

errcode_t e4_io_flush(e4_io *io)
{
	errcode_t err;

	if (!(io->flags & E4_IO_RW))
		return 0;
	err = io_writeback(io);
	if (err)
		return err;
	/* nothing written since the last flush: nothing to wait for.  Data
	 * and what finds it (allocation, size) are what must be durable:
	 * fdatasync, which skips a commit for timestamps alone. */
	if (!io->unsynced || io->mem) {
		io->unsynced = 0;
		return 0;
	}
	if (fdatasync(io->fd) < 0)
		return io_errno();
	io->unsynced = 0;
	return 0;
}

void e4_io_discard(e4_io *io)
{
	for (uint32_t i = 0; i < io->nslots; i++)
		if (io->slots[i].dirty)
			io->slots[i].valid = io->slots[i].dirty = 0;
}

void e4_io_set_writeback_ahead(e4_io *io, uint64_t bytes)
{
	io->ahead = bytes;
	io->unstarted = 0;
}

void e4_io_set_write_hook(e4_io *io, e4_io_write_hook hook, void *priv)
{
	io->write_hook = hook;
	io->write_hook_priv = priv;
}

void e4_io_set_read_hook(e4_io *io, e4_io_read_hook hook, void *priv)
{
	io->read_hook = hook;
	io->read_hook_priv = priv;
}

int e4_err_is_io(errcode_t err)
{
	/* system-call failures are errno values, below the com_err tables */
	return (err > 0 && err < 256) || err == E4_ERR_SHORT_READ || err == E4_ERR_SHORT_WRITE;
}

/* ---- read-ahead hint (inode_scan.c) ------------------------------------- */
void e4_io_readahead(e4_io *io, uint64_t offset, uint64_t len)
{
	if (io->mem || io->fd < 0 || offset >= io->size)
		return;
	if (len > io->size - offset)
		len = io->size - offset;
	(void)posix_fadvise(io->fd, (off_t)(offset + io->base), (off_t)len, POSIX_FADV_WILLNEED);
}
