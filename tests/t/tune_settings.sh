#!/bin/bash
# tune_settings: e4tune's superblock settings and refusals, without mounts.
#  - bad arguments and refused changes: exit 1, one line of output, the
#    image's bytes unchanged (also feature toggles the reference refuses,
#    with its reasons, and a UUID change on metadata_csum without the seed);
#  - -c -C -e -g -i -m -r -T -u -L -M -E stride=,stripe_width=,hash_alg=,
#    test_fs,mount_opts= give the superblock the reference tune2fs gives
#    (dumpe2fs -h of both copies equal but for the write time and checksum)
#    and a clean filesystem;
#  - -U and -O ^metadata_csum refused on a metadata_csum filesystem
#    mounted since its last check (s_mtime set later with debugfs); -U on
#    a fresh one rewrites every checksum: clean;
#  - flag-only -O toggles (flex_bg, ea_inode, verity, fast_commit and off,
#    casefold, large_dir, stable_inodes, ^dir_nlink, extent,
#    metadata_csum_seed, read-only): the reference's superblock, clean;
#  - -U on an uninit_bg filesystem (descriptor checksums follow the UUID)
#    and -U with metadata_csum_seed: clean, UUID as asked;
#  - -O metadata_csum_seed then -U: clean; -E ^test_fs clears the flag.
# Catches: an option applied to the wrong field, e.g. -C setting the
# maximal mount count (dumpe2fs -h differs from the reference tune2fs's).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4tune
need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DUMPE2FS" "$REF_TUNE2FS" "$REF_DEBUGFS"
need_cmd sha256sum

failed=()
n=0

# clean IMG: the reference e2fsck -fn exits 0 and says nothing but its
# version, the pass lines and the summary
expect_refusal() {
	local what=$1 img=$2 pat=$3 before after lines rc
	shift 3
	n=$((n + 1))
	before=$(sha256sum <"$img")
	timeout -k 5 60 "$E4TUNE" "$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	after=$(sha256sum <"$img")
	lines=$(cat "$T/out" "$T/err" | grep -c .)
	if [ $rc != 1 ]; then
		failed+=("$what: exit $rc, not 1 ($(head -2 "$T/err" | tr '\n' ' '))")
	elif [ "$before" != "$after" ]; then
		failed+=("$what: the image changed")
	elif [ "$lines" != 1 ]; then
		failed+=("$what: $lines lines of output: $(cat "$T/out" "$T/err" | head -3 | tr '\n' '|')")
	elif ! grep -qiE "$pat" "$T/err"; then
		failed+=("$what: message does not say '$pat': $(cat "$T/err")")
	fi
}

mk() { "$REF_MKE2FS" -q -F "$@" >/dev/null 2>&1 || fail "mke2fs $*"; }

e4=$T/e4.img
mk -t ext4 "$e4" 8M
e2=$T/e2.img
mk -t ext2 "$e2" 8M

