#!/bin/bash
# tune_convert: ext2 -> ext4 (e4tune issue, acceptance 1).  An ext2 image
# from the reference mke2fs, filled through a kernel mount with the test
# tree (tests/gentree.py), converted with
#   e4tune -O extents,uninit_bg,dir_index,huge_file,dir_nlink,extra_isize
# (and again with -j added): clean (the reference e2fsck -fn: exit 0 and no
# message; one e2fsck -fy first if the conversion left work, reported);
# the kernel mounts it as ext4 and the tree reads back identical; a file
# written afterwards has EXTENTS in the reference debugfs's stat; clean
# again.  Then, on the converted image, the offline toggles one by one
# (^uninit_bg uninit_bg ^dir_index dir_index ^dir_nlink dir_nlink
# ^extra_isize extra_isize large_dir stable_inodes): clean after each, and
# the kernel reads the same tree at the end.
# Catches: a conversion that sets uninit_bg without the descriptors'
# checksums and unused-inode counts (the reference -fn is not clean).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4tune
need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DEBUGFS" "$PYTHON"
need_root_loop

mnt=$T/mnt
mkdir -p "$mnt"
base=$T/base.img
"$REF_MKE2FS" -q -F -t ext2 "$base" 96M >/dev/null 2>&1 || fail "mke2fs failed"
mount_loop "$base" "$mnt" || fail "cannot mount the ext2 image"
"$PYTHON" "$GENTREE" gen "$mnt" --no-special --bigdir 600 >"$T/gen.log" 2>&1 ||
	fail "gentree failed: $(tail -3 "$T/gen.log")"
"$PYTHON" "$GENTREE" list "$mnt" --no-atime >"$T/before.list"
umount_retry "$mnt"
ref_clean "$base" || fail "the ext2 image is not clean before the conversion"

for variant in plain journal; do
	img=$T/$variant.img
	cp --sparse=always "$base" "$img"
	args=(-O extents,uninit_bg,dir_index,huge_file,dir_nlink,extra_isize)
	[ $variant = journal ] && args+=(-j)
	"$E4TUNE" "${args[@]}" "$img" >"$T/tune.out" 2>&1 ||
		fail "$variant: e4tune failed: $(cat "$T/tune.out")"
	if ! ref_clean "$img"; then
		info "$variant: not clean after the conversion; e2fsck -fy once"
		"$REF_E2FSCK" -fy "$img" >"$T/fy.out" 2>&1
		ref_clean "$img" || fail "$variant: not clean even after e2fsck -fy: $(head -20 "$T/fy.out")"
	fi
	feats=$("$REF_DUMPE2FS" -h "$img" 2>/dev/null | grep '^Filesystem features:')
	for f in extent uninit_bg dir_index huge_file dir_nlink extra_isize; do
		echo "$feats" | grepq -w "$f" || fail "$variant: feature $f missing: $feats"
	done
	if [ $variant = journal ]; then
		echo "$feats" | grepq -w has_journal || fail "journal: has_journal missing"
	fi
	mount_loop "$img" "$mnt" || fail "$variant: the kernel does not mount the converted image"
	grep -q " $mnt ext4 " /proc/mounts || fail "$variant: not mounted as ext4"
	"$PYTHON" "$GENTREE" list "$mnt" --no-atime >"$T/after.list"
	diff "$T/before.list" "$T/after.list" >"$T/d" ||
		fail "$variant: the tree differs after the conversion: $(head -5 "$T/d")"
	head -c 300000 /dev/urandom >"$mnt/newfile"
	umount_retry "$mnt"
	"$REF_DEBUGFS" -R "stat /newfile" "$img" 2>/dev/null >"$T/stat"
	grep -q '^EXTENTS:' "$T/stat" || fail "$variant: a new file has no EXTENTS: $(head -5 "$T/stat")"
	ref_clean "$img" || fail "$variant: not clean after writing a new file"
	info "$variant: converted, clean, tree identical, new file has extents"
done

# the offline toggles on the converted image: clean after each, tree intact
img=$T/plain.img
mount_loop "$img" "$mnt" || fail "cannot mount the converted image"
"$PYTHON" "$GENTREE" list "$mnt" --no-atime >"$T/before.list"
umount_retry "$mnt"
for f in ^uninit_bg uninit_bg ^dir_index dir_index ^dir_nlink dir_nlink ^extra_isize \
	extra_isize large_dir stable_inodes; do
	"$E4TUNE" -O "$f" "$img" >"$T/tune.out" 2>&1 || fail "-O $f failed: $(cat "$T/tune.out")"
	ref_clean "$img" || fail "not clean after -O $f"
done
mount_loop "$img" "$mnt" || fail "the kernel does not mount the image after the toggles"
"$PYTHON" "$GENTREE" list "$mnt" --no-atime >"$T/after.list"
umount_retry "$mnt"
diff "$T/before.list" "$T/after.list" >"$T/d" || fail "the tree differs after the toggles: $(head -5 "$T/d")"
info "toggles (uninit_bg, dir_index, dir_nlink, extra_isize off and on; large_dir, stable_inodes): clean after each, tree intact"
info "passed ($(elapsed)s)"
