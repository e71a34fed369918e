#!/bin/bash
# mkfs_cases: the mke2fs invocations of e2fsprogs' own suite
# ($E4KIT_SHARED/corpus/mkfs/cases.tsv), run through e4mkfs with the same
# options, environment (MKE2FS_DEVICE_SECTSIZE) and configuration file
# (MKE2FS_CONFIG: e4mkfs reads the file in mke2fs.conf format).
#  - A row upstream creates, that 1.47.0 accepts and whose features are in
#    e4mkfs's set: e4mkfs exits 0, the reference e2fsck -fn finds the
#    image clean, and its full dumpe2fs equals the reference mke2fs
#    1.47.0's (same options, UUID, hash seed and clock) but for the
#    documented lines.
#  - A row that must fail (upstream, or with 1.47.0): e4mkfs exits 1 and
#    the target's bytes are unchanged.
#  - A -d row (a directory or tar archive copied in): see pop_row below:
#    clean, the kernel's mount equal to the row's tree, the reference's
#    listing equal for directory rows (verdict POPULATED).
#  - A row whose option is newer than 1.47.0 (NEWER below): created,
#    clean, the option's effect checked (verdict NEWER).
#  - Every other row is skipped, named, with the reason; where the reason
#    is a feature e4mkfs does not make yet, e4mkfs must refuse it (exit 1,
#    "not supported yet", nothing written).  The skipped rows must be
#    exactly those of SKIPS below (a row that starts being skipped, or
#    one that no longer is, fails until the list says so).
# Each row ends in exactly one verdict line (CREATED, POPULATED, NEWER,
# MUSTFAIL, SKIP, REFUSED or FAIL, with the row's name); anything else in its output (a
# shell's "Segmentation fault" line, a missing verdict) fails the row.
# Catches: an e4mkfs that crashes on one option (a must-fail row or a
# created one).  Checked: e4mkfs made to segfault on `-e broken` -- the
# row was counted as "skipped" before; now it fails
# "m_error_behavior.bad_arg: not a verdict: ... Segmentation fault ...".

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$E4_TESTDIR/t/mkfs_common.bash"

need_e4mkfs
need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DUMPE2FS" "$REF_DEBUGFS"
need_cmd sha256sum tar setfacl
need_root_loop
REF_RESIZE2FS=${REF_RESIZE2FS:-$(command -v resize2fs || echo resize2fs)}
need_oracle "$PYTHON" "$REF_TUNE2FS" "$REF_RESIZE2FS"
CASES=$E4KIT_SHARED/corpus/mkfs/cases.tsv
[ -f "$CASES" ] || skip "no $CASES"
tmp_on_tmpfs 2g

# the rows skipped today (name: why); the list is checked, both ways
SKIPS=(m_hugefile m_hugefile_slack m_image_mmp m_mmp m_mcsum_extjournal m_quota)

# (empty columns become "-": read would merge neighbouring tabs)

# fp FILE: fingerprint (size, allocated blocks, content); "none" if absent
fp() {
	if [ -e "$1" ]; then
		{ stat -c '%s %b' "$1"; sha256sum <"$1"; } | sha256sum | cut -d' ' -f1
	else
		echo none
	fi
}

# run TOOL IMG OPTS...: TOOL is e4 or ref; the row's -E lists folded into
# one after the fixed hash seed (the reference keeps only its last -E)
run() {
	local tool=$1 img=$2
	shift 2
	mkfs_split_ext "$@"
	if [ "$tool" = e4 ]; then
		SOURCE_DATE_EPOCH=$MKFS_TIME MKE2FS_CONFIG=$conf timeout -k 5 600 \
			"$E4MKFS" -U "$MKFS_UUID" -E "$MKFS_EXT" "${MKFS_ARGS[@]}" "$img" $size \
			>"$img.out" 2>&1 <"${RUN_STDIN:-/dev/null}"
	else
		E2FSPROGS_FAKE_TIME=$MKFS_TIME MKE2FS_CONFIG=$conf timeout -k 5 600 \
			"$REF_MKE2FS" -U "$MKFS_UUID" -E "$MKFS_EXT" "${MKFS_ARGS[@]}" "$img" $size \
			>"$img.out" 2>&1 <"${RUN_STDIN:-/dev/null}"
	fi
}

