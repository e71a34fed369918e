#!/bin/bash
# dbgw_review2: e4debugfs -w smaller defects from review 2.
# 1. file commands refused on a filesystem with quota (user, group or
#    project quota; the project feature alone is no bar):
#    the library cannot update the quota files, so each create/remove
#    left the usage wrong (e2fsck exit 4); raw edits stay allowed.
# 2. fallocate without end_blk from a start near the largest file stops
#    at the last block a file can map (extents: 4294967294), as the man
#    page says (the reference 1.47.0 fails there: a bug); a start past it
#    is refused.
# 3. ln of a directory is refused (link(2) gives EPERM; e2fsck flags
#    every directory hard link), the image unchanged.
# 4. Messages: symlink with an empty target says the target is empty (the
#    reference 1.47.0 makes a 0-byte symlink e2fsck then flags: a bug);
#    ln into a directory whose entry exists names dest/name; a last name
#    of 256 bytes says File name too long with its length, not "does not
#    end with a name".
# 5. With stdout and stderr in one pipe, the lines come in the order
#    printed: "Allocated inode: N" before the failure of that write and
#    "removed" (stdout was flushed only after the command).
# 6. -D on an image in tmpfs opens where the kernel's tmpfs takes
#    O_DIRECT (6.6 and later: the man page said tmpfs refuses it), and
#    the man page no longer says so.
# 7. A stop between a bitmap's write and its descriptor's (made with the
#    crash-point layer, E4_CRASH_AFTER_WRITES) leaves a not-clean
#    filesystem whose bitmap fails its checksum: a read-only open warns
#    and works (ls), -w is refused with one line saying to run e4fsck
#    first, the image unchanged; e4fsck -fy then leaves it clean.
# (Parts run 1-5, 7, then 6, which rewrites base.img.)
# Catches: mkdir on a -O quota filesystem leaving "[QUOTA WARNING] Usage
# inconsistent"; a directory hard link from ln; an image a killed -w
# left that cannot even be listed without -c.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DEBUGFS"
need_e4debugfs
need_e4fsck
export E2FSCK_CONFIG=/dev/null
E=$E4DEBUGFS
D=$T
[ -d /dev/shm ] && D=$(mktemp -d /dev/shm/dbgw_review2.XXXXXX) && on_exit rm -rf "$D"

"$REF_MKE2FS" -q -F -t ext4 "$D/base.img" 4M >/dev/null 2>&1 || fail "mke2fs failed"

# ---- 1. quota: file commands refused, raw edits allowed ------------------
for opt in "-O quota" "-O quota -E quotatype=prjquota"; do
	"$REF_MKE2FS" -q -F -t ext4 -I 256 $opt "$D/q.img" 4M >/dev/null 2>&1 ||
		fail "mke2fs $opt failed"
	cp "$D/q.img" "$D/q0.img"
	for cmd in "mkdir /x" "write /dev/null /f" "rm /lost+found/none"; do
		runcap "$D/r" 20 "$E" -w -R "$cmd" "$D/q.img"
		grepq "has quota (feature quota): file commands would leave the usage wrong" "$D/r.err" ||
			fail "$opt: $cmd not refused: $(cat "$D/r.out" "$D/r.err")"
		[ "$(wc -l <"$D/r.err")" = 1 ] || fail "$opt: $cmd: more than one line: $(cat "$D/r.err")"
		cmp -s "$D/q.img" "$D/q0.img" || fail "$opt: $cmd changed the image"
	done
	runcap "$D/r" 20 "$E" -w -R "ssv mtime 20200101" "$D/q.img"
	[ -s "$D/r.err" ] && fail "$opt: ssv refused: $(cat "$D/r.err")"
	ref_clean "$D/q.img" || fail "$opt: ssv: the reference e2fsck is not clean"
done
# the project feature alone (ids, no quota inode) is no bar
"$REF_MKE2FS" -q -F -t ext4 -I 256 -O project "$D/q.img" 4M >/dev/null 2>&1 || fail "mke2fs -O project"
runcap "$D/r" 20 "$E" -w -R "mkdir /x" "$D/q.img"
[ -s "$D/r.err" ] && fail "project: mkdir refused: $(cat "$D/r.err")"
ref_clean "$D/q.img" || fail "project: mkdir: the reference e2fsck is not clean"

# ---- 2. fallocate near the largest file clamps -----------------------------
cp "$D/base.img" "$D/f.img"
"$REF_DEBUGFS" -w -R "write /dev/null f" "$D/f.img" >/dev/null 2>&1 || fail "debugfs write"
runcap "$D/r" 20 "$E" -w -R "fallocate /f 4294967290" "$D/f.img"
[ -s "$D/r.err" ] && fail "fallocate /f 4294967290: $(cat "$D/r.err")"
"$REF_DEBUGFS" -R "ex /f" "$D/f.img" 2>/dev/null | grep -Eq '4294967290 - 4294967294 .* 5 Uninit' ||
	fail "fallocate: not blocks 4294967290-4294967294: $("$REF_DEBUGFS" -R "ex /f" "$D/f.img" 2>&1)"
ref_clean "$D/f.img" || fail "fallocate: the reference e2fsck is not clean"
cp "$D/f.img" "$D/f0.img"
runcap "$D/r" 20 "$E" -w -R "fallocate /f 4294967295" "$D/f.img"
grepq 'beyond the maximum file size' "$D/r.err" || fail "fallocate past the largest file: $(cat "$D/r.err")"
cmp -s "$D/f.img" "$D/f0.img" || fail "fallocate past the largest file changed the image"

