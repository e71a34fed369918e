/*
 * jcreate.c: adding an internal journal to an existing filesystem and
 * removing it (format doc section 14; e4.h "journal creation").
 *
 * Both write in an order whose every stop leaves at most leaks, on a
 * filesystem marked not clean (DESIGN.md "Writing safely"; judged by
 * tests/t/tune_crash.sh).  Creation: the journal's blocks (zeroed, then
 * its superblock: free blocks until the end), the primary superblock
 * marked not clean, the bitmaps and descriptors that mark the blocks in
 * use, the mapping blocks and inode 8, and last the superblock that names
 * the journal, with its state back as it was.  Removal does the reverse:
 * the superblock forgets the journal and is marked not clean in the same
 * write, then inode 8 is cleared, then its blocks are freed, and the
 * superblock gets its state back last.  (Freeing the blocks while the
 * superblock still names the journal would leave live journal blocks
 * free: the kernel would allocate them and replay over them.)
 */
#include "e4_private.h"

#include <stdlib.h>
#include <string.h>

#define ZERO_CHUNK	(1U << 20)	/* bytes zeroed per write */
#define MAX_RUNS	65536		/* allocation pieces accepted */

e4_blk_t e4_journal_default_goal(e4_fs *fs)
{
	const struct e4_geom *g = &fs->geom;
	struct e4_group gd;
	e4_group_t grp, start, end, best;
	unsigned log_flex = fs->sb->s_log_groups_per_flex;

	grp = e4_group_of_block(fs, (g->blocks_count - g->first_data_block) / 2);
	if (grp >= g->group_count)
		grp = g->group_count - 1;
	if (log_flex && log_flex < 32 && grp > (1U << log_flex)) {
		grp &= ~((1U << log_flex) - 1);
		while (grp < g->group_count &&
		       (e4_group_get(fs, grp, &gd) || gd.free_blocks == 0))
			grp++;
		if (grp >= g->group_count)
			grp = 0;
		start = grp;
	} else {
		start = grp > 0 ? grp - 1 : grp;
	}
	end = grp + 1 < g->group_count ? grp + 1 : grp;
	best = start;
	for (e4_group_t i = start + 1; i <= end; i++) {
		struct e4_group a, b;

		if (!e4_group_get(fs, i, &a) && !e4_group_get(fs, best, &b) &&
		    a.free_blocks > b.free_blocks)
			best = i;
	}
	return e4_group_first_block(fs, best);
}

/* The blocks allocated for the journal, in a map (runs backend), taken
 * back in the order alloc_stream() found them: its first fit goes from the
 * first block it took (origin) to the end of the filesystem, then wraps
 * once to the first data block and stops short of origin. */
struct pstream {
	struct e4_bmap *map;
	e4_blk_t origin;	/* the first block allocated */
	e4_blk_t pos;		/* the next block to take */
	int wrapped;		/* pos is in the part before origin */
};

static errcode_t ps_init(e4_fs *fs, struct pstream *ps)
{
	memset(ps, 0, sizeof(*ps));
	return e4_bmap_create(E4_BMAP_RUNS, fs->geom.first_data_block, fs->geom.blocks_count,
			      &ps->map);
}

static errcode_t ps_add(struct pstream *ps, e4_blk_t start, uint32_t len)
{
	errcode_t err;

	if (!e4_bmap_count(ps->map))
		ps->origin = ps->pos = start;
	err = e4_bmap_set_range(ps->map, start, len);
	if (!err && e4_bmap_run_count(ps->map) > MAX_RUNS)
		err = E4_ERR_NO_SPACE;
	return err;
}

/* Next len blocks of the stream (at most up to the end of the current
 * run): *pblk and *got. */
