#!/bin/bash
# tune_crash: crash safety of e4tune's multi-step changes (e4tune issue,
# acceptance 5; issue 19 item 1).  e4tune runs under the crash-point I/O
# layer (E4_CRASH_AFTER_WRITES=N: the process dies before its N+1-th
# write, as at a power failure) for EVERY N below the operation's write
# count (traced with E4_CRASH_TRACE): removing the journal of a filled
# ext4 image, adding one to it again, adding a block-mapped journal to a
# filled ext2 image, converting that image to ext4 with a journal
# (-O extents,uninit_bg,... -j), a new UUID on the converted image
# (descriptor checksums follow it), the metadata_csum rewrite off and on.
#
# Each stop is judged by what it leaves (tests/lib.sh stop_ok, the rule of
# DESIGN.md "Writing safely"): clean if the superblock says clean; if it
# says not clean, only leaks, wrong counts, and checksums / htree indexes
# of the other checksum rules -- never a block or inode in use but marked
# free, a name for a freed inode, a block claimed twice.  Not whether
# e2fsck -fy can repair it.
# On 10 stops spread over each run and the last one, the tree must also be
# intact (the reference debugfs rdump listed with tests/gentree.py,
# against the listing before the operation: a write over file data shows
# at every later stop), after the reference e2fsck -fy where the stop was
# not clean (which must then make it clean).
#
# Bug it catches: journal removal freeing the journal's blocks before the
# superblock drops the journal (a clean filesystem whose live journal
# blocks are free: the kernel would allocate them and replay over them).
# Checked once (issue 19): with lib/e4/jcreate.c's removal steps swapped
# back (blocks freed, then inode 8 cleared, then the superblock), stops
# 1-8 of "remove" fail with "marked clean, but the reference e2fsck -fn
# reports: Block bitmap differences: +(16385--20480)"; and the write
# orders before issue 19 (no not-clean mark; inode 8 written before the
# bitmaps when adding) failed 45 of 142 stops; the UUID change wrote its
# descriptors on a filesystem still marked clean (5 of 6 stops failed).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4tune
need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DEBUGFS" "$PYTHON"
need_root_loop

# listing IMG OUT: the tree as the reference debugfs reads it
listing() {
	rm -rf "$TFS/r"
	mkdir -p "$TFS/r"
	"$REF_DEBUGFS" -R "rdump / $TFS/r" "$1" >/dev/null 2>&1
	"$PYTHON" "$GENTREE" list "$TFS/r" --no-atime | grep -v '^lost+found' >"$2"
}

tmp_on_tmpfs 512m
mnt=$T/mnt
mkdir -p "$mnt"
make_filled() {	# TYPE IMG
	"$REF_MKE2FS" -q -F -t "$1" "$2" 40M >/dev/null 2>&1 || fail "mke2fs -t $1 failed"
	mount_loop "$2" "$mnt" || fail "cannot mount $1"
	"$PYTHON" "$GENTREE" gen "$mnt" --no-special --bigdir 150 >"$T/gen.log" 2>&1 ||
		fail "gentree failed: $(tail -3 "$T/gen.log")"
	umount_retry "$mnt"
}

stops=0 repaired=0 listed=0 failures=()
# crash_all NAME IMG ARGS...: every stop of e4tune ARGS on a copy of IMG
crash_all() {
	local name=$1 img=$2 total n rc
	shift 2
	listing "$img" "$T/$name.want"
	cp "$img" "$TFS/work.img"
	rm -f "$T/trace"
	E4_CRASH_TRACE=$T/trace "$E4TUNE" "$@" "$TFS/work.img" >/dev/null 2>&1 ||
		fail "$name: e4tune failed without a crash point"
	total=$(wc -l <"$T/trace")
	[ "$total" -gt 2 ] || fail "$name: only $total writes traced"
	# the stops whose tree is listed too: 10 spread over the run, the last
	local -A list=()
	for ((n = 0; n < 10; n++)); do list[$((1 + n * (total - 2) / 9))]=1; done
	list[$((total - 1))]=1
	for ((n = 1; n < total; n++)); do
		cp "$img" "$TFS/work.img"
		E4_CRASH_AFTER_WRITES=$n "$E4TUNE" "$@" "$TFS/work.img" >/dev/null 2>&1
		rc=$?
		[ $rc = 137 ] || { failures+=("$name: stop after $n writes: exit $rc, not 137"); continue; }
		stops=$((stops + 1))
		if ! stop_ok "$TFS/work.img"; then
			failures+=("$name: stop after $n of $total writes: $STOP_WHY")
			continue
		fi
		[ -n "${list[$n]:-}" ] || continue
		listed=$((listed + 1))
		if [ "$STOP_CLEAN" != 1 ]; then
			"$REF_E2FSCK" -fy "$TFS/work.img" >"$T/fy" 2>&1
			repaired=$((repaired + 1))
			ref_clean "$TFS/work.img" ||
				{ failures+=("$name: after $n writes: not clean even after e2fsck -fy"); continue; }
		fi
		listing "$TFS/work.img" "$T/got"
		diff "$T/$name.want" "$T/got" >"$T/d" ||
			failures+=("$name: after $n writes: the tree changed: $(head -3 "$T/d" | tr '\n' '|')")
	done
	info "$name: all $((total - 1)) stops judged, ${#list[@]} of them listed"
}

e4=$T/e4.img
make_filled ext4 "$e4"
crash_all remove "$e4" -O ^has_journal
"$E4TUNE" -O ^has_journal "$e4" >/dev/null 2>&1 || fail "journal removal failed"
crash_all add "$e4" -O has_journal -J size=4
e2=$T/e2.img
make_filled ext2 "$e2"
crash_all add-blockmap "$e2" -j
crash_all convert "$e2" -O extents,uninit_bg,dir_index,huge_file,dir_nlink,extra_isize -j
# a new UUID on that (uninit_bg, no metadata_csum): descriptor checksums
# are a crc16 over the UUID
"$E4TUNE" -O extents,uninit_bg,dir_index,huge_file,dir_nlink,extra_isize -j "$e2" >/dev/null 2>&1 ||
	fail "the conversion failed"
crash_all uuid "$e2" -U 0b2d5c4e-7f1a-4a3b-9c8d-112233445566
# the checksum rewrite, both ways, on a freshly checked image
c=$T/c.img
make_filled ext4 "$c"
"$REF_E2FSCK" -fy "$c" >/dev/null 2>&1
crash_all csum-off "$c" -O ^metadata_csum
"$E4TUNE" -O ^metadata_csum "$c" >/dev/null 2>&1 || fail "metadata_csum off failed"
crash_all csum-on "$c" -O metadata_csum

for f in "${failures[@]+"${failures[@]}"}"; do
	echo "FAIL: $TEST_NAME: $f" >&2
done
[ ${#failures[@]} = 0 ] || fail "${#failures[@]} stops failed"
info "$stops stops left nothing unsafe; $listed listed: $((listed - repaired)) clean as left, $repaired repaired by e2fsck -fy, tree intact in all ($(elapsed)s)"
