/*
 * ext4_fs.h: ext2/ext3/ext4 on-disk structures, named as the Linux kernel
 * names them.  Every multi-byte field here is little-endian on disk; read
 * them through e4_le16()/e4_le32()/e4_le64() or the accessors in e4.h.
 * Layouts: ../shared/docs/ext4-format.md sections 2-9.
 */
#ifndef E4_EXT4_FS_H
#define E4_EXT4_FS_H

#include <stdint.h>

#define EXT4_SUPER_MAGIC		0xEF53
#define EXT4_SUPERBLOCK_OFFSET		1024
#define EXT4_SUPERBLOCK_SIZE		1024
#define EXT4_MIN_BLOCK_LOG_SIZE		10
#define EXT4_MAX_BLOCK_LOG_SIZE		16
#define EXT4_MIN_BLOCK_SIZE		(1 << EXT4_MIN_BLOCK_LOG_SIZE)
#define EXT4_MAX_BLOCK_SIZE		(1 << EXT4_MAX_BLOCK_LOG_SIZE)
#define EXT4_MAX_CLUSTER_LOG_SIZE	30
#define EXT4_GOOD_OLD_REV		0
#define EXT4_DYNAMIC_REV		1
#define EXT4_GOOD_OLD_INODE_SIZE	128
#define EXT4_GOOD_OLD_FIRST_INO		11
#define EXT4_MIN_DESC_SIZE		32
#define EXT4_MIN_DESC_SIZE_64BIT	64
#define EXT4_MAX_DESC_SIZE		EXT4_MIN_BLOCK_SIZE

/* Special inodes (format doc 6.2) */
#define EXT4_BAD_INO			1
#define EXT4_ROOT_INO			2
#define EXT4_USR_QUOTA_INO		3
#define EXT4_GRP_QUOTA_INO		4
#define EXT4_BOOT_LOADER_INO		5
#define EXT4_UNDEL_DIR_INO		6
#define EXT4_RESIZE_INO			7
#define EXT4_JOURNAL_INO		8
#define EXT4_EXCLUDE_INO		9
#define EXT4_REPLICA_INO		10

/* s_state */
#define EXT4_VALID_FS			0x0001
#define EXT4_ERROR_FS			0x0002
#define EXT4_ORPHAN_FS			0x0004
#define EXT4_FC_REPLAY			0x0020

/* s_flags */
#define EXT2_FLAGS_SIGNED_HASH		0x0001
#define EXT2_FLAGS_UNSIGNED_HASH	0x0002
#define EXT2_FLAGS_TEST_FILESYS		0x0004

/* s_feature_compat */
#define EXT4_FEATURE_COMPAT_DIR_PREALLOC	0x0001
#define EXT4_FEATURE_COMPAT_IMAGIC_INODES	0x0002
#define EXT4_FEATURE_COMPAT_HAS_JOURNAL		0x0004
#define EXT4_FEATURE_COMPAT_EXT_ATTR		0x0008
#define EXT4_FEATURE_COMPAT_RESIZE_INODE	0x0010
#define EXT4_FEATURE_COMPAT_DIR_INDEX		0x0020
#define EXT4_FEATURE_COMPAT_LAZY_BG		0x0040
#define EXT4_FEATURE_COMPAT_EXCLUDE_INODE	0x0080
#define EXT4_FEATURE_COMPAT_EXCLUDE_BITMAP	0x0100
#define EXT4_FEATURE_COMPAT_SPARSE_SUPER2	0x0200
#define EXT4_FEATURE_COMPAT_FAST_COMMIT		0x0400
#define EXT4_FEATURE_COMPAT_STABLE_INODES	0x0800
#define EXT4_FEATURE_COMPAT_ORPHAN_FILE		0x1000

