/*
 * cmd_super.c: "stats": the superblock, the journal superblock and the
 * group descriptors.  The superblock and journal fields come from the
 * shared layer common/superlist.c (the labels dumpe2fs -h uses, one
 * "Label:  value" per line, or JSON), which e4tune -l prints too.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <stdarg.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "debugfs.h"
#include "../common/listing.h"
#include "../common/superlist.h"

#define LABEL_WIDTH	26

/* The listing "stats" prints through (text or JSON). */
static listing *L;

/* The fields "stats" adds to common/superlist.c's: text label and JSON key
 * side by side.  The group fields are JSON only (the text lines have the
 * reference's own layout).  ROW(id, label, key) */
#define STATS_ROWS(ROW) \
	ROW(SUPERBLOCK,		NULL, "superblock") \
	ROW(BAD_BLOCKS,		NULL, "bad_blocks") \
	ROW(DIRECTORIES,	"Directories", "directories") \
	ROW(GROUPS,		NULL, "groups") \
	ROW(G_GROUP,		NULL, "group") \
	ROW(G_BLOCK_BITMAP,	NULL, "block_bitmap") \
	ROW(G_INODE_BITMAP,	NULL, "inode_bitmap") \
	ROW(G_INODE_TABLE,	NULL, "inode_table") \
	ROW(G_FREE_BLOCKS,	NULL, "free_blocks") \
	ROW(G_FREE_CLUSTERS,	NULL, "free_clusters") \
	ROW(G_FREE_INODES,	NULL, "free_inodes") \
	ROW(G_USED_DIRS,	NULL, "used_directories") \
	ROW(G_UNUSED_INODES,	NULL, "unused_inodes") \
	ROW(G_CSUM,		NULL, "checksum") \
	ROW(G_CSUM_OK,		NULL, "checksum_ok") \
	ROW(G_FLAGS,		NULL, "flags")

enum stats_row {
#define ROW_ENUM(id, label, key)	S_##id,
	STATS_ROWS(ROW_ENUM)
	S_COUNT
};

static const struct listing_field stats_rows[S_COUNT] = {
#define ROW_TABLE(id, label, key)	[S_##id] = { label, key },
	STATS_ROWS(ROW_TABLE)
};

#define S(id)	(&stats_rows[S_##id])

/* Journal part: the shared superlist layer prints it; a journal superblock
 * that cannot be read only gives a warning (the superblock listing stands,
 * and the reference's stats does not read the journal at all). */
static void print_journal(const char *cmd, e4_fs *fs)
{
	e4_journal *j;
	errcode_t err;

	if (e4_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL) && e4_super(fs)->s_journal_inum) {
		err = e4_journal_open(fs, NULL, &j);
		if (!err) {
			e4_journal_close(j);
		} else if (err != E4_ERR_EXTERNAL_JOURNAL && err != E4_ERR_NO_JOURNAL) {
			warn_err(cmd, err, "while reading the journal superblock");
			return;
		}
	}
	superlist_journal(L, cmd, fs);
}

/* ---- bad blocks ------------------------------------------------------- */
struct bb_list {
	e4_blk_t *blk;
	size_t n, cap;
};

static int bb_cb(e4_fs *fs, const struct e4_map_extent *ext, void *priv)
{
	struct bb_list *l = priv;
	uint32_t i;

	(void)fs;
	if (ext->flags & E4_MAP_META)
		return 0;
	for (i = 0; i < ext->len; i++) {
		if (l->n == l->cap) {
			size_t cap = l->cap ? l->cap * 2 : 64;
			e4_blk_t *nb;

			if (cap > (1U << 24))
				return 0;	/* absurd list: stop collecting */
			nb = realloc(l->blk, cap * sizeof(*nb));
			if (!nb)
				return 0;
			l->blk = nb;
			l->cap = cap;
		}
		l->blk[l->n++] = ext->pblk + i;
	}
	return 0;
}

static int cmp_blk(const void *a, const void *b)
{
	e4_blk_t x = *(const e4_blk_t *)a, y = *(const e4_blk_t *)b;

	return x < y ? -1 : x > y;
}

/* "Bad blocks: 4, 9, 10": the blocks listed by the bad-block inode. */
static void print_bad_blocks(e4_fs *fs)
{
	struct bb_list l = { NULL, 0, 0 };
	union e4_inode_buf ib;
	size_t i;

	if (e4_inode_read(fs, EXT4_BAD_INO, &ib) || !e4_inode_blocks(fs, &ib.inode))
		return;
	if (e4_map_iterate(fs, EXT4_BAD_INO, &ib.inode, 0, bb_cb, &l) && !l.n) {
		free(l.blk);
		return;
	}
	if (l.n) {
		qsort(l.blk, l.n, sizeof(*l.blk), cmp_blk);
		if (listing_get_format(L) == LISTING_JSON) {
			listing_array(L, S(BAD_BLOCKS));
			for (i = 0; i < l.n; i++)
				if (!i || l.blk[i] != l.blk[i - 1])
					listing_u64(L, NULL, l.blk[i]);
			listing_close(L);
		} else {
			listing_text(L, "Bad blocks: %llu", (unsigned long long)l.blk[0]);
			for (i = 1; i < l.n; i++)
				if (l.blk[i] != l.blk[i - 1])
					listing_text(L, ", %llu", (unsigned long long)l.blk[i]);
			listing_text(L, "\n");
		}
	}
	free(l.blk);
}