expect_refusal "no option" "$e4" "nothing to do" "$e4"
expect_refusal "no device" "$e4" "no device" -c 5
expect_refusal "bad -c" "$e4" "mounts count" -c abc "$e4"
expect_refusal "-c too big" "$e4" "mounts count" -c 20000 "$e4"
expect_refusal "bad -C" "$e4" "mounts count" -C -1 "$e4"
expect_refusal "bad -e" "$e4" "error behavior" -e sometimes "$e4"
expect_refusal "bad -i" "$e4" "interval" -i 3x "$e4"
expect_refusal "-i too big" "$e4" "too big" -i 50000d "$e4"
expect_refusal "bad -m" "$e4" "ratio" -m 60 "$e4"
expect_refusal "bad -r" "$e4" "reserved blocks" -r 12z "$e4"
expect_refusal "-r over half" "$e4" "too big" -r 5000 "$e4"
expect_refusal "bad -T" "$e4" "date/time" -T 2023-01-01 "$e4"
expect_refusal "bad -u" "$e4" "uid" -u no_such_user_e4 "$e4"
expect_refusal "bad -g" "$e4" "gid" -g no_such_group_e4 "$e4"
expect_refusal "bad -E" "$e4" "extended option" -E no_such=1 "$e4"
expect_refusal "bad hash_alg" "$e4" "hash" -E hash_alg=md5 "$e4"
expect_refusal "long mount_opts" "$e4" "too long" -E "mount_opts=$(printf 'x%.0s' {1..70})" "$e4"
expect_refusal "bad -o" "$e4" "mount option" -o no_such_opt "$e4"
expect_refusal "bad -O" "$e4" "invalid filesystem option" -O no_such_feature "$e4"
expect_refusal "bad -U" "$e4" "UUID" -U not-a-uuid "$e4"
expect_refusal "invalid option" "$e4" "invalid option" -x "$e4"
expect_refusal "-J size=0" "$e4" "journal size" -J size=0 "$e4"
expect_refusal "--json without -l" "$e4" "json" --json -c 3 "$e4"
# toggles the reference refuses, with its reasons
expect_refusal "^extent" "$e4" "clearing filesystem feature 'extent' not supported" -O ^extent "$e4"
expect_refusal "inline_data" "$e4" "setting filesystem feature 'inline_data' not supported" -O inline_data "$e4"
expect_refusal "^sparse_super" "$e4" "not supported" -O ^sparse_super "$e4"
expect_refusal "64bit on ext2" "$e2" "resize2fs -b" -O 64bit "$e2"
expect_refusal "^64bit" "$e4" "resize2fs -s" -O ^64bit "$e4"
expect_refusal "^flex_bg" "$e4" "inconsistent" -O ^flex_bg "$e4"
expect_refusal "csum seed without metadata_csum" "$e2" "metadata_csum" -O metadata_csum_seed "$e2"
expect_refusal "orphan_file without journal" "$e2" "journal" -O orphan_file "$e2"
# a metadata_csum filesystem mounted since its last check: -U would rewrite
# every checksum, refused
cp "$e4" "$T/mounted.img"
"$REF_DEBUGFS" -w -R "ssv mtime 20300101" "$T/mounted.img" >/dev/null 2>&1
expect_refusal "-U with metadata_csum, not fresh" "$T/mounted.img" "freshly checked" -U random "$T/mounted.img"
expect_refusal "metadata_csum off, not fresh" "$T/mounted.img" "freshly checked" -O ^metadata_csum "$T/mounted.img"
expect_refusal "async commit in ordered mode" "$e4" "ordered" -o journal_async_commit "$e4"
expect_refusal "async commit without journal" "$e2" "journal" \
	-o journal_data_writeback,journal_async_commit "$e2"

# the same settings through the reference and through e4tune
settings=(-c 25 -C 7 -e remount-ro -g 10 -i 2w -m 3 -u 1 -L label-e4 -M /mnt/x
	-T 20230102030405 -r 900
	-E stride=4,stripe_width=16,hash_alg=tea,test_fs,mount_opts=nodelalloc)
for base in ext2 ext4; do
	a=$T/a-$base.img b=$T/b-$base.img
	mk -t "$base" "$a" 32M
	cp "$a" "$b"
	n=$((n + 1))
	"$E4TUNE" "${settings[@]}" "$a" >"$T/e4.out" 2>&1 || { failed+=("$base settings: e4tune failed: $(head -3 "$T/e4.out")"); continue; }
	"$REF_TUNE2FS" "${settings[@]}" "$b" >"$T/ref.out" 2>&1 || fail "tune2fs failed: $(cat "$T/ref.out")"
	"$REF_DUMPE2FS" -h "$a" 2>/dev/null | grep -vE '^(Last write time|Checksum):' >"$T/a.h"
	"$REF_DUMPE2FS" -h "$b" 2>/dev/null | grep -vE '^(Last write time|Checksum):' >"$T/b.h"
	diff "$T/b.h" "$T/a.h" >"$T/d" || failed+=("$base settings differ from tune2fs: $(head -6 "$T/d" | tr '\n' '|')")
	grep -v '^tune2fs 1' "$T/ref.out" | diff - "$T/e4.out" >"$T/d" ||
		failed+=("$base settings: messages differ from tune2fs: $(head -4 "$T/d" | tr '\n' '|')")
	ref_clean "$a" || failed+=("$base settings: not clean")
	n=$((n + 1))
	"$E4TUNE" -E ^test_fs "$a" >/dev/null 2>&1 && ! "$REF_DUMPE2FS" -h "$a" 2>/dev/null | grepq test_filesystem ||
		failed+=("$base: ^test_fs did not clear the flag")
