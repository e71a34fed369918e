/*
 * fuzz_fsck.c: e4fsck on a damaged image.  The tool's whole run
 * (e4fsck_run(): open with the backup-superblock search, descriptors,
 * journal checks and replay, orphans, superblock checks, the close) on a
 * command line chosen by the input, as many times as libFuzzer likes in
 * one process: e4fsck_run() returns its exit status and leaves nothing
 * open.  The image is a memory file (memfd) that e4fsck opens by its
 * path, /proc/self/fd/N, as often as it wants (reopens after a replay,
 * backups); an external journal (the container's second device) is a
 * second one, given with -j.
 *
 * Input: the image (fuzz.h container).  Header flags: FZ_F_CSUM.  op[0]:
 * bit 0 -y (else -n), bit 1 -p (instead of -n/-y), bit 2 -f, bit 3
 * -E journal_only, bit 4 -v, bits 5-6 -b: none, 8193, 32768 -B 4096, 0.
 * A run with -y or -p (without -b or journal_only) that exits 0 or 1 is
 * followed by one with -n, which must exit 0 or 8 (with -f: 8, the
 * full check finding nothing while its checks are not complete): a repair counted as
 * done was written, and "clean" was said of a filesystem e4fsck finds
 * clean (GUIDE.md: never claim what was not done).  Otherwise abort(): a
 * finding.
 * The clock is fixed (E4FSCK_TIME): the run must not depend on it.
 */
#define main e4fsck_main
#include "../../fsck/main.c"
#undef main

#include "fuzz.h"

static int dev_fd = -1, jdev_fd = -1;
static char dev_path[64], jdev_path[64];

void fz_target_init(void)
{
	dev_fd = fz_device("e4fuzz-fsck", dev_path, sizeof(dev_path));
	jdev_fd = fz_device("e4fuzz-fsck-journal", jdev_path, sizeof(jdev_path));
	setenv("E4FSCK_TIME", "1700000000", 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_image im;
	char *argv[16];
	int argc = 0, rc, rc2;
	unsigned op;

	if (dev_fd < 0 || fz_image_load_fd(data, size, &im, dev_fd, jdev_fd))
		return 0;
	if (im.flags & FZ_F_CSUM)
		fz_fix_csums_path(dev_path);
	op = im.op[0];
	argv[argc++] = "e4fsck";
	argv[argc++] = op & 2 ? "-p" : op & 1 ? "-y" : "-n";
	if (op & 4)
		argv[argc++] = "-f";
	if (op & 8) {
		argv[argc++] = "-E";
		argv[argc++] = "journal_only";
	}
	if (op & 16)
		argv[argc++] = "-v";
	switch ((op >> 5) & 3) {
	case 1:
		argv[argc++] = "-b";
		argv[argc++] = "8193";
		break;
	case 2:
		argv[argc++] = "-b";
		argv[argc++] = "32768";
		argv[argc++] = "-B";
		argv[argc++] = "4096";
		break;
	case 3:
		argv[argc++] = "-b";
		argv[argc++] = "0";
		break;
	}
	if (im.jsize && jdev_fd >= 0) {
		argv[argc++] = "-j";
		argv[argc++] = jdev_path;
	}
	argv[argc++] = dev_path;
	argv[argc] = NULL;
	rc = e4fsck_run(argc, argv);
	if ((op & 3) && !(op & 0x68) && (rc == FSCK_OK || rc == FSCK_NONDESTRUCT)) {
		/* "clean" or "corrected": what was repaired is written, and
		 * a read-only check right after finds nothing left */
		argv[1] = "-n";
		rc2 = e4fsck_run(argc, argv);
		/* without -f, 8 too: a full check the first run made (due for
		 * damage) leaves the recorded error state as it is in this
		 * version (e4fsck(8) LIMITATIONS), so the second one runs it
		 * again, finds nothing and does not declare it clean */
		if (rc2 != FSCK_ERROR && (op & 4 || rc2 != FSCK_OK)) {
			dprintf(2, "fuzz_fsck: %s exited %d, then -n %d\n", op & 2 ? "-p" : "-y",
				rc, rc2);
			abort();
		}
	}
	/* the pages go back: the next input starts from an empty file */
	(void)ftruncate(dev_fd, 0);
	if (jdev_fd >= 0)
		(void)ftruncate(jdev_fd, 0);
	return 0;
}
