#!/bin/bash
# fuzz_regress: every input a fuzz target ever failed on (a crash, a
# sanitizer report, a leak, a timeout) runs through that target again
# (issue 18).  tests/fuzz/regress/TARGET/NAME is replayed by
# $E4_BUILDDIR/tests/fuzz/fuzz_TARGET: the replayer of an ordinary or
# sanitizer build (replay_main.c, which aborts an input running past
# E4FUZZ_TIMEOUT seconds), or the libFuzzer binary of a --enable-fuzzing
# build (-timeout=).  Each input is one run: the whole set takes seconds.
# Catches: a fix undone, e.g. layout.c's free-block search stepping one
# block at a time through packed metadata again (regress/mkfs/
# layout-packed-steps then runs past the limit), or any crash fixed before.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

limit=${E4FUZZ_TIMEOUT:-10}
export E4FUZZ_TIMEOUT=$limit
dirs=("$E4_SRCDIR"/tests/fuzz/regress/*/)
[ -d "${dirs[0]}" ] || fail "no tests/fuzz/regress/TARGET directories"
total=0
for d in "${dirs[@]}"; do
	t=$(basename "$d")
	bin=$E4_BUILDDIR/tests/fuzz/fuzz_$t
	[ -x "$bin" ] || fail "$bin missing: tests/fuzz/regress/$t has no target (make check builds them)"
	files=()
	for f in "$d"*; do
		[ -f "$f" ] && files+=("$f")
	done
	[ ${#files[@]} -gt 0 ] || continue
	# libFuzzer runs the files it is given once each; a directory would be
	# a corpus to fuzz
	runcap "$T/$t" $((limit * ${#files[@]} + 60)) "$bin" -timeout="$limit" \
		-rss_limit_mb=2048 "${files[@]}"
	rc=$(cat "$T/$t.rc")
	if [ "$rc" != 0 ] || san_report "$T/$t.err"; then
		grep -aE 'ERROR|TIMEOUT|runtime error|SUMMARY|Running: ' "$T/$t.err" | head -20 >&2
		fail "fuzz_$t: an input of tests/fuzz/regress/$t fails ($(describe_rc "$rc"))"
	fi
	total=$((total + ${#files[@]}))
	verbose "fuzz_$t: ${#files[@]} inputs"
done
info "$total inputs replayed"
