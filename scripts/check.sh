#!/usr/bin/env bash
# The whole test suite: install what is missing, build with -Werror, run
# `make check` (unit + integration tests), then an AddressSanitizer+UBSan
# build running the unit tests and a representative subset of the
# integration tests (SAN_TESTS below).  Last line: N passed, N failed, N skipped.
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
cd "$src"

# Integration tests run again under the sanitizers, a representative
# subset: the corpus sweeps exercise the error paths of the read path and
# of every e4debugfs command on every damaged image, the matrix tests the
# normal paths on every layout, fsck_bad_journal and fsck_replay_crash the
# journal code on hostile and interrupted logs, fsck_orphans the
# truncation code, tune_settings and mkfs_cases the option parsers and
# writers of e4tune and e4mkfs, mkfs_refuse, mkfs_output and
# mkfs_safe_order e4mkfs's refusals, odd arguments and the steps of a
# format stopped midway (about 11 s together); fsck_policy,
# fsck_short_device, fsck_gd_location and fsck_sb_geometry e4fsck's answer
# policy, read errors, descriptor copies and geometry repairs;
# tune_mounted and tune_mount_opts e4tune's kernel path and mount option
# rule; lib_bmap the loading and storing of whole-filesystem bitmap maps;
# lib_xattr_write and lib_extent the writers' random sequences;
# rdump_outdir and dump_read_error rdump's threaded writers and read
# errors; fuzz_regress every input a fuzz target failed on; san_leaks that leak
# detection is on and e4tune's -E mount_opts= paths leak nothing.
# LeakSanitizer is on (detect_leaks=1): a leak fails the test that meets
# it.  Left out (long, and their code paths are
# covered above): mkfs_matrix, mkfs_big, the kernel crash tests, tune_crash.
# The sanitizer pass reuses the image matrix the normal pass built
# (E4_MATRIX) instead of building it twice.
SAN_TESTS="tests/t/corpus_ls.sh tests/t/stats_matrix.sh tests/t/rdump_matrix.sh
	tests/t/dbg_corpus_sweep.sh tests/t/dbg_json.sh tests/t/fsck_bad_journal.sh
	tests/t/fsck_replay_crash.sh tests/t/fsck_orphans.sh tests/t/tune_settings.sh
	tests/t/mkfs_cases.sh tests/t/mkfs_refuse.sh tests/t/mkfs_output.sh
	tests/t/mkfs_safe_order.sh tests/t/fsck_policy.sh tests/t/fsck_short_device.sh
	tests/t/fsck_gd_location.sh tests/t/fsck_sb_geometry.sh
	tests/t/tune_mounted.sh tests/t/tune_mount_opts.sh tests/t/lib_bmap.sh
	tests/t/san_leaks.sh tests/t/lib_xattr_write.sh tests/t/lib_extent.sh
	tests/t/rdump_outdir.sh tests/t/dump_read_error.sh tests/t/fuzz_regress.sh
	tests/t/dbgw_fields.sh tests/t/dbgw_cmds.sh"
# e4mkfs's layout and writer over the 106 option sets of the matrix (about 11 s)
SAN_TESTS="$SAN_TESTS tests/t/mkfs_hashes.sh"
# e4mkfs -d's sources (directory, tar, zstd on stdin: the archive parser)
SAN_TESTS="$SAN_TESTS tests/t/popsrc_routes.sh"
# e4mkfs -d's writer over the three routes, bad input and a crash (about 20 s)
SAN_TESTS="$SAN_TESTS tests/t/mkfs_populate.sh"
# the jbd2 writer's layouts and e4debugfs's journal commands (about 3 s)
SAN_TESTS="$SAN_TESTS tests/t/lib_jwrite.sh tests/t/dbg_journal_cmds.sh"
# e4debugfs -w's file commands (about 5 s)
SAN_TESTS="$SAN_TESTS tests/t/dbgw_write_cmds.sh"
# e4debugfs -w: a mixed write script on every corpus image (about 50 s)
SAN_TESTS="$SAN_TESTS tests/t/dbgw_corpus_asan.sh"
# e4fsck -fn, -fy, -fn on every corpus image (about 40 s)
SAN_TESTS="$SAN_TESTS tests/t/fsck_corpus_asan.sh"
# e4fsck's passes 1 and 5: 32 corruption kinds, -n, -y and -p (about 15 s)
SAN_TESTS="$SAN_TESTS tests/t/fsck_p1_corrupt.sh"
# pass 1 never discards what could be recovered: -p stops inside the checks (about 15 s)
SAN_TESTS="$SAN_TESTS tests/t/fsck_map_safe.sh tests/t/fsck_p1_safe.sh"
# passes 1B-1D: finding, naming and cloning shared blocks, stopped at each write (about 10 s)
SAN_TESTS="$SAN_TESTS tests/t/fsck_dup_blocks.sh"
# passes 3 and 4: 12 kinds of damage, -n, -y, -p and 34 stops (about 25 s)
SAN_TESTS="$SAN_TESTS tests/t/fsck_p34.sh"
# e4fsck's pass 2: 33 kinds of directory damage, -n, -y and -p (about 25 s)
SAN_TESTS="$SAN_TESTS tests/t/fsck_p2_corrupt.sh"

