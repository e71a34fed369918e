/*
 * io.c: the I/O manager over an image file or a block device.
 *
 * Metadata goes through a direct-mapped block cache with adaptive
 * read-ahead (sequential misses double the window up to E4_IO_RA_MAX
 * blocks); writes are kept dirty in the cache until e4_io_flush().
 * Bulk file data uses e4_io_read_blk_nocache(), which bypasses the cache.
 * Below the cache, reads and writes go down a stack of layers
 * (io_layer.c) to a base (io_base.c): a file or block device
 * (e4_io_open), or memory (e4_io_open_mem: io_mem.c's sparse store, for
 * fuzzing and tests).
 *
 * Ordered writes: e4_io_barrier() starts a new epoch; every dirty block
 * carries the epoch it was dirtied in, and no block reaches the stack
 * before every block of the earlier epochs did (writeback goes epoch by
 * epoch, sorted by block number within one; an uncached write first
 * writes back the earlier epochs; a dirty block of an earlier epoch
 * dirtied again is written back with its old contents first).  The
 * stack sees an ordering point (its barrier op) where the epoch of the
 * writes it gets changes.
 */
#include "io_int.h"
#include "io_mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>

#define E4_IO_CACHE_BYTES	(16u << 20)	/* cache budget */
#define E4_IO_CACHE_MIN		64		/* entries */
#define E4_IO_RA_MAX		64		/* read-ahead window, blocks */
#define E4_IO_MEM_CACHE_BYTES	(256u << 10)	/* cache budget of a memory device */

struct e4_io_slot {
	e4_blk_t blk;
	uint32_t epoch;			/* dirty: the epoch it was dirtied in */
	uint32_t dpos;			/* dirty: its index in dlist */
	uint8_t valid;
	uint8_t dirty;
};

/* one dirty block in an ordered writeback */
struct io_order {
	e4_blk_t blk;
	uint32_t epoch;
	uint32_t slot;
};

struct e4_io {
	int flags;
	uint64_t size;			/* bytes */
	unsigned blksize;
	uint32_t nslots;
	struct e4_io_slot *slots;
	uint8_t *data;			/* nslots * blksize */
	e4_blk_t next_seq;		/* block after the last miss */
	unsigned ra_window;
	uint8_t *ra_buf;		/* E4_IO_RA_MAX * blksize */
	e4_io_layer *top;		/* the stack below the cache */
	struct e4_io_base *base;	/* its bottom */
	struct e4_io_hooks *hooks;	/* e4_io_set_write_hook()/_read_hook() */
	/* ordered writes */
	uint32_t epoch;			/* the current epoch */
	uint32_t out_epoch;		/* epoch of the last write down the stack */
	int cur_written;		/* a write went down in the current epoch */
	uint32_t min_epoch;		/* no dirty slot is of an earlier epoch */
	uint32_t ndirty;		/* dirty slots */
	uint32_t ncur;			/* dirty slots of the current epoch */
	uint32_t *dlist;		/* the dirty slots, ndirty of them */
	struct io_order *order;		/* nslots, scratch of io_writeback_upto() */
	size_t cache_bytes;		/* e4_io_set_cache_bytes(); 0: the default */
	int write_failed;		/* a write-back failed (e4_io_forget()) */
};

static void io_cache_update(e4_io *io, uint64_t offset, const uint8_t *buf, size_t len);
static errcode_t io_writeback_upto(e4_io *io, uint32_t epoch);

static errcode_t io_errno(void)
{
	return errno ? (errcode_t)errno : EIO;
}

/* A new handle over base (taken over), cache for 1 KiB blocks. */
static errcode_t io_new(struct e4_io_base *base, int flags, uint64_t size, e4_io **ret)
{
	e4_io *io = calloc(1, sizeof(*io));
	errcode_t err;

	*ret = NULL;
	if (!io) {
		base->l.ops->free(&base->l);
		return E4_ERR_NO_MEMORY;
	}
	io->flags = flags;
	io->size = size;
	io->base = base;
	io->top = &base->l;
	err = e4_io_hooks_layer(&io->hooks);
	if (!err) {
		e4_io_push_layer(io, &io->hooks->l);
		err = e4_io_set_blksize(io, 1024);
	}
	if (err) {
		e4_io_close(io);
		return err;
	}
	*ret = io;
	return 0;
}