# prepare IMG: the target as upstream has it: a file of file_size, or none
prepare() {
	rm -f "$1"
	if [ "$fsize" != - ]; then
		truncate -s "$fsize" "$1"
		# something to notice if it were overwritten
		printf 'e4kit-marker' | dd of="$1" conv=notrunc status=none
	fi
}

# The -d rows (issue 17).  The corpus records what each row copies in
# (notes) and that the result must pass e2fsck -fn, not the tree: upstream
# builds it in its script and its expected output is debugfs listings with
# inode and block numbers of e2fsprogs' own allocator, which another
# correct allocator does not reproduce.  So the meaning is compared
# instead: tests/poprows.py builds a tree from the row's notes (whole-
# second times: ustar and GNU tar keep no nanoseconds); e4mkfs runs with
# the row's options, DIR / TARFILE / - (standard input) standing for it;
# the image must be clean (reference e2fsck -fn), and the kernel's
# read-only mount must equal the tree (tests/popcmp.py: content, holes,
# types, modes, owners, times, xattrs and ACLs, link groups).  For the
# directory rows the reference mke2fs 1.47.0 builds the same row and both
# images, mounted, must give the same listing (poprows.py --listing:
# no inode or block numbers); 1.47.0 reads no archives (it fails with "Not
# a directory"), so the tar rows are compared with the tree only.
# m_minrootdir then does what its notes say: tune2fs -m 0 and resize2fs -M
# twice, each step clean and the tree unchanged.
# Catches: a -d row left skipped, an ACL or inline directory the reference
# finds wrong with -I 512, device numbers written in the wrong encoding, a
# layout resize2fs -M cannot shrink.
pop_src() {
	local name=$1 dir=$T/src.$1
	case $name in
	m_rootdir | m_minrootdir | m_rootgnutar) kind=base ;;
	m_rootdir_acl) kind=acl ;;
	m_devdir) kind=devdir ;;
	m_roottar) kind=small ;;
	m_rootpaxtar) kind=pax ;;
	*) return 1 ;;
	esac
	rm -rf "$dir"
	"$PYTHON" "$E4_TESTDIR/poprows.py" "$kind" "$dir" || return 1
	if [ "$kind" = acl ]; then
		setfacl -m u:1000:rwx,g:100:r-x,m::rwx "$dir/shared" "$dir/f03" &&
			setfacl -d -m u:1000:rwx,o::- "$dir/shared" &&
			setfacl -m u:2000:r,g::r "$dir/shared/doc" || return 1
	fi
	POP_SRC=$dir
}

# pop_listing MNT OUT
pop_listing() {
	"$PYTHON" "$E4_TESTDIR/poprows.py" --listing "$1" >"$2"
}

