/*
 * bmap_bench: the two backends of the in-memory bitmap type (bmap.h) on
 * dense and sparse patterns.  Not a test: prints one line per case with
 * the time per operation and the memory the map holds.
 *   make -C BUILD bench/bmap_bench && BUILD/bench/bmap_bench
 * Cases (fixed seed):
 *   dense   2^24 bits, random single bits set (half of them end up set),
 *           then random tests and first-zero searches from random goals
 *   alloc   2^24 bits, runs of 1-64 bits set in increasing order with
 *           gaps (an allocator filling a device), then count and iterate
 *   sparse  2^32 bits, 10,000 random runs of 1-1,000 bits, then searches
 *   huge    2^44 bits (runs only), the same 10,000 runs
 */
#include "e4.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t rng = 12345;

static uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void report(const char *pat, const struct e4_bmap *bm, const char *what, uint64_t ops,
		   double t0)
{
	printf("%-7s %-5s %-22s %10llu ops %9.1f ns/op %12zu bytes\n", pat,
	       e4_bmap_get_kind(bm) == E4_BMAP_FLAT ? "flat" : "runs", what,
	       (unsigned long long)ops, (now() - t0) * 1e9 / (double)(ops ? ops : 1),
	       e4_bmap_memory(bm));
}

static int count_run(uint64_t first, uint64_t len, void *priv)
{
	*(uint64_t *)priv += len + (first & 0);
	return 0;
}

static void queries(const char *pat, struct e4_bmap *bm, uint64_t nbits, uint64_t n)
{
	uint64_t sink = 0, out;
	double t0 = now();

	for (uint64_t i = 0; i < n; i++)
		sink += (uint64_t)e4_bmap_test(bm, rnd() % nbits);
	report(pat, bm, "test", n, t0);
	t0 = now();
	for (uint64_t i = 0; i < n; i++)
		if (!e4_bmap_find_zero_wrap(bm, rnd() % nbits, &out))
			sink += out;
	report(pat, bm, "find_zero_wrap", n, t0);
	t0 = now();
	for (uint64_t i = 0; i < n; i++)
		if (!e4_bmap_find_first_set(bm, rnd() % nbits, nbits, &out))
			sink += out;
	report(pat, bm, "find_first_set", n, t0);
	t0 = now();
	e4_bmap_iterate(bm, 0, nbits, count_run, &sink);
	report(pat, bm, "iterate (per run)", e4_bmap_run_count(bm), t0);
	if (sink == 42)
		printf("\n");
}

static void run_case(const char *pat, enum e4_bmap_kind kind, uint64_t nbits)
{
	struct e4_bmap *bm;
	uint64_t n = 0;
	double t0;

	if (e4_bmap_create(kind, 0, nbits, &bm)) {
		printf("%-7s cannot create\n", pat);
		return;
	}
	rng = 12345;
	t0 = now();
	if (pat[0] == 'd') {
		for (n = 0; n < nbits / 2; n++)
			e4_bmap_set(bm, rnd() % nbits);
		report(pat, bm, "set (random bits)", n, t0);
	} else if (pat[0] == 'a') {
		for (uint64_t b = 0; b + 64 < nbits; n++) {
			uint64_t len = 1 + rnd() % 64;

			e4_bmap_set_range(bm, b, len);
			b += len + 1 + rnd() % 8;
		}
		report(pat, bm, "set_range (in order)", n, t0);
	} else {
		for (n = 0; n < 10000; n++)
			e4_bmap_set_range(bm, rnd() % (nbits - 1000), 1 + rnd() % 1000);
		report(pat, bm, "set_range (random)", n, t0);
	}
	t0 = now();
	n = e4_bmap_count_range(bm, 0, nbits);
	report(pat, bm, "count_range (whole)", 1, t0);
	queries(pat, bm, nbits, 1000000);
	e4_bmap_free(bm);
}

int main(void)
{
	for (int k = E4_BMAP_FLAT; k <= E4_BMAP_RUNS; k++) {
		run_case("dense", k, 1ULL << 24);
		run_case("alloc", k, 1ULL << 24);
		run_case("sparse", k, 1ULL << 32);
	}
	run_case("huge", E4_BMAP_RUNS, 1ULL << 44);
	return 0;
}
