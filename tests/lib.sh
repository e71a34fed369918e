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
# stderr to PREFIX.err, exit status to PREFIX.rc.  Returns 0.
runcap() {
	local p=$1 s=$2 rc
	shift 2
	timeout -k 5 "$s" "$@" >"$p.out" 2>"$p.err" </dev/null
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
