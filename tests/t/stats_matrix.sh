#!/bin/bash
# stats_matrix: for every image of the matrix, `e4debugfs -R 'stats -h'`
# agrees with the reference `dumpe2fs -h` on the superblock.
#
# Both outputs are parsed into label -> value maps ("Label:  value" lines).
# dumpe2fs -h prints the superblock, then (from "Journal features:" on) the
# journal superblock.  Every superblock label of dumpe2fs must be printed by
# e4debugfs (missing = failure); journal labels are compared when e4debugfs
# prints them (the reference debugfs `stats` prints none).
#
# How values are compared, by label (first matching rule):
#  set of words:   Filesystem features, Filesystem flags,
#                  Default mount options, Journal features
#  date:           Filesystem created, Last mount time, Last write time,
#                  Last checked, Next check after, First error time,
#                  Last error time  (as epoch seconds when both parse, as
#                  text otherwise, e.g. "n/a")
#  text (exact, whitespace-normalised; UUIDs case-insensitive):
#                  Filesystem volume name, Last mounted on, Filesystem UUID,
#                  Directory Hash Seed, Journal UUID, Filesystem state,
#                  Errors behavior, Filesystem OS type, Mount options,
#                  Default directory hash, Checksum type, Journal backup,
#                  Journal checksum type, Character encoding,
#                  First error function, Last error function
#  numbers:        every other label whose value holds a number (decimal or
#                  0x hex; e.g. Inode count, Block count, Reserved block
#                  count, Overhead clusters, Free blocks, Free inodes, First
#                  block, Block size, Cluster/Fragment size, Group
#                  descriptor size, Reserved GDT blocks, Blocks/Clusters/
#                  Fragments per group, Inodes per group, Inode blocks per
#                  group, RAID stride, RAID stripe width, Flex block group
#                  size, First meta block group, Mount count, Maximum mount
#                  count, Check interval, Lifetime writes, Reserved blocks
#                  uid/gid, First inode, Inode size, Required/Desired extra
#                  isize, Journal inode, First orphan inode, Backup block
#                  groups, Checksum, Checksum seed, magic number, revision,
#                  ...): the list of numbers must be equal, so "109 kB" and
#                  "109 KiB" agree but "109 kB" and "111616" do not.
#  other labels (no number, not listed): not compared (E4_VERBOSE=1 names them).
# Both tools run with TZ=UTC and LC_ALL=C.
# Catches: "Lifetime writes" printed in bytes where dumpe2fs prints kB
# (the numbers differ).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_DUMPE2FS" "$PYTHON"
need_e4debugfs
matrix_ensure
matrix_check_skipped
export TZ=UTC

list=$T/list
: >"$list"
for name in "${MATRIX_IMAGES[@]}"; do
	img=$E4_MATRIX/$name.img r=$T/$name
	runcap "$r.ref" 60 "$REF_DUMPE2FS" -h "$img"
	[ "$(cat "$r.ref.rc")" = 0 ] || fail "$name: dumpe2fs -h failed: $(head -2 "$r.ref.err")"
	runcap "$r.e4" 60 "$E4DEBUGFS" -R "stats -h" "$img"
	printf '%s\t%s\t%s\n' "$name" "$r.ref" "$r.e4" >>"$list"
done

"$PYTHON" - "$list" <<'EOF'
import calendar, os, re, sys, time

SETS = {"Filesystem features", "Filesystem flags", "Default mount options",
        "Journal features"}
DATES = {"Filesystem created", "Last mount time", "Last write time",
         "Last checked", "Next check after", "First error time",
         "Last error time"}
TEXTS = {"Filesystem volume name", "Last mounted on", "Filesystem UUID",
         "Directory Hash Seed", "Journal UUID", "Filesystem state",
         "Errors behavior", "Filesystem OS type", "Mount options",
         "Default directory hash", "Checksum type", "Journal backup",
         "Journal checksum type", "Character encoding",
         "First error function", "Last error function"}
UUIDS = {"Filesystem UUID", "Directory Hash Seed", "Journal UUID"}
NUM = re.compile(r"0[xX][0-9a-fA-F]+|-?\d+")
SAN = re.compile(r"runtime error|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer")
verbose = os.environ.get("E4_VERBOSE") == "1"


