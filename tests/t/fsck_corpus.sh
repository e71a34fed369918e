#!/bin/bash
# fsck_corpus: e4fsck against the reference's exit codes on the public
# corpus (issue 15, acceptance 3).  For every row of
# ../shared/corpus/manifest.tsv with an exit code (first_exit or
# second_exit), e4fsck runs with the row's options on a copy of the image,
# as the README there says: TZ=GMT0, E2FSCK_CONFIG=/dev/null, the row's
# env= items (E2FSCK_TIME), its stdin= answers on the first run, {jnl}
# replaced by a copy of the external journal; then the second run's
# options (second_fsck_opts) on the image the first run left.  Each exit
# code is compared with the reference's; one line per failing row gives
# the reason ("exit 8, reference 1"), and the last line says
# "corpus: N/M passed".  Where e4fsck refuses an option it does not have
# yet (-D, -E bmap2extent: exit 16), the row fails for that, and the run
# is made again without the option, so the image is still checked for
# crashes (the row's line says what that gave).
#
# No threshold yet (part 2b sets one): the test fails only when a run
# crashes, hangs (E4_FSCK_CORPUS_TIMEOUT, 30 s; 60 s with sanitizers),
# draws a sanitizer report, or exits with a status that is not a sum of
# the documented bits (tests/lib.sh fsck_exit_why).  Every row's result is
# written to $E4_BUILDDIR/tests/fsck_corpus.tsv (rewritten each run; the
# previous run's is kept as fsck_corpus.tsv.prev, and the rows whose exit
# statuses changed are counted).  Rows run E4_JOBS (2) at a time on
# a tmpfs; unpacked images are cached in the build directory
# (corpus_unpack).  E4_CORPUS_ONLY=REGEX narrows the rows (debugging).
# Catches: a crash or a hang of e4fsck on a damaged image, an exit status
# outside the documented set (a 5: "corrected" with "left uncorrected").
# Checked: a NULL dereference planted in fsck/super_check.c (check_groups,
# reached on most images) fails those rows with "crashed (signal 11)"; main()
# planted to turn an exit 8 into 5 fails the rows that exited 8 with "exit
# 5: not a documented exit status".

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

TMO=${E4_FSCK_CORPUS_TIMEOUT:-$([ -n "$E4_SANITIZERS" ] && echo 60 || echo 30)}

