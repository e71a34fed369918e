#!/bin/bash
# fsck_free_counts: free counts are recounted from the bitmaps, never
# zeroed (issue 11 item 6).  A group's free blocks or inodes count that
# disagrees with its bitmap is set to the bitmap's count; the superblock's
# totals become the groups' sums.  A bitmap that is not evidence is not
# believed: a count an uninit flag contradicts, or one beyond the group's
# size, is damage (the flag or the count is wrong: exit 4, nothing
# written).
#
#  image: 32 MiB, 1 KiB blocks, 4 groups (group 1 BLOCK_UNINIT and
#  INODE_UNINIT, groups 2-3 INODE_UNINIT, the journal in group 2).
#  counts, edited with debugfs (checksums recomputed):
#    group 0 free blocks 100 (too few), free inodes 2040 (too many)
#    group 2 free blocks 8000 (too many: the journal's blocks are in use)
#    superblock free blocks 5, free inodes 3
#  -n: exit 4, each group named with both counts, image unchanged
#  -p, -y: exit 1; every count back to mke2fs's (dumpe2fs compared with the
#  unedited image), reference e2fsck -fn clean, the kernel mounts it.
#  uninit: group 1 free blocks 0 (BLOCK_UNINIT), group 3 free inodes 7
#  and unused inodes 0 (INODE_UNINIT; 2048 unused would be a bound
#  fault): the synthesised bitmap is only the flag again, and either may
#  be the damaged one (a stray BLOCK_UNINIT on the journal's group would
#  count the journal free): pass 0 writes nothing; the full check counts
#  what pass 1 finds in use (group 3's inode table read whole): -n exit 4,
#  unchanged; -p, -y exit 1, mke2fs's counts back, reference -fn clean.
#  toobig: group 2 free blocks 60000 (more than the group holds): damage;
#  the primary table is kept (its locations are sound) and pass 5 counts
#  it: -n exit 4, unchanged; -p, -y exit 1 as uninit.
#  zeroed: group 0's block bitmap zeroed (no metadata_csum): a bitmap that
#  marks the group's own metadata free is not believed: pass 0 leaves it to
#  the full check, which the problem makes due: pass 5 rebuilds the bitmap
#  from what pass 1 found (exit 1), the counts untouched, the reference
#  e2fsck -fn clean afterwards.
#
# Bugs caught: a count too large was set to 0 ("the full check recounts"),
# which e2fsck then finds wrong; a count too small was not seen at all
# (exit 0 "clean" while e2fsck -fn says "Free blocks count wrong for group
# #1"); a count an uninit flag contradicts was "recounted" from the flag
# (set_bg 2 flags 3 with its checksum, then -p: the journal's blocks
# counted free, exit 1, and the kernel allocates over the journal).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_MKE2FS" "$REF_DEBUGFS" "$REF_DUMPE2FS" "$REF_E2FSCK"
export E2FSCK_CONFIG=/dev/null TZ=UTC

counts() {	# counts IMG: superblock and group free counts
	"$REF_DUMPE2FS" "$1" 2>/dev/null | grep -E '^Free (blocks|inodes):|free blocks,'
}

run() {	# run NAME IMG MODE WANT_RC
	local rc
	runcap "$T/$1.$3" 30 "$E4FSCK" -$3 "$2"
	rc=$(cat "$T/$1.$3.rc")
	san_report "$T/$1.$3.err" && fail "$1 -$3: sanitizer report"
	[ "$rc" = "$4" ] || {
		cat "$T/$1.$3.out" "$T/$1.$3.err" >&2
		fail "$1 -$3: $(describe_rc "$rc"), expected $4"
	}
}

orig=$T/orig.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$orig" 32M >/dev/null 2>&1 || fail "mke2fs failed"
want=$(counts "$orig")
img=$T/counts.img
cp "$orig" "$img"
"$REF_DEBUGFS" -w -f - "$img" >/dev/null 2>&1 <<'EOF' || fail "debugfs failed"
set_bg 0 free_blocks_count 100
set_bg 0 free_inodes_count 2040
set_bg 0 checksum calc
set_bg 2 free_blocks_count 8000
set_bg 2 checksum calc
ssv free_blocks_count 5
ssv free_inodes_count 3
EOF
[ "$(counts "$img")" != "$want" ] || fail "the edits did not change the counts"

