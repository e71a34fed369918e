/*
 * e4.h: libe4's public API.
 *
 * Conventions for every function here:
 *  - Errors are errcode_t values from the com_err table e4_err.et
 *    (E4_ERR_*), or an errno value for system-call failures.  0 = success.
 *    The library never prints, prompts or exits.
 *  - Inode numbers are 1-based (EXT4_ROOT_INO is 2).  Block numbers are
 *    filesystem blocks of e4_geom()->block_size bytes, absolute from the
 *    start of the device unless a name says "logical" (lblk: block index
 *    inside a file).  Byte counts say "bytes".
 *  - On-disk structures (ext4_fs.h, jbd2.h) are kept in their on-disk byte
 *    order in memory; read fields with e4_le*()/e4_be*() or the accessors.
 *  - "Format doc" means ../shared/docs/ext4-format.md.
 */
#ifndef E4_E4_H
#define E4_E4_H

#include <stddef.h>
#include <stdint.h>
#include <endian.h>
#include <et/com_err.h>

#include "ext4_fs.h"
#include "jbd2.h"
#include "e4_err.h"
#include "bmap.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t e4_ino_t;	/* 1-based inode number */
typedef uint64_t e4_blk_t;	/* filesystem block number */
typedef uint32_t e4_group_t;	/* block group number, 0-based */
typedef struct e4_io e4_io;
typedef struct e4_fs e4_fs;
typedef struct e4_file e4_file;
typedef struct e4_journal e4_journal;

/* ---- byte order ------------------------------------------------------ */
static inline uint16_t e4_le16(uint16_t v) { return le16toh(v); }
static inline uint32_t e4_le32(uint32_t v) { return le32toh(v); }
static inline uint64_t e4_le64(uint64_t v) { return le64toh(v); }
static inline uint16_t e4_be16(uint16_t v) { return be16toh(v); }
static inline uint32_t e4_be32(uint32_t v) { return be32toh(v); }
static inline uint64_t e4_be64(uint64_t v) { return be64toh(v); }
static inline uint16_t e4_cpu_to_le16(uint16_t v) { return htole16(v); }
static inline uint32_t e4_cpu_to_le32(uint32_t v) { return htole32(v); }
static inline uint64_t e4_cpu_to_le64(uint64_t v) { return htole64(v); }
static inline uint32_t e4_cpu_to_be32(uint32_t v) { return htobe32(v); }
/* Little-endian fields at any (unaligned) address inside a raw block. */
static inline uint16_t e4_get_le16(const void *p)
{
	uint16_t v;

	__builtin_memcpy(&v, p, 2);
	return le16toh(v);
}
static inline uint32_t e4_get_le32(const void *p)
{
	uint32_t v;

	__builtin_memcpy(&v, p, 4);
	return le32toh(v);
}

/* ext4 bitmaps (block, inode; format doc 4.2): bit i is bit i % 8 of
 * byte i / 8. */
static inline int e4_bit_test(const uint8_t *map, uint64_t bit)
{
	return (map[bit >> 3] >> (bit & 7)) & 1;
}
static inline void e4_bit_put(uint8_t *map, uint64_t bit, int on)
{
	if (on)
		map[bit >> 3] |= (uint8_t)(1u << (bit & 7));
	else
		map[bit >> 3] &= (uint8_t)~(1u << (bit & 7));
}
/* Set bits [first, first + n): whole bytes at a time in the middle. */
static inline void e4_bits_set(uint8_t *map, uint64_t first, uint64_t n)
{
	uint64_t end = first + n;

	for (; first < end && (first & 7); first++)
		e4_bit_put(map, first, 1);
	if (end - first >= 8) {
		__builtin_memset(map + (first >> 3), 0xFF, (size_t)((end - first) >> 3));
		first += (end - first) & ~(uint64_t)7;
	}
	for (; first < end; first++)
		e4_bit_put(map, first, 1);
}

/* Register the e4 com_err table (idempotent).  Tools call it once before
 * error_message(); e4_open() calls it too. */
void e4_init_errors(void);

/* ---- checksums (csum.c; format doc section 10) ----------------------- */
/* Raw CRC-32C update (Castagnoli, reflected), no inversion in or out:
 * e4_crc32c(~0, "123456789", 9) == 0x1CF96D7C.  SIMD through ISA-L. */
uint32_t e4_crc32c(uint32_t crc, const void *buf, size_t len);
/* Raw CRC-16 (poly 0x8005 reflected), no final xor:
 * e4_crc16(0xFFFF, "123456789", 9) == 0x4B37 (gdt_csum, section 4.3). */
uint16_t e4_crc16(uint16_t crc, const void *buf, size_t len);
/* Raw MSB-first CRC-32 (poly 0x04C11DB7), no final xor:
 * e4_crc32_be(~0, "123456789", 9) == 0x0376E6E7 (jbd2 v1, section 11.5). */
uint32_t e4_crc32_be(uint32_t crc, const void *buf, size_t len);

/* Superblock checksum: crc32c(~0, sb[0..0x3FC)).  Result in CPU order. */
uint32_t e4_superblock_csum(const struct ext4_super_block *sb);
/* Filesystem checksum seed (section 10.2), CPU order. */
uint32_t e4_csum_seed(e4_fs *fs);
/* Inode seed iseed(ino, generation) (section 10.2); gen in CPU order. */
uint32_t e4_inode_csum_seed(e4_fs *fs, e4_ino_t ino, uint32_t generation);
/* Full 32-bit inode checksum (section 6.6) over e4_geom()->inode_size
 * bytes of inode, ignoring its stored checksum fields. */
uint32_t e4_inode_csum(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode);
/* 1 if the inode's stored checksum matches (or the fs has no
 * metadata_csum, or the inode is all zeros), else 0. */
int e4_inode_csum_verify(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode);
/* Group descriptor checksum (section 4.3), as stored in bg_checksum. */
uint16_t e4_group_desc_csum(e4_fs *fs, e4_group_t g, const void *desc);
/* Bitmap checksum: crc32c(seed, buf[0..len)) (section 5). */
uint32_t e4_bitmap_csum(e4_fs *fs, const void *buf, size_t len);
/* Extent block tail checksum (section 7.2); block = one fs block. */
uint32_t e4_extent_block_csum(e4_fs *fs, e4_ino_t ino, uint32_t gen, const void *block);
/* Directory leaf tail checksum over block[0..bs-12) (section 8.3). */
uint32_t e4_dirblock_csum(e4_fs *fs, e4_ino_t ino, uint32_t gen, const void *block);
/* dx root/node checksum (section 8.5): count_offset is the byte offset of
 * the dx_countlimit (0x20 root, 8 node); count from it (CPU order). */
uint32_t e4_dx_csum(e4_fs *fs, e4_ino_t ino, uint32_t gen, const void *block,
		    unsigned count_offset, unsigned count, const struct dx_tail *t);
/* Xattr block checksum keyed by block number (section 9.2). */
uint32_t e4_xattr_block_csum(e4_fs *fs, e4_blk_t blk, const void *block);
/* Journal superblock checksum (section 11.2), CPU order. */
uint32_t e4_jsb_csum(const journal_superblock_t *jsb);

/* ---- I/O manager (io.c) ----------------------------------------------- */
#define E4_IO_RW	0x0001	/* open read-write (default read-only) */
#define E4_IO_EXCL	0x0002	/* O_EXCL on block devices */
#define E4_IO_NO_GROW	0x0004	/* writes past the size: E4_ERR_SHORT_WRITE (a
				   regular file is never extended) */

/* Open an image file or block device (the base of a new I/O stack, with
 * E4_IO_SYNC_BARRIERS: see e4_io_barrier()).  Errors: errno values
 * (EROFS: E4_IO_RW asked of a read-only block device, BLKROGET),
 * E4_ERR_NO_MEMORY. */
errcode_t e4_io_open(const char *path, int flags, e4_io **ret);
void e4_io_close(e4_io *io);
/* A device in memory of size bytes (fuzzing, tests): it reads as zeros
 * until written, and stores only the 4 KiB pages written to (sparse), at
 * most max_bytes of them; a write needing more fails with ENOSPC.  flags
 * as e4_io_open() (E4_IO_RW, E4_IO_NO_GROW: a write past size fails;
 * without it the size grows as a file's would).  Nothing is flushed
 * anywhere: the contents live until e4_io_close().  E4_ERR_NO_MEMORY. */
errcode_t e4_io_open_mem(uint64_t size, uint64_t max_bytes, int flags, e4_io **ret);
/* Put len bytes at byte offset into a memory device, whatever its flags
 * (read-only too) and without the write hook: its initial contents.
 * E4_ERR_INVALID_ARGUMENT (not a memory device), E4_ERR_SHORT_WRITE (past
 * the size), ENOSPC, E4_ERR_NO_MEMORY. */
errcode_t e4_io_mem_load(e4_io *io, uint64_t offset, const void *buf, size_t len);
/* Device size in bytes. */
uint64_t e4_io_size(e4_io *io);
/* Make byte 0 of every later call the device's byte offset (e4mkfs -E
 * offset=); the size shrinks by as much.  E4_ERR_INVALID_ARGUMENT past
 * the end.  Call before any block I/O. */
errcode_t e4_io_set_offset(e4_io *io, uint64_t offset);
/* Set the block size (bytes) used by block calls; drops the cache. */
errcode_t e4_io_set_blksize(e4_io *io, unsigned blocksize);
/* The block cache's budget in bytes (at least 64 blocks), from the next
 * e4_io_set_blksize() on (e4_open_io() calls it); 0: the default (16 MiB,
 * 256 KiB for a memory device).  For writers that touch each block once
 * and care about peak memory (e4mkfs -d). */
void e4_io_set_cache_bytes(e4_io *io, size_t bytes);
/* Byte-addressed uncached read/write.  Reading past the end:
 * E4_ERR_SHORT_READ; writing read-only: E4_ERR_READ_ONLY. */
errcode_t e4_io_pread(e4_io *io, uint64_t offset, void *buf, size_t len);
errcode_t e4_io_pwrite(e4_io *io, uint64_t offset, const void *buf, size_t len);
/* Read count blocks through the cache (metadata).  Sequential misses
 * trigger read-ahead. */
errcode_t e4_io_read_blk(e4_io *io, e4_blk_t blk, unsigned count, void *buf);
/* Read count blocks bypassing the cache (bulk file data). */
errcode_t e4_io_read_blk_nocache(e4_io *io, e4_blk_t blk, unsigned count, void *buf);
/* Read len bytes at byte offset bypassing the cache, in one device read
 * whatever the alignment (bulk file data: a file's partial last block
 * comes with the rest); dirty cached blocks overlay what was read.
 * Errors as e4_io_pread(). */
errcode_t e4_io_read_nocache(e4_io *io, uint64_t offset, void *buf, size_t len);
/* 1 if e4_io_read_nocache() may run in several threads at once, beside
 * any other call on io in one thread: the device is open read-only (no
 * dirty block to overlay, the only shared state it would touch) and no
 * read hook is set.  Every other call stays single-threaded. */
int e4_io_read_nocache_threadsafe(e4_io *io);
/* Write count blocks through the cache (write-back until e4_io_flush). */
errcode_t e4_io_write_blk(e4_io *io, e4_blk_t blk, unsigned count, const void *buf);
/* Write back dirty cache blocks and fsync. */
errcode_t e4_io_flush(e4_io *io);
/* Forget the dirty cache blocks: their writes never reach the device
 * (those already written back to make room, and uncached writes, stay
 * written).  For a caller that stops after a device failure. */
void e4_io_discard(e4_io *io);
/* Blocks blk .. blk+count-1 were freed: once a write-back has failed (the
 * device full or failing; the order of the steps is broken already),
 * their dirty cached contents are dropped, so that a write that keeps
 * failing (a new block in a hole of a full tmpfs) does not hold back the
 * steps that undo the failed operation.  Before any failure nothing
 * changes: a freed block's pending write keeps its place in the order. */
void e4_io_forget(e4_io *io, e4_blk_t blk, uint64_t count);
/* A layer over the device's writes (DESIGN.md "I/O layers stack"): hook is
 * called before every write that reaches the device (cached blocks when
 * they are written back, uncached writes at once) with its byte offset
 * and length; a non-zero return is returned by that write instead of
 * writing.  Used for write tracing and crash tests; NULL removes it.
 * The hooks are io's own layer, just above the base: layers pushed with
 * e4_io_push_layer() see a write before them. */
typedef errcode_t (*e4_io_write_hook)(void *priv, uint64_t offset, size_t len);
void e4_io_set_write_hook(e4_io *io, e4_io_write_hook hook, void *priv);
/* Start the device's writeback (asynchronously: sync_file_range's
 * SYNC_FILE_RANGE_WRITE) each time another `bytes` have been written, so
 * that the disk works while the caller is still writing and the final
 * e4_io_flush() waits for less; 0 (the default) turns it off.  A hint:
 * durability still comes only from e4_io_flush().  For writers that emit
 * much more than the cache holds, e.g. e4mkfs on large devices. */
void e4_io_set_writeback_ahead(e4_io *io, uint64_t bytes);
/* A layer over the device's reads (e4_io_pread() and every block read
 * through it): hook is called with the byte offset and length before each
 * read reaches the device; a non-zero return is returned by that read.
 * Used for read fault injection in tests; NULL removes it. */
typedef errcode_t (*e4_io_read_hook)(void *priv, uint64_t offset, size_t len);
void e4_io_set_read_hook(e4_io *io, e4_io_read_hook hook, void *priv);
/* 1 if err says the device could not be read or written (an errno value
 * from a system call, E4_ERR_SHORT_READ, E4_ERR_SHORT_WRITE), as opposed
 * to a verdict on the data read: such a failure is never a reason to
 * clear or rebuild the structure that could not be read. */
int e4_err_is_io(errcode_t err);
/* Tell the device that len bytes at offset will be read soon
 * (posix_fadvise WILLNEED: the kernel starts reading them in the
 * background); a hint, no error; nothing for a memory device. */
void e4_io_readahead(e4_io *io, uint64_t offset, uint64_t len);

/* ---- Ordered writes (io.c; DESIGN.md "Writing safely") ---------------- */
/* An ordering point: every block dirtied (e4_io_write_blk) or written
 * (e4_io_pwrite) before it reaches the device before any block dirtied or
 * written after it.  Between two ordering points (an epoch) blocks are
 * still written back sorted by number and merged into runs.  A block of
 * an earlier epoch dirtied again is first written with its earlier
 * contents (with every block of its epoch and the ones before), so the
 * device never sees a later epoch's contents before an earlier epoch is
 * complete.  Costs nothing until blocks of two epochs are dirty at once;
 * without ordering points, writeback is as before.  With E4_IO_SYNC_BARRIERS
 * the device is also synced (fdatasync) between epochs, so that the order
 * holds across a power failure, not only a process stop.  Errors: those of
 * the writes it causes (none today: it only starts a new epoch). */
errcode_t e4_io_barrier(e4_io *io);
/* e4_io_barrier() on fs's device: what an operation calls between its
 * steps (data and new metadata; then what makes them reachable; the
 * superblock last, which e4_alloc_flush() does itself). */
errcode_t e4_order_point(e4_fs *fs);
#define E4_IO_SYNC_BARRIERS	0x0008	/* e4_io_open(): fdatasync between epochs */
/* e4_io_open(): O_DIRECT, the page cache bypassed.  Every transfer is
 * aligned to the device's logical block size (BLKSSZGET) or, for an image
 * file, 4096 bytes: through an aligned bounce buffer, a partial unit read
 * first.  E4_ERR_DIRECT_IO when open() refuses O_DIRECT (EINVAL: tmpfs)
 * or the size is not a multiple of the alignment. */
#define E4_IO_DIRECT		0x0010

/* ---- I/O as a stack (io_layer.c; DESIGN.md "I/O layers stack") ---------
 * Below the block cache, every device read, write, sync and ordering
 * point goes down a stack of layers to the base (a file or block device,
 * or memory).  A layer is a struct e4_io_layer with an ops table; an op
 * left NULL passes the call to the layer below.  Offsets are bytes from
 * the device's origin (after e4_io_set_offset()).  Tracing, statistics,
 * crash points and (later) an undo file are layers, not flags. */
typedef struct e4_io_layer e4_io_layer;
struct e4_io_layer_ops {
	const char *name;
	/* len bytes at offset; errors as e4_io_pread()/e4_io_pwrite() */
	errcode_t (*read)(e4_io_layer *l, uint64_t offset, void *buf, size_t len);
	errcode_t (*write)(e4_io_layer *l, uint64_t offset, const void *buf, size_t len);
	/* make what was written durable (the base: fdatasync) */
	errcode_t (*sync)(e4_io_layer *l);
	/* an ordering point reaches the device: every write before it was
	 * issued, none after (the base syncs with E4_IO_SYNC_BARRIERS) */
	errcode_t (*barrier)(e4_io_layer *l);
	/* free the layer (e4_io_close(), for every layer still stacked) */
	void (*free)(e4_io_layer *l);
};
struct e4_io_layer {
	const struct e4_io_layer_ops *ops;
	e4_io_layer *below;	/* set by e4_io_push_layer() */
	int mt_read;		/* 1: its reads may run in several threads at once */
};
/* Pass a call to layer l (the first one below it, l included, that has
 * the op): what a layer calls on l->below.  Used by layers. */
errcode_t e4_io_layer_read(e4_io_layer *l, uint64_t offset, void *buf, size_t len);
errcode_t e4_io_layer_write(e4_io_layer *l, uint64_t offset, const void *buf, size_t len);
errcode_t e4_io_layer_sync(e4_io_layer *l);
errcode_t e4_io_layer_barrier(e4_io_layer *l);
/* Put layer on top of io's stack (just below the cache); io owns it from
 * then on (ops->free at e4_io_close()).  Dirty cached blocks written back
 * later go through it. */
void e4_io_push_layer(e4_io *io, e4_io_layer *layer);
/* Take layer out of io's stack; the caller owns it again.  Write back
 * first (e4_io_flush()) if its writes must pass through it.
 * E4_ERR_INVALID_ARGUMENT if it is not in the stack (or is the base). */