/*
 * Read-write opens take an advisory lock (flock LOCK_EX, not waiting) on
 * the image file or block device, so that two writers (two e4debugfs -w,
 * e4tune while e4fsck -y runs) do not overwrite each other's metadata
 * with stale copies.  Read-only opens take none.  Within one process the
 * same file may be opened read-write again (e4tune's second handle): the
 * lock is counted per file here and held on a duplicate descriptor until
 * its last user closes.  A loop device's read-write open locks the file
 * it is bound to as well, so that a writer through the image and one
 * through the loop device see each other.
 */
static struct {
	dev_t dev;	/* st_dev, or st_rdev for a block device */
	ino_t ino;	/* st_ino; 0 for a block device */
	int fd;		/* a duplicate holding the lock */
	unsigned refs;
} wlocks[16];

/* Take (or count once more) the write lock of fd (st: its fstat).  0 and
 * *slot (index + 1; 0 when the filesystem holding the file has no locks)
 * or E4_ERR_LOCKED when another open file description holds it. */
static errcode_t wlock_take(int fd, const struct stat *st, int *slot)
{
	dev_t dev = S_ISBLK(st->st_mode) ? st->st_rdev : st->st_dev;
	ino_t ino = S_ISBLK(st->st_mode) ? 0 : st->st_ino;
	size_t i, free_i = sizeof(wlocks) / sizeof(wlocks[0]);

	*slot = 0;
	for (i = 0; i < sizeof(wlocks) / sizeof(wlocks[0]); i++) {
		if (wlocks[i].refs && wlocks[i].dev == dev && wlocks[i].ino == ino) {
			wlocks[i].refs++;
			*slot = (int)i + 1;
			return 0;
		}
		if (!wlocks[i].refs && free_i == sizeof(wlocks) / sizeof(wlocks[0]))
			free_i = i;
	}
	/* udev takes a shared lock on a block device for a moment while it
	 * probes it (after each writer closes): wait up to about 2 s for that
	 * to pass, never for a file */
	for (int tries = S_ISBLK(st->st_mode) ? 200 : 1; flock(fd, LOCK_EX | LOCK_NB) < 0;) {
		const struct timespec ten_ms = { 0, 10 * 1000 * 1000 };

		if (errno != EWOULDBLOCK)
			return 0;	/* no locks there */
		if (--tries <= 0)
			return E4_ERR_LOCKED;
		nanosleep(&ten_ms, NULL);
	}
	if (free_i == sizeof(wlocks) / sizeof(wlocks[0]))
		return 0;	/* held through fd alone, until it closes */
	wlocks[free_i].fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (wlocks[free_i].fd < 0)
		return 0;
	wlocks[free_i].dev = dev;
	wlocks[free_i].ino = ino;
	wlocks[free_i].refs = 1;
	*slot = (int)free_i + 1;
	return 0;
}

void e4_io_wlock_release(int wlock)
{
	if (wlock <= 0 || (size_t)wlock > sizeof(wlocks) / sizeof(wlocks[0]) ||
	    !wlocks[wlock - 1].refs)
		return;
	if (--wlocks[wlock - 1].refs == 0)
		close(wlocks[wlock - 1].fd);
}

