#!/bin/bash
# tune_mount_opts: e4tune never leaves a combination of default mount
# options, mount options string and journal that the kernel refuses to
# mount (issue 11 item 12).  Each way of storing journal_async_commit is
# checked, not only -o:
#  - -E mount_opts=journal_async_commit in ordered mode: refused (the
#    message says "ordered"), the image unchanged (sha256); with
#    -o journal_data_writeback in the same command: accepted, clean, mounts;
#  - the string holding journal_async_commit, then -o journal_data_ordered
#    or -o ^journal_data_writeback (the mode falls back to ordered), or
#    -E mount_opts=data=ordered,... through -o: refused;
#  - -O ^has_journal while the string holds journal_async_commit: refused
#    (the kernel refuses journal options without a journal); with
#    -o ^journal_async_commit in the same command: accepted, clean, mounts;
#  - -j on a journal-less filesystem whose string holds
#    journal_async_commit in ordered mode: refused;
#  - -o journal_data with -E mount_opts=delalloc: refused (data=journal
#    with an explicit delalloc), with a journal and without one;
#  - without a journal, -E mount_opts=commit=010 (8 seconds) refused, and
#    commit=05 or commit=0x5 (the default 5 seconds, as the kernel reads
#    the number) accepted, clean, mounted.
# Each refused combination is shown to be one the kernel refuses: the same
# superblock made with the reference tools does not mount.
# Bug it catches: the ordered-mode check living only in the -o path, so that
# -E mount_opts= (or a later -o changing the mode) writes a filesystem the
# kernel will not mount; the data=journal checks skipped on a filesystem
# without a journal (accepted, and the kernel refused to mount it);
# commit=05 refused by a string comparison while the kernel mounts it.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4tune
need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DUMPE2FS" "$REF_TUNE2FS" "$REF_DEBUGFS"
need_root_loop
need_cmd sha256sum

failed=()
n=0
mk() { "$REF_MKE2FS" -q -F "$@" >/dev/null 2>&1 || fail "mke2fs $*"; }

# refused WHAT IMG PATTERN ARGS...: exit 1, the message matches, unchanged
refused() {
	local what=$1 img=$2 pat=$3 before rc
	shift 3
	n=$((n + 1))
	before=$(sha256sum <"$img")
	"$E4TUNE" "$@" "$img" >"$T/out" 2>&1 </dev/null
	rc=$?
	if [ $rc != 1 ]; then
		failed+=("$what: exit $rc, not 1 (the kernel would refuse the result): $(head -2 "$T/out" | tr '\n' ' ')")
	elif [ "$before" != "$(sha256sum <"$img")" ]; then
		failed+=("$what: refused, but the image changed")
	elif ! grep -qiE "$pat" "$T/out"; then
		failed+=("$what: the message does not say '$pat': $(cat "$T/out")")
	fi
}

# accepted WHAT IMG ARGS...: exit 0, clean, the kernel mounts it
accepted() {
	local what=$1 img=$2
	shift 2
	n=$((n + 1))
	if ! "$E4TUNE" "$@" "$img" >"$T/out" 2>&1 </dev/null; then
		failed+=("$what: e4tune failed: $(head -2 "$T/out" | tr '\n' ' ')")
	elif ! ref_clean "$img"; then
		failed+=("$what: not clean: $(head -5 <<<"$REF_CLEAN_OUT" | tr '\n' '|')")
	elif ! kernel_mounts "$img"; then
		failed+=("$what: the kernel refuses the result: $KMOUNT_OUT")
	fi
}

# kernel_refuses WHAT IMG: the oracle side: IMG (made with the reference
# tools) must not mount, so that the refusal above is the kernel's rule
kernel_refuses() {
	n=$((n + 1))
	kernel_mounts "$2" && failed+=("$1: the kernel mounts it, so refusing it is wrong")
}

base=$T/base.img
mk -t ext4 "$base" 8M
img=$T/img.img

