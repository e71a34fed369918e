/*
 * htree.c: directory hash functions and the dx (hash tree) index
 * (format doc section 8.5).
 *
 * The index is only ever used to find the leaf blocks worth searching;
 * dir.c falls back to a linear scan whenever the index is unusable.
 */
#include <stdlib.h>
#include <string.h>

#include "dir_int.h"

/* ---- hash functions --------------------------------------------------- */

static const uint32_t default_seed[4] = {
	0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476
};

static inline uint32_t rotl32(uint32_t x, unsigned s)
{
	return (x << s) | (x >> (32 - s));
}

/* Character value as the hash sees it: signed or unsigned char. */
static inline int hash_char(uint8_t c, int is_signed)
{
	return is_signed ? (int)(int8_t)c : (int)c;
}

static uint32_t legacy_hash(const uint8_t *p, size_t len, int is_signed)
{
	uint32_t h0 = 0x12A3FE2D, h1 = 0x37ABE8F9, h;
	size_t i;

	for (i = 0; i < len; i++) {
		/* |c| <= 255, so the product fits an int. */
		int32_t mix = hash_char(p[i], is_signed) * 7152373;

		h = h1 + (h0 ^ (uint32_t)mix);
		if (h & 0x80000000u)
			h -= 0x7FFFFFFFu;
		h1 = h0;
		h0 = h;
	}
	return h0 << 1;
}

/*
 * Pack the next nwords words of input from p, where len is the number of
 * bytes left in the whole name.  Words not filled by name bytes hold the
 * padding pattern derived from len; a word is built big-end first.
 */
static void pack_words(const uint8_t *p, size_t len, int is_signed,
		       uint32_t *out, unsigned nwords)
{
	uint32_t pad = (uint32_t)len | ((uint32_t)len << 8);
	uint32_t val;
	size_t i, take;
	unsigned w = 0;

	pad |= pad << 16;
	take = len < (size_t)nwords * 4 ? len : (size_t)nwords * 4;
	val = pad;
	for (i = 0; i < take; i++) {
		val = (uint32_t)hash_char(p[i], is_signed) + (val << 8);
		if ((i & 3) == 3) {
			out[w++] = val;
			val = pad;
		}
	}
	if (w < nwords)
		out[w++] = val;		/* partial word, or pad if none */
	while (w < nwords)
		out[w++] = pad;
}

static inline uint32_t md4_f(uint32_t x, uint32_t y, uint32_t z)
{
	return z ^ (x & (y ^ z));		/* x ? y : z, bitwise */
}

static inline uint32_t md4_g(uint32_t x, uint32_t y, uint32_t z)
{
	return (x & y) | (x & z) | (y & z);	/* majority */
}

static inline uint32_t md4_h(uint32_t x, uint32_t y, uint32_t z)
{
	return x ^ y ^ z;
}

/*
 * The reduced MD4 over 8 input words.  Step i of a round updates register
 * (4 - i % 4) % 4 of {a, b, c, d} from the other three in rotated order.
 */
static void half_md4_transform(uint32_t st[4], const uint32_t in[8])
{
	static const uint8_t order[3][8] = {
		{ 0, 1, 2, 3, 4, 5, 6, 7 },
		{ 1, 3, 5, 7, 0, 2, 4, 6 },
		{ 3, 7, 2, 6, 1, 5, 0, 4 },
	};
	static const uint8_t shift[3][4] = {
		{ 3, 7, 11, 19 }, { 3, 5, 9, 13 }, { 3, 9, 11, 15 },
	};
	static const uint32_t k[3] = { 0, 0x5A827999, 0x6ED9EBA1 };
	uint32_t r[4];
	int round, i;

	memcpy(r, st, sizeof(r));
	for (round = 0; round < 3; round++) {
		for (i = 0; i < 8; i++) {
			unsigned t = (4 - (i & 3)) & 3;
			uint32_t x = r[(t + 1) & 3], y = r[(t + 2) & 3];
			uint32_t z = r[(t + 3) & 3], f;

			if (round == 0)
				f = md4_f(x, y, z);
			else if (round == 1)
				f = md4_g(x, y, z);
			else
				f = md4_h(x, y, z);
			r[t] = rotl32(r[t] + f + in[order[round][i]] + k[round],
				      shift[round][i & 3]);
		}
	}
	for (i = 0; i < 4; i++)
		st[i] += r[i];
}