errcode_t e4_io_open(const char *path, int flags, e4_io **ret)
{
	int wlock = 0, wlock_file = 0;
	struct stat st;
	struct e4_io_base *base;
	uint64_t size;
	errcode_t err;
	int oflags = (flags & E4_IO_RW) ? O_RDWR : O_RDONLY;
	unsigned align = 0;
	int fd;

	*ret = NULL;
	if (flags & E4_IO_DIRECT)
		oflags |= O_DIRECT;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer; it is
	 * refused below like every other non-device, non-file */
	fd = open(path, oflags | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 && errno == EINVAL && (flags & E4_IO_DIRECT))
		return E4_ERR_DIRECT_IO;	/* tmpfs and others refuse O_DIRECT */
	if (fd < 0)
		return io_errno();
	if (fstat(fd, &st) < 0)
		goto fail;
	if (S_ISBLK(st.st_mode)) {
		int ro = 0;

		if (ioctl(fd, BLKGETSIZE64, &size) < 0)
			goto fail;
		/* a read-only block device (losetup -r, a write-protected
		 * disk) opens O_RDWR but fails every write: refuse it now,
		 * not at the first write */
		if ((flags & E4_IO_RW) && ioctl(fd, BLKROGET, &ro) == 0 && ro) {
			errno = EROFS;
			goto fail;
		}
	} else if (S_ISREG(st.st_mode)) {
		size = (uint64_t)st.st_size;
	} else {
		errno = S_ISDIR(st.st_mode) ? EISDIR : ENOTBLK;
		goto fail;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0)
		goto fail;
	if (flags & E4_IO_DIRECT) {
		int ss = 0;

		/* the device's logical block size; 4096 for an image file
		 * (a multiple of what any filesystem below asks) */
		align = 4096;
		if (S_ISBLK(st.st_mode) && ioctl(fd, BLKSSZGET, &ss) == 0 && ss >= 512 &&
		    !(ss & (ss - 1)))
			align = (unsigned)ss;
		if (size % align) {
			close(fd);
			return E4_ERR_DIRECT_IO;
		}
	}
	if ((flags & E4_IO_RW) && (err = wlock_take(fd, &st, &wlock))) {
		close(fd);
		return err;
	}
	/* a loop device: its backing file too (a writer on the image) */
	if ((flags & E4_IO_RW) && S_ISBLK(st.st_mode)) {
		int bfd = e4_loop_backing_open(fd);
		struct stat bst;

		if (bfd >= 0) {
			err = fstat(bfd, &bst) ? 0 : wlock_take(bfd, &bst, &wlock_file);
			close(bfd);
			if (err) {
				close(fd);
				e4_io_wlock_release(wlock);
				return err;
			}
		}
	}
	err = e4_io_base_fd(fd, flags, &base);
	if (err) {
		close(fd);
		e4_io_wlock_release(wlock);
		e4_io_wlock_release(wlock_file);
		return err;
	}
	base->dio_align = align;
	base->wlock = wlock;
	base->wlock_file = wlock_file;
	return io_new(base, flags, size, ret);
fail:
	err = io_errno();
	close(fd);
	return err;
}

errcode_t e4_io_open_mem(uint64_t size, uint64_t max_bytes, int flags, e4_io **ret)
{
	struct e4_io_base *base;
	errcode_t err;

	*ret = NULL;
	err = e4_io_base_mem(max_bytes, &base);
	if (err)
		return err;
	return io_new(base, flags, size, ret);
}

errcode_t e4_io_mem_load(e4_io *io, uint64_t offset, const void *buf, size_t len)
{
	errcode_t err;

	if (!io->base->mem)
		return E4_ERR_INVALID_ARGUMENT;
	if (offset > io->size || len > io->size - offset)
		return E4_ERR_SHORT_WRITE;
	err = e4_iomem_write(io->base->mem, offset + io->base->off, buf, len);
	if (!err)
		io_cache_update(io, offset, buf, len);
	return err;
}

/* ---- the stack ---------------------------------------------------------- */
void e4_io_push_layer(e4_io *io, e4_io_layer *layer)
{
	layer->below = io->top;
	io->top = layer;
}

errcode_t e4_io_remove_layer(e4_io *io, e4_io_layer *layer)
{
	e4_io_layer **pp = &io->top;

	if (!layer || layer == &io->base->l || layer == &io->hooks->l)
		return E4_ERR_INVALID_ARGUMENT;
	while (*pp && *pp != layer)
		pp = &(*pp)->below;
	if (!*pp)
		return E4_ERR_INVALID_ARGUMENT;
	*pp = layer->below;
	layer->below = NULL;
	return 0;
}

e4_io_layer *e4_io_top_layer(e4_io *io)
{
	return io->top;
}

/* Write len bytes at offset down the stack as part of epoch: the stack
 * gets an ordering point first when the epoch changes. */
static errcode_t io_dev_write(e4_io *io, uint32_t epoch, uint64_t offset, const void *buf,
			      size_t len)
{
	errcode_t err;

	/* a regular file is never extended past the filesystem's device */
	if ((io->flags & E4_IO_NO_GROW) && (offset > io->size || len > io->size - offset))
		return E4_ERR_SHORT_WRITE;
	if (epoch != io->out_epoch) {
		err = e4_io_layer_barrier(io->top);
		if (err)
			return err;
		io->out_epoch = epoch;
	}
	err = e4_io_layer_write(io->top, offset, buf, len);
	if (err)
		return err;
	if (offset + len > io->size)
		io->size = offset + len;
	if (epoch == io->epoch)
		io->cur_written = 1;	/* the next ordering point separates it */
	return 0;
}

