/*
 * populate.c: e4mkfs -d, the writing half: the source's stream
 * (popsrc.h) written into the filesystem mkfs_write() just made, through
 * the library's write layer (inode layer, file writer, xattr writer, bulk
 * directory builder).
 *
 * Each entry gets its inode when it is delivered: allocated near its
 * parent (e4_alloc_inode()), initialised, its attributes, then its data
 * (regular files through e4_file_write() with holes kept, symlinks fast,
 * inline or slow), owner, mode, link count and nanosecond times, then
 * written.  Later members of a hard link group only name the first
 * member's inode.  A directory's entries are collected while its children
 * are delivered and written in one pass at its end-of-directory event
 * (e4_dir_build(): an htree built in bulk when it takes more than one
 * block and dir_index is on, inline with inline_data when it fits).  The
 * root keeps lost+found: its one block is dropped and the root rebuilt
 * with lost+found and the source's top level; a source directory named
 * lost+found at the top is not copied (the filesystem's own stays, as
 * mke2fs leaves it).
 *
 * While the copy runs the device holds no filesystem: every superblock
 * copy is zeroed once the handle is open and written again last (the
 * backups, then bitmaps, descriptors and the primary), so a stop midway
 * leaves nothing that passes as one.  On an error a file we created is
 * removed, otherwise the superblocks stay zeroed.
 *
 * Measured (bench/populate.sh, 50,434 entries, tmpfs, 2 shared cores):
 * 1.3 s for the directory (median of 3; 1.47.4: 20 s), 0.6 s for a tar
 * of it; peak RSS 5.2 MiB for the directory (34.7 MiB before the
 * directory source was streamed, the device's cache cut to POPW_CACHE,
 * libarchive loaded only for archives and the names listed without a
 * copy; mke2fs 1.47.4: 3.8 MiB, holding no directory whole: the
 * 20,000-entry one built in bulk here is 1.2 MiB of it), 19 MiB for the
 * tar (its catalogue; 1.47.4: 16 MiB).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crashpoint.h"
#include "e4.h"
#include "file_write.h"
#include "xattr_write.h"
#include "mkfs.h"
#include "popsize.h"
#include "popsrc.h"

#define POPW_CHUNK	(64u << 10)	/* bytes read from the source at a time */
#define POPW_CACHE	(256u << 10)	/* block cache budget, bytes */

struct popw {
	struct mkfs *m;
	e4_fs *fs;
	struct pop_src *src;
	/* stream index -> inode of the entries looked up later (directories,
	 * first links of hard-linked files), open addressing; absent: 0
	 * (skipped) */
	uint32_t *ino_key;		/* index + 1; 0: a free slot */
	e4_ino_t *ino_val;
	uint32_t ino_n, ino_cap;
	uint32_t count;
	struct e4_new_dirent *ents;	/* the directory being listed */
	size_t nents, cap;
	uint8_t *buf;			/* POPW_CHUNK */
	int repro;
	int64_t epoch;
	uint64_t done_entries, done_bytes;	/* progress */
	uint64_t total_bytes;
	int progress;			/* on a terminal, without -q */
	char errpath[POP_PATH_MAX + 1];	/* the entry that failed */
	char whatbuf[128];
	errcode_t err;			/* the library's error, if any */
	const char *what;		/* what failed */
	int src_lost_found;		/* the source has a top-level lost+found */
};

static uint16_t type_mode(enum pop_type t)
{
	switch (t) {
	case POP_REG: return EXT4_S_IFREG;
	case POP_DIR: return EXT4_S_IFDIR;
	case POP_SYMLINK: return EXT4_S_IFLNK;
	case POP_CHR: return EXT4_S_IFCHR;
	case POP_BLK: return EXT4_S_IFBLK;
	case POP_FIFO: return EXT4_S_IFIFO;
	case POP_SOCK: return EXT4_S_IFSOCK;
	}
	return 0;
}

/* A generation number that depends on nothing but the inode number and
 * the hash seed in a reproducible build; 0 (pseudo-random) otherwise. */
static uint32_t generation(const struct popw *w, e4_ino_t ino)
{
	uint32_t h;

	if (!w->repro)
		return 0;
	h = e4_crc32c(ino * 2654435761u, w->m->hash_seed, 16);
	return h ? h : 1;
}

