#!/bin/bash
# gen_layout_vectors.sh: capture the geometry the reference mke2fs (Debian
# e2fsprogs 1.47.0) chooses for a list of device sizes and options, as the C
# table embedded in tests/unit/test_layout.c.
#
# Usage: tests/unit/gen_layout_vectors.sh [--update tests/unit/test_layout.c]
#   Without --update the table is printed on stdout.  With it, the lines
#   between the BEGIN/END GENERATED markers of the file are replaced.
#
# Each case makes a sparse image file of SIZE bytes on a tmpfs, formats it
# with `mke2fs -F -q -t TYPE [opts] IMG` (no size argument: the device-size
# path, rounded down to the page size as mke2fs does), then reads the
# superblock and a few group descriptors straight from the image (python3),
# the backup layout from `dumpe2fs -g`, and the first journal and orphan
# file blocks from `debugfs -R 'bmap <N> 0'`.  Every case also gets
# `-E nodiscard,lazy_journal_init=1` (merged into its own -E) so that
# nothing is zeroed: that changes no geometry, only speed.  With nodiscard
# and lazy_itable_init (the default where /sys/fs/ext4/features has it),
# mke2fs sets no ITABLE_ZEROED flag; cases marked "discard" keep discard on
# and so get ITABLE_ZEROED (a punched regular file reads back zeros).
#
# Needs root only for nothing; needs python3, mke2fs, dumpe2fs, debugfs and
# a tmpfs that accepts sparse files above 16 TiB (/dev/shm here).
set -euo pipefail

WORK=${LAYOUT_WORK:-/dev/shm/e4-layout-vectors}
mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT
export MKE2FS_CONFIG=${MKE2FS_CONFIG:-/etc/mke2fs.conf}

K=1024; M=$((1024*K)); G=$((1024*M)); T=$((1024*G))

