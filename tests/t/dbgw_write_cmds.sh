#!/bin/bash
# dbgw_write_cmds: e4debugfs -w's commands that create, remove and fill
# files (issue 13): write, mkdir, rmdir, rm, kill_file, link/ln, unlink,
# symlink, mknod, copy_inode, expand_dir, punch/truncate, fallocate,
# inode_dump.  Each case checks what the command did through the reference
# debugfs, and that the reference e2fsck -fn finds the image clean after
# it (where the command itself leaves it consistent).
#
#  1. Without -w every one is refused ("Filesystem opened read/only"), the
#     image unchanged.
#  2. write of a sparse source (200 KB of written zeros, a 1 MB hole
#     inside, a 3 MB hole at the end): the same content and size, and no
#     more blocks than the reference's write uses (it skips zero blocks
#     too).
#  3. write that runs out of space: a message, the partial file removed,
#     the free counts as before, clean.
#  4. ln and unlink change entries only (links count unchanged); rm frees
#     at the last link; kill_file frees the inode (its entry removed after
#     with unlink: clean); mkdir/rmdir; rmdir of a non-empty directory and
#     rm of a directory refused with a message.
#  5. mknod: fifo, char and block devices (the reference reads the same
#     major/minor); a path with directories resolves (our documented
#     difference: the reference makes the literal name).
#  6. copy_inode: the copy reads as the source (size, mode, extents) with a
#     valid checksum.
#  7. expand_dir: a linear directory gains an empty block (clean); an
#     inline directory becomes a one-block directory with its entries; an
#     indexed one gains a leaf at the end of its index (clean, where the
#     reference's block outside the index is an e2fsck error), and inserts
#     after it keep every name; 130 more fill the root (a new level) and
#     split the last node (the reference's htree lists the last block).
#  8. punch frees the range (size kept), truncate without an end frees to
#     the end; fallocate makes unwritten extents (Uninit in the reference's
#     extent dump); fallocate without an end fills the disk and stays clean
#     (a failed map_set had leaked the last block it took); on a block map
#     (ext2) the holes get zeroed blocks and the size grows past them.
#  9. inode_dump, -b, -e and -x print what the reference prints.
# 10. set_current_time gives rm's directory change its mtime.
# Catches: a write that allocates a sparse source's holes, an out-of-space
# write leaving a file whose blocks pass i_size, ln raising the link
# count, a leaked block after a failed fallocate, an expand_dir that
# leaves an indexed directory with an unindexed block (the reference's).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_DEBUGFS" "$REF_MKE2FS" "$REF_E2FSCK"
need_e4debugfs

failed=()
bad() { failed+=("$*"); }
E() { "$E4DEBUGFS" -w -f "$2" "$1" >"$T/e.out" 2>"$T/e.err"; }
R() { "$REF_DEBUGFS" -R "$2" "$1" 2>/dev/null; }
clean() { ref_clean "$1" || bad "$2: not clean: $(grep -vE '^e2fsck|^Pass' <<<"$REF_CLEAN_OUT" | head -3 | tr '\n' ' ')"; }
mk() { "$REF_MKE2FS" -q -F "$@" >/dev/null 2>&1 || fail "mke2fs $* failed"; }

img=$T/a.img
mk -t ext4 -b 1024 -N 512 "$img" 16M
head -c 5000 /dev/urandom >"$T/small"
python3 - "$T/sparse" <<'PY' || fail "cannot make the sparse source"
import random, sys
r = random.Random(5)
with open(sys.argv[1], "wb") as f:
    f.write(r.randbytes(20000))
    f.write(bytes(200000))      # zeros written, not a hole
    f.write(r.randbytes(1000))
    f.seek(1000000, 1)
    f.write(r.randbytes(3000))
    f.truncate(4000000)
PY

# ---- 1: read-only ------------------------------------------------------------------
printf 'write %s x\nmkdir d\n' "$T/small" >"$T/s"
E "$img" "$T/s" || bad "setup failed: $(head -2 "$T/e.err")"
sum=$(sha256sum <"$img")
for c in "write $T/small y" "mkdir e" "rmdir d" "rm x" "kill_file x" "ln x z" "link x z" \
	"unlink x" "symlink s t" "mknod p p" "copy_inode x <20>" "expand_dir d" "expand d" \
	"punch x 0" "truncate x 0" "fallocate x 0 1"; do
	out=$("$E4DEBUGFS" -R "$c" "$img" 2>&1)
	grepq "read/only" <<<"$out" || bad "without -w, '$c' is not refused: $out"
