/*
 * cmd_set.c: set_super_value (ssv), set_inode_field (sif) and
 * set_block_group (set_bg): one field of the superblock, an inode or a
 * group descriptor from its text form, through libe4's field tables
 * (lib/e4/fields.c); "-l" lists the fields.  A refused value changes
 * nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "debugfs.h"

/* "-l": every field of structure s with its type (a field with a high
 * part is listed as name[_hi|_lo], an array as name[count]). */
static int list_fields(enum e4_field_struct s, const char *title)
{
	const struct e4_field *f;
	int ret = 0;

	printf("%s:\n", title);
	for (f = e4_fields(s); f->name; f++) {
		char name[64];

		if (f->count)
			snprintf(name, sizeof(name), "%s[%u]", f->name, f->count);
		else
			snprintf(name, sizeof(name), "%s%s", f->name, f->hi_size ? "[_hi|_lo]" : "");
		printf("\t%-25s\t%s\n", name, e4_field_type_name(f));
	}
	if (s == E4_FIELDS_INODE)
		printf("\t%-25s\t%s\n", "bmap[]", "logical -> physical block (extents)");
	return ret;
}

/* One line for a refused field or value; len: the structure's size. */
static void field_error(const char *cmd, errcode_t err, enum e4_field_struct s, size_t len,
			const char *name, const char *value)
{
	struct e4_field_ref ref;
	int64_t min;
	uint64_t max;

	if (err == E4_ERR_FIELD_UNKNOWN) {
		/* a part past this structure's size: named, but absent here */
		if (!e4_field_lookup(s, E4_INODE_MAX_SIZE, name, &ref))
			com_err(cmd, 0, "%s is not stored in %zu-byte %s", name, len,
				s == E4_FIELDS_INODE ? "inodes" : "group descriptors");
		else
			com_err(cmd, 0, "no field named %s (%s -l lists them)", name, cmd);
		return;
	}
	if (err == E4_ERR_FIELD_INDEX) {
		com_err(cmd, 0, "bad or missing array index in %s (%s -l lists the sizes)",
			name, cmd);
		return;
	}
	if (e4_field_lookup(s, len, name, &ref)) {
		com_err(cmd, err, "while setting %s", name);
		return;
	}
	if (err == E4_ERR_FIELD_VALUE) {
		com_err(cmd, 0, "'%s' is not a valid value for %s (%s)", value, name,
			e4_field_type_name(ref.field));
		return;
	}
	if (err == E4_ERR_FIELD_RANGE) {
		if (ref.field->type == E4_FIELD_STRING) {
			com_err(cmd, 0, "'%s' is too long for %s (at most %u bytes)", value, name,
				ref.field->size);
			return;
		}
		e4_field_range(&ref, len, &min, &max);
		com_err(cmd, 0, "value '%s' is out of range for %s (%lld to %llu)", value, name,
			(long long)min, (unsigned long long)max);
		return;
	}
	com_err(cmd, err, "while setting %s", name);
}

int do_set_super(int argc, char **argv)
{
	int is_csum = 0;
	errcode_t err;

	if (argc == 2 && !strcmp(argv[1], "-l"))
		return list_fields(E4_FIELDS_SUPER, "Superblock fields for set_super_value");
	if (argc != 3)
		return usage(argv[0], NULL);
	if (check_fs_read_write(argv[0]))
		return 1;
	err = e4_super_field_set(current_fs, argv[1], argv[2], debugfs_field_opts(), &is_csum);
	if (err) {
		field_error(argv[0], err, E4_FIELDS_SUPER, EXT4_SUPERBLOCK_SIZE, argv[1], argv[2]);
		return 1;
	}
	if (is_csum)
		mark_super_csum_kept();
	else
		mark_super_dirty();
	return 0;
}

/* "sif <inode> bmap[lblk] pblk": map one logical block of an extent-mapped
 * inode to pblk.  Unlike the reference's bmap[], the block is marked in
 * use and counted in i_blocks (so a tree block the change allocates
 * cannot land on it, and a free block mapped into a hole leaves the
 * filesystem consistent); a block mapped there before is replaced, not
 * freed, as in the reference. */
