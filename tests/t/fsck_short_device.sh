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
#  tiny        8 MiB ext4 with 4 KiB blocks cut to 5000      8    8    8
#              bytes (superblock whole, descriptors not),
#              and to 1500 bytes (superblock cut)
#  itable_eio  -f: inode table block 100 (inodes 9-12) reads 8    8    8
#              EIO; inodes 12 and 13 share xattr block A
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
# tiny: each tool (e4fsck, e4tune -l, e4debugfs) says the device is short
# and names the sizes (2048 blocks of 4096 bytes and 5000 bytes; 1500
# bytes and the superblock's place), nothing written.  Bug caught: "Bad
# magic number" / "no usable superblock" (a backup search over a device
# that ends before any backup), and e4tune/e4debugfs saying "Attempt to
# read beyond the end of the device" with no sizes.
# itable_eio: pass 1 names the unreadable inodes (9-12, not the whole
# chunk the scan read), exits 8 (an operational error: the check is
# incomplete; the reference e2fsck -fn aborts with 8 too) and writes
# nothing: A's reference count 2 is not "fixed" to the 1 reference the
# readable inodes make.  Bugs caught: exit 4 (said as a problem left, the
# man page says 8); -y lowered A's h_refcount to 1, so deleting one file
# would free the block the other still names.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_MKE2FS" "$REF_DEBUGFS" "$REF_DUMPE2FS" "$REF_E2FSCK"
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

# ---- tiny: the device ends before the descriptors, or the superblock -----
need_e4tune
need_e4debugfs
"$REF_MKE2FS" -q -F -t ext4 -b 4096 "$T/tiny.img" 8M >/dev/null 2>&1 || fail "mke2fs failed"
for cut in 5000 1500; do
	if [ $cut = 5000 ]; then
		want="2048 blocks of 4096 bytes.*only 5000 bytes"
	else
		want="only 1500 bytes, less than an ext2/3/4 filesystem needs"
	fi
	head -c $cut "$T/tiny.img" >"$T/tiny.$cut"
	for mode in n p y; do
		cp "$T/tiny.$cut" "$T/t.img"
		run tiny$cut "$T/t.img" $mode 8
		grepq -E "$want" "$T/tiny$cut.$mode.err" ||
			fail "tiny $cut -$mode: the sizes not named: $(cat "$T/tiny$cut.$mode.err")"
		grepq -i "superblock was found\|bad magic" "$T/tiny$cut.$mode.err" &&
			fail "tiny $cut -$mode: said as a bad superblock: $(cat "$T/tiny$cut.$mode.err")"
		cmp -s "$T/tiny.$cut" "$T/t.img" || fail "tiny $cut -$mode: the image changed"
	done
	"$E4TUNE" -l "$T/t.img" >/dev/null 2>"$T/tiny.tune" && fail "tiny $cut: e4tune -l exit 0"
	"$E4DEBUGFS" -R stats "$T/t.img" >/dev/null 2>"$T/tiny.dbg" && fail "tiny $cut: e4debugfs exit 0"
	for f in tune dbg; do
		grepq -E "$want" "$T/tiny.$f" || fail "tiny $cut: e4$f: the sizes not named: $(cat "$T/tiny.$f")"
	done
done

# ---- itable_eio: an inode table block cannot be read (pass 1) -----------
img=$T/it.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 -I 256 "$img" 8M >/dev/null 2>&1 || fail "mke2fs failed"
head -c 300 /dev/zero | tr '\0' v >"$T/v300"
printf 'write %s a\nwrite %s b\nea_set -f %s a user.big\n' "$T/hi" "$T/hi" "$T/v300" |
	"$REF_DEBUGFS" -w -f - "$img" >/dev/null 2>&1
acl=$("$REF_DEBUGFS" -R "stat a" "$img" 2>/dev/null | sed -n 's/.*File ACL: \([0-9]*\).*/\1/p')
[ -n "$acl" ] && [ "$acl" != 0 ] || fail "itable_eio: no xattr block"
# b names a's block too; the reference sets its count to 2
"$REF_DEBUGFS" -w -R "sif b file_acl $acl" "$img" >/dev/null 2>&1
"$REF_E2FSCK" -fy "$img" >/dev/null 2>&1
ref_clean "$img" || fail "itable_eio: the fixture is not clean"
"$REF_DEBUGFS" -R "imap <12>" "$img" 2>/dev/null | grepq "located at block 100," ||
	fail "itable_eio: inode 12 is not in block 100"
for mode in fn fy fp; do
	cp "$img" "$T/it.$mode.img"
	run itable_eio "$T/it.$mode.img" $mode 8 E4_FAIL_READ=$((100 * 1024)):1024
	grepq "cannot be read (Input/output error): inodes 9-12 not checked" \
		"$T/itable_eio.$mode.out" || fail "itable_eio -$mode: inodes 9-12 not named: $(head -3 "$T/itable_eio.$mode.out")"
	cmp -s "$img" "$T/it.$mode.img" || fail "itable_eio -$mode: the image changed"
done

info "short device and read errors: exit 8, nothing cleared ($(elapsed)s)"
exit 0
