/*
 * debugfs.c: e4debugfs main program: options, the command table, the
 * command-line parser and the interactive loop; open/close/quit/help.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <editline/readline.h>

#include "crashpoint.h"
#include "shortdev.h"
#include "debugfs.h"

e4_fs *current_fs;
e4_ino_t root_ino = EXT4_ROOT_INO;
e4_ino_t cwd_ino = EXT4_ROOT_INO;
int current_catastrophic;
int current_rw;
static int current_sb_dirty, current_gdt_dirty;
static int current_sb_csum_kept;
/* e4_group_check_locations() of the open filesystem (redone after set_bg) */
static int current_gd_checked;
static errcode_t current_gd_fault;
static struct e4_gd_fault current_gd_first;	/* ssv checksum: s_checksum written as set */
static uint32_t current_sb_csum;

static int quit_requested;

#define PROMPT		DEBUGFS_NAME ":  "
#define MAIN_USAGE	"[-w] [-c] [-D] [-s superblock -b blocksize] [-R request] " \
			"[-f cmd_file] [-V] [device]"

static const struct dbg_cmd cmd_table[] = {
	{ "open", "open_filesys", do_open,
	  "[-w] [-f] [-c] [-D] [-s superblock -b blocksize] device",
	  "Open a filesystem (-w read-write, -f even when mounted)" },
	{ "close", "close_filesys", do_close, "[-a]",
	  "Close the open filesystem (-a: superblock and descriptor backups too)" },
	{ "stats", "show_super_stats", do_stats, "[-h] [-j|--json]",
	  "Show the superblock and journal superblock (and the groups without -h)" },
	{ "stat", "show_inode_info", do_stat, "[-j|--json] <inode>", "Show every field of an inode" },
	{ "ls", "list_directory", do_ls, "[-l] [-p] [-d] [directory]",
	  "List a directory (-l long, -p parseable, -d with deleted slots)" },
	{ "cd", "chdir", do_cd, "<directory>", "Change the current directory" },
	{ "pwd", "print_working_directory", do_pwd, "", "Print the current directory" },
	{ "cat", NULL, do_cat, "<inode>", "Write a file's contents to standard output" },
	{ "dump", "dump_inode", do_dump, "[-p] <inode> <native file>",
	  "Copy a file out of the filesystem (-p: owner, mode and times too)" },
	{ "rdump", NULL, do_rdump, "<inode>... <native directory>",
	  "Copy files and directory trees out of the filesystem" },
	{ "logdump", NULL, do_logdump,
	  "[-acjOS] [-b block] [-n num_trans] [-i filespec] [-f journal_file]",
	  "Dump the journal's transactions (-a all tags, -j JSON)" },
	{ "journal_open", "jo", do_journal_open, "[-c] [-v csum_version] [-f ext_jnl]",
	  "Open the journal for writing transactions (-c with checksums)" },
	{ "journal_write", "jw", do_journal_write, "[-b blocks] [-r revoke] [-c] file",
	  "Write a transaction to the journal (-c: no commit block)" },
	{ "journal_close", "jc", do_journal_close, "", "Close the journal" },
	{ "journal_run", "jr", do_journal_run, "[-f ext_jnl]",
	  "Replay the journal into the filesystem, as e4fsck does" },
	{ "testb", NULL, do_testb, "<block> [count]", "Test whether blocks are marked in use" },
	{ "testi", NULL, do_testi, "<inode>", "Test whether an inode is marked in use" },
	{ "imap", NULL, do_imap, "<inode>", "Show where an inode is stored" },
	{ "bmap", NULL, do_bmap, "<inode> <logical block>",
	  "Map a file's logical block to its physical block" },
	{ "blocks", NULL, do_blocks, "<inode>", "List the blocks an inode uses" },
	{ "ffb", "find_free_block", do_ffb, "[count [goal]]", "Find free blocks" },
	{ "ffi", "find_free_inode", do_ffi, "[dir [mode]]", "Find a free inode" },
	{ "icheck", NULL, do_icheck, "<block number> ...", "Find the inodes owning blocks" },
	{ "dump_extents", "ex", do_dump_extents, "[-n] [-l] <inode>",
	  "Dump an inode's extent tree (-n index nodes only, -l leaves only)" },
	{ "filefrag", NULL, do_filefrag, "[-dvr] [file]",
	  "Report how fragmented files are" },
	{ "htree_dump", "htree", do_htree, "[-l] <directory>",
	  "Dump a hash-indexed directory" },
	{ "dx_hash", "hash", do_dx_hash, "[-h hash_alg] [-s hash_seed] name",
	  "Compute the directory hash of a name" },
	{ "dirsearch", NULL, do_dirsearch, "<directory> <name>",
	  "Search a directory for a name" },
	{ "ncheck", NULL, do_ncheck, "[-c] <inode>...", "Find the path names of inodes" },
	{ "ea_list", NULL, do_ea_list, "<inode>", "List an inode's extended attributes" },
	{ "ea_get", NULL, do_ea_get, "[-f outfile] [-xVC] <inode> <name>",
	  "Print an extended attribute's value" },
	{ "block_dump", "bd", do_block_dump, "[-x] [-f inode] <block>",
	  "Dump a block in hex (-x: as an extended attribute block)" },
	{ "supported_features", NULL, do_supported_features, "[feature]",
	  "List the features this tool supports" },
	{ "lsdel", "list_deleted_inodes", do_lsdel, "[seconds]",
	  "List deleted inodes whose blocks are still free" },
	{ "set_super_value", "ssv", do_set_super, "[-l] field value",
	  "Set a superblock field (-l lists the fields)" },
	{ "set_inode_field", "sif", do_set_inode, "[-l] <inode> field value",
	  "Set an inode field (-l lists the fields)" },
	{ "set_block_group", "set_bg", do_set_bg, "[-l] group field value",
	  "Set a group descriptor field (-l lists the fields)" },
	{ "clri", NULL, do_clri, "<inode>...", "Clear inodes (all zeros)" },
	{ "freei", NULL, do_freei, "<inode> [count]", "Mark inodes free in the inode bitmap" },
	{ "seti", NULL, do_seti, "<inode> [count]", "Mark inodes in use in the inode bitmap" },
	{ "freeb", NULL, do_freeb, "<block> [count]", "Mark blocks free in the block bitmap" },
	{ "setb", NULL, do_setb, "<block> [count]", "Mark blocks in use in the block bitmap" },
	{ "feature", "features", do_feature, "[[-|^]feature] ...",
	  "Set or clear superblock features, then list them" },
	{ "dirty", "dirty_filesys", do_dirty, "[-clean]",
	  "Mark the filesystem not clean (-clean: clean); the superblock is written at close" },
	{ "set_current_time", NULL, do_set_current_time, "<time>",
	  "Use this time (YYYYMMDD[HH[MM[SS]]], @seconds, now) for \"now\"" },
	{ "ea_set", NULL, do_ea_set, "[-f file] [-r] <inode> name [value]",
	  "Set an extended attribute (-f: value from a file)" },
	{ "ea_rm", NULL, do_ea_rm, "<inode> name...", "Remove extended attributes" },
	{ "write", NULL, do_write, "<native file> <new file>",
	  "Copy a native file into the filesystem (holes kept)" },
	{ "mkdir", NULL, do_mkdir, "<directory>", "Make a directory" },
	{ "rmdir", NULL, do_rmdir, "<directory>", "Remove an empty directory" },
	{ "rm", NULL, do_rm, "<path>", "Remove a file (freed at its last link)" },
	{ "kill_file", NULL, do_kill_file, "<inode>",
	  "Free an inode and its blocks (its entries stay)" },
	{ "link", "ln", do_link, "<source> <dest>",
	  "Make a directory entry for an inode (link count unchanged)" },
	{ "unlink", NULL, do_unlink, "<path>",
	  "Remove a directory entry (link count unchanged)" },
	{ "symlink", NULL, do_symlink, "<path> <target>", "Make a symbolic link" },
	{ "mknod", NULL, do_mknod, "<path> [p| [c|b] <major> <minor>]",
	  "Make a fifo or a device node" },
	{ "copy_inode", NULL, do_copy_inode, "<source inode> <dest inode>",
	  "Copy an inode over another" },
	{ "expand_dir", "expand", do_expand_dir, "<directory>",
	  "Add an empty block to a directory" },
	{ "punch", "truncate", do_punch, "<file> start_blk [end_blk]",
	  "Free a file's blocks from start_blk to end_blk (or the end)" },
	{ "fallocate", NULL, do_fallocate, "<file> start_blk [end_blk]",
	  "Allocate unwritten blocks in a file's holes" },
	{ "inode_dump", "idump", do_inode_dump, "[-b|-e|-x] <inode>",
	  "Dump an inode in hex (-b i_block, -e extra space, -x its xattrs)" },
	{ "id", NULL, do_inode_dump, "[-b|-e|-x] <inode>", "inode_dump's third name" },
	{ "help", "?", do_help, "[command]", "List the commands, or show one command's usage" },
	{ "quit", "q", do_quit, "", "Leave " DEBUGFS_NAME },
	{ NULL, NULL, NULL, NULL, NULL }
};

