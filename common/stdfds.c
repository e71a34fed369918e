/*
 * common/stdfds.c: every tool starts with file descriptors 0, 1 and 2 open.
 *
 * A tool started with one of them closed would otherwise get the device or
 * image it opens first as that descriptor: e4debugfs would read its
 * commands from the image, e4mkfs would print its progress into the
 * filesystem it is making.  Linked into every tool; runs before main().
 */
#include <fcntl.h>
#include <unistd.h>

__attribute__((constructor)) static void std_fds_open(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0)
			continue;
		/* the lowest free descriptor is fd itself */
		if (open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) < 0)
			_exit(127);	/* no /dev/null: nothing safe to do */
	}
}
