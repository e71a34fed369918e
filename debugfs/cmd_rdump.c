/*
 * cmd_rdump.c: "rdump": copy directory trees out of the filesystem.
 *
 * What rdump writes follows the reference debugfs: for each argument the
 * last path component is created in the output directory ("/" and names
 * ending in "/" dump the directory's contents straight into it);
 * regular files get their data, mode & 0777, owner and atime/mtime
 * (whole seconds); directories are made 0700, filled, then given mode,
 * owner and times; symlinks are recreated without owner or times; device
 * nodes, FIFOs and sockets are skipped; hard links become separate
 * copies; times are the low 32 bits of the seconds, read as unsigned.
 * Inline data is cut at i_size and holes stay holes (cmd_dump.c).
 *
 * How, for speed (a tree of 100,000 small files costs the reference nine
 * system calls a file): this thread walks the tree through libe4, which
 * only it uses, and reads each file's data into memory; writer threads
 * (one a CPU, up to RDUMP_MAX_WRITERS; none on one CPU or with
 * E4_RDUMP_WRITERS=0, then this thread writes) make the copies: each file
 * is created relative to its directory's descriptor with O_EXCL and its
 * final mode (the umask is 0 meanwhile), so neither fchmod nor, where the
 * new file already has the wanted owner, fchown is needed; data, times and
 * close follow on the descriptor.  Directories are made by this thread (so
 * that it knows whether to descend) and get their mode, owner and times
 * when the last operation inside them is done.  Operations on one name of
 * one directory go to one writer, in order, so the tree comes out as a
 * one-at-a-time copy makes it; only the order of error messages can differ.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "debugfs.h"

#define RDUMP_MAX_DEPTH		2048		/* directory nesting limit */
#define RDUMP_MAX_WRITERS	4
#define RDUMP_CHUNK		(1U << 20)	/* file data bytes per operation */
#define RDUMP_INFLIGHT		(32U << 20)	/* data bytes queued, at most */

/* An output directory.  Each holds a reference on its parent, so that the
 * descriptor it may borrow stays open while it lives. */
struct rdir {
	struct rdir *parent;
	int fd;			/* its own descriptor, or -1 */
	int fd_opath;		/* fd is O_PATH: set mode etc. by name */
	int base;		/* entries are (base, prefix + name) */
	char *prefix;		/* "" or "a/b/" */
	int at;			/* the directory itself is (at, at_name) */
	char *at_name;
	char *path;		/* for messages */
	unsigned id;		/* picks the writer with the entry name */
	int refs;		/* atomic: the walker's, queued ops', children's */
	int fix;		/* give it meta when the last reference goes */
	struct dump_meta meta;
};

/* A regular file being written by several operations (its data is larger
 * than RDUMP_CHUNK or has holes); one writer handles them in order. */
struct rfile {
	int fd;
	int fresh;		/* made by this open (O_EXCL) */
	int failed;		/* a write error was reported: write no more */
	int read_failed;	/* a read error: write no more, length read_stop */
	uint64_t end;		/* past the last byte written */
	uint64_t read_stop;
};

enum { OP_FILE, OP_SYMLINK };

struct rop {
	struct rop *next;
	struct rdir *dir;
	struct rfile *file;	/* NULL: the whole file is in this op */
	uint8_t kind, create, finish;
	char *buf;		/* OP_FILE: bytes [off, off + len) */
	size_t len;
	uint64_t off;
	uint64_t dev;		/* not 0: the writer reads them from this
				   device byte (buf unused) */
	e4_ino_t ino;
	uint64_t size;		/* finish: length of the file */
	struct dump_meta meta;	/* finish */
	char *target;		/* OP_SYMLINK */
	char name[];		/* then the target or the data */
};

struct writer {
	pthread_t tid;
	char *buf;		/* RDUMP_CHUNK bytes for ops with dev set */
	struct rop *head, *tail;
	pthread_cond_t wake;
	struct rdump_ctx *ctx;
};

