/*
 * journal.c: e4tune's journal work: -o (default mount options, plus the
 * journal_async_commit and journal_checksum extensions that also set the
 * journal superblock's features), the check that the default mount
 * options, the mount options string and the journal a command leaves are
 * a combination the kernel mounts, -j / -J size= / -O has_journal (add an
 * internal journal), -O ^has_journal (remove it; a journal e4tune cannot
 * judge only with -f), and replaying a journal that needs recovery before
 * any change (as tune2fs does).
 */
#include "tune.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* ---- -o ------------------------------------------------------------------ */
#define OPT_ASYNC	"journal_async_commit"
#define OPT_JCSUM	"journal_checksum"

/* Walk the -o list: every word known, each journal extension once. */
int tune_mntopts_parse(struct tune *t)
{
	char *buf = strdup(t->mntopts), *save = NULL, *tok;

	if (!buf)
		return 1;
	for (tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		int neg = *tok == '^';
		const char *name = tok + neg;

		if (!strcmp(name, OPT_ASYNC)) {
			t->async_commit = neg ? -1 : 1;
		} else if (!strcmp(name, OPT_JCSUM)) {
			t->jcsum = neg ? -1 : 1;
		} else if (!e4_mntopt_mask(name)) {
			fprintf(stderr, "%s: invalid mount option set: %s (see %s --help)\n",
				t->prog, t->mntopts, t->prog);
			free(buf);
			return 1;
		}
	}
	free(buf);
	return 0;
}

/* The default mount options after the -o edits, applied left to right as
 * tune2fs does (a journal mode replaces the previous one). */
static uint32_t new_defm(struct tune *t)
{
	uint32_t v = e4_le32(e4_super(t->fs)->s_default_mount_opts);
	char *buf = t->mntopts ? strdup(t->mntopts) : NULL, *save = NULL, *tok;

	if (!buf)
		return v;
	/* unknown words (journal_async_commit, journal_checksum) are not
	 * default mount options: skipped */
	for (tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save))
		(void)e4_mntopt_edit(&v, tok);
	free(buf);
	return v;
}

/* s_mount_opts word helpers: the string is at most 63 characters. */
static int sopt_has(const char *s, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = s; *p;) {
		size_t len = strcspn(p, ",");

		if (len == n && !strncmp(p, word, n))
			return 1;
		p += len;
		if (*p)
			p++;
	}
	return 0;
}

static int sopt_edit(char out[64], const char *in, const char *word, int add)
{
	char tmp[200];
	size_t used = 0;

	tmp[0] = 0;
	for (const char *p = in; *p;) {
		size_t len = strcspn(p, ",");

		if (len && !(len == strlen(word) && !strncmp(p, word, len)))
			used += snprintf(tmp + used, sizeof(tmp) - used, "%s%.*s", used ? "," : "",
					 (int)len, p);
		p += len;
		if (*p)
			p++;
		if (used >= sizeof(tmp) - 1)
			return -1;
	}
	if (add)
		used += snprintf(tmp + used, sizeof(tmp) - used, "%s%s", used ? "," : "", word);
	if (used > 63)
		return -1;
	memset(out, 0, 64);
	memcpy(out, tmp, used);
	return 0;
}

/* The s_mount_opts string this command leaves (after -E mount_opts=). */
static int new_sopts(struct tune *t, char out[64])
{
	const struct ext4_super_block *sb = e4_super(t->fs);
	char cur[65];

	if (t->ext_mount_opts) {
		snprintf(cur, sizeof(cur), "%s", t->ext_mount_opts);
	} else {
		memcpy(cur, sb->s_mount_opts, 64);
		cur[64] = 0;
	}
	snprintf(out, 64, "%.63s", cur);
	if (t->async_commit && sopt_edit(out, out, OPT_ASYNC, t->async_commit > 0))
		return -1;
	if (t->jcsum && sopt_edit(out, out, OPT_JCSUM, t->jcsum > 0))
		return -1;
	return 0;
}

