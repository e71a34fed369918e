/*
 * htree_write.c: inserting into indexed directories (format doc section
 * 8.5): leaf splits, index node splits, a new index level, and the
 * conversion of a full one-block linear directory.  The rules are the
 * kernel's (fs/ext4/namei.c, as documented behaviour): a full leaf's live
 * entries are sorted by hash and the upper part, about half the bytes,
 * moves to a new block appended to the directory; the new leaf's first
 * hash goes into the index after the old leaf's entry, with bit 0 set when
 * the old leaf keeps entries of the same hash (the lookup then continues
 * into the new leaf).  A full index node is split in two halves, the
 * upper half's first hash going into its parent; a full root moves all
 * its entries into a new node below it (indirect_levels + 1) while the
 * depth allows.  After each split the path is probed again.
 */
#include <stdlib.h>
#include <string.h>

#include "dir_int.h"

#define DX_MAX_RETRIES	16	/* splits for one insert (at most 3 needed) */

errcode_t e4_dx_new_version(e4_fs *fs, int *stored, int *effective)
{
	struct ext4_super_block *sb = e4_super(fs);
	uint32_t flags = e4_le32(sb->s_flags);
	int v = sb->s_def_hash_version;

	if (v != DX_HASH_LEGACY && v != DX_HASH_HALF_MD4 && v != DX_HASH_TEA)
		return E4_ERR_BAD_HASH_VERSION;
	if (!(flags & (EXT2_FLAGS_SIGNED_HASH | EXT2_FLAGS_UNSIGNED_HASH))) {
		/* Record the signedness the new index is hashed with, as the
		 * kernel and e2fsck record theirs when neither is set (format
		 * doc 8.5): otherwise a kernel of the other char signedness
		 * would record its own and miss names. */
		sb->s_flags = e4_cpu_to_le32(flags | EXT2_FLAGS_SIGNED_HASH);
		fs->sb_dirty = 1;
	}
	*stored = v;
	*effective = e4_dx_effective_version(fs, v);
	return 0;
}

void e4_dx_put_entry(uint8_t *blk, unsigned count_off, unsigned i, uint32_t hash, uint32_t block)
{
	uint8_t *e = blk + count_off + 8 * i;

	if (i)
		e4_put_le32(e, hash);
	e4_put_le32(e + 4, block);
}

static void dx_set_countlimit(uint8_t *blk, unsigned off, unsigned limit, unsigned count)
{
	e4_put_le16(blk + off, (uint16_t)limit);
	e4_put_le16(blk + off + 2, (uint16_t)count);
}

void e4_dx_root_init(struct e4_dirw *w, uint8_t *blk, e4_ino_t dot_ino, e4_ino_t dotdot_ino,
		     int hash_version, unsigned levels)
{
	uint16_t dlen;

	memset(blk, 0, w->bs);
	e4_put_le32(blk, dot_ino);
	e4_put_le16(blk + 4, 12);
	blk[6] = 1;
	blk[7] = w->filetype ? EXT4_FT_DIR : 0;
	blk[8] = '.';
	e4_put_le32(blk + 12, dotdot_ino);
	(void)e4_rec_len_to_disk(w->bs - 12, w->bs, &dlen);
	e4_put_le16(blk + 16, dlen);
	blk[18] = 2;
	blk[19] = w->filetype ? EXT4_FT_DIR : 0;
	blk[20] = '.';
	blk[21] = '.';
	/* dx_root_info at 0x18: reserved_zero, hash_version, info_length,
	 * indirect_levels, unused_flags */
	blk[0x1C] = (uint8_t)hash_version;
	blk[0x1D] = sizeof(struct dx_root_info);
	blk[0x1E] = (uint8_t)levels;
	dx_set_countlimit(blk, E4_DX_ROOT_COUNT_OFF,
			  e4_dx_limit(w->bs, E4_DX_ROOT_COUNT_OFF, w->fs->geom.metadata_csum), 0);
}

void e4_dx_node_init(struct e4_dirw *w, uint8_t *blk)
{
	uint16_t dlen;

	memset(blk, 0, w->bs);
	(void)e4_rec_len_to_disk(w->bs, w->bs, &dlen);	/* a fake empty entry */
	e4_put_le16(blk + 4, dlen);
	dx_set_countlimit(blk, E4_DX_NODE_COUNT_OFF,
			  e4_dx_limit(w->bs, E4_DX_NODE_COUNT_OFF, w->fs->geom.metadata_csum), 0);
}

