/*
 * journal.c: the jbd2 journal: locating it (internal inode or external
 * device), loading and validating its superblock, mapping journal blocks
 * (format doc sections 11 and 14).
 */
#include "e4_private.h"

#include <stdlib.h>
#include <string.h>

struct e4_journal {
	e4_fs *fs;
	e4_io *ext_io;			/* external journal device, or NULL */
	unsigned blocksize;
	uint32_t maxlen;		/* blocks */
	e4_blk_t *map;			/* internal: jblk -> device block */
	e4_blk_t jsb_block;		/* device block of the journal superblock */
	unsigned open_flags;		/* E4_JOPEN_* */
	int csum_bad;			/* opened despite a bad superblock checksum */
	int ext_sb_csum_bad;		/* external: the device's ext4 superblock too */
	journal_superblock_t jsb;
};

static errcode_t jsb_validate(const journal_superblock_t *jsb, unsigned fs_blocksize,
			     int *csum_bad);

errcode_t e4_journal_super_validate(const journal_superblock_t *jsb, unsigned fs_blocksize)
{
	int csum_bad = 0;
	errcode_t err = jsb_validate(jsb, fs_blocksize, &csum_bad);

	return err ? err : csum_bad ? E4_ERR_JOURNAL_CSUM : 0;
}

/* Everything e4_journal_super_validate() checks; a checksum mismatch only
 * sets *csum_bad, so that the other checks still run. */
static errcode_t jsb_validate(const journal_superblock_t *jsb, unsigned fs_blocksize,
			      int *csum_bad)
{
	uint32_t type = e4_be32(jsb->s_header.h_blocktype);
	uint32_t incompat = e4_be32(jsb->s_feature_incompat);
	uint32_t maxlen = e4_be32(jsb->s_maxlen), first = e4_be32(jsb->s_first);
	int nchk = 0;

	if (e4_be32(jsb->s_header.h_magic) != JBD2_MAGIC_NUMBER)
		return E4_ERR_JOURNAL_MAGIC;
	if (type != JBD2_SUPERBLOCK_V1 && type != JBD2_SUPERBLOCK_V2)
		return E4_ERR_JOURNAL_VERSION;
	if (e4_be32(jsb->s_blocksize) != fs_blocksize)
		return E4_ERR_JOURNAL_CORRUPT;
	if (maxlen < JBD2_MIN_JOURNAL_BLOCKS / 4 || first == 0 || first >= maxlen)
		return E4_ERR_JOURNAL_CORRUPT;
	if (type == JBD2_SUPERBLOCK_V2) {
		if (incompat & ~JBD2_KNOWN_INCOMPAT_FEATURES ||
		    e4_be32(jsb->s_feature_ro_compat) & ~JBD2_KNOWN_ROCOMPAT_FEATURES)
			return E4_ERR_JOURNAL_UNSUPP;
		if (e4_be32(jsb->s_nr_users) > JBD2_USERS_MAX)
			return E4_ERR_JOURNAL_CORRUPT;
		nchk += !!(e4_be32(jsb->s_feature_compat) & JBD2_FEATURE_COMPAT_CHECKSUM);
		nchk += !!(incompat & JBD2_FEATURE_INCOMPAT_CSUM_V2);
		nchk += !!(incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3);
		if (nchk > 1)
			return E4_ERR_JOURNAL_CORRUPT;
		if (incompat & (JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3)) {
			if (jsb->s_checksum_type != JBD2_CRC32C_CHKSUM)
				return E4_ERR_JOURNAL_CORRUPT;
			if (e4_be32(jsb->s_checksum) != e4_jsb_csum(jsb))
				*csum_bad = 1;
		}
	}
	if (e4_be32(jsb->s_start) && (e4_be32(jsb->s_start) < first ||
				      e4_be32(jsb->s_start) >= maxlen))
		return E4_ERR_JOURNAL_CORRUPT;
	return 0;
}

/* Validate the superblock just read; with E4_JOPEN_IGNORE_CSUM a bad
 * checksum is only remembered (e4_journal_csum_ok()). */
static errcode_t validate_loaded(e4_journal *j, unsigned bs)
{
	errcode_t err = jsb_validate(&j->jsb, bs, &j->csum_bad);

	if (!err && j->csum_bad && !(j->open_flags & E4_JOPEN_IGNORE_CSUM))
		err = E4_ERR_JOURNAL_CSUM;
	return err;
}

struct map_ctx {
	e4_journal *j;
	uint64_t limit;
};

