/*
 * common/crashpoint.c: see crashpoint.h.
 */
#include "crashpoint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* E4_FAIL_READ: reads overlapping [fail_start, fail_end) fail with EIO. */
static uint64_t fail_start, fail_end;

static errcode_t fail_read_hook(void *priv, uint64_t offset, size_t len)
{
	(void)priv;
	return offset < fail_end && offset + len > fail_start ? EIO : 0;
}

static errcode_t parse_fail_read(const char *v)
{
	unsigned long long start, len;
	char *end;

	errno = 0;
	start = strtoull(v, &end, 0);
	if (errno || *end != ':')
		return EINVAL;
	len = strtoull(end + 1, &end, 0);
	if (errno || *end || !len || start + len < start)
		return EINVAL;
	fail_start = start;
	fail_end = start + len;
	return 0;
}

static uint64_t crash_left;	/* shared by every handle of the process */
static int crash_armed;
static FILE *crash_trace;

/* the crash-point layer's stop: the process ends as at a power failure */
static void crash_stop(void *priv)
{
	(void)priv;
	_exit(137);
}

static errcode_t trace_hook(void *priv, uint64_t offset, size_t len)
{
	(void)priv;
	fprintf(crash_trace, "%llu %zu\n", (unsigned long long)offset, len);
	fflush(crash_trace);
	return 0;
}

/* E4_SYNC_TRACE: a layer that appends "sync" to the file per sync that
 * has writes to make durable (the file base skips an fdatasync with
 * nothing written since the last). */
static FILE *sync_trace;

struct sync_trace_layer {
	e4_io_layer l;
	int unsynced;
};

static errcode_t sync_trace_write(e4_io_layer *l, uint64_t offset, const void *buf, size_t len)
{
	((struct sync_trace_layer *)l)->unsynced = 1;
	return e4_io_layer_write(l->below, offset, buf, len);
}

static errcode_t sync_trace_sync(e4_io_layer *l)
{
	struct sync_trace_layer *t = (struct sync_trace_layer *)l;

	if (t->unsynced) {
		fprintf(sync_trace, "sync\n");
		fflush(sync_trace);
		t->unsynced = 0;
	}
	return e4_io_layer_sync(l->below);
}

static void sync_trace_free(e4_io_layer *l)
{
	free(l);
}

static const struct e4_io_layer_ops sync_trace_ops = {
	.name = "sync trace",
	.write = sync_trace_write,
	.sync = sync_trace_sync,
	.free = sync_trace_free,
};

/* Stack the layers the environment asked for on io. */
static errcode_t stack_layers(e4_io *io)
{
	if (fail_end)
		e4_io_set_read_hook(io, fail_read_hook, NULL);
	if (crash_trace)
		e4_io_set_write_hook(io, trace_hook, NULL);
	if (sync_trace) {
		struct sync_trace_layer *t = calloc(1, sizeof(*t));

		if (!t)
			return ENOMEM;
		t->l.ops = &sync_trace_ops;
		e4_io_push_layer(io, &t->l);
	}
	if (crash_armed) {
		e4_io_layer *crash;
		errcode_t err = e4_io_crash_layer(&crash_left, 0, crash_stop, NULL, &crash);

		if (err)
			return err;
		e4_io_push_layer(io, crash);
	}
	return 0;
}

errcode_t crashpoint_install(e4_io *io)
{
	const char *n = getenv("E4_CRASH_AFTER_WRITES");
	const char *trace = getenv("E4_CRASH_TRACE");
	const char *fail = getenv("E4_FAIL_READ");
	const char *strace_file = getenv("E4_SYNC_TRACE");
	static int installed;
	unsigned long long v;
	char *end;

	/* a handle opened later (a reopen) joins the same count and trace */
	if (installed)
		return stack_layers(io);
	installed = 1;

	if (n && *n) {
		errno = 0;
		v = strtoull(n, &end, 10);
		if (errno || *end || v == 0)
			return EINVAL;
		crash_left = v;	/* N writes pass, the next one ends the process */
		crash_armed = 1;
	}
	if (trace && *trace) {
		crash_trace = fopen(trace, "a");
		if (!crash_trace)
			return errno ? errno : EIO;
	}
	if (strace_file && *strace_file) {
		sync_trace = fopen(strace_file, "a");
		if (!sync_trace)
			return errno ? errno : EIO;
	}
	if (fail && *fail && parse_fail_read(fail))
		return EINVAL;
	return stack_layers(io);
}
