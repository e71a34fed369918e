#!/bin/bash
# fsck_dup_blocks: passes 1B-1D (issue 16): blocks claimed by more than
# one inode are found, named and cloned as the reference e2fsck does.
# Images: mke2fs -d populated ext4 (extents), ext3 (block maps, journal)
# and ext2, 1 KiB blocks, 4 MiB; damage planted with the reference
# debugfs on a copy:
#   ext4_two   /f2's extent moved onto /f1's blocks (7 shared)
#   ext4_meta  /d/g's extent moved onto the inode table's last blocks
#              (file data over metadata: "shared with <metadata>")
#   ext3_two   /f2's second block pointer set to /f1's third block
#   ext3_ind   /f3's indirect block pointer set to /f4's indirect block
#              (a shared map block: /f3's map rebuilt on copies)
#   ext2_three /f2's and /f3's first block pointers set to /f1's first
#              block (three files on one block)
#   ext4_xattr /s's data moved onto /f1's xattr block (the reference's
#              own repair leaves a bad checksum there: noted below)
# For each: e4fsck -fn exits 4, writes nothing, and names the same
# inodes, the same blocks and the same number of co-owners per inode as
# the reference e2fsck -fn; -fp stops (exit 4) before cloning; -fy
# exits 1 and leaves the filesystem marked clean, the reference -fn then
# finds it clean, the kernel
# mounts it, and every file reads the same as after the reference -fy on
# a copy (debugfs dump, md5); a second -fy finds nothing to repair (exit
# 8: passes 2-4 are not in this version).  Each -fy run is also stopped
# at each of its writes (crash(), below) and judged by what it leaves.
# Bug it catches: a clone that remaps the file but copies nothing, or
# frees the shared block (the other file's data lost), or leaves the new
# block free in the bitmap (the reference sees it claimed but free).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_DEBUGFS" "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DUMPE2FS"
export E2FSCK_CONFIG=/dev/null TZ=UTC E2FSCK_TIME=2000000000 E4FSCK_TIME=2000000000

FILES="/f1 /f2 /f3 /f4 /d/g"
src=$T/src
mkdir -p "$src/d"
# fixed contents (seeded): 9, 17, 25 and 33 blocks, and 5 blocks
for i in 1 2 3 4; do
	head -c $((8192 * i + 100)) < <(openssl enc -aes-128-ctr -pass pass:dup$i -nosalt \
		</dev/zero 2>/dev/null) >"$src/f$i"
done
head -c 5000 < <(openssl enc -aes-128-ctr -pass pass:dupg -nosalt </dev/zero 2>/dev/null) \
	>"$src/d/g"
[ "$(stat -c %s "$src/f4")" = 32868 ] || fail "setup: could not write the source files"

mkimg() {	# mkimg NAME TYPE
	"$REF_MKE2FS" -q -F -t "$2" -b 1024 -E root_owner=0:0 -d "$src" "$T/$1.base" 4M \
		>/dev/null 2>&1 || fail "mke2fs -t $2 failed"
}
blk() {	# blk IMG PATH LBLK: physical block of PATH's logical block
	"$REF_DEBUGFS" -R "bmap $2 $3" "$1" 2>/dev/null
}
dbgw() {	# dbgw IMG CMD...
	local img=$1
	shift
	printf '%s\n' "$@" | "$REF_DEBUGFS" -w -f - "$img" >/dev/null 2>&1 || fail "debugfs -w failed"
}
# facts IN: "ino: b1 b2 ..." per inode from pass 1B (ranges expanded),
# then "ino shares-with" per inode from pass 1D; our wording or the
# reference's
facts() {
	sed -nE -e 's/^Inode ([0-9]+) holds block\(s\) claimed more than once:(.*)/B \1:\2/p' \
		-e 's/^Multiply-claimed block\(s\) in inode ([0-9]+):(.*)/B \1:\2/p' \
		-e 's/.*\(inode #([0-9]+), mod time.*/F \1/p' \
		-e 's/.*, shared with ([0-9]+) file\(s\):.*/S \1/p' "$1" |
		awk '$1 == "B" { printf "%s", $2; for (i = 3; i <= NF; i++) {
				n = split($i, r, "--"); if (n == 1) r[2] = r[1];
				for (b = r[1]; b <= r[2]; b++) printf " %d", b }; print ""; next }
		     $1 == "F" { f = $2; next }
		     $1 == "S" { print f " shares with " $2 }'
}
sums() {	# sums IMG: md5 of every file, read with debugfs dump
	local f
	for f in $FILES; do
		rm -f "$T/dump"
		"$REF_DEBUGFS" -R "dump $f $T/dump" "$1" >/dev/null 2>&1
		echo "$f $(md5sum <"$T/dump" | cut -c1-32)"
	done
}

