/*
 * ops.h: the inode layer (inode_new.c), the buffered inode scan
 * (inode_scan.c) and the namespace operations (ops.c, ops_free.c);
 * included by e4.h.  Format doc section 6 (inodes), 8 (directories);
 * DESIGN.md "The write layer" and "Writing safely".
 */
#ifndef E4_OPS_H
#define E4_OPS_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---- new inodes and the rules of their fields (inode_new.c) ---------- */
#define E4_LINK_MAX	65000	/* the kernel's EXT4_LINK_MAX */

/* The current time (CLOCK_REALTIME) as seconds and nanoseconds. */
void e4_time_now(struct e4_time *t);
/* The clock of fs's operations: a fixed time (e4debugfs's
 * set_current_time), or NULL for CLOCK_REALTIME again.  e4_fs_now() reads
 * it; the operations (e4_op_*) use it where their caller gives no time. */
void e4_fs_clock_set(e4_fs *fs, const struct e4_time *t);
void e4_fs_now(e4_fs *fs, struct e4_time *t);

/* Fill *ib (the whole buffer zeroed first) as a new inode ino of mode
 * (type EXT4_S_IF* and permission bits), as the kernel's ext4_new_inode
 * leaves it: uid and gid (32 bits, e4_inode_owner_set()), links 1 (2 for
 * a directory), i_extra_isize as the kernel's ext4_fill_super chooses it
 * (32, raised to s_want_extra_isize and s_min_extra_isize with the
 * extra_isize feature; capped to inode size - 128; 0 with 128-byte
 * inodes), atime = ctime = mtime = crtime = *now
 * (NULL: e4_time_now(); nanoseconds and epoch bits where the inode has
 * the extra fields), i_generation = generation (0: a pseudo-random
 * non-zero value), and for regular files, directories and symlinks with
 * the extent feature EXTENTS_FL and an empty extent root (depth 0, max 4).
 * Inline data is not set here: the writers set it when they store data
 * (e4_dir_build's E4_DIR_BUILD_INLINE, e4_op_symlink).  Nothing is
 * written or allocated; e4_inode_write() sets the checksum.
 * E4_ERR_INVALID_ARGUMENT (no type in mode, ino 0 or past
 * s_inodes_count). */
errcode_t e4_inode_init(e4_fs *fs, e4_ino_t ino, uint16_t mode, uint32_t uid, uint32_t gid,
			const struct e4_time *now, uint32_t generation, union e4_inode_buf *ib);

/* What a new inode takes from its parent directory, as the kernel's
 * ext4_new_inode does: the flags of EXT4_FL_INHERITED the parent has,
 * masked by the child's type (regular: EXT4_REG_FLMASK; directory: all;
 * others: NODUMP and NOATIME), added to child's; and with the project
 * feature, i_projid when the parent has PROJINHERIT (0 otherwise, as
 * e4_inode_init() left it), where both inodes hold the field.  In memory;
 * call after e4_inode_init(), before the type's writers. */
void e4_inode_inherit(e4_fs *fs, const struct ext4_inode *parent, struct ext4_inode *child);

/* Bits of the timestamps e4_inode_times_set() writes. */
#define E4_T_ATIME	(1u << E4_ATIME)
#define E4_T_CTIME	(1u << E4_CTIME)
#define E4_T_MTIME	(1u << E4_MTIME)
#define E4_T_CRTIME	(1u << E4_CRTIME)
#define E4_T_DTIME	(1u << E4_DTIME)
/* Set the timestamps named by which (E4_T_*) to *t (format doc 6.3): the
 * low 32 bits of the seconds in the base field, nanoseconds and epoch
 * bits in the _extra field when the inode has it (e4_inode_has_field());
 * crtime only when i_crtime fits; dtime is 32-bit seconds only. */
void e4_inode_times_set(e4_fs *fs, struct ext4_inode *inode, unsigned which,
			const struct e4_time *t);

