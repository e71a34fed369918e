/*
 * popsrc_tar.c: the archive reader of e4mkfs -d (popsrc.h), through
 * libarchive: tar in its ustar, pax, GNU and v7 forms, plain or
 * compressed with gzip, bzip2, xz/lzma, zstd or lz4 (no external
 * programs), from a file or standard input ("-").
 *
 * The archive is read once: members into the catalogue, file data into an
 * unlinked spool file (only the data runs of sparse members), so the
 * stream can be delivered in its own order.  Paths: leading "/" and "."
 * components dropped, ".." refused; "." names the root; a directory a
 * member implies without its own member gets mode 0755, owner 0 and
 * opts.default_time.  A later member of the same path replaces an earlier
 * one (as tar extracts), a directory only by a directory or while empty.
 * Hard link members join the inode of their target (its metadata and
 * data).  Times: mtime with nanoseconds; atime and ctime when the archive
 * has them, else mtime; crtime when it has a birth time.  Attributes: the
 * pax ones (SCHILY.xattr.*, LIBARCHIVE.xattr.*, RHT.security.selinux),
 * a later value of a name winning; POSIX ACLs from their raw
 * system.posix_acl_* attributes when present (numeric ids), else from
 * libarchive's ACL list (SCHILY.acl.*), where an entry naming a user or
 * group without a numeric id is an error: the image must not depend on
 * this host's user database.
 */
#include <archive.h>
#include <archive_entry.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "e4.h"
#include "popsrc_int.h"

/* libarchive is loaded when an archive is read, not linked: its library
 * and what it pulls in (libxml2, ICU, libstdc++) were 3.5 MiB of every
 * e4mkfs run's resident memory, with or without -d. */
#define LA_SONAME	"libarchive.so.13"
#define LA_FUNCS(X) \
	X(archive_entry_acl_next) \
	X(archive_entry_acl_reset) \
	X(archive_entry_atime) \
	X(archive_entry_atime_is_set) \
	X(archive_entry_atime_nsec) \
	X(archive_entry_birthtime) \
	X(archive_entry_birthtime_is_set) \
	X(archive_entry_birthtime_nsec) \
	X(archive_entry_ctime) \
	X(archive_entry_ctime_is_set) \
	X(archive_entry_ctime_nsec) \
	X(archive_entry_filetype) \
	X(archive_entry_gid) \
	X(archive_entry_hardlink) \
	X(archive_entry_mtime) \
	X(archive_entry_mtime_nsec) \
	X(archive_entry_pathname) \
	X(archive_entry_perm) \
	X(archive_entry_rdevmajor) \
	X(archive_entry_rdevminor) \
	X(archive_entry_size) \
	X(archive_entry_symlink) \
	X(archive_entry_uid) \
	X(archive_entry_xattr_next) \
	X(archive_entry_xattr_reset) \
	X(archive_error_string) \
	X(archive_read_data_block) \
	X(archive_read_free) \
	X(archive_read_new) \
	X(archive_read_next_header) \
	X(archive_read_open_fd) \
	X(archive_read_open_filename) \
	X(archive_read_support_filter_bzip2) \
	X(archive_read_support_filter_gzip) \
	X(archive_read_support_filter_lz4) \
	X(archive_read_support_filter_lzma) \
	X(archive_read_support_filter_xz) \
	X(archive_read_support_filter_zstd) \
	X(archive_read_support_format_tar)
