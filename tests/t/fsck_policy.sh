#!/bin/bash
# fsck_policy: e4fsck's default answers never destroy committed journal
# data (issue 11 items 1 and 2).  Images: 8 MiB, 1 KiB blocks, a v3
# checksummed journal holding two committed transactions written by the
# reference debugfs (blocks 300-305 filled with 'Q', then a revoke of
# block 302), then:
#
#  case       damage                                 -n   -p   -y
#  norecover  needs_recovery cleared                  4    4    1 replayed
#  magic      journal superblock magic zeroed          4    4    4 untouched
#             (needs_recovery set)
#  csum       journal superblock checksum flipped      4    1    1 replayed
#  nofeature  has_journal cleared (needs_recovery     4    4    1 has_journal
#             set)                                              set, replayed
#  fastcommit the corpus' j_recover_fast_commit: the   0    4    4 untouched
#             last transaction ends in fast-commit
#             records (e4fsck cannot replay them; the
#             kernel does)
#  straymap   a clean image (empty journal) whose       4    4    4 untouched
#             journal inode's first extent is moved
#             onto a file's first block: the journal
#             superblock "has a bad magic"; resetting
#             it would write over the file (e2fsck
#             1.47.0 -fy does)
#  noinum     s_journal_inum set to 0 (needs_recovery   4    4    1 re-pointed
#             set): inode 8 still holds the log                   to inode 8,
#                                                                 replayed
#  noinum_    the same on the reference's replay        4    4    1 re-pointed,
#  clean      (nothing to replay)                                 ref -fn clean
#
# -p stops with "UNEXPECTED INCONSISTENCY" and writes nothing; -n writes
# nothing; "untouched" means byte for byte.  A replayed result equals the
# reference's replay of the same log (e2fsck -y on the undamaged image:
# every byte but the two superblocks), and the kernel mounts it.  The
# reference itself answers otherwise here: e2fsck 1.47.0 -p discards
# nothing but stops too; -y resets a journal superblock with a bad magic or
# checksum (discarding the log) and removes a journal whose has_journal is
# clear (discarding it): e4fsck keeps what can be recovered.
# Also: doc/e4fsck-destructive.md is what `e4fsck --list-destructive`
# prints from the problem table.
# noinum: e2fsck 1.47.0 says "The journal superblock is corrupt" and
# stops (-fn exit 12); cleared, its pass 1 finds "Journal inode is not in
# use, but contains data": e4fsck names inode 8 again instead.
# Bug it catches: -y answering "no" to the replay of a log needs_recovery
# does not announce and "yes" to discarding it (exit 4, data gone), or -p
# discarding it.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_E2FSCK" "$REF_DEBUGFS" "$REF_MKE2FS" "$REF_DUMPE2FS" "$PYTHON"
need_root_loop
export E2FSCK_CONFIG=/dev/null TZ=UTC E2FSCK_TIME=2000000000

base=$T/base.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 -U 6b33f586-a183-4d18-a7e6-4c5ad1b8e9f1 \
	-E root_owner=0:0 "$base" 8M >/dev/null 2>&1 || fail "mke2fs failed"
head -c 6144 /dev/zero | tr '\0' Q >"$T/q"
printf 'jo -c\njw -b 300-305 %s\njc\njo\njw -r 302\njc\n' "$T/q" >"$T/cmds"
"$REF_DEBUGFS" -w -f "$T/cmds" "$base" >/dev/null 2>&1 || fail "debugfs jw failed"
grep -q needs_recovery <<<"$("$REF_DUMPE2FS" -h "$base" 2>/dev/null)" || fail "no journal to replay"
jsb=$(($("$REF_DEBUGFS" -c -R "bmap <8> 0" "$base" 2>/dev/null | tail -1) * 1024))

# the reference's replay of the undamaged log
cp "$base" "$T/ref.img"
"$REF_E2FSCK" -y "$T/ref.img" >/dev/null 2>&1
[ $? -le 1 ] || fail "the reference could not replay the base image"

# bytes differing from the reference's replay outside the fs superblock
# and the journal superblock
ndiff() {
	cmp -l "$T/ref.img" "$1" | awk -v j="$jsb" \
		'!($1 > 1024 && $1 <= 2048) && !($1 > j && $1 <= j + 1024)' | wc -l
}

poke() {	# poke IMG OFFSET HEX: overwrite bytes
	"$PYTHON" -c "
import sys
f = open(sys.argv[1], 'r+b'); f.seek(int(sys.argv[2])); f.write(bytes.fromhex(sys.argv[3]))" "$@"
}

make_case() {	# make_case NAME -> $T/NAME.img
	local img=$T/$1.img
	case $1 in
	norecover) cp "$base" "$img"; "$REF_DEBUGFS" -w -R "feature ^needs_recovery" "$img" ;;
	magic) cp "$base" "$img"; poke "$img" "$jsb" 00000000 ;;
	csum) cp "$base" "$img"; poke "$img" $((jsb + 0xFC)) 5a5a5a5a ;;
	nofeature) cp "$base" "$img"; "$REF_DEBUGFS" -w -R "feature ^has_journal" "$img" ;;
	straymap)
		"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$img" 8M
		seq 100000 | head -c 20000 >"$T/victim"
		"$REF_DEBUGFS" -w -R "write $T/victim victim" "$img"
		# i_block[5]: ee_start_lo of the journal inode's first extent
		"$REF_DEBUGFS" -w -R "sif <8> block[5] $("$REF_DEBUGFS" -R "bmap victim 0" "$img")" "$img" ;;
	noinum) cp "$base" "$img"; "$REF_DEBUGFS" -w -R "ssv journal_inum 0" "$img" ;;
	noinum_clean) cp "$T/ref.img" "$img"; "$REF_DEBUGFS" -w -R "ssv journal_inum 0" "$img" ;;
	fastcommit)
		[ -f "$E4KIT_SHARED/corpus/journal/j_recover_fast_commit.img.gz" ] ||
			skip "no corpus image j_recover_fast_commit"
		gzip -dc "$E4KIT_SHARED/corpus/journal/j_recover_fast_commit.img.gz" >"$img" ;;
	esac >/dev/null 2>&1
}

