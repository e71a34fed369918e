#!/bin/bash
# fsck_journal_corpus: `e4fsck -y -E journal_only` against the reference
# `e2fsck -y -E journal_only`, whole images compared byte for byte, on
# every `journal` row of the corpus manifest (except j_recover_fast_commit:
# fast-commit replay is a later issue, and j_ext_dumpe2fs: no filesystem)
# and on cases built here with the reference debugfs journal writer (see
# "built cases" below).  Each tool works on its own copy of the image (and
# of the external journal, with -j, where the row needs one); both see the
# same clock (E2FSCK_TIME).
#
# Per row:
#  - the same exit status, no sanitizer report;
#  - the same bytes everywhere (and in the external journal), except these
#    primary superblock fields, which the reference sets from its clock or
#    its I/O counters: s_wtime, s_wtime_hi (e4fsck leaves them), and
#    s_kbytes_written; and s_checksum, which follows them;
#  - where the reference's result is clean (ref_clean), e4fsck's is too;
#  - the kernel mounts e4fsck's result read-only (kernel_mounts), on
#    internal-journal rows (an external journal needs its device).
#
# Known, deliberate differences (each row below says which it has):
#  passes j_corrupt_ext_jnl_sb_csum, j_corrupt_sb_csum, j_corrupt_sb_magic:
#        a journal (super)block problem the reference fixes makes it run
#        passes 1-5 although -E journal_only was given; e4fsck stops after
#        the journal as asked.  Where the images are compared, the
#        reference's e2fsck -fy is run on e4fsck's result too (same clock)
#        first.  The reference must run its passes on exactly these rows
#        and the rmj ones.
#  csum  j_corrupt_sb_csum: only the journal superblock's checksum is
#        wrong.  The reference discards the log (a fresh superblock with a
#        random s_sequence); e4fsck rewrites the checksum and replays the
#        two committed transactions (-y never discards what can be
#        recovered; the log's own checksums guard the replay).  Exit status
#        and journal state (needs_recovery, start, errno) compared; the
#        images differ by the replayed transactions.
#  keep  j_corrupt_sb_magic: the journal superblock's magic is wrong while
#        needs_recovery is set.  The reference resets the journal (exit 1);
#        e4fsck -y leaves the journal as it is (resetting would discard
#        committed transactions; only a human's yes does): exit 4, and the
#        image must be unchanged byte for byte.
#  x4    e4fsck exits 4 where the reference exits 0: the replayed blocks
#        leave damage only the full check can repair, and e4fsck says so.
#        Images compared byte for byte as on every row.  Plain x4 rows
#        (j_short_trans, _64bit, _mcsum_64bit, j_recover_csum2_64bit,
#        j_ext_long_trans, j_corrupt_ext_jnl_sb_csum): the transactions
#        write over block bitmaps (zeros, or blocks failing their
#        checksums), so blocks in use are marked free; the test checks that
#        the reference's own -fn finds its result not clean.
#  stop  (x4 too) j_corrupt_descr_csum, j_corrupt_journal_block,
#        j_corrupt_revoke_rcount: the replay stops at or skips a corrupt
#        block (a checksum error, a bad revoke count), so committed data
#        may be missing; e4fsck marks the filesystem for the full check.
#  rmj   j_long_trans_mcsum_{32,64}bit: the replayed transaction zeroes the
#        inode table, so the journal inode itself becomes invalid.  The
#        reference then runs passes 1-5 and rebuilds root, lost+found and a
#        new journal (exit 1); e4fsck stops after the journal as asked: it
#        removes the invalid journal (has_journal cleared) and leaves the
#        rest to the full check, exit 4 (the kernel refuses the result: 0
#        or 1 would be a false claim).  The images are not compared.
# Free totals: where e4fsck exits 0 or 1, its superblock's free blocks and
# inodes must be the sums of the groups' (the reference leaves stale ones
# after a replay: j_recover_csum3_64bit), and those two fields are not
# compared byte for byte; where it exits 4 they are.
#
# Built cases (fixed content, made by the reference debugfs: jo/jw/jc):
# revoke_full_{nocsum,csum3}: a 1 KiB-block filesystem without 64bit, a
# file "victim" of known lines; transaction 1 writes stale bytes over the
# victim's first two blocks B and B+1; transaction 2 revokes blocks
# B-251..B (no checksums: 252 four-byte records, r_count 1024, the block
# filled to its last byte) or B-250..B (csum v3: 251 records, r_count 1020,
# up to the checksum tail).  The last record of that full revoke block is
# the only one that matters: a replay that drops it writes the stale bytes
# over B (B+1 is replayed by both).  Checked: the journal's copy of B
# differs from the victim's block, and the reference's result keeps it.
#
# Bugs it catches, each planted once in lib/e4/recovery.c (issue 19):
#  - a replay that ignores revoke records (replay_tags: the revoke table
#    never consulted): fails on every corpus row whose revoke records the
#    reference uses -- j_short_revoke_trans and _mcsum_64bit (bitmaps
#    zeroed: e4fsck's result is not clean), j_long_revoke_trans, _mcsum_32bit
#    and _mcsum_64bit (exit 1, reference 0), j_ext_long_revoke_trans (inode
#    table blocks differ) -- and on both built cases (block B differs).
#    (j_corrupt_revoke_block and j_corrupt_revoke_rcount have revoke blocks
#    the reference does not use either.)  The field-and-rdump comparison
#    this test made before missed it on two rows.
#  - a revoke scan that drops the last record of a revoke block
#    (scan_revoke_records looping while off + rlen < rcount), and one that
#    drops it only when the block is filled to its usable end (looping
#    while off + rlen < block size - tail): both built cases fail (block B
#    differs), every corpus row passes.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_E2FSCK" "$REF_DEBUGFS" "$REF_DUMPE2FS" "$REF_MKE2FS" "$PYTHON"
C=$E4KIT_SHARED/corpus
[ -f "$C/manifest.tsv" ] || skip "no corpus at $C"
export E2FSCK_CONFIG=/dev/null TZ=UTC E2FSCK_TIME=2000000000
IMGCMP=$E4_TESTDIR/imgcmp.py
SB_CLOCK=s_wtime,s_wtime_hi,s_kbytes_written,s_checksum
# e4fsck sets the superblock's free totals to the sums of the descriptors
# after a replay (as the kernel does at mount); the reference leaves the
# values it found (j_recover_csum3_64bit: 3 inodes and 3 blocks off).  These
# are compared by that rule (sb_totals_ok), not byte for byte.
SB_COUNTS=s_free_blocks_count_lo,s_free_blocks_count_hi,s_free_inodes_count

