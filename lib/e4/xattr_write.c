/*
 * xattr_write.c: setting and removing extended attributes in the inode
 * body, the xattr block and EA inodes (format doc section 9), with the
 * kernel's placement, sharing and reference-count rules (xattr_write.h).
 *
 * An operation loads the inode's two areas as lists of entries (through
 * the reader, which validates them), edits the lists, then commits: the
 * areas are encoded again from the lists (values packed from the end in
 * entry order), a block that changes is rewritten in place when only this
 * inode uses it and copied otherwise, and every EA inode's reference count
 * moves by the number of areas that started or stopped naming it.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "e4_private.h"

#define ENTRY_HDR	sizeof(struct ext4_xattr_entry)		/* 16 */
#define BLOCK_HDR	sizeof(struct ext4_xattr_header)	/* 32 */
#define REFCOUNT_MAX	1024		/* EXT4_XATTR_REFCOUNT_MAX */
#define EXTRA_ISIZE_DEF	32		/* sizeof(struct ext4_inode) - 128 */
/* Linux: a value whose padded size exceeds this goes to an EA inode at
 * once (EXT4_XATTR_MIN_LARGE_EA_SIZE). */
#define MIN_LARGE(bs)	((bs) - EXT4_XATTR_LEN(3) - BLOCK_HDR - 4)
/* Linux, with ea_inode: a value in the block leaves this much below the
 * values for entries (EXT4_XATTR_BLOCK_RESERVE). */
