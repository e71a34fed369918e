#!/bin/bash
# mkfs_hashes: e4mkfs's images for the whole matrix (every option set of
# mkfs_matrix.sh and mkfs_big.sh, every image of tests/mkmatrix.sh, and
# the 64 KiB-block, tiny, revision 0, reproducibility and orphan-file sets)
# made with a fixed UUID, hash seed and clock, are byte for byte the
# images recorded in tests/mkfs_hashes.tsv (a SHA-256 over their non-zero
# 4 KiB blocks: tests/mkfs_hashes.py).  The table was recorded before
# e4mkfs's writer moved onto the library's write layer (issue 13,
# acceptance 7); `make update-mkfs-hashes` rewrites it, only for a change
# meant to alter the images.  A set a matrix script lists that the table
# lacks (or lists with other options) fails too.
# Catches: a refactor of the layout, the descriptor setters or the writer
# that moves one block or changes one field (checked: the default inode
# size made 128 instead of 256 makes 91 of the 106 sets differ).

. "${E4_SRCDIR:-$(dirname "$0")/../..}/tests/lib.sh"
. "$E4_TESTDIR/t/mkfs_common.bash"

need_e4mkfs
need_cmd "$PYTHON" truncate
# the 5 TiB 1 KiB-block image has the most data: about 0.5 GiB
tmp_on_tmpfs 2g

"$PYTHON" "$E4_TESTDIR/mkfs_hashes.py" check "$E4_TESTDIR/mkfs_hashes.tsv" "$E4MKFS" "$TFS" \
	"${E4_JOBS:-2}" || fail "e4mkfs's images differ from tests/mkfs_hashes.tsv (see above)"
info "every image equal to the recorded one ($(elapsed) s)"
exit 0
