/*
 * pass2_entry.c: one directory block's records (pass 2; format doc
 * sections 8.1-8.3, 8.6).
 *
 * The block is walked record by record (e4_dirent_raw_at).  A record
 * whose length or name length does not fit is salvaged as e2fsck does:
 * a record running past the end keeps its name and is cut at the end; a
 * record of a sound length is merged into the one before it; otherwise
 * the rest of the block goes to the record before it (or becomes one
 * unused record when the bad one is first).  Block 0 starts with '.'
 * and '..'; every other record's inode number, name and file type are
 * checked against what pass 1 found.  Repairs change the block in
 * memory (library calls, dir_write.h); the block is written once, with
 * its checksum tail, at the end.  Under -n nothing changes: the first
 * bad record ends the block's walk.
 */
#include "pass2.h"

#include <limits.h>
#include <string.h>

/* The block (or inline region) being walked. */
struct blk {
	uint8_t *b;		/* records, decoded for a block of bsz bytes */
	unsigned bsz, start, end;
	uint64_t lblk;		/* UINT64_MAX: inline */
	e4_blk_t pblk;
	int root;		/* block 0 of an indexed directory */
	int changed;
	unsigned last;		/* the last record walked (UINT_MAX: none) */
};

const char *p2_name(struct pass2 *p, const char *name, unsigned len)
{
	char *o = p->name;

	for (unsigned i = 0; i < len; i++)
		*o++ = (name[i] >= 0x20 && name[i] < 0x7f) ? name[i] : '?';
	*o = '\0';
	return p->name;
}

errcode_t p2_count(struct pass2 *p, e4_ino_t ino)
{
	errcode_t err;

	if (!p->count || !ino || ino > p->inodes_count)
		return 0;
	err = links_inc(p->p->links, ino);
	return err == E4_ERR_BAD_INODE_NUM ? 0 : err;
}

static void pctx_of(struct pass2 *p, const struct blk *k, unsigned off,
		    const struct e4_dirent_raw *d, struct problem_ctx *pctx)
{
	memset(pctx, 0, sizeof(*pctx));
	pctx->dir = p->dir;
	pctx->blk = k->pblk;
	pctx->num = k->lblk == UINT64_MAX ? 0 : k->lblk;
	pctx->num2 = off;
	if (d) {
		pctx->ino = d->inode;
		pctx->str = p2_name(p, d->name, d->name_len);
	}
}

/* Store a record header: 1 if stored (0: it does not fit, nothing
 * changed). */
static int put(struct blk *k, unsigned off, uint32_t ino, unsigned rec_len, unsigned name_len,
	       uint8_t ft)
{
	if (e4_dirent_put(k->b, k->bsz, off, ino, rec_len, name_len, ft))
		return 0;
	k->changed = 1;
	return 1;
}

/* The file type inode ino's mode gives (EXT4_FT_*; 0 when unknown). */
static uint8_t inode_ftype(struct pass2 *p, e4_ino_t ino)
{
	union e4_inode_buf ib;
	errcode_t err;
	uint8_t ft;

	if (dirs_find(&p->p->dirinfo, ino))
		return EXT4_FT_DIR;
	if (e4_bmap_test(p->p->regs, ino))
		return EXT4_FT_REG_FILE;
	err = e4_inode_read_nocache(p->fs, ino, &ib);
	if (err && err != E4_ERR_INODE_CSUM)
		return EXT4_FT_UNKNOWN;
	ft = e4_mode_file_type(e4_le16(ib.inode.i_mode));
	/* a device, FIFO or socket holding data, which pass 1 left as it is:
	 * its mode may be the damage, and the entry's type the only witness
	 * of what it was: not changed to the mode's */
	if (ft != EXT4_FT_SYMLINK && ft != EXT4_FT_UNKNOWN && p1_holds_map(p->fs, &ib.inode))
		return EXT4_FT_UNKNOWN;
	return ft;
}

/* Inode ino is not in use for pass 1 but has a mode, no deletion time
 * and data (links_count 0 alone: PR_1_UNLINKED_HAS_DATA, left). */
static int unlinked_with_data(struct pass2 *p, e4_ino_t ino)
{
	union e4_inode_buf ib;
	errcode_t err = e4_inode_read_nocache(p->fs, ino, &ib);

	if (err && err != E4_ERR_INODE_CSUM)
		return 0;
	return e4_le16(ib.inode.i_mode) && !ib.inode.i_dtime && !ib.inode.i_links_count &&
	       p1_holds_map(p->fs, &ib.inode);
}