#define BLOCK_RESERVE(bs) ((bs) / 8 < 1024 ? (bs) / 8 : 1024)

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

	for (size_t off = BLOCK_HDR; off + ENTRY_HDR <= block_size && e4_get_le32(b + off);
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

static errcode_t name_check(uint8_t index, size_t name_len, size_t value_len)
{
	if (!index || name_len > 255 ||
	    (!name_len && !prefix_is_whole_name(e4_xattr_prefix(index))))
		return E4_ERR_XATTR_NAME;
	if (value_len > E4_XATTR_VALUE_MAX)
		return E4_ERR_XATTR_TOO_BIG;
	return 0;
}

/* ---- entry lists ------------------------------------------------------- */
struct xent {
	uint8_t index, name_len;
	char name[256];
	uint32_t value_len;
	uint32_t inum;		/* EA inode holding the value, 0 in place */
	uint32_t hash;		/* e_hash as stored (CPU order) */
	uint8_t *value;		/* malloc'd copy: in place, or the new EA value */
	int new_ea;		/* the value goes to a new EA inode (commit) */
};

struct xlist {
	struct xent *e;
	unsigned n, cap;
};

static void list_free(struct xlist *l)
{
	for (unsigned i = 0; i < l->n; i++)
		free(l->e[i].value);
	free(l->e);
	memset(l, 0, sizeof(*l));
}

/* Insert *x at position pos (ownership of x->value moves to the list). */
static errcode_t list_insert(struct xlist *l, unsigned pos, const struct xent *x)
{
	if (l->n == l->cap) {
		unsigned cap = l->cap ? 2 * l->cap : 8;
		struct xent *e = realloc(l->e, cap * sizeof(*e));

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

static void list_delete(struct xlist *l, unsigned pos)
{
	free(l->e[pos].value);
	memmove(&l->e[pos], &l->e[pos + 1], (l->n - pos - 1) * sizeof(l->e[0]));
	l->n--;
}

/* The kernel's order of block entries: index, name length, name bytes. */
static int ent_cmp(uint8_t index, size_t len, const char *name, const struct xent *b)
{
	if (index != b->index)
		return index < b->index ? -1 : 1;
	if (len != b->name_len)
		return len < b->name_len ? -1 : 1;
	return memcmp(name, b->name, len);
}

static int list_find(const struct xlist *l, uint8_t index, const char *name, size_t len)
{
	for (unsigned i = 0; i < l->n; i++)
		if (!ent_cmp(index, len, name, &l->e[i]))
			return (int)i;
	return -1;
}

/* Where (index, name) goes in a sorted list. */
static unsigned list_sorted_pos(const struct xlist *l, uint8_t index, const char *name,
				size_t len)
{
	unsigned i = 0;

	while (i < l->n && ent_cmp(index, len, name, &l->e[i]) > 0)
		i++;
	return i;
}

/* Bytes an entry takes in its area: the entry, and the value if in place. */
static size_t ent_cost(const struct xent *x)
{
	return EXT4_XATTR_LEN(x->name_len) +
	       (x->inum || x->new_ea ? 0 : EXT4_XATTR_SIZE((size_t)x->value_len));
}

static size_t list_cost(const struct xlist *l)
{
	size_t n = 4;	/* the terminator */

	for (unsigned i = 0; i < l->n; i++)
		n += ent_cost(&l->e[i]);
	return n;
}

static size_t list_values(const struct xlist *l)
{
	size_t n = 0;

	for (unsigned i = 0; i < l->n; i++)
		if (!l->e[i].inum && !l->e[i].new_ea)
			n += EXT4_XATTR_SIZE((size_t)l->e[i].value_len);
	return n;
}

static int lists_equal(const struct xlist *a, const struct xlist *b)
{
	if (a->n != b->n)
		return 0;
	for (unsigned i = 0; i < a->n; i++) {
		const struct xent *x = &a->e[i], *y = &b->e[i];

		if (ent_cmp(x->index, x->name_len, x->name, y) || x->new_ea || y->new_ea ||
		    x->inum != y->inum || x->value_len != y->value_len ||
		    (!x->inum && x->value_len && memcmp(x->value, y->value, x->value_len)))
			return 0;
	}
	return 1;
}

struct collect {
	struct xlist *l;
	errcode_t err;
};

static int collect_cb(e4_fs *fs, const struct e4_xattr *x, void *priv)
{
	struct collect *c = priv;
	struct xent e;

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
	c->err = list_insert(c->l, c->l->n, &e);
	if (c->err) {
		free(e.value);
		return 1;
	}
	return 0;
}

/* Entries of the inode body of *inode into l (no block read). */
static errcode_t ibody_load(e4_fs *fs, const struct ext4_inode *inode, struct xlist *l)
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
static errcode_t block_load(e4_fs *fs, e4_blk_t blk, uint8_t *buf, struct xlist *l)
{
	struct collect c = { l, 0 };
	errcode_t err = e4_xattr_block_iterate(fs, blk, buf, collect_cb, &c);

	return c.err ? c.err : err;
}

/* ---- encoding ---------------------------------------------------------- */
static void ent_put(uint8_t *p, const struct xent *x, size_t value_offs, uint32_t hash)
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
	memcpy(p + ENTRY_HDR, x->name, x->name_len);
}

/*
 * Lay the entries out at base (size bytes): the table from table_off on,
 * values packed down from the end in entry order (offsets relative to
 * base).  block: e_hash computed over the value (kept for EA entries);
 * else kept as stored.  The caller checked that everything fits.
 */
static void area_encode(uint8_t *base, size_t size, size_t table_off, const struct xlist *l,
			int block)
{
	size_t off = table_off, vend = size;

	for (unsigned i = 0; i < l->n; i++) {
		const struct xent *x = &l->e[i];
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
	const struct xent *x = a;

	return ent_cmp(x->index, x->name_len, x->name, b);
}

/* A whole xattr block for l (sorted on the way) with refcount refs. */
static void block_encode(e4_fs *fs, uint8_t *buf, struct xlist *l, uint32_t refs)
{
	struct ext4_xattr_header *h = (struct ext4_xattr_header *)buf;
	size_t bs = fs->geom.block_size;

	qsort(l->e, l->n, sizeof(l->e[0]), cmp_sorted);
	memset(buf, 0, bs);
	h->h_magic = e4_cpu_to_le32(EXT4_XATTR_MAGIC);
	h->h_refcount = e4_cpu_to_le32(refs);
	h->h_blocks = e4_cpu_to_le32(1);
	area_encode(buf, bs, BLOCK_HDR, l, 1);
	h->h_hash = e4_cpu_to_le32(e4_xattr_block_hash(buf, bs));
}

/* Checksum and write xattr block blk from buf. */
static errcode_t block_write(e4_fs *fs, e4_blk_t blk, uint8_t *buf)
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
		extra = EXTRA_ISIZE_DEF;
	if (EXT4_GOOD_OLD_INODE_SIZE + extra + 8 > isize)
		return 0;
	return extra;
}

/* Bytes for entries, values and terminator in the inode body (0: none). */
static size_t ibody_room(e4_fs *fs, const struct ext4_inode *inode)
{
	unsigned extra = ibody_extra(fs, inode);

	return extra ? fs->geom.inode_size - EXT4_GOOD_OLD_INODE_SIZE - extra - 4 : 0;
}

/* Rewrite the in-inode area of ib from l (magic 0 when l is empty). */
static void ibody_encode(e4_fs *fs, union e4_inode_buf *ib, const struct xlist *l)
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

/* ---- an operation ------------------------------------------------------ */
struct ref_delta {
	uint32_t ino;
	int64_t delta;
	union e4_inode_buf *ib;		/* its image, read while planning */
};

struct xw {
	e4_fs *fs;
	e4_ino_t ino;
	union e4_inode_buf *ib;
	int64_t now;
	e4_blk_t share_blk;		/* opts->share_blk */
	struct xlist in, blk;		/* the areas, edited in place */
	uint32_t *old_in, *old_blk;	/* EA inodes the areas named at load */
	unsigned n_old_in, n_old_blk;
	int in_dirty, blk_dirty;
	uint64_t old_charge;		/* list_ea_charge() of both areas at load */
	e4_blk_t bno;			/* the inode's block at load (0: none) */
	uint32_t refcount;		/* its h_refcount */
	uint8_t *buf;			/* the raw block at load */
	e4_blk_t force_share;		/* e4_xattr_block_share(): take this */
	struct ref_delta *refs;
	unsigned nrefs;
	/* the new EA inode of this operation */
	e4_ino_t ea_ino;
	union e4_inode_buf *ea_ib;
	struct e4_map_extent ea_ext[64];
	unsigned ea_next;
	e4_blk_t ea_meta;		/* its leaf or indirect block (0: none) */
	uint8_t *ea_meta_buf;
};

static void xw_free(struct xw *w)
{
	list_free(&w->in);
	list_free(&w->blk);
	free(w->old_in);
	free(w->old_blk);
	free(w->buf);
	for (unsigned i = 0; i < w->nrefs; i++)
		free(w->refs[i].ib);
	free(w->refs);
	free(w->ea_ib);
	free(w->ea_meta_buf);
}

/* The EA inode numbers l names (malloc'd array; NULL when none). */
static errcode_t list_inums(const struct xlist *l, uint32_t **out, unsigned *n)
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
static uint64_t list_ea_charge(e4_fs *fs, const struct xlist *l)
{
	uint64_t n = 0, cs = fs->geom.cluster_size;

	for (unsigned i = 0; i < l->n; i++)
		if (l->e[i].inum || l->e[i].new_ea)
			n += (l->e[i].value_len + cs - 1) / cs * (cs / 512);
	return n;
}

static errcode_t xw_load(struct xw *w, e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib,
			 const struct e4_xattr_opts *opts)
{
	errcode_t err;

	memset(w, 0, sizeof(*w));
	w->fs = fs;
	w->ino = ino;
	w->ib = ib;
	w->now = opts ? opts->now : (int64_t)time(NULL);
	w->share_blk = opts ? opts->share_blk : 0;
	if (!(e4_open_flags(fs) & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	w->buf = malloc(2 * (size_t)fs->geom.block_size);	/* the old block, a new one */
	if (!w->buf)
		return E4_ERR_NO_MEMORY;
	err = ibody_load(fs, &ib->inode, &w->in);
	w->bno = e4_inode_file_acl(fs, &ib->inode);
	if (!err && w->bno) {
		err = block_load(fs, w->bno, w->buf, &w->blk);
		w->refcount = e4_le32(((struct ext4_xattr_header *)w->buf)->h_refcount);
	}
	w->old_charge = list_ea_charge(fs, &w->in) + list_ea_charge(fs, &w->blk);
	if (!err)
		err = list_inums(&w->in, &w->old_in, &w->n_old_in);
	if (!err)
		err = list_inums(&w->blk, &w->old_blk, &w->n_old_blk);
	return err;
}

static errcode_t ref_add(struct xw *w, uint32_t ino, int64_t d)
{
	struct ref_delta *r;

	for (unsigned i = 0; i < w->nrefs; i++) {
		if (w->refs[i].ino == ino) {
			w->refs[i].delta += d;
			return 0;
		}
	}
	r = realloc(w->refs, (w->nrefs + 1) * sizeof(*r));
	if (!r)
		return E4_ERR_NO_MEMORY;
	w->refs = r;
	memset(&r[w->nrefs], 0, sizeof(*r));
	r[w->nrefs].ino = ino;
	r[w->nrefs++].delta = d;
	return 0;
}

static errcode_t refs_add_list(struct xw *w, const struct xlist *l, int64_t d)
{
	errcode_t err = 0;

	for (unsigned i = 0; i < l->n && !err; i++)
		if (l->e[i].inum)
			err = ref_add(w, l->e[i].inum, d);
	return err;
}

static errcode_t refs_add_array(struct xw *w, const uint32_t *a, unsigned n, int64_t d)
{
	errcode_t err = 0;

	for (unsigned i = 0; i < n && !err; i++)
		err = ref_add(w, a[i], d);
	return err;
}

/* ---- EA inodes --------------------------------------------------------- */
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

/* i_extra_isize of a new inode, as the kernel picks it: 32, or the
 * superblock's wish (extra_isize feature) when larger and it fits. */
static uint16_t new_extra_isize(e4_fs *fs)
{
	const struct ext4_super_block *sb = e4_super(fs);
	unsigned room = fs->geom.inode_size - EXT4_GOOD_OLD_INODE_SIZE, want = EXTRA_ISIZE_DEF;

	if (fs->geom.inode_size <= EXT4_GOOD_OLD_INODE_SIZE)
		return 0;
	if (e4_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE)) {
		if (e4_le16(sb->s_want_extra_isize) > want)
			want = e4_le16(sb->s_want_extra_isize);
		if (e4_le16(sb->s_min_extra_isize) > want)
			want = e4_le16(sb->s_min_extra_isize);
	}
	if (want > room || (want & 3))
		want = EXTRA_ISIZE_DEF <= room ? EXTRA_ISIZE_DEF : 0;
	return (uint16_t)want;
}

/* Blocks for a value of len bytes near goal: one run if there is one,
 * else cluster by cluster.  Marks them; w->ea_ext holds the runs. */
static errcode_t ea_alloc_data(struct xw *w, e4_blk_t goal, uint32_t nblk, uint64_t *clusters)
{
	e4_fs *fs = w->fs;
	uint32_t unit = 1u << fs->geom.cluster_bits, done = 0;
	e4_blk_t b;
	errcode_t err;

	*clusters = 0;
	if (!e4_block_find_free(fs, goal, nblk, &b)) {
		err = e4_block_mark(fs, b, nblk, 1, NULL);
		if (err)
			return err;
		w->ea_ext[0] = (struct e4_map_extent){ .lblk = 0, .pblk = b, .len = nblk };
		w->ea_next = 1;
		*clusters = (nblk + unit - 1) / unit;
		return 0;
	}
	while (done < nblk) {
		uint32_t n = nblk - done < unit ? nblk - done : unit;
		struct e4_map_extent *last = w->ea_next ? &w->ea_ext[w->ea_next - 1] : NULL;

		err = e4_block_find_free(fs, goal, unit, &b);
		if (!err)
			err = e4_block_mark(fs, b, unit, 1, NULL);
		if (err)
			return err;
		(*clusters)++;
		if (last && last->pblk + last->len == b) {
			last->len += n;
		} else {
			if (w->ea_next == sizeof(w->ea_ext) / sizeof(w->ea_ext[0])) {
				e4_block_mark(fs, b, unit, 0, NULL);
				return E4_ERR_NO_SPACE;
			}
			w->ea_ext[w->ea_next++] = (struct e4_map_extent){ .lblk = done, .pblk = b,
									   .len = n };
		}
		done += n;
		goal = b + unit;
	}
	return 0;
}

/* Give back what ea_create() took (nothing written yet). */
static void ea_undo(struct xw *w)
{
	uint32_t unit = 1u << w->fs->geom.cluster_bits;

	for (unsigned i = 0; i < w->ea_next; i++)
		e4_block_mark(w->fs, w->ea_ext[i].pblk,
			      (w->ea_ext[i].len + unit - 1) / unit * unit, 0, NULL);
	if (w->ea_meta)
		e4_block_mark(w->fs, w->ea_meta, 1, 0, NULL);
	if (w->ea_ino)
		e4_inode_mark(w->fs, w->ea_ino, 0, 0, NULL);
	w->ea_next = 0;
	w->ea_meta = 0;
	w->ea_ino = 0;
}

/* The inode fields of a new EA inode for x (reference count 0: the
 * commit counts the areas naming it). */
static void ea_inode_init(struct xw *w, const struct xent *x, uint32_t hash)
{
	e4_fs *fs = w->fs;
	struct ext4_inode *in = &w->ea_ib->inode, *owner = &w->ib->inode;
	uint32_t base, extra;

	memset(w->ea_ib, 0, sizeof(*w->ea_ib));
	in->i_mode = e4_cpu_to_le16(EXT4_S_IFREG | 0600);
	in->i_uid = owner->i_uid;
	in->l_i_uid_high = owner->l_i_uid_high;
	in->i_gid = owner->i_gid;
	in->l_i_gid_high = owner->l_i_gid_high;
	in->i_links_count = e4_cpu_to_le16(1);
	in->i_size_lo = e4_cpu_to_le32(x->value_len);
	in->i_flags = e4_cpu_to_le32(EXT4_EA_INODE_FL);
	in->i_extra_isize = e4_cpu_to_le16(new_extra_isize(fs));
	e4_time_encode(w->now, 0, &base, &extra);
	in->i_mtime = e4_cpu_to_le32(base);
	if (e4_inode_has_field(fs, in, offsetof(struct ext4_inode, i_crtime_extra), 4)) {
		in->i_mtime_extra = e4_cpu_to_le32(extra);
		in->i_crtime = e4_cpu_to_le32(base);
		in->i_crtime_extra = e4_cpu_to_le32(extra);
	}
	/* the value's hash in i_atime, as a time with no nanoseconds */
	e4_time_encode(hash, 0, &base, &extra);
	in->i_atime = e4_cpu_to_le32(base);
	if (e4_inode_has_field(fs, in, offsetof(struct ext4_inode, i_atime_extra), 4))
		in->i_atime_extra = e4_cpu_to_le32(extra);
	ea_ref_set(fs, in, 0);
}

/* Map the data blocks in the new EA inode: extents (a leaf block past
 * four runs) or, without the extents feature, an indirect map. */
static errcode_t ea_map_build(struct xw *w, e4_blk_t goal, uint64_t *clusters)
{
	e4_fs *fs = w->fs;
	uint32_t nblk = 0;
	errcode_t err;

	for (unsigned i = 0; i < w->ea_next; i++)
		nblk += w->ea_ext[i].len;
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EXTENTS) ? w->ea_next > 4 : nblk > 12) {
		w->ea_meta_buf = calloc(1, fs->geom.block_size);
		if (!w->ea_meta_buf)
			return E4_ERR_NO_MEMORY;
		err = e4_block_find_free(fs, goal, 1, &w->ea_meta);
		if (!err)
			err = e4_block_mark(fs, w->ea_meta, 1, 1, NULL);
		if (err) {
			w->ea_meta = 0;
			return err;
		}
		(*clusters)++;
	}
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EXTENTS))
		return e4_extent_tree_build(fs, w->ea_ino, &w->ea_ib->inode, w->ea_ext, w->ea_next,
					    w->ea_meta, w->ea_meta_buf);
	return 0;	/* the indirect map is built when written (ea_write) */
}