/* ---- dirty blocks -------------------------------------------------------- */
/* Slot i now holds a block dirtied in the current epoch (a dirty slot
 * must already be of the current epoch). */
static void slot_dirty(e4_io *io, uint32_t i)
{
	struct e4_io_slot *s = &io->slots[i];

	if (s->dirty)
		return;
	s->dirty = 1;
	s->epoch = io->epoch;
	s->dpos = io->ndirty;
	io->dlist[io->ndirty++] = i;
	io->ncur++;
}

static void slot_clean(e4_io *io, uint32_t i)
{
	struct e4_io_slot *s = &io->slots[i];
	uint32_t last;

	if (!s->dirty)
		return;
	s->dirty = 0;
	if (s->epoch == io->epoch)
		io->ncur--;
	last = io->dlist[--io->ndirty];
	io->dlist[s->dpos] = last;
	io->slots[last].dpos = s->dpos;
}

/* Write slots i .. i+n-1 (consecutive blocks, one epoch) in one call. */
static errcode_t io_write_run(e4_io *io, uint32_t i, uint32_t n)
{
	errcode_t err;

	err = io_dev_write(io, io->slots[i].epoch, io->slots[i].blk * (uint64_t)io->blksize,
			   io->data + (size_t)i * io->blksize, (size_t)n * io->blksize);
	if (!err)
		for (uint32_t k = 0; k < n; k++)
			slot_clean(io, i + k);
	else
		io->write_failed = 1;
	return err;
}

/* Write every dirty block when they are all of one epoch (the case
 * without ordering points).  The cache is direct-mapped (slot = block mod
 * nslots), so dirty neighbours on disk sit in neighbouring slots: each
 * such run goes out as one write (the reserved GDT blocks, bitmaps and
 * inode table blocks of a new filesystem are long runs). */
static errcode_t io_writeback_scan(e4_io *io)
{
	errcode_t err = 0, e;

	for (uint32_t i = 0; i < io->nslots && io->ndirty; i++) {
		uint32_t n = 1;

		if (!io->slots[i].valid || !io->slots[i].dirty)
			continue;
		while (i + n < io->nslots && io->slots[i + n].valid && io->slots[i + n].dirty &&
		       io->slots[i + n].blk == io->slots[i].blk + n)
			n++;
		e = io_write_run(io, i, n);
		if (e && !err)
			err = e;
		i += n - 1;
	}
	return err;
}

