#!/bin/bash
# tune_log_pending: a journal whose log holds committed transactions while
# needs_recovery is clear (a flag cleared without a replay).  e2fsck and
# e4fsck -y replay such a log, so a change e4tune made under it would be
# undone when the log holds the block it changed.  Every change is refused
# (exit 1, the image unchanged, the message names e4fsck -y), with -f too;
# -f -O ^has_journal, which discards the log with the journal, is covered
# by tune_journal_damaged.  After the step named (e4fsck -y replays), -L
# is made and survives the next e4fsck -y; the result is clean and mounts.
# Image: 8 MiB, 1 KiB blocks, labelled "oldlbl"; the reference debugfs logs
# a copy of the superblock block (block 1) in one transaction, then clears
# needs_recovery.
# Bug it catches: e4tune -L newlbl exiting 0 on such an image, and the next
# e4fsck -y replaying the old superblock over the new label (only
# -O ^has_journal was refused in this state).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4tune
need_e4fsck
need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DEBUGFS" "$REF_DUMPE2FS"
need_root_loop
need_cmd sha256sum

export MKE2FS_CONFIG=$E4_TESTDIR/mke2fs-debian.conf
failed=()
n=0

img=$T/img.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 -L oldlbl "$img" 8M >/dev/null 2>&1 || fail "mke2fs failed"
dd if="$img" of="$T/sb.bin" bs=1024 skip=1 count=1 status=none
printf 'jo\njw -b 1 %s\njc\n' "$T/sb.bin" | "$REF_DEBUGFS" -w -f - "$img" >/dev/null 2>&1
"$REF_DEBUGFS" -w -R "feature -needs_recovery" "$img" >/dev/null 2>&1
"$REF_DEBUGFS" -R logdump "$img" 2>/dev/null | grepq 'commit block' || fail "no committed transaction in the log"
"$REF_DUMPE2FS" -h "$img" 2>/dev/null | grepq '^Filesystem features:.*needs_recovery' &&
	fail "needs_recovery still set"
before=$(sha256sum <"$img")

label() { "$REF_DUMPE2FS" -h "$1" 2>/dev/null | sed -n 's/^Filesystem volume name: *//p'; }

for args in "-L newlbl" "-f -L newlbl" "-c 5" "-e panic" "-U random" "-E test_fs" \
	"-O ^has_journal" "-o journal_checksum" "-O metadata_csum_seed"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$E4TUNE" $args "$img" >"$T/out" 2>&1 </dev/null
	rc=$?
	[ $rc = 1 ] || failed+=("$args: exit $rc, not 1: $(head -2 "$T/out" | tr '\n' ' ')")
	[ "$before" = "$(sha256sum <"$img")" ] || {
		failed+=("$args: the image was changed")
		break
	}
	grepq 'e4fsck -y' "$T/out" || failed+=("$args: the refusal does not name e4fsck -y: $(cat "$T/out")")
done

# the step named: e4fsck -y replays the log; then the change is made and
# stays through the next check
n=$((n + 1))
"$E4FSCK" -y "$img" >"$T/fsck.out" 2>&1
rc=$?
[ $rc -le 1 ] || failed+=("e4fsck -y: exit $rc: $(head -3 "$T/fsck.out" | tr '\n' ' ')")
"$E4TUNE" -L newlbl "$img" >"$T/out" 2>&1 || failed+=("-L after the replay: refused: $(cat "$T/out")")
"$E4FSCK" -y "$img" >"$T/fsck.out" 2>&1
[ "$(label "$img")" = newlbl ] || failed+=("the label is '$(label "$img")' after e4fsck -y, not newlbl")
ref_clean "$img" || failed+=("not clean at the end: $(head -4 <<<"$REF_CLEAN_OUT" | tr '\n' '|')")
kernel_mounts "$img" || failed+=("the kernel refuses the result: $KMOUNT_OUT")

for f in "${failed[@]+"${failed[@]}"}"; do
	echo "FAIL: $TEST_NAME: $f" >&2
done
[ ${#failed[@]} = 0 ] || fail "${#failed[@]} failures in $n cases"
info "$n cases passed ($(elapsed)s)"