struct rdump_ctx {
	const char *cmd;
	int errors;		/* atomic */
	e4_ino_t *stack;	/* directories being walked (loop detection) */
	int depth;
	int is_root;
	e4_io *io;
	int writer_reads;	/* writers read file data (see submit_file) */
	unsigned next_id;
	int dir_fds, dir_fds_max;	/* directory descriptors (atomic count) */
	/* writers (nwriters 0: the walker writes) */
	int nwriters;
	struct writer w[RDUMP_MAX_WRITERS];
	pthread_mutex_t lock;	/* queues, counters, the probe below */
	pthread_cond_t idle;	/* the walker waits for room or for none queued */
	size_t inflight;
	unsigned queued;
	struct rop *done;	/* run, to be freed by the walker */
	int waiting;		/* what the walker waits for on idle: */
#define WAIT_ROOM	1	/* inflight below half the limit */
#define WAIT_DRAIN	2	/* nothing queued */
	int stop;
	/* what a fresh file looks like (probed on the first one made) */
	int probed;		/* 0 not yet, 1 owner known, -1 unknown */
	uid_t fresh_uid;
	gid_t fresh_gid;
	int mode_untrusted;	/* fresh files' mode may not be the asked one */
};

static void bump_errors(struct rdump_ctx *ctx)
{
	__atomic_add_fetch(&ctx->errors, 1, __ATOMIC_RELAXED);
}

/* com_err from several threads: one whole message at a time */
static void (*plain_com_err)(const char *, long, const char *, va_list);

static void locked_com_err(const char *who, long code, const char *fmt, va_list args)
{
	flockfile(stderr);
	plain_com_err(who, code, fmt, args);
	funlockfile(stderr);
}

/* "dir/name" for messages (NULL if memory is short). */
static char *shown_path(const struct rdir *d, const char *name)
{
	size_t dl = strlen(d->path), nl = strlen(name);
	char *p = malloc(dl + nl + 2);

	if (!p)
		return NULL;
	memcpy(p, d->path, dl);
	p[dl] = '/';
	memcpy(p + dl + 1, name, nl + 1);
	return p;
}

static void report(struct rdump_ctx *ctx, errcode_t err, const char *what,
		   const struct rdir *d, const char *name)
{
	char *p = name ? shown_path(d, name) : NULL;

	com_err(ctx->cmd, err, "%s %s", what, p ? p : d->path);
	free(p);
	bump_errors(ctx);
}

static void read_error(struct rdump_ctx *ctx, errcode_t err, e4_ino_t ino, uint64_t off)
{
	com_err(ctx->cmd, err, "while reading inode %u at byte %llu", ino, (unsigned long long)off);
	bump_errors(ctx);
}

/* The name of entry name of d relative to d->base: name itself, or (d is
 * reached through an ancestor's descriptor) a copy to free with rel_free;
 * NULL with errno set on failure.  On the heap: the walk recurses deep. */
static const char *rel_get(const struct rdir *d, const char *name)
{
	size_t pl = strlen(d->prefix), nl = strlen(name);
	char *p;

	if (!pl)
		return name;
	if (pl + nl + 1 > PATH_MAX) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	p = malloc(pl + nl + 1);
	if (!p)
		return NULL;
	memcpy(p, d->prefix, pl);
	memcpy(p + pl, name, nl + 1);
	return p;
}

static void rel_free(const char *rel, const char *name)
{
	if (rel != name)
		free((char *)rel);
}

/* ---- output side: runs in the writers (or the walker) ----------------- */
static void dir_free(struct rdump_ctx *ctx, struct rdir *d)
{
	if (d->fd >= 0) {
		close(d->fd);
		__atomic_sub_fetch(&ctx->dir_fds, 1, __ATOMIC_RELAXED);
	}
	free(d->prefix);
	free(d->at_name);
	free(d->path);
	free(d);
}

/* Drop a reference; the last one gives the directory its metadata (when
 * fix is set), closes it and drops its reference on the parent. */
