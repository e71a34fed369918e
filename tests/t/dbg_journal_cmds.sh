#!/bin/bash
# dbg_journal_cmds: e4debugfs's jo/jw/jc write the same log as the
# reference debugfs given the same commands: on a metadata_csum 64bit
# filesystem (jo -c: csum v3, 64-bit tags) and on one without
# metadata_csum (jo -c: the v1 commit checksum, 32-bit tags), with a
# revoke-only transaction, an uncommitted one written over by the next,
# and a block whose contents start with the jbd2 magic (blocks and revokes
# in one jw: replays compared only, the order of the two differs on
# purpose: the kernel's, revoke block first).  The reference's
# logdump -a of both images is the same text, dumpe2fs shows the same
# journal fields; jr replays e4debugfs's log like the reference e2fsck -fy
# (images equal outside the superblock and the journal; the revoked blocks
# untouched); the refusals print the reference's lines (Journal not
# open., Journal is already open., a read-only filesystem).
# Catches: jw -c taken as "commit" (an extra transaction in the log), a
# v1 journal given v3 tags (the logdump differs).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DEBUGFS" "$REF_DUMPE2FS" "$PYTHON"
need_e4debugfs
export TZ=UTC E2FSCK_CONFIG=/dev/null

# 8 blocks of contents; the fourth starts with the jbd2 magic
"$PYTHON" - "$T/data" <<'PY'
import random, sys
r = random.Random(14)
b = bytearray(r.getrandbits(8) for _ in range(8 * 1024))
b[3 * 1024:3 * 1024 + 4] = b"\xc0\x3b\x39\x98"
open(sys.argv[1], "wb").write(b)
PY
cat >"$T/cmds" <<EOF
jo -c
jw -b 7000-7003 $T/data
jw -r 7001
jw -b 7004,7005 -c $T/data
jw -b 7006 $T/data
jc
EOF
# blocks and revokes in one transaction: the kernel writes the revoke
# block first, the reference debugfs after the descriptor; the replay is
# the same, so only the replays are compared
cat >"$T/cmds2" <<EOF
jo
jw -b 7007 -r 7002 $T/data
jc
EOF

for kind in csum64 plain32; do
	opts='-O metadata_csum,64bit'
	[ $kind = plain32 ] && opts='-O ^metadata_csum,^64bit'
	# shellcheck disable=SC2086
	"$REF_MKE2FS" -q -F -o Linux -t ext4 -b 1024 -J size=1 $opts "$T/base.img" 8192 >/dev/null 2>&1 ||
		fail "$kind: mke2fs failed"
	cp "$T/base.img" "$T/ref.img"
	cp "$T/base.img" "$T/e4.img"
	"$REF_DEBUGFS" -w -f "$T/cmds" "$T/ref.img" >/dev/null 2>&1 || fail "$kind: the reference debugfs failed"
	"$E4DEBUGFS" -w -f "$T/cmds" "$T/e4.img" >"$T/e4.out" 2>&1 ||
		fail "$kind: e4debugfs failed: $(grep -v '^e4debugfs:' "$T/e4.out" | head -3)"
	for t in ref e4; do
		"$REF_DEBUGFS" -R 'logdump -a' "$T/$t.img" >"$T/$t.ld" 2>/dev/null
		"$REF_DUMPE2FS" -h "$T/$t.img" 2>/dev/null | grep -E '^Journal (features|sequence|start|checksum type)|^Filesystem features' >"$T/$t.jf"
	done
	grep -q 'FS block 7006' "$T/ref.ld" || fail "$kind: the reference's log lacks the last transaction"
	diff "$T/ref.ld" "$T/e4.ld" >&2 || fail "$kind: logdump -a of the two logs differs (ref <, e4 >)"
	diff "$T/ref.jf" "$T/e4.jf" >&2 || fail "$kind: the journal fields differ (ref <, e4 >)"

	# jr against the reference e2fsck, both replaying e4debugfs's log (the
	# reference debugfs 1.47.0 writes a v1 commit checksum its own e2fsck
	# calls bad for a transaction of revoke records only; the kernel's rule,
	# a crc32_be over descriptor and data blocks, gives ~0 there)
	"$E4DEBUGFS" -w -f "$T/cmds2" "$T/e4.img" >"$T/e4.out" 2>&1 || fail "$kind: e4debugfs failed"
	"$E4DEBUGFS" -R 'logdump -a' "$T/e4.img" >"$T/e4.ld2" 2>&1
	grep -q 'FS block 7007' "$T/e4.ld2" || fail "$kind: the log lacks jw -b 7007 -r 7002"
	! grep -E 'BAD|partial' "$T/e4.ld2" >&2 || fail "$kind: a checksum of e4debugfs's log does not verify"
	cp "$T/e4.img" "$T/e4fsck.img"
	"$E4DEBUGFS" -w -R jr "$T/e4.img" >"$T/jr.out" 2>&1 || fail "$kind: jr failed: $(head -3 "$T/jr.out")"
	"$REF_E2FSCK" -fy "$T/e4fsck.img" >"$T/fsck.out" 2>&1 </dev/null
	[ $? -le 1 ] || fail "$kind: e2fsck -fy failed: $(head -3 "$T/fsck.out")"
	skips=$("$REF_DEBUGFS" -R 'blocks <8>' "$T/base.img" 2>/dev/null |
		"$PYTHON" -c 'import sys
b = sorted(int(x) for x in sys.stdin.read().split())
print("--skip 1024:1024 --skip %d:%d" % (b[0] * 1024, (b[-1] - b[0] + 1) * 1024))')
	# shellcheck disable=SC2086
	"$PYTHON" "$E4_TESTDIR/imgcmp.py" "$T/e4.img" "$T/e4fsck.img" $skips >&2 ||
		fail "$kind: jr and e2fsck -fy replay differently"
	cmp -s <(dd if="$T/e4.img" bs=1024 skip=7001 count=2 2>/dev/null) <(head -c 2048 /dev/zero) ||
		fail "$kind: jr replayed the revoked blocks 7001-7002"
done

# refusals, in the reference's words
out=$("$E4DEBUGFS" -w -R jc "$T/base.img" 2>&1)
grepq -F 'Journal not open.' <<<"$out" || fail "jc without jo: '$out'"
out=$(printf 'jo\njo\n' | "$E4DEBUGFS" -w -f - "$T/base.img" 2>&1)
grepq -F 'Journal is already open.' <<<"$out" || fail "jo twice: '$out'"
out=$("$E4DEBUGFS" -R jo "$T/base.img" 2>&1) && fail "jo on a read-only open succeeded"
grepq -F 'Filesystem opened read/only' <<<"$out" || fail "jo read-only: '$out'"
exit 0
