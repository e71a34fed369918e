#!/bin/bash
# fsck_orphans: orphan release (truncate and free) on extent-mapped (ext4)
# and indirect-mapped (ext3) files, e4fsck -p against e2fsck -p.
#
# The files are written through a kernel mount (a 40-extent sparse file,
# so the extent tree has a leaf block and the block map a double-indirect
# level; a 3-extent file; a dense file; a file with an xattr block), then
# the orphan chain is made with the reference debugfs:
#   s_last_orphan -> 12 (links 1, i_size cut mid-file: truncate, the tree
#   leaf kept) -> 13 (links 1, i_size inside an extent: an extent cut in
#   two) -> 14 (links 0: freed) -> 15 (links 0, xattr block: freed, its
#   xattr block released)
# and the names of 14 and 15 are unlinked.  Checked, with the clock fixed:
#  - same exit status and messages ("Truncating"/"Clearing orphaned
#    inode");
#  - block and inode bitmaps, descriptors and superblock counts identical
#    (every block outside the inode table identical, except below);
#  - `debugfs stat` of each orphan identical apart from its checksum;
#  - the reference e2fsck -fn finds the result clean, and the kernel
#    mounts it.
# Known differences, kept on purpose (the kernel's truncate is the model):
#  - the last kept block of a truncated file has its bytes past i_size
#    zeroed (e2fsck 1.47.0 zeroes that range in the first block past the
#    end instead -- a block it then frees);
#  - unused extent slots of a shortened extent node (root or leaf block)
#    keep different stale bytes (outside eh_entries; e2fsck's punch
#    leaves intermediate states there), so those blocks are compared
#    through `debugfs stat`, not byte for byte.
# Catches: an orphan truncation that leaves stale bytes past i_size in the
# kept block.  Checked: with zero_tail's memset removed (lib/e4/orphan.c)
# it fails "ext4: tail of the truncated block not zeroed (352 bytes)".

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_E2FSCK" "$REF_DEBUGFS" "$REF_MKE2FS" "$PYTHON"
[ -x "$E4FSCK" ] || fail "e4fsck not found: $E4FSCK"
need_root_loop
export E2FSCK_CONFIG=/dev/null TZ=UTC
E2FSCK_TIME=$(($(date +%s) + 3600))
export E2FSCK_TIME
tmp_on_tmpfs 512m

cat >"$T/mk.py" <<'PY'
import os, sys
d = sys.argv[1]
def sparse(p, nregions, step, regsize):
    with open(p, 'wb') as f:
        for i in range(nregions):
            f.seek(i * step); f.write(bytes([65 + i % 26]) * regsize)
sparse(d + '/ext_deep', 40, 65536, 5000)
sparse(d + '/ext_flat', 3, 1 << 20, 300000)
with open(d + '/dense', 'wb') as f:
    f.write(b'z' * (3 << 20))
sparse(d + '/xat', 1, 4096, 10000)
os.setxattr(d + '/xat', 'user.big', b'q' * 700)
print(" ".join(str(os.stat(d + '/' + n).st_ino) for n in ('ext_deep', 'ext_flat', 'dense', 'xat')))
PY

cat >"$T/cmp.py" <<'PY'
import sys, subprocess
ref, our, bs = sys.argv[1], sys.argv[2], int(sys.argv[3])
itable = set()
for line in open(sys.argv[4]):      # "first count" of each inode table
    a, n = map(int, line.split()); itable.update(range(a, a + n))
