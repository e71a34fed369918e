/* Unit tests for ordered writes (io.c e4_io_barrier) and the I/O stack
 * (io_layer.c: statistics, crash point, hooks; issue 13 "Ordered writes"
 * and "I/O as a stack").
 *
 * random_epochs: random sequences of cached block writes, uncached
 * writes, reads (which evict through read-ahead) and ordering points on a
 * memory device whose cache is small enough to evict all the time; a
 * recording layer sees what reaches the device.  Every epoch's last
 * contents of each block must reach it, all of them before anything of a
 * later epoch, with an ordering point passed down the stack between; no
 * block goes back to older contents; the device ends with the last
 * contents.  Bug it catches: a block of an earlier epoch dirtied again
 * and simply moved to the later epoch (its earlier contents, which later
 * blocks depend on, never written first).
 *
 * stack_counts_and_stops: statistics over a crash point over the base
 * count what passed and stop where told. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "e4.h"

#define BS		1024u
#define NBLK		3000u		/* blocks used: ~12 times the cache */
#define DEV_BYTES	((uint64_t)NBLK * BS)

/* ---- a recording layer -------------------------------------------------- */
enum { EV_WRITE, EV_BARRIER };
struct ev {
	int type;
	uint64_t pos;		/* index of the write call it belongs to */
	uint64_t ver;		/* EV_WRITE: the version of one block written */
	uint64_t blk;
};
struct rec {
	e4_io_layer l;
	struct ev *ev;
	size_t n, cap;
	uint64_t writes;
};

static void rec_push(struct rec *r, struct ev e)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 1024;
		r->ev = realloc(r->ev, r->cap * sizeof(*r->ev));
		assert_non_null(r->ev);
	}
	r->ev[r->n++] = e;
}

static errcode_t rec_write(e4_io_layer *l, uint64_t offset, const void *buf, size_t len)
{
	struct rec *r = (struct rec *)l;
	const uint8_t *p = buf;

	assert_int_equal(offset % BS, 0);
	assert_int_equal(len % BS, 0);
	for (size_t k = 0; k < len / BS; k++) {
		uint64_t ver;

		memcpy(&ver, p + k * BS, 8);
		rec_push(r, (struct ev){ EV_WRITE, r->writes, ver, offset / BS + k });
	}
	r->writes++;
	return e4_io_layer_write(l->below, offset, buf, len);
}

static errcode_t rec_barrier(e4_io_layer *l)
{
	struct rec *r = (struct rec *)l;

	rec_push(r, (struct ev){ EV_BARRIER, r->writes, 0, 0 });
	return e4_io_layer_barrier(l->below);
}

static void rec_free(e4_io_layer *l)
{
	free(((struct rec *)l)->ev);
	free(l);
}

static const struct e4_io_layer_ops rec_ops = {
	.name = "record",
	.write = rec_write,
	.barrier = rec_barrier,
	.free = rec_free,
};

/* ---- the model ------------------------------------------------------------ */
struct ver {
	uint64_t blk;
	uint32_t epoch;
};

static uint64_t rng;

static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

/* Block contents of version v of blk: the version, the block, a pattern. */
static void fill(uint8_t *b, uint64_t v, uint64_t blk)
{
	memset(b, (int)(v * 31 + 7), BS);
	memcpy(b, &v, 8);
	memcpy(b + 8, &blk, 8);
}

static void check_block(const uint8_t *got, uint64_t v, uint64_t blk)
{
	uint8_t want[BS];

	if (v)
		fill(want, v, blk);
	else
		memset(want, 0, BS);
	assert_memory_equal(got, want, BS);
}

/* One random run with seed; pbar: per mille of steps that are ordering
 * points. */
