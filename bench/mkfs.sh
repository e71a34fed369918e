#!/bin/bash
# bench/mkfs.sh: e4mkfs against the reference mke2fs, side by side, on
# sparse image files: 1 GiB, 1 TiB and 15 TiB ext4 (lazy init, the
# defaults), and 8 GiB with lazy_itable_init=0,lazy_journal_init=0,nodiscard.
#
# Each case runs RUNS times per tool (default 5), alternating which tool
# goes first, on a fresh sparse file each time; a run shorter than a second
# is repeated in a loop (fresh files each time) until the loop takes at
# least a second, and counts as the loop's mean.  Only the tool's own run
# is timed (making and removing the sparse files and a sync are not).
# Prints the median seconds of each tool, their ratio (e4mkfs / mke2fs;
# the targets are at most 1.0 everywhere and at most 0.5 at 15 TiB), the
# bytes each image allocates, and, where the image holds 64 MiB or more,
# the I/O floor (see floor() below): the seconds that writing as many
# bytes as the e4mkfs image holds takes on this disk at best, and that
# floor over the reference's time.  The
# reference reads a copy of Debian's 1.47.0 mke2fs.conf (e4mkfs has it
# built in), so both make the same filesystem.
# Not a test: it writes up to a few GiB under BENCH_DIR and takes minutes.
#
# Environment: E4MKFS (default ./mkfs/e4mkfs of the current directory, the
# build directory), REF_MKE2FS, RUNS, BENCH_DIR (default /var/tmp/e4mkfs.PID:
# a disk, as a user's image would be), CASES (names, to narrow the run).
set -eu
export LC_ALL=C

E4MKFS=${E4MKFS:-$PWD/mkfs/e4mkfs}
REF_MKE2FS=${REF_MKE2FS:-$(command -v mke2fs || echo /sbin/mke2fs)}
RUNS=${RUNS:-5}
BENCH_DIR=${BENCH_DIR:-/var/tmp/e4mkfs.$$}
CASES=${CASES:-"1g 1t 15t 8g_nolazy"}

[ -x "$E4MKFS" ] || { echo "mkfs.sh: e4mkfs not found: $E4MKFS (set E4MKFS)" >&2; exit 1; }
# in a build directory mkfs/e4mkfs is libtool's wrapper script, whose
# shell start-up would be timed too: run the real binary
if [ -x "$(dirname "$E4MKFS")/.libs/e4mkfs" ]; then
	libdir=$(cd "$(dirname "$E4MKFS")/../lib/e4/.libs" 2>/dev/null && pwd) || libdir=
	E4MKFS=$(dirname "$E4MKFS")/.libs/e4mkfs
	export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
mkdir -p "$BENCH_DIR"
trap 'rm -rf "$BENCH_DIR"' EXIT

conf=$BENCH_DIR/mke2fs.conf
cp "$(dirname "$0")/../tests/mke2fs-debian.conf" "$conf"

img=$BENCH_DIR/fs.img

# run TOOL IMAGE OPTS...: one format of IMAGE
run() {
	local tool=$1 file=$2
	shift 2
	if [ "$tool" = e4 ]; then
		"$E4MKFS" -q -F "$@" "$file" </dev/null >/dev/null
	else
		MKE2FS_CONFIG=$conf "$REF_MKE2FS" -q -F "$@" "$file" </dev/null >/dev/null
	fi
}

# once TOOL SIZE OPTS...: one format of a fresh sparse file ($img)
once() {
	local tool=$1 size=$2
	shift 2
	rm -f "$img"
	truncate -s "$size" "$img"
	run "$tool" "$img" "$@"
}

