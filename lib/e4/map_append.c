/*
 * map_append.c: one more block mapped at the end of a growing directory
 * (dir_write.c, htree_write.c; format doc section 7).  Extent trees go
 * through the extent cursor's mapping set (e4_extent_map_set).  The rest
 * is TEMPORARY (issue 13), to be replaced by the mapping set operations
 * when they cover it: block maps (no set operation yet), and extent trees
 * on bigalloc filesystems (the cursor refuses inserts there).
 *
 * Extent trees here (bigalloc only): the last extent grows when the new block continues it
 * physically; else a new extent goes at the end of the last leaf; a full
 * leaf gets a new sibling under the deepest index node with room (new
 * index nodes down to it as needed); when every node on the right edge is
 * full, the root's entries move to a new block below it (the tree gets one
 * level deeper) and the append is tried again.  Block maps: the pointer
 * slot of the logical block is filled, indirect blocks created (zeroed)
 * on the way.
 */
#include <stdlib.h>
#include <string.h>

#include "dir_int.h"

#define EXT_ROOT_MAX	4

static inline unsigned node_cap(e4_fs *fs)
{
	return (fs->geom.block_size - sizeof(struct ext4_extent_header)) /
	       sizeof(struct ext4_extent);
}

/* ---- extent trees ---------------------------------------------------------- */

static void hdr_init(struct ext4_extent_header *eh, unsigned max, unsigned depth)
{
	eh->eh_magic = e4_cpu_to_le16(EXT4_EXT_MAGIC);
	eh->eh_entries = 0;
	eh->eh_max = e4_cpu_to_le16((uint16_t)max);
	eh->eh_depth = e4_cpu_to_le16((uint16_t)depth);
	eh->eh_generation = 0;
}

static errcode_t node_write(e4_fs *fs, e4_ino_t ino, uint32_t gen, e4_blk_t blk, uint8_t *buf)
{
	struct ext4_extent_header *eh = (struct ext4_extent_header *)buf;
	struct ext4_extent_tail *t = (struct ext4_extent_tail *)
		(buf + sizeof(*eh) + sizeof(struct ext4_extent) * e4_le16(eh->eh_max));

	if (fs->geom.metadata_csum)
		t->et_checksum = e4_cpu_to_le32(e4_extent_block_csum(fs, ino, gen, buf));
	return e4_io_write_blk(e4_fs_io(fs), blk, 1, buf);
}

static void put_idx(struct ext4_extent_idx *ix, uint32_t lblk, e4_blk_t child)
{
	ix->ei_block = e4_cpu_to_le32(lblk);
	ix->ei_leaf_lo = e4_cpu_to_le32((uint32_t)child);
	ix->ei_leaf_hi = e4_cpu_to_le16((uint16_t)(child >> 32));
	ix->ei_unused = 0;
}

static void put_ext(struct ext4_extent *ex, uint32_t lblk, e4_blk_t pblk, unsigned len)
{
	ex->ee_block = e4_cpu_to_le32(lblk);
	ex->ee_len = e4_cpu_to_le16((uint16_t)len);
	ex->ee_start_hi = e4_cpu_to_le16((uint16_t)(pblk >> 32));
	ex->ee_start_lo = e4_cpu_to_le32((uint32_t)pblk);
}

/* Move the root's entries into a new block below it. */
static errcode_t ext_grow_root(e4_fs *fs, e4_ino_t ino, struct ext4_inode *inode, e4_blk_t goal,
			       uint8_t *buf)
{
	struct ext4_extent_header *root = (struct ext4_extent_header *)inode->i_block;
	struct ext4_extent_header *nh = (struct ext4_extent_header *)buf;
	unsigned depth = e4_le16(root->eh_depth), n = e4_le16(root->eh_entries);
	e4_blk_t blk;
	errcode_t err;

	if (depth >= EXT4_MAX_EXTENT_DEPTH)
		return E4_ERR_EXTENT_TOO_DEEP;
	err = e4_dirw_meta_alloc(fs, inode, goal, &blk);
	if (err)
		return err;
	memset(buf, 0, fs->geom.block_size);
	hdr_init(nh, node_cap(fs), depth);
	nh->eh_entries = root->eh_entries;
	memcpy(nh + 1, root + 1, 12 * (size_t)n);
	err = node_write(fs, ino, e4_le32(inode->i_generation), blk, buf);
	if (err)
		return err;
	root->eh_depth = e4_cpu_to_le16((uint16_t)(depth + 1));
	root->eh_entries = e4_cpu_to_le16(1);
	put_idx((struct ext4_extent_idx *)(root + 1), e4_get_le32(nh + 1), blk);
	return 0;
}

