/*
 * cmd_inode.c: "stat": every field of an inode, its extended attributes
 * and its block map.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "debugfs.h"
#include "../common/listing.h"

static const struct {
	uint32_t mask;
	const char *name;
} inode_flag_names[] = {
	{ EXT4_SECRM_FL, "secrm" },
	{ EXT4_UNRM_FL, "unrm" },
	{ EXT4_COMPR_FL, "compr" },
	{ EXT4_SYNC_FL, "sync" },
	{ EXT4_IMMUTABLE_FL, "immutable" },
	{ EXT4_APPEND_FL, "append" },
	{ EXT4_NODUMP_FL, "nodump" },
	{ EXT4_NOATIME_FL, "noatime" },
	{ EXT4_ENCRYPT_FL, "encrypt" },
	{ EXT4_INDEX_FL, "index" },
	{ EXT4_IMAGIC_FL, "imagic" },
	{ EXT4_JOURNAL_DATA_FL, "journal_data" },
	{ EXT4_NOTAIL_FL, "notail" },
	{ EXT4_DIRSYNC_FL, "dirsync" },
	{ EXT4_TOPDIR_FL, "topdir" },
	{ EXT4_HUGE_FILE_FL, "huge_file" },
	{ EXT4_EXTENTS_FL, "extents" },
	{ EXT4_VERITY_FL, "verity" },
	{ EXT4_EA_INODE_FL, "ea_inode" },
	{ EXT4_DAX_FL, "dax" },
	{ EXT4_INLINE_DATA_FL, "inline_data" },
	{ EXT4_PROJINHERIT_FL, "projinherit" },
	{ EXT4_CASEFOLD_FL, "casefold" },
};

#define HAS_FIELD(fs, inode, f) \
	e4_inode_has_field((fs), (inode), offsetof(struct ext4_inode, f), \
			   sizeof(((struct ext4_inode *)0)->f))

#define EXT4_S_ISDEVLIKE(m) \
	(((m) & EXT4_S_IFMT) == EXT4_S_IFCHR || ((m) & EXT4_S_IFMT) == EXT4_S_IFBLK || \
	 ((m) & EXT4_S_IFMT) == EXT4_S_IFIFO || ((m) & EXT4_S_IFMT) == EXT4_S_IFSOCK)

static void print_device(const struct ext4_inode *inode)
{
	uint32_t b0 = e4_le32(inode->i_block[0]), b1 = e4_le32(inode->i_block[1]);
	uint32_t major, minor;

	/* old-style numbers in i_block[0], new-style (32 bits) in i_block[1] */
	if (b0) {
		major = (b0 >> 8) & 0xFF;
		minor = b0 & 0xFF;
		printf("Device major/minor number: %02u:%02u (hex %02x:%02x)\n", major, minor,
		       major, minor);
	} else {
		major = (b1 >> 8) & 0xFFF;
		minor = (b1 & 0xFF) | ((b1 >> 12) & 0xFFF00);
		printf("(New-style) Device major/minor number: %02u:%02u (hex %02x:%02x)\n",
		       major, minor, major, minor);
	}
}

static int print_link(const char *cmd, e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
		      const char *label)
{
	size_t cap = e4_geom(fs)->block_size + 1, len = 0;
	char *buf = malloc(cap);
	errcode_t err;

	if (!buf)
		return 1;
	err = e4_readlink(fs, ino, inode, buf, cap, &len);
	if (err) {
		warn_err(cmd, err, "while reading the target of symlink %u", ino);
		free(buf);
		return 0;
	}
	printf("%s: \"", label);
	print_raw_name(stdout, buf, len < cap ? len : cap - 1);
	printf("\"\n");
	free(buf);
	return 0;
}

static const char *stat_type_name(uint16_t mode);

