#!/bin/bash
# dbgw_review: e4debugfs -w and its journal writer refuse what a hostile
# user gives them before anything is written (review 1): jw's block and
# revoke numbers at or past the end of the filesystem (the log would
# replay them past the end: e2fsck grows the image; jr of such a log says
# what it replayed and that it cleared the log), a huge range refused
# at once instead of expanded in memory, a truncated image (the device
# shorter than the filesystem) refused at open, read-write and read-only,
# naming the device; a read-only block device refused at a read-write
# open; bmap[4294967295] (the kernel's last mappable block is 4294967294);
# jr names a corrupt transaction (as e4fsck); jo with journal_inum 0 and
# no journal device says the inode is invalid, jo -c -v 2 refused says
# nothing about setting it, freeb/seti with a count of 0 say so; errors
# name their cause and file (jw from a directory, jo/jr -f, -f); ea_set of
# a value that fits nowhere says so, not "no free blocks"; jw after
# feature ^has_journal is refused.
# Catches: jw accepting block 5000000 on a 4096-block filesystem, a
# 4e9-block range eating memory for minutes, edits written to a truncated
# image, edits accepted on a read-only loop device and lost at close.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DEBUGFS" "$REF_DUMPE2FS"
need_e4debugfs
export E2FSCK_CONFIG=/dev/null
E=$E4DEBUGFS
D=$T
[ -d /dev/shm ] && D=$(mktemp -d /dev/shm/dbgw_review.XXXXXX) && on_exit rm -rf "$D"

"$REF_MKE2FS" -q -F -t ext4 "$D/base.img" 4M >/dev/null 2>&1 || fail "mke2fs failed"
nblocks=$("$REF_DUMPE2FS" -h "$D/base.img" 2>/dev/null | sed -n 's/^Block count: *//p')

# journal_start IMG: the journal superblock's s_start (0: the log is empty)
journal_start() {
	"$REF_DUMPE2FS" -h "$1" 2>/dev/null | sed -n 's/^Journal start: *//p'
}

# ---- 1. jw block numbers past the end of the filesystem -------------------
for arg in "-b 5000000 /dev/zero" "-b $nblocks /dev/zero" "-r $nblocks" "-b 100,$nblocks /dev/zero"; do
	cp "$D/base.img" "$D/j.img"
	printf 'jo\njw %s\njc\n' "$arg" >"$D/cmds"
	runcap "$D/r" 20 "$E" -w -f "$D/cmds" "$D/j.img"
	grepq 'Block number out of range' "$D/r.err" ||
		fail "jw $arg: not refused: $(cat "$D/r.out" "$D/r.err")"
	[ "$(journal_start "$D/j.img")" = 0 ] || fail "jw $arg: a transaction was written"
	[ "$(stat -c %s "$D/j.img")" = "$(stat -c %s "$D/base.img")" ] || fail "jw $arg: image grew"
	ref_clean "$D/j.img" || fail "jw $arg: the reference e2fsck is not clean"
done
# the last block is fine
cp "$D/base.img" "$D/j.img"
printf 'jo\njw -b %s /dev/zero\njc\n' $((nblocks - 1)) >"$D/cmds"
runcap "$D/r" 20 "$E" -w -f "$D/cmds" "$D/j.img"
[ -s "$D/r.err" ] && fail "jw of the last block: $(cat "$D/r.err")"
[ "$(journal_start "$D/j.img")" != 0 ] || fail "jw of the last block wrote nothing"

# ---- 1b. jr of a log with a block outside the filesystem says what it did ---
# (a 32-bit log without checksums; the second tag of the descriptor, log
# block 1 at byte 36, patched to block 5000000)
"$REF_MKE2FS" -q -F -t ext4 -O ^64bit,^metadata_csum "$D/o.img" 4M >/dev/null 2>&1 || fail "mke2fs"
printf 'jo\njw -b 100,101 /dev/zero\njc\n' >"$D/cmds"
runcap "$D/r" 20 "$E" -w -f "$D/cmds" "$D/o.img"
pb=$("$REF_DEBUGFS" -R 'bmap <8> 1' "$D/o.img" 2>/dev/null)
printf '\000\114\113\100' | dd of="$D/o.img" bs=1 seek=$((pb * 1024 + 36)) conv=notrunc 2>/dev/null
runcap "$D/r" 20 "$E" -w -R 'jr' "$D/o.img"
[ "$(cat "$D/r.rc")" != 0 ] || fail "jr of a bad log exits 0"
grepq '1 blocks were replayed, the log was cleared and the filesystem marked not clean' \
	"$D/r.err" || fail "jr does not say what it did: $(cat "$D/r.err")"
