/*
 * cmd_write_ns.c: e4debugfs's namespace commands on a filesystem opened
 * with -w: mkdir, rmdir, rm, kill_file, link/ln, unlink, symlink, mknod.
 * Each is one libe4 operation (ops.h), which writes its steps in order and
 * leaves the filesystem consistent; times come from set_current_time
 * (check_fs_read_write() sets the library's clock).
 */
#include <stdlib.h>
#include <string.h>

#include "debugfs.h"

/* Resolve "<dir>/<name>" for a command that writes: open read-write, the
 * parent found.  Returns 1 (message printed) on failure. */
static int rw_parent(const char *cmd, const char *path, e4_ino_t *dir, char *name)
{
	if (check_fs_read_write(cmd))
		return 1;
	return parse_parent(cmd, path, dir, name, EXT4_NAME_LEN + 1);
}

/* A command "<name> <path>" running op on the path's parent and name;
 * what names the action in the error message. */
typedef errcode_t (*path_op)(e4_ino_t dir, const char *name, size_t len);
static int path_cmd(int argc, char **argv, path_op op, const char *what)
{
	char name[EXT4_NAME_LEN + 1];
	e4_ino_t dir;
	errcode_t err;

	if (argc != 2)
		return usage(argv[0], NULL);
	if (rw_parent(argv[0], argv[1], &dir, name))
		return 1;
	err = op(dir, name, strlen(name));
	if (err) {
		com_err(argv[0], err, "while %s %s%s", what, argv[1],
			err == E4_ERR_IS_DIR ? " (rmdir removes directories)" : "");
		return 1;
	}
	return 0;
}

static errcode_t op_mkdir(e4_ino_t dir, const char *name, size_t len)
{
	struct e4_op_attr a;

	now_attr(&a, 0755);
	return e4_op_mkdir(current_fs, dir, name, len, &a, NULL);
}

static errcode_t op_rmdir(e4_ino_t dir, const char *name, size_t len)
{
	return e4_op_rmdir(current_fs, dir, name, len);
}

/* rm: the entry removed, the inode freed at its last link (unlink(2)). */
static errcode_t op_rm(e4_ino_t dir, const char *name, size_t len)
{
	return e4_op_unlink(current_fs, dir, name, len, 0, NULL);
}

/* unlink: the entry only; the inode and its link count are untouched. */
static errcode_t op_unlink(e4_ino_t dir, const char *name, size_t len)
{
	return e4_op_unlink(current_fs, dir, name, len, E4_OP_ENTRY_ONLY, NULL);
}

int do_mkdir(int argc, char **argv)
{
	return path_cmd(argc, argv, op_mkdir, "creating directory");
}

int do_rmdir(int argc, char **argv)
{
	return path_cmd(argc, argv, op_rmdir, "removing directory");
}

int do_rm(int argc, char **argv)
{
	return path_cmd(argc, argv, op_rm, "removing");
}

int do_unlink(int argc, char **argv)
{
	return path_cmd(argc, argv, op_unlink, "unlinking");
}

/* kill_file: the inode and its blocks freed; entries naming it stay. */
int do_kill_file(int argc, char **argv)
{
	e4_ino_t ino;
	errcode_t err;

	if (rw_inode_cmd(argc, argv, &ino))
		return 1;
	err = e4_op_release(current_fs, ino);
	if (err) {
		com_err(argv[0], err, "while freeing inode %u%s", ino,
			err == E4_ERR_INVALID_ARGUMENT ? " (a reserved inode)" : "");
		return 1;
	}
	return 0;
}

/* 1 if inode ino reads as a directory. */
static int is_dir_inode(e4_ino_t ino)
{
	union e4_inode_buf ib;

	return !e4_inode_read(current_fs, ino, &ib) && e4_is_dir(&ib.inode);
}

/* link/ln <source> <dest>: a new entry for source's inode, its link count
 * unchanged (as e2fsprogs).  dest naming a directory: the entry goes in
 * it under source's last component.  A directory as source is refused,
 * as link(2) does (EPERM): e2fsck flags every directory hard link. */