# clean_but_opt IMG: ref_clean, where $REF_OPT (a pattern) names a line
# the reference may add that is an offer to optimise, not damage (exit 0)
clean_but_opt() {
	ref_clean "$1" && return 0
	[ -n "${REF_OPT:-}" ] && "$REF_E2FSCK" -fn "$1" >/dev/null 2>&1 </dev/null &&
		! grep -qvE "^e2fsck [0-9]|^Pass [1-5]: |: [0-9]+/[0-9]+ files \(|^$|$REF_OPT" <<<"$REF_CLEAN_OUT"
}

check() {	# check NAME: the runs on $T/NAME.img
	local name=$1 img=$T/$1.img
	"$REF_E2FSCK" -fn "$img" >"$T/$name.refn" 2>&1 </dev/null
	[ $? = 4 ] || fail "$name: the reference -fn does not find the damage (premise)"
	grep -q "Multiply-claimed" "$T/$name.refn" ||
		fail "$name: the reference sees no blocks claimed twice (premise)"
	cp "$img" "$T/$name.r.img"
	"$REF_E2FSCK" -fy "$T/$name.r.img" >/dev/null 2>&1 </dev/null
	if [ -n "${REF_BUG:-}" ]; then
		# the reference's repair is known wrong here (the header)
		ref_clean "$T/$name.r.img" && fail "$name: the reference -fy is clean now: update the note"
		grep -q "$REF_BUG" <<<"$REF_CLEAN_OUT" || fail "$name: the reference no longer says '$REF_BUG'"
	else
		clean_but_opt "$T/$name.r.img" || fail "$name: the reference -fy did not repair it (premise)"
	fi

	cp "$img" "$T/$name.n.img"
	fsck_run "$name.n" 4 -fn "$T/$name.n.img"
	cmp -s "$img" "$T/$name.n.img" || fail "$name: e4fsck -fn changed the image"
	[ -n "$(facts "$T/$name.n.out")" ] || fail "$name: -fn names no shared block: $(cat "$T/$name.n.out")"
	[ "$(facts "$T/$name.n.out")" = "$(facts "$T/$name.refn")" ] ||
		fail "$name: -fn facts differ from the reference's:
$(diff <(facts "$T/$name.refn") <(facts "$T/$name.n.out"))"

	# -fp stops before cloning: the image is unchanged, or (where the
	# reference -fp also repairs a preen-safe field first) still holds
	# every shared block
	cp "$img" "$T/$name.p.img"
	fsck_run "$name.p" 4 -fp "$T/$name.p.img"
	cp "$img" "$T/$name.rp.img"
	"$REF_E2FSCK" -fp "$T/$name.rp.img" >/dev/null 2>&1 </dev/null
	if cmp -s "$img" "$T/$name.rp.img"; then
		cmp -s "$img" "$T/$name.p.img" || fail "$name: e4fsck -fp changed the image"
	else
		"$REF_E2FSCK" -fn "$T/$name.p.img" >"$T/$name.pn" 2>&1 </dev/null
		[ "$(facts "$T/$name.pn")" = "$(facts "$T/$name.refn")" ] ||
			fail "$name: e4fsck -fp changed the shared blocks"
	fi
	rm -f "$T/$name.rp.img"

	cp "$img" "$T/$name.y.img"
	fsck_run "$name.y" 1 -fy "$T/$name.y.img"
	grep -q "^Clone the shared blocks? yes" "$T/$name.y.out" || fail "$name: -fy cloned nothing"
	stop_sb "$T/$name.y.img"
	[ $((SB_STATE & 3)) = 1 ] || fail "$name: -fy left the state $SB_STATE (not clean)"
	clean_but_opt "$T/$name.y.img" || fail "$name: after e4fsck -fy the reference -fn says:
$REF_CLEAN_OUT"
	sums "$T/$name.r.img" | grep -qE '^[^ ]+ $' && fail "$name: a file of the reference's repair cannot be read (premise)"
	[ "$(sums "$T/$name.y.img")" = "$(sums "$T/$name.r.img")" ] ||
		fail "$name: contents differ from the reference's repair:
$(diff <(sums "$T/$name.r.img") <(sums "$T/$name.y.img"))"
	fsck_run "$name.y2" 8 -fy "$T/$name.y.img"
	! grep -q "claimed more than once" "$T/$name.y2.out" ||
		fail "$name: a second -fy still finds shared blocks"
	verbose "$name: $(facts "$T/$name.n.out" | tr '\n' ';') ($(elapsed)s)"
	crash "$name"
	[ -n "${KEEP:-}" ] || rm -f "$T/$name".[nypr].img
}

