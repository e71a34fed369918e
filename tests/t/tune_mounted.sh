#!/bin/bash
# tune_mounted: e4tune on a mounted filesystem goes through the kernel or
# refuses (issue 11 item 13).  Writing under a mounted filesystem loses the
# change: through a loop device the kernel writes its own superblock over
# the image file at unmount.
#  - the image file, mounted through a loop device: -c -C -e -i -u -g -m -T
#    -L -o -E stride=,stripe_width=,hash_alg=,mount_opts= exit 0, and after
#    the unmount the superblock holds what the reference tune2fs gives the
#    same image unmounted (those fields of dumpe2fs -h); clean, mounts;
#  - -U on metadata_csum without metadata_csum_seed: refused, naming the
#    loop device, the UUID unchanged after the unmount; -O
#    metadata_csum_seed then -U UUID (both through the kernel): kept after
#    the unmount, clean;
#  - -M, -O ^dir_nlink, -j: refused naming the loop device, nothing changed;
#  - the loop device itself (a mounted block device): -c through the kernel;
#  - mounted read-only: -c refused, saying so, nothing changed.
# A refusal prints no "Setting ..." line.
# Bug it catches: settings written to the image file (or the device) under
# the kernel, reported as done and gone after the unmount.

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"

need_e4tune
need_oracle "$REF_MKE2FS" "$REF_E2FSCK" "$REF_DUMPE2FS" "$REF_TUNE2FS"
need_root_loop
need_cmd findmnt

export MKE2FS_CONFIG=$E4_TESTDIR/mke2fs-debian.conf
failed=()
n=0
mnt=$T/mnt
img=$T/img.img
ref=$T/ref.img
"$REF_MKE2FS" -q -F -t ext4 "$img" 16M >/dev/null 2>&1 || fail "mke2fs failed"
cp "$img" "$ref"

field() { "$REF_DUMPE2FS" -h "$1" 2>/dev/null | grep -E "^$2:" | sed 's/^[^:]*: *//'; }

# refused NAME PATTERN ARGS...: exit 1, the message matches PATTERN and
# names the loop device
refused() {
	local name=$1 pat=$2
	shift 2
	n=$((n + 1))
	if "$E4TUNE" "$@" >"$T/out" 2>&1 </dev/null; then
		failed+=("$name: accepted while mounted: $(cat "$T/out")")
	elif ! grepq -E "$pat" "$T/out" || ! grepq -F "$loopdev" "$T/out"; then
		failed+=("$name: the refusal does not say '$pat' and name $loopdev: $(cat "$T/out")")
	elif grepq '^Setting' "$T/out"; then
		failed+=("$name: refused, but says it set something: $(cat "$T/out")")
	fi
}

settings=(-c 7 -C 3 -e remount-ro -i 2w -u 1 -g 2 -m 3 -T 20230102 -L mounted-label
	-o acl,nodelalloc -E stride=4,stripe_width=16,hash_alg=tea,mount_opts=nodelalloc)
mount_loop "$img" "$mnt" || fail "mount failed"
loopdev=$(findmnt -n -o SOURCE "$mnt")
echo data >"$mnt/file"
n=$((n + 1))
"$E4TUNE" "${settings[@]}" "$img" >"$T/out" 2>&1 || failed+=("settings while mounted: $(cat "$T/out")")
refused "-U without metadata_csum_seed" unmounted -U random "$img"
refused "-M" unmounted -M /elsewhere "$img"
refused "-O ^dir_nlink" unmounted -O ^dir_nlink "$img"
refused "-j" unmounted -j "$img"
uuid0=$(field "$img" "Filesystem UUID")
umount_retry "$mnt"

"$REF_TUNE2FS" "${settings[@]}" "$ref" >/dev/null 2>&1 || fail "tune2fs failed"
for f in "Filesystem volume name" "Maximum mount count" "Mount count" "Errors behavior" \
	"Check interval" "Reserved block count" "Reserved blocks uid" "Reserved blocks gid" \
	"Last checked" "Default mount options" "Mount options" "RAID stride" "RAID stripe width" \
	"Default directory hash"; do
	n=$((n + 1))
	want=$(field "$ref" "$f") got=$(field "$img" "$f")
	[ "$got" = "$want" ] || failed+=("after the unmount, $f is '$got', tune2fs gives '$want'")
done
n=$((n + 1))
[ "$(field "$img" "Filesystem UUID")" = "$uuid0" ] || failed+=("the refused -U changed the UUID")
[ "$(field "$img" "Last mounted on")" != /elsewhere ] || failed+=("the refused -M was written")
field "$img" "Filesystem features" | grepq dir_nlink || failed+=("the refused ^dir_nlink was written")
ref_clean "$img" || failed+=("not clean after the mounted changes: $(head -4 <<<"$REF_CLEAN_OUT" | tr '\n' '|')")
kernel_mounts "$img" || failed+=("the kernel refuses the result: $KMOUNT_OUT")

# metadata_csum_seed, then a UUID, both through the kernel
mount_loop "$img" "$mnt" || fail "second mount failed"
loopdev=$(findmnt -n -o SOURCE "$mnt")
uuid=6a7b8c9d-0e1f-4a2b-8c3d-4e5f60718293
n=$((n + 1))
"$E4TUNE" -O metadata_csum_seed "$img" >"$T/out" 2>&1 &&
	"$E4TUNE" -U "$uuid" "$img" >>"$T/out" 2>&1 || failed+=("seed then -U while mounted: $(cat "$T/out")")
# the mounted block device itself
n=$((n + 1))
"$E4TUNE" -c 9 "$loopdev" >"$T/out" 2>&1 || failed+=("-c on the mounted loop device: $(cat "$T/out")")
umount_retry "$mnt"
n=$((n + 1))
[ "$(field "$img" "Filesystem UUID")" = "$uuid" ] || failed+=("-U while mounted: UUID $(field "$img" "Filesystem UUID") after the unmount")
field "$img" "Filesystem features" | grepq metadata_csum_seed || failed+=("metadata_csum_seed lost at the unmount")
[ "$(field "$img" "Maximum mount count")" = 9 ] || failed+=("-c on the loop device lost at the unmount")
ref_clean "$img" || failed+=("not clean after seed and UUID: $(head -4 <<<"$REF_CLEAN_OUT" | tr '\n' '|')")

# mounted read-only: the kernel changes nothing
mount_loop "$img" "$mnt" ro || fail "read-only mount failed"
loopdev=$(findmnt -n -o SOURCE "$mnt")
refused "-c on a read-only mount" read-only -c 11 "$img"
umount_retry "$mnt"
n=$((n + 1))
[ "$(field "$img" "Maximum mount count")" = 9 ] || failed+=("-c on a read-only mount changed the image")

for f in "${failed[@]+"${failed[@]}"}"; do
	echo "FAIL: $TEST_NAME: $f" >&2
done
[ ${#failed[@]} = 0 ] || fail "${#failed[@]} failures in $n checks"
info "$n checks passed ($(elapsed)s)"
