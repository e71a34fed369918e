/*
 * bmap_runs.c: the run backend of the in-memory bitmap type (bmap.h).
 *
 * The set bits are kept as maximal runs [start, end): disjoint and never
 * adjacent (a run always ends before a clear bit), so the first clear bit
 * after a set bit is its run's end.  The runs live in a B+tree keyed by
 * their start: leaves hold up to RT_FAN runs (start, end), inner nodes up
 * to RT_FAN children with the least start below each child.  Every node
 * but the root holds at least RT_MIN entries (a quarter: deletions merge
 * or rebalance neighbours); a full node splits in halves, or three
 * quarters to the left when the new entry comes last, so that runs added
 * in increasing order (loading on-disk bitmaps, copying) fill leaves to
 * three quarters.  A lookup is one descent, O(log runs).
 *
 * A range operation first reserves the nodes an insertion may need (one
 * per level plus a new root), so once it starts changing the tree it
 * cannot fail half way: E4_ERR_NO_MEMORY leaves the map as it was.
 */
#include "bmap_int.h"

#include <stdlib.h>
#include <string.h>

#define RT_FAN		64
#define RT_MIN		(RT_FAN / 4)
#define RT_MAXH		24	/* 2 * 16^23 runs: more than 64-bit bit numbers allow */

union rt_val {
	uint64_t end;			/* leaf: one past the run's last bit */
	struct rt_node *child;		/* inner node */
};

struct rt_node {
	uint32_t n;			/* entries */
	uint32_t leaf;
	uint64_t key[RT_FAN];		/* leaf: run starts; inner: least start below child */
	union rt_val v[RT_FAN];
};

struct rt {
	struct rt_node *root;		/* NULL: no set bit */
	unsigned height;		/* levels; 1: the root is a leaf */
	uint64_t nruns, nset;
	size_t nnodes;			/* in the tree */
	unsigned nspare;
	struct rt_node *spare[RT_MAXH + 1];
	/* The leaf the last descent of rt_le() ended in and the least start
	 * right of it (UINT64_MAX: none): a lookup of x in [hint->key[0],
	 * hint_hi) needs no descent, as in e4mkfs's layout, which asks about
	 * increasing blocks group after group.  Cleared by every change to
	 * the tree (hint_drop()). */
	const struct rt_node *hint;
	uint64_t hint_hi;
};

static inline void hint_drop(struct rt *t)
{
	t->hint = NULL;
}

