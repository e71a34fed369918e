#!/bin/bash
# mkfs_rev0: revision 0 filesystems, through -E revision=0 (the spelling
# since e2fsprogs 1.47.2) and -r 0 (1.47.0's; its option sets are in
# mkfs_matrix).  e4mkfs -E revision=0 makes byte for byte the image
# mke2fs 1.47.0 -r 0 makes (but for s_kbytes_written, the bytes each tool
# happened to write), whose dumpe2fs shows revision 0, no features, no
# default mount options; the reference e2fsck -fn finds it clean and the
# kernel mounts it.  A feature (-O has_journal) or a journal (-j) with
# revision 0 is refused as mke2fs refuses it, so is revision 2, and
# nothing is written then.  Catches a revision 0 superblock with
# revision 1 fields (default mount options, 256-byte inodes, the type's
# features) or a silently ignored -j.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$E4_TESTDIR/t/mkfs_common.bash"

need_e4mkfs
need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DUMPE2FS" "$REF_DEBUGFS"
mkfs_debian_conf
failed=()
img=$T/r0.img ref=$T/ref.img

for opts in "-t ext2" "-t ext4 -I 256"; do
	# shellcheck disable=SC2086
	mk_e4 "$img" 8M $opts -E revision=0 ||
		{ failed+=("$opts -E revision=0: e4mkfs failed: $(head -2 "$img.e4out" | tr '\n' ' ')"); continue; }
	# shellcheck disable=SC2086
	mk_ref "$ref" 8M $opts -r 0 || { failed+=("$opts: mke2fs -r 0 failed"); continue; }
	# every byte but s_kbytes_written (superblock offset 0x178, 8 bytes;
	# cmp counts from 1)
	diffs=$(cmp -l "$ref" "$img" | awk '$1 < 1401 || $1 > 1408' | wc -l)
	[ "$diffs" = 0 ] || failed+=("$opts: $diffs bytes differ from mke2fs -r 0's image")
	dump_parity "$ref" "$img" ||
		failed+=("$opts: dumpe2fs differs: $(head -4 "$img.dumpdiff" | tr '\n' ' ')")
	"$REF_DUMPE2FS" -h "$img" 2>/dev/null | grep -E '^(Filesystem revision #|Filesystem features|Default mount options):' |
		tr -s ' ' >"$T/h"
	printf '%s\n' 'Filesystem revision #: 0 (original)' 'Filesystem features: (none)' \
		'Default mount options: (none)' | cmp -s - "$T/h" ||
		failed+=("$opts: dumpe2fs -h: $(tr '\n' '|' <"$T/h")")
	ref_clean "$img" || failed+=("$opts: e2fsck -fn: $(tr '\n' '|' <<<"$REF_CLEAN_OUT" | cut -c1-300)")
	kernel_mounts "$img" || failed+=("$opts: the kernel refuses it: $KMOUNT_OUT")
done

# refused, nothing written
rm -f "$img"
truncate -s 8M "$img"
for bad in "-r 0 -O has_journal|revision 0" "-E revision=0 -j|journal" "-r 0 -J size=4|journal" \
	"-r 2|revision" "-E revision=2|revision" "-r x|revision"; do
	opts=${bad%|*} word=${bad#*|}
	# shellcheck disable=SC2086
	"$E4MKFS" -q -F $opts "$img" >"$T/out" 2>&1 </dev/null
	rc=$?
	[ $rc = 1 ] || failed+=("$opts: exit $rc, not 1")
	grepq -i "$word" "$T/out" || failed+=("$opts: the message does not say why: $(head -1 "$T/out")")
	[ "$(stat -c %b "$img")" = 0 ] || failed+=("$opts: something was written")
done

if [ ${#failed[@]} -gt 0 ]; then
	printf '  %s\n' "${failed[@]}" >&2
	fail "${#failed[@]} revision 0 checks failed"
fi
info "revision 0 as mke2fs -r 0 makes it ($(elapsed) s)"
exit 0
