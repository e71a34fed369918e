#!/bin/bash
# fsck_short_device: a device shorter than the filesystem, and read errors,
# are reported, never "repaired" (issue 11 item 3).
#
#  case        image                                     -n   -p   -y
#  truncated   64 MiB ext4 cut to 10 MiB (the journal     8    8    8
#              lies past the cut)
#  log_eio     needs_recovery, journal block 1 reads           8    8
#              EIO (E4_FAIL_READ)
#  orphan_eio  an orphan whose inode block reads EIO           8
#
# truncated: the first message names both sizes; -n writes nothing, -p/-y
# write only the superblock (its error state), the file keeps its size and
# the journal stays.  Bug caught: -p deleted the journal ("invalid journal
# (inode 8): Attempt to read beyond the end of the device ... CLEARED").
# The reference e2fsck 1.47.0 -y on the same image even extends the file to
# 16 MiB before it asks "Abort?" (not compared: it is the bug).
# log_eio: the journal is kept as it was (needs_recovery, s_start 1), the
# image unchanged.  Bug caught: a log read error reset the journal
# (s_start 0): its transactions were lost.
# orphan_eio: the orphan list stays (s_last_orphan 12), the image
# unchanged.  Bug caught: the error cleared s_last_orphan.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_MKE2FS" "$REF_DEBUGFS" "$REF_DUMPE2FS"
export E2FSCK_CONFIG=/dev/null TZ=UTC

run() {	# run NAME IMG MODE WANT_RC [ENV...]
	local name=$1 img=$2 mode=$3 want=$4 rc
	shift 4
	runcap "$T/$name.$mode" 30 env "$@" "$E4FSCK" -$mode "$img"
	rc=$(cat "$T/$name.$mode.rc")
	san_report "$T/$name.$mode.err" && fail "$name -$mode: sanitizer report"
	[ "$rc" = "$want" ] || {
		cat "$T/$name.$mode.out" "$T/$name.$mode.err" >&2
		fail "$name -$mode: $(describe_rc "$rc"), expected $want"
	}
}

# ---- truncated -----------------------------------------------------------
full=$T/full.img
"$REF_MKE2FS" -q -F -t ext4 "$full" 64M >/dev/null 2>&1 || fail "mke2fs failed"
jblk=$("$REF_DEBUGFS" -R "bmap <8> 0" "$full" 2>/dev/null)
[ "$jblk" -gt 10240 ] || fail "the journal (block $jblk) should lie past 10 MiB"
cut=$T/cut.img
cp "$full" "$cut"
truncate -s 10M "$cut"
for mode in n p y; do
	img=$T/cut.$mode.img
	cp "$cut" "$img"
	run truncated "$img" $mode 8
	grepq -E "65536 blocks of 1024 bytes.*only 10240" "$T/truncated.$mode.err" ||
		fail "truncated -$mode: no message naming both sizes: $(cat "$T/truncated.$mode.err")"
	[ "$(stat -c %s "$img")" = $((10 << 20)) ] || fail "truncated -$mode: the file changed size"
	# only the superblock (bytes 1024-2047) may differ
	bad=$(cmp -l "$cut" "$img" | awk '$1 <= 1024 || $1 > 2048' | head -3)
	[ -z "$bad" ] || fail "truncated -$mode: written outside the superblock: $bad"
	# (dumpe2fs fails on the journal past the end: its output is enough)
	sb=$("$REF_DUMPE2FS" -h "$img" 2>/dev/null || true)
	if [ $mode = n ]; then
		cmp -s "$cut" "$img" || fail "truncated -n: the image changed"
	else
		grepq "^Filesystem state:.*with errors" <<<"$sb" ||
			fail "truncated -$mode: the error state is not recorded"
	fi
	grepq "^Journal inode: *8" <<<"$sb" && grepq "features:.*has_journal" <<<"$sb" ||
		fail "truncated -$mode: the journal is gone"
done

# ---- log_eio: the journal's first log block cannot be read ----------------
img=$T/log.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$img" 16M >/dev/null 2>&1 || fail "mke2fs failed"
printf 'hello' >"$T/hi"
printf 'jo\njw -b 300 %s\njc\n' "$T/hi" | "$REF_DEBUGFS" -w -f - "$img" >/dev/null 2>&1
"$REF_DUMPE2FS" -h "$img" 2>/dev/null | grepq needs_recovery || fail "log_eio: no transaction made"
log1=$("$REF_DEBUGFS" -R "bmap <8> 1" "$img" 2>/dev/null)
for mode in p y; do
	cp "$img" "$T/log.$mode.img"
	run log_eio "$T/log.$mode.img" $mode 8 E4_FAIL_READ=$((log1 * 1024)):1024
	cmp -s "$img" "$T/log.$mode.img" || fail "log_eio -$mode: the image changed"
done

# ---- orphan_eio: the orphan's inode block cannot be read ------------------
img=$T/orph.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$img" 16M >/dev/null 2>&1 || fail "mke2fs failed"
head -c 5000 /dev/zero >"$T/src"
printf 'write %s a\nsif <12> links_count 0\nunlink a\nssv last_orphan 12\n' "$T/src" |
	"$REF_DEBUGFS" -w -f - "$img" >/dev/null 2>&1
loc=$("$REF_DEBUGFS" -R "imap <12>" "$img" 2>/dev/null | sed -n 's/.*located at block \([0-9]*\), offset \(0x[0-9a-f]*\).*/\1 \2/p')
[ -n "$loc" ] || fail "orphan_eio: no inode location"
set -- $loc
cp "$img" "$T/orph.p.img"
run orphan_eio "$T/orph.p.img" p 8 E4_FAIL_READ=$(($1 * 1024 + $2)):256
grepq "Input/output error" "$T/orphan_eio.p.out" "$T/orphan_eio.p.err" ||
	fail "orphan_eio: the read error is not said"
cmp -s "$img" "$T/orph.p.img" || fail "orphan_eio: the image changed"

info "short device and read errors: exit 8, nothing cleared ($(elapsed)s)"
exit 0
