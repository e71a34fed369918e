/*
 * xattr.c: extended attributes in the inode body and in an xattr block
 * (format doc section 9).
 *
 * A storage area (the in-inode area or the block) is validated as a whole
 * before any of its entries is reported: the entry table must end with
 * its 4-byte terminator inside the area and every value must lie inside
 * the area, after the table.  An area that fails yields no entries.
 * Values are read by e4_xattr_value, from the area or from an EA inode.
 */
#include <stdlib.h>
#include <string.h>

#include "e4_private.h"

#define XATTR_ENTRY_HDR		16	/* struct ext4_xattr_entry without name */
#define XATTR_VALUE_MAX		65536	/* largest value the kernel accepts */
#define GET_FOUND		(-1)	/* get_cb's stop value */

static const char *const prefixes[] = {
	[EXT4_XATTR_INDEX_USER]			= "user.",
	[EXT4_XATTR_INDEX_POSIX_ACL_ACCESS]	= "system.posix_acl_access",
	[EXT4_XATTR_INDEX_POSIX_ACL_DEFAULT]	= "system.posix_acl_default",
	[EXT4_XATTR_INDEX_TRUSTED]		= "trusted.",
	[EXT4_XATTR_INDEX_SECURITY]		= "security.",
	[EXT4_XATTR_INDEX_SYSTEM]		= "system.",
	[EXT4_XATTR_INDEX_RICHACL]		= "system.richacl",
};

const char *e4_xattr_prefix(uint8_t name_index)
{
	if (name_index < sizeof(prefixes) / sizeof(prefixes[0]) && prefixes[name_index])
		return prefixes[name_index];
	return "";
}

/*
 * One storage area.  Value offsets are relative to vbase, which holds
 * vsize bytes; the entry table starts at first (relative to vbase).
 */
struct xarea {
	const uint8_t *vbase;
	size_t vsize;
	size_t first;
	int in_inode;
	size_t base;			/* vbase's offset in the inode or block */
	e4_ino_t owner;			/* for the entries: whose they are */
	uint32_t owner_generation;
};

/* Validate the area; on success *table_end is the offset just past the
 * terminator. */
static errcode_t area_check(e4_fs *fs, const struct xarea *a)
{
	size_t off = a->first, table_end;

	for (;;) {
		if (off + 4 > a->vsize)
			return E4_ERR_XATTR_CORRUPT;	/* no terminator */
		if (e4_get_le32(a->vbase + off) == 0)
			break;
		if (off + XATTR_ENTRY_HDR > a->vsize ||
		    off + EXT4_XATTR_LEN(a->vbase[off]) > a->vsize)
			return E4_ERR_XATTR_CORRUPT;
		off += EXT4_XATTR_LEN(a->vbase[off]);
	}
	table_end = off + 4;

	for (off = a->first; e4_get_le32(a->vbase + off) != 0; off += EXT4_XATTR_LEN(a->vbase[off])) {
		const uint8_t *e = a->vbase + off;
		uint32_t inum = e4_get_le32(e + 4), size = e4_get_le32(e + 8);
		size_t voff = e4_get_le16(e + 2);

		if (size > XATTR_VALUE_MAX)
			return E4_ERR_XATTR_CORRUPT;
		if (inum) {
			/* the kernel's checks: a value inode needs the feature,
			 * is an ordinary inode (not reserved, not beyond the
			 * count), and holds a value (size 0 is corruption) */
			if (!e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EA_INODE) ||
			    inum < fs->geom.first_ino || inum > fs->geom.inodes_count || size == 0)
				return E4_ERR_XATTR_CORRUPT;
			continue;
		}
		if (size == 0)
			continue;
		if (voff < table_end || voff > a->vsize ||
		    EXT4_XATTR_SIZE((size_t)size) > a->vsize - voff)
			return E4_ERR_XATTR_CORRUPT;
	}
	return 0;
}

typedef int (*area_cb)(e4_fs *fs, const struct e4_xattr *x, void *priv);

