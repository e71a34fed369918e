#!/usr/bin/env bash
# The main job on a demo image: install what is missing, build, format an
# ext4 image with e4mkfs, put a small demo tree in it (with the reference
# debugfs -w: e4kit has no file writer yet, and this needs no root), then
# inspect it with e4debugfs.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
"$src/scripts/deps.sh"
"$src/scripts/build.sh" "$src/build" --enable-werror
dbg="$src/build/debugfs/e4debugfs"
mkfs="$src/build/mkfs/e4mkfs"

work=$(mktemp -d /dev/shm/e4demo.XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tree/docs/deep/er" "$work/tree/bin"
printf 'Hello from e4kit.\n' > "$work/tree/hello.txt"
seq 1 20000 > "$work/tree/docs/numbers.txt"
printf 'nested\n' > "$work/tree/docs/deep/er/file"
ln -s ../hello.txt "$work/tree/bin/hello-link"
touch -d '2024-01-01 00:00:00 UTC' "$work/tree/hello.txt"
img="$src/build/demo.img"
rm -f "$img"
truncate -s 64M "$img"
"$mkfs" -q -F -t ext4 -L demo -U 0e4d0e4d-0000-4000-8000-00000000e4d0 -E hash_seed=0e4d0e4d-0000-4000-8000-000000000001 "$img" </dev/null
cat >"$work/fill" <<EOF
mkdir docs
mkdir docs/deep
mkdir docs/deep/er
mkdir bin
write $work/tree/hello.txt hello.txt
write $work/tree/docs/numbers.txt docs/numbers.txt
write $work/tree/docs/deep/er/file docs/deep/er/file
symlink bin/hello-link ../hello.txt
EOF
debugfs -w -f "$work/fill" "$img" >/dev/null 2>&1
e2fsck -fn "$img" >/dev/null

echo "== e4debugfs -R 'stats -h' $img (first lines)"
"$dbg" -R 'stats -h' "$img" | head -12
echo "== e4debugfs -R 'ls -l /' $img"
"$dbg" -R 'ls -l /' "$img"
echo "== e4debugfs -R 'cat /hello.txt' $img"
"$dbg" -R 'cat /hello.txt' "$img"
echo "== e4debugfs -R 'rdump / OUT' $img"
out="$work/out"
mkdir -p "$out"
"$dbg" -R "rdump / $out" "$img"
(cd "$out" && find . | sort | head -20)
echo "demo: OK (image kept at $img)"
