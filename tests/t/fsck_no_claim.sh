#!/bin/bash
# fsck_no_claim: e4fsck never claims the part of the full check it does
# not have (issue 11 item 10; issue 15: passes 1 and 5 run, passes 2-4 do
# not exist yet).  On a small clean image, with the clock fixed:
#  - an explicit -f (with -n, -y or -p) runs passes 1 and 5, says that
#    passes 2-4 did not run, finds nothing and exits 8 (nothing declared
#    clean: stderr says passes 2-4 are not available in this version),
#    never says "clean", and with -n writes nothing;
#  - a routine check that is due (mount count reached, check interval
#    passed; no error recorded) says so, runs passes 1 and 5, says the
#    routine check stays due, exits 0, and leaves s_mnt_count and
#    s_lastcheck alone;
#  - a filesystem whose state records errors, or that was not cleanly
#    unmounted, exits 4 (-p, -y and -fy): the recorded state is left, as
#    the directory passes did not run;
#  - -E journal_only -f exits 0: the journal part ran as asked, and it
#    says that the full check is not available.
# Every run that exits 0 or 1 leaves an image the kernel mounts.
# Bug it catches: `e4fsck -fy` exiting 0 after checking nothing but the
# superblock and passes 1 and 5, or a due check bumping the counters as if
# every pass had run.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4fsck
need_oracle "$REF_DEBUGFS" "$REF_MKE2FS" "$REF_DUMPE2FS"
export E2FSCK_CONFIG=/dev/null TZ=UTC E2FSCK_TIME=2000000000

run() {	# run NAME IMG WANT_RC ARGS...
	local name=$1 img=$2 want=$3
	shift 3
	fsck_run "$name" "$want" "$@" "$img"
	grep -q ": clean, " "$T/$name.out" && [ "$want" != 0 ] &&
		fail "$name: 'clean' said with exit $want"
	return 0
}

counters() {	# counters IMG: mount count and last check time
	"$REF_DUMPE2FS" -h "$1" 2>/dev/null | grep -E '^(Mount count|Last checked):'
}

img=$T/clean.img
"$REF_MKE2FS" -q -F -t ext4 -b 1024 "$img" 4M >/dev/null 2>&1 || fail "mke2fs failed"
"$REF_DEBUGFS" -w -R "ssv lastcheck 1990000000" "$img" >/dev/null 2>&1

# ---- -f: passes 1 and 5 run, find nothing, passes 2-4 missing: exit 8 ----
sum=$(sha256sum <"$img")
run f_n "$img" 8 -fn
[ "$(sha256sum <"$img")" = "$sum" ] || fail "-fn changed the image"
for m in n y p; do
	[ $m = n ] || run f_$m "$img" 8 -f$m
	grep -qE "(pass(es)? [2-4](-[34])? .* not available in this version|this version's checks are not complete).*not declared clean" "$T/f_$m.err" ||
		fail "-f$m: no message that the filesystem is not declared clean: $(cat "$T/f_$m.err")"
	# the notice of the directory passes that did not run, or (all ran)
	# their pass lines; preen prints no pass lines
	grep -qE "Pass(es)? [2-4](-[34])? .* did not run" "$T/f_$m.out" || [ $m = p ] ||
		{ grep -q "^Pass 2: " "$T/f_$m.out" && grep -q "^Pass 3: " "$T/f_$m.out" &&
		  grep -q "^Pass 4: " "$T/f_$m.out"; } ||
		fail "-f$m: no notice that passes 2-4 did not run: $(cat "$T/f_$m.out")"
done
grep -q "^Pass 1: " "$T/f_y.out" && grep -q "^Pass 5: " "$T/f_y.out" ||
	fail "-fy: passes 1 and 5 did not run: $(cat "$T/f_y.out")"

# ---- a routine check that is due: exit 0, counters untouched ----
for why in mnt_count interval; do
	cp "$img" "$T/$why.img"
	if [ $why = mnt_count ]; then
		printf 'ssv max_mnt_count 20\nssv mnt_count 25\n' >"$T/cmds"
		pat="has been mounted 25 times without being checked"
	else
		printf 'ssv checkinterval 86400\nssv lastcheck 1000000000\n' >"$T/cmds"
		pat="has gone [0-9]* days without being checked"
	fi
	"$REF_DEBUGFS" -w -f "$T/cmds" "$T/$why.img" >/dev/null 2>&1 || fail "$why: debugfs failed"
	before=$(counters "$T/$why.img")
	for m in p y; do
		run "due_${why}_$m" "$T/$why.img" 0 -$m
		grep -q "$pat" "$T/due_${why}_$m.out" ||
			fail "$why -$m: the due check is not reported: $(cat "$T/due_${why}_$m.out")"
		grep -qE "(pass(es)? [2-4](-[34])? (is|are) not available in this version|this version's checks are not complete \(e4fsck\(8\), LIMITATIONS\)), so the routine check stays due" \
			"$T/due_${why}_$m.out" ||
			fail "$why -$m: no message that the check stays due: $(cat "$T/due_${why}_$m.out")"
		grep -q ": clean, " "$T/due_${why}_$m.out" && fail "$why -$m: 'clean' said without the check"
	done
	[ "$(counters "$T/$why.img")" = "$before" ] || fail "$why: the counters changed: $(counters "$T/$why.img")"
done

# ---- errors recorded, not cleanly unmounted: exit 4 (the state is left) ----
for st in 3 0; do
	cp "$img" "$T/state$st.img"
	"$REF_DEBUGFS" -w -R "ssv state $st" "$T/state$st.img" >/dev/null 2>&1
	run state${st}_p "$T/state$st.img" 4 -p
	run state${st}_y "$T/state$st.img" 4 -y
	run state${st}_fy "$T/state$st.img" 4 -fy
done

# ---- -E journal_only -f: the journal part, as asked ----
run jo_f "$img" 0 -fy -E journal_only
grep -q "not available in this version" "$T/jo_f.out" ||
	fail "-E journal_only -f: no message that the full check is not available"

info "-f exits 8, a due check exits 0 without touching the counters, errors exit 4 ($(elapsed)s)"
exit 0