/* Set i_size (bytes) by the kernel's rules (ext4_isize, ext4_do_update_
 * inode): regular files, and directories with largedir, use i_size_high;
 * other inodes keep it 0 and must stay below 4 GiB.  A regular file above
 * 2 GiB - 1 on a filesystem without large_file sets that feature in the
 * in-memory superblock (written with the next e4_alloc_flush() /
 * e4_flush_primary()), as the kernel does.  E4_ERR_FILE_TOO_BIG (does not
 * fit; revision 0 filesystems, which cannot take the feature). */
errcode_t e4_inode_size_set(e4_fs *fs, struct ext4_inode *inode, uint64_t size);
/* 0 when e4_inode_size_set() would store size in inode (nothing is
 * changed), else E4_ERR_FILE_TOO_BIG: a check asks to set a size only
 * when it can be written. */
errcode_t e4_inode_size_fits(e4_fs *fs, const struct ext4_inode *inode, uint64_t size);

/* Set i_links_count to links.  A directory with more than E4_LINK_MAX
 * links stores 1 (dir_nlink; the kernel's and e2fsck's rule); without
 * dir_nlink, or for any other inode above E4_LINK_MAX:
 * E4_ERR_TOO_MANY_LINKS (nothing changed). */
errcode_t e4_inode_links_set(e4_fs *fs, struct ext4_inode *inode, uint32_t links);
/* One more link, as the kernel's ext4_inc_count: a directory at
 * E4_LINK_MAX, or already at 1 (counts beyond the limit), stays at 1,
 * which needs dir_nlink and an indexed directory (ext4_mkdir's EMLINK
 * otherwise).  E4_ERR_TOO_MANY_LINKS (nothing changed). */
errcode_t e4_inode_links_inc(e4_fs *fs, struct ext4_inode *inode);
/* One link less, as ext4_dec_count: a directory never goes below 2 (its
 * own "." and its entry) and a stored 1 (beyond the limit) stays 1: the
 * caller recounts (e4_op_* do); other inodes go down to 0. */
void e4_inode_links_dec(struct ext4_inode *inode);

/* uid and gid (32 bits each): the low halves in i_uid / i_gid, the high
 * halves in l_i_uid_high / l_i_gid_high (Linux's osd2 layout). */
void e4_inode_owner_set(struct ext4_inode *inode, uint32_t uid, uint32_t gid);
/* The directory entry file type (EXT4_FT_*, section 8.2) of an i_mode;
 * EXT4_FT_UNKNOWN for an unknown type. */
uint8_t e4_mode_file_type(uint16_t mode);
/* Replace the permission bits (07777) and keep the type. */
void e4_inode_perm_set(struct ext4_inode *inode, uint16_t perm);
/* Device number of a character or block device inode as the kernel writes
 * it (ext4_do_update_inode): major and minor both below 256 in the old
 * 16-bit form in i_block[0] (major << 8 | minor), else 0 there and the
 * new 32-bit form in i_block[1] ((minor & 0xff) | major << 8 | (minor &
 * ~0xff) << 12).  The rest of i_block is zeroed.  major < 4096, minor <
 * 2^20 (the new form's room): E4_ERR_INVALID_ARGUMENT otherwise. */
errcode_t e4_inode_dev_set(struct ext4_inode *inode, uint32_t major, uint32_t minor);
/* The device number back: *major, *minor from either form. */
void e4_inode_dev_get(const struct ext4_inode *inode, uint32_t *major, uint32_t *minor);

/* ---- the buffered inode scan (inode_scan.c) -------------------------- */
typedef struct e4_inode_scan e4_inode_scan;
#define E4_SCAN_ALL_INODES	0x0001	/* also report INODE_UNINIT groups and
					   unused tails (as zeroed inodes) */
#define E4_SCAN_READAHEAD	0x0002	/* announce the next chunk to the kernel
					   (posix_fadvise WILLNEED) while the
					   current one is handed out */
#define E4_SCAN_CHECK_BITMAP	0x0004	/* also read the whole table of a group
					   whose inode bitmap marks an inode in
					   use past bg_itable_unused's mark, or
					   cannot be read (one bitmap read per
					   group with unused inodes) */
