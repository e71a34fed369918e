/*
 * cmd_xattr.c: extended attributes: "ea_list" and "ea_get" (read-only;
 * format doc section 9).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "debugfs.h"

#define XPRINT_HEX	0x1	/* bytes as "xx " hex */
#define XPRINT_RAW	0x2	/* bytes as they are */
#define XPRINT_C	0x4	/* always as a quoted C string */
#define XPRINT_LIST	0x8	/* ea_list: values of 40 bytes or more are left out */
#define XPRINT_NOQUOTES	0x10	/* a name: the string form without quotes */

/* One byte of the string form: printable bytes as they are, except the
 * quotes and the backslash, which get a backslash; the usual control
 * characters by their C names; others as three octal digits (the
 * reference's spellings). */
static void put_escaped(FILE *f, uint8_t c)
{
	static const char ctl[] = "\a\b\t\n\v\f", names[] = "abtnvf";
	const char *p = c ? memchr(ctl, c, sizeof(ctl) - 1) : NULL;

	if (c == '"' || c == '\'' || c == '\\')
		fprintf(f, "\\%c", c);
	else if (isprint(c))
		fputc(c, f);
	else if (p)
		fprintf(f, "\\%c", names[p - ctl]);
	else
		fprintf(f, "\\%03o", c);
}

/* A value or name as a string when mostly printable (more than 7/8 of
 * its bytes), else as hex bytes ("xx " each). */
static void print_value(FILE *f, const uint8_t *v, size_t len, unsigned flags)
{
	size_t i, printable = 0;

	if (flags & XPRINT_RAW) {
		fwrite(v, 1, len, f);
		return;
	}
	if (!(flags & (XPRINT_C | XPRINT_HEX))) {
		for (i = 0; i < len; i++)
			if (isprint(v[i]))
				printable++;
		if (printable <= len * 7 / 8)
			flags |= XPRINT_HEX;
	}
	if (flags & XPRINT_HEX) {
		for (i = 0; i < len; i++)
			fprintf(f, "%02x ", v[i]);
		return;
	}
	if (!(flags & XPRINT_NOQUOTES))
		fputc('"', f);
	for (i = 0; i < len; i++)
		put_escaped(f, v[i]);
	if (!(flags & XPRINT_NOQUOTES))
		fputc('"', f);
}

/* "name (len) = value" (value left out for ea_list when 40 bytes or more,
 * and for system.data, the inline data).  The name is printed by the
 * value's rules without quotes: hex when mostly not printable. */
static void print_xattr(const struct e4_xattr *x, const void *value, unsigned flags)
{
	char full[300];
	size_t len = x->value_len;

	snprintf(full, sizeof(full), "%s%s", x->prefix, x->name);
	print_value(stdout, (const uint8_t *)full, strlen(full), XPRINT_NOQUOTES);
	printf(" (%zu)", len);
	if ((flags & XPRINT_LIST) && !strcmp(full, "system.data"))
		len = 0;
	if (len && value && (!(flags & XPRINT_LIST) || len < 40)) {
		printf(" = ");
		print_value(stdout, value, len, flags & ~XPRINT_LIST);
	}
	putchar('\n');
}

int xattr_list_cb(e4_fs *fs, const struct e4_xattr *x, void *priv)
{
	unsigned *count = priv;
	void *v = NULL;
	errcode_t err = 0;

	if (!(*count)++)
		printf("Extended attributes:\n");
	/* a short value is shown, also from an EA inode */
	if (x->value_len && x->value_len < 40)
		err = e4_xattr_value(fs, x, &v);
	printf("  ");
	print_xattr(x, v, XPRINT_LIST);
	if (err) {
		fflush(stdout);
		warn_err("ea_list", err, "while reading the value of %s%s from inode %u",
			 x->prefix, x->name, x->value_inum);
	}
	free(v);
	return 0;
}

/* ea_list <inode>: every extended attribute, in-inode ones first. */
int do_ea_list(int argc, char **argv)
{
	unsigned count = 0;
	union e4_inode_buf ib;
	e4_ino_t ino;
	errcode_t err;

	if (argc != 2)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]) || parse_inode(argv[0], argv[1], &ino) ||
	    read_inode(argv[0], ino, &ib, READ_INODE_WARN_CSUM))
		return 1;
	err = e4_xattr_iterate(current_fs, ino, &ib.inode, xattr_list_cb, &count);
	if (err) {
		/* the attributes before the damage were listed */
		warn_err(argv[0], err, "while listing the extended attributes of inode %u", ino);
		return count ? 0 : 1;
	}
	return 0;
}

struct ea_get_ctx {
	const char *want;
	struct e4_xattr x;
	void *value;
	int found;
	errcode_t err;		/* reading the value */
};

static int ea_get_cb(e4_fs *fs, const struct e4_xattr *x, void *priv)
{
	struct ea_get_ctx *c = priv;
	char full[300];

	snprintf(full, sizeof(full), "%s%s", x->prefix, x->name);
	if (strcmp(full, c->want))
		return 0;
	c->x = *x;
	c->err = e4_xattr_value(fs, x, &c->value);
	c->found = 1;
	return 1;
}

/* ea_get [-f outfile] [-xVC] <inode> <name>: one attribute's value, to
 * standard output (-x hex, -V raw, -C quoted) or into outfile. */
int do_ea_get(int argc, char **argv)
{
	struct ea_get_ctx c;
	union e4_inode_buf ib;
	const char *outfile = NULL;
	unsigned flags = 0;
	e4_ino_t ino;
	errcode_t err;
	int opt;

	reset_getopt();
	while ((opt = getopt(argc, argv, "f:xVCr")) != -1) {
		switch (opt) {
		case 'f':
			outfile = optarg;
			break;
		case 'x':
			flags |= XPRINT_HEX;
			break;
		case 'V':
			flags |= XPRINT_RAW;
			break;
		case 'C':
			flags |= XPRINT_C;
			break;
		case 'r':
			break;	/* raw names: names are always taken as given */
		default:
			return usage(argv[0], NULL);
		}
	}
	if (optind != argc - 2)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]) || parse_inode(argv[0], argv[optind], &ino) ||
	    read_inode(argv[0], ino, &ib, READ_INODE_WARN_CSUM))
		return 1;
	memset(&c, 0, sizeof(c));
	c.want = argv[optind + 1];
	err = e4_xattr_iterate(current_fs, ino, &ib.inode, ea_get_cb, &c);
	if (err == 1)
		err = 0;
	if (!c.found || c.err) {
		com_err(argv[0], c.err ? c.err : err ? err : E4_ERR_XATTR_NOT_FOUND,
			"while getting extended attribute %s", c.want);
		return 1;
	}
	if (outfile) {
		FILE *f = fopen(outfile, "w");

		if (!f || fwrite(c.value, 1, c.x.value_len, f) != c.x.value_len) {
			com_err(argv[0], errno, "while writing %s", outfile);
			if (f)
				fclose(f);
			free(c.value);
			return 1;
		}
		if (fclose(f)) {
			com_err(argv[0], errno, "while writing %s", outfile);
			free(c.value);
			return 1;
		}
	} else if (flags & XPRINT_RAW) {
		print_value(stdout, c.value, c.x.value_len, XPRINT_RAW);
		putchar('\n');
	} else {
		print_xattr(&c.x, c.value, flags);
		putchar('\n');
	}
	free(c.value);
	return 0;
}
