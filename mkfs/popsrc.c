/*
 * popsrc.c: the catalogue of an e4mkfs -d archive, its order and its walk
 * (popsrc.h says the stream's rules).  The archive reader (popsrc_tar.c)
 * fills nodes; pop_finish() sorts each directory's children by name
 * bytes, numbers the stream and forms the link groups.  A directory
 * source has no catalogue: popsrc_dir.c streams it, using one scratch
 * node and this file's helpers (arena, attributes, ACLs, data runs).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "e4.h"
#include "popsrc_int.h"

int pop_fail(struct pop_src *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	return -1;
}

static int grow(struct pop_src *s, void **p, uint32_t *cap, uint32_t need, size_t elem)
{
	uint32_t c = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (c < need) {
		if (c > UINT32_MAX / 2)
			return pop_fail(s, "%s: too many entries", s->spec);
		c *= 2;
	}
	q = realloc(*p, (size_t)c * elem);
	if (!q)
		return pop_fail(s, "%s: out of memory", s->spec);
	*p = q;
	*cap = c;
	return 0;
}

uint64_t pop_arena_put(struct pop_src *s, const void *p, size_t len)
{
	uint64_t off = s->alen;

	if (s->alen + len + 1 > s->acap) {
		uint64_t c = s->acap ? s->acap : 65536;
		char *q;

		while (c < s->alen + len + 1)
			c *= 2;
		q = realloc(s->arena, c);
		if (!q) {
			pop_fail(s, "%s: out of memory", s->spec);
			return UINT64_MAX;
		}
		s->arena = q;
		s->acap = c;
	}
	if (len)
		memcpy(s->arena + off, p, len);
	s->arena[off + len] = 0;	/* names and targets stay C strings */
	s->alen += len + 1;
	return off;
}

uint32_t pop_node_new(struct pop_src *s, uint32_t parent, const char *name, size_t len)
{
	struct pop_node *n;
	uint64_t off;

	if (grow(s, (void **)&s->nodes, &s->cnodes, s->nnodes + 1, sizeof(*n)))
		return POP_NONE;
	off = pop_arena_put(s, name, len);
	if (off == UINT64_MAX)
		return POP_NONE;
	n = &s->nodes[s->nnodes];
	memset(n, 0, sizeof(*n));
	n->name_off = off;
	n->name_len = (uint32_t)len;
	n->parent = parent;
	n->kid_first = n->next = POP_NONE;
	n->holder = s->nnodes;
	return s->nnodes++;
}

void pop_node_link(struct pop_src *s, uint32_t n)
{
	struct pop_node *p = &s->nodes[s->nodes[n].parent];

	s->nodes[n].next = p->kid_first;
	p->kid_first = n;
	p->nkids++;
}

int pop_seg_add(struct pop_src *s, uint32_t n, uint64_t off, uint64_t len)
{
	struct pop_node *nd = &s->nodes[n];

	if (!len)
		return 0;
	if (nd->nseg && s->segs[s->nsegs - 1].off + s->segs[s->nsegs - 1].len == off) {
		s->segs[s->nsegs - 1].len += len;	/* adjacent runs are one */
		return 0;
	}
	if (grow(s, (void **)&s->segs, &s->csegs, s->nsegs + 1, sizeof(*s->segs)))
		return -1;
	if (!nd->nseg)
		nd->seg_first = s->nsegs;
	s->segs[s->nsegs].off = off;
	s->segs[s->nsegs].len = len;
	s->nsegs++;
	nd->nseg++;
	return 0;
}

int pop_xa_add(struct pop_src *s, uint32_t n, const char *name, const void *val, size_t len)
{
	struct pop_xa *x;
	uint64_t no, vo;

	if (grow(s, (void **)&s->xas, &s->cxas, s->nxas + 1, sizeof(*x)))
		return -1;
	no = pop_arena_put(s, name, strlen(name));
	vo = no == UINT64_MAX ? no : pop_arena_put(s, val, len);
	if (vo == UINT64_MAX)
		return -1;
	if (!s->nodes[n].nxa)
		s->nodes[n].xa_first = s->nxas;
	x = &s->xas[s->nxas++];
	x->name_off = no;
	x->val_off = vo;
	x->len = (uint32_t)len;
	s->nodes[n].nxa++;
	return 0;
}

