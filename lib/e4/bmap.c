/*
 * bmap.c: the in-memory bitmap type (bmap.h): the calls every backend
 * shares, built on a few backend operations (bmap_int.h), and the flat
 * backend (one bit per number in 64-bit words).  The run backend is in
 * bmap_runs.c.
 */
#include "bmap_int.h"

#include <stdlib.h>
#include <string.h>

struct e4_bmap {
	enum e4_bmap_kind kind;
	uint64_t start, end;
	const struct e4_bmap_ops *ops;
	void *be;
};

/* ---- the flat backend --------------------------------------------------- */
struct flat {
	uint64_t *w;
	uint64_t nbits, nwords, nset;
};

/* Bits [lo, lo + span) of a word, 0 <= lo < 64, 1 <= span <= 64 - lo. */
static uint64_t word_mask(unsigned lo, uint64_t span)
{
	return (span >= 64 ? ~0ULL : ((1ULL << span) - 1)) << lo;
}

static void *flat_new(uint64_t nbits)
{
	struct flat *f = calloc(1, sizeof(*f));
	uint64_t nwords = nbits / 64 + (nbits % 64 != 0);

	if (!f)
		return NULL;
	if (nwords > SIZE_MAX / sizeof(uint64_t)) {
		free(f);
		return NULL;
	}
	f->w = calloc(nwords ? (size_t)nwords : 1, sizeof(uint64_t));
	if (!f->w) {
		free(f);
		return NULL;
	}
	f->nbits = nbits;
	f->nwords = nwords;
	return f;
}

static void flat_destroy(void *be)
{
	struct flat *f = be;

	free(f->w);
	free(f);
}

static size_t flat_memory(const void *be)
{
	const struct flat *f = be;

	return sizeof(*f) + (size_t)f->nwords * sizeof(uint64_t);
}

static int flat_test(const void *be, uint64_t r)
{
	const struct flat *f = be;

	return (int)((f->w[r >> 6] >> (r & 63)) & 1);
}

static void flat_apply(struct flat *f, uint64_t r, uint64_t n, int set)
{
	uint64_t end = r + n;

	while (r < end) {
		unsigned lo = (unsigned)(r & 63);
		uint64_t span = 64 - lo, old, nw;

		if (span > end - r)
			span = end - r;
		old = f->w[r >> 6];
		nw = set ? old | word_mask(lo, span) : old & ~word_mask(lo, span);
		f->nset += (uint64_t)__builtin_popcountll(nw);
		f->nset -= (uint64_t)__builtin_popcountll(old);
		f->w[r >> 6] = nw;
		r += span;
	}
}

static errcode_t flat_set_range(void *be, uint64_t r, uint64_t n)
{
	flat_apply(be, r, n, 1);
	return 0;
}

static errcode_t flat_clear_range(void *be, uint64_t r, uint64_t n)
{
	flat_apply(be, r, n, 0);
	return 0;
}

/* First bit of [from, to) equal to val (words past nbits hold zeros, and
 * to <= nbits). */
static int flat_find(const struct flat *f, uint64_t from, uint64_t to, int val, uint64_t *out)
{
	uint64_t i = from >> 6, last = (to - 1) >> 6;
	uint64_t m = (val ? f->w[i] : ~f->w[i]) & (~0ULL << (from & 63));

	for (;;) {
		if (m) {
			uint64_t r = (i << 6) + (uint64_t)__builtin_ctzll(m);

			if (r >= to)
				return 0;
			*out = r;
			return 1;
		}
		if (i == last)
			return 0;
		i++;
		m = val ? f->w[i] : ~f->w[i];
	}
}

static int flat_find_set(const void *be, uint64_t from, uint64_t to, uint64_t *out)
{
	return flat_find(be, from, to, 1, out);
}

static int flat_find_zero(const void *be, uint64_t from, uint64_t to, uint64_t *out)
{
	return flat_find(be, from, to, 0, out);
}

static int flat_find_last_set(const void *be, uint64_t from, uint64_t to, uint64_t *out)
{
	const struct flat *f = be;
	uint64_t i = (to - 1) >> 6, first = from >> 6;
	uint64_t m = f->w[i] & word_mask(0, ((to - 1) & 63) + 1);

	for (;;) {
		if (m) {
			uint64_t r = (i << 6) + 63 - (uint64_t)__builtin_clzll(m);

			if (r < from)
				return 0;
			*out = r;
			return 1;
		}
		if (i == first)
			return 0;
		m = f->w[--i];
	}
}

