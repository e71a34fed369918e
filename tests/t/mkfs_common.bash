# mkfs_common.bash: helpers shared by the tests/t/mkfs_*.sh scripts
# (sourced after tests/lib.sh; not a test itself).
#
# Every image is made with a fixed UUID, hash seed and clock, by e4mkfs
# (SOURCE_DATE_EPOCH) and, where compared, by the reference mke2fs
# (E2FSPROGS_FAKE_TIME, MKE2FS_CONFIG = Debian's 1.47.0 defaults written
# below), so the two images can be compared field by field.

E4MKFS=${E4MKFS:-$E4_BUILDDIR/mkfs/e4mkfs}
MKFS_UUID=01020304-0506-0708-090a-0b0c0d0e0f10
MKFS_SEED=11111111-2222-3333-4444-555555555555
MKFS_TIME=1700000000
export E4MKFS

need_e4mkfs() {
	[ -x "$E4MKFS" ] || fail "e4mkfs not found: $E4MKFS"
}

# The values of Debian's /etc/mke2fs.conf (e2fsprogs 1.47.0), which
# e4mkfs has built in; the reference reads them from this file so the
# host's own configuration does not matter.
mkfs_debian_conf() {
	MKFS_CONF=$T/mke2fs-debian.conf
	cat >"$MKFS_CONF" <<'EOF'
[defaults]
	base_features = sparse_super,large_file,filetype,resize_inode,dir_index,ext_attr
	default_mntopts = acl,user_xattr
	enable_periodic_fsck = 0
	blocksize = 4096
	inode_size = 256
	inode_ratio = 16384

[fs_types]
	ext3 = {
		features = has_journal
	}
	ext4 = {
		features = has_journal,extent,huge_file,flex_bg,metadata_csum,64bit,dir_nlink,extra_isize
	}
	small = {
		blocksize = 1024
		inode_ratio = 4096
	}
	floppy = {
		blocksize = 1024
		inode_ratio = 8192
	}
	big = {
		inode_ratio = 32768
	}
	huge = {
		inode_ratio = 65536
	}
	news = {
		inode_ratio = 4096
	}
	largefile = {
		inode_ratio = 1048576
		blocksize = -1
	}
	largefile4 = {
		inode_ratio = 4194304
		blocksize = -1
	}
	hurd = {
	     blocksize = 4096
	     inode_size = 128
	     warn_y2038_dates = 0
	}
EOF
	export MKFS_CONF
}