static const char *arena_str(const struct pop_src *s, uint64_t off)
{
	return s->arena + off;
}

static int cmp_xa(const void *a, const void *b, void *arg)
{
	const struct pop_src *s = arg;
	const struct pop_xa *x = a, *y = b;
	int c = strcmp(arena_str(s, x->name_off), arena_str(s, y->name_off));

	if (c)
		return c;
	return x->val_off < y->val_off ? -1 : x->val_off > y->val_off; /* later added, later */
}

#define ACL_ACCESS	"system.posix_acl_access"
#define ACL_DEFAULT	"system.posix_acl_default"

/* A VFS-encoded ACL value into ext4's encoding, in place of the old one.
 * An access ACL sets the permission bits of *mode (owner: USER_OBJ, group:
 * MASK, else GROUP_OBJ, other: OTHER; libarchive gives GROUP_OBJ's bits
 * where the archive's header had the mask's); *drop set when it has only
 * those three entries (the mode says all of it). */
static int acl_convert(struct pop_src *s, struct pop_xa *x, int access, const char *what,
		       uint32_t *mode, int *drop)
{
	struct e4_acl_entry *e = s->acl;
	uint8_t *out = s->aclbuf;
	size_t n, len;
	uint64_t off;
	errcode_t err;

	err = e4_acl_from_xattr(s->arena + x->val_off, x->len, e, E4_ACL_MAX_ENTRIES, &n);
	if (err)
		return pop_fail(s, "%s: %s: invalid POSIX ACL (%u bytes)", what,
				access ? ACL_ACCESS : ACL_DEFAULT, x->len);
	if (access) {	/* the mode mirrors the ACL (the kernel's rule) */
		uint32_t u = 0, g = 0, m = 0, o = 0, has_mask = 0;

		for (size_t i = 0; i < n; i++) {
			if (e[i].tag == E4_ACL_USER_OBJ)
				u = e[i].perm;
			else if (e[i].tag == E4_ACL_GROUP_OBJ)
				g = e[i].perm;
			else if (e[i].tag == E4_ACL_MASK)
				m = e[i].perm, has_mask = 1;
			else if (e[i].tag == E4_ACL_OTHER)
				o = e[i].perm;
		}
		*mode = (*mode & 07000) | u << 6 | (has_mask ? m : g) << 3 | o;
	}
	*drop = access && n == 3;
	if (*drop)
		return 0;
	if (e4_acl_entries_to_disk(e, n, out, &len))
		return pop_fail(s, "%s: invalid POSIX ACL", what);
	off = pop_arena_put(s, out, len);
	if (off == UINT64_MAX)
		return -1;
	x->val_off = off;
	x->len = (uint32_t)len;
	return 0;
}

int pop_xa_finish(struct pop_src *s, uint32_t n, const char *what)
{
	struct pop_node *nd = &s->nodes[n];
	struct pop_xa *x;
	uint32_t i, k = 0;

	if (!nd->nxa)
		return 0;
	x = s->xas + nd->xa_first;	/* s->xas may be NULL when nothing has xattrs */
	qsort_r(x, nd->nxa, sizeof(*x), cmp_xa, s);
	for (i = 0; i < nd->nxa; i++) {
		const char *name = arena_str(s, x[i].name_off);
		int drop = 0;

		if (i + 1 < nd->nxa && !strcmp(name, arena_str(s, x[i + 1].name_off)))
			continue;	/* a later value of the same name wins */
		if ((!strcmp(name, ACL_ACCESS) || !strcmp(name, ACL_DEFAULT)) &&
		    acl_convert(s, &x[i], !strcmp(name, ACL_ACCESS), what, &nd->mode,
				&drop))
			return -1;
		if (!drop)
			x[k++] = x[i];
	}
	nd->nxa = k;
	return 0;
}

void pop_node_path(const struct pop_src *s, uint32_t n, char *buf, size_t len)
{
	uint32_t chain[4096], depth = 0;
	size_t at = 0;

	buf[0] = 0;
	while (n != 0 && depth < 4096) {
		chain[depth++] = n;
		n = s->nodes[n].parent;
	}
	while (depth--) {
		const struct pop_node *nd = &s->nodes[chain[depth]];

		if (at + nd->name_len + 2 > len)
			break;
		if (at)
			buf[at++] = '/';
		memcpy(buf + at, s->arena + nd->name_off, nd->name_len);
		at += nd->name_len;
		buf[at] = 0;
	}
}

