/*
 * cmd_journal_write.c: writing jbd2 transactions by hand, with the
 * reference debugfs's commands and options (e2fsprogs 1.47): journal_open
 * (jo) [-c] [-v version] [-f external_journal], journal_write (jw)
 * [-b blocks] [-r revoke] [-c] [file], journal_close (jc), journal_run
 * (jr) [-f external_journal].  The log itself is libe4's (jwrite.h); this
 * file only parses and reports.
 *
 * As the reference does: jo sets the journal's 64-bit feature on a 64bit
 * filesystem; -c sets checksums, v3 (or -v 2) with metadata_csum and v1
 * (a crc32 commit checksum) without it; each jw is one transaction, its
 * blocks' contents read one block at a time from file; jw -c writes it
 * without a commit block (the next jw is written over it).  jr replays
 * the log through the library's recovery, as e4fsck does, and opens the
 * filesystem again.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debugfs.h"
#include "jwrite.h"

static e4_jwrite *jw;		/* the open journal, or NULL */
static char *jw_ext;		/* its external journal device, or NULL */

struct block_range {
	uint64_t a, b;			/* first and last block, inclusive */
};

/* Parse "N", "A-B" and comma lists of them ("259-4356", "300,301,7-9")
 * into *list (ranges of filesystem block numbers, not expanded: a range
 * costs the same whatever its length).  A block at or past the end of
 * the filesystem is refused here, before anything is written (the
 * reference's "Illegal block number").  Prints the error; 0 or 1. */
static int parse_block_list(const char *cmd, const char *str, struct block_range **list, size_t *n)
{
	uint64_t nblocks = e4_geom(current_fs)->blocks_count;
	char *copy = strdup(str), *save = NULL, *tok;
	int rc = 0;

	if (!copy)
		return 1;
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		unsigned long long a, b;
		struct block_range *nl;
		char *dash = strchr(tok, '-');

		if (dash)
			*dash = 0;
		rc = parse_number(cmd, tok, "block number", UINT64_MAX, &a);
		b = a;
		if (!rc && dash)
			rc = parse_number(cmd, dash + 1, "block number", UINT64_MAX, &b);
		if (!rc && b < a) {
			com_err(cmd, 0, "Bad block range - %s-%s", tok, dash + 1);
			rc = 1;
		}
		if (!rc && b >= nblocks) {
			com_err(cmd, E4_ERR_BAD_BLOCK_NUM, "%llu (the filesystem has %llu blocks)",
				b, (unsigned long long)nblocks);
			rc = 1;
		}
		if (rc)
			break;
		nl = realloc(*list, (*n + 1) * sizeof(**list));
		if (!nl) {
			com_err(cmd, E4_ERR_NO_MEMORY, "while reading the block list");
			rc = 1;
			break;
		}
		*list = nl;
		nl[*n].a = a;
		nl[(*n)++].b = b;
	}
	free(copy);
	return rc;
}

int do_journal_open(int argc, char **argv)
{
	struct e4_jwrite_opts o;
	const char *ext = NULL;
	unsigned long long v = 3;
	int c, csum = 0;
	errcode_t err;

	if (check_fs_read_write(argv[0]))
		return 1;
	memset(&o, 0, sizeof(o));
	reset_getopt();
	while ((c = getopt(argc, argv, "cv:f:")) != -1) {
		switch (c) {
		case 'c':
			csum = 1;
			break;
		case 'v':
			if (parse_number(argv[0], optarg, "checksum version", 3, &v))
				return 1;
			break;
		case 'f':
			ext = optarg;
			break;
		default:
			return usage(argv[0], "[-c] [-v csum_version] [-f ext_jnl]");
		}
	}
	if (optind != argc)
		return usage(argv[0], "[-c] [-v csum_version] [-f ext_jnl]");
	if (jw) {
		printf("Journal is already open.\n");
		return 1;
	}
	if (e4_has_incompat(current_fs, EXT4_FEATURE_INCOMPAT_64BIT))
		o.set_incompat |= JBD2_FEATURE_INCOMPAT_64BIT;
	if (csum) {
		o.flags |= E4_JWRITE_SET_CSUM;
		if (!e4_has_ro_compat(current_fs, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)) {
			o.csum_version = 1;
		} else {
			if (v != 2 && v != 3) {
				printf("Unknown journal csum v%llu\n", v);
				v = 3;
			}
			o.csum_version = (int)v;
		}
	}
	err = e4_jwrite_open(current_fs, ext, &o, &jw);
	if (err) {
		com_err(argv[0], err, "while opening the journal%s%s", ext ? " " : "", ext ? ext : "");
		return 1;
	}
	if (o.csum_version > 1)	/* said once it is done (the reference's line) */
		printf("Setting csum v%d\n", o.csum_version);
	free(jw_ext);
	jw_ext = ext ? strdup(ext) : NULL;
	return 0;
}

/* Read one block of contents from f (zeros past its end). */
static int read_contents(const char *cmd, FILE *f, const char *name, uint8_t *buf, unsigned bs)
{
	size_t got = f ? fread(buf, 1, bs, f) : 0;

	if (f && ferror(f)) {	/* errno: fread's cause (EISDIR for a directory) */
		com_err(cmd, errno, "while reading %s", name);
		return 1;
	}
	memset(buf + got, 0, bs - got);
	return 0;
}