/* Start a scan of every inode in order, reading each group's inode table
 * in chunks of chunk_bytes (0: 1 MiB; rounded down to whole blocks, at
 * least one, at most a group's table) straight from the device (dirty
 * cached blocks overlaid, e4_io_read_nocache()).  Read-ahead is off by
 * default: measured on a 256 MB inode table (bench/inode_scan.sh, virtio
 * disk, cold cache), WILLNEED made the scan 2-5 times slower (0.31-0.60 s
 * against 0.06-0.15 s), 1 MiB chunks being the fastest.  Groups with
 * INODE_UNINIT, and the last bg_itable_unused inodes of a group, are
 * skipped (never read) when the descriptor checksum (gdt_csum or
 * metadata_csum) is right, which is what makes those fields trustworthy;
 * without checksums, with a bad descriptor checksum, or with counts that
 * contradict those fields (more unused inodes than free ones, INODE_UNINIT
 * with inodes or directories in use), the whole table is read.
 * E4_ERR_NO_MEMORY. */
errcode_t e4_inode_scan_open(e4_fs *fs, size_t chunk_bytes, unsigned flags,
			     e4_inode_scan **ret);
/* The next inode: *ino and *inode (points into the scan's buffer, valid
 * until the next call; inode_size bytes).  Returns 0, or
 * E4_ERR_NOT_FOUND at the end (*ino 0).  A chunk that cannot be read is
 * read again block by block; each run of blocks that still fails is
 * reported once, on its first inode: the read error with *ino that inode
 * and *count (may be NULL) the inodes of the run, which are skipped; the
 * next call goes on after it (a chunk no block of which reads is one
 * run).  A group whose inode table lies outside
 * the filesystem is reported the same way (E4_ERR_GD_BAD_LOCATION).  A
 * skipped group or tail is not reported unless E4_SCAN_ALL_INODES.
 * *csum_ok (may be NULL) = e4_inode_csum_verify() of the inode (1 when
 * the filesystem has no metadata_csum). */
errcode_t e4_inode_scan_next(e4_inode_scan *s, e4_ino_t *ino, const struct ext4_inode **inode,
			     uint32_t *count, int *csum_ok);
/* Bytes read from the device and inode table blocks skipped so far. */
void e4_inode_scan_stats(e4_inode_scan *s, uint64_t *bytes_read, uint64_t *blocks_skipped);
void e4_inode_scan_close(e4_inode_scan *s);

/* ---- namespace operations (ops.c, ops_free.c) ------------------------ */
/*
 * On an open read-write filesystem; names are resolved by the caller: a
 * parent directory inode and one name (len bytes, 1..255, no '/' or NUL,
 * not "." or "..").  Each call is a complete change: the superblock is
 * marked not clean on the device first (e4_super_mark_unclean_ordered()),
 * then the writes go out in the order DESIGN.md "Writing safely" asks --
 * a new inode and its blocks marked in use and written before an entry
 * names it; an entry removed before what it named is freed (the inode
 * written deleted, links 0 and dtime set, before its blocks and bit are
 * cleared) -- each step ended by an ordering point
 * (e4_order_point_primary(): bitmaps, the primary descriptors, the
 * superblock, then e4_order_point(); the device sees the steps in order,
 * nothing is waited for), and last the superblock with its state as it
 * was, then one flush with fsync (e4_ops_end() at depth 0).  Between
 * e4_ops_begin() and e4_ops_end() the state is restored and the device
 * synced only once, at the end (many operations, one not-clean window,
 * one fsync).  The order holds for a process that stops at any write;
 * across a power failure only when the device was opened with
 * E4_IO_SYNC_BARRIERS (each ordering point an fdatasync).  Measured
 * (bench/ops_bench, 10,000 creates into one directory of a 256 MiB ext4
 * image on a virtio disk): 1.4 ms an operation alone (one fsync; 6.8 ms
 * with a flush per step), 17 us each in one window (5.0 ms before).
 * Times: new inodes get now; a directory whose
 * entries change gets mtime and ctime now; an inode whose link count
 * changes gets ctime now.
 */
