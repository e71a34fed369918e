/*
 * dir.c: directory entries, iteration, lookup and path resolution
 * (format doc section 8).
 *
 * Iteration walks every logical block of the directory in order.  Index
 * blocks of an htree directory are recognised by their layout (the dx
 * root in block 0 yields only "." and "..", interior nodes yield nothing),
 * so a damaged index never hides the leaves.
 *
 * A block in an unwritten extent is read as stored, as the kernel reads
 * directories (e2fsck keeps its entries and clears the flag).
 *
 * Damage policy: a block that cannot be used (a hole, a read error, a
 * checksum mismatch, a missing checksum tail) is skipped entirely; a block with a malformed entry yields the entries
 * before it.  Either way the walk goes on with the next block and the
 * first such error is returned once the walk is complete.  Errors of the
 * mapping itself (a bad extent tree) end the walk at once.
 *
 * Lookup in an indexed directory searches the leaves the hash index
 * names; a hit there is final.  A miss, or an index that cannot be used,
 * is confirmed by a linear scan, because an index sound in form can still
 * be stale (hash seed or signedness changed): a miss costs a full scan.
 */
#include <stdlib.h>
#include <string.h>

#include "e4_private.h"

#define DIRENT_HDR		8	/* inode, rec_len, name_len, file_type */
#define DIRENT_TAIL_SIZE	((unsigned)sizeof(struct ext4_dir_entry_tail))
#define NAMEI_MAX_NEST		8	/* nested symlinks (format doc: 8 levels) */
#define NAMEI_MAX_LINKS		40	/* symlinks followed in one resolution */
#define DIR_MAX_BYTES		(1ULL << 31)	/* without largedir */

/* ---- rec_len ---------------------------------------------------------- */

unsigned e4_rec_len_from_disk(uint16_t dlen, unsigned blocksize)
{
	if (blocksize < 65536)
		return dlen;		/* 0 stays 0: corrupt, callers reject it */
	if (dlen == 0xFFFF || dlen == 0)
		return blocksize;
	return (dlen & 0xFFFCu) | ((unsigned)(dlen & 3) << 16);
}

errcode_t e4_rec_len_to_disk(unsigned len, unsigned blocksize, uint16_t *dlen)
{
	if (len == 0 || len > blocksize || len > (1u << 18) || (len & 3))
		return E4_ERR_BAD_REC_LEN;
	if (len < 65536) {
		*dlen = (uint16_t)len;
		return 0;
	}
	if (len == blocksize) {
		*dlen = blocksize == 65536 ? 0xFFFF : 0;
		return 0;
	}
	*dlen = (uint16_t)((len & 0xFFFCu) | ((len >> 16) & 3));
	/* 0x3FFFC would come out as 0xFFFF, which means the whole block. */
	return e4_rec_len_from_disk(*dlen, blocksize) == len ? 0 : E4_ERR_BAD_REC_LEN;
}

/* ---- block access ----------------------------------------------------- */

errcode_t e4_dir_read_lblk(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			   uint64_t lblk, void *buf)
{
	e4_blk_t pblk;
	uint32_t len;
	unsigned flags;
	errcode_t err;

	err = e4_bmap(fs, ino, inode, lblk, &pblk, &len, &flags);
	if (err)
		return err;
	(void)flags;	/* unwritten: read as stored (see the top) */
	if (!pblk)
		return E4_ERR_DIR_CORRUPT;
	return e4_read_block(fs, pblk, buf);
}

/* ---- walking entries -------------------------------------------------- */

struct walk {
	e4_fs *fs;
	e4_ino_t ino;
	const struct ext4_inode *inode;
	unsigned flags;
	e4_dir_cb cb;
	void *priv;
	errcode_t err;		/* first per-block error */
	/* Lookup mode (want != NULL): match names in place, no callback. */
	const char *want;
	size_t want_len;
	e4_ino_t found_ino;
	uint8_t found_ft;
	struct e4_dirent de;
};

static void note_err(struct walk *w, errcode_t err)
{
	if (err && !w->err)
		w->err = err;
}

static int is_dots(const uint8_t *name, unsigned len)
{
	return (len == 1 && name[0] == '.') ||
	       (len == 2 && name[0] == '.' && name[1] == '.');
}

/* Report one entry, applying the E4_DIR_* filters; returns cb's value.
 * In lookup mode, returns 1 when the entry is the name wanted. */