/* ---- salvage -------------------------------------------------------------- */

/* The record at *off does not fit (why): salvage as the top says.
 * 1: the walk goes on at *off; 0: it stops (no). */
static int salvage(struct pass2 *p, struct blk *k, unsigned *off, unsigned prev, const char *why)
{
	struct problem_ctx pctx;
	struct e4_dirent_raw d, pd;
	unsigned left = k->end - *off, r = 0, n = 0;
	uint32_t ino = 0;

	pctx_of(p, k, *off, NULL, &pctx);
	pctx.str2 = why;
	if (!fix_problem(p->ctx, PR_2_DIR_CORRUPT, &pctx))
		return 0;
	if (left >= 8) {
		e4_dirent_raw_at(k->b, k->bsz, *off, &d);	/* fields read even when bad */
		r = d.rec_len;
		n = d.name_len;
		ino = d.inode;
		/* running past the end, with a name that fits: cut it there */
		if (*off + r > k->end && left >= 12 && e4_dirent_min_len(n) <= left &&
		    ino <= p->inodes_count && !memchr(d.name, '\0', n)) {
			return put(k, *off, ino, left, n, d.file_type);
		}
	}
	if (prev != UINT_MAX && !e4_dirent_raw_at(k->b, k->bsz, prev, &pd)) {
		/* a sound length: the record before it takes it */
		unsigned take = (r && !(r % 4) && *off + r <= k->end) ? r : left;

		if (!put(k, prev, pd.inode, pd.rec_len + take, pd.name_len, pd.file_type))
			return 0;
		*off += take;
		return 1;
	}
	/* first record: the rest of the block becomes one unused record */
	return put(k, *off, 0, left, 0, 0);
}

/* ---- '.' and '..' ---------------------------------------------------------- */

/* '.' or '..' (nl bytes) stored in the record at off, the padding after
 * it to the 4-byte boundary NUL (the check after them asks for a NUL:
 * a block with garbage there would be said again on the next run). */
static void put_dot_name(struct blk *k, unsigned off, const char *name, unsigned nl)
{
	static const char zeros[4];

	e4_dirent_put_name(k->b, k->bsz, off, name, nl);
	e4_dirent_put_name(k->b, k->bsz, off + nl, zeros, (4 - nl % 4) % 4);
}

/* The first or second record is not name ("." or ".."): make it so,
 * when that loses no entry: the record is unused, names nothing valid or
 * a directory (a directory's second name is not kept: for '..' the
 * directory it names is kept as the '..'), or has room to move right
 * (not in an index root, whose layout is fixed).  1 if repaired, 0 if
 * it cannot be (the record is then an ordinary one), -1 on a no. */
static int make_dot(struct pass2 *p, struct blk *k, unsigned off, struct e4_dirent_raw *d,
		    const char *name, e4_ino_t ino, uint32_t code)
{
	struct problem_ctx pctx;
	unsigned nl = (unsigned)strlen(name), need = e4_dirent_min_len(nl);
	int valid = d->inode && d->inode <= p->inodes_count &&
		    (d->inode >= p->first_ino || d->inode == EXT4_ROOT_INO) &&
		    e4_bmap_test(p->p->inodes, d->inode);
	int isdir = valid && dirs_find(&p->p->dirinfo, d->inode) != NULL;
	int lost = valid && !isdir;
	int room = !k->root && d->rec_len >= need + e4_dirent_min_len(d->name_len);

	if (isdir && nl == 2)
		ino = d->inode;

	pctx_of(p, k, off, d, &pctx);
	if (lost && !room) {
		pctx.str2 = name;
		fix_problem(p->ctx, PR_2_MISSING_DOT_NO_ROOM, &pctx);
		return 0;
	}
	if (!fix_problem(p->ctx, code, &pctx))
		return -1;
	if (lost) {
		/* move the entry right, behind the new record */
		unsigned rl = d->rec_len;

		e4_dirent_move(k->b, k->bsz, off, off + need, 8 + d->name_len);
		put(k, off + need, d->inode, rl - need, d->name_len, d->file_type);
		put(k, off, ino, need, nl, p->filetype ? EXT4_FT_DIR : 0);
	} else {
		put(k, off, ino, d->rec_len, nl, p->filetype ? EXT4_FT_DIR : 0);
	}
	put_dot_name(k, off, name, nl);
	k->changed = 1;
	e4_dirent_raw_at(k->b, k->bsz, off, d);
	return 1;
}

