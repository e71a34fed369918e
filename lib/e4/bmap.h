/*
 * bmap.h: libe4's in-memory bitmap type (bmap.c, bmap_runs.c), included
 * by e4.h.
 *
 * A map holds one bit for each number in [start, end) (64-bit: block or
 * cluster numbers, inode numbers), independent of the on-disk bitmaps
 * (loading and storing those: e4.h, "bitmaps in memory").  Two backends
 * behind the same calls, chosen per map:
 *  - E4_BMAP_FLAT: a plain bit array, (end - start) / 8 bytes; every
 *    operation touches only the words it covers.  For dense or small maps.
 *  - E4_BMAP_RUNS: the maximal runs of set bits in a B+tree keyed by their
 *    first bit; memory follows the number of runs (16 to 32 bytes each,
 *    about 1 KiB per tree node), not end - start; single-bit and range
 *    operations cost O(log runs), plus O(log runs) per run a range
 *    operation merges or removes.  For sparse maps of large devices.
 * Both give the same answers for the same operations (tests/unit/test_bmap).
 * Bit numbers are absolute (a map of blocks starting at first_data_block
 * is tested with block numbers, not offsets).  Ranges are a first bit and
 * a count, or [from, to) with to exclusive.  Maps are not thread-safe.
 */
#ifndef E4_BMAP_H
#define E4_BMAP_H

#include <stddef.h>
#include <stdint.h>
#include <et/com_err.h>

