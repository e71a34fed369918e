#!/bin/bash
# fsck_map_corrupt: pass 1's map checker (fsck/check_map*.c) on
# kernel-populated images, one corruption per case, made by a script: the
# reference debugfs -w (sif on i_block words, the inode's flags and size)
# or a few bytes written with dd into an extent node or indirect block
# found with debugfs 'ex' / 'stat'.
#
#  ext4: 16 MiB, 1 KiB blocks, metadata_csum, no journal; written by the
#  kernel: /two (200 one-block extents, every other logical block: a root
#  index over 3 leaves), /three (1000: depth 2, 12 leaves), /small (5
#  blocks in i_block), directory /d.  ext2: /big (300 KiB: direct, single
#  and double indirect blocks), /mid (20 KiB: single indirect).
#
# First the undamaged images (and the image matrix, when built) must give
# no problem at all (no false alarm).  Then 37 cases of 33 rows, one
# corruption each: the root header (garbage, or a block map under
# EXTENTS_FL: kept, the flag cleared); a node block out of range, in
# metadata or named twice; node magic, depth, eh_max, emptiness,
# checksum; index keys; extents of length 0, out of range, in metadata,
# out of order, past the next key, starting past it, past 2^32; an
# unwritten extent in a directory; the extents flag and feature; block
# pointers, direct and indirect, out of range, in metadata or named
# twice; a garbage indirect block; a size past what a block map
# addresses.  The checker under -n names its row and writes nothing;
# under -y it names it again and repairs; a second -n finds nothing in
# that inode; after the repair the reference e2fsck -fn says nothing
# about that inode in pass 1 (its pass 5 bitmap differences are left:
# freeing is pass 5's business, not the checker's), and a read-only kernel
# mount reads the file.
# Each case runs the checker alone through tests/unit/check_map_run (a
# stand-in driver that records the codes) and the whole `e4fsck -fn`,
# which must say the same message and exit 4; then the whole `e4fsck -fy`
# (passes 1 and 5) on another copy: exit 1, the reference e2fsck -fn clean,
# the kernel mounts it, and the reference e2fsck -fy's exit on the same
# damage compared (full_check: the differences with their reasons).
#
# Bugs caught (planted once each): an index key "fixed" one past its
# child's first block (the second -n finds it again); a dropped entry not
# removed from its node (the same); the extent's length decoded without
# the unwritten bit (an unwritten directory extent is "outside the
# filesystem"); an extent starting where the one before ends called out
# of order (a false alarm on the matrix images).
# Not made here: a read error in a tree or indirect block (needs a device
# that fails reads).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_MKE2FS" "$REF_DEBUGFS" "$REF_E2FSCK" "$REF_DUMPE2FS"
need_root_loop
need_cmd "$PYTHON"
RUN=${CHECK_MAP_RUN:-$E4_BUILDDIR/tests/unit/check_map_run}
[ -x "$RUN" ] || make -s -C "$E4_BUILDDIR" tests/unit/check_map_run >/dev/null ||
	fail "cannot build $RUN"

# ---- the images ----------------------------------------------------------
populate() {
	local img=$1 kind=$2 mnt=$T/mnt
	mount_loop "$img" "$mnt" || fail "cannot mount $img"
	"$PYTHON" - "$mnt" "$kind" <<'PY' || fail "populating $img"
import os, sys
mnt, kind = sys.argv[1], sys.argv[2]
def sparse(name, n, step=2):
    fd = os.open(os.path.join(mnt, name), os.O_WRONLY | os.O_CREAT, 0o644)
    for i in range(n):
        os.pwrite(fd, bytes([i % 251 + 1]) * 1024, i * step * 1024)
    os.close(fd)
def dense(name, size):
    with open(os.path.join(mnt, name), 'wb') as f:
        f.write(bytes((i * 7) % 256 for i in range(size)))
if kind == 'ext4':
    sparse('two', 200)
    sparse('three', 1000)
    dense('small', 5000)
    os.mkdir(os.path.join(mnt, 'd'))
else:
    dense('big', 300 * 1024)
    dense('mid', 20 * 1024)
PY
	umount_retry "$mnt"
}

E4=$T/ext4.img E2=$T/ext2.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 -O ^has_journal,metadata_csum "$E4" 16M ||
	fail "mke2fs ext4"