/* ---- lookup by (parent, name): archives --------------------------------- */

static uint32_t hash_of(uint32_t parent, const char *name, size_t len)
{
	uint32_t h = 2166136261u ^ parent;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 16777619u;
	return h;
}

static int same(const struct pop_src *s, uint32_t n, uint32_t parent, const char *name,
		size_t len)
{
	const struct pop_node *nd = &s->nodes[n];

	return nd->parent == parent && nd->name_len == len &&
	       !memcmp(s->arena + nd->name_off, name, len);
}

uint32_t pop_lookup(struct pop_src *s, uint32_t parent, const char *name, size_t len)
{
	uint32_t i;

	if (!s->hcap)
		return POP_NONE;
	for (i = hash_of(parent, name, len) & (s->hcap - 1); s->hash[i] != POP_NONE;
	     i = (i + 1) & (s->hcap - 1))
		if (same(s, s->hash[i], parent, name, len))
			return s->hash[i];
	return POP_NONE;
}

static void hash_put(struct pop_src *s, uint32_t n)
{
	const struct pop_node *nd = &s->nodes[n];
	uint32_t i = hash_of(nd->parent, s->arena + nd->name_off, nd->name_len) & (s->hcap - 1);

	while (s->hash[i] != POP_NONE)
		i = (i + 1) & (s->hcap - 1);
	s->hash[i] = n;
}

int pop_hash_insert(struct pop_src *s, uint32_t n)
{
	if ((uint64_t)(s->nnodes + 1) * 2 > s->hcap) {
		uint32_t old = s->hcap, *oh = s->hash, i, c = old ? old * 2 : 1024;

		while ((uint64_t)(s->nnodes + 1) * 2 > c)
			c *= 2;
		s->hash = malloc((size_t)c * sizeof(*s->hash));
		if (!s->hash) {
			s->hash = oh;
			return pop_fail(s, "%s: out of memory", s->spec);
		}
		memset(s->hash, 0xff, (size_t)c * sizeof(*s->hash));
		s->hcap = c;
		for (i = 0; i < old; i++)
			if (oh[i] != POP_NONE)
				hash_put(s, oh[i]);
		free(oh);
	}
	hash_put(s, n);
	return 0;
}

/* ---- order --------------------------------------------------------------- */

static int cmp_name(const void *a, const void *b, void *arg)
{
	const struct pop_src *s = arg;
	const struct pop_node *x = &s->nodes[*(const uint32_t *)a];
	const struct pop_node *y = &s->nodes[*(const uint32_t *)b];
	size_t m = x->name_len < y->name_len ? x->name_len : y->name_len;
	int c = memcmp(s->arena + x->name_off, s->arena + y->name_off, m);

	if (c)
		return c;
	return x->name_len < y->name_len ? -1 : x->name_len > y->name_len;
}

/* Stream order of the directories' listings: see popsrc.h. */
static int number(struct pop_src *s)
{
	struct frame { uint32_t dir, next; } *st;
	uint32_t depth = 0, next = 1;

	st = malloc((size_t)s->nnodes * sizeof(*st));
	if (!st)
		return pop_fail(s, "%s: out of memory", s->spec);
	s->nodes[0].order = 0;
	s->by_order[0] = 0;
	s->dirs[s->ndirs++] = 0;
	st[depth++] = (struct frame){ 0, 0 };
	/* list the root's children, then descend */
	for (uint32_t k = 0; k < s->nodes[0].nkids; k++) {
		uint32_t c = s->kids[s->nodes[0].kid_first + k];

		s->nodes[c].order = next;
		s->by_order[next++] = c;
	}
	while (depth) {
		struct frame *f = &st[depth - 1];
		struct pop_node *d = &s->nodes[f->dir];
		uint32_t c;

		if (f->next == d->nkids) {
			depth--;
			continue;
		}
		c = s->kids[d->kid_first + f->next++];
		if (s->nodes[c].type != POP_DIR)
			continue;
		for (uint32_t k = 0; k < s->nodes[c].nkids; k++) {
			uint32_t g = s->kids[s->nodes[c].kid_first + k];

			s->nodes[g].order = next;
			s->by_order[next++] = g;
		}
		s->dirs[s->ndirs++] = c;
		st[depth++] = (struct frame){ c, 0 };
	}
	free(st);
	return 0;
}