# timed TOOL SIZE OPTS...: seconds for one format (a loop mean when short).
# Only the tool is timed: the fresh sparse files are made before the clock
# starts and removed after it stops (removing a 15 TiB image that holds
# 230 MB takes longer than formatting it), and sync runs before, so that
# neither tool waits for the other's writeback.
timed() {
	local tool=$1 size=$2 n=1 t0 t1 d i
	shift 2
	while :; do
		for ((i = 0; i < n; i++)); do
			truncate -s "$size" "$img.$i"
		done
		sync
		t0=$(date +%s.%N)
		for ((i = 0; i < n; i++)); do
			run "$tool" "$img.$i" "$@"
		done
		t1=$(date +%s.%N)
		rm -f "$img".*
		d=$(echo "$t1 - $t0" | bc)
		if [ "$(echo "$d >= 1" | bc)" = 1 ] || [ $n -ge 64 ]; then
			echo "scale=4; $d / $n" | bc
			return
		fi
		n=$((n * 4))
	done
}

# floor BYTES: seconds to write BYTES (whole MiB, random data) contiguously
# to a fresh file with O_DIRECT and make them durable: what the disk needs
# for as many bytes as an e4mkfs image holds, written the cheapest way.
# No tool that writes those bytes can beat it; floor / mke2fs is the best
# ratio reachable (the median of RUNS tries).
floor() {
	local mib=$(( ($1 + 1048575) / 1048576 )) src=/dev/shm/e4mkfs-bench.$$ t0 t1 i
	head -c $((mib * 1048576)) /dev/urandom >"$src"
	for ((i = 0; i < RUNS; i++)); do
		rm -f "$img.floor"
		sync
		t0=$(date +%s.%N)
		dd if="$src" of="$img.floor" bs=16M oflag=direct conv=fdatasync status=none
		t1=$(date +%s.%N)
		echo "$t1 - $t0" | bc
	done | median
	rm -f "$src" "$img.floor"
}

median() {
	sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

printf '%-12s %10s %10s %7s %14s %14s %9s %7s\n' case e4mkfs_s mke2fs_s ratio e4mkfs_bytes \
	mke2fs_bytes floor_s floor_r
for c in $CASES; do
	case $c in
	1g) size=1G opts=(-t ext4) ;;
	1t) size=1T opts=(-t ext4) ;;
	15t) size=15T opts=(-t ext4) ;;
	8g_nolazy) size=8G opts=(-t ext4 -E 'lazy_itable_init=0,lazy_journal_init=0,nodiscard') ;;
	*) echo "mkfs.sh: unknown case $c" >&2; exit 1 ;;
	esac
	: >"$BENCH_DIR/e4" && : >"$BENCH_DIR/ref"
	for ((r = 0; r < RUNS; r++)); do
		if ((r % 2)); then
			timed ref "$size" "${opts[@]}" >>"$BENCH_DIR/ref"
			timed e4 "$size" "${opts[@]}" >>"$BENCH_DIR/e4"
		else
			timed e4 "$size" "${opts[@]}" >>"$BENCH_DIR/e4"
			timed ref "$size" "${opts[@]}" >>"$BENCH_DIR/ref"
		fi
	done
	once e4 "$size" "${opts[@]}"
	b_e4=$(du -B1 "$img" | cut -f1)
	once ref "$size" "${opts[@]}"
	b_ref=$(du -B1 "$img" | cut -f1)
	rm -f "$img"
	m_e4=$(median <"$BENCH_DIR/e4")
	m_ref=$(median <"$BENCH_DIR/ref")
	# the floor means something only where the bytes, not start-up, cost
	f_s=- f_r=-
	if [ "$b_e4" -ge $((64 << 20)) ]; then
		m_floor=$(floor "$b_e4")
		f_s=$(printf '%.3f' "$m_floor")
		f_r=$(printf '%.2f' "$(echo "scale=4; $m_floor / $m_ref" | bc)")
	fi
	printf '%-12s %10.3f %10.3f %7.2f %14s %14s %9s %7s\n' "$c" "$m_e4" "$m_ref" \
		"$(echo "scale=4; $m_e4 / $m_ref" | bc)" "$b_e4" "$b_ref" "$f_s" "$f_r"
done