# mkfs_split_ext OPTS...: sets MKFS_ARGS (array) and MKFS_EXT (the -E
# lists joined, with the fixed hash seed first; mke2fs keeps only the
# last -E, so both tools get a single one).
mkfs_split_ext() {
	MKFS_ARGS=()
	MKFS_EXT="hash_seed=$MKFS_SEED"
	while [ $# -gt 0 ]; do
		if [ "$1" = -E ]; then
			MKFS_EXT="$MKFS_EXT,$2"
			shift 2
		else
			MKFS_ARGS+=("$1")
			shift
		fi
	done
}

# mk_e4 IMG SIZE OPTS...: fresh sparse file of SIZE, formatted by e4mkfs.
# Output in IMG.e4out; returns e4mkfs's status.
mk_e4() {
	local img=$1 size=$2
	shift 2
	mkfs_split_ext "$@"
	rm -f "$img"
	truncate -s "$size" "$img" || return 99
	SOURCE_DATE_EPOCH=$MKFS_TIME timeout -k 5 1200 "$E4MKFS" -q -U "$MKFS_UUID" \
		-E "$MKFS_EXT" "${MKFS_ARGS[@]}" "$img" >"$img.e4out" 2>&1 </dev/null
}

# mk_ref IMG SIZE OPTS...: the same with the reference mke2fs (-F: it
# would ask about 64 KiB blocks).
mk_ref() {
	local img=$1 size=$2
	shift 2
	mkfs_split_ext "$@"
	rm -f "$img"
	truncate -s "$size" "$img" || return 99
	E2FSPROGS_FAKE_TIME=$MKFS_TIME MKE2FS_CONFIG=$MKFS_CONF timeout -k 5 1200 \
		"$REF_MKE2FS" -q -F -U "$MKFS_UUID" -E "$MKFS_EXT" "${MKFS_ARGS[@]}" "$img" \
		>"$img.refout" 2>&1 </dev/null
}

# fsck_clean IMG: the reference e2fsck -fn exits 0 and prints only its
# version line, the five pass lines and the summary.  On failure the
# output is in IMG.fsck and MKFS_WHY says why.
fsck_clean() {
	local img=$1 rc extra
	timeout -k 5 1800 "$REF_E2FSCK" -fn "$img" >"$img.fsck" 2>&1 </dev/null
	rc=$?
	extra=$(grep -v -e '^e2fsck [0-9]' -e '^Pass [1-5]: ' -e '^$' \
		-e ' files (.* non-contiguous), .* blocks$' "$img.fsck" | head -5)
	if [ $rc != 0 ] || [ -n "$extra" ]; then
		MKFS_WHY="e2fsck -fn exit $rc: $(echo "$extra" | tr '\n' '|' | cut -c1-300)"
		return 1
	fi
	return 0
}

# dump_parity REF MY: full dumpe2fs output equal but for the lines that
# differ by design (doc/e4mkfs.8, DIFFERENCES): "Lifetime writes" (bytes
# each tool happened to write) and the superblock "Checksum" that covers
# it.  Differences go to MY.dumpdiff.
dump_parity() {
	local ref=$1 my=$2
	"$REF_DUMPE2FS" "$ref" 2>/dev/null | grep -v -e '^Lifetime writes:' -e '^Checksum:' >"$ref.dump"
	"$REF_DUMPE2FS" "$my" 2>/dev/null | grep -v -e '^Lifetime writes:' -e '^Checksum:' >"$my.dump"
	[ -s "$ref.dump" ] || { echo "reference dumpe2fs printed nothing" >"$my.dumpdiff"; return 1; }
	diff "$ref.dump" "$my.dump" >"$my.dumpdiff"
}

# dump_h_parity REF MY: the acceptance fields of dumpe2fs -h agree.
dump_h_parity() {
	local ref=$1 my=$2 f
	local fields='Block count|Inode count|Blocks per group|Inodes per group|First block|Reserved GDT blocks|Total journal size|Total journal blocks|Filesystem features|Inode size|Required extra isize|Desired extra isize|Flex block group size|Reserved block count|Free blocks|Free inodes|Default mount options|Block size|Cluster size'
	for f in "$ref" "$my"; do
		"$REF_DUMPE2FS" -h "$f" 2>/dev/null | grep -E "^($fields):" >"$f.h"
	done
	[ -s "$ref.h" ] || { echo "reference dumpe2fs -h printed nothing" >"$my.hdiff"; return 1; }
	diff "$ref.h" "$my.h" >"$my.hdiff"
}

# fill_check IMG DIR: loop-mount IMG, write about half its free blocks and
# inodes (small files, one large file up to 64 MiB, a directory of up to
# 10,000 entries), unmount, check with e2fsck -fn, and compare
# e4debugfs rdump of the result with what was written.  Uses $TFS (a
# tmpfs) for the source tree and the dump.
fill_check() {
	local img=$1 name=$2 mnt=$T/mnt.$2 src=$TFS/src.$2 out=$TFS/out.$2
	local free_b free_i bs nsmall nbig ndir big_mb i
	bs=$("$REF_DUMPE2FS" -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
	free_b=$("$REF_DUMPE2FS" -h "$img" 2>/dev/null | sed -n 's/^Free blocks: *//p')
	free_i=$("$REF_DUMPE2FS" -h "$img" 2>/dev/null | sed -n 's/^Free inodes: *//p')
	# budget: half the free space, half the free inodes
	local budget_kb=$((free_b * bs / 1024 / 2)) inodes=$((free_i / 2))
	big_mb=$((budget_kb / 2 / 1024))
	[ $big_mb -gt 64 ] && big_mb=64
	ndir=$((inodes / 2))
	[ $ndir -gt 10000 ] && ndir=10000
	nsmall=$((inodes - ndir - 4))
	# small files of 1..3 blocks: keep them within the other half
	local per=$((bs * 2 / 1024 + 1))
	[ $nsmall -gt $(((budget_kb - big_mb * 1024) / per / 2)) ] &&
		nsmall=$(((budget_kb - big_mb * 1024) / per / 2))
	[ $nsmall -gt 2000 ] && nsmall=2000
	[ $nsmall -lt 0 ] && nsmall=0
	rm -rf "$src" "$out"
	mkdir -p "$src/small" "$src/dir" "$out" "$mnt"
	fill_check_inner "$img" "$mnt" "$src" "$out" "$bs" "$big_mb" "$nsmall" "$ndir"
	local rc=$?
	rm -rf "$src" "$out"
	return $rc
}

fill_check_inner() {
	local img=$1 mnt=$2 src=$3 out=$4 bs=$5 big_mb=$6 nsmall=$7 ndir=$8 i
	[ $big_mb -gt 0 ] && head -c $((big_mb * 1024 * 1024)) /dev/urandom >"$src/big"
	for ((i = 0; i < nsmall; i++)); do
		head -c $(((i % 3) * bs + 100 + i)) /dev/urandom >"$src/small/f$i"
	done
	(cd "$src/dir" && for ((i = 0; i < ndir; i++)); do : >"entry-with-a-longer-name-$i"; done)
	mount_loop "$img" "$mnt" || { MKFS_WHY="the kernel did not mount it"; return 1; }
	cp -a "$src/." "$mnt/" || { MKFS_WHY="writing into the mounted image failed"; return 1; }
	umount_retry "$mnt" || { MKFS_WHY="unmount failed"; return 1; }
	fsck_clean "$img" || { MKFS_WHY="after the kernel wrote: $MKFS_WHY"; return 1; }
	if [ -x "$E4DEBUGFS" ]; then
		timeout -k 5 600 "$E4DEBUGFS" -R "rdump / $out" "$img" >"$img.rdump" 2>&1 </dev/null
		(cd "$src" && find . -type f -exec sha256sum {} + | sort) >"$img.src.sum"
		(cd "$out" && find . -path ./lost+found -prune -o -type f -exec sha256sum {} + |
			sort) >"$img.out.sum"
		if ! cmp -s "$img.src.sum" "$img.out.sum"; then
			MKFS_WHY="e4debugfs rdump differs from what was written ($(diff "$img.src.sum" "$img.out.sum" | grep -c '^[<>]') lines)"
			return 1
		fi
	fi
	return 0
}
