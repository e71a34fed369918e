/*
 * pass3.c: pass 3 of the full check, directory connectivity (dirpass.h).
 *
 * The root first: missing (or an inode holding nothing that is not a
 * directory) it is offered for allocation, as the reference does; a root
 * that holds data but is not a directory is said and left (the check
 * cannot go on).  Then every directory is followed up its parents (the
 * first directory whose entry names it, from pass 2) until the root or
 * a directory already known to be connected: one without a parent is
 * unconnected, one whose parent is among the directories just walked is
 * in a loop -- both offered for connection to /lost+found (a loop is cut
 * there: the entry closing it is removed, so the directory keeps one
 * name).  Each directory's '..' is then compared with its parent and
 * rewritten.  Last, when the check may write, /lost+found is made if it
 * is missing, as the reference does.  Changes: lost_found.c.
 *
 * Where this differs from the reference (e2fsprogs 1.47): it finds loops
 * of any length (the reference only past 2048 levels; shorter loops are
 * left unreachable from the root and called clean); after a no to
 * "Connect", '..' is not compared with a parent that does not exist.
 */
#include "pass34.h"

#include <stdio.h>
#include <string.h>

struct p3 {
	struct pass1 *p;
	struct e4_bmap *done;	/* directories known connected (or offered) */
	struct e4_bmap *path;	/* the walk under way */
};	/* (both held in p->p3_done, p->p3_path too: a stop frees them) */

/* A root the check can make anew: not in use, or in use holding nothing
 * (no blocks, size 0). */
static errcode_t root_replaceable(struct pass1 *p, int *yes, uint16_t *mode)
{
	union e4_inode_buf ib;
	errcode_t err;

	*yes = 1;
	*mode = 0;
	if (!p34_in_use(p, EXT4_ROOT_INO))
		return 0;
	err = e4_inode_read(p->fs, EXT4_ROOT_INO, &ib);
	if (err && err != E4_ERR_INODE_CSUM)
		return err;
	*mode = e4_le16(ib.inode.i_mode);
	*yes = !ib.inode.i_blocks_lo && !ib.inode.i_size_lo && !ib.inode.i_size_high &&
	       !(e4_le32(ib.inode.i_flags) & EXT4_INLINE_DATA_FL);
	return 0;
}

/* A new empty root directory (mode 040755, '.' and '..'), in the maps. */
static errcode_t make_root(struct pass1 *p)
{
	struct e4_time now = { p->ctx->now, 0 };
	union e4_inode_buf ib;
	e4_group_t g = e4_group_of_ino(p->fs, EXT4_ROOT_INO);
	uint32_t links;
	errcode_t err;

	/* the block first, the inode naming it written once after it (a
	 * stop between leaves a leak, never a root without its block); its
	 * count takes in the entries already naming inode 2 (the '..' of
	 * the directories it held: reconnecting them moves it down), so a
	 * stop never leaves it fewer links than names */
	links = links_counted(p->links, EXT4_ROOT_INO) + 2;
	if (links > E4_LINK_MAX)
		links = 1;
	err = p34_write_begin(p);
	if (!err)
		err = e4_inode_init(p->fs, EXT4_ROOT_INO, EXT4_S_IFDIR | 0755, 0, 0, &now, 0, &ib);
	if (!err)
		ib.inode.i_links_count = e4_cpu_to_le16((uint16_t)links);
	if (!err)
		err = e4_inode_mark(p->fs, EXT4_ROOT_INO, 1, 1, NULL);
	if (!err)
		err = e4_dir_build_inode(p->fs, EXT4_ROOT_INO, &ib, EXT4_ROOT_INO, NULL, 0, 0, 0);
	if (!err)
		err = e4_order_point(p->fs);
	if (!err)
		err = e4_bmap_set(p->inodes, EXT4_ROOT_INO);
	if (!err)
		err = e4_bmap_clear(p->regs, EXT4_ROOT_INO);
	if (!err)
		err = dirs_add(&p->dirinfo, EXT4_ROOT_INO);
	if (err)
		return err;
	dirs_find(&p->dirinfo, EXT4_ROOT_INO)->dotdot = EXT4_ROOT_INO;
	if (g < p->geo->group_count)
		p->dirs[g]++;
	err = links_set_stored(p->links, EXT4_ROOT_INO, links);
	if (!err)
		err = links_set_counted(p->links, EXT4_ROOT_INO, links_counted(p->links, EXT4_ROOT_INO) + 2);
	return err;
}

