# tests/lib.sh: common code for e4kit's integration tests (tests/t/*.sh).
# Sourced by every test; `make check` runs the tests from the build directory
# with E4_SRCDIR, E4_BUILDDIR and E4_SANITIZERS set.  A test can also be run
# by hand:  E4_BUILDDIR=/work/build-x bash tests/t/NAME.sh
#
# Exit statuses (automake parallel harness): 0 pass, 77 skip, 99 hard error,
# anything else fail.  Under CI=true a skip caused by a missing oracle or
# facility is a failure (exit 1), so CI cannot go green by skipping.
#
# Environment honoured:
#   E4KIT_SHARED   shared material (default $E4_SRCDIR/../shared)
#   E4DEBUGFS      e4debugfs binary (default $E4_BUILDDIR/debugfs/e4debugfs)
#   REF_DEBUGFS REF_DUMPE2FS REF_MKE2FS REF_E2FSCK REF_TUNE2FS  oracles
#   E4_MATRIX      image matrix directory (default $E4_BUILDDIR/tests/matrix)
#   E4_K64_DIR     kernel64k cache (default $E4_BUILDDIR/tests/k64)
#   E4_KEEP_TMP=1  keep the per-test temporary directory
#   E4_VERBOSE=1   more output
#   E4_IMAGES      space-separated matrix image names: only those (debugging)
#   E4_JOBS        parallel jobs inside a test (default 2)

set -u
set -o pipefail
export LC_ALL=C
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"

TEST_NAME=$(basename "$0" .sh)

