#!/bin/bash
# fsck_super: superblock-level problems of e4fsck's problem table, each
# made with a few bytes or a reference debugfs command on a fresh image:
#
#  case            problem                              -n   -p   after -p
#  gd_csum         descriptor 1's bg_checksum wrong      4    1    ref -fn clean
#  recover_nojnl   needs_recovery without a journal      4    1    ref -fn clean
#  jnl_nofeature   has_journal clear, journal inode 8    4    1    ref -fn clean
#                  still there (journal removed)
#  errors          s_state has ERROR_FS                  4    4    (full check due)
#  orphan_bad      s_last_orphan = 5 (< s_first_ino)     0    4    s_last_orphan 0
#  orphan_loop     two unlinked orphans linked to each     0    4    both freed once
#                  other (12 -> 13 -> 12)
#  orphan_blk      an orphan whose extent points past      0    4    ref -fn: no crash
#                  the end of the filesystem
#  in_use          the image is loop-mounted             0    8    unchanged
#
# Descriptors (32 MiB, the journal in group 2; -n, -p, -y all exit 4 and
# write nothing: possible damage is the full check's):
#  gd_flags_stale  set_bg 2 flags 3 (BLOCK_UNINIT on the journal's group),
#                  stale checksum: not confirmed by the backup copy
#  gd_flags_calc   the same, checksum recomputed: the count contradicts
#                  the flag
#  gd_dirs         group 0 used_dirs 65535 (checksum recomputed)
#  gd_unused       group 0 itable_unused 65535: the backup copy is used
#  gd_csum_used    (16 MiB) written by the kernel, then bg_checksum
#                  damaged: every field confirmed (backup, bitmaps,
#                  inodes): -p exit 1, reference -fn clean; then
#  gd_dirs_stale   used_dirs 3 of 4 with a stale checksum: exit 4
# Superblock fields the kernel refuses at mount (ssv on 16 MiB): r_blocks
# 70000, log_groups_per_flex 255, min/want_extra_isize 1000, checksum_type
# 7, orphan_file without its inode: the backup is used (-n 4, -p 4 with
# the primary rewritten, reference -fn clean after); e4debugfs -c and
# e4tune -l still open the damaged image.
# Before: each of these exited 1 or 0 ("clean"); gd_flags_stale -p
# rewrote the checksum and counted the journal's blocks free (the kernel
# then allocates over the journal).
#
# (-n never changes the image: sha256 compared.)  Every run that exits 0
# or 1 leaves an image the kernel mounts (tests/lib.sh kernel_mounts).  ERROR_FS and a broken
# orphan list need the full check, of which e4fsck runs passes 1 and 5
# only: exit 4 (the recorded error state is left), "check forced", and
# the notice that passes 2-4 did not run.  The orphan list is not read
# with -n (as the reference), so -n finds nothing there.
# Catches: an orphan release that leaves i_dtime holding the list link, so
# the loop 12 -> 13 -> 12 comes back to 12 (orphan_loop -p then lacks the
# "in the orphaned inode list" report).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_e4tune
need_e4debugfs
need_oracle "$REF_E2FSCK" "$REF_DEBUGFS" "$REF_MKE2FS" "$PYTHON"
[ -x "$E4FSCK" ] || fail "e4fsck not found: $E4FSCK"
export E2FSCK_CONFIG=/dev/null TZ=UTC
E2FSCK_TIME=$(($(date +%s) + 3600))
export E2FSCK_TIME

