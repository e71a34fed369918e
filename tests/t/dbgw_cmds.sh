#!/bin/bash
# dbgw_cmds: e4debugfs's simple write commands (issue 13, e4debugfs -w).
#
#  1. Without -w every write command is refused with "Filesystem opened
#     read/only" (one line each) and the image is unchanged (cmp).
#  2. On an ext4 image (metadata_csum) opened with -w -D, a script of edits
#     that keep the filesystem consistent -- ssv mnt_count, ea_set (a short
#     value in the inode, a 600-byte one from a file with -f, in the xattr
#     block, a POSIX ACL given in the Linux form and stored in ext4's),
#     ea_rm, feature on a harmless compat feature, setb/freeb and
#     seti/freei pairs, sif bmap[] mapping free blocks into a file (marked
#     in use and counted, unlike the reference), clri of an unused inode,
#     dirty then dirty -clean, and checksums zeroed by ssv/sif/set_bg then
#     recomputed by the next plain set of another field -- leaves an image
#     the reference e2fsck -fn finds clean and the kernel mounts, with the
#     values the reference debugfs reads back (ea_get, bmap, features,
#     mount count).
#  3. setb on free blocks and seti on a free inode: the reference sees them
#     in use and the group's free counts follow (one less each).
#  4. A filesystem with a field the kernel refuses (r_blocks_count above
#     half the blocks) opens with -w, so ssv can set it right.
#  5. close writes the primary superblock only (as the reference); close -a
#     also rewrites the backups (group 1's copy read with dumpe2fs -o).
# Catches: a write command that changes the image read-only, a descriptor
# or superblock checksum left stale after set_bg / ssv, an xattr block
# not written at close, setb not moving the free counts.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_DEBUGFS" "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DUMPE2FS"
need_e4debugfs

img0=$T/base.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 -g 2048 -N 256 -I 256 -O metadata_csum "$img0" 8M \
	>/dev/null 2>&1 || fail "mke2fs failed"
printf 'abc' >"$T/small"
"$REF_DEBUGFS" -w -R "write $T/small f" "$img0" >/dev/null 2>&1 || fail "debugfs write failed"
ref_clean "$img0" || fail "the fresh image is not clean: $REF_CLEAN_OUT"

# ---- 1: read-only --------------------------------------------------------------
cat >"$T/ro.cmds" <<'EOF'
ssv mnt_count 5
sif <2> uid 1
set_bg 0 flags 0
clri <20>
freei <20>
seti <20>
freeb 3000
setb 3000
feature dir_prealloc
dirty
ea_set / user.a b
ea_rm / user.a
EOF
cp "$img0" "$T/ro.img"
"$E4DEBUGFS" -f "$T/ro.cmds" "$T/ro.img" >"$T/ro.out" 2>"$T/ro.err" &&
	fail "read-only: write commands did not fail"
n=$(grep -c ': Filesystem opened read/only$' "$T/ro.err")
[ "$n" = "$(grep -c . "$T/ro.cmds")" ] || {
	cat "$T/ro.err" >&2
	fail "read-only: $n refusals for $(grep -c . "$T/ro.cmds") commands"
}
cmp -s "$T/ro.img" "$img0" || fail "read-only: the image changed"

# ---- 2: consistent edits ---------------------------------------------------------
img=$T/rw.img
cp "$img0" "$img"
head -c 600 /dev/urandom >"$T/big"
# an ACL as Linux passes it (version 2, 8-byte entries): user::rw-,
# user:1000:r--, group::r--, mask::r--, other::---
printf '\x02\0\0\0\x01\0\x06\0\xff\xff\xff\xff\x02\0\x04\0\xe8\x03\0\0\x04\0\x04\0\xff\xff\xff\xff\x10\0\x04\0\xff\xff\xff\xff\x20\0\0\0\xff\xff\xff\xff' >"$T/acl"
# a free block of group 0 and a free inode, as the reference finds them
fb=$("$REF_DEBUGFS" -R "ffb 4 1500" "$img0" 2>/dev/null | awk '/Free blocks found/ { print $4 }')
fi=$("$REF_DEBUGFS" -R "ffi" "$img0" 2>/dev/null | awk '/Free inode found/ { print $NF }')
[ -n "$fb" ] && [ -n "$fi" ] || fail "no free block or inode found"
cat >"$T/rw.cmds" <<EOF
set_current_time 20240101000000
ssv mnt_count 5
ea_set / user.small hello
ea_set -f $T/big / user.big
ea_set / user.gone x
ea_rm / user.gone
ea_set -f $T/acl / system.posix_acl_access
feature dir_prealloc
setb $fb 4
freeb $fb 4
sif /f bmap[5] $fb
sif /f bmap[9] $((fb + 2))
sif /f size 10240
seti <$fi>
freei <$fi>
clri <$fi>
dirty
dirty -clean
set_bg 1 checksum 0
set_bg 1 flags $("$REF_DEBUGFS" -R "stats" "$img0" 2>/dev/null |
	awk '/Group  1:/ { g = 1 } g && /\[/ { print ($0 ~ /Inode not init/ ? 1 : 0) + ($0 ~ /Block not init/ ? 2 : 0) + ($0 ~ /ITABLE_ZEROED/ ? 4 : 0); exit }')
sif <2> checksum 0
sif <2> uid 0
ssv checksum 0
ssv max_mnt_count -1
EOF
"$E4DEBUGFS" -w -D -f "$T/rw.cmds" "$img" >"$T/rw.out" 2>"$T/rw.err" ||
	{ cat "$T/rw.err" >&2; fail "e4debugfs -w -f failed"; }
