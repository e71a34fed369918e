/*
 * write.c: library write primitives shared by e4mkfs, e4fsck and e4tune:
 * a handle for a filesystem being created, descriptors and bitmaps with
 * their checksums, inodes, the descriptor table and superblock backups,
 * directory blocks, extent trees and indirect maps, the resize inode, the
 * jbd2 superblock and orphan file blocks (see e4.h, "write").
 */
#include "e4_private.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- a handle without a superblock on disk --------------------------- */
errcode_t e4_fs_create(e4_io *io, const char *name, const struct ext4_super_block *sb,
		       e4_fs **ret)
{
	e4_fs *fs;
	errcode_t err;

	e4_init_errors();
	*ret = NULL;
	err = e4_super_validate(sb, e4_io_size(io));
	if (err) {
		e4_io_close(io);
		return err;
	}
	fs = calloc(1, sizeof(*fs));
	if (!fs) {
		e4_io_close(io);
		return E4_ERR_NO_MEMORY;
	}
	fs->io = io;
	fs->flags = E4_OPEN_RW;
	fs->device_name = strdup(name ? name : "");
	fs->sb = malloc(EXT4_SUPERBLOCK_SIZE);
	if (!fs->device_name || !fs->sb) {
		err = E4_ERR_NO_MEMORY;
		goto fail;
	}
	memcpy(fs->sb, sb, EXT4_SUPERBLOCK_SIZE);
	e4_geom_from_sb(fs);
	if (e4_le32(sb->s_feature_incompat) & EXT4_FEATURE_INCOMPAT_CSUM_SEED)
		fs->csum_seed = e4_le32(sb->s_checksum_seed);
	else
		fs->csum_seed = e4_crc32c(~0U, sb->s_uuid, sizeof(sb->s_uuid));
	for (int i = 0; i < 4; i++)
		fs->hash_seed[i] = e4_le32(sb->s_hash_seed[i]);
	err = e4_io_set_blksize(io, fs->geom.block_size);
	if (err)
		goto fail;
	fs->gdt = calloc(fs->geom.desc_blocks, fs->geom.block_size);
	fs->block_bitmaps = calloc(fs->geom.group_count, sizeof(uint8_t *));
	fs->inode_bitmaps = calloc(fs->geom.group_count, sizeof(uint8_t *));
	if (!fs->gdt || !fs->block_bitmaps || !fs->inode_bitmaps) {
		err = E4_ERR_NO_MEMORY;
		goto fail;
	}
	*ret = fs;
	return 0;
fail:
	free(fs->block_bitmaps);
	free(fs->inode_bitmaps);
	free(fs->gdt);
	free(fs->sb);
	free(fs->device_name);
	e4_io_close(io);
	free(fs);
	return err;
}

/* ---- descriptors ------------------------------------------------------ */
static struct ext4_group_desc *desc_rw(e4_fs *fs, e4_group_t g)
{
	if (g >= fs->geom.group_count || !fs->gdt)
		return NULL;
	return (struct ext4_group_desc *)(fs->gdt + (size_t)g * fs->geom.desc_size);
}

void e4_group_csum_set(e4_fs *fs, e4_group_t g)
{
	struct ext4_group_desc *d = desc_rw(fs, g);

	if (!d)
		return;
	d->bg_checksum = e4_cpu_to_le16(e4_group_desc_csum(fs, g, d));
}

