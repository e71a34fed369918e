/*
 * cmd_misc.c: "block_dump"/"bd" (a block in hex, or as an xattr block),
 * "supported_features" and "lsdel" (deleted inodes whose blocks are still
 * free), "inode_dump".  Read-only.
 */
#include <ctype.h>
#include <getopt.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "debugfs.h"

/* ---- hex dump ---------------------------------------------------------- */
/* 16 bytes a line: octal offset, 8 groups of 2 bytes in hex, the bytes as
 * characters.  A line equal to the one before starts a run shown as one "*"; the run
 * goes on while lines equal its first.  A short last line of n bytes is
 * compared with the n bytes before it, as the reference compares. */
static void hexdump(const uint8_t *buf, size_t len)
{
	size_t off, i, run = 0;
	int suppressing = 0;

	for (off = 0; off < len; off += 16) {
		size_t n = len - off < 16 ? len - off : 16;

		if (!suppressing && off && !memcmp(buf + off, buf + off - n, n)) {
			printf("*\n");
			suppressing = 1;
			run = off;
			continue;
		}
		if (suppressing && !memcmp(buf + off, buf + run, n))
			continue;
		suppressing = 0;
		printf("%04o  ", (unsigned)off);
		for (i = 0; i < 16; i++) {
			if (i < n)
				printf("%02x", buf[off + i]);
			else
				printf("  ");
			if (i % 2)
				putchar(' ');
		}
		putchar(' ');
		for (i = 0; i < n; i++)
			putchar(isprint(buf[off + i]) ? buf[off + i] : '.');
		putchar('\n');
	}
	putchar('\n');
}

/* The entries of an xattr area b[0, len) from offset first to the
 * terminating zero word, every offset and length checked against it.
 * Value offsets count from vbase (the block: 0; the inode body: the first
 * entry); text: a printable value is shown as text (inode_dump -x). */
static unsigned xattr_entries_dump(const uint8_t *b, unsigned len, unsigned first,
				   unsigned vbase, int text)
{
	unsigned off = first, n;

	for (n = 0; n < len / 16 && off + 16 <= len && e4_get_le32(b + off); n++) {
		unsigned name_len = b[off], idx = b[off + 1];
		unsigned voff = e4_get_le16(b + off + 2), vsize = e4_get_le32(b + off + 8);
		uint32_t vinum = e4_get_le32(b + off + 4);
		unsigned vat = vbase + voff, i;

		printf("\noffset = %u (%04o), hash = %u, name_len = %u, name_index = %u\n", off,
		       off, e4_get_le32(b + off + 12), name_len, idx);
		printf("value_offset = %u (%04o), value_inum = %u, value_size = %u\n", voff, vat,
		       vinum, vsize);
		if (off + 16 + name_len > len) {
			printf("name = <out of the area>\n");
			break;
		}
		printf("name = ");
		print_raw_name(stdout, (const char *)b + off + 16, name_len);
		putchar('\n');
		if (!vinum && vat < len && vsize <= len - vat) {
			for (i = 0; text && i < vsize && isprint(b[vat + i]); i++)
				;
			if (text && i == vsize) {
				printf("value = %.*s\n", (int)vsize, (const char *)b + vat);
			} else {
				printf("value = <hexdump>\n");
				hexdump(b + vat, vsize);
			}
		} else if (!vinum) {
			printf("value = <out of the area>\n");
		}
		putchar('\n');
		off += (16 + name_len + 3) & ~3U;
	}
	return off;
}

/* The header and entries of an xattr block (section 9.2). */
static void xattr_block_dump(const uint8_t *b, unsigned bs)
{
	unsigned off;

	printf("magic = %08x, length = %u\n", e4_get_le32(b), bs);
	if (e4_get_le32(b) != EXT4_XATTR_MAGIC)
		return;
	printf("refcount = %u, blocks = %u\n", e4_get_le32(b + 4), e4_get_le32(b + 8));
	printf("hash = %08x, checksum = %08x\n", e4_get_le32(b + 12), e4_get_le32(b + 16));
	printf("reserved: %08x %08x %08x\n", e4_get_le32(b + 20), e4_get_le32(b + 24), e4_get_le32(b + 28));
	off = xattr_entries_dump(b, bs, 32, 0, 0);
	printf("\nlast entry found at offset %u (%04o)\n", off, off);
}

/* block_dump [-x] [-f inode] <block>: a block in hex (-f: a logical block
 * of the inode; -x: decoded as an xattr block). */
