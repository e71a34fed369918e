#!/bin/bash
# fsck_p34: passes 3 (connectivity) and 4 (reference counts) of the full
# check find and repair what the reference e2fsck finds there (issue 16).
# Images: 8 MiB ext4 (1 KiB blocks, metadata_csum) and ext2, made by the
# reference mke2fs -d from a small tree (directories a, a/b, c, d, e;
# files of 6, 6, 20000, 2 and 0 bytes).  For each kind of damage, made on a
# copy with the reference debugfs -w:
#  - the reference e2fsck -fn reports it (premise: exit 4, the inodes);
#  - e4fsck -fn exits 4 naming the same inodes, and writes nothing (cmp);
#  - e4fsck -fy exits 1; afterwards the reference e2fsck -fn is clean, the
#    kernel mounts the image, the files are where the reference puts them
#    (lost+found/#ino) with the contents they had (md5), and a second
#    e4fsck -fn finds nothing (exit 8: the full check is not yet declared
#    clean, main.c's rule).
# Kinds: a directory unlinked from its parent (unconnected -> lost+found),
# a file unlinked with its inode kept (unattached -> lost+found), an empty
# file so unlinked (cleared), wrong i_links_count on a file and on a
# directory, '..' naming another directory, lost+found removed (made by -y
# only, as the reference does; made when a file needs it), a file with no
# links and no deletion time holding data (kept, to lost+found: the
# reference deletes it), lost+found a
# regular file (unlinked, connected as #ino, a new one made), two directories
# naming each other as their only parent (a loop), the root inode cleared
# (allocated anew, everything to lost+found), the root's and a
# directory's modes set to a regular file (their blocks still directories
# naming them: made directories again), the root a regular file whose
# block names another '.' (left, nothing lost).
# Where e4fsck differs from the reference on purpose:
#  - loop: the reference (1.47) finds loops only past 2048 levels; for this
#    one it rewrites the two '..' entries and leaves both directories
#    unreachable from the root, then calls the filesystem clean.  e4fsck
#    connects the loop to lost+found (its closing entry removed), so the
#    kernel reaches every file;
#  - root a regular file holding data: the reference clears the root inode
#    (its blocks freed, its names lost) and moves everything to lost+found;
#    e4fsck makes it (and any inode so damaged) a directory again when its
#    first block is a directory naming it as '.' (the reference does that
#    only for device, FIFO and socket inodes), else says it and leaves it
#    (exit 4), nothing destroyed;
#  - root cleared: -fy exits 4, not 1, because pass 1 leaves inode 2 of
#    mode 0 to the directory checks (PR_1_BAD_MODE, a PR_LEFT row) even
#    though pass 3 then allocates it; the rest is as the reference does.
# -p: a wrong count is preened (exit 1); an unconnected directory stops
# preen with exit 4, as the reference's.
# Bug it catches: a reconnection that moves the counted links but not the
# stored count (the reference's rule), so pass 4 then says "ref count is
# 2, should be 2" or writes the wrong count; lost+found made with the
# on-disk bitmaps instead of pass 1's maps (pass 5 then frees it again).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_E2FSCK" "$REF_MKE2FS" "$REF_DEBUGFS" "$PYTHON"
need_root_loop
export E2FSCK_CONFIG=/dev/null

# ---- the tree and the images ----
"$PYTHON" - "$T/tree" <<'PY' || fail "cannot write the tree"
import os, sys, random
d = sys.argv[1]; r = random.Random(34)
for sub in ("a/b", "c", "d", "e"):
    os.makedirs(f"{d}/{sub}")
def put(path, n):
    with open(f"{d}/{path}", "wb") as f:
        f.write(bytes(r.getrandbits(8) for _ in range(n)))
put("a/f1", 6); put("a/b/f2", 6); put("c/big", 20000); put("d/g", 2); put("e/empty", 0)
put("top", 2)
PY

dbg() { "$REF_DEBUGFS" "$@" 2>/dev/null; }
ino_of() { dbg -R "stat $2" "$1" | sed -n 's/^Inode: *\([0-9]*\).*/\1/p'; }
md5_in() { dbg -R "cat $2" "$1" | md5sum | cut -d' ' -f1; }	# md5_in IMG PATH

for fs in ext4 ext2; do
	"$REF_MKE2FS" -q -F -t $fs -b 1024 -d "$T/tree" "$T/$fs.img" 8M >/dev/null 2>&1 ||
		fail "$fs: mke2fs -d failed"
	ref_clean "$T/$fs.img" || fail "$fs: the reference is not clean on the new image: $REF_CLEAN_OUT"