static int key_cmp(const struct pop_src *s, uint32_t a, uint32_t b)
{
	const struct pop_node *x = &s->nodes[a], *y = &s->nodes[b];

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static int cmp_group(const void *a, const void *b, void *arg)
{
	const struct pop_src *s = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = key_cmp(s, x, y);

	if (c)
		return c;
	return s->nodes[x].order < s->nodes[y].order ? -1 : s->nodes[x].order > s->nodes[y].order;
}

/* Link groups: the paths of one inode (stnlink > 1): directory source,
 * one (dev, ino), the first path in the stream holding the inode;
 * archives, one holder (the member the others link to, set by the
 * reader, which keeps the metadata and the data). */
static int groups(struct pop_src *s)
{
	uint32_t i, j, n = 0, *v;

	for (i = 0; i < s->nnodes; i++) {
		struct pop_node *nd = &s->nodes[i];

		nd->group = nd->order;
		nd->nlink = 1;
		if (nd->type == POP_DIR) {
			nd->nlink = 2;
			for (j = 0; j < nd->nkids; j++)
				if (s->nodes[s->kids[nd->kid_first + j]].type == POP_DIR)
					nd->nlink++;
		}
	}
	v = malloc((size_t)s->nnodes * sizeof(*v) + 1);
	if (!v)
		return pop_fail(s, "%s: out of memory", s->spec);
	for (i = 0; i < s->nnodes; i++) {
		struct pop_node *nd = &s->nodes[i];

		if (nd->type == POP_DIR || nd->stnlink <= 1)
			continue;
		if (s->archive) {
			nd->dev = 0;
			nd->ino = nd->holder;
		}
		v[n++] = i;
	}
	qsort_r(v, n, sizeof(*v), cmp_group, s);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && !key_cmp(s, v[j], v[i]); j++)
			;
		for (uint32_t k = i; k < j; k++) {
			struct pop_node *nd = &s->nodes[v[k]];

			nd->group = s->nodes[v[i]].order;
			nd->nlink = j - i;
			if (!s->archive)
				nd->holder = v[i];
		}
	}
	free(v);
	return 0;
}

/* After a reader: children sorted into kids[], stream numbered, groups. */
static int pop_finish(struct pop_src *s)
{
	uint32_t i, at = 0;

	s->kids = malloc((size_t)s->nnodes * sizeof(*s->kids) + 1);
	s->by_order = malloc((size_t)s->nnodes * sizeof(*s->by_order) + 1);
	s->dirs = malloc((size_t)s->nnodes * sizeof(*s->dirs) + 1);
	if (!s->kids || !s->by_order || !s->dirs)
		return pop_fail(s, "%s: out of memory", s->spec);
	for (i = 0; i < s->nnodes; i++) {
		struct pop_node *nd = &s->nodes[i];
		uint32_t c = nd->kid_first, k = 0;

		if (nd->type != POP_DIR) {
			nd->kid_first = at;
			nd->nkids = 0;
			continue;
		}
		for (; c != POP_NONE; c = s->nodes[c].next)
			s->kids[at + k++] = c;
		nd->kid_first = at;
		nd->nkids = k;
		qsort_r(s->kids + at, k, sizeof(*s->kids), cmp_name, s);
		at += k;
	}
	if (number(s))
		return -1;
	return groups(s);
}

/* ---- open, walk, read ------------------------------------------------------ */