/* s_feature_ro_compat */
#define EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER	0x0001
#define EXT4_FEATURE_RO_COMPAT_LARGE_FILE	0x0002
#define EXT4_FEATURE_RO_COMPAT_BTREE_DIR	0x0004
#define EXT4_FEATURE_RO_COMPAT_HUGE_FILE	0x0008
#define EXT4_FEATURE_RO_COMPAT_GDT_CSUM		0x0010
#define EXT4_FEATURE_RO_COMPAT_DIR_NLINK	0x0020
#define EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE	0x0040
#define EXT4_FEATURE_RO_COMPAT_HAS_SNAPSHOT	0x0080
#define EXT4_FEATURE_RO_COMPAT_QUOTA		0x0100
#define EXT4_FEATURE_RO_COMPAT_BIGALLOC		0x0200
#define EXT4_FEATURE_RO_COMPAT_METADATA_CSUM	0x0400
#define EXT4_FEATURE_RO_COMPAT_REPLICA		0x0800
#define EXT4_FEATURE_RO_COMPAT_READONLY		0x1000
#define EXT4_FEATURE_RO_COMPAT_PROJECT		0x2000
#define EXT4_FEATURE_RO_COMPAT_SHARED_BLOCKS	0x4000
#define EXT4_FEATURE_RO_COMPAT_VERITY		0x8000
#define EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT	0x10000

/* s_feature_incompat */
#define EXT4_FEATURE_INCOMPAT_COMPRESSION	0x0001
#define EXT4_FEATURE_INCOMPAT_FILETYPE		0x0002
#define EXT4_FEATURE_INCOMPAT_RECOVER		0x0004
#define EXT4_FEATURE_INCOMPAT_JOURNAL_DEV	0x0008
#define EXT4_FEATURE_INCOMPAT_META_BG		0x0010
#define EXT4_FEATURE_INCOMPAT_EXTENTS		0x0040
#define EXT4_FEATURE_INCOMPAT_64BIT		0x0080
#define EXT4_FEATURE_INCOMPAT_MMP		0x0100
#define EXT4_FEATURE_INCOMPAT_FLEX_BG		0x0200
#define EXT4_FEATURE_INCOMPAT_EA_INODE		0x0400
#define EXT4_FEATURE_INCOMPAT_DIRDATA		0x1000
#define EXT4_FEATURE_INCOMPAT_CSUM_SEED		0x2000
#define EXT4_FEATURE_INCOMPAT_LARGEDIR		0x4000
#define EXT4_FEATURE_INCOMPAT_INLINE_DATA	0x8000
#define EXT4_FEATURE_INCOMPAT_ENCRYPT		0x10000
#define EXT4_FEATURE_INCOMPAT_CASEFOLD		0x20000

/* s_default_mount_opts */
#define EXT4_DEFM_DEBUG			0x0001
#define EXT4_DEFM_BSDGROUPS		0x0002
#define EXT4_DEFM_XATTR_USER		0x0004
#define EXT4_DEFM_ACL			0x0008
#define EXT4_DEFM_UID16			0x0010
#define EXT4_DEFM_JMODE			0x0060
#define EXT4_DEFM_JMODE_DATA		0x0020
#define EXT4_DEFM_JMODE_ORDERED		0x0040
#define EXT4_DEFM_JMODE_WBACK		0x0060
#define EXT4_DEFM_NOBARRIER		0x0100
#define EXT4_DEFM_BLOCK_VALIDITY	0x0200
#define EXT4_DEFM_DISCARD		0x0400
#define EXT4_DEFM_NODELALLOC		0x0800

#define EXT4_CRC32C_CHKSUM		1

/* s_creator_os: the Hurd reuses l_i_version as i_translator and the first
 * two bytes of l_i_blocks_high as i_frag and i_fsize. */
#define EXT4_OS_LINUX			0
#define EXT4_OS_HURD			1

