#!/bin/bash
# tune_short_device: e4tune refuses every change to a device shorter than
# the filesystem, before writing anything (doc/e4tune.8: "exits 1 with the
# device unchanged"; the rule is e4_check_device_size(), which e4fsck
# applies too).  A 16 MiB filesystem (1 KiB blocks, two groups: a backup
# superblock at 8 MiB, the journal further on) on
#  - an image file truncated to 12 MiB: -U random, -O ^has_journal, -L,
#    -c, and -L on a copy whose journal needs recovery (no replay either);
#  - a loop device of the full image limited to 12 MiB (--sizelimit): -L.
# Each: exit 1, one line naming the device and both sizes (16384 blocks,
# 12288), the bytes unchanged; the full-size image is clean afterwards.
# Bug it catches: e4tune writing the primary superblock, half the checksums
# or the journal's removal, then failing at the first block past the end
# ("Attempt to write beyond the end of the device", exit 1, the full-size
# filesystem broken: no journal found, e2fsck exit 12).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4tune
need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DEBUGFS"
need_root_loop
need_cmd sha256sum

export MKE2FS_CONFIG=$E4_TESTDIR/mke2fs-debian.conf
failed=()
n=0

base=$T/base.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$base" 16M >/dev/null 2>&1 || fail "mke2fs failed"
# a journal that needs recovery: the reference debugfs leaves
# needs_recovery set after writing a transaction
rec=$T/rec.img
cp "$base" "$rec"
echo data >"$T/blk"
printf 'jo\njw -b 3000 %s\njc\n' "$T/blk" | "$REF_DEBUGFS" -w -f - "$rec" >/dev/null 2>&1
"$REF_DEBUGFS" -R features "$rec" 2>/dev/null | grepq needs_recovery ||
	fail "debugfs left no journal needing recovery"

# refused NAME DEV ARGS...: e4tune ARGS DEV exits 1, names the sizes and
# leaves DEV's bytes as they were
refused() {
	local name=$1 dev=$2 before rc
	shift 2
	n=$((n + 1))
	before=$(sha256sum <"$dev")
	"$E4TUNE" "$@" "$dev" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	[ $rc = 1 ] || failed+=("$name: exit $rc, not 1: $(head -2 "$T/err" | tr '\n' ' ')")
	[ "$before" = "$(sha256sum <"$dev")" ] || failed+=("$name: the device was written")
	[ "$(wc -l <"$T/err")" = 1 ] && grep -F "$dev" "$T/err" | grep 16384 | grepq 12288 ||
		failed+=("$name: not one line naming $dev and both sizes: $(head -3 "$T/err" | tr '\n' '|')")
}

img=$T/img.img
for args in "-U random" "-O ^has_journal" "-L x" "-c 5"; do
	cp "$base" "$img"
	truncate -s 12M "$img"
	# shellcheck disable=SC2086
	refused "truncated file, $args" "$img" $args
done
cp "$rec" "$img"
truncate -s 12M "$img"
refused "truncated file needing recovery, -L x" "$img" -L x

cp "$base" "$img"
dev=$(losetup --sizelimit $((12 << 20)) -f --show "$img") || fail "losetup --sizelimit failed"
on_exit "losetup -d $dev"
refused "loop device limited to 12 MiB, -L x" "$dev" -L x
losetup -d "$dev"
ref_clean "$img" || failed+=("the full-size image is not clean: $(head -4 <<<"$REF_CLEAN_OUT" | tr '\n' '|')")

for f in "${failed[@]+"${failed[@]}"}"; do
	echo "FAIL: $TEST_NAME: $f" >&2
done
[ ${#failed[@]} = 0 ] || fail "${#failed[@]} failures in $n cases"
info "$n cases refused, nothing written ($(elapsed)s)"
