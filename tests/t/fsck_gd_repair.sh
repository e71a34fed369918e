#!/bin/bash
# fsck_gd_repair: descriptor damage whose locations are sound is repaired
# by the full check (issue 15, e4fsck part 2a), and no inode or block in
# use is lost to a descriptor that says its group is uninitialised.
#
# Two kernel-populated images (16 MiB, 1 KiB blocks, 2048 blocks and 64
# inodes per group: /a in group 0, /b /c /d in group 1, /e in group 2,
# three files in each, written through a loop mount): metadata_csum, and
# uninit_bg without metadata_csum (gdt_csum: the reference behaves alike
# there).  One damage per case, made with the reference debugfs set_bg on
# a copy ("stale": the checksum not updated; "calc": recomputed):
#  unused      group 1 itable_unused 64 (inodes 65-67 in use), stale
#  unused_c    the same, calc (64 > 61 free: a bound fault at open)
#  unused_bm   group 1 free inodes 64, itable_unused 64, directories 0,
#              calc: a descriptor consistent in itself, which only the
#              inode bitmap (65-67 in use) contradicts
#  bu0_c       BLOCK_UNINIT on group 0 (the superblock, every group's
#              bitmaps and tables), calc
#  bu1         BLOCK_UNINIT on group 1 (file blocks in use), stale
#  iu1         INODE_UNINIT on group 1 (3 directories in use), stale
#  iu1_c       the same, calc (the free inodes count contradicts it)
#  csum        group 1's bg_checksum 0x1234, fields intact
#  dirs        group 1's directories count 2 (3 in use), stale: a field
#              changed without its checksum, which pass 0 cannot confirm
#  flags_unknown  group 1's flags 0x14 (0x10 unknown), calc: cleared
#  bu_last     BLOCK_UNINIT on the last group (7), calc: the flag cleared
#              and the group's block bitmap written (the reference's "Last
#              group block bitmap uninitialized"; e4fsck before: exit 8
#              with -y, nothing repaired, the reference -fn still 4)
# Each case: -n exits 4 and writes nothing (cmp); -y exits 1, then the
# reference e2fsck -fn is clean, the kernel mounts the image and every
# file reads with its md5 from before the damage; a second e4fsck -fy
# finds nothing (exit 8: passes 2-4 do not exist, so nothing is declared
# clean); -p exits 1 with the reference -fn clean after.  iu1_c and
# bu0_c: -y stopped after each of its writes leaves nothing the reference
# -fn did not already say about the damage, and -y again repairs it with
# every file intact.  The reference
# e2fsck 1.47.0 repairs every case with -y and -p (exit 1 for bu0_c and
# bu1_c style flag faults; exit 0 for the stale-checksum ones although
# it writes the descriptors: the reference's bug, e4fsck says 1).
#
# Bugs caught: every case but csum made e4fsck print "the full check
# must rebuild the primary descriptors" and then "the group descriptors
# are not sound: the full check (passes 1-5) cannot run; it stays due",
# exit 4 with -n, -y and -p alike, nothing ever repaired; iu1_c with the
# inode scan trusting INODE_UNINIT (checksum right) would skip group 1's
# inodes and count them free (losing /b, /c, /d to the next allocation);
# unused_bm with a scan that believes bg_itable_unused over the bitmap
# did that too (as the corpus' f_uninit_inode_past_unused: inodes 14 and
# 15, named by the root directory, freed by pass 5).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_MKE2FS" "$REF_DEBUGFS" "$REF_E2FSCK"
need_root_loop
need_cmd "$PYTHON" md5sum
export E2FSCK_CONFIG=/dev/null TZ=UTC

# sums IMG: "md5  path" of every file, read through a read-only kernel mount
sums() {
	kernel_read "$1" sh -c 'find . -type f | sort | xargs md5sum'
}

# base IMG FEATURES: the populated image
base() {
	"$REF_MKE2FS" -q -F -t ext4 -b 1024 -g 2048 -N 512 -O "$2" "$1" 16M >/dev/null 2>&1 ||
		fail "mke2fs -O $2"
	mount_loop "$1" "$T/mnt" || fail "cannot mount $1"
	"$PYTHON" - "$T/mnt" <<'PY' || fail "populating"
import os, random, sys
random.seed(15)
mnt = sys.argv[1]
for d in "abcde":
    os.mkdir(os.path.join(mnt, d))
    for f in range(3):
        n = random.randint(1000, 90000)
        with open(os.path.join(mnt, d, "f%d" % f), "wb") as fh:
            fh.write(bytes(random.getrandbits(8) for _ in range(n)))
PY
	umount_retry "$T/mnt"
	ref_clean "$1" || fail "the populated image is not clean: $REF_CLEAN_OUT"
	# the layout the cases assume: /b /c /d are inodes 65-67 (group 1)
	[ "$("$REF_DEBUGFS" -R "stat /b" "$1" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')" = 65 ] ||
		fail "/b is not inode 65 in $1"
}

run() {	# run NAME MODE WANT_RC IMG
	runcap "$T/$1.$2" 60 "$E4FSCK" -f$2 "$4"
	san_report "$T/$1.$2.err" && fail "$1 -$2: sanitizer report"
	[ "$(cat "$T/$1.$2.rc")" = "$3" ] || {
		cat "$T/$1.$2.out" "$T/$1.$2.err" >&2
		fail "$1 -$2: $(describe_rc "$(cat "$T/$1.$2.rc")"), expected $3"
	}
	if grepq -F "cannot run" "$T/$1.$2.out" "$T/$1.$2.err"; then
		fail "$1 -$2: says the full check cannot run: $(cat "$T/$1.$2.out")"
	fi
}