# crash NAME: e4fsck -fy on $T/NAME.img stopped at each of its writes
# (the crash-point layer; at most 30 stops, spread): the reference -fn on
# what a stop leaves finds no block in use but marked free, no block
# claimed twice beyond the damage planted, no size, count or checksum
# wrong, no block in use but free but those of the damage; a complete -fy run afterwards exits 0 or 1, is reference-clean
# and gives every file the content an uninterrupted run gives.
plus_items() {	# plus_items FILE: the "+" items of the bitmap differences, sorted
	grep 'bitmap differences:' "$1" | grep -oE '\+(\([0-9]+--[0-9]+\)|[0-9]+)' | sort
}
crash() {
	local name=$1 img=$T/$1.img w=$T/crash.img total n stops=() out
	cp "$img" "$w"
	rm -f "$T/trace"
	E4_CRASH_TRACE=$T/trace "$E4FSCK" -fy "$w" >/dev/null 2>&1
	total=$(wc -l <"$T/trace")
	sums "$w" >"$T/crash.want"
	facts "$T/$name.refn" | grep -v shares >"$T/crash.orig"
	if [ "$total" -le 30 ]; then
		for ((n = 1; n < total; n++)); do stops+=($n); done
	else
		for ((n = 0; n < 30; n++)); do stops+=($((1 + n * (total - 2) / 29))); done
	fi
	for n in "${stops[@]}"; do
		cp "$img" "$w"
		E4_CRASH_AFTER_WRITES=$n "$E4FSCK" -fy "$w" >/dev/null 2>&1
		[ $? = 137 ] || fail "$name: the stop after $n of $total writes did not happen"
		"$REF_E2FSCK" -fn "$w" >"$T/crash.ref" 2>&1 </dev/null
		out=$(grep -E 'i_size is|i_blocks is|checksum does not match|passes checks' \
			"$T/crash.ref" | grep -vxF -f <(grep -E 'i_size is|i_blocks is|checksum does not match' \
			"$T/$name.refn"))
		[ -z "$out" ] || fail "$name: stop after $n of $total writes: $out"
		# in use but marked free ("+" in pass 5): only what the damage had
		out=$(comm -13 <(plus_items "$T/$name.refn") <(plus_items "$T/crash.ref"))
		[ -z "$out" ] || fail "$name: stop after $n of $total writes: in use but free: $out"
		[ -z "$(comm -13 <(sort "$T/crash.orig") <(facts "$T/crash.ref" | grep -v shares | sort))" ] ||
			fail "$name: stop after $n of $total writes: blocks claimed twice beyond the damage: $(facts "$T/crash.ref")"
		stop_sb "$w"
		runcap "$T/crash.y" 30 "$E4FSCK" -fy "$w"
		# 4 also when the stop left the filesystem marked not clean
		# (without passes 2-4 this version leaves that state as it is),
		# 8 when the stop came after the last repair (found nothing)
		[ "$(cat "$T/crash.y.rc")" -le 1 ] ||
			{ [ "$(cat "$T/crash.y.rc")" = 4 ] && [ $((SB_STATE & 1)) = 0 ]; } ||
			{ [ "$(cat "$T/crash.y.rc")" = 8 ] && grep -q "found nothing to repair" "$T/crash.y.err"; } ||
			fail "$name: after the stop at $n of $total, -fy exits $(cat "$T/crash.y.rc")"
		clean_but_opt "$w" || fail "$name: stop at $n of $total, then -fy: the reference says $REF_CLEAN_OUT"
		[ "$(sums "$w")" = "$(cat "$T/crash.want")" ] ||
			fail "$name: stop at $n of $total, then -fy: contents differ from an uninterrupted run"
	done
	NSTOPS=$((NSTOPS + ${#stops[@]}))
}
NSTOPS=0

# ---- ext4, extents: two files ----
mkimg e4 ext4
cp "$T/e4.base" "$T/ext4_two.img"
dbgw "$T/ext4_two.img" "sif /f2 block[5] $(blk "$T/e4.base" /f1 2)"
check ext4_two

# ---- ext4: a file's data over the inode table ----
cp "$T/e4.base" "$T/ext4_meta.img"
itab=$("$REF_DUMPE2FS" "$T/e4.base" 2>/dev/null |
	sed -nE 's/.*Inode table at ([0-9]+)-([0-9]+).*/\2/p' | head -1)
[ -n "$itab" ] || fail "setup: no inode table location"
dbgw "$T/ext4_meta.img" "sif /d/g block[5] $((itab - 4))"
check ext4_meta
grep -q "<filesystem metadata>" "$T/ext4_meta.n.out" || fail "ext4_meta: metadata not named as a co-owner"

# ---- ext3, block maps: two files ----
mkimg e3 ext3
cp "$T/e3.base" "$T/ext3_two.img"
dbgw "$T/ext3_two.img" "sif /f2 block[1] $(blk "$T/e3.base" /f1 2)"
check ext3_two

# ---- ext3: two files on one indirect block ----
# /f3's single indirect pointer set to /f4's indirect block: the block and
# the 21 data blocks it maps are shared; /f3's map is rebuilt on a new
# indirect block over copies, its own old indirect and data blocks freed
cp "$T/e3.base" "$T/ext3_ind.img"
dbgw "$T/ext3_ind.img" "sif /f3 block[IND] $("$REF_DEBUGFS" -R "stat /f4" "$T/e3.base" 2>/dev/null |
	sed -nE 's/.*\(IND\):([0-9]+).*/\1/p')"
check ext3_ind

# ---- ext2: three files on one block ----
mkimg e2 ext2
cp "$T/e2.base" "$T/ext2_three.img"
b=$(blk "$T/e2.base" /f1 0)
dbgw "$T/ext2_three.img" "sif /f2 block[0] $b" "sif /f3 block[0] $b"
check ext2_three

# ---- ext4: a file's data over another file's xattr block ----
# /f1 (inode 14) names an xattr block (a 400-byte value); /s's only extent
# is moved onto it.  /f1 is settled first and gets a copy of the block
# (its count and checksum set for the new block number), /s keeps the
# original.  The reference 1.47.0 copies the block without rewriting its
# checksum (its own -fn then says "checksum does not match"): the value is
# compared with the undamaged image instead.
mkdir -p "$T/src2" && cp -r "$src"/. "$T/src2/"
head -c 500 < <(openssl enc -aes-128-ctr -pass pass:dups -nosalt </dev/zero 2>/dev/null) >"$T/src2/s"
"$REF_MKE2FS" -q -F -t ext4 -b 1024 -E root_owner=0:0 -d "$T/src2" "$T/x.base" 4M >/dev/null 2>&1 ||
	fail "mke2fs failed"
head -c 300 < <(openssl enc -aes-128-ctr -pass pass:dupv -nosalt </dev/zero 2>/dev/null) |
	base64 -w0 >"$T/val"
dbgw "$T/x.base" "ea_set -f $T/val /f1 user.big"
acl=$("$REF_DEBUGFS" -R "stat /f1" "$T/x.base" 2>/dev/null | sed -nE 's/.*File ACL: ([0-9]+).*/\1/p')
[ -n "$acl" ] && [ "$acl" != 0 ] || fail "setup: /f1 has no xattr block"
want=$("$REF_DEBUGFS" -R "ea_get /f1 user.big" "$T/x.base" 2>/dev/null | md5sum)
cp "$T/x.base" "$T/ext4_xattr.img"
dbgw "$T/ext4_xattr.img" "sif /s block[5] $acl"
FILES="$FILES /s" REF_BUG="checksum does not match" KEEP=1 check ext4_xattr
[ "$("$REF_DEBUGFS" -R "ea_get /f1 user.big" "$T/ext4_xattr.y.img" 2>/dev/null | md5sum)" = "$want" ] ||
	fail "ext4_xattr: /f1's attribute value changed: $("$REF_DEBUGFS" -R "ea_get /f1 user.big" "$T/ext4_xattr.y.img" 2>&1 | head -3)"
[ "$("$REF_DEBUGFS" -R "stat /f1" "$T/ext4_xattr.y.img" 2>/dev/null | sed -nE 's/.*File ACL: ([0-9]+).*/\1/p')" != "$acl" ] ||
	fail "ext4_xattr: /f1 still names the shared block"

# ---- metadata_csum: two extent trees naming one tree block ----
# Sparse files /f1 (inode 12) and /f2 (13), 7 extents each (a depth-1
# tree: one leaf).  csum_a: /f2's index entry names /f1's leaf; csum_b:
# /f1's names /f2's.  The leaf's checksum (keyed by inode number and
# generation) matches its owner only.  Pass 1 must not rewrite it for the
# other inode (that breaks it for the owner, and 1B-1D could not read the
# owner's tree): the checksum waits until 1D has cloned the tree of the
# first inode (new leaf, its own checksum) and is then set for the inode
# keeping the leaf.  Both files keep the contents their maps name (the
# damaged inode reads the other's data, as debugfs -n reads it before).
# The reference 1.47.0 rewrites the checksum for the second inode in
# pass 1, cannot walk the first inode's tree afterwards, fails to clone it
# and deletes /f1 (a reference bug: a file destroyed); so the result is
# judged by the rule, not against the reference's repair, and its 1B walks
# the tree it cannot read (-fn: both inodes hold the 13 blocks).
mkdir -p "$T/src3"
# sparse FILE SEED RUNS STRIDE LEN: RUNS runs of LEN bytes of seeded data,
# one every STRIDE bytes (holes between them)
sparse() {
	"$PYTHON" - "$@" <<'PY'
import random, sys
path, seed, runs, stride, size = sys.argv[1], *map(int, sys.argv[2:])
r = random.Random(seed)
with open(path, "wb") as f:
    for i in range(runs):
        f.seek(i * stride)
        f.write(bytes(r.getrandbits(8) for _ in range(size)))
PY
}
sparse "$T/src3/f1" 1 6 8192 2048
sparse "$T/src3/f2" 2 6 8192 2048
"$REF_MKE2FS" -q -F -t ext4 -O metadata_csum -b 1024 -E root_owner=0:0 -d "$T/src3" \
	"$T/cs.base" 4M >/dev/null 2>&1 || fail "mke2fs failed"
leaf() {	# leaf PATH: the tree block of PATH (depth 1)
	"$REF_DEBUGFS" -R "stat $1" "$T/cs.base" 2>/dev/null | sed -nE 's/.*\(ETB0\):([0-9]+).*/\1/p'
}
l1=$(leaf /f1) l2=$(leaf /f2)
[ -n "$l1" ] && [ -n "$l2" ] || fail "setup: the files have no tree block"
csum_case() {	# csum_case NAME DAMAGED-INODE'S-PATH LEAF
	local name=$1 img=$T/$1.img f
	cp "$T/cs.base" "$img"
	dbgw "$img" "sif $2 block[4] $3"
	"$REF_E2FSCK" -fn "$img" >"$T/$name.refn" 2>&1 </dev/null
	grep -q "checksum does not match" "$T/$name.refn" || fail "$name: no checksum damage (premise)"
	# what each file reads before the repair (checksums not checked)
	for f in /f1 /f2; do
		rm -f "$T/dump"
		"$REF_DEBUGFS" -n -R "dump $f $T/dump" "$img" >/dev/null 2>&1
		echo "$f $(md5sum <"$T/dump" | cut -c1-32)"
	done >"$T/$name.want"
	grep -q " d41d8cd98f00b204e9800998ecf8427e$" "$T/$name.want" && fail "$name: a file reads empty (premise)"
	cp "$img" "$T/$name.n.img"
	fsck_run "$name.n" 4 -fn "$T/$name.n.img"
	cmp -s "$img" "$T/$name.n.img" || fail "$name: e4fsck -fn changed the image"
	# pass 1 names the inode the reference names (the damaged one), and
	# -fy no other (the reference's -fy names both on csum_b)
	[ "$(sed -nE "s/^Inode ([0-9]+)'s extent tree node at block .* fails its checksum.*/\1/p" \
		"$T/$name.n.out")" = "$(sed -nE 's/^Inode ([0-9]+) extent block passes checks.*/\1/p' \
		"$T/$name.refn")" ] || fail "$name: pass 1's checksum rows differ from the reference's"
	[ "$(facts "$T/$name.n.out" | grep -c ": $3 ")" = 2 ] ||
		fail "$name: 1B does not walk both trees: $(facts "$T/$name.n.out")"
	cp "$img" "$T/$name.y.img"
	fsck_run "$name.y" 1 -fy "$T/$name.y.img"
	grep -q "^Clone the shared blocks? yes" "$T/$name.y.out" || fail "$name: -fy cloned nothing"
	[ "$(grep -c "fails its checksum" "$T/$name.y.out")" = 1 ] ||
		fail "$name: -fy finds more than the damaged inode's checksum wrong"
	ref_clean "$T/$name.y.img" || fail "$name: after e4fsck -fy the reference -fn says:
$REF_CLEAN_OUT"
	[ "$(FILES="/f1 /f2" sums "$T/$name.y.img")" = "$(cat "$T/$name.want")" ] ||
		fail "$name: contents changed: $(FILES="/f1 /f2" sums "$T/$name.y.img" | tr '\n' ' ')"
	FILES="/f1 /f2" crash "$name"
}
csum_case csum_a /f2 "$l1"
csum_case csum_b /f1 "$l2"

# ---- ext4: a two-level extent tree sharing blocks ----
# /f1: 400 extents of 2 blocks with 1-block holes (a depth-2 tree: five
# leaves of 83 entries under a tree block under the root); /f2's extent
# (6 blocks) moved onto /f1's second block on: it covers parts of two of
# /f1's extents, so /f1's remap onto copies adds 2 entries to a leaf that
# holds one more at most: the leaf splits, and the tree block above it,
# which the inode on disk already names, gets the new leaf.  Every write
# a stop: the new leaf must be marked in the bitmap before any block the
# device holds names it.
mkdir -p "$T/src4"
sparse "$T/src4/f1" 7 400 3072 2048
sparse "$T/src4/f2" 8 1 0 6144
"$REF_MKE2FS" -q -F -t ext4 -b 1024 -E root_owner=0:0 -d "$T/src4" "$T/deep.img" 4M \
	>/dev/null 2>&1 || fail "mke2fs failed"
[ "$("$REF_DEBUGFS" -R "ex /f1" "$T/deep.img" 2>/dev/null | awk '$1 == "0/" && $2 == "2" {n++} END {print n+0}')" = 1 ] ||
	fail "setup: /f1's tree is not two levels deep"
dbgw "$T/deep.img" "sif /f2 block[5] $(blk "$T/deep.img" /f1 1)"
# the leaf count the split leaves makes the reference offer a narrower
# tree (exit 0), after its own repair as after e4fsck's
FILES="/f1 /f2" REF_OPT="extent tree \\(at level 2\\) could be narrower" check deep

# ---- bigalloc: a file with a tree block sharing a cluster ----
# 16-block clusters; /f1: 8 extents of 4 blocks, each in a cluster of its
# own, under a tree block; /f2's extent moved onto /f1's first cluster.
# /f1 gets a new cluster for it (the 4 blocks at their offsets) and its
# tree rebuilt aside (i_blocks: whole clusters, as before), as the
# reference's repair reads; every write a stop.
mkdir -p "$T/src5"
sparse "$T/src5/f1" 11 8 49152 4096
sparse "$T/src5/f2" 12 1 0 4096
"$REF_MKE2FS" -q -F -t ext4 -O bigalloc,^has_journal -C 16384 -b 1024 -E root_owner=0:0 \
	-d "$T/src5" "$T/ext4_ba.img" 8M >/dev/null 2>&1 || fail "mke2fs -O bigalloc failed"
dbgw "$T/ext4_ba.img" "sif /f2 block[5] $(blk "$T/ext4_ba.img" /f1 0)"
FILES="/f1 /f2" check ext4_ba

# ---- the corpus images with blocks claimed twice ----
# e4fsck -fn names the same inodes, blocks and co-owner counts as the
# reference -fn; -fy then leaves no block claimed twice (the reference
# -fn after it).
# f_extents: the reference counts <filesystem metadata> among inode 17's
# co-owners because its metadata flag is never reset between inodes (a
# reference bug: only inode 13's blocks are metadata); e4fsck counts 1.
ncorp=0
for c in f_dup f_dup2 f_dup3 f_dup4 f_dupfsblks f_bbfile f_dup_resize f_dup_ba f_extents f_extents2; do
	src_img=$(corpus_unpack "fsck/$c.img.gz") || fail "$c: corpus image missing"
	cp "$src_img" "$T/c.img"
	"$REF_E2FSCK" -fn "$T/c.img" >"$T/c.refn" 2>&1 </dev/null
	runcap "$T/c.n" 30 "$E4FSCK" -fn "$T/c.img"
	san_report "$T/c.n.err" && fail "$c -fn: sanitizer report"
	[ "$(cat "$T/c.n.rc")" = 4 ] || fail "$c: -fn exits $(cat "$T/c.n.rc")"
	want=$(facts "$T/c.refn")
	[ "$c" != f_extents ] || want=$(sed 's/^17 shares with 2$/17 shares with 1/' <<<"$want")
	[ "$(facts "$T/c.n.out")" = "$want" ] ||
		fail "$c: -fn facts differ from the reference's: $(diff <(echo "$want") <(facts "$T/c.n.out") | tr '\n' ' ')"
	runcap "$T/c.y" 30 "$E4FSCK" -fy "$T/c.img"
	san_report "$T/c.y.err" && fail "$c -fy: sanitizer report"
	[ "$(cat "$T/c.y.rc")" -lt 8 ] || fail "$c: -fy exits $(cat "$T/c.y.rc")"
	"$REF_E2FSCK" -fn "$T/c.img" >"$T/c.after" 2>&1 </dev/null
	! grep -q "Multiply-claimed" "$T/c.after" || fail "$c: -fy left blocks claimed twice"
	if [ $c = f_dup_ba ]; then
		# bigalloc: /5's five shared clusters cloned cluster by cluster
		# (each logical cluster into one new cluster, offsets kept), as
		# the reference does: reference-clean, the kernel mounts it, and
		# every file reads as after the reference's -fy; every write a
		# stop
		cp "$src_img" "$T/f_dup_ba.r.img"
		"$REF_E2FSCK" -fy "$T/f_dup_ba.r.img" >/dev/null 2>&1 </dev/null
		clean_but_opt "$T/c.img" || fail "$c: after e4fsck -fy the reference -fn says: $REF_CLEAN_OUT"
		fsck_result_mounts "$T/c.img" "$c -fy"
		ba_files="/1 /2 /3 /4 /5 /6 /7 /8 /9 /10"
		[ "$(FILES=$ba_files sums "$T/c.img")" = "$(FILES=$ba_files sums "$T/f_dup_ba.r.img")" ] ||
			fail "$c: contents differ from the reference's repair"
		cp "$src_img" "$T/f_dup_ba.img"
		cp "$T/c.refn" "$T/f_dup_ba.refn"
		FILES=$ba_files crash f_dup_ba
	fi
	ncorp=$((ncorp + 1))
done

info "ok (10 images, $NSTOPS stops, $ncorp corpus images; $(elapsed)s)"