errcode_t e4_group_set(e4_fs *fs, e4_group_t g, const struct e4_group *in)
{
	struct ext4_group_desc *d = desc_rw(fs, g);
	unsigned dsz = fs->geom.desc_size;
	int fits = 1;

	if (!d)
		return E4_ERR_BAD_GROUP_NUM;
	memset(d, 0, dsz);
	/* counts and checksums are cut to what the descriptor holds; a
	 * location that does not fit is an error */
	fits &= e4_gd_field_put(d, dsz, E4_GDF_BLOCK_BITMAP, in->block_bitmap);
	fits &= e4_gd_field_put(d, dsz, E4_GDF_INODE_BITMAP, in->inode_bitmap);
	fits &= e4_gd_field_put(d, dsz, E4_GDF_INODE_TABLE, in->inode_table);
	e4_gd_field_put(d, dsz, E4_GDF_FREE_BLOCKS, in->free_blocks);
	e4_gd_field_put(d, dsz, E4_GDF_FREE_INODES, in->free_inodes);
	e4_gd_field_put(d, dsz, E4_GDF_USED_DIRS, in->used_dirs);
	e4_gd_field_put(d, dsz, E4_GDF_FLAGS, in->flags);
	e4_gd_field_put(d, dsz, E4_GDF_EXCLUDE_BITMAP, in->exclude_bitmap);
	e4_gd_field_put(d, dsz, E4_GDF_BLOCK_BITMAP_CSUM, in->block_bitmap_csum);
	e4_gd_field_put(d, dsz, E4_GDF_INODE_BITMAP_CSUM, in->inode_bitmap_csum);
	e4_gd_field_put(d, dsz, E4_GDF_ITABLE_UNUSED, in->itable_unused);
	if (!fits)
		return E4_ERR_BAD_BLOCK_NUM;
	e4_group_csum_set(fs, g);
	return 0;
}

errcode_t e4_group_set_field(e4_fs *fs, e4_group_t g, enum e4_gd_field f, uint64_t v)
{
	struct ext4_group_desc *d = desc_rw(fs, g);
	unsigned dsz = fs->geom.desc_size;
	uint64_t old;

	if (!d)
		return E4_ERR_BAD_GROUP_NUM;
	if ((unsigned)f >= E4_GDF_COUNT)
		return E4_ERR_INVALID_ARGUMENT;
	old = e4_gd_field_get(d, dsz, f);
	if (!e4_gd_field_put(d, dsz, f, v)) {
		e4_gd_field_put(d, dsz, f, old);
		return E4_ERR_BAD_BLOCK_NUM;
	}
	if (f != E4_GDF_CHECKSUM)
		e4_group_csum_set(fs, g);
	return 0;
}

/* ---- bitmaps ---------------------------------------------------------- */
static errcode_t bitmap_write(e4_fs *fs, e4_group_t g, const uint8_t *buf, int inode)
{
	struct ext4_group_desc *d = desc_rw(fs, g);
	struct e4_group gr;
	e4_blk_t blk;
	errcode_t err;

	if (!d)
		return E4_ERR_BAD_GROUP_NUM;
	if (fs->gdt_copy)
		return E4_ERR_GDT_COPY;
	e4_group_get(fs, g, &gr);
	blk = inode ? gr.inode_bitmap : gr.block_bitmap;
	if (blk < fs->geom.first_data_block || blk >= fs->geom.blocks_count)
		return E4_ERR_GD_BAD_LOCATION;
	if (fs->geom.metadata_csum) {
		size_t len = inode ? fs->geom.inodes_per_group / 8 : fs->geom.clusters_per_group / 8;
		uint32_t c = e4_bitmap_csum(fs, buf, len);

		/* the halves the descriptor has (the low one alone: 32 bytes) */
		e4_gd_field_put(d, fs->geom.desc_size,
				inode ? E4_GDF_INODE_BITMAP_CSUM : E4_GDF_BLOCK_BITMAP_CSUM, c);
		e4_group_csum_set(fs, g);
	}
	err = e4_io_pwrite(fs->io, blk * (uint64_t)fs->geom.block_size, buf, fs->geom.block_size);
	return err;
}

errcode_t e4_block_bitmap_write(e4_fs *fs, e4_group_t g, const uint8_t *buf)
{
	return bitmap_write(fs, g, buf, 0);
}

errcode_t e4_inode_bitmap_write(e4_fs *fs, e4_group_t g, const uint8_t *buf)
{
	return bitmap_write(fs, g, buf, 1);
}

