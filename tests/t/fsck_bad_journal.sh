#!/bin/bash
# fsck_bad_journal: e4fsck on damaged journals (acceptance 4 of the e4fsck
# issue).  Each case is made here from a small image whose journal holds
# two transactions written by the reference debugfs (jo/jw/jc: six zeroed
# blocks, then a revoke of one of them), then damaged with a few bytes:
#
#  case          damage                                   -n   -y   -p
#  sb_magic      journal superblock magic zeroed           4    4    4
#                (needs_recovery is set: -y leaves the journal, -p stops;
#                resetting it would discard committed transactions)
#  sb_csum       v3 journal superblock checksum flipped    4    1    1
#                (the checksum is rewritten and the log replayed)
#  ino_outside   journal inode's first extent points past  4    4    4
#                the end of the filesystem (needs_recovery set: as sb_magic)
#  many_tags     descriptor filled with tags and no        0    0    0
#                LAST_TAG (as many as the block holds --
#                jbd2 has no tag count, so "10^6 tags" is a
#                descriptor whose tags never end); its
#                transaction has no commit where the tags
#                say, so nothing is replayed
#  rcount        revoke block r_count 0x7fffffff (past     0    4    4
#                the block end): recovery fails, the fs is
#                left marked for a full check, which e4fsck
#                cannot run yet (exit 4, also with -E
#                journal_only, where the reference exits 0)
#  tid_cycle     every log block a commit, tids running    0    0    0
#                through 2^32 -> 0; the scan wraps the log
#                once and stops at the first repeated block
#
# For each: the documented exit status, a message naming the problem,
# no crash, sanitizer report or hang, and with -n the image unchanged
# (sha256).  After a -y that exits 0 or 1 the reference e2fsck -fn finds
# the result clean (ref_clean) and the kernel mounts it; after a -y that
# keeps a damaged journal for the full check (exit 4) the reference -fn
# exits no higher on the result than on the input.
# Catches: a journal reset that leaves needs_recovery set.  Checked: with
# reset_journal's clearing of it removed (fsck/pass0_journal.c), the old
# exit-code check passed (the reference -fn exits 0 but warns that it
# skips recovery); ref_clean fails "sb_magic -y: reference -fn not clean".

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_E2FSCK" "$REF_DEBUGFS" "$REF_MKE2FS" "$PYTHON"
[ -x "$E4FSCK" ] || fail "e4fsck not found: $E4FSCK"
export E2FSCK_CONFIG=/dev/null TZ=UTC E2FSCK_TIME=2000000000

# base IMG MKFS_FEATURES JO_OPTS: 8 MiB, 1 KiB blocks, two transactions.
base() {
	"$REF_MKE2FS" -q -F -t ext4 -b 1024 -O "$2" -E root_owner=0:0 \
		-U 6b33f586-a183-4d18-a7e6-4c5ad1b8e9f1 "$1" 8M >/dev/null 2>&1 ||
		fail "mke2fs -O $2 failed"
	printf 'jo %s\njw -b 300-305 /dev/zero\njc\njo\njw -r 302\njc\n' "$3" >"$T/cmds"
	"$REF_DEBUGFS" -w -f "$T/cmds" "$1" >/dev/null 2>&1 || fail "debugfs jw failed"
}

# jpos IMG JBLK: byte offset of journal block JBLK.
jpos() {
	local p
	p=$("$REF_DEBUGFS" -c -R "bmap <8> $2" "$1" 2>/dev/null | tail -1)
	[ -n "$p" ] || fail "cannot map journal block $2"
	echo $((p * 1024))
}

cat >"$T/poke.py" <<'PY'
import struct, sys
img, kind, off = sys.argv[1], sys.argv[2], int(sys.argv[3])
f = open(img, 'r+b')
def put(o, b):
    f.seek(o); f.write(b)
if kind == 'zero4':
    put(off, b'\0' * 4)
elif kind == 'flip4':
    f.seek(off); b = f.read(4); put(off, bytes(x ^ 0xA5 for x in b))
elif kind == 'tags':
    # 64bit tags without checksums: blocknr, csum(16), flags(16), blocknr_hi;
    # SAME_UUID (2) on each, LAST_TAG (8) on none
    tag = struct.pack('>IHHI', 0x00123456, 0, 2, 0)
    put(off + 12, tag * ((1024 - 12) // 12))
elif kind == 'rcount':
    put(off + 12, struct.pack('>I', 0x7fffffff))
elif kind == 'cycle':
    # sys.argv[4:]: offsets of every log block 1..maxlen-1, in order;
    # tids from 0xfffffff0 on, wrapping through 0
    offs = [int(x) for x in open(sys.argv[4]).read().split()]
    for i, o in enumerate(offs):
        put(o, struct.pack('>III', 0xC03B3998, 2, (0xfffffff0 + i) & 0xffffffff) + b'\0' * 1012)
    # journal superblock: s_sequence (0x18) = first tid, s_start (0x1C) = 1
    put(off + 0x18, struct.pack('>II', 0xfffffff0, 1))
PY

make_case() {	# make_case NAME -> $T/NAME.img
	local name=$1 img=$T/$1.img
	case $name in
	sb_magic)
		base "$img" ^metadata_csum ""
		"$PYTHON" "$T/poke.py" "$img" zero4 "$(jpos "$img" 0)" ;;
	sb_csum)
		base "$img" metadata_csum "-c"
		"$PYTHON" "$T/poke.py" "$img" flip4 $(($(jpos "$img" 0) + 0xFC)) ;;
	ino_outside)
		base "$img" ^metadata_csum ""
		# i_block[5]: ee_start_lo of the first extent
		"$REF_DEBUGFS" -w -R "sif <8> block[5] 3000000" "$img" >/dev/null 2>&1 ;;
	many_tags)
		base "$img" ^metadata_csum ""
		"$PYTHON" "$T/poke.py" "$img" tags "$(jpos "$img" 1)" ;;
	rcount)
		base "$img" ^metadata_csum ""
		"$PYTHON" "$T/poke.py" "$img" rcount "$(jpos "$img" 9)" ;;
	tid_cycle)
		base "$img" ^metadata_csum ""
		"$REF_DEBUGFS" -c -R "bmap -a <8> 0" "$img" >/dev/null 2>&1
		# map journal blocks 1..1023 (extents from stat) to offsets
		"$REF_DEBUGFS" -c -R "stat <8>" "$img" 2>/dev/null | "$PYTHON" -c '
