/*
 * pass1_ea.c: EA inodes' reference counts (issue 15; ea_inode feature).
 *
 * While the scan runs, every inode carrying EXT4_EA_INODE_FL is noted with
 * the count it keeps (e4_ea_inode_refcount()), and every xattr entry whose
 * value lives in an EA inode is noted as one reference to it, for each
 * inode it belongs to: an xattr block shared by four inodes names its EA
 * inodes four times (the kernel takes a reference for each inode that
 * shares the block, and the reference e2fsck counts the same way: shown
 * on a kernel-made image, count 4).  After the scan each EA
 * inode's count is compared with the references found: a wrong count is
 * set to them; an EA inode nothing names is said, and pass 4 judges it as
 * any inode (p1_ea_unnamed(): unattached, or named by a directory).  When an inode's
 * attributes could not be read the references are incomplete and nothing
 * is judged.  EA inodes whose kept value hash pass1_xattr_hash.c found
 * wrong are set after the scan (p1_ea_hashes()).
 */
#include "pass1.h"

#include <stdlib.h>

errcode_t p1_ea_note_inode(struct pass1 *p, e4_ino_t ino, const struct ext4_inode *in)
{
	if (p1_grow((void **)&p->eas, &p->capeas, p->neas, sizeof(*p->eas)))
		return E4_ERR_NO_MEMORY;
	p->eas[p->neas].ino = ino;
	p->eas[p->neas].mtime = e4_le32(in->i_mtime);
	p->eas[p->neas].gen = e4_le32(in->i_generation);
	p->eas[p->neas++].ref = e4_ea_inode_refcount(in);
	return 0;
}

errcode_t p1_ea_note_ref(struct pass1 *p, const struct e4_xattr *x)
{
	if (p1_grow((void **)&p->earefs, &p->capearefs, p->nearefs, sizeof(*p->earefs)))
		return E4_ERR_NO_MEMORY;
	p->earefs[p->nearefs].ea_ino = x->value_inum;
	p->earefs[p->nearefs].owner = x->owner;
	p->earefs[p->nearefs++].owner_gen = x->owner_generation;
	return 0;
}

static int ref_cmp(const void *a, const void *b)
{
	e4_ino_t x = ((const struct p1_ea_ref *)a)->ea_ino, y = ((const struct p1_ea_ref *)b)->ea_ino;

	return x < y ? -1 : x > y;
}

/* References to EA inode ea among the sorted p->earefs; -1 when one comes
 * from the owner an old Lustre EA inode points back to (i_mtime, and
 * i_generation its owner's): such an inode keeps no count. */
static int64_t refs_of(const struct pass1 *p, const struct p1_ea_inode *ea)
{
	size_t lo = 0, hi = p->nearefs, k;

	while (lo < hi) {	/* first index >= ea->ino */
		size_t mid = lo + (hi - lo) / 2;

		if (p->earefs[mid].ea_ino < ea->ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k < p->nearefs && p->earefs[k].ea_ino == ea->ino; k++)
		if (p->earefs[k].owner == ea->mtime && p->earefs[k].owner_gen == ea->gen)
			return -1;
	return (int64_t)(k - lo);
}

/* Set EA inode ino's count to ref, or with hash its kept value hash to
 * (uint32_t)v (read, change, write with its checksum). */
static errcode_t ea_set(struct pass1 *p, e4_ino_t ino, int hash, uint64_t v)
{
	union e4_inode_buf ib;
	errcode_t err = e4_inode_read(p->fs, ino, &ib);

	if (err)
		return err;
	if (hash)
		e4_ea_inode_hash_set(p->fs, &ib.inode, (uint32_t)v);
	else
		e4_ea_inode_refcount_set(p->fs, &ib.inode, v);
	return e4_inode_write(p->fs, ino, &ib);
}

errcode_t p1_ea_refcounts(struct pass1 *p)
{
	errcode_t err = 0;

	if (p->ea_unsure || p->scan_failed || !p->neas)
		return 0;
	if (p->nearefs > 1)
		qsort(p->earefs, p->nearefs, sizeof(*p->earefs), ref_cmp);
	for (size_t k = 0; k < p->neas && !err; k++) {
		struct problem_ctx pctx = { 0 };
		int64_t found = refs_of(p, &p->eas[k]);

		if (found < 0 || (uint64_t)found == p->eas[k].ref)
			continue;
		pctx.ino = p->eas[k].ino;
		pctx.num = p->eas[k].ref;
		pctx.num2 = found;
		if (!found)
			fix_problem(p->ctx, PR_1_EA_INODE_UNNAMED, &pctx);	/* maybe a file */
		else if (fix_problem(p->ctx, PR_1_EA_INODE_REFCOUNT, &pctx) && !p->ctx->read_only)
			err = ea_set(p, p->eas[k].ino, 0, (uint64_t)found);
	}
	return err;
}

int p1_ea_unnamed(const struct pass1 *p, e4_ino_t ino)
{
	if (p->ea_unsure || p->scan_failed)
		return 0;
	for (size_t k = 0; k < p->neas; k++)
		if (p->eas[k].ino == ino)
			return refs_of(p, &p->eas[k]) == 0;
	return 0;
}

errcode_t p1_ea_hashes(struct pass1 *p)
{
	errcode_t err = 0;

	for (size_t k = 0; k < p->neahash && !err; k++) {
		struct problem_ctx pctx = { 0 };

		pctx.ino = p->eahash[k].ino;
		pctx.num = p->eahash[k].stored;
		pctx.num2 = p->eahash[k].hash;
		if (fix_problem(p->ctx, PR_1_EA_INODE_HASH, &pctx) && !p->ctx->read_only)
			err = ea_set(p, p->eahash[k].ino, 1, p->eahash[k].hash);
	}
	free(p->eahash);
	p->eahash = NULL;
	p->neahash = p->capeahash = 0;
	return err;
}

void p1_ea_free(struct pass1 *p)
{
	free(p->eas);
	free(p->earefs);
	free(p->eahash);
	p->eas = NULL;
	p->earefs = NULL;
	p->eahash = NULL;
	p->neahash = p->capeahash = 0;
	p->neas = p->capeas = p->nearefs = p->capearefs = 0;
}
