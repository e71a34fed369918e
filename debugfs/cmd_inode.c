/*
 * cmd_inode.c: "stat": every field of an inode, its extended attributes
 * and its block map.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "debugfs.h"

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

static void print_flags(uint32_t flags)
{
	const char *sep = " (";
	uint32_t known = 0;
	unsigned i;

	printf("Flags: 0x%x", flags);
	for (i = 0; i < sizeof(inode_flag_names) / sizeof(inode_flag_names[0]); i++) {
		known |= inode_flag_names[i].mask;
		if (flags & inode_flag_names[i].mask) {
			printf("%s%s", sep, inode_flag_names[i].name);
			sep = ", ";
		}
	}
	if (flags & ~known) {
		printf("%s0x%x", sep, flags & ~known);
		sep = ", ";
	}
	if (sep[0] == ',')
		putchar(')');
	putchar('\n');
}

static void print_time(e4_fs *fs, const struct ext4_inode *inode, const char *label,
		       enum e4_time_field which, uint32_t base, size_t extra_off, int extra_ok)
{
	struct e4_time t;
	char buf[48];

	if (!e4_inode_time(fs, inode, which, &t))
		return;
	printf("%6s: 0x%08x", label, base);
	if (extra_ok) {
		uint32_t extra;

		memcpy(&extra, (const uint8_t *)inode + extra_off, 4);
		printf(":%08x", e4_le32(extra));
	}
	printf(" -- %s.%09u\n", time_iso(t.sec, buf, sizeof(buf)), t.nsec);
}

static void print_times(e4_fs *fs, const struct ext4_inode *inode)
{
	print_time(fs, inode, "ctime", E4_CTIME, e4_le32(inode->i_ctime),
		   offsetof(struct ext4_inode, i_ctime_extra), HAS_FIELD(fs, inode, i_ctime_extra));
	print_time(fs, inode, "atime", E4_ATIME, e4_le32(inode->i_atime),
		   offsetof(struct ext4_inode, i_atime_extra), HAS_FIELD(fs, inode, i_atime_extra));
	print_time(fs, inode, "mtime", E4_MTIME, e4_le32(inode->i_mtime),
		   offsetof(struct ext4_inode, i_mtime_extra), HAS_FIELD(fs, inode, i_mtime_extra));
	if (HAS_FIELD(fs, inode, i_crtime))
		print_time(fs, inode, "crtime", E4_CRTIME, e4_le32(inode->i_crtime),
			   offsetof(struct ext4_inode, i_crtime_extra),
			   HAS_FIELD(fs, inode, i_crtime_extra));
	if (inode->i_dtime) {
		char buf[48];
		uint32_t d = e4_le32(inode->i_dtime);

		printf("%6s: 0x%08x -- %s (or next orphan: inode %u)\n", "dtime", d,
		       time_iso((int64_t)d, buf, sizeof(buf)), d);
	}
}

static void print_checksum(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode)
{
	uint32_t stored = e4_le16(inode->l_i_checksum_lo), calc;
	int wide = HAS_FIELD(fs, inode, i_checksum_hi);

	if (!e4_geom(fs)->metadata_csum)
		return;
	if (wide)
		stored |= (uint32_t)e4_le16(inode->i_checksum_hi) << 16;
	if (e4_inode_csum_verify(fs, ino, inode)) {
		printf("Inode checksum: 0x%0*x (correct)\n", wide ? 8 : 4, stored);
		return;
	}
	calc = e4_inode_csum(fs, ino, inode);
	if (!wide)
		calc &= 0xFFFF;
	printf("Inode checksum: 0x%0*x (does not match: computed 0x%0*x)\n", wide ? 8 : 4,
	       stored, wide ? 8 : 4, calc);
}

/* ---- extended attributes --------------------------------------------- */
static int printable(const uint8_t *v, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++) {
		if (v[i] == 0 && i == len - 1)
			break;	/* a terminating NUL is fine */
		if (!isprint(v[i]))
			return 0;
	}
	return 1;
}

static int xattr_cb(e4_fs *fs, const struct e4_xattr *x, void *priv)
{
	int *count = priv;

	(void)fs;
	if ((*count)++ == 0)
		printf("Extended attributes:\n");
	printf("  %s%s (%u)", x->prefix, x->name, x->value_len);
	if (x->value_inum)
		printf(" in inode %u", x->value_inum);
	else if (x->value && x->value_len && x->value_len <= 64 &&
		 printable(x->value, x->value_len))
		printf(" = \"%.*s\"", (int)x->value_len, (const char *)x->value);
	putchar('\n');
	return 0;
}

/* ---- block map -------------------------------------------------------- */
struct map_print {
	int extents;
	int items;
	uint64_t total;
};

static void map_sep(struct map_print *m)
{
	if (m->items++)
		printf(", ");
}

