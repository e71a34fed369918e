#!/bin/bash
# tune_journal_damaged: -O ^has_journal on a journal e4tune cannot judge
# (issue 11 item 15).  Without -f each case is refused (exit 1, the image
# unchanged, the message names -f); with -f the journal is removed with a
# warning on stderr and the result is clean under the reference e2fsck -fn
# and mounts:
#  - a journal superblock with a bad magic number;
#  - a journal superblock failing its checksum (journal_checksum_v3);
#  - a log holding a transaction while needs_recovery is clear (the
#    reference debugfs writes one): -f discards it with the journal;
#  - needs_recovery set and a journal superblock with a bad magic number
#    (nothing can be replayed): -f removes it unreplayed, exits 1 (the
#    requested change is made, the replay is not), and marks the filesystem
#    for a full check (state "not clean").
# A needs_recovery journal that can be read is still replayed before its
# removal (tune_journal covers that).
# Bug it catches: a journal removed silently although its log could not be
# read, or "-f" not being enough to remove a journal with a damaged
# superblock.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4tune
need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DUMPE2FS" "$REF_DEBUGFS"
need_root_loop
need_cmd sha256sum

export MKE2FS_CONFIG=$E4_TESTDIR/mke2fs-debian.conf
failed=()
n=0

base=$T/base.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$base" 8M >/dev/null 2>&1 || fail "mke2fs failed"
jsb=$("$REF_DEBUGFS" -R "bmap <8> 0" "$base" 2>/dev/null)
[ -n "$jsb" ] && [ "$jsb" -gt 0 ] || fail "no journal superblock block"

# poke IMG OFFSET HEX: write bytes into the journal superblock
poke() { printf "$3" | dd of="$1" bs=1 seek=$((jsb * 1024 + $2)) conv=notrunc status=none; }

# case NAME IMG WANT_RC [EXTRA ARGS...]: refused without -f; removed with it
case_() {
	local name=$1 img=$2 want=$3 before rc
	shift 3
	n=$((n + 1))
	before=$(sha256sum <"$img")
	"$E4TUNE" -O ^has_journal "$@" "$img" >"$T/out" 2>&1 </dev/null
	rc=$?
	if [ $rc != 1 ]; then
		failed+=("$name: without -f: exit $rc, not 1: $(head -2 "$T/out" | tr '\n' ' ')")
		return
	fi
	[ "$before" = "$(sha256sum <"$img")" ] || failed+=("$name: refused, but the image changed")
	grepq -e '-f' "$T/out" || failed+=("$name: the refusal does not name -f: $(cat "$T/out")")
	"$E4TUNE" -f -O ^has_journal "$@" "$img" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	[ $rc = "$want" ] || failed+=("$name: with -f: exit $rc, not $want: $(head -2 "$T/err" | tr '\n' ' ')")
	grepq -i warning "$T/err" || failed+=("$name: with -f: no warning: $(cat "$T/err")")
	"$REF_DUMPE2FS" -h "$img" 2>/dev/null | grepq '^Filesystem features:.*has_journal' &&
		failed+=("$name: with -f: has_journal still set")
	ref_clean "$img" || failed+=("$name: with -f: not clean: $(head -5 <<<"$REF_CLEAN_OUT" | tr '\n' '|')")
	kernel_mounts "$img" || failed+=("$name: with -f: the kernel refuses the result: $KMOUNT_OUT")
}

img=$T/img.img
cp "$base" "$img"
poke "$img" 0 '\0\0\0\0'
case_ "bad magic" "$img" 0

# a checksummed journal superblock (e4tune -o journal_checksum sets
# journal_checksum_v3), its checksum (offset 0xfc) broken; the mount
# option goes with the journal
cp "$base" "$img"
"$E4TUNE" -o journal_checksum "$img" >/dev/null 2>&1 || fail "-o journal_checksum failed"
"$REF_DUMPE2FS" -h "$img" 2>/dev/null | grepq '^Journal features:.*journal_checksum_v3' ||
	fail "no journal_checksum_v3 to break"
poke "$img" $((0xfc)) '\xff'
case_ "bad checksum" "$img" 0 -o ^journal_checksum

# a transaction in the log, needs_recovery clear
cp "$base" "$img"
echo data >"$T/blk"
printf 'jo\njw -b 3000 %s\njc\n' "$T/blk" | "$REF_DEBUGFS" -w -f - "$img" >/dev/null 2>&1
"$REF_DEBUGFS" -w -R "feature -needs_recovery" "$img" >/dev/null 2>&1
"$REF_DUMPE2FS" -h "$img" 2>/dev/null | grepq '^Journal start: *[1-9]' || fail "the log holds no transaction"
case_ "transactions, needs_recovery clear" "$img" 0

# needs_recovery and a bad magic: nothing can be replayed
cp "$base" "$img"
"$REF_DEBUGFS" -w -R "feature needs_recovery" "$img" >/dev/null 2>&1
poke "$img" 0 '\0\0\0\0'
case_ "needs_recovery, bad magic" "$img" 1
"$REF_DUMPE2FS" -h "$img" 2>/dev/null | grepq '^Filesystem state: *not clean' ||
	failed+=("needs_recovery, bad magic: not marked for a full check")
"$REF_DUMPE2FS" -h "$img" 2>/dev/null | grepq '^Filesystem features:.*needs_recovery' &&
	failed+=("needs_recovery, bad magic: needs_recovery left without a journal")

for f in "${failed[@]+"${failed[@]}"}"; do
	echo "FAIL: $TEST_NAME: $f" >&2
done
[ ${#failed[@]} = 0 ] || fail "${#failed[@]} failures in $n cases"
info "$n cases passed ($(elapsed)s)"