/* Superblock: 1024 bytes at byte 1024 (format doc section 2). */
struct ext4_super_block {
	uint32_t s_inodes_count;		/* 0x000 */
	uint32_t s_blocks_count_lo;
	uint32_t s_r_blocks_count_lo;
	uint32_t s_free_blocks_count_lo;
	uint32_t s_free_inodes_count;		/* 0x010 */
	uint32_t s_first_data_block;
	uint32_t s_log_block_size;
	uint32_t s_log_cluster_size;
	uint32_t s_blocks_per_group;		/* 0x020 */
	uint32_t s_clusters_per_group;
	uint32_t s_inodes_per_group;
	uint32_t s_mtime;
	uint32_t s_wtime;			/* 0x030 */
	uint16_t s_mnt_count;
	int16_t  s_max_mnt_count;
	uint16_t s_magic;
	uint16_t s_state;
	uint16_t s_errors;
	uint16_t s_minor_rev_level;
	uint32_t s_lastcheck;			/* 0x040 */
	uint32_t s_checkinterval;
	uint32_t s_creator_os;
	uint32_t s_rev_level;
	uint16_t s_def_resuid;			/* 0x050 */
	uint16_t s_def_resgid;
	uint32_t s_first_ino;
	uint16_t s_inode_size;
	uint16_t s_block_group_nr;
	uint32_t s_feature_compat;
	uint32_t s_feature_incompat;		/* 0x060 */
	uint32_t s_feature_ro_compat;
	uint8_t  s_uuid[16];			/* 0x068 */
	char     s_volume_name[16];		/* 0x078 */
	char     s_last_mounted[64];		/* 0x088 */
	uint32_t s_algorithm_usage_bitmap;	/* 0x0C8 */
	uint8_t  s_prealloc_blocks;
	uint8_t  s_prealloc_dir_blocks;
	uint16_t s_reserved_gdt_blocks;
	uint8_t  s_journal_uuid[16];		/* 0x0D0 */
	uint32_t s_journal_inum;		/* 0x0E0 */
	uint32_t s_journal_dev;
	uint32_t s_last_orphan;
	uint32_t s_hash_seed[4];		/* 0x0EC */
	uint8_t  s_def_hash_version;		/* 0x0FC */
	uint8_t  s_jnl_backup_type;
	uint16_t s_desc_size;
	uint32_t s_default_mount_opts;		/* 0x100 */
	uint32_t s_first_meta_bg;
	uint32_t s_mkfs_time;
	uint32_t s_jnl_blocks[17];		/* 0x10C */
	uint32_t s_blocks_count_hi;		/* 0x150 */
	uint32_t s_r_blocks_count_hi;
	uint32_t s_free_blocks_count_hi;
	uint16_t s_min_extra_isize;
	uint16_t s_want_extra_isize;
	uint32_t s_flags;			/* 0x160 */
	uint16_t s_raid_stride;
	uint16_t s_mmp_update_interval;
	uint64_t s_mmp_block;
	uint32_t s_raid_stripe_width;		/* 0x170 */
	uint8_t  s_log_groups_per_flex;
	uint8_t  s_checksum_type;
	uint8_t  s_encryption_level;
	uint8_t  s_reserved_pad;
	uint64_t s_kbytes_written;		/* 0x178 */
	uint32_t s_snapshot_inum;		/* 0x180 */
	uint32_t s_snapshot_id;
	uint64_t s_snapshot_r_blocks_count;
	uint32_t s_snapshot_list;		/* 0x190 */
	uint32_t s_error_count;
	uint32_t s_first_error_time;
	uint32_t s_first_error_ino;
	uint64_t s_first_error_block;		/* 0x1A0 */
	uint8_t  s_first_error_func[32];
	uint32_t s_first_error_line;		/* 0x1C8 */
	uint32_t s_last_error_time;
	uint32_t s_last_error_ino;		/* 0x1D0 */
	uint32_t s_last_error_line;
	uint64_t s_last_error_block;
	uint8_t  s_last_error_func[32];		/* 0x1E0 */
	uint8_t  s_mount_opts[64];		/* 0x200 */
	uint32_t s_usr_quota_inum;		/* 0x240 */
	uint32_t s_grp_quota_inum;
	uint32_t s_overhead_clusters;
	uint32_t s_backup_bgs[2];
	uint8_t  s_encrypt_algos[4];		/* 0x254 */
	uint8_t  s_encrypt_pw_salt[16];		/* 0x258 */
	uint32_t s_lpf_ino;			/* 0x268 */
	uint32_t s_prj_quota_inum;
	uint32_t s_checksum_seed;		/* 0x270 */
	uint8_t  s_wtime_hi;
	uint8_t  s_mtime_hi;
	uint8_t  s_mkfs_time_hi;
	uint8_t  s_lastcheck_hi;
	uint8_t  s_first_error_time_hi;
	uint8_t  s_last_error_time_hi;
	uint8_t  s_first_error_errcode;
	uint8_t  s_last_error_errcode;
	uint16_t s_encoding;			/* 0x27C */
	uint16_t s_encoding_flags;
	uint32_t s_orphan_file_inum;		/* 0x280 */
	uint32_t s_reserved[94];
	uint32_t s_checksum;			/* 0x3FC */
};

