/*
 * common/stdfds.c: every tool starts with file descriptors 0, 1 and 2 open,
 * and exits non-zero when what it wrote to standard output was lost.
 *
 * A tool started with one of them closed would otherwise get the device or
 * image it opens first as that descriptor: e4debugfs would read its
 * commands from the image, e4mkfs would print its progress into the
 * filesystem it is making.  Linked into every tool; runs before main().
 *
 * A closed standard output is taken by /dev/null opened read-only: the
 * descriptor is in use, and every write to it fails (EBADF) as it would
 * have on the closed descriptor.  At exit, output that could not be
 * written (a closed descriptor, a full disk, /dev/full) is one line on
 * stderr and a failed exit status, as GNU tools do: a script must not take
 * a listing that was lost for an empty one.  A run that already failed is
 * left as it is: it said why (a listing's own write error, for one).
 */
#include "stdfds.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int write_error_bits = 1;

void std_fds_write_error_status(int bits)
{
	write_error_bits = bits;
}

/* At exit (status: the one given to exit()): stdout flushed and checked. */
static void std_out_check(int status, void *arg)
{
	int err = 0;

	(void)arg;
	errno = 0;
	if (fflush(stdout)) {
		err = errno;
	} else if (ferror(stdout)) {
		/* an earlier write failed: ask the descriptor why */
		if (write(STDOUT_FILENO, "", 0) < 0)
			err = errno;
	} else {
		return;
	}
	if ((status | write_error_bits) == status)
		return;
	fprintf(stderr, "%s: write error on standard output%s%s\n",
		program_invocation_short_name, err ? ": " : "", err ? strerror(err) : "");
	fflush(NULL);
	_exit(status | write_error_bits);
}

__attribute__((constructor)) static void std_fds_open(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0)
			continue;
		/* the lowest free descriptor is fd itself; standard output
		 * read-only: writes fail as on the closed descriptor */
		if (open("/dev/null", fd == 2 ? O_WRONLY : O_RDONLY) < 0)
			_exit(127);	/* no /dev/null: nothing safe to do */
	}
	if (on_exit(std_out_check, NULL))
		_exit(127);
}