done

# flag-only toggles: the superblock the reference gives, clean
for spec in "ext2 flex_bg" "ext4 ea_inode" "ext4 verity" "ext4 fast_commit" "ext4 ^fast_commit" \
	"ext4 casefold" "ext4 large_dir" "ext4 stable_inodes" "ext4 ^dir_nlink" "ext2 extent" \
	"ext4 metadata_csum_seed" "ext4 read-only"; do
	set -- $spec
	a=$T/fa.img b=$T/fb.img
	mk -t "$1" "$a" 16M
	cp "$a" "$b"
	n=$((n + 1))
	"$E4TUNE" -O "$2" "$a" >"$T/e4.out" 2>&1 || { failed+=("-O $2 on $1: e4tune failed: $(head -2 "$T/e4.out")"); continue; }
	"$REF_TUNE2FS" -O "$2" "$b" >/dev/null 2>&1 || fail "tune2fs -O $2 failed"
	"$REF_DUMPE2FS" -h "$a" 2>/dev/null | grep -vE '^(Last write time|Checksum|Checksum seed):' >"$T/a.h"
	"$REF_DUMPE2FS" -h "$b" 2>/dev/null | grep -vE '^(Last write time|Checksum|Checksum seed):' >"$T/b.h"
	diff "$T/b.h" "$T/a.h" >"$T/d" || failed+=("-O $2 on $1 differs from tune2fs: $(head -4 "$T/d" | tr '\n' '|')")
	ref_clean "$a" || failed+=("-O $2 on $1: not clean")
done

# -U on uninit_bg (crc16 descriptor checksums over the UUID)
u=$T/u.img
mk -t ext4 -O ^metadata_csum,uninit_bg "$u" 32M
n=$((n + 1))
"$E4TUNE" -U 01234567-89ab-cdef-0123-456789abcdef "$u" >/dev/null 2>&1 || failed+=("-U uninit_bg failed")
"$REF_DUMPE2FS" -h "$u" 2>/dev/null | grepq '01234567-89ab-cdef-0123-456789abcdef' || failed+=("-U: UUID not set")
ref_clean "$u" || failed+=("-U on uninit_bg: not clean")
n=$((n + 1))
"$E4TUNE" -U clear "$u" >/dev/null 2>&1 && ref_clean "$u" || failed+=("-U clear: failed or not clean")

# -U on a fresh metadata_csum filesystem: every checksum rewritten
c=$T/c.img
mk -t ext4 "$c" 16M
n=$((n + 1))
"$E4TUNE" -U 89abcdef-0123-4567-89ab-cdef01234567 "$c" >/dev/null 2>&1 && ref_clean "$c" ||
	failed+=("-U with metadata_csum: failed or not clean")
"$REF_DUMPE2FS" -h "$c" 2>/dev/null | grepq '89abcdef-0123-4567-89ab-cdef01234567' ||
	failed+=("-U with metadata_csum: UUID not set")

# metadata_csum_seed, then -U keeps the checksums
s=$T/s.img
mk -t ext4 "$s" 32M
n=$((n + 1))
"$E4TUNE" -O metadata_csum_seed "$s" >/dev/null 2>&1 && ref_clean "$s" || failed+=("-O metadata_csum_seed: failed or not clean")
"$E4TUNE" -U time "$s" >/dev/null 2>&1 && ref_clean "$s" || failed+=("-U after metadata_csum_seed: failed or not clean")

for f in "${failed[@]+"${failed[@]}"}"; do
	echo "FAIL: $TEST_NAME: $f" >&2
done
[ ${#failed[@]} = 0 ] || fail "${#failed[@]} of $n checks failed"
info "$n checks passed ($(elapsed)s)"
