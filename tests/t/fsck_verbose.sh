#!/bin/bash
# fsck_verbose: -v after a full check prints e2fsck's -v summary (issue
# 15): the same fields in the same order with the same values as the
# reference e2fsck -fnv -- inodes used, non-contiguous files and
# directories, inodes with ind/dind/tind blocks, the extent depth
# histogram, blocks used, bad blocks, large files, regular files,
# directories, character and block devices, fifos, symbolic links (fast),
# sockets -- except links and the file total, which need the directory
# entries passes 2-4 count: those two say "not counted", never a number.
# On every image of the image matrix ($E4_MATRIX) and on a kernel-made
# ext4 holding one of each file type (fast and slow symlinks, a FIFO,
# devices, a socket, a 3 GiB sparse file, a hard link, two files written
# interleaved).
# Bugs it catches: -v adding nothing (the old code); a block map's
# indirect blocks left out of "non-contiguous" (ext2/ext3 images), a file
# larger than a group counted as non-contiguous (ext3-b1024's journal), the
# journal counted in ind/dind (ext3), a made-up number for links.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_E2FSCK" "$REF_MKE2FS" "$PYTHON"
need_root_loop
matrix_ensure
matrix_check_skipped
export E2FSCK_CONFIG=/dev/null

bad=()
# compare NAME IMG: e4fsck -fnv's counts against the reference's
compare() {
	local name=$1 img=$2 d
	"$REF_E2FSCK" -fnv "$img" 2>/dev/null </dev/null | sed -n '/inodes\? used (/,$p' |
		grep -Ev '^ +[0-9]+ (links?|files?)$' >"$T/$name.ref"
	runcap "$T/$name" 60 "$E4FSCK" -fnv "$img"
	san_report "$T/$name.err" && fail "$name: sanitizer report: $(head -5 "$T/$name.err")"
	sed -n '/inodes\? used (/,$p' "$T/$name.out" >"$T/$name.got"
	[ -s "$T/$name.ref" ] || { bad+=("$name: no counts from the reference"); return; }
	grepq -E '^ +- links \(not counted' "$T/$name.got" &&
		grepq -E '^ +- files \(not counted' "$T/$name.got" ||
		bad+=("$name: links and files not said as not counted")
	d=$(diff "$T/$name.ref" <(grep -v ' (not counted' "$T/$name.got") | grep '^[<>]' | head -4)
	[ -z "$d" ] || bad+=("$name: $(tr '\n' ' ' <<<"$d")")
}

for n in "${MATRIX_IMAGES[@]}"; do
	compare "matrix_$n" "$E4_MATRIX/$n.img"
done

img=$T/types.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$img" 16M >/dev/null 2>&1 || fail "mke2fs failed"
mount_loop "$img" "$T/mnt" || fail "mount failed"
"$PYTHON" - "$T/mnt" <<'PY' || fail "populating failed"
import os, socket, stat, sys
d = sys.argv[1]
os.symlink("short", d + "/fast")
os.symlink("x" * 200, d + "/slow")
os.mkfifo(d + "/fifo")
os.mknod(d + "/chr", stat.S_IFCHR | 0o600, os.makedev(1, 3))
os.mknod(d + "/blk", stat.S_IFBLK | 0o600, os.makedev(7, 0))
s = socket.socket(socket.AF_UNIX)
s.bind(d + "/sock")
s.close()
with open(d + "/large", "wb") as f:
    f.truncate(3 << 30)
    f.seek(5 << 20)
    f.write(b"x")
os.mkdir(d + "/sub")
open(d + "/sub/a", "w").write("a")
os.link(d + "/sub/a", d + "/hl")
fa, fb = open(d + "/fa", "wb"), open(d + "/fb", "wb")
for i in range(20):
    for f in (fa, fb):
        f.write(b"z" * 4096)
        f.flush()
        os.fsync(f.fileno())
PY
umount_retry "$T/mnt"
compare types "$img"
grepq -E '^ +1 large file$' "$T/types.got" || bad+=("types: the 3 GiB file not counted")

[ ${#bad[@]} = 0 ] || fail "$(printf '%s; ' "${bad[@]}")"
info "-v counts equal the reference's on ${#MATRIX_IMAGES[@]} matrix images and a kernel-made image of every file type; links and files said as not counted ($(elapsed)s)"
exit 0
