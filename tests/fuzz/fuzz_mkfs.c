/*
 * fuzz_mkfs.c: e4mkfs's option and configuration parsing and the layout
 * computation on arbitrary sizes.  The tool's own main() is compiled in
 * (renamed) and run with -n, so it parses the options (-O, -E, -J lists
 * included) and the configuration, computes the layout and prints what it
 * would make, writing nothing.  main() leaves the tool only through
 * usage() on an option getopt does not know or a missing argument; the
 * command lines built here never have either.
 *
 * Input: records separated by NUL bytes.  The first is the configuration
 * file's text (mke2fs.conf syntax; empty: the built-in one).  Each other
 * record is an option letter followed by its value ("Oext4,^has_journal",
 * "Estride=4", "b4096"); the letter 'S' gives the size argument, '@' the
 * device name's existence (a regular file of that many bytes: the probe
 * reads it).  At most 24 options.
 */
#define main e4mkfs_main
#include "../../mkfs/main.c"
#undef main

#include "fuzz.h"

#include <sys/mman.h>

#define FZ_MAX_OPTS	24

/* The options built from an input; option letters with a value unless
 * listed without. */
static const char opts_value[] = "bCeEgGiIJLmMNoOrRstTU";
static const char opts_flag[] = "jnqvFDK";

static char optname[256][3];		/* "-b" for 'b' */
static int conf_fd = -1, dev_fd = -1;
static char conf_path[64], dev_path[64];

void fz_target_init(void)
{
	for (int c = 0; c < 256; c++) {
		optname[c][0] = '-';
		optname[c][1] = (char)c;
	}
	conf_fd = memfd_create("e4fuzz-mke2fs.conf", 0);
	dev_fd = memfd_create("e4fuzz-device", 0);
	snprintf(conf_path, sizeof(conf_path), "/proc/self/fd/%d", conf_fd);
	snprintf(dev_path, sizeof(dev_path), "/proc/self/fd/%d", dev_fd);
	/* fixed values: the run must not depend on the clock */
	setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *argv[2 * FZ_MAX_OPTS + 6], *p, *end;
	const char *device = "/nonexistent/e4fuzz-image";
	char *size_arg = NULL;
	int argc = 0;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	end = text + size;
	/* the configuration */
	if (*text && conf_fd >= 0 && !ftruncate(conf_fd, 0) &&
	    pwrite(conf_fd, text, strlen(text), 0) == (ssize_t)strlen(text))
		setenv("E4MKFS_CONFIG", conf_path, 1);
	else
		unsetenv("E4MKFS_CONFIG");
	argv[argc++] = "e4mkfs";
	argv[argc++] = "-n";
	for (p = text + strlen(text) + 1; p < end && argc < 2 * FZ_MAX_OPTS + 2;
	     p += strlen(p) + 1) {
		unsigned char c = (unsigned char)*p;

		if (c == 'S' && p[1] != '-') {
			size_arg = p + 1;	/* "-..." would be read as an option */
		} else if (c == '@' && dev_fd >= 0) {
			/* an existing target of that many bytes (sparse) */
			unsigned long long n = strtoull(p + 1, NULL, 0);

			if (!ftruncate(dev_fd, 0) && !ftruncate(dev_fd, (off_t)(n & ((1ULL << 50) - 1))))
				device = dev_path;
		} else if (c && strchr(opts_value, c)) {
			argv[argc++] = optname[c];
			argv[argc++] = p + 1;
		} else if (c && strchr(opts_flag, c)) {
			argv[argc++] = optname[c];
		}
	}
	argv[argc++] = (char *)device;
	if (size_arg)
		argv[argc++] = size_arg;
	argv[argc] = NULL;
	optind = 0;	/* getopt starts afresh */
	e4mkfs_main(argc, argv);
	free(text);
	return 0;
}
