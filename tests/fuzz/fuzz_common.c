/*
 * fuzz_common.c: the input container, memory devices, opening and the
 * checksum-fixing mode shared by the fuzz targets (fuzz.h).
 */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

/* Groups beyond this make the checksum walk too slow for one input. */
#define FZ_CSUM_MAX_GROUPS	4096

static errcode_t load(e4_io *io, uint64_t size, uint64_t off, const uint8_t *p, size_t n)
{
	if (off >= size)
		return 0;
	if (n > size - off)
		n = (size_t)(size - off);
	return e4_io_mem_load(io, off, p, n);
}

/* The header's fields into im (im->size: the device's), the second
 * device's size from the chunks; -1 without the magic (a raw image). */
static int parse_header(const uint8_t *data, size_t len, struct fz_image *im)
{
	size_t pos;

	memset(im, 0, sizeof(*im));
	if (len < FZ_HDR || memcmp(data, "E4FZ", 4))
		return -1;
	im->flags = data[4];
	memcpy(im->op, data + 5, 3);
	im->size = (uint64_t)fz_le32(data + 8) | (uint64_t)fz_le32(data + 12) << 32;
	if (im->size > FZ_MAX_SIZE)
		im->size = FZ_MAX_SIZE;
	/* the second device's size: what its chunks reach, in whole MiB */
	for (pos = FZ_HDR; pos + 8 <= len;) {
		uint32_t unit = fz_le32(data + pos), n = fz_le32(data + pos + 4);

		pos += 8;
		if (n > len - pos)
			n = (uint32_t)(len - pos);
		if (unit >> 31) {
			uint64_t end = (uint64_t)(unit & 0x7FFFFFFF) * 1024 + n;

			end = (end + (1 << 20) - 1) & ~(uint64_t)((1 << 20) - 1);
			if (end > im->jsize)
				im->jsize = end;
		}
		pos += n;
	}
	return 0;
}

/* The chunks: the image's into io (or, io NULL, the file fd), the second
 * device's into the file jfd (-1: dropped). */
static void load_chunks(const uint8_t *data, size_t len, const struct fz_image *im, e4_io *io,
			int fd, int jfd)
{
	for (size_t pos = FZ_HDR; pos + 8 <= len;) {
		uint32_t unit = fz_le32(data + pos), n = fz_le32(data + pos + 4);
		uint64_t off = (uint64_t)(unit & 0x7FFFFFFF) * 1024;

		pos += 8;
		if (n > len - pos)
			n = (uint32_t)(len - pos);
		/* ENOSPC (too much stored) only loses the rest of the input */
		if (unit >> 31) {
			if (jfd >= 0 && pwrite(jfd, data + pos, n, (off_t)off) < 0)
				jfd = -1;
		} else if (io) {
			(void)load(io, im->size, off, data + pos, n);
		} else if (off < im->size) {
			size_t m = n > im->size - off ? (size_t)(im->size - off) : n;

			if (pwrite(fd, data + pos, m, (off_t)off) < 0)
				fd = -1;
		}
		pos += n;
	}
}

int fz_image_load(const uint8_t *data, size_t len, struct fz_image *im, int jfd)
{
	if (parse_header(data, len, im)) {
		/* a raw image */
		if (!len)
			return -1;
		im->size = len;
		if (e4_io_open_mem(im->size, FZ_MAX_STORE, E4_IO_RW | E4_IO_NO_GROW, &im->io) ||
		    e4_io_mem_load(im->io, 0, data, len)) {
			fz_image_free(im);
			return -1;
		}
		return 0;
	}
	if (e4_io_open_mem(im->size, FZ_MAX_STORE, E4_IO_RW | E4_IO_NO_GROW, &im->io)) {
		fz_image_free(im);
		return -1;
	}
	if (jfd >= 0 && (ftruncate(jfd, 0) || ftruncate(jfd, (off_t)im->jsize)))
		jfd = -1;
	load_chunks(data, len, im, im->io, -1, jfd);
	return 0;
}

int fz_image_load_fd(const uint8_t *data, size_t len, struct fz_image *im, int fd, int jfd)
{
	int raw = parse_header(data, len, im);

	if (raw)
		im->size = len;
	if (!im->size || ftruncate(fd, 0) || ftruncate(fd, (off_t)im->size))
		return -1;
	if (raw)
		return pwrite(fd, data, len, 0) == (ssize_t)len ? 0 : -1;
	if (jfd >= 0 && (ftruncate(jfd, 0) || ftruncate(jfd, (off_t)im->jsize)))
		jfd = -1;
	load_chunks(data, len, im, NULL, fd, jfd);
	return 0;
}

int fz_device(const char *name, char *path, size_t len)
{
	int fd = memfd_create(name, 0);

	if (fd >= 0)
		snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

void fz_fix_csums_path(const char *path)
{
	e4_io *io;

	if (e4_io_open(path, E4_IO_RW | E4_IO_NO_GROW, &io))
		return;
	fz_fix_csums(io);
	e4_io_close(io);
}

void fz_image_free(struct fz_image *im)
{
	e4_io_close(im->io);
	memset(im, 0, sizeof(*im));
}

static int is_csum_error(errcode_t err)
{
	return err == E4_ERR_SB_CSUM || err == E4_ERR_GD_CSUM ||
	       err == E4_ERR_BLOCK_BITMAP_CSUM || err == E4_ERR_INODE_BITMAP_CSUM;
}

errcode_t fz_open(e4_io *io, int flags, e4_blk_t sb, unsigned bs, e4_fs **fs)
{
	errcode_t err = e4_open_io(io, "fuzz", flags, sb, bs, fs);

	if (err && is_csum_error(err) && !(flags & E4_OPEN_IGNORE_CSUM))
		err = e4_open_io(io, "fuzz", flags | E4_OPEN_IGNORE_CSUM, sb, bs, fs);
	return err;
}

void fz_fix_csums(e4_io *io)
{
	e4_fs *fs;

	if (e4_open_io(io, "fuzz", E4_OPEN_RW | E4_OPEN_IGNORE_CSUM, 0, 0, &fs))
		return;
	if (e4_geom(fs)->group_count <= FZ_CSUM_MAX_GROUPS)
		(void)e4_csum_rewrite_best_effort(fs);
	(void)e4_close(fs);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	e4_init_errors();
	fz_quiet();
	fz_target_init();
	return 0;
}

void fz_quiet(void)
{
	static FILE *null;

	if (getenv("E4FUZZ_VERBOSE"))
		return;
	if (!null)
		null = fopen("/dev/null", "w");
	if (null) {
		stdout = null;
		stderr = null;
		/* e4debugfs cat writes file data to descriptor 1 itself */
		dup2(fileno(null), STDOUT_FILENO);
	}
}