[ "$(journal_start "$D/o.img")" = 0 ] || fail "jr: the log was said cleared, is not"

# ---- 2. a huge range: refused at once, nothing expanded --------------------
cp "$D/base.img" "$D/j.img"
printf 'jo\njw -r 1-4000000000\njw -b 1-4000000000 /dev/zero\njc\n' >"$D/cmds"
runcap "$D/r" 20 "$E" -w -f "$D/cmds" "$D/j.img"
[ "$(cat "$D/r.rc")" != 124 ] || fail "jw of a 4e9-block range did not finish in 20 s"
[ "$(grep -c 'Block number out of range' "$D/r.err")" = 2 ] ||
	fail "huge ranges not refused: $(cat "$D/r.err")"
# longer than the log, inside the filesystem: the journal is full, nothing
# written, and the next transaction holds only its own block
printf 'jo\njw -b 1-%s /dev/zero\njw -b 3000 /dev/zero\njc\n' $((nblocks - 1)) >"$D/cmds"
runcap "$D/r" 20 "$E" -w -f "$D/cmds" "$D/j.img"
grepq 'does not fit in the journal' "$D/r.err" || fail "a list longer than the log: $(cat "$D/r.err")"
"$REF_DEBUGFS" -R 'logdump' "$D/j.img" >"$D/log" 2>&1
grepq 'at block 1, transaction 1' "$D/log" && grepq 'commit block) at block 3$' "$D/log" ||
	fail "the next transaction is not one block: $(cat "$D/log")"

# ---- 3. a truncated image: refused at open, naming it ------------------------
for size in 3072 40000; do
	cp "$D/base.img" "$D/c.img"
	truncate -s $size "$D/c.img"
	cp "$D/c.img" "$D/c0.img"
	runcap "$D/r" 20 "$E" -w -R 'ssv mnt_count 3' "$D/c.img"
	[ "$(cat "$D/r.rc")" != 0 ] || fail "truncated to $size: -w open accepted"
	grepq "$D/c.img" "$D/r.err" || fail "truncated to $size: device not named: $(cat "$D/r.err")"
	cmp -s "$D/c.img" "$D/c0.img" || fail "truncated to $size: the image was written"
	runcap "$D/r" 20 "$E" -R 'stats' "$D/c.img"
	grepq 'too small\|device only' "$D/r.err" ||
		fail "truncated to $size: read-only open accepted: $(cat "$D/r.err")"
done
runcap "$D/r" 20 "$E" -c -R 'stats' "$D/c.img"
grepq 'Block count' "$D/r.out" || fail "-c does not open a truncated image"

# ---- 5. bmap[] up to 4294967294 ------------------------------------------------
cp "$D/base.img" "$D/b.img"
"$REF_DEBUGFS" -w -R 'write /dev/null hole' "$D/b.img" >/dev/null 2>&1 || fail "ref write"
runcap "$D/r" 20 "$E" -w -R 'sif /hole bmap[4294967295] 1500' "$D/b.img"
[ "$(cat "$D/r.rc")" != 0 ] || fail "bmap[4294967295] accepted"
grepq 'maximum file size' "$D/r.err" || fail "bmap[4294967295]: $(cat "$D/r.err")"
ref_clean "$D/b.img" || fail "after the refused bmap[4294967295]"
runcap "$D/r" 20 "$E" -w -R 'sif /hole bmap[4294967294] 1500' "$D/b.img"
[ "$(cat "$D/r.rc")" = 0 ] || fail "bmap[4294967294]: $(cat "$D/r.err")"

# ---- 6. jr says which transaction was corrupt, as e4fsck does --------------
cp "$D/base.img" "$D/k.img"
printf 'jo -c\njw -b 100 /dev/zero\njw -b 101 /dev/zero\njw -b 102 /dev/zero\njc\n' >"$D/cmds"
runcap "$D/r" 20 "$E" -w -f "$D/cmds" "$D/k.img"
# transaction 2's commit block is log block 6 (descriptor, data, commit each)
pb=$("$REF_DEBUGFS" -R 'bmap <8> 6' "$D/k.img" 2>/dev/null)
printf '\377\377\377\377' | dd of="$D/k.img" bs=1 seek=$((pb * 1024 + 16)) conv=notrunc 2>/dev/null
runcap "$D/r" 20 "$E" -w -R 'jr' "$D/k.img"
grepq 'Journal transaction 2 was corrupt; replay stopped before it.' "$D/r.out" ||
	fail "jr silent about the corrupt transaction: $(cat "$D/r.out" "$D/r.err")"

