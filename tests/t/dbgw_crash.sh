#!/bin/bash
# dbgw_crash: crash safety of e4debugfs -w's file commands (issue 13,
# acceptance 4): write, mkdir, rm, symlink, ea_set and expand_dir, each
# stopped by the crash-point layer (E4_CRASH_AFTER_WRITES=N: the process
# dies before its N+1-th write, as at a power failure; common/crashpoint.c,
# installed by e4debugfs for -w) on ext4 and ext2 (1 KiB blocks, 8 groups).
#
# A base image per type is built by one earlier e4debugfs -w run (done and
# closed, so complete): directories, an indexed directory of 60 files,
# files, fast and slow symlinks, xattrs in the inode and in a block shared
# by two files.  Each command runs in several places (VARIANTS: a linear
# and an indexed directory, the root; a new and a shared xattr block; a
# file whose xattr block is shared...), each in a new run on a copy of
# the base image.  Its writes are counted first (E4_CRASH_TRACE); then it
# is stopped after every write, or at 25 stops spread over them when it
# makes more; at least 20 stops per command and type are required.
# Each stop is judged by DESIGN.md "Writing safely" (tests/lib.sh stop_ok:
# clean if marked clean; if marked not clean, only leaks and wrong
# counts); then the reference e2fsck -fy must leave it clean (e2fsck -fn),
# and what the earlier commands made must be intact: the tree as the
# reference debugfs reads it (rdump, listed by tests/gentree.py: names,
# types, modes, sizes, contents, symlink targets) and the xattrs (ea_list,
# ea_get of the large values).  Rule: every line the command leaves alone
# (in the listing before and after a complete run) is there, and every
# line is one of before or after, or names a path the command creates
# (a file written in part).  lost+found is left out (e2fsck -fy
# reconnects what a stop left unnamed).
# Variants run two at a time (xargs -P2) on a tmpfs; E4_DBGW_ONLY=REGEX
# runs only the variants it matches.
#
# Bug it catches: an operation that frees before it unlinks, or writes the
# inode before the blocks it maps (the block cache writes a step's blocks
# sorted by number: the inode table goes first unless an ordering point
# is between).  Checked: on the code before this test (issue 13 merge
# d161d47) 81 stops failed -- mkdir's inode before its directory block
# ("directory corrupted"), the parent counting fewer links than names, a
# slow symlink's inode before its block, ea_set outside a not-clean window
# with the inode naming an unwritten xattr block, expand_dir's inode
# mapping an unwritten block marked free, ext2 write's inode counting
# indirect blocks not yet written; each fixed with an ordering point.
# And with e4_op_unlink's steps swapped (the inode freed, then the entry
# removed): 64 rm stops fail with "Entry 'victim' in /d (12) has
# deleted/unused inode 76".
# The hash seed is fixed so that "symlink /big/slow" on ext4 splits a full
# leaf of /big (16 writes; with a random seed about 1 run in 6 did): the
# split's inode mapped the new leaf before the leaf was written, and stops
# 10-12 of 15 left a zeroed directory block on which the reference
# e2fsck -fn aborts ("directory corrupted", exit 12).  Since the fix the
# new leaf and the inode mapping it go first, so a stop may leave the moved
# names in both leaves (link before unlink), which stop_ok accepts as a
# duplicate of one name (e2fsck -fy clears it).
# expand_dir also runs on /full1 (an index whose root is full: a new
# level) and /full2 (its one node full: a split), 125 blocks and more, so
# on ext2 past the direct blocks: before the fix that maps an appended
# block only after it is written, stops 4 and 10 left an indirect block
# naming a zeroed block ("directory corrupted", e2fsck -fn aborts); a stop
# between that map and the inode's size leaves a size short of the mapped
# blocks, which stop_ok accepts for a directory (e2fsck -fy grows it).
. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

MAXSTOPS=25	# stops per variant when it makes more writes

