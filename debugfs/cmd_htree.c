/*
 * cmd_htree.c: directory inspection: "htree_dump"/"htree" (the hash tree
 * of an indexed directory), "dx_hash", "dirsearch" and "ncheck".
 * Read-only; format doc section 8.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "debugfs.h"

/* ---- htree_dump -------------------------------------------------------- */
struct htree_ctx {
	const char *cmd;
	e4_ino_t ino;
	const struct ext4_inode *inode;
	int hash_version;
	uint32_t seed[4];
	unsigned bs;
	int failed;
	unsigned nodes;		/* blocks dumped (bounded) */
};

/* One leaf block: every entry as "inode 0xhash-minor (rec_len) name",
 * wrapped before 80 columns, and the checksum tail. */
static void htree_leaf(struct htree_ctx *c, uint32_t lblk)
{
	uint8_t *buf = malloc(c->bs);
	e4_blk_t pblk = 0;
	unsigned off = 0, col = 0;
	errcode_t err;

	if (!buf) {
		com_err(c->cmd, E4_ERR_NO_MEMORY, "while dumping the htree");
		c->failed = 1;
		return;
	}
	err = e4_dir_block_read(current_fs, c->ino, c->inode, lblk, buf, &pblk);
	if (err) {
		fflush(stdout);
		com_err(c->cmd, err, "while reading block %u", lblk);
		c->failed = 1;
		free(buf);
		return;
	}
	printf("Reading directory block %u, phys %llu\n", lblk, (unsigned long long)pblk);
	while (off + 8 <= c->bs) {
		struct e4_dirent_raw d;
		char item[400];
		int n;

		err = e4_dirent_raw_at(buf, c->bs, off, &d);
		if (err) {
			fflush(stdout);
			com_err(c->cmd, err, "in directory block %u, offset %u", lblk, off);
			c->failed = 1;
			break;
		}
		if (d.csum_tail) {
			n = snprintf(item, sizeof(item), "leaf block checksum: 0x%08x  ", d.tail_csum);
		} else {
			uint32_t major = 0, minor = 0;

			e4_dx_hash(c->hash_version, d.name, d.name_len, c->seed, &major, &minor);
			n = snprintf(item, sizeof(item), "%u 0x%08x-%08x (%u) %.*s   ", d.inode,
				     major, minor, d.rec_len, (int)d.name_len, d.name);
		}
		if (n > 0 && col + (unsigned)n > 80) {
			putchar('\n');
			col = 0;
		}
		fputs(item, stdout);
		col += n > 0 ? (unsigned)n : 0;
		off += d.rec_len;
	}
	putchar('\n');
	free(buf);
}

static void htree_node(struct htree_ctx *c, const uint8_t *blk, unsigned count_off, int level);

/* An interior node at logical block lblk. */
static void htree_int_block(struct htree_ctx *c, uint32_t lblk, int level)
{
	uint8_t *buf = malloc(c->bs);
	errcode_t err;

	if (!buf) {
		c->failed = 1;
		return;
	}
	err = e4_dir_block_read(current_fs, c->ino, c->inode, lblk, buf, NULL);
	if (err) {
		fflush(stdout);
		com_err(c->cmd, err, "while reading block %u", lblk);
		c->failed = 1;
	} else {
		htree_node(c, buf, 8, level);
	}
	free(buf);
}

/* The count/limit, checksum and entries of a root or interior node whose
 * dx_countlimit is at count_off, then each child. */
static void htree_node(struct htree_ctx *c, const uint8_t *blk, unsigned count_off, int level)
{
	struct e4_dx_node n;
	unsigned i, count;
	uint32_t hash, child;

	if (++c->nodes > 1U << 20)
		return;
	e4_dx_node_parse(current_fs, blk, count_off, &n);
	count = n.count;
	printf("Number of entries (count): %u\n", n.count);
	printf("Number of entries (limit): %u\n", n.limit);
	if (n.has_csum)
		printf("Checksum: 0x%08x\n", n.csum);
	if (count > n.max) {
		fflush(stdout);
		com_err(c->cmd, E4_ERR_HTREE_CORRUPT, "count %u is over the block's %u entries",
			count, n.max);
		c->failed = 1;
		count = n.max;
	}
	for (i = 0; i < count; i++) {
		e4_dx_node_entry(blk, &n, i, &hash, &child);
		printf("Entry #%u: Hash 0x%08x%s, block %u\n", i, hash, (hash & 1) ? " (**)" : "",
		       child);
	}
	putchar('\n');
	for (i = 0; i < count; i++) {
		e4_dx_node_entry(blk, &n, i, &hash, &child);
		printf("Entry #%u: Hash 0x%08x, block %u\n", i, hash, child);
		if (level > 0) {
			htree_int_block(c, child, level - 1);
		} else {
			htree_leaf(c, child);
		}
	}
	printf("---------------------\n");
}

