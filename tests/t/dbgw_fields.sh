#!/bin/bash
# dbgw_fields: e4debugfs -w's set_super_value (ssv), set_inode_field (sif)
# and set_block_group (set_bg) set every field the reference lists, as the
# reference sets it (issue 13, acceptance 5).
#
#  1. The -l lists name every field of the reference's lists.
#  2. One command file sets every superblock field the reference can still
#     write back alike, every field of group 1 and every field of inode 12
#     (arrays at every index, fields with a high part to values that need
#     it); the reference debugfs -w and e4debugfs -w run it on two copies of
#     one image: the images must be byte-identical afterwards (both
#     recompute the superblock and inode checksums; the descriptor's is
#     recomputed by "set_bg 1 checksum calc" at the end, since the
#     reference 1.47.0 leaves it stale after set_bg while e4debugfs
#     recomputes it at once).
#  3. The fields that make the image unreadable (or that the reference
#     rewrites at close: wtime, kbytes_written, the superblock checksum)
#     are set by e4debugfs alone and read back from the raw superblock
#     (od), since neither tool opens such an image: magic, log_block_size,
#     blocks_count (64-bit), inodes_count, first_data_block,
#     log_cluster_size, blocks/clusters/inodes_per_group, rev_level,
#     first_ino, inode_size, feature_compat/incompat/ro_compat, desc_size,
#     first_meta_bg, reserved_gdt_blocks, checksum (kept as set),
#     checksum_type, kbytes_written, block_group_nr (the reference writes
#     0 at close), uuid and checksum_seed (they change the checksum seed,
#     which the reference applies at once and e4debugfs at the next open),
#     wtime and mtime after 2038 (the high
#     byte: the reference 1.47.0 leaves it 0, the kernel reads 40 bits),
#     and the fields the reference does not list (magic,
#     first/last_error_errcode, encoding_flags).
#  4. Unknown fields, bad indexes, values of the wrong type and values out
#     of range are refused, each with a message, and the image is unchanged
#     (cmp); on 32-byte descriptors and 128-byte inodes the high parts that
#     do not exist are refused too.
# Catches: a field at the wrong offset or of the wrong size, a high part
# not written (uid 0x10005 stored as 5), a checksum left stale after a
# change, a refused value that was half written.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_DEBUGFS" "$REF_MKE2FS"
need_e4debugfs

# ---- 1: the lists ------------------------------------------------------------
names() { awk 'NR > 1 && /^\t/ { sub(/\[_hi\|_lo\]/, "", $1); print $1 }' | sort; }
img0=$T/base.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 -g 1024 -N 128 -I 256 \
	-O metadata_csum,64bit,^has_journal,^resize_inode "$img0" 4M >/dev/null 2>&1 ||
	fail "mke2fs failed"
for c in ssv sif set_bg; do
	"$REF_DEBUGFS" -R "$c -l" "$img0" 2>/dev/null | names >"$T/ref.$c"
	"$E4DEBUGFS" -R "$c -l" | names >"$T/our.$c"
	missing=$(comm -23 "$T/ref.$c" "$T/our.$c")
	[ -z "$missing" ] || fail "$c -l lacks: $missing"
done

# ---- 2: the same edits by both tools -----------------------------------------
# values: a distinct small number per field unless listed here (fields
# with a high part get one that needs it)
declare -A V=(
	[ssv:r_blocks_count]=0x100000021 [ssv:free_blocks_count]=0x200000022
	[ssv:max_mnt_count]=-7
	[ssv:journal_uuid]=fedcba98-7654-3210-fedc-ba9876543210
	[ssv:hash_seed]=00112233-4455-6677-8899-aabbccddeeff
	[ssv:encrypt_pw_salt]=null [ssv:volume_name]=vol-name
	[ssv:last_mounted]=/mnt/last [ssv:mount_opts]=nodelalloc
	[ssv:first_error_func]=func_a [ssv:last_error_func]=func_b
	[ssv:def_hash_version]=tea [ssv:encoding]=utf8 [ssv:mmp_block]=0x123456789
	[ssv:first_error_block]=0x987654321 [ssv:state]=1 [ssv:errors]=2
	[ssv:mtime]=20200102030405 [ssv:lastcheck]=@1600000000
	[ssv:mkfs_time]=19991231235959 [ssv:first_error_time]=20100101
	[ssv:last_error_time]=2011010112 [ssv:min_extra_isize]=32 [ssv:want_extra_isize]=32
	[sif:uid]=0x10005 [sif:gid]=0x20006 [sif:size]=0x100000007
	[sif:blocks]=0x300000008 [sif:version]=0x400000009 [sif:file_acl]=0x50000000a
	[sif:atime]=20300101000000 [sif:ctime]=@-5 [sif:mtime]=19690720201800
	[sif:crtime]=20380119031409 [sif:dtime]=20200101000000 [sif:extra_isize]=32
	[sif:mode]=0100644 [sif:flags]=0x80000
	[set_bg:block_bitmap]=0x100000041 [set_bg:inode_bitmap]=0x200000042
	[set_bg:inode_table]=0x300000043 [set_bg:free_blocks_count]=0x10044
	[set_bg:free_inodes_count]=0x20045 [set_bg:used_dirs_count]=0x30046
	[set_bg:exclude_bitmap]=0x400000047 [set_bg:block_bitmap_csum]=0x50048
	[set_bg:inode_bitmap_csum]=0x60049 [set_bg:itable_unused]=0x7004a
)
# set by e4debugfs alone (part 3), or not set here (checksums: part 3 and
# dbgw_cmds)
SKIP_SSV=" magic log_block_size blocks_count inodes_count first_data_block log_cluster_size
 blocks_per_group clusters_per_group inodes_per_group rev_level first_ino inode_size
 feature_compat feature_incompat feature_ro_compat desc_size first_meta_bg
 reserved_gdt_blocks checksum checksum_type kbytes_written wtime block_group_nr
 uuid checksum_seed first_error_errcode last_error_errcode encoding_flags "