done
# inode numbers (the same on both: one tree, one mke2fs)
A=$(ino_of "$T/ext4.img" /a) B=$(ino_of "$T/ext4.img" /a/b) C=$(ino_of "$T/ext4.img" /c)
D=$(ino_of "$T/ext4.img" /d) E=$(ino_of "$T/ext4.img" /e/empty) F1=$(ino_of "$T/ext4.img" /a/f1)
TOP=$(ino_of "$T/ext4.img" /top)
[ -n "$A" ] && [ -n "$B" ] && [ -n "$C" ] && [ -n "$D" ] && [ -n "$E" ] && [ -n "$F1" ] &&
	[ -n "$TOP" ] || fail "cannot read the inode numbers"
MD5_F1=$(md5sum <"$T/tree/a/f1" | cut -d' ' -f1)
MD5_F2=$(md5sum <"$T/tree/a/b/f2" | cut -d' ' -f1)
MD5_BIG=$(md5sum <"$T/tree/c/big" | cut -d' ' -f1)
MD5_TOP=$(md5sum <"$T/tree/top" | cut -d' ' -f1)

# damage NAME BASE DEBUGFS-REQUESTS: $T/NAME.img, a damaged copy of BASE
damage() {
	cp "$T/$2.img" "$T/$1.img"
	dbg -w -f - "$T/$1.img" <<<"$3" >/dev/null
}

# expect_said NAME WHAT PATTERN...: each (extended) regexp in $T/NAME.out
expect_said() {
	local name=$1 what=$2 pat
	shift 2
	for pat in "$@"; do
		grep -qE "$pat" "$T/$name.out" ||
			fail "$name: $what does not say /$pat/: $(grep -vE '^Pass [1-5]' "$T/$name.out" | head -8)"
	done
}

# where NAME IMG PATH MD5: PATH in IMG holds what it held
where() {
	local got
	got=$(md5_in "$2" "$3")
	[ "$got" = "$4" ] || fail "$1: $3 is not the file it was (md5 $got, want $4)"
}

# check NAME REF_RC WANT_Y PATTERN... [-- PATTERN...]: the reference -fn
# exits REF_RC (premise) and e4fsck -fn exits 4 saying every PATTERN
# before "--" (all of them: -fy), the image unchanged; then
# e4fsck -fy exits WANT_Y, the reference is clean, the kernel mounts it,
# a second e4fsck -fn finds nothing.  The repaired image: $T/NAME.img.
check() {
	local name=$1 ref_rc=$2 want_y=$3 rc pat npats=() ypats=()
	shift 3
	"$REF_E2FSCK" -fn "$T/$name.img" >"$T/$name.ref" 2>&1 </dev/null
	rc=$?
	[ $rc = "$ref_rc" ] || fail "$name: premise: the reference -fn exits $rc, not $ref_rc: $(head -12 "$T/$name.ref")"
	cp "$T/$name.img" "$T/$name.orig"
	for pat in "$@"; do
		[ "$pat" = -- ] && break
		npats+=("$pat")
	done
	fsck_run "$name.n" 4 -fn "$T/$name.img"
	expect_said "$name.n" "e4fsck -fn" "${npats[@]}"
	cmp -s "$T/$name.img" "$T/$name.orig" || fail "$name: e4fsck -fn changed the image"
	fsck_run "$name.y" "$want_y" -fy "$T/$name.img"
	for pat in "$@"; do
		[ "$pat" = -- ] || ypats+=("$pat")
	done
	expect_said "$name.y" "e4fsck -fy" "${ypats[@]}"
	ref_clean "$T/$name.img" || fail "$name: the reference is not clean after e4fsck -fy: $REF_CLEAN_OUT"
	fsck_result_mounts "$T/$name.img" "$name"
	fsck_run "$name.again" 8 -fn "$T/$name.img"
	if grep -vE '^Pass [1-5]: |: [0-9]+/[0-9]+ files, [0-9]+/[0-9]+ blocks$' "$T/$name.again.out" | grep -q .; then
		fail "$name: the second e4fsck -fn still finds: $(head -5 "$T/$name.again.out")"
	fi
	rm -f "$T/$name.orig"
}