done
[ "$(sha256sum <"$img")" = "$sum" ] || bad "a command without -w changed the image"

# ---- 2: a sparse source -----------------------------------------------------------
cp "$img" "$T/ref.img"
printf 'write %s sp\n' "$T/sparse" >"$T/s"
E "$img" "$T/s" || bad "write of the sparse source failed: $(head -2 "$T/e.err")"
"$REF_DEBUGFS" -w -f "$T/s" "$T/ref.img" >/dev/null 2>&1
clean "$img" "sparse write"
R "$img" "dump sp $T/sp.out" >/dev/null
cmp -s "$T/sparse" "$T/sp.out" || bad "the sparse file reads back differently"
ours=$(R "$img" "stat sp" | grep -o 'Blockcount: [0-9]*')
theirs=$(R "$T/ref.img" "stat sp" | grep -o 'Blockcount: [0-9]*')
[ -n "$ours" ] && [ "${ours#*: }" -le "${theirs#*: }" ] ||
	bad "the sparse source takes $ours, the reference's write $theirs"

# ---- 3: out of space ----------------------------------------------------------------
free0=$(R "$img" "stats" | grep -m1 '^Free blocks:')
head -c 20000000 /dev/urandom >"$T/huge"
printf 'write %s huge\n' "$T/huge" >"$T/s"
E "$img" "$T/s" && bad "a write past the free space succeeded"
grepq "huge" "$T/e.err" || bad "the failed write says nothing: $(head -2 "$T/e.err")"
R "$img" "ls" | grepq -w huge && bad "the partial file is left behind"
[ "$(R "$img" "stats" | grep -m1 '^Free blocks:')" = "$free0" ] ||
	bad "the free blocks changed after the failed write: $free0 -> $(R "$img" stats | grep -m1 '^Free blocks:')"
clean "$img" "failed write"

# ---- 4: entries and links ------------------------------------------------------------
links() { R "$img" "stat $1" | sed -n 's/^Links: \([0-9]*\).*/\1/p'; }
cat >"$T/s" <<EOF2
ln x x2
mkdir d/sub
ln x d
EOF2
E "$img" "$T/s" || bad "ln failed: $(head -2 "$T/e.err")"
[ "$(links x)" = 1 ] || bad "ln changed the link count: $(links x)"
R "$img" "ls d" | grepq -w x || bad "ln into a directory did not take the source's name"
printf 'unlink x2\nunlink d/x\n' >"$T/s"
E "$img" "$T/s" || bad "unlink failed: $(head -2 "$T/e.err")"
[ "$(links x)" = 1 ] || bad "unlink changed the link count: $(links x)"
clean "$img" "ln/unlink"
printf 'rmdir d\n' >"$T/s"
E "$img" "$T/s" && bad "rmdir of a non-empty directory succeeded"
grepq "not empty" "$T/e.err" || bad "rmdir of a non-empty directory: $(head -1 "$T/e.err")"
printf 'rm d\n' >"$T/s"
E "$img" "$T/s" && bad "rm of a directory succeeded"
x_ino=$(R "$img" "ls -l" | awk '$NF == "x" { print $1 }')
printf 'rmdir d/sub\nwrite %s d/k\nkill_file d/k\nunlink d/k\nrm x\nrm sp\n' "$T/small" >"$T/s"
E "$img" "$T/s" || bad "rmdir/kill_file/rm failed: $(head -2 "$T/e.err")"
R "$img" "testi <$x_ino>" | grepq "not in use" || bad "rm did not free the inode of x: $(R "$img" "testi <$x_ino>")"
[ "$(R "$img" "stats" | grep -m1 '^Free blocks:')" != "$free0" ] || bad "rm sp freed nothing"
clean "$img" "rm/kill_file/rmdir"

# ---- 5: mknod -------------------------------------------------------------------------
printf 'mkdir n\nmknod n/fifo p\nmknod n/c c 4 5\nmknod n/b b 300 7000\n' >"$T/s"
E "$img" "$T/s" || bad "mknod failed: $(head -2 "$T/e.err")"
R "$img" "stat n/fifo" | grepq "Type: FIFO" || bad "mknod p: $(R "$img" "stat n/fifo" | head -1)"
R "$img" "stat n/c" | grepq "Device major/minor number: 04:05" ||
	bad "mknod c 4 5: $(R "$img" "stat n/c" | grep -i device)"
