/*
 * file_write.h: writing regular files through the mapping interface
 * (map_write.h; format doc sections 6.4, 7 and 8.6), included by e4.h.
 *
 * Every call works on the caller's inode image *ib (changed in place:
 * map, i_size, i_blocks, flags) and writes it (e4_inode_write()) last,
 * after the file's data (uncached, e4_io_pwrite) and tree or indirect
 * blocks (through the cache).  Block usage changes in the cached bitmaps:
 * e4_alloc_flush() writes them.  Times are the caller's.  Offsets and
 * lengths are bytes.  New blocks come from e4_block_find_free() /
 * e4_block_mark(), the goal the block after the file's previous mapped
 * block, else the inode's group.  Inline data (inline_data, inodes over
 * 128 bytes): an empty regular file written with content that fits the
 * inode becomes inline, as the kernel and debugfs make small files; an
 * inline file that outgrows the inode is converted to extents (with the
 * extent feature) or a block map, its content in a new block.  bigalloc:
 * a logical cluster maps one physical cluster (block offsets inside it
 * equal); a block of a logical cluster that has one goes into it, else a
 * new cluster is allocated and counted whole in i_blocks.
 */
#ifndef E4_FILE_WRITE_H
#define E4_FILE_WRITE_H

#include "e4.h"

#ifdef __cplusplus
extern "C" {
#endif

/* e4_file_write() flags. */
#define E4_FILE_SPARSE		0x0001	/* a block of the source that is all zeros
					   is not allocated where the file has a
					   hole (it reads as zeros already): a
					   sparse source stays sparse */
#define E4_FILE_NO_INLINE	0x0002	/* never make the file inline */

/* Write len bytes of buf at byte offset into regular file ino: mapped
 * written blocks are overwritten, unwritten ones written and converted,
 * holes allocated (runs of contiguous blocks when the allocator has
 * them); i_size grows to offset + len (the bytes between the old end and
 * offset read as zeros; large_file is set in the superblock when the
 * file passes 2 GiB).  E4_ERR_READ_ONLY, E4_ERR_INVALID_ARGUMENT (not a
 * regular file, unknown flags), E4_ERR_FILE_TOO_BIG (past the largest
 * file: 2^32 - 1 blocks with extents (the kernel's ext4_max_size()),
 * e4_blockmap_max_blocks() with a block map; or i_blocks would not fit), E4_ERR_NO_SPACE, errors of e4_map_set(), e4_bmap(),
 * I/O errors.  After an error, blocks already written stay mapped and
 * counted; i_size is then not changed and the inode not written. */
errcode_t e4_file_write(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, uint64_t offset,
			const void *buf, size_t len, unsigned flags);
/* Set the size of regular file ino to size bytes.  Shrinking frees the
 * blocks past the new end (e4_map_punch()) and zeroes the rest of the
 * last block past size (the kernel's truncate does); growing leaves a
 * hole (the old last block's bytes past the old size zeroed).  Inline
 * files stay inline while size fits (else converted).  Errors as
 * e4_file_write() and e4_map_punch(). */
errcode_t e4_file_truncate(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, uint64_t size);
/* Punch a hole in [offset, offset + len) of regular file ino (the
 * kernel's FALLOC_FL_PUNCH_HOLE | KEEP_SIZE): whole blocks inside the
 * range are unmapped and freed, the range's bytes in partial blocks at
 * either end zeroed; i_size unchanged.  Inline files: the bytes zeroed.
 * Errors as e4_file_write() and e4_map_punch(). */
errcode_t e4_file_punch(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, uint64_t offset,
			uint64_t len);

/* The largest file's length in blocks for IB (inline: as the file it
 * would become): 2^32 - 1 with extents (the last block the kernel maps
 * is 2^32 - 2), an indirect map's whole range without.  The writes,
 * truncate and fallocate refuse E4_ERR_FILE_TOO_BIG past it. */
uint64_t e4_file_max_blocks(e4_fs *fs, const union e4_inode_buf *ib);

#define E4_FALLOC_KEEP_SIZE	0x0001	/* i_size unchanged (FALLOC_FL_KEEP_SIZE) */
/* Allocate the holes of [offset, offset + len) of regular file ino as
 * unwritten extents (they read as zeros); blocks already mapped are left
 * as they are; i_size grows to offset + len unless E4_FALLOC_KEEP_SIZE.
 * An inline file is converted first (as the kernel does).
 * E4_ERR_UNSUPPORTED on a block-mapped file (no unwritten state; the
 * kernel's fallocate gives EOPNOTSUPP there); other errors as
 * e4_file_write(). */
errcode_t e4_file_fallocate(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, uint64_t offset,
			    uint64_t len, unsigned flags);

#ifdef __cplusplus
}
#endif
#endif /* E4_FILE_WRITE_H */
