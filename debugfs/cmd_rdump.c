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
 * How, for speed (a tree of 100,000 small files costs the reference ten
 * system calls a file, this five): this thread walks the tree through
 * libe4 and queues operations, for each run of each file where its bytes
 * are on the device (or the bytes, read here, where the device is open
 * read-write); writer threads (rdump_write.c: one a CPU, up to
 * RDUMP_MAX_WRITERS; none on one CPU or with E4_RDUMP_WRITERS=0, then
 * this thread writes) read them and make the copies.  Directories are made
 * here (so that this thread knows whether to descend) and get their mode,
 * owner and times when the last operation inside them is done.  The tree
 * comes out as a one-at-a-time copy makes it; only the order of error
 * messages can differ.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "rdump.h"

#define RDUMP_MAX_DEPTH		2048		/* directory nesting limit */

/* A new op for entry name (len bytes) of d with extra bytes after it. */
static struct rop *op_new(struct rdump_ctx *ctx, struct rdir *d, const char *name,
			  size_t len, size_t extra)
{
	struct rop *op = malloc(sizeof(*op) + len + 1 + extra);

	if (!op) {
		com_err(ctx->cmd, ENOMEM, "while dumping %s", d->path);
		rdump_count_error(ctx);
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
		rdump_count_error(ctx);
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
				rdump_read_error(ctx, err, ino, off);
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
				rdump_read_error(ctx, err, ino, off + got);
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
				rdump_count_error(ctx);
				break;
			}
			op->file = next->file = rf;
			rdump_submit(ctx, op);
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
	rdump_submit(ctx, op);
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
		char *p = rdump_shown_path(d, op->name);

		com_err(ctx->cmd, err, "while reading symlink inode %u (%s)", ino,
			p ? p : op->name);
		free(p);
		rdump_count_error(ctx);
		free(op);
		return;
	}
	op->target[tlen] = 0;
	op->kind = OP_SYMLINK;
	rdump_submit(ctx, op);
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
	d->path = rdump_shown_path(parent, name);
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
	rdump_count_error(ctx);
	if (d)
		rdump_dir_free(ctx, d);
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
			p = rdump_shown_path(d, name);
			com_err(ctx->cmd, E4_ERR_LOOP, "- directory inode %u is its own "
				"ancestor; not descending into %s", ino, p ? p : name);
			free(p);
			rdump_count_error(ctx);
			return;
		}
	}
	if (ctx->depth >= RDUMP_MAX_DEPTH) {
		p = rdump_shown_path(d, name);
		com_err(ctx->cmd, 0, "directories nested deeper than %d levels; not "
			"descending into %s", RDUMP_MAX_DEPTH, p ? p : name);
		free(p);
		rdump_count_error(ctx);
		return;
	}
	/* a damaged filesystem can give a directory two names (two parents):
	 * dumped again under each, a chain of such pairs makes exponentially
	 * many copies.  Once is what the kernel's view of a sound tree gives. */
	if (ctx->dumped && e4_bmap_test(ctx->dumped, ino)) {
		p = rdump_shown_path(d, name);
		com_err(ctx->cmd, 0, "directory inode %u was already dumped (it has "
			"several names); not dumping it again as %s", ino, p ? p : name);
		free(p);
		rdump_count_error(ctx);
		return;
	}
	rel = rdump_rel_get(d, name);
	if (!rel || mkdirat(d->base, rel, 0700) < 0) {
		i = errno;
		if (rel)
			rdump_rel_free(rel, name);
		rdump_report(ctx, i, "while making directory", d, name);
		return;
	}
	sub = dir_new(ctx, d, name, rel);
	rdump_rel_free(rel, name);
	if (!sub)
		return;
	sub->fix = 1;
	dump_meta_of(inode, &sub->meta);
	walk_dir(ctx, ino, sub);
	rdump_dir_put(ctx, sub);
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
		rdump_count_error(ctx);
		return;
	}
	err = e4_dir_iterate(current_fs, ino, E4_DIR_NO_DOTS, name_collect, &l);
	if (l.nomem)
		err = E4_ERR_NO_MEMORY;
	if (err) {
		com_err(ctx->cmd, err, "while reading directory inode %u (%s)", ino, d->path);
		rdump_count_error(ctx);
	}
	dup = has_duplicates(&l);
	if (ctx->dumped && e4_bmap_set(ctx->dumped, ino))
		rdump_count_error(ctx);	/* no memory: only the guard is lost */
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
			rdump_count_error(ctx);
			continue;
		}
		if (!child || child > e4_geom(current_fs)->inodes_count) {
			char *p = rdump_shown_path(d, name);

			com_err(ctx->cmd, E4_ERR_BAD_INODE_NUM, "- inode %u (%s)", child,
				p ? p : name);
			free(p);
			rdump_count_error(ctx);
			continue;
		}
		if (read_inode(ctx->cmd, child, ib, 0)) {
			rdump_count_error(ctx);
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
				rdump_drain(ctx);
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
	rdump_count_error(ctx);
	if (d) {
		d->fd = -1;
		rdump_dir_free(ctx, d);
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
		rdump_count_error(ctx);
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
			rdump_count_error(ctx);
		} else if (type == EXT4_S_IFLNK) {
			com_err(ctx->cmd, EEXIST, "while creating symlink %s", outdir);
			rdump_count_error(ctx);
		}
	} else if (type == EXT4_S_IFDIR) {
		ctx->depth = 0;
		walk_subdir(ctx, root, base, ino, &ib.inode);
	} else if (type == EXT4_S_IFREG) {
		walk_file(ctx, root, base, strlen(base), ino, &ib.inode);
	} else if (type == EXT4_S_IFLNK) {
		walk_symlink(ctx, root, base, strlen(base), ino, &ib.inode);
	}
	rdump_dir_put(ctx, root);
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
	rdump_writers_start(&ctx, writers_wanted());
	for (i = 1; i < argc - 1; i++) {
		if (e4_bmap_create(E4_BMAP_RUNS, 0,
				   (uint64_t)e4_geom(current_fs)->inodes_count + 1, &ctx.dumped))
			ctx.dumped = NULL;
		rdump_arg(&ctx, argv[i], outdir);
		e4_bmap_free(ctx.dumped);
		ctx.dumped = NULL;
		/* the next argument may make the same names: this one first */
		rdump_drain(&ctx);
		ctx.probed = 0;
	}
	rdump_writers_stop(&ctx);
	umask(old_umask);
	free(ctx.stack);
	return ctx.errors ? 1 : 0;
}
