# mkfs_common.bash: helpers shared by the tests/t/mkfs_*.sh scripts
# (sourced after tests/lib.sh; not a test itself).
#
# Every image is made with a fixed UUID, hash seed and clock, by e4mkfs
# (SOURCE_DATE_EPOCH) and, where compared, by the reference mke2fs
# (E2FSPROGS_FAKE_TIME, MKE2FS_CONFIG = Debian's 1.47.0 defaults written
# below), so the two images can be compared field by field.

E4MKFS=${E4MKFS:-$E4_BUILDDIR/mkfs/e4mkfs}
MKFS_UUID=01020304-0506-0708-090a-0b0c0d0e0f10
MKFS_SEED=11111111-2222-3333-4444-555555555555
MKFS_TIME=1700000000
export E4MKFS

need_e4mkfs() {
	[ -x "$E4MKFS" ] || fail "e4mkfs not found: $E4MKFS"
}

# The values of Debian's /etc/mke2fs.conf (e2fsprogs 1.47.0), which
# e4mkfs has built in; the reference reads them from this file so the
# host's own configuration does not matter.
mkfs_debian_conf() {
	MKFS_CONF=$T/mke2fs-debian.conf
	cp "$E4_TESTDIR/mke2fs-debian.conf" "$MKFS_CONF"
	export MKFS_CONF
}

