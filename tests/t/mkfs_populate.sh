#!/bin/bash
# mkfs_populate: e4mkfs -d builds a populated image from a directory, a
# GNU tar archive and a zstd stream on standard input (issue 17), sized
# from the content, and reproducibly with SOURCE_DATE_EPOCH.
#  - a tests/gentree.py --rich tree (every entry type, hard links across
#    directories, a 3,000-entry directory, sparse files, user/trusted/
#    security attributes, POSIX ACLs, odd-byte names, nanosecond times)
#    plus a 4095-byte symlink target and a 5 GiB sparse file with data at
#    2.5 and 4.5 GiB, through -d DIR, -d tree.tar (tar --xattrs --acls
#    --selinux --sparse) and -d - (zstd): the reference e2fsck -fn is
#    clean, the kernel mounts each image and the mounted tree equals the
#    source (tests/popcmp.py: content, type, mode, owner, ns mtime,
#    xattrs, link groups and counts, holes); the big directory is indexed;
#    The same tree with -O inline_data; a 6,000-entry directory whose
#    index needs two levels (1 KiB blocks);
#  - reproducibility: the same tree recreated in reverse order with its
#    atimes changed gives the same bytes; one byte more gives another UUID;
#  - bad input (missing source, unreadable file, corrupt archive, a size
#    too small for the tree, a 4095-byte symlink with 1 KiB blocks): one
#    message, exit 1, no filesystem left; a crash midway leaves none either.
# Catches: a hard link written as a second inode, a directory's entries
# inserted one by one without an index, the root's link count not
# counting lost+found, generations left random in a reproducible build,
# a failed copy that leaves a mountable half-filled image, an inline
# directory build that fails with ENOSPC instead of using a block.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$PYTHON"
need_cmd tar zstd setpriv
need_root_loop
E4MKFS=${E4MKFS:-$E4_BUILDDIR/mkfs/e4mkfs}
POPCMP=$E4_TESTDIR/popcmp.py

src=$T/src
mkdir "$src"
"$PYTHON" "$GENTREE" gen "$src" --bigdir 3000 --rich >"$T/gen.log" 2>&1 ||
	fail "gentree failed: $(tail -3 "$T/gen.log")"
info "$(cat "$T/gen.log")"
"$PYTHON" - "$src" <<'EOF' || fail "cannot add the corner cases"
import os, sys
d = os.path.join(sys.argv[1], "corner")
os.mkdir(d)
# a 5 GiB sparse file with data at 2.5 GiB and 4.5 GiB
fd = os.open(os.path.join(d, "five_g"), os.O_WRONLY | os.O_CREAT, 0o644)
os.pwrite(fd, b"A" * 5000, 5 << 29)
os.pwrite(fd, b"B" * 7000, 9 << 29)
os.ftruncate(fd, 5 << 30)
os.close(fd)
os.symlink("t" * 4095, os.path.join(d, "long_link"))
e = os.path.join(d, "empty_xattr")
open(e, "w").close()
os.setxattr(e, "user.a", b"1" * 100)
os.setxattr(e, "trusted.b", b"2" * 300)
for p in ("five_g", "long_link", "empty_xattr", ""):
    os.utime(os.path.join(d, p), ns=(5, 1234567891), follow_symlinks=False)
os.utime(sys.argv[1], ns=(5, 1700000000123456789))
EOF

# check IMG WHAT [popcmp options]: clean, mounts, equal to the source
check() {
	local img=$1 what=$2 mnt=$T/mnt.$2
	shift 2
	ref_clean "$img" || fail "$what: e2fsck -fn: $REF_CLEAN_OUT"
	mount_loop "$img" "$mnt" ro || fail "$what: the kernel refuses the image"
	"$PYTHON" "$POPCMP" "$src" "$mnt" "$@" >"$T/cmp" 2>&1 ||
		fail "$what: the image differs from the source: $(head -8 "$T/cmp")"
	umount_retry "$mnt"
}