/* htree_dump [-l] <directory>: the root, interior nodes and leaves of an
 * indexed directory with each name's hash. */
int do_htree(int argc, char **argv)
{
	const struct ext4_super_block *sb;
	struct htree_ctx c;
	union e4_inode_buf ib;
	struct e4_dx_root info;
	uint8_t *root;
	e4_ino_t ino;
	errcode_t err;
	int opt, i;

	reset_getopt();
	while ((opt = getopt(argc, argv, "l")) != -1)
		if (opt != 'l')
			return usage(argv[0], NULL);
	if (optind != argc - 1)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]) || parse_inode(argv[0], argv[optind], &ino) ||
	    read_inode(argv[0], ino, &ib, READ_INODE_WARN_CSUM))
		return 1;
	if (!e4_is_dir(&ib.inode)) {
		com_err(argv[0], E4_ERR_NOT_DIR, "- %s", argv[optind]);
		return 1;
	}
	if (!(e4_le32(ib.inode.i_flags) & EXT4_INDEX_FL) ||
	    (e4_le32(ib.inode.i_flags) & EXT4_INLINE_DATA_FL)) {
		com_err(argv[0], 0, "Not a hash-indexed directory");
		return 1;
	}
	memset(&c, 0, sizeof(c));
	c.cmd = argv[0];
	c.ino = ino;
	c.inode = &ib.inode;
	c.bs = e4_geom(current_fs)->block_size;
	root = malloc(c.bs);
	if (!root) {
		com_err(argv[0], E4_ERR_NO_MEMORY, "while dumping the htree");
		return 1;
	}
	err = e4_dir_block_read(current_fs, ino, &ib.inode, 0, root, NULL);
	if (err) {
		com_err(argv[0], err, "while reading the root block of %s", argv[optind]);
		free(root);
		return 1;
	}
	err = e4_dx_root_parse(current_fs, root, &info);
	sb = e4_super(current_fs);
	for (i = 0; i < 4; i++)
		c.seed[i] = e4_le32(sb->s_hash_seed[i]);
	c.hash_version = e4_dx_effective_version(current_fs, info.hash_version);
	printf("Root node dump:\n");
	printf("\t Reserved zero: %u\n", info.reserved_zero);
	printf("\t Hash Version: %d\n", info.hash_version);
	printf("\t Info length: %d\n", info.info_length);
	printf("\t Indirect levels: %d\n", info.indirect_levels);
	printf("\t Flags: %d\n", info.unused_flags);
	if (err) {
		com_err(argv[0], err, "in the root of %s", argv[optind]);
		free(root);
		return 1;
	}
	htree_node(&c, root, info.count_off, info.indirect_levels);
	free(root);
	return c.failed;
}

/* ---- dx_hash ----------------------------------------------------------- */
static const char *const hash_names[] = {
	"legacy", "half_md4", "tea", "legacy_unsigned", "half_md4_unsigned", "tea_unsigned",
	"siphash"
};

/* Parse a UUID-formatted seed into 4 CPU-order words (byte order as the
 * superblock stores s_hash_seed). */
static int parse_seed(const char *s, uint32_t seed[4])
{
	uint8_t b[16];
	unsigned i = 0;

	while (*s && i < 16) {
		unsigned v;

		if (*s == '-') {
			s++;
			continue;
		}
		if (sscanf(s, "%2x", &v) != 1 || !s[1])
			return -1;
		b[i++] = (uint8_t)v;
		s += 2;
	}
	if (i != 16 || *s)
		return -1;
	for (i = 0; i < 4; i++) {
		uint32_t w;

		memcpy(&w, b + 4 * i, 4);
		seed[i] = e4_le32(w);
	}
	return 0;
}

/* dx_hash [-h hash_alg] [-s seed] [-c] [-e encoding] name: the htree hash
 * of a name (legacy hash and zero seed by default). */