static int map_cb(e4_fs *fs, const struct e4_map_extent *ext, void *priv)
{
	struct map_ctx *c = priv;

	(void)fs;
	if (ext->flags & E4_MAP_META)
		return 0;
	for (uint32_t k = 0; k < ext->len && ext->lblk + k < c->limit; k++)
		c->j->map[ext->lblk + k] = ext->pblk + k;
	return 0;
}

static errcode_t open_internal(e4_journal *j)
{
	e4_fs *fs = j->fs;
	union e4_inode_buf ib;
	uint64_t nblocks;
	struct map_ctx ctx;
	uint8_t *blk;
	errcode_t err;
	e4_ino_t ino = e4_le32(fs->sb->s_journal_inum);

	err = e4_inode_read(fs, ino, &ib);
	if (err && err != E4_ERR_INODE_CSUM)
		return err;
	if (!e4_is_reg(&ib.inode) && e4_le16(ib.inode.i_mode) != 0)
		return E4_ERR_JOURNAL_INODE;
	if (!e4_le16(ib.inode.i_links_count) && !e4_le16(ib.inode.i_mode))
		return E4_ERR_JOURNAL_INODE;
	nblocks = e4_inode_size(&ib.inode) / fs->geom.block_size;
	/* a journal cannot be larger than the filesystem holding it; a
	 * damaged i_size must not size the map */
	if (nblocks > fs->geom.blocks_count)
		nblocks = fs->geom.blocks_count;
	if (nblocks < 1 || nblocks > (1u << 30))
		return E4_ERR_JOURNAL_INODE;
	/* the superblock first: its s_maxlen, once validated, sizes the map */
	{
		e4_blk_t pblk = 0;
		uint32_t len = 0;
		unsigned fl = 0;

		err = e4_bmap(fs, ino, &ib.inode, 0, &pblk, &len, &fl);
		if (err)
			return err;
		if (!pblk)
			return E4_ERR_JOURNAL_INODE;
		j->jsb_block = pblk;
	}
	blk = malloc(fs->geom.block_size);
	if (!blk)
		return E4_ERR_NO_MEMORY;
	err = e4_read_block(fs, j->jsb_block, blk);
	if (!err)
		memcpy(&j->jsb, blk, sizeof(j->jsb));
	free(blk);
	if (err)
		return err;
	if (!(j->open_flags & E4_JOPEN_RAW)) {
		err = validate_loaded(j, fs->geom.block_size);
		if (err)
			return err;
		if (e4_be32(j->jsb.s_maxlen) > nblocks)
			return E4_ERR_JOURNAL_TOO_SMALL;
		nblocks = e4_be32(j->jsb.s_maxlen);
	}
	j->map = calloc(nblocks, sizeof(*j->map));
	if (!j->map)
		return E4_ERR_NO_MEMORY;
	ctx.j = j;
	ctx.limit = nblocks;
	err = e4_map_iterate(fs, ino, &ib.inode, 0, map_cb, &ctx);
	if (err)
		return err;
	if (!j->map[0])
		return E4_ERR_JOURNAL_INODE;
	j->maxlen = (uint32_t)nblocks;
	return 0;
}

static errcode_t open_external(e4_journal *j, const char *path)
{
	e4_fs *fs = j->fs;
	struct ext4_super_block esb;
	errcode_t err;
	unsigned bs = fs->geom.block_size;
	uint8_t *blk;

	err = e4_io_open(path, (fs->flags & E4_OPEN_RW) ? E4_IO_RW : 0, &j->ext_io);
	if (err)
		return err;
	err = e4_io_pread(j->ext_io, EXT4_SUPERBLOCK_OFFSET, &esb, sizeof(esb));
	if (err)
		return err;
	if (e4_le16(esb.s_magic) != EXT4_SUPER_MAGIC ||
	    !(e4_le32(esb.s_feature_incompat) & EXT4_FEATURE_INCOMPAT_JOURNAL_DEV))
		return E4_ERR_JOURNAL_MAGIC;
	if ((EXT4_MIN_BLOCK_SIZE << (e4_le32(esb.s_log_block_size) & 7)) != (int)bs)
		return E4_ERR_JOURNAL_CORRUPT;
	if (memcmp(esb.s_uuid, fs->sb->s_journal_uuid, 16))
		return E4_ERR_JOURNAL_UUID;
	/* The journal device's own ext4 superblock checksum (metadata_csum). */
	if ((e4_le32(esb.s_feature_ro_compat) & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) &&
	    e4_le32(esb.s_checksum) != e4_superblock_csum(&esb)) {
		if (!(j->open_flags & E4_JOPEN_IGNORE_CSUM))
			return E4_ERR_JOURNAL_CSUM;
		j->ext_sb_csum_bad = 1;
	}
	err = e4_io_set_blksize(j->ext_io, bs);
	if (err)
		return err;
	j->jsb_block = bs == 1024 ? 2 : 1;
	blk = malloc(bs);
	if (!blk)
		return E4_ERR_NO_MEMORY;
	err = e4_io_read_blk(j->ext_io, j->jsb_block, 1, blk);
	if (!err)
		memcpy(&j->jsb, blk, sizeof(j->jsb));
	free(blk);
	if (err)
		return err;
	err = validate_loaded(j, bs);
	if (err)
		return err;
	j->maxlen = e4_be32(j->jsb.s_maxlen);
	if ((uint64_t)j->maxlen * bs > e4_io_size(j->ext_io))
		return E4_ERR_JOURNAL_TOO_SMALL;
	return 0;
}

