/*
 * jbd2.h: the jbd2 journal's on-disk structures.  Every field is
 * BIG-endian on disk (read with e4_be32()); logged copies of filesystem
 * blocks are stored verbatim.  Layouts: ../shared/docs/ext4-format.md 11.
 */
#ifndef E4_JBD2_H
#define E4_JBD2_H

#include <stdint.h>

#define JBD2_MAGIC_NUMBER		0xC03B3998U

#define JBD2_DESCRIPTOR_BLOCK		1
#define JBD2_COMMIT_BLOCK		2
#define JBD2_SUPERBLOCK_V1		3
#define JBD2_SUPERBLOCK_V2		4
#define JBD2_REVOKE_BLOCK		5
#define JBD2_FC_BLOCK			6

typedef struct journal_header_s {
	uint32_t h_magic;
	uint32_t h_blocktype;
	uint32_t h_sequence;
} journal_header_t;

#define JBD2_FEATURE_COMPAT_CHECKSUM		0x00000001
#define JBD2_FEATURE_INCOMPAT_REVOKE		0x00000001
#define JBD2_FEATURE_INCOMPAT_64BIT		0x00000002
#define JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT	0x00000004
#define JBD2_FEATURE_INCOMPAT_CSUM_V2		0x00000008
#define JBD2_FEATURE_INCOMPAT_CSUM_V3		0x00000010
#define JBD2_FEATURE_INCOMPAT_FAST_COMMIT	0x00000020

#define JBD2_KNOWN_COMPAT_FEATURES	JBD2_FEATURE_COMPAT_CHECKSUM
#define JBD2_KNOWN_ROCOMPAT_FEATURES	0
#define JBD2_KNOWN_INCOMPAT_FEATURES \
	(JBD2_FEATURE_INCOMPAT_REVOKE | JBD2_FEATURE_INCOMPAT_64BIT | \
	 JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT | JBD2_FEATURE_INCOMPAT_CSUM_V2 | \
	 JBD2_FEATURE_INCOMPAT_CSUM_V3 | JBD2_FEATURE_INCOMPAT_FAST_COMMIT)

#define JBD2_CRC32_CHKSUM	1
#define JBD2_MD5_CHKSUM		2
#define JBD2_SHA1_CHKSUM	3
#define JBD2_CRC32C_CHKSUM	4
#define JBD2_CRC32_CHKSUM_SIZE	4
#define JBD2_CHECKSUM_BYTES	(32 / sizeof(uint32_t))

#define JBD2_USERS_MAX		48
#define JBD2_USERS_SIZE		(16 * JBD2_USERS_MAX)
#define JBD2_MIN_JOURNAL_BLOCKS	1024
#define JBD2_DEFAULT_FAST_COMMIT_BLOCKS 256

/* Journal superblock, 1024 bytes (section 11.2). */
typedef struct journal_superblock_s {
	journal_header_t s_header;		/* 0x00 */
	uint32_t s_blocksize;			/* 0x0C */
	uint32_t s_maxlen;
	uint32_t s_first;
	uint32_t s_sequence;			/* 0x18 */
	uint32_t s_start;
	int32_t  s_errno;			/* 0x20 */
	uint32_t s_feature_compat;
	uint32_t s_feature_incompat;
	uint32_t s_feature_ro_compat;
	uint8_t  s_uuid[16];			/* 0x30 */
	uint32_t s_nr_users;			/* 0x40 */
	uint32_t s_dynsuper;
	uint32_t s_max_transaction;
	uint32_t s_max_trans_data;
	uint8_t  s_checksum_type;		/* 0x50 */
	uint8_t  s_padding2[3];
	uint32_t s_num_fc_blks;			/* 0x54 */
	uint32_t s_head;			/* 0x58 */
	uint32_t s_padding[40];
	uint32_t s_checksum;			/* 0xFC */
	uint8_t  s_users[JBD2_USERS_SIZE];	/* 0x100 */
} journal_superblock_t;

/* Descriptor block tags (section 11.3) */
#define JBD2_FLAG_ESCAPE	1
#define JBD2_FLAG_SAME_UUID	2
#define JBD2_FLAG_DELETED	4
#define JBD2_FLAG_LAST_TAG	8

typedef struct journal_block_tag3_s {
	uint32_t t_blocknr;
	uint32_t t_flags;
	uint32_t t_blocknr_high;
	uint32_t t_checksum;
} journal_block_tag3_t;

typedef struct journal_block_tag_s {
	uint32_t t_blocknr;
	uint16_t t_checksum;
	uint16_t t_flags;
	uint32_t t_blocknr_high;
} journal_block_tag_t;

struct jbd2_journal_block_tail {
	uint32_t t_checksum;
};

/* Revoke block (section 11.4) */
typedef struct jbd2_journal_revoke_header_s {
	journal_header_t r_header;
	uint32_t r_count;	/* bytes used, header included */
} jbd2_journal_revoke_header_t;

/* Commit block (section 11.5) */
struct commit_header {
	uint32_t h_magic;
	uint32_t h_blocktype;
	uint32_t h_sequence;
	uint8_t  h_chksum_type;
	uint8_t  h_chksum_size;
	uint8_t  h_padding[2];
	uint32_t h_chksum[JBD2_CHECKSUM_BYTES];
	uint64_t h_commit_sec;
	uint32_t h_commit_nsec;
};

#endif /* E4_JBD2_H */
