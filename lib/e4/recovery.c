/*
 * recovery.c: jbd2 journal recovery (format doc section 12): the scan that
 * finds the end of the log, the revoke table, the replay of logged blocks
 * into the filesystem, and the superblock updates that follow.
 *
 * The three passes walk the log the same way the kernel and e2fsck do, so
 * that every journal -- including damaged ones -- is judged alike: same end
 * transaction, same blocks replayed, same error.  Where the references
 * disagree:
 *  - the log wraps at s_maxlen - fast-commit blocks (kernel; e2fsck 1.47
 *    wraps at s_maxlen);
 *  - a v2/v3 commit block whose checksum only covers its header (the rest
 *    never reached the disk) is accepted (kernel; e2fsck 1.47.0 calls the
 *    transaction corrupt);
 *  - revoke records of a transaction past the end of the log are never
 *    parsed (e2fsck; Linux 6.18 fails recovery on their r_count);
 *  - the fs superblock's error area and ERROR_FS survive a replayed older
 *    copy (kernel; e2fsck 1.47.0 keeps the replayed copy's);
 *  - a logged block aimed outside the filesystem is skipped and reported,
 *    never written (e2fsck writes past the end of an image file; the
 *    kernel stops the replay there).
 *
 * Bounds: every walk stops after 2 * s_maxlen journal blocks (a log that
 * long can only be a loop), tags and revoke records are parsed inside their
 * block, and the revoke table only grows with records actually read.
 */
#include "jbd2_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum rec_pass { PASS_SCAN, PASS_REVOKE, PASS_REPLAY };

#define COMMIT_HEADER_BYTES	JBD2_COMMIT_HEADER_BYTES
/* Superblock error-information area kept across a replay (section 12.7):
 * s_error_count up to, not including, s_mount_opts. */
#define SB_ERR_START		0x194
#define SB_ERR_END		0x200
/* First tag of an ext4 fast-commit area (le16 tag, le16 length, then
 * le32 features, le32 tid). */
#define FC_TAG_HEAD		0x0009

/* ---- revoke table ---------------------------------------------------- */

struct revoke_slot {
	uint64_t blk;
	uint32_t tid;
	uint32_t used;
};

struct e4_revoke_table {
	struct revoke_slot *slots;
	size_t mask;		/* capacity - 1, capacity a power of two */
	size_t count;
};

#define REVOKE_MIN_SLOTS	256
#define REVOKE_MAX_SLOTS	((size_t)1 << 31)

static size_t revoke_hash(uint64_t blk)
{
	/* 64-bit finaliser: block numbers are often sequential. */
	blk ^= blk >> 33;
	blk *= 0xff51afd7ed558ccdULL;
	blk ^= blk >> 33;
	blk *= 0xc4ceb9fe1a85ec53ULL;
	blk ^= blk >> 33;
	return (size_t)blk;
}

errcode_t e4_revoke_table_create(e4_revoke_table **ret)
{
	e4_revoke_table *t;

	*ret = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return E4_ERR_NO_MEMORY;
	t->slots = calloc(REVOKE_MIN_SLOTS, sizeof(*t->slots));
	if (!t->slots) {
		free(t);
		return E4_ERR_NO_MEMORY;
	}
	t->mask = REVOKE_MIN_SLOTS - 1;
	*ret = t;
	return 0;
}

void e4_revoke_table_free(e4_revoke_table *t)
{
	if (!t)
		return;
	free(t->slots);
	free(t);
}

size_t e4_revoke_table_count(const e4_revoke_table *t)
{
	return t->count;
}

static struct revoke_slot *revoke_find(const e4_revoke_table *t, uint64_t blk)
{
	size_t i = revoke_hash(blk) & t->mask;

	/* The table is never more than half full: the probe ends. */
	while (t->slots[i].used) {
		if (t->slots[i].blk == blk)
			return &t->slots[i];
		i = (i + 1) & t->mask;
	}
	return NULL;
}

static void revoke_insert_slot(struct revoke_slot *slots, size_t mask,
			       uint64_t blk, uint32_t tid)
{
	size_t i = revoke_hash(blk) & mask;

	while (slots[i].used)
		i = (i + 1) & mask;
	slots[i].blk = blk;
	slots[i].tid = tid;
	slots[i].used = 1;
}

static errcode_t revoke_grow(e4_revoke_table *t)
{
	size_t cap = t->mask + 1, ncap = cap * 2;
	struct revoke_slot *ns;

	if (ncap > REVOKE_MAX_SLOTS)
		return E4_ERR_NO_MEMORY;
	ns = calloc(ncap, sizeof(*ns));
	if (!ns)
		return E4_ERR_NO_MEMORY;
	for (size_t i = 0; i < cap; i++)
		if (t->slots[i].used)
			revoke_insert_slot(ns, ncap - 1, t->slots[i].blk, t->slots[i].tid);
	free(t->slots);
	t->slots = ns;
	t->mask = ncap - 1;
	return 0;
}

