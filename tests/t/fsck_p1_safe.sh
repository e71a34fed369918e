#!/bin/bash
# fsck_p1_safe: pass 1 never discards what could be recovered (issue
# safep1).  One 16 MiB ext4 (1 KiB blocks, metadata_csum) populated by the
# kernel: /big (2 MiB), /small (3000 bytes), /x (a 400-byte user xattr in
# an xattr block), /sl (fast symlink "short").  Each kind damages a copy:
#  - special: /big's mode set to a char device, FIFO or socket type: -fp
#    stops (exit 4, image unchanged); -fy exits 4 and frees nothing (the
#    mode put back by debugfs, the reference is clean and the kernel reads
#    /big as before).  Bug it catches: -p "FIXED" the device's flags,
#    zeroed size and i_blocks, and pass 5 freed the file's 2 MiB.
#  - xattr_eio: a read error (E4_FAIL_READ) on /x's xattr block: -fy says
#    so, exits 12 (8: a read error, 4: the block left; the reference's -n
#    exits 12 too), leaves the image as it was.  Bug: the reference to the
#    block was cleared and pass 5 freed it.
#  - xattr_struct: e_value_size of /x's entry set to 1 MiB: -fy says the
#    block is not one (not "checksum") and a second -fy finds nothing.
#    Bug: only the checksum was rewritten; the next run cleared the block.
#  - inline_fl: INLINE_DATA_FL on /big (no inline_data feature): -fp stops
#    unchanged; -fy clears the flag, never turns the feature on, the
#    reference is clean and /big reads as before.  Bug: -y turned
#    inline_data on, set i_blocks 0, pass 5 freed /big's blocks.
#  - symlink60: /sl's i_size set to 60: -fy sets it to 5 (the target's
#    length), the kernel reads "short".  Bug: i_block was read as block
#    numbers and the inode cleared.
#  - unlinked: /small's links_count 0 (dtime 0): kept in use, pass 4
#    counts its name and sets links_count 1 (exit 1), frees nothing (the
#    reference is clean, /small reads as before).  Bug: the inode and its
#    block were freed.
#  - index_fl, casefold_fl, encrypt_fl: INDEX_FL on a file, CASEFOLD_FL
#    without the feature, ENCRYPT_FL without a context: -fy clears the
#    flag alone (reference clean, /small reads as before); -fp too but for
#    the encrypt flag (stops).  Bug: none was said (the reference says all).
#  - journal: random bytes over the inode-table block holding inode 8:
#    pass 1 leaves the journal inode pass 0 kept, two -fy runs keep
#    has_journal and the log's blocks.  Bug: pass 1 rewrote inode 8 field
#    by field, pass 5 freed the log, the second -fy removed the journal.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_E2FSCK" "$REF_MKE2FS" "$REF_DEBUGFS" "$PYTHON"
need_root_loop
export E2FSCK_CONFIG=/dev/null

img0=$T/base.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 -I 256 "$img0" 16M >/dev/null 2>&1 || fail "mke2fs failed"
mount_loop "$img0" "$T/mnt" || fail "mount failed"
"$PYTHON" - "$T/mnt" <<'PY' || fail "populating failed"
import os, sys, random
d = sys.argv[1]; r = random.Random(7)
with open(d + "/big", "wb") as f:
    f.write(bytes(r.getrandbits(8) for _ in range(2 << 20)))
with open(d + "/small", "wb") as f:
    f.write(bytes(r.getrandbits(8) for _ in range(3000)))
open(d + "/x", "w").write("x")
os.setxattr(d + "/x", "user.big", b"v" * 400)
os.symlink("short", d + "/sl")
PY
md5_big=$(md5sum <"$T/mnt/big") md5_small=$(md5sum <"$T/mnt/small")
umount_retry "$T/mnt"
ref_clean "$img0" || fail "the reference e2fsck -fn is not clean (premise): $REF_CLEAN_OUT"
acl=$("$REF_DEBUGFS" -R "stat /x" "$img0" 2>/dev/null | sed -n 's/.*File ACL: *\([0-9]*\).*/\1/p')
[[ $acl =~ ^[1-9][0-9]*$ ]] || fail "setup: /x has no xattr block"