static void dir_put(struct rdump_ctx *ctx, struct rdir *d)
{
	while (d && __atomic_sub_fetch(&d->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		struct rdir *parent = d->parent;

		if (d->fix) {
			int by_fd = d->fd >= 0 && !d->fd_opath;

			if (dump_set_perms(ctx->cmd, &d->meta, by_fd ? d->fd : -1, d->at,
					   d->at_name, NULL, d->path,
					   ctx->is_root ? 0 : DUMP_KEEP_OWNER))
				bump_errors(ctx);
		}
		dir_free(ctx, d);
		d = parent;
	}
}

/* What dump_set_perms may leave alone on a file made by an O_EXCL open:
 * the mode given to open (unless something else decides modes there), and
 * the owner when it is the one fresh files get.  The first fresh file is
 * looked at to learn both. */
static unsigned fresh_keep(struct rdump_ctx *ctx, int fd, const struct dump_meta *m)
{
	unsigned keep = ctx->is_root ? 0 : DUMP_KEEP_OWNER;
	struct stat st;

	pthread_mutex_lock(&ctx->lock);
	if (!ctx->probed) {
		ctx->probed = -1;
		if (fstat(fd, &st) == 0) {
			ctx->probed = 1;
			ctx->fresh_uid = st.st_uid;
			ctx->fresh_gid = st.st_gid;
			if ((st.st_mode & 07777) != m->mode)
				ctx->mode_untrusted = 1;
		} else {
			ctx->mode_untrusted = 1;
		}
	}
	if (!ctx->mode_untrusted)
		keep |= DUMP_KEEP_MODE;
	if (ctx->probed == 1 && ctx->fresh_uid == m->uid && ctx->fresh_gid == m->gid)
		keep |= DUMP_KEEP_OWNER;
	pthread_mutex_unlock(&ctx->lock);
	return keep;
}

static void run_file(struct rdump_ctx *ctx, struct rop *op, char *wbuf)
{
	struct rfile one = { -1, 0, 0, 0, 0, 0 }, *f = op->file ? op->file : &one;
	struct rdir *d = op->dir;
	const char *data = op->buf;
	uint64_t size = op->size;
	const char *rel;
	errcode_t err;
	int werr;

	if (op->create) {
		rel = rel_get(d, op->name);
		f->fd = -1;
		if (rel) {
			f->fd = openat(d->base, rel, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				       O_CLOEXEC, (mode_t)op->meta.mode);
			f->fresh = f->fd >= 0;
			/* there already: truncated, given mode and owner */
			if (f->fd < 0 && errno == EEXIST)
				f->fd = openat(d->base, rel, O_WRONLY | O_CREAT | O_TRUNC |
					       O_NOFOLLOW | O_CLOEXEC, 0700);
			werr = errno;
			rel_free(rel, op->name);
			errno = werr;
		}
		if (f->fd < 0) {
			report(ctx, errno, "while creating", d, op->name);
			f->failed = 1;
		}
	}
	if (f->fd >= 0 && !f->failed && !f->read_failed && op->len && op->dev) {
		err = e4_io_read_nocache(ctx->io, op->dev, wbuf, op->len);
		data = wbuf;
		if (err) {
			/* as the walker would: say so, keep what came before */
			read_error(ctx, err, op->ino, op->off);
			f->read_failed = 1;
			f->read_stop = op->off;
		}
	}
	if (f->fd >= 0 && !f->failed && !f->read_failed && op->len) {
		werr = dump_write_sparse(f->fd, data, op->len, op->off, &f->end);
		if (werr) {
			report(ctx, werr, "while writing", d, op->name);
			f->failed = 1;
		}
	}
	if (!op->finish || f->fd < 0)
		return;
	/* a hole at the end: give the file its length */
	if (f->read_failed)
		size = f->read_stop;
	if (!f->failed && f->end < size && ftruncate(f->fd, (off_t)size) < 0)
		report(ctx, errno, "while writing", d, op->name);
	if (dump_set_perms(ctx->cmd, &op->meta, f->fd, -1, NULL, d->path, op->name,
			   f->fresh ? fresh_keep(ctx, f->fd, &op->meta) :
			   ctx->is_root ? 0 : DUMP_KEEP_OWNER))
		bump_errors(ctx);
	if (close(f->fd) < 0)
		report(ctx, errno, "while closing", d, op->name);
	f->fd = -1;
}

static void run_op(struct rdump_ctx *ctx, struct rop *op, char *wbuf)
{
	const char *rel;
	int err = 0;

	if (op->kind == OP_FILE) {
		run_file(ctx, op, wbuf);
	} else {
		rel = rel_get(op->dir, op->name);
		if (!rel || symlinkat(op->target, op->dir->base, rel) < 0)
			err = errno;
		if (rel)
			rel_free(rel, op->name);
		if (err)
			report(ctx, err, "while creating symlink", op->dir, op->name);
	}
	if (op->finish && op->file)
		free(op->file);
	dir_put(ctx, op->dir);
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	struct rdump_ctx *ctx = w->ctx;
	struct rop *op;
	size_t len;

	pthread_mutex_lock(&ctx->lock);
	for (;;) {
		while (!w->head && !ctx->stop)
			pthread_cond_wait(&w->wake, &ctx->lock);
		op = w->head;
		if (!op)
			break;
		w->head = op->next;
		if (!w->head)
			w->tail = NULL;
		pthread_mutex_unlock(&ctx->lock);
		len = op->len;
		run_op(ctx, op, w->buf);
		pthread_mutex_lock(&ctx->lock);
		/* freed by the walker, whose arena it came from (free()s from
		 * other threads cost a tenth of the time in glibc) */
		op->next = ctx->done;
		ctx->done = op;
		ctx->inflight -= len;
		ctx->queued--;
		if ((ctx->waiting == WAIT_DRAIN && !ctx->queued) ||
		    (ctx->waiting == WAIT_ROOM &&
		     (!ctx->queued || ctx->inflight < RDUMP_INFLIGHT / 2))) {
			ctx->waiting = 0;
			pthread_cond_signal(&ctx->idle);
		}
	}
	pthread_mutex_unlock(&ctx->lock);
	return NULL;
}

/* ---- the walker's side ------------------------------------------------- */
static unsigned pick_writer(const struct rdump_ctx *ctx, const struct rop *op)
{
	uint32_t h = 2166136261u ^ op->dir->id;
	const unsigned char *p;

	for (p = (const unsigned char *)op->name; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h % (unsigned)ctx->nwriters;
}

static void free_ops(struct rop *op)
{
	while (op) {
		struct rop *next = op->next;

		free(op);
		op = next;
	}
}

/* Hand op to its writer (or run it here); the op holds a reference on its
 * directory. */
static void submit(struct rdump_ctx *ctx, struct rop *op)
{
	struct rop *done;
	struct writer *w;

	__atomic_add_fetch(&op->dir->refs, 1, __ATOMIC_RELAXED);
	if (!ctx->nwriters) {
		run_op(ctx, op, NULL);
		free(op);
		return;
	}
	w = &ctx->w[pick_writer(ctx, op)];
	pthread_mutex_lock(&ctx->lock);
	done = ctx->done;
	ctx->done = NULL;
	while (ctx->inflight > RDUMP_INFLIGHT && ctx->queued) {
		ctx->waiting = WAIT_ROOM;
		pthread_cond_wait(&ctx->idle, &ctx->lock);
	}
	op->next = NULL;
	if (w->tail)
		w->tail->next = op;
	else
		w->head = op;
	w->tail = op;
	ctx->inflight += op->len;
	ctx->queued++;
	if (w->head == op)
		pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&ctx->lock);
	free_ops(done);
}

/* Wait until every queued operation is done. */
static void drain(struct rdump_ctx *ctx)
{
	if (!ctx->nwriters)
		return;
	pthread_mutex_lock(&ctx->lock);
	while (ctx->queued) {
		ctx->waiting = WAIT_DRAIN;
		pthread_cond_wait(&ctx->idle, &ctx->lock);
	}
	free_ops(ctx->done);
	ctx->done = NULL;
	pthread_mutex_unlock(&ctx->lock);
}

static int start_writers(struct rdump_ctx *ctx, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct writer *w = &ctx->w[i];

		w->ctx = ctx;
		w->buf = malloc(RDUMP_CHUNK);
		if (!w->buf)
			break;
		pthread_cond_init(&w->wake, NULL);
		if (pthread_create(&w->tid, NULL, writer_main, w)) {
			pthread_cond_destroy(&w->wake);
			free(w->buf);
			break;
		}
	}
	return i;
}