/* ---- inodes ----------------------------------------------------------- */
void e4_inode_csum_set(e4_fs *fs, e4_ino_t ino, struct ext4_inode *inode)
{
	uint32_t c;
	unsigned extra;

	if (!fs->geom.metadata_csum)
		return;
	c = e4_inode_csum(fs, ino, inode);
	inode->l_i_checksum_lo = e4_cpu_to_le16((uint16_t)c);
	extra = fs->geom.inode_size > EXT4_GOOD_OLD_INODE_SIZE ? e4_le16(inode->i_extra_isize) : 0;
	if (extra >= 4 && EXT4_GOOD_OLD_INODE_SIZE + extra <= fs->geom.inode_size)
		inode->i_checksum_hi = e4_cpu_to_le16((uint16_t)(c >> 16));
}

errcode_t e4_inode_write(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *buf)
{
	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (ino >= 1 && ino <= fs->geom.inodes_count)
		e4_inode_csum_set(fs, ino, &buf->inode);
	return e4_inode_write_as_is(fs, ino, buf);
}

errcode_t e4_inode_write_as_is(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *buf)
{
	const struct e4_geom *g = &fs->geom;
	uint64_t off;
	uint8_t *blk;
	errcode_t err;

	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	err = e4_inode_location(fs, ino, &off);
	if (err)
		return err;
	blk = malloc(g->block_size);
	if (!blk)
		return E4_ERR_NO_MEMORY;
	err = e4_io_read_blk(fs->io, off / g->block_size, 1, blk);
	if (!err) {
		memcpy(blk + off % g->block_size, buf->raw, g->inode_size);
		err = e4_io_write_blk(fs->io, off / g->block_size, 1, blk);
	}
	free(blk);
	return err;
}

/* ---- descriptor table and superblock copies --------------------------- */
static uint64_t sb_byte_offset(e4_fs *fs, e4_group_t g)
{
	if (g == 0)
		return EXT4_SUPERBLOCK_OFFSET;
	return e4_group_first_block(fs, g) * (uint64_t)fs->geom.block_size;
}

errcode_t e4_gdt_write(e4_fs *fs)
{
	const struct e4_geom *g = &fs->geom;
	int meta_bg = e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_META_BG);
	uint32_t first_meta_bg = meta_bg ? e4_le32(fs->sb->s_first_meta_bg) : g->desc_blocks;
	uint32_t classic = first_meta_bg < g->desc_blocks ? first_meta_bg : g->desc_blocks;
	unsigned bs = g->block_size;
	errcode_t err;

	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (fs->gdt_copy)
		return E4_ERR_GDT_COPY;
	/* classic GDT (or its first first_meta_bg blocks) after each copy */
	for (e4_group_t grp = 0; classic && grp < g->group_count; grp++) {
		e4_blk_t b;

		if (!e4_group_has_super(fs, grp))
			continue;
		b = e4_group_desc_block(fs, grp, 0);
		if (b + classic > g->blocks_count)
			return E4_ERR_GD_BAD_LOCATION;
		err = e4_io_pwrite(fs->io, b * (uint64_t)bs, fs->gdt, (size_t)classic * bs);
		if (err)
			return err;
	}
	/* meta_bg: descriptor block i in the first, second and last group
	 * of meta group i */
	for (uint32_t i = classic; i < g->desc_blocks; i++) {
		uint64_t first = (uint64_t)i * g->desc_per_block;
		uint64_t cand[3] = { first, first + 1, first + g->desc_per_block - 1 };

		for (int k = 0; k < 3; k++) {
			e4_blk_t b;

			if (cand[k] >= g->group_count || (k && cand[k] == cand[k - 1]))
				continue;
			b = e4_group_meta_desc_block(fs, (e4_group_t)cand[k]);
			if (b >= g->blocks_count)
				return E4_ERR_GD_BAD_LOCATION;
			err = e4_io_pwrite(fs->io, b * (uint64_t)bs, fs->gdt + (size_t)i * bs, bs);
			if (err)
				return err;
		}
	}
	return 0;
}