# ---- 9. jo without a journal inode or device: the inode is invalid ----------
cp "$D/base.img" "$D/n.img"
printf 'ssv journal_inum 0\njo\n' >"$D/cmds"
runcap "$D/r" 20 "$E" -w -f "$D/cmds" "$D/n.img"
grepq 'Journal inode is invalid while opening the journal' "$D/r.err" ||
	fail "jo with journal_inum 0: $(cat "$D/r.err")"

# ---- 10. jo -c -v 2 on a log in use: refused, no "Setting csum" ------------
cp "$D/base.img" "$D/v.img"
printf 'jo\njw -b 100 /dev/zero\njc\n' >"$D/cmds"
runcap "$D/r" 20 "$E" -w -f "$D/cmds" "$D/v.img"
printf 'jo -c -v 2\n' >"$D/cmds"
runcap "$D/r" 20 "$E" -w -f "$D/cmds" "$D/v.img"
grepq 'while opening the journal' "$D/r.err" || fail "jo -c -v 2 on a log in use accepted"
grepq 'Setting csum' "$D/r.out" && fail "jo -c -v 2 said 'Setting csum' and then refused"

# ---- 11. a count of 0 ----------------------------------------------------------
cp "$D/base.img" "$D/z.img"
for c in 'freeb 4095 0' 'setb 4095 0' 'seti <12> 0' 'freei <12> 0'; do
	runcap "$D/r" 20 "$E" -w -R "$c" "$D/z.img"
	grepq "Bad count - 0 (at least 1)" "$D/r.err" || fail "$c: $(cat "$D/r.err")"
done

# ---- 7. a value too large for the inode and one block, no ea_inode ---------
"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$D/x.img" 4M >/dev/null 2>&1 || fail "mke2fs 1k"
head -c 5000 /dev/zero | tr '\0' 'v' >"$D/v5000"
runcap "$D/r" 20 "$E" -w -R "ea_set -f $D/v5000 <2> user.big" "$D/x.img"
grepq 'Insufficient space to store the extended attribute' "$D/r.err" ||
	fail "ea_set of 5000 bytes on 1 KiB blocks: $(cat "$D/r.err")"

# ---- 8. errors name their cause and the file ---------------------------------
cp "$D/base.img" "$D/e.img"
printf 'jo\njw -b 1400 %s\njc\njo -f %s/nonexist\njr -f %s/nonexist\n' "$D" "$D" "$D" >"$D/cmds"
runcap "$D/r" 20 "$E" -w -f "$D/cmds" "$D/e.img"
grepq "jw: Is a directory while reading $D\$" "$D/r.err" || fail "jw from a directory: $(cat "$D/r.err")"
[ "$(grep -c "No such file or directory while opening the journal $D/nonexist" "$D/r.err")" = 2 ] ||
	fail "jo/jr -f of a missing file: $(cat "$D/r.err")"
runcap "$D/r" 20 "$E" -f "$D" "$D/e.img"
grepq "Is a directory while reading commands from $D\$" "$D/r.err" ||
	fail "-f of a directory: $(cat "$D/r.err")"

# ---- 13. jw after feature ^has_journal: refused (no needs_recovery alone) --
cp "$D/base.img" "$D/h.img"
printf 'jo\nfeature ^has_journal\njw -b 100 /dev/zero\njc\n' >"$D/cmds"
runcap "$D/r" 20 "$E" -w -f "$D/cmds" "$D/h.img"
grepq 'has_journal was cleared' "$D/r.err" || fail "jw without has_journal: $(cat "$D/r.err")"
"$REF_DUMPE2FS" -h "$D/h.img" 2>/dev/null | grepq needs_recovery &&
	fail "needs_recovery set without has_journal"

# ---- 4. a read-only block device: refused at a read-write open -----------------
if [ "$(id -u)" = 0 ] && losetup -f >/dev/null 2>&1; then
	cp "$D/base.img" "$D/lo.img"
	L=$(losetup -r -f --show "$D/lo.img") || fail "losetup -r"
	on_exit losetup -d "$L"
	runcap "$D/r" 20 "$E" -w -R 'ssv mnt_count 3' "$L"
	[ "$(cat "$D/r.rc")" != 0 ] || fail "read-only $L opened read-write"
	grepq "Read-only file system while opening $L" "$D/r.err" ||
		fail "read-only device: $(cat "$D/r.err")"
	cmp -s "$D/lo.img" "$D/base.img" || fail "read-only device written"
else
	info "no loop device: the read-only device case is not run"
fi
exit 0
