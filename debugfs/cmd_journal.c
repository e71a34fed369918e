/*
 * cmd_journal.c: "logdump": walk the jbd2 log block by block and show
 * every transaction, the filesystem blocks each descriptor logs and where,
 * revoke records, commit blocks with their times, and the checksum
 * verdicts (format doc sections 11 and 12).
 *
 * The walk itself follows the log the way the reference logdump does
 * (start at s_start with s_sequence, stop at the first block without the
 * magic number, of another sequence or of an unknown type), so it also
 * shows what recovery would not replay.  -O goes on past sequence breaks
 * into the old, checkpointed log, and -O -n past blocks without the magic
 * number too, until -n commit blocks or one round of the log area.  The
 * checksum verdicts come from the library's recovery scan
 * (e4_journal_scan), looked up by journal block; blocks that scan did not
 * reach are shown as "unchecked".
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "debugfs.h"

#define LOGDUMP_USAGE	"[-acjOS] [-b block] [-n num_trans] [-i filespec] [-f journal_file]"

struct logdump {
	e4_journal *j;
	const journal_superblock_t *jsb;
	unsigned bs;			/* journal block size, bytes */
	uint32_t first, last;		/* log area [first, last) */
	uint32_t incompat;
	int dump_all, dump_contents, dump_old, json;
	long long max_trans;		/* -n: commit blocks to walk, -1 no limit */
	int have_block;			/* -b or -i */
	uint64_t want_block;
	uint8_t *verdict;		/* per journal block: enum e4_jcsum_verdict */
	uint8_t *buf;
	json_object *jroot, *jtrans;	/* JSON output */
	/* raw mode: the library refused the journal superblock (checksum),
	 * blocks are read through the journal inode's map */
	int raw;
	journal_superblock_t raw_jsb;
	e4_ino_t raw_ino;
	e4_io *raw_io;			/* raw mode, external journal device */
	uint32_t raw_maxlen;
	unsigned long errors;
};

static const char *verdict_name(int v)
{
	switch (v) {
	case E4_JCSUM_NONE:
		return "none";
	case E4_JCSUM_OK:
		return "OK";
	case E4_JCSUM_BAD:
		return "BAD";
	case E4_JCSUM_PARTIAL:
		return "partial";
	case E4_JCSUM_UNREADABLE:
		return "unreadable";
	default:
		return "unchecked";
	}
}

/* JSON value of a verdict: its name, or null where there is no checksum
 * to judge or it was not judged. */
static json_object *json_verdict(int v)
{
	return v == E4_JCSUM_NONE || v == E4_JCSUM_UNCHECKED ? NULL :
	       json_object_new_string(verdict_name(v));
}

static int has_csum(const struct logdump *ld)
{
	return !!(ld->incompat & (JBD2_FEATURE_INCOMPAT_CSUM_V2 |
				  JBD2_FEATURE_INCOMPAT_CSUM_V3));
}

/* Record the verdicts the recovery scan reaches, by journal block. */
static int collect_verdicts(const struct e4_jlog_item *it, void *priv)
{
	struct logdump *ld = priv;

	if (it->jblk >= ld->raw_maxlen)
		return 0;
	switch (it->kind) {
	case E4_JLOG_DESCRIPTOR:
	case E4_JLOG_REVOKE:
	case E4_JLOG_COMMIT:
	case E4_JLOG_TAG:
		ld->verdict[it->jblk] = (uint8_t)it->csum;
		break;
	default:
		break;
	}
	return 0;
}

/* Journal block jblk of the open journal (library or raw mode). */
static errcode_t read_jblock(struct logdump *ld, uint32_t jblk, void *buf)
{
	e4_blk_t pblk;
	uint32_t len;
	unsigned flags;
	errcode_t err;

	if (!ld->raw)
		return e4_journal_read_block(ld->j, jblk, buf);
	if (jblk >= ld->raw_maxlen)
		return E4_ERR_BAD_BLOCK_NUM;
	if (ld->raw_io)	/* external: journal blocks are device blocks */
		return e4_io_read_blk(ld->raw_io, jblk, 1, buf);
	err = e4_bmap(current_fs, ld->raw_ino, NULL, jblk, &pblk, &len, &flags);
	if (err)
		return err;
	if (!pblk || pblk >= e4_geom(current_fs)->blocks_count)
		return E4_ERR_BAD_BLOCK_NUM;
	return e4_io_read_blk(e4_fs_io(current_fs), pblk, 1, buf);
}