for fs in ext4 ext2; do
	# a directory unlinked from its parent: unconnected, to lost+found
	damage "$fs.udir" $fs "unlink /a/b"
	check "$fs.udir" 4 1 "^Unconnected directory inode $B \(was in /a\)" \
		"^Inode $B ref count is [23], should be [12]\."
	grep -q "^Unconnected directory inode $B " "$T/$fs.udir.ref" || fail "$fs.udir: premise: the reference does not name $B"
	where "$fs.udir" "$T/$fs.udir.img" "/lost+found/#$B/f2" "$MD5_F2"

	# a file unlinked, its inode kept: unattached, to lost+found
	damage "$fs.ufile" $fs "unlink /a/f1"
	check "$fs.ufile" 4 1 "^Unattached inode $F1\$"
	grep -q "^Unattached inode $F1\$" "$T/$fs.ufile.ref" || fail "$fs.ufile: premise"
	grep -q "^Inode $F1 ref count is 2, should be 1\." "$T/$fs.ufile.y.out" ||
		fail "$fs.ufile: the reconnected inode's count is not moved as the reference moves it"
	where "$fs.ufile" "$T/$fs.ufile.img" "/lost+found/#$F1" "$MD5_F1"

	# a file with no links and no deletion time, holding data (what a
	# stop inside a mkdir leaves): pass 1 keeps it in use, pass 4
	# connects it to lost+found (the reference deletes it: "Deleted
	# inode has zero dtime", its data freed)
	damage "$fs.zdtime" $fs "unlink /a/f1
sif <$F1> links_count 0"
	check "$fs.zdtime" 4 1 "^Inode $F1 has no links and a zero deletion time" "^Unattached inode $F1\$"
	grep -q "^Deleted inode $F1 has zero dtime" "$T/$fs.zdtime.ref" || fail "$fs.zdtime: premise"
	where "$fs.zdtime" "$T/$fs.zdtime.img" "/lost+found/#$F1" "$MD5_F1"

	# an empty file unlinked: cleared
	damage "$fs.uzero" $fs "unlink /e/empty"
	check "$fs.uzero" 4 1 "^Unattached zero-length inode $E\."
	grep -q "^Unattached zero-length inode $E\." "$T/$fs.uzero.ref" || fail "$fs.uzero: premise"
	dbg -R "testi <$E>" "$T/$fs.uzero.img" | grep -q "not in use" ||
		fail "$fs.uzero: inode $E is still in use"

	# wrong link counts: a file and a directory
	damage "$fs.lcfile" $fs "sif /top links_count 5"
	check "$fs.lcfile" 4 1 "^Inode $TOP ref count is 5, should be 1\."
	where "$fs.lcfile" "$T/$fs.lcfile.img" /top "$MD5_TOP"
	damage "$fs.lcdir" $fs "sif /a links_count 7"
	check "$fs.lcdir" 4 1 "^Inode $A ref count is 7, should be 3\."

	# '..' of a/b naming c
	damage "$fs.dotdot" $fs "unlink /a/b/..
link <$C> /a/b/.."
	check "$fs.dotdot" 4 1 "^'\.\.' in /a/b \($B\) is /c \($C\), should be /a \($A\)\." \
		"^Inode $A ref count is [34], should be [23]\."
	# c's count (2, names 3) is short by the '..' rewritten: -n says it;
	# -y leaves it at 2, its names after (the reference lowers it to 1
	# first, then pass 4 says "is 1, should be 2": a stop between would
	# leave fewer links than names)
	grep -q "^Inode $C ref count is 2, should be 3\." "$T/$fs.dotdot.n.out" ||
		fail "$fs.dotdot: -n does not say c's count"
	! grep -q "^Inode $C ref count" "$T/$fs.dotdot.y.out" || fail "$fs.dotdot: -y lowered c's count below its names"
	where "$fs.dotdot" "$T/$fs.dotdot.img" /a/b/f2 "$MD5_F2"

	# lost+found removed: -n says nothing (the reference neither); -y makes it
	damage "$fs.lfrm" $fs "rmdir /lost+found"
	"$REF_E2FSCK" -fn "$T/$fs.lfrm.img" >/dev/null 2>&1 </dev/null ||
		fail "$fs.lfrm: premise: the reference -fn finds something"
	cp "$T/$fs.lfrm.img" "$T/$fs.lfrm.orig"
	fsck_run "$fs.lfrm.n" 8 -fn "$T/$fs.lfrm.img"
	! grep -q "lost+found" "$T/$fs.lfrm.n.out" || fail "$fs.lfrm: -n speaks of lost+found"
	cmp -s "$T/$fs.lfrm.img" "$T/$fs.lfrm.orig" || fail "$fs.lfrm: e4fsck -fn changed the image"
	fsck_run "$fs.lfrm.y" 1 -fy "$T/$fs.lfrm.img"
	expect_said "$fs.lfrm.y" "e4fsck -fy" "^/lost\+found not found\.  Create\? yes"
	ref_clean "$T/$fs.lfrm.img" || fail "$fs.lfrm: the reference is not clean after -fy: $REF_CLEAN_OUT"
	dbg -R "stat /lost+found" "$T/$fs.lfrm.img" | grep -q "Type: directory *Mode: *0700" ||
		fail "$fs.lfrm: lost+found is not a 0700 directory"
	# ... and made when a file needs it
	damage "$fs.lfneed" $fs "rmdir /lost+found
