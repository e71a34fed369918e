#!/bin/bash
# bench/fsck.sh: e4fsck -fn against the reference e2fsck -fn on populated
# images (issue 15, acceptance 5).  Not a test.
#
# Images: for each inode count in SIZES (default "200000"; the issue also
# asks for 1000000), an ext4 image (mke2fs defaults, -N a tenth over the
# count, 6 KiB of space an inode plus 512 MiB) loop-mounted and filled by
# the kernel with tests/gentree.py gen --spread (seed SEED, default
# 20261201: the base tree, about 20,600 entries with its 20,000-entry
# directory, then small files and symlinks, 200 to a directory, up to the
# count).  Images are kept in BENCH_DIR (default /var/tmp/e4fsck-bench)
# and reused while the generator and the parameters are the same (KEEP=0
# removes them at the end).
#
# Each tool runs once to warm the page cache, then RUNS times (default 3),
# alternating; printed: the median seconds and peak RSS (KiB,
# /usr/bin/time), the ratios e4fsck / e2fsck, each tool's exit status, and
# which of e4fsck's passes ran (its "Pass N" lines): while e4fsck's full
# check is incomplete this measures only what it runs, and says so.
#
# Needs root (loop mount) and /usr/bin/time.  Run from the build directory
# or set E4FSCK:
#   cd build && sudo bash ../bench/fsck.sh            # 200,000 inodes
#   SIZES="200000 1000000" bash ../bench/fsck.sh
# Environment: E4FSCK (default ./fsck/e4fsck), REF_E2FSCK (/sbin/e2fsck),
# SIZES, RUNS, SEED, BENCH_DIR, KEEP.
set -eu
export LC_ALL=C

here=$(cd "$(dirname "$0")/.." && pwd)
E4FSCK=${E4FSCK:-$PWD/fsck/e4fsck}
REF_E2FSCK=${REF_E2FSCK:-/sbin/e2fsck}
SIZES=${SIZES:-200000}
RUNS=${RUNS:-3}
SEED=${SEED:-20261201}
BENCH_DIR=${BENCH_DIR:-/var/tmp/e4fsck-bench}
KEEP=${KEEP:-1}

[ "$(id -u)" = 0 ] || { echo "fsck.sh: needs root (loop mount)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "fsck.sh: needs /usr/bin/time" >&2; exit 1; }
[ -x "$E4FSCK" ] || { echo "fsck.sh: e4fsck not found: $E4FSCK (set E4FSCK)" >&2; exit 1; }
# the binary itself, not libtool's wrapper script (its shell would be timed)
if [ -x "$(dirname "$E4FSCK")/.libs/e4fsck" ]; then
	libdir=$(cd "$(dirname "$E4FSCK")/../lib/e4/.libs" 2>/dev/null && pwd) || libdir=
	E4FSCK=$(dirname "$E4FSCK")/.libs/e4fsck
	export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
mkdir -p "$BENCH_DIR/mnt"
cleanup() {
	mountpoint -q "$BENCH_DIR/mnt" && umount "$BENCH_DIR/mnt"
	[ "$KEEP" = 1 ] || rm -rf "$BENCH_DIR"
}
trap cleanup EXIT

# make_image N: $BENCH_DIR/fs-N.img, made unless a matching one is there
make_image() {
	local n=$1 img=$BENCH_DIR/fs-$1.img stamp t0
	stamp="$(sha256sum <"$here/tests/gentree.py" | cut -c1-16) seed=$SEED n=$n v1"
	if [ -s "$img" ] && [ "$(cat "$img.stamp" 2>/dev/null)" = "$stamp" ]; then
		return
	fi
	rm -f "$img" "$img.stamp"
	t0=$SECONDS
	mke2fs -q -F -t ext4 -N $((n + n / 10)) "$img" $(((n * 6 + 512 * 1024) / 1024))M
	mount -o loop "$img" "$BENCH_DIR/mnt"
	python3 "$here/tests/gentree.py" gen "$BENCH_DIR/mnt" --seed "$SEED" \
		--spread $((n > 21000 ? n - 20600 : 400)) 2>"$BENCH_DIR/gen.log"
	umount "$BENCH_DIR/mnt"
	echo "$stamp" >"$img.stamp"
	echo "made $img in $((SECONDS - t0)) s ($(cat "$BENCH_DIR/gen.log"))"
}

# timed OUT TOOL IMG: one run of TOOL -fn IMG; "secs kib rc" appended to
# OUT (wall seconds to the microsecond; /usr/bin/time's %e has only two
# decimals)
timed() {
	local rc t0=${EPOCHREALTIME/,/.} t1
	/usr/bin/time -o "$BENCH_DIR/time" -f '%M' "$2" -fn "$3" >"$BENCH_DIR/out" 2>"$BENCH_DIR/err" </dev/null &&
		rc=0 || rc=$?
	t1=${EPOCHREALTIME/,/.}
	echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }') $(tail -1 "$BENCH_DIR/time") $rc" >>"$1"
}

median() {	# median COLUMN FILE
	cut -d' ' -f"$1" "$2" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

for n in $SIZES; do
	make_image "$n"
	img=$BENCH_DIR/fs-$n.img
	used=$(dumpe2fs -h "$img" 2>/dev/null |
		awk -F: '/^Inode count/ { c = $2 } /^Free inodes/ { f = $2 } END { print c - f }')
	echo "== $n inodes asked, $used in use; $(du -h --apparent-size "$img" | cut -f1) image"
	rm -f "$BENCH_DIR/e4" "$BENCH_DIR/ref"
	timed /dev/null "$REF_E2FSCK" "$img"	# warm-up, each tool once
	timed /dev/null "$E4FSCK" "$img"
	passes=$(grep -o '^Pass [0-9]' "$BENCH_DIR/out" | cut -c6 | tr -d '\n')
	note=$(tail -1 "$BENCH_DIR/err")
	for ((i = 0; i < RUNS; i++)); do
		if ((i % 2 == 0)); then
			timed "$BENCH_DIR/ref" "$REF_E2FSCK" "$img"
			timed "$BENCH_DIR/e4" "$E4FSCK" "$img"
		else
			timed "$BENCH_DIR/e4" "$E4FSCK" "$img"
			timed "$BENCH_DIR/ref" "$REF_E2FSCK" "$img"
		fi
	done
	rs=$(median 1 "$BENCH_DIR/ref") rk=$(median 2 "$BENCH_DIR/ref")
	es=$(median 1 "$BENCH_DIR/e4") ek=$(median 2 "$BENCH_DIR/e4")
	printf '%-8s %9s %12s %s\n' tool seconds "peak KiB" "exit statuses"
	printf '%-8s %9s %12s %s\n' e2fsck "$rs" "$rk" "$(cut -d' ' -f3 "$BENCH_DIR/ref" | sort -u | tr '\n' ' ')"
	printf '%-8s %9s %12s %s\n' e4fsck "$es" "$ek" "$(cut -d' ' -f3 "$BENCH_DIR/e4" | sort -u | tr '\n' ' ')"
	awk -v es="$es" -v rs="$rs" -v ek="$ek" -v rk="$rk" 'BEGIN {
		printf "ratio e4fsck / e2fsck: time %.3f, peak memory %.3f\n",
			(rs > 0 ? es / rs : 0), (rk > 0 ? ek / rk : 0) }'
	if [ "$passes" = 12345 ]; then
		echo "e4fsck ran passes 1-5"
	else
		echo "NOTE: e4fsck ran passes: ${passes:-none} (a partial check: these figures measure only what ran)"
		echo "e4fsck's last line: $note"
	fi
done