errcode_t e4_revoke_table_set(e4_revoke_table *t, uint64_t blk, uint32_t tid)
{
	struct revoke_slot *s = revoke_find(t, blk);
	errcode_t err;

	if (s) {
		/* Keep the latest revoking transaction (section 12.4). */
		if (e4_tid_gt(tid, s->tid))
			s->tid = tid;
		return 0;
	}
	if ((t->count + 1) * 2 > t->mask + 1) {
		err = revoke_grow(t);
		if (err)
			return err;
	}
	revoke_insert_slot(t->slots, t->mask, blk, tid);
	t->count++;
	return 0;
}

int e4_revoke_table_lookup(const e4_revoke_table *t, uint64_t blk, uint32_t *tid)
{
	const struct revoke_slot *s = revoke_find(t, blk);

	if (!s)
		return 0;
	if (tid)
		*tid = s->tid;
	return 1;
}

int e4_revoke_table_test(const e4_revoke_table *t, uint64_t blk, uint32_t tid)
{
	const struct revoke_slot *s = revoke_find(t, blk);

	/* A revoke covers its own transaction and every earlier one. */
	return s && e4_tid_geq(s->tid, tid);
}

/* ---- the log walker -------------------------------------------------- */

struct rec_ctx {
	e4_journal *j;
	e4_fs *fs;			/* replay target (PASS_REPLAY) */
	unsigned bs;
	uint32_t start, sequence;	/* s_start, s_sequence */
	struct e4_jbd2_fmt fmt;		/* log area, tag sizes, checksum seed */
	uint8_t *buf, *dbuf;		/* one journal block each */

	/* Carried from the scan to the other passes, with the references'
	 * convention that 0 means "not set" for both. */
	uint32_t end;
	uint32_t failed_commit;

	e4_revoke_table *revoke;
	unsigned flags;			/* E4_JSCAN_* */
	e4_jlog_cb cb;
	void *priv;
	int cb_ret;			/* nonzero: a callback stopped the walk */
	struct e4_jscan_result *scan;
	struct e4_jreplay_result *rep;
};

static errcode_t ctx_init(struct rec_ctx *c, e4_journal *j)
{
	const journal_superblock_t *jsb = e4_journal_super(j);
	errcode_t err;

	memset(c, 0, sizeof(*c));
	c->j = j;
	c->bs = e4_journal_blocksize(j);
	c->start = e4_be32(jsb->s_start);
	c->sequence = e4_be32(jsb->s_sequence);
	err = e4_jbd2_fmt_init(&c->fmt, jsb, c->bs);
	if (err)
		return err;
	if (c->fmt.maxlen > e4_journal_blocks(j))
		return E4_ERR_JOURNAL_CORRUPT;
	c->buf = malloc(c->bs);
	c->dbuf = malloc(c->bs);
	if (!c->buf || !c->dbuf)
		return E4_ERR_NO_MEMORY;
	return 0;
}

static void ctx_fini(struct rec_ctx *c)
{
	free(c->buf);
	free(c->dbuf);
	c->buf = c->dbuf = NULL;
}

static inline uint32_t get_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static inline uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint64_t get_be64(const uint8_t *p)
{
	return ((uint64_t)get_be32(p) << 32) | get_be32(p + 4);
}

