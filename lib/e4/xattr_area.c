/*
 * xattr_area.c: the entries of one xattr area (the inode body or the
 * block) as a list for the writer (xattr_int.h): loading through the
 * reader's checks, sizes, and encoding as the kernel lays areas out
 * (format doc section 9); the entry and block hashes and name parsing of
 * xattr_write.h.
 */
#include <stdlib.h>
#include <string.h>

#include "xattr_int.h"

/* ---- hashes ------------------------------------------------------------ */
uint32_t e4_xattr_hash_entry(const char *name, size_t name_len, const void *value,
			     size_t value_len, int signed_chars)
{
	const uint8_t *v = value;
	uint32_t h = 0;

	for (size_t i = 0; i < name_len; i++) {
		uint32_t c = signed_chars ? (uint32_t)(int32_t)(signed char)name[i]
					  : (uint32_t)(unsigned char)name[i];

		h = (h << 5) ^ (h >> 27) ^ c;
	}
	for (size_t i = 0; i < value_len; i += 4) {
		uint8_t w[4] = { 0, 0, 0, 0 };

		memcpy(w, v + i, value_len - i < 4 ? value_len - i : 4);
		h = (h << 16) ^ (h >> 16) ^ e4_get_le32(w);
	}
	return h;
}

uint32_t e4_xattr_block_hash(const void *block, size_t block_size)
{
	const uint8_t *b = block;
	uint32_t h = 0;

	for (size_t off = E4_XATTR_BLOCK_HDR; off + E4_XATTR_ENTRY_HDR <= block_size && e4_get_le32(b + off);
	     off += EXT4_XATTR_LEN(b[off])) {
		uint32_t eh = e4_get_le32(b + off + 12);

		if (!eh)
			return 0;	/* not shared if an entry's hash is 0 */
		h = (h << 16) ^ (h >> 16) ^ eh;
	}
	return h;
}

/* ---- names ------------------------------------------------------------- */
static int prefix_is_whole_name(const char *prefix)
{
	size_t n = strlen(prefix);

	return n && prefix[n - 1] != '.';
}

errcode_t e4_xattr_name_parse(const char *fullname, uint8_t *name_index, const char **suffix,
			      size_t *suffix_len)
{
	size_t best = 0;

	for (unsigned i = 1; i < 256; i++) {
		const char *p = e4_xattr_prefix((uint8_t)i);
		size_t n = strlen(p);

		if (!n || n <= best || strncmp(fullname, p, n))
			continue;
		if (prefix_is_whole_name(p) ? fullname[n] != '\0' : fullname[n] == '\0')
			continue;
		best = n;
		*name_index = (uint8_t)i;
	}
	if (!best || strlen(fullname + best) > 255)
		return E4_ERR_XATTR_NAME;
	*suffix = fullname + best;
	*suffix_len = strlen(fullname + best);
	return 0;
}

errcode_t e4_xattr_name_check(uint8_t index, size_t name_len, size_t value_len)
{
	if (!index || name_len > 255 ||
	    (!name_len && !prefix_is_whole_name(e4_xattr_prefix(index))))
		return E4_ERR_XATTR_NAME;
	if (value_len > E4_XATTR_VALUE_MAX)
		return E4_ERR_XATTR_TOO_BIG;
	return 0;
}

/* ---- entry lists ------------------------------------------------------- */
void e4_xlist_free(struct e4_xlist *l)
{
	for (unsigned i = 0; i < l->n; i++)
		free(l->e[i].value);
	free(l->e);
	memset(l, 0, sizeof(*l));
}

/* Insert *x at position pos (ownership of x->value moves to the list). */
errcode_t e4_xlist_insert(struct e4_xlist *l, unsigned pos, const struct e4_xent *x)
{
	if (l->n == l->cap) {
		unsigned cap = l->cap ? 2 * l->cap : 8;
		struct e4_xent *e = realloc(l->e, cap * sizeof(*e));

		if (!e)
			return E4_ERR_NO_MEMORY;
		l->e = e;
		l->cap = cap;
	}
	memmove(&l->e[pos + 1], &l->e[pos], (l->n - pos) * sizeof(*x));
	l->e[pos] = *x;
	l->n++;
	return 0;
}