# 1. a directory (ext4: extents, flex_bg, metadata_csum), sized from the
# content
"$E4MKFS" -q -t ext4 -d "$src" "$T/dir.img" >"$T/out" 2>&1 || fail "-d DIR: $(cat "$T/out")"
check "$T/dir.img" dir
"$REF_DEBUGFS" -R "htree_dump /bigdir" "$T/dir.img" >"$T/htree" 2>&1
grepq "Root node dump" "$T/htree" || fail "bigdir is not indexed: $(head -3 "$T/htree")"
grepq -E "^Entry #[0-9]+: Hash 0x[0-9a-f]+, block [0-9]+$" "$T/htree" ||
	fail "bigdir's index lists no leaves"

# inline_data: small files and directories inline; a directory whose
# inode body is full of ACLs gets a block instead (rich/defacl/sub)
"$E4MKFS" -q -t ext4 -O inline_data -d "$src" "$T/inl.img" >"$T/out" 2>&1 ||
	fail "-O inline_data: $(cat "$T/out")"
check "$T/inl.img" inline
"$REF_DEBUGFS" -R "stat /tiny/t01" "$T/inl.img" 2>&1 | grepq "Size of inline data" ||
	fail "tiny/t01 is not inline"
rm -f "$T/inl.img"

# a directory whose index needs two levels: 6,000 60-byte names in 1 KiB
# blocks (about 400 leaves, more than the root's 123 slots)
mkdir -p "$T/two/d"
"$PYTHON" - "$T/two/d" <<'EOF' || fail "cannot make the two-level directory"
import os, sys
for i in range(6000):
    open(os.path.join(sys.argv[1], "%05d_" % i + "n" * 54), "w").close()
EOF
"$E4MKFS" -q -t ext4 -b 1024 -d "$T/two" "$T/two.img" >"$T/out" 2>&1 ||
	fail "two-level directory: $(cat "$T/out")"
"$REF_DEBUGFS" -R "htree_dump /d" "$T/two.img" 2>&1 | grepq "Indirect levels: 1" ||
	fail "d's index has not two levels"
saved_src=$src
src=$T/two
check "$T/two.img" two
src=$saved_src
rm -rf "$T/two" "$T/two.img"

# 2. GNU tar (ext4), then zstd on standard input (ext2: block maps; no
# sockets in tar)
tar --xattrs --acls --selinux --sparse --format=posix -cf "$T/tree.tar" -C "$src" . \
	2>"$T/tar.err" || fail "tar failed: $(head -3 "$T/tar.err")"
"$E4MKFS" -q -t ext4 -d "$T/tree.tar" "$T/tar.img" >"$T/out" 2>&1 || fail "-d tar: $(cat "$T/out")"
check "$T/tar.img" tar --no-sockets
zstd -q -c "$T/tree.tar" >"$T/tree.tar.zst" || fail "zstd failed"
"$E4MKFS" -q -d - "$T/zst.img" <"$T/tree.tar.zst" >"$T/out" 2>&1 ||
	fail "-d - (zstd): $(cat "$T/out")"
check "$T/zst.img" zst --no-sockets
rm -f "$T/tar.img" "$T/zst.img" "$T/tree.tar.zst"

# 3. reproducible: a copy made in reverse order, atimes changed
"$PYTHON" "$POPCMP" --copy-reversed "$src" "$T/copy" || fail "cannot copy the tree"
export SOURCE_DATE_EPOCH=1700000000
"$E4MKFS" -q -t ext4 -d "$src" "$T/r1.img" >"$T/out" 2>&1 || fail "repro 1: $(cat "$T/out")"
"$E4MKFS" -q -t ext4 -d "$T/copy" "$T/r2.img" >"$T/out" 2>&1 || fail "repro 2: $(cat "$T/out")"
cmp "$T/r1.img" "$T/r2.img" >"$T/cmp" 2>&1 || fail "two builds differ: $(head -2 "$T/cmp")"
ref_clean "$T/r1.img" || fail "reproducible build: e2fsck -fn: $REF_CLEAN_OUT"
printf x >>"$T/copy/corner/empty_xattr"
"$E4MKFS" -q -t ext4 -d "$T/copy" "$T/r3.img" >"$T/out" 2>&1 || fail "repro 3: $(cat "$T/out")"
# s_uuid: superblock offset 0x68
u1=$(od -An -tx1 -j $((1024 + 104)) -N16 "$T/r1.img" | tr -d ' \n')
u3=$(od -An -tx1 -j $((1024 + 104)) -N16 "$T/r3.img" | tr -d ' \n')
[ "$u1" != "$u3" ] || fail "a one-byte change kept the UUID $u1"
unset SOURCE_DATE_EPOCH
rm -rf "$T/copy" "$T/r1.img" "$T/r2.img" "$T/r3.img"

