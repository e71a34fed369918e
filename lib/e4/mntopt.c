/*
 * mntopt.c: default mount options (s_default_mount_opts, format doc 3.1)
 * by name, as tune2fs -o and mke2fs.conf's default_mntopts spell them.
 */
#include "e4_private.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
	const char *name;
	uint32_t mask;
} mntopt_names[] = {
	{ "debug", EXT4_DEFM_DEBUG },
	{ "bsdgroups", EXT4_DEFM_BSDGROUPS },
	{ "user_xattr", EXT4_DEFM_XATTR_USER },
	{ "acl", EXT4_DEFM_ACL },
	{ "uid16", EXT4_DEFM_UID16 },
	{ "journal_data", EXT4_DEFM_JMODE_DATA },
	{ "journal_data_ordered", EXT4_DEFM_JMODE_ORDERED },
	{ "journal_data_writeback", EXT4_DEFM_JMODE_WBACK },
	{ "nobarrier", EXT4_DEFM_NOBARRIER },
	{ "block_validity", EXT4_DEFM_BLOCK_VALIDITY },
	{ "discard", EXT4_DEFM_DISCARD },
	{ "nodelalloc", EXT4_DEFM_NODELALLOC },
};

uint32_t e4_mntopt_mask(const char *name)
{
	for (unsigned i = 0; i < sizeof(mntopt_names) / sizeof(mntopt_names[0]); i++)
		if (!strcmp(name, mntopt_names[i].name))
			return mntopt_names[i].mask;
	if (!strncasecmp(name, "MNTOPT_", 7)) {
		char *end;
		long bit = strtol(name + 7, &end, 10);

		if (!*end && end != name + 7 && bit >= 0 && bit < 32)
			return 1U << bit;
	}
	return 0;
}

errcode_t e4_mntopt_edit(uint32_t *opts, const char *edit)
{
	int neg = edit[0] == '^';
	uint32_t m = e4_mntopt_mask(edit + neg);

	if (!m)
		return E4_ERR_INVALID_ARGUMENT;
	if (neg) {
		*opts &= ~m;
	} else {
		if (m & EXT4_DEFM_JMODE)
			*opts &= ~EXT4_DEFM_JMODE;
		*opts |= m;
	}
	return 0;
}

/* What the kernel makes of an s_mount_opts string, for the checks below. */
struct sopt_state {
	char mode[16];		/* data=: "" when not given */
	int async, jcsum, delalloc, dax, data_err_abort, commit_set;
};

/* commit=v: an interval other than the default (0 or 5 seconds)?  The
 * kernel reads v as an unsigned number in C notation (5, 05, 0x5, +5);
 * a value it cannot read is counted as set (the words are checked as if
 * the string parsed). */
static int commit_not_default(const char *v)
{
	unsigned long n;
	char *end;

	if (!isdigit((unsigned char)v[*v == '+']))
		return 1;
	errno = 0;
	n = strtoul(v, &end, 0);
	if (errno || *end)
		return 1;
	return n != 0 && n != 5;
}

static void sopt_scan(const char *s, struct sopt_state *st)
{
	memset(st, 0, sizeof(*st));
	for (const char *p = s; *p;) {
		size_t len = strcspn(p, ",");
		char w[64];

		snprintf(w, sizeof(w), "%.*s", (int)(len < 63 ? len : 63), p);
		if (!strncmp(w, "data=", 5))
			snprintf(st->mode, sizeof(st->mode), "%.15s", w + 5);
		else if (!strcmp(w, "journal_async_commit"))
			st->async = 1;
		else if (!strcmp(w, "journal_checksum"))
			st->jcsum = 1;
		else if (!strcmp(w, "delalloc"))
			st->delalloc = 1;	/* a later nodelalloc does not undo it */
		else if (!strcmp(w, "dax") || !strcmp(w, "dax=always"))
			st->dax = 1;
		else if (!strncmp(w, "dax=", 4))
			st->dax = 0;
		else if (!strcmp(w, "data_err=abort"))
			st->data_err_abort = 1;
		else if (!strncmp(w, "data_err=", 9))
			st->data_err_abort = 0;
		else if (!strncmp(w, "commit=", 7))
			st->commit_set = commit_not_default(w + 7);
		p += len;
		if (*p)
			p++;
	}
}

errcode_t e4_mntopt_conflict(uint32_t defm, const char *sopts, int has_journal,
			     const char **why)
{
	struct sopt_state st;
	const char *mode;

	*why = NULL;
	sopt_scan(sopts, &st);
	/* the default data mode, unless the string names one */
	switch (defm & EXT4_DEFM_JMODE) {
	case EXT4_DEFM_JMODE_DATA:
		mode = "journal";
		break;
	case EXT4_DEFM_JMODE_WBACK:
		mode = "writeback";
		break;
	default:
		mode = "ordered";
		break;
	}
	if (st.mode[0])
		mode = st.mode;
	/* checked with or without a journal (measured: -o journal_data and
	 * delalloc in the string do not mount on a journal-less ext4) */
	if (!strcmp(mode, "journal") && st.delalloc)
		*why = "both data=journal and delalloc";
	else if (!strcmp(mode, "journal") && st.dax)
		*why = "both data=journal and dax";
	else if (!has_journal) {
		/* "can't mount with X, fs mounted w/o journal" (data= is
		 * accepted) */
		if (st.async)
			*why = "journal_async_commit without a journal";
		else if (st.jcsum)
			*why = "journal_checksum without a journal";
		else if (st.commit_set)
			*why = "commit= without a journal";
		else if (st.data_err_abort)
			*why = "data_err=abort without a journal";
	} else if (!strcmp(mode, "ordered") && st.async) {
		*why = "journal_async_commit in data=ordered mode";
	}
	return *why ? E4_ERR_MNTOPT_CONFLICT : 0;
}