def parse(path):
    sb, jnl, cur = {}, {}, None
    cur = sb
    with open(path, "rb") as f:
        for raw in f:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            m = re.match(r"^([^:\t]*[^:\s])\s*:(.*)$", line)
            if not m:
                continue
            label, value = m.group(1).strip(), m.group(2).strip()
            if label == "Journal features":
                cur = jnl
            cur.setdefault(label, value)
    return sb, jnl


def norm(s):
    return " ".join(s.split())


def epoch(s):
    try:
        return calendar.timegm(time.strptime(norm(s), "%a %b %d %H:%M:%S %Y"))
    except ValueError:
        return None


def nums(s):
    return [int(x, 16) if x.lower().startswith(("0x", "-0x")) else int(x)
            for x in NUM.findall(s)]


def compare(label, ref, ours):
    """None when equal, else a short reason."""
    if label in SETS:
        a, b = set(ref.split()), set(ours.split())
        if a == b:
            return None
        return "missing %s, extra %s" % (sorted(a - b) or "-", sorted(b - a) or "-")
    if label in DATES:
        a, b = epoch(ref), epoch(ours)
        if a is not None and b is not None:
            return None if a == b else "epoch %d vs %d" % (a, b)
        return None if norm(ref) == norm(ours) else "text differs"
    if label in TEXTS:
        a, b = norm(ref), norm(ours)
        if label in UUIDS:
            a, b = a.lower(), b.lower()
        return None if a == b else "text differs"
    a = nums(ref)
    if not a:
        return "skip"
    return None if a == nums(ours) else "numbers %s vs %s" % (a, nums(ours))


total = good = 0
compared, uncompared = set(), set()
failures = []
for row in open(sys.argv[1]):
    name, ref, e4 = row.rstrip("\n").split("\t")
    total += 1
    probs = []
    rc = int(open(e4 + ".rc").read())
    err = open(e4 + ".err", "rb").read().decode("utf-8", "replace")
    if rc != 0:
        probs.append("e4debugfs exit %d%s: %s" % (
            rc, " (timeout)" if rc in (124, 137) else
            " (crash)" if rc >= 128 else "", norm(err[:200])))
    if SAN.search(err):
        probs.append("sanitizer report")
    rsb, rjnl = parse(ref + ".out")
    osb, ojnl = parse(e4 + ".out")
    ours_all = dict(ojnl)
    ours_all.update(osb)
    if rc == 0:
        missing = []
        for label, rv in rsb.items():
            if label not in ours_all:
                if compare(label, rv, rv) != "skip":
                    missing.append(label)
                continue
            r = compare(label, rv, ours_all[label])
            if r == "skip":
                uncompared.add(label)
                continue
            compared.add(label)
            if r:
                probs.append("%s: dumpe2fs %r, e4debugfs %r (%s)" % (
                    label, norm(rv), norm(ours_all[label]), r))
        if missing:
            probs.append("labels missing: " + ", ".join(missing))
        for label, rv in rjnl.items():
            if label not in ours_all:
                continue
            r = compare(label, rv, ours_all[label])
            if r == "skip":
                continue
            compared.add(label)
            if r:
                probs.append("%s: dumpe2fs %r, e4debugfs %r (%s)" % (
                    label, norm(rv), norm(ours_all[label]), r))
    if probs:
        failures.append(name)
        print("--- %s:" % name)
        for p in probs[:12]:
            print("    " + p)
        if len(probs) > 12:
            print("    ... %d more" % (len(probs) - 12))
    else:
        good += 1
if verbose:
    print("labels compared: " + ", ".join(sorted(compared)))
    print("labels not compared (no number): " + ", ".join(sorted(uncompared)))
print("stats_matrix: %d/%d images agree with dumpe2fs -h (%d distinct labels compared)"
      % (good, total, len(compared)))
if failures:
    print("FAIL: stats_matrix: images that differ: " + " ".join(failures), file=sys.stderr)
    sys.exit(1)
EOF
rc=$?
info "done in $(elapsed) s"
[ $rc -eq 0 ] || fail "see above"
[ "$E4_CI_SKIP_FAIL" = 0 ] || fail "matrix images missing under CI=true"
exit 0
