#!/bin/bash
# dbgw_memory: e4debugfs -w on a 15 TiB filesystem stays small (issue 13,
# acceptance 6).
#
# A 15 TiB sparse image (e4mkfs -t ext4, the defaults: 122,880 groups) on a
# private tmpfs is opened with `e4debugfs -w`, one file is written, and the
# filesystem is closed: the peak RSS must stay under 32 MiB (LIMIT_KIB).
# The figure is printed, with the reference debugfs's for the same
# commands on a copy (printed, not asserted: about 11 MiB).  The result
# must mount (the kernel, read-only) and hold the file (the reference
# debugfs reads it); with E4_LONG=1 the reference e2fsck -fn must also be
# clean (it takes about 30 s on 15 TiB, too long for every CI run).
# The peak is measured by GNU time -v when present, else by getrusage of
# the children in python (which also counts the spawning python's own pages
# before exec: an upper bound, so the check cannot pass wrongly).
# Catches: bitmaps loaded flat for all groups (a flat block bitmap of 15 TiB
# in 4 KiB blocks is 480 MiB), a per-group array grown on every open, a
# block cache without a bound.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_DEBUGFS" "$REF_E2FSCK"
need_e4debugfs
E4MKFS=${E4MKFS:-$E4_BUILDDIR/mkfs/e4mkfs}
[ -x "$E4MKFS" ] || fail "no e4mkfs at $E4MKFS"
LIMIT_KIB=${LIMIT_KIB:-$((32 * 1024))}

tmp_on_tmpfs 1g
img=$TFS/big.img
truncate -s 15T "$img" 2>/dev/null || skip "no 15 TiB sparse file on $TFS"
"$E4MKFS" -q -F -t ext4 "$img" >"$T/mkfs.out" 2>&1 || {
	cat "$T/mkfs.out" >&2
	fail "e4mkfs of 15 TiB failed"
}
printf 'hello\n' >"$TFS/src"
echo "write $TFS/src f" >"$T/cmds"

# peak_kib OUT CMD...: run CMD (stdout and stderr to OUT); its peak RSS in
# KiB goes to PEAK_KIB, its exit status to PEAK_RC.
peak_kib() {
	local out=$1
	shift
	if [ -x /usr/bin/time ] && /usr/bin/time -v true >/dev/null 2>&1; then
		/usr/bin/time -v -o "$out.time" "$@" >"$out" 2>&1
		PEAK_RC=$?
		PEAK_KIB=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$out.time")
	else
		PEAK_KIB=$("$PYTHON" -c '
import resource, subprocess, sys
with open(sys.argv[1], "w") as f:
    rc = subprocess.call(sys.argv[2:], stdout=f, stderr=subprocess.STDOUT)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc)' "$out" "$@")
		PEAK_RC=$?
	fi
}

cp --sparse=always "$img" "$TFS/ref.img"
peak_kib "$T/e4.out" "$E4DEBUGFS" -w -f "$T/cmds" "$img"
kib=$PEAK_KIB
[ "$PEAK_RC" = 0 ] || {
	cat "$T/e4.out" >&2
	fail "e4debugfs -w: $(describe_rc "$PEAK_RC")"
}
grepq '^Allocated inode: ' "$T/e4.out" || fail "e4debugfs did not write the file: $(tail -1 "$T/e4.out")"
[ -n "$kib" ] || fail "no peak RSS figure"
peak_kib "$T/ref.out" "$REF_DEBUGFS" -w -f "$T/cmds" "$TFS/ref.img"
ref=$PEAK_KIB
info "peak RSS on 15 TiB, open -w, one write, close: e4debugfs $((kib / 1024)) MiB ($kib KiB), the reference debugfs $((${ref:-0} / 1024)) MiB (${ref:-?} KiB)"
[ "$kib" -lt "$LIMIT_KIB" ] || fail "e4debugfs peak RSS $kib KiB is not under $LIMIT_KIB KiB"

[ "$("$REF_DEBUGFS" -R "cat f" "$img" 2>/dev/null)" = hello ] || fail "the file f does not read back"
kernel_mounts "$img" || fail "the kernel refuses the result: $KMOUNT_OUT"
# the reference e2fsck of 15 TiB takes about 30 s: only with E4_LONG=1
if [ "${E4_LONG:-0}" = 1 ]; then
	ref_clean "$img" || fail "the reference e2fsck -fn: $REF_CLEAN_OUT"
fi
info "ok in $(elapsed) s"