/* Checksum and write a dx block. */
static errcode_t dx_write(struct e4_dirw *w, uint64_t lblk, uint8_t *blk, unsigned off)
{
	errcode_t err = e4_dx_csum_set(w->fs, w->ino, w->gen, blk, off);

	return err ? err : e4_dirw_write(w, lblk, blk);
}

static errcode_t frame_write(struct e4_dirw *w, struct e4_dx_frame *f)
{
	e4_put_le16(f->buf + f->off + 2, (uint16_t)f->count);
	return dx_write(w, f->lblk, f->buf, f->off);
}

/* Insert (hash, block) into frame f after entry pos. */
static void frame_insert(struct e4_dx_frame *f, unsigned pos, uint32_t hash, uint32_t block)
{
	uint8_t *at = f->buf + f->off + 8 * (pos + 1);

	memmove(at + 8, at, 8 * (size_t)(f->count - pos - 1));
	f->count++;
	e4_dx_put_entry(f->buf, f->off, pos + 1, hash, block);
}

/* A frame whose count or tail cannot take a change. */
static errcode_t frame_writable(struct e4_dirw *w, const struct e4_dx_frame *f)
{
	if (w->fs->geom.metadata_csum &&
	    f->off + (size_t)f->limit * 8 + sizeof(struct dx_tail) > w->bs)
		return E4_ERR_DIR_NO_CSUM_TAIL;
	return 0;
}

/* ---- leaf split ----------------------------------------------------------- */

struct lent {
	uint32_t hash;
	unsigned off, size;
};

