/*
 * fuzz_popsrc: e4mkfs -d's archive reader (mkfs/popsrc_tar.c, through
 * libarchive) on one input.  The input is the archive itself (tar in any
 * of its forms, maybe compressed), handed over as a file (a memfd); the
 * stream is walked with every data run read back, then the size estimate
 * and the reproducible identifiers are derived from it, as e4mkfs does
 * before it writes.  Errors are expected (a message naming the member);
 * crashes, sanitizer reports and leaks are findings.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz.h"
#include "popsize.h"

static char *buf;

static int on_entry(void *arg, struct pop_src *s, const struct pop_entry *e)
{
	(void)arg;
	for (uint32_t i = 0; i < e->nsegs; i++) {
		uint64_t off = e->segs[i].off, left = e->segs[i].len;

		while (left) {
			size_t k = left > 65536 ? 65536 : (size_t)left;

			if (pop_read(s, e, off, buf, k))
				return 1;
			off += k;
			left -= k;
		}
	}
	return 0;
}

void fz_target_init(void)
{
	buf = malloc(65536);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct pop_fsparams p = {
		.block_size = 4096, .cluster_size = 4096, .inode_size = 256, .extents = 1,
		.metadata_csum = 1, .dir_index = 1,
	};
	struct pop_opts o = { .default_time = 1700000000 };
	struct pop_ops ops = { on_entry, NULL };
	struct pop_estimate est;
	char path[64], err[1100], *opts[1] = { "-O^has_journal" };
	uint8_t uuid[16], seed[16];
	struct pop_src *s;
	int fd = memfd_create("fuzz_popsrc", 0);

	if (fd < 0 || !buf)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!pop_open(path, &o, &s, err, sizeof(err))) {
		if (!pop_walk(s, &ops, NULL) && !pop_estimate(s, &p, &est))
			(void)pop_repro_ids(s, 1700000000, 1, opts, uuid, seed);
		pop_close(s);
	}
	close(fd);
	return 0;
}