# the commands under test: "COMMAND|command line" (paths in the base image;
# $SRC is the directory of the source files)
VARIANTS='write|write $SRC/src1 /d/new
write|write $SRC/src3 /big/newfile
mkdir|mkdir /d/newdir
mkdir|mkdir /big/newdir
mkdir|mkdir /newtop
rm|rm /d/victim
rm|rm /big/file_with_a_longish_name_7
rm|rm /d/rmme
symlink|symlink /d/fast /tmp/x
symlink|symlink /big/slow /$LONG
symlink|symlink /slowtop /$LONG
ea_set|ea_set /d/f1 user.b world
ea_set|ea_set -f $SRC/val2 /d/f1 user.big
ea_set|ea_set -f $SRC/val3 /big user.x
ea_set|ea_set /d/small user.more short
ea_set|ea_set -f $SRC/val /d/s1 user.big
ea_set|ea_set -f $SRC/val /big/file_with_a_longish_name_3 user.big
ea_set|ea_set -f $SRC/val3 /d/victim user.big
ea_set|ea_set -f $SRC/val2 /d/sub user.big
expand_dir|expand_dir /d
expand_dir|expand_dir /big
expand_dir|expand_dir /
expand_dir|expand_dir /d/sub
expand_dir|expand_dir /full1
expand_dir|expand_dir /full2'

# ---- one variant: all its stops (run by xargs in a child) ----------------
# listing IMG OUT: the tree and xattrs as the reference debugfs reads them,
# one line per entry / xattr line, the first field naming what it is about
if [ "${1:-}" = --variant ]; then
	base=$2 line=$3 src=$DBGW_SRC res=$DBGW_RES
	export SRC=$src LONG=$(printf 'y%.0s' $(seq 1 300))
	cmd=${line%%|*}
	cl=$(eval "echo \"${line#*|}\"")
	tag=$(basename "$base" .img)-$(tr -c 'a-zA-Z0-9_\n' _ <<<"${line#*|}" | cut -c1-40)
	listing() {	# IMG OUT
		local d=$T/r
		rm -rf "$d"
		mkdir -p "$d"
		{ echo "rdump / $d"; cat "$src/ea.req"; } >"$T/req"
		"$REF_DEBUGFS" -f "$T/req" "$1" 2>/dev/null |
			awk '/^debugfs: /{c=$2 ":" $3 ":" $4; next} c ~ /^ea_/ {gsub(/ /, "_"); print c ":" $0}' >"$T/ea"
		{ "$PYTHON" "$GENTREE" list "$d" --no-atime | grep -v '^lost+found'; cat "$T/ea"; } | sort >"$2"
	}
	# a fixed clock: a stopped and a complete run give the parent the same mtime
	printf 'set_current_time 20260101000000\n%s\n' "$cl" >"$T/cmd"
	cp "$base" "$T/w.img"
	E4_CRASH_TRACE=$T/trace "$E4DEBUGFS" -w -f "$T/cmd" "$T/w.img" >/dev/null 2>"$T/err"
	rc=$?
	if [ $rc != 0 ] || [ -s "$T/err" ]; then
		echo "$tag: the complete run failed (exit $rc): $(head -2 "$T/err" | tr '\n' '|')" >"$res/$tag.fail"
		exit 0
	fi
	total=$(wc -l <"$T/trace")
	listing "$base" "$T/before"
	listing "$T/w.img" "$T/after"
	comm -12 "$T/before" "$T/after" >"$T/keep"
	sort -u "$T/before" "$T/after" >"$T/either"
	cut -d' ' -f1 "$T/before" | sort -u >"$T/oldpaths"
	stops=() fails=()
	if [ $((total - 1)) -le $MAXSTOPS ]; then
		for ((n = 1; n < total; n++)); do stops+=($n); done
	else
		for ((k = 0; k < MAXSTOPS; k++)); do stops+=($((1 + k * (total - 2) / (MAXSTOPS - 1)))); done
	fi
	fixed=0
	for n in "${stops[@]}"; do
		cp "$base" "$T/w.img"
		E4_CRASH_AFTER_WRITES=$n "$E4DEBUGFS" -w -f "$T/cmd" "$T/w.img" >/dev/null 2>&1
		rc=$?
		[ $rc = 137 ] || { fails+=("stop after $n of $total writes: exit $rc, not 137"); continue; }
		if ! stop_ok "$T/w.img"; then
			fails+=("stop after $n of $total writes: $STOP_WHY")
			continue
		fi
		if [ "$STOP_CLEAN" != 1 ]; then
			"$REF_E2FSCK" -fy "$T/w.img" >/dev/null 2>&1
			fixed=$((fixed + 1))
			ref_clean "$T/w.img" ||
				{ fails+=("stop after $n of $total: not clean after e2fsck -fy"); continue; }
		fi
		listing "$T/w.img" "$T/got"
		lost=$(comm -23 "$T/keep" "$T/got" | head -2 | tr '\n' '|')
		[ -z "$lost" ] || { fails+=("stop after $n of $total: lost: $lost"); continue; }
		# a line neither before nor after is only allowed for a new path
		odd=$(comm -13 "$T/either" "$T/got" | while read -r p rest; do
			grep -qxF -- "$p" "$T/oldpaths" && echo "$p $rest"
		done | head -2 | tr '\n' '|')
		[ -z "$odd" ] || fails+=("stop after $n of $total: changed: $odd")
	done
	echo "$cmd ${#stops[@]} $total $fixed" >"$res/$tag.ok"
	for f in "${fails[@]+"${fails[@]}"}"; do echo "$tag ($cl): $f"; done >"$res/$tag.fail"
	[ -s "$res/$tag.fail" ] || rm -f "$res/$tag.fail"
	exit 0
