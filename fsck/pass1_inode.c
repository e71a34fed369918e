/*
 * pass1_inode.c: pass 1's checks of one inode's fields (issue 15).
 *
 * An inode without links (and not reserved) is unused: only its deletion
 * time is looked at.  An inode in use is marked (and counted in its
 * group's directories), then checked field by field, each problem its own
 * row with a repair that changes that field alone: deletion time, extra
 * field size, file type (left for the directory passes), inline data,
 * device/FIFO/socket fields, fast symlink size, xattr block, the block
 * map (check_map.h: claims every block), then i_size and i_blocks against
 * the map, then the checksum (rewritten only when nothing else was wrong).
 * A repaired inode is written back with its checksum.
 */
#include "pass1.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One inode under check. */
struct ichk {
	struct pass1 *p;
	e4_ino_t ino;
	union e4_inode_buf *ib;
	struct ext4_inode *in;
	uint16_t type;		/* i_mode & EXT4_S_IFMT */
	int changed;		/* repaired in memory: write it */
	int said;		/* a problem was said about it */
	int map_left;		/* the map checker left damage: sizes not judged */
	int has_map;
	int xattr_block;	/* a valid xattr block counts in i_blocks */
	int ea_values;		/* values in EA inodes: i_blocks not judged */
	int map_kept;		/* a map the type does not allow, left: no sizes */
	int fast_symlink;	/* a symlink whose i_block holds its target */
	int csum_bad;		/* its checksum did not match when read */
	char why[80];		/* pctx.recoverable's text */
	struct check_map_result res;
};

/* Say code about the inode: 1 when the repair is to be made. */
static int say(struct ichk *c, uint32_t code, struct problem_ctx *pctx)
{
	c->said = 1;
	pctx->ino = c->ino;
	return fix_problem(c->p->ctx, code, pctx) && !c->p->ctx->read_only;
}

static int is_special(uint16_t type)
{
	return type == EXT4_S_IFCHR || type == EXT4_S_IFBLK || type == EXT4_S_IFIFO ||
	       type == EXT4_S_IFSOCK;
}

/* i_blocks less the xattr block's cluster (512-byte units): what the
 * inode's map holds, as its own count says. */
static uint64_t data_blocks(struct ichk *c)
{
	uint64_t n = e4_inode_blocks(c->p->fs, c->in);
	uint64_t xb = e4_inode_file_acl(c->p->fs, c->in) ? c->p->geo->cluster_size / 512 : 0;

	return n > xb ? n - xb : 0;
}

/* Whether the inode holds a map whatever its type says: data blocks by
 * i_blocks, or EXTENTS_FL with an extent header holding entries. */
static int holds_map(struct ichk *c)
{
	return p1_holds_map(c->p->fs, c->in);
}

int p1_holds_map(e4_fs *fs, const struct ext4_inode *in)
{
	const struct ext4_extent_header *eh = (const void *)in->i_block;
	uint64_t n = e4_inode_blocks(fs, in);
	uint64_t xb = e4_inode_file_acl(fs, in) ? e4_geom(fs)->cluster_size / 512 : 0;

	if (n > xb)
		return 1;
	return (e4_le32(in->i_flags) & EXT4_EXTENTS_FL) &&
	       e4_le16(eh->eh_magic) == EXT4_EXT_MAGIC && e4_le16(eh->eh_entries);
}

static int type_known(uint16_t type)
{
	return type == EXT4_S_IFREG || type == EXT4_S_IFDIR || type == EXT4_S_IFLNK ||
	       is_special(type);
}

/* Deletion time: set on a deleted inode, clear on one in use. */
static void check_dtime(struct ichk *c, int in_use)
{
	struct problem_ctx pctx = { 0 };
	uint32_t dtime = e4_le32(c->in->i_dtime);
	/* an orphan list not released (as under -n) links through i_dtime */
	int orphan_link = e4_le32(e4_super(c->p->fs)->s_last_orphan) &&
			  dtime <= c->p->geo->inodes_count;

	if (!in_use && e4_le16(c->in->i_mode) && !dtime) {
		if (say(c, PR_1_ZERO_DTIME, &pctx)) {
			c->in->i_dtime = e4_cpu_to_le32((uint32_t)c->p->ctx->now);
			c->changed = 1;
		}
	} else if (in_use && dtime && c->ino >= c->p->geo->first_ino && !orphan_link) {
		pctx.num = dtime;
		if (say(c, PR_1_SET_DTIME, &pctx)) {
			c->in->i_dtime = 0;
			c->changed = 1;
		}
	}
}

