/*
 * xattr_ea.c: values kept in EA inodes (ea_inode feature; format doc
 * section 9) for the xattr writer (xattr_int.h): a new EA inode as the
 * kernel makes one (ext4_xattr_inode_create: a regular file, mode 0600,
 * the owner's uid and gid, EXT4_EA_INODE_FL, the value's crc32c in
 * i_atime), and reference counts kept in i_ctime (high 32 bits) and
 * l_i_version (low 32 bits); an EA inode left with none is freed.
 */
#include <stdlib.h>
#include <string.h>

#include "xattr_int.h"

void e4_xea_free(struct e4_xea *ea)
{
	for (unsigned i = 0; i < ea->nrefs; i++)
		free(ea->refs[i].ib);
	free(ea->refs);
	free(ea->ib);
	free(ea->meta_buf);
	memset(ea, 0, sizeof(*ea));
}

errcode_t e4_xea_ref_add(struct e4_xea *ea, uint32_t ino, int64_t d)
{
	struct e4_xref *r;

	for (unsigned i = 0; i < ea->nrefs; i++) {
		if (ea->refs[i].ino == ino) {
			ea->refs[i].delta += d;
			return 0;
		}
	}
	r = realloc(ea->refs, (ea->nrefs + 1) * sizeof(*r));
	if (!r)
		return E4_ERR_NO_MEMORY;
	ea->refs = r;
	memset(&r[ea->nrefs], 0, sizeof(*r));
	r[ea->nrefs].ino = ino;
	r[ea->nrefs++].delta = d;
	return 0;
}

static uint64_t ea_ref_get(const struct ext4_inode *inode)
{
	return ((uint64_t)e4_le32(inode->i_ctime) << 32) | e4_le32(inode->l_i_version);
}

/* The kernel keeps the count in i_ctime (high 32 bits, no nanoseconds)
 * and the raw i_version (low 32 bits; i_version_hi 0). */
static void ea_ref_set(e4_fs *fs, struct ext4_inode *inode, uint64_t ref)
{
	uint32_t base, extra;

	e4_time_encode((int64_t)(ref >> 32), 0, &base, &extra);
	inode->i_ctime = e4_cpu_to_le32(base);
	if (e4_inode_has_field(fs, inode, offsetof(struct ext4_inode, i_ctime_extra), 4))
		inode->i_ctime_extra = e4_cpu_to_le32(extra);
	inode->l_i_version = e4_cpu_to_le32((uint32_t)ref);
	if (e4_inode_has_field(fs, inode, offsetof(struct ext4_inode, i_version_hi), 4))
		inode->i_version_hi = 0;
}

uint64_t e4_ea_inode_refcount(const struct ext4_inode *inode)
{
	return ea_ref_get(inode);
}

void e4_ea_inode_refcount_set(e4_fs *fs, struct ext4_inode *inode, uint64_t ref)
{
	ea_ref_set(fs, inode, ref);
}

/* i_extra_isize of a new inode, as the kernel picks it: 32, or the
 * superblock's wish (extra_isize feature) when larger and it fits. */
static uint16_t new_extra_isize(e4_fs *fs)
{
	const struct ext4_super_block *sb = e4_super(fs);
	unsigned room = fs->geom.inode_size - EXT4_GOOD_OLD_INODE_SIZE, want = E4_XATTR_EXTRA_ISIZE_DEF;

	if (fs->geom.inode_size <= EXT4_GOOD_OLD_INODE_SIZE)
		return 0;
	if (e4_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE)) {
		if (e4_le16(sb->s_want_extra_isize) > want)
			want = e4_le16(sb->s_want_extra_isize);
		if (e4_le16(sb->s_min_extra_isize) > want)
			want = e4_le16(sb->s_min_extra_isize);
	}
	if (want > room || (want & 3))
		want = E4_XATTR_EXTRA_ISIZE_DEF <= room ? E4_XATTR_EXTRA_ISIZE_DEF : 0;
	return (uint16_t)want;
}

/* Blocks for a value of len bytes near goal: one run if there is one,
 * else cluster by cluster.  Marks them; ea->ext holds the runs. */
static errcode_t ea_alloc_data(struct e4_xea *ea, e4_blk_t goal, uint32_t nblk, uint64_t *clusters)
{
	e4_fs *fs = ea->fs;
	uint32_t unit = 1u << fs->geom.cluster_bits, done = 0;
	uint64_t got;
	e4_blk_t b;
	errcode_t err;

	*clusters = 0;
	if (!e4_alloc_blocks(fs, goal, nblk, nblk, &b, &got)) {
		ea->ext[0] = (struct e4_map_extent){ .lblk = 0, .pblk = b, .len = nblk };
		ea->next = 1;
		*clusters = (nblk + unit - 1) / unit;
		return 0;
	}
	while (done < nblk) {
		uint32_t n = nblk - done < unit ? nblk - done : unit;
		struct e4_map_extent *last = ea->next ? &ea->ext[ea->next - 1] : NULL;

		err = e4_alloc_blocks(fs, goal, unit, unit, &b, &got);
		if (err)
			return err;
		(*clusters)++;
		if (last && last->pblk + last->len == b) {
			last->len += n;
		} else {
			if (ea->next == sizeof(ea->ext) / sizeof(ea->ext[0])) {
				e4_block_mark(fs, b, unit, 0, NULL);
				return E4_ERR_NO_SPACE;
			}
			ea->ext[ea->next++] = (struct e4_map_extent){ .lblk = done, .pblk = b,
									   .len = n };
		}
		done += n;
		goal = b + unit;
	}
	return 0;
}

