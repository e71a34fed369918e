#!/bin/bash
# tools_closed_fds: a tool started with standard input, output or error
# closed must not take the image it opens as that descriptor.  Found by a
# hostile test: e4debugfs with stdin closed read its commands from the
# image (a file inside it could run `dump` onto the host); e4mkfs with
# stdout closed printed its progress into the new filesystem.
#  - e4debugfs (interactive, and -f -) with stdin closed on an image whose
#    first bytes are the command `dump /x HOST/PWNED` and which holds a
#    file /x: no PWNED on the host;
#  - e4mkfs (not quiet: it prints its progress on stdout) with stdout,
#    stderr or stdin closed: the image is byte for byte the one it makes
#    with all three open (fixed UUID, hash seed and clock), and the
#    reference e2fsck -fn finds it clean (ref_clean); with stdout closed
#    its progress is lost, which it reports (one line, exit 1: tools_cli);
#  - e4fsck -fy and e4tune -l -c with stdout closed (both print while the
#    image is open): the first 1024 bytes stay zero, the result is clean.
# (e4debugfs is read-only and e4mkfs prints on stderr only on errors: no
# stderr text of theirs can reach the image today.)
# Catches: a tool without common/stdfds.c's guard (fds 0-2 opened on
# /dev/null before main).  Checked by making std_fds_open() do nothing:
# e4debugfs dumped /x to PWNED, e4mkfs >&- left its progress text in the
# image, e4fsck and e4tune wrote into block 0; restored, it passes.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$E4_TESTDIR/t/mkfs_common.bash"

need_e4mkfs
need_e4fsck
need_e4tune
need_e4debugfs
need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DEBUGFS"

# an image whose first block holds a debugfs command naming a file the
# image holds: if stdin were the image, the command would run
img=$T/cmd.img
truncate -s 16M "$img"
"$REF_MKE2FS" -q -F -t ext4 "$img" || fail "mke2fs failed"
echo secret >"$T/x"
"$REF_DEBUGFS" -w -R "write $T/x x" "$img" >/dev/null 2>&1 || fail "debugfs write failed"
printf 'dump /x %s/PWNED\n' "$T" | dd of="$img" conv=notrunc status=none
"$E4DEBUGFS" -R "dump /x $T/sure" "$img" >/dev/null 2>&1
[ "$(cat "$T/sure" 2>/dev/null)" = secret ] || fail "the sentinel command would not run: no /x in the image"
"$E4DEBUGFS" "$img" <&- >/dev/null 2>&1
[ ! -e "$T/PWNED" ] || fail "e4debugfs (interactive) with stdin closed ran a command from the image"
"$E4DEBUGFS" -f - "$img" <&- >/dev/null 2>&1
[ ! -e "$T/PWNED" ] || fail "e4debugfs -f - with stdin closed ran a command from the image"

# e4mkfs with stdout, stderr or stdin closed makes the same image as with
# all of them open
mkfs_split_ext
mk() {	# mk IMG REDIR
	rm -f "$1"
	eval "SOURCE_DATE_EPOCH=\$MKFS_TIME \"\$E4MKFS\" -U \"\$MKFS_UUID\" -E \"\$MKFS_EXT\" -t ext4 \"\$1\" 16M $2"
}
mk "$T/want.img" ">/dev/null 2>&1" || fail "e4mkfs failed"
for redir in '>&- 2>"$T/mk.err"' '2>&- >/dev/null' '<&- >/dev/null 2>&1'; do
	rm -f "$T/mk.err"
	mk "$T/new.img" "$redir"
	rc=$?
	if [ -e "$T/mk.err" ]; then
		# its progress, written to the closed stdout, was lost: the
		# filesystem is made, and the exit status says the output was lost
		[ $rc = 1 ] || fail "e4mkfs $redir: exit $rc, not 1 (its output was lost)"
		# (after its version line, as mke2fs prints it)
		[ "$(grep -vc '^e4mkfs [0-9]' "$T/mk.err")" = 1 ] &&
			grepq 'write error on standard output: Bad file descriptor' "$T/mk.err" ||
			fail "e4mkfs $redir: not one line on the lost output: $(head -3 "$T/mk.err")"
	else
		[ $rc = 0 ] || fail "e4mkfs $redir failed"
	fi
	cmp -s "$T/want.img" "$T/new.img" ||
		fail "e4mkfs $redir: the image differs from the one made with stdio open: $(head -c 1024 "$T/new.img" | tr -d '\0' | head -c 200)"
	ref_clean "$T/new.img" || fail "e4mkfs $redir: image not clean: $REF_CLEAN_OUT"
done

# e4fsck and e4tune with stdout closed: nothing lands in the image
for tool in "$E4FSCK -fy" "$E4TUNE -l -c 25"; do
	cp "$T/want.img" "$T/t.img"
	eval "$tool \"\$T/t.img\" >&- 2>/dev/null"
	[ "$(head -c 1024 "$T/t.img" | tr -d '\0' | wc -c)" -eq 0 ] ||
		fail "$tool with stdout closed wrote into the image"
	ref_clean "$T/t.img" || fail "$tool with stdout closed: image not clean: $REF_CLEAN_OUT"
done
info "closed standard descriptors: no tool used the image in their place"
