/*
 * jwrite.c: the jbd2 transaction writer (jwrite.h).  The block layouts
 * and checksums are those recovery.c reads (format doc section 11; the
 * shared rules in jbd2_fmt.c); the write order is the kernel's commit
 * (revoke blocks, descriptors with their data, commit block) with the
 * superblock steps of section 12.1 last.
 */
#include "jbd2_int.h"
#include "jwrite.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct jw_block {
	uint64_t blk;
	uint8_t *data;
};

struct e4_jwrite {
	e4_fs *fs;
	e4_journal *j;
	journal_superblock_t jsb;	/* as it will be written */
	struct e4_jbd2_fmt f;
	uint32_t head, tid;		/* next log block and tid */
	uint32_t used;			/* live log blocks, s_start up to head */
	int live;			/* the journal superblock points at the log */
	int jsb_dirty;			/* features changed, not yet written */
	uint64_t commit_sec;
	uint32_t commit_nsec;
	struct jw_block *blocks;
	size_t nblocks, cap;
	uint64_t *revokes;
	size_t nrevokes, rcap;
	uint8_t *buf;			/* one journal block */
	uint32_t crc32;			/* v1: running crc32_be of the transaction */
};

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put_header(uint8_t *b, uint32_t type, uint32_t tid)
{
	put_be32(b + offsetof(journal_header_t, h_magic), JBD2_MAGIC_NUMBER);
	put_be32(b + offsetof(journal_header_t, h_blocktype), type);
	put_be32(b + offsetof(journal_header_t, h_sequence), tid);
}

/* Apply opts' feature changes to w->jsb (section 11.2: at most one
 * checksum feature; v2/v3 need s_checksum_type crc32c). */
static errcode_t apply_features(e4_jwrite *w, const struct e4_jwrite_opts *o)
{
	const uint32_t csum_bits = JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3;
	const uint32_t allowed = JBD2_FEATURE_INCOMPAT_64BIT | JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT |
				 JBD2_FEATURE_INCOMPAT_REVOKE;
	journal_superblock_t *jsb = &w->jsb;
	uint32_t compat = e4_be32(jsb->s_feature_compat);
	uint32_t incompat = e4_be32(jsb->s_feature_incompat);
	uint32_t ocompat = compat, oincompat = incompat;

	if ((o->set_incompat | o->clear_incompat) & ~allowed)
		return E4_ERR_INVALID_ARGUMENT;
	if ((o->flags & E4_JWRITE_SET_CSUM) && (o->csum_version < 0 || o->csum_version > 3))
		return E4_ERR_INVALID_ARGUMENT;
	incompat = (incompat | o->set_incompat) & ~o->clear_incompat;
	if (o->flags & E4_JWRITE_SET_CSUM) {
		compat &= ~JBD2_FEATURE_COMPAT_CHECKSUM;
		incompat &= ~csum_bits;
		if (o->csum_version == 1)
			compat |= JBD2_FEATURE_COMPAT_CHECKSUM;
		else if (o->csum_version == 2)
			incompat |= JBD2_FEATURE_INCOMPAT_CSUM_V2;
		else if (o->csum_version == 3)
			incompat |= JBD2_FEATURE_INCOMPAT_CSUM_V3;
	}
	if (compat == ocompat && incompat == oincompat)
		return 0;
	if (e4_be32(jsb->s_header.h_blocktype) != JBD2_SUPERBLOCK_V2)
		return E4_ERR_JOURNAL_VERSION;
	if (jsb->s_start)
		return E4_ERR_JOURNAL_BUSY;
	jsb->s_feature_compat = e4_cpu_to_be32(compat);
	jsb->s_feature_incompat = e4_cpu_to_be32(incompat);
	jsb->s_checksum_type = (incompat & csum_bits) ? JBD2_CRC32C_CHKSUM : 0;
	w->jsb_dirty = 1;
	return 0;
}

struct tail_find {
	int seen;
	uint32_t after_commit, tid;
};

static int find_last_commit(const struct e4_jlog_item *it, void *priv)
{
	struct tail_find *t = priv;

	if (it->kind == E4_JLOG_COMMIT) {
		t->seen = 1;
		t->after_commit = it->jblk;
		t->tid = it->tid;
	}
	return 0;
}