int do_journal_write(int argc, char **argv)
{
	const char *use = "[-b blocks] [-r revoke] [-c] file";
	struct block_range *blocks = NULL, *revokes = NULL;
	size_t nb = 0, nr = 0;
	unsigned flags = 0, bs;
	FILE *f = NULL;
	uint8_t *buf = NULL;
	errcode_t err = 0;
	int c, rc = 1;

	reset_getopt();
	while ((c = getopt(argc, argv, "b:r:c")) != -1) {
		switch (c) {
		case 'b':
			if (parse_block_list(argv[0], optarg, &blocks, &nb))
				goto out;
			break;
		case 'r':
			if (parse_block_list(argv[0], optarg, &revokes, &nr))
				goto out;
			break;
		case 'c':
			flags |= E4_JWRITE_NO_COMMIT;
			break;
		default:
			usage(argv[0], use);
			goto out;
		}
	}
	if (optind < argc - 1 || (nb && optind != argc - 1)) {
		usage(argv[0], use);
		goto out;
	}
	if (!jw) {
		printf("Journal not open.\n");
		goto out;
	}
	if (!jw_ext && !e4_has_compat(current_fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL)) {
		/* needs_recovery without has_journal: the kernel refuses it */
		com_err(argv[0], E4_ERR_NO_JOURNAL, "(feature has_journal was cleared since jo)");
		goto out;
	}
	bs = e4_journal_blocksize(e4_jwrite_journal(jw));
	if (nb) {
		if (open_input(argv[0], argv[optind], 0, &f) < 0)
			goto out;
		buf = malloc(bs);
		if (!buf) {
			com_err(argv[0], E4_ERR_NO_MEMORY, "while opening %s", argv[optind]);
			goto out;
		}
	}
	/* The library refuses a block past the log's free space as it is
	 * added, so memory stays bounded by the journal's size. */
	for (size_t i = 0; !err && i < nr; i++)
		for (uint64_t v = revokes[i].a; !err && v <= revokes[i].b; v++)
			err = e4_jwrite_add_revoke(jw, v);
	for (size_t i = 0; !err && i < nb; i++)
		for (uint64_t v = blocks[i].a; !err && v <= blocks[i].b; v++) {
			if (read_contents(argv[0], f, argv[optind], buf, bs)) {
				e4_jwrite_drop(jw);
				goto out;
			}
			err = e4_jwrite_add_block(jw, v, buf);
		}
	if (err)
		e4_jwrite_drop(jw);
	if (!err)
		err = e4_jwrite_commit(jw, flags);
	if (err)
		com_err(argv[0], err, "while writing the transaction");
	else
		rc = 0;
out:
	if (f)
		fclose(f);
	free(buf);
	free(blocks);
	free(revokes);
	return rc;
}

int journal_write_is_open(void)
{
	return jw != NULL;
}

int journal_write_close(const char *cmd)
{
	errcode_t err;

	if (!jw)
		return 0;
	err = e4_jwrite_close(jw);
	jw = NULL;
	free(jw_ext);
	jw_ext = NULL;
	if (err) {
		com_err(cmd, err, "while closing the journal");
		return 1;
	}
	return 0;
}

int do_journal_close(int argc, char **argv)
{
	if (argc != 1)
		return usage(argv[0], "");
	if (!jw) {
		printf("Journal not open.\n");
		return 1;
	}
	return journal_write_close(argv[0]);
}

/* Say what a recovery did, as e4fsck does: a transaction where the scan
 * stopped on a corrupt block, and for a failed replay that the blocks
 * before the failure were written and whether the log was cleared. */
static void report_recovery(const char *cmd, const struct e4_jrecover_result *res, errcode_t err,
			    int cleared)
{
	const struct e4_jscan_result *sc = &res->replay.scan;

	if (sc->failed_commit)
		printf("Journal transaction %u was corrupt; replay stopped before it.\n",
		       sc->failed_tid);
	if (!err)
		return;
	if (cleared)
		com_err(cmd, err,
			"while recovering the journal: %llu blocks were replayed, the log was "
			"cleared and the filesystem marked not clean (run e4fsck -f)",
			(unsigned long long)res->replay.replayed);
	else
		com_err(cmd, err, "while recovering the journal: %llu blocks were replayed, the "
			"log was left in place", (unsigned long long)res->replay.replayed);
}

int do_journal_run(int argc, char **argv)
{
	struct e4_jrecover_result res;
	const char *ext = NULL;
	e4_journal *j;
	errcode_t err;
	int c;

	if (check_fs_read_write(argv[0]))
		return 1;
	reset_getopt();
	while ((c = getopt(argc, argv, "f:")) != -1) {
		if (c != 'f')
			return usage(argv[0], "[-f ext_jnl]");
		ext = optarg;
	}
	if (optind != argc)
		return usage(argv[0], "[-f ext_jnl]");
	if (jw) {
		printf("Please close the journal before recovering it.\n");
		return 1;
	}
	err = e4_journal_open(current_fs, ext, &j);
	if (!err) {
		int had_log = e4_journal_super(j)->s_start != 0;

		err = e4_journal_recover(current_fs, j, NULL, NULL, &res);
		report_recovery(argv[0], &res, err, had_log && !e4_journal_super(j)->s_start);
		e4_journal_close(j);
	} else {
		com_err(argv[0], err, "while opening the journal%s%s", ext ? " " : "", ext ? ext : "");
	}
	/* the cached descriptors and bitmaps are stale after a replay */
	if (reopen_filesystem(argv[0]))
		return 1;
	return err ? 1 : 0;
}
