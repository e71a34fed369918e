#!/usr/bin/env bash
# Install (through Debian packages) whatever e4kit needs to build and test
# that is missing.  Root runs apt-get directly; others go through sudo.
# tests/t/deps_complete.sh checks that this list (with what it depends on and
# the base system) provides every command the suite and the scripts run:
# procps for pkill (tests/lib.sh), kmod for modprobe (need_root_loop), bc for
# bench/mkfs.sh, zstd for the kernel64k setup; qemu-system-ppc runs with
# -vga none, so no VGA ROM (a recommended package) is needed; clang and
# libclang-rt-dev (libFuzzer, the sanitizer runtimes) build the fuzz targets
# (scripts/fuzz-ci.sh; the ordinary build never needs them).  libarchive-dev
# reads e4mkfs -d archives; acl's setfacl/getfacl give the populate tests'
# trees POSIX ACLs.
set -euo pipefail

pkgs=(
	build-essential autoconf automake libtool pkg-config
	uuid-dev libblkid-dev comerr-dev libisal-dev libedit-dev libcmocka-dev libjson-c-dev
	e2fsprogs util-linux attr xfsprogs python3 gzip coreutils
	qemu-system-ppc cpio strace fsmark
	procps kmod bc zstd
	libarchive-dev acl
	clang libclang-rt-dev
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2 || true
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
