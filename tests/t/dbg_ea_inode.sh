#!/bin/bash
# dbg_ea_inode: `ea_get` returns an extended attribute value kept in an EA
# inode (ea_inode feature), read through the library's one reader
# (e4_xattr_value), and refuses one the kernel refuses (issue 12 item 7).
# Catches: ea_get printing zeros (or stale bytes) for a value in an EA
# inode; a reader that skips the kernel's checks (EA inode flag, size,
# value hash, entry hash of an xattr block entry) or wrongly refuses a good
# value (e.g. a wrong hash seed or entry hash formula).
#
# The kernel writes the attributes (loop mount, ext4 with 1 KiB blocks and
# ea_inode): on /f an 8 KiB binary value and a 3000-byte text (entries in
# the inode, values in EA inodes) and a 4-byte inline value; on /g a 56-byte
# inline value that fills the inode and a 5000-byte value whose entry
# lands in the xattr block.  `ea_get -f` must write exactly the bytes
# written; the default, -x and -V output and `ea_list` must equal the
# reference debugfs 1.47.0's.  Then copies are damaged (EA inode i_atime
# hash, i_size, flags, i_links_count 0 (the kernel: "Stale file handle",
# and the reference debugfs refuses; e4debugfs once printed the value);
# a Lustre-style back pointer instead of the hash; a
# block entry's e_hash on a copy without metadata_csum) and ea_get must
# give the value exactly where the kernel (read-only mount, getxattr)
# gives it, and fail with a message where the kernel fails.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_DEBUGFS" "$REF_MKE2FS" "$REF_TUNE2FS" "$PYTHON" getfattr
need_e4debugfs
need_root_loop

img=$T/ea.img
mnt=$T/mnt
"$REF_MKE2FS" -q -F -t ext4 -b 1024 -O ea_inode "$img" 4M >/dev/null 2>&1 ||
	fail "mke2fs -O ea_inode failed"
mount_loop "$img" "$mnt" || fail "cannot mount the ea_inode image"
"$PYTHON" - "$mnt" "$T" <<'PY' || fail "cannot set the attributes (test setup)"
import os, sys
mnt, t = sys.argv[1], sys.argv[2]
vals = {
    ("f", "user.big"): bytes((i * 7 + 3) % 256 for i in range(8192)),
    ("f", "user.text"): b"abcdefghij" * 300,
    ("f", "user.small"): b"tiny",
    ("g", "user.s"): b"x" * 56,
    ("g", "user.big2"): bytes((i * 13 + 5) % 251 for i in range(5000)),
}
for (f, n), v in vals.items():     # in this order: /g's inode fills first
    p = os.path.join(mnt, f)
    if not os.path.exists(p):
        open(p, "w").write(f + "\n")
    os.setxattr(p, n, v)
    open(os.path.join(t, "%s_%s.val" % (f, n)), "wb").write(v)
PY
umount_retry "$mnt"

"$REF_DEBUGFS" -R 'stat /g' "$img" 2>/dev/null | grepq '^File ACL: [1-9]' ||
	fail "/g has no xattr block (test setup)"

bad=0
err() { echo "$*" >&2; bad=$((bad + 1)); }
attrs="f:user.big f:user.text f:user.small g:user.s g:user.big2"