static int order_cmp(const void *a, const void *b)
{
	const struct io_order *x = a, *y = b;

	if (x->epoch != y->epoch)
		return x->epoch < y->epoch ? -1 : 1;
	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

/* Write every dirty block of the epochs up to epoch, the earliest epoch
 * first, each sorted by block number with neighbours merged.  Stops at
 * the first failure: nothing of a later epoch goes out after it. */
static errcode_t io_writeback_upto(e4_io *io, uint32_t epoch)
{
	uint32_t n = 0;
	errcode_t err;

	if (!io->ndirty)
		return 0;
	if (io->ndirty == io->ncur) {	/* one epoch: the current one */
		if (epoch < io->epoch)
			return 0;
		err = io_writeback_scan(io);
		if (!err)
			io->min_epoch = io->epoch;
		return err;
	}
	for (uint32_t k = 0; k < io->ndirty; k++) {
		const struct e4_io_slot *s = &io->slots[io->dlist[k]];

		if (s->epoch <= epoch)
			io->order[n++] = (struct io_order){ s->blk, s->epoch, io->dlist[k] };
	}
	qsort(io->order, n, sizeof(*io->order), order_cmp);
	for (uint32_t j = 0; j < n;) {
		uint32_t r = 1;

		while (j + r < n && io->order[j + r].epoch == io->order[j].epoch &&
		       io->order[j + r].blk == io->order[j].blk + r &&
		       io->order[j + r].slot == io->order[j].slot + r)
			r++;
		err = io_write_run(io, io->order[j].slot, r);
		if (err)
			return err;
		j += r;
	}
	if (epoch >= io->epoch)
		io->min_epoch = io->epoch;
	else if (epoch + 1 > io->min_epoch)
		io->min_epoch = epoch + 1;
	return 0;
}

/* Every block of the epochs before epoch is on the device after this. */
static errcode_t io_complete_before(e4_io *io, uint32_t epoch)
{
	if (!epoch || io->ndirty == io->ncur || io->min_epoch >= epoch)
		return 0;
	return io_writeback_upto(io, epoch - 1);
}

/* Make room in dirty slot i: write it back, after the earlier epochs. */
static errcode_t io_evict(e4_io *io, uint32_t i)
{
	errcode_t err = io_complete_before(io, io->slots[i].epoch);

	if (!err && io->slots[i].dirty)
		err = io_write_run(io, i, 1);
	return err;
}

errcode_t e4_io_barrier(e4_io *io)
{
	errcode_t err;

	if (!io->ncur && !io->cur_written)
		return 0;	/* nothing to put in order */
	if (io->epoch == UINT32_MAX) {
		/* out of epochs: everything out, and start again at 0 */
		err = io_writeback_upto(io, io->epoch);
		if (!err)
			err = e4_io_layer_barrier(io->top);
		if (err)
			return err;
		io->epoch = io->out_epoch = io->min_epoch = 0;
		io->ncur = 0;
		io->cur_written = 0;
		return 0;
	}
	io->epoch++;
	io->ncur = 0;
	io->cur_written = 0;
	return 0;
}

errcode_t e4_order_point(e4_fs *fs)
{
	return e4_io_barrier(fs->io);
}

void e4_io_close(e4_io *io)
{
	e4_io_layer *l, *next;

	if (!io)
		return;
	if ((io->flags & E4_IO_RW) && io->slots)
		io_writeback_upto(io, io->epoch);
	for (l = io->top; l; l = next) {
		next = l->below;
		l->ops->free(l);
	}
	free(io->slots);
	free(io->data);
	free(io->ra_buf);
	free(io->dlist);
	free(io->order);
	free(io);
}

uint64_t e4_io_size(e4_io *io)
{
	return io->size;
}

errcode_t e4_io_set_offset(e4_io *io, uint64_t offset)
{
	uint64_t end = io->size + io->base->off;

	if (offset > end)
		return E4_ERR_INVALID_ARGUMENT;
	io->base->off = offset;
	io->size = end - offset;
	return 0;
}

void e4_io_set_cache_bytes(e4_io *io, size_t bytes)
{
	io->cache_bytes = bytes;
}

errcode_t e4_io_set_blksize(e4_io *io, unsigned blocksize)
{
	uint32_t n;
	errcode_t err;

	if (blocksize < 512 || blocksize > EXT4_MAX_BLOCK_SIZE ||
	    (blocksize & (blocksize - 1)))
		return E4_ERR_INVALID_ARGUMENT;
	n = (io->cache_bytes ? io->cache_bytes :
	     io->base->mem ? E4_IO_MEM_CACHE_BYTES : E4_IO_CACHE_BYTES) / blocksize;
	if (n < E4_IO_CACHE_MIN)
		n = E4_IO_CACHE_MIN;
	/* the same size and budget: nothing to do */
	if (io->blksize == blocksize && io->slots && io->nslots == n)
		return 0;
	if (io->slots && (io->flags & E4_IO_RW)) {
		err = io_writeback_upto(io, io->epoch);
		if (err)
			return err;
	}
	free(io->slots);
	free(io->data);
	free(io->ra_buf);
	free(io->dlist);
	free(io->order);
	io->slots = NULL;
	io->data = io->ra_buf = NULL;
	io->dlist = NULL;
	io->order = NULL;
	io->nslots = io->ndirty = io->ncur = 0;
	io->min_epoch = io->epoch;
	io->slots = calloc(n, sizeof(*io->slots));
	io->data = malloc((size_t)n * blocksize);
	io->ra_buf = malloc((size_t)E4_IO_RA_MAX * blocksize);
	io->dlist = malloc((size_t)n * sizeof(*io->dlist));
	io->order = malloc((size_t)n * sizeof(*io->order));
	if (!io->slots || !io->data || !io->ra_buf || !io->dlist || !io->order)
		return E4_ERR_NO_MEMORY;
	io->nslots = n;
	io->blksize = blocksize;
	io->next_seq = 0;
	io->ra_window = 1;
	return 0;
}

errcode_t e4_io_pread(e4_io *io, uint64_t offset, void *buf, size_t len)
{
	if (offset > io->size || len > io->size - offset)
		return E4_ERR_SHORT_READ;
	return e4_io_layer_read(io->top, offset, buf, len);
}

static inline uint32_t io_slot(e4_io *io, e4_blk_t blk);

/* An uncached write must not leave an older copy of its blocks in the
 * cache: copy the new bytes into every cached block it touches. */
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
	errcode_t err;

	if (!(io->flags & E4_IO_RW))
		return E4_ERR_READ_ONLY;
	if ((io->flags & E4_IO_NO_GROW) && (offset > io->size || len > io->size - offset))
		return E4_ERR_SHORT_WRITE;
	/* a write of the current epoch: the earlier ones go first */
	err = io_complete_before(io, io->epoch);
	if (err)
		return err;
	err = io_dev_write(io, io->epoch, offset, buf, len);
	if (err)
		return err;
	io_cache_update(io, offset, buf, len);
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
			err = io_evict(io, i);
			if (err)
				return err;
		}
		memcpy(io->data + (size_t)i * io->blksize,
		       io->ra_buf + (size_t)k * io->blksize, io->blksize);
		s->blk = blk + k;
		s->valid = 1;
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
	if (io->flags & E4_IO_RW)
		return 0;
	for (const e4_io_layer *l = io->top; l; l = l->below)
		if (!l->mt_read)
			return 0;
	return 1;
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
			err = io_evict(io, i);
			if (err)
				return err;
		} else if (s->valid && s->dirty && s->epoch != io->epoch) {
			/* dirty in an earlier epoch: those contents belong
			 * there, and go out with it before they are replaced */
			err = io_writeback_upto(io, s->epoch);
			if (err)
				return err;
		}
		memcpy(io->data + (size_t)i * io->blksize, p, io->blksize);
		s->blk = blk;
		s->valid = 1;
		slot_dirty(io, i);
	}
	return 0;
}

