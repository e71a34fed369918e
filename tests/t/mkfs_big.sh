#!/bin/bash
# mkfs_big: large sparse images: 2 TiB and 15 TiB ext4 (the host caps a
# file just below 16 TiB), 5 TiB with 1 KiB blocks (more than 2^32
# blocks: 64bit, and meta_bg as the reference turns it on), and 8 GiB
# without lazy init or discard.  Each is clean under the reference
# e2fsck -fn; its whole `dumpe2fs -h` equals the reference mke2fs's but
# for the documented lines; every group descriptor is byte-equal to the
# reference's and so are the bitmaps of about 64 sampled groups
# (group_parity: a full dumpe2fs walks every group and took minutes here).
# The images live on a tmpfs (sparse; about 0.5 GiB each at most), so the
# host disk's writeback does not set the pace; E4_JOBS sets at a time.
# Catches: a descriptor location or group count computed in 32 bits (it wraps
# above 2^32 blocks: the 5 TiB 1 KiB-block image's descriptors differ).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$E4_TESTDIR/t/mkfs_common.bash"

need_e4mkfs
need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DUMPE2FS"
need_cmd "$PYTHON"
mkfs_debian_conf
tmp_on_tmpfs 4g

SETS='
ext4_5t_1k|5T|-t ext4 -b 1024
ext4_15t|15T|-t ext4
ext4_2t|2T|-t ext4
ext4_8g_nolazy|8G|-t ext4 -E lazy_itable_init=0,lazy_journal_init=0,nodiscard
'

# one_set NAME SIZE OPTS...: prints "ok DETAILS" or "FAIL REASON" to $T/res.NAME
one_set() {
	local name=$1 size=$2 my=$TFS/$1.img ref=$TFS/$1.ref t0 t1 t2
	shift 2
	t0=$SECONDS
	if ! mk_e4 "$my" "$size" "$@"; then
		echo "FAIL e4mkfs failed: $(head -2 "$my.e4out" | tr '\n' ' ')"
		return
	fi
	t1=$SECONDS
	if ! mk_ref "$ref" "$size" "$@"; then
		echo "FAIL the reference mke2fs failed: $(head -2 "$ref.refout" | tr '\n' ' ')"
		return
	fi
	if ! dump_h_full_parity "$ref" "$my"; then
		echo "FAIL dumpe2fs -h differs: $(head -4 "$my.hdiff" | tr '\n' ' ' | cut -c1-300)"
		return
	fi
	if ! group_parity "$ref" "$my" 64; then
		echo "FAIL $(head -3 "$my.gdiff" | tr '\n' ' ' | cut -c1-300)"
		return
	fi
	rm -f "$ref"
	t2=$SECONDS
	if ! fsck_clean "$my"; then
		echo "FAIL $MKFS_WHY"
		return
	fi
	echo "ok $(cat "$my.gdiff"); e4mkfs $((t1 - t0)) s, e2fsck -fn $((SECONDS - t2)) s"
}

names=()
while IFS='|' read -r name size opts; do
	[ -n "$name" ] || continue
	names+=("$name")
	mkfs_slot
	# shellcheck disable=SC2086
	(one_set "$name" "$size" $opts >"$T/res.$name" 2>&1; rm -f "$TFS/$name".*) &
done <<<"$SETS"
wait

ok=0 failed=()
for name in "${names[@]}"; do
	r=$(cat "$T/res.$name" 2>/dev/null)
	case $r in
	ok*) ok=$((ok + 1)); verbose "$name: ${r#ok }" ;;
	*) failed+=("$name: ${r#FAIL }") ;;
	esac
done
info "$ok of ${#names[@]} large option sets clean, dumpe2fs -h and every group descriptor identical to the reference's ($(elapsed) s)"
if [ ${#failed[@]} -gt 0 ]; then
	printf '  %s\n' "${failed[@]}" >&2
	fail "${#failed[@]} sets failed"
fi
exit 0
