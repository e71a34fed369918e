#!/bin/bash
# dbg_json: `stats -j` and `stat -j` print JSON that parses and carries the
# same values as the text output of `stats` and `stat` (issue 3, acceptance 4).
#
# For every image of the matrix, one e4debugfs process (-f) runs `stats`,
# `stats -j`, and `stat` / `stat -j` for 60 inodes (the reserved ones, the
# generated tree's first files, some spread over the inode count).
#  stats: every "Label: value" line of the superblock and journal parts is
#    looked up in JSON under the key of its label (lower case, runs of other
#    characters -> "_", as the row tables of common/superlist.c declare
#    them): numbers must equal the first number of the text (0x hex
#    included; sizes "16M", "35 MB" in bytes), lists the words, strings the
#    text, dates (TZ=UTC) the epoch seconds, null an absent value ("<none>",
#    "<not available>", "n/a").  Every group line (bitmaps, inode table,
#    free counts, used dirs, unused inodes, checksum) must equal the JSON
#    "groups" entry.
#  stat: inode, type, mode, flags, generation, user, group, project, size,
#    file ACL, links, blockcount, the raw ctime/atime/mtime/crtime words,
#    inode checksum, the extended attribute names and lengths, and every
#    extent / block run of the EXTENTS/BLOCKS list.
# A JSON document that does not parse, or a value that differs, fails.
# Catches: a field the text prints but the JSON leaves out or names
# differently (its value is not found under listing_key(label)).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$PYTHON"
need_e4debugfs
matrix_ensure
matrix_check_skipped
export TZ=UTC

list=$T/list
: >"$list"
for n in "${MATRIX_IMAGES[@]}"; do
	img=$E4_MATRIX/$n.img
	ic=$("$E4DEBUGFS" -R "stats -h" "$img" 2>/dev/null | awk -F: '/^Inode count/ {print $2+0}')
	[ -n "$ic" ] && [ "$ic" -gt 0 ] || fail "$n: cannot read its inode count"
	{
		echo "stats"
		echo "stats -j"
		for i in 1 2 5 7 8 $(seq 11 40) $(seq 1 25 | awk -v ic="$ic" '{print int($1 * (ic - 1) / 25) + 1}'); do
			echo "stat <$i>"
			echo "stat -j <$i>"
		done
	} >"$T/$n.req"
	runcap "$T/$n" 60 "$E4DEBUGFS" -f "$T/$n.req" "$img"
	rc=$(cat "$T/$n.rc")
	if [ "$rc" -ge 124 ] || san_report "$T/$n.err"; then
		fail "$n: e4debugfs $(describe_rc "$rc"): $(head -3 "$T/$n.err")"
	fi
	printf '%s\t%s\n' "$n" "$T/$n.out" >>"$list"
done

"$PYTHON" - "$list" <<'EOF'
import calendar, json, re, sys, time

PROMPT = "e4debugfs: "
NUM = re.compile(r"0x[0-9a-fA-F]+|-?\d+")


def key(label):
    return "_".join(w for w in re.split(r"[^a-z0-9]+", label.lower()) if w)


def num(s):
    return int(s, 16) if s.lower().startswith("0x") else int(s)


def split(path):
    cmds = []
    for line in open(path, errors="replace"):
        if line.startswith(PROMPT):
            cmds.append([line[len(PROMPT):].strip(), []])
        elif cmds:
            cmds[-1][1].append(line.rstrip("\n"))
    return cmds


def epoch(s):
    try:
        return calendar.timegm(time.strptime(" ".join(s.split()), "%a %b %d %H:%M:%S %Y"))
    except ValueError:
        return None


ABSENT = ("<none>", "<not available>", "n/a")
UNITS = {"k": 1, "kB": 1, "M": 1 << 10, "MB": 1 << 10, "GB": 1 << 20, "TB": 1 << 30, "PB": 1 << 40}
SIZE = re.compile(r"^(\d+) ?(kB|MB|GB|TB|PB|k|M)$")


