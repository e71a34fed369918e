#!/bin/bash
# lib_alloc: libe4's allocation API (alloc.c) on reference-made images.
# Blocks and an inode marked in use without an owner must show up in the
# reference e2fsck -fn as exactly those bitmap differences and nothing
# else (no wrong group or superblock counts, no descriptor checksum
# errors); marking them free again leaves a clean filesystem; damaged
# free counts are recomputed to what e2fsck expects.  In the last set the
# goal's group is full up to the journal (blocks 32768-36896 on that
# layout): the search must skip to the first free run after it.
# Catches: an allocation that marks the bitmap but not the group's free count
# or descriptor checksum (e2fsck -fn reports more than the bitmap
# differences).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DEBUGFS"
need_helper alloc_drv
DRV=$HELPER

n=0
while IFS='|' read -r name opts goal count group want_blocks want_ino; do
	[ -n "$name" ] || continue
	img=$T/$name.img
	# shellcheck disable=SC2086
	"$REF_MKE2FS" -q -F $opts "$img" 256M >/dev/null 2>&1 || fail "$name: mke2fs failed"
	out=$("$DRV" "$img" take "$goal" "$count" "$group") || fail "$name: take failed: $out"
	got=$(ref_fsck_report "$img" | tr -s ' ' | tr '\n' ';')
	want=$(echo "Block bitmap differences: $want_blocks;Inode bitmap differences: $want_ino;" | tr -s ' ')
	[ "$got" = "$want" ] || fail "$name: after take, e2fsck -fn says [$got], expected [$want]"

	"$REF_MKE2FS" -q -F $opts "$img" 256M >/dev/null 2>&1 || fail "$name: mke2fs failed"
	"$DRV" "$img" roundtrip "$goal" "$count" "$group" >/dev/null || fail "$name: roundtrip failed"
	got=$(ref_fsck_report "$img")
	[ -z "$got" ] || fail "$name: after roundtrip, e2fsck -fn says: $got"

	# damage the counts through the reference debugfs, recount
	"$REF_DEBUGFS" -w -R "ssv free_blocks_count 17" "$img" >/dev/null 2>&1
	"$REF_DEBUGFS" -w -R "ssv free_inodes_count 17" "$img" >/dev/null 2>&1
	[ -n "$(ref_fsck_report "$img")" ] || fail "$name: the damaged counts went unnoticed by e2fsck"
	out=$("$DRV" "$img" recount) || fail "$name: recount failed"
	[ "$out" = "recount changed=1" ] || fail "$name: recount says $out"
	got=$(ref_fsck_report "$img")
	[ -z "$got" ] || fail "$name: after recount, e2fsck -fn says: $got"
	out=$("$DRV" "$img" recount) || fail "$name: second recount failed"
	[ "$out" = "recount changed=0" ] || fail "$name: second recount says $out"
	rm -f "$img"
	n=$((n + 1))
done <<'SETS'
ext4|-t ext4|100000|5000|3| -(100000--104999)| -6145
ext2|-t ext2|100000|5000|3| -(100000--104999)| -6145
ext4_uninit_1k|-t ext4 -O ^metadata_csum,uninit_bg -b 1024|100000|5000|3| -(100000--104999)| -6145
bigalloc|-t ext4 -O bigalloc -C 16384|100000|5000|3| -(100000--104992)| -12
ext4_4k_journal|-t ext4 -b 4096|32760|40|1| -(36897--36936)| -32769
SETS
info "$n images: marks, roundtrips and recounts as e2fsck expects"