int do_dx_hash(int argc, char **argv)
{
	uint32_t seed[4] = { 0, 0, 0, 0 }, major, minor;
	int version = DX_HASH_LEGACY, opt;
	errcode_t err;
	unsigned i;

	reset_getopt();
	while ((opt = getopt(argc, argv, "h:s:ce:")) != -1) {
		switch (opt) {
		case 'h': {
			char *end;
			long v = strtol(optarg, &end, 0);

			version = -1;
			if (*optarg && !*end && v >= 0 && v < 6)
				version = (int)v;
			for (i = 0; version < 0 && i < 6; i++)
				if (!strcmp(optarg, hash_names[i]))
					version = (int)i;
			if (version < 0) {
				com_err(argv[0], E4_ERR_BAD_HASH_VERSION, "- %s", optarg);
				return 1;
			}
			break;
		}
		case 's':
			if (parse_seed(optarg, seed)) {
				com_err(argv[0], 0, "Invalid UUID format: %s", optarg);
				return 1;
			}
			break;
		case 'c':
		case 'e':
			com_err(argv[0], E4_ERR_UNSUPPORTED, "- casefolded hashes (-%c)", opt);
			return 1;
		default:
			return usage(argv[0], NULL);
		}
	}
	if (optind != argc - 1)
		return usage(argv[0], NULL);
	err = e4_dx_hash(version, argv[optind], strlen(argv[optind]), seed, &major, &minor);
	if (err) {
		com_err(argv[0], err, "while computing the hash of %s", argv[optind]);
		return 1;
	}
	printf("Hash of %s is 0x%0x (minor 0x%0x)\n", argv[optind], major, minor);
	return 0;
}

/* ---- dirsearch --------------------------------------------------------- */
struct dirsearch_ctx {
	const char *name;
	size_t len;
	int found;
	uint64_t lblk;
	unsigned offset;
};

static int dirsearch_cb(const struct e4_dirent *d, void *priv)
{
	struct dirsearch_ctx *c = priv;

	if (!d->inode || d->name_len != c->len || memcmp(d->name, c->name, c->len))
		return 0;
	c->found = 1;
	c->lblk = d->lblk;
	c->offset = d->offset;
	return 1;
}

/* dirsearch <directory> <name>: where name's entry is. */
int do_dirsearch(int argc, char **argv)
{
	struct dirsearch_ctx c;
	e4_ino_t dir;
	errcode_t err;

	if (argc != 3)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]) || parse_inode(argv[0], argv[1], &dir))
		return 1;
	memset(&c, 0, sizeof(c));
	c.name = argv[2];
	c.len = strlen(argv[2]);
	err = e4_dir_iterate(current_fs, dir, 0, dirsearch_cb, &c);
	if (err == E4_ERR_NOT_DIR || err == E4_ERR_NO_MEMORY) {
		com_err(argv[0], err, "while searching %s", argv[1]);
		return 1;
	}
	/* a damaged block is skipped and the search goes on */
	if (err && err != 1)
		warn_err(argv[0], err, "while searching %s", argv[1]);
	if (!c.found)
		return 0;	/* not found: nothing printed, as the reference */
	if (c.lblk == UINT64_MAX) {
		printf("Entry found in inline data, offset %u\n", c.offset);
	} else {
		e4_blk_t pblk = 0;
		uint32_t len;
		unsigned flags;

		e4_bmap(current_fs, dir, NULL, c.lblk, &pblk, &len, &flags);
		/* the reference prints the offset a second time */
		printf("Entry found at logical block %llu, phys %llu, offset %u\n",
		       (unsigned long long)c.lblk, (unsigned long long)pblk, c.offset);
		printf("offset %u\n", c.offset);
	}
	return 0;
}

/* ---- ncheck ------------------------------------------------------------ */
struct ncheck_ctx {
	e4_ino_t *want;
	uint32_t *links;	/* names still expected per wanted inode */
	uint16_t *modes;
	unsigned n, left;
	int check_type;
	e4_ino_t dir;
	char *dirpath;		/* computed on the first match in dir */
	int path_failed;
	unsigned pos;		/* entries of dir seen so far */
};

