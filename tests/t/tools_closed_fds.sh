#!/bin/bash
# tools_closed_fds: a tool started with standard input, output or error
# closed must not take the image it opens as that descriptor.  Found by a
# hostile test: e4debugfs with stdin closed read its commands from the
# image (a file inside it could run `dump` onto the host); e4mkfs with
# stdout closed printed its progress into the new filesystem.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

E4MKFS=$E4_BUILDDIR/mkfs/e4mkfs
E4FSCK=$E4_BUILDDIR/fsck/e4fsck
E4TUNE=$E4_BUILDDIR/tune/e4tune
need_oracle "$REF_MKE2FS" "$REF_E2FSCK"

# an image whose first block holds a debugfs command: if stdin were the
# image, the command would run
img=$T/cmd.img
truncate -s 16M "$img"
"$REF_MKE2FS" -q -F -t ext4 "$img" || fail "mke2fs failed"
printf 'dump /etc/x %s/PWNED\n' "$T" | dd of="$img" conv=notrunc status=none
"$E4DEBUGFS" -R stats "$img" <&- >/dev/null 2>&1
[ ! -e "$T/PWNED" ] || fail "e4debugfs with stdin closed ran a command from the image"
"$E4DEBUGFS" "$img" <&- >/dev/null 2>&1
[ ! -e "$T/PWNED" ] || fail "e4debugfs (interactive) with stdin closed ran a command from the image"

# e4mkfs with stdout and then stderr closed: the first 1024 bytes of an
# ext4 image are zero (no boot block), progress text would show there
for redir in '>&-' '2>&-' '<&-'; do
	rm -f "$T/new.img"
	eval "\"\$E4MKFS\" -q -t ext4 \"\$T/new.img\" 16M $redir" || fail "e4mkfs $redir failed"
	[ "$(head -c 1024 "$T/new.img" | tr -d '\0' | wc -c)" -eq 0 ] ||
		fail "e4mkfs $redir wrote text into the first block of the image"
	out=$("$REF_E2FSCK" -fn "$T/new.img" 2>&1) || fail "e4mkfs $redir: image not clean: $out"
done

# e4fsck and e4tune with stdout closed: nothing lands in the image
for tool in "$E4FSCK -fy" "$E4TUNE -L closed"; do
	cp "$T/new.img" "$T/t.img"
	eval "$tool \"\$T/t.img\" >&- 2>/dev/null"
	[ "$(head -c 1024 "$T/t.img" | tr -d '\0' | wc -c)" -eq 0 ] ||
		fail "$tool with stdout closed wrote into the image"
done
info "closed standard descriptors: no tool used the image in their place"
