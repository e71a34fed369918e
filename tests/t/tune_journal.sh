#!/bin/bash
# tune_journal: journal removal and addition (e4tune issue, acceptance 2).
#  - ext3 and ext4 images filled through the kernel (tests/gentree.py):
#    -O ^has_journal, then -O has_journal -J size=16: clean after each step
#    (reference e2fsck -fn), the kernel reads the same tree at each step,
#    and the free blocks summed over the group descriptors rise by the
#    journal's blocks (data and mapping) on removal;
#  - a kernel crash image (workload, shutdown ioctl with LOGFLUSH, copy
#    taken while mounted, an unlinked file held open): -O ^has_journal
#    leaves the same files as the reference tune2fs on a copy (rdump
#    against rdump) and a clean filesystem;
#  - the same image with its last commit block corrupted (not async): the
#    journal stays, the filesystem is marked for a full check, exit 1.
# Catches: a journal removal that leaves the journal's blocks marked in use
# (the reference -fn is not clean after the removal).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4tune
need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DEBUGFS" "$REF_DUMPE2FS" "$REF_TUNE2FS" "$PYTHON"
need_root_loop

# gd_free IMG: free blocks summed over the group descriptors
gd_free() {
	"$REF_DUMPE2FS" "$1" 2>/dev/null | sed -n 's/^ *\([0-9]*\) free blocks, .*/\1/p' |
		awk '{s += $1} END {print s + 0}'
}

# tree_check IMG WHAT: the kernel mounts IMG and reads the reference tree
tree_check() {
	mount_loop "$1" "$mnt" || fail "$2: the kernel does not mount it"
	"$PYTHON" "$GENTREE" list "$mnt" --no-atime >"$T/now.list"
	umount_retry "$mnt"
	diff "$T/ref.list" "$T/now.list" >"$T/d" || fail "$2: the tree differs: $(head -5 "$T/d")"
}