static struct {
#define X(f) __typeof__(f) *la_##f;
	LA_FUNCS(X)
#undef X
} la;
#define archive_entry_acl_next (*la.la_archive_entry_acl_next)
#define archive_entry_acl_reset (*la.la_archive_entry_acl_reset)
#define archive_entry_atime (*la.la_archive_entry_atime)
#define archive_entry_atime_is_set (*la.la_archive_entry_atime_is_set)
#define archive_entry_atime_nsec (*la.la_archive_entry_atime_nsec)
#define archive_entry_birthtime (*la.la_archive_entry_birthtime)
#define archive_entry_birthtime_is_set (*la.la_archive_entry_birthtime_is_set)
#define archive_entry_birthtime_nsec (*la.la_archive_entry_birthtime_nsec)
#define archive_entry_ctime (*la.la_archive_entry_ctime)
#define archive_entry_ctime_is_set (*la.la_archive_entry_ctime_is_set)
#define archive_entry_ctime_nsec (*la.la_archive_entry_ctime_nsec)
#define archive_entry_filetype (*la.la_archive_entry_filetype)
#define archive_entry_gid (*la.la_archive_entry_gid)
#define archive_entry_hardlink (*la.la_archive_entry_hardlink)
#define archive_entry_mtime (*la.la_archive_entry_mtime)
#define archive_entry_mtime_nsec (*la.la_archive_entry_mtime_nsec)
#define archive_entry_pathname (*la.la_archive_entry_pathname)
#define archive_entry_perm (*la.la_archive_entry_perm)
#define archive_entry_rdevmajor (*la.la_archive_entry_rdevmajor)
#define archive_entry_rdevminor (*la.la_archive_entry_rdevminor)
#define archive_entry_size (*la.la_archive_entry_size)
#define archive_entry_symlink (*la.la_archive_entry_symlink)
#define archive_entry_uid (*la.la_archive_entry_uid)
#define archive_entry_xattr_next (*la.la_archive_entry_xattr_next)
#define archive_entry_xattr_reset (*la.la_archive_entry_xattr_reset)
#define archive_error_string (*la.la_archive_error_string)
#define archive_read_data_block (*la.la_archive_read_data_block)
#define archive_read_free (*la.la_archive_read_free)
#define archive_read_new (*la.la_archive_read_new)
#define archive_read_next_header (*la.la_archive_read_next_header)
#define archive_read_open_fd (*la.la_archive_read_open_fd)
#define archive_read_open_filename (*la.la_archive_read_open_filename)
#define archive_read_support_filter_bzip2 (*la.la_archive_read_support_filter_bzip2)
#define archive_read_support_filter_gzip (*la.la_archive_read_support_filter_gzip)
#define archive_read_support_filter_lz4 (*la.la_archive_read_support_filter_lz4)
#define archive_read_support_filter_lzma (*la.la_archive_read_support_filter_lzma)
#define archive_read_support_filter_xz (*la.la_archive_read_support_filter_xz)
#define archive_read_support_filter_zstd (*la.la_archive_read_support_filter_zstd)
#define archive_read_support_format_tar (*la.la_archive_read_support_format_tar)

