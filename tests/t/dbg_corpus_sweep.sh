#!/bin/bash
# dbg_corpus_sweep: every read-only e4debugfs command runs on every image of
# ../shared/corpus (fsck and journal kinds) without a crash, a sanitizer
# report or a hang, and where the reference debugfs succeeds, e4debugfs
# succeeds too (issue 3, acceptance 3).
#
# Per image: the reference `debugfs -R "stats -h"` decides whether the image
# needs -c (it cannot open it otherwise); then one request file with every
# command (stats, stat of reserved inodes, ls, ex, blocks, bmap, imap, testi,
# testb, ffb, ffi, icheck, ncheck, htree, dx_hash, dirsearch, ea_list,
# ea_get, filefrag, bd, lsdel, supported_features, logdump, and the JSON
# forms of stats, stat and logdump) runs through one
# process of each tool (-f) with stderr merged (the reference under stdbuf
# -oL), so each command's errors stay in its section.  A command failed when a line of its
# section starts with "<command>: " (com_err's form; a warning "<command>:
# warning: ..." is not a failure).  The reference failed a command when its
# section holds a line it printed on stderr (a second run captures stderr
# alone, as its messages do not always name the command) or is empty (it
# fails some commands silently).
# e4debugfs must finish the whole file within 10 s (30 s with sanitizers).
# A crash, hang or sanitizer report fails the test, and so does a command
# the reference completes but e4debugfs fails, except the known differences
# in KNOWN below (E4_SWEEP_STRICT=1 fails on those too); there are none
# now.  A reference logdump that prints "Journal superblock magic number
# invalid!" (on stdout, exit 0) and dumps nothing counts as failed:
# e4debugfs reports that error as a failure.
# A command for which the reference used an external journal it found among
# the host's block devices (by UUID: whatever loop device is attached) is
# not compared.
# Images are handled E4_JOBS (default 2) at a time.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

TMO=${E4_SWEEP_TIMEOUT:-$([ -n "$E4_SANITIZERS" ] && echo 30 || echo 10)}

REQ='stats
stats -h
stat <1>
stat <2>
stat <5>
stat <7>
stat <8>
stat <11>
stat <12>
ls -l /
ex <2>
ex <7>
ex <8>
ex <12>
blocks <2>
blocks <8>
bmap <2> 0
imap <2>
imap <12>
testi <2>
testi <12>
testb 1 20
ffb 5
ffi
icheck 1 2 3 100 1000
ncheck 2 11 12 13
ncheck -c 12 13
htree /
dx_hash -h 1 hello
dirsearch / lost+found
ea_list <2>
ea_list <12>
ea_get <12> user.test
filefrag -v /
filefrag -dv /
bd 0
bd 1
bd -x 1
lsdel
supported_features
logdump
logdump -a
stats -j
stat -j <2>
stat -j <12>
ex -n <8>
bd -f <2> 0
logdump -j'

if [ "${1:-}" = --one ]; then
	gz=$2 res=$3
	n=$(basename "$gz" .img.gz)
	img=$T/$n.img
	gzip -dc "$gz" | dd of="$img" bs=64k conv=sparse status=none ||
		{ echo "decompression failed" >"$res/$n.error"; exit 0; }
	opt=
	"$REF_DEBUGFS" -R "stats -h" "$img" >/dev/null 2>"$T/$n.probe" </dev/null
	grep -q "while opening\|while reading\|while trying to open" "$T/$n.probe" && opt=-c
	echo "$opt" >"$res/$n.opt"
	printf '%s\n' "$REQ" >"$T/$n.req"
	# (a subshell: the reference dies of SIGFPE on some images, and the
	# shell's note about it would clutter the log)
	(timeout -k 5 60 stdbuf -oL "$REF_DEBUGFS" $opt -f "$T/$n.req" "$img" \
		>"$res/$n.ref.out" 2>&1 </dev/null) 2>/dev/null
	echo $? >"$res/$n.ref.rc"
	# once more for its stderr alone: which lines of the merged output
	# are error messages (not all of them name the command)
	(timeout -k 5 60 "$REF_DEBUGFS" $opt -f "$T/$n.req" "$img" \
		>/dev/null 2>"$res/$n.ref.err" </dev/null) 2>/dev/null
	# no stdbuf here (its preload upsets the sanitizer runtime): e4debugfs
	# flushes stdout after each echoed request and each command
	timeout -k 5 "$TMO" "$E4DEBUGFS" $opt -f "$T/$n.req" "$img" \
		>"$res/$n.e4.out" 2>&1 </dev/null
	echo $? >"$res/$n.e4.rc"
	rm -f "$img"
	exit 0
fi

need_oracle "$REF_DEBUGFS" "$PYTHON"
need_cmd stdbuf
need_e4debugfs
CORPUS=$E4KIT_SHARED/corpus
[ -d "$CORPUS/fsck" ] || skip "no corpus in $CORPUS"

