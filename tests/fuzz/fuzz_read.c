/*
 * fuzz_read.c: the read path.  Input: an image (fuzz.h container).  The
 * filesystem is opened as the tools open it, its superblock and
 * descriptors validated, its bitmaps loaded, then every inode reachable
 * from the root is read through the library's readers: directories
 * (linear, htree, inline: iterate, then look each name up again, hashed,
 * and resolve it with namei), extent trees (entries and map), block maps,
 * file data, inline data, symlinks, xattrs (in-inode, block, EA inodes),
 * plus the reserved inodes and the first ones of the table.
 *
 * Header flags: FZ_F_CSUM (fix checksums first); 0x02 catastrophic open
 * (no bitmaps); 0x04 open the backup superblock (op[0] picks 8193 with
 * 1 KiB blocks or 32768 with 4 KiB); 0x08 E4_OPEN_FIX_GEOMETRY; 0x10 walk
 * maps as stored (E4_ITER_AS_STORED); 0x20 E4_DIR_EMPTY; 0x40 read the
 * backup descriptor table of group 1 first.
 */
#include "fuzz.h"

void fz_target_init(void)
{
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_image im;
	int flags = 0;
	e4_blk_t sb = 0;
	unsigned bs = 0;
	e4_fs *fs;

	if (fz_image_load(data, size, &im, -1))
		return 0;
	if (im.flags & FZ_F_CSUM)
		fz_fix_csums(im.io);
	if (im.flags & 0x02)
		flags |= E4_OPEN_CATASTROPHIC | E4_OPEN_IGNORE_CSUM;
	if (im.flags & 0x04) {
		sb = im.op[0] & 1 ? 8193 : 32768;
		bs = im.op[0] & 1 ? 1024 : 4096;
	}
	if (im.flags & 0x08)
		flags |= E4_OPEN_FIX_GEOMETRY;
	if (fz_open(im.io, flags, sb, bs, &fs)) {
		fz_image_free(&im);
		return 0;
	}
	if (im.flags & 0x40)
		(void)e4_gdt_load_copy(fs, 1);
	if (!(flags & E4_OPEN_CATASTROPHIC))
		fz_check_groups(fs);
	fz_walk(fs, E4_ITER_META | (im.flags & 0x10 ? E4_ITER_AS_STORED : 0),
		im.flags & 0x20 ? E4_DIR_EMPTY : 0);
	(void)e4_close(fs);
	fz_image_free(&im);
	return 0;
}
