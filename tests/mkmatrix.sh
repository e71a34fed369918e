#!/bin/bash
# mkmatrix.sh OUTDIR: build e4kit's test image matrix.
#
# Called by matrix_ensure (tests/lib.sh) under a lock; OUTDIR is replaced
# only when every image could be made.  Each image is formatted by the
# reference mke2fs with a fixed UUID, hash seed, label and creation time,
# then filled with the tree of tests/gentree.py (fixed seed):
#   - block sizes up to 4 KiB: through a kernel loop mount (ext4 driver);
#   - 64 KiB blocks: mke2fs -d SRC, then a real 64 KiB-page kernel
#     (shared tools/kernel64k) creates, appends to and removes files.
#     mke2fs -d costs ~2 ms per entry with 64 KiB blocks and metadata_csum
#     (each link rewrites and re-checksums a 64 KiB block), so SRC has a
#     5,000-entry large directory, turned into an htree by `e2fsck -fyD`;
#     the guest then adds entries to it through the kernel's htree code.
#     When kernel64k cannot be set up (no network for apt-get download),
#     that image is listed in OUTDIR/skipped.txt instead.
# Every image must come out clean: `e2fsck -fn` exits 0 and prints nothing
# but its version, pass and summary lines.
#
# Output: OUTDIR/NAME.img, OUTDIR/NAME.mkfs (the mke2fs arguments),
# OUTDIR/images.txt (names, one a line), OUTDIR/skipped.txt ("name reason"),
# OUTDIR/stamp (hash of this script and gentree.py, written last).
#
# Environment: REF_MKE2FS, REF_E2FSCK, PYTHON, E4_K64_DIR, E4KIT_SHARED,
# E4_MATRIX_JOBS (parallel jobs, default 2), E4_MATRIX_ONLY (space-separated
# names: build only those; for debugging, writes no stamp).

set -euo pipefail
export LC_ALL=C TZ=UTC
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SELF=$HERE/mkmatrix.sh
GENTREE=$HERE/gentree.py
REF_MKE2FS=${REF_MKE2FS:-mke2fs}
REF_E2FSCK=${REF_E2FSCK:-e2fsck}
REF_TUNE2FS=${REF_TUNE2FS:-tune2fs}
PYTHON=${PYTHON:-python3}
E4KIT_SHARED=${E4KIT_SHARED:-$HERE/../../shared}
K64_TOOLS=$E4KIT_SHARED/tools/kernel64k
SEED=20240611
SIZE=512M
# mkfs time, superblock and root-inode timestamps made by mke2fs
export E2FSPROGS_FAKE_TIME=1700000000

# name | mke2fs arguments (besides -U, -E hash_seed, -L, -q, -F) [| tune2fs
# arguments applied after mke2fs]
# Sized 512 MiB so the default geometry (4 KiB blocks, 32768 inodes) and
# the 1 KiB-block images (32768 inodes too) hold the 20,000-entry directory;
# 64 KiB blocks and 64 KiB clusters would give only 8192 inodes: -N.
MATRIX='
ext4-b65536    | -t ext4 -b 65536 -N 32768
ext2           | -t ext2
ext3           | -t ext3
ext3-b1024     | -t ext3 -b 1024
ext4           | -t ext4
ext4-nojournal | -t ext4 -O ^has_journal
ext4-b1024     | -t ext4 -b 1024
ext4-b2048     | -t ext4 -b 2048
ext4-b4096     | -t ext4 -b 4096 -E stride=4,stripe_width=16 | -E mount_opts=nodelalloc -e remount-ro
ext4-legacy    | -t ext4 -O ^64bit,^metadata_csum,uninit_bg
ext4-csumseed  | -t ext4 -O metadata_csum_seed
ext4-metabg    | -t ext4 -O meta_bg,^resize_inode
ext4-inline    | -t ext4 -O inline_data
ext4-bigalloc  | -t ext4 -O bigalloc -C 65536 -N 32768
ext4-sparse2   | -t ext4 -O sparse_super2
ext4-i128      | -t ext4 -I 128
ext4-i1024     | -t ext4 -I 1024
'

log() { echo "mkmatrix: $*" >&2; }
die() { echo "mkmatrix: ERROR: $*" >&2; exit 1; }

now_ms() { local t=${EPOCHREALTIME/[.,]/}; echo $((t / 1000)); }

