#!/bin/bash
# dbg_xattr_print: e4debugfs prints extended attribute names and values as
# the reference debugfs does, byte for byte: a value (or a name, without
# quotes) that is mostly printable (more than 7/8 of its bytes) as a
# string with \" \' \\ \a \b \t \n \v \f and three-digit octal for the
# other unprintable bytes; otherwise as "xx " hex bytes.
#
# One small image (the reference mke2fs, 1 MiB) gets a file whose
# attributes (set by the reference debugfs's ea_set from files) cover each
# escape, a name with a control byte, names in UTF-8 (hex), and values of
# 40 bytes or more (left out by ea_list); ea_list, stat and ea_get (plain,
# -x, -C) of both tools are compared whole, less the reference's version
# line.
# Catches: a UTF-8 name printed raw instead of as hex, or a newline in a
# value printed as \012 instead of \n.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_DEBUGFS" "$REF_MKE2FS"
need_e4debugfs

img=$T/x.img
"$REF_MKE2FS" -q -F -t ext4 -I 256 -O ^has_journal "$img" 1M >/dev/null 2>&1 ||
	fail "mke2fs failed"
req=$T/set.req
echo "write /dev/null f" >"$req"
i=0
for c in 00 01 07 08 09 0a 0b 0c 0d 1b 22 27 3f 5c 7f 80 ff; do
	# 16 printable bytes and the byte under test: still a string
	printf "aaaaaaaaaaaaaaaa\\x$c" >"$T/v$i"
	echo "ea_set -f $T/v$i /f user.c$c" >>"$req"
	i=$((i + 1))
done
printf 'short' >"$T/short"
printf '\001\002\003\004' >"$T/bin"
head -c 45 /dev/zero | tr '\0' 'q' >"$T/long"
{
	printf 'ea_set -f %s /f user.\303\251t\303\251\n' "$T/short"
	printf 'ea_set -f %s /f user.abcdefghijklmnop\001\n' "$T/short"
	printf 'ea_set -f %s /f trusted.bin\n' "$T/bin"
	printf 'ea_set -f %s /f user.long\n' "$T/long"
} >>"$req"
"$REF_DEBUGFS" -w -f "$req" "$img" >"$T/set.out" 2>&1 || fail "ea_set failed: $(tail -1 "$T/set.out")"
grep -q "^ea_set:" "$T/set.out" && fail "ea_set failed: $(grep -m1 "^ea_set:" "$T/set.out")"

{
	echo "ea_list /f"
	echo "stat /f"
	for c in 00 0a 22 27 5c 80; do
		echo "ea_get /f user.c$c"
		echo "ea_get -x /f user.c$c"
		echo "ea_get -C /f user.c$c"
	done
	echo "ea_get /f trusted.bin"
	echo "ea_get -C /f trusted.bin"
	echo "ea_get /f user.long"
} >"$T/show.req"
# (stat's times depend on the clock: only its attribute lines are kept)
"$REF_DEBUGFS" -f "$T/show.req" "$img" 2>&1 | grep -v "^debugfs [0-9]" |
	sed 's/^debugfs: /PROMPT /' | grep -v "time:\|^Generation\|^Inode checksum" >"$T/ref"
"$E4DEBUGFS" -f "$T/show.req" "$img" 2>&1 |
	sed 's/^e4debugfs: /PROMPT /' | grep -v "time:\|^Generation\|^Inode checksum" >"$T/e4"
grepq 'user\.c0a (17) = "aaaaaaaaaaaaaaaa\\n"' "$T/ref" ||
	fail "the reference's ea_list is not as expected: $(grep -m1 c0a "$T/ref")"
diff "$T/ref" "$T/e4" >"$T/diff" || fail "outputs differ:
$(head -20 "$T/diff")"
info "$(grep -c . "$T/ref") lines equal"
exit 0