static int removing_journal(const struct tune *t)
{
	const char *f = t->features;

	if (!f)
		return 0;
	for (const char *p = f; *p;) {
		size_t len = strcspn(p, ", \t");

		if ((len == 12 && !strncmp(p, "^has_journal", 12)) ||
		    (len == 8 && !strncmp(p, "^journal", 8)))
			return 1;
		p += len;
		if (*p)
			p++;
	}
	return 0;
}

int tune_mntopts_check(struct tune *t)
{
	e4_fs *fs = t->fs;
	char sopts[64];
	e4_journal *j;
	errcode_t err;

	if (!t->async_commit && !t->jcsum)
		return 0;
	if (new_sopts(t, sopts)) {
		tune_err(t, 0, "the mount options string would exceed 63 characters");
		return 1;
	}
	if ((t->async_commit > 0 || t->jcsum > 0) && removing_journal(t)) {
		tune_err(t, 0, "journal options asked for while removing the journal");
		return 1;
	}
	if (!e4_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL)) {
		if (t->journal || t->async_commit < 0 || t->jcsum < 0)
			return 0;	/* the journal is added by this command */
		tune_err(t, 0, "%s needs a journal (add one with -j)",
			 t->async_commit > 0 ? OPT_ASYNC : OPT_JCSUM);
		return 1;
	}
	if (removing_journal(t))
		return 0;
	/* a log that is not empty: tune_journal_log_check() */
	err = e4_journal_open(fs, NULL, &j);
	if (err) {
		tune_err(t, err, "while opening the journal");
		return 1;
	}
	e4_journal_close(j);
	return 0;
}

int tune_mount_combo_check(struct tune *t)
{
	const struct ext4_super_block *sb = e4_super(t->fs);
	uint32_t defm_old = e4_le32(sb->s_default_mount_opts), defm = new_defm(t), f[3];
	int jold = e4_has_compat(t->fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL), jnew = jold;
	char sold[65], sopts[64];
	const char *why;

	memcpy(sold, sb->s_mount_opts, 64);
	sold[64] = 0;
	if (new_sopts(t, sopts)) {
		tune_err(t, 0, "the mount options string would exceed 63 characters");
		return 1;
	}
	if (t->features) {
		if (tune_features_after(t, f))
			return 1;
		jnew = (f[E4_FEAT_COMPAT] & EXT4_FEATURE_COMPAT_HAS_JOURNAL) != 0;
	}
	if (t->journal)
		jnew = 1;
	if ((defm == defm_old && !strcmp(sopts, sold) && jnew == jold) ||
	    !e4_mntopt_conflict(defm, sopts, jnew, &why))
		return 0;
	if (strstr(why, "ordered"))
		tune_err(t, 0, "journal_async_commit refused: the default data mode would be "
			 "ordered, and the kernel refuses to mount with %s; add "
			 "-o journal_data_writeback or -o journal_data", why);
	else if (strstr(why, "without a journal"))
		tune_err(t, 0, "refused: the kernel refuses to mount with %s (mount options "
			 "'%s'); remove it in the same command (-o ^journal_async_commit, "
			 "-o ^journal_checksum or -E mount_opts=)", why, sopts);
	else
		tune_err(t, 0, "refused: the kernel refuses to mount with %s (mount options "
			 "'%s')", why, sopts);
	return 1;
}

/* Journal superblock features for the requested options. */
static void jsb_features(struct tune *t, journal_superblock_t *jsb, const char *sopts)
{
	uint32_t compat = e4_be32(jsb->s_feature_compat);
	uint32_t incompat = e4_be32(jsb->s_feature_incompat);
	int csum_fs = e4_geom(t->fs)->metadata_csum;
	int want_async = sopt_has(sopts, OPT_ASYNC);
	int want_csum = want_async || sopt_has(sopts, OPT_JCSUM);

	if (want_async)
		incompat |= JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT;
	else
		incompat &= ~JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT;
	if (want_csum) {
		if (csum_fs) {
			compat &= ~JBD2_FEATURE_COMPAT_CHECKSUM;
			incompat &= ~JBD2_FEATURE_INCOMPAT_CSUM_V2;
			incompat |= JBD2_FEATURE_INCOMPAT_CSUM_V3;
		} else if (!(incompat & (JBD2_FEATURE_INCOMPAT_CSUM_V2 |
					 JBD2_FEATURE_INCOMPAT_CSUM_V3))) {
			compat |= JBD2_FEATURE_COMPAT_CHECKSUM;
		}
	} else {
		compat &= ~JBD2_FEATURE_COMPAT_CHECKSUM;
		incompat &= ~(JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3);
	}
	jsb->s_feature_compat = e4_cpu_to_be32(compat);
	jsb->s_feature_incompat = e4_cpu_to_be32(incompat);
	if (incompat & (JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3)) {
		jsb->s_checksum_type = JBD2_CRC32C_CHKSUM;
	} else {
		jsb->s_checksum_type = 0;
		jsb->s_checksum = 0;
	}
}

