#!/bin/bash
# dbgw_bigdir: large directories written through e4debugfs -w -f (issue 13,
# acceptance 3).
#
#  1. ext4 (e4mkfs, -N 110000): one `mkdir d` then 100,000 `write`s of a
#     one-byte file into d, in one -f script.  The reference e2fsck -fn is
#     clean; d is indexed with one indirect level (a root and one level of
#     index nodes: with 7-byte names a 4 KiB leaf holds at most 255 entries,
#     so the 100,000 names need more leaves than the root's 507 slots), as
#     both e4debugfs `htree` and the reference `debugfs -R htree_dump` read
#     it; the kernel (read-only loop mount) finds 1,000 random names by path
#     (fixed seed), does not find a name never written, and lists exactly
#     the 100,000 names.
#  2. ext2 without dir_index: 20,000 writes into one linear directory: clean,
#     no index flag, the kernel lists and finds them the same way.
# Images live on a private tmpfs; the ext4 one has a fixed UUID and hash
# seed (the index layout depends on the seed).  The whole test takes about
# 8 s on 2 idle cores, 30 s under load (e4debugfs ~3.5 s for the 100,000
# writes).
# Catches: a leaf split that loses or duplicates an entry, an index split or
# new level that sends a hash range to the wrong block (the kernel's lookup
# by path misses the name), an index never added (depth 0 with 500+ leaves),
# free counts drifting over many commands.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_DEBUGFS" "$REF_E2FSCK"
need_e4debugfs
need_root_loop
E4MKFS=${E4MKFS:-$E4_BUILDDIR/mkfs/e4mkfs}
[ -x "$E4MKFS" ] || fail "no e4mkfs at $E4MKFS"

tmp_on_tmpfs 1g
printf 'x' >"$TFS/src"

# bigdir NAME COUNT SIZE MKFS-ARGS...: make $TFS/NAME.img, write COUNT files
# d/fNNNNNN into it, check it with the reference and the kernel.
bigdir() {
	local name=$1 count=$2 size=$3 img t0 dev dir got
	shift 3
	img=$TFS/$name.img
	"$E4MKFS" -q -F "$@" "$img" "$size" >"$T/$name.mkfs" 2>&1 || {
		cat "$T/$name.mkfs" >&2
		fail "$name: e4mkfs $* failed"
	}
	"$PYTHON" - "$TFS/src" "$count" >"$TFS/$name.cmds" <<'EOF'
import sys
src, n = sys.argv[1], int(sys.argv[2])
print("mkdir d")
for i in range(n):
    print("write %s d/f%06d" % (src, i))
EOF
	t0=$(elapsed)
	runcap "$T/$name.dbg" 600 "$E4DEBUGFS" -w -f "$TFS/$name.cmds" "$img"
	[ "$(cat "$T/$name.dbg.rc")" = 0 ] || {
		tail -5 "$T/$name.dbg.err" >&2
		fail "$name: e4debugfs -w -f: $(describe_rc "$(cat "$T/$name.dbg.rc")")"
	}
	info "$name: $count writes by e4debugfs in $(awk "BEGIN{print $(elapsed) - $t0}") s"
	got=$(grep -c '^Allocated inode: ' "$T/$name.dbg.out")
	[ "$got" = "$count" ] || fail "$name: $got writes reported an inode, want $count"
	ref_clean "$img" || fail "$name: the reference e2fsck -fn: $REF_CLEAN_OUT"

	# the kernel: lookups by path first (so that they go through the
	# directory's lookup, not a dentry cache filled by the listing), then
	# the full listing
	dev=$(losetup -r -f --show "$img") || fail "$name: losetup failed"
	on_exit "losetup -d '$dev'"
	dir=$T/$name.mnt
	mkdir -p "$dir"
	mount -t ext4 -o ro,noload "$dev" "$dir" || fail "$name: the kernel refuses the image"
	on_exit "umount_retry '$dir'"
	"$PYTHON" - "$count" >"$T/$name.pick" <<'EOF'
import random, sys
n = int(sys.argv[1])
for i in random.Random(13).sample(range(n), 1000):
    print("f%06d" % i)
EOF
	local f miss=0
	while read -r f; do
		[ -f "$dir/d/$f" ] || { miss=$((miss + 1)); echo "$name: kernel: no d/$f" >&2; }
	done <"$T/$name.pick"
	[ $miss = 0 ] || fail "$name: the kernel misses $miss of 1000 names looked up by path"
	[ ! -e "$dir/d/f$(printf %06d "$count")" ] || fail "$name: the kernel finds a name never written"
	[ "$(cat "$dir/d/$(head -1 "$T/$name.pick")")" = x ] || fail "$name: wrong file contents"
	ls -f "$dir/d" | grep -v '^\.\.\?$' | sort >"$T/$name.ls"
	sed -n 's,^write [^ ]* d/,,p' "$TFS/$name.cmds" | sort >"$T/$name.want"
	cmp -s "$T/$name.ls" "$T/$name.want" || {
		diff "$T/$name.want" "$T/$name.ls" | head -5 >&2
		fail "$name: the kernel's listing of d differs from the names written ($(wc -l <"$T/$name.ls") names)"
	}
	umount_retry "$dir"
	losetup -d "$dev" 2>/dev/null
}

# ---- 1: ext4, 100,000 names, a two-level index -------------------------------
bigdir ext4 100000 512M -t ext4 -N 110000 -b 4096 -U 6d3c2b1a-0f0e-4d0c-8b0a-090807060504 \
	-E hash_seed=1b2c3d4e-5f60-4172-8394-a5b6c7d8e9f0
img=$TFS/ext4.img
"$E4DEBUGFS" -R "htree d" "$img" >"$T/htree.out" 2>"$T/htree.err" ||
	fail "e4debugfs htree d failed: $(head -1 "$T/htree.err")"
"$REF_DEBUGFS" -R "htree_dump d" "$img" >"$T/ref_htree.out" 2>/dev/null ||
	fail "debugfs htree_dump d failed"
for f in htree ref_htree; do
	lv=$(sed -n 's/^[[:space:]]*Indirect levels: //p' "$T/$f.out")
	[ "$lv" = 1 ] || fail "$f: the index of d has indirect levels '$lv', want 1"
done
# the root really is over-full for one level: more leaves than its limit
limit=$(sed -n 's/^Number of entries (limit): //p' "$T/ref_htree.out" | head -1)
size=$("$REF_DEBUGFS" -R "stat d" "$img" 2>/dev/null | sed -n 's/.*Size: \([0-9]*\).*/\1/p' | head -1)
[ -n "$limit" ] && [ -n "$size" ] || fail "cannot read the root limit or the size of d"
[ $((size / 4096)) -gt $((limit + 1)) ] ||
	fail "d has $((size / 4096)) blocks, not more than the root limit $limit: the test does not need two levels"

# ---- 2: ext2 without dir_index, 20,000 names in a linear directory ------------
bigdir ext2 20000 128M -t ext2 -O ^dir_index -N 30000 -b 4096
"$REF_DEBUGFS" -R "stat d" "$TFS/ext2.img" 2>/dev/null | grep -q 'Flags: 0x0\b' ||
	fail "ext2: d has flags other than 0 (an index on a filesystem without dir_index?)"

info "ok in $(elapsed) s"
