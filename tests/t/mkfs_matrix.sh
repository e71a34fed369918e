#!/bin/bash
# mkfs_matrix: e4mkfs over a matrix of option sets (sizes up to 1 GiB).
# For each set: e4mkfs exits 0; the reference `e2fsck -fn` finds the image
# clean (exit 0, nothing but the version, pass and summary lines); the
# reference mke2fs given the same options, UUID, hash seed and clock makes
# an image whose dumpe2fs output (superblock and every group) is identical
# but for "Lifetime writes" and the checksum over it, with root, lost+found
# and the resize inode in the same blocks; and, for blocks up
# to 4 KiB, the kernel mounts it, takes about half its free blocks and
# inodes, unmounts, e2fsck -fn is still clean and e4debugfs rdump gives
# back what was written.  Larger sizes: mkfs_big.sh; 64 KiB: mkfs_64k.sh.
#
# Images and source trees live on a tmpfs; E4_JOBS (default 2) sets run
# at a time.  E4_MKFS_SETS="name ..." narrows the run (debugging).
# Catches: a layout that puts a group's inode table one block off the
# reference's (dumpe2fs differs).  A name in E4_MKFS_SETS that is no set,
# or a filter that selects nothing, fails.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$E4_TESTDIR/t/mkfs_common.bash"

need_e4mkfs
need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DUMPE2FS" "$REF_DEBUGFS"
need_root_loop
mkfs_debian_conf
tmp_on_tmpfs 3g

# name|size|options|mount (1: loop-mount and fill)
SETS='
ext2_100m|100M|-t ext2|1
ext3_100m|100M|-t ext3|1
ext4_100m|100M|-t ext4|1
ext4_nojournal_100m|100M|-t ext4 -O ^has_journal|1
ext4_1m|1M|-t ext4|1
ext2_1m|1M|-t ext2|1
ext4_8m|8M|-t ext4|1
ext3_8m|8M|-t ext3|1
ext2_8m|8M|-t ext2|1
ext4_1g|1G|-t ext4|1
ext3_1g|1G|-t ext3|1
ext2_1g|1G|-t ext2|0
ext4_nojournal_1g|1G|-t ext4 -O ^has_journal|0
ext4_b1024_1g|1G|-t ext4 -b 1024|1
ext4_b2048_1g|1G|-t ext4 -b 2048|1
ext4_b4096_100m|100M|-t ext4 -b 4096|1
ext3_b1024_100m|100M|-t ext3 -b 1024|0
ext2_b2048_100m|100M|-t ext2 -b 2048|0
ext4_group_edge|34M|-t ext4 -b 1024 -g 8192|0
ext4_group_just_above|269484032|-t ext4|1
ext4_last_group_dropped|268500992|-t ext4|0
ext4_N5000|100M|-t ext4 -N 5000|1
ext4_I128|100M|-t ext4 -I 128|1
ext4_I256|100M|-t ext4 -I 256|0
ext4_I1024|100M|-t ext4 -I 1024|1
ext4_G1|1G|-t ext4 -G 1|1
ext4_G16|1G|-t ext4 -G 16|0
ext4_G256|1G|-t ext4 -G 256|1
ext4_G2_8000k|8000K|-t ext4 -b 1024 -G 2|1
ext4_G8_8000k|8000K|-t ext4 -b 1024 -G 8|0
ext4_G4_9m|9M|-t ext4 -b 4096 -G 4|1
ext4_G2_50m|50M|-t ext4 -b 4096 -G 2|0
ext4_N100|100M|-t ext4 -N 100|1
ext2_N100|100M|-t ext2 -N 100|0
ext2_r0_8m|8M|-r 0|1
ext4_r0_N100|100M|-t ext4 -r 0 -N 100|0
ext4_stride|1G|-t ext4 -E stride=16,stripe_width=64|1
ext3_stride|1G|-t ext3 -E stride=32|0
ext4_meta_bg|1G|-t ext4 -O meta_bg,^resize_inode|1
ext4_meta_bg_1k|100M|-t ext4 -b 1024 -O meta_bg,^resize_inode|1
ext4_sparse_super2|1G|-t ext4 -O sparse_super2|1
ext4_sparse_super2_0|1G|-t ext4 -O sparse_super2 -E num_backup_sb=0|1
ext4_sparse_super2_1|1G|-t ext4 -O sparse_super2 -E num_backup_sb=1|1
ext4_inline_data|1G|-t ext4 -O inline_data|1
ext4_bigalloc_16k|1G|-t ext4 -O bigalloc -C 16k|1
ext4_bigalloc_64k|1G|-t ext4 -O bigalloc -C 64k|1
ext4_bigalloc_1k|256M|-t ext4 -O bigalloc -C 16k|1
ext4_inline_bigalloc|1G|-t ext4 -O inline_data,bigalloc -C 64k|1
ext4_inline_bigalloc_1k|64M|-t ext4 -O inline_data,bigalloc -C 16k|1
ext4_uninit_bg|1G|-t ext4 -O ^64bit,^metadata_csum,uninit_bg|1
ext4_orphan_seed|1G|-t ext4 -O orphan_file,metadata_csum_seed|1
ext4_orphan_no_room_for_journal|5M|-t ext4 -b 4096 -O orphan_file|0
ext4_orphan_size_blocks|256M|-t ext4 -b 1024 -O orphan_file -E orphan_file_size=100|0
ext4_orphan_size_bytes|256M|-t ext4 -O orphan_file -E orphan_file_size=64k|0
ext4_large_dir|1G|-t ext4 -O large_dir|1
ext4_m0|100M|-t ext4 -m 0|0
ext4_m10_label|100M|-t ext4 -m 10 -L mylabel -M /mnt/x|0
ext4_largefile|1G|-t ext4 -T largefile|0
ext4_news|100M|-t ext4 -T news|0
ext4_i4096|100M|-t ext4 -i 4096|0
ext4_resize|100M|-t ext4 -E resize=2000000|0
ext4_packed|1G|-t ext4 -E packed_meta_blocks=1|1
ext4_packed_bigalloc|256M|-t ext4 -O bigalloc -E packed_meta_blocks=1|1
ext4_nodiscard|100M|-t ext4 -E nodiscard|1
ext4_nolazy|256M|-t ext4 -E lazy_itable_init=0,lazy_journal_init=0,nodiscard|1
ext3_J|1G|-t ext3 -J size=64|1
ext4_j_ext2|100M|-t ext2 -j|0
ext4_desc128|1G|-t ext4 -E desc_size=128|0
ext4_e_panic|100M|-t ext4 -e remount-ro|0
ext4_flex_nocsum|1G|-t ext4 -O ^metadata_csum|1
ext2_nosparse|100M|-t ext2 -O ^sparse_super,^resize_inode|0
'

