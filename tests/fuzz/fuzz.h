/*
 * fuzz.h: what the libFuzzer targets of tests/fuzz share (see README there):
 * the input container, the memory devices built from it, opening a
 * filesystem the way the tools do, the checksum-fixing mode, silencing the
 * tools' output.
 *
 * The container ("E4FZ", little-endian):
 *   0  "E4FZ"
 *   4  u8  flags   (FZ_F_*; each target gives the other bits a meaning)
 *   5  u8  op[3]   (target-specific choices)
 *   8  u64 size    (device size in bytes, at most FZ_MAX_SIZE)
 *   16 chunks: u32 unit, u32 len, then len bytes (cut at the input's end),
 *      stored at byte unit * 1024 of the image; with bit 31 of unit set,
 *      of the second device (an external journal).
 * Everything not stored reads as zeros, so a seed holds only the blocks
 * of an image that are not all zero (tests/fuzz/e4fz.py packs images).
 * An input without the magic is a raw image of its own length.
 */
#ifndef E4_FUZZ_H
#define E4_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "e4.h"

#define FZ_HDR		16
#define FZ_MAX_SIZE	(1ULL << 44)	/* device size cap: 16 TiB */
#define FZ_MAX_STORE	(64ULL << 20)	/* bytes a memory device may hold */
#define FZ_F_CSUM	0x01		/* recompute the checksums first */

struct fz_image {
	uint8_t flags;
	uint8_t op[3];
	uint64_t size;			/* bytes */
	e4_io *io;			/* the image: a read-write memory device */
	uint64_t jsize;			/* second device: bytes (0: none) */
};

/* The libFuzzer entry points: each target defines the first and
 * fz_target_init() (its set-up, after fuzz_common.c's Initialize has
 * registered the error table and silenced the output). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);
void fz_target_init(void);

/* Build the image device from an input (container or raw image); the
 * second device's chunks go to the file jfd (truncated to jsize first;
 * -1: dropped).  0, or -1 when the input holds nothing usable. */
int fz_image_load(const uint8_t *data, size_t len, struct fz_image *im, int jfd);
void fz_image_free(struct fz_image *im);
/* The same into the file fd instead (a memory file from fz_device(), for
 * a tool's code that opens a device path): truncated to the device size,
 * the chunks written; im->io stays NULL.  0 or -1. */
int fz_image_load_fd(const uint8_t *data, size_t len, struct fz_image *im, int fd, int jfd);
/* A memory file (memfd_create) for a device a tool opens by path: its
 * descriptor (-1 on failure), its path ("/proc/self/fd/N") into path. */
int fz_device(const char *name, char *path, size_t len);
/* fz_fix_csums() on the image file at path. */
void fz_fix_csums_path(const char *path);

/* Recompute every checksum of the filesystem on io the way a writer would
 * (e4_csum_rewrite_best_effort), so that a mutated structure passes
 * verification and the code behind it is reached.  Nothing happens when
 * the filesystem does not open. */
void fz_fix_csums(e4_io *io);

/* Open the filesystem on io as the tools do: a checksum failure of the
 * superblock or descriptors retries with E4_OPEN_IGNORE_CSUM. */
errcode_t fz_open(e4_io *io, int flags, e4_blk_t sb, unsigned bs, e4_fs **fs);

/* Send stdout and stderr (the FILE streams; of the descriptors only 1,
 * so that sanitizer reports and libFuzzer's lines on 2 still show) to
 * /dev/null, unless E4FUZZ_VERBOSE is set. */
void fz_quiet(void);

/* The read path (fuzz_walk.c): every inode reachable from the root and
 * the reserved ones, through every reader that applies (map and extent
 * walks with iter_flags, directories with dir_flags, lookups, namei, file
 * data, inline data, symlinks, xattrs with their values). */
void fz_walk(e4_fs *fs, unsigned iter_flags, unsigned dir_flags);
/* Descriptor checks, device size, bitmap loads (fuzz_walk.c). */
void fz_check_groups(e4_fs *fs);

#define FZ_J_IGNORE_CSUM 0x01	/* E4_JOPEN_IGNORE_CSUM */
#define FZ_J_VERIFY	0x02	/* E4_JSCAN_VERIFY_TAGS */
#define FZ_J_REPLAY	0x04	/* e4_journal_replay, not e4_journal_recover */
#define FZ_J_RESET	0x08	/* a refused journal superblock is replaced */
#define FZ_J_ERRNO	0x10	/* the journal's errno carried first */
/* The journal (fuzz_walk.c): the filesystem on io opened read-write, its
 * journal (ext: an external journal's path) opened, scanned with a
 * listing callback, replayed or recovered, then everything opened and
 * scanned again. */
void fz_journal(e4_io *io, const char *ext, unsigned flags);

/* Little-endian field of an input. */
static inline uint32_t fz_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#endif
