#!/bin/bash
# dbgw_open_guard: what e4debugfs -w refuses once the filesystem is open.
# (1) A journal that needs recovery (needs_recovery, transactions in the
# log): mkdir and the other file commands are refused with one line naming
# jr and e4fsck (a mount replays the log over them), while ssv still works
# and jr followed by mkdir gives a filesystem the reference finds clean.
# (2) A group descriptor whose block bitmap lies outside its group (set_bg):
# mkdir is refused naming the group, set_bg back lets it run.
# (3) A second read-write open while one -w session holds the image (its
# commands read from a fifo) is refused with one line (e4debugfs -w, e4tune
# -L, e4fsck -fy), a read-only open is not, and once the first session
# ends -w works again.
# (4) A fifo as the source of write, jw or ea_set -f is refused at once
# (one line each), not waited on; jw still reads /dev/zero.
# (5) feature ^has_journal is refused while needs_recovery is set (after
# jw, and after jc); together with ^needs_recovery it is allowed.
# Catches: mkdir written under a pending journal (the kernel's replay
# brings back the old root directory block: "Unconnected directory inode
# 12"), a block bitmap written into the inode table, two writers each
# writing back its own stale bitmaps, "write FIFO /f" blocking forever in
# open(), needs_recovery left set without has_journal (the kernel refuses
# to mount it).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_MKE2FS" "$REF_E2FSCK"
need_e4debugfs
need_e4fsck
need_e4tune
export E2FSCK_CONFIG=/dev/null
E=$E4DEBUGFS

# (1) needs recovery: a transaction rewriting the root directory block
img=$T/nr.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$img" 4M >/dev/null 2>&1 || fail "mke2fs failed"
rb=$("$E" -R "blocks /" "$img" 2>/dev/null | tr -d ' \n')
[ -n "$rb" ] || fail "no root directory block"
dd if="$img" of="$T/root.bin" bs=1024 skip="$rb" count=1 status=none
printf 'jo\njw -b %s %s\njc\n' "$rb" "$T/root.bin" | "$E" -w -f - "$img" >/dev/null 2>&1 ||
	fail "jo/jw/jc failed"
"$E" -w -R "mkdir /new" "$img" >"$T/m.out" 2>"$T/m.err" && fail "mkdir under a pending journal exited 0"
[ "$(grep -c . "$T/m.err")" = 1 ] || fail "not one line: $(cat "$T/m.err")"
grepq "mkdir: the journal of $img needs recovery first (jr, or e4fsck)" "$T/m.err" ||
	fail "mkdir: $(cat "$T/m.err")"
"$E" -R "ls /" "$img" 2>/dev/null | grepq new && fail "mkdir wrote /new under a pending journal"
"$E" -w -R "ssv mnt_count 4" "$img" >/dev/null 2>"$T/s.err" || fail "ssv refused: $(cat "$T/s.err")"
printf 'jr\nmkdir /new\n' | "$E" -w -f - "$img" >/dev/null 2>"$T/jr.err" || fail "jr; mkdir: $(cat "$T/jr.err")"
"$E" -R "ls /" "$img" 2>/dev/null | grepq new || fail "mkdir after jr did not write /new"
ref_clean "$img" || fail "not clean after jr and mkdir"

# (2) a block bitmap outside its group
img=$T/e2.img
"$REF_MKE2FS" -q -F -t ext2 -b 1024 "$img" 16M >/dev/null 2>&1 || fail "mke2fs failed"
bb=$("$E" -R "stats" "$img" 2>/dev/null | sed -n 's/.*Group  *1: block bitmap at \([0-9]*\).*/\1/p')
[ -n "$bb" ] || fail "no block bitmap location for group 1"
"$E" -w -R "set_bg 1 block_bitmap 68" "$img" >/dev/null 2>&1 || fail "set_bg failed"
"$E" -w -R "mkdir /d1" "$img" >"$T/g.out" 2>"$T/g.err" && fail "mkdir with a misplaced bitmap exited 0"
grepq "mkdir: .*(group 1's block bitmap, block 68)" "$T/g.err" || fail "mkdir: $(cat "$T/g.err")"
printf 'set_bg 1 block_bitmap %s\nmkdir /d1\n' "$bb" | "$E" -w -f - "$img" >/dev/null 2>"$T/g2.err" ||
	fail "set_bg back; mkdir: $(cat "$T/g2.err")"