static void stop_writers(struct rdump_ctx *ctx)
{
	int i;

	pthread_mutex_lock(&ctx->lock);
	ctx->stop = 1;
	for (i = 0; i < ctx->nwriters; i++)
		pthread_cond_signal(&ctx->w[i].wake);
	pthread_mutex_unlock(&ctx->lock);
	for (i = 0; i < ctx->nwriters; i++) {
		pthread_join(ctx->w[i].tid, NULL);
		pthread_cond_destroy(&ctx->w[i].wake);
		free(ctx->w[i].buf);
	}
	free_ops(ctx->done);
	ctx->done = NULL;
}

/* A new op for entry name (len bytes) of d with extra bytes after it. */
static struct rop *op_new(struct rdump_ctx *ctx, struct rdir *d, const char *name,
			  size_t len, size_t extra)
{
	struct rop *op = malloc(sizeof(*op) + len + 1 + extra);

	if (!op) {
		com_err(ctx->cmd, ENOMEM, "while dumping %s", d->path);
		bump_errors(ctx);
		return NULL;
	}
	memset(op, 0, sizeof(*op));
	op->dir = d;
	memcpy(op->name, name, len);
	op->name[len] = 0;
	op->buf = op->target = op->name + len + 1;
	return op;
}

/* Queue the writing of a regular file: one operation per run of the map
 * (at most RDUMP_CHUNK bytes), holes skipped, the last one finishing.  The
 * data is read here, or, where the writers may read the device
 * (ctx->writer_reads: it is open read-only), by the writer, so the bytes
 * stay in one CPU's cache from the device to the copy.  A read error stops
 * the file after the bytes read well, as the reference does. */