static int ps_take(struct pstream *ps, uint32_t len, e4_blk_t *pblk, uint32_t *got)
{
	uint64_t first, n, end;

	for (;;) {
		end = ps->wrapped ? ps->origin : e4_bmap_end(ps->map);
		if (ps->pos < end && !e4_bmap_next_run(ps->map, ps->pos, &first, &n) && first < end)
			break;
		if (ps->wrapped)
			return -1;
		ps->wrapped = 1;
		ps->pos = e4_bmap_start(ps->map);
	}
	if (n > end - first)
		n = end - first;
	*pblk = first;
	*got = len < n ? len : (uint32_t)n;
	ps->pos = first + *got;
	return 0;
}

/* Allocate count blocks from goal on, first fit: the free runs met from
 * goal on (wrapping), in order, as the reference tools do.  Blocks are
 * marked in use. */
static errcode_t alloc_stream(e4_fs *fs, e4_blk_t goal, uint64_t count, struct pstream *ps)
{
	uint64_t left = count;
	errcode_t err;

	while (left) {
		e4_blk_t first;
		uint64_t len = 1;
		int used = 0;

		err = e4_block_find_free(fs, goal, 1, &first);
		if (err)
			return err;
		while (len < left && len < UINT32_MAX && first + len < fs->geom.blocks_count) {
			err = e4_test_block(fs, first + len, &used);
			if (err)
				return err;
			if (used)
				break;
			len++;
		}
		err = e4_block_mark(fs, first, len, 1, NULL);
		if (!err)
			err = ps_add(ps, first, (uint32_t)len);
		if (err)
			return err;
		left -= len;
		goal = first + len;
		if (goal >= fs->geom.blocks_count)
			goal = fs->geom.first_data_block;
	}
	return 0;
}

static errcode_t zero_blocks(e4_fs *fs, e4_blk_t blk, uint64_t n, const void *zero)
{
	unsigned bs = fs->geom.block_size;
	uint64_t per = ZERO_CHUNK / bs;
	errcode_t err = 0;

	while (n && !err) {
		uint64_t k = n < per ? n : per;

		err = e4_io_pwrite(fs->io, blk * (uint64_t)bs, zero, k * bs);
		blk += k;
		n -= k;
	}
	return err;
}

/* Indirect blocks a block map of n data blocks needs (section 7.1). */
static uint64_t blockmap_meta_count(uint64_t n, uint64_t apb)
{
	uint64_t meta = 0;

	if (n <= 12)
		return 0;
	n -= 12;
	meta++;				/* IND */
	if (n <= apb)
		return meta;
	n -= apb;
	if (n <= apb * apb)
		return meta + 1 + (n + apb - 1) / apb;	/* DIND + its INDs */
	meta += 1 + apb;
	n -= apb * apb;
	/* TIND, its DINDs, their INDs */
	return meta + 1 + (n + apb * apb - 1) / (apb * apb) + (n + apb - 1) / apb;
}