# sb_totals_ok IMG: the superblock's free blocks/inodes are the sums of the
# groups' (dumpe2fs), or the image has no readable descriptors
sb_totals_ok() {
	"$REF_DUMPE2FS" "$1" 2>/dev/null | awk '
		/^Free blocks:/ { fb = $3 } /^Free inodes:/ { fi = $3 }
		/ free blocks, .* free inodes, / { g++; sb += $1; si += $4 }
		END { exit !(g == 0 || (fb == sb && fi == si)) }'
}

declare -A KNOWN=(
	[j_corrupt_ext_jnl_sb_csum]="passes x4"
	[j_corrupt_sb_csum]="passes csum" [j_corrupt_sb_magic]="passes keep"
	[j_long_trans_mcsum_32bit]=rmj [j_long_trans_mcsum_64bit]=rmj
	[j_corrupt_descr_csum]="x4 stop" [j_corrupt_journal_block]="x4 stop"
	[j_corrupt_revoke_rcount]="x4 stop"
	[j_short_trans]=x4 [j_short_trans_64bit]=x4 [j_short_trans_mcsum_64bit]=x4
	[j_recover_csum2_64bit]=x4 [j_ext_long_trans]=x4
)
has() { [[ " ${KNOWN[$1]:-} " == *" $2 "* ]]; }

state() {	# state IMG [JNL]: needs_recovery, journal start and errno
	"$REF_DUMPE2FS" -h "$1" 2>/dev/null | grep -o needs_recovery | head -1
	"$REF_DUMPE2FS" -h "${2:-$1}" 2>/dev/null | grep -E '^Journal (start|errno):'
}

# Work on a tmpfs (fsync is free there); unpacked images are cached,
# sparse, in the build directory (tests/lib.sh corpus_unpack: the big rows
# are 256-512 MiB of mostly zeros: unpacking them is most of this test's
# time the first time).
tmp_on_tmpfs 2g