ref_clean "$img" || fail "not clean after set_bg back and mkdir"

# (3) two writers
mkfifo "$T/cmds"
"$E" -w -f "$T/cmds" "$img" >"$T/a.out" 2>&1 &
exec 7>"$T/cmds"
echo "mkdir /a" >&7
for i in $(seq 100); do "$E" -R "ls /" "$img" 2>/dev/null | grep -Eq '\) a( |$)' && break; sleep 0.05; done
"$E" -R "ls /" "$img" 2>/dev/null | grep -Eq '\) a( |$)' || fail "the first session's mkdir /a is not there"
"$E" -w -R "mkdir /b" "$img" >"$T/b.out" 2>"$T/b.err" && fail "a second -w session exited 0"
[ "$(grep -c . "$T/b.err")" = 1 ] || fail "not one line: $(cat "$T/b.err")"
grepq "^e4debugfs: $img is open for writing by another process" "$T/b.err" ||
	fail "second -w: $(cat "$T/b.err")"
"$E4TUNE" -L x "$img" >"$T/t.out" 2>&1 && fail "e4tune -L during a -w session exited 0"
grepq "Open for writing by another process" "$T/t.out" || fail "e4tune: $(cat "$T/t.out")"
"$E4FSCK" -fy "$img" >"$T/f.out" 2>&1 && fail "e4fsck -fy during a -w session exited 0"
grepq "Open for writing by another process" "$T/f.out" || fail "e4fsck: $(cat "$T/f.out")"
"$E" -R "stats -h" "$img" >/dev/null 2>"$T/r.err" || fail "read-only open refused: $(cat "$T/r.err")"
exec 7>&-
wait
"$E" -w -R "mkdir /b" "$img" >/dev/null 2>"$T/b2.err" || fail "-w after the first session: $(cat "$T/b2.err")"
ref_clean "$img" || fail "not clean after two sessions"

# (4) a fifo as a source (an ext4 image: jw needs a journal)
img=$T/nr.img
mkfifo "$T/ff"
printf 'write %s /ff\nea_set -f %s / user.a\njo\njw -b 300 %s\njc\n' "$T/ff" "$T/ff" "$T/ff" >"$T/c4"
runcap "$T/r4" 20 "$E" -w -f "$T/c4" "$img"
[ "$(cat "$T/r4.rc")" = 1 ] || fail "fifo sources: $(describe_rc "$(cat "$T/r4.rc")")"
grepq "^write: $T/ff is not a regular file\$" "$T/r4.err" || fail "write: $(cat "$T/r4.err")"
grepq "^ea_set: $T/ff is not a regular file or a device" "$T/r4.err" || fail "ea_set: $(cat "$T/r4.err")"
grepq "^jw: $T/ff is not a regular file or a device" "$T/r4.err" || fail "jw: $(cat "$T/r4.err")"

# (5) has_journal cleared under needs_recovery
img=$T/hj.img
"$REF_MKE2FS" -q -F -t ext4 "$img" 4M >/dev/null 2>&1 || fail "mke2fs failed"
printf 'jo\njw -b 300 /dev/zero\nfeature ^has_journal\njc\nfeature ^has_journal\n' >"$T/c5"
runcap "$T/r5" 20 "$E" -w -f "$T/c5" "$img"
[ "$(grep -c "feature: clearing has_journal refused: the filesystem needs journal recovery" "$T/r5.err")" = 2 ] ||
	fail "^has_journal: $(cat "$T/r5.err")"
"$E" -R "feature" "$img" 2>/dev/null | grepq "has_journal" || fail "has_journal cleared under needs_recovery"
"$E" -w -R "feature ^has_journal ^needs_recovery" "$img" >/dev/null 2>"$T/r6.err" ||
	fail "^has_journal ^needs_recovery refused: $(cat "$T/r6.err")"
exit 0