static void tea_transform(uint32_t st[2], const uint32_t in[4])
{
	uint32_t y = st[0], z = st[1], sum = 0;
	int n;

	for (n = 0; n < 16; n++) {
		sum += 0x9E3779B9;
		y += ((z << 4) + in[0]) ^ (z + sum) ^ ((z >> 5) + in[1]);
		z += ((y << 4) + in[2]) ^ (y + sum) ^ ((y >> 5) + in[3]);
	}
	st[0] += y;
	st[1] += z;
}

errcode_t e4_dx_hash(int version, const char *name, size_t len, const uint32_t seed[4],
		     uint32_t *major, uint32_t *minor)
{
	const uint8_t *p = (const uint8_t *)name;
	uint32_t st[4], in[8], hash, mhash = 0;
	int is_signed = version < DX_HASH_LEGACY_UNSIGNED;

	memcpy(st, default_seed, sizeof(st));
	if (seed && (seed[0] | seed[1] | seed[2] | seed[3]))
		memcpy(st, seed, sizeof(st));

	switch (version) {
	case DX_HASH_LEGACY:
	case DX_HASH_LEGACY_UNSIGNED:
		hash = legacy_hash(p, len, is_signed);
		break;
	case DX_HASH_HALF_MD4:
	case DX_HASH_HALF_MD4_UNSIGNED:
		while (len > 0) {
			pack_words(p, len, is_signed, in, 8);
			half_md4_transform(st, in);
			if (len <= 32)
				break;
			len -= 32;
			p += 32;
		}
		hash = st[1];
		mhash = st[2];
		break;
	case DX_HASH_TEA:
	case DX_HASH_TEA_UNSIGNED:
		while (len > 0) {
			pack_words(p, len, is_signed, in, 4);
			tea_transform(st, in);
			if (len <= 16)
				break;
			len -= 16;
			p += 16;
		}
		hash = st[0];
		mhash = st[1];
		break;
	default:
		return E4_ERR_BAD_HASH_VERSION;
	}
	/* Bit 0 is the collision-continuation marker in dx entries.  Like
	 * e2fsprogs 1.47 (and unlike the kernel) 0xFFFFFFFE is kept as is. */
	*major = hash & ~1u;
	if (minor)
		*minor = mhash;
	return 0;
}

int e4_dx_effective_version(e4_fs *fs, int root_hash_version)
{
	if (root_hash_version >= DX_HASH_LEGACY && root_hash_version <= DX_HASH_TEA &&
	    (e4_le32(fs->sb->s_flags) & EXT2_FLAGS_UNSIGNED_HASH))
		return root_hash_version + 3;
	return root_hash_version;
}

/* ---- dx blocks -------------------------------------------------------- */

#define DX_ROOT_COUNT_OFF	E4_DX_ROOT_COUNT_OFF
#define DX_NODE_COUNT_OFF	E4_DX_NODE_COUNT_OFF
#define DX_MAX_LEAVES		4096	/* cap on a collision chain */

/* 1 if the countlimit at off is one a dx block of this size can carry. */
static int countlimit_ok(const uint8_t *b, unsigned bs, unsigned off)
{
	unsigned limit = e4_get_le16(b + off), count = e4_get_le16(b + off + 2);

	if (limit != e4_dx_limit(bs, off, 1) && limit != e4_dx_limit(bs, off, 0))
		return 0;
	return count <= limit;
}