/*
 * The library refuses a journal superblock whose checksum is wrong; the
 * reference dumps such a journal anyway.  Read the superblock through the
 * internal journal inode and keep only what the walk needs sane.
 */
static errcode_t open_raw(struct logdump *ld)
{
	const struct ext4_super_block *sb = e4_super(current_fs);
	unsigned bs = e4_geom(current_fs)->block_size;
	uint8_t *b;
	errcode_t err;

	ld->raw_ino = e4_le32(sb->s_journal_inum);
	if (!ld->raw_ino)
		return E4_ERR_NO_JOURNAL;
	ld->raw = 1;
	ld->raw_maxlen = 1;
	b = malloc(bs);
	if (!b)
		return E4_ERR_NO_MEMORY;
	err = read_jblock(ld, 0, b);
	if (!err)
		memcpy(&ld->raw_jsb, b, sizeof(ld->raw_jsb));
	free(b);
	if (err)
		return err;
	if (e4_be32(ld->raw_jsb.s_header.h_magic) != JBD2_MAGIC_NUMBER ||
	    e4_be32(ld->raw_jsb.s_blocksize) != bs)
		return E4_ERR_JOURNAL_CORRUPT;
	ld->raw_maxlen = e4_be32(ld->raw_jsb.s_maxlen);
	if (ld->raw_maxlen > e4_geom(current_fs)->blocks_count)
		return E4_ERR_JOURNAL_CORRUPT;
	ld->jsb = &ld->raw_jsb;
	return 0;
}

/* Raw mode for an external journal device at path (section 11.1: the
 * journal superblock follows the device's ext4 superblock). */
static errcode_t open_raw_ext(struct logdump *ld, const char *path)
{
	unsigned bs = e4_geom(current_fs)->block_size;
	uint8_t *b;
	errcode_t err;

	err = e4_io_open(path, 0, &ld->raw_io);
	if (err)
		return err;
	err = e4_io_set_blksize(ld->raw_io, bs);
	if (err)
		return err;
	b = malloc(bs);
	if (!b)
		return E4_ERR_NO_MEMORY;
	err = e4_io_read_blk(ld->raw_io, bs == 1024 ? 2 : 1, 1, b);
	if (!err)
		memcpy(&ld->raw_jsb, b, sizeof(ld->raw_jsb));
	free(b);
	if (err)
		return err;
	ld->raw = 1;
	if (e4_be32(ld->raw_jsb.s_header.h_magic) != JBD2_MAGIC_NUMBER ||
	    e4_be32(ld->raw_jsb.s_blocksize) != bs)
		return E4_ERR_JOURNAL_CORRUPT;
	ld->raw_maxlen = e4_be32(ld->raw_jsb.s_maxlen);
	if ((uint64_t)ld->raw_maxlen * bs > e4_io_size(ld->raw_io))
		return E4_ERR_JOURNAL_TOO_SMALL;
	ld->jsb = &ld->raw_jsb;
	return 0;
}

static uint32_t wrap(const struct logdump *ld, uint32_t blk)
{
	if (blk >= ld->last)
		blk = ld->first + (blk - ld->last) % (ld->last - ld->first);
	return blk;
}

static void hexdump_block(const uint8_t *b, unsigned len)
{
	unsigned i, k;

	for (i = 0; i < len; i += 16) {
		printf("    %04x: ", i);
		for (k = 0; k < 16 && i + k < len; k++)
			printf("%02x%s", b[i + k], k == 7 ? "  " : " ");
		putchar('\n');
	}
}

/* Bytes of one descriptor tag, UUID not included (section 11.3). */
static unsigned tag_bytes(const struct logdump *ld)
{
	unsigned sz;

	if (ld->incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3)
		return sizeof(journal_block_tag3_t);
	sz = sizeof(journal_block_tag_t);
	if (ld->incompat & JBD2_FEATURE_INCOMPAT_CSUM_V2)
		sz += 2;
	if (!(ld->incompat & JBD2_FEATURE_INCOMPAT_64BIT))
		sz -= 4;
	return sz;
}

