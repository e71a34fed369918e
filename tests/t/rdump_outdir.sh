#!/bin/bash
# rdump_outdir: `rdump` makes the tree the reference makes whatever the
# output directory and the process around it decide for new files, and it
# does so in few system calls.  e4debugfs creates each file with its final
# mode (umask 0 meanwhile, O_EXCL) and skips fchown where a new file already
# has the inode's owner (learnt from the first file made); directories get
# descriptors while a budget of them lasts, deeper ones are reached through
# an ancestor's.  Compared with the reference debugfs (tests/gentree.py
# listing plus the output directory's own mode, owner and times), with
# writer threads (E4_RDUMP_WRITERS=2) and without (0), in:
#   setgid  an output directory with the setgid bit and group 4242: new
#           files there get group 4242; root's files must still end up
#           gid 0;
#   acl     a default ACL user::rwx,group::---,other::--- on it (decides
#           new files' modes instead of open's mode): 0644 stays 0644;
#   umask   e4debugfs run under umask 077: 0644 stays 0644;
#   exist   files already there (other content, mode, owner, longer):
#           truncated and given data, mode and owner;
#   fds     `ulimit -n 32` and 60 nested directories: more than the
#           descriptors allow, so most are reached through an ancestor's.
# Then strace -f -c: at most 5.5 system calls a file over 400 small files
# owned by root (create, read, write, times, close; the reference needs
# about 9, e4debugfs needed about 8 before).
# Catches: an fchown skipped because the caller's group was assumed for new
# files (setgid: gid 4242 left), open's mode trusted under a default ACL
# (acl: 0600), a missing umask(0) (umask: 0600), no fallback when O_EXCL
# finds a file (exist), directory descriptors kept for every level (fds:
# EMFILE), and a return to fchmod+fchown+stat for each file (strace).
# Each was checked by planting it in cmd_rdump.c.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_DEBUGFS" "$REF_MKE2FS" "$PYTHON"
need_e4debugfs
need_cmd strace		# scripts/deps.sh installs it
[ "$(id -u)" = 0 ] || skip "needs root (owners, tmpfs)"
tmp_on_tmpfs 256m

# the source tree: files of several modes and owners, one of 2.5 MiB (more
# than one writer operation), a sparse one, a symlink, a 0555 directory
# with files, 60 nested directories, 400 small root-owned files in 4
# directories (for the count)
src=$T/src
"$PYTHON" - "$src" <<'PY' || fail "making the source tree failed"
import os, random, sys
d = sys.argv[1]
r = random.Random(7)
os.makedirs(d)
def put(rel, data, mode, uid=0, gid=0, t=1500000000):
    p = os.path.join(d, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, 'wb') as f:
        f.write(data)
    os.chown(p, uid, gid)
    os.chmod(p, mode)
    os.utime(p, (t + 7, t))
put('f_root', b'hello\n', 0o644)
put('f_user', b'user data\n' * 100, 0o640, 1234, 5678)
put('f_ro', b'read only\n', 0o444)
put('f_exec', b'#!/bin/sh\n', 0o755, 1000, 1000)
put('big', bytes(r.getrandbits(8) for _ in range(2621440 + 77)), 0o600, 65534, 65534)
with open(os.path.join(d, 'sparse'), 'wb') as f:
    f.seek(300000)
    f.write(b'tail')
os.symlink('f_root', os.path.join(d, 'link'))
put('rodir/a', b'a\n', 0o644)
put('rodir/b', b'b\n', 0o600, 1234, 5678)
os.chmod(os.path.join(d, 'rodir'), 0o555)
deep = os.path.join(*(['deep'] + ['d'] * 59))
put(os.path.join(deep, 'bottom'), b'bottom\n', 0o644, 1234, 5678)
for i in range(400):
    put('many/m%d/f%03d' % (i // 100, i), bytes(r.getrandbits(8) for _ in range(r.randrange(1, 9000))), 0o644)
PY
img=$T/fs.img
truncate -s 16M "$img"
"$REF_MKE2FS" -q -F -t ext4 -N 1024 -d "$src" "$img" 16M || fail "mke2fs -d failed"

# a default ACL (system.posix_acl_default, version 2: user::rwx, group::---,
# other::---) on directory $1
set_default_acl() {
	"$PYTHON" - "$1" <<'PY'
import os, struct, sys
e = lambda tag, perm: struct.pack('<HHI', tag, perm, 0xffffffff)
os.setxattr(sys.argv[1], 'system.posix_acl_default',
            struct.pack('<I', 2) + e(0x01, 7) + e(0x04, 0) + e(0x20, 0))
PY
}

# prepare CASE DIR: an output directory as CASE wants it
prepare() {
	mkdir "$2"
	case $1 in
	setgid) chgrp 4242 "$2" && chmod 2775 "$2" ;;
	acl) set_default_acl "$2" || fail "cannot set a default ACL on tmpfs" ;;
	exist)
		head -c 5000 /dev/urandom >"$2/f_root"
		echo old >"$2/f_user"
		chown 1:1 "$2/f_root" "$2/f_user"
		chmod 0606 "$2/f_root" "$2/f_user" ;;
	esac
}