# pop_row NAME IMG OPTS...: one -d row; prints its verdict line
pop_row() {
	local name=$1 img=$2 tar= args=() a mnt=$TFS/$1.mnt rmnt=$TFS/$1.rmnt step
	shift 2
	pop_src "$name" || { echo "FAIL $name: cannot build its source tree"; return; }
	case $name in
	m_roottar) tar=(--format=ustar) ;;
	m_rootgnutar) tar=(--format=gnu --sparse) ;;
	m_rootpaxtar) tar=(--format=posix --xattrs --xattrs-include='*' --acls) ;;
	esac
	if [ -n "$tar" ]; then
		tar "${tar[@]}" -cf "$TFS/$name.tar" -C "$POP_SRC" . 2>"$TFS/$name.tarerr" ||
			{ echo "FAIL $name: tar: $(head -1 "$TFS/$name.tarerr")"; return; }
	fi
	for a in "$@"; do
		case $a in
		DIR) args+=("$POP_SRC") ;;
		TARFILE) args+=("$TFS/$name.tar") ;;
		*) args+=("$a") ;;
		esac
	done
	prepare "$img"
	RUN_STDIN=/dev/null
	[[ " ${args[*]} " == *" -d - "* ]] && RUN_STDIN=$TFS/$name.tar
	run e4 "$img" "${args[@]}"
	rc=$?
	if [ $rc != 0 ]; then
		echo "FAIL $name: e4mkfs exited $rc: $(head -2 "$img.out" | tr '\n' ' ')"
		return
	fi
	fsck_clean "$img" || { echo "FAIL $name: $MKFS_WHY"; return; }
	mount_loop "$img" "$mnt" ro 2>/dev/null || { echo "FAIL $name: the kernel refuses the image"; return; }
	"$PYTHON" "$E4_TESTDIR/popcmp.py" "$POP_SRC" "$mnt" >"$TFS/$name.cmp" 2>&1 ||
		{ echo "FAIL $name: the mounted image differs from the tree: $(head -3 "$TFS/$name.cmp" | tr '\n' ' ')"; return; }
	pop_listing "$mnt" "$TFS/$name.list"
	umount_retry "$mnt"
	if [ -z "$tar" ]; then
		prepare "$img.ref"
		run ref "$img.ref" "${args[@]}" ||
			{ echo "FAIL $name: the reference failed: $(head -2 "$img.ref.out" | tr '\n' ' ')"; return; }
		mount_loop "$img.ref" "$rmnt" ro 2>/dev/null || { echo "FAIL $name: the reference's image does not mount"; return; }
		pop_listing "$rmnt" "$TFS/$name.rlist"
		umount_retry "$rmnt"
		diff "$TFS/$name.rlist" "$TFS/$name.list" >"$TFS/$name.ldiff" ||
			{ echo "FAIL $name: the listing differs from the reference's: $(head -4 "$TFS/$name.ldiff" | tr '\n' ' ' | cut -c1-300)"; return; }
	fi
	if [ "$name" = m_minrootdir ]; then
		for step in "$REF_TUNE2FS -m 0" "$REF_RESIZE2FS -M" "$REF_RESIZE2FS -M"; do
			$step "$img" >"$img.step" 2>&1 ||
				{ echo "FAIL $name: $step: $(tail -1 "$img.step")"; return; }
			fsck_clean "$img" || { echo "FAIL $name: after $step: $MKFS_WHY"; return; }
		done
		mount_loop "$img" "$mnt" ro 2>/dev/null || { echo "FAIL $name: the kernel refuses the shrunk image"; return; }
		"$PYTHON" "$E4_TESTDIR/popcmp.py" "$POP_SRC" "$mnt" >"$TFS/$name.cmp" 2>&1 ||
			{ echo "FAIL $name: after resize2fs -M the tree differs: $(head -3 "$TFS/$name.cmp" | tr '\n' ' ')"; return; }
		umount_retry "$mnt"
	fi
	echo "POPULATED $name"
}

