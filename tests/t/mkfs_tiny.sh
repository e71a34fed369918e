#!/bin/bash
# mkfs_tiny: filesystems so small that rounding the inode count down to a
# multiple of 8 would leave fewer than first_ino + 1 inodes (100 KiB, 1 KiB
# blocks, 256-byte inodes: 12 inodes by the ratio, 8 after rounding).
# e4mkfs rounds up instead, as e2fsprogs 1.47.1 and later do (mke2fs
# 1.47.0 fails there: "Illegal inode number while writing reserved
# inodes"): 16 inodes in 4 inode table blocks; the image is clean for the
# reference e2fsck -fn and the kernel mounts it.  Catches the 1.47.0
# rounding (e4mkfs said "too small for a filesystem with these options").

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$E4_TESTDIR/t/mkfs_common.bash"

need_e4mkfs
need_oracle "$REF_E2FSCK" "$REF_DUMPE2FS"
failed=()
img=$T/tiny.img

# size|options|inodes
SETS='
100K|-t ext4 -b 1024 -I 256|16
100K|-t ext2 -b 1024 -I 256|16
64K|-t ext4|16
'
while IFS='|' read -r size opts want; do
	[ -n "$size" ] || continue
	# shellcheck disable=SC2086
	if ! mk_e4 "$img" "$size" $opts; then
		failed+=("$size $opts: e4mkfs failed: $(head -2 "$img.e4out" | tr '\n' ' ')")
		continue
	fi
	got=$("$REF_DUMPE2FS" -h "$img" 2>/dev/null | sed -n 's/^Inode count: *//p')
	[ "$got" = "$want" ] || failed+=("$size $opts: $got inodes, not $want")
	ref_clean "$img" || failed+=("$size $opts: e2fsck -fn: $(tr '\n' '|' <<<"$REF_CLEAN_OUT" | cut -c1-300)")
	kernel_mounts "$img" || failed+=("$size $opts: the kernel refuses it: $KMOUNT_OUT")
done <<<"$SETS"

if [ ${#failed[@]} -gt 0 ]; then
	printf '  %s\n' "${failed[@]}" >&2
	fail "${#failed[@]} tiny filesystems failed"
fi
info "tiny filesystems get first_ino + 1 inodes rounded up to 8, clean and mounted ($(elapsed) s)"
exit 0