#ifdef __cplusplus
extern "C" {
#endif

struct e4_bmap;

enum e4_bmap_kind {
	E4_BMAP_FLAT = 1,	/* bit array */
	E4_BMAP_RUNS = 2,	/* B+tree of runs of set bits */
};

/* A map of bits [start, end), all clear.  E4_ERR_INVALID_ARGUMENT (unknown
 * kind, start > end), E4_ERR_NO_MEMORY (a flat map too large for memory or
 * size_t). */
errcode_t e4_bmap_create(enum e4_bmap_kind kind, uint64_t start, uint64_t end,
			 struct e4_bmap **ret);
/* Free a map (NULL is fine). */
void e4_bmap_free(struct e4_bmap *bm);
enum e4_bmap_kind e4_bmap_get_kind(const struct e4_bmap *bm);
/* The range the map was created with. */
uint64_t e4_bmap_start(const struct e4_bmap *bm);
uint64_t e4_bmap_end(const struct e4_bmap *bm);
/* Bytes the map holds allocated (its structure, words or tree nodes). */
size_t e4_bmap_memory(const struct e4_bmap *bm);

/* 1 if bit is set; 0 if clear or outside the map. */
int e4_bmap_test(const struct e4_bmap *bm, uint64_t bit);
/* Set / clear one bit.  E4_ERR_BMAP_RANGE (outside [start, end)),
 * E4_ERR_NO_MEMORY (runs backend: a new run needs a node; the map is
 * unchanged). */
errcode_t e4_bmap_set(struct e4_bmap *bm, uint64_t bit);
errcode_t e4_bmap_clear(struct e4_bmap *bm, uint64_t bit);
/* Set / clear bits [first, first + n); n = 0 does nothing.
 * E4_ERR_BMAP_RANGE when any of them lies outside the map (nothing
 * changed), E4_ERR_NO_MEMORY (runs backend; nothing changed). */
errcode_t e4_bmap_set_range(struct e4_bmap *bm, uint64_t first, uint64_t n);
errcode_t e4_bmap_clear_range(struct e4_bmap *bm, uint64_t first, uint64_t n);
/* 1 if every bit of [first, first + n) is set (resp. clear); bits outside
 * the map count as clear; n = 0 gives 1. */
int e4_bmap_range_all_set(const struct e4_bmap *bm, uint64_t first, uint64_t n);
int e4_bmap_range_all_clear(const struct e4_bmap *bm, uint64_t first, uint64_t n);

/* Searches over [from, to) clipped to the map; *out gets the bit found.
 * E4_ERR_BMAP_NOT_FOUND when there is none (*out unchanged). */
errcode_t e4_bmap_find_first_set(const struct e4_bmap *bm, uint64_t from, uint64_t to,
				 uint64_t *out);
errcode_t e4_bmap_find_first_zero(const struct e4_bmap *bm, uint64_t from, uint64_t to,
				  uint64_t *out);
/* The highest set bit of [from, to).  E4_ERR_BMAP_NOT_FOUND. */
errcode_t e4_bmap_find_last_set(const struct e4_bmap *bm, uint64_t from, uint64_t to,
				uint64_t *out);
/* From goal to the end of the map, then from its start up to goal (a goal
 * outside the map starts at the map's start).  E4_ERR_BMAP_NOT_FOUND. */
errcode_t e4_bmap_find_set_wrap(const struct e4_bmap *bm, uint64_t goal, uint64_t *out);
errcode_t e4_bmap_find_zero_wrap(const struct e4_bmap *bm, uint64_t goal, uint64_t *out);
/* The first n consecutive clear bits inside [from, to) (clipped to the
 * map): *out gets the first of them.  n = 0: E4_ERR_INVALID_ARGUMENT;
 * E4_ERR_BMAP_NOT_FOUND. */
errcode_t e4_bmap_find_zero_run(const struct e4_bmap *bm, uint64_t from, uint64_t to, uint64_t n,
				uint64_t *out);
/* The maximal run of set bits holding bit from, or the first one after
 * it, cut to start at from: *first and *len (>= 1).
 * E4_ERR_BMAP_NOT_FOUND when no bit at or after from is set. */
errcode_t e4_bmap_next_run(const struct e4_bmap *bm, uint64_t from, uint64_t *first, uint64_t *len);
/* Call cb for each maximal run of set bits in [from, to), cut to that
 * range, in increasing order.  A non-zero return from cb stops the walk
 * and is returned; else 0.  The map must not change during the walk. */
typedef int (*e4_bmap_run_cb)(uint64_t first, uint64_t len, void *priv);
int e4_bmap_iterate(const struct e4_bmap *bm, uint64_t from, uint64_t to, e4_bmap_run_cb cb,
		    void *priv);

/* Set bits in the whole map (O(1) for both backends). */
uint64_t e4_bmap_count(const struct e4_bmap *bm);
/* Set bits in [first, first + n) (bits outside the map are clear). */
uint64_t e4_bmap_count_range(const struct e4_bmap *bm, uint64_t first, uint64_t n);
/* Number of maximal runs of set bits (runs backend: O(1); flat: a scan). */
uint64_t e4_bmap_run_count(const struct e4_bmap *bm);
/* 0 if a and b hold the same set bits, else 1 and *first_diff (may be
 * NULL) gets the lowest bit where they differ.  The maps may differ in
 * backend and range: bits outside a map count as clear. */
int e4_bmap_compare(const struct e4_bmap *a, const struct e4_bmap *b, uint64_t *first_diff);

/* A new map with src's range and bits in backend kind (0: src's).
 * E4_ERR_INVALID_ARGUMENT, E4_ERR_NO_MEMORY. */
errcode_t e4_bmap_copy(const struct e4_bmap *src, enum e4_bmap_kind kind, struct e4_bmap **ret);
/* Move bm to backend kind in place (same bits).  On error bm is unchanged.
 * E4_ERR_INVALID_ARGUMENT, E4_ERR_NO_MEMORY. */
errcode_t e4_bmap_convert(struct e4_bmap *bm, enum e4_bmap_kind kind);

/* Bits [first, first + nbits) become those of buf, an ext4-order bitmap
 * (bit i is bit i % 8 of byte i / 8; format doc 5).  E4_ERR_BMAP_RANGE,
 * E4_ERR_NO_MEMORY (the range may then be partly changed). */
errcode_t e4_bmap_import(struct e4_bmap *bm, uint64_t first, const uint8_t *buf, uint64_t nbits);
/* Bits [first, first + nbits) of the map into buf in the same order;
 * bits outside the map are written clear; the bits of buf's last byte
 * past nbits are left as they were. */
void e4_bmap_export(const struct e4_bmap *bm, uint64_t first, uint8_t *buf, uint64_t nbits);

/* Internal consistency (runs ordered, disjoint and not adjacent, tree
 * keys, fill and counters; flat: no bit past the end): 0, or
 * E4_ERR_CORRUPT.  For tests. */
errcode_t e4_bmap_validate(const struct e4_bmap *bm);

#ifdef __cplusplus
}
#endif
#endif /* E4_BMAP_H */