# a fixed UUID derived from a string
uuid_of() {
	local h
	h=$(printf '%s' "$1" | sha256sum | cut -c1-32)
	echo "${h:0:8}-${h:8:4}-4${h:13:3}-a${h:17:3}-${h:20:12}"
}

# field N (2: mke2fs, 3: tune2fs) of image NAME's row
field_of() {
	echo "$MATRIX" | awk -F'|' -v n="$1" -v f="$2" '{ gsub(/^ +| +$/, "", $1) }
		$1 == n { v = $f; sub(/^ +/, "", v); sub(/ +$/, "", v); print v }'
}
args_of() { field_of "$1" 2; }

names() {
	echo "$MATRIX" | awk -F'|' 'NF >= 2 { gsub(/ /, "", $1); print $1 }'
}

# ---- per-image worker state: mounts to undo ---------------------------------
MOUNTS=()
cleanup_mounts() {
	local i d
	for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
		d=${MOUNTS[i]}
		mountpoint -q "$d" || continue
		umount "$d" 2>/dev/null || { sleep 1; umount "$d" 2>/dev/null; } || umount -l "$d"
	done
}

# clean IMG: e2fsck -fn exits 0 and says nothing unusual
check_clean() {
	local img=$1 out rc=0
	out=$("$REF_E2FSCK" -fn "$img" 2>&1) || rc=$?
	if [ $rc -ne 0 ] || echo "$out" | grep -Ev '^(e2fsck [0-9]|Pass [1-5]: |.*: [0-9]+/[0-9]+ files \()' | grep . >/dev/null; then
		echo "$out" >&2
		die "$(basename "$img"): e2fsck -fn is not clean (exit $rc)"
	fi
}

mkfs() {
	local name=$1 img=$2 extra=("${@:3}")
	# shellcheck disable=SC2046
	"$REF_MKE2FS" -q -F -U "$(uuid_of "$name")" -E "hash_seed=$(uuid_of "seed-$name")" \
		-L "$name" $(args_of "$name") "${extra[@]+"${extra[@]}"}" "$img" $SIZE
	local tune
	tune=$(field_of "$name" 3)
	if [ -n "$tune" ]; then
		# shellcheck disable=SC2086
		"$REF_TUNE2FS" $tune "$img" >/dev/null
	fi
}

# The 64 KiB-page kernel's work on the 64 KiB image (busybox ash, one
# command a line, run in /mnt).
K64_SCRIPT='
mkdir -p k64new/sub k64new/emptydir
echo hello from a 64k-page kernel > k64new/hello
dd if=large/big5m of=k64new/copy bs=65536 count=40 2>/dev/null
i=0; while [ $i -lt 300 ]; do echo "file $i" > k64new/sub/f$i; i=$((i+1)); done
for f in small/s00*; do cat tiny/t05 >> "$f"; done
cat large/pattern3m >> large/big5m
rm -f small/s01*
rm -f bigdir/0000*
i=0; while [ $i -lt 200 ]; do : > bigdir/k64_added_entry_$i; i=$((i+1)); done
rm -rf deep/level01*/level02*/level03*/level04*
dd if=tiny/t10 of=k64new/sparse bs=1 seek=5000000 2>/dev/null
ln k64new/hello k64new/hello_link
ln -s hello k64new/hello_sym
ln -s /very/long/target/path/that/does/not/fit/into/the/inode/itself/at/all k64new/slow_sym
chown 4321:8765 k64new/hello
chmod 0640 k64new/hello
mv small/s002* k64new/ 2>/dev/null; true
sync
'

