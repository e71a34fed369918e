#!/bin/bash
# mkfs_populate_opts: e4mkfs's options around -d (issue 17): -E
# root_selinux=, -d with -E offset=, -d with -S.
#  - -E root_selinux=LABEL (mke2fs 1.47.1; 1.47.0 rejects it): the root
#    directory gets security.selinux = the label's bytes, no NUL (as mke2fs
#    1.47.4 stores it: 24 bytes for system_u:object_r:root_t), without -d
#    and with -d, where it wins over the source root's own label (1.47.4
#    keeps the source's and drops the option silently: the user's explicit
#    choice is lost, so we differ on purpose); clean, and the kernel reads
#    the label back.  With -S it is refused (no root inode is written).
#  - -d with -E offset=4096: populated at the offset (mke2fs 1.47.0 does
#    the same), the bytes before it untouched, clean at the offset, the
#    kernel's mount at the offset equals the tree (tests/popcmp.py).
#  - -d with -S: refused in one line, exit 1, the target unchanged (1.47.0
#    tries, fails with "Ext2 inode is not a directory" and leaves no valid
#    superblock: -S keeps the old inode tables, there is nothing to copy
#    into).
# Catches: the label stored with a NUL or on the wrong inode, a populate
# that writes at byte 0 when the filesystem starts at an offset (the
# superblock zapping and the copy both), -S clobbering a target after
# the refusal.  Checked: before these changes e4mkfs refused root_selinux
# ("not supported yet") and -d with offset; the offset case fails with
# the offset dropped from the superblock zapping (zeros at byte 1024).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$PYTHON" "$REF_E2FSCK" "$REF_DEBUGFS"
need_root_loop
need_cmd setfattr
E4MKFS=${E4MKFS:-$E4_BUILDDIR/mkfs/e4mkfs}
[ -x "$E4MKFS" ] || fail "no e4mkfs at $E4MKFS"
LABEL=system_u:object_r:root_t

# label IMG: the root's security.selinux as debugfs prints it
label() {
	"$REF_DEBUGFS" -R "ea_get -V / security.selinux" "$1" 2>/dev/null
}
# kernel_label IMG [MOUNTOPTS]: the root's label through a read-only mount
kernel_label() {
	local mnt=$T/mnt.$RANDOM
	mount_loop "$1" "$mnt" "ro${2:+,$2}" || fail "$1: the kernel refuses it"
	"$PYTHON" -c 'import os, sys; v = os.getxattr(sys.argv[1], "security.selinux"); print(len(v), v.decode())' "$mnt"
	umount_retry "$mnt"
}

src=$T/src
mkdir -p "$src/d"
echo hello >"$src/d/f"
ln -s d/f "$src/link"
setfattr -n security.selinux -v src_u:object_r:src_t "$src" 2>/dev/null ||
	skip "no security.* attributes on $T"
setfattr -n user.x -v 1 "$src/d/f"

# 1. root_selinux without -d
"$E4MKFS" -q -F -E "root_selinux=$LABEL" "$T/a.img" 4096 >"$T/out" 2>&1 ||
	fail "root_selinux without -d: $(cat "$T/out")"
ref_clean "$T/a.img" || fail "root_selinux without -d: $REF_CLEAN_OUT"
[ "$(label "$T/a.img")" = "$LABEL" ] || fail "root_selinux without -d: label $(label "$T/a.img")"
[ "$(kernel_label "$T/a.img")" = "24 $LABEL" ] ||
	fail "root_selinux without -d: the kernel reads '$(kernel_label "$T/a.img")', not '24 $LABEL'"

# 2. with -d: the option over the source root's label
"$E4MKFS" -q -F -E "root_selinux=$LABEL" -d "$src" "$T/b.img" 8192 >"$T/out" 2>&1 ||
	fail "root_selinux with -d: $(cat "$T/out")"
ref_clean "$T/b.img" || fail "root_selinux with -d: $REF_CLEAN_OUT"
[ "$(kernel_label "$T/b.img")" = "24 $LABEL" ] ||
	fail "root_selinux with -d: the kernel reads '$(kernel_label "$T/b.img")'"
[ "$("$REF_DEBUGFS" -R "ea_get -V /d/f user.x" "$T/b.img" 2>/dev/null)" = 1 ] ||
	fail "root_selinux with -d: the files' attributes were not copied"

# 3. root_selinux with -S: refused, nothing written
cp "$T/a.img" "$T/s.img"
sum=$(sha256sum <"$T/s.img")
"$E4MKFS" -q -F -S -E "root_selinux=$LABEL" "$T/s.img" >"$T/out" 2>&1 && fail "-S with root_selinux accepted"
[ "$(wc -l <"$T/out")" = 1 ] || fail "-S with root_selinux: not one line: $(cat "$T/out")"
[ "$(sha256sum <"$T/s.img")" = "$sum" ] || fail "-S with root_selinux changed the target"

# 4. -d with -E offset=4096 into an existing file, its first 4 KiB text
truncate -s 12M "$T/o.img"
yes e4kit-marker | head -c 4096 | dd of="$T/o.img" conv=notrunc status=none
head -c 4096 "$T/o.img" | sha256sum >"$T/o.head"
"$E4MKFS" -q -F -E offset=4096 -d "$src" "$T/o.img" 8192 >"$T/out" 2>&1 ||
	fail "-d with -E offset=4096: $(cat "$T/out")"
head -c 4096 "$T/o.img" | sha256sum | cmp -s - "$T/o.head" ||
	fail "-d with -E offset=4096 wrote before the offset"
ref_clean "$T/o.img?offset=4096" || fail "-d with -E offset=4096: $REF_CLEAN_OUT"
mount_loop "$T/o.img" "$T/mnt.o" ro,offset=4096 || fail "-d with offset: the kernel refuses it"
"$PYTHON" "$E4_TESTDIR/popcmp.py" "$src" "$T/mnt.o" >"$T/cmp" 2>&1 ||
	fail "-d with offset: the image differs from the tree: $(head -5 "$T/cmp")"
umount_retry "$T/mnt.o"

# 5. -d with -S: refused in one line, target unchanged
cp "$T/a.img" "$T/s.img"
sum=$(sha256sum <"$T/s.img")
"$E4MKFS" -q -F -S -d "$src" "$T/s.img" >"$T/out" 2>&1 && fail "-S with -d accepted"
[ "$(wc -l <"$T/out")" = 1 ] && grepq -- '-S' "$T/out" || fail "-S with -d: not one line naming -S: $(cat "$T/out")"
[ "$(sha256sum <"$T/s.img")" = "$sum" ] || fail "-S with -d changed the target"

info "root_selinux (with and without -d), -d at an offset, -S refusals: ok in $(elapsed) s"
