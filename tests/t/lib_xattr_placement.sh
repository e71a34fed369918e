#!/bin/bash
# lib_xattr_placement: libe4's xattr writer puts every attribute where the
# kernel puts it.  A fixed-seed script of sets and removes on three files
# (values of 0 to 5000 bytes, so they cross the in-inode room, the block
# size, the large-value limit of ea_inode (block size - 56) and its reserve
# in the block (min(block size / 8, 1024) below the values)) runs twice on
# copies of one reference-made image: through the kernel (setfattr on a
# read-write loop mount) and through tests/helpers/xattr_drv, in four
# rounds.  Both must refuse the same steps (ENOSPC / E4_ERR_NO_SPACE; a
# missing name) and after each round leave each attribute in the same
# place: the inode body, the block, or an EA inode named from either
# (xattr_drv layout reads both images), with the same entry hashes (0 for
# values in the inode body) and block hashes.
# Catches: a value tried in the block before the inode body, an attribute
# left in the block when its new value fits the inode (the kernel moves
# it), the ea_inode reserve or large-value limit forgotten (the value
# stays in the block where the kernel makes an EA inode), a block hash
# folded in another order.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_MKE2FS" "$REF_E2FSCK"
need_cmd setfattr
need_root_loop
need_helper xattr_drv
DRV=$HELPER
export MKE2FS_CONFIG=$E4_TESTDIR/mke2fs-debian.conf

mkdir -p "$T/src" && touch "$T/src/f0" "$T/src/f1" "$T/src/f2"
NAMES=(user.a user.b user.c user.longer_name_of_twenty trusted.t security.s)
SIZES=(0 1 8 12 30 30 40 60 60 90 150 400 850 900 940 960 970 1000 1100 2000 3000 3500 4040 4100 5000)

# script SEED STEPS: "set PATH NAME LEN BYTE" / "rm PATH NAME" lines
script() {
	local i p n
	RANDOM=$1
	for ((i = 0; i < $2; i++)); do
		p=/f$((RANDOM % 3)) n=${NAMES[RANDOM % ${#NAMES[@]}]}
		if [ $((RANDOM % 4)) = 0 ]; then
			echo "rm $p $n"
		else
			echo "set $p $n ${SIZES[RANDOM % ${#SIZES[@]}]} $((97 + RANDOM % 26))"
		fi
	done
}

# kernel_run IMG SCRIPT: the script through setfattr on a read-write
# mount; prints "N nospace" / "N missing" for refused lines.
kernel_run() {
	local img=$1 dir=$T/mnt no=0 op p n len byte hex bh err
	mount_loop "$img" "$dir" || fail "the kernel refuses to mount $img"
	while read -r op p n len byte; do
		no=$((no + 1))
		if [ "$op" = set ]; then
			printf -v bh %02x "$byte"
			printf -v hex "%${len}s" ""
			hex=${hex// /$bh}
			err=$(setfattr -n "$n" -v "0x$hex" "$dir$p" 2>&1)
		else
			err=$(setfattr -x "$n" "$dir$p" 2>&1)
		fi
		case $err in
		'') ;;
		*'No space left on device'*) echo "$no nospace" ;;
		*'No such attribute'* | *'No data available'*) echo "$no missing" ;;
		*) fail "kernel: line $no ($op $p $n $len): $err" ;;
		esac
	done <"$2"
	umount_retry "$dir"
}

n=0
while read -r name seed steps opts; do
	[ -n "$name" ] || continue
	# shellcheck disable=SC2086
	"$REF_MKE2FS" -q -F -t ext4 $opts -d "$T/src" "$T/k.img" 8M >/dev/null 2>&1 ||
		fail "$name: mke2fs $opts failed"
	cp "$T/k.img" "$T/l.img"
	script "$seed" $((4 * steps)) >"$T/script"
	refused=0
	for round in 1 2 3 4; do
		sed -n "$(((round - 1) * steps + 1)),$((round * steps))p" "$T/script" >"$T/round"
		kernel=$({ kernel_run "$T/k.img" "$T/round"; "$DRV" "$T/k.img" layout /f0 /f1 /f2; } | sort) ||
			fail "$name: reading the kernel's result failed"
		ours=$("$DRV" "$T/l.img" script "$T/round" /f0 /f1 /f2 | sort) || fail "$name: driver failed"
		[ "$ours" = "$kernel" ] || fail "$name, round $round: placement differs from the kernel's (< kernel, > libe4):
$(diff <(echo "$kernel") <(echo "$ours") | head -8)"
		refused=$((refused + $(grep -c 'nospace' <<<"$ours")))
	done
	ref_clean "$T/l.img" || fail "$name: e2fsck -fn: $(grep -vE '^e2fsck |^Pass ' <<<"$REF_CLEAN_OUT" | head -5)"
	info "$name: $((4 * steps)) steps, $refused refused, then $(grep -cE ' (inode|block) ' <<<"$ours") in place, $(grep -c ' ea-' <<<"$ours") in EA inodes, $(grep -c ' h_hash ' <<<"$ours") blocks: as the kernel"
	n=$((n + 1))
done <<'SETS'
ext4_1k     21 25 -b 1024
ea_inode_1k 22 25 -b 1024 -O ea_inode
ea_inode_4k 23 25 -b 4096 -O ea_inode
inode128    24 25 -b 1024 -I 128
SETS
info "$n layouts placed as the kernel places them ($(elapsed) s)"
