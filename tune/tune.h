/*
 * tune.h: e4tune, change the settings of an ext2/ext3/ext4 filesystem.
 * Options are spelled as tune2fs spells them.
 */
#ifndef E4TUNE_H
#define E4TUNE_H

#include <stdint.h>
#include <stdio.h>

#include "e4.h"

struct tune {
	const char *prog;
	const char *device;
	e4_fs *fs;
	int tty;			/* stdin and stdout are terminals */
	int force;			/* -f (count) */

	/* parsed options; *_flag = given */
	int c_flag, C_flag, e_flag, g_flag, i_flag, m_flag, r_flag;
	int T_flag, u_flag, L_flag, M_flag, U_flag, l_flag, json;
	long max_mnt_count;		/* -c (65536: random) */
	unsigned long mnt_count;	/* -C */
	unsigned errors;		/* -e: 1 continue, 2 remount-ro, 3 panic */
	unsigned long resgid, resuid;	/* -g, -u */
	uint64_t interval;		/* -i, seconds */
	double reserved_ratio;		/* -m, percent */
	uint64_t reserved_blocks;	/* -r */
	int64_t last_check;		/* -T */
	const char *label;		/* -L */
	const char *last_mounted;	/* -M */
	const char *uuid;		/* -U */
	const char *mntopts;		/* -o */
	const char *features;		/* -O */
	const char *extended;		/* -E */
	int journal;			/* -j or -J size= or -O has_journal */
	uint64_t journal_mb;		/* -J size= in MiB, 0: default */

	/* -E results */
	int stride_set, stripe_set, hash_set, test_fs; /* test_fs: 1 set, -1 clear */
	unsigned long stride, stripe_width;
	int hash_alg;
	char *ext_mount_opts;
	int force_fsck;

	/* -o: default mount option bits to set and clear, and the journal
	 * extensions (1 on, -1 off, 0 untouched) */
	uint32_t mntopt_set, mntopt_clear;
	int async_commit, jcsum;

	int sb_dirty;			/* superblock changed: write it */
	int gdt_dirty;			/* descriptors changed: write the GDT */
	FILE *json_out;			/* --json: the real stdout (see main.c) */
};

/* main.c */
/* e4tune's whole run on a command line: the exit status.  Callable again
 * in the same process (main() is a wrapper): nothing is left open. */
int e4tune_run(int argc, char **argv);
void tune_err(struct tune *t, errcode_t err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "prog: device: warning: ..." on stderr; the change goes on. */
void tune_warn(struct tune *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int tune_write_super(struct tune *t);
int tune_reopen(struct tune *t);
int tune_fsck_fresh(e4_fs *fs);
/* 0 when tune_fsck_fresh(), else 1 with a message: what (e.g. "enabling
 * metadata_csum") needs a freshly checked filesystem, and how to get one. */
int tune_require_fresh(struct tune *t, const char *what);
/* Rewrite every checksum under the in-memory superblock (superblock
 * written last), then reopen; why ("for the new UUID") goes into the
 * error message.  0 or 1 (message printed). */
int tune_csum_rewrite(struct tune *t, const char *why);
/* Open the device (rw: read-write, crash points installed); 0 or 1
 * (message printed). */
int tune_open_fs(struct tune *t, int rw);
/* Every refusal, before anything is written: settings, -o, -O, the mount
 * option combination, -U's argument.  0 or 1 (message printed). */
int tune_check_all(struct tune *t);
/* -r against the blocks count; 0 or 1 (message printed). */
int tune_check_settings(struct tune *t);
/* The superblock settings (-c -C -e -g -i -m -r -T -u -L -M) and -E's,
 * made in t->fs's superblock in memory, with tune2fs's messages. */
void tune_apply_settings(struct tune *t);
void tune_apply_extended(struct tune *t);
/* -U's argument: random, time, clear/null or a UUID; 0 or -1. */
int tune_parse_uuid(const char *s, uint8_t out[16]);
int tune_recover_if_needed(struct tune *t);

/* features.c: -O.  check: the refusals only (nothing written); both
 * return 0 or the exit status. */
int tune_features_check(struct tune *t);
/* The feature words (compat, incompat, ro_compat) -O leaves; 0 or 1
 * (message printed). */
int tune_features_after(struct tune *t, uint32_t f[3]);
int tune_features(struct tune *t);

/* journal.c */
/* -o, with the journal_async_commit / journal_checksum extensions:
 * parse (before opening; exit status), check (refusals, nothing written),
 * apply (writes the journal superblock; the fs superblock is left dirty). */
int tune_mntopts_parse(struct tune *t);
int tune_mntopts_check(struct tune *t);
int tune_mntopts_apply(struct tune *t);
/* The default mount options, mount options string and journal this
 * command leaves: refused (1, message printed) when it changes one of
 * them and Linux would refuse to mount the result (e4_mntopt_conflict). */
int tune_mount_combo_check(struct tune *t);
int tune_journal_add(struct tune *t);
int tune_journal_remove(struct tune *t);
/* Before -O ^has_journal (nothing written): a damaged journal superblock
 * or a log with transactions is refused without -f, warned about with it.
 * 0 or 1 (message printed). */
int tune_journal_remove_check(struct tune *t);
/* Before any change (nothing written): an internal journal whose log is
 * not empty while needs_recovery is clear is refused, naming the replay;
 * -f -O ^has_journal discards it with a warning.  0 or 1 (message
 * printed). */
int tune_journal_log_check(struct tune *t);

/* online.c: the device is in use (mounted directly or through a loop
 * device): the changes the kernel can make go through it, the others are
 * refused.  Returns the exit status. */
int tune_online(struct tune *t, const struct e4_probe *p);

/* list.c: -l (and --json) */
int tune_list(struct tune *t);

#endif
