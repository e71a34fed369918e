#!/bin/bash
# fsck_p1_clean64k: no false alarms from passes 1 and 5 on 64 KiB-block
# images the 64 KiB-page kernel wrote (issue 15, acceptance 1; the kernel
# of ../shared/tools/kernel64k, about 7 s a run).  Kept apart from
# fsck_p1_clean so that a missing kernel64k skips this test only.
# On reference mke2fs -b 65536 images (ext4 with a journal; ext3) the guest
# kernel writes a directory of 300 entries (every third removed again:
# more than one 64 KiB block), a 300 KB file, a sparse file (one 5,000-byte
# piece 2 MB in), a small and an empty file, a fast and a slow symlink, a
# FIFO, a device, and a file written and removed.  The reference e2fsck -fn
# is clean (premise); e4fsck -fn must exit 8 and say no problem line.
# Catches: a size or i_blocks rule written for 4 KiB blocks (a 64 KiB
# directory block's size, i_blocks counted in 4 KiB units), a block map
# rule that takes 65536 / 4 entries as a 16-bit count.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_MKE2FS" "$REF_E2FSCK"
need_e4fsck
k64_ensure
tmp_on_tmpfs 600m

cat >"$T/w.sh" <<'K64'
stat -f -c %S /mnt
mkdir d big
i=0; while [ $i -lt 300 ]; do echo x > big/entry_with_a_longer_name_$i; i=$((i+1)); done
dd if=/dev/urandom of=d/rand bs=1000 count=300 2>/dev/null
dd if=/dev/urandom of=d/sparse bs=1 count=5000 seek=2000000 2>/dev/null
echo hi > d/small; : > d/empty
ln -s short d/sl; ln -s LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL d/sl_long
mkfifo d/fifo; mknod d/chr c 1 3
i=0; while [ $i -lt 300 ]; do rm big/entry_with_a_longer_name_$i; i=$((i+3)); done
dd if=/dev/zero of=d/gone bs=65536 count=3 2>/dev/null; rm d/gone
sync
K64

bad=()
for t in ext4 ext3; do
	img=$TFS/$t.img
	"$REF_MKE2FS" -q -F -t $t -b 65536 "$img" 256M >/dev/null 2>&1 || fail "$t: mke2fs -b 65536 failed"
	K64_FSTYPE=ext4 K64_TIMEOUT=300 bash "$K64_TOOLS/run.sh" "$E4_K64_DIR" "$img" "$T/w.sh" \
		>"$T/k64_$t.log" 2>&1 || fail "$t: the 64 KiB-page kernel could not write the image: $(grep 'K64:END' "$T/k64_$t.log")"
	grep -qx 65536 "$T/k64_$t.log" || fail "$t: the guest did not see 64 KiB blocks"
	ref_clean "$img" || fail "$t: the reference e2fsck -fn is not clean (premise): $REF_CLEAN_OUT"
	runcap "$T/$t" 60 "$E4FSCK" -fn "$img"
	san_report "$T/$t.err" && fail "$t: sanitizer report: $(head -5 "$T/$t.err")"
	[ "$(cat "$T/$t.rc")" = 8 ] ||
		bad+=("$t: e4fsck -fn: $(describe_rc "$(cat "$T/$t.rc")"), expected 8")
	extra=$(grep -v -e '^Pass [0-9]' -e '^Pass\(es\)\? [2-4].* did not run' -e "^$img: [0-9]*/[0-9]* files" -e '^$' \
		"$T/$t.out")
	[ -z "$extra" ] || bad+=("$t: e4fsck -fn said: $(head -4 <<<"$extra" | tr '\n' ' ')")
done
[ ${#bad[@]} = 0 ] || fail "$(printf '%s\n' "${bad[@]}")"
info "no problem said on 2 images the 64 KiB-page kernel wrote ($(elapsed)s)"
exit 0
