#!/bin/bash
# dbg_corpus_sweep: every read-only e4debugfs command runs on every image of
# ../shared/corpus (fsck and journal kinds) without a crash, a sanitizer
# report or a hang; where the reference debugfs succeeds, e4debugfs
# succeeds too and, where the outputs are comparable, prints the same.
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
# fails some commands silently), or when logdump prints "Journal
# superblock magic number invalid!" (on stdout, exit 0) and dumps nothing.
# Every command of every image is accounted for, once: equal, failed,
# known, warned, right, not compared, ref failed, ref stopped (the
# reference crashed before it); a command e4debugfs never reached (it
# stopped early) is failed.  Where the reference succeeds, e4debugfs
# fails the command when it prints an error line, or when its output
# differs from the reference's, compared line by line with runs of blanks
# made one, and these differences, right on e4debugfs's side, taken out:
#  - stats: e4debugfs adds the journal superblock's fields, the bad blocks
#    and warnings (e4debugfs.8); the reference pads "Inode size:" with a tab;
#  - logdump: e4debugfs adds commit times and checksum verdicts;
#  - ls -l: dates as 2002-05-23 05:46:52, the reference's 23-May-2002 05:46;
#  - filefrag: the reference writes the root's entries as "//name";
# not compared: supported_features (each tool lists what it reads); a
# section where e4debugfs warns about damage (it stops at what it cannot
# trust, the reference lists whatever it finds: e4debugfs.8); the pairs
# in RIGHT below, each with why e4debugfs is right; a command for which
# the reference used an external journal it found among the host's block
# devices (by UUID: whatever loop device is attached).  KNOWN lists the
# differences not settled yet (gaps of e4debugfs, or undecided): reported,
# a failure with E4_SWEEP_STRICT=1, and an entry that no longer differs
# fails until it is removed.
# e4debugfs must finish the whole file within 10 s (30 s with sanitizers).
# Images are handled E4_JOBS (default 2) at a time.
# Catches: an e4debugfs command that prints a wrong value or stops the
# command file early.  Checked: "stat" printing Links one too high (every
# image fails "stat <2>: output differs"), and e4debugfs quitting after the
# 20th command ("... never ran (e4debugfs stopped)"); both passed before.

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
	unp=$(corpus_unpack "${gz#"$E4KIT_SHARED"/corpus/}") && cp --sparse=always "$unp" "$img" ||
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


def failed(cmd, lines):
    name = cmd.split()[0]
    names = ALIAS.get(name, [name])
    return any(l.startswith(n + ": ") and not l.startswith(n + ": warning:")
               for l in lines for n in names)


def warned(cmd, lines):
    name = cmd.split()[0]
    return any(l.startswith(n + ": warning:") for l in lines for n in ALIAS.get(name, [name]))