# one_set NAME SIZE MOUNT OPTS...: "ok", "mounted" or "FAIL REASON"
one_set() {
	local name=$1 size=$2 mnt=$3 my=$TFS/$1.img ref=$TFS/$1.ref rc t0=$SECONDS
	shift 3
	mk_e4 "$my" "$size" "$@"
	rc=$?
	if [ $rc != 0 ]; then
		echo "FAIL e4mkfs $(describe_rc $rc): $(head -2 "$my.e4out" | tr '\n' ' ')"
		return
	fi
	if ! fsck_clean "$my"; then
		echo "FAIL $MKFS_WHY"
		return
	fi
	if ! mk_ref "$ref" "$size" "$@"; then
		echo "FAIL the reference mke2fs failed: $(head -2 "$ref.refout" | tr '\n' ' ')"
		return
	fi
	if ! dump_parity "$ref" "$my"; then
		echo "FAIL dumpe2fs differs from the reference's: $(head -4 "$my.dumpdiff" | tr '\n' ' ' | cut -c1-300)"
		return
	fi
	rm -f "$ref" "$ref.dump"
	T_CHECK=$((SECONDS - t0))
	if [ "$mnt" = 1 ]; then
		if ! fill_check "$my" "$name"; then
			umount_retry "$T/mnt.$name"
			echo "FAIL $MKFS_WHY"
			return
		fi
		echo "mounted ($T_CHECK s to compare, $((SECONDS - t0 - T_CHECK)) s to fill and check)"
		return
	fi
	echo "ok ($T_CHECK s)"
}

# a debugging filter naming no set is an error, not a narrower run
for name in ${E4_MKFS_SETS:-}; do
	grepq -x "$name|.*" <<<"$SETS" || fail "E4_MKFS_SETS names no option set '$name'"
done
names=()
while IFS='|' read -r name size opts mnt; do
	[ -n "$name" ] || continue
	if [ -n "${E4_MKFS_SETS:-}" ] && [[ " $E4_MKFS_SETS " != *" $name "* ]]; then
		continue
	fi
	names+=("$name")
	on_exit "umount_retry '$T/mnt.$name'"
	mkfs_slot
	# shellcheck disable=SC2086
	(one_set "$name" "$size" "$mnt" $opts >"$T/res.$name" 2>&1; rm -f "$TFS/$name".*) &
done <<<"$SETS"
wait
[ ${#names[@]} -gt 0 ] || fail "no option set selected (E4_MKFS_SETS='${E4_MKFS_SETS:-}')"

ok=0 mounted=0 failed=()
for name in "${names[@]}"; do
	r=$(cat "$T/res.$name" 2>/dev/null)
	case $r in
	mounted*) ok=$((ok + 1)) mounted=$((mounted + 1)); verbose "$name ok, ${r#mounted }" ;;
	ok*) ok=$((ok + 1)); verbose "$name ${r}" ;;
	*) failed+=("$name: ${r#FAIL }") ;;
	esac
done

info "$ok of ${#names[@]} option sets clean, identical to the reference's dumpe2fs; $mounted of them mounted, filled and clean again ($(elapsed) s)"
if [ ${#failed[@]} -gt 0 ]; then
	printf '  %s\n' "${failed[@]}" >&2
	fail "${#failed[@]} option sets failed"
fi
exit 0
