/*
 * rdump_write.c: the writing half of rdump (cmd_rdump.c walks): writer
 * threads, their queues, and what they do on the host's filesystem.
 *
 * Each operation creates or continues one regular file, or makes one
 * symlink, relative to the descriptor of its directory.  A new file is
 * made with O_EXCL and its final mode (the umask is 0 during rdump), so it
 * needs no fchmod, and no fchown where the first new file showed that new
 * files get the inode's owner already; a file already there is truncated
 * and given mode and owner.  Data the walker located on the device is
 * read here (e4_io_read_nocache on a device open read-only), so it goes
 * from the device to the copy in one thread.  Directories get their
 * metadata when their last reference (the walker's, each queued
 * operation's, each subdirectory's) is dropped.  Writers are picked by
 * directory and name, so operations on one name are carried out in
 * order; messages go through a com_err hook holding stderr's lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdump.h"

void rdump_count_error(struct rdump_ctx *ctx)
{
	__atomic_add_fetch(&ctx->errors, 1, __ATOMIC_RELAXED);
}

char *rdump_shown_path(const struct rdir *d, const char *name)
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

void rdump_report(struct rdump_ctx *ctx, errcode_t err, const char *what,
		   const struct rdir *d, const char *name)
{
	char *p = name ? rdump_shown_path(d, name) : NULL;

	com_err(ctx->cmd, err, "%s %s", what, p ? p : d->path);
	free(p);
	rdump_count_error(ctx);
}

void rdump_read_error(struct rdump_ctx *ctx, errcode_t err, e4_ino_t ino, uint64_t off)
{
	com_err(ctx->cmd, err, "while reading inode %u at byte %llu", ino, (unsigned long long)off);
	rdump_count_error(ctx);
}

/* On the heap, not in a PATH_MAX buffer: the walk recurses deep. */
const char *rdump_rel_get(const struct rdir *d, const char *name)
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

void rdump_rel_free(const char *rel, const char *name)
{
	if (rel != name)
		free((char *)rel);
}

void rdump_dir_free(struct rdump_ctx *ctx, struct rdir *d)
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

void rdump_dir_put(struct rdump_ctx *ctx, struct rdir *d)
{
	while (d && __atomic_sub_fetch(&d->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		struct rdir *parent = d->parent;

		if (d->fix) {
			int by_fd = d->fd >= 0 && !d->fd_opath;

			if (dump_set_perms(ctx->cmd, &d->meta, by_fd ? d->fd : -1, d->at,
					   d->at_name, NULL, d->path,
					   ctx->is_root ? 0 : DUMP_KEEP_OWNER))
				rdump_count_error(ctx);
		}
		rdump_dir_free(ctx, d);
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
		rel = rdump_rel_get(d, op->name);
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
			rdump_rel_free(rel, op->name);
			errno = werr;
		}
		if (f->fd < 0) {
			rdump_report(ctx, errno, "while creating", d, op->name);
			f->failed = 1;
		}
	}
	if (f->fd >= 0 && !f->failed && !f->read_failed && op->len && op->dev) {
		err = e4_io_read_nocache(ctx->io, op->dev, wbuf, op->len);
		data = wbuf;
		if (err) {
			/* as the walker would: say so, keep what came before */
			rdump_read_error(ctx, err, op->ino, op->off);
			f->read_failed = 1;
			f->read_stop = op->off;
		}
	}
	if (f->fd >= 0 && !f->failed && !f->read_failed && op->len) {
		werr = dump_write_sparse(f->fd, data, op->len, op->off, &f->end);
		if (werr) {
			rdump_report(ctx, werr, "while writing", d, op->name);
			f->failed = 1;
		}
	}
	if (!op->finish || f->fd < 0)
		return;
	/* a hole at the end: give the file its length */
	if (f->read_failed)
		size = f->read_stop;
	if (!f->failed && f->end < size && ftruncate(f->fd, (off_t)size) < 0)
		rdump_report(ctx, errno, "while writing", d, op->name);
	if (dump_set_perms(ctx->cmd, &op->meta, f->fd, -1, NULL, d->path, op->name,
			   f->fresh ? fresh_keep(ctx, f->fd, &op->meta) :
			   ctx->is_root ? 0 : DUMP_KEEP_OWNER))
		rdump_count_error(ctx);
	if (close(f->fd) < 0)
		rdump_report(ctx, errno, "while closing", d, op->name);
	f->fd = -1;
}

static void run_op(struct rdump_ctx *ctx, struct rop *op, char *wbuf)
{
	const char *rel;
	int err = 0;

	if (op->kind == OP_FILE) {
		run_file(ctx, op, wbuf);
	} else {
		rel = rdump_rel_get(op->dir, op->name);
		if (!rel || symlinkat(op->target, op->dir->base, rel) < 0)
			err = errno;
		if (rel)
			rdump_rel_free(rel, op->name);
		if (err)
			rdump_report(ctx, err, "while creating symlink", op->dir, op->name);
	}
	if (op->finish && op->file)
		free(op->file);
	rdump_dir_put(ctx, op->dir);
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

/* com_err from several threads: one whole message at a time */
static void (*plain_com_err)(const char *, long, const char *, va_list);

static void locked_com_err(const char *who, long code, const char *fmt, va_list args)
{
	flockfile(stderr);
	plain_com_err(who, code, fmt, args);
	funlockfile(stderr);
}

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

void rdump_submit(struct rdump_ctx *ctx, struct rop *op)
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

void rdump_drain(struct rdump_ctx *ctx)
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

void rdump_writers_start(struct rdump_ctx *ctx, int n)
{
	int i;

	pthread_mutex_init(&ctx->lock, NULL);
	pthread_cond_init(&ctx->idle, NULL);
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
	ctx->nwriters = i;
	if (i) {
		plain_com_err = set_com_err_hook(locked_com_err);
		ctx->writer_reads = e4_io_read_nocache_threadsafe(ctx->io);
	}
}

void rdump_writers_stop(struct rdump_ctx *ctx)
{
	int i;

	rdump_drain(ctx);
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
	if (ctx->nwriters)
		set_com_err_hook(plain_com_err);
	ctx->nwriters = 0;
	pthread_cond_destroy(&ctx->idle);
	pthread_mutex_destroy(&ctx->lock);
}
