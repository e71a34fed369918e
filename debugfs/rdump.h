/*
 * rdump.h: what the two halves of e4debugfs's rdump share: the walk
 * (cmd_rdump.c), which reads the filesystem through libe4 and queues
 * operations, and the writing (rdump_write.c), which carries them out in
 * writer threads (or at once in the walking thread) on the host's
 * filesystem.  Private to those two files.
 */
#ifndef E4DEBUGFS_RDUMP_H
#define E4DEBUGFS_RDUMP_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "debugfs.h"

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
	struct e4_bmap *dumped;	/* directory inodes dumped by this argument */
	int is_root;
	e4_io *io;
	int writer_reads;	/* writers read file data (cmd_rdump.c walk_file) */
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

/* ---- rdump_write.c ------------------------------------------------------ */
/* Count a failure (any thread). */
void rdump_count_error(struct rdump_ctx *ctx);
/* "dir/name" for messages, malloc'd (NULL if memory is short). */
char *rdump_shown_path(const struct rdir *d, const char *name);
/* "cmd: <err> <what> dir/name", counted. */
void rdump_report(struct rdump_ctx *ctx, errcode_t err, const char *what,
		  const struct rdir *d, const char *name);
/* "cmd: <err> while reading inode INO at byte OFF", counted. */
void rdump_read_error(struct rdump_ctx *ctx, errcode_t err, e4_ino_t ino, uint64_t off);
/* The name of entry name of d relative to d->base: name itself, or (d is
 * reached through an ancestor's descriptor) a copy to free with
 * rdump_rel_free; NULL with errno set on failure (too long: ENAMETOOLONG). */
const char *rdump_rel_get(const struct rdir *d, const char *name);
void rdump_rel_free(const char *rel, const char *name);
/* Close and free d, without metadata and without touching its parent. */
void rdump_dir_free(struct rdump_ctx *ctx, struct rdir *d);
/* Drop a reference on d; the last one gives the directory its metadata
 * (fix set), closes it and drops its reference on the parent. */
void rdump_dir_put(struct rdump_ctx *ctx, struct rdir *d);
/* Hand op (malloc'd, its directory's reference taken here) to its writer,
 * waiting while RDUMP_INFLIGHT bytes are queued; without writers, carry it
 * out at once. */
void rdump_submit(struct rdump_ctx *ctx, struct rop *op);
/* Wait until every queued operation is done. */
void rdump_drain(struct rdump_ctx *ctx);
/* Start n writers (fewer if threads cannot be made; 0: none) with their
 * lock, message hook and ctx->writer_reads; stop them after draining. */
void rdump_writers_start(struct rdump_ctx *ctx, int n);
void rdump_writers_stop(struct rdump_ctx *ctx);

#endif /* E4DEBUGFS_RDUMP_H */