static uint64_t flat_count(const void *be)
{
	return ((const struct flat *)be)->nset;
}

static uint64_t flat_count_range(const void *be, uint64_t r, uint64_t n)
{
	const struct flat *f = be;
	uint64_t end = r + n, total = 0;

	while (r < end) {
		unsigned lo = (unsigned)(r & 63);
		uint64_t span = 64 - lo;

		if (span > end - r)
			span = end - r;
		total += (uint64_t)__builtin_popcountll(f->w[r >> 6] & word_mask(lo, span));
		r += span;
	}
	return total;
}

static uint64_t flat_run_count(const void *be)
{
	const struct flat *f = be;
	uint64_t runs = 0, carry = 0;

	/* a run starts at each set bit whose lower neighbour is clear */
	for (uint64_t i = 0; i < f->nwords; i++) {
		uint64_t w = f->w[i];

		runs += (uint64_t)__builtin_popcountll(w & ~((w << 1) | carry));
		carry = w >> 63;
	}
	return runs;
}

static errcode_t flat_validate(const void *be)
{
	const struct flat *f = be;
	uint64_t total = 0;

	for (uint64_t i = 0; i < f->nwords; i++)
		total += (uint64_t)__builtin_popcountll(f->w[i]);
	if (total != f->nset)
		return E4_ERR_CORRUPT;
	if ((f->nbits & 63) && (f->w[f->nwords - 1] >> (f->nbits & 63)))
		return E4_ERR_CORRUPT;	/* a bit past the end */
	return 0;
}

static const struct e4_bmap_ops flat_ops = {
	.destroy = flat_destroy,
	.memory = flat_memory,
	.test = flat_test,
	.set_range = flat_set_range,
	.clear_range = flat_clear_range,
	.find_set = flat_find_set,
	.find_zero = flat_find_zero,
	.find_last_set = flat_find_last_set,
	.count = flat_count,
	.count_range = flat_count_range,
	.run_count = flat_run_count,
	.validate = flat_validate,
};

/* ---- creation ----------------------------------------------------------- */
static errcode_t backend_new(enum e4_bmap_kind kind, uint64_t nbits,
			     const struct e4_bmap_ops **ops, void **be)
{
	switch (kind) {
	case E4_BMAP_FLAT:
		*ops = &flat_ops;
		*be = flat_new(nbits);
		break;
	case E4_BMAP_RUNS:
		*ops = &e4_bmap_runs_ops;
		*be = e4_bmap_runs_new();
		break;
	default:
		return E4_ERR_INVALID_ARGUMENT;
	}
	return *be ? 0 : E4_ERR_NO_MEMORY;
}

errcode_t e4_bmap_create(enum e4_bmap_kind kind, uint64_t start, uint64_t end, struct e4_bmap **ret)
{
	struct e4_bmap *bm;
	errcode_t err;

	if (start > end)
		return E4_ERR_INVALID_ARGUMENT;
	bm = calloc(1, sizeof(*bm));
	if (!bm)
		return E4_ERR_NO_MEMORY;
	err = backend_new(kind, end - start, &bm->ops, &bm->be);
	if (err) {
		free(bm);
		return err;
	}
	bm->kind = kind;
	bm->start = start;
	bm->end = end;
	*ret = bm;
	return 0;
}

void e4_bmap_free(struct e4_bmap *bm)
{
	if (!bm)
		return;
	bm->ops->destroy(bm->be);
	free(bm);
}

enum e4_bmap_kind e4_bmap_get_kind(const struct e4_bmap *bm)
{
	return bm->kind;
}

uint64_t e4_bmap_start(const struct e4_bmap *bm)
{
	return bm->start;
}

uint64_t e4_bmap_end(const struct e4_bmap *bm)
{
	return bm->end;
}

size_t e4_bmap_memory(const struct e4_bmap *bm)
{
	return sizeof(*bm) + bm->ops->memory(bm->be);
}

/* ---- single bits and ranges --------------------------------------------- */
/* Is [first, first + n), n >= 1, inside the map? */
static int inside(const struct e4_bmap *bm, uint64_t first, uint64_t n)
{
	return first >= bm->start && first < bm->end && n <= bm->end - first;
}

