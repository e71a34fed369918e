#!/bin/bash
# dbgw_inherit: new inodes made by e4debugfs -w (write, mkdir, symlink,
# mknod) take from their parent directory the flags the kernel passes on,
# masked by type, and the project id of a PROJINHERIT parent (issue 13).
#
#  1. A directory /p gets, with the reference debugfs `sif p flags`, every
#     flag the kernel passes on that e2fsck accepts there (secrm, unrm,
#     compr, sync, nodump, noatime, journal_data, notail, dirsync,
#     projinherit, dax) and one it does not pass on (topdir).  The kernel
#     (a loop mount) and e4debugfs -w, on two copies, each make a regular
#     file, a directory, a fast and a slow symlink and a fifo in it; every
#     new inode's flags, as the reference debugfs reads them, are the same
#     in both.  Measured on Linux 6.x (and asserted, so a kernel that
#     changes them shows here): regular files drop dirsync, topdir and
#     projinherit (0x208c0cf); directories keep all but topdir
#     (0x2209c0cf); symlinks and fifos keep nodump and noatime only.  The
#     e4debugfs image is clean.
#  2. With the project feature (the kernel here mounts no quota, so the
#     reference debugfs reads the result): /q with projinherit and project
#     77: a file, a directory, a symlink and a fifo made in it carry
#     project 77; in /r (project 78, no projinherit) they carry 0.
# Catches: new inodes made with only EXTENTS_FL (the parent's flags
# ignored: 'chattr +A' on a directory lost for files e4debugfs writes), a
# symlink given a regular file's flags, a project id not inherited.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_MKE2FS" "$REF_DEBUGFS" "$REF_E2FSCK"
need_e4debugfs
need_root_loop

failed=()
bad() { failed+=("$*"); }
LONG=$(printf 'l%.0s' $(seq 1 200))
flags_of() {	# IMG PATH: i_flags as the reference reads them (hex)
	"$REF_DEBUGFS" -R "stat $2" "$1" 2>/dev/null | sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p'
}

# ---- 1: flags, against the kernel ------------------------------------------------
# secrm unrm compr sync nodump noatime (0xcf) journal_data (0x4000)
# notail (0x8000) dirsync (0x10000) topdir (0x20000) extents (0x80000)
# dax (0x2000000) projinherit (0x20000000)
PF=0x220bc0cf
base=$T/base.img
"$REF_MKE2FS" -q -F -t ext4 -I 256 -b 1024 -U 3b5e6a4c-1d2e-4f30-8a9b-0c1d2e3f4a5b \
	-E hash_seed=5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d "$base" 8M >/dev/null 2>&1 ||
	fail "mke2fs failed"
"$REF_DEBUGFS" -w -f - "$base" >/dev/null 2>&1 <<EOF || fail "debugfs setup failed"
mkdir p
sif p flags $PF
EOF
[ "$(flags_of "$base" p)" = $PF ] || fail "the reference did not set /p's flags: $(flags_of "$base" p)"
ref_clean "$base" || fail "the base image is not clean: $REF_CLEAN_OUT"
printf 'abc' >"$T/small"

k=$T/k.img e=$T/e.img
cp "$base" "$k"
cp "$base" "$e"
mount_loop "$k" "$T/mnt" || skip "cannot loop-mount an ext4 image"
cp "$T/small" "$T/mnt/p/f"
mkdir "$T/mnt/p/d"
ln -s /tmp/x "$T/mnt/p/s"
ln -s "/$LONG" "$T/mnt/p/l"
mkfifo "$T/mnt/p/q"
umount_retry "$T/mnt"
"$E4DEBUGFS" -w -f - "$e" >"$T/e.out" 2>"$T/e.err" <<EOF
write $T/small p/f
mkdir p/d
symlink p/s /tmp/x
symlink p/l /$LONG
mknod p/q p
EOF
[ -s "$T/e.err" ] && bad "e4debugfs: $(head -2 "$T/e.err" | tr '\n' '|')"
for n in f d s l q; do
	kf=$(flags_of "$k" "p/$n") ef=$(flags_of "$e" "p/$n")
	[ -n "$kf" ] || { bad "the kernel made no p/$n"; continue; }
	[ "$kf" = "$ef" ] || bad "p/$n: flags $ef, the kernel's $kf"
done
# the kernel's rules, as measured (a kernel that changes them fails here)
[ "$(flags_of "$k" p/f)" = 0x208c0cf ] || bad "the kernel's file flags: $(flags_of "$k" p/f)"
[ "$(flags_of "$k" p/d)" = 0x2209c0cf ] || bad "the kernel's directory flags: $(flags_of "$k" p/d)"
ref_clean "$e" || bad "the e4debugfs image is not clean: $(grep -vE '^e2fsck|^Pass' <<<"$REF_CLEAN_OUT" | head -3 | tr '\n' ' ')"

# ---- 2: project ids --------------------------------------------------------------
pj=$T/pj.img
"$REF_MKE2FS" -q -F -t ext4 -I 256 -b 1024 -O project "$pj" 8M >/dev/null 2>&1 ||
	fail "mke2fs -O project failed"
"$REF_DEBUGFS" -w -f - "$pj" >/dev/null 2>&1 <<EOF || fail "debugfs setup failed"
mkdir q
sif q flags 0x20080000
sif q projid 77
mkdir r
sif r projid 78
EOF
{
	for d in q r; do
		echo "write $T/small $d/f"
		echo "mkdir $d/d"
		echo "symlink $d/s /tmp/x"
		echo "mknod $d/n p"
	done
} >"$T/pj.cmds"
"$E4DEBUGFS" -w -f "$T/pj.cmds" "$pj" >"$T/e.out" 2>"$T/e.err"
[ -s "$T/e.err" ] && bad "e4debugfs (project): $(head -2 "$T/e.err" | tr '\n' '|')"
for d in q r; do
	want=77
	[ $d = r ] && want=0
	for n in f d s n; do
		got=$("$REF_DEBUGFS" -R "stat $d/$n" "$pj" 2>/dev/null | sed -n 's/.*Project: *\([0-9]*\).*/\1/p')
		[ "$got" = $want ] || bad "$d/$n: project ${got:-none}, want $want"
	done
done

if [ ${#failed[@]} -gt 0 ]; then
	printf '  %s\n' "${failed[@]}" >&2
	fail "${#failed[@]} checks failed"
fi
info "new inodes inherit as the kernel's do"
