#!/bin/bash
# fsck_journal_corpus: `e4fsck -y -E journal_only` against the reference
# `e2fsck -y -E journal_only` on every `journal` row of the corpus manifest
# (except j_recover_fast_commit: fast-commit replay is a later issue, and
# j_ext_dumpe2fs: no filesystem), each tool on its own copy of the image
# (and of the external journal, with -j, where the row needs one).
#
# Per row: the same exit status (but the known differences below); the
# same journal state afterwards
# (needs_recovery in the fs, and "Journal start", "Journal sequence",
# "Journal errno" from dumpe2fs -h of the fs or of the external journal);
# the same files (`debugfs -c -R 'rdump / D'` of both, listed with type,
# mode, size and sha256); when e4fsck exits 0 or 1, the kernel mounts its
# result (rows with an external journal excepted: the kernel would need
# the journal device).
#
# Known, deliberate differences (each row below says which it has):
#  csum  j_corrupt_sb_csum: only the journal superblock's checksum is
#        wrong.  The reference discards the log (a fresh superblock with a
#        random s_sequence); e4fsck rewrites the checksum and replays the
#        two committed transactions (-y never discards what can be
#        recovered; the log's own checksums guard the replay).  Exit
#        status and journal state (but the sequence) compared; files not.
#  keep  j_corrupt_sb_magic: the journal superblock's magic is wrong while
#        needs_recovery is set.  The reference resets the journal (exit 1);
#        e4fsck -y leaves the journal as it is (resetting would discard
#        committed transactions; only a human's yes does): exit 4, and the
#        image must be unchanged byte for byte.
#  rmj   j_long_trans_mcsum_{32,64}bit: the replayed transaction zeroes
#        the inode table, so the journal inode itself becomes invalid.
#        The reference then runs passes 1-5 although -E journal_only was
#        given (a problem it fixed disables the skip) and rebuilds root,
#        lost+found and a new journal (exit 1); e4fsck stops after the
#        journal as asked: it removes the invalid journal (has_journal
#        cleared) and leaves the rest to the full check, exit 4 (the
#        kernel refuses the result: its root inode is gone, so 0 or 1
#        would be a false claim).  Journal state and files not compared
#        (passes 1-5 are a later issue).
#  full  j_corrupt_descr_csum, j_corrupt_journal_block,
#        j_corrupt_revoke_rcount: the replay fails or skips a block (a
#        checksum error, a corrupt revoke block) and the filesystem is
#        marked for a full check.  The reference exits 0 with -E
#        journal_only; e4fsck exits 4: damage it found and cannot repair
#        without the full check is left.  Journal state and files
#        compared as for every row.
#  bmap  j_short_trans, j_short_trans_64bit, j_short_trans_mcsum_64bit,
#        j_recover_csum2_64bit, j_ext_long_trans, j_corrupt_ext_jnl_sb_csum:
#        the replayed transactions write over block bitmaps (zeros, or
#        blocks that fail their checksums), so blocks in use are marked
#        free.  The reference exits 0 with -E journal_only, but its own -fn
#        on its own result is not clean ("+" bitmap differences: the
#        kernel would allocate live blocks); e4fsck cannot recount from
#        such bitmaps without the full check and exits 4.  The test checks
#        that the reference's result is indeed not clean; journal state
#        and files compared as for every row.
# Catches: a replay that leaves needs_recovery set, or a wrong "Journal
# start" after it (the journal state differs from the reference's).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_E2FSCK" "$REF_DEBUGFS" "$REF_DUMPE2FS"
[ -x "$E4FSCK" ] || fail "e4fsck not found: $E4FSCK"
C=$E4KIT_SHARED/corpus
[ -f "$C/manifest.tsv" ] || skip "no corpus at $C"
export E2FSCK_CONFIG=/dev/null TZ=UTC

declare -A KNOWN=(
	[j_corrupt_sb_csum]=csum [j_corrupt_sb_magic]=keep
	[j_long_trans_mcsum_32bit]=rmj [j_long_trans_mcsum_64bit]=rmj
	[j_corrupt_descr_csum]=full [j_corrupt_journal_block]=full
	[j_corrupt_revoke_rcount]=full
	[j_short_trans]=bmap [j_short_trans_64bit]=bmap [j_short_trans_mcsum_64bit]=bmap
	[j_recover_csum2_64bit]=bmap [j_ext_long_trans]=bmap [j_corrupt_ext_jnl_sb_csum]=bmap
)

state() {	# state IMG [JNL]
	"$REF_DUMPE2FS" -h "$1" 2>/dev/null | grep -o needs_recovery | head -1
	"$REF_DUMPE2FS" -h "${2:-$1}" 2>/dev/null |
		grep -E '^Journal (start|sequence|errno):' |
		if [ "${3:-}" = csum ]; then grep -v sequence; else cat; fi
}

listing() {	# listing DIR
	(cd "$1" && find . -mindepth 1 -printf '%P %y %m %s\n' | sort &&
		find . -type f -print0 | sort -z | xargs -0 -r sha256sum)
}

# Work on a tmpfs (fsync is free there); unpacked images are cached,
# sparse, in the build directory (the big rows are 256-512 MiB of mostly
# zeros: unpacking them is most of this test's time).
tmp_on_tmpfs 2g
CACHE=$E4_BUILDDIR/tests/corpus-unpacked
mkdir -p "$CACHE"
unpack() {	# unpack REL -> path of the sparse unpacked copy
	local out=$CACHE/$(basename "$1" .gz)
	if [ ! -s "$out" ]; then
		gzip -dc "$C/$1" | dd of="$out.tmp.$$" bs=64k conv=sparse status=none &&
			mv "$out.tmp.$$" "$out" || return 1
	fi
	echo "$out"
}

