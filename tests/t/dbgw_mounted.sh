#!/bin/bash
# dbgw_mounted: e4debugfs refuses to open a mounted filesystem read-write
# (the kernel's cached metadata would overwrite what it writes, or be
# corrupted by it): "e4debugfs -w IMG" on an image loop-mounted by the
# kernel exits 1 with one line naming the image and how it is in use, and
# "open -w" inside a command file likewise; "open -w -f" forces it (a
# warning, then the open succeeds); opening it read-only is allowed.
# A second loop device bound to the mounted image is refused too (found
# through LOOP_GET_STATUS64's backing inode), by e4debugfs, e4fsck and
# e4tune; and an image mounted in another mount namespace (its loop device
# absent from our mountinfo but held open exclusively) is refused.  A -w
# session on the image locks out a -w open of a loop device bound to it.
# Catches: -w writing under a mounted filesystem because the check looked
# only at /proc/mounts for the image path (a loop mount shows /dev/loopN),
# or only at the one device named (a second loop device on the same file).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_MKE2FS"
need_e4debugfs
need_e4fsck
need_e4tune
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

# a second loop device bound to the mounted image
l2=$(losetup -f --show "$img") || fail "losetup failed"
on_exit "losetup -d '$l2'"
"$E4DEBUGFS" -w -R "mkdir /x" "$l2" >"$T/l2.out" 2>"$T/l2.err" &&
	fail "-w on a second loop device of a mounted image exited 0"
grepq "$l2 is in use (mounted through /dev/loop[0-9]* on $T/mnt)" "$T/l2.err" ||
	fail "second loop device: $(cat "$T/l2.err")"
"$E4FSCK" -fy "$l2" >"$T/fk.out" 2>&1 && fail "e4fsck -fy on the second loop exited 0"
grepq "$l2 is in use (mounted through" "$T/fk.out" || fail "e4fsck: $(cat "$T/fk.out")"
umount_retry "$T/mnt"

# unmounted: a -w session on the image and one on a loop device bound to
# it see each other's lock (the loop device's open locks its file too)
mkfifo "$T/cmds"
"$E4DEBUGFS" -w -f "$T/cmds" "$img" >/dev/null 2>&1 &
exec 7>"$T/cmds"
echo "stats -h" >&7
"$E4DEBUGFS" -w -R "mkdir /x" "$l2" >"$T/lk.out" 2>"$T/lk.err" &&
	fail "-w on a loop device while the image is open read-write exited 0"
grepq "$l2 is open for writing by another process" "$T/lk.err" || fail "lock: $(cat "$T/lk.err")"
exec 7>&-
wait
losetup -d "$l2"

# mounted in another mount namespace: not in our mountinfo
command -v unshare >/dev/null || skip "no unshare"
mkfifo "$T/go"
unshare -m --propagation private sh -c \
	'mount -t ext4 -o loop "$1" "$2" && : >"$3"; read x <"$4"; umount "$2"' \
	sh "$img" "$T/mnt" "$T/ready" "$T/go" &
ns=$!
for i in $(seq 100); do [ -e "$T/ready" ] && break; kill -0 $ns 2>/dev/null || break; sleep 0.1; done
[ -e "$T/ready" ] || skip "cannot mount in a private mount namespace"
"$E4DEBUGFS" -w -R "mkdir /x" "$img" >"$T/ns.out" 2>"$T/ns.err"
rc=$?
"$E4TUNE" -L foo "$img" >"$T/tn.out" 2>&1 && fail "e4tune -L on an image mounted elsewhere exited 0"
grepq "held open exclusively through /dev/loop" "$T/tn.out" || fail "e4tune: $(cat "$T/tn.out")"
echo >"$T/go"
wait $ns
[ $rc = 0 ] && fail "-w on an image mounted in another namespace exited 0"
grepq "$img is in use (held open exclusively through /dev/loop[0-9]*: mounted in another" "$T/ns.err" ||
	fail "other namespace: $(cat "$T/ns.err")"
exit 0
