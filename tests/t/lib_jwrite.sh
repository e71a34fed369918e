#!/bin/bash
# lib_jwrite: transactions written by libe4's jbd2 writer (jwrite.c,
# driven by tests/helpers/jwrite_drv) in every log layout -- no checksum,
# csum v1 (crc32 commit), v2 and v3, each with 32- and 64-bit tags where
# the layout differs, async commit, escaped blocks (data starting with the
# jbd2 magic), revokes across transactions (and of a block in its own
# transaction), a transaction spanning two descriptors, a log that wraps
# at its end, and an external journal device -- are:
#  - replayed by the kernel at a read-write mount (the two wrapping logs,
#    csum v3 and v1 with async commit);
#  - replayed identically by e4fsck and the reference e2fsck (-fy; with
#    -j for the external journal): the images agree outside the
#    superblock and the journal, and hold the expected blocks (the last
#    unrevoked copy of each; revoked ones untouched);
#  - dumped alike by `logdump -a` of e4debugfs and of the reference
#    debugfs (every line of the reference's, the numbers included), with
#    every checksum e4debugfs verifies OK.
# Catches: a v2 tag checksum stored in the wrong half of the tag (the
# reference skips the block: "checksum" differs, its image misses it), a
# descriptor packing one tag too many past its tail, an escaped block
# logged with the magic.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DEBUGFS" "$REF_DUMPE2FS" "$PYTHON"
need_e4fsck
need_e4debugfs
need_helper jwrite_drv
DRV=$HELPER
export TZ=UTC E2FSCK_CONFIG=/dev/null

# check.py IMG BS STATE...: each STATE is BLK:SEED (the block holds the
# writer's pattern for SEED, as jwrite_drv's fill_block; SEED m1 = the
# magic-started copy of seed 1) or BLK:0 (never written: zeros).
cat >"$T/check.py" <<'PY'
import sys
img, bs = sys.argv[1], int(sys.argv[2])
bad = 0
with open(img, "rb") as f:
    for st in sys.argv[3:]:
        blk, seed = st.split(":")
        blk = int(blk)
        f.seek(blk * bs)
        got = f.read(bs)
        if seed == "0":
            want = bytes(bs)
        else:
            s = int(seed.lstrip("m"))
            want = bytearray(((i * 7 + s * 31 + blk) & 0xFF) for i in range(bs))
            if seed.startswith("m"):
                want[0:4] = b"\xc0\x3b\x39\x98"
            want = bytes(want)
        if got != want:
            print("block %d: not %s" % (blk, "zeros" if seed == "0" else "seed " + seed))
            bad += 1
sys.exit(1 if bad else 0)
PY

# skips.py IMG BS: --skip arguments for the superblock and the journal
# inode's blocks (from the reference debugfs "blocks <8>" on stdin).
cat >"$T/skips.py" <<'PY'
import sys
bs = int(sys.argv[1])
blks = sorted(int(b) for b in sys.stdin.read().split())
args = ["--skip", "1024:1024"]
i = 0
while i < len(blks):
    j = i
    while j + 1 < len(blks) and blks[j + 1] == blks[j] + 1:
        j += 1
    args += ["--skip", "%d:%d" % (blks[i] * bs, (j - i + 1) * bs)]
    i = j + 1
print(" ".join(args))
PY

# logdump: the reference's lines (its version line aside) must be those of
# e4debugfs without its checksum verdicts.
logdump_cmp() {	# logdump_cmp NAME IMG nocsum|csum [LOGDUMP OPTIONS]
	local n=$1 img=$2 cs=$3
	shift 3
	"$REF_DEBUGFS" -R "logdump -a $*" "$img" 2>/dev/null >"$T/$n.ref.ld" ||
		fail "$n: the reference logdump failed"
	"$E4DEBUGFS" -R "logdump -a $*" "$img" >"$T/$n.e4.raw" 2>&1 ||
		fail "$n: e4debugfs logdump failed: $(head -3 "$T/$n.e4.raw")"
	if grep -E 'BAD|partial|unreadable' "$T/$n.e4.raw" | head -3 >&2; then
		fail "$n: a checksum written by the library does not verify"
	fi
	[ "$(grep -c ' OK' "$T/$n.e4.raw")" -gt 0 ] || [ "$cs" = nocsum ] ||
		fail "$n: no checksum was verified"
	grep -vE '^ *(Descriptor checksum|Revoke checksum|Commit time):' "$T/$n.e4.raw" |
		sed -E 's/(\(flags 0x[0-9a-f]+\)) checksum .*$/\1/' >"$T/$n.e4.ld"
	# 7001 starts with the magic: logged escaped (flag 0x1)
	grep -qE '^  FS block 7001 logged at journal block [0-9]+ \(flags 0x[0-9a-f]*[13579bdf]\)' \
		"$T/$n.ref.ld" || fail "$n: block 7001 (the jbd2 magic) is not logged escaped"
	diff "$T/$n.ref.ld" "$T/$n.e4.ld" >"$T/$n.ld.diff" ||
		fail "$n: logdump differs from the reference's:$(head -8 "$T/$n.ld.diff")"
}

