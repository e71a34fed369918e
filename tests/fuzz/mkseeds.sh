#!/usr/bin/env bash
# tests/fuzz/mkseeds.sh BUILDDIR [MAX_IMAGE_BYTES]: the fuzz targets' seed
# corpora, generated into BUILDDIR/tests/fuzz/seeds/TARGET (never committed):
#  - read, journal, debugfs: every image of the shared corpus
#    ($E4KIT_SHARED/corpus, default ../shared from the source tree) whose
#    uncompressed size is at most MAX_IMAGE_BYTES (default 64 MiB: the few
#    larger ones take most of the time to unpack) and whose non-zero part
#    packs into 1 MiB, packed by e4fz.py (zero stretches not stored), plus
#    small images made by BUILDDIR's e4mkfs (64 KiB to 8 MiB, one per
#    feature set);
#  - mkfs: the mke2fs invocations of the corpus (mkfs/cases.tsv) with their
#    configuration files, plus a few option lists;
#  - blocks: fuzz_blocks' own template blocks (E4FUZZ_SEEDS mode);
#  - debugfs_w: the small e4mkfs images, checksums fixed, with three write
#    commands each (field, xattr and bitmap commands; and file commands).
#  - fsck, tune: journal's seeds and the e4mkfs images with choice bytes
#    (fsck: -n, -y, -p, journal_only; tune: every change of its table).
# Done once per build directory: a stamp newer than this script and e4fz.py
# skips it.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
bdir=$(cd "$1" && pwd)
max=${2:-$((64 << 20))}
shared=${E4KIT_SHARED:-$src/../shared}
out=$bdir/tests/fuzz/seeds
stamp=$out/.stamp-$max
py=${PYTHON:-python3}

if [ -f "$stamp" ] && [ "$stamp" -nt "$0" ] && [ "$stamp" -nt "$src/tests/fuzz/e4fz.py" ]; then
	exit 0
fi
rm -rf "$out"
mkdir -p "$out"/{read,journal,debugfs,debugfs_w,mkfs,blocks,fsck,tune,popsrc}
"$py" "$src/tests/fuzz/e4fz.py" corpus "$shared/corpus" "$out" "$max"

# small images made by e4mkfs: deterministic (fixed time, UUID, hash seed)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SOURCE_DATE_EPOCH=1700000000
n=0
while IFS='|' read -r name size opts; do
	[ -n "$name" ] || continue
	img=$tmp/$name.img
	# shellcheck disable=SC2086
	"$bdir/mkfs/e4mkfs" -q -F -U 6c1e4a55-0000-4000-8000-00000000e4f2 \
		-E hash_seed=6c1e4a55-0000-4000-8000-00000000e4f3 $opts "$img" "$size" \
		>/dev/null 2>&1 || { echo "mkseeds: e4mkfs $opts $size failed" >&2; continue; }
	"$py" "$src/tests/fuzz/e4fz.py" pack "$img" "$out/read/mkfs_$name"
	cp "$out/read/mkfs_$name" "$out/journal/mkfs_$name"
	# with the checksum-fixing bit too: mutations then pass verification
	"$py" "$src/tests/fuzz/e4fz.py" pack "$img" "$out/read/mkfs_${name}_fix" --flags 1
	"$py" "$src/tests/fuzz/e4fz.py" pack "$img" "$out/debugfs/mkfs_$name" \
		--prefix "$(printf '%02x%02x%02x00' $((n % 27)) $((n * 7 % 256)) 2 \
			$(((n + 9) % 27)) $((n * 3 % 256)) 11 $(((n + 18) % 27)) 1 12)"
	# fuzz_debugfs_w: write commands (a field set, an xattr, a bitmap change)
	"$py" "$src/tests/fuzz/e4fz.py" pack "$img" "$out/debugfs_w/mkfs_$name" --flags 1 \
		--prefix "$(printf '%02x%02x%02x00' $((n % 16)) $((n * 7 % 256)) $((n * 5 + 2)) \
			$(((n + 12) % 16)) $((n * 3 % 256)) 11 $(((n + 5) % 16)) 1 12)"
	# and the file commands: mkdir d0, write d0/f<n>, then one of punch,
	# fallocate, inode_dump, truncate, expand_dir or symlink on it
	"$py" "$src/tests/fuzz/e4fz.py" pack "$img" "$out/debugfs_w/mkfs_files_$name" --flags 1 \
		--prefix "$(printf '%02x%02x%02x00' 17 0 0 16 $((n % 2)) $((n % 16)) \
			$((26 + n % 6)) $((n * 5 % 64)) 12)"
	rm -f "$img"
	n=$((n + 1))