void e4_xlist_delete(struct e4_xlist *l, unsigned pos)
{
	free(l->e[pos].value);
	memmove(&l->e[pos], &l->e[pos + 1], (l->n - pos - 1) * sizeof(l->e[0]));
	l->n--;
}

/* The kernel's order of block entries: index, name length, name bytes. */
int e4_xent_cmp(uint8_t index, size_t len, const char *name, const struct e4_xent *b)
{
	if (index != b->index)
		return index < b->index ? -1 : 1;
	if (len != b->name_len)
		return len < b->name_len ? -1 : 1;
	return memcmp(name, b->name, len);
}

int e4_xlist_find(const struct e4_xlist *l, uint8_t index, const char *name, size_t len)
{
	for (unsigned i = 0; i < l->n; i++)
		if (!e4_xent_cmp(index, len, name, &l->e[i]))
			return (int)i;
	return -1;
}

/* Where (index, name) goes in a sorted list. */
unsigned e4_xlist_sorted_pos(const struct e4_xlist *l, uint8_t index, const char *name,
				size_t len)
{
	unsigned i = 0;

	while (i < l->n && e4_xent_cmp(index, len, name, &l->e[i]) > 0)
		i++;
	return i;
}

/* Bytes an entry takes in its area: the entry, and the value if in place. */
size_t e4_xent_cost(const struct e4_xent *x)
{
	return EXT4_XATTR_LEN(x->name_len) +
	       (x->inum || x->new_ea ? 0 : EXT4_XATTR_SIZE((size_t)x->value_len));
}

size_t e4_xlist_cost(const struct e4_xlist *l)
{
	size_t n = 4;	/* the terminator */

	for (unsigned i = 0; i < l->n; i++)
		n += e4_xent_cost(&l->e[i]);
	return n;
}

size_t e4_xlist_values(const struct e4_xlist *l)
{
	size_t n = 0;

	for (unsigned i = 0; i < l->n; i++)
		if (!l->e[i].inum && !l->e[i].new_ea)
			n += EXT4_XATTR_SIZE((size_t)l->e[i].value_len);
	return n;
}

int e4_xlist_equal(const struct e4_xlist *a, const struct e4_xlist *b)
{
	if (a->n != b->n)
		return 0;
	for (unsigned i = 0; i < a->n; i++) {
		const struct e4_xent *x = &a->e[i], *y = &b->e[i];

		if (e4_xent_cmp(x->index, x->name_len, x->name, y) || x->new_ea || y->new_ea ||
		    x->inum != y->inum || x->value_len != y->value_len ||
		    (!x->inum && x->value_len && memcmp(x->value, y->value, x->value_len)))
			return 0;
	}
	return 1;
}

struct collect {
	struct e4_xlist *l;
	errcode_t err;
};

static int collect_cb(e4_fs *fs, const struct e4_xattr *x, void *priv)
{
	struct collect *c = priv;
	struct e4_xent e;

	(void)fs;
	memset(&e, 0, sizeof(e));
	e.index = x->name_index;
	e.name_len = x->name_len;
	memcpy(e.name, x->name, x->name_len);
	e.value_len = x->value_len;
	e.inum = x->value_inum;
	e.hash = x->e_hash;
	if (!e.inum && e.value_len) {
		e.value = malloc(e.value_len);
		if (!e.value) {
			c->err = E4_ERR_NO_MEMORY;
			return 1;
		}
		memcpy(e.value, x->value, e.value_len);
	}
	c->err = e4_xlist_insert(c->l, c->l->n, &e);
	if (c->err) {
		free(e.value);
		return 1;
	}
	return 0;
}

