#!/bin/bash
# mkfs_output: what e4mkfs prints.  -q: nothing at all on success; the
# default: the geometry line, UUID and superblock backups, progress, no
# error words; -n: the full geometry (as mke2fs -n) and nothing written;
# -V: the version, exit 0; no device: usage, exit 1.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$E4_TESTDIR/t/mkfs_common.bash"

need_e4mkfs
failed=()
img=$T/o.img

truncate -s 256M "$img"
"$E4MKFS" -q -t ext4 "$img" >"$T/out" 2>"$T/err" </dev/null || failed+=("-q: exit $?")
[ -s "$T/out" ] && failed+=("-q printed on stdout: $(head -2 "$T/out")")
[ -s "$T/err" ] && failed+=("-q printed on stderr: $(head -2 "$T/err")")

rm -f "$img"
truncate -s 256M "$img"
"$E4MKFS" -t ext4 -U "$MKFS_UUID" "$img" >"$T/out" 2>"$T/err" </dev/null || failed+=("default: exit $?")
grep -q "^Creating filesystem with 262144 1k blocks and 65536 inodes" "$T/out" ||
	failed+=("default: no 'Creating filesystem' line: $(head -3 "$T/out" | tr '\n' '|')")
grep -q "^Filesystem UUID: $MKFS_UUID" "$T/out" || failed+=("default: no UUID line")
grep -q "8193, 24577, 40961, 57345, 73729, 204801, 221185" "$T/out" ||
	failed+=("default: superblock backups not listed")
grep -q "Writing superblocks and filesystem accounting information: done" "$T/out" ||
	failed+=("default: no final 'done'")
grep -qiE 'error|warning' "$T/out" "$T/err" && failed+=("default: error words in the output")

before=$(sha256sum <"$img")
"$E4MKFS" -n -t ext4 -b 4096 "$img" >"$T/out" 2>&1 </dev/null || failed+=("-n: exit $?")
for w in "Block size=4096 (log=2)" "65536 inodes, 65536 blocks" "2 block groups" \
	"32768 blocks per group, 32768 fragments per group" "32768 inodes per group"; do
	grep -qF "$w" "$T/out" || failed+=("-n: '$w' missing")
done
[ "$(sha256sum <"$img")" = "$before" ] || failed+=("-n changed the image")

"$E4MKFS" -V >"$T/out" 2>&1 || failed+=("-V: exit $?")
grep -q '^e4mkfs ' "$T/out" || failed+=("-V: no version")
"$E4MKFS" >"$T/out" 2>&1 </dev/null
[ $? = 1 ] || failed+=("no arguments: exit status not 1")
grep -q '^Usage:' "$T/out" || failed+=("no arguments: no usage")

if [ ${#failed[@]} -gt 0 ]; then
	printf '  %s\n' "${failed[@]}" >&2
	fail "${#failed[@]} output checks failed"
fi
info "output checks passed"
exit 0
