#!/bin/bash
# dbgw_matrix: e4debugfs -w's file commands on every layout of the image
# matrix (issue 13): block sizes 1 KiB to 64 KiB, bigalloc, 128- and
# 1024-byte inodes, inline_data, meta_bg, sparse_super2, legacy (no
# flex_bg), no journal, ext2 and ext3 block maps, a checksum seed.
#
# On a copy of each image: mkdir, write (a random file and a sparse one),
# short and slow symlinks, mknod (fifo, device), ln + sif links_count, punch,
# expand_dir, ea_set, rm of the second link, mkdir/rmdir; then fallocate
# (unwritten extents, or blocks of zeros in a block map).  The reference e2fsck -fn
# is clean, the kernel mounts the image (block sizes up to the page size),
# and the reference debugfs reads the contents back (the punched blocks as
# zeros).
# Catches: a layout the writers get wrong only there (bigalloc clusters,
# meta_bg descriptors, 128-byte inodes without room for the extra fields,
# a block map's indirect blocks).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_DEBUGFS" "$REF_E2FSCK" "$REF_DUMPE2FS" "$PYTHON"
need_e4debugfs
need_root_loop
matrix_ensure
matrix_check_skipped
tmp_on_tmpfs 1g

python3 - "$TFS" <<'PY' || fail "cannot make the sources"
import random, sys
d = sys.argv[1]
r = random.Random(41)
open(d + "/rnd", "wb").write(r.randbytes(300000))
with open(d + "/sp", "wb") as f:
    f.write(r.randbytes(9000))
    f.seek(1500000)
    f.write(b"x")
    f.truncate(3000000)
PY
long=/$(printf 'y%.0s' $(seq 1 300))
cat >"$T/script" <<EOF
mkdir d
mkdir d/e
write $TFS/rnd d/rnd
write $TFS/sp d/sp
write $TFS/rnd d/e/r2
symlink d/short abc
symlink d/long $long
mknod d/fifo p
mknod d/cdev c 1 3
ln d/rnd d/e/hard
sif d/rnd links_count 2
punch d/e/r2 1 3
expand_dir d/e
ea_set d/rnd user.a hello
rm d/e/hard
mkdir d/gone
rmdir d/gone
EOF

failed=()
for name in "${MATRIX_IMAGES[@]}"; do
	img=$TFS/$name.img
	cp "$E4_MATRIX/$name.img" "$img"
	runcap "$T/$name" 120 "$E4DEBUGFS" -w -f "$T/script" "$img"
	if [ "$(cat "$T/$name.rc")" != 0 ]; then
		failed+=("$name: $(describe_rc "$(cat "$T/$name.rc")"): $(head -3 "$T/$name.err" | tr '\n' ' ')")
		rm -f "$img"
		continue
	fi
	runcap "$T/$name.fa" 60 "$E4DEBUGFS" -w -R "fallocate d/sp 0 5" "$img"
	[ "$(cat "$T/$name.fa.rc")" = 0 ] || failed+=("$name: fallocate: $(head -1 "$T/$name.fa.err")")
	ref_clean "$img" ||
		failed+=("$name: not clean: $(grep -vE '^e2fsck|^Pass' <<<"$REF_CLEAN_OUT" | head -3 | tr '\n' ' ')")
	kernel_mounts "$img" || failed+=("$name: the kernel refuses it: $KMOUNT_OUT")
	"$REF_DEBUGFS" -R "dump d/rnd $T/o1" "$img" >/dev/null 2>&1
	"$REF_DEBUGFS" -R "dump d/sp $T/o2" "$img" >/dev/null 2>&1
	"$REF_DEBUGFS" -R "dump d/e/r2 $T/o3" "$img" >/dev/null 2>&1
	bs=$("$REF_DUMPE2FS" -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
	python3 - "$TFS/rnd" "$TFS/sp" "$T/o1" "$T/o2" "$T/o3" "$bs" <<'PY' ||
import sys
rnd, sp, o1, o2, o3 = (open(p, "rb").read() for p in sys.argv[1:6])
bs = int(sys.argv[6])
want = bytearray(rnd)
want[bs:4 * bs] = bytes(len(want[bs:4 * bs]))
bad = [n for n, a, b in (("d/rnd", o1, rnd), ("d/sp", o2, sp), ("d/e/r2", o3, bytes(want)))
       if a != b]
if bad:
    print(" ".join(bad))
    sys.exit(1)
PY
		failed+=("$name: contents differ")
	"$REF_DEBUGFS" -R "stat d/long" "$img" 2>/dev/null | grepq "Size: 301" ||
		failed+=("$name: the slow symlink: $("$REF_DEBUGFS" -R "stat d/long" "$img" 2>&1 | grep Size:)")
	rm -f "$img" "$T"/o?
done
if [ ${#failed[@]} -gt 0 ]; then
	printf '  %s\n' "${failed[@]}" >&2
	fail "${#failed[@]} layouts failed"
fi
info "${#MATRIX_IMAGES[@]} layouts checked"
exit 0