errcode_t e4_io_remove_layer(e4_io *io, e4_io_layer *layer);
/* The top of io's stack (the base when nothing is pushed). */
e4_io_layer *e4_io_top_layer(e4_io *io);

/* Statistics layer: counts what passes through it. */
struct e4_io_stats {
	uint64_t reads, writes;			/* calls */
	uint64_t read_bytes, written_bytes;
	uint64_t syncs, barriers;
};
/* A new statistics layer (all counts 0).  E4_ERR_NO_MEMORY. */
errcode_t e4_io_stats_layer(e4_io_layer **ret);
/* Copy the counts of a layer made by e4_io_stats_layer(). */
void e4_io_stats_get(const e4_io_layer *stats, struct e4_io_stats *st);

/* Crash-point layer (crash tests): *left writes pass (the count goes
 * down as they do; several layers, e.g. a tool's handles on one device,
 * may share one counter); the next write calls stop(priv) if stop is not
 * NULL (a tool's crash test ends the process there, as at a power
 * failure), then fails with EIO, and so does every later write: nothing
 * more reaches the device.  With E4_IO_CRASH_ONCE only that one write
 * fails (an I/O error) and every later one passes.  Reads pass.  E4_ERR_NO_MEMORY. */
#define E4_IO_CRASH_ONCE	0x0001
errcode_t e4_io_crash_layer(uint64_t *left, int flags, void (*stop)(void *priv), void *priv,
			    e4_io_layer **ret);
/* 1 once a crash-point layer has failed a write. */
int e4_io_crash_tripped(const e4_io_layer *crash);

/* ---- filesystem handle (super.c, group.c) ---------------------------- */
#define E4_OPEN_RW		0x0001	/* read-write */
#define E4_OPEN_IGNORE_CSUM	0x0002	/* checksum mismatches are not errors */
#define E4_OPEN_CATASTROPHIC	0x0004	/* tolerate bad descriptors, don't use bitmaps */
#define E4_OPEN_FORCE		0x0008	/* open read-only despite unknown features */
#define E4_OPEN_FIX_GEOMETRY	0x0010	/* a primary superblock failing only its
					   geometry is repaired in memory
					   (e4_super_fix_geometry(), e4_super_fixes()) */
#define E4_OPEN_MOUNT_CHECKS	0x0020	/* a read-only open also refuses what
					   e4_super_validate_mount() refuses (a
					   read-write open always does, a
					   catastrophic one never) */
#define E4_OPEN_NO_MOUNT_CHECKS	0x0040	/* a read-write open does not refuse what
					   e4_super_validate_mount() refuses
					   (e4debugfs -w: a debugger is where
					   such fields get set right) */
#define E4_OPEN_DIRECT		0x0080	/* the device opened with E4_IO_DIRECT
					   (e4debugfs -D) */

/* Decoded geometry, all values in CPU order. */
struct e4_geom {
	unsigned block_size;		/* bytes */
	unsigned log_block_size;	/* block_size = 1024 << log_block_size */
	unsigned cluster_size;		/* bytes */
	unsigned cluster_bits;		/* log2(blocks per cluster) */
	uint64_t blocks_count;
	uint64_t r_blocks_count;
	uint32_t first_data_block;
	uint32_t blocks_per_group;
	uint32_t clusters_per_group;
	uint32_t inodes_per_group;
	uint32_t inodes_count;
	uint32_t first_ino;
	unsigned inode_size;		/* bytes */
	uint32_t group_count;
	unsigned desc_size;		/* bytes: 32 or s_desc_size */
	uint32_t desc_per_block;
	uint32_t desc_blocks;		/* blocks of the (classic) GDT */
	uint32_t inode_blocks_per_group;
	int metadata_csum;		/* ro_compat metadata_csum */
	int gdt_csum;			/* ro_compat gdt_csum (uninit_bg) */
};

/* Open the filesystem at path.  superblock: 0 for the primary, or the
 * block number of a backup superblock in units of blocksize (blocksize 0:
 * try 1024..65536).  Validates magic, sizes, geometry and the superblock
 * checksum, and loads the group descriptors.  Errors: E4_ERR_BAD_MAGIC,
 * E4_ERR_BAD_BLOCK_SIZE, E4_ERR_BAD_GEOMETRY, E4_ERR_SB_CSUM,
 * E4_ERR_UNSUPP_FEATURE (unknown incompat; the message should name it,
 * see e4_unsupported_features()), E4_ERR_RO_UNSUPP_FEATURE (unknown
 * ro_compat with E4_OPEN_RW), E4_ERR_JOURNAL_DEV, E4_ERR_DEVICE_TOO_SMALL
 * (the device ends before the primary superblock's end, or before the
 * end of the descriptor table: e4_device_short_sizes() names the sizes;
 * E4_OPEN_CATASTROPHIC opens without the descriptors), errno.  Descriptors are
 * loaded but not judged (like the reference, a damaged group only fails
 * the operations that need it): see e4_check_group_descs(). */
errcode_t e4_open(const char *path, int flags, e4_blk_t superblock,
		  unsigned blocksize, e4_fs **ret);
/* e4_open() on an I/O manager the caller opened (e4_io_open_mem() for
 * fuzzing; opened E4_IO_RW when flags has E4_OPEN_RW, else its writes
 * fail with E4_ERR_READ_ONLY).
 * io stays the caller's: e4_close() flushes it but does not close it, so
 * it can be opened again.  name is what e4_device_name() returns.  Errors
 * as e4_open(). */
errcode_t e4_open_io(e4_io *io, const char *name, int flags, e4_blk_t superblock,
		     unsigned blocksize, e4_fs **ret);
/* Check every group descriptor: locations as e4_group_check_locations()
 * (its first fault's code), then the checksum (E4_ERR_GD_CSUM unless
 * IGNORE_CSUM).  *bad_group (may be NULL) gets the first bad group. */
errcode_t e4_check_group_descs(e4_fs *fs, e4_group_t *bad_group);
/* The filesystem against its device: E4_ERR_DEVICE_TOO_SMALL when the
 * superblock's block count runs past the end of the device (a truncated
 * image, the wrong partition; nothing there can be read or written).
 * *dev_blocks (may be NULL) gets the device size in filesystem blocks,
 * rounded down.  The one place of this rule for every tool. */
errcode_t e4_check_device_size(e4_fs *fs, uint64_t *dev_blocks);
/* What a tool names when e4_open() returned E4_ERR_DEVICE_TOO_SMALL (the
 * device ends before the primary superblock's end, byte 2048, or before
 * the end of the descriptor table the superblock implies): *dev_bytes the
 * device's size; *blocks and *block_size what the primary superblock says
 * (0 and 0 when it cannot be read or has no ext2/3/4 magic).  0 or the
 * error opening the device. */
errcode_t e4_device_short_sizes(const char *path, uint64_t *dev_bytes, uint64_t *blocks,
				unsigned *block_size);
/* Replace the descriptor table in memory with the copy kept with group
 * g's superblock backup (classic GDT after it; with meta_bg the backup
 * descriptor blocks of each meta group, section 4.5), or with g 0 the
 * table the open read.  Cached bitmaps are dropped.  While a backup copy
 * is loaded, descriptors and bitmaps are never written (E4_ERR_GDT_COPY
 * from the writers): it is as old as the backup.  Call before changing
 * anything.  E4_ERR_INVALID_ARGUMENT (no copy in group g),
 * E4_ERR_GD_BAD_LOCATION, read errors (the table in memory is then
 * unchanged). */
errcode_t e4_gdt_load_copy(e4_fs *fs, e4_group_t g);
/* One superblock field that e4_super_fix_geometry() recomputed. */
struct e4_sb_fix {
	const char *name;		/* "inode count", "blocks per group", ... */
	uint64_t was, now;
};
#define E4_SB_MAX_FIXES	8
/* Recompute in *sb (on-disk order) the fields the rest of the geometry
 * decides, when e4_super_validate() gives E4_ERR_BAD_GEOMETRY (format
 * doc 1.1): s_first_data_block (1 with 1 KiB blocks without bigalloc,
 * else 0); s_blocks_per_group from s_clusters_per_group or the reverse
 * (when both are possible and disagree, the one whose group count gives
 * s_inodes_count; when neither is usable and the filesystem fits one
 * group, 8 * block size clusters, what mke2fs writes); s_inodes_per_group
 * from s_inodes_count only when it is unusable; s_inodes_count =
 * groups * s_inodes_per_group; s_first_ino 11 when out of range.  Also
 * what e4_super_fixable() names (the extra inode sizes).  Each
 * change goes to fixes[0..*nfix) (at most E4_SB_MAX_FIXES).  Returns
 * e4_super_validate()'s verdict on the result (0: usable); any other
 * first error is returned with nothing changed.  No I/O. */
errcode_t e4_super_fix_geometry(struct ext4_super_block *sb, struct e4_sb_fix *fixes,
				unsigned *nfix);
/* What an E4_OPEN_FIX_GEOMETRY open repaired (0: nothing); *fixes points
 * into fs. */
unsigned e4_super_fixes(e4_fs *fs, const struct e4_sb_fix **fixes);
/* Flush (if read-write) and free everything. */
errcode_t e4_close(e4_fs *fs);
errcode_t e4_flush(e4_fs *fs);

const char *e4_device_name(e4_fs *fs);
int e4_open_flags(e4_fs *fs);
e4_io *e4_fs_io(e4_fs *fs);
/* The in-memory superblock (on-disk byte order). */
struct ext4_super_block *e4_super(e4_fs *fs);
const struct e4_geom *e4_geom(e4_fs *fs);

int e4_has_compat(e4_fs *fs, uint32_t mask);
int e4_has_incompat(e4_fs *fs, uint32_t mask);
int e4_has_ro_compat(e4_fs *fs, uint32_t mask);

/* 64-bit superblock counts (lo/hi halves joined; hi only with 64bit). */
uint64_t e4_sb_blocks_count(const struct ext4_super_block *sb);
uint64_t e4_sb_r_blocks_count(const struct ext4_super_block *sb);
uint64_t e4_sb_free_blocks_count(const struct ext4_super_block *sb);
/* 40-bit superblock times (section 2): lo | hi << 32. */
int64_t e4_sb_time(uint32_t lo, uint8_t hi);

/* Validate a raw superblock (no I/O): magic, log sizes, counts, geometry.
 * Returns 0 or the E4_ERR_* of the first problem. */
errcode_t e4_super_validate(const struct ext4_super_block *sb, uint64_t dev_bytes);
/* The superblock fields the kernel's mount (and e2fsck) refuse although
 * reading the filesystem does not depend on them; the last part of
 * e4_super_validate(), one rule and one code per field:
 * E4_ERR_SB_R_BLOCKS (reserved blocks above half the blocks: e2fsck's
 * bound), E4_ERR_SB_GROUPS_PER_FLEX (flex_bg with s_log_groups_per_flex
 * 32 or more: the kernel's mballoc), E4_ERR_SB_MIN_EXTRA_ISIZE /
 * E4_ERR_SB_WANT_EXTRA_ISIZE (extra_isize with a size beyond inode size
 * - 128, the kernel's rule, or neither 0 nor a multiple of 4 from 4 up,
 * e2fsck's), E4_ERR_SB_CSUM_TYPE (metadata_csum without s_checksum_type 1,
 * crc32c), E4_ERR_SB_ORPHAN_FILE_INUM (orphan_file with
 * s_orphan_file_inum outside 2 .. s_inodes_count).  No I/O. */
errcode_t e4_super_validate_mount(const struct ext4_super_block *sb);
/* 1 if err is one of e4_super_validate_mount()'s codes. */
int e4_err_is_mount_check(errcode_t err);
/* 1 if e4_super_fix_geometry() repairs the fault err names besides
 * E4_ERR_BAD_GEOMETRY: E4_ERR_SB_MIN_EXTRA_ISIZE and
 * E4_ERR_SB_WANT_EXTRA_ISIZE (set to what mke2fs writes for the inode
 * size). */
int e4_super_fixable(errcode_t err);

/* Feature bits set in sb that libe4 does not know, per kind. */
void e4_unsupported_features(const struct ext4_super_block *sb, uint32_t *compat,
			     uint32_t *incompat, uint32_t *ro_compat);

/* ---- feature table (feature.c) --------------------------------------- */
enum e4_feature_kind { E4_FEAT_COMPAT = 0, E4_FEAT_INCOMPAT = 1, E4_FEAT_RO_COMPAT = 2 };
struct e4_feature {
	const char *name;		/* e2fsprogs spelling */
	enum e4_feature_kind kind;
	uint32_t mask;
	const char *linux_version;	/* first Linux release that understands it */
	const char *e2fsprogs_version;	/* first e2fsprogs release */
	int read_support;		/* libe4 reads filesystems that use it */
};
/* The table of ext2/3/4 features, terminated by a NULL name. */
const struct e4_feature *e4_feature_table(void);
/* Name of a single feature bit: the table name, or "FEATURE_C12" style
 * (C/I/R + bit number) for unknown bits; buf must hold 16 bytes. */
const char *e4_feature_name(enum e4_feature_kind kind, uint32_t mask, char *buf);
/* Look a name up (also the FEATURE_Xn form).  E4_ERR_INVALID_ARGUMENT. */
errcode_t e4_feature_lookup(const char *name, enum e4_feature_kind *kind, uint32_t *mask);
/* jbd2 feature names as dumpe2fs prints them ("journal_64bit", ...). */
const char *e4_jfeature_name(enum e4_feature_kind kind, uint32_t mask, char *buf);

/* ---- superblock setters (super.c) ------------------------------------- */
/* Each writes one field of a raw superblock (on-disk byte order) in the
 * one place its halves are known.  Block counts: the high half only when
 * the superblock has 64bit (section 2), as the readers above read it;
 * set the features first.  No checks: the caller validates. */
void e4_sb_set_blocks_count(struct ext4_super_block *sb, uint64_t blocks);
void e4_sb_set_r_blocks_count(struct ext4_super_block *sb, uint64_t blocks);
void e4_sb_set_free_blocks_count(struct ext4_super_block *sb, uint64_t blocks);
void e4_sb_set_free_inodes_count(struct ext4_super_block *sb, uint32_t inodes);
/* 40-bit times (seconds since the epoch): the low 32 bits and the _hi
 * byte (bits 32-39), as e4_sb_time() reads them. */
enum e4_sb_time_field {
	E4_SB_MTIME, E4_SB_WTIME, E4_SB_LASTCHECK, E4_SB_MKFS_TIME,
	E4_SB_FIRST_ERROR_TIME, E4_SB_LAST_ERROR_TIME
};
void e4_sb_set_time(struct ext4_super_block *sb, enum e4_sb_time_field f, int64_t t);
/* A whole feature word, or the bits of mask turned on (on != 0) or off. */
void e4_sb_set_features(struct ext4_super_block *sb, enum e4_feature_kind kind, uint32_t mask);
void e4_sb_feature_change(struct ext4_super_block *sb, enum e4_feature_kind kind,
			  uint32_t mask, int on);
/* s_state = (s_state & ~clear) | set (EXT4_VALID_FS, EXT4_ERROR_FS...). */
void e4_sb_state_change(struct ext4_super_block *sb, uint16_t set, uint16_t clear);
/* s_kbytes_written += kbytes (the lifetime count of KiB written). */
void e4_sb_add_kbytes_written(struct ext4_super_block *sb, uint64_t kbytes);
/* The journal inode's backup in the superblock (section 1, s_jnl_blocks):
 * its i_block (15 words as stored), then i_size_high and i_size_lo, and
 * s_jnl_backup_type 1 (EXT3_JNL_BACKUP_BLOCKS), as e2fsprogs and the
 * kernel read it. */
void e4_sb_jnl_backup_set(struct ext4_super_block *sb, const struct ext4_inode *journal);

/* ---- groups and bitmaps (group.c, bitmap.c) -------------------------- */
struct e4_group {
	e4_blk_t block_bitmap, inode_bitmap, inode_table;
	uint32_t free_blocks;		/* clusters */
	uint32_t free_inodes;
	uint32_t used_dirs;
	uint32_t itable_unused;
	e4_blk_t exclude_bitmap;
	uint32_t block_bitmap_csum, inode_bitmap_csum;
	uint16_t flags;			/* EXT4_BG_* */
	uint16_t checksum;
};
/* Decode descriptor g.  E4_ERR_BAD_GROUP_NUM. */
errcode_t e4_group_get(e4_fs *fs, e4_group_t g, struct e4_group *out);
/* Raw descriptor (on-disk order, desc_size bytes), NULL if g is out of range. */
const void *e4_group_desc_raw(e4_fs *fs, e4_group_t g);
/* The descriptor's fields, each with its low half and, in descriptors of
 * 64 bytes or more, its high half (section 4.1; group.c knows where). */
enum e4_gd_field {
	E4_GDF_BLOCK_BITMAP, E4_GDF_INODE_BITMAP, E4_GDF_INODE_TABLE,
	E4_GDF_FREE_BLOCKS, E4_GDF_FREE_INODES, E4_GDF_USED_DIRS, E4_GDF_ITABLE_UNUSED,
	E4_GDF_EXCLUDE_BITMAP, E4_GDF_BLOCK_BITMAP_CSUM, E4_GDF_INODE_BITMAP_CSUM,
	E4_GDF_FLAGS, E4_GDF_CHECKSUM, E4_GDF_COUNT
};
/* Field f of a raw descriptor of desc_size bytes (on-disk order), halves
 * joined. */
uint64_t e4_gd_field_get(const void *desc, unsigned desc_size, enum e4_gd_field f);
/* Store v into field f of a raw descriptor (both halves where it has
 * them); the checksum is not touched.  Returns 1, or 0 when v does not
 * fit (the halves hold v truncated). */
