/*
 * fuzz_debugfs.c: e4debugfs's read commands.  The tool's own command-line
 * code is compiled in (debugfs.c with its main renamed): the filesystem is
 * opened as open_filesystem() opens it, then up to three command lines,
 * chosen by the input's first bytes from a fixed list, go through
 * execute_line() as typed at the prompt.  Commands that write host files
 * (dump, rdump, logdump -f) are not in the list.  The commands neither
 * exit() nor keep state between inputs besides the open filesystem and
 * the current directory, which are reset for each input.
 *
 * Input: 3 commands of 4 bytes (command, option bits, argument u16 LE),
 * then the image (fuzz.h container).  Header flags: FZ_F_CSUM; 0x02 open
 * with -c (catastrophic).  Commands that read every inode or block
 * (icheck, ncheck, lsdel, ffb, ffi) run only on filesystems of at most
 * 65536 inodes, 2^20 blocks and 4096 groups (their time is the
 * filesystem's size), where stats also lists the groups; cat only on
 * files of at most 64 MiB (its time is the file's size).
 */
#define main e4debugfs_main
#include "../../debugfs/debugfs.c"
#undef main

#include "fuzz.h"

#define FZ_CMDS		3
#define FZ_CMD_BYTES	(4 * FZ_CMDS)

static const char *const xattr_names[] = {
	"user.test", "system.data", "trusted.x", "security.selinux",
	"system.posix_acl_access", "user.",
};
static const char *const dir_names[] = { "lost+found", ".", "..", "a", "file", "dir" };

/* i_size of inode ino (0 if it cannot be read): cat writes it all. */
static uint64_t file_size(e4_ino_t ino)
{
	union e4_inode_buf ib;
	errcode_t err = e4_inode_read(current_fs, ino, &ib);

	return err && err != E4_ERR_INODE_CSUM ? 0 : e4_inode_size(&ib.inode);
}

/* Command line i of the list for option bits opt and argument arg. */
static int command(char *line, size_t len, unsigned i, unsigned opt, unsigned arg, int big)
{
	const char *l = opt & 1 ? "-l " : "", *x = opt & 1 ? "-x " : "";

	switch (i % 27) {
	case 0: return snprintf(line, len, "stats%s%s", opt & 1 || big ? " -h" : "",
				opt & 2 ? " -j" : "");
	case 1: return snprintf(line, len, "stat %s<%u>", opt & 1 ? "-j " : "", arg);
	case 2: return snprintf(line, len, "ls %s%s%s<%u>", l, opt & 2 ? "-p " : "",
				opt & 4 ? "-d " : "", arg);
	case 3: return file_size(arg) > (64u << 20) ? 0 : snprintf(line, len, "cat <%u>", arg);
	case 4: return snprintf(line, len, "testb %u %u", arg, opt);
	case 5: return snprintf(line, len, "testi <%u>", arg);
	case 6: return snprintf(line, len, "imap <%u>", arg);
	case 7: return snprintf(line, len, "bmap <%u> %u", arg, opt * 97);
	case 8: return snprintf(line, len, "blocks <%u>", arg);
	case 9: return big ? 0 : snprintf(line, len, "ffb %u %u", opt + 1, arg);
	case 10: return big ? 0 : snprintf(line, len, "ffi <%u> %u", arg, opt);
	case 11: return big ? 0 : snprintf(line, len, "icheck %u %u", arg, arg + opt);
	case 12: return snprintf(line, len, "ex %s%s<%u>", opt & 1 ? "-n " : "",
				 opt & 2 ? "-l " : "", arg);
	case 13: return snprintf(line, len, "filefrag %s%s<%u>", opt & 1 ? "-d " : "",
				 opt & 2 ? "-v " : "", arg);
	case 14: return snprintf(line, len, "htree %s<%u>", l, arg);
	case 15: return snprintf(line, len, "dx_hash -h %u -s %08x-0000-0000-0000-%012x %s%.*s",
				 opt % 7, arg, arg, opt & 8 ? "-c " : "", 1 + arg % 40,
				 "lost+found.and.a.longer.name.for.hashing");
	case 16: return snprintf(line, len, "dirsearch <%u> %s", arg, dir_names[opt % 6]);
	case 17: return big ? 0 : snprintf(line, len, "ncheck %s%u %u", opt & 1 ? "-c " : "",
					   arg, opt);
	case 18: return snprintf(line, len, "ea_list <%u>", arg);
	case 19: return snprintf(line, len, "ea_get %s%s<%u> %s", opt & 8 ? "-x " : "",
				 opt & 16 ? "-V " : "", arg, xattr_names[opt % 6]);
	case 20: return snprintf(line, len, "bd %s%u", x, arg);
	case 21: return big ? 0 : snprintf(line, len, "lsdel %u", opt);
	case 22: return snprintf(line, len, "logdump%s%s%s%s%s", opt & 1 ? " -a" : "",
				 opt & 2 ? " -O" : "", opt & 4 ? " -S" : "", opt & 8 ? " -c" : "",
				 opt & 16 ? " -j" : "");
	case 23: return snprintf(line, len, "logdump -b %u%s", arg, opt & 2 ? " -O" : "");
	case 24: return snprintf(line, len, "cd <%u>", arg);
	case 25: return snprintf(line, len, "ls %s/%s", l, dir_names[opt % 6]);
	default: return snprintf(line, len, "filefrag -r%s /", opt & 2 ? "v" : "");
	}
}

/* open_filesystem() on the memory device. */
static int open_mem(e4_io *io, int catastrophic)
{
	int oflags = catastrophic ? (E4_OPEN_CATASTROPHIC | E4_OPEN_IGNORE_CSUM) : 0;
	e4_fs *fs;

	if (fz_open(io, oflags, 0, 0, &fs))
		return -1;
	if (!catastrophic && e4_geom(fs)->group_count <= 65536 && check_bitmaps(fs)) {
		e4_close(fs);
		return -1;
	}
	current_fs = fs;
	current_catastrophic = catastrophic;
	root_ino = cwd_ino = EXT4_ROOT_INO;
	return 0;
}

void fz_target_init(void)
{
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_image im;
	char line[256];

	if (size < FZ_CMD_BYTES || fz_image_load(data + FZ_CMD_BYTES, size - FZ_CMD_BYTES, &im, -1))
		return 0;
	if (im.flags & FZ_F_CSUM)
		fz_fix_csums(im.io);
	if (!open_mem(im.io, im.flags & 0x02)) {
		const struct e4_geom *g = e4_geom(current_fs);
		int big = g->inodes_count > 65536 || g->blocks_count > (1u << 20) ||
			  g->group_count > 4096;

		for (unsigned k = 0; k < FZ_CMDS; k++) {
			const uint8_t *c = data + 4 * k;

			if (command(line, sizeof(line), c[0], c[1], c[2] | c[3] << 8, big) > 0)
				execute_line(line);
		}
		close_filesystem("fuzz", 0);
	}
	quit_requested = 0;
	fz_image_free(&im);
	return 0;
}