/* The primary table only: descriptor block i where the primary superblock's
 * copy has it (e4_group_desc_block(fs, 0, i): after the primary
 * superblock, or with meta_bg in the first group of its meta group). */
errcode_t e4_gdt_write_primary(e4_fs *fs)
{
	return e4_gdt_write_primary_blocks(fs, NULL);
}

errcode_t e4_gdt_write_primary_blocks(e4_fs *fs, const uint8_t *which)
{
	const struct e4_geom *g = &fs->geom;
	errcode_t err;

	if (fs->gdt_copy)
		return E4_ERR_GDT_COPY;
	for (uint32_t i = 0; i < g->desc_blocks; i++) {
		e4_blk_t b = e4_group_desc_block(fs, 0, i);

		if (which && !which[i])
			continue;

		if (b >= g->blocks_count)
			return E4_ERR_GD_BAD_LOCATION;
		err = e4_io_pwrite(fs->io, b * (uint64_t)g->block_size,
				   fs->gdt + (size_t)i * g->block_size, g->block_size);
		if (err)
			return err;
	}
	return 0;
}

errcode_t e4_super_write_backups(e4_fs *fs)
{
	struct ext4_super_block *copy;
	errcode_t err = 0;

	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	copy = malloc(EXT4_SUPERBLOCK_SIZE);
	if (!copy)
		return E4_ERR_NO_MEMORY;
	for (e4_group_t g = 1; g < fs->geom.group_count && !err; g++) {
		if (!e4_group_has_super(fs, g))
			continue;
		memcpy(copy, fs->sb, EXT4_SUPERBLOCK_SIZE);
		copy->s_block_group_nr = e4_cpu_to_le16(g > 65535 ? 65535 : (uint16_t)g);
		e4_sb_state_change(copy, 0, EXT4_VALID_FS);
		e4_sb_feature_change(copy, E4_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_RECOVER, 0);
		if (fs->geom.metadata_csum)
			copy->s_checksum = e4_cpu_to_le32(e4_superblock_csum(copy));
		err = e4_io_pwrite(fs->io, sb_byte_offset(fs, g), copy, EXT4_SUPERBLOCK_SIZE);
	}
	free(copy);
	return err;
}

/* ---- directory blocks -------------------------------------------------- */
void e4_dirblock_csum_set(e4_fs *fs, e4_ino_t dir, void *block)
{
	e4_dir_leaf_csum_set(fs, dir, 0, block);
}

errcode_t e4_dir_block_build(e4_fs *fs, e4_ino_t dir, const struct e4_new_dirent *ents,
			     unsigned n, void *block)
{
	unsigned bs = fs->geom.block_size;
	unsigned end = bs - (fs->geom.metadata_csum ? sizeof(struct ext4_dir_entry_tail) : 0);
	int filetype = e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_FILETYPE);
	unsigned off = 0;
	uint8_t *p = block;
	errcode_t err;

	memset(block, 0, bs);
	if (n == 0) {
		struct ext4_dir_entry_2 *de = block;

		err = e4_rec_len_to_disk(end, bs, &de->rec_len);
		if (err)
			return err;
	}
	for (unsigned i = 0; i < n; i++) {
		struct ext4_dir_entry_2 *de = (struct ext4_dir_entry_2 *)(p + off);
		unsigned len = (8 + ents[i].name_len + 3) & ~3U;

		if (ents[i].name_len == 0 || off + len > end)
			return E4_ERR_BUFFER_TOO_SMALL;
		if (i == n - 1)
			len = end - off;
		de->inode = e4_cpu_to_le32(ents[i].inode);
		err = e4_rec_len_to_disk(len, bs, &de->rec_len);
		if (err)
			return err;
		de->name_len = ents[i].name_len;
		de->file_type = filetype ? ents[i].file_type : 0;
		memcpy(de->name, ents[i].name, ents[i].name_len);
		off += len;
	}
	e4_dirblock_csum_set(fs, dir, block);
	return 0;
}

