#!/bin/bash
# dbg_journal_corpus: the corpus's journal images that upstream makes with
# debugfs's jo/jw/jc (manifest notes "debugfs: jo ...") are made again
# here with e4debugfs from the same steps on the same mke2fs options (the
# tests' mke2fs.conf, TZ=GMT0, E2FSCK_CONFIG=/dev/null): big zeroing
# transactions (1 KiB blocks, 4097 blocks, several descriptors), the same
# revoked by a second transaction, bitmap-zeroing transactions (4 KiB
# blocks), uncommitted ones (jw -c), csum v3 with and without 64bit,
# external journal devices (jo -f).  On the rebuilt and on the corpus
# image the reference e2fsck -fy (with -j for an external journal) must
# exit alike (and as the manifest says), and the reference dumpe2fs of
# both after the replay must agree apart from UUIDs, checksums and times.
# Rows: E4_JCORPUS_ROWS (names, space-separated, or "all") picks them; by
# default five that cover every kind (plain, revoked, uncommitted with
# csum v3 and 64bit, 4097 blocks with csum v3 and 32-bit tags, external
# with a revoke): all 14 take about 23 s of CPU (90 s on a loaded
# machine), the five about a third.  E4_JCORPUS_WRITER=debugfs runs the
# same steps with the reference debugfs (all 14 pass: the steps are right).
# Catches: jw -c taken as "commit" (the uncommitted rows then exit 1, not
# 0), revoke records that miss the blocks (the revoke rows exit 1).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DEBUGFS" "$REF_DUMPE2FS" "$PYTHON"
need_e4debugfs
export TZ=GMT0 E2FSCK_CONFIG=/dev/null
export MKE2FS_CONFIG=$E4KIT_SHARED/corpus/mkfs/conf/tests-mke2fs.conf
WRITER=${E4_JCORPUS_WRITER:-$E4DEBUGFS}	# the reference debugfs checks the steps
JNLUUID=1db3f677-6832-4adb-bafc-8e4059c30a34
MAN=$E4KIT_SHARED/corpus/manifest.tsv

# name|block size|mke2fs -O|blocks|jo options|jw -b blocks (bitmaps: every
# bitmap block)|revoke in a second transaction|jw -c (no commit)
ROWS='
j_short_trans|4096|has_journal|65536||bitmaps|0|0
j_short_trans_64bit|4096|64bit,has_journal|65536||bitmaps|0|0
j_short_trans_mcsum_64bit|4096|64bit,has_journal,metadata_csum|131072|-c|bitmaps|0|0
j_short_revoke_trans|4096|has_journal|65536||bitmaps|1|0
j_short_revoke_trans_mcsum_64bit|4096|64bit,has_journal,metadata_csum|131072|-c|bitmaps|1|0
j_short_uncommitted_trans|4096|has_journal|65536||bitmaps|0|1
j_short_uncommitted_trans_mcsum_64bit|4096|64bit,has_journal,metadata_csum|131072|-c|bitmaps|0|1
j_long_revoke_trans|1024|has_journal|262144||259-4356|1|0
j_long_trans_mcsum_32bit|1024|^64bit,has_journal,metadata_csum|524288|-c|260-4356|0|0
j_long_trans_mcsum_64bit|1024|64bit,has_journal,metadata_csum|524288|-c|262-4358|0|0
j_long_revoke_trans_mcsum_32bit|1024|^64bit,has_journal,metadata_csum|524288|-c|260-4356|1|0
j_long_revoke_trans_mcsum_64bit|1024|64bit,has_journal,metadata_csum|524288|-c|262-4358|1|0
j_ext_long_trans|1024|ext|262144||259-4356|0|0
j_ext_long_revoke_trans|1024|ext|262144||259-4356|1|0
'
DEFAULT_ROWS="j_short_trans j_short_revoke_trans j_short_uncommitted_trans_mcsum_64bit
j_long_trans_mcsum_32bit j_ext_long_revoke_trans"
want_rows=${E4_JCORPUS_ROWS:-$DEFAULT_ROWS}

# dumpe2fs output without what differs between two makes of one image
# (mke2fs picks the maximum mount count at random)
dump_norm() {
	"$REF_DUMPE2FS" "$@" 2>/dev/null | grep -vE \
		'UUID|[Cc]hecksum|[Tt]ime:|created:|Last |Lifetime writes|Hash Seed|Maximum mount count|Next check after|^dumpe2fs ' |
		sed -E 's/, csum 0x[0-9a-f]+//g; s/ csum 0x[0-9a-f]+//g'
}