static void walk_file(struct rdump_ctx *ctx, struct rdir *d, const char *name, size_t len,
		      e4_ino_t ino, const struct ext4_inode *inode)
{
	int by_map = !(e4_le32(inode->i_flags) & EXT4_INLINE_DATA_FL), stop = 0;
	struct rop *op = NULL, *next;
	struct rfile *rf = NULL;
	uint64_t size = 0, off = 0;
	struct dump_meta m;
	e4_file *f = NULL;
	errcode_t err;

	dump_meta_of(inode, &m);	/* the first op's open needs the mode */
	err = e4_file_open(current_fs, ino, inode, &f);
	if (err) {
		com_err(ctx->cmd, err, "while opening inode %u", ino);
		bump_errors(ctx);
	} else {
		size = e4_file_size(f);
	}
	while (off < size && !stop) {
		size_t want = size - off > RDUMP_CHUNK ? RDUMP_CHUNK : (size_t)(size - off), got = 0;
		uint64_t dev = 0, n = 0;

		if (by_map) {
			err = e4_file_locate(f, off, &dev, &n);
			if (err == E4_ERR_INVALID_ARGUMENT) {
				by_map = 0;	/* no map after all: read through */
				continue;
			}
			if (err) {
				read_error(ctx, err, ino, off);
				break;
			}
			if (!dev) {
				off += n;	/* a hole */
				continue;
			}
			if (n < want)
				want = (size_t)n;
		}
		next = op_new(ctx, d, name, len, by_map && ctx->writer_reads ? 0 : want);
		if (!next)
			break;
		if (by_map && ctx->writer_reads) {
			next->dev = dev;
			got = want;
		} else {
			err = e4_file_pread(f, off, next->buf, want, &got);
			if (err) {
				read_error(ctx, err, ino, off + got);
				stop = 1;
			}
			if (!got) {
				free(next);
				break;
			}
		}
		next->off = off;
		next->len = got;
		next->meta = m;
		next->ino = ino;
		off += got;
		if (op) {
			if (!rf && !(rf = calloc(1, sizeof(*rf)))) {
				free(next);
				com_err(ctx->cmd, ENOMEM, "while dumping %s", d->path);
				bump_errors(ctx);
				break;
			}
			op->file = next->file = rf;
			submit(ctx, op);
		} else {
			next->create = 1;
		}
		op = next;
	}
	e4_file_close(f);
	if (!op) {
		/* no data: made empty */
		op = op_new(ctx, d, name, len, 0);
		if (!op)
			return;
		op->create = 1;
		op->meta = m;
	}
	op->finish = 1;
	op->size = off;
	submit(ctx, op);
}

static void walk_symlink(struct rdump_ctx *ctx, struct rdir *d, const char *name, size_t len,
			 e4_ino_t ino, const struct ext4_inode *inode)
{
	size_t cap = e4_geom(current_fs)->block_size + 1, tlen = 0;
	struct rop *op = op_new(ctx, d, name, len, cap);
	errcode_t err;

	if (!op)
		return;
	err = e4_readlink(current_fs, ino, inode, op->target, cap, &tlen);
	if (!err && (tlen >= cap || memchr(op->target, 0, tlen)))
		err = E4_ERR_SYMLINK_CORRUPT;
	if (err) {
		char *p = shown_path(d, op->name);

		com_err(ctx->cmd, err, "while reading symlink inode %u (%s)", ino,
			p ? p : op->name);
		free(p);
		bump_errors(ctx);
		free(op);
		return;
	}
	op->target[tlen] = 0;
	op->kind = OP_SYMLINK;
	submit(ctx, op);
}

/* A directory object for an output directory just made as entry name of
 * parent, (parent->base, rel) (with its own descriptor while there are
 * descriptors to spare, else named relative to the parent's). */