/* The inode of stream index idx (0: none, or skipped). */
static e4_ino_t ino_get(const struct popw *w, uint32_t idx)
{
	uint32_t i;

	if (!w->ino_cap)
		return 0;
	for (i = (idx * 2654435761u) & (w->ino_cap - 1); w->ino_key[i];
	     i = (i + 1) & (w->ino_cap - 1))
		if (w->ino_key[i] == idx + 1)
			return w->ino_val[i];
	return 0;
}

/* Remember the inode of idx; -1 on memory. */
static int ino_put(struct popw *w, uint32_t idx, e4_ino_t ino)
{
	uint32_t i;

	if ((uint64_t)(w->ino_n + 1) * 2 > w->ino_cap) {
		uint32_t c = w->ino_cap ? w->ino_cap * 2 : 1024, oc = w->ino_cap;
		uint32_t *ok = w->ino_key, *k = calloc(c, sizeof(*k));
		e4_ino_t *ov = w->ino_val, *v = malloc((size_t)c * sizeof(*v));

		if (!k || !v) {
			free(k);
			free(v);
			return -1;
		}
		w->ino_key = k;
		w->ino_val = v;
		w->ino_cap = c;
		w->ino_n = 0;
		for (i = 0; i < oc; i++)
			if (ok[i])
				ino_put(w, ok[i] - 1, ov[i]);	/* fits: no growth */
		free(ok);
		free(ov);
	}
	for (i = (idx * 2654435761u) & (w->ino_cap - 1); w->ino_key[i];
	     i = (i + 1) & (w->ino_cap - 1))
		;
	w->ino_key[i] = idx + 1;
	w->ino_val[i] = ino;
	w->ino_n++;
	return 0;
}

static int add_entry(struct popw *w, const struct pop_entry *e, e4_ino_t ino, uint16_t mode)
{
	if (w->nents == w->cap) {
		size_t cap = w->cap ? w->cap + w->cap / 2 : 256;	/* peak memory: 1.5 */
		struct e4_new_dirent *n = realloc(w->ents, cap * sizeof(*n));

		if (!n)
			return -1;
		w->ents = n;
		w->cap = cap;
	}
	w->ents[w->nents].inode = ino;
	/* the source keeps the name until its directory's dir_end */
	w->ents[w->nents].name = e->name;
	w->ents[w->nents].name_len = (uint8_t)e->name_len;
	w->ents[w->nents].file_type = e4_mode_file_type(mode);
	w->nents++;
	return 0;
}

static errcode_t set_xattrs(struct popw *w, e4_ino_t ino, union e4_inode_buf *ib,
			    const struct pop_entry *e)
{
	struct e4_xattr_opts xo = { .now = w->m->now, .share_blk = 0 };

	for (uint32_t i = 0; i < e->nxattrs; i++) {
		const struct pop_xattr *x = &e->xattrs[i];
		const char *suffix;
		size_t slen;
		uint8_t idx;
		errcode_t err = e4_xattr_name_parse(x->name, &idx, &suffix, &slen);

		if (!err)
			err = e4_xattr_set(w->fs, ino, ib, idx, suffix, slen, x->value, x->len, &xo);
		if (err) {
			w->what = x->name;
			return err;
		}
	}
	return 0;
}

static void set_times(struct popw *w, struct ext4_inode *in, const struct pop_entry *e)
{
	struct e4_time t;

	t.sec = e->atime.sec, t.nsec = e->atime.nsec;
	e4_inode_times_set(w->fs, in, E4_T_ATIME, &t);
	t.sec = e->mtime.sec, t.nsec = e->mtime.nsec;
	e4_inode_times_set(w->fs, in, E4_T_MTIME, &t);
	t.sec = e->ctime.sec, t.nsec = e->ctime.nsec;
	e4_inode_times_set(w->fs, in, E4_T_CTIME, &t);
	/* crtime: the source's when it has one, else when the copy was made
	 * (the epoch in a reproducible build: pop_repro_times()) */
	if (e->has_crtime || w->repro) {
		t.sec = e->crtime.sec, t.nsec = e->crtime.nsec;
	} else {
		t.sec = w->m->now, t.nsec = 0;
	}
	e4_inode_times_set(w->fs, in, E4_T_CRTIME, &t);
}

