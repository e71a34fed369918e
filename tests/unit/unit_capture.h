/*
 * unit_capture.h: stdout captured into a buffer, for unit tests that
 * compare what a tool prints (e4fsck's problem engine and passes).
 * Header-only: each unit test is one program.
 */
#ifndef UNIT_CAPTURE_H
#define UNIT_CAPTURE_H

#include <stdio.h>
#include <unistd.h>

static FILE *cap_file;
static int cap_saved_fd = -1;
static char cap_buf[16384];

/* From now on stdout (file descriptor 1) goes to a temporary file. */
static inline void cap_start(void)
{
	fflush(stdout);
	cap_file = tmpfile();
	assert_non_null(cap_file);
	cap_saved_fd = dup(1);
	assert_true(cap_saved_fd >= 0);
	assert_true(dup2(fileno(cap_file), 1) >= 0);
}

/* stdout back; what was printed since cap_start() (at most 16 KiB). */
static inline const char *cap_end(void)
{
	size_t n;

	fflush(stdout);
	dup2(cap_saved_fd, 1);
	close(cap_saved_fd);
	rewind(cap_file);
	n = fread(cap_buf, 1, sizeof(cap_buf) - 1, cap_file);
	cap_buf[n] = 0;
	fclose(cap_file);
	return cap_buf;
}

#endif
