#!/bin/bash
# dbgw_mounted: e4debugfs refuses to open a mounted filesystem read-write
# (the kernel's cached metadata would overwrite what it writes, or be
# corrupted by it): "e4debugfs -w IMG" on an image loop-mounted by the
# kernel exits 1 with one line naming the image and how it is in use, and
# "open -w" inside a command file likewise; "open -w -f" forces it (a
# warning, then the open succeeds); opening it read-only is allowed.
# Catches: -w writing under a mounted filesystem because the check looked
# only at /proc/mounts for the image path (a loop mount shows /dev/loopN).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_MKE2FS"
need_e4debugfs
need_root_loop

img=$T/m.img
"$REF_MKE2FS" -q -F -t ext4 "$img" 4M >/dev/null 2>&1 || fail "mke2fs failed"
mount_loop "$img" "$T/mnt" || skip "cannot loop-mount an ext4 image"

"$E4DEBUGFS" -w -R "ssv mnt_count 3" "$img" >"$T/w.out" 2>"$T/w.err" &&
	fail "-w on a mounted filesystem exited 0"
[ "$(grep -c . "$T/w.err")" = 1 ] || { cat "$T/w.err" >&2; fail "not one line"; }
grepq "$img is in use.*refusing to open it read-write" "$T/w.err" ||
	fail "unexpected message: $(cat "$T/w.err")"

printf 'open -w %s\n' "$img" >"$T/open.cmds"
"$E4DEBUGFS" -f "$T/open.cmds" >"$T/o.out" 2>"$T/o.err" && fail "open -w exited 0"
grepq "open: $img is in use" "$T/o.err" || fail "open -w: $(cat "$T/o.err")"

printf 'open -w -f %s\nclose\n' "$img" >"$T/force.cmds"
"$E4DEBUGFS" -f "$T/force.cmds" >"$T/f.out" 2>"$T/f.err" ||
	fail "open -w -f: $(cat "$T/f.err")"
grepq "warning: $img is in use" "$T/f.err" || fail "open -w -f gave no warning"

"$E4DEBUGFS" -R "stats -h" "$img" >/dev/null 2>"$T/r.err" ||
	fail "read-only open of a mounted filesystem refused: $(cat "$T/r.err")"
exit 0
