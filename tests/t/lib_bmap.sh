#!/bin/bash
# lib_bmap: libe4's whole-filesystem bitmap maps (bmap.h over bitmap.c) on
# images made by the reference mke2fs and by e4mkfs, in both backends.
#  - Loading agrees with the per-group reader bit for bit (BLOCK_UNINIT and
#    INODE_UNINIT groups synthesised) and with every group's free counts
#    as the formatter wrote them; the two backends load the same map.
#  - Storing an unchanged map writes nothing; storing it with every
#    bitmap rewritten (E4_BMAP_STORE_ALL) leaves the image byte-identical
#    (padding and checksums as the formatter wrote them).
#  - Clusters and an inode marked through a map and stored show up in the
#    reference e2fsck -fn as exactly those bitmap differences; clearing
#    them again leaves a clean filesystem, also where the goal group was
#    BLOCK_UNINIT / INODE_UNINIT (now initialised, bitmap exact) and where
#    the run reaches the short last group (bigalloc, meta_bg, 64bit,
#    uninit_bg without metadata_csum, ext2).
#  - Bitmaps whose checksums were damaged fail a strict load, naming the
#    groups; a relaxed load stored back rewrites them and the reference
#    finds the filesystem clean.
# Catches: a store that rewrites a BLOCK_UNINIT group's bitmap but keeps
# the flag, or writes bitmap padding wrong (the e2fsck report or the
# byte-identical check fails).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$E4_TESTDIR/t/mkfs_common.bash"

need_e4mkfs
need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DEBUGFS"
need_cmd sha256sum
mkfs_debian_conf
need_helper bmap_drv
DRV=$HELPER

sum() { sha256sum <"$1" | cut -d' ' -f1; }

n=0
while IFS='|' read -r name tool size opts kind goal count group want_blocks want_ino; do
	[ -n "$name" ] || continue
	img=$T/$name.img
	# shellcheck disable=SC2086
	if [ "$tool" = ref ]; then mk_ref "$img" "$size" $opts; else mk_e4 "$img" "$size" $opts; fi ||
		fail "$name: $tool mkfs failed: $(cat "$img".*out)"
	ref_clean "$img" || fail "$name: the new image is not clean: $REF_CLEAN_OUT"

	out=$("$DRV" "$img" check 2>&1) || fail "$name: check: $out"
	verbose "$name: $out"
	s0=$(sum "$img")
	out=$("$DRV" "$img" store "$kind" 2>&1) || fail "$name: store: $out"
	[ "$(sum "$img")" = "$s0" ] || fail "$name: storing an unchanged map changed the image"
	out=$("$DRV" "$img" store "$kind" all 2>&1) || fail "$name: store all: $out"
	[ "$(sum "$img")" = "$s0" ] ||
		fail "$name: rewriting every bitmap did not give the formatter's bytes back"

	out=$("$DRV" "$img" take "$kind" "$goal" "$count" "$group" 2>&1) || fail "$name: take: $out"
	read -r _ first _ _ ino <<<"$out"
	got=$(ref_fsck_report "$img" | tr -s ' ' | tr '\n' ';')
	want=$(echo "Block bitmap differences: $want_blocks;Inode bitmap differences: $want_ino;" |
		tr -s ' ')
	[ "$got" = "$want" ] || fail "$name: after take ($out), e2fsck -fn says [$got], expected [$want]"
	out=$("$DRV" "$img" check 2>&1) || fail "$name: check after take: $out"
	out=$("$DRV" "$img" give "$kind" "$first" "$count" "$ino" 2>&1) || fail "$name: give: $out"
	ref_clean "$img" || fail "$name: after give, e2fsck -fn says: $REF_CLEAN_OUT"
	out=$("$DRV" "$img" check 2>&1) || fail "$name: check after give: $out"

	if [[ "$opts" = *"-t ext4"* && "$opts" != *"^metadata_csum"* ]]; then
		# group 0's bitmaps are initialised on every layout here; the
		# descriptor's own checksum is recomputed
		printf 'set_bg 0 block_bitmap_csum 0x1234\nset_bg 0 inode_bitmap_csum 0x1234\n%s\n' \
			'set_bg 0 checksum calc' >"$T/csum.cmds"
		"$REF_DEBUGFS" -w -n -f "$T/csum.cmds" "$img" >/dev/null 2>&1
		[ -n "$(ref_fsck_report "$img")" ] || fail "$name: the damaged checksums went unnoticed"
		out=$("$DRV" "$img" csum 2>&1) || fail "$name: csum: $out"
		want=$'bad block groups: 0\nbad inode groups: 0'
		[ "$out" = "$want" ] || fail "$name: csum says [$out], expected [$want]"
		ref_clean "$img" || fail "$name: after the checksum rewrite, e2fsck -fn says: $REF_CLEAN_OUT"
	fi
	rm -f "$img" "$img".*
	n=$((n + 1))
done <<'SETS'
ext4_1k|ref|64M|-t ext4 -b 1024|runs|48000|3000|4| -(48000--50999)| -8193
ext4_1k_e4|e4|64M|-t ext4 -b 1024|flat|48000|3000|4| -(48000--50999)| -8193
ext2|ref|64M|-t ext2 -b 1024|runs|30000|5000|5| -(33283--38282)| -10241
uninit_bg|ref|64M|-t ext4 -O ^metadata_csum,uninit_bg -b 1024|flat|41500|3000|5| -(41500--44499)| -10241
bigalloc|ref|128M|-t ext4 -b 1024 -O bigalloc -C 4096|runs|40000|500|1| -(40000--41996)| -8193
meta_bg_e4|e4|96M|-t ext4 -b 1024 -O meta_bg,^resize_inode|runs|57000|9000|8| -(57346--66345)| -16385
short_last_e4|e4|100M|-t ext4 -b 4096 -g 4096 -N 3000|flat|24000|1600|4| -(24000--25599)| -1729
SETS
info "$n images: loads, stores, marks and checksum rewrites as e2fsck expects"