build_one() {
	local name=$1 out=$2 img t0 mnt src args
	img=$out/$name.img
	t0=$(now_ms)
	trap cleanup_mounts EXIT
	trap "exit 143" TERM
	trap "exit 130" INT
	trap "exit 129" HUP
	args=$(args_of "$name")
	[ -n "$args" ] || die "unknown image $name"
	rm -f "$img"
	{ echo "mke2fs $args"; echo "tune2fs $(field_of "$name" 3)"; } >"$out/$name.mkfs"
	case " $args " in
	*" -b 65536 "*)
		if [ ! -s "$E4_K64_DIR/vmlinux" ] || [ ! -s "$E4_K64_DIR/initramfs.cpio.gz" ]; then
			log "$name: setting up kernel64k in $E4_K64_DIR"
			if ! timeout 600 bash "$K64_TOOLS/setup.sh" "$E4_K64_DIR" >"$out/$name.k64setup.log" 2>&1; then
				echo "$name kernel64k setup failed (network?): see $out/$name.k64setup.log" >>"$out/skipped.txt"
				rm -f "$img"
				log "$name: SKIPPED (kernel64k setup failed)"
				return 0
			fi
		fi
		src=$out/$name.src
		mkdir -p "$src"
		mount -t tmpfs -o size=256m,mode=0755 e4matrix "$src"
		MOUNTS+=("$src")
		mkdir "$src/t"
		"$PYTHON" "$GENTREE" gen "$src/t" --seed $SEED --bigdir 5000
		mkfs "$name" "$img" -d "$src/t"
		cleanup_mounts
		MOUNTS=()
		rmdir "$src"
		local rc=0
		"$REF_E2FSCK" -fyD "$img" >"$out/$name.e2fsck-D.log" 2>&1 || rc=$?
		[ $rc -le 1 ] || die "$name: e2fsck -fyD exit $rc"
		check_clean "$img"
		printf '%s\n' "$K64_SCRIPT" >"$out/$name.k64script"
		if ! K64_TIMEOUT=240 bash "$K64_TOOLS/run.sh" "$E4_K64_DIR" "$img" "$out/$name.k64script" \
			>"$out/$name.k64run.log" 2>&1; then
			tail -30 "$out/$name.k64run.log" >&2
			die "$name: kernel64k run failed"
		fi
		;;
	*)
		mkfs "$name" "$img"
		mnt=$out/$name.mnt
		mkdir -p "$mnt"
		mount -t ext4 -o loop,noatime,noinit_itable "$img" "$mnt"
		MOUNTS+=("$mnt")
		"$PYTHON" "$GENTREE" gen "$mnt" --seed $SEED
		cleanup_mounts
		MOUNTS=()
		rmdir "$mnt"
		;;
	esac
	check_clean "$img"
	t0=$((($(now_ms) - t0) / 100))
	log "$name: done in $((t0 / 10)).$((t0 % 10)) s"
}

# ---- main ------------------------------------------------------------------
if [ "${1:-}" = --one ]; then
	build_one "$2" "$3"
	exit 0
fi

[ $# -eq 1 ] || die "usage: mkmatrix.sh OUTDIR"
OUT=$1
[ "$(id -u)" = 0 ] || die "needs root (loop mounts)"
command -v "$REF_MKE2FS" >/dev/null || die "no reference mke2fs"
command -v "$REF_E2FSCK" >/dev/null || die "no reference e2fsck"
E4_K64_DIR=${E4_K64_DIR:-$(dirname "$OUT")/k64}
export E4_K64_DIR REF_MKE2FS REF_E2FSCK REF_TUNE2FS PYTHON E4KIT_SHARED

T0=$(now_ms)
NEW=$OUT.new
if [ -d "$NEW" ]; then
	# leftovers of an interrupted build: never delete through a mount
	grep -q " $NEW/" /proc/mounts && die "$NEW has mounts left; unmount them first"
	rm -rf "$NEW"
fi
mkdir -p "$NEW"
: >"$NEW/skipped.txt"
want=${E4_MATRIX_ONLY:-$(names | tr '\n' ' ')}
log "building: $want"
log "$("$REF_MKE2FS" -V 2>&1 | head -1)"
# one worker per image, ${E4_MATRIX_JOBS:-2} at a time; the 64 KiB image
# (booting qemu) is listed first so it overlaps the others
if ! printf '%s\n' $want | xargs -P "${E4_MATRIX_JOBS:-2}" -I{} bash "$SELF" --one {} "$NEW"; then
	die "some image failed to build"
fi
for n in $want; do
	[ -f "$NEW/$n.img" ] && echo "$n"
done >"$NEW/images.txt"
if [ -z "${E4_MATRIX_ONLY:-}" ]; then
	cat "$SELF" "$GENTREE" | sha256sum | cut -d' ' -f1 >"$NEW/stamp"
fi
if [ -d "$OUT" ]; then
	grep -q " $OUT/" /proc/mounts && die "$OUT has mounts; not replacing it"
	rm -rf "$OUT"
fi
mv "$NEW" "$OUT"
n=$(wc -l <"$OUT/images.txt")
s=$(wc -l <"$OUT/skipped.txt")
echo "mkmatrix: $n images built, $s skipped, in $(( ($(now_ms) - T0) / 1000 )) s"