/* The commands that change files or directories through the library's
 * allocators and directory code (not raw field or bitmap edits): the
 * rule for them is file_commands_refused(). */
static int changes_files(const struct dbg_cmd *c)
{
	static const char *const names[] = {
		"write", "mkdir", "rmdir", "rm", "kill_file", "link", "unlink", "symlink",
		"mknod", "copy_inode", "expand_dir", "punch", "fallocate", "ea_set", "ea_rm",
		NULL
	};

	for (const char *const *n = names; *n; n++)
		if (!strcmp(*n, c->name))
			return 1;
	return 0;
}

static const struct dbg_cmd *find_command(const char *name)
{
	const struct dbg_cmd *c;

	for (c = cmd_table; c->name; c++)
		if (!strcmp(c->name, name) || (c->alias && !strcmp(c->alias, name)))
			return c;
	return NULL;
}

int usage(const char *cmd, const char *args)
{
	const struct dbg_cmd *c;

	if (!args) {
		c = find_command(cmd);
		args = c ? c->usage : "";
	}
	fprintf(stderr, "Usage: %s%s%s\n", cmd, *args ? " " : "", args);
	return 1;
}

/* ---- opening ---------------------------------------------------------- */
static int is_csum_error(errcode_t err)
{
	return err == E4_ERR_SB_CSUM || err == E4_ERR_GD_CSUM ||
	       err == E4_ERR_BLOCK_BITMAP_CSUM || err == E4_ERR_INODE_BITMAP_CSUM;
}

