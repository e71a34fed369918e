/*
 * unit_oracle.h: judging an image written by a unit test with the oracles
 * (DEVELOPERS.md "The bar"): the reference e2fsck -fn is clean (exit 0,
 * nothing but its frame lines), the reference debugfs `ls -p` lists each
 * directory exactly as the test's model says, and the kernel (loop mount,
 * read-only) lists the same names and finds each by path.  Header-only.
 * The kernel part needs root and loop devices: without them it is skipped
 * with a message, and fails under CI=true.  Block sizes above the page
 * size are not mounted (said so).
 */
#ifndef UNIT_ORACLE_H
#define UNIT_ORACLE_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One directory as the test expects it: path from the root and its names
 * (without "." and ".."), in any order. */
struct oracle_dir {
	const char *path;
	char **names;
	size_t n;
	char **absent;		/* names that must not be found (may be NULL) */
	size_t nabsent;
};

static int oracle_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* 0 if got[0..ng) and want[0..nw) hold the same names (both are sorted
 * here); else prints the first difference under what. */
static int oracle_same(const char *what, char **got, size_t ng, char **want, size_t nw)
{
	size_t i;

	if (ng)
		qsort(got, ng, sizeof(*got), oracle_strcmp);
	if (nw)
		qsort(want, nw, sizeof(*want), oracle_strcmp);
	for (i = 0; i < ng && i < nw; i++)
		if (strcmp(got[i], want[i])) {
			fprintf(stderr, "%s: name %zu differs: got '%s', expected '%s'\n", what, i,
				got[i], want[i]);
			return -1;
		}
	if (ng != nw) {
		fprintf(stderr, "%s: %zu names, expected %zu\n", what, ng, nw);
		return -1;
	}
	return 0;
}

static void oracle_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static const char *oracle_tool(const char *env, const char *name)
{
	const char *t = getenv(env);

	return t && *t ? t : name;
}

/* The reference e2fsck -fn on img, its output (stderr too) to read. */
static FILE *oracle_fsck_popen(const char *img)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "PATH=\"$PATH:/sbin:/usr/sbin\" %s -fn %s 2>&1 </dev/null",
		 oracle_tool("REF_E2FSCK", "e2fsck"), img);
	return popen(cmd, "r");
}

/* 1 for the lines a clean run prints: version, "Pass N", summary. */
static int oracle_fsck_frame(const char *line)
{
	return !strncmp(line, "e2fsck ", 7) || !strncmp(line, "Pass ", 5) ||
	       strstr(line, " files (") || line[0] == '\n';
}

/* The reference e2fsck -fn: exit 0 and only its frame lines. */
static int oracle_fsck(const char *img)
{
	char line[1024];
	FILE *p = oracle_fsck_popen(img);
	int bad = 0, st;

	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		if (oracle_fsck_frame(line))
			continue;
		if (bad++ < 20)
			fprintf(stderr, "e2fsck -fn %s: %s", img, line);
	}
	st = pclose(p);
	if (st != 0)
		fprintf(stderr, "e2fsck -fn %s: exit status %d\n", img, WEXITSTATUS(st));
	return st == 0 && !bad ? 0 : -1;
}

/* The names the reference debugfs `ls -p` lists in path ("/ino/mode/uid/
 * gid/name/size/" lines; names hold no '/'), unused records left out. */
static int oracle_debugfs_ls(const char *img, const struct oracle_dir *d)
{
	char cmd[512], *line = NULL;
	size_t cap = 0, ng = 0, gcap = 1024;
	char **got = malloc(sizeof(*got) * gcap), **want;
	FILE *p;
	int rc;

	snprintf(cmd, sizeof(cmd), "PATH=\"$PATH:/sbin:/usr/sbin\" %s -R 'ls -p %s' %s 2>/dev/null",
		 oracle_tool("REF_DEBUGFS", "debugfs"), d->path, img);
	p = popen(cmd, "r");
	if (!p || !got)
		return -1;
	while (getline(&line, &cap, p) > 0) {
		char *f[8], *s = line;
		int k = 0;

		/* fields: "", ino, mode, uid, gid, name, size, "" */
		while (k < 8 && (f[k] = strsep(&s, "/")))
			k++;
		/* debugfs lists unused records (inode 0) too: not names */
		if (k < 7 || !strcmp(f[1], "0") || !strcmp(f[5], ".") || !strcmp(f[5], ".."))
			continue;
		if (ng == gcap && !(got = realloc(got, sizeof(*got) * (gcap *= 2))))
			return -1;
		got[ng++] = strdup(f[5]);
	}
	free(line);
	pclose(p);
	want = malloc(sizeof(*want) * (d->n + 1));
	for (size_t i = 0; i < d->n; i++)
		want[i] = d->names[i];
	rc = oracle_same("debugfs ls", got, ng, want, d->n);
	free(want);
	oracle_free(got, ng);
	return rc;
}