static errcode_t ext_append(e4_fs *fs, e4_ino_t ino, struct ext4_inode *inode, uint64_t lblk,
			    e4_blk_t pblk)
{
	unsigned bs = fs->geom.block_size, depth, level, k;
	uint32_t gen = e4_le32(inode->i_generation);
	struct ext4_extent_header *root = (struct ext4_extent_header *)inode->i_block, *eh;
	uint8_t *mem, *node[EXT4_MAX_EXTENT_DEPTH + 1];
	e4_blk_t blk[EXT4_MAX_EXTENT_DEPTH + 1];
	struct ext4_extent *ex;
	unsigned n;
	errcode_t err;
	int again;

	if (lblk >= (1ULL << 32) - 1)
		return E4_ERR_FILE_TOO_BIG;
	if (!root->eh_magic && !root->eh_entries && !root->eh_max)
		hdr_init(root, EXT_ROOT_MAX, 0);	/* a fresh inode */
	mem = malloc((size_t)bs * (EXT4_MAX_EXTENT_DEPTH + 1));
	if (!mem)
		return E4_ERR_NO_MEMORY;
retry:
	again = 0;
	depth = e4_le16(root->eh_depth);
	if (e4_le16(root->eh_magic) != EXT4_EXT_MAGIC || depth > EXT4_MAX_EXTENT_DEPTH ||
	    e4_le16(root->eh_max) > EXT_ROOT_MAX ||
	    e4_le16(root->eh_entries) > e4_le16(root->eh_max)) {
		err = E4_ERR_EXTENT_HEADER;
		goto out;
	}
	/* The right edge of the tree: node[0] is the root. */
	node[0] = (uint8_t *)root;
	blk[0] = 0;
	for (level = 0; level < depth; level++) {
		eh = (struct ext4_extent_header *)node[level];
		n = e4_le16(eh->eh_entries);
		if (n == 0) {
			err = E4_ERR_EXTENT_HEADER;
			goto out;
		}
		{
			const struct ext4_extent_idx *ix = (const struct ext4_extent_idx *)(eh + 1) + n - 1;

			blk[level + 1] = e4_le32(ix->ei_leaf_lo) | (e4_blk_t)e4_le16(ix->ei_leaf_hi) << 32;
		}
		node[level + 1] = mem + (size_t)bs * level;
		if (blk[level + 1] <= fs->geom.first_data_block ||
		    blk[level + 1] >= fs->geom.blocks_count) {
			err = E4_ERR_BAD_BLOCK_NUM;
			goto out;
		}
		err = e4_read_block(fs, blk[level + 1], node[level + 1]);
		if (err)
			goto out;
		eh = (struct ext4_extent_header *)node[level + 1];
		if (e4_le16(eh->eh_magic) != EXT4_EXT_MAGIC ||
		    e4_le16(eh->eh_depth) != depth - level - 1 || e4_le16(eh->eh_max) > node_cap(fs) ||
		    e4_le16(eh->eh_entries) > e4_le16(eh->eh_max)) {
			err = E4_ERR_EXTENT_HEADER;
			goto out;
		}
	}
	eh = (struct ext4_extent_header *)node[depth];
	n = e4_le16(eh->eh_entries);
	ex = (struct ext4_extent *)(eh + 1);
	if (n) {
		struct ext4_extent *last = &ex[n - 1];
		unsigned len = e4_le16(last->ee_len);
		uint64_t start = e4_le32(last->ee_block);
		e4_blk_t p = e4_le32(last->ee_start_lo) | (e4_blk_t)e4_le16(last->ee_start_hi) << 32;

		if (start + (len > EXT_INIT_MAX_LEN ? len - EXT_INIT_MAX_LEN : len) > lblk) {
			err = E4_ERR_INVALID_ARGUMENT;	/* not past the end */
			goto out;
		}
		if (len < EXT_INIT_MAX_LEN && start + len == lblk && p + len == pblk) {
			last->ee_len = e4_cpu_to_le16((uint16_t)(len + 1));
			err = depth ? node_write(fs, ino, gen, blk[depth], node[depth]) : 0;
			goto out;
		}
	}
	if (n < e4_le16(eh->eh_max)) {
		put_ext(&ex[n], (uint32_t)lblk, pblk, 1);
		eh->eh_entries = e4_cpu_to_le16((uint16_t)(n + 1));
		err = depth ? node_write(fs, ino, gen, blk[depth], node[depth]) : 0;
		goto out;
	}
	/* The leaf is full: the deepest index node with room. */
	for (k = depth; k-- > 0;) {
		eh = (struct ext4_extent_header *)node[k];
		if (e4_le16(eh->eh_entries) < e4_le16(eh->eh_max))
			break;
	}
	if (k == UINT32_MAX || depth == 0) {
		err = ext_grow_root(fs, ino, inode, pblk + 1, mem + (size_t)bs * EXT4_MAX_EXTENT_DEPTH);
		if (!err)
			again = 1;
		goto out;
	}
	{
		/* New nodes for levels k + 1 .. depth, each with one entry. */
		uint8_t *nb = mem + (size_t)bs * EXT4_MAX_EXTENT_DEPTH;
		e4_blk_t nblk[EXT4_MAX_EXTENT_DEPTH + 1];

		for (level = k + 1; level <= depth; level++) {
			err = e4_dirw_meta_alloc(fs, inode, pblk + 1, &nblk[level]);
			if (err) {
				while (--level > k)	/* give back what was taken */
					e4_dirw_meta_free(fs, inode, nblk[level]);
				goto out;
			}
		}
		for (level = depth; level > k; level--) {
			struct ext4_extent_header *h = (struct ext4_extent_header *)nb;

			memset(nb, 0, bs);
			hdr_init(h, node_cap(fs), depth - level);
			h->eh_entries = e4_cpu_to_le16(1);
			if (level == depth)
				put_ext((struct ext4_extent *)(h + 1), (uint32_t)lblk, pblk, 1);
			else
				put_idx((struct ext4_extent_idx *)(h + 1), (uint32_t)lblk, nblk[level + 1]);
			err = node_write(fs, ino, gen, nblk[level], nb);
			if (err)
				goto out;
		}
		eh = (struct ext4_extent_header *)node[k];
		n = e4_le16(eh->eh_entries);
		put_idx((struct ext4_extent_idx *)(eh + 1) + n, (uint32_t)lblk, nblk[k + 1]);
		eh->eh_entries = e4_cpu_to_le16((uint16_t)(n + 1));
		err = k ? node_write(fs, ino, gen, blk[k], node[k]) : 0;
	}
out:
	if (!err && again)
		goto retry;
	free(mem);
	return err;
}

