#!/bin/bash
# fsck_review3: what a review of the full check (passes 1-5) found: an
# answer or a repair that the exit status or the disk did not follow.
# Image: 4 MiB ext4 (1 KiB blocks, metadata_csum) made by the reference
# mke2fs -d from a small tree (30 small files, /d1/nums, /d1/d2/rand of
# 200000 bytes, a symlink, a hard link, /big with 300 empty files); the
# damage is made on a copy with the reference debugfs -w; corpus images
# from $E4KIT_SHARED/corpus.
#  - zeroed_root: /big/e1's i_block[0..2] zeroed (no extent magic, not a
#    block map either): -fn says "extent tree root is unusable ... Clear?
#    no" and must exit 4 (it exited 0: the row's no was left to an
#    alternative row that the check does not ask then); corpus
#    f_zeroed_ext_header the same.
#  - toobig_dir: /d1/d2's one extent moved to logical block 4000000000;
#    corpus f_toobig_extent_dir (an extent at 4294967280) and f_lotsbad (a
#    directory block at logical 16580876 through a triple-indirect block):
#    -fy must drop the block a directory cannot reach without large_dir
#    (2^31 bytes: e2fsck's "causes directory to be too big"), exit 1, leave
#    an image the reference calls clean and the kernel mounts; a second
#    -fy finds nothing (exit 8, no question).  The bug: "size is 1024, but
#    its blocks call for 4398046495744. Fix? yes" with nothing written
#    (the size does not fit a directory's 32 bits), the same every run.
#    For /d1/d2 the directory is then left with no block: it is cleared as
#    the reference does (a zero-length directory) and /d1/d2/rand goes to
#    lost+found with its contents.
#  - ea_unnamed: corpus f_ea_inode_disconnected, an EA inode no attribute
#    names: pass 4 connects it to lost+found as the reference does (it
#    said "the reference-count pass's (not in this version) to handle" and
#    left it); e4fsck also clears its EA_INODE_FL, which the reference
#    keeps and the kernel refuses on a file looked up by name ("Structure
#    needs cleaning"): here the kernel reads lost+found/#13.
#  - dir_hardlink: /big/d1b a second name for /d1: pass 2 clears it, pass 4
#    keeps /d1's count (3), the reference is clean after.
#  - read_error: every read of the root directory's block fails
#    (E4_FAIL_READ): pass 2 says it cannot be read; -fy must exit 12 (8,
#    a read error, + 4, the block left), ask nothing and write nothing
#    (cmp).  The bug: pass 3 took the unread '..' for "<inode 0>", asked
#    "Fix? yes" on the strength of it, stopped on the read error (exit 9)
#    and ended its write window, putting "clean" back.  Passes 3-4 do not
#    run when pass 2 could not read a directory (any inode may be named
#    there).  A size repaired in pass 1 before the read error: exit 12
#    and the superblock says not clean (it stayed clean).  The same for /big made indexed (the reference's -fyD): its
#    index root unreadable (the index was cleared on the strength of it)
#    and a leaf unreadable (pass 4 then cleared the files named in it as
#    "unattached zero-length" inodes).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_E2FSCK" "$REF_MKE2FS" "$REF_DEBUGFS" "$REF_DUMPE2FS"
need_root_loop
export E2FSCK_CONFIG=/dev/null

mkdir -p "$T/tree/d1/d2" "$T/tree/big" || fail "mkdir"
for i in $(seq 1 30); do echo "file$i" >"$T/tree/f$i"; done
seq 1 50000 >"$T/tree/d1/nums"
head -c 200000 /dev/zero | tr '\0' 'r' >"$T/tree/d1/d2/rand"
ln -s f1 "$T/tree/sl" && ln "$T/tree/f2" "$T/tree/d1/hl" || fail "links"
for i in $(seq 1 300); do : >"$T/tree/big/e$i"; done
truncate -s 4M "$T/b4.img"
"$REF_MKE2FS" -q -F -t ext4 -b 1024 -d "$T/tree" "$T/b4.img" >/dev/null 2>&1 || fail "mke2fs -d"
ref_clean "$T/b4.img" || fail "the reference is not clean on the new image: $REF_CLEAN_OUT"

dbg() { "$REF_DEBUGFS" "$@" 2>/dev/null; }
bad=()
out() { grep -v '^Pass [1-5]' "$T/$1.out" | grep -v '^$' | head -"${2:-4}" | tr '\n' ' '; }
rc_of() { cat "$T/$1.rc"; }