"$REF_MKE2FS" -q -F -t ext2 -b 1024 "$E2" 8M || fail "mke2fs ext2"
populate "$E4" ext4
populate "$E2" ext2
ref_clean "$E4" || fail "the populated ext4 image is not clean: $REF_CLEAN_OUT"
ref_clean "$E2" || fail "the populated ext2 image is not clean: $REF_CLEAN_OUT"

# no false alarm: every inode with a map, on both images and on the image
# matrix when it is built (tests/mkmatrix.sh; not built here)
noalarm() {
	local out
	out=$("$RUN" -n "$1" all 2>&1) || fail "$1: check_map_run -n all: $out"
	grepq -x "[0-9]* inodes checked, 0 problems" <<<"$(tail -1 <<<"$out")" ||
		fail "$1: false alarm: $(head -5 <<<"$out")"
}
noalarm "$E4"
noalarm "$E2"
nmatrix=0
for img in "$E4_MATRIX"/*.img; do
	[ -f "$img" ] || continue
	noalarm "$img"
	nmatrix=$((nmatrix + 1))
done
verbose "no false alarm on the populated images and $nmatrix matrix images"

ino_of() { "$REF_DEBUGFS" -R "stat $2" "$1" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p'; }
# node_blk IMG PATH LEVEL N: the physical block of the Nth (1-based)
# index entry's child at LEVEL in debugfs 'ex' output (a tree block)
node_blk() {
	"$REF_DEBUGFS" -R "ex $2" "$1" 2>/dev/null |
		awk -v l="$3/" -v n="$4" '$1 == l && $3 == n"/" { print $(NF-1); exit }'
}
# ext_pblk IMG PATH LBLK: the first physical block of the extent that
# starts at logical LBLK ("ex": level, entries, "from - to", "from - to")
ext_pblk() {
	"$REF_DEBUGFS" -R "ex $2" "$1" 2>/dev/null |
		awk -v lb="$3" '$5 == lb && $6 == "-" { print $8; exit }'
}
# put IMG BLOCK OFFSET BYTES-AS-HEX: write bytes into block BLOCK (1 KiB)
put() {
	printf "$(sed 's/\(..\)/\\x\1/g' <<<"$4")" |
		dd of="$1" bs=1 seek=$(($2 * 1024 + $3)) conv=notrunc status=none
}
le16() { printf '%02x%02x' $(($1 & 255)) $((($1 >> 8) & 255)); }
le32() { printf '%s%s' "$(le16 $(($1 & 65535)))" "$(le16 $((($1 >> 16) & 65535)))"; }
dbgw() { "$REF_DEBUGFS" -w -R "$2" "$1" >/dev/null 2>&1 || fail "debugfs -w '$2'"; }

I_TWO=$(ino_of "$E4" /two) I_THREE=$(ino_of "$E4" /three)
I_SMALL=$(ino_of "$E4" /small) I_D=$(ino_of "$E4" /d)
I_BIG=$(ino_of "$E2" /big) I_MID=$(ino_of "$E2" /mid)
L1=$(node_blk "$E4" /two 0 1) L2=$(node_blk "$E4" /two 0 2) L3=$(node_blk "$E4" /two 0 3)
IDX=$(node_blk "$E4" /three 0 1) T1=$(node_blk "$E4" /three 1 1)
[ -n "$L1" ] && [ -n "$L3" ] && [ -n "$IDX" ] && [ -n "$T1" ] ||
	fail "tree blocks not found (/two: '$L1' '$L2' '$L3', /three: '$IDX' '$T1')"
ITABLE=$("$REF_DUMPE2FS" "$E4" 2>/dev/null | sed -n 's/.*Inode table at \([0-9]*\)-.*/\1/p' | head -1)
BBITMAP=$("$REF_DUMPE2FS" "$E4" 2>/dev/null | sed -n 's/.*Block bitmap at \([0-9]*\) .*/\1/p' | head -1)
ITABLE2=$("$REF_DUMPE2FS" "$E2" 2>/dev/null | sed -n 's/.*Inode table at \([0-9]*\)-.*/\1/p' | head -1)
IBITMAP2=$("$REF_DUMPE2FS" "$E2" 2>/dev/null | sed -n 's/.*Inode bitmap at \([0-9]*\) .*/\1/p' | head -1)
# the single indirect block, the double, and the double's first child
IND=$("$REF_DEBUGFS" -R "stat /big" "$E2" 2>/dev/null | grep -o '(IND):[0-9]*' | head -1 | cut -d: -f2)
DIND=$("$REF_DEBUGFS" -R "stat /big" "$E2" 2>/dev/null | grep -o '(DIND):[0-9]*' | cut -d: -f2)
IND2=$("$REF_DEBUGFS" -R "stat /big" "$E2" 2>/dev/null | grep -o '(IND):[0-9]*' | tail -1 | cut -d: -f2)
[ -n "$IND" ] && [ -n "$DIND" ] && [ "$IND2" != "$IND" ] ||
	fail "indirect blocks not found (/big: '$IND' '$DIND' '$IND2')"