/* ---- JSON (stat -j / --json) ------------------------------------------ */
static int json_xattr_cb(e4_fs *fs, const struct e4_xattr *x, void *priv)
{
	listing *l = priv;
	char name[300];

	(void)fs;
	snprintf(name, sizeof(name), "%s%s", x->prefix, x->name);
	listing_object(l, NULL);
	listing_str(l, LISTING_KEY("name"), name);
	listing_u64(l, LISTING_KEY("value_length"), x->value_len);
	if (x->value_inum)
		listing_u64(l, LISTING_KEY("value_inode"), x->value_inum);
	listing_close(l);
	return 0;
}

static int json_map_cb(e4_fs *fs, const struct e4_map_extent *e, void *priv)
{
	listing *l = priv;

	(void)fs;
	listing_object(l, NULL);
	if (e->flags & E4_MAP_META) {
		listing_u64(l, LISTING_KEY("level"), (uint64_t)e->level);
		listing_u64(l, LISTING_KEY("physical"), e->pblk);
		listing_bool(l, LISTING_KEY("meta"), 1);
	} else {
		listing_u64(l, LISTING_KEY("logical"), e->lblk);
		listing_u64(l, LISTING_KEY("physical"), e->pblk);
		listing_u64(l, LISTING_KEY("length"), e->len);
		listing_bool(l, LISTING_KEY("unwritten"), (e->flags & E4_MAP_UNWRITTEN) != 0);
	}
	listing_close(l);
	return 0;
}

static void json_time(listing *l, e4_fs *fs, const struct ext4_inode *inode,
		      const char *key, enum e4_time_field which)
{
	struct e4_time t;

	if (!e4_inode_time(fs, inode, which, &t))
		return;
	listing_object(l, LISTING_KEY(key));
	listing_i64(l, LISTING_KEY("seconds"), t.sec);
	listing_u64(l, LISTING_KEY("nanoseconds"), t.nsec);
	listing_close(l);
}

/* The fields "stat" prints, as one JSON object through the listing layer:
 * numbers as numbers (mode, flags, times in seconds since the epoch),
 * yes/no as true/false. */
