#!/bin/bash
# mkfs_refuse: bad input never writes.  Each case must exit 1 with a
# one-line error and leave the target's bytes unchanged:
#  - an image holding an XFS or an ext4 signature, without -F and without a
#    terminal (stricter than the reference, which formats silently): the
#    message names what was found, type and label; with -E offset=, a
#    filesystem at the offset (and not one at 0 that ends before it);
#  - a mounted loop device, even with -FF;
#  - a size larger than a loop device;
#  - block size 3000, -i below the inode size, -N above what fits, meta_bg
#    with resize_inode, more than 2^32 blocks with ^64bit, an unknown
#    feature, a feature not supported yet (quota, encrypt, ...).
# And -n changes nothing (and creates no file).
# Catches: a check made after the first write (an impossible -N that leaves
# the target's old superblock wiped).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$E4_TESTDIR/t/mkfs_common.bash"

need_e4mkfs
need_oracle "$REF_MKE2FS" "$REF_E2FSCK"
need_cmd sha256sum losetup

failed=()
n=0

# fp FILE: fingerprint of a file: whole content when small; for big sparse
# files size, allocated blocks and both ends (any write allocates)
fp() {
	if [ "$(stat -c %s "$1")" -le $((256 * 1024 * 1024)) ] || [ -b "$1" ]; then
		sha256sum <"$1" | cut -d' ' -f1
	else
		{ stat -c '%s %b' "$1"; head -c 8M "$1"; tail -c 8M "$1"; } | sha256sum | cut -d' ' -f1
	fi
}

# expect_refusal WHAT FILE GREP ARGS...: e4mkfs ARGS exits 1, prints one
# line (matching GREP, case-insensitive) and FILE is unchanged.
expect_refusal() {
	local what=$1 file=$2 pat=$3 before after lines
	shift 3
	n=$((n + 1))
	before=$(fp "$file")
	timeout -k 5 300 "$E4MKFS" -q "$@" >"$T/out" 2>"$T/err" </dev/null
	local rc=$?
	after=$(fp "$file")
	lines=$(cat "$T/out" "$T/err" | grep -c .)
	if [ $rc != 1 ]; then
		failed+=("$what: exit $rc, not 1 ($(head -2 "$T/err" | tr '\n' ' '))")
	elif [ "$before" != "$after" ]; then
		failed+=("$what: the target changed")
	elif [ "$lines" != 1 ]; then
		failed+=("$what: $lines lines of output, not 1: $(cat "$T/out" "$T/err" | head -3 | tr '\n' '|')")
	elif ! grep -qiE "$pat" "$T/err"; then
		failed+=("$what: message does not say '$pat': $(cat "$T/err")")
	else
		verbose "$what: $(cat "$T/err")"
	fi
}

img=$T/target.img
truncate -s 16M "$img"	# small: each check hashes it twice
head -c 1M /dev/urandom | dd of="$img" bs=1M seek=3 conv=notrunc status=none

# option errors (with -F so no signature question comes first)
expect_refusal "block size 3000" "$img" "block size" -F -b 3000 "$img"
expect_refusal "-i below the inode size" "$img" "inode" -F -I 2048 -b 4096 -i 1024 "$img"
expect_refusal "-N above what fits" "$img" "inode" -F -N 4000000000 "$img"
expect_refusal "meta_bg with resize_inode" "$img" "conflict|meta_bg" -F -t ext4 -O meta_bg,resize_inode "$img"
expect_refusal "unknown feature" "$img" "invalid filesystem option|feature" -F -O no_such_feature "$img"
for f in quota project mmp encrypt casefold verity fast_commit ea_inode journal_dev stable_inodes; do
	expect_refusal "feature $f" "$img" "not supported yet" -F -t ext4 -O "$f" "$img"
done
expect_refusal "-d with a missing source" "$img" "No such file" -F -d "$T/no_such_dir" "$img"
expect_refusal "-E root_selinux= empty" "$img" "extended option" -F -E root_selinux= "$img"
expect_refusal "-E root_selinux= with -S" "$img" "root_selinux.*-S" -F -S -E root_selinux=x "$img"
expect_refusal "-d with -S" "$img" "d cannot be combined with -S" -F -S -d "$T" "$img"
expect_refusal "bad -E" "$img" "extended option" -F -E no_such_thing=1 "$img"
expect_refusal "orphan_file without a journal" "$img" "journal" -F -t ext4 -O ^has_journal,orphan_file "$img"
# a bad value in a configuration file names the file and the key
sed 's/^\[defaults\]/[defaults]\n\tinode_ratio = 12/' "$E4_TESTDIR/mke2fs-debian.conf" |
	awk '$1 == "inode_ratio" && seen++ { next } { print }' >"$T/bad.conf"
MKE2FS_CONFIG=$T/bad.conf expect_refusal "bad inode_ratio in the configuration" "$img" \
	"bad.conf.*inode_ratio" -F -t ext4 "$img"
expect_refusal "-J without an option" "$img" "journal option" -F -J ,,, "$img"
expect_refusal "-J location=" "$img" "not supported yet" -F -J size=8,location=1G "$img"

