#!/bin/bash
# fsck_engine_only: e4fsck's exit status is derived only by the problem
# engine (issue 15, DESIGN.md "e4fsck's shape"): no e4fsck source but
# fsck/problem.c changes the counters it is computed from (found, fixed,
# uncorrected, fatal, cancelled); a check reports through fix_problem(),
# e4fsck_fail(), e4fsck_fail_msg() or e4fsck_left().
# Bug caught: a pass that does "ctx->fixed++" (or sets ctx->fatal) beside
# the engine, so that its repairs skip the answer policy, the -p stop and
# the counts the exit status and the documentation describe.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

counters='(found|fixed|uncorrected|fatal|cancelled)'
pattern="(->|\.)$counters[[:space:]]*(=[^=]|\+\+|--|\+=|-=)|(\+\+|--)[[:space:]]*[a-z_]+(->|\.)$counters\b"
n=0
for f in "$E4_SRCDIR"/fsck/*.c "$E4_SRCDIR"/fsck/*.h; do
	case $(basename "$f") in problem.c) continue ;; esac
	n=$((n + 1))
	if grep -nE "$pattern" "$f" >"$T/hits" 2>/dev/null; then
		cat "$T/hits" >&2
		fail "$(basename "$f") changes an exit-status counter outside the problem engine"
	fi
done
[ "$n" -ge 5 ] || fail "only $n e4fsck sources found under $E4_SRCDIR/fsck"
# the engine itself is found by the pattern (the test can fail)
grep -qE "$pattern" "$E4_SRCDIR/fsck/problem.c" ||
	fail "the pattern no longer finds the engine's own counter updates"
info "ok: $n sources, counters changed only in fsck/problem.c"
