/*
 * cmd_dump.c: "cat" and "dump": copy file data out of the filesystem;
 * and the pieces "rdump" (cmd_rdump.c) shares with them: stepping over
 * holes, writing data with holes left as holes, restoring mode, owner and
 * times.
 *
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

int dump_write_sparse(int fd, const char *buf, size_t len, uint64_t off, uint64_t *end)
{
	size_t pos;
	int werr = 0;

	for (pos = 0; pos < len && !werr; pos += HOLE_CHUNK) {
		size_t n = len - pos < HOLE_CHUNK ? len - pos : HOLE_CHUNK;

		if (!all_zero(buf + pos, n)) {
			werr = pwrite_all(fd, buf + pos, n, (off_t)(off + pos));
			*end = off + pos + n;
		}
	}
	return werr;
}

/*
 * Copy the data of inode ino to fd.  Into a regular output file (sparse
 * set) all-zero pieces are skipped, leaving holes; anything else gets a
 * plain sequential write.  Prints its errors; returns 0 or 1.
 */
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
		size_t got = 0;

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
		if (!got)
			break;
		if (!sparse)
			werr = write_all(fd, buf, got);
		else
			werr = dump_write_sparse(fd, buf, got, off, &end);
		if (werr)
			break;
		off += got;
		if (err)
			break;	/* the bytes before the error are out, as the
				   reference does */
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

void dump_meta_of(const struct ext4_inode *inode, struct dump_meta *m)
{
	m->mode = e4_le16(inode->i_mode) & 0777;
	m->uid = e4_inode_uid(inode);
	m->gid = e4_inode_gid(inode);
	m->atime = e4_le32(inode->i_atime);
	m->mtime = e4_le32(inode->i_mtime);
}

int dump_set_perms(const char *cmd, const struct dump_meta *m, int fd, int dirfd,
		   const char *name, const char *shown_dir, const char *shown, unsigned keep)
{
	const char *sep = shown_dir ? "/" : "";
	struct timespec ts[2];
	int ret = 0;

	if (!shown_dir)
		shown_dir = "";
	if (!(keep & DUMP_KEEP_MODE) &&
	    (fd >= 0 ? fchmod(fd, m->mode) : fchmodat(dirfd, name, m->mode, 0)) < 0) {
		com_err(cmd, errno, "while setting the mode of %s%s%s", shown_dir, sep, shown);
		ret = 1;
	}
	if (!(keep & DUMP_KEEP_OWNER) &&
	    (fd >= 0 ? fchown(fd, m->uid, m->gid) : fchownat(dirfd, name, m->uid, m->gid, 0)) < 0) {
		com_err(cmd, errno, "while changing the owner of %s%s%s", shown_dir, sep, shown);
		ret = 1;
	}
	/* As the reference restores them: the 32-bit seconds fields read as
	 * unsigned numbers, no nanoseconds, no epoch bits (so a time before
	 * 1970 comes back after 2038).  stat shows the decoded times. */
	memset(ts, 0, sizeof(ts));
	ts[0].tv_sec = (time_t)m->atime;
	ts[1].tv_sec = (time_t)m->mtime;
	if ((fd >= 0 ? futimens(fd, ts) : utimensat(dirfd, name, ts, 0)) < 0) {
		com_err(cmd, errno, "while setting the times of %s%s%s", shown_dir, sep, shown);
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
	if (preserve) {
		struct dump_meta m;

		dump_meta_of(&ib.inode, &m);
		ret |= dump_set_perms(argv[0], &m, fd, AT_FDCWD, argv[optind + 1], NULL,
				      argv[optind + 1], geteuid() == 0 ? 0 : DUMP_KEEP_OWNER);
	}
	if (close(fd) < 0) {
		com_err(argv[0], errno, "while closing %s", argv[optind + 1]);
		ret = 1;
	}
	return ret;
}