# 4. bad input: one message naming the cause, exit 1, no filesystem
# expect_fail WHAT PATTERN IMG cmd...: IMG is left absent or invalid
expect_fail() {
	local what=$1 pat=$2 img=$3 rc
	shift 3
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc = 1 ] || fail "$what: exit $rc, not 1: $(cat "$T/err")"
	[ "$(grep -c . "$T/err")" = 1 ] || fail "$what: not one message: $(cat "$T/err")"
	grepq -E "$pat" "$T/err" || fail "$what: message lacks /$pat/: $(cat "$T/err")"
	if [ -e "$img" ]; then
		! "$REF_E2FSCK" -fn "$img" >/dev/null 2>&1 ||
			fail "$what: a valid filesystem was left in $img"
		! blkid -p "$img" >/dev/null 2>&1 || fail "$what: blkid still finds $(blkid -p "$img")"
	fi
}
expect_fail missing "$T/nothing: No such file" "$T/b1.img" "$E4MKFS" -q -d "$T/nothing" "$T/b1.img"
chmod o+x "$T"
mkdir -m 777 "$T/nobody" "$T/nobody/src"
echo secret >"$T/nobody/src/f"
chmod 000 "$T/nobody/src/f"
expect_fail unreadable "src/f: .*Permission denied" "$T/nobody/b2.img" \
	setpriv --reuid 65534 --regid 65534 --clear-groups "$E4MKFS" -q -d "$T/nobody/src" \
	"$T/nobody/b2.img"
head -c 300000 "$T/tree.tar" >"$T/cut.tar"
head -c 20000 /dev/urandom >>"$T/cut.tar"
expect_fail corrupt "cut.tar: .*member " "$T/b3.img" "$E4MKFS" -q -d "$T/cut.tar" "$T/b3.img"
# too small: a new file of 4 MiB (removed) and an existing one (-F; its
# superblocks must be gone)
expect_fail "too small (new)" "too small for the source" "$T/b4.img" \
	"$E4MKFS" -q -d "$src" "$T/b4.img" 4M
[ ! -e "$T/b4.img" ] || fail "too small (new): the image was left behind"
truncate -s 4M "$T/b5.img"
expect_fail "too small (existing)" "too small for the source" "$T/b5.img" \
	"$E4MKFS" -q -F -d "$src" "$T/b5.img"
[ -e "$T/b5.img" ] || fail "too small (existing): the target was removed"
# a 4095-byte symlink target fits 4 KiB blocks (checked above), not 1 KiB
mkdir "$T/longlink"
ln -s "$(printf 't%.0s' $(seq 4095))" "$T/longlink/l"
expect_fail "4095-byte symlink, 1 KiB blocks" "longlink.*l: a symlink target of 4095 bytes does not fit 1024-byte blocks" \
	"$T/b6.img" "$E4MKFS" -q -b 1024 -d "$T/longlink" "$T/b6.img"

# a stop midway (the 20th write of the copy: a simulated power cut) leaves
# no filesystem: the superblocks are written back only when the copy is done
E4_CRASH_AFTER_WRITES=20 "$E4MKFS" -q -t ext4 -d "$src" "$T/b7.img" >"$T/out" 2>&1
rc=$?
[ $rc = 137 ] || fail "crash midway: exit $rc, not the crash point's 137: $(cat "$T/out")"
! blkid -p "$T/b7.img" >/dev/null 2>&1 || fail "crash midway: blkid finds $(blkid -p "$T/b7.img")"
! "$REF_E2FSCK" -fn "$T/b7.img" >/dev/null 2>&1 || fail "crash midway: e2fsck -fn passes it"

info "three routes, reproducibility and bad input in $(elapsed) s"
exit 0