/*
 * After E4_ERR_UNSUPP_FEATURE (kind E4_FEAT_INCOMPAT) or
 * E4_ERR_RO_UNSUPP_FEATURE (E4_FEAT_RO_COMPAT): name the unknown feature
 * bits of that kind (e.g. "FEATURE_I16") into buf, from the superblock
 * copy the open tried.  Best effort: an empty string if it cannot be read.
 */
static void unknown_feature_names(const char *dev, e4_blk_t sb_blk, unsigned bs,
				  enum e4_feature_kind kind, char *buf, size_t len)
{
	struct ext4_super_block sb;
	uint32_t mask[3];
	char name[16];
	e4_io *io;
	uint64_t off;
	size_t used = 0;
	int bit;

	buf[0] = 0;
	if (sb_blk && !bs)
		return;
	off = sb_blk ? sb_blk * (uint64_t)bs : EXT4_SUPERBLOCK_OFFSET;
	if (e4_io_open(dev, 0, &io))
		return;
	if (e4_io_pread(io, off, &sb, sizeof(sb))) {
		e4_io_close(io);
		return;
	}
	e4_io_close(io);
	e4_unsupported_features(&sb, &mask[E4_FEAT_COMPAT], &mask[E4_FEAT_INCOMPAT],
				&mask[E4_FEAT_RO_COMPAT]);
	for (bit = 0; bit < 32; bit++) {
		if (!(mask[kind] & (1U << bit)))
			continue;
		e4_feature_name(kind, 1U << bit, name);
		if (used + strlen(name) + 2 >= len)
			return;
		used += snprintf(buf + used, len - used, "%s%s", used ? " " : "", name);
	}
}

/*
 * Read every group's bitmaps once, as the reference does when it opens a
 * filesystem without -c: a bitmap whose checksum does not match makes the
 * open fail.  Other problems (a bitmap outside the filesystem) do not:
 * the reference opens such filesystems too.
 */
static errcode_t check_bitmaps(e4_fs *fs)
{
	const struct e4_geom *geo = e4_geom(fs);
	uint8_t *buf;
	errcode_t err = 0;
	e4_group_t g;

	buf = malloc(geo->block_size);
	if (!buf)
		return E4_ERR_NO_MEMORY;
	for (g = 0; g < geo->group_count; g++) {
		struct e4_group gd;
		int uninit = geo->metadata_csum || geo->gdt_csum;

		/* uninitialised bitmaps are synthesised, never verified */
		if (e4_group_get(fs, g, &gd))
			continue;
		if (!(uninit && (gd.flags & EXT4_BG_BLOCK_UNINIT))) {
			err = e4_read_block_bitmap(fs, g, buf);
			if (err == E4_ERR_BLOCK_BITMAP_CSUM)
				break;
		}
		if (!(uninit && (gd.flags & EXT4_BG_INODE_UNINIT))) {
			err = e4_read_inode_bitmap(fs, g, buf);
			if (err == E4_ERR_INODE_BITMAP_CSUM)
				break;
		}
		err = 0;
	}
	free(buf);
	return err;
}

#define OPEN_RW		0x1	/* -w */
#define OPEN_FORCE	0x2	/* -f: even when mounted; unknown features (read-only) */
#define OPEN_DIRECT	0x4	/* -D: O_DIRECT, the page cache bypassed */

/* -w on a mounted filesystem (or a mounted loop device's backing file):
 * refused unless forced, since the kernel's cached copy would overwrite
 * (or be corrupted by) what is written here.  Returns 1 when refused. */
static int refuse_mounted(const char *who, const char *dev, int force)
{
	struct e4_probe p;

	if (e4_probe_device(dev, &p) || !p.busy)
		return 0;
	if (force) {
		com_err(who, 0, "warning: %s is in use (%s); opening it read-write anyway (-f)",
			dev, p.busy_what);
		return 0;
	}
	com_err(who, 0, "%s is in use (%s): refusing to open it read-write "
		"(open -w -f forces)", dev, p.busy_what);
	return 1;
}

