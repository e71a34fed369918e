/*
 * popsrc.h: the source of e4mkfs -d: a directory or a tar archive
 * delivered as one stream of entries in an order that depends on nothing
 * but the content.  An archive is read once into a catalogue (popsrc.c:
 * catalogue, order, walk; popsrc_tar.c: libarchive); a directory is
 * streamed, read again by each walk one directory at a time (popsrc_dir.c:
 * memory for the directories on the current path only; pop_open's walk
 * checks it and later walks fail if it changed).  popsize.c: size
 * estimate; poprepro.c: reproducible UUID, hash seed and times.
 *
 * The stream.  Entry 0 is the root.  Then, for each directory D taken in
 * stream order (root first): D's children, sorted by name bytes
 * (memcmp, a prefix before its extensions), then dir_end(D); the
 * children of D's subdirectories follow, depth first:
 *     "" ; a/ b c/ ; end("") ; a/x a/y/ ; end(a) ; a/y/... ; end(a/y) ;
 *     c/... ; end(c)
 * So every directory comes before its contents, and a directory's whole
 * listing (names, types, link counts) is known at its dir_end, where a
 * writer can build its blocks at once (the bulk htree builder).  Nothing
 * depends on readdir order, the source's inode numbers or the archive's
 * member order.
 *
 * Hard links: entries that name one inode (same (st_dev, st_ino) in a
 * directory, tar hardlink members) form a link group; link_group is the
 * index of the group's first entry in the stream, which alone carries the
 * data segments; nlink counts the group's entries (links from outside
 * the tree are not counted).
 *
 * Limits, checked while reading (before anything is written): a name of
 * at most 255 bytes (ext4's), a relative path of at most POP_PATH_MAX
 * bytes.
 *
 * Errors: functions return 0 or -1; pop_error() then gives one line
 * naming the source path or the archive member and the cause.
 */
#ifndef E4_POPSRC_H
#define E4_POPSRC_H

#include <stddef.h>
#include <stdint.h>

#define POP_NAME_MAX	255
#define POP_PATH_MAX	4095

enum pop_type {
	POP_REG = 1, POP_DIR, POP_SYMLINK, POP_CHR, POP_BLK, POP_FIFO, POP_SOCK
};

struct pop_time {
	int64_t sec;		/* seconds since 1970 (may be negative) */
	uint32_t nsec;		/* 0 .. 999999999 */
};

/* A run of file data: bytes [off, off + len) hold data; the rest of the
 * file up to its size reads as zeros (holes). */
struct pop_seg {
	uint64_t off, len;
};

/* One extended attribute: the full name ("user.x", "security.selinux",
 * "system.posix_acl_access") and the value as the filesystem stores it.
 * POSIX ACLs are already in ext4's compact encoding (acl.h); an access
 * ACL equivalent to the mode is dropped, as the kernel does. */
struct pop_xattr {
	const char *name;		/* NUL-terminated */
	const uint8_t *value;
	uint32_t len;
};

struct pop_entry {
	uint32_t index;		/* position in the stream; the root is 0 */
	uint32_t parent;	/* index of the parent directory (root: 0) */
	const char *path;	/* relative path, bytes, "" for the root; valid
				   during the callback */
	const char *name;	/* last component, name_len bytes; valid until
				   the dir_end of its directory (a writer
				   can list it without a copy) */
	uint32_t name_len;
	enum pop_type type;
	uint32_t mode;		/* permission bits with 07000 (no type bits) */
	uint32_t uid, gid;
	struct pop_time atime, mtime, ctime, crtime;
	int has_crtime;		/* crtime comes from the source */
	uint32_t rdev_major, rdev_minor;	/* POP_CHR, POP_BLK */
	const char *target;	/* POP_SYMLINK: target bytes (not NUL-terminated) */
	uint32_t target_len;
	const struct pop_xattr *xattrs;	/* sorted by name bytes, names unique */
	uint32_t nxattrs;
	uint32_t link_group;	/* non-directories: index of the first entry of
				   the inode's link group (its own when first) */
	uint32_t nlink;		/* directories: 2 + subdirectories; others: the
				   entries of the link group */
	uint32_t nchildren;	/* directories: entries listed in it */
	uint64_t size;		/* bytes (regular files; symlinks: target_len) */
	const struct pop_seg *segs;	/* POP_REG data runs, ascending, within
					   size; none for later group members */
	uint32_t nsegs;
};

struct pop_src;

/* What to read (pop_open) */
struct pop_opts {
	int64_t default_time;	/* seconds: times of the directories an archive
				   implies without a member (mode 0755, root) */
	int no_xattrs;		/* -E no_copy_xattrs: no attributes at all */
	const char *tmpdir;	/* archives: where the data is spooled (NULL:
				   $TMPDIR, else /tmp) */
};

/* Open spec: a directory (walked whole once to check it and count it:
 * every entry stated, attributes read, regular files' data runs found
 * with SEEK_DATA/SEEK_HOLE; nothing kept but a check word per entry and
 * the hard-linked inodes; data read during the walks), or an archive file
 * or "-" (standard input), read through libarchive once: metadata into
 * memory, file data spooled to an unlinked temporary file.  0 and *ret,
 * or -1 with the message in err (errlen bytes). */
int pop_open(const char *spec, const struct pop_opts *o, struct pop_src **ret,
	     char *err, size_t errlen);
void pop_close(struct pop_src *s);
/* The last error: "PATH: cause" or "ARCHIVE: member NAME: cause". */
const char *pop_error(const struct pop_src *s);
/* 1 for an archive source, 0 for a directory. */
int pop_is_archive(const struct pop_src *s);
/* Entries in the stream (the root included). */
uint32_t pop_count(const struct pop_src *s);
/* Bytes of file data the stream delivers (its data runs; each inode
 * once): with pop_count(), the totals for progress reports. */
uint64_t pop_data_bytes(const struct pop_src *s);

struct pop_ops {
	/* Each entry once, in stream order.  Its data can be read with
	 * pop_read() during the call.  Nonzero stops the walk. */
	int (*entry)(void *arg, struct pop_src *s, const struct pop_entry *e);
	/* Directory dir's children were all delivered (may be NULL).  dir
	 * is its entry as delivered, but its attributes, target and data
	 * runs may be absent. */
	int (*dir_end)(void *arg, struct pop_src *s, const struct pop_entry *dir);
};

/* Deliver the stream.  0, a callback's nonzero value, or -1 (an error of
 * the source, pop_error()). */
int pop_walk(struct pop_src *s, const struct pop_ops *ops, void *arg);

/* Read len bytes at off of entry e's data (within one of its segments)
 * into buf; e is the entry being delivered.  0 or -1: a read error, or
 * the source file changed since pop_open (type, size or identity). */
int pop_read(struct pop_src *s, const struct pop_entry *e, uint64_t off, void *buf,
	     size_t len);

#endif