int e4_gd_field_put(void *desc, unsigned desc_size, enum e4_gd_field f, uint64_t v);
/* 1 if bg_checksum is right (or the fs has no descriptor checksums). */
int e4_group_csum_ok(e4_fs *fs, e4_group_t g);
e4_blk_t e4_group_first_block(e4_fs *fs, e4_group_t g);
e4_blk_t e4_group_last_block(e4_fs *fs, e4_group_t g);
e4_group_t e4_group_of_block(e4_fs *fs, e4_blk_t blk);
e4_group_t e4_group_of_ino(e4_fs *fs, e4_ino_t ino);
/* 1 if group g holds a superblock backup (sparse_super, sparse_super2). */
int e4_group_has_super(e4_fs *fs, e4_group_t g);
/* Block number of descriptor block i (0-based) for the superblock copy at
 * group sb_group (meta_bg aware, section 4.5). */
e4_blk_t e4_group_desc_block(e4_fs *fs, e4_group_t sb_group, uint32_t i);
/* Superblock, GDT and reserved-GDT blocks in group g (counts in blocks). */
void e4_group_super_blocks(e4_fs *fs, e4_group_t g, e4_blk_t *sb_blk,
			   uint32_t *gdt_blocks, uint32_t *reserved_gdt);
/* The blocks group g's superblock copy, descriptor blocks and reserved GDT
 * blocks take (meta_bg: its descriptor block), with any block before the
 * superblock in the group (group 0 of a 1 KiB bigalloc filesystem owns
 * block 0): [*first, *first + *count), *count 0 when the group holds
 * none.  The rule the synthesised BLOCK_UNINIT bitmap follows. */
void e4_group_super_area(e4_fs *fs, e4_group_t g, e4_blk_t *first, uint32_t *count);

/* Where a group's block bitmap, inode bitmap and inode table may lie, as
 * the kernel checks them at mount (ext4_check_descriptors) and e2fsprogs
 * when it opens a filesystem: inside the filesystem, inside their own
 * group unless flex_bg, not on a superblock, descriptor or reserved GDT
 * block of any copy, not on another group's (or the same group's other)
 * metadata.  One fault: */
enum e4_gd_item { E4_GD_BLOCK_BITMAP = 0, E4_GD_INODE_BITMAP, E4_GD_INODE_TABLE };
struct e4_gd_fault {
	errcode_t err;		/* E4_ERR_GD_BLOCK_BITMAP, E4_ERR_GD_INODE_BITMAP,
				   E4_ERR_GD_INODE_TABLE (outside [lo, hi]),
				   E4_ERR_GD_OVERLAP_SUPER, E4_ERR_GD_OVERLAP */
	e4_group_t group;
	enum e4_gd_item item;
	e4_blk_t blk;		/* the item's first block */
	uint32_t len;		/* its blocks (1, or the inode table's) */
	e4_blk_t lo, hi;	/* range allowed: its group, or the filesystem
				   (flex_bg) */
	e4_group_t other_group;	/* E4_ERR_GD_OVERLAP: the other item's group */
	enum e4_gd_item other_item;
	/* e4_group_check_fields(): the field as stored and the largest value
	 * allowed (E4_ERR_GD_FLAGS: the known bits) */
	uint64_t value, limit;
};
/* Call cb for each fault of the in-memory descriptor table (group order
 * for range faults, then block order for overlaps; an item is reported
 * once); a non-zero return stops.  *nfaults (may be NULL) gets the count
 * reported.  Returns 0 if every location is sound, else the first fault's
 * code; E4_ERR_NO_MEMORY. */
typedef int (*e4_gd_fault_cb)(e4_fs *fs, const struct e4_gd_fault *f, void *priv);
errcode_t e4_group_check_locations(e4_fs *fs, e4_gd_fault_cb cb, void *priv,
				   unsigned *nfaults);
/* The other descriptor fields against the bounds of the format (doc
 * section 4.2), for every group of the in-memory table, as
 * e4_group_check_locations() reports (f->value, f->limit):
 * E4_ERR_GD_FLAGS (bits besides INODE_UNINIT, BLOCK_UNINIT,
 * ITABLE_ZEROED), E4_ERR_GD_FREE_BLOCKS_COUNT (more than the group's
 * clusters), E4_ERR_GD_FREE_INODES_COUNT (more than s_inodes_per_group),
 * E4_ERR_GD_USED_DIRS (more directories than inodes in use); with
 * gdt_csum or metadata_csum (the only ones that give these meaning):
 * E4_ERR_GD_ITABLE_UNUSED (more never-used inodes than free ones),
 * E4_ERR_GD_BLOCK_UNINIT_LAST (the last group's bitmap needs its end
 * padding), E4_ERR_GD_BLOCK_UNINIT_META (the group holds another group's
 * bitmap or inode table, which a synthesised bitmap does not mark).
 * Returns 0 or the first fault's code; E4_ERR_NO_MEMORY,
 * E4_ERR_BAD_GROUP_NUM (no table). */
errcode_t e4_group_check_fields(e4_fs *fs, e4_gd_fault_cb cb, void *priv, unsigned *nfaults);
/* The count fields of descriptor d of group g (as read, or about to be
 * set: a recount) against the bounds e4_group_check_fields() applies to
 * them, in its order: E4_ERR_GD_FREE_BLOCKS_COUNT,
 * E4_ERR_GD_FREE_INODES_COUNT or E4_ERR_GD_USED_DIRS, and with gdt_csum
 * or metadata_csum E4_ERR_GD_ITABLE_UNUSED.  The faults into f (group,
 * err, value, limit); returns their number.  No I/O. */
#define E4_GD_COUNT_FAULTS_MAX	3
unsigned e4_group_count_faults(e4_fs *fs, e4_group_t g, const struct e4_group *d,
			       struct e4_gd_fault f[E4_GD_COUNT_FAULTS_MAX]);
/* 1 if raw descriptors a and b (on-disk order, desc_size bytes, e.g. the
 * primary's and a backup copy's of one group) agree in every field the
 * kernel leaves alone while the filesystem is in use: all but the free
 * counts, the directories count, bg_flags, bg_itable_unused, the bitmap
 * checksums and bg_checksum.  No I/O. */
int e4_group_desc_same_static(e4_fs *fs, const void *a, const void *b);
/* Where backup superblocks may lie when no superblock can say (format
 * doc 1.3), for a device of dev_bytes bytes and block size bs, assuming
 * bpg blocks per group (0: 8 * bs, mke2fs's choice): the first block of
 * each group g >= 1 that holds a copy under sparse_super (1, 3, 5, 7, 9,
 * 25, 27, 49, ...), of the last group starting on the device (where
 * mke2fs puts sparse_super2's second copy) and of the groups extra[0],
 * extra[1] (a damaged superblock's s_backup_bgs; 0: none), whose
 * superblock lies wholly on the device; ascending, no duplicates, in
 * units of bs (with 1 KiB blocks group 1's is block 8193).  Returns how
 * many there are; the first max are stored in out. */
size_t e4_backup_sb_locations(unsigned bs, uint32_t bpg, uint64_t dev_bytes,
			      const uint32_t extra[2], e4_blk_t *out, size_t max);
/* 1 if fs was opened from a backup superblock that is where its own
 * geometry puts one: the first block of a group holding a copy, its
 * s_block_group_nr that group (up to 65535) or 0 (old writers).  0 for
 * the primary or a superblock found elsewhere (e.g. inside an image file
 * stored in the filesystem). */
int e4_super_is_backup_copy(e4_fs *fs);

/* Read group g's block bitmap (bitmap_bytes(cpg/8) significant; buffer of
 * block_size bytes).  BLOCK_UNINIT groups are synthesised (section 4.2).
 * E4_ERR_BLOCK_BITMAP_CSUM (buffer still filled). */
errcode_t e4_read_block_bitmap(e4_fs *fs, e4_group_t g, uint8_t *buf);
/* Inode bitmap of group g; INODE_UNINIT groups read as all free.
 * E4_ERR_INODE_BITMAP_CSUM (buffer still filled). */
errcode_t e4_read_inode_bitmap(e4_fs *fs, e4_group_t g, uint8_t *buf);
/* In-use tests through cached bitmaps: *in_use set to 0/1.  Block tests
 * are per cluster.  E4_ERR_BAD_BLOCK_NUM / E4_ERR_BAD_INODE_NUM. */
errcode_t e4_test_block(e4_fs *fs, e4_blk_t blk, int *in_use);
errcode_t e4_test_inode(e4_fs *fs, e4_ino_t ino, int *in_use);

/* ---- bitmaps in memory (bitmap.c over bmap.h) ------------------------ */
/* Whole-filesystem maps of the bmap type (bmap.h).  The block map counts
 * clusters: bit = block >> cluster_bits (the block number itself without
 * bigalloc), over [first_data_block >> cluster_bits, one past the last
 * group's last cluster); group g's clusters are bits from
 * e4_group_first_block(g) >> cluster_bits.  The inode map's bits are
 * inode numbers, [1, inodes_count + 1).  Padding (bits past a group's
 * last cluster or past inodes_per_group, format doc 5) is not in the maps.
 * Empty maps of that shape: E4_ERR_INVALID_ARGUMENT, E4_ERR_NO_MEMORY. */
errcode_t e4_bmap_new_blocks(e4_fs *fs, enum e4_bmap_kind kind, struct e4_bmap **ret);
errcode_t e4_bmap_new_inodes(e4_fs *fs, enum e4_bmap_kind kind, struct e4_bmap **ret);

#define E4_BMAP_RELAX_CSUM	0x0001	/* load: keep a bitmap whose checksum fails */
#define E4_BMAP_STORE_ALL	0x0002	/* store: rewrite every initialised group's bitmap */
#define E4_BMAP_STORE_NO_FLUSH	0x0004	/* store: write the bitmaps only; descriptors
					   and superblock changed in memory, for
					   the caller to write (e4mkfs: its primary
					   superblock last of all) */
/* Called by the loaders for each group whose bitmap fails its checksum
 * (err: E4_ERR_BLOCK_BITMAP_CSUM or E4_ERR_INODE_BITMAP_CSUM); non-zero
 * stops the load with err. */
typedef int (*e4_bmap_group_cb)(e4_fs *fs, e4_group_t g, errcode_t err, void *priv);
/* Load every group's block (inode) bitmap into a new map of backend kind,
 * as e4_read_block_bitmap() / e4_read_inode_bitmap() read it:
 * BLOCK_UNINIT and INODE_UNINIT groups synthesised as the kernel does
 * (format doc 4.2); a bitmap the allocation API holds cached (changes not
 * yet flushed included) taken from the cache.  A checksum mismatch calls
 * cb (may be NULL) and stops the load unless flags has
 * E4_BMAP_RELAX_CSUM, which keeps the bits as read (no check at all when
 * the filesystem was opened with E4_OPEN_IGNORE_CSUM).  Errors of the
 * readers (E4_ERR_*_BITMAP_CSUM, E4_ERR_GD_BAD_LOCATION, read errors),
 * E4_ERR_NO_MEMORY; *ret is set only on success. */
errcode_t e4_bmap_load_blocks(e4_fs *fs, enum e4_bmap_kind kind, unsigned flags,
			      e4_bmap_group_cb cb, void *priv, struct e4_bmap **ret);
errcode_t e4_bmap_load_inodes(e4_fs *fs, enum e4_bmap_kind kind, unsigned flags,
			      e4_bmap_group_cb cb, void *priv, struct e4_bmap **ret);
/* Make the on-disk block (inode) bitmaps say what bm says (a map shaped as
 * e4_bmap_new_blocks() / e4_bmap_new_inodes() make them).  Per group: the
 * bitmap block is written, with its padding set and its checksum in the
 * descriptor (section 5), when it differs from what the group reads as
 * now or fails its checksum (E4_BMAP_STORE_ALL: always, but a group whose
 * UNINIT state still holds); a BLOCK_UNINIT / INODE_UNINIT group keeps the
 * flag while bm agrees with the synthesised bitmap and loses it when not;
 * the descriptor's free count follows bm, and for inodes bg_itable_unused
 * is lowered below the highest inode in use (with gdt_csum or
 * metadata_csum; used dirs are left alone).  The superblock's free count
 * becomes the sum.  Bitmaps are written first, then the descriptor table
 * (every copy, e4_gdt_write()) if a descriptor changed, then the
 * superblock, then e4_flush(), with any pending allocation changes
 * (e4_alloc_flush()); with E4_BMAP_STORE_NO_FLUSH only the bitmaps.  With
 * E4_BMAP_STORE_ALL an initialised group's bitmap is not read first.
 * The allocation API's cached bitmaps are updated.
 * E4_ERR_READ_ONLY, E4_ERR_GDT_COPY, E4_ERR_INVALID_ARGUMENT (bm's range
 * is not the filesystem's), E4_ERR_GD_BAD_LOCATION, read and write
 * errors, E4_ERR_NO_MEMORY. */
errcode_t e4_bmap_store_blocks(e4_fs *fs, const struct e4_bmap *bm, unsigned flags);
errcode_t e4_bmap_store_inodes(e4_fs *fs, const struct e4_bmap *bm, unsigned flags);
/* Groups whose block (inode: inode != 0) bitmap block, as it reads now,
 * has a clear padding bit: one past the group's last cluster (past
 * inodes_per_group) up to the end of the block (format doc 5; mke2fs and
 * the kernel set them; the checksum covers none of them).  Groups whose
 * BLOCK_UNINIT / INODE_UNINIT flag holds are not read.  *nbad gets their
 * number (0: all padding set); e4_bmap_store_*() sets the padding of
 * any group it writes.  Read errors (a checksum mismatch is ignored),
 * E4_ERR_GD_BAD_LOCATION, E4_ERR_NO_MEMORY. */
errcode_t e4_bitmap_padding_check(e4_fs *fs, int inode, e4_group_t *nbad);

/* ---- inodes (inode.c; format doc section 6) -------------------------- */
#define E4_INODE_MAX_SIZE	4096	/* larger inodes: e4_open refuses */
/* An inode buffer big enough for any inode size. */
union e4_inode_buf {
	struct ext4_inode inode;
	uint8_t raw[E4_INODE_MAX_SIZE];
};

/* Read inode ino (inode_size bytes into buf).  The buffer is filled even
 * when the checksum fails: E4_ERR_INODE_CSUM (unless IGNORE_CSUM).
 * E4_ERR_BAD_INODE_NUM, E4_ERR_GD_BAD_LOCATION. */
errcode_t e4_inode_read(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *buf);
/* e4_inode_read() without the block cache: one read of inode_size bytes
 * (dirty cached blocks overlay it), for a walk that visits inodes once
 * and must not fill the cache with inode table blocks (e4fsck's pass 2).
 * Errors as e4_inode_read(), and of e4_io_read_nocache(). */
errcode_t e4_inode_read_nocache(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *buf);
/* Byte offset of inode ino on the device. */
errcode_t e4_inode_location(e4_fs *fs, e4_ino_t ino, uint64_t *offset);

uint64_t e4_inode_size(const struct ext4_inode *inode);	/* bytes */
/* i_blocks in 512-byte units (huge_file and HUGE_FILE_FL applied). */
uint64_t e4_inode_blocks(e4_fs *fs, const struct ext4_inode *inode);
/* Set i_blocks to sectors (512-byte units) by the kernel's rule (section
 * 6.4): up to 2^32 - 1 in i_blocks_lo; with huge_file up to 2^48 - 1 with
 * l_i_blocks_high, HUGE_FILE_FL cleared; beyond, HUGE_FILE_FL set and the
 * count in filesystem blocks (rounded down).  E4_ERR_FILE_TOO_BIG when it
 * does not fit (nothing changed). */
errcode_t e4_inode_blocks_set(e4_fs *fs, struct ext4_inode *inode, uint64_t sectors);
/* The root inode as the kernel checks it at mount (ext4_fill_super and
 * ext4_iget): readable with a valid checksum, no EA_INODE flag, linked, a
 * directory with a size and blocks.  0, or E4_ERR_ROOT_EA_INODE,
 * E4_ERR_ROOT_UNLINKED, E4_ERR_ROOT_NOT_DIR, or the read's error
 * (E4_ERR_INODE_CSUM, I/O errors). */
errcode_t e4_inode_check_root(e4_fs *fs);
uint32_t e4_inode_uid(const struct ext4_inode *inode);
uint32_t e4_inode_gid(const struct ext4_inode *inode);
/* Xattr block (high half only with 64bit). */
e4_blk_t e4_inode_file_acl(e4_fs *fs, const struct ext4_inode *inode);
/* 1 if field [off, off+len) lies inside 128 + i_extra_isize (and inode_size). */
int e4_inode_has_field(e4_fs *fs, const struct ext4_inode *inode, size_t off, size_t len);

enum e4_time_field { E4_ATIME, E4_CTIME, E4_MTIME, E4_CRTIME, E4_DTIME };
struct e4_time { int64_t sec; uint32_t nsec; };
/* Decode a timestamp (section 6.3); returns 0 if absent (crtime without
 * the extra field), 1 otherwise. */
int e4_inode_time(e4_fs *fs, const struct ext4_inode *inode, enum e4_time_field f,
		  struct e4_time *t);
/* Section 6.3 encode/decode of base + extra words. */
int64_t e4_time_decode(uint32_t base, uint32_t extra, int has_extra, uint32_t *nsec);
void e4_time_encode(int64_t sec, uint32_t nsec, uint32_t *base, uint32_t *extra);

static inline int e4_is_dir(const struct ext4_inode *i)
{ return (e4_le16(i->i_mode) & EXT4_S_IFMT) == EXT4_S_IFDIR; }
static inline int e4_is_reg(const struct ext4_inode *i)
{ return (e4_le16(i->i_mode) & EXT4_S_IFMT) == EXT4_S_IFREG; }
static inline int e4_is_symlink(const struct ext4_inode *i)
{ return (e4_le16(i->i_mode) & EXT4_S_IFMT) == EXT4_S_IFLNK; }

/* ---- block mapping (extent.c, blockmap.c, map.c; section 7) ---------- */
#define E4_MAP_UNWRITTEN	0x0001	/* extent is unwritten (reads as zeros) */
#define E4_MAP_META		0x0002	/* a tree/indirect block, not data */