# name|size in bytes|mke2fs options (-t first)|flags
CASES=(
"ext4_1m|$((1*M))|-t ext4|"
"ext4_2m|$((2*M))|-t ext4|"
"ext4_3m|$((3*M))|-t ext4|"
"ext4_16m|$((16*M))|-t ext4|"
"ext4_64m|$((64*M))|-t ext4|"
"ext4_200m|$((200*M))|-t ext4|"
"ext4_511m|$((511*M))|-t ext4|"
"ext4_512m|$((512*M))|-t ext4|"
"ext4_1g|$((1*G))|-t ext4|"
"ext4_1g_discard|$((1*G))|-t ext4|discard"
"ext4_10g|$((10*G))|-t ext4|"
"ext4_100g|$((100*G))|-t ext4|"
"ext4_1t|$((1*T))|-t ext4|"
"ext4_5t|$((5*T))|-t ext4|"
"ext4_17t|$((17*T))|-t ext4|"
"ext4_5t_b1024|$((5*T))|-t ext4 -b 1024|"
"ext2_64m|$((64*M))|-t ext2|"
"ext2_1g|$((1*G))|-t ext2|"
"ext3_64m|$((64*M))|-t ext3|"
"ext3_1g|$((1*G))|-t ext3|"
"ext3_10g|$((10*G))|-t ext3|"
"ext4_b1024_1g|$((1*G))|-t ext4 -b 1024|"
"ext4_b2048_300m|$((300*M))|-t ext4 -b 2048|"
"ext4_b4096_64m|$((64*M))|-t ext4 -b 4096|"
"ext4_b65536_1g|$((1*G))|-t ext4 -b 65536|"
"ext4_b65536_10g|$((10*G))|-t ext4 -b 65536|"
"ext4_i128_1g|$((1*G))|-t ext4 -I 128|"
"ext4_i1024_1g|$((1*G))|-t ext4 -I 1024|"
"ext4_ratio_1g|$((1*G))|-t ext4 -i 65536|"
"ext4_ratio1k_64m|$((64*M))|-t ext4 -i 1024|"
"ext4_n_1g|$((1*G))|-t ext4 -N 100000|"
"ext4_nbig_64m|$((64*M))|-t ext4 -N 60000|"
"ext4_m0_1g|$((1*G))|-t ext4 -m 0|"
"ext4_m1_1g|$((1*G))|-t ext4 -m 1|"
"ext4_m50_1g|$((1*G))|-t ext4 -m 50|"
"ext4_g8192_1g|$((1*G))|-t ext4 -g 8192|"
"ext4_g1024_64m|$((64*M))|-t ext4 -g 1024|"
"ext4_G4_10g|$((10*G))|-t ext4 -G 4|"
"ext4_G32_10g|$((10*G))|-t ext4 -G 32|"
"ext4_noresize_1g|$((1*G))|-t ext4 -O ^resize_inode|"
"ext4_metabg_1g|$((1*G))|-t ext4 -O ^resize_inode,meta_bg|"
"ext4_metabg_b1024_256m|$((256*M))|-t ext4 -b 1024 -O ^resize_inode,meta_bg|"
"ext4_noflex_1g|$((1*G))|-t ext4 -O ^flex_bg|"
"ext4_ss2_10g|$((10*G))|-t ext4 -O sparse_super2|"
"ext4_ss2_0_10g|$((10*G))|-t ext4 -O sparse_super2 -E num_backup_sb=0|"
"ext4_ss2_1_10g|$((10*G))|-t ext4 -O sparse_super2 -E num_backup_sb=1|"
"ext4_bigalloc16k_1g|$((1*G))|-t ext4 -O bigalloc -C 16384|"
"ext4_bigalloc64k_10g|$((10*G))|-t ext4 -O bigalloc -C 65536|"
"ext4_bigalloc_default_1g|$((1*G))|-t ext4 -O bigalloc|"
"ext4_no64bit_1g|$((1*G))|-t ext4 -O ^64bit|"
"ext4_uninit_1g|$((1*G))|-t ext4 -O ^metadata_csum,uninit_bg,^64bit|"
"ext4_uninit64_1g|$((1*G))|-t ext4 -O ^metadata_csum,uninit_bg|"
"ext4_news_1g|$((1*G))|-t ext4 -T news|"
"ext4_largefile_10g|$((10*G))|-t ext4 -T largefile|"
"ext4_largefile4_10g|$((10*G))|-t ext4 -T largefile4|"
"ext4_small_1g|$((1*G))|-t ext4 -T small|"
"ext4_orphan_1g|$((1*G))|-t ext4 -O orphan_file|"
"ext4_orphan_64m|$((64*M))|-t ext4 -O orphan_file|"
"ext4_orphan_10g|$((10*G))|-t ext4 -O orphan_file|"
"ext4_resize_1g|$((1*G))|-t ext4 -E resize=1000000|"
"ext4_resize_ext2_64m|$((64*M))|-t ext2 -E resize=300000|"
"ext4_packed_1g|$((1*G))|-t ext4 -E packed_meta_blocks=1|"
"ext4_jsize_1g|$((1*G))|-t ext4 -J size=64|"
"ext4_jsize_b1024_200m|$((200*M))|-t ext4 -J size=8|"
"ext4_nojournal_1g|$((1*G))|-t ext4 -O ^has_journal|"
"ext4_stride_1g|$((1*G))|-t ext4 -E stride=16,stripe_width=64|"
"ext3_stride_1g|$((1*G))|-t ext3 -E stride=32|"
"ext4_csumseed_1g|$((1*G))|-t ext4 -O metadata_csum_seed,inline_data|"
"ext4_fastcommit_1g|$((1*G))|-t ext4 -O fast_commit|"
"ext4_odd_1g|$((1*G + 5*M + 12345))|-t ext4|"
"ext4_lastdrop_b1024|$((8193*K*3 + 40*K))|-t ext4 -b 1024|"
"ext2_nosparse_64m|$((64*M))|-t ext2 -O ^sparse_super,^resize_inode|"
"ext4_desc128_1g|$((1*G))|-t ext4 -E desc_size=128|"
"ext4_b1024_bigalloc_256m|$((256*M))|-t ext4 -b 1024 -O bigalloc|"
"ext4_huge_20t|$((20*T))|-t ext4|"
"ext4_200k|$((200*K))|-t ext4|"
"ext4_300k|$((300*K))|-t ext4|"
"ext2_b1024_g256_64m|$((64*M))|-t ext2 -g 256 -N 100000|"
"ext4_b1024_10g|$((10*G))|-t ext4 -b 1024|"
"ext4_jbig_10g|$((10*G))|-t ext4 -J size=1024|"
"ext4_noextent_1g|$((1*G))|-t ext4 -O ^extent,^64bit|"
"ext2_1m|$((1*M))|-t ext2|"
"ext2_2m|$((2*M))|-t ext2|"
"ext4_T_huge_1g|$((1*G))|-t ext4 -T huge|"
"ext4_N16_16m|$((16*M))|-t ext4 -N 16|"
"ext4_noflex_stride_1g|$((1*G))|-t ext4 -O ^flex_bg -E stride=8|"
"ext4_ss2_2groups|$((200*M))|-t ext4 -b 4096 -O sparse_super2|"
"ext4_largefile_news_10g|$((10*G))|-t ext4 -T largefile,news|"
"ext4_G2_8000k_b1024|$((8000*K))|-t ext4 -b 1024 -G 2|"
"ext4_G8_8000k_b1024|$((8000*K))|-t ext4 -b 1024 -G 8|"
"ext4_G4_9m_b4096|$((9*M))|-t ext4 -b 4096 -G 4|"
"ext4_G2_50m_b4096|$((50*M))|-t ext4 -b 4096 -G 2|"
"ext2_N100_100m|$((100*M))|-t ext2 -N 100|"
"ext4_N100_100m|$((100*M))|-t ext4 -N 100|"
"ext4_r0_100m|$((100*M))|-t ext4 -r 0 -N 100|"
"ext2_r0_8m|$((8*M))|-t ext2 -r 0|"
)