static struct rdir *dir_new(struct rdump_ctx *ctx, struct rdir *parent, const char *name,
			    const char *rel)
{
	struct rdir *d = calloc(1, sizeof(*d));
	size_t rl;

	if (!d)
		goto fail;
	d->fd = -1;
	d->parent = parent;
	d->refs = 1;
	d->id = ++ctx->next_id;
	d->path = shown_path(parent, name);
	if (!d->path)
		goto fail;
	if (__atomic_add_fetch(&ctx->dir_fds, 1, __ATOMIC_RELAXED) <= ctx->dir_fds_max)
		d->fd = openat(parent->base, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d->fd < 0) {
		__atomic_sub_fetch(&ctx->dir_fds, 1, __ATOMIC_RELAXED);
		rl = strlen(rel);
		d->base = parent->base;
		d->at = parent->base;
		d->at_name = strdup(rel);
		d->prefix = malloc(rl + 2);
		if (!d->at_name || !d->prefix)
			goto fail;
		memcpy(d->prefix, rel, rl);
		memcpy(d->prefix + rl, "/", 2);
	} else {
		d->base = d->fd;
		d->prefix = strdup("");
		if (!d->prefix)
			goto fail;
	}
	__atomic_add_fetch(&parent->refs, 1, __ATOMIC_RELAXED);
	return d;
fail:
	com_err(ctx->cmd, ENOMEM, "while dumping %s", parent->path);
	bump_errors(ctx);
	if (d)
		dir_free(ctx, d);
	return NULL;
}

struct name_list {
	char *buf;		/* records: le32 ino, u8 len, name bytes */
	size_t used, cap, count;
	int nomem;
};

static int name_collect(const struct e4_dirent *d, void *priv)
{
	struct name_list *l = priv;
	size_t need = sizeof(uint32_t) + 1 + d->name_len;

	if (l->used + need > l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16384;
		char *nb;

		while (cap < l->used + need)
			cap *= 2;
		nb = realloc(l->buf, cap);
		if (!nb) {
			l->nomem = 1;
			return 1;
		}
		l->buf = nb;
		l->cap = cap;
	}
	memcpy(l->buf + l->used, &d->inode, sizeof(uint32_t));
	l->buf[l->used + 4] = (char)d->name_len;
	memcpy(l->buf + l->used + 5, d->name, d->name_len);
	l->used += need;
	l->count++;
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t lx = (uint8_t)x[4], ly = (uint8_t)y[4];
	int c = memcmp(x + 5, y + 5, lx < ly ? lx : ly);

	return c ? c : (lx > ly) - (lx < ly);
}

/* 1 if a name appears twice in l (a damaged directory): then a directory
 * is made only after what is queued for an earlier same-named entry. */
static int has_duplicates(const struct name_list *l)
{
	const char **v;
	size_t off, i = 0;
	int dup = 0;

	if (l->count < 2)
		return 0;
	v = malloc(l->count * sizeof(*v));
	if (!v)
		return 1;
	for (off = 0; off < l->used; off += 5 + (uint8_t)l->buf[off + 4])
		v[i++] = l->buf + off;
	qsort(v, i, sizeof(*v), name_cmp);
	for (off = 1; off < i && !dup; off++)
		dup = !name_cmp(&v[off - 1], &v[off]);
	free(v);
	return dup;
}

static void walk_dir(struct rdump_ctx *ctx, e4_ino_t ino, struct rdir *d);

static void walk_subdir(struct rdump_ctx *ctx, struct rdir *d, const char *name,
			e4_ino_t ino, const struct ext4_inode *inode)
{
	const char *rel;
	struct rdir *sub;
	char *p;
	int i;

	for (i = 0; i < ctx->depth; i++) {
		if (ctx->stack[i] == ino) {
			p = shown_path(d, name);
			com_err(ctx->cmd, E4_ERR_LOOP, "- directory inode %u is its own "
				"ancestor; not descending into %s", ino, p ? p : name);
			free(p);
			bump_errors(ctx);
			return;
		}
	}
	if (ctx->depth >= RDUMP_MAX_DEPTH) {
		p = shown_path(d, name);
		com_err(ctx->cmd, 0, "directories nested deeper than %d levels; not "
			"descending into %s", RDUMP_MAX_DEPTH, p ? p : name);
		free(p);
		bump_errors(ctx);
		return;
	}
	rel = rel_get(d, name);
	if (!rel || mkdirat(d->base, rel, 0700) < 0) {
		i = errno;
		if (rel)
			rel_free(rel, name);
		report(ctx, i, "while making directory", d, name);
		return;
	}
	sub = dir_new(ctx, d, name, rel);
	rel_free(rel, name);
	if (!sub)
		return;
	sub->fix = 1;
	dump_meta_of(inode, &sub->meta);
	walk_dir(ctx, ino, sub);
	dir_put(ctx, sub);
}

