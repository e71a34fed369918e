#!/bin/bash
# bench/dbgw_bigdir.sh: e4debugfs -w -f against the reference debugfs -w -f
# writing N one-byte files into one directory of a fresh ext4 image (issue 13,
# acceptance 3: target ratio e4debugfs / debugfs at most 0.1).
#
# Both tools get the same script ("mkdir d", then N lines "write SRC
# d/fNNNNNN") on the same image made by the reference mke2fs (4 KiB blocks,
# -N large enough), on tmpfs (BENCH_DIR, default /dev/shm), so the disk is
# not measured.  Only the tool's run is timed (one run each: the reference
# is quadratic in N, its run takes minutes at 100,000).  Afterwards the
# reference e2fsck -fn must be clean on both images.  Prints, per N, the
# wall and CPU seconds of each tool and their ratios.
# Not a test.
#
# Environment: E4DEBUGFS (default ./debugfs/e4debugfs of the current
# directory, the build directory), REF_DEBUGFS, REF_MKE2FS, REF_E2FSCK,
# COUNTS (default "100000"; e.g. "20000 50000" when the reference is too
# slow), BENCH_DIR.
set -eu
export LC_ALL=C

E4DEBUGFS=${E4DEBUGFS:-$PWD/debugfs/e4debugfs}
REF_DEBUGFS=${REF_DEBUGFS:-$(command -v debugfs || echo /sbin/debugfs)}
REF_MKE2FS=${REF_MKE2FS:-$(command -v mke2fs || echo /sbin/mke2fs)}
REF_E2FSCK=${REF_E2FSCK:-$(command -v e2fsck || echo /sbin/e2fsck)}
COUNTS=${COUNTS:-100000}
BENCH_DIR=${BENCH_DIR:-/dev/shm}/dbgw_bigdir.$$
mkdir -p "$BENCH_DIR"
trap 'rm -rf "$BENCH_DIR"' EXIT
printf 'x' >"$BENCH_DIR/src"

# secs CMD...: run CMD (output discarded), print its wall time and its CPU
# time (user + system) in seconds.  On a shared machine the CPU time is the
# steadier figure.
secs() {
	local TIMEFORMAT='%R %U %S' t
	t=$({ time "$@" >/dev/null 2>&1; } 2>&1) || { echo "failed: $*" >&2; return 1; }
	awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.2f %.2f", a[1], a[2] + a[3] }'
}

printf '%8s %20s %20s %8s %8s\n' N "e4debugfs real/cpu" "debugfs real/cpu" ratio cpuratio
for n in $COUNTS; do
	cmds=$BENCH_DIR/cmds.$n
	{
		echo "mkdir d"
		for ((i = 0; i < n; i++)); do printf 'write %s d/f%06d\n' "$BENCH_DIR/src" "$i"; done
	} >"$cmds"
	"$REF_MKE2FS" -q -F -t ext4 -b 4096 -N $((n + n / 10 + 1000)) "$BENCH_DIR/e4.img" 1G >/dev/null 2>&1
	cp --sparse=always "$BENCH_DIR/e4.img" "$BENCH_DIR/ref.img"
	te4=($(secs "$E4DEBUGFS" -w -f "$cmds" "$BENCH_DIR/e4.img"))
	tref=($(secs "$REF_DEBUGFS" -w -f "$cmds" "$BENCH_DIR/ref.img"))
	for img in e4 ref; do
		"$REF_E2FSCK" -fn "$BENCH_DIR/$img.img" >"$BENCH_DIR/fsck.out" 2>&1 || {
			echo "N=$n: $img image not clean (kept as $BENCH_DIR.$img.$n.img):" >&2
			grep -v '^Pass [1-5]:' "$BENCH_DIR/fsck.out" | head -40 >&2
			cp --sparse=always "$BENCH_DIR/$img.img" "$BENCH_DIR.$img.$n.img"
		}
	done
	printf '%8d %20s %20s %8s %8s\n' "$n" "${te4[0]} / ${te4[1]}" "${tref[0]} / ${tref[1]}" \
		"$(awk "BEGIN { printf \"%.3f\", ${te4[0]} / ${tref[0]} }")" \
		"$(awk "BEGIN { printf \"%.3f\", ${te4[1]} / ${tref[1]} }")"
	rm -f "$BENCH_DIR"/*.img "$cmds"
done
