#!/bin/bash
# tune_async: journal_async_commit through -o (e4tune issue, acceptance 3),
# with and without metadata_csum.
#  - e4tune -o journal_async_commit on a filesystem in ordered mode: refused
#    with the reason, image unchanged (sha256);
#  - e4tune -o journal_data_writeback,journal_async_commit: before any
#    mount the reference dumpe2fs -h shows journal_async_commit and the
#    checksum feature (journal_checksum_v3 with metadata_csum, else
#    journal_checksum) in the journal features and the option in the
#    superblock's mount options; a plain mount succeeds and
#    /proc/fs/ext4/<dev>/options shows journal_async_commit; clean;
#  - while it is mounted, -O ^has_journal, -o ^journal_async_commit and -j
#    are refused, saying it must be unmounted;
#  - -o ^journal_async_commit clears the option and the journal's
#    ASYNC_COMMIT bit (and the checksum feature); clean;
#  - -o journal_checksum (ordered mode is fine) sets the option and the
#    checksum feature, the kernel mounts it; ^journal_checksum clears.
# Catches: journal_async_commit set without the journal checksum feature
# (dumpe2fs -h shows no checksum feature).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4tune
need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DUMPE2FS"
need_root_loop
need_cmd sha256sum findmnt

mnt=$T/mnt
for variant in csum nocsum; do
	img=$T/$variant.img
	opts=()
	[ $variant = nocsum ] && opts=(-O ^metadata_csum)
	"$REF_MKE2FS" -q -F -t ext4 "${opts[@]}" "$img" 32M >/dev/null 2>&1 || fail "mke2fs failed"
	want=journal_checksum_v3
	[ $variant = nocsum ] && want=journal_checksum

	before=$(sha256sum <"$img")
	"$E4TUNE" -o journal_async_commit "$img" >"$T/out" 2>&1 && fail "$variant: ordered mode accepted"
	grep -qi ordered "$T/out" || fail "$variant: the refusal does not say why: $(cat "$T/out")"
	[ "$before" = "$(sha256sum <"$img")" ] || fail "$variant: refused, but the image changed"

	"$E4TUNE" -o journal_data_writeback,journal_async_commit "$img" >"$T/out" 2>&1 ||
		fail "$variant: e4tune failed: $(cat "$T/out")"
	h=$("$REF_DUMPE2FS" -h "$img" 2>/dev/null)
	echo "$h" | grepq '^Journal features:.*journal_async_commit' || fail "$variant: no ASYNC_COMMIT: $(echo "$h" | grep '^Journal features')"
	echo "$h" | grepq "^Journal features:.* $want\b" || fail "$variant: no $want: $(echo "$h" | grep '^Journal features')"
	echo "$h" | grepq '^Mount options: *journal_async_commit' || fail "$variant: mount options: $(echo "$h" | grep '^Mount options')"
	echo "$h" | grepq '^Default mount options:.*journal_data_writeback' || fail "$variant: data mode not writeback"
	ref_clean "$img" || fail "$variant: not clean after setting async commit"
	mount_loop "$img" "$mnt" || fail "$variant: plain mount failed"
	dev=$(basename "$(findmnt -n -o SOURCE "$mnt")")
	grep -qx journal_async_commit "/proc/fs/ext4/$dev/options" ||
		fail "$variant: the kernel does not use journal_async_commit: $(tr '\n' ' ' <"/proc/fs/ext4/$dev/options")"
	echo data >"$mnt/file"
	# changes that need the filesystem unmounted are refused while mounted
	# (-U goes through the kernel where it can: tune_mounted)
	for args in "-O ^has_journal" "-o ^journal_async_commit" "-j"; do
		"$E4TUNE" $args "$img" >"$T/out" 2>&1 && fail "$variant: $args accepted while mounted"
		grep -q "unmounted" "$T/out" || fail "$variant: $args: no reason: $(cat "$T/out")"
	done
	umount_retry "$mnt"
	ref_clean "$img" || fail "$variant: not clean after the mount"

	"$E4TUNE" -o ^journal_async_commit "$img" >"$T/out" 2>&1 || fail "$variant: ^journal_async_commit failed: $(cat "$T/out")"
	h=$("$REF_DUMPE2FS" -h "$img" 2>/dev/null)
	echo "$h" | grepq 'journal_async_commit' && fail "$variant: async commit still set: $(echo "$h" | grep async)"
	ref_clean "$img" || fail "$variant: not clean after clearing async commit"
	mount_loop "$img" "$mnt" || fail "$variant: mount after clearing failed"
	umount_retry "$mnt"
	# journal_checksum alone: allowed in ordered mode, and cleared again
	"$E4TUNE" -o journal_data_ordered,journal_checksum "$img" >"$T/out" 2>&1 ||
		fail "$variant: -o journal_checksum failed: $(cat "$T/out")"
	h=$("$REF_DUMPE2FS" -h "$img" 2>/dev/null)
	echo "$h" | grepq "^Journal features:.* $want\b" || fail "$variant: journal_checksum: no $want"
	echo "$h" | grepq '^Mount options: *journal_checksum' || fail "$variant: journal_checksum not in the mount options"
	ref_clean "$img" || fail "$variant: not clean after -o journal_checksum"
	mount_loop "$img" "$mnt" || fail "$variant: mount with journal_checksum failed"
	umount_retry "$mnt"
	"$E4TUNE" -o ^journal_checksum "$img" >"$T/out" 2>&1 || fail "$variant: ^journal_checksum failed"
	"$REF_DUMPE2FS" -h "$img" 2>/dev/null | grepq '^Mount options' && fail "$variant: mount options left"
	ref_clean "$img" || fail "$variant: not clean after -o ^journal_checksum"
	info "$variant: refused in ordered mode; set ($want), mounted with it; cleared; journal_checksum alone too"
done
info "passed ($(elapsed)s)"