static void run_epochs(uint64_t seed, unsigned steps, unsigned pbar, unsigned hot)
{
	struct ver *vers = calloc((size_t)steps * 8 + 2, sizeof(*vers));	/* up to 6 a step */
	uint64_t *cur = calloc(NBLK, sizeof(*cur));	/* latest version per block */
	uint8_t *final = NULL;				/* epoch-final flags per version */
	struct rec *r = calloc(1, sizeof(*r));
	uint8_t buf[BS];
	uint32_t epoch = 0;
	uint64_t nver = 0;
	e4_io *io;

	assert_non_null(vers);
	assert_non_null(cur);
	assert_non_null(r);
	rng = seed;
	assert_int_equal(e4_io_open_mem(DEV_BYTES, DEV_BYTES * 2, E4_IO_RW | E4_IO_NO_GROW, &io), 0);
	assert_int_equal(e4_io_set_blksize(io, BS), 0);
	r->l.ops = &rec_ops;
	e4_io_push_layer(io, &r->l);

	for (unsigned s = 0; s < steps; s++) {
		unsigned what = (unsigned)rnd(1000);
		/* a hot set makes blocks dirtied again across epochs common */
		uint64_t blk = rnd(4) ? rnd(hot) : rnd(NBLK);

		if (what < pbar) {
			assert_int_equal(e4_io_barrier(io), 0);
			epoch++;
		} else if (what < pbar + 60) {
			/* uncached: reaches the device now, in this epoch */
			nver++;
			vers[nver] = (struct ver){ blk, epoch };
			fill(buf, nver, blk);
			assert_int_equal(e4_io_pwrite(io, blk * BS, buf, BS), 0);
			cur[blk] = nver;
		} else if (what < pbar + 200) {
			/* a read: read-ahead fills (and evicts) up to 64 slots */
			assert_int_equal(e4_io_read_blk(io, blk, 1, buf), 0);
			check_block(buf, cur[blk], blk);
		} else if (what < pbar + 203) {
			assert_int_equal(e4_io_flush(io), 0);
		} else {
			unsigned count = rnd(8) ? 1 : 1 + (unsigned)rnd(6);

			if (blk + count > NBLK)
				count = 1;
			for (unsigned k = 0; k < count; k++) {
				nver++;
				vers[nver] = (struct ver){ blk + k, epoch };
				fill(buf, nver, blk + k);
				assert_int_equal(e4_io_write_blk(io, blk + k, 1, buf), 0);
				cur[blk + k] = nver;
			}
		}
	}
	assert_int_equal(e4_io_flush(io), 0);

	/* the last version of each block in each epoch must be written */
	final = calloc(nver + 2, 1);
	assert_non_null(final);
	for (uint64_t v = 1; v <= nver; v++) {
		uint64_t w;

		for (w = v + 1; w <= nver; w++)
			if (vers[w].blk == vers[v].blk)
				break;
		if (w > nver || vers[w].epoch != vers[v].epoch)
			final[v] = 1;
	}
	{
		uint8_t *seen = calloc(nver + 2, 1);
		uint64_t *last = calloc(NBLK, sizeof(*last));
		uint32_t wepoch = 0;
		int barrier_since = 0;
		size_t first_write = SIZE_MAX;

		assert_non_null(seen);
		assert_non_null(last);
		for (size_t i = 0; i < r->n; i++) {
			const struct ev *e = &r->ev[i];

			if (first_write == SIZE_MAX && e->type == EV_WRITE)
				first_write = i;
			if (e->type == EV_BARRIER) {
				barrier_since = 1;
				continue;
			}
			assert_true(e->ver >= 1 && e->ver <= nver);
			assert_int_equal(vers[e->ver].blk, e->blk);
			/* a block never goes back to older contents */
			assert_true(e->ver >= last[e->blk]);
			last[e->blk] = e->ver;
			/* epochs never go back, and change only at a barrier */
			assert_true(vers[e->ver].epoch >= wepoch);
			if (vers[e->ver].epoch != wepoch) {
				/* every final version of the epochs before is out */
				for (uint64_t v = 1; v <= nver; v++)
					if (final[v] && vers[v].epoch < vers[e->ver].epoch && !seen[v])
						fail_msg("seed %llu: version %llu (block %llu, epoch %u) "
							 "not written before block %llu of epoch %u",
							 (unsigned long long)seed, (unsigned long long)v,
							 (unsigned long long)vers[v].blk, vers[v].epoch,
							 (unsigned long long)e->blk, vers[e->ver].epoch);
				/* the stack was told (none needed before the first) */
				assert_true(barrier_since || i == first_write);
				wepoch = vers[e->ver].epoch;
			}
			barrier_since = 0;
			seen[e->ver] = 1;
		}
		for (uint64_t v = 1; v <= nver; v++)
			if (final[v] && !seen[v])
				fail_msg("seed %llu: version %llu (block %llu, epoch %u) never written",
					 (unsigned long long)seed, (unsigned long long)v,
					 (unsigned long long)vers[v].blk, vers[v].epoch);
		free(seen);
		free(last);
	}
	/* the device holds the last contents */
	for (uint64_t b = 0; b < NBLK; b++) {
		assert_int_equal(e4_io_pread(io, b * BS, buf, BS), 0);
		check_block(buf, cur[b], b);
	}
	e4_io_close(io);
	free(final);
	free(vers);
	free(cur);
}

static void random_epochs(void **state)
{
	(void)state;
	/* few barriers, many; a hot set of 40 blocks (fits the cache) or
	 * 600 (evicts constantly) */
	for (uint64_t seed = 1; seed <= 6; seed++) {
		run_epochs(seed * 0x9E3779B97F4A7C15ULL, 4000, 20, 40);
		run_epochs(seed * 0x9E3779B97F4A7C15ULL + 1, 4000, 150, 600);
		run_epochs(seed * 0x9E3779B97F4A7C15ULL + 2, 3000, 400, 40);
	}
}

