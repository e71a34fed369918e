/*
 * layout_profile.c: mke2fs.conf-style profiles for e4_layout_compute():
 * the built-in one (Debian e2fsprogs 1.47.0's /etc/mke2fs.conf), the
 * parser and the lookups by filesystem type (see e4.h, "layout").
 */
#include "layout_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- the built-in profile: Debian e2fsprogs 1.47.0 /etc/mke2fs.conf --- */
static const char builtin_profile[] =
	"[defaults]\n"
	"base_features = sparse_super,large_file,filetype,resize_inode,dir_index,ext_attr\n"
	"default_mntopts = acl,user_xattr\n"
	"enable_periodic_fsck = 0\n"
	"blocksize = 4096\n"
	"inode_size = 256\n"
	"inode_ratio = 16384\n"
	"[fs_types]\n"
	"ext3 = {\n features = has_journal\n}\n"
	"ext4 = {\n features = has_journal,extent,huge_file,flex_bg,metadata_csum,64bit,"
	"dir_nlink,extra_isize\n}\n"
	"small = {\n blocksize = 1024\n inode_ratio = 4096\n}\n"
	"floppy = {\n blocksize = 1024\n inode_ratio = 8192\n}\n"
	"big = {\n inode_ratio = 32768\n}\n"
	"huge = {\n inode_ratio = 65536\n}\n"
	"news = {\n inode_ratio = 4096\n}\n"
	"largefile = {\n inode_ratio = 1048576\n blocksize = -1\n}\n"
	"largefile4 = {\n inode_ratio = 4194304\n blocksize = -1\n}\n"
	"hurd = {\n blocksize = 4096\n inode_size = 128\n warn_y2038_dates = 0\n}\n";

#define PROF_MAX_DEPTH		8
#define PROF_MAX_ENTRIES	100000

struct prof_entry {
	char *section, *sub, *key, *val;	/* sub: top-level subsection or NULL */
};

struct e4_profile {
	struct prof_entry *e;
	size_t n, cap;
};

void e4_profile_free(struct e4_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++) {
		free(p->e[i].section);
		free(p->e[i].sub);
		free(p->e[i].key);
		free(p->e[i].val);
	}
	free(p->e);
	free(p);
}

