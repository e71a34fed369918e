#!/bin/bash
# json_types: every JSON listing of the tools is a JSON document with JSON
# types, and standard output carries it alone (issue 12 item 9, acceptance 2).
#
# Listings: `e4tune -l --json`, e4debugfs `stats -j`, `stat -j` (inodes 2,
# 7, 8, 11, 12) and `logdump -j`, over every image of the matrix and a few
# corpus images chosen for the fields the matrix lacks (error records,
# quota inodes, an external journal, bad blocks, encryption salt, encoding,
# journal errno) and for logdump's checksum verdicts.  Each standard output
# must be exactly one JSON document (what `python3 -m json.tool` parses;
# text before or after it fails) unless the tool failed and printed nothing
# there.  In each document:
#  - no number stored as a string: no string value that is a decimal or
#    0x number, or a number with a unit ("32 MB", "8M", "1024k");
#  - no placeholder text: "<none>", "<not available>", "n/a", "(none)",
#    "none", "unchecked" (absent values are null);
#  - keys are lower-case words joined by "_".
# Strings that are free text from the disk (labels, paths, mount options,
# names) are exempt from the number rule.
# Then e4tune -l --json with settings that print "Setting ..." messages,
# and -j that prints "Creating journal inode": stdout is still the document
# alone, and the messages are on stderr.
# Catches: "lifetime_writes": "35 MB", "total_journal_size": "16M",
# "filesystem_volume_name": "<none>", or a "Setting maximal mount count"
# line before the document.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$PYTHON" "$REF_MKE2FS"
need_e4debugfs
need_e4tune
matrix_ensure
matrix_check_skipped

list=$T/list
: >"$list"
# listing NAME CMD...: run CMD, note its outputs for the checker
listing() {
	local name=$1
	shift
	runcap "$T/$name" 30 "$@"
	printf '%s\t%s\t%s\n' "$name" "$(cat "$T/$name.rc")" "$T/$name" >>"$list"
}

# run_all TAG IMG: every listing of IMG
run_all() {
	local tag=$1 img=$2 i
	listing "$tag.tune" "$E4TUNE" -l --json "$img"
	listing "$tag.stats" "$E4DEBUGFS" -R "stats -j" "$img"
	for i in 2 7 8 11 12; do
		listing "$tag.stat$i" "$E4DEBUGFS" -R "stat -j <$i>" "$img"
	done
	listing "$tag.logdump" "$E4DEBUGFS" -R "logdump -j" "$img"
}

for n in "${MATRIX_IMAGES[@]}"; do
	run_all "$n" "$E4_MATRIX/$n.img"
done
corpus=$E4KIT_SHARED/corpus
for n in fsck/f_itable_collision fsck/f_ext_journal fsck/f_orphquot fsck/f_bad_encryption \
	fsck/f_bad_fname fsck/f_badprimary fsck/f_jnl_errno fsck/f_quota_invalid_inum \
	journal/j_recover_csum3_64bit journal/j_short_revoke_trans \
	journal/j_recover_fast_commit journal/j_corrupt_revoke_rcount; do
	gz=$corpus/$n.img.gz
	[ -f "$gz" ] || fail "corpus image missing: $gz"
	img=$T/$(basename "$n").img
	gzip -dc "$gz" >"$img" || fail "cannot unpack $gz"
	run_all "$(basename "$n")" "$img"
	rm -f "$img"
done

# e4tune with settings: the "Setting ..." lines and the journal creation
# go to stderr, the document alone to stdout
img=$T/set.img
truncate -s 8M "$img"
"$REF_MKE2FS" -q -F -t ext2 -L "" "$img" || fail "mke2fs failed"
listing set1 "$E4TUNE" -l --json -c 25 -C 3 -e continue -i 2w -r 100 -T 20260101 \
	-E stride=4,test_fs,mount_opts=nodelalloc "$img"