static int emit(struct walk *w, uint32_t ino, unsigned rec_len, const uint8_t *name,
		unsigned name_len, unsigned file_type, uint64_t lblk, unsigned offset)
{
	int has_ft = e4_has_incompat(w->fs, EXT4_FEATURE_INCOMPAT_FILETYPE);

	if (w->want) {
		if (!ino || name_len != w->want_len || memcmp(name, w->want, name_len))
			return 0;
		w->found_ino = ino;
		w->found_ft = has_ft ? (uint8_t)file_type : 0;
		return 1;
	}
	if (!ino && !(w->flags & E4_DIR_EMPTY))
		return 0;
	if ((w->flags & E4_DIR_NO_DOTS) && ino && is_dots(name, name_len))
		return 0;
	w->de.inode = ino;
	w->de.rec_len = rec_len;
	w->de.name_len = (uint8_t)name_len;
	w->de.file_type = has_ft ? (uint8_t)file_type : 0;
	memcpy(w->de.name, name, name_len);
	w->de.name[name_len] = '\0';
	w->de.lblk = lblk;
	w->de.offset = offset;
	return w->cb(&w->de, w->priv);
}

/*
 * Walk the entries in buf[start, end).  rec_len values are decoded for
 * block size rl_bs; reported offsets are base + position in buf.  A
 * malformed entry ends the region with an error noted.
 */
static int walk_region(struct walk *w, const uint8_t *buf, unsigned start, unsigned end,
		       unsigned rl_bs, uint64_t lblk, unsigned base)
{
	unsigned off = start;
	int ret;

	while (off < end) {
		const uint8_t *d = buf + off;
		unsigned rec_len, name_len;
		uint32_t ino;

		if (end - off < DIRENT_HDR) {
			note_err(w, E4_ERR_DIR_CORRUPT);
			return 0;
		}
		ino = e4_get_le32(d);
		rec_len = e4_rec_len_from_disk(e4_get_le16(d + 4), rl_bs);
		name_len = d[6];
		if (rec_len < DIRENT_HDR || (rec_len & 3) || rec_len > end - off ||
		    ((DIRENT_HDR + name_len + 3) & ~3u) > rec_len) {
			note_err(w, E4_ERR_BAD_REC_LEN);
			return 0;
		}
		if (ino && (name_len == 0 || ino > w->fs->geom.inodes_count)) {
			note_err(w, E4_ERR_DIR_CORRUPT);
			return 0;
		}
		ret = emit(w, ino, rec_len, d + DIRENT_HDR, name_len, d[7], lblk, base + off);
		if (ret)
			return ret;
		off += rec_len;
	}
	return 0;
}

/* 1 if the block ends with a well-formed dirent checksum tail. */
static int has_dirent_tail(const uint8_t *b, unsigned bs)
{
	const uint8_t *t = b + bs - DIRENT_TAIL_SIZE;

	return e4_get_le32(t) == 0 && e4_get_le16(t + 4) == DIRENT_TAIL_SIZE && t[6] == 0 &&
	       t[7] == EXT4_FT_DIR_CSUM;
}

/* Walk one directory block (already read into buf). */
static int walk_block(struct walk *w, const uint8_t *buf, uint64_t lblk)
{
	e4_fs *fs = w->fs;
	unsigned bs = fs->geom.block_size, end = bs;
	int kind = e4_dx_block_kind(fs, buf, lblk);
	errcode_t err;

	if (kind != E4_DX_LEAF) {
		err = e4_dx_block_verify(fs, w->ino, w->inode, buf, kind);
		if (err) {
			note_err(w, err);
			return 0;
		}
		if (kind == E4_DX_NODE)
			return 0;	/* index only: no entries */
		/* dx root: "." and "..", whose rec_len spans the index. */
		return walk_region(w, buf, 0, bs, bs, lblk, 0);
	}
	if (fs->geom.metadata_csum) {
		if (has_dirent_tail(buf, bs)) {
			struct ext4_dir_entry_tail t;

			end = bs - DIRENT_TAIL_SIZE;
			memcpy(&t, buf + end, sizeof(t));
			if (!e4_ignore_csum(fs) &&
			    e4_le32(t.det_checksum) !=
			    e4_dirblock_csum(fs, w->ino, e4_le32(w->inode->i_generation), buf)) {
				note_err(w, E4_ERR_DIR_CSUM);
				return 0;
			}
		} else if (!e4_ignore_csum(fs)) {
			note_err(w, E4_ERR_DIR_NO_CSUM_TAIL);
			return 0;
		}
	}
	return walk_region(w, buf, 0, end, bs, lblk, 0);
}