/* A regular file's data runs, holes kept. */
static errcode_t write_data(struct popw *w, e4_ino_t ino, union e4_inode_buf *ib,
			    const struct pop_entry *e)
{
	errcode_t err;

	for (uint32_t i = 0; i < e->nsegs; i++) {
		uint64_t off = e->segs[i].off, end = off + e->segs[i].len;

		while (off < end) {
			size_t n = end - off > POPW_CHUNK ? POPW_CHUNK : (size_t)(end - off);

			if (pop_read(w->src, e, off, w->buf, n))
				return -1;
			err = e4_file_write(w->fs, ino, ib, off, w->buf, n, E4_FILE_SPARSE);
			if (err) {
				w->what = "writing its data";
				return err;
			}
			off += n;
			w->done_bytes += n;
		}
	}
	if (e->size > e4_inode_size(&ib->inode)) {
		/* a hole at the end */
		err = e4_file_truncate(w->fs, ino, ib, e->size);
		if (err) {
			w->what = "setting its size";
			return err;
		}
	}
	return 0;
}

/* The inode of a new entry, written; *ret its number.  0, -1 (source
 * error: pop_error()) or an errcode (w->what says where). */
static errcode_t make_inode(struct popw *w, const struct pop_entry *e, e4_ino_t parent,
			    e4_ino_t *ret)
{
	uint16_t mode = type_mode(e->type) | (uint16_t)(e->mode & 07777);
	union e4_inode_buf ib;
	struct e4_time now = { w->m->now, 0 };
	e4_ino_t ino;
	errcode_t err;

	w->what = "allocating an inode";
	err = e4_alloc_inode(w->fs, parent, mode, &ino);
	if (err)
		return err;
	*ret = ino;
	w->what = "making its inode";
	err = e4_inode_init(w->fs, ino, mode, e->uid, e->gid, &now, generation(w, ino), &ib);
	if (!err)
		err = e4_inode_write(w->fs, ino, &ib);
	if (!err)
		err = set_xattrs(w, ino, &ib, e);
	if (err)
		return err;
	w->what = "making its inode";
	switch (e->type) {
	case POP_REG:
		err = write_data(w, ino, &ib, e);
		break;
	case POP_SYMLINK:
		if (e->target_len >= e4_geom(w->fs)->block_size) {
			snprintf(w->whatbuf, sizeof(w->whatbuf), "a symlink target of %u bytes "
				 "does not fit %u-byte blocks (at most %u)", e->target_len,
				 e4_geom(w->fs)->block_size, e4_geom(w->fs)->block_size - 1);
			w->what = w->whatbuf;
			return E4_ERR_NAME_TOO_LONG;
		}
		w->what = "storing its target";
		err = e4_symlink_set(w->fs, ino, &ib, e->target, e->target_len);
		break;
	case POP_CHR:
	case POP_BLK:
		w->what = "storing its device number";
		err = e4_inode_dev_set(&ib.inode, e->rdev_major, e->rdev_minor);
		break;
	default:
		break;
	}
	if (err)
		return err;
	w->what = "setting its link count";
	err = e4_inode_links_set(w->fs, &ib.inode, e->nlink);
	if (err)
		return err;
	set_times(w, &ib.inode, e);
	w->what = "writing its inode";
	return e4_inode_write(w->fs, ino, &ib);
}

/* -E root_selinux= (mke2fs 1.47.1): the root's security.selinux, the
 * label's bytes without a NUL as mke2fs stores it; *ib is the root's
 * inode, updated and written. */
static errcode_t root_label(struct mkfs *m, e4_fs *fs, union e4_inode_buf *ib)
{
	struct e4_xattr_opts xo = { .now = m->now, .share_blk = 0 };
	const char *suffix;
	size_t slen;
	uint8_t idx;
	errcode_t err = e4_xattr_name_parse("security.selinux", &idx, &suffix, &slen);

	return err ? err : e4_xattr_set(fs, EXT4_ROOT_INO, ib, idx, suffix, slen, m->root_selinux,
					strlen(m->root_selinux), &xo);
}

/* The root: the source's owner, mode, times and attributes unless
 * -E root_owner= / root_perms= say otherwise. */