int pop_open(const char *spec, const struct pop_opts *o, struct pop_src **ret,
	     char *err, size_t errlen)
{
	struct pop_src *s = calloc(1, sizeof(*s));
	struct stat st;
	int rc;

	*ret = NULL;
	if (s) {
		s->xbuf = malloc(POP_XBUF);
		s->acl = malloc(E4_ACL_MAX_ENTRIES * sizeof(*s->acl));
		s->aclbuf = malloc(4 + 8 * E4_ACL_MAX_ENTRIES);
	}
	if (!s || !s->xbuf || !s->acl || !s->aclbuf || !(s->spec = strdup(spec))) {
		if (s) {
			free(s->xbuf);
			free(s->acl);
			free(s->aclbuf);
		}
		snprintf(err, errlen, "%s: out of memory", spec);
		free(s);
		return -1;
	}
	if (o)
		s->opts = *o;
	s->rootfd = s->walk_dirfd = s->cur_fd = s->spool_fd = -1;
	s->cur_node = POP_NONE;
	if (strcmp(spec, "-") && stat(spec, &st)) {
		snprintf(err, errlen, "%s: %s", spec, strerror(errno));
		pop_close(s);
		return -1;
	}
	s->archive = !strcmp(spec, "-") || !S_ISDIR(st.st_mode);
	if (pop_node_new(s, 0, "", 0) == POP_NONE) {
		snprintf(err, errlen, "%s", s->err);
		pop_close(s);
		return -1;
	}
	s->nodes[0].type = POP_DIR;
	s->nodes[0].mode = 0755;
	s->nodes[0].stnlink = 1;
	for (int k = 0; k < 4; k++)
		s->nodes[0].t[k].sec = s->opts.default_time;
	rc = s->archive ? pop_tar_scan(s) : pop_dir_scan(s);
	if (!rc && s->archive)
		rc = pop_finish(s);
	if (rc) {
		snprintf(err, errlen, "%s", s->err);
		pop_close(s);
		return -1;
	}
	*ret = s;
	return 0;
}

void pop_close(struct pop_src *s)
{
	if (!s)
		return;
	if (s->rootfd >= 0)
		close(s->rootfd);
	if (s->walk_dirfd >= 0)
		close(s->walk_dirfd);
	if (s->cur_fd >= 0)
		close(s->cur_fd);
	if (s->spool_fd >= 0)
		close(s->spool_fd);
	free(s->nodes);
	free(s->arena);
	free(s->xas);
	free(s->segs);
	free(s->kids);
	free(s->by_order);
	free(s->dirs);
	free(s->hash);
	free(s->chk);
	free(s->hasxa);
	free(s->lnk);
	free(s->spec);
	free(s->xbuf);
	free(s->acl);
	free(s->aclbuf);
	free(s);
}

const char *pop_error(const struct pop_src *s)
{
	return s->err;
}

int pop_is_archive(const struct pop_src *s)
{
	return s->archive;
}

uint32_t pop_count(const struct pop_src *s)
{
	return s->archive ? s->nnodes : s->dir_count;
}

uint64_t pop_data_bytes(const struct pop_src *s)
{
	uint64_t n = 0;

	if (!s->archive)
		return s->dir_bytes;
	for (uint32_t i = 0; i < s->nnodes; i++) {
		const struct pop_node *nd = &s->nodes[i];

		if (nd->holder != i || nd->type != POP_REG)
			continue;
		for (uint32_t k = 0; k < nd->nseg; k++)
			n += s->segs[nd->seg_first + k].len;
	}
	return n;
}

/* Walk state: the path of the directory being listed and scratch. */
struct walk {
	char *path;		/* the current entry's path */
	size_t dirlen;		/* bytes of the listed directory's path */
	struct pop_xattr *xa;
	uint32_t cxa;
};

/* The metadata of node h into e: type, mode, owner, times, device,
 * target, size and attributes (their array in *xa, grown as needed). */
int pop_entry_meta(struct pop_src *s, const struct pop_node *h, struct pop_entry *e,
		   struct pop_xattr **xa, uint32_t *cxa)
{
	e->type = h->type;
	e->mode = h->mode;
	e->uid = h->uid;
	e->gid = h->gid;
	e->atime = h->t[0];
	e->mtime = h->t[1];
	e->ctime = h->t[2];
	e->crtime = h->t[3];
	e->has_crtime = h->has_cr;
	e->rdev_major = h->major;
	e->rdev_minor = h->minor;
	e->target = s->arena + h->target_off;
	e->target_len = h->target_len;
	e->size = h->type == POP_SYMLINK ? h->target_len : h->size;
	if (h->nxa > *cxa) {
		struct pop_xattr *q = realloc(*xa, h->nxa * sizeof(*q));

		if (!q)
			return pop_fail(s, "%s: out of memory", s->spec);
		*xa = q;
		*cxa = h->nxa;
	}
	for (uint32_t i = 0; i < h->nxa; i++) {
		const struct pop_xa *x = &s->xas[h->xa_first + i];

		(*xa)[i].name = s->arena + x->name_off;
		(*xa)[i].value = (const uint8_t *)s->arena + x->val_off;
		(*xa)[i].len = x->len;
	}
	e->xattrs = *xa;
	e->nxattrs = h->nxa;
	return 0;
}