/* The byte after '.' or '..' (inside the record's 4-byte padding) is
 * NUL, as e2fsck wants it. */
static void pad_name(struct pass2 *p, struct blk *k, unsigned off, struct e4_dirent_raw *d,
		     uint32_t code)
{
	struct problem_ctx pctx;
	char z = 0;

	if (d->rec_len < 8u + d->name_len + 1 || !d->name[d->name_len])
		return;
	pctx_of(p, k, off, d, &pctx);
	if (fix_problem(p->ctx, code, &pctx) &&
	    !e4_dirent_put_name(k->b, k->bsz, off + d->name_len, &z, 1))
		k->changed = 1;
}

/* '.' first: names the directory, 12 bytes long.  1, or make_dot()'s 0
 * or -1 when the record is not '.' (and was not made one). */
static int check_dot(struct pass2 *p, struct blk *k, unsigned off, struct e4_dirent_raw *d)
{
	struct problem_ctx pctx;
	int r;

	if (!(d->name_len == 1 && d->name[0] == '.') &&
	    (r = make_dot(p, k, off, d, ".", p->dir, PR_2_MISSING_DOT)) != 1)
		return r;
	pctx_of(p, k, off, d, &pctx);
	pad_name(p, k, off, d, PR_2_DOT_NULL_TERM);
	if (d->inode != p->dir && fix_problem(p->ctx, PR_2_BAD_DOT_INODE, &pctx)) {
		put(k, off, p->dir, d->rec_len, d->name_len, d->file_type);
		d->inode = p->dir;
	}
	if (d->rec_len > 12 && d->rec_len - 12 > 12 && !k->root) {
		pctx.num = d->rec_len;
		if (fix_problem(p->ctx, PR_2_SPLIT_DOT, &pctx)) {
			put(k, off + 12, 0, d->rec_len - 12, 0, 0);
			put(k, off, d->inode, 12, d->name_len, d->file_type);
			d->rec_len = 12;
		}
	}
	return 1;
}

/* '..' second (0 as check_dot()). */
static int check_dotdot(struct pass2 *p, struct blk *k, unsigned off, struct e4_dirent_raw *d)
{
	if (!(d->name_len == 2 && d->name[0] == '.' && d->name[1] == '.'))
		return make_dot(p, k, off, d, "..", EXT4_ROOT_INO, PR_2_MISSING_DOTDOT);
	pad_name(p, k, off, d, PR_2_DOTDOT_NULL_TERM);
	return 1;
}

/* ---- any record ------------------------------------------------------------ */

/* Clear the record's inode number (the entry is dropped). */
static void clear(struct blk *k, unsigned off, struct e4_dirent_raw *d)
{
	put(k, off, 0, d->rec_len, d->name_len, d->file_type);
	d->inode = 0;
}