/* Allocate the EA inode for x (inode near the owner, data near it) and
 * prepare its image; nothing written.  x->inum and x->hash are set. */
static errcode_t ea_create(struct xw *w, struct xent *x)
{
	e4_fs *fs = w->fs;
	uint32_t nblk = (x->value_len + fs->geom.block_size - 1) / fs->geom.block_size;
	uint32_t hash = e4_crc32c(e4_csum_seed(fs), x->value, x->value_len);
	uint32_t le = e4_cpu_to_le32(hash);
	uint64_t clusters = 0;
	e4_group_t g = e4_group_of_ino(fs, w->ino < fs->geom.inodes_count ? w->ino + 1 : w->ino);
	e4_blk_t goal;
	errcode_t err;

	w->ea_ib = malloc(sizeof(*w->ea_ib));
	if (!w->ea_ib)
		return E4_ERR_NO_MEMORY;
	err = e4_inode_find_free(fs, g, &w->ea_ino);
	if (!err)
		err = e4_inode_mark(fs, w->ea_ino, 1, 0, NULL);
	if (err) {
		w->ea_ino = 0;
		return err;
	}
	goal = e4_group_first_block(fs, e4_group_of_ino(fs, w->ea_ino));
	ea_inode_init(w, x, hash);
	err = ea_alloc_data(w, goal, nblk, &clusters);
	if (!err)
		err = ea_map_build(w, goal, &clusters);
	if (!err)
		err = e4_inode_blocks_set(fs, &w->ea_ib->inode,
					  clusters * (fs->geom.cluster_size / 512));
	if (err) {
		ea_undo(w);
		return err;
	}
	x->inum = w->ea_ino;
	x->hash = e4_xattr_hash_entry(x->name, x->name_len, &le, 4, 0);
	x->new_ea = 0;
	return 0;
}