/* i_extra_isize: 0, or 4 to inode_size - 128 in steps of 4. */
static void check_extra_isize(struct ichk *c)
{
	const struct e4_geom *geo = c->p->geo;
	struct problem_ctx pctx = { 0 };
	unsigned max = geo->inode_size - EXT4_GOOD_OLD_INODE_SIZE, v, want;

	if (geo->inode_size <= EXT4_GOOD_OLD_INODE_SIZE)
		return;
	v = e4_le16(c->in->i_extra_isize);
	if (!v || (v >= 4 && v <= max && !(v & 3)))
		return;
	pctx.num = v;
	if (!say(c, PR_1_EXTRA_ISIZE, &pctx))
		return;
	want = e4_le16(e4_super(c->p->fs)->s_want_extra_isize);
	if (v >= 4 && v <= max)
		want = (v + 3) & ~3u;
	else if (want < 4 || want > max || (want & 3))
		want = max < 32 ? max : 32;
	c->in->i_extra_isize = e4_cpu_to_le16((uint16_t)want);
	c->changed = 1;
}

/* Until 2242 (seconds 8583494400; the reference's cutoff too) no true
 * timestamp has a negative 32-bit base and epoch bits 3 (year 2310+):
 * old kernels wrote pre-1970 times that way (format notes 6.3). */
#define E4_PRE1970_EPOCH_CUTOFF 8583494400LL

/* Timestamps whose extra word lies inside i_extra_isize (the kernel reads
 * no other): epoch bits 3 on a negative base are cleared, the
 * nanoseconds kept.  The reference also judges an i_crtime beyond
 * i_extra_isize, which the kernel never reads: not reported here.  An EA
 * inode's i_ctime and i_atime hold its reference count and value hash,
 * not times: left alone. */
static void check_time_epoch(struct ichk *c)
{
	static const struct { size_t base, extra; } t[] = {
		{ offsetof(struct ext4_inode, i_ctime), offsetof(struct ext4_inode, i_ctime_extra) },
		{ offsetof(struct ext4_inode, i_mtime), offsetof(struct ext4_inode, i_mtime_extra) },
		{ offsetof(struct ext4_inode, i_atime), offsetof(struct ext4_inode, i_atime_extra) },
		{ offsetof(struct ext4_inode, i_crtime), offsetof(struct ext4_inode, i_crtime_extra) },
	};
	struct problem_ctx pctx = { 0 };
	unsigned char *raw = (unsigned char *)c->in;
	int ea = !!(e4_le32(c->in->i_flags) & EXT4_EA_INODE_FL);
	unsigned i, bad = 0;

	if (c->p->ctx->now >= E4_PRE1970_EPOCH_CUTOFF)
		return;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint32_t base, extra;

		if ((ea && (i == 0 || i == 2)) ||
		    !e4_inode_has_field(c->p->fs, c->in, t[i].base, 4) ||
		    !e4_inode_has_field(c->p->fs, c->in, t[i].extra, 4))
			continue;
		memcpy(&base, raw + t[i].base, 4);
		memcpy(&extra, raw + t[i].extra, 4);
		if ((e4_le32(base) & 0x80000000u) && (e4_le32(extra) & 3) == 3)
			bad |= 1u << i;
	}
	if (!bad || !say(c, PR_1_TIME_EPOCH, &pctx))
		return;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint32_t extra;

		if (!(bad & (1u << i)))
			continue;
		memcpy(&extra, raw + t[i].extra, 4);
		extra = e4_cpu_to_le32(e4_le32(extra) & ~3u);
		memcpy(raw + t[i].extra, &extra, 4);
	}
	c->changed = 1;
}

/* The in-inode extended attributes as the reader judges them: a damaged
 * area is cleared (its attributes cannot be read anyway). */
static void check_ibody_xattrs(struct ichk *c)
{
	struct problem_ctx pctx = { 0 };

	if (c->p->geo->inode_size <= EXT4_GOOD_OLD_INODE_SIZE)
		return;
	pctx.err = e4_xattr_ibody_check(c->p->fs, c->in);
	if (pctx.err == E4_ERR_NO_MEMORY) {
		c->p->err = pctx.err;
		return;
	}
	if (pctx.err && say(c, PR_1_XATTR_IBODY_BAD, &pctx)) {
		e4_xattr_ibody_clear(c->p->fs, c->ib);
		c->changed = 1;
	} else if (!pctx.err) {
		int changed = 0;

		c->said |= p1_xattr_hashes_ibody(c->p, c->ino, c->ib, &changed);
		c->changed |= changed;
	}
}

/* Inline data: the feature, a readable area, a directory's size. */
static void check_inline(struct ichk *c)
{
	e4_fs *fs = c->p->fs;
	struct problem_ctx pctx = { 0 };
	size_t sz = 0;
	uint64_t size = e4_inode_size(c->in);

	/* one inode's flag never turns a feature on: a valid map wins
	 * over the flag, else the inode is left */
	if (!e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_INLINE_DATA)) {
		if (!holds_map(c)) {
			say(c, PR_1_INLINE_NO_FEATURE, &pctx);
			c->map_kept = 1;
		} else if (say(c, PR_1_INLINE_FL_HAS_MAP, &pctx)) {
			c->in->i_flags = e4_cpu_to_le32(e4_le32(c->in->i_flags) &
							~EXT4_INLINE_DATA_FL);
			c->changed = 1;
		} else {
			c->map_kept = 1;
			c->p->maps_unsure = 1;
		}
		return;
	}
	pctx.err = e4_inline_data_size(fs, c->ino, c->in, &sz);
	if (pctx.err) {
		say(c, PR_1_INLINE_BAD, &pctx);
		return;
	}
	/* a regular file may be longer than its inline data (the rest
	 * reads as zeros: the kernel and the reference accept it) */
	if (c->type != EXT4_S_IFDIR || size == sz)
		return;
	pctx.num = size;
	pctx.num2 = sz;
	if (say(c, PR_1_INLINE_SIZE, &pctx) && !e4_inode_size_set(fs, c->in, sz))
		c->changed = 1;
}

