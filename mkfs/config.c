/*
 * config.c: e4mkfs option helpers: sizes, UUIDs, the -E list, and the
 * configuration file hook.  The built-in defaults (Debian e2fsprogs
 * 1.47.0's /etc/mke2fs.conf) live in lib/e4/layout.c.
 */
#include "mkfs.h"
#include "popsize.h"
#include "optlist.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <uuid/uuid.h>

int mkfs_parse_size(const char *s, uint64_t *count, int *has_suffix)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);	/* as mke2fs: 0x.. hex, 0.. octal */
	if (errno || end == s)
		return -1;
	*has_suffix = 0;
	if (*end) {
		switch (tolower((unsigned char)*end)) {
		case 's': shift = 9; break;	/* 512-byte sectors */
		case 'k': shift = 10; break;
		case 'm': shift = 20; break;
		case 'g': shift = 30; break;
		case 't': shift = 40; break;
		case 'p': shift = 50; break;
		default: return -1;
		}
		end++;
		if (*end == 'i' || *end == 'I')
			end++;
		if (*end == 'b' || *end == 'B')
			end++;
		if (*end)
			return -1;
		if (v > (UINT64_MAX >> shift))
			return -1;
		v <<= shift;
		*has_suffix = 1;
	}
	*count = v;
	return 0;
}

int mkfs_parse_uuid(const char *s, uint8_t out[16])
{
	uuid_t u;

	if (uuid_parse(s, u))
		return -1;
	memcpy(out, u, 16);
	return 0;
}

static int parse_bool(const char *v, int *out)
{
	/* "key" alone turns it on; "key=" reads as 0, as mke2fs's number
	 * parsing does */
	if (!v || !*v) {
		*out = !v;
		return 0;
	}
	if (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "true") ||
	    !strcasecmp(v, "on")) {
		*out = 1;
		return 0;
	}
	if (!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "false") ||
	    !strcasecmp(v, "off")) {
		*out = 0;
		return 0;
	}
	return -1;
}

static int parse_u64(const char *v, uint64_t *out)
{
	char *end;

	if (!v || !*v || *v == '-')
		return -1;
	errno = 0;
	*out = strtoull(v, &end, 0);
	return (errno || *end) ? -1 : 0;
}

int mkfs_parse_revision(struct mkfs *m, const char *v)
{
	uint64_t n;

	if (parse_u64(v, &n)) {
		fprintf(stderr, "%s: bad revision level - %s\n", m->prog, v ? v : "");
		return -1;
	}
	if (n > 1) {
		fprintf(stderr, "%s: revision %s is too high (0 or 1)\n", m->prog, v);
		return -1;
	}
	m->lo.good_old_rev = n == 0;
	return 0;
}

static const char *const unsupported_ext[] = {
	"quotatype", "encoding", "encoding_flags", "mmp_update_interval",
	"android_sparse", "fname_encoding",
	NULL
};