int e4_dx_block_kind(e4_fs *fs, const void *block, uint64_t lblk)
{
	const uint8_t *b = block;
	unsigned bs = fs->geom.block_size;

	if (lblk == 0) {
		/* "." (rec_len 12) then ".." covering the rest of the block. */
		if (e4_get_le16(b + 4) != 12 || b[6] != 1 || b[8] != '.')
			return E4_DX_LEAF;
		if (e4_rec_len_from_disk(e4_get_le16(b + 12 + 4), bs) != bs - 12 ||
		    b[12 + 6] != 2 || b[12 + 8] != '.' || b[12 + 9] != '.')
			return E4_DX_LEAF;
		if (b[0x1D] != sizeof(struct dx_root_info))	/* info_length */
			return E4_DX_LEAF;
		return countlimit_ok(b, bs, DX_ROOT_COUNT_OFF) ? E4_DX_ROOT : E4_DX_LEAF;
	}
	/* A fake empty entry spanning the whole block. */
	if (e4_get_le32(b) != 0 || b[6] != 0 || e4_rec_len_from_disk(e4_get_le16(b + 4), bs) != bs)
		return E4_DX_LEAF;
	return countlimit_ok(b, bs, DX_NODE_COUNT_OFF) ? E4_DX_NODE : E4_DX_LEAF;
}

errcode_t e4_dx_block_verify(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			     const void *block, int kind)
{
	const uint8_t *b = block;
	unsigned bs = fs->geom.block_size;
	unsigned off = kind == E4_DX_ROOT ? DX_ROOT_COUNT_OFF : DX_NODE_COUNT_OFF;
	unsigned limit = e4_get_le16(b + off), count = e4_get_le16(b + off + 2);
	struct dx_tail tail;
	uint32_t calc;

	if (count > limit || off + (size_t)limit * 8 > bs)
		return E4_ERR_HTREE_CORRUPT;
	if (!fs->geom.metadata_csum)
		return 0;
	if (off + (size_t)limit * 8 + sizeof(tail) > bs)
		return e4_ignore_csum(fs) ? 0 : E4_ERR_DIR_NO_CSUM_TAIL;
	memcpy(&tail, b + off + limit * 8, sizeof(tail));
	calc = e4_dx_csum(fs, ino, e4_le32(inode->i_generation), b, off, count, &tail);
	if (calc != e4_le32(tail.dt_checksum) && !e4_ignore_csum(fs))
		return E4_ERR_HTREE_CSUM;
	return 0;
}

/* Validate the entries of a dx block: non-empty, hashes ascending, child
 * blocks inside the directory and not the root. */
static errcode_t frame_check(struct e4_dx_frame *f, uint64_t nblocks)
{
	unsigned i;

	f->count = e4_get_le16(f->buf + f->off + 2);
	f->limit = e4_get_le16(f->buf + f->off);
	if (f->count == 0)
		return E4_ERR_HTREE_CORRUPT;
	for (i = 0; i < f->count; i++) {
		uint32_t blk = e4_dx_frame_block(f, i);

		if (blk == 0 || blk >= nblocks)
			return E4_ERR_HTREE_CORRUPT;
		if (i > 1 && e4_dx_frame_hash(f, i) < e4_dx_frame_hash(f, i - 1))
			return E4_ERR_HTREE_CORRUPT;
	}
	return 0;
}

/* Read interior node lblk into f and check it. */
static errcode_t load_node(e4_fs *fs, e4_ino_t dir, const struct ext4_inode *inode,
			   uint64_t lblk, uint64_t nblocks, struct e4_dx_frame *f)
{
	errcode_t err;

	err = e4_dir_read_lblk(fs, dir, inode, lblk, f->buf);
	if (err)
		return err;
	if (e4_dx_block_kind(fs, f->buf, lblk) != E4_DX_NODE)
		return E4_ERR_HTREE_CORRUPT;
	err = e4_dx_block_verify(fs, dir, inode, f->buf, E4_DX_NODE);
	if (err)
		return err;
	f->lblk = lblk;
	f->off = DX_NODE_COUNT_OFF;
	f->pos = 0;
	return frame_check(f, nblocks);
}

