#!/bin/bash
# tune_rev0: a feature change on a revision 0 filesystem (mke2fs -r 0)
# upgrades it to revision 1 first (issue 11 item 14), as tune2fs does:
# s_rev_level 1, s_first_ino 11, s_inode_size 128, in the primary and in
# a backup superblock; the result is clean and the kernel mounts it.  Each
# way a feature changes is tried: a flag (-O dir_index), several flags with
# their side work (-O extent,uninit_bg: descriptors rewritten through a
# second handle), a journal (-j and -O has_journal: the journal creation
# writes the superblock itself) and metadata_csum (the checksum rewrite
# writes every superblock copy itself).  A change without a feature (-c)
# leaves revision 0, as tune2fs does.
# Bug it catches: features set on a revision 0 superblock, which the kernel
# mounts with "feature flags set on rev 0 fs" and e2fsprogs' library reads
# with the revision 0 rules.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4tune
need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DUMPE2FS"
need_root_loop

failed=()
n=0
base=$T/rev0.img
# 10 MiB of 1 KiB blocks: two groups, and without sparse_super (revision 0
# has no features) group 1 holds a backup at block 8193
"$REF_MKE2FS" -q -F -r 0 -b 1024 "$base" 10M >/dev/null 2>&1 || fail "mke2fs -r 0 failed"
"$REF_DUMPE2FS" -h "$base" 2>/dev/null | grepq '^Filesystem revision #: *0' ||
	fail "mke2fs -r 0 did not make a revision 0 filesystem"

# rev_fields IMG [SB]: "rev first_ino inode_size" of the superblock
rev_fields() {
	local o=()
	[ -n "${2:-}" ] && o=(-o "superblock=$2" -o blocksize=1024)
	"$REF_DUMPE2FS" -h "${o[@]}" "$1" 2>/dev/null | awk -F: '
		/^Filesystem revision #/ { split($2, a, " "); r = a[1] }
		/^First inode/ { f = $2 + 0 }
		/^Inode size/ { i = $2 + 0 }
		END { print r, f, i }'
}

img=$T/img.img
for args in "-O dir_index" "-O extent,uninit_bg" "-j" "-O has_journal" "-O metadata_csum"; do
	n=$((n + 1))
	cp "$base" "$img"
	# shellcheck disable=SC2086
	if ! "$E4TUNE" $args "$img" >"$T/out" 2>&1; then
		failed+=("$args: e4tune failed: $(head -2 "$T/out" | tr '\n' ' ')")
		continue
	fi
	got=$(rev_fields "$img")
	[ "$got" = "1 11 128" ] || failed+=("$args: primary superblock: revision, first inode, inode size = $got, not 1 11 128")
	got=$(rev_fields "$img" 8193)
	[ "$got" = "1 11 128" ] || failed+=("$args: backup superblock 8193: $got, not 1 11 128")
	ref_clean "$img" || failed+=("$args: not clean: $(head -4 <<<"$REF_CLEAN_OUT" | tr '\n' '|')")
	kernel_mounts "$img" || failed+=("$args: the kernel refuses the result: $KMOUNT_OUT")
done

n=$((n + 1))
cp "$base" "$img"
"$E4TUNE" -c 30 "$img" >/dev/null 2>&1 || failed+=("-c on revision 0 failed")
got=$(rev_fields "$img")
[ "${got%% *}" = 0 ] || failed+=("-c 30 changed the revision: $got")

for f in "${failed[@]+"${failed[@]}"}"; do
	echo "FAIL: $TEST_NAME: $f" >&2
done
[ ${#failed[@]} = 0 ] || fail "${#failed[@]} failures in $n cases"
info "$n cases passed ($(elapsed)s)"