static errcode_t root_attrs(struct popw *w, const struct pop_entry *e)
{
	union e4_inode_buf ib;
	errcode_t err;

	w->what = "reading the root";
	err = e4_inode_read(w->fs, EXT4_ROOT_INO, &ib);
	if (!err)
		err = set_xattrs(w, EXT4_ROOT_INO, &ib, e);
	/* the option wins over the source root's label (mke2fs 1.47.4
	 * keeps the source's: the option given is then silently lost) */
	if (!err && w->m->root_selinux) {
		w->what = "-E root_selinux=";
		err = root_label(w->m, w->fs, &ib);
	}
	if (err)
		return err;
	if (w->m->root_owner_set)
		e4_inode_owner_set(&ib.inode, w->m->root_uid, w->m->root_gid);
	else
		e4_inode_owner_set(&ib.inode, e->uid, e->gid);
	e4_inode_perm_set(&ib.inode, (uint16_t)(w->m->root_perms >= 0 ? w->m->root_perms
							       : (int)(e->mode & 07777)));
	set_times(w, &ib.inode, e);
	w->what = "writing the root";
	return e4_inode_write(w->fs, EXT4_ROOT_INO, &ib);
}

static int is_lost_found(const struct pop_entry *e)
{
	return e->parent == 0 && e->index != 0 && e->name_len == 10 &&
	       !memcmp(e->name, "lost+found", 10);
}

/* Keep err and the path of e (valid during the callback only). */
static int failed(struct popw *w, const struct pop_entry *e, errcode_t err)
{
	if (!err)
		return 0;
	w->err = err;
	snprintf(w->errpath, sizeof(w->errpath), "%s", e->path[0] ? e->path : ".");
	return 1;
}

static int on_entry(void *arg, struct pop_src *s, const struct pop_entry *e0)
{
	struct popw *w = arg;
	struct pop_entry ec = *e0;
	const struct pop_entry *e = &ec;
	e4_ino_t ino = 0, parent;
	errcode_t err;

	(void)s;
	if (w->repro)
		pop_repro_times(&ec, w->epoch);
	if (e->index == 0) {
		err = ino_put(w, 0, EXT4_ROOT_INO) ? E4_ERR_NO_MEMORY : root_attrs(w, e);
		goto done;
	}
	parent = ino_get(w, e->parent);
	if (!parent)		/* inside a skipped directory */
		return 0;
	if (is_lost_found(e)) {
		/* the filesystem's own stays */
		if (e->type != POP_DIR && !w->m->quiet)
			fprintf(stderr, "%s: warning: %s: not a directory; not copied (the "
				"filesystem has its own lost+found)\n", w->m->prog, e->path);
		w->src_lost_found = e->type == POP_DIR;
		return 0;
	}
	if (e->type != POP_DIR && e->link_group != e->index) {
		ino = ino_get(w, e->link_group);	/* a later hard link */
		err = 0;
	} else {
		err = make_inode(w, e, parent, &ino);
	}
	if (!err && ino) {
		/* looked up later: a directory by its children and its end, a
		 * hard-linked file's first link by the others */
		if ((e->type == POP_DIR || (e->nlink > 1 && e->link_group == e->index)) &&
		    ino_put(w, e->index, ino)) {
			w->what = "listing it";
			err = E4_ERR_NO_MEMORY;
		} else if (add_entry(w, e, ino, type_mode(e->type))) {
			w->what = "listing it";
			err = E4_ERR_NO_MEMORY;
		}
	}
done:
	w->done_entries++;
	if (w->progress && !(w->done_entries & 1023)) {
		printf("\rCopying: %llu/%u entries, %llu/%llu MiB", (unsigned long long)w->done_entries,
		       w->count, (unsigned long long)(w->done_bytes >> 20),
		       (unsigned long long)(w->total_bytes >> 20));
		fflush(stdout);
	}
	return failed(w, e0, err);
}