static int fill(struct pop_src *s, struct walk *w, uint32_t n, struct pop_entry *e)
{
	const struct pop_node *nd = &s->nodes[n], *h = &s->nodes[nd->holder];
	size_t at = w->dirlen;

	if (at)
		w->path[at++] = '/';
	memcpy(w->path + at, s->arena + nd->name_off, nd->name_len);
	w->path[at + nd->name_len] = 0;
	memset(e, 0, sizeof(*e));
	e->index = nd->order;
	e->parent = n ? s->nodes[nd->parent].order : 0;
	e->path = n ? w->path : "";
	e->name = n ? s->arena + nd->name_off : "";	/* stable: see popsrc.h */
	e->name_len = nd->name_len;
	if (pop_entry_meta(s, h, e, &w->xa, &w->cxa))
		return -1;
	e->link_group = nd->group;
	e->nlink = nd->nlink;
	e->nchildren = nd->nkids;
	if (nd->group == nd->order && h->nseg) {
		e->segs = s->segs + h->seg_first;
		e->nsegs = h->nseg;
	}
	return 0;
}

static int deliver(struct pop_src *s, struct walk *w, const struct pop_ops *ops, void *arg,
		   uint32_t n)
{
	struct pop_entry e;
	int rc;

	if (fill(s, w, n, &e))
		return -1;
	s->cur_node = n;
	rc = ops->entry ? ops->entry(arg, s, &e) : 0;
	s->cur_node = POP_NONE;
	if (s->cur_fd >= 0) {
		close(s->cur_fd);
		s->cur_fd = -1;
	}
	return rc;
}

/* List directory d (node): its children, then dir_end. */
static int list_dir(struct pop_src *s, struct walk *w, const struct pop_ops *ops, void *arg,
		    uint32_t d)
{
	const struct pop_node *nd = &s->nodes[d];
	struct pop_entry e;
	uint32_t k;
	int rc;

	pop_node_path(s, d, w->path, POP_PATH_MAX + 1);
	w->dirlen = strlen(w->path);
	for (k = 0; k < nd->nkids; k++) {
		rc = deliver(s, w, ops, arg, s->kids[nd->kid_first + k]);
		if (rc)
			return rc;
	}
	if (!ops->dir_end)
		return 0;
	pop_node_path(s, d, w->path, POP_PATH_MAX + 1);
	w->dirlen = 0;
	if (d) {	/* fill() appends the name to the parent's path */
		char *slash = strrchr(w->path, '/');

		w->dirlen = slash ? (size_t)(slash - w->path) : 0;
	}
	if (fill(s, w, d, &e))
		return -1;
	return ops->dir_end(arg, s, &e);
}

int pop_walk(struct pop_src *s, const struct pop_ops *ops, void *arg)
{
	struct walk w = { 0 };
	uint32_t i;
	int rc;

	if (!s->archive)
		return pop_dir_walk(s, ops, arg);
	w.path = malloc(POP_PATH_MAX + 1 + POP_NAME_MAX + 2);
	if (!w.path)
		return pop_fail(s, "%s: out of memory", s->spec);
	w.dirlen = 0;
	rc = deliver(s, &w, ops, arg, 0);
	/* the directories list their children in number()'s order */
	for (i = 0; !rc && i < s->ndirs; i++)
		rc = list_dir(s, &w, ops, arg, s->dirs[i]);
	free(w.path);
	free(w.xa);
	return rc;
}

int pop_read(struct pop_src *s, const struct pop_entry *e, uint64_t off, void *buf, size_t len)
{
	uint32_t n = s->cur_node, i;

	if (n == POP_NONE || (s->archive ? s->nodes[n].order : n) != e->index)
		return pop_fail(s, "%s: read outside the entry being delivered", e->path);
	for (i = 0; i < e->nsegs; i++)
		if (off >= e->segs[i].off && off + len <= e->segs[i].off + e->segs[i].len)
			break;
	if (i == e->nsegs)
		return pop_fail(s, "%s: read of %zu bytes at %llu is outside its data", e->path,
				len, (unsigned long long)off);
	if (s->archive)
		return pop_tar_read(s, s->nodes[n].holder, off, buf, len);
	return pop_dir_read(s, e, off, buf, len);
}