import re, sys
m = {}
for a, b, c, d in re.findall(r"\((\d+)(?:-(\d+))?\):(\d+)(?:-(\d+))?", sys.stdin.read()):
    a = int(a); b = int(b or a); c = int(c)
    for k in range(a, b + 1): m[k] = (c + k - a) * 1024
print(" ".join(str(m[k]) for k in range(1, max(m) + 1)))' >"$T/offs"
		"$PYTHON" "$T/poke.py" "$img" cycle "$(jpos "$img" 0)" "$T/offs" ;;
	esac
}

declare -A EXPECT=(
	[sb_magic]="4 4 4" [sb_csum]="4 1 1" [ino_outside]="4 4 4"
	[many_tags]="0 0 0" [rcount]="0 4 4" [tid_cycle]="0 0 0"
)
declare -A MSG=(
	[sb_magic]="journal superblock is corrupt" [sb_csum]="journal superblock fails its checksum"
	[ino_outside]="invalid journal" [many_tags]="recovering journal"
	[rcount]="Journal recovery of .* failed" [tid_cycle]="recovering journal"
)

for name in sb_magic sb_csum ino_outside many_tags rcount tid_cycle; do
	make_case "$name"
	read -r en ey ep <<<"${EXPECT[$name]}"
	for mode in n y p; do
		cp --sparse=always "$T/$name.img" "$T/$name.$mode"
		before=$(sha256sum <"$T/$name.$mode")
		runcap "$T/$name.$mode" 30 "$E4FSCK" -$mode "$T/$name.$mode"
		rc=$(cat "$T/$name.$mode.rc")
		san_report "$T/$name.$mode.err" &&
			fail "$name -$mode: sanitizer report: $(head -5 "$T/$name.$mode.err")"
		want=$en
		[ $mode = y ] && want=$ey
		[ $mode = p ] && want=$ep
		[ "$rc" = "$want" ] || {
			cat "$T/$name.$mode.out" "$T/$name.$mode.err" >&2
			fail "$name -$mode: $(describe_rc "$rc"), expected exit $want"
		}
		if [ $mode = n ]; then
			[ "$(sha256sum <"$T/$name.$mode")" = "$before" ] || fail "$name -n: the image changed"
			if [ "$want" != 0 ]; then
				grep -qi "${MSG[$name]}" "$T/$name.$mode.out" ||
					fail "$name -n: no message matching '${MSG[$name]}': $(cat "$T/$name.$mode.out")"
			else
				grep -q "skipping journal recovery" "$T/$name.$mode.out" ||
					fail "$name -n: no 'skipping journal recovery' warning"
			fi
		else
			grep -qi "${MSG[$name]}" "$T/$name.$mode.out" ||
				fail "$name -$mode: no message matching '${MSG[$name]}': $(cat "$T/$name.$mode.out")"
		fi
		[ "$rc" -gt 1 ] || fsck_result_mounts "$T/$name.$mode" "$name -$mode"
		if [ $mode = y ] && [ "$rc" -gt 1 ]; then
			# a journal kept for the full check (exit 4: it may hold
			# what needs_recovery promises): the result is no worse
			# for the reference than the input was
			"$REF_E2FSCK" -fn "$T/$name.img" >/dev/null 2>&1
			rin=$?
			"$REF_E2FSCK" -fn "$T/$name.$mode" >"$T/$name.fn" 2>&1
			rout=$?
			[ $rout -le $rin ] || fail "$name -y: the reference -fn exits $rout on the result, $rin on the input: $(head -5 "$T/$name.fn")"
		elif [ $mode = y ] && [ "$rc" -le 1 ]; then
			ref_clean "$T/$name.$mode" ||
				fail "$name -y: reference -fn not clean: $(head -20 <<<"$REF_CLEAN_OUT")"
		fi
		verbose "$name -$mode: exit $rc: $(grep -v '^$' "$T/$name.$mode.out" | head -2 | tr '\n' ' ')"
	done
	rm -f "$T/$name".*
done
info "6 damaged journals x (-n, -y, -p): documented exit codes, nothing written with -n ($(elapsed)s)"
exit 0
