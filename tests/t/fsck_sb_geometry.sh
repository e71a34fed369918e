#!/bin/bash
# fsck_sb_geometry: superblock fields the geometry fixes are repaired also
# on a one-group filesystem, where no backup superblock exists: e4fsck
# recomputes them and says so (issue 11 item 8).
#
#  image: 4 MiB, 1 KiB blocks, one group (8192 blocks per group, 1024
#  inodes); one field set with debugfs ssv per case:
#    inodes_count 100, blocks_per_group 0, clusters_per_group 7,
#    inodes_per_group 0, first_data_block 0, first_ino 3,
#    min_extra_isize 1000, want_extra_isize 200 (the kernel refuses both:
#    "bad s_min_extra_isize"; mke2fs's 32 for 256-byte inodes)
#  -n: exit 4, "The superblock's <field> is <bad>; the geometry says
#  <good>", nothing written.  -p (and -y for one case): exit 1, the six
#  geometry fields as mke2fs wrote them, reference e2fsck -fn clean, the
#  kernel mounts it.
#
#  r_blocks_count 70000, checksum_type 7, orphan_file without its inode:
#  nothing recomputes them and no backup exists: -n and -p exit 8 naming
#  the field, nothing written (e2fsck exits 8 too; the kernel refuses the
#  last two; before, e4fsck called all five "clean").
# Bugs caught: every case but one ended "no usable superblock" (exit 8);
# first_data_block 0 with 1 KiB blocks was accepted as "clean" although
# the kernel refuses it ("first data block is 0 with a 1k block and
# cluster size") and the reference rejects it.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_MKE2FS" "$REF_DEBUGFS" "$REF_DUMPE2FS" "$REF_E2FSCK"
export E2FSCK_CONFIG=/dev/null TZ=UTC

geometry() {	# geometry IMG: the fields the geometry decides
	"$REF_DUMPE2FS" -h "$1" 2>/dev/null |
		grep -E '^(Inode count|Block count|First block|Blocks per group|Fragments per group|Inodes per group|First inode|Required extra isize|Desired extra isize):'
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
"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$orig" 4M >/dev/null 2>&1 || fail "mke2fs failed"
want=$(geometry "$orig")
grepq "^Inode count: *1024$" <<<"$want" || fail "unexpected geometry: $want"

while read -r field bad name good; do
	img=$T/$field.img
	cp "$orig" "$img"
	"$REF_DEBUGFS" -w -R "ssv $field $bad" "$img" >/dev/null 2>&1 || fail "$field: debugfs failed"
	[ "$(geometry "$img")" != "$want" ] || fail "$field: ssv changed nothing"
	msg="The superblock's ${name//_/ } is $bad; the geometry says $good"
	cp "$img" "$T/n.img"
	run $field "$T/n.img" n 4
	grepq -F "$msg" "$T/$field.n.out" || fail "$field -n: no '$msg': $(cat "$T/$field.n.out")"
	cmp -s "$img" "$T/n.img" || fail "$field -n: the image changed"
	for mode in p $([ $field = inodes_count ] && echo y); do
		cp "$img" "$T/$mode.img"
		run $field "$T/$mode.img" $mode 1
		grepq -F "$msg" "$T/$field.$mode.out" || fail "$field -$mode: not said"
		fsck_result_mounts "$T/$mode.img" "$field -$mode"
		[ "$(geometry "$T/$mode.img")" = "$want" ] ||
			fail "$field -$mode: geometry differs: $(diff <(echo "$want") <(geometry "$T/$mode.img"))"
		ref_clean "$T/$mode.img" || fail "$field -$mode: reference -fn not clean: $REF_CLEAN_OUT"
	done
done <<'EOF'
inodes_count 100 inode_count 1024
blocks_per_group 0 blocks_per_group 8192
clusters_per_group 7 clusters_per_group 8192
inodes_per_group 0 inodes_per_group 1024
first_data_block 0 first_data_block 1
first_ino 3 first_inode 11
min_extra_isize 1000 minimum_extra_inode_size 32
want_extra_isize 200 wanted_extra_inode_size 32
EOF

# fields no geometry decides and no backup restores: exit 8, one clear
# message, nothing written
while IFS='|' read -r what msg; do
	img=$T/x.img
	cp "$orig" "$img"
	"$REF_DEBUGFS" -w -R "$what" "$img" >/dev/null 2>&1 || fail "$what: debugfs failed"
	for mode in n p; do
		cp "$img" "$T/$mode.img"
		run "x" "$T/$mode.img" $mode 8
		grepq -F "$msg while trying to open the filesystem" "$T/x.$mode.err" ||
			fail "$what -$mode: no '$msg': $(cat "$T/x.$mode.err")"
		cmp -s "$img" "$T/$mode.img" || fail "$what -$mode: the image changed"
	done
done <<'EOF'
ssv r_blocks_count 70000|Reserved blocks count (s_r_blocks_count) is more than half the blocks
ssv checksum_type 7|Unknown metadata checksum algorithm (s_checksum_type is not crc32c)
feature orphan_file|The orphan_file feature is set but s_orphan_file_inum names no inode
EOF

info "one-group superblock: geometry fields recomputed and said ($(elapsed)s)"
exit 0