/* Without ordering points nothing changes: one epoch, no barrier passed
 * down, blocks written back in runs (a run of 32 blocks is one write). */
static void no_barrier_runs(void **state)
{
	struct e4_io_stats st;
	e4_io_layer *stats;
	uint8_t buf[32 * BS];
	e4_io *io;

	(void)state;
	assert_int_equal(e4_io_open_mem(DEV_BYTES, DEV_BYTES, E4_IO_RW, &io), 0);
	assert_int_equal(e4_io_set_blksize(io, BS), 0);
	assert_int_equal(e4_io_stats_layer(&stats), 0);
	e4_io_push_layer(io, stats);
	for (unsigned k = 0; k < 32; k++)
		fill(buf + k * BS, k + 1, 100 + k);
	assert_int_equal(e4_io_write_blk(io, 100, 32, buf), 0);
	assert_int_equal(e4_io_barrier(io), 0);
	assert_int_equal(e4_io_barrier(io), 0);	/* nothing since: no epoch */
	assert_int_equal(e4_io_flush(io), 0);
	e4_io_stats_get(stats, &st);
	assert_int_equal(st.writes, 1);
	assert_int_equal(st.written_bytes, 32 * BS);
	assert_int_equal(st.barriers, 0);
	assert_int_equal(st.syncs, 1);
	e4_io_close(io);
}

static int stopped;

static void note_stop(void *priv)
{
	stopped += *(int *)priv;
}

static int hook_calls;

static errcode_t count_hook(void *priv, uint64_t offset, size_t len)
{
	(void)priv;
	(void)offset;
	(void)len;
	hook_calls++;
	return 0;
}

/* statistics over a crash point over the base: 5 writes pass, the 6th
 * stops the device (stop called once), every later one fails too; the
 * statistics count what got through, the reads, syncs and barriers;
 * E4_IO_CRASH_ONCE fails one write only; layers come out again. */
static void stack_counts_and_stops(void **state)
{
	struct e4_io_stats st;
	e4_io_layer *stats, *crash;
	uint64_t left = 5;
	uint8_t buf[BS], got[BS];
	int one = 1;
	e4_io *io;

	(void)state;
	assert_int_equal(e4_io_open_mem(DEV_BYTES, DEV_BYTES, E4_IO_RW, &io), 0);
	assert_int_equal(e4_io_set_blksize(io, BS), 0);
	e4_io_set_write_hook(io, count_hook, NULL);
	assert_int_equal(e4_io_crash_layer(&left, 0, note_stop, &one, &crash), 0);
	e4_io_push_layer(io, crash);
	assert_int_equal(e4_io_stats_layer(&stats), 0);
	e4_io_push_layer(io, stats);
	assert_ptr_equal(e4_io_top_layer(io), stats);

	stopped = 0;
	for (uint64_t b = 0; b < 8; b++) {
		fill(buf, b + 1, b);
		assert_int_equal(e4_io_pwrite(io, b * BS, buf, BS), b < 5 ? 0 : EIO);
	}
	assert_int_equal(stopped, 1);
	assert_true(e4_io_crash_tripped(crash));
	assert_int_equal(left, 0);
	for (uint64_t b = 0; b < 8; b++) {
		assert_int_equal(e4_io_pread(io, b * BS, got, BS), 0);
		check_block(got, b < 5 ? b + 1 : 0, b);
	}
	/* a cached block goes out at the flush, and fails there */
	fill(buf, 99, 20);
	assert_int_equal(e4_io_write_blk(io, 20, 1, buf), 0);
	assert_int_equal(e4_io_flush(io), EIO);
	e4_io_discard(io);
	e4_io_stats_get(stats, &st);
	assert_int_equal(st.writes, 5);
	assert_int_equal(st.written_bytes, 5 * BS);
	assert_int_equal(st.reads, 8);
	assert_int_equal(st.read_bytes, 8 * BS);
	assert_int_equal(hook_calls, 5);	/* the hook sits below */
	assert_int_equal(stopped, 1);

	/* out with the crash point: writes pass again, still counted */
	assert_int_equal(e4_io_remove_layer(io, crash), 0);
	assert_int_equal(e4_io_remove_layer(io, crash), E4_ERR_INVALID_ARGUMENT);
	crash->ops->free(crash);
	fill(buf, 6, 5);
	assert_int_equal(e4_io_write_blk(io, 5, 1, buf), 0);
	assert_int_equal(e4_io_barrier(io), 0);
	fill(buf, 7, 6);
	assert_int_equal(e4_io_write_blk(io, 6, 1, buf), 0);
	assert_int_equal(e4_io_flush(io), 0);
	e4_io_stats_get(stats, &st);
	assert_int_equal(st.writes, 7);
	assert_int_equal(st.barriers, 1);
	assert_int_equal(st.syncs, 1);	/* the failed flush did not sync */
	assert_int_equal(e4_io_pread(io, 6 * BS, got, BS), 0);
	check_block(got, 7, 6);

	/* E4_IO_CRASH_ONCE: the third write fails, the rest pass */
	left = 2;
	assert_int_equal(e4_io_crash_layer(&left, E4_IO_CRASH_ONCE, NULL, NULL, &crash), 0);
	e4_io_push_layer(io, crash);
	for (uint64_t b = 0; b < 5; b++) {
		fill(buf, 50 + b, 40 + b);
		assert_int_equal(e4_io_pwrite(io, (40 + b) * BS, buf, BS), b == 2 ? EIO : 0);
	}
	assert_int_equal(e4_io_pread(io, 42 * BS, got, BS), 0);
	check_block(got, 0, 42);
	e4_io_close(io);	/* frees every layer still stacked */
}