/* The last entry of f whose hash is <= hash. */
static unsigned frame_search(const struct e4_dx_frame *f, uint32_t hash)
{
	unsigned lo = 0, hi = f->count - 1;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo + 1) / 2;

		if (e4_dx_frame_hash(f, mid) > hash)
			hi = mid - 1;
		else
			lo = mid;
	}
	return lo;
}

void e4_dx_path_free(struct e4_dx_path *p)
{
	free(p->mem);
	p->mem = NULL;
}

errcode_t e4_dx_probe(e4_fs *fs, e4_ino_t dir, const struct ext4_inode *inode,
		      const char *name, size_t len, struct e4_dx_path *p)
{
	unsigned bs = fs->geom.block_size, k;
	uint64_t nblocks = (e4_inode_size(inode) + bs - 1) / bs;
	struct e4_dx_frame *fr = p->fr;
	errcode_t err;

	memset(p, 0, sizeof(*p));
	p->mem = malloc((size_t)bs * E4_DX_MAX_FRAMES);
	if (!p->mem)
		return E4_ERR_NO_MEMORY;
	for (k = 0; k < E4_DX_MAX_FRAMES; k++)
		fr[k].buf = p->mem + (size_t)bs * k;

	err = e4_dir_read_lblk(fs, dir, inode, 0, fr[0].buf);
	if (err)
		return err;
	if (e4_dx_block_kind(fs, fr[0].buf, 0) != E4_DX_ROOT)
		return E4_ERR_HTREE_CORRUPT;
	p->levels = fr[0].buf[0x1E];
	if (p->levels > e4_dx_max_levels(fs) || (fr[0].buf[0x1F] & 1))
		return E4_ERR_HTREE_CORRUPT;
	err = e4_dx_block_verify(fs, dir, inode, fr[0].buf, E4_DX_ROOT);
	if (err)
		return err;
	fr[0].lblk = 0;
	fr[0].off = DX_ROOT_COUNT_OFF;
	err = frame_check(&fr[0], nblocks);
	if (err)
		return err;

	p->version = e4_dx_effective_version(fs, fr[0].buf[0x1C]);
	err = e4_dx_hash(p->version, name, len, fs->hash_seed, &p->hash, NULL);
	if (err)
		return err;

	/* Descend: at each level, the last entry whose hash is <= hash. */
	for (k = 0;; k++) {
		fr[k].pos = frame_search(&fr[k], p->hash);
		if (k == p->levels)
			return 0;
		err = load_node(fs, dir, inode, e4_dx_frame_block(&fr[k], fr[k].pos), nblocks,
				&fr[k + 1]);
		if (err)
			return err;
	}
}

errcode_t e4_dx_lookup_leaves(e4_fs *fs, e4_ino_t dir, const struct ext4_inode *inode,
			      const char *name, size_t len, uint64_t **lblks, size_t *count)
{
	unsigned bs = fs->geom.block_size, levels, k, j;
	uint64_t nblocks = (e4_inode_size(inode) + bs - 1) / bs;
	struct e4_dx_path path;
	struct e4_dx_frame *fr = path.fr;
	uint64_t *out = NULL;
	size_t n = 0;
	errcode_t err;

	*lblks = NULL;
	*count = 0;
	err = e4_dx_probe(fs, dir, inode, name, len, &path);
	if (err)
		goto out;
	levels = path.levels;
	out = malloc(sizeof(*out) * 16);
	if (!out) {
		err = E4_ERR_NO_MEMORY;
		goto out;
	}
	out[n++] = e4_dx_frame_block(&fr[levels], fr[levels].pos);

	/* Collision chains: the next leaf continues while its starting hash
	 * (bit 0 aside) is the hash looked up. */
	for (;;) {
		for (k = levels + 1; k-- > 0;)
			if (fr[k].pos + 1 < fr[k].count)
				break;
		if (k > levels)
			break;			/* no entry to the right */
		if ((e4_dx_frame_hash(&fr[k], fr[k].pos + 1) & ~1u) != path.hash)
			break;
		fr[k].pos++;
		for (j = k; j < levels; j++) {
			err = load_node(fs, dir, inode, e4_dx_frame_block(&fr[j], fr[j].pos),
					nblocks, &fr[j + 1]);
			if (err)
				goto out;
		}
		if (n >= DX_MAX_LEAVES) {
			err = E4_ERR_HTREE_CORRUPT;
			goto out;
		}
		if ((n & (n - 1)) == 0 && n >= 16) {
			uint64_t *bigger = realloc(out, sizeof(*out) * n * 2);

			if (!bigger) {
				err = E4_ERR_NO_MEMORY;
				goto out;
			}
			out = bigger;
		}
		out[n++] = e4_dx_frame_block(&fr[levels], fr[levels].pos);
	}
	err = 0;
	*lblks = out;
	*count = n;
	out = NULL;
out:
	free(out);
	e4_dx_path_free(&path);
	return err;
}

