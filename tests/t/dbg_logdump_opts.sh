#!/bin/bash
# dbg_logdump_opts: `logdump -O` walks on past sequence breaks into the old,
# checkpointed log, and `logdump -O -n N` also past blocks without the magic
# number, until N commit blocks or one round of the log (issue 12 item 6).
# Catches: -O that stops at the first sequence break like a plain walk, so
# a journal already replayed shows nothing of its old transactions; -n
# refused as an unknown option.
#
# Images: journal images of the corpus whose log has a corrupted tid or a
# stale transaction behind a gap, and two the reference e2fsck replayed
# (s_start 0: all of the log is old; one with several transactions and a
# corrupted tid, one clean).  Each runs `logdump -a` with -O, -O -n 1,
# -O -n 2 and -O -n 1000 in both tools.  Compared with the reference
# 1.47.0, in order: the start, every block walked (sequence, type, block),
# every tag (fs block, journal block), every revoked block, the first block
# without the magic number, and the transaction count of a walk that went
# round the whole log ("Dump all N journal records").  Sequence-break lines
# are not compared: after a break the reference keeps counting from the
# current log, so in an old log it reports every header against a number
# no block carries; e4debugfs follows the sequence it found, so a break is
# reported once, where it happens.  The test checks that rule on
# e4debugfs's output (a break exactly where a block's sequence is not the
# one the previous block leads to) and that the first break is the
# reference's.  -n without -O changes nothing, as in the reference.
# On a fresh journal (no magic number anywhere) the reference never ends
# `logdump -O -n` (it loops); e4debugfs stops after one round.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_DEBUGFS" "$REF_E2FSCK" "$PYTHON"
need_e4debugfs
export TZ=UTC
J=$E4KIT_SHARED/corpus/journal

cat >"$T/walk.py" <<'PY'
# walk.py LIST: each line "NAME REF_OUT E4_OUT"; prints one line per failure
import re, sys
pats = [
    ("start", re.compile(r"^Journal starts at block (\d+), transaction (\d+)")),
    ("blk", re.compile(r"^Found expected sequence (\d+), type (\d+) \([^)]*\) at block (\d+)")),
    ("tag", re.compile(r"FS block (\d+) logged at journal block (\d+)")),
    ("rev", re.compile(r"Revoke FS block (\d+)")),
    ("end", re.compile(r"No magic number at block (\d+)")),
    ("brk", re.compile(r"Found sequence (\d+) \(not (\d+)\) at block (\d+)")),
    ("round", re.compile(r"^Dump all (\d+) journal records")),
    ("round", re.compile(r"^Walked the whole log \(\d+ blocks\): (\d+) transactions")),
]

def items(path):
    out = []
    for line in open(path, errors="replace"):
        for kind, p in pats:
            for m in p.finditer(line):
                out.append((kind,) + tuple(int(g) for g in m.groups()))
    return out

def rule(its):
    """A break is reported exactly where a block's sequence is not the one
    the previous block leads to (the same; +1 after a commit block)."""
    want, pending = None, None
    for it in its:
        if it[0] == "start":
            want = it[2]
        elif it[0] == "brk":
            pending = it
        elif it[0] == "blk":
            seq, typ, blk = it[1:]
            if seq != want:
                if not pending or pending[1:] != (seq, want, blk):
                    return "no break reported at block %d (%d, not %d)" % (blk, seq, want)
            elif pending:
                return "a break reported at block %d without one" % pending[3]
            pending = None
            want = (seq + 1) & 0xffffffff if typ == 2 else seq
    return "a break reported at block %d without its block" % pending[3] if pending else None

bad = 0
for line in open(sys.argv[1]):
    name, ref, e4 = line.split()
    r, e = items(ref), items(e4)
    rw = [i for i in r if i[0] != "brk"]
    ew = [i for i in e if i[0] != "brk"]
    why = None
    if not any(i[0] == "blk" for i in rw):
        why = "the reference walked nothing (test setup)"
    elif rw != ew:
        k = next((n for n, (x, y) in enumerate(zip(rw, ew)) if x != y), min(len(rw), len(ew)))
        why = "walks differ at item %d: reference %s, e4debugfs %s" % (
            k, rw[k] if k < len(rw) else "-", ew[k] if k < len(ew) else "-")
    elif [i for i in r if i[0] == "brk"][:1] != [i for i in e if i[0] == "brk"][:1]:
        why = "the first sequence break differs from the reference's"
    else:
        why = rule(e)
    if why:
        print("%s: %s" % (name, why))
        bad += 1
sys.exit(1 if bad else 0)
PY

cat >"$T/jsoncheck.py" <<'PY'
import json, re, sys
text = open(sys.argv[1], errors="replace").read()
j = json.load(open(sys.argv[2]))
tags = [tuple(map(int, m)) for m in re.findall(r"FS block (\d+) logged at journal block (\d+)", text)]
revs = [int(m) for m in re.findall(r"Revoke FS block (\d+)", text)]
tids = []
for m in re.findall(r"Found expected sequence (\d+), type \d+", text):
    if not tids or tids[-1] != int(m):
        tids.append(int(m))
jt = [(t["fs_block"], t["journal_block"]) for tr in j["transactions"] for t in tr["tags"]]
jr = [r for tr in j["transactions"] for r in tr["revoked"]]
jtids = [tr["tid"] for tr in j["transactions"]]
if (jt, jr, jtids) != (tags, revs, tids):
    sys.exit("JSON %s / text %s" % ((len(jt), len(jr), jtids), (len(tags), len(revs), tids)))