struct e4_op_attr {
	uint16_t perm;		/* permission bits (07777) */
	uint32_t uid, gid;
	struct e4_time now;	/* times to use; sec 0 and nsec 0: the current time */
	uint32_t generation;	/* 0: pseudo-random */
};
/* Bracket several operations in one not-clean window: the first begin
 * marks the device's superblock not clean; the matching end writes the
 * superblock with its state as before and flushes.  Nesting counts.
 * E4_ERR_READ_ONLY, I/O errors. */
errcode_t e4_ops_begin(e4_fs *fs);
errcode_t e4_ops_end(e4_fs *fs);

/* A new empty regular file name in dir (attr NULL: 0644, root, now).
 * *ino (may be NULL) gets its number.  New inodes go where the
 * allocator's policy puts them (e4_alloc_inode(): a directory under the
 * root in the least used (flex) group, other directories and files near
 * their parent); blocks (directory blocks, a slow symlink's) from
 * e4_alloc_blocks() at e4_alloc_goal_for_mode().  Errors:
 * E4_ERR_READ_ONLY, E4_ERR_NOT_DIR, E4_ERR_EXISTS, E4_ERR_NAME_TOO_LONG,
 * E4_ERR_INVALID_ARGUMENT (bad name), E4_ERR_NO_SPACE (no inode or
 * block), the directory writer's errors (e4_dir_insert()), read, write
 * and allocation errors.  On an error before the entry is written, the
 * new inode is given back. */
errcode_t e4_op_create(e4_fs *fs, e4_ino_t dir, const char *name, size_t len,
		       const struct e4_op_attr *attr, e4_ino_t *ino);
/* A new directory (attr NULL: 0755): "." and ".." (inline with
 * inline_data and inodes above 128 bytes, as the kernel's mkdir), the
 * group's used-directories count raised, dir's link count + 1
 * (e4_inode_links_inc()).  Errors as e4_op_create(), and
 * E4_ERR_TOO_MANY_LINKS (dir at E4_LINK_MAX without dir_nlink or an
 * index). */
errcode_t e4_op_mkdir(e4_fs *fs, e4_ino_t dir, const char *name, size_t len,
		      const struct e4_op_attr *attr, e4_ino_t *ino);
/* A symlink to target (tlen bytes, 1 .. block size - 1, no NUL; attr
 * NULL: 0777): below 60 bytes a fast symlink (the target in i_block, no
 * EXTENTS_FL), else with inline_data inline (i_block and system.data, as
 * e2fsprogs writes them) when it fits the inode, else a slow one (one data
 * block, through the extent tree or block map).  i_size = tlen.  Errors
 * as e4_op_create(), E4_ERR_INVALID_ARGUMENT (tlen). */
errcode_t e4_op_symlink(e4_fs *fs, e4_ino_t dir, const char *name, size_t len,
			const char *target, size_t tlen, const struct e4_op_attr *attr,
			e4_ino_t *ino);
/* A fifo, socket or device node: type EXT4_S_IFIFO, EXT4_S_IFSOCK,
 * EXT4_S_IFCHR or EXT4_S_IFBLK (attr NULL: 0644); devices get
 * major:minor (e4_inode_dev_set()), others ignore them.  No blocks, no
 * EXTENTS_FL.  Errors as e4_op_create(), E4_ERR_INVALID_ARGUMENT (type,
 * device number). */
errcode_t e4_op_mknod(e4_fs *fs, e4_ino_t dir, const char *name, size_t len, uint16_t type,
		      uint32_t major, uint32_t minor, const struct e4_op_attr *attr,
		      e4_ino_t *ino);

#define E4_OP_ENTRY_ONLY	0x0001	/* link/unlink: the entry only, link
					   counts untouched (e4debugfs's ln,
					   unlink) */
/* A new entry name in dir for the existing inode ino (file type from its
 * mode).  Unless E4_OP_ENTRY_ONLY, ino's link count + 1 and ctime now;
 * directories are refused then (E4_ERR_IS_DIR), as link(2) refuses them.
 * Errors as e4_op_create(), E4_ERR_TOO_MANY_LINKS, E4_ERR_NOT_FOUND
 * (counted: ino is free in the bitmap or has no links), E4_ERR_INODE_CSUM
 * (counted only: an entry-only link takes the type of an inode failing
 * its checksum). */
