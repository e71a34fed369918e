#!/usr/bin/env bash
# Build e4kit in a build directory: scripts/build.sh [BUILDDIR] [configure args...]
# Default BUILDDIR is build/ in the source tree.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bdir=${1:-$src/build}
shift || true
cd "$src"
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
	autoreconf -fi >/dev/null
fi
mkdir -p "$bdir"
cd "$bdir"
if [ ! -f Makefile ] || [ "$src/configure" -nt config.status ]; then
	"$src/configure" -q "$@"
fi
make -s -j"$(nproc)" >/dev/null