/* Entries of the inode body of *inode into l (no block read). */
errcode_t e4_xattr_ibody_load(e4_fs *fs, const struct ext4_inode *inode, struct e4_xlist *l)
{
	union e4_inode_buf *copy = malloc(sizeof(*copy));
	struct collect c = { l, 0 };
	errcode_t err;

	if (!copy)
		return E4_ERR_NO_MEMORY;
	memcpy(copy->raw, inode, fs->geom.inode_size);
	copy->inode.i_file_acl_lo = 0;
	copy->inode.l_i_file_acl_high = 0;
	err = e4_xattr_iterate(fs, 0, &copy->inode, collect_cb, &c);
	free(copy);
	return c.err ? c.err : err;
}

/* Entries of xattr block blk into l, the raw block into buf. */
errcode_t e4_xattr_block_load(e4_fs *fs, e4_blk_t blk, uint8_t *buf, struct e4_xlist *l)
{
	struct collect c = { l, 0 };
	errcode_t err = e4_xattr_block_iterate(fs, blk, buf, collect_cb, &c);

	return c.err ? c.err : err;
}

/* The EA inode numbers l names (malloc'd array; NULL when none). */
errcode_t e4_xlist_inums(const struct e4_xlist *l, uint32_t **out, unsigned *n)
{
	*out = NULL;
	*n = 0;
	for (unsigned i = 0; i < l->n; i++) {
		if (!l->e[i].inum)
			continue;
		if (!*out) {
			*out = malloc(l->n * sizeof(**out));
			if (!*out)
				return E4_ERR_NO_MEMORY;
		}
		(*out)[(*n)++] = l->e[i].inum;
	}
	return 0;
}

/* What the values in EA inodes that l names cost the owner's i_blocks
 * (512-byte units): each value rounded up to whole clusters, as the
 * kernel charges them to the owner's quota and e2fsck counts them. */
uint64_t e4_xlist_ea_charge(e4_fs *fs, const struct e4_xlist *l)
{
	uint64_t n = 0, cs = fs->geom.cluster_size;

	for (unsigned i = 0; i < l->n; i++)
		if (l->e[i].inum || l->e[i].new_ea)
			n += (l->e[i].value_len + cs - 1) / cs * (cs / 512);
	return n;
}

/* ---- encoding ---------------------------------------------------------- */
static void ent_put(uint8_t *p, const struct e4_xent *x, size_t value_offs, uint32_t hash)
{
	uint32_t v;

	memset(p, 0, EXT4_XATTR_LEN(x->name_len));
	p[0] = x->name_len;
	p[1] = x->index;
	p[2] = (uint8_t)value_offs;
	p[3] = (uint8_t)(value_offs >> 8);
	v = e4_cpu_to_le32(x->inum);
	memcpy(p + 4, &v, 4);
	v = e4_cpu_to_le32(x->value_len);
	memcpy(p + 8, &v, 4);
	v = e4_cpu_to_le32(hash);
	memcpy(p + 12, &v, 4);
	memcpy(p + E4_XATTR_ENTRY_HDR, x->name, x->name_len);
}

/*
 * Lay the entries out at base (size bytes): the table from table_off on,
 * values packed down from the end in entry order (offsets relative to
 * base).  block: e_hash computed over the value (kept for EA entries);
 * else kept as stored.  The caller checked that everything fits.
 */
static void area_encode(uint8_t *base, size_t size, size_t table_off, const struct e4_xlist *l,
			int block)
{
	size_t off = table_off, vend = size;

	for (unsigned i = 0; i < l->n; i++) {
		const struct e4_xent *x = &l->e[i];
		size_t voff = 0;
		uint32_t hash = x->hash;

		if (!x->inum && x->value_len) {
			vend -= EXT4_XATTR_SIZE((size_t)x->value_len);
			voff = vend;
			memcpy(base + vend, x->value, x->value_len);
		}
		if (block && !x->inum)
			hash = e4_xattr_hash_entry(x->name, x->name_len, x->value, x->value_len, 0);
		ent_put(base + off, x, voff, hash);
		off += EXT4_XATTR_LEN(x->name_len);
	}
}

