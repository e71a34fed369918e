/*
 * fuzz_debugfs_w.c: e4debugfs's write commands (a filesystem opened with
 * -w).  The tool's command-line code is compiled in (debugfs.c with its
 * main renamed): the image is opened read-write as open_filesystem() opens
 * it for -w (bitmaps read and checked), up to three command lines chosen
 * by the input's first bytes go through execute_line(), then the
 * filesystem is closed -- the bitmaps, descriptors and superblock written
 * to the memory device -- and opened again read-only, as the next run of
 * any tool would.
 *
 * Input: 3 commands of 4 bytes (command, option bits, argument u16 LE),
 * then the image (fuzz.h container).  Header flags: FZ_F_CSUM.  The
 * commands: ssv, sif and set_bg of a field picked from the library's
 * tables (the option byte) with a value of each notation (numbers, dates,
 * UUIDs, text, "calc"), clri, freei/seti and freeb/setb with counts,
 * feature, dirty, ea_set/ea_rm (values up to 4 KiB, an ACL in the Linux
 * form, a value from a file), sif bmap[], close -a; and (16-31) write (a
 * small and a sparse source made once), mkdir, rmdir, rm, kill_file,
 * link/ln, unlink, symlink (targets up to 1200 bytes), mknod, copy_inode,
 * expand_dir, punch, fallocate (with an end), inode_dump, truncate, cd.
 * "now" is fixed
 * (set_current_time first) so that a run is the same every time.  Commands that walk every inode or
 * block are not in the list; filesystems of more than 65536 groups are
 * not opened (their bitmaps take the run's time).
 */
#define main e4debugfs_main
#include "../../debugfs/debugfs.c"
#undef main

#include "fuzz.h"

#define FZ_CMDS		3
#define FZ_CMD_BYTES	(4 * FZ_CMDS)

static const char *const feature_names[] = {
	"dir_prealloc", "^dir_index", "dir_index", "^has_journal", "metadata_csum",
	"^extent", "64bit", "-sparse_super", "FEATURE_C31", "huge_file",
};
static const char *const uuid_values[] = { "null", "random", "time",
					   "01234567-89ab-cdef-0123-456789abcdef" };

/* Row k of structure s's table, spelled with an array index and a part
 * suffix chosen by the option bits. */
static void field_name(char *buf, size_t len, enum e4_field_struct s, unsigned k, unsigned opt)
{
	const struct e4_field *f = e4_fields(s);
	unsigned n = 0;

	while (f[n].name)
		n++;
	f += k % n;
	if (f->count)
		snprintf(buf, len, "%s[%u]", f->name, opt % (f->count + 1));
	else
		snprintf(buf, len, "%s%s", f->name,
			 f->hi_size && (opt & 0x40) ? (opt & 0x20 ? "_hi" : "_lo") : "");
}

