#!/bin/bash
# lib_jwrite_crash: the library's transaction writer stopped at every one
# of its device writes (the crash-point layer, E4_CRASH_AFTER_WRITES)
# leaves a log that the reference e2fsck -fy (and e4fsck) replays
# transaction by transaction, each whole or not at all: the target blocks
# are always in one of the states "nothing", "T1", "T1+T2", "T1+T2+T3",
# never in between, a later stop never shows an earlier state, and both
# tools reach the same one.  T1 wraps at the log's end, T2 revokes a block
# of T1 (and sets the journal's REVOKE feature), all with csum v3; on the
# internal journal and on an external journal device (the stops count the
# writes to both devices).
# Catches: the journal superblock rewritten mid-log (T2 sets the REVOKE
# feature) with s_start moved to the new transaction: a stop after that
# write replays T2 without T1 ("partial" at the 9th write).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DEBUGFS" "$REF_DUMPE2FS" "$PYTHON"
need_e4fsck
need_helper jwrite_drv
DRV=$HELPER
export E2FSCK_CONFIG=/dev/null

STEPS=(b:7000:1 m:7001:1 b:7002:1 b:7003:1 c r:7001 b:7002:2 b:7004:2 c b:7000:3 c)
# state.py IMG: which of the states the blocks 7000-7004 are in (the
# patterns of jwrite_drv's fill_block), or "partial".
cat >"$T/state.py" <<'PY'
import sys
bs = 1024
def pat(blk, s, magic=False):
    b = bytearray(((i * 7 + s * 31 + blk) & 0xFF) for i in range(bs))
    if magic:
        b[0:4] = b"\xc0\x3b\x39\x98"
    return bytes(b)
z = bytes(bs)
states = {
    "none": [z, z, z, z, z],
    "T1": [pat(7000, 1), pat(7001, 1, True), pat(7002, 1), pat(7003, 1), z],
    "T2": [pat(7000, 1), z, pat(7002, 2), pat(7003, 1), pat(7004, 2)],
    "T3": [pat(7000, 3), z, pat(7002, 2), pat(7003, 1), pat(7004, 2)],
}
with open(sys.argv[1], "rb") as f:
    f.seek(7000 * bs)
    got = [f.read(bs) for _ in range(5)]
for name, want in states.items():
    if got == want:
        print(name)
        break
else:
    print("partial")
PY

# crash_run NAME [-j]: every stop of the writer on a copy of $T/base.img
# (and with -j of the external journal $T/base.jnl)
crash_run() {
	local name=$1 ext=${2:-} writes n img rc st st4 idx prev=0
	local drvj=() fsckj=() e4j=()
	cp "$T/base.img" "$T/full.img"
	[ -z "$ext" ] || { cp "$T/base.jnl" "$T/full.jnl"; drvj=(-j "$T/full.jnl"); }
	rm -f "$T/trace"
	E4_CRASH_TRACE=$T/trace "$DRV" "${drvj[@]}" -v 3 -s 1021 "$T/full.img" "${STEPS[@]}" \
		>/dev/null 2>&1 || fail "$name: the writer failed without a crash point"
	writes=$(wc -l <"$T/trace")
	[ "$writes" -ge 8 ] || fail "$name: only $writes writes traced"
	for n in $(seq 1 "$writes"); do
		img=$T/c$n.img
		cp "$T/base.img" "$img"
		if [ -n "$ext" ]; then
			cp "$T/base.jnl" "$img.jnl"
			cp "$T/base.jnl" "$img.e4.jnl"
			drvj=(-j "$img.jnl") fsckj=(-j "$img.jnl") e4j=(-j "$img.e4.jnl")
		fi
		E4_CRASH_AFTER_WRITES=$n "$DRV" "${drvj[@]}" -v 3 -s 1021 "$img" "${STEPS[@]}" >/dev/null 2>&1
		rc=$?
		if [ "$n" -lt "$writes" ]; then
			[ $rc = 137 ] || fail "$name: stop after $n writes: the writer exited $rc, not at the crash point"
		else
			[ $rc = 0 ] || fail "$name: $n writes (all of them) allowed: the writer exited $rc"
		fi
		cp "$img" "$img.e4"
		[ -z "$ext" ] || cp "$img.jnl" "$img.e4.jnl"
		"$REF_E2FSCK" -fy "${fsckj[@]}" "$img" >"$T/c$n.fsck" 2>&1 </dev/null
		rc=$?
		[ $rc -le 1 ] || fail "$name: stop after $n writes: e2fsck -fy exit $rc: $(head -5 "$T/c$n.fsck")"
		"$E4FSCK" -y -E journal_only "${e4j[@]}" "$img.e4" >"$T/c$n.e4fsck" 2>&1
		rc=$?
		[ $rc -le 1 ] || fail "$name: stop after $n writes: e4fsck exit $rc: $(head -5 "$T/c$n.e4fsck")"
		st=$("$PYTHON" "$T/state.py" "$img")
		st4=$("$PYTHON" "$T/state.py" "$img.e4")
		verbose "$name: stop after $n writes: $st (e4fsck: $st4)"
		[ "$st" != partial ] || fail "$name: stop after $n writes: e2fsck replayed a transaction in part"
		[ "$st" = "$st4" ] || fail "$name: stop after $n writes: e2fsck leaves $st, e4fsck $st4"
		for i in 0 1 2 3; do [ "${order[$i]}" = "$st" ] && idx=$i; done
		[ "$idx" -ge "$prev" ] ||
			fail "$name: stop after $n writes: state $st after ${order[$prev]} at an earlier stop"
		prev=$idx
		rm -f "$img" "$img.e4" "$img.jnl" "$img.e4.jnl"
	done
	[ "$prev" = 3 ] || fail "$name: all writes allowed, yet the state is ${order[$prev]}, not T3"
}

order=(none T1 T2 T3)
"$REF_MKE2FS" -q -F -o Linux -t ext4 -b 1024 -J size=1 "$T/base.img" 8192 >/dev/null 2>&1 ||
	fail "mke2fs failed"
crash_run internal

# an external journal device: the log, the commit and the journal
# superblock on one device, needs_recovery on the other (made as the
# corpus's j_ext_* images: the journal fields set by debugfs)
"$REF_MKE2FS" -q -F -o Linux -b 1024 -O journal_dev "$T/base.jnl" 1024 >/dev/null 2>&1 ||
	fail "mke2fs -O journal_dev failed"
"$REF_MKE2FS" -q -F -o Linux -t ext4 -b 1024 -O ^has_journal "$T/base.img" 8192 >/dev/null 2>&1 ||
	fail "mke2fs failed"
juuid=$("$REF_DUMPE2FS" -h "$T/base.jnl" 2>/dev/null | sed -n 's/^Filesystem UUID: *//p')
printf 'feature has_journal\nssv journal_dev 0x9999\nssv journal_uuid %s\n' "$juuid" |
	"$REF_DEBUGFS" -w -f - "$T/base.img" >/dev/null 2>&1 || fail "debugfs set-up failed"
crash_run external -j
exit 0