/* A log holding transactions: continue after its last commit block. */
static errcode_t find_head(e4_jwrite *w)
{
	struct e4_jscan_result res;
	struct tail_find t = { 0, 0, 0 };
	uint32_t start = e4_be32(w->jsb.s_start), area = w->f.last - w->f.first;
	errcode_t err;

	err = e4_journal_scan(w->j, 0, find_last_commit, &t, &res);
	if (err)
		return err;
	if (res.outcome != E4_JSCAN_END)
		return E4_ERR_JOURNAL_LOG_CORRUPT;
	if (start < w->f.first || start >= w->f.last)
		return E4_ERR_JOURNAL_LOG_CORRUPT;
	if (t.seen) {
		w->head = e4_jbd2_next(&w->f, t.after_commit);
		w->tid = t.tid + 1;
	} else {
		w->head = start;
		w->tid = e4_be32(w->jsb.s_sequence);
	}
	w->used = (w->head + area - start) % area;
	/* a log filling the whole area: the head came round to s_start */
	if (!w->used && t.seen)
		w->used = area;
	w->live = 1;
	return 0;
}

errcode_t e4_jwrite_open(e4_fs *fs, const char *ext_path, const struct e4_jwrite_opts *opts,
			 e4_jwrite **ret)
{
	static const struct e4_jwrite_opts none;
	e4_jwrite *w;
	errcode_t err;

	*ret = NULL;
	if (!opts)
		opts = &none;
	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	w = calloc(1, sizeof(*w));
	if (!w)
		return E4_ERR_NO_MEMORY;
	w->fs = fs;
	w->commit_sec = opts->commit_sec;
	w->commit_nsec = opts->commit_nsec;
	err = e4_journal_open(fs, ext_path, &w->j);
	if (err)
		goto fail;
	w->jsb = *e4_journal_super(w->j);
	err = apply_features(w, opts);
	if (!err)
		err = e4_jbd2_fmt_init(&w->f, &w->jsb, e4_journal_blocksize(w->j));
	if (err)
		goto fail;
	w->buf = malloc(w->f.bs);
	if (!w->buf) {
		err = E4_ERR_NO_MEMORY;
		goto fail;
	}
	if (w->jsb.s_start) {
		err = find_head(w);
		if (err)
			goto fail;
	} else {
		if (opts->start && (opts->start < w->f.first || opts->start >= w->f.last)) {
			err = E4_ERR_INVALID_ARGUMENT;
			goto fail;
		}
		w->head = opts->start ? opts->start : w->f.first;
		w->tid = e4_be32(w->jsb.s_sequence);
	}
	*ret = w;
	return 0;
fail:
	w->jsb_dirty = 0;
	e4_jwrite_close(w);
	return err;
}

static size_t revokes_per_block(const e4_jwrite *w);
static size_t tags_per_block(const e4_jwrite *w);
static size_t div_up(size_t a, size_t b);

/* Log blocks a transaction of nrev revokes and nblk blocks takes. */
static size_t tx_blocks(const e4_jwrite *w, size_t nrev, size_t nblk, int commit)
{
	return div_up(nrev, revokes_per_block(w)) + div_up(nblk, tags_per_block(w)) + nblk +
	       !!commit;
}

/* Whether such a transaction fits in the free log space (one block stays
 * free, so that the end of the log never runs into its start). */
static int tx_fits(const e4_jwrite *w, size_t nrev, size_t nblk, int commit)
{
	return tx_blocks(w, nrev, nblk, commit) < (size_t)(w->f.last - w->f.first) - w->used;
}

/* A target block must be inside the filesystem (replay would write past
 * its end) and fit the tag size; the transaction, with its commit block,
 * must still fit in the log (so memory stays bounded by the journal). */
static errcode_t check_blk(const e4_jwrite *w, uint64_t blk, size_t nrev, size_t nblk)
{
	if (blk >= e4_geom(w->fs)->blocks_count || (!w->f.is64 && blk > 0xFFFFFFFFULL))
		return E4_ERR_BAD_BLOCK_NUM;
	return tx_fits(w, nrev, nblk, 1) ? 0 : E4_ERR_JOURNAL_FULL;
}

