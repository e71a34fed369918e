#!/bin/bash
# fsck_corpus_asan: e4fsck -fn, then -fy, then -fn again on a copy of
# every image of ../shared/corpus (every manifest row, with its external
# journal (-j) and env= items where it has them): no crash, no hang
# (E4_FSCK_CORPUS_TIMEOUT: 30 s; 60 s with sanitizers), no sanitizer
# report, an exit status that is a sum of the documented bits (issue 15,
# acceptance 4; tests/lib.sh fsck_exit_why).  Run under ASan/UBSan by
# scripts/check.sh's SAN_TESTS (ASAN_OPTIONS/UBSAN_OPTIONS as check.sh
# sets them: leaks reported, UBSan halts on the first error; set here
# the same way when unset).  Without sanitizers (the normal pass) every
# third image only (E4_LONG=1: all); E4_CORPUS_ONLY=REGEX picks images.
# The last -fn reads what e4fsck's own -fy wrote.
# Catches: e4fsck trusting a damaged field (a descriptor count, a journal
# superblock length) and reading past a buffer, a use after free or a
# leak on an error path, undefined shifts on hostile geometry.
# Checked: a NULL dereference planted in fsck/super_check.c
# (check_groups, reached on most images) fails them sanitized with
# "sanitizer report: ... runtime error: load of null pointer" (UBSan) and
# without sanitizers with "crashed (signal 11)"; a one-byte read past
# check_groups' calloc'd array fails them sanitized only
# ("AddressSanitizer: heap-buffer-overflow", stack printed).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

TMO=${E4_FSCK_CORPUS_TIMEOUT:-$([ -n "$E4_SANITIZERS" ] && echo 60 || echo 30)}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# one_image RESDIR LINE: the three runs on one manifest row (corpus_rows'
# columns); what went wrong into RESDIR/NAME.bad (and the run's stderr
# into NAME.report)
one_image() {
	local res=$1 name kind file first second opts needs opts2 jarg=() n=0 opt why
	IFS=$'\t' read -r name kind file first second opts needs opts2 <<<"$2"
	corpus_copy "$file" "$needs" "$T" || { echo "$CORPUS_WHY" >"$res/$name.bad"; return; }
	[ -z "$CORPUS_JNL" ] || jarg=(-j "$CORPUS_JNL")
	for opt in -fn -fy -fn; do
		n=$((n + 1))
		runcap "$T/r" "$TMO" env "${CORPUS_ENV[@]}" "$E4FSCK" "$opt" "${jarg[@]}" "$T/i.img"
		why=$(fsck_exit_why "$T/r" "$TMO")
		[ -n "$why" ] || continue
		echo "run $n (e4fsck $opt${jarg:+ -j JNL}): $why" >"$res/$name.bad"
		grep -A20 -m1 -E 'runtime error|Sanitizer' "$T/r.err" >"$res/$name.report" ||
			tail -15 "$T/r.err" >"$res/$name.report"
		return
	done
	cat "$T/r.rc" >"$res/$name.ok"
}

need_e4fsck
export E4FSCK
if [ "${1:-}" = --one ]; then
	one_image "$2" "$3"
	exit 0
fi

corpus_start "$T/rows"
[ -n "${E4_CORPUS_ONLY:-}" ] || [ "$(wc -l <"$T/rows")" -ge 190 ] || fail "only $(wc -l <"$T/rows") corpus rows"
# without sanitizers (the normal pass) every third image, unless E4_LONG
if [ -z "$E4_SANITIZERS" ] && [ -z "${E4_LONG:-}" ] && [ -z "${E4_CORPUS_ONLY:-}" ]; then
	awk 'NR % 3 == 1' "$T/rows" >"$T/sel" && mv "$T/sel" "$T/rows"
fi
corpus_each "$T/rows" "$T/res"

nimg=$(wc -l <"$T/rows") nbad=0
while IFS=$'\t' read -r name _; do
	[ -e "$T/res/$name.ok" ] && [ ! -e "$T/res/$name.bad" ] && continue
	nbad=$((nbad + 1))
	[ -e "$T/res/$name.bad" ] || echo "no result (the worker died)" >"$T/res/$name.bad"
	echo "FAIL: $TEST_NAME: $name: $(cat "$T/res/$name.bad")" >&2
	# the stack of the first few only: one bug can fail most images
	[ "$nbad" -le 5 ] && [ -e "$T/res/$name.report" ] && head -25 "$T/res/$name.report" >&2
done <"$T/rows"
info "$((nimg - nbad))/$nimg images pass -fn, -fy, -fn${E4_SANITIZERS:+ (sanitized)} ($(elapsed) s)"
[ "$nbad" = 0 ] || fail "$nbad images crashed, hung, drew a sanitizer report or exited outside the documented set"
exit 0
