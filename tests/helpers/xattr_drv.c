/*
 * xattr_drv: drives libe4's xattr writer (xattr_write.c) for
 * tests/t/lib_xattr_write.sh.
 *   xattr_drv IMAGE SEED STEPS MANIFEST PATH...
 * Resolves each PATH (absolute, in IMAGE) to an inode, then makes STEPS
 * random changes (fixed SEED) to their attributes against a model (a list
 * name -> value per inode): set (names from a small pool, so values are
 * replaced; value sizes from empty to 8 KiB, 20 KiB with ea_inode),
 * remove (sometimes a name that is not there: E4_ERR_XATTR_NOT_FOUND),
 * and share (an inode drops its attributes and takes another's xattr
 * block).  A set the filesystem has no room for must fail with
 * E4_ERR_XATTR_NO_ROOM / E4_ERR_NO_SPACE and change nothing.  Then a fixed finale leaves a
 * shared block (the last PATH takes the fifth's block, which holds a
 * 200-byte value, and so does the fourth, which is then changed: its
 * copy is its own) and, with ea_inode, an 8 KiB value on the third.  After every step the library's
 * reader must list exactly the model for every inode.  At the end the
 * bitmaps are flushed and MANIFEST gets one line per attribute:
 * PATH TAB NAME TAB hex value; stdout one line of counts.
 *   xattr_drv IMAGE script FILE PATH...
 * Runs FILE's lines "set PATH NAME LEN BYTE" (LEN bytes of value BYTE)
 * and "rm PATH NAME", printing "N nospace" / "N missing" for line N
 * refused with E4_ERR_XATTR_NO_ROOM or E4_ERR_NO_SPACE / E4_ERR_XATTR_NOT_FOUND, then the layout.
 *   xattr_drv IMAGE layout PATH...
 * Prints where each attribute of each PATH is kept: "PATH NAME inode",
 * "block", "ea-inode" or "ea-block" (value in an EA inode, entry in the
 * inode body or the block) and its e_hash, and for a PATH with a block
 * "PATH h_hash HASH" (not sorted).
 * Exit 1 on the first disagreement.
 */
#include "e4.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXI	8
#define MAXA	64

struct attr {
	char name[300];
	uint8_t *value;
	size_t len;
};

struct node {
	const char *path;
	e4_ino_t ino;
	struct attr a[MAXA];
	int n;
};

static struct node nodes[MAXI];
static int nnodes;
static uint64_t rng;

static uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static unsigned below(unsigned n)
{
	return (unsigned)(rnd() % n);
}

static void die(const char *what, errcode_t err)
{
	fprintf(stderr, "xattr_drv: %s: %s\n", what, err ? error_message(err) : "mismatch");
	exit(1);
}

static int find(const struct node *n, const char *name)
{
	for (int i = 0; i < n->n; i++)
		if (!strcmp(n->a[i].name, name))
			return i;
	return -1;
}

static void model_set(struct node *n, const char *name, const uint8_t *v, size_t len)
{
	int i = find(n, name);

	if (i < 0) {
		if (n->n == MAXA)
			die("model full", 0);
		i = n->n++;
		snprintf(n->a[i].name, sizeof(n->a[i].name), "%s", name);
	} else {
		free(n->a[i].value);
	}
	n->a[i].value = malloc(len ? len : 1);
	memcpy(n->a[i].value, v, len);
	n->a[i].len = len;
}

static void model_del(struct node *n, int i)
{
	free(n->a[i].value);
	n->a[i] = n->a[--n->n];
}

/* ---- checking the library's reader against the model ------------------ */
struct seen {
	struct node *n;
	int count, in_block;
	errcode_t err;
};

static int check_cb(e4_fs *fs, const struct e4_xattr *x, void *priv)
{
	struct seen *s = priv;
	char name[300];
	void *v = NULL;
	int i;

	snprintf(name, sizeof(name), "%s%s", x->prefix, x->name);
	i = find(s->n, name);
	s->count++;
	s->in_block += !x->in_inode;
	s->err = e4_xattr_value(fs, x, &v);
	if (!s->err && (i < 0 || s->n->a[i].len != x->value_len ||
			memcmp(s->n->a[i].value, v, x->value_len))) {
		fprintf(stderr, "xattr_drv: inode %u: %s differs from the model\n", s->n->ino, name);
		s->err = 1;
	}
	free(v);
	return s->err != 0;
}