struct e4_map_extent {
	uint64_t lblk;		/* first logical block (META: first covered) */
	e4_blk_t pblk;		/* first physical block */
	uint32_t len;		/* blocks */
	unsigned flags;		/* E4_MAP_* */
	int level;		/* META: depth in the tree (0 = child of the root);
				   indirect maps: 1 ind, 2 dind, 3 tind */
};

/* Map logical block lblk of the file.  On a hole *pblk = 0 and *len is the
 * number of logical blocks until the next mapped one (UINT32_MAX if none).
 * Otherwise *len = contiguous blocks mapped alike from lblk.  Inline-data
 * inodes, fast symlinks and device/fifo/socket inodes have no blocks: a
 * hole with *len UINT32_MAX.  inode may be NULL (read it).  Errors:
 * E4_ERR_EXTENT_HEADER, E4_ERR_EXTENT_CSUM (unless IGNORE_CSUM),
 * E4_ERR_EXTENT_TOO_DEEP, E4_ERR_EXTENT_ORDER, E4_ERR_EXTENT_ZERO_LEN,
 * E4_ERR_BAD_IND_BLOCK (indirect block out of range), E4_ERR_BAD_BLOCK_NUM
 * (data or tree block out of range), E4_ERR_FILE_TOO_BIG (lblk beyond what
 * the map can address: 2^32 for extents), E4_ERR_LOOP. */
errcode_t e4_bmap(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
		  uint64_t lblk, e4_blk_t *pblk, uint32_t *len, unsigned *flags);