/* Write the new EA inode's data and map blocks (its inode is written
 * with its reference count, refs_apply). */
static errcode_t ea_write_data(struct xw *w, const uint8_t *value, uint32_t len)
{
	e4_fs *fs = w->fs;
	unsigned bs = fs->geom.block_size;
	uint8_t *blk = malloc(bs);
	size_t pos = 0;
	errcode_t err = 0;

	if (!blk)
		return E4_ERR_NO_MEMORY;
	for (unsigned i = 0; i < w->ea_next && !err; i++) {
		for (uint32_t k = 0; k < w->ea_ext[i].len && !err; k++, pos += bs) {
			size_t n = len - pos < bs ? len - pos : bs;

			memset(blk, 0, bs);
			memcpy(blk, value + pos, n);
			err = e4_io_write_blk(fs->io, w->ea_ext[i].pblk + k, 1, blk);
		}
	}
	free(blk);
	if (err)
		return err;
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EXTENTS))
		return w->ea_meta ? e4_io_write_blk(fs->io, w->ea_meta, 1, w->ea_meta_buf) : 0;
	return e4_blockmap_build(fs, &w->ea_ib->inode, w->ea_ext, w->ea_next, &w->ea_meta,
				 w->ea_meta ? 1 : 0);
}

/* Read and check every EA inode whose count moves (before any write). */
static errcode_t refs_prepare(struct xw *w)
{
	for (unsigned i = 0; i < w->nrefs; i++) {
		struct ref_delta *r = &w->refs[i];
		errcode_t err;

		if (!r->delta || r->ino == w->ea_ino)
			continue;
		r->ib = malloc(sizeof(*r->ib));
		if (!r->ib)
			return E4_ERR_NO_MEMORY;
		err = e4_inode_read(w->fs, r->ino, r->ib);
		if (err)
			return err;
		if (r->ino == w->ino || !(e4_le32(r->ib->inode.i_flags) & EXT4_EA_INODE_FL))
			return E4_ERR_EA_INODE_BAD;
	}
	return 0;
}