check() {	# check NAME IMG MODE WANT_RC GREP
	local name=$1 img=$2 mode=$3 want=$4 pat=$5 rc
	runcap "$T/$name.$mode" 30 "$E4FSCK" -$mode "$img"
	rc=$(cat "$T/$name.$mode.rc")
	san_report "$T/$name.$mode.err" && fail "$name -$mode: sanitizer report"
	[ "$rc" = "$want" ] || {
		cat "$T/$name.$mode.out" "$T/$name.$mode.err" >&2
		fail "$name -$mode: $(describe_rc "$rc"), expected $want"
	}
	[ -z "$pat" ] || grepq "$pat" "$T/$name.$mode.out" "$T/$name.$mode.err" ||
		fail "$name -$mode: no message matching '$pat': $(cat "$T/$name.$mode.out")"
	# a result called clean or repaired mounts (not the image mounted
	# on purpose by the in_use case)
	[ "$rc" -gt 1 ] || [ "$name" = in_use ] || fsck_result_mounts "$img" "$name -$mode"
}

fresh() {	# fresh IMG [FEATURES]
	"$REF_MKE2FS" -q -F -t ext4 -b 1024 ${2:+-O "$2"} "$1" 16M >/dev/null 2>&1 || fail "mke2fs failed"
}

# gd_csum: descriptor 1 (64-byte descriptors at block 2), bg_checksum at 0x1E
img=$T/gd.img
fresh "$img"
"$PYTHON" -c "
f = open('$img', 'r+b'); f.seek(2 * 1024 + 64 + 0x1E); f.write(b'\x12\x34')"
sum=$(sha256sum <"$img")
check gd_csum "$img" n 4 "Group descriptor 1 fails its checksum"
[ "$(sha256sum <"$img")" = "$sum" ] || fail "gd_csum -n: image changed"
check gd_csum "$img" p 1 "FIXED"
ref_clean "$img" || fail "gd_csum: reference -fn not clean after -p: $(head -20 <<<"$REF_CLEAN_OUT")"

# recover_nojnl
img=$T/rec.img
fresh "$img" ^has_journal
"$REF_DEBUGFS" -w -R "feature needs_recovery" "$img" >/dev/null 2>&1
sum=$(sha256sum <"$img")
check recover_nojnl "$img" n 4 "needs_recovery flag is set but there is no journal"
[ "$(sha256sum <"$img")" = "$sum" ] || fail "recover_nojnl -n: image changed"
check recover_nojnl "$img" p 1 "CLEARED"
ref_clean "$img" || fail "recover_nojnl: reference -fn not clean after -p: $(head -20 <<<"$REF_CLEAN_OUT")"

# jnl_nofeature
img=$T/jnf.img
fresh "$img"
"$REF_DEBUGFS" -w -R "feature ^has_journal" "$img" >/dev/null 2>&1
sum=$(sha256sum <"$img")
check jnl_nofeature "$img" n 4 "has_journal feature is clear but a journal (inode 8) is present"
[ "$(sha256sum <"$img")" = "$sum" ] || fail "jnl_nofeature -n: image changed"
check jnl_nofeature "$img" p 1 "CLEARED"
ref_clean "$img" || fail "jnl_nofeature: reference -fn not clean after -p: $(head -20 <<<"$REF_CLEAN_OUT")"

# errors
img=$T/err.img
fresh "$img"
"$REF_DEBUGFS" -w -R "ssv state 3" "$img" >/dev/null 2>&1
sum=$(sha256sum <"$img")
check errors "$img" n 4 "contains a file system with errors, check forced"
[ "$(sha256sum <"$img")" = "$sum" ] || fail "errors -n: image changed"
check errors "$img" p 4 "Pass.* [2-4].* did not run"

# orphan_bad
img=$T/orph.img
fresh "$img"
"$REF_DEBUGFS" -w -R "ssv last_orphan 5" "$img" >/dev/null 2>&1
sum=$(sha256sum <"$img")
check orphan_bad "$img" n 0 "clean"
[ "$(sha256sum <"$img")" = "$sum" ] || fail "orphan_bad -n: image changed"
check orphan_bad "$img" p 4 "Illegal inode 5 in the orphaned inode list"
grep -q "First orphan inode" <<<"$("$REF_DUMPE2FS" -h "$img" 2>/dev/null)" &&
	fail "orphan_bad: s_last_orphan not cleared"