/* Every logical block below i_size, holes skipped as whole ranges. */
static int walk_blocks(struct walk *w)
{
	e4_fs *fs = w->fs;
	unsigned bs = fs->geom.block_size;
	uint64_t size = e4_inode_size(w->inode), nblocks, lblk = 0;
	uint8_t *buf;
	int ret = 0;

	/* Bound the walk: a crafted map could repeat blocks up to i_size. */
	if (size > DIR_MAX_BYTES && !e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_LARGEDIR)) {
		note_err(w, E4_ERR_DIR_CORRUPT);
		size = DIR_MAX_BYTES;
	}
	nblocks = (size + bs - 1) / bs;
	buf = malloc(bs);
	if (!buf) {
		note_err(w, E4_ERR_NO_MEMORY);
		return 0;
	}
	while (lblk < nblocks && !ret) {
		e4_blk_t pblk;
		uint32_t len, i;
		unsigned mflags;
		errcode_t err;

		err = e4_bmap(fs, w->ino, w->inode, lblk, &pblk, &len, &mflags);
		if (err) {
			note_err(w, err);
			break;
		}
		if (len == 0)
			len = 1;
		if (!pblk) {
			/* A hole: directories have none. */
			note_err(w, E4_ERR_DIR_CORRUPT);
			if (len == UINT32_MAX || len >= nblocks - lblk)
				break;
			lblk += len;
			continue;
		}
		/* unwritten extents too: read as stored (see the top) */
		for (i = 0; i < len && lblk < nblocks && !ret; i++, lblk++) {
			err = e4_read_block(fs, pblk + i, buf);
			if (err) {
				note_err(w, err);
				continue;
			}
			ret = walk_block(w, buf, lblk);
		}
	}
	free(buf);
	return ret;
}

/* Inline directory: synthetic "." and "..", entries after the 4-byte
 * parent in i_block, then entries filling system.data (section 8.6). */
static int walk_inline(struct walk *w)
{
	e4_fs *fs = w->fs;
	size_t size, got;
	uint8_t *buf;
	uint32_t parent;
	errcode_t err;
	int ret;

	err = e4_inline_data_size(fs, w->ino, w->inode, &size);
	if (err) {
		note_err(w, err);
		return 0;
	}
	if (size < EXT4_MIN_INLINE_DATA_SIZE || size > 65536) {
		note_err(w, E4_ERR_INLINE_DATA);
		return 0;
	}
	buf = malloc(size);
	if (!buf) {
		note_err(w, E4_ERR_NO_MEMORY);
		return 0;
	}
	err = e4_inline_data_get(fs, w->ino, w->inode, buf, size, &got);
	if (err || got != size) {
		note_err(w, err ? err : E4_ERR_INLINE_DATA);
		free(buf);
		return 0;
	}
	parent = e4_get_le32(buf);
	if (parent > fs->geom.inodes_count) {
		note_err(w, E4_ERR_DIR_CORRUPT);
		parent = 0;	/* not reported */
	}
	ret = emit(w, w->ino, 12, (const uint8_t *)".", 1, EXT4_FT_DIR, UINT64_MAX, 0);
	if (!ret && parent)
		ret = emit(w, parent, 12, (const uint8_t *)"..", 2, EXT4_FT_DIR, UINT64_MAX, 0);
	if (!ret)
		ret = walk_region(w, buf, EXT4_INLINE_DOTDOT_SIZE, EXT4_MIN_INLINE_DATA_SIZE,
				  EXT4_MIN_INLINE_DATA_SIZE, UINT64_MAX, 0);
	if (!ret && size > EXT4_MIN_INLINE_DATA_SIZE)
		ret = walk_region(w, buf + EXT4_MIN_INLINE_DATA_SIZE, 0,
				  (unsigned)(size - EXT4_MIN_INLINE_DATA_SIZE),
				  (unsigned)(size - EXT4_MIN_INLINE_DATA_SIZE), UINT64_MAX,
				  EXT4_MIN_INLINE_DATA_SIZE);
	free(buf);
	return ret;
}

static errcode_t walk_init(struct walk *w, e4_fs *fs, e4_ino_t dir, union e4_inode_buf *ib,
			   unsigned flags, e4_dir_cb cb, void *priv)
{
	errcode_t err;

	memset(w, 0, sizeof(*w));
	err = e4_inode_read(fs, dir, ib);
	if (err)
		return err;
	if (!e4_is_dir(&ib->inode))
		return E4_ERR_NOT_DIR;
	w->fs = fs;
	w->ino = dir;
	w->inode = &ib->inode;
	w->flags = flags;
	w->cb = cb;
	w->priv = priv;
	return 0;
}

static inline int is_inline(const struct ext4_inode *inode)
{
	return (e4_le32(inode->i_flags) & EXT4_INLINE_DATA_FL) != 0;
}

