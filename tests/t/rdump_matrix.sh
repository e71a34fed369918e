#!/bin/bash
# rdump_matrix: for every image of the matrix, `e4debugfs -R 'rdump / OUT1'`
# and the reference `debugfs -R 'rdump / OUT2'` produce the same tree.
#
# Compared (tests/gentree.py list, sorted bytewise): relative path, type,
# permission bits (incl. setuid/setgid/sticky), uid, gid, size, mtime and
# atime seconds (the reference restores both on files and directories,
# neither on symlinks), sha256 of the content or of the symlink target.
# Targets are on a noatime tmpfs so listing does not disturb atimes.
# e4debugfs must also exit 0, within the timeout, without sanitizer reports.
# Catches: an rdump that sets a file's mtime before writing its data, or
# drops the setuid bit (mode or mtime differ).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_DEBUGFS" "$PYTHON"
need_e4debugfs
matrix_ensure
matrix_check_skipped
tmp_on_tmpfs 3g

TMO=${E4_RDUMP_TIMEOUT:-300}
JOBS=${E4_JOBS:-2}

# check_image NAME: writes $T/NAME.result: "ok N" or the reason it differs
check_image() {
	local name=$1 img=$E4_MATRIX/$1.img o1=$TFS/$1.e4 o2=$TFS/$1.ref r=$T/$1
	local rc rrc why='' d
	mkdir -p "$o1" "$o2"
	runcap "$r.e4" "$TMO" "$E4DEBUGFS" -R "rdump / $o1" "$img" &
	runcap "$r.ref" "$TMO" "$REF_DEBUGFS" -R "rdump / $o2" "$img"
	wait
	rc=$(cat "$r.e4.rc")
	if [ "$rc" != 0 ]; then
		why="e4debugfs $(describe_rc "$rc"): $(head -3 "$r.e4.err" | tr '\n' ' ')"
	elif san_report "$r.e4.err"; then
		why="sanitizer report: $(grep -m1 -E 'runtime error|Sanitizer' "$r.e4.err")"
	fi
	rrc=$(cat "$r.ref.rc")
	if [ "$rrc" != 0 ]; then
		echo "ERROR the reference debugfs failed: $(describe_rc "$rrc")" >"$r.result"
		return
	fi
	"$PYTHON" "$GENTREE" list "$o1" >"$r.e4.list" &
	"$PYTHON" "$GENTREE" list "$o2" >"$r.ref.list"
	wait
	if [ ! -s "$r.ref.list" ]; then
		rm -rf "$o1" "$o2"
		echo "ERROR the reference rdump produced nothing" >"$r.result"
		return
	fi
	local tol=0
	if ! cmp -s "$r.ref.list" "$r.e4.list"; then
		if ! "$PYTHON" "$T/quirk.py" "$r.ref.list" "$r.e4.list" "$o2" "$o1" "$img" >"$r.diff"; then
			rm -rf "$o1" "$o2"
			echo "ERROR quirk.py failed" >"$r.result"
			return
		fi
		tol=$(sed -n '1s/^tolerated //p' "$r.diff")
		if [ "$(sed 1d "$r.diff" | grep -c .)" != 0 ]; then
			d=$(sed 1d "$r.diff" | head -6 | cut -c1-300)
			why="${why:+$why; }trees differ ($(sed 1d "$r.diff" | grep -c .) lines; < reference, > e4debugfs):
$d"
		fi
	fi
	rm -rf "$o1" "$o2"
	if [ -n "$why" ]; then
		echo "DIFF $why" >"$r.result"
	else
		echo "ok $(wc -l <"$r.ref.list") ${tol:-0}" >"$r.result"
	fi
}

# The reference's one known bug met by the matrix: debugfs 1.47.0 dumps an
# inline-data file shorter than 60 bytes as 60 bytes (the whole i_block,
# zero padded), although i_size is smaller.  quirk.py REFLIST E4LIST REFDIR
# E4DIR IMG prints "tolerated N" and then the listing differences it cannot
# explain by exactly that: same path and metadata, reference size 60,
# e4debugfs size < 60 equal to the inode's i_size (reference `stat`), and
# e4debugfs content = the first i_size bytes of the reference's.
cat >"$T/quirk.py" <<'PYEOF'
import os, re, subprocess, sys, tempfile