# the values, and the reference's output: one request file for each tool
: >"$T/req"
for a in $attrs; do
	f=${a%%:*} n=${a#*:}
	echo "ea_get -f $T/TOOL_${f}_$n.out /$f $n" >>"$T/req"
	printf 'ea_get %s /%s %s\n' "" "$f" "$n" -x "$f" "$n" -V "$f" "$n" >>"$T/req"
done
printf 'ea_list /f\nea_list /g\n' >>"$T/req"
sed 's/TOOL_/e4_/' "$T/req" >"$T/req.e4"
sed 's/TOOL_/ref_/' "$T/req" >"$T/req.ref"
runcap "$T/e4" 20 "$E4DEBUGFS" -f "$T/req.e4" "$img"
runcap "$T/ref" 20 "$REF_DEBUGFS" -f "$T/req.ref" "$img"
san_report "$T/e4.err" && err "sanitizer report: $(head -3 "$T/e4.err")"
for a in $attrs; do
	f=${a%%:*} n=${a#*:}
	cmp -s "$T/e4_${f}_$n.out" "$T/${f}_$n.val" ||
		err "/$f $n: ea_get -f did not write the value"
	cmp -s "$T/ref_${f}_$n.out" "$T/${f}_$n.val" ||
		err "/$f $n: the reference's ea_get -f did not write the value (test setup)"
done
sed 's/^e4debugfs: /debugfs: /' "$T/e4.out" >"$T/e4.cmp"
grep -av '^debugfs: ea_get -f ' "$T/e4.cmp" >"$T/e4.cmp2"
grep -av '^debugfs: ea_get -f ' "$T/ref.out" >"$T/ref.cmp2"
if ! cmp -s "$T/e4.cmp2" "$T/ref.cmp2"; then
	err "ea_get (default, -x, -V) or ea_list output differs from the reference's:"
	diff "$T/ref.cmp2" "$T/e4.cmp2" | cut -c1-150 | head -6 >&2
fi

# kernel IMG FILE NAME: "ok" when the kernel reads the value written,
# else what it says
kernel() {
	local dev out
	dev=$(losetup -r -f --show "$1") || { echo "losetup failed"; return; }
	mkdir -p "$mnt"
	if mount -t ext4 -o ro "$dev" "$mnt" 2>/dev/null; then
		if getfattr --only-values -n "$3" "$mnt/$2" >"$T/k.out" 2>"$T/k.err"; then
			cmp -s "$T/k.out" "$T/${2}_$3.val" && out=ok || out="other bytes"
		else
			out=$(sed -n 's/.*: //p' "$T/k.err" | head -1)
		fi
		umount_retry "$mnt"
	else
		out="mount refused"
	fi
	losetup -d "$dev" 2>/dev/null
	echo "$out"
}

# damage CASE FILE NAME IMG WANT: ea_get gives the value exactly where the
# kernel does; WANT (ok, refused) is the kernel's verdict this test expects
# (a damage that missed its target would pass unseen otherwise)
damage() {
	local c=$1 f=$2 n=$3 d=$4 want=$5 k e
	k=$(kernel "$d" "$f" "$n")
	rm -f "$T/out"
	runcap "$T/d" 10 "$E4DEBUGFS" -R "ea_get -f $T/out /$f $n" "$d"
	if [ "$(cat "$T/d.rc")" = 0 ] && cmp -s "$T/out" "$T/${f}_$n.val"; then
		e=ok
	elif [ "$(cat "$T/d.rc")" != 0 ] && [ ! -s "$T/out" ] && grepq "ea_get: " "$T/d.err"; then
		e=refused
	else
		e="exit $(cat "$T/d.rc"), $(head -c 200 "$T/d.err")"
	fi
	case $k in "Structure needs cleaning" | "Stale file handle") k=refused ;; esac
	[ "$k" = "$want" ] || err "$c: the kernel says '$k', not '$want' (test setup)"
	[ "$e" = "$k" ] || err "$c: the kernel says '$k', e4debugfs '$e'"
	verbose "$c: kernel $k, e4debugfs $e"
	san_report "$T/d.err" && err "$c: sanitizer report"
}

# the EA inode of /f user.big: the one with EXT4_EA_INODE_FL and 8192 bytes
ea=
for i in $(seq 12 24); do
	"$REF_DEBUGFS" -R "stat <$i>" "$img" 2>/dev/null >"$T/st"
	if grepq -E '^Inode: .* Flags: 0x[0-9a-f]*[2367abef][0-9a-f]{5}$' "$T/st" &&
		grepq -E 'Size: 8192$' "$T/st"; then
		ea=$i
		break
	fi
done
[ -n "$ea" ] || fail "no EA inode of 8192 bytes (test setup)"
gen=$("$REF_DEBUGFS" -R 'stat /f' "$img" 2>/dev/null | sed -n 's/^Generation: \([0-9]*\).*/\1/p')
owner=$("$REF_DEBUGFS" -R 'stat /f' "$img" 2>/dev/null | sed -n 's/^Inode: \([0-9]*\).*/\1/p')
i=0
while IFS='|' read -r c want cmds; do
	i=$((i + 1))
	cp --sparse=always "$img" "$T/d$i.img"
	printf '%b\n' "$cmds" | "$REF_DEBUGFS" -w -f - "$T/d$i.img" >/dev/null 2>&1
	damage "$c" f user.big "$T/d$i.img" "$want"
done <<EOF
undamaged|ok|
value hash (i_atime)|refused|sif <$ea> atime 0x12345
i_size|refused|sif <$ea> size 8000
no EA_INODE flag|refused|sif <$ea> flags 0x80000
no links (a deleted inode to the kernel)|refused|sif <$ea> links_count 0
other i_mtime (no Lustre pointer)|ok|sif <$ea> mtime 1
Lustre back pointer, no hash|ok|sif <$ea> atime 0x12345\nsif <$ea> mtime $owner\nsif <$ea> generation $gen
EOF

# an xattr block entry: its e_hash covers the name and the value's hash
cp --sparse=always "$img" "$T/blk.img"
# tune2fs refuses a checksum change unless the last check is no older than
# the last mount: the kernel's mount above may have been a second later
# than mke2fs (a loaded machine), so check the copy first
"$REF_E2FSCK" -fy "$T/blk.img" >/dev/null 2>&1
"$REF_TUNE2FS" -O ^metadata_csum "$T/blk.img" >/dev/null 2>&1 || fail "tune2fs -O ^metadata_csum"
damage "block entry, no metadata_csum" g user.big2 "$T/blk.img" ok
blk=$("$REF_DEBUGFS" -R 'stat /g' "$T/blk.img" 2>/dev/null | sed -n 's/^File ACL: \([0-9]*\).*/\1/p')
"$PYTHON" - "$T/blk.img" "$blk" <<'PY' || fail "cannot damage the block entry (test setup)"
import sys
p, blk = sys.argv[1], int(sys.argv[2])
with open(p, "r+b") as f:
    f.seek(blk * 1024)
    b = bytearray(f.read(1024))
    i = b.find(b"big2")
    assert i >= 32
    b[i - 4] ^= 1       # e_hash, just before the name
    f.seek(blk * 1024)
    f.write(b)
PY
damage "block entry e_hash" g user.big2 "$T/blk.img" refused

[ "$bad" = 0 ] || fail "$bad failures"
info "5 values from EA inodes and inline agree with the reference; 9 cases of damage judged as the kernel does"
exit 0