static int stat_json(const char *cmd, e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode)
{
	listing *l = listing_new(stdout, LISTING_JSON, 0);
	uint16_t mode = e4_le16(inode->i_mode);
	uint32_t flags = e4_le32(inode->i_flags);
	unsigned i;
	int in_use, ret = 0;

	if (!l) {
		com_err(cmd, E4_ERR_NO_MEMORY, "while listing inode %u", ino);
		return 1;
	}
	listing_u64(l, LISTING_KEY("inode"), ino);
	listing_str(l, LISTING_KEY("type"), stat_type_name(mode));
	listing_u64(l, LISTING_KEY("mode"), mode & 07777);
	listing_u64(l, LISTING_KEY("flags"), flags);
	listing_list_begin(l, LISTING_KEY("flag_names"));
	for (i = 0; i < sizeof(inode_flag_names) / sizeof(inode_flag_names[0]); i++)
		if (flags & inode_flag_names[i].mask)
			listing_list_add(l, inode_flag_names[i].name);
	listing_list_end(l, "");
	if (!current_catastrophic && !e4_test_inode(fs, ino, &in_use))
		listing_bool(l, LISTING_KEY("in_use"), in_use);
	listing_u64(l, LISTING_KEY("generation"), e4_le32(inode->i_generation));
	listing_u64(l, LISTING_KEY("version"), ((uint64_t)(HAS_FIELD(fs, inode, i_version_hi) ?
					      e4_le32(inode->i_version_hi) : 0) << 32) |
		    e4_le32(inode->l_i_version));
	listing_u64(l, LISTING_KEY("user"), e4_inode_uid(inode));
	listing_u64(l, LISTING_KEY("group"), e4_inode_gid(inode));
	listing_u64(l, LISTING_KEY("project"), HAS_FIELD(fs, inode, i_projid) ? e4_le32(inode->i_projid) : 0);
	listing_u64(l, LISTING_KEY("size"), e4_inode_size(inode));
	listing_u64(l, LISTING_KEY("file_acl"), e4_inode_file_acl(fs, inode));
	listing_u64(l, LISTING_KEY("links"), e4_le16(inode->i_links_count));
	listing_u64(l, LISTING_KEY("blockcount"), e4_inode_blocks(fs, inode));
	listing_u64(l, LISTING_KEY("fragment_address"), e4_le32(inode->i_faddr));
	json_time(l, fs, inode, "ctime", E4_CTIME);
	json_time(l, fs, inode, "atime", E4_ATIME);
	json_time(l, fs, inode, "mtime", E4_MTIME);
	if (HAS_FIELD(fs, inode, i_crtime))
		json_time(l, fs, inode, "crtime", E4_CRTIME);
	if (inode->i_dtime)
		listing_u64(l, LISTING_KEY("dtime"), e4_le32(inode->i_dtime));
	if (e4_geom(fs)->inode_size > EXT4_GOOD_OLD_INODE_SIZE)
		listing_u64(l, LISTING_KEY("size_of_extra_inode_fields"), e4_le16(inode->i_extra_isize));
	if (e4_geom(fs)->metadata_csum) {
		uint32_t stored = e4_le16(inode->l_i_checksum_lo);

		if (HAS_FIELD(fs, inode, i_checksum_hi))
			stored |= (uint32_t)e4_le16(inode->i_checksum_hi) << 16;
		listing_u64(l, LISTING_KEY("inode_checksum"), stored);
		listing_bool(l, LISTING_KEY("inode_checksum_ok"), e4_inode_csum_verify(fs, ino, inode));
	}
	listing_array(l, LISTING_KEY("extended_attributes"));
	if (e4_xattr_iterate(fs, ino, inode, json_xattr_cb, l))
		ret = 1;
	listing_close(l);
	if (!(flags & EXT4_INLINE_DATA_FL) && !e4_inode_is_fast_symlink(fs, inode) &&
	    !EXT4_S_ISDEVLIKE(mode)) {
		listing_array(l, (flags & EXT4_EXTENTS_FL) ? LISTING_KEY("extents") :
			      LISTING_KEY("blocks"));
		if (e4_map_iterate(fs, ino, inode, E4_ITER_META, json_map_cb, l))
			ret = 1;
		listing_close(l);
	}
	if (listing_end(l))
		ret = 1;
	return ret;
}

/* ---- text (the reference's layout) ----------------------------------- */
static const char *stat_type_name(uint16_t mode)
{
	switch (mode & EXT4_S_IFMT) {
	case EXT4_S_IFREG: return "regular";
	case EXT4_S_IFDIR: return "directory";
	case EXT4_S_IFLNK: return "symlink";
	case EXT4_S_IFCHR: return "character special";
	case EXT4_S_IFBLK: return "block special";
	case EXT4_S_IFIFO: return "FIFO";
	case EXT4_S_IFSOCK: return "socket";
	default: return "bad type";
	}
}

/* "ctime: 0xBASE[:EXTRA] -- <ctime() text>"; with the extra word the
 * label is right-aligned in 6 columns, as the reference prints it. */
static void stat_time(e4_fs *fs, const struct ext4_inode *inode, const char *label,
		      enum e4_time_field which, uint32_t base, size_t extra_off, int large)
{
	struct e4_time t;

	if (!e4_inode_time(fs, inode, which, &t))
		return;
	if (large) {
		uint32_t extra;

		memcpy(&extra, (const uint8_t *)inode + extra_off, 4);
		printf("%6s: 0x%08x:%08x -- %s\n", label, base, e4_le32(extra),
		       time_ctime(t.sec));
	} else {
		printf("%s: 0x%08x -- %s\n", label, base, time_ctime(t.sec));
	}
}

struct stat_map {
	int extents;
	int items;
	uint64_t total;
};