/* Extent trees: e4_extent_tree_build() is in extent_map.c. */

/* ---- indirect block maps ----------------------------------------------- */
struct bm_level {
	uint32_t *buf;
	e4_blk_t blk;
};

static errcode_t bm_flush(e4_fs *fs, struct bm_level *lv)
{
	errcode_t err = 0;

	if (lv->blk)
		err = e4_io_pwrite(fs->io, lv->blk * (uint64_t)fs->geom.block_size, lv->buf,
				   fs->geom.block_size);
	lv->blk = 0;
	return err;
}

errcode_t e4_blockmap_build(e4_fs *fs, struct ext4_inode *inode,
			    const struct e4_map_extent *ext, unsigned n,
			    const e4_blk_t *meta, uint32_t nr_meta)
{
	unsigned bs = fs->geom.block_size;
	uint64_t apb = bs / 4, lblk = 0, total = 0;
	struct bm_level lv[3];		/* 0: ind, 1: dind, 2: tind */
	uint32_t mi = 0;
	errcode_t err = 0;

	for (unsigned i = 0; i < n; i++) {
		if (ext[i].lblk != total || !ext[i].len ||
		    ext[i].pblk + ext[i].len > fs->geom.blocks_count ||
		    ext[i].pblk + ext[i].len > (1ULL << 32))
			return E4_ERR_INVALID_ARGUMENT;
		total += ext[i].len;
	}
	if (total > 12 + apb + apb * apb + apb * apb * apb)
		return E4_ERR_FILE_TOO_BIG;
	memset(lv, 0, sizeof(lv));
	for (int k = 0; k < 3; k++) {
		lv[k].buf = malloc(bs);
		if (!lv[k].buf) {
			err = E4_ERR_NO_MEMORY;
			goto out;
		}
	}
	memset(inode->i_block, 0, sizeof(inode->i_block));
	for (unsigned i = 0; i < n && !err; i++) {
		for (uint32_t k = 0; k < ext[i].len && !err; k++, lblk++) {
			uint32_t pb = (uint32_t)(ext[i].pblk + k);
			uint64_t j;
			/* which levels start a new block here, top first */
			int top = -1;

			if (lblk < 12) {
				inode->i_block[lblk] = e4_cpu_to_le32(pb);
				continue;
			}
			j = lblk - 12;
			if (j < apb) {
				if (j == 0)
					top = 0;
			} else if ((j -= apb) < apb * apb) {
				if (j == 0)
					top = 1;
				else if (j % apb == 0)
					top = 0;
			} else {
				j -= apb * apb;
				if (j == 0)
					top = 2;
				else if (j % (apb * apb) == 0)
					top = 1;
				else if (j % apb == 0)
					top = 0;
			}
			for (int l = top; l >= 0 && !err; l--) {
				e4_blk_t b;

				if (mi >= nr_meta) {
					err = E4_ERR_INVALID_ARGUMENT;
					break;
				}
				b = meta[mi++];
				if (!b || b >= fs->geom.blocks_count || b >= (1ULL << 32)) {
					err = E4_ERR_INVALID_ARGUMENT;
					break;
				}
				err = bm_flush(fs, &lv[l]);
				memset(lv[l].buf, 0, bs);
				lv[l].blk = b;
				/* hook the new block into its parent */
				if (l == 2) {
					inode->i_block[EXT4_TIND_BLOCK] = e4_cpu_to_le32((uint32_t)b);
				} else if (lblk < 12 + apb && l == 0) {
					inode->i_block[EXT4_IND_BLOCK] = e4_cpu_to_le32((uint32_t)b);
				} else if (lblk < 12 + apb + apb * apb) {
					if (l == 1)
						inode->i_block[EXT4_DIND_BLOCK] =
							e4_cpu_to_le32((uint32_t)b);
					else
						lv[1].buf[(j / apb) % apb] = e4_cpu_to_le32((uint32_t)b);
				} else if (l == 1) {
					lv[2].buf[(j / (apb * apb)) % apb] = e4_cpu_to_le32((uint32_t)b);
				} else {
					lv[1].buf[(j / apb) % apb] = e4_cpu_to_le32((uint32_t)b);
				}
			}
			if (!err)
				lv[0].buf[j % apb] = e4_cpu_to_le32(pb);
		}
	}
	for (int l = 0; l < 3 && !err; l++)
		err = bm_flush(fs, &lv[l]);
	if (!err && mi != nr_meta)
		err = E4_ERR_INVALID_ARGUMENT;
out:
	for (int k = 0; k < 3; k++)
		free(lv[k].buf);
	return err;
}

