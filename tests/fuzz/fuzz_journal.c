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
 * e4fsck resets it; 0x20 carry the journal's errno first; 0x40 first
 * write one transaction with the library's writer (jwrite.h), so that the
 * scan and recovery read what it wrote onto whatever log was there.
 * op[0] (with 0x40): bits 0-1 a checksum version, set if bit 2; bit 3 set
 * 64-bit tags, bit 4 clear them; bit 5 async commit; bit 6 no commit
 * block.  op[1] & 63: blocks logged (copies of the image's own blocks
 * 0, 7, 14, ... so some start with the jbd2 magic); op[2] & 15: revokes.
 */
#include "fuzz.h"
#include "jwrite.h"

#include <stdlib.h>
#include <string.h>

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

/* Flag 0x40: one transaction by the writer (see the file comment). */
static void write_txn(e4_io *io, const char *ext, const uint8_t op[3])
{
	struct e4_jwrite_opts o = { 0 };
	uint64_t nblocks;
	e4_jwrite *w;
	uint8_t *buf;
	e4_fs *fs;

	if (fz_open(io, E4_OPEN_RW, 0, 0, &fs))
		return;
	if (op[0] & 0x04) {
		o.flags = E4_JWRITE_SET_CSUM;
		o.csum_version = op[0] & 3;
	}
	if (op[0] & 0x08)
		o.set_incompat |= JBD2_FEATURE_INCOMPAT_64BIT;
	if (op[0] & 0x10)
		o.clear_incompat |= JBD2_FEATURE_INCOMPAT_64BIT;
	if (op[0] & 0x20)
		o.set_incompat |= JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT;
	o.commit_sec = 1;
	nblocks = e4_geom(fs)->blocks_count;
	if (nblocks && !e4_jwrite_open(fs, ext, &o, &w)) {
		unsigned bs = e4_journal_blocksize(e4_jwrite_journal(w));

		buf = calloc(1, bs);
		for (unsigned k = 0; buf && k < (op[1] & 63u); k++) {
			uint64_t blk = (k * 7ULL) % nblocks;

			if (e4_geom(fs)->block_size != bs ||
			    e4_io_read_blk(e4_fs_io(fs), blk, 1, buf))
				memset(buf, (int)k, bs);
			(void)e4_jwrite_add_block(w, blk, buf);
		}
		for (unsigned k = 0; k < (op[2] & 15u); k++)
			(void)e4_jwrite_add_revoke(w, k * 3ULL);
		(void)e4_jwrite_commit(w, op[0] & 0x40 ? E4_JWRITE_NO_COMMIT : 0);
		(void)e4_jwrite_close(w);
		free(buf);
	}
	(void)e4_close(fs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_image im;

	if (fz_image_load(data, size, &im, jfd))
		return 0;
	if (im.flags & FZ_F_CSUM)
		fz_fix_csums(im.io);
	if (im.flags & 0x40)
		write_txn(im.io, im.jsize && jfd >= 0 ? jpath : NULL, im.op);
	/* the header's flag bits 1-5 are fz_journal()'s */
	fz_journal(im.io, im.jsize && jfd >= 0 ? jpath : NULL, im.flags >> 1);
	fz_image_free(&im);
	return 0;
}
