#!/bin/bash
# mkfs_orphan_size: the orphan file is never larger than the kernel mounts:
# at most 8 MiB (Linux 0a6ce20c1564 refuses more: "orphan file too big")
# and at most 512 blocks (the rule that replaced it in newer kernels).
# 64 KiB blocks at 40 GiB: 128 blocks (mke2fs 1.47.0 makes 159, 10 MiB;
# 1.47.4 caps too); 4 KiB blocks at 40 GiB keep mke2fs 1.47.0's 512
# blocks; an explicit -E orphan_file_size=2000 (4 KiB blocks) gets 512
# blocks and a warning, and the kernel mounts the result (it refuses
# mke2fs 1.47.0's 2000).  Every image is clean for the reference e2fsck
# -fn.  Catches a default or explicit size that is not capped.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$E4_TESTDIR/t/mkfs_common.bash"

need_e4mkfs
need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DEBUGFS"
mkfs_debian_conf
failed=()
img=$T/o.img

# orphan_size IMG: the orphan file's i_size in bytes
orphan_size() {
	"$REF_DEBUGFS" -R 'stat <12>' "$1" 2>/dev/null | sed -n 's/.*Size: \([0-9]*\)$/\1/p' | head -1
}

# size|options|orphan file bytes|1: the reference 1.47.0 makes the same
SETS='
40G|-F -b 65536 -O orphan_file|8388608|0
40G|-b 4096 -O orphan_file|2097152|1
1G|-b 4096 -O orphan_file -E orphan_file_size=2000|2097152|0
'
while IFS='|' read -r size opts want same; do
	[ -n "$size" ] || continue
	# shellcheck disable=SC2086
	if ! mk_e4 "$img" "$size" -t ext4 $opts; then
		failed+=("$size $opts: e4mkfs failed: $(head -2 "$img.e4out" | tr '\n' ' ')")
		continue
	fi
	got=$(orphan_size "$img")
	[ "$got" = "$want" ] || failed+=("$size $opts: orphan file of $got bytes, not $want")
	case $opts in
	*orphan_file_size=*)
		grepq -i 'warning.*orphan file' "$img.e4out" ||
			failed+=("$size $opts: no warning that the size was lowered")
		;;
	esac
	ref_clean "$img" || failed+=("$size $opts: e2fsck -fn: $(tr '\n' '|' <<<"$REF_CLEAN_OUT" | cut -c1-300)")
	kernel_mounts "$img" || failed+=("$size $opts: the kernel refuses it: $KMOUNT_OUT")
	if [ "$same" = 1 ]; then
		# shellcheck disable=SC2086
		mk_ref "$T/ref.img" "$size" -t ext4 $opts || failed+=("$size $opts: the reference failed")
		[ "$(orphan_size "$T/ref.img")" = "$want" ] ||
			failed+=("$size $opts: mke2fs 1.47.0 makes $(orphan_size "$T/ref.img") bytes")
		rm -f "$T/ref.img"
	fi
	rm -f "$img"
done <<<"$SETS"

if [ ${#failed[@]} -gt 0 ]; then
	printf '  %s\n' "${failed[@]}" >&2
	fail "${#failed[@]} orphan file checks failed"
fi
info "orphan files within the kernel's limit ($(elapsed) s)"
exit 0
