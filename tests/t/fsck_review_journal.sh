#!/bin/bash
# fsck_review_journal: defects a hostile review found in e4fsck's journal
# and reserved-inode checks.
#
# Journal whose block map has a hole (every logical block below i_size
# must map to a block inside the filesystem; jbd2 aborts the journal at
# the first write reaching a hole, e2fsck calls it an invalid journal):
#
#  case        image, damage                              -n  -y  -p
#  ext3_hole   ext3, i_block[5] zeroed (block map)         4   1   1
#  ext4_hole   ext4, last extent 7 blocks short            4   1   -
#  ext3_log    ext3, a committed transaction (debugfs      4   4   4
#              jo/jw/jc, needs_recovery set), hole at
#              logical block 900 (an indirect block entry)
#  ext3_noflag the same with needs_recovery cleared        4   4   -
#
# An empty journal with a hole is removed and, after the full check, a new
# journal is created (as the reference e2fsck -fy does: "Recreate
# journal"): exit 1, the reference -fn clean, and a read-write kernel
# mount survives a few mkdirs (before, the kernel aborted the journal at
# the first mkdir: "journal bmap failed", read-only).  A log holding
# committed transactions is never discarded by a default answer: -y and
# -p leave it (exit 4), needs_recovery and the journal inode unchanged.
# -n writes nothing (sha256).
# Catches: a pass 0 that trusts the journal inode's map without walking
# it (the state before this test: -y "fixed" i_blocks, freed the hole's
# old block and exited 1 on a filesystem the reference -fn calls invalid,
# exit 12).  Checked by reverting fsck/pass0_journal.c and
# lib/e4/journal.c: ext3_hole -y fails "reference -fn not clean".

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_E2FSCK" "$REF_DEBUGFS" "$REF_MKE2FS" "$REF_DUMPE2FS"
export E2FSCK_CONFIG=/dev/null TZ=UTC E2FSCK_TIME=2000000000

mkdir -p "$T/tree/d1"
for i in $(seq 1 30); do echo "file$i" >"$T/tree/f$i"; done

# base IMG TYPE: 4 MiB, 1 KiB blocks, 30 files.
base() {
	rm -f "$1"
	truncate -s 4M "$1"
	"$REF_MKE2FS" -q -F -t "$2" -E root_owner=0:0 \
		-U 6b33f586-a183-4d18-a7e6-4c5ad1b8e9f1 -d "$T/tree" "$1" >/dev/null 2>&1 ||
		fail "mke2fs -t $2 failed"
}

dbgw() { "$REF_DEBUGFS" -w -R "$2" "$1" >/dev/null 2>&1 || fail "debugfs $2 failed"; }

features() { "$REF_DUMPE2FS" -h "$1" 2>/dev/null | grep '^Filesystem features:'; }

# rw_mount_works IMG WHAT: a read-write kernel mount survives mkdirs and
# unmounts without journal errors; the reference -fn is clean afterwards.
rw_mount_works() {
	local img=$1 what=$2 dir=$T/mnt i
	need_root_loop
	mount_loop "$img" "$dir" || fail "$what: the kernel does not mount the result read-write"
	for i in 1 2 3 4; do
		mkdir "$dir/new$i" 2>/dev/null || fail "$what: mkdir after the repair failed"
	done
	sync
	awk -v d="$dir" '$2 == d { print $4 }' /proc/mounts | grep -q '^rw' ||
		fail "$what: the mount went read-only (journal aborted?)"
	umount_retry "$dir"
	ref_clean "$img" || fail "$what: reference -fn not clean after the kernel's writes: $REF_CLEAN_OUT"
}

