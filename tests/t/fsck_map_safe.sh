#!/bin/bash
# fsck_map_safe: the map checker never discards what could be recovered
# (the project rule: -y and -p never lose an inode, a directory's data, a
# file's blocks; -p fixes only what is safe and otherwise stops, exit 4).
#
# One kernel-populated ext4 image (16 MiB, 1 KiB blocks, metadata_csum, no
# journal): /big (two 1 MiB halves, a 64 KiB hole between, another file
# written between: a depth-0 root of two extents), /two (200
# one-block extents every other block: an index root over full leaves).
# One damage per case, made with the reference debugfs -w or dd:
#  zero_len   /big's first extent's ee_len set to 0 (i_block word 4): was
#             "CLEARED" by -p and freed 1 MiB in pass 5.  Now -p stops
#             with the image unchanged; -y answers no (the length is implied
#             by the next extent, a hole cannot be told from a longer
#             extent): exit 4, nothing freed (the length put back by hand,
#             the reference finds the image clean and the data is intact).
#  leaf_count a leaf of /two with eh_entries 84 -> 60: was "fails its
#             checksum. FIXED" by -p and pass 5 freed the 24 blocks no
#             longer listed.  Now -p stops; -y restores the count (the
#             checksum matches with 84); leaf_count_csum: an entry
#             changed too (no count matches): -y leaves the node.
#  magic0     /big's root header word 0 (magic and entries) zeroed: was
#             read as a "block map" by -y, freeing the data.  Now the
#             header is rebuilt from the intact entries.
#  magic1     /big's magic one bit off (0xf30b): was cleared; rebuilt.
#  stale      /big's eh_entries 5 (room for 4): was "out of order" twice
#             naming the kept extent; now one row naming the stale slots.
# Where we repair: -fy exits 1, the reference e2fsck -fn is clean, and
# the file read through a read-only kernel mount has its md5 from before
# the damage.  Where -p must stop: exit 4 and the image byte-identical.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_MKE2FS" "$REF_DEBUGFS" "$REF_E2FSCK"
need_root_loop
need_cmd "$PYTHON"

IMG=$T/base.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 -O ^has_journal,metadata_csum "$IMG" 16M || fail "mke2fs"
mount_loop "$IMG" "$T/mnt" || fail "cannot mount $IMG"
"$PYTHON" - "$T/mnt" <<'PY' || fail "populating"
import os, sys
mnt = sys.argv[1]
def w(name, off, data):
    fd = os.open(os.path.join(mnt, name), os.O_WRONLY | os.O_CREAT, 0o644)
    os.pwrite(fd, data, off)
    os.fsync(fd)
    os.close(fd)
half = bytes((i * 7 + 3) % 256 for i in range(1 << 20))
w('big', 0, half)
w('pad', 0, b'p' * 8192)
w('big', (1 << 20) + 65536, half[::-1])
fd = os.open(os.path.join(mnt, 'two'), os.O_WRONLY | os.O_CREAT, 0o644)
for i in range(200):
    os.pwrite(fd, bytes([i % 251 + 1]) * 1024, i * 2048)
os.close(fd)
PY
umount_retry "$T/mnt"
ref_clean "$IMG" || fail "the populated image is not clean: $REF_CLEAN_OUT"

ext_count=$("$REF_DEBUGFS" -R "ex /big" "$IMG" 2>/dev/null | grep -c '^ *0/ *0 ')
[ "$ext_count" = 2 ] || fail "/big has $ext_count extents in its root, want 2"
L1=$("$REF_DEBUGFS" -R "ex /two" "$IMG" 2>/dev/null |
	awk '$1 == "0/" && $3 == "1/" { print $(NF-1); exit }')
[ -n "$L1" ] || fail "/two's first leaf not found"

# md5 IMG PATH: md5 of /PATH read through a read-only kernel mount
md5() {
	local dev out
	dev=$(losetup -r -f --show "$1") || fail "losetup $1"
	mkdir -p "$T/m"
	if ! mount -t ext4 -o ro "$dev" "$T/m" 2>"$T/mount.err"; then
		losetup -d "$dev"
		fail "the kernel does not mount $1: $(cat "$T/mount.err")"
	fi
	out=$(md5sum <"$T/m/$2" | cut -d' ' -f1)
	umount_retry "$T/m"
	losetup -d "$dev" 2>/dev/null
	echo "$out"
}
BIG_MD5=$(md5 "$IMG" big) TWO_MD5=$(md5 "$IMG" two)
[ -n "$BIG_MD5" ] && [ -n "$TWO_MD5" ] || fail "cannot read the files"

dbgw() { "$REF_DEBUGFS" -w -R "$2" "$1" >/dev/null 2>&1 || fail "debugfs -w '$2'"; }
put16() {
	printf "$(printf '\\x%02x\\x%02x' $(($4 & 255)) $((($4 >> 8) & 255)))" |
		dd of="$1" bs=1 seek=$(($2 * 1024 + $3)) conv=notrunc status=none
}