E4_SRCDIR=${E4_SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
E4_BUILDDIR=${E4_BUILDDIR:-$PWD}
E4_SANITIZERS=${E4_SANITIZERS:-}
E4_TESTDIR=$E4_SRCDIR/tests
export E4_SRCDIR E4_BUILDDIR E4_SANITIZERS

E4KIT_SHARED=${E4KIT_SHARED:-$E4_SRCDIR/../shared}
if [ ! -d "$E4KIT_SHARED" ]; then
	echo "ERROR: $TEST_NAME: E4KIT_SHARED=$E4KIT_SHARED does not exist" >&2
	exit 99
fi
E4KIT_SHARED=$(cd "$E4KIT_SHARED" && pwd)
export E4KIT_SHARED

# ---- tools -----------------------------------------------------------------
E4DEBUGFS=${E4DEBUGFS:-$E4_BUILDDIR/debugfs/e4debugfs}
REF_DEBUGFS=${REF_DEBUGFS:-$(command -v debugfs || echo debugfs)}
REF_DUMPE2FS=${REF_DUMPE2FS:-$(command -v dumpe2fs || echo dumpe2fs)}
REF_MKE2FS=${REF_MKE2FS:-$(command -v mke2fs || echo mke2fs)}
REF_E2FSCK=${REF_E2FSCK:-$(command -v e2fsck || echo e2fsck)}
REF_TUNE2FS=${REF_TUNE2FS:-$(command -v tune2fs || echo tune2fs)}
PYTHON=${PYTHON:-$(command -v python3 || echo python3)}
GENTREE=$E4_TESTDIR/gentree.py
MKMATRIX=$E4_TESTDIR/mkmatrix.sh
K64_TOOLS=$E4KIT_SHARED/tools/kernel64k
E4_MATRIX=${E4_MATRIX:-$E4_BUILDDIR/tests/matrix}
E4_K64_DIR=${E4_K64_DIR:-$E4_BUILDDIR/tests/k64}
export E4DEBUGFS REF_DEBUGFS REF_DUMPE2FS REF_MKE2FS REF_E2FSCK REF_TUNE2FS
export PYTHON E4_MATRIX E4_K64_DIR K64_TOOLS

# ---- messages and exits ----------------------------------------------------
is_ci() { [ "${CI:-}" = true ]; }

info() { echo "$TEST_NAME: $*"; }
verbose() { [ "${E4_VERBOSE:-0}" = 1 ] && echo "$TEST_NAME: $*"; return 0; }

# fail MSG...: the test fails (exit 1).
fail() {
	echo "FAIL: $TEST_NAME: $*" >&2
	exit 1
}

# skip WHY: skip the test (exit 77).  Under CI=true a skip is a failure:
# CI must have every oracle and facility the tests need.
skip() {
	if is_ci; then
		echo "FAIL: $TEST_NAME: would skip under CI=true: $*" >&2
		exit 1
	fi
	echo "SKIP: $TEST_NAME: $*"
	exit 77
}

# ---- temporary directory and cleanup stack ---------------------------------
# T is private to this test process; on_exit CMD pushes a cleanup command,
# run in reverse order at exit (also on error or signal).
T=$(mktemp -d "${TMPDIR:-/tmp}/e4t.$TEST_NAME.XXXXXX") || exit 99
_E4_CLEANUP=()
on_exit() { _E4_CLEANUP+=("$*"); }

_e4_cleanup() {
	local rc=$? i p
	set +e
	# stop this test's own background jobs (and their children) first
	for p in $(jobs -p); do
		pkill -TERM -P "$p" 2>/dev/null
		kill -TERM "$p" 2>/dev/null
	done
	wait 2>/dev/null
	for ((i = ${#_E4_CLEANUP[@]} - 1; i >= 0; i--)); do
		eval "${_E4_CLEANUP[i]}" >/dev/null 2>&1
	done
	# never delete through a mount that is still there
	if grep -q " ${T}[/ ]" /proc/mounts 2>/dev/null; then
		echo "$TEST_NAME: warning: mounts left under $T, not removed" >&2
	elif [ "${E4_KEEP_TMP:-0}" = 1 ]; then
		echo "$TEST_NAME: kept $T" >&2
	else
		rm -rf "$T"
	fi
	exit $rc
}
trap _e4_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# ---- requirements ----------------------------------------------------------
# need_cmd CMD...: skip when a command is missing.
need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "missing command: $c"
	done
}

# grepq ARGS...: grep's exit status without its output, for the end of a
# pipeline.  Unlike grep -q it reads all its input: with pipefail, a
# grep -q that stops at the first match can kill the writer with SIGPIPE
# and turn a match into a failure.
grepq() {
	grep "$@" >/dev/null
}

# need_oracle PATH...: skip (fail under CI) when a reference tool is missing.
need_oracle() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip "reference tool not installed: $c"
	done
}

# need_e4debugfs: the binary under test must exist (a build problem if not).
need_e4debugfs() {
	[ -x "$E4DEBUGFS" ] || command -v "$E4DEBUGFS" >/dev/null 2>&1 ||
		fail "e4debugfs not found: $E4DEBUGFS"
}

# need_e4tune, need_e4fsck: set E4TUNE / E4FSCK (unless given) to the
# binary under test, which must exist (a build problem if not).
need_e4tune() {
	E4TUNE=${E4TUNE:-$E4_BUILDDIR/tune/e4tune}
	[ -x "$E4TUNE" ] || fail "e4tune not found: $E4TUNE"
}
need_e4fsck() {
	E4FSCK=${E4FSCK:-$E4_BUILDDIR/fsck/e4fsck}
	[ -x "$E4FSCK" ] || fail "e4fsck not found: $E4FSCK"
}

# ref_clean IMG: "clean" as DEVELOPERS.md defines it: the reference
# e2fsck -fn exits 0 and prints nothing but its version line, the five
# pass lines and the summary line.  Its output is left in REF_CLEAN_OUT.
ref_clean() {
	local rc
	REF_CLEAN_OUT=$("$REF_E2FSCK" -fn "$1" 2>&1 </dev/null)
	rc=$?
	[ $rc = 0 ] &&
		! grep -qvE '^e2fsck [0-9]|^Pass [1-5]: |: [0-9]+/[0-9]+ files \(|^$' <<<"$REF_CLEAN_OUT"
}

# kernel_mounts IMG: the kernel agrees that IMG is a filesystem it can use.
# Every e4fsck run that exits 0 or 1 is followed by this (a "clean" the
# kernel refuses is a bug: it checks descriptor locations and more at mount
# time).  IMG is attached to a read-only loop device and mounted read-only,
# so nothing is written; with needs_recovery set (an -n run leaves the
# journal) the mount adds noload.  Returns 0 when the mount succeeds, or
# when it does not apply: a block size above the page size or an incompat
# feature this kernel does not mount (KMOUNT_NA says which; 64 KiB images
# go through kernel64k in their own tests).  Returns 1 when the kernel
# refuses the image; its messages are in KMOUNT_OUT.  Skips the test (a
# failure under CI=true) without root or loop devices.
KMOUNT_INCOMPAT_OK=$((0x0002 | 0x0004 | 0x0010 | 0x0040 | 0x0080 | 0x0100 | 0x0200 | 0x0400 | 0x2000 | 0x4000 | 0x8000 | 0x10000 | 0x20000))
kernel_mounts() {
	local img=$1 bs incompat dev dir opts=ro rc page
	KMOUNT_NA= KMOUNT_OUT=
	need_root_loop
	page=$(getconf PAGESIZE)
	# s_log_block_size (superblock offset 24) and s_feature_incompat (96)
	bs=$((1024 << $(od -An -tu4 -j $((1024 + 24)) -N4 "$img" | tr -d ' ')))
	incompat=$(od -An -tu4 -j $((1024 + 96)) -N4 "$img" | tr -d ' ')
	if [ "$bs" -gt "$page" ]; then
		KMOUNT_NA="block size $bs above the page size $page"
		return 0
	fi
	if [ $((incompat & ~KMOUNT_INCOMPAT_OK)) != 0 ]; then
		KMOUNT_NA=$(printf 'incompat features 0x%x not mounted by this kernel' \
			$((incompat & ~KMOUNT_INCOMPAT_OK)))
		return 0
	fi
	[ $((incompat & 0x0004)) = 0 ] || opts=ro,noload
	dev=$(losetup -r -f --show "$img") || { KMOUNT_OUT="losetup failed"; return 1; }
	dir=$(mktemp -d "$T/kmount.XXXXXX")
	KMOUNT_OUT=$(with_timeout 60 mount -t ext4 -o "$opts" "$dev" "$dir" 2>&1)
	rc=$?
	if [ $rc = 0 ]; then
		umount_retry "$dir"
	else
		KMOUNT_OUT="$KMOUNT_OUT; $(dmesg 2>/dev/null | grep -F "${dev#/dev/}" | grep -v "capacity change" | tail -3)"
	fi
	losetup -d "$dev" 2>/dev/null
	rmdir "$dir" 2>/dev/null
	return $((rc != 0))
}

# fsck_result_mounts IMG WHAT: fail the test, naming WHAT, when the kernel
# refuses IMG (see kernel_mounts).
fsck_result_mounts() {
	kernel_mounts "$1" || fail "$2: the kernel refuses the result: $KMOUNT_OUT"
	[ -z "$KMOUNT_NA" ] || verbose "$2: mount check not applicable: $KMOUNT_NA"
}

# fsck_run NAME WANT_RC ARGS... IMG: run $E4FSCK ARGS IMG (stdout, stderr
# and status in $T/NAME.out, .err, .rc); fail on a sanitizer report or an
# exit status other than WANT_RC; after an exit 0 or 1, IMG must mount
# (fsck_result_mounts).
fsck_run() {
	local name=$1 want=$2 rc
	shift 2
	runcap "$T/$name" 30 "$E4FSCK" "$@"
	rc=$(cat "$T/$name.rc")
	san_report "$T/$name.err" && fail "$name: sanitizer report: $(head -5 "$T/$name.err")"
	[ "$rc" = "$want" ] || {
		cat "$T/$name.out" "$T/$name.err" >&2
		fail "$name: e4fsck $* exited $rc, expected $want"
	}
	[ "$rc" -gt 1 ] || fsck_result_mounts "${!#}" "$name"
}

# need_root_loop: root and loop devices (kernel loop mounts) available.
need_root_loop() {
	[ "$(id -u)" = 0 ] || skip "loop mounts need root"
	[ -e /dev/loop-control ] || modprobe loop >/dev/null 2>&1 || true
	losetup -f >/dev/null 2>&1 || skip "no free loop device"
	grep -qw ext4 /proc/filesystems || modprobe ext4 >/dev/null 2>&1 ||
		skip "the kernel has no ext4"
}

# ---- running things --------------------------------------------------------
# with_timeout SECS CMD...: run CMD, killed after SECS (exit 124, or 137
# when it ignored TERM for 5 more seconds).
with_timeout() {
	local s=$1
	shift
	timeout -k 5 "$s" "$@"
}

# runcap PREFIX SECS CMD...: run CMD with a timeout, stdout to PREFIX.out,
# stderr to PREFIX.err, exit status to PREFIX.rc, stdin from the file
# RUNCAP_IN (default /dev/null).  Returns 0.
runcap() {
	local p=$1 s=$2 rc
	shift 2
	timeout -k 5 "$s" "$@" >"$p.out" 2>"$p.err" <"${RUNCAP_IN:-/dev/null}"
	rc=$?
	echo $rc >"$p.rc"
	return 0
}

# san_report FILE...: true when a sanitizer reported something.
san_report() {
	grep -Eq 'runtime error|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|MemorySanitizer|ThreadSanitizer' "$@" 2>/dev/null
}

# describe_rc RC: human-readable exit status.
describe_rc() {
	case $1 in
	124 | 137) echo "timeout (exit $1)" ;;
	*) if [ "$1" -ge 128 ]; then echo "crash (exit $1, signal $(($1 - 128)))"; else echo "exit $1"; fi ;;
	esac
}

# ---- mounts ----------------------------------------------------------------
# umount_retry DIR: unmount, retrying while busy; lazy unmount as last resort.
umount_retry() {
	local d=$1 i
	mountpoint -q "$d" || return 0
	for i in 1 2 3 4 5 6 7 8 9 10; do
		umount "$d" 2>/dev/null && return 0
		sleep 0.5
	done
	umount -l "$d"
}

# mount_loop IMG DIR [OPTS]: loop-mount IMG (ext4 driver), unmounted and
# detached at exit.  The loop device is auto-cleared on unmount.
mount_loop() {
	local img=$1 dir=$2 opts=${3:-}
	mkdir -p "$dir"
	mount -t ext4 -o "loop${opts:+,$opts}" "$img" "$dir" || return 1
	on_exit "umount_retry '$dir'"
}

# mount_tmpfs DIR [SIZE]: private tmpfs (noatime), unmounted at exit.
mount_tmpfs() {
	local dir=$1 size=${2:-2g}
	mkdir -p "$dir"
	mount -t tmpfs -o "size=$size,noatime,mode=0755" e4test "$dir" || return 1
	on_exit "umount_retry '$dir'"
}

# tmp_on_tmpfs SIZE: a tmpfs at $T/fs when root, else plain $T/fs.
# Sets TFS.
tmp_on_tmpfs() {
	TFS=$T/fs
	mkdir -p "$TFS"
	if [ "$(id -u)" = 0 ]; then
		mount_tmpfs "$TFS" "${1:-2g}" || fail "cannot mount tmpfs"
	fi
}

# ---- the image matrix ------------------------------------------------------
# matrix_ensure: build the image matrix if missing or stale (once per build
# directory; parallel tests wait on a lock), then set MATRIX_IMAGES (names,
# in build order) and MATRIX_SKIPPED (lines "name reason").  The image of
# NAME is $E4_MATRIX/NAME.img.
matrix_want_stamp() {
	cat "$MKMATRIX" "$GENTREE" | sha256sum | cut -d' ' -f1
}

matrix_ensure() {
	local lock want have
	need_cmd flock sha256sum
	mkdir -p "$(dirname "$E4_MATRIX")"
	lock=$E4_MATRIX.lock
	want=$(matrix_want_stamp)
	exec 8>"$lock"
	flock -w 1200 8 || fail "timed out waiting for the matrix lock $lock"
	have=$(cat "$E4_MATRIX/stamp" 2>/dev/null || true)
	if [ "$have" = "$want" ]; then
		# an image deleted by hand also means a rebuild
		local n
		while read -r n; do
			[ -f "$E4_MATRIX/$n.img" ] || have=missing
		done <"$E4_MATRIX/images.txt"
	fi
	if [ "$have" != "$want" ]; then
		# a build that failed earlier in this same `make check` (same
		# builder, same E4_CHECK_RUN, which Makefile.am sets per make
		# process) is not retried by each of its tests; a new run, or a
		# test run by hand (no E4_CHECK_RUN), always tries again
		if [ -n "${E4_CHECK_RUN:-}" ] && [ -f "$E4_MATRIX.failed" ] &&
			[ "$(cat "$E4_MATRIX.failed")" = "$want $E4_CHECK_RUN" ]; then
			flock -u 8
			fail "matrix build failed earlier in this run (see $E4_MATRIX.log)"
		fi
		need_root_loop
		need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$PYTHON"
		info "building the image matrix in $E4_MATRIX (log: $E4_MATRIX.log)"
		if ! bash "$MKMATRIX" "$E4_MATRIX" >"$E4_MATRIX.log" 2>&1; then
			echo "$want ${E4_CHECK_RUN:-}" >"$E4_MATRIX.failed"
			tail -20 "$E4_MATRIX.log" >&2
			flock -u 8
			fail "matrix build failed (see $E4_MATRIX.log)"
		fi
		rm -f "$E4_MATRIX.failed"
		[ "$(cat "$E4_MATRIX/stamp" 2>/dev/null)" = "$want" ] ||
			fail "matrix builder left no valid stamp"
		info "$(tail -1 "$E4_MATRIX.log")"
	fi
	flock -u 8
	exec 8>&-
	mapfile -t MATRIX_IMAGES <"$E4_MATRIX/images.txt"
	if [ -n "${E4_IMAGES:-}" ]; then
		# debugging aid: E4_IMAGES="ext4 ext2" narrows the set
		local keep=() n
		for n in "${MATRIX_IMAGES[@]}"; do
			case " $E4_IMAGES " in *" $n "*) keep+=("$n") ;; esac
		done
		MATRIX_IMAGES=("${keep[@]+"${keep[@]}"}")
	fi
	mapfile -t MATRIX_SKIPPED < <(cat "$E4_MATRIX/skipped.txt" 2>/dev/null)
	[ ${#MATRIX_IMAGES[@]} -gt 0 ] || fail "the matrix holds no image"
}

# matrix_check_skipped: report images the builder could not make; under
# CI=true that is a failure.
matrix_check_skipped() {
	local l
	for l in "${MATRIX_SKIPPED[@]+"${MATRIX_SKIPPED[@]}"}"; do
		if is_ci; then
			echo "FAIL: $TEST_NAME: matrix image not built under CI=true: $l" >&2
			E4_CI_SKIP_FAIL=1
		else
			info "note: matrix image not built: $l"
		fi
	done
}
E4_CI_SKIP_FAIL=0

# elapsed: seconds since the test started (one decimal).
E4_T0=${EPOCHREALTIME/[.,]/}
elapsed() {
	local now=${EPOCHREALTIME/[.,]/} d
	d=$(((now - E4_T0) / 100000))
	echo "$((d / 10)).$((d % 10))"
}

# ---- the shared corpus (issue 15) -------------------------------------------
# corpus_unpack REL: the corpus file REL (a path relative to
# $E4KIT_SHARED/corpus, gzip) unpacked, sparse, into the cache folder
# E4_CORPUS_CACHE (default $E4_BUILDDIR/tests/corpus-unpacked; the
# sanitizer pass of scripts/check.sh points it at the normal pass's);
# prints the cached file's path, or returns 1.  The cached copy is shared:
# copy it before writing.  Parallel callers are safe (each unpacks into a
# name of its own, then renames).  Unpacking the whole corpus (7.4 GB of
# mostly holes) takes about 30 s of CPU: the cache makes it once a build.
corpus_unpack() {
	local gz=$E4KIT_SHARED/corpus/$1 cache=${E4_CORPUS_CACHE:-$E4_BUILDDIR/tests/corpus-unpacked}
	local out tmp
	out=$cache/$(basename "$1" .gz) tmp=$cache/.$(basename "$1" .gz).$BASHPID
	if [ ! -s "$out" ] || [ "$gz" -nt "$out" ]; then
		mkdir -p "$cache" &&
			gzip -dc "$gz" | dd of="$tmp" bs=64k conv=sparse status=none &&
			mv "$tmp" "$out" || { rm -f "$tmp"; return 1; }
	fi
	echo "$out"
}

# corpus_rows: the rows of the corpus manifest, tab-separated, in this
# order of columns (found by their header names): name kind file
# first_exit second_exit fsck_opts needs second_fsck_opts; an empty field
# printed as "-" (so that `IFS=$'\t' read` keeps every column).
# E4_CORPUS_ONLY (an extended regular expression on the names) narrows
# the rows (debugging).
corpus_rows() {
	awk -F'\t' -v OFS='\t' -v only="${E4_CORPUS_ONLY:-}" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i
			  n = split("name kind file first_exit second_exit fsck_opts needs second_fsck_opts", want, " ")
			  for (i = 1; i <= n; i++) if (!(want[i] in col)) { print "no column " want[i] >"/dev/stderr"; exit 1 }
			  next }
		only != "" && $col["name"] !~ only { next }
		{ line = ""
		  for (i = 1; i <= n; i++) { v = $col[want[i]]; line = line (i > 1 ? OFS : "") (v == "" ? "-" : v) }
		  print line }' "$E4KIT_SHARED/corpus/manifest.tsv"
}

# fsck_exit_why PREFIX TMO: why the run captured in PREFIX.rc/.err (by
# runcap, TMO seconds) broke the rules every run of e4fsck keeps, or
# nothing: a sanitizer report, a hang, a crash, or an exit status that is
# not a sum of the documented bits (1 2 4 8 16 32; doc/e4fsck.8: 1 is
# dropped when 4 is set).
fsck_exit_why() {
	local rc
	rc=$(cat "$1.rc")
	if san_report "$1.err"; then
		echo "sanitizer report: $(grep -m1 -E 'runtime error|Sanitizer' "$1.err" | cut -c1-200)"
	elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		echo "timed out after $2 s"
	elif [ "$rc" -ge 128 ]; then
		echo "crashed (signal $((rc - 128)))"
	elif [ "$rc" -gt 63 ] || [ $((rc & 5)) = 5 ]; then
		echo "exit $rc: not a documented exit status"
	fi
}

# corpus_start FILE: what a corpus test needs first: timeout and gzip, the
# manifest (or the test skipped), a tmpfs for TMPDIR where /dev/shm is
# writable (the workers' copies), and the rows (corpus_rows) in FILE.
corpus_start() {
	need_cmd timeout gzip
	[ -f "$E4KIT_SHARED/corpus/manifest.tsv" ] || skip "no corpus manifest in $E4KIT_SHARED/corpus"
	[ -d /dev/shm ] && [ -w /dev/shm ] && export TMPDIR=/dev/shm
	corpus_rows >"$1" || fail "cannot read the corpus manifest"
}

# corpus_each FILE RESDIR: `bash $0 --one RESDIR ROW` for each row of FILE
# (corpus_rows' lines), E4_JOBS (2) at a time; each worker has a T of its
# own.  Fails the test when a worker cannot be started.
corpus_each() {
	mkdir -p "$2"
	tr '\n' '\0' <"$1" | xargs -0 -n1 -P "${E4_JOBS:-2}" bash "$0" --one "$2" ||
		fail "a worker failed"
}

# corpus_copy FILE NEEDS DIR: a row's image (FILE) copied to DIR/i.img,
# and what its needs column asks for: the external journal copied to
# DIR/j.jnl (CORPUS_JNL set to that path, else empty), CORPUS_ENV (the
# README's environment: TZ=GMT0, LC_ALL=C, E2FSCK_CONFIG=/dev/null, then
# the row's env= items, as `env` arguments) and CORPUS_STDIN (a file of
# the stdin= answers, else /dev/null).  Returns 1 with CORPUS_WHY set when
# a file cannot be unpacked.
corpus_copy() {
	local it src needs
	CORPUS_ENV=(TZ=GMT0 LC_ALL=C E2FSCK_CONFIG=/dev/null) CORPUS_STDIN=/dev/null
	CORPUS_JNL="" CORPUS_WHY=""
	it=$(corpus_unpack "$1") && cp --sparse=always "$it" "$3/i.img" ||
		{ CORPUS_WHY="cannot unpack $1"; return 1; }
	[ "$2" = - ] || IFS=';' read -ra needs <<<"$2"
	for it in "${needs[@]+"${needs[@]}"}"; do
		case $it in
		jnl=*)
			CORPUS_JNL=$3/j.jnl
			src=$(corpus_unpack "${it#jnl=}") && cp --sparse=always "$src" "$CORPUS_JNL" ||
				{ CORPUS_WHY="cannot unpack ${it#jnl=}"; return 1; } ;;
		env=*) CORPUS_ENV+=("${it#env=}") ;;
		stdin=*) printf '%s' "${it#stdin=}" >"$3/stdin" && CORPUS_STDIN=$3/stdin ;;
		esac
	done
}