errcode_t e4_op_link(e4_fs *fs, e4_ino_t dir, const char *name, size_t len, e4_ino_t ino,
		     unsigned flags);
/* Remove the entry name from dir.  Unless E4_OP_ENTRY_ONLY: a directory
 * is refused (E4_ERR_IS_DIR, use e4_op_rmdir()); the inode's link count -
 * 1, and at 0 the inode is freed (e4_op_release()).  *ino (may be NULL)
 * gets the inode the entry named.  Errors: E4_ERR_NOT_FOUND, those of
 * e4_dir_remove() and e4_op_release(). */
errcode_t e4_op_unlink(e4_fs *fs, e4_ino_t dir, const char *name, size_t len, unsigned flags,
		       e4_ino_t *ino);
/* Remove the empty directory name from dir: the entry removed, then the
 * directory freed (e4_op_release()), dir's link count - 1 (recounted when
 * it was at 1, beyond E4_LINK_MAX).  E4_ERR_NOT_DIR (name is not a
 * directory), E4_ERR_DIR_NOT_EMPTY, E4_ERR_INVALID_ARGUMENT (the root),
 * errors as e4_op_unlink(). */
errcode_t e4_op_rmdir(e4_fs *fs, e4_ino_t dir, const char *name, size_t len);
/* Move oname in odir to nname in ndir (the same directory or another), as
 * rename(2): an existing target is replaced (a file by a non-directory,
 * an empty directory by a directory; else E4_ERR_IS_DIR / E4_ERR_NOT_DIR
 * / E4_ERR_DIR_NOT_EMPTY) and then loses a link (freed at 0); the same
 * inode under both names: nothing done.  A directory moved to another
 * parent gets ".." rewritten, the old parent - 1 link, the new + 1
 * (unless it replaced a directory).  The new entry is written before the
 * old one is removed.  E4_ERR_INVALID_ARGUMENT (a directory into itself
 * or below itself, "." or ".."), errors as the calls above. */
errcode_t e4_op_rename(e4_fs *fs, e4_ino_t odir, const char *oname, size_t olen, e4_ino_t ndir,
		       const char *nname, size_t nlen);
/* Free inode ino whatever its links (e4debugfs's kill_file; the last
 * step of unlink and rmdir), as the kernel's ext4_evict_inode: first the
 * inode written deleted (links 0, dtime and ctime now), then its blocks
 * (e4_inode_truncate_blocks() to 0), its attributes
 * (e4_xattr_remove_all(): the xattr block's reference count, freed at
 * the last one; EA inode references), i_size 0, and its bit cleared
 * (used directories - 1 for a directory).  A stop in between leaves
 * leaks only.  E4_ERR_INVALID_ARGUMENT (below s_first_ino or past
 * s_inodes_count), E4_ERR_INODE_CSUM, read, write and allocation
 * errors. */
errcode_t e4_op_release(e4_fs *fs, e4_ino_t ino);
/* 1 when ino is one of the filesystem's reserved inodes (1 .. s_first_ino
 * - 1: the root, the journal, the resize inode, quota and the others,
 * format doc section 6.1), whose blocks only their own writers (e4mkfs,
 * e4tune, the journal code) change: the namespace and data commands
 * (free, punch, truncate, fallocate) refuse them. */
int e4_ino_reserved(e4_fs *fs, e4_ino_t ino);

/* Store target (tlen bytes, 1 .. block size - 1, no NUL) in the new
 * symlink inode ino (*ib from e4_inode_init(), not yet holding data) as
 * e4_op_symlink() stores it -- fast below 60 bytes, inline with
 * inline_data when it fits, else one data block -- and set i_size; no
 * entry is made and the inode is not written (the caller writes *ib).
 * E4_ERR_INVALID_ARGUMENT (tlen, a NUL), E4_ERR_NO_SPACE, write and
 * allocation errors. */
errcode_t e4_symlink_set(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, const char *target,
			 size_t tlen);
#ifdef __cplusplus
}
#endif
#endif /* E4_OPS_H */