# listing DIR: the tree below DIR and DIR's own mode, owner and times
listing() {
	"$PYTHON" "$GENTREE" list "$1" && stat -c 'self %a %u %g %X %Y' "$1"
}

for case in setgid acl umask exist fds; do
	prepare "$case" "$TFS/$case.ref"
	"$REF_DEBUGFS" -R "rdump / $TFS/$case.ref" "$img" >"$T/ref.out" 2>&1 ||
		fail "$case: the reference rdump failed: $(head -3 "$T/ref.out")"
	listing "$TFS/$case.ref" >"$T/$case.ref.list" || fail "$case: listing failed"
	for w in 2 0; do
		out=$TFS/$case.e4.$w
		prepare "$case" "$out"
		(
			export E4_RDUMP_WRITERS=$w
			case $case in
			umask) umask 077 ;;
			fds) ulimit -n 32 ;;
			esac
			exec "$E4DEBUGFS" -R "rdump / $out" "$img"
		) >"$T/e4.out" 2>&1 || fail "$case, $w writers: e4debugfs failed: $(head -3 "$T/e4.out")"
		! san_report "$T/e4.out" || fail "$case, $w writers: sanitizer report: $(head -5 "$T/e4.out")"
		[ ! -s "$T/e4.out" ] || fail "$case, $w writers: e4debugfs printed: $(head -3 "$T/e4.out")"
		listing "$out" >"$T/$case.e4.list" || fail "$case: listing failed"
		diff "$T/$case.ref.list" "$T/$case.e4.list" >"$T/diff" ||
			fail "$case, $w writers: the trees differ (< reference, > e4debugfs): $(grep '^[<>]' "$T/diff" | head -6)"
		rm -rf "$out"
	done
	# the values themselves, not only agreement
	[ "$(stat -c '%a %u %g %s' "$TFS/$case.ref/f_root")" = "644 0 0 6" ] ||
		fail "$case: f_root is $(stat -c '%a %u %g %s' "$TFS/$case.ref/f_root"), not 644 0 0 6"
	[ "$(stat -c '%a %u %g' "$TFS/$case.ref/f_user")" = "640 1234 5678" ] ||
		fail "$case: f_user is $(stat -c '%a %u %g' "$TFS/$case.ref/f_user"), not 640 1234 5678"
	rm -rf "${TFS:?}/$case.ref"
done

# system calls per file: rdump of /many (400 files of 1 byte to 9 KB,
# root's) less rdump of /many/m0 (100 of them), over 300 (so what starting
# up costs, the libtool wrapper's included, cancels out)
fscalls() {	# fscalls ARG: CALLS = file system calls of `rdump ARG`
	rm -rf "$TFS/count"
	mkdir "$TFS/count"
	# LeakSanitizer cannot run under ptrace
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -qq -c -o "$T/strace" "$E4DEBUGFS" -R "rdump $1 $TFS/count" "$img" \
		>"$T/strace.out" 2>&1 || fail "e4debugfs under strace failed: $(head -3 "$T/strace.out")"
	CALLS=$(awk '$NF ~ /^(openat|open|creat|pread64|read|pwrite64|write|fchmod|fchown|fchmodat|fchownat|chmod|chown|utimensat|futimesat|close|newfstatat|fstat|statx|lseek|ftruncate|mkdir|mkdirat)$/ { n += $4 } END { print n + 0 }' "$T/strace")
	[ "$CALLS" -gt 0 ] || fail "no system calls counted: $(head -5 "$T/strace")"
}
fscalls /many
all=$CALLS
[ "$(find "$TFS/count" -type f | wc -l)" = 400 ] || fail "strace run: not 400 files dumped"
fscalls /many/m0
part=$CALLS
[ "$(find "$TFS/count" -type f | wc -l)" = 100 ] || fail "strace run: not 100 files dumped"
per=$(awk -v a="$all" -v b="$part" 'BEGIN { printf "%.2f", (a - b) / 300 }')
verbose "$all - $part file system calls: $per a file"
[ "$((all - part))" -le 1650 ] ||
	fail "$per file system calls a file (more than 5.5): $(sed -n 3,14p "$T/strace" | awk '{print $NF, $4}' | tr '\n' ';')"
echo "rdump_outdir: 5 output directories x 2 writer settings as the reference; $per file system calls a file"
exit 0