/* Dump every entry of directory ino into output directory d. */
static void walk_dir(struct rdump_ctx *ctx, e4_ino_t ino, struct rdir *d)
{
	struct name_list l = { NULL, 0, 0, 0, 0 };
	union e4_inode_buf *ib = malloc(sizeof(*ib));
	errcode_t err;
	size_t off;
	int dup;

	if (!ib) {
		com_err(ctx->cmd, ENOMEM, "while dumping %s", d->path);
		bump_errors(ctx);
		return;
	}
	err = e4_dir_iterate(current_fs, ino, E4_DIR_NO_DOTS, name_collect, &l);
	if (l.nomem)
		err = E4_ERR_NO_MEMORY;
	if (err) {
		com_err(ctx->cmd, err, "while reading directory inode %u (%s)", ino, d->path);
		bump_errors(ctx);
	}
	dup = has_duplicates(&l);
	ctx->stack[ctx->depth++] = ino;
	for (off = 0; off < l.used; ) {
		uint32_t child;
		size_t len = (uint8_t)l.buf[off + 4];
		char name[256];

		memcpy(&child, l.buf + off, sizeof(child));
		memcpy(name, l.buf + off + 5, len);
		name[len] = 0;
		off += 5 + len;
		if (!len || memchr(name, '/', len) || memchr(name, 0, len) ||
		    !strcmp(name, ".") || !strcmp(name, "..")) {
			com_err(ctx->cmd, 0, "skipping an entry with an unusable name "
				"(inode %u) in %s", child, d->path);
			bump_errors(ctx);
			continue;
		}
		if (!child || child > e4_geom(current_fs)->inodes_count) {
			char *p = shown_path(d, name);

			com_err(ctx->cmd, E4_ERR_BAD_INODE_NUM, "- inode %u (%s)", child,
				p ? p : name);
			free(p);
			bump_errors(ctx);
			continue;
		}
		if (read_inode(ctx->cmd, child, ib, 0)) {
			bump_errors(ctx);
			continue;
		}
		switch (e4_le16(ib->inode.i_mode) & EXT4_S_IFMT) {
		case EXT4_S_IFLNK:
			walk_symlink(ctx, d, name, len, child, &ib->inode);
			break;
		case EXT4_S_IFREG:
			walk_file(ctx, d, name, len, child, &ib->inode);
			break;
		case EXT4_S_IFDIR:
			if (dup)
				drain(ctx);
			walk_subdir(ctx, d, name, child, &ib->inode);
			break;
		default:
			break;	/* device nodes, FIFOs, sockets: not dumped */
		}
	}
	ctx->depth--;
	free(l.buf);
	free(ib);
}

/* ---- the command -------------------------------------------------------- */
static int writers_wanted(void)
{
	const char *e = getenv("E4_RDUMP_WRITERS");
	long n;

	if (e && *e)
		n = strtol(e, NULL, 10);
	else
		n = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? sysconf(_SC_NPROCESSORS_ONLN) : 0;
	return n < 0 ? 0 : n > RDUMP_MAX_WRITERS ? RDUMP_MAX_WRITERS : (int)n;
}

/* The output directory itself as a directory object (id 0: every
 * argument's objects for it are one directory to pick_writer). */
static struct rdir *dir_outdir(struct rdump_ctx *ctx, const char *outdir)
{
	struct rdir *d = calloc(1, sizeof(*d));

	if (!d || !(d->path = strdup(outdir)) || !(d->at_name = strdup(outdir)) ||
	    !(d->prefix = strdup(""))) {
		com_err(ctx->cmd, ENOMEM, "while dumping into %s", outdir);
		goto fail;
	}
	d->refs = 1;
	d->at = AT_FDCWD;
	d->fd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d->fd < 0 && errno == EACCES) {
		/* writable but not readable: entries can still be made */
		d->fd = open(outdir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		d->fd_opath = 1;
	}
	if (d->fd < 0) {
		com_err(ctx->cmd, errno, "while opening the output directory %s", outdir);
		goto fail;
	}
	__atomic_add_fetch(&ctx->dir_fds, 1, __ATOMIC_RELAXED);
	d->base = d->fd;
	return d;
fail:
	bump_errors(ctx);
	if (d) {
		d->fd = -1;
		dir_free(ctx, d);
	}
	return NULL;
}

