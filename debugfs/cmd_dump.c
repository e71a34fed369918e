/*
 * cmd_dump.c: "cat", "dump" and "rdump": copy file data out of the
 * filesystem.
 *
 * What rdump writes follows the reference debugfs: for each argument the
 * last path component is created in the output directory ("/" and names
 * ending in "/" dump the directory's contents straight into it);
 * regular files get their data, mode & 0777, owner and atime/mtime
 * (whole seconds); directories are made 0700, filled, then given mode,
 * owner and times; symlinks are recreated without owner or times; device
 * nodes, FIFOs and sockets are skipped; hard links become separate
 * copies; times are the low 32 bits of the seconds, read as unsigned.
 * Unlike the reference, files with inline data are cut at i_size (the
 * reference pads those under 60 bytes with zeros to 60) and holes are
 * left as holes in the output files.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "debugfs.h"

#define COPY_BUF_SIZE	(4U << 20)	/* bytes read per e4_file_pread */
#define HOLE_CHUNK	(64U << 10)	/* all-zero pieces of this size become holes */
#define RDUMP_MAX_DEPTH	2048		/* directory nesting limit (paths stop
					   near there anyway: PATH_MAX) */

static char *copy_buf;

static char *get_copy_buf(void)
{
	if (!copy_buf)
		copy_buf = malloc(COPY_BUF_SIZE);
	return copy_buf;
}