static void check_all(e4_fs *fs, const char *when)
{
	for (int k = 0; k < nnodes; k++) {
		struct seen s = { &nodes[k], 0, 0, 0 };
		errcode_t err = e4_xattr_iterate(fs, nodes[k].ino, NULL, check_cb, &s);

		if (err || s.err || s.count != nodes[k].n) {
			fprintf(stderr, "xattr_drv: after %s: inode %u: reader lists %d of %d (%s)\n",
				when, nodes[k].ino, s.count, nodes[k].n,
				err ? error_message(err) : "");
			exit(1);
		}
	}
}

/* ---- steps --------------------------------------------------------------- */
static const char *const pool[] = {
	"user.a", "user.b", "user.c", "user.d", "user.mime_type", "trusted.t", "trusted.overlay",
	"security.s", "user.a_rather_long_attribute_name_that_takes_room_in_the_table",
};

struct counts {
	unsigned sets, removes, missing, shares, nospace, big, shared_changed;
};

static size_t value_len(int ea, unsigned bs)
{
	switch (below(10)) {
	case 0:
		return 0;
	case 1: case 2: case 3:
		return 1 + below(24);
	case 4: case 5:
		return 24 + below(200);
	case 6:
		return 200 + below(bs / 2);
	case 7:
		return bs / 2 + below(bs);
	case 8:
		return ea ? 8192 : 1 + below(60);
	default:
		return ea && below(3) == 0 ? 8192 + below(12 * 1024) : 1 + below(100);
	}
}

static union e4_inode_buf ib;

static void reread(e4_fs *fs, struct node *n)
{
	errcode_t err = e4_inode_read(fs, n->ino, &ib);

	if (err)
		die("inode read", err);
}

/* 1 if inode n's xattr block is shared (h_refcount > 1). */
static int block_shared(e4_fs *fs)
{
	e4_blk_t b = e4_inode_file_acl(fs, &ib.inode);
	uint8_t buf[65536];

	if (!b || e4_io_read_blk(e4_fs_io(fs), b, 1, buf))
		return 0;
	return e4_get_le32(buf + 4) > 1;
}

static void step_set(e4_fs *fs, struct node *n, int ea, struct counts *c,
		     const struct e4_xattr_opts *o)
{
	const char *full = pool[below(sizeof(pool) / sizeof(pool[0]))], *suffix;
	size_t len = value_len(ea, e4_geom(fs)->block_size), slen;
	uint8_t *v = malloc(len ? len : 1);
	int shared = block_shared(fs);
	uint8_t idx;
	errcode_t err;

	for (size_t i = 0; i < len; i++)
		v[i] = (uint8_t)(below(4) ? 'a' + below(26) : rnd());
	if (e4_xattr_name_parse(full, &idx, &suffix, &slen))
		die("name parse", 0);
	err = e4_xattr_set(fs, n->ino, &ib, idx, suffix, slen, v, len, o);
	if (err == E4_ERR_NO_SPACE || err == E4_ERR_XATTR_NO_ROOM) {
		c->nospace++;
	} else if (err) {
		die("set", err);
	} else {
		model_set(n, full, v, len);
		c->sets++;
		c->big += len > 4096;
		c->shared_changed += shared;
	}
	free(v);
}

static void step_remove(e4_fs *fs, struct node *n, struct counts *c,
			const struct e4_xattr_opts *o)
{
	int i = n->n && below(8) ? (int)below((unsigned)n->n) : -1;
	const char *full = i >= 0 ? n->a[i].name : "user.never_set", *suffix;
	int shared = block_shared(fs);
	size_t slen;
	uint8_t idx;
	errcode_t err;

	if (e4_xattr_name_parse(full, &idx, &suffix, &slen))
		die("name parse", 0);
	err = e4_xattr_remove(fs, n->ino, &ib, idx, suffix, slen, o);
	if (i < 0) {
		if (err != E4_ERR_XATTR_NOT_FOUND)
			die("removing a missing name", err);
		c->missing++;
		return;
	}
	if (err)
		die("remove", err);
	model_del(n, i);
	c->removes++;
	c->shared_changed += shared;
}

struct blk_names {
	struct node *to;
	e4_fs *fs;
};

static int copy_block_cb(e4_fs *fs, const struct e4_xattr *x, void *priv)
{
	struct blk_names *b = priv;
	char name[300];
	void *v = NULL;

	if (x->in_inode)
		return 0;
	snprintf(name, sizeof(name), "%s%s", x->prefix, x->name);
	if (e4_xattr_value(fs, x, &v))
		die("value", 0);
	model_set(b->to, name, v, x->value_len);
	free(v);
	return 0;
}