def check_value(where, label, text, v, probs):
    if v is None:
        # an absent value: the text says so
        if text not in ABSENT:
            probs.append("%s: %s: text %r, JSON null" % (where, label, text))
    elif isinstance(v, bool):
        probs.append("%s: %s: JSON %r" % (where, label, v))
    elif isinstance(v, int):
        t = epoch(text)
        if t is not None:
            if t != v:
                probs.append("%s: %s: text %r, JSON %r" % (where, label, text, v))
            return
        m = SIZE.match(text)
        if m:
            # a size, JSON in bytes: dumpe2fs's journal size ("1024k",
            # "16M") truncates to its unit, the lifetime writes ("35 MB")
            # round to the nearest
            unit = UNITS[m.group(2)] * 1024
            want = v // unit if m.group(2) in ("k", "M") else (v + unit // 2) // unit
            if int(m.group(1)) != want or v % 1024:
                probs.append("%s: %s: text %r, JSON %r bytes" % (where, label, text, v))
            return
        m = NUM.search(text)
        if not m or num(m.group(0)) != v:
            probs.append("%s: %s: text %r, JSON %r" % (where, label, text, v))
    elif isinstance(v, list):
        words = ["<none>" if x is None else str(x) for x in v]
        if text.split() != words and not (not v and text in ("(none)", "")):
            probs.append("%s: %s: text %r, JSON %r" % (where, label, text, v))
    elif isinstance(v, str):
        if " ".join(text.split()) != " ".join(v.split()):
            probs.append("%s: %s: text %r, JSON %r" % (where, label, text, v))


GROUP1 = re.compile(r"^ Group +(\d+): block bitmap at (\d+), inode bitmap at (\d+), inode table at (\d+)")
GROUP2 = re.compile(r"^ +(\d+) free (?:blocks?|clusters?), (\d+) free inodes?, (\d+) used director(?:y|ies)(?:, (\d+) unused inodes?)?")
CSUM = re.compile(r"Checksum (0x[0-9a-f]+)")


def check_stats(name, text, doc, probs):
    sections = {}
    for k in ("superblock", "journal"):
        sections.update(doc.get(k, {}))
    compared = 0
    groups = []
    for line in text:
        m = GROUP1.match(line)
        if m:
            groups.append({"g": [int(x) for x in m.groups()]})
            continue
        m = GROUP2.match(line)
        if m and groups:
            groups[-1]["c"] = [int(x) for x in m.groups() if x is not None]
            continue
        m = CSUM.search(line)
        if m and groups and line.startswith("           ["):
            groups[-1]["csum"] = int(m.group(1), 16)
            continue
        m = re.match(r"^([^:\t]*[^:\s]):\s*(.*)$", line)
        if not m or line.startswith(" "):
            continue
        label, value = m.group(1), m.group(2)
        if label == "Bad blocks":
            continue
        k = key(label)
        if label == "Directories":
            v = doc.get("directories")
        elif k in sections:
            v = sections[k]
        else:
            probs.append("%s stats: label %r (key %s) missing in JSON" % (name, label, k))
            continue
        check_value(name + " stats", label, value, v, probs)
        compared += 1
    jg = doc.get("groups", [])
    if len(jg) != len(groups):
        probs.append("%s stats: %d groups in text, %d in JSON" % (name, len(groups), len(jg)))
    for t, j in zip(groups, jg):
        want = [j["group"], j["block_bitmap"], j["inode_bitmap"], j["inode_table"]]
        free = j.get("free_blocks", j.get("free_clusters"))
        cnt = [free, j["free_inodes"], j["used_directories"]]
        if "unused_inodes" in j:
            cnt.append(j["unused_inodes"])
        if t["g"] != want or t.get("c") != cnt or t.get("csum", j.get("checksum")) != j.get("checksum"):
            probs.append("%s stats: group %d: text %r, JSON %r" % (name, t["g"][0], t, j))
        compared += 1
    return compared


U32 = lambda s: int(s) & 0xFFFFFFFF	# "User: %5d" prints ids above 2^31 negative
STAT_RE = [
    ("inode", r"Inode: (\d+)", int), ("type", r"Type: (.*?) +Mode:", str),
    ("mode", r"Mode: +([0-7]+)", lambda s: int(s, 8)), ("flags", r"Flags: (0x[0-9a-f]+)", num),
    ("generation", r"Generation: (\d+)", int), ("user", r"User: +(-?\d+)", U32),
    ("group", r"Group: +(-?\d+)", U32), ("project", r"Project: +(-?\d+)", U32),
    ("size", r"   Size: (\d+)", int), ("file_acl", r"File ACL: (\d+)", int),
    ("links", r"Links: (\d+)", int), ("blockcount", r"Blockcount: (\d+)", int),
]


