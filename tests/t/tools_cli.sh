#!/bin/bash
# tools_cli: what a new user types first works the same in every tool
# (issue 12 item 10).
#  -V      prints "TOOL VERSION (e4kit)" on stdout, nothing on stderr, exit 0
#          (tune2fs refuses -V and exits 1; e4tune does not copy that).
#  --help  prints the usage on stdout ("Usage: TOOL ..."), nothing on stderr,
#          exit 0.  An unknown long option is still a usage error (exit 1,
#          e4fsck 16) naming the option.
#  a directory given as the device: nothing on stdout, one line on stderr
#          naming the directory and saying "Is a directory", the tool's
#          usual exit code for a device it cannot open (e4fsck 8, others 1).
#  stdout that cannot be written (/dev/full, or closed: common/stdfds.c
#          gives a closed stdout a descriptor every write to fails on):
#          -V, --help, e4tune -l, e4debugfs -R stats and e4fsck -n lose
#          their output, and say so: one line on stderr naming standard
#          output (after e4fsck's and e4mkfs's version line), exit 1
#          (e4fsck: 8 OR'd into its status; -n on a clean image: 8).
# Catches: e4mkfs reporting a directory as "Block device required" (the
# probe answering ENOTBLK for every non-device), e4fsck refusing -V, or
# getopt's "invalid option -- '-'" for --help; a listing lost on a closed
# stdout or /dev/full with exit 0 (every tool's -V and --help, e4tune -l,
# e4debugfs -R stats and e4fsck -n did so: a script took the lost listing
# for an empty one).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4debugfs
need_e4tune
need_e4fsck
E4MKFS=${E4MKFS:-$E4_BUILDDIR/mkfs/e4mkfs}
[ -x "$E4MKFS" ] || fail "e4mkfs not found: $E4MKFS"
version=$(sed -n 's/^AC_INIT(\[e4kit\], *\[\([^]]*\)\].*/\1/p' "$E4_SRCDIR/configure.ac")
[ -n "$version" ] || fail "cannot read the version from configure.ac"

bad=0
problem() {
	echo "$TEST_NAME: $*" >&2
	bad=$((bad + 1))
}

# expect NAME WANT_RC CMD...: run CMD; its exit status must be WANT_RC.
expect() {
	local name=$1 want=$2 rc
	shift 2
	runcap "$T/$name" 10 "$@"
	rc=$(cat "$T/$name.rc")
	[ "$rc" = "$want" ] || problem "$name: $* exits $rc, not $want (stderr: $(head -2 "$T/$name.err"))"
}

dir=$T/a-directory
mkdir "$dir"
img=$T/small.img
"$E4MKFS" -q -t ext4 "$img" 4M || fail "e4mkfs failed"

# lost NAME WANT_RC REDIR CMD...: CMD's stdout output is lost (REDIR:
# /dev/full or closed): exit WANT_RC, one line on stderr (besides a version
# line) saying so
lost() {
	local name=$1 want=$2 redir=$3 rc
	shift 3
	case $redir in
	full) timeout 10 "$@" </dev/null >/dev/full 2>"$T/$name.err" ;;
	closed) timeout 10 "$@" </dev/null >&- 2>"$T/$name.err" ;;
	esac
	rc=$?
	[ "$rc" = "$want" ] || problem "$name: $* >$redir exits $rc, not $want"
	[ "$(grep -Evc '^e4(fsck|mkfs) [0-9]' "$T/$name.err")" = 1 ] &&
		grepq 'standard output' "$T/$name.err" ||
		problem "$name: $* >$redir: not one line on the lost output: $(head -3 "$T/$name.err" | tr '\n' '|')"
}
for tool in e4mkfs e4tune e4fsck e4debugfs; do
	case $tool in
	e4mkfs) bin=$E4MKFS dir_rc=1 usage_rc=1 ;;
	e4tune) bin=$E4TUNE dir_rc=1 usage_rc=1 ;;
	e4fsck) bin=$E4FSCK dir_rc=8 usage_rc=16 ;;
	e4debugfs) bin=$E4DEBUGFS dir_rc=1 usage_rc=1 ;;
	esac

	expect "$tool-V" 0 "$bin" -V
	[ "$(cat "$T/$tool-V.out")" = "$tool $version (e4kit)" ] ||
		problem "$tool -V prints '$(head -1 "$T/$tool-V.out")', not '$tool $version (e4kit)'"
	[ -s "$T/$tool-V.err" ] && problem "$tool -V writes to stderr: $(head -1 "$T/$tool-V.err")"

	expect "$tool-help" 0 "$bin" --help
	grepq -E "^Usage: $tool " "$T/$tool-help.out" ||
		problem "$tool --help prints no 'Usage: $tool' line on stdout"
	[ -s "$T/$tool-help.err" ] && problem "$tool --help writes to stderr: $(head -1 "$T/$tool-help.err")"

	for redir in full closed; do
		lost "$tool-V-$redir" "$dir_rc" $redir "$bin" -V
		lost "$tool-help-$redir" "$dir_rc" $redir "$bin" --help
		case $tool in
		e4tune) lost "$tool-l-$redir" 1 $redir "$bin" -l "$img" ;;
		e4fsck) lost "$tool-n-$redir" 8 $redir "$bin" -n "$img" ;;
		e4debugfs) lost "$tool-stats-$redir" 1 $redir "$bin" -R stats "$img" ;;
		esac
	done

	expect "$tool-longbad" "$usage_rc" "$bin" --no-such-option
	grepq -e "--no-such-option" "$T/$tool-longbad.err" ||
		problem "$tool --no-such-option: the message does not name the option"

	# the directory, on each path that opens the device
	case $tool in
	e4mkfs) runs=("-q $dir" "-n $dir" "-q -F $dir 8M") ;;
	e4tune) runs=("-l $dir" "-c 20 $dir") ;;
	e4fsck) runs=("-n $dir" "-fy $dir" "-p $dir") ;;
	e4debugfs) runs=("-R stats $dir" "$dir") ;;
	esac
	i=0
	for args in "${runs[@]}"; do
		i=$((i + 1))
		# shellcheck disable=SC2086
		expect "$tool-dir$i" "$dir_rc" "$bin" $args
		[ -s "$T/$tool-dir$i.out" ] && problem "$tool $args: writes to stdout: $(head -1 "$T/$tool-dir$i.out")"
		grep -v "^$tool $version" "$T/$tool-dir$i.err" | grep -F "$dir" | grepq "Is a directory" ||
			problem "$tool $args: no line naming $dir with 'Is a directory': $(head -3 "$T/$tool-dir$i.err")"
		san_report "$T/$tool-dir$i.err" && problem "$tool $args: sanitizer report"
	done
done
[ -d "$dir" ] && [ -z "$(ls -A "$dir")" ] || problem "the directory was changed"
[ $bad -eq 0 ] || fail "$bad problems"
info "4 tools: -V, --help, a directory as the device and lost output as expected"
exit 0
