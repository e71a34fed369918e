#!/usr/bin/env bash
# bench/fuzz.sh TARGET [HOURS [JOBS]]: run one fuzz target for hours
# (issue 18) and write a report.  TARGET is read, journal, blocks, debugfs,
# mkfs, fsck or tune; HOURS defaults to 1 (fractions allowed: 0.25); JOBS to every
# core (libFuzzer's -fork=JOBS: findings do not stop the run).
#
# Uses the fuzzing build E4_FUZZ_BUILD (default build-fuzz, built with
# CC=clang --enable-fuzzing if missing) and its seeds (tests/fuzz/mkseeds.sh,
# here every corpus image, however large).  The corpus it grows lives in
# E4_FUZZ_WORK (default BUILD/fuzz-work/TARGET) and is kept between runs, so
# a second run goes on where the first stopped.  The run is cut in four
# quarters; the report (E4_FUZZ_WORK/report.txt, also printed) gives per
# quarter the executions, CPU time, the corpus's coverage at its end (edges
# and features as libFuzzer counts them when it loads the corpus), the
# corpus size and the findings (crash-, timeout-, oom-, leak-
# files in E4_FUZZ_WORK/findings), and whether coverage still grew in the
# last quarter.  Timeouts: 10 s (fuzz_mkfs 30 s, see scripts/fuzz-ci.sh).
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
t=${1:?usage: bench/fuzz.sh TARGET [HOURS [JOBS]]}
hours=${2:-1}
jobs=${3:-$(nproc)}
bdir=${E4_FUZZ_BUILD:-$src/build-fuzz}
case $t in
read | journal | blocks | debugfs | fsck | tune) dict=ext4 limit=10 ;;
mkfs) dict=mkfs limit=30 ;;
*) echo "bench/fuzz.sh: unknown target $t" >&2; exit 2 ;;
esac
if [ ! -x "$bdir/tests/fuzz/fuzz_$t" ]; then
	"$src/scripts/build.sh" "$bdir" CC=clang --enable-fuzzing --disable-shared || exit 1
fi
bdir=$(cd "$bdir" && pwd)
bash "$src/tests/fuzz/mkseeds.sh" "$bdir" $((1 << 40)) || exit 1
work=${E4_FUZZ_WORK:-$bdir/fuzz-work/$t}
mkdir -p "$work/corpus" "$work/findings"
total=$(awk -v h="$hours" 'BEGIN { printf "%d", h * 3600 }')
quarter=$(((total + 3) / 4))
report=$work/report.txt

# a log's executions: the final stats line without -fork, the last "#N"
# of the parent with -fork
# The corpus's coverage: every input of it run once (-runs=0), as libFuzzer
# counts it when it starts ("INITED cov: edges ft: features").  The same
# measure at each quarter's end, whatever -fork's parent printed.
corpus_cov() {
	"$bdir/tests/fuzz/fuzz_$t" -runs=0 -timeout="$limit" -rss_limit_mb=2048 -max_len=1048576 \
		"$work/corpus" >"$work/cov.log" 2>&1
	grep -a INITED "$work/cov.log" | tail -1 | grep -oE '(cov|ft): [0-9]+' | grep -oE '[0-9]+' |
		tr '\n' ' '
}
execs() {
	local n
	n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$1" | tail -1)
	[ -n "$n" ] || n=$(grep -aoE '^#[0-9]+' "$1" | tail -1 | tr -d '#')
	echo "${n:-0}"
}
findings() { ls "$work/findings" | grep -cE '^(crash|timeout|oom|leak)-'; }

{
	echo "fuzz_$t: $hours h on $jobs jobs ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores)"
	printf '%-8s %10s %10s %8s %8s %8s %9s\n' quarter execs cpu_s cov ft corpus findings
} | tee "$report"
covs=()
sum=0
for q in 1 2 3 4; do
	log=$work/q$q.log
	before=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
	"$bdir/tests/fuzz/fuzz_$t" -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 \
		-ignore_ooms=1 -max_total_time="$quarter" -timeout="$limit" -rss_limit_mb=2048 \
		-max_len=1048576 -dict="$src/tests/fuzz/dict/$dict.dict" -print_final_stats=1 \
		-artifact_prefix="$work/findings/" "$work/corpus" "$bdir/tests/fuzz/seeds/$t" \
		"$src/tests/fuzz/regress/$t" >"$log" 2>&1
	# CPU of the finished children (clock ticks), this shell's included
	after=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
	cpu=$(((after - before) / $(getconf CLK_TCK)))
	n=$(execs "$log")
	sum=$((sum + n))
	read -r cov ft <<<"$(corpus_cov)"
	covs+=("${cov:-0}")
	printf '%-8s %10s %10s %8s %8s %8s %9s\n' "$q/4" "$n" "$cpu" "${cov:-?}" \
		"${ft:-?}" "$(ls "$work/corpus" | wc -l)" "$(findings)" | tee -a "$report"
done
{
	echo "total executions: $sum"
	echo "coverage (edges): midpoint ${covs[1]}, end ${covs[3]}," \
		"last quarter $([ "${covs[3]}" -gt "${covs[2]}" ] && echo "grew by $((covs[3] - covs[2]))" || echo "did not grow")"
	echo "findings:"
	ls "$work/findings" | grep -E '^(crash|timeout|oom|leak)-' | sed "s|^|  $work/findings/|"
	[ "$(findings)" -gt 0 ] || echo "  none"
} | tee -a "$report"
