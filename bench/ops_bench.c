/*
 * ops_bench: time namespace operations (ops.h) on an image file.
 *
 *   ops_bench IMAGE N [batch|single] [rename]
 *
 * Makes directory /bench, then N e4_op_create() calls into it (names
 * f0000000 ...), each its own not-clean window ("single", the default:
 * one fsync per operation) or all in one e4_ops_begin()/e4_ops_end()
 * ("batch": one fsync at the end).  With "rename", each create is
 * followed by renaming the new file to r<same digits> (a lookup of a
 * name not there, the target check of e4_op_rename()).  Prints the time
 * of every tenth of the run (microseconds per operation) and the total,
 * so growth with the directory size shows.  Not a test: bench/, built
 * with `make bench/ops_bench`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "e4.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void die(const char *what, errcode_t err)
{
	fprintf(stderr, "ops_bench: %s: %s\n", what, error_message(err));
	exit(1);
}

int main(int argc, char **argv)
{
	e4_fs *fs;
	e4_ino_t dir, ino;
	errcode_t err;
	unsigned long n, tenth;
	int batch, rename;
	double t0, tp, tend;
	char name[32], nname[32];

	if (argc < 3) {
		fprintf(stderr, "usage: ops_bench IMAGE N [batch|single] [rename]\n");
		return 2;
	}
	n = strtoul(argv[2], NULL, 0);
	batch = argc > 3 && !strcmp(argv[3], "batch");
	rename = argc > 4 && !strcmp(argv[4], "rename");
	tenth = n / 10 ? n / 10 : 1;
	err = e4_open(argv[1], E4_OPEN_RW, 0, 0, &fs);
	if (err)
		die("open", err);
	err = e4_op_mkdir(fs, EXT4_ROOT_INO, "bench", 5, NULL, &dir);
	if (err)
		die("mkdir", err);
	if (batch && (err = e4_ops_begin(fs)))
		die("begin", err);
	t0 = tp = now();
	for (unsigned long i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "f%07lu", i);
		err = e4_op_create(fs, dir, name, strlen(name), NULL, &ino);
		if (err)
			die(name, err);
		if (rename) {
			snprintf(nname, sizeof(nname), "r%07lu", i);
			err = e4_op_rename(fs, dir, name, strlen(name), dir, nname, strlen(nname));
			if (err)
				die(nname, err);
		}
		if ((i + 1) % tenth == 0) {
			double t = now();

			printf("ops %7lu-%7lu: %8.1f us/op\n", i + 1 - tenth, i + 1,
			       (t - tp) * 1e6 / (double)tenth);
			tp = t;
		}
	}
	if (batch && (err = e4_ops_end(fs)))
		die("end", err);
	err = e4_close(fs);
	if (err)
		die("close", err);
	tend = now();
	printf("total %lu %s%s: %.3f s (%.1f us/op, end and close included)\n", n,
	       batch ? "batch" : "single", rename ? "+rename" : "", tend - t0,
	       (tend - t0) * 1e6 / (double)n);
	return 0;
}
