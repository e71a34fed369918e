#!/bin/bash
# fsck_replay_facts: what e4fsck says and leaves after a replay is what
# happened (issue 11 item 11):
#  - counts: the log holds a file creation (every block the reference
#    debugfs changed to write a 100 KiB file, but the superblock), so the
#    replayed descriptors say fewer free blocks and inodes than the
#    superblock.  After `e4fsck -fy` (a replay, then pass 5 says the
#    superblock's free counts are wrong and fixes them: exit 1, as the
#    reference's -fy) the superblock's free counts are the descriptors'
#    sums, as after `e4fsck -y` (silently, on the clean path);
#  - errno: "The journal recorded an error" appears only when the
#    journal's s_errno says so, with its value: a journal whose s_errno is
#    -5 (EIO) says errno 5; a log whose first commit block fails its
#    checksum (replay stops there, the filesystem is marked with errors)
#    says that the transaction was corrupt and nothing about a recorded
#    error;
#  - an external journal that was not given: exit 12 and a message naming
#    -j.
# Runs that exit 0 or 1 leave an image the kernel mounts.
# Bug it catches: free counts left stale because -f skipped the "clean"
# path that recomputes them; "errno 22" printed for every carried error.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_DEBUGFS" "$REF_MKE2FS" "$REF_DUMPE2FS" "$PYTHON"
export E2FSCK_CONFIG=/dev/null TZ=UTC E2FSCK_TIME=2000000000

run() {	# run NAME IMG WANT_RC ARGS...
	local name=$1 img=$2 want=$3
	shift 3
	fsck_run "$name" "$want" "$@" "$img"
}

field() {	# field IMG NAME: a dumpe2fs -h value
	"$REF_DUMPE2FS" -h "$1" 2>/dev/null | sed -n "s/^$2: *//p"
}

mkfs() {	# mkfs IMG [FEATURES]
	"$REF_MKE2FS" -q -F -t ext4 -b 1024 ${2:+-O "$2"} -U 6b33f586-a183-4d18-a7e6-4c5ad1b8e9f1 \
		-E root_owner=0:0 "$1" 8M >/dev/null 2>&1 || fail "mke2fs failed"
}

head -c 102400 /dev/zero | tr '\0' f >"$T/file"