rows=0 pass=0 mounted=0 bad=() full_seen=()
# row NAME IMG [JNL]: one comparison; appends to bad on failure
row() {
	local name=$1 src=$2 jsrc=${3:-} W=$TFS/$1 rr ro why="" jr=() jo=()
	rows=$((rows + 1))
	mkdir -p "$W"
	cp --sparse=always "$src" "$W/ref.img"
	cp --sparse=always "$src" "$W/our.img"
	if [ -n "$jsrc" ]; then
		cp --sparse=always "$jsrc" "$W/ref.jnl"
		cp --sparse=always "$jsrc" "$W/our.jnl"
		jr=(-j "$W/ref.jnl") jo=(-j "$W/our.jnl")
	fi
	runcap "$W/ref" 60 "$REF_E2FSCK" -y -E journal_only "${jr[@]}" "$W/ref.img"
	runcap "$W/our" 60 "$E4FSCK" -y -E journal_only "${jo[@]}" "$W/our.img"
	rr=$(cat "$W/ref.rc") ro=$(cat "$W/our.rc")
	grep -q '^Pass 1: ' "$W/ref.out" && full_seen+=("$name")
	if san_report "$W/our.err"; then
		why="sanitizer report"
	elif [ "$ro" -ge 124 ]; then
		why="e4fsck $(describe_rc "$ro")"
	elif has "$name" x4 || has "$name" keep || has "$name" rmj; then
		[ "$ro" = 4 ] || why="exit $ro, expected 4 (known difference ${KNOWN[$name]})"
	elif [ "$rr" != "$ro" ]; then
		why="exit $ro, reference $rr"
	fi
	if [ -n "$why" ]; then
		:
	elif has "$name" keep; then
		cmp -s "$src" "$W/our.img" || why="-y changed the image it had to leave alone"
	elif has "$name" csum; then
		state "$W/ref.img" >"$W/ref.st"
		state "$W/our.img" >"$W/our.st"
		cmp -s "$W/ref.st" "$W/our.st" ||
			why="journal state: $(tr '\n' ' ' <"$W/our.st")/ reference $(tr '\n' ' ' <"$W/ref.st")"
	elif has "$name" rmj; then
		# e4fsck removed the invalid journal instead of rebuilding it
		! grep -q 'features:.*has_journal' <<<"$("$REF_DUMPE2FS" -h "$W/our.img" 2>/dev/null)" ||
			why="the invalid journal was not removed"
	else
		if [ "$ro" -le 1 ] && [ -z "$jsrc" ]; then
			if ! kernel_mounts "$W/our.img"; then
				why="the kernel refuses e4fsck's result: $KMOUNT_OUT"
			elif [ -z "$KMOUNT_NA" ]; then
				mounted=$((mounted + 1))
			fi
		fi
		if [ -z "$why" ] && ref_clean "$W/ref.img" && ! has "$name" passes &&
			! ref_clean "$W/our.img"; then
			why="the reference's result is clean, e4fsck's is not: $(grep -vE '^e2fsck [0-9]|^Pass [1-5]: ' <<<"$REF_CLEAN_OUT" | head -3 | tr '\n' '|')"
		fi
		if [ -z "$why" ] && has "$name" x4 && ! has "$name" stop && ref_clean "$W/ref.img"; then
			why="exit 4, but the reference's result is clean"
		fi
		if [ -z "$why" ] && has "$name" passes; then
			"$REF_E2FSCK" -fy "${jo[@]}" "$W/our.img" >"$W/our.fy" 2>&1 </dev/null
		fi
		# a clean claim (exit 0 or 1) comes with the totals the groups
		# give; with errors left (exit 4) e4fsck leaves them as the
		# reference does, and they are compared byte for byte
		local sbskip=$SB_CLOCK
		if [ -z "$why" ] && [ "$ro" -le 1 ]; then
			sb_totals_ok "$W/our.img" || why="superblock free totals are not the groups' sums"
			sbskip=$SB_CLOCK,$SB_COUNTS
		fi
		if [ -z "$why" ]; then
			"$PYTHON" "$IMGCMP" "$W/ref.img" "$W/our.img" --sb-skip "$sbskip" >"$W/cmp" 2>&1 ||
				why="images differ: $(head -5 "$W/cmp" | tr '\n' ' ')"
		fi
		if [ -z "$why" ] && [ -n "$jsrc" ]; then
			"$PYTHON" "$IMGCMP" "$W/ref.jnl" "$W/our.jnl" --sb-skip "$SB_CLOCK" >"$W/cmp" 2>&1 ||
				why="external journals differ: $(head -5 "$W/cmp" | tr '\n' ' ')"
		fi
	fi
	if [ -n "$why" ]; then
		bad+=("$name: $why")
		echo "--- $name: e4fsck output:" >&2
		head -20 "$W/our.out" "$W/our.err" >&2
	else
		pass=$((pass + 1))
		verbose "$name: ok (exit $ro${KNOWN[$name]:+, known difference: ${KNOWN[$name]}})"
	fi
	rm -rf "$W"
}

while IFS='|' read -r name file needs; do
	[ "$needs" = - ] && needs=""
	case $name in j_recover_fast_commit | j_ext_dumpe2fs) continue ;; esac
	src=$(corpus_unpack "$file") || fail "$name: cannot unpack $file"
	jsrc=""
	if [ -n "$needs" ]; then
		jsrc=$(corpus_unpack "${needs#jnl=}") || fail "$name: cannot unpack $needs"
	fi
	row "$name" "$src" "$jsrc"
done < <(awk -F'\t' '$2 == "journal" { print $1 "|" $3 "|" ($7 == "" ? "-" : $7) }' "$C/manifest.tsv")
[ "$rows" -ge 24 ] || fail "expected at least 24 journal rows, found $rows"
corpus_rows=$rows

