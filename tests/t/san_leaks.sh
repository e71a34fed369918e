#!/bin/bash
# san_leaks: leaks fail the sanitizer pass (issue 12 item 11).
#  1. scripts/check.sh runs its sanitizer pass with LeakSanitizer on
#     (ASAN_OPTIONS detect_leaks=1); with detect_leaks=0 no leak could ever
#     fail a test.
#  2. In a sanitizer build (E4_SANITIZERS names address; check.sh's pass
#     runs this test there), e4tune -E mount_opts=... leaks nothing on
#     each way out: a change written, the option given twice, a refusal
#     after parsing, a usage error after parsing, -l --json, and a device
#     that does not exist.  Each run has detect_leaks=1 whatever the caller
#     set.  In a build without ASan, part 2 cannot see leaks and says so.
# Catches: the strdup of -E mount_opts= never freed (as before main()
# freed it), or a sanitizer pass that cannot fail on a leak.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4tune
need_oracle "$REF_MKE2FS"

# 1. the sanitizer pass's ASAN_OPTIONS default
line=$(grep -E '^[[:space:]]*export ASAN_OPTIONS=' "$E4_SRCDIR/scripts/check.sh")
[ -n "$line" ] || fail "scripts/check.sh exports no ASAN_OPTIONS"
opts=${line#*:-}
opts=${opts%\}*}
case ":$opts:" in
*:detect_leaks=1:*) ;;
*) fail "scripts/check.sh's sanitizer pass runs with ASAN_OPTIONS=$opts: leaks cannot fail a test" ;;
esac
case ":$opts:" in
*:detect_leaks=0:*) fail "scripts/check.sh's ASAN_OPTIONS turns leak detection off: $opts" ;;
esac

# 2. e4tune -E mount_opts= on each way out
case ${E4_SANITIZERS:-} in
*address*) asan=1 ;;
*) asan=0 ;;
esac
img=$T/fs.img
truncate -s 8M "$img"
"$REF_MKE2FS" -q -F -t ext4 "$img" || fail "mke2fs failed"
bad=0
# run NAME WANT_RC ARGS...
run() {
	local name=$1 want=$2 rc
	shift 2
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 runcap "$T/$name" 60 "$E4TUNE" "$@"
	rc=$(cat "$T/$name.rc")
	if san_report "$T/$name.err"; then
		echo "$TEST_NAME: $name: e4tune $*: sanitizer report:" >&2
		grep -A12 -E 'LeakSanitizer|AddressSanitizer|runtime error' "$T/$name.err" | head -30 >&2
		bad=$((bad + 1))
	elif [ "$rc" != "$want" ]; then
		echo "$TEST_NAME: $name: e4tune $* exits $rc, not $want: $(head -2 "$T/$name.err")" >&2
		bad=$((bad + 1))
	fi
}
run written 0 -E mount_opts=nodelalloc "$img"
run twice 0 -E mount_opts=nodelalloc,mount_opts=noauto_da_alloc "$img"
run refused 1 -E mount_opts=journal_async_commit "$img"
run usage 1 -E mount_opts=nodelalloc -c nonsense "$img"
run json 0 -l --json -E mount_opts=nodelalloc "$img"
run nodevice 1 -E mount_opts=nodelalloc "$T/no-such-image"
[ $bad -eq 0 ] || fail "$bad runs went wrong"
if [ $asan = 1 ]; then
	info "check.sh's sanitizer pass detects leaks; e4tune -E mount_opts= leaks nothing on 6 ways out"
else
	info "check.sh's sanitizer pass detects leaks; no ASan in this build, so the e4tune runs only checked exit codes"
fi
exit 0