done <<'EOF'
ext2_64k|64k|-t ext2 -b 1024
ext2_1m|1M|-t ext2 -b 1024 -N 64
ext3_4m|4M|-t ext3 -b 1024
ext4_2m|2M|-t ext4 -b 1024
ext4_8m|8M|-t ext4 -b 4096
ext4_nocsum|2M|-t ext4 -b 1024 -O ^metadata_csum,uninit_bg
ext4_bigalloc|8M|-t ext4 -b 1024 -C 16384 -O bigalloc
ext4_meta_bg|4M|-t ext4 -b 1024 -O 64bit,meta_bg,^resize_inode
ext4_inline|1M|-t ext4 -b 1024 -O inline_data
ext4_128|1M|-t ext4 -b 1024 -I 128
ext4_2k_super2|4M|-t ext4 -b 2048 -O sparse_super2
ext4_orphan|8M|-t ext4 -b 1024 -O orphan_file
ext4_64k|8M|-t ext4 -b 65536
rev0|256k|-r 0 -b 1024
EOF

# a few option lists for e4mkfs beyond the corpus's
while IFS='|' read -r name opts size; do
	[ -n "$name" ] || continue
	"$py" "$src/tests/fuzz/e4fz.py" mkfs-seed "$out/mkfs/opt_$name" - "$opts" "$size"
done <<'EOF'
ext4_e|-t ext4 -E stride=16,stripe_width=64,resize=4000000,num_backup_sb=1,packed_meta_blocks=1|1G
ext4_j|-t ext4 -J size=64 -O orphan_file -E orphan_file_size=2m|2G
bigalloc|-t ext4 -O bigalloc -C 65536 -b 4096 -i 65536|100G
meta_bg|-t ext4 -O meta_bg,^resize_inode,64bit -G 64 -E desc_size=128|10T
rev0|-r 0 -b 1024 -I 128 -N 100|2M
huge|-T huge -O 64bit -b 4096 -m 0.5|1P
EOF

# fsck and tune: the images with their choice bytes (header op[0..2])
"$py" - "$out" <<'EOF'
import os, sys
out = sys.argv[1]


def put(src, dst, op):
    d = bytearray(open(src, 'rb').read())
    if d[:4] == b'E4FZ':
        d[5:8] = bytes(op)
        open(dst, 'wb').write(d)


for i, name in enumerate(sorted(os.listdir(out + '/journal'))):
    src = out + '/journal/' + name
    if name.startswith('mkfs_'):
        continue
    put(src, out + '/fsck/' + name, [(0, 1, 2)[i % 3] | (4 if i % 7 == 3 else 0), 0, 0])
    put(src, out + '/tune/' + name, [i % 12, i * 8 % 256, i * 37 % 256])
for name in sorted(os.listdir(out + '/read')):
    if name.startswith('mkfs_'):
        src = out + '/read/' + name
        for m in (0, 1, 2, 8):
            put(src, out + '/fsck/%s_%d' % (name, m), [m, 0, 0])
        for op in range(12):
            put(src, out + '/tune/%s_%d' % (name, op), [op, 2, 7])
EOF

# fuzz_blocks: its template's blocks, as it plants them
E4FUZZ_SEEDS=$out/blocks "$bdir/tests/fuzz/fuzz_blocks" >/dev/null 2>&1 ||
	echo "mkseeds: fuzz_blocks wrote no seeds" >&2
touch "$stamp"