/* Group descriptor: 32 bytes, or s_desc_size (>= 64) with 64bit (section 4.1). */
struct ext4_group_desc {
	uint32_t bg_block_bitmap_lo;
	uint32_t bg_inode_bitmap_lo;
	uint32_t bg_inode_table_lo;
	uint16_t bg_free_blocks_count_lo;
	uint16_t bg_free_inodes_count_lo;
	uint16_t bg_used_dirs_count_lo;		/* 0x10 */
	uint16_t bg_flags;
	uint32_t bg_exclude_bitmap_lo;
	uint16_t bg_block_bitmap_csum_lo;
	uint16_t bg_inode_bitmap_csum_lo;
	uint16_t bg_itable_unused_lo;
	uint16_t bg_checksum;
	uint32_t bg_block_bitmap_hi;		/* 0x20 */
	uint32_t bg_inode_bitmap_hi;
	uint32_t bg_inode_table_hi;
	uint16_t bg_free_blocks_count_hi;
	uint16_t bg_free_inodes_count_hi;
	uint16_t bg_used_dirs_count_hi;		/* 0x30 */
	uint16_t bg_itable_unused_hi;
	uint32_t bg_exclude_bitmap_hi;
	uint16_t bg_block_bitmap_csum_hi;
	uint16_t bg_inode_bitmap_csum_hi;
	uint32_t bg_reserved;
};

#define EXT4_BG_INODE_UNINIT		0x0001
#define EXT4_BG_BLOCK_UNINIT		0x0002
#define EXT4_BG_INODE_ZEROED		0x0004
/* every bg_flags bit the format defines (e4kit's name: the kernel has none) */
#define E4_BG_KNOWN_FLAGS	(EXT4_BG_INODE_UNINIT | EXT4_BG_BLOCK_UNINIT | EXT4_BG_INODE_ZEROED)

#define EXT4_BG_BLOCK_BITMAP_CSUM_HI_END	0x3A
#define EXT4_BG_INODE_BITMAP_CSUM_HI_END	0x3C

/* Inode: 128-byte base plus i_extra_isize bytes (section 6.1). */
#define EXT4_N_BLOCKS		15
#define EXT4_NDIR_BLOCKS	12
#define EXT4_IND_BLOCK		12
#define EXT4_DIND_BLOCK		13
#define EXT4_TIND_BLOCK		14

struct ext4_inode {
	uint16_t i_mode;
	uint16_t i_uid;
	uint32_t i_size_lo;
	uint32_t i_atime;
	uint32_t i_ctime;
	uint32_t i_mtime;			/* 0x10 */
	uint32_t i_dtime;
	uint16_t i_gid;
	uint16_t i_links_count;
	uint32_t i_blocks_lo;
	uint32_t i_flags;			/* 0x20 */
	uint32_t l_i_version;
	uint32_t i_block[EXT4_N_BLOCKS];	/* 0x28 */
	uint32_t i_generation;			/* 0x64 */
	uint32_t i_file_acl_lo;
	uint32_t i_size_high;
	uint32_t i_faddr;			/* 0x70 */
	uint16_t l_i_blocks_high;
	uint16_t l_i_file_acl_high;
	uint16_t l_i_uid_high;
	uint16_t l_i_gid_high;
	uint16_t l_i_checksum_lo;
	uint16_t l_i_reserved;
	uint16_t i_extra_isize;			/* 0x80 */
	uint16_t i_checksum_hi;
	uint32_t i_ctime_extra;
	uint32_t i_mtime_extra;
	uint32_t i_atime_extra;
	uint32_t i_crtime;			/* 0x90 */
	uint32_t i_crtime_extra;
	uint32_t i_version_hi;
	uint32_t i_projid;
};

#define EXT4_INODE_FIELD_END(f) \
	(offsetof(struct ext4_inode, f) + sizeof(((struct ext4_inode *)0)->f))