/* Cut [*from, *to) to the map; 0 if nothing is left. */
static int clip(const struct e4_bmap *bm, uint64_t *from, uint64_t *to)
{
	if (*from < bm->start)
		*from = bm->start;
	if (*to > bm->end)
		*to = bm->end;
	return *from < *to;
}

/* [first, first + n) as [from, to), saturating at 2^64 - 1. */
static uint64_t range_end(uint64_t first, uint64_t n)
{
	return n > UINT64_MAX - first ? UINT64_MAX : first + n;
}

int e4_bmap_test(const struct e4_bmap *bm, uint64_t bit)
{
	if (bit < bm->start || bit >= bm->end)
		return 0;
	return bm->ops->test(bm->be, bit - bm->start);
}

errcode_t e4_bmap_set_range(struct e4_bmap *bm, uint64_t first, uint64_t n)
{
	if (!n)
		return 0;
	if (!inside(bm, first, n))
		return E4_ERR_BMAP_RANGE;
	return bm->ops->set_range(bm->be, first - bm->start, n);
}

errcode_t e4_bmap_clear_range(struct e4_bmap *bm, uint64_t first, uint64_t n)
{
	if (!n)
		return 0;
	if (!inside(bm, first, n))
		return E4_ERR_BMAP_RANGE;
	return bm->ops->clear_range(bm->be, first - bm->start, n);
}

errcode_t e4_bmap_set(struct e4_bmap *bm, uint64_t bit)
{
	return e4_bmap_set_range(bm, bit, 1);
}

errcode_t e4_bmap_clear(struct e4_bmap *bm, uint64_t bit)
{
	return e4_bmap_clear_range(bm, bit, 1);
}

/* ---- searches ----------------------------------------------------------- */
typedef int (*search_fn)(const void *be, uint64_t from, uint64_t to, uint64_t *out);

static errcode_t search(const struct e4_bmap *bm, search_fn fn, uint64_t from, uint64_t to,
			uint64_t *out)
{
	uint64_t r;

	if (!clip(bm, &from, &to) || !fn(bm->be, from - bm->start, to - bm->start, &r))
		return E4_ERR_BMAP_NOT_FOUND;
	*out = r + bm->start;
	return 0;
}

errcode_t e4_bmap_find_first_set(const struct e4_bmap *bm, uint64_t from, uint64_t to,
				 uint64_t *out)
{
	return search(bm, bm->ops->find_set, from, to, out);
}

errcode_t e4_bmap_find_first_zero(const struct e4_bmap *bm, uint64_t from, uint64_t to,
				  uint64_t *out)
{
	return search(bm, bm->ops->find_zero, from, to, out);
}

errcode_t e4_bmap_find_last_set(const struct e4_bmap *bm, uint64_t from, uint64_t to,
				uint64_t *out)
{
	return search(bm, bm->ops->find_last_set, from, to, out);
}

int e4_bmap_range_all_set(const struct e4_bmap *bm, uint64_t first, uint64_t n)
{
	uint64_t r;

	if (!n)
		return 1;
	if (!inside(bm, first, n))
		return 0;
	return e4_bmap_find_first_zero(bm, first, first + n, &r) != 0;
}

int e4_bmap_range_all_clear(const struct e4_bmap *bm, uint64_t first, uint64_t n)
{
	uint64_t r;

	return e4_bmap_find_first_set(bm, first, range_end(first, n), &r) != 0;
}

errcode_t e4_bmap_find_set_wrap(const struct e4_bmap *bm, uint64_t goal, uint64_t *out)
{
	if (goal < bm->start || goal >= bm->end)
		goal = bm->start;
	if (!e4_bmap_find_first_set(bm, goal, bm->end, out))
		return 0;
	return e4_bmap_find_first_set(bm, bm->start, goal, out);
}

errcode_t e4_bmap_find_zero_wrap(const struct e4_bmap *bm, uint64_t goal, uint64_t *out)
{
	if (goal < bm->start || goal >= bm->end)
		goal = bm->start;
	if (!e4_bmap_find_first_zero(bm, goal, bm->end, out))
		return 0;
	return e4_bmap_find_first_zero(bm, bm->start, goal, out);
}