/* Report every entry of a checked area; returns cb's nonzero value. */
static int area_walk(e4_fs *fs, const struct xarea *a, area_cb cb, void *priv)
{
	struct e4_xattr x;
	size_t off;
	int ret;

	for (off = a->first; e4_get_le32(a->vbase + off) != 0; off += EXT4_XATTR_LEN(a->vbase[off])) {
		const uint8_t *e = a->vbase + off;

		memset(&x, 0, sizeof(x));
		x.name_len = e[0];
		x.name_index = e[1];
		x.prefix = e4_xattr_prefix(x.name_index);
		memcpy(x.name, e + XATTR_ENTRY_HDR, x.name_len);
		x.name[x.name_len] = '\0';
		x.value_inum = e4_get_le32(e + 4);
		x.value_len = e4_get_le32(e + 8);
		x.e_hash = e4_get_le32(e + 12);
		x.owner = a->owner;
		x.owner_generation = a->owner_generation;
		if (!x.value_inum)
			x.value = x.value_len ? a->vbase + e4_get_le16(e + 2) : (const void *)"";
		x.in_inode = a->in_inode;
		x.e_offs = (uint32_t)(a->base + off);
		ret = cb(fs, &x, priv);
		if (ret)
			return ret;
	}
	return 0;
}

/* The in-inode area: 0 and a->vsize 0 when the inode has none. */
static errcode_t ibody_area(e4_fs *fs, const struct ext4_inode *inode, struct xarea *a)
{
	const uint8_t *raw = (const uint8_t *)inode;
	unsigned isize = fs->geom.inode_size, extra, start;
	errcode_t err;

	memset(a, 0, sizeof(*a));
	a->in_inode = 1;
	if (isize > E4_INODE_MAX_SIZE)
		isize = E4_INODE_MAX_SIZE;	/* what an inode buffer holds */
	if (isize <= EXT4_GOOD_OLD_INODE_SIZE)
		return 0;
	extra = e4_le16(inode->i_extra_isize);
	if ((extra & 3) || extra > isize - EXT4_GOOD_OLD_INODE_SIZE)
		return E4_ERR_BAD_EXTRA_ISIZE;
	start = EXT4_GOOD_OLD_INODE_SIZE + extra;
	if (start + 4 > isize || e4_get_le32(raw + start) != EXT4_XATTR_MAGIC)
		return 0;
	a->vbase = raw + start + 4;
	a->base = start + 4;
	a->vsize = isize - start - 4;
	a->first = 0;
	err = area_check(fs, a);
	if (err)
		a->vsize = 0;
	return err;
}

/* Read and check the xattr block into buf (one fs block); its checksum
 * too unless any_csum. */
static errcode_t block_area_csum(e4_fs *fs, e4_blk_t blk, uint8_t *buf, struct xarea *a,
				 int any_csum)
{
	const struct ext4_xattr_header *h = (const struct ext4_xattr_header *)buf;
	errcode_t err;

	memset(a, 0, sizeof(*a));
	if (blk < fs->geom.first_data_block || blk >= fs->geom.blocks_count)
		return E4_ERR_BAD_BLOCK_NUM;
	err = e4_read_block(fs, blk, buf);
	if (err)
		return err;
	if (e4_le32(h->h_magic) != EXT4_XATTR_MAGIC)
		return E4_ERR_XATTR_MAGIC;
	if (e4_le32(h->h_blocks) != 1)
		return E4_ERR_XATTR_CORRUPT;
	a->vbase = buf;
	a->vsize = fs->geom.block_size;
	a->first = sizeof(struct ext4_xattr_header);
	a->in_inode = 0;
	/* the structure first: a checksum mismatch is said only of a block
	 * that is otherwise sound (one rewritten checksum must not bless a
	 * damaged block) */
	err = area_check(fs, a);
	if (err)
		return err;
	if (fs->geom.metadata_csum && !e4_ignore_csum(fs) && !any_csum &&
	    e4_le32(h->h_checksum) != e4_xattr_block_csum(fs, blk, buf))
		return E4_ERR_XATTR_CSUM;
	return 0;
}

static errcode_t block_area(e4_fs *fs, e4_blk_t blk, uint8_t *buf, struct xarea *a)
{
	return block_area_csum(fs, blk, buf, a, 0);
}

errcode_t e4_xattr_iterate(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			   e4_xattr_cb cb, void *priv)
{
	union e4_inode_buf ib;
	struct xarea a;
	uint8_t *buf;
	e4_blk_t blk;
	errcode_t err;
	int ret;

	if (!inode) {
		err = e4_inode_read(fs, ino, &ib);
		if (err)
			return err;
		inode = &ib.inode;
	}
	err = ibody_area(fs, inode, &a);
	if (err)
		return err;
	a.owner = ino;
	a.owner_generation = e4_le32(inode->i_generation);
	if (a.vsize) {
		ret = area_walk(fs, &a, cb, priv);
		if (ret)
			return ret;
	}
	blk = e4_inode_file_acl(fs, inode);
	if (!blk)
		return 0;
	buf = malloc(fs->geom.block_size);
	if (!buf)
		return E4_ERR_NO_MEMORY;
	err = block_area(fs, blk, buf, &a);
	a.owner = ino;
	a.owner_generation = e4_le32(inode->i_generation);
	if (!err)
		err = area_walk(fs, &a, cb, priv);
	free(buf);
	return err;
}

