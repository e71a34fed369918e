/*
 * pass1_xattr_hash.c: the hashes of extended attributes (issue 15; format
 * doc 9.2), computed by the library (e4_xattr_hashes()).
 *
 * Each entry's e_hash is compared with what its name and value give (for
 * a value kept in an EA inode: its name and the crc32c of that value);
 * both the unsigned and the signed-char forms are accepted, and an
 * in-inode entry whose value is in place may keep 0 (what the kernel
 * writes there).  A wrong entry hash is rewritten, the value kept (the
 * reference e2fsck 1.47.0 clears every attribute of the area instead).
 *
 * An EA inode keeps its value's hash in i_atime; the kernel refuses a
 * value whose crc32c differs from it.  The entry naming the EA inode
 * witnesses which side is wrong: when the entry agrees with the value,
 * the kept hash is what was damaged and it is set after the scan (pass
 * 1's scan may still hold that inode's old image); when the entry agrees
 * with the kept hash, the value changed behind it: said and left (a new
 * hash would bless damaged data; the reference does not look).  An old
 * Lustre EA inode keeps no hash: nothing is compared.
 */
#include "pass1.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One area's walk. */
struct xh {
	struct pass1 *p;
	e4_ino_t ino;
	uint32_t gen;			/* its i_generation */
	union e4_inode_buf *ib;		/* the inode's image (in-inode entries) */
	int changed;			/* an in-inode entry hash was rewritten */
	int said;
	/* block entries to rewrite once the walk is over */
	struct xh_fix { struct e4_xattr x; uint32_t hash; } *fix;
	size_t nfix, capfix;
};

/* Note that EA inode ino's kept hash is to become hash (once per inode). */
static int note_ea_hash(struct pass1 *p, e4_ino_t ino, uint32_t stored, uint32_t hash)
{
	for (size_t k = 0; k < p->neahash; k++)
		if (p->eahash[k].ino == ino)
			return 0;
	if (p1_grow((void **)&p->eahash, &p->capeahash, p->neahash, sizeof(*p->eahash)))
		return 1;
	p->eahash[p->neahash].ino = ino;
	p->eahash[p->neahash].stored = stored;
	p->eahash[p->neahash++].hash = hash;
	return 0;
}

static int entry_ok(const struct e4_xattr *x, uint32_t h, uint32_t hs)
{
	return x->e_hash == h || x->e_hash == hs;
}

static int check_entry(e4_fs *fs, const struct e4_xattr *xa, void *priv)
{
	struct xh *w = priv;
	struct pass1 *p = w->p;
	struct problem_ctx pctx = { 0 };
	struct e4_xattr_hashes h;
	struct e4_xattr xo = *xa, *x = &xo;
	char name[320];
	errcode_t err;

	/* a block's walk knows no owner: the inode that named it (an old
	 * Lustre EA inode points back to it) */
	x->owner = w->ino;
	x->owner_generation = w->gen;
	err = e4_xattr_hashes(fs, x, &h);
	if (err == E4_ERR_NO_MEMORY) {
		p->err = err;
		return 1;
	}
	/* an EA inode that cannot be used is not the hashes' business */
	if (err || h.lustre)
		return 0;
	snprintf(name, sizeof(name), "%s%s", x->prefix, x->name);
	pctx.ino = w->ino;
	pctx.str = name;
	if (h.ea && h.ea_stored != h.ea_value) {
		if (!entry_ok(x, h.entry, h.entry_signed)) {
			/* the entry agrees with the kept hash (the value
			 * changed), or with neither: which is right is unknown */
			pctx.num = x->value_inum;
			pctx.num2 = h.ea_stored;
			pctx.str2 = entry_ok(x, h.entry_kept, h.entry_kept_signed) ? "its entry agrees with the kept hash" :
				    "its entry agrees with neither";
			w->said = 1;
			fix_problem(p->ctx, PR_1_EA_INODE_VALUE, &pctx);
			return 0;
		}
		if (note_ea_hash(p, x->value_inum, h.ea_stored, h.ea_value)) {
			p->err = E4_ERR_NO_MEMORY;
			return 1;
		}
		return 0;
	}
	if (entry_ok(x, h.entry, h.entry_signed) || (x->in_inode && !x->value_inum && !x->e_hash))
		return 0;
	pctx.num = x->e_hash;
	pctx.num2 = h.entry;
	w->said = 1;
	if (!fix_problem(p->ctx, PR_1_XATTR_HASH, &pctx) || p->ctx->read_only)
		return 0;
	if (x->in_inode) {
		if (!e4_xattr_entry_hash_set(fs, w->ib, 0, x, h.entry))
			w->changed = 1;
		return 0;
	}
	if (p1_grow((void **)&w->fix, &w->capfix, w->nfix, sizeof(*w->fix))) {
		p->err = E4_ERR_NO_MEMORY;
		return 1;
	}
	w->fix[w->nfix].x = *x;
	w->fix[w->nfix].x.value = NULL;		/* valid in the walk only */
	w->fix[w->nfix++].hash = h.entry;
	return 0;
}

int p1_xattr_hashes_ibody(struct pass1 *p, e4_ino_t ino, union e4_inode_buf *ib, int *changed)
{
	struct xh w = { .p = p, .ino = ino, .ib = ib, .gen = e4_le32(ib->inode.i_generation) };

	/* the area was judged sound by the caller */
	e4_xattr_ibody_iterate(p->fs, ino, &ib->inode, check_entry, &w);
	*changed = w.changed;
	return w.said;
}

int p1_xattr_hashes_block(struct pass1 *p, e4_ino_t ino, const struct ext4_inode *in,
			  e4_blk_t blk)
{
	struct xh w = { .p = p, .ino = ino, .gen = e4_le32(in->i_generation) };
	errcode_t err;

	/* a wrong entry hash also makes the checksum fail: judged first */
	err = e4_xattr_block_iterate_csum(p->fs, blk, p->buf, 1, check_entry, &w);
	for (size_t k = 0; !err && k < w.nfix && !p->err; k++)
		p->err = e4_xattr_entry_hash_set(p->fs, NULL, blk, &w.fix[k].x, w.fix[k].hash);
	free(w.fix);
	return w.said;
}
