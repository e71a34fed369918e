/*
 * pass1_csum.c: extent tree blocks whose only fault is their checksum,
 * rewritten once pass 1 knows who else claims them.
 *
 * A tree block's checksum is keyed by the inode number and generation
 * (format doc section 7.2): a block two trees name can match one of them
 * only.  Rewriting it for the inode met second breaks it for the first
 * (and the first may well be the one the block belongs to), so the map
 * checker does not write such a checksum itself (check_map_ops.
 * defer_csum): pass 1 notes it here, and after the scan writes those of
 * blocks no other inode claims.  The rest (clusters in the dup map) wait
 * for pass 1D: the owner it clones gets new tree blocks with its own
 * checksums, and the one keeping the block gets its checksum
 * (p1_csum_keepers(), after 1D settled every inode).
 */
#include "pass1.h"

#include <stdlib.h>

errcode_t p1_csum_defer(void *priv, e4_ino_t ino, uint32_t gen, e4_blk_t blk)
{
	struct pass1 *p = priv;

	if (p1_grow((void **)&p->csums, &p->capcsums, p->ncsums, sizeof(*p->csums)))
		return E4_ERR_NO_MEMORY;
	p->csums[p->ncsums++] = (struct p1_csum){ ino, gen, blk };
	return 0;
}

void p1_csum_forget(struct pass1 *p, e4_blk_t blk, uint64_t len)
{
	size_t k = p->ncsums, n;

	/* the current inode's notes are the last ones */
	while (k && p->csums[k - 1].ino == p->ino)
		k--;
	for (n = k; k < p->ncsums; k++)
		if (p->csums[k].blk < blk || p->csums[k].blk >= blk + len)
			p->csums[n++] = p->csums[k];
	p->ncsums = n;
}

/* Rewrite note k's checksum for its inode (the block as it now is). */
static errcode_t csum_write(struct pass1 *p, const struct p1_csum *n)
{
	errcode_t err = e4_io_read_blk(e4_fs_io(p->fs), n->blk, 1, p->buf);

	if (!err && !e4_extent_node_csum_ok(p->fs, n->ino, n->gen, p->buf))
		err = e4_extent_node_write(p->fs, n->ino, n->gen, n->blk, p->buf);
	return err;
}

errcode_t p1_csum_write(struct pass1 *p)
{
	unsigned cb = p->geo->cluster_bits;
	size_t n = 0;
	errcode_t err = 0;

	for (size_t k = 0; k < p->ncsums && !err; k++) {
		uint64_t c = p->csums[k].blk >> cb;

		if (e4_bmap_test(p->dup, c))
			p->csums[n++] = p->csums[k];	/* for pass 1D */
		else if (e4_bmap_test(p->inuse, c))
			err = csum_write(p, &p->csums[k]);
	}
	p->ncsums = n;
	return err;
}

errcode_t p1_csum_keepers(struct pass1 *p, int (*keeps)(void *priv, e4_ino_t ino, e4_blk_t blk),
			  void *priv)
{
	errcode_t err = 0;

	for (size_t k = 0; k < p->ncsums && !err; k++)
		if (keeps(priv, p->csums[k].ino, p->csums[k].blk))
			err = csum_write(p, &p->csums[k]);
	p->ncsums = 0;
	return err;
}
