#!/bin/bash
# bench/populate.sh: e4mkfs -d against Debian's mke2fs 1.47.0 -d and
# e2fsprogs 1.47.4's mke2fs -d (../shared/tools/e2fsprogs-1.47.4) on the
# same tree (issue 17, acceptance 5 and 6).  Not a test.
#
# The tree: tests/gentree.py gen --rich --spread SPREAD (default 30000:
# about 50,000 entries with the 20,000-entry bigdir), seed 20240611, made
# on tmpfs under BENCH_DIR (default /dev/shm/e4pop.PID); the images go
# there too.  e4mkfs sizes its image from the content; the mke2fs runs get
# the same size and the same inode count (-N), ext4 with the defaults.
# Each tool runs RUNS times (default 3), the tools alternating; prints
# the median seconds, peak memory (KiB, /usr/bin/time %M), the ratios
# e4mkfs / 1.47.0 and e4mkfs / 1.47.4 (targets: at most 0.05 and 0.5;
# memory at most 1.0 of 1.47.4's), the same for a tar archive as input
# (against 1.47.4, which reads archives; target 0.5; the archive leaves
# rich/ out, see below), and the read-back
# time of each image loop-mounted after dropping caches (find, then
# reading every file; target e4mkfs / 1.47.4 at most 1.0).  Needs root
# for the mounts (READ=0 skips that part).
#
# Environment: E4MKFS (default ./mkfs/e4mkfs: run from the build
# directory), MKE2FS_OLD (/sbin/mke2fs), MKE2FS_NEW, RUNS, SPREAD,
# BENCH_DIR, READ, OLD=0 (skip 1.47.0, which takes minutes per run).
set -eu
export LC_ALL=C

here=$(cd "$(dirname "$0")/.." && pwd)
E4MKFS=${E4MKFS:-$PWD/mkfs/e4mkfs}
MKE2FS_OLD=${MKE2FS_OLD:-/sbin/mke2fs}
MKE2FS_NEW=${MKE2FS_NEW:-$here/../shared/tools/e2fsprogs-1.47.4/mke2fs}
RUNS=${RUNS:-3}
SPREAD=${SPREAD:-30000}
BENCH_DIR=${BENCH_DIR:-/dev/shm/e4pop.$$}
READ=${READ:-1}
OLD=${OLD:-1}

[ -x "$E4MKFS" ] || { echo "populate.sh: e4mkfs not found: $E4MKFS (set E4MKFS)" >&2; exit 1; }
if [ -x "$(dirname "$E4MKFS")/.libs/e4mkfs" ]; then
	libdir=$(cd "$(dirname "$E4MKFS")/../lib/e4/.libs" 2>/dev/null && pwd) || libdir=
	E4MKFS=$(dirname "$E4MKFS")/.libs/e4mkfs
	export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
mkdir -p "$BENCH_DIR"
trap 'umount "$BENCH_DIR/mnt" 2>/dev/null || true; rm -rf "$BENCH_DIR"' EXIT
cd "$BENCH_DIR"

mkdir src
python3 "$here/tests/gentree.py" gen src --rich --spread "$SPREAD" 2>gen.log
echo "tree: $(cat gen.log); $(find src | wc -l) entries, $(du -sh src | cut -f1)"
# rich/ is left out of the archive: mke2fs 1.47.4 stops at its non-UTF-8
# names ("Pathname can't be converted from UTF-8 to current locale")
tar --xattrs --acls --selinux --sparse --format=posix --exclude=./rich -cf tree.tar -C src . \
	2>/dev/null