/* ---- the resize inode (format doc section 1.4) ------------------------- */
#define RESIZE_CHUNK	64	/* reserved GDT blocks per write */

/* The groups holding a copy (at most max, one indirect block's worth),
 * as the shift from the primary's blocks: a copy is the primary's block
 * shifted by whole groups, which is what mke2fs, e2fsck and the kernel
 * agree on (with 1 KiB-block bigalloc that is one block past the group's
 * reserved GDT start).  Returns how many. */
static uint32_t resize_backups(e4_fs *fs, e4_blk_t *backups, uint32_t max)
{
	uint32_t nb = 0;

	for (e4_group_t grp = 1; grp < fs->geom.group_count && nb < max; grp++)
		if (e4_group_has_super(fs, grp))
			backups[nb++] = (e4_blk_t)grp * fs->geom.blocks_per_group;
	return nb;
}

/* The first primary reserved GDT block's superblock block. */
static e4_blk_t resize_sb0(const struct e4_geom *g)
{
	return (g->first_data_block == 0 && g->block_size == 1024) ? 1 : g->first_data_block;
}

errcode_t e4_resize_inode_build(e4_fs *fs, e4_blk_t dind_blk, struct ext4_inode *inode,
				uint64_t *blocks_used)
{
	const struct e4_geom *g = &fs->geom;
	unsigned bs = g->block_size;
	uint32_t apb = bs / 4, rsv = e4_le16(fs->sb->s_reserved_gdt_blocks);
	e4_blk_t sb0 = resize_sb0(g);
	uint32_t *dind = NULL, *ind = NULL, nb = 0;
	e4_blk_t *backups = NULL;
	uint64_t used = 1, size;
	errcode_t err = 0;

	if (!dind_blk || dind_blk >= g->blocks_count || dind_blk >= (1ULL << 32) ||
	    rsv > apb || e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_META_BG))
		return E4_ERR_INVALID_ARGUMENT;
	dind = calloc(1, bs);
	ind = malloc((size_t)RESIZE_CHUNK * bs);
	backups = malloc(apb * sizeof(*backups));
	if (!dind || !ind || !backups) {
		err = E4_ERR_NO_MEMORY;
		goto out;
	}
	nb = resize_backups(fs, backups, apb);
	/* the reserved blocks are consecutive: written RESIZE_CHUNK at a time */
	for (uint32_t k0 = 0; k0 < rsv && !err; k0 += RESIZE_CHUNK) {
		uint32_t cnt = rsv - k0 < RESIZE_CHUNK ? rsv - k0 : RESIZE_CHUNK;

		memset(ind, 0, (size_t)cnt * bs);
		for (uint32_t k = k0; k < k0 + cnt; k++) {
			e4_blk_t pri = sb0 + 1 + g->desc_blocks + k;
			uint32_t *blk = ind + (size_t)(k - k0) * apb;

			for (uint32_t n = 0; n < nb; n++)
				blk[n] = e4_cpu_to_le32((uint32_t)(backups[n] + pri));
			dind[(g->desc_blocks + k) % apb] = e4_cpu_to_le32((uint32_t)pri);
			used += 1 + nb;
		}
		err = e4_io_pwrite(fs->io, (sb0 + 1 + g->desc_blocks + k0) * (uint64_t)bs, ind,
				   (size_t)cnt * bs);
	}
	if (!err)
		err = e4_io_pwrite(fs->io, dind_blk * (uint64_t)bs, dind, bs);
	if (err)
		goto out;
	/* always an indirect map, even on an extent filesystem */
	memset(inode->i_block, 0, sizeof(inode->i_block));
	inode->i_flags = e4_cpu_to_le32(e4_le32(inode->i_flags) & ~EXT4_EXTENTS_FL);
	inode->i_block[EXT4_DIND_BLOCK] = e4_cpu_to_le32((uint32_t)dind_blk);
	size = ((uint64_t)apb * apb + apb + EXT4_NDIR_BLOCKS) * bs;
	inode->i_size_lo = e4_cpu_to_le32((uint32_t)size);
	inode->i_size_high = e4_cpu_to_le32((uint32_t)(size >> 32));
	if (blocks_used)
		*blocks_used = used;
