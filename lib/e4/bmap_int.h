/*
 * bmap_int.h: the backends of the in-memory bitmap type (bmap.h) as the
 * generic layer (bmap.c) sees them.  Not installed.
 *
 * A backend works on bit offsets r in [0, nbits) (the map's bit minus its
 * start); the generic layer has already checked and clipped every range.
 * Searches return 1 and *out when they find a bit, 0 when they do not.
 */
#ifndef E4_BMAP_INT_H
#define E4_BMAP_INT_H

#include "e4.h"

struct e4_bmap_ops {
	void (*destroy)(void *be);
	size_t (*memory)(const void *be);
	int (*test)(const void *be, uint64_t r);
	/* [r, r + n), n >= 1; on error nothing changed */
	errcode_t (*set_range)(void *be, uint64_t r, uint64_t n);
	errcode_t (*clear_range)(void *be, uint64_t r, uint64_t n);
	/* first set / first clear / last set bit of [from, to), from < to */
	int (*find_set)(const void *be, uint64_t from, uint64_t to, uint64_t *out);
	int (*find_zero)(const void *be, uint64_t from, uint64_t to, uint64_t *out);
	int (*find_last_set)(const void *be, uint64_t from, uint64_t to, uint64_t *out);
	uint64_t (*count)(const void *be);
	/* set bits of [r, r + n), n >= 1 */
	uint64_t (*count_range)(const void *be, uint64_t r, uint64_t n);
	uint64_t (*run_count)(const void *be);
	/* 0 or E4_ERR_CORRUPT */
	errcode_t (*validate)(const void *be);
};

/* The run backend (bmap_runs.c): a new empty one, NULL when out of memory. */
void *e4_bmap_runs_new(void);
extern const struct e4_bmap_ops e4_bmap_runs_ops;

#endif
