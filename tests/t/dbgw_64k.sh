#!/bin/bash
# dbgw_64k: an image with 64 KiB blocks written by e4debugfs -w is read
# back by the 64 KiB-page kernel (../shared/tools/kernel64k; issue 13,
# acceptance 9).
#
# On a reference-made ext4 image with 64 KiB blocks, e4debugfs -w -f:
# mkdir; write a 300 KB random file, a sparse file (data, a 1 MB hole,
# data) and an empty one; 2,500 entries written into one directory (past
# one 64 KiB block: an htree index over 64 KiB leaves, rec_len in its
# 64 KiB encoding); expand_dir on a small directory (an empty 64 KiB block,
# rec_len 0xFFFF); short and slow symlinks; a fifo; rm of every tenth
# entry; punch and fallocate in a copy of the random file; ea_set.  The
# reference e2fsck -fn is clean; the guest kernel mounts it read-only and
# checks each file's md5, the sparse file's size, symlink targets, the fifo,
# the directory's entry count and lookups by name, with no EXT4-fs error or
# warning logged.
# Catches: a 64 KiB directory block whose rec_len is stored truncated to
# 16 bits (0), a file block written at a 4 KiB-block offset, an htree leaf
# split that loses names at 64 KiB.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_MKE2FS" "$REF_E2FSCK"
need_e4debugfs
need_cmd python3
k64_ensure
tmp_on_tmpfs 600m	# the operations sync at each step: about 10 ms each on a disk

img=$TFS/k.img
"$REF_MKE2FS" -q -F -t ext4 -b 65536 "$img" 256M >/dev/null 2>&1 || fail "mke2fs -b 65536 failed"
python3 - "$T" <<'PY' || fail "cannot make the source files"
import random, sys
d = sys.argv[1]
r = random.Random(64)
open(d + "/rand", "wb").write(r.randbytes(300 * 1000))
with open(d + "/sparse", "wb") as f:
    f.write(r.randbytes(70000))
    f.seek(1000000, 1)
    f.write(r.randbytes(5000))
open(d + "/empty", "wb").close()
PY
N=2500
long=/$(printf 'x%.0s' $(seq 1 200))
{
	echo "mkdir d"
	echo "mkdir d/many"
	echo "mkdir d/small"
	echo "write $T/rand d/rand"
	echo "write $T/rand d/holes"
	echo "write $T/sparse d/sparse"
	echo "write $T/empty d/empty"
	for ((i = 0; i < N; i++)); do printf 'write %s/empty d/many/entry_with_a_longish_name_%05d\n' "$T" $i; done
	for ((i = 0; i < N; i += 10)); do printf 'rm d/many/entry_with_a_longish_name_%05d\n' $i; done
	echo "expand_dir d/small"
	echo "symlink d/short rand"
	echo "symlink d/long $long"
	echo "cd d"
	echo "mknod fifo p"
	echo "cd /"
	echo "sif d/fifo mode 010644"
	echo "punch d/holes 1 2"
	echo "fallocate d/holes 8 9"
	echo "ea_set d/rand user.k64 value64"
} >"$T/script"
runcap "$T/dbg" 600 "$E4DEBUGFS" -w -f "$T/script" "$img"
[ "$(cat "$T/dbg.rc")" = 0 ] || fail "e4debugfs -w -f: $(describe_rc "$(cat "$T/dbg.rc")"): $(head -5 "$T/dbg.err")"
ref_clean "$img" || fail "e4debugfs's 64 KiB image is not clean: $REF_CLEAN_OUT"

# what the guest must read (the punched range reads as zeros, the
# fallocated one past the data as nothing: the size is kept)
holes_md5=$(python3 - "$T/rand" <<'PY'
import hashlib, sys
b = bytearray(open(sys.argv[1], "rb").read())
b[65536:3 * 65536] = bytes(2 * 65536)
print(hashlib.md5(bytes(b[:len(b)])).hexdigest())
PY
)
md5() { md5sum <"$1" | cut -d' ' -f1; }
{
	echo "[ \"\$(md5sum < d/rand | cut -d' ' -f1)\" = $(md5 "$T/rand") ]"
	echo "[ \"\$(md5sum < d/sparse | cut -d' ' -f1)\" = $(md5 "$T/sparse") ]"
	echo "[ \"\$(md5sum < d/holes | cut -d' ' -f1)\" = $holes_md5 ]"
	echo "[ \"\$(stat -c %s d/sparse)\" = $(stat -c %s "$T/sparse") ]"
	echo "[ \"\$(stat -c %s d/empty)\" = 0 ]"
	echo "[ \"\$(readlink d/short)\" = rand ]"
	echo "[ \"\$(readlink d/long)\" = $long ]"
	echo "[ -p d/fifo ]"
	echo "[ \"\$(ls d/many | wc -l)\" = $((N - N / 10)) ]"
	echo "[ -f d/many/entry_with_a_longish_name_00001 ] && [ ! -e d/many/entry_with_a_longish_name_00010 ]"
	echo "[ -f d/many/entry_with_a_longish_name_02499 ] && [ -f d/many/entry_with_a_longish_name_01234 ]"
	echo "[ \"\$(ls -a d/small | wc -l)\" = 2 ]"
	echo "stat -f -c %S /mnt"
} >"$T/k64.sh"
k64_read_back "$img" "$T/k64.sh"
info "the 64 KiB-page kernel read every file back"
exit 0
