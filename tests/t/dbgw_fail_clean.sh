#!/bin/bash
# dbgw_fail_clean: a FAILED e4debugfs -w command changes nothing (review of
# issue 13): after each failure below the reference e2fsck -fn is clean
# and what was there is still there.
#  1. an inline directory that cannot become a block directory (no free
#     block: expand_dir, or a name that no longer fits inline) keeps its
#     entries.
#  2. a name a directory refuses (casefold, a bad leaf checksum, a corrupt
#     htree root) costs no inode: write, mkdir, symlink, mknod, link.
#  3. a write whose data cannot reach the image (a full tmpfs under it)
#     leaves no file behind, and says "removed" only of a removal that
#     was written (the image clean, the name gone); a mkdir whose new
#     block cannot be written is undone on the image (the failed block's
#     write dropped once the block is freed, e4_io_forget()).
#  4. rm (and kill_file) of a file whose extent index block is garbage
#     fails with its name kept and nothing freed.
#  5. punch, truncate and fallocate refuse the reserved inodes (the
#     resize inode, the journal) as kill_file does.
# Catches: the inline directory's inode written without its inline data
# (size 0, no extent header) before the block was allocated, its entries
# lost when the allocation failed; a new inode allocated and written
# before the directory refused its name, left in use and unnamed.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DEBUGFS"
need_e4debugfs
export E2FSCK_CONFIG=/dev/null
E=$E4DEBUGFS
D=$T
[ -d /dev/shm ] && D=$(mktemp -d /dev/shm/dbgw_fail_clean.XXXXXX) && on_exit rm -rf "$D"
echo hello >"$D/small"

# dw IMG CMD: one e4debugfs -w command; its output in $D/r.*
dw() { runcap "$D/r" 30 "$E" -w -R "$2" "$1"; }
# must_fail IMG CMD WHAT: the command fails (stderr, rc), the image stays clean
must_fail() {
	dw "$1" "$2"
	[ -s "$D/r.err" ] || fail "$3: '$2' did not fail: $(cat "$D/r.out")"
	ref_clean "$1" || fail "$3: '$2' left the image not clean: $REF_CLEAN_OUT"
}
# names IMG DIR: the names in DIR, one a line, sorted
names() { "$E" -R "ls -p $2" "$1" 2>/dev/null | awk -F/ 'NF>5 && $6!="." && $6!=".." {print $6}' | sort; }

# ---- 1. inline directory conversion on a full filesystem --------------------
"$REF_MKE2FS" -q -F -t ext4 -O inline_data "$D/i.img" 4M >/dev/null 2>&1 || fail "mke2fs"
dw "$D/i.img" "mkdir /d"
dw "$D/i.img" "write $D/small /d/keep"
dw "$D/i.img" "write $D/small /fill"
dw "$D/i.img" "fallocate /fill 0"		# every free block
ref_clean "$D/i.img" || fail "setup not clean: $REF_CLEAN_OUT"
must_fail "$D/i.img" "expand_dir /d" "expand_dir"
[ "$(names "$D/i.img" /d)" = keep ] || fail "expand_dir: /d lost its entries: $(names "$D/i.img" /d)"
# names until the inline room is used up: the one that needs a block fails
i=0 made=keep
while [ $i -lt 20 ]; do
	i=$((i + 1))
	dw "$D/i.img" "mknod /d/node_$i p"
	[ -s "$D/r.err" ] && break
	made="$made node_$i"
done
[ -s "$D/r.err" ] || fail "mknod: 20 names fit inline (the test needs a conversion)"
ref_clean "$D/i.img" || fail "mknod node_$i: not clean: $REF_CLEAN_OUT"
dw "$D/i.img" "mknod /d/node_$((i + 1)) p"
grepq 'corrupt' "$D/r.err" && fail "mknod after a failed one: $(cat "$D/r.err")"
[ "$(names "$D/i.img" /d)" = "$(tr ' ' '\n' <<<"$made" | sort)" ] ||
	fail "mknod: /d lost entries: $(names "$D/i.img" /d | tr '\n' ' ')"

# ---- 2. a directory that refuses the name: no inode taken --------------------
# same_fsck IMG WHAT: the reference e2fsck -fn says what it said before
# (in $D/before), the inode count included
same_fsck() {
	"$REF_E2FSCK" -fn "$1" >"$D/after" 2>&1 </dev/null
	diff "$D/before" "$D/after" >/dev/null ||
		fail "$2: e2fsck changed: $(diff "$D/before" "$D/after")"
}
refused() {	# IMG DIR WHAT: every kind of new name in DIR fails, nothing changes
	"$REF_E2FSCK" -fn "$1" >"$D/before" 2>&1 </dev/null
	for c in "write $D/small $2/w" "mkdir $2/m" "symlink $2/s /x" "mknod $2/n p" \
		 "link /small $2/l"; do
		dw "$1" "$c"
		[ -s "$D/r.err" ] || fail "$3: '$c' did not fail"
		same_fsck "$1" "$3: '$c'"
	done
}
"$REF_MKE2FS" -q -F -t ext4 -O casefold "$D/c.img" 4M >/dev/null 2>&1 || fail "mke2fs"
dw "$D/c.img" "write $D/small /small"
dw "$D/c.img" "mkdir /cf"
dw "$D/c.img" "sif /cf flags 0x40080000"	# casefold + extents
ref_clean "$D/c.img" || fail "casefold setup not clean: $REF_CLEAN_OUT"
refused "$D/c.img" /cf casefold
ref_clean "$D/c.img" || fail "casefold: not clean: $REF_CLEAN_OUT"

