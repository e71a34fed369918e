/*
 * alloc_drv: drives libe4's allocation API for tests/t/lib_alloc.sh.
 *   alloc_drv IMAGE take GOAL COUNT GROUP   find and mark COUNT blocks from
 *                                           GOAL and one inode from GROUP
 *   alloc_drv IMAGE roundtrip GOAL COUNT GROUP   the same, then free both
 *   alloc_drv IMAGE recount                 recompute the free counts
 * Prints one line per step; exit 1 on the first error.
 */
#include "e4.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check(const char *what, errcode_t err)
{
	if (err)
		fprintf(stderr, "alloc_drv: %s: %s\n", what, error_message(err));
	return err != 0;
}

int main(int argc, char **argv)
{
	e4_fs *fs;
	e4_blk_t blk = 0;
	e4_ino_t ino = 0;
	uint64_t count = 0, changed = 0;
	int ichanged = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: alloc_drv IMAGE take|roundtrip GOAL COUNT GROUP | recount\n");
		return 2;
	}
	if (check("open", e4_open(argv[1], E4_OPEN_RW, 0, 0, &fs)))
		return 1;
	if (!strcmp(argv[2], "recount")) {
		if (check("recount", e4_counts_recompute(fs, &ichanged)))
			return 1;
		printf("recount changed=%d\n", ichanged);
	} else if (argc == 6) {
		count = strtoull(argv[4], NULL, 0);
		if (check("find blocks", e4_block_find_free(fs, strtoull(argv[3], NULL, 0), count, &blk)) ||
		    check("mark blocks", e4_block_mark(fs, blk, count, 1, &changed)))
			return 1;
		printf("blocks %llu %llu changed=%llu\n", (unsigned long long)blk,
		       (unsigned long long)count, (unsigned long long)changed);
		if (check("find inode", e4_inode_find_free(fs, (e4_group_t)strtoul(argv[5], NULL, 0), &ino)) ||
		    check("mark inode", e4_inode_mark(fs, ino, 1, 0, &ichanged)))
			return 1;
		printf("inode %u changed=%d\n", ino, ichanged);
		if (!strcmp(argv[2], "roundtrip") &&
		    (check("free blocks", e4_block_mark(fs, blk, count, 0, &changed)) ||
		     check("free inode", e4_inode_mark(fs, ino, 0, 0, &ichanged))))
			return 1;
	} else {
		fprintf(stderr, "alloc_drv: bad arguments\n");
		return 2;
	}
	if (check("flush", e4_alloc_flush(fs)) || check("close", e4_close(fs)))
		return 1;
	return 0;
}
