/*
 * fuzz_blocks.c: the library's parsers on one raw block at a time.  A
 * small filesystem is built once with the library's writers (a template:
 * 1 KiB blocks, one group, an inode of each kind below, a journal with a
 * short log); each input replaces one of its blocks, and the filesystem
 * is then read as fuzz_read reads it (every parser that block reaches) or,
 * for the journal's blocks, recovered as fuzz_journal recovers it.  The
 * mutations land on the structure under test instead of being spread over
 * an image.
 *
 * Input: byte 0 picks the block (KIND_* below, modulo their count), byte 1
 * holds flags, the rest replaces the block's first bytes (the rest of the
 * block stays as the template has it).  Flags: FZ_F_CSUM (recompute the
 * filesystem's checksums after the replacement); 0x02 metadata_csum; 0x04
 * 64bit (64-byte descriptors, 64-bit journal tags); 0x08 the journal has
 * v3 checksums (its template blocks then fail them: the fuzzer solves
 * them); 0x10 walk maps as stored; 0x20 replay only (no superblock update).
 *
 * E4FUZZ_SEEDS=DIR: write each kind's template block as an input to DIR,
 * for flags 0 and 0x02, and exit; E4FUZZ_TEMPLATE=FILE: write the template
 * (of flags E4FUZZ_FLAGS) as an image and exit.
 */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BS		1024
#define BLOCKS		2048
#define INODES		32
#define ISIZE		256
#define ITABLE		5		/* inode table: blocks 5-12 */
#define JSTART		1024		/* journal: blocks 1024-2047 */
#define JSEQ		7		/* the log's first transaction */
#define LOW_END		160		/* the template keeps blocks [0, LOW_END) */
#define JKEEP		48		/* and [JSTART, JSTART + JKEEP) */

enum {
	KIND_EXTENT_LEAF,	/* block 30: leaf of "file" (inode 12), depth 1 */
	KIND_DIR_LEAF,		/* block 31: "dir" (13), a linear directory */
	KIND_DX_ROOT,		/* block 32: "htree" (14) */
	KIND_DX_NODE,		/* block 38: "deep" (17), under a root at 37 */
	KIND_XATTR,		/* block 35: xattr block of "xattr" (15) */
	KIND_INDIRECT,		/* block 41: IND block of "ind" (18) */
	KIND_SYMLINK,		/* block 36: target of "link" (16) */
	KIND_INODE,		/* inode 19 "ixattr", in-inode xattrs (256 bytes) */
	KIND_ROOT_DIR,		/* block 20: the root directory */
	KIND_JDESC,		/* journal block 1: descriptor */
	KIND_JREVOKE,		/* journal block 1: revoke block */
	KIND_JCOMMIT,		/* journal block 3: commit after a 1-tag descriptor */
	KIND_JSUPER,		/* journal block 0: superblock */
	KIND_COUNT
};

struct template {
	int built;
	uint8_t low[LOW_END * BS];
	uint8_t jlog[KIND_COUNT][JKEEP * BS];	/* journal per kind (log differs) */
};
static struct template tmpl[8];		/* by flags bits 1-3 */

static const uint8_t uuid[16] = { 0x6c, 0x1e, 0x4a, 0x55, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0,
				  0xe4, 0xf5 };