/* What the filesystem open now was opened with (reopen_filesystem()). */
static struct {
	char *dev;
	int catastrophic;
	e4_blk_t sb_blk;
	unsigned bs, mode;
} last_open;

static int open_filesystem(const char *who, const char *dev, int catastrophic,
			   e4_blk_t sb_blk, unsigned bs, unsigned mode)
{
	int oflags = catastrophic ? (E4_OPEN_CATASTROPHIC | E4_OPEN_IGNORE_CSUM) : 0;
	char names[256];
	errcode_t err;
	e4_fs *fs;

	if ((mode & OPEN_RW) && catastrophic) {
		/* no bitmaps: nothing could be allocated or freed safely */
		com_err(who, 0, "catastrophic mode (-c) opens %s read-only", dev);
		mode &= ~OPEN_RW;
	}
	if ((mode & OPEN_RW) && refuse_mounted(who, dev, mode & OPEN_FORCE))
		return 1;
	if (mode & OPEN_RW)	/* fields the kernel refuses are for ssv to fix */
		oflags |= E4_OPEN_RW | E4_OPEN_NO_MOUNT_CHECKS;
	else if (mode & OPEN_FORCE)
		oflags |= E4_OPEN_FORCE;
	if (mode & OPEN_DIRECT)
		oflags |= E4_OPEN_DIRECT;

	err = e4_open(dev, oflags, sb_blk, bs, &fs);
	if (err && is_csum_error(err) && !(oflags & E4_OPEN_IGNORE_CSUM)) {
		com_err(who, err, "while opening %s: retrying without checksum checks", dev);
		oflags |= E4_OPEN_IGNORE_CSUM;
		err = e4_open(dev, oflags, sb_blk, bs, &fs);
	}
	if (err) {
		if (err == E4_ERR_UNSUPP_FEATURE)
			unknown_feature_names(dev, sb_blk, bs, E4_FEAT_INCOMPAT, names,
					      sizeof(names));
		else if (err == E4_ERR_RO_UNSUPP_FEATURE)
			unknown_feature_names(dev, sb_blk, bs, E4_FEAT_RO_COMPAT, names,
					      sizeof(names));
		else
			names[0] = 0;
		if (err == E4_ERR_LOCKED)
			com_err(who, 0, "%s is open for writing by another process (it holds "
				"the advisory lock)", dev);
		else if (err == E4_ERR_DEVICE_TOO_SMALL)
			com_err(who, err, "while opening %s: %s", dev,
				short_device_sizes(dev, names, sizeof(names)));
		else if (names[0])
			com_err(who, err, "(%s) while opening %s", names, dev);
		else
			com_err(who, err, "while opening %s", dev);
		return 1;
	}
	/* crash-safety tests (E4_CRASH_AFTER_WRITES, E4_CRASH_TRACE): the
	 * writes of a read-write session go through the crash-point layer */
	if ((mode & OPEN_RW) && (err = crashpoint_install(e4_fs_io(fs)))) {
		com_err(who, err, "while setting up the crash-point layer for %s", dev);
		e4_close(fs);
		return 1;
	}
	if (!catastrophic) {
		uint64_t dev_blocks;

		/* a truncated image: its bitmaps and tables past the end
		 * cannot be read, nothing there may be written */
		err = e4_check_device_size(fs, &dev_blocks);
		if (err) {
			com_err(who, err, "while opening %s: the filesystem has %llu blocks, the "
				"device only %llu (-c opens it read-only)", dev,
				(unsigned long long)e4_geom(fs)->blocks_count,
				(unsigned long long)dev_blocks);
			e4_close(fs);
			return 1;
		}
		err = check_bitmaps(fs);
		if (err && !(e4_le16(e4_super(fs)->s_state) & EXT4_VALID_FS)) {
			/* a stop between a bitmap's write and its descriptor's
			 * (DESIGN.md "What a stop may leave"): the check mends it */
			if (mode & OPEN_RW) {
				com_err(who, err, "while reading the allocation bitmaps of %s: "
					"it is not clean; run e4fsck first (-c opens it without "
					"them)", dev);
				e4_close(fs);
				return 1;
			}
			warn_err(who, err, "in the allocation bitmaps of %s (not clean: "
				 "e4fsck mends it); commands that read them may fail", dev);
			err = 0;
		}
		if (err) {
			com_err(who, err, "while reading the allocation bitmaps of %s "
				"(-c opens it without them)", dev);
			e4_close(fs);
			return 1;
		}
	}
	current_fs = fs;
	if (dev != last_open.dev) {
		free(last_open.dev);
		last_open.dev = strdup(dev);
	}
	last_open.catastrophic = catastrophic;
	last_open.sb_blk = sb_blk;
	last_open.bs = bs;
	last_open.mode = mode;
	current_catastrophic = catastrophic;
	current_rw = (mode & OPEN_RW) != 0;
	current_sb_dirty = current_gdt_dirty = current_sb_csum_kept = 0;
	current_gd_checked = 0;
	root_ino = cwd_ino = EXT4_ROOT_INO;
	return 0;
}

