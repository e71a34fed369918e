/*
 * cmd_block.c: block and inode allocation queries: "testb", "testi",
 * "imap" and "bmap" (read-only; format doc sections 4, 5, 6 and 7).
 */
#include <stdlib.h>
#include <string.h>

#include "debugfs.h"

/*
 * Bitmap tests as the reference answers them: a group whose bitmap
 * location is unusable reads as an all-zero bitmap (nothing in use).
 */
static errcode_t test_block(e4_blk_t blk, int *in_use)
{
	errcode_t err = e4_test_block(current_fs, blk, in_use);

	if (err == E4_ERR_GD_BAD_LOCATION) {
		*in_use = 0;
		return 0;
	}
	return err;
}

static errcode_t test_inode(e4_ino_t ino, int *in_use)
{
	errcode_t err = e4_test_inode(current_fs, ino, in_use);

	if (err == E4_ERR_GD_BAD_LOCATION) {
		*in_use = 0;
		return 0;
	}
	return err;
}

/* testb <block> [count]: whether each block is marked in use. */
int do_testb(int argc, char **argv)
{
	const struct e4_geom *geo;
	unsigned long long blk, count = 1, i;
	int ret = 0;

	if (argc < 2 || argc > 3)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]))
		return 1;
	geo = e4_geom(current_fs);
	if (parse_number(argv[0], argv[1], "block number", UINT64_MAX, &blk) ||
	    (argc == 3 && parse_number(argv[0], argv[2], "count", UINT64_MAX, &count)))
		return 1;
	/* block 0 is never a valid argument, as in the reference */
	if (!blk || blk < geo->first_data_block || blk >= geo->blocks_count) {
		com_err(argv[0], E4_ERR_BAD_BLOCK_NUM, "- %llu", blk);
		return 1;
	}
	for (i = 0; i < count; i++) {
		int in_use;
		errcode_t err;

		if (blk + i >= geo->blocks_count) {
			com_err(argv[0], E4_ERR_BAD_BLOCK_NUM, "- %llu", blk + i);
			return 1;
		}
		err = test_block(blk + i, &in_use);
		if (err) {
			com_err(argv[0], err, "while testing block %llu", blk + i);
			ret = 1;
			continue;
		}
		printf("Block %llu %s\n", blk + i, in_use ? "marked in use" : "not in use");
	}
	return ret;
}

/* testi <inode>: whether the inode is marked in use. */
int do_testi(int argc, char **argv)
{
	e4_ino_t ino;
	int in_use;
	errcode_t err;

	if (argc != 2)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]) || parse_inode(argv[0], argv[1], &ino))
		return 1;
	err = test_inode(ino, &in_use);
	if (err) {
		com_err(argv[0], err, "while testing inode %u", ino);
		return 1;
	}
	printf("Inode %u is %s\n", ino, in_use ? "marked in use" : "not in use");
	return 0;
}

/* imap <inode>: the group, block and byte offset holding the inode. */
int do_imap(int argc, char **argv)
{
	unsigned bs;
	uint64_t off;
	e4_ino_t ino;
	errcode_t err;

	if (argc != 2)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]) || parse_inode(argv[0], argv[1], &ino))
		return 1;
	bs = e4_geom(current_fs)->block_size;
	err = e4_inode_location(current_fs, ino, &off);
	if (err) {
		com_err(argv[0], err, "while locating inode %u", ino);
		return 1;
	}
	printf("Inode %u is part of block group %u\n\tlocated at block %llu, offset 0x%04llx\n",
	       ino, e4_group_of_ino(current_fs, ino), (unsigned long long)(off / bs),
	       (unsigned long long)(off % bs));
	return 0;
}