errcode_t e4_journal_open(e4_fs *fs, const char *ext_path, e4_journal **ret)
{
	return e4_journal_open2(fs, ext_path, 0, ret);
}

int e4_journal_csum_ok(e4_journal *j)
{
	return !j->csum_bad && !j->ext_sb_csum_bad;
}

/* External journal: rewrite the device's ext4 superblock checksum. */
static errcode_t fix_ext_sb_csum(e4_journal *j)
{
	struct ext4_super_block esb;
	errcode_t err;

	err = e4_io_pread(j->ext_io, EXT4_SUPERBLOCK_OFFSET, &esb, sizeof(esb));
	if (err)
		return err;
	esb.s_checksum = e4_cpu_to_le32(e4_superblock_csum(&esb));
	err = e4_io_pwrite(j->ext_io, EXT4_SUPERBLOCK_OFFSET, &esb, sizeof(esb));
	if (!err)
		j->ext_sb_csum_bad = 0;
	return err;
}

/* The internal journal's inode into *ib (a bad inode checksum is no
 * error here); *ino 0 without an internal journal. */
static errcode_t read_jinode(e4_fs *fs, e4_ino_t *ino, union e4_inode_buf *ib)
{
	errcode_t err;

	*ino = e4_le32(fs->sb->s_journal_inum);
	if (!*ino)
		return 0;
	err = e4_inode_read(fs, *ino, ib);
	return err == E4_ERR_INODE_CSUM ? 0 : err;
}

errcode_t e4_journal_inode_mountable(e4_fs *fs)
{
	union e4_inode_buf ib;
	e4_ino_t ino;
	errcode_t err = read_jinode(fs, &ino, &ib);

	if (err || !ino)
		return err;
	/* the kernel refuses an encrypted journal inode at mount ("invalid
	 * journal inode"), though its blocks may still read as a log */
	if (e4_le32(ib.inode.i_flags) & EXT4_ENCRYPT_FL)
		return E4_ERR_JOURNAL_INODE;
	return 0;
}

errcode_t e4_journal_inode_holes(e4_fs *fs, uint64_t *lblk)
{
	union e4_inode_buf ib;
	e4_ino_t ino;
	uint64_t nblocks, k = 0;
	errcode_t err = read_jinode(fs, &ino, &ib);

	*lblk = 0;
	if (err || !ino)
		return err;
	nblocks = e4_inode_size(&ib.inode) / fs->geom.block_size;
	/* a journal larger than its filesystem cannot be mapped whole */
	if (nblocks > fs->geom.blocks_count) {
		*lblk = fs->geom.blocks_count;
		return E4_ERR_JOURNAL_INODE;
	}
	while (k < nblocks) {
		e4_blk_t pblk = 0;
		uint32_t len = 0;
		unsigned fl = 0;
		uint64_t run;

		err = e4_bmap(fs, ino, &ib.inode, k, &pblk, &len, &fl);
		if (e4_err_is_io(err) || err == E4_ERR_NO_MEMORY)
			return err;
		*lblk = k;
		if (err || !pblk || !len)
			return E4_ERR_JOURNAL_INODE;
		run = len < nblocks - k ? len : nblocks - k;
		if (pblk < fs->geom.first_data_block || pblk >= fs->geom.blocks_count ||
		    run > fs->geom.blocks_count - pblk)
			return E4_ERR_JOURNAL_INODE;
		k += run;
	}
	return 0;
}

