#!/bin/bash
# mkfs_output: what e4mkfs prints.  -q: nothing at all on success; the
# default: the geometry line, UUID and superblock backups, progress, no
# error words; -n -v: the full geometry and nothing written;
# -V: the version, exit 0; no device: usage, exit 1; the size argument in
# mke2fs's notations gives mke2fs's block count; a malformed
# SOURCE_DATE_EPOCH is refused.
# Catches: progress text printed under -q (-q must print nothing at all).

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
"$E4MKFS" -n -v -t ext4 -b 4096 "$img" >"$T/out" 2>&1 </dev/null || failed+=("-n -v: exit $?")
for w in "Block size=4096 (log=2)" "65536 inodes, 65536 blocks" "2 block groups" \
	"32768 blocks per group, 32768 fragments per group" "32768 inodes per group"; do
	grep -qF "$w" "$T/out" || failed+=("-n -v: '$w' missing")
done
[ "$(sha256sum <"$img")" = "$before" ] || failed+=("-n changed the image")

"$E4MKFS" -V >"$T/out" 2>&1 || failed+=("-V: exit $?")
grep -q '^e4mkfs ' "$T/out" || failed+=("-V: no version")
"$E4MKFS" >"$T/out" 2>&1 </dev/null
[ $? = 1 ] || failed+=("no arguments: exit status not 1")
grep -q '^Usage:' "$T/out" || failed+=("no arguments: no usage")

# the size argument as mke2fs reads it: 0x hex, 0 octal, s sectors, k/m/g
# bytes, plain numbers blocks (1 KiB here); the block count must agree
if command -v "$REF_MKE2FS" >/dev/null 2>&1 && command -v "$REF_DUMPE2FS" >/dev/null 2>&1; then
	mkfs_debian_conf
	for size in 65536 010000 0x10000 65536s 64m 16384; do
		for tool in e4 ref; do
			rm -f "$T/s.$tool"
			if [ $tool = e4 ]; then
				"$E4MKFS" -q -F -t ext4 "$T/s.$tool" "$size" </dev/null >/dev/null 2>&1
			else
				MKE2FS_CONFIG=$MKFS_CONF "$REF_MKE2FS" -q -F -t ext4 "$T/s.$tool" "$size" \
					</dev/null >/dev/null 2>&1
			fi
		done
		a=$("$REF_DUMPE2FS" -h "$T/s.e4" 2>/dev/null | grep '^Block count:')
		b=$("$REF_DUMPE2FS" -h "$T/s.ref" 2>/dev/null | grep '^Block count:')
		[ -n "$b" ] && [ "$a" = "$b" ] || failed+=("size '$size': e4mkfs '$a', mke2fs '$b'")
	done
elif is_ci; then
	failed+=("the reference mke2fs/dumpe2fs are missing: size checks not run")
fi
# a malformed SOURCE_DATE_EPOCH is an error, not the clock in disguise
rm -f "$T/d.img"
SOURCE_DATE_EPOCH=1e9 "$E4MKFS" -q -F "$T/d.img" 64M >"$T/out" 2>&1 </dev/null
[ $? = 1 ] && grepq SOURCE_DATE_EPOCH "$T/out" && [ ! -e "$T/d.img" ] ||
	failed+=("SOURCE_DATE_EPOCH=1e9: not refused: $(head -2 "$T/out")")

if [ ${#failed[@]} -gt 0 ]; then
	printf '  %s\n' "${failed[@]}" >&2
	fail "${#failed[@]} output checks failed"
fi
info "output checks passed"
exit 0