int do_link(int argc, char **argv)
{
	char name[EXT4_NAME_LEN + 1];
	const char *sep = "", *in = "";
	e4_ino_t ino, dir;
	errcode_t err;

	if (argc != 3)
		return usage(argv[0], NULL);
	if (check_fs_read_write(argv[0]) || parse_inode(argv[0], argv[1], &ino))
		return 1;
	if (is_dir_inode(ino)) {
		com_err(argv[0], E4_ERR_IS_DIR, "- %s: a directory cannot have another "
			"hard link (link(2) refuses it)", argv[1]);
		return 1;
	}
	if (!e4_namei(current_fs, root_ino, cwd_ino, argv[2], 1, &dir) &&
	    is_dir_inode(dir)) {
		const char *base = strrchr(argv[1], '/');
		size_t n = strlen(argv[2]);

		base = base ? base + 1 : argv[1];
		if (!*base || strlen(base) > EXT4_NAME_LEN) {
			com_err(argv[0], E4_ERR_INVALID_ARGUMENT, "- no name in %s", argv[1]);
			return 1;
		}
		strcpy(name, base);
		sep = n && argv[2][n - 1] == '/' ? "" : "/";
		in = name;	/* the message names the entry made: dest/name */
	} else if (rw_parent(argv[0], argv[2], &dir, name)) {
		return 1;
	}
	err = e4_op_link(current_fs, dir, name, strlen(name), ino, E4_OP_ENTRY_ONLY);
	if (err) {
		com_err(argv[0], err, "while linking %s%s%s to %s", argv[2], *in ? sep : "", in,
			argv[1]);
		return 1;
	}
	{
		int used = 1;

		/* made as asked (a debugging tool), but said */
		if (!e4_test_inode(current_fs, ino, &used) && !used)
			com_err(argv[0], 0, "warning: inode %u is not in use", ino);
	}
	return 0;
}

int do_symlink(int argc, char **argv)
{
	char name[EXT4_NAME_LEN + 1];
	struct e4_op_attr a;
	e4_ino_t dir;
	errcode_t err;

	if (argc != 3)
		return usage(argv[0], NULL);
	if (rw_parent(argv[0], argv[1], &dir, name))
		return 1;
	now_attr(&a, 0777);
	err = e4_op_symlink(current_fs, dir, name, strlen(name), argv[2], strlen(argv[2]), &a,
			    NULL);
	if (err) {
		com_err(argv[0], err, "while creating symlink %s%s", argv[1],
			err != E4_ERR_INVALID_ARGUMENT ? "" : !*argv[2] ?
			" (the target is empty: symlink(2) refuses it, ENOENT)" :
			" (the target must be shorter than a block)");
		return 1;
	}
	return 0;
}

/* mknod <path> p | c|b <major> <minor>.  The new inode's permission bits
 * are 0, as e2fsprogs' debugfs makes them (sif mode changes them). */
int do_mknod(int argc, char **argv)
{
	char name[EXT4_NAME_LEN + 1];
	unsigned long long major = 0, minor = 0;
	struct e4_op_attr a;
	uint16_t type;
	e4_ino_t dir, ino;
	errcode_t err;

	if (argc < 3 || strlen(argv[2]) != 1)
		return usage(argv[0], NULL);
	switch (argv[2][0]) {
	case 'p':
		type = EXT4_S_IFIFO;
		if (argc != 3)
			return usage(argv[0], NULL);
		break;
	case 'c':
	case 'b':
		type = argv[2][0] == 'c' ? EXT4_S_IFCHR : EXT4_S_IFBLK;
		if (argc != 5)
			return usage(argv[0], NULL);
		if (parse_number(argv[0], argv[3], "major number", 4095, &major) ||
		    parse_number(argv[0], argv[4], "minor number", (1u << 20) - 1, &minor))
			return 1;
		break;
	default:
		return usage(argv[0], NULL);
	}
	if (rw_parent(argv[0], argv[1], &dir, name))
		return 1;
	now_attr(&a, 0);
	err = e4_op_mknod(current_fs, dir, name, strlen(name), type, (uint32_t)major,
			  (uint32_t)minor, &a, &ino);
	if (err) {
		com_err(argv[0], err, "while creating %s", argv[1]);
		return 1;
	}
	printf("Allocated inode: %u\n", ino);
	return 0;
}