unlink /a/f1"
	check "$fs.lfneed" 4 1 "^Unattached inode $F1\$"
	expect_said "$fs.lfneed.y" "e4fsck -fy" "^/lost\+found not found\.  Create\? yes"
	where "$fs.lfneed" "$T/$fs.lfneed.img" "/lost+found/#$F1" "$MD5_F1"

	# lost+found a regular file: its entry unlinked, the file connected to
	# the new lost+found as #ino (the reference's repair)
	damage "$fs.lfnotdir" $fs "rmdir /lost+found
write $T/tree/top lost+found
unlink /a/f1"
	LF=$(ino_of "$T/$fs.lfnotdir.img" /lost+found)
	check "$fs.lfnotdir" 4 1 "^Unattached inode $F1\$" -- "^/lost\+found is not a directory \(inode $LF\)" \
		"^Unattached inode $LF\$"
	where "$fs.lfnotdir" "$T/$fs.lfnotdir.img" "/lost+found/#$LF" "$MD5_TOP"
	where "$fs.lfnotdir" "$T/$fs.lfnotdir.img" "/lost+found/#$F1" "$MD5_F1"

	# c and d naming each other, neither named by the root: a loop
	damage "$fs.loop" $fs "link <$D> /c/dd
link <$C> /d/cc
unlink /c
unlink /d"
	check "$fs.loop" 4 1 "^Directory inode ($C|$D) is in a loop"
	where "$fs.loop" "$T/$fs.loop.img" "/lost+found/#$D/cc/big" "$MD5_BIG"

	# the root inode cleared: allocated anew, everything to lost+found
	damage "$fs.rootclr" $fs "clri <2>"
	check "$fs.rootclr" 12 4 "^Root inode not allocated\." -- "^Unconnected directory inode $A " \
		"^Unattached inode $TOP\$"
	grep -q "^Inode 2 has mode 0x0" "$T/$fs.rootclr.y.out" ||
		fail "$fs.rootclr: -fy exits 4 for another reason than pass 1's mode row"
	where "$fs.rootclr" "$T/$fs.rootclr.img" "/lost+found/#$A/b/f2" "$MD5_F2"
	where "$fs.rootclr" "$T/$fs.rootclr.img" "/lost+found/#$TOP" "$MD5_TOP"

	# the root's and a's modes a regular file, their first blocks still
	# directories naming them as '.': pass 1 makes them directories again
	# (the reference clears the root and moves everything to lost+found)
	damage "$fs.rootfile" $fs "sif <2> mode 0100644
sif <$A> mode 0100755"
	check "$fs.rootfile" 12 1 "^Inode 2 has mode 0x81a4, but its first block is a directory block" \
		"^Inode $A has mode 0x81ed, but its first block is a directory block"
	grep -q "^Root inode is not a directory" "$T/$fs.rootfile.ref" ||
		fail "$fs.rootfile: premise: the reference does not say the root is not a directory"
	where "$fs.rootfile" "$T/$fs.rootfile.img" /a/f1 "$MD5_F1"
	where "$fs.rootfile" "$T/$fs.rootfile.img" /a/b/f2 "$MD5_F2"
	where "$fs.rootfile" "$T/$fs.rootfile.img" /c/big "$MD5_BIG"
	where "$fs.rootfile" "$T/$fs.rootfile.img" /top "$MD5_TOP"

	# the root a regular file whose block is no directory of it ('.'
	# names inode 0): said and left (exit 4), nothing lost
	damage "$fs.rootdata" $fs "sif <2> mode 0100644