/* The root: *go = 0 when the pass cannot go on (said). */
static errcode_t check_root(struct pass1 *p, int *go)
{
	struct problem_ctx pctx = { 0 };
	uint16_t mode;
	int yes;
	errcode_t err;

	*go = 1;
	if (dirs_find(&p->dirinfo, EXT4_ROOT_INO))
		return 0;
	err = root_replaceable(p, &yes, &mode);
	if (err)
		return err;
	pctx.ino = EXT4_ROOT_INO;
	pctx.num = mode;
	if (!yes) {
		fix_problem(p->ctx, PR_3_ROOT_NOT_DIR, &pctx);
		*go = 0;
		return 0;
	}
	if (!fix_problem(p->ctx, PR_3_NO_ROOT, &pctx)) {
		fix_problem(p->ctx, PR_3_NO_ROOT_STOP, &pctx);
		*go = 0;
		return 0;
	}
	return make_root(p);
}

/* Cut the loop at ino: remove the entry of parent naming it (one name
 * less for ino). */
static errcode_t cut_loop(struct pass1 *p, e4_ino_t ino, e4_ino_t parent)
{
	char name[EXT4_NAME_LEN + 1];
	size_t len = p34_entry_name(p, parent, ino, name);
	struct problem_ctx pctx = { 0 };
	errcode_t err;

	err = len ? p34_write_begin(p) : E4_ERR_NOT_FOUND;
	if (!err)
		err = e4_dir_remove(p->fs, parent, name, len, NULL, NULL);
	if (!err)	/* the entry gone before the new one is written */
		err = e4_order_point(p->fs);
	if (err && !p34_refusal(err))
		return err;
	if (err) {	/* the entry stays: the directory keeps two names */
		pctx.ino = ino;
		pctx.dir = parent;
		pctx.err = err;
		fix_problem(p->ctx, PR_3_LOOP_CUT_ERROR, &pctx);
		return 0;
	}
	err = links_dec(p->links, ino);
	if (!err)
		err = p34_adjust_stored(p, ino, -1);
	return err;
}

/* Directory ino is unconnected (parent 0) or closes a loop (parent on
 * the walk): offer it to lost+found. */
static errcode_t connect_dir(struct pass1 *p, struct dir_info *di)
{
	struct problem_ctx pctx = { 0 };
	e4_ino_t ino = di->ino, parent = di->parent;
	e4_ino_t lpf;
	char path[P34_PATH_MAX];
	int done;
	errcode_t err;

	pctx.ino = ino;
	pctx.dir = parent ? parent : di->dotdot;
	p34_path(p, pctx.dir, path, sizeof(path));
	pctx.str = path;
	if (p->maps_unsure) {	/* nothing can be allocated (pass34.h) */
		fix_problem(p->ctx, PR_3_CONNECT_MAPS_UNSURE, &pctx);
		return 0;
	}
	if (!fix_problem(p->ctx, parent ? PR_3_LOOPED_DIR : PR_3_UNCONNECTED_DIR, &pctx))
		return 0;
	/* lost+found first: a loop is cut only when it can be mended */
	err = p34_lost_found(p, 1, &lpf);
	if (!err && lpf && parent)
		err = cut_loop(p, ino, parent);
	if (!err)
		err = p34_reconnect(p, ino, &done);
	if (!err && done)
		err = p34_fix_dotdot(p, ino, lpf);
	return err;
}

