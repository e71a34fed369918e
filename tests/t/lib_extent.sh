#!/bin/bash
# lib_extent: libe4's extent tree writers (lib/e4/extent.h) on images made
# by the reference mke2fs, judged by the reference tools.
#  - random sequences (fixed seeds; tests/helpers/extent_model.c: writes
#    that punch, allocate and map, short and long, some unwritten; punches;
#    unwritten <-> written conversions; truncations) on an empty file, each
#    step's tree checked by the model's validator every 100 steps, with 1
#    and 4 KiB blocks, with and without metadata_csum, 64bit and huge_file;
#    and one with short writes and punches only, which ends with a tree of
#    two levels and thousands of extents for e2fsck to check;
#  - the bulk builder at 1, 2 and 3 levels of tree blocks;
#  - punches on a bigalloc file: a hole inside clusters, then a truncation
#    at a block inside a cluster (the cluster the kept blocks share stays).
# After each: the reference e2fsck -fn is clean (ref_clean), and the file
# as the reference debugfs dumps it is byte for byte what the model says
# (holes and unwritten extents read as zeros).  With root, two images are
# also read back through a read-only kernel mount.
# A tree changed by random punches and writes can get e2fsck's
# optimisation hint "extent tree (at level N) could be narrower/shallower.
# Optimize? no" (exit 0): a tree with more free slots at a level than one
# block holds.  The kernel's own trees get the same hint after the same
# kind of workload (checked: 3000 random pwrite/fallocate-punch calls on a
# 1 KiB-block loop mount, e2fsck 1.47.0 says "could be narrower" at level
# 2), so the random images are judged as written with only that hint
# allowed, then compacted (e4_extent_compact, what e2fsck's pass 1E would
# do) and judged by ref_clean itself.
# Catches: a bigalloc punch that frees the cluster the file's kept blocks
# still use (checked by planting it in free_data: "the hole freed [freed
# 32]"; e2fsck then says "Block bitmap differences: +1184" and "i_blocks
# is 2176, should be 2304"); an index key off by one after a split
# (planted in split(): the driver's tree read stops with "Extent tree
# entries are out of order or overlap").

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DEBUGFS" "$PYTHON"
need_helper extent_drv
DRV=$HELPER
tmp_on_tmpfs 512m

ino_of() {
	"$REF_DEBUGFS" -R "stat /$2" "$1" 2>/dev/null | sed -n 's/^Inode: *\([0-9]*\).*/\1/p'
}

# check_img NAME IMG INO EXPECTED: clean, and the file reads as expected.
check_img() {
	ref_clean "$2" || fail "$1: the reference e2fsck -fn is not clean: $REF_CLEAN_OUT"
	rm -f "$TFS/$1.out"
	"$REF_DEBUGFS" -R "dump <$3> $TFS/$1.out" "$2" >/dev/null 2>&1
	[ -f "$TFS/$1.out" ] || fail "$1: the reference debugfs could not dump inode $3"
	cmp -s "$TFS/$1.out" "$4" ||
		fail "$1: the file differs from the model: $(cmp "$TFS/$1.out" "$4" 2>&1 | head -1)"
	rm -f "$TFS/$1.out"
}

mkdir -p "$TFS/src"
: >"$TFS/src/f"
n=0
while IFS='|' read -r name opts size mode a1 a2 a3 depth_rule; do
	[ -n "$name" ] || continue
	img=$TFS/$name.img
	# shellcheck disable=SC2086
	"$REF_MKE2FS" -q -F $opts -d "$TFS/src" "$img" "$size" >/dev/null 2>&1 ||
		fail "$name: mke2fs failed"
	ino=$(ino_of "$img" f)
	[ -n "$ino" ] || fail "$name: no inode for /f"
	case $mode in
	random | fragment) out=$("$DRV" "$img" "$mode" "$ino" "$a1" "$a2" "$a3" "$TFS/$name.exp") ;;
	bulk) out=$("$DRV" "$img" bulk "$ino" "$a1" "$TFS/$name.exp") ;;
	esac || fail "$name: $mode failed: $out"
	depth=${out#depth }
	depth=${depth%% *}
	case $depth_rule in
	=*) [ "$depth" = "${depth_rule#=}" ] || fail "$name: tree depth $depth, expected ${depth_rule#=} ($out)" ;;
	*) [ "$depth" -ge "$depth_rule" ] || fail "$name: tree depth $depth, expected at least $depth_rule ($out)" ;;
	esac
	if [ "$mode" != bulk ]; then
		# as written: clean but for the optimisation hint
		REF_CLEAN_OUT=$("$REF_E2FSCK" -fn "$img" 2>&1 </dev/null)
		rc=$?
		hint=$(grep -cE '^Inode [0-9]+ extent tree \(at level [0-9]+\) could be (narrower|shallower)\.  Optimize\? no$' <<<"$REF_CLEAN_OUT")
		rest=$(grep -vE '^e2fsck [0-9]|^Pass [1-5]: |: [0-9]+/[0-9]+ files \(|^$|could be (narrower|shallower)\.  Optimize\? no$' <<<"$REF_CLEAN_OUT")
		[ "$rc" = 0 ] && [ -z "$rest" ] ||
			fail "$name: as written, the reference e2fsck -fn says (exit $rc): $REF_CLEAN_OUT"
		out="$out, hint $hint, $("$DRV" "$img" compact "$ino")" || fail "$name: compact failed: $out"
	fi
	check_img "$name" "$img" "$ino" "$TFS/$name.exp"
	verbose "$name: $mode: $out"
	case $name in ext4_4k | ext4_frag) ;; *) rm -f "$img" "$TFS/$name.exp" ;; esac
	n=$((n + 1))