zap_block -f <2> -o 0 -l 4 -p 0 0"
	"$REF_E2FSCK" -fn "$T/$fs.rootdata.img" >"$T/$fs.rootdata.ref" 2>&1 </dev/null
	grep -q "^Root inode is not a directory" "$T/$fs.rootdata.ref" ||
		fail "$fs.rootdata: premise: the reference does not say the root is not a directory"
	fsck_run "$fs.rootdata.n" 4 -fn "$T/$fs.rootdata.img"
	expect_said "$fs.rootdata.n" "e4fsck -fn" "^Root inode is not a directory"
	fsck_run "$fs.rootdata.y" 4 -fy "$T/$fs.rootdata.img"
	! grep -q "first block is a directory block" "$T/$fs.rootdata.y.out" ||
		fail "$fs.rootdata: a block whose '.' is not the root taken for its directory"
	dbg -w -f - "$T/$fs.rootdata.img" >/dev/null <<<"zap_block -f <2> -o 0 -l 1 -p 2 0
sif <2> mode 040755"
	where "$fs.rootdata" "$T/$fs.rootdata.img" /c/big "$MD5_BIG"
done

# Stops: e4fsck -fy stopped at every write it makes (the crash-point
# layer) on the unconnected directory, the unattached file, '..', the
# loop, lost+found made for an unattached file, and the root made anew.
# Each stop is judged by DESIGN.md's rule (tests/lib.sh stop_ok: the
# reference -fn reports no block or inode in use but marked free, no name
# of a freed or unwritten inode, nothing claimed twice; beyond the damage
# the image was given, only leaks and what the next check mends); then
# e4fsck -fy run again to the end leaves the tree (names, kinds, md5s) an
# uninterrupted run leaves, and the reference clean.  One difference is
# allowed: an empty directory /lost+found/#N, the lost+found the stopped
# run made but had not linked yet, which the rerun connects there (as the
# reference would).
tree_of() {	# tree_of IMG OUT: the files of IMG, their kinds and md5s
	rm -rf "$T/rd" && mkdir "$T/rd" && dbg -R "rdump / $T/rd" "$1" &&
		(cd "$T/rd" && find ./lost+found -mindepth 1 -maxdepth 1 -name '#*' -type d -empty -delete &&
			find . -printf '%y %p\n' | sort && find . -type f -exec md5sum {} + | sort) >"$2"
}
for name in udir ufile dotdot loop lfneed rootclr; do
	damage "s.$name" ext4 "$(case $name in
		udir) echo "unlink /a/b" ;;
		ufile) echo "unlink /a/f1" ;;
		dotdot) printf 'unlink /a/b/..\nlink <%s> /a/b/..\n' "$C" ;;
		loop) printf 'link <%s> /c/dd\nlink <%s> /d/cc\nunlink /c\nunlink /d\n' "$D" "$C" ;;
		lfneed) printf 'rmdir /lost+found\nunlink /a/f1\n' ;;
		rootclr) echo "clri <2>" ;;
	esac)"
	"$REF_E2FSCK" -fn "$T/s.$name.img" >"$T/s.known" 2>&1 </dev/null
	STOP_KNOWN=$T/s.known STOP_KNOWN_RC=$?
	cp "$T/s.$name.img" "$T/s.w.img"
	rm -f "$T/trace"
	E4_CRASH_TRACE=$T/trace "$E4FSCK" -fy "$T/s.w.img" >/dev/null 2>&1
	tree_of "$T/s.w.img" "$T/s.tree" || fail "s.$name: cannot list the repaired tree"
	n=$(wc -l <"$T/trace")
	[ "$n" -ge 3 ] || fail "s.$name: only $n writes traced"
	for i in $(seq 1 "$n"); do
		cp "$T/s.$name.img" "$T/s.w.img"
		E4_CRASH_AFTER_WRITES=$i "$E4FSCK" -fy "$T/s.w.img" >/dev/null 2>&1
		STOP_KNOWN=$STOP_KNOWN STOP_KNOWN_RC=$STOP_KNOWN_RC stop_ok "$T/s.w.img" ||
			fail "s.$name: stopped after write $i of $n: $STOP_WHY"
		runcap "$T/s.again" 30 "$E4FSCK" -fy "$T/s.w.img"
		rc=$(cat "$T/s.again.rc")
		# main.c's rules until the full check is declared complete: 4
		# while a not-clean state is recorded, 8 when nothing was found
		[ "$rc" -le 1 ] || { [ "$rc" = 4 ] && grep -q "was not cleanly unmounted" "$T/s.again.out"; } ||
			{ [ "$rc" = 8 ] && grep -q "found nothing to repair" "$T/s.again.err"; } ||
			{ [ "$name" = rootclr ] && [ "$rc" = 4 ]; } ||
			fail "s.$name: stopped after write $i of $n, the second run exits $rc: $(head -8 "$T/s.again.out")"
		ref_clean "$T/s.w.img" ||
			fail "s.$name: stopped after write $i of $n and run again: the reference is not clean: $REF_CLEAN_OUT"
		tree_of "$T/s.w.img" "$T/s.tree2" || fail "s.$name: cannot list the tree after stop $i"
		cmp -s "$T/s.tree" "$T/s.tree2" ||
			fail "s.$name: stopped after write $i of $n and run again: not the tree of an uninterrupted run: $(diff "$T/s.tree" "$T/s.tree2" | head -6 | tr '\n' '|')"
	done
	stops=$((${stops:-0} + n))
