#!/bin/bash
# popsrc_routes: e4mkfs -d's source stream (mkfs/popsrc.h, printed by
# tests/helpers/popsrc_drv) is the same whichever way the tree comes in
# (issue 17, acceptance 1's three routes, before the writer exists):
#  - a tree from tests/gentree.py --rich (every entry type, a hard link
#    group over three directories, a 2,000-entry directory, sparse files
#    (one of 5 GiB with data at 2.5 and 4.5 GiB),
#    user/trusted/security attributes, access and default POSIX ACLs,
#    UTF-8 and odd-byte names, nanosecond times) read as a directory;
#  - the same tree as GNU tar --xattrs --acls --selinux --sparse (pax);
#  - that archive compressed with zstd, read from standard input ("-").
# The three streams must be identical line for line: order, path, type,
# mode, owner, nanosecond mtime, device numbers, symlink targets, link
# groups and counts, data runs and data, attributes (ACLs in ext4's
# encoding).  The socket (tar cannot hold one) is checked in the
# directory stream, then removed (its directory's mtime put back) before
# the comparison.  A copy of the tree made by cp -a (other inode numbers,
# other creation order) with its atimes touched gives the same stream.
# Catches: an archive's ACL taken from libarchive's text list, where GNU
# tar names users ("user:lp:rwx") and libarchive leaves the group bits of
# the mode at GROUP_OBJ's instead of the mask's; negative pax times
# (libarchive's "-S.F" reading); GNU tar's RHT.security.selinux value
# (no final NUL) winning over the raw SCHILY.xattr one; children listed
# in readdir order.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$PYTHON"
need_cmd tar tar
need_cmd zstd zstd
need_helper popsrc_drv
DRV=$HELPER

src=$T/src
mkdir "$src"
"$PYTHON" "$GENTREE" gen "$src" --bigdir 2000 --rich >"$T/gen.log" 2>&1 ||
	fail "gentree failed: $(tail -3 "$T/gen.log")"
info "$(cat "$T/gen.log")"

# the directory, socket included
"$DRV" "$src" >"$T/dir_sock" 2>"$T/err" || fail "directory route: $(cat "$T/err")"
grepq -E '^[0-9]+ special/sock s mode=' "$T/dir_sock" || fail "no socket in the directory stream"
"$PYTHON" - "$src/special" <<'EOF' || fail "cannot remove the socket"
import os, sys
d = sys.argv[1]
st = os.stat(d)
os.unlink(os.path.join(d, "sock"))
os.utime(d, ns=(st.st_atime_ns, st.st_mtime_ns))
EOF
# a 5 GiB sparse file with data at 2.5 GiB and 4.5 GiB (acceptance 3)
"$PYTHON" - "$src/sparse/five_g" <<'EOF' || fail "cannot make the 5 GiB sparse file"
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
os.pwrite(fd, b"A" * 5000, 5 << 29)
os.pwrite(fd, b"B" * 7000, 9 << 29)
os.ftruncate(fd, 5 << 30)
os.close(fd)
os.utime(sys.argv[1], ns=(1, 123456789))
os.utime(os.path.dirname(sys.argv[1]), ns=(1, 987654321))
EOF
"$DRV" "$src" >"$T/dir" 2>"$T/err" || fail "directory route: $(cat "$T/err")"

# what the stream must hold (so that equal streams mean something)
n=$(grep -c -v '^end ' "$T/dir")
[ "$n" -gt 2200 ] || fail "only $n entries in the stream"
checks=(
	'^[0-9]+ bigdir d .* children=2001( |$)'
	' sparse/hole_middle f .* segs=0\+[0-9]+,3145728\+'
	' sparse/five_g f .* size=5368709120 segs=2684354560\+[0-9]+,4831838208\+[0-9]+ '
	' rich/la/one f .* nlink=3 '
	' rich/acl0 f mode=0674 .*xattr:system.posix_acl_access=01000000'
	' rich/defacl d .*xattr:system.posix_acl_default=01000000'
	' rich/ns f .*xattr:security.selinux=[0-9a-f]*00 .*xattr:trusted.overlay.x='
	' rich/new\\x0aline f '
	' rich/latin1\\xe9\\xff f '
	' special/bigdev c .*rdev=300,70000'
	' special/fifo p '
	' links/slow_1000 l '
	' modes/owner_3000000000_7 f mode=0644 uid=3000000000 gid=7'
	'mtime=-[0-9]+\.[0-9]{9}'
)
for c in "${checks[@]}"; do
	grepq -E "$c" "$T/dir" || fail "directory stream lacks /$c/"
done
# every directory lists its children sorted by name bytes, after itself
"$PYTHON" - "$T/dir" <<'EOF' || fail "stream order broken"
import sys, re
idx, kids = {}, {}
for line in open(sys.argv[1], "rb"):
    if line.startswith(b"end "):
        continue
    i, path = line.split(b" ")[:2]
    p = re.sub(rb"\\x([0-9a-f]{2})", lambda m: bytes([int(m.group(1), 16)]), path)
    idx[p] = int(i)
    parent = p.rsplit(b"/", 1)[0] if b"/" in p else b"."
    if p != b".":
        kids.setdefault(parent, []).append((int(i), p.rsplit(b"/", 1)[-1]))
for d, ks in kids.items():
    names = [k for _, k in sorted(ks)]
    if names != sorted(names):
        sys.exit("children of %r not sorted" % d)
    if min(i for i, _ in ks) < idx[d]:
        sys.exit("%r listed before its directory" % d)
EOF

# GNU tar, then zstd through standard input
tar --xattrs --acls --selinux --sparse --format=posix -cf "$T/tree.tar" -C "$src" . \
	2>"$T/tar.err" || fail "tar failed: $(head -3 "$T/tar.err")"
"$DRV" "$T/tree.tar" >"$T/tar" 2>"$T/err" || fail "tar route: $(cat "$T/err")"
diff "$T/dir" "$T/tar" >"$T/d" || fail "tar route differs: $(head -6 "$T/d")"
zstd -q -c "$T/tree.tar" >"$T/tree.tar.zst" || fail "zstd failed"
"$DRV" - <"$T/tree.tar.zst" >"$T/zst" 2>"$T/err" || fail "zstd stdin route: $(cat "$T/err")"
diff "$T/dir" "$T/zst" >"$T/d" || fail "zstd route differs: $(head -6 "$T/d")"

# another copy, other inodes and creation order, atimes touched
cp -a "$src" "$T/copy" || fail "cp -a failed"
find "$T/copy" -type f -exec touch -a {} + || fail "touch failed"
"$DRV" "$T/copy" >"$T/copy.out" 2>"$T/err" || fail "copy: $(cat "$T/err")"
diff "$T/dir" "$T/copy.out" >"$T/d" || fail "the copy's stream differs: $(head -6 "$T/d")"

info "$n entries, three routes and a copy alike in $(elapsed) s"
exit 0
