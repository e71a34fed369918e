/*
 * popsrc_int.h: the catalogue behind popsrc.h, shared by popsrc.c (order
 * and walk), popsrc_dir.c and popsrc_tar.c (the two readers).
 */
#ifndef E4_POPSRC_INT_H
#define E4_POPSRC_INT_H

#include <stdarg.h>
#include "e4.h"
#include "popsrc.h"

#define POP_NONE	UINT32_MAX
#define POP_XBUF	65536

/* One path of the source. */
struct pop_node {
	uint64_t size;
	uint64_t spool;		/* archive: spool offset of the first data byte */
	uint64_t dev, ino;	/* directory: identity (link groups, checks) */
	struct pop_time t[4];	/* atime, mtime, ctime, crtime */
	uint64_t name_off, target_off;	/* in the arena */
	uint32_t name_len, target_len;
	uint32_t parent;
	uint32_t kid_first, nkids;	/* scan: first child, then siblings by
					   next; after pop_finish: range of kids[] */
	uint32_t next;
	uint32_t xa_first, nxa;		/* in xas[] */
	uint32_t seg_first, nseg;	/* in segs[] */
	uint32_t mode, uid, gid, major, minor;
	uint32_t holder;	/* the node whose inode this path names (metadata,
				   data): itself unless a later hard link */
	uint32_t order;		/* stream index */
	uint32_t group, nlink;	/* stream index of the group's first entry */
	uint32_t stnlink;	/* directory source: st_nlink */
	uint8_t type, has_cr, implicit;
};

/* A hard-linked inode of a directory source (st_nlink > 1). */
struct pop_lnk {
	uint64_t dev, ino;
	uint32_t nlink;		/* its paths in the tree; 0: a free slot */
	uint32_t group;		/* stream index of its first path in this walk */
};

struct pop_xa {
	uint64_t name_off, val_off;
	uint32_t len;
};

struct pop_src {
	int archive;
	struct pop_opts opts;
	char *spec;
	char err[1024];

	struct pop_node *nodes;
	uint32_t nnodes, cnodes;
	char *arena;
	uint64_t alen, acap;
	struct pop_xa *xas;
	uint32_t nxas, cxas;
	struct pop_seg *segs;
	uint32_t nsegs, csegs;
	uint32_t *kids;		/* children of each directory, sorted */
	uint32_t *by_order;	/* node of each stream index */
	uint32_t *dirs, ndirs;	/* directories in the order they are listed */

	/* scratch, so that several sources can be read at once */
	char *xbuf;			/* POP_XBUF: an attribute value, a target */
	struct e4_acl_entry *acl;	/* E4_ACL_MAX_ENTRIES */
	uint8_t *aclbuf;		/* 4 + 8 * E4_ACL_MAX_ENTRIES */

	/* lookup by (parent, name): archives */
	uint32_t *hash;
	uint32_t hcap;

	/* directory source: streamed (popsrc_dir.c), no catalogue */
	int rootfd;
	int walk_dirfd;		/* the directory being listed by pop_walk */
	int cur_fd;		/* data of the entry being delivered */
	uint32_t cur_node;	/* archives: its node; directories: its index */
	int dir_checked;	/* pop_open's walk done: later walks verify */
	uint32_t dir_count;	/* entries (the root included) */
	uint64_t dir_bytes;	/* data bytes (each inode once) */
	uint32_t *chk, cchk;	/* check word of each entry, by stream index */
	uint8_t *hasxa;		/* bit per entry: pop_open's walk listed attributes */
	int xa_listed;		/* the last read_xattrs() listed some */
	struct pop_lnk *lnk;	/* hard-linked inodes, open addressing */
	uint32_t nlnk, clnk;

	/* archive source */
	int spool_fd;
	uint64_t spool_len;
};

/* popsrc.c: catalogue helpers */
int pop_fail(struct pop_src *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A new node (zeroed, parent set, not linked into the parent) or POP_NONE
 * (message set). */
uint32_t pop_node_new(struct pop_src *s, uint32_t parent, const char *name, size_t len);
/* Link node n as a child of its parent (scan order). */
void pop_node_link(struct pop_src *s, uint32_t n);
/* Copy len bytes into the arena; its offset, or UINT64_MAX (message set). */
uint64_t pop_arena_put(struct pop_src *s, const void *p, size_t len);
/* Append a segment / an attribute to node n (last node written); -1 on
 * memory. */
int pop_seg_add(struct pop_src *s, uint32_t n, uint64_t off, uint64_t len);
int pop_xa_add(struct pop_src *s, uint32_t n, const char *name, const void *val, size_t len);
/* Sort node n's attributes by name, later duplicates winning; system.
 * posix_acl_* values converted from the VFS encoding (-1 with a message
 * naming what for an invalid one); an access ACL equal to the mode dropped. */
int pop_xa_finish(struct pop_src *s, uint32_t n, const char *what);
/* The metadata of node h into e (type, mode, owner, times, device,
 * target, size, attributes in *xa grown to *cxa); -1 on memory. */
int pop_entry_meta(struct pop_src *s, const struct pop_node *h, struct pop_entry *e,
		   struct pop_xattr **xa, uint32_t *cxa);
/* The relative path of node n into buf (size len), "" for the root. */
void pop_node_path(const struct pop_src *s, uint32_t n, char *buf, size_t len);
/* Archives: the child of parent named name, or POP_NONE; insert n. */
uint32_t pop_lookup(struct pop_src *s, uint32_t parent, const char *name, size_t len);
int pop_hash_insert(struct pop_src *s, uint32_t n);

/* popsrc_dir.c / popsrc_tar.c */
/* pop_dir_scan: pop_open's checking walk; pop_dir_walk: pop_walk of a
 * directory; pop_dir_read: pop_read of the entry being delivered. */
int pop_dir_scan(struct pop_src *s);
int pop_dir_walk(struct pop_src *s, const struct pop_ops *ops, void *arg);
int pop_dir_read(struct pop_src *s, const struct pop_entry *e, uint64_t off, void *buf,
		 size_t len);
int pop_tar_scan(struct pop_src *s);
int pop_tar_read(struct pop_src *s, uint32_t holder, uint64_t off, void *buf, size_t len);

#endif