fi

need_e4debugfs
need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DEBUGFS" "$PYTHON"
need_cmd comm xargs

# the work happens on /dev/shm when it is there (the children's $T too)
[ -d /dev/shm ] && [ -w /dev/shm ] && export TMPDIR=/dev/shm
S=$T/src
mkdir -p "$S" "$T/res"
python3 - "$S" <<'PY' || fail "cannot make the sources"
import random, sys
r = random.Random(13)
d = sys.argv[1]
for name, n in (("src1", 150000), ("src2", 4000), ("src3", 500000), ("src4", 3000)):
    open(d + "/" + name, "wb").write(r.randbytes(n))
for name, n in (("val", 600), ("val2", 700), ("val3", 300)):
    open(d + "/" + name, "w").write("".join(r.choice("abcdefgh") for _ in range(n)))
PY
LONG=$(printf 'x%.0s' $(seq 1 300))
{
	echo "mkdir /d"
	echo "mkdir /big"
	echo "mkdir /d/sub"
	for i in $(seq 1 60); do echo "write $S/src2 /big/file_with_a_longish_name_$i"; done
	echo "write $S/src1 /d/f1"
	echo "write $S/src1 /d/victim"
	echo "write $S/src4 /d/small"
	echo "write $S/src1 /d/rmme"
	echo "symlink /d/s1 /tmp/short"
	echo "symlink /d/s2 /$LONG"
	echo "ea_set /d/f1 user.a hello"
	echo "ea_set -f $S/val /d/victim user.big"
	echo "ea_set -f $S/val /d/small user.big"
	echo "ea_set /d/sub user.dirattr dirvalue"
	for d in full1 full2; do
		echo "mkdir /$d"
		for i in $(seq 1 40); do echo "mknod /$d/node_with_a_longish_name_$i p"; done
	done
} >"$T/base.cmd"
# the xattrs the listing reads (ea_list; ea_get for the values it does not print)
cat >"$S/ea.req" <<'EOF'
ea_list /d/f1
ea_list /d/victim
ea_list /d/small
ea_list /d/sub
ea_list /big
ea_list /d/s2
ea_get /d/victim user.big
ea_get /d/small user.big
ea_get /d/f1 user.big
ea_get /big user.x
EOF