# ---- 3. ln of a directory refused -------------------------------------------
: >"$D/empty"
cp "$D/base.img" "$D/l.img"
printf 'mkdir /a\nwrite %s /g\nwrite %s /a/g\n' "$D/empty" "$D/empty" >"$D/cmds"
runcap "$D/r" 20 "$E" -w -f "$D/cmds" "$D/l.img"
grepq 'Allocated inode' "$D/r.out" || fail "setup: $(cat "$D/r.err")"
cp "$D/l.img" "$D/l0.img"
runcap "$D/r" 20 "$E" -w -R "ln /a /b" "$D/l.img"
grepq '/a: a directory cannot have another hard link' "$D/r.err" ||
	fail "ln of a directory not refused: $(cat "$D/r.out" "$D/r.err")"
[ "$(wc -l <"$D/r.err")" = 1 ] || fail "ln of a directory: more than one line: $(cat "$D/r.err")"
cmp -s "$D/l.img" "$D/l0.img" || fail "ln of a directory changed the image"

# ---- 4. messages -----------------------------------------------------------------
runcap "$D/r" 20 "$E" -w -R "symlink /s ''" "$D/l.img"
grepq 'the target is empty' "$D/r.err" || fail "symlink '': $(cat "$D/r.out" "$D/r.err")"
grepq 'shorter than a block' "$D/r.err" && fail "symlink '': $(cat "$D/r.err")"
for dest in /a /a/; do
	runcap "$D/r" 20 "$E" -w -R "ln /g $dest" "$D/l.img"
	grepq 'while linking /a/g to /g' "$D/r.err" || fail "ln /g $dest: $(cat "$D/r.out" "$D/r.err")"
done
long=$(printf '%0256d' 0)
runcap "$D/r" 20 "$E" -w -R "mkdir /$long" "$D/l.img"
grepq "File name too long - the last name of \"/$long\" has 256 bytes, the most is 255" "$D/r.err" ||
	fail "mkdir of a 256-byte name: $(cat "$D/r.out" "$D/r.err")"
grepq 'does not end with a name' "$D/r.err" && fail "mkdir of a 256-byte name: $(cat "$D/r.err")"
cmp -s "$D/l.img" "$D/l0.img" || fail "the refused commands changed the image"

# ---- 5. output order through a pipe ---------------------------------------
cp "$D/base.img" "$D/w.img"
yes e4kit | head -c 5M >"$D/big"
"$E" -w -R "write $D/big /big" "$D/w.img" 2>&1 | cat >"$D/w.out"
grep -n . "$D/w.out" | tr '\n' '|' |
	grep -Eq '^1:Allocated inode: [0-9]+\|2:write: .*\|3:write: /big removed\|$' ||
	fail "write's lines out of order: $(cat "$D/w.out")"
ref_clean "$D/w.img" || fail "the failed write: the reference e2fsck is not clean"

# ---- 7. a stop leaves a bitmap checksum mismatch --------------------------------
"$REF_MKE2FS" -q -F -t ext4 "$D/c.img" 8M >/dev/null 2>&1 || fail "mke2fs failed"
yes e4kit | head -c 3M >"$D/c.f"
found=
for n in $(seq 1 30); do
	cp "$D/c.img" "$D/c1.img"
	E4_CRASH_AFTER_WRITES=$n "$E" -w -R "write $D/c.f /big" "$D/c1.img" >/dev/null 2>&1
	"$REF_E2FSCK" -fn "$D/c1.img" >"$D/c.fsck" 2>&1
	grep -q 'bitmap does not match checksum' "$D/c.fsck" && { found=$n; break; }
done
[ -n "$found" ] || fail "no stop left a bitmap checksum mismatch"
runcap "$D/r" 20 "$E" -R "ls /" "$D/c1.img"
grepq 'lost+found' "$D/r.out" || fail "stop $found: read-only open: $(cat "$D/r.err")"
grepq 'warning: .* bitmap checksum does not match .*not clean' "$D/r.err" ||
	fail "stop $found: no warning: $(cat "$D/r.err")"
cp "$D/c1.img" "$D/c0.img"
runcap "$D/r" 20 "$E" -w -R "ls /" "$D/c1.img"
grepq 'run e4fsck first' "$D/r.err" || fail "stop $found: -w: $(cat "$D/r.out" "$D/r.err")"
[ "$(wc -l <"$D/r.err")" = 1 ] || fail "stop $found: -w: more than one line: $(cat "$D/r.err")"
cmp -s "$D/c1.img" "$D/c0.img" || fail "stop $found: the refused -w open changed the image"
"$E4FSCK" -fy "$D/c1.img" >/dev/null 2>&1
ref_clean "$D/c1.img" || fail "stop $found: e4fsck -fy did not mend it"

# ---- 6. -D on tmpfs --------------------------------------------------------------
src=${E4_SRCDIR:-$(dirname "$0")/../..}
grep -q 'an image on tmpfs' "$src/doc/e4debugfs.8" && fail "the man page says -D fails on tmpfs"
if [ "$(stat -f -c %T "$D")" = tmpfs ] &&
	dd if=/dev/zero of="$D/probe" bs=4096 count=1 oflag=direct 2>/dev/null; then
	runcap "$D/r" 20 "$E" -D -w -R "ssv mtime 20200101" "$D/base.img"
	[ -s "$D/r.err" ] && fail "-D on tmpfs: $(cat "$D/r.err")"
	ref_clean "$D/base.img" || fail "-D on tmpfs: the reference e2fsck is not clean"
fi

exit 0