/* Inode a drops its attributes and takes b's block. */
static void step_share(e4_fs *fs, struct node *a, struct node *b, struct counts *c,
		       const struct e4_xattr_opts *o)
{
	struct blk_names bn = { a, fs };
	union e4_inode_buf bib;
	e4_blk_t blk;
	errcode_t err;

	if (a == b)
		return;
	if (e4_inode_read(fs, b->ino, &bib))
		die("inode read", 0);
	blk = e4_inode_file_acl(fs, &bib.inode);
	if (!blk)
		return;
	reread(fs, a);
	while (a->n) {
		const char *suffix;
		size_t slen;
		uint8_t idx;

		e4_xattr_name_parse(a->a[0].name, &idx, &suffix, &slen);
		err = e4_xattr_remove(fs, a->ino, &ib, idx, suffix, slen, o);
		if (err)
			die("remove before share", err);
		model_del(a, 0);
	}
	err = e4_xattr_block_share(fs, a->ino, &ib, blk, o);
	if (err)
		die("share", err);
	if (e4_xattr_iterate(fs, b->ino, NULL, copy_block_cb, &bn))
		die("iterate", 0);
	c->shares++;
}

/* Set name to a value of len pseudo-random bytes (must succeed). */
static void set_fixed(e4_fs *fs, struct node *n, const char *full, size_t len,
		      const struct e4_xattr_opts *o)
{
	uint8_t *v = malloc(len);
	const char *suffix;
	size_t slen;
	uint8_t idx;
	errcode_t err;

	for (size_t i = 0; i < len; i++)
		v[i] = (uint8_t)rnd();
	reread(fs, n);
	e4_xattr_name_parse(full, &idx, &suffix, &slen);
	err = e4_xattr_set(fs, n->ino, &ib, idx, suffix, slen, v, len, o);
	if (err)
		die(full, err);
	model_set(n, full, v, len);
	free(v);
}

static void finale(e4_fs *fs, int ea, struct counts *c, const struct e4_xattr_opts *o)
{
	struct node *holder = &nodes[4 % nnodes], *last = &nodes[nnodes - 1];
	struct node *changed = &nodes[3 % nnodes];

	reread(fs, holder);
	while (holder->n) {
		const char *suffix;
		size_t slen;
		uint8_t idx;

		e4_xattr_name_parse(holder->a[0].name, &idx, &suffix, &slen);
		if (e4_xattr_remove(fs, holder->ino, &ib, idx, suffix, slen, o))
			die("finale remove", 0);
		model_del(holder, 0);
	}
	set_fixed(fs, holder, "user.in_the_block", 200, o);
	step_share(fs, last, holder, c, o);
	step_share(fs, changed, holder, c, o);
	set_fixed(fs, changed, "user.after_sharing", 150, o);
	if (ea)
		set_fixed(fs, &nodes[2 % nnodes], "user.large", 8192, o);
	check_all(fs, "the finale");
}

struct final {
	unsigned ea_values, in_inode;
};

static int final_cb(e4_fs *fs, const struct e4_xattr *x, void *priv)
{
	struct final *f = priv;

	(void)fs;
	f->ea_values += x->value_inum != 0;
	f->in_inode += x->in_inode;
	return 0;
}

/* "ea_values N in_inode N shared_now N": how the final state is stored. */
static void final_counts(e4_fs *fs)
{
	struct final f = { 0, 0 };
	unsigned shared = 0;

	for (int k = 0; k < nnodes; k++) {
		reread(fs, &nodes[k]);
		shared += block_shared(fs);
		e4_xattr_iterate(fs, nodes[k].ino, NULL, final_cb, &f);
	}
	printf(" ea_values %u in_inode %u shared_now %u\n", f.ea_values, f.in_inode, shared);
}

static void write_manifest(e4_fs *fs, const char *path)
{
	FILE *f = fopen(path, "w");

	(void)fs;
	if (!f)
		die("manifest", 0);
	for (int k = 0; k < nnodes; k++) {
		for (int i = 0; i < nodes[k].n; i++) {
			fprintf(f, "%s\t%s\t", nodes[k].path, nodes[k].a[i].name);
			for (size_t j = 0; j < nodes[k].a[i].len; j++)
				fprintf(f, "%02x", nodes[k].a[i].value[j]);
			fputc('\n', f);
		}
	}
	fclose(f);
}

static int layout_cb(e4_fs *fs, const struct e4_xattr *x, void *priv)
{
	(void)fs;
	printf("%s %s%s %s%s %08x\n", (const char *)priv, x->prefix, x->name,
	       x->value_inum ? "ea-" : "", x->in_inode ? "inode" : "block", x->e_hash);
	return 0;
}