# rows 1.47.0 refuses whose option e4mkfs now takes (checked apart)
NEWER=(m_root_perms m_root_selinux)
populated=0 populated_names=() created=0 mustfail=0 mustfail_names=() newer=0 skipped=() skipped_names=() failed=()
while IFS=$'\t' read -r name opts size fsize envs confrel _ _ _ _ acc upstream _; do
	[ "$name" = name ] && continue
	[ -n "$name" ] || continue
	conf=$E4KIT_SHARED/corpus/mkfs/$confrel
	[ "$size" = - ] && size=
	reason=
	refuse=
	case " $opts " in
	*mmp*) reason="mmp: a later issue"; refuse=mmp ;;
	*quota* | *project*) reason="quota/project: a later issue"; refuse=quota ;;
	*journal_dev*) reason="external journal device (journal_dev): a later issue"; refuse=journal_dev ;;
	*assume_storage_prezeroed*) ;;
	esac
	if [ -z "$reason" ] && grep -q 'make_hugefiles' "$conf" 2>/dev/null; then
		reason="hugefiles (make_hugefiles in its configuration): a later issue"
		refuse=hugefiles
	fi
	# shellcheck disable=SC2086
	set -- $opts
	img=$TFS/$name.img
	(
		# the row's environment, e.g. MKE2FS_DEVICE_SECTSIZE=4096
		if [ "$envs" != - ]; then
			export "${envs?}"
		fi
		if [ -n "$reason" ]; then
			[ -z "$refuse" ] && { echo "SKIP $name"; exit 0; }
			prepare "$img"
			before=$(fp "$img")
			run e4 "$img" "$@"
			rc=$?
			if [ $rc != 1 ] || ! grep -qi 'not supported yet' "$img.out" ||
				[ "$(fp "$img")" != "$before" ]; then
				echo "FAIL $name: $refuse not refused cleanly (exit $rc, $(head -1 "$img.out"))"
			else
				echo "REFUSED $name"
			fi
			exit 0
		fi
		if [[ " $opts " == *" -d "* ]]; then
			pop_row "$name" "$img" "$@" </dev/null
			exit 0
		fi
		# an option newer than 1.47.0 that e4mkfs takes (issue 17's -d
		# options, from 1.47.1): created and clean, the root as asked
		# (no dumpe2fs to compare: 1.47.0 refuses the row)
		if [[ " ${NEWER[*]} " == *" $name "* ]]; then
			prepare "$img"
			run e4 "$img" "$@"
			rc=$?
			perms=$(echo " $opts" | sed -n 's/.*root_perms=\([0-7]*\).*/\1/p')
			mode=$("$REF_DEBUGFS" -R 'stat <2>' "$img" 2>/dev/null | sed -n 's/.*Mode: *\([0-7]*\).*/\1/p')
			sel=$(echo " $opts" | sed -n 's/.*root_selinux=\([^ ,]*\).*/\1/p')
			label=$("$REF_DEBUGFS" -R 'ea_get -V / security.selinux' "$img" 2>/dev/null)
			if [ $rc != 0 ]; then
				echo "FAIL $name: e4mkfs exited $rc: $(head -2 "$img.out" | tr '\n' ' ')"
			elif ! fsck_clean "$img"; then
				echo "FAIL $name: $MKFS_WHY"
			elif [ -n "$perms" ] && [ "$((8#$mode))" != "$((8#$perms))" ]; then
				echo "FAIL $name: root mode $mode, not $perms"
			elif [ -n "$sel" ] && [ "$label" != "$sel" ]; then
				echo "FAIL $name: root label '$label', not '$sel'"
			else
				echo "NEWER $name"
			fi
			exit 0
		fi
		if [[ $acc == no* ]] || [[ $upstream == must\ fail* ]]; then
			prepare "$img"
			before=$(fp "$img")
			run e4 "$img" "$@"
			rc=$?
			if [ $rc != 1 ]; then
				echo "FAIL $name: must fail, e4mkfs exited $rc: $(head -2 "$img.out" | tr '\n' ' ')"
			elif [ "$(fp "$img")" != "$before" ]; then
				echo "FAIL $name: must fail, but the target changed"
			else
				echo "MUSTFAIL $name"
			fi
			exit 0
		fi
		prepare "$img"
		run e4 "$img" "$@"
		rc=$?
		if [ $rc != 0 ]; then
			echo "FAIL $name: e4mkfs exited $rc: $(grep -v '^e4mkfs [0-9]' "$img.out" | head -2 | tr '\n' ' ')"
			exit 0
		fi
		# -E offset=N: the filesystem starts N bytes into the file
		off=$(echo " $opts" | sed -n 's/.*offset=\([0-9]*\).*/\1/p')
		target=$img${off:+?offset=$off}
		if ! fsck_clean "$target"; then
			echo "FAIL $name: $MKFS_WHY"
			exit 0
		fi
		ref=$TFS/$name.ref
		prepare "$ref"
		if ! run ref "$ref" "$@"; then
			echo "FAIL $name: the reference failed: $(head -2 "$ref.out" | tr '\n' ' ')"
			exit 0
		fi
		if ! dump_parity "$ref${off:+?offset=$off}" "$target"; then
			echo "FAIL $name: dumpe2fs differs from the reference's: $(head -4 "$target.dumpdiff" | tr '\n' ' ' | cut -c1-300)"
			exit 0
		fi
		if [ -n "$off" ] && [ "$(head -c "$off" "$img" | sha256sum)" != "$(head -c "$off" "$ref" | sha256sum)" ]; then
			echo "FAIL $name: the bytes before the offset changed"
			exit 0
		fi
		echo "CREATED $name"
	) >"$T/res.$name" 2>&1
	rm -rf "$TFS/$name".*
	r=$(cat "$T/res.$name")
	[ "$(wc -l <"$T/res.$name")" = 1 ] || r="not one verdict line"
	case $r in
	"CREATED $name") created=$((created + 1)); verbose "$name: created, clean, dumpe2fs equal" ;;
	"MUSTFAIL $name") mustfail=$((mustfail + 1)) mustfail_names+=("$name") ;;
	"POPULATED $name") populated=$((populated + 1)) populated_names+=("$name") ;;
	"NEWER $name") newer=$((newer + 1)); verbose "$name: created with an option newer than 1.47.0, clean" ;;
	"SKIP $name" | "REFUSED $name")
		[ -n "$reason" ] || failed+=("$name: skipped without a reason")
		skipped+=("$name: $reason${refuse:+ (refused: exit 1, nothing written)}")
		skipped_names+=("$name") ;;
	"FAIL $name: "*) failed+=("${r#FAIL }") ;;
	*) failed+=("$name: not a verdict: $(tr '\n' ' ' <"$T/res.$name" | cut -c1-300)") ;;
	esac