/* The kernel's view of a mounted directory: readdir and stat by path. */
static int oracle_kernel_dir(const char *mnt, const struct oracle_dir *d)
{
	char path[4096];
	size_t ng = 0, gcap = 1024, i;
	char **got = malloc(sizeof(*got) * gcap), **want;
	struct dirent *de;
	struct stat st;
	DIR *dp;
	int rc;

	snprintf(path, sizeof(path), "%s%s", mnt, d->path);
	dp = opendir(path);
	if (!dp || !got) {
		fprintf(stderr, "kernel: cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((de = readdir(dp))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (ng == gcap && !(got = realloc(got, sizeof(*got) * (gcap *= 2))))
			return -1;
		got[ng++] = strdup(de->d_name);
	}
	closedir(dp);
	want = malloc(sizeof(*want) * (d->n + 1));
	for (i = 0; i < d->n; i++)
		want[i] = d->names[i];
	rc = oracle_same("kernel readdir", got, ng, want, d->n);
	oracle_free(got, ng);
	/* lookups by name: every one (up to 2000, spread), then the absent */
	for (i = 0; !rc && i < d->n; i += d->n > 2000 ? d->n / 2000 : 1) {
		snprintf(path, sizeof(path), "%s%s/%s", mnt, d->path, want[i]);
		if (lstat(path, &st)) {
			fprintf(stderr, "kernel: cannot find %s: %s\n", path, strerror(errno));
			rc = -1;
		}
	}
	for (i = 0; !rc && i < d->nabsent; i++) {
		snprintf(path, sizeof(path), "%s%s/%s", mnt, d->path, d->absent[i]);
		if (!lstat(path, &st) || errno != ENOENT) {
			fprintf(stderr, "kernel: %s should not exist\n", path);
			rc = -1;
		}
	}
	free(want);
	return rc;
}

/* Mount img read-only (loop) on a fresh folder, its path in mnt (64
 * bytes): 1 mounted, 0 not applicable (block size above the page size,
 * or not root outside CI: said why), -1 refused or failed. */
static int oracle_mount(const char *img, char *mnt)
{
	char cmd[512];
	int ci = getenv("CI") && !strcmp(getenv("CI"), "true");
	unsigned log_bs = 0;
	FILE *f;

	f = fopen(img, "rb");
	if (!f || fseek(f, 1024 + 24, SEEK_SET) || fread(&log_bs, 4, 1, f) != 1) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	if ((1024L << log_bs) > sysconf(_SC_PAGESIZE)) {
		fprintf(stderr, "kernel check not applicable: block size %ld above the page size\n",
			1024L << log_bs);
		return 0;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "kernel check skipped: loop mounts need root\n");
		return ci ? -1 : 0;
	}
	snprintf(mnt, 64, "/tmp/e4_oracle_mnt.XXXXXX");
	if (!mkdtemp(mnt))
		return -1;
	snprintf(cmd, sizeof(cmd), "mount -t ext4 -o ro,loop %s %s", img, mnt);
	if (system(cmd) != 0) {
		fprintf(stderr, "kernel: mount of %s refused\n", img);
		rmdir(mnt);
		return -1;
	}
	return 1;
}

/* Unmount and remove what oracle_mount() made; 0 or -1. */
static int oracle_umount(const char *mnt)
{
	char cmd[256];
	int rc;

	snprintf(cmd, sizeof(cmd), "umount %s || umount -l %s", mnt, mnt);
	rc = system(cmd);
	rmdir(mnt);
	return rc == 0 ? 0 : -1;
}

/* Mount img read-only (loop) and call judge(mnt, priv); 0 or -1.  Not
 * applicable (0) with a block size above the page size; without root
 * skipped with a message (-1 under CI=true). */
typedef int (*oracle_judge_fn)(const char *mnt, const void *priv);
static int oracle_mounted(const char *img, oracle_judge_fn judge, const void *priv)
{
	char mnt[64];
	int rc = oracle_mount(img, mnt);

	if (rc <= 0)
		return rc;
	rc = judge(mnt, priv);
	if (oracle_umount(mnt))
		rc = -1;
	return rc;
}

struct oracle_dirs {
	const struct oracle_dir *dirs;
	size_t nd;
};

static int oracle_kernel_dirs(const char *mnt, const void *priv)
{
	const struct oracle_dirs *d = priv;
	int rc = 0;

	for (size_t i = 0; i < d->nd && !rc; i++)
		rc = oracle_kernel_dir(mnt, &d->dirs[i]);
	return rc;
}

static int oracle_kernel(const char *img, const struct oracle_dir *dirs, size_t nd)
{
	struct oracle_dirs d = { dirs, nd };

	return oracle_mounted(img, oracle_kernel_dirs, &d);
}

/* All three judges; 0 when every one agrees with the model. */
static inline int oracle_check(const char *img, const struct oracle_dir *dirs, size_t nd)
{
	int rc = oracle_fsck(img);

	for (size_t i = 0; i < nd && !rc; i++)
		rc = oracle_debugfs_ls(img, &dirs[i]);
	if (!rc)
		rc = oracle_kernel(img, dirs, nd);
	return rc;
}

#endif