/* Device, FIFO and socket inodes: no map flags, size 0 (the device
 * number lives in i_block; what else i_block holds the kernel ignores). */
static void check_special(struct ichk *c)
{
	const uint32_t bad_fl = EXT4_INDEX_FL | EXT4_EXTENTS_FL | EXT4_INLINE_DATA_FL;
	struct problem_ctx pctx = { 0 };
	uint32_t fl = e4_le32(c->in->i_flags);

	/* a file whose mode was damaged to a special type: dropping its
	 * map would free its data */
	if (holds_map(c)) {
		pctx.num = e4_le16(c->in->i_mode);
		snprintf(c->why, sizeof(c->why), "the inode holds %llu blocks of data",
			 (unsigned long long)(data_blocks(c) / (c->p->geo->block_size / 512)));
		pctx.recoverable = c->why;
		if (!say(c, PR_1_SPECIAL_HAS_DATA, &pctx)) {
			c->map_kept = 1;
			c->p->maps_unsure = 1;
			return;
		}
	}
	if (fl & bad_fl) {
		pctx.num = fl & bad_fl;
		if (say(c, PR_1_SPECIAL_FLAGS, &pctx)) {
			c->in->i_flags = e4_cpu_to_le32(fl & ~bad_fl);
			c->changed = 1;
		}
	}
	pctx.num = e4_inode_size(c->in);
	if (pctx.num && say(c, PR_1_SPECIAL_SIZE, &pctx) && !e4_inode_size_set(c->p->fs, c->in, 0))
		c->changed = 1;
}

/* Whether i_block reads as a fast symlink's target: 1 to 59 bytes of
 * text, NULs after it (block numbers have NULs within and after). */
static int block_is_text(const struct ext4_inode *in)
{
	const char *b = (const char *)in->i_block;
	size_t len = strnlen(b, sizeof(in->i_block));

	if (!len || len >= sizeof(in->i_block))
		return 0;
	for (size_t i = len; i < sizeof(in->i_block); i++)
		if (b[i])
			return 0;
	return 1;
}

/* A fast symlink's size is its target's length (text up to the first NUL
 * of i_block); only a target of 1 to 59 bytes is taken as the truth. */
static void check_fast_symlink(struct ichk *c)
{
	struct problem_ctx pctx = { 0 };
	size_t len = strnlen((const char *)c->in->i_block, sizeof(c->in->i_block));
	uint64_t size = e4_inode_size(c->in);

	/* an encrypted target is binary (a length, then ciphertext) */
	if (size == len || !len || len >= sizeof(c->in->i_block) ||
	    (e4_le32(c->in->i_flags) & EXT4_ENCRYPT_FL))
		return;
	pctx.num = size;
	pctx.num2 = len;
	if (say(c, PR_1_FAST_SYMLINK_SIZE, &pctx) && !e4_inode_size_set(c->p->fs, c->in, len))
		c->changed = 1;
}

static int no_entry(e4_fs *fs, const struct e4_xattr *x, void *priv)
{
	(void)fs;
	(void)x;
	(void)priv;
	return 0;
}

/* An attribute whose value lives in an EA inode: whether its clusters
 * count in the owner's i_blocks the kernel (quota charge) and the
 * reference (1.47.0 does not count them) disagree, so i_blocks is not
 * judged for such an owner. */
static int names_ea_inode(e4_fs *fs, const struct e4_xattr *x, void *priv)
{
	struct ichk *c = priv;

	(void)fs;
	if (!x->value_inum)
		return 0;
	c->ea_values = 1;
	/* a shared xattr block's entries count for each inode (pass1_ea.c) */
	if (p1_ea_note_ref(c->p, x)) {
		c->p->err = E4_ERR_NO_MEMORY;
		return 1;
	}
	return 0;
}

/* The xattr block: inside the filesystem, an xattr block (checksum
 * apart), not metadata; claimed once, every reference counted. */