verbose "ext4: /two $I_TWO leaves $L1 $L2 $L3; /three $I_THREE index $IDX leaf $T1; itable $ITABLE"
verbose "ext2: /big $I_BIG ind $IND dind $DIND; itable $ITABLE2 ibitmap $IBITMAP2"

ncases=0

# kernel_reads IMG BASE INO: a read-only kernel mount of IMG reads the
# file of inode INO (of the image made as BASE): its first 8 MiB, all that
# the test's files map (bm_size leaves a sparse 16 GiB file), through the
# repaired map (headers, keys, checksums as the kernel wants them).
kernel_reads() {
	local img=$1 path dev rc
	if [ "$2" = "$E2" ]; then
		case $3 in "$I_BIG") path=big ;; "$I_MID") path=mid ;; esac
	else
		case $3 in
		"$I_TWO") path=two ;; "$I_THREE") path=three ;; "$I_SMALL") path=small ;;
		"$I_D") path=d ;;
		esac
	fi
	[ -d "$T/m" ] || mkdir "$T/m"
	dev=$(losetup -r -f --show "$img") || fail "losetup $img"
	if ! mount -t ext4 -o ro "$dev" "$T/m" 2>"$T/mount.err"; then
		losetup -d "$dev"
		fail "the kernel does not mount $img: $(cat "$T/mount.err")"
	fi
	if [ -d "$T/m/$path" ]; then ls "$T/m/$path" >/dev/null 2>"$T/read.err"; else
		dd if="$T/m/$path" of=/dev/null bs=1M count=8 status=none 2>"$T/read.err"; fi
	rc=$?
	umount_retry "$T/m"
	losetup -d "$dev" 2>/dev/null
	[ $rc = 0 ] || fail "the kernel cannot read /$path of $img: $(cat "$T/read.err")"
}

# full_check NAME: the whole e4fsck -fy (passes 1 and 5) on a copy of the
# damaged $W exits 1, the reference e2fsck -fn then finds the image clean
# and the kernel mounts it; the reference e2fsck -fy exits 1 on the same
# damage too, except where written here with the reason:
#  - node_csum: the reference counts a tree node whose only fault is its
#    checksum as fixed without an error (exit 0); we count it (the kernel
#    returns EIO reading such a node, so rewriting it is a repair);
#  - node_depth: the reference reports only the checksum of the node
#    whose depth is wrong (exit 0); we fix the depth (exit 1).
# root_bad clears the inode (its root is unusable): the directory entry
# naming it is passes 2-4's business (issue 16), so the reference's only
# complaint after our -fy must be that entry.
full_check() {
	local name=$1 img=$T/$1.full.img rimg=$T/$1.ref.img rc want=1
	cp "$W" "$img"
	runcap "$T/$name.fy" 60 "$E4FSCK" -fy "$img"
	[ "$(cat "$T/$name.fy.rc")" = 1 ] ||
		fail "$name: e4fsck -fy exited $(cat "$T/$name.fy.rc"): $(head -20 "$T/$name.fy.out")"
	if ! ref_clean "$img"; then
		if [ "$name" = root_bad ]; then
			grep -vE '^e2fsck [0-9]|^Pass [1-5]|files \(|^$|has deleted/unused inode|WARNING|^$' \
				<<<"$REF_CLEAN_OUT" | grepq . &&
				fail "$name: after e4fsck -fy the reference finds more than the entry: $REF_CLEAN_OUT"
		else
			fail "$name: after e4fsck -fy the reference e2fsck -fn is not clean: $REF_CLEAN_OUT"
		fi
	fi
	fsck_result_mounts "$img" "$name"
	cp "$W" "$rimg"
	"$REF_E2FSCK" -fy "$rimg" >/dev/null 2>&1 </dev/null
	rc=$?
	case $name in node_csum | node_depth) want=0 ;; esac
	[ $rc = $want ] || fail "$name: the reference e2fsck -fy exited $rc, the test says $want"
	rm -f "$img" "$rimg"
}