reflist, e4list, refdir, e4dir, img = sys.argv[1:6]
ref_debugfs = os.environ.get("REF_DEBUGFS", "debugfs")


def load(p):
    d = {}
    with open(p, "rb") as f:
        for line in f:
            line = line.rstrip(b"\n")
            parts = line.rsplit(b" ", 8)
            key = parts[0] if len(parts) == 9 and parts[1] == b"f" else line.split(b" ", 1)[0]
            d[key] = line
    return d


ref, e4 = load(reflist), load(e4list)
cand = []
for k in sorted(set(ref) | set(e4)):
    a, b = ref.get(k), e4.get(k)
    if a == b or a is None or b is None:
        continue
    pa, pb = a.rsplit(b" ", 8), b.rsplit(b" ", 8)
    if len(pa) != 9 or len(pb) != 9 or pa[1] != b"f" or pb[1] != b"f":
        continue
    # fields: path f mode uid gid size mtime atime sha
    if pa[:5] + pa[6:8] != pb[:5] + pb[6:8]:
        continue
    sa, sb = int(pa[5][5:]), int(pb[5][5:])
    if sa == 60 and sb < 60:
        cand.append((k, sb))
sizes = {}
if cand:
    with tempfile.NamedTemporaryFile("wb", suffix=".cmd", delete=False) as f:
        for k, _ in cand:
            f.write(b"stat /" + k + b"\n")
        cmd = f.name
    out = subprocess.run([ref_debugfs, "-f", cmd, img], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL).stdout
    os.unlink(cmd)
    cur = None
    for line in out.split(b"\n"):
        m = re.match(rb"^debugfs: stat /(.*)$", line)
        if m:
            cur = m.group(1)
            continue
        m = re.search(rb"\bSize: (\d+)", line)
        if m and cur is not None and cur not in sizes:
            sizes[cur] = int(m.group(1))
tolerated = set()
for k, sb in cand:
    if sizes.get(k) != sb:
        continue
    with open(os.path.join(os.fsencode(refdir), k), "rb") as f:
        rd = f.read()
    with open(os.path.join(os.fsencode(e4dir), k), "rb") as f:
        ed = f.read()
    if len(rd) == 60 and ed == rd[:sb]:
        tolerated.add(k)
w = sys.stdout.buffer
w.write(b"tolerated %d\n" % len(tolerated))
for k in sorted(set(ref) | set(e4)):
    if k in tolerated or ref.get(k) == e4.get(k):
        continue
    if k in ref:
        w.write(b"< " + ref[k] + b"\n")
    if k in e4:
        w.write(b"> " + e4[k] + b"\n")
PYEOF

for name in "${MATRIX_IMAGES[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
	check_image "$name" &
done
wait

n=0 ok=0
bad=() quirks=()
for name in "${MATRIX_IMAGES[@]}"; do
	n=$((n + 1))
	res=$(cat "$T/$name.result" 2>/dev/null || echo "ERROR no result")
	case $res in
	ok*)
		ok=$((ok + 1))
		set -- $res
		if [ "$3" != 0 ]; then
			quirks+=("$name:$3")
			verbose "$name: identical ($2 entries; $3 inline files differ only by the reference's 60-byte padding)"
		else
			verbose "$name: identical ($2 entries)"
		fi ;;
	ERROR*)
		fail "$name: ${res#ERROR }" ;;
	*)
		bad+=("$name")
		echo "--- $name: ${res#DIFF }" ;;
	esac
done

[ ${#quirks[@]} -eq 0 ] ||
	info "tolerated the reference's inline-data padding bug (image:files): ${quirks[*]}"
echo "rdump_matrix: $ok/$n images identical (${#MATRIX_SKIPPED[@]} not built) in $(elapsed) s"
[ ${#bad[@]} -eq 0 ] || fail "images that differ: ${bad[*]}"
[ "$E4_CI_SKIP_FAIL" = 0 ] || fail "matrix images missing under CI=true"
exit 0