static char *dup_n(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

static errcode_t prof_add(struct e4_profile *p, const char *section, const char *sub,
			  const char *key, size_t klen, const char *val, size_t vlen)
{
	struct prof_entry *e;

	if (p->n >= PROF_MAX_ENTRIES)
		return E4_ERR_PROFILE_TOO_LARGE;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 32;
		struct prof_entry *ne = realloc(p->e, cap * sizeof(*ne));

		if (!ne)
			return E4_ERR_NO_MEMORY;
		p->e = ne;
		p->cap = cap;
	}
	e = &p->e[p->n];
	memset(e, 0, sizeof(*e));
	e->section = strdup(section);
	e->sub = sub ? strdup(sub) : NULL;
	e->key = dup_n(key, klen);
	e->val = val ? dup_n(val, vlen) : NULL;
	p->n++;
	if (!e->section || (sub && !e->sub) || !e->key || (val && !e->val))
		return E4_ERR_NO_MEMORY;
	return 0;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* One line [s, e): 0, or an error (a malformed line). */
static errcode_t prof_line(struct e4_profile *p, const char *s, const char *e, char *section,
			   size_t section_len, char *sub, size_t sub_len, int *depth)
{
	const char *k, *ke, *v;

	while (s < e && is_space(*s))
		s++;
	while (e > s && is_space(e[-1]))
		e--;
	if (s == e || *s == '#' || *s == ';')
		return 0;
	if (*s == '[') {
		const char *c = memchr(s, ']', (size_t)(e - s));

		if (!c || *depth || c == s + 1 || (size_t)(c - s - 1) >= section_len)
			return E4_ERR_INVALID_ARGUMENT;
		memcpy(section, s + 1, (size_t)(c - s - 1));
		section[c - s - 1] = 0;
		return 0;
	}
	if (*s == '}') {
		if (!*depth)
			return E4_ERR_INVALID_ARGUMENT;
		if (--*depth == 0)
			sub[0] = 0;
		return 0;
	}
	if (!section[0])
		return E4_ERR_INVALID_ARGUMENT;
	k = s;
	while (s < e && !is_space(*s) && *s != '=')
		s++;
	ke = s;
	while (s < e && is_space(*s))
		s++;
	if (ke == k || s == e || *s != '=')
		return E4_ERR_INVALID_ARGUMENT;
	s++;
	while (s < e && is_space(*s))
		s++;
	v = s;
	if (s < e && *s == '{') {
		if (s + 1 != e || *depth >= PROF_MAX_DEPTH)
			return E4_ERR_INVALID_ARGUMENT;
		if (*depth == 0) {
			if ((size_t)(ke - k) >= sub_len)
				return E4_ERR_INVALID_ARGUMENT;
			memcpy(sub, k, (size_t)(ke - k));
			sub[ke - k] = 0;
		}
		++*depth;
		return 0;
	}
	if (*depth > 1)
		return 0;	/* deeper relations: nothing mke2fs reads */
	if (e - v >= 2 && *v == '"' && e[-1] == '"') {
		v++;
		e--;
	}
	return prof_add(p, section, *depth ? sub : NULL, k, (size_t)(ke - k), v, (size_t)(e - v));
}

errcode_t e4_profile_parse(const char *text, size_t len, struct e4_profile **ret,
			   unsigned *bad_line)
{
	struct e4_profile *p = calloc(1, sizeof(*p));
	char section[64] = "", sub[64] = "";
	const char *s = text, *end = text + len;
	unsigned line = 0;
	int depth = 0;
	errcode_t err = 0;

	*ret = NULL;
	if (!p)
		return E4_ERR_NO_MEMORY;
	while (s < end && !err) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;

		line++;
		if (memchr(s, 0, (size_t)(le - s)))
			err = E4_ERR_INVALID_ARGUMENT;
		else
			err = prof_line(p, s, le, section, sizeof(section), sub, sizeof(sub), &depth);
		s = nl ? nl + 1 : end;
	}
	if (!err && depth) {
		err = E4_ERR_INVALID_ARGUMENT;
		line++;
	}
	if (err) {
		if (bad_line)
			*bad_line = line;
		e4_profile_free(p);
		return err;
	}
	*ret = p;
	return 0;
}

errcode_t e4_profile_builtin(struct e4_profile **ret)
{
	return e4_profile_parse(builtin_profile, sizeof(builtin_profile) - 1, ret, NULL);
}

const char *e4_profile_get(const struct e4_profile *p, const char *section, const char *sub,
			   const char *key)
{
	if (!p)
		return NULL;
	for (size_t i = 0; i < p->n; i++) {
		const struct prof_entry *e = &p->e[i];

		if (strcmp(e->section, section) || strcmp(e->key, key))
			continue;
		if (sub ? (e->sub && !strcmp(e->sub, sub)) : !e->sub)
			return e->val;
	}
	return NULL;
}

int e4_lay_prof_has_sub(const struct e4_profile *p, const char *section, const char *sub)
{
	for (size_t i = 0; p && i < p->n; i++)
		if (p->e[i].sub && !strcmp(p->e[i].section, section) && !strcmp(p->e[i].sub, sub))
			return 1;
	return 0;
}

const char *e4_profile_lookup(const struct e4_profile *p, const char *const *types,
			      unsigned ntypes, const char *key)
{
	for (unsigned i = ntypes; i-- > 0;) {
		const char *v = e4_profile_get(p, "fs_types", types[i], key);

		if (v)
			return v;
	}
	return e4_profile_get(p, "defaults", NULL, key);
}

int e4_profile_bool(const char *v)
{
	static const char *const yes[] = { "y", "yes", "true", "t", "1", "on", NULL };
	static const char *const no[] = { "n", "no", "false", "nil", "0", "off", NULL };

	for (int i = 0; v && yes[i]; i++) {
		if (!strcasecmp(v, yes[i]))
			return 1;
		if (!strcasecmp(v, no[i]))
			return 0;
	}
	return -1;
}
