#!/bin/bash
# fsck_gd_location: group descriptor locations are checked as the kernel
# checks them at mount (issue 11 item 4).  A bad location is corruption:
# e4fsck uses the backup copy of the descriptors when one has sound
# locations (the full check must rebuild the primary: exit 4), and stops
# before the journal when none has (exit 4); nothing is written, nothing is
# "relocated".  Images: 1 KiB blocks, descriptors edited with the reference
# debugfs (set_bg, checksum recomputed), primary table only.
#
#  case      fault                                         copy    -n -p -y
#  overlap   flex_bg, group 1's inode table at block 5      group 1  4  4  4
#            (on the reserved GDT blocks; inside the fs)
#  outgroup  no flex_bg, group 1's block bitmap in group 0  group 1  4  4  4
#  outside   group 1's inode bitmap past the end             group 1  4  4  4
#  onegroup  one group, inode table on the descriptor block  none     4  4  4
#
# Bugs caught: the old check looked only at "inside the filesystem", so
# overlap exited 0 ("clean") on an image the kernel refuses to mount, and
# onegroup read the journal inode from the bad table and -p/-y removed
# the journal; outside asked "Relocate? yes", did nothing and said
# "FILE SYSTEM WAS MODIFIED".

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_MKE2FS" "$REF_DEBUGFS"
export E2FSCK_CONFIG=/dev/null TZ=UTC

make_img() {	# make_img IMG SIZE FEATURES SET_BG_ARGS
	"$REF_MKE2FS" -q -F -t ext4 -b 1024 ${3:+-O "$3"} "$1" "$2" >/dev/null 2>&1 ||
		fail "mke2fs failed"
	printf 'set_bg %s\nset_bg %s checksum calc\n' "$4" "${4%% *}" |
		"$REF_DEBUGFS" -w -f - "$1" >/dev/null 2>&1 || fail "debugfs failed"
}

check() {	# check NAME IMG WANT_PATTERN...
	local name=$1 img=$2 mode rc out
	shift 2
	for mode in n p y; do
		cp "$img" "$T/run.img"
		runcap "$T/$name.$mode" 30 "$E4FSCK" -$mode "$T/run.img"
		rc=$(cat "$T/$name.$mode.rc")
		out=$(cat "$T/$name.$mode.out" "$T/$name.$mode.err")
		san_report "$T/$name.$mode.err" && fail "$name -$mode: sanitizer report"
		[ "$rc" = 4 ] || fail "$name -$mode: $(describe_rc "$rc"), expected 4: $out"
		for pat in "$@"; do
			grepq -e "$pat" <<<"$out" || fail "$name -$mode: no '$pat' in: $out"
		done
		grepq -E "Relocate|MODIFIED|journal has been removed" <<<"$out" &&
			fail "$name -$mode: claims a change: $out"
		cmp -s "$img" "$T/run.img" || fail "$name -$mode: the image changed"
	done
	return 0
}

img=$T/overlap.img
make_img "$img" 16M "" "1 inode_table 5"
check overlap "$img" "Group 1's inode table (block 5) overlaps a superblock or group descriptor copy" \
	"Using the group descriptor copy kept with group 1's backup superblock (block 8193)"

img=$T/outgroup.img
make_img "$img" 16M ^flex_bg "1 block_bitmap 300"
check outgroup "$img" "Group 1's block bitmap (block 300) lies outside its group (blocks 8193-16383)" \
	"Using the group descriptor copy"

img=$T/outside.img
make_img "$img" 16M "" "1 inode_bitmap 99999"
check outside "$img" "Group 1's inode bitmap (block 99999) lies outside the filesystem" \
	"Using the group descriptor copy"

img=$T/onegroup.img
make_img "$img" 4M "" "0 inode_table 2"
check onegroup "$img" "Group 0's inode table (block 2) overlaps a superblock or group descriptor copy" \
	"No copy of the group descriptors has sound locations; the full check must rebuild them"

info "descriptor locations: backup copy used or the run stopped, nothing written ($(elapsed)s)"
exit 0