errcode_t e4_journal_create(e4_fs *fs, uint32_t blocks, uint32_t fc_blocks, e4_blk_t goal,
			    int64_t now)
{
	const struct e4_geom *g = &fs->geom;
	struct ext4_super_block *sb = fs->sb;
	unsigned bs = g->block_size;
	int extents = e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EXTENTS);
	uint64_t total = (uint64_t)blocks + fc_blocks, meta = 0;
	struct e4_time t = { now, 0 };
	struct pstream ps;
	struct e4_map_extent *ext = NULL;
	e4_blk_t *metablk = NULL, leaf = 0;
	unsigned next = 0;
	uint64_t cap;
	union e4_inode_buf ib;
	uint8_t *buf = NULL;
	uint16_t state;
	errcode_t err;

	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (e4_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL) || sb->s_journal_inum)
		return E4_ERR_INVALID_ARGUMENT;
	if (g->cluster_bits)
		return E4_ERR_UNSUPPORTED;
	if (blocks < 1024 || total > 10240000 ||
	    total > e4_sb_free_blocks_count(sb) / 2)
		return E4_ERR_JOURNAL_SIZE;
	err = e4_inode_read(fs, EXT4_JOURNAL_INO, &ib);
	if (err)
		return err;
	/* inode 8 must not own blocks already (a left-over journal) */
	if (ib.inode.i_blocks_lo || ib.inode.l_i_blocks_high || e4_inode_size(&ib.inode))
		return E4_ERR_JOURNAL_INODE;
	/* the reference tools start a block-mapped journal at the first free
	 * block, an extent-mapped one at the middle group */
	if (!goal || goal >= g->blocks_count)
		goal = extents ? e4_journal_default_goal(fs) : g->first_data_block;

	err = ps_init(fs, &ps);
	if (err)
		return err;
	buf = calloc(1, ZERO_CHUNK > bs ? ZERO_CHUNK : bs);
	if (!buf) {
		err = E4_ERR_NO_MEMORY;
		goto out;
	}
	if (!extents) {
		meta = blockmap_meta_count(total, bs / 4);
		metablk = malloc((meta + 1) * sizeof(*metablk));
		if (!metablk) {
			err = E4_ERR_NO_MEMORY;
			goto out;
		}
	}
	err = alloc_stream(fs, goal, total + meta, &ps);
	if (err)
		goto out;

	/* split the stream: with a block map, each indirect block comes right
	 * before the first data block it maps (as ext2/3 tools lay it out) */
	/* runs, split further at indirect blocks and at 32768 blocks */
	cap = e4_bmap_run_count(ps.map) + 1 + meta + total / EXT_INIT_MAX_LEN + 2;
	ext = calloc(cap, sizeof(*ext));
	if (!ext) {
		err = E4_ERR_NO_MEMORY;
		goto out;
	}
	{
		uint64_t lblk = 0, apb = bs / 4, nmeta = 0;
		unsigned ne = 0;

		while (lblk < total) {
			uint64_t want = total - lblk;
			e4_blk_t p;
			uint32_t got;

			if (!extents && lblk >= 12) {
				uint64_t j = lblk - 12, need = 0, span;

				/* metadata blocks that start at this logical block */
				if (j < apb) {
					need = j == 0;
					span = apb - j;
				} else if ((j -= apb) < apb * apb) {
					need = (j == 0) + (j % apb == 0);
					span = apb - j % apb;
				} else {
					j -= apb * apb;
					need = (j == 0) + (j % (apb * apb) == 0) + (j % apb == 0);
					span = apb - j % apb;
				}
				for (uint64_t k = 0; k < need; k++) {
					if (ps_take(&ps, 1, &p, &got) || nmeta >= meta) {
						err = E4_ERR_CORRUPT;
						goto out;
					}
					metablk[nmeta++] = p;
				}
				if (want > span)
					want = span;
			} else if (!extents && want > 12 - lblk) {
				want = 12 - lblk;
			}
			if (extents && want > EXT_INIT_MAX_LEN)
				want = EXT_INIT_MAX_LEN;
			if (ps_take(&ps, (uint32_t)(want > UINT32_MAX ? UINT32_MAX : want), &p, &got)) {
				err = E4_ERR_CORRUPT;
				goto out;
			}
			if (ne && ext[ne - 1].pblk + ext[ne - 1].len == p &&
			    (!extents || ext[ne - 1].len + got <= EXT_INIT_MAX_LEN)) {
				ext[ne - 1].len += got;
			} else {
				if (ne >= cap) {
					err = E4_ERR_CORRUPT;
					goto out;
				}
				ext[ne].lblk = lblk;
				ext[ne].pblk = p;
				ext[ne].len = got;
				ne++;
			}
			lblk += got;
		}
		next = ne;
		if (nmeta != meta) {
			err = E4_ERR_CORRUPT;
			goto out;
		}
	}
	if (extents && next > 4) {
		/* one leaf block, from the block before the journal on (where the
		 * reference puts it when that block is free) */
		err = e4_block_find_free(fs, ext[0].pblk > g->first_data_block ? ext[0].pblk - 1
								     : ext[0].pblk, 1, &leaf);
		if (!err)
			err = e4_block_mark(fs, leaf, 1, 1, NULL);
		if (err)
			goto out;
	}

	/* 1. the journal's contents: zeros, then its superblock (the blocks
	 * are still free on the device) */
	memset(buf, 0, ZERO_CHUNK > bs ? ZERO_CHUNK : bs);
	for (unsigned i = 0; i < next && !err; i++)
		err = zero_blocks(fs, ext[i].pblk, ext[i].len, buf);
	if (err)
		goto out;
	e4_jsb_init((journal_superblock_t *)buf, bs, (uint32_t)total, sb->s_uuid, fc_blocks);
	err = e4_io_pwrite(fs->io, ext[0].pblk * (uint64_t)bs, buf, bs);
	if (err)
		goto out;
	memset(buf, 0, bs);

	/* 2. not clean on the device, then the blocks marked in use (bitmaps,
	 * descriptors, and the superblock with the new counts, still not
	 * clean): a stop from here on leaves leaks the next check frees */
	state = sb->s_state;
	err = e4_super_mark_unclean(fs);
	if (err)
		goto out;
	sb->s_state = e4_cpu_to_le16(e4_le16(state) & ~EXT4_VALID_FS);
	err = e4_alloc_flush(fs);
	if (err)
		goto out;

	/* 3. the map and inode 8 (generation 0, as the reference writes it) */
	err = e4_inode_init_flags(fs, EXT4_JOURNAL_INO, EXT4_S_IFREG | 0600, 0, 0, &t, 0,
				  E4_INODE_INIT_GENERATION, &ib);
	if (!err)
		err = e4_inode_size_set(fs, &ib.inode, total * bs);
	if (err)
		goto out;
	if (extents) {
		err = e4_extent_tree_build(fs, EXT4_JOURNAL_INO, &ib.inode, ext, next, leaf, buf);
		if (!err && leaf)
			err = e4_io_pwrite(fs->io, leaf * (uint64_t)bs, buf, bs);
		meta = leaf ? 1 : 0;
	} else {
		err = e4_blockmap_build(fs, &ib.inode, ext, next, metablk, (uint32_t)meta);
	}
	if (err)
		goto out;
	err = e4_inode_blocks_set(fs, &ib.inode, (total + meta) * (bs / 512));
	if (!err)
		err = e4_io_flush(fs->io);
	if (!err)
		err = e4_inode_write(fs, EXT4_JOURNAL_INO, &ib);
	if (!err)
		err = e4_io_flush(fs->io);
	if (err)
		goto out;

	/* 4. the superblock names the journal, its state back as it was */
	sb->s_state = state;
	fs->sb_dirty = 1;
	e4_sb_jnl_backup_set(sb, &ib.inode);
	sb->s_journal_inum = e4_cpu_to_le32(EXT4_JOURNAL_INO);
	sb->s_journal_dev = 0;
	memset(sb->s_journal_uuid, 0, sizeof(sb->s_journal_uuid));
	e4_sb_feature_change(sb, E4_FEAT_COMPAT, EXT4_FEATURE_COMPAT_HAS_JOURNAL, 1);
	if (fc_blocks)
		e4_sb_feature_change(sb, E4_FEAT_COMPAT, EXT4_FEATURE_COMPAT_FAST_COMMIT, 1);
	err = e4_alloc_flush(fs);
	if (!err)
		err = e4_super_write_backups(fs);
	if (!err)
		err = e4_flush(fs);