static int all_zero(const char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			return 0;
	return 1;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int pwrite_all(int fd, const char *p, size_t len, off_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, p, len, off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		p += n;
		off += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Copy the data of inode ino to fd.  Into a regular output file (sparse
 * set) all-zero pieces are skipped, leaving holes; anything else gets a
 * plain sequential write.  Prints its errors; returns 0 or 1.
 */
/* Bytes of hole from byte off of the file (0 if off is in mapped data or
 * the map cannot say), at most size - off. */
static uint64_t hole_bytes(e4_ino_t ino, const struct ext4_inode *inode, uint64_t off,
			   uint64_t size)
{
	unsigned bs = e4_geom(current_fs)->block_size, fl = 0;
	uint64_t lblk = off / bs, skip;
	e4_blk_t pblk = 0;
	uint32_t len = 0;
	errcode_t err;

	err = e4_bmap(current_fs, ino, inode, lblk, &pblk, &len, &fl);
	if (err == E4_ERR_FILE_TOO_BIG)
		return size - off;	/* beyond what the map addresses: a hole */
	if (err || pblk)
		return 0;
	if (len == UINT32_MAX)
		return size - off;
	skip = (lblk + len) * (uint64_t)bs - off;
	return skip > size - off ? size - off : skip;
}

static int copy_data(const char *cmd, e4_ino_t ino, const struct ext4_inode *inode,
		     int fd, int sparse, const char *outname)
{
	char *buf = get_copy_buf();
	uint64_t size, off = 0, end = 0;	/* end: past the last byte written */
	e4_file *f;
	errcode_t err;
	int werr = 0;

	if (!buf) {
		com_err(cmd, ENOMEM, "while copying inode %u", ino);
		return 1;
	}
	err = e4_file_open(current_fs, ino, inode, &f);
	if (err) {
		com_err(cmd, err, "while opening inode %u", ino);
		return 1;
	}
	size = e4_file_size(f);
	while (off < size) {
		size_t want = size - off > COPY_BUF_SIZE ? COPY_BUF_SIZE : (size_t)(size - off);
		size_t got = 0, pos;

		/* a sparse copy steps over holes by the map instead of reading
		 * their zeros: a 64 GiB file with two blocks costs two blocks */
		if (sparse && !(e4_le32(inode->i_flags) & EXT4_INLINE_DATA_FL)) {
			uint64_t skip = hole_bytes(ino, inode, off, size);

			if (skip) {
				off += skip;
				continue;
			}
		}
		err = e4_file_pread(f, off, buf, want, &got);
		if (err)
			break;
		if (!got)
			break;
		if (!sparse) {
			werr = write_all(fd, buf, got);
		} else {
			for (pos = 0; pos < got && !werr; pos += HOLE_CHUNK) {
				size_t n = got - pos < HOLE_CHUNK ? got - pos : HOLE_CHUNK;

				if (!all_zero(buf + pos, n)) {
					werr = pwrite_all(fd, buf + pos, n, (off_t)(off + pos));
					end = off + pos + n;
				}
			}
		}
		if (werr)
			break;
		off += got;
	}
	e4_file_close(f);
	/* a hole at the end: give the file its length */
	if (!werr && sparse && end < off && ftruncate(fd, (off_t)off) < 0)
		werr = errno;
	if (err) {
		com_err(cmd, err, "while reading inode %u at byte %llu", ino,
			(unsigned long long)off);
		return 1;
	}
	if (werr) {
		com_err(cmd, werr, "while writing %s", outname);
		return 1;
	}
	return 0;
}

static int fd_is_regular(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * Give the output file the inode's permission bits (mode & 0777), owner
 * (when running as root) and atime/mtime in whole seconds.  fd >= 0:
 * through the descriptor, else by name.
 */
static int fix_perms(const char *cmd, const struct ext4_inode *inode, int fd,
		     const char *name)
{
	static int is_root = -1;
	struct timespec ts[2];
	mode_t mode = e4_le16(inode->i_mode) & 0777;
	int ret = 0;

	if ((fd >= 0 ? fchmod(fd, mode) : chmod(name, mode)) < 0) {
		com_err(cmd, errno, "while setting the mode of %s", name);
		ret = 1;
	}
	if (is_root < 0)
		is_root = geteuid() == 0;
	if (is_root) {
		uid_t uid = e4_inode_uid(inode);
		gid_t gid = e4_inode_gid(inode);

		if ((fd >= 0 ? fchown(fd, uid, gid) : chown(name, uid, gid)) < 0) {
			com_err(cmd, errno, "while changing the owner of %s", name);
			ret = 1;
		}
	}
	/* As the reference restores them: the 32-bit seconds fields read as
	 * unsigned numbers, no nanoseconds, no epoch bits (so a time before
	 * 1970 comes back after 2038).  stat shows the decoded times. */
	memset(ts, 0, sizeof(ts));
	ts[0].tv_sec = (time_t)e4_le32(inode->i_atime);
	ts[1].tv_sec = (time_t)e4_le32(inode->i_mtime);
	if ((fd >= 0 ? futimens(fd, ts) : utimensat(AT_FDCWD, name, ts, 0)) < 0) {
		com_err(cmd, errno, "while setting the times of %s", name);
		ret = 1;
	}
	return ret;
}

int do_cat(int argc, char **argv)
{
	union e4_inode_buf ib;
	e4_ino_t ino;

	if (argc != 2)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]) || parse_inode(argv[0], argv[1], &ino) ||
	    read_inode(argv[0], ino, &ib, 0))
		return 1;
	fflush(stdout);
	return copy_data(argv[0], ino, &ib.inode, STDOUT_FILENO, 0, "standard output");
}

int do_dump(int argc, char **argv)
{
	union e4_inode_buf ib;
	e4_ino_t ino;
	int c, fd, ret, preserve = 0;

	reset_getopt();
	while ((c = getopt(argc, argv, "p")) != -1) {
		if (c != 'p')
			return usage(argv[0], NULL);
		preserve = 1;
	}
	if (argc - optind != 2)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]) || parse_inode(argv[0], argv[optind], &ino) ||
	    read_inode(argv[0], ino, &ib, 0))
		return 1;
	fd = open(argv[optind + 1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0) {
		com_err(argv[0], errno, "while opening %s for writing", argv[optind + 1]);
		return 1;
	}
	ret = copy_data(argv[0], ino, &ib.inode, fd, fd_is_regular(fd), argv[optind + 1]);
	if (preserve)
		ret |= fix_perms(argv[0], &ib.inode, fd, argv[optind + 1]);
	if (close(fd) < 0) {
		com_err(argv[0], errno, "while closing %s", argv[optind + 1]);
		ret = 1;
	}
	return ret;
}

