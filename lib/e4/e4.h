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

/* Open an image file or block device.  Errors: errno values. */
errcode_t e4_io_open(const char *path, int flags, e4_io **ret);
void e4_io_close(e4_io *io);
/* Device size in bytes. */
uint64_t e4_io_size(e4_io *io);
/* Set the block size (bytes) used by block calls; drops the cache. */
errcode_t e4_io_set_blksize(e4_io *io, unsigned blocksize);
/* Byte-addressed uncached read/write.  Reading past the end:
 * E4_ERR_SHORT_READ; writing read-only: E4_ERR_READ_ONLY. */
errcode_t e4_io_pread(e4_io *io, uint64_t offset, void *buf, size_t len);
errcode_t e4_io_pwrite(e4_io *io, uint64_t offset, const void *buf, size_t len);
/* Read count blocks through the cache (metadata).  Sequential misses
 * trigger read-ahead. */
errcode_t e4_io_read_blk(e4_io *io, e4_blk_t blk, unsigned count, void *buf);
/* Read count blocks bypassing the cache (bulk file data). */
errcode_t e4_io_read_blk_nocache(e4_io *io, e4_blk_t blk, unsigned count, void *buf);
/* Write count blocks through the cache (write-back until e4_io_flush). */
errcode_t e4_io_write_blk(e4_io *io, e4_blk_t blk, unsigned count, const void *buf);
/* Write back dirty cache blocks and fsync. */
errcode_t e4_io_flush(e4_io *io);

/* ---- filesystem handle (super.c, group.c) ---------------------------- */
#define E4_OPEN_RW		0x0001	/* read-write */
#define E4_OPEN_IGNORE_CSUM	0x0002	/* checksum mismatches are not errors */
#define E4_OPEN_CATASTROPHIC	0x0004	/* tolerate bad descriptors, don't use bitmaps */
#define E4_OPEN_FORCE		0x0008	/* open read-only despite unknown features */

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
 * ro_compat with E4_OPEN_RW), E4_ERR_JOURNAL_DEV, errno.  Descriptors are
 * loaded but not judged (like the reference, a damaged group only fails
 * the operations that need it): see e4_check_group_descs(). */
errcode_t e4_open(const char *path, int flags, e4_blk_t superblock,
		  unsigned blocksize, e4_fs **ret);
/* Check every group descriptor: bitmaps and inode table inside the
 * filesystem (E4_ERR_GD_BAD_LOCATION), checksum (E4_ERR_GD_CSUM unless
 * IGNORE_CSUM).  *bad_group (may be NULL) gets the first bad group. */
errcode_t e4_check_group_descs(e4_fs *fs, e4_group_t *bad_group);
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

/* ---- inodes (inode.c; format doc section 6) -------------------------- */
#define E4_INODE_MAX_SIZE	1024
/* An inode buffer big enough for any inode size. */
union e4_inode_buf {
	struct ext4_inode inode;
	uint8_t raw[E4_INODE_MAX_SIZE];
};

/* Read inode ino (inode_size bytes into buf).  The buffer is filled even
 * when the checksum fails: E4_ERR_INODE_CSUM (unless IGNORE_CSUM).
 * E4_ERR_BAD_INODE_NUM, E4_ERR_GD_BAD_LOCATION. */
errcode_t e4_inode_read(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *buf);
/* Byte offset of inode ino on the device. */
errcode_t e4_inode_location(e4_fs *fs, e4_ino_t ino, uint64_t *offset);

uint64_t e4_inode_size(const struct ext4_inode *inode);	/* bytes */
/* i_blocks in 512-byte units (huge_file and HUGE_FILE_FL applied). */
uint64_t e4_inode_blocks(e4_fs *fs, const struct ext4_inode *inode);
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
 * inodes have no blocks: E4_ERR_INLINE_DATA... returns *pblk 0.
 * Errors: E4_ERR_EXTENT_HEADER, E4_ERR_EXTENT_CSUM, E4_ERR_EXTENT_TOO_DEEP,
 * E4_ERR_BAD_IND_BLOCK, E4_ERR_BAD_BLOCK_NUM. */
errcode_t e4_bmap(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
		  uint64_t lblk, e4_blk_t *pblk, uint32_t *len, unsigned *flags);

#define E4_ITER_META		0x0001	/* also report tree/indirect blocks */
/* Call cb for every mapped range in ascending logical order (and, with
 * E4_ITER_META, every mapping block before the ranges it covers).  A
 * nonzero return from cb stops the walk and is returned as is. */
typedef int (*e4_map_cb)(e4_fs *fs, const struct e4_map_extent *ext, void *priv);
errcode_t e4_map_iterate(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			 unsigned flags, e4_map_cb cb, void *priv);

/* ---- file data (file.c, inline.c) ----------------------------------- */
/* Open inode ino for reading (inode may be NULL: read it). */
errcode_t e4_file_open(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
		       e4_file **ret);
