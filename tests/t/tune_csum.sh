#!/bin/bash
# tune_csum: metadata_csum off, then on (e4tune issue, acceptance 4).  A
# kernel-filled ext4 image (tests/gentree.py), checked by the reference
# e2fsck -fy first: e4tune -O ^metadata_csum, then -O metadata_csum: clean
# after each step (reference e2fsck -fn) and the tree intact (the reference
# debugfs rdump, listed with tests/gentree.py, against the same listing
# before the first step); the kernel mounts the result.  On the image mounted since its last check,
# -O ^metadata_csum is refused with the reason and the image is unchanged.
# Also: -U on the fresh metadata_csum image rewrites every checksum: clean,
# tree intact.
# Catches: a checksum rewrite that skips the directory blocks (the
# reference -fn reports their checksums).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4tune
need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DEBUGFS" "$REF_DUMPE2FS" "$PYTHON"
need_root_loop
need_cmd sha256sum

tmp_on_tmpfs 512m
# listing IMG OUT: the tree as the reference debugfs reads it
listing() {
	rm -rf "$TFS/r"
	mkdir -p "$TFS/r"
	"$REF_DEBUGFS" -R "rdump / $TFS/r" "$1" >/dev/null 2>&1
	"$PYTHON" "$GENTREE" list "$TFS/r" --no-atime >"$2"
}
intact() {
	listing "$1" "$T/now.list"
	diff "$T/want.list" "$T/now.list" >"$T/d" || fail "$2: the tree differs: $(head -5 "$T/d")"
}
feature() { "$REF_DUMPE2FS" -h "$1" 2>/dev/null | grep '^Filesystem features:' | grepq -w "$2"; }

mnt=$T/mnt
img=$T/fs.img
"$REF_MKE2FS" -q -F -t ext4 "$img" 64M >/dev/null 2>&1 || fail "mke2fs failed"
mount_loop "$img" "$mnt" || fail "cannot mount"
"$PYTHON" "$GENTREE" gen "$mnt" --no-special --bigdir 400 >"$T/gen.log" 2>&1 ||
	fail "gentree failed: $(tail -3 "$T/gen.log")"
umount_retry "$mnt"
"$REF_E2FSCK" -fy "$img" >/dev/null 2>&1
ref_clean "$img" || fail "not clean after e2fsck -fy"
listing "$img" "$T/want.list"
[ "$(wc -l <"$T/want.list")" -gt 400 ] || fail "the tree is too small"
cp "$img" "$T/fresh.img"

"$E4TUNE" -O ^metadata_csum "$img" >"$T/out" 2>&1 || fail "-O ^metadata_csum failed: $(cat "$T/out")"
feature "$img" metadata_csum && fail "metadata_csum still set"
feature "$img" uninit_bg || fail "uninit_bg not set in place of metadata_csum"
ref_clean "$img" || fail "not clean after -O ^metadata_csum"
intact "$img" "metadata_csum off"
info "metadata_csum off: clean, tree intact"

"$E4TUNE" -O metadata_csum "$img" >"$T/out" 2>&1 || fail "-O metadata_csum failed: $(cat "$T/out")"
feature "$img" metadata_csum || fail "metadata_csum not set"
feature "$img" uninit_bg && fail "uninit_bg left beside metadata_csum"
ref_clean "$img" || fail "not clean after -O metadata_csum"
intact "$img" "metadata_csum on again"
mount_loop "$img" "$mnt" || fail "the kernel does not mount the result"
echo new >"$mnt/new-after-csum"
umount_retry "$mnt"
ref_clean "$img" || fail "not clean after the kernel wrote to it"
info "metadata_csum on again: clean, tree intact, the kernel mounts and writes it"

# mounted since its last check: refused, unchanged (the check time is set
# back: e2fsck -fy and the mount may fall in the same second, and a check
# at the mount's second counts as after it, as for tune2fs)
"$REF_DEBUGFS" -w -R "ssv lastcheck 20000101" "$img" >/dev/null 2>&1
before=$(sha256sum <"$img")
"$E4TUNE" -O ^metadata_csum "$img" >"$T/out" 2>&1 && fail "accepted on a filesystem mounted since its last check"
grep -qi "freshly checked" "$T/out" || fail "the refusal does not say why: $(cat "$T/out")"
[ "$before" = "$(sha256sum <"$img")" ] || fail "refused, but the image changed"
info "refused after a mount: $(cat "$T/out")"

# -U with metadata_csum (no seed): every checksum rewritten
"$E4TUNE" -U random "$T/fresh.img" >"$T/out" 2>&1 || fail "-U failed: $(cat "$T/out")"
ref_clean "$T/fresh.img" || fail "not clean after -U"
intact "$T/fresh.img" "-U"
info "-U with metadata_csum: clean, tree intact"
info "passed ($(elapsed)s)"
