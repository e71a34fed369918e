/*
 * mkfs.h: e4mkfs internals shared by main.c (options, checks, messages),
 * writer.c (layout -> metadata on disk) and config.c (option helpers).
 */
#ifndef E4_MKFS_H
#define E4_MKFS_H

#include <stdint.h>
#include <stdio.h>
#include "e4.h"

struct mkfs {
	/* target */
	const char *device;
	uint64_t size_arg;		/* size argument: bytes (0: none) */
	int size_arg_blocks;		/* size argument given without a suffix */
	uint64_t size_arg_count;	/* its value then (blocks of -b, or 1 KiB) */
	struct e4_probe probe;
	int created;			/* the image file was created by us */
	uint64_t offset;		/* -E offset=: bytes before the filesystem */
	uint64_t orphan_size;		/* -E orphan_file_size=: blocks, or bytes
					   when orphan_size_bytes (a k/m/g suffix) */
	int orphan_size_bytes;

	/* layout */
	struct e4_layout_opts lo;
	struct e4_layout *l;

	/* superblock values */
	uint8_t uuid[16];
	uint8_t hash_seed[16];
	int have_hash_seed;
	char label[17];
	char last_mounted[65];
	int errors;			/* s_errors; 0: default (continue) */
	int creator_os;			/* EXT4_OS_* */
	uint32_t root_uid, root_gid;
	int test_fs;
	int64_t now;			/* seconds */
	uint32_t default_mntopts;
	int periodic_fsck;		/* profile enable_periodic_fsck */
	struct e4_profile *profile;	/* the configuration (built-in or a file) */
	int discard_set, lazy_itable_set, lazy_journal_set; /* given with -E */

	/* behaviour */
	int lazy_itable_init;		/* 1 default */
	int lazy_journal_init;		/* 0 default */
	int discard;			/* 1 default */
	int noaction;			/* -n */
	int quiet;			/* -q */
	int verbose;			/* -v */
	int force;			/* -F count */
	int super_only;			/* -S */
	int tty;			/* stdin and stdout are terminals */
	const char *prog;

	/* -d: populate */
	const char *pop_source;		/* -d's value (NULL: none) */
	int pop_repro;			/* UUID, seed, times from poprepro.c */
	int root_owner_set;		/* -E root_owner= given */
	int root_perms;			/* -E root_perms=: 07777 bits, -1: none */
	char *root_selinux;		/* -E root_selinux=: the root's label (malloc'd) */
	int no_copy_xattrs;		/* -E no_copy_xattrs */
	unsigned pop_margin;		/* -E populate_margin=: percent */
	int pop_autosize;		/* size the new image from the source */

	/* result of the discard step */
	int zeroed;			/* the target reads back zeros */
	uint64_t bytes_written;		/* for s_kbytes_written */
};

#define EXT4_OS_LINUX	0
#define EXT4_OS_HURD	1
#define EXT4_OS_MASIX	2
#define EXT4_OS_FREEBSD	3
#define EXT4_OS_LITES	4

/* writer.c: write the filesystem m->l describes to m->device.  Prints
 * progress unless quiet; returns 0 or an errcode (message printed). */
int mkfs_write(struct mkfs *m);
/* writer.c: the superblock for m->l (on-disk order). */
void mkfs_build_super(struct mkfs *m, struct ext4_super_block *sb);

struct pop_src;
/* populate.c: copy src into the filesystem mkfs_write() made on
 * m->device.  0, or -1 with one message naming the path or member; then
 * nothing that passes as a filesystem is left (a created image removed,
 * else every superblock copy zeroed). */
int mkfs_populate(struct mkfs *m, struct pop_src *src);
/* populate.c: without -d, -E root_selinux= on the filesystem
 * mkfs_write() made: 0, or -1 with a message. */
int mkfs_root_label(struct mkfs *m);
/* populate.c: open m->pop_source (messages printed); 0 or -1. */
int mkfs_pop_open(struct mkfs *m, struct pop_src **src);
/* populate.c: with m->l computed for a provisional size, set m->lo's
 * block size, blocks_count and (unless given) inodes_count to the
 * smallest that holds src with m->pop_margin percent more (popsize.h).
 * 0 or -1 (message printed). */
int mkfs_pop_fit(struct mkfs *m, struct pop_src *src);

/* config.c: option helpers. */
/* Parse "123", "4k", "10M", "1g", "2t" (suffix = bytes, binary); *bytes
 * set when a suffix was given, else *count.  Returns 0 or -1. */
int mkfs_parse_size(const char *s, uint64_t *count, int *has_suffix);
/* Parse a UUID string (any case, with dashes).  0 or -1. */
int mkfs_parse_uuid(const char *s, uint8_t out[16]);
/* -r / -E revision=: "0" or "1" into m->lo.good_old_rev; prints its
 * own error; 0 or -1. */
int mkfs_parse_revision(struct mkfs *m, const char *v);
/* Apply one -E list to m; prints its own errors; 0 or -1. */
int mkfs_parse_extended(struct mkfs *m, const char *list);
/* Read E4MKFS_CONFIG / MKE2FS_CONFIG if set (else the built-in profile)
 * into m->profile and m->lo.profile; 0, or -1 with a message. */
int mkfs_read_config(struct mkfs *m);
/* Apply the profile's values for the chosen types (m->l) to what the
 * command line left unset: errors behaviour, default mount options,
 * periodic fsck, lazy init, discard.  0, or -1 with a message. */
int mkfs_apply_profile(struct mkfs *m);

#endif