# a leaf with a bad checksum: one byte of a name changed
"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$D/k.img" 4M >/dev/null 2>&1 || fail "mke2fs"
dw "$D/k.img" "write $D/small /small"
dw "$D/k.img" "mkdir /d"
dw "$D/k.img" "mknod /d/aaaa p"
blk=$("$E" -R "blocks /d" "$D/k.img" 2>/dev/null | awk '{print $1}')
off=$(od -A d -t c -j $((blk * 1024)) -N 1024 -w4 "$D/k.img" | awk '$2=="a" && $3=="a" && $4=="a" && $5=="a" {print $1; exit}')
[ -n "$off" ] || fail "the name aaaa not found in block $blk"
printf b | dd of="$D/k.img" bs=1 seek="$off" conv=notrunc 2>/dev/null
refused "$D/k.img" /d "leaf checksum"

# an indexed directory whose root's info_length is wrong
"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$D/h.img" 4M >/dev/null 2>&1 || fail "mke2fs"
{ echo "write $D/small /small"; echo "mkdir /h"
  for i in $(seq 1 60); do echo "mknod /h/name_long_enough_$i p"; done; } >"$D/cmds"
runcap "$D/r" 60 "$E" -w -f "$D/cmds" "$D/h.img"
fl=$("$REF_DEBUGFS" -R "stat /h" "$D/h.img" 2>/dev/null | sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p')
[ $((fl & 0x1000)) != 0 ] || fail "/h is not indexed (flags $fl)"
blk=$("$E" -R "blocks /h" "$D/h.img" 2>/dev/null | awk '{print $1}')
printf '\x55' | dd of="$D/h.img" bs=1 seek=$((blk * 1024 + 29)) conv=notrunc 2>/dev/null
refused "$D/h.img" /h "htree root"

# ---- 4. rm of a file that cannot be released -----------------------------------
"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$D/x.img" 4M >/dev/null 2>&1 || fail "mke2fs"
head -c 300000 /dev/zero | tr '\0' y >"$D/frag"
{ echo "write $D/frag /f"; for i in $(seq 0 2 290); do echo "punch /f $i $i"; done; } >"$D/cmds"
runcap "$D/r" 60 "$E" -w -f "$D/cmds" "$D/x.img"		# an extent tree of depth 1
idx=$("$REF_DEBUGFS" -R "ex /f" "$D/x.img" 2>/dev/null | awk '$1=="0/" {print $8; exit}')
[ -n "$idx" ] || fail "/f has no index block"
head -c 1024 /dev/zero | tr '\0' z | dd of="$D/x.img" bs=1024 seek="$idx" conv=notrunc 2>/dev/null
"$REF_E2FSCK" -fn "$D/x.img" >"$D/before" 2>&1 </dev/null
dw "$D/x.img" "rm /f"
[ -s "$D/r.err" ] || fail "rm of a file with a garbage index block succeeded"
same_fsck "$D/x.img" "rm /f"
names "$D/x.img" / | grepq '^f$' || fail "rm failed but the name /f is gone"
dw "$D/x.img" "kill_file /f"
[ -s "$D/r.err" ] || fail "kill_file of a file with a garbage index block succeeded"
same_fsck "$D/x.img" "kill_file /f"

# ---- 5. reserved inodes --------------------------------------------------------------
"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$D/r.img" 8M >/dev/null 2>&1 || fail "mke2fs"
for c in "punch <7> 0" "punch <8> 0 5" "truncate <8> 0" "fallocate <7> 0 3" "kill_file <8>"; do
	must_fail "$D/r.img" "$c" "reserved"
	grepq 'reserved inode' "$D/r.err" || fail "'$c': $(cat "$D/r.err")"
done

# ---- 3. the image's own filesystem full ----------------------------------------
if [ "$(id -u)" = 0 ] && mount_tmpfs "$T/tfs" 3m; then
	head -c $((4 << 20)) /dev/zero | tr '\0' x >"$D/r4m"
	"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$T/tfs/h.img" 16M >/dev/null 2>&1 || fail "mke2fs"
	dw "$T/tfs/h.img" "write $D/r4m /b"
	[ "$(cat "$D/r.rc")" != 0 ] || fail "write of 4 MiB into a 3 MiB tmpfs succeeded"
	ref_clean "$T/tfs/h.img" || fail "failed write: not clean: $REF_CLEAN_OUT"
	if grepq '/b removed' "$D/r.err"; then
		names "$T/tfs/h.img" / | grepq '^b$' && fail "'/b removed' but /b is there"
	fi
	# the new directory's block is the write that fails (a hole of the
	# full tmpfs): the give-back must still reach the image
	dw "$T/tfs/h.img" "mkdir /c"
	[ "$(cat "$D/r.rc")" != 0 ] || fail "mkdir on a full tmpfs succeeded"
	ref_clean "$T/tfs/h.img" || fail "failed mkdir: not clean: $REF_CLEAN_OUT"
else
	info "no tmpfs (not root): part 3 not run"
fi

exit 0