/* i_mode */
#define EXT4_S_IFMT	0xF000
#define EXT4_S_IFSOCK	0xC000
#define EXT4_S_IFLNK	0xA000
#define EXT4_S_IFREG	0x8000
#define EXT4_S_IFBLK	0x6000
#define EXT4_S_IFDIR	0x4000
#define EXT4_S_IFCHR	0x2000
#define EXT4_S_IFIFO	0x1000

/* i_flags (section 6.5) */
#define EXT4_SECRM_FL		0x00000001
#define EXT4_UNRM_FL		0x00000002
#define EXT4_COMPR_FL		0x00000004
#define EXT4_SYNC_FL		0x00000008
#define EXT4_IMMUTABLE_FL	0x00000010
#define EXT4_APPEND_FL		0x00000020
#define EXT4_NODUMP_FL		0x00000040
#define EXT4_NOATIME_FL		0x00000080
#define EXT4_ENCRYPT_FL		0x00000800
#define EXT4_INDEX_FL		0x00001000
#define EXT4_IMAGIC_FL		0x00002000
#define EXT4_JOURNAL_DATA_FL	0x00004000
#define EXT4_NOTAIL_FL		0x00008000
#define EXT4_DIRSYNC_FL		0x00010000
#define EXT4_TOPDIR_FL		0x00020000
#define EXT4_HUGE_FILE_FL	0x00040000
#define EXT4_EXTENTS_FL		0x00080000
#define EXT4_VERITY_FL		0x00100000
#define EXT4_EA_INODE_FL	0x00200000
#define EXT4_DAX_FL		0x02000000
#define EXT4_INLINE_DATA_FL	0x10000000
#define EXT4_PROJINHERIT_FL	0x20000000
#define EXT4_CASEFOLD_FL	0x40000000
#define EXT4_COMPRBLK_FL	0x00000200	/* compressed clusters (unused by ext4) */
#define EXT4_NOCOMPR_FL		0x00000400	/* do not compress (unused by ext4) */
/* The flags a new inode takes from its parent directory (the kernel's
 * EXT4_FL_INHERITED), then masked by type: regular files drop DIRSYNC,
 * TOPDIR, CASEFOLD and PROJINHERIT; other non-directories keep only NODUMP
 * and NOATIME (ext4_mask_flags; measured on Linux 6.x: see
 * tests/t/dbgw_inherit.sh). */
#define EXT4_FL_INHERITED	(EXT4_SECRM_FL | EXT4_UNRM_FL | EXT4_COMPR_FL | EXT4_SYNC_FL | \
				 EXT4_NODUMP_FL | EXT4_NOATIME_FL | EXT4_COMPRBLK_FL | \
				 EXT4_NOCOMPR_FL | EXT4_JOURNAL_DATA_FL | EXT4_NOTAIL_FL | \
				 EXT4_DIRSYNC_FL | EXT4_PROJINHERIT_FL | EXT4_CASEFOLD_FL | \
				 EXT4_DAX_FL)
#define EXT4_REG_FLMASK		(~(uint32_t)(EXT4_DIRSYNC_FL | EXT4_TOPDIR_FL | EXT4_CASEFOLD_FL | \
					     EXT4_INDEX_FL | EXT4_PROJINHERIT_FL))
#define EXT4_OTHER_FLMASK	(EXT4_NODUMP_FL | EXT4_NOATIME_FL)

/* Extent tree (section 7.2) */
#define EXT4_EXT_MAGIC		0xF30A
#define EXT_INIT_MAX_LEN	32768
#define EXT_UNWRITTEN_MAX_LEN	(EXT_INIT_MAX_LEN - 1)
#define EXT4_MAX_EXTENT_DEPTH	5

struct ext4_extent_header {
	uint16_t eh_magic;
	uint16_t eh_entries;
	uint16_t eh_max;
	uint16_t eh_depth;
	uint32_t eh_generation;
};

struct ext4_extent {
	uint32_t ee_block;
	uint16_t ee_len;
	uint16_t ee_start_hi;
	uint32_t ee_start_lo;
};

struct ext4_extent_idx {
	uint32_t ei_block;
	uint32_t ei_leaf_lo;
	uint16_t ei_leaf_hi;
	uint16_t ei_unused;
};

struct ext4_extent_tail {
	uint32_t et_checksum;
};

/* Directory entries (section 8) */
#define EXT4_NAME_LEN		255