out:
	e4_bmap_free(ps.map);
	free(ext);
	free(metablk);
	free(buf);
	return err;
}

/* ---- removal ------------------------------------------------------------- */
static int zero16(const uint8_t *p)
{
	for (int i = 0; i < 16; i++)
		if (p[i])
			return 0;
	return 1;
}

/* The journal's blocks (data and mapping), collected in a map (runs
 * backend) to be freed once inode 8 is cleared. */
static int collect_cb(e4_fs *fs, const struct e4_map_extent *ext, void *priv)
{
	struct e4_bmap *map = priv;
	errcode_t err;

	if (ext->pblk + ext->len > fs->geom.blocks_count || ext->pblk < fs->geom.first_data_block)
		return (int)E4_ERR_BAD_BLOCK_NUM;
	err = e4_bmap_set_range(map, ext->pblk, ext->len);
	if (!err && e4_bmap_run_count(map) > (1U << 24))
		err = E4_ERR_CORRUPT;
	return (int)err;
}

struct free_ctx {
	e4_fs *fs;
	errcode_t err;
};

static int free_run(uint64_t first, uint64_t len, void *priv)
{
	struct free_ctx *c = priv;

	c->err = e4_block_mark(c->fs, first, len, 0, NULL);
	return c->err ? 1 : 0;
}

