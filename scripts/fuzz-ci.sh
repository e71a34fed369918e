#!/usr/bin/env bash
# scripts/fuzz-ci.sh [BUILDDIR]: the fuzz targets' short deterministic pass
# (issue 18), run by scripts/check.sh when clang is there.  Builds BUILDDIR
# (default build-fuzz) with CC=clang --enable-fuzzing, makes the seeds
# (tests/fuzz/mkseeds.sh), then each target loads its seeds and
# tests/fuzz/regress/TARGET (every input runs once) and runs a fixed number
# of mutations with a fixed seed (-runs=N -seed=1, from an empty corpus
# directory each time, so a finding cannot come and go between runs).  Two
# targets run at a time.  Any crash, sanitizer report, leak, timeout (10 s;
# fuzz_mkfs 30 s) or out-of-memory (2 GiB) fails the pass; its input is left in
# BUILDDIR/tests/fuzz/ci/TARGET/findings.  About 4 minutes on 2 cores.
# Last line: N passed, N failed.
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bdir=${1:-$src/build-fuzz}

if ! command -v clang >/dev/null 2>&1; then
	echo "fuzz-ci: clang is missing (scripts/deps.sh installs it)" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
if ! "$src/scripts/build.sh" "$bdir" CC=clang --enable-fuzzing --disable-shared; then
	echo "fuzz-ci: the fuzzing build failed" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
bdir=$(cd "$bdir" && pwd)
if ! bash "$src/tests/fuzz/mkseeds.sh" "$bdir"; then
	echo "fuzz-ci: making the seeds failed" >&2
	echo "0 passed, 1 failed"
	exit 1
fi

# target|mutations|dictionary|timeout: sized for about a minute each on a
# 2-core machine shared with other work (fuzz_mkfs runs about 70 a second:
# it lays out filesystems of every size).  fuzz_mkfs's limit is 60 s (30 s until the layout moved onto the run-based bitmap, which costs it 2.5 times the CPU on 1.6 million groups; a 200 TiB packed_meta_blocks layout then took 44 s in a loaded CI pass): a layout of the most
# groups e4mkfs lays out (2^21) takes 0.2 s natively but about 8 s under
# the fuzzing build's instrumentation, more on a busy machine.  fuzz_fsck
# and fuzz_tune run the tools whole (each input opens its image several
# times, fuzz_tune runs e4fsck before and after): 3000 fsck runs took
# 31 s of CPU, 4000 tune runs 51 s (measured on the loaded 2-core machine),
# so about 40 s more for the pass.
targets="read|20000|ext4|10
journal|20000|ext4|10
blocks|30000|ext4|10
debugfs|20000|ext4|10
debugfs_w|20000|ext4|10
mkfs|6000|mkfs|60
fsck|3000|ext4|10
tune|4000|ext4|10
popsrc|5000|tar|10"
run_target() {	# run_target NAME RUNS DICT TIMEOUT
	local t=$1 runs=$2 dict=$3 limit=$4 w=$bdir/tests/fuzz/ci/$1 start=$SECONDS rc
	rm -rf "$w"
	mkdir -p "$w/corpus" "$w/findings" "$src/tests/fuzz/regress/$t"
	# ASAN_OPTIONS: leaks and every sanitizer report are findings
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
		"$bdir/tests/fuzz/fuzz_$t" -seed=1 -runs="$runs" -timeout="$limit" -rss_limit_mb=2048 \
		-max_len=1048576 -dict="$src/tests/fuzz/dict/$dict.dict" -print_final_stats=1 \
		-artifact_prefix="$w/findings/" "$w/corpus" "$bdir/tests/fuzz/seeds/$t" \
		"$src/tests/fuzz/regress/$t" >"$w/log" 2>&1
	rc=$?
	echo "$rc $((SECONDS - start))" >"$w/rc"
}

pass=0 fail=0
running=0
names=()
while IFS='|' read -r t runs dict limit; do
	run_target "$t" "$runs" "$dict" "$limit" &
	names+=("$t")
	running=$((running + 1))
	if [ $running -ge 2 ]; then
		wait -n
		running=$((running - 1))
	fi
done <<<"$targets"
wait
for t in "${names[@]}"; do
	w=$bdir/tests/fuzz/ci/$t
	read -r rc secs <"$w/rc" || rc=1
	cov=$(grep -aoE 'cov: [0-9]+' "$w/log" | tail -1)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$w/log")
	# slow-unit-* files are libFuzzer's notes on inputs over 10 s, not findings
	if [ "${rc:-1}" = 0 ] && [ -z "$(ls -A "$w/findings" | grep -v '^slow-unit-')" ]; then
		echo "PASS: fuzz_$t ($execs runs, $cov, ${secs}s)"
		pass=$((pass + 1))
	else
		echo "FAIL: fuzz_$t (exit $rc): finding(s) in $w/findings:"
		ls "$w/findings" | grep -v '^slow-unit-' | sed 's/^/    /'
		grep -aE 'ERROR:|SUMMARY:|^ +#[0-9]+ .* in ' "$w/log" | head -25
		echo "    reproduce: $bdir/tests/fuzz/fuzz_$t FILE; minimise with -minimize_crash=1" \
			"-runs=20000; then fix it and add the minimised input to tests/fuzz/regress/$t"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