done <<'SETS'
ext4_1k|-t ext4 -b 1024 -O ^has_journal|64M|random|1|4000|20000|2
ext4_4k|-t ext4 -b 4096|128M|random|2|3000|20000|1
ext4_old|-t ext4 -b 1024 -O ^metadata_csum,^64bit,^huge_file,^has_journal|64M|random|3|2000|10000|1
ext4_frag|-t ext4 -b 1024 -O ^has_journal|64M|fragment|4|3000|20000|2
bulk1|-t ext4 -b 1024 -O ^has_journal|16M|bulk|84|||=1
bulk2|-t ext4 -b 4096 -O ^has_journal|64M|bulk|1361|||=2
bulk3|-t ext4 -b 1024 -O ^has_journal,^metadata_csum|64M|bulk|28225|||=3
SETS

# bigalloc (16-block clusters): a 300-block file of random bytes; a hole
# [5, 40) frees only cluster 1 (blocks 16-31), then a truncation at 100
# keeps cluster 6 (blocks 96-99 are still the file's)
"$PYTHON" -c "import random, sys; random.seed(7); sys.stdout.buffer.write(random.getrandbits(8 * 300 * 4096).to_bytes(300 * 4096, 'little'))" >"$TFS/src/g" ||
	fail "cannot make the bigalloc source file"
rm -f "$TFS/src/f"
img=$TFS/bigalloc.img
"$REF_MKE2FS" -q -F -t ext4 -b 4096 -O bigalloc -C 65536 -d "$TFS/src" "$img" 64M >/dev/null 2>&1 ||
	fail "bigalloc: mke2fs failed"
ino=$(ino_of "$img" g)
out=$("$DRV" "$img" punch "$ino" 5 35) || fail "bigalloc: punch failed: $out"
[ "$out" = "freed 16" ] || fail "bigalloc: the hole freed [$out], expected one cluster (freed 16)"
ref_clean "$img" || fail "bigalloc: after the hole, e2fsck -fn is not clean: $REF_CLEAN_OUT"
out=$("$DRV" "$img" punch "$ino" 100 end) || fail "bigalloc: truncation failed: $out"
[ "$out" = "freed 192" ] || fail "bigalloc: the truncation freed [$out], expected clusters 7-18 (freed 192)"
"$PYTHON" - "$TFS/src/g" "$TFS/bigalloc.exp" <<'PY' || fail "bigalloc: cannot compute the expected file"
import sys
a = bytearray(open(sys.argv[1], 'rb').read())
bs = 4096
a[5 * bs:40 * bs] = bytes(35 * bs)
a[100 * bs:] = bytes(len(a) - 100 * bs)
open(sys.argv[2], 'wb').write(a)
PY
check_img bigalloc "$img" "$ino" "$TFS/bigalloc.exp"
n=$((n + 1))

# the kernel reads two of the random images as the model says
if [ "$(id -u)" = 0 ]; then
	need_root_loop
	for name in ext4_4k ext4_frag; do
		mount_loop "$TFS/$name.img" "$T/mnt" ro || fail "$name: the kernel refuses to mount it"
		cmp -s "$T/mnt/f" "$TFS/$name.exp" || fail "$name: the kernel reads the file differently"
		umount_retry "$T/mnt"
	done
	kernel="; the kernel reads two of them alike"
else
	kernel="; no kernel read-back (not root)"
fi
info "$n images clean and read back as the model says$kernel ($(elapsed)s)"