int do_block_dump(int argc, char **argv)
{
	const struct e4_geom *geo;
	unsigned long long blk;
	e4_ino_t ino = 0;
	int opt, xattr = 0;
	uint8_t *buf;
	errcode_t err;

	reset_getopt();
	while ((opt = getopt(argc, argv, "xf:")) != -1) {
		if (opt == 'x') {
			xattr = 1;
		} else if (opt == 'f') {
			if (check_fs_open(argv[0]) || parse_inode(argv[0], optarg, &ino))
				return 1;
		} else {
			return usage(argv[0], NULL);
		}
	}
	if (optind != argc - 1)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]) ||
	    parse_number(argv[0], argv[optind], "block number", UINT64_MAX, &blk))
		return 1;
	geo = e4_geom(current_fs);
	if (ino) {
		e4_blk_t pblk;
		uint32_t len;
		unsigned flags;

		err = e4_bmap(current_fs, ino, NULL, blk, &pblk, &len, &flags);
		if (err) {
			com_err(argv[0], err, "while mapping logical block %llu", blk);
			return 1;
		}
		blk = pblk;
	}
	if (blk >= geo->blocks_count) {
		com_err(argv[0], E4_ERR_BAD_BLOCK_NUM, "- %llu", blk);
		return 1;
	}
	buf = malloc(geo->block_size);
	if (!buf) {
		com_err(argv[0], E4_ERR_NO_MEMORY, "while reading block %llu", blk);
		return 1;
	}
	err = e4_io_read_blk(e4_fs_io(current_fs), blk, 1, buf);
	if (err) {
		com_err(argv[0], err, "while reading block %llu", blk);
		free(buf);
		return 1;
	}
	if (xattr)
		xattr_block_dump(buf, geo->block_size);
	else
		hexdump(buf, geo->block_size);
	free(buf);
	return 0;
}

/* ---- inode_dump ---------------------------------------------------------- */
/* inode_dump [-b|-e|-x] <inode>: the on-disk inode in hex (all of it, -b
 * i_block only, -e the space after i_extra_isize, -x that space decoded
 * as in-inode extended attributes). */
int do_inode_dump(int argc, char **argv)
{
	union e4_inode_buf ib;
	unsigned isize, extra, start;
	int opt, mode = 0;
	e4_ino_t ino;

	reset_getopt();
	while ((opt = getopt(argc, argv, "bex")) != -1) {
		if ((opt != 'b' && opt != 'e' && opt != 'x') || mode)
			return usage(argv[0], NULL);
		mode = opt;
	}
	if (optind != argc - 1)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]) || parse_inode(argv[0], argv[optind], &ino) ||
	    read_inode(argv[0], ino, &ib, READ_INODE_WARN_CSUM))
		return 1;
	isize = e4_geom(current_fs)->inode_size;
	if (mode == 'b') {
		hexdump(ib.raw + offsetof(struct ext4_inode, i_block), sizeof(ib.inode.i_block));
		return 0;
	}
	if (!mode) {
		hexdump(ib.raw, isize);
		return 0;
	}
	extra = isize > EXT4_GOOD_OLD_INODE_SIZE ? e4_le16(ib.inode.i_extra_isize) : 0;
	start = EXT4_GOOD_OLD_INODE_SIZE + extra;
	if (isize <= EXT4_GOOD_OLD_INODE_SIZE || start >= isize) {
		com_err(argv[0], 0, "inode %u has no space after i_extra_isize (inode size %u, "
			"extra %u)", ino, isize, extra);
		return 1;
	}
	if (mode == 'e') {
		hexdump(ib.raw + start, isize - start);
		return 0;
	}
	{
		const uint8_t *b = ib.raw + start;
		unsigned len = isize - start, off;

		printf("magic = %08x, length = %u, value_start =4 \n", e4_get_le32(b), len);
		if (e4_get_le32(b) != EXT4_XATTR_MAGIC)
			return 0;
		off = xattr_entries_dump(b, len, 4, 4, 1);
		printf("last entry found at offset %u (%04o)\n", off, off);
	}
	return 0;
}

/* ---- supported_features ------------------------------------------------ */
/* Journal features this tool knows (the incompat bits it can read). */
#define JFEATURE_INCOMPAT_KNOWN	6

/* supported_features [feature]: the features e4debugfs can read, or
 * whether one of them is. */
int do_supported_features(int argc, char **argv)
{
	const struct e4_feature *f;
	char buf[32];
	unsigned bit;
	int kind;

	if (argc > 2)
		return usage(argv[0], NULL);
	if (argc == 2) {
		enum e4_feature_kind kind;
		uint32_t mask;

		if (!e4_feature_lookup(argv[1], &kind, &mask)) {
			printf("Supported feature: %s\n", argv[1]);
			return 0;
		}
		for (bit = 0; bit < JFEATURE_INCOMPAT_KNOWN; bit++)
			if (!strcmp(argv[1], e4_jfeature_name(E4_FEAT_INCOMPAT, 1U << bit, buf))) {
				printf("Supported feature: %s\n", argv[1]);
				return 0;
			}
		com_err(argv[0], 0, "Unknown feature: %s", argv[1]);
		return 1;
	}
	/* compat, incompat, ro_compat; one name per bit (no aliases), and
	 * only features some Linux release understands */
	printf("Supported features:");
	for (kind = 0; kind < 3; kind++) {
		uint32_t seen = 0;

		for (f = e4_feature_table(); f->name; f++) {
			if ((int)f->kind != kind || !f->read_support || (seen & f->mask) ||
			    !f->linux_version || !strcmp(f->linux_version, "-"))
				continue;
			seen |= f->mask;
			printf(" %s", f->name);
		}
	}
	printf("\n");
	for (bit = 0; bit < JFEATURE_INCOMPAT_KNOWN; bit++)
		printf(" %s", e4_jfeature_name(E4_FEAT_INCOMPAT, 1U << bit, buf));
	printf("\n");
	return 0;
}