static int map_cb(e4_fs *fs, const struct e4_map_extent *e, void *priv)
{
	struct map_print *m = priv;

	(void)fs;
	map_sep(m);
	if (e->flags & E4_MAP_META) {
		static const char *const ind[] = { "IND", "IND", "DIND", "TIND" };

		if (m->extents)
			printf("(ETB%d):%llu", e->level, (unsigned long long)e->pblk);
		else
			printf("(%s):%llu", e->level >= 0 && e->level <= 3 ? ind[e->level] : "IND",
			       (unsigned long long)e->pblk);
		m->total += e->len ? e->len : 1;
		return 0;
	}
	/* "(lblk[-lblk][u]):pblk[-pblk]", [u] marking an unwritten extent */
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

static int print_block_map(const char *cmd, e4_fs *fs, e4_ino_t ino,
			   const struct ext4_inode *inode)
{
	struct map_print m = { 0, 0, 0 };
	errcode_t err;

	m.extents = (e4_le32(inode->i_flags) & EXT4_EXTENTS_FL) != 0;
	printf("%s:\n", m.extents ? "EXTENTS" : "BLOCKS");
	err = e4_map_iterate(fs, ino, inode, E4_ITER_META, map_cb, &m);
	if (m.items)
		putchar('\n');
	printf("TOTAL: %llu\n", (unsigned long long)m.total);
	if (err) {
		fflush(stdout);
		com_err(cmd, err, "while reading the block map of inode %u", ino);
		return 1;
	}
	return 0;
}

static int is_fast_symlink(e4_fs *fs, const struct ext4_inode *inode)
{
	uint64_t blocks = e4_inode_blocks(fs, inode);
	uint64_t acl = e4_inode_file_acl(fs, inode) ? e4_geom(fs)->block_size / 512 : 0;

	if (!e4_is_symlink(inode) || (e4_le32(inode->i_flags) & EXT4_INLINE_DATA_FL))
		return 0;
	return blocks <= acl;
}

static void print_device(const struct ext4_inode *inode)
{
	uint32_t b0 = e4_le32(inode->i_block[0]), b1 = e4_le32(inode->i_block[1]);
	uint32_t major, minor;

	if (b0) {
		major = (b0 >> 8) & 0xFF;
		minor = b0 & 0xFF;
	} else {
		major = (b1 >> 8) & 0xFFF;
		minor = (b1 & 0xFF) | ((b1 >> 12) & 0xFFF00);
	}
	printf("Device major/minor number: %u:%u (hex %02x:%02x)\n", major, minor, major, minor);
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
		fflush(stdout);
		com_err(cmd, err, "while reading the target of symlink %u", ino);
		free(buf);
		return 1;
	}
	printf("%s: \"", label);
	print_raw_name(stdout, buf, len < cap ? len : cap - 1);
	printf("\"\n");
	free(buf);
	return 0;
}

int do_stat(int argc, char **argv)
{
	e4_fs *fs = current_fs;
	union e4_inode_buf ib;
	struct ext4_inode *inode = &ib.inode;
	uint16_t mode;
	uint32_t flags, ver_hi = 0;
	e4_ino_t ino;
	errcode_t err;
	int count = 0, ret = 0, in_use;

	if (argc != 2)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]) || parse_inode(argv[0], argv[1], &ino))
		return 1;
	if (read_inode(argv[0], ino, &ib, READ_INODE_WARN_CSUM))
		return 1;
	mode = e4_le16(inode->i_mode);
	flags = e4_le32(inode->i_flags);

	printf("Inode: %u   Type: %s   Mode: %04o   ", ino, inode_type_name(mode), mode & 07777);
	print_flags(flags);
	if (!current_catastrophic && !e4_test_inode(fs, ino, &in_use) && !in_use)
		printf("(the inode bitmap marks this inode free)\n");
	if (HAS_FIELD(fs, inode, i_version_hi))
		ver_hi = e4_le32(inode->i_version_hi);
	printf("Generation: %u   Version: 0x%08x:%08x\n", e4_le32(inode->i_generation),
	       ver_hi, e4_le32(inode->l_i_version));
	printf("User: %u   Group: %u   Project: %u   Size: %llu\n", e4_inode_uid(inode),
	       e4_inode_gid(inode),
	       HAS_FIELD(fs, inode, i_projid) ? e4_le32(inode->i_projid) : 0,
	       (unsigned long long)e4_inode_size(inode));
	printf("File ACL: %llu   Links: %u   Blockcount: %llu\n",
	       (unsigned long long)e4_inode_file_acl(fs, inode), e4_le16(inode->i_links_count),
	       (unsigned long long)e4_inode_blocks(fs, inode));
	printf("Fragment address: %u\n", e4_le32(inode->i_faddr));
	print_times(fs, inode);
	if (e4_geom(fs)->inode_size > EXT4_GOOD_OLD_INODE_SIZE)
		printf("Size of extra inode fields: %u%s\n", e4_le16(inode->i_extra_isize),
		       e4_le16(inode->i_extra_isize) > e4_geom(fs)->inode_size -
		       EXT4_GOOD_OLD_INODE_SIZE ? " (invalid)" : "");
	print_checksum(fs, ino, inode);

	err = e4_xattr_iterate(fs, ino, inode, xattr_cb, &count);
	if (err) {
		fflush(stdout);
		com_err(argv[0], err, "while reading the extended attributes of inode %u", ino);
		ret = 1;
	}

	if (flags & EXT4_INLINE_DATA_FL) {
		size_t size;

		err = e4_inline_data_size(fs, ino, inode, &size);
		if (err) {
			fflush(stdout);
			com_err(argv[0], err, "while reading the inline data of inode %u", ino);
			ret = 1;
		} else {
			printf("Size of inline data: %zu\n", size);
		}
		if (e4_is_symlink(inode))
			ret |= print_link(argv[0], fs, ino, inode, "Inline link dest");
		return ret;
	}
	switch (mode & EXT4_S_IFMT) {
	case EXT4_S_IFCHR:
	case EXT4_S_IFBLK:
		print_device(inode);
		return ret;
	case EXT4_S_IFIFO:
	case EXT4_S_IFSOCK:
		return ret;
	case EXT4_S_IFLNK:
		if (is_fast_symlink(fs, inode))
			return ret | print_link(argv[0], fs, ino, inode, "Fast link dest");
		ret |= print_block_map(argv[0], fs, ino, inode);
		return ret | print_link(argv[0], fs, ino, inode, "Link dest");
	default:
		if (!mode && !inode->i_links_count && !e4_inode_blocks(fs, inode))
			return ret;	/* an unused inode: nothing mapped */
		return ret | print_block_map(argv[0], fs, ino, inode);
	}
}