int mkfs_parse_extended(struct mkfs *m, const char *list)
{
	struct optlist o;
	char *tok, *val;
	int bad = 0;

	if (optlist_start(&o, list)) {
		fprintf(stderr, "%s: out of memory\n", m->prog);
		return -1;
	}
	while (!bad && optlist_next(&o, &tok, &val)) {
		uint64_t n;
		int b;

		if (!strcmp(tok, "stride")) {
			if (parse_u64(val, &n) || n > UINT32_MAX)
				bad = 1;
			else
				m->lo.stride = (uint32_t)n;
		} else if (!strcmp(tok, "stripe_width") || !strcmp(tok, "stripewidth")) {
			if (parse_u64(val, &n) || n > UINT32_MAX)
				bad = 1;
			else
				m->lo.stripe_width = (uint32_t)n;
		} else if (!strcmp(tok, "resize")) {
			if (parse_u64(val, &n) || n == 0)
				bad = 1;
			else
				m->lo.resize_blocks = n;
		} else if (!strcmp(tok, "lazy_itable_init")) {
			if (parse_bool(val, &b))
				bad = 1;
			else {
				m->lazy_itable_init = b;
				m->lazy_itable_set = 1;
			}
		} else if (!strcmp(tok, "lazy_journal_init")) {
			if (parse_bool(val, &b))
				bad = 1;
			else {
				m->lazy_journal_init = b;
				m->lazy_journal_set = 1;
			}
		} else if (!strcmp(tok, "assume_storage_prezeroed")) {
			if (parse_bool(val, &b))
				bad = 1;
			else if (b) {
				m->lazy_itable_init = 1;
				m->lazy_journal_init = 1;
				m->discard = 0;
				m->zeroed = 1;
				m->lazy_itable_set = m->lazy_journal_set = m->discard_set = 1;
			}
		} else if (!strcmp(tok, "root_perms")) {
			char *end;
			unsigned long p;

			errno = 0;
			p = val ? strtoul(val, &end, 8) : 0;
			if (!val || !*val || errno || *end || p > 07777)
				bad = 1;
			else
				m->root_perms = (int)p;
		} else if (!strcmp(tok, "root_selinux")) {
			/* mke2fs 1.47.1: the root directory's SELinux label */
			free(m->root_selinux);
			m->root_selinux = val && *val ? strdup(val) : NULL;
			if (!m->root_selinux)
				bad = 1;
		} else if (!strcmp(tok, "no_copy_xattrs")) {
			m->no_copy_xattrs = 1;
		} else if (!strcmp(tok, "populate_margin")) {
			if (!val || pop_parse_margin(val, &m->pop_margin))
				bad = 1;
		} else if (!strcmp(tok, "root_owner")) {
			m->root_owner_set = 1;
			if (!val) {
				m->root_uid = (uint32_t)getuid();
				m->root_gid = (uint32_t)getgid();
			} else {
				char *end;
				unsigned long u, g;

				errno = 0;
				u = strtoul(val, &end, 0);
				if (errno || *end != ':')
					bad = 1;
				else {
					g = strtoul(end + 1, &end, 0);
					if (errno || *end || u > UINT32_MAX || g > UINT32_MAX)
						bad = 1;
					m->root_uid = (uint32_t)u;
					m->root_gid = (uint32_t)g;
				}
			}
		} else if (!strcmp(tok, "hash_seed")) {
			if (!val || mkfs_parse_uuid(val, m->hash_seed))
				bad = 1;
			else
				m->have_hash_seed = 1;
		} else if (!strcmp(tok, "num_backup_sb")) {
			if (parse_u64(val, &n) || n > 2)
				bad = 1;
			else
				m->lo.num_backup_sb = (int)n;
		} else if (!strcmp(tok, "packed_meta_blocks")) {
			if (parse_bool(val, &b))
				bad = 1;
			else
				m->lo.packed_meta_blocks = b;
		} else if (!strcmp(tok, "discard")) {
			m->discard = 1;
			m->discard_set = 1;
		} else if (!strcmp(tok, "nodiscard")) {
			m->discard = 0;
			m->discard_set = 1;
		} else if (!strcmp(tok, "test_fs")) {
			m->test_fs = 1;
		} else if (!strcmp(tok, "orphan_file_size")) {
			/* as mke2fs: blocks, or bytes with a k/m/g/t suffix */
			if (!val || mkfs_parse_size(val, &n, &b) || n == 0)
				bad = 1;
			else {
				m->orphan_size = n;
				m->orphan_size_bytes = b;
			}
		} else if (!strcmp(tok, "offset")) {
			if (parse_u64(val, &n) || n > (UINT64_MAX >> 1))
				bad = 1;
			else
				m->offset = n;
		} else if (!strcmp(tok, "revision")) {
			if (mkfs_parse_revision(m, val)) {
				optlist_done(&o);
				return -1;
			}
		} else if (!strcmp(tok, "desc_size")) {
			if (parse_u64(val, &n) || n > 65536)
				bad = 1;
			else
				m->lo.desc_size = (unsigned)n;
		} else {
			int known = 0;

			for (int i = 0; unsupported_ext[i]; i++)
				if (!strcmp(tok, unsupported_ext[i]))
					known = 1;
			if (known)
				fprintf(stderr, "%s: extended option '%s' is not supported yet\n",
					m->prog, tok);
			else
				fprintf(stderr, "%s: unknown extended option '%s'\n", m->prog, tok);
			optlist_done(&o);
			return -1;
		}
		if (bad)
			fprintf(stderr, "%s: invalid value for extended option '%s'%s%s\n", m->prog,
				tok, val ? ": " : "", val ? val : "");
	}
	optlist_done(&o);
	return bad ? -1 : 0;
}

