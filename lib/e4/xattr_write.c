/*
 * xattr_write.c: setting and removing extended attributes (xattr_write.h;
 * format doc section 9) with the kernel's placement, sharing and
 * reference-count rules (fs/ext4/xattr.c, Linux 6.x).
 *
 * An operation loads the inode's two areas as lists of entries (through
 * the reader, which validates them; xattr_area.c), edits the lists, then
 * commits: the areas are encoded again from the lists, a block that
 * changes is rewritten in place when only this inode uses it and copied
 * otherwise, and every EA inode's reference count moves by the number of
 * areas that started or stopped naming it (xattr_ea.c).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "xattr_int.h"
#include "ops_int.h"

#define REFCOUNT_MAX	1024		/* EXT4_XATTR_REFCOUNT_MAX */
/* Linux: a value whose padded size exceeds this goes to an EA inode at
 * once (EXT4_XATTR_MIN_LARGE_EA_SIZE). */
#define MIN_LARGE(bs)	((bs) - EXT4_XATTR_LEN(3) - E4_XATTR_BLOCK_HDR - 4)
/* Linux, with ea_inode: a value in the block leaves this much below the
 * values for entries (EXT4_XATTR_BLOCK_RESERVE). */
#define BLOCK_RESERVE(bs) ((bs) / 8 < 1024 ? (bs) / 8 : 1024)

/* ---- an operation ------------------------------------------------------ */
struct xw {
	e4_fs *fs;
	e4_ino_t ino;
	union e4_inode_buf *ib;
	e4_blk_t share_blk;		/* opts->share_blk */
	struct e4_xlist in, blk;	/* the areas, edited in place */
	uint32_t *old_in, *old_blk;	/* EA inodes the areas named at load */
	unsigned n_old_in, n_old_blk;
	int in_dirty, blk_dirty;
	uint64_t old_charge;		/* e4_xlist_ea_charge() of both at load */
	e4_blk_t bno;			/* the inode's block at load (0: none) */
	uint32_t refcount;		/* its h_refcount */
	uint8_t *buf;			/* the raw block at load, then a new one */
	e4_blk_t force_share;		/* e4_xattr_block_share(): take this */
	struct e4_xea ea;		/* EA inode work */
};

static void xw_free(struct xw *w)
{
	e4_xlist_free(&w->in);
	e4_xlist_free(&w->blk);
	free(w->old_in);
	free(w->old_blk);
	free(w->buf);
	e4_xea_free(&w->ea);
}

