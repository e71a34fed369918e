#!/bin/bash
# dbgw_script: one scripted edit through `e4debugfs -w -f` and through the
# reference `debugfs -w -f` gives the same tree (issue 13, acceptance 2).
#
# The script: set_current_time; mkdir a, a/b, a/b/c; N files of 70 KB
# written into a/b (N=400; E4_DBGW_FILES overrides); a 5 MB file and an
# empty one; a short and a 300-byte symlink; a hard link with `ln` plus
# `sif ... links_count 2`; a third of the files removed with `rm`; a fifo
# with mknod; sif on mode and uid; mkdir then rmdir; ssv mnt_count; ea_set.
# On ext4, ext2, ext4 without a journal, ext4 with inline_data, ext4 with
# 1 KiB blocks and ext3 with 128-byte inodes: the reference e2fsck -fn is
# clean on both images, and the two trees, read by the kernel (both
# images loop-mounted read-only), are equal: names, types, modes, owners,
# sizes, contents, link counts, symlink targets, xattrs.
# Catches: a write that loses a block or a hole, rm freeing an inode that
# still has a link, a symlink stored where the kernel does not read it, a
# mknod with the wrong type, sif links_count not reaching the inode, a
# directory whose index the kernel cannot follow after many inserts.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_DEBUGFS" "$REF_MKE2FS" "$REF_E2FSCK"
need_e4debugfs
need_cmd python3
need_root_loop

NFILES=${E4_DBGW_FILES:-400}
tmp_on_tmpfs 1g
src=$TFS/src
mkdir -p "$src"

# ---- the sources (fixed seed) and the script -----------------------------------
python3 - "$src" "$NFILES" <<'PY' || fail "cannot make the source files"
import os, random, sys
d, n = sys.argv[1], int(sys.argv[2])
r = random.Random(13)
for i in range(n):
    with open(os.path.join(d, "f%03d" % i), "wb") as f:
        f.write(r.randbytes(70 * 1000))
with open(os.path.join(d, "big"), "wb") as f:
    f.write(r.randbytes(5 * 1000 * 1000))
open(os.path.join(d, "empty"), "wb").close()
PY
chmod 0640 "$src"/f001
long=$(printf 'L%.0s' $(seq 1 294))/end.x
[ ${#long} = 300 ] || fail "the long target is ${#long} bytes"
{
	echo "set_current_time 20240102030405"
	echo "mkdir a"
	echo "mkdir a/b"
	echo "mkdir a/b/c"
	for ((i = 0; i < NFILES; i++)); do printf 'write %s/f%03d a/b/f%03d\n' "$src" $i $i; done
	echo "write $src/big a/big"
	echo "write $src/empty a/empty"
	echo "symlink a/short ../b/f001"
	echo "symlink a/long $long"
	echo "ln a/b/f001 a/hard"
	echo "sif a/b/f001 links_count 2"
	for ((i = 3; i < NFILES; i += 3)); do printf 'rm a/b/f%03d\n' $i; done
	# the reference's mknod makes the literal name "a/b/c/fifo" in the cwd
	echo "cd a/b/c"
	echo "mknod fifo p"
	echo "cd /"
	echo "sif a/b/c/fifo mode 010640"
	echo "sif a/b/f002 uid 1234"
	echo "sif a/b/f002 mode 0100600"
	echo "mkdir a/b/c/gone"
	echo "rmdir a/b/c/gone"
	echo "ssv mnt_count 7"
	echo "ea_set a/b/f004 user.note hello"
	echo "ea_set a/big user.tag 12345678901234567890"
} >"$T/script"

# ---- the comparison of two mounted trees ----------------------------------------
cat >"$T/tree.py" <<'PY'
import hashlib, os, stat, sys
def walk(root):
    out = {}
    for dp, dns, fns in os.walk(root):
        for n in dns + fns:
            p = os.path.join(dp, n)
            rel = os.path.relpath(p, root)
            st = os.lstat(p)
            e = [stat.S_IFMT(st.st_mode), oct(stat.S_IMODE(st.st_mode)), st.st_uid,
                 st.st_gid, st.st_nlink]
            if stat.S_ISREG(st.st_mode):
                h = hashlib.sha256()
                with open(p, "rb") as f:
                    for b in iter(lambda: f.read(1 << 20), b""):
                        h.update(b)
                e += [st.st_size, h.hexdigest()]
            elif stat.S_ISLNK(st.st_mode):
                e += [st.st_size, os.readlink(p)]
            xa = sorted((k, os.getxattr(p, k, follow_symlinks=False))
                        for k in os.listxattr(p, follow_symlinks=False))
            out[rel] = e + [xa]
    return out
a, b = walk(sys.argv[1]), walk(sys.argv[2])
bad = 0
for k in sorted(set(a) | set(b)):
    if a.get(k) != b.get(k):
        bad += 1
        if bad <= 10:
            print("%s: e4debugfs %s, reference %s" % (k, a.get(k), b.get(k)))
print("%d paths, %d differ" % (len(a), bad))
sys.exit(1 if bad or len(a) < 10 else 0)
PY

# ---- each filesystem type ---------------------------------------------------------
n=0
while read -r name opts; do
	n=$((n + 1))
	ours=$TFS/$name.e4.img
	ref=$TFS/$name.ref.img
	# shellcheck disable=SC2086
	"$REF_MKE2FS" -q -F $opts -E root_owner=0:0 "$ours" 64M >/dev/null 2>&1 ||
		fail "$name: mke2fs $opts failed"
	cp "$ours" "$ref"
	runcap "$T/$name.e4" 600 "$E4DEBUGFS" -w -f "$T/script" "$ours"
	runcap "$T/$name.ref" 600 "$REF_DEBUGFS" -w -f "$T/script" "$ref"
	[ "$(cat "$T/$name.e4.rc")" = 0 ] ||
		fail "$name: e4debugfs -w -f: $(describe_rc "$(cat "$T/$name.e4.rc")"): $(head -5 "$T/$name.e4.err")"
	! grep -qvE '^debugfs [0-9]' "$T/$name.ref.err" ||
		fail "$name: the reference debugfs complained: $(head -5 "$T/$name.ref.err")"
	ref_clean "$ours" || fail "$name: e4debugfs's image is not clean: $REF_CLEAN_OUT"
	ref_clean "$ref" || fail "$name: the reference's image is not clean: $REF_CLEAN_OUT"
	mount_loop "$ours" "$T/m.e4.$n" ro || fail "$name: the kernel does not mount e4debugfs's image"
	mount_loop "$ref" "$T/m.ref.$n" ro || fail "$name: the kernel does not mount the reference's image"
	out=$(python3 "$T/tree.py" "$T/m.e4.$n" "$T/m.ref.$n") || fail "$name: the trees differ: $out"
	info "$name: $out"
	umount_retry "$T/m.e4.$n"
	umount_retry "$T/m.ref.$n"
	rm -f "$ours" "$ref"
done <<'EOF2'
ext4 -t ext4
ext2 -t ext2
ext4-nojournal -t ext4 -O ^has_journal
ext4-inline -t ext4 -O inline_data
ext4-1k -t ext4 -b 1024
ext3-128 -t ext3 -I 128
EOF2
exit 0