static inline uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t get_le32(const uint8_t *p)
{
	return p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* Read journal block jblk.  Like the references, a position past the end
 * of the journal is a corrupt log, not a short read. */
static errcode_t jread(struct rec_ctx *c, uint64_t jblk, void *buf)
{
	if (jblk >= c->fmt.maxlen)
		return E4_ERR_JOURNAL_LOG_CORRUPT;
	return e4_journal_read_block(c->j, (uint32_t)jblk, buf);
}

/* Advance a log position by one block, wrapping at the end of the log. */
static inline uint64_t step(const struct rec_ctx *c, uint64_t blk)
{
	blk++;
	if (blk >= c->fmt.last)
		blk -= c->fmt.last - c->fmt.first;
	return blk;
}

/* Skip n blocks at once with a single wrap, as the scan and revoke passes
 * of the references do (a count larger than the log then points outside
 * it and fails the next read). */
static inline uint64_t skip(const struct rec_ctx *c, uint64_t blk, unsigned n)
{
	blk += n;
	if (blk >= c->fmt.last)
		blk -= c->fmt.last - c->fmt.first;
	return blk;
}

/* crc32c of a block with the 4 bytes at off treated as zero. */
static uint32_t csum_hole(const struct rec_ctx *c, const uint8_t *b, unsigned off)
{
	return e4_jbd2_csum_hole(&c->fmt, b, off);
}

/* Descriptor and revoke block tail (section 11.3); 1 without v2/v3. */
static int tail_ok(const struct rec_ctx *c, const uint8_t *b)
{
	unsigned off = c->bs - 4;

	if (!c->fmt.v23)
		return 1;
	return csum_hole(c, b, off) == get_be32(b + off);
}

static uint32_t commit_csum(const struct rec_ctx *c, const uint8_t *b)
{
	return csum_hole(c, b, offsetof(struct commit_header, h_chksum));
}

/* The commit checksum computed as if everything after the header were
 * zero: the kernel accepts a commit block whose tail never reached the
 * disk ("incomplete commit block"). */
static uint32_t commit_csum_partial(const struct rec_ctx *c, const uint8_t *b)
{
	static const uint8_t zero[1024];
	unsigned off = offsetof(struct commit_header, h_chksum), left;
	uint32_t crc = e4_crc32c(c->fmt.seed, b, off);

	crc = e4_crc32c(crc, zero, 4);
	crc = e4_crc32c(crc, b + off + 4, COMMIT_HEADER_BYTES - off - 4);
	for (left = c->bs - COMMIT_HEADER_BYTES; left; ) {
		unsigned n = left < sizeof(zero) ? left : (unsigned)sizeof(zero);

		crc = e4_crc32c(crc, zero, n);
		left -= n;
	}
	return crc;
}

static uint32_t tag_csum(const struct rec_ctx *c, const uint8_t *data, uint32_t tid)
{
	return e4_jbd2_tag_csum(&c->fmt, data, tid);
}

static uint32_t tag_stored_csum(const struct rec_ctx *c, const uint8_t *tag)
{
	if (c->fmt.v3)
		return get_be32(tag + offsetof(journal_block_tag3_t, t_checksum));
	return get_be16(tag + offsetof(journal_block_tag_t, t_checksum));
}

/* 1 if the logged block matches its tag checksum (always without v2/v3). */
static int tag_ok(const struct rec_ctx *c, const uint8_t *tag, const uint8_t *data,
		  uint32_t tid, uint32_t *computed)
{
	uint32_t crc;

	if (!c->fmt.v23)
		return 1;
	crc = tag_csum(c, data, tid);
	if (!c->fmt.v3)
		crc &= 0xFFFF;
	if (computed)
		*computed = crc;
	return crc == tag_stored_csum(c, tag);
}

/* The flags are the low half of a big-endian word in both tag forms, so
 * a be16 at offset 6 reads them (section 11.3). */
static inline uint16_t tag_flags(const uint8_t *tag)
{
	return get_be16(tag + 6);
}

static inline uint64_t tag_block(const struct rec_ctx *c, const uint8_t *tag)
{
	uint64_t blk = get_be32(tag);

	if (c->fmt.is64)
		blk |= (uint64_t)get_be32(tag + 8) << 32;
	return blk;
}

/* Number of tags in a descriptor: up to the LAST_TAG one or until the next
 * tag would not fit before the tail. */
static unsigned count_tags(const struct rec_ctx *c, const uint8_t *b)
{
	unsigned off = sizeof(journal_header_t), n = 0;
	unsigned limit = c->bs - c->fmt.tail_bytes;

	while (off + c->fmt.tag_bytes <= limit) {
		uint16_t fl = tag_flags(b + off);

		n++;
		off += c->fmt.tag_bytes;
		if (!(fl & JBD2_FLAG_SAME_UUID))
			off += 16;
		if (fl & JBD2_FLAG_LAST_TAG)
			break;
	}
	return n;
}

static int emit(struct rec_ctx *c, const struct e4_jlog_item *it)
{
	if (!c->cb || c->cb_ret)
		return c->cb_ret;
	c->cb_ret = c->cb(it, c->priv);
	return c->cb_ret;
}

/* Report a descriptor block and its tags during the scan. */
static void emit_descriptor(struct rec_ctx *c, uint32_t jblk, uint64_t next,
			    uint32_t tid, int tail_good)
{
	struct e4_jlog_item it;
	unsigned off = sizeof(journal_header_t), limit = c->bs - c->fmt.tail_bytes, idx = 0;

	memset(&it, 0, sizeof(it));
	it.kind = E4_JLOG_DESCRIPTOR;
	it.tid = tid;
	it.jblk = jblk;
	it.csum = c->fmt.v23 ? (tail_good ? E4_JCSUM_OK : E4_JCSUM_BAD) : E4_JCSUM_NONE;
	if (c->fmt.v23)
		it.csum_stored = get_be32(c->buf + c->bs - 4);
	it.count = count_tags(c, c->buf);
	if (emit(c, &it))
		return;
	while (off + c->fmt.tag_bytes <= limit) {
		const uint8_t *tag = c->buf + off;

		memset(&it, 0, sizeof(it));
		it.kind = E4_JLOG_TAG;
		it.tid = tid;
		it.jblk = (uint32_t)next;
		it.index = idx++;
		it.fs_block = tag_block(c, tag);
		it.tag_flags = tag_flags(tag);
		it.csum = E4_JCSUM_NONE;
		if (c->fmt.v23) {
			it.csum_stored = tag_stored_csum(c, tag);
			it.csum = E4_JCSUM_UNCHECKED;
			if (c->flags & E4_JSCAN_VERIFY_TAGS) {
				if (jread(c, next, c->dbuf))
					it.csum = E4_JCSUM_UNREADABLE;
				else
					it.csum = tag_ok(c, tag, c->dbuf, tid, &it.csum_computed) ?
						  E4_JCSUM_OK : E4_JCSUM_BAD;
			}
		}
		if (emit(c, &it))
			return;
		next = step(c, next);
		off += c->fmt.tag_bytes;
		if (!(it.tag_flags & JBD2_FLAG_SAME_UUID))
			off += 16;
		if (it.tag_flags & JBD2_FLAG_LAST_TAG)
			break;
	}
}

/* r_count check of a revoke block: 1 if usable. */
static int revoke_count_ok(const struct rec_ctx *c, uint32_t rcount)
{
	return rcount <= c->bs - c->fmt.tail_bytes;
}

static void emit_revoke(struct rec_ctx *c, uint32_t jblk, uint32_t tid, int tail_good)
{
	struct e4_jlog_item it;
	uint32_t rcount = get_be32(c->buf + offsetof(jbd2_journal_revoke_header_t, r_count));
	unsigned rlen = c->fmt.is64 ? 8 : 4, off = sizeof(jbd2_journal_revoke_header_t), idx = 0;
	int ok = revoke_count_ok(c, rcount);

	memset(&it, 0, sizeof(it));
	it.kind = E4_JLOG_REVOKE;
	it.tid = tid;
	it.jblk = jblk;
	it.csum = c->fmt.v23 ? (tail_good ? E4_JCSUM_OK : E4_JCSUM_BAD) : E4_JCSUM_NONE;
	if (c->fmt.v23)
		it.csum_stored = get_be32(c->buf + c->bs - 4);
	it.r_count = rcount;
	it.r_count_bad = !ok;
	if (ok && rcount >= off)
		it.count = (rcount - off) / rlen;
	if (emit(c, &it) || !ok)
		return;
	for (; off + rlen <= rcount; off += rlen) {
		memset(&it, 0, sizeof(it));
		it.kind = E4_JLOG_REVOKE_RECORD;
		it.tid = tid;
		it.jblk = jblk;
		it.index = idx++;
		it.fs_block = rlen == 8 ? get_be64(c->buf + off) : get_be32(c->buf + off);
		if (emit(c, &it))
			return;
	}
}

static errcode_t scan_revoke_records(struct rec_ctx *c, uint32_t tid)
{
	uint32_t rcount = get_be32(c->buf + offsetof(jbd2_journal_revoke_header_t, r_count));
	unsigned rlen = c->fmt.is64 ? 8 : 4, off = sizeof(jbd2_journal_revoke_header_t);
	errcode_t err;

	if (!revoke_count_ok(c, rcount))
		return E4_ERR_JOURNAL_LOG_CORRUPT;
	for (; off + rlen <= rcount; off += rlen) {
		uint64_t blk = rlen == 8 ? get_be64(c->buf + off) : get_be32(c->buf + off);

		err = e4_revoke_table_set(c->revoke, blk, tid);
		if (err)
			return err;
		c->rep->revoke_records++;
	}
	return 0;
}

/* Replay the tags of the descriptor in c->buf; *next is the log position
 * of its first data block.  Problems with single blocks (unreadable, bad
 * tag checksum, target outside the filesystem) skip the block and set
 * *deferred; the return value is an error that stops the pass. */
static errcode_t replay_tags(struct rec_ctx *c, uint64_t *next, uint32_t tid,
			     uint64_t *consumed, uint64_t budget, errcode_t *deferred)
{
	unsigned off = sizeof(journal_header_t), limit = c->bs - c->fmt.tail_bytes, idx = 0;
	uint64_t fs_blocks = e4_geom(c->fs)->blocks_count;
	e4_io *io = e4_fs_io(c->fs);
	errcode_t err;

	while (off + c->fmt.tag_bytes <= limit) {
		const uint8_t *tag = c->buf + off;
		uint16_t fl = tag_flags(tag);
		uint64_t io_blk = *next;
		struct e4_jlog_item it;

		if (++*consumed > budget)
			return E4_ERR_JOURNAL_LOG_CORRUPT;
		*next = step(c, *next);
		memset(&it, 0, sizeof(it));
		it.kind = E4_JLOG_TAG;
		it.tid = tid;
		it.jblk = (uint32_t)io_blk;
		it.index = idx++;
		it.fs_block = tag_block(c, tag);
		it.tag_flags = fl;
		it.csum = c->fmt.v23 ? E4_JCSUM_UNCHECKED : E4_JCSUM_NONE;
		err = jread(c, io_blk, c->dbuf);
		if (err) {
			/* Recover what can be, report the failure at the end. */
			if (!*deferred)
				*deferred = err;
			it.action = E4_JACT_READ_ERROR;
			c->rep->read_errors++;
		} else if (e4_revoke_table_test(c->revoke, it.fs_block, tid)) {
			it.action = E4_JACT_REVOKED;
			c->rep->revoked++;
		} else if (!tag_ok(c, tag, c->dbuf, tid, &it.csum_computed)) {
			it.csum = E4_JCSUM_BAD;
			it.csum_stored = tag_stored_csum(c, tag);
			it.action = E4_JACT_BAD_CSUM;
			c->rep->bad_csum++;
			if (!*deferred)
				*deferred = E4_ERR_JOURNAL_CHECKSUM;
		} else if (it.fs_block >= fs_blocks) {
			if (c->fmt.v23)
				it.csum = E4_JCSUM_OK;
			it.action = E4_JACT_OUT_OF_RANGE;
			c->rep->out_of_range++;
			if (!*deferred)
				*deferred = E4_ERR_JOURNAL_BLOCK_RANGE;
		} else {
			if (c->fmt.v23)
				it.csum = E4_JCSUM_OK;
			if (fl & JBD2_FLAG_ESCAPE) {
				uint32_t magic = e4_cpu_to_be32(JBD2_MAGIC_NUMBER);

				memcpy(c->dbuf, &magic, 4);
			}
			err = e4_io_write_blk(io, it.fs_block, 1, c->dbuf);
			if (err)
				return err;
			it.action = E4_JACT_WRITTEN;
			c->rep->replayed++;
		}
		if (emit(c, &it))
			return 0;
		off += c->fmt.tag_bytes;
		if (!(fl & JBD2_FLAG_SAME_UUID))
			off += 16;
		if (fl & JBD2_FLAG_LAST_TAG)
			break;
	}
	return 0;
}

/* Look at the fast-commit area after the scan (section 11.7): count the
 * blocks holding records for the transaction after the last full commit.
 * Nothing there is replayed by libe4. */
static void scan_fc_area(struct rec_ctx *c)
{
	struct e4_jscan_result *r = c->scan;

	for (uint64_t b = (uint64_t)c->fmt.last + 1; b < c->fmt.maxlen; b++) {
		struct e4_jlog_item it;
		uint16_t tag, len;

		if (jread(c, b, c->dbuf))
			break;
		tag = get_le16(c->dbuf);
		len = get_le16(c->dbuf + 2);
		if (tag == 0)
			break;
		if (b == (uint64_t)c->fmt.last + 1) {
			/* The area starts with a HEAD tag: features, tid. */
			if (tag != FC_TAG_HEAD || len < 8)
				break;
			r->fc_tid = get_le32(c->dbuf + 8);
		}
		r->fc_blocks++;
		memset(&it, 0, sizeof(it));
		it.kind = E4_JLOG_FC;
		it.tid = r->fc_tid;
		it.jblk = (uint32_t)b;
		it.fc_tag = tag;
		it.fc_len = len;
		if (emit(c, &it))
			return;
	}
	r->fc_pending = r->fc_blocks && r->fc_tid == c->end;
}

/*
 * One pass over the log (sections 12.3-12.5).  The scan pass decides
 * c->end and c->failed_commit; the other two stop at c->end.  A "break"
 * out of the per-type handling below goes on reading with the same
 * expected tid, as the references do.
 */
static errcode_t do_pass(struct rec_ctx *c, enum rec_pass pass)
{
	struct e4_jscan_result *r = c->scan;
	uint32_t tid = c->sequence;
	uint64_t blk = c->start, consumed = 0, budget = 2 * (uint64_t)c->fmt.maxlen;
	uint64_t last_time = 0, commit_time;
	uint32_t crc = ~0U;
	int need_check = 0, stale = 0;
	errcode_t result = 0, err;

	for (;;) {
		uint64_t this_blk = blk;
		const journal_header_t *h = (const journal_header_t *)c->buf;
		uint32_t type, seq;
		int good;

		if (pass != PASS_SCAN && e4_tid_geq(tid, c->end))
			break;
		if (c->cb_ret)
			return 0;
		if (++consumed > budget)
			return E4_ERR_JOURNAL_LOG_CORRUPT;
		err = jread(c, blk, c->buf);
		if (err) {
			if (pass == PASS_SCAN)
				r->bad_block = (uint32_t)blk;
			return err;
		}
		blk = step(c, blk);
		type = e4_be32(h->h_blocktype);
		seq = e4_be32(h->h_sequence);
		if (e4_be32(h->h_magic) != JBD2_MAGIC_NUMBER || seq != tid) {
			if (pass == PASS_SCAN) {
				r->end_block = (uint32_t)this_blk;
				r->end_magic = e4_be32(h->h_magic) == JBD2_MAGIC_NUMBER;
				r->end_blocktype = type;
				r->end_sequence = seq;
			}
			break;
		}

		switch (type) {
		case JBD2_DESCRIPTOR_BLOCK:
			good = tail_ok(c, c->buf);
			if (!good) {
				/* Stale blocks of a lazily initialised journal
				 * are possible: the scan defers judgement to
				 * the commit time; later passes cannot. */
				if (pass != PASS_SCAN)
					return E4_ERR_JOURNAL_CHECKSUM;
				if (!need_check)
					r->bad_block = (uint32_t)this_blk;
				need_check = 1;
			}
			if (pass == PASS_SCAN) {
				r->descriptors++;
				r->tags += count_tags(c, c->buf);
				emit_descriptor(c, (uint32_t)this_blk, blk, tid, good);
			}
			if (pass == PASS_REPLAY) {
				err = replay_tags(c, &blk, tid, &consumed, budget, &result);
				if (err)
					return err;
				continue;
			}
			if (pass == PASS_SCAN && c->fmt.v1 && !need_check && !c->end) {
				unsigned n = count_tags(c, c->buf);

				/* v1: fold the descriptor and its data blocks
				 * into the running transaction checksum. */
				crc = e4_crc32_be(crc, c->buf, c->bs);
				consumed += n;
				if (consumed > budget)
					return E4_ERR_JOURNAL_LOG_CORRUPT;
				for (unsigned i = 0; i < n; i++) {
					uint64_t io_blk = blk;

					blk = step(c, blk);
					if (jread(c, io_blk, c->dbuf))
						break;
					crc = e4_crc32_be(crc, c->dbuf, c->bs);
				}
				continue;
			}
			{
				unsigned n = count_tags(c, c->buf);

				consumed += n;
				if (consumed > budget)
					return E4_ERR_JOURNAL_LOG_CORRUPT;
				blk = skip(c, blk, n);
			}
			continue;

		case JBD2_COMMIT_BLOCK: {
			const struct commit_header *ch = (const struct commit_header *)c->buf;
			uint32_t found = e4_be32(ch->h_chksum[0]);
			struct e4_jlog_item it;
			int bad = 0;

			commit_time = e4_be64(ch->h_commit_sec);
			memset(&it, 0, sizeof(it));
			it.kind = E4_JLOG_COMMIT;
			it.tid = tid;
			it.jblk = (uint32_t)this_blk;
			it.chksum_type = ch->h_chksum_type;
			it.chksum_size = ch->h_chksum_size;
			it.csum_stored = found;
			it.commit_sec = commit_time;
			it.commit_nsec = e4_be32(ch->h_commit_nsec);
			it.csum = E4_JCSUM_NONE;
			if (need_check) {
				/* A block of this transaction failed its
				 * checksum: a commit not older than the
				 * previous one means real corruption. */
				if (pass == PASS_SCAN) {
					it.csum = E4_JCSUM_UNCHECKED;
					r->commits++;
					emit(c, &it);
				}
				if (commit_time >= last_time) {
					r->failed_tid = tid;
					return E4_ERR_JOURNAL_CHECKSUM;
				}
				stale = 1;
				goto done;
			}
			if (pass == PASS_SCAN && c->fmt.v1) {
				it.csum_computed = crc;
				if (c->end) {
					/* An earlier commit failed under
					 * ASYNC_COMMIT and a later one exists. */
					c->failed_commit = c->end;
					it.csum = E4_JCSUM_UNCHECKED;
					r->commits++;
					emit(c, &it);
					break;
				}
				if ((crc == found && ch->h_chksum_type == JBD2_CRC32_CHKSUM &&
				     ch->h_chksum_size == JBD2_CRC32_CHKSUM_SIZE) ||
				    (ch->h_chksum_type == 0 && ch->h_chksum_size == 0 && found == 0)) {
					it.csum = E4_JCSUM_OK;
					crc = ~0U;
				} else {
					it.csum = E4_JCSUM_BAD;
					bad = 1;
				}
			}
			if (pass == PASS_SCAN && c->fmt.v23) {
				it.csum_computed = commit_csum(c, c->buf);
				if (it.csum_computed == found) {
					it.csum = E4_JCSUM_OK;
				} else if (commit_csum_partial(c, c->buf) == found) {
					it.csum = E4_JCSUM_PARTIAL;
				} else {
					it.csum = E4_JCSUM_BAD;
					bad = 1;
				}
			}
			if (pass == PASS_SCAN) {
				r->commits++;
				emit(c, &it);
			}
			if (bad) {
				if (commit_time < last_time) {
					stale = 1;
					goto done;
				}
				c->end = tid;
				r->bad_commit_tid = tid;
				r->bad_commit = 1;
				if (!c->fmt.async) {
					c->failed_commit = tid;
					break;
				}
			}
			if (pass == PASS_SCAN) {
				last_time = commit_time;
				r->last_commit_sec = commit_time;
			}
			tid++;
			continue;
		}

		case JBD2_REVOKE_BLOCK:
			good = tail_ok(c, c->buf);
			if (pass == PASS_SCAN) {
				if (!good) {
					if (!need_check)
						r->bad_block = (uint32_t)this_blk;
					need_check = 1;
				}
				r->revoke_blocks++;
				emit_revoke(c, (uint32_t)this_blk, tid, good);
			}
			if (pass != PASS_REVOKE)
				continue;
			err = scan_revoke_records(c, tid);
			if (err) {
				r->bad_block = (uint32_t)this_blk;
				return err;
			}
			continue;

		default:
			if (pass == PASS_SCAN) {
				r->end_block = (uint32_t)this_blk;
				r->end_magic = 1;
				r->end_blocktype = type;
				r->end_sequence = seq;
			}
			goto done;
		}
		/* Reached by a "break" out of the switch: keep reading. */
	}
done:
	if (pass == PASS_SCAN) {
		r->stale = stale;
		if (!c->end)
			c->end = tid;
		if (c->fmt.fc)
			scan_fc_area(c);
	} else if (c->end != tid && !result) {
		/* The passes disagree about the end of the log. */
		result = E4_ERR_JOURNAL_LOG_CORRUPT;
	}
	return result;
}

static enum e4_jscan_outcome scan_outcome(const struct rec_ctx *c, errcode_t err)
{
	const struct e4_jscan_result *r = c->scan;

	if (err == E4_ERR_JOURNAL_CHECKSUM)
		return E4_JSCAN_CSUM_ERROR;
	if (err == E4_ERR_JOURNAL_LOG_CORRUPT)
		return E4_JSCAN_CORRUPT;
	if (err)
		return E4_JSCAN_READ_ERROR;
	/* Transaction 0 cannot be reported as failed: the references use 0
	 * for "no failed commit" (section 12.3). */
	if (c->failed_commit)
		return E4_JSCAN_FAILED_COMMIT;
	if (r->bad_commit)
		return E4_JSCAN_ASYNC_END;
	if (r->stale)
		return E4_JSCAN_STALE;
	return E4_JSCAN_END;
}

/* Run the scan pass on an initialised context. */
static errcode_t run_scan(struct rec_ctx *c)
{
	struct e4_jscan_result *r = c->scan;
	errcode_t err;

	memset(r, 0, sizeof(*r));
	r->start_tid = c->sequence;
	r->start_block = c->start;
	r->log_first = c->fmt.first;
	r->log_last = c->fmt.last;
	if (!c->start) {
		/* Clean journal: the next transaction is s_sequence + 1. */
		c->end = c->sequence;
		r->end_tid = c->sequence;
		r->outcome = E4_JSCAN_EMPTY;
		return 0;
	}
	err = do_pass(c, PASS_SCAN);
	if (c->cb_ret)
		return c->cb_ret;
	r->outcome = scan_outcome(c, err);
	if (err)
		c->end = c->sequence;	/* nothing can be replayed */
	r->end_tid = c->end;
	r->failed_commit = c->failed_commit != 0;
	if (c->failed_commit)
		r->failed_tid = c->failed_commit;
	r->transactions = c->end - c->sequence;
	return err;
}

errcode_t e4_journal_scan(e4_journal *j, unsigned flags, e4_jlog_cb cb, void *priv,
			  struct e4_jscan_result *res)
{
	struct rec_ctx c;
	errcode_t err;

	memset(res, 0, sizeof(*res));
	err = ctx_init(&c, j);
	if (!err) {
		c.flags = flags;
		c.cb = cb;
		c.priv = priv;
		c.scan = res;
		err = run_scan(&c);
	}
	ctx_fini(&c);
	return err;
}

errcode_t e4_journal_replay(e4_fs *fs, e4_journal *j, e4_jlog_cb cb, void *priv,
			    struct e4_jreplay_result *res)
{
	struct rec_ctx c;
	errcode_t err, err2;

	memset(res, 0, sizeof(*res));
	if (!(e4_open_flags(fs) & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (e4_journal_blocksize(j) != e4_geom(fs)->block_size)
		return E4_ERR_JOURNAL_CORRUPT;
	err = ctx_init(&c, j);
	if (err)
		goto out;
	c.fs = fs;
	c.scan = &res->scan;
	c.rep = res;
	err = run_scan(&c);	/* the callback sees replay items only */
	if (err || !c.start)
		goto out;
	c.cb = cb;
	c.priv = priv;
	err = e4_revoke_table_create(&c.revoke);
	if (err)
		goto out;
	err = do_pass(&c, PASS_REVOKE);
	if (!err && !c.cb_ret)
		err = do_pass(&c, PASS_REPLAY);
	if (c.cb_ret) {
		res->aborted = 1;
		if (!err)
			err = c.cb_ret;
	}
	res->revoke_table_size = e4_revoke_table_count(c.revoke);
	/* Whatever was replayed goes to disk, even after an error. */
	err2 = e4_io_flush(e4_fs_io(fs));
	if (!err)
		err = err2;
out:
	e4_revoke_table_free(c.revoke);
	ctx_fini(&c);
	res->error = err;
	return err;
}

/* ---- after the replay (section 12.7) --------------------------------- */

errcode_t e4_journal_errno_to_fs(e4_fs *fs, e4_journal *j, int *carried)
{
	journal_superblock_t jsb = *e4_journal_super(j);
	struct ext4_super_block *sb = e4_super(fs);
	errcode_t err;

	if (carried)
		*carried = 0;
	if (!jsb.s_errno)
		return 0;
	if (!(e4_open_flags(fs) & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	/* Record the error in the filesystem first, then forget it in the
	 * journal, so that a crash in between loses nothing. */
	e4_sb_state_change(sb, EXT4_ERROR_FS, 0);
	err = e4_super_write(fs);
	if (!err)
		err = e4_io_flush(e4_fs_io(fs));
	if (err)
		return err;
	jsb.s_errno = 0;
	err = e4_journal_write_super(j, &jsb);
	if (err)
		return err;
	if (carried)
		*carried = 1;
	return 0;
}

/* Read the primary superblock as it is on disk now into fs's copy. */
static errcode_t reread_super(e4_fs *fs)
{
	unsigned bs = e4_geom(fs)->block_size;
	uint8_t *blk = malloc(bs);
	errcode_t err;

	if (!blk)
		return E4_ERR_NO_MEMORY;
	err = e4_io_read_blk(e4_fs_io(fs), EXT4_SUPERBLOCK_OFFSET / bs, 1, blk);
	if (!err)
		memcpy(e4_super(fs), blk + EXT4_SUPERBLOCK_OFFSET % bs, EXT4_SUPERBLOCK_SIZE);
	free(blk);
	return err;
}

errcode_t e4_journal_recover(e4_fs *fs, e4_journal *j, e4_jlog_cb cb, void *priv,
			     struct e4_jrecover_result *res)
{
	struct ext4_super_block *sb = e4_super(fs), before;
	journal_superblock_t jsb;
	unsigned bs = e4_geom(fs)->block_size;
	errcode_t err, rec_err;
	uint16_t state;

	memset(res, 0, sizeof(*res));
	if (!(e4_open_flags(fs) & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	memcpy(&before, sb, sizeof(before));

	rec_err = e4_journal_replay(fs, j, cb, priv, &res->replay);
	res->error = rec_err;
	/* Nothing decided, or the device failed us (a block of the log or
	 * of the filesystem could not be read or written): leave the journal
	 * as it is.  What was replayed is replayed again by the next run. */
	if (res->replay.aborted || rec_err == E4_ERR_NO_MEMORY ||
	    rec_err == E4_ERR_READ_ONLY || e4_err_is_io(rec_err) ||
	    res->replay.scan.outcome == E4_JSCAN_NONE)
		return rec_err;

	/* The journal is empty from now on.  After a successful recovery the
	 * next tid is the end of the log + 1 (last replayed tid + 2); after a
	 * failure s_sequence is kept, as e2fsck does. */
	jsb = *e4_journal_super(j);
	if (!rec_err)
		jsb.s_sequence = e4_cpu_to_be32(res->replay.scan.end_tid + 1);
	jsb.s_start = 0;
	if (!rec_err && res->replay.scan.failed_commit)
		jsb.s_errno = (int32_t)e4_cpu_to_be32((uint32_t)-EINVAL);
	res->new_sequence = e4_be32(jsb.s_sequence);
	err = e4_journal_write_super(j, &jsb);
	if (err)
		goto out;

	/* The filesystem superblock as the replay left it. */
	err = reread_super(fs);
	if (err)
		goto out;
	res->sb_replayed = memcmp(sb, &before, sizeof(before)) != 0;
	/* An older superblock copy from the log must not lose the error
	 * information recorded since, nor ERROR_FS (the kernel's rule). */
	memcpy((uint8_t *)sb + SB_ERR_START, (uint8_t *)&before + SB_ERR_START,
	       SB_ERR_END - SB_ERR_START);
	state = e4_le16(sb->s_state) | (e4_le16(before.s_state) & EXT4_ERROR_FS);
	/* A failed recovery forces a full check. */
	if (rec_err)
		state &= ~EXT4_VALID_FS;
	sb->s_state = e4_cpu_to_le16(state);
	e4_sb_feature_change(sb, E4_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_RECOVER, 0);
	/* Bytes written to the filesystem device: the replayed blocks and,
	 * for an internal journal, its superblock.  0 means "not tracked"
	 * (e2fsck's rule). */
	if (sb->s_kbytes_written) {
		uint64_t bytes = res->replay.replayed * bs;
		e4_blk_t jsb_blk;

		if (!e4_journal_bmap(j, 0, &jsb_blk) && jsb_blk)
			bytes += bs;
		e4_sb_add_kbytes_written(sb, bytes >> 10);
	}
	err = e4_super_validate(sb, e4_io_size(e4_fs_io(fs)));
	if (err) {
		/* The log held no usable superblock: keep the old one. */
		memcpy(sb, &before, sizeof(before));
		goto out;
	}
	err = e4_super_write(fs);
	if (!err)
		err = e4_io_flush(e4_fs_io(fs));
	if (err)
		goto out;

	/* s_errno (set above for a failed commit, or left by a journal
	 * abort) becomes ERROR_FS in the filesystem. */
	err = e4_journal_errno_to_fs(fs, j, &res->errno_carried);
	if (err)
		goto out;

	/*
	 * HOOK: what comes next belongs to the caller, after reopening the
	 * filesystem (descriptors, bitmaps and geometry cached in fs are
	 * stale): recompute the summary counts (the kernel does not journal
	 * s_free_* on every change, section 12.7) and process the orphan
	 * list / orphan file.  counts_stale says whether blocks were written.
	 */
	res->counts_stale = res->replay.replayed != 0;
	res->fc_not_replayed = res->replay.scan.fc_pending;
out:
	if (err)
		res->error = err;
	return res->error;
}