# ---- crash stops (issue 19) -------------------------------------------------
# stop_sb IMG: primary superblock fields of IMG into SB_STATE (s_state),
# SB_INCOMPAT, SB_RO_COMPAT, SB_LAST_ORPHAN (one od call).
stop_sb() {
	local w
	w=($(od -An -tu4 -v -j 1024 -N 256 "$1")) || return 1
	SB_STATE=$((w[14] >> 16)) SB_INCOMPAT=${w[24]} SB_RO_COMPAT=${w[25]} SB_LAST_ORPHAN=${w[58]}
}

# stop_pending IMG: IMG has work the kernel does at mount: a journal to
# replay (needs_recovery) or orphans to release (s_last_orphan, or the
# orphan_present feature of an orphan file).
# With no IMG: the fields stop_sb read last.
stop_pending() {
	[ $# = 0 ] || stop_sb "$1" || return 1
	[ $((SB_INCOMPAT & 0x4)) != 0 ] || [ "$SB_LAST_ORPHAN" != 0 ] ||
		[ $((SB_RO_COMPAT & 0x10000)) != 0 ]
}

# stop_ok IMG: judge an image left by a stop at any write (a tool killed
# by the crash-point layer, as at a power failure) by what it leaves, not
# by whether e2fsck -fy can repair it.  Returns 0 when the stop is safe;
# else 1 with the reason in STOP_WHY.  IMG is not modified.  STOP_CLEAN=1
# when the reference e2fsck -fn reported nothing at all (on the copy,
# after pending work).  The rule (DESIGN.md "Writing safely", made
# precise):
#  1. Work a mount would do first -- a journal to replay, orphans to
#     release -- is done on a copy by the reference (`e2fsck -y -E
#     journal_only`: replay and orphan release, nothing else) and the copy
#     is judged: that is what the next mount or check starts from.  The
#     reference must do only that (exit 0 or 1, no other message) and
#     leave nothing pending.  (e4tune writes in place, never through the
#     journal, so its stops never need recovery; e4fsck's stops inside a
#     replay or an orphan release do.)
#  2. A filesystem whose superblock says clean (VALID_FS set, ERROR_FS
#     clear) must be clean: ref_clean, the reference `e2fsck -fn` reports
#     nothing at all.  A leak on a filesystem marked clean is an error
#     nobody will repair: a multi-step change marks the filesystem not
#     clean with its first write and clean again with its last.
#  3. A filesystem marked not clean (or with errors) may show only what
#     the next check repairs without losing anything:
#      - leaks: "-" bitmap differences (marked in use, used by nothing),
#        a deleted inode (no links) still marked in use ("has zero
#        dtime"), an unattached inode or unconnected directory, an inode
#        with more links than names, a journal inode holding blocks with no journal named;
#      - wrong free block / free inode / directory counts, bitmap padding;
#      - checksums that do not match a structure that passes every other
#        check (descriptors, bitmaps, inodes, extent, directory and xattr
#        blocks), and htree indexes the check clears ("Problem in HTREE
#        directory inode": a dx root or node failing its checksum or with
#        the other rules' limit; the index is derived from the leaf
#        blocks, which keep every name, and the kernel falls back to a
#        linear search): a change of checksum rules (metadata_csum on or
#        off, descriptor checksums after a new UUID) cannot flip them all
#        in one write.
#     Never, whatever the state: a block or inode in use but marked free
#     ("+" bitmap differences: the kernel would allocate it over live
#     data), a name for a free or deleted inode ("deleted/unused inode"),
#     an inode with fewer links than names (freed while still named), a
#     block claimed twice ("multiply-claimed"); nor any other message
#     (an unknown message fails, to be judged by a person), nor an exit
#     of 8 or more.
# STOP_KNOWN (optional): a file with the reference's `e2fsck -fn` output on
# the image before the tool ran (the damage it was given, which a repair
# interrupted may leave): its lines are not judged, and an exit of 8 or
# more is judged by the lines when STOP_KNOWN_RC (that run's exit) was 8
# or more too.
# stop_dup_names IMG LINE: LINE ("Inode N ref count is A, should be B")
# counts one name twice: its directory (the reference's ncheck) holds the
# same name for N B-A+1 times.  A leaf split moves names to a new block
# mapped before the old block drops them (link before unlink: the other
# order loses them); e2fsck -fy clears the copies (issue 13).
stop_dup_names() {
	local n a b path dir
	[[ $2 =~ ^Inode\ ([0-9]+)\ ref\ count\ is\ ([0-9]+),\ should\ be\ ([0-9]+) ]] || return 1
	n=${BASH_REMATCH[1]} a=${BASH_REMATCH[2]} b=${BASH_REMATCH[3]}
	path=$("$REF_DEBUGFS" -R "ncheck $n" "$1" 2>/dev/null | awk -v n="$n" '$1 == n {print $2; exit}')
	[ -n "$path" ] && [ "$a" -ge 1 ] || return 1
	dir=${path%/*}
	[ "$("$REF_DEBUGFS" -R "ls -l ${dir:-/}" "$1" 2>/dev/null |
		awk -v n="$n" -v f="${path##*/}" '$1 == n && $NF == f' | wc -l)" = $((b - a + 1)) ]
}

