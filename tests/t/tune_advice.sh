#!/bin/bash
# tune_advice: every step e4tune advises works (issue 11 item 17).  e4fsck
# has no full check yet, so it cannot make a filesystem "freshly checked";
# advice naming "e4fsck -f" sends the user to a dead end.  For each advice
# the test takes the step named and retries the command:
#  - metadata_csum off, and -U on metadata_csum without the seed, on a
#    filesystem mounted since its last check: refused naming e2fsck -f (as
#    tune2fs, which requires the same); after the reference e2fsck -fy the
#    same command succeeds and the result is clean;
#  - huge_file off on such a filesystem: made without a fresh check (as
#    tune2fs), the filesystem left for a check with "Please run e2fsck -f";
#    after it, the state is clean;
#  - -o journal_checksum on a journal whose log is not empty while
#    needs_recovery is clear: refused naming e4fsck -y, which replays it
#    (or discards it, nothing in it being committed); then the command
#    succeeds;
#  - needs_recovery without a journal, and needs_recovery with a journal
#    superblock e4tune cannot open: refused naming e4fsck, which clears the
#    flag, or e2fsck, which resets the journal (e4fsck -y keeps it); then -c
#    succeeds;
#  - needs_recovery with a journal superblock failing only its checksum:
#    refused naming e4fsck -y, which rewrites the checksum and replays the
#    log (the replayed block is checked); e2fsck -y would reset it, losing
#    the log (the advice once named e2fsck -y);
#  - needs_recovery with a journal inode that is no regular file: refused
#    naming e2fsck -y, which removes the journal (e4fsck -y keeps it).
# No message of e4tune names "e4fsck -f".
# Bug it catches: "run e4fsck -f first", which no version of e4fsck without
# passes 1-5 can satisfy.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4tune
need_e4fsck
need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DUMPE2FS" "$REF_DEBUGFS"
need_root_loop

export MKE2FS_CONFIG=$E4_TESTDIR/mke2fs-debian.conf
failed=()
n=0
mk() { "$REF_MKE2FS" -q -F "$@" >/dev/null 2>&1 || fail "mke2fs $*"; }
stale() { "$REF_DEBUGFS" -w -R "ssv mtime 20300101" "$1" >/dev/null 2>&1; }

# advice NAME IMG PATTERN STEP... -- ARGS...: e4tune ARGS IMG is refused
# with a message matching PATTERN; after STEP (a command run on IMG) the
# same command succeeds
advice() {
	local name=$1 img=$2 pat=$3 step=() args=()
	shift 3
	while [ "$1" != -- ]; do step+=("$1"); shift; done
	shift
	args=("$@")
	n=$((n + 1))
	if "$E4TUNE" "${args[@]}" "$img" >"$T/out" 2>&1 </dev/null; then
		failed+=("$name: not refused")
		return
	fi
	cat "$T/out" >>"$T/all"
	if ! grepq -E "$pat" "$T/out"; then
		failed+=("$name: the refusal does not name '$pat': $(cat "$T/out")")
		return
	fi
	"${step[@]}" "$img" >"$T/step" 2>&1 </dev/null
	"$E4TUNE" "${args[@]}" "$img" >"$T/out" 2>&1 </dev/null ||
		failed+=("$name: after '${step[*]}' still refused: $(cat "$T/out")")
	ref_clean "$img" || failed+=("$name: not clean at the end: $(head -4 <<<"$REF_CLEAN_OUT" | tr '\n' '|')")
	kernel_mounts "$img" || failed+=("$name: the kernel refuses the result: $KMOUNT_OUT")
}

base=$T/base.img
mk -t ext4 -b 1024 "$base" 8M
img=$T/img.img

cp "$base" "$img"
stale "$img"
advice "metadata_csum off, not fresh" "$img" 'e2fsck -f' "$REF_E2FSCK" -fy -- -O ^metadata_csum
cp "$base" "$img"
stale "$img"
advice "-U on metadata_csum, not fresh" "$img" 'e2fsck -f' "$REF_E2FSCK" -fy -- -U random