errcode_t e4_bmap_find_zero_run(const struct e4_bmap *bm, uint64_t from, uint64_t to, uint64_t n,
				uint64_t *out)
{
	uint64_t z, s;

	if (!n)
		return E4_ERR_INVALID_ARGUMENT;
	if (!clip(bm, &from, &to))
		return E4_ERR_BMAP_NOT_FOUND;
	while (!e4_bmap_find_first_zero(bm, from, to, &z)) {
		if (to - z < n)
			break;
		if (e4_bmap_find_first_set(bm, z, z + n, &s)) {
			*out = z;
			return 0;
		}
		from = s + 1;	/* the next search skips the set run from s */
	}
	return E4_ERR_BMAP_NOT_FOUND;
}

errcode_t e4_bmap_next_run(const struct e4_bmap *bm, uint64_t from, uint64_t *first, uint64_t *len)
{
	uint64_t s, z;

	if (e4_bmap_find_first_set(bm, from, bm->end, &s))
		return E4_ERR_BMAP_NOT_FOUND;
	if (e4_bmap_find_first_zero(bm, s, bm->end, &z))
		z = bm->end;
	*first = s;
	*len = z - s;
	return 0;
}

int e4_bmap_iterate(const struct e4_bmap *bm, uint64_t from, uint64_t to, e4_bmap_run_cb cb,
		    void *priv)
{
	uint64_t s, z;

	if (!clip(bm, &from, &to))
		return 0;
	while (from < to && !e4_bmap_find_first_set(bm, from, to, &s)) {
		int rc;

		if (e4_bmap_find_first_zero(bm, s, to, &z))
			z = to;
		rc = cb(s, z - s, priv);
		if (rc)
			return rc;
		from = z;
	}
	return 0;
}

/* ---- counts and comparison ---------------------------------------------- */
uint64_t e4_bmap_count(const struct e4_bmap *bm)
{
	return bm->ops->count(bm->be);
}

uint64_t e4_bmap_count_range(const struct e4_bmap *bm, uint64_t first, uint64_t n)
{
	uint64_t to = range_end(first, n);

	if (!clip(bm, &first, &to))
		return 0;
	return bm->ops->count_range(bm->be, first - bm->start, to - first);
}

uint64_t e4_bmap_run_count(const struct e4_bmap *bm)
{
	return bm->ops->run_count(bm->be);
}

/* The first set bit of m at or after p, hi if none below hi. */
static uint64_t next_set(const struct e4_bmap *m, uint64_t p, uint64_t hi)
{
	uint64_t r;

	return e4_bmap_find_first_set(m, p, hi, &r) ? hi : r;
}

/* The first clear bit of m at or after p (bits outside m are clear); hi
 * if none below hi (m->end <= hi). */
static uint64_t next_clear(const struct e4_bmap *m, uint64_t p, uint64_t hi)
{
	uint64_t r;

	if (p < m->start || p >= m->end)
		return p;
	if (!e4_bmap_find_first_zero(m, p, m->end, &r))
		return r;
	return m->end < hi ? m->end : hi;
}

/* Two flat maps over the same range: word by word. */
static int flat_compare(const struct flat *a, const struct flat *b, uint64_t *diff)
{
	for (uint64_t i = 0; i < a->nwords; i++) {
		uint64_t x = a->w[i] ^ b->w[i];

		if (x) {
			*diff = (i << 6) + (uint64_t)__builtin_ctzll(x);
			return 1;
		}
	}
	return 0;
}

int e4_bmap_compare(const struct e4_bmap *a, const struct e4_bmap *b, uint64_t *first_diff)
{
	uint64_t lo = a->start < b->start ? a->start : b->start;
	uint64_t hi = a->end > b->end ? a->end : b->end, p = lo, d = 0;

	if (a->kind == E4_BMAP_FLAT && b->kind == E4_BMAP_FLAT && a->start == b->start &&
	    a->end == b->end) {
		if (!flat_compare(a->be, b->be, &d))
			return 0;
		if (first_diff)
			*first_diff = d + a->start;
		return 1;
	}
	/* alternate: both must start their next run, then end it, alike */
	while (p < hi) {
		uint64_t sa = next_set(a, p, hi), sb = next_set(b, p, hi), za, zb;

		if (sa != sb) {
			d = sa < sb ? sa : sb;
			goto differ;
		}
		if (sa == hi)
			break;
		za = next_clear(a, sa, hi);
		zb = next_clear(b, sa, hi);
		if (za != zb) {
			d = za < zb ? za : zb;
			goto differ;
		}
		p = za;
	}
	return 0;
differ:
	if (first_diff)
		*first_diff = d;
	return 1;
}

