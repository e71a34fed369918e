/*
 * lost_found.c: what passes 3 and 4 change (pass34.h): lost+found,
 * reconnections, '..', stored link counts.
 */
#include "pass34.h"

#include <stdio.h>
#include <string.h>

#define LPF_NAME	"lost+found"
#define LPF_LEN		10

errcode_t p34_write_begin(struct pass1 *p)
{
	struct e4_time t = { p->ctx->now, 0 };
	errcode_t err;

	if (p->writing)
		return 0;
	err = e4_alloc_set_maps(p->fs, p->inuse, p->inodes);
	if (!err && !p->window)
		err = e4_ops_begin(p->fs);
	if (err) {
		e4_alloc_set_maps(p->fs, NULL, NULL);
		return err;
	}
	e4_fs_clock_set(p->fs, &t);
	p->writing = p->window = 1;
	return 0;
}

void p34_write_end(struct pass1 *p)
{
	if (!p->writing)
		return;
	p->writing = 0;
	e4_fs_clock_set(p->fs, NULL);
	e4_alloc_set_maps(p->fs, NULL, NULL);
}

errcode_t p34_window_close(struct pass1 *p)
{
	if (!p->window)
		return 0;
	p->window = 0;
	return e4_ops_end(p->fs);
}

errcode_t p34_adjust_stored(struct pass1 *p, e4_ino_t ino, int adj)
{
	union e4_inode_buf ib;
	uint32_t v;
	errcode_t err;

	if (!p34_in_use(p, ino))
		return 0;
	err = e4_inode_read(p->fs, ino, &ib);
	if (err && err != E4_ERR_INODE_CSUM)
		return err;
	v = e4_le16(ib.inode.i_links_count);
	if ((adj > 0 && v == 0xffff) || (adj < 0 && v == 0))
		return 0;
	v = adj > 0 ? v + 1 : v - 1;
	ib.inode.i_links_count = e4_cpu_to_le16((uint16_t)v);
	err = p34_write_begin(p);
	if (!err)
		err = e4_inode_write(p->fs, ino, &ib);
	if (!err)	/* each step reaches the device in order */
		err = e4_order_point(p->fs);
	if (!err)
		err = links_set_stored(p->links, ino, v);
	return err;
}

/* An error the directory writers give for what they cannot change
 * (damage, no space, a full index): said and left; others (reads,
 * writes, memory) stop the pass. */
int p34_refusal(errcode_t err)
{
	static const errcode_t refusals[] = {
		E4_ERR_NO_SPACE, E4_ERR_DIR_CORRUPT, E4_ERR_BAD_REC_LEN, E4_ERR_DIR_CSUM,
		E4_ERR_DIR_NO_CSUM_TAIL, E4_ERR_HTREE_CORRUPT, E4_ERR_HTREE_CSUM,
		E4_ERR_DIR_INDEX_FULL, E4_ERR_FILE_TOO_BIG, E4_ERR_UNSUPPORTED, E4_ERR_EXISTS,
		E4_ERR_INLINE_DATA, E4_ERR_NOT_DIR, E4_ERR_NOT_FOUND, E4_ERR_BAD_HASH_VERSION,
		E4_ERR_TOO_MANY_LINKS, E4_ERR_INVALID_ARGUMENT, E4_ERR_INODE_CSUM,
	};
	size_t i;

	for (i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++)
		if (err == refusals[i])
			return 1;
	return 0;
}

/* Make lost+found under the root: mode 040700, one block ('.' and '..';
 * an inline directory from the mkdir is expanded to a block, as the
 * reference wants lost+found). */
static errcode_t make_lpf(struct pass1 *p, e4_ino_t *ret)
{
	struct e4_op_attr attr;
	struct problem_ctx pctx = { 0 };
	union e4_inode_buf ib;
	struct dir_info *di;
	e4_ino_t ino = 0;
	errcode_t err;

	memset(&attr, 0, sizeof(attr));
	attr.perm = 0700;
	attr.now.sec = p->ctx->now;
	err = p34_write_begin(p);
	if (!err)
		err = e4_op_mkdir(p->fs, EXT4_ROOT_INO, LPF_NAME, LPF_LEN, &attr, &ino);
	if (!err)
		err = e4_inode_read(p->fs, ino, &ib);
	if (!err && (e4_le32(ib.inode.i_flags) & EXT4_INLINE_DATA_FL))
		err = e4_dir_expand(p->fs, ino);
	if (err && !ino && p34_refusal(err)) {
		pctx.err = err;
		fix_problem(p->ctx, PR_3_LPF_ERROR, &pctx);
		return 0;
	}
	if (err)
		return err;
	/* the maps and counts as the new directory makes them */
	if (e4_group_of_ino(p->fs, ino) < p->geo->group_count)
		p->dirs[e4_group_of_ino(p->fs, ino)]++;
	err = dirs_add(&p->dirinfo, ino);
	if (err)
		return err;
	di = dirs_find(&p->dirinfo, ino);
	di->dotdot = di->parent = EXT4_ROOT_INO;
	err = links_set_stored(p->links, ino, 2);
	if (!err)
		err = links_set_counted(p->links, ino, 2);
	if (!err)
		err = links_inc(p->links, EXT4_ROOT_INO);
	if (!err)
		err = e4_inode_read(p->fs, EXT4_ROOT_INO, &ib);
	if (!err)
		err = links_set_stored(p->links, EXT4_ROOT_INO, e4_le16(ib.inode.i_links_count));
	if (!err)
		err = e4_bmap_set(p->inodes, ino);
	*ret = ino;
	return err;
}