def check_stat(name, cmd, text, doc, probs):
    t = "\n".join(text)
    compared = 0
    for k, rx, conv in STAT_RE:
        m = re.search(rx, t)
        if not m:
            continue
        compared += 1
        if conv(m.group(1)) != doc.get(k):
            probs.append("%s %s: %s: text %r, JSON %r" % (name, cmd, k, m.group(1), doc.get(k)))
    for tf in ("ctime", "atime", "mtime", "crtime"):
        m = re.search(r"^ *%s: (0x[0-9a-f]+)" % tf, t, re.M)
        if m:
            compared += 1
            j = doc.get(tf)
            if not j or (j["seconds"] & 0xFFFFFFFF) != int(m.group(1), 16):
                probs.append("%s %s: %s: text %s, JSON %r" % (name, cmd, tf, m.group(1), j))
    m = re.search(r"Inode checksum: (0x[0-9a-f]+)", t)
    if m:
        compared += 1
        if int(m.group(1), 16) != doc.get("inode_checksum"):
            probs.append("%s %s: checksum: text %s, JSON %r" % (name, cmd, m.group(1), doc.get("inode_checksum")))
    xt = re.findall(r"^  (\S+) \((\d+)\)", t, re.M)
    xj = [(x["name"], str(x["value_length"])) for x in doc.get("extended_attributes", [])]
    if xt != xj:
        probs.append("%s %s: xattrs: text %r, JSON %r" % (name, cmd, xt, xj))
    compared += 1
    m = re.search(r"^(?:EXTENTS|BLOCKS):\n(.*)$", t, re.M)
    if m and m.group(1) and not m.group(1).startswith("TOTAL"):
        runs = []
        for item in m.group(1).split(", "):
            mm = re.match(r"\((\d+)(?:-(\d+))?(?:\[u\])?\):(\d+)(?:-(\d+))?$", item)
            if mm:
                lo = int(mm.group(1)); hi = int(mm.group(2) or lo)
                runs.append((lo, int(mm.group(3)), hi - lo + 1))
            else:
                mm = re.match(r"\((?:ETB\d+|IND|DIND|TIND)\):(\d+)$", item)
                runs.append(("meta", int(mm.group(1)) if mm else item))
        jr = []
        for e in doc.get("extents", doc.get("blocks", [])):
            if e.get("meta"):
                jr.append(("meta", e["physical"]))
            else:
                jr.append((e["logical"], e["physical"], e["length"]))
        compared += 1
        if runs != jr:
            probs.append("%s %s: map: text %r..., JSON %r..." % (name, cmd, runs[:4], jr[:4]))
    return compared


total = bad = 0
for row in open(sys.argv[1]):
    name, out = row.rstrip("\n").split("\t")
    cmds = split(out)
    probs = []
    for i in range(0, len(cmds) - 1, 2):
        (tc, tt), (jc, jt) = cmds[i], cmds[i + 1]
        try:
            doc = json.loads("\n".join(jt))
        except ValueError as e:
            if not tt:
                continue	# both failed (an inode number out of range)
            probs.append("%s %s: JSON does not parse: %s" % (name, jc, e))
            continue
        if tc == "stats":
            total += check_stats(name, tt, doc, probs)
        else:
            total += check_stat(name, tc, tt, doc, probs)
    if probs:
        bad += 1
        print("--- %s:" % name)
        for p in probs[:10]:
            print("    " + p)
print("dbg_json: %d values compared, %d images differ" % (total, bad))
sys.exit(1 if bad else 0)
EOF
rc=$?
info "done in $(elapsed) s"
[ $rc -eq 0 ] || fail "JSON and text differ"
[ "$E4_CI_SKIP_FAIL" = 0 ] || fail "matrix images missing under CI=true"

# Names from the disk are raw bytes: a label and a last-mounted path that
# are not UTF-8 (and hold quotes, backslashes, control bytes) must still
# give a document that parses, each bad byte as U+FFFD.
need_oracle "$REF_MKE2FS"
img=$T/label.img
truncate -s 8M "$img"
"$REF_MKE2FS" -q -F -t ext4 -O ^metadata_csum "$img" || fail "mke2fs failed"
"$PYTHON" - "$img" <<'PYEOF' || fail "cannot patch the label"
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(1024 + 0x78)
    f.write(b'a"b\\c\x01\xff\xc3'.ljust(16, b"\0"))
    f.seek(1024 + 0x88)
    f.write(b'/mnt/\xe2\x82\xac\xed\xa0\x80x'.ljust(64, b"\0"))
PYEOF
"$E4DEBUGFS" -R 'stats -j' "$img" >"$T/label.json" 2>"$T/label.err" || fail "stats -j failed: $(cat "$T/label.err")"
"$PYTHON" - "$T/label.json" <<'PYEOF' || fail "stats -j with raw label bytes does not parse as the expected JSON"
import json, sys
doc = json.load(open(sys.argv[1], encoding="utf-8"))
def find(o, key):
    if isinstance(o, dict):
        if key in o:
            return o[key]
        for v in o.values():
            r = find(v, key)
            if r is not None:
                return r
    return None
name = find(doc, "filesystem_volume_name")
mnt = find(doc, "last_mounted_on")
ok = name == 'a"b\\c\x01\ufffd\ufffd' and mnt == "/mnt/\u20ac\ufffd\ufffd\ufffdx"
print("label %r, last mounted on %r" % (name, mnt))
sys.exit(0 if ok else 1)
PYEOF
exit 0
