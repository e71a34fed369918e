#!/bin/bash
# cmds_matrix: e4debugfs's testb, testi, imap, bmap, blocks, ffb, ffi, icheck,
# ncheck, ex (dump_extents), htree, ea_list and stat agree with the reference
# debugfs on every image of the matrix.
#
# Per image, 200+ inodes (the reserved ones, then evenly spread over the
# inode count) and 200+ blocks (evenly spread, plus the first ones) are
# sampled; one request file runs `testi`, `imap`, `ex` and `ea_list` for
# each inode, `stat` for the 20 first (the reserved ones), `bmap` (5
# logical blocks), `blocks`, `ex`, `ea_list`, `htree` and `stat` for the
# first 72 inodes (the generated tree's files and
# directories), `testb` for each block, one `icheck` of all sampled blocks,
# one `ncheck` and one `ncheck -c` of all sampled inodes, and `ffb`/`ffi`
# with a few goals, through one process of each tool
# (-f).  Each tool's output is split per command (at its echoed prompt
# line); for every command where the reference printed something on
# stdout, the lists of numbers must be equal, and the words "not" /
# "marked" of testb/testi too.  Commands the reference fails (nothing on
# stdout) must make e4debugfs print nothing on stdout either.
# Under CI=true an image the matrix builder could not make fails the test.
# Checked: a matrix copy whose skipped.txt names an image passed under
# CI=true before; now it fails "matrix images missing under CI=true".
# Catches: an ffb that ignores its goal and searches from the first block (the
# numbers of `ffb 10 GOAL` differ).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_DEBUGFS" "$PYTHON"
need_e4debugfs
matrix_ensure
matrix_check_skipped

cat >"$T/cmp.py" <<'PY'
import re, sys
def split(path, prompt):
    cmds = []
    for line in open(path, errors="replace"):
        if line.startswith(prompt):
            cmds.append([line[len(prompt):].strip(), []])
        elif cmds:
            cmds[-1][1].append(line)
    return cmds
ref = split(sys.argv[1], "debugfs: ")
e4 = split(sys.argv[2], "e4debugfs: ")
if len(ref) != len(e4):
    print("command count differs: %d vs %d" % (len(ref), len(e4))); sys.exit(1)
bad = compared = 0
for (rc, rl), (ec, el) in zip(ref, e4):
    rt, et = "".join(rl), "".join(el)
    rn, en = re.findall(r"\d+|0x[0-9a-f]+", rt), re.findall(r"\d+|0x[0-9a-f]+", et)
    rw = re.findall(r"\b(not|marked)\b", rt); ew = re.findall(r"\b(not|marked)\b", et)
    if not rt.strip():
        if et.strip():
            bad += 1
            if bad < 5: print("%s: reference failed, e4debugfs printed %r" % (rc, et))
        continue
    compared += 1
    if rn != en or rw != ew:
        bad += 1
        if bad < 5: print("%s: reference %r, e4debugfs %r" % (rc, rt, et))
print("compared %d commands, %d differ" % (compared, bad))
sys.exit(1 if bad else 0)
PY

bad=0 total=0
for n in "${MATRIX_IMAGES[@]}"; do
	img=$E4_MATRIX/$n.img
	read -r ic bc fdb < <("$REF_DUMPE2FS" -h "$img" 2>/dev/null | awk -F: '
		/^Inode count/ {ic=$2} /^Block count/ {bc=$2} /^First block/ {fb=$2}
		END {print ic+0, bc+0, fb+0}')
	[ "$ic" -gt 0 ] && [ "$bc" -gt 0 ] || fail "$n: cannot read its geometry"
	req=$T/$n.req
	{
		for i in $(seq 1 20); do echo "testi <$i>"; echo "imap <$i>"; echo "stat <$i>"; done
		for i in $(seq 1 220); do
			ino=$(((i * (ic - 1)) / 220 + 1))
			echo "testi <$ino>"
			echo "imap <$ino>"
			echo "ex <$ino>"
			echo "ea_list <$ino>"
		done
		# bmap on the first inodes in use (files of the generated tree)
		for i in 2 7 8 $(seq 11 80); do
			[ "$i" -le "$ic" ] || continue
			for l in 0 1 2 12 300; do echo "bmap <$i> $l"; done
			echo "blocks <$i>"
			echo "ex <$i>"
			echo "ea_list <$i>"
			echo "htree <$i>"
			echo "stat <$i>"
		done
		# ncheck: the reserved and first inodes and the sample, one scan
		sample=$(for i in 2 7 8 $(seq 11 80); do [ "$i" -le "$ic" ] && echo -n "$i "; done
			for i in $(seq 1 220); do echo -n "$(((i * (ic - 1)) / 220 + 1)) "; done)
		echo "ncheck $sample"
		echo "ncheck -c $sample"
		for i in $(seq 0 20); do echo "testb $((fdb + i))"; done
		for i in $(seq 1 220); do echo "testb $((fdb + (i * (bc - 1 - fdb)) / 220))"; done
		echo "testb $fdb 40"
		# icheck: every sampled block in one command (one inode scan)
		echo "icheck $(for i in $(seq 0 20); do echo -n "$((fdb + i)) "; done
			for i in $(seq 1 220); do echo -n "$((fdb + (i * (bc - 1 - fdb)) / 220)) "; done)"
		echo "ffb"; echo "ffb 30"; echo "ffb 10 $((bc / 2))"; echo "ffb 5 $((bc - 3))"
		echo "ffi"; echo "ffi 2"; echo "ffi <2>"; echo "ffi $((ic - 1))"
	} >"$req"
	runcap "$T/$n.ref" 120 "$REF_DEBUGFS" -f "$req" "$img"
	runcap "$T/$n.e4" 60 "$E4DEBUGFS" -f "$req" "$img"
	rc=$(cat "$T/$n.e4.rc")
	if [ "$rc" -ge 124 ] || san_report "$T/$n.e4.err"; then
		echo "$n: e4debugfs $(describe_rc "$rc")" >&2
		bad=$((bad + 1))
		continue
	fi
	if ! out=$("$PYTHON" "$T/cmp.py" "$T/$n.ref.out" "$T/$n.e4.out"); then
		echo "$n: $out" >&2
		bad=$((bad + 1))
		continue
	fi
	verbose "$n: $out"
	total=$((total + $(wc -l <"$req")))
done
info "${#MATRIX_IMAGES[@]} images, $total commands agree, $bad images differ"
[ "$bad" = 0 ] || fail "$bad images differ"
[ "$E4_CI_SKIP_FAIL" = 0 ] || fail "matrix images missing under CI=true"
exit 0