# mapcase NAME BASE INO ROW MSG CMD...: on a copy of BASE run CMD (with
# $W the copy), then the checks the header lists (FMSG: what e4fsck -fn
# says instead of MSG, when the full check settles it otherwise).
mapcase() {
	local name=$1 base=$2 ino=$3 row=$4 msg=$5 sum fmsg=${FMSG:-$5}
	shift 5
	W=$T/$name.img
	cp "$base" "$W"
	eval "$@"
	sum=$(md5sum <"$W")
	runcap "$T/$name.n" 30 "$RUN" -n "$W" "$ino"
	[ "$(cat "$T/$name.n.rc")" = 0 ] || fail "$name: -n: $(cat "$T/$name.n.err")"
	san_report "$T/$name.n.err" && fail "$name: sanitizer: $(head -3 "$T/$name.n.err")"
	grepq -F "[$row]" "$T/$name.n.out" ||
		fail "$name: -n does not name $row: $(cat "$T/$name.n.out")"
	grepq -F "$msg" "$T/$name.n.out" || fail "$name: -n: no '$msg': $(cat "$T/$name.n.out")"
	[ "$(md5sum <"$W")" = "$sum" ] || fail "$name: -n changed the image"
	runcap "$T/$name.f" 60 "$E4FSCK" -fn "$W"
	grepq -F "$fmsg" "$T/$name.f.out" ||
		fail "$name: e4fsck -fn does not say '$fmsg': $(head -20 "$T/$name.f.out")"
	[ "$(cat "$T/$name.f.rc")" = 4 ] || fail "$name: e4fsck -fn exited $(cat "$T/$name.f.rc")"
	full_check "$name"
	# what the reference says of the damage (shown with E4_VERBOSE=1)
	verbose "$name: reference: $(ref_fsck_report "$W" | head -2 | tr '\n' ' ' | cut -c1-160)"
	runcap "$T/$name.y" 30 "$RUN" -y "$W" "$ino"
	[ "$(cat "$T/$name.y.rc")" = 0 ] || fail "$name: -y: $(cat "$T/$name.y.err")"
	grepq -F "[$row]" "$T/$name.y.out" ||
		fail "$name: -y does not name $row: $(cat "$T/$name.y.out")"
	if grepq -F "clear 1" "$T/$name.y.out"; then
		ncases=$((ncases + 1))
		return 0	# the driver clears the inode: not the checker's to judge
	fi
	runcap "$T/$name.n2" 30 "$RUN" -n "$W" "$ino"
	! grepq -F "[PR_" "$T/$name.n2.out" ||
		fail "$name: after -y, -n still finds: $(cat "$T/$name.n2.out")"
	kernel_reads "$W" "$base" "$ino"
	"$REF_E2FSCK" -fn "$W" >"$T/$name.ref" 2>&1 </dev/null
	sed -n '/^Pass 1:/,/^Pass 2:/p' "$T/$name.ref" | grep -i "inode $ino\b" &&
		fail "$name: after -y the reference e2fsck -fn finds inode $ino wrong (above)"
	ncases=$((ncases + 1))
	verbose "$name: ok"
}

# ---- extent trees ----------------------------------------------------------
# root (i_block words: 0 magic|entries, 1 max|depth, then 3 per entry)
# a magic one bit off over intact entries: the header is rebuilt (was
# cleared; fsck_map_safe.sh guards the data); root_bad: the magic and
# eh_max both garbage, no extent or block-map reading: the inode cleared
mapcase root_magic "$E4" "$I_TWO" PR_1_MAP_ROOT_REBUILD "the header is rebuilt with 3 entries, depth 1" \
	'dbgw "$W" "sif /two block[0] 0x0003f30b"'
mapcase root_bad "$E4" "$I_TWO" PR_1_MAP_ROOT_BAD "extent tree root is unusable" \
	'dbgw "$W" "sif /two block[0] 0x0003f30b"; dbgw "$W" "sif /two block[1] 0xabcd1234"'
# /small's 5 blocks written into i_block as a block map, EXTENTS_FL kept:
# not cleared (something to recover): the flag goes, the map is kept
SMALL0=$(ext_pblk "$E4" /small 0)
[ -n "$SMALL0" ] || fail "/small's first block not found"
mapcase root_as_blockmap "$E4" "$I_SMALL" PR_1_MAP_ROOT_AS_BLOCKMAP "reads as a block map" \
	'for w in $(seq 0 14); do
		b=0; [ $w -lt 5 ] && b=$((SMALL0 + w))
		echo "sif /small block[$w] $b"
	done >"$T/bm.cmds"; "$REF_DEBUGFS" -w -f "$T/bm.cmds" "$W" >/dev/null 2>&1'
