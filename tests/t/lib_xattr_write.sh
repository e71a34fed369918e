#!/bin/bash
# lib_xattr_write: libe4's xattr writer (xattr_write.c) on reference-made
# images.  tests/helpers/xattr_drv makes a fixed-seed random sequence of
# sets, removes and block shares (an inode taking another's xattr block,
# then either of them changed) on five files and a directory, against a
# model (name -> value per inode) that the library's reader must match
# after every step.  Then three oracles must read exactly the model:
#  - the reference e2fsck -fn is clean (entry and block hashes, block
#    checksums, h_refcount of shared blocks, EA inode reference counts and
#    hashes, i_blocks with the xattr block and the EA values charged);
#  - the reference debugfs: ea_list names and lengths, ea_get -f bytes;
#  - the kernel: getfattr -d on a read-only loop mount.
# Layouts: ext4 with 1 KiB and 4 KiB blocks, 128-byte inodes (no in-inode
# space: every attribute in the block), ea_inode with 1 KiB blocks (values
# of 8 KiB and more in EA inodes), bigalloc (16 KiB clusters) with
# ea_inode, ext3 with ea_inode (EA inodes with indirect block maps).  The driver's counts must show shares, changes to shared
# blocks, refused sets (E4_ERR_NO_SPACE) where the block is small, and
# EA-inode values where the feature is on.
# Catches: a shared block changed in place (the other inode's attributes
# change: the model and the kernel disagree), a wrong entry or block hash
# (e2fsck: "has a hash"), an EA inode reference count or owner i_blocks
# off by one value (e2fsck pass 1 / pass 4).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DEBUGFS"
need_cmd getfattr od
need_root_loop
need_helper xattr_drv
DRV=$HELPER
export MKE2FS_CONFIG=$E4_TESTDIR/mke2fs-debian.conf

PATHS=(/f0 /f1 /f2 /f3 /f4 /d0)
mkdir -p "$T/src/d0" && touch "$T/src/f0" "$T/src/f1" "$T/src/f2" "$T/src/f3" "$T/src/f4"

# hex VALUEFILE: the bytes as lower-case hex on one line
hex() { od -An -v -tx1 "$1" | tr -d ' \n'; }

# check_debugfs NAME IMG MANIFEST: names, lengths and bytes as the reference
# debugfs reads them.
check_debugfs() {
	local name=$1 img=$2 man=$3 cmds=$T/dbg.cmds p n v i=0 want got
	mkdir -p "$T/dbg" && rm -f "$T"/dbg/*
	: >"$cmds"
	for p in "${PATHS[@]}"; do echo "ea_list $p" >>"$cmds"; done
	while IFS=$'\t' read -r p n v; do
		echo "ea_get -f $T/dbg/$i $p $n" >>"$cmds"
		i=$((i + 1))
	done <"$man"
	"$REF_DEBUGFS" -f "$cmds" "$img" >"$T/dbg.out" 2>&1 || fail "$name: debugfs failed"
	want=$(awk -F'\t' '{print $1, $2, length($3) / 2}' "$man" | sort)
	got=$(awk '/^debugfs: ea_list /{p=$3} /^  [^ ]+ \([0-9]+\)/{gsub(/[()]/, "", $2); print p, $1, $2}' \
		"$T/dbg.out" | sort)
	[ "$got" = "$want" ] || fail "$name: debugfs ea_list differs from the model: $(diff <(echo "$want") <(echo "$got") | head -5)"
	i=0
	while IFS=$'\t' read -r p n v; do
		[ -f "$T/dbg/$i" ] || fail "$name: debugfs ea_get $p $n wrote nothing: $(grep -A1 "ea_get -f $T/dbg/$i " "$T/dbg.out")"
		[ "$(hex "$T/dbg/$i")" = "$v" ] || fail "$name: debugfs reads another value for $p $n"
		i=$((i + 1))
	done <"$man"
}

# check_kernel NAME IMG MANIFEST: every attribute as the kernel reads it
# (getfattr -d -m - -e hex), and no other.
check_kernel() {
	local name=$1 img=$2 man=$3 dir=$T/mnt want got
	mount_loop "$img" "$dir" ro || fail "$name: the kernel refuses to mount: $(dmesg | tail -3)"
	(cd "$dir" && getfattr -d -m - -e hex --absolute-names "${PATHS[@]/#/.}") >"$T/getfattr.out" 2>"$T/getfattr.err"
	umount_retry "$dir"
	[ -s "$T/getfattr.err" ] && fail "$name: getfattr: $(head -3 "$T/getfattr.err")"
	want=$(awk -F'\t' '{print $1, $2, "0x" $3}' "$man" | sort)
	got=$(awk '/^# file: /{p=substr($3, 2); next} /=/{i=index($0, "="); print p, substr($0, 1, i - 1), substr($0, i + 1)}' \
		"$T/getfattr.out" | sort)
	[ "$got" = "$want" ] || fail "$name: the kernel reads other attributes than the model: $(diff <(echo "$want") <(echo "$got") | cut -c1-120 | head -5)"
}

n=0
while read -r name seed steps size want opts; do
	[ -n "$name" ] || continue
	img=$T/$name.img man=$T/$name.man
	# shellcheck disable=SC2086
	"$REF_MKE2FS" -q -F $opts -d "$T/src" "$img" "$size" >/dev/null 2>&1 ||
		fail "$name: mke2fs $opts failed"
	out=$("$DRV" "$img" "$seed" "$steps" "$man" "${PATHS[@]}" 2>&1) || fail "$name: driver: $out"
	verbose "$name: $out"
	for w in ${want//,/ }; do
		c=$(sed -E "s/.*\\b$w ([0-9]+).*/\\1/" <<<"$out")
		[ "$c" -gt 0 ] || fail "$name: the driver counts no '$w' ($out): the test lost its reach"
	done
	ref_clean "$img" || fail "$name: e2fsck -fn: $(grep -vE '^e2fsck |^Pass ' <<<"$REF_CLEAN_OUT" | head -5)"
	check_debugfs "$name" "$img" "$man"
	check_kernel "$name" "$img" "$man"
	info "$name: $out; $(wc -l <"$man") attributes as debugfs and the kernel read them"
	rm -f "$img"
	n=$((n + 1))
done <<'SETS'
ext4_1k   11 300 4M shares,shared_changed,nospace,shared_now -t ext4 -b 1024
ext4_4k   12 300 8M shares,shared_changed,nospace,shared_now -t ext4 -b 4096
inode128  13 300 4M shares,shared_changed,nospace,shared_now -t ext4 -b 1024 -I 128
ea_inode  14 300 8M shares,shared_changed,big,shared_now,ea_values -t ext4 -b 1024 -O ea_inode
bigalloc  15 200 16M shares,shared_changed,big,shared_now,ea_values -t ext4 -O bigalloc,ea_inode -C 16384
ext3_ea   16 200 8M shares,shared_changed,big,shared_now,ea_values -t ext3 -b 1024 -O ea_inode
SETS
info "$n layouts: the model as e2fsck, debugfs and the kernel read it ($(elapsed) s)"
