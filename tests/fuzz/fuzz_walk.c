/*
 * fuzz_walk.c: what several fuzz targets run on an opened image (fuzz.h):
 * the read walk of every inode reachable from the root, the group checks,
 * and the journal's open, scan and recovery.
 */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#define MAX_INODES	2048	/* inodes walked per input */
#define MAX_EXTENTS	65536	/* map callbacks per inode */
#define MAX_NAMES	64	/* names looked up again per directory */
#define MAX_GROUPS	1024	/* groups whose bitmaps are read */

struct walk {
	e4_fs *fs;
	unsigned iter_flags, dir_flags;
	e4_ino_t queue[MAX_INODES];
	unsigned head, tail;
	uint32_t seen[MAX_INODES * 4];	/* open addressing, 0 = empty */
	unsigned extents;
	e4_ino_t dir;			/* the directory being listed */
	unsigned names;
};

/* Remember ino; 1 if it is new and there is room for it. */
static int mark(struct walk *w, e4_ino_t ino)
{
	unsigned n = sizeof(w->seen) / sizeof(w->seen[0]);
	unsigned h = (ino * 2654435761u) % n;

	if (!ino || w->tail >= MAX_INODES)
		return 0;
	while (w->seen[h]) {
		if (w->seen[h] == ino)
			return 0;
		h = (h + 1) % n;
	}
	w->seen[h] = ino;
	w->queue[w->tail++] = ino;
	return 1;
}

static int map_cb(e4_fs *fs, const struct e4_map_extent *e, void *priv)
{
	struct walk *w = priv;

	(void)fs;
	(void)e;
	return ++w->extents > MAX_EXTENTS;
}

static int entry_cb(e4_fs *fs, const struct e4_extent_entry *e, void *priv)
{
	struct walk *w = priv;

	(void)fs;
	(void)e;
	return ++w->extents > MAX_EXTENTS;
}

static int xattr_cb(e4_fs *fs, const struct e4_xattr *x, void *priv)
{
	void *value = NULL;

	(void)priv;
	if (!e4_xattr_value(fs, x, &value))
		free(value);
	return 0;
}

static int dirent_cb(const struct e4_dirent *d, void *priv)
{
	struct walk *w = priv;
	e4_ino_t ino;
	uint8_t ft;

	if (w->names++ < MAX_NAMES && d->name_len) {
		(void)e4_dir_lookup(w->fs, w->dir, d->name, d->name_len, &ino, &ft);
		(void)e4_namei(w->fs, EXT4_ROOT_INO, w->dir, d->name, 1, &ino);
	}
	mark(w, d->inode);
	return 0;
}

static void read_file(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *in)
{
	static uint8_t buf[8192];
	e4_file *f;
	size_t got;

	if (e4_file_open(fs, ino, in, &f))
		return;
	(void)e4_file_pread(f, 0, buf, sizeof(buf), &got);
	if (e4_file_size(f) > sizeof(buf))
		(void)e4_file_pread(f, e4_file_size(f) - 1, buf, 1, &got);
	e4_file_close(f);
}

static void walk_inode(struct walk *w, e4_ino_t ino)
{
	e4_fs *fs = w->fs;
	union e4_inode_buf ib;
	struct ext4_inode *in = &ib.inode;
	errcode_t err = e4_inode_read(fs, ino, &ib);
	e4_blk_t pblk;
	uint32_t len;
	unsigned fl;

	if (err && err != E4_ERR_INODE_CSUM)
		return;
	w->extents = 0;
	(void)e4_map_iterate(fs, ino, in, w->iter_flags, map_cb, w);
	w->extents = 0;
	if (e4_le32(in->i_flags) & EXT4_EXTENTS_FL)
		(void)e4_extent_entries(fs, ino, in, entry_cb, w);
	(void)e4_bmap(fs, ino, in, 0, &pblk, &len, &fl);
	(void)e4_bmap(fs, ino, in, e4_inode_size(in) / e4_geom(fs)->block_size, &pblk, &len,
		      &fl);
	(void)e4_xattr_iterate(fs, ino, in, xattr_cb, w);
	if (e4_le32(in->i_flags) & EXT4_INLINE_DATA_FL) {
		uint8_t buf[256];
		size_t n;

		(void)e4_inline_data_size(fs, ino, in, &n);
		(void)e4_inline_data_get(fs, ino, in, buf, sizeof(buf), &n);
	}
	if (e4_is_dir(in)) {
		w->dir = ino;
		w->names = 0;
		(void)e4_dir_iterate(fs, ino, w->dir_flags, dirent_cb, w);
	} else if (e4_is_symlink(in)) {
		char target[4097];
		size_t n;

		(void)e4_inode_is_fast_symlink(fs, in);
		(void)e4_readlink(fs, ino, in, target, sizeof(target), &n);
	} else if (e4_is_reg(in)) {
		read_file(fs, ino, in);
	}
}

static int fault_cb(e4_fs *fs, const struct e4_gd_fault *f, void *priv)
{
	(void)fs;
	(void)f;
	return ++*(unsigned *)priv > 64;
}