errcode_t e4_dir_iterate(e4_fs *fs, e4_ino_t dir, unsigned flags, e4_dir_cb cb, void *priv)
{
	union e4_inode_buf ib;
	struct walk w;
	errcode_t err;
	int ret;

	err = walk_init(&w, fs, dir, &ib, flags, cb, priv);
	if (err)
		return err;
	ret = is_inline(w.inode) ? walk_inline(&w) : walk_blocks(&w);
	return ret ? (errcode_t)ret : w.err;
}

/* ---- lookup ----------------------------------------------------------- */

/*
 * Search the leaves the hash index names.  Returns 1 found, 0 not there
 * (the index was sound), -1 when the index cannot be used.
 */
static int dx_lookup(struct walk *w, const char *name, size_t len)
{
	uint8_t *buf = NULL;
	uint64_t *leaves;
	size_t n, i;
	int ret = -1;

	if (e4_dx_lookup_leaves(w->fs, w->ino, w->inode, name, len, &leaves, &n))
		return -1;
	buf = malloc(w->fs->geom.block_size);
	if (!buf)
		goto out;
	for (i = 0; i < n; i++) {
		if (e4_dir_read_lblk(w->fs, w->ino, w->inode, leaves[i], buf) ||
		    e4_dx_block_kind(w->fs, buf, leaves[i]) != E4_DX_LEAF)
			goto out;
		if (walk_block(w, buf, leaves[i]))
			break;
		if (w->err)
			goto out;
	}
	ret = i < n;
out:
	free(buf);
	free(leaves);
	return ret;
}

/* e4_dir_lookup(); trust_index: a miss in a sound index is final. */
static errcode_t lookup(e4_fs *fs, e4_ino_t dir, const char *name, size_t len,
			e4_ino_t *ino, uint8_t *file_type, int trust_index)
{
	union e4_inode_buf ib;
	struct walk w;
	errcode_t err;
	uint32_t iflags;
	int ret;

	if (len > EXT4_NAME_LEN)
		return E4_ERR_NAME_TOO_LONG;
	err = walk_init(&w, fs, dir, &ib, 0, NULL, NULL);
	if (err)
		return err;
	w.want = name;
	w.want_len = len;
	if (len == 0)
		return E4_ERR_NOT_FOUND;
	iflags = e4_le32(w.inode->i_flags);
	if (is_inline(w.inode)) {
		ret = walk_inline(&w);
	} else {
		ret = -1;
		/* "." and ".." sit in the dx root, found at once linearly;
		 * casefolded names hash in folded form: search those
		 * linearly too. */
		if ((iflags & EXT4_INDEX_FL) && !is_dots((const uint8_t *)name, len) &&
		    !(iflags & (EXT4_CASEFOLD_FL | EXT4_ENCRYPT_FL)) &&
		    e4_has_compat(fs, EXT4_FEATURE_COMPAT_DIR_INDEX))
			ret = dx_lookup(&w, name, len);
		/* A miss in the index is confirmed by a linear scan (unless
		 * trust_index): an index that is sound in form can still be
		 * stale (hash seed or signedness changed, entries misplaced).
		 * An index that cannot be used is always bypassed. */
		if (ret < 0 || (ret == 0 && !trust_index)) {
			w.err = 0;
			ret = walk_blocks(&w);
		}
	}
	if (ret > 0) {
		if (ino)
			*ino = w.found_ino;
		if (file_type)
			*file_type = w.found_ft;
		return 0;
	}
	return w.err ? w.err : E4_ERR_NOT_FOUND;
}

errcode_t e4_dir_lookup(e4_fs *fs, e4_ino_t dir, const char *name, size_t len,
			e4_ino_t *ino, uint8_t *file_type)
{
	return lookup(fs, dir, name, len, ino, file_type, 0);
}

errcode_t e4_dir_lookup_index(e4_fs *fs, e4_ino_t dir, const char *name, size_t len,
			      e4_ino_t *ino, uint8_t *file_type)
{
	return lookup(fs, dir, name, len, ino, file_type, 1);
}

/* ---- path resolution -------------------------------------------------- */

struct namei_ctx {
	e4_fs *fs;
	e4_ino_t root;
	int links;		/* symlinks followed so far */
};

static errcode_t resolve(struct namei_ctx *c, e4_ino_t dir, const char *path, size_t plen,
			 int follow, int depth, e4_ino_t *res);