/* Drop the root's block (lost+found's entry is listed again). */
static errcode_t root_reset(struct popw *w)
{
	union e4_inode_buf ib;
	errcode_t err;
	e4_ino_t lf;

	w->what = "finding lost+found";
	err = e4_dir_lookup(w->fs, EXT4_ROOT_INO, "lost+found", 10, &lf, NULL);
	if (err)
		return err;
	w->what = "rebuilding the root";
	err = e4_inode_read(w->fs, EXT4_ROOT_INO, &ib);
	if (!err)
		err = e4_inode_truncate_blocks(w->fs, EXT4_ROOT_INO, &ib, 0, NULL);
	if (err)
		return err;
	ib.inode.i_flags = e4_cpu_to_le32(e4_le32(ib.inode.i_flags) & ~(uint32_t)EXT4_INDEX_FL);
	err = e4_inode_size_set(w->fs, &ib.inode, 0);
	if (!err)
		err = e4_inode_write(w->fs, EXT4_ROOT_INO, &ib);
	if (err)
		return err;
	{
		struct pop_entry lfe;

		memset(&lfe, 0, sizeof(lfe));
		lfe.name = "lost+found";
		lfe.name_len = 10;
		if (add_entry(w, &lfe, lf, EXT4_S_IFDIR))
			return E4_ERR_NO_MEMORY;
	}
	return 0;
}

static int on_dir_end(void *arg, struct pop_src *s, const struct pop_entry *dir)
{
	struct popw *w = arg;
	e4_ino_t ino = ino_get(w, dir->index);
	unsigned flags = 0;
	errcode_t err = 0;

	(void)s;
	if (ino) {
		if (dir->index == 0) {
			err = root_reset(w);
		} else if (e4_has_incompat(w->fs, EXT4_FEATURE_INCOMPAT_INLINE_DATA)) {
			flags |= E4_DIR_BUILD_INLINE;
		}
		if (!err) {
			w->what = "writing the directory";
			err = e4_dir_build(w->fs, ino, ino_get(w, dir->parent), w->ents, w->nents,
					   flags, 0);
		}
		if (!err && dir->index == 0) {
			/* the source's count, and lost+found when it had none */
			union e4_inode_buf ib;
			/* lost+found: one more unless the source had one */
			uint32_t links = dir->nlink + !w->src_lost_found;

			err = e4_inode_read(w->fs, EXT4_ROOT_INO, &ib);
			if (!err)
				err = e4_inode_links_set(w->fs, &ib.inode, links);
			if (!err)
				err = e4_inode_write(w->fs, EXT4_ROOT_INO, &ib);
		}
	}
	w->nents = 0;
	return failed(w, dir, err);
}

/* Byte offsets of every superblock copy of fs (the primary first). */
static uint64_t *super_offsets(e4_fs *fs, size_t *n)
{
	const struct e4_geom *g = e4_geom(fs);
	uint64_t *o = malloc(sizeof(*o) * (g->group_count + 1));

	*n = 0;
	if (!o)
		return NULL;
	o[(*n)++] = 1024;
	for (uint32_t gr = 1; gr < g->group_count; gr++)
		if (e4_group_has_super(fs, gr))
			o[(*n)++] = (uint64_t)e4_group_first_block(fs, gr) * g->block_size;
	return o;
}

/* Zero the superblock copies at offs (from the filesystem's start, which
 * is -E offset= into the device): the device holds no filesystem
 * until mkfs_populate() writes them again.  0 or -1 (message printed). */
static int zap_supers(struct mkfs *m, const uint64_t *offs, size_t n)
{
	static const uint8_t zero[1024];
	int fd = open(m->device, O_WRONLY | O_CLOEXEC), bad = fd < 0;

	for (size_t i = 0; !bad && i < n; i++)
		bad = pwrite(fd, zero, sizeof(zero), (off_t)(m->offset + offs[i])) !=
		      (ssize_t)sizeof(zero);
	if (!bad && fsync(fd) < 0 && errno != EINVAL)
		bad = 1;
	if (bad)
		fprintf(stderr, "%s: %s: cannot invalidate the superblocks: %s\n", m->prog,
			m->device, strerror(errno));
	if (fd >= 0)
		close(fd);
	return bad ? -1 : 0;
}

/* After a failure: a file we created is removed, else its superblocks
 * stay zeroed (again: closing the handle may have written the primary). */
static void invalidate(struct mkfs *m, const uint64_t *offs, size_t n)
{
	if (m->created)
		unlink(m->device);
	else if (offs)
		zap_supers(m, offs, n);
}

/* The superblocks again, the copy complete: data and tables first, then
 * the backups, then the bitmaps, descriptors and primary superblock. */