SKIP_SSV=" $(echo $SKIP_SSV) "
cmds=$T/set.cmds
n=0
value() {	# value CMD FIELD TYPE
	local v=${V[$1:$2]:-}
	if [ -n "$v" ]; then
		echo "$v"
	elif [ "$3" = date/time ]; then
		echo "@$((1500000000 + n * 1000))"
	else
		echo $((n % 200 + 1))
	fi
}
{
	echo "set_current_time 20200101000000"
	# wtime: the reference writes the current time there at close
	echo "ssv wtime 20200101000000"
	for c in ssv set_bg sif; do
		case $c in
		ssv) target= ;;
		set_bg) target="1 " ;;
		sif) target="<12> " ;;
		esac
		"$E4DEBUGFS" -R "$c -l" | awk -F'\t' 'NR > 1 { print $2 "\t" $4 }' |
			while IFS=$'\t' read -r f type; do
				f=${f%% *}
				base=${f%%\[*}
				n=$((n + 1))
				# checksums: part 3 and dbgw_cmds; bmap[] maps blocks
				# (dbgw_cmds)
				[ "$base" = checksum ] || [ "$base" = bmap ] && continue
				[ $c = ssv ] && [[ $SKIP_SSV == *" $base "* ]] && continue
				if [[ $f =~ ^([a-z_]+)\[([0-9]+)\]$ ]]; then
					for ((i = 0; i < BASH_REMATCH[2]; i++)); do
						n=$((n + 1))
						echo "$c $target${BASH_REMATCH[1]}[$i] $(value $c "$base" "$type")"
					done
				else
					f=${f%\[_hi|_lo\]}
					echo "$c $target$f $(value $c "$f" "$type")"
				fi
			done
	done
	# the reference leaves bg_checksum stale after set_bg (e4debugfs
	# recomputes it, as the superblock's and the inode's; dbgw_cmds checks
	# that): "calc" makes both images comparable
	echo "set_bg 1 checksum calc"
} >"$cmds"
[ "$(grep -c . "$cmds")" -gt 130 ] || fail "only $(grep -c . "$cmds") commands generated"
cp "$img0" "$T/ref.img"
cp "$img0" "$T/our.img"
"$REF_DEBUGFS" -w -f "$cmds" "$T/ref.img" >"$T/ref.out" 2>&1
if grep -q -e 'exceeds\|invalid\|Couldn' "$T/ref.out"; then
	grep -e 'exceeds\|invalid\|Couldn' "$T/ref.out" >&2
	fail "the reference refused some of the values"
fi
"$E4DEBUGFS" -w -f "$cmds" "$T/our.img" >"$T/our.out" 2>&1 ||
	{ cat "$T/our.out" >&2; fail "e4debugfs -w -f failed"; }
if ! cmp -s "$T/ref.img" "$T/our.img"; then
	cmp -l "$T/ref.img" "$T/our.img" | head -20 >&2
	fail "$(grep -c . "$cmds") field edits: the images differ from the reference's"
fi

# ---- 3: fields no tool reads back: the raw superblock --------------------------
# od_sb OFF LEN: the superblock's bytes [OFF, OFF+LEN) as one hex number
od_sb() {
	od -An -tx1 -j $((1024 + $1)) -N "$2" "$T/raw.img" | tr -d ' \n' |
		sed -E 's/(..)/\1 /g' | awk '{ for (i = NF; i > 0; i--) printf "%s", $i; print "" }'
}
cp "$img0" "$T/raw.img"
"$E4DEBUGFS" -w -f - "$T/raw.img" >"$T/raw.out" 2>&1 <<'EOF' || { cat "$T/raw.out" >&2; fail "raw edits failed"; }
ssv magic 0x1234
ssv log_block_size 7
ssv blocks_count 0x123456789
ssv inodes_count 77
ssv first_data_block 3
ssv log_cluster_size -2
ssv blocks_per_group 0x11
ssv clusters_per_group 0x12
ssv inodes_per_group 0x13
ssv rev_level 5
ssv first_ino 9
ssv inode_size 0x400
ssv feature_compat 0xf0000001
ssv feature_incompat 0x80000002
ssv feature_ro_compat 0x40000400
ssv desc_size 0x40
ssv first_meta_bg 0x31
ssv reserved_gdt_blocks 0x32
ssv checksum_type 9
ssv kbytes_written 0x123456789abc
ssv wtime 22000101000000
ssv mtime @4294967296
ssv block_group_nr 0x1234
ssv uuid 01234567-89ab-cdef-0123-456789abcdef
ssv checksum_seed 0x87654321
ssv first_error_errcode 0x81
ssv last_error_errcode 0x82
ssv encoding_flags 0x8384
ssv checksum 0xdeadbeef
EOF
while read -r off len want what; do
	got=$(od_sb "$off" "$len")
	[ "$got" = "$want" ] || fail "$what: raw bytes $got, want $want"