static errcode_t follow_link(struct namei_ctx *c, e4_ino_t dir, e4_ino_t link,
			     const union e4_inode_buf *ib, int depth, e4_ino_t *res)
{
	size_t bufsize = c->fs->geom.block_size + 1, len;
	char *target;
	errcode_t err;

	if (depth >= NAMEI_MAX_NEST || ++c->links > NAMEI_MAX_LINKS)
		return E4_ERR_SYMLINK_LOOP;
	target = malloc(bufsize);
	if (!target)
		return E4_ERR_NO_MEMORY;
	err = e4_readlink(c->fs, link, &ib->inode, target, bufsize, &len);
	if (err == E4_ERR_BUFFER_TOO_SMALL)
		err = E4_ERR_SYMLINK_CORRUPT;
	if (!err)
		err = resolve(c, dir, target, len, 1, depth + 1, res);
	free(target);
	return err;
}

static errcode_t resolve(struct namei_ctx *c, e4_ino_t dir, const char *path, size_t plen,
			 int follow, int depth, e4_ino_t *res)
{
	const char *p = path, *end = path + plen;
	e4_ino_t cur = dir, next;
	union e4_inode_buf ib;
	errcode_t err;

	if (plen && path[0] == '/')
		cur = c->root;
	for (;;) {
		const char *comp, *q;
		size_t clen;
		int last, want_dir;

		while (p < end && *p == '/')
			p++;
		if (p == end)
			break;
		comp = p;
		while (p < end && *p != '/')
			p++;
		clen = (size_t)(p - comp);
		for (q = p; q < end && *q == '/'; q++)
			;
		last = q == end;
		want_dir = last && p < end;	/* trailing slash */

		err = e4_inode_read(c->fs, cur, &ib);
		if (err)
			return err;
		if (!e4_is_dir(&ib.inode))
			return E4_ERR_NOT_DIR;
		if (clen > EXT4_NAME_LEN)
			return E4_ERR_NAME_TOO_LONG;
		if (clen == 1 && comp[0] == '.')
			continue;
		if (clen == 2 && comp[0] == '.' && comp[1] == '.' && cur == c->root)
			continue;
		err = e4_dir_lookup(c->fs, cur, comp, clen, &next, NULL);
		if (err)
			return err;
		if (!last || follow || want_dir) {
			err = e4_inode_read(c->fs, next, &ib);
			if (err)
				return err;
			if (e4_is_symlink(&ib.inode)) {
				err = follow_link(c, cur, next, &ib, depth, &next);
				if (err)
					return err;
				if (want_dir) {
					err = e4_inode_read(c->fs, next, &ib);
					if (err)
						return err;
				}
			}
			if (want_dir && !e4_is_dir(&ib.inode))
				return E4_ERR_NOT_DIR;
		}
		cur = next;
	}
	*res = cur;
	return 0;
}

errcode_t e4_namei(e4_fs *fs, e4_ino_t root, e4_ino_t cwd, const char *path,
		   int follow, e4_ino_t *ino)
{
	struct namei_ctx c;

	if (!path)
		return E4_ERR_INVALID_ARGUMENT;
	c.fs = fs;
	c.root = root ? root : EXT4_ROOT_INO;
	c.links = 0;
	return resolve(&c, cwd ? cwd : c.root, path, strlen(path), follow, 0, ino);
}

errcode_t e4_dir_block_read(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			    uint64_t lblk, void *buf, e4_blk_t *pblk)
{
	uint32_t len;
	unsigned flags;
	errcode_t err;

	if (pblk) {
		err = e4_bmap(fs, ino, inode, lblk, pblk, &len, &flags);
		if (err)
			return err;
	}
	return e4_dir_read_lblk(fs, ino, inode, lblk, buf);
}

int e4_dir_block_is_first(e4_fs *fs, e4_ino_t ino, const void *buf, e4_ino_t *dotdot)
{
	const uint8_t *b = buf;
	unsigned bs = fs->geom.block_size, off = 0, n = 0;
	int ft = e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_FILETYPE);

	while (off < bs) {
		uint32_t inum;
		unsigned rl, nl;

		if (bs - off < 12)
			return 0;
		inum = e4_le32(*(const uint32_t *)(const void *)(b + off));
		rl = e4_rec_len_from_disk(e4_le16(*(const uint16_t *)(const void *)(b + off + 4)), bs);
		nl = b[off + 6] | (ft ? 0u : (unsigned)b[off + 7] << 8);
		if (rl < 12 || (rl & 3) || rl > bs - off || nl + 8 > rl || inum > fs->geom.inodes_count)
			return 0;
		if (n == 0 && (inum != ino || nl != 1 || b[off + 8] != '.' || rl != 12))
			return 0;
		if (n == 1 && (!inum || nl != 2 || b[off + 8] != '.' || b[off + 9] != '.'))
			return 0;
		if (n == 1)
			*dotdot = inum;
		off += rl;
		n++;
	}
	return n >= 2;
}
