#!/bin/bash
# dump_read_error: a file whose block map turns bad part way (corpus
# f_lotsbad: /termcap, 12 good blocks of 1 KiB, then an indirect block of
# text) is copied up to the bad part by `cat`, `dump` and `rdump` (with
# writer threads and without), as the reference debugfs copies it: 12,288
# bytes equal to the reference's, an error naming the inode and byte 12288,
# exit 1.
# Catches: a copy that drops the whole read request holding the bad block
# (e4debugfs read 1 MiB or 4 MiB at a time and wrote nothing of it: a
# 0-byte termcap; seen on this image and on f_messy_inode).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_DEBUGFS"
need_e4debugfs
CORPUS=$E4KIT_SHARED/corpus
[ -f "$CORPUS/fsck/f_lotsbad.img.gz" ] || skip "no corpus image $CORPUS/fsck/f_lotsbad.img.gz"
img=$T/lotsbad.img
gzip -dc "$CORPUS/fsck/f_lotsbad.img.gz" >"$img" || fail "cannot unpack f_lotsbad"

"$REF_DEBUGFS" -R "dump /termcap $T/ref" "$img" >/dev/null 2>&1
[ "$(stat -c %s "$T/ref")" = 12288 ] || fail "the reference dumped $(stat -c %s "$T/ref") bytes, not 12288"

# check WHAT FILE OUTPUT RC: FILE is the reference's copy, OUTPUT names byte 12288
check() {
	cmp -s "$T/ref" "$2" || fail "$1: $(stat -c %s "$2") bytes, not the reference's 12288"
	grepq -F "while reading inode 12 at byte 12288" "$3" || fail "$1: no error at byte 12288: $(head -3 "$3")"
	[ "$4" = 1 ] || fail "$1: exit $4, not 1"
}
"$E4DEBUGFS" -R "cat /termcap" "$img" >"$T/cat" 2>"$T/cat.err"
check cat "$T/cat" "$T/cat.err" $?
"$E4DEBUGFS" -R "dump /termcap $T/dump" "$img" >/dev/null 2>"$T/dump.err"
check dump "$T/dump" "$T/dump.err" $?
for w in 0 2; do
	mkdir "$T/r$w"
	E4_RDUMP_WRITERS=$w "$E4DEBUGFS" -R "rdump /termcap $T/r$w" "$img" >/dev/null 2>"$T/r$w.err"
	check "rdump, $w writers" "$T/r$w/termcap" "$T/r$w.err" $?
done
echo "dump_read_error: cat, dump and rdump keep the 12288 good bytes"
exit 0
