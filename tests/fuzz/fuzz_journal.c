/*
 * fuzz_journal.c: the journal.  Input: an image (fuzz.h container; chunks
 * of the second device are an external journal).  The filesystem is
 * opened read-write, its journal opened (internal, or the external device
 * through a memory file), the log scanned with a listing callback as
 * logdump walks it, then replayed or fully recovered into the image (scan,
 * revoke and replay passes, superblocks updated), and the result opened
 * again: the filesystem, its journal, a second scan, the root directory.
 *
 * Header flags: FZ_F_CSUM (fix the filesystem's checksums first); 0x02
 * E4_JOPEN_IGNORE_CSUM; 0x04 E4_JSCAN_VERIFY_TAGS; 0x08 replay only
 * (e4_journal_replay) instead of e4_journal_recover; 0x10 a journal whose
 * superblock is refused is opened raw and given a fresh superblock, as
 * e4fsck resets it; 0x20 carry the journal's errno first.
 */
#include "fuzz.h"

#include <stdio.h>
#include <sys/mman.h>

static int jfd = -1;
static char jpath[64];

void fz_target_init(void)
{
	jfd = memfd_create("e4fuzz-journal", 0);
	if (jfd >= 0)
		snprintf(jpath, sizeof(jpath), "/proc/self/fd/%d", jfd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_image im;

	if (fz_image_load(data, size, &im, jfd))
		return 0;
	if (im.flags & FZ_F_CSUM)
		fz_fix_csums(im.io);
	/* the header's flag bits 1-5 are fz_journal()'s */
	fz_journal(im.io, im.jsize && jfd >= 0 ? jpath : NULL, im.flags >> 1);
	fz_image_free(&im);
	return 0;
}