# The transactions every case writes (1 KiB blocks, targets in free space):
# T1 logs 7000-7003 (7001 starts with the magic), T2 revokes 7001 (from
# T1), 7003 (logged again in T3) and 7005 (logged in T2 itself) and logs
# 7004, 7005; T3 logs 7003 and 7010-7089 (two descriptors).
STEPS=(b:7000:1 m:7001:1 b:7002:1 b:7003:1 c
	r:7001 r:7003 r:7005 b:7004:2 b:7005:2 c
	b:7003:3 $(seq -f 'b:%g:4' 7010 7089) c)
WANT=(7000:1 7001:0 7002:1 7003:3 7004:2 7005:0 7010:4 7089:4)

# kernel_replay NAME IMG: the kernel replays the log when it mounts a copy
# read-write; the copy then holds the expected blocks.  Without root and
# loop devices only said (the other oracles still run).
kernel_replay() {
	local n=$1 k=$T/$1.kernel
	if [ "$(id -u)" != 0 ] || { [ ! -e /dev/loop-control ] && ! modprobe loop 2>/dev/null; }; then
		verbose "$n: no kernel replay (needs root and loop devices)"
		return 0
	fi
	cp "$2" "$k"
	mount_loop "$k" "$T/mnt" || fail "$n: the kernel refuses to mount the log: $(dmesg | tail -3)"
	umount_retry "$T/mnt"
	"$PYTHON" "$T/check.py" "$k" 1024 "${WANT[@]}" >&2 ||
		fail "$n: the kernel's replay misses the transactions' blocks"
	rm -f "$k"
}

run_case() {	# run_case NAME MKE2FS-OPTIONS WRITER-OPTIONS [nocsum]
	local n=$1 mk=$2 wo=$3 cs=${4:-} img=$T/$1.img skips rc4 rcr
	# shellcheck disable=SC2086
	"$REF_MKE2FS" -q -F -o Linux -t ext4 -b 1024 -J size=1 $mk "$img" 8192 >/dev/null 2>&1 ||
		fail "$n: mke2fs failed"
	# shellcheck disable=SC2086
	"$DRV" $wo "$img" "${STEPS[@]}" >"$T/$n.drv" 2>&1 ||
		fail "$n: the writer failed: $(cat "$T/$n.drv")"
	logdump_cmp "$n" "$img" "${cs:-csum}"
	[ -z "$KERNEL" ] || kernel_replay "$n" "$img"
	cp "$img" "$T/$n.e4"
	cp "$img" "$T/$n.ref"
	"$E4FSCK" -y -E journal_only "$T/$n.e4" >"$T/$n.e4.fsck" 2>&1
	rc4=$?
	"$REF_E2FSCK" -fy "$T/$n.ref" >"$T/$n.ref.fsck" 2>&1 </dev/null
	rcr=$?
	[ $rcr -le 1 ] || fail "$n: e2fsck -fy exit $rcr: $(head -5 "$T/$n.ref.fsck")"
	[ $rc4 -le 1 ] || fail "$n: e4fsck exit $rc4: $(head -5 "$T/$n.e4.fsck")"
	grep -q 'recovering journal' "$T/$n.ref.fsck" || fail "$n: e2fsck found nothing to recover"
	"$PYTHON" "$T/check.py" "$T/$n.ref" 1024 "${WANT[@]}" >&2 ||
		fail "$n: the reference's replay misses the transactions' blocks"
	skips=$("$REF_DEBUGFS" -R 'blocks <8>' "$img" 2>/dev/null | "$PYTHON" "$T/skips.py" 1024)
	# shellcheck disable=SC2086
	"$PYTHON" "$E4_TESTDIR/imgcmp.py" "$T/$n.e4" "$T/$n.ref" $skips >&2 ||
		fail "$n: e4fsck and e2fsck replays differ"
	rm -f "$img" "$T/$n.e4" "$T/$n.ref"
	verbose "$n: ok"
}

KERNEL=
run_case none '-O ^metadata_csum,^64bit' '-v 0' nocsum
run_case none64 '-O ^metadata_csum,64bit' '-v 0 -6' nocsum
run_case v1 '-O ^metadata_csum,^64bit' '-v 1' nocsum
run_case v1async '-O ^metadata_csum,^64bit' '-v 1 -a' nocsum
run_case v2_32 '-O metadata_csum,^64bit' '-v 2'
run_case v2_64 '-O metadata_csum,64bit' '-v 2 -6'
run_case v3_32 '-O metadata_csum,^64bit' '-v 3 -3'
run_case v3_64 '-O metadata_csum,64bit' '-v 3 -6'
run_case v3async '-O metadata_csum,64bit' '-v 3 -a'
# the log wraps inside T1's data (journal blocks 1-1023); the kernel
# replays these two as well
KERNEL=1
run_case wrap '-O metadata_csum,64bit' '-v 3 -s 1021'
run_case wrap_v1 '-O ^metadata_csum,^64bit' '-v 1 -s 1020 -a' nocsum
KERNEL=