#define E4_ITER_META		0x0001	/* also report tree/indirect blocks */
#define E4_ITER_AS_STORED	0x0002	/* go on past damage (below) */
#define E4_ITER_NOCSUM		0x0004	/* tree blocks failing only their checksum
					   are walked (a checker that judged them:
					   e4fsck's passes 1B-1D) */
/* Call cb for every mapped range in ascending logical order (and, with
 * E4_ITER_META, every mapping block before the ranges it covers).  A
 * nonzero return from cb stops the walk and is returned as is.  Indirect
 * maps report physically contiguous runs coalesced.  Ranges before a
 * corrupt node are reported, then its error (as e4_bmap) is returned.
 * With E4_ITER_AS_STORED (for "who uses this block" questions) the walk
 * goes on to the end and reports every block number as the map holds it:
 * data and mapping blocks outside the filesystem too (a mapping block that
 * is out of range, unreadable, or has a bad header or checksum is
 * reported, not walked), extents out of order or outside their parent's
 * range where they are (order is then not ascending), zero-length extents
 * not at all; the first damage met is returned at the end.  A loop or a
 * tree too deep still stops the walk. */
typedef int (*e4_map_cb)(e4_fs *fs, const struct e4_map_extent *ext, void *priv);
errcode_t e4_map_iterate(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			 unsigned flags, e4_map_cb cb, void *priv);
/* 1 if i_block is a block map or extent root at all (not a device number,
 * inline data or fast symlink target; map.c): what e4_map_iterate() walks. */
int e4_inode_has_map(e4_fs *fs, const struct ext4_inode *inode);

/* One entry of an extent tree node, as e4_extent_entries() reports it. */
struct e4_extent_entry {
	int level;		/* tree level of the node holding it (0 = i_block) */
	int max_level;		/* the tree's depth (root eh_depth) */
	unsigned index;		/* 0-based position in its node */
	unsigned entries;	/* eh_entries of its node */
	int is_leaf;		/* 1: a data extent; 0: an index entry */
	int unwritten;		/* leaf: uninitialised extent */
	uint64_t lblk;		/* first logical block */
	uint64_t len;		/* leaf: blocks; index: logical blocks up to the next
				   index entry, or for the last one up to the parent's
				   end (the root's end: i_size in blocks, rounded up),
				   modulo 2^32 as the reference prints it */
	e4_blk_t pblk;		/* leaf: first physical block; index: child node */
};
typedef int (*e4_extent_entry_cb)(e4_fs *fs, const struct e4_extent_entry *e, void *priv);
/* Report every entry of an extent tree in tree order (an index entry
 * before its child node's entries), as it is on disk: nodes are checked
 * for magic, eh_max, depth and (unless IGNORE_CSUM) checksum, but not for
 * entry order, so a dump shows damaged trees too.  A nonzero cb return
 * stops the walk and is returned.  Errors: E4_ERR_EXTENT_HEADER (also: no
 * EXTENTS_FL), E4_ERR_EXTENT_CSUM, E4_ERR_EXTENT_TOO_DEEP,
 * E4_ERR_BAD_BLOCK_NUM (child outside the fs), E4_ERR_LOOP, read errors
 * (section 7.2). */
errcode_t e4_extent_entries(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			    e4_extent_entry_cb cb, void *priv);
#include "extent.h"	/* changing extent trees: the cursor, ranges, bulk builder */

/* ---- file data (file.c, inline.c) ----------------------------------- */
/* Open inode ino for reading (inode may be NULL: read it; else a full
 * inode_size buffer is copied).  Errors of e4_inode_read() and, for
 * inline-data inodes, of e4_inline_data_get(). */
errcode_t e4_file_open(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
		       e4_file **ret);
void e4_file_close(e4_file *f);
uint64_t e4_file_size(e4_file *f);	/* bytes */
/* Read up to len bytes at offset (bytes); *got = bytes read (short only
 * at end of file).  Holes and unwritten extents read as zeros; inline data
 * and fast symlink targets are served from the inode (zeros past them up to
 * i_size).  Errors as e4_bmap() (then *got = bytes good before the error)
 * and of e4_io_read_blk_nocache(). */
errcode_t e4_file_pread(e4_file *f, uint64_t offset, void *buf, size_t len, size_t *got);
/* Where the bytes of a mapped file from offset (< size) are: *len bytes
 * (> 0, to the end of their run or of the file) stored from device byte
 * *dev_off on (read them with e4_io_read_nocache()), or, with *dev_off 0,
 * reading as zeros (a hole, an unwritten extent, past the map).  offset >=
 * size: *len 0.  E4_ERR_INVALID_ARGUMENT for inline data, fast symlinks
 * and inodes without a map (use e4_file_pread()); errors of e4_bmap(). */
errcode_t e4_file_locate(e4_file *f, uint64_t offset, uint64_t *dev_off, uint64_t *len);

/* Inline data (section 8.6): total size in bytes of i_block + system.data. */
errcode_t e4_inline_data_size(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			      size_t *size);
/* Copy inline data (first min(size, bufsize) bytes) into buf. */
errcode_t e4_inline_data_get(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			     void *buf, size_t bufsize, size_t *size);

/* ---- directories (dir.c, htree.c; section 8) ------------------------- */
/* rec_len on disk <-> bytes, for any block size (section 8.2). */
unsigned e4_rec_len_from_disk(uint16_t dlen, unsigned blocksize);
/* E4_ERR_BAD_REC_LEN if len cannot be encoded (len > blocksize, len > 2^18,
 * or not a multiple of 4). */
errcode_t e4_rec_len_to_disk(unsigned len, unsigned blocksize, uint16_t *dlen);

struct e4_dirent {
	e4_ino_t inode;
	unsigned rec_len;	/* bytes (decoded) */
	uint8_t name_len;
	uint8_t file_type;	/* EXT4_FT_* (0 without filetype) */
	char name[EXT4_NAME_LEN + 1];	/* NUL-terminated copy */
	uint64_t lblk;		/* logical directory block; UINT64_MAX inline */
	unsigned offset;	/* byte offset inside that block */
};
#define E4_DIR_EMPTY	0x0001	/* also report entries with inode 0 */
#define E4_DIR_NO_DOTS	0x0002	/* skip "." and ".." */
/* Walk every entry of directory dir (linear, htree leaves, inline).
 * Inline directories report synthetic "." and "..".  cb returns nonzero
 * to stop (that value is returned).  A damaged block (hole, bad checksum,
 * bad entry) is skipped, or cut at the bad entry, and the walk goes on:
 * the first such error is returned at the end.  E4_ERR_NOT_DIR,
 * E4_ERR_DIR_CORRUPT, E4_ERR_BAD_REC_LEN, E4_ERR_DIR_CSUM,
 * E4_ERR_DIR_NO_CSUM_TAIL, E4_ERR_HTREE_CSUM (csum ones unless IGNORE_CSUM). */
typedef int (*e4_dir_cb)(const struct e4_dirent *d, void *priv);
errcode_t e4_dir_iterate(e4_fs *fs, e4_ino_t dir, unsigned flags, e4_dir_cb cb, void *priv);
/* Find name in dir (htree hash lookup where indexed; a miss there is
 * confirmed by a linear scan).  E4_ERR_NOT_FOUND, or the walk's error
 * when the name was not found in a damaged directory. */
errcode_t e4_dir_lookup(e4_fs *fs, e4_ino_t dir, const char *name, size_t len,
			e4_ino_t *ino, uint8_t *file_type);
/* e4_dir_lookup() as the kernel's ext4_dx_find_entry looks: in an
 * indexed directory (dir_index, INDEX_FL, not casefold or encrypted) only
 * the leaves the index names for the name's hash are read -- the leaf of
 * the last dx entry at or below the hash, and the following leaves while
 * their hash carries on with the continuation bit -- and a miss there is
 * final (E4_ERR_NOT_FOUND), so the cost does not grow with the directory.
 * An index that cannot be used (damaged, unknown hash version) falls back
 * to the linear scan, as the kernel does; "." and "..", linear and inline
 * directories are searched as e4_dir_lookup() does.  What the writers
 * (e4_dir_insert) take as "the name exists" too.  Errors as
 * e4_dir_lookup(). */
errcode_t e4_dir_lookup_index(e4_fs *fs, e4_ino_t dir, const char *name, size_t len,
			      e4_ino_t *ino, uint8_t *file_type);
/* Resolve path (absolute from root, else relative to cwd); symlinks in
 * the middle are followed, the last one only when follow is set.
 * E4_ERR_NOT_FOUND, E4_ERR_NOT_DIR, E4_ERR_SYMLINK_LOOP. */
errcode_t e4_namei(e4_fs *fs, e4_ino_t root, e4_ino_t cwd, const char *path,
		   int follow, e4_ino_t *ino);

/* Read logical block lblk of directory ino (one fs block into buf, as
 * on disk, not checked); *pblk (may be NULL) gets its physical block.
 * Errors of e4_bmap(); a hole or unwritten block: E4_ERR_DIR_CORRUPT. */
errcode_t e4_dir_block_read(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			    uint64_t lblk, void *buf, e4_blk_t *pblk);
/* 1 when buf (one fs block) is the first block of directory ino as
 * mkdir makes it: '.' naming ino (rec_len 12), then '..' naming an inode
 * in range (*dotdot), and entries whose rec_lens run exactly to the
 * block's end, each holding its name, none naming an inode out of range
 * (a checksum tail is such an entry).  0 otherwise.  Checksums are not
 * read: the inode naming itself is the witness (section 8). */
int e4_dir_block_is_first(e4_fs *fs, e4_ino_t ino, const void *buf, e4_ino_t *dotdot);

/* htree hash of name (section 8.5).  version: DX_HASH_* 0..5 (3..5 are the
 * unsigned-char forms).  seed: 4 words in CPU order, NULL or all-zero for
 * the default.  E4_ERR_BAD_HASH_VERSION. */
errcode_t e4_dx_hash(int version, const char *name, size_t len, const uint32_t seed[4],
		     uint32_t *major, uint32_t *minor);
/* The hash version to use for directory dx_root's hash_version on this fs
 * (adds 3 for UNSIGNED_HASH in s_flags, section 8.5). */
int e4_dx_effective_version(e4_fs *fs, int root_hash_version);

/* htree blocks as they are stored, for tools that show an index (damaged
 * ones too) rather than use it (htree.c; section 8.5).  The root's
 * dx_root_info; count_off = 0x18 + info_length is where its
 * dx_countlimit sits.  E4_ERR_HTREE_CORRUPT (the fields are still filled)
 * when the countlimit would run past the block or indirect_levels is over
 * the kernel's limit (1, 2 with large_dir). */
struct e4_dx_root {
	uint32_t reserved_zero;
	uint8_t hash_version, info_length, indirect_levels, unused_flags;
	unsigned count_off;
};
errcode_t e4_dx_root_parse(e4_fs *fs, const void *block, struct e4_dx_root *out);
/* The dx_countlimit at count_off (0x18 + info_length in the root, 8 in a
 * node) as stored; max: the entries the rest of the block has room for;
 * has_csum: metadata_csum and the dx_tail fits after limit entries (csum:
 * its dt_checksum, CPU order). */
struct e4_dx_node {
	unsigned count_off, count, limit, max;
	int has_csum;
	uint32_t csum;
};
void e4_dx_node_parse(e4_fs *fs, const void *block, unsigned count_off, struct e4_dx_node *out);
#define E4_DX_BLOCK_MASK 0x0fffffffU	/* dx_entry.block: the logical block bits */
/* Entry i (< n->max) of node n: its hash (0 for entry 0, whose slot holds
 * the countlimit) and child logical block. */
void e4_dx_node_entry(const void *block, const struct e4_dx_node *n, unsigned i,
		      uint32_t *hash, uint32_t *lblk);
/* The directory entry at byte off of a leaf block of bs bytes, as stored
 * (name not NUL-terminated; points into block).  csum_tail: it is the
 * dirent checksum tail (tail_csum its checksum).  E4_ERR_BAD_REC_LEN when
 * its header or rec_len does not fit the block or its name (fields filled
 * as far as read). */
struct e4_dirent_raw {
	uint32_t inode;
	unsigned rec_len;	/* decoded */
	uint8_t name_len, file_type;
	const char *name;
	int csum_tail;
	uint32_t tail_csum;
};
errcode_t e4_dirent_raw_at(const void *block, unsigned bs, unsigned off,
			   struct e4_dirent_raw *out);

/* ---- symlinks (symlink.c) -------------------------------------------- */
/* Link target into buf (NUL-terminated when it fits); *len = target
 * length in bytes.  Fast, slow (block) and inline symlinks.
 * E4_ERR_NOT_SYMLINK, E4_ERR_SYMLINK_CORRUPT, E4_ERR_BUFFER_TOO_SMALL. */
errcode_t e4_readlink(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
		      char *buf, size_t bufsize, size_t *len);
/* 1 if inode is a fast symlink: i_block holds the target, not a map.  The
 * kernel's rule: a symlink without inline data whose i_blocks, less one
 * whole cluster for an xattr block, is 0, and whose target fits i_block
 * (size < 60).  The one rule every tool and module uses. */
int e4_inode_is_fast_symlink(e4_fs *fs, const struct ext4_inode *inode);

/* ---- extended attributes (xattr.c; section 9) ------------------------ */
struct e4_xattr {
	uint8_t name_index;		/* EXT4_XATTR_INDEX_* */
	const char *prefix;		/* "user.", "system.", ... ("" if unknown) */
	char name[256];			/* suffix after the prefix, NUL-terminated */
	uint8_t name_len;
	const void *value;		/* valid during the callback only */
	uint32_t value_len;		/* bytes */
	uint32_t value_inum;		/* ea_inode: inode holding the value */
	int in_inode;			/* 1 in-inode, 0 xattr block */
	uint32_t e_hash;		/* the entry's hash, CPU order */
	e4_ino_t owner;			/* the inode the attribute belongs to */
	uint32_t owner_generation;	/* its i_generation */
	uint32_t e_offs;		/* the entry's byte offset in its inode
					   (in_inode) or block */
};
typedef int (*e4_xattr_cb)(e4_fs *fs, const struct e4_xattr *x, void *priv);
/* Walk in-inode then block xattrs.  E4_ERR_XATTR_MAGIC,
 * E4_ERR_XATTR_CORRUPT, E4_ERR_XATTR_CSUM (unless IGNORE_CSUM). */
errcode_t e4_xattr_iterate(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			   e4_xattr_cb cb, void *priv);
/* Read xattr block blk into buf (one block) and check it as
 * e4_xattr_iterate() does; then report its entries to cb (xattr.c).
 * E4_ERR_BAD_BLOCK_NUM, E4_ERR_XATTR_MAGIC, E4_ERR_XATTR_CORRUPT,
 * E4_ERR_XATTR_CSUM (unless IGNORE_CSUM), read errors, or cb's value. */
errcode_t e4_xattr_block_iterate(e4_fs *fs, e4_blk_t blk, void *buf, e4_xattr_cb cb,
				 void *priv);
/* The same; with any_csum the block's checksum is not verified (e4fsck
 * judging a block whose checksum fails: its entries may explain it). */
errcode_t e4_xattr_block_iterate_csum(e4_fs *fs, e4_blk_t blk, void *buf, int any_csum,
				      e4_xattr_cb cb, void *priv);
/* The in-inode attributes of inode (ino's image) only, as
 * e4_xattr_iterate() reports them (no I/O): E4_ERR_XATTR_CORRUPT,
 * E4_ERR_BAD_EXTRA_ISIZE, or cb's value. */
errcode_t e4_xattr_ibody_iterate(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
				 e4_xattr_cb cb, void *priv);
/* The counterpart of e4_inode_file_acl() (inode.c; format doc 6.1): the
 * high half only with 64bit.  (i_blocks: e4_inode_blocks_set().) */
void e4_inode_file_acl_set(e4_fs *fs, struct ext4_inode *inode, e4_blk_t blk);
/* Value of xattr fullname ("user.foo") in a malloc'd buffer (caller frees).
 * E4_ERR_XATTR_NOT_FOUND. */
errcode_t e4_xattr_get(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
		       const char *fullname, void **value, size_t *len);
/* Prefix string for a name index ("" if unknown). */
const char *e4_xattr_prefix(uint8_t name_index);
/* The value of an attribute e4_xattr_iterate reported (call it from the
 * callback: x->value is valid there only) in a malloc'd buffer of
 * x->value_len bytes (caller frees).  The one reader of values kept in an
 * EA inode (ea_inode feature, x->value_inum), with the kernel's checks
 * (section 9): an inode other than the owner and at or past s_first_ino,
 * with links (i_links_count 0: E4_ERR_EA_INODE_UNLINKED, the kernel's
 * ESTALE), with EXT4_EA_INODE_FL, i_size equal to the value length, and the
 * value's crc32c (checksum seed) equal to the hash kept in its i_atime,
 * and for an entry of an xattr block, an entry hash over the name and that
 * hash (an old Lustre EA inode, pointing back to its owner through i_mtime
 * and i_generation, has no value hash).  E4_ERR_EA_INODE_BAD,
 * E4_ERR_EA_INODE_SIZE, E4_ERR_EA_INODE_HASH, E4_ERR_NO_MEMORY, errors of
 * e4_inode_read and e4_file_pread. */
errcode_t e4_xattr_value(e4_fs *fs, const struct e4_xattr *x, void **value);
/* What the kernel's rules (section 9.2) make the hashes of attribute x
 * (call from the callback), for e4fsck to compare with what is stored. */
struct e4_xattr_hashes {
	uint32_t entry;		/* e_hash over the name (unsigned bytes) and the
				   value, or, for a value in an EA inode, the
				   value's hash as one word (CPU order) */
	uint32_t entry_signed;	/* the same over signed name bytes (kernels
				   before 6.2 on x86); both are valid */
	int ea;			/* the value is in an EA inode, read: */
	uint32_t ea_value;	/* crc32c (checksum seed) of the value */
	uint32_t ea_stored;	/* the hash the EA inode keeps (i_atime) */
	uint32_t entry_kept, entry_kept_signed;	/* the entry hash over the name
				   and ea_stored (what it was when written) */
	int lustre;		/* an old Lustre EA inode (a back pointer in
				   i_mtime and i_generation): no hash kept,
				   nothing to compare */
};
/* Fill *h for x: no I/O for a value in place; for one in an EA inode the
 * inode and its value are read and checked as e4_xattr_value() checks
 * them, the hashes apart.  Errors as e4_xattr_value() but
 * E4_ERR_EA_INODE_HASH. */
errcode_t e4_xattr_hashes(e4_fs *fs, const struct e4_xattr *x, struct e4_xattr_hashes *h);
/* An EA inode's reference count (xattr_ea.c; section 9): high 32 bits in
 * i_ctime, low 32 in l_i_version, as the kernel keeps it. */
uint64_t e4_ea_inode_refcount(const struct ext4_inode *inode);
/* Set it (i_ctime_extra and i_version_hi where the inode has them). */
void e4_ea_inode_refcount_set(e4_fs *fs, struct ext4_inode *inode, uint64_t ref);

/* ---- journal (journal.c; sections 11, 14) ---------------------------- */
/* tid comparison modulo 2^32 (section 12.2). */
static inline int e4_tid_gt(uint32_t x, uint32_t y) { return (int32_t)(x - y) > 0; }
static inline int e4_tid_geq(uint32_t x, uint32_t y) { return (int32_t)(x - y) >= 0; }

/* Open the filesystem's journal: the internal journal inode, or with
 * ext_path the external journal device (matched by UUID).  Validates the
 * journal superblock (magic, version, block size, checksum).
 * E4_ERR_NO_JOURNAL, E4_ERR_EXTERNAL_JOURNAL (external journal and no
 * ext_path), E4_ERR_JOURNAL_INODE also for s_journal_inum 0 with neither
 * s_journal_uuid nor s_journal_dev set, E4_ERR_JOURNAL_MAGIC, E4_ERR_JOURNAL_VERSION,
 * E4_ERR_JOURNAL_CSUM, E4_ERR_JOURNAL_UNSUPP, E4_ERR_JOURNAL_INODE. */
errcode_t e4_journal_open(e4_fs *fs, const char *ext_path, e4_journal **ret);
/* Like e4_journal_open(), with E4_JOPEN_* flags.  E4_JOPEN_IGNORE_CSUM: a
 * journal superblock failing only its checksum is opened anyway (e4fsck
 * decides what to do: e4_journal_csum_ok() says 0). */
#define E4_JOPEN_IGNORE_CSUM	0x0001
/* E4_JOPEN_RAW (internal journals only): map the journal inode and read
 * block 0 without judging it as a journal superblock (s_maxlen = the
 * inode's size), for a caller that will replace it with
 * e4_journal_write_super().  E4_ERR_INVALID_ARGUMENT for an external one. */
#define E4_JOPEN_RAW		0x0002
errcode_t e4_journal_open2(e4_fs *fs, const char *ext_path, unsigned flags, e4_journal **ret);
/* The internal journal inode (s_journal_inum) as the kernel judges it at
 * mount, beyond what e4_journal_open2() needs to read the log: 0, or
 * E4_ERR_JOURNAL_INODE for an inode the kernel refuses (encrypted), or the
 * inode read's error.  0 without an internal journal. */
errcode_t e4_journal_inode_mountable(e4_fs *fs);
/* The internal journal inode's block map, as jbd2 needs it to write the
 * log and e2fsck judges it: every logical block below i_size / block size
 * maps to a block inside the filesystem (first data block .. blocks
 * count).  0 (also without an internal journal), or E4_ERR_JOURNAL_INODE
 * with *lblk the first logical block that does not (a hole, a block out
 * of range, damage in the map), or an I/O or memory error. */
errcode_t e4_journal_inode_holes(e4_fs *fs, uint64_t *lblk);
/* 1 if the journal superblock's checksum matched when opened (or it has
 * none, or it was rewritten by e4_journal_write_super()); for an external
 * journal also the device's ext4 superblock checksum (metadata_csum),
 * which e4_journal_write_super() then rewrites as well. */
int e4_journal_csum_ok(e4_journal *j);
void e4_journal_close(e4_journal *j);
/* The journal superblock as read (big-endian fields). */
const journal_superblock_t *e4_journal_super(e4_journal *j);
/* Journal length in blocks (s_maxlen) and block size in bytes. */
uint32_t e4_journal_blocks(e4_journal *j);
unsigned e4_journal_blocksize(e4_journal *j);
/* Read journal-relative block jblk (0 = superblock).  E4_ERR_BAD_BLOCK_NUM. */
errcode_t e4_journal_read_block(e4_journal *j, uint32_t jblk, void *buf);
/* Device block holding journal block jblk. */
errcode_t e4_journal_bmap(e4_journal *j, uint32_t jblk, e4_blk_t *pblk);
/* Write journal-relative block jblk (one journal block from buf) through
 * the journal device's block cache (write-back until e4_io_flush() on
 * e4_journal_io()).  E4_ERR_BAD_BLOCK_NUM, E4_ERR_JOURNAL_INODE (a hole),
 * E4_ERR_READ_ONLY, write errors. */
errcode_t e4_journal_write_block(e4_journal *j, uint32_t jblk, const void *buf);
/* The device holding the journal's blocks: the external journal device,
 * or the filesystem's own. */
e4_io *e4_journal_io(e4_journal *j);
/* 1 for an external journal device. */
int e4_journal_is_external(e4_journal *j);
/* Validate a journal superblock in memory (no I/O). */
errcode_t e4_journal_super_validate(const journal_superblock_t *jsb, unsigned fs_blocksize);

/* ---- journal recovery (recovery.c; format doc section 12) ------------ */
/* Revoke table: filesystem block -> latest revoking tid (section 12.4).
 * A hash table that grows with the records added (E4_ERR_NO_MEMORY past
 * 2^30 entries). */
typedef struct e4_revoke_table e4_revoke_table;
errcode_t e4_revoke_table_create(e4_revoke_table **ret);
void e4_revoke_table_free(e4_revoke_table *t);
/* Record that transaction tid revokes blk; keeps the latest tid (modulo
 * 2^32).  E4_ERR_NO_MEMORY. */
errcode_t e4_revoke_table_set(e4_revoke_table *t, uint64_t blk, uint32_t tid);
/* 1 if a copy of blk logged in transaction tid must not be replayed: a
 * revoke from tid or a later transaction exists. */
int e4_revoke_table_test(const e4_revoke_table *t, uint64_t blk, uint32_t tid);
/* 1 if blk has a revoke record; *tid (may be NULL) gets the latest tid. */
int e4_revoke_table_lookup(const e4_revoke_table *t, uint64_t blk, uint32_t *tid);
size_t e4_revoke_table_count(const e4_revoke_table *t);	/* distinct blocks */

/* What a log walk meets, reported in log order to an e4_jlog_cb. */
enum e4_jlog_kind {
	E4_JLOG_DESCRIPTOR = 1,	/* descriptor block; count = tags */
	E4_JLOG_TAG,		/* one tag; jblk = journal block of the logged copy */
	E4_JLOG_REVOKE,		/* revoke block; count = records */
	E4_JLOG_REVOKE_RECORD,	/* one revoke record; fs_block = revoked block */
	E4_JLOG_COMMIT,		/* commit block */
	E4_JLOG_FC,		/* a block of the fast-commit area (never replayed) */
};
enum e4_jcsum_verdict {
	E4_JCSUM_NONE = 0,	/* the journal has no such checksum */
	E4_JCSUM_OK,
	E4_JCSUM_BAD,
	E4_JCSUM_PARTIAL,	/* commit: matches over the header only (the kernel
				   accepts such an incompletely written block) */
	E4_JCSUM_UNCHECKED,	/* not verified by this walk */
	E4_JCSUM_UNREADABLE,	/* tag: the logged block could not be read */
};
enum e4_jreplay_action {
	E4_JACT_NONE = 0,	/* scan items */
	E4_JACT_WRITTEN,	/* the logged block was written to fs_block */
	E4_JACT_REVOKED,	/* skipped: revoked by this or a later transaction */
	E4_JACT_BAD_CSUM,	/* skipped: tag checksum mismatch (v2/v3) */
	E4_JACT_OUT_OF_RANGE,	/* skipped: fs_block is outside the filesystem */
	E4_JACT_READ_ERROR,	/* skipped: the logged block could not be read */
};
struct e4_jlog_item {
	enum e4_jlog_kind kind;
	uint32_t tid;			/* transaction (h_sequence) */
	uint32_t jblk;			/* journal block (REVOKE_RECORD: its revoke block) */
	enum e4_jcsum_verdict csum;	/* DESCRIPTOR/REVOKE: tail; TAG: tag; COMMIT */
	uint32_t csum_stored;		/* as stored (v2 tag: 16 bits; v1 commit: h_chksum[0]) */
	uint32_t csum_computed;		/* when computed (v1 commit: the running crc32_be) */
	unsigned index;			/* TAG, REVOKE_RECORD: 0-based position in its block */
	unsigned count;			/* DESCRIPTOR: tags; REVOKE: records */
	uint64_t fs_block;		/* TAG: target (32 or 64-bit); REVOKE_RECORD */
	uint16_t tag_flags;		/* TAG: JBD2_FLAG_ESCAPE/SAME_UUID/DELETED/LAST_TAG */
	uint32_t r_count;		/* REVOKE: bytes used, header included */
	int r_count_bad;		/* REVOKE: r_count overflows the block (fails recovery) */
	uint8_t chksum_type, chksum_size;	/* COMMIT (v1: 1 and 4) */
	uint64_t commit_sec;		/* COMMIT: h_commit_sec */
	uint32_t commit_nsec;		/* COMMIT */
	uint16_t fc_tag, fc_len;	/* FC: first tag and length in the block */
	enum e4_jreplay_action action;	/* TAG during e4_journal_replay() */
};
/* Return nonzero to stop the walk; that value is then returned. */
typedef int (*e4_jlog_cb)(const struct e4_jlog_item *it, void *priv);

/* How the scan ended (section 12.6). */
enum e4_jscan_outcome {
	E4_JSCAN_NONE = 0,	/* no scan ran (journal geometry unusable) */
	E4_JSCAN_EMPTY,		/* s_start == 0: nothing to replay */
	E4_JSCAN_END,		/* the log ended (no magic, other tid, unknown type) */
	E4_JSCAN_STALE,		/* a bad commit older than the previous one ended it */
	E4_JSCAN_ASYNC_END,	/* a bad commit ended it silently: ASYNC_COMMIT, or
				   the references' quirk for a bad commit of tid 0 */
	E4_JSCAN_FAILED_COMMIT,	/* transaction failed_tid corrupt: replay stops
				   before it, and the fs gets ERROR_FS */
	E4_JSCAN_CSUM_ERROR,	/* a descriptor/revoke checksum failed in a
				   transaction that is not stale: nothing replayed */
	E4_JSCAN_CORRUPT,	/* the log points outside the journal or loops */
	E4_JSCAN_READ_ERROR,	/* a journal block could not be read */
};
struct e4_jscan_result {
	enum e4_jscan_outcome outcome;
	uint32_t start_tid, start_block;	/* s_sequence, s_start */
	uint32_t log_first, log_last;	/* the circular log is [first, last) */
	uint32_t end_tid;		/* first tid not to replay (start_tid on error) */
	uint32_t transactions;		/* end_tid - start_tid */
	/* Where the walk stopped (E4_JSCAN_END): block, whether it had the
	 * magic, its type and tid. */
	uint32_t end_block;
	int end_magic;
	uint32_t end_blocktype, end_sequence;
	int failed_commit;		/* FAILED_COMMIT: failed_tid is set */
	uint32_t failed_tid;		/* FAILED_COMMIT, CSUM_ERROR: the transaction */
	int bad_commit;			/* a commit failed its checksum at bad_commit_tid */
	uint32_t bad_commit_tid;
	int stale;			/* the walk ended at a stale commit */
	uint32_t bad_block;		/* first descriptor/revoke block with a bad tail,
					   or the block that failed the walk */
	uint64_t last_commit_sec;	/* time of the last good commit */
	uint32_t descriptors, revoke_blocks, commits;	/* blocks walked */
	uint64_t tags;
	/* Fast-commit area (FAST_COMMIT journals): blocks holding records,
	 * the tid of their HEAD tag, and whether they belong to end_tid (so
	 * would be replayed by the kernel; libe4 does not). */
	uint32_t fc_blocks, fc_tid;
	int fc_pending;
};
#define E4_JSCAN_VERIFY_TAGS	0x0001	/* read logged blocks, check tag checksums */

/* Pass 1 (section 12.3): walk the log from s_start/s_sequence exactly as
 * recovery will, reporting every block to cb (may be NULL) and filling
 * *res.  Read-only.  Returns 0 when the scan decided an end (outcome
 * EMPTY, END, STALE, ASYNC_END, FAILED_COMMIT), else
 * E4_ERR_JOURNAL_CHECKSUM (CSUM_ERROR), E4_ERR_JOURNAL_LOG_CORRUPT
 * (CORRUPT), E4_ERR_JOURNAL_CORRUPT (unusable geometry), read errors, or
 * cb's nonzero value.  At most 2 * s_maxlen blocks are walked. */
errcode_t e4_journal_scan(e4_journal *j, unsigned flags, e4_jlog_cb cb, void *priv,
			  struct e4_jscan_result *res);

struct e4_jreplay_result {
	struct e4_jscan_result scan;
	uint64_t replayed;		/* blocks written */
	uint64_t revoked;		/* logged blocks skipped as revoked */
	uint64_t bad_csum;		/* skipped: tag checksum (v2/v3) */
	uint64_t out_of_range;		/* skipped: target outside the filesystem */
	uint64_t read_errors;		/* skipped: logged copy unreadable */
	uint64_t revoke_records;	/* records read in the revoke pass */
	size_t revoke_table_size;	/* distinct revoked blocks */
	int aborted;			/* the callback stopped the replay */
	errcode_t error;		/* what the call returned */
};
/* Passes 1-3 (sections 12.3-12.5): scan, build the revoke table, then
 * write every logged block of the transactions before end_tid that is not
 * revoked, in log order, to the filesystem (opened E4_OPEN_RW), unescaped;
 * then flush.  Only TAG items of the replay pass reach cb (action says
 * what happened).  Superblocks are not touched (see e4_journal_recover).
 * Returns 0, the scan errors of e4_journal_scan(), or (with the other
 * blocks still replayed) E4_ERR_JOURNAL_CHECKSUM (a tag checksum failed),
 * E4_ERR_JOURNAL_BLOCK_RANGE (a target outside the filesystem), a read
 * error; E4_ERR_JOURNAL_LOG_CORRUPT (revoke r_count overflow, passes
 * disagree), E4_ERR_JOURNAL_CHECKSUM (descriptor failing in the replay
 * pass), E4_ERR_READ_ONLY, write errors. */
errcode_t e4_journal_replay(e4_fs *fs, e4_journal *j, e4_jlog_cb cb, void *priv,
			    struct e4_jreplay_result *res);

struct e4_jrecover_result {
	struct e4_jreplay_result replay;
	uint32_t new_sequence;		/* s_sequence written to the journal */
	int sb_replayed;		/* the replay rewrote the fs superblock */
	int errno_carried;		/* journal s_errno became ERROR_FS */
	int counts_stale;		/* blocks were replayed: recompute free counts */
	int fc_not_replayed;		/* fast-commit records for end_tid were left */
	errcode_t error;		/* what the call returned */
};
/* Full recovery (section 12): e4_journal_replay(), then the journal
 * superblock gets s_start 0 and s_sequence end_tid + 1 (kept unchanged if
 * recovery failed) and, for a failed commit, s_errno -EINVAL; the fs
 * superblock is re-read from disk, its error area (0x194-0x1FF) and
 * ERROR_FS put back as before the replay, needs_recovery cleared,
 * VALID_FS cleared if recovery failed, s_kbytes_written advanced by the
 * bytes written (when non-zero), checksum set, written (s_wtime is left
 * alone); finally e4_journal_errno_to_fs().
 * An empty journal (s_start 0) only gets s_sequence + 1 and the flag
 * cleared, as e2fsck does.  Returns the recovery error of
 * e4_journal_replay() (the superblocks are still updated, like e2fsck),
 * or an error from writing them (a replayed primary superblock that
 * fails e4_super_validate() is not written: its error is returned).
 * Untouched on E4_ERR_NO_MEMORY, a callback stop, E4_ERR_READ_ONLY,
 * unusable journal geometry (E4_ERR_JOURNAL_CORRUPT) or a device failure
 * (e4_err_is_io(): a log block that cannot be read, a replayed block that
 * cannot be written); the log is then replayed again by the next run.
 * The caller must then close and reopen fs (cached descriptors and
 * bitmaps are stale), recompute summary counts and process orphans. */
errcode_t e4_journal_recover(e4_fs *fs, e4_journal *j, e4_jlog_cb cb, void *priv,
			     struct e4_jrecover_result *res);
/* Section 12.7: if the journal superblock has s_errno set, set ERROR_FS in
 * the fs superblock (written), then clear s_errno (journal superblock
 * written).  *carried (may be NULL) = 1 if it did.  E4_ERR_READ_ONLY. */
errcode_t e4_journal_errno_to_fs(e4_fs *fs, e4_journal *j, int *carried);
/* Replace the journal superblock with *jsb (v2/v3: checksum recomputed)
 * and write it to its block (journal.c; section 11.2).  E4_ERR_READ_ONLY. */
errcode_t e4_journal_write_super(e4_journal *j, const journal_superblock_t *jsb);
/* Write fs's in-memory superblock to the primary location (byte 1024),
 * checksum recomputed with metadata_csum; through the block cache, flush
 * with e4_flush() (super.c; section 2).  E4_ERR_READ_ONLY. */
errcode_t e4_super_write(e4_fs *fs);
/* e4_super_write() keeping s_checksum as it is in memory (a checksum set
 * on purpose, e4debugfs ssv checksum).  E4_ERR_READ_ONLY. */
errcode_t e4_super_write_as_is(e4_fs *fs);
/* While hold is 1, e4_super_write() and e4_super_write_as_is() leave the
 * primary superblock on the device as it is (the changes stay in memory;
 * the next write after e4_super_hold(fs, 0) carries them): e4mkfs -d keeps
 * the device without a valid superblock while it copies files, so a stop
 * midway leaves nothing that passes as a filesystem.  Backups are written
 * only by e4_super_write_backups(), which the caller runs after release. */
void e4_super_hold(e4_fs *fs, int hold);
/* The first write of a multi-step change (DESIGN.md "Writing safely"):
 * the primary superblock as it is on the device -- its own features, UUID
 * and checksum rules, not the in-memory copy's pending edits -- with
 * VALID_FS cleared, checksum recomputed when it has metadata_csum,
 * written and flushed (nothing written when it is already not clean); the
 * cache is flushed first.  A stop anywhere after
 * it leaves a filesystem the next check examines; the change writes the
 * in-memory superblock (its state unchanged) last.  The in-memory copy is
 * not touched (super.c).  E4_ERR_READ_ONLY, I/O errors. */
errcode_t e4_super_mark_unclean(e4_fs *fs);
/* e4_super_mark_unclean() with ordering points (e4_io_barrier()) before
 * and after the superblock's write instead of flushes: the device gets
 * the not-clean superblock after everything dirtied before and before
 * anything dirtied after, without waiting for it (ops.c's not-clean
 * window).  Errors as e4_super_mark_unclean(). */
errcode_t e4_super_mark_unclean_ordered(e4_fs *fs);

/* ---- layout (layout.c) ----------------------------------------------- */
/*
 * Pure filesystem geometry for e4mkfs: (device size, options, the built-in
 * copy of Debian e2fsprogs 1.47.0's /etc/mke2fs.conf) -> every number
 * mke2fs 1.47.0 would choose, down to where each group's bitmaps and inode
 * table go and each group's free counts after root, lost+found, the resize
 * inode, the journal and the orphan file are allocated.  No I/O.  Format
 * doc sections 1 (geometry, flex_bg, backups, reserved GDT), 3 (feature
 * sets), 4.2 (flags, lazy init), 6.8 (orphan file), 8.4 (lost+found), 14
 * (journal size and placement).  Block counts are in filesystem blocks
 * unless a name says bytes or clusters.
 */
#define E4_LAYOUT_AUTO		(-1)	/* "choose as mke2fs would" */
#define E4_LAYOUT_JOURNAL_FORCE	(-2)	/* journal_blocks: a journal of the default size */
/* Groups beyond this are not laid out (e4_layout_compute() gives
 * E4_ERR_TOO_MANY_GROUPS unless geometry_only is set). */
#define E4_LAYOUT_MAX_GROUPS	(1U << 21)

/*
 * A configuration in mke2fs.conf's format ("[section]" headers, "key =
 * value" relations, "name = { ... }" subsections, '#' or ';' comments),
 * parsed into memory.  e4mkfs reads one only when MKE2FS_CONFIG or
 * E4MKFS_CONFIG names it; otherwise the built-in copy of Debian e2fsprogs
 * 1.47.0's /etc/mke2fs.conf is used, so an image never depends on the host.
 */
struct e4_profile;
/* Parse len bytes of text.  E4_ERR_INVALID_ARGUMENT for a malformed line
 * (*bad_line, 1-based, set when bad_line is not NULL; unbalanced braces,
 * a relation outside a section, nesting deeper than 8), E4_ERR_NO_MEMORY,
 * E4_ERR_PROFILE_TOO_LARGE (more than 100,000 entries).
 * Free with e4_profile_free(). */
errcode_t e4_profile_parse(const char *text, size_t len, struct e4_profile **ret,
			   unsigned *bad_line);
/* The built-in profile (Debian's 1.47.0 file), parsed; free it likewise. */
errcode_t e4_profile_builtin(struct e4_profile **ret);
void e4_profile_free(struct e4_profile *p);
/* The first value of key in [section] (sub NULL) or in [section]'s
 * subsection sub; NULL when absent. */
const char *e4_profile_get(const struct e4_profile *p, const char *section, const char *sub,
			   const char *key);
/* The value mke2fs would take for key given a list of fs and usage type
 * names: that of the last type defining key in [fs_types], else
 * [defaults]'s, else NULL. */
const char *e4_profile_lookup(const struct e4_profile *p, const char *const *types,
			      unsigned ntypes, const char *key);
/* Boolean value as the profile library reads it (y/yes/true/t/on/1,
 * n/no/false/nil/off/0, any case): 1 or 0; -1 when v is none of them. */
int e4_profile_bool(const char *v);

struct e4_layout_opts {
	const struct e4_profile *profile; /* NULL: the built-in profile */
	const char **bad_key;	/* output, if not NULL: when e4_layout_compute()
				   rejects a value the profile gave, the key
				   ("inode_ratio", "features", ...); else NULL */
	unsigned sector_size;	/* logical sector size in bytes (0: unknown); a
				   profile block size below it is raised to it */
	uint64_t dev_bytes;	/* device size in bytes; used when blocks_count is 0:
				   whole blocks, rounded down to page_size as mke2fs does */
	uint64_t blocks_count;	/* explicit size (mke2fs's blocks-count argument): in
				   block_size units, or 1 KiB units if block_size is 0 */
	const char *fs_type;	/* -t: "ext2", "ext3", "ext4"; NULL: "ext2", or "ext3"
				   when journal_blocks asks for a journal */
	const char *usage_types; /* -T: comma-separated ("news,largefile"); NULL: by
				   size (floppy < 3 MiB <= small < 512 MiB <= default
				   < 4 TiB <= big < 16 TiB <= huge).  Unknown names are
				   ignored, as mke2fs does after a warning */
	unsigned block_size;	/* -b bytes; 0: profile (1024 small/floppy, else 4096) */
	unsigned cluster_size;	/* -C bytes (bigalloc only); 0: 16 blocks */
	unsigned inode_size;	/* -I bytes; 0: profile (256) */
	unsigned inode_ratio;	/* -i bytes per inode; 0: profile */
	uint64_t inodes_count;	/* -N; 0: from the ratio */
	uint32_t blocks_per_group; /* -g (clusters per group with bigalloc); 0: 8 * block size */
	double reserved_percent; /* -m; negative: 5 */
	uint32_t flex_bg_size;	/* -G groups (power of two); 0: 16 with flex_bg */
	uint32_t feat_set[3];	/* -O edits, indexed by enum e4_feature_kind, applied */
	uint32_t feat_clear[3];	/* after the profile's features (clear wins over set) */
	uint64_t resize_blocks;	/* -E resize=: maximum size in blocks; 0: none */
	int num_backup_sb;	/* -E num_backup_sb= (sparse_super2): 0, 1, 2; AUTO: 2 */
	int64_t journal_blocks;	/* AUTO: default size if has_journal; 0: no journal
				   (clears has_journal); JOURNAL_FORCE: -j; > 0: -J
				   size= converted to blocks (sets has_journal) */
	int64_t orphan_file_blocks; /* with orphan_file; AUTO or 0: default size;
				   at most e4_layout_max_orphan_blocks() */
	unsigned desc_size;	/* -E desc_size= bytes (64bit only); 0: 64 */
	int packed_meta_blocks;	/* -E packed_meta_blocks=1 */
	uint32_t stride;	/* -E stride= (blocks) */
	uint32_t stripe_width;	/* -E stripe_width= (blocks) */
	int itable_zeroed;	/* 1: the inode tables will be zeroed (or read back
				   zeros), so every group gets ITABLE_ZEROED */
	unsigned page_size;	/* bytes; 0: 4096 */
	int geometry_only;	/* 1: stop after the counts (no per-group layout,
				   no special files); any size up to the limits */
	int good_old_rev;	/* 1: revision 0 (mke2fs -r 0, -E revision=0): no
				   features (the profile's are not applied; one
				   set by feat_set or a journal asked for is
				   E4_ERR_CONFLICT_REV0), 128-byte inodes whatever
				   inode_size says, resize_blocks ignored */
};

/* Set *o to "everything as mke2fs would" (AUTO / 0 fields, -m 5). */
void e4_layout_opts_init(struct e4_layout_opts *o);
/* Apply an -O style edit list ("^has_journal,meta_bg", left to right) to
 * o->feat_set/feat_clear.  E4_ERR_INVALID_ARGUMENT for an unknown name. */
errcode_t e4_layout_opts_features(struct e4_layout_opts *o, const char *list);
/* 1 if name is a fs type or usage type of profile p (NULL: the built-in
 * one); "ext2" always is. */
int e4_layout_known_type(const struct e4_profile *p, const char *name);

struct e4_layout_group {
	e4_blk_t block_bitmap, inode_bitmap, inode_table;
	e4_blk_t first_block;		/* first block of the group */
	uint32_t blocks;		/* blocks in the group (the last may be short) */
	uint32_t sb_blocks;		/* superblock + GDT (+ reserved GDT) or meta_bg
					   descriptor blocks at the group's start */
	uint32_t free_blocks;		/* clusters, after everything mke2fs allocates */
	uint32_t free_inodes;
	uint32_t used_dirs;
	uint32_t itable_unused;
	uint16_t flags;			/* EXT4_BG_* */
	uint8_t has_super;		/* superblock copy (primary for group 0) */
	uint8_t has_meta_desc;		/* meta_bg descriptor block copy */
};

/* A run of blocks of one of the special files, in file order. */
struct e4_layout_extent {
	e4_blk_t start;
	uint32_t len;
};

struct e4_layout_file {
	e4_ino_t ino;			/* 0: the file is not made */
	uint64_t blocks;		/* data blocks */
	uint32_t nr_extents;		/* data runs (each <= 32768 blocks with extents) */
	struct e4_layout_extent *extents;
	uint32_t nr_meta;		/* extent leaf / indirect blocks */
	e4_blk_t *meta;			/* their locations (extent: the leaf; block map:
					   in the order mke2fs allocates them) */
};

#define E4_LAYOUT_MAX_TYPES	16
struct e4_layout {
	const char *fs_type;		/* profile names chosen ("ext4") */
	char types[E4_LAYOUT_MAX_TYPES][32]; /* fs type, then usage types or the
					   size class: for e4_profile_lookup() */
	unsigned ntypes;
	const char *size_type;		/* "floppy", "small", "default", "big", "huge" */
	unsigned block_size, log_block_size;	/* bytes, log2(bytes) - 10 */
	unsigned cluster_size, log_cluster_size;
	uint32_t cluster_bits;		/* log2(blocks per cluster) */
	uint64_t blocks_count;		/* after dropping a too small last group */
	uint64_t dev_blocks;		/* blocks asked for (before the drop) */
	uint64_t r_blocks_count;
	uint64_t free_blocks_count;	/* blocks (s_free_blocks_count as mke2fs writes it) */
	uint32_t inodes_count, free_inodes_count;
	uint32_t first_data_block;
	uint32_t blocks_per_group, clusters_per_group;
	uint32_t inodes_per_group, inode_blocks_per_group;
	unsigned inode_size, desc_size;	/* bytes */
	uint32_t first_ino;
	uint32_t group_count;
	uint32_t desc_blocks;		/* GDT blocks (ceil(groups / descs per block)) */
	uint32_t reserved_gdt_blocks;
	uint32_t first_meta_bg;
	unsigned log_groups_per_flex;
	uint32_t backup_bgs[2];		/* sparse_super2 */
	uint32_t feature_compat, feature_incompat, feature_ro_compat;
	uint32_t raid_stride, raid_stripe_width;
	uint32_t inode_ratio;		/* bytes per inode used */
	uint64_t overhead_clusters;	/* s_overhead_clusters as mke2fs writes it */
	e4_group_t journal_goal_group;	/* group whose first block was the goal */
	uint32_t journal_fc_blocks;	/* fast-commit part of the journal */
	int journal_dropped;		/* has_journal asked for, but the filesystem is
					   too small for one: made without it (and
					   without orphan_file), as mke2fs does */
	e4_blk_t root_block;		/* root directory's block (also with inline_data) */
	struct e4_layout_file lpf;	/* lost+found (inode first_ino): its blocks in
					   file order, not always in a row (flex_bg
					   leaves gaps it fills first); no meta blocks */
	e4_blk_t resize_dind_block;	/* resize inode's double-indirect block, or 0 */
	struct e4_layout_file journal;	/* inode 8: blocks include fast commit */
	struct e4_layout_file orphan;	/* orphan file (inode 12) */
	struct e4_layout_group *groups;	/* group_count entries; NULL with geometry_only */
	uint32_t rev_level;		/* EXT4_DYNAMIC_REV, or EXT4_GOOD_OLD_REV with
					   good_old_rev */
};

/* Compute the layout mke2fs 1.47.0 would make.  Errors (the reason for an
 * impossible geometry): E4_ERR_FS_TOO_SMALL (no room for one group's
 * metadata), E4_ERR_FS_TOO_BIG (more than 2^32 blocks without 64bit, or
 * beyond 2^32 groups), E4_ERR_TOO_MANY_INODES (inode count or -i/-N
 * leaves no room), E4_ERR_BAD_BLOCKS_PER_GROUP (-g outside 256 .. 8 *
 * block size), E4_ERR_BAD_BLOCK_SIZE, E4_ERR_BAD_CLUSTER_SIZE,
 * E4_ERR_BAD_INODE_SIZE, E4_ERR_BAD_DESC_SIZE, E4_ERR_RESERVED_GDT (-E
 * resize= asks for more than block size / 4 blocks), E4_ERR_JOURNAL_SIZE
 * (-J size outside 1024 .. 10240000 blocks or over half the free blocks),
 * one E4_ERR_CONFLICT_* per broken feature rule (NEED_EXTENT: 64bit,
 * bigalloc or verity without extent; META_BG_RESIZE; RESIZE_SPARSE;
 * CSUM_SEED; CLUSTER: -C without bigalloc; FLEX_BG: -G without flex_bg;
 * INLINE_ISIZE: inline_data with 128-byte inodes; REV0: a feature or a
 * journal with good_old_rev), E4_ERR_RESIZE_TOO_SMALL
 * (-E resize= not above the block count), E4_ERR_INVALID_ARGUMENT
 * (unknown fs_type, bad -m/-G/-N values), E4_ERR_UNSUPPORTED (quota or
 * project, a special file needing more than one extent leaf),
 * E4_ERR_TOO_MANY_GROUPS (more than E4_LAYOUT_MAX_GROUPS groups without
 * geometry_only), E4_ERR_CONFLICT_ORPHAN_JOURNAL, E4_ERR_NO_MEMORY.  A
 * journal asked for on a filesystem under 2048 blocks is dropped with
 * has_journal and orphan_file (journal_dropped set), as mke2fs does.  Free the result with e4_layout_free(). */
errcode_t e4_layout_compute(const struct e4_layout_opts *o, struct e4_layout **ret);
void e4_layout_free(struct e4_layout *l);
/* mke2fs's default journal size in blocks for a filesystem of blocks_count
 * blocks (section 14), 0 if it is too small for one (< 2048 blocks). */
uint32_t e4_layout_default_journal_blocks(uint64_t blocks_count);
/* Default orphan file size in blocks (section 6.8), rounded up to whole
 * clusters of 2^cluster_bits blocks. */
uint32_t e4_layout_default_orphan_blocks(uint64_t blocks_count, unsigned cluster_bits);
/* The largest orphan file the kernel mounts, in blocks of block_size
 * bytes: at most 8 MiB (Linux 0a6ce20c1564, "orphan file too big") and
 * at most 512 blocks (the rule that replaced it, 7c11c56eb32e); 128 with
 * 64 KiB blocks, 512 up to 16 KiB.  e4_layout_compute() caps the default
 * and an explicit orphan_file_blocks to it. */
uint32_t e4_layout_max_orphan_blocks(unsigned block_size);

/* ---- write (write.c) -------------------------------------------------- */
/*
 * Write primitives for tools that create or change metadata (e4mkfs now;
 * e4fsck, e4tune later).  Every function sets the checksums the structure
 * carries (format doc section 10) when the filesystem has them.  Writes
 * marked "uncached" go straight to the device with e4_io_pwrite(); the
 * others go through the block cache (write-back until e4_flush()).
 */

/* A handle for a filesystem being created: *sb (copied, on-disk order)
 * is taken as the superblock without reading the device; geometry and
 * checksum seed come from it, and the descriptor table is allocated
 * zeroed for the caller to fill with e4_group_set().  io must be open
 * read-write and belongs to the handle from then on (closed by
 * e4_close(), or here on error).  name is what e4_device_name() returns.
 * Errors: those of e4_super_validate(), E4_ERR_NO_MEMORY. */
errcode_t e4_fs_create(e4_io *io, const char *name, const struct ext4_super_block *sb,
		       e4_fs **ret);
/* Encode *in into descriptor g (lo/hi halves as desc_size allows; the
 * checksum field of *in is ignored) and set bg_checksum (section 4.3).
 * E4_ERR_BAD_GROUP_NUM; E4_ERR_BAD_BLOCK_NUM for a location above 2^32
 * with 32-byte descriptors. */
errcode_t e4_group_set(e4_fs *fs, e4_group_t g, const struct e4_group *in);
/* Set one field of descriptor g (both halves, e4_gd_field_put()) and then
 * bg_checksum (unless f is E4_GDF_CHECKSUM itself).  E4_ERR_BAD_GROUP_NUM;
 * E4_ERR_BAD_BLOCK_NUM (nothing changed) for a value the field cannot
 * hold (a location above 2^32 or a count above 2^16 in 32-byte
 * descriptors). */
errcode_t e4_group_set_field(e4_fs *fs, e4_group_t g, enum e4_gd_field f, uint64_t v);
/* Recompute bg_checksum of descriptor g in memory. */
void e4_group_csum_set(e4_fs *fs, e4_group_t g);
/* Write group g's block (inode) bitmap, one block from buf, to the
 * location its descriptor names; with metadata_csum the bitmap checksum
 * (over cpg/8 resp. ipg/8 bytes, section 5) goes into the descriptor and
 * bg_checksum is refreshed.  Uncached.  E4_ERR_BAD_GROUP_NUM,
 * E4_ERR_GD_BAD_LOCATION, write errors. */
errcode_t e4_block_bitmap_write(e4_fs *fs, e4_group_t g, const uint8_t *buf);
errcode_t e4_inode_bitmap_write(e4_fs *fs, e4_group_t g, const uint8_t *buf);
/* Set an inode's checksum fields in place (section 6.6; no-op without
 * metadata_csum). */
void e4_inode_csum_set(e4_fs *fs, e4_ino_t ino, struct ext4_inode *inode);
/* Write inode ino (inode_size bytes of buf) with its checksum set, by
 * read-modify-write of its inode table block through the cache.
 * E4_ERR_READ_ONLY, E4_ERR_BAD_INODE_NUM, E4_ERR_GD_BAD_LOCATION. */
errcode_t e4_inode_write(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *buf);
/* e4_inode_write() keeping the checksum fields as they are in buf (a
 * checksum set on purpose, e4debugfs sif checksum).  Errors as it. */
errcode_t e4_inode_write_as_is(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *buf);
/* Write the in-memory descriptor table to the primary GDT and every
 * backup: the classic GDT after each superblock copy (sparse_super,
 * sparse_super2 aware), and with meta_bg each descriptor block past
 * s_first_meta_bg to the first, second and last group of its meta group
 * (section 4.5).  Descriptor checksums must be current.  Uncached.
 * E4_ERR_READ_ONLY, E4_ERR_GD_BAD_LOCATION, write errors. */
errcode_t e4_gdt_write(e4_fs *fs);
/* Write the superblock backups: each group g > 0 holding a copy gets the
 * in-memory superblock with s_block_group_nr = min(g, 65535), VALID_FS
 * and needs_recovery cleared and its own checksum (section 1.3).  The
 * primary is not written (e4_super_write()).  Uncached. */
errcode_t e4_super_write_backups(e4_fs *fs);

/* A directory entry to place in a new directory block. */
struct e4_new_dirent {
	e4_ino_t inode;
	const char *name;
	uint8_t name_len;		/* 1..255 */
	uint8_t file_type;		/* EXT4_FT_*; stored only with filetype */
};
/* Build one leaf block of directory dir in buf (block_size bytes): the n
 * entries in order at their minimum record lengths, the last stretched
 * to the end of the block or to the checksum tail (metadata_csum), rec_len
 * encoded for any block size (section 8.2); n == 0 gives an empty block
 * (one unused entry covering it).  The tail's checksum uses generation 0.
 * E4_ERR_BUFFER_TOO_SMALL (entries do not fit), E4_ERR_BAD_REC_LEN. */
errcode_t e4_dir_block_build(e4_fs *fs, e4_ino_t dir, const struct e4_new_dirent *ents,
			     unsigned n, void *buf);
/* Set the 12-byte checksum tail of a leaf block of dir (generation 0;
 * no-op without metadata_csum; section 8.3). */
void e4_dirblock_csum_set(e4_fs *fs, e4_ino_t dir, void *block);

/* Put an extent tree mapping ext[0..n) (ascending, non-overlapping;
 * UNWRITTEN honoured) into inode's i_block and set EXTENTS_FL: up to 4
 * extents in the inode, else one leaf at leaf_blk built in leaf_buf
 * (block_size bytes, tail checksum with the inode's generation; the caller
 * writes it and counts it in i_blocks).  i_size and i_blocks are not
 * touched.  E4_ERR_INVALID_ARGUMENT (bad extents or no leaf block),
 * E4_ERR_UNSUPPORTED (more extents than one leaf holds). */
errcode_t e4_extent_tree_build(e4_fs *fs, e4_ino_t ino, struct ext4_inode *inode,
			       const struct e4_map_extent *ext, unsigned n,
			       e4_blk_t leaf_blk, void *leaf_buf);
/* Put an indirect block map (section 7.1) for a file whose logical blocks
 * 0.. are ext[0..n) (contiguous in logical order) into inode's i_block,
 * writing the indirect blocks (uncached).  meta[0..nr_meta) are the
 * indirect blocks in the order they are first needed (at logical block
 * 12 the IND; at 12 + apb the DIND then its first IND; ...), exactly as
 * many as the size needs.  i_size and i_blocks are not touched.
 * E4_ERR_INVALID_ARGUMENT, E4_ERR_FILE_TOO_BIG, write errors. */
errcode_t e4_blockmap_build(e4_fs *fs, struct ext4_inode *inode,
			    const struct e4_map_extent *ext, unsigned n,
			    const e4_blk_t *meta, uint32_t nr_meta);
/* The resize inode's map (section 1.4): each primary reserved GDT block
 * becomes an indirect block listing its copies in the backup groups, the
 * double-indirect block at dind_blk points to them; both written
 * (uncached).  Sets i_block and i_size and clears EXTENTS_FL (the map
 * is indirect on any filesystem); *blocks_used (may be NULL) gets the
 * blocks to count in i_blocks (dind + primaries + copies).  Needs
 * the descriptor table set.  E4_ERR_INVALID_ARGUMENT (meta_bg, bad
 * dind_blk), write errors. */
errcode_t e4_resize_inode_build(e4_fs *fs, e4_blk_t dind_blk, struct ext4_inode *inode,
				uint64_t *blocks_used);
/* *valid 1 when inode (the resize inode, as read) is what
 * e4_resize_inode_build() makes of the filesystem's reserved GDT blocks
 * (section 1.4): no block but the double-indirect one in i_block, no
 * extent or inline flag; the double-indirect block lists each primary
 * reserved GDT block at its place; each of those lists its copies in the
 * groups with a superblock backup; i_size and i_blocks (each map block a
 * whole cluster) those of the map.  Reads the blocks through the cache.
 * E4_ERR_INVALID_ARGUMENT (meta_bg), read errors, E4_ERR_NO_MEMORY. */
errcode_t e4_resize_inode_check(e4_fs *fs, const struct ext4_inode *inode, int *valid);
/* A new resize inode (inode 7, mode 0100600, times now, seconds) over
 * whatever inode 7 held: a double-indirect block allocated (the first
 * free block after the primary reserved GDT blocks), the map written by
 * e4_resize_inode_build(), i_blocks set, the inode written and the
 * allocation flushed.  Inode 7 must own no blocks the bitmaps still mark
 * for it (the caller cleared it).  E4_ERR_READ_ONLY,
 * E4_ERR_INVALID_ARGUMENT (no resize_inode feature, or meta_bg),
 * E4_ERR_NO_SPACE, read and write errors. */
errcode_t e4_resize_inode_create(e4_fs *fs, int64_t now);
/* e4_inode_init() (ops.h) with flags for a filesystem's creator:
 * E4_INODE_INIT_GENERATION: i_generation is generation as given, 0
 * included (mke2fs writes its inodes with generation 0; e4_inode_init()
 * picks a random one for 0).  E4_ERR_INVALID_ARGUMENT as
 * e4_inode_init(). */
#define E4_INODE_INIT_GENERATION	0x0001
errcode_t e4_inode_init_flags(e4_fs *fs, e4_ino_t ino, uint16_t mode, uint32_t uid, uint32_t gid,
			      const struct e4_time *now, uint32_t generation, unsigned flags,
			      union e4_inode_buf *ib);
/* A fresh jbd2 v2 journal superblock as mke2fs writes it (section 14):
 * s_first 1, s_sequence 1, s_start 0, one user, the fs UUID, no
 * checksum; fc_blocks > 0 adds FAST_COMMIT and s_num_fc_blks. */
void e4_jsb_init(journal_superblock_t *jsb, unsigned blocksize, uint32_t maxlen,
		 const uint8_t uuid[16], uint32_t fc_blocks);
/* An empty orphan file block for physical block pblk of orphan inode ino
 * (section 6.8): zero slots, magic, and with metadata_csum the checksum. */
void e4_orphan_block_init(e4_fs *fs, e4_ino_t ino, uint32_t generation, e4_blk_t pblk,
			  void *block);

/* ---- allocation (alloc.c, alloc_policy.c, alloc_inode.c; format doc
 * sections 4, 5; the policy and the caller's-maps hook: alloc.h) ------ */
/*
 * Changing block and inode usage on an open read-write filesystem (e4fsck,
 * e4tune).  Changes go to the cached bitmaps, the in-memory descriptors
 * (free counts, used dirs, itable_unused, UNINIT flags, checksums) and the
 * superblock's free counts; nothing reaches the device until
 * e4_alloc_flush().  Block numbers are filesystem blocks; with bigalloc the
 * bitmaps count clusters and a cluster changes state as a whole.
 */
/* Mark count blocks from blk in use (in_use 1) or free (0).  Each cluster
 * whose bit changes moves the group's and the superblock's free cluster
 * count by one; a BLOCK_UNINIT group becomes initialised.  *changed (may
 * be NULL) gets the number of clusters whose bit changed.
 * E4_ERR_READ_ONLY, E4_ERR_BAD_BLOCK_NUM (range outside the fs), bitmap
 * read errors (E4_ERR_BLOCK_BITMAP_CSUM unless IGNORE_CSUM). */
errcode_t e4_block_mark(e4_fs *fs, e4_blk_t blk, uint64_t count, int in_use,
			uint64_t *changed);
/* Mark inode ino (1-based) in use or free; is_dir moves bg_used_dirs_count
 * too.  Marking in use clears INODE_UNINIT and lowers bg_itable_unused
 * below ino when needed; the free slots of the table between the old end
 * of its used part and ino are zeroed first, at once (not without gdt_csum
 * or metadata_csum, nor with ITABLE_ZEROED: e2fsck reads every inode of
 * the used part).  *changed (may be NULL) = 1 if the bit changed.
 * E4_ERR_READ_ONLY, E4_ERR_BAD_INODE_NUM, bitmap read and write errors. */
errcode_t e4_inode_mark(e4_fs *fs, e4_ino_t ino, int in_use, int is_dir, int *changed);
/* First run of count free blocks (whole clusters, inside one group's
 * usable range or spanning groups) at or after goal, wrapping to the start
 * of the filesystem; nothing is marked.  Groups whose descriptor counts
 * no free cluster are skipped without reading their bitmap.
 * E4_ERR_NO_SPACE, bitmap errors. */
errcode_t e4_block_find_free(e4_fs *fs, e4_blk_t goal, uint64_t count, e4_blk_t *first);
/* First free inode at or after group goal_group's first inode (wrapping),
 * not below s_first_ino; nothing is marked.  Groups whose descriptor
 * counts no free inode are skipped unread.  E4_ERR_NO_SPACE, bitmap
 * errors. */
errcode_t e4_inode_find_free(e4_fs *fs, e4_group_t goal_group, e4_ino_t *ino);
/* Recount from the bitmaps: each group's free clusters and free inodes
 * (used dirs are kept; with gdt_csum or metadata_csum bg_itable_unused is
 * lowered to the free inodes after the last one the bitmap has in use,
 * as e4_inode_mark() keeps it), then the superblock's
 * s_free_blocks_count and s_free_inodes_count as the sums.  Descriptors
 * that change get their checksum set and are written at e4_alloc_flush().
 * *changed (may be NULL) = 1 if any count changed.  Bitmap read errors;
 * a recount that would leave a descriptor out of the format's bounds
 * (e4_group_count_faults(): more directories than the inodes its bitmap
 * has in use) changes nothing and returns that fault's code
 * (E4_ERR_GD_USED_DIRS), E4_ERR_NO_MEMORY. */
errcode_t e4_counts_recompute(e4_fs *fs, int *changed);
/* Group g's free clusters and free inodes as its bitmaps say, without
 * changing anything (the rule e4_counts_recompute() applies):
 * BLOCK_UNINIT and INODE_UNINIT groups count as synthesised (section
 * 4.2), bits past the end of the group are not counted.  Bitmaps already
 * cached are used, others read without caching them.  A bitmap is not
 * believed when it is plainly wrong: E4_ERR_BLOCK_BITMAP_BAD when it
 * marks free a block of the group's own bitmaps or inode table lying in
 * the group (the kernel's test at load) or of its superblock/descriptor
 * copy, E4_ERR_INODE_BITMAP_BAD when it marks a reserved inode free.
 * Errors of e4_read_block_bitmap() / e4_read_inode_bitmap()
 * (E4_ERR_*_BITMAP_CSUM unless IGNORE_CSUM, E4_ERR_GD_BAD_LOCATION, read
 * errors).  The counts are set only on success. */
errcode_t e4_group_count_free(e4_fs *fs, e4_group_t g, uint32_t *free_clusters,
			      uint32_t *free_inodes);
/* Write every changed bitmap (with its checksum in the descriptor), then
 * the descriptor table (primary and backups, e4_gdt_write()) if any
 * descriptor changed, then the primary superblock; e4_flush() after.
 * E4_ERR_READ_ONLY, write errors. */
errcode_t e4_alloc_flush(e4_fs *fs);
/* Like e4_alloc_flush(), but descriptors go to the primary table only
 * (classic GDT after the primary superblock; with meta_bg the copy in the
 * first group of each meta group): the backups keep their old counts, as
 * the kernel and e2fsck's preen path leave them.  gdt_changed: the caller
 * changed descriptors itself (e4_group_set, e4_group_csum_set).  Then the
 * primary superblock if anything changed, then e4_flush().
 * E4_ERR_READ_ONLY, E4_ERR_GD_BAD_LOCATION, write errors. */
errcode_t e4_flush_primary(e4_fs *fs, int gdt_changed);
/* e4_flush_primary() without the wait: the same writes (bitmaps, primary
 * descriptors, the superblock after an ordering point), then an ordering
 * point (e4_order_point()) instead of e4_flush(): everything dirtied so
 * far reaches the device before anything dirtied after, nothing is
 * fsync'd (dirty cached blocks stay in the cache).  What the operations
 * (ops.c) call between their steps.  Errors as e4_flush_primary(). */
errcode_t e4_order_point_primary(e4_fs *fs, int gdt_changed);

/* ---- journal creation (jcreate.c; format doc section 14) ------------- */
/* First block of the group mke2fs and tune2fs would start a new journal
 * in (section 14, "Placement"): the middle group, flex_bg aware, then the
 * neighbour with most free blocks. */
e4_blk_t e4_journal_default_goal(e4_fs *fs);
/* Add an internal journal of blocks + fc_blocks blocks (fc_blocks > 0:
 * fast_commit too) in inode 8 of a filesystem opened read-write without
 * one: blocks are allocated from goal (0: e4_journal_default_goal() with
 * extents, the first data block with a block map, as the reference does),
 * contiguous when possible, as extents (extent feature; up to one leaf
 * block) or a block map with the indirect blocks interleaved; the journal
 * is zeroed and gets a fresh superblock (e4_jsb_init()); the primary
 * superblock is marked not clean (e4_super_mark_unclean()), the bitmaps
 * and descriptors mark the blocks in use, inode 8 (mode 0100600, times =
 * now, seconds) is written, then the superblock with has_journal,
 * s_journal_inum 8, the s_jnl_blocks backup and its state as it was
 * (primary and backups), flushed.  Errors:
 * E4_ERR_READ_ONLY, E4_ERR_INVALID_ARGUMENT (already has a journal),
 * E4_ERR_JOURNAL_SIZE (blocks < 1024, total > 10240000 or more than half
 * the free blocks), E4_ERR_JOURNAL_INODE (inode 8 still owns blocks),
 * E4_ERR_UNSUPPORTED (bigalloc, or more extents than one leaf holds),
 * E4_ERR_NO_SPACE, E4_ERR_NO_MEMORY, bitmap and write errors. */
errcode_t e4_journal_create(e4_fs *fs, uint32_t blocks, uint32_t fc_blocks, e4_blk_t goal,
			    int64_t now);
/* Remove the internal journal: the superblock first (has_journal and
 * fast_commit cleared, s_journal_inum, s_jnl_blocks zeroed, VALID_FS
 * cleared; primary, then backups), then inode 8 zeroed, then its blocks
 * (data and mapping) freed and the bitmaps, descriptors and superblock
 * (its state back as it was) written; flushed.
 * The journal must be empty: needs_recovery set gives
 * E4_ERR_INVALID_ARGUMENT (replay first, e4_journal_recover()).  Errors:
 * E4_ERR_READ_ONLY, E4_ERR_NO_JOURNAL, E4_ERR_EXTERNAL_JOURNAL (an
 * external journal is not touched), E4_ERR_JOURNAL_INODE (s_journal_inum
 * not 8), mapping errors of e4_map_iterate() (nothing written then),
 * E4_ERR_BAD_BLOCK_NUM (a journal block outside the filesystem), write
 * errors. */
errcode_t e4_journal_remove(e4_fs *fs);

/* ---- orphans (orphan.c; format doc sections 6.7, 6.8) ---------------- */
/*
 * Orphan processing as the kernel does it at mount (and e2fsck before its
 * passes), on a filesystem opened read-write.  Block and inode usage goes
 * through the allocation API: call e4_alloc_flush() afterwards.
 */
/* Free the blocks of inode ino (inode image *ib, written back by the
 * caller) from logical block first_lblk on: extent trees (extents cut or
 * dropped, emptied tree blocks freed, an empty root left at depth 0) and
 * indirect maps (entries zeroed, emptied indirect blocks freed).  i_blocks
 * is lowered; i_size is not touched.  Inodes without a block map (inline
 * data, fast symlinks, devices) are left alone.  *freed (may be NULL) gets
 * the blocks freed.  A punch to the end through the mapping interface
 * (map_write.c: e4_map_punch(); extent tree nodes read are not held to
 * their checksum).  E4_ERR_READ_ONLY,
 * E4_ERR_EXTENT_HEADER, E4_ERR_EXTENT_ORDER, E4_ERR_BAD_BLOCK_NUM,
 * E4_ERR_BAD_IND_BLOCK, E4_ERR_CORRUPT (a block to free was already free:
 * the walk stops there), read/bitmap errors. */
errcode_t e4_inode_truncate_blocks(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib,
				   uint64_t first_lblk, uint64_t *freed);
/* Release one orphan: with i_links_count 0 free every block it maps (in
 * the bitmaps: the inode keeps its map and i_blocks, as e2fsck leaves a
 * released orphan), drop its xattr block reference (freeing the block at
 * the last one; i_file_acl cleared), mark the inode free and set i_dtime
 * = now (seconds); otherwise truncate the blocks past i_size, zero the
 * bytes of the last block past i_size (the kernel's truncate does) and
 * set i_dtime 0.  *ib is written back
 * (e4_inode_write).  Errors of e4_inode_truncate_blocks(),
 * E4_ERR_XATTR_MAGIC, e4_inode_mark() errors. */
errcode_t e4_orphan_release_inode(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib,
				  int64_t now);

struct e4_orphan_info {
	e4_ino_t ino;
	int truncate;		/* 1: links left, truncated; 0: freed */
	uint16_t mode;
	uint32_t uid, gid;
	uint64_t size;		/* bytes */
};
/* Called before each orphan is released; nonzero stops (returned as is). */
typedef int (*e4_orphan_cb)(e4_fs *fs, const struct e4_orphan_info *o, void *priv);
struct e4_orphan_result {
	unsigned freed, truncated;
	e4_ino_t bad_ino;	/* on E4_ERR_ORPHAN_LIST: the bad link; on another
				   error: the inode being released */
};
/* Release every orphan: first the orphan file's slots (each slot zeroed,
 * block checksum updated, ro_compat orphan_present cleared at the end),
 * then the s_last_orphan chain (s_last_orphan set to 0 first; each inode's
 * i_dtime links to the next).  The superblock is only changed in memory.
 * E4_ERR_READ_ONLY, E4_ERR_ORPHAN_LIST (a link outside [s_first_ino,
 * s_inodes_count] or a cycle, reported before the inode holding it is
 * touched), E4_ERR_ORPHAN_FILE (bad orphan block magic or checksum),
 * errors of e4_orphan_release_inode() and e4_inode_read(). */
errcode_t e4_orphans_process(e4_fs *fs, int64_t now, e4_orphan_cb cb, void *priv,
			     struct e4_orphan_result *res);
/* Writes everything changed so far, in the caller's way (caches, bitmaps,
 * descriptors, then the superblock), flushed. */
typedef errcode_t (*e4_orphan_flush)(e4_fs *fs);
/* e4_orphans_process() writing the s_last_orphan chain in an order whose
 * every stop leaves at most leaks on a filesystem marked not clean
 * (DESIGN.md "Writing safely"; the kernel does the same steps in one
 * transaction): VALID_FS cleared first (flush), then per orphan from the
 * head -- a deleted one is taken off the chain (s_last_orphan = its link,
 * flush) before it is freed (flush), a truncated one is truncated with
 * i_dtime 0 (the chain ends there until the head moves on; later orphans
 * are then leaks) and then taken off (one flush) -- and the state as it
 * was last (flush).  Stopped in between, the chain never names a freed
 * inode.  The orphan file is processed as in e4_orphans_process() and
 * written by the first flush of the chain or by the caller.  On an error
 * the in-memory state stays not clean.  Errors as e4_orphans_process(),
 * and flush's. */
errcode_t e4_orphans_release(e4_fs *fs, int64_t now, e4_orphan_cb cb, void *priv,
			     struct e4_orphan_result *res, e4_orphan_flush flush);

/* ---- checksum rewriting (csumrw.c; format doc section 10) ----------- */
/* Switch metadata_csum on (on = 1: uninit_bg dropped, s_checksum_type
 * crc32c) or off (metadata_csum_seed dropped too; uninit_bg set when
 * uninit_bg is nonzero, else cleared: the caller must have no UNINIT
 * flags left then), then rewrite every checksum (e4_csum_rewrite_all).
 * Directory leaf blocks get the 12-byte tail from their last entry's
 * slack and dx blocks room for their tail (section 8.3, 8.5); a block
 * without room gives E4_ERR_BUFFER_TOO_SMALL (the directory needs a
 * rebuild, e2fsck -D).  Meant for a freshly checked filesystem.
 * E4_ERR_UNSUPPORTED (orphan_file, ea_inode or inline_data), errors of
 * the walk (*bad_ino, may be NULL, gets the inode being rewritten).  The
 * superblock is written last; the caller must reopen the filesystem. */
errcode_t e4_metadata_csum_set(e4_fs *fs, int on, int uninit_bg, e4_ino_t *bad_ino);
/* Rewrite every checksum under the in-memory superblock's features, UUID
 * and seed (after a UUID change without metadata_csum_seed): with
 * metadata_csum each in-use inode with its extent, directory and xattr
 * blocks, then the bitmaps; the descriptors (crc16 or crc32c); the
 * superblock (primary and backups) last; flushed.  Errors as
 * e4_metadata_csum_set(). */
errcode_t e4_csum_rewrite_all(e4_fs *fs, e4_ino_t *bad_ino);
/* e4_csum_rewrite_all() going on past damage: a structure that cannot be
 * read or fixed is left as it is and the walk goes on (maps walked as
 * stored, E4_ITER_AS_STORED), so every other checksum, the descriptors'
 * and the superblock's included, is still rewritten.  For the fuzzing harness (tests/fuzz),
 * whose mutated images must pass verification to reach the code behind
 * it.  Returns the first error met (after finishing), E4_ERR_READ_ONLY. */
errcode_t e4_csum_rewrite_best_effort(e4_fs *fs);

/* ---- probe (probe.c) -------------------------------------------------- */
/*
 * What is on a target before formatting it, through libblkid and sysfs:
 * size, existing signatures, I/O topology, whether it is in use.  Also
 * the destructive helpers e4mkfs needs before writing: wiping signatures,
 * discarding and zeroing ranges.  Nothing here prints.
 */
struct e4_probe {
	int is_blockdev, is_regular;
	uint64_t size;			/* bytes (block device or file size) */
	unsigned logical_sector, physical_sector;	/* bytes; 0 if unknown */
	unsigned long minimum_io, optimal_io;	/* bytes; 0 if unknown */
	unsigned long alignment_offset;	/* bytes */
	int discard_zeroes;		/* discard is known to leave zeros (files) */
	/* A regular file without a single allocated byte (from the probe's
	 * offset on; SEEK_DATA finds none): it reads as zeros there, so it
	 * holds no signature and there is nothing to discard, wipe or zero. */
	int all_holes;
	/* First signature found (empty type if none): "xfs", "ext4",
	 * "linux_raid_member", "gpt", "dos", ... and how blkid classes it
	 * ("filesystem", "raid", "partition table", ...). */
	char type[32];
	char usage[32];
	char label[128];
	char uuid[64];
	/* In use: mounted, a mounted loop device's backing file, or a block
	 * device another opener holds exclusively.  busy_what says how. */
	int busy;
	char busy_what[256];
	/* When busy because mounted: where (mountinfo's mount point, its
	 * escapes decoded), the mounted block device (major:minor) and, for a
	 * regular file, the loop device it is mounted through ("/dev/loop0").
	 * Empty / 0 when not mounted (or held exclusively by another user). */
	char mount_dir[1024];
	uint64_t mount_dev;
	char loop_dev[64];
};
/* ---- default mount options (mntopt.c; format doc 3.1) ----------------- */
/* The s_default_mount_opts mask of a name as tune2fs -o and mke2fs.conf's
 * default_mntopts spell it ("acl", "journal_data_writeback", also
 * "MNTOPT_<bit>"); 0 when unknown.  A journal mode is a 2-bit value
 * inside EXT4_DEFM_JMODE. */
uint32_t e4_mntopt_mask(const char *name);
/* Apply one edit to *opts (host order): "name" sets it (a journal mode
 * replaces the previous mode), "^name" clears it.  Unknown name:
 * E4_ERR_INVALID_ARGUMENT, *opts unchanged. */
errcode_t e4_mntopt_edit(uint32_t *opts, const char *edit);

/* Look at path (which must exist): stat, size, topology, signatures,
 * use.  Opens read-only.  Errors: errno values (EISDIR for a directory,
 * ENOTBLK for anything else that is neither a block device nor a file). */
errcode_t e4_probe_device(const char *path, struct e4_probe *p);
/* The same for what starts offset bytes into path (mke2fs -E offset=):
 * signatures and all_holes concern only the bytes from there to the end;
 * size, busy and topology stay those of the whole target. */
errcode_t e4_probe_device_at(const char *path, uint64_t offset, struct e4_probe *p);
/* One human-readable line for what e4_probe_device() found, e.g.
 * "an xfs filesystem labelled data" (empty string if nothing). */
void e4_probe_describe(const struct e4_probe *p, char *buf, size_t len);
/* Erase every signature libblkid finds on the open descriptor fd
 * (filesystems, RAID members, partition tables, at the start and the
 * end).  Errors: errno values, E4_ERR_NO_MEMORY. */
errcode_t e4_probe_wipe(int fd);
/* Discard bytes [off, off+len) of fd: hole punching on a regular file,
 * BLKDISCARD on a block device.  EOPNOTSUPP if the target cannot. */
errcode_t e4_dev_discard(int fd, int is_blockdev, uint64_t off, uint64_t len);
/* Make bytes [off, off+len) of fd read as zeros: zero-range fallocate on
 * files, BLKZEROOUT on devices, falling back to writing zeros. */
errcode_t e4_dev_zero(int fd, int is_blockdev, uint64_t off, uint64_t len);

/* ---- mount option combinations (mntopt.c) ------------------------------ */
/* Would Linux refuse to mount a filesystem whose s_default_mount_opts is
 * defm (host order), whose s_mount_opts string is sopts (NUL-terminated)
 * and which has a journal or not?  The refusals that depend on these alone
 * (Linux 6.18, measured): journal_async_commit in data=ordered mode;
 * data=journal with delalloc or dax (with or without a journal); without a
 * journal, journal_async_commit, journal_checksum, commit= (other than 0
 * or 5, read in C notation as the kernel reads it) and data_err=abort.  The string's words apply in order (a later data=
 * replaces an earlier one) over the default data mode (ordered unless defm
 * says journal or writeback).  The kernel ignores a string holding a word
 * it cannot parse; this check does not, so it may refuse more.  Returns 0,
 * or E4_ERR_MNTOPT_CONFLICT with *why naming the clash. */
errcode_t e4_mntopt_conflict(uint32_t defm, const char *sopts, int has_journal,
			     const char **why);

/* ---- revision (super.c) ------------------------------------------------ */
/* Make a revision 0 superblock revision 1 (dynamic), in memory: s_rev_level
 * 1, s_first_ino 11 and s_inode_size 128, the values revision 0 implies,
 * so the geometry does not change.  Features may only be set on revision 1
 * (the kernel warns, and upgrades at its next write).  Returns 1 when sb
 * was revision 0, else 0 (nothing changed).  Byte order: sb little-endian. */
int e4_super_update_dynamic_rev(struct ext4_super_block *sb);

/* ---- a mounted filesystem, through the kernel (online.c) ---------------- */
/* The kernel's struct ext4_tune_sb_params (Linux 6.18 user ABI, 232
 * bytes; host byte order).  set_flags says which fields to write
 * (E4_TUNE_FL_*); the kernel always copies mount_opts, so a caller starts
 * from e4_online_get()'s answer.  GET fills every field, set_flags with the
 * operations the kernel supports and the set_/clear_feature_*_mask with the
 * features it can set or clear online. */
struct e4_tune_sb_params {
	uint32_t set_flags;
	uint32_t checkinterval;
	uint16_t errors_behavior;
	uint16_t mnt_count;
	uint16_t max_mnt_count;
	uint16_t raid_stride;
	uint64_t last_check_time;
	uint64_t reserved_blocks;
	uint64_t blocks_count;
	uint32_t default_mnt_opts;
	uint32_t reserved_uid;
	uint32_t reserved_gid;
	uint32_t raid_stripe_width;
	uint16_t encoding;
	uint16_t encoding_flags;
	uint8_t def_hash_alg;
	uint8_t pad_1;
	uint16_t pad_2;
	uint32_t feature_compat;
	uint32_t feature_incompat;
	uint32_t feature_ro_compat;
	uint32_t set_feature_compat_mask;
	uint32_t set_feature_incompat_mask;
	uint32_t set_feature_ro_compat_mask;
	uint32_t clear_feature_compat_mask;
	uint32_t clear_feature_incompat_mask;
	uint32_t clear_feature_ro_compat_mask;
	uint8_t mount_opts[64];
	uint8_t pad[68];
};
#define E4_TUNE_FL_ERRORS_BEHAVIOR	0x00000001
#define E4_TUNE_FL_MNT_COUNT		0x00000002
#define E4_TUNE_FL_MAX_MNT_COUNT	0x00000004
#define E4_TUNE_FL_CHECKINTRVAL		0x00000008
#define E4_TUNE_FL_LAST_CHECK_TIME	0x00000010	/* s_lastcheck, low 32 bits */
#define E4_TUNE_FL_RESERVED_BLOCKS	0x00000020	/* at most half the blocks */
#define E4_TUNE_FL_RESERVED_UID		0x00000040
#define E4_TUNE_FL_RESERVED_GID		0x00000080
#define E4_TUNE_FL_DEFAULT_MNT_OPTS	0x00000100
#define E4_TUNE_FL_DEF_HASH_ALG		0x00000200	/* not siphash */
#define E4_TUNE_FL_RAID_STRIDE		0x00000400
#define E4_TUNE_FL_RAID_STRIPE_WIDTH	0x00000800
#define E4_TUNE_FL_MOUNT_OPTS		0x00001000
#define E4_TUNE_FL_FEATURES		0x00002000
#define E4_TUNE_FL_EDIT_FEATURES	0x00004000	/* set_/clear_feature_*_mask */
#define E4_TUNE_FL_FORCE_FSCK		0x00008000
#define E4_TUNE_FL_ENCODING		0x00010000
#define E4_TUNE_FL_ENCODING_FLAGS	0x00020000

/* Open mount_dir (a mount point of the filesystem) for the calls below,
 * after checking that it is on block device dev (st_dev, major:minor):
 * E4_ERR_MOUNT_MISMATCH when something else is mounted over it or it is
 * another filesystem.  *fd is closed by the caller.  Errors: errno values. */
errcode_t e4_online_open(const char *mount_dir, uint64_t dev, int *fd);
/* EXT4_IOC_GET_TUNE_SB_PARAM / EXT4_IOC_SET_TUNE_SB_PARAM.  ENOTTY: the
 * kernel (before 6.18) or the driver (ext2) has no such call; EOPNOTSUPP:
 * an operation or feature it does not change online; EINVAL: a value it
 * refuses; EROFS: mounted read-only.  set: E4_ERR_INVALID_ARGUMENT when
 * mount_opts is not NUL-terminated. */
errcode_t e4_online_get(int fd, struct e4_tune_sb_params *p);
errcode_t e4_online_set(int fd, const struct e4_tune_sb_params *p);
/* FS_IOC_SETFSLABEL: at most 16 bytes (E4_ERR_INVALID_ARGUMENT). */
errcode_t e4_online_set_label(int fd, const char *label);
/* EXT4_IOC_SETFSUUID: EOPNOTSUPP when the filesystem has group
 * descriptor or metadata checksums without metadata_csum_seed, or
 * stable_inodes. */
errcode_t e4_online_set_uuid(int fd, const uint8_t uuid[16]);
/* syncfs, then EXT4_IOC_CHECKPOINT: the superblock the kernel holds is on
 * the device (through a loop device: in the image file). */
errcode_t e4_online_sync(int fd);

#include "xattr_write.h"
#include "dir_write.h"	/* directory writing (dir_write.c, htree_write.c, dir_build.c, dir_inline.c) */
#include "alloc.h"	/* allocation policy (alloc_policy.c) */
#include "ops.h"	/* new inodes, the inode scan, create/mkdir/link/unlink/rename (ops*.c) */
#include "fields.h"	/* named superblock, descriptor and inode fields (fields.c) */
#include "map_write.h"	/* changing block maps of either kind (map_write.c, blockmap_write.c) */
#include "file_write.h"	/* writing files: write, truncate, punch, fallocate (file_write*.c) */
#include "acl.h"	/* POSIX ACL entries and encodings (xattr_acl.c) */

#ifdef __cplusplus
}
#endif
#endif /* E4_E4_H */