# fill_last_node IMG DIR: expand_dir DIR until the last index node (the
# root, or the last node one level below) is full -- one more expand when
# it is full already
fill_last_node() {
	local cl n c l i
	cl=$("$REF_DEBUGFS" -R "htree $2" "$1" 2>/dev/null |
		awk '/^Number of entries \(count\)/ {c = $NF} /^Number of entries \(limit\)/ {l = $NF; if (!n++) {rc = c; rl = l} else {nc = c; nl = l}}
		     END {if (n > 1) print nc, nl; else print rc, rl}')
	read -r c l <<<"$cl"
	[ -n "$c" ] && [ -n "$l" ] || fail "$2 is not indexed"
	n=$((l - c))
	[ $n -gt 0 ] || n=1
	for ((i = 0; i < n; i++)); do echo "expand_dir $2"; done >"$T/fill.cmd"
	"$E4DEBUGFS" -w -f "$T/fill.cmd" "$1" >/dev/null 2>"$T/fill.err" && [ ! -s "$T/fill.err" ] ||
		fail "filling $2: $(head -2 "$T/fill.err")"
}
for t in ext4 ext2; do
	img=$T/$t.img
	# a fixed hash seed: with it the symlink into /big splits a full leaf
	"$REF_MKE2FS" -q -F -t $t -b 1024 -g 1024 -N 1024 -U 19665b81-25fb-4812-af58-a23a1f1665d5 \
		-E hash_seed=84f40d8f-dece-4b05-b5ee-617d7ad2ec80 "$img" 8M >/dev/null 2>&1 ||
		fail "mke2fs -t $t failed"
	"$E4DEBUGFS" -w -f "$T/base.cmd" "$img" >"$T/base.out" 2>&1 ||
		fail "$t: the base script failed: $(grep -v '^e4debugfs' "$T/base.out" | head -3)"
	grep -q '^[a-z_]*: ' "$T/base.out" && fail "$t: the base script: $(grep '^[a-z_]*: ' "$T/base.out" | head -3)"
	# /full1: an index whose root is full (the next expand_dir adds a
	# level); /full2: one level below, its only node full (the next
	# expand_dir splits it)
	fill_last_node "$img" /full1
	for i in 1 2 3; do fill_last_node "$img" /full2; done
	ref_clean "$img" || fail "$t: the base image is not clean"
done
export DBGW_SRC=$S DBGW_RES=$T/res
for t in ext4 ext2; do
	grep -E "${E4_DBGW_ONLY:-.}" <<<"$VARIANTS" | while IFS= read -r v; do printf '%s\0%s\0' "$T/$t.img" "$v"; done
done | xargs -0 -n2 -P "${E4_JOBS:-2}" bash "$0" --variant || fail "a worker failed"

# per type and command: the stops judged (at least 20)
short=()
for t in ext4 ext2; do
	for c in write mkdir rm symlink ea_set expand_dir; do
		n=$(cat "$T/res/$t"-*.ok 2>/dev/null | awk -v c=$c '$1 == c {s += $2} END {print s + 0}')
		w=$(cat "$T/res/$t"-*.ok 2>/dev/null | awk -v c=$c '$1 == c {printf "%s%d", (s++ ? "+" : ""), $3}')
		f=$(cat "$T/res/$t"-*.ok 2>/dev/null | awk -v c=$c '$1 == c {s += $4} END {print s + 0}')
		info "$t $c: $n stops over $w writes, $f repaired by e2fsck -fy"
		[ "$n" -ge 20 ] || [ -n "${E4_DBGW_ONLY:-}" ] || short+=("$t $c: only $n stops")
	done
done
nfail=0
for f in "$T/res"/*.fail; do
	[ -e "$f" ] || continue
	nfail=$((nfail + $(wc -l <"$f")))
	sed "s/^/FAIL: $TEST_NAME: /" "$f" | head -5 >&2
done
for s in "${short[@]+"${short[@]}"}"; do echo "FAIL: $TEST_NAME: $s" >&2; done
[ $nfail = 0 ] && [ ${#short[@]} = 0 ] || fail "$nfail stops failed, ${#short[@]} commands short of stops"
info "all stops safe, repaired clean, earlier work intact ($(elapsed)s)"