/* ---- rdump -------------------------------------------------------------- */
struct rdump_ctx {
	const char *cmd;
	int errors;
	e4_ino_t *stack;	/* directories being dumped (loop detection) */
	int depth;
};

struct name_list {
	char *buf;		/* records: le32 ino, u8 len, name bytes */
	size_t used, cap;
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
	return 0;
}

static char *join_path(const char *dir, const char *name, size_t name_len)
{
	size_t dl = strlen(dir);
	char *p = malloc(dl + 1 + name_len + 1);

	if (!p)
		return NULL;
	memcpy(p, dir, dl);
	p[dl] = '/';
	memcpy(p + dl + 1, name, name_len);
	p[dl + 1 + name_len] = 0;
	return p;
}

static void rdump_inode(struct rdump_ctx *ctx, e4_ino_t ino, const char *path, int mkdir_it);

/* Dump every entry of directory ino into the native directory path. */
static void rdump_dir_contents(struct rdump_ctx *ctx, e4_ino_t ino, const char *path)
{
	struct name_list l = { NULL, 0, 0, 0 };
	errcode_t err;
	size_t off;

	err = e4_dir_iterate(current_fs, ino, E4_DIR_NO_DOTS, name_collect, &l);
	if (l.nomem)
		err = E4_ERR_NO_MEMORY;
	if (err) {
		com_err(ctx->cmd, err, "while reading directory inode %u (%s)", ino, path);
		ctx->errors++;
	}
	for (off = 0; off < l.used; ) {
		uint32_t child;
		size_t len = (uint8_t)l.buf[off + 4];
		const char *name = l.buf + off + 5;
		char *cpath;

		memcpy(&child, l.buf + off, sizeof(child));
		off += 5 + len;
		if (!len || memchr(name, '/', len) || memchr(name, 0, len) ||
		    (len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.')) {
			com_err(ctx->cmd, 0, "skipping an entry with an unusable name "
				"(inode %u) in %s", child, path);
			ctx->errors++;
			continue;
		}
		cpath = join_path(path, name, len);
		if (!cpath) {
			com_err(ctx->cmd, ENOMEM, "while dumping %s", path);
			ctx->errors++;
			break;
		}
		rdump_inode(ctx, child, cpath, 1);
		free(cpath);
	}
	free(l.buf);
}

static void rdump_symlink(struct rdump_ctx *ctx, e4_ino_t ino, const struct ext4_inode *inode,
			  const char *path)
{
	size_t cap = e4_geom(current_fs)->block_size + 1, len = 0;
	char *target = malloc(cap);
	errcode_t err;

	if (!target) {
		com_err(ctx->cmd, ENOMEM, "while dumping %s", path);
		ctx->errors++;
		return;
	}
	err = e4_readlink(current_fs, ino, inode, target, cap, &len);
	if (!err && (len >= cap || memchr(target, 0, len)))
		err = E4_ERR_SYMLINK_CORRUPT;
	if (err) {
		com_err(ctx->cmd, err, "while reading symlink inode %u (%s)", ino, path);
		ctx->errors++;
	} else {
		target[len] = 0;
		if (symlink(target, path) < 0) {
			com_err(ctx->cmd, errno, "while creating symlink %s", path);
			ctx->errors++;
		}
	}
	free(target);
}

static void rdump_file(struct rdump_ctx *ctx, e4_ino_t ino, const struct ext4_inode *inode,
		       const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0700);

	if (fd < 0) {
		com_err(ctx->cmd, errno, "while creating %s", path);
		ctx->errors++;
		return;
	}
	if (copy_data(ctx->cmd, ino, inode, fd, 1, path))
		ctx->errors++;
	if (fix_perms(ctx->cmd, inode, fd, path))
		ctx->errors++;
	if (close(fd) < 0) {
		com_err(ctx->cmd, errno, "while closing %s", path);
		ctx->errors++;
	}
}