static json_object *jtrans_for(struct logdump *ld, uint32_t tid)
{
	json_object *t;

	if (!ld->json)
		return NULL;
	if (ld->jtrans) {
		json_object *tidv;

		if (json_object_object_get_ex(ld->jtrans, "tid", &tidv) &&
		    (uint32_t)json_object_get_int64(tidv) == tid)
			return ld->jtrans;
	}
	t = json_object_new_object();
	json_object_object_add(t, "tid", json_object_new_int64(tid));
	json_object_object_add(t, "tags", json_object_new_array());
	json_object_object_add(t, "revoked", json_object_new_array());
	json_object_array_add(json_object_object_get(ld->jroot, "transactions"), t);
	ld->jtrans = t;
	return t;
}

/* One descriptor block at jblk; returns the number of tags (blocks used). */
static unsigned dump_descriptor(struct logdump *ld, uint32_t jblk, uint32_t tid,
				uint32_t *next)
{
	unsigned tsz = tag_bytes(ld);
	unsigned limit = ld->bs - (has_csum(ld) ? sizeof(struct jbd2_journal_block_tail) : 0);
	unsigned off = sizeof(journal_header_t);
	unsigned ntags = 0;
	uint32_t blk = jblk;
	uint8_t *desc;
	json_object *jt = jtrans_for(ld, tid);

	*next = wrap(ld, jblk + 1);
	desc = malloc(ld->bs);
	if (!desc) {
		ld->errors++;
		return 0;
	}
	memcpy(desc, ld->buf, ld->bs);
	if (ld->dump_all && !ld->json)
		printf("Dumping descriptor block, sequence %u, at block %u:\n", tid, jblk);
	if (has_csum(ld) && !ld->json && ld->dump_all)
		printf("  Descriptor checksum: %s\n", verdict_name(ld->verdict[jblk]));
	while (off + tsz <= limit) {
		uint64_t fsblk;
		uint32_t flags, tcsum;
		int vt;

		if (ld->incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3) {
			journal_block_tag3_t t3;

			memcpy(&t3, desc + off, sizeof(t3));
			fsblk = e4_be32(t3.t_blocknr);
			if (ld->incompat & JBD2_FEATURE_INCOMPAT_64BIT)
				fsblk |= (uint64_t)e4_be32(t3.t_blocknr_high) << 32;
			flags = e4_be32(t3.t_flags);
			tcsum = e4_be32(t3.t_checksum);
		} else {
			journal_block_tag_t t;

			memset(&t, 0, sizeof(t));
			memcpy(&t, desc + off, tsz < sizeof(t) ? tsz : sizeof(t));
			fsblk = e4_be32(t.t_blocknr);
			if (ld->incompat & JBD2_FEATURE_INCOMPAT_64BIT)
				fsblk |= (uint64_t)e4_be32(t.t_blocknr_high) << 32;
			flags = e4_be16(t.t_flags);
			tcsum = e4_be16(t.t_checksum);
		}
		off += tsz;
		if (!(flags & JBD2_FLAG_SAME_UUID))
			off += 16;
		blk = wrap(ld, blk + 1);
		ntags++;
		vt = has_csum(ld) ? ld->verdict[blk] : E4_JCSUM_NONE;
		if (jt) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "fs_block", json_object_new_int64((int64_t)fsblk));
			json_object_object_add(o, "journal_block", json_object_new_int64(blk));
			json_object_object_add(o, "flags", json_object_new_int64(flags));
			json_object_object_add(o, "checksum", json_verdict(vt));
			json_object_array_add(json_object_object_get(jt, "tags"), o);
		} else if (ld->dump_all || (ld->have_block && fsblk == ld->want_block)) {
			printf("  FS block %llu logged at journal block %u (flags 0x%x)",
			       (unsigned long long)fsblk, blk, flags);
			if (has_csum(ld))
				printf(" checksum 0x%08x %s", tcsum, verdict_name(vt));
			putchar('\n');
			if (ld->dump_contents && ld->have_block && fsblk == ld->want_block &&
			    !read_jblock(ld, blk, ld->buf))
				hexdump_block(ld->buf, ld->bs);
		}
		if (flags & JBD2_FLAG_LAST_TAG)
			break;
	}
	free(desc);
	*next = wrap(ld, blk + 1);
	return ntags;
}