listing set2 "$E4TUNE" -l --json -j "$img"
bad=0
problem() {
	echo "$TEST_NAME: $*" >&2
	bad=$((bad + 1))
}
for want in "Setting maximal mount count to 25" "Setting current mount count to 3" \
	"Setting error behavior to 1" "Setting stride size to 4" "Setting test filesystem flag"; do
	grepq -F "$want" "$T/set1.err" || problem "e4tune -l --json: '$want' not on stderr"
done
grepq -F "Creating journal inode" "$T/set2.err" ||
	problem "e4tune -l --json -j: 'Creating journal inode' not on stderr"
for s in set1 set2; do
	[ "$(cat "$T/$s.rc")" = 0 ] || problem "e4tune $s: exit $(cat "$T/$s.rc"): $(head -3 "$T/$s.err")"
done
for e in "$T"/*.err; do
	san_report "$e" && problem "$(basename "$e" .err): sanitizer report: $(grep -m1 -E 'Sanitizer|runtime error' "$e")"
done
# the reference parser itself, on one document of each kind
for s in set1 "${MATRIX_IMAGES[0]}.stats" "${MATRIX_IMAGES[0]}.stat2" "${MATRIX_IMAGES[0]}.logdump"; do
	"$PYTHON" -m json.tool "$T/$s.out" >/dev/null 2>&1 || problem "$s: python3 -m json.tool refuses it"
done

"$PYTHON" - "$list" <<'EOF'
import json, re, sys

NUMBER = re.compile(r"^\s*[-+]?(0[xX][0-9a-fA-F]+|\d+(\.\d+)?)\s*$")
WITH_UNIT = re.compile(r"^\s*\d+(\.\d+)?\s*([kKMGTPE]i?B?|bytes?|blocks?|s)\s*$")
PLACEHOLDERS = {"<none>", "<not available>", "n/a", "(none)", "none", "unchecked"}
KEY = re.compile(r"^[a-z0-9]+(_[a-z0-9]+)*$")
# free text from the disk or the user: any characters
FREE_TEXT = {"filesystem_volume_name", "last_mounted_on", "mount_options", "name",
             "first_error_function", "last_error_function"}


def walk(doc, path, probs):
    if isinstance(doc, dict):
        for k, v in doc.items():
            if not KEY.match(k):
                probs.append("%s: key %r" % (path, k))
            walk(v, path + "." + k, probs)
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            walk(v, "%s[%d]" % (path, i), probs)
    elif isinstance(doc, str):
        leaf = re.sub(r"\[\d+\]$", "", path).rsplit(".", 1)[-1]
        if doc.strip() in PLACEHOLDERS or re.match(r"^<[^>]*>$", doc.strip()):
            probs.append("%s: placeholder %r" % (path, doc))
        elif leaf not in FREE_TEXT and (NUMBER.match(doc) or WITH_UNIT.match(doc)):
            probs.append("%s: number as a string %r" % (path, doc))


bad = docs = 0
for row in open(sys.argv[1]):
    name, rc, prefix = row.rstrip("\n").split("\t")
    out = open(prefix + ".out", "rb").read()
    probs = []
    if not out and rc != "0":
        continue	# the tool failed and said so on stderr (no document)
    try:
        # json.tool's parser: the whole of stdout must be one document
        doc = json.loads(out.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        first = out.decode("utf-8", "replace").splitlines()[:1]
        probs.append("stdout is not one JSON document (%s); it starts %r" % (e, first))
    else:
        docs += 1
        if not isinstance(doc, dict):
            probs.append("the document is not an object")
        walk(doc, "$", probs)
    if probs:
        bad += 1
        print("--- %s (exit %s):" % (name, rc))
        for p in probs[:8]:
            print("    " + p)
print("json_types: %d documents checked, %d listings wrong" % (docs, bad))
sys.exit(1 if bad or docs == 0 else 0)
EOF
rc=$?
info "done in $(elapsed) s"
[ $rc -eq 0 ] || fail "JSON listings with wrong types or extra output"
[ $bad -eq 0 ] || fail "$bad problems (e4tune's messages, sanitizer reports)"
[ "$E4_CI_SKIP_FAIL" = 0 ] || fail "matrix images missing under CI=true"
exit 0