static int cmp_sorted(const void *a, const void *b)
{
	const struct e4_xent *x = a;

	return e4_xent_cmp(x->index, x->name_len, x->name, b);
}

void e4_xlist_sort(struct e4_xlist *l)
{
	qsort(l->e, l->n, sizeof(l->e[0]), cmp_sorted);
}

void e4_xattr_block_encode(e4_fs *fs, uint8_t *buf, struct e4_xlist *l, uint32_t refs)
{
	struct ext4_xattr_header *h = (struct ext4_xattr_header *)buf;
	size_t bs = fs->geom.block_size;

	e4_xlist_sort(l);
	memset(buf, 0, bs);
	h->h_magic = e4_cpu_to_le32(EXT4_XATTR_MAGIC);
	h->h_refcount = e4_cpu_to_le32(refs);
	h->h_blocks = e4_cpu_to_le32(1);
	area_encode(buf, bs, E4_XATTR_BLOCK_HDR, l, 1);
	h->h_hash = e4_cpu_to_le32(e4_xattr_block_hash(buf, bs));
}

/* Checksum and write xattr block blk from buf. */
errcode_t e4_xattr_block_write(e4_fs *fs, e4_blk_t blk, uint8_t *buf)
{
	struct ext4_xattr_header *h = (struct ext4_xattr_header *)buf;

	if (fs->geom.metadata_csum)
		h->h_checksum = e4_cpu_to_le32(e4_xattr_block_csum(fs, blk, buf));
	return e4_io_write_blk(fs->io, blk, 1, buf);
}

/* i_extra_isize to use for the in-inode area (0: none): as stored, or
 * the kernel's 32 for 0; the area needs room for magic and terminator. */
static unsigned ibody_extra(e4_fs *fs, const struct ext4_inode *inode)
{
	unsigned isize = fs->geom.inode_size, extra;

	if (isize <= EXT4_GOOD_OLD_INODE_SIZE)
		return 0;
	extra = e4_le16(inode->i_extra_isize);
	if (!extra)
		extra = E4_XATTR_EXTRA_ISIZE_DEF;
	if (EXT4_GOOD_OLD_INODE_SIZE + extra + 8 > isize)
		return 0;
	return extra;
}

/* Bytes for entries, values and terminator in the inode body (0: none). */
size_t e4_xattr_ibody_room(e4_fs *fs, const struct ext4_inode *inode)
{
	unsigned extra = ibody_extra(fs, inode);

	return extra ? fs->geom.inode_size - EXT4_GOOD_OLD_INODE_SIZE - extra - 4 : 0;
}

/* Rewrite the in-inode area of ib from l (magic 0 when l is empty). */
void e4_xattr_ibody_encode(e4_fs *fs, union e4_inode_buf *ib, const struct e4_xlist *l)
{
	unsigned extra = ibody_extra(fs, &ib->inode), start;
	uint32_t magic = e4_cpu_to_le32(EXT4_XATTR_MAGIC);

	if (!extra)
		return;
	start = EXT4_GOOD_OLD_INODE_SIZE + extra;
	if (!l->n) {
		if (e4_le16(ib->inode.i_extra_isize))
			memset(ib->raw + start, 0, fs->geom.inode_size - start);
		return;
	}
	ib->inode.i_extra_isize = e4_cpu_to_le16((uint16_t)extra);
	memset(ib->raw + start, 0, fs->geom.inode_size - start);
	memcpy(ib->raw + start, &magic, 4);
	area_encode(ib->raw + start + 4, fs->geom.inode_size - start - 4, 0, l, 0);
}


/* ---- checks and repairs (e4fsck) --------------------------------------- */