errcode_t e4_jwrite_add_block(e4_jwrite *w, uint64_t blk, const void *data)
{
	errcode_t err = check_blk(w, blk, w->nrevokes, w->nblocks + 1);
	uint8_t *copy;

	if (err)
		return err;
	if (w->nblocks == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 64;
		struct jw_block *nb = realloc(w->blocks, cap * sizeof(*nb));

		if (!nb)
			return E4_ERR_NO_MEMORY;
		w->blocks = nb;
		w->cap = cap;
	}
	copy = malloc(w->f.bs);
	if (!copy)
		return E4_ERR_NO_MEMORY;
	memcpy(copy, data, w->f.bs);
	w->blocks[w->nblocks].blk = blk;
	w->blocks[w->nblocks++].data = copy;
	return 0;
}

errcode_t e4_jwrite_add_revoke(e4_jwrite *w, uint64_t blk)
{
	errcode_t err = check_blk(w, blk, w->nrevokes + 1, w->nblocks);

	if (err)
		return err;
	if (w->nrevokes == w->rcap) {
		size_t cap = w->rcap ? w->rcap * 2 : 64;
		uint64_t *nr = realloc(w->revokes, cap * sizeof(*nr));

		if (!nr)
			return E4_ERR_NO_MEMORY;
		w->revokes = nr;
		w->rcap = cap;
	}
	w->revokes[w->nrevokes++] = blk;
	return 0;
}

void e4_jwrite_drop(e4_jwrite *w)
{
	for (size_t i = 0; i < w->nblocks; i++)
		free(w->blocks[i].data);
	w->nblocks = 0;
	w->nrevokes = 0;
}

/* Revoke records per revoke block: from byte 16 up to the tail. */
static size_t revokes_per_block(const e4_jwrite *w)
{
	unsigned rsize = w->f.is64 ? 8 : 4;

	return (w->f.bs - sizeof(jbd2_journal_revoke_header_t) - w->f.tail_bytes) / rsize;
}

/* Tags per descriptor block: the first tag is followed by a 16-byte UUID,
 * and the tags stop before the tail (section 11.3). */
static size_t tags_per_block(const e4_jwrite *w)
{
	unsigned off = sizeof(journal_header_t) + 16, limit = w->f.bs - w->f.tail_bytes;

	return (limit - off) / w->f.tag_bytes;
}

static size_t div_up(size_t a, size_t b)
{
	return (a + b - 1) / b;
}

/* Write buf at the head of the log and advance it. */
static errcode_t log_write(e4_jwrite *w, const void *buf)
{
	errcode_t err = e4_journal_write_block(w->j, w->head, buf);

	if (err)
		return err;
	w->head = e4_jbd2_next(&w->f, w->head);
	w->used++;
	return 0;
}

/* Fill in a descriptor or revoke block's checksum tail (v2/v3). */
static void set_tail(const e4_jwrite *w, uint8_t *b)
{
	if (w->f.v23)
		put_be32(b + w->f.bs - 4, e4_jbd2_csum_hole(&w->f, b, w->f.bs - 4));
}

static errcode_t write_revokes(e4_jwrite *w)
{
	unsigned rsize = w->f.is64 ? 8 : 4;
	size_t per = revokes_per_block(w), i = 0;
	errcode_t err;

	while (i < w->nrevokes) {
		unsigned off = sizeof(jbd2_journal_revoke_header_t);

		memset(w->buf, 0, w->f.bs);
		put_header(w->buf, JBD2_REVOKE_BLOCK, w->tid);
		for (size_t n = 0; n < per && i < w->nrevokes; n++, i++, off += rsize) {
			uint64_t blk = w->revokes[i];

			if (w->f.is64) {
				put_be32(w->buf + off, (uint32_t)(blk >> 32));
				put_be32(w->buf + off + 4, (uint32_t)blk);
			} else {
				put_be32(w->buf + off, (uint32_t)blk);
			}
		}
		put_be32(w->buf + offsetof(jbd2_journal_revoke_header_t, r_count), off);
		set_tail(w, w->buf);
		err = log_write(w, w->buf);
		if (err)
			return err;
	}
	return 0;
}

