#!/bin/bash
# dbgw_fail_clean: a FAILED e4debugfs -w command changes nothing (review of
# issue 13): after each failure below the reference e2fsck -fn is clean
# and what was there is still there.
#  1. an inline directory that cannot become a block directory (no free
#     block: expand_dir, or a name that no longer fits inline) keeps its
#     entries.
# Catches: the inline directory's inode written without its inline data
# (size 0, no extent header) before the block was allocated, its entries
# lost when the allocation failed.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_MKE2FS" "$REF_E2FSCK"
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

exit 0
