#!/bin/bash
# mkfs_discard: discard on image files is hole punching.  Over a file full
# of random bytes: by default the old data is gone (a free block reads as
# zeros), the file keeps only a few MiB allocated, and every group is
# ITABLE_ZEROED; with -E nodiscard the old bytes stay in free blocks, the
# inode tables are not flagged zeroed (lazy init) unless
# lazy_itable_init=0, in which case they are zeroed and flagged.  Every
# result is clean under the reference e2fsck -fn.
# Catches: inode tables flagged ITABLE_ZEROED under -E nodiscard although
# nothing zeroed them.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$E4_TESTDIR/t/mkfs_common.bash"

need_e4mkfs
need_oracle "$REF_E2FSCK" "$REF_DUMPE2FS" "$REF_DEBUGFS"

failed=()
img=$T/d.img
SIZE_MB=256

fresh() {
	rm -f "$img"
	head -c $((SIZE_MB * 1024 * 1024)) /dev/urandom >"$img"
}
# a block near the end of the filesystem is free after mkfs: its bytes
free_block_bytes() {
	local bs blocks
	bs=$("$REF_DUMPE2FS" -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
	blocks=$("$REF_DUMPE2FS" -h "$img" 2>/dev/null | sed -n 's/^Block count: *//p')
	"$REF_DEBUGFS" -R "testb $((blocks - 100))" "$img" 2>/dev/null | grepq 'not in use' ||
		{ echo "not-free"; return; }
	dd if="$img" bs="$bs" skip=$((blocks - 100)) count=1 status=none | tr -d '\0' | wc -c
}
zeroed_groups() {
	"$REF_DUMPE2FS" "$img" 2>/dev/null | grep '^Group [0-9]' | grep -c 'ITABLE_ZEROED'
}
groups() {
	"$REF_DUMPE2FS" "$img" 2>/dev/null | grep -c '^Group [0-9]'
}

fresh
"$E4MKFS" -q -F -t ext4 "$img" </dev/null || fail "e4mkfs failed"
fsck_clean "$img" || failed+=("default: $MKFS_WHY")
[ "$(free_block_bytes)" = 0 ] || failed+=("default: a free block still holds old data")
alloc_kb=$(du -k "$img" | cut -f1)
[ "$alloc_kb" -lt $((SIZE_MB * 1024 / 8)) ] || failed+=("default: $alloc_kb KiB still allocated")
[ "$(zeroed_groups)" = "$(groups)" ] || failed+=("default: not every group is ITABLE_ZEROED")

fresh
"$E4MKFS" -q -F -t ext4 -E nodiscard "$img" </dev/null || fail "e4mkfs -E nodiscard failed"
fsck_clean "$img" || failed+=("nodiscard: $MKFS_WHY")
[ "$(free_block_bytes)" -gt 0 ] || failed+=("nodiscard: the old data was erased")
[ "$(zeroed_groups)" = 0 ] || failed+=("nodiscard: groups flagged ITABLE_ZEROED with lazy init")

fresh
"$E4MKFS" -q -F -t ext4 -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 "$img" </dev/null ||
	fail "e4mkfs -E nodiscard,lazy_itable_init=0 failed"
fsck_clean "$img" || failed+=("nodiscard,lazy_itable_init=0: $MKFS_WHY")
[ "$(zeroed_groups)" = "$(groups)" ] || failed+=("lazy_itable_init=0: not every group is ITABLE_ZEROED")
# every inode table block reads as zeros except group 0's first ones
it=$("$REF_DUMPE2FS" "$img" 2>/dev/null | sed -n 's/^  Inode table at \([0-9]*\)-\([0-9]*\).*/\1 \2/p' | tail -1)
set -- $it
bs=$("$REF_DUMPE2FS" -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
nz=$(dd if="$img" bs="$bs" skip="$1" count=$(($2 - $1 + 1)) status=none | tr -d '\0' | wc -c)
[ "$nz" = 0 ] || failed+=("lazy_itable_init=0: the last inode table holds $nz non-zero bytes")

if [ ${#failed[@]} -gt 0 ]; then
	printf '  %s\n' "${failed[@]}" >&2
	fail "${#failed[@]} discard checks failed"
fi
info "discard checks passed"
exit 0