/* The record's inode number, name and type; 1 when it is kept. */
static int check_fields(struct pass2 *p, struct blk *k, unsigned off, struct e4_dirent_raw *d,
			int dot)
{
	struct problem_ctx pctx;
	uint8_t want;

	pctx_of(p, k, off, d, &pctx);
	if (!dot && d->name_len == 0) {
		if (fix_problem(p->ctx, PR_2_NULL_NAME, &pctx))
			clear(k, off, d);
		return 0;
	}
	if (!dot && d->inode == p->dir) {
		if (fix_problem(p->ctx, PR_2_LINK_DOT, &pctx))
			clear(k, off, d);
		return 0;
	}
	if (!dot && d->name_len <= 2 && d->name[0] == '.' &&
	    (d->name_len == 1 || d->name[1] == '.')) {
		if (fix_problem(p->ctx, d->name_len == 1 ? PR_2_DUP_DOT : PR_2_DUP_DOTDOT, &pctx))
			clear(k, off, d);
		return 0;
	}
	if (dot == 2 && (d->inode > p->inodes_count ||
			 (d->inode < p->first_ino && d->inode != EXT4_ROOT_INO) ||
			 !e4_bmap_test(p->p->inodes, d->inode))) {
		/* a '..' naming nothing: the root for now (a '..' of inode 0
		 * would be a missing one), the connectivity pass sets it */
		if (!fix_problem(p->ctx, PR_2_BAD_DOTDOT_INO, &pctx))
			return 0;
		put(k, off, EXT4_ROOT_INO, d->rec_len, d->name_len, p->filetype ? EXT4_FT_DIR : 0);
		d->inode = EXT4_ROOT_INO;
		d->file_type = p->filetype ? EXT4_FT_DIR : 0;
		return 1;
	}
	if (d->inode > p->inodes_count ||
	    (d->inode < p->first_ino && d->inode != EXT4_ROOT_INO)) {
		if (fix_problem(p->ctx, PR_2_BAD_INO, &pctx))
			clear(k, off, d);
		return 0;
	}
	if (!e4_bmap_test(p->p->inodes, d->inode)) {
		if (unlinked_with_data(p, d->inode)) {
			/* pass 1 left it: this entry may be its only name */
			fix_problem(p->ctx, PR_2_UNLINKED_NAMED, &pctx);
			return 1;
		}
		if (fix_problem(p->ctx, PR_2_UNUSED_INODE, &pctx))
			clear(k, off, d);
		return 0;
	}
	if (!dot && !p->encrypted &&
	    (memchr(d->name, '/', d->name_len) || memchr(d->name, '\0', d->name_len)) &&
	    fix_problem(p->ctx, PR_2_BAD_NAME, &pctx)) {
		char fixed[EXT4_NAME_LEN];

		for (unsigned i = 0; i < d->name_len; i++)
			fixed[i] = (d->name[i] == '/' || !d->name[i]) ? '.' : d->name[i];
		if (!e4_dirent_put_name(k->b, k->bsz, off, fixed, d->name_len))
			k->changed = 1;
	}
	want = inode_ftype(p, d->inode);
	pctx.num = d->file_type;
	pctx.num2 = want;
	if (!p->filetype) {
		if (d->file_type && fix_problem(p->ctx, PR_2_FILETYPE_NO_FEATURE, &pctx))
			put(k, off, d->inode, d->rec_len, d->name_len, 0);
	} else if (d->file_type != want && want) {
		if (fix_problem(p->ctx, d->file_type ? PR_2_BAD_FILETYPE : PR_2_SET_FILETYPE,
				&pctx))
			put(k, off, d->inode, d->rec_len, d->name_len, want);
	}
	return 1;
}

/* A directory named by an ordinary entry: its first name is its parent;
 * another is a second name (cleared on a yes).  1 when kept. */
static int check_subdir(struct pass2 *p, struct blk *k, unsigned off, struct e4_dirent_raw *d)
{
	struct dir_info *di = dirs_find(&p->p->dirinfo, d->inode);
	struct problem_ctx pctx;

	if (!di)
		return 1;
	pctx_of(p, k, off, d, &pctx);
	if (d->inode == EXT4_ROOT_INO) {
		if (fix_problem(p->ctx, PR_2_LINK_ROOT, &pctx)) {
			clear(k, off, d);
			return 0;
		}
		return 1;
	}
	if (!p->count)
		return 1;
	if (!di->parent) {
		di->parent = p->dir;
		return 1;
	}
	pctx.num2 = di->parent;
	if (fix_problem(p->ctx, PR_2_LINK_DIR, &pctx)) {
		clear(k, off, d);
		return 0;
	}
	return 1;
}

/* Whether name (len bytes) is one of the block's kept names (other than
 * the record at skip); *at gets its offset. */
static int name_seen(struct pass2 *p, const struct blk *k, const char *name, unsigned len,
		     unsigned skip, unsigned *at)
{
	struct e4_dirent_raw o;

	for (size_t i = 0; i < p->nseen; i++)
		if (p->seen[i] != skip && !e4_dirent_raw_at(k->b, k->bsz, p->seen[i], &o) &&
		    o.inode && o.name_len == len && !memcmp(o.name, name, len)) {
			*at = p->seen[i];
			return 1;
		}
	return 0;
}

/* A name a record before it in the block has too (e2fsck looks within a
 * block): naming the same inode, the record is a copy and cleared;
 * naming another, it is renamed name~N when its record has room, else
 * left.  1 when the record is no longer kept, -1 without memory. */