static errcode_t xw_load(struct xw *w, e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib,
			 const struct e4_xattr_opts *opts)
{
	errcode_t err;

	memset(w, 0, sizeof(*w));
	w->fs = fs;
	w->ino = ino;
	w->ib = ib;
	w->ea.fs = fs;
	w->ea.owner = ino;
	w->ea.now = opts ? opts->now : (int64_t)time(NULL);
	w->share_blk = opts ? opts->share_blk : 0;
	if (!(e4_open_flags(fs) & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	w->buf = malloc(2 * (size_t)fs->geom.block_size);
	if (!w->buf)
		return E4_ERR_NO_MEMORY;
	err = e4_xattr_ibody_load(fs, &ib->inode, &w->in);
	w->bno = e4_inode_file_acl(fs, &ib->inode);
	if (!err && w->bno) {
		err = e4_xattr_block_load(fs, w->bno, w->buf, &w->blk);
		w->refcount = e4_le32(((struct ext4_xattr_header *)w->buf)->h_refcount);
	}
	w->old_charge = e4_xlist_ea_charge(fs, &w->in) + e4_xlist_ea_charge(fs, &w->blk);
	if (!err)
		err = e4_xlist_inums(&w->in, &w->old_in, &w->n_old_in);
	if (!err)
		err = e4_xlist_inums(&w->blk, &w->old_blk, &w->n_old_blk);
	return err;
}

static errcode_t refs_add_list(struct xw *w, const struct e4_xlist *l, int64_t d)
{
	errcode_t err = 0;

	for (unsigned i = 0; i < l->n && !err; i++)
		if (l->e[i].inum)
			err = e4_xea_ref_add(&w->ea, l->e[i].inum, d);
	return err;
}

static errcode_t refs_add_array(struct xw *w, const uint32_t *a, unsigned n, int64_t d)
{
	errcode_t err = 0;

	for (unsigned i = 0; i < n && !err; i++)
		err = e4_xea_ref_add(&w->ea, a[i], d);
	return err;
}

/* ---- commit ------------------------------------------------------------ */
enum fate { KEEP, INPLACE, NEWBLK, SHARE, DROP };

/* What happens to the inode's block; *share gets the block to take. */
static errcode_t block_fate(struct xw *w, enum fate *f, e4_blk_t *share, struct e4_xlist *other)
{
	e4_blk_t cand = w->force_share ? w->force_share : w->share_blk;
	errcode_t err;

	*share = 0;
	if (w->force_share) {
		*f = SHARE;
		*share = w->force_share;
		return 0;
	}
	if (!w->blk_dirty) {
		*f = KEEP;
		return 0;
	}
	if (!w->blk.n) {
		*f = w->bno ? DROP : KEEP;
		return 0;
	}
	*f = w->bno && w->refcount <= 1 ? INPLACE : NEWBLK;
	if (!cand || cand == w->bno)
		return 0;
	/* a block the caller named, if it holds the same attributes */
	err = e4_xattr_block_load(w->fs, cand, w->buf + w->fs->geom.block_size, other);
	if (err)
		return err;
	e4_xlist_sort(&w->blk);
	e4_xlist_sort(other);
	if (e4_xlist_equal(&w->blk, other) &&
	    e4_le32(((struct ext4_xattr_header *)(w->buf + w->fs->geom.block_size))->h_refcount) <
		    REFCOUNT_MAX) {
		*f = SHARE;
		*share = cand;
	}
	return 0;
}

/* Count changes: the areas that stop naming EA inodes (released) and
 * those that start (acquired); a shared block keeps its references. */
static errcode_t refs_plan(struct xw *w, enum fate f)
{
	errcode_t err = 0;

	if (w->in_dirty) {
		err = refs_add_array(w, w->old_in, w->n_old_in, -1);
		if (!err)
			err = refs_add_list(w, &w->in, 1);
	}
	if (!err && (f == INPLACE || f == NEWBLK))
		err = refs_add_list(w, &w->blk, 1);
	if (!err && w->bno && w->refcount <= 1 && f != KEEP && f != NEWBLK)
		err = refs_add_array(w, w->old_blk, w->n_old_blk, -1);
	return err;
}

/* Drop this inode's reference to its old block (bno, raw in w->buf). */
static errcode_t block_release(struct xw *w)
{
	struct ext4_xattr_header *h = (struct ext4_xattr_header *)w->buf;

	if (w->refcount <= 1)
		return e4_block_mark(w->fs, w->bno, 1, 0, NULL);
	h->h_refcount = e4_cpu_to_le32(w->refcount - 1);
	return e4_xattr_block_write(w->fs, w->bno, w->buf);
}

/* Write a new or changed block (newblk: the NEWBLK one); *nb gets the
 * inode's block afterwards. */
static errcode_t block_store(struct xw *w, enum fate f, e4_blk_t share, e4_blk_t newblk,
			     e4_blk_t *nb)
{
	e4_fs *fs = w->fs;
	uint8_t *b = w->buf + fs->geom.block_size;
	struct ext4_xattr_header *h = (struct ext4_xattr_header *)b;

	switch (f) {
	case INPLACE:
	case NEWBLK:
		*nb = f == INPLACE ? w->bno : newblk;
		e4_xattr_block_encode(fs, b, &w->blk, 1);
		return e4_xattr_block_write(fs, *nb, b);
	case SHARE:
		*nb = share;
		h->h_refcount = e4_cpu_to_le32(e4_le32(h->h_refcount) + 1);
		return e4_xattr_block_write(fs, share, b);
	case DROP:
		*nb = 0;
		return 0;
	default:
		*nb = w->bno;
		return 0;
	}
}

static errcode_t commit_alloc(struct xw *w, enum fate f, e4_blk_t *newblk)
{
	e4_fs *fs = w->fs;
	errcode_t err = 0;

	*newblk = 0;
	for (unsigned k = 0; k < 2 && !err; k++) {
		struct e4_xlist *l = k ? &w->blk : &w->in;

		for (unsigned i = 0; i < l->n && !err; i++)
			if (l->e[i].new_ea)
				err = e4_xea_create(&w->ea, &w->ib->inode, &l->e[i]);
	}
	if (!err && f == NEWBLK) {
		/* the kernel's goal for an xattr block: the first block of
		 * the inode's group (ext4_xattr_block_set), not the file
		 * data goal */
		e4_blk_t goal = e4_group_first_block(fs, e4_group_of_ino(fs, w->ino));
		uint64_t got;

		err = e4_alloc_blocks(fs, goal, 1, 1, newblk, &got);
		if (err)
			*newblk = 0;
	}
	if (!err)
		err = refs_plan(w, f);
	if (!err)
		err = e4_xea_refs_prepare(&w->ea);
	if (err) {
		e4_xea_undo(&w->ea);
		if (*newblk)
			e4_block_mark(fs, *newblk, 1, 0, NULL);
	}
	return err;
}

/* The entry whose value goes to the new EA inode. */
static const struct e4_xent *new_ea_entry(const struct xw *w)
{
	for (unsigned k = 0; k < 2; k++) {
		const struct e4_xlist *l = k ? &w->blk : &w->in;

		for (unsigned i = 0; i < l->n; i++)
			if (l->e[i].inum == w->ea.ino)
				return &l->e[i];
	}
	return NULL;
}

/*
 * Write the edited lists: new EA inode data, the block, EA inodes gaining
 * references (the new one written there), the owner inode, the old block
 * released, EA inodes losing references (freed at 0).
 */
static errcode_t xw_commit(struct xw *w)
{
	e4_fs *fs = w->fs;
	struct ext4_inode check;
	struct e4_xlist other = { 0 };
	e4_blk_t share, newblk, nb = 0;
	enum fate f;
	uint64_t sectors = e4_inode_blocks(fs, &w->ib->inode), cl = fs->geom.cluster_size / 512;
	errcode_t err;

	err = block_fate(w, &f, &share, &other);
	e4_xlist_free(&other);
	if (err)
		return err;
	if (f == DROP)
		sectors = sectors > cl ? sectors - cl : 0;
	else if (!w->bno && (f == NEWBLK || f == SHARE))
		sectors += cl;
	sectors += e4_xlist_ea_charge(fs, &w->in) + e4_xlist_ea_charge(fs, &w->blk);
	sectors = sectors > w->old_charge ? sectors - w->old_charge : 0;
	check = w->ib->inode;
	err = e4_inode_blocks_set(fs, &check, sectors);
	if (!err)
		err = commit_alloc(w, f, &newblk);
	if (err)
		return err;
	if (w->ea.ino) {
		const struct e4_xent *x = new_ea_entry(w);

		err = e4_xea_write_data(&w->ea, x->value, x->value_len);
	}
	if (!err)
		err = block_store(w, f, share, newblk, &nb);
	if (!err)
		err = e4_xea_refs_apply(&w->ea, 1);
	/* the new block (and EA inode) on disk, marked in use, before the
	 * inode names it (DESIGN.md "Writing safely") */
	if (!err)
		err = e4_ops_barrier(fs);
	if (err)
		return err;
	if (w->in_dirty)
		e4_xattr_ibody_encode(fs, w->ib, &w->in);
	e4_inode_file_acl_set(fs, &w->ib->inode, nb);
	e4_inode_blocks_set(fs, &w->ib->inode, sectors);
	err = e4_inode_write(fs, w->ino, w->ib);
	/* the inode no longer names the old block before it is released */
	if (!err)
		err = e4_ops_barrier(fs);
	if (!err && w->bno && (f == NEWBLK || f == SHARE || f == DROP))
		err = block_release(w);
	if (!err)
		err = e4_xea_refs_apply(&w->ea, 0);
	return err;
}

/* xw_commit() in a not-clean window (e4_ops_begin()): a stop at any write
 * leaves at most leaks on a filesystem marked not clean. */
static errcode_t xw_commit_window(struct xw *w)
{
	errcode_t err = e4_ops_begin(w->fs);

	if (err)
		return err;
	err = xw_commit(w);
	return e4_ops_finish(w->fs, err, 0);
}

/* ---- operations -------------------------------------------------------- */
#define NOTHING_TO_DO	1	/* place(): the value is already there */

static int same_value(const struct e4_xent *e, const void *value, size_t len)
{
	return !e->inum && e->value_len == len && (!len || !memcmp(e->value, value, len));
}

/* A new entry for (index, name) holding a copy of the value. */
static errcode_t ent_make(struct e4_xent *x, uint8_t index, const char *name, size_t name_len,
			  const void *value, size_t value_len)
{
	memset(x, 0, sizeof(*x));
	x->index = index;
	x->name_len = (uint8_t)name_len;
	memcpy(x->name, name, name_len);
	x->value_len = (uint32_t)value_len;
	if (value_len) {
		x->value = malloc(value_len);
		if (!x->value)
			return E4_ERR_NO_MEMORY;
		memcpy(x->value, value, value_len);
	}
	return 0;
}

/* Put x at position pos of l, replacing the entry there when found. */
static errcode_t ent_store(struct e4_xlist *l, int found, unsigned pos, struct e4_xent *x)
{
	if (found >= 0) {
		free(l->e[found].value);
		l->e[found] = *x;
		return 0;
	}
	return e4_xlist_insert(l, pos, x);
}

/* Whether the block would hold the lists with x at fb's place (the
 * kernel's space rules, with ea_inode its reserve below the values). */
static int block_fits(struct xw *w, int fb, const struct e4_xent *x)
{
	size_t bs = w->fs->geom.block_size, cost = e4_xlist_cost(&w->blk) + e4_xent_cost(x);
	size_t vals = e4_xlist_values(&w->blk) + (e4_xent_cost(x) - EXT4_XATTR_LEN(x->name_len));

	if (fb >= 0) {
		cost -= e4_xent_cost(&w->blk.e[fb]);
		vals -= e4_xent_cost(&w->blk.e[fb]) - EXT4_XATTR_LEN(w->blk.e[fb].name_len);
	}
	if (E4_XATTR_BLOCK_HDR + cost > bs)
		return 0;
	return !e4_has_incompat(w->fs, EXT4_FEATURE_INCOMPAT_EA_INODE) || x->new_ea ||
	       !x->value_len || bs - vals >= BLOCK_RESERVE(bs);
}

/* The kernel's placement (ext4_xattr_set_handle): the inode body, else
 * the block, else (ea_inode) an EA inode; a large value goes to an EA
 * inode first.  Edits w's lists; x's value moves into them. */
static errcode_t place(struct xw *w, struct e4_xent *x)
{
	e4_fs *fs = w->fs;
	int sysdata = x->index == EXT4_XATTR_INDEX_SYSTEM && x->name_len == 4 &&
		      !memcmp(x->name, "data", 4);
	int ea_feat = e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EA_INODE);
	int fi = e4_xlist_find(&w->in, x->index, x->name, x->name_len);
	int fb = fi < 0 ? e4_xlist_find(&w->blk, x->index, x->name, x->name_len) : -1;
	size_t room = e4_xattr_ibody_room(fs, &w->ib->inode);

	if ((fi >= 0 && same_value(&w->in.e[fi], x->value, x->value_len)) ||
	    (fb >= 0 && same_value(&w->blk.e[fb], x->value, x->value_len)))
		return NOTHING_TO_DO;
	x->new_ea = ea_feat && !sysdata &&
		    EXT4_XATTR_SIZE((size_t)x->value_len) > MIN_LARGE(fs->geom.block_size);
	for (;;) {
		size_t cost = e4_xlist_cost(&w->in) + e4_xent_cost(x) - (fi >= 0 ? e4_xent_cost(&w->in.e[fi]) : 0);

		if (room && cost <= room) {
			if (fb >= 0) {
				e4_xlist_delete(&w->blk, (unsigned)fb);
				w->blk_dirty = 1;
			}
			w->in_dirty = 1;
			return ent_store(&w->in, fi, w->in.n, x);
		}
		if (sysdata)
			return E4_ERR_NO_SPACE;
		if (block_fits(w, fb, x)) {
			if (fi >= 0) {
				e4_xlist_delete(&w->in, (unsigned)fi);
				w->in_dirty = 1;
			}
			w->blk_dirty = 1;
			return ent_store(&w->blk, fb,
					 e4_xlist_sorted_pos(&w->blk, x->index, x->name, x->name_len), x);
		}
		if (!ea_feat || !x->value_len || x->new_ea)
			return E4_ERR_XATTR_NO_ROOM;
		x->new_ea = 1;
	}
}

/* Mark the ext_attr feature, as the kernel does at the first attribute. */
static void feature_ext_attr(e4_fs *fs)
{
	struct ext4_super_block *sb = e4_super(fs);

	if (e4_has_compat(fs, EXT4_FEATURE_COMPAT_EXT_ATTR))
		return;
	e4_sb_feature_change(sb, E4_FEAT_COMPAT, EXT4_FEATURE_COMPAT_EXT_ATTR, 1);
	fs->sb_dirty = 1;
}

errcode_t e4_xattr_set(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, uint8_t name_index,
		       const char *name, size_t name_len, const void *value, size_t value_len,
		       const struct e4_xattr_opts *opts)
{
	struct e4_xent x;
	struct xw w;
	errcode_t err;

	err = e4_xattr_name_check(name_index, name_len, value_len);
	if (err)
		return err;
	if (!value && value_len)
		return E4_ERR_INVALID_ARGUMENT;
	err = xw_load(&w, fs, ino, ib, opts);
	if (!err)
		err = ent_make(&x, name_index, name, name_len, value, value_len);
	if (!err) {
		err = place(&w, &x);
		if (err)
			free(x.value);
	}
	if (err == NOTHING_TO_DO) {
		err = 0;
	} else if (!err) {
		/* the feature on before an attribute exists (the superblock
		 * goes out with the commit's first ordering point) */
		feature_ext_attr(fs);
		err = xw_commit_window(&w);
	}
	xw_free(&w);
	return err;
}

errcode_t e4_xattr_remove(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, uint8_t name_index,
			  const char *name, size_t name_len, const struct e4_xattr_opts *opts)
{
	struct xw w;
	errcode_t err;
	int f;

	err = e4_xattr_name_check(name_index, name_len, 0);
	if (!err)
		err = xw_load(&w, fs, ino, ib, opts);
	else
		return err;
	if (!err) {
		if ((f = e4_xlist_find(&w.in, name_index, name, name_len)) >= 0) {
			e4_xlist_delete(&w.in, (unsigned)f);
			w.in_dirty = 1;
		} else if ((f = e4_xlist_find(&w.blk, name_index, name, name_len)) >= 0) {
			e4_xlist_delete(&w.blk, (unsigned)f);
			w.blk_dirty = 1;
		} else {
			err = E4_ERR_XATTR_NOT_FOUND;
		}
	}
	if (!err)
		err = xw_commit_window(&w);
	xw_free(&w);
	return err;
}

errcode_t e4_xattr_remove_all(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib,
			      const struct e4_xattr_opts *opts)
{
	struct xw w;
	errcode_t err;

	err = xw_load(&w, fs, ino, ib, opts);
	/* none in the body, no block: nothing to write (no ordering points:
	 * a released inode's truncation and its bit go out together) */
	if (!err && (w.in.n > 0 || w.bno != 0)) {
		w.in_dirty = w.in.n > 0;
		w.blk_dirty = w.bno != 0;
		while (w.in.n)
			e4_xlist_delete(&w.in, w.in.n - 1);
		while (w.blk.n)
			e4_xlist_delete(&w.blk, w.blk.n - 1);
		err = xw_commit_window(&w);
	}
	xw_free(&w);
	return err;
}

errcode_t e4_xattr_block_share(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, e4_blk_t blk,
			       const struct e4_xattr_opts *opts)
{
	struct e4_xlist other = { 0 };
	struct xw w;
	errcode_t err;

	err = xw_load(&w, fs, ino, ib, opts);
	if (!err && blk != w.bno) {
		err = e4_xattr_block_load(fs, blk, w.buf + fs->geom.block_size, &other);
		if (!err && e4_le32(((struct ext4_xattr_header *)(w.buf + fs->geom.block_size))
					     ->h_refcount) >= REFCOUNT_MAX)
			err = E4_ERR_XATTR_SHARE;
		for (unsigned i = 0; !err && i < other.n; i++)
			if (e4_xlist_find(&w.in, other.e[i].index, other.e[i].name,
				      other.e[i].name_len) >= 0)
				err = E4_ERR_XATTR_SHARE;
		if (!err) {
			e4_xlist_free(&w.blk);
			w.blk = other;
			other = (struct e4_xlist){ 0 };
			w.blk_dirty = 1;
			w.force_share = blk;
			err = xw_commit_window(&w);
		}
	}
	e4_xlist_free(&other);
	xw_free(&w);
	return err;
}

errcode_t e4_xattr_ibody_set(e4_fs *fs, union e4_inode_buf *ib, uint8_t name_index,
			     const char *name, size_t name_len, const void *value,
			     size_t value_len)
{
	struct e4_xlist l = { 0 };
	struct e4_xent x;
	errcode_t err;
	int f;

	err = e4_xattr_name_check(name_index, name_len, value_len);
	if (!err)
		err = e4_xattr_ibody_load(fs, &ib->inode, &l);
	if (err)
		goto out;
	f = e4_xlist_find(&l, name_index, name, name_len);
	if (f >= 0 && l.e[f].inum) {
		err = E4_ERR_INVALID_ARGUMENT;	/* EA inode references: e4_xattr_set */
	} else if (!value) {
		if (f < 0)
			err = E4_ERR_XATTR_NOT_FOUND;
		else
			e4_xlist_delete(&l, (unsigned)f);
	} else {
		err = ent_make(&x, name_index, name, name_len, value, value_len);
		if (!err && e4_xlist_cost(&l) + e4_xent_cost(&x) - (f >= 0 ? e4_xent_cost(&l.e[f]) : 0) >
				    e4_xattr_ibody_room(fs, &ib->inode))
			err = E4_ERR_NO_SPACE;
		if (!err)
			err = ent_store(&l, f, l.n, &x);
		if (err)
			free(x.value);
	}
	if (!err)
		e4_xattr_ibody_encode(fs, ib, &l);
out:
	e4_xlist_free(&l);
	return err;
}