void mark_super_dirty(void)
{
	current_sb_dirty = 1;
	current_sb_csum_kept = 0;
}

void mark_super_csum_kept(void)
{
	current_sb_dirty = 1;
	current_sb_csum_kept = 1;
	current_sb_csum = e4_le32(e4_super(current_fs)->s_checksum);
}

void mark_gdt_dirty(void)
{
	current_gdt_dirty = 1;
	current_gd_checked = 0;
}

static int first_gd_fault(e4_fs *fs, const struct e4_gd_fault *f, void *priv)
{
	(void)fs;
	*(struct e4_gd_fault *)priv = *f;
	return 1;
}

/* Does the journal hold transactions the kernel would replay at mount
 * (needs_recovery, and a log that is not empty or is being written by jo
 * in this session)?  A journal that cannot be read counts as holding them. */
static int journal_holds_transactions(void)
{
	e4_journal *j;
	int holds;

	if (!e4_has_incompat(current_fs, EXT4_FEATURE_INCOMPAT_RECOVER))
		return 0;
	if (journal_write_is_open())
		return 1;
	if (e4_journal_open(current_fs, NULL, &j))
		return 1;
	holds = e4_be32(e4_journal_super(j)->s_start) != 0;
	e4_journal_close(j);
	return holds;
}

/* The rule for CMD_FILES commands on a read-write filesystem: the library
 * cannot update quota files (the quota feature, which project quota
 * needs too), the kernel
 * replays a pending journal over what they would write (undoing it), and
 * a bitmap or inode table lying on other metadata would be written over
 * it.  Raw edits (ssv, sif, set_bg, setb, ...) and the journal commands
 * stay allowed, so that the user can repair either.  1 (one line
 * printed) when refused. */
static int file_commands_refused(const char *cmd)
{
	static const char *const item[] = { "block bitmap", "inode bitmap", "inode table" };
	struct e4_gd_fault f;

	if (!current_fs || !current_rw)
		return 0;	/* the command says what is missing */
	if (e4_has_ro_compat(current_fs, EXT4_FEATURE_RO_COMPAT_QUOTA)) {
		/* project quota too: its inode needs the quota feature */
		com_err(cmd, 0, "%s has quota (feature quota): file commands would leave "
			"the usage wrong; " DEBUGFS_NAME " cannot update quota files",
			last_open.dev);
		return 1;
	}
	if (journal_holds_transactions()) {
		com_err(cmd, 0, "the journal of %s needs recovery first (jr, or e4fsck): "
			"a mount would replay it over this change", last_open.dev);
		return 1;
	}
	if (!current_gd_checked) {
		memset(&f, 0, sizeof(f));
		current_gd_fault = e4_group_check_locations(current_fs, first_gd_fault, &f, NULL);
		current_gd_first = f;
		current_gd_checked = 1;
	}
	if (current_gd_fault == E4_ERR_NO_MEMORY) {
		com_err(cmd, current_gd_fault, "while checking the group descriptors");
		return 1;
	}
	if (current_gd_fault) {
		f = current_gd_first;
		com_err(cmd, current_gd_fault, "(group %lu's %s, block %llu): file commands "
			"are refused until set_bg fixes it", (unsigned long)f.group,
			item[f.item % 3], (unsigned long long)f.blk);
		return 1;
	}
	return 0;
}

/* Write what changed: the bitmaps the allocation calls changed, the
 * primary descriptor table, the primary superblock (all: every backup
 * superblock and descriptor copy too, as the reference's close -a). */
static errcode_t flush_changes(int all)
{
	struct ext4_super_block *sb = e4_super(current_fs);
	errcode_t err;

	err = e4_flush_primary(current_fs, current_gdt_dirty);
	if (!err && all)
		err = e4_gdt_write(current_fs);
	if (!err && all)
		err = e4_super_write_backups(current_fs);
	if (!err && (current_sb_dirty || all)) {
		if (current_sb_csum_kept) {
			sb->s_checksum = e4_cpu_to_le32(current_sb_csum);
			err = e4_super_write_as_is(current_fs);
		} else {
			err = e4_super_write(current_fs);
		}
	}
	if (!err)
		err = e4_flush(current_fs);
	if (!err)
		current_sb_dirty = current_gdt_dirty = 0;
	return err;
}

static int close_filesystem(const char *who, int all)
{
	errcode_t err = 0, cerr;
	int jrc = journal_write_close(who);	/* jo's journal first */

	if (current_rw)
		err = flush_changes(all);
	if (err)	/* the cache is not written again by the close */
		e4_io_discard(e4_fs_io(current_fs));
	cerr = e4_close(current_fs);
	if (!err)
		err = cerr;
	current_fs = NULL;
	current_catastrophic = current_rw = 0;
	current_sb_dirty = current_gdt_dirty = current_sb_csum_kept = 0;
	current_gd_checked = 0;
	root_ino = cwd_ino = EXT4_ROOT_INO;
	if (err) {
		com_err(who, err, "while writing the changes and closing the filesystem on %s",
			last_open.dev ? last_open.dev : "the device");
		return 1;
	}
	return jrc;
}