static int check_dup(struct pass2 *p, struct blk *k, unsigned off, struct e4_dirent_raw *d)
{
	struct problem_ctx pctx;
	struct e4_dirent_raw o;
	char nn[EXT4_NAME_LEN + 1];
	unsigned at, nl = d->name_len + 2, n;

	if (name_seen(p, k, d->name, d->name_len, off, &at)) {
		pctx_of(p, k, off, d, &pctx);
		e4_dirent_raw_at(k->b, k->bsz, at, &o);
		pctx.num2 = o.inode;
		if (o.inode == d->inode) {
			if (!fix_problem(p->ctx, PR_2_DUP_ENTRY, &pctx))
				goto keep;
			clear(k, off, d);
			return 1;
		}
		memcpy(nn, d->name, d->name_len);
		for (n = 0; n < 10 && nl <= EXT4_NAME_LEN && e4_dirent_min_len(nl) <= d->rec_len; n++) {
			nn[d->name_len] = '~';
			nn[d->name_len + 1] = (char)('0' + n);
			if (!name_seen(p, k, nn, nl, off, &at))
				break;
		}
		if (n == 10 || nl > EXT4_NAME_LEN || e4_dirent_min_len(nl) > d->rec_len) {
			fix_problem(p->ctx, PR_2_DUP_NAME_LEFT, &pctx);
			goto keep;
		}
		nn[nl] = '\0';
		pctx.str2 = nn;
		if (fix_problem(p->ctx, PR_2_DUP_RENAME, &pctx) &&
		    put(k, off, d->inode, d->rec_len, nl, d->file_type)) {
			e4_dirent_put_name(k->b, k->bsz, off, nn, nl);
			e4_dirent_raw_at(k->b, k->bsz, off, d);
		}
	}
keep:
	if (p1_grow((void **)&p->seen, &p->capseen, p->nseen, sizeof(*p->seen)))
		return -1;
	p->seen[p->nseen++] = off;
	return 0;
}

/* One record that fits; *d is updated by the repairs. */
static errcode_t check_record(struct pass2 *p, struct blk *k, unsigned off,
			      struct e4_dirent_raw *d)
{
	int dot = 0, keep;

	if (k->lblk == 0 && p->dots < 2) {
		int r;

		dot = ++p->dots;
		r = dot == 1 ? check_dot(p, k, off, d) : check_dotdot(p, k, off, d);
		if (r < 0)
			return 0;	/* left as it is (-n): not looked at further */
		if (!r)
			dot = 0;	/* an ordinary record where '.' or '..' should be */
	}
	if (!d->inode) {
		if (dot == 2)
			dirs_find(&p->p->dirinfo, p->dir)->dotdot = 0;
		return 0;
	}
	keep = check_fields(p, k, off, d, dot);
	if (keep && !dot)
		keep = check_subdir(p, k, off, d);
	if (dot == 2 && p->count)
		dirs_find(&p->p->dirinfo, p->dir)->dotdot = keep ? d->inode : 0;
	if (!keep)
		return 0;
	if (!dot) {
		int r = check_dup(p, k, off, d);

		if (r < 0)
			return E4_ERR_NO_MEMORY;
		if (r)
			return 0;
	}
	if (!dot && k->lblk != UINT64_MAX && !k->root)
		p2_check_hash(p, k->lblk, d->name, d->name_len);
	return p2_count(p, d->inode);
}

/* Walk the records of k: each checked, a bad one salvaged. */
static errcode_t walk(struct pass2 *p, struct blk *k)
{
	unsigned off = k->start, prev = UINT_MAX;
	errcode_t err;

	k->last = UINT_MAX;
	p->nseen = 0;
	while (off < k->end) {
		struct e4_dirent_raw d;
		const char *why = NULL;

		if (k->end - off < 12)
			why = "fewer than 12 bytes are left for it";
		else if (e4_dirent_raw_at(k->b, k->bsz, off, &d) || off + d.rec_len > k->end)
			why = d.rec_len < 12 || d.rec_len % 4 ? "a bad record length" :
			      off + d.rec_len > k->end ? "it runs past the end of the block" :
			      "the name is longer than the record";
		else if (d.rec_len < 12)
			why = "a record shorter than 12 bytes";
		if (why) {
			if (!salvage(p, k, &off, prev, why))
				return 0;
			continue;
		}
		err = check_record(p, k, off, &d);
		if (err)
			return err;
		prev = k->last = off;
		off += d.rec_len;
	}
	return 0;
}

/* With metadata_csum, a leaf without a tail: make room in its last
 * record when it has 12 bytes to spare. */