errcode_t e4_xattr_ibody_check(e4_fs *fs, const struct ext4_inode *inode)
{
	struct e4_xlist l = { 0 };
	errcode_t err = e4_xattr_ibody_load(fs, inode, &l);

	e4_xlist_free(&l);
	return err;
}

void e4_xattr_ibody_clear(e4_fs *fs, union e4_inode_buf *ib)
{
	struct e4_xlist none = { 0 };

	e4_xattr_ibody_encode(fs, ib, &none);
}

/* ---- reference counts (e4fsck) ----------------------------------------- */

/* Read xattr block blk into a new buffer and check its magic. */
static errcode_t block_read_hdr(e4_fs *fs, e4_blk_t blk, uint8_t **out)
{
	uint8_t *buf;
	errcode_t err;

	if (blk < fs->geom.first_data_block || blk >= fs->geom.blocks_count)
		return E4_ERR_BAD_BLOCK_NUM;
	buf = malloc(fs->geom.block_size);
	if (!buf)
		return E4_ERR_NO_MEMORY;
	err = e4_read_block(fs, blk, buf);
	if (!err && e4_le32(((struct ext4_xattr_header *)buf)->h_magic) != EXT4_XATTR_MAGIC)
		err = E4_ERR_XATTR_MAGIC;
	if (err) {
		free(buf);
		return err;
	}
	*out = buf;
	return 0;
}

errcode_t e4_xattr_block_refcount(e4_fs *fs, e4_blk_t blk, uint32_t *refcount)
{
	uint8_t *buf;
	errcode_t err = block_read_hdr(fs, blk, &buf);

	if (err)
		return err;
	*refcount = e4_le32(((struct ext4_xattr_header *)buf)->h_refcount);
	free(buf);
	return 0;
}

errcode_t e4_xattr_block_refcount_set(e4_fs *fs, e4_blk_t blk, uint32_t refcount)
{
	uint8_t *buf;
	errcode_t err;

	if (!(e4_open_flags(fs) & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	err = block_read_hdr(fs, blk, &buf);
	if (err)
		return err;
	((struct ext4_xattr_header *)buf)->h_refcount = e4_cpu_to_le32(refcount);
	err = e4_xattr_block_write(fs, blk, buf);
	free(buf);
	return err;
}

/* Store v at p as little-endian 32 bits. */
static void put_le32(uint8_t *p, uint32_t v)
{
	uint32_t le = e4_cpu_to_le32(v);

	memcpy(p, &le, 4);
}

/* The entry of x at x->e_offs in area bytes [0, size): its name agrees. */
static int entry_at(const uint8_t *area, size_t size, const struct e4_xattr *x)
{
	const uint8_t *e = area + x->e_offs;

	return (size_t)x->e_offs + E4_XATTR_ENTRY_HDR + x->name_len <= size &&
	       e[0] == x->name_len && e[1] == x->name_index &&
	       !memcmp(e + E4_XATTR_ENTRY_HDR, x->name, x->name_len);
}

errcode_t e4_xattr_entry_hash_set(e4_fs *fs, union e4_inode_buf *ib, e4_blk_t blk,
				  const struct e4_xattr *x, uint32_t hash)
{
	uint8_t *buf;
	errcode_t err;

	if (x->in_inode) {
		if (!entry_at(ib->raw, fs->geom.inode_size, x))
			return E4_ERR_XATTR_CORRUPT;
		put_le32(ib->raw + x->e_offs + 12, hash);
		return 0;
	}
	if (!(e4_open_flags(fs) & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	err = block_read_hdr(fs, blk, &buf);
	if (err)
		return err;
	if (!entry_at(buf, fs->geom.block_size, x)) {
		free(buf);
		return E4_ERR_XATTR_CORRUPT;
	}
	put_le32(buf + x->e_offs + 12, hash);
	((struct ext4_xattr_header *)buf)->h_hash =
		e4_cpu_to_le32(e4_xattr_block_hash(buf, fs->geom.block_size));
	err = e4_xattr_block_write(fs, blk, buf);
	free(buf);
	return err;
}