static void check_xattr_block(struct ichk *c)
{
	struct pass1 *p = c->p;
	struct problem_ctx pctx = { 0 };
	e4_blk_t blk = e4_inode_file_acl(p->fs, c->in);
	uint32_t code = 0;

	if (!blk)
		return;
	pctx.blk = blk;
	if (blk < p->geo->first_data_block || blk >= p->geo->blocks_count) {
		code = PR_1_XATTR_BLOCK_RANGE;
	} else if (!e4_bmap_test(p->xattr, blk)) {
		pctx.err = e4_xattr_block_iterate(p->fs, blk, p->buf, no_entry, NULL);
		if (!pctx.err || pctx.err == E4_ERR_XATTR_CSUM)
			c->said |= p1_xattr_hashes_block(p, c->ino, c->in, blk);
		/* a rewritten entry hash came with a new checksum */
		if (pctx.err == E4_ERR_XATTR_CSUM && !p->ctx->read_only)
			pctx.err = e4_xattr_block_iterate(p->fs, blk, p->buf, no_entry, NULL);
		if (pctx.err == E4_ERR_XATTR_CSUM) {
			uint32_t refs;

			if (say(c, PR_1_XATTR_BLOCK_CSUM, &pctx) &&
			    !e4_xattr_block_refcount(p->fs, blk, &refs))
				p->err = e4_xattr_block_refcount_set(p->fs, blk, refs);
		} else if (pctx.err == E4_ERR_XATTR_MAGIC || pctx.err == E4_ERR_XATTR_CORRUPT) {
			code = PR_1_XATTR_BLOCK_BAD;
		} else if (pctx.err == E4_ERR_NO_MEMORY) {
			p->err = pctx.err;
			return;
		} else if (pctx.err) {
			/* a read error is said, never repaired by deletion:
			 * the block stays claimed */
			say(c, PR_1_XATTR_BLOCK_READ, &pctx);
			e4fsck_fail(p->ctx);	/* an operational error: exit 8 */
		}
	}
	if (!code && p1_xattr_ref(p, c->ino, blk) == CLAIM_META)
		code = PR_1_XATTR_BLOCK_META;
	if (!code) {
		c->xattr_block = 1;
		return;
	}
	if (say(c, code, &pctx)) {
		e4_inode_file_acl_set(p->fs, c->in, 0);
		c->changed = 1;
	}
}

/* i_size against the map (as e2fsck judges it): a directory holds whole
 * blocks, as many as it maps; a file's last initialised block lies
 * within its size. */
static void check_size(struct ichk *c)
{
	e4_fs *fs = c->p->fs;
	struct problem_ctx pctx = { 0 };
	uint64_t bs = c->p->geo->block_size, size = e4_inode_size(c->in);
	uint64_t end = c->res.end_lblk, init = c->res.end_init_lblk;
	int bad;

	if (c->type == EXT4_S_IFDIR) {
		uint64_t nblk = size / bs;
		uint8_t prealloc = e4_super(fs)->s_prealloc_dir_blocks;

		bad = (size % bs) || nblk > end || end - nblk > prealloc;
	} else if (c->type == EXT4_S_IFREG || c->type == EXT4_S_IFLNK) {
		bad = init && size < (init - 1) * bs &&
		      !(e4_le32(c->in->i_flags) & EXT4_VERITY_FL);
	} else {
		return;
	}
	if (!bad)
		return;
	pctx.num = size;
	pctx.num2 = end * bs;
	/* a yes is always written: a size the inode cannot hold is said and
	 * left (the map checker bounds what a directory maps) */
	pctx.err = e4_inode_size_fits(fs, c->in, end * bs);
	if (pctx.err)
		say(c, PR_1_SIZE_CANNOT_HOLD, &pctx);
	else if (say(c, PR_1_BAD_I_SIZE, &pctx) && !e4_inode_size_set(fs, c->in, end * bs))
		c->changed = 1;
}

/* i_blocks against what the inode holds: its map's blocks (clusters with
 * bigalloc) and its xattr block's cluster. */
static void check_i_blocks(struct ichk *c)
{
	const struct e4_geom *geo = c->p->geo;
	struct problem_ctx pctx = { 0 };
	uint64_t want = 0, have = e4_inode_blocks(c->p->fs, c->in);

	if (geo->cluster_bits)
		want += (p1_inode_clusters(c->p) << geo->cluster_bits) * (geo->block_size / 512);
	else if (c->has_map)
		want += c->res.blocks * (geo->block_size / 512);
	if (c->xattr_block)
		want += geo->cluster_size / 512;
	if (have == want)
		return;
	pctx.num = have;
	pctx.num2 = want;
	if (say(c, PR_1_BAD_I_BLOCKS, &pctx) && !e4_inode_blocks_set(c->p->fs, c->in, want))
		c->changed = 1;
}

static int is_enc_context(e4_fs *fs, const struct e4_xattr *x, void *priv)
{
	(void)fs;
	if (x->name_index == 9 && x->name_len == 1 && x->name[0] == 'c')	/* EXT4_XATTR_INDEX_ENCRYPTION */
		*(int *)priv = 1;
	return 0;
}

/* Flags that mean nothing here: cleared alone (no data is lost): INDEX_FL
 * off a directory, CASEFOLD_FL without the feature, ENCRYPT_FL without a
 * context (a damaged xattr area leaves the flag to the xattr checks). */