struct ext4_dir_entry {
	uint32_t inode;
	uint16_t rec_len;
	uint16_t name_len;
	char     name[EXT4_NAME_LEN];
};

struct ext4_dir_entry_2 {
	uint32_t inode;
	uint16_t rec_len;
	uint8_t  name_len;
	uint8_t  file_type;
	char     name[EXT4_NAME_LEN];
};

#define EXT4_FT_UNKNOWN		0
#define EXT4_FT_REG_FILE	1
#define EXT4_FT_DIR		2
#define EXT4_FT_CHRDEV		3
#define EXT4_FT_BLKDEV		4
#define EXT4_FT_FIFO		5
#define EXT4_FT_SOCK		6
#define EXT4_FT_SYMLINK		7
#define EXT4_FT_MAX		8
#define EXT4_FT_DIR_CSUM	0xDE

struct ext4_dir_entry_tail {
	uint32_t det_reserved_zero1;
	uint16_t det_rec_len;		/* 12 */
	uint8_t  det_reserved_zero2;
	uint8_t  det_reserved_ft;	/* 0xDE */
	uint32_t det_checksum;
};

/* htree (section 8.5) */
#define DX_HASH_LEGACY			0
#define DX_HASH_HALF_MD4		1
#define DX_HASH_TEA			2
#define DX_HASH_LEGACY_UNSIGNED		3
#define DX_HASH_HALF_MD4_UNSIGNED	4
#define DX_HASH_TEA_UNSIGNED		5
#define DX_HASH_SIPHASH			6

struct dx_root_info {
	uint32_t reserved_zero;
	uint8_t  hash_version;
	uint8_t  info_length;		/* 8 */
	uint8_t  indirect_levels;
	uint8_t  unused_flags;
};

struct dx_countlimit {
	uint16_t limit;
	uint16_t count;
};

struct dx_entry {
	uint32_t hash;
	uint32_t block;
};

struct dx_tail {
	uint32_t dt_reserved;
	uint32_t dt_checksum;
};

/* Extended attributes (section 9) */
#define EXT4_XATTR_MAGIC		0xEA020000
#define EXT4_XATTR_INDEX_USER			1
#define EXT4_XATTR_INDEX_POSIX_ACL_ACCESS	2
#define EXT4_XATTR_INDEX_POSIX_ACL_DEFAULT	3
#define EXT4_XATTR_INDEX_TRUSTED		4
#define EXT4_XATTR_INDEX_LUSTRE			5
#define EXT4_XATTR_INDEX_SECURITY		6
#define EXT4_XATTR_INDEX_SYSTEM			7
#define EXT4_XATTR_INDEX_RICHACL		8

struct ext4_xattr_header {
	uint32_t h_magic;
	uint32_t h_refcount;
	uint32_t h_blocks;
	uint32_t h_hash;
	uint32_t h_checksum;
	uint32_t h_reserved[3];
};

struct ext4_xattr_ibody_header {
	uint32_t h_magic;
};

struct ext4_xattr_entry {
	uint8_t  e_name_len;
	uint8_t  e_name_index;
	uint16_t e_value_offs;
	uint32_t e_value_inum;
	uint32_t e_value_size;
	uint32_t e_hash;
	char     e_name[];
};

#define EXT4_XATTR_PAD		4
#define EXT4_XATTR_ROUND	(EXT4_XATTR_PAD - 1)
#define EXT4_XATTR_LEN(name_len) \
	(((name_len) + EXT4_XATTR_ROUND + sizeof(struct ext4_xattr_entry)) & ~EXT4_XATTR_ROUND)
#define EXT4_XATTR_SIZE(size)	(((size) + EXT4_XATTR_ROUND) & ~EXT4_XATTR_ROUND)

/* Inline data (section 8.6) */
#define EXT4_MIN_INLINE_DATA_SIZE	60
#define EXT4_INLINE_DOTDOT_SIZE		4

/* Orphan file (section 6.8) */
#define EXT4_ORPHAN_BLOCK_MAGIC		0x0B10CA04
struct ext4_orphan_block_tail {
	uint32_t ob_magic;
	uint32_t ob_checksum;
};

/* MMP */
#define EXT4_MMP_MAGIC			0x004D4D50

#endif /* E4_EXT4_FS_H */
