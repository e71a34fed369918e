#!/bin/bash
# mkfs_populate_64k: an e4mkfs -b 65536 -d image is read back by the 64
# KiB-page kernel (../shared/tools/kernel64k; issue 17, acceptance 3: "a
# 64 KiB-block image read back by the 64 KiB-page kernel").
#
# A small rich tree (fixed seed): random files of 300 KB, 65,536 and
# 65,537 bytes, a sparse file (data, a 1 MB hole, data, a hole at its
# end), an empty file with an attribute, hard links across directories,
# short and slow symlinks, a fifo, a 3,000-entry directory (several 64 KiB
# leaves: an htree), nested directories.  `e4mkfs -F -t ext4 -b 65536 -d` (-F: 64 KiB blocks on this 4 KiB-page host)
# sizes the image from it; the reference e2fsck -fn is clean; the guest
# kernel mounts it read-only and must list the same: every non-directory's
# name, size, link count and mode (stat), every regular file's md5, every
# symlink's target (digests computed the same way on the source here),
# the big directory's entry count and lookups by name, the sparse file's
# hole (fewer 512-byte sectors than its size), 64 KiB blocks (statfs), and
# no EXT4-fs error or warning logged.
# Catches: a file block or a directory leaf placed at a 4 KiB-block offset,
# a 64 KiB directory block whose rec_len is written truncated to 16 bits,
# the data of a hard link group written twice.  Checked: with a byte
# appended to the source's sparse file after the image was made, the
# guest's stat listing differs and the run fails on that line.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_E2FSCK" "$PYTHON"
need_cmd md5sum
E4MKFS=${E4MKFS:-$E4_BUILDDIR/mkfs/e4mkfs}
[ -x "$E4MKFS" ] || fail "no e4mkfs at $E4MKFS"
k64_ensure
tmp_on_tmpfs 512m

src=$TFS/src
"$PYTHON" - "$src" <<'PY' || fail "cannot make the source tree"
import os, random, sys
d = sys.argv[1]
r = random.Random(6464)
os.makedirs(d + "/a/b/c")
os.mkdir(d + "/big")
open(d + "/a/rand", "wb").write(r.randbytes(300 * 1000))
open(d + "/a/exact", "wb").write(r.randbytes(65536))
open(d + "/a/b/plus1", "wb").write(r.randbytes(65537))
with open(d + "/a/sparse", "wb") as f:
    f.write(r.randbytes(70000))
    f.seek(1 << 20, 1)
    f.write(r.randbytes(5000))
    f.truncate(3 << 20)
open(d + "/empty", "wb").close()
os.setxattr(d + "/empty", "user.k64", b"v" * 40)
os.link(d + "/a/rand", d + "/a/b/c/rand_link")
os.link(d + "/a/rand", d + "/rand_link2")
os.symlink("a/rand", d + "/short")
os.symlink("/" + "x" * 300, d + "/a/long")
os.mkfifo(d + "/a/fifo")
for i in range(3000):
    with open(d + "/big/entry_with_a_longish_name_%05d" % i, "wb") as f:
        f.write(b"%d\n" % i)
os.chmod(d + "/a/exact", 0o4750)
PY

img=$TFS/k.img
"$E4MKFS" -q -F -t ext4 -b 65536 -d "$src" "$img" >"$T/mkfs.out" 2>&1 ||
	fail "e4mkfs -b 65536 -d: $(cat "$T/mkfs.out")"
ref_clean "$img" || fail "the 64 KiB image is not clean: $REF_CLEAN_OUT"

# the listings, computed by the same commands here (GNU) and in the guest
# (busybox): names are plain ASCII, so sort orders agree
files='find . -path ./lost+found -prune -o -type f -print | sort | xargs md5sum | md5sum | cut -c1-32'
stats='find . -path ./lost+found -prune -o ! -type d -print | sort | xargs stat -c "%n %s %h %f" | md5sum | cut -c1-32'
links='for l in $(find . -type l | sort); do echo "$l $(readlink $l)"; done | md5sum | cut -c1-32'
exp_files=$(cd "$src" && eval "$files")
exp_stats=$(cd "$src" && eval "$stats")
exp_links=$(cd "$src" && eval "$links")
{
	echo "[ \"\$($files)\" = $exp_files ]"
	echo "[ \"\$($stats)\" = $exp_stats ]"
	echo "[ \"\$($links)\" = $exp_links ]"
	echo "[ \"\$(ls big | wc -l)\" = 3000 ]"
	echo "[ -f big/entry_with_a_longish_name_00000 ] && [ -f big/entry_with_a_longish_name_01234 ] && [ -f big/entry_with_a_longish_name_02999 ]"
	echo "[ ! -e big/entry_with_a_longish_name_03000 ]"
	echo "[ \"\$(cat big/entry_with_a_longish_name_02345)\" = 2345 ]"
	echo "[ \"\$(stat -c %b a/sparse)\" -lt 6144 ]"
	echo "[ -p a/fifo ]"
	echo "[ \"\$(stat -c %h a/rand)\" = 3 ]"
	echo "stat -f -c %S /mnt"
} >"$T/k64.sh"
k64_read_back "$img" "$T/k64.sh"
info "the 64 KiB-page kernel read the e4mkfs -d tree back ($(elapsed) s)"