# case NAME SET_BG...: the damage on a copy of $B, then every mode
case_() {
	local name=$1 w=$T/$1.img a
	shift
	cp "$B" "$w"
	for a in "$@"; do echo "set_bg $a"; done |
		"$REF_DEBUGFS" -w -f - "$w" >/dev/null 2>&1 || fail "$name: debugfs"
	cmp -s "$B" "$w" && fail "$name: the damage changed nothing"

	cp "$w" "$T/n.img"
	run $name n 4 "$T/n.img"
	cmp -s "$w" "$T/n.img" || fail "$name -n: the image changed"

	cp "$w" "$T/y.img"
	run $name y 1 "$T/y.img"
	ref_clean "$T/y.img" || fail "$name -y: reference -fn not clean after: $REF_CLEAN_OUT"
	fsck_result_mounts "$T/y.img" "$name -y"
	[ "$(sums "$T/y.img")" = "$SUMS" ] || fail "$name -y: a file changed"
	run $name.again y 8 "$T/y.img"
	grepq -E "Fix|Clear" "$T/$name.again.y.out" &&
		fail "$name: a second -fy found something: $(cat "$T/$name.again.y.out")"

	cp "$w" "$T/p.img"
	run $name p 1 "$T/p.img"
	ref_clean "$T/p.img" || fail "$name -p: reference -fn not clean after: $REF_CLEAN_OUT"
	fsck_result_mounts "$T/p.img" "$name -p"
}

# stops NAME: -y on $T/NAME.img stopped after each of its writes (the
# crash-point layer, as at a power failure): the reference -fn then says
# nothing the damage did not already make it say (bitmaps first, the
# descriptors that make them count after: no block or inode in use is
# ever marked free by a stop), and -y again repairs it, files intact.
stops() {
	local name=$1 w=$T/$1.img n writes
	rm -f "$T/trace"
	cp "$w" "$T/s.img"
	E4_CRASH_AFTER_WRITES=100000 E4_CRASH_TRACE=$T/trace "$E4FSCK" -fy "$T/s.img" >/dev/null 2>&1
	writes=$(wc -l <"$T/trace")
	[ "$writes" -gt 1 ] || fail "$name: -y made $writes writes"
	cp "$w" "$T/s.img"	# (the reference names the image: the same path)
	"$REF_E2FSCK" -fn "$T/s.img" 2>&1 | grep -vE '^e2fsck |files \(' | sort -u >"$T/damage.ref"
	for ((n = 1; n < writes; n++)); do
		cp "$w" "$T/s.img"
		E4_CRASH_AFTER_WRITES=$n "$E4FSCK" -fy "$T/s.img" >/dev/null 2>&1
		"$REF_E2FSCK" -fn "$T/s.img" 2>&1 | grep -vE '^e2fsck |files \(' | sort -u >"$T/stop.ref"
		comm -13 "$T/damage.ref" "$T/stop.ref" | grepq . &&
			fail "$name: a stop after $n writes leaves what the damage did not: $(comm -13 "$T/damage.ref" "$T/stop.ref" | head -5)"
		runcap "$T/resume" 60 "$E4FSCK" -fy "$T/s.img"
		[ "$(cat "$T/resume.rc")" -le 1 ] || [ "$(cat "$T/resume.rc")" = 8 ] ||
			fail "$name: -y after a stop at write $n exited $(cat "$T/resume.rc")"
		ref_clean "$T/s.img" || fail "$name: -y after a stop at write $n: $REF_CLEAN_OUT"
		[ "$(sums "$T/s.img")" = "$SUMS" ] || fail "$name: a file changed after a stop at write $n"
	done
	verbose "$name: $writes writes, every stop safe"
}

for feat in metadata_csum ^metadata_csum,uninit_bg; do
	B=$T/base.img
	base "$B" "$feat"
	SUMS=$(sums "$B")
	[ "$(wc -l <<<"$SUMS")" = 15 ] || fail "expected 15 files: $SUMS"
	case_ unused "1 itable_unused 64"
	grepq -F "Group 1's unused inodes count is 64; its inodes in use allow at most 61" \
		"$T/unused.y.out" || fail "unused -y: not said by pass 5: $(cat "$T/unused.y.out")"
	case_ unused_c "1 itable_unused 64" "1 checksum calc"
	case_ unused_bm "1 free_inodes_count 64" "1 itable_unused 64" "1 used_dirs_count 0" \
		"1 checksum calc"
	case_ bu0_c "0 flags 2" "0 checksum calc"
	grepq -F "Group 0 is marked BLOCK_UNINIT, but" "$T/bu0_c.y.out" ||
		fail "bu0_c -y: the flag not said: $(cat "$T/bu0_c.y.out")"
	case_ bu1 "1 flags 2"
	case_ iu1 "1 flags 1"
	case_ iu1_c "1 flags 1" "1 checksum calc"
	grepq -F "Inode bitmap differences:  +(65--67)" "$T/iu1_c.y.out" ||
		fail "iu1_c -y: inodes 65-67 not found in use: $(cat "$T/iu1_c.y.out")"
	case_ csum "1 checksum 0x1234"
	case_ dirs "1 used_dirs_count 2"
	case_ flags_unknown "1 flags 0x14" "1 checksum calc"
	case_ bu_last "7 flags 0x7" "7 checksum calc"
	grepq -F "Group 7, the last, is marked BLOCK_UNINIT" "$T/bu_last.y.out" ||
		fail "bu_last -y: not said: $(cat "$T/bu_last.y.out")"
	stops iu1_c
	stops bu0_c
	verbose "$feat: every case repaired"
done

info "descriptor damage repaired by the full check, no file lost ($(elapsed)s)"
exit 0