/* Apply the positive (up 1) or negative (up 0) count changes; an EA inode
 * left with no reference is freed. */
static errcode_t refs_apply(struct xw *w, int up)
{
	for (unsigned i = 0; i < w->nrefs; i++) {
		struct ref_delta *r = &w->refs[i];
		union e4_inode_buf *ib = r->ino == w->ea_ino ? w->ea_ib : r->ib;
		uint64_t ref;
		errcode_t err;

		if ((up && r->delta <= 0) || (!up && r->delta >= 0))
			continue;
		ref = ea_ref_get(&ib->inode);
		ref = r->delta < 0 && (uint64_t)-r->delta > ref ? 0 : ref + (uint64_t)r->delta;
		ea_ref_set(w->fs, &ib->inode, ref);
		if (!ref) {
			err = e4_inode_truncate_blocks(w->fs, r->ino, ib, 0, NULL);
			if (err)
				return err;
			ib->inode.i_links_count = 0;
			ib->inode.i_dtime = e4_cpu_to_le32((uint32_t)w->now);
		}
		err = e4_inode_write(w->fs, r->ino, ib);
		if (!err && !ref)
			err = e4_inode_mark(w->fs, r->ino, 0, 0, NULL);
		if (err)
			return err;
	}
	return 0;
}

/* ---- commit ------------------------------------------------------------ */
enum fate { KEEP, INPLACE, NEWBLK, SHARE, DROP };