errcode_t e4_xattr_ibody_iterate(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
				 e4_xattr_cb cb, void *priv)
{
	struct xarea a;
	errcode_t err;

	err = ibody_area(fs, inode, &a);
	if (err || !a.vsize)
		return err;
	a.owner = ino;
	a.owner_generation = e4_le32(inode->i_generation);
	return area_walk(fs, &a, cb, priv);
}

errcode_t e4_xattr_block_iterate(e4_fs *fs, e4_blk_t blk, void *buf, e4_xattr_cb cb,
				 void *priv)
{
	return e4_xattr_block_iterate_csum(fs, blk, buf, 0, cb, priv);
}

errcode_t e4_xattr_block_iterate_csum(e4_fs *fs, e4_blk_t blk, void *buf, int any_csum,
				      e4_xattr_cb cb, void *priv)
{
	struct xarea a;
	errcode_t err;

	err = block_area_csum(fs, blk, buf, &a, any_csum);
	if (!err)
		err = area_walk(fs, &a, cb, priv);
	return err;
}

errcode_t e4_xattr_ibody_find(e4_fs *fs, const struct ext4_inode *inode, uint8_t name_index,
			      const char *name, size_t name_len, const void **value,
			      uint32_t *value_len)
{
	struct xarea a;
	size_t off;
	errcode_t err;

	err = ibody_area(fs, inode, &a);
	if (err)
		return err;
	if (!a.vsize)
		return E4_ERR_XATTR_NOT_FOUND;
	for (off = a.first; e4_get_le32(a.vbase + off) != 0; off += EXT4_XATTR_LEN(a.vbase[off])) {
		const uint8_t *e = a.vbase + off;

		if (e[1] != name_index || e[0] != name_len ||
		    memcmp(e + XATTR_ENTRY_HDR, name, name_len))
			continue;
		if (e4_get_le32(e + 4))
			return E4_ERR_XATTR_CORRUPT;	/* not for ea_inode values */
		*value_len = e4_get_le32(e + 8);
		*value = *value_len ? a.vbase + e4_get_le16(e + 2) : (const void *)"";
		return 0;
	}
	return E4_ERR_XATTR_NOT_FOUND;
}

/* The entry hash of an attribute whose value is in an EA inode: the
 * name, then the value's hash as one word (e4_xattr_hash_entry()). */
static uint32_t entry_hash(const char *name, size_t len, uint32_t word, int signed_chars)
{
	uint32_t le = e4_cpu_to_le32(word);

	return e4_xattr_hash_entry(name, len, &le, 4, signed_chars);
}

/* Whether inode x->value_inum may hold x's value (before reading it).
 * An inode with i_links_count 0 is a deleted one to the kernel's inode
 * reader (__ext4_iget: ESTALE outside the orphan cleanup at mount; the
 * boot loader inode, the one exception, is below first_ino):
 * E4_ERR_EA_INODE_UNLINKED. */
static errcode_t ea_inode_check(e4_fs *fs, const struct e4_xattr *x,
				const struct ext4_inode *ea)
{
	if (x->value_inum == x->owner || x->value_inum < fs->geom.first_ino)
		return E4_ERR_EA_INODE_BAD;
	if (!e4_le16(ea->i_links_count))
		return E4_ERR_EA_INODE_UNLINKED;
	if (!(e4_le32(ea->i_flags) & EXT4_EA_INODE_FL))
		return E4_ERR_EA_INODE_BAD;
	if (e4_inode_size(ea) != x->value_len)
		return E4_ERR_EA_INODE_SIZE;
	return 0;
}

/* An old Lustre EA inode: a back pointer to its owner (i_mtime, and
 * i_generation the owner's), no value hash kept. */
static int ea_lustre(const struct e4_xattr *x, const struct ext4_inode *ea)
{
	return x->e_hash != e4_le32(ea->i_atime) && e4_le32(ea->i_mtime) == x->owner &&
	       e4_le32(ea->i_generation) == x->owner_generation;
}

/* The hashes of a value read from an EA inode (the kernel's rules). */
static errcode_t ea_inode_hashes(e4_fs *fs, const struct e4_xattr *x,
				 const struct ext4_inode *ea, const void *value)
{
	uint32_t stored = e4_le32(ea->i_atime), hash;

	if (ea_lustre(x, ea))
		return 0;
	hash = e4_crc32c(fs->csum_seed, value, x->value_len);
	if (hash != stored)
		return E4_ERR_EA_INODE_HASH;
	if (!x->in_inode &&	/* the kernel checks entries of a block only */
	    x->e_hash != entry_hash(x->name, x->name_len, hash, 0) &&
	    x->e_hash != entry_hash(x->name, x->name_len, hash, 1))
		return E4_ERR_EA_INODE_HASH;
	return 0;
}