/* A layer whose writes of block bad_blk always fail (a hole of a full
 * tmpfs). */
static uint64_t bad_blk;

static errcode_t bad_write(e4_io_layer *l, uint64_t offset, const void *buf, size_t len)
{
	if (offset <= bad_blk * BS && bad_blk * BS < offset + len)
		return ENOSPC;
	return e4_io_layer_write(l->below, offset, buf, len);
}

static void bad_free(e4_io_layer *l)
{
	free(l);
}

static const struct e4_io_layer_ops bad_ops = {
	.name = "bad block",
	.write = bad_write,
	.free = bad_free,
};

/* e4_io_forget(): nothing before a write-back failed (a freed block's
 * pending write keeps its place); after one, the freed block's write is
 * dropped and the later epochs (the undo) reach the device.  Bug it
 * catches: a failing block retried at every flush, holding back every
 * later step (a failed mkdir on a full tmpfs left its half-made inode). */
static void forget_after_failure(void **state)
{
	uint8_t buf[BS], got[BS];
	e4_io_layer *bad;
	e4_io *io;

	(void)state;
	assert_int_equal(e4_io_open_mem(DEV_BYTES, DEV_BYTES, E4_IO_RW, &io), 0);
	assert_int_equal(e4_io_set_blksize(io, BS), 0);
	fill(buf, 1, 10);
	assert_int_equal(e4_io_write_blk(io, 10, 1, buf), 0);
	e4_io_forget(io, 10, 1);		/* no failure yet: kept */
	assert_int_equal(e4_io_flush(io), 0);
	assert_int_equal(e4_io_pread(io, 10 * BS, got, BS), 0);
	check_block(got, 1, 10);

	bad = calloc(1, sizeof(*bad));
	assert_non_null(bad);
	bad->ops = &bad_ops;
	bad_blk = 20;
	e4_io_push_layer(io, bad);
	fill(buf, 2, 20);
	assert_int_equal(e4_io_write_blk(io, 20, 1, buf), 0);
	assert_int_equal(e4_io_barrier(io), 0);
	fill(buf, 3, 21);
	assert_int_equal(e4_io_write_blk(io, 21, 1, buf), 0);
	assert_int_equal(e4_io_flush(io), ENOSPC);
	assert_int_equal(e4_io_flush(io), ENOSPC);	/* retried, holds 21 back */
	e4_io_forget(io, 18, 3);			/* 18-20 freed */
	assert_int_equal(e4_io_flush(io), 0);
	assert_int_equal(e4_io_pread(io, 21 * BS, got, BS), 0);
	check_block(got, 3, 21);
	e4_io_close(io);
}

/* Reads of a read-only handle may run in threads until a layer that is
 * not thread-safe (statistics) or a read hook is stacked. */
static void threadsafe_reads(void **state)
{
	e4_io_layer *stats;
	e4_io *io;

	(void)state;
	assert_int_equal(e4_io_open_mem(DEV_BYTES, DEV_BYTES, 0, &io), 0);
	assert_true(e4_io_read_nocache_threadsafe(io));
	assert_int_equal(e4_io_stats_layer(&stats), 0);
	e4_io_push_layer(io, stats);
	assert_false(e4_io_read_nocache_threadsafe(io));
	assert_int_equal(e4_io_remove_layer(io, stats), 0);
	stats->ops->free(stats);
	assert_true(e4_io_read_nocache_threadsafe(io));
	e4_io_set_read_hook(io, count_hook, NULL);
	assert_false(e4_io_read_nocache_threadsafe(io));
	assert_int_equal(e4_io_remove_layer(io, e4_io_top_layer(io)), E4_ERR_INVALID_ARGUMENT);
	e4_io_close(io);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_epochs),
		cmocka_unit_test(no_barrier_runs),
		cmocka_unit_test(stack_counts_and_stops),
		cmocka_unit_test(threadsafe_reads),
		cmocka_unit_test(forget_after_failure),
	};

	e4_init_errors();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
