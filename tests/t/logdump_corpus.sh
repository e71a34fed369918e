#!/bin/bash
# logdump_corpus: `e4debugfs -R 'logdump -a'` walks the same log as the
# reference `debugfs -R 'logdump -a'` on every journal image of the corpus
# and on a kernel crash image made here (shutdown with LOGFLUSH, copied
# while mounted; skipped without root and loop devices).
#
# Numbers are compared, not wording: from each output the test extracts,
# in order, the start (block, tid), every "sequence S, type T at block B"
# line, every tag (fs block, journal block), every revoked fs block and
# the end of the walk (block where it stopped).  The lists must be equal.
# The JSON output (logdump -j) must carry the same tids, tags and revoked
# blocks as the text output (checked on every image the reference dumps).
# External journal images are also dumped with -f JOURNAL_IMAGE.
# Where the reference cannot dump the journal (no "Journal starts" line,
# e.g. an external journal it cannot find), e4debugfs only has to finish
# without a crash, sanitizer report or hang.  -c is used for both tools
# (crash images have bitmaps the reference may refuse).
# Catches: a log walk that skips revoke blocks (the lists of revoked
# blocks differ).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_DEBUGFS" "$PYTHON"
need_e4debugfs
export TZ=UTC

cat >"$T/nums.py" <<'PY'
import re, sys
pats = [
    ("start", re.compile(r"Journal starts at block (\d+), transaction (\d+)")),
    ("blk", re.compile(r"Found expected sequence (\d+), type (\d+) \([^)]*\) at block (\d+)")),
    ("tag", re.compile(r"FS block (\d+) logged at journal block (\d+)")),
    ("rev", re.compile(r"Revoke FS block (\d+)")),
    ("end", re.compile(r"No magic number at block (\d+)")),
    ("end", re.compile(r"Found sequence \d+ \(not \d+\) at block (\d+)")),
]
out = []
for line in open(sys.argv[1], errors="replace"):
    if line.startswith("*** Fast Commit Area"):
        break
    for kind, p in pats:
        for m in p.finditer(line):
            out.append(kind + " " + " ".join(m.groups()))
print("\n".join(out))
PY

cat >"$T/jsoncheck.py" <<'PY'
import json, re, sys
text = open(sys.argv[1], errors="replace").read()
j = json.load(open(sys.argv[2]))
tags = [tuple(map(int, m)) for m in re.findall(r"FS block (\d+) logged at journal block (\d+)", text)]
revs = [int(m) for m in re.findall(r"Revoke FS block (\d+)", text)]
tids = [int(m) for m in re.findall(r"Found expected sequence (\d+)", text)]
jt = [(t["fs_block"], t["journal_block"]) for tr in j["transactions"] for t in tr["tags"]]
jr = [r for tr in j["transactions"] for r in tr["revoked"]]
jtids = [tr["tid"] for tr in j["transactions"]]
ok = jt == tags and jr == revs and sorted(set(tids)) == jtids
ok = ok and j["start_tid"] == int(re.search(r"transaction (\d+)", text).group(1))
sys.exit(0 if ok else 1)
PY

compare() {	# compare NAME IMG [LOGDUMP OPTIONS]
	local n=$1 img=$2 opts=${3:-} rc
	runcap "$T/$n.ref" 60 "$REF_DEBUGFS" -c -R "logdump -a $opts" "$img"
	runcap "$T/$n.e4" 10 "$E4DEBUGFS" -c -R "logdump -a $opts" "$img"
	rc=$(cat "$T/$n.e4.rc")
	if [ "$rc" -ge 124 ] || san_report "$T/$n.e4.err"; then
		echo "$n: e4debugfs $(describe_rc "$rc")" >&2
		head -5 "$T/$n.e4.err" >&2
		bad=$((bad + 1))
		return
	fi
	if ! grep -q '^Journal starts' "$T/$n.ref.out"; then
		verbose "$n: the reference does not dump this journal (e4: $(describe_rc "$rc"))"
		nodump=$((nodump + 1))
		return
	fi
	"$PYTHON" "$T/nums.py" "$T/$n.ref.out" >"$T/$n.ref.nums"
	"$PYTHON" "$T/nums.py" "$T/$n.e4.out" >"$T/$n.e4.nums"
	if ! cmp -s "$T/$n.ref.nums" "$T/$n.e4.nums"; then
		echo "$n: numbers differ (reference <, e4debugfs >):" >&2
		diff "$T/$n.ref.nums" "$T/$n.e4.nums" | head -10 >&2
		bad=$((bad + 1))
		return
	fi
	# --json: the same values as the text output
	runcap "$T/$n.js" 10 "$E4DEBUGFS" -c -R "logdump -j $opts" "$img"
	if ! "$PYTHON" "$T/jsoncheck.py" "$T/$n.e4.out" "$T/$n.js.out"; then
		echo "$n: logdump -j disagrees with logdump -a" >&2
		bad=$((bad + 1))
		return
	fi
	good=$((good + 1))
	items=$((items + $(wc -l <"$T/$n.ref.nums")))
}

bad=0 good=0 nodump=0 items=0
for gz in "$E4KIT_SHARED"/corpus/journal/*.img.gz; do
	n=$(basename "$gz" .img.gz)
	zcat "$gz" >"$T/$n.img" || fail "cannot unpack $gz"
	compare "$n" "$T/$n.img"
	# an external journal: also through -f with its journal device image
	if [ -e "${gz%.img.gz}.jnl.gz" ]; then
		zcat "${gz%.img.gz}.jnl.gz" >"$T/$n.jnl" || fail "cannot unpack its journal"
		compare "$n-ext" "$T/$n.img" "-f $T/$n.jnl"
		rm -f "$T/$n.jnl"
	fi
	rm -f "$T/$n.img"
done

# a kernel crash image
crash_image() {
	local img=$T/crash.img mnt=$T/mnt i
	[ "$(id -u)" = 0 ] || return 1
	command -v xfs_io >/dev/null 2>&1 || return 1
	"$REF_MKE2FS" -q -F -t ext4 "$img" 64M >/dev/null 2>&1 || return 1
	mount_loop "$img" "$mnt" || return 1
	mkdir "$mnt/d"
	for i in $(seq 1 200); do echo "file $i" >"$mnt/d/f$i"; done
	sync
	for i in $(seq 1 100); do rm -f "$mnt/d/f$i"; done
	dd if=/dev/urandom of="$mnt/big" bs=64k count=20 conv=fsync status=none
	for i in $(seq 1 50); do echo "new $i" >"$mnt/d/g$i"; done
	mv "$mnt/d/g1" "$mnt/d/f150"
	xfs_io -x -c 'shutdown -f' "$mnt" || return 1
	cp "$img" "$T/crash-copy.img" || return 1
	umount_retry "$mnt"
	return 0
}
if need_root_loop_ok=$( ([ "$(id -u)" = 0 ] && losetup -f) 2>/dev/null) && crash_image; then
	compare crash "$T/crash-copy.img"
	grep -q '^Found expected sequence .* (commit block)' "$T/crash.ref.out" ||
		fail "the crash image has no committed transaction (test setup)"
else
	is_ci && fail "could not make a kernel crash image"
	info "no kernel crash image (needs root, loop devices, xfs_io)"
fi

info "$good images agree ($items numbered items), $nodump not dumpable by the reference, $bad failures"
[ "$bad" = 0 ] || fail "$bad images differ"
exit 0