cp "$img" "$T/n.img"
run counts "$T/n.img" n 4
for pat in "Group 0's free blocks count is 100; its block bitmap says 5865" \
	"Group 0's free inodes count is 2040; its inode bitmap says 2037" \
	"Group 2's free blocks count is 8000; its block bitmap says 4096"; do
	grepq -F "$pat" "$T/counts.n.out" || fail "counts -n: no '$pat': $(cat "$T/counts.n.out")"
done
cmp -s "$img" "$T/n.img" || fail "counts -n: the image changed"

for mode in p y; do
	cp "$img" "$T/$mode.img"
	run counts "$T/$mode.img" $mode 1
	fsck_result_mounts "$T/$mode.img" "counts -$mode"
	[ "$(counts "$T/$mode.img")" = "$want" ] ||
		fail "counts -$mode: counts differ from mke2fs's: $(diff <(echo "$want") <(counts "$T/$mode.img"))"
	ref_clean "$T/$mode.img" || fail "counts -$mode: reference -fn not clean: $REF_CLEAN_OUT"
done

# uninit, toobig: counts that are damage, not to be recounted from the
# bitmaps; the full check counts what pass 1 finds in use instead
damaged() {	# damaged NAME PATTERN SET_BG...: -n exit 4, nothing written;
		# -p, -y exit 1 with mke2fs's counts back
	local name=$1 pat=$2 mode a
	shift 2
	cp "$orig" "$T/$name.img"
	for a in "$@"; do
		printf 'set_bg %s\nset_bg %s checksum calc\n' "$a" "${a%% *}"
	done | "$REF_DEBUGFS" -w -f - "$T/$name.img" >/dev/null 2>&1 || fail "$name: debugfs failed"
	for mode in n p y; do
		cp "$T/$name.img" "$T/$name.$mode.img"
		run $name "$T/$name.$mode.img" $mode $([ $mode = n ] && echo 4 || echo 1)
		grepq -F "$pat" "$T/$name.$mode.out" ||
			fail "$name -$mode: no '$pat': $(cat "$T/$name.$mode.out")"
		if [ $mode = n ]; then
			cmp -s "$T/$name.img" "$T/$name.$mode.img" || fail "$name -n: the image changed"
			continue
		fi
		fsck_result_mounts "$T/$name.$mode.img" "$name -$mode"
		# (an unused inodes count below mke2fs's is sound: left)
		[ "$(counts "$T/$name.$mode.img" | sed 's/, [0-9]* unused inodes$//')" = \
			"$(sed 's/, [0-9]* unused inodes$//' <<<"$want")" ] ||
			fail "$name -$mode: counts differ from mke2fs's: $(diff <(echo "$want") <(counts "$T/$name.$mode.img"))"
		ref_clean "$T/$name.$mode.img" || fail "$name -$mode: reference -fn not clean: $REF_CLEAN_OUT"
	done
}
damaged uninit "Group 1 is marked BLOCK_UNINIT, but its free blocks count is 0 where that flag means 7935" \
	"1 free_blocks_count 0" "3 free_inodes_count 7" "3 itable_unused 0"
grepq -F "Group 3 is marked INODE_UNINIT, but its free inodes count is 7 where that flag means 2048" \
	"$T/uninit.p.out" || fail "uninit -p: group 3 not said: $(cat "$T/uninit.p.out")"
damaged toobig "Group 2's free blocks count is 60000; at most 8192 allowed" "2 free_blocks_count 60000"

# zeroed: group 0's block bitmap block full of zeros
img=$T/zero.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 -O ^metadata_csum "$img" 32M >/dev/null 2>&1 || fail "mke2fs failed"
bb=$("$REF_DUMPE2FS" "$img" 2>/dev/null | sed -n '/^Group 0:/,/^Group 1:/s/.*Block bitmap at \([0-9]*\).*/\1/p')
[ -n "$bb" ] || fail "zeroed: no block bitmap location"
dd if=/dev/zero of="$img" bs=1024 seek="$bb" count=1 conv=notrunc status=none
before=$(counts "$img")
run zeroed "$img" p 1
grepq -F "Group 0's free counts cannot be checked against its bitmaps (Block bitmap marks the group's own metadata as free)" \
	"$T/zeroed.p.out" || fail "zeroed: not said: $(cat "$T/zeroed.p.out")"
[ "$(counts "$img")" = "$before" ] || fail "zeroed: counts changed from a zeroed bitmap"
ref_clean "$img" || fail "zeroed -p: the bitmap was not rebuilt: $REF_CLEAN_OUT"
fsck_result_mounts "$img" "zeroed -p"

info "free counts: recounted from the bitmaps, never zeroed ($(elapsed)s)"
exit 0