# drop_opts "OPTS" LETTERS NAMES: OPTS without the option letters LETTERS
# and without the -E items NAMES (space-separated)
drop_opts() {
	local -a w out=()
	local i x keep
	read -ra w <<<"$1"
	for ((i = 0; i < ${#w[@]}; i++)); do
		x=${w[i]}
		if [ "$x" = -E ] && [ $((i + 1)) -lt ${#w[@]} ]; then
			i=$((i + 1))
			keep=$(tr ',' '\n' <<<"${w[i]}" | grep -vxF -f <(tr ' ' '\n' <<<"$3") | paste -sd,)
			[ -z "$keep" ] || out+=(-E "$keep")
		elif [[ $x =~ ^-[a-zA-Z]+$ ]] && [ -n "$2" ]; then
			x=-$(tr -d "$2" <<<"${x#-}")
			[ "$x" = - ] || out+=("$x")
		else
			out+=("$x")
		fi
	done
	echo "${out[*]}"
}

# run_fsck N OPTS WANT: run N of the row (globals of one_row); sets GOT
# (the exit status), appends to WHY (a failed comparison) and BROKEN (a
# crash, hang, report or undocumented status)
run_fsck() {
	local n=$1 opts=$2 want=$3 p=$T/run$1 args bad="" letters names why try
	for try in 1 2 3 4; do
		read -ra args <<<"${opts//\{jnl\}/$CORPUS_JNL}"
		RUNCAP_IN=$([ "$n" = 1 ] && echo "$CORPUS_STDIN" || echo /dev/null) \
			runcap "$p" "$TMO" env "${CORPUS_ENV[@]}" "$E4FSCK" "${args[@]}" "$T/i.img"
		GOT=$(cat "$p.rc")
		why=$(fsck_exit_why "$p" "$TMO")
		if [ -n "$why" ]; then
			BROKEN+="run $n ($opts): $why; "
			cp "$p.err" "$RES/$NAME.run$n.err"
			return
		fi
		[ "$GOT" = 16 ] || break
		letters=$(sed -n "s/.*invalid option -- '\(.\)'.*/\1/p" "$p.err" | tr -d '\n')
		names=$(sed -n 's/.*unknown extended option: \(.*\)$/\1/p' "$p.err" | tr '\n' ' ')
		[ -n "$letters$names" ] || break
		bad+="${letters:+-$letters }${names:+-E ${names% } }"
		opts=$(drop_opts "$opts" "$letters" "$names")
	done
	if [ -n "$bad" ]; then
		WHY+="run $n: e4fsck has no ${bad% } (exit 16); without: exit $GOT, reference ${want/#-/none}; "
	elif [ "$want" != - ] && [ "$GOT" != "$want" ]; then
		WHY+="run $n: exit $GOT, reference $want; "
	fi
}

# one_row RESDIR LINE: one manifest row (corpus_rows' columns) into
# RESDIR/NAME.tsv: name result opts1 ref1 got1 opts2 ref2 got2 seconds
# reason
one_row() {
	local kind file first second opts needs opts2 got1 got2=- t0=$SECONDS result
	RES=$1
	IFS=$'\t' read -r NAME kind file first second opts needs opts2 <<<"$2"
	WHY="" BROKEN=""
	if ! corpus_copy "$file" "$needs" "$T"; then
		BROKEN="$CORPUS_WHY; "
	else
		run_fsck 1 "$opts" "$first"
		got1=$GOT
		if [ "$opts2" != - ] && [ -z "$BROKEN" ]; then
			run_fsck 2 "$opts2" "$second"
			got2=$GOT
		fi
	fi
	result=pass
	[ -z "$WHY" ] || result=fail
	[ -z "$BROKEN" ] || result=broken
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$NAME" "$result" "$opts" "$first" \
		"${got1:--}" "$opts2" "$second" "$got2" $((SECONDS - t0)) "$BROKEN$WHY" >"$RES/$NAME.tsv"
}

need_e4fsck
export E4FSCK
if [ "${1:-}" = --one ]; then
	one_row "$2" "$3"
	exit 0
fi

corpus_start "$T/all"
awk -F'\t' '$4 != "-" || $5 != "-"' "$T/all" >"$T/rows"
M=$(wc -l <"$T/rows")
[ -n "${E4_CORPUS_ONLY:-}" ] || [ "$M" -ge 150 ] || fail "only $M rows with an exit code"
corpus_each "$T/rows" "$T/res"

TSV=$E4_BUILDDIR/tests/fsck_corpus.tsv
mkdir -p "$(dirname "$TSV")"
printf 'name\tresult\topts1\tref1\tgot1\topts2\tref2\tgot2\tseconds\treason\n' >"$T/out.tsv"
N=0 broken=0
while IFS=$'\t' read -r name _; do
	r=$T/res/$name.tsv
	if [ ! -s "$r" ]; then
		printf '%s\tbroken\t\t\t\t\t\t\t\tno result (the worker died)\n' "$name" >"$r"
	fi
	cat "$r" >>"$T/out.tsv"
	IFS=$'\t' read -r _ result _ _ _ _ _ _ _ reason <"$r"
	case $result in
	pass) N=$((N + 1)) ;;
	fail) echo "$name: ${reason%; }" ;;
	*)
		echo "FAIL: $TEST_NAME: $name: ${reason%; }" >&2
		broken=$((broken + 1))
		# the stderr of the first few only: one bug can fail most rows
		for e in "$T/res/$name".run*.err; do
			[ "$broken" -le 5 ] && [ -e "$e" ] && tail -15 "$e" >&2
		done
		;;
	esac
done <"$T/rows"
# the previous run's table kept beside it; rows whose exit statuses
# changed since then are counted
changed=""
if [ -f "$TSV" ]; then
	mv "$TSV" "$TSV.prev"
	changed=$(awk -F'\t' 'NR == FNR { old[$1] = $5 "/" $8; next }
		FNR > 1 && ($1 in old) && old[$1] != $5 "/" $8 { n++ } END { print n + 0 }' "$TSV.prev" "$T/out.tsv")
fi
mv "$T/out.tsv" "$TSV"
[ -z "$changed" ] || info "$changed rows exit otherwise than in the previous run ($TSV.prev)"
info "$broken rows crashed, hung or broke the exit-status rules; results in $TSV ($(elapsed) s)"
echo "corpus: $N/$M passed"
[ "$broken" = 0 ] || exit 1
exit 0
