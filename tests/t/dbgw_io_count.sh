#!/bin/bash
# dbgw_io_count: what one small e4debugfs -w command costs in writes and
# fdatasyncs (issue 13), so that redundant writes do not creep back.  On
# a fresh ext4 image (4 KiB blocks, one group) each command runs alone in
# a new process; the crash-point layer's traces count the block writes
# that reach the device (E4_CRASH_TRACE), those of the primary superblock
# among them (offset 0 of block 0), and the fdatasyncs with something to
# make durable (E4_SYNC_TRACE).  Each must stay within the bound below
# (the counts measured when the test was written; lower is welcome).
#
# Measured: before the change that stopped writing the superblock's free
# counts at each ordering point inside an operation (they may lag while
# the superblock says not clean: DESIGN.md "What a stop may leave"),
# `write` of a 5-byte file made 13 writes, the superblock 4 times (mkdir
# 12 and 3, symlink 8 and 3, rm 13 and 4); after it 11 and 2 (mkdir 11,
# symlink 7, rm 11: the superblock twice, marked not clean first, clean
# with the counts last); with the change reverted this test fails 10
# checks.  The
# two fdatasyncs are needed: everything durable before the superblock
# says clean, then that superblock.
# On 256 groups (16 descriptor blocks), each ordering point rewrote the
# whole primary descriptor table: `write` made 41 writes (mkdir 26, rm
# 41); since only the changed descriptor blocks are written, 11 each.
# rm of a file without extended attributes went through the attribute
# writer's commit anyway (two ordering points, the inode and the
# descriptors written once more): 11 writes, now 9.
# Catches: the superblock (or any block) written again at every ordering
# point; the whole descriptor table rewritten for one group's change; an
# extra fdatasync per step.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_MKE2FS" "$REF_E2FSCK"
need_e4debugfs

img=$T/a.img
"$REF_MKE2FS" -q -F -t ext4 -b 4096 -U 3b5e6a4c-1d2e-4f30-8a9b-0c1d2e3f4a5b \
	-E hash_seed=5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d "$img" 32M >/dev/null 2>&1 ||
	fail "mke2fs failed"
printf 'hello' >"$T/small"
"$E4DEBUGFS" -w -R "mkdir d" "$img" >/dev/null 2>&1 || fail "setup mkdir failed"

failed=()
# COMMAND|max writes|max superblock writes|max syncs
while IFS='|' read -r cmd maxw maxsb maxs; do
	rm -f "$T/tr" "$T/sy"
	E4_CRASH_TRACE=$T/tr E4_SYNC_TRACE=$T/sy "$E4DEBUGFS" -w -R "$cmd" "$img" \
		>/dev/null 2>"$T/err" || failed+=("$cmd: exit $?: $(head -1 "$T/err")")
	w=$(cat "$T/tr" 2>/dev/null | wc -l)
	sb=$(awk '$1 < 4096 && $1 + $2 > 1024' "$T/tr" 2>/dev/null | wc -l)
	s=$(cat "$T/sy" 2>/dev/null | wc -l)
	info "$cmd: $w writes ($sb of the superblock), $s fdatasyncs"
	[ "$w" -le "$maxw" ] || failed+=("$cmd: $w writes, at most $maxw")
	[ "$sb" -le "$maxsb" ] || failed+=("$cmd: the superblock written $sb times, at most $maxsb")
	[ "$s" -le "$maxs" ] || failed+=("$cmd: $s fdatasyncs, at most $maxs")
	[ "$w" -gt 0 ] && [ "$s" -gt 0 ] || failed+=("$cmd: nothing traced")
done <<EOF
write $T/small f|11|2|2
write $T/small d/g|11|2|2
mkdir d/e|11|2|1
symlink d/s /tmp/x|7|2|1
rm f|9|2|1
EOF
ref_clean "$img" || failed+=("not clean: $(grep -vE '^e2fsck|^Pass' <<<"$REF_CLEAN_OUT" | head -2 | tr '\n' ' ')")

# 256 groups of 256 KiB: 16 descriptor blocks; a command changes one
many=$T/many.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 -g 256 -N 2048 -U 3b5e6a4c-1d2e-4f30-8a9b-0c1d2e3f4a5b \
	-E hash_seed=5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d "$many" 64M >/dev/null 2>&1 ||
	fail "mke2fs (256 groups) failed"
for row in "write $T/small f|11" "mkdir d|11" "rm f|9"; do
	cmd=${row%|*} maxw=${row##*|}
	rm -f "$T/tr"
	E4_CRASH_TRACE=$T/tr "$E4DEBUGFS" -w -R "$cmd" "$many" >/dev/null 2>"$T/err" ||
		failed+=("256 groups, $cmd: exit $?: $(head -1 "$T/err")")
	w=$(cat "$T/tr" 2>/dev/null | wc -l)
	info "256 groups, $cmd: $w writes"
	[ "$w" -le "$maxw" ] || failed+=("256 groups, $cmd: $w writes, at most $maxw")
done
ref_clean "$many" || failed+=("256 groups: not clean: $(grep -vE '^e2fsck|^Pass' <<<"$REF_CLEAN_OUT" | head -2 | tr '\n' ' ')")
if [ ${#failed[@]} -gt 0 ]; then
	printf '  %s\n' "${failed[@]}" >&2
	fail "${#failed[@]} checks failed"
fi
info "within the bounds"