# one timed run: secs and peak KiB into $T_SECS $T_KB
timed() {
	local img=$1
	shift
	rm -f "$img"
	sync
	/usr/bin/time -f "%e %M" -o time.out "$@" >run.out 2>&1 || {
		echo "failed: $* : $(tail -2 run.out)" >&2
		exit 1
	}
	read -r T_SECS T_KB <time.out
}
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# e4mkfs first, once, for the size and inode count
timed e4.img "$E4MKFS" -q -t ext4 -d src e4.img
size_k=$(($(stat -c %s e4.img) / 1024))
inodes=$(dumpe2fs -h e4.img 2>/dev/null | awk -F: '/^Inode count/ { print $2 + 0 }')
echo "image: ${size_k} KiB, $inodes inodes (e4mkfs's fit, used for every tool)"

declare -A secs kb
run() {	# NAME IMG cmd...
	local name=$1 img=$2
	shift 2
	timed "$img" "$@"
	secs[$name]+="$T_SECS "
	kb[$name]+="$T_KB "
}
for ((i = 0; i < RUNS; i++)); do
	tools=(e4 new old e4tar newtar)
	[ $((i % 2)) = 0 ] || tools=(newtar e4tar old new e4)
	for t in "${tools[@]}"; do
		case $t in
		e4) run e4 e4.img "$E4MKFS" -q -t ext4 -d src e4.img ;;
		e4tar) run e4tar e4t.img "$E4MKFS" -q -t ext4 -N "$inodes" -d tree.tar e4t.img "${size_k}k" ;;
		new) run new new.img "$MKE2FS_NEW" -q -F -t ext4 -N "$inodes" -d src new.img "${size_k}k" ;;
		newtar) run newtar newt.img "$MKE2FS_NEW" -q -F -t ext4 -N "$inodes" -d tree.tar newt.img "${size_k}k" ;;
		old) [ "$OLD" = 1 ] && run old old.img "$MKE2FS_OLD" -q -F -t ext4 -N "$inodes" -d src old.img "${size_k}k" ;;
		esac
	done
done
med() { tr ' ' '\n' <<<"$1" | grep . | median; }
printf '%-26s %10s %12s\n' tool "median s" "peak KiB"
for t in e4 old new e4tar newtar; do
	[ -n "${secs[$t]:-}" ] || continue
	printf '%-26s %10s %12s\n' "$t" "$(med "${secs[$t]}")" "$(med "${kb[$t]}")"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }
[ "$OLD" = 1 ] && echo "time e4mkfs / mke2fs 1.47.0:  $(ratio "$(med "${secs[e4]}")" "$(med "${secs[old]}")") (target <= 0.05)"
echo "time e4mkfs / mke2fs 1.47.4:  $(ratio "$(med "${secs[e4]}")" "$(med "${secs[new]}")") (target <= 0.5)"
echo "peak memory e4mkfs / 1.47.4:  $(ratio "$(med "${kb[e4]}")" "$(med "${kb[new]}")") (target <= 1.0)"
echo "tar input e4mkfs / 1.47.4:    $(ratio "$(med "${secs[e4tar]}")" "$(med "${secs[newtar]}")") (target <= 0.5)"

[ "$READ" = 1 ] || exit 0
readback() {	# IMG: seconds for find + reading every file, cold cache
	mkdir -p mnt
	mount -o ro,loop "$1" mnt
	sync
	echo 3 >/proc/sys/vm/drop_caches
	local t0 t1
	t0=$(date +%s.%N)
	find mnt >/dev/null
	find mnt -type f -print0 | xargs -0 cat >/dev/null
	t1=$(date +%s.%N)
	umount mnt
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}
# the images on disk, not tmpfs, for the read-back to mean anything
disk=${READ_DIR:-/var/tmp/e4pop.$$}
mkdir -p "$disk"
cp --sparse=always e4.img new.img "$disk/"
r_e4= r_new=
for ((i = 0; i < RUNS; i++)); do
	r_e4+="$(readback "$disk/e4.img") "
	r_new+="$(readback "$disk/new.img") "
done
rm -rf "$disk"
echo "read-back s: e4mkfs $(med "$r_e4"), 1.47.4 $(med "$r_new"); ratio $(ratio "$(med "$r_e4")" "$(med "$r_new")") (target <= 1.0)"
