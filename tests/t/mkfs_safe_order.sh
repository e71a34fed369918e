#!/bin/bash
# mkfs_safe_order: e4mkfs writes in a safe order (DESIGN.md, "Writing
# safely"), checked on the system calls (strace -y) over an image that
# holds an old ext4 filesystem, with and without discard:
#  1. before the first fsync, writes destroy the old superblock and all its
#     backups (a signature wipe, hole punch or write covering the magic
#     of each: byte 1080, and 56 bytes into each backup);
#  2. an fsync of the target follows before any new metadata is written
#     (past the first 64 KiB);
#  3. the last write is the new primary superblock (covering bytes
#     1024..2047), and an fsync of the target follows it; once new
#     metadata is written nothing else writes those bytes (no early copy
#     of the new superblock, e.g. from a library flush);
#  4. the result is clean under the reference e2fsck -fn;
#  5. a run killed at its first fsync (strace fault injection) leaves an
#     image the reference e2fsck cannot open at all: neither the old
#     primary nor, through its fallback, an old backup brings the old
#     filesystem back over the half-made new one.
# Catches: the new primary superblock written before the rest of the new
# metadata (it must be the last write); checked: e4mkfs's bitmap store
# without E4_BMAP_STORE_NO_FLUSH (the library's flush writes the
# superblock after the bitmaps) fails rule 3 in the 3 ext4 sets (on ext3
# the store changes no descriptor, and its flush writes no superblock).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$E4_TESTDIR/t/mkfs_common.bash"

need_e4mkfs
need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DUMPE2FS"
need_cmd strace		# scripts/deps.sh installs it
# the libtool wrapper is a script: trace the real binary
BIN=$E4MKFS
[ -x "$(dirname "$E4MKFS")/.libs/e4mkfs" ] && BIN=$(dirname "$E4MKFS")/.libs/e4mkfs
export LD_LIBRARY_PATH=$E4_BUILDDIR/lib/e4/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

failed=()
check_order() {	# check_order NAME OPTS...
	local name=$1 img=$T/$1.img tr=$T/$1.trace
	shift
	local opts=("$@")
	rm -f "$img"
	truncate -s 128M "$img"
	"$REF_MKE2FS" -q -F -t ext4 -L old "$img" >/dev/null 2>&1 || fail "reference mke2fs failed"
	# the old superblocks' magic numbers: byte 1080, 56 into each backup
	local magics
	magics="1080 $("$REF_DUMPE2FS" "$img" 2>/dev/null | awk '
		/^Block size:/ { bs = $3 }
		/Backup superblock at/ { sub(/.*Backup superblock at /, ""); sub(/,.*/, ""); printf "%d ", $0 * bs + 56 }')"
	[ "$(wc -w <<<"$magics")" -gt 1 ] || fail "$name: no backup superblocks found in the old image"
	# LeakSanitizer cannot stop a traced process's threads to scan them
	# ("LeakSanitizer has encountered a fatal error"): its check is off
	# under strace only (mkfs_cases and mkfs_output leak-check e4mkfs)
	if ! ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -y -qq -e trace=pwrite64,pwritev,write,lseek,fallocate,fsync,fdatasync,ioctl \
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
	first=$(awk -v magics="$magics" '
		BEGIN { n = split(magics, m, " ") }
		function cover(o, l) { for (i = 1; i <= n; i++) if (m[i] >= o && m[i] < o + l) hit[i] = 1 }
		$1 == "lseek" { pos = $2; next }
		$1 == "write" { cover(pos, $3); next }
		$1 == "pwrite" || $1 == "fallocate" { cover($2, $3); next }
		$1 == "ioctl" { cover(0, 2^62); next }
		$1 == "fsync" { exit }
		END { left = ""; for (i = 1; i <= n; i++) if (!hit[i]) left = left " " m[i]; print left == "" ? "ok" : "intact at bytes" left }' "$tr.ops")
	[ "$first" = ok ] || failed+=("$name: before the first fsync, old superblock magic $first")
	# (the zeroing of the old backup superblocks is not new metadata)
	sync_before=$(awk -v magics="$magics" '
		BEGIN { n = split(magics, m, " "); for (i = 2; i <= n; i++) old[m[i] - 56] = 1 }
		$1 == "fsync" { s = 1 }
		$1 == "pwrite" && $2 >= 65536 && !(($2 in old) && $3 == 1024) { print (s ? "ok" : "no"); exit }' "$tr.ops")
	[ "$sync_before" = ok ] || failed+=("$name: no fsync between the invalidation and the new metadata")
	last=$(awk '$1 == "pwrite" || $1 == "write" || $1 == "fallocate" { l = $0 } END { print l }' "$tr.ops")
	set -- $last
	if [ "$1" != pwrite ] || [ "$2" -gt 1024 ] || [ $(($2 + $3)) -lt 2048 ]; then
		failed+=("$name: the last write is not the primary superblock: $last")
	fi
	local sb_writes
	# from the first new metadata on (as rule 2 finds it)
	sb_writes=$(awk -v magics="$magics" '
		BEGIN { n = split(magics, m, " "); for (i = 2; i <= n; i++) old[m[i] - 56] = 1 }
		$1 == "lseek" { pos = $2; next }
		$1 == "pwrite" && $2 >= 65536 && !(($2 in old) && $3 == 1024) { s = 1 }
		!s { next }
		$1 == "write" && pos < 2048 && pos + $3 > 1024 { w++ }
		($1 == "pwrite" || $1 == "fallocate") && $2 < 2048 && $2 + $3 > 1024 { w++ }
		END { print w + 0 }' "$tr.ops")
	[ "$sb_writes" = 1 ] ||
		failed+=("$name: the primary superblock written $sb_writes times once new metadata is written (once, last)")
	after_last=$(awk '$1 == "pwrite" || $1 == "write" || $1 == "fallocate" { s = 0; next } $1 == "fsync" { s = 1 } END { print s }' "$tr.ops")
	[ "$after_last" = 1 ] || failed+=("$name: no fsync after the primary superblock")
	fsck_clean "$img" || failed+=("$name: $MKFS_WHY")

	# 5. killed at the first fsync: nothing of the old filesystem is found
	rm -f "$img"
	truncate -s 128M "$img"
	"$REF_MKE2FS" -q -F -t ext4 -L old "$img" >/dev/null 2>&1 || fail "reference mke2fs failed"
	strace -qq -o /dev/null -e trace=fsync,fdatasync -e inject=fsync,fdatasync:signal=KILL:when=1 \
		"$BIN" -q -F "${opts[@]}" "$img" </dev/null >/dev/null 2>&1
	local rc out
	out=$("$REF_E2FSCK" -fn "$img" 2>&1 </dev/null)
	rc=$?
	if [ $rc != 8 ] || grepq -i 'journal for old\|Pass 1' <<<"$out"; then
		failed+=("$name: stopped at the first fsync, e2fsck -fn still opens it (exit $rc): $(head -3 <<<"$out" | tr '\n' '|')")
	fi
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
