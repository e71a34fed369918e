#!/bin/bash
# fsck_journal_name: a stale external-journal name next to an internal
# journal (s_journal_inum 8 and s_journal_uuid set, s_journal_dev 0; or
# s_journal_dev set) is reported with -n (exit 4) and cleared with -y/-p
# (exit 1) (issue 11 item 9).
#
#  case  stale field        kernel before   reference e2fsck 1.47.0 -n
#  uuid  s_journal_uuid     mounts          "Can't find external journal", 12
#  dev   s_journal_dev      refuses         (not compared)
#
# THE REFERENCE IS WRONG for uuid: e2fsck 1.47.0 (and 1.47.4) look for an
# external journal by that UUID and stop with exit 12, while the kernel
# uses the internal journal and mounts the image; e4fsck follows the
# kernel.  For dev the kernel refuses the mount ("filesystem has both
# journal inode and journal device"): after -p/-y it mounts.
# Bug caught: e4fsck used the internal journal and said nothing (exit 0,
# "clean"), leaving the stale name (and, for dev, a filesystem the kernel
# refuses).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_MKE2FS" "$REF_DEBUGFS" "$REF_DUMPE2FS" "$REF_E2FSCK"
export E2FSCK_CONFIG=/dev/null TZ=UTC

run() {	# run NAME IMG MODE WANT_RC
	local rc
	runcap "$T/$1.$3" 30 "$E4FSCK" -$3 "$2"
	rc=$(cat "$T/$1.$3.rc")
	san_report "$T/$1.$3.err" && fail "$1 -$3: sanitizer report"
	[ "$rc" = "$4" ] || {
		cat "$T/$1.$3.out" "$T/$1.$3.err" >&2
		fail "$1 -$3: $(describe_rc "$rc"), expected $4"
	}
}

stale() {	# stale IMG: the superblock's external journal fields
	"$REF_DUMPE2FS" -h "$1" 2>/dev/null | grep -E '^Journal (UUID|device):'
}

while read -r name field kernel_before key value; do
	img=$T/$name.img
	"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$img" 16M >/dev/null 2>&1 || fail "mke2fs failed"
	"$REF_DEBUGFS" -w -R "ssv $key $value" "$img" >/dev/null 2>&1 || fail "$name: debugfs failed"
	[ -n "$(stale "$img")" ] || fail "$name: ssv changed nothing"
	if kernel_mounts "$img"; then k=mounts; else k=refuses; fi
	[ "$k" = "$kernel_before" ] || fail "$name: the kernel $k the image before the check"
	if [ $name = uuid ]; then
		"$REF_E2FSCK" -n "$img" >"$T/ref.out" 2>&1 </dev/null
		rc=$?
		# the reference is wrong here (see above): it is only noted
		[ $rc = 12 ] && grepq "find external journal" "$T/ref.out" ||
			info "note: the reference now says $rc: $(head -3 "$T/ref.out")"
	fi
	msg="The filesystem has an internal journal (inode 8), but the superblock also names an external journal ($field)"
	cp "$img" "$T/n.img"
	run $name "$T/n.img" n 4
	grepq -F "$msg" "$T/$name.n.out" || fail "$name -n: no '$msg': $(cat "$T/$name.n.out")"
	cmp -s "$img" "$T/n.img" || fail "$name -n: the image changed"
	for mode in p y; do
		cp "$img" "$T/$mode.img"
		run $name "$T/$mode.img" $mode 1
		grepq -F "$msg" "$T/$name.$mode.out" || fail "$name -$mode: not said"
		[ -z "$(stale "$T/$mode.img")" ] || fail "$name -$mode: still named: $(stale "$T/$mode.img")"
		fsck_result_mounts "$T/$mode.img" "$name -$mode"
		ref_clean "$T/$mode.img" || fail "$name -$mode: reference -fn not clean: $REF_CLEAN_OUT"
	done
done <<'EOF'
uuid s_journal_uuid mounts journal_uuid 01234567-89ab-cdef-0123-456789abcdef
dev s_journal_dev refuses journal_dev 0x801
EOF

info "stale external journal names: reported, cleared ($(elapsed)s)"
exit 0
