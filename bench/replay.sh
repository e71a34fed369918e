#!/bin/bash
# bench/replay.sh: journal replay speed, e4fsck against the reference e2fsck.
#
# Makes one kernel journal of 1 GiB (mke2fs -J size=1024, mounted with
# data=journal so file data goes through the log; about 1,600 fsync'd
# files = 1,600 commits), shuts the filesystem down with EXT4_IOC_SHUTDOWN
# + LOGFLUSH and copies the image while it is still mounted.  Then, on a
# fresh copy each time, times `e2fsck -y -E journal_only` and
# `e4fsck -y -E journal_only`, alternating which goes first, RUNS times
# (default 5), and prints the medians and their ratio (e4fsck / e2fsck;
# the target is at most 1.0).  Not a test: it needs root and a loop
# device, about 3 GiB of space in BENCH_DIR (default: a directory under
# /dev/shm) and a few minutes.
#
# Environment: E4FSCK (default ./fsck/e4fsck of the current directory, the
# build directory), REF_E2FSCK, RUNS, BENCH_DIR, FILES (commits, 1600),
# FILE_KIB (size of each file, 400).
set -eu
export LC_ALL=C

E4FSCK=${E4FSCK:-$PWD/fsck/e4fsck}
REF_E2FSCK=${REF_E2FSCK:-$(command -v e2fsck || echo /sbin/e2fsck)}
RUNS=${RUNS:-5}
FILES=${FILES:-1600}
FILE_KIB=${FILE_KIB:-400}
BENCH_DIR=${BENCH_DIR:-/dev/shm/e4bench.$$}

[ "$(id -u)" = 0 ] || { echo "replay.sh: needs root (loop mount)" >&2; exit 1; }
[ -x "$E4FSCK" ] || { echo "replay.sh: e4fsck not found: $E4FSCK (set E4FSCK)" >&2; exit 1; }
mkdir -p "$BENCH_DIR"
MNT=$BENCH_DIR/mnt
cleanup() {
	mountpoint -q "$MNT" 2>/dev/null && umount "$MNT"
	rm -rf "$BENCH_DIR"
}
trap cleanup EXIT

img=$BENCH_DIR/fs.img
mke2fs -q -F -t ext4 -J size=1024 "$img" 3G
mkdir -p "$MNT"
mount -o loop,data=journal "$img" "$MNT"
python3 - "$MNT" "$img" "$BENCH_DIR/crash.img" "$FILES" "$FILE_KIB" <<'PY'
import os, sys, fcntl, struct, shutil, random
d, img, out, nfiles, kib = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
random.seed(7)
blob = bytes(random.getrandbits(8) for _ in range(1 << 16))
os.makedirs(d + '/w', exist_ok=True)
for i in range(nfiles):
    with open('%s/w/f%05d' % (d, i), 'wb') as f:
        n = kib << 10
        while n > 0:
            f.write(blob[:min(n, len(blob))]); n -= len(blob)
        os.fsync(f.fileno())
fd = os.open(d, os.O_RDONLY)
fcntl.ioctl(fd, 0x8004587D, struct.pack('I', 1))   # EXT4_IOC_SHUTDOWN, LOGFLUSH
os.close(fd)
shutil.copyfile(img, out)
PY
umount "$MNT"
rm -f "$img"
base=$BENCH_DIR/crash.img
dumpe2fs -h "$base" 2>/dev/null | grep -q 'features:.*needs_recovery' ||
	{ echo "replay.sh: the crash image does not need recovery" >&2; exit 1; }
commits=$(debugfs -c -R 'logdump' "$base" 2>/dev/null | grep -c 'type 2 (commit block)' || true)
echo "journal: 1 GiB, $commits commits in the log"

run() {	# run TOOL: seconds for one replay on a fresh copy
	local t0 t1
	cp --sparse=always "$base" "$BENCH_DIR/run.img"
	t0=$(date +%s.%N)
	"$1" -y -E journal_only "$BENCH_DIR/run.img" >/dev/null 2>&1 || true
	t1=$(date +%s.%N)
	rm -f "$BENCH_DIR/run.img"
	echo "$t1 - $t0" | bc
}

ours=() refs=()
for ((i = 0; i < RUNS; i++)); do
	if ((i % 2 == 0)); then
		refs+=("$(run "$REF_E2FSCK")"); ours+=("$(run "$E4FSCK")")
	else
		ours+=("$(run "$E4FSCK")"); refs+=("$(run "$REF_E2FSCK")")
	fi
	echo "run $((i + 1)): e2fsck ${refs[i]} s, e4fsck ${ours[i]} s"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
mr=$(median "${refs[@]}") mo=$(median "${ours[@]}")
# sanity: both replays give the same image outside the superblock
cp --sparse=always "$base" "$BENCH_DIR/a.img"
cp --sparse=always "$base" "$BENCH_DIR/b.img"
E2FSCK_TIME=2000000000 "$REF_E2FSCK" -y -E journal_only "$BENCH_DIR/a.img" >/dev/null 2>&1 || true
E2FSCK_TIME=2000000000 "$E4FSCK" -y -E journal_only "$BENCH_DIR/b.img" >/dev/null 2>&1 || true
ndiff=$(cmp -l "$BENCH_DIR/a.img" "$BENCH_DIR/b.img" 2>/dev/null | awk '$1 <= 1024 || $1 > 2048' | wc -l)
echo "bytes differing outside the superblock: $ndiff"
rm -f "$BENCH_DIR/a.img" "$BENCH_DIR/b.img"
echo "median: e2fsck $mr s, e4fsck $mo s, ratio e4fsck/e2fsck $(echo "scale=3; $mo / $mr" | bc) (target <= 1.0)"
