/*
 * common/crashpoint.c: see crashpoint.h.
 */
#include "crashpoint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static unsigned long long crash_left;
static FILE *crash_trace;

static errcode_t crash_hook(void *priv, uint64_t offset, size_t len)
{
	(void)priv;
	if (crash_trace) {
		fprintf(crash_trace, "%llu %zu\n", (unsigned long long)offset, len);
		fflush(crash_trace);
	}
	if (crash_left) {
		if (--crash_left == 0)
			_exit(137);
	}
	return 0;
}

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

errcode_t crashpoint_install(e4_io *io)
{
	const char *n = getenv("E4_CRASH_AFTER_WRITES");
	const char *trace = getenv("E4_CRASH_TRACE");
	const char *fail = getenv("E4_FAIL_READ");
	static int installed;
	char *end;

	/* a handle opened later (a reopen) joins the same count and trace */
	if (installed) {
		if (fail_end)
			e4_io_set_read_hook(io, fail_read_hook, NULL);
		if (crash_left || crash_trace)
			e4_io_set_write_hook(io, crash_hook, NULL);
		return 0;
	}
	installed = 1;

	if (n && *n) {
		errno = 0;
		crash_left = strtoull(n, &end, 10);
		if (errno || *end || crash_left == 0)
			return EINVAL;
		crash_left++;	/* N writes pass, the next one ends the process */
	}
	if (trace && *trace) {
		crash_trace = fopen(trace, "a");
		if (!crash_trace)
			return errno ? errno : EIO;
	}
	if (crash_left || crash_trace)
		e4_io_set_write_hook(io, crash_hook, NULL);
	if (fail && *fail) {
		if (parse_fail_read(fail))
			return EINVAL;
		e4_io_set_read_hook(io, fail_read_hook, NULL);
	}
	return 0;
}