errcode_t e4_io_flush(e4_io *io)
{
	errcode_t err;

	if (!(io->flags & E4_IO_RW))
		return 0;
	err = io_writeback_upto(io, io->epoch);
	if (err)
		return err;
	return e4_io_layer_sync(io->top);
}

void e4_io_discard(e4_io *io)
{
	while (io->ndirty) {
		uint32_t i = io->dlist[io->ndirty - 1];

		slot_clean(io, i);
		io->slots[i].valid = 0;
	}
	io->min_epoch = io->epoch;
}

void e4_io_forget(e4_io *io, e4_blk_t blk, uint64_t count)
{
	if (!io->write_failed || !io->nslots)
		return;
	if (count > io->nslots) {	/* every slot, by its block */
		for (uint32_t i = 0; i < io->nslots; i++) {
			struct e4_io_slot *s = &io->slots[i];

			if (s->valid && s->dirty && s->blk >= blk && s->blk - blk < count) {
				slot_clean(io, i);
				s->valid = 0;
			}
		}
		return;
	}
	for (uint64_t k = 0; k < count; k++) {
		uint32_t i = io_slot(io, blk + k);
		struct e4_io_slot *s = &io->slots[i];

		if (s->valid && s->dirty && s->blk == blk + k) {
			slot_clean(io, i);
			s->valid = 0;
		}
	}
}

void e4_io_set_writeback_ahead(e4_io *io, uint64_t bytes)
{
	io->base->ahead = bytes;
	io->base->unstarted = 0;
}

void e4_io_set_write_hook(e4_io *io, e4_io_write_hook hook, void *priv)
{
	io->hooks->write_hook = hook;
	io->hooks->write_priv = priv;
}

void e4_io_set_read_hook(e4_io *io, e4_io_read_hook hook, void *priv)
{
	io->hooks->read_hook = hook;
	io->hooks->read_priv = priv;
	io->hooks->l.mt_read = hook == NULL;
}

int e4_err_is_io(errcode_t err)
{
	/* system-call failures are errno values, below the com_err tables */
	return (err > 0 && err < 256) || err == E4_ERR_SHORT_READ || err == E4_ERR_SHORT_WRITE;
}

/* ---- read-ahead hint (inode_scan.c) ------------------------------------- */
void e4_io_readahead(e4_io *io, uint64_t offset, uint64_t len)
{
	if (!io->base || io->base->mem || io->base->fd < 0 || offset >= io->size)
		return;
	if (len > io->size - offset)
		len = io->size - offset;
	(void)posix_fadvise(io->base->fd, (off_t)(offset + io->base->off), (off_t)len,
			    POSIX_FADV_WILLNEED);
}