static errcode_t finish(e4_fs *fs)
{
	errcode_t err;

	e4_super_hold(fs, 0);
	err = e4_flush(fs);

	if (!err)
		err = e4_super_write_backups(fs);
	/* bitmaps, descriptors, the primary superblock, then a flush */
	return err ? err : e4_alloc_flush(fs);
}

/* Open the filesystem mkfs_write() made on m->device (at -E offset=)
 * read-write.  Every metadata block is written about once, in order: a
 * small cache keeps the peak memory low at no cost in time (bench/
 * populate.sh: 16 MiB of cache was half of the peak).  *io stays open
 * after e4_close(*fs): the caller closes it. */
static errcode_t open_dev(struct mkfs *m, e4_io **io, e4_fs **fs)
{
	errcode_t err = e4_io_open(m->device, E4_IO_RW | E4_IO_NO_GROW, io);

	if (!err && m->offset)
		err = e4_io_set_offset(*io, m->offset);
	if (!err) {
		e4_io_set_cache_bytes(*io, POPW_CACHE);
		err = e4_open_io(*io, m->device, E4_OPEN_RW, 0, 0, fs);
	}
	return err;
}

int mkfs_root_label(struct mkfs *m)
{
	union e4_inode_buf ib;
	e4_io *io = NULL;
	e4_fs *fs = NULL;
	errcode_t err, cerr;

	err = open_dev(m, &io, &fs);
	if (!err)
		err = e4_inode_read(fs, EXT4_ROOT_INO, &ib);
	if (!err)
		err = root_label(m, fs, &ib);
	if (!err)
		err = e4_alloc_flush(fs);
	cerr = e4_close(fs);
	if (!err)
		err = cerr;
	if (io)
		e4_io_close(io);
	if (err)
		fprintf(stderr, "%s: %s: -E root_selinux=: %s\n", m->prog, m->device,
			error_message(err));
	return err ? -1 : 0;
}

int mkfs_populate(struct mkfs *m, struct pop_src *src)
{
	struct popw w;
	struct pop_ops ops = { on_entry, on_dir_end };
	uint64_t *offs = NULL;
	size_t noffs = 0;
	e4_io *io = NULL;
	int rc, ret = -1;
	errcode_t err;

	memset(&w, 0, sizeof(w));
	w.m = m;
	w.src = src;
	w.repro = m->pop_repro;
	w.epoch = m->now;
	w.count = pop_count(src);
	w.buf = malloc(POPW_CHUNK);
	if (!w.buf) {
		fprintf(stderr, "%s: out of memory\n", m->prog);
		goto out;
	}
	w.total_bytes = pop_data_bytes(src);
	w.progress = !m->quiet && m->tty;
	if (!m->quiet && !w.progress)
		printf("Copying %u entries and %llu bytes from %s: ", w.count - 1,
		       (unsigned long long)w.total_bytes, m->pop_source);
	fflush(stdout);
	err = open_dev(m, &io, &w.fs);
	/* crash tests: E4_CRASH_AFTER_WRITES counts this handle's writes */
	if (!err)
		err = crashpoint_install(e4_fs_io(w.fs));
	if (err) {
		fprintf(stderr, "%s: %s: reopening to copy the files: %s\n", m->prog, m->device,
			error_message(err));
		goto out;
	}
	/* while the copy runs, the device holds no filesystem: a stop
	 * midway leaves nothing that passes as one */
	offs = super_offsets(w.fs, &noffs);
	if (!offs) {
		fprintf(stderr, "%s: out of memory\n", m->prog);
		goto out;
	}
	/* the library writes the primary superblock at ordering points:
	 * held in memory until finish() */
	e4_super_hold(w.fs, 1);
	if (zap_supers(m, offs, noffs))
		goto out;
	rc = pop_walk(src, &ops, &w);
	if (rc == -1) {
		fprintf(stderr, "%s: %s\n", m->prog, pop_error(src));
	} else if (rc) {
		/* ARCHIVE: member PATH, or SOURCE/PATH */
		int ar = pop_is_archive(src);
		char where[POP_PATH_MAX + 64];

		snprintf(where, sizeof(where), "%s%s%s", m->pop_source, ar ? ": member " : "/",
			 w.errpath);

		if (w.what == w.whatbuf)	/* says it all */
			fprintf(stderr, "%s: %s: %s\n", m->prog, where, w.what);
		else
			fprintf(stderr, "%s: %s: %s: %s%s\n", m->prog, where, w.what,
				error_message(w.err),
				w.err == E4_ERR_NO_SPACE ?
				" (the filesystem is too small for the source)" : "");
	} else {
		err = finish(w.fs);
		if (err)
			fprintf(stderr, "%s: %s: writing: %s\n", m->prog, m->device,
				error_message(err));
		else
			ret = 0;
	}
	err = e4_close(w.fs);
	w.fs = NULL;
	if (err && !ret) {
		fprintf(stderr, "%s: %s: closing: %s\n", m->prog, m->device, error_message(err));
		ret = -1;
	}
	if (w.progress)
		printf("\rCopying %u entries and %llu bytes from %s: ", w.count - 1,
		       (unsigned long long)w.total_bytes, m->pop_source);
	if (!m->quiet)
		printf(ret ? "failed\n" : "done\n");
out:
	if (w.fs)
		e4_close(w.fs);
	if (io)		/* e4_close() flushed it */
		e4_io_close(io);
	if (ret)
		invalidate(m, offs, noffs);
	free(offs);
	free(w.ino_key);
	free(w.ino_val);
	free(w.buf);
	free(w.ents);
	return ret;
}