# orphan_loop / orphan_blk: two files written by the reference debugfs
head -c 5000 /dev/zero | tr '\0' x >"$T/src"
for name in orphan_loop orphan_blk; do
	img=$T/$name.img
	fresh "$img"
	printf 'write %s a\nwrite %s b\n' "$T/src" "$T/src" >"$T/cmds"
	if [ $name = orphan_loop ]; then
		printf 'sif <12> links_count 0\nsif <12> dtime 13\nsif <13> links_count 0\nsif <13> dtime 12\n' >>"$T/cmds"
	else
		printf 'sif <12> links_count 0\nsif <12> dtime 0\nsif <12> block[5] 3000000\n' >>"$T/cmds"
	fi
	printf 'unlink a\nunlink b\nssv last_orphan 12\n' >>"$T/cmds"
	"$REF_DEBUGFS" -w -f "$T/cmds" "$img" >/dev/null 2>&1 || fail "$name: debugfs failed"
	sum=$(sha256sum <"$img")
	check $name "$img" n 0 "clean"
	[ "$(sha256sum <"$img")" = "$sum" ] || fail "$name -n: image changed"
	if [ $name = orphan_loop ]; then
		check $name "$img" p 4 "in the orphaned inode list"
		[ "$(grep -c 'Clearing orphaned inode' "$T/$name.p.out")" = 2 ] ||
			fail "$name: expected 2 inodes released: $(cat "$T/$name.p.out")"
	else
		check $name "$img" p 4 "Orphan processing of inode 12 stopped"
	fi
	"$REF_E2FSCK" -fn "$img" >/dev/null 2>&1
	[ $? -lt 8 ] || fail "$name: the reference cannot check the result"
done

# ---- descriptors: a checksum or a field that is possible damage ----
# untouched4 NAME IMG PATTERN: -n, -p, -y exit 4 saying PATTERN; nothing
# written (the full check decides)
untouched4() {
	local name=$1 img=$2 pat=$3 mode
	for mode in n p y; do
		cp "$img" "$T/run.img"
		check $name "$T/run.img" $mode 4 "$pat"
		cmp -s "$img" "$T/run.img" || fail "$name -$mode: the image changed"
	done
}
fresh32() {	# fresh32 IMG SET_BG...: 32 MiB (the journal in group 2), edited
	local a
	"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$1" 32M >/dev/null 2>&1 || fail "mke2fs failed"
	img=$1
	shift
	for a in "$@"; do echo "set_bg $a"; done |
		"$REF_DEBUGFS" -w -f - "$img" >/dev/null 2>&1 || fail "debugfs failed"
}
# gd_flags_stale: BLOCK_UNINIT put on the journal's group, stale checksum
fresh32 "$T/gdf.img" "2 flags 3"
untouched4 gd_flags_stale "$T/gdf.img" \
	"Group descriptor 2 fails its checksum .* and its fields cannot be confirmed: it has uninit flags its backup copy has not"
# gd_flags_calc: the same with the checksum recomputed
fresh32 "$T/gdc.img" "2 flags 3" "2 checksum calc"
untouched4 gd_flags_calc "$T/gdc.img" \
	"Group 2 is marked BLOCK_UNINIT, but its free blocks count is 4096 where that flag means 8192"
# gd_dirs, gd_unused: counts beyond the format's bounds
fresh32 "$T/gdd.img" "0 used_dirs_count 65535" "0 checksum calc"
untouched4 gd_dirs "$T/gdd.img" "Group 0's directories count is 65535; at most 11 (the inodes in use)"
fresh32 "$T/gdu.img" "0 itable_unused 65535" "0 checksum calc"
untouched4 gd_unused "$T/gdu.img" "Group 0's unused inodes count is 65535; at most 2037 (its free inodes)"
grepq "Using the group descriptor copy kept with group 1's backup superblock" "$T/gd_unused.y.out" ||
	fail "gd_unused -y: the backup copy is not used: $(cat "$T/gd_unused.y.out")"