static void dump_revoke(struct logdump *ld, uint32_t jblk, uint32_t tid)
{
	jbd2_journal_revoke_header_t rh;
	unsigned rsz = (ld->incompat & JBD2_FEATURE_INCOMPAT_64BIT) ? 8 : 4;
	unsigned off = sizeof(rh), end;
	json_object *jt = jtrans_for(ld, tid);

	memcpy(&rh, ld->buf, sizeof(rh));
	end = e4_be32(rh.r_count);
	if (ld->dump_all && !ld->json)
		printf("Dumping revoke block, sequence %u, at block %u:\n", tid, jblk);
	if (end > ld->bs) {
		/* the records that fit are dumped, as the reference does */
		warn_err("logdump", E4_ERR_JOURNAL_LOG_CORRUPT,
			 "revoke block %u: r_count %u is larger than the block", jblk, end);
		end = ld->bs;
	}
	if (has_csum(ld) && !ld->json && ld->dump_all)
		printf("  Revoke checksum: %s\n", verdict_name(ld->verdict[jblk]));
	for (; off + rsz <= end; off += rsz) {
		uint64_t b;

		if (rsz == 8) {
			uint64_t v;

			memcpy(&v, ld->buf + off, 8);
			b = e4_be64(v);
		} else {
			uint32_t v;

			memcpy(&v, ld->buf + off, 4);
			b = e4_be32(v);
		}
		if (jt)
			json_object_array_add(json_object_object_get(jt, "revoked"),
					      json_object_new_int64((int64_t)b));
		else if (ld->dump_all || (ld->have_block && b == ld->want_block))
			printf("  Revoke FS block %llu\n", (unsigned long long)b);
	}
}

/* The journal has the v1 (crc32_be) commit checksum. */
static int v1_csum(const struct logdump *ld)
{
	return !!(e4_be32(ld->jsb->s_feature_compat) & JBD2_FEATURE_COMPAT_CHECKSUM);
}

static void dump_commit(struct logdump *ld, uint32_t jblk, uint32_t tid)
{
	struct commit_header ch;
	int v = E4_JCSUM_NONE;
	json_object *jt = jtrans_for(ld, tid);

	memcpy(&ch, ld->buf, sizeof(ch));
	if (has_csum(ld) || v1_csum(ld))
		v = ld->verdict[jblk];
	if (jt) {
		json_object_object_add(jt, "commit_block", json_object_new_int64(jblk));
		json_object_object_add(jt, "commit_sec",
				       json_object_new_int64((int64_t)e4_be64(ch.h_commit_sec)));
		json_object_object_add(jt, "commit_nsec",
				       json_object_new_int64(e4_be32(ch.h_commit_nsec)));
		json_object_object_add(jt, "commit_checksum",
				       json_verdict(v));
		return;
	}
	if (!ld->dump_all)
		return;
	printf("  Commit time: %s (%llu.%09u s)", time_ctime((int64_t)e4_be64(ch.h_commit_sec)),
	       (unsigned long long)e4_be64(ch.h_commit_sec), e4_be32(ch.h_commit_nsec));
	if (v != E4_JCSUM_NONE)
		printf(", checksum %s", verdict_name(v));
	putchar('\n');
}

static const char *type_name(uint32_t t)
{
	switch (t) {
	case JBD2_DESCRIPTOR_BLOCK:
		return "descriptor block";
	case JBD2_COMMIT_BLOCK:
		return "commit block";
	case JBD2_REVOKE_BLOCK:
		return "revoke table";
	default:
		return "unrecognised type";
	}
}

static void print_jsb(struct logdump *ld)
{
	if (e4_be32(ld->jsb->s_header.h_magic) != JBD2_MAGIC_NUMBER)
		printf("Journal superblock magic number invalid!\n");
}

/*
 * The walk goes on past a block without the magic number, or of an
 * unknown type, only with -O and -n (as the reference's -n does).
 */
static int skip_junk(const struct logdump *ld)
{
	return ld->dump_old && ld->max_trans >= 0;
}

/*
 * -O ends the walk once it has gone round the whole log area, and -n after
 * that many commit blocks; say so (nothing for a plain walk).
 */