/* lost+found names ino, not a directory: unlink the entry (ino then has
 * one name less; pass 4 reconnects it if that was its last). */
static errcode_t lpf_not_dir(struct pass1 *p, e4_ino_t ino, int *unlinked)
{
	struct problem_ctx pctx = { 0 };
	errcode_t err;

	*unlinked = 0;
	pctx.ino = ino;
	if (!fix_problem(p->ctx, PR_3_LPF_NOT_DIR, &pctx))
		return 0;
	err = p34_write_begin(p);
	if (!err)
		err = e4_dir_remove(p->fs, EXT4_ROOT_INO, LPF_NAME, LPF_LEN, NULL, NULL);
	if (!err)
		err = e4_order_point(p->fs);
	if (err && p34_refusal(err)) {
		pctx.err = err;
		fix_problem(p->ctx, PR_3_LPF_ERROR, &pctx);
		return 0;
	}
	if (!err && p34_in_use(p, ino)) {
		err = links_dec(p->links, ino);
		if (!err)
			err = p34_adjust_stored(p, ino, -1);
	}
	*unlinked = !err;
	return err;
}

errcode_t p34_lost_found(struct pass1 *p, int create, e4_ino_t *ret)
{
	e4_ino_t ino = 0;
	uint8_t ft;
	int unlinked;
	errcode_t err;

	*ret = 0;
	if (p->lpf && dirs_find(&p->dirinfo, p->lpf)) {
		*ret = p->lpf;
		return 0;
	}
	if (p->lpf_failed || !dirs_find(&p->dirinfo, EXT4_ROOT_INO))
		return 0;
	err = e4_dir_lookup(p->fs, EXT4_ROOT_INO, LPF_NAME, LPF_LEN, &ino, &ft);
	if (!err && dirs_find(&p->dirinfo, ino)) {
		*ret = p->lpf = ino;
		return 0;
	}
	if (!err) {
		/* an entry naming something else */
		err = lpf_not_dir(p, ino, &unlinked);
		if (err)
			return err;
		if (!unlinked) {
			p->lpf_failed = 1;
			return 0;
		}
	} else if (err != E4_ERR_NOT_FOUND && !p34_refusal(err)) {
		return err;
	}
	/* nothing is allocated while pass 1's maps are unsure: pass 5 would
	 * not write them, leaving what was allocated marked free */
	if (!create || p->maps_unsure)
		return 0;
	if (!fix_problem(p->ctx, PR_3_NO_LPF, NULL)) {
		p->lpf_failed = 1;
		return 0;
	}
	err = make_lpf(p, &ino);
	if (err)
		return err;
	p->lpf = ino;
	p->lpf_failed = !ino;
	*ret = ino;
	return 0;
}

errcode_t p34_reconnect(struct pass1 *p, e4_ino_t ino, int *done)
{
	struct problem_ctx pctx = { 0 };
	struct dir_info *di;
	char name[16];
	e4_ino_t lpf;
	uint32_t before;
	int room = 1;
	errcode_t err;

	*done = 0;
	pctx.ino = ino;
	if (p->maps_unsure) {	/* the entry might need a block: see above */
		fix_problem(p->ctx, PR_3_CONNECT_MAPS_UNSURE, &pctx);
		return 0;
	}
	err = p34_lost_found(p, 1, &lpf);
	if (err)
		return err;
	if (!lpf) {
		fix_problem(p->ctx, PR_3_NO_LPF_CONNECT, &pctx);
		return 0;
	}
	snprintf(name, sizeof(name), "#%u", (unsigned)ino);
	/* a full lost+found grows by a block only when the user agrees (as
	 * the reference asks; -p stops there) */
	err = e4_dir_has_room(p->fs, lpf, strlen(name), &room);
	if (err && !p34_refusal(err))
		return err;
	pctx.dir = lpf;
	if (!err && !room && !fix_problem(p->ctx, PR_3_EXPAND_LPF, &pctx)) {
		fix_problem(p->ctx, PR_3_NO_ROOM_LEFT, &pctx);
		return 0;
	}
	/* the stored count first: a stop leaves one link too many, never
	 * an entry the count does not cover */
	before = links_stored(p->links, ino);
	err = p34_write_begin(p);
	if (!err)
		err = p34_adjust_stored(p, ino, 1);
	if (!err)
		err = e4_op_link(p->fs, lpf, name, strlen(name), ino, E4_OP_ENTRY_ONLY);
	if (err && p34_refusal(err)) {
		pctx.err = err;
		pctx.dir = lpf;
		fix_problem(p->ctx, PR_3_CONNECT_ERROR, &pctx);
		return links_stored(p->links, ino) != before ? p34_adjust_stored(p, ino, -1) : 0;
	}
	if (!err)
		err = links_inc(p->links, ino);
	if (err)
		return err;
	di = dirs_find(&p->dirinfo, ino);
	if (di)
		di->parent = lpf;
	*done = 1;
	return 0;
}