/* ---- what main.c asks before the format ---------------------------------- */
int mkfs_pop_open(struct mkfs *m, struct pop_src **src)
{
	struct pop_opts o;
	char err[512];

#ifdef M_MMAP_THRESHOLD
	/* a directory's listing and entries come and go: from the C
	 * library's own mapping, returned when freed (glibc's dynamic
	 * threshold would keep them in the heap after the first free; bench/
	 * populate.sh's peak RSS: 5.6 -> 5.4 MiB) */
	mallopt(M_MMAP_THRESHOLD, 64 << 10);
	mallopt(M_TRIM_THRESHOLD, 64 << 10);
#endif
	memset(&o, 0, sizeof(o));
	o.default_time = m->now;
	o.no_xattrs = m->no_copy_xattrs;
	if (pop_open(m->pop_source, &o, src, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", m->prog, err);
		return -1;
	}
	return 0;
}

void mkfs_pop_fsparams(const struct e4_layout *l, struct pop_fsparams *p)
{
	memset(p, 0, sizeof(*p));
	p->block_size = l->block_size;
	p->cluster_size = l->cluster_size ? l->cluster_size : l->block_size;
	p->inode_size = l->inode_size;
	p->extents = (l->feature_incompat & EXT4_FEATURE_INCOMPAT_EXTENTS) != 0;
	p->inline_data = (l->feature_incompat & EXT4_FEATURE_INCOMPAT_INLINE_DATA) != 0;
	p->metadata_csum = (l->feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) != 0;
	p->dir_index = (l->feature_compat & EXT4_FEATURE_COMPAT_DIR_INDEX) != 0;
	p->dir_slack_pct = 0;	/* mkfs_populate() builds full leaves */
}

int mkfs_pop_fit(struct mkfs *m, struct pop_src *src)
{
	struct pop_fsparams p;
	struct pop_estimate est;
	struct e4_layout_opts lo;
	uint64_t blocks;
	uint32_t inodes;
	errcode_t err;

	mkfs_pop_fsparams(m->l, &p);
	if (pop_estimate(src, &p, &est)) {
		fprintf(stderr, "%s: %s\n", m->prog, pop_error(src));
		return -1;
	}
	/* compute_layout() left lo.bad_key pointing into its own frame,
	 * gone by now: the fit's layouts must not write there */
	lo = m->lo;
	lo.bad_key = NULL;
	err = pop_fit_size(&est, &p, m->pop_margin, &lo, &blocks, &inodes);
	if (err) {
		fprintf(stderr, "%s: no filesystem size holds %s: %s\n", m->prog, m->pop_source,
			error_message(err));
		return -1;
	}
	m->lo.block_size = p.block_size;
	m->lo.blocks_count = blocks;
	if (inodes && !m->lo.inodes_count)
		m->lo.inodes_count = inodes;
	return 0;
}
