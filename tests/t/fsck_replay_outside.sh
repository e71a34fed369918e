#!/bin/bash
# fsck_replay_outside: a committed transaction one of whose tags names a
# block outside the filesystem.  e4fsck -y replays every block it can
# (the in-range block after the bad one holds the logged data afterwards), says the
# recovery failed, does not exit 0, and leaves the filesystem marked for
# the full check; -n writes nothing.  The log is cleared only after what
# could be replayed was (the data-safety rule: a committed journal is not
# discarded by a default answer; the one block it drops has no place to
# go).  The reference e2fsck -y replays the good block too and exits 0
# (it skips the bad tag silently); we say it.
# Catches: a replay that stops at the bad tag and clears the log with the
# good block unreplayed, or a -y run that exits 0 without saying so.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_MKE2FS" "$REF_DEBUGFS"
need_e4fsck
need_e4debugfs
export E2FSCK_CONFIG=/dev/null

"$REF_MKE2FS" -q -F -t ext4 -O ^64bit,^metadata_csum "$T/o.img" 4M >/dev/null 2>&1 ||
	fail "mke2fs failed"
head -c 2048 /dev/zero | tr '\0' '\252' >"$T/aa"
printf 'jo\njw -b 100,101 %s\njc\n' "$T/aa" >"$T/cmds"
runcap "$T/w" 20 "$E4DEBUGFS" -w -f "$T/cmds" "$T/o.img"
[ "$(cat "$T/w.rc")" = 0 ] || fail "e4debugfs jw: $(cat "$T/w.err")"
# the descriptor's first tag (byte 12: fs block 100) -> block 5000000, so
# the good block (101) comes after the bad one
pb=$("$REF_DEBUGFS" -R 'bmap <8> 1' "$T/o.img" 2>/dev/null)
printf '\000\114\113\100' | dd of="$T/o.img" bs=1 seek=$((pb * 1024 + 12)) conv=notrunc 2>/dev/null
cp "$T/o.img" "$T/n.img"

block101() { dd if="$1" bs=1024 skip=101 count=1 2>/dev/null | od -An -tx1 | head -1 | tr -d ' '; }
AA=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa

runcap "$T/n" 30 "$E4FSCK" -n "$T/n.img"
cmp -s "$T/o.img" "$T/n.img" || fail "-n wrote to the image"

runcap "$T/y" 30 "$E4FSCK" -y "$T/o.img"
rc=$(cat "$T/y.rc")
[ "$rc" != 0 ] || fail "-y exited 0 after a recovery that skipped a block: $(cat "$T/y.out")"
case $rc in 1|4|8|12) ;; *) fail "-y exit $rc" ;; esac
grepq 'outside the filesystem' "$T/y.out" "$T/y.err" ||
	fail "-y does not say a block was outside: $(cat "$T/y.out" "$T/y.err")"
[ "$(block101 "$T/o.img")" = "$AA" ] || fail "the in-range block 101 (after the bad tag) was not replayed"
echo "ok: block 101 replayed, exit $rc, the bad tag said"
