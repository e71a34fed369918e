#!/bin/bash
# dbgw_direct: e4debugfs -D opens the device with O_DIRECT, so the page
# cache is bypassed (issue 13, "-D direct I/O"); measured with fincore
# (util-linux: pages of the image in the page cache), the image's pages
# dropped first (posix_fadvise DONTNEED).
#
#  1. Read-only, `stats` (the group descriptors, bitmaps): with -D no page
#     of the image is cached; without it some are.
#  2. -w -D, `write` of a 2 MiB file: fewer than 256 pages (1 MiB) cached
#     -- the mount-state probe of -w reads a few signatures through the
#     page cache (libblkid), the filesystem's own I/O none; without -D the
#     file's 512 pages are.  The image is clean and the file reads back
#     (the reference debugfs, through the page cache: what O_DIRECT wrote
#     is what a buffered reader sees).
#  3. An image whose size is not a multiple of 4096 cannot be opened with
#     -D: one line naming the cause, exit 1, the image unchanged.
#  4. As root: a loop device with 4096-byte logical sectors (the alignment
#     read with BLKSSZGET) written with -w -D: clean, the file reads back.
# Catches: -D accepted and ignored (the page cache used), unaligned
# transfers (EINVAL from the kernel on the superblock's 1024 bytes at 1024,
# or on a buffer from malloc), a partial unit written without its other
# bytes read first (the rest of the 4 KiB unit zeroed).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DEBUGFS"
need_e4debugfs
need_cmd fincore

drop() {
	"$PYTHON" -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.fsync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$1" || fail "cannot drop the cached pages of $1"
}
pages() { fincore -n -b -o PAGES "$1" | tr -d ' '; }

img=$T/a.img
# 1 KiB blocks: the superblock and the descriptors share the first 4 KiB
# unit (partial-unit writes); not sparse (every block has a page to cache)
head -c 32M /dev/zero >"$img"
"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$img" >/dev/null 2>&1 || fail "mke2fs failed"
head -c 2M /dev/urandom >"$T/big"

# ---- 1: read-only ------------------------------------------------------------
drop "$img"
"$E4DEBUGFS" -D -R stats "$img" >"$T/out" 2>"$T/err" || fail "-D stats failed: $(head -2 "$T/err")"
grepq "Inode count:" "$T/out" || fail "-D stats printed no superblock"
n=$(pages "$img")
[ "$n" = 0 ] || fail "-D stats: $n pages of the image in the page cache, want 0"
drop "$img"
"$E4DEBUGFS" -R stats "$img" >/dev/null 2>&1
nb=$(pages "$img")
[ "$nb" -gt 0 ] || fail "stats without -D cached nothing: fincore cannot tell"
info "stats: $n pages cached with -D, $nb without"

# ---- 2: writes --------------------------------------------------------------
drop "$img"
"$E4DEBUGFS" -w -D -R "write $T/big big" "$img" >"$T/out" 2>"$T/err" ||
	fail "-w -D write failed: $(head -2 "$T/err")"
[ -s "$T/err" ] && fail "-w -D write: $(head -2 "$T/err")"
n=$(pages "$img")
[ "$n" -lt 256 ] || fail "-w -D write of 2 MiB: $n pages cached, want fewer than 256"
ref_clean "$img" || fail "not clean after -w -D: $REF_CLEAN_OUT"
"$REF_DEBUGFS" -R "dump big $T/back" "$img" >/dev/null 2>&1
cmp -s "$T/big" "$T/back" || fail "the file written with -D reads back different"
drop "$img"
"$E4DEBUGFS" -w -R "write $T/big big2" "$img" >/dev/null 2>&1 || fail "buffered write failed"
nb=$(pages "$img")
[ "$nb" -ge 512 ] || fail "a buffered write of 2 MiB cached only $nb pages: fincore cannot tell"
info "write of 2 MiB: $n pages cached with -D, $nb without"

# ---- 3: a size O_DIRECT cannot cover -----------------------------------------
odd=$T/odd.img
cp "$img" "$odd"
head -c 1024 /dev/zero >>"$odd"
sum=$(sha256sum <"$odd")
"$E4DEBUGFS" -w -D -R "write $T/big big3" "$odd" >"$T/out" 2>"$T/err" &&
	fail "-D on an image of 32 MiB + 1 KiB exited 0"
[ "$(grep -c . "$T/err")" = 1 ] || fail "not one line: $(tr '\n' '|' <"$T/err")"
grepq "Direct I/O refused" "$T/err" || fail "unexpected message: $(cat "$T/err")"
[ "$(sha256sum <"$odd")" = "$sum" ] || fail "the refused image changed"

# ---- 4: a block device with 4 KiB logical sectors (BLKSSZGET) -------------------------
if [ "$(id -u)" = 0 ] && losetup -f >/dev/null 2>&1; then
	lo=$T/lo.img
	head -c 16M /dev/zero >"$lo"
	"$REF_MKE2FS" -q -F -t ext4 -b 4096 "$lo" >/dev/null 2>&1 || fail "mke2fs (loop) failed"
	dev=$(losetup -f --show --sector-size 4096 "$lo") || fail "losetup --sector-size 4096 failed"
	on_exit "losetup -d '$dev'"
	"$E4DEBUGFS" -w -D -R "write $T/big big" "$dev" >"$T/out" 2>"$T/err" ||
		fail "-w -D on $dev failed: $(head -2 "$T/err")"
	[ -s "$T/err" ] && fail "-w -D on $dev: $(head -2 "$T/err")"
	ref_clean "$dev" || fail "$dev not clean after -w -D: $REF_CLEAN_OUT"
	"$REF_DEBUGFS" -R "dump big $T/back" "$dev" >/dev/null 2>&1
	cmp -s "$T/big" "$T/back" || fail "the file written on $dev reads back different"
	info "a loop device with 4096-byte sectors: written with -D, clean"
fi
info "direct I/O bypasses the page cache"