stop_ok() {
	local img=$1 w=$T/stop_ok.img out rc line msg st known
	STOP_WHY= STOP_CLEAN=0
	stop_sb "$img" || { STOP_WHY="cannot read the superblock of $img"; return 1; }
	if stop_pending; then
		cp --sparse=always "$img" "$w" || { STOP_WHY="cannot copy $img"; return 1; }
		out=$(E2FSCK_CONFIG=/dev/null "$REF_E2FSCK" -y -E journal_only "$w" 2>&1 </dev/null)
		rc=$?
		msg=$(grep -vE '^e2fsck [0-9]|: recovering journal$|^(Clearing|Truncating) orphaned inode [0-9]+ |^$' <<<"$out" | head -3 | tr '\n' '|')
		if [ $rc -gt 1 ] || [ -n "$msg" ]; then
			STOP_WHY="the reference's replay and orphan release (e2fsck -y -E journal_only) exit $rc: ${msg:-$(tr '\n' '|' <<<"$out")}"
			return 1
		fi
		if stop_pending "$w"; then
			STOP_WHY="a journal or orphans still pending after the reference's replay"
			return 1
		fi
		img=$w
	fi
	st=$SB_STATE
	# marked clean with STOP_KNOWN: nothing but the damage it was given
	# (judged below, every other line refused)
	if [ $((st & 3)) = 1 ] && [ -z "${STOP_KNOWN:-}" ]; then
		ref_clean "$img" && { STOP_CLEAN=1; return 0; }
		msg=$(grep -vE '^e2fsck [0-9]|^Pass [1-5]: |: [0-9]+/[0-9]+ files \(|^$' <<<"$REF_CLEAN_OUT" | head -2 | tr '\n' '|')
		STOP_WHY="marked clean, but the reference e2fsck -fn reports: $msg"
		return 1
	fi
	out=$("$REF_E2FSCK" -fn "$img" 2>&1 </dev/null)
	rc=$?
	known=
	if [ -n "${STOP_KNOWN:-}" ]; then	# its answers dropped as below
		known=$T/stop_known.txt
		sed -E 's/(^|  )([A-Z][A-Za-z /+]*\? no|IGNORED\.)$//' "$STOP_KNOWN" >"$known"
	fi
	if [ $rc -ge 8 ] && ! { [ -n "$known" ] && [ "${STOP_KNOWN_RC:-0}" -ge 8 ]; }; then
		# its messages (not only the last lines: the reason of an abort
		# comes before them)
		STOP_WHY="the reference e2fsck -fn cannot check it (exit $rc): $(grep -vE '^e2fsck [0-9]|^Pass [1-5]: |^$' <<<"$out" | head -12 | tr '\n' '|')"
		return 1
	fi
	STOP_CLEAN=1
	[ $rc = 0 ] || STOP_CLEAN=0
	# the answer -n gives ("Fix? no", "IGNORED."), on its own line or
	# after the message, is dropped
	while IFS= read -r line; do
		case $line in
		'' | 'e2fsck '[0-9]* | 'Pass '[1-5]': '* | *'WARNING: Filesystem still has errors'*) continue ;;
		*': '[0-9]*'/'[0-9]*' files ('*) continue ;;
		esac
		STOP_CLEAN=0
		[ -n "$known" ] && grep -qxF -- "$line" "$known" && continue
		if [ $((st & 3)) = 1 ]; then
			STOP_WHY="marked clean, but the reference e2fsck -fn reports, beyond the damage given: $line"
			return 1
		fi
		case $line in
		'Block bitmap differences: '* | 'Inode bitmap differences: '*)
			[[ $line != *+* ]] && continue
			msg="in use but marked free: $line" ;;
		*multiply-claimed* | *'claimed by more than one'*)
			msg="a block claimed twice: $line" ;;
		*'deleted/unused inode'*)
			msg="a name for a free or deleted inode: $line" ;;
		'Inode '[0-9]*' ref count is '[0-9]*', should be '[0-9]*.*)
			[[ $line =~ ref\ count\ is\ ([0-9]+),\ should\ be\ ([0-9]+) ]] &&
				[ "${BASH_REMATCH[1]}" -gt "${BASH_REMATCH[2]}" ] && continue
			stop_dup_names "$img" "$line" && continue
			msg="an inode with fewer links than names: $line" ;;
		'Inode '[0-9]*', i_size is '[0-9]*', should be '[0-9]*.* | \
			'Inode '[0-9]*', i_blocks is '[0-9]*', should be '[0-9]*.*)
			# a directory block mapped (by an indirect or extent
			# block) before the inode's size and count take it in:
			# the check grows them, nothing is lost; smaller is not
			# allowed, nor any other inode
			[[ $line =~ ^Inode\ ([0-9]+),\ i_(size|blocks)\ is\ ([0-9]+),\ should\ be\ ([0-9]+) ]] &&
				[ "${BASH_REMATCH[4]}" -gt "${BASH_REMATCH[3]}" ] &&
				"$REF_DEBUGFS" -R "stat <${BASH_REMATCH[1]}>" "$img" 2>/dev/null |
				grepq 'Type: directory' && continue
			msg="a size or block count not covering what is mapped: $line" ;;
		'Free blocks count wrong'* | 'Free inodes count wrong'* | 'Directories count wrong'* | \
			'Padding at end of '*' bitmap is not set.'* | 'Setting free '*' count to '*)
			continue ;;
		'Deleted inode '[0-9]*' has zero dtime.'* | 'Unattached inode '[0-9]* | \
			'Unattached zero-length inode '[0-9]* | 'Journal inode is not in use, but contains data.'*)
			continue ;;
		# a new directory no entry names yet (its ".." names the parent,
		# which counts it): a leak the next check puts in lost+found
		'Unconnected directory inode '[0-9]*' (was in '*')' | \
			"'..' in ... ("[0-9]*') is '*' ('[0-9]*'), should be <The NULL inode> (0).'*)
			continue ;;
		# a directory connected (e4fsck pass 3) before its '..' is
		# rewritten: both name live directories, the check rewrites it
		"'..' in /"*' ('[0-9]*') is '*' ('[0-9]*'), should be '*' ('[0-9]*').'*)
			continue ;;
		*'passes checks, but checksum does not match'* | *'passes checks but fails checksum'* | \
			'One or more block group descriptor checksums are invalid.'* | \
			'Group descriptor '[0-9]*' checksum is '* | 'Group '[0-9]*' '*' bitmap does not match checksum.'* | \
			'Problem in HTREE directory inode '[0-9]* | 'Invalid HTREE directory inode '[0-9]*)
			continue ;;
		*) msg="not a leak: $line" ;;
		esac
		STOP_WHY="marked not clean (state $st), but the reference e2fsck -fn reports $msg"
		return 1
	done < <(sed -E 's/(^|  )([A-Z][A-Za-z /+]*\? no|IGNORED\.)$//' <<<"$out")
	return 0
}