/* ---- block maps --------------------------------------------------------------- */

static errcode_t bm_new_ind(e4_fs *fs, struct ext4_inode *inode, e4_blk_t goal, uint32_t *ptr)
{
	unsigned bs = fs->geom.block_size;
	uint8_t *z;
	e4_blk_t b;
	errcode_t err;

	err = e4_dirw_meta_alloc(fs, inode, goal, &b);
	if (err)
		return err;
	if (b > UINT32_MAX)
		return E4_ERR_BAD_BLOCK_NUM;
	z = calloc(1, bs);
	if (!z)
		return E4_ERR_NO_MEMORY;
	err = e4_io_write_blk(e4_fs_io(fs), b, 1, z);
	free(z);
	*ptr = e4_cpu_to_le32((uint32_t)b);
	return err;
}

static errcode_t bm_append(e4_fs *fs, struct ext4_inode *inode, uint64_t lblk, e4_blk_t pblk)
{
	uint64_t apb = fs->geom.block_size / 4, rel, span = 1;
	uint32_t *slot, *buf;
	uint32_t ptr;
	int level;
	errcode_t err = 0;

	if (pblk > UINT32_MAX)
		return E4_ERR_BAD_BLOCK_NUM;
	if (lblk < EXT4_NDIR_BLOCKS) {
		inode->i_block[lblk] = e4_cpu_to_le32((uint32_t)pblk);
		return 0;
	}
	rel = lblk - EXT4_NDIR_BLOCKS;
	for (level = 1; level <= 3; level++) {
		span *= apb;
		if (rel < span)
			break;
		rel -= span;
	}
	if (level > 3)
		return E4_ERR_FILE_TOO_BIG;
	slot = &inode->i_block[EXT4_IND_BLOCK + level - 1];
	if (!*slot) {
		err = bm_new_ind(fs, inode, pblk + 1, slot);
		if (err)
			return err;
	}
	buf = malloc(fs->geom.block_size);
	if (!buf)
		return E4_ERR_NO_MEMORY;
	ptr = e4_le32(*slot);
	for (; level >= 1; level--) {
		unsigned i;

		if (ptr <= fs->geom.first_data_block || ptr >= fs->geom.blocks_count) {
			err = E4_ERR_BAD_IND_BLOCK;
			break;
		}
		err = e4_read_block(fs, ptr, buf);
		if (err)
			break;
		span /= apb;
		i = (unsigned)(rel / span);
		rel %= span;
		if (level == 1) {
			buf[i] = e4_cpu_to_le32((uint32_t)pblk);
		} else if (!buf[i]) {
			err = bm_new_ind(fs, inode, pblk + 1, &buf[i]);
			if (err)
				break;
		} else {
			ptr = e4_le32(buf[i]);
			continue;
		}
		err = e4_io_write_blk(e4_fs_io(fs), ptr, 1, buf);
		if (err || level == 1)
			break;
		ptr = e4_le32(buf[i]);
	}
	free(buf);
	return err;
}

errcode_t e4_map_append_block(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, uint64_t lblk,
			      e4_blk_t pblk, int new_cluster)
{
	struct ext4_inode *inode = &ib->inode;
	errcode_t err;

	if (!(e4_le32(inode->i_flags) & EXT4_EXTENTS_FL)) {
		err = bm_append(fs, inode, lblk, pblk);
		return err ? err : e4_dirw_blocks_add(fs, inode, 1);
	}
	if (!fs->geom.cluster_bits) {
		/* the extent cursor's mapping set (it counts i_blocks) */
		e4_extent_handle *h;

		if (!inode->i_block[0])
			e4_extent_root_init(inode);	/* a fresh inode */
		err = e4_extent_open(fs, ino, inode, 0, &h);
		if (err)
			return err;
		err = e4_extent_map_set(h, lblk, 1, pblk, 0);
		e4_extent_close(h);
		return err;
	}
	err = ext_append(fs, ino, inode, lblk, pblk);
	if (!err && new_cluster)
		err = e4_dirw_blocks_add(fs, inode, e4_dirw_cluster(fs));
	return err;
}