static void rdump_directory(struct rdump_ctx *ctx, e4_ino_t ino, const struct ext4_inode *inode,
			    const char *path, int mkdir_it)
{
	int i;

	for (i = 0; i < ctx->depth; i++) {
		if (ctx->stack[i] == ino) {
			com_err(ctx->cmd, E4_ERR_LOOP, "- directory inode %u is its own "
				"ancestor; not descending into %s", ino, path);
			ctx->errors++;
			return;
		}
	}
	if (ctx->depth >= RDUMP_MAX_DEPTH) {
		com_err(ctx->cmd, 0, "directories nested deeper than %d levels; not "
			"descending into %s", RDUMP_MAX_DEPTH, path);
		ctx->errors++;
		return;
	}
	if (mkdir_it && mkdir(path, 0700) < 0) {
		com_err(ctx->cmd, errno, "while making directory %s", path);
		ctx->errors++;
		return;
	}
	ctx->stack[ctx->depth++] = ino;
	rdump_dir_contents(ctx, ino, path);
	ctx->depth--;
	if (fix_perms(ctx->cmd, inode, -1, path))
		ctx->errors++;
}

/* The inode buffer is on the heap: this recursion may be deep. */
static void rdump_inode(struct rdump_ctx *ctx, e4_ino_t ino, const char *path, int mkdir_it)
{
	union e4_inode_buf *ib;

	if (!ino || ino > e4_geom(current_fs)->inodes_count) {
		com_err(ctx->cmd, E4_ERR_BAD_INODE_NUM, "- inode %u (%s)", ino, path);
		ctx->errors++;
		return;
	}
	ib = malloc(sizeof(*ib));
	if (!ib) {
		com_err(ctx->cmd, ENOMEM, "while dumping %s", path);
		ctx->errors++;
		return;
	}
	if (read_inode(ctx->cmd, ino, ib, 0)) {
		ctx->errors++;
		free(ib);
		return;
	}
	switch (e4_le16(ib->inode.i_mode) & EXT4_S_IFMT) {
	case EXT4_S_IFLNK:
		rdump_symlink(ctx, ino, &ib->inode, path);
		break;
	case EXT4_S_IFREG:
		rdump_file(ctx, ino, &ib->inode, path);
		break;
	case EXT4_S_IFDIR:
		rdump_directory(ctx, ino, &ib->inode, path, mkdir_it);
		break;
	default:
		break;	/* device nodes, FIFOs, sockets: not dumped */
	}
	free(ib);
}

int do_rdump(int argc, char **argv)
{
	struct rdump_ctx ctx;
	const char *outdir;
	struct stat st;
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
	ctx.stack = calloc(RDUMP_MAX_DEPTH, sizeof(*ctx.stack));
	if (!ctx.stack) {
		com_err(argv[0], ENOMEM, "while starting rdump");
		return 1;
	}
	for (i = 1; i < argc - 1; i++) {
		const char *base = strrchr(argv[i], '/');
		e4_ino_t ino;
		char *path;

		if (parse_inode(argv[0], argv[i], &ino)) {
			ctx.errors++;
			continue;
		}
		base = base ? base + 1 : argv[i];
		if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
			/* "/", "dir/", ".": the contents go straight into outdir */
			rdump_inode(&ctx, ino, outdir, 0);
			continue;
		}
		path = join_path(outdir, base, strlen(base));
		if (!path) {
			com_err(argv[0], ENOMEM, "while dumping %s", argv[i]);
			ctx.errors++;
			continue;
		}
		rdump_inode(&ctx, ino, path, 1);
		free(path);
	}
	free(ctx.stack);
	return ctx.errors ? 1 : 0;
}