static int lent_by_hash(const void *a, const void *b)
{
	const struct lent *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int lent_by_off(const void *a, const void *b)
{
	const struct lent *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* Entries e[0..n) of leaf image src as e4_new_dirent records. */
static void lent_dirents(const uint8_t *src, const struct lent *e, unsigned n,
			 struct e4_new_dirent *out)
{
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *d = src + e[i].off;

		out[i].inode = e4_get_le32(d);
		out[i].name = (const char *)d + E4_DIRENT_HDR;
		out[i].name_len = d[6];
		out[i].file_type = d[7];
	}
}

/*
 * Split the full leaf (logical block lblk, in leaf, checked) named by
 * p->fr[p->levels], whose node has room, and put the new entry into the
 * half its hash belongs to: *placed = 0 when that half still has no room
 * (the caller probes again).  A leaf with fewer than two live entries is
 * only packed.
 */
static errcode_t split_leaf(struct e4_dirw *w, struct e4_dx_path *p, uint8_t *leaf,
			    uint64_t lblk, const char *name, size_t len, e4_ino_t ino,
			    uint8_t file_type, int *placed)
{
	struct e4_dx_frame *f = &p->fr[p->levels];
	unsigned n = 0, o, i, split, move = 0, size = 0;
	struct lent *map = NULL;
	struct e4_new_dirent *ents = NULL;
	uint8_t *copy = NULL, *nleaf;
	uint64_t nlblk;
	uint32_t hash2;
	int continued;
	errcode_t err;

	*placed = 0;
	map = malloc(sizeof(*map) * (w->bs / 12 + 1));
	ents = malloc(sizeof(*ents) * (w->bs / 12 + 1));
	copy = malloc((size_t)w->bs * 2);
	if (!map || !ents || !copy) {
		err = E4_ERR_NO_MEMORY;
		goto out;
	}
	nleaf = copy + w->bs;
	memcpy(copy, leaf, w->bs);
	for (o = 0; o + E4_DIRENT_HDR <= w->leaf_end;) {
		const uint8_t *d = copy + o;

		if (e4_get_le32(d)) {
			err = e4_dx_hash(p->version, (const char *)d + E4_DIRENT_HDR, d[6],
					 w->fs->hash_seed, &map[n].hash, NULL);
			if (err)
				goto out;
			map[n].off = o;
			map[n].size = e4_dirent_min_rec(d[6]);
			n++;
		}
		o += e4_dirent_rec(d, w->bs);
	}
	if (n < 2) {
		/* nothing to split: the leaf is only fragmented; pack it */
		lent_dirents(copy, map, n, ents);
		err = e4_dirw_leaf_build(w, ents, n, leaf);
		if (!err && e4_dirw_leaf_add(w, leaf, name, len, ino, file_type)) {
			e4_dir_leaf_csum_set(w->fs, w->ino, w->gen, leaf);
			*placed = 1;
		}
		if (!err)
			err = e4_dirw_write(w, lblk, leaf);
		goto out;
	}
	qsort(map, n, sizeof(*map), lent_by_hash);
	/* Move entries from the top while more than half of the next one
	 * would still lie in the upper half of the block. */
	for (i = n; i-- > 0;) {
		if (size + map[i].size / 2 > w->leaf_end / 2)
			break;
		size += map[i].size;
		move++;
	}
	split = n - move;
	if (split == n)
		split = n - 1;
	if (split == 0)
		split = 1;
	hash2 = map[split].hash;
	continued = hash2 == map[split - 1].hash;

	err = e4_dirw_append(w, &nlblk);
	if (err)
		goto out;
	lent_dirents(copy, map + split, n - split, ents);
	err = e4_dirw_leaf_build(w, ents, n - split, nleaf);
	if (err)
		goto out;
	qsort(map, split, sizeof(*map), lent_by_off);
	lent_dirents(copy, map, split, ents);
	err = e4_dirw_leaf_build(w, ents, split, leaf);
	if (err)
		goto out;
	frame_insert(f, f->pos, hash2 | (uint32_t)continued, (uint32_t)nlblk);

	if (p->hash >= hash2)
		*placed = e4_dirw_leaf_add(w, nleaf, name, len, ino, file_type);
	else
		*placed = e4_dirw_leaf_add(w, leaf, name, len, ino, file_type);
	e4_dir_leaf_csum_set(w->fs, w->ino, w->gen, nleaf);
	e4_dir_leaf_csum_set(w->fs, w->ino, w->gen, leaf);
	err = e4_dirw_write(w, nlblk, nleaf);
	/* the new leaf, then the inode mapping it, before the old leaf
	 * loses the moved entries and the index names the new one */
	if (!err)
		err = e4_dirw_order_new(w);
	if (!err)
		err = e4_dirw_write(w, lblk, leaf);
	if (!err)
		err = frame_write(w, f);
out:
	free(map);
	free(ents);
	free(copy);
	return err;
}

/* ---- index splits ------------------------------------------------------------ */

/* Write a new node (appended; *nlblk) holding entries [from, f->count)
 * of frame f. */
static errcode_t new_node_from(struct e4_dirw *w, const struct e4_dx_frame *f, unsigned from,
			       uint64_t *nlblk)
{
	uint8_t *nb = malloc(w->bs);
	unsigned i;
	errcode_t err;

	if (!nb)
		return E4_ERR_NO_MEMORY;
	err = e4_dirw_append(w, nlblk);
	if (!err) {
		e4_dx_node_init(w, nb);
		for (i = from; i < f->count; i++)
			e4_dx_put_entry(nb, E4_DX_NODE_COUNT_OFF, i - from, e4_dx_frame_hash(f, i),
					e4_dx_frame_block(f, i));
		e4_put_le16(nb + E4_DX_NODE_COUNT_OFF + 2, (uint16_t)(f->count - from));
		err = dx_write(w, *nlblk, nb, E4_DX_NODE_COUNT_OFF);
	}
	free(nb);
	/* on disk, with the inode mapping it, before an index names it */
	return err ? err : e4_dirw_order_new(w);
}

/* Split the full node p->fr[k + 1] in two halves; its parent p->fr[k] has
 * room. */
static errcode_t split_node(struct e4_dirw *w, struct e4_dx_path *p, unsigned k)
{
	struct e4_dx_frame *f = &p->fr[k + 1], *parent = &p->fr[k];
	unsigned m = f->count / 2;
	uint32_t hash2 = e4_dx_frame_hash(f, m);
	uint64_t nlblk;
	errcode_t err;

	err = new_node_from(w, f, m, &nlblk);
	if (err)
		return err;
	f->count = m;
	frame_insert(parent, parent->pos, hash2, (uint32_t)nlblk);
	err = frame_write(w, f);
	return err ? err : frame_write(w, parent);
}

/* Move every entry of the full root into a new node below it. */
static errcode_t add_level(struct e4_dirw *w, struct e4_dx_path *p)
{
	struct e4_dx_frame *root = &p->fr[0];
	uint64_t nlblk;
	errcode_t err;

	err = new_node_from(w, root, 0, &nlblk);
	if (err)
		return err;
	root->count = 1;
	e4_dx_put_entry(root->buf, root->off, 0, 0, (uint32_t)nlblk);
	root->buf[0x1E] = (uint8_t)(p->levels + 1);
	return frame_write(w, root);
}

errcode_t e4_dx_make_room(struct e4_dirw *w, struct e4_dx_path *p)
{
	unsigned k;
	errcode_t err;

	for (k = 0; k <= p->levels; k++) {
		err = frame_writable(w, &p->fr[k]);
		if (err)
			return err;
	}
	/* Split the lowest full node whose parent has room, or add a level
	 * when every node up to the root is full. */
	for (k = p->levels; k > 0; k--)
		if (p->fr[k - 1].count < p->fr[k - 1].limit)
			break;
	if (k > 0)
		return split_node(w, p, k - 1);
	if (p->levels < e4_dx_max_levels(w->fs))
		return add_level(w, p);
	return E4_ERR_DIR_INDEX_FULL;
}

/* ---- insert ------------------------------------------------------------------ */

/* E4_ERR_EXISTS if name is in one of the leaves the index names for it. */
static errcode_t dx_check_absent(struct e4_dirw *w, const char *name, size_t len, uint8_t *buf)
{
	uint64_t *leaves;
	size_t n, i;
	unsigned off, prev;
	errcode_t err;

	err = e4_dx_lookup_leaves(w->fs, w->ino, &w->ib.inode, name, len, &leaves, &n);
	if (err)
		return err;
	for (i = 0; i < n && !err; i++) {
		err = e4_dirw_read(w, leaves[i], buf);
		if (!err && e4_dx_block_kind(w->fs, buf, leaves[i]) != E4_DX_LEAF)
			err = E4_ERR_HTREE_CORRUPT;
		if (!err)
			err = e4_dirw_leaf_check(w, buf);
		if (!err && e4_dirw_leaf_find(w, buf, name, len, &off, &prev) >= 0)
			err = E4_ERR_EXISTS;
	}
	free(leaves);
	return err;
}

/* One attempt: 0 and *done when placed; 0 and !*done after a split that
 * changed the index (probe again). */
static errcode_t dx_try(struct e4_dirw *w, const char *name, size_t len, e4_ino_t ino,
			uint8_t file_type, uint8_t *leaf, int *done)
{
	struct e4_dx_path p;
	struct e4_dx_frame *f;
	uint64_t lblk;
	unsigned k;
	errcode_t err;

	*done = 0;
	err = e4_dx_probe(w->fs, w->ino, &w->ib.inode, name, len, &p);
	if (err)
		goto out;
	f = &p.fr[p.levels];
	lblk = e4_dx_frame_block(f, f->pos);
	err = e4_dirw_read(w, lblk, leaf);
	if (!err && e4_dx_block_kind(w->fs, leaf, lblk) != E4_DX_LEAF)
		err = E4_ERR_HTREE_CORRUPT;
	if (!err)
		err = e4_dirw_leaf_check(w, leaf);
	if (err)
		goto out;
	if (e4_dirw_leaf_add(w, leaf, name, len, ino, file_type)) {
		e4_dir_leaf_csum_set(w->fs, w->ino, w->gen, leaf);
		err = e4_dirw_write(w, lblk, leaf);
		*done = 1;
		goto out;
	}
	for (k = 0; k <= p.levels; k++) {
		err = frame_writable(w, &p.fr[k]);
		if (err)
			goto out;
	}
	if (f->count < f->limit) {
		err = split_leaf(w, &p, leaf, lblk, name, len, ino, file_type, done);
		goto out;
	}
	err = e4_dx_make_room(w, &p);
out:
	e4_dx_path_free(&p);
	return err;
}

errcode_t e4_dx_insert(struct e4_dirw *w, const char *name, size_t len, e4_ino_t ino,
		       uint8_t file_type)
{
	uint8_t *leaf = malloc(w->bs);
	errcode_t err;
	int done = 0, tries;

	if (!leaf)
		return E4_ERR_NO_MEMORY;
	err = dx_check_absent(w, name, len, leaf);
	for (tries = 0; !err && !done && tries < DX_MAX_RETRIES; tries++)
		err = dx_try(w, name, len, ino, file_type, leaf, &done);
	if (!err && !done)
		err = E4_ERR_HTREE_CORRUPT;
	free(leaf);
	return err;
}

errcode_t e4_dx_convert_insert(struct e4_dirw *w, const uint8_t *blk0, const char *name,
			       size_t len, e4_ino_t ino, uint8_t file_type)
{
	unsigned dotdot_len, o, n = 0;
	struct e4_new_dirent *ents = NULL;
	uint8_t *copy = NULL, *root, *leaf;
	uint64_t lblk;
	int stored, effective;
	errcode_t err;

	/* "." (rec_len 12) then ".." must open the block. */
	if (blk0[6] != 1 || blk0[8] != '.' || e4_rec_len_from_disk(e4_get_le16(blk0 + 4), w->bs) != 12 ||
	    blk0[12 + 6] != 2 || blk0[12 + 8] != '.' || blk0[12 + 9] != '.')
		return E4_ERR_DIR_CORRUPT;
	err = e4_dx_new_version(w->fs, &stored, &effective);
	if (err)
		return err;
	dotdot_len = e4_rec_len_from_disk(e4_get_le16(blk0 + 12 + 4), w->bs);
	copy = malloc((size_t)w->bs * 3);
	ents = malloc(sizeof(*ents) * (w->bs / 12 + 1));
	if (!copy || !ents) {
		err = E4_ERR_NO_MEMORY;
		goto out;
	}
	root = copy + w->bs;
	leaf = root + w->bs;
	memcpy(copy, blk0, w->bs);
	for (o = 12 + dotdot_len; o + E4_DIRENT_HDR <= w->leaf_end;) {
		const uint8_t *d = copy + o;

		if (e4_get_le32(d)) {
			ents[n].inode = e4_get_le32(d);
			ents[n].name = (const char *)d + E4_DIRENT_HDR;
			ents[n].name_len = d[6];
			ents[n].file_type = d[7];
			n++;
		}
		o += e4_dirent_rec(d, w->bs);
	}
	err = e4_dirw_append(w, &lblk);
	if (err)
		goto out;
	err = e4_dirw_leaf_build(w, ents, n, leaf);
	if (err)
		goto out;
	e4_dx_root_init(w, root, e4_get_le32(copy), e4_get_le32(copy + 12), stored, 0);
	root[7] = copy[7];		/* file types as they were */
	root[19] = copy[19];
	e4_dx_put_entry(root, E4_DX_ROOT_COUNT_OFF, 0, 0, (uint32_t)lblk);
	e4_put_le16(root + E4_DX_ROOT_COUNT_OFF + 2, 1);
	w->ib.inode.i_flags = e4_cpu_to_le32(e4_le32(w->ib.inode.i_flags) | EXT4_INDEX_FL);
	w->dirty = 1;
	err = e4_dirw_write(w, lblk, leaf);
	/* the leaf holding the entries, then the inode mapping it, before
	 * the root replaces block 0 */
	if (!err)
		err = e4_dirw_order_new(w);
	if (!err)
		err = dx_write(w, 0, root, E4_DX_ROOT_COUNT_OFF);
	if (err)
		goto out;
	/* As the kernel does, split the new leaf at once, then place the
	 * entry. */
	{
		struct e4_dx_path p;
		int placed = 0;

		err = e4_dx_probe(w->fs, w->ino, &w->ib.inode, name, len, &p);
		if (!err)
			err = split_leaf(w, &p, leaf, lblk, name, len, ino, file_type, &placed);
		e4_dx_path_free(&p);
		if (!err && !placed)
			err = e4_dx_insert(w, name, len, ino, file_type);
	}
out:
	free(copy);
	free(ents);
	return err;
}
