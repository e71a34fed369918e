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

errcode_t crashpoint_install(e4_io *io)
{
	const char *n = getenv("E4_CRASH_AFTER_WRITES");
	const char *trace = getenv("E4_CRASH_TRACE");
	static int installed;
	char *end;

	/* a handle opened later (a reopen) joins the same count and trace */
	if (installed) {
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
	return 0;
}
