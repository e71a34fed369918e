#!/bin/bash
# mkfs_safe_order: e4mkfs writes in a safe order (DESIGN.md, "Writing
# safely"), checked on the system calls (strace -y) over an image that
# holds an old ext4 filesystem, with and without discard:
#  1. the first write to the target destroys the old superblock (a
#     signature wipe or hole punch covering its magic at byte 1080, or a
#     write over it);
#  2. an fsync of the target follows before any new metadata is written
#     (past the first 64 KiB);
#  3. the last write is the new primary superblock (covering bytes
#     1024..2047), and an fsync of the target follows it;
#  4. the result is clean under the reference e2fsck -fn.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$E4_TESTDIR/t/mkfs_common.bash"

need_e4mkfs
need_oracle "$REF_MKE2FS" "$REF_E2FSCK"
need_cmd strace		# scripts/deps.sh installs it
# the libtool wrapper is a script: trace the real binary
BIN=$E4MKFS
[ -x "$(dirname "$E4MKFS")/.libs/e4mkfs" ] && BIN=$(dirname "$E4MKFS")/.libs/e4mkfs
export LD_LIBRARY_PATH=$E4_BUILDDIR/lib/e4/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

failed=()
check_order() {	# check_order NAME OPTS...
	local name=$1 img=$T/$1.img tr=$T/$1.trace
	shift
	rm -f "$img"
	truncate -s 128M "$img"
	"$REF_MKE2FS" -q -F -t ext4 -L old "$img" >/dev/null 2>&1 || fail "reference mke2fs failed"
	if ! strace -f -y -qq -e trace=pwrite64,pwritev,write,lseek,fallocate,fsync,fdatasync,ioctl \
		-o "$tr" "$BIN" -q -F "$@" "$img" </dev/null >"$T/out" 2>&1; then
		failed+=("$name: e4mkfs failed: $(head -2 "$T/out")")
		return
	fi
	# one line per operation on the image: op offset length
	awk -v img="$img" '
	index($0, "<" img ">") == 0 { next }
	{
		line = $0; sub(/^[0-9]+ +/, "", line)
		op = line; sub(/\(.*/, "", op)
		n = split(line, a, /, /)
		if (op == "pwrite64") { len = a[n-1]; off = a[n]; sub(/\).*/, "", off); print "pwrite", off, len }
		else if (op == "fallocate") { off = a[3]; len = a[4]; sub(/\).*/, "", len); print "fallocate", off, len, a[2] }
		else if (op == "lseek") { off = a[2]; print "lseek", off, 0 }
		else if (op == "write") { len = a[n]; sub(/\).*/, "", len); print "write", -1, len }
		else if (op == "fsync" || op == "fdatasync") print "fsync", 0, 0
		else if (op == "ioctl") print "ioctl", 0, 0, a[2]
	}' "$tr" >"$tr.ops"
	local first last after_last sync_before
	first=$(awk '$1 == "lseek" { pos = $2; next }
		$1 == "write" { if (pos <= 1080 && pos + $3 > 1080) print "ok"; else print "bad write at " pos; exit }
		$1 == "pwrite" || $1 == "fallocate" { if ($2 <= 1080 && $2 + $3 > 1080) print "ok"; else print "bad " $1 " at " $2; exit }
		$1 == "ioctl" { print "ok"; exit }' "$tr.ops")
	[ "$first" = ok ] || failed+=("$name: the first write does not destroy the old superblock: ${first:-none}")
	sync_before=$(awk '$1 == "fsync" { s = 1 } $1 == "pwrite" && $2 >= 65536 { print (s ? "ok" : "no"); exit }' "$tr.ops")
	[ "$sync_before" = ok ] || failed+=("$name: no fsync between the invalidation and the new metadata")
	last=$(awk '$1 == "pwrite" || $1 == "write" || $1 == "fallocate" { l = $0 } END { print l }' "$tr.ops")
	set -- $last
	if [ "$1" != pwrite ] || [ "$2" -gt 1024 ] || [ $(($2 + $3)) -lt 2048 ]; then
		failed+=("$name: the last write is not the primary superblock: $last")
	fi
	after_last=$(awk '$1 == "pwrite" || $1 == "write" || $1 == "fallocate" { s = 0; next } $1 == "fsync" { s = 1 } END { print s }' "$tr.ops")
	[ "$after_last" = 1 ] || failed+=("$name: no fsync after the primary superblock")
	fsck_clean "$img" || failed+=("$name: $MKFS_WHY")
}

check_order discard -t ext4
check_order nodiscard -t ext4 -E nodiscard
check_order nodiscard_1k -t ext3 -b 1024 -E nodiscard
check_order nolazy -t ext4 -E nodiscard,lazy_itable_init=0

if [ ${#failed[@]} -gt 0 ]; then
	printf '  %s\n' "${failed[@]}" >&2
	fail "${#failed[@]} order checks failed"
fi
info "write order checks passed (4 option sets)"
exit 0