# mkfs_split_ext OPTS...: sets MKFS_ARGS (array) and MKFS_EXT (the -E
# lists joined, with the fixed hash seed first; mke2fs keeps only the
# last -E, so both tools get a single one).
mkfs_split_ext() {
	MKFS_ARGS=()
	MKFS_EXT="hash_seed=$MKFS_SEED"
	while [ $# -gt 0 ]; do
		if [ "$1" = -E ]; then
			MKFS_EXT="$MKFS_EXT,$2"
			shift 2
		else
			MKFS_ARGS+=("$1")
			shift
		fi
	done
}

# mk_e4 IMG SIZE OPTS...: fresh sparse file of SIZE, formatted by e4mkfs.
# Output in IMG.e4out; returns e4mkfs's status.
mk_e4() {
	local img=$1 size=$2
	shift 2
	mkfs_split_ext "$@"
	rm -f "$img"
	truncate -s "$size" "$img" || return 99
	SOURCE_DATE_EPOCH=$MKFS_TIME timeout -k 5 1200 "$E4MKFS" -q -U "$MKFS_UUID" \
		-E "$MKFS_EXT" "${MKFS_ARGS[@]}" "$img" >"$img.e4out" 2>&1 </dev/null
}

# mk_ref IMG SIZE OPTS...: the same with the reference mke2fs (-F: it
# would ask about 64 KiB blocks).
mk_ref() {
	local img=$1 size=$2
	shift 2
	mkfs_split_ext "$@"
	rm -f "$img"
	truncate -s "$size" "$img" || return 99
	E2FSPROGS_FAKE_TIME=$MKFS_TIME MKE2FS_CONFIG=$MKFS_CONF timeout -k 5 1200 \
		"$REF_MKE2FS" -q -F -U "$MKFS_UUID" -E "$MKFS_EXT" "${MKFS_ARGS[@]}" "$img" \
		>"$img.refout" 2>&1 </dev/null
}

# fsck_clean IMG: the reference e2fsck -fn exits 0 and prints only its
# version line, the five pass lines and the summary.  On failure the
# output is in IMG.fsck and MKFS_WHY says why.
fsck_clean() {
	local img=$1 rc extra
	timeout -k 5 1800 "$REF_E2FSCK" -fn "$img" >"$img.fsck" 2>&1 </dev/null
	rc=$?
	extra=$(grep -v -e '^e2fsck [0-9]' -e '^Pass [1-5]: ' -e '^$' \
		-e ' files (.* non-contiguous), .* blocks$' "$img.fsck" | head -5)
	if [ $rc != 0 ] || [ -n "$extra" ]; then
		MKFS_WHY="e2fsck -fn exit $rc: $(echo "$extra" | tr '\n' '|' | cut -c1-300)"
		return 1
	fi
	return 0
}

# dump_parity REF MY: full dumpe2fs output equal but for the lines that
# differ by design (doc/e4mkfs.8, DIFFERENCES): "Lifetime writes" (bytes
# each tool happened to write) and the superblock "Checksum" that covers
# it.  Differences go to MY.dumpdiff.
# Also where root, lost+found and the resize inode's blocks are (free
# counts alone would not see a block given to the wrong directory).
dump_parity() {
	local ref=$1 my=$2 f
	for f in "$ref" "$my"; do
		{
			"$REF_DUMPE2FS" "$f" 2>/dev/null | grep -v -e '^Lifetime writes:' -e '^Checksum:'
			"$REF_DEBUGFS" -R 'blocks /' "$f" 2>/dev/null | sed 's/^/root blocks: /'
			"$REF_DEBUGFS" -R 'blocks /lost+found' "$f" 2>/dev/null | sed 's/^/lost+found blocks: /'
			"$REF_DEBUGFS" -R 'blocks <7>' "$f" 2>/dev/null | sed 's/^/resize inode blocks: /'
		} >"$f.dump"
	done
	[ -s "$ref.dump" ] || { echo "reference dumpe2fs printed nothing" >"$my.dumpdiff"; return 1; }
	diff "$ref.dump" "$my.dump" >"$my.dumpdiff"
}

# dump_h_parity REF MY: the acceptance fields of dumpe2fs -h agree.
dump_h_parity() {
	local ref=$1 my=$2 f
	local fields='Block count|Inode count|Blocks per group|Inodes per group|First block|Reserved GDT blocks|Total journal size|Total journal blocks|Filesystem features|Inode size|Required extra isize|Desired extra isize|Flex block group size|Reserved block count|Free blocks|Free inodes|Default mount options|Block size|Cluster size'
	for f in "$ref" "$my"; do
		"$REF_DUMPE2FS" -h "$f" 2>/dev/null | grep -E "^($fields):" >"$f.h"
	done
	[ -s "$ref.h" ] || { echo "reference dumpe2fs -h printed nothing" >"$my.hdiff"; return 1; }
	diff "$ref.h" "$my.h" >"$my.hdiff"
}

# fill_check IMG DIR: loop-mount IMG, write about half its free blocks and
# inodes (small files, one large file up to 64 MiB, a directory of up to
# 10,000 entries), unmount, check with e2fsck -fn, and compare
# e4debugfs rdump of the result with what was written (byte for byte).  Uses $TFS (a
# tmpfs) for the source tree and the dump.
fill_check() {
	local img=$1 mnt=$T/mnt.$2 src=$TFS/src.$2 out=$TFS/out.$2
	local free_b free_i bs nsmall ndir big_mb
	bs=$("$REF_DUMPE2FS" -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
	free_b=$("$REF_DUMPE2FS" -h "$img" 2>/dev/null | sed -n 's/^Free blocks: *//p')
	free_i=$("$REF_DUMPE2FS" -h "$img" 2>/dev/null | sed -n 's/^Free inodes: *//p')
	# budget: half the free space, half the free inodes
	local budget_kb=$((free_b * bs / 1024 / 2)) inodes=$((free_i / 2))
	big_mb=$((budget_kb / 2 / 1024))
	[ $big_mb -gt 64 ] && big_mb=64
	ndir=$((inodes / 2))
	[ $ndir -gt 10000 ] && ndir=10000
	nsmall=$((inodes - ndir - 4))
	# small files of 1..3 blocks: keep them within the other half
	local per=$((bs * 2 / 1024 + 1))
	[ $nsmall -gt $(((budget_kb - big_mb * 1024) / per / 2)) ] &&
		nsmall=$(((budget_kb - big_mb * 1024) / per / 2))
	[ $nsmall -gt 2000 ] && nsmall=2000
	[ $nsmall -lt 0 ] && nsmall=0
	rm -rf "$src" "$out"
	mkdir -p "$src/small" "$src/dir" "$out" "$mnt"
	fill_check_inner "$img" "$mnt" "$src" "$out" "$bs" "$big_mb" "$nsmall" "$ndir"
	local rc=$?
	rm -rf "$src" "$out"
	return $rc
}

fill_check_inner() {
	local img=$1 mnt=$2 src=$3 out=$4 bs=$5 big_mb=$6 nsmall=$7 ndir=$8
	# one process writes the whole tree (a process per file was most of
	# the time on a busy machine)
	"$PYTHON" - "$src" "$bs" "$big_mb" "$nsmall" "$ndir" <<'PYEOF' || { MKFS_WHY="making the source tree failed"; return 1; }
import os, sys
src, bs, big_mb, nsmall, ndir = sys.argv[1], *map(int, sys.argv[2:])
if big_mb > 0:
    with open(os.path.join(src, 'big'), 'wb') as f:
        for _ in range(big_mb):
            f.write(os.urandom(1 << 20))
for i in range(nsmall):
    with open(os.path.join(src, 'small', 'f%d' % i), 'wb') as f:
        f.write(os.urandom((i % 3) * bs + 100 + i))
for i in range(ndir):
    open(os.path.join(src, 'dir', 'entry-with-a-longer-name-%d' % i), 'wb').close()
PYEOF
	mount_loop "$img" "$mnt" || { MKFS_WHY="the kernel did not mount it"; return 1; }
	cp -a "$src/." "$mnt/" || { MKFS_WHY="writing into the mounted image failed"; return 1; }
	umount_retry "$mnt" || { MKFS_WHY="unmount failed"; return 1; }
	fsck_clean "$img" || { MKFS_WHY="after the kernel wrote: $MKFS_WHY"; return 1; }
	if [ -x "$E4DEBUGFS" ]; then
		timeout -k 5 600 "$E4DEBUGFS" -R "rdump / $out" "$img" >"$img.rdump" 2>&1 </dev/null
		# one process compares both trees (names, types, bytes)
		if ! "$PYTHON" - "$src" "$out" >"$img.treediff" 2>&1 <<'PYEOF'; then
import os, sys
a, b = sys.argv[1], sys.argv[2]
def walk(top):
    r = {}
    for d, dirs, files in os.walk(top):
        rel = os.path.relpath(d, top)
        if rel == 'lost+found':
            dirs[:] = []
            continue
        dirs[:] = [x for x in dirs if not (rel == '.' and x == 'lost+found')]
        for f in files:
            r[os.path.normpath(os.path.join(rel, f))] = os.path.join(d, f)
    return r
x, y = walk(a), walk(b)
bad = sorted(set(x) ^ set(y))
for k in sorted(set(x) & set(y)):
    with open(x[k], 'rb') as f, open(y[k], 'rb') as g:
        if f.read() != g.read():
            bad.append(k)
for k in bad[:5]:
    print(k)
sys.exit(1 if bad else 0)
PYEOF
			MKFS_WHY="e4debugfs rdump differs from what was written: $(head -3 "$img.treediff" | tr '\n' ' ')"
			return 1
		fi
	fi
	return 0
}

# ---- parallel sets -----------------------------------------------------------
# mkfs_slot: wait until fewer than E4_JOBS (default 2) background jobs run.
mkfs_slot() {
	while [ "$(jobs -rp | wc -l)" -ge "${E4_JOBS:-2}" ]; do
		wait -n
	done
}

# ---- group parity for large images -------------------------------------------
# group_parity REF MY [SAMPLES]: without dumpe2fs's walk over every group
# (minutes on 15 TiB): every group descriptor (bitmap and inode table
# locations, free counts, flags, unused inodes, checksums) is byte-equal
# in both images, read where the classic GDT or meta_bg puts it, and the
# block and inode bitmaps of about SAMPLES groups (spread evenly, with the
# first three, the middle and the last two) are byte-equal where
# initialised.  Differences go to MY.gdiff.
group_parity() {
	local ref=$1 my=$2 n=${3:-64} tmp=$T/gdcmp.py.$BASHPID
	# written once per job, then renamed: parallel jobs never see half a file
	[ -f "$T/gdcmp.py" ] || cat >"$tmp" <<'PYEOF'
import os, struct, sys

def sb(fd):
    b = os.pread(fd, 1024, 1024)
    u32 = lambda o: struct.unpack_from('<I', b, o)[0]
    u16 = lambda o: struct.unpack_from('<H', b, o)[0]
    inc = u32(0x60)
    blocks = u32(0x4) | ((u32(0x150) << 32) if inc & 0x80 else 0)
    return dict(bs=1024 << u32(0x18), first=u32(0x14), bpg=u32(0x20), cpg=u32(0x24),
                ipg=u32(0x28), inc=inc, ro=u32(0x64), blocks=blocks, fmbg=u32(0x104),
                dsz=(u16(0xFE) or 64) if inc & 0x80 else 32)

def main(ref, my, nsample):
    fr, fm = os.open(ref, os.O_RDONLY), os.open(my, os.O_RDONLY)
    s, t = sb(fr), sb(fm)
    if s != t:
        print('superblock geometry differs: %s / %s' % (s, t)); return 1
    bs, dsz = s['bs'], s['dsz']
    dpb = bs // dsz
    ngroups = (s['blocks'] - s['first'] + s['bpg'] - 1) // s['bpg']
    ndb = (ngroups + dpb - 1) // dpb
    fmbg = s['fmbg'] if s['inc'] & 0x10 else ndb

    def has_super(g):
        if g <= 1 or not (s['ro'] & 1):
            return True
        for p in (3, 5, 7):
            x = p
            while x < g:
                x *= p
            if x == g:
                return True
        return False

    def desc_block(i):
        if i < fmbg:
            return s['first'] + 1 + i
        g = i * dpb
        return s['first'] + g * s['bpg'] + (1 if has_super(g) else 0)

    desc, bad = {}, []
    for i in range(ndb):
        off = desc_block(i) * bs
        a, b = os.pread(fr, bs, off), os.pread(fm, bs, off)
        n = min(dpb, ngroups - i * dpb) * dsz
        if a[:n] != b[:n]:
            bad += [i * dpb + j // dsz for j in range(0, n, dsz) if a[j:j + dsz] != b[j:j + dsz]]
            if len(bad) >= 10:
                break
        desc[i] = b
    if bad:
        print('group descriptors differ in groups %s' % bad[:10]); return 1
    samples = {0, 1, 2, ngroups // 2, ngroups - 2, ngroups - 1}
    samples.update(range(0, ngroups, max(1, ngroups // max(1, nsample))))
    checked = 0
    for g in sorted(x for x in samples if 0 <= x < ngroups):
        d = desc[g // dpb][(g % dpb) * dsz:(g % dpb + 1) * dsz]
        u32 = lambda o: struct.unpack_from('<I', d, o)[0]
        bb = u32(0x0) | ((u32(0x20) << 32) if dsz >= 64 else 0)
        ib = u32(0x4) | ((u32(0x24) << 32) if dsz >= 64 else 0)
        flags = struct.unpack_from('<H', d, 0x12)[0]
        for what, blk, nbytes, uninit in (('block', bb, s['cpg'] // 8, flags & 2),
                                          ('inode', ib, s['ipg'] // 8, flags & 1)):
            if uninit:
                continue
            if os.pread(fr, nbytes, blk * bs) != os.pread(fm, nbytes, blk * bs):
                print('%s bitmap of group %d differs' % (what, g)); return 1
            checked += 1
    print('%d groups: every descriptor equal; %d bitmaps of %d sampled groups equal'
          % (ngroups, checked, len(samples)))
    return 0

sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
PYEOF
	[ -f "$T/gdcmp.py" ] || mv -f "$tmp" "$T/gdcmp.py"
	rm -f "$tmp"
	"$PYTHON" "$T/gdcmp.py" "$ref" "$my" "$n" >"$my.gdiff" 2>&1
}

# dump_h_full_parity REF MY: the whole dumpe2fs -h output equal but for the
# documented lines (see dump_parity).  Differences go to MY.hdiff.
dump_h_full_parity() {
	local ref=$1 my=$2
	"$REF_DUMPE2FS" -h "$ref" 2>/dev/null | grep -v -e '^Lifetime writes:' -e '^Checksum:' >"$ref.hdump"
	"$REF_DUMPE2FS" -h "$my" 2>/dev/null | grep -v -e '^Lifetime writes:' -e '^Checksum:' >"$my.hdump"
	[ -s "$ref.hdump" ] || { echo "reference dumpe2fs -h printed nothing" >"$my.hdiff"; return 1; }
	diff "$ref.hdump" "$my.hdump" >"$my.hdiff"
}