/* A value in one of the notations the field parser takes (or refuses). */
static void field_value(char *buf, size_t len, unsigned opt, unsigned arg)
{
	switch ((opt >> 2) % 8) {
	case 0: snprintf(buf, len, "%u", arg); break;
	case 1: snprintf(buf, len, "0x%x%04x", arg, arg ^ opt); break;
	case 2: snprintf(buf, len, "-%u", arg); break;
	case 3: snprintf(buf, len, "%04u%02u%02u%02u", 1900 + arg % 400, opt % 14, arg % 33,
			 opt % 25); break;
	case 4: snprintf(buf, len, "@%d", (int)(arg * 65599u)); break;
	case 5: snprintf(buf, len, "%s", uuid_values[arg % 4]); break;
	case 6: snprintf(buf, len, "calc"); break;
	default: snprintf(buf, len, "tea%.*s", (int)(arg % 40), "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	}
}

static char src_dir[64];	/* fz_target_init(): the sources of "write" */

/* The commands that create, remove and fill files (16-31): names in the
 * root and in d0..d7 (made by mkdir), inodes by number. */
static int ns_command(char *line, size_t len, unsigned i, unsigned opt, unsigned arg)
{
	static const char *const idump[] = { "", "-b ", "-e ", "-x " };
	unsigned d = opt % 8, n = arg % 16, ino = arg % 64 + 1;

	switch (i % 32) {
	case 16:
		if (opt & 0x80)
			return snprintf(line, len, "write %s/%s f%u", src_dir,
					opt & 1 ? "sparse" : "small", n);
		return snprintf(line, len, "write %s/%s d%u/f%u", src_dir,
				opt & 1 ? "sparse" : "small", d, n);
	case 17: return snprintf(line, len, "mkdir %s%u", opt & 0x40 ? "d0/d" : "d", d);
	case 18: return snprintf(line, len, "rmdir %s%u", opt & 0x40 ? "d0/d" : "d", d);
	case 19: return snprintf(line, len, "rm %s%u", opt & 1 ? "d0/f" : "f", n);
	case 20: return snprintf(line, len, "kill_file <%u>", ino);
	case 21: return snprintf(line, len, "%s <%u> %s%u", opt & 1 ? "ln" : "link", ino,
				 opt & 2 ? "d0/l" : "l", n);
	case 22: return snprintf(line, len, "unlink %s%u", opt & 1 ? "l" : "f", n);
	case 23: {
		/* a target of arg % 1200 bytes: fast, inline, slow, too long */
		char t[1201];
		unsigned tl = arg % 1200 + 1;

		memset(t, 'a' + opt % 26, tl);
		t[tl] = 0;
		return snprintf(line, len, "symlink %s%u %s", opt & 1 ? "d0/s" : "s", n, t);
	}
	case 24:
		if (opt % 3 == 0)
			return snprintf(line, len, "mknod n%u p", n);
		return snprintf(line, len, "mknod n%u %c %u %u", n, opt % 3 == 1 ? 'c' : 'b',
				arg >> 4, arg * 31 + opt);
	case 25: return snprintf(line, len, "copy_inode <%u> <%u>", ino, opt % 64 + 1);
	case 26: return snprintf(line, len, "expand_dir %s%u%s", opt & 1 ? "d" : "<",
				 opt & 1 ? d : ino, opt & 1 ? "" : ">");
	case 27: return snprintf(line, len, "punch <%u> %u %u", ino, arg % 300, arg % 300 + opt);
	case 28: return snprintf(line, len, "fallocate <%u> %u %u", ino, arg % 300,
				 arg % 300 + opt);
	case 29: return snprintf(line, len, "inode_dump %s<%u>", idump[opt % 4], ino);
	case 30: return snprintf(line, len, "truncate <%u> %u", ino, arg % 400);
	default: return snprintf(line, len, "cd %s", opt & 1 ? "/" : "d0");
	}
}

/* Command line i of the list for option bits opt and argument arg.  Files
 * a command reads are written under dir first. */
static int command(char *line, size_t len, unsigned i, unsigned opt, unsigned arg)
{
	char ea[32], name[64], value[128];

	/* an ACL (translated unless -r) or one of four user attributes */
	if (opt & 1)
		snprintf(ea, sizeof(ea), "system.posix_acl_%s", opt & 4 ? "default" : "access");
	else
		snprintf(ea, sizeof(ea), "user.fz%u", opt % 4);

	switch (i % 32) {
	case 0:
		field_name(name, sizeof(name), E4_FIELDS_SUPER, arg, opt);
		field_value(value, sizeof(value), opt, arg);
		return snprintf(line, len, "ssv %s %s", name, value);
	case 1:
		field_name(name, sizeof(name), E4_FIELDS_INODE, arg >> 8, opt);
		field_value(value, sizeof(value), opt, arg);
		return snprintf(line, len, "sif <%u> %s %s", arg % 64 + 1, name, value);
	case 2:
		field_name(name, sizeof(name), E4_FIELDS_GROUP, arg >> 8, opt);
		field_value(value, sizeof(value), opt, arg);
		return snprintf(line, len, "set_bg %u %s %s", arg % 8, name, value);
	case 3: return snprintf(line, len, "clri <%u>", arg);
	case 4: return snprintf(line, len, "freei <%u> %u", arg, opt % 40 + 1);
	case 5: return snprintf(line, len, "seti <%u> %u", arg, opt % 40 + 1);
	case 6: return snprintf(line, len, "freeb %u %u", arg, opt + 1);
	case 7: return snprintf(line, len, "setb %u %u", arg, opt + 1);
	case 8: return snprintf(line, len, "feature %s %s", feature_names[opt % 10],
				feature_names[arg % 10]);
	case 9: return snprintf(line, len, "dirty%s", opt & 1 ? " -clean" : "");
	case 10: return snprintf(line, len, "seti <%u>", arg);
	case 11: return snprintf(line, len, "ea_set -f /dev/zero <%u> %s", arg % 64 + 1, ea);
	case 12: {
		/* a value of arg % 4096 bytes: an in-inode, block or EA inode one */
		char v[4097];
		unsigned n = arg % 4096;

		memset(v, 'a' + opt % 26, n);
		v[n] = 0;
		return snprintf(line, len, "ea_set %s<%u> %s %s", opt & 2 ? "-r " : "",
				arg % 64 + 1, ea, n ? v : "''");
	}
	case 13: return snprintf(line, len, "ea_rm <%u> %s", arg % 64 + 1, ea);
	case 14: return snprintf(line, len, "sif <%u> bmap[%u] %u", opt % 64 + 1, arg % 300,
				 arg * 7);
	case 15: return snprintf(line, len, "close -a");
	default: return ns_command(line, len, i, opt, arg);
	}
}

void fz_target_init(void)
{
	/* the sources of "write": a small file, and one with zeros and holes */
	static char tmpl[] = "/tmp/fuzz_debugfs_w.XXXXXX";
	char path[PATH_MAX], buf[5000];
	FILE *f;

	if (!mkdtemp(tmpl))
		abort();
	snprintf(src_dir, sizeof(src_dir), "%s", tmpl);
	for (unsigned k = 0; k < sizeof(buf); k++)
		buf[k] = (char)(k * 7 + 1);
	snprintf(path, sizeof(path), "%s/small", src_dir);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, sizeof(buf), f) != sizeof(buf) || fclose(f))
		abort();
	snprintf(path, sizeof(path), "%s/sparse", src_dir);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, sizeof(buf), f) != sizeof(buf) || fseek(f, 200000, SEEK_CUR) ||
	    fwrite(buf, 1, 100, f) != 100 || fclose(f))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int oflags = E4_OPEN_RW | E4_OPEN_NO_MOUNT_CHECKS;
	struct fz_image im;
	char line[4400];
	e4_fs *fs;

	if (size < FZ_CMD_BYTES || fz_image_load(data + FZ_CMD_BYTES, size - FZ_CMD_BYTES, &im, -1))
		return 0;
	if (im.flags & FZ_F_CSUM)
		fz_fix_csums(im.io);
	if (!fz_open(im.io, oflags, 0, 0, &fs)) {
		if (e4_geom(fs)->group_count > 65536 || check_bitmaps(fs)) {
			e4_close(fs);
			fz_image_free(&im);
			return 0;
		}
		current_fs = fs;
		current_catastrophic = 0;
		current_rw = 1;
		current_sb_dirty = current_gdt_dirty = current_sb_csum_kept = 0;
		root_ino = cwd_ino = EXT4_ROOT_INO;
		execute_line("set_current_time @1700000000");
		for (unsigned k = 0; k < FZ_CMDS && current_fs; k++) {
			const uint8_t *c = data + 4 * k;

			if (command(line, sizeof(line), c[0], c[1], c[2] | c[3] << 8) > 0)
				execute_line(line);
		}
		if (current_fs)
			close_filesystem("fuzz", 0);
		/* what the close wrote, as the next tool reads it */
		if (!fz_open(im.io, 0, 0, 0, &fs))
			e4_close(fs);
	}
	quit_requested = 0;
	fz_image_free(&im);
	return 0;
}
