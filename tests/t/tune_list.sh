#!/bin/bash
# tune_list: e4tune -l agrees field by field with the reference dumpe2fs -h
# on every image of the matrix (e4tune issue, acceptance 6): the same lines
# in the same order once runs of blanks are folded (the reference pads some
# labels with a tab and ends flag lists with a space); and --json parses and
# carries the same values: every text field is found under its key
# (journal fields under "journal"), as the same string, the same number
# (also in hex, "N (text)" or ctime form; a size "16M" or "35 MB" as
# bytes), the same list of words, or null where the text says "<none>",
# "<not available>" or "n/a".
# Catches: a field missing from -l or out of dumpe2fs -h's order.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4tune
need_oracle "$REF_DUMPE2FS" "$PYTHON"
matrix_ensure
matrix_check_skipped

norm() { sed -e 's/[[:space:]]\+/ /g' -e 's/ $//' | grep -v '^$'; }

failed=()
for name in "${MATRIX_IMAGES[@]}"; do
	img=$E4_MATRIX/$name.img
	"$REF_DUMPE2FS" -h "$img" 2>/dev/null | norm >"$T/ref" || true
	if ! "$E4TUNE" -l "$img" >"$T/text" 2>"$T/err"; then
		failed+=("$name: e4tune -l failed: $(head -2 "$T/err")")
		continue
	fi
	norm <"$T/text" >"$T/ours"
	if ! diff "$T/ref" "$T/ours" >"$T/d"; then
		failed+=("$name: -l differs from dumpe2fs -h: $(head -6 "$T/d" | tr '\n' '|')")
		continue
	fi
	if ! "$E4TUNE" -l --json "$img" >"$T/json" 2>"$T/err"; then
		failed+=("$name: e4tune -l --json failed: $(head -2 "$T/err")")
		continue
	fi
	if ! "$PYTHON" - "$T/text" "$T/json" >"$T/jerr" 2>&1 <<'PYEOF'; then
import json, re, sys, time
text, doc = open(sys.argv[1]).read().splitlines(), json.load(open(sys.argv[2]))
def key(label):
    return re.sub(r'[^a-z0-9]+', '_', label.lower()).strip('_')
bad, scope = [], doc
for line in text:
    m = re.match(r'^([^:]+):\s*(.*?)\s*$', line)
    if not m:
        continue
    label, val = m.group(1), m.group(2)
    k = key(label)
    if k == 'journal_features' and 'journal' in doc:
        scope = doc['journal']
    if k not in scope:
        bad.append(f"{label}: no key {k}")
        continue
    j = scope[k]
    size = re.match(r'^(\d+) ?(k|M|kB|MB|GB|TB|PB)$', val)
    if j is None:	# absent: the text says so
        ok = val in ('<none>', '<not available>', 'n/a')
    elif isinstance(j, list):
        words = ['<none>' if x is None else str(x) for x in j]
        ok = ' '.join(words) == val or (not j and val in ('(none)', ''))
    elif isinstance(j, str):
        ok = j == val
    elif isinstance(j, bool):
        ok = False
    elif isinstance(j, int) and size:	# bytes; text in k/M (truncated) or kB.. (rounded)
        unit = 1024 << {'k': 0, 'kB': 0, 'M': 10, 'MB': 10, 'GB': 20, 'TB': 30, 'PB': 40}[size.group(2)]
        n = j // unit if size.group(2) in ('k', 'M') else (j + unit // 2) // unit
        ok = int(size.group(1)) == n and j % 1024 == 0
    elif isinstance(j, (int, float)):
        ok = (val == str(j) or val.startswith(str(j) + ' ') or
              val.lower() == '0x%x' % j or
              (val.lower().startswith('0x') and int(val, 16) == j) or
              val == time.strftime('%a %b %e %H:%M:%S %Y', time.localtime(j)))
    else:
        ok = False
    if not ok:
        bad.append(f"{label}: text {val!r} json {j!r}")
if bad:
    print('; '.join(bad[:4]))
    sys.exit(1)
PYEOF
		failed+=("$name: --json disagrees with the text: $(head -3 "$T/jerr")")
	fi
done
for f in "${failed[@]+"${failed[@]}"}"; do
	echo "FAIL: $TEST_NAME: $f" >&2
done
[ ${#failed[@]} = 0 ] || fail "${#failed[@]} of ${#MATRIX_IMAGES[@]} images failed"
[ "$E4_CI_SKIP_FAIL" = 0 ] || fail "matrix images missing under CI"
info "${#MATRIX_IMAGES[@]} images: -l and --json agree with dumpe2fs -h ($(elapsed)s)"
