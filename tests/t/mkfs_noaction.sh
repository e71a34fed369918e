#!/bin/bash
# mkfs_noaction: e4mkfs -n prints what mke2fs -n prints, byte for byte on
# stdout: the short summary ("Creating filesystem with ...", the UUID and
# the superblock backups, wrapped as mke2fs wraps them; an empty line for
# one group; no UUID line for a null UUID; the heading alone without
# backups), also with -q (the -v listing: mkfs_output); nothing written
# and no file created.  Catches -n printing the -v listing (as e4mkfs did
# before issue 12) or a backup list wrapped at another column.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$E4_TESTDIR/t/mkfs_common.bash"

need_e4mkfs
need_oracle "$REF_MKE2FS"
mkfs_debian_conf
failed=()
img=$T/n.img

# size|options: several groups (1 KiB and 4 KiB blocks), one group, a
# long backup list that wraps, no backups, a null UUID, -q
SETS='
100M|-t ext4
1G|-t ext4
8M|-t ext2
1G|-t ext4 -O bigalloc
20G|-t ext4 -b 1024
100M|-t ext2 -O ^sparse_super,^resize_inode
2G|-t ext4 -O sparse_super2 -E num_backup_sb=0
100M|-t ext4 -U clear
100M|-t ext4 -q
'
while IFS='|' read -r size opts; do
	[ -n "$size" ] || continue
	rm -f "$img"
	truncate -s "$size" "$img"
	before=$(stat -c '%s %b' "$img")
	# shellcheck disable=SC2086
	"$E4MKFS" -n -U "$MKFS_UUID" $opts "$img" >"$T/e4.out" 2>"$T/e4.err" </dev/null ||
		{ failed+=("$size $opts: e4mkfs -n exit $?: $(head -1 "$T/e4.err")"); continue; }
	# shellcheck disable=SC2086
	MKE2FS_CONFIG=$MKFS_CONF "$REF_MKE2FS" -F -n -U "$MKFS_UUID" $opts "$img" \
		>"$T/ref.out" 2>/dev/null </dev/null ||
		{ failed+=("$size $opts: mke2fs -n failed"); continue; }
	cmp -s "$T/ref.out" "$T/e4.out" ||
		failed+=("$size $opts: stdout differs from mke2fs -n's: $(diff "$T/ref.out" "$T/e4.out" | head -4 | tr '\n' '|')")
	# a sparse file: any write would allocate blocks
	[ "$(stat -c '%s %b' "$img")" = "$before" ] || failed+=("$size $opts: -n wrote to the image")
done <<<"$SETS"

# no file is created
"$E4MKFS" -n -t ext4 "$T/none.img" 64M >"$T/out" 2>&1 </dev/null || failed+=("-n, new file: exit $?")
[ -e "$T/none.img" ] && failed+=("-n created the image file")

if [ ${#failed[@]} -gt 0 ]; then
	printf '  %s\n' "${failed[@]}" >&2
	fail "${#failed[@]} -n checks failed"
fi
info "e4mkfs -n prints what mke2fs -n prints ($(elapsed) s)"
exit 0