R "$img" "stat n/b" | grepq "Type: block special" || bad "mknod b: $(R "$img" "stat n/b" | head -1)"
[ "$(R "$img" "stat n/b" | grep -i 'device major')" = "$(
	cp "$img" "$T/r2.img"; "$REF_DEBUGFS" -w -R "mknod bb b 300 7000" "$T/r2.img" >/dev/null 2>&1
	R "$T/r2.img" "stat bb" | grep -i 'device major')" ] || bad "mknod b 300 7000 reads back unlike the reference's"
clean "$img" "mknod"

# ---- 6: copy_inode ----------------------------------------------------------------------
printf 'write %s c1\n' "$T/small" >"$T/s"
E "$img" "$T/s"
free_ino=$(R "$img" "ffi" | grep -o '[0-9]*$')
printf 'copy_inode c1 <%s>\n' "$free_ino" >"$T/s"
E "$img" "$T/s" || bad "copy_inode failed: $(head -2 "$T/e.err")"
a=$(R "$img" "stat c1" | grep -E 'Size:|EXTENTS|^\(' | sed 's/Inode:.*//')
b=$(R "$img" "stat <$free_ino>" 2>&1 | grep -E 'Size:|EXTENTS|^\(' | sed 's/Inode:.*//')
[ -n "$a" ] && [ "$a" = "$b" ] || bad "copy_inode: the copy differs: $a / $b"
"$REF_DEBUGFS" -R "stat <$free_ino>" "$img" 2>&1 | grepq -i checksum.*invalid && bad "copy_inode: bad checksum"
printf 'clri <%s>\n' "$free_ino" >"$T/s"
E "$img" "$T/s"
clean "$img" "copy_inode"

# ---- 7: expand_dir -----------------------------------------------------------------------
size() { R "$1" "stat $2" | sed -n 's/^User:.*Size: \([0-9]*\).*/\1/p'; }
printf 'mkdir lin\nexpand_dir lin\n' >"$T/s"
E "$img" "$T/s" || bad "expand_dir failed: $(head -2 "$T/e.err")"
[ "$(size "$img" lin)" = 2048 ] || bad "expand_dir: size $(size "$img" lin), not 2048"
clean "$img" "expand_dir"
{ echo "mkdir big"; for i in $(seq 1 120); do echo "write $T/small big/a_rather_long_name_$i"; done; } >"$T/s"
E "$img" "$T/s" || bad "filling a directory failed: $(head -2 "$T/e.err")"
R "$img" "htree big" | grepq "Root node dump" || bad "the big directory is not indexed"
before=$(size "$img" big)
{ echo "expand_dir big"; for i in $(seq 121 160); do echo "write $T/small big/a_rather_long_name_$i"; done; } >"$T/s"
E "$img" "$T/s" || bad "expand_dir of an indexed directory failed: $(head -1 "$T/e.err")"
[ "$(size "$img" big)" -gt "$before" ] || bad "expand_dir of an indexed directory added no block"
clean "$img" "expand_dir of an indexed directory"
[ "$(R "$img" "ls big" | grep -o 'a_rather_long_name_[0-9]*' | sort -u | wc -l)" = 160 ] ||
	bad "names lost after expand_dir of an indexed directory"
# 130 more: the root's 123 entries fill, the index gains a level, its last
# node (126 entries) splits; the last leaf of the reference's htree dump is
# the directory's last block
for i in $(seq 1 130); do echo "expand_dir big"; done >"$T/s"
E "$img" "$T/s" || bad "expand_dir of a full index failed: $(head -1 "$T/e.err")"
nb=$(($(size "$img" big) / 1024))
R "$img" "htree big" >"$T/ht"
grepq "Indirect levels: 1" "$T/ht" || bad "expand_dir of a full root: no second index level"
[ "$(grep '^Entry' "$T/ht" | tail -1 | sed 's/.*block //')" = $((nb - 1)) ] ||
	bad "expand_dir of a full index: the last leaf is not block $((nb - 1)): $(grep '^Entry' "$T/ht" | tail -1)"
clean "$img" "expand_dir of a full index"
inl=$T/inl.img
mk -t ext4 -b 4096 -O inline_data "$inl" 8M
printf 'mkdir i\nwrite %s i/f\nexpand_dir i\n' "$T/small" >"$T/s"
E "$inl" "$T/s" || bad "expand_dir of an inline directory failed: $(head -2 "$T/e.err")"
[ "$(size "$inl" i)" = 4096 ] || bad "the inline directory is $(size "$inl" i) bytes after expand_dir"
R "$inl" "ls i" | grepq -w f || bad "the inline directory lost its entry"
clean "$inl" "expand_dir inline"