/* Load libarchive once (kept for the process's life). */
static int la_load(struct pop_src *s)
{
	static void *h;
	const char *e;

	if (h)
		return 0;
	h = dlopen(LA_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		h = dlopen("libarchive.so", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		e = dlerror();
		return pop_fail(s, "%s: cannot read archives: %s", s->spec,
				e ? e : "libarchive not found");
	}
#define X(f) \
	if (!(*(void **)&la.la_##f = dlsym(h, #f))) { \
		dlclose(h); \
		h = NULL; \
		return pop_fail(s, "%s: cannot read archives: %s lacks %s", s->spec, \
				LA_SONAME, #f); \
	}
	LA_FUNCS(X)
#undef X
	return 0;
}

struct tarrd {
	struct pop_src *s;
	struct archive *a;
	const char *member;	/* the member being read, for messages: NULL, or
				   name (libarchive's copy goes with the entry) */
	char name[2 * POP_PATH_MAX + 2];
	char norm[POP_PATH_MAX + 1];	/* a hard link's target */
	char path[POP_PATH_MAX + 1];	/* its normalized path */
};

static int fail_member(struct tarrd *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int fail_member(struct tarrd *t, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (t->member && strlen(t->member) > 300)	/* the cause must fit too */
		return pop_fail(t->s, "%s: member %.300s...: %s", t->s->spec, t->member, msg);
	if (t->member)
		return pop_fail(t->s, "%s: member %s: %s", t->s->spec, t->member, msg);
	return pop_fail(t->s, "%s: %s", t->s->spec, msg);
}

static int spool_open(struct pop_src *s)
{
	const char *dir = s->opts.tmpdir ? s->opts.tmpdir : getenv("TMPDIR");
	char tmpl[4096];

	if (!dir || !*dir)
		dir = "/tmp";
	s->spool_fd = open(dir, O_RDWR | O_TMPFILE | O_CLOEXEC, 0600);
	if (s->spool_fd >= 0)
		return 0;
	snprintf(tmpl, sizeof(tmpl), "%s/e4mkfs-spool.XXXXXX", dir);
	s->spool_fd = mkstemp(tmpl);
	if (s->spool_fd < 0)
		return pop_fail(s, "%s: cannot make a spool file in %s: %s", s->spec, dir,
				strerror(errno));
	unlink(tmpl);
	return 0;
}

/* path -> out (cap bytes) without "/" runs, "." components, leading
 * "/"; -1 for "..", -2 for a component over POP_NAME_MAX bytes, -3 for a
 * result that does not fit.  Empty result: the root. */
static int normalize(const char *in, char *out, size_t cap)
{
	size_t o = 0;
	const char *p = in;

	while (*p) {
		const char *q = p;
		size_t l;

		while (*q && *q != '/')
			q++;
		l = (size_t)(q - p);
		if (l == 2 && p[0] == '.' && p[1] == '.')
			return -1;
		if (l > POP_NAME_MAX)
			return -2;
		if (l && !(l == 1 && p[0] == '.')) {
			if (o + l + 2 > cap)
				return -3;
			if (o)
				out[o++] = '/';
			memcpy(out + o, p, l);
			o += l;
		}
		p = *q ? q + 1 : q;
	}
	out[o] = 0;
	return 0;
}

/* The node of directory path[0..len), made (implied) where missing. */
static uint32_t walk_parents(struct tarrd *t, const char *path, const char **last)
{
	struct pop_src *s = t->s;
	uint32_t dir = 0;
	const char *p = path, *slash;

	while ((slash = strchr(p, '/'))) {
		uint32_t n = pop_lookup(s, dir, p, (size_t)(slash - p));

		if (n == POP_NONE) {
			n = pop_node_new(s, dir, p, (size_t)(slash - p));
			if (n == POP_NONE || pop_hash_insert(s, n))
				return POP_NONE;
			pop_node_link(s, n);
			s->nodes[n].type = POP_DIR;
			s->nodes[n].mode = 0755;
			s->nodes[n].implicit = 1;
			s->nodes[n].stnlink = 1;
			for (int k = 0; k < 4; k++)
				s->nodes[n].t[k].sec = s->opts.default_time;
		} else if (s->nodes[n].type != POP_DIR) {
			fail_member(t, "%.*s is not a directory", (int)(slash - path), path);
			return POP_NONE;
		}
		dir = n;
		p = slash + 1;
	}
	*last = p;
	return dir;
}

static enum pop_type type_of(mode_t ft)
{
	switch (ft) {
	case AE_IFREG: return POP_REG;
	case AE_IFDIR: return POP_DIR;
	case AE_IFLNK: return POP_SYMLINK;
	case AE_IFCHR: return POP_CHR;
	case AE_IFBLK: return POP_BLK;
	case AE_IFIFO: return POP_FIFO;
	case AE_IFSOCK: return POP_SOCK;
	}
	return 0;
}

static int acl_tag(int tag)
{
	switch (tag) {
	case ARCHIVE_ENTRY_ACL_USER_OBJ: return E4_ACL_USER_OBJ;
	case ARCHIVE_ENTRY_ACL_USER: return E4_ACL_USER;
	case ARCHIVE_ENTRY_ACL_GROUP_OBJ: return E4_ACL_GROUP_OBJ;
	case ARCHIVE_ENTRY_ACL_GROUP: return E4_ACL_GROUP;
	case ARCHIVE_ENTRY_ACL_MASK: return E4_ACL_MASK;
	case ARCHIVE_ENTRY_ACL_OTHER: return E4_ACL_OTHER;
	}
	return 0;
}

/* One POSIX ACL from libarchive's list, as a VFS-encoded attribute. */
static int acl_from_list(struct tarrd *t, uint32_t n, struct archive_entry *e, int want,
			 const char *xname)
{
	struct e4_acl_entry *ent = t->s->acl;
	uint8_t *val = t->s->aclbuf;
	int type, perm, tag, id;
	const char *who;
	size_t cnt = 0, len;

	if (archive_entry_acl_reset(e, want) <= 0)
		return 0;
	while (archive_entry_acl_next(e, want, &type, &perm, &tag, &id, &who) == ARCHIVE_OK) {
		int et = acl_tag(tag);

		if (!et || cnt == E4_ACL_MAX_ENTRIES)
			return fail_member(t, "%s: unsupported ACL entry (tag %d)", xname, tag);
		if ((et == E4_ACL_USER || et == E4_ACL_GROUP) && id < 0)
			return fail_member(t, "%s: ACL entry for %s '%s' has no numeric id (GNU tar "
					   "--xattrs also stores the ACL with numeric ids)", xname,
					   et == E4_ACL_USER ? "user" : "group", who ? who : "?");
		ent[cnt].tag = (uint16_t)et;
		ent[cnt].perm = (uint16_t)(perm & 7);
		ent[cnt].id = (et == E4_ACL_USER || et == E4_ACL_GROUP) ? (uint32_t)id :
			      E4_ACL_UNDEFINED_ID;
		cnt++;
	}
	e4_acl_sort(ent, cnt);
	if (e4_acl_entries_to_xattr(ent, cnt, val, &len))
		return fail_member(t, "%s: invalid ACL (%zu entries)", xname, cnt);
	return pop_xa_add(t->s, n, xname, val, len);
}

static int read_xattrs(struct tarrd *t, uint32_t n, struct archive_entry *e)
{
	struct pop_src *s = t->s;
	struct { const char *name; const void *val; size_t len; } *list;
	const char *name;
	int has_acc = 0, has_def = 0, cnt;
	char what[8192];

	if (s->opts.no_xattrs)
		return 0;
	/* libarchive lists the attributes last added first: added here in
	 * the archive's order, so that pop_xa_finish keeps the later value
	 * of a name (GNU tar's SCHILY.xattr.security.selinux, the raw value,
	 * after its RHT.security.selinux, which lost the final NUL) */
	cnt = archive_entry_xattr_reset(e);
	if (cnt > 0) {
		int k = 0;

		list = calloc((size_t)cnt, sizeof(*list));
		if (!list)
			return pop_fail(s, "%s: out of memory", s->spec);
		while (k < cnt && archive_entry_xattr_next(e, &list[k].name, &list[k].val,
							   &list[k].len) == ARCHIVE_OK)
			k++;
		while (k--) {
			name = list[k].name;
			if (!name || !*name)
				continue;
			has_acc |= !strcmp(name, "system.posix_acl_access");
			has_def |= !strcmp(name, "system.posix_acl_default");
			if (pop_xa_add(s, n, name, list[k].val, list[k].len)) {
				free(list);
				return -1;
			}
		}
		free(list);
	}
	if (!has_acc && acl_from_list(t, n, e, ARCHIVE_ENTRY_ACL_TYPE_ACCESS,
				      "system.posix_acl_access"))
		return -1;
	if (!has_def && acl_from_list(t, n, e, ARCHIVE_ENTRY_ACL_TYPE_DEFAULT,
				      "system.posix_acl_default"))
		return -1;
	snprintf(what, sizeof(what), "%s: member %s", s->spec, t->member);
	return pop_xa_finish(s, n, what);
}

static int read_data(struct tarrd *t, uint32_t n)
{
	struct pop_src *s = t->s;
	const void *buf;
	size_t len;
	la_int64_t off;
	int r;

	s->nodes[n].spool = s->spool_len;
	while ((r = archive_read_data_block(t->a, &buf, &len, &off)) == ARCHIVE_OK ||
	       r == ARCHIVE_WARN) {
		const char *p = buf;

		if (!len)
			continue;
		if (off < 0 || (uint64_t)off + len > s->nodes[n].size)
			return fail_member(t, "data beyond the member's size");
		if (s->nodes[n].nseg) {
			const struct pop_seg *l = &s->segs[s->nsegs - 1];

			if ((uint64_t)off < l->off + l->len)
				return fail_member(t, "data runs out of order");
		}
		if (pop_seg_add(s, n, (uint64_t)off, len))
			return -1;
		while (len) {
			ssize_t w = pwrite(s->spool_fd, p, len, (off_t)s->spool_len);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return fail_member(t, "cannot write the spool file: %s",
						   w < 0 ? strerror(errno) : "no space");
			p += w;
			len -= (size_t)w;
			s->spool_len += (uint64_t)w;
		}
	}
	if (r != ARCHIVE_EOF)
		return fail_member(t, "%s", archive_error_string(t->a) ?
				   archive_error_string(t->a) : "read error");
	return 0;
}

/* A time as libarchive gives it.  libarchive 3.6 reads pax's "-S.F"
 * (S seconds and the fraction F before 1970) as seconds -S with
 * nanoseconds F, though it is the instant -S - F: S + 1 seconds before
 * 1970 plus 1e9 - F nanoseconds. */
static struct pop_time tm(time_t sec, long nsec)
{
	if (nsec < 0 || nsec > 999999999)
		nsec = 0;
	if (sec < 0 && nsec > 0)
		return (struct pop_time){ (int64_t)sec - 1, (uint32_t)(1000000000 - nsec) };
	return (struct pop_time){ sec, (uint32_t)nsec };
}

/* Metadata of entry e into node n. */
static int set_meta(struct tarrd *t, uint32_t n, struct archive_entry *e, enum pop_type type)
{
	struct pop_src *s = t->s;
	struct pop_node *nd = &s->nodes[n];
	la_int64_t uid = archive_entry_uid(e), gid = archive_entry_gid(e);

	if (uid < 0 || uid > UINT32_MAX || gid < 0 || gid > UINT32_MAX)
		return fail_member(t, "owner %lld:%lld out of range", (long long)uid, (long long)gid);
	nd->type = (uint8_t)type;
	nd->mode = archive_entry_perm(e) & 07777;
	nd->uid = (uint32_t)uid;
	nd->gid = (uint32_t)gid;
	nd->t[1] = tm(archive_entry_mtime(e), archive_entry_mtime_nsec(e));
	nd->t[0] = nd->t[2] = nd->t[1];
	if (archive_entry_atime_is_set(e))
		nd->t[0] = tm(archive_entry_atime(e), archive_entry_atime_nsec(e));
	if (archive_entry_ctime_is_set(e))
		nd->t[2] = tm(archive_entry_ctime(e), archive_entry_ctime_nsec(e));
	nd->has_cr = !!archive_entry_birthtime_is_set(e);
	nd->t[3] = nd->t[2];
	if (nd->has_cr)
		nd->t[3] = tm(archive_entry_birthtime(e), archive_entry_birthtime_nsec(e));
	nd->major = (uint32_t)archive_entry_rdevmajor(e);
	nd->minor = (uint32_t)archive_entry_rdevminor(e);
	nd->size = 0;
	nd->nseg = 0;
	nd->nxa = 0;
	nd->target_len = 0;
	nd->implicit = 0;
	if (type == POP_REG) {
		la_int64_t sz = archive_entry_size(e);

		if (sz < 0)
			return fail_member(t, "negative size");
		nd->size = (uint64_t)sz;
	}
	if (type == POP_SYMLINK) {
		const char *tg = archive_entry_symlink(e);
		uint64_t off;

		if (!tg)
			return fail_member(t, "symbolic link without a target");
		off = pop_arena_put(s, tg, strlen(tg));
		if (off == UINT64_MAX)
			return -1;
		s->nodes[n].target_off = off;
		s->nodes[n].target_len = (uint32_t)strlen(tg);
	}
	return 0;
}

/* A hard link member: node n names target's inode. */
static int hard_link(struct tarrd *t, uint32_t n, const char *target)
{
	struct pop_src *s = t->s;
	char *norm = t->norm;
	const char *last;
	uint32_t dir, h;

	if (normalize(target, norm, sizeof(t->norm)) || !*norm)
		return fail_member(t, "bad hard link target %s (\"..\", a name over %d bytes or a "
				   "path over %d)", target, POP_NAME_MAX, POP_PATH_MAX);
	dir = walk_parents(t, norm, &last);
	if (dir == POP_NONE)
		return -1;
	h = pop_lookup(s, dir, last, strlen(last));
	if (h == POP_NONE)
		return fail_member(t, "hard link to %s, which is not in the archive before it",
				   target);
	if (h == n)
		return fail_member(t, "hard link to itself");
	h = s->nodes[h].holder;
	if (s->nodes[h].type == POP_DIR)
		return fail_member(t, "hard link to directory %s", target);
	s->nodes[n].type = s->nodes[h].type;
	s->nodes[n].holder = h;
	s->nodes[n].stnlink = 2;
	s->nodes[h].stnlink++;
	return 0;
}

static int one_member(struct tarrd *t, struct archive_entry *e)
{
	struct pop_src *s = t->s;
	const char *hl = archive_entry_hardlink(e), *last;
	enum pop_type type = type_of(archive_entry_filetype(e));
	uint32_t dir, n;

	switch (strlen(t->member) >= sizeof(t->name) - 1 ? -3 :
		normalize(t->member, t->path, sizeof(t->path))) {
	case -1:
		return fail_member(t, "path with a \"..\" component");
	case -2:
		return fail_member(t, "a name longer than %d bytes", POP_NAME_MAX);
	case -3:
		return fail_member(t, "path longer than %d bytes", POP_PATH_MAX);
	}
	if (!hl && !type)
		return fail_member(t, "unsupported file type 0%o",
				   (unsigned)archive_entry_filetype(e));
	if (!*t->path) {	/* the root */
		if (hl || type != POP_DIR)
			return fail_member(t, "the root is not a directory");
		return set_meta(t, 0, e, POP_DIR) || read_xattrs(t, 0, e);
	}
	dir = walk_parents(t, t->path, &last);
	if (dir == POP_NONE)
		return -1;
	n = pop_lookup(s, dir, last, strlen(last));
	if (n != POP_NONE) {
		struct pop_node *o = &s->nodes[n];

		if (o->type == POP_DIR && (hl || type != POP_DIR) && o->kid_first != POP_NONE)
			return fail_member(t, "replaces a directory that is not empty");
		if (o->type != POP_DIR && (o->stnlink > 1 || o->holder != n))
			return fail_member(t, "replaces a hard-linked file (not supported)");
		o->holder = n;
		o->stnlink = 1;
	} else {
		n = pop_node_new(s, dir, last, strlen(last));
		if (n == POP_NONE || pop_hash_insert(s, n))
			return -1;
		pop_node_link(s, n);
		s->nodes[n].stnlink = 1;
	}
	if (hl)
		return hard_link(t, n, hl);
	if (set_meta(t, n, e, type) || read_xattrs(t, n, e))
		return -1;
	return type == POP_REG ? read_data(t, n) : 0;
}

int pop_tar_scan(struct pop_src *s)
{
	struct tarrd *tp = calloc(1, sizeof(*tp));
	struct archive_entry *e;
	int r, rc = 0;

	if (!tp)
		return pop_fail(s, "%s: out of memory", s->spec);
	tp->s = s;
	if (la_load(s) || spool_open(s)) {
		free(tp);
		return -1;
	}
	tp->a = archive_read_new();
	if (!tp->a) {
		free(tp);
		return pop_fail(s, "%s: out of memory", s->spec);
	}
	archive_read_support_format_tar(tp->a);
	archive_read_support_filter_gzip(tp->a);
	archive_read_support_filter_bzip2(tp->a);
	archive_read_support_filter_xz(tp->a);
	archive_read_support_filter_lzma(tp->a);
	archive_read_support_filter_zstd(tp->a);
	archive_read_support_filter_lz4(tp->a);
	if (!strcmp(s->spec, "-"))
		r = archive_read_open_fd(tp->a, 0, 65536);
	else
		r = archive_read_open_filename(tp->a, s->spec, 65536);
	if (r != ARCHIVE_OK) {
		rc = fail_member(tp, "%s", archive_error_string(tp->a) ?
				 archive_error_string(tp->a) : "cannot open");
		goto out;
	}
	while ((r = archive_read_next_header(tp->a, &e)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
		const char *pn = archive_entry_pathname(e);

		if (!pn) {
			rc = fail_member(tp, "member without a path name");
			goto out;
		}
		snprintf(tp->name, sizeof(tp->name), "%s", pn);
		tp->member = tp->name;
		rc = one_member(tp, e);
		if (rc)
			goto out;
	}
	if (r != ARCHIVE_EOF) {
		const char *why = archive_error_string(tp->a) ? archive_error_string(tp->a) :
				  "read error";

		if (tp->member)
			rc = pop_fail(s, "%s: after member %.300s: %s", s->spec, tp->member, why);
		else
			rc = fail_member(tp, "%s", why);
	}
out:
	archive_read_free(tp->a);
	free(tp);
	return rc;
}

int pop_tar_read(struct pop_src *s, uint32_t h, uint64_t off, void *buf, size_t len)
{
	const struct pop_node *nd = &s->nodes[h];
	uint64_t at = nd->spool;
	char *p = buf;
	uint32_t i;

	for (i = 0; i < nd->nseg; i++) {
		const struct pop_seg *g = &s->segs[nd->seg_first + i];

		if (off >= g->off && off + len <= g->off + g->len) {
			at += off - g->off;
			break;
		}
		at += g->len;
	}
	while (len) {
		ssize_t r = pread(s->spool_fd, p, len, (off_t)at);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return pop_fail(s, "%s: cannot read the spool file: %s", s->spec,
					r < 0 ? strerror(errno) : "short");
		p += r;
		at += (uint64_t)r;
		len -= (size_t)r;
	}
	return 0;
}