/* ---- the template ------------------------------------------------------ */
static void be32_put(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void le32_put(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void le16_put(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void make_super(struct ext4_super_block *sb, unsigned v)
{
	memset(sb, 0, sizeof(*sb));
	sb->s_inodes_count = e4_cpu_to_le32(INODES);
	sb->s_blocks_count_lo = e4_cpu_to_le32(BLOCKS);
	sb->s_first_data_block = e4_cpu_to_le32(1);
	sb->s_blocks_per_group = sb->s_clusters_per_group = e4_cpu_to_le32(8192);
	sb->s_inodes_per_group = e4_cpu_to_le32(INODES);
	sb->s_magic = e4_cpu_to_le16(EXT4_SUPER_MAGIC);
	sb->s_state = e4_cpu_to_le16(1);
	sb->s_errors = e4_cpu_to_le16(1);
	sb->s_rev_level = e4_cpu_to_le32(EXT4_DYNAMIC_REV);
	sb->s_first_ino = e4_cpu_to_le32(11);
	sb->s_inode_size = e4_cpu_to_le16(ISIZE);
	sb->s_feature_compat = e4_cpu_to_le32(EXT4_FEATURE_COMPAT_HAS_JOURNAL |
					      EXT4_FEATURE_COMPAT_EXT_ATTR |
					      EXT4_FEATURE_COMPAT_DIR_INDEX);
	sb->s_feature_incompat = e4_cpu_to_le32(EXT4_FEATURE_INCOMPAT_FILETYPE |
						EXT4_FEATURE_INCOMPAT_EXTENTS |
						EXT4_FEATURE_INCOMPAT_RECOVER |
						(v & 2 ? EXT4_FEATURE_INCOMPAT_64BIT : 0));
	sb->s_feature_ro_compat = e4_cpu_to_le32(EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER |
						 EXT4_FEATURE_RO_COMPAT_LARGE_FILE |
						 EXT4_FEATURE_RO_COMPAT_DIR_NLINK |
						 EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE |
						 (v & 1 ? EXT4_FEATURE_RO_COMPAT_METADATA_CSUM : 0));
	if (v & 1)
		sb->s_checksum_type = 1;
	if (v & 2)
		sb->s_desc_size = e4_cpu_to_le16(64);
	memcpy(sb->s_uuid, uuid, 16);
	for (int i = 0; i < 4; i++)
		sb->s_hash_seed[i] = e4_cpu_to_le32(0x9e3779b9u * (i + 1));
	sb->s_def_hash_version = 1;	/* half_md4 */
	sb->s_flags = e4_cpu_to_le32(1);	/* signed hash */
	sb->s_journal_inum = e4_cpu_to_le32(8);
	sb->s_min_extra_isize = sb->s_want_extra_isize = e4_cpu_to_le16(32);
}

static void inode_init(union e4_inode_buf *ib, uint16_t mode, uint16_t links, uint64_t size,
		       uint32_t blocks)
{
	memset(ib, 0, sizeof(*ib));
	ib->inode.i_mode = e4_cpu_to_le16(mode);
	ib->inode.i_links_count = e4_cpu_to_le16(links);
	ib->inode.i_size_lo = e4_cpu_to_le32((uint32_t)size);
	ib->inode.i_size_high = e4_cpu_to_le32((uint32_t)(size >> 32));
	ib->inode.i_blocks_lo = e4_cpu_to_le32(blocks * 2);
	ib->inode.i_extra_isize = e4_cpu_to_le16(32);
	ib->inode.i_generation = e4_cpu_to_le32(0x1234);
}

/* An inode mapping its logical blocks 0.. to the n physical runs given. */
static errcode_t put_extents(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib,
			     const struct e4_map_extent *ext, unsigned n, e4_blk_t leaf)
{
	uint8_t buf[BS];
	errcode_t err = e4_extent_tree_build(fs, ino, &ib->inode, ext, n, leaf, buf);

	if (!err && n > 4)
		err = e4_io_write_blk(e4_fs_io(fs), leaf, 1, buf);
	if (!err)
		err = e4_inode_write(fs, ino, ib);
	return err;
}

static errcode_t put_dir(e4_fs *fs, e4_ino_t dir, e4_blk_t blk, const struct e4_new_dirent *d,
			 unsigned n)
{
	uint8_t buf[BS];
	errcode_t err = e4_dir_block_build(fs, dir, d, n, buf);

	return err ? err : e4_io_write_blk(e4_fs_io(fs), blk, 1, buf);
}

/* A dx root (indirect levels) or node at blk: count (1 or 2) entries, to
 * blocks b0 and b1 (hashes from 0x80000000). */
static errcode_t put_dx(e4_fs *fs, e4_ino_t parent, e4_blk_t blk, int root, unsigned levels,
			unsigned count, uint32_t b0, uint32_t b1, int csum)
{
	uint8_t buf[BS];
	unsigned off = root ? 0x20 : 8;

	memset(buf, 0, sizeof(buf));
	if (root) {
		le32_put(buf, (uint32_t)blk == 37 ? 17 : 14);	/* "." */
		le16_put(buf + 4, 12);
		buf[6] = 1;
		buf[7] = EXT4_FT_DIR;
		buf[8] = '.';
		le32_put(buf + 12, parent);			/* ".." */
		le16_put(buf + 16, BS - 12);
		buf[18] = 2;
		buf[19] = EXT4_FT_DIR;
		buf[20] = buf[21] = '.';
		buf[24 + 4] = 1;				/* half_md4 */
		buf[24 + 5] = 8;				/* info_length */
		buf[24 + 6] = (uint8_t)levels;
	} else {
		le16_put(buf + 4, BS);				/* one empty entry */
	}
	le16_put(buf + off, (uint16_t)((BS - off - (csum ? 8 : 0)) / 8));	/* limit */
	le16_put(buf + off + 2, (uint16_t)count);			/* count */
	le32_put(buf + off + 4, b0);
	le32_put(buf + off + 8, 0x80000000u);
	le32_put(buf + off + 12, b1);
	return e4_io_write_blk(e4_fs_io(fs), blk, 1, buf);
}

/* An xattr area entry: name (index 1, "user.") and value at voff. */
static size_t xentry(uint8_t *e, const char *name, uint16_t voff, uint32_t vsize)
{
	size_t len = strlen(name);

	e[0] = (uint8_t)len;
	e[1] = 1;
	le16_put(e + 2, voff);
	le32_put(e + 8, vsize);
	memcpy(e + 16, name, len);
	return EXT4_XATTR_LEN(len);
}

/* The journal: superblock, then per kind a log of transaction JSEQ. */
static void journal_log(struct template *t, unsigned v, unsigned kind, const uint8_t *jsb)
{
	uint8_t *log = t->jlog[kind], *b;
	unsigned tagsz = v & 4 ? 16 : (v & 2 ? 12 : 8);

	memcpy(log, jsb, BS);
	for (unsigned i = 1; i < JKEEP; i++) {		/* commits everywhere */
		b = log + i * BS;
		be32_put(b, JBD2_MAGIC_NUMBER);
		be32_put(b + 4, JBD2_COMMIT_BLOCK);
		be32_put(b + 8, JSEQ);
	}
	b = log + BS;
	be32_put(b + 4, kind == KIND_JREVOKE ? JBD2_REVOKE_BLOCK : JBD2_DESCRIPTOR_BLOCK);
	if (kind == KIND_JREVOKE) {
		be32_put(b + 12, 16 + 3 * (v & 2 ? 8 : 4));	/* r_count */
		for (unsigned i = 0; i < 3; i++)
			be32_put(b + 16 + i * (v & 2 ? 8 : 4) + (v & 2 ? 4 : 0), 50 + i);
		return;
	}
	/* tags: fs blocks 50, 51 (the commit kind: one) */
	for (unsigned i = 0; i < (kind == KIND_JCOMMIT ? 1u : 2u); i++) {
		uint8_t *tag = b + 12 + i * tagsz + (i ? 16 : 0);
		int last = kind == KIND_JCOMMIT || i == 1;

		be32_put(tag, 50 + i);
		if (v & 4)
			be32_put(tag + 4, (i ? 2 : 0) | (last ? 8 : 0));	/* SAME_UUID, LAST */
		else
			tag[7] = (uint8_t)((i ? 2 : 0) | (last ? 8 : 0));	/* t_flags */
		if (!i)
			memcpy(tag + tagsz, uuid, 16);
	}
	/* the logged copies: recognisable data, not commits */
	for (unsigned i = 2; i < (kind == KIND_JCOMMIT ? 3u : 4u); i++)
		memset(log + i * BS, 0x40 + i, BS);
}

static errcode_t build_fs(e4_fs *fs, unsigned v)
{
	static const struct e4_new_dirent root[] = {
		{ 2, ".", 1, EXT4_FT_DIR }, { 2, "..", 2, EXT4_FT_DIR },
		{ 11, "lost+found", 10, EXT4_FT_DIR }, { 12, "file", 4, EXT4_FT_REG_FILE },
		{ 13, "dir", 3, EXT4_FT_DIR }, { 14, "htree", 5, EXT4_FT_DIR },
		{ 15, "xattr", 5, EXT4_FT_REG_FILE }, { 16, "link", 4, EXT4_FT_SYMLINK },
		{ 17, "deep", 4, EXT4_FT_DIR }, { 18, "ind", 3, EXT4_FT_REG_FILE },
		{ 19, "ixattr", 6, EXT4_FT_REG_FILE },
	};
	static const struct e4_new_dirent sub[] = {
		{ 13, ".", 1, EXT4_FT_DIR }, { 2, "..", 2, EXT4_FT_DIR },
		{ 12, "a", 1, EXT4_FT_REG_FILE }, { 15, "b", 1, EXT4_FT_REG_FILE },
		{ 16, "c", 1, EXT4_FT_SYMLINK },
	};
	static const struct e4_new_dirent lpf[] = {
		{ 11, ".", 1, EXT4_FT_DIR }, { 2, "..", 2, EXT4_FT_DIR },
	};
	static const struct e4_new_dirent names[] = {
		{ 12, "alpha", 5, EXT4_FT_REG_FILE }, { 15, "beta", 4, EXT4_FT_REG_FILE },
		{ 16, "gamma", 5, EXT4_FT_SYMLINK },
	};
	int csum = v & 1;
	uint8_t bbm[BS] = { 0 }, ibm[BS] = { 0 }, buf[BS];
	union e4_inode_buf ib;
	struct e4_group g;
	struct e4_map_extent ext[5];
	errcode_t err;

	/* bitmaps: 1-12 metadata, 20, 21, 30-41, 100-108 (even), 110-130,
	 * the journal */
	e4_bits_set(bbm, 0, 12);
	e4_bits_set(bbm, 19, 2);
	e4_bits_set(bbm, 29, 12);
	for (unsigned i = 0; i < 5; i++)
		e4_bit_put(bbm, 99 + 2 * i, 1);
	e4_bits_set(bbm, 109, 21);
	e4_bits_set(bbm, JSTART - 1, BLOCKS - JSTART);
	e4_bits_set(bbm, BLOCKS - 1, 8192 - (BLOCKS - 1));	/* padding */
	e4_bits_set(ibm, 0, 19);
	e4_bits_set(ibm, INODES, 8 * BS - INODES);
	memset(&g, 0, sizeof(g));
	g.block_bitmap = 3;
	g.inode_bitmap = 4;
	g.inode_table = ITABLE;
	g.free_blocks = BLOCKS - 1 - 12 - 14 - 5 - 21 - (BLOCKS - JSTART);
	g.free_inodes = INODES - 19;
	g.used_dirs = 5;
	err = e4_group_set(fs, 0, &g);
	if (!err)
		err = e4_block_bitmap_write(fs, 0, bbm);
	if (!err)
		err = e4_inode_bitmap_write(fs, 0, ibm);
	if (err)
		return err;
	e4_super(fs)->s_free_blocks_count_lo = e4_cpu_to_le32(g.free_blocks);
	e4_super(fs)->s_free_inodes_count = e4_cpu_to_le32(g.free_inodes);

	/* directories */
	err = put_dir(fs, 2, 20, root, 11);
	if (!err)
		err = put_dir(fs, 11, 21, lpf, 2);
	if (!err)
		err = put_dir(fs, 13, 31, sub, 5);
	if (!err)
		err = put_dir(fs, 14, 33, names, 2);
	if (!err)
		err = put_dir(fs, 14, 34, names + 2, 1);
	if (!err)
		err = put_dx(fs, 2, 32, 1, 0, 2, 1, 2, csum);
	if (!err)
		err = put_dx(fs, 2, 37, 1, 1, 1, 1, 0, csum);
	if (!err)
		err = put_dx(fs, 17, 38, 0, 0, 2, 2, 3, csum);
	if (!err)
		err = put_dir(fs, 17, 39, names, 2);
	if (!err)
		err = put_dir(fs, 17, 40, names + 2, 1);
	if (err)
		return err;
	{
		static const struct { e4_ino_t ino; e4_blk_t blk; unsigned n; uint16_t links; } d[] = {
			{ 2, 20, 1, 6 }, { 11, 21, 1, 2 }, { 13, 31, 1, 2 }, { 14, 32, 3, 2 },
			{ 17, 37, 4, 2 },
		};
		for (unsigned i = 0; i < 5 && !err; i++) {
			inode_init(&ib, EXT4_S_IFDIR | 0755, d[i].links, (uint64_t)d[i].n * BS, d[i].n);
			if (d[i].n > 1)
				ib.inode.i_flags = e4_cpu_to_le32(EXT4_INDEX_FL);
			ext[0] = (struct e4_map_extent){ .lblk = 0, .pblk = d[i].blk, .len = d[i].n };
			err = put_extents(fs, d[i].ino, &ib, ext, 1, 0);
		}
	}
	/* "file": five extents, so a leaf at block 30 */
	inode_init(&ib, EXT4_S_IFREG | 0644, 4, 10 * BS, 6);
	for (unsigned i = 0; i < 5; i++)
		ext[i] = (struct e4_map_extent){ .lblk = 2 * i, .pblk = 100 + 2 * i, .len = 1 };
	if (!err)
		err = put_extents(fs, 12, &ib, ext, 5, 30);
	/* "xattr": its block at 35 */
	memset(buf, 0, sizeof(buf));
	le32_put(buf, EXT4_XATTR_MAGIC);
	le32_put(buf + 4, 1);
	le32_put(buf + 8, 1);
	xentry(buf + 32 + xentry(buf + 32, "test", BS - 8, 5), "second", BS - 16, 3);
	memcpy(buf + BS - 8, "value", 5);
	memcpy(buf + BS - 16, "two", 3);
	if (!err)
		err = e4_io_write_blk(e4_fs_io(fs), 35, 1, buf);
	inode_init(&ib, EXT4_S_IFREG | 0644, 4, 0, 1);
	ib.inode.i_file_acl_lo = e4_cpu_to_le32(35);
	if (!err)
		err = put_extents(fs, 15, &ib, ext, 0, 0);
	/* "link": a slow symlink at 36 */
	memset(buf, 0, sizeof(buf));
	memset(buf, 'l', 80);
	buf[0] = '/';
	if (!err)
		err = e4_io_write_blk(e4_fs_io(fs), 36, 1, buf);
	inode_init(&ib, EXT4_S_IFLNK | 0777, 4, 80, 1);
	ext[0] = (struct e4_map_extent){ .lblk = 0, .pblk = 36, .len = 1 };
	if (!err)
		err = put_extents(fs, 16, &ib, ext, 1, 0);
	/* "ind": a block map, 12 direct blocks and an IND block at 41 */
	inode_init(&ib, EXT4_S_IFREG | 0644, 1, 21 * BS, 22);
	memset(buf, 0, sizeof(buf));
	for (unsigned i = 0; i < 12; i++)
		ib.inode.i_block[i] = e4_cpu_to_le32(110 + i);
	ib.inode.i_block[EXT4_IND_BLOCK] = e4_cpu_to_le32(41);
	for (unsigned i = 0; i < 9; i++)
		le32_put(buf + 4 * i, 122 + i);
	if (!err)
		err = e4_io_write_blk(e4_fs_io(fs), 41, 1, buf);
	if (!err)
		err = e4_inode_write(fs, 18, &ib);
	/* "ixattr": in-inode xattrs */
	inode_init(&ib, EXT4_S_IFREG | 0644, 1, 0, 0);
	le32_put(ib.raw + 128 + 32, EXT4_XATTR_MAGIC);
	xentry(ib.raw + 164 + xentry(ib.raw + 164, "in", 80, 4), "inode", 72, 6);
	memcpy(ib.raw + 164 + 80, "data", 4);
	memcpy(ib.raw + 164 + 72, "inside", 6);
	if (!err)
		err = put_extents(fs, 19, &ib, ext, 0, 0);
	/* the journal inode */
	inode_init(&ib, EXT4_S_IFREG | 0600, 1, (uint64_t)(BLOCKS - JSTART) * BS, BLOCKS - JSTART);
	ext[0] = (struct e4_map_extent){ .lblk = 0, .pblk = JSTART, .len = BLOCKS - JSTART };
	if (!err)
		err = put_extents(fs, 8, &ib, ext, 1, 0);
	return err;
}

static void build(unsigned v)
{
	struct template *t = &tmpl[v];
	struct ext4_super_block sb;
	journal_superblock_t jsb;
	uint8_t jbuf[BS] = { 0 };
	e4_io *io;
	e4_fs *fs;

	t->built = 1;
	make_super(&sb, v);
	if (e4_io_open_mem((uint64_t)BLOCKS * BS, 8 << 20, E4_IO_RW, &io))
		return;
	if (e4_fs_create(io, "template", &sb, &fs))
		return;
	if (build_fs(fs, v) || e4_super_write(fs) || e4_gdt_write(fs) ||
	    e4_csum_rewrite_all(fs, NULL) || e4_flush(fs)) {
		e4_close(fs);
		return;
	}
	e4_io_pread(io, 0, t->low, sizeof(t->low));
	e4_close(fs);
	/* the journal superblock: v2, the log starting at block 1 */
	e4_jsb_init(&jsb, BS, BLOCKS - JSTART, uuid, 0);
	jsb.s_start = e4_cpu_to_be32(1);
	jsb.s_sequence = e4_cpu_to_be32(JSEQ);
	jsb.s_feature_incompat = e4_cpu_to_be32(JBD2_FEATURE_INCOMPAT_REVOKE |
						(v & 2 ? JBD2_FEATURE_INCOMPAT_64BIT : 0) |
						(v & 4 ? JBD2_FEATURE_INCOMPAT_CSUM_V3 : 0));
	if (v & 4) {
		jsb.s_checksum_type = JBD2_CRC32C_CHKSUM;
		jsb.s_checksum = e4_cpu_to_be32(e4_jsb_csum(&jsb));
	}
	memcpy(jbuf, &jsb, sizeof(jsb));
	for (unsigned k = 0; k < KIND_COUNT; k++)
		journal_log(t, v, k, jbuf);
}

/* ---- inputs --------------------------------------------------------- */
/* Where kind's block lies: byte offset in the device, and its size. */
static uint64_t kind_offset(unsigned kind, size_t *len)
{
	static const uint32_t blk[KIND_COUNT] = {
		[KIND_EXTENT_LEAF] = 30, [KIND_DIR_LEAF] = 31, [KIND_DX_ROOT] = 32,
		[KIND_DX_NODE] = 38, [KIND_XATTR] = 35, [KIND_INDIRECT] = 41,
		[KIND_SYMLINK] = 36, [KIND_ROOT_DIR] = 20,
		[KIND_JDESC] = JSTART + 1, [KIND_JREVOKE] = JSTART + 1,
		[KIND_JCOMMIT] = JSTART + 3, [KIND_JSUPER] = JSTART,
	};

	*len = BS;
	if (kind == KIND_INODE) {
		*len = ISIZE;
		return (uint64_t)ITABLE * BS + (19 - 1) * ISIZE;
	}
	return (uint64_t)blk[kind] * BS;
}

static int is_journal(unsigned kind)
{
	return kind >= KIND_JDESC;
}

/* The template with kind's block replaced by data; NULL if it could not
 * be built. */
static e4_io *device(unsigned kind, unsigned v, const uint8_t *data, size_t len)
{
	struct template *t = &tmpl[v];
	size_t blen;
	uint64_t off = kind_offset(kind, &blen);
	e4_io *io;

	if (!t->built)
		build(v);
	if (!t->low[EXT4_SUPERBLOCK_OFFSET + 0x38])	/* no magic: the build failed */
		return NULL;
	if (e4_io_open_mem((uint64_t)BLOCKS * BS, FZ_MAX_STORE, E4_IO_RW | E4_IO_NO_GROW, &io))
		return NULL;
	if (e4_io_mem_load(io, 0, t->low, sizeof(t->low)) ||
	    e4_io_mem_load(io, (uint64_t)JSTART * BS, t->jlog[kind], sizeof(t->jlog[kind])) ||
	    e4_io_mem_load(io, off, data, len < blen ? len : blen)) {
		e4_io_close(io);
		return NULL;
	}
	return io;
}

/* E4FUZZ_SEEDS: each kind's template block, as an input. */
static void write_seeds(const char *dir)
{
	for (unsigned v = 0; v < 2; v++) {
		for (unsigned k = 0; k < KIND_COUNT; k++) {
			uint8_t in[2 + BS];
			size_t blen;
			uint64_t off = kind_offset(k, &blen);
			char path[4096];
			e4_io *io = device(k, v, NULL, 0);
			FILE *f;

			if (!io)
				exit(1);
			in[0] = (uint8_t)k;
			in[1] = (uint8_t)(v ? 0x02 : 0);
			e4_io_pread(io, off, in + 2, blen);
			e4_io_close(io);
			snprintf(path, sizeof(path), "%s/kind%02u_%s", dir, k, v ? "csum" : "plain");
			f = fopen(path, "wb");
			if (!f || fwrite(in, 1, 2 + blen, f) != 2 + blen)
				exit(1);
			fclose(f);
		}
	}
	exit(0);
}

/* E4FUZZ_TEMPLATE=FILE: the template of flags E4FUZZ_FLAGS (its journal
 * with the descriptor kind's log) as an image file, to look at with the
 * tools. */
static void write_template(const char *path)
{
	const char *fl = getenv("E4FUZZ_FLAGS");
	e4_io *io = device(KIND_JDESC, fl ? (strtoul(fl, NULL, 0) >> 1) & 7 : 0, NULL, 0);
	static uint8_t img[BLOCKS * BS];
	FILE *f = fopen(path, "wb");

	if (!io || !f || e4_io_pread(io, 0, img, sizeof(img)) ||
	    fwrite(img, 1, sizeof(img), f) != sizeof(img))
		exit(1);
	fclose(f);
	e4_io_close(io);
	exit(0);
}

void fz_target_init(void)
{
	if (getenv("E4FUZZ_SEEDS"))
		write_seeds(getenv("E4FUZZ_SEEDS"));
	if (getenv("E4FUZZ_TEMPLATE"))
		write_template(getenv("E4FUZZ_TEMPLATE"));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned kind, flags, v;
	e4_io *io;
	e4_fs *fs;

	if (size < 2)
		return 0;
	kind = data[0] % KIND_COUNT;
	flags = data[1];
	v = (flags >> 1) & 7;
	io = device(kind, v, data + 2, size - 2);
	if (!io)
		return 0;
	if (flags & FZ_F_CSUM)
		fz_fix_csums(io);
	if (is_journal(kind)) {
		fz_journal(io, NULL, FZ_J_VERIFY | (flags & 0x20 ? FZ_J_REPLAY : 0));
	} else if (!fz_open(io, 0, 0, 0, &fs)) {
		fz_walk(fs, E4_ITER_META | (flags & 0x10 ? E4_ITER_AS_STORED : 0), 0);
		(void)e4_close(fs);
	}
	e4_io_close(io);
	return 0;
}