/* ---- dx blocks as they are, for inspection (debugfs htree_dump) -------- */
errcode_t e4_dx_root_parse(e4_fs *fs, const void *block, struct e4_dx_root *out)
{
	const uint8_t *b = block;
	struct dx_root_info info;

	memcpy(&info, b + 0x18, sizeof(info));
	out->reserved_zero = e4_le32(info.reserved_zero);
	out->hash_version = info.hash_version;
	out->info_length = info.info_length;
	out->indirect_levels = info.indirect_levels;
	out->unused_flags = info.unused_flags;
	out->count_off = 0x18 + info.info_length;
	/* past the kernel's limit, leaf blocks would be read as index nodes */
	if (out->count_off + sizeof(struct dx_countlimit) > fs->geom.block_size ||
	    info.indirect_levels > e4_dx_max_levels(fs))
		return E4_ERR_HTREE_CORRUPT;
	return 0;
}

void e4_dx_node_parse(e4_fs *fs, const void *block, unsigned count_off, struct e4_dx_node *out)
{
	const uint8_t *b = block;
	unsigned bs = fs->geom.block_size;

	out->count_off = count_off;
	out->limit = e4_get_le16(b + count_off);
	out->count = e4_get_le16(b + count_off + 2);
	out->max = (bs - count_off) / sizeof(struct dx_entry);
	out->has_csum = fs->geom.metadata_csum && out->limit <= out->max &&
			count_off + (size_t)out->limit * sizeof(struct dx_entry) +
			sizeof(struct dx_tail) <= bs;
	out->csum = out->has_csum ?
		    e4_get_le32(b + count_off + out->limit * sizeof(struct dx_entry) + 4) : 0;
}

void e4_dx_node_entry(const void *block, const struct e4_dx_node *n, unsigned i,
		      uint32_t *hash, uint32_t *lblk)
{
	const uint8_t *e = (const uint8_t *)block + n->count_off + sizeof(struct dx_entry) * i;

	*hash = i ? e4_get_le32(e) : 0;
	*lblk = e4_get_le32(e + 4) & E4_DX_BLOCK_MASK;
}

errcode_t e4_dirent_raw_at(const void *block, unsigned bs, unsigned off,
			   struct e4_dirent_raw *out)
{
	const uint8_t *d = (const uint8_t *)block + off;

	if (off + E4_DIRENT_HDR > bs)
		return E4_ERR_BAD_REC_LEN;
	out->inode = e4_get_le32(d);
	out->rec_len = e4_rec_len_from_disk(e4_get_le16(d + 4), bs);
	out->name_len = d[6];
	out->file_type = d[7];
	out->name = (const char *)d + E4_DIRENT_HDR;
	if (out->rec_len < E4_DIRENT_HDR || out->rec_len % 4 || off + out->rec_len > bs ||
	    (unsigned)out->name_len + E4_DIRENT_HDR > out->rec_len)
		return E4_ERR_BAD_REC_LEN;
	out->csum_tail = !out->inode && out->rec_len == sizeof(struct ext4_dir_entry_tail) &&
			 !out->name_len && out->file_type == EXT4_FT_DIR_CSUM;
	out->tail_csum = out->csum_tail ? e4_get_le32(d + 8) : 0;
	return 0;
}
