/*
 * layout.c: the geometry mke2fs 1.47.0 chooses, computed without I/O
 * (see e4.h, "layout").
 *
 * The computation follows mke2fs's steps: profile and size class, block
 * size, features, inode count, then the group geometry (with its retries:
 * fewer blocks per group when inodes do not fit, dropping a last group too
 * small for its metadata, switching to meta_bg when the reserved GDT would
 * not fit), the placement of bitmaps and inode tables (flex_bg packing,
 * stride, packed_meta_blocks), and finally the blocks taken by root,
 * lost+found, the resize inode, the journal and the orphan file, all found
 * by first fit as mke2fs's allocator finds them.
 *
 * Used blocks are kept as the superblock/descriptor prefix of each group
 * (computed) plus a sorted list of allocated runs, so a large filesystem
 * costs memory per group descriptor, not per block.
 */
#include "e4_private.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_32		0xFFFFFFFFULL
#define LAYOUT_EXT_MAX_LEN 32768U
#define NONE		UINT64_MAX

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

/* What mke2fs uses for a key no profile line sets. */
#define PROF_BASE_FEATURES	"sparse_super,large_file,filetype,resize_inode,dir_index"
#define PROF_DEFAULT_BLOCK_SIZE	4096
#define PROF_DEFAULT_INODE_RATIO 8192
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

static int prof_has_sub(const struct e4_profile *p, const char *section, const char *sub)
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

/* Features mke2fs accepts with -O (its ok_features). */
static const uint32_t ok_features[3] = {
	EXT4_FEATURE_COMPAT_HAS_JOURNAL | EXT4_FEATURE_COMPAT_RESIZE_INODE |
	EXT4_FEATURE_COMPAT_DIR_INDEX | EXT4_FEATURE_COMPAT_EXT_ATTR |
	EXT4_FEATURE_COMPAT_SPARSE_SUPER2 | EXT4_FEATURE_COMPAT_FAST_COMMIT |
	EXT4_FEATURE_COMPAT_STABLE_INODES | EXT4_FEATURE_COMPAT_ORPHAN_FILE,
	EXT4_FEATURE_INCOMPAT_FILETYPE | EXT4_FEATURE_INCOMPAT_EXTENTS |
	EXT4_FEATURE_INCOMPAT_JOURNAL_DEV | EXT4_FEATURE_INCOMPAT_META_BG |
	EXT4_FEATURE_INCOMPAT_FLEX_BG | EXT4_FEATURE_INCOMPAT_EA_INODE |
	EXT4_FEATURE_INCOMPAT_MMP | EXT4_FEATURE_INCOMPAT_64BIT |
	EXT4_FEATURE_INCOMPAT_INLINE_DATA | EXT4_FEATURE_INCOMPAT_ENCRYPT |
	EXT4_FEATURE_INCOMPAT_CASEFOLD | EXT4_FEATURE_INCOMPAT_CSUM_SEED |
	EXT4_FEATURE_INCOMPAT_LARGEDIR,
	EXT4_FEATURE_RO_COMPAT_LARGE_FILE | EXT4_FEATURE_RO_COMPAT_HUGE_FILE |
	EXT4_FEATURE_RO_COMPAT_DIR_NLINK | EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE |
	EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER | EXT4_FEATURE_RO_COMPAT_GDT_CSUM |
	EXT4_FEATURE_RO_COMPAT_BIGALLOC | EXT4_FEATURE_RO_COMPAT_QUOTA |
	EXT4_FEATURE_RO_COMPAT_METADATA_CSUM | EXT4_FEATURE_RO_COMPAT_PROJECT |
	EXT4_FEATURE_RO_COMPAT_VERITY,
};

int e4_layout_known_type(const struct e4_profile *p, const char *name)
{
	struct e4_profile *own = NULL;
	int r;

	if (!name)
		return 0;
	if (!strcmp(name, "ext2"))
		return 1;
	if (!p && e4_profile_builtin(&own))
		return 0;
	r = prof_has_sub(p ? p : own, "fs_types", name);
	e4_profile_free(own);
	return r;
}

/* Apply one comma-separated edit list to feat[3] (set) / clr[3] (clear). */
static errcode_t edit_features(const char *list, uint32_t set[3], uint32_t clr[3])
{
	char tok[64];
	const char *p = list;

	while (p && *p) {
		const char *e = strpbrk(p, ", \t");
		size_t n = e ? (size_t)(e - p) : strlen(p);
		int neg = 0;
		enum e4_feature_kind kind;
		uint32_t mask;

		if (n == 0) {
			p = e + 1;
			continue;
		}
		if (n >= sizeof(tok))
			return E4_ERR_INVALID_ARGUMENT;
		memcpy(tok, p, n);
		tok[n] = 0;
		p = e ? e + 1 : NULL;
		if (tok[0] == '^' || tok[0] == '-') {
			neg = 1;
			memmove(tok, tok + 1, n);
		} else if (tok[0] == '+') {
			memmove(tok, tok + 1, n);
		}
		if (!strcasecmp(tok, "none") || !strcasecmp(tok, "clear")) {
			for (int k = 0; k < 3; k++) {
				set[k] = 0;
				clr[k] = ~0U;
			}
			continue;
		}
		if (e4_feature_lookup(tok, &kind, &mask))
			return E4_ERR_INVALID_ARGUMENT;
		if (neg) {
			clr[kind] |= mask;
			set[kind] &= ~mask;
		} else {
			set[kind] |= mask;
			clr[kind] &= ~mask;
		}
	}
	return 0;
}

void e4_layout_opts_init(struct e4_layout_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->reserved_percent = -1.0;
	o->num_backup_sb = E4_LAYOUT_AUTO;
	o->journal_blocks = E4_LAYOUT_AUTO;
	o->orphan_file_blocks = E4_LAYOUT_AUTO;
}

errcode_t e4_layout_opts_features(struct e4_layout_opts *o, const char *list)
{
	uint32_t set[3], clr[3];
	errcode_t err;

	memcpy(set, o->feat_set, sizeof(set));
	memcpy(clr, o->feat_clear, sizeof(clr));
	err = edit_features(list, set, clr);
	if (err)
		return err;
	memcpy(o->feat_set, set, sizeof(set));
	memcpy(o->feat_clear, clr, sizeof(clr));
	return 0;
}

uint32_t e4_layout_default_journal_blocks(uint64_t n)
{
	if (n < 2048)
		return 0;
	if (n < 32768)
		return 1024;
	if (n < 256 * 1024)
		return 4096;
	if (n < 512 * 1024)
		return 8192;
	if (n < 4096 * 1024)
		return 16384;
	if (n < 8192 * 1024)
		return 32768;
	if (n < 16384 * 1024)
		return 65536;
	if (n < 32768 * 1024)
		return 131072;
	return 262144;
}

uint32_t e4_layout_default_orphan_blocks(uint64_t n, unsigned cluster_bits)
{
	uint32_t b = 512, mask = (1U << cluster_bits) - 1;

	if (n < 128 * 1024)
		b = 32;
	else if (n < 2 * 1024 * 1024)
		b = (uint32_t)(n / 4096);
	return (b + mask) & ~mask;
}

uint32_t e4_layout_max_orphan_blocks(unsigned block_size)
{
	uint32_t n = block_size ? (uint32_t)((8U << 20) / block_size) : 512;

	return n < 512 ? n : 512;
}