# need_helper NAME: the test driver tests/helpers/NAME (built on demand);
# sets HELPER to its path.
need_helper() {
	HELPER=$E4_BUILDDIR/tests/helpers/$1
	[ -x "$HELPER" ] || make -s -C "$E4_BUILDDIR" "tests/helpers/$1" >/dev/null ||
		fail "cannot build $HELPER"
}

# ref_fsck_report IMG: the reference e2fsck -fn's lines other than its
# fixed frame (version, passes, "Fix? no", summary): what it found.
ref_fsck_report() {
	"$REF_E2FSCK" -fn "$1" 2>&1 </dev/null | grep -v -e '^Pass ' -e '^e2fsck ' -e '^Fix? no' \
		-e '^$' -e 'WARNING: Filesystem still has errors' -e ' files (.*blocks$' || true
}

# k64_ensure: the 64 KiB-page kernel of $K64_TOOLS (shared
# tools/kernel64k) set up in $E4_K64_DIR, or the test skipped.  The
# image-matrix builder (tests/mkmatrix.sh) sets the same folder up while
# it holds the matrix lock: this takes that lock too.
k64_ensure() {
	[ -s "$E4_K64_DIR/vmlinux" ] && [ -s "$E4_K64_DIR/initramfs.cpio.gz" ] && return 0
	mkdir -p "$E4_K64_DIR" "$(dirname "$E4_MATRIX")"
	flock -w 1800 "$E4_MATRIX.lock" bash -c '
		[ -s "$1/vmlinux" ] && [ -s "$1/initramfs.cpio.gz" ] && exit 0
		timeout 900 bash "$2/setup.sh" "$1"' k64 "$E4_K64_DIR" "$K64_TOOLS" >"$T/k64setup.log" 2>&1 ||
		skip "kernel64k setup failed: $(tail -2 "$T/k64setup.log" | tr '\n' ' ')"
}