# run NAME MODE WANT_RC RESULT: RESULT is replayed, untouched or -
run() {
	local name=$1 mode=$2 want=$3 result=$4 img=$T/$1.$2 rc d
	cp "$T/$name.img" "$img"
	runcap "$img" 30 "$E4FSCK" -$mode "$img"
	rc=$(cat "$img.rc")
	san_report "$img.err" && fail "$name -$mode: sanitizer report: $(head -5 "$img.err")"
	[ "$rc" = "$want" ] || {
		cat "$img.out" "$img.err" >&2
		fail "$name -$mode: $(describe_rc "$rc"), expected $want"
	}
	if [ "$mode" = p ] && [ "$want" = 4 ]; then
		grepq "UNEXPECTED INCONSISTENCY" "$img.out" || fail "$name -p: no stop message"
	fi
	case $result in
	untouched)
		cmp -s "$T/$name.img" "$img" || fail "$name -$mode: the image changed" ;;
	replayed)
		d=$(ndiff "$img")
		[ "$d" = 0 ] || fail "$name -$mode: $d bytes differ from the reference's replay"
		grep -q needs_recovery <<<"$("$REF_DUMPE2FS" -h "$img" 2>/dev/null)" &&
			fail "$name -$mode: needs_recovery still set" ;;
	refclean)
		ref_clean "$img" || fail "$name -$mode: reference -fn not clean: $REF_CLEAN_OUT" ;;
	esac
	[ "$rc" -gt 1 ] || fsck_result_mounts "$img" "$name -$mode"
	verbose "$name -$mode: exit $rc, $result"
}

for name in norecover magic csum nofeature fastcommit straymap noinum noinum_clean; do
	make_case $name
done

run norecover n 4 untouched
grep -q "needs_recovery is not set" "$T/norecover.n.out" ||
	fail "norecover -n: the log is not reported: $(cat "$T/norecover.n.out")"
grep -q "clean" "$T/norecover.n.out" && fail "norecover -n: 'clean' said with errors left"
run norecover p 4 untouched
run norecover y 1 replayed

run magic n 4 untouched
run magic p 4 untouched
run magic y 4 untouched
grep -q "not done by -y: needs_recovery is set" "$T/magic.y.out" ||
	fail "magic -y: the kept journal is not explained: $(cat "$T/magic.y.out")"

run csum n 4 untouched
run csum p 1 replayed
run csum y 1 replayed

run nofeature n 4 untouched
run nofeature p 4 untouched
run nofeature y 1 replayed
grep -q 'features:.*has_journal' <<<"$("$REF_DUMPE2FS" -h "$T/nofeature.y" 2>/dev/null)" ||
	fail "nofeature -y: has_journal not set again"

run fastcommit n 0 untouched
run fastcommit p 4 untouched
run fastcommit y 4 untouched
run straymap n 4 untouched
run straymap p 4 untouched
run straymap y 4 untouched
grep -q "block map differs from the superblock's backup" "$T/straymap.y.out" ||
	fail "straymap -y: the kept journal is not explained: $(cat "$T/straymap.y.out")"

for name in noinum noinum_clean; do
	run $name n 4 untouched
	run $name p 4 untouched
	grepq "not done without a human: inode 8 holds the journal" "$T/$name.p.out" ||
		fail "$name -p: the stop is not explained: $(cat "$T/$name.p.out")"
done
run noinum y 1 replayed
run noinum_clean y 1 refclean
for img in "$T/noinum.y" "$T/noinum_clean.y"; do
	grepq '^Journal inode: *8$' <<<"$("$REF_DUMPE2FS" -h "$img" 2>/dev/null)" ||
		fail "${img##*/}: s_journal_inum is not 8 again"
done

# what was kept is what the kernel replays: a file only the fast commit made
mount_loop "$T/fastcommit.y" "$T/mnt" || fail "fastcommit: the kernel does not mount the kept journal"
[ -e "$T/mnt/a/new" ] || fail "fastcommit: the kernel's replay lacks a/new (test premise)"
umount_retry "$T/mnt"

# the generated list of destructive answers is the committed one
"$E4FSCK" --list-destructive >"$T/destructive.md" || fail "--list-destructive failed"
cmp -s "$T/destructive.md" "$E4_SRCDIR/doc/e4fsck-destructive.md" ||
	fail "doc/e4fsck-destructive.md differs from the table: $(diff "$E4_SRCDIR/doc/e4fsck-destructive.md" "$T/destructive.md" | head -5)"

info "committed journal data: -y replays or keeps it, -p stops, -n reports, in 8 cases ($(elapsed)s)"
exit 0