static void check_flags(struct ichk *c)
{
	static const struct {
		uint32_t code, fl;
	} rows[] = {
		{ PR_1_INDEX_FL_NOT_DIR, EXT4_INDEX_FL },
		{ PR_1_CASEFOLD_NO_FEATURE, EXT4_CASEFOLD_FL },
		{ PR_1_ENCRYPT_NO_CONTEXT, EXT4_ENCRYPT_FL },
	};
	uint32_t fl = e4_le32(c->in->i_flags), bad = 0;

	if (c->type != EXT4_S_IFDIR && !is_special(c->type))
		bad |= fl & EXT4_INDEX_FL;
	if (!e4_has_incompat(c->p->fs, EXT4_FEATURE_INCOMPAT_CASEFOLD))
		bad |= fl & EXT4_CASEFOLD_FL;
	if (fl & EXT4_ENCRYPT_FL) {
		int ctx = 0;

		if (!e4_xattr_iterate(c->p->fs, c->ino, c->in, is_enc_context, &ctx) && !ctx)
			bad |= EXT4_ENCRYPT_FL;
	}
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct problem_ctx pctx = { 0 };

		if ((bad & rows[i].fl) && say(c, rows[i].code, &pctx)) {
			fl &= ~rows[i].fl;
			c->in->i_flags = e4_cpu_to_le32(fl);
			c->changed = 1;
		}
	}
}

/* The inode's own type-dependent fields (before its map). */
static void check_type_fields(struct ichk *c)
{
	struct problem_ctx pctx = { 0 };
	uint32_t fl = e4_le32(c->in->i_flags);

	/* reserved inodes other than the root have uses of their own (an
	 * unused one may hold anything the reference accepts) */
	if (c->ino != EXT4_ROOT_INO && c->ino < c->p->geo->first_ino)
		return;
	if (!type_known(c->type)) {
		pctx.num = e4_le16(c->in->i_mode);
		say(c, PR_1_BAD_MODE, &pctx);
	}
	check_flags(c);
	fl = e4_le32(c->in->i_flags);
	if (is_special(c->type))
		check_special(c);
	else if (fl & EXT4_INLINE_DATA_FL)
		check_inline(c);
	else if (c->type == EXT4_S_IFLNK && (e4_inode_is_fast_symlink(c->p->fs, c->in) ||
					     (!(fl & EXT4_EXTENTS_FL) && !data_blocks(c) &&
					      block_is_text(c->in)))) {
		/* no extents and no data blocks: i_block holds the target,
		 * whatever i_size says (never block numbers) */
		c->fast_symlink = 1;
		check_fast_symlink(c);
	}
}

/* The map: claimed through the checker; then sizes and blocks. */
static errcode_t check_blocks(struct ichk *c)
{
	struct pass1 *p = c->p;
	struct problem_ctx pctx = { 0 };
	unsigned left = p->ctx->uncorrected;
	errcode_t err = 0;

	if (c->map_kept)
		return 0;
	c->has_map = !c->fast_symlink && e4_inode_has_map(p->fs, c->in);
	if (c->has_map) {
		err = e4fsck_check_map(p->ctx, c->ino, c->in, &p1_claim_ops, p, &c->res);
		if (err)
			return err;
		c->changed |= c->res.inode_changed;
		/* (a no whose alternative was not asked yet is left too) */
		c->map_left = p->ctx->uncorrected != left || p->ctx->pr.alt_pending;
		if (c->res.clear_inode)
			return 0;
		if (c->type == EXT4_S_IFDIR && !c->map_left && !c->res.blocks &&
		    say(c, PR_1_ZERO_LENGTH_DIR, &pctx)) {
			c->res.clear_inode = 1;
			return 0;
		}
	}
	if (e4_has_incompat(p->fs, EXT4_FEATURE_INCOMPAT_EA_INODE) &&
	    e4_xattr_iterate(p->fs, c->ino, c->in, names_ea_inode, c)) {
		c->ea_values = 1;	/* damaged xattrs: i_blocks not judged */
		p->ea_unsure = 1;	/* nor EA inodes' counts */
	}
	/* the bad-block list's size and count follow rules of their own */
	if (c->map_left || c->ino == EXT4_BAD_INO)
		return 0;
	if (c->has_map)
		check_size(c);
	if (!c->ea_values)
		check_i_blocks(c);
	return 0;
}

/* The resize inode: its double-indirect block is metadata it owns (the
 * reserved GDT blocks it maps are the groups' own). */
static void claim_resize(struct ichk *c)
{
	e4_blk_t dind = e4_le32(c->in->i_block[EXT4_DIND_BLOCK]);

	if (dind >= c->p->geo->first_data_block && dind < c->p->geo->blocks_count)
		p1_claim_ops.claim(c->p, c->ino, dind, 1, 1);
}

/* With resize_inode, the resize inode's map against the one the library
 * builds (e4_resize_inode_check(); e2fsck checks it before pass 1): one
 * that is not is cleared on a yes, its blocks left to pass 5, and built
 * again after the full check (e4fsck_resize_recreate()).  1 when it was
 * cleared (it claims nothing). */