rows=0 pass=0 bad=()
while IFS='|' read -r name file needs; do
	[ "$needs" = - ] && needs=""
	case $name in j_recover_fast_commit | j_ext_dumpe2fs) continue ;; esac
	rows=$((rows + 1))
	W=$TFS/$name
	mkdir -p "$W/rd_ref" "$W/rd_our"
	src=$(unpack "$file") || fail "$name: cannot unpack $file"
	isrc=$src
	cp --sparse=always "$src" "$W/ref.img"
	cp --sparse=always "$src" "$W/our.img"
	jr=() jo=() jref="" jour=""
	if [ -n "$needs" ]; then
		src=$(unpack "${needs#jnl=}") || fail "$name: cannot unpack $needs"
		cp --sparse=always "$src" "$W/ref.jnl"
		cp --sparse=always "$src" "$W/our.jnl"
		jr=(-j "$W/ref.jnl") jo=(-j "$W/our.jnl") jref=$W/ref.jnl jour=$W/our.jnl
	fi
	runcap "$W/ref" 60 "$REF_E2FSCK" -y -E journal_only "${jr[@]}" "$W/ref.img"
	runcap "$W/our" 60 "$E4FSCK" -y -E journal_only "${jo[@]}" "$W/our.img"
	rr=$(cat "$W/ref.rc") ro=$(cat "$W/our.rc")
	why=""
	if san_report "$W/our.err"; then
		why="sanitizer report"
	elif [ "$ro" -ge 124 ]; then
		why="e4fsck $(describe_rc "$ro")"
	elif [ "$rr" != "$ro" ] && [ -z "${KNOWN[$name]:-}" ]; then
		why="exit $ro, reference $rr"
	fi
	known=${KNOWN[$name]:-}
	if [ -z "$why" ] && [ "$known" = keep ]; then
		cmp -s "$isrc" "$W/our.img" || why="-y changed the image it had to leave alone"
	fi
	if [ -z "$why" ] && [ "$ro" -le 1 ] && [ -z "$needs" ] && ! kernel_mounts "$W/our.img"; then
		why="exit $ro, but the kernel refuses the result: $KMOUNT_OUT"
	fi
	if [ -z "$why" ] && [ "$known" != rmj ] && [ "$known" != keep ]; then
		state "$W/ref.img" "$jref" "$known" >"$W/ref.st"
		state "$W/our.img" "$jour" "$known" >"$W/our.st"
		[ -s "$W/ref.st" ] || why="no journal state from the reference"
		cmp -s "$W/ref.st" "$W/our.st" ||
			why="journal state: $(tr '\n' ' ' <"$W/our.st")/ reference $(tr '\n' ' ' <"$W/ref.st")"
	fi
	if [ -z "$why" ] && [ "$known" != rmj ] && [ "$known" != keep ] && [ "$known" != csum ]; then
		"$REF_DEBUGFS" -c -R "rdump / $W/rd_ref" "$W/ref.img" >/dev/null 2>&1
		"$REF_DEBUGFS" -c -R "rdump / $W/rd_our" "$W/our.img" >/dev/null 2>&1
		listing "$W/rd_ref" >"$W/ref.ls"
		listing "$W/rd_our" >"$W/our.ls"
		cmp -s "$W/ref.ls" "$W/our.ls" || why="files differ ($(diff "$W/ref.ls" "$W/our.ls" | grep -c '^[<>]') lines)"
	fi
	case $known in
	keep | full | rmj | bmap) [ -n "$why" ] || [ "$ro" = 4 ] || why="exit $ro, expected 4 (known difference $known)" ;;
	csum) [ -n "$why" ] || [ "$ro" = "$rr" ] || why="exit $ro, reference $rr" ;;
	esac
	if [ "$known" = bmap ] && [ -z "$why" ] && ref_clean "$W/ref.img"; then
		why="the reference's result is clean: exit 4 is not justified"
	fi
	if [ "$known" = rmj ] && [ -z "$why" ]; then
		# e4fsck removed the invalid journal instead of rebuilding it
		grep -q 'features:.*has_journal' <<<"$("$REF_DUMPE2FS" -h "$W/our.img" 2>/dev/null)" &&
			why="the invalid journal was not removed"
	fi
	if [ -n "$why" ]; then
		bad+=("$name: $why")
		echo "--- $name: e4fsck output:" >&2
		head -20 "$W/our.out" "$W/our.err" >&2
	else
		pass=$((pass + 1))
		verbose "$name: ok (exit $ro${known:+, known difference: $known})"
	fi
	rm -rf "$W/rd_ref" "$W/rd_our" "$W"/*.img "$W"/*.jnl
done < <(awk -F'\t' '$2 == "journal" { print $1 "|" $3 "|" ($7 == "" ? "-" : $7) }' "$C/manifest.tsv")

info "$pass/$rows journal rows agree with the reference (${#KNOWN[@]} with a documented difference) in $(elapsed)s"
[ "$rows" -ge 24 ] || fail "expected at least 24 journal rows, found $rows"
for b in "${bad[@]+"${bad[@]}"}"; do echo "FAIL: $TEST_NAME: $b" >&2; done
[ ${#bad[@]} -eq 0 ] || exit 1
exit 0