# ---- 8: punch, truncate, fallocate ------------------------------------------------------------
printf 'write %s p\npunch p 1 2\n' "$T/small" >"$T/s"
E "$img" "$T/s" || bad "punch failed: $(head -2 "$T/e.err")"
R "$img" "ex p" | grep -E '^ *0/' | awk '{print $5$6$7}' | tr '\n' ' ' | grepq "^0-0 3-4 $" ||
	bad "punch 1 2 left: $(R "$img" "ex p" | tr '\n' ' ')"
[ "$(size "$img" p)" = 5000 ] || bad "punch changed the size: $(size "$img" p)"
printf 'truncate p 1\nfallocate p 6 9\n' >"$T/s"
E "$img" "$T/s" || bad "truncate/fallocate failed: $(head -2 "$T/e.err")"
R "$img" "ex p" | grep -E '^ *0/' | awk '{print $5$6$7, $NF}' | tr '\n' ' ' | grepq "^0-0 [0-9]* 6-9 Uninit $" ||
	bad "truncate 1 + fallocate 6 9 left: $(R "$img" "ex p" | tr '\n' ' ')"
clean "$img" "punch/fallocate"
# the run that fills the disk needs one more extent block than is left:
# the blocks of the failed step are given back
full=$T/full.img
mk -t ext4 "$full" 16M
printf 'write %s s\nfallocate s 10\n' "$T/small" >"$T/s"
E "$full" "$T/s" || bad "fallocate to the end of the free space failed: $(head -2 "$T/e.err")"
R "$full" "stats" | grepq '^Free blocks: *[0-9]\{1,2\}$' || bad "fallocate without an end left $(R "$full" stats | grep -m1 '^Free blocks:')"
clean "$full" "fallocate to a full disk"

# a block map (ext2): the holes get blocks of zeros; past the end the
# size grows to cover them (a block map holds no block past i_size)
bm=$T/bm.img
mk -t ext2 "$bm" 8M
printf 'write %s f\npunch f 1 2\nfallocate f 0 20\n' "$T/small" >"$T/s"
E "$bm" "$T/s" || bad "fallocate on a block map failed: $(head -2 "$T/e.err")"
[ "$(size "$bm" f)" = 21504 ] || bad "fallocate 0 20 on a block map: size $(size "$bm" f)"
R "$bm" "stat f" | grep -A1 '^BLOCKS' | grepq '(0-11):.*(12-20)' ||
	bad "fallocate on a block map left $(R "$bm" "stat f" | grep -A1 '^BLOCKS' | tail -1)"
R "$bm" "dump f $T/bm.out" >/dev/null
python3 - "$T/small" "$T/bm.out" <<'PY' || bad "fallocate on a block map: the contents are not the data then zeros"
import sys
a, b = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
want = bytearray(a); want[1024:3072] = bytes(2048)
sys.exit(0 if b == bytes(want) + bytes(21504 - len(a)) else 1)
PY
clean "$bm" "fallocate on a block map"

# ---- 9: inode_dump -------------------------------------------------------------------------------
printf 'write %s x9\nea_set x9 user.foo barbarbar\n' "$T/small" >"$T/s"
E "$inl" "$T/s"
for o in "" -b -e -x; do
	"$E4DEBUGFS" -R "inode_dump $o x9" "$inl" >"$T/id.ours" 2>&1
	R "$inl" "inode_dump $o x9" >"$T/id.ref"
	cmp -s "$T/id.ours" "$T/id.ref" || bad "inode_dump $o differs: $(diff "$T/id.ref" "$T/id.ours" | head -4 | tr '\n' ' ')"
done
"$E4DEBUGFS" -R "id -b x9" "$inl" 2>&1 | cmp -s - <(R "$inl" "id -b x9") || bad "id (inode_dump's third name) differs"

# ---- 10: the clock ---------------------------------------------------------------------------------
printf 'set_current_time 20200304050607\nmkdir t\nwrite %s t/f\nset_current_time 20210304050607\nrm t/f\n' \
	"$T/small" >"$T/s"
E "$inl" "$T/s" || bad "the clock script failed: $(head -2 "$T/e.err")"
R "$inl" "stat t" | grepq "mtime: .*Thu Mar  4 05:06:07 2021" ||
	bad "rm did not date its directory with set_current_time: $(R "$inl" "stat t" | grep mtime)"
clean "$inl" "clock"

if [ ${#failed[@]} -gt 0 ]; then
	printf '  %s\n' "${failed[@]}" >&2
	fail "${#failed[@]} checks failed"
fi
info "write commands checked"
exit 0
