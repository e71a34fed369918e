#!/bin/bash
# fsck_xattr_hash: the hashes of extended attributes (format doc 9.2), on
# a kernel-made ext4 (metadata_csum, ea_inode, 1 KiB blocks, 256-byte
# inodes) where /a keeps user.big (300 bytes) in its xattr block, /b
# user.small in the inode body, /c user.huge (3072 bytes) in an EA inode
# named from the inode body, /e user.huge3 (2560 bytes) in an EA inode
# named from its xattr block.  One damage per case:
#
#  case      damage                                    -fn  -fy  -fp
#  blk       /a's block entry e_hash (checksum kept     4    1    1
#            right)
#  body      /b's in-inode entry e_hash                 4    1    1
#  ea_body   /c's in-inode entry e_hash                 4    1    1
#  ea_blk    /e's block entry e_hash                    4    1    1
#  blk_csum  /a's block entry e_hash, the checksum      4    1    1
#            left as it was (fails)
#  ea_kept   /c's EA inode's kept hash (i_atime)        4    1    1
#  ea_value  a byte of /e's EA inode's value            4    4    4
#
# -fn says the row and writes nothing; -fy and -fp rewrite the hash (the
# entry's, or the EA inode's i_atime); after -fy every value is kept (the
# kernel reads all four attributes as written), the reference e2fsck -fn
# is clean, a second -fn says nothing.  blk_csum: the hash is judged before
# the checksum (which the hash explains): -fy rewrites the hash (and with
# it the checksum) and says no checksum row; a second -fy finds nothing
# (the old order fixed the checksum alone, the second run the hash).  The reference 1.47.0 says "has a hash ...
# which is invalid. Clear?" for the first five and -y/-p clear the whole
# area (the values lost): not followed.  ea_value: the EA inode's data no
# longer matches the hash it keeps and its entry names: said and left in
# every mode (the kernel refuses to read that attribute: checked; the
# reference does not look).
# Bugs caught: no hash compared at all (every case silent, exit 0/8);
# a fix that clears the attribute (the kernel no longer reads it);
# ea_value "fixed" by setting the kept hash to the damaged value's (the
# kernel would then hand out damaged data).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_E2FSCK" "$REF_MKE2FS" "$REF_DEBUGFS" "$PYTHON"
need_root_loop
export E2FSCK_CONFIG=/dev/null

img0=$T/base.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 -I 256 -O ea_inode "$img0" 8M >/dev/null 2>&1 ||
	fail "mke2fs failed"
mount_loop "$img0" "$T/mnt" || fail "mount failed"
"$PYTHON" - "$T/mnt" <<'PY' || fail "populating failed"
import os, sys
d = sys.argv[1]
for n in "abce":
    open(d + "/" + n, "w").write("hi")
os.setxattr(d + "/a", "user.big", b"v" * 300)
os.setxattr(d + "/b", "user.small", b"tiny")
os.setxattr(d + "/c", "user.huge", bytes(range(256)) * 12)
os.setxattr(d + "/e", "user.f1", b"f" * 60)
os.setxattr(d + "/e", "user.huge3", bytes(range(255, -1, -1)) * 10)
PY
umount_retry "$T/mnt"
ref_clean "$img0" || fail "the reference e2fsck -fn is not clean (premise): $REF_CLEAN_OUT"