done
unset STOP_KNOWN STOP_KNOWN_RC

# Blocks claimed twice: passes 1B-1D clone them first, so the maps are
# sure again and passes 3-4 connect the unattached inode to a new
# lost+found. (Where 1D cannot clone, e.g. bigalloc, the maps stay unsure
# and passes 3-4 allocate nothing: PR_3_CONNECT_MAPS_UNSURE.)
damage dupb ext2 "sif /top block[0] $(dbg -R "bmap /a/f1 0" "$T/ext2.img")
unlink /d/g
rmdir /lost+found"
fsck_run dupb.y 1 -fy "$T/dupb.img"
expect_said dupb.y "e4fsck -fy" "^Unattached inode $(ino_of "$T/ext2.img" /d/g)\$"
ref_clean "$T/dupb.img" || fail "dupb: the reference is not clean after -fy: $REF_CLEAN_OUT"

# lost+found full: 90 files unlinked, lost+found removed: the one block
# e4fsck makes holds about 80 names, then "No room in lost+found
# directory.  Expand? yes" (the reference's question and answer), every
# file connected with its data
mkdir -p "$T/tree90/m"
for i in $(seq 1 90); do printf '%s' "$i" >"$T/tree90/m/f$i"; done
"$REF_MKE2FS" -q -F -t ext4 -b 1024 -d "$T/tree90" "$T/full.img" 4M >/dev/null 2>&1 || fail "full: mke2fs -d failed"
{ echo "rmdir /lost+found"; for i in $(seq 1 90); do echo "unlink /m/f$i"; done; } >"$T/full.cmds"
F90=$(ino_of "$T/full.img" /m/f90)
dbg -w -f "$T/full.cmds" "$T/full.img" >/dev/null
cp "$T/full.img" "$T/full.ref.img"
"$REF_E2FSCK" -fy "$T/full.ref.img" >"$T/full.ref" 2>&1 </dev/null
grep -q "^No room in lost+found directory.  Expand? yes" "$T/full.ref" || fail "full: premise: the reference does not expand lost+found"
fsck_run full.y 1 -fy "$T/full.img"
expect_said full.y "e4fsck -fy" "^No room in lost\+found directory\.  Expand\? yes" "^Unattached inode $F90\$"
ref_clean "$T/full.img" || fail "full: the reference is not clean after -fy: $REF_CLEAN_OUT"
[ "$(dbg -R "cat /lost+found/#$F90" "$T/full.img")" = 90 ] || fail "full: /lost+found/#$F90 does not hold what f90 held"

# -p: a count is preened; an unconnected directory stops preen
damage p.lc ext4 "sif /top links_count 5"
fsck_run p.lc.p 1 -fp "$T/p.lc.img"
ref_clean "$T/p.lc.img" || fail "p.lc: the reference is not clean after -fp: $REF_CLEAN_OUT"
damage p.udir ext4 "unlink /a/b"
cp "$T/p.udir.img" "$T/p.udir.orig"
fsck_run p.udir.p 4 -fp "$T/p.udir.img"
grep -q "UNEXPECTED INCONSISTENCY" "$T/p.udir.p.out" || fail "p.udir: preen did not stop: $(cat "$T/p.udir.p.out")"

info "passes 3 and 4: 15 kinds of damage on ext4 and ext2, preen, and $stops stops, as the reference repairs them"
exit 0