# gd_csum_used: the kernel wrote since mkfs (counts, directories, flags
# differ from the backup copy), then bg_checksum is damaged: every field
# is confirmed (backup, bitmaps, inodes): the checksum is rewritten
if [ "$(id -u)" = 0 ] && losetup -f >/dev/null 2>&1; then
	img=$T/gdk.img
	fresh "$img"
	mount_loop "$img" "$T/mnt" || fail "mount failed"
	mkdir -p "$T/mnt/a/b" "$T/mnt/c" && echo x >"$T/mnt/a/f" || fail "cannot write the mount"
	umount_retry "$T/mnt"
	"$PYTHON" -c "
f = open('$img', 'r+b'); f.seek(2 * 1024 + 0x1E); f.write(b'\x12\x34')"
	check gd_csum_used "$img" p 1 "Group descriptor 0 fails its checksum"
	ref_clean "$img" || fail "gd_csum_used: reference -fn not clean after -p: $(head -20 <<<"$REF_CLEAN_OUT")"
	# the same with a directories count the inodes do not confirm
	"$REF_DEBUGFS" -w -R "set_bg 0 used_dirs_count 3" "$img" >/dev/null 2>&1
	untouched4 gd_dirs_stale "$img" "its directories count is not the directories in use"
fi

# ---- superblock fields the kernel refuses at mount (backups usable) ----
orig=$T/sbf.img
fresh "$orig"
while IFS='|' read -r what msg; do
	img=$T/sbf.run.img
	cp "$orig" "$img"
	"$REF_DEBUGFS" -w -R "$what" "$img" >/dev/null 2>&1 || fail "$what: debugfs failed"
	cp "$img" "$T/sbf.n.img"
	check "sbf_n" "$T/sbf.n.img" n 4 "The primary superblock is unusable ($msg"
	cmp -s "$img" "$T/sbf.n.img" || fail "$what -n: the image changed"
	check "sbf_p" "$img" p 4 "using the backup at block 8193"
	ref_clean "$img" || fail "$what: reference -fn not clean after -p: $(head -20 <<<"$REF_CLEAN_OUT")"
	# the inspection tools still open such a superblock
	cp "$orig" "$img"
	"$REF_DEBUGFS" -w -R "$what" "$img" >/dev/null 2>&1
	"$E4DEBUGFS" -c -R stats "$img" 2>&1 | grepq "^Block count:" || fail "$what: e4debugfs -c cannot open it"
	"$E4TUNE" -l "$img" 2>&1 | grepq "^Block count:" || fail "$what: e4tune -l cannot open it"
done <<'EOF'
ssv r_blocks_count 70000|Reserved blocks count (s_r_blocks_count) is more than half the blocks
ssv log_groups_per_flex 255|Flex group size (s_log_groups_per_flex) is too large
ssv min_extra_isize 1000|Minimum inode extra size (s_min_extra_isize) is not 0 or a multiple of 4 that fits the inode
ssv want_extra_isize 1000|Wanted inode extra size (s_want_extra_isize) is not 0 or a multiple of 4 that fits the inode
ssv checksum_type 7|Unknown metadata checksum algorithm (s_checksum_type is not crc32c)
feature orphan_file|The orphan_file feature is set but s_orphan_file_inum names no inode
EOF

# in_use (root and loop devices only)
if [ "$(id -u)" = 0 ] && losetup -f >/dev/null 2>&1; then
	img=$T/mnt.img
	fresh "$img"
	mount_loop "$img" "$T/mnt" || fail "mount failed"
	sum=$(sha256sum <"$img")
	check in_use "$img" p 8 "refusing to change it"
	check in_use "$img" n 0 "in use"
	[ "$(sha256sum <"$img")" = "$sum" ] || fail "in_use: image changed"
	umount_retry "$T/mnt"
else
	info "note: not root or no loop device: the mounted case is not run"
fi

info "superblock problems: documented exit codes and repairs ($(elapsed)s)"
exit 0