/* ---- groups ----------------------------------------------------------- */
static const char *plural(uint32_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* One group as the reference debugfs lists it:
 *  " Group  0: block bitmap at B, inode bitmap at I, inode table at T"
 *  "           F free blocks, F free inodes, D used directories[, U unused inodes]"
 *  "           [Inode not init, Block not init, Checksum 0xCCCC]"
 * JSON: an object with the same numbers. */
static int print_group(const char *cmd, e4_fs *fs, e4_group_t g)
{
	const struct e4_geom *geo = e4_geom(fs);
	int csum = geo->metadata_csum || geo->gdt_csum;
	const char *unit = geo->cluster_bits ? "cluster" : "block";
	char many[16];
	struct e4_group gd;
	errcode_t err;

	err = e4_group_get(fs, g, &gd);
	if (err) {
		fflush(stdout);
		com_err(cmd, err, "while reading group descriptor %u", g);
		return 1;
	}
	snprintf(many, sizeof(many), "%ss", unit);
	if (listing_get_format(L) == LISTING_JSON) {
		listing_object(L, NULL);
		listing_u64(L, S(G_GROUP), g);
		listing_u64(L, S(G_BLOCK_BITMAP), gd.block_bitmap);
		listing_u64(L, S(G_INODE_BITMAP), gd.inode_bitmap);
		listing_u64(L, S(G_INODE_TABLE), gd.inode_table);
		listing_u64(L, geo->cluster_bits ? S(G_FREE_CLUSTERS) : S(G_FREE_BLOCKS),
			    gd.free_blocks);
		listing_u64(L, S(G_FREE_INODES), gd.free_inodes);
		listing_u64(L, S(G_USED_DIRS), gd.used_dirs);
		if (csum) {
			listing_u64(L, S(G_UNUSED_INODES), gd.itable_unused);
			listing_hex(L, S(G_CSUM), gd.checksum, 4, 0);
			listing_bool(L, S(G_CSUM_OK), e4_group_csum_ok(fs, g));
		}
		listing_list_begin(L, S(G_FLAGS));
		if (gd.flags & EXT4_BG_INODE_UNINIT)
			listing_list_add(L, "INODE_UNINIT");
		if (gd.flags & EXT4_BG_BLOCK_UNINIT)
			listing_list_add(L, "BLOCK_UNINIT");
		if (gd.flags & EXT4_BG_INODE_ZEROED)
			listing_list_add(L, "ITABLE_ZEROED");
		listing_list_end(L, "");
		listing_close(L);
		return 0;
	}
	printf(" Group %2u: block bitmap at %llu, inode bitmap at %llu, inode table at %llu\n",
	       g, (unsigned long long)gd.block_bitmap, (unsigned long long)gd.inode_bitmap,
	       (unsigned long long)gd.inode_table);
	printf("           %u free %s, %u free %s, %u used %s", gd.free_blocks,
	       plural(gd.free_blocks, unit, many), gd.free_inodes,
	       plural(gd.free_inodes, "inode", "inodes"), gd.used_dirs,
	       plural(gd.used_dirs, "directory", "directories"));
	if (csum)
		printf(", %u unused %s", gd.itable_unused,
		       plural(gd.itable_unused, "inode", "inodes"));
	putchar('\n');
	if (csum || (gd.flags & (EXT4_BG_INODE_UNINIT | EXT4_BG_BLOCK_UNINIT))) {
		const char *sep = "";

		printf("           [");
		if (gd.flags & EXT4_BG_INODE_UNINIT) {
			printf("Inode not init");
			sep = ", ";
		}
		if (gd.flags & EXT4_BG_BLOCK_UNINIT) {
			printf("%sBlock not init", sep);
			sep = ", ";
		}
		if (csum)
			printf("%sChecksum 0x%04x", sep, gd.checksum);
		printf("]\n");
	}
	return 0;
}

int do_stats(int argc, char **argv)
{
	int c, header_only = 0, json = 0, ret;
	unsigned long long dirs = 0;
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};
	e4_group_t g;

	reset_getopt();
	while ((c = getopt_long(argc, argv, "hj", longopts, NULL)) != -1) {
		if (c == 'h')
			header_only = 1;
		else if (c == 'j')
			json = 1;
		else
			return usage(argv[0], NULL);
	}
	if (optind != argc)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]))
		return 1;

	L = listing_new(stdout, json ? LISTING_JSON : LISTING_TEXT, LABEL_WIDTH);
	if (!L) {
		com_err(argv[0], E4_ERR_NO_MEMORY, "while listing the superblock");
		return 1;
	}
	listing_object(L, S(SUPERBLOCK));
	superlist_super(L, current_fs);
	listing_close(L);
	ret = 0;
	print_journal(argv[0], current_fs);
	print_bad_blocks(current_fs);
	for (g = 0; g < e4_geom(current_fs)->group_count; g++) {
		struct e4_group gd;

		if (!e4_group_get(current_fs, g, &gd))
			dirs += gd.used_dirs;
	}
	listing_u64(L, S(DIRECTORIES), dirs);
	if (!header_only) {
		listing_array(L, S(GROUPS));
		for (g = 0; g < e4_geom(current_fs)->group_count; g++)
			ret |= print_group(argv[0], current_fs, g);
		listing_close(L);
	}
	if (listing_end(L)) {
		com_err(argv[0], errno, "while writing the listing to standard output");
		clearerr(stdout);	/* reported once, here */
		ret = 1;
	}
	L = NULL;
	return ret;
}
