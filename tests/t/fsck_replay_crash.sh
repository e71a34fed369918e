#!/bin/bash
# fsck_replay_crash: e4fsck stopped after every possible number of writes
# (E4_CRASH_AFTER_WRITES, common/crashpoint.c), then run again.
#
# Image: 8 MiB, csum v3 journal with three transactions written by the
# reference debugfs (six zeroed blocks; 21 blocks of data; a revoke of one
# of the first six) and one unlinked orphan (written by debugfs, links
# set to 0, on the s_last_orphan chain).  With the clock fixed, the
# uninterrupted `e4fsck -p` result is the reference point; it equals the
# reference `e2fsck -p` result byte for byte (tests/imgcmp.py; but for the
# superblock fields the reference sets from its clock or I/O counters:
# s_wtime(_hi), s_kbytes_written, and s_checksum), is clean, and mounts.
# For every N from 1 to the number of writes it makes, minus one:
#  - the run stopped after N writes exits 137 (the simulated crash);
#  - what the stop left is safe (tests/lib.sh stop_ok: after the reference
#    replays the journal and releases the orphans on a copy, as a mount
#    would, only leaks on a filesystem marked not clean; never a chain
#    naming a freed inode);
#  - a second `e4fsck -p` then either gives the reference point exactly
#    (outside the superblock, and the journal superblock whose s_sequence
#    may be one higher: a replay stopped after the journal was emptied
#    counts one more empty recovery), exit 0; or -- only when stopped
#    inside the orphan release, whose link the first run already used --
#    exits 4 saying a full check is due.  It never calls a filesystem
#    clean that is not the reference point;
#  - stopped anywhere inside the journal replay, the second run always
#    gives the reference point (replay is idempotent);
#  - the reference e2fsck -fn never exits 8 or more on the result; the
#    uninterrupted result is clean (ref_clean) and the kernel mounts it.
#
# Bug it catches: an orphan release that frees the inode while the chain
# still names it (the freed inode's i_dtime, the chain's link, becomes a
# time: the kernel's orphan cleanup and e2fsck then meet "Illegal inode
# 2000000000 in orphaned inode list").  That was e4fsck's order before
# issue 19 (inodes, bitmaps, then the superblock that forgot the chain):
# stop_ok failed after 5 to 8 of its 10 writes.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_E2FSCK" "$REF_DEBUGFS" "$REF_MKE2FS" "$PYTHON"
[ -x "$E4FSCK" ] || fail "e4fsck not found: $E4FSCK"
export E2FSCK_CONFIG=/dev/null TZ=UTC E2FSCK_TIME=2000000000
unset E4_CRASH_AFTER_WRITES E4_CRASH_TRACE

img=$T/base.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$img" 8M >/dev/null 2>&1 || fail "mke2fs failed"
head -c 20000 /dev/zero | tr '\0' o >"$T/src"
cat >"$T/cmds" <<EOF
write $T/src orphan
sif <12> links_count 0
unlink orphan
ssv last_orphan 12
jo -c
jw -b 300-305 /dev/zero
jc
jo
jw -b 400-420 $T/src
jc
jo
jw -r 302
jc
EOF
"$REF_DEBUGFS" -w -f "$T/cmds" "$img" >/dev/null 2>&1 || fail "debugfs failed"
grep -q needs_recovery <<<"$("$REF_DUMPE2FS" -h "$img" 2>/dev/null)" || fail "no journal to replay"

cp "$img" "$T/full.img"
E4_CRASH_TRACE=$T/trace "$E4FSCK" -p "$T/full.img" >"$T/full.out" 2>&1 ||
	fail "uninterrupted run: exit $?: $(cat "$T/full.out")"
grep -q "Clearing orphaned inode 12" "$T/full.out" || fail "the orphan was not released"
total=$(wc -l <"$T/trace")
[ "$total" -ge 4 ] || fail "only $total writes traced"
cp "$img" "$T/ref.img"
"$REF_E2FSCK" -p "$T/ref.img" >"$T/ref.out" 2>&1 || fail "reference e2fsck -p: exit $?"
"$PYTHON" "$E4_TESTDIR/imgcmp.py" "$T/ref.img" "$T/full.img" \
	--sb-skip s_wtime,s_wtime_hi,s_kbytes_written,s_checksum >"$T/cmp" ||
	fail "the uninterrupted result is not the reference's: $(head -5 "$T/cmp" | tr '\n' ' ')"
ref_clean "$T/full.img" || fail "the uninterrupted result is not clean: $REF_CLEAN_OUT"
fsck_result_mounts "$T/full.img" "the uninterrupted e4fsck -p"
jsb_off=$(($("$REF_DEBUGFS" -c -R "bmap <8> 0" "$img" 2>/dev/null | tail -1) * 1024))

# bytes differing outside the superblock and the journal superblock
ndiff() {
	cmp -l "$T/full.img" "$1" | awk -v j="$jsb_off" \
		'!($1 > 1024 && $1 <= 2048) && !($1 > j && $1 <= j + 1024)' | wc -l
}

ok=0 full=0
for ((n = 1; n < total; n++)); do
	cp "$img" "$T/c.img"
	E4_CRASH_AFTER_WRITES=$n "$E4FSCK" -p "$T/c.img" >"$T/c1.out" 2>&1
	rc=$?
	[ $rc = 137 ] || fail "N=$n: the interrupted run exited $rc, not 137"
	stop_ok "$T/c.img" || fail "N=$n: the stop left: $STOP_WHY"
	"$E4FSCK" -p "$T/c.img" >"$T/c2.out" 2>&1
	rc=$?
	san_report "$T/c2.out" && fail "N=$n: sanitizer report"
	d=$(ndiff "$T/c.img")
	if [ $rc = 0 ] && [ "$d" = 0 ]; then
		ok=$((ok + 1))
		fsck_result_mounts "$T/c.img" "N=$n: second run"
	elif [ $rc = 4 ] && grep -q "check forced" "$T/c2.out" &&
		grep -q "Clearing orphaned inode 12" "$T/c1.out"; then
		full=$((full + 1))
	else
		fail "N=$n: second run exit $rc with $d bytes differing: $(cat "$T/c2.out")"
	fi
	if [ $rc = 0 ]; then
		ref_clean "$T/c.img" || fail "N=$n: e4fsck exits 0, the reference -fn is not clean: $(head -20 <<<"$REF_CLEAN_OUT")"
	else
		"$REF_E2FSCK" -fn "$T/c.img" >/dev/null 2>&1
		[ $? -lt 8 ] || fail "N=$n: the reference cannot check the result"
	fi
done
info "stopped after 1..$((total - 1)) of $total writes: $ok reruns gave the uninterrupted result, $full asked for the full check (inside the orphan release) ($(elapsed)s)"
exit 0