int tune_mntopts_apply(struct tune *t)
{
	e4_fs *fs = t->fs;
	struct ext4_super_block *sb = e4_super(fs);
	char sopts[64];
	e4_journal *j;
	errcode_t err;

	sb->s_default_mount_opts = e4_cpu_to_le32(new_defm(t));
	t->sb_dirty = 1;
	if (!t->async_commit && !t->jcsum)
		return 0;
	if (new_sopts(t, sopts)) {
		tune_err(t, 0, "the mount options string would exceed 63 characters");
		return 1;
	}
	memcpy(sb->s_mount_opts, sopts, 64);
	if (!e4_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL))
		return 0;
	err = e4_journal_open(fs, NULL, &j);
	if (!err) {
		journal_superblock_t jsb;

		memcpy(&jsb, e4_journal_super(j), sizeof(jsb));
		jsb_features(t, &jsb, sopts);
		err = e4_journal_write_super(j, &jsb);
		if (!err)
			err = e4_flush(fs);
		e4_journal_close(j);
	}
	if (err) {
		tune_err(t, err, "while writing the journal superblock");
		return 1;
	}
	return 0;
}

/* An internal journal that does not need recovery (an external one is
 * refused elsewhere; one that needs recovery is replayed first). */
static int journal_idle_internal(e4_fs *fs)
{
	return e4_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL) &&
	       e4_super(fs)->s_journal_inum &&
	       !e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_RECOVER);
}

/* -O ^has_journal on a journal that does not need recovery: a journal
 * superblock that cannot be read (bad magic, version or checksum, unknown
 * features) hides whether the log holds transactions: refused without -f,
 * a warning with it.  Nothing is written. */
int tune_journal_remove_check(struct tune *t)
{
	e4_journal *j;
	errcode_t err;

	if (!removing_journal(t) || !journal_idle_internal(t->fs))
		return 0;
	err = e4_journal_open(t->fs, NULL, &j);
	if (!err) {
		e4_journal_close(j);
		return 0;	/* a log that is not empty: tune_journal_log_check() */
	}
	if (!t->force) {
		tune_err(t, err, "while reading the journal superblock: whether its log "
			 "holds transactions cannot be seen; -f removes the journal anyway");
		return 1;
	}
	tune_warn(t, "%s while reading the journal superblock; removing the journal "
		  "without looking at its log (-f)", error_message(err));
	return 0;
}

/* A log that is not empty (s_start set) while needs_recovery is clear: a
 * flag cleared without a replay (a lost superblock write, a tool).  e2fsck
 * and e4fsck -y replay such a log, and the kernel wipes it at mount: a
 * change made now is undone by the replay when the log holds the block it
 * changed (the superblock, a descriptor), and a journal feature changed
 * under it misreads it.  Every change is refused, -f or not, naming the
 * replay; the one exception is -f -O ^has_journal, which discards the log
 * with the journal (warned about).  Nothing is written. */
int tune_journal_log_check(struct tune *t)
{
	e4_journal *j;
	int busy;

	if (!journal_idle_internal(t->fs) || e4_journal_open(t->fs, NULL, &j))
		return 0;	/* an unreadable one: tune_journal_remove_check() */
	busy = e4_be32(e4_journal_super(j)->s_start) != 0;
	e4_journal_close(j);
	if (!busy)
		return 0;
	if (t->force && removing_journal(t)) {
		tune_warn(t, "the journal's log is not empty but needs_recovery is clear; "
			  "it is discarded with the journal (-f)");
		return 0;
	}
	tune_err(t, 0, "the journal's log is not empty but needs_recovery is clear: a "
		 "replay (e2fsck, e4fsck -y) would undo changes made now; replay it first "
		 "with e4fsck -y%s", removing_journal(t) ? ", or -f discards it with the journal"
							 : "");
	return 1;
}