# ---- built cases: the last record of a full revoke block -------------------
# revoke_case NAME MKFS_FEATURES JO_OPTS N TAIL: see the header; N
# records of 4 bytes, TAIL bytes of checksum tail
revoke_case() {
	local name=$1 img=$TFS/$1.img b jb pb
	"$REF_MKE2FS" -q -F -t ext4 -b 1024 -O "$2" "$img" 8M >/dev/null 2>&1 ||
		fail "$name: mke2fs failed"
	"$REF_DEBUGFS" -w -R "write $T/victim victim" "$img" >/dev/null 2>&1
	b=$("$REF_DEBUGFS" -c -R "bmap victim 0" "$img" 2>/dev/null | tail -1)
	[ "$("$REF_DEBUGFS" -c -R "bmap victim 1" "$img" 2>/dev/null | tail -1)" = $((b + 1)) ] ||
		fail "$name: the victim's first two blocks are not contiguous"
	cat >"$T/$name.cmds" <<EOF
jo $3
jw -b $b,$((b + 1)) $T/stale
jc
jo
jw -r $((b - $4 + 1))-$b /dev/null
jc
EOF
	"$REF_DEBUGFS" -w -f "$T/$name.cmds" "$img" >/dev/null 2>&1 || fail "$name: debugfs failed"
	grepq needs_recovery <<<"$("$REF_DUMPE2FS" -h "$img" 2>/dev/null)" ||
		fail "$name: no journal to replay"
	# one revoke block, with exactly N records, B last, filled to its
	# usable end (the block size minus the checksum tail)
	jb=$("$REF_DEBUGFS" -c -R logdump "$img" 2>/dev/null |
		sed -n 's/.*type 5 (revoke table) at block \([0-9]*\).*/\1/p')
	[ "$(wc -w <<<"$jb")" = 1 ] || fail "$name: revoke blocks at '$jb', expected one"
	pb=$("$REF_DEBUGFS" -c -R "bmap <8> $jb" "$img" 2>/dev/null | tail -1)
	"$PYTHON" - "$img" "$pb" "$b" "$4" "$5" <<'PY' ||
import struct, sys
img, pb, b, n, tail = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
with open(img, 'rb') as f:
    f.seek(pb * 1024)
    blk = f.read(1024)
magic, btype, _, rcount = struct.unpack('>IIII', blk[:16])
ok = magic == 0xC03B3998 and btype == 5 and rcount == 1024 - tail
recs = struct.unpack('>%dI' % ((rcount - 16) // 4), blk[16:rcount]) if ok else ()
sys.exit(0 if ok and len(recs) == n and recs[-1] == b else 1)
PY
		fail "$name: journal block $jb is not a revoke block of $4 records filled to its end, ending with $b"
	# the revoke matters: the journal's copy of B is not B
	cmp -s <(dd if="$img" bs=1024 skip="$b" count=1 status=none) <(head -c 1024 "$T/stale") &&
		fail "$name: block $b already holds the stale bytes"
	row "$name" "$img"
	# and the reference kept the victim (the oracle is right)
	cp --sparse=always "$img" "$T/check.img"
	"$REF_E2FSCK" -y -E journal_only "$T/check.img" >/dev/null 2>&1
	cmp -s <("$REF_DEBUGFS" -c -R "cat victim" "$T/check.img" 2>/dev/null | head -c 1024) \
		<(head -c 1024 "$T/victim") ||
		fail "$name: the reference's replay did not keep the revoked block"
	rm -f "$img" "$T/check.img"
}
"$PYTHON" -c "import sys; sys.stdout.write(''.join('victim line %04d\n' % i for i in range(512)))" >"$T/victim"
head -c 2048 /dev/zero | tr '\0' S >"$T/stale"
revoke_case revoke_full_nocsum ^64bit,^metadata_csum "" 252 0
revoke_case revoke_full_csum3 ^64bit "-c" 251 4

info "$pass/$rows rows agree with the reference ($corpus_rows corpus journal rows, $((rows - corpus_rows)) built; ${#KNOWN[@]} with a documented difference); the kernel mounted $mounted results; $(elapsed)s"
want_full=$(for n in "${!KNOWN[@]}"; do has "$n" passes || has "$n" rmj && echo "$n"; done | sort | tr '\n' ' ')
got_full=$(printf '%s\n' "${full_seen[@]+"${full_seen[@]}"}" | sort | tr '\n' ' ')
[ "$want_full" = "${got_full# }" ] ||
	bad+=("the reference ran passes 1-5 on: ${got_full:-none}; expected on: $want_full")
for b in "${bad[@]+"${bad[@]}"}"; do echo "FAIL: $TEST_NAME: $b" >&2; done
[ ${#bad[@]} -eq 0 ] || exit 1
exit 0