bad=()
dbg() { "$REF_DEBUGFS" -w -R "$2" "$1" >/dev/null 2>&1 || fail "debugfs -w '$2' failed"; }
# readback IMG NAME FILE MD5: the kernel (read-only) reads FILE (a
# symlink: its target) as MD5
readback() {
	local dev got
	dev=$(losetup -r -f --show "$1") || { bad+=("$2: losetup failed"); return; }
	mkdir -p "$T/ro"
	if mount -t ext4 -o ro,noload "$dev" "$T/ro" 2>/dev/null; then
		if [ -L "$T/ro/$3" ]; then
			got=$(readlink "$T/ro/$3" | tr -d '\n' | md5sum)
		else
			got=$(md5sum <"$T/ro/$3" 2>/dev/null)
		fi
		umount "$T/ro"
		[ "$got" = "$4" ] || bad+=("$2: /$3 does not read as before")
	else
		bad+=("$2: the kernel refuses the image")
	fi
	losetup -d "$dev"
}
# run NAME MODE IMG [ENV...]: e4fsck -fMODE on IMG, output in $T/NAME.*
run() {
	local name=$1 mode=$2 img=$3
	shift 3
	runcap "$T/$name" 60 env "$@" "$E4FSCK" -f$mode "$img"
	san_report "$T/$name.err" && fail "$name: sanitizer report: $(head -5 "$T/$name.err")"
	cat "$T/$name.rc"
}
want_rc() {	# want_rc NAME GOT WANT
	[ "$2" = "$3" ] || bad+=("$1: exit $2, expected $3: $(grep -v '^Pass' "$T/$1.out" | head -4 | tr '\n' ' ')")
}

# ---- special: a file's mode damaged to a device, FIFO or socket type ----
for mode in 020644 010644 0140644; do
	n=special_$mode
	cp "$img0" "$T/$n.img"
	dbg "$T/$n.img" "sif /big mode $mode"
	cp "$T/$n.img" "$T/$n.p.img"
	want_rc $n.p "$(run $n.p p "$T/$n.p.img")" 4
	cmp -s "$T/$n.img" "$T/$n.p.img" || bad+=("$n: -fp changed the image")
	grepq "holds 2048 blocks of data" "$T/$n.p.out" || bad+=("$n -fp: does not say what it keeps")
	want_rc $n.y "$(run $n.y y "$T/$n.img")" 4
	dbg "$T/$n.img" "sif /big mode 0100644"
	ref_clean "$T/$n.img" || bad+=("$n: -fy freed or changed something: $(grep -v '^Pass\|^e2fsck' <<<"$REF_CLEAN_OUT" | head -3 | tr '\n' ' ')")
	readback "$T/$n.img" $n big "$md5_big"
done

# ---- xattr_eio: the xattr block cannot be read ----
cp "$img0" "$T/eio.img"
want_rc eio "$(run eio y "$T/eio.img" E4_FAIL_READ=$((acl * 1024)):1024)" 12
grepq "extended attribute block $acl cannot be read" "$T/eio.out" || bad+=("xattr_eio: the read error not said")
cmp -s "$img0" "$T/eio.img" || bad+=("xattr_eio: -fy changed the image")

# ---- xattr_struct: a structurally damaged block, checksum stale ----
cp "$img0" "$T/xs.img"
printf '\x00\x00\x10\x00' | dd of="$T/xs.img" bs=1 seek=$((acl * 1024 + 32 + 8)) conv=notrunc status=none
run xs1 y "$T/xs.img" >/dev/null
grepq "extended attribute block $acl is not one" "$T/xs1.out" || bad+=("xattr_struct: the damage not named: $(grep -v '^Pass' "$T/xs1.out" | head -3 | tr '\n' ' ')")
run xs2 y "$T/xs.img" >/dev/null
grepq "xtended attribute" "$T/xs2.out" && bad+=("xattr_struct: a second -fy finds the block again: $(grep -i 'xtended attribute' "$T/xs2.out" | head -2 | tr '\n' ' ')")

# ---- inline_fl: INLINE_DATA_FL on a file with extents ----
cp "$img0" "$T/il.img"
dbg "$T/il.img" "sif /big flags 0x10080000"
cp "$T/il.img" "$T/il.p.img"
want_rc il.p "$(run il.p p "$T/il.p.img")" 4
cmp -s "$T/il.img" "$T/il.p.img" || bad+=("inline_fl: -fp changed the image")
want_rc il.y "$(run il.y y "$T/il.img")" 1
"$REF_DEBUGFS" -R features "$T/il.img" 2>/dev/null | grepq inline_data && bad+=("inline_fl: -fy turned inline_data on")
ref_clean "$T/il.img" || bad+=("inline_fl: after -fy the reference is not clean: $(grep -v '^Pass\|^e2fsck' <<<"$REF_CLEAN_OUT" | head -3 | tr '\n' ' ')")
readback "$T/il.img" inline_fl big "$md5_big"