static int check_resize(struct ichk *c)
{
	struct problem_ctx pctx = { 0 };
	int valid = 1;
	errcode_t err;

	if (!e4_has_compat(c->p->fs, EXT4_FEATURE_COMPAT_RESIZE_INODE) ||
	    e4_has_incompat(c->p->fs, EXT4_FEATURE_INCOMPAT_META_BG))
		return 0;
	err = e4_resize_inode_check(c->p->fs, c->in, &valid);
	if (err && err != E4_ERR_NO_MEMORY)
		valid = 0;	/* a map block that cannot be read */
	if (valid || !say(c, PR_1_RESIZE_INVALID, &pctx))
		return 0;
	memset(c->ib, 0, sizeof(*c->ib));
	c->type = 0;
	c->changed = 1;
	c->p->ctx->resize_recreate = 1;
	return 1;
}

/* Mark inode ino in use (and a directory in its group). */
static errcode_t mark_in_use(struct ichk *c, int add)
{
	struct pass1 *p = c->p;
	e4_group_t g = e4_group_of_ino(p->fs, c->ino);
	errcode_t err = 0;

	if (c->type == EXT4_S_IFDIR && g < p->geo->group_count)
		p->dirs[g] += add ? 1 : -1;
	/* for passes 2-4: the directory, the stored link count, the type */
	if (c->type == EXT4_S_IFDIR && add)
		err = dirs_add(&p->dirinfo, c->ino);
	else if (c->type == EXT4_S_IFDIR)
		dirs_remove(&p->dirinfo, c->ino);
	else if (c->type == EXT4_S_IFREG)
		err = add ? e4_bmap_set(p->regs, c->ino) : e4_bmap_clear(p->regs, c->ino);
	if (!err)
		err = links_set_stored(p->links, c->ino, add ? e4_le16(c->in->i_links_count) : 0);
	if (err)
		return err;
	return add ? e4_bmap_set(p->inodes, c->ino) : e4_bmap_clear(p->inodes, c->ino);
}

/* The map checker cleared the inode (the user agreed): what it claimed
 * is released, its xattr block reference dropped. */
static errcode_t clear_inode(struct ichk *c)
{
	c->in->i_links_count = 0;
	c->in->i_dtime = e4_cpu_to_le32((uint32_t)c->p->ctx->now);
	c->changed = 1;
	p1_inode_release(c->p, c->xattr_block);
	return mark_in_use(c, 0);
}

/* A reserved inode below s_first_ino that nothing uses (the boot loader,
 * undelete and exclude inodes, quota inodes without the feature): the
 * reference judges none of its fields. */
static int reserved_unused(struct pass1 *p, e4_ino_t ino)
{
	struct ext4_super_block *sb = e4_super(p->fs);

	if (ino >= p->geo->first_ino || ino == EXT4_BAD_INO || ino == EXT4_ROOT_INO ||
	    ino == EXT4_RESIZE_INO)
		return 0;
	return ino != e4_le32(sb->s_journal_inum) && ino != e4_le32(sb->s_usr_quota_inum) &&
	       ino != e4_le32(sb->s_grp_quota_inum) && ino != e4_le32(sb->s_prj_quota_inum) &&
	       ino != e4_le32(sb->s_orphan_file_inum);
}

/* The journal inode when pass 0 kept it bad, or when it differs from
 * the superblock's backup (s_jnl_blocks): a repair field by field would
 * free the log's blocks, so it is left. */
static int journal_kept(struct ichk *c)
{
	struct ext4_super_block *sb = e4_super(c->p->fs), tmp;

	if (c->ino != e4_le32(sb->s_journal_inum) ||
	    !e4_has_compat(c->p->fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL))
		return 0;
	if (c->p->ctx->journal_kept_bad)
		return 1;
	if (sb->s_jnl_backup_type != 1)	/* EXT3_JNL_BACKUP_BLOCKS */
		return 0;
	tmp = *sb;
	e4_sb_jnl_backup_set(&tmp, c->in);
	return memcmp(tmp.s_jnl_blocks, sb->s_jnl_blocks, sizeof(sb->s_jnl_blocks)) != 0;
}

/* One range of a kept journal's map: claimed where it lies inside the
 * filesystem (the rest is not judged). */
static int claim_journal_range(e4_fs *fs, const struct e4_map_extent *ext, void *priv)
{
	struct ichk *c = priv;
	const struct e4_geom *geo = e4_geom(fs);
	uint64_t lo = ext->pblk, hi = (uint64_t)ext->pblk + ext->len;

	if (lo < geo->first_data_block)
		lo = geo->first_data_block;
	if (hi > geo->blocks_count)
		hi = geo->blocks_count;
	if (lo < hi)
		p1_claim_ops.claim(c->p, c->ino, (e4_blk_t)lo, hi - lo,
				   (ext->flags & E4_MAP_META) != 0);
	return 0;
}

