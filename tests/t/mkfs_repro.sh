#!/bin/bash
# mkfs_repro: with SOURCE_DATE_EPOCH, -U and -E hash_seed= fixed, two
# e4mkfs runs give byte-identical images (cmp), for several feature sets;
# and without a fixed UUID two runs differ (the UUID is random).
# Catches: a field filled from the clock or at random despite
# SOURCE_DATE_EPOCH, -U and -E hash_seed= (two runs differ).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$E4_TESTDIR/t/mkfs_common.bash"

need_e4mkfs
failed=()
n=0
for opts in "-t ext4" "-t ext2" "-t ext3 -b 1024" "-t ext4 -O bigalloc,orphan_file" \
	"-t ext4 -O orphan_file,metadata_csum_seed,sparse_super2" "-t ext4 -E nodiscard,lazy_itable_init=0"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	mk_e4 "$T/a.img" 256M $opts || { failed+=("$opts: e4mkfs failed: $(head -1 "$T/a.img.e4out")"); continue; }
	# shellcheck disable=SC2086
	mk_e4 "$T/b.img" 256M $opts || { failed+=("$opts: e4mkfs failed (second run)"); continue; }
	if ! cmp -s "$T/a.img" "$T/b.img"; then
		failed+=("$opts: two runs differ in $(cmp -l "$T/a.img" "$T/b.img" | wc -l) bytes")
	fi
done
n=$((n + 1))
truncate -s 64M "$T/c.img" "$T/d.img"
"$E4MKFS" -q -F "$T/c.img" </dev/null && "$E4MKFS" -q -F "$T/d.img" </dev/null ||
	failed+=("plain runs failed")
cmp -s "$T/c.img" "$T/d.img" && failed+=("two runs with a random UUID are identical")

info "$((n - ${#failed[@]})) of $n reproducibility checks passed"
if [ ${#failed[@]} -gt 0 ]; then
	printf '  %s\n' "${failed[@]}" >&2
	fail "${#failed[@]} checks failed"
fi
exit 0