# ---- symlink60: a fast symlink's i_size 60 ----
cp "$img0" "$T/sl.img"
dbg "$T/sl.img" "sif /sl size 60"
want_rc sl "$(run sl y "$T/sl.img")" 1
grepq "has size 60, but the target it holds is 5 bytes long" "$T/sl.out" || bad+=("symlink60: not said as a size")
ref_clean "$T/sl.img" || bad+=("symlink60: after -fy the reference is not clean: $(grep -v '^Pass\|^e2fsck' <<<"$REF_CLEAN_OUT" | head -3 | tr '\n' ' ')")
readback "$T/sl.img" symlink60 sl "$(printf short | md5sum)"

# ---- unlinked: links_count 0, dtime 0, data held ----
cp "$img0" "$T/ul.img"
dbg "$T/ul.img" "sif /small links_count 0"
want_rc ul "$(run ul y "$T/ul.img")" 1
grepq "ref count is 0, should be 1" "$T/ul.out" || bad+=("unlinked: pass 4 did not set the count")
ref_clean "$T/ul.img" || bad+=("unlinked: -fy freed something: $(grep -v '^Pass\|^e2fsck' <<<"$REF_CLEAN_OUT" | head -3 | tr '\n' ' ')")
readback "$T/ul.img" unlinked small "$md5_small"

# ---- flags that mean nothing here: cleared alone, -p too ----
# INDEX_FL on a file, CASEFOLD_FL without the feature (both preen-safe),
# ENCRYPT_FL without an encryption context (-y only: -p stops).
while read -r n flags prc; do
	cp "$img0" "$T/$n.img"
	dbg "$T/$n.img" "sif /small flags $flags"
	cp "$T/$n.img" "$T/$n.p.img"
	want_rc $n.p "$(run $n.p p "$T/$n.p.img")" $prc
	want_rc $n.y "$(run $n.y y "$T/$n.img")" 1
	ref_clean "$T/$n.img" || bad+=("$n: after -fy the reference is not clean: $(grep -v '^Pass\|^e2fsck' <<<"$REF_CLEAN_OUT" | head -3 | tr '\n' ' ')")
	readback "$T/$n.img" $n small "$md5_small"
done <<FLAGS
index_fl 0x81000 1
casefold_fl 0x40080000 1
encrypt_fl 0x80800 4
FLAGS

# ---- journal: random bytes over the inode-table block holding inode 8 ----
# pass 0 keeps the journal (its map differs from s_jnl_blocks); pass 1
# must leave inode 8 too: two -fy runs keep the journal and its blocks.
itab=$("$REF_DEBUGFS" -R "imap <8>" "$img0" 2>/dev/null | sed -n 's/.*block \([0-9]*\),.*/\1/p')
jblk=$("$REF_DEBUGFS" -R "bmap <8> 0" "$img0" 2>/dev/null)
[[ $itab =~ ^[0-9]+$ && $jblk =~ ^[0-9]+$ ]] || fail "setup: inode 8 or its first block not located"
cp "$img0" "$T/jn.img"
"$PYTHON" -c "import random,sys; r=random.Random(5); sys.stdout.buffer.write(bytes(r.getrandbits(8) for _ in range(1024)))" |
	dd of="$T/jn.img" bs=1024 seek="$itab" conv=notrunc status=none
run jn1 y "$T/jn.img" >/dev/null
run jn2 y "$T/jn.img" >/dev/null
grepq "Journal inode 8 is damaged" "$T/jn1.out" || bad+=("journal: pass 1 did not leave inode 8: $(grep '^Inode 8' "$T/jn1.out" | head -2 | tr '\n' ' ')")
"$REF_DEBUGFS" -R features "$T/jn.img" 2>/dev/null | grepq has_journal || bad+=("journal: two -fy runs removed the journal")
"$REF_DEBUGFS" -R "testb $jblk" "$T/jn.img" 2>/dev/null | grepq "marked in use" || bad+=("journal: block $jblk of the log was freed")

[ ${#bad[@]} = 0 ] || fail "$(printf '%s\n' "${bad[@]}")"
info "special x3, xattr read error, xattr structure, inline flag, symlink size 60, unlinked inode, three flags, journal inode: nothing recoverable discarded ($(elapsed)s)"
exit 0
