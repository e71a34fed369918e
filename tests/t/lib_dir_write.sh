#!/bin/bash
# lib_dir_write: libe4's directory writing (dir_write.h) at scale, through
# tests/helpers/dir_drv, on images made by the reference mke2fs (fixed UUID
# and hash seed).  Per image: 20,000 names inserted one by one into /d
# (hard links to one regular file), a third of them removed, then /b built
# in one pass (e4_dir_build) from all 20,000; the file's link count set to
# match.  Then:
#  - the reference e2fsck -fn is clean;
#  - the reference debugfs ls lists /d and /b exactly as expected and its
#    htree dump shows the index depth expected (2 levels: root + nodes);
#  - the kernel (read-only loop mount) lists both exactly and finds 1,000
#    random names by path, and no removed one.
# Sets: ext4 1 KiB and 4 KiB (metadata_csum, extents), ext3 1 KiB (block
# map through the double indirect block), ext4 2 KiB without
# metadata_csum; ext2 without dir_index with 5,000 names (linear: every
# insert scans the directory).  Prints the insert times.
# Catches: an index node split keyed with the wrong hash, or a bulk-built
# leaf keyed above its first hash (e2fsck -fn reports the index; the names
# become unreachable by hash); a leaf split that puts the new leaf's index
# entry out of hash order (the next insert finds the index corrupt).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$E4_TESTDIR/t/mkfs_common.bash"

need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DEBUGFS"
need_cmd shuf
need_root_loop
mkfs_debian_conf
need_helper dir_drv
DRV=$HELPER

# debugfs_names IMG DIR: the names debugfs ls -p lists (unused records,
# "." and ".." left out), sorted
debugfs_names() {
	"$REF_DEBUGFS" -R "ls -p $2" "$1" 2>/dev/null |
		awk -F/ 'NF >= 7 && $2 != "0" && $6 != "." && $6 != ".." { print $6 }' | sort
}

secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

SETS='ext4_1k|-t ext4 -b 1024|20000|8|80|1
ext4_4k|-t ext4 -b 4096|20000|60|180|1
ext3_1k|-t ext3 -b 1024|20000|8|80|1
ext4_2k_nocsum|-t ext4 -b 2048 -O ^metadata_csum|20000|8|40|1
ext2_linear|-t ext2 -O ^dir_index -b 4096|5000|8|80|-'

n=0
while IFS='|' read -r name opts count lo hi levels; do
	[ -n "$name" ] || continue
	img=$T/$name.img
	# shellcheck disable=SC2086
	mk_ref "$img" 96M -N 64 $opts || fail "$name: mke2fs failed: $(cat "$img.refout")"
	"$REF_DEBUGFS" -w -R "mkdir d" "$img" >/dev/null 2>&1
	"$REF_DEBUGFS" -w -R "write /dev/null f" "$img" >/dev/null 2>&1
	ino=$("$REF_DEBUGFS" -R "stat /f" "$img" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
	[ -n "$ino" ] || fail "$name: debugfs did not make /f"

	"$DRV" names "$count" "$lo" "$hi" 20240613 >"$T/names" || fail "$name: no names"
	awk 'NR % 3 == 0' "$T/names" >"$T/removed"
	awk 'NR % 3 != 0' "$T/names" | sort >"$T/d.want"
	sort "$T/names" >"$T/b.want"

	t0=$(date +%s.%N)
	out=$("$DRV" "$img" insert /d "$ino" 1 <"$T/names" 2>&1) || fail "$name: insert: $out"
	t1=$(date +%s.%N)
	out=$("$DRV" "$img" remove /d <"$T/removed" 2>&1) || fail "$name: remove: $out"
	out=$("$DRV" "$img" build / b "$ino" 1 20 <"$T/names" 2>&1) || fail "$name: build: $out"
	t2=$(date +%s.%N)
	links=$(($(wc -l <"$T/d.want") + count + 1))
	"$DRV" "$img" links "$ino" "$links" || fail "$name: links"

	ref_clean "$img" || fail "$name: e2fsck -fn is not clean: $REF_CLEAN_OUT"
	for d in d b; do
		debugfs_names "$img" /$d | cmp -s - "$T/$d.want" ||
			fail "$name: debugfs ls /$d differs: $(debugfs_names "$img" /$d | diff - "$T/$d.want" | head -5)"
		if [ "$levels" != - ]; then
			got=$("$REF_DEBUGFS" -R "htree /$d" "$img" 2>/dev/null | sed -n 's/^[[:space:]]*Indirect levels: //p' | head -1)
			[ "$got" = "$levels" ] || fail "$name: /$d has indirect levels '$got', expected $levels"
		fi
	done

	mnt=$T/mnt.$name
	mount_loop "$img" "$mnt" ro || fail "$name: the kernel refuses the image"
	for d in d b; do
		ls -f "$mnt/$d" | grep -v -x -e . -e .. | sort | cmp -s - "$T/$d.want" ||
			fail "$name: the kernel lists /$d otherwise"
	done
	missing=0
	while read -r nm; do
		[ -e "$mnt/d/$nm" ] || missing=$((missing + 1))
		[ -e "$mnt/b/$nm" ] || missing=$((missing + 1))
	done < <(shuf -n 1000 --random-source=<(yes) "$T/d.want")
	[ $missing = 0 ] || fail "$name: the kernel does not find $missing names by path"
	while read -r nm; do
		[ ! -e "$mnt/d/$nm" ] || fail "$name: the kernel finds removed $nm"
	done < <(head -200 "$T/removed")
	umount_retry "$mnt"
	rm -f "$img"
	info "$name: $count inserted in $(secs "$t0" "$t1") s; a third removed and /b built in $(secs "$t1" "$t2") s"
	n=$((n + 1))
done <<<"$SETS"
info "$n images: clean, listed and found as expected"
