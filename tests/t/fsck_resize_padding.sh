#!/bin/bash
# fsck_resize_padding: the bits of a bitmap block past its group's end are
# set (issue 15 item 2; format doc 5): the last group's block bitmap past
# the end of the filesystem, every group's inode bitmap past
# inodes_per_group, up to the end of the bitmap block.
#
#  image: 4000 KiB ext4 without metadata_csum, 1 KiB blocks (one group of
#  3999 blocks and 1000 inodes; block bitmap at 34, inode bitmap at 50).
#  block: bytes 512-1023 of the block bitmap zeroed (blocks 4097-8192,
#  past the end): -n says "Padding at end of block bitmap is not set",
#  exit 4, image unchanged; -fp and -fy fix it (exit 1), the reference
#  e2fsck -fn is clean afterwards, the kernel mounts it, and a second -fy
#  finds nothing (exit 8: the full check never says clean yet).
#  inode: the same with bytes 512-1023 of the inode bitmap.
#
# Bug caught: pass 5 loaded the bitmaps without their padding and said
# nothing (exit 8) where the reference says "Padding at end of block
# bitmap is not set. Fix? no" and exits 4.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_MKE2FS" "$REF_E2FSCK"
export E2FSCK_CONFIG=/dev/null TZ=UTC

"$REF_MKE2FS" -q -F -t ext4 -O ^metadata_csum -b 1024 "$T/base.img" 4000 >/dev/null 2>&1 ||
	fail "mke2fs failed"

# padding NAME BLOCK WHAT: the base image with bytes 512-1023 of BLOCK
# zeroed, through -n, -fp, -fy
padding() {
	local name=$1 blk=$2 what=$3 mode
	cp "$T/base.img" "$T/$name.img"
	dd if=/dev/zero of="$T/$name.img" bs=1 seek=$((blk * 1024 + 512)) count=512 \
		conv=notrunc status=none
	cp "$T/$name.img" "$T/$name.n.img"
	fsck_run "$name.n" 4 -fn "$T/$name.n.img"
	grepq -F "Padding at end of $what bitmap is not set." "$T/$name.n.out" ||
		fail "$name -n: the padding is not reported: $(cat "$T/$name.n.out")"
	cmp -s "$T/$name.img" "$T/$name.n.img" || fail "$name -n: the image changed"
	for mode in p y; do
		cp "$T/$name.img" "$T/$name.$mode.img"
		fsck_run "$name.$mode" 1 -f$mode "$T/$name.$mode.img"
		grepq -F "Padding at end of $what bitmap is not set." "$T/$name.$mode.out" ||
			fail "$name -f$mode: the padding is not reported"
		ref_clean "$T/$name.$mode.img" ||
			fail "$name -f$mode: the reference is not clean: $REF_CLEAN_OUT"
		fsck_run "$name.$mode.2" 8 -fy "$T/$name.$mode.img"
	done
}

padding block 34 block
padding inode 50 inode
