/*
 * io_bench: the block cache's write path (io.c) on a memory device, so
 * that the cache's own cost is measured, not a disk's.  Not a test: prints
 * one line per case with the nanoseconds per block written and flushed.
 *   make -C BUILD bench/io_bench && BUILD/bench/io_bench
 * Cases (fixed seed; 4 KiB blocks, a 1 GiB device whose pages are written
 * once before the timing, so the store only copies):
 *   seq      64 passes over 16,384 consecutive blocks (four times the
 *            cache), a flush after each pass: eviction and runs
 *   random   1,000,000 random blocks of the first 65,536, flushes every
 *            4,096 writes
 *   barrier  random, with an ordering point every 16 writes (built only
 *            when e4.h has e4_io_barrier)
 * Compiled against an older libe4 (without ordering points), seq and
 * random give the before figures.
 */
#include "e4.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BS	4096u
#define DEV	(1ULL << 30)

static uint64_t rng = 12345;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static e4_io *open_dev(void)
{
	static uint8_t fill[1 << 20];
	e4_io *io;

	memset(fill, 0x11, sizeof(fill));
	if (e4_io_open_mem(DEV, DEV, E4_IO_RW, &io) || e4_io_set_blksize(io, BS))
		exit(1);
	/* every page of the first 256 MiB exists: the store then only copies */
	for (uint64_t off = 0; off < (256ULL << 20); off += sizeof(fill))
		if (e4_io_pwrite(io, off, fill, sizeof(fill)))
			exit(1);
	return io;
}

static void report(const char *name, double t, uint64_t blocks)
{
	printf("%-8s %8.1f ns/block  (%llu blocks, %.3f s)\n", name, t * 1e9 / (double)blocks,
	       (unsigned long long)blocks, t);
}

int main(void)
{
	static uint8_t buf[BS];
	e4_io *io;
	double t;

	memset(buf, 0x5a, sizeof(buf));
	io = open_dev();
	t = now();
	for (int pass = 0; pass < 64; pass++) {
		for (e4_blk_t b = 0; b < 16384; b++)
			if (e4_io_write_blk(io, b, 1, buf))
				return 1;
		if (e4_io_flush(io))
			return 1;
	}
	report("seq", now() - t, 64 * 16384);
	e4_io_close(io);

	for (int barriers = 0; barriers < 2; barriers++) {
		io = open_dev();
		rng = 12345;
		t = now();
		for (unsigned i = 1; i <= 1000000; i++) {
			if (e4_io_write_blk(io, rnd() % 65536, 1, buf))
				return 1;
#ifdef E4_IO_SYNC_BARRIERS
			if (barriers && i % 16 == 0 && e4_io_barrier(io))
				return 1;
#endif
			if (i % 4096 == 0 && e4_io_flush(io))
				return 1;
		}
		if (e4_io_flush(io))
			return 1;
		report(barriers ? "barrier" : "random", now() - t, 1000000);
		e4_io_close(io);
#ifndef E4_IO_SYNC_BARRIERS
		break;
#endif
	}
	return 0;
}