# -E mount_opts=journal_async_commit in ordered mode
cp "$base" "$img"
refused "-E mount_opts=journal_async_commit" "$img" ordered -E mount_opts=journal_async_commit
"$REF_TUNE2FS" -E mount_opts=journal_async_commit "$img" >/dev/null 2>&1
kernel_refuses "async commit in ordered mode" "$img"
cp "$base" "$img"
accepted "-o journal_data_writeback -E mount_opts=journal_async_commit" "$img" \
	-o journal_data_writeback -E mount_opts=journal_async_commit
"$REF_DUMPE2FS" -h "$img" 2>/dev/null | grepq '^Mount options: *journal_async_commit' ||
	failed+=("the accepted string was not stored")

# the string holds journal_async_commit (writeback): the mode cannot go back
# to ordered, whichever way
refused "-o journal_data_ordered" "$img" ordered -o journal_data_ordered
refused "-o ^journal_data_writeback" "$img" ordered -o ^journal_data_writeback
refused "-E mount_opts=data=ordered with -o journal_async_commit" "$img" ordered \
	-E mount_opts=data=ordered -o journal_async_commit
"$REF_TUNE2FS" -o journal_data_ordered "$img" >/dev/null 2>&1
kernel_refuses "ordered mode with async commit in the string" "$img"

# journal removal while the string holds journal_async_commit
cp "$base" "$img"
"$E4TUNE" -o journal_data_writeback,journal_async_commit "$img" >/dev/null 2>&1 ||
	fail "setting async commit failed"
refused "-O ^has_journal with async commit in the string" "$img" "without a journal" -O ^has_journal
accepted "-O ^has_journal -o ^journal_async_commit" "$img" -O ^has_journal -o ^journal_async_commit
"$REF_DUMPE2FS" -h "$img" 2>/dev/null | grepq 'journal_async_commit' &&
	failed+=("journal_async_commit left after removing it with the journal")
cp "$base" "$img"
"$REF_TUNE2FS" -o journal_data_writeback -E mount_opts=journal_async_commit "$img" >/dev/null 2>&1
"$REF_TUNE2FS" -O ^has_journal "$img" >/dev/null 2>&1
kernel_refuses "async commit without a journal" "$img"

# adding a journal under a string that would then be refused
mk -t ext4 -O ^has_journal "$img" 8M
"$REF_DEBUGFS" -w -R "ssv mount_opts journal_async_commit" "$img" >/dev/null 2>&1
refused "-j with async commit in ordered mode" "$img" ordered -j
accepted "-j -o journal_data_writeback" "$img" -j -o journal_data_writeback

# data=journal with an explicit delalloc
cp "$base" "$img"
refused "-o journal_data -E mount_opts=delalloc" "$img" "delalloc" -o journal_data -E mount_opts=delalloc
"$REF_TUNE2FS" -o journal_data -E mount_opts=delalloc "$img" >/dev/null 2>&1
kernel_refuses "data=journal with delalloc" "$img"

# without a journal: data=journal with delalloc is still refused by the
# kernel; commit= is refused only for an interval other than the default,
# read as the kernel reads the number (05 and 0x5 are 5 seconds)
mk -t ext4 -O ^has_journal "$img" 8M
cp "$img" "$T/nj.img"
refused "no journal: -o journal_data -E mount_opts=delalloc" "$img" "delalloc" \
	-o journal_data -E mount_opts=delalloc
"$REF_TUNE2FS" -o journal_data -E mount_opts=delalloc "$img" >/dev/null 2>&1
kernel_refuses "no journal: data=journal with delalloc" "$img"
cp "$T/nj.img" "$img"
refused "no journal: -E mount_opts=commit=010" "$img" "without a journal" -E mount_opts=commit=010
"$REF_TUNE2FS" -E mount_opts=commit=010 "$img" >/dev/null 2>&1
kernel_refuses "no journal: commit=010 (8 seconds)" "$img"
for v in 05 0x5; do
	cp "$T/nj.img" "$img"
	accepted "no journal: -E mount_opts=commit=$v" "$img" -E mount_opts=commit=$v
done

for f in "${failed[@]+"${failed[@]}"}"; do
	echo "FAIL: $TEST_NAME: $f" >&2
done
[ ${#failed[@]} = 0 ] || fail "${#failed[@]} of $n checks failed"
info "$n checks passed ($(elapsed)s)"