void fz_check_groups(e4_fs *fs)
{
	const struct e4_geom *g = e4_geom(fs);
	struct e4_bmap *bm;
	unsigned faults = 0;
	int in_use;

	(void)e4_check_group_descs(fs, NULL);
	(void)e4_check_device_size(fs, NULL);
	(void)e4_group_check_locations(fs, fault_cb, &faults, NULL);
	if (g->group_count > MAX_GROUPS)
		return;
	if (!e4_bmap_load_blocks(fs, E4_BMAP_RUNS, E4_BMAP_RELAX_CSUM, NULL, NULL, &bm))
		e4_bmap_free(bm);
	if (!e4_bmap_load_inodes(fs, E4_BMAP_RUNS, E4_BMAP_RELAX_CSUM, NULL, NULL, &bm))
		e4_bmap_free(bm);
	(void)e4_test_block(fs, g->blocks_count - 1, &in_use);
	(void)e4_test_inode(fs, g->inodes_count, &in_use);
}

void fz_walk(e4_fs *fs, unsigned iter_flags, unsigned dir_flags)
{
	static struct walk w;

	memset(&w, 0, sizeof(w));
	w.fs = fs;
	w.iter_flags = iter_flags;
	w.dir_flags = dir_flags;
	/* the reserved inodes and the first ordinary ones, then the tree */
	for (e4_ino_t ino = 1; ino <= 16 && ino <= e4_geom(fs)->inodes_count; ino++)
		mark(&w, ino);
	while (w.head < w.tail)
		walk_inode(&w, w.queue[w.head++]);
}
/* What logdump reads of each item; the checksum fields too, so that a
 * mutation reaching them is compared. */
static int list_cb(const struct e4_jlog_item *it, void *priv)
{
	unsigned *n = priv;

	if (it->kind == E4_JLOG_TAG && it->csum == E4_JCSUM_BAD)
		(*n)++;
	return ++*n > 1000000;
}

static int root_cb(const struct e4_dirent *d, void *priv)
{
	(void)d;
	return ++*(unsigned *)priv > 10000;
}

/* Open the journal; a refused superblock is replaced when asked. */
static errcode_t open_journal(e4_fs *fs, const char *ext, unsigned flags, int reset,
			      e4_journal **j)
{
	errcode_t err = e4_journal_open2(fs, ext, flags, j);
	journal_superblock_t jsb;

	if (!err || !reset || ext || !(e4_open_flags(fs) & E4_OPEN_RW) ||
	    (err != E4_ERR_JOURNAL_MAGIC && err != E4_ERR_JOURNAL_VERSION &&
	     err != E4_ERR_JOURNAL_CORRUPT))
		return err;
	err = e4_journal_open2(fs, NULL, E4_JOPEN_RAW, j);
	if (err)
		return err;
	e4_jsb_init(&jsb, e4_journal_blocksize(*j), e4_journal_blocks(*j), e4_super(fs)->s_uuid, 0);
	err = e4_journal_write_super(*j, &jsb);
	e4_journal_close(*j);
	*j = NULL;
	return err ? err : e4_journal_open2(fs, NULL, flags, j);
}

static void reopen(e4_io *io, const char *ext)
{
	struct e4_jscan_result scan;
	e4_journal *j;
	unsigned n = 0;
	e4_fs *fs;

	if (fz_open(io, 0, 0, 0, &fs))
		return;
	if (!e4_journal_open2(fs, ext, E4_JOPEN_IGNORE_CSUM, &j)) {
		(void)e4_journal_scan(j, 0, list_cb, &n, &scan);
		e4_journal_close(j);
	}
	n = 0;
	(void)e4_dir_iterate(fs, EXT4_ROOT_INO, 0, root_cb, &n);
	(void)e4_close(fs);
}


void fz_journal(e4_io *io, const char *ext, unsigned flags)
{
	struct e4_jrecover_result rec;
	struct e4_jreplay_result rep;
	struct e4_jscan_result scan;
	e4_journal *j;
	unsigned n = 0;
	e4_fs *fs;

	if (fz_open(io, E4_OPEN_RW, 0, 0, &fs))
		return;
	if (open_journal(fs, ext, flags & FZ_J_IGNORE_CSUM ? E4_JOPEN_IGNORE_CSUM : 0,
			 flags & FZ_J_RESET, &j)) {
		(void)e4_close(fs);
		return;
	}
	(void)e4_journal_csum_ok(j);
	(void)e4_journal_scan(j, flags & FZ_J_VERIFY ? E4_JSCAN_VERIFY_TAGS : 0, list_cb, &n, &scan);
	if (flags & FZ_J_ERRNO)
		(void)e4_journal_errno_to_fs(fs, j, NULL);
	n = 0;
	if (flags & FZ_J_REPLAY)
		(void)e4_journal_replay(fs, j, list_cb, &n, &rep);
	else
		(void)e4_journal_recover(fs, j, list_cb, &n, &rec);
	e4_journal_close(j);
	(void)e4_close(fs);
	reopen(io, ext);
}