/* One tag at t for a block logged with flags (section 11.3). */
static void put_tag(const e4_jwrite *w, uint8_t *t, uint64_t blk, uint16_t flags, uint32_t csum)
{
	put_be32(t, (uint32_t)blk);
	if (w->f.v3) {
		put_be32(t + offsetof(journal_block_tag3_t, t_flags), flags);
		if (w->f.is64)
			put_be32(t + offsetof(journal_block_tag3_t, t_blocknr_high),
				 (uint32_t)(blk >> 32));
		put_be32(t + offsetof(journal_block_tag3_t, t_checksum), csum);
		return;
	}
	put_be16(t + offsetof(journal_block_tag_t, t_checksum), w->f.v23 ? (uint16_t)csum : 0);
	put_be16(t + offsetof(journal_block_tag_t, t_flags), flags);
	if (w->f.is64)
		put_be32(t + offsetof(journal_block_tag_t, t_blocknr_high), (uint32_t)(blk >> 32));
}

/* The logged copy of a block: escaped if it starts with the magic. */
static int escape(const e4_jwrite *w, const uint8_t *data, uint8_t *out)
{
	memcpy(out, data, w->f.bs);
	if (e4_be32(*(const uint32_t *)out) != JBD2_MAGIC_NUMBER)
		return 0;
	memset(out, 0, 4);
	return 1;
}

/* Descriptors, each followed by the blocks it describes. */
static errcode_t write_blocks(e4_jwrite *w)
{
	size_t per = tags_per_block(w), i = 0;
	uint8_t *copy = malloc(w->f.bs);
	errcode_t err = 0;

	if (!copy)
		return E4_ERR_NO_MEMORY;
	while (!err && i < w->nblocks) {
		size_t n = w->nblocks - i < per ? w->nblocks - i : per;
		unsigned off = sizeof(journal_header_t);

		memset(w->buf, 0, w->f.bs);
		put_header(w->buf, JBD2_DESCRIPTOR_BLOCK, w->tid);
		for (size_t k = 0; k < n; k++) {
			uint16_t fl = k ? JBD2_FLAG_SAME_UUID : 0;
			uint32_t csum = 0;

			if (escape(w, w->blocks[i + k].data, copy))
				fl |= JBD2_FLAG_ESCAPE;
			if (k == n - 1)
				fl |= JBD2_FLAG_LAST_TAG;
			if (w->f.v23)
				csum = e4_jbd2_tag_csum(&w->f, copy, w->tid);
			put_tag(w, w->buf + off, w->blocks[i + k].blk, fl, csum);
			off += w->f.tag_bytes;
			if (!k) {
				memcpy(w->buf + off, w->jsb.s_uuid, 16);
				off += 16;
			}
		}
		set_tail(w, w->buf);
		if (w->f.v1)
			w->crc32 = e4_crc32_be(w->crc32, w->buf, w->f.bs);
		err = log_write(w, w->buf);
		for (size_t k = 0; !err && k < n; k++) {
			escape(w, w->blocks[i + k].data, copy);
			if (w->f.v1)
				w->crc32 = e4_crc32_be(w->crc32, copy, w->f.bs);
			err = log_write(w, copy);
		}
		i += n;
	}
	free(copy);
	return err;
}

static errcode_t write_commit(e4_jwrite *w)
{
	uint8_t *b = w->buf;
	uint64_t sec = w->commit_sec;
	uint32_t nsec = w->commit_nsec;

	if (!sec) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		sec = (uint64_t)ts.tv_sec;
		nsec = (uint32_t)ts.tv_nsec;
	}
	memset(b, 0, w->f.bs);
	put_header(b, JBD2_COMMIT_BLOCK, w->tid);
	put_be32(b + offsetof(struct commit_header, h_commit_sec), (uint32_t)(sec >> 32));
	put_be32(b + offsetof(struct commit_header, h_commit_sec) + 4, (uint32_t)sec);
	put_be32(b + offsetof(struct commit_header, h_commit_nsec), nsec);
	if (w->f.v1) {
		b[offsetof(struct commit_header, h_chksum_type)] = JBD2_CRC32_CHKSUM;
		b[offsetof(struct commit_header, h_chksum_size)] = JBD2_CRC32_CHKSUM_SIZE;
		put_be32(b + offsetof(struct commit_header, h_chksum), w->crc32);
	} else if (w->f.v23) {
		put_be32(b + offsetof(struct commit_header, h_chksum),
			 e4_jbd2_csum_hole(&w->f, b, offsetof(struct commit_header, h_chksum)));
	}
	return log_write(w, b);
}

