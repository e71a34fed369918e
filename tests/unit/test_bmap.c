/* Unit tests for the in-memory bitmap type (bmap.h): both backends run the
 * same random operation sequences (fixed seeds) against a trivial model,
 * a plain byte array with one byte per elementary interval, and every
 * operation's answer is cross-checked.  Small maps (1 bit to 70,000 bits)
 * have one interval per bit, so any bit may be touched; large run maps
 * (2^40 bits, also at the top of the 64-bit range) have intervals between
 * a few hundred random cut points, and changes start and end on cut
 * points (queries go anywhere).  Then a deep tree (300,000 runs added and
 * removed in random order), the memory of a sparse 2^44-bit map, and the
 * argument errors. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "e4.h"

/* ---- fixed-seed generator (splitmix64) ---------------------------------- */
static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* uniform in [0, n), n >= 1 */
static uint64_t rndn(uint64_t n)
{
	return rnd() % n;
}

/* ---- the model ---------------------------------------------------------- */
/* Bits [start, end) as k intervals [c[i], c[i+1]), each all set or all
 * clear (st[i]); c[0] = start, c[k] = end. */
struct model {
	uint64_t start, end;
	uint64_t *c;
	uint8_t *st;
	size_t k;
	int per_bit;		/* one interval per bit */
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* per-bit model of [start, start + nbits) */
static void model_bits(struct model *m, uint64_t start, uint64_t nbits)
{
	m->start = start;
	m->end = start + nbits;
	m->k = (size_t)nbits;
	m->per_bit = 1;
	m->c = malloc((m->k + 1) * sizeof(*m->c));
	m->st = calloc(m->k + 1, 1);
	assert_non_null(m->c);
	assert_non_null(m->st);
	for (size_t i = 0; i <= m->k; i++)
		m->c[i] = start + i;
}

/* cut-point model: npts random points p, each giving cuts at p and p + 1
 * (so single bits can be changed there), plus cuts near both ends */
static void model_cuts(struct model *m, uint64_t start, uint64_t end, size_t npts)
{
	size_t n = 0, cap = 2 * npts + 8;
	uint64_t *c = malloc(cap * sizeof(*c));

	assert_non_null(c);
	c[n++] = start;
	c[n++] = end;
	c[n++] = start + 1;
	c[n++] = end - 1;
	for (size_t i = 0; i < npts; i++) {
		uint64_t p = start + rndn(end - start - 1);

		c[n++] = p;
		c[n++] = p + 1;
	}
	qsort(c, n, sizeof(*c), cmp_u64);
	m->k = 0;
	for (size_t i = 1; i < n; i++)
		if (c[i] != c[m->k])
			c[++m->k] = c[i];
	m->c = c;
	m->st = calloc(m->k + 1, 1);
	assert_non_null(m->st);
	m->start = start;
	m->end = end;
	m->per_bit = 0;
}

static void model_free(struct model *m)
{
	free(m->c);
	free(m->st);
}

/* interval holding x, start <= x < end */
static size_t m_idx(const struct model *m, uint64_t x)
{
	size_t lo = 0, hi = m->k;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (m->c[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* cut [*from, *to) to the map; 0 if empty */
static int m_clip(const struct model *m, uint64_t *from, uint64_t *to)
{
	if (*from < m->start)
		*from = m->start;
	if (*to > m->end)
		*to = m->end;
	return *from < *to;
}

static int m_test(const struct model *m, uint64_t x)
{
	return x >= m->start && x < m->end && m->st[m_idx(m, x)];
}

/* change [first, first + n): both ends must be cut points */
static int m_apply(struct model *m, uint64_t first, uint64_t n, int val)
{
	size_t i;

	if (!n)
		return 0;
	if (first < m->start || first >= m->end || n > m->end - first)
		return -1;
	i = m_idx(m, first);
	assert_true(m->c[i] == first);
	for (; i < m->k && m->c[i] < first + n; i++)
		m->st[i] = (uint8_t)val;
	assert_true(m->c[i] == first + n);
	return 0;
}

/* first bit == val in [from, to) cut to the map; 0 if none */
static int m_find(const struct model *m, uint64_t from, uint64_t to, int val, uint64_t *out)
{
	if (!m_clip(m, &from, &to))
		return 0;
	for (size_t i = m_idx(m, from); i < m->k && m->c[i] < to; i++) {
		if (m->st[i] == val) {
			*out = m->c[i] > from ? m->c[i] : from;
			return 1;
		}
	}
	return 0;
}

static int m_find_last(const struct model *m, uint64_t from, uint64_t to, uint64_t *out)
{
	if (!m_clip(m, &from, &to))
		return 0;
	for (size_t i = m_idx(m, to - 1) + 1; i-- > 0 && m->c[i + 1] > from;) {
		if (m->st[i]) {
			*out = (m->c[i + 1] < to ? m->c[i + 1] : to) - 1;
			return 1;
		}
	}
	return 0;
}

static uint64_t m_count(const struct model *m, uint64_t from, uint64_t to)
{
	uint64_t total = 0;

	if (!m_clip(m, &from, &to))
		return 0;
	for (size_t i = m_idx(m, from); i < m->k && m->c[i] < to; i++) {
		uint64_t s = m->c[i] > from ? m->c[i] : from;
		uint64_t e = m->c[i + 1] < to ? m->c[i + 1] : to;

		if (m->st[i])
			total += e - s;
	}
	return total;
}

/* first n clear bits inside [from, to), by walking the intervals */
static int m_zero_run(const struct model *m, uint64_t from, uint64_t to, uint64_t n, uint64_t *out)
{
	uint64_t run_start = 0;
	int in_run = 0;

	if (!m_clip(m, &from, &to))
		return 0;
	for (size_t i = m_idx(m, from); i < m->k && m->c[i] < to; i++) {
		uint64_t s = m->c[i] > from ? m->c[i] : from;
		uint64_t e = m->c[i + 1] < to ? m->c[i + 1] : to;

		if (m->st[i]) {
			in_run = 0;
			continue;
		}
		if (!in_run) {
			run_start = s;
			in_run = 1;
		}
		if (e - run_start >= n) {
			*out = run_start;
			return 1;
		}
	}
	return 0;
}

static uint64_t m_runs(const struct model *m)
{
	uint64_t n = 0;

	for (size_t i = 0; i < m->k; i++)
		if (m->st[i] && (i == 0 || !m->st[i - 1]))
			n++;
	return n;
}

/* ---- picking bits ------------------------------------------------------- */
/* a bit just outside the map (the maps here never span all of 2^64) */
static uint64_t outside(const struct model *m)
{
	if (m->start > 0 && (m->end == UINT64_MAX || rndn(2)))
		return m->start - 1;
	return m->end;
}

/* a cut point (every bit of a per-bit model), sometimes just outside */
static uint64_t pick_cut(const struct model *m)
{
	if (rndn(50) == 0)
		return outside(m);
	return m->c[rndn(m->k + 1)];
}

/* any bit, near cut points more often than not */
static uint64_t pick_point(const struct model *m)
{
	uint64_t x;

	switch (rndn(4)) {
	case 0:
		x = m->start + (m->end > m->start ? rndn(m->end - m->start) : 0);
		break;
	case 1:
		x = m->c[rndn(m->k + 1)];
		return x - (x > 0 && rndn(2));
	default:
		x = m->c[rndn(m->k + 1)];
		break;
	}
	if (rndn(40) == 0)
		x = rndn(2) ? (m->start > 2 ? m->start - 2 : 0) : m->end;
	return x;
}

/* a range [first, first + n) on cut points: short ones more often */
static void pick_range(const struct model *m, uint64_t *first, uint64_t *n)
{
	size_t i, j;

	if (rndn(60) == 0) {	/* outside the map, or running past its end */
		*first = pick_cut(m);
		*n = 1 + rndn(4);
		if (*first >= m->start && *first < m->end)
			*n = m->end - *first + 1;
		if (*n > UINT64_MAX - *first)
			*n = UINT64_MAX - *first;
		return;
	}
	i = (size_t)rndn(m->k);
	switch (rndn(3)) {
	case 0:
		j = i + 1 + (size_t)rndn(3);
		break;
	case 1:
		j = i + 1 + (size_t)rndn(64);
		break;
	default:
		j = i + 1 + (size_t)rndn(m->k);
		break;
	}
	if (j > m->k)
		j = m->k;
	*first = m->c[i];
	*n = m->c[j] - m->c[i];
}

/* ---- checking a map against the model ------------------------------------ */
struct runlist {
	uint64_t *s, *len;
	size_t n, cap;
};

static int collect(uint64_t first, uint64_t len, void *priv)
{
	struct runlist *r = priv;

	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 64;
		r->s = realloc(r->s, r->cap * sizeof(*r->s));
		r->len = realloc(r->len, r->cap * sizeof(*r->len));
		assert_non_null(r->s);
		assert_non_null(r->len);
	}
	r->s[r->n] = first;
	r->len[r->n] = len;
	r->n++;
	return 0;
}

/* iterate over [from, to) matches the model's runs there */
static void check_iterate(const struct e4_bmap *bm, const struct model *m, uint64_t from,
			  uint64_t to)
{
	struct runlist r = { 0 };
	uint64_t p = from < m->start ? m->start : from, s, z;
	size_t k = 0;

	assert_int_equal(e4_bmap_iterate(bm, from, to, collect, &r), 0);
	if (to > m->end)
		to = m->end;
	while (p < to && m_find(m, p, to, 1, &s)) {
		if (!m_find(m, s, to, 0, &z))
			z = to;
		assert_true(k < r.n);
		assert_true(r.s[k] == s);
		assert_true(r.len[k] == z - s);
		k++;
		p = z;
	}
	assert_true(k == r.n);
	free(r.s);
	free(r.len);
}

/* the whole map against the model */
static void check_all(const struct e4_bmap *bm, const struct model *m)
{
	assert_int_equal(e4_bmap_validate(bm), 0);
	assert_true(e4_bmap_count(bm) == m_count(m, m->start, m->end));
	assert_true(e4_bmap_run_count(bm) == m_runs(m));
	check_iterate(bm, m, 0, UINT64_MAX);
}

static void check_find(const struct e4_bmap *bm, const struct model *m, uint64_t from, uint64_t to)
{
	uint64_t got = 0, want = 0;
	int found;

	found = m_find(m, from, to, 1, &want);
	assert_int_equal(e4_bmap_find_first_set(bm, from, to, &got),
			 found ? 0 : E4_ERR_BMAP_NOT_FOUND);
	if (found)
		assert_true(got == want);
	found = m_find(m, from, to, 0, &want);
	assert_int_equal(e4_bmap_find_first_zero(bm, from, to, &got),
			 found ? 0 : E4_ERR_BMAP_NOT_FOUND);
	if (found)
		assert_true(got == want);
	found = m_find_last(m, from, to, &want);
	assert_int_equal(e4_bmap_find_last_set(bm, from, to, &got),
			 found ? 0 : E4_ERR_BMAP_NOT_FOUND);
	if (found)
		assert_true(got == want);
}

static void check_wrap(const struct e4_bmap *bm, const struct model *m, uint64_t goal)
{
	uint64_t got = 0, want = 0, g = goal;
	int found;

	if (g < m->start || g >= m->end)
		g = m->start;
	for (int val = 0; val < 2; val++) {
		found = m_find(m, g, m->end, val, &want) || m_find(m, m->start, g, val, &want);
		assert_int_equal(val ? e4_bmap_find_set_wrap(bm, goal, &got)
				     : e4_bmap_find_zero_wrap(bm, goal, &got),
				 found ? 0 : E4_ERR_BMAP_NOT_FOUND);
		if (found)
			assert_true(got == want);
	}
}

/* first differing bit of two maps by the model's rule: bits outside the
 * map are clear */
static void check_compare(const struct e4_bmap *bm, const struct model *m)
{
	struct e4_bmap *c;
	uint64_t d = 0, x, y;

	assert_int_equal(e4_bmap_copy(bm, m->per_bit && rndn(2) ? E4_BMAP_FLAT : E4_BMAP_RUNS, &c),
			 0);
	assert_int_equal(e4_bmap_compare(bm, c, &d), 0);
	assert_int_equal(e4_bmap_compare(c, bm, NULL), 0);
	if (m->end == m->start) {
		e4_bmap_free(c);
		return;
	}
	x = m->start + rndn(m->end - m->start);
	y = m->start + rndn(m->end - m->start);
	assert_int_equal(m_test(m, x) ? e4_bmap_clear(c, x) : e4_bmap_set(c, x), 0);
	assert_int_equal(e4_bmap_compare(bm, c, &d), 1);
	assert_true(d == x);
	if (y != x) {
		assert_int_equal(m_test(m, y) ? e4_bmap_clear(c, y) : e4_bmap_set(c, y), 0);
		assert_int_equal(e4_bmap_compare(c, bm, &d), 1);
		assert_true(d == (x < y ? x : y));
	}
	e4_bmap_free(c);
}

/* export a window and import it back shifted by nothing: the model must
 * see the same bits; then import a random pattern into the window */
static void check_buffers(struct e4_bmap *bm, struct model *m)
{
	uint64_t first, n, nbytes, base;
	uint8_t *buf;

	if (!m->per_bit || m->end == m->start)
		return;
	first = m->start + rndn(m->end - m->start);
	n = 1 + rndn(m->end - first < 3000 ? m->end - first : 3000);
	nbytes = (n + 7) / 8 + 1;
	buf = malloc(nbytes);
	assert_non_null(buf);
	memset(buf, 0xA5, nbytes);
	base = first > 2 ? first - 2 : first;	/* bits before the map read clear */
	e4_bmap_export(bm, base, buf, n);
	for (uint64_t i = 0; i < n; i++)
		assert_int_equal(e4_bit_test(buf, i), m_test(m, base + i));
	for (uint64_t i = n; i < (nbytes - 1) * 8; i++)
		assert_int_equal(e4_bit_test(buf, i), (0xA5 >> (i & 7)) & 1);
	assert_int_equal(buf[nbytes - 1], 0xA5);
	for (uint64_t i = 0; i < nbytes; i++)
		buf[i] = (uint8_t)(rndn(3) ? (rndn(2) ? 0xFF : 0) : rnd());
	assert_int_equal(e4_bmap_import(bm, first, buf, n), 0);
	for (uint64_t i = 0; i < n; i++)
		m->st[m_idx(m, first + i)] = (uint8_t)e4_bit_test(buf, i);
	if (n > 1) /* a range running past the end is refused */
		assert_int_equal(e4_bmap_import(bm, m->end - 1, buf, n), E4_ERR_BMAP_RANGE);
	free(buf);
}

/* One random operation on every map in bms[] (all equal to the model). */
static void step(struct e4_bmap **bms, int nbm, struct model *m)
{
	uint64_t a = 0, n = 0, got = 0, want = 0;
	int op = (int)rndn(20), r = 0, found;

	switch (op) {
	case 0:
	case 1:		/* set / clear one bit */
	case 2:
	case 3:		/* set / clear a range */
		if (op < 2) {
			a = pick_cut(m);
			n = 1;
			if (!m->per_bit && a >= m->start && a < m->end &&
			    m->c[m_idx(m, a) + 1] != a + 1)
				a = outside(m);	/* a + 1 is no cut point */
		} else {
			pick_range(m, &a, &n);
		}
		r = m_apply(m, a, n, !(op & 1));
		for (int i = 0; i < nbm; i++) {
			errcode_t err = op == 0 ? e4_bmap_set(bms[i], a)
				      : op == 1 ? e4_bmap_clear(bms[i], a)
				      : op == 2 ? e4_bmap_set_range(bms[i], a, n)
				      : e4_bmap_clear_range(bms[i], a, n);

			assert_int_equal(err, r ? E4_ERR_BMAP_RANGE : 0);
			assert_int_equal(e4_bmap_validate(bms[i]), 0);
			assert_true(e4_bmap_count(bms[i]) == m_count(m, m->start, m->end));
		}
		break;
	case 4:
		a = pick_point(m);
		for (int i = 0; i < nbm; i++)
			assert_int_equal(e4_bmap_test(bms[i], a), m_test(m, a));
		break;
	case 5:
	case 6:
		a = pick_point(m);
		n = rndn(4) ? pick_point(m) : UINT64_MAX;
		for (int i = 0; i < nbm; i++)
			check_find(bms[i], m, a, n);
		break;
	case 7:
		a = pick_point(m);
		for (int i = 0; i < nbm; i++)
			check_wrap(bms[i], m, a);
		break;
	case 8:
		a = pick_point(m);
		n = rndn(3) ? pick_point(m) : m->end;
		got = 1 + (rndn(2) ? rndn(4) : rndn((m->end - m->start) / 2 + 2));
		found = m_zero_run(m, a, n, got, &want);
		for (int i = 0; i < nbm; i++) {
			uint64_t o = 0;

			assert_int_equal(e4_bmap_find_zero_run(bms[i], a, n, got, &o),
					 found ? 0 : E4_ERR_BMAP_NOT_FOUND);
			if (found)
				assert_true(o == want);
		}
		break;
	case 9:
		a = pick_point(m);
		found = m_find(m, a, m->end, 1, &want);
		if (found && !m_find(m, want, m->end, 0, &n))
			n = m->end;
		for (int i = 0; i < nbm; i++) {
			uint64_t f = 0, len = 0;

			assert_int_equal(e4_bmap_next_run(bms[i], a, &f, &len),
					 found ? 0 : E4_ERR_BMAP_NOT_FOUND);
			if (found)
				assert_true(f == want && len == n - want);
		}
		break;
	case 10:
	case 11:
		a = pick_point(m);
		n = rndn(8) ? pick_point(m) - a : UINT64_MAX;	/* may wrap: huge */
		if (n > UINT64_MAX - a)
			n = UINT64_MAX - a;
		want = m_count(m, a, a + n);
		for (int i = 0; i < nbm; i++) {
			assert_true(e4_bmap_count_range(bms[i], a, n) == want);
			assert_int_equal(e4_bmap_range_all_set(bms[i], a, n),
					 n == 0 || (want == n && a >= m->start && a + n <= m->end));
			assert_int_equal(e4_bmap_range_all_clear(bms[i], a, n), want == 0);
		}
		break;
	case 12:
		a = pick_point(m);
		n = rndn(4) ? pick_point(m) : UINT64_MAX;
		for (int i = 0; i < nbm; i++)
			check_iterate(bms[i], m, a, n);
		break;
	case 13:
		if (rndn(4) == 0)
			for (int i = 0; i < nbm; i++)
				check_compare(bms[i], m);
		break;
	case 14:
		if (rndn(8) == 0)
			for (int i = 0; i < nbm; i++) {
				enum e4_bmap_kind k = e4_bmap_get_kind(bms[i]);

				if (!m->per_bit)	/* no flat map of 2^40 bits */
					break;
				assert_int_equal(e4_bmap_convert(bms[i], k == E4_BMAP_FLAT ? E4_BMAP_RUNS
											   : E4_BMAP_FLAT), 0);
				check_all(bms[i], m);
				assert_int_equal(e4_bmap_convert(bms[i], k), 0);
				assert_int_equal(e4_bmap_get_kind(bms[i]), k);
			}
		break;
	case 15:
		if (nbm > 0 && rndn(4) == 0) {
			check_buffers(bms[0], m);
			for (int i = 1; i < nbm; i++) {
				/* the others follow through a copy of the first */
				struct e4_bmap *c;

				assert_int_equal(e4_bmap_copy(bms[0], e4_bmap_get_kind(bms[i]), &c), 0);
				e4_bmap_free(bms[i]);
				bms[i] = c;
			}
			for (int i = 0; i < nbm; i++)
				check_all(bms[i], m);
		}
		break;
	default:
		/* more changes than queries keep the maps interesting */
		pick_range(m, &a, &n);
		r = m_apply(m, a, n, rndn(2) != 0);
		for (int i = 0; i < nbm; i++) {
			errcode_t err = m_test(m, a) ? e4_bmap_set_range(bms[i], a, n)
						     : e4_bmap_clear_range(bms[i], a, n);

			assert_int_equal(err, r ? E4_ERR_BMAP_RANGE : 0);
		}
		break;
	}
	if (nbm == 2)
		assert_int_equal(e4_bmap_compare(bms[0], bms[1], NULL), 0);
}

static void run_sequence(uint64_t seed, struct model *m, int flat, int nsteps)
{
	struct e4_bmap *bms[2];
	int nbm = 0;

	rng_state = seed;
	if (flat)
		assert_int_equal(e4_bmap_create(E4_BMAP_FLAT, m->start, m->end, &bms[nbm++]), 0);
	assert_int_equal(e4_bmap_create(E4_BMAP_RUNS, m->start, m->end, &bms[nbm++]), 0);
	for (int i = 0; i < nsteps; i++) {
		step(bms, nbm, m);
		if (i % 256 == 255)
			for (int k = 0; k < nbm; k++)
				check_all(bms[k], m);
	}
	for (int k = 0; k < nbm; k++) {
		check_all(bms[k], m);
		e4_bmap_free(bms[k]);
	}
}

/* ---- the tests ---------------------------------------------------------- */
static void random_small(void **state)
{
	static const uint64_t sizes[] = { 1, 2, 7, 63, 64, 65, 127, 128, 129, 1000, 4096, 8191,
					  32773, 70000 };
	static const uint64_t starts[] = { 0, 1, 5, 64, 1ULL << 32, (1ULL << 48) + 3 };

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct model m;
		uint64_t start = starts[i % (sizeof(starts) / sizeof(starts[0]))];

		rng_state = 1000 + i;
		model_bits(&m, start, sizes[i]);
		run_sequence(0xB17 + i, &m, 1, sizes[i] < 1000 ? 2000 : 4000);
		model_free(&m);
	}
}

static void random_large(void **state)
{
	static const struct { uint64_t start, end; } ranges[] = {
		{ 0, 1ULL << 40 },
		{ 1ULL << 48, (1ULL << 48) + (1ULL << 40) },
		{ UINT64_MAX - (1ULL << 40), UINT64_MAX },
		{ 12345, 12345 + (1ULL << 36) + 17 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
		struct model m;

		rng_state = 77 + i;
		model_cuts(&m, ranges[i].start, ranges[i].end, 300);
		run_sequence(0x1A56E + i, &m, 0, 5000);
		model_free(&m);
	}
}

/* 300,000 single-bit runs in random order: a tree of four levels; then
 * removed in random order, checked against a flat map on the way */
static void deep_tree(void **state)
{
	const uint64_t n = 300000;
	uint64_t *order = malloc(n * sizeof(*order)), d;
	struct e4_bmap *runs, *flat;

	(void)state;
	assert_non_null(order);
	rng_state = 4242;
	for (uint64_t i = 0; i < n; i++)
		order[i] = i;
	for (uint64_t i = n - 1; i > 0; i--) {
		uint64_t j = rndn(i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	assert_int_equal(e4_bmap_create(E4_BMAP_RUNS, 0, 2 * n, &runs), 0);
	assert_int_equal(e4_bmap_create(E4_BMAP_FLAT, 0, 2 * n, &flat), 0);
	for (uint64_t i = 0; i < n; i++) {
		assert_int_equal(e4_bmap_set(runs, 2 * order[i]), 0);
		assert_int_equal(e4_bmap_set(flat, 2 * order[i]), 0);
		if (i % 50000 == 0)
			assert_int_equal(e4_bmap_validate(runs), 0);
	}
	assert_int_equal(e4_bmap_validate(runs), 0);
	assert_true(e4_bmap_run_count(runs) == n);
	assert_int_equal(e4_bmap_compare(runs, flat, NULL), 0);
	/* fill every other gap: runs merge in pairs, then clear in random order */
	for (uint64_t i = 0; i < n; i += 2) {
		assert_int_equal(e4_bmap_set(runs, 2 * order[i] + 1), 0);
		assert_int_equal(e4_bmap_set(flat, 2 * order[i] + 1), 0);
	}
	assert_int_equal(e4_bmap_validate(runs), 0);
	assert_int_equal(e4_bmap_compare(runs, flat, &d), 0);
	assert_true(e4_bmap_run_count(runs) == e4_bmap_run_count(flat));
	for (uint64_t i = 0; i < n; i++) {
		uint64_t b = 2 * order[(i * 7919) % n];

		assert_int_equal(e4_bmap_clear_range(runs, b, 2), 0);
		assert_int_equal(e4_bmap_clear_range(flat, b, 2), 0);
		if (i % 30000 == 0) {
			assert_int_equal(e4_bmap_validate(runs), 0);
			assert_int_equal(e4_bmap_compare(runs, flat, NULL), 0);
		}
	}
	assert_true(e4_bmap_count(runs) == 0);
	assert_int_equal(e4_bmap_validate(runs), 0);
	assert_true(e4_bmap_memory(runs) < 80 * 1024);	/* spare nodes only */
	e4_bmap_free(runs);
	e4_bmap_free(flat);
	free(order);
}

/* A 2^44-bit run map (a 16 TiB device in 1 KiB blocks) with 4,000 runs
 * costs kilobytes, in order or not; a flat map of 2^20 bits costs 128 KiB. */
static void memory(void **state)
{
	const uint64_t nbits = 1ULL << 44, nruns = 4000, stride = nbits / nruns;
	struct e4_bmap *a, *b;
	size_t ma, mb;

	(void)state;
	assert_int_equal(e4_bmap_create(E4_BMAP_RUNS, 0, nbits, &a), 0);
	assert_int_equal(e4_bmap_create(E4_BMAP_RUNS, 0, nbits, &b), 0);
	assert_true(e4_bmap_memory(a) < 1024);
	rng_state = 99;
	for (uint64_t i = 0; i < nruns; i++) {
		uint64_t j = (i * 2531) % nruns;	/* 2531 is prime to 4000 */

		assert_int_equal(e4_bmap_set_range(a, i * stride, 1 + i % 1000), 0);
		assert_int_equal(e4_bmap_set_range(b, j * stride, 1 + j % 1000), 0);
	}
	assert_int_equal(e4_bmap_compare(a, b, NULL), 0);
	ma = e4_bmap_memory(a);
	mb = e4_bmap_memory(b);
	print_message("2^44-bit map, %llu runs: %zu bytes in order, %zu shuffled\n",
		      (unsigned long long)nruns, ma, mb);
	assert_true(ma <= nruns * 24 + 8192);
	assert_true(mb <= nruns * 40 + 8192);
	e4_bmap_free(a);
	e4_bmap_free(b);
	assert_int_equal(e4_bmap_create(E4_BMAP_FLAT, 10, 10 + (1 << 20), &a), 0);
	assert_true(e4_bmap_memory(a) >= (1 << 17) && e4_bmap_memory(a) < (1 << 17) + 256);
	e4_bmap_free(a);
}

/* Maps over different ranges and backends: bits outside a map are clear. */
static void compare_ranges(void **state)
{
	struct e4_bmap *a, *b;
	uint64_t d = 0;

	(void)state;
	for (int k = 0; k < 4; k++) {
		enum e4_bmap_kind ka = k & 1 ? E4_BMAP_RUNS : E4_BMAP_FLAT;
		enum e4_bmap_kind kb = k & 2 ? E4_BMAP_RUNS : E4_BMAP_FLAT;

		assert_int_equal(e4_bmap_create(ka, 50, 100, &a), 0);
		assert_int_equal(e4_bmap_create(kb, 0, 200, &b), 0);
		assert_int_equal(e4_bmap_set_range(a, 90, 10), 0);
		assert_int_equal(e4_bmap_set_range(b, 90, 10), 0);
		assert_int_equal(e4_bmap_compare(a, b, &d), 0);
		assert_int_equal(e4_bmap_compare(b, a, &d), 0);
		assert_int_equal(e4_bmap_set(b, 100), 0);	/* past a's end */
		assert_int_equal(e4_bmap_compare(a, b, &d), 1);
		assert_true(d == 100);
		assert_int_equal(e4_bmap_compare(b, a, &d), 1);
		assert_true(d == 100);
		assert_int_equal(e4_bmap_set(b, 10), 0);	/* before a's start */
		assert_int_equal(e4_bmap_compare(a, b, &d), 1);
		assert_true(d == 10);
		assert_int_equal(e4_bmap_clear_range(b, 0, 200), 0);
		assert_int_equal(e4_bmap_compare(a, b, &d), 1);
		assert_true(d == 90);
		e4_bmap_free(a);
		e4_bmap_free(b);
	}
}

static void errors(void **state)
{
	struct e4_bmap *bm = NULL;
	uint64_t out = 7, len = 7;

	(void)state;
	assert_int_equal(e4_bmap_create(0, 0, 10, &bm), E4_ERR_INVALID_ARGUMENT);
	assert_int_equal(e4_bmap_create(E4_BMAP_RUNS, 11, 10, &bm), E4_ERR_INVALID_ARGUMENT);
	for (int k = E4_BMAP_FLAT; k <= E4_BMAP_RUNS; k++) {
		out = len = 7;
		assert_int_equal(e4_bmap_create(k, 100, 200, &bm), 0);
		assert_true(e4_bmap_start(bm) == 100 && e4_bmap_end(bm) == 200);
		assert_int_equal(e4_bmap_set(bm, 99), E4_ERR_BMAP_RANGE);
		assert_int_equal(e4_bmap_set(bm, 200), E4_ERR_BMAP_RANGE);
		assert_int_equal(e4_bmap_clear(bm, UINT64_MAX), E4_ERR_BMAP_RANGE);
		assert_int_equal(e4_bmap_set_range(bm, 150, 51), E4_ERR_BMAP_RANGE);
		assert_int_equal(e4_bmap_set_range(bm, 150, UINT64_MAX), E4_ERR_BMAP_RANGE);
		assert_int_equal(e4_bmap_set_range(bm, 99, 2), E4_ERR_BMAP_RANGE);
		assert_true(e4_bmap_count(bm) == 0);
		assert_int_equal(e4_bmap_set_range(bm, 300, 0), 0);
		assert_int_equal(e4_bmap_find_first_set(bm, 0, UINT64_MAX, &out),
				 E4_ERR_BMAP_NOT_FOUND);
		assert_int_equal(e4_bmap_find_first_zero(bm, 200, 300, &out), E4_ERR_BMAP_NOT_FOUND);
		assert_int_equal(e4_bmap_find_zero_run(bm, 100, 200, 0, &out),
				 E4_ERR_INVALID_ARGUMENT);
		assert_int_equal(e4_bmap_find_zero_run(bm, 100, 200, 101, &out),
				 E4_ERR_BMAP_NOT_FOUND);
		assert_int_equal(e4_bmap_set_range(bm, 100, 100), 0);
		assert_int_equal(e4_bmap_find_zero_wrap(bm, 150, &out), E4_ERR_BMAP_NOT_FOUND);
		assert_int_equal(e4_bmap_next_run(bm, 200, &out, &len), E4_ERR_BMAP_NOT_FOUND);
		assert_true(out == 7 && len == 7);
		assert_int_equal(e4_bmap_next_run(bm, 0, &out, &len), 0);
		assert_true(out == 100 && len == 100);
		assert_int_equal(e4_bmap_test(bm, 99), 0);
		assert_int_equal(e4_bmap_test(bm, 200), 0);
		assert_int_equal(e4_bmap_range_all_set(bm, 99, 2), 0);
		assert_int_equal(e4_bmap_range_all_clear(bm, 50, 50), 1);
		assert_int_equal(e4_bmap_convert(bm, 3), E4_ERR_INVALID_ARGUMENT);
		assert_int_equal(e4_bmap_get_kind(bm), k);
		e4_bmap_free(bm);
	}
	/* an empty map */
	assert_int_equal(e4_bmap_create(E4_BMAP_FLAT, 5, 5, &bm), 0);
	assert_int_equal(e4_bmap_set(bm, 5), E4_ERR_BMAP_RANGE);
	assert_int_equal(e4_bmap_find_zero_wrap(bm, 5, &out), E4_ERR_BMAP_NOT_FOUND);
	assert_int_equal(e4_bmap_validate(bm), 0);
	e4_bmap_free(bm);
	e4_bmap_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(errors),
		cmocka_unit_test(compare_ranges),
		cmocka_unit_test(random_small),
		cmocka_unit_test(random_large),
		cmocka_unit_test(deep_tree),
		cmocka_unit_test(memory),
	};

	e4_init_errors();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
