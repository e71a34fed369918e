#!/bin/bash
# dbg_dir_aliases: "filefrag -r" and "rdump" on a damaged filesystem where a
# directory has several names walk each directory once and finish.
# (1) /d holds three entries naming /d itself (a, b, c);
# (2) a chain d0 -> d1 -> ... -> d24 where each directory names the next
#     twice (d<i> and x): walked again under every name that is 2^24 walks.
# Both commands report each repeated directory in one line ("already
# walked" / "already dumped"), exit 1, and list or dump every directory
# once.  The reference debugfs 1.47.0 walks (1) without end and (2) for
# hours: this is the kernel's view of a tree, not the reference's.
# Catches: the fuzzing finding (timeout in ff_directory: filefrag -r on an
# image whose directory named itself twice), the 64-level depth limit that
# only bounded it to 3^64 walks, rdump copying a shared subtree per name.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_MKE2FS" "$REF_DEBUGFS"
need_e4debugfs
E=$E4DEBUGFS

# (1) a directory naming itself three times
img=$T/self.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$img" 2M >/dev/null 2>&1 || fail "mke2fs failed"
printf 'mkdir d\nln d d/a\nln d d/b\nln d d/c\n' |
	"$REF_DEBUGFS" -w -f - "$img" >/dev/null 2>&1 || fail "setting up /d failed"
timeout 60 "$E" -R "filefrag -r /" "$img" >"$T/ff.out" 2>"$T/ff.err"
rc=$?
[ "$rc" = 124 ] && fail "filefrag -r / did not finish in 60 s (self-named directory)"
[ "$rc" = 1 ] || fail "filefrag -r / exited $rc, want 1: $(cat "$T/ff.err")"
for n in a b c; do
	grep -qx "/d/$n: 1 contiguous extents (dir)" "$T/ff.out" ||
		fail "filefrag -r did not report /d/$n: $(cat "$T/ff.out")"
	grep -q "directory inode 12 was already walked (it has several names); not descending into /d/$n\$" \
		"$T/ff.err" || fail "no 'already walked' line for /d/$n: $(cat "$T/ff.err")"
done
[ "$(wc -l <"$T/ff.out")" = 5 ] || fail "filefrag -r printed $(wc -l <"$T/ff.out") lines, want 5"

mkdir "$T/out1"
timeout 60 "$E" -R "rdump / $T/out1" "$img" >/dev/null 2>"$T/rd.err"
rc=$?
[ "$rc" = 124 ] && fail "rdump / did not finish in 60 s (self-named directory)"
[ -d "$T/out1/d" ] || fail "rdump did not make d"
grep -q "its own ancestor" "$T/rd.err" || fail "rdump: no ancestor line: $(cat "$T/rd.err")"

# (2) a chain of directories each named twice by its parent
img=$T/chain.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 -N 64 "$img" 2M >/dev/null 2>&1 || fail "mke2fs failed"
p=
for i in $(seq 0 24); do
	echo "mkdir $p/d$i"
	# the parent names d$i a second time, as x
	[ -n "$p" ] && echo "ln $p/d$i $p/x"
	p=$p/d$i
done >"$T/chain.cmd"
echo "write /dev/null $p/f" >>"$T/chain.cmd"
"$REF_DEBUGFS" -w -f "$T/chain.cmd" "$img" >"$T/chain.log" 2>&1 || fail "setting up the chain failed"
"$REF_DEBUGFS" -R "ls -l $p" "$img" 2>/dev/null | grep -q ' f *$' ||
	fail "chain setup: no file 25 levels down: $(tail -5 "$T/chain.log")"

timeout 60 "$E" -R "filefrag -r /" "$img" >"$T/ff2.out" 2>"$T/ff2.err"
rc=$?
[ "$rc" = 124 ] && fail "filefrag -r / did not finish in 60 s (chain of doubly named directories)"
[ "$rc" = 1 ] || fail "filefrag -r / on the chain exited $rc, want 1"
n=$(grep -c "already walked" "$T/ff2.err")
[ "$n" = 24 ] || fail "filefrag -r: $n 'already walked' lines, want 24 (one a level)"
n=$(grep -c '/f: 0 contiguous extents$' "$T/ff2.out")
[ "$n" = 1 ] || fail "filefrag -r listed the bottom file $n times, want 1"

mkdir "$T/out2"
timeout 60 "$E" -R "rdump / $T/out2" "$img" >/dev/null 2>"$T/rd2.err"
rc=$?
[ "$rc" = 124 ] && fail "rdump / did not finish in 60 s (chain of doubly named directories)"
[ "$rc" = 1 ] || fail "rdump on the chain exited $rc, want 1"
n=$(grep -c "already dumped" "$T/rd2.err")
[ "$n" = 24 ] || fail "rdump: $n 'already dumped' lines, want 24: $(head -3 "$T/rd2.err")"
n=$(find "$T/out2" -type f -name f | wc -l)
[ "$n" = 1 ] || fail "rdump wrote the bottom file $n times, want 1"
n=$(find "$T/out2" -type d | wc -l)
[ "$n" = 27 ] || fail "rdump made $n directories, want 27 (out2, lost+found, d0..d24 once)"
exit 0
