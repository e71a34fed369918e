#!/bin/bash
# corpus_ls: on every damaged image of the shared corpus (fsck/*.img.gz and
# journal/*.img.gz, decompressed to a private temp file, never touching the
# stored copy), `e4debugfs -R 'ls -l /'` and `-R 'ls -p /'` behave like the
# reference debugfs (10 s limit per run):
#  - the reference "lists the root" when it printed at least the "." entry
#    (it may print errors and still list).  Then e4debugfs must list the
#    same set of names: from `ls -p` (/ino/mode/uid/gid/NAME/size/ lines)
#    and from `ls -l` (the name after the date: the reference's
#    "D-Mon-YYYY HH:MM" or ISO "YYYY-MM-DD HH:MM[:SS]").
#  - otherwise (open failed, root unreadable) e4debugfs must fail: non-zero
#    exit with exactly one line on stderr.
#  - always: no crash (exit >= 128), no timeout, no sanitizer report.
# An image on which the reference itself times out is not judged (counted).
#
# Reference behaviour observed with 1.47.0 on this corpus (199 images): it
# exits 0 in every case.  It lists the root of 186 images.  On 13 it does not:
# 8 fail to open (bad magic x2 incl. f_detect_xfs, corrupt superblock x2,
# descriptor size x2, unsupported feature, inode bitmap checksum), 2 cannot
# read inode 2 (missing inode table), 3 fail on the root directory itself
# (directory block checksum x2, root not a directory).  When it lists, an
# entry whose inode cannot be read (e.g. bad inode checksum) is left out of
# `ls -l`/`ls -p`, with one error line on stderr per entry (f_bad_inode_csum,
# f_misstable), so e4debugfs must leave those names out too.
# Catches: an ls that stops at the first entry whose inode cannot be read instead
# of leaving out that one name (f_bad_inode_csum, f_misstable).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

# 10 s per run; sanitizer builds run several times slower: 30 s
TMO=${E4_LS_TIMEOUT:-$([ -n "$E4_SANITIZERS" ] && echo 30 || echo 10)}

# child mode: run the four commands on one image
if [ "${1:-}" = --one ]; then
	gz=$2 res=$3
	n=$(basename "$gz" .img.gz)
	img=$T/$n.img
	# a sparse copy of the unpacked image: several are 512 MiB of mostly zeros
	unp=$(corpus_unpack "${gz#"$E4KIT_SHARED"/corpus/}") && cp --sparse=always "$unp" "$img" ||
		{ echo "decompression failed" >"$res/$n.error"; exit 0; }
	for c in l p; do
		runcap "$res/$n.ref.$c" "$TMO" "$REF_DEBUGFS" -R "ls -$c /" "$img"
		runcap "$res/$n.e4.$c" "$TMO" "$E4DEBUGFS" -R "ls -$c /" "$img"
	done
	rm -f "$img"
	exit 0
fi

need_oracle "$REF_DEBUGFS" "$PYTHON"
need_e4debugfs
CORPUS=$E4KIT_SHARED/corpus
[ -d "$CORPUS/fsck" ] || skip "no corpus in $CORPUS"