/* bmap <inode> <logical block>: the physical block (0 for a hole). */
int do_bmap(int argc, char **argv)
{
	union e4_inode_buf ib;
	unsigned long long lblk;
	e4_ino_t ino;
	e4_blk_t pblk;
	uint32_t len;
	unsigned flags;
	errcode_t err;

	if (argc != 3)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]) || parse_inode(argv[0], argv[1], &ino) ||
	    parse_number(argv[0], argv[2], "logical block", UINT32_MAX, &lblk))
		return 1;
	if (read_inode(argv[0], ino, &ib, READ_INODE_WARN_CSUM))
		return 1;
	/* inline data has no blocks to map: an error, as in the reference */
	if (e4_le32(ib.inode.i_flags) & EXT4_INLINE_DATA_FL) {
		com_err(argv[0], E4_ERR_INLINE_DATA, "(inode %u) while mapping logical block %llu",
			ino, lblk);
		return 1;
	}
	err = e4_bmap(current_fs, ino, &ib.inode, lblk, &pblk, &len, &flags);
	if (err) {
		com_err(argv[0], err, "while mapping logical block %llu of inode %u", lblk, ino);
		return 1;
	}
	printf("%llu\n", (unsigned long long)pblk);
	return 0;
}

struct blocks_ctx {
	uint64_t printed;
};

static int blocks_cb(e4_fs *fs, const struct e4_map_extent *ext, void *priv)
{
	struct blocks_ctx *c = priv;
	uint32_t i, n = (ext->flags & E4_MAP_META) ? 1 : ext->len;

	(void)fs;
	for (i = 0; i < n; i++) {
		printf("%llu ", (unsigned long long)(ext->pblk + i));
		c->printed++;
	}
	return 0;
}

/* blocks <inode>: every block the inode uses (mapping blocks before the
 * blocks they map), on one line. */
int do_blocks(int argc, char **argv)
{
	struct blocks_ctx c = { 0 };
	union e4_inode_buf ib;
	e4_ino_t ino;
	errcode_t err;

	if (argc != 2)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]) || parse_inode(argv[0], argv[1], &ino) ||
	    read_inode(argv[0], ino, &ib, READ_INODE_WARN_CSUM))
		return 1;
	err = e4_map_iterate(current_fs, ino, &ib.inode, E4_ITER_META, blocks_cb, &c);
	putchar('\n');
	if (err) {
		/* the blocks before the damage were listed */
		warn_err(argv[0], err, "while listing the blocks of inode %u", ino);
		return 0;
	}
	return 0;
}

/* First free block from goal on (wrapping to the first data block); with
 * bigalloc the first block of the free cluster (goal rounded down to its
 * cluster).  1 if none. */
static int find_free_block(const char *cmd, uint64_t goal, uint64_t *found)
{
	const struct e4_geom *geo = e4_geom(current_fs);
	uint64_t span = geo->blocks_count - geo->first_data_block, b, scanned;
	int in_use;
	errcode_t err;

	if (goal < geo->first_data_block || goal >= geo->blocks_count)
		goal = geo->first_data_block;
	goal &= ~(((uint64_t)1 << geo->cluster_bits) - 1);
	if (goal < geo->first_data_block)
		goal = geo->first_data_block;
	for (b = goal, scanned = 0; scanned < span; scanned++) {
		err = test_block(b, &in_use);
		if (err) {
			com_err(cmd, err, "while testing block %llu", (unsigned long long)b);
			return 1;
		}
		if (!in_use) {
			*found = b;
			return 0;
		}
		if (++b >= geo->blocks_count)
			b = geo->first_data_block;
	}
	com_err(cmd, E4_ERR_NOT_FOUND, "- no free block");
	return 1;
}

/* ffb [count [goal]]: up to count free blocks from goal on; stops early
 * when the search comes back to the first one found (bigalloc: each
 * search from inside a free cluster returns that cluster again). */
int do_ffb(int argc, char **argv)
{
	const struct e4_geom *geo;
	unsigned long long count = 1, goal;
	uint64_t found, first = 0, next;

	if (argc > 3)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]))
		return 1;
	geo = e4_geom(current_fs);
	goal = geo->first_data_block;
	if ((argc > 1 && parse_number(argv[0], argv[1], "count", UINT32_MAX, &count)) ||
	    (argc > 2 && parse_number(argv[0], argv[2], "goal", UINT64_MAX, &goal)))
		return 1;
	printf("Free blocks found: ");
	for (next = goal; count; count--) {
		if (find_free_block(argv[0], next, &found)) {
			putchar('\n');
			return 1;
		}
		if (first && found == first)
			break;
		if (!first)
			first = found;
		printf("%llu ", (unsigned long long)found);
		next = found + 1;
	}
	putchar('\n');
	return 0;
}

/* ffi [dir]: the first free inode from dir's group on (wrapping), at or
 * after the first non-reserved inode. */