/* A kept journal (journal_kept()): the blocks its map names, as stored
 * (data and mapping blocks, past damage), are the log's, in use: claimed
 * so that pass 5's report does not call them free.  The inode is neither
 * judged nor repaired; the walk's damage is not said (PR_1_JOURNAL_KEPT
 * says the inode is left). */
static void claim_journal(struct ichk *c)
{
	if (!e4_inode_has_map(c->p->fs, c->in))
		return;
	(void)e4_map_iterate(c->p->fs, c->ino, c->in,
			     E4_ITER_META | E4_ITER_AS_STORED | E4_ITER_NOCSUM,
			     claim_journal_range, c);
}

/* Empty the inode in memory (every byte, as mke2fs leaves an unused
 * reserved inode), to be written back. */
static void empty_inode(struct ichk *c)
{
	memset(c->ib, 0, sizeof(*c->ib));
	c->type = 0;
	c->changed = 1;
}

/* The bad-block inode (1) must be a bad-block list: mode, owner, links,
 * xattr block and the extent and inline-data flags all zero, and its
 * checksum matching (what e2fsck requires; the kernel reads the list as
 * a block map).  One that is not holds no user data: it is emptied.
 * 1 when it was left as it is (-n): nothing more is judged. */
static int check_bad_ino(struct ichk *c)
{
	struct problem_ctx pctx = { 0 };
	const struct ext4_inode *in = c->in;
	const char *why = NULL;

	if (c->csum_bad)
		why = "its checksum does not match";
	else if (in->i_mode || in->i_uid || in->i_gid || in->i_links_count)
		why = "mode, owner or links are set";
	else if (in->i_file_acl_lo || in->l_i_file_acl_high)
		why = "it names an extended attribute block";
	else if (e4_le32(in->i_flags) & (EXT4_EXTENTS_FL | EXT4_INLINE_DATA_FL))
		why = "it is flagged as extents or inline data";
	if (!why)
		return 0;
	pctx.str = why;
	if (say(c, PR_1_BAD_INO_INVALID, &pctx)) {
		empty_inode(c);
		return 0;
	}
	c->p->maps_unsure = 1;	/* the blocks it names are not known */
	return 1;
}

/* An unused reserved inode (reserved_unused()) as the reference judges
 * it: the quota slots (3, 4) hold no links or blocks, the others no mode
 * (the boot loader inode no directory). */
static void check_reserved_unused(struct ichk *c)
{
	struct problem_ctx pctx = { 0 };
	struct ext4_inode *in = c->in;

	if (c->ino == EXT4_USR_QUOTA_INO || c->ino == EXT4_GRP_QUOTA_INO) {
		if ((in->i_links_count || in->i_blocks_lo || in->i_block[0]) &&
		    say(c, PR_1_QUOTA_INO_UNUSED_DATA, &pctx))
			empty_inode(c);
		return;
	}
	if (c->ino == EXT4_BOOT_LOADER_INO ? c->type == EXT4_S_IFDIR : in->i_mode != 0) {
		pctx.num = e4_le16(in->i_mode);
		if (say(c, PR_1_RESERVED_BAD_MODE, &pctx)) {
			in->i_mode = 0;
			c->type = 0;
			c->changed = 1;
		}
	}
	/* inline data in an inode with no use: i_block cannot be judged */
	if ((e4_le32(in->i_flags) & EXT4_INLINE_DATA_FL) &&
	    say(c, PR_1_RESERVED_INLINE, &pctx))
		empty_inode(c);
}

/* An unused reserved inode whose map was not walked (its mode names no
 * file with blocks): an i_size beyond what any map addresses is set to 0,
 * the size its (no) blocks give, as the reference does. */
static void check_reserved_size(struct ichk *c)
{
	struct problem_ctx pctx = { 0 };
	uint64_t size = e4_inode_size(c->in), bs = c->p->geo->block_size, max;

	if (c->has_map || !size)
		return;
	if (e4_le32(c->in->i_flags) & EXT4_EXTENTS_FL)
		max = (bs << 32) - 1;
	else
		max = e4_blockmap_max_blocks(c->p->fs) * bs;
	if (size <= max)
		return;
	pctx.num = size;
	pctx.num2 = 0;
	if (say(c, PR_1_BAD_I_SIZE, &pctx) && !e4_inode_size_set(c->p->fs, c->in, 0))
		c->changed = 1;
}

/* A directory whose mode was damaged: not a directory by its mode, but
 * its first block is one naming it as '.' (and, for the root, the root
 * as '..'); made a directory again when the user agrees (the reference
 * checks only device, FIFO and socket inodes, and clears a root of
 * another type, losing its names). */