static int set_bmap(const char *cmd, e4_ino_t ino, union e4_inode_buf *ib, const char *field,
		    const char *value)
{
	const struct e4_geom *g = e4_geom(current_fs);
	unsigned long long lblk, pblk;
	e4_extent_handle *h;
	uint64_t marked = 0;
	char *end;
	errcode_t err;

	errno = 0;
	lblk = strtoull(field + 5, &end, 0);
	if (field[5] == '-' || field[5] == ']' || errno || strcmp(end, "]") ||
	    lblk >= (1ULL << 32)) {
		com_err(cmd, 0, "bad logical block in %s (0 to 4294967294)", field);
		return 1;
	}
	if (parse_number(cmd, value, "block number", g->blocks_count - 1, &pblk))
		return 1;
	if (!(e4_le32(ib->inode.i_flags) & EXT4_EXTENTS_FL)) {
		com_err(cmd, 0, "bmap[] of inode %u: only extent-mapped inodes are supported "
			"yet (this one has a block map or inline data)", ino);
		return 1;
	}
	err = e4_extent_open(current_fs, ino, &ib->inode, 0, &h);
	if (err) {
		com_err(cmd, err, "while reading the extent tree of inode %u", ino);
		return 1;
	}
	err = e4_block_mark(current_fs, (e4_blk_t)pblk, 1, 1, &marked);
	if (!err)
		err = e4_extent_map_set(h, lblk, 1, (e4_blk_t)pblk, 0);
	e4_extent_close(h);
	if (!err)
		err = e4_inode_write(current_fs, ino, ib);
	if (err) {
		if (marked)
			e4_block_mark(current_fs, (e4_blk_t)pblk, 1, 0, NULL);
		com_err(cmd, err, "while mapping block %llu of inode %u", lblk, ino);
		return 1;
	}
	return 0;
}

int do_set_inode(int argc, char **argv)
{
	union e4_inode_buf ib;
	uint32_t csum = 0;
	e4_ino_t ino;
	errcode_t err;

	if (argc == 2 && !strcmp(argv[1], "-l"))
		return list_fields(E4_FIELDS_INODE, "Inode fields for set_inode_field");
	if (argc != 4)
		return usage(argv[0], NULL);
	if (check_fs_read_write(argv[0]) || parse_inode(argv[0], argv[1], &ino))
		return 1;
	err = e4_inode_read(current_fs, ino, &ib);
	if (err == E4_ERR_INODE_CSUM) {	/* the buffer is filled: a repair may follow */
		warn_err(argv[0], err, "(inode %u): setting %s anyway", ino, argv[2]);
	} else if (err) {
		com_err(argv[0], err, "while reading inode %u", ino);
		return 1;
	}
	if (!strncmp(argv[2], "bmap[", 5))
		return set_bmap(argv[0], ino, &ib, argv[2], argv[3]);
	err = e4_inode_field_set(current_fs, ino, &ib, argv[2], argv[3], debugfs_field_opts(),
				 &csum);
	if (err) {
		field_error(argv[0], err, E4_FIELDS_INODE, e4_geom(current_fs)->inode_size,
			    argv[2], argv[3]);
		return 1;
	}
	if (!strcmp(argv[3], "calc"))
		printf("Checksum set to 0x%08x\n", csum);
	return 0;
}

int do_set_bg(int argc, char **argv)
{
	unsigned long long g;
	uint32_t csum = 0;
	errcode_t err;

	if (argc == 2 && !strcmp(argv[1], "-l"))
		return list_fields(E4_FIELDS_GROUP, "Group descriptor fields for set_block_group");
	if (argc != 4)
		return usage(argv[0], NULL);
	if (check_fs_read_write(argv[0]) ||
	    parse_number(argv[0], argv[1], "block group number", UINT32_MAX, &g))
		return 1;
	if (g >= e4_geom(current_fs)->group_count) {
		com_err(argv[0], 0, "block group %llu is past the last one (%u)", g,
			e4_geom(current_fs)->group_count - 1);
		return 1;
	}
	err = e4_group_field_set(current_fs, (e4_group_t)g, argv[2], argv[3],
				 debugfs_field_opts(), &csum);
	if (err) {
		field_error(argv[0], err, E4_FIELDS_GROUP, e4_geom(current_fs)->desc_size,
			    argv[2], argv[3]);
		return 1;
	}
	if (!strcmp(argv[3], "calc"))
		printf("Checksum set to 0x%04x\n", csum);
	mark_gdt_dirty();
	return 0;
}
