/*
 * jbd2_fmt.c: the log format rules the reader and the writer share
 * (jbd2_int.h; format doc section 11).
 */
#include "jbd2_int.h"

#include <string.h>

errcode_t e4_jbd2_fmt_init(struct e4_jbd2_fmt *f, const journal_superblock_t *jsb, unsigned bs)
{
	uint32_t compat = 0, incompat = 0;

	memset(f, 0, sizeof(*f));
	f->bs = bs;
	f->maxlen = e4_be32(jsb->s_maxlen);
	f->first = e4_be32(jsb->s_first);
	/* A v1 superblock has no feature fields (section 11.2). */
	if (e4_be32(jsb->s_header.h_blocktype) == JBD2_SUPERBLOCK_V2) {
		compat = e4_be32(jsb->s_feature_compat);
		incompat = e4_be32(jsb->s_feature_incompat);
	}
	f->v1 = !!(compat & JBD2_FEATURE_COMPAT_CHECKSUM);
	f->v3 = !!(incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3);
	f->v23 = f->v3 || (incompat & JBD2_FEATURE_INCOMPAT_CSUM_V2);
	f->is64 = !!(incompat & JBD2_FEATURE_INCOMPAT_64BIT);
	f->async = !!(incompat & JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT);
	f->fc = !!(incompat & JBD2_FEATURE_INCOMPAT_FAST_COMMIT);
	f->last = f->maxlen;
	if (f->fc) {
		uint32_t nfc = e4_be32(jsb->s_num_fc_blks);

		if (!nfc)
			nfc = JBD2_DEFAULT_FAST_COMMIT_BLOCKS;
		/* The references refuse a log shorter than 1024 blocks. */
		if (nfc >= f->maxlen || f->maxlen - nfc < JBD2_MIN_JOURNAL_BLOCKS)
			return E4_ERR_JOURNAL_CORRUPT;
		f->last = f->maxlen - nfc;
	}
	if (f->v3) {
		f->tag_bytes = sizeof(journal_block_tag3_t);
	} else {
		f->tag_bytes = sizeof(journal_block_tag_t);
		if (f->v23)
			f->tag_bytes += 2;
		if (!f->is64)
			f->tag_bytes -= 4;
	}
	f->tail_bytes = f->v23 ? sizeof(struct jbd2_journal_block_tail) : 0;
	f->seed = e4_crc32c(~0U, jsb->s_uuid, sizeof(jsb->s_uuid));
	if (f->first == 0 || f->first >= f->last)
		return E4_ERR_JOURNAL_CORRUPT;
	return 0;
}

uint32_t e4_jbd2_csum_hole(const struct e4_jbd2_fmt *f, const void *b, unsigned off)
{
	static const uint8_t zero[4];
	const uint8_t *p = b;
	uint32_t crc = e4_crc32c(f->seed, p, off);

	crc = e4_crc32c(crc, zero, 4);
	return e4_crc32c(crc, p + off + 4, f->bs - off - 4);
}

uint32_t e4_jbd2_tag_csum(const struct e4_jbd2_fmt *f, const void *data, uint32_t tid)
{
	uint8_t seq[4] = { tid >> 24, tid >> 16, tid >> 8, tid };
	uint32_t crc = e4_crc32c(f->seed, seq, 4);

	return e4_crc32c(crc, data, f->bs);
}