RES=$T/res
mkdir -p "$RES"
ls "$CORPUS"/fsck/*.img.gz "$CORPUS"/journal/*.img.gz >"$T/images" 2>/dev/null
[ -s "$T/images" ] || skip "no images in $CORPUS"
if [ -n "${E4_CORPUS_ONLY:-}" ]; then
	# debugging aid: E4_CORPUS_ONLY=REGEX narrows the set
	grep -E "$E4_CORPUS_ONLY" "$T/images" >"$T/images.sel" ||
		fail "E4_CORPUS_ONLY='$E4_CORPUS_ONLY' selects no image"
	mv "$T/images.sel" "$T/images"
fi
xargs -P "${E4_JOBS:-2}" -I{} bash "$0" --one {} "$RES" <"$T/images" ||
	fail "a worker failed"

"$PYTHON" - "$T/images" "$RES" <<'EOF'
import os, re, sys

res = sys.argv[2]
LSP = re.compile(rb"^/(\d+)/(\d+)/(-?\d+)/(-?\d+)/(.*)/(\d*)/$")
# the name follows the date: the reference's "30-Nov-2026 06:42" or ISO
# "2026-11-30 06:42[:17]"
LSL = re.compile(rb"^\s*<?\d+>?\s+\d+\s+\(\d+\)\s.*?"
                 rb"(?:\d{1,2}-[A-Za-z]{3}-\d{4} \d\d:\d\d|\d{4}-\d\d-\d\d \d\d:\d\d(?::\d\d)?) (.*)$")
SAN = re.compile(rb"runtime error|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer")


def load(p):
    def rd(s):
        try:
            with open(p + s, "rb") as f:
                return f.read()
        except OSError:
            return b""
    rc = rd(".rc").strip()
    return int(rc) if rc else -1, rd(".out"), rd(".err")


def names(kind, out):
    rx = LSP if kind == "p" else LSL
    got = []
    for line in out.split(b"\n"):
        m = rx.match(line)
        if m:
            got.append(m.group(5) if kind == "p" else m.group(1))
    return got


def lists_root(kind, out):
    return b"." in names(kind, out)


def show(s, n=120):
    return s.decode("utf-8", "replace").replace("\n", "\\n")[:n]


total = passed = reftmo = 0
reflist = reffail = 0
failed = []
for gz in open(sys.argv[1]):
    n = os.path.basename(gz.strip())[:-len(".img.gz")]
    total += 1
    if os.path.exists(os.path.join(res, n + ".error")):
        failed.append((n, ["could not decompress"]))
        continue
    probs = []
    skipped = False
    for kind in ("l", "p"):
        rrc, rout, rerr = load(os.path.join(res, "%s.ref.%s" % (n, kind)))
        erc, eout, eerr = load(os.path.join(res, "%s.e4.%s" % (n, kind)))
        what = "ls -%s" % kind
        ref_ok = rrc not in (124, 137)
        ref_lists = ref_ok and lists_root(kind, rout)
        if kind == "p" and ref_ok:
            if ref_lists:
                reflist += 1
            else:
                reffail += 1
        if erc in (124, 137):
            probs.append("%s: e4debugfs timed out" % what)
            continue
        if erc >= 128 or erc < 0:
            probs.append("%s: e4debugfs crashed (exit %d): %s" % (what, erc, show(eerr)))
            continue
        m = SAN.search(eerr) or SAN.search(eout)
        if m:
            line = [l for l in (eerr + b"\n" + eout).split(b"\n") if SAN.search(l)][0]
            probs.append("%s: sanitizer report: %s" % (what, show(line, 200)))
            continue
        if not ref_ok:
            skipped = True
            continue
        if ref_lists:
            a, b = sorted(set(names(kind, rout))), sorted(set(names(kind, eout)))
            if a != b:
                sa, sb = set(a), set(b)
                probs.append("%s: names differ: missing %s, extra %s (exit %d, stderr %s)" % (
                    what, [show(x, 40) for x in sorted(sa - sb)[:5]],
                    [show(x, 40) for x in sorted(sb - sa)[:5]], erc, show(eerr, 100)))
        else:
            lines = eerr.count(b"\n") + (1 if eerr and not eerr.endswith(b"\n") else 0)
            if erc == 0:
                probs.append("%s: the reference cannot list the root (%s) but e4debugfs exits 0"
                             % (what, show(rerr.split(b"\n", 1)[-1], 80)))
            elif lines != 1:
                probs.append("%s: e4debugfs failed as expected but printed %d stderr lines: %s"
                             % (what, lines, show(eerr)))
    if skipped:
        reftmo += 1
    if probs:
        failed.append((n, probs))
    else:
        passed += 1

for n, probs in failed:
    print("--- %s:" % n)
    for p in probs:
        print("    " + p)
print("corpus_ls: %d/%d images pass (reference lists the root of %d, fails on %d, times out on %d)"
      % (passed, total, reflist, reffail, reftmo))
sys.exit(1 if failed else 0)
EOF
rc=$?
info "done in $(elapsed) s"
[ $rc -eq 0 ] || fail "see above"
exit 0
