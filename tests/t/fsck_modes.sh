#!/bin/bash
# fsck_modes: e4fsck's answer modes, exit codes and usage errors
# (acceptance 5 of the e4fsck issue), and superblock-level repairs.
#  - a clean image: exit 0 with -n and -p, -n and -p write nothing; -fy
#    exits 8 (the full check it asks for is not available);
#  - an image that needs recovery: -n (without -f) warns that the journal
#    is not replayed, writes nothing, exits as the reference e2fsck -n
#    (0: the superblock says clean); -p replays (exit as the reference);
#  - usage errors exit 16; no mode and no terminal exits 8;
#  - -E journal_only -f says the full check is not available (exit 0);
#  - every run that exits 0 or 1 leaves an image the kernel mounts;
#  - the fixed clock: E4FSCK_TIME and E2FSCK_TIME both fix "now" (a last
#    write time in the future is reported against it);
#  - the primary superblock zeroed: -n uses the first backup and changes
#    nothing (exit 4: a full check is due); -y uses it and writes the
#    primary back (state "not clean": the full check stays due, exit 4),
#    after which the reference e2fsck -fn is clean; -b with the backup's
#    block number works the same way;
#  - -b: a block that holds no superblock is named in the message, which
#    suggests only copies that open (never the block just tried, as the
#    old "try -b 8193" did); a block past the end of the device says so;
#    -b 0 is the primary only (as e2fsck): no backup is searched.
# Catches: a primary superblock written back from the backup with a last
# write time in the future (the reference -fn says so and still exits 0).
# Checked: with s_wtime set 3 days ahead there, the exit-code check passed;
# ref_clean fails "backup -y: reference -fn not clean".

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_E2FSCK" "$REF_DEBUGFS" "$REF_MKE2FS"
[ -x "$E4FSCK" ] || fail "e4fsck not found: $E4FSCK"
export E2FSCK_CONFIG=/dev/null TZ=UTC
unset E4FSCK_TIME
E2FSCK_TIME=$(($(date +%s) + 3600))
export E2FSCK_TIME

run() {	# run WANT_RC NAME ARGS...: e4fsck ARGS must exit WANT_RC
	local want=$1 name=$2
	shift 2
	runcap "$T/$name" 30 "$E4FSCK" "$@"
	local rc
	rc=$(cat "$T/$name.rc")
	san_report "$T/$name.err" && fail "$name: sanitizer report: $(head -5 "$T/$name.err")"
	[ "$rc" = "$want" ] || {
		cat "$T/$name.out" "$T/$name.err" >&2
		fail "$name: e4fsck $*: $(describe_rc "$rc"), expected $want"
	}
}

# ---- a clean image ----
img=$T/clean.img
"$REF_MKE2FS" -q -F -t ext4 "$img" 16M >/dev/null 2>&1 || fail "mke2fs failed"
sum=$(sha256sum <"$img")
run 0 clean_n -n "$img"
run 0 clean_p -p "$img"
[ "$(sha256sum <"$img")" = "$sum" ] || fail "clean: -n or -p changed the image"
grep -q "clean, 11/4096 files" "$T/clean_p.out" || fail "clean -p: no 'clean' summary: $(cat "$T/clean_p.out")"
fsck_result_mounts "$img" "clean -p"
run 8 clean_fy -fy "$img"
grep -qE "not available|checks are not complete" "$T/clean_fy.err" || fail "clean -fy: the missing full check is not mentioned"
run 0 clean_jo -fy -E journal_only "$img"
grep -q "not available" "$T/clean_jo.out" || fail "-E journal_only -f: the missing full check is not mentioned"
fsck_result_mounts "$img" "-fy -E journal_only"

# ---- usage ----
run 16 usage_none
run 16 usage_opt -x "$img"
run 16 usage_modes -n -y "$img"
run 16 usage_modes2 -p -n "$img"
run 16 usage_ext -E frobnicate "$img"
run 16 usage_bsize -B 1000 "$img"
run 16 usage_two "$img" "$img"
run 16 usage_arg -b
run 8 no_tty "$img"
grep -q "terminal" "$T/no_tty.err" || fail "no terminal: no message"
run 8 missing -n "$T/does-not-exist"
grep -q "does-not-exist" "$T/missing.err" || fail "missing device: message does not name it"

# ---- the clock ----
cp "$img" "$T/future.img"
run 0 clock_e4 -n "$T/future.img"
fsck_result_mounts "$T/future.img" "future -n"
E4FSCK_TIME=1000000000 run 1 clock_e4y -y "$T/future.img"
grep -q "in the future" "$T/clock_e4y.out" || fail "E4FSCK_TIME: no future-time report"
grep -q "2001" "$T/clock_e4y.out" || fail "E4FSCK_TIME=1000000000 not used as now: $(cat "$T/clock_e4y.out")"
fsck_result_mounts "$T/future.img" "E4FSCK_TIME -y"
cp "$img" "$T/future.img"
E2FSCK_TIME=1000000000 run 1 clock_e2y -y "$T/future.img"
grep -q "in the future" "$T/clock_e2y.out" || fail "E2FSCK_TIME: no future-time report"
fsck_result_mounts "$T/future.img" "E2FSCK_TIME -y"