done < <(awk -F'\t' -v OFS='\t' '{ for (i = 1; i <= NF; i++) if ($i == "") $i = "-"; print }' "$CASES")

[ "$newer" = "${#NEWER[@]}" ] || failed+=("$newer of ${#NEWER[@]} rows with options newer than 1.47.0 checked")
[ "$populated" = 7 ] || failed+=("$populated of the 7 -d rows populated")
info "$populated -d rows populated, clean, equal to their tree (and for directories to the reference's listing): ${populated_names[*]}"
info "$created rows created, clean and equal to the reference's dumpe2fs; $newer with an option newer than 1.47.0 created and clean (${NEWER[*]}); $mustfail rows refused as upstream or 1.47.0 refuses them (exit 1, nothing written: ${mustfail_names[*]}); ${#skipped[@]} skipped:"
printf '  skipped %s\n' "${skipped[@]}"
info "($(elapsed) s)"
# the skipped rows are exactly the expected ones
for name in "${SKIPS[@]}"; do
	[[ " ${skipped_names[*]} " == *" $name "* ]] || failed+=("$name: expected to be skipped, but was not")
done
for name in "${skipped_names[@]}"; do
	[[ " ${SKIPS[*]} " == *" $name "* ]] || failed+=("$name: skipped, but not in the expected list")
done
[ "${#skipped_names[@]}" = "${#SKIPS[@]}" ] ||
	failed+=("${#skipped_names[@]} rows skipped, ${#SKIPS[@]} expected")
if [ ${#failed[@]} -gt 0 ]; then
	printf '  %s\n' "${failed[@]}" >&2
	fail "${#failed[@]} rows failed"
fi
exit 0
