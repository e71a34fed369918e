#!/bin/bash
# fsck_resize_padding: the resize inode is checked in depth (issue 15
# item 1) and the bits of a bitmap block past its group's end are set
# (item 2).
#
# Resize inode (format doc 1.4): i_block holds only the double-indirect
# block, which lists each primary reserved GDT block in order; each of
# those lists its copies in the groups with a superblock backup; i_size
# and i_blocks are those of that map.  One that is not: -n says "Resize
# inode not valid", exit 4, image unchanged; -p stops (exit 4, unchanged
# but for f_dup_resize's group counts, as the reference: not preen-ok);
# -y clears it and rebuilds it through the library after the full check
# (exit 1): the reference e2fsck -fn is clean, the kernel mounts it, a
# second -fy finds nothing (exit 8).
#  dup: corpus f_dup_resize (a file written over reserved GDT blocks 4-7).
#  rand: 10 MiB ext4 (1 KiB blocks, 2 groups), reserved GDT block 5
#  overwritten with seeded random bytes.
#  iblocks: the same image with inode 7's i_blocks 316 instead of 318
#  (the reference: "Inode 7, i_blocks is 316, should be 318").
# Bug caught: the resize inode's map was never read: our -fy exited 1 and
# the reference then said "Resize inode not valid. Recreate?".
#
# Padding: the bits of a bitmap block past its group's end are
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
need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DEBUGFS"
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

# resize NAME IMG: -n, -p (both exit 4, unchanged), -y (exit 1, then the
# reference clean and a second -fy exit 8)
resize() {
	local name=$1 img=$2 mode
	for mode in n p; do
		cp "$img" "$T/$name.$mode.img"
		fsck_run "$name.$mode" 4 -f$mode "$T/$name.$mode.img"
		grepq -F "Resize inode not valid" "$T/$name.$mode.out" ||
			fail "$name -f$mode: the resize inode is not reported: $(head -5 "$T/$name.$mode.out")"
		# (f_dup_resize's group counts are preen-fixed before the full check)
		[ "$mode-$name" = p-dup ] || cmp -s "$img" "$T/$name.$mode.img" ||
			fail "$name -f$mode: the image changed"
	done
	cp "$img" "$T/$name.y.img"
	fsck_run "$name.y" 1 -fy "$T/$name.y.img"
	grepq -F "Resize inode not valid" "$T/$name.y.out" ||
		fail "$name -fy: the resize inode is not reported"
	ref_clean "$T/$name.y.img" || fail "$name -fy: the reference is not clean: $REF_CLEAN_OUT"
	fsck_run "$name.y.2" 8 -fy "$T/$name.y.img"
}

dup=$(corpus_unpack fsck/f_dup_resize.img.gz) || fail "cannot unpack f_dup_resize"
E2FSCK_TIME=1113200000 resize dup "$dup"

"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$T/rz.img" 10240 >/dev/null 2>&1 || fail "mke2fs failed"
python3 -c 'import random, sys
r = random.Random(15)
sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(1024)))' >"$T/rand.bin"
cp "$T/rz.img" "$T/rand.img"
dd if="$T/rand.bin" of="$T/rand.img" bs=1024 seek=5 conv=notrunc status=none
resize rand "$T/rand.img"

cp "$T/rz.img" "$T/iblocks.img"
"$REF_DEBUGFS" -w -R "sif <7> blocks 316" "$T/iblocks.img" >/dev/null 2>&1 ||
	fail "debugfs failed"
ref_out=$("$REF_E2FSCK" -fn "$T/iblocks.img" 2>&1)
grepq -F "Inode 7, i_blocks is 316, should be 318" <<<"$ref_out" ||
	fail "iblocks: the reference does not see the planted i_blocks"
resize iblocks "$T/iblocks.img"