int reopen_filesystem(const char *who)
{
	char *dev = last_open.dev;
	int rc;

	if (!current_fs || !dev)
		return 1;
	last_open.dev = NULL;
	rc = close_filesystem(who, 0);
	if (!rc)
		rc = open_filesystem(who, dev, last_open.catastrophic, last_open.sb_blk,
				     last_open.bs, last_open.mode);
	free(dev);
	return rc;
}

static int parse_blocksize(const char *who, const char *str, unsigned *bs)
{
	unsigned long long v;

	if (parse_number(who, str, "block size", EXT4_MAX_BLOCK_SIZE, &v))
		return 1;
	if (v < EXT4_MIN_BLOCK_SIZE || (v & (v - 1))) {
		com_err(who, 0, "Invalid block size - %s (1024 to 65536, a power of two)", str);
		return 1;
	}
	*bs = (unsigned)v;
	return 0;
}

int do_open(int argc, char **argv)
{
	unsigned long long sb = 0;
	unsigned bs = 0, mode = 0;
	int c, catastrophic = 0;

	reset_getopt();
	while ((c = getopt(argc, argv, "cwfDs:b:")) != -1) {
		switch (c) {
		case 'c':
			catastrophic = 1;
			break;
		case 'w':
			mode |= OPEN_RW;
			break;
		case 'f':
			mode |= OPEN_FORCE;
			break;
		case 'D':
			mode |= OPEN_DIRECT;
			break;
		case 's':
			if (parse_number(argv[0], optarg, "superblock block number",
					 UINT64_MAX, &sb))
				return 1;
			break;
		case 'b':
			if (parse_blocksize(argv[0], optarg, &bs))
				return 1;
			break;
		default:
			return usage(argv[0], NULL);
		}
	}
	if (optind != argc - 1)
		return usage(argv[0], NULL);
	if (current_fs) {
		com_err(argv[0], 0, "%s is still open: close it first",
			e4_device_name(current_fs));
		return 1;
	}
	return open_filesystem(argv[0], argv[optind], catastrophic, sb, bs, mode);
}

int do_close(int argc, char **argv)
{
	int all = argc == 2 && !strcmp(argv[1], "-a");

	if (argc != 1 && !all)
		return usage(argv[0], NULL);
	if (check_fs_open(argv[0]))
		return 1;
	return close_filesystem(argv[0], all);
}

int do_quit(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	quit_requested = 1;
	return 0;
}

int do_help(int argc, char **argv)
{
	const struct dbg_cmd *c;
	int i;

	if (argc > 1) {
		int ret = 0;

		for (i = 1; i < argc; i++) {
			c = find_command(argv[i]);
			if (!c) {
				com_err(argv[0], 0, "no such command: %s", argv[i]);
				ret = 1;
				continue;
			}
			printf("%s%s%s\n    %s\n", c->name, *c->usage ? " " : "", c->usage,
			       c->help);
			if (c->alias)
				printf("    (also: %s)\n", c->alias);
		}
		return ret;
	}
	printf("Available " DEBUGFS_NAME " requests:\n\n");
	for (c = cmd_table; c->name; c++) {
		char names[64];

		snprintf(names, sizeof(names), "%s%s%s", c->name, c->alias ? ", " : "",
			 c->alias ? c->alias : "");
		printf("%-30s %s\n", names, c->help);
	}
	return 0;
}

/* ---- command lines ---------------------------------------------------- */
/*
 * Split line in place into words: blanks separate words; "double" and
 * 'single' quotes group (inside double quotes a backslash escapes " and
 * \); outside quotes a backslash escapes the next character.  Returns the
 * word count (argv is NULL-terminated), or -1 on an unterminated quote.
 */
static int split_line(char *line, char **argv, int max)
{
	char *src = line, *dst = line;
	int argc = 0;

	for (;;) {
		char quote = 0;

		while (*src == ' ' || *src == '\t' || *src == '\n' || *src == '\r')
			src++;
		if (!*src)
			break;
		if (argc >= max - 1)
			break;
		argv[argc++] = dst;
		while (*src) {
			char ch = *src;

			if (quote) {
				if (ch == quote) {
					quote = 0;
					src++;
					continue;
				}
				if (quote == '"' && ch == '\\' &&
				    (src[1] == '"' || src[1] == '\\'))
					ch = *++src;
				*dst++ = ch;
				src++;
				continue;
			}
			if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r')
				break;
			if (ch == '"' || ch == '\'') {
				quote = ch;
				src++;
				continue;
			}
			if (ch == '\\' && src[1])
				ch = *++src;
			*dst++ = ch;
			src++;
		}
		if (quote)
			return -1;
		if (*src)
			src++;
		*dst++ = 0;
	}
	argv[argc] = NULL;
	return argc;
}

