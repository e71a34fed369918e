#!/bin/bash
# fsck_review_reserved: reserved inodes as the reference judges them (a
# hostile review's finding).  On a 4 MiB ext4 with 1 KiB blocks and
# 256-byte inodes:
#
#  case       damage                                          -n  -y  -p
#  garbage    inodes 1, 3, 4, 5, 6, 9 and 10 overwritten with    4   1   1
#             random bytes (seed 1; 2 and 7-8 kept), checksums failing
#  bad_sock   inode 1 mode 0140000 (debugfs sif, checksum ok)    4   1   1
#  bad_inline inode 1 flagged INLINE_DATA                        4   1   1
#  undel_mode inode 6 mode 0100644                               4   1   1
#  boot_dir   inode 5 a directory                                4   1   1
#  quota_link inode 3 (no quota feature) with links_count 1      4   1   1
#  r56_S      inodes 5 and 6 random bytes (seeds 1, 2, 5, 6)       4   1   1/4
#
# The bad-block inode must be a bad-block list (mode, owner, links, xattr
# block, extent and inline flags zero, checksum matching) else it is
# emptied (it holds no user data); the unused quota slots hold no links
# or blocks, the other unused reserved inodes no mode and no inline
# data, and their flags, map, i_size and i_blocks are judged as any
# inode's (a map the checker clears empties the inode).  After -y and -p
# the reference e2fsck -fn is clean; -n writes nothing.
# Catches: a checksum rewritten over garbage ("Inode 1 passes every check
# but its checksum does not match. Fix? yes": inode 1 became a socket with
# INLINE_DATA, the reference -fn then aborted, exit 12).  Checked by
# reverting fsck/pass1_inode.c: garbage -y fails "reference -fn not
# clean".

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_E2FSCK" "$REF_DEBUGFS" "$REF_MKE2FS" "$PYTHON"
export E2FSCK_CONFIG=/dev/null TZ=UTC E2FSCK_TIME=2000000000

mkdir -p "$T/tree/d1"
for i in $(seq 1 30); do echo "file$i" >"$T/tree/f$i"; done
truncate -s 4M "$T/b4.img"
"$REF_MKE2FS" -q -F -t ext4 -b 1024 -I 256 -E root_owner=0:0 \
	-U 6b33f586-a183-4d18-a7e6-4c5ad1b8e9f1 -d "$T/tree" "$T/b4.img" >/dev/null 2>&1 ||
	fail "mke2fs failed"

# the block holding inode 1 (from the descriptor, as debugfs says)
blk=$("$REF_DEBUGFS" -R 'imap <1>' "$T/b4.img" 2>/dev/null | sed -n 's/.*located at block \([0-9]*\), offset 0x0000.*/\1/p')
[ -n "$blk" ] || fail "debugfs imap <1> gave no block at offset 0"

# check NAME IMG [WANT_P]: -n (4, unchanged), -y (1) and -p (WANT_P,
# default 1; 4 where the reference -p stops too): after an exit 1 the
# reference -fn is clean.
check() {
	local name=$1 img=$2 sum m want
	cp "$img" "$T/$name.n.img"
	sum=$(sha256sum <"$T/$name.n.img")
	fsck_run "$name.n" 4 -fn "$T/$name.n.img"
	[ "$(sha256sum <"$T/$name.n.img")" = "$sum" ] || fail "$name -n: the image changed"
	for m in y p; do
		want=1
		[ $m = y ] || want=${3:-1}
		cp "$img" "$T/$name.$m.img"
		fsck_run "$name.$m" $want -f$m "$T/$name.$m.img"
		[ "$want" != 1 ] || ref_clean "$T/$name.$m.img" ||
			fail "$name -$m: reference -fn not clean: $REF_CLEAN_OUT"
	done
	! grepq 'passes every check but its checksum' "$T/$name.y.out" ||
		fail "$name -y: a checksum rewritten over a reserved inode that fails its checks"
}

# inodes 1, 3, 4 of that block, 5-6 and 9-10 of the next two: random
# bytes (seed 1; 30 seeds tried by hand: all reference-clean after -fy)
cp "$T/b4.img" "$T/garbage.img"
"$PYTHON" - "$T/garbage.img" "$blk" <<'EOF' || fail "python failed"
import random, sys
r = random.Random(1)
with open(sys.argv[1], "r+b") as f:
    for slot in (0, 2, 3):
        f.seek(int(sys.argv[2]) * 1024 + slot * 256)
        f.write(bytes(r.getrandbits(8) for _ in range(256)))
    for b in (1, 2):	# inodes 5-6 and 9-10
        f.seek((int(sys.argv[2]) + b) * 1024)
        f.write(bytes(r.getrandbits(8) for _ in range(512)))
EOF
check garbage "$T/garbage.img"
grepq 'bad-block inode (1) is no valid' "$T/garbage.y.out" || fail "garbage -y: inode 1 not judged"

# inodes 5 (boot loader) and 6 (undelete): random bytes, four seeds
# (flags, modes, maps, i_size and i_blocks of garbage)
for s in 1 2 5 6; do
	cp "$T/b4.img" "$T/r56_$s.img"
	"$PYTHON" - "$T/r56_$s.img" "$blk" "$s" <<'EOF' || fail "python failed"
import random, sys
with open(sys.argv[1], "r+b") as f:
    for ino in (5, 6):
        r = random.Random(int(sys.argv[3]))
        f.seek((int(sys.argv[2]) + 1) * 1024 + (ino - 5) * 256)
        f.write(bytes(r.getrandbits(8) for _ in range(256)))
EOF
	# seeds 2, 5: an unusable map stops -p (as the reference's -p);
	# seed 6: -p empties the inline-flagged inodes (the reference's -p
	# stops, exit 4: emptying an unused reserved inode loses nothing);
	# seed 1: inode 5 keeps a type with no map and an i_size beyond any
	# map (set to 0, as the reference does)
	case $s in 2 | 5) pwant=4 ;; *) pwant=1 ;; esac
	check "r56_$s" "$T/r56_$s.img" $pwant
done

n=0
for c in "bad_sock:sif <1> mode 0140000" "bad_inline:sif <1> flags 0x10000000" \
	"undel_mode:sif <6> mode 0100644" "boot_dir:sif <5> mode 040755" \
	"quota_link:sif <3> links_count 1"; do
	cp "$T/b4.img" "$T/${c%%:*}.img"
	"$REF_DEBUGFS" -w -R "${c#*:}" "$T/${c%%:*}.img" >/dev/null 2>&1 || fail "debugfs ${c#*:} failed"
	check "${c%%:*}" "$T/${c%%:*}.img"
	n=$((n + 1))
done
info "garbage reserved inodes and $n single-field cases: cleared as the reference does, reference clean"
exit 0