static int ncheck_cb(const struct e4_dirent *d, void *priv)
{
	struct ncheck_ctx *c = priv;
	unsigned i;

	/* a directory's own "." and ".." (its first two entries) are not
	 * names; a later entry called "." or ".." (damage) is one */
	if (c->pos++ < 2 && d->name[0] == '.' &&
	    (d->name_len == 1 || (d->name_len == 2 && d->name[1] == '.')))
		return 0;
	for (i = 0; i < c->n; i++) {
		if (c->want[i] != d->inode)
			continue;
		if (!c->dirpath && !c->path_failed) {
			c->dirpath = malloc(4096);
			if (!c->dirpath || dir_pathname(c->dir, c->dirpath, 4096)) {
				if (c->dirpath)
					snprintf(c->dirpath, 4096, "<%u>", c->dir);
				else
					c->path_failed = 1;
			}
		}
		printf("%u\t%s/", d->inode, c->dirpath ? c->dirpath : "???");
		print_raw_name(stdout, d->name, d->name_len);
		/* type 0 (unknown, or no filetype feature) is not checked */
		if (c->check_type && c->modes[i] && d->file_type &&
		    d->file_type != e4_mode_file_type(c->modes[i]))
			printf("  <--- BAD FILETYPE");
		putchar('\n');
		if (c->links[i] && !--c->links[i])
			c->left--;
	}
	return 0;
}

/* ncheck [-c] <inode>...: the path names of inodes, found by walking
 * every directory in inode order (-c: flag entries whose file type is set
 * and does not match the inode).  Stops once every inode's links were all found. */
int do_ncheck(int argc, char **argv)
{
	const struct e4_geom *geo;
	struct ncheck_ctx c;
	e4_ino_t dir;
	int opt, ret = 0;

	memset(&c, 0, sizeof(c));
	reset_getopt();
	while ((opt = getopt(argc, argv, "c")) != -1) {
		if (opt != 'c')
			return usage(argv[0], NULL);
		c.check_type = 1;
	}
	if (optind >= argc)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]))
		return 1;
	geo = e4_geom(current_fs);
	c.want = calloc(argc, sizeof(*c.want));
	c.links = calloc(argc, sizeof(*c.links));
	c.modes = calloc(argc, sizeof(*c.modes));
	if (!c.want || !c.links || !c.modes) {
		com_err(argv[0], E4_ERR_NO_MEMORY, "while checking names");
		ret = 1;
		goto out;
	}
	for (; optind < argc; optind++) {
		const char *a = argv[optind];
		unsigned long long v;
		union e4_inode_buf ib;
		errcode_t err;

		if (a[0] == '<') {
			e4_ino_t ino;

			if (parse_inode(argv[0], a, &ino)) {
				ret = 1;
				continue;
			}
			v = ino;
		} else if (parse_number(argv[0], a, "inode number", UINT32_MAX, &v)) {
			ret = 1;
			continue;
		}
		if (!v || v > geo->inodes_count) {
			com_err(a, E4_ERR_BAD_INODE_NUM, "while reading inode %llu", v);
			ret = 1;
			continue;
		}
		c.want[c.n] = (e4_ino_t)v;
		err = e4_inode_read(current_fs, (e4_ino_t)v, &ib);
		if (!err || err == E4_ERR_INODE_CSUM) {
			c.modes[c.n] = e4_le16(ib.inode.i_mode);
			/* a directory has one name (its "." and children's ".."
			 * count in i_links_count) */
			c.links[c.n] = e4_is_dir(&ib.inode) ? 1 : e4_le16(ib.inode.i_links_count);
		}
		if (c.links[c.n])
			c.left++;
		c.n++;
	}
	printf("Inode\tPathname\n");
	if (!c.left)
		goto out;
	for (dir = 1; dir <= geo->inodes_count && c.left; dir++) {
		union e4_inode_buf ib;
		errcode_t err = e4_inode_read(current_fs, dir, &ib);

		if ((err && err != E4_ERR_INODE_CSUM) || !e4_is_dir(&ib.inode) ||
		    !ib.inode.i_links_count)
			continue;
		c.dir = dir;
		c.pos = 0;
		/* a damaged directory only loses its own names */
		(void)e4_dir_iterate(current_fs, dir, 0, ncheck_cb, &c);
		free(c.dirpath);
		c.dirpath = NULL;
		c.path_failed = 0;
	}
out:
	free(c.want);
	free(c.links);
	free(c.modes);
	return ret;
}
