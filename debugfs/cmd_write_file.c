/*
 * cmd_write_file.c: e4debugfs's commands that write file contents and
 * inodes on a filesystem opened with -w: write, copy_inode, expand_dir,
 * punch/truncate, fallocate.  Data goes through libe4's file writer
 * (file_write.h), directories through its directory writer; after each
 * command the bitmaps, descriptors and superblock are flushed, so the
 * image is consistent between commands.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "debugfs.h"

#define WRITE_CHUNK	(1u << 20)	/* bytes read from the source at a time */

/* The allocation state of a finished command written out. */
static int flush_done(const char *cmd)
{
	errcode_t err = e4_flush_primary(current_fs, 0);

	if (err) {
		com_err(cmd, err, "while writing the bitmaps and the superblock");
		return 1;
	}
	return 0;
}

/* After a file writer's error: blocks it mapped before the error are
 * in *ib only (file_write.h), so the inode is written to keep them owned. */
static void keep_mapped(const char *cmd, e4_ino_t ino, union e4_inode_buf *ib)
{
	errcode_t err = e4_inode_write(current_fs, ino, ib);

	if (err)
		com_err(cmd, err, "while writing inode %u after the error", ino);
}

/* Next data range of fd at or after *off (SEEK_DATA/SEEK_HOLE where the
 * source supports them, else the rest of it): 0 with [*off, *end), 1 at
 * the end.  A seek that fails otherwise turns *seekable off (read all). */
static int next_data(int fd, off_t size, off_t *off, off_t *end, int *seekable)
{
	off_t d, h;

	if (*off >= size)
		return 1;
	if (*seekable) {
		d = lseek(fd, *off, SEEK_DATA);
		if (d < 0 && errno == ENXIO)
			return 1;
		if (d >= 0) {
			h = lseek(fd, d, SEEK_HOLE);
			if (h > d) {
				*off = d;
				*end = h < size ? h : size;
				return 0;
			}
		}
		*seekable = 0;	/* not supported: read it all */
	}
	*end = size;
	return 0;
}

/* Copy the regular file fd (size bytes) into inode ino: the source's
 * holes are skipped, zero blocks left unallocated (E4_FILE_SPARSE), the
 * size set last (a trailing hole included). */
static errcode_t copy_in(int fd, off_t size, e4_ino_t ino, union e4_inode_buf *ib, int *rerr)
{
	char *buf = malloc(WRITE_CHUNK);
	off_t off = 0, end = 0;
	int seekable = 1, r;
	errcode_t err = 0;

	if (!buf)
		return E4_ERR_NO_MEMORY;
	while (!err && (r = next_data(fd, size, &off, &end, &seekable)) == 0) {
		while (!err && off < end) {
			size_t want = (size_t)(end - off) < WRITE_CHUNK ? (size_t)(end - off)
									 : WRITE_CHUNK;
			ssize_t got = pread(fd, buf, want, off);

			if (got <= 0) {
				*rerr = got < 0 ? errno : EIO;	/* the source shrank */
				free(buf);
				return 0;
			}
			err = e4_file_write(current_fs, ino, ib, (uint64_t)off, buf, (size_t)got,
					    E4_FILE_SPARSE);
			off += got;
		}
	}
	free(buf);
	if (!err && e4_inode_size(&ib->inode) != (uint64_t)size)
		err = e4_file_truncate(current_fs, ino, ib, (uint64_t)size);
	return err;
}

/* write <native file> <new file>: a new regular file with the source's
 * permission bits, owned by root (as e2fsprogs), its times "now". */
int do_write(int argc, char **argv)
{
	char name[EXT4_NAME_LEN + 1];
	struct e4_op_attr a;
	union e4_inode_buf ib;
	struct stat st;
	e4_ino_t dir, ino;
	errcode_t err;
	int fd, rerr = 0, failed = 1, removed = 0;

	if (argc != 3)
		return usage(argv[0], NULL);
	if (check_fs_read_write(argv[0]))
		return 1;
	fd = open_input(argv[0], argv[1], 1, NULL);
	if (fd < 0)
		return 1;
	if (fstat(fd, &st)) {
		com_err(argv[0], errno, "while reading %s", argv[1]);
		close(fd);
		return 1;
	}
	if (parse_parent(argv[0], argv[2], &dir, name, sizeof(name)))
		goto out;
	now_attr(&a, st.st_mode & 07777);
	err = e4_ops_begin(current_fs);
	if (err) {
		com_err(argv[0], err, "while marking the filesystem not clean");
		goto out;
	}
	err = e4_op_create(current_fs, dir, name, strlen(name), &a, &ino);
	if (err) {
		com_err(argv[0], err, "while creating %s", argv[2]);
		goto end;
	}
	printf("Allocated inode: %u\n", ino);
	err = e4_inode_read(current_fs, ino, &ib);
	if (!err) {
		err = copy_in(fd, st.st_size, ino, &ib, &rerr);
		if (err || rerr)
			keep_mapped(argv[0], ino, &ib);	/* then freed with the file */
	}
	if (err || rerr) {
		if (rerr)
			com_err(argv[0], rerr, "while reading %s", argv[1]);
		else
			com_err(argv[0], err, "while writing %s into inode %u", argv[1], ino);
		/* no half-written file is left behind */
		err = e4_op_unlink(current_fs, dir, name, strlen(name), 0, NULL);
		if (err)
			com_err(argv[0], err, "while removing the incomplete %s", argv[2]);
		removed = !err;	/* said once it is on the device (below) */
		goto end;
	}
	failed = flush_done(argv[0]);
end:
	err = e4_ops_end(current_fs);
	if (err) {
		com_err(argv[0], err, "while marking the filesystem clean again");
		if (removed)
			fprintf(stderr, "%s: the removal of the incomplete %s was not written\n",
				argv[0], argv[2]);
		failed = 1;
	} else if (removed) {
		fprintf(stderr, "%s: %s removed\n", argv[0], argv[2]);
	}
out:
	close(fd);
	return failed;
}