/* Give back what ea_create() took (nothing written yet). */
void e4_xea_undo(struct e4_xea *ea)
{
	uint32_t unit = 1u << ea->fs->geom.cluster_bits;

	for (unsigned i = 0; i < ea->next; i++)
		e4_block_mark(ea->fs, ea->ext[i].pblk,
			      (ea->ext[i].len + unit - 1) / unit * unit, 0, NULL);
	if (ea->meta)
		e4_block_mark(ea->fs, ea->meta, 1, 0, NULL);
	if (ea->ino)
		e4_inode_mark(ea->fs, ea->ino, 0, 0, NULL);
	ea->next = 0;
	ea->meta = 0;
	ea->ino = 0;
}

/* The inode fields of a new EA inode for x (reference count 0: the
 * commit counts the areas naming it). */
static void ea_inode_init(struct e4_xea *ea, const struct ext4_inode *owner,
			  const struct e4_xent *x, uint32_t hash)
{
	e4_fs *fs = ea->fs;
	struct ext4_inode *in = &ea->ib->inode;
	uint32_t base, extra;

	memset(ea->ib, 0, sizeof(*ea->ib));
	in->i_mode = e4_cpu_to_le16(EXT4_S_IFREG | 0600);
	in->i_uid = owner->i_uid;
	in->l_i_uid_high = owner->l_i_uid_high;
	in->i_gid = owner->i_gid;
	in->l_i_gid_high = owner->l_i_gid_high;
	in->i_links_count = e4_cpu_to_le16(1);
	in->i_size_lo = e4_cpu_to_le32(x->value_len);
	in->i_flags = e4_cpu_to_le32(EXT4_EA_INODE_FL);
	in->i_extra_isize = e4_cpu_to_le16(new_extra_isize(fs));
	e4_time_encode(ea->now, 0, &base, &extra);
	in->i_mtime = e4_cpu_to_le32(base);
	if (e4_inode_has_field(fs, in, offsetof(struct ext4_inode, i_crtime_extra), 4)) {
		in->i_mtime_extra = e4_cpu_to_le32(extra);
		in->i_crtime = e4_cpu_to_le32(base);
		in->i_crtime_extra = e4_cpu_to_le32(extra);
	}
	e4_ea_inode_hash_set(fs, in, hash);
	ea_ref_set(fs, in, 0);
}

void e4_ea_inode_hash_set(e4_fs *fs, struct ext4_inode *in, uint32_t hash)
{
	uint32_t base, extra;

	/* the value's hash in i_atime, as a time with no nanoseconds */
	e4_time_encode(hash, 0, &base, &extra);
	in->i_atime = e4_cpu_to_le32(base);
	if (e4_inode_has_field(fs, in, offsetof(struct ext4_inode, i_atime_extra), 4))
		in->i_atime_extra = e4_cpu_to_le32(extra);
}

/* Map the data blocks in the new EA inode: extents (a leaf block past
 * four runs) or, without the extents feature, an indirect map. */
static errcode_t ea_map_build(struct e4_xea *ea, e4_blk_t goal, uint64_t *clusters)
{
	e4_fs *fs = ea->fs;
	uint32_t nblk = 0;
	errcode_t err;

	for (unsigned i = 0; i < ea->next; i++)
		nblk += ea->ext[i].len;
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EXTENTS) ? ea->next > 4 : nblk > 12) {
		ea->meta_buf = calloc(1, fs->geom.block_size);
		if (!ea->meta_buf)
			return E4_ERR_NO_MEMORY;
		uint64_t got;

		err = e4_alloc_blocks(fs, goal, 1, 1, &ea->meta, &got);
		if (err) {
			ea->meta = 0;
			return err;
		}
		(*clusters)++;
	}
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EXTENTS))
		return e4_extent_tree_build(fs, ea->ino, &ea->ib->inode, ea->ext, ea->next,
					    ea->meta, ea->meta_buf);
	return 0;	/* the indirect map is built when written (ea_write) */
}

/* Allocate the EA inode for x (inode near the owner, data near it) and
 * prepare its image; nothing written.  x->inum and x->hash are set. */