/* ---- copies and conversion ---------------------------------------------- */
struct copy_ctx {
	struct e4_bmap *dst;
	errcode_t err;
};

static int copy_run(uint64_t first, uint64_t len, void *priv)
{
	struct copy_ctx *c = priv;

	c->err = e4_bmap_set_range(c->dst, first, len);
	return c->err != 0;
}

errcode_t e4_bmap_copy(const struct e4_bmap *src, enum e4_bmap_kind kind, struct e4_bmap **ret)
{
	struct e4_bmap *dst;
	errcode_t err;

	err = e4_bmap_create(kind ? kind : src->kind, src->start, src->end, &dst);
	if (err)
		return err;
	if (src->kind == E4_BMAP_FLAT && dst->kind == E4_BMAP_FLAT) {
		const struct flat *fs = src->be;
		struct flat *fd = dst->be;

		memcpy(fd->w, fs->w, (size_t)fs->nwords * sizeof(uint64_t));
		fd->nset = fs->nset;
	} else {
		struct copy_ctx c = { dst, 0 };

		if (e4_bmap_iterate(src, src->start, src->end, copy_run, &c)) {
			e4_bmap_free(dst);
			return c.err;
		}
	}
	*ret = dst;
	return 0;
}

errcode_t e4_bmap_convert(struct e4_bmap *bm, enum e4_bmap_kind kind)
{
	struct e4_bmap *n;
	errcode_t err;

	if (kind == bm->kind)
		return 0;
	err = e4_bmap_copy(bm, kind, &n);
	if (err)
		return err;
	bm->ops->destroy(bm->be);
	bm->kind = n->kind;
	bm->ops = n->ops;
	bm->be = n->be;
	free(n);
	return 0;
}

/* ---- ext4-order buffers ------------------------------------------------- */
/* First bit of buf[0 .. nbits) equal to val at or after i; nbits if none.
 * Reads 64 bits at a time, never past byte (nbits + 7) / 8. */
static uint64_t buf_next(const uint8_t *buf, uint64_t i, uint64_t nbits, int val)
{
	uint64_t nbytes = (nbits + 7) >> 3;

	while (i < nbits) {
		uint64_t byte = (i >> 6) << 3, w = 0;
		size_t k = nbytes - byte < 8 ? (size_t)(nbytes - byte) : 8;

		memcpy(&w, buf + byte, k);
		w = le64toh(w);
		if (!val)
			w = ~w;
		w &= ~0ULL << (i & 63);
		if (w) {
			uint64_t r = (byte << 3) + (uint64_t)__builtin_ctzll(w);

			return r < nbits ? r : nbits;
		}
		i = (byte << 3) + 64;
	}
	return nbits;
}

errcode_t e4_bmap_import(struct e4_bmap *bm, uint64_t first, const uint8_t *buf, uint64_t nbits)
{
	uint64_t i = 0;
	errcode_t err;

	if (!nbits)
		return 0;
	err = e4_bmap_clear_range(bm, first, nbits);
	while (!err && (i = buf_next(buf, i, nbits, 1)) < nbits) {
		uint64_t z = buf_next(buf, i, nbits, 0);

		err = e4_bmap_set_range(bm, first + i, z - i);
		i = z;
	}
	return err;
}

struct export_ctx {
	uint8_t *buf;
	uint64_t first;
};

static int export_run(uint64_t first, uint64_t len, void *priv)
{
	struct export_ctx *x = priv;

	e4_bits_set(x->buf, first - x->first, len);
	return 0;
}

void e4_bmap_export(const struct e4_bmap *bm, uint64_t first, uint8_t *buf, uint64_t nbits)
{
	struct export_ctx x = { buf, first };

	memset(buf, 0, (size_t)(nbits >> 3));
	if (nbits & 7)
		buf[nbits >> 3] &= (uint8_t)~((1u << (nbits & 7)) - 1);
	e4_bmap_iterate(bm, first, range_end(first, nbits), export_run, &x);
}

errcode_t e4_bmap_validate(const struct e4_bmap *bm)
{
	if (bm->start > bm->end)
		return E4_ERR_CORRUPT;
	return bm->ops->validate(bm->be);
}