/* One argument: its last name made in outdir, or (a name ending in "/")
 * its contents put straight into outdir, which then takes its metadata. */
static void rdump_arg(struct rdump_ctx *ctx, const char *arg, const char *outdir)
{
	const char *base = strrchr(arg, '/');
	union e4_inode_buf ib;
	struct rdir *root;
	e4_ino_t ino;
	uint16_t type;

	if (parse_inode(ctx->cmd, arg, &ino) || read_inode(ctx->cmd, ino, &ib, 0)) {
		bump_errors(ctx);
		return;
	}
	root = dir_outdir(ctx, outdir);
	if (!root)
		return;
	base = base ? base + 1 : arg;
	type = e4_le16(ib.inode.i_mode) & EXT4_S_IFMT;
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
		/* "/", "dir/", ".": into outdir itself */
		if (type == EXT4_S_IFDIR) {
			root->fix = 1;
			dump_meta_of(&ib.inode, &root->meta);
			ctx->depth = 0;
			walk_dir(ctx, ino, root);
		} else if (type == EXT4_S_IFREG) {
			com_err(ctx->cmd, EISDIR, "while creating %s", outdir);
			bump_errors(ctx);
		} else if (type == EXT4_S_IFLNK) {
			com_err(ctx->cmd, EEXIST, "while creating symlink %s", outdir);
			bump_errors(ctx);
		}
	} else if (type == EXT4_S_IFDIR) {
		ctx->depth = 0;
		walk_subdir(ctx, root, base, ino, &ib.inode);
	} else if (type == EXT4_S_IFREG) {
		walk_file(ctx, root, base, strlen(base), ino, &ib.inode);
	} else if (type == EXT4_S_IFLNK) {
		walk_symlink(ctx, root, base, strlen(base), ino, &ib.inode);
	}
	dir_put(ctx, root);
}

int do_rdump(int argc, char **argv)
{
	struct rdump_ctx ctx;
	const char *outdir;
	struct rlimit rl;
	struct stat st;
	mode_t old_umask;
	int i;

	if (argc < 3)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]))
		return 1;
	outdir = argv[argc - 1];
	if (stat(outdir, &st) < 0) {
		com_err(argv[0], errno, "while checking the output directory %s", outdir);
		return 1;
	}
	if (!S_ISDIR(st.st_mode)) {
		com_err(argv[0], ENOTDIR, "- %s", outdir);
		return 1;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.cmd = argv[0];
	ctx.is_root = geteuid() == 0;
	ctx.io = e4_fs_io(current_fs);
	ctx.stack = calloc(RDUMP_MAX_DEPTH, sizeof(*ctx.stack));
	if (!ctx.stack) {
		com_err(argv[0], ENOMEM, "while starting rdump");
		return 1;
	}
	/* half the descriptors for directories, the rest for the files */
	ctx.dir_fds_max = 4096;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur / 2 < (rlim_t)ctx.dir_fds_max)
		ctx.dir_fds_max = (int)(rl.rlim_cur / 2);
	/* a default ACL there decides the modes of new files, not open's
	 * mode argument: then every file gets its fchmod */
	if (getxattr(outdir, "system.posix_acl_default", NULL, 0) >= 0)
		ctx.mode_untrusted = 1;
	old_umask = umask(0);
	pthread_mutex_init(&ctx.lock, NULL);
	pthread_cond_init(&ctx.idle, NULL);
	ctx.nwriters = writers_wanted();
	if (ctx.nwriters) {
		ctx.nwriters = start_writers(&ctx, ctx.nwriters);
		plain_com_err = set_com_err_hook(locked_com_err);
		ctx.writer_reads = ctx.nwriters && e4_io_read_nocache_threadsafe(ctx.io);
	}
	for (i = 1; i < argc - 1; i++) {
		rdump_arg(&ctx, argv[i], outdir);
		/* the next argument may make the same names: this one first */
		drain(&ctx);
		ctx.probed = 0;
	}
	if (ctx.nwriters) {
		stop_writers(&ctx);
		set_com_err_hook(plain_com_err);
	}
	pthread_cond_destroy(&ctx.idle);
	pthread_mutex_destroy(&ctx.lock);
	umask(old_umask);
	free(ctx.stack);
	return ctx.errors ? 1 : 0;
}
