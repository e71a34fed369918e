#!/bin/bash
# fsck_backup_search: when the primary superblock and group 1's backup are
# both unusable, e4fsck searches every backup location the geometry allows
# (each sparse_super group on the device, each block size, sparse_super2's
# copy in the last group) and names the one it uses (issue 11 item 7).
#
#  case     image                                 both zeroed      found at
#  sparse   64 MiB, 1 KiB blocks, 8 groups         1, 8193          24577 (group 3)
#  super2   64 MiB, 1 KiB, sparse_super2 (1, 7)    1, 8193          57345 (group 7)
#  bs4k     512 MiB, 4 KiB blocks, 4 groups        0 (byte 1024),   98304 (group 3)
#                                                  32768
#
# -n: exit 4 (opened from a backup: the full check is due), the message
# names block, group and block size, nothing written.  -y: the primary is
# written back from the backup (exit 4: the full check is still due); the
# reference e2fsck -fn then finds the filesystem clean.
# The reference e2fsck 1.47.0 tries only group 1 at each block size and
# gives up (exit 8) on all three images: this search is an extension
# (doc/e4fsck.8).  Bug caught: e4fsck gave up the same way ("no usable
# superblock", exit 8).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_MKE2FS" "$REF_E2FSCK"
export E2FSCK_CONFIG=/dev/null TZ=UTC

zero() {	# zero IMG BS BLOCK...: zero the 1024-byte superblock at each
	local img=$1 bs=$2 b
	shift 2
	for b in "$@"; do
		dd if=/dev/zero of="$img" bs=1024 count=1 conv=notrunc status=none \
			seek=$(( b == 0 ? 1 : b * bs / 1024 ))
	done
}

search() {	# search NAME IMG WANT_MESSAGE
	local name=$1 img=$2 pat=$3 rc stamp
	cp --sparse=always "$img" "$T/run.img"
	stamp=$(stat -c '%y %s' "$T/run.img")
	runcap "$T/$name.n" 30 "$E4FSCK" -n "$T/run.img"
	rc=$(cat "$T/$name.n.rc")
	[ "$rc" = 4 ] || fail "$name -n: $(describe_rc "$rc"), expected 4: $(cat "$T/$name.n.out" "$T/$name.n.err")"
	grepq -F "$pat" "$T/$name.n.out" || fail "$name -n: no '$pat': $(cat "$T/$name.n.out")"
	# (mostly holes: the modification time says it, cmp would read 512 MiB)
	[ "$(stat -c '%y %s' "$T/run.img")" = "$stamp" ] || fail "$name -n: the image changed"
	runcap "$T/$name.y" 30 "$E4FSCK" -y "$T/run.img"
	rc=$(cat "$T/$name.y.rc")
	[ "$rc" = 4 ] || fail "$name -y: $(describe_rc "$rc"), expected 4: $(cat "$T/$name.y.out" "$T/$name.y.err")"
	grepq -F "$pat" "$T/$name.y.out" || fail "$name -y: no '$pat'"
	ref_clean "$T/run.img" || fail "$name -y: reference -fn not clean: $REF_CLEAN_OUT"
	"$REF_E2FSCK" -n "$img" >/dev/null 2>&1 </dev/null
	[ $? = 8 ] || info "note: $name: the reference now finds a backup too"
	san_report "$T/$name.n.err" "$T/$name.y.err" && fail "$name: sanitizer report"
	return 0
}

img=$T/sparse.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$img" 64M >/dev/null 2>&1 || fail "mke2fs failed"
zero "$img" 1024 1 8193
search sparse "$img" "using the backup at block 24577 (group 3, 1024-byte blocks)"

img=$T/super2.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 -O sparse_super2 "$img" 64M >/dev/null 2>&1 ||
	fail "mke2fs failed"
zero "$img" 1024 1 8193
search super2 "$img" "using the backup at block 57345 (group 7, 1024-byte blocks)"

img=$T/bs4k.img
"$REF_MKE2FS" -q -F -t ext4 -b 4096 "$img" 512M >/dev/null 2>&1 || fail "mke2fs failed"
zero "$img" 4096 0 32768
search bs4k "$img" "using the backup at block 98304 (group 3, 4096-byte blocks)"

info "backup superblocks: found past group 1, named ($(elapsed)s)"
exit 0