# check CASE IMG: -n, -y, -p on copies of IMG with the expected statuses.
check() {
	local name=$1 img=$2 wn=$3 wy=$4 wp=$5 sum
	cp "$img" "$T/$name.n.img"
	sum=$(sha256sum <"$T/$name.n.img")
	fsck_run "$name.n" "$wn" -fn "$T/$name.n.img"
	[ "$(sha256sum <"$T/$name.n.img")" = "$sum" ] || fail "$name -n: the image changed"
	grepq 'journal (inode 8) is invalid' "$T/$name.n.out" || fail "$name -n: the hole is not reported"
	cp "$img" "$T/$name.y.img"
	fsck_run "$name.y" "$wy" -fy "$T/$name.y.img"
	if [ "$wp" != - ]; then
		cp "$img" "$T/$name.p.img"
		fsck_run "$name.p" "$wp" -fp "$T/$name.p.img"
	fi
}

# ---- empty journals with a hole: removed, recreated ----
base "$T/b3.img" ext3
cp "$T/b3.img" "$T/h3.img"
dbgw "$T/h3.img" 'sif <8> block[5] 0'
dbgw "$T/h3.img" 'ssv jnl_backup_type 0'
check ext3_hole "$T/h3.img" 4 1 1
for m in y p; do
	ref_clean "$T/ext3_hole.$m.img" || fail "ext3_hole -$m: reference -fn not clean: $REF_CLEAN_OUT"
	features "$T/ext3_hole.$m.img" | grep -qw has_journal ||
		fail "ext3_hole -$m: no journal was recreated"
done
rw_mount_works "$T/ext3_hole.y.img" "ext3_hole -y"

base "$T/b4.img" ext4
cp "$T/b4.img" "$T/h4.img"
# the third extent of the journal (i_block bytes 36-47): ee_len 1000
dbgw "$T/h4.img" 'sif <8> block[10] 1000'
dbgw "$T/h4.img" 'ssv jnl_backup_type 0'
check ext4_hole "$T/h4.img" 4 1 -
ref_clean "$T/ext4_hole.y.img" || fail "ext4_hole -y: reference -fn not clean: $REF_CLEAN_OUT"
features "$T/ext4_hole.y.img" | grep -qw has_journal || fail "ext4_hole -y: no journal"
rw_mount_works "$T/ext4_hole.y.img" "ext4_hole -y"

# ---- committed transactions and a hole past them: left ----
cp "$T/b3.img" "$T/l3.img"
printf 'jo\njw -b 300-305 /dev/zero\njc\n' >"$T/cmds"
"$REF_DEBUGFS" -w -f "$T/cmds" "$T/l3.img" >/dev/null 2>&1 || fail "debugfs jw failed"
dbgw "$T/l3.img" 'ssv jnl_backup_type 0'
# logical 900 is entry 120 of the indirect block mapping 780-1023
ind=$("$REF_DEBUGFS" -R 'stat <8>' "$T/l3.img" 2>/dev/null | sed -n 's/.*(IND):\([0-9]*\), (780-.*/\1/p')
[ -n "$ind" ] || fail "no indirect block for journal blocks 780-1023"
printf '\0\0\0\0' | dd of="$T/l3.img" bs=1 seek=$((ind * 1024 + 120 * 4)) conv=notrunc 2>/dev/null
features "$T/l3.img" | grep -qw needs_recovery || fail "setup: needs_recovery not set"
check ext3_log "$T/l3.img" 4 4 4
for m in y p; do
	features "$T/ext3_log.$m.img" | grep -qw needs_recovery ||
		fail "ext3_log -$m: needs_recovery was cleared (the log discarded)"
	cmp -s <("$REF_DEBUGFS" -R 'stat <8>' "$T/l3.img" 2>/dev/null | grep -A3 BLOCKS) \
		<("$REF_DEBUGFS" -R 'stat <8>' "$T/ext3_log.$m.img" 2>/dev/null | grep -A3 BLOCKS) ||
		fail "ext3_log -$m: the journal inode's map changed"
done
cp "$T/l3.img" "$T/f3.img"
dbgw "$T/f3.img" 'feature -needs_recovery'
check ext3_noflag "$T/f3.img" 4 4 -
grepq 'log holds committed transactions' "$T/ext3_noflag.y.out" ||
	fail "ext3_noflag -y: not said why the journal is kept"
info "journals with a hole: empty ones removed and recreated (reference clean, kernel mkdirs work), committed logs left (exit 4), -n writes nothing"
exit 0