out:
	free(dind);
	free(ind);
	free(backups);
	return err;
}

/* The map of inode (the resize inode) against what
 * e4_resize_inode_build() makes: 0 when it is not. */
static int resize_map_ok(e4_fs *fs, const struct ext4_inode *inode, uint32_t *buf,
			 const e4_blk_t *backups, uint32_t nb, errcode_t *err)
{
	const struct e4_geom *g = &fs->geom;
	uint32_t apb = g->block_size / 4, rsv = e4_le16(fs->sb->s_reserved_gdt_blocks);
	e4_blk_t dind = e4_le32(inode->i_block[EXT4_DIND_BLOCK]), sb0 = resize_sb0(g);
	uint32_t *ind = buf + apb;

	for (int i = 0; i < EXT4_N_BLOCKS; i++)
		if (i != EXT4_DIND_BLOCK && inode->i_block[i])
			return 0;
	if ((e4_le32(inode->i_flags) & (EXT4_EXTENTS_FL | EXT4_INLINE_DATA_FL)) ||
	    dind < g->first_data_block || dind >= g->blocks_count || rsv > apb)
		return 0;
	if ((*err = e4_read_block(fs, dind, buf)))
		return 0;
	for (uint32_t k = 0; k < rsv; k++) {
		e4_blk_t pri = sb0 + 1 + g->desc_blocks + k;

		if (e4_le32(buf[(g->desc_blocks + k) % apb]) != pri)
			return 0;
		if ((*err = e4_read_block(fs, pri, ind)))
			return 0;
		for (uint32_t n = 0; n < nb; n++)
			if (e4_le32(ind[n]) != backups[n] + pri)
				return 0;
	}
	return 1;
}

errcode_t e4_resize_inode_check(e4_fs *fs, const struct ext4_inode *inode, int *valid)
{
	const struct e4_geom *g = &fs->geom;
	uint32_t apb = g->block_size / 4, rsv = e4_le16(fs->sb->s_reserved_gdt_blocks), nb;
	uint64_t used, size = ((uint64_t)apb * apb + apb + EXT4_NDIR_BLOCKS) * g->block_size;
	uint32_t *buf = malloc(2 * (size_t)g->block_size);
	e4_blk_t *backups = malloc(apb * sizeof(*backups));
	errcode_t err = 0;

	*valid = 0;
	if (!buf || !backups) {
		err = E4_ERR_NO_MEMORY;
		goto out;
	}
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_META_BG)) {
		err = E4_ERR_INVALID_ARGUMENT;
		goto out;
	}
	nb = resize_backups(fs, backups, apb);
	used = (1 + (uint64_t)rsv * (1 + nb)) << g->cluster_bits;
	*valid = resize_map_ok(fs, inode, buf, backups, nb, &err) && !err &&
		 e4_inode_size(inode) == size &&
		 e4_inode_blocks(fs, inode) == used * (g->block_size / 512);