/* What happens to the inode's block; *share gets the block to take. */
static errcode_t block_fate(struct xw *w, enum fate *f, e4_blk_t *share, struct xlist *other)
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
	err = block_load(w->fs, cand, w->buf + w->fs->geom.block_size, other);
	if (err)
		return err;
	qsort(w->blk.e, w->blk.n, sizeof(w->blk.e[0]), cmp_sorted);
	qsort(other->e, other->n, sizeof(other->e[0]), cmp_sorted);
	if (lists_equal(&w->blk, other) &&
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
	return block_write(w->fs, w->bno, w->buf);
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
		block_encode(fs, b, &w->blk, 1);
		return block_write(fs, *nb, b);
	case SHARE:
		*nb = share;
		h->h_refcount = e4_cpu_to_le32(e4_le32(h->h_refcount) + 1);
		return block_write(fs, share, b);
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
		struct xlist *l = k ? &w->blk : &w->in;

		for (unsigned i = 0; i < l->n && !err; i++)
			if (l->e[i].new_ea)
				err = ea_create(w, &l->e[i]);
	}
	if (!err && f == NEWBLK) {
		e4_blk_t goal = e4_group_first_block(fs, e4_group_of_ino(fs, w->ino));

		err = e4_block_find_free(fs, goal, 1, newblk);
		if (!err)
			err = e4_block_mark(fs, *newblk, 1, 1, NULL);
		if (err)
			*newblk = 0;
	}
	if (!err)
		err = refs_plan(w, f);
	if (!err)
		err = refs_prepare(w);
	if (err) {
		ea_undo(w);
		if (*newblk)
			e4_block_mark(fs, *newblk, 1, 0, NULL);
	}
	return err;
}