/* The value of x kept in EA inode x->value_inum (read into *ib) into v
 * (x->value_len bytes), the inode checked as the kernel checks it, the
 * hashes not. */
static errcode_t ea_value_read(e4_fs *fs, const struct e4_xattr *x, union e4_inode_buf *ib,
			       uint8_t *v)
{
	e4_file *f = NULL;
	size_t got;
	errcode_t err;

	err = e4_inode_read(fs, x->value_inum, ib);
	if (!err)
		err = ea_inode_check(fs, x, &ib->inode);
	if (!err)
		err = e4_file_open(fs, x->value_inum, &ib->inode, &f);
	if (!err)
		err = e4_file_pread(f, 0, v, x->value_len, &got);
	if (!err && got != x->value_len)
		err = E4_ERR_EA_INODE_SIZE;
	if (f)
		e4_file_close(f);
	return err;
}

errcode_t e4_xattr_value(e4_fs *fs, const struct e4_xattr *x, void **value)
{
	union e4_inode_buf ib;
	uint8_t *v;
	errcode_t err;

	*value = NULL;
	v = malloc(x->value_len ? x->value_len : 1);
	if (!v)
		return E4_ERR_NO_MEMORY;
	if (!x->value_inum) {
		memcpy(v, x->value, x->value_len);
		*value = v;
		return 0;
	}
	err = ea_value_read(fs, x, &ib, v);
	if (!err)
		err = ea_inode_hashes(fs, x, &ib.inode, v);
	if (err) {
		free(v);
		return err;
	}
	*value = v;
	return 0;
}

errcode_t e4_xattr_hashes(e4_fs *fs, const struct e4_xattr *x, struct e4_xattr_hashes *h)
{
	union e4_inode_buf ib;
	uint8_t *v;
	errcode_t err;

	memset(h, 0, sizeof(*h));
	if (!x->value_inum) {
		h->entry = e4_xattr_hash_entry(x->name, x->name_len, x->value, x->value_len, 0);
		h->entry_signed = e4_xattr_hash_entry(x->name, x->name_len, x->value,
						      x->value_len, 1);
		return 0;
	}
	v = malloc(x->value_len ? x->value_len : 1);
	if (!v)
		return E4_ERR_NO_MEMORY;
	err = ea_value_read(fs, x, &ib, v);
	if (!err) {
		h->ea = 1;
		h->lustre = ea_lustre(x, &ib.inode);
		h->ea_stored = e4_le32(ib.inode.i_atime);
		h->ea_value = e4_crc32c(fs->csum_seed, v, x->value_len);
		h->entry = entry_hash(x->name, x->name_len, h->ea_value, 0);
		h->entry_signed = entry_hash(x->name, x->name_len, h->ea_value, 1);
		h->entry_kept = entry_hash(x->name, x->name_len, h->ea_stored, 0);
		h->entry_kept_signed = entry_hash(x->name, x->name_len, h->ea_stored, 1);
	}
	free(v);
	return err;
}

struct getter {
	const char *fullname;
	size_t len;
	void *value;
	size_t value_len;
	errcode_t err;
};

static int get_cb(e4_fs *fs, const struct e4_xattr *x, void *priv)
{
	struct getter *g = priv;
	size_t plen = strlen(x->prefix);

	if (!*x->prefix || plen + x->name_len != g->len ||
	    memcmp(g->fullname, x->prefix, plen) ||
	    memcmp(g->fullname + plen, x->name, x->name_len))
		return 0;
	g->value_len = x->value_len;
	g->err = e4_xattr_value(fs, x, &g->value);
	return GET_FOUND;
}

errcode_t e4_xattr_get(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
		       const char *fullname, void **value, size_t *len)
{
	struct getter g;
	errcode_t err;

	memset(&g, 0, sizeof(g));
	g.fullname = fullname;
	g.len = strlen(fullname);
	*value = NULL;
	*len = 0;
	err = e4_xattr_iterate(fs, ino, inode, get_cb, &g);
	if (err != (errcode_t)GET_FOUND)
		return err ? err : E4_ERR_XATTR_NOT_FOUND;
	if (g.err)
		return g.err;
	*value = g.value;
	*len = g.value_len;
	return 0;
}