# ---- comparing outputs -------------------------------------------------------
# Commands whose output is not compared, and why.
NOT_COMPARED = {
    "supported_features": "each tool lists the features it reads (e4debugfs reads fewer)",
}
MON = {m: i + 1 for i, m in enumerate("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split())}
# e4debugfs's additions to stats (e4debugfs.8: the journal superblock, the
# bad blocks) and to logdump (commit times, checksum verdicts)
STATS_EXTRA = re.compile(r"^(Journal (features|size|sequence|start|checksum type|checksum|errno|"
                         r"number of users|users)|Total journal (size|blocks)|Max transaction "
                         r"length|Fast commit length|Bad blocks):")
LOGDUMP_EXTRA = re.compile(r"^(Commit time|Descriptor checksum|Revoke checksum):")


def norm(cmd, lines, ours):
    """The text to compare, with the differences that are right on both
    sides taken out (each one documented in the test's header)."""
    name = cmd.split()[0]
    out = []
    for l in lines:
        l = re.sub(r"[ \t]+", " ", l).strip()
        if name == "stats" and ours and STATS_EXTRA.match(l):
            continue
        if name == "logdump" and ours:
            if LOGDUMP_EXTRA.match(l):
                continue
            l = re.sub(r" checksum 0x[0-9a-f]+ (OK|BAD|unchecked)$", "", l)
        if name == "ls":
            # the reference's "23-May-2002 05:46", e4debugfs's "2002-05-23 05:46:52"
            l = re.sub(r"\b(\d{1,2})-([A-Z][a-z]{2})-(\d{4}) (\d\d:\d\d)\b",
                       lambda m: "%s-%02d-%02d %s" % (m.group(3), MON.get(m.group(2), 0),
                                                     int(m.group(1)), m.group(4)), l)
            l = re.sub(r"\b(\d{4}-\d\d-\d\d \d\d:\d\d):\d\d\b", r"\1", l)
        if name == "filefrag" and not ours:
            l = re.sub(r"^//", "/", l)   # the reference doubles the root's slash
        out.append(l)
    return "\n".join(out).strip()


# Where the outputs differ and e4debugfs is right: not compared.
RIGHT = {
    ("f_file_acl_high", "stat <12>"):
        "File ACL: without 64bit the kernel ignores i_file_acl_high; the reference adds it",
    ("f_clear_xattr", "stat <12>"):
        "in-inode attributes listed though ext_attr is off: the kernel reads them regardless",
    ("f_dup_de_crypt", "ncheck 2 11 12 13"):
        "an encrypted name printed byte for byte; the reference stops at its NUL byte",
    ("f_dup_de_crypt", "ncheck -c 12 13"): "the same name",
    ("f_pre_1970_date_encoding", "ls -l /"):
        "dates with the extra epoch bits decoded as the kernel does; the reference's ls ignores them",
    ("f_dupdot", "ncheck 2 11 12 13"):
        "13 /foo/.: /foo (inode 12) holds a second '.' (13) and '..' (14); the kernel, like "
        "e4debugfs, takes the first '..' (2) as the parent, the reference the last (14, a file: "
        "'<14>/<12>/.')",
    ("f_dupdot", "ncheck -c 12 13"): "the same",
    ("f_holedir4", "ncheck 2 11 12 13"):
        "/a/x, /a/y, /a/z lie in blocks of /a past its i_size (4096): the kernel reads a "
        "directory up to i_size (a read-only mount lists none of them), the reference reads "
        "every mapped block",
    ("f_holedir4", "ncheck -c 12 13"): "the same",
    ("f_bb_in_bb", "icheck 1 2 3 100 1000"):
        "block 3 is the root's (inode 2) only directory block: the reference skips inodes 1-16 "
        "since their inode table block (34) is on the bad block list; the kernel reads them",
    ("f_bb_in_bb", "ncheck 2 11 12 13"): "11 //lost+found: the same (the reference skips the root)",
}
# Differences not settled yet, or gaps of e4debugfs: reported on every run,
# a failure with E4_SWEEP_STRICT=1; an entry that no longer differs fails
# (remove it).
KNOWN = {
    ("j_long_revoke_trans_mcsum_32bit", "logdump -a"):
        "csum v2 tags: the tag checksum printed in the upper 16 bits of the flags",
    ("j_long_revoke_trans_mcsum_64bit", "logdump -a"): "the same",
    ("j_long_trans_mcsum_32bit", "logdump -a"): "the same",
    ("j_long_trans_mcsum_64bit", "logdump -a"): "the same",
    ("j_recover_fast_commit", "logdump"): "the fast commit area is not dumped",
    ("j_recover_fast_commit", "logdump -a"): "the same",
}

strict = os.environ.get("E4_SWEEP_STRICT") == "1"
count = {k: 0 for k in ("equal", "failed", "known", "warned", "right", "not compared",
                        "ref failed", "ref stopped")}
bad, known_seen, known_hit, nimg = [], set(), [], 0
for gz in open(sys.argv[1]):
    n = os.path.basename(gz.strip())[:-len(".img.gz")]
    nimg += 1
    base = os.path.join(res, n)
    probs = []
    if os.path.exists(base + ".error"):
        probs.append("could not decompress")
    rc = int(read(base + ".e4.rc").strip() or -1)
    eout = read(base + ".e4.out")
    if rc in (124, 137):
        probs.append("e4debugfs timed out")
    elif rc >= 128 or rc < 0:
        probs.append("e4debugfs crashed (exit %d)" % rc)
    if SAN.search(eout):
        probs.append("sanitizer report: " + [l for l in eout.split("\n") if SAN.search(l)][0][:200])
    referr = set(l for l in read(base + ".ref.err").split("\n") if l.strip())
    rs = sections(read(base + ".ref.out"), "debugfs: ")
    es = sections(eout, "e4debugfs: ")
    for i, cmd in enumerate(REQ):
        el = es[i][1] if i < len(es) else None
        rl = rs[i][1] if i < len(rs) else None
        if el is None:
            # e4debugfs stopped before this command
            count["failed"] += 1
            probs.append("%s: never ran (e4debugfs stopped)" % cmd)
            continue
        if rl is None:
            count["ref stopped"] += 1          # the reference crashed before it
            continue
        # the reference failed: an error line, or nothing at all (e.g.
        # ea_get on an inode without attributes prints nothing); logdump
        # reports an unusable journal superblock on stdout ("Journal
        # superblock magic number invalid!") and dumps nothing
        if (any(e in l for l in rl if l.strip() for e in referr) or not "".join(rl).strip() or
                any("magic number invalid" in l for l in rl)):
            count["ref failed"] += 1
            continue
        # an external journal: the reference looks for it by UUID among
        # the host's block devices, so what it finds is not comparable
        if any(l.startswith("Using external journal found at") for l in rl):
            count["not compared"] += 1
            continue
        if failed(cmd, el):
            if (n, cmd) in KNOWN:
                count["known"] += 1
                known_seen.add((n, cmd))
                continue
            count["failed"] += 1
            name = cmd.split()[0]
            probs.append("%s: the reference succeeds, e4debugfs: %s" % (
                cmd, [l for l in el if l.split(":")[0] in ALIAS.get(name, [name])][0][:150]))
            continue
        if cmd.split()[0] in NOT_COMPARED:
            count["not compared"] += 1
            continue
        if warned(cmd, el):
            count["warned"] += 1
            continue
        if (n, cmd) in RIGHT:
            count["right"] += 1
            continue
        a, b = norm(cmd, rl, False), norm(cmd, el, True)
        if a == b:
            count["equal"] += 1
            if (n, cmd) in KNOWN:
                probs.append("%s: listed in KNOWN but equal now: remove it" % cmd)
            continue
        if (n, cmd) in KNOWN:
            count["known"] += 1
            known_seen.add((n, cmd))
            known_hit.append("%s %s" % (n, cmd))
            if strict:
                probs.append("%s: known difference: %s" % (cmd, KNOWN[(n, cmd)]))
            continue
        count["failed"] += 1
        al, bl = a.split("\n"), b.split("\n")
        k = next((j for j in range(max(len(al), len(bl)))
                  if j >= len(al) or j >= len(bl) or al[j] != bl[j]), 0)
        probs.append("%s: output differs at line %d: reference %r, e4debugfs %r" % (
            cmd, k + 1, al[k][:100] if k < len(al) else "(end)", bl[k][:100] if k < len(bl) else "(end)"))
    if probs:
        bad.append((n, probs))
for n, probs in bad:
    print("--- %s (%s):" % (n, read(os.path.join(res, n + ".opt")).strip() or "no -c"))
    for p in probs[:8]:
        print("    " + p)
    if len(probs) > 8:
        print("    ... %d more" % (len(probs) - 8))
total = sum(count.values())
print("dbg_corpus_sweep: %d/%d images pass; %d commands: %s" % (
    nimg - len(bad), nimg, total, ", ".join("%s %d" % kv for kv in count.items())))
if known_hit and not strict:
    print("dbg_corpus_sweep: known differences (E4_SWEEP_STRICT=1 fails on them): %d" % len(known_hit))
if total != nimg * len(REQ):
    print("dbg_corpus_sweep: %d commands accounted for, %d expected" % (total, nimg * len(REQ)))
    sys.exit(1)
sys.exit(1 if bad else 0)
EOF
rc=$?
info "done in $(elapsed) s"
[ $rc -eq 0 ] || fail "see above"
exit 0