/* The entry whose value goes to the new EA inode. */
static const struct xent *new_ea_entry(const struct xw *w)
{
	for (unsigned k = 0; k < 2; k++) {
		const struct xlist *l = k ? &w->blk : &w->in;

		for (unsigned i = 0; i < l->n; i++)
			if (l->e[i].inum == w->ea_ino)
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
	struct xlist other = { 0 };
	e4_blk_t share, newblk, nb = 0;
	enum fate f;
	uint64_t sectors = e4_inode_blocks(fs, &w->ib->inode), cl = fs->geom.cluster_size / 512;
	errcode_t err;

	err = block_fate(w, &f, &share, &other);
	list_free(&other);
	if (err)
		return err;
	if (f == DROP)
		sectors = sectors > cl ? sectors - cl : 0;
	else if (!w->bno && (f == NEWBLK || f == SHARE))
		sectors += cl;
	sectors += list_ea_charge(fs, &w->in) + list_ea_charge(fs, &w->blk);
	sectors = sectors > w->old_charge ? sectors - w->old_charge : 0;
	check = w->ib->inode;
	err = e4_inode_blocks_set(fs, &check, sectors);
	if (!err)
		err = commit_alloc(w, f, &newblk);
	if (err)
		return err;
	if (w->ea_ino) {
		const struct xent *x = new_ea_entry(w);

		err = ea_write_data(w, x->value, x->value_len);
	}
	if (!err)
		err = block_store(w, f, share, newblk, &nb);
	if (!err)
		err = refs_apply(w, 1);
	if (err)
		return err;
	if (w->in_dirty)
		ibody_encode(fs, w->ib, &w->in);
	e4_inode_file_acl_set(fs, &w->ib->inode, nb);
	e4_inode_blocks_set(fs, &w->ib->inode, sectors);
	err = e4_inode_write(fs, w->ino, w->ib);
	if (!err && w->bno && (f == NEWBLK || f == SHARE || f == DROP))
		err = block_release(w);
	if (!err)
		err = refs_apply(w, 0);
	return err;
}

/* ---- operations -------------------------------------------------------- */
#define NOTHING_TO_DO	1	/* place(): the value is already there */

static int same_value(const struct xent *e, const void *value, size_t len)
{
	return !e->inum && e->value_len == len && (!len || !memcmp(e->value, value, len));
}

/* A new entry for (index, name) holding a copy of the value. */
static errcode_t ent_make(struct xent *x, uint8_t index, const char *name, size_t name_len,
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
static errcode_t ent_store(struct xlist *l, int found, unsigned pos, struct xent *x)
{
	if (found >= 0) {
		free(l->e[found].value);
		l->e[found] = *x;
		return 0;
	}
	return list_insert(l, pos, x);
}

/* Whether the block would hold the lists with x at fb's place (the
 * kernel's space rules, with ea_inode its reserve below the values). */
static int block_fits(struct xw *w, int fb, const struct xent *x)
{
	size_t bs = w->fs->geom.block_size, cost = list_cost(&w->blk) + ent_cost(x);
	size_t vals = list_values(&w->blk) + (ent_cost(x) - EXT4_XATTR_LEN(x->name_len));

	if (fb >= 0) {
		cost -= ent_cost(&w->blk.e[fb]);
		vals -= ent_cost(&w->blk.e[fb]) - EXT4_XATTR_LEN(w->blk.e[fb].name_len);
	}
	if (BLOCK_HDR + cost > bs)
		return 0;
	return !e4_has_incompat(w->fs, EXT4_FEATURE_INCOMPAT_EA_INODE) || x->new_ea ||
	       !x->value_len || bs - vals >= BLOCK_RESERVE(bs);
}

/* The kernel's placement (ext4_xattr_set_handle): the inode body, else
 * the block, else (ea_inode) an EA inode; a large value goes to an EA
 * inode first.  Edits w's lists; x's value moves into them. */
static errcode_t place(struct xw *w, struct xent *x)
{
	e4_fs *fs = w->fs;
	int sysdata = x->index == EXT4_XATTR_INDEX_SYSTEM && x->name_len == 4 &&
		      !memcmp(x->name, "data", 4);
	int ea_feat = e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EA_INODE);
	int fi = list_find(&w->in, x->index, x->name, x->name_len);
	int fb = fi < 0 ? list_find(&w->blk, x->index, x->name, x->name_len) : -1;
	size_t room = ibody_room(fs, &w->ib->inode);

	if ((fi >= 0 && same_value(&w->in.e[fi], x->value, x->value_len)) ||
	    (fb >= 0 && same_value(&w->blk.e[fb], x->value, x->value_len)))
		return NOTHING_TO_DO;
	x->new_ea = ea_feat && !sysdata &&
		    EXT4_XATTR_SIZE((size_t)x->value_len) > MIN_LARGE(fs->geom.block_size);
	for (;;) {
		size_t cost = list_cost(&w->in) + ent_cost(x) - (fi >= 0 ? ent_cost(&w->in.e[fi]) : 0);

		if (room && cost <= room) {
			if (fb >= 0) {
				list_delete(&w->blk, (unsigned)fb);
				w->blk_dirty = 1;
			}
			w->in_dirty = 1;
			return ent_store(&w->in, fi, w->in.n, x);
		}
		if (sysdata)
			return E4_ERR_NO_SPACE;
		if (block_fits(w, fb, x)) {
			if (fi >= 0) {
				list_delete(&w->in, (unsigned)fi);
				w->in_dirty = 1;
			}
			w->blk_dirty = 1;
			return ent_store(&w->blk, fb,
					 list_sorted_pos(&w->blk, x->index, x->name, x->name_len), x);
		}
		if (!ea_feat || !x->value_len || x->new_ea)
			return E4_ERR_NO_SPACE;
		x->new_ea = 1;
	}
}

/* Mark the ext_attr feature, as the kernel does at the first attribute. */
static void feature_ext_attr(e4_fs *fs)
{
	struct ext4_super_block *sb = e4_super(fs);

	if (e4_has_compat(fs, EXT4_FEATURE_COMPAT_EXT_ATTR))
		return;
	sb->s_feature_compat = e4_cpu_to_le32(e4_le32(sb->s_feature_compat) |
					      EXT4_FEATURE_COMPAT_EXT_ATTR);
	fs->sb_dirty = 1;
}

errcode_t e4_xattr_set(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, uint8_t name_index,
		       const char *name, size_t name_len, const void *value, size_t value_len,
		       const struct e4_xattr_opts *opts)
{
	struct xent x;
	struct xw w;
	errcode_t err;

	err = name_check(name_index, name_len, value_len);
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
		err = xw_commit(&w);
		if (!err)
			feature_ext_attr(fs);
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

	err = name_check(name_index, name_len, 0);
	if (!err)
		err = xw_load(&w, fs, ino, ib, opts);
	else
		return err;
	if (!err) {
		if ((f = list_find(&w.in, name_index, name, name_len)) >= 0) {
			list_delete(&w.in, (unsigned)f);
			w.in_dirty = 1;
		} else if ((f = list_find(&w.blk, name_index, name, name_len)) >= 0) {
			list_delete(&w.blk, (unsigned)f);
			w.blk_dirty = 1;
		} else {
			err = E4_ERR_XATTR_NOT_FOUND;
		}
	}
	if (!err)
		err = xw_commit(&w);
	xw_free(&w);
	return err;
}

errcode_t e4_xattr_remove_all(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib,
			      const struct e4_xattr_opts *opts)
{
	struct xw w;
	errcode_t err;

	err = xw_load(&w, fs, ino, ib, opts);
	if (!err) {
		w.in_dirty = w.in.n > 0;
		w.blk_dirty = w.bno != 0;
		while (w.in.n)
			list_delete(&w.in, w.in.n - 1);
		while (w.blk.n)
			list_delete(&w.blk, w.blk.n - 1);
		err = xw_commit(&w);
	}
	xw_free(&w);
	return err;
}

errcode_t e4_xattr_block_share(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, e4_blk_t blk,
			       const struct e4_xattr_opts *opts)
{
	struct xlist other = { 0 };
	struct xw w;
	errcode_t err;

	err = xw_load(&w, fs, ino, ib, opts);
	if (!err && blk != w.bno) {
		err = block_load(fs, blk, w.buf + fs->geom.block_size, &other);
		if (!err && e4_le32(((struct ext4_xattr_header *)(w.buf + fs->geom.block_size))
					     ->h_refcount) >= REFCOUNT_MAX)
			err = E4_ERR_XATTR_SHARE;
		for (unsigned i = 0; !err && i < other.n; i++)
			if (list_find(&w.in, other.e[i].index, other.e[i].name,
				      other.e[i].name_len) >= 0)
				err = E4_ERR_XATTR_SHARE;
		if (!err) {
			list_free(&w.blk);
			w.blk = other;
			other = (struct xlist){ 0 };
			w.blk_dirty = 1;
			w.force_share = blk;
			err = xw_commit(&w);
		}
	}
	list_free(&other);
	xw_free(&w);
	return err;
}

errcode_t e4_xattr_ibody_set(e4_fs *fs, union e4_inode_buf *ib, uint8_t name_index,
			     const char *name, size_t name_len, const void *value,
			     size_t value_len)
{
	struct xlist l = { 0 };
	struct xent x;
	errcode_t err;
	int f;

	err = name_check(name_index, name_len, value_len);
	if (!err)
		err = ibody_load(fs, &ib->inode, &l);
	if (err)
		goto out;
	f = list_find(&l, name_index, name, name_len);
	if (f >= 0 && l.e[f].inum) {
		err = E4_ERR_INVALID_ARGUMENT;	/* EA inode references: e4_xattr_set */
	} else if (!value) {
		if (f < 0)
			err = E4_ERR_XATTR_NOT_FOUND;
		else
			list_delete(&l, (unsigned)f);
	} else {
		err = ent_make(&x, name_index, name, name_len, value, value_len);
		if (!err && list_cost(&l) + ent_cost(&x) - (f >= 0 ? ent_cost(&l.e[f]) : 0) >
				    ibody_room(fs, &ib->inode))
			err = E4_ERR_NO_SPACE;
		if (!err)
			err = ent_store(&l, f, l.n, &x);
		if (err)
			free(x.value);
	}
	if (!err)
		ibody_encode(fs, ib, &l);
out:
	list_free(&l);
	return err;
}
