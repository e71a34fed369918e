/*
 * fuzz_tune.c: e4tune's listing and its changes applied to a damaged
 * image.  The tool's whole run (e4tune_run(): parsing, the probe, the
 * refusals, journal recovery, the conversion, the superblock writes, the
 * listing) on a command line chosen by the input, in one process many
 * times: e4tune_run() returns its exit status and leaves nothing open.
 * The image is a memory file (memfd) e4tune opens by its path,
 * /proc/self/fd/N, as often as it wants (reopens, the second handle of
 * uninit_bg).
 *
 * Input: the image (fuzz.h container).  Header flags: FZ_F_CSUM.  op[0]
 * chooses the change (the table below: -l, journal add/remove, ext2 to
 * ext4, metadata_csum on/off, -U, -L/-M, -e/-c/-C/-i/-m/-r/-T/-g/-u,
 * -E, -o, other -O toggles); op[1]: bit 0 -f, bit 1 -l after the change,
 * bit 2 a second -f, bits 3-7 pick the variant of the change; op[2] its
 * numeric argument.  The changes whose time is the filesystem's size
 * (a journal of the default size, every checksum rewritten, uninit_bg's
 * inode tables) run only on devices of at most 1 GiB; UUIDs are fixed
 * ones (no random, no time), the clock only feeds s_wtime.
 *
 * What e4tune writes stays clean: when e4fsck -n finds the image clean
 * (exit 0) before and e4tune exits 0, e4fsck -n must exit 0 after
 * (GUIDE.md: what e4kit writes is clean; a listing writes nothing).  The
 * one change meant to leave a check due, -E force_fsck, is not judged.
 * Otherwise abort(): a finding.
 */
#define main e4tune_main
#include "../../tune/main.c"
#undef main

#include "fuzz.h"

#define FZ_BIG_DEVICE	(1ULL << 30)	/* bytes: heavy changes only below */

int e4fsck_run(int argc, char **argv);	/* fsck_run.c */

static int dev_fd = -1;
static char dev_path[64];

void fz_target_init(void)
{
	dev_fd = fz_device("e4fuzz-tune", dev_path, sizeof(dev_path));
}

static const char *const features[] = {
	"^has_journal", "has_journal", "extents,uninit_bg,dir_index,huge_file,dir_nlink,extra_isize",
	"metadata_csum", "^metadata_csum", "uninit_bg", "^uninit_bg", "dir_index", "^dir_index",
	"metadata_csum_seed", "^metadata_csum_seed", "^flex_bg", "extents", "^extents",
	"large_file", "^huge_file", "^dir_nlink", "^extra_isize", "orphan_file", "^orphan_file",
	"64bit", "^64bit", "metadata_csum,^uninit_bg", "^metadata_csum,uninit_bg",
	"fast_commit", "^filetype", "filetype", "stable_inodes", "encrypt", "casefold",
	"project", "quota", "mmp", "^resize_inode", "sparse_super",
};
static const char *const uuids[] = {
	"clear", "null", "01234567-89ab-cdef-0123-456789abcdef",
	"ffffffff-ffff-ffff-ffff-ffffffffffff", "not-a-uuid",
};
static const char *const errors_b[] = { "continue", "remount-ro", "panic", "bogus" };
static const char *const extended[] = {
	"stride=%u", "stripe_width=%u", "hash_alg=half_md4", "hash_alg=tea", "hash_alg=siphash",
	"hash_alg=%u", "mount_opts=nodelalloc", "test_fs", "^test_fs", "force_fsck",
	"stride=%u,stripe_width=%u",
};
static const char *const mntopts[] = {
	"acl", "^acl", "user_xattr", "journal_data", "journal_data_ordered",
	"journal_data_writeback", "nobarrier", "block_validity", "discard", "nodelalloc",
	"journal_checksum", "journal_async_commit", "^journal_checksum", "bogus",
};

#define N(a)	(sizeof(a) / sizeof((a)[0]))

/* The change of op[0] (variant v, argument n) into argv: the number of
 * arguments added (0: this input is not run). */
