#!/bin/bash
# matrix_retry: a failed image-matrix build is never remembered across runs
# (issue 12 item 12; the guide: "a failure is never cached across runs").
# Within one `make check` (one E4_CHECK_RUN, which Makefile.am sets from
# the make process) the tests that come after a failed build fail at once
# instead of each building again; a new run, or a test run by hand (no
# E4_CHECK_RUN), builds again.
# matrix_ensure runs here with a stand-in builder (a few lines that fail or
# succeed on demand, counting its calls) in a private matrix directory, so
# the real matrix is never touched.
# Catches: the old rule, a failure remembered for 20 minutes by stamp only
# ("matrix build failed a moment ago"), which failed the next run too.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_cmd flock sha256sum
# the stand-in builder needs neither loop devices nor the reference tools
need_root_loop() { :; }
need_oracle() { :; }
MKMATRIX=$T/fake-mkmatrix.sh
E4_MATRIX=$T/matrix
cat >"$MKMATRIX" <<'EOF'
# stand-in builder: mkmatrix.sh DIR; fails while $T/mode says fail
set -e
echo x >>"$FAKE_DIR/calls"
[ "$(cat "$FAKE_DIR/mode")" = ok ] || { echo "planned failure" >&2; exit 1; }
mkdir -p "$1"
: >"$1/img1.img"
echo img1 >"$1/images.txt"
: >"$1/skipped.txt"
echo "$FAKE_STAMP" >"$1/stamp"
echo "built"
EOF
FAKE_DIR=$T
FAKE_STAMP=$(matrix_want_stamp)
export FAKE_DIR FAKE_STAMP

# attempt NAME RUN WANT_RC WANT_CALLS: matrix_ensure with E4_CHECK_RUN=RUN
# ("" for a run by hand) must exit WANT_RC after WANT_CALLS builder calls
# in all.
bad=0
attempt() {
	local name=$1 run=$2 want_rc=$3 want_calls=$4 rc calls
	(
		if [ -n "$run" ]; then E4_CHECK_RUN=$run; else unset E4_CHECK_RUN; fi
		matrix_ensure
	) >"$T/$name.out" 2>&1
	rc=$?
	calls=$(wc -l <"$T/calls" 2>/dev/null || echo 0)
	if [ "$rc" != "$want_rc" ] || [ "$calls" != "$want_calls" ]; then
		echo "$TEST_NAME: $name: exit $rc after $calls builder calls, want exit $want_rc after $want_calls: $(tail -2 "$T/$name.out")" >&2
		bad=$((bad + 1))
	fi
}

echo fail >"$T/mode"
attempt first-fails run1 1 1
attempt same-run-waits run1 1 1		# the same make check: no second build
echo ok >"$T/mode"
attempt same-run-still-waits run1 1 1
attempt new-run-retries run2 0 2	# a new run builds again
attempt built-is-kept run3 0 2		# a good matrix is not rebuilt
rm -f "$E4_MATRIX/stamp"		# stale: the next build fails
echo fail >"$T/mode"
attempt stale-fails run4 1 3
attempt by-hand-retries "" 1 4		# no E4_CHECK_RUN: always retried
attempt by-hand-again "" 1 5
echo ok >"$T/mode"
attempt by-hand-builds "" 0 6

# under make check, the run id is set, and the same for the tests of one
# run: it names an ancestor make process (pid and start time)
if [ -n "${E4_CHECK_RUN:-}" ]; then
	pid=${E4_CHECK_RUN#make-}
	start=${pid#*-}
	pid=${pid%%-*}
	p=$$ found=0
	while [ "$p" -gt 1 ]; do
		if [ "$p" = "$pid" ] && [ "$(cut -d' ' -f22 /proc/$p/stat)" = "$start" ]; then
			found=1
			break
		fi
		p=$(cut -d' ' -f4 /proc/$p/stat)
	done
	[ $found = 1 ] || { echo "$TEST_NAME: E4_CHECK_RUN=$E4_CHECK_RUN names no ancestor process" >&2; bad=$((bad + 1)); }
fi
[ $bad -eq 0 ] || fail "$bad attempts went wrong"
info "a failed build is retried by the next run, not within one (run id ${E4_CHECK_RUN:-none})"
exit 0
