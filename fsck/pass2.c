/*
 * pass2.c: a STAND-IN for pass 2 (dirpass.h), for branch pass34 only:
 * the lead replaces this file with the real pass 2 at the merge.
 *
 * It checks nothing: for every directory pass 1 found, it walks the
 * entries with the library (e4_dir_iterate), records '..' and the first
 * directory whose ordinary entry names each directory, and counts the
 * entries naming each in-use inode ('.' and '..' included), so that
 * passes 3 and 4 have the input dirinfo.h promises.  Entries naming an
 * inode out of range or not in use are skipped.
 */
#include "dirpass.h"

#include <string.h>

struct p2_walk {
	struct pass1 *p;
	e4_ino_t dir;
	errcode_t err;
};

static int p2_entry(const struct e4_dirent *d, void *priv)
{
	struct p2_walk *w = priv;
	struct pass1 *p = w->p;
	struct dir_info *di;

	if (d->inode < 1 || d->inode > p->geo->inodes_count || !e4_bmap_test(p->inodes, d->inode))
		return 0;
	w->err = links_inc(p->links, d->inode);
	if (w->err)
		return 1;
	if (d->name_len == 2 && !memcmp(d->name, "..", 2)) {
		di = dirs_find(&p->dirinfo, w->dir);
		if (di && !di->dotdot)
			di->dotdot = d->inode;
		return 0;
	}
	if (d->name_len == 1 && d->name[0] == '.')
		return 0;
	di = dirs_find(&p->dirinfo, d->inode);
	if (di && !di->parent)
		di->parent = w->dir;
	return 0;
}

errcode_t e4fsck_pass2(struct e4fsck *ctx, struct pass1 *p)
{
	struct p2_walk w = { p, 0, 0 };
	size_t i;

	(void)ctx;
	for (i = 0; i < p->dirinfo.n && !w.err; i++) {
		w.dir = p->dirinfo.v[i].ino;
		(void)e4_dir_iterate(p->fs, w.dir, 0, p2_entry, &w);
	}
	if (w.err)
		return w.err;
	p->ran |= E4FSCK_RAN_PASS2;
	return 0;
}
