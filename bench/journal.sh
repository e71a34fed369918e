#!/bin/bash
# bench/journal.sh: what journal_async_commit and the journal itself cost or
# save here (e4tune issue, item 7).  A benchmark, not a test: no target.
#
# fs_mark -d MNT -s 10240 -n FILES (Debian package fsmark; each file is
# written and fsync'd) on images made by e4mkfs, loop-mounted from a tmpfs:
#   writeback        ext4, e4tune -o journal_data_writeback
#   writeback+async  ext4, e4tune -o journal_data_writeback,journal_async_commit
#   ordered          ext4 as e4mkfs makes it (data=ordered)
#   no-journal       ext4, e4tune -O ^has_journal
# Each configuration runs RUNS times on a fresh image; the median files/s
# is printed.  Usage: bench/journal.sh [BUILDDIR] (root; RUNS=3 FILES=1000
# SIZE=512M in the environment).
set -eu
BUILD=${1:-${E4_BUILDDIR:-$PWD}}
E4MKFS=$BUILD/mkfs/e4mkfs
E4TUNE=$BUILD/tune/e4tune
RUNS=${RUNS:-3}
FILES=${FILES:-1000}
SIZE=${SIZE:-512M}
command -v fs_mark >/dev/null || { echo "fs_mark not installed (apt-get install fsmark)" >&2; exit 1; }
[ -x "$E4MKFS" ] && [ -x "$E4TUNE" ] || { echo "no e4mkfs/e4tune under $BUILD" >&2; exit 1; }

W=$(mktemp -d /tmp/e4bench.XXXXXX)
cleanup() {
	mountpoint -q "$W/mnt" && umount "$W/mnt"
	mountpoint -q "$W/tmp" && umount "$W/tmp"
	rm -rf "$W"
}
trap cleanup EXIT
mkdir -p "$W/tmp" "$W/mnt"
mount -t tmpfs -o size=1200m e4bench "$W/tmp"

run_one() {	# CONFIG: prints files/s of one run
	local img=$W/tmp/fs.img
	rm -f "$img"
	truncate -s "$SIZE" "$img"
	"$E4MKFS" -q -F -t ext4 "$img" >/dev/null
	case $1 in
	writeback) "$E4TUNE" -o journal_data_writeback "$img" >/dev/null ;;
	writeback+async) "$E4TUNE" -o journal_data_writeback,journal_async_commit "$img" >/dev/null ;;
	ordered) ;;
	no-journal) "$E4TUNE" -O ^has_journal "$img" >/dev/null ;;
	esac
	mount -o loop "$img" "$W/mnt"
	fs_mark -d "$W/mnt/d" -s 10240 -n "$FILES" -S 1 -L 1 >"$W/out" 2>&1
	umount "$W/mnt"
	awk '/^ *[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+/ {print $4}' "$W/out" | tail -1
}

printf '%-18s %s\n' configuration "files/s (median of $RUNS; runs)"
for cfg in writeback writeback+async ordered no-journal; do
	vals=()
	for ((i = 0; i < RUNS; i++)); do
		vals+=("$(run_one $cfg)")
	done
	med=$(printf '%s\n' "${vals[@]}" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
	printf '%-18s %s (%s)\n' "$cfg" "$med" "${vals[*]}"
done
