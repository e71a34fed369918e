/*
 * debugfs.h: e4debugfs, an interactive ext2/ext3/ext4 filesystem debugger
 * built on libe4.  Shared declarations of the tool's modules.
 *
 * Every command handler has the form int do_xxx(int argc, char **argv):
 * argv[0] is the command name as typed; the return value is 0 on success
 * and nonzero on failure (a failed command makes a -R / -f run exit 1).
 * Handlers print their own errors with com_err(argv[0], code, ...).
 */
#ifndef E4DEBUGFS_H
#define E4DEBUGFS_H

#include <stdio.h>
#include <stdint.h>
#include <time.h>

#include "e4.h"

#define DEBUGFS_NAME	"e4debugfs"

/* ---- session state (debugfs.c) --------------------------------------- */
extern e4_fs *current_fs;	/* NULL while no filesystem is open */
extern e4_ino_t root_ino;	/* root for absolute paths */
extern e4_ino_t cwd_ino;	/* current directory for relative paths */
extern int current_catastrophic; /* opened with -c (bitmaps not read) */
extern int current_rw;		/* opened with -w */
/* What close writes (debugfs.c): the superblock (its checksum
 * recomputed, or kept as ssv checksum set it), the primary descriptors. */
void mark_super_dirty(void);
void mark_super_csum_kept(void);
void mark_gdt_dirty(void);

/* One row of the command table. */
struct dbg_cmd {
	const char *name;
	const char *alias;		/* NULL or a second name */
	int (*func)(int argc, char **argv);
	const char *usage;		/* arguments, for "Usage: name ..." */
	const char *help;		/* one line for "help" */
};

/* ---- commands --------------------------------------------------------- */
/* debugfs.c */
int do_open(int argc, char **argv);
int do_close(int argc, char **argv);
int do_quit(int argc, char **argv);
int do_help(int argc, char **argv);
/* cmd_super.c */
int do_stats(int argc, char **argv);
/* cmd_inode.c */
int do_stat(int argc, char **argv);
/* cmd_dir.c */
int do_ls(int argc, char **argv);
int do_cd(int argc, char **argv);
int do_pwd(int argc, char **argv);
/* cmd_dump.c */
int do_cat(int argc, char **argv);
int do_dump(int argc, char **argv);
/* cmd_rdump.c */
int do_rdump(int argc, char **argv);
/* cmd_journal.c */
int do_logdump(int argc, char **argv);
/* cmd_block.c */
int do_testb(int argc, char **argv);
int do_testi(int argc, char **argv);
int do_imap(int argc, char **argv);
int do_bmap(int argc, char **argv);
int do_blocks(int argc, char **argv);
int do_ffb(int argc, char **argv);
int do_ffi(int argc, char **argv);
int do_icheck(int argc, char **argv);
/* cmd_extent.c */
int do_dump_extents(int argc, char **argv);
int do_filefrag(int argc, char **argv);
/* cmd_htree.c */
int do_htree(int argc, char **argv);
int do_dx_hash(int argc, char **argv);
int do_dirsearch(int argc, char **argv);
int do_ncheck(int argc, char **argv);
/* cmd_xattr.c */
int do_ea_list(int argc, char **argv);
int do_ea_get(int argc, char **argv);
/* e4_xattr_iterate() callback printing "Extended attributes:" before the
 * first one, then "  name (len) = value" lines (priv: unsigned counter). */
int xattr_list_cb(e4_fs *fs, const struct e4_xattr *x, void *priv);
/* cmd_misc.c */
int do_block_dump(int argc, char **argv);
int do_lsdel(int argc, char **argv);
int do_supported_features(int argc, char **argv);
/* cmd_set.c */
int do_set_super(int argc, char **argv);
int do_set_inode(int argc, char **argv);
int do_set_bg(int argc, char **argv);
/* cmd_write.c */
int do_clri(int argc, char **argv);
int do_freei(int argc, char **argv);
int do_seti(int argc, char **argv);
int do_freeb(int argc, char **argv);
int do_setb(int argc, char **argv);
int do_feature(int argc, char **argv);
int do_dirty(int argc, char **argv);
int do_set_current_time(int argc, char **argv);
int do_ea_set(int argc, char **argv);
int do_ea_rm(int argc, char **argv);
/* cmd_write_ns.c */
int do_mkdir(int argc, char **argv);
int do_rmdir(int argc, char **argv);
int do_rm(int argc, char **argv);
int do_kill_file(int argc, char **argv);
int do_link(int argc, char **argv);
int do_unlink(int argc, char **argv);
int do_symlink(int argc, char **argv);
int do_mknod(int argc, char **argv);
/* cmd_write_file.c */
int do_write(int argc, char **argv);
int do_copy_inode(int argc, char **argv);
int do_expand_dir(int argc, char **argv);
int do_punch(int argc, char **argv);
int do_fallocate(int argc, char **argv);
/* cmd_misc.c */
int do_inode_dump(int argc, char **argv);

/* cmd_journal_write.c */
int do_journal_open(int argc, char **argv);
int do_journal_write(int argc, char **argv);
int do_journal_close(int argc, char **argv);
int do_journal_run(int argc, char **argv);
/* Close the journal jo opened, if any (what jc does; the filesystem's
 * close calls it first).  Prints the error under cmd; 0 or 1. */
int journal_write_close(const char *cmd);
/* 1 while jo has a journal open for writing transactions. */
int journal_write_is_open(void);
/* debugfs.c: close the open filesystem (writing what changed) and open it
 * again as it was opened (after jr replayed a journal into it: cached
 * descriptors and bitmaps are stale).  Prints errors; 0 or 1. */