static const uint8_t zero_uuid[16];

errcode_t e4_journal_open2(e4_fs *fs, const char *ext_path, unsigned flags, e4_journal **ret)
{
	e4_journal *j;
	errcode_t err;

	*ret = NULL;
	if (!e4_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL) && !ext_path)
		return E4_ERR_NO_JOURNAL;
	j = calloc(1, sizeof(*j));
	if (!j)
		return E4_ERR_NO_MEMORY;
	j->fs = fs;
	j->open_flags = flags;
	j->blocksize = fs->geom.block_size;
	if (e4_le32(fs->sb->s_journal_inum) && !ext_path) {
		err = open_internal(j);
	} else if (flags & E4_JOPEN_RAW) {
		err = E4_ERR_INVALID_ARGUMENT;
	} else if (ext_path) {
		err = open_external(j, ext_path);
	} else if (!e4_le32(fs->sb->s_journal_dev) &&
		   !memcmp(fs->sb->s_journal_uuid, zero_uuid, sizeof(zero_uuid))) {
		/* has_journal, no inode and nothing naming a device */
		err = E4_ERR_JOURNAL_INODE;
	} else {
		err = E4_ERR_EXTERNAL_JOURNAL;
	}
	if (err) {
		e4_journal_close(j);
		return err;
	}
	*ret = j;
	return 0;
}

void e4_journal_close(e4_journal *j)
{
	if (!j)
		return;
	if (j->ext_io)
		e4_io_close(j->ext_io);
	free(j->map);
	free(j);
}

const journal_superblock_t *e4_journal_super(e4_journal *j)
{
	return &j->jsb;
}

uint32_t e4_journal_blocks(e4_journal *j)
{
	return j->maxlen;
}

unsigned e4_journal_blocksize(e4_journal *j)
{
	return j->blocksize;
}

errcode_t e4_journal_bmap(e4_journal *j, uint32_t jblk, e4_blk_t *pblk)
{
	if (jblk >= j->maxlen)
		return E4_ERR_BAD_BLOCK_NUM;
	if (j->ext_io) {
		*pblk = jblk;
		return 0;
	}
	*pblk = j->map[jblk];
	return *pblk ? 0 : E4_ERR_JOURNAL_INODE;
}

errcode_t e4_journal_read_block(e4_journal *j, uint32_t jblk, void *buf)
{
	e4_blk_t pblk;
	errcode_t err;

	err = e4_journal_bmap(j, jblk, &pblk);
	if (err)
		return err;
	if (j->ext_io)
		return e4_io_read_blk(j->ext_io, pblk, 1, buf);
	return e4_read_block(j->fs, pblk, buf);
}

errcode_t e4_journal_write_super(e4_journal *j, const journal_superblock_t *jsb)
{
	e4_io *io = j->ext_io ? j->ext_io : j->fs->io;
	journal_superblock_t tmp = *jsb;
	uint8_t *blk;
	errcode_t err;

	if (e4_be32(tmp.s_header.h_blocktype) == JBD2_SUPERBLOCK_V2 &&
	    (e4_be32(tmp.s_feature_incompat) &
	     (JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3)))
		tmp.s_checksum = e4_cpu_to_be32(e4_jsb_csum(&tmp));
	if (j->ext_io && j->ext_sb_csum_bad) {
		err = fix_ext_sb_csum(j);
		if (err)
			return err;
	}
	blk = malloc(j->blocksize);
	if (!blk)
		return E4_ERR_NO_MEMORY;
	err = e4_io_read_blk(io, j->jsb_block, 1, blk);
	if (!err) {
		memcpy(blk, &tmp, sizeof(tmp));
		err = e4_io_write_blk(io, j->jsb_block, 1, blk);
	}
	if (!err)
		err = e4_io_flush(io);
	free(blk);
	if (!err) {
		j->jsb = tmp;
		j->csum_bad = 0;
	}
	return err;
}

errcode_t e4_journal_write_block(e4_journal *j, uint32_t jblk, const void *buf)
{
	e4_blk_t pblk;
	errcode_t err;

	err = e4_journal_bmap(j, jblk, &pblk);
	if (err)
		return err;
	return e4_io_write_blk(e4_journal_io(j), pblk, 1, buf);
}

e4_io *e4_journal_io(e4_journal *j)
{
	return j->ext_io ? j->ext_io : j->fs->io;
}

int e4_journal_is_external(e4_journal *j)
{
	return j->ext_io != NULL;
}