void e4_file_close(e4_file *f);
uint64_t e4_file_size(e4_file *f);	/* bytes */
/* Read up to len bytes at offset (bytes); *got = bytes read (short only
 * at end of file).  Holes and unwritten extents read as zeros; inline data
 * is served from the inode. */
errcode_t e4_file_pread(e4_file *f, uint64_t offset, void *buf, size_t len, size_t *got);

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
 * to stop (that value is returned).  E4_ERR_NOT_DIR, E4_ERR_DIR_CORRUPT,
 * E4_ERR_BAD_REC_LEN, E4_ERR_DIR_CSUM (unless IGNORE_CSUM). */
typedef int (*e4_dir_cb)(const struct e4_dirent *d, void *priv);
errcode_t e4_dir_iterate(e4_fs *fs, e4_ino_t dir, unsigned flags, e4_dir_cb cb, void *priv);
/* Find name in dir (htree hash lookup where indexed).  E4_ERR_NOT_FOUND. */
errcode_t e4_dir_lookup(e4_fs *fs, e4_ino_t dir, const char *name, size_t len,
			e4_ino_t *ino, uint8_t *file_type);
/* Resolve path (absolute from root, else relative to cwd); symlinks in
 * the middle are followed, the last one only when follow is set.
 * E4_ERR_NOT_FOUND, E4_ERR_NOT_DIR, E4_ERR_SYMLINK_LOOP. */
errcode_t e4_namei(e4_fs *fs, e4_ino_t root, e4_ino_t cwd, const char *path,
		   int follow, e4_ino_t *ino);

/* htree hash of name (section 8.5).  version: DX_HASH_* 0..5 (3..5 are the
 * unsigned-char forms).  seed: 4 words in CPU order, NULL or all-zero for
 * the default.  E4_ERR_BAD_HASH_VERSION. */
errcode_t e4_dx_hash(int version, const char *name, size_t len, const uint32_t seed[4],
		     uint32_t *major, uint32_t *minor);
/* The hash version to use for directory dx_root's hash_version on this fs
 * (adds 3 for UNSIGNED_HASH in s_flags, section 8.5). */
int e4_dx_effective_version(e4_fs *fs, int root_hash_version);

/* ---- symlinks (symlink.c) -------------------------------------------- */
/* Link target into buf (NUL-terminated when it fits); *len = target
 * length in bytes.  Fast, slow (block) and inline symlinks.
 * E4_ERR_NOT_SYMLINK, E4_ERR_SYMLINK_CORRUPT, E4_ERR_BUFFER_TOO_SMALL. */
errcode_t e4_readlink(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
		      char *buf, size_t bufsize, size_t *len);

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
};
typedef int (*e4_xattr_cb)(e4_fs *fs, const struct e4_xattr *x, void *priv);
/* Walk in-inode then block xattrs.  E4_ERR_XATTR_MAGIC,
 * E4_ERR_XATTR_CORRUPT, E4_ERR_XATTR_CSUM (unless IGNORE_CSUM). */
errcode_t e4_xattr_iterate(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
			   e4_xattr_cb cb, void *priv);
/* Value of xattr fullname ("user.foo") in a malloc'd buffer (caller frees).
 * E4_ERR_XATTR_NOT_FOUND. */
errcode_t e4_xattr_get(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode,
		       const char *fullname, void **value, size_t *len);
/* Prefix string for a name index ("" if unknown). */
const char *e4_xattr_prefix(uint8_t name_index);

/* ---- journal (journal.c; sections 11, 14) ---------------------------- */
/* tid comparison modulo 2^32 (section 12.2). */
static inline int e4_tid_gt(uint32_t x, uint32_t y) { return (int32_t)(x - y) > 0; }
static inline int e4_tid_geq(uint32_t x, uint32_t y) { return (int32_t)(x - y) >= 0; }

/* Open the filesystem's journal: the internal journal inode, or with
 * ext_path the external journal device (matched by UUID).  Validates the
 * journal superblock (magic, version, block size, checksum).
 * E4_ERR_NO_JOURNAL, E4_ERR_EXTERNAL_JOURNAL (external journal and no
 * ext_path), E4_ERR_JOURNAL_MAGIC, E4_ERR_JOURNAL_VERSION,
 * E4_ERR_JOURNAL_CSUM, E4_ERR_JOURNAL_UNSUPP, E4_ERR_JOURNAL_INODE. */
errcode_t e4_journal_open(e4_fs *fs, const char *ext_path, e4_journal **ret);
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
/* Validate a journal superblock in memory (no I/O). */
errcode_t e4_journal_super_validate(const journal_superblock_t *jsb, unsigned fs_blocksize);

#ifdef __cplusplus
}
#endif
#endif /* E4_E4_H */