out:
	free(buf);
	free(backups);
	return err;
}

errcode_t e4_resize_inode_create(e4_fs *fs, int64_t now)
{
	const struct e4_geom *g = &fs->geom;
	struct e4_time t = { now, 0 };
	union e4_inode_buf ib;
	e4_blk_t dind, goal = resize_sb0(g) + 1 + g->desc_blocks +
			      e4_le16(fs->sb->s_reserved_gdt_blocks);
	uint64_t got, used = 0;
	errcode_t err;

	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (!e4_has_compat(fs, EXT4_FEATURE_COMPAT_RESIZE_INODE) ||
	    e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_META_BG))
		return E4_ERR_INVALID_ARGUMENT;
	err = e4_inode_init_flags(fs, EXT4_RESIZE_INO, EXT4_S_IFREG | 0600, 0, 0, &t, 0,
				  E4_INODE_INIT_GENERATION, &ib);
	if (!err)
		err = e4_alloc_blocks(fs, goal, 1, 1, &dind, &got);
	if (err)
		return err;
	err = e4_resize_inode_build(fs, dind, &ib.inode, &used);
	if (!err)
		err = e4_inode_blocks_set(fs, &ib.inode,
					  (used << g->cluster_bits) * (g->block_size / 512));
	if (!err)
		err = e4_inode_write(fs, EXT4_RESIZE_INO, &ib);
	if (!err)
		err = e4_alloc_flush(fs);
	return err;
}

/* ---- jbd2 superblock (format doc section 14) --------------------------- */
void e4_jsb_init(journal_superblock_t *jsb, unsigned blocksize, uint32_t maxlen,
		 const uint8_t uuid[16], uint32_t fc_blocks)
{
	memset(jsb, 0, sizeof(*jsb));
	jsb->s_header.h_magic = e4_cpu_to_be32(JBD2_MAGIC_NUMBER);
	jsb->s_header.h_blocktype = e4_cpu_to_be32(JBD2_SUPERBLOCK_V2);
	jsb->s_blocksize = e4_cpu_to_be32(blocksize);
	jsb->s_maxlen = e4_cpu_to_be32(maxlen);
	jsb->s_first = e4_cpu_to_be32(1);
	jsb->s_sequence = e4_cpu_to_be32(1);
	jsb->s_nr_users = e4_cpu_to_be32(1);
	if (fc_blocks) {
		jsb->s_feature_incompat = e4_cpu_to_be32(JBD2_FEATURE_INCOMPAT_FAST_COMMIT);
		jsb->s_num_fc_blks = e4_cpu_to_be32(fc_blocks);
	}
	memcpy(jsb->s_uuid, uuid, 16);
}

/* ---- orphan file blocks (format doc section 6.8) ------------------------ */
void e4_orphan_block_init(e4_fs *fs, e4_ino_t ino, uint32_t generation, e4_blk_t pblk,
			  void *block)
{
	unsigned bs = fs->geom.block_size;
	struct ext4_orphan_block_tail *t =
		(struct ext4_orphan_block_tail *)((uint8_t *)block + bs - sizeof(*t));
	uint64_t le_blk = e4_cpu_to_le64(pblk);
	uint32_t c;

	memset(block, 0, bs);
	t->ob_magic = e4_cpu_to_le32(EXT4_ORPHAN_BLOCK_MAGIC);
	if (!fs->geom.metadata_csum)
		return;
	c = e4_inode_csum_seed(fs, ino, generation);
	c = e4_crc32c(c, &le_blk, sizeof(le_blk));
	c = e4_crc32c(c, block, bs - sizeof(*t));
	t->ob_checksum = e4_cpu_to_le32(c);
}