/* ---- recovery ------------------------------------------------------------ */
/* A full check is due: VALID_FS cleared in the primary superblock. */
static errcode_t mark_full_check(e4_fs *fs)
{
	struct ext4_super_block *sb = e4_super(fs);
	errcode_t err;

	e4_sb_state_change(sb, 0, EXT4_VALID_FS);
	err = e4_super_write(fs);
	if (!err)
		err = e4_flush(fs);
	return err;
}

/* The step that replays (or at least clears) a journal that needs recovery
 * and that e4_journal_open() refused with err: what e4fsck -y and the
 * reference e2fsck -y (1.47) do today with each fault, checked by
 * tests/t/tune_advice.sh, which takes each step named. */
static const char *recover_advice(errcode_t err)
{
	switch (err) {
	case E4_ERR_JOURNAL_CSUM:
		/* every field is valid: e4fsck rewrites the checksum and
		 * replays (the log's blocks carry their own checksums);
		 * e2fsck would reset the journal */
		return "e4fsck -y rewrites its checksum and replays the journal";
	case E4_ERR_JOURNAL_MAGIC:
	case E4_ERR_JOURNAL_VERSION:
	case E4_ERR_JOURNAL_CORRUPT:
		/* e4fsck -y keeps a journal it cannot judge while
		 * needs_recovery says its log holds committed transactions */
		return "e2fsck -y resets the journal, losing its log; e4fsck -y keeps it";
	case E4_ERR_JOURNAL_UNSUPP:
		/* e2fsck and e4fsck both stop (exit 12) */
		return "only a tool that knows the journal's features can replay it";
	case E4_ERR_JOURNAL_INODE:
	case E4_ERR_JOURNAL_TOO_SMALL:
		return "e2fsck -y removes the journal, losing its log; e4fsck -y keeps it";
	default:
		return "nothing was replayed";
	}
}