int do_ffi(int argc, char **argv)
{
	const struct e4_geom *geo;
	unsigned long long dir = root_ino;
	e4_ino_t ino;
	uint32_t scanned;
	int in_use;
	errcode_t err;

	if (argc > 3)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]))
		return 1;
	geo = e4_geom(current_fs);
	/* the directory is a plain inode number, as in the reference */
	if (argc > 1 && (parse_number(argv[0], argv[1], "dir", geo->inodes_count, &dir) ||
			 !dir))
		return 1;
	ino = e4_group_of_ino(current_fs, (e4_ino_t)dir) * geo->inodes_per_group + 1;
	for (scanned = 0; scanned < geo->inodes_count; scanned++, ino++) {
		if (ino > geo->inodes_count)
			ino = 1;
		if (ino < geo->first_ino)
			continue;
		err = test_inode(ino, &in_use);
		if (err) {
			com_err(argv[0], err, "while testing inode %u", ino);
			return 1;
		}
		if (!in_use) {
			printf("Free inode found: %u\n", ino);
			return 0;
		}
	}
	com_err(argv[0], E4_ERR_NOT_FOUND, "- no free inode");
	return 1;
}

struct icheck_ctx {
	uint64_t *blocks;
	e4_ino_t *owner;
	unsigned n, left;
	e4_ino_t ino;
};

static void icheck_mark(struct icheck_ctx *c, uint64_t blk, uint32_t len)
{
	unsigned i;

	for (i = 0; i < c->n; i++)
		if (!c->owner[i] && c->blocks[i] >= blk && c->blocks[i] - blk < len) {
			c->owner[i] = c->ino;
			c->left--;
		}
}

static int icheck_cb(e4_fs *fs, const struct e4_map_extent *ext, void *priv)
{
	(void)fs;
	icheck_mark(priv, ext->pblk, (ext->flags & E4_MAP_META) ? 1 : ext->len);
	return ((struct icheck_ctx *)priv)->left ? 0 : 1;
}

/* icheck <block>...: the inode owning each block (data, mapping or xattr
 * block), scanning every inode with links in inode order. */
int do_icheck(int argc, char **argv)
{
	const struct e4_geom *geo;
	struct icheck_ctx c;
	union e4_inode_buf ib;
	unsigned i;
	int ret = 0;

	if (argc < 2)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]))
		return 1;
	geo = e4_geom(current_fs);
	memset(&c, 0, sizeof(c));
	c.n = argc - 1;
	c.blocks = calloc(c.n, sizeof(*c.blocks));
	c.owner = calloc(c.n, sizeof(*c.owner));
	if (!c.blocks || !c.owner) {
		com_err(argv[0], E4_ERR_NO_MEMORY, "while checking blocks");
		ret = 1;
		goto out;
	}
	for (i = 0; i < c.n; i++) {
		unsigned long long v;

		if (parse_number(argv[0], argv[i + 1], "block number", UINT64_MAX, &v)) {
			ret = 1;
			goto out;
		}
		c.blocks[i] = v;
	}
	c.left = c.n;
	for (c.ino = 1; c.ino <= geo->inodes_count && c.left; c.ino++) {
		e4_blk_t acl;
		errcode_t err;

		err = e4_inode_read(current_fs, c.ino, &ib);
		if (err && err != E4_ERR_INODE_CSUM)
			continue;
		if (!ib.inode.i_links_count)
			continue;
		acl = e4_inode_file_acl(current_fs, &ib.inode);
		if (acl)
			icheck_mark(&c, acl, 1);
		if (!c.left)
			break;
		if (e4_le32(ib.inode.i_flags) & EXT4_INLINE_DATA_FL)
			continue;
		/* every block number the map holds, past any damage */
		(void)e4_map_iterate(current_fs, c.ino, &ib.inode, E4_ITER_META | E4_ITER_AS_STORED,
				     icheck_cb, &c);
	}
	printf("Block\tInode number\n");
	for (i = 0; i < c.n; i++) {
		if (c.owner[i])
			printf("%llu\t%u\n", (unsigned long long)c.blocks[i], c.owner[i]);
		else
			printf("%llu\t<block not found>\n", (unsigned long long)c.blocks[i]);
	}
out:
	free(c.blocks);
	free(c.owner);
	return ret;
}