errcode_t p34_fix_dotdot(struct pass1 *p, e4_ino_t dir, e4_ino_t parent)
{
	struct problem_ctx pctx = { 0 };
	struct dir_info *di = dirs_find(&p->dirinfo, dir);
	e4_ino_t old = 0, known = di ? di->dotdot : 0;
	uint32_t before;
	errcode_t err;

	/* the new target's stored count first, the old one's last */
	before = links_stored(p->links, parent);
	err = p34_write_begin(p);
	if (!err)
		err = p34_adjust_stored(p, parent, 1);
	if (!err)
		err = e4_dir_set_entry(p->fs, dir, "..", 2, parent, EXT4_FT_DIR, &old);
	if (!err)
		err = e4_order_point(p->fs);
	if (err && p34_refusal(err)) {
		pctx.ino = dir;
		pctx.dir = parent;
		pctx.err = err;
		fix_problem(p->ctx, PR_3_DOTDOT_ERROR, &pctx);
		return links_stored(p->links, parent) != before ? p34_adjust_stored(p, parent, -1) : 0;
	}
	/* the old target loses the link pass 2 counted (none when the '..'
	 * named an inode since replaced: a new root), and its stored count
	 * with it, but never below the names left: a count already short
	 * (the entry rewritten was the one it missed) stays for pass 4, so
	 * a stop never leaves fewer links than names than it found */
	if (!err && old && old == known && p34_in_use(p, old)) {
		err = links_dec(p->links, old);
		if (!err && links_stored(p->links, old) > links_counted(p->links, old))
			err = p34_adjust_stored(p, old, -1);
	}
	if (!err)
		err = links_inc(p->links, parent);
	di = dirs_find(&p->dirinfo, dir);
	if (!err && di)
		di->dotdot = parent;
	return err;
}

struct find_name {
	e4_ino_t ino;
	char *name;
	size_t len;
};

static int find_name_cb(const struct e4_dirent *d, void *priv)
{
	struct find_name *f = priv;

	if (d->inode != f->ino)
		return 0;
	memcpy(f->name, d->name, d->name_len);
	f->name[d->name_len] = 0;
	f->len = d->name_len;
	return 1;
}

size_t p34_entry_name(struct pass1 *p, e4_ino_t dir, e4_ino_t ino, char *name)
{
	struct find_name f = { ino, name, 0 };

	name[0] = 0;
	(void)e4_dir_iterate(p->fs, dir, E4_DIR_NO_DOTS, find_name_cb, &f);
	return f.len;
}

void p34_path(struct pass1 *p, e4_ino_t ino, char *buf, size_t len)
{
	char names[33][EXT4_NAME_LEN + 1];
	struct dir_info *di;
	e4_ino_t cur = ino, seen[32];
	size_t n = 0, used = 0, k;
	int more = 0;

	if (ino == EXT4_ROOT_INO || !dirs_find(&p->dirinfo, ino)) {
		snprintf(buf, len, ino == EXT4_ROOT_INO ? "/" : "<inode %u>", (unsigned)ino);
		return;
	}
	while (cur != EXT4_ROOT_INO) {
		if (n == 32) {
			more = 1;
			break;
		}
		for (k = 0; k < n && seen[k] != cur; k++)
			;
		if (k < n) {	/* a loop: its top has no name the root gives */
			snprintf(names[n++], sizeof(names[0]), "???");
			break;
		}
		seen[n] = cur;
		di = dirs_find(&p->dirinfo, cur);
		if (!di || !di->parent || !p34_entry_name(p, di->parent, cur, names[n]))
			snprintf(names[n], sizeof(names[n]), "???");
		n++;
		if (!di || !di->parent)
			break;
		cur = di->parent;
	}
	buf[0] = 0;
	if (more)
		used = (size_t)snprintf(buf, len, "/...");
	while (n-- && used < len)
		used += (size_t)snprintf(buf + used, len - used, "/%s", names[n]);
}