mapcase root_max "$E4" "$I_TWO" PR_1_MAP_ROOT_MAX "root has eh_max 7, expected 4" \
	'dbgw "$W" "sif /two block[1] 0x00010007"'
mapcase root_empty_index "$E4" "$I_TWO" PR_1_MAP_ROOT_EMPTY_INDEX "an index node without entries" \
	'dbgw "$W" "sif /two block[0] 0x0000f30a"'
# the count past the room with stale slots after the valid entry: one row
# naming the slots dropped (was ROOT_ENTRIES, then each slot "out of order")
mapcase root_entries "$E4" "$I_SMALL" PR_1_MAP_ROOT_STALE "root claims 6 entries with room for 4; 1 are valid" \
	'dbgw "$W" "sif /small block[0] 0x0006f30a"'
# index entries of the root of /two: entry 1's child, entry 1's key
mapcase node_range "$E4" "$I_TWO" PR_1_MAP_NODE_BAD_BLOCK "outside the filesystem" \
	'dbgw "$W" "sif /two block[7] 99999999"'
mapcase node_meta "$E4" "$I_TWO" PR_1_MAP_NODE_IN_META "overlaps filesystem metadata" \
	'dbgw "$W" "sif /two block[7] $ITABLE"'
mapcase node_twice "$E4" "$I_TWO" PR_1_MAP_NODE_TWICE "as a tree or indirect block a second time" \
	'dbgw "$W" "sif /two block[7] $L1"'
mapcase index_key "$E4" "$I_TWO" PR_1_MAP_INDEX_KEY "has key 170, but the node starts at logical block 168" \
	'dbgw "$W" "sif /two block[6] 170"'
mapcase index_key_low "$E4" "$I_TWO" PR_1_MAP_INDEX_KEY "has key 100, but the node starts at logical block 168" \
	'dbgw "$W" "sif /two block[6] 100"'
# tree block headers (eh_magic 0, eh_entries 2, eh_max 4, eh_depth 6)
mapcase node_magic "$E4" "$I_TWO" PR_1_MAP_NODE_HEADER "has a bad header (bad magic)" \
	'put "$W" $L2 0 0000'
mapcase node_depth "$E4" "$I_TWO" PR_1_MAP_NODE_DEPTH "has depth 1, expected 0" \
	'put "$W" $L2 6 0100'
mapcase node_max "$E4" "$I_TWO" PR_1_MAP_NODE_MAX "has eh_max 40, expected 84" \
	'put "$W" $L3 4 "$(le16 40)"'
# eh_entries 0 over intact entries: the checksum matches the old count,
# which is restored (was NODE_EMPTY: the node and its 32 extents dropped);
# node_empty: the first slot zeroed too, nothing to restore
mapcase node_count "$E4" "$I_TWO" PR_1_MAP_NODE_ENTRIES_CSUM "claims 0 entries, but its checksum matches 32" \
	'put "$W" $L3 2 0000'
mapcase node_empty "$E4" "$I_TWO" PR_1_MAP_NODE_EMPTY "has no entries" \
	'put "$W" $L3 2 0000; put "$W" $L3 12 000000000000000000000000'
mapcase node_csum "$E4" "$I_TWO" PR_1_MAP_NODE_CSUM "fails its checksum" \
	'put "$W" $L3 $((12 + 12 * 80)) ff'
mapcase index_depth2 "$E4" "$I_THREE" PR_1_MAP_NODE_HEADER "bad header" \
	'put "$W" $T1 0 0000'
# leaf entries of /two's first leaf (entry k at 12 + 12k: ee_block,
# ee_len, ee_start_hi, ee_start_lo; entry k maps logical 2k)
# length 0 and physical block 0: nothing to recover, so -y drops it (with
# a block inside the filesystem the data is recoverable and -y leaves
# it: fsck_map_safe.sh)
mapcase ext_zero "$E4" "$I_TWO" PR_1_MAP_EXTENT_ZERO "extent of length 0" \
	'put "$W" $L1 $((12 + 12 * 5 + 4)) 0000000000000000'
mapcase ext_range "$E4" "$I_TWO" PR_1_MAP_EXTENT_RANGE "outside the filesystem" \
	'put "$W" $L1 $((12 + 12 * 5 + 8)) "$(le32 99999999)"'