int reopen_filesystem(const char *who);

/* ---- helpers (util.c) ------------------------------------------------- */
/* Print "cmd: Filesystem not open" and return 1 when no fs is open. */
int check_fs_open(const char *cmd);
/* Print "cmd: Filesystem opened read/only" and return 1 unless the open
 * filesystem was opened with -w (and "Filesystem not open" without one). */
int check_fs_read_write(const char *cmd);
/* "now" for the commands: set_current_time's value, else the clock. */
int64_t debugfs_now(void);
/* Options for e4_field_parse_set() and its callers: "now", UUIDs. */
const struct e4_field_opts *debugfs_field_opts(void);
/* Print "Usage: cmd args" to stderr; returns 1 (for "return usage(...)"). */
int usage(const char *cmd, const char *args);
/* Reset getopt() before a command parses its options. */
void reset_getopt(void);

/* Parse an inode argument: "<N>" (an inode number) or a path, absolute
 * or relative to cwd_ino; the last component is not followed.  Prints the
 * error under cmd's name and returns 1 on failure. */
int parse_inode(const char *cmd, const char *arg, e4_ino_t *ino);
/* Same, following a final symlink. */
int parse_inode_follow(const char *cmd, const char *arg, e4_ino_t *ino);
/* Split path at its last '/': the directory part resolved (absolute or
 * relative to cwd_ino, symlinks followed; none: cwd_ino) into *dir, the
 * last component copied into name (name_size bytes).  A path ending in
 * '/', "." or "..", or a name that does not fit, is refused.  Prints the
 * error under cmd's name and returns 1 on failure. */
/* Open a native file that a command reads: a regular file (or, unless
 * regular_only, a device), never blocking (a fifo or socket is refused,
 * one line printed).  The descriptor (with fp: also as *fp, which owns
 * it), or -1 with the message printed. */
int open_input(const char *cmd, const char *path, int regular_only, FILE **fp);
int parse_parent(const char *cmd, const char *path, e4_ino_t *dir, char *name,
		 size_t name_size);
/* "cmd <inode>" of a command that writes: argc checked (usage printed),
 * open read-write, the inode parsed.  Returns 1 (message printed) on
 * failure. */
int rw_inode_cmd(int argc, char **argv, e4_ino_t *ino);
/* Attributes of a new inode made by a command: perm, root, the time
 * debugfs_now() (set_current_time's value), nanoseconds 0. */
void now_attr(struct e4_op_attr *a, uint16_t perm);

#define READ_INODE_WARN_CSUM	0x1	/* checksum mismatch: warn, succeed */
/* Read inode ino; prints the error and returns 1 on failure.  With
 * READ_INODE_WARN_CSUM a checksum mismatch only warns (buffer filled). */
int read_inode(const char *cmd, e4_ino_t ino, union e4_inode_buf *buf, int flags);

/* Parse an unsigned number (decimal, 0x hex, 0 octal); prints
 * "cmd: Bad <what> - <str>" and returns 1 on error. */
int parse_number(const char *cmd, const char *str, const char *what,
		 unsigned long long max, unsigned long long *val);

/* ctime()-style "Mon Nov 30 06:05:51 2026" (local time, no newline);
 * a static buffer. */
const char *time_ctime(int64_t sec);
/* "2026-11-30 06:05:51" (local time) into buf (>= 40 bytes). */
const char *time_iso(int64_t sec, char *buf, size_t len);

/* "regular", "directory", ... for an i_mode. */
const char *inode_type_name(uint16_t mode);
/* Lower-case UUID text (36 chars + NUL); "<none>" if all zero and
 * none_if_null is set. */
const char *uuid_string(const uint8_t uuid[16], char *buf, int none_if_null);

/* Absolute path of directory ino (walks ".." up to the root) into buf.
 * Returns 0, or an errcode (the buffer then holds a best effort). */
errcode_t dir_pathname(e4_ino_t ino, char *buf, size_t len);

/* A problem that does not fail the command (the rest of its output was
 * printed): "cmd: warning: <message of err> <fmt...>" on stderr, after
 * flushing stdout. */
void warn_err(const char *cmd, errcode_t err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Print name (len bytes, may hold any byte) as is. */
void print_raw_name(FILE *f, const char *name, size_t len);

/* ---- copying data out (cmd_dump.c; used by cmd_rdump.c) --------------- */
/* What an output file gets from its inode. */
struct dump_meta {
	uint32_t mode;		/* permission bits: i_mode & 0777 */
	uint32_t uid, gid;
	uint32_t atime, mtime;	/* the 32-bit seconds fields, as unsigned */
};
void dump_meta_of(const struct ext4_inode *inode, struct dump_meta *m);
#define DUMP_KEEP_MODE	0x1	/* dump_set_perms: the mode is right already */
#define DUMP_KEEP_OWNER	0x2	/* the owner is right (or not ours to set) */
/* Give an output file m's mode, owner and times (whole seconds): through
 * fd if fd >= 0, else (dirfd, name), following symlinks.  Prints each
 * failure naming "shown_dir/shown" (shown alone if shown_dir is NULL);
 * returns 0 or 1. */
int dump_set_perms(const char *cmd, const struct dump_meta *m, int fd, int dirfd,
		   const char *name, const char *shown_dir, const char *shown,
		   unsigned keep);
/* Write len bytes of buf at byte off of fd, leaving all-zero 64 KiB pieces
 * as holes; *end = past the last byte written.  0 or an errno. */
int dump_write_sparse(int fd, const char *buf, size_t len, uint64_t off, uint64_t *end);

#endif /* E4DEBUGFS_H */
