#!/bin/bash
# dbgw_close_error: the changes e4debugfs -w holds in its cache are written
# when the filesystem is closed, and a write that fails there is reported
# (one line naming the cause) with exit status 1, not lost silently.  The
# image lies on a full tmpfs with its inode tables left as holes (mke2fs
# on a file), so writing an inode there needs space the device does not
# have: ENOSPC at the close.
# Catches: close ignoring e4_flush()'s error (exit 0 with the inode never
# written), or the error printed without failing the run.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_MKE2FS"
need_e4debugfs
[ "$(id -u)" = 0 ] || skip "a tmpfs mount needs root"

mount_tmpfs "$T/tfs" 2m || skip "cannot mount a tmpfs"
img=$T/tfs/e.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 -N 2048 -O ^has_journal "$img" 16M >/dev/null 2>&1 ||
	fail "mke2fs failed"
# fill the tmpfs: the holes of the image cannot be written any more
dd if=/dev/zero of="$T/tfs/fill" bs=4k >/dev/null 2>&1

"$E4DEBUGFS" -w -R "sif <2000> uid 5" "$img" >"$T/out" 2>"$T/err" &&
	fail "exit 0 although the close could not write"
[ "$(grep -c . "$T/err")" = 1 ] || { cat "$T/err" >&2; fail "not one error line"; }
grepq "No space left on device while writing the changes and closing the filesystem on $img" \
	"$T/err" ||
	fail "unexpected message: $(cat "$T/err")"
exit 0