static int walk_done(struct logdump *ld, uint64_t advanced, uint64_t commits)
{
	if (!ld->dump_old)
		return 0;
	if (ld->max_trans >= 0 && commits >= (uint64_t)ld->max_trans) {
		if (!ld->json)
			printf("Stopped after %llu transactions (-n %lld).\n",
			       (unsigned long long)commits, (long long)ld->max_trans);
		return 1;
	}
	if (advanced >= ld->last - ld->first) {
		if (!ld->json)
			printf("Walked the whole log (%u blocks): %llu transactions.\n",
			       ld->last - ld->first, (unsigned long long)commits);
		return 1;
	}
	return 0;
}

/*
 * Without -O the walk stops at the first block of another sequence, as
 * recovery does.  With -O it goes on into the old, checkpointed log and
 * follows it: the expected sequence becomes the one found, so each break
 * in the sequence is reported once, where it happens.  (The reference
 * keeps counting from the current log instead, and then reports every
 * header of the old log as a break against a number no block carries.)
 */
static int walk(struct logdump *ld)
{
	uint32_t tid = e4_be32(ld->jsb->s_sequence);
	uint32_t blk = e4_be32(ld->jsb->s_start);
	uint64_t steps = 0, max_steps = 2ULL * (ld->last - ld->first) + 2;
	uint64_t advanced = 0, commits = 0;	/* blocks walked, commit blocks */
	int gap = 0;				/* a block without magic, -O -n */

	if (!ld->json)
		printf("Journal starts at block %u, transaction %u\n", blk, tid);
	if (ld->json) {
		json_object_object_add(ld->jroot, "start_block", json_object_new_int64(blk));
		json_object_object_add(ld->jroot, "start_tid", json_object_new_int64(tid));
	}
	if (!blk) {
		if (!ld->dump_old)
			return 0;
		blk = ld->first;
	}
	if (blk < ld->first || blk >= ld->last) {
		com_err("logdump", E4_ERR_JOURNAL_LOG_CORRUPT,
			"journal start block %u is outside the log [%u, %u)", blk,
			ld->first, ld->last);
		return 1;
	}
	while (!walk_done(ld, advanced, commits) && (ld->dump_old || steps++ < max_steps)) {
		journal_header_t h;
		uint32_t type, seq, next;
		errcode_t err;

		err = read_jblock(ld, blk, ld->buf);
		if (err) {
			com_err("logdump", err, "while reading journal block %u", blk);
			return 1;
		}
		memcpy(&h, ld->buf, sizeof(h));
		if (e4_be32(h.h_magic) != JBD2_MAGIC_NUMBER) {
			if (!ld->json && !gap)
				printf("No magic number at block %u: %s\n", blk,
				       skip_junk(ld) ? "end of the log, -n looks further."
						     : "end of journal.");
			if (!skip_junk(ld))
				break;
			gap = 1;
			blk = wrap(ld, blk + 1);
			advanced++;
			continue;
		}
		seq = e4_be32(h.h_sequence);
		type = e4_be32(h.h_blocktype);
		if (seq != tid) {
			if (!ld->json)
				printf("Found sequence %u (not %u) at block %u: %s\n", seq, tid,
				       blk, ld->dump_old ? "a break in the log, -O walks on."
							 : "end of journal.");
			if (!ld->dump_old)
				break;
			tid = seq;
		}
		if (!ld->json && (ld->dump_all || !ld->have_block))
			printf("Found expected sequence %u, type %u (%s) at block %u\n",
			       seq, type, type_name(type), blk);
		switch (type) {
		case JBD2_DESCRIPTOR_BLOCK:
			advanced += 1 + dump_descriptor(ld, blk, tid, &next);
			blk = next;
			break;
		case JBD2_COMMIT_BLOCK:
			dump_commit(ld, blk, tid);
			tid++;
			commits++;
			advanced++;
			blk = wrap(ld, blk + 1);
			break;
		case JBD2_REVOKE_BLOCK:
			dump_revoke(ld, blk, tid);
			advanced++;
			blk = wrap(ld, blk + 1);
			break;
		default:
			if (!ld->json)
				printf("Unexpected block type %u at block %u.\n", type, blk);
			if (!skip_junk(ld))
				return 0;
			advanced++;
			blk = wrap(ld, blk + 1);
			break;
		}
	}
	if (ld->json)
		json_object_object_add(ld->jroot, "end_block", json_object_new_int64(blk));
	return 0;
}