# External journal device: the writer, e4fsck -j and e2fsck -j.
n=ext
jnl=$T/ext.jnl
img=$T/ext.img
"$REF_MKE2FS" -q -F -o Linux -b 1024 -O journal_dev "$jnl" 1024 >/dev/null 2>&1 ||
	fail "ext: mke2fs -O journal_dev failed"
# as the corpus's j_ext_* images were made: the journal fields by debugfs
"$REF_MKE2FS" -q -F -o Linux -t ext4 -b 1024 -O ^has_journal "$img" 8192 >/dev/null 2>&1 ||
	fail "ext: mke2fs failed"
juuid=$("$REF_DUMPE2FS" -h "$jnl" 2>/dev/null | sed -n 's/^Filesystem UUID: *//p')
"$REF_DEBUGFS" -w -f - "$img" >/dev/null 2>&1 <<EOF2 || fail "ext: debugfs failed"
feature has_journal
ssv journal_dev 0x9999
ssv journal_uuid $juuid
EOF2
"$DRV" -j "$jnl" -v 3 "$img" "${STEPS[@]}" >"$T/ext.drv" 2>&1 ||
	fail "ext: the writer failed: $(cat "$T/ext.drv")"
logdump_cmp ext "$img" csum -f "$jnl"
for t in e4 ref; do
	cp "$img" "$T/ext.$t"
	cp "$jnl" "$T/ext.$t.jnl"
done
"$E4FSCK" -y -E journal_only -j "$T/ext.e4.jnl" "$T/ext.e4" >"$T/ext.e4.fsck" 2>&1
rc4=$?
"$REF_E2FSCK" -fy -j "$T/ext.ref.jnl" "$T/ext.ref" >"$T/ext.ref.fsck" 2>&1 </dev/null
rcr=$?
[ $rcr -le 1 ] && [ $rc4 -le 1 ] || fail "ext: exits e4fsck $rc4, e2fsck $rcr"
grep -q 'recovering journal' "$T/ext.ref.fsck" || fail "ext: e2fsck found nothing to recover"
"$PYTHON" "$T/check.py" "$T/ext.ref" 1024 "${WANT[@]}" >&2 || fail "ext: the reference's replay misses blocks"
"$PYTHON" "$E4_TESTDIR/imgcmp.py" "$T/ext.e4" "$T/ext.ref" --skip 1024:1024 >&2 ||
	fail "ext: e4fsck -j and e2fsck -j replays differ"
# both journals emptied alike (their superblocks aside: s_sequence is set by each tool)
"$PYTHON" "$E4_TESTDIR/imgcmp.py" "$T/ext.e4.jnl" "$T/ext.ref.jnl" --skip 1024:2048 >&2 ||
	fail "ext: the journal devices differ after replay"

# A log with transactions is continued after its last commit, not
# overwritten: a second writer run adds T4 (logs 7005) behind T1-T3; an
# uncommitted transaction left by a third run is overwritten by T5.
img=$T/cont.img
"$REF_MKE2FS" -q -F -o Linux -b 1024 -J size=1 -O metadata_csum "$img" 8192 >/dev/null 2>&1
"$DRV" -v 3 "$img" "${STEPS[@]}" >/dev/null 2>&1 || fail "cont: the first writer run failed"
out=$("$DRV" "$img" b:7005:5 c 2>&1) || fail "cont: the second writer run failed: $out"
[ "$out" = "head 99 tid 5" ] || fail "cont: second run says '$out', expected head 99 tid 5 (T1-T3 fill blocks 1-95)"
# an uncommitted transaction (7006) is written over by the next run's
out=$("$DRV" "$img" b:7006:6 n 2>&1) || fail "cont: the uncommitted run failed: $out"
[ "$out" = "head 99 tid 5" ] || fail "cont: an uncommitted transaction moved the head: '$out'"
out=$("$DRV" "$img" b:7007:7 c 2>&1) || fail "cont: the run after it failed: $out"
[ "$out" = "head 102 tid 6" ] || fail "cont: after the uncommitted one '$out', expected head 102 tid 6"
"$REF_E2FSCK" -fy "$img" >/dev/null 2>&1 </dev/null
"$PYTHON" "$T/check.py" "$img" 1024 7000:1 7003:3 7005:5 7006:0 7007:7 >&2 ||
	fail "cont: the replay misses T1-T5 or replays the uncommitted one"
exit 0