# file data over metadata: the checker alone refuses it; e4fsck's pass 1
# claims it twice and passes 1B-1D clone it out (as the reference)
FMSG="claimed more than once" mapcase ext_meta "$E4" "$I_TWO" PR_1_MAP_EXTENT_IN_META "overlapping filesystem metadata" \
	'put "$W" $L1 $((12 + 12 * 5 + 8)) "$(le32 $BBITMAP)"'
mapcase ext_order "$E4" "$I_TWO" PR_1_MAP_EXTENT_ORDER "out of order" \
	'put "$W" $L1 $((12 + 12 * 5)) "$(le32 8)"'
mapcase ext_end_key "$E4" "$I_TWO" PR_1_MAP_EXTENT_END_KEY "ending past the next index key 168" \
	'put "$W" $L1 $((12 + 12 * 83 + 4)) "$(le16 5)"'
mapcase ext_start_key "$E4" "$I_TWO" PR_1_MAP_EXTENT_START_KEY "starting at or past the next index key 168" \
	'put "$W" $L1 $((12 + 12 * 83)) "$(le32 200)"'
mapcase ext_lblk "$E4" "$I_SMALL" PR_1_MAP_EXTENT_LBLK "past the last logical block" \
	'dbgw "$W" "sif /small block[3] 0xfffffffe"'
mapcase dir_unwritten "$E4" "$I_D" PR_1_MAP_UNWRITTEN_DIR "has an unwritten extent" \
	'dbgw "$W" "sif /d block[4] 0x8001"'
mapcase header_no_fl "$E4" "$I_SMALL" PR_1_MAP_HEADER_NO_FL "but EXTENTS_FL is not set" \
	'dbgw "$W" "sif /small flags 0"'

# ---- block maps (ext2) -----------------------------------------------------
mapcase blk_range "$E2" "$I_MID" PR_1_MAP_BLOCK_BAD "is outside the filesystem" \
	'dbgw "$W" "sif /mid block[3] 99999999"'
FMSG="claimed more than once" mapcase blk_meta "$E2" "$I_MID" PR_1_MAP_BLOCK_IN_META "overlaps filesystem metadata" \
	'dbgw "$W" "sif /mid block[3] $ITABLE2"'
mapcase ind_range "$E2" "$I_BIG" PR_1_MAP_IND_BAD "indirect block 99999999 is outside" \
	'dbgw "$W" "sif /big block[IND] 99999999"'
mapcase ind_meta "$E2" "$I_BIG" PR_1_MAP_IND_IN_META "double indirect block $IBITMAP2 overlaps" \
	'dbgw "$W" "sif /big block[DIND] $IBITMAP2"'
# text over the whole single indirect block (a block reused as a file's
# data): 256 numbers far outside the filesystem
GARBAGE=$(for i in $(seq 25); do printf '%s' "This is not an indirect block, only text. "; done |
	head -c 1024 | od -v -An -tx1 | tr -d ' \n')
mapcase ind_twice "$E2" "$I_BIG" PR_1_MAP_NODE_TWICE "block $IND as a tree or indirect block a second time" \
	'dbgw "$W" "sif /big block[DIND] $IND"'
mapcase ind_garbage "$E2" "$I_BIG" PR_1_MAP_IND_GARBAGE "it is not an indirect block" \
	'put "$W" $IND 0 "$GARBAGE"'
mapcase dind_entry "$E2" "$I_BIG" PR_1_MAP_BLOCK_BAD "is outside the filesystem" \
	'put "$W" $IND2 8 "$(le32 99999999)"'
mapcase fl_no_feature "$E2" "$I_MID" PR_1_MAP_EXTENT_FL_NO_TREE "without the extent feature" \
	'dbgw "$W" "sif /mid flags 0x80000"'
# an (empty) extent tree put in /mid's i_block with EXTENTS_FL, on ext2
mapcase ext_feature "$E2" "$I_MID" PR_1_MAP_EXTENT_FEATURE "lacks the extent feature" \
	'dbgw "$W" "sif /mid block[0] 0xf30a"; dbgw "$W" "sif /mid block[1] 4"; dbgw "$W" "sif /mid flags 0x80000"'
mapcase bm_size "$E2" "$I_MID" PR_1_MAP_BLOCKMAP_SIZE "a block map addresses" \
	'dbgw "$W" "sif /mid size_hi 0x7fffffff"'

info "$ncases corruption cases: each named under -n, repaired under -y"
