#!/bin/bash
# bench/rdump.sh: `rdump /` speed, e4debugfs against the reference debugfs.
#
# Generates a tree of FILES files (default 100,000: 1,000 directories of
# 100 files, sizes 0 .. 16 KiB, a few of 1 MiB) on /dev/shm, makes an ext4
# image of it with `mke2fs -d`, then times `debugfs -R "rdump / DIR"` and
# `e4debugfs -R "rdump / DIR"` into a private tmpfs, RUNS times each
# (default 5), alternating which goes first, emptying the target between
# runs, and prints the medians and their ratio (e4debugfs / debugfs; the
# target is at most 0.5), of the wall time and of the CPU time (user +
# system, all threads: what a machine busy with other work shows best),
# with the load average.  Both copies are compared once (file list, sizes,
# modes and contents).  Not a test: it needs root (tmpfs mount), about
# 3 GiB of memory in /dev/shm and the tmpfs, and a few minutes.
#
# Environment: E4DEBUGFS (default ./debugfs/e4debugfs of the current
# directory, the build directory), REF_DEBUGFS, RUNS, FILES, BENCH_DIR.
set -eu
export LC_ALL=C

E4DEBUGFS=${E4DEBUGFS:-$PWD/debugfs/e4debugfs}
REF_DEBUGFS=${REF_DEBUGFS:-$(command -v debugfs || echo /sbin/debugfs)}
RUNS=${RUNS:-5}
FILES=${FILES:-100000}
BENCH_DIR=${BENCH_DIR:-/dev/shm/e4rdump.$$}

[ "$(id -u)" = 0 ] || { echo "rdump.sh: needs root (tmpfs mount)" >&2; exit 1; }
[ -x "$E4DEBUGFS" ] || { echo "rdump.sh: e4debugfs not found: $E4DEBUGFS (set E4DEBUGFS)" >&2; exit 1; }
mkdir -p "$BENCH_DIR"
OUT=$BENCH_DIR/out
cleanup() {
	mountpoint -q "$OUT" 2>/dev/null && umount "$OUT"
	rm -rf "$BENCH_DIR"
}
trap cleanup EXIT

src=$BENCH_DIR/src img=$BENCH_DIR/fs.img
mkdir -p "$src"
python3 - "$src" "$FILES" <<'PY'
import os, random, sys
d, n = sys.argv[1], int(sys.argv[2])
random.seed(11)
blob = os.urandom(1 << 20)
per = 100
for i in range(n):
    sub = '%s/d%04d' % (d, i // per)
    if i % per == 0:
        os.mkdir(sub)
    size = (1 << 20) if i % 5000 == 0 else random.randrange(0, 16385)
    off = random.randrange(0, len(blob) - size + 1)
    with open('%s/f%06d' % (sub, i), 'wb') as f:
        f.write(blob[off:off + size])
PY
mke2fs -q -F -t ext4 -N $((FILES + 4096)) -d "$src" "$img" 3G
rm -rf "$src"

mkdir -p "$OUT"
mount -t tmpfs -o size=3g,mode=0755 e4bench "$OUT"

# run TOOL: "WALL CPU" seconds for one rdump / into an empty $OUT/t
run() {
	local TIMEFORMAT='%3R %3U %3S' rc=0
	rm -rf "$OUT/t"
	mkdir "$OUT/t"
	sync
	{ time "$1" -R "rdump / $OUT/t" "$img" >/dev/null 2>"$BENCH_DIR/err" || rc=1; } \
		2>"$BENCH_DIR/time"
	[ $rc = 0 ] || { echo "rdump.sh: $1 failed: $(head -3 "$BENCH_DIR/err")" >&2; exit 1; }
	awk '{ print $1, $2 + $3 }' "$BENCH_DIR/time"
}

# compare the two copies once
listing() { (cd "$1" && find . -printf '%p %y %m %s\n' | sort && find . -type f -print0 | sort -z | xargs -0 cat | sha256sum); }
run "$REF_DEBUGFS" >/dev/null
mv "$OUT/t" "$OUT/ref"
run "$E4DEBUGFS" >/dev/null
if [ "$(listing "$OUT/ref")" != "$(listing "$OUT/t")" ]; then
	echo "rdump.sh: the two copies differ" >&2
	exit 1
fi
rm -rf "$OUT/ref"

ref_times=() e4_times=() ref_cpu=() e4_cpu=()
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for i in $(seq 1 "$RUNS"); do
	order="ref e4"
	[ $((i % 2)) = 1 ] || order="e4 ref"
	for tool in $order; do
		if [ "$tool" = ref ]; then
			run "$REF_DEBUGFS" >"$BENCH_DIR/one"
			read -r w c <"$BENCH_DIR/one"
			ref_times+=("$w") ref_cpu+=("$c")
		else
			run "$E4DEBUGFS" >"$BENCH_DIR/one"
			read -r w c <"$BENCH_DIR/one"
			e4_times+=("$w") e4_cpu+=("$c")
		fi
	done
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
mr=$(median "${ref_times[@]}") me=$(median "${e4_times[@]}")
cr=$(median "${ref_cpu[@]}") ce=$(median "${e4_cpu[@]}")
echo "rdump / of $FILES files into tmpfs, $RUNS runs each; load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo "debugfs:   wall ${ref_times[*]}  median $mr s; cpu ${ref_cpu[*]}  median $cr s"
echo "e4debugfs: wall ${e4_times[*]}  median $me s; cpu ${e4_cpu[*]}  median $ce s"
echo "ratio e4debugfs/debugfs: wall $(ratio "$me" "$mr"), cpu $(ratio "$ce" "$cr")"