RES=$T/res
mkdir -p "$RES"
ls "$CORPUS"/fsck/*.img.gz "$CORPUS"/journal/*.img.gz >"$T/images" 2>/dev/null
[ -s "$T/images" ] || skip "no images in $CORPUS"
if [ -n "${E4_CORPUS_ONLY:-}" ]; then
	grep -E "$E4_CORPUS_ONLY" "$T/images" >"$T/images.sel" ||
		fail "E4_CORPUS_ONLY='$E4_CORPUS_ONLY' selects no image"
	mv "$T/images.sel" "$T/images"
fi
xargs -P "${E4_JOBS:-2}" -I{} bash "$0" --one {} "$RES" <"$T/images" ||
	fail "a worker failed"

printf '%s\n' "$REQ" >"$T/req"
"$PYTHON" - "$T/images" "$RES" "$T/req" <<'EOF'
import os, re, sys

res = sys.argv[2]
REQ = [l.strip() for l in open(sys.argv[3]) if l.strip()]
SAN = re.compile(r"runtime error|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer")
ALIAS = {"ex": ["ex", "dump_extents"], "bd": ["bd", "block_dump"],
         "htree": ["htree", "htree_dump"], "stats": ["stats", "show_super_stats"],
         "stat": ["stat", "show_inode_info"], "lsdel": ["lsdel", "list_deleted_inodes"]}


def read(p):
    try:
        return open(p, errors="replace").read()
    except OSError:
        return ""


def sections(text, prompt):
    """Split at the echoed request lines (the next expected command only,
    so a message that starts like a prompt does not open a section)."""
    out = []
    nxt = 0
    for line in text.split("\n"):
        if (line.startswith(prompt) and nxt < len(REQ) and
                line[len(prompt):].strip() == REQ[nxt]):
            out.append([REQ[nxt], []])
            nxt += 1
        elif out:
            out[-1][1].append(line)
    return out


KNOWN = {}


def known(image, gap):
    if image not in KNOWN:
        return False
    return KNOWN[image] is None or gap.split()[0].rstrip(":") in KNOWN[image]


def failed(cmd, lines):
    name = cmd.split()[0]
    names = ALIAS.get(name, [name])
    return any(l.startswith(n + ": ") and not l.startswith(n + ": warning:")
               for l in lines for n in names)


total = passed = ncmds = refok = nknown = 0
bad = []
strict = os.environ.get("E4_SWEEP_STRICT") == "1"
for gz in open(sys.argv[1]):
    n = os.path.basename(gz.strip())[:-len(".img.gz")]
    total += 1
    base = os.path.join(res, n)
    if os.path.exists(base + ".error"):
        bad.append((n, ["could not decompress"]))
        continue
    probs = []
    rc = int(read(base + ".e4.rc").strip() or -1)
    eout = read(base + ".e4.out")
    rout = read(base + ".ref.out")
    if rc in (124, 137):
        probs.append("e4debugfs timed out")
    elif rc >= 128 or rc < 0:
        probs.append("e4debugfs crashed (exit %d)" % rc)
    m = SAN.search(eout)
    if m:
        probs.append("sanitizer report: " + [l for l in eout.split("\n") if SAN.search(l)][0][:200])
    referr = set(l for l in read(base + ".ref.err").split("\n") if l.strip())
    rs = sections(rout, "debugfs: ")
    es = sections(eout, "e4debugfs: ")
    gaps = []
    if not probs:
        ref_any = sum(1 for rc_, rl in rs if not failed(rc_, rl))
        if len(es) != len(rs) and ref_any and len(es) <= 1:
            gaps.append("e4debugfs cannot open it; the reference runs %d commands" % ref_any)
        for (rc_, rl), (ec, el) in zip(rs, es):
            ncmds += 1
            # the reference failed: an error line, or nothing at all
            # (e.g. ea_get on an inode without attributes prints nothing)
            if any(e in l for l in rl if l.strip() for e in referr) or not "".join(rl).strip():
                continue
            # logdump reports an unusable journal superblock on stdout
            # ("Journal superblock magic number invalid!") and dumps
            # nothing: a failure, whatever its exit status
            if any("magic number invalid" in l for l in rl):
                continue
            # an external journal: the reference looks for it by UUID among
            # the host's block devices, so what it finds is not comparable
            if any(l.startswith("Using external journal found at") for l in rl):
                continue
            refok += 1
            if failed(ec, el):
                gaps.append("%s: the reference succeeds, e4debugfs: %s" % (
                    ec, [l for l in el if l.split(":")[0] in ALIAS.get(ec.split()[0], [ec.split()[0]])][0][:150]))
    kn = [g for g in gaps if known(n, g)]
    other = gaps if strict else [g for g in gaps if not known(n, g)]
    nknown += len(kn)
    if probs or other:
        bad.append((n, probs + other))
    else:
        passed += 1
for n, probs in bad:
    print("--- %s (%s):" % (n, read(os.path.join(res, n + ".opt")).strip() or "no -c"))
    for p in probs[:8]:
        print("    " + p)
print("dbg_corpus_sweep: %d/%d images pass; %d commands run, the reference succeeded on %d;"
      " e4debugfs failed %d of those, known differences (%s)"
      % (passed, total, ncmds, refok, nknown, " ".join(sorted(KNOWN)) or "none"))
sys.exit(1 if bad else 0)
EOF
rc=$?
info "done in $(elapsed) s"
[ $rc -eq 0 ] || fail "see above"
exit 0