# more than 2^32 blocks without 64bit (5 TiB of 1 KiB blocks)
big=$T/big.img
truncate -s 5T "$big" || skip "the host cannot make a 5 TiB sparse file"
expect_refusal "2^32 blocks with ^64bit" "$big" "64bit" -F -t ext4 -b 1024 -O ^64bit "$big"
rm -f "$big"

# -n: nothing changes, no file appears
n=$((n + 1))
before=$(sha256sum <"$img" | cut -d' ' -f1)
if ! "$E4MKFS" -n -t ext4 "$img" >"$T/out" 2>&1 </dev/null; then
	failed+=("-n: exit status not 0: $(head -2 "$T/out")")
elif [ "$(sha256sum <"$img" | cut -d' ' -f1)" != "$before" ]; then
	failed+=("-n changed the target")
elif ! grep -q '^Creating filesystem with ' "$T/out"; then
	failed+=("-n did not print the summary")
fi
n=$((n + 1))
if ! "$E4MKFS" -n "$T/nofile.img" 64M >"$T/out" 2>&1 </dev/null || [ -e "$T/nofile.img" ]; then
	failed+=("-n with a new file: failed or created the file")
fi

# existing signatures, no terminal, no -F
sig=$T/sig.img
truncate -s 64M "$sig"
"$REF_MKE2FS" -q -F -t ext4 -L oldfs "$sig" >/dev/null 2>&1 || fail "reference mke2fs failed"
expect_refusal "ext4 signature" "$sig" "ext4.*oldfs" -t ext4 "$sig"
# -E offset=: the signature that counts is the one at the offset (a
# filesystem there is refused; the old one at 0 does not block a format
# at an offset past it, which is what -E offset= is for)
rm -f "$sig"
truncate -s 48M "$sig"
"$REF_MKE2FS" -q -F -t ext4 -L atoffset -E offset=1048576 "$sig" 16M >/dev/null 2>&1 ||
	fail "reference mke2fs -E offset= failed"
expect_refusal "ext4 signature at -E offset=" "$sig" "ext4.*atoffset" -t ext4 -E offset=1048576 "$sig" 16M
n=$((n + 1))
"$REF_MKE2FS" -q -F -t ext4 -L atzero "$sig" 16M >/dev/null 2>&1 || fail "reference mke2fs failed"
if ! "$E4MKFS" -q -t ext4 -E offset=$((20 << 20)) "$sig" 16M >"$T/out" 2>&1 </dev/null; then
	failed+=("-E offset= past an old filesystem: refused: $(head -2 "$T/out")")
fi
if command -v mkfs.xfs >/dev/null 2>&1; then
	rm -f "$sig"
	truncate -s 320M "$sig"
	if mkfs.xfs -q -f -L data "$sig" >/dev/null 2>&1; then
		expect_refusal "xfs signature" "$sig" "xfs filesystem labelled data" "$sig"
		# with -F it formats, and the result is clean
		n=$((n + 1))
		if ! "$E4MKFS" -q -F -t ext4 "$sig" </dev/null >"$T/out" 2>&1; then
			failed+=("xfs with -F: e4mkfs failed: $(head -2 "$T/out")")
		elif ! fsck_clean "$sig"; then
			failed+=("xfs with -F: $MKFS_WHY")
		elif command -v blkid >/dev/null && [ "$(blkid -p -o value -s TYPE "$sig")" != ext4 ]; then
			failed+=("xfs with -F: blkid does not see a lone ext4 ($(blkid -p "$sig" 2>&1))")
		fi
	else
		info "note: mkfs.xfs could not make an image here; xfs case not run"
	fi
elif is_ci; then
	failed+=("mkfs.xfs (xfsprogs) is not installed: the xfs case cannot run")
fi
rm -f "$sig"

# loop devices: a mounted one is refused even with -FF; a size larger
# than the device is refused
if [ "$(id -u)" = 0 ] && losetup -f >/dev/null 2>&1; then
	lo_img=$T/loop.img
	truncate -s 64M "$lo_img"
	"$REF_MKE2FS" -q -F -t ext4 "$lo_img" >/dev/null 2>&1
	dev=$(losetup -f --show "$lo_img") || fail "losetup failed"
	on_exit "losetup -d $dev"
	expect_refusal "size larger than the loop device" "$lo_img" "larger than" -F -t ext4 "$dev" 128M
	mkdir -p "$T/mnt"
	if mount "$dev" "$T/mnt"; then
		on_exit "umount_retry '$T/mnt'"
		expect_refusal "mounted loop device (-FF)" "$lo_img" "mounted" -FF -t ext4 "$dev"
		expect_refusal "backing file of a mounted loop device (-FF)" "$lo_img" "mounted through /dev/loop" -FF -t ext4 "$lo_img"
		umount_retry "$T/mnt"
	else
		failed+=("could not mount the loop device")
	fi
else
	skip "loop devices need root"
fi

info "$((n - ${#failed[@]})) of $n refusal checks passed"
if [ ${#failed[@]} -gt 0 ]; then
	printf '  %s\n' "${failed[@]}" >&2
	fail "${#failed[@]} checks failed"
fi
exit 0