# ---- needs recovery ----
rimg=$T/rec.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$rimg" 8M >/dev/null 2>&1 || fail "mke2fs failed"
printf 'jo\njw -b 300-305 /dev/zero\njc\n' >"$T/cmds"
"$REF_DEBUGFS" -w -f "$T/cmds" "$rimg" >/dev/null 2>&1 || fail "debugfs jw failed"
sum=$(sha256sum <"$rimg")
runcap "$T/ref_n" 30 "$REF_E2FSCK" -n "$rimg"
[ "$(sha256sum <"$rimg")" = "$sum" ] || fail "the reference -n changed the image"
run "$(cat "$T/ref_n.rc")" rec_n -n "$rimg"
[ "$(sha256sum <"$rimg")" = "$sum" ] || fail "needs recovery: -n changed the image"
grep -q "skipping journal recovery" "$T/rec_n.out" || fail "needs recovery -n: no warning"
fsck_result_mounts "$rimg" "needs recovery -n"
cp "$rimg" "$T/ref.img"
runcap "$T/ref_p" 30 "$REF_E2FSCK" -p "$T/ref.img"
run "$(cat "$T/ref_p.rc")" rec_p -p "$rimg"
grep -q "recovering journal" "$T/rec_p.out" || fail "needs recovery -p: no 'recovering journal'"
grep -q needs_recovery <<<"$("$REF_DUMPE2FS" -h "$rimg" 2>/dev/null)" && fail "-p left needs_recovery set"
fsck_result_mounts "$rimg" "needs recovery -p"

# ---- backup superblock ----
bimg=$T/bk.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$bimg" 16M >/dev/null 2>&1 || fail "mke2fs failed"
dd if=/dev/zero of="$bimg" bs=1024 seek=1 count=1 conv=notrunc status=none
sum=$(sha256sum <"$bimg")
run 4 bk_n -n "$bimg"
[ "$(sha256sum <"$bimg")" = "$sum" ] || fail "backup -n: image changed"
grep -q "backup at block 8193" "$T/bk_n.out" || fail "backup -n: backup not reported: $(cat "$T/bk_n.out")"
cp "$bimg" "$T/bk2.img"
run 4 bk_y -y "$bimg"
ref_clean "$bimg" || fail "backup -y: reference -fn not clean: $(head -20 <<<"$REF_CLEAN_OUT")"
# the primary is back but marked not clean: a full check is still due
run 4 bk_y2 -n "$bimg"
grep -q "backup" "$T/bk_y2.out" && fail "backup -y: the primary was not written back"
run 4 bk_b -y -b 8193 -B 1024 "$T/bk2.img"
ref_clean "$T/bk2.img" || fail "-b 8193: reference -fn not clean: $(head -20 <<<"$REF_CLEAN_OUT")"

# ---- -b: what was tried is named, never suggested again ----
bimg=$T/bb.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$bimg" 32M >/dev/null 2>&1 || fail "mke2fs failed"
dd if=/dev/zero of="$bimg" bs=1024 seek=8193 count=1 conv=notrunc status=none
run 8 b_bad -n -b 8193 "$bimg"
grepq -F -- "-b: no usable superblock at block 8193: Bad magic number" "$T/b_bad.err" ||
	fail "-b 8193: the block tried is not named: $(cat "$T/b_bad.err")"
grepq -F -- "superblock copies that open: -b 24577 -B 1024" "$T/b_bad.err" ||
	fail "-b 8193: the copy that opens is not named: $(cat "$T/b_bad.err")"
grepq -E -- "-b 8193([^0-9]|$)" "$T/b_bad.err" && fail "-b 8193: suggested again: $(cat "$T/b_bad.err")"
run 8 b_past -n -b 99999999 "$bimg"
grepq -F -- "-b 99999999: the device ends before that block (it holds 32768 blocks of 1024 bytes)" \
	"$T/b_past.err" || fail "-b 99999999: not said: $(cat "$T/b_past.err")"
# -b 0 is the primary and only it (as e2fsck): no backup is searched
run 0 b_zero -n -b 0 "$T/clean.img"
dd if=/dev/zero of="$bimg" bs=1024 seek=1 count=1 conv=notrunc status=none
run 8 b_zero_bad -n -b 0 "$bimg"
grepq -F -- "-b 0 names the primary superblock only" "$T/b_zero_bad.err" ||
	fail "-b 0: not said: $(cat "$T/b_zero_bad.err")"

info "modes, usage errors, clock, recovery with -n/-p and backup superblocks as documented ($(elapsed)s)"
exit 0