# plant IMG WHAT: set an entry hash to 0x12345678 (WHAT: INO:NAME, the
# entry in the inode body or, when the inode has one, its xattr block;
# the block checksum recomputed so that only the hash is wrong), or print
# the first data block of EA inode INO (WHAT: ea:INO)
plant() {
	"$PYTHON" - "$@" <<'PY'
import struct, sys
path, what = sys.argv[1], sys.argv[2]
keep_csum = len(sys.argv) > 3
f = open(path, "r+b"); img = bytearray(f.read())
sb = 1024
u32 = lambda o: struct.unpack_from("<I", img, o)[0]
u16 = lambda o: struct.unpack_from("<H", img, o)[0]
bs = 1024 << u32(sb + 24)
T = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
    T.append(c)
def crc32c(c, data):
    for b in data:
        c = T[(c ^ b) & 0xFF] ^ (c >> 8)
    return c
seed = crc32c(0xFFFFFFFF, img[sb + 0x68:sb + 0x78])
desc = u16(sb + 0xFE) if u32(sb + 0x60) & 0x80 else 32
gd = (1 if bs == 1024 else 0) * bs + bs
itable = u32(gd + 8) | ((u32(gd + 0x28) << 32) if desc >= 64 else 0)
isz = u16(sb + 0x58)
def ioff(ino):
    return itable * bs + (ino - 1) * isz
def entries(base, first):
    e = base + first
    while u32(e):
        yield e
        e += (16 + img[e] + 3) & ~3
if what.startswith("ea:"):
    o = ioff(int(what[3:]))
    print(u32(o + 40 + 12 + 8))	# extent root: first extent's start_lo
    sys.exit(0)
ino, name = what.split(":")
o = ioff(int(ino))
acl = u32(o + 0x68)
if acl:
    b = acl * bs
    for e in entries(b, 32):
        if img[e + 16:e + 16 + img[e]] == name.encode():
            struct.pack_into("<I", img, e + 12, 0x12345678)
    if not keep_csum:
        struct.pack_into("<I", img, b + 16, 0)
        c = crc32c(crc32c(seed, struct.pack("<Q", acl)), img[b:b + bs])
        struct.pack_into("<I", img, b + 16, c)
else:
    body = o + 128 + u16(o + 128)
    assert u32(body) == 0xEA020000
    for e in entries(body + 4, 0):
        if img[e + 16:e + 16 + img[e]] == name.encode():
            struct.pack_into("<I", img, e + 12, 0x12345678)
f.seek(0); f.write(img); f.close()
PY
}
ino_of() { "$REF_DEBUGFS" -R "stat /$1" "$img0" 2>/dev/null | sed -n 's/^Inode: *\([0-9]*\).*/\1/p'; }
ia=$(ino_of a) ib=$(ino_of b) ic=$(ino_of c) ie=$(ino_of e)
# the EA inodes: the two inodes after /e
eac=$((ie + 1)) eae=$((ie + 2))
for x in $eac $eae; do
	"$REF_DEBUGFS" -R "stat <$x>" "$img0" 2>/dev/null | grepq "Flags: 0x2.0000" ||
		fail "setup: inode $x is not an EA inode"
done

# readback IMG NAME: the kernel reads the four attributes as written
readback() {
	"$PYTHON" - "$T/ro" <<'PY'
import os, sys
d = sys.argv[1]
ok = (os.getxattr(d + "/a", "user.big") == b"v" * 300 and
      os.getxattr(d + "/b", "user.small") == b"tiny" and
      os.getxattr(d + "/c", "user.huge") == bytes(range(256)) * 12 and
      os.getxattr(d + "/e", "user.huge3") == bytes(range(255, -1, -1)) * 10)
sys.exit(0 if ok else 1)
PY
}
mounted() {	# mounted IMG CMD...: run CMD with IMG mounted read-only at $T/ro
	local img=$1 dev rc
	shift
	dev=$(losetup -r -f --show "$img") || return 2
	mkdir -p "$T/ro"
	mount -t ext4 -o ro,noload "$dev" "$T/ro" 2>/dev/null || { losetup -d "$dev"; return 2; }
	"$@"
	rc=$?
	umount "$T/ro"
	losetup -d "$dev"
	return $rc
}
bad=()
run() {	# run NAME MODE IMG: e4fsck -fMODE, output in $T/NAME.*, prints the status
	runcap "$T/$1" 60 "$E4FSCK" -f$2 "$3"
	san_report "$T/$1.err" && fail "$1: sanitizer report: $(head -5 "$T/$1.err")"
	cat "$T/$1.rc"
}
want() {	# want NAME GOT WANT
	[ "$2" = "$3" ] || bad+=("$1: exit $2, expected $3: $(grep -v '^Pass' "$T/$1.out" | head -3 | tr '\n' ' ')")
}