/* Walk from directory dir up its parents; then its '..'. */
static errcode_t check_dir(struct p3 *s, e4_ino_t dir)
{
	struct pass1 *p = s->p;
	struct problem_ctx pctx = { 0 };
	struct dir_info *di;
	e4_ino_t ino = dir, x;
	char path[P34_PATH_MAX], is[P34_PATH_MAX], want[P34_PATH_MAX];
	char both[2 * P34_PATH_MAX + 48];
	errcode_t err = 0;

	for (;;) {
		if (e4_bmap_test(s->done, ino))
			break;
		err = e4_bmap_set(s->done, ino);
		if (!err)
			err = e4_bmap_set(s->path, ino);
		di = dirs_find(&p->dirinfo, ino);
		if (err || !di)
			break;
		if (!di->parent || e4_bmap_test(s->path, di->parent) ||
		    !dirs_find(&p->dirinfo, di->parent)) {
			if (di->parent && !dirs_find(&p->dirinfo, di->parent))
				di->parent = 0;
			err = connect_dir(p, di);
			break;
		}
		ino = di->parent;
	}
	/* the walk's marks off again */
	for (x = dir; x && e4_bmap_test(s->path, x);) {
		e4_bmap_clear(s->path, x);
		di = dirs_find(&p->dirinfo, x);
		x = di ? di->parent : 0;
	}
	if (err)
		return err;
	di = dirs_find(&p->dirinfo, dir);
	if (!di || !di->parent || di->dotdot == di->parent)
		return 0;
	pctx.ino = dir;
	pctx.dir = di->dotdot;
	pctx.num = x = di->parent;
	p34_path(p, dir, path, sizeof(path));
	p34_path(p, pctx.dir, is, sizeof(is));
	p34_path(p, x, want, sizeof(want));
	snprintf(both, sizeof(both), "%s (%u), should be %s (%u)", is, (unsigned)pctx.dir, want,
		 (unsigned)x);
	pctx.str = path;
	pctx.str2 = both;
	if (!fix_problem(p->ctx, PR_3_BAD_DOTDOT, &pctx))
		return 0;
	return p34_fix_dotdot(p, dir, x);
}

static errcode_t connectivity(struct p3 *s)
{
	struct pass1 *p = s->p;
	uint64_t end = (uint64_t)p->geo->inodes_count + 1;
	size_t i;
	e4_ino_t ino;
	errcode_t err;

	err = e4_bmap_create(E4_BMAP_RUNS, 1, end, &p->p3_done);
	if (!err)
		err = e4_bmap_create(E4_BMAP_RUNS, 1, end, &p->p3_path);
	s->done = p->p3_done;
	s->path = p->p3_path;
	if (!err)
		err = e4_bmap_set(s->done, EXT4_ROOT_INO);
	/* by inode number: lost+found made on the way moves the array */
	for (i = 0; !err && i < p->dirinfo.n; i++) {
		ino = p->dirinfo.v[i].ino;
		err = check_dir(s, ino);
		while (i < p->dirinfo.n && p->dirinfo.v[i].ino != ino)
			i++;
	}
	return err;
}

errcode_t e4fsck_pass3(struct e4fsck *ctx, struct pass1 *p)
{
	struct p3 s = { p, NULL, NULL };
	e4_ino_t lpf;
	int go;
	errcode_t err;

	fix_problem(ctx, PR_3_PASS_HEADER, NULL);
	err = check_root(p, &go);
	if (!err && go)
		err = connectivity(&s);
	/* lost+found made when missing, as the reference does, unless -n */
	if (!err && go && !ctx->read_only)
		err = p34_lost_found(p, 1, &lpf);
	p34_write_end(p);
	e4_bmap_free(p->p3_done);
	e4_bmap_free(p->p3_path);
	p->p3_done = p->p3_path = NULL;
	e4fsck_problem_summary(ctx);
	if (err) {
		e4fsck_fail_msg(ctx, err, "in pass 3");
		return err;
	}
	if (go)
		p->ran |= E4FSCK_RAN_PASS3;
	return 0;
}