/* Run one command line.  Returns 0 on success (or an empty/comment line),
 * nonzero when the command failed. */
static int execute_line(const char *text)
{
	const struct dbg_cmd *c;
	char *line, **argv;
	size_t len = strlen(text);
	int argc, ret, max;

	/* a word takes at least one byte and one separator: len / 2 + 2
	 * slots hold every word of the line, none is dropped */
	if (len > (size_t)INT_MAX / 2 - 2) {
		com_err(DEBUGFS_NAME, E2BIG, "while parsing a command");
		return 1;
	}
	max = (int)(len / 2) + 2;
	line = strdup(text);
	argv = calloc((size_t)max + 1, sizeof(*argv));
	if (!line || !argv) {
		free(line);
		free(argv);
		com_err(DEBUGFS_NAME, ENOMEM, "while parsing a command");
		return 1;
	}
	argc = split_line(line, argv, max + 1);
	if (argc < 0) {
		com_err(DEBUGFS_NAME, 0, "unterminated quote in: %s", text);
		ret = 1;
	} else if (argc == 0 || argv[0][0] == '#') {
		ret = 0;
	} else if (!(c = find_command(argv[0]))) {
		com_err(DEBUGFS_NAME, 0, "Command not found %s", argv[0]);
		ret = 1;
	} else if (changes_files(c) && file_commands_refused(argv[0])) {
		ret = 1;
	} else {
		ret = c->func(argc, argv) ? 1 : 0;
	}
	fflush(stdout);
	free(argv);
	free(line);
	return ret;
}

/* Commands from a stream, one per line; echo each one first when echo is
 * set.  Returns the number of failed commands. */
static int run_stream(FILE *in, const char *name, int echo)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int failed = 0;

	while (!quit_requested && (n = getline(&line, &cap, in)) != -1) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = 0;
		if (echo) {
			const char *p = line;

			while (*p == ' ' || *p == '\t')
				p++;
			if (*p && *p != '#') {
				printf(DEBUGFS_NAME ": %s\n", line);
				fflush(stdout);
			}
		}
		if (execute_line(line))
			failed++;
	}
	if (ferror(in)) {	/* e.g. -f naming a directory */
		com_err(DEBUGFS_NAME, errno, "while reading commands from %s", name);
		failed++;
	}
	free(line);
	return failed;
}

/* ---- interactive line editing: completion -------------------------- */
/* Names offered for the word being completed, built on the first call
 * (state 0) and handed out one per call. */
static char **compl_names;
static size_t compl_count, compl_next;

static void compl_reset(void)
{
	size_t i;

	for (i = 0; i < compl_count; i++)
		free(compl_names[i]);
	free(compl_names);
	compl_names = NULL;
	compl_count = compl_next = 0;
}

static void compl_add(const char *prefix, size_t plen, const char *name, size_t nlen)
{
	char **nn;
	char *s;

	if (compl_count >= 100000)
		return;
	nn = realloc(compl_names, (compl_count + 1) * sizeof(*nn));
	if (!nn)
		return;
	compl_names = nn;
	s = malloc(plen + nlen + 1);
	if (!s)
		return;
	memcpy(s, prefix, plen);
	memcpy(s + plen, name, nlen);
	s[plen + nlen] = 0;
	compl_names[compl_count++] = s;
}

struct compl_dir {
	const char *dirpart;
	size_t dlen;
	const char *base;
	size_t blen;
};

static int compl_dir_cb(const struct e4_dirent *d, void *priv)
{
	struct compl_dir *c = priv;

	if (d->name_len >= c->blen && !memcmp(d->name, c->base, c->blen) &&
	    !memchr(d->name, 0, d->name_len))
		compl_add(c->dirpart, c->dlen, d->name, d->name_len);
	return 0;
}

static char *compl_generator(const char *text, int state)
{
	(void)text;
	(void)state;	/* the list was built for this word by complete() */
	while (compl_next < compl_count) {
		char *s = compl_names[compl_next];

		compl_names[compl_next++] = NULL;
		if (s)
			return s;
	}
	return NULL;
}

/* First word: command names.  Later words: names inside the open
 * filesystem ("dir/pre" offers the entries of dir that start with pre). */
static char **complete(const char *text, int start, int end)
{
	const struct dbg_cmd *c;
	size_t tlen = strlen(text);

	(void)end;
	rl_attempted_completion_over = 1;
	compl_reset();
	if (start == (int)strspn(rl_line_buffer, " \t")) {
		for (c = cmd_table; c->name; c++) {
			if (!strncmp(c->name, text, tlen))
				compl_add("", 0, c->name, strlen(c->name));
			if (c->alias && !strncmp(c->alias, text, tlen))
				compl_add("", 0, c->alias, strlen(c->alias));
		}
	} else if (current_fs) {
		const char *slash = strrchr(text, '/');
		struct compl_dir cd;
		e4_ino_t dir = cwd_ino;
		char *dirpath;

		cd.dirpart = text;
		cd.dlen = slash ? (size_t)(slash - text) + 1 : 0;
		cd.base = text + cd.dlen;
		cd.blen = tlen - cd.dlen;
		dirpath = strndup(text, cd.dlen);
		if (dirpath && (!cd.dlen || !e4_namei(current_fs, root_ino, cwd_ino, dirpath,
						      1, &dir)))
			e4_dir_iterate(current_fs, dir, E4_DIR_NO_DOTS, compl_dir_cb, &cd);
		free(dirpath);
	}
	if (!compl_count)
		return NULL;
	return rl_completion_matches(text, compl_generator);
}

