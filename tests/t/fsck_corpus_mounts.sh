#!/bin/bash
# fsck_corpus_mounts: "clean" only for a filesystem the kernel mounts
# (issue 11 item 5), swept over every damaged image of the corpus
# (../shared/corpus/fsck, 171 images from e2fsprogs' regression suite).
# Each image gets `e4fsck -p` on a copy; wherever it exits 0 or 1 the
# kernel must mount the result (tests/lib.sh kernel_mounts: read-only loop
# device, read-only mount; not applicable above the page size).  Without
# passes 1-5 e4fsck cannot find what only they find, but what the kernel
# itself checks at mount (superblock fields, descriptor locations, the
# journal inode, the root inode) it must check too.
# Catches: a journal inode the kernel refuses (encrypted: f_badjour_encrypted)
# or a root inode it refuses (EA_INODE flag: f_ea_inode_spurious_flag_dir)
# called clean.  Checked: both images failed the sweep before
# lib/e4/journal.c refused an encrypted journal inode and e4fsck checked
# the root inode as the kernel does (e4_inode_check_root).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_root_loop
C=$E4KIT_SHARED/corpus/fsck
[ -d "$C" ] || skip "no corpus at $C"
export E2FSCK_CONFIG=/dev/null TZ=UTC

n=0 claimed=0 mounted=0 bad=()
for f in "$C"/*.img.gz; do
	name=$(basename "$f" .img.gz)
	# E4_CORPUS_ONLY: an extended regular expression on the names (debugging)
	[ -n "${E4_CORPUS_ONLY:-}" ] && ! grep -Eq -- "$E4_CORPUS_ONLY" <<<"$name" && continue
	src=$(corpus_unpack "fsck/$name.img.gz") && cp --sparse=always "$src" "$T/i.img" ||
		{ bad+=("$name: cannot unpack"); continue; }
	n=$((n + 1))
	runcap "$T/r" 60 "$E4FSCK" -p "$T/i.img"
	rc=$(cat "$T/r.rc")
	san_report "$T/r.err" && bad+=("$name: sanitizer report")
	[ "$rc" -lt 124 ] || bad+=("$name: e4fsck $(describe_rc "$rc")")
	[ "$rc" -le 1 ] || continue
	claimed=$((claimed + 1))
	if ! kernel_mounts "$T/i.img"; then
		bad+=("$name: e4fsck -p exits $rc, the kernel refuses the result: $(tr '\n' ' ' <<<"$KMOUNT_OUT" | head -c 300)")
	elif [ -z "$KMOUNT_NA" ]; then
		mounted=$((mounted + 1))
	fi
done
[ "$n" -gt 0 ] || fail "no corpus image selected"
[ -n "${E4_CORPUS_ONLY:-}" ] || [ "$n" -ge 150 ] || fail "only $n corpus images"
for b in "${bad[@]+"${bad[@]}"}"; do echo "FAIL: $TEST_NAME: $b" >&2; done
[ ${#bad[@]} = 0 ] || exit 1
info "$n corpus images: e4fsck -p claimed $claimed clean or repaired, the kernel mounted $mounted of them ($(elapsed)s)"
exit 0