/* As the reference: an external journal device's own superblock is
 * announced, with -a its UUID, block size and size in blocks. */
static void print_ext_header(e4_io *io, int all)
{
	struct ext4_super_block esb;
	char uuid[40];

	if (!io || e4_io_pread(io, EXT4_SUPERBLOCK_OFFSET, &esb, sizeof(esb)) ||
	    e4_le16(esb.s_magic) != EXT4_SUPER_MAGIC ||
	    !(e4_le32(esb.s_feature_incompat) & EXT4_FEATURE_INCOMPAT_JOURNAL_DEV))
		return;
	printf("Ext2 superblock header found.\n");
	if (!all)
		return;
	printf("\tuuid=%s\n", uuid_string(esb.s_uuid, uuid, 0));
	printf("\tblocksize=%u\n", EXT4_MIN_BLOCK_SIZE << (e4_le32(esb.s_log_block_size) & 7));
	printf("\tjournal data size %llu\n", (unsigned long long)e4_sb_blocks_count(&esb));
}

int do_logdump(int argc, char **argv)
{
	struct logdump ld;
	struct e4_jscan_result res;
	const char *ext = NULL, *inode_spec = NULL;
	unsigned long long v;
	int c, ret = 0, show_super = 0;
	errcode_t err;
	uint32_t maxlen;

	memset(&ld, 0, sizeof(ld));
	ld.max_trans = -1;
	reset_getopt();
	while ((c = getopt(argc, argv, "ab:cf:i:jn:OsS")) != -1) {
		switch (c) {
		case 'a':
			ld.dump_all = 1;
			break;
		case 'b':
			if (parse_number(argv[0], optarg, "block number", UINT64_MAX, &v))
				return 1;
			ld.have_block = 1;
			ld.want_block = v;
			break;
		case 'c':
			ld.dump_contents = 1;
			break;
		case 'f':
			ext = optarg;
			break;
		case 'i':
			inode_spec = optarg;
			break;
		case 'j':
			ld.json = 1;
			break;
		case 'n':
			if (parse_number(argv[0], optarg, "transaction count", INT64_MAX, &v))
				return 1;
			ld.max_trans = (long long)v;
			break;
		case 'O':
			ld.dump_old = 1;
			break;
		case 's':
			break;	/* reference: use the superblock's journal backup */
		case 'S':
			show_super = 1;
			break;
		default:
			return usage(argv[0], LOGDUMP_USAGE);
		}
	}
	if (optind != argc)
		return usage(argv[0], LOGDUMP_USAGE);
	if (ld.max_trans >= 0 && !ld.dump_old)	/* as the reference: -n needs -O */
		fprintf(stderr, "%s: -n has an effect only with -O\n", argv[0]);
	if (check_fs_open(argv[0]))
		return 1;
	if (inode_spec) {
		e4_ino_t ino;
		uint64_t off;
		unsigned fbs = e4_geom(current_fs)->block_size;

		if (parse_inode(argv[0], inode_spec, &ino))
			return 1;
		err = e4_inode_location(current_fs, ino, &off);
		if (err) {
			com_err(argv[0], err, "while locating inode %u", ino);
			return 1;
		}
		ld.have_block = 1;
		ld.want_block = off / fbs;
		if (!ld.json)
			printf("Inode %u is at group %u, block %llu, offset %llu\n", ino,
			       e4_group_of_ino(current_fs, ino),
			       (unsigned long long)ld.want_block,
			       (unsigned long long)(off % fbs));
	}
	err = e4_journal_open(current_fs, ext, &ld.j);
	if (err == E4_ERR_JOURNAL_CSUM || (ext && err == E4_ERR_JOURNAL_UUID)) {
		warn_err(argv[0], err, "(%s): dumping the journal anyway",
			 ext ? ext : "journal superblock");
		err = ext ? open_raw_ext(&ld, ext) : open_raw(&ld);
	} else if (!ext && (err == E4_ERR_JOURNAL_CORRUPT ||
			    (err == E4_ERR_NO_JOURNAL &&
			     e4_super(current_fs)->s_journal_inum))) {
		/* as the reference: a journal inode without has_journal, or a
		 * superblock with odd fields (user count), is dumped raw when
		 * its magic and block size are right */
		errcode_t err2 = open_raw(&ld);

		if (!err2)
			warn_err(argv[0], err, "(journal inode %u): dumping it anyway",
				 e4_le32(e4_super(current_fs)->s_journal_inum));
		err = err2 ? err : 0;
	}
	if (err) {
		com_err(argv[0], err, "while opening the journal");
		ret = 1;
		goto out;
	}
	if (ld.raw) {
		ld.bs = e4_geom(current_fs)->block_size;
		maxlen = ld.raw_maxlen;
	} else {
		ld.jsb = e4_journal_super(ld.j);
		ld.bs = e4_journal_blocksize(ld.j);
		maxlen = e4_journal_blocks(ld.j);
		ld.raw_maxlen = maxlen;
	}
	ld.incompat = e4_be32(ld.jsb->s_feature_incompat);
	ld.first = e4_be32(ld.jsb->s_first);
	ld.last = maxlen;
	if (ld.incompat & JBD2_FEATURE_INCOMPAT_FAST_COMMIT) {
		uint32_t fc = e4_be32(ld.jsb->s_num_fc_blks);

		if (!fc)
			fc = JBD2_DEFAULT_FAST_COMMIT_BLOCKS;
		if (fc < maxlen)
			ld.last = maxlen - fc;
	}
	if (ld.first == 0 || ld.first >= ld.last) {
		com_err(argv[0], E4_ERR_JOURNAL_CORRUPT,
			"journal log area [%u, %u) is unusable", ld.first, ld.last);
		ret = 1;
		goto out;
	}
	ld.buf = malloc(ld.bs);
	ld.verdict = calloc(maxlen, 1);
	if (!ld.buf || !ld.verdict) {
		com_err(argv[0], E4_ERR_NO_MEMORY, "while dumping the journal");
		ret = 1;
		goto out;
	}
	memset(ld.verdict, E4_JCSUM_UNCHECKED, maxlen);
	memset(&res, 0, sizeof(res));
	/* the verdicts; the scan's own errors only end what it can judge */
	if (!ld.raw)
		(void)e4_journal_scan(ld.j, E4_JSCAN_VERIFY_TAGS, collect_verdicts, &ld,
				      &res);
	if (!ld.json && ext)
		print_ext_header(ld.raw ? ld.raw_io : e4_journal_io(ld.j), ld.dump_all);
	if (ld.json) {
		ld.jroot = json_object_new_object();
		json_object_object_add(ld.jroot, "transactions", json_object_new_array());
		json_object_object_add(ld.jroot, "sequence",
				       json_object_new_int64(e4_be32(ld.jsb->s_sequence)));
	} else if (show_super) {
		char uuid[40];

		print_jsb(&ld);
		printf("Journal block size:       %u\n", ld.bs);
		printf("Total journal blocks:     %u\n", maxlen);
		printf("First log block:          %u\n", ld.first);
		printf("Journal sequence:         0x%08x\n", e4_be32(ld.jsb->s_sequence));
		printf("Journal start:            %u\n", e4_be32(ld.jsb->s_start));
		printf("Journal features:         compat 0x%x incompat 0x%x ro_compat 0x%x\n",
		       e4_be32(ld.jsb->s_feature_compat), ld.incompat,
		       e4_be32(ld.jsb->s_feature_ro_compat));
		printf("Journal UUID:             %s\n", uuid_string(ld.jsb->s_uuid, uuid, 1));
		if (e4_be32(ld.jsb->s_errno))
			printf("Journal errno:            %d\n", (int)e4_be32(ld.jsb->s_errno));
		putchar('\n');
	}
	ret = walk(&ld);
	if (ld.errors)
		ret = 1;
	if (ld.json) {
		json_object_object_add(ld.jroot, "errors", json_object_new_int64((int64_t)ld.errors));
		printf("%s\n", json_object_to_json_string_ext(ld.jroot, JSON_C_TO_STRING_PRETTY));
		json_object_put(ld.jroot);
	}
out:
	free(ld.buf);
	free(ld.verdict);
	if (ld.j)
		e4_journal_close(ld.j);
	if (ld.raw_io)
		e4_io_close(ld.raw_io);
	return ret;
}