static int stat_map_cb(e4_fs *fs, const struct e4_map_extent *e, void *priv)
{
	struct stat_map *m = priv;

	(void)fs;
	if (m->items++)
		printf(", ");
	if (e->flags & E4_MAP_META) {
		static const char *const ind[] = { "IND", "IND", "DIND", "TIND" };

		if (m->extents)
			printf("(ETB%d):%llu", e->level, (unsigned long long)e->pblk);
		else
			printf("(%s):%llu", e->level >= 0 && e->level <= 3 ? ind[e->level] : "IND",
			       (unsigned long long)e->pblk);
		m->total++;
		return 0;
	}
	printf("(%llu", (unsigned long long)e->lblk);
	if (e->len > 1)
		printf("-%llu", (unsigned long long)(e->lblk + e->len - 1));
	printf("%s):%llu", (e->flags & E4_MAP_UNWRITTEN) ? "[u]" : "",
	       (unsigned long long)e->pblk);
	if (e->len > 1)
		printf("-%llu", (unsigned long long)(e->pblk + e->len - 1));
	m->total += e->len;
	return 0;
}

/* "EXTENTS:\n<list>\n" or "BLOCKS:\n<list>\nTOTAL: n\n\n"; a damaged map
 * is listed up to the damage, with a warning. */
static void stat_block_map(const char *cmd, e4_fs *fs, e4_ino_t ino,
			   const struct ext4_inode *inode)
{
	struct stat_map m = { 0, 0, 0 };
	errcode_t err;

	m.extents = (e4_le32(inode->i_flags) & EXT4_EXTENTS_FL) != 0;
	printf("%s:\n", m.extents ? "EXTENTS" : "BLOCKS");
	err = e4_map_iterate(fs, ino, inode, E4_ITER_META, stat_map_cb, &m);
	if (m.extents) {
		if (m.items)
			putchar('\n');
	} else if (m.total)
		printf("\nTOTAL: %llu\n\n", (unsigned long long)m.total);
	else
		putchar('\n');
	if (err)
		warn_err(cmd, err, "while reading the block map of inode %u", ino);
}