static void check_really_dir(struct ichk *c)
{
	struct problem_ctx pctx = { 0 };
	e4_ino_t dotdot = 0;
	uint16_t mode = e4_le16(c->in->i_mode);
	uint8_t *buf;
	int yes;
	uint64_t size = e4_inode_size(c->in);

	/* a directory's size is whole blocks: other files are not read */
	if (c->type == EXT4_S_IFDIR || (c->ino != EXT4_ROOT_INO && c->ino < c->p->geo->first_ino) ||
	    (e4_le32(c->in->i_flags) & EXT4_INLINE_DATA_FL) || !holds_map(c) || !size ||
	    size % c->p->geo->block_size)
		return;
	buf = malloc(c->p->geo->block_size);
	yes = buf && !e4_dir_block_read(c->p->fs, c->ino, c->in, 0, buf, NULL) &&
	      e4_dir_block_is_first(c->p->fs, c->ino, buf, &dotdot) &&
	      (c->ino != EXT4_ROOT_INO || dotdot == EXT4_ROOT_INO);
	free(buf);
	pctx.num = mode;
	if (!yes || !say(c, PR_1_MODE_REALLY_DIR, &pctx))
		return;
	c->in->i_mode = e4_cpu_to_le16((uint16_t)((mode & 07777) | EXT4_S_IFDIR));
	c->type = EXT4_S_IFDIR;
	c->changed = 1;
}

static errcode_t check_in_use(struct ichk *c)
{
	struct problem_ctx pctx = { 0 };
	errcode_t err;

	/* judged before it is marked: a garbage mode must not make a
	 * reserved inode a directory for pass 2 */
	if (reserved_unused(c->p, c->ino)) {
		check_reserved_unused(c);
		c->type = 0;
		err = mark_in_use(c, 1);
		if (err)
			return err;
		/* what the reference judges of any inode: extra field size,
		 * flags, map, sizes */
		check_extra_isize(c);
		check_flags(c);
		err = check_blocks(c);
		/* a map cleared (the user agreed): nothing else is kept */
		if (!err && c->res.clear_inode) {
			p1_inode_release(c->p, c->xattr_block);
			empty_inode(c);
		}
		if (!err && !c->res.clear_inode)
			check_reserved_size(c);
		return err;
	}
	if (c->ino == EXT4_BAD_INO && check_bad_ino(c)) {
		c->type = 0;
		return mark_in_use(c, 1);
	}
	check_really_dir(c);
	err = mark_in_use(c, 1);
	if (err)
		return err;
	if (journal_kept(c)) {
		say(c, PR_1_JOURNAL_KEPT, &pctx);
		claim_journal(c);
		c->p->maps_unsure = 1;
		return 0;
	}
	check_dtime(c, 1);
	check_extra_isize(c);
	check_time_epoch(c);
	check_ibody_xattrs(c);
	if (c->ino == EXT4_RESIZE_INO) {
		if (!check_resize(c))
			claim_resize(c);
		return 0;
	}
	check_type_fields(c);
	check_xattr_block(c);
	err = check_blocks(c);
	if (err)
		return err;
	if (c->res.clear_inode)
		return clear_inode(c);
	/* blocks claimed twice: passes 1B-1D (pass1b.c) settle them */
	if (c->p->ndup)
		c->p->dup_inodes++;
	if (c->map_left)
		c->p->maps_unsure = 1;
	if ((e4_le32(c->in->i_flags) & EXT4_EA_INODE_FL) &&
	    e4_has_incompat(c->p->fs, EXT4_FEATURE_INCOMPAT_EA_INODE) && c->ino >= c->p->geo->first_ino)
		return p1_ea_note_inode(c->p, c->ino, c->in);
	return 0;
}

errcode_t p1_check_inode(struct pass1 *p, e4_ino_t ino, union e4_inode_buf *ib, int csum_ok)
{
	struct ichk c = { .p = p, .ino = ino, .ib = ib, .in = &ib->inode };
	struct problem_ctx pctx = { 0 };
	int in_use = e4_le16(ib->inode.i_links_count) || ino < p->geo->first_ino;
	errcode_t err = 0;

	c.type = e4_le16(c.in->i_mode) & EXT4_S_IFMT;
	c.csum_bad = !csum_ok;
	p1_inode_begin(p, ino);
	if (!in_use && c.in->i_mode && !c.in->i_dtime && holds_map(&c)) {
		/* no links, no deletion time, data: still named, perhaps (a
		 * stop inside a mkdir leaves one), so kept in use with its
		 * count of 0: passes 2-4 count its names, reconnect it to
		 * /lost+found when it has none (the reference deletes it) */
		pctx.num = e4_inode_blocks(p->fs, c.in);
		say(&c, PR_1_UNLINKED_HAS_DATA, &pctx);
		in_use = 1;
	}
	if (!in_use)
		check_dtime(&c, 0);
	else
		err = check_in_use(&c);
	if (err)
		return err;
	if (in_use && !csum_ok && !c.changed && !c.said && say(&c, PR_1_INODE_CSUM, &pctx))
		c.changed = 1;
	if (in_use && !c.res.clear_inode)
		p1_stats_inode(p, ino, c.in, c.has_map, c.has_map ? c.res.blocks : 0,
			       c.fast_symlink);
	if (c.changed && !p->ctx->read_only)
		err = e4_inode_write(p->fs, ino, ib);
	return err ? err : p->err;
}