static void run_interactive(void)
{
	char *line;

	rl_readline_name = DEBUGFS_NAME;
	rl_attempted_completion_function = complete;
	using_history();
	while (!quit_requested) {
		line = readline(PROMPT);
		if (!line) {
			putchar('\n');
			break;
		}
		if (line[strspn(line, " \t")])
			add_history(line);
		execute_line(line);
		free(line);
	}
	compl_reset();
}

/* The usage line: on stdout for --help, else on stderr. */
static void main_usage(FILE *out)
{
	fprintf(out, "Usage: %s %s\n", DEBUGFS_NAME, MAIN_USAGE);
	if (out == stdout)
		fprintf(out, "       %s -V | --help\n", DEBUGFS_NAME);
}

static const struct option main_long_opts[] = {
	{ "help", no_argument, NULL, 'h' + 256 },
	{ NULL, 0, NULL, 0 },
};

static void (*default_com_err)(const char *, long, const char *, va_list);

/* Every error line follows what stdout printed before it, also when both
 * are piped (stdout fully buffered): "Allocated inode: N" before the
 * failure of the write that allocated it. */
static void flushing_com_err(const char *who, long code, const char *fmt, va_list args)
{
	fflush(stdout);
	default_com_err(who, code, fmt, args);
}

int main(int argc, char **argv)
{
	const char *request = NULL, *cmd_file = NULL;
	unsigned long long sb = 0;
	unsigned bs = 0, mode = 0;
	int c, catastrophic = 0, failed = 0;

	e4_init_errors();
	default_com_err = set_com_err_hook(flushing_com_err);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "wcDs:b:R:f:V", main_long_opts, NULL)) != -1) {
		switch (c) {
		case 'w':
			mode |= OPEN_RW;
			break;
		case 'D':
			mode |= OPEN_DIRECT;
			break;
		case 'c':
			catastrophic = 1;
			break;
		case 's':
			if (parse_number(DEBUGFS_NAME, optarg, "superblock block number",
					 UINT64_MAX, &sb))
				return 1;
			break;
		case 'b':
			if (parse_blocksize(DEBUGFS_NAME, optarg, &bs))
				return 1;
			break;
		case 'R':
			request = optarg;
			break;
		case 'f':
			cmd_file = optarg;
			break;
		case 'V':
			printf("%s %s (e4kit)\n", DEBUGFS_NAME, PACKAGE_VERSION);
			return 0;
		case 'h' + 256:
			main_usage(stdout);
			return 0;
		default:
			if (optopt && strchr("sbRf", optopt))
				com_err(DEBUGFS_NAME, 0, "option -%c needs an argument", optopt);
			else if (optopt)
				com_err(DEBUGFS_NAME, 0, "invalid option -%c", optopt);
			else
				com_err(DEBUGFS_NAME, 0, "unrecognized option '%s'", argv[optind - 1]);
			main_usage(stderr);
			return 1;
		}
	}
	if (argc - optind > 1 || (request && cmd_file)) {
		main_usage(stderr);
		return 1;
	}
	/* a device that cannot be opened fails the run; a command file still
	 * runs (its commands that need no filesystem work, as in the
	 * reference), a single -R request does not */
	if (optind < argc &&
	    open_filesystem(DEBUGFS_NAME, argv[optind], catastrophic, sb, bs, mode)) {
		if (!cmd_file)
			return 1;
		failed = 1;
	}

	if (request) {
		failed += execute_line(request);
	} else if (cmd_file) {
		FILE *f = strcmp(cmd_file, "-") ? fopen(cmd_file, "r") : stdin;

		if (!f) {
			com_err(DEBUGFS_NAME, errno, "while opening command file %s", cmd_file);
			failed++;
		} else {
			failed += run_stream(f, f == stdin ? "standard input" : cmd_file, 1);
			if (f != stdin)
				fclose(f);
		}
	} else if (isatty(STDIN_FILENO)) {
		fprintf(stderr, "%s %s\n", DEBUGFS_NAME, PACKAGE_VERSION);
		run_interactive();
	} else {
		failed += run_stream(stdin, "standard input", 0);
	}

	if (current_fs && close_filesystem(DEBUGFS_NAME, 0))
		failed++;
	/* output lost on stdout: common/stdfds.c, at exit */
	return failed ? 1 : 0;
}