# Geometry only (mke2fs -n with an explicit block count, no image):
# name|blocks|options
GEOM_CASES=(
"ext4_16p_b65536|274877906944|-t ext4 -b 65536"
"ext4_1e_b65536|17592186044416|-t ext4 -b 65536"
"ext4_64t_b4096|17179869184|-t ext4 -b 4096"
)

extract() {	# $1 = image, $2 = name, $3 = size, $4 = args
	local img=$1
	dumpe2fs -g "$img" 2>/dev/null >"$WORK/groups.txt"
	python3 - "$img" "$2" "$3" "$4" "$WORK/groups.txt" <<'EOF'
import struct, sys, subprocess
img, name, size, args, gfile = sys.argv[1:6]
f = open(img, 'rb')
f.seek(1024)
sb = f.read(1024)
u32 = lambda o: struct.unpack_from('<I', sb, o)[0]
u16 = lambda o: struct.unpack_from('<H', sb, o)[0]
u8 = lambda o: sb[o]
incompat = u32(0x60)
is64 = incompat & 0x80
blocks = u32(0x04) | ((u32(0x150) << 32) if is64 else 0)
rblocks = u32(0x08) | ((u32(0x154) << 32) if is64 else 0)
fblocks = u32(0x0C) | ((u32(0x158) << 32) if is64 else 0)
bs = 1024 << u32(0x18)
cs = 1024 << u32(0x1C)
fdb = u32(0x14)
bpg = u32(0x20); cpg = u32(0x24); ipg = u32(0x28)
dsz = u16(0xFE) if is64 else 32
ngroups = (blocks - fdb + bpg - 1) // bpg
dpb = bs // dsz
first_meta_bg = u32(0x104)
meta_bg = incompat & 0x10
sup = {}
for line in open(gfile):
    p = line.strip().split(':')
    if len(p) >= 7 and p[0].isdigit():
        sup[int(p[0])] = 0 if p[2] == '-1' else 1
def bmap(ino):
    if ino == 0:
        return 0
    out = subprocess.run(['debugfs', '-R', 'bmap <%d> 0' % ino, img],
                         capture_output=True, text=True).stdout.strip()
    return int(out) if out.isdigit() else 0
jino = u32(0xE0)
jblocks = u32(0x10C + 4 * 16) if jino else 0   # s_jnl_blocks[16] = i_size
jblocks_hi = u32(0x10C + 4 * 15) if jino else 0  # [15] = i_size_high
jbytes = (jblocks_hi << 32) | jblocks
oino = u32(0x280)
sbblk = 1 if bs == 1024 else 0   # block holding the primary superblock
def desc_loc(g):
    if meta_bg and g // dpb >= first_meta_bg:
        mg0 = (g // dpb) * dpb
        gb = fdb + mg0 * bpg
        if gb == 0:
            gb = sbblk
        return (gb + sup.get(mg0, 0)) * bs + (g % dpb) * dsz
    return (sbblk + 1 + g // dpb) * bs + (g % dpb) * dsz
samples = []
for g in [0, 1, ngroups // 2, ngroups - 1]:
    if g < ngroups and g not in samples:
        samples.append(g)
jfirst = bmap(jino)
if jfirst:
    jg = (jfirst - fdb) // bpg
    if jg not in samples:
        samples.append(jg)
rows = []
for g in samples:
    f.seek(desc_loc(g))
    d = f.read(dsz)
    d = d + bytes(64 - len(d)) if len(d) < 64 else d
    w32 = lambda o: struct.unpack_from('<I', d, o)[0]
    w16 = lambda o: struct.unpack_from('<H', d, o)[0]
    hi = dsz >= 64
    bb = w32(0) | ((w32(0x20) << 32) if hi else 0)
    ib = w32(4) | ((w32(0x24) << 32) if hi else 0)
    it = w32(8) | ((w32(0x28) << 32) if hi else 0)
    fb = w16(0xC) | ((w16(0x2C) << 16) if hi else 0)
    fi = w16(0xE) | ((w16(0x2E) << 16) if hi else 0)
    ud = w16(0x10) | ((w16(0x30) << 16) if hi else 0)
    fl = w16(0x12)
    un = w16(0x1C) | ((w16(0x32) << 16) if hi else 0)
    rows.append('{ %d, %d, %dULL, %dULL, %dULL, %d, %d, %d, 0x%x, %d }'
                % (g, sup.get(g, -1), bb, ib, it, fb, fi, ud, fl, un))
print('\t{ "%s", %dULL, "%s", %d,' % (name, int(size), args,
      1 if name.endswith('_discard') else 0))
print('\t  { %dULL, %dULL, %dULL, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d,'
      % (blocks, rblocks, fblocks, u32(0x00), u32(0x10), fdb, bs, cs, bpg, cpg, ipg,
         u16(0x58), dsz))
print('\t    %d, %d, %d, %d, %d, %d, 0x%x, 0x%x, 0x%x, %d, %d,'
      % (u16(0xCE), first_meta_bg, u8(0x174), u32(0x24C), u32(0x250), ngroups,
         u32(0x5C), incompat, u32(0x64), u32(0x248), u16(0x164)))
print('\t    %d, %dULL, %dULL, %d, %dULL },'
      % (u32(0x170), jbytes // bs, jfirst, oino, bmap(oino)))
print('\t  %d, {' % len(rows))
for r in rows:
    print('\t\t%s,' % r)
print('\t  } },')
EOF
}

gen_table() {
	local c name size args flags img eopt o have_e
	for c in "${CASES[@]}"; do
		IFS='|' read -r name size args flags <<<"$c"
		img="$WORK/$name.img"
		rm -f "$img"
		truncate -s "$size" "$img"
		# merge our -E with the case's own (mke2fs keeps only the last -E)
		eopt="lazy_journal_init=1"
		[ "$flags" = discard ] || eopt="nodiscard,$eopt"
		local -a argv=()
		read -r -a argv <<<"$args"
		local -a final=()
		have_e=0
		for ((o = 0; o < ${#argv[@]}; o++)); do
			if [ "${argv[o]}" = -E ]; then
				final+=(-E "${argv[o+1]},$eopt")
				o=$((o + 1))
				have_e=1
			else
				final+=("${argv[o]}")
			fi
		done
		[ $have_e = 1 ] || final+=(-E "$eopt")
		if ! mke2fs -F -q "${final[@]}" "$img" >"$WORK/mke2fs.out" 2>&1; then
			echo "mke2fs failed for $name:" >&2
			cat "$WORK/mke2fs.out" >&2
			exit 1
		fi
		extract "$img" "$name" "$size" "$args"
		rm -f "$img"
	done
}

gen_geom() {
	local c name n args
	for c in "${GEOM_CASES[@]}"; do
		IFS='|' read -r name n args <<<"$c"
		# shellcheck disable=SC2086
		mke2fs -n -F -v $args "$WORK/none.img" "$n" >"$WORK/geom.out" 2>&1
		awk -v name="$name" -v n="$n" -v args="$args" '
			/ inodes, .* blocks$/ { inodes = $1; blocks = $3 }
			/reserved for the super user/ { rblocks = $1 }
			/ block groups?$/ { groups = $1 }
			/ blocks per group,/ { bpg = $1 }
			/ inodes per group$/ { ipg = $1 }
			END { printf "\t{ \"%s\", %sULL, \"%s\", %sULL, %sULL, %s, %s, %s, %s },\n",
				name, n, args, blocks, rblocks, inodes, groups, bpg, ipg }' "$WORK/geom.out"
	done
}

if [ "${1:-}" = --update ]; then
	file=$2
	touch "$WORK/none.img"
	gen_table >"$WORK/table.inc"
	gen_geom >"$WORK/geom.inc"
	python3 - "$file" "$WORK/table.inc" "$WORK/geom.inc" <<'EOF'
import sys
path, inc, ginc = sys.argv[1], sys.argv[2], sys.argv[3]
src = open(path).read()
for tag, f in (('', inc), (' GEOMETRY', ginc)):
    b = '/* BEGIN GENERATED%s by gen_layout_vectors.sh */\n' % tag
    e = '/* END GENERATED%s */' % tag
    i = src.index(b) + len(b)
    j = src.index(e)
    src = src[:i] + open(f).read() + src[j:]
open(path, 'w').write(src)
EOF
else
	touch "$WORK/none.img"
	gen_table
	echo "/* geometry */"
	gen_geom
fi