# -fy, then the reference clean, the kernel mounting, a second -fy quiet.
repaired() {	# repaired NAME IMG WANT...: -fy output has each WANT
	local name=$1 img=$2 w
	shift 2
	runcap "$T/$name.y" 30 "$E4FSCK" -fy "$img"
	san_report "$T/$name.y.err" && fail "$name: sanitizer report"
	[ "$(rc_of "$name.y")" = 1 ] ||
		bad+=("$name: -fy: $(describe_rc "$(rc_of "$name.y")"), expected 1: $(out "$name.y")")
	for w in "$@"; do
		grep -qF -- "$w" "$T/$name.y.out" || bad+=("$name: -fy does not say \"$w\": $(out "$name.y")")
	done
	ref_clean "$img" || bad+=("$name: the reference is not clean after -fy: $(grep -v '^Pass' <<<"$REF_CLEAN_OUT" | head -4 | tr '\n' ' ')")
	kernel_mounts "$img" || bad+=("$name: the kernel refuses the result: $KMOUNT_OUT")
	runcap "$T/$name.y2" 30 "$E4FSCK" -fy "$img"
	[ "$(rc_of "$name.y2")" = 8 ] && ! grep -q '? yes' "$T/$name.y2.out" ||
		bad+=("$name: second -fy: $(describe_rc "$(rc_of "$name.y2")"), expected 8 and no question: $(out "$name.y2")")
}

corpus_img() {	# corpus_img NAME DEST
	local gz=$E4KIT_SHARED/corpus/fsck/$1.img.gz
	[ -f "$gz" ] || fail "corpus image $gz missing"
	gzip -dc "$gz" >"$2" || fail "cannot unpack $1"
}

# ---- zeroed_root: -fn after a no to "root is unusable" exits 4 ----
cp "$T/b4.img" "$T/zr.img"
for i in 0 1 2; do dbg -w -R "sif /big/e1 block[$i] 0" "$T/zr.img"; done
corpus_img f_zeroed_ext_header "$T/zh.img"
for c in zr zh; do
	cp "$T/$c.img" "$T/$c.orig"
	runcap "$T/$c.n" 30 "$E4FSCK" -fn "$T/$c.img"
	[ "$(rc_of "$c.n")" = 4 ] ||
		bad+=("zeroed_root $c: -fn: $(describe_rc "$(rc_of "$c.n")"), expected 4: $(out "$c.n")")
	grep -q "extent tree root is unusable (no extent header magic)" "$T/$c.n.out" ||
		bad+=("zeroed_root $c: -fn does not say the root is unusable: $(out "$c.n")")
	cmp -s "$T/$c.img" "$T/$c.orig" || bad+=("zeroed_root $c: -fn wrote to the image")
done

# ---- toobig_dir: a block past what a directory may map is dropped ----
cp "$T/b4.img" "$T/tb.img"
dbg -w -R "sif /d1/d2 block[3] 4000000000" "$T/tb.img"
RAND=$(dbg -R "stat /d1/d2/rand" "$T/b4.img" | sed -n 's/^Inode: *\([0-9]*\).*/\1/p')
[ -n "$RAND" ] || fail "cannot read /d1/d2/rand's inode"
repaired toobig_b4 "$T/tb.img" "maps logical block 4000000000" "maps no block" \
	"Unattached inode $RAND"