need_kb=$((6 * 1024 * 1024))
avail_kb=$(df -Pk "$src" | awk 'NR==2 {print $4}')
if [ "${avail_kb:-0}" -lt "$need_kb" ]; then
	echo "check: only $((avail_kb / 1024)) MiB free in $src; the suite needs 6 GiB" >&2
	echo "0 passed, 1 failed"
	exit 1
fi

"$src/scripts/deps.sh" || { echo "check: installing dependencies failed" >&2; echo "0 passed, 1 failed"; exit 1; }

pass=0 fail=0 skip=0
tally() {	# tally LOGFILE
	local log=$1 p f s x e
	[ -f "$log" ] || { fail=$((fail + 1)); return; }
	p=$(sed -n 's/^# PASS: *//p' "$log"); f=$(sed -n 's/^# FAIL: *//p' "$log")
	s=$(sed -n 's/^# SKIP: *//p' "$log"); x=$(sed -n 's/^# XPASS: *//p' "$log")
	e=$(sed -n 's/^# ERROR: *//p' "$log")
	pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0} + ${x:-0} + ${e:-0})); skip=$((skip + ${s:-0}))
}

status=0
echo "== build (-Werror)"
if "$src/scripts/build.sh" "$src/build" --enable-werror; then
	echo "== make check"
	make -C "$src/build" -j2 check >"$src/build/check.out" 2>&1 || status=1
	grep -E '^(PASS|FAIL|SKIP|ERROR|XPASS):' "$src/build/check.out"
	tally "$src/build/test-suite.log"
	[ $status -eq 0 ] || grep -A30 '^FAIL\|^ERROR' "$src/build/test-suite.log" | head -80
else
	echo "check: build failed" >&2
	fail=$((fail + 1)); status=1
fi

echo "== sanitizer build (ASan + UBSan)"
if "$src/scripts/build.sh" "$src/build-san" --enable-werror --enable-sanitizers; then
	unit=$(make -s -C "$src/build-san" print-unit-tests)
	# leaks fail tests (LeakSanitizer; tests/t/san_leaks.sh checks this line)
	export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
	export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
	rm -f "$src/build-san/test-suite.log"
	[ -d "$src/build/tests/matrix" ] && export E4_MATRIX="$src/build/tests/matrix"
	# and the corpus images the normal pass unpacked (tests/lib.sh corpus_unpack)
	export E4_CORPUS_CACHE="$src/build/tests/corpus-unpacked"
	make -C "$src/build-san" -j2 check TESTS="$unit $(echo $SAN_TESTS)" >"$src/build-san/check.out" 2>&1 || status=1
	grep -E '^(PASS|FAIL|SKIP|ERROR|XPASS):' "$src/build-san/check.out" | sed 's/^/san /'
	tally "$src/build-san/test-suite.log"
	[ $status -eq 0 ] || grep -A30 '^FAIL\|^ERROR' "$src/build-san/test-suite.log" | head -80
else
	echo "check: sanitizer build failed" >&2
	fail=$((fail + 1)); status=1
fi

# The fuzz targets' short deterministic pass (scripts/fuzz-ci.sh, about 4
# minutes): it needs clang, which CI must have; elsewhere it is skipped
# when clang is missing.
echo "== fuzzing (clang, libFuzzer)"
if command -v clang >/dev/null 2>&1 || [ "${CI:-}" = true ]; then
	out=$("$src/scripts/fuzz-ci.sh" "$src/build-fuzz" 2>&1)
	echo "$out" | grep -E '^(PASS|FAIL)|^    '
	p=$(echo "$out" | tail -1 | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
	[ -n "$p" ] || { echo "$out" | tail -20; p="0 1"; }
	pass=$((pass + ${p% *})); fail=$((fail + ${p#* }))
else
	echo "check: clang is missing: the fuzzing pass is skipped (scripts/deps.sh installs it)"
	skip=$((skip + 1))
fi

[ $fail -eq 0 ] || status=1
echo "$pass passed, $fail failed, $skip skipped"
exit $status
