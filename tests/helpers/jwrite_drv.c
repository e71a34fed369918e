/*
 * jwrite_drv: drives libe4's transaction writer (jwrite.h) for
 * tests/t/lib_jwrite.sh.
 *   jwrite_drv [-j JOURNAL] [-v CSUM] [-6|-3] [-a] [-s START] [-t SEC] IMAGE STEP...
 * -j an external journal device; -v 0-3 set the checksum version; -6 / -3
 * set / clear 64-bit tags; -a set async commit; -s first log block of an
 * empty log; -t the commit time (seconds).  Steps, in order:
 *   b:BLK:SEED   log fs block BLK filled from SEED (fill_block below)
 *   m:BLK:SEED   the same, the block starting with the jbd2 magic (escaped)
 *   r:BLK        revoke fs block BLK
 *   c            commit the transaction      n   write it without commit block
 * Prints "head H tid T" after each commit.  E4_CRASH_AFTER_WRITES stops
 * the process at that write (common/crashpoint.c), counting the writes
 * to both devices with -j.  Exit 1 on an error.
 */
#include "crashpoint.h"
#include "jwrite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The test's block contents: a byte pattern from seed and blk (the shell
 * side computes the same with fill.py in lib_jwrite.sh). */
static void fill_block(uint8_t *b, unsigned bs, uint64_t blk, unsigned seed, int magic)
{
	for (unsigned i = 0; i < bs; i++)
		b[i] = (uint8_t)((i * 7 + seed * 31 + blk) & 0xFF);
	if (magic) {
		b[0] = 0xC0;
		b[1] = 0x3B;
		b[2] = 0x39;
		b[3] = 0x98;
	}
}

static int check(const char *what, errcode_t err)
{
	if (err)
		fprintf(stderr, "jwrite_drv: %s: %s\n", what, error_message(err));
	return err != 0;
}

int main(int argc, char **argv)
{
	struct e4_jwrite_opts o;
	const char *jnl = NULL;
	e4_jwrite *w;
	e4_fs *fs;
	uint8_t *buf;
	unsigned bs;
	int c, rc = 0;

	memset(&o, 0, sizeof(o));
	while ((c = getopt(argc, argv, "j:v:63as:t:")) != -1) {
		switch (c) {
		case 'j': jnl = optarg; break;
		case 'v': o.flags |= E4_JWRITE_SET_CSUM; o.csum_version = atoi(optarg); break;
		case '6': o.set_incompat |= JBD2_FEATURE_INCOMPAT_64BIT; break;
		case '3': o.clear_incompat |= JBD2_FEATURE_INCOMPAT_64BIT; break;
		case 'a': o.set_incompat |= JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT; break;
		case 's': o.start = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 't': o.commit_sec = strtoull(optarg, NULL, 0); break;
		default: return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: jwrite_drv [options] IMAGE STEP...\n");
		return 2;
	}
	e4_init_errors();
	if (check("open", e4_open(argv[optind], E4_OPEN_RW, 0, 0, &fs)) ||
	    check("crashpoint", crashpoint_install(e4_fs_io(fs))))
		return 1;
	if (check("journal", e4_jwrite_open(fs, jnl, &o, &w))) {
		e4_close(fs);
		return 1;
	}
	/* an external journal device joins the same crash-point count */
	if (jnl && check("crashpoint", crashpoint_install(e4_journal_io(e4_jwrite_journal(w))))) {
		e4_jwrite_close(w);
		e4_close(fs);
		return 1;
	}
	bs = e4_journal_blocksize(e4_jwrite_journal(w));
	buf = malloc(bs);
	for (int i = optind + 1; buf && i < argc && !rc; i++) {
		const char *s = argv[i];
		unsigned long long blk = 0;
		unsigned seed = 0;

		if (!strcmp(s, "c") || !strcmp(s, "n")) {
			rc = check("commit", e4_jwrite_commit(w, *s == 'n' ? E4_JWRITE_NO_COMMIT : 0));
			if (!rc)
				printf("head %u tid %u\n", e4_jwrite_head(w), e4_jwrite_tid(w));
		} else if ((s[0] == 'b' || s[0] == 'm') &&
			   sscanf(s + 1, ":%llu:%u", &blk, &seed) == 2) {
			fill_block(buf, bs, blk, seed, s[0] == 'm');
			rc = check("add block", e4_jwrite_add_block(w, blk, buf));
		} else if (s[0] == 'r' && sscanf(s + 1, ":%llu", &blk) == 1) {
			rc = check("add revoke", e4_jwrite_add_revoke(w, blk));
		} else {
			fprintf(stderr, "jwrite_drv: bad step '%s'\n", s);
			rc = 2;
		}
	}
	free(buf);
	if (check("journal close", e4_jwrite_close(w)))
		rc = 1;
	if (check("close", e4_close(fs)))
		rc = 1;
	return rc;
}
