#!/bin/bash
# fsck_64bit_convert: one-group filesystems whose 64bit feature changed
# after mke2fs (issue 15 item 4: "a false alarm after ^64bit").
#
#  case       how                                            e4fsck -fn
#  shrink     mke2fs -O 64bit, resize2fs -s (descriptors      8, silent
#             rewritten at 32 bytes, s_desc_size 32)
#  grow       mke2fs -O ^64bit, resize2fs -b                  8, silent
#  flag_plain debugfs "feature ^64bit" without checksums      8, silent
#             (64-byte descriptors read as 32-byte ones;
#             s_desc_size stays 64, meaningless without 64bit)
#  flag_csum  the same with metadata_csum                     4, the
#             (each descriptor's checksum covered 64 bytes)   checksum said
#
# The reference e2fsck -fn is clean on the first three.  flag_csum is no
# false alarm: the kernel refuses to mount it read-write ("Checksum for
# group 0 failed", checked here); the reference says the checksum too, though it
# exits 0.  Bug caught: s_desc_size honoured without 64bit (planted: the
# checksum is then taken over the 64 bytes written, flag_csum is silent and
# the kernel refuses what e4fsck passed).  The first three guard against
# a false alarm coming back (none was found on this version: 2 sizes x 2
# block sizes x resize2fs -s/-b, and 60 more option sets tried by hand).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_E2FSCK" "$REF_MKE2FS" "$REF_DEBUGFS"
need_cmd resize2fs
export E2FSCK_CONFIG=/dev/null MKE2FS_CONFIG=$E4_TESTDIR/mke2fs-debian.conf

bad=()
# silent NAME IMG: the reference clean, e4fsck -fn exits 8 and says nothing
silent() {
	ref_clean "$2" || { bad+=("$1: the reference is not clean (premise): $(grep -v '^Pass\|^e2fsck' <<<"$REF_CLEAN_OUT" | head -2 | tr '\n' ' ')"); return; }
	runcap "$T/$1" 30 "$E4FSCK" -fn "$2"
	[ "$(cat "$T/$1.rc")" = 8 ] && ! grep -vqE '^Pass [1-5]: |^Passes? [2-4].* did not run|: [0-9]+/[0-9]+ files, ' "$T/$1.out" ||
		bad+=("$1: exit $(cat "$T/$1.rc"): $(grep -v '^Pass' "$T/$1.out" | head -2 | tr '\n' ' ')")
}

for bs in 1024 4096; do
	img=$T/shrink$bs.img
	"$REF_MKE2FS" -q -F -t ext4 -O 64bit -b $bs "$img" 8M >/dev/null 2>&1 || fail "mke2fs failed"
	resize2fs -s "$img" >/dev/null 2>&1 || fail "resize2fs -s failed"
	silent shrink$bs "$img"
	img=$T/grow$bs.img
	"$REF_MKE2FS" -q -F -t ext4 -O ^64bit -b $bs "$img" 8M >/dev/null 2>&1 || fail "mke2fs failed"
	resize2fs -b "$img" >/dev/null 2>&1 || fail "resize2fs -b failed"
	"$REF_DEBUGFS" -R features "$img" 2>/dev/null | grepq 64bit || fail "grow$bs: no 64bit"
	silent grow$bs "$img"
done

img=$T/plain.img
"$REF_MKE2FS" -q -F -t ext4 -O 64bit,^metadata_csum,^uninit_bg -b 4096 "$img" 8M >/dev/null 2>&1 ||
	fail "mke2fs failed"
"$REF_DEBUGFS" -w -R "feature ^64bit" "$img" >/dev/null 2>&1
silent flag_plain "$img"

img=$T/csum.img
"$REF_MKE2FS" -q -F -t ext4 -O 64bit -b 4096 "$img" 8M >/dev/null 2>&1 || fail "mke2fs failed"
"$REF_DEBUGFS" -w -R "feature ^64bit" "$img" >/dev/null 2>&1
runcap "$T/flag_csum" 30 "$E4FSCK" -fn "$img"
[ "$(cat "$T/flag_csum.rc")" = 4 ] || bad+=("flag_csum: exit $(cat "$T/flag_csum.rc"), expected 4")
grepq "Group descriptor 0 fails its checksum" "$T/flag_csum.out" ||
	bad+=("flag_csum: the checksum not said: $(grep -v '^Pass' "$T/flag_csum.out" | head -2 | tr '\n' ' ')")
if [ "$(id -u)" = 0 ] && [ -e /dev/loop-control ]; then
	# the report is real: the kernel refuses it read-write (a read-only
	# mount only warns); on a copy, as a mount writes
	cp "$img" "$T/rw.img"
	mkdir -p "$T/mnt"
	if mount -t ext4 -o loop "$T/rw.img" "$T/mnt" 2>/dev/null; then
		umount_retry "$T/mnt"
		bad+=("flag_csum: the kernel mounts it read-write: the report would be a false alarm")
	fi
fi

[ ${#bad[@]} = 0 ] || fail "$(printf '%s; ' "${bad[@]}")"
info "64bit turned off or on: no false alarm; a stale descriptor checksum the kernel refuses is said ($(elapsed)s)"
exit 0
