/*
 * cmd_extent.c: "dump_extents"/"ex" (the nodes and extents of an extent
 * tree) and "filefrag" (how fragmented files are).  Read-only; format doc
 * section 7.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "debugfs.h"

/* Decimal digits of v (1 for 0). */
static int digits(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* ---- dump_extents ------------------------------------------------------ */
#define EX_NODES	0x1	/* -n: index entries */
#define EX_LEAVES	0x2	/* -l: leaf extents */

struct ex_ctx {
	unsigned which;
	int lw, pw;		/* logical and physical column widths */
	int header;
};

/* The last block of a run of len blocks from start.  Lengths are 32-bit
 * quantities, so len - 1 is taken modulo 2^32: a zero length (damage, or
 * an index entry that reaches the end of the logical space) ends 2^32 - 1
 * blocks after its start, as the reference prints it. */
static unsigned long long run_end(uint64_t start, uint64_t len)
{
	return (unsigned long long)(start + (uint32_t)(len - 1));
}

static int ex_cb(e4_fs *fs, const struct e4_extent_entry *e, void *priv)
{
	struct ex_ctx *c = priv;

	(void)fs;
	if (!(c->which & (e->is_leaf ? EX_LEAVES : EX_NODES)))
		return 0;
	if (!c->header) {
		printf("Level Entries %*s %*s Length Flags\n", c->lw * 2 + 3, "Logical",
		       c->pw * 2 + 3, "Physical");
		c->header = 1;
	}
	printf("%2d/%2d %3u/%3u ", e->level, e->max_level, e->index + 1, e->entries);
	if (e->is_leaf)
		printf("%*llu - %*llu %*llu - %*llu %6llu %s\n", c->lw,
		       (unsigned long long)e->lblk, c->lw, run_end(e->lblk, e->len), c->pw,
		       (unsigned long long)e->pblk, c->pw, run_end(e->pblk, e->len),
		       (unsigned long long)e->len,
		       e->unwritten ? "Uninit" : "");
	else
		printf("%*llu - %*llu %*llu%*s %6llu\n", c->lw, (unsigned long long)e->lblk,
		       c->lw, run_end(e->lblk, e->len), c->pw,
		       (unsigned long long)e->pblk, c->pw + 3, "", (unsigned long long)e->len);
	return 0;
}

/* dump_extents [-n] [-l] <inode>: every entry of the inode's extent tree
 * (both kinds unless -n or -l narrows it). */
int do_dump_extents(int argc, char **argv)
{
	const struct e4_geom *geo;
	struct ex_ctx c = { 0, 0, 0, 0 };
	union e4_inode_buf ib;
	e4_ino_t ino;
	errcode_t err;
	int opt;

	reset_getopt();
	while ((opt = getopt(argc, argv, "nl")) != -1) {
		if (opt == 'n')
			c.which |= EX_NODES;
		else if (opt == 'l')
			c.which |= EX_LEAVES;
		else
			return usage(argv[0], NULL);
	}
	if (optind != argc - 1)
		return usage(argv[0], NULL);
	if (!c.which)
		c.which = EX_NODES | EX_LEAVES;
	if (check_fs_open(argv[0]) || parse_inode(argv[0], argv[optind], &ino) ||
	    read_inode(argv[0], ino, &ib, READ_INODE_WARN_CSUM))
		return 1;
	if (!(e4_le32(ib.inode.i_flags) & EXT4_EXTENTS_FL)) {
		fprintf(stderr, "%s: does not use extent block maps\n", argv[optind]);
		return 0;
	}
	geo = e4_geom(current_fs);
	c.lw = max_int(5, digits((e4_inode_size(&ib.inode) + geo->block_size - 1) /
				 geo->block_size));
	c.pw = max_int(5, digits(geo->blocks_count));
	printf("Level Entries %*s %*s Length Flags\n", c.lw * 2 + 3, "Logical",
	       c.pw * 2 + 3, "Physical");
	c.header = 1;
	err = e4_extent_entries(current_fs, ino, &ib.inode, ex_cb, &c);
	if (err) {
		/* the entries before the damage were printed */
		warn_err(argv[0], err, "while reading the extent tree of inode %u", ino);
		return 0;
	}
	return 0;
}

/* ---- filefrag ---------------------------------------------------------- */
#define FF_VERBOSE	0x1	/* -v */
#define FF_DIR		0x2	/* -d: a directory argument itself too */
#define FF_RECURSE	0x4	/* -r */

#define FF_MAX_DEPTH	1024	/* -r: directory nesting limit */

struct ff_ctx {
	unsigned opts;
	int lw, pw;
	/* the run being built */
	uint64_t lstart, pstart, num, expected;
	unsigned ext, runs;
	unsigned depth;		/* -r nesting */
	struct e4_bmap *walked;	/* -r: directory inodes already walked */
	int failed;
	const char *cmd;
};

static void ff_report(struct ff_ctx *c)
{
	if (!c->num)
		return;
	if (c->opts & FF_VERBOSE) {
		if (c->expected)
			printf("%4u %*llu %*llu %*llu %*llu\n", c->ext, c->lw,
			       (unsigned long long)c->lstart, c->pw,
			       (unsigned long long)c->pstart, c->pw,
			       (unsigned long long)c->expected, c->lw, (unsigned long long)c->num);
		else
			printf("%4u %*llu %*llu %*s %*llu\n", c->ext, c->lw,
			       (unsigned long long)c->lstart, c->pw,
			       (unsigned long long)c->pstart, c->pw, "", c->lw,
			       (unsigned long long)c->num);
	}
	c->ext++;
}

static int ff_cb(e4_fs *fs, const struct e4_map_extent *m, void *priv)
{
	struct ff_ctx *c = priv;

	(void)fs;
	if (m->flags & E4_MAP_META)
		return 0;
	if (c->num && m->lblk == c->lstart + c->num && m->pblk == c->pstart + c->num) {
		c->num += m->len;
		return 0;
	}
	ff_report(c);
	c->expected = (c->num && m->lblk == c->lstart + c->num) ? c->pstart + c->num : 0;
	c->lstart = m->lblk;
	c->pstart = m->pblk;
	c->num = m->len;
	c->runs++;
	return 0;
}

static void ff_file(struct ff_ctx *c, e4_ino_t ino, const struct ext4_inode *inode,
		    const char *name)
{
	const struct e4_geom *geo = e4_geom(current_fs);
	uint64_t size = e4_inode_size(inode);
	errcode_t err = 0;

	c->lw = max_int(7, digits((size + geo->block_size - 1) / geo->block_size));
	c->pw = max_int(8, digits(geo->blocks_count));
	c->num = c->lstart = c->pstart = c->expected = 0;
	c->ext = c->runs = 0;
	if (c->opts & FF_VERBOSE) {
		printf("\n%s has %llu block(s), i_size is %llu\n", name,
		       (unsigned long long)(e4_inode_blocks(current_fs, inode) * 512 /
					    geo->block_size),
		       (unsigned long long)size);
		printf("%4s %*s %*s %*s %*s\n", "ext", c->lw, "logical", c->pw, "physical",
		       c->pw, "expected", c->lw, "length");
	}
	if (!(e4_le32(inode->i_flags) & EXT4_INLINE_DATA_FL))
		err = e4_map_iterate(current_fs, ino, inode, 0, ff_cb, c);
	ff_report(c);
	printf("%s: %u contiguous extents%s\n", name, c->runs, e4_is_dir(inode) ? " (dir)" : "");
	if (err) {
		warn_err(c->cmd, err, "while mapping %s", name);
	}
}

struct ff_dir {
	struct ff_ctx *c;
	const char *path;
	e4_ino_t *subdirs;
	char **subnames;
	size_t n, cap;
};

static void ff_directory(struct ff_ctx *c, e4_ino_t dir, const char *path);

static int ff_dir_cb(const struct e4_dirent *d, void *priv)
{
	struct ff_dir *fd = priv;
	union e4_inode_buf ib;
	size_t plen = strlen(fd->path);
	errcode_t err;
	char *name;

	if (!d->inode || (d->name_len == 1 && d->name[0] == '.') ||
	    (d->name_len == 2 && d->name[0] == '.' && d->name[1] == '.'))
		return 0;
	if (d->inode > e4_geom(current_fs)->inodes_count)
		return 0;
	name = malloc(plen + d->name_len + 2);
	if (!name)
		return 0;
	snprintf(name, plen + d->name_len + 2, "%s%s%s", fd->path,
		 plen && fd->path[plen - 1] == '/' ? "" : "/", d->name);
	err = e4_inode_read(current_fs, d->inode, &ib);
	if (err && err != E4_ERR_INODE_CSUM) {
		free(name);
		return 0;
	}
	if (e4_is_dir(&ib.inode) && (fd->c->opts & FF_RECURSE)) {
		/* descend after this directory's walk (bounded depth) */
		if (fd->n == fd->cap) {
			size_t cap = fd->cap ? fd->cap * 2 : 16;
			e4_ino_t *ns = realloc(fd->subdirs, cap * sizeof(*ns));
			char **nn;

			if (!ns) {
				free(name);
				return 0;
			}
			fd->subdirs = ns;
			nn = realloc(fd->subnames, cap * sizeof(*nn));
			if (!nn) {
				free(name);
				return 0;
			}
			fd->subnames = nn;
			fd->cap = cap;
		}
		fd->subdirs[fd->n] = d->inode;
		fd->subnames[fd->n++] = name;
		return 0;
	}
	ff_file(fd->c, d->inode, &ib.inode, name);
	free(name);
	return 0;
}

/* -r: descend into a directory once.  A damaged filesystem can give a
 * directory several names (itself among its entries, or two parents): each
 * would otherwise be walked again under every name, without end or
 * exponentially.  Such a directory is reported and not walked again. */
static int ff_may_descend(struct ff_ctx *c, e4_ino_t dir, const char *path)
{
	if (c->depth >= FF_MAX_DEPTH) {
		com_err(c->cmd, 0, "directories nested deeper than %d levels; not "
			"descending into %s", FF_MAX_DEPTH, path);
		c->failed = 1;
		return 0;
	}
	if (e4_bmap_test(c->walked, dir)) {
		com_err(c->cmd, 0, "directory inode %u was already walked (it has "
			"several names); not descending into %s", dir, path);
		c->failed = 1;
		return 0;
	}
	if (e4_bmap_set(c->walked, dir)) {
		com_err(c->cmd, E4_ERR_NO_MEMORY, "while descending into %s", path);
		c->failed = 1;
		return 0;
	}
	return 1;
}

static void ff_directory(struct ff_ctx *c, e4_ino_t dir, const char *path)
{
	struct ff_dir fd = { c, path, NULL, NULL, 0, 0 };
	errcode_t err;
	size_t i;

	err = e4_dir_iterate(current_fs, dir, 0, ff_dir_cb, &fd);
	if (err) {
		warn_err(c->cmd, err, "while reading directory %s", path);
	}
	for (i = 0; i < fd.n; i++) {
		union e4_inode_buf ib;

		err = e4_inode_read(current_fs, fd.subdirs[i], &ib);
		if (!err || err == E4_ERR_INODE_CSUM) {
			ff_file(c, fd.subdirs[i], &ib.inode, fd.subnames[i]);
			if (ff_may_descend(c, fd.subdirs[i], fd.subnames[i])) {
				c->depth++;
				ff_directory(c, fd.subdirs[i], fd.subnames[i]);
				c->depth--;
			}
		}
		free(fd.subnames[i]);
	}
	free(fd.subdirs);
	free(fd.subnames);
}

/* filefrag [-dvr] [file]: the number of contiguous extents of a file, or
 * of every entry of a directory (-d: of the directory itself instead,
 * -r: recursively, -v: each extent). */
int do_filefrag(int argc, char **argv)
{
	struct ff_ctx c;
	union e4_inode_buf ib;
	const char *name;
	e4_ino_t ino;
	int opt;

	memset(&c, 0, sizeof(c));
	c.cmd = argv[0];
	reset_getopt();
	while ((opt = getopt(argc, argv, "dvr")) != -1) {
		if (opt == 'd')
			c.opts |= FF_DIR;
		else if (opt == 'v')
			c.opts |= FF_VERBOSE;
		else if (opt == 'r')
			c.opts |= FF_RECURSE;
		else
			return usage(argv[0], NULL);
	}
	if (argc > optind + 1)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]))
		return 1;
	if (optind < argc) {
		name = argv[optind];
		if (parse_inode(argv[0], name, &ino))
			return 1;
	} else {
		name = ".";
		ino = cwd_ino;
	}
	if (read_inode(argv[0], ino, &ib, READ_INODE_WARN_CSUM))
		return 1;
	/* -d: a directory argument is reported itself, not its entries */
	if (!e4_is_dir(&ib.inode) || (c.opts & FF_DIR)) {
		ff_file(&c, ino, &ib.inode, name);
	} else {
		errcode_t err = e4_bmap_create(E4_BMAP_RUNS, 0,
					       (uint64_t)e4_geom(current_fs)->inodes_count + 1,
					       &c.walked);

		if (err) {
			com_err(argv[0], err, "while starting the walk");
			return 1;
		}
		e4_bmap_set(c.walked, ino);
		ff_directory(&c, ino, name);
		e4_bmap_free(c.walked);
		if (c.opts & FF_VERBOSE)
			putchar('\n');
	}
	return c.failed;
}
