#!/bin/bash
# mkfs_64k: 64 KiB blocks.  Without -F (and no terminal to ask) e4mkfs
# refuses, says why (blocks larger than the page size), and writes
# nothing; with -F it warns and makes an image the reference e2fsck -fn
# finds clean, whose dumpe2fs equals the reference mke2fs's.  On a
# ^metadata_csum image lost+found's empty second block holds the single
# whole-block entry (rec_len 0xFFFF) byte for byte as the reference writes
# it.  The 64 KiB-page kernel of ../shared/tools/kernel64k mounts an
# e4mkfs image, writes files and removes a directory's entries, unmounts,
# and the reference e2fsck -fn is clean afterwards; the emptied directory
# lists alike (inode numbers and names) through e4debugfs and the
# reference debugfs.
# Catches: an empty 64 KiB directory block whose rec_len is written as 65536
# truncated to 16 bits (0) instead of its 0xFFFF encoding.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$E4_TESTDIR/t/mkfs_common.bash"

need_e4mkfs
need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DUMPE2FS" "$REF_DEBUGFS"
mkfs_debian_conf
failed=()
img=$T/k.img

# refusal without -F
truncate -s 512M "$img"
head -c 4096 /dev/urandom | dd of="$img" conv=notrunc status=none
before=$(sha256sum <"$img")
"$E4MKFS" -q -t ext4 -b 65536 "$img" </dev/null >"$T/out" 2>&1
rc=$?
[ $rc = 1 ] || failed+=("without -F: exit $rc, not 1")
grep -qi 'page size' "$T/out" || failed+=("without -F: the message does not say why: $(head -2 "$T/out")")
[ "$(sha256sum <"$img")" = "$before" ] || failed+=("without -F: the image changed")

# with -F: warning, clean, same dumpe2fs as the reference
for opts in "-t ext4 -b 65536" "-t ext4 -b 65536 -O ^metadata_csum" "-t ext2 -b 65536"; do
	# shellcheck disable=SC2086
	mk_e4 "$img" 512M -F $opts || { failed+=("$opts: e4mkfs failed: $(head -2 "$img.e4out")"); continue; }
	fsck_clean "$img" || failed+=("$opts: $MKFS_WHY")
	# shellcheck disable=SC2086
	mk_ref "$T/ref.img" 512M $opts || { failed+=("$opts: the reference failed"); continue; }
	dump_parity "$T/ref.img" "$img" ||
		failed+=("$opts: dumpe2fs differs: $(head -3 "$img.dumpdiff" | tr '\n' ' ')")
	SOURCE_DATE_EPOCH=$MKFS_TIME "$E4MKFS" -F -t ext4 -b 65536 -U "$MKFS_UUID" "$T/w.img" 512M \
		</dev/null >"$T/out" 2>&1
	grep -qi 'warning.*too big' "$T/out" || failed+=("-F: no warning printed")
	rm -f "$T/w.img"
	case "$opts" in
	*'^metadata_csum'*)
		# lost+found's second block, byte for byte
		lpf_my=$("$REF_DEBUGFS" -R 'blocks <11>' "$img" 2>/dev/null | awk '{print $2}')
		lpf_ref=$("$REF_DEBUGFS" -R 'blocks <11>' "$T/ref.img" 2>/dev/null | awk '{print $2}')
		if [ -z "$lpf_my" ] || [ -z "$lpf_ref" ]; then
			failed+=("$opts: lost+found has no second block")
		elif ! cmp -s <(dd if="$img" bs=65536 skip="$lpf_my" count=1 status=none) \
			<(dd if="$T/ref.img" bs=65536 skip="$lpf_ref" count=1 status=none); then
			failed+=("$opts: lost+found's second block differs from the reference's")
		elif [ "$(dd if="$img" bs=1 skip=$((lpf_my * 65536 + 4)) count=2 status=none | od -An -tx1 | tr -d ' ')" != ffff ]; then
			failed+=("$opts: the empty block's rec_len is not 0xFFFF")
		fi
		;;
	esac
done

# the 64 KiB-page kernel
K64_TOOLS=$E4KIT_SHARED/tools/kernel64k
k64_ensure
for opts in "-t ext4 -b 65536" "-t ext4 -b 65536 -O ^metadata_csum"; do
	# shellcheck disable=SC2086
	mk_e4 "$img" 512M -F $opts || { failed+=("$opts: e4mkfs failed"); continue; }
	cat >"$T/k64.sh" <<'K64'
mkdir -p d/sub
echo hello from a 64k-page kernel > d/hello
i=0; while [ $i -lt 300 ]; do echo "file $i" > d/sub/f$i; i=$((i+1)); done
dd if=/dev/zero of=d/big bs=65536 count=200 2>/dev/null
rm -f d/sub/*
sync
K64
	if ! K64_TIMEOUT=300 bash "$K64_TOOLS/run.sh" "$E4_K64_DIR" "$img" "$T/k64.sh" >"$T/k64.log" 2>&1; then
		failed+=("$opts: kernel64k run failed: $(grep 'K64:END' "$T/k64.log")")
		continue
	fi
	grep -q 'K64:END status=0 mount=0 .* failed=0 completed=yes umount=0 kernel_errors=0' "$T/k64.log" ||
		failed+=("$opts: kernel64k: $(grep 'K64:END' "$T/k64.log")")
	fsck_clean "$img" || failed+=("$opts: after the 64 KiB-page kernel: $MKFS_WHY")
	# the emptied directory reads back through both debugfs
	# inode numbers and names (the date columns differ in format)
	"$REF_DEBUGFS" -R 'ls -l /d/sub' "$img" 2>/dev/null | awk 'NF { print $1, $NF }' | sort >"$T/ls.ref"
	"$E4DEBUGFS" -R 'ls -l /d/sub' "$img" 2>"$T/ls.err" | awk 'NF { print $1, $NF }' | sort >"$T/ls" ||
		failed+=("$opts: e4debugfs ls of the emptied directory failed: $(head -1 "$T/ls.err")")
	[ -s "$T/ls.ref" ] || failed+=("$opts: the reference debugfs cannot list the emptied directory")
	cmp -s "$T/ls.ref" "$T/ls" ||
		failed+=("$opts: e4debugfs lists the emptied directory unlike the reference: $(diff "$T/ls.ref" "$T/ls" | head -4 | tr '\n' ' ')")
done

if [ ${#failed[@]} -gt 0 ]; then
	printf '  %s\n' "${failed[@]}" >&2
	fail "${#failed[@]} 64 KiB checks failed"
fi
info "64 KiB checks passed"
exit 0
