/*
 * jbd2_int.h: the jbd2 log format rules shared by the log's reader
 * (recovery.c) and writer (jwrite.c): tag and tail sizes by feature, the
 * circular log area, the block and tag checksums.  Format doc section 11.
 */
#ifndef E4_JBD2_INT_H
#define E4_JBD2_INT_H

#include "e4_private.h"

/* Size of struct commit_header as the kernel lays it out (60 bytes of
 * fields padded to the alignment of h_commit_sec). */
#define JBD2_COMMIT_HEADER_BYTES	64

/* What a journal superblock's features mean for the log's blocks. */
struct e4_jbd2_fmt {
	unsigned bs;			/* journal block size, bytes */
	uint32_t first, last, maxlen;	/* log area [first, last); s_maxlen */
	int v1, v23, v3, is64, async, fc;
	unsigned tag_bytes;		/* one descriptor tag (section 11.3) */
	unsigned tail_bytes;		/* 4 with CSUM_V2/V3, else 0 */
	uint32_t seed;			/* crc32c(~0, s_uuid) */
};

/* Fill *f from jsb (big-endian fields; a v1 superblock has no features)
 * for blocks of bs bytes.  E4_ERR_JOURNAL_CORRUPT when the log area is
 * empty (s_first 0 or past the end; a fast-commit area leaving fewer than
 * 1024 log blocks, which the references refuse).  Section 11.6-11.7. */
errcode_t e4_jbd2_fmt_init(struct e4_jbd2_fmt *f, const journal_superblock_t *jsb, unsigned bs);
/* crc32c(seed, b[0..bs)) with the 4 bytes at off read as zero: the tail
 * of descriptor and revoke blocks (off = bs - 4), the v2/v3 commit block
 * (off = h_chksum).  CPU order.  Sections 11.3-11.5. */
uint32_t e4_jbd2_csum_hole(const struct e4_jbd2_fmt *f, const void *b, unsigned off);
/* v2/v3 tag checksum of a logged block as stored in the journal (after
 * escaping): crc32c(crc32c(seed, be32 tid), data[0..bs)), all 32 bits
 * (v2 keeps the low 16).  CPU order.  Section 11.3. */
uint32_t e4_jbd2_tag_csum(const struct e4_jbd2_fmt *f, const void *data, uint32_t tid);

/* The log position after blk, wrapping at the end of the log area. */
static inline uint32_t e4_jbd2_next(const struct e4_jbd2_fmt *f, uint32_t blk)
{
	blk++;
	return blk >= f->last ? blk - (f->last - f->first) : blk;
}

#endif /* E4_JBD2_INT_H */