int tune_recover_if_needed(struct tune *t)
{
	e4_fs *fs = t->fs;
	struct e4_jrecover_result res;
	struct e4_orphan_result ores;
	e4_journal *j;
	errcode_t err, rerr;
	int changed = 0;

	if (!e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_RECOVER))
		return 0;
	if (!e4_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL)) {
		tune_err(t, 0, "needs_recovery is set but there is no journal: run e4fsck first");
		return 1;
	}
	err = e4_journal_open(fs, NULL, &j);
	if (err && t->force && removing_journal(t)) {
		/* nothing can be replayed: -f removes the journal; the log's
		 * transactions are lost, so a full check is due */
		rerr = mark_full_check(fs);
		if (rerr) {
			tune_err(t, rerr, "while writing the superblock");
			return 1;
		}
		tune_warn(t, "%s while opening the journal for recovery; removing it unreplayed "
			  "(-f): the filesystem is marked for a full check (run e2fsck -f)",
			  error_message(err));
		return 2;
	}
	if (err) {
		tune_err(t, err, "while opening the journal for recovery (%s%s)",
			 recover_advice(err),
			 removing_journal(t) ? "; or -f removes the journal unreplayed" : "");
		return 1;
	}
	printf("Recovering journal.\n");
	memset(&res, 0, sizeof(res));
	rerr = e4_journal_recover(fs, j, NULL, NULL, &res);
	e4_journal_close(j);
	if (tune_reopen(t))
		return 1;
	fs = t->fs;
	switch (res.replay.scan.outcome) {
	case E4_JSCAN_FAILED_COMMIT:
	case E4_JSCAN_CSUM_ERROR:
	case E4_JSCAN_CORRUPT:
	case E4_JSCAN_READ_ERROR:
		if (!rerr)
			rerr = E4_ERR_JOURNAL_CHECKSUM;
		break;
	default:
		break;
	}
	if (rerr) {
		/* a full check is due (the replay may already have set
		 * ERROR_FS) */
		err = mark_full_check(fs);
		tune_err(t, rerr, "while recovering the journal: the valid transactions were "
			 "replayed and the filesystem is marked for a full check (run e2fsck -f)%s",
			 removing_journal(t) && !t->force ? "; the journal is kept (-f removes it)"
							  : "");
		/* without -f the journal stays: e4fsck can still look at it */
		if (!(t->force && removing_journal(t)))
			return 1;
	}
	/* the kernel would release orphans at its next mount; e4tune does it
	 * now so that the result is clean, then recounts (replayed bitmaps
	 * and descriptors do not agree on free counts) */
	memset(&ores, 0, sizeof(ores));
	err = e4_orphans_process(fs, time(NULL), NULL, NULL, &ores);
	if (err) {
		tune_err(t, err, "while releasing orphan inodes (inode %u); run e2fsck -f",
			 ores.bad_ino);
		return 1;
	}
	err = e4_counts_recompute(fs, &changed);
	if (err && err != E4_ERR_NO_MEMORY && !e4_err_is_io(err)) {
		/* the replayed bitmaps contradict the descriptors: damage */
		rerr = mark_full_check(fs);
		tune_err(t, err, "while recomputing the free counts after recovery: the "
			 "replayed bitmaps and descriptors disagree%s (run e2fsck -f)",
			 rerr ? "" : "; the filesystem is marked for a full check");
		return 1;
	}
	if (!err)
		err = e4_alloc_flush(fs);
	if (!err)
		err = e4_super_write(fs);
	if (!err)
		err = e4_flush(fs);
	if (err) {
		tune_err(t, err, "while recomputing the free counts after recovery");
		return 1;
	}
	if (ores.freed || ores.truncated)
		printf("Released %u orphan inodes, truncated %u.\n", ores.freed, ores.truncated);
	/* bitmaps went out uncached: start again from the device */
	if (tune_reopen(t))
		return 1;
	return rerr ? 2 : 0;
}

/* ---- adding and removing the journal -------------------------------------- */
int tune_journal_add(struct tune *t)
{
	e4_fs *fs = t->fs;
	const struct e4_geom *geo = e4_geom(fs);
	uint64_t blocks;
	errcode_t err;

	if (t->journal_mb)
		blocks = t->journal_mb * (1024 * 1024 / geo->block_size);
	else
		blocks = e4_layout_default_journal_blocks(geo->blocks_count);
	if (!blocks) {
		tune_err(t, 0, "the filesystem is too small for a journal");
		return 1;
	}
	if (blocks < 1024 || blocks > 10240000 ||
	    blocks > e4_sb_free_blocks_count(e4_super(fs)) / 2) {
		tune_err(t, 0, "journal size %llu blocks out of range (1024 .. 10240000 blocks, "
			 "and at most half the free blocks)", (unsigned long long)blocks);
		return 1;
	}
	printf("Creating journal inode: ");
	fflush(stdout);
	/* the superblock settings made so far go out with the journal */
	err = e4_journal_create(fs, (uint32_t)blocks, 0, 0, time(NULL));
	if (err) {
		printf("\n");
		tune_err(t, err, "while creating the journal");
		return 1;
	}
	printf("done\n");
	t->sb_dirty = 1;
	return 0;
}

int tune_journal_remove(struct tune *t)
{
	e4_fs *fs = t->fs;
	const struct ext4_super_block *sb = e4_super(fs);
	errcode_t err;

	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_RECOVER) && !t->force) {
		tune_err(t, 0, "the needs_recovery flag is set: run e4fsck before clearing the "
			 "has_journal flag");
		return 1;
	}
	if (!sb->s_journal_inum) {
		tune_err(t, 0, "external journals are not supported");
		return 1;
	}
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_RECOVER)) {
		/* -f after a failed replay: the rest of the log is dropped */
		struct ext4_super_block *w = e4_super(fs);

		e4_sb_feature_change(w, E4_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_RECOVER, 0);
	}
	err = e4_journal_remove(fs);
	if (err) {
		tune_err(t, err, "while removing the journal");
		return 1;
	}
	t->sb_dirty = 1;
	return 0;
}
