#!/bin/bash
# tune_csum_seed: clearing metadata_csum_seed after a UUID change rewrites
# every checksum with the UUID's seed (issue 11 item 16), as tune2fs does.
#  - a populated metadata_csum,metadata_csum_seed filesystem (files,
#    a directory large enough for an htree, an xattr block) gets a new UUID
#    (-U: the seed stays), then -O ^metadata_csum_seed: exit 0, the feature
#    and the stored seed gone, the UUID kept, clean under the reference
#    e2fsck -fn (every inode, extent, directory, xattr, bitmap and
#    descriptor checksum verified against the UUID's seed), the kernel
#    mounts it;
#  - the same on a filesystem mounted since its last check: refused, as
#    tune2fs refuses it, naming a step that works (e2fsck -f), unchanged;
#  - without a UUID change the seed equals the UUID's: the flag alone goes.
# Bug it catches: "not supported" for the rewrite, or a rewrite that keeps
# the old seed for some structure (e2fsck -fn then reports checksum errors).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4tune
need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DUMPE2FS" "$REF_DEBUGFS"
need_root_loop
need_cmd sha256sum

export MKE2FS_CONFIG=$E4_TESTDIR/mke2fs-debian.conf
failed=()
n=0

# a small tree: files, a 300-entry directory (htree), a file with an xattr
src=$T/src
mkdir -p "$src/big"
for i in $(seq 1 300); do echo "$i" >"$src/big/file-with-a-long-name-$i"; done
seq 1 5000 >"$src/numbers"
echo x >"$src/attr"
head -c 600 /dev/zero | tr '\0' v >"$T/value"
base=$T/base.img
"$REF_MKE2FS" -q -F -t ext4 -O metadata_csum_seed -b 1024 -d "$src" "$base" 8M >/dev/null 2>&1 ||
	fail "mke2fs -d failed"
# an xattr block (600 bytes: too large for the inode body), and the large
# directory indexed (e2fsck -D), which also leaves it freshly checked
"$REF_DEBUGFS" -w -R "ea_set -f $T/value /attr user.big" "$base" >/dev/null 2>&1
"$REF_E2FSCK" -fyD "$base" >/dev/null 2>&1
"$REF_DEBUGFS" -R "stat /attr" "$base" 2>/dev/null | grepq 'File ACL: [1-9]' || fail "no xattr block in the base image"
flags=$("$REF_DEBUGFS" -R "stat /big" "$base" 2>/dev/null | sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p')
[ $((${flags:-0} & 0x1000)) != 0 ] || fail "the large directory is not indexed (flags ${flags:-none})"
ref_clean "$base" || fail "the base image is not clean"

uuid=0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0
img=$T/img.img
cp "$base" "$img"
"$E4TUNE" -U "$uuid" "$img" >/dev/null 2>&1 || fail "-U on a metadata_csum_seed filesystem failed"
seed_before=$("$REF_DUMPE2FS" -h "$img" 2>/dev/null | grep '^Checksum seed:')
[ -n "$seed_before" ] || fail "no checksum seed after -U"

# mounted since its last check: refused, with a step that works
stale=$T/stale.img
cp "$img" "$stale"
"$REF_DEBUGFS" -w -R "ssv mtime 20300101" "$stale" >/dev/null 2>&1
n=$((n + 1))
before=$(sha256sum <"$stale")
if "$E4TUNE" -O ^metadata_csum_seed "$stale" >"$T/out" 2>&1; then
	failed+=("stale filesystem: accepted")
else
	grepq -E 'freshly checked.*e2fsck -f' "$T/out" || failed+=("stale: the refusal names no working step: $(cat "$T/out")")
	grepq 'e4fsck -f' "$T/out" && failed+=("stale: advises e4fsck -f, which cannot run the full check: $(cat "$T/out")")
	[ "$before" = "$(sha256sum <"$stale")" ] || failed+=("stale: refused, but the image changed")
fi

# fresh: rewritten with the UUID's seed
n=$((n + 1))
if ! "$E4TUNE" -O ^metadata_csum_seed "$img" >"$T/out" 2>&1; then
	failed+=("^metadata_csum_seed after a UUID change failed: $(cat "$T/out")")
else
	h=$("$REF_DUMPE2FS" -h "$img" 2>/dev/null)
	grepq metadata_csum_seed <<<"$h" && failed+=("the feature is still set")
	grepq '^Checksum seed:' <<<"$h" && failed+=("a checksum seed is still listed")
	grepq "^Filesystem UUID: *$uuid" <<<"$h" || failed+=("the UUID changed")
	ref_clean "$img" || failed+=("not clean after the rewrite: $(head -6 <<<"$REF_CLEAN_OUT" | tr '\n' '|')")
	kernel_mounts "$img" || failed+=("the kernel refuses the result: $KMOUNT_OUT")
	"$REF_DEBUGFS" -R "cat /numbers" "$img" 2>/dev/null | cmp -s - "$src/numbers" ||
		failed+=("/numbers reads back different")
fi

# no UUID change: the stored seed is the UUID's, the flag alone goes
n=$((n + 1))
cp "$base" "$img"
"$E4TUNE" -O ^metadata_csum_seed "$img" >"$T/out" 2>&1 && ref_clean "$img" ||
	failed+=("^metadata_csum_seed without a UUID change: failed or not clean: $(cat "$T/out")")

for f in "${failed[@]+"${failed[@]}"}"; do
	echo "FAIL: $TEST_NAME: $f" >&2
done
[ ${#failed[@]} = 0 ] || fail "${#failed[@]} failures in $n cases"
info "$n cases passed ($(elapsed)s)"