done <<'EOF'
0x38 2 1234 magic
0x18 4 00000007 log_block_size
0x04 4 23456789 blocks_count_lo
0x150 4 00000001 blocks_count_hi
0x00 4 0000004d inodes_count
0x14 4 00000003 first_data_block
0x1c 4 fffffffe log_cluster_size
0x20 4 00000011 blocks_per_group
0x24 4 00000012 clusters_per_group
0x28 4 00000013 inodes_per_group
0x4c 4 00000005 rev_level
0x54 4 00000009 first_ino
0x58 2 0400 inode_size
0x5c 4 f0000001 feature_compat
0x60 4 80000002 feature_incompat
0x64 4 40000400 feature_ro_compat
0xfe 2 0040 desc_size
0x104 4 00000031 first_meta_bg
0xce 2 0032 reserved_gdt_blocks
0x175 1 09 checksum_type
0x178 8 0000123456789abc kbytes_written
0x30 4 b09e1900 wtime_lo
0x274 1 01 wtime_hi
0x2c 4 00000000 mtime_lo
0x275 1 01 mtime_hi
0x5a 2 1234 block_group_nr
0x68 16 efcdab8967452301efcdab8967452301 uuid
0x270 4 87654321 checksum_seed
0x27a 1 81 first_error_errcode
0x27b 1 82 last_error_errcode
0x27e 2 8384 encoding_flags
0x3fc 4 deadbeef checksum
EOF

# ---- 4: refusals change nothing -------------------------------------------------
bad=$T/bad.cmds
cat >"$bad" <<'EOF'
ssv no_such_field 1
ssv mnt_count 65536
ssv mnt_count -1
ssv mnt_count abc
ssv mnt_count 12x
ssv max_mnt_count 32768
ssv log_cluster_size 0x80000000
ssv kbytes_written -1
ssv jnl_blocks[17] 1
ssv jnl_blocks 1
ssv mnt_count[0] 1
ssv uuid 1234
ssv uuid 01234567-89ab-cdef-0123-456789abcdeg
ssv volume_name 01234567890123456
ssv def_hash_version md5
ssv mtime 2020010100000x
ssv mtime @-1
ssv mtime 0x10000000000
ssv encoding utf9
sif <12> no_such_field 1
sif <12> uid 0x100000000
sif <12> block[12] 1
sif <12> block[-1] 1
sif <12> atime yesterday
sif <12> checksum xyz
sif <12> extra_isize 0x10000
sif <12> generation -1
sif <999> mode 1
set_bg 99 flags 1
set_bg x flags 1
set_bg 0 flags 0x10000
set_bg 0 checksum calcx
set_bg 0 no_such_field 1
set_bg 0 free_blocks_count 0x100000000
EOF
check_refused() {	# check_refused IMG CMDFILE
	cp "$1" "$T/before.img"
	"$E4DEBUGFS" -w -f "$2" "$1" >"$T/bad.out" 2>"$T/bad.err" &&
		fail "$(basename "$2"): e4debugfs -w -f exited 0"
	local want got
	want=$(grep -c . "$2")
	got=$(grep -c . "$T/bad.err")
	[ "$got" = "$want" ] || {
		cat "$T/bad.err" >&2
		fail "$(basename "$2"): $got error lines for $want refused commands"
	}
	cmp -s "$1" "$T/before.img" || fail "$(basename "$2"): a refused command changed the image"
}
cp "$img0" "$T/bad.img"
check_refused "$T/bad.img" "$bad"

# 32-byte descriptors and 128-byte inodes: the high parts do not exist
small=$T/small.img
"$REF_MKE2FS" -q -F -t ext4 -I 128 -N 64 -O ^64bit,^has_journal,^metadata_csum "$small" 2M \
	>/dev/null 2>&1 || fail "mke2fs (small) failed"
cat >"$T/bad_small.cmds" <<'EOF'
set_bg 0 free_blocks_count_hi 1
set_bg 0 free_blocks_count 0x10000
set_bg 0 block_bitmap 0x100000000
sif <2> projid 1
sif <2> checksum_hi 1
sif <2> crtime 20200101
sif <2> atime 20400101000000
EOF
check_refused "$small" "$T/bad_small.cmds"
exit 0