# preen_stops NAME: e4fsck -p on a copy of $W exits 4 and writes nothing
preen_stops() {
	local img=$T/$1.p.img
	cp "$W" "$img"
	runcap "$T/$1.p" 60 "$E4FSCK" -fp "$img"
	[ "$(cat "$T/$1.p.rc")" = 4 ] ||
		fail "$1: e4fsck -fp exited $(cat "$T/$1.p.rc") (want 4): $(head -20 "$T/$1.p.out")"
	cmp -s "$img" "$W" || fail "$1: e4fsck -p changed the image: $(head -20 "$T/$1.p.out")"
}
# repaired NAME PATH MD5 MSG: e4fsck -fy exits 1 saying MSG, the
# reference is clean, PATH reads as before the damage
repaired() {
	local img=$T/$1.y.img
	cp "$W" "$img"
	runcap "$T/$1.y" 60 "$E4FSCK" -fy "$img"
	[ "$(cat "$T/$1.y.rc")" = 1 ] ||
		fail "$1: e4fsck -fy exited $(cat "$T/$1.y.rc"): $(head -30 "$T/$1.y.out")"
	grepq -F "$4" "$T/$1.y.out" || fail "$1: -fy does not say '$4': $(head -20 "$T/$1.y.out")"
	ref_clean "$img" || fail "$1: the reference after -fy: $REF_CLEAN_OUT"
	[ "$(md5 "$img" "$2")" = "$3" ] || fail "$1: /$2 differs after -fy"
}

# ---- zero_len -------------------------------------------------------------
W=$T/zero_len.img
cp "$IMG" "$W"
ORIG_LEN=$("$REF_DEBUGFS" -R "ex /big" "$W" 2>/dev/null | awk '$1 == "0/" && $3 == "1/" { print $NF; exit }')
[ -n "$ORIG_LEN" ] || fail "zero_len: first extent's length not found"
dbgw "$W" "sif /big block[4] 0"
preen_stops zero_len
cp "$W" "$T/zl.y.img"
runcap "$T/zl.y" 60 "$E4FSCK" -fy "$T/zl.y.img"
[ "$(cat "$T/zl.y.rc")" = 4 ] || fail "zero_len: -fy exited $(cat "$T/zl.y.rc") (want 4): $(head -20 "$T/zl.y.out")"
grepq "not done by -y" "$T/zl.y.out" || fail "zero_len: -fy does not say why it left it: $(head "$T/zl.y.out")"
# the length put back by hand: nothing was freed or given away
dbgw "$T/zl.y.img" "sif /big block[4] $ORIG_LEN"
ref_clean "$T/zl.y.img" || fail "zero_len: after -fy and the length put back: $REF_CLEAN_OUT"
[ "$(md5 "$T/zl.y.img" big)" = "$BIG_MD5" ] || fail "zero_len: /big differs"

# ---- leaf_count -------------------------------------------------------------
W=$T/leaf_count.img
cp "$IMG" "$W"
put16 "$W" "$L1" 2 60
preen_stops leaf_count
repaired leaf_count two "$TWO_MD5" "claims 60 entries, but its checksum matches 84"

# leaf_count_csum: the same, and entry 84's ee_block high byte changed
# too: no count matches the checksum, but slot 61 on still continue the
# entries: the rewrite would let pass 5 free them, so -y answers no
# (exit 4) and pass 5 frees nothing (both bytes put back by hand: clean)
W=$T/leaf_count_csum.img
cp "$IMG" "$W"
put16 "$W" "$L1" 2 60
put16 "$W" "$L1" $((12 + 12 * 83 + 2)) $((0x7f00))
preen_stops leaf_count_csum
cp "$W" "$T/lcc.y.img"
runcap "$T/lcc.y" 60 "$E4FSCK" -fy "$T/lcc.y.img"
[ "$(cat "$T/lcc.y.rc")" = 4 ] ||
	fail "leaf_count_csum: -fy exited $(cat "$T/lcc.y.rc") (want 4): $(head -20 "$T/lcc.y.out")"
grepq "not done by -y: slots past eh_entries" "$T/lcc.y.out" ||
	fail "leaf_count_csum: -fy does not say why it left it: $(head "$T/lcc.y.out")"
put16 "$T/lcc.y.img" "$L1" 2 84
put16 "$T/lcc.y.img" "$L1" $((12 + 12 * 83 + 2)) 0
ref_clean "$T/lcc.y.img" || fail "leaf_count_csum: after -fy and the bytes put back: $REF_CLEAN_OUT"
[ "$(md5 "$T/lcc.y.img" two)" = "$TWO_MD5" ] || fail "leaf_count_csum: /two differs"

# ---- magic0, magic1 ------------------------------------------------------
W=$T/magic0.img
cp "$IMG" "$W"
dbgw "$W" "sif /big block[0] 0"
preen_stops magic0
repaired magic0 big "$BIG_MD5" "root header is damaged (bad magic), but its entries are intact: the header is rebuilt with 2 entries"

W=$T/magic1.img
cp "$IMG" "$W"
dbgw "$W" "sif /big block[0] 0x0002f30b"
preen_stops magic1
repaired magic1 big "$BIG_MD5" "the header is rebuilt with 2 entries, depth 0"

# ---- stale ------------------------------------------------------------------
W=$T/stale.img
cp "$IMG" "$W"
dbgw "$W" "sif /big block[0] 0x0005f30a"
preen_stops stale
repaired stale big "$BIG_MD5" "claims 5 entries with room for 4; 2 are valid, the slots after them are dropped (slot 3: logical 0, physical 0, length 0; slot 4:"
grepq "out of order" "$T/stale.y.out" && fail "stale: still says out of order: $(head "$T/stale.y.out")"

info "6 cases: -p stops, -y keeps the data"
