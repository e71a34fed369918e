/*
 * unit_images.h: scratch images made by mke2fs (REF_MKE2FS or PATH) for
 * unit tests that need an opened filesystem.  Header-only: each unit test
 * is one program.  A test whose images could not be made skips.
 */
#ifndef UNIT_IMAGES_H
#define UNIT_IMAGES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define UNIT_IMAGES_MAX	24

struct unit_images {
	char dir[64];
	char path[UNIT_IMAGES_MAX][128];
	int n;
	int ok;			/* every image was made */
};

/* A fresh scratch folder /tmp/e4_<tag>.XXXXXX; 0 or -1. */
static inline int unit_images_init(struct unit_images *u, const char *tag)
{
	memset(u, 0, sizeof(*u));
	snprintf(u->dir, sizeof(u->dir), "/tmp/e4_%s.XXXXXX", tag);
	if (!mkdtemp(u->dir))
		return -1;
	u->ok = 1;
	return 0;
}

/* Make image name (size, e.g. "1M") with mke2fs options opts; returns its
 * path (u->ok cleared when mke2fs failed or is missing). */
static inline const char *unit_image_add(struct unit_images *u, const char *name,
					 const char *opts, const char *size)
{
	const char *mkfs = getenv("REF_MKE2FS");
	char cmd[512], path[sizeof(u->path[0])];
	char *p;

	if (u->n == UNIT_IMAGES_MAX) {
		u->ok = 0;
		return "";
	}
	snprintf(path, sizeof(path), "%s/%s", u->dir, name);
	p = strcpy(u->path[u->n++], path);
	snprintf(cmd, sizeof(cmd), "PATH=\"$PATH:/sbin:/usr/sbin\" %s -q -F %s %s %s >/dev/null 2>&1",
		 mkfs ? mkfs : "mke2fs", opts, p, size);
	if (system(cmd) != 0)
		u->ok = 0;
	return p;
}

/* Remove the images, then the folder; 0 or -1. */
static inline int unit_images_remove(struct unit_images *u)
{
	int i;

	for (i = 0; i < u->n; i++)
		unlink(u->path[i]);
	return u->dir[0] ? rmdir(u->dir) : 0;
}

#endif