static void stat_text(const char *cmd, e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode)
{
	const struct e4_geom *geo = e4_geom(fs);
	uint16_t mode = e4_le16(inode->i_mode);
	uint32_t flags = e4_le32(inode->i_flags);
	unsigned extra = geo->inode_size > EXT4_GOOD_OLD_INODE_SIZE ?
			 e4_le16(inode->i_extra_isize) : 0;
	int large = extra >= 24 && extra <= geo->inode_size - EXT4_GOOD_OLD_INODE_SIZE;
	unsigned count = 0;
	/* the Hurd's fields where Linux keeps l_i_version and l_i_blocks_high */
	int hurd = e4_le32(e4_super(fs)->s_creator_os) == EXT4_OS_HURD;
	const uint8_t *frag = (const uint8_t *)&inode->l_i_blocks_high;
	errcode_t err;

	printf("Inode: %u   Type: %s    Mode:  0%03o   Flags: 0x%x\n", ino, stat_type_name(mode),
	       mode & 07777, flags);
	if (large)
		printf("Generation: %u    Version: 0x%08x:%08x\n", e4_le32(inode->i_generation),
		       e4_le32(inode->i_version_hi), e4_le32(inode->l_i_version));
	else
		printf("Generation: %u    Version: 0x%08x\n", e4_le32(inode->i_generation),
		       e4_le32(inode->l_i_version));
	printf("User: %5d   Group: %5d", (int)e4_inode_uid(inode), (int)e4_inode_gid(inode));
	if (large && extra >= 32)
		printf("   Project: %5d", (int)e4_le32(inode->i_projid));
	printf("   Size: %llu\n", (unsigned long long)e4_inode_size(inode));
	printf("File ACL: %llu", (unsigned long long)e4_inode_file_acl(fs, inode));
	if (hurd)
		printf(" Translator: %u", e4_le32(inode->l_i_version));
	printf("\nLinks: %u   Blockcount: %llu\n", e4_le16(inode->i_links_count),
	       (unsigned long long)e4_inode_blocks(fs, inode));
	printf("Fragment:  Address: %u    Number: %u    Size: %u\n", e4_le32(inode->i_faddr),
	       hurd ? frag[0] : 0, hurd ? frag[1] : 0);
	stat_time(fs, inode, "ctime", E4_CTIME, e4_le32(inode->i_ctime),
		  offsetof(struct ext4_inode, i_ctime_extra), large);
	stat_time(fs, inode, "atime", E4_ATIME, e4_le32(inode->i_atime),
		  offsetof(struct ext4_inode, i_atime_extra), large);
	stat_time(fs, inode, "mtime", E4_MTIME, e4_le32(inode->i_mtime),
		  offsetof(struct ext4_inode, i_mtime_extra), large);
	if (large)
		stat_time(fs, inode, "crtime", E4_CRTIME, e4_le32(inode->i_crtime),
			  offsetof(struct ext4_inode, i_crtime_extra), large);
	if (inode->i_dtime)
		printf("%sdtime: 0x%08x -- %s\n", large ? " " : "", e4_le32(inode->i_dtime),
		       time_ctime(e4_le32(inode->i_dtime)));
	if (geo->inode_size > EXT4_GOOD_OLD_INODE_SIZE) {
		printf("Size of extra inode fields: %u\n", extra);
		if (extra > geo->inode_size - EXT4_GOOD_OLD_INODE_SIZE)
			printf("invalid inode->i_extra_isize (%u)\n", extra);
	}
	err = e4_xattr_iterate(fs, ino, inode, xattr_list_cb, &count);
	if (err)
		warn_err(cmd, err, "while reading the extended attributes of inode %u", ino);
	if (geo->metadata_csum) {
		uint32_t crc = e4_le16(inode->l_i_checksum_lo);

		if (HAS_FIELD(fs, inode, i_checksum_hi))
			crc |= (uint32_t)e4_le16(inode->i_checksum_hi) << 16;
		printf("Inode checksum: 0x%08x\n", crc);
	}

	if (e4_is_symlink(inode) && e4_inode_is_fast_symlink(fs, inode)) {
		print_link(cmd, fs, ino, inode, "Fast link dest");
	} else if (e4_is_symlink(inode) && (flags & EXT4_INLINE_DATA_FL)) {
		print_link(cmd, fs, ino, inode, "Fast link dest");
	} else if (EXT4_S_ISDEVLIKE(mode) && ((mode & EXT4_S_IFMT) == EXT4_S_IFCHR ||
					       (mode & EXT4_S_IFMT) == EXT4_S_IFBLK)) {
		print_device(inode);
	} else if (flags & EXT4_INLINE_DATA_FL) {
		size_t size;

		err = e4_inline_data_size(fs, ino, inode, &size);
		if (err)
			warn_err(cmd, err, "while reading the inline data of inode %u", ino);
		else
			printf("Size of inline data: %zu\n", size);
	} else {
		stat_block_map(cmd, fs, ino, inode);
	}
}

int do_stat(int argc, char **argv)
{
	union e4_inode_buf ib;
	e4_ino_t ino;
	int json = argc == 3 && (!strcmp(argv[1], "-j") || !strcmp(argv[1], "--json"));

	if (argc != 2 && !json)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]) || parse_inode(argv[0], argv[argc - 1], &ino) ||
	    read_inode(argv[0], ino, &ib, READ_INODE_WARN_CSUM))
		return 1;
	if (json)
		return stat_json(argv[0], current_fs, ino, &ib.inode);
	stat_text(argv[0], current_fs, ino, &ib.inode);
	return 0;
}
