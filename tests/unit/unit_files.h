/*
 * unit_files.h: regular files in scratch images for the file and
 * block-map writer tests: a source folder of empty files for mke2fs -d
 * (so that the files are linked and e2fsck finds them in place), opening
 * one by path, its block accounting, and comparing what a read-only
 * kernel mount (unit_oracle.h: oracle_mount) reads.  Header-only.
 */
#ifndef UNIT_FILES_H
#define UNIT_FILES_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "e4.h"
#include "unit_oracle.h"

/* A folder /tmp/e4_<tag>_src.XXXXXX with empty files f0..f<n-1>; its
 * path in dir (64 bytes); 0 or -1. */
static inline int uf_src_make(char *dir, const char *tag, int n)
{
	char p[128];

	snprintf(dir, 64, "/tmp/e4_%s_src.XXXXXX", tag);
	if (!mkdtemp(dir))
		return -1;
	for (int i = 0; i < n; i++) {
		FILE *f;

		snprintf(p, sizeof(p), "%s/f%d", dir, i);
		f = fopen(p, "w");
		if (!f)
			return -1;
		fclose(f);
	}
	return 0;
}

static inline void uf_src_remove(const char *dir, int n)
{
	char p[128];

	for (int i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/f%d", dir, i);
		unlink(p);
	}
	rmdir(dir);
}

/* Inode of path in fs and its image; 0 or an error. */
static inline errcode_t uf_open(e4_fs *fs, const char *path, e4_ino_t *ino,
				union e4_inode_buf *ib)
{
	errcode_t err = e4_namei(fs, EXT4_ROOT_INO, EXT4_ROOT_INO, path, 0, ino);

	return err ? err : e4_inode_read(fs, *ino, ib);
}

struct uf_count {
	e4_fs *fs;
	uint64_t *clu;			/* physical clusters named (with repeats) */
	size_t n, cap;
	int not_in_use;
};

static int uf_count_cb(e4_fs *fs, const struct e4_map_extent *e, void *priv)
{
	struct uf_count *c = priv;
	unsigned cb = e4_geom(fs)->cluster_bits;

	for (uint32_t i = 0; i < e->len; i++) {
		int in_use = 0;

		if (e4_test_block(fs, e->pblk + i, &in_use) || !in_use)
			c->not_in_use++;
		if (c->n == c->cap) {
			uint64_t *p = realloc(c->clu, (c->cap = c->cap ? 2 * c->cap : 256) * 8);

			if (!p)
				return -1;
			c->clu = p;
		}
		c->clu[c->n++] = (e->pblk + i) >> cb;
	}
	return 0;
}

static int uf_cmp64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The blocks the file's map names (data and tree/indirect), all marked in
 * use, and i_blocks equal to them (bigalloc: to the distinct clusters
 * they lie in, whole); *blocks gets that count in blocks.  NULL when so,
 * else a reason (static buffer). */
static inline const char *uf_accounting(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *in,
					uint64_t *blocks)
{
	static char why[160];
	struct uf_count c = { .fs = fs };
	errcode_t err = e4_map_iterate(fs, ino, in, E4_ITER_META, uf_count_cb, &c);
	unsigned cb = e4_geom(fs)->cluster_bits;
	uint64_t want, nclu = 0;

	if (err) {
		free(c.clu);
		snprintf(why, sizeof(why), "map walk: %s", error_message(err));
		return why;
	}
	if (c.n)
		qsort(c.clu, c.n, 8, uf_cmp64);
	for (size_t i = 0; i < c.n; i++)
		nclu += !i || c.clu[i] != c.clu[i - 1];
	free(c.clu);
	*blocks = nclu << cb;
	want = *blocks * (e4_geom(fs)->block_size / 512);
	if (c.not_in_use) {
		snprintf(why, sizeof(why), "%d mapped blocks not marked in use", c.not_in_use);
		return why;
	}
	if (e4_inode_blocks(fs, in) != want) {
		snprintf(why, sizeof(why), "i_blocks %llu, the map holds %llu sectors",
			 (unsigned long long)e4_inode_blocks(fs, in), (unsigned long long)want);
		return why;
	}
	return NULL;
}

/* The kernel reads len bytes at off of mnt/name as want[0..len); the
 * file's size is size.  0 or -1 (the first difference printed). */
static inline int uf_kernel_cmp(const char *mnt, const char *name, uint64_t size,
				uint64_t off, const uint8_t *want, size_t len)
{
	char p[128];
	uint8_t *got = malloc(len + 1);
	int fd, rc = 0;
	ssize_t r;
	off_t end;

	snprintf(p, sizeof(p), "%s/%s", mnt, name);
	fd = open(p, O_RDONLY);
	if (fd < 0 || !got) {
		fprintf(stderr, "kernel: cannot open %s: %s\n", p, strerror(errno));
		free(got);
		return -1;
	}
	end = lseek(fd, 0, SEEK_END);
	if (end != (off_t)size) {
		fprintf(stderr, "kernel: %s has %lld bytes, expected %llu\n", p, (long long)end,
			(unsigned long long)size);
		rc = -1;
	}
	r = rc ? 0 : pread(fd, got, len, (off_t)off);
	if (!rc && (r != (ssize_t)len || memcmp(got, want, len))) {
		size_t i = 0;

		while (r > 0 && i < (size_t)r && got[i] == want[i])
			i++;
		fprintf(stderr, "kernel: %s differs at byte %llu (read %zd of %zu)\n", p,
			(unsigned long long)(off + i), r, len);
		rc = -1;
	}
	close(fd);
	free(got);
	return rc;
}

#endif