# k64_read_back IMG SCRIPT: the 64 KiB-page kernel mounts IMG read-only
# and runs SCRIPT (kernel64k's format); the test fails unless every line
# succeeds, nothing EXT4-fs is logged and the guest saw 64 KiB blocks (the
# script must print `stat -f -c %S /mnt`).  The report is in $T/k64.log.
k64_read_back() {
	if ! K64_READONLY=1 K64_TIMEOUT=300 bash "$K64_TOOLS/run.sh" "$E4_K64_DIR" "$1" "$2" \
		>"$T/k64.log" 2>&1; then
		grep -E 'K64:(RC [0-9]+ [1-9]|END|DMESG.*EXT4-fs (error|warning))' "$T/k64.log" >&2
		fail "the 64 KiB-page kernel does not read $1 back: $(grep 'K64:END' "$T/k64.log")"
	fi
	grep -q 'K64:END status=0 mount=0 .* failed=0 completed=yes umount=0 kernel_errors=0' "$T/k64.log" ||
		fail "kernel64k: $(grep 'K64:END' "$T/k64.log")"
	grep -qx 65536 "$T/k64.log" || fail "the guest did not see 64 KiB blocks"
}

# kernel_read IMG CMD...: run CMD (cwd: the mount point) on IMG mounted
# read-only by the kernel through a read-only loop device; the test fails
# when the kernel refuses IMG.  Returns CMD's status (its output passes).
kernel_read() {
	local img=$1 dev rc
	shift
	dev=$(losetup -r -f --show "$img") || fail "losetup $img"
	mkdir -p "$T/kread"
	if ! mount -t ext4 -o ro "$dev" "$T/kread" 2>"$T/kread.err"; then
		losetup -d "$dev"
		fail "the kernel does not mount $img: $(cat "$T/kread.err")"
	fi
	(cd "$T/kread" && "$@")
	rc=$?
	umount_retry "$T/kread"
	losetup -d "$dev" 2>/dev/null
	return $rc
}