static unsigned ilog2(uint64_t v)
{
	unsigned r = 0;

	while (v > 1) {
		v >>= 1;
		r++;
	}
	return r;
}

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static uint64_t div_ceil(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

/* ---- the allocation model -------------------------------------------- */
struct run {
	uint64_t start, len;
};

struct ctx {
	struct e4_layout *l;
	uint64_t blocks;
	uint32_t fdb, bpg, groups;
	unsigned cbits;
	uint64_t cmask;
	struct run *runs;
	size_t nruns, cap;
	uint8_t *uninit_cleared;	/* per group: BLOCK_UNINIT cleared */
	int oom;
};

static uint64_t g_first(const struct ctx *c, uint64_t g)
{
	return c->fdb + g * c->bpg;
}

static uint64_t g_last(const struct ctx *c, uint64_t g)
{
	if (g + 1 >= c->groups)
		return c->blocks - 1;
	return g_first(c, g) + c->bpg - 1;
}

static uint32_t g_of(const struct ctx *c, uint64_t b)
{
	return (uint32_t)((b - c->fdb) / c->bpg);
}

/* First run whose end is above b. */
static size_t run_find(const struct ctx *c, uint64_t b)
{
	size_t lo = 0, hi = c->nruns;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c->runs[mid].start + c->runs[mid].len > b)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* First used block in [b, b + n), NONE if all free.  Blocks outside the
 * filesystem count as used. */
static uint64_t first_used(const struct ctx *c, uint64_t b, uint64_t n)
{
	uint64_t end = b + n, res = NONE;
	size_t i;

	if (b < c->fdb)
		return b;
	if (b >= c->blocks)
		return b;
	if (end > c->blocks)
		res = c->blocks;
	for (uint64_t g = g_of(c, b); g < c->groups; g++) {
		uint64_t gs = g_first(c, g), p = c->l->groups[g].sb_blocks;

		if (gs >= end || gs >= res)
			break;
		if (p && gs + p > b) {
			uint64_t cand = gs > b ? gs : b;

			if (cand < res)
				res = cand;
			break;
		}
	}
	i = run_find(c, b);
	if (i < c->nruns && c->runs[i].start < end) {
		uint64_t cand = c->runs[i].start > b ? c->runs[i].start : b;

		if (cand < res)
			res = cand;
	}
	return res < end ? res : NONE;
}

/* First free block at or after u (c->blocks if none): past the used run
 * and the superblock copy holding u.  The searches below step over a used
 * stretch at once; one block at a time, packed metadata (packed_meta_blocks:
 * every group's bitmaps and inode table in a row) cost a step per block. */
static uint64_t next_free(const struct ctx *c, uint64_t u)
{
	for (;;) {
		uint64_t v = u < c->fdb ? c->fdb : u, gs, p;
		size_t i;

		if (v >= c->blocks)
			return c->blocks;
		gs = g_first(c, g_of(c, v));
		p = c->l->groups[g_of(c, v)].sb_blocks;
		if (p && v < gs + p)
			v = gs + p;
		i = run_find(c, v);
		if (i < c->nruns && c->runs[i].start <= v)
			v = c->runs[i].start + c->runs[i].len;
		if (v == u)
			return u;
		u = v;
	}
}

static void clear_uninit(struct ctx *c, uint64_t b, uint64_t n)
{
	for (uint64_t g = g_of(c, b); g <= g_of(c, b + n - 1) && g < c->groups; g++)
		c->uninit_cleared[g] = 1;
}

/* Mark [b, b + n) used. */
static void mark(struct ctx *c, uint64_t b, uint64_t n)
{
	size_t i, j;
	uint64_t s = b, e = b + n;

	if (!n)
		return;
	i = run_find(c, b ? b - 1 : 0);		/* runs that end at or after b */
	if (i < c->nruns && c->runs[i].start + c->runs[i].len < b)
		i++;
	j = i;
	while (j < c->nruns && c->runs[j].start <= e) {
		if (c->runs[j].start < s)
			s = c->runs[j].start;
		if (c->runs[j].start + c->runs[j].len > e)
			e = c->runs[j].start + c->runs[j].len;
		j++;
	}
	if (j == i) {
		if (c->nruns == c->cap) {
			size_t ncap = c->cap ? c->cap * 2 : 256;
			struct run *r = realloc(c->runs, ncap * sizeof(*r));

			if (!r) {
				c->oom = 1;
				return;
			}
			c->runs = r;
			c->cap = ncap;
		}
		memmove(&c->runs[i + 1], &c->runs[i], (c->nruns - i) * sizeof(*c->runs));
		c->nruns++;
	} else if (j > i + 1) {
		memmove(&c->runs[i + 1], &c->runs[j], (c->nruns - j) * sizeof(*c->runs));
		c->nruns -= j - i - 1;
	}
	c->runs[i].start = s;
	c->runs[i].len = e - s;
}

/*
 * The reference's search for a free run, at block granularity: the first
 * b in [start, finish) (wrapping to the first data block when finish <=
 * start) with [b, b + num) free.
 */
static int get_free_blocks(const struct ctx *c, uint64_t start, uint64_t finish,
			   uint64_t num, uint64_t *ret)
{
	uint64_t b = start, limit;
	int wraps = 0;

	if (!b)
		b = c->fdb;
	if (!finish)
		finish = start;
	if (!num)
		num = 1;
	if (num > c->blocks - c->fdb)
		return -1;
	limit = c->blocks - num + 1;	/* first b whose range passes the end */
	for (;;) {
		uint64_t u, t;

		if (b >= limit) {
			if (finish > start || ++wraps > 1)
				return -1;
			b = c->fdb;
		}
		u = first_used(c, b, num);
		if (u == NONE) {
			*ret = b;
			return 0;
		}
		t = next_free(c, u);
		if (t > limit)
			t = limit;
		if (finish > b && finish <= t)
			return -1;
		b = t;
	}
}

/* First free cluster at or after goal (then from the first data block),
 * as the reference's single-block allocator does on the cluster bitmap.
 * Returns its first block. */
static int new_block(const struct ctx *c, uint64_t goal, uint64_t *ret)
{
	uint64_t ratio = c->cmask + 1;

	if (!goal || goal >= c->blocks)
		goal = c->fdb;
	goal &= ~c->cmask;
	for (int pass = 0; pass < 2; pass++) {
		uint64_t b = pass ? (c->fdb & ~c->cmask) : goal;
		uint64_t end = pass ? goal : c->blocks;

		while (b < end) {
			uint64_t n = ratio, u;

			if (b + n > c->blocks)
				n = c->blocks - b;
			u = first_used(c, b, n);
			if (u == NONE) {
				*ret = b;
				return 0;
			}
			b = (next_free(c, u) + c->cmask) & ~c->cmask;
		}
		if (goal == c->fdb)
			break;
	}
	return -1;
}

/* Free clusters of group g under the current model. */
static uint32_t group_free(const struct ctx *c, uint32_t g)
{
	uint64_t gs = g_first(c, g), ge = g_last(c, g) + 1;
	uint64_t nclus = (ge - gs + c->cmask) >> c->cbits, used = 0;
	uint64_t last = NONE;		/* last cluster counted */
	uint64_t p = c->l->groups[g].sb_blocks;
	size_t i;

	if (p) {
		used = ((gs + p - 1) >> c->cbits) - (gs >> c->cbits) + 1;
		last = (gs + p - 1) >> c->cbits;
	}
	for (i = run_find(c, gs); i < c->nruns && c->runs[i].start < ge; i++) {
		uint64_t s = c->runs[i].start > gs ? c->runs[i].start : gs;
		uint64_t e = c->runs[i].start + c->runs[i].len;
		uint64_t cs, ce;

		if (e > ge)
			e = ge;
		cs = s >> c->cbits;
		ce = (e - 1) >> c->cbits;
		if (last != NONE && cs <= last)
			cs = last + 1;
		if (cs <= ce)
			used += ce - cs + 1;
		if (last == NONE || ce > last)
			last = ce;
	}
	return (uint32_t)(nclus - used);
}

/* ---- superblock backups ---------------------------------------------- */
static int test_root(uint32_t a, uint32_t b)
{
	for (;;) {
		if (a < b)
			return 0;
		if (a == b)
			return 1;
		if (a % b)
			return 0;
		a /= b;
	}
}

static int bg_has_super(const struct e4_layout *l, uint32_t g)
{
	if (g == 0)
		return 1;
	if (l->feature_compat & EXT4_FEATURE_COMPAT_SPARSE_SUPER2)
		return g == l->backup_bgs[0] || g == l->backup_bgs[1];
	if (g <= 1 || !(l->feature_ro_compat & EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER))
		return 1;
	if (!(g & 1))
		return 0;
	return test_root(g, 3) || test_root(g, 5) || test_root(g, 7);
}

/* ---- the parameters mke2fs's option parsing settles ------------------- */
struct params {
	uint64_t blocks;		/* fs_blocks_count */
	unsigned log_bs, log_cs;
	uint32_t feat[3];
	uint32_t bpg_param, cpg_param;
	uint32_t rsv_gdt_param;
	uint32_t inodes_param;
	uint64_t r_blocks;
	unsigned inode_size;		/* 0: 128 */
	unsigned log_flex;
	unsigned desc_size;
	uint32_t backup_param[2];
	int journal;			/* a journal is wanted */
	int64_t journal_req;		/* > 0: requested size */
	double reserved_ratio;
	int packed;
};

/* An integer key for the layout's type list: the profile's value (as
 * strtol reads it; a malformed one is ignored, as the reference does), or
 * def. */
static long prof_long(const struct e4_profile *pr, const struct e4_layout *l, const char *key,
		      long def)
{
	const char *types[E4_LAYOUT_MAX_TYPES];
	const char *v;
	char *end;
	long r;

	for (unsigned i = 0; i < l->ntypes; i++)
		types[i] = l->types[i];
	v = e4_profile_lookup(pr, types, l->ntypes, key);
	if (!v || !*v)
		return def;
	errno = 0;
	r = strtol(v, &end, 0);
	if (errno || *end)
		return def;
	return r;
}

static const char *prof_str(const struct e4_profile *pr, const struct e4_layout *l,
			    const char *key)
{
	const char *types[E4_LAYOUT_MAX_TYPES];

	for (unsigned i = 0; i < l->ntypes; i++)
		types[i] = l->types[i];
	return e4_profile_lookup(pr, types, l->ntypes, key);
}

/* err, saying (when the caller asked) that the profile's key was the cause */
static errcode_t prof_bad(const struct e4_layout_opts *o, const char *key, errcode_t err)
{
	if (o->bad_key)
		*o->bad_key = key;
	return err;
}

static void add_type(struct e4_layout *l, const char *name, size_t n)
{
	if (l->ntypes >= E4_LAYOUT_MAX_TYPES || n >= sizeof(l->types[0]))
		return;
	memcpy(l->types[l->ntypes], name, n);
	l->types[l->ntypes][n] = 0;
	l->ntypes++;
}

static errcode_t settle_params(const struct e4_layout_opts *o, struct e4_layout *l,
			       struct params *p, const struct e4_profile *pr)
{
	unsigned page = o->page_size ? o->page_size : 4096;
	unsigned bs, inode_ratio, inode_size;
	uint64_t blocks, cs;
	uint32_t set[3] = { 0, 0, 0 }, clr[3] = { 0, 0, 0 };
	const char *ext_type = o->fs_type;
	const char *v;
	errcode_t err;

	memset(p, 0, sizeof(*p));
	if (o->block_size) {
		if (o->block_size < 1024 || o->block_size > 65536 || !is_pow2(o->block_size))
			return E4_ERR_BAD_BLOCK_SIZE;
		if (o->sector_size && o->block_size < o->sector_size)
			return E4_ERR_BAD_BLOCK_SIZE;
		p->log_bs = ilog2(o->block_size) - 10;
	}
	if (o->journal_blocks < -2)
		return E4_ERR_INVALID_ARGUMENT;
	p->journal_req = o->journal_blocks > 0 ? o->journal_blocks : 0;

	/* device size: in the block size known so far (1 KiB if none) */
	if (o->blocks_count) {
		blocks = o->blocks_count;
	} else {
		unsigned ubs = 1024U << p->log_bs;

		blocks = o->dev_bytes / ubs;
		if (page > ubs)
			blocks &= ~((uint64_t)(page / ubs) - 1);
		if (!blocks)
			return E4_ERR_FS_TOO_SMALL;
	}

	/* size class and the list of profile types */
	{
		uint64_t meg = (1024 * 1024) >> (10 + p->log_bs);
		const char *size_type;

		if (blocks < 3 * meg)
			size_type = "floppy";
		else if (blocks < 512 * meg)
			size_type = "small";
		else if (blocks < 4ULL * 1024 * 1024 * meg)
			size_type = "default";
		else if (blocks < 16ULL * 1024 * 1024 * meg)
			size_type = "big";
		else
			size_type = "huge";
		l->size_type = size_type;
		if (!ext_type) {
			ext_type = e4_profile_get(pr, "defaults", NULL, "fs_type");
			if (!ext_type)
				ext_type = "ext2";
			if (!strcmp(ext_type, "ext2") && (o->journal_blocks > 0 ||
			    o->journal_blocks == E4_LAYOUT_JOURNAL_FORCE))
				ext_type = "ext3";
		}
		if (!e4_layout_known_type(pr, ext_type))
			return E4_ERR_INVALID_ARGUMENT;
		l->ntypes = 0;
		add_type(l, ext_type, strlen(ext_type));
		if (!l->ntypes)
			return E4_ERR_INVALID_ARGUMENT;
		l->fs_type = l->types[0];
		{
			const char *s = o->usage_types ? o->usage_types : size_type;

			while (*s) {
				size_t n = strcspn(s, ",");
				char name[32];

				if (n && n < sizeof(name)) {
					memcpy(name, s, n);
					name[n] = 0;
					if (prof_has_sub(pr, "fs_types", name))
						add_type(l, s, n);
				}
				s += n;
				if (*s)
					s++;
			}
		}
	}

	/* features: base, each type's, then the user's edits (or the
	 * profile's default_features without any); revision 0: only the
	 * edits, which may not leave one set (mke2fs 1.47.0 -r 0) */
	l->rev_level = o->good_old_rev ? EXT4_GOOD_OLD_REV : EXT4_DYNAMIC_REV;
	v = prof_str(pr, l, "base_features");
	err = o->good_old_rev ? 0 : edit_features(v ? v : PROF_BASE_FEATURES, set, clr);
	if (err)
		return prof_bad(o, "base_features", err);
	for (unsigned i = 0; !err && !o->good_old_rev && i < l->ntypes; i++) {
		v = e4_profile_get(pr, "fs_types", l->types[i], "features");
		if (v && *v && (err = edit_features(v, set, clr)))
			return prof_bad(o, "features", err);
	}
	if (!err && !o->good_old_rev &&
	    !o->feat_set[0] && !o->feat_set[1] && !o->feat_set[2] &&
	    !o->feat_clear[0] && !o->feat_clear[1] && !o->feat_clear[2]) {
		v = prof_str(pr, l, "default_features");
		if (v && *v && (err = edit_features(v, set, clr)))
			return prof_bad(o, "default_features", err);
	}
	if (err)
		return err;
	for (int k = 0; k < 3; k++) {
		p->feat[k] = (set[k] & ~o->feat_clear[k]) | o->feat_set[k];
		if (o->feat_set[k] & ~ok_features[k])
			return E4_ERR_INVALID_ARGUMENT;
	}
	if (o->good_old_rev && (p->feat[0] || p->feat[1] || p->feat[2] ||
				o->journal_blocks > 0 ||
				o->journal_blocks == E4_LAYOUT_JOURNAL_FORCE))
		return E4_ERR_CONFLICT_REV0;
	if (o->journal_blocks == 0)
		p->feat[0] &= ~EXT4_FEATURE_COMPAT_HAS_JOURNAL;
	if (p->feat[1] & EXT4_FEATURE_INCOMPAT_JOURNAL_DEV)
		return E4_ERR_UNSUPPORTED;
	if (p->feat[2] & (EXT4_FEATURE_RO_COMPAT_QUOTA | EXT4_FEATURE_RO_COMPAT_PROJECT))
		return E4_ERR_UNSUPPORTED;

	/* block size */
	if (!o->block_size) {
		long use = prof_long(pr, l, "blocksize", PROF_DEFAULT_BLOCK_SIZE);

		if (use == -1)
			use = (long)page;
		if (o->sector_size && use < (long)o->sector_size)
			use = (long)o->sector_size;
		if (use < 1024 || use > 65536 || !is_pow2((unsigned)use))
			return prof_bad(o, "blocksize", E4_ERR_BAD_BLOCK_SIZE);
		bs = (unsigned)use;
		blocks /= bs / 1024;
		p->log_bs = ilog2(bs) - 10;
	} else {
		bs = o->block_size;
	}
	if (!blocks)
		return E4_ERR_FS_TOO_SMALL;

	if (blocks > MAX_32 && (p->feat[1] & EXT4_FEATURE_INCOMPAT_64BIT))
		p->feat[0] &= ~EXT4_FEATURE_COMPAT_RESIZE_INODE;
	if (blocks > MAX_32 && !(p->feat[1] & EXT4_FEATURE_INCOMPAT_64BIT))
		return E4_ERR_FS_TOO_BIG;
	if (p->log_bs + 10 + 3 + 32 < 64 &&
	    blocks > (1ULL << (p->log_bs + 10 + 3 + 32)) - 1)
		return E4_ERR_FS_TOO_BIG;

	if (o->journal_blocks > 0 || o->journal_blocks == E4_LAYOUT_JOURNAL_FORCE)
		p->feat[0] |= EXT4_FEATURE_COMPAT_HAS_JOURNAL;
	if (o->reserved_percent < 0) {
		const char *rv = prof_str(pr, l, "reserved_ratio");
		char *end;

		p->reserved_ratio = 5.0;
		if (rv && *rv) {
			double d = strtod(rv, &end);

			if (!*end)
				p->reserved_ratio = d;
		}
		if (p->reserved_ratio < 0 || p->reserved_ratio > 50)
			return prof_bad(o, "reserved_ratio", E4_ERR_INVALID_ARGUMENT);
	} else {
		p->reserved_ratio = o->reserved_percent;
	}
	if (p->reserved_ratio > 50)
		return E4_ERR_INVALID_ARGUMENT;

	if ((p->feat[1] & EXT4_FEATURE_INCOMPAT_64BIT) &&
	    !(p->feat[1] & EXT4_FEATURE_INCOMPAT_EXTENTS))
		return E4_ERR_CONFLICT_NEED_EXTENT;
	if ((p->feat[2] & EXT4_FEATURE_RO_COMPAT_VERITY) &&
	    !(p->feat[1] & EXT4_FEATURE_INCOMPAT_EXTENTS))
		return E4_ERR_CONFLICT_NEED_EXTENT;

	/* cluster size */
	if (p->feat[2] & EXT4_FEATURE_RO_COMPAT_BIGALLOC) {
		cs = o->cluster_size ? o->cluster_size :
		     (uint64_t)prof_long(pr, l, "cluster_size", (long)bs * 16);
		if (cs <= 1024 || cs > (1ULL << 29) || !is_pow2(cs))
			return E4_ERR_BAD_CLUSTER_SIZE;
		p->log_cs = ilog2(cs) - 10;
		if (p->log_cs < p->log_bs)
			return E4_ERR_BAD_CLUSTER_SIZE;
	} else if (o->cluster_size) {
		return E4_ERR_CONFLICT_CLUSTER;
	} else {
		p->log_cs = p->log_bs;
		cs = bs;
	}

	inode_ratio = o->inode_ratio;
	if (inode_ratio) {
		if (inode_ratio < 1024 || inode_ratio > 65536U * 1024)
			return E4_ERR_INVALID_ARGUMENT;
	} else {
		long r = prof_long(pr, l, "inode_ratio", PROF_DEFAULT_INODE_RATIO);

		if (r < 1024 || r > 65536L * 1024)
			return prof_bad(o, "inode_ratio", E4_ERR_INVALID_ARGUMENT);
		inode_ratio = (unsigned)r;
		if (inode_ratio < bs)
			inode_ratio = bs;
		if (inode_ratio < cs)
			inode_ratio = (unsigned)cs;
	}
	l->inode_ratio = inode_ratio;

	if (p->feat[1] & EXT4_FEATURE_INCOMPAT_64BIT)
		p->desc_size = EXT4_MIN_DESC_SIZE_64BIT;
	if (o->desc_size) {
		if (!(p->feat[1] & EXT4_FEATURE_INCOMPAT_64BIT))
			return E4_ERR_BAD_DESC_SIZE;
		if (o->desc_size < EXT4_MIN_DESC_SIZE_64BIT || o->desc_size > EXT4_MAX_DESC_SIZE ||
		    !is_pow2(o->desc_size))
			return E4_ERR_BAD_DESC_SIZE;
		p->desc_size = o->desc_size;
	}
	p->bpg_param = o->blocks_per_group;
	if (p->bpg_param % 8)
		return E4_ERR_BAD_BLOCKS_PER_GROUP;
	if (o->num_backup_sb > 2)
		return E4_ERR_INVALID_ARGUMENT;

	/* -E resize= (computed where mke2fs parses it; nothing without
	 * features) */
	if (o->resize_blocks && !o->good_old_rev) {
		uint64_t bpg = p->bpg_param ? p->bpg_param : (uint64_t)bs * 8;
		unsigned dsz = p->desc_size ? p->desc_size : EXT4_MIN_DESC_SIZE;
		uint64_t gdpb = bs / dsz, ngroups, desc_blocks, rsv_groups;
		int64_t rsv_gdb;

		if (o->resize_blocks <= blocks)
			return E4_ERR_RESIZE_TOO_SMALL;
		ngroups = (uint32_t)div_ceil(blocks, bpg);
		desc_blocks = (ngroups + gdpb - 1) / gdpb;
		rsv_groups = div_ceil(o->resize_blocks, bpg);
		rsv_gdb = (int64_t)(uint32_t)div_ceil(rsv_groups, gdpb) - (int64_t)desc_blocks;
		if (rsv_gdb > (int64_t)(bs / 4))
			rsv_gdb = bs / 4;
		if (rsv_gdb > 0) {
			p->feat[0] |= EXT4_FEATURE_COMPAT_RESIZE_INODE;
			p->rsv_gdt_param = (uint32_t)rsv_gdb;
		}
	}
	p->packed = o->packed_meta_blocks != 0 ||
		    e4_profile_bool(prof_str(pr, l, "packed_meta_blocks")) == 1;

	if ((p->feat[2] & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) &&
	    (p->feat[2] & EXT4_FEATURE_RO_COMPAT_GDT_CSUM))
		p->feat[2] &= ~EXT4_FEATURE_RO_COMPAT_GDT_CSUM;
	if ((p->feat[2] & EXT4_FEATURE_RO_COMPAT_BIGALLOC) &&
	    !(p->feat[1] & EXT4_FEATURE_INCOMPAT_EXTENTS))
		return E4_ERR_CONFLICT_NEED_EXTENT;
	if ((p->feat[1] & EXT4_FEATURE_INCOMPAT_META_BG) &&
	    (p->feat[0] & EXT4_FEATURE_COMPAT_RESIZE_INODE))
		return E4_ERR_CONFLICT_META_BG_RESIZE;
	if ((p->feat[0] & EXT4_FEATURE_COMPAT_RESIZE_INODE) &&
	    !(p->feat[2] & EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER))
		return E4_ERR_CONFLICT_RESIZE_SPARSE;
	if ((p->feat[1] & EXT4_FEATURE_INCOMPAT_CSUM_SEED) &&
	    !(p->feat[2] & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM))
		return E4_ERR_CONFLICT_CSUM_SEED;
	if ((p->feat[0] & EXT4_FEATURE_COMPAT_ORPHAN_FILE) &&
	    !(p->feat[0] & EXT4_FEATURE_COMPAT_HAS_JOURNAL))
		return E4_ERR_CONFLICT_ORPHAN_JOURNAL;

	if (p->bpg_param && (p->bpg_param < 256 || p->bpg_param > 8ULL * bs))
		return E4_ERR_BAD_BLOCKS_PER_GROUP;
	if (p->feat[2] & EXT4_FEATURE_RO_COMPAT_BIGALLOC) {
		p->cpg_param = p->bpg_param;
		p->bpg_param = 0;
	}

	inode_size = o->inode_size;
	if (!inode_size) {
		long r = prof_long(pr, l, "inode_size", 0);

		if (r < 0 || r > 65536)
			return prof_bad(o, "inode_size", E4_ERR_BAD_INODE_SIZE);
		inode_size = (unsigned)r;
	}
	if (p->feat[1] & EXT4_FEATURE_INCOMPAT_FLEX_BG) {
		long pf = prof_long(pr, l, "flex_bg_size", 16);
		uint32_t fsz = o->flex_bg_size ? o->flex_bg_size :
			       (pf > 0 && pf <= (1L << 30) ? (uint32_t)pf : 0);

		if (!is_pow2(fsz))
			return o->flex_bg_size ? E4_ERR_INVALID_ARGUMENT :
			       prof_bad(o, "flex_bg_size", E4_ERR_INVALID_ARGUMENT);
		p->log_flex = ilog2(fsz);
	} else if (o->flex_bg_size) {
		return E4_ERR_CONFLICT_FLEX_BG;
	}
	if (inode_size) {
		if (inode_size < EXT4_GOOD_OLD_INODE_SIZE || inode_size > bs || !is_pow2(inode_size))
			return o->inode_size ? E4_ERR_BAD_INODE_SIZE :
			       prof_bad(o, "inode_size", E4_ERR_BAD_INODE_SIZE);
	}
	if (o->good_old_rev)
		inode_size = EXT4_GOOD_OLD_INODE_SIZE;	/* fixed in revision 0 */
	p->inode_size = inode_size;
	if ((p->feat[1] & EXT4_FEATURE_INCOMPAT_INLINE_DATA) &&
	    (inode_size ? inode_size : EXT4_GOOD_OLD_INODE_SIZE) == EXT4_GOOD_OLD_INODE_SIZE)
		return E4_ERR_CONFLICT_INLINE_ISIZE;

	/* inode count */
	{
		uint64_t n = o->inodes_count;

		if (!n) {
			n = blocks * bs / inode_ratio;
			if (n > MAX_32) {
				if (!(p->feat[1] & EXT4_FEATURE_INCOMPAT_64BIT))
					return E4_ERR_TOO_MANY_INODES;
				n = MAX_32;
			}
		} else if (n > MAX_32) {
			return E4_ERR_TOO_MANY_INODES;
		}
		p->inodes_param = (uint32_t)n;
		if ((uint64_t)p->inodes_param * (inode_size ? inode_size : 128) >= blocks * bs)
			return E4_ERR_TOO_MANY_INODES;
	}
	p->r_blocks = (uint64_t)(p->reserved_ratio * (double)blocks / 100.0);

	if (p->feat[0] & EXT4_FEATURE_COMPAT_SPARSE_SUPER2) {
		long nb = o->num_backup_sb != E4_LAYOUT_AUTO ? o->num_backup_sb :
			  prof_long(pr, l, "num_backup_sb", 2);

		if (nb >= 1)
			p->backup_param[0] = 1;
		if (nb >= 2)
			p->backup_param[1] = ~0U;
	}
	p->journal = (p->feat[0] & EXT4_FEATURE_COMPAT_HAS_JOURNAL) != 0;
	p->blocks = blocks;
	l->dev_blocks = blocks;
	l->raid_stride = o->stride;
	l->raid_stripe_width = o->stripe_width;
	return 0;
}

/* ---- the group geometry, as the reference first sets it up ----------- */
static errcode_t geometry(struct e4_layout *l, struct params *p)
{
	unsigned bs = 1024U << p->log_bs;
	uint64_t blocks, param_blocks = p->blocks;
	uint32_t bpg, cpg, ipg, ipb = 0, groups, desc_blocks, rsv;
	uint32_t inodes;
	unsigned cbits = p->log_cs - p->log_bs;
	unsigned isz = p->inode_size ? p->inode_size : EXT4_GOOD_OLD_INODE_SIZE;
	int bigalloc = (p->feat[2] & EXT4_FEATURE_RO_COMPAT_BIGALLOC) != 0;
	uint64_t r_blocks = p->r_blocks;
	int rounds = 0;

	l->block_size = bs;
	l->log_block_size = p->log_bs;
	l->log_cluster_size = p->log_cs;
	l->cluster_size = 1024U << p->log_cs;
	l->cluster_bits = cbits;
	l->first_data_block = p->log_cs ? 0 : 1;
	l->first_ino = EXT4_GOOD_OLD_FIRST_INO;
	l->inode_size = isz;
	l->feature_compat = p->feat[0];
	l->feature_incompat = p->feat[1];
	l->feature_ro_compat = p->feat[2];
	l->log_groups_per_flex = p->log_flex;

	if (bigalloc) {
		uint64_t bpg64;

		if (p->cpg_param)
			cpg = p->cpg_param;
		else if (p->log_cs + 10 + 15 < 32)
			cpg = bs * 8;
		else
			cpg = (bs - 1) * 8;
		if (cpg > 65528)
			cpg = 65528;
		bpg64 = (uint64_t)cpg << cbits;
		if (bpg64 >= (1ULL << 32))
			return E4_ERR_BAD_BLOCKS_PER_GROUP;
		bpg = (uint32_t)bpg64;
	} else {
		bpg = p->bpg_param ? p->bpg_param : bs * 8;
		if (bpg > 65528)
			bpg = 65528;
		cpg = bpg;
	}
	blocks = param_blocks & ~(((uint64_t)1 << cbits) - 1);
	if (r_blocks >= param_blocks)
		return E4_ERR_INVALID_ARGUMENT;

	l->desc_size = p->desc_size ? p->desc_size : EXT4_MIN_DESC_SIZE;
retry:
	if (++rounds > 100000)
		return E4_ERR_BAD_GEOMETRY;
	if (blocks <= l->first_data_block)
		return E4_ERR_FS_TOO_SMALL;
	{
		uint64_t g64 = div_ceil(blocks - l->first_data_block, bpg);

		if (g64 == 0)
			return E4_ERR_FS_TOO_SMALL;
		if (g64 > MAX_32)
			return E4_ERR_FS_TOO_BIG;
		groups = (uint32_t)g64;
	}
	desc_blocks = (uint32_t)div_ceil(groups, bs / l->desc_size);
	{
		unsigned i = bs >= 4096 ? 1 : 4096 / bs;

		if (p->inodes_param)
			inodes = p->inodes_param;
		else if ((l->feature_incompat & EXT4_FEATURE_INCOMPAT_64BIT) &&
			 blocks / i >= (1ULL << 32))
			inodes = ~0U;
		else
			inodes = (uint32_t)(blocks / i);
	}
	if (inodes < l->first_ino + 1)
		inodes = l->first_ino + 1;
	{
		uint64_t ipg64 = div_ceil(inodes, groups);

		if (ipg64 > (uint64_t)bs * 8) {
			if (!bigalloc && bpg >= 256) {
				bpg -= 8;
				blocks = param_blocks;
				cpg = bpg;
				goto retry;
			}
			return E4_ERR_TOO_MANY_INODES;
		}
		ipg = (uint32_t)ipg64;
	}
	if (ipg > 65536 - bs / isz)
		ipg = 65536 - bs / isz;
	for (uint32_t try_ipg = ipg;; try_ipg--) {
		uint32_t v = try_ipg;

		ipb = (uint32_t)div_ceil((uint64_t)v * isz, bs);
		v = (uint32_t)((uint64_t)ipb * bs / isz);
		if (v < 8)
			v = 8;
		v &= ~7U;
		ipb = (uint32_t)div_ceil((uint64_t)v * isz, bs);
		if ((uint64_t)v * groups > MAX_32) {
			if (try_ipg == 0)
				return E4_ERR_TOO_MANY_INODES;
			continue;
		}
		l->inodes_per_group = v;
		break;
	}
	/* e2fsprogs 1.47.1 and later: when rounding down to a multiple of 8
	 * leaves fewer than first_ino + 1 inodes (100 KiB, 1 KiB blocks,
	 * 256-byte inodes: 12 inodes fill 3 blocks, rounded down to 8),
	 * round up instead, to a multiple of 8 per group holding at least
	 * that many; 1.47.0 made the 8 and then failed */
	if ((uint64_t)l->inodes_per_group * groups < l->first_ino + 1) {
		uint32_t v = (uint32_t)div_ceil(l->first_ino + 1, groups);

		v = (v + 7) & ~7U;
		ipb = (uint32_t)div_ceil((uint64_t)v * isz, bs);
		l->inodes_per_group = v;
	}
	l->inode_blocks_per_group = ipb;
	l->inodes_count = l->inodes_per_group * groups;
	if (l->inodes_count < l->first_ino)	/* no room for lost+found */
		return E4_ERR_FS_TOO_SMALL;

	if (l->feature_compat & EXT4_FEATURE_COMPAT_RESIZE_INODE) {
		uint64_t max_blocks = MAX_32, rsv_groups;
		uint32_t gdpb = bs / l->desc_size;

		if (blocks < max_blocks / 1024)
			max_blocks = blocks * 1024;
		rsv_groups = div_ceil(max_blocks - l->first_data_block, bpg);
		rsv = (uint32_t)(div_ceil(rsv_groups, gdpb) - desc_blocks);
		if (rsv > bs / 4)
			rsv = bs / 4;
	} else {
		rsv = 0;
	}
	if (p->rsv_gdt_param)
		rsv = p->rsv_gdt_param;
	if (rsv > bs / 4)
		return E4_ERR_RESERVED_GDT;
	if ((uint64_t)rsv + desc_blocks > (uint64_t)bpg * 3 / 4) {
		l->feature_incompat |= EXT4_FEATURE_INCOMPAT_META_BG;
		l->feature_compat &= ~EXT4_FEATURE_COMPAT_RESIZE_INODE;
		rsv = p->rsv_gdt_param;
	}
	{
		uint64_t overhead = 3ULL + ipb + rsv;

		overhead += (l->feature_incompat & EXT4_FEATURE_INCOMPAT_META_BG) ? 1 : desc_blocks;
		if (overhead > bpg)
			return E4_ERR_TOO_MANY_INODES;
	}
	{
		uint64_t overhead = 2ULL + ipb, rem;
		int has_bg;

		l->group_count = groups;
		if (l->feature_compat & EXT4_FEATURE_COMPAT_SPARSE_SUPER2) {
			if (groups == 2)
				has_bg = p->backup_param[0] != 0;
			else
				has_bg = p->backup_param[1] != 0;
		} else {
			has_bg = bg_has_super(l, groups - 1);
		}
		if (has_bg)
			overhead += 1ULL + desc_blocks + rsv;
		rem = (blocks - l->first_data_block) % bpg;
		if (groups == 1 && rem && rem < overhead)
			return E4_ERR_FS_TOO_SMALL;
		if (rem && rem < overhead + 50) {
			double ratio = 100.0 * (double)p->r_blocks / (double)param_blocks;

			blocks -= rem;
			r_blocks = (uint64_t)(ratio * (double)blocks / 100.0);
			goto retry;
		}
	}

	l->blocks_count = blocks;
	l->r_blocks_count = r_blocks;
	l->blocks_per_group = bpg;
	l->clusters_per_group = cpg;
	l->group_count = groups;
	l->desc_blocks = desc_blocks;
	l->reserved_gdt_blocks = rsv;
	l->first_meta_bg = 0;
	if (l->feature_compat & EXT4_FEATURE_COMPAT_SPARSE_SUPER2) {
		uint32_t b0 = p->backup_param[0], b1 = p->backup_param[1];

		if (b0 >= groups)
			b0 = groups - 1;
		if (b1 >= groups)
			b1 = groups - 1;
		if (b0 == b1)
			b1 = 0;
		if (b0 > b1) {
			uint32_t t = b0;

			b0 = b1;
			b1 = t;
		}
		l->backup_bgs[0] = b0;
		l->backup_bgs[1] = b1;
	}
	return 0;
}

/* ---- group tables ----------------------------------------------------- */
static void set_prefixes(struct ctx *c)
{
	struct e4_layout *l = c->l;
	int meta_bg = (l->feature_incompat & EXT4_FEATURE_INCOMPAT_META_BG) != 0;
	uint32_t dpb = l->block_size / l->desc_size;
	uint64_t old_desc = meta_bg ? l->first_meta_bg
				    : (uint64_t)l->desc_blocks + l->reserved_gdt_blocks;

	for (uint32_t g = 0; g < c->groups; g++) {
		struct e4_layout_group *gr = &l->groups[g];
		uint64_t first = g_first(c, g), gb = first, used = 0;
		int has_super = bg_has_super(l, g);

		if (gb == 0 && l->block_size == 1024)
			gb = 1;
		gr->first_block = first;
		gr->blocks = (uint32_t)(g_last(c, g) - first + 1);
		gr->has_super = (uint8_t)has_super;
		if (has_super)
			used++;
		if (!meta_bg || g / dpb < l->first_meta_bg) {
			if (has_super)
				used += old_desc;
		} else {
			uint32_t r = g % dpb;

			if (r == 0 || r == 1 || r == dpb - 1) {
				gr->has_meta_desc = 1;
				used++;
			}
		}
		used += gb - first;
		if (first + used > c->blocks)
			used = c->blocks - first;
		gr->sb_blocks = (uint32_t)used;
	}
}

static uint64_t flexbg_offset(const struct ctx *c, uint32_t group, uint64_t start_blk,
			      uint64_t rem_grp, uint64_t elem_size)
{
	uint32_t flexbg_size = 1U << c->l->log_groups_per_flex;
	uint32_t flexbg = group / flexbg_size;
	uint64_t size = rem_grp * elem_size, last_blk, first_free = 0;
	uint64_t last_grp;

	if (size > c->bpg / 4)
		size = c->bpg / 4;
	if (start_blk && start_blk < c->blocks &&
	    get_free_blocks(c, start_blk, start_blk + size, elem_size, &first_free) == 0)
		return first_free;
	start_blk = g_first(c, (uint64_t)flexbg_size * flexbg);
	last_grp = group | (flexbg_size - 1);
	if (last_grp > c->groups - 1)
		last_grp = c->groups - 1;
	last_blk = g_last(c, last_grp);
	if (get_free_blocks(c, start_blk, last_blk, size, &first_free) == 0)
		return first_free;
	if (get_free_blocks(c, start_blk, last_blk, elem_size, &first_free) == 0)
		return first_free;
	if (get_free_blocks(c, 0, last_blk, elem_size, &first_free) == 0)
		return first_free;
	return 0;
}

/* One bitmap block: the first free block from start, else from group_blk
 * (up to last); flex_bg: its group's BLOCK_UNINIT goes.  Returns -1 when
 * none is free. */
static int place_bitmap(struct ctx *c, uint64_t start, uint64_t group_blk, uint64_t last,
			int flex, uint64_t *blk)
{
	if (get_free_blocks(c, start, last, 1, blk) && get_free_blocks(c, group_blk, last, 1, blk))
		return -1;
	mark(c, *blk, 1);
	if (flex)
		clear_uninit(c, *blk, 1);
	return 0;
}

static errcode_t allocate_group_table(struct ctx *c, uint32_t group)
{
	struct e4_layout *l = c->l;
	struct e4_layout_group *gr = &l->groups[group];
	uint64_t group_blk = g_first(c, group), last_blk = g_last(c, group);
	uint64_t start_blk, new_blk, last_grp = 0;
	uint64_t rem_grps = 0, flexbg_size = 0, table_offset = 0;
	uint32_t ipb = l->inode_blocks_per_group;

	if ((l->feature_incompat & EXT4_FEATURE_INCOMPAT_FLEX_BG) && l->log_groups_per_flex) {
		flexbg_size = 1ULL << l->log_groups_per_flex;
		last_grp = group | (flexbg_size - 1);
		if (last_grp > c->groups - 1)
			last_grp = c->groups - 1;
		rem_grps = last_grp - group + 1;
	}
	if (l->raid_stride && !flexbg_size) {
		if (get_free_blocks(c, group_blk, last_blk, 1, &start_blk))
			return E4_ERR_FS_TOO_SMALL;
		start_blk += ipb;
		start_blk += (uint32_t)(l->raid_stride * group) % (last_blk - start_blk + 1);
		if (start_blk >= last_blk)
			start_blk = group_blk;
	} else {
		start_blk = group_blk;
	}

	if (flexbg_size) {
		uint64_t prev = 0;

		table_offset = flexbg_size;
		if (group % flexbg_size)
			prev = l->groups[group - 1].block_bitmap + 1;
		else if (last_grp == c->groups - 1) {
			table_offset = last_grp & (flexbg_size - 1);
			if (table_offset == 0)
				table_offset = flexbg_size;
			else
				table_offset++;
		}
		start_blk = flexbg_offset(c, group, prev, rem_grps, 1);
		last_blk = g_last(c, last_grp);
	}
	if (place_bitmap(c, start_blk, group_blk, last_blk, flexbg_size != 0, &gr->block_bitmap))
		return E4_ERR_FS_TOO_SMALL;

	if (flexbg_size) {
		uint64_t prev;

		if (group % flexbg_size)
			prev = l->groups[group - 1].inode_bitmap + 1;
		else
			prev = gr->block_bitmap + table_offset;
		start_blk = flexbg_offset(c, group, prev, rem_grps, 1);
		last_blk = g_last(c, last_grp);
	}
	if (place_bitmap(c, start_blk, group_blk, last_blk, flexbg_size != 0, &gr->inode_bitmap))
		return E4_ERR_FS_TOO_SMALL;

	if (flexbg_size) {
		uint64_t prev;

		if (group % flexbg_size)
			prev = l->groups[group - 1].inode_table + ipb;
		else
			prev = gr->inode_bitmap + table_offset;
		group_blk = flexbg_offset(c, group, prev, rem_grps, ipb);
		last_blk = g_last(c, last_grp);
	}
	if (get_free_blocks(c, group_blk, last_blk, ipb, &new_blk))
		return E4_ERR_FS_TOO_SMALL;
	mark(c, new_blk, ipb);
	gr->inode_table = new_blk;
	if (flexbg_size)
		clear_uninit(c, new_blk, ipb);
	return c->oom ? E4_ERR_NO_MEMORY : 0;
}

/* mke2fs -E packed_meta_blocks with flex_bg: every bitmap, then every
 * table, from the start of the filesystem. */
static errcode_t packed_tables(struct ctx *c)
{
	struct e4_layout *l = c->l;
	uint64_t goal = 0;
	uint32_t ipb = l->inode_blocks_per_group;

	/* block by block, also with bigalloc: mke2fs 1.47.0 packs the
	 * bitmaps into the cluster that ends the reserved GDT blocks */
	for (uint32_t g = 0; g < c->groups; g++) {
		if (get_free_blocks(c, goal, c->blocks - 1, 1, &goal))
			return E4_ERR_FS_TOO_SMALL;
		mark(c, goal, 1);
		clear_uninit(c, goal, 1);
		l->groups[g].block_bitmap = goal;
	}
	for (uint32_t g = 0; g < c->groups; g++) {
		if (get_free_blocks(c, goal, c->blocks - 1, 1, &goal))
			return E4_ERR_FS_TOO_SMALL;
		mark(c, goal, 1);
		clear_uninit(c, goal, 1);
		l->groups[g].inode_bitmap = goal;
	}
	for (uint32_t g = 0; g < c->groups; g++) {
		if (get_free_blocks(c, goal, c->blocks - 1, ipb, &goal))
			return E4_ERR_FS_TOO_SMALL;
		mark(c, goal, ipb);
		clear_uninit(c, goal, ipb);
		l->groups[g].inode_table = goal;
	}
	return c->oom ? E4_ERR_NO_MEMORY : 0;
}

/* ---- special files ---------------------------------------------------- */
static errcode_t file_add_extent(struct e4_layout_file *f, uint64_t start, uint64_t len)
{
	if (f->nr_extents && f->extents[f->nr_extents - 1].start +
	    f->extents[f->nr_extents - 1].len == start &&
	    f->extents[f->nr_extents - 1].len + len <= LAYOUT_EXT_MAX_LEN) {
		f->extents[f->nr_extents - 1].len += (uint32_t)len;
		return 0;
	}
	if ((f->nr_extents & 63) == 0) {
		struct e4_layout_extent *e = realloc(f->extents,
						     (f->nr_extents + 64) * sizeof(*e));
		if (!e)
			return E4_ERR_NO_MEMORY;
		f->extents = e;
	}
	f->extents[f->nr_extents].start = start;
	f->extents[f->nr_extents].len = (uint32_t)len;
	f->nr_extents++;
	return 0;
}

static errcode_t file_add_meta(struct e4_layout_file *f, uint64_t blk)
{
	if ((f->nr_meta & 63) == 0) {
		e4_blk_t *m = realloc(f->meta, (f->nr_meta + 64) * sizeof(*m));

		if (!m)
			return E4_ERR_NO_MEMORY;
		f->meta = m;
	}
	f->meta[f->nr_meta++] = blk;
	return 0;
}

/* Take a block at the first free cluster from goal; *blk = it. */
static errcode_t take_block(struct ctx *c, uint64_t goal, uint64_t *blk)
{
	if (new_block(c, goal, blk))
		return E4_ERR_FS_TOO_SMALL;
	mark(c, *blk, 1);
	clear_uninit(c, *blk, 1);
	return c->oom ? E4_ERR_NO_MEMORY : 0;
}

/* Where the reference starts looking for a new file's first block: the
 * first block of the inode's group, or with flex_bg of its flex group's
 * first group (with -N small, lost+found's inode 11 is not in group 0). */
static uint64_t ino_goal(const struct ctx *c, uint32_t ino)
{
	uint64_t g = (ino - 1) / c->l->inodes_per_group;

	g &= ~((1ULL << c->l->log_groups_per_flex) - 1);
	return g_first(c, g);
}

/* File of n blocks taken one at a time, each after the one before (the
 * first from goal): the rest of a cluster first, then the first free
 * cluster, as the reference grows lost+found and the orphan file. */
static errcode_t alloc_chained_file(struct ctx *c, struct e4_layout_file *f, uint64_t goal,
				    uint64_t n)
{
	uint64_t prev = goal, b;
	errcode_t err;

	for (uint64_t i = 0; i < n; i++) {
		if (i && ((prev + 1) & ~c->cmask) == (prev & ~c->cmask)) {
			b = prev + 1;
			mark(c, b, 1);
		} else {
			err = take_block(c, i ? prev & ~c->cmask : prev, &b);
			if (err)
				return err;
		}
		err = file_add_extent(f, b, 1);
		if (err)
			return err;
		f->blocks++;
		prev = b;
	}
	return c->oom ? E4_ERR_NO_MEMORY : 0;
}

/* Extent-mapped file of n blocks allocated as the reference's preallocation does:
 * maximal free runs from goal, each at most 32768 blocks; the extent leaf
 * (needed with a fifth extent) goes at the first free block from one
 * before the first data block. */
static errcode_t alloc_extent_file(struct ctx *c, struct e4_layout_file *f, uint64_t goal,
				   uint64_t n)
{
	uint64_t cur = goal, maxlen = LAYOUT_EXT_MAX_LEN & ~c->cmask;
	uint32_t leaf_cap = (c->l->block_size - 12) / 12;
	uint32_t extents = 0;
	errcode_t err;

	while (n) {
		uint64_t s, len, u;

		if (new_block(c, cur, &s))
			return E4_ERR_FS_TOO_SMALL;
		len = n < maxlen ? n : maxlen;
		u = first_used(c, s, len);
		if (u != NONE)
			len = u - s;
		if (len > n)
			len = n;
		mark(c, s, (len + c->cmask) & ~c->cmask);
		clear_uninit(c, s, len);
		f->blocks += len;
		err = file_add_extent(f, s, len);
		if (err)
			return err;
		extents++;
		if (extents == 5) {
			uint64_t leaf;

			err = take_block(c, f->extents[0].start - 1, &leaf);
			if (err)
				return err;
			err = file_add_meta(f, leaf);
			if (err)
				return err;
		} else if (extents > leaf_cap) {
			return E4_ERR_UNSUPPORTED;
		}
		n -= len;
		cur = s + len;
	}
	return c->oom ? E4_ERR_NO_MEMORY : 0;
}

/* Block-mapped file of n blocks: data and indirect blocks taken one after
 * the other from goal, in the order block_iterate visits them. */
static errcode_t alloc_blockmap_file(struct ctx *c, struct e4_layout_file *f, uint64_t goal,
				     uint64_t n)
{
	uint64_t apb = c->l->block_size / 4, prev = goal;
	errcode_t err;

	for (uint64_t i = 0; i < n; i++) {
		unsigned meta = 0;
		uint64_t b;

		if (i >= 12) {
			uint64_t j = i - 12;

			if (j == 0) {
				meta = 1;
			} else if (j >= apb && j < apb + apb * apb) {
				j -= apb;
				meta = (j == 0) ? 2 : (j % apb == 0);
			} else if (j >= apb + apb * apb) {
				j -= apb + apb * apb;
				meta = (j == 0) ? 3 : (j % (apb * apb) == 0) ? 2 : (j % apb == 0);
			}
		}
		for (unsigned k = 0; k < meta; k++) {
			err = take_block(c, prev, &b);
			if (!err)
				err = file_add_meta(f, b);
			if (err)
				return err;
			prev = b;
		}
		err = take_block(c, prev, &b);
		if (!err)
			err = file_add_extent(f, b, 1);
		if (err)
			return err;
		f->blocks++;
		prev = b;
	}
	return 0;
}

static uint32_t journal_goal_group(const struct ctx *c)
{
	const struct e4_layout *l = c->l;
	uint64_t mid = (c->blocks - c->fdb) / 2;
	uint32_t group = mid >= c->fdb ? g_of(c, mid) : 0, start, end;
	uint32_t flex = 1U << l->log_groups_per_flex;

	if (l->log_groups_per_flex && group > flex) {
		group &= ~(flex - 1);
		while (group < c->groups && group_free(c, group) == 0)
			group++;
		if (group == c->groups)
			group = 0;
		start = group;
	} else {
		start = group > 0 ? group - 1 : group;
	}
	end = (group + 1 < c->groups) ? group + 1 : group;
	group = start;
	for (uint32_t i = start + 1; i <= end; i++)
		if (group_free(c, i) > group_free(c, group))
			group = i;
	return group;
}

static void use_inode(struct e4_layout *l, uint32_t ino, int dir, int csum)
{
	uint32_t g = (ino - 1) / l->inodes_per_group, idx = (ino - 1) % l->inodes_per_group;
	struct e4_layout_group *gr;

	if (ino == 0 || ino > l->inodes_count)
		return;
	gr = &l->groups[g];

	gr->flags &= ~EXT4_BG_INODE_UNINIT;
	gr->free_inodes--;
	if (dir)
		gr->used_dirs++;
	if (csum && idx + 1 > l->inodes_per_group - gr->itable_unused)
		gr->itable_unused = l->inodes_per_group - idx - 1;
}

static errcode_t special_files(struct ctx *c, const struct e4_layout_opts *o,
			       const struct params *p)
{
	struct e4_layout *l = c->l;
	int extents = (l->feature_incompat & EXT4_FEATURE_INCOMPAT_EXTENTS) != 0;
	uint64_t goal0 = c->fdb, b;
	errcode_t err;

	/* root, then lost+found (>= 16 KiB and >= 2 blocks, at most 12) */
	err = take_block(c, goal0, &b);
	if (err)
		return err;
	l->root_block = b;
	{
		/* 16 KiB, at least 2 blocks, at most 12 (the direct blocks).
		 * With inline_data mke2fs 1.47.0 makes lost+found inline, then
		 * grows it to one block less (root still gets a block: it is
		 * not made inline).  Each block is the next free one after
		 * the last: with flex_bg the gaps between the bitmaps come
		 * first, so the file need not be one run. */
		uint32_t want = 16384 / l->block_size;

		if (want < 2)
			want = 2;
		if (want > EXT4_NDIR_BLOCKS)
			want = EXT4_NDIR_BLOCKS;
		if (l->feature_incompat & EXT4_FEATURE_INCOMPAT_INLINE_DATA)
			want--;
		l->lpf.ino = l->first_ino;
		err = alloc_chained_file(c, &l->lpf, ino_goal(c, l->lpf.ino), want);
		if (err)
			return err;
		/* more than the inode's 4 extents would need a leaf */
		if (extents && l->lpf.nr_extents > 4)
			return E4_ERR_UNSUPPORTED;
	}
	if (l->feature_compat & EXT4_FEATURE_COMPAT_RESIZE_INODE) {
		err = take_block(c, c->fdb + l->desc_blocks + l->reserved_gdt_blocks + 2 +
				 l->inode_blocks_per_group, &b);
		if (err)
			return err;
		l->resize_dind_block = b;
	}

	/* journal */
	if (l->feature_compat & EXT4_FEATURE_COMPAT_HAS_JOURNAL) {
		uint32_t def = e4_layout_default_journal_blocks(l->blocks_count);
		uint64_t nj = def, fc = 0;

		if (!def) {
			/* too small for a journal: made without one, and
			 * without the orphan file that needs it (mke2fs) */
			l->feature_compat &= ~(EXT4_FEATURE_COMPAT_HAS_JOURNAL |
					       EXT4_FEATURE_COMPAT_ORPHAN_FILE);
			l->journal_dropped = 1;
		} else {
			if (l->feature_compat & EXT4_FEATURE_COMPAT_FAST_COMMIT)
				fc = def / 64;
			if (p->journal_req > 0) {
				uint64_t free_sb = 0;

				nj = (uint64_t)p->journal_req;
				/* the superblock's free count right after the geometry was set up */
				for (uint32_t g = 0; g < c->groups; g++) {
					uint64_t n = l->groups[g].blocks - l->groups[g].sb_blocks;

					if (!l->log_groups_per_flex)
						n -= 2 + l->inode_blocks_per_group;
					free_sb += n;
				}
				free_sb &= ~c->cmask;
				if (nj + fc < 1024 || nj + fc > 10240000 || nj + fc > free_sb / 2)
					return E4_ERR_JOURNAL_SIZE;
			}
			l->journal.ino = EXT4_JOURNAL_INO;
			l->journal_fc_blocks = (uint32_t)fc;
			if (extents) {
				uint64_t goal;

				if (p->packed) {
					goal = 0;
					l->journal_goal_group = 0;
				} else {
					l->journal_goal_group = journal_goal_group(c);
					goal = g_first(c, l->journal_goal_group);
				}
				err = alloc_extent_file(c, &l->journal, goal, nj + fc);
			} else {
				l->journal_goal_group = 0;
				err = alloc_blockmap_file(c, &l->journal, c->fdb, nj + fc);
			}
			if (err)
				return err;
			l->overhead_clusters += (nj + fc + c->cmask) >> c->cbits;
		}
	}

	/* orphan file */
	if (l->feature_compat & EXT4_FEATURE_COMPAT_ORPHAN_FILE) {
		uint64_t n = o->orphan_file_blocks > 0 ? (uint64_t)o->orphan_file_blocks
			: e4_layout_default_orphan_blocks(l->blocks_count, c->cbits);

		/* what the kernel mounts (mke2fs 1.47.0 does not cap: 159
		 * blocks of 64 KiB at 40 GiB) */
		if (n > e4_layout_max_orphan_blocks(l->block_size))
			n = e4_layout_max_orphan_blocks(l->block_size);

		l->orphan.ino = l->first_ino + 1;
		if (extents) {
			/* one block at a time from the start of the filesystem */
			err = alloc_chained_file(c, &l->orphan, 0, n);
			if (err)
				return err;
			if (l->orphan.nr_extents > 4)
				return E4_ERR_UNSUPPORTED;
		} else {
			err = alloc_blockmap_file(c, &l->orphan, 0, n);
			if (err)
				return err;
		}
	}
	return c->oom ? E4_ERR_NO_MEMORY : 0;
}

/* ---- putting it together ---------------------------------------------- */
static void free_file(struct e4_layout_file *f)
{
	free(f->extents);
	free(f->meta);
	f->extents = NULL;
	f->meta = NULL;
}

void e4_layout_free(struct e4_layout *l)
{
	if (!l)
		return;
	free(l->groups);
	free_file(&l->journal);
	free_file(&l->orphan);
	free_file(&l->lpf);
	free(l);
}

static errcode_t lay_out(struct e4_layout *l, const struct e4_layout_opts *o,
			 const struct params *p)
{
	struct ctx c;
	int csum = (l->feature_ro_compat & (EXT4_FEATURE_RO_COMPAT_METADATA_CSUM |
					    EXT4_FEATURE_RO_COMPAT_GDT_CSUM)) != 0;
	uint32_t reserved_inos = l->first_ino;
	uint64_t free_total = 0;
	errcode_t err = 0;

	memset(&c, 0, sizeof(c));
	c.l = l;
	c.blocks = l->blocks_count;
	c.fdb = l->first_data_block;
	c.bpg = l->blocks_per_group;
	c.groups = l->group_count;
	c.cbits = l->cluster_bits;
	c.cmask = (1ULL << c.cbits) - 1;
	l->groups = calloc(c.groups, sizeof(*l->groups));
	c.uninit_cleared = calloc(c.groups, 1);
	if (!l->groups || !c.uninit_cleared) {
		err = E4_ERR_NO_MEMORY;
		goto out;
	}
	set_prefixes(&c);

	/* initial flags and unused counts (as the geometry set-up leaves them) */
	for (uint32_t g = 0; g < c.groups; g++) {
		struct e4_layout_group *gr = &l->groups[g];

		gr->free_inodes = l->inodes_per_group;
		if (csum) {
			uint32_t n = l->inodes_per_group;

			if (g != c.groups - 1)
				gr->flags |= EXT4_BG_BLOCK_UNINIT;
			gr->flags |= EXT4_BG_INODE_UNINIT;
			if (reserved_inos) {
				if (n > reserved_inos) {
					n -= reserved_inos;
					reserved_inos = 0;
				} else {
					reserved_inos -= n;
					n = 0;
				}
			}
			gr->itable_unused = n;
		}
	}

	if ((l->feature_incompat & EXT4_FEATURE_INCOMPAT_FLEX_BG) && p->packed) {
		err = packed_tables(&c);
	} else {
		for (uint32_t g = 0; g < c.groups && !err; g++)
			err = allocate_group_table(&c, g);
	}
	if (err)
		goto out;

	/* overhead: every used cluster now, plus the first data block */
	l->overhead_clusters = 0;
	for (uint32_t g = 0; g < c.groups; g++)
		l->overhead_clusters += ((l->groups[g].blocks + c.cmask) >> c.cbits) -
					group_free(&c, g);
	l->overhead_clusters += c.fdb;

	err = special_files(&c, o, p);
	if (err)
		goto out;

	/* mke2fs takes lost+found's inode with a search that, entering a
	 * group still marked INODE_UNINIT, clears its BLOCK_UNINIT too; it
	 * runs before the reserved inodes are marked, so with few inodes
	 * per group (-N) lost+found's group loses BLOCK_UNINIT even when its
	 * blocks are elsewhere.  Group 0 was entered by the root already. */
	if ((l->first_ino - 1) / l->inodes_per_group > 0)
		c.uninit_cleared[(l->first_ino - 1) / l->inodes_per_group] = 1;

	/* inodes: 1..11 (bad blocks, root, reserved, lost+found), orphan file */
	for (uint32_t ino = 1; ino <= l->first_ino; ino++)
		use_inode(l, ino, ino == EXT4_ROOT_INO || ino == l->first_ino, csum);
	if (l->orphan.ino)
		use_inode(l, l->orphan.ino, 0, csum);

	for (uint32_t g = 0; g < c.groups; g++) {
		struct e4_layout_group *gr = &l->groups[g];

		gr->free_blocks = group_free(&c, g);
		free_total += gr->free_blocks;
		if (c.uninit_cleared[g])
			gr->flags &= ~EXT4_BG_BLOCK_UNINIT;
		if (o->itable_zeroed)
			gr->flags |= EXT4_BG_INODE_ZEROED;
	}
	l->free_blocks_count = free_total << c.cbits;
	l->free_inodes_count = l->inodes_count - l->first_ino - (l->orphan.ino ? 1 : 0);
out:
	free(c.runs);
	free(c.uninit_cleared);
	return err;
}

errcode_t e4_layout_compute(const struct e4_layout_opts *o, struct e4_layout **ret)
{
	struct e4_layout *l;
	struct e4_profile *own = NULL;
	struct params p;
	errcode_t err;

	*ret = NULL;
	if (o && o->bad_key)
		*o->bad_key = NULL;
	if (!o)
		return E4_ERR_INVALID_ARGUMENT;
	l = calloc(1, sizeof(*l));
	if (!l)
		return E4_ERR_NO_MEMORY;
	if (!o->profile) {
		err = e4_profile_builtin(&own);
		if (err) {
			free(l);
			return err;
		}
	}
	err = settle_params(o, l, &p, o->profile ? o->profile : own);
	e4_profile_free(own);
	if (!err)
		err = geometry(l, &p);
	if (!err && !p.journal)
		l->feature_compat &= ~EXT4_FEATURE_COMPAT_HAS_JOURNAL;
	if (!err && !o->geometry_only) {
		if (l->group_count > E4_LAYOUT_MAX_GROUPS)
			err = E4_ERR_TOO_MANY_GROUPS;
		else
			err = lay_out(l, o, &p);
	}
	if (err) {
		e4_layout_free(l);
		return err;
	}
	if (!o->geometry_only) {
		/* a regular file of 2 GiB or more turns large_file on as the
		 * reference sets its size: the resize inode (its size covers
		 * the double-indirect range) and the journal */
		uint64_t apb = l->block_size / 4, big = 1ULL << 31;

		if ((l->resize_dind_block &&
		     (apb * apb + apb + EXT4_NDIR_BLOCKS) * l->block_size >= big) ||
		    (l->journal.ino && l->journal.blocks * l->block_size >= big) ||
		    (l->orphan.ino && l->orphan.blocks * l->block_size >= big))
			l->feature_ro_compat |= EXT4_FEATURE_RO_COMPAT_LARGE_FILE;
	}
	if (o->geometry_only) {
		if (!e4_layout_default_journal_blocks(l->blocks_count))
			l->feature_compat &= ~EXT4_FEATURE_COMPAT_HAS_JOURNAL;
		l->overhead_clusters = 0;
		l->free_blocks_count = 0;
		l->free_inodes_count = l->inodes_count - l->first_ino;
	}
	*ret = l;
	return 0;
}