errcode_t e4_xea_create(struct e4_xea *ea, const struct ext4_inode *owner, struct e4_xent *x)
{
	e4_fs *fs = ea->fs;
	uint32_t nblk = (x->value_len + fs->geom.block_size - 1) / fs->geom.block_size;
	uint32_t hash = e4_crc32c(e4_csum_seed(fs), x->value, x->value_len);
	uint32_t le = e4_cpu_to_le32(hash);
	uint64_t clusters = 0;
	e4_blk_t goal;
	errcode_t err;

	ea->ib = malloc(sizeof(*ea->ib));
	if (!ea->ib)
		return E4_ERR_NO_MEMORY;
	/* the allocator's policy for a file of the owner's: its group, then
	 * the following ones; data at the goal of a regular file */
	err = e4_alloc_inode(fs, ea->owner, EXT4_S_IFREG, &ea->ino);
	if (err) {
		ea->ino = 0;
		return err;
	}
	goal = e4_alloc_goal_for_mode(fs, ea->ino, EXT4_S_IFREG);
	ea_inode_init(ea, owner, x, hash);
	err = ea_alloc_data(ea, goal, nblk, &clusters);
	if (!err)
		err = ea_map_build(ea, goal, &clusters);
	if (!err)
		err = e4_inode_blocks_set(fs, &ea->ib->inode,
					  clusters * (fs->geom.cluster_size / 512));
	if (err) {
		e4_xea_undo(ea);
		return err;
	}
	x->inum = ea->ino;
	x->hash = e4_xattr_hash_entry(x->name, x->name_len, &le, 4, 0);
	x->new_ea = 0;
	return 0;
}

/* Write the new EA inode's data and map blocks (its inode is written
 * with its reference count, refs_apply). */
errcode_t e4_xea_write_data(struct e4_xea *ea, const uint8_t *value, uint32_t len)
{
	e4_fs *fs = ea->fs;
	unsigned bs = fs->geom.block_size;
	uint8_t *blk = malloc(bs);
	size_t pos = 0;
	errcode_t err = 0;

	if (!blk)
		return E4_ERR_NO_MEMORY;
	for (unsigned i = 0; i < ea->next && !err; i++) {
		for (uint32_t k = 0; k < ea->ext[i].len && !err; k++, pos += bs) {
			size_t n = len - pos < bs ? len - pos : bs;

			memset(blk, 0, bs);
			memcpy(blk, value + pos, n);
			err = e4_io_write_blk(fs->io, ea->ext[i].pblk + k, 1, blk);
		}
	}
	free(blk);
	if (err)
		return err;
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EXTENTS))
		return ea->meta ? e4_io_write_blk(fs->io, ea->meta, 1, ea->meta_buf) : 0;
	return e4_blockmap_build(fs, &ea->ib->inode, ea->ext, ea->next, &ea->meta,
				 ea->meta ? 1 : 0);
}

/* Read and check every EA inode whose count moves (before any write). */
errcode_t e4_xea_refs_prepare(struct e4_xea *ea)
{
	for (unsigned i = 0; i < ea->nrefs; i++) {
		struct e4_xref *r = &ea->refs[i];
		errcode_t err;

		if (!r->delta || r->ino == ea->ino)
			continue;
		r->ib = malloc(sizeof(*r->ib));
		if (!r->ib)
			return E4_ERR_NO_MEMORY;
		err = e4_inode_read(ea->fs, r->ino, r->ib);
		if (err)
			return err;
		if (r->ino == ea->owner || !(e4_le32(r->ib->inode.i_flags) & EXT4_EA_INODE_FL))
			return E4_ERR_EA_INODE_BAD;
	}
	return 0;
}

/* Apply the positive (up 1) or negative (up 0) count changes; an EA inode
 * left with no reference is freed. */
errcode_t e4_xea_refs_apply(struct e4_xea *ea, int up)
{
	for (unsigned i = 0; i < ea->nrefs; i++) {
		struct e4_xref *r = &ea->refs[i];
		union e4_inode_buf *ib = r->ino == ea->ino ? ea->ib : r->ib;
		uint64_t ref;
		errcode_t err;

		if ((up && r->delta <= 0) || (!up && r->delta >= 0))
			continue;
		ref = ea_ref_get(&ib->inode);
		ref = r->delta < 0 && (uint64_t)-r->delta > ref ? 0 : ref + (uint64_t)r->delta;
		ea_ref_set(ea->fs, &ib->inode, ref);
		if (!ref) {
			err = e4_inode_truncate_blocks(ea->fs, r->ino, ib, 0, NULL);
			if (err)
				return err;
			ib->inode.i_links_count = 0;
			ib->inode.i_dtime = e4_cpu_to_le32((uint32_t)ea->now);
		}
		err = e4_inode_write(ea->fs, r->ino, ib);
		if (!err && !ref)
			err = e4_inode_mark(ea->fs, r->ino, 0, 0, NULL);
		if (err)
			return err;
	}
	return 0;
}