static void add_tail(struct pass2 *p, struct blk *k)
{
	struct problem_ctx pctx;
	struct e4_dirent_raw d;
	unsigned used;

	pctx_of(p, k, 0, NULL, &pctx);
	if (k->last == UINT_MAX || e4_dirent_raw_at(k->b, k->bsz, k->last, &d) ||
	    k->last + d.rec_len != p->bs) {
		fix_problem(p->ctx, PR_2_NO_CSUM_TAIL_ROOM, &pctx);
		return;
	}
	/* a live record keeps its name; an unused one keeps 12 bytes, or,
	 * 12 bytes long and not first, becomes the tail itself */
	used = d.inode ? e4_dirent_min_len(d.name_len) : 12;
	if (d.rec_len < used + 12 && !(!d.inode && k->last && d.rec_len == 12)) {
		fix_problem(p->ctx, PR_2_NO_CSUM_TAIL_ROOM, &pctx);
		return;
	}
	if (!fix_problem(p->ctx, PR_2_NO_CSUM_TAIL, &pctx))
		return;
	if (d.rec_len == 12)
		k->changed = 1;		/* e4_dir_leaf_csum_set() writes over it */
	else
		put(k, k->last, d.inode, d.rec_len - 12, d.name_len, d.file_type);
}

/* Block 0 ended after '.': a salvage merged '..' into it.  The '.'
 * record's slack becomes '..' (naming the root: the connectivity pass
 * sets it to the parent). */
static errcode_t dotdot_absorbed(struct pass2 *p, struct blk *k)
{
	struct problem_ctx pctx;
	struct e4_dirent_raw d;

	if (e4_dirent_raw_at(k->b, k->bsz, 0, &d) || d.name_len != 1 || d.rec_len < 24)
		return 0;
	pctx_of(p, k, 0, &d, &pctx);
	if (!fix_problem(p->ctx, PR_2_MISSING_DOTDOT, &pctx) ||
	    !put(k, 12, EXT4_ROOT_INO, d.rec_len - 12, 2, p->filetype ? EXT4_FT_DIR : 0))
		return 0;
	put(k, 0, d.inode, 12, 1, d.file_type);
	put_dot_name(k, 12, "..", 2);
	if (k->last == 0)
		k->last = 12;
	p->dots = 2;
	if (p->count)
		dirs_find(&p->p->dirinfo, p->dir)->dotdot = EXT4_ROOT_INO;
	return p2_count(p, EXT4_ROOT_INO);
}

errcode_t p2_check_leaf(struct pass2 *p, uint64_t lblk, e4_blk_t pblk, int root)
{
	struct blk k = { p->buf, p->bs, 0, p->bs, lblk, pblk, root, 0, UINT_MAX };
	struct problem_ctx pctx;
	errcode_t err, csum = 0;

	if (p->csum && !k.root) {
		csum = e4_dir_leaf_csum_verify(p->fs, p->dir, p->gen, p->buf);
		if (csum != E4_ERR_DIR_NO_CSUM_TAIL)
			k.end = p->bs - 12;
	}
	err = walk(p, &k);
	if (!err && lblk == 0 && p->dots == 1)
		err = dotdot_absorbed(p, &k);
	if (err)
		return err;
	if (csum == E4_ERR_DIR_NO_CSUM_TAIL)
		add_tail(p, &k);
	pctx_of(p, &k, 0, NULL, &pctx);
	if (csum == E4_ERR_DIR_CSUM && !k.changed && fix_problem(p->ctx, PR_2_LEAF_CSUM, &pctx))
		k.changed = 1;
	if (!k.changed || p->ctx->read_only)
		return 0;
	if (k.root) {
		struct e4_dx_root r;

		e4_dx_root_parse(p->fs, p->buf, &r);
		err = e4_dx_csum_set(p->fs, p->dir, p->gen, p->buf, r.count_off);
		if (err)
			return err;
	} else {
		e4_dir_leaf_csum_set(p->fs, p->dir, p->gen, p->buf);
	}
	return e4_io_write_blk(e4_fs_io(p->fs), pblk, 1, p->buf);
}

errcode_t p2_check_region(struct pass2 *p, uint8_t *buf, unsigned start, unsigned end,
			  int *changed)
{
	struct blk k = { buf, end, start, end, UINT64_MAX, 0, 0, 0, UINT_MAX };
	errcode_t err = walk(p, &k);

	if (k.changed)
		*changed = 1;
	return err;
}