/* An ordering point between the steps: on the journal device, or (two
 * devices) everything written so far made durable. */
static errcode_t order(e4_jwrite *w, e4_io *io)
{
	if (e4_journal_is_external(w->j))
		return e4_io_flush(io);
	return e4_io_barrier(io);
}

/* First transaction of an empty log: needs_recovery, then the journal
 * superblock pointing at it (section 12.1: s_start with the flag clear is
 * discarded by the kernel, so the flag goes first). */
static errcode_t make_live(e4_jwrite *w, uint32_t start, uint32_t tid)
{
	e4_fs *fs = w->fs;
	errcode_t err = 0;

	if (!(e4_le32(fs->sb->s_feature_incompat) & EXT4_FEATURE_INCOMPAT_RECOVER)) {
		fs->sb->s_feature_incompat |= e4_cpu_to_le32(EXT4_FEATURE_INCOMPAT_RECOVER);
		err = e4_super_write(fs);
		if (!err)
			err = order(w, fs->io);
	}
	if (err)
		return err;
	w->jsb.s_start = e4_cpu_to_be32(start);
	w->jsb.s_sequence = e4_cpu_to_be32(tid);
	err = e4_journal_write_super(w->j, &w->jsb);
	if (!err) {
		w->live = 1;
		w->jsb_dirty = 0;
	}
	return err;
}

errcode_t e4_jwrite_commit(e4_jwrite *w, unsigned flags)
{
	uint32_t start = w->head, tid = w->tid, used = w->used;
	e4_io *io = e4_journal_io(w->j);
	errcode_t err;

	if (!tx_fits(w, w->nrevokes, w->nblocks, !(flags & E4_JWRITE_NO_COMMIT))) {
		e4_jwrite_drop(w);
		return E4_ERR_JOURNAL_FULL;
	}
	if (w->nrevokes && !(e4_be32(w->jsb.s_feature_incompat) & JBD2_FEATURE_INCOMPAT_REVOKE) &&
	    e4_be32(w->jsb.s_header.h_blocktype) == JBD2_SUPERBLOCK_V2) {
		w->jsb.s_feature_incompat |= e4_cpu_to_be32(JBD2_FEATURE_INCOMPAT_REVOKE);
		w->jsb_dirty = 1;
	}
	w->crc32 = ~0U;
	err = write_revokes(w);
	if (!err)
		err = write_blocks(w);
	if (!err)
		err = order(w, io);
	if (!err && !(flags & E4_JWRITE_NO_COMMIT)) {
		err = write_commit(w);
		if (!err)
			err = order(w, io);
	}
	e4_jwrite_drop(w);
	if (err) {
		/* what reached the log is not referenced: written over next */
		w->head = start;
		w->used = used;
		return err;
	}
	if (flags & E4_JWRITE_NO_COMMIT) {
		/* the next transaction is written over this one, as the
		 * reference debugfs does: an uncommitted transaction in the
		 * middle of the log would end recovery there */
		w->head = start;
		w->used = used;
	} else {
		w->tid++;
	}
	/* an uncommitted transaction does not make an empty log live (the
	 * reference debugfs leaves s_start 0 and needs_recovery clear) */
	if (!w->live && !(flags & E4_JWRITE_NO_COMMIT))
		return make_live(w, start, tid);
	if (w->jsb_dirty && w->live) {
		err = e4_journal_write_super(w->j, &w->jsb);
		if (!err)
			w->jsb_dirty = 0;
		return err;
	}
	return e4_io_flush(io);
}

errcode_t e4_jwrite_close(e4_jwrite *w)
{
	errcode_t err = 0;

	if (!w)
		return 0;
	e4_jwrite_drop(w);
	if (w->j && w->jsb_dirty)
		err = e4_journal_write_super(w->j, &w->jsb);
	if (w->j && !err)
		err = e4_io_flush(e4_journal_io(w->j));
	e4_journal_close(w->j);
	free(w->blocks);
	free(w->revokes);
	free(w->buf);
	free(w);
	return err;
}

uint32_t e4_jwrite_head(const e4_jwrite *w)
{
	return w->head;
}

uint32_t e4_jwrite_tid(const e4_jwrite *w)
{
	return w->tid;
}

e4_journal *e4_jwrite_journal(const e4_jwrite *w)
{
	return w->j;
}