[ "$(dbg -R "cat /lost+found/#$RAND" "$T/tb.img" | md5sum)" = "$(md5sum <"$T/tree/d1/d2/rand")" ] ||
	bad+=("toobig_b4: lost+found/#$RAND does not hold /d1/d2/rand's contents")
corpus_img f_toobig_extent_dir "$T/te.img"
repaired toobig_extent_dir "$T/te.img" "maps logical block 4294967280"
corpus_img f_lotsbad "$T/lb.img"
repaired lotsbad "$T/lb.img" "maps logical block 16580876" "size is 15360, but its blocks call for 12288"

# f_big_sparse: a file on a revision-0 filesystem whose last block (logical
# 1073742860) calls for a 4 TiB size, which it cannot take large_file to
# hold: said and left (exit 4), no "Fix? yes" that is not written (it was
# asked and answered yes every run, nothing written).  (The reference sets
# large_file and the size; the kernel then refuses the file: "bad i_size".)
corpus_img f_big_sparse "$T/bs.img"
cp "$T/bs.img" "$T/bs.orig"
runcap "$T/bs" 30 "$E4FSCK" -fy "$T/bs.img"
[ "$(rc_of bs)" = 4 ] && grep -q "which this inode cannot hold" "$T/bs.out" &&
	! grep -q '? yes' "$T/bs.out" && cmp -s "$T/bs.img" "$T/bs.orig" ||
	bad+=("big_sparse: -fy: $(describe_rc "$(rc_of bs)"), expected 4, the size said and left, nothing written: $(out bs 4)")

# ---- ea_unnamed: an EA inode nothing names goes to lost+found ----
corpus_img f_ea_inode_disconnected "$T/ea.img"
repaired ea_unnamed "$T/ea.img" "Unattached inode 13"
grep -q "not in this version" "$T/ea_unnamed.y.out" &&
	bad+=("ea_unnamed: says a pass is missing: $(grep 'not in this version' "$T/ea_unnamed.y.out")")
kernel_read "$T/ea.img" md5sum "lost+found/#13" >"$T/ea.md5" 2>&1 ||
	bad+=("ea_unnamed: the kernel cannot read lost+found/#13: $(cat "$T/ea.md5")")

# ---- dir_hardlink: a second name for a directory is cleared ----
cp "$T/b4.img" "$T/hl.img"
dbg -w -R "link /d1 /big/d1b" "$T/hl.img"
repaired dir_hardlink "$T/hl.img" "a second name for a directory"
[ "$(dbg -R "stat /d1" "$T/hl.img" | sed -n 's/.*Links: *\([0-9]*\).*/\1/p')" = 3 ] ||
	bad+=("dir_hardlink: /d1's link count is not 3 after -fy")
D1=$(dbg -R "stat /d1" "$T/b4.img" | sed -n 's/^Inode: *\([0-9]*\).*/\1/p')
# (a cleared entry may stay as a record naming inode 0)
dbg -R "ls /big" "$T/hl.img" | grep -Eq "(^|[^0-9])$D1 +\([0-9]+\) d1b" &&
	bad+=("dir_hardlink: /big/d1b still names /d1 ($D1)")

# ---- read_error: an unreadable directory block is reported, not repaired ----
cp "$T/b4.img" "$T/re.img"
RB=$(dbg -R "stat /" "$T/b4.img" | sed -n 's/^(0):\([0-9]*\).*/\1/p')
[ -n "$RB" ] || fail "cannot read the root's block"
for m in n y; do
	E4_FAIL_READ=$((RB * 1024)):1024 runcap "$T/re.$m" 30 "$E4FSCK" -f$m "$T/re.img"
	san_report "$T/re.$m.err" && fail "read_error -f$m: sanitizer report"
	[ "$(rc_of "re.$m")" = 12 ] ||
		bad+=("read_error -f$m: $(describe_rc "$(rc_of "re.$m")"), expected 12: $(out "re.$m" 6)")
	grep -q "cannot be read" "$T/re.$m.out" || bad+=("read_error -f$m: the read error is not said")
	grep -q '? yes' "$T/re.$m.out" && bad+=("read_error -f$m: a repair was asked: $(out "re.$m" 6)")
	cmp -s "$T/re.img" "$T/b4.img" || bad+=("read_error -f$m: the image was written")
done
# a repair written (pass 1: a size) and then the read error: the
# superblock must not stay "clean" (it did: the state was left as found)
cp "$T/b4.img" "$T/rs.img"
dbg -w -R "sif /d1/nums size 1" "$T/rs.img"
E4_FAIL_READ=$((RB * 1024)):1024 runcap "$T/rs" 30 "$E4FSCK" -fy "$T/rs.img"
[ "$(rc_of rs)" = 12 ] && grep -q "size is 1, but" "$T/rs.out" ||
	bad+=("read_error after a repair: -fy: $(describe_rc "$(rc_of rs)"), expected 12 and the size fixed: $(out rs 6)")
"$REF_DUMPE2FS" -h "$T/rs.img" 2>/dev/null | grep -q "^Filesystem state: *not clean" ||
	bad+=("read_error after a repair: the superblock still says clean")

cp "$T/b4.img" "$T/ix.img"
"$REF_E2FSCK" -fyD "$T/ix.img" >/dev/null 2>&1 </dev/null
ref_clean "$T/ix.img" || fail "the reference -fyD did not leave a clean image (premise)"
BIGX=$(dbg -R "stat /big" "$T/ix.img" | sed -n 's/^(0-[0-9]*):\([0-9]*\)-.*/\1/p')
dbg -R "stat /big" "$T/ix.img" | grep -q "Flags: 0x.*1[0-9a-f][0-9a-f][0-9a-f]$" && [ -n "$BIGX" ] ||
	fail "/big is not indexed after the reference's -fyD (premise)"
cp "$T/ix.img" "$T/ix.orig"
for b in "$BIGX" $((BIGX + 1)); do
	E4_FAIL_READ=$((b * 1024)):1024 runcap "$T/rx.$b" 30 "$E4FSCK" -fy "$T/ix.img"
	[ "$(rc_of "rx.$b")" = 12 ] ||
		bad+=("read_error index block $b: -fy: $(describe_rc "$(rc_of "rx.$b")"), expected 12: $(out "rx.$b" 6)")
	grep -q '? yes' "$T/rx.$b.out" && bad+=("read_error index block $b: a repair was asked: $(out "rx.$b" 6)")
	cmp -s "$T/ix.img" "$T/ix.orig" || bad+=("read_error index block $b: the image was written")
	cp "$T/ix.orig" "$T/ix.img"
done

[ ${#bad[@]} = 0 ] || fail "$(printf '%s\n' "${bad[@]}")"
exit 0