PY

bad=0
err() { echo "$*" >&2; bad=$((bad + 1)); }

# run NAME IMG OPTS: both tools, `logdump -a OPTS`; the pair goes on the list
run() {
	local n=$1 img=$2 opts=$3 rc
	runcap "$T/$n.ref" 20 "$REF_DEBUGFS" -c -R "logdump -a $opts" "$img"
	runcap "$T/$n.e4" 10 "$E4DEBUGFS" -c -R "logdump -a $opts" "$img"
	rc=$(cat "$T/$n.e4.rc")
	if [ "$rc" != 0 ] || san_report "$T/$n.e4.err"; then
		err "$n: e4debugfs $(describe_rc "$rc"): $(head -3 "$T/$n.e4.err")"
		return
	fi
	echo "$n $T/$n.ref.out $T/$n.e4.out" >>"$T/list"
}

# the corpus images (2 MiB each), and two the reference e2fsck replayed
imgs="j_corrupt_commit_tid j_corrupt_descr_tid j_corrupt_revoke_block j_corrupt_sb_csum"
for i in $imgs j_recover_fast_commit; do
	zcat "$J/$i.img.gz" >"$T/$i.img" || fail "cannot unpack $i"
done
for i in j_corrupt_commit_tid j_recover_fast_commit; do
	cp "$T/$i.img" "$T/old_$i.img"
	"$REF_E2FSCK" -fy "$T/old_$i.img" >"$T/old_$i.fsck" 2>&1
	"$REF_DEBUGFS" -c -R 'logdump' "$T/old_$i.img" 2>/dev/null |
		grepq '^Journal starts at block 0,' ||
		fail "the reference e2fsck did not replay $i (test setup)"
done

: >"$T/list"
for i in $imgs old_j_corrupt_commit_tid old_j_recover_fast_commit; do
	for o in "-O" "-O -n 1" "-O -n 2" "-O -n 1000"; do
		run "$i${o// /}" "$T/$i.img" "$o"
	done
done
"$PYTHON" "$T/walk.py" "$T/list" >&2 || err "walks differ from the reference's"

# values: -O reaches the stale commit of tid 2 at block 9 only with -n;
# a replayed journal shows its old transaction with one break
grepq '^Found expected sequence 2, type 2 (commit block) at block 9$' \
	"$T/j_corrupt_revoke_block-O-n2.e4.out" || err "-O -n 2 did not reach block 9"
grepq '^Stopped after 2 transactions' "$T/j_corrupt_revoke_block-O-n2.e4.out" ||
	err "-O -n 2 did not stop after 2 transactions"
grepq 'at block 9' "$T/j_corrupt_revoke_block-O.e4.out" &&
	err "-O without -n went past the block without magic number"
grepq '^Found expected sequence 5, type 2 (commit block) at block 10$' \
	"$T/old_j_recover_fast_commit-O.e4.out" || err "-O on a replayed journal: no old commit"
[ "$(grep -c '^Found sequence' "$T/old_j_corrupt_commit_tid-O.e4.out")" = 3 ] ||
	err "-O on a replayed journal: not 3 sequence breaks (old log, bad tid and back)"

# -O JSON carries the same transactions, tags and revoked blocks as the text
for i in j_corrupt_commit_tid old_j_corrupt_commit_tid; do
	runcap "$T/$i.js" 10 "$E4DEBUGFS" -c -R "logdump -j -O -n 1000" "$T/$i.img"
	"$PYTHON" "$T/jsoncheck.py" "$T/$i-O-n1000.e4.out" "$T/$i.js.out" ||
		err "$i: logdump -j -O -n disagrees with the text"
done

# -n without -O: the plain walk, as the reference
runcap "$T/plain" 10 "$E4DEBUGFS" -c -R "logdump -a" "$T/j_corrupt_revoke_block.img"
runcap "$T/plainn" 10 "$E4DEBUGFS" -c -R "logdump -a -n 2" "$T/j_corrupt_revoke_block.img"
cmp -s "$T/plain.out" "$T/plainn.out" || err "-n without -O changed the walk"
grepq -- '-n has an effect only with -O' "$T/plainn.err" || err "-n without -O: no note"

# a bad count is refused; nothing is walked
runcap "$T/badn" 10 "$E4DEBUGFS" -c -R "logdump -O -n 1x" "$T/j_corrupt_revoke_block.img"
grepq 'Bad transaction count - 1x' "$T/badn.err" || err "-n 1x: no error"
grepq 'Journal starts' "$T/badn.out" && err "-n 1x: walked anyway"

# a fresh journal, no magic number anywhere: the reference loops with
# -O -n; one round of the 1023-block log, then stop
"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$T/fresh.img" 4M >/dev/null 2>&1 || fail "mke2fs"
runcap "$T/fresh" 10 "$E4DEBUGFS" -c -R "logdump -O -n 5" "$T/fresh.img"
grepq '^Walked the whole log (1023 blocks): 0 transactions' "$T/fresh.out" ||
	err "-O -n on a fresh journal: $(describe_rc "$(cat "$T/fresh.rc")"), no round line"

[ "$bad" = 0 ] || fail "$bad failures"
info "logdump -O / -n agree with the reference: $(wc -l <"$T/list") walks"
exit 0