static int change(char **argv, char *buf, size_t len, unsigned op, unsigned v, unsigned n,
		  int big)
{
	switch (op % 12) {
	case 0:
		argv[0] = "-l";
		return 1;
	case 1:		/* journal add: its default size, or 1 MiB */
		if (v & 1) {
			argv[0] = "-J";
			argv[1] = "size=1";
			return 2;
		}
		if (big)
			return 0;
		argv[0] = "-j";
		return 1;
	case 2:
		argv[0] = "-O";
		argv[1] = "^has_journal";
		return 2;
	case 3:		/* ext2 -> ext3/ext4 */
		if (big)
			return 0;
		argv[0] = "-O";
		argv[1] = v & 1 ? "extents,uninit_bg,dir_index,huge_file,dir_nlink,extra_isize,"
				  "has_journal" : "extents,uninit_bg,dir_index";
		return 2;
	case 4:
	case 5:		/* metadata_csum on / off */
		if (big)
			return 0;
		argv[0] = "-O";
		argv[1] = op % 12 == 4 ? "metadata_csum" : "^metadata_csum";
		return 2;
	case 6:
		if (big)
			return 0;
		argv[0] = "-U";
		argv[1] = (char *)uuids[v % N(uuids)];
		return 2;
	case 7:
		snprintf(buf, len, "label-%u-%.*s", n, (int)(v % 24),
			 "a-label-longer-than-sixteen-bytes");
		argv[0] = v & 1 ? "-M" : "-L";
		argv[1] = buf;
		return 2;
	case 8:		/* the superblock settings */
		switch (v % 9) {
		case 0: argv[0] = "-e"; argv[1] = (char *)errors_b[n % N(errors_b)]; break;
		case 1: argv[0] = "-c"; snprintf(buf, len, "%d", (int)n - 128); argv[1] = buf; break;
		case 2: argv[0] = "-C"; snprintf(buf, len, "%u", n * 70); argv[1] = buf; break;
		case 3: argv[0] = "-i"; snprintf(buf, len, "%u%s", n, n & 1 ? "w" : "d"); argv[1] = buf; break;
		case 4: argv[0] = "-m"; snprintf(buf, len, "%u.%u", n % 60, n % 10); argv[1] = buf; break;
		case 5: argv[0] = "-r"; snprintf(buf, len, "%u", n * 997); argv[1] = buf; break;
		case 6: argv[0] = "-T"; argv[1] = n & 1 ? "20200101" : "19991231235959"; break;
		case 7: argv[0] = "-g"; snprintf(buf, len, "%u", n * 3); argv[1] = buf; break;
		default: argv[0] = "-u"; snprintf(buf, len, "%u", n * 5); argv[1] = buf; break;
		}
		return 2;
	case 9:
		snprintf(buf, len, extended[v % N(extended)], n, n * 2);
		argv[0] = "-E";
		argv[1] = buf;
		return 2;
	case 10:
		argv[0] = "-o";
		argv[1] = (char *)mntopts[v % N(mntopts)];
		return 2;
	default:
		if (big)
			return 0;
		argv[0] = "-O";
		argv[1] = (char *)features[(v * 256 + n) % N(features)];
		return 2;
	}
}

/* 1 if the e4tune arguments change a counter or time that decides
 * whether the routine full check is due. */
static int makes_check_due(char **argv, int argc)
{
	for (int k = 0; k < argc; k++)
		if (!strcmp(argv[k], "-c") || !strcmp(argv[k], "-C") || !strcmp(argv[k], "-i") ||
		    !strcmp(argv[k], "-T"))
			return 1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_image im;
	char *argv[16], buf[64] = "";
	int argc = 0, n;

	if (dev_fd < 0 || fz_image_load_fd(data, size, &im, dev_fd, -1))
		return 0;
	if (im.flags & FZ_F_CSUM)
		fz_fix_csums_path(dev_path);
	argv[argc++] = "e4tune";
	if (im.op[1] & 1)
		argv[argc++] = "-f";
	if (im.op[1] & 4)
		argv[argc++] = "-f";
	n = change(argv + argc, buf, sizeof(buf), im.op[0], im.op[1] >> 3, im.op[2],
		   im.size > FZ_BIG_DEVICE);
	if (n) {
		argc += n;
		if ((im.op[1] & 2) && strcmp(argv[argc - 1], "-l"))
			argv[argc++] = "-l";
		char *check[] = { "e4fsck", "-n", dev_path, NULL };
		int before, rc, after;

		argv[argc++] = dev_path;
		argv[argc] = NULL;
		before = e4fsck_run(3, check);
		rc = e4tune_run(argc, argv);
		/* -c, -C, -i and -T can make the routine full check due: the
		 * second e4fsck -n then runs passes 1 and 5, which may find
		 * damage the first (not due) never looked for (a CI finding:
		 * "-C 13720", then pass 1 exit 4) -- not e4tune's doing. */
		if (before == 0 && rc == 0 && !strstr(buf, "force_fsck") && !makes_check_due(argv, argc)) {
			after = e4fsck_run(3, check);
			if (after != 0) {
				dprintf(2, "fuzz_tune: e4fsck -n exited 0, then e4tune");
				for (int k = 1; k < argc - 1; k++)
					dprintf(2, " %s", argv[k]);
				dprintf(2, " 0, then e4fsck -n %d\n", after);
				abort();
			}
		}
	}
	(void)ftruncate(dev_fd, 0);
	return 0;
}