mnt=$T/mnt
mkdir -p "$mnt"
for type in ext3 ext4; do
	img=$T/$type.img
	"$REF_MKE2FS" -q -F -t $type "$img" 96M >/dev/null 2>&1 || fail "mke2fs -t $type failed"
	mount_loop "$img" "$mnt" || fail "$type: cannot mount"
	"$PYTHON" "$GENTREE" gen "$mnt" --no-special --bigdir 600 >"$T/gen.log" 2>&1 ||
		fail "gentree failed: $(tail -3 "$T/gen.log")"
	"$PYTHON" "$GENTREE" list "$mnt" --no-atime >"$T/ref.list"
	umount_retry "$mnt"
	bs=$("$REF_DUMPE2FS" -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
	jblocks=$(( $("$REF_DEBUGFS" -R 'stat <8>' "$img" 2>/dev/null |
		sed -n 's/.*Blockcount: \([0-9]*\).*/\1/p') / (bs / 512) ))
	free0=$(gd_free "$img")

	"$E4TUNE" -O ^has_journal "$img" >"$T/out" 2>&1 || fail "$type: -O ^has_journal failed: $(cat "$T/out")"
	ref_clean "$img" || fail "$type: not clean after removing the journal"
	"$REF_DUMPE2FS" -h "$img" 2>/dev/null | grepq '^Filesystem features:.*has_journal' &&
		fail "$type: has_journal still set"
	free1=$(gd_free "$img")
	[ $((free1 - free0)) = "$jblocks" ] ||
		fail "$type: free blocks rose by $((free1 - free0)), the journal had $jblocks"
	tree_check "$img" "$type without journal"

	"$E4TUNE" -O has_journal -J size=16 "$img" >"$T/out" 2>&1 ||
		fail "$type: -O has_journal -J size=16 failed: $(cat "$T/out")"
	ref_clean "$img" || fail "$type: not clean after adding a journal"
	"$REF_DUMPE2FS" -h "$img" 2>/dev/null | grepq '^Total journal size: *16M' ||
		fail "$type: the new journal is not 16M"
	tree_check "$img" "$type with a new journal"
	info "$type: removed ($jblocks blocks freed) and re-added, clean, tree intact"
done

# ---- a kernel crash image --------------------------------------------------
crash=$T/crash.img
"$REF_MKE2FS" -q -F -t ext4 "$crash" 64M >/dev/null 2>&1 || fail "mke2fs failed"
mount_loop "$crash" "$mnt" || fail "cannot mount the crash image"
"$PYTHON" - "$mnt" "$crash" "$T/crashed.img" <<'EOF' || fail "crash workload failed"
import fcntl, os, random, shutil, struct, sys
d, img, copy = sys.argv[1:4]
rnd = random.Random(7)
os.makedirs(d + "/dir")
for i in range(150):
    with open(f"{d}/dir/f{i}", "wb") as f:
        f.write(rnd.randbytes(500 + i * 41))
        if i % 25 == 0:
            os.fsync(f.fileno())
for i in range(0, 150, 3):
    os.rename(f"{d}/dir/f{i}", f"{d}/dir/r{i}")
for i in range(1, 150, 7):
    if i % 3:
        os.unlink(f"{d}/dir/f{i}")
with open(f"{d}/dir/f5", "r+b") as f:
    f.truncate(100)
os.link(f"{d}/dir/f4", f"{d}/hard")
held = open(f"{d}/orphan", "wb")
held.write(rnd.randbytes(60000))
held.flush()
os.fsync(held.fileno())
os.unlink(f"{d}/orphan")
os.sync()
for i in range(150, 200):
    with open(f"{d}/dir/n{i}", "wb") as f:
        f.write(rnd.randbytes(2500))
fd = os.open(d, os.O_RDONLY)
fcntl.ioctl(fd, 0x8004587D, struct.pack("I", 1))   # EXT4_IOC_SHUTDOWN, LOGFLUSH
shutil.copyfile(img, copy)                         # while still mounted
EOF
umount_retry "$mnt"
"$REF_DUMPE2FS" -h "$T/crashed.img" 2>/dev/null | grepq needs_recovery ||
	fail "the crash image does not need recovery"
cp "$T/crashed.img" "$T/ours.img"
cp "$T/crashed.img" "$T/ref.img"
cp "$T/crashed.img" "$T/bad.img"
"$E4TUNE" -O ^has_journal "$T/ours.img" >"$T/out" 2>&1 || fail "crash: e4tune failed: $(cat "$T/out")"
"$REF_TUNE2FS" -O ^has_journal "$T/ref.img" >/dev/null 2>&1
ref_clean "$T/ours.img" || fail "crash: not clean after e4tune -O ^has_journal"
mkdir -p "$T/d1" "$T/d2"
"$REF_DEBUGFS" -R "rdump / $T/d1" "$T/ours.img" >/dev/null 2>&1
"$REF_DEBUGFS" -R "rdump / $T/d2" "$T/ref.img" >/dev/null 2>&1
"$PYTHON" "$GENTREE" list "$T/d1" --no-atime >"$T/l1"
"$PYTHON" "$GENTREE" list "$T/d2" --no-atime >"$T/l2"
diff "$T/l2" "$T/l1" >"$T/d" || fail "crash: files differ from the reference's: $(head -5 "$T/d")"
[ "$(wc -l <"$T/l1")" -gt 100 ] || fail "crash: too few files recovered ($(wc -l <"$T/l1"))"
info "crash image: replayed, orphans released, journal removed, clean, same $(wc -l <"$T/l1") entries as the reference"

# ---- the last commit block corrupted ----------------------------------------
last=$("$REF_DEBUGFS" -c -R logdump "$T/bad.img" 2>/dev/null |
	sed -n 's/.*type 2 (commit block) at block \([0-9]*\).*/\1/p' | tail -1)
[ -n "$last" ] || fail "no commit block found in the crash image's journal"
async=$("$REF_DUMPE2FS" -h "$T/bad.img" 2>/dev/null | grep -c 'journal_async_commit')
[ "$async" = 0 ] || fail "unexpected async journal"
phys=$("$REF_DEBUGFS" -R "bmap <8> $last" "$T/bad.img" 2>/dev/null)
bs=$("$REF_DUMPE2FS" -h "$T/bad.img" 2>/dev/null | sed -n 's/^Block size: *//p')
printf '\336\255\276\357' | dd of="$T/bad.img" bs=1 seek=$((phys * bs + 16)) conv=notrunc status=none
"$E4TUNE" -O ^has_journal "$T/bad.img" >"$T/out" 2>&1
rc=$?
[ $rc = 1 ] || fail "corrupt commit: exit $rc, not 1: $(cat "$T/out")"
h=$("$REF_DUMPE2FS" -h "$T/bad.img" 2>/dev/null)
echo "$h" | grepq '^Filesystem features:.*has_journal' || fail "corrupt commit: the journal was removed"
echo "$h" | grepq '^Filesystem state: *not clean' || fail "corrupt commit: not marked for a full check"
info "corrupt last commit: journal kept, marked not clean, exit 1"
info "passed ($(elapsed)s)"