static void layout(e4_fs *fs, int n, char **paths)
{
	for (int k = 0; k < n; k++) {
		e4_ino_t ino;

		uint8_t buf[65536];
		e4_blk_t b;

		if (e4_namei(fs, EXT4_ROOT_INO, EXT4_ROOT_INO, paths[k], 0, &ino) ||
		    e4_xattr_iterate(fs, ino, NULL, layout_cb, paths[k]) ||
		    e4_inode_read(fs, ino, &ib))
			die(paths[k], 0);
		b = e4_inode_file_acl(fs, &ib.inode);
		if (b && !e4_io_read_blk(e4_fs_io(fs), b, 1, buf))
			printf("%s h_hash %08x\n", paths[k], e4_get_le32(buf + 12));
	}
}

static void script(e4_fs *fs, const char *file, const struct e4_xattr_opts *o)
{
	char line[512], path[256], name[300];
	FILE *f = fopen(file, "r");
	unsigned len, byte, no = 0;

	if (!f)
		die(file, 0);
	while (fgets(line, sizeof(line), f)) {
		const char *suffix;
		uint8_t *v = NULL, idx;
		size_t slen;
		e4_ino_t ino;
		errcode_t err;
		int set = sscanf(line, "set %255s %299s %u %u", path, name, &len, &byte) == 4;

		no++;
		if (!set && sscanf(line, "rm %255s %299s", path, name) != 2)
			die(line, 0);
		if (e4_namei(fs, EXT4_ROOT_INO, EXT4_ROOT_INO, path, 0, &ino) ||
		    e4_inode_read(fs, ino, &ib) || e4_xattr_name_parse(name, &idx, &suffix, &slen))
			die(line, 0);
		if (set) {
			v = malloc(len + 1);
			memset(v, (int)byte, len);
			err = e4_xattr_set(fs, ino, &ib, idx, suffix, slen, v, len, o);
			free(v);
		} else {
			err = e4_xattr_remove(fs, ino, &ib, idx, suffix, slen, o);
		}
		if (err == E4_ERR_NO_SPACE || err == E4_ERR_XATTR_NO_ROOM)
			printf("%u nospace\n", no);
		else if (err == E4_ERR_XATTR_NOT_FOUND)
			printf("%u missing\n", no);
		else if (err)
			die(line, err);
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	struct e4_xattr_opts o = { .now = 1700000000, .share_blk = 0 };
	struct counts c = { 0 };
	unsigned steps;
	e4_fs *fs;
	errcode_t err;
	int ea;

	if (argc < 4 || argc - 5 > MAXI) {
		fprintf(stderr, "usage: xattr_drv IMAGE SEED STEPS MANIFEST PATH... | "
				"IMAGE script FILE PATH... | IMAGE layout PATH...\n");
		return 2;
	}
	e4_init_errors();
	if (!strcmp(argv[2], "layout") || !strcmp(argv[2], "script")) {
		int sc = !strcmp(argv[2], "script");

		err = e4_open(argv[1], sc ? E4_OPEN_RW : 0, 0, 0, &fs);
		if (err)
			die("open", err);
		if (sc)
			script(fs, argv[3], &o);
		layout(fs, argc - 3 - sc, argv + 3 + sc);
		err = sc ? e4_alloc_flush(fs) : 0;
		if (!err)
			err = e4_close(fs);
		if (err)
			die("close", err);
		return 0;
	}
	rng = strtoull(argv[2], NULL, 0);
	steps = (unsigned)strtoul(argv[3], NULL, 0);
	err = e4_open(argv[1], E4_OPEN_RW, 0, 0, &fs);
	if (err)
		die("open", err);
	ea = e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EA_INODE);
	for (int k = 5; k < argc; k++) {
		nodes[nnodes].path = argv[k];
		err = e4_namei(fs, EXT4_ROOT_INO, EXT4_ROOT_INO, argv[k], 0, &nodes[nnodes].ino);
		if (err)
			die(argv[k], err);
		nnodes++;
	}
	check_all(fs, "open");
	for (unsigned s = 0; s < steps; s++) {
		struct node *n = &nodes[below((unsigned)nnodes)];
		unsigned what = below(20);

		reread(fs, n);
		if (what < 12)
			step_set(fs, n, ea, &c, &o);
		else if (what < 18)
			step_remove(fs, n, &c, &o);
		else
			step_share(fs, n, &nodes[below((unsigned)nnodes)], &c, &o);
		check_all(fs, "a step");
	}
	finale(fs, ea, &c, &o);
	printf("sets %u removes %u missing %u shares %u shared_changed %u nospace %u big %u",
	       c.sets, c.removes, c.missing, c.shares, c.shared_changed, c.nospace, c.big);
	final_counts(fs);
	err = e4_alloc_flush(fs);
	if (!err)
		err = e4_close(fs);
	if (err)
		die("flush", err);
	write_manifest(fs, argv[4]);
	return 0;
}