ref_clean "$img" || fail "after the edits: $REF_CLEAN_OUT"
kernel_mounts "$img" || fail "after the edits the kernel refuses the image: $KMOUNT_OUT"
"$REF_DEBUGFS" -R "ea_get -f $T/big.out / user.big" "$img" >/dev/null 2>&1
cmp -s "$T/big" "$T/big.out" || fail "ea_get user.big does not give the file back"
"$REF_DEBUGFS" -R "ea_list /" "$img" 2>/dev/null | grepq 'user.small (5) = "hello"' ||
	fail "ea_list: no user.small"
"$REF_DEBUGFS" -R "ea_list /" "$img" 2>/dev/null | grepq 'user.gone' &&
	fail "ea_rm: user.gone is still there"
# stored in ext4's form (version 1, no ids for the owner/group/mask/other)
"$REF_DEBUGFS" -R "ea_get -r -x / system.posix_acl_access" "$img" 2>/dev/null |
	grepq '(28) = 01 00 00 00 01 00 06 00 02 00 04 00 e8 03 00 00 04 00 04 00 10 00 04 00 20 00 00 00 $' ||
	fail "ea_set of an ACL: not stored in ext4's form"
for lb in 5:$fb 9:$((fb + 2)); do
	got=$("$REF_DEBUGFS" -R "bmap /f ${lb%:*}" "$img" 2>/dev/null)
	[ "$got" = "${lb#*:}" ] || fail "sif bmap[${lb%:*}]: the reference maps it to '$got'"
done
"$REF_DUMPE2FS" -h "$img" 2>/dev/null >"$T/sb"
grepq '^Filesystem features:.*dir_prealloc' "$T/sb" || fail "feature dir_prealloc not set"
grepq '^Mount count: *5$' "$T/sb" || fail "mount count is not 5"
grepq '^Maximum mount count: *-1$' "$T/sb" || fail "max mount count is not -1"
grepq '^Filesystem state: *clean$' "$T/sb" || fail "state is not clean"

# ---- 3: setb / seti move the counts ------------------------------------------------
cp "$img0" "$T/set.img"
"$E4DEBUGFS" -w -f - "$T/set.img" >/dev/null 2>"$T/set.err" <<EOF || { cat "$T/set.err" >&2; fail "setb/seti failed"; }
setb $fb 3
seti <$fi>
EOF
"$REF_DEBUGFS" -R "testb $fb 3" "$T/set.img" 2>/dev/null | grep -c 'marked in use' |
	grepq '^3$' || fail "setb: the reference does not see the 3 blocks in use"
"$REF_DEBUGFS" -R "testi <$fi>" "$T/set.img" 2>/dev/null | grepq 'is marked in use' ||
	fail "seti: inode $fi is not marked in use"
free() {	# free IMG WHAT: group 0's free WHAT count (blocks, inodes)
	"$REF_DUMPE2FS" "$1" 2>/dev/null | awk -v w="$2" '/^Group 0:/ { g = 1 }
		g && / free '"$2"', / { sub(/ free '"$2"'.*/, ""); sub(/.* /, ""); print; exit }'
}
for w in blocks inodes; do
	a=$(free "$img0" $w)
	b=$(free "$T/set.img" $w)
	[ "$w" = inodes ] && want=$((a - 1))
	[ "$w" = blocks ] && want=$((a - 3))
	[ "$b" = "$want" ] || fail "group 0 free $w: $b, want $want (was $a)"
done

# ---- 4: a field the kernel refuses can be set right again ---------------------------
# (the library refuses such a filesystem read-write; e4debugfs -w opens it)
cp "$img0" "$T/fix.img"
rb=$("$REF_DUMPE2FS" -h "$img0" 2>/dev/null | awk '/^Reserved block count:/ { print $NF }')
"$E4DEBUGFS" -w -R "ssv r_blocks_count 7000" "$T/fix.img" 2>"$T/fix.err" ||
	fail "ssv r_blocks_count 7000: $(cat "$T/fix.err")"
"$E4DEBUGFS" -w -R "ssv r_blocks_count $rb" "$T/fix.img" 2>"$T/fix.err" ||
	fail "reopening with r_blocks_count above half the blocks: $(cat "$T/fix.err")"
ref_clean "$T/fix.img" || fail "after the repair: $REF_CLEAN_OUT"

# ---- 5: close writes the primary superblock only; close -a the backups too ----------
backup_count() {	# the mount count in group 1's superblock copy (block 2049)
	"$REF_DUMPE2FS" -h -o superblock=2049 -o blocksize=1024 "$1" 2>/dev/null |
		awk '/^Mount count:/ { print $NF }'
}
cp "$img0" "$T/bk.img"
b0=$(backup_count "$T/bk.img")
"$E4DEBUGFS" -w -R "ssv mnt_count 9" "$T/bk.img" || fail "ssv mnt_count 9 failed"
[ "$(backup_count "$T/bk.img")" = "$b0" ] || fail "close changed the backup superblock"
printf 'ssv mnt_count 11\nclose -a\n' | "$E4DEBUGFS" -w -f - "$T/bk.img" >/dev/null ||
	fail "close -a failed"
[ "$(backup_count "$T/bk.img")" = 11 ] || fail "close -a: backup mount count $(backup_count "$T/bk.img")"
"$REF_DUMPE2FS" -h "$T/bk.img" 2>/dev/null | grepq '^Mount count: *11$' ||
	fail "close -a: primary mount count"
ref_clean "$T/bk.img" || fail "after close -a: $REF_CLEAN_OUT"
exit 0