allowed_blocks = set(int(x) for x in sys.argv[5].split()) if len(sys.argv) > 5 else set()
a = open(ref, 'rb').read(); b = open(our, 'rb').read()
sbok = [(0x2C, 4), (0x30, 4), (0x34, 2), (0x40, 4), (0x178, 8), (0x275, 1), (0x276, 1), (0x278, 1), (0x3FC, 4)]
bad = set()
for blk in range(len(a) // bs):
    x, y = a[blk * bs:(blk + 1) * bs], b[blk * bs:(blk + 1) * bs]
    if x == y or blk in itable or blk in allowed_blocks:
        continue
    for i in range(bs):
        o = blk * bs + i
        if x[i] != y[i] and not (1024 <= o < 2048 and any(s <= o - 1024 < s + l for s, l in sbok)):
            bad.add(blk); break
print(" ".join(map(str, sorted(bad))))
sys.exit(1 if bad else 0)
PY

for fstype in ext4 ext3; do
	img=$TFS/$fstype.img
	"$REF_MKE2FS" -q -F -t $fstype "$img" 32M >/dev/null 2>&1 || fail "mke2fs -t $fstype failed"
	mount_loop "$img" "$T/mnt" || fail "mount failed"
	read -r i1 i2 i3 i4 < <("$PYTHON" "$T/mk.py" "$T/mnt") || fail "workload failed"
	umount_retry "$T/mnt"
	cat >"$T/setup" <<EOF
sif <$i1> size 1126500
sif <$i1> dtime $i2
sif <$i2> size 1148576
sif <$i2> dtime $i3
sif <$i3> links_count 0
sif <$i3> dtime $i4
sif <$i4> links_count 0
sif <$i4> dtime 0
ssv last_orphan $i1
unlink dense
unlink xat
EOF
	"$REF_DEBUGFS" -w -f "$T/setup" "$img" >/dev/null 2>&1 || fail "debugfs setup failed"
	# blocks allowed to differ: the last kept block of each truncated file
	# (lblk 1100 of $i1 is a hole; lblk 1121 of $i2 is data) and, for the
	# block map, the first freed block after it (zeroed by the reference)
	allow="$("$REF_DEBUGFS" -R "bmap <$i2> 1121" "$img" 2>/dev/null) $("$REF_DEBUGFS" -R "bmap <$i2> 1122" "$img" 2>/dev/null)"
	# and extent tree blocks (stale bytes past eh_entries; their contents
	# are compared through debugfs stat below)
	allow="$allow $("$REF_DEBUGFS" -R "stat <$i1>" "$img" 2>/dev/null | sed -n 's/.*(ETB[0-9]*):\([0-9]*\).*/\1/p' | tr '\n' ' ')"
	bs=$("$REF_DUMPE2FS" -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
	ipb=$("$REF_DUMPE2FS" -h "$img" 2>/dev/null | sed -n 's/^Inode blocks per group: *//p')
	"$REF_DUMPE2FS" "$img" 2>/dev/null | sed -n "s/^  Inode table at \([0-9]*\)-.*/\1 $ipb/p" >"$T/itable"
	cp --sparse=always "$img" "$TFS/ref.img"
	cp --sparse=always "$img" "$TFS/our.img"
	runcap "$T/ref" 60 "$REF_E2FSCK" -p "$TFS/ref.img"
	runcap "$T/our" 60 "$E4FSCK" -p "$TFS/our.img"
	san_report "$T/our.err" && fail "$fstype: sanitizer report: $(head -5 "$T/our.err")"
	[ "$(cat "$T/ref.rc")" = "$(cat "$T/our.rc")" ] ||
		fail "$fstype: exit $(cat "$T/our.rc"), reference $(cat "$T/ref.rc"): $(cat "$T/our.out" "$T/our.err")"
	diff <(sed "s|$TFS/ref.img|IMG|" "$T/ref.out") <(sed "s|$TFS/our.img|IMG|" "$T/our.out") >&2 ||
		fail "$fstype: messages differ"
	bad=$("$PYTHON" "$T/cmp.py" "$TFS/ref.img" "$TFS/our.img" "$bs" "$T/itable" "$allow") ||
		fail "$fstype: blocks differ from the reference: $bad"
	for i in $i1 $i2 $i3 $i4; do
		diff <("$REF_DEBUGFS" -R "stat <$i>" "$TFS/ref.img" 2>/dev/null | grep -v 'checksum') \
			<("$REF_DEBUGFS" -R "stat <$i>" "$TFS/our.img" 2>/dev/null | grep -v 'checksum') >&2 ||
			fail "$fstype: inode $i differs from the reference"
	done
	# the kept block's tail past i_size reads as zeros: read the block
	# itself (dump stops at i_size); before e4fsck it held the file's data
	tailb() {
		local pb
		pb=$("$REF_DEBUGFS" -R "bmap <$i2> $((1148576 / bs))" "$1" 2>/dev/null)
		[ "${pb:-0}" -gt 0 ] || { echo -1; return; }	# -1: not mapped
		dd if="$1" bs=1 skip=$((pb * bs + 1148576 % bs)) count=$((bs - 1148576 % bs)) status=none |
			tr -d '\0' | wc -c
	}
	[ "$(tailb "$img")" -gt 0 ] || fail "$fstype: the block past i_size held no data before e4fsck"
	t=$(tailb "$TFS/our.img")
	[ "$t" = 0 ] || fail "$fstype: tail of the truncated block not zeroed ($t bytes)"
	ref_clean "$TFS/our.img" || fail "$fstype: reference -fn not clean: $REF_CLEAN_OUT"
	[ "$(cat "$T/our.rc")" -gt 1 ] || fsck_result_mounts "$TFS/our.img" "$fstype -p"
	verbose "$fstype: 2 truncated, 2 freed orphans as the reference"
	rm -f "$TFS"/*.img
done
info "orphans on ext4 (extents) and ext3 (block maps): same result as the reference ($(elapsed)s)"
exit 0