/* copy_inode <source> <dest>: the whole on-disk inode copied (its
 * checksum set for the destination). */
int do_copy_inode(int argc, char **argv)
{
	union e4_inode_buf ib;
	e4_ino_t src, dst;
	errcode_t err;

	if (argc != 3)
		return usage(argv[0], NULL);
	if (check_fs_read_write(argv[0]) || parse_inode(argv[0], argv[1], &src) ||
	    parse_inode(argv[0], argv[2], &dst) || read_inode(argv[0], src, &ib, 0))
		return 1;
	err = e4_inode_write(current_fs, dst, &ib);
	if (err) {
		com_err(argv[0], err, "while writing inode %u", dst);
		return 1;
	}
	return flush_done(argv[0]);
}

/* e4_ops_begin() for a command; 1 (message printed) on failure. */
static int ops_start(const char *cmd)
{
	errcode_t err = e4_ops_begin(current_fs);

	if (err)
		com_err(cmd, err, "while marking the filesystem not clean");
	return err ? 1 : 0;
}

/* The end of a command bracketed by e4_ops_begin() (err: its result):
 * the allocation state flushed, the error printed ("while <what>"), the
 * superblock's state put back. */
static int ops_finish(const char *cmd, errcode_t err, const char *what)
{
	if (!err)
		err = e4_flush_primary(current_fs, 0);
	if (err)
		com_err(cmd, err, "while %s", what);
	if (e4_ops_end(current_fs)) {
		com_err(cmd, err, "while marking the filesystem clean again");
		return 1;
	}
	return err ? 1 : 0;
}

int do_expand_dir(int argc, char **argv)
{
	char what[300];
	e4_ino_t ino;
	errcode_t err;

	if (rw_inode_cmd(argc, argv, &ino))
		return 1;
	if (ops_start(argv[0]))
		return 1;
	err = e4_dir_expand(current_fs, ino);
	snprintf(what, sizeof(what), "expanding directory %s", argv[1]);
	return ops_finish(argv[0], err, what);
}

/* "<file> start_blk [end_blk]" of punch and fallocate. */
struct block_range {
	e4_ino_t ino;
	union e4_inode_buf ib;	/* the file's inode */
	uint64_t start, end;	/* logical blocks; end UINT64_MAX without end_blk */
	uint64_t bs;		/* block size */
	int have_end;		/* end_blk given */
	char what[120];		/* the action, for the error message */
};
/* Parse the arguments: a regular file (read into r->ib), the blocks; the
 * command bracketed by ops_start() on success.  1 (message printed) on
 * failure. */
static int block_range_args(int argc, char **argv, struct block_range *r)
{
	unsigned long long s, e = UINT64_MAX;

	if (argc < 3 || argc > 4)
		return usage(argv[0], NULL);
	if (check_fs_read_write(argv[0]) || parse_inode(argv[0], argv[1], &r->ino) ||
	    parse_number(argv[0], argv[2], "logical block", UINT32_MAX, &s) ||
	    (argc == 4 && parse_number(argv[0], argv[3], "logical block", UINT32_MAX, &e)))
		return 1;
	if (e < s) {
		com_err(argv[0], 0, "the end block %llu is before the start block %llu", e, s);
		return 1;
	}
	if (e4_ino_reserved(current_fs, r->ino)) {	/* as kill_file */
		com_err(argv[0], E4_ERR_INVALID_ARGUMENT, "- inode %u is a reserved inode", r->ino);
		return 1;
	}
	if (read_inode(argv[0], r->ino, &r->ib, 0))
		return 1;
	if ((e4_le16(r->ib.inode.i_mode) & EXT4_S_IFMT) != EXT4_S_IFREG) {
		com_err(argv[0], E4_ERR_INVALID_ARGUMENT, "- inode %u is a %s, not a regular file",
			r->ino, inode_type_name(e4_le16(r->ib.inode.i_mode)));
		return 1;
	}
	r->start = s;
	r->end = e;
	r->have_end = argc == 4;
	r->bs = e4_geom(current_fs)->block_size;
	return ops_start(argv[0]);
}

