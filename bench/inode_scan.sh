#!/bin/bash
# bench/inode_scan.sh: the buffered inode scan's read speed, cold cache,
# by chunk size, with and without read-ahead (posix_fadvise WILLNEED of
# the next chunk).  Measured (2 cores, virtio disk): without read-ahead
# 0.06-0.15 s for 256 MB, with it 0.2-0.6 s; hence off by default.
# Not a test.  Needs root (drop_caches) and about 2 GiB
# of disk in $BENCH_DIR (default /var/tmp).
#   E4_BUILDDIR=build bash bench/inode_scan.sh
set -e
B=${E4_BUILDDIR:-build}
D=${BENCH_DIR:-/var/tmp}
IMG=$D/e4_scan_bench.img
trap 'rm -f "$IMG"' EXIT
rm -f "$IMG"
# blocks on the disk (a sparse image's holes would be read as zeros
# without any I/O), then every inode table read: no uninit_bg /
# metadata_csum to skip by; 1M inodes: 256 MB of tables
dd if=/dev/zero of="$IMG" bs=1M count=2048 conv=fsync status=none
PATH=$PATH:/sbin mke2fs -q -F -t ext4 -E nodiscard -O ^metadata_csum,^uninit_bg,^has_journal \
	-N 1000000 "$IMG" 2G
for chunk in 65536 1048576 4194304 16777216; do
	for ra in readahead ""; do
		sync; echo 3 > /proc/sys/vm/drop_caches
		printf '%9s %-12s ' "$chunk" "${ra:-no-readahead}"
		"$B/tests/helpers/scan_drv" "$IMG" "$chunk" $ra
	done
done