# huge_file off: made, and the check it leaves due is one e2fsck -f runs
n=$((n + 1))
cp "$base" "$img"
stale "$img"
if "$E4TUNE" -O ^huge_file "$img" >"$T/out" 2>&1; then
	cat "$T/out" >>"$T/all"
	grepq 'Please run e2fsck -f' "$T/out" || failed+=("^huge_file: no advice to run e2fsck -f: $(cat "$T/out")")
	"$REF_E2FSCK" -fy "$img" >/dev/null 2>&1
	"$REF_DUMPE2FS" -h "$img" 2>/dev/null | grepq '^Filesystem state: *clean$' ||
		failed+=("^huge_file: not clean after e2fsck -f")
else
	failed+=("^huge_file on a filesystem mounted since its check: refused (tune2fs makes it): $(cat "$T/out")")
fi

# a transaction in the log, needs_recovery clear (the reference debugfs
# writes one): the journal's features cannot change before it is replayed
cp "$base" "$img"
echo data >"$T/blk"
printf 'jo\njw -b 3000 %s\njc\n' "$T/blk" | "$REF_DEBUGFS" -w -f - "$img" >/dev/null 2>&1
"$REF_DEBUGFS" -w -R "feature -needs_recovery" "$img" >/dev/null 2>&1
advice "journal not empty" "$img" 'e4fsck -y' "$E4FSCK" -y -- -o journal_checksum

# needs_recovery without a journal; with a journal superblock that cannot
# be opened
mk -t ext4 -O ^has_journal -b 1024 "$img" 8M
"$REF_DEBUGFS" -w -R "feature needs_recovery" "$img" >/dev/null 2>&1
advice "needs_recovery, no journal" "$img" 'run e4fsck' "$E4FSCK" -y -- -c 25
cp "$base" "$img"
jsb=$("$REF_DEBUGFS" -R "bmap <8> 0" "$img" 2>/dev/null)
"$REF_DEBUGFS" -w -R "feature needs_recovery" "$img" >/dev/null 2>&1
printf '\0\0\0\0' | dd of="$img" bs=1 seek=$((jsb * 1024)) conv=notrunc status=none
# (e4fsck -y keeps a journal it cannot judge while needs_recovery is set:
# the advice names the reference, which resets it)
advice "needs_recovery, bad journal superblock" "$img" 'e2fsck -y' "$REF_E2FSCK" -y -- -c 25
# needs_recovery, a journal superblock failing only its checksum (a byte of
# s_users flipped; journal_checksum_v3 from -o journal_checksum): e4fsck -y
# rewrites the checksum and replays the log (e2fsck -y would reset it)
# (debugfs logs a file shorter than a block as an empty transaction)
head -c 1024 /dev/zero | tr '\0' d >"$T/blk1k"
cp "$base" "$img"
"$E4TUNE" -o journal_checksum "$img" >/dev/null 2>&1 || fail "-o journal_checksum failed"
printf 'jo\njw -b 3000 %s\njc\n' "$T/blk1k" | "$REF_DEBUGFS" -w -f - "$img" >/dev/null 2>&1
"$REF_DEBUGFS" -R features "$img" 2>/dev/null | grepq needs_recovery || fail "no journal to recover"
printf '\xff' | dd of="$img" bs=1 seek=$((jsb * 1024 + 300)) conv=notrunc status=none
advice "needs_recovery, journal superblock checksum" "$img" 'e4fsck -y [a-z ]*replays' "$E4FSCK" -y -- -c 25
[ "$(dd if="$img" bs=1024 skip=3000 count=1 status=none | head -c 4 | tr -d "\0")" = dddd ] ||
	failed+=("needs_recovery, journal superblock checksum: the log was not replayed by the step named")
# needs_recovery, a journal inode that is no regular file: e2fsck -y
# removes the journal (e4fsck -y keeps it while needs_recovery is set)
cp "$base" "$img"
printf 'jo\njw -b 3000 %s\njc\n' "$T/blk" | "$REF_DEBUGFS" -w -f - "$img" >/dev/null 2>&1
"$REF_DEBUGFS" -w -R "sif <8> mode 040600" "$img" >/dev/null 2>&1
advice "needs_recovery, journal inode invalid" "$img" 'e2fsck -y removes' "$REF_E2FSCK" -y -- -c 25

grepq 'e4fsck -f' "$T/all" && failed+=("a message advises e4fsck -f: $(grep 'e4fsck -f' "$T/all" | head -2)")

for f in "${failed[@]+"${failed[@]}"}"; do
	echo "FAIL: $TEST_NAME: $f" >&2
done
[ ${#failed[@]} = 0 ] || fail "${#failed[@]} failures in $n cases"
info "$n cases passed ($(elapsed)s)"