/* punch/truncate <file> start_blk [end_blk]: the blocks freed (to the
 * end of the file without end_blk); i_size unchanged, as e2fsprogs. */
int do_punch(int argc, char **argv)
{
	struct block_range r;
	errcode_t err;

	if (block_range_args(argc, argv, &r))
		return 1;
	err = e4_file_punch(current_fs, r.ino, &r.ib, r.start * r.bs,
			    r.have_end ? (r.end - r.start + 1) * r.bs : UINT64_MAX - r.start * r.bs);
	if (err)
		keep_mapped(argv[0], r.ino, &r.ib);
	snprintf(r.what, sizeof(r.what), "punching blocks %llu to %s of inode %u",
		 (unsigned long long)r.start, r.have_end ? argv[3] : "the end", r.ino);
	return ops_finish(argv[0], err, r.what);
}

/* fallocate on a block-mapped file, which has no unwritten state: the
 * holes of [r->start, r->end] get blocks of zeros, written, as the
 * reference's fallocate gives them.  A block map holds no block past
 * i_size (e2fsck), so a range past the end grows i_size to cover the
 * blocks mapped, also when the space runs out part way (the error is
 * returned). */
static errcode_t fallocate_zeroed(struct block_range *r)
{
	uint64_t lblk = r->start, grow = 0;
	char *zero = calloc(1, WRITE_CHUNK);
	errcode_t err = 0;

	if (!zero)
		return E4_ERR_NO_MEMORY;
	while (!err && lblk <= r->end) {
		e4_blk_t p;
		uint32_t len;
		unsigned fl;
		uint64_t n;

		err = e4_bmap(current_fs, r->ino, &r->ib.inode, lblk, &p, &len, &fl);
		if (err)
			break;
		n = r->end - lblk + 1 < len ? r->end - lblk + 1 : len;
		for (uint64_t k = 0; !p && !err && k < n;) {
			uint64_t m = (n - k) * r->bs < WRITE_CHUNK ? n - k : WRITE_CHUNK / r->bs;
			uint64_t off = (lblk + k) * r->bs;

			err = e4_file_write(current_fs, r->ino, &r->ib, off, zero, m * r->bs,
					    E4_FILE_NO_INLINE);
			if (err)
				grow = off + m * r->bs;	/* part of it may be mapped */
			k += m;
		}
		lblk += n;
	}
	free(zero);
	if (grow > e4_inode_size(&r->ib.inode) &&
	    e4_file_truncate(current_fs, r->ino, &r->ib, grow))
		keep_mapped("fallocate", r->ino, &r->ib);
	return err;
}

/* fallocate <file> start_blk [end_blk]: unwritten blocks in the holes of
 * the range (without end_blk: as many as the free blocks allow, up to the
 * largest file); i_size unchanged (FALLOC_FL_KEEP_SIZE).  Block-mapped
 * files: fallocate_zeroed(). */
int do_fallocate(int argc, char **argv)
{
	struct block_range r;
	uint64_t max;
	errcode_t err;

	if (block_range_args(argc, argv, &r))
		return 1;
	max = e4_file_max_blocks(current_fs, &r.ib);
	if (!r.have_end)	/* the free blocks, plus the blocks the file has */
		r.end = r.start + e4_sb_free_blocks_count(e4_super(current_fs)) +
			e4_inode_blocks(current_fs, &r.ib.inode) / (r.bs / 512) - 1;
	if (max && r.end >= max && r.start < max)
		r.end = max - 1;	/* the last block a file can map */
	if (max && r.start >= max)
		err = E4_ERR_FILE_TOO_BIG;
	else if (!(e4_le32(r.ib.inode.i_flags) & (EXT4_EXTENTS_FL | EXT4_INLINE_DATA_FL)))
		err = fallocate_zeroed(&r);
	else
		err = e4_file_fallocate(current_fs, r.ino, &r.ib, r.start * r.bs,
					(r.end - r.start + 1) * r.bs, E4_FALLOC_KEEP_SIZE);
	if (err) {
		keep_mapped(argv[0], r.ino, &r.ib);
		/* without end_blk: until the free blocks run out, as e2fsprogs */
		if (err == E4_ERR_NO_SPACE && !r.have_end)
			err = 0;
	}
	snprintf(r.what, sizeof(r.what), "allocating blocks %llu to %llu of inode %u%s",
		 (unsigned long long)r.start, (unsigned long long)r.end, r.ino,
		 err == E4_ERR_UNSUPPORTED ? " (an inline file without the extent feature)" : "");
	return ops_finish(argv[0], err, r.what);
}