/* ---- node helpers ------------------------------------------------------- */
/* Number of keys <= x. */
static unsigned ub(const struct rt_node *nd, uint64_t x)
{
	unsigned lo = 0, hi = nd->n;

	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;

		if (nd->key[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void entries_move(struct rt_node *dst, unsigned di, const struct rt_node *src, unsigned si,
			 unsigned n)
{
	memmove(&dst->key[di], &src->key[si], n * sizeof(dst->key[0]));
	memmove(&dst->v[di], &src->v[si], n * sizeof(dst->v[0]));
}

/* Nodes for the next insertion: one per level and one for a new root. */
static errcode_t reserve(struct rt *t)
{
	if (t->height >= RT_MAXH)
		return E4_ERR_NO_MEMORY;
	while (t->nspare < t->height + 1) {
		struct rt_node *nd = malloc(sizeof(*nd));

		if (!nd)
			return E4_ERR_NO_MEMORY;
		t->spare[t->nspare++] = nd;
	}
	return 0;
}

static struct rt_node *node_take(struct rt *t, int leaf)
{
	struct rt_node *nd = t->spare[--t->nspare];

	nd->n = 0;
	nd->leaf = (uint32_t)leaf;
	t->nnodes++;
	return nd;
}

static void node_drop(struct rt *t, struct rt_node *nd)
{
	t->nnodes--;
	if (t->nspare < t->height + 1)
		t->spare[t->nspare++] = nd;
	else
		free(nd);
}

/* ---- lookups ------------------------------------------------------------ */
/* The run with the greatest start <= x. */
static int rt_le(const struct rt *ct, uint64_t x, uint64_t *s, uint64_t *e)
{
	struct rt *t = (struct rt *)ct;	/* the hint only: the runs stay as they are */
	const struct rt_node *nd = t->root;
	uint64_t hi = UINT64_MAX;
	unsigned i;

	if (!nd)
		return 0;
	if (t->hint && x >= t->hint->key[0] && x < t->hint_hi) {
		nd = t->hint;
		i = ub(nd, x);
	} else {
		for (;;) {
			i = ub(nd, x);
			if (!i)
				return 0;	/* inner keys are exact minima */
			if (nd->leaf)
				break;
			if (i < nd->n)
				hi = nd->key[i];
			nd = nd->v[i - 1].child;
		}
		t->hint = nd;
		t->hint_hi = hi;
	}
	*s = nd->key[i - 1];
	*e = nd->v[i - 1].end;
	return 1;
}

static void leftmost(const struct rt_node *nd, uint64_t *s, uint64_t *e)
{
	while (!nd->leaf)
		nd = nd->v[0].child;
	*s = nd->key[0];
	*e = nd->v[0].end;
}

/* The run with the least start > x below nd. */
static int node_gt(const struct rt_node *nd, uint64_t x, uint64_t *s, uint64_t *e)
{
	unsigned i = ub(nd, x);

	if (nd->leaf) {
		if (i >= nd->n)
			return 0;
		*s = nd->key[i];
		*e = nd->v[i].end;
		return 1;
	}
	if (i > 0 && node_gt(nd->v[i - 1].child, x, s, e))
		return 1;
	if (i >= nd->n)
		return 0;
	leftmost(nd->v[i].child, s, e);
	return 1;
}

static int rt_gt(const struct rt *t, uint64_t x, uint64_t *s, uint64_t *e)
{
	if (t->hint && x >= t->hint->key[0] && x < t->hint_hi) {
		unsigned i = ub(t->hint, x);

		if (i < t->hint->n) {	/* else the answer starts the next leaf */
			*s = t->hint->key[i];
			*e = t->hint->v[i].end;
			return 1;
		}
	}
	return t->root && node_gt(t->root, x, s, e);
}

/* ---- changes (callers keep runs ordered, disjoint, not adjacent) -------- */
/* Put (key, val) at position pos of nd; a full nd is split first and the
 * new right half returned. */
static struct rt_node *node_put(struct rt *t, struct rt_node *nd, unsigned pos, uint64_t key,
				union rt_val val)
{
	struct rt_node *r = NULL, *into = nd;

	if (nd->n == RT_FAN) {
		/* entries the left half ends with */
		unsigned keep = pos == RT_FAN ? RT_FAN - RT_MIN : RT_FAN / 2;

		r = node_take(t, nd->leaf);
		if (pos < keep) {
			entries_move(r, 0, nd, keep - 1, RT_FAN - (keep - 1));
			r->n = RT_FAN - (keep - 1);
			nd->n = keep - 1;
		} else {
			entries_move(r, 0, nd, keep, RT_FAN - keep);
			r->n = RT_FAN - keep;
			nd->n = keep;
			into = r;
			pos -= keep;
		}
	}
	entries_move(into, pos + 1, into, pos, into->n - pos);
	into->key[pos] = key;
	into->v[pos] = val;
	into->n++;
	return r;
}

static struct rt_node *node_ins(struct rt *t, struct rt_node *nd, uint64_t key, union rt_val val)
{
	unsigned i = ub(nd, key);

	if (!nd->leaf) {
		unsigned c = i ? i - 1 : 0;
		struct rt_node *r = node_ins(t, nd->v[c].child, key, val);

		nd->key[c] = nd->v[c].child->key[0];
		if (!r)
			return NULL;
		key = r->key[0];
		val.child = r;
		i = c + 1;
	}
	return node_put(t, nd, i, key, val);
}

/* Add run [s, e); reserve() has been called. */
static void rt_insert(struct rt *t, uint64_t s, uint64_t e)
{
	union rt_val v = { .end = e };
	struct rt_node *r;

	hint_drop(t);
	if (!t->root) {
		t->root = node_take(t, 1);
		t->height = 1;
	}
	r = node_ins(t, t->root, s, v);
	if (r) {
		struct rt_node *nr = node_take(t, 0);

		nr->n = 2;
		nr->key[0] = t->root->key[0];
		nr->v[0].child = t->root;
		nr->key[1] = r->key[0];
		nr->v[1].child = r;
		t->root = nr;
		t->height++;
	}
	t->nruns++;
	t->nset += e - s;
}

/* Child i of nd has fallen below RT_MIN: merge it with a neighbour, or
 * even the two out. */
static void rebalance(struct rt *t, struct rt_node *nd, unsigned i)
{
	unsigned li = i ? i - 1 : 0;
	struct rt_node *l = nd->v[li].child, *r = nd->v[li + 1].child;

	if (l->n + r->n <= RT_FAN) {
		entries_move(l, l->n, r, 0, r->n);
		l->n += r->n;
		node_drop(t, r);
		entries_move(nd, li + 1, nd, li + 2, nd->n - (li + 2));
		nd->n--;
	} else {
		unsigned nl = (l->n + r->n) / 2;

		if (l->n > nl) {
			unsigned k = l->n - nl;

			entries_move(r, k, r, 0, r->n);
			entries_move(r, 0, l, nl, k);
			r->n += k;
		} else {
			unsigned k = nl - l->n;

			entries_move(l, l->n, r, 0, k);
			entries_move(r, 0, r, k, r->n - k);
			r->n -= k;
		}
		l->n = nl;
		nd->key[li + 1] = r->key[0];
	}
	nd->key[li] = l->key[0];
}

static void node_del(struct rt *t, struct rt_node *nd, uint64_t key)
{
	unsigned i = ub(nd, key) - 1;
	struct rt_node *c;

	if (nd->leaf) {
		entries_move(nd, i, nd, i + 1, nd->n - (i + 1));
		nd->n--;
		return;
	}
	c = nd->v[i].child;
	node_del(t, c, key);
	if (c->n)
		nd->key[i] = c->key[0];
	if (c->n < RT_MIN && nd->n > 1)
		rebalance(t, nd, i);
}

/* Remove the run that starts at s (it exists). */
static void rt_delete(struct rt *t, uint64_t s, uint64_t e)
{
	hint_drop(t);
	node_del(t, t->root, s);
	while (!t->root->leaf && t->root->n == 1) {
		struct rt_node *old = t->root;

		t->root = old->v[0].child;
		t->height--;
		node_drop(t, old);
	}
	if (t->root->n == 0) {
		node_drop(t, t->root);
		t->root = NULL;
		t->height = 0;
	}
	t->nruns--;
	t->nset -= e - s;
}

/* The run that starts at s (it exists) now ends at e. */
static void rt_set_end(struct rt *t, uint64_t s, uint64_t old_e, uint64_t e)
{
	struct rt_node *nd = t->root;
	unsigned i;

	/* an end changes in place: keys and the hint's bounds stay */
	for (;;) {
		i = ub(nd, s) - 1;
		if (nd->leaf)
			break;
		nd = nd->v[i].child;
	}
	nd->v[i].end = e;
	t->nset += e - old_e;	/* modulo 2^64: a shrink subtracts */
}

static void node_rekey(struct rt_node *nd, uint64_t old, uint64_t s)
{
	unsigned i = ub(nd, old) - 1;

	if (nd->leaf) {
		nd->key[i] = s;
		return;
	}
	node_rekey(nd->v[i].child, old, s);
	nd->key[i] = nd->v[i].child->key[0];
}

/* The run that starts at old (it exists) now starts at s, old < s < its end. */
static void rt_trim_start(struct rt *t, uint64_t old, uint64_t s)
{
	hint_drop(t);
	node_rekey(t->root, old, s);
	t->nset -= s - old;
}

/* ---- the backend operations --------------------------------------------- */
static int runs_test(const void *be, uint64_t r)
{
	uint64_t s, e;

	return rt_le(be, r, &s, &e) && r < e;
}

static errcode_t runs_set_range(void *be, uint64_t a, uint64_t n)
{
	struct rt *t = be;
	uint64_t b = a + n, end = b, ps = 0, pe = 0, qs, qe;
	int base = rt_le(t, a, &ps, &pe) && pe >= a;	/* a run reaching a */
	errcode_t err;

	if (base && pe >= b)
		return 0;
	if (!base) {
		err = reserve(t);
		if (err)
			return err;
	}
	/* swallow the runs that start inside [a, end] (runs do not touch, so
	 * none starts in (ps, a]) */
	while (rt_gt(t, a, &qs, &qe) && qs <= end) {
		if (qe > end)
			end = qe;
		rt_delete(t, qs, qe);
	}
	if (base)
		rt_set_end(t, ps, pe, end);
	else
		rt_insert(t, a, end);
	return 0;
}

static errcode_t runs_clear_range(void *be, uint64_t a, uint64_t n)
{
	struct rt *t = be;
	uint64_t b = a + n, ps, pe, qs, qe;
	errcode_t err;

	if (rt_le(t, a, &ps, &pe) && pe > a) {
		if (pe > b) {
			if (ps == a) {
				rt_trim_start(t, a, b);
			} else {	/* a hole in the middle of the run */
				err = reserve(t);
				if (err)
					return err;
				rt_set_end(t, ps, pe, a);
				rt_insert(t, b, pe);
			}
			return 0;
		}
		if (ps == a)
			rt_delete(t, ps, pe);
		else
			rt_set_end(t, ps, pe, a);
	}
	while (rt_gt(t, a, &qs, &qe) && qs < b) {
		if (qe > b) {
			rt_trim_start(t, qs, b);
			break;
		}
		rt_delete(t, qs, qe);
	}
	return 0;
}

static int runs_find_set(const void *be, uint64_t from, uint64_t to, uint64_t *out)
{
	uint64_t s, e;

	if (rt_le(be, from, &s, &e) && e > from) {
		*out = from;
		return 1;
	}
	if (rt_gt(be, from, &s, &e) && s < to) {
		*out = s;
		return 1;
	}
	return 0;
}

static int runs_find_zero(const void *be, uint64_t from, uint64_t to, uint64_t *out)
{
	uint64_t s, e, z = from;

	if (rt_le(be, from, &s, &e) && e > from)
		z = e;		/* maximal runs: the bit after one is clear */
	if (z >= to)
		return 0;
	*out = z;
	return 1;
}

static int runs_find_last_set(const void *be, uint64_t from, uint64_t to, uint64_t *out)
{
	uint64_t s, e;

	if (!rt_le(be, to - 1, &s, &e) || e <= from)
		return 0;
	*out = (e < to ? e : to) - 1;
	return 1;
}

static uint64_t runs_count(const void *be)
{
	return ((const struct rt *)be)->nset;
}

static uint64_t runs_count_range(const void *be, uint64_t a, uint64_t n)
{
	const struct rt *t = be;
	uint64_t b = a + n, s, e, x = a, total = 0;

	if (!t->root)
		return 0;
	leftmost(t->root, &s, &e);
	if (s >= a && rt_le(t, UINT64_MAX, &s, &e) && e <= b)
		return t->nset;		/* every run inside the range */
	if (rt_le(t, a, &s, &e) && e > a)
		total += (e < b ? e : b) - a;
	while (rt_gt(t, x, &s, &e) && s < b) {
		total += (e < b ? e : b) - s;
		x = s;
	}
	return total;
}

static uint64_t runs_run_count(const void *be)
{
	return ((const struct rt *)be)->nruns;
}

static size_t runs_memory(const void *be)
{
	const struct rt *t = be;

	return sizeof(*t) + (t->nnodes + t->nspare) * sizeof(struct rt_node);
}

static void node_free(struct rt_node *nd)
{
	if (!nd->leaf)
		for (unsigned i = 0; i < nd->n; i++)
			node_free(nd->v[i].child);
	free(nd);
}

static void runs_destroy(void *be)
{
	struct rt *t = be;

	if (t->root)
		node_free(t->root);
	while (t->nspare)
		free(t->spare[--t->nspare]);
	free(t);
}

/* ---- validation --------------------------------------------------------- */
struct rt_check {
	uint64_t runs, set, nodes, prev_end;
	int any;
};

static int node_check(const struct rt_node *nd, unsigned depth, unsigned height, int root,
		      struct rt_check *c)
{
	c->nodes++;
	if (nd->n > RT_FAN || nd->n == 0 || (!root && nd->n < RT_MIN) ||
	    (root && !nd->leaf && nd->n < 2) || (depth + 1 == height) != (nd->leaf != 0))
		return -1;
	for (unsigned i = 0; i < nd->n; i++) {
		if (i && nd->key[i] <= nd->key[i - 1])
			return -1;
		if (nd->leaf) {
			uint64_t s = nd->key[i], e = nd->v[i].end;

			if (e <= s || (c->any && s <= c->prev_end))
				return -1;
			c->any = 1;
			c->prev_end = e;
			c->runs++;
			c->set += e - s;
			continue;
		}
		if (node_check(nd->v[i].child, depth + 1, height, 0, c) ||
		    nd->v[i].child->key[0] != nd->key[i])
			return -1;
	}
	return 0;
}

static errcode_t runs_validate(const void *be)
{
	const struct rt *t = be;
	struct rt_check c = { 0 };

	if (!t->root)
		return t->height || t->nruns || t->nset || t->nnodes ? E4_ERR_CORRUPT : 0;
	if (node_check(t->root, 0, t->height, 1, &c) || c.runs != t->nruns || c.set != t->nset ||
	    c.nodes != t->nnodes)
		return E4_ERR_CORRUPT;
	return 0;
}

void *e4_bmap_runs_new(void)
{
	return calloc(1, sizeof(struct rt));
}

const struct e4_bmap_ops e4_bmap_runs_ops = {
	.destroy = runs_destroy,
	.memory = runs_memory,
	.test = runs_test,
	.set_range = runs_set_range,
	.clear_range = runs_clear_range,
	.find_set = runs_find_set,
	.find_zero = runs_find_zero,
	.find_last_set = runs_find_last_set,
	.count = runs_count,
	.count_range = runs_count_range,
	.run_count = runs_run_count,
	.validate = runs_validate,
};
