/*
 * replay_main.c: main() of a fuzz target built without libFuzzer (the
 * ordinary and sanitizer builds): each argument, a file or a directory of
 * files, is one input run once, as libFuzzer runs the files it is given.
 * An input running longer than E4FUZZ_TIMEOUT seconds (default 10) is a
 * finding: the run aborts naming it.  Exit 0 when every input ran.
 */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static FILE *out;
static const char *current;

static void on_alarm(int sig)
{
	(void)sig;
	fprintf(out, "TIMEOUT: %s ran longer than the limit\n", current);
	fflush(out);
	abort();
}

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		fprintf(out, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (len == cap) {
			uint8_t *b = realloc(buf, cap ? cap * 2 : 65536);

			if (!b) {
				fclose(f);
				free(buf);
				return -1;
			}
			buf = b;
			cap = cap ? cap * 2 : 65536;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	fclose(f);
	current = path;
	alarm((unsigned)atoi(getenv("E4FUZZ_TIMEOUT") ? getenv("E4FUZZ_TIMEOUT") : "10"));
	LLVMFuzzerTestOneInput(buf, len);
	alarm(0);
	free(buf);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files of a directory in name order. */
static int run_dir(const char *dir, unsigned *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;
	int ret = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char **nn;

		if (e->d_name[0] == '.')
			continue;
		nn = realloc(names, (n + 1) * sizeof(*names));
		if (!nn)
			break;
		names = nn;
		if (asprintf(&names[n], "%s/%s", dir, e->d_name) < 0)
			break;
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (!stat(names[i], &st) && S_ISREG(st.st_mode)) {
			if (run_file(names[i]))
				ret = -1;
			else
				(*count)++;
		}
		free(names[i]);
	}
	free(names);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned count = 0;
	int ret = 0;

	out = stderr;	/* the target may silence stderr */
	signal(SIGALRM, on_alarm);
	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (argv[i][0] == '-')
			continue;	/* libFuzzer's options mean nothing here */
		if (stat(argv[i], &st)) {
			fprintf(out, "%s: %s\n", argv[i], strerror(errno));
			ret = 1;
		} else if (S_ISDIR(st.st_mode)) {
			if (run_dir(argv[i], &count))
				ret = 1;
		} else if (run_file(argv[i])) {
			ret = 1;
		} else {
			count++;
		}
	}
	fprintf(out, "%s: %u inputs replayed\n", argv[0], count);
	return ret;
}
