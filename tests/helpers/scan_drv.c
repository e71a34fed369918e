/*
 * scan_drv: time a buffered inode scan (e4_inode_scan_*) of an image, for
 * bench/inode_scan.sh.  Usage: scan_drv IMAGE CHUNK_BYTES [readahead]
 * Prints: inodes in use (links > 0), seconds, MB read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "e4.h"

int main(int argc, char **argv)
{
	struct timespec a, b;
	const struct ext4_inode *in;
	e4_inode_scan *s;
	uint64_t used = 0, bytes = 0;
	e4_ino_t ino;
	errcode_t err;
	e4_fs *fs;

	if (argc < 3)
		return 2;
	e4_init_errors();
	err = e4_open(argv[1], 0, 0, 0, &fs);
	if (!err)
		err = e4_inode_scan_open(fs, strtoull(argv[2], NULL, 0),
					 argc > 3 ? E4_SCAN_READAHEAD : 0, &s);
	if (err) {
		fprintf(stderr, "scan_drv: %s: %s\n", argv[1], error_message(err));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	while ((err = e4_inode_scan_next(s, &ino, &in, NULL, NULL)) != E4_ERR_NOT_FOUND)
		if (!err && in->i_links_count)
			used++;
	clock_gettime(CLOCK_MONOTONIC, &b);
	e4_inode_scan_stats(s, &bytes, NULL);
	printf("%llu inodes in use, %.3f s, %.1f MB read\n", (unsigned long long)used,
	       (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9, bytes / 1e6);
	e4_inode_scan_close(s);
	e4_close(fs);
	return 0;
}