/* ---- lsdel ------------------------------------------------------------- */
struct deleted {
	e4_ino_t ino;
	uint32_t uid;
	uint16_t mode;
	uint64_t size;
	uint64_t free_blocks, blocks;
	int64_t dtime;
};

struct lsdel_blocks {
	uint64_t free_blocks, blocks;
	int bad;
};

static int lsdel_cb(e4_fs *fs, const struct e4_map_extent *m, void *priv)
{
	struct lsdel_blocks *b = priv;
	uint32_t i, n = (m->flags & E4_MAP_META) ? 1 : m->len;

	for (i = 0; i < n; i++) {
		int in_use = 0;

		if (m->pblk + i < e4_geom(fs)->first_data_block ||
		    m->pblk + i >= e4_geom(fs)->blocks_count) {
			b->bad = 1;
			return 1;
		}
		/* with -c the bitmaps are not consulted: every block is free,
		 * as in the reference */
		if (!current_catastrophic && e4_test_block(fs, m->pblk + i, &in_use)) {
			b->bad = 1;
			return 1;
		}
		b->blocks++;
		if (!in_use)
			b->free_blocks++;
		if (b->blocks > (1U << 24))
			return 1;	/* enough to decide */
	}
	return 0;
}

static int cmp_dtime(const void *a, const void *b)
{
	const struct deleted *x = a, *y = b;

	return x->dtime < y->dtime ? -1 : x->dtime > y->dtime;
}

/* lsdel [seconds]: inodes deleted (i_dtime set; in the last seconds) with
 * blocks still marked free, oldest first; an inode with a block outside
 * the filesystem is left out. */
int do_lsdel(int argc, char **argv)
{
	const struct e4_geom *geo;
	unsigned long long secs = 0;
	struct deleted *list = NULL;
	size_t n = 0, cap = 0, i;
	int64_t now = (int64_t)time(NULL);
	e4_ino_t ino;

	if (argc > 2)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]) ||
	    (argc == 2 && parse_number(argv[0], argv[1], "seconds", UINT32_MAX, &secs)))
		return 1;
	geo = e4_geom(current_fs);
	for (ino = 1; ino <= geo->inodes_count; ino++) {
		union e4_inode_buf ib;
		struct lsdel_blocks b = { 0, 0, 0 };
		struct { int64_t sec; } dt;
		errcode_t err = e4_inode_read(current_fs, ino, &ib);

		if ((err && err != E4_ERR_INODE_CSUM) || !ib.inode.i_dtime)
			continue;
		/* i_dtime as a signed 32-bit time, as the reference reads it */
		dt.sec = (int32_t)e4_le32(ib.inode.i_dtime);
		if (secs && dt.sec < now - (int64_t)secs)
			continue;
		/* inline data (no blocks) counts as an inode without blocks;
		 * a damaged map (a block outside the filesystem, a bad node)
		 * leaves the inode out, as in the reference */
		if (!(e4_le32(ib.inode.i_flags) & EXT4_INLINE_DATA_FL) &&
		    e4_map_iterate(current_fs, ino, &ib.inode, E4_ITER_META, lsdel_cb, &b))
			continue;
		/* listed: some blocks still free (an inline-data inode, which
		 * has none, is listed too, as the reference does) */
		if (b.bad || (!b.free_blocks &&
			      !(e4_le32(ib.inode.i_flags) & EXT4_INLINE_DATA_FL)))
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			struct deleted *nl = realloc(list, nc * sizeof(*nl));

			if (!nl) {
				com_err(argv[0], E4_ERR_NO_MEMORY, "while listing deleted inodes");
				free(list);
				return 1;
			}
			list = nl;
			cap = nc;
		}
		list[n].ino = ino;
		list[n].uid = e4_inode_uid(&ib.inode);
		list[n].mode = e4_le16(ib.inode.i_mode);
		list[n].size = e4_inode_size(&ib.inode);
		list[n].free_blocks = b.free_blocks;
		list[n].blocks = b.blocks;
		list[n].dtime = dt.sec;
		n++;
	}
	if (n)
		qsort(list, n, sizeof(*list), cmp_dtime);
	printf(" Inode  Owner  Mode    Size      Blocks   Time deleted\n");
	for (i = 0; i < n; i++)
		printf("%6u %6d %6o %6llu %6llu/%6llu %s\n", list[i].ino, (int)list[i].uid, list[i].mode,
		       (unsigned long long)list[i].size, (unsigned long long)list[i].free_blocks,
		       (unsigned long long)list[i].blocks, time_ctime(list[i].dtime));
	printf("%zu deleted inodes found.\n", n);
	free(list);
	return 0;
}
