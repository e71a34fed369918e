/*
 * io_layer.c: the layers of an I/O stack (e4.h "I/O as a stack"): passing
 * a call down, the hooks of e4_io_set_write_hook()/_read_hook(),
 * statistics, and the crash point of the crash tests.  Each is a wrapper
 * with the one interface of struct e4_io_layer_ops.
 */
#include "io_int.h"

#include <errno.h>
#include <stdlib.h>

/* The first layer from l down that has the op (the base has them all). */
#define LAYER_WITH(l, op)				\
	do {						\
		while ((l) && !(l)->ops->op)		\
			(l) = (l)->below;		\
	} while (0)

errcode_t e4_io_layer_read(e4_io_layer *l, uint64_t offset, void *buf, size_t len)
{
	LAYER_WITH(l, read);
	return l ? l->ops->read(l, offset, buf, len) : E4_ERR_INVALID_ARGUMENT;
}

errcode_t e4_io_layer_write(e4_io_layer *l, uint64_t offset, const void *buf, size_t len)
{
	LAYER_WITH(l, write);
	return l ? l->ops->write(l, offset, buf, len) : E4_ERR_INVALID_ARGUMENT;
}

errcode_t e4_io_layer_sync(e4_io_layer *l)
{
	LAYER_WITH(l, sync);
	return l ? l->ops->sync(l) : 0;
}

errcode_t e4_io_layer_barrier(e4_io_layer *l)
{
	LAYER_WITH(l, barrier);
	return l ? l->ops->barrier(l) : 0;
}

/* ---- hooks (e4_io_set_write_hook, e4_io_set_read_hook) ---------------- */
static errcode_t hooks_read(e4_io_layer *l, uint64_t offset, void *buf, size_t len)
{
	struct e4_io_hooks *h = (struct e4_io_hooks *)l;

	if (h->read_hook) {
		errcode_t err = h->read_hook(h->read_priv, offset, len);

		if (err)
			return err;
	}
	return e4_io_layer_read(l->below, offset, buf, len);
}

static errcode_t hooks_write(e4_io_layer *l, uint64_t offset, const void *buf, size_t len)
{
	struct e4_io_hooks *h = (struct e4_io_hooks *)l;

	if (h->write_hook) {
		errcode_t err = h->write_hook(h->write_priv, offset, len);

		if (err)
			return err;
	}
	return e4_io_layer_write(l->below, offset, buf, len);
}

static void layer_free(e4_io_layer *l)
{
	free(l);
}

static const struct e4_io_layer_ops hooks_ops = {
	.name = "hooks",
	.read = hooks_read,
	.write = hooks_write,
	.free = layer_free,
};

errcode_t e4_io_hooks_layer(struct e4_io_hooks **ret)
{
	struct e4_io_hooks *h = calloc(1, sizeof(*h));

	*ret = h;
	if (!h)
		return E4_ERR_NO_MEMORY;
	h->l.ops = &hooks_ops;
	h->l.mt_read = 1;	/* until a read hook is set */
	return 0;
}

/* ---- statistics --------------------------------------------------------- */
struct stats_layer {
	e4_io_layer l;
	struct e4_io_stats st;
};

static errcode_t stats_read(e4_io_layer *l, uint64_t offset, void *buf, size_t len)
{
	struct stats_layer *s = (struct stats_layer *)l;

	s->st.reads++;
	s->st.read_bytes += len;
	return e4_io_layer_read(l->below, offset, buf, len);
}

static errcode_t stats_write(e4_io_layer *l, uint64_t offset, const void *buf, size_t len)
{
	struct stats_layer *s = (struct stats_layer *)l;
	errcode_t err = e4_io_layer_write(l->below, offset, buf, len);

	/* what got through: a write refused below is not counted */
	if (!err) {
		s->st.writes++;
		s->st.written_bytes += len;
	}
	return err;
}

static errcode_t stats_sync(e4_io_layer *l)
{
	((struct stats_layer *)l)->st.syncs++;
	return e4_io_layer_sync(l->below);
}

static errcode_t stats_barrier(e4_io_layer *l)
{
	((struct stats_layer *)l)->st.barriers++;
	return e4_io_layer_barrier(l->below);
}

static const struct e4_io_layer_ops stats_ops = {
	.name = "stats",
	.read = stats_read,
	.write = stats_write,
	.sync = stats_sync,
	.barrier = stats_barrier,
	.free = layer_free,
};

errcode_t e4_io_stats_layer(e4_io_layer **ret)
{
	struct stats_layer *s = calloc(1, sizeof(*s));

	*ret = NULL;
	if (!s)
		return E4_ERR_NO_MEMORY;
	s->l.ops = &stats_ops;
	s->l.mt_read = 0;	/* plain counters */
	*ret = &s->l;
	return 0;
}

void e4_io_stats_get(const e4_io_layer *stats, struct e4_io_stats *st)
{
	*st = ((const struct stats_layer *)stats)->st;
}

/* ---- crash point ------------------------------------------------------- */
struct crash_layer {
	e4_io_layer l;
	uint64_t *left;
	int flags;
	int tripped;
	void (*stop)(void *priv);
	void *priv;
};

static errcode_t crash_write(e4_io_layer *l, uint64_t offset, const void *buf, size_t len)
{
	struct crash_layer *c = (struct crash_layer *)l;

	if (c->tripped && (c->flags & E4_IO_CRASH_ONCE))
		return e4_io_layer_write(l->below, offset, buf, len);
	if (c->tripped)
		return EIO;
	if (*c->left) {
		(*c->left)--;
		return e4_io_layer_write(l->below, offset, buf, len);
	}
	c->tripped = 1;
	if (c->stop)
		c->stop(c->priv);
	return EIO;
}

static const struct e4_io_layer_ops crash_ops = {
	.name = "crashpoint",
	.write = crash_write,
	.free = layer_free,
};

errcode_t e4_io_crash_layer(uint64_t *left, int flags, void (*stop)(void *priv), void *priv,
			    e4_io_layer **ret)
{
	struct crash_layer *c = calloc(1, sizeof(*c));

	*ret = NULL;
	if (!c)
		return E4_ERR_NO_MEMORY;
	c->l.ops = &crash_ops;
	c->l.mt_read = 1;	/* reads pass untouched */
	c->left = left;
	c->flags = flags;
	c->stop = stop;
	c->priv = priv;
	*ret = &c->l;
	return 0;
}

int e4_io_crash_tripped(const e4_io_layer *crash)
{
	return ((const struct crash_layer *)crash)->tripped;
}