errcode_t e4_journal_remove(e4_fs *fs)
{
	struct ext4_super_block *sb = fs->sb;
	struct e4_bmap *blocks = NULL;
	struct free_ctx c = { fs, 0 };
	union e4_inode_buf ib;
	e4_ino_t ino;
	uint16_t state;
	errcode_t err;

	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (!e4_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL))
		return E4_ERR_NO_JOURNAL;
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_RECOVER))
		return E4_ERR_INVALID_ARGUMENT;
	ino = e4_le32(sb->s_journal_inum);
	if (!ino && !zero16(sb->s_journal_uuid))
		return E4_ERR_EXTERNAL_JOURNAL;
	if (ino && ino != EXT4_JOURNAL_INO)
		return E4_ERR_JOURNAL_INODE;
	err = e4_bmap_create(E4_BMAP_RUNS, 0, fs->geom.blocks_count, &blocks);
	if (err)
		return err;
	if (ino) {
		err = e4_inode_read(fs, ino, &ib);
		if (err)
			goto out;
		if (e4_inode_has_map(fs, &ib.inode)) {
			err = e4_map_iterate(fs, ino, &ib.inode, E4_ITER_META, collect_cb, blocks);
			if (err)
				goto out;
		}
	}

	/* 1. the superblock forgets the journal and says not clean, primary
	 * first */
	state = sb->s_state;
	sb->s_state = e4_cpu_to_le16(e4_le16(state) & ~EXT4_VALID_FS);
	e4_sb_feature_change(sb, E4_FEAT_COMPAT,
			     EXT4_FEATURE_COMPAT_HAS_JOURNAL | EXT4_FEATURE_COMPAT_FAST_COMMIT, 0);
	sb->s_journal_inum = 0;
	sb->s_journal_dev = 0;
	memset(sb->s_journal_uuid, 0, sizeof(sb->s_journal_uuid));
	memset(sb->s_jnl_blocks, 0, sizeof(sb->s_jnl_blocks));
	sb->s_jnl_backup_type = 0;
	err = e4_super_write(fs);
	if (!err)
		err = e4_flush(fs);
	if (!err)
		err = e4_super_write_backups(fs);
	if (err)
		goto out;

	/* 2. inode 8 is cleared */
	if (ino) {
		memset(&ib, 0, sizeof(ib));
		err = e4_inode_write(fs, ino, &ib);
		if (!err)
			err = e4_flush(fs);
	}

	/* 3. its blocks are freed: bitmaps, descriptors, and last the
	 * superblock with the new counts and its state back as it was */
	if (!err && e4_bmap_iterate(blocks, 0, fs->geom.blocks_count, free_run, &c))
		err = c.err;
	if (!err) {
		sb->s_state = state;
		fs->sb_dirty = 1;
		err = e4_alloc_flush(fs);
	}
	if (!err)
		err = e4_super_write_backups(fs);
	if (!err)
		err = e4_flush(fs);
out:
	e4_bmap_free(blocks);
	return err;
}