cases="blk:$ia:big blk_csum:$ia:big body:$ib:small ea_body:$ic:huge ea_blk:$ie:huge3 ea_kept ea_value"
for cs in $cases; do
	n=${cs%%:*}
	cp "$img0" "$T/$n.img"
	case $n in
	ea_kept)
		"$REF_DEBUGFS" -w -R "sif <$eac> atime 0x11111111" "$T/$n.img" >/dev/null 2>&1
		row="EA inode $eac keeps value hash 0x11111111"
		;;
	ea_value)
		blk=$(plant "$T/$n.img" ea:$eae)
		printf 'X' | dd of="$T/$n.img" bs=1 seek=$((blk * 1024 + 100)) conv=notrunc status=none
		row="the value in EA inode $eae does not match the hash"
		;;
	blk_csum)
		plant "$T/$n.img" "${cs#*:}" keep_csum
		row="has entry hash 0x12345678"
		;;
	*)
		plant "$T/$n.img" "${cs#*:}"
		row="has entry hash 0x12345678"
		;;
	esac
	cmp -s "$img0" "$T/$n.img" && fail "$n: nothing planted"
	cp "$T/$n.img" "$T/$n.0.img"
	want $n.n "$(run $n.n n "$T/$n.img")" 4
	grepq "$row" "$T/$n.n.out" || bad+=("$n -fn: not said: $(grep -v '^Pass' "$T/$n.n.out" | head -2 | tr '\n' ' ')")
	cmp -s "$T/$n.0.img" "$T/$n.img" || bad+=("$n -fn: the image changed")
	cp "$T/$n.0.img" "$T/$n.p.img"
	if [ $n = ea_value ]; then
		want $n.y "$(run $n.y y "$T/$n.img")" 4
		want $n.p "$(run $n.p p "$T/$n.p.img")" 4
		cmp -s "$T/$n.0.img" "$T/$n.img" || bad+=("$n -fy: the image changed")
		cmp -s "$T/$n.0.img" "$T/$n.p.img" || bad+=("$n -fp: the image changed")
		# the report is real: the kernel refuses that attribute
		mounted "$T/$n.img" "$PYTHON" -c "import os,sys; os.getxattr(sys.argv[1], 'user.huge3')" \
			"$T/ro/e" 2>/dev/null && bad+=("$n: the kernel reads the damaged value")
		continue
	fi
	want $n.y "$(run $n.y y "$T/$n.img")" 1
	want $n.p "$(run $n.p p "$T/$n.p.img")" 1
	grepq "FIXED" "$T/$n.p.out" || bad+=("$n -fp: not fixed")
	ref_clean "$T/$n.img" || bad+=("$n -fy: the reference is not clean after: $(grep -v '^Pass\|^e2fsck' <<<"$REF_CLEAN_OUT" | head -3 | tr '\n' ' ')")
	mounted "$T/$n.img" readback || bad+=("$n -fy: the kernel does not read the attributes as written")
	grepq "does not match its checksum" "$T/$n.y.out" && bad+=("$n -fy: the checksum said too")
	run $n.2 n "$T/$n.img" >/dev/null
	grepq "entry hash\|value hash\|match the hash" "$T/$n.2.out" &&
		bad+=("$n: a second -fn still says: $(grep -v "^Pass" "$T/$n.2.out" | head -2)")
done
[ ${#bad[@]} = 0 ] || fail "$(printf '%s; ' "${bad[@]}")"
info "entry hashes rewritten (block, body, EA entries), an EA inode's kept hash set, a damaged EA value left ($(elapsed)s)"
exit 0