# ---- counts after a replay with -f ----
a=$T/a.img
mkfs "$a"
cp "$a" "$T/b.img"
"$REF_DEBUGFS" -w -R "write $T/file f" "$T/b.img" >/dev/null 2>&1 || fail "debugfs write failed"
# one transaction with every changed block of b but the superblock (1)
"$PYTHON" - "$a" "$T/b.img" "$T" >"$T/jcmds" <<'PY' || fail "cannot build the transaction"
import sys
a, b, d = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read(), sys.argv[3]
print('jo')
for n in range(len(a) // 1024):
    blk = b[n * 1024:(n + 1) * 1024]
    if n != 1 and a[n * 1024:(n + 1) * 1024] != blk:
        open('%s/blk%d' % (d, n), 'wb').write(blk)
        print('jw -b %d %s/blk%d' % (n, d, n))
print('jc')
PY
"$REF_DEBUGFS" -w -f "$T/jcmds" "$a" >/dev/null 2>&1 || fail "debugfs jw failed"
want_b=$(field "$T/b.img" "Free blocks") want_i=$(field "$T/b.img" "Free inodes")
[ "$(field "$a" "Free blocks")" != "$want_b" ] || fail "test premise: free counts already agree"
cp "$a" "$T/a_y.img"
run counts_fy "$a" 1 -fy
grep -q "recovering journal" "$T/counts_fy.out" || fail "-fy: no replay"
grep -q "^The superblock's free blocks count is .*; counted $want_b\.$" "$T/counts_fy.out" ||
	fail "-fy: pass 5 did not say the free blocks count: $(cat "$T/counts_fy.out")"
[ "$(field "$a" "Free blocks")/$(field "$a" "Free inodes")" = "$want_b/$want_i" ] ||
	fail "-fy: free counts $(field "$a" "Free blocks")/$(field "$a" "Free inodes") after the replay, descriptors say $want_b/$want_i"
run counts_y "$T/a_y.img" 0 -y
[ "$(field "$T/a_y.img" "Free blocks")/$(field "$T/a_y.img" "Free inodes")" = "$want_b/$want_i" ] ||
	fail "-y: free counts not recomputed after the replay"

# ---- the journal's own errno ----
e=$T/errno.img
mkfs "$e" ^metadata_csum
printf 'jo\njw -b 300 %s\njc\n' "$T/file" >"$T/cmds"
"$REF_DEBUGFS" -w -f "$T/cmds" "$e" >/dev/null 2>&1 || fail "debugfs jw failed"
jsb=$(($("$REF_DEBUGFS" -c -R "bmap <8> 0" "$e" 2>/dev/null | tail -1) * 1024))
# s_errno (journal superblock offset 0x20, big-endian) = -EIO; this
# journal has no superblock checksum
"$PYTHON" -c "
import sys
f = open(sys.argv[1], 'r+b'); f.seek(int(sys.argv[2]) + 0x20); f.write((-5 & 0xffffffff).to_bytes(4, 'big'))" "$e" "$jsb"
run errno_y "$e" 4 -y
grep -q "recovering journal" "$T/errno_y.out" || fail "s_errno -5: no replay (test premise)"
grep -q "The journal recorded an error (errno 5)" "$T/errno_y.out" ||
	fail "s_errno -5: not reported as errno 5: $(cat "$T/errno_y.out")"

# ---- a failed commit is no error the journal recorded ----
c=$T/commit.img
mkfs "$c"
printf 'jo -c\njw -b 300 %s\njc\njo\njw -b 301 %s\njc\n' "$T/file" "$T/file" >"$T/cmds"
"$REF_DEBUGFS" -w -f "$T/cmds" "$c" >/dev/null 2>&1 || fail "debugfs jw failed"
cblk=$("$REF_DEBUGFS" -c -R logdump "$c" 2>/dev/null |
	sed -n 's/^Found expected sequence [0-9]*, type 2 (commit block) at block \([0-9]*\).*/\1/p' | head -1)
[ -n "$cblk" ] || fail "no commit block in the log"
off=$(($("$REF_DEBUGFS" -c -R "bmap <8> $cblk" "$c" 2>/dev/null | tail -1) * 1024 + 16))
"$PYTHON" -c "
import sys
f = open(sys.argv[1], 'r+b'); o = int(sys.argv[2]); f.seek(o); b = f.read(4)
f.seek(o); f.write(bytes(x ^ 0xff for x in b))" "$c" "$off"
run commit_y "$c" 4 -y
grep -q "recovering journal" "$T/commit_y.out" || fail "failed commit: no replay (test premise)"
grep -q "was corrupt; replay stopped before it" "$T/commit_y.out" ||
	fail "failed commit: not reported: $(cat "$T/commit_y.out")"
grep -q "recorded an error" "$T/commit_y.out" &&
	fail "failed commit: reported as an error the journal recorded: $(cat "$T/commit_y.out")"
[ "$(field "$c" "Filesystem state")" = "clean with errors" ] ||
	fail "failed commit: the filesystem is not marked with errors ($(field "$c" "Filesystem state"))"

# ---- an external journal that was not given ----
x=$T/ext.img
mkfs "$x" ^has_journal
printf 'feature has_journal\nssv journal_uuid 0f0e0d0c-0b0a-0908-0706-050403020100\n' >"$T/cmds"
"$REF_DEBUGFS" -w -f "$T/cmds" "$x" >/dev/null 2>&1 || fail "debugfs failed"
run ext_p "$x" 12 -p
grep -q -- "-j external_journal" "$T/ext_p.out" ||
	fail "missing external journal: no hint at -j: $(cat "$T/ext_p.out" "$T/ext_p.err")"

info "free counts after -f replay, the journal's errno, the -j hint ($(elapsed)s)"
exit 0