# corpus image (and journal) of a row into $T/c.img ($T/c.jnl)
corpus_image() {
	local name=$1
	gzip -dc "$E4KIT_SHARED/corpus/journal/$name.img.gz" >"$T/c.img" || fail "$name: no corpus image"
	rm -f "$T/c.jnl"
	[ ! -f "$E4KIT_SHARED/corpus/journal/$name.jnl.gz" ] ||
		gzip -dc "$E4KIT_SHARED/corpus/journal/$name.jnl.gz" >"$T/c.jnl"
}

ran=0
while IFS='|' read -r name bs feat size jo blocks revoke nocommit; do
	[ -n "$name" ] || continue
	case " $(echo $want_rows) " in
	*" $name "* | " all ") ;;
	*) continue ;;
	esac
	img=$T/r.img
	jnl=$T/r.jnl
	jarg=() fopt=''
	rm -f "$img" "$jnl"
	if [ "$feat" = ext ]; then
		"$REF_MKE2FS" -F -o Linux -b "$bs" -O journal_dev -T ext4 -U "$JNLUUID" "$jnl" "$size" \
			>/dev/null 2>&1 || fail "$name: mke2fs -O journal_dev failed"
		"$REF_MKE2FS" -F -o Linux -b "$bs" -O ^has_journal -T ext4 "$img" "$size" >/dev/null 2>&1 ||
			fail "$name: mke2fs failed"
		printf 'feature has_journal\nssv journal_dev 0x9999\nssv journal_uuid %s\n' "$JNLUUID" |
			"$REF_DEBUGFS" -w -f - "$img" >/dev/null 2>&1 || fail "$name: debugfs set-up failed"
		jarg=(-j "$jnl")
		fopt="-f $jnl"
	else
		"$REF_MKE2FS" -F -o Linux -b "$bs" -O "$feat" -T ext4 "$img" "$size" >/dev/null 2>&1 ||
			fail "$name: mke2fs failed"
	fi
	"$REF_E2FSCK" -fy "${jarg[@]}" "$img" >/dev/null 2>&1 </dev/null
	[ $? -le 1 ] || fail "$name: the set-up e2fsck -fy failed"
	if [ "$blocks" = bitmaps ]; then
		blocks=$("$REF_DUMPE2FS" "$img" 2>/dev/null | sed -n 's/^.*bitmap at \([0-9]*\).*$/\1/p' |
			tr '\n' ',' | sed 's/,$//')
	fi
	cflag=''
	[ "$nocommit" = 1 ] && cflag=-c
	{
		echo "jo $jo $fopt"
		echo "jw -b $blocks $cflag /dev/zero"
		echo "jc"
		if [ "$revoke" = 1 ]; then
			echo "jo $fopt"
			echo "jw -r $blocks"
			echo "jc"
		fi
	} >"$T/cmds"
	runcap "$T/w" 120 "$WRITER" -w -f "$T/cmds" "$img"
	[ "$(cat "$T/w.rc")" = 0 ] || fail "$name: the journal commands failed: $(grep -v '^debugfs' "$T/w.err" | head -3)"

	corpus_image "$name"
	cj=()
	[ -f "$T/c.jnl" ] && cj=(-j "$T/c.jnl")
	want=$(awk -F'\t' -v n="$name" '$1 == n { print $4 }' "$MAN")
	"$REF_E2FSCK" -fy "${jarg[@]}" "$img" >"$T/r.fsck" 2>&1 </dev/null
	rr=$?
	"$REF_E2FSCK" -fy "${cj[@]}" "$T/c.img" >"$T/c.fsck" 2>&1 </dev/null
	rc=$?
	[ "$rr" = "$rc" ] || fail "$name: e2fsck -fy exits $rr on the rebuilt image, $rc on the corpus's: $(grep -vE '^(e2fsck|Pass)' "$T/r.fsck" | head -4)"
	[ "$rr" = "$want" ] || fail "$name: e2fsck -fy exits $rr, the manifest says $want"
	dump_norm "$img" >"$T/r.dump"
	dump_norm "$T/c.img" >"$T/c.dump"
	diff "$T/c.dump" "$T/r.dump" >"$T/dump.diff" ||
		fail "$name: dumpe2fs after the replay differs (corpus <, rebuilt >): $(head -6 "$T/dump.diff")"
	verbose "$name: e2fsck -fy exit $rr on both, dumpe2fs alike ($SECONDS s)"
	ran=$((ran + 1))
	rm -f "$img" "$jnl" "$T/c.img" "$T/c.jnl"
done <<<"$ROWS"
[ "$ran" -gt 0 ] || fail "no row ran (E4_JCORPUS_ROWS=$want_rows)"
exit 0