int mkfs_read_config(struct mkfs *m)
{
	const char *path = getenv("E4MKFS_CONFIG");
	errcode_t err;
	unsigned line = 0;
	FILE *f;
	char *text = NULL;
	size_t len = 0, cap = 0, n;

	if (!path)
		path = getenv("MKE2FS_CONFIG");
	if (!path || !*path) {
		err = e4_profile_builtin(&m->profile);
		if (err) {
			fprintf(stderr, "%s: built-in profile: %s\n", m->prog, error_message(err));
			return -1;
		}
		m->lo.profile = m->profile;
		return 0;
	}
	f = fopen(path, "r");
	if (!f) {
		/* the reference then goes on with its compiled-in defaults;
		 * here a named file that cannot be read is an error */
		fprintf(stderr, "%s: cannot read the configuration %s: %s\n", m->prog, path,
			strerror(errno));
		return -1;
	}
	do {
		if (cap - len < 4096) {
			char *t;

			if (cap > (64U << 20)) {
				fprintf(stderr, "%s: %s: configuration too large\n", m->prog, path);
				fclose(f);
				free(text);
				return -1;
			}
			t = realloc(text, cap ? cap * 2 : 8192);
			if (!t) {
				fclose(f);
				free(text);
				return -1;
			}
			text = t;
			cap = cap ? cap * 2 : 8192;
		}
		n = fread(text + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	if (ferror(f)) {
		/* a directory, or an I/O error: not an empty profile */
		fprintf(stderr, "%s: cannot read the configuration %s: %s\n", m->prog, path,
			strerror(errno ? errno : EIO));
		fclose(f);
		free(text);
		return -1;
	}
	fclose(f);
	err = e4_profile_parse(text ? text : "", len, &m->profile, &line);
	free(text);
	if (err) {
		fprintf(stderr, "%s: %s: line %u: %s\n", m->prog, path, line,
			err == E4_ERR_INVALID_ARGUMENT ? "syntax error" : error_message(err));
		return -1;
	}
	m->lo.profile = m->profile;
	return 0;
}

static const char *lookup(struct mkfs *m, const char *key)
{
	const char *types[E4_LAYOUT_MAX_TYPES];

	for (unsigned i = 0; i < m->l->ntypes; i++)
		types[i] = m->l->types[i];
	return e4_profile_lookup(m->profile, types, m->l->ntypes, key);
}

static int lookup_bool(struct mkfs *m, const char *key, int def)
{
	int b = e4_profile_bool(lookup(m, key));

	return b < 0 ? def : b;
}

int mkfs_apply_profile(struct mkfs *m)
{
	const char *v;

	if (!m->errors) {
		v = lookup(m, "errors");
		if (v) {
			if (!strcmp(v, "continue"))
				m->errors = 1;
			else if (!strcmp(v, "remount-ro"))
				m->errors = 2;
			else if (!strcmp(v, "panic"))
				m->errors = 3;
			else {
				fprintf(stderr, "%s: invalid errors behavior in the configuration - "
					"%s\n", m->prog, v);
				return -1;
			}
		}
	}
	v = lookup(m, "default_mntopts");
	if (m->l->rev_level == EXT4_GOOD_OLD_REV) {
		/* mke2fs reads them only for revision 1 */
		m->default_mntopts = 0;
	} else {
		char *copy = strdup(v ? v : "acl,user_xattr"), *save = NULL, *tok;
		uint32_t o = 0;

		if (!copy)
			return -1;
		for (tok = strtok_r(copy, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
			if (e4_mntopt_edit(&o, tok)) {
				fprintf(stderr, "%s: invalid mount option set in the configuration: "
					"%s\n", m->prog, v);
				free(copy);
				return -1;
			}
		}
		free(copy);
		m->default_mntopts = o;
	}
	if (lookup_bool(m, "make_hugefiles", 0)) {
		fprintf(stderr, "%s: hugefiles (make_hugefiles in the configuration) are not "
			"supported yet\n", m->prog);
		return -1;
	}
	m->periodic_fsck = lookup_bool(m, "enable_periodic_fsck", 0);
	if (!m->lazy_itable_set)
		m->lazy_itable_init = lookup_bool(m, "lazy_itable_init", m->lazy_itable_init);
	if (!m->lazy_journal_set)
		m->lazy_journal_init = lookup_bool(m, "lazy_journal_init", m->lazy_journal_init);
	if (!m->discard_set)
		m->discard = lookup_bool(m, "discard", m->discard);
	return 0;
}
