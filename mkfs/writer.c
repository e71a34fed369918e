/*
 * writer.c: e4mkfs's writer: the layout computed by libe4 (layout.c)
 * turned into metadata on disk.
 *
 * Order (DESIGN.md, "Writing safely"): wipe old signatures and discard,
 * zero the old primary superblock and fsync; then zero what must read as
 * zeros (inode tables, journal) when the discard did not; then bitmaps,
 * inodes, directories, journal, descriptor tables and superblock backups;
 * fsync; finally the primary superblock, and fsync again.
 */
#include "mkfs.h"

#define MKFS_WRITEBACK_AHEAD	(1u << 20)	/* bytes */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- used clusters ------------------------------------------------------ */
/* Clusters marked in a map (runs backend: memory by runs of metadata, not
 * by device size), a pending run at a time: flex_bg packs every group's
 * bitmaps and tables in a row, and one call per row is what keeps a 5 TiB
 * filesystem's 655,360 groups cheap. */
struct marker {
	struct e4_bmap *map;
	unsigned cbits;
	uint64_t s, e;		/* pending clusters [s, e) */
	int bad;		/* no memory, or outside the map */
};

static void mark_flush(struct marker *k)
{
	if (k->e > k->s && e4_bmap_set_range(k->map, k->s, k->e - k->s))
		k->bad = 1;
	k->s = k->e = 0;
}

/* The clusters of blocks [blk, blk + len). */
static void mark_blocks(struct marker *k, uint64_t blk, uint64_t len)
{
	uint64_t s, e;

	if (!len)
		return;
	s = blk >> k->cbits;
	e = ((blk + len - 1) >> k->cbits) + 1;
	if (k->e > k->s && s >= k->s && s <= k->e) {
		if (e > k->e)
			k->e = e;
		return;
	}
	mark_flush(k);
	k->s = s;
	k->e = e;
}

static void mark_file(struct marker *k, const struct e4_layout_file *f)
{
	if (!f->ino)
		return;
	for (uint32_t i = 0; i < f->nr_extents; i++)
		mark_blocks(k, f->extents[i].start, f->extents[i].len);
	for (uint32_t i = 0; i < f->nr_meta; i++)
		mark_blocks(k, f->meta[i], 1);
}

/* A map of the filesystem's clusters shaped as e4_bmap_new_blocks()
 * shapes it (from first_data_block's cluster; a 1 KiB-block bigalloc
 * filesystem's block 0 is in cluster 0), for a marker: the map
 * e4_bmap_store_blocks() writes, made before the filesystem is open. */
static int marker_init(struct marker *k, const struct e4_layout *l)
{
	uint64_t n = (l->blocks_count + (1ULL << l->cluster_bits) - 1) >> l->cluster_bits;

	memset(k, 0, sizeof(*k));
	k->cbits = l->cluster_bits;
	return e4_bmap_create(E4_BMAP_RUNS, l->first_data_block >> l->cluster_bits, n, &k->map) ?
		-1 : 0;
}

/* The map, once everything is marked; NULL (and the map freed) if a mark
 * failed. */
static struct e4_bmap *marker_done(struct marker *k)
{
	mark_flush(k);
	if (k->bad) {
		e4_bmap_free(k->map);
		return NULL;
	}
	return k->map;
}

/* Every cluster the layout uses: superblock copies and descriptors,
 * bitmaps, inode tables, root, lost+found, the resize inode, the journal
 * and the orphan file.  NULL: no memory. */
static struct e4_bmap *used_clusters(const struct e4_layout *l)
{
	struct marker k;

	if (marker_init(&k, l))
		return NULL;
	for (uint32_t g = 0; g < l->group_count; g++)
		mark_blocks(&k, l->groups[g].first_block, l->groups[g].sb_blocks);
	for (uint32_t g = 0; g < l->group_count; g++)
		mark_blocks(&k, l->groups[g].block_bitmap, 1);
	for (uint32_t g = 0; g < l->group_count; g++)
		mark_blocks(&k, l->groups[g].inode_bitmap, 1);
	for (uint32_t g = 0; g < l->group_count; g++)
		mark_blocks(&k, l->groups[g].inode_table, l->inode_blocks_per_group);
	mark_blocks(&k, l->root_block, 1);
	mark_file(&k, &l->lpf);
	if (l->resize_dind_block)
		mark_blocks(&k, l->resize_dind_block, 1);
	mark_file(&k, &l->journal);
	mark_file(&k, &l->orphan);
	return marker_done(&k);
}

static uint64_t group_first_cluster(const struct e4_layout *l, uint32_t g)
{
	return ((uint64_t)l->first_data_block + (uint64_t)g * l->blocks_per_group) >> l->cluster_bits;
}

static uint64_t group_clusters(const struct e4_layout *l, uint32_t g)
{
	uint64_t first = (uint64_t)l->first_data_block + (uint64_t)g * l->blocks_per_group;
	uint64_t end = first + l->blocks_per_group;

	if (end > l->blocks_count)
		end = l->blocks_count;
	return ((end - first) + ((1ULL << l->cluster_bits) - 1)) >> l->cluster_bits;
}

/* Used clusters of every group, checked against the layout's free
 * counts: a disagreement is a bug, found before anything is written. */
static int check_counts(struct mkfs *m, const struct e4_bmap *used_map)
{
	const struct e4_layout *l = m->l;

	for (uint32_t g = 0; g < l->group_count; g++) {
		uint64_t used = e4_bmap_count_range(used_map, group_first_cluster(l, g),
						    group_clusters(l, g));

		if (group_clusters(l, g) - used != l->groups[g].free_blocks) {
			fprintf(stderr, "%s: internal error: group %u: %llu free clusters by the "
				"allocation map, %u by the layout\n", m->prog, g,
				(unsigned long long)(group_clusters(l, g) - used),
				l->groups[g].free_blocks);
			return -1;
		}
	}
	return 0;
}

/* ---- helpers ------------------------------------------------------------ */
static int io_fail(struct mkfs *m, const char *what, errcode_t err)
{
	fprintf(stderr, "%s: %s: %s: %s\n", m->prog, m->device, what, error_message(err));
	return -1;
}

static int zero_range(struct mkfs *m, int fd, uint64_t blk, uint64_t n)
{
	uint64_t bs = m->l->block_size;
	errcode_t err;

	/* a file without data (and what we extend it by) already reads as
	 * zeros: zeroing would only allocate */
	if (!n || m->probe.all_holes)
		return 0;
	err = e4_dev_zero(fd, m->probe.is_blockdev, m->offset + blk * bs, n * bs);
	if (err)
		return io_fail(m, "zeroing blocks", err);
	m->bytes_written += n * bs;
	return 0;
}

/* A fresh inode as mke2fs writes one it creates: the library's new inode
 * (times from the format's clock, no nanoseconds; i_extra_isize 32) with
 * generation 0, then its link count and size. */
static int new_inode(struct mkfs *m, e4_fs *fs, e4_ino_t ino, union e4_inode_buf *b,
		     uint16_t mode, uint32_t links, uint64_t size, uint32_t uid, uint32_t gid)
{
	struct e4_time now = { m->now, 0 };
	errcode_t err = e4_inode_init_flags(fs, ino, mode, uid, gid, &now, 0,
					    E4_INODE_INIT_GENERATION, b);

	if (!err)
		err = e4_inode_links_set(fs, &b->inode, links);
	if (!err)
		err = e4_inode_size_set(fs, &b->inode, size);
	if (err)
		return io_fail(m, "creating an inode", err);
	return 0;
}

/* Distinct clusters a file's blocks touch (bigalloc charges i_blocks by
 * the cluster). */
static uint64_t file_clusters(const struct e4_layout *l, const struct e4_layout_file *f)
{
	struct e4_bmap *map;
	struct marker k;
	uint64_t n = 0;

	if (marker_init(&k, l))
		return 0;
	mark_file(&k, f);
	map = marker_done(&k);
	if (map)
		n = e4_bmap_count(map);
	e4_bmap_free(map);
	return n;
}

/* i_blocks = fs_blocks filesystem blocks (e4_inode_blocks_set()'s rules). */
static int set_iblocks(struct mkfs *m, e4_fs *fs, struct ext4_inode *in, uint64_t fs_blocks)
{
	errcode_t err = e4_inode_blocks_set(fs, in, fs_blocks * (m->l->block_size / 512));

	if (err)
		return io_fail(m, "setting i_blocks", err);
	return 0;
}

static int pwrite_blk(struct mkfs *m, e4_fs *fs, e4_blk_t blk, const void *buf, unsigned count)
{
	errcode_t err = e4_io_pwrite(e4_fs_io(fs), blk * (uint64_t)m->l->block_size, buf,
				     (size_t)count * m->l->block_size);

	if (err)
		return io_fail(m, "writing", err);
	m->bytes_written += (uint64_t)count * m->l->block_size;
	return 0;
}

/* Map of a special file: extent tree or indirect blocks, i_blocks. */
static int map_file(struct mkfs *m, e4_fs *fs, e4_ino_t ino, struct ext4_inode *in,
		    const struct e4_layout_file *f, int extents)
{
	struct e4_map_extent *ext = calloc(f->nr_extents ? f->nr_extents : 1, sizeof(*ext));
	uint64_t lblk = 0;
	errcode_t err;

	if (!ext)
		return io_fail(m, "mapping a file", E4_ERR_NO_MEMORY);
	for (uint32_t i = 0; i < f->nr_extents; i++) {
		ext[i].lblk = lblk;
		ext[i].pblk = f->extents[i].start;
		ext[i].len = f->extents[i].len;
		lblk += f->extents[i].len;
	}
	if (extents) {
		/* the tree's blocks are the layout's meta blocks, in tree order */
		size_t bs = m->l->block_size;
		uint8_t *nodes = f->nr_meta ? malloc(f->nr_meta * bs) : NULL;

		if (f->nr_meta && !nodes) {
			free(ext);
			return io_fail(m, "mapping a file", E4_ERR_NO_MEMORY);
		}
		err = e4_extent_tree_build_n(fs, ino, in, ext, f->nr_extents, f->meta, f->nr_meta,
					     nodes);
		for (uint32_t i = 0; !err && i < f->nr_meta; i++)
			if (pwrite_blk(m, fs, f->meta[i], nodes + i * bs, 1)) {
				free(nodes);
				free(ext);
				return -1;
			}
		free(nodes);
	} else {
		err = e4_blockmap_build(fs, in, ext, f->nr_extents, f->meta, f->nr_meta);
		m->bytes_written += (uint64_t)f->nr_meta * m->l->block_size;
	}
	free(ext);
	if (err)
		return io_fail(m, "mapping a file", err);
	if (m->l->cluster_bits)
		return set_iblocks(m, fs, in, file_clusters(m->l, f) << m->l->cluster_bits);
	return set_iblocks(m, fs, in, f->blocks + f->nr_meta);
}

static int write_inode(struct mkfs *m, e4_fs *fs, e4_ino_t ino, union e4_inode_buf *b)
{
	errcode_t err = e4_inode_write(fs, ino, b);

	if (err)
		return io_fail(m, "writing an inode", err);
	return 0;
}

/* ---- the special inodes and their data ----------------------------------- */
static int write_dirs(struct mkfs *m, e4_fs *fs, uint8_t *blk)
{
	const struct e4_layout *l = m->l;
	int extents = (l->feature_incompat & EXT4_FEATURE_INCOMPAT_EXTENTS) != 0;
	e4_ino_t lpf_ino = l->first_ino;
	e4_blk_t root = l->root_block;
	const struct e4_layout_file *lpf = &l->lpf;
	union e4_inode_buf b;
	struct e4_layout_file f;
	struct e4_layout_extent ex;
	struct e4_new_dirent ents[3] = {
		{ EXT4_ROOT_INO, ".", 1, EXT4_FT_DIR },
		{ EXT4_ROOT_INO, "..", 2, EXT4_FT_DIR },
		{ lpf_ino, "lost+found", 10, EXT4_FT_DIR },
	};
	errcode_t err;

	/* root */
	err = e4_dir_block_build(fs, EXT4_ROOT_INO, ents, 3, blk);
	if (err)
		return io_fail(m, "building the root directory", err);
	if (pwrite_blk(m, fs, root, blk, 1))
		return -1;
	/* -E root_perms= (mke2fs 1.47.1): the root's permission bits, with or
	 * without -d */
	if (new_inode(m, fs, EXT4_ROOT_INO, &b,
		      EXT4_S_IFDIR | (m->root_perms >= 0 ? (unsigned)m->root_perms & 07777 : 0755),
		      3, l->block_size, m->root_uid, m->root_gid))
		return -1;
	memset(&f, 0, sizeof(f));
	ex.start = root;
	ex.len = 1;
	f.ino = EXT4_ROOT_INO;
	f.blocks = 1;
	f.nr_extents = 1;
	f.extents = &ex;
	if (map_file(m, fs, EXT4_ROOT_INO, &b.inode, &f, extents) ||
	    write_inode(m, fs, EXT4_ROOT_INO, &b))
		return -1;

	/* lost+found */
	ents[0].inode = lpf_ino;
	ents[1].inode = EXT4_ROOT_INO;
	err = e4_dir_block_build(fs, lpf_ino, ents, 2, blk);
	if (err)
		return io_fail(m, "building lost+found", err);
	if (pwrite_blk(m, fs, lpf->extents[0].start, blk, 1))
		return -1;
	err = e4_dir_block_build(fs, lpf_ino, NULL, 0, blk);
	if (err)
		return io_fail(m, "building lost+found", err);
	for (uint32_t i = 0; i < lpf->nr_extents; i++)
		for (uint32_t k = i ? 0 : 1; k < lpf->extents[i].len; k++)
			if (pwrite_blk(m, fs, lpf->extents[i].start + k, blk, 1))
				return -1;
	if (new_inode(m, fs, lpf_ino, &b, EXT4_S_IFDIR | 0700, 2, lpf->blocks * l->block_size,
		      0, 0) ||
	    map_file(m, fs, lpf_ino, &b.inode, lpf, extents) || write_inode(m, fs, lpf_ino, &b))
		return -1;
	return 0;
}

static int write_journal(struct mkfs *m, e4_fs *fs, int fd, uint8_t *blk)
{
	const struct e4_layout *l = m->l;
	const struct e4_layout_file *j = &l->journal;
	int extents = (l->feature_incompat & EXT4_FEATURE_INCOMPAT_EXTENTS) != 0;
	struct ext4_super_block *sb = e4_super(fs);
	union e4_inode_buf b;

	if (!j->ino || !j->nr_extents)
		return 0;
	if (!m->zeroed && !m->lazy_journal_init)
		for (uint32_t i = 0; i < j->nr_extents; i++)
			if (zero_range(m, fd, j->extents[i].start, j->extents[i].len))
				return -1;
	memset(blk, 0, l->block_size);
	e4_jsb_init((journal_superblock_t *)blk, l->block_size, (uint32_t)j->blocks, m->uuid,
		    l->journal_fc_blocks);
	if (pwrite_blk(m, fs, j->extents[0].start, blk, 1))
		return -1;
	if (new_inode(m, fs, EXT4_JOURNAL_INO, &b, EXT4_S_IFREG | 0600, 1,
		      j->blocks * l->block_size, 0, 0) ||
	    map_file(m, fs, EXT4_JOURNAL_INO, &b.inode, j, extents))
		return -1;
	e4_sb_jnl_backup_set(sb, &b.inode);
	return write_inode(m, fs, EXT4_JOURNAL_INO, &b);
}

static int write_orphan(struct mkfs *m, e4_fs *fs, uint8_t *blk)
{
	const struct e4_layout *l = m->l;
	const struct e4_layout_file *o = &l->orphan;
	int extents = (l->feature_incompat & EXT4_FEATURE_INCOMPAT_EXTENTS) != 0;
	union e4_inode_buf b;

	if (!o->ino)
		return 0;
	for (uint32_t i = 0; i < o->nr_extents; i++)
		for (uint32_t k = 0; k < o->extents[i].len; k++) {
			e4_blk_t p = o->extents[i].start + k;

			e4_orphan_block_init(fs, o->ino, 0, p, blk);
			if (pwrite_blk(m, fs, p, blk, 1))
				return -1;
		}
	if (new_inode(m, fs, o->ino, &b, EXT4_S_IFREG | 0600, 1, o->blocks * l->block_size,
		      0, 0) ||
	    map_file(m, fs, o->ino, &b.inode, o, extents))
		return -1;
	return write_inode(m, fs, o->ino, &b);
}

static int write_resize(struct mkfs *m, e4_fs *fs)
{
	const struct e4_layout *l = m->l;
	union e4_inode_buf b;
	uint64_t used = 0;
	errcode_t err;

	if (!(l->feature_compat & EXT4_FEATURE_COMPAT_RESIZE_INODE) || !l->resize_dind_block)
		return 0;
	if (new_inode(m, fs, EXT4_RESIZE_INO, &b, EXT4_S_IFREG | 0600, 1, 0, 0, 0))
		return -1;
	err = e4_resize_inode_build(fs, l->resize_dind_block, &b.inode, &used);
	if (err)
		return io_fail(m, "creating the resize inode", err);
	m->bytes_written += (1 + (uint64_t)l->reserved_gdt_blocks) * l->block_size;
	/* e2fsck charges each block of this sparse map a whole cluster */
	used <<= l->cluster_bits;
	if (set_iblocks(m, fs, &b.inode, used))
		return -1;
	return write_inode(m, fs, EXT4_RESIZE_INO, &b);
}

/* Reserved inodes 1 and 3..10 that no feature uses: inode 1 gets its
 * times; with metadata_csum every one carries a checksum. */
static int write_reserved_inodes(struct mkfs *m, e4_fs *fs)
{
	const struct e4_layout *l = m->l;
	union e4_inode_buf b;
	struct e4_time now = { m->now, 0 };

	for (e4_ino_t ino = 1; ino < l->first_ino; ino++) {
		if (ino == EXT4_ROOT_INO || (ino == EXT4_JOURNAL_INO && l->journal.ino) ||
		    (ino == EXT4_RESIZE_INO && l->resize_dind_block))
			continue;
		/* zeroed: no mode, no extra fields (only the base times) */
		memset(&b, 0, sizeof(b));
		if (ino == EXT4_BAD_INO)
			e4_inode_times_set(fs, &b.inode, E4_T_ATIME | E4_T_CTIME | E4_T_MTIME, &now);
		else if (!(l->feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM))
			continue;
		if (write_inode(m, fs, ino, &b))
			return -1;
	}
	return 0;
}

/* ---- descriptors and bitmaps --------------------------------------------- */
static int csum_fs(const struct e4_layout *l)
{
	return (l->feature_ro_compat & (EXT4_FEATURE_RO_COMPAT_METADATA_CSUM |
					EXT4_FEATURE_RO_COMPAT_GDT_CSUM)) != 0;
}

static int set_descriptors(struct mkfs *m, e4_fs *fs)
{
	const struct e4_layout *l = m->l;

	for (uint32_t g = 0; g < l->group_count; g++) {
		const struct e4_layout_group *gr = &l->groups[g];
		struct e4_group d;
		errcode_t err;

		memset(&d, 0, sizeof(d));
		d.block_bitmap = gr->block_bitmap;
		d.inode_bitmap = gr->inode_bitmap;
		d.inode_table = gr->inode_table;
		d.free_blocks = gr->free_blocks;
		d.free_inodes = gr->free_inodes;
		d.used_dirs = gr->used_dirs;
		d.flags = gr->flags & ~EXT4_BG_INODE_ZEROED;
		if (csum_fs(l)) {
			d.itable_unused = gr->itable_unused;
			if (m->zeroed || !m->lazy_itable_init)
				d.flags |= EXT4_BG_INODE_ZEROED;
		} else {
			/* no uninit flags without descriptor checksums; mke2fs
			 * still records a zeroed table */
			d.flags = (m->zeroed || !m->lazy_itable_init) ? EXT4_BG_INODE_ZEROED : 0;
		}
		err = e4_group_set(fs, g, &d);
		if (err)
			return io_fail(m, "setting a group descriptor", err);
	}
	return 0;
}

/* The bitmaps, by the library's store: every initialised group's block
 * and inode bitmap written (padding and checksums its rules), UNINIT
 * groups left unwritten while the map agrees with what the flag stands
 * for.  Descriptors and superblock stay in memory until the end. */
static int write_bitmaps(struct mkfs *m, e4_fs *fs, const struct e4_bmap *used,
			 e4_io_layer *stats)
{
	const struct e4_layout *l = m->l;
	const unsigned flags = E4_BMAP_STORE_ALL | E4_BMAP_STORE_NO_FLUSH;
	struct e4_bmap *inodes = NULL;
	struct e4_io_stats before, after;
	errcode_t err;

	e4_io_stats_get(stats, &before);
	err = e4_bmap_store_blocks(fs, used, flags);
	if (err)
		return io_fail(m, "writing the block bitmaps", err);
	/* in use: the reserved inodes, lost+found, the orphan file */
	err = e4_bmap_new_inodes(fs, E4_BMAP_RUNS, &inodes);
	if (!err)
		err = e4_bmap_set_range(inodes, 1, l->first_ino);
	if (!err && l->orphan.ino)
		err = e4_bmap_set(inodes, l->orphan.ino);
	if (!err)
		err = e4_bmap_store_inodes(fs, inodes, flags);
	e4_bmap_free(inodes);
	if (err)
		return io_fail(m, "writing the inode bitmaps", err);
	e4_io_stats_get(stats, &after);
	m->bytes_written += after.written_bytes - before.written_bytes;
	return 0;
}

/* Zero inode tables: all of them without lazy init, else the part that
 * holds used inodes (what mke2fs zeroes).  Contiguous tables (flex_bg)
 * are zeroed in one call. */
static int zero_itables(struct mkfs *m, int fd)
{
	const struct e4_layout *l = m->l;
	int csum = csum_fs(l);
	uint64_t run_s = 0, run_n = 0;
	int progress = m->tty && !m->quiet && !m->lazy_itable_init && l->group_count > 64;

	if (!m->quiet)
		printf("Writing inode tables: ");
	for (uint32_t g = 0; g < l->group_count; g++) {
		const struct e4_layout_group *gr = &l->groups[g];
		uint64_t n = l->inode_blocks_per_group;

		if (m->lazy_itable_init && csum) {
			uint64_t used = l->inodes_per_group - gr->itable_unused;

			n = (used * l->inode_size + l->block_size - 1) / l->block_size;
		}
		if (!n)
			continue;
		if (run_n && run_s + run_n == gr->inode_table) {
			run_n += n;
		} else {
			if (zero_range(m, fd, run_s, run_n))
				return -1;
			run_s = gr->inode_table;
			run_n = n;
		}
		if (n < l->inode_blocks_per_group) {
			if (zero_range(m, fd, run_s, run_n))
				return -1;
			run_n = 0;
		}
		if (progress && (g % 64) == 0) {
			printf("%u/%u\r", g, l->group_count);
			printf("Writing inode tables: ");
			fflush(stdout);
		}
	}
	if (zero_range(m, fd, run_s, run_n))
		return -1;
	if (!m->quiet)
		printf("done                            \n");
	return 0;
}

/* Reserved GDT copies in the backup groups must read as zeros. */
static int zero_reserved_gdt_backups(struct mkfs *m, int fd, e4_fs *fs)
{
	const struct e4_layout *l = m->l;

	if (!l->reserved_gdt_blocks)
		return 0;
	for (uint32_t g = 1; g < l->group_count; g++) {
		e4_blk_t sb_blk;
		uint32_t gdt, rsv;

		e4_group_super_blocks(fs, g, &sb_blk, &gdt, &rsv);
		if (sb_blk && rsv && zero_range(m, fd, sb_blk + 1 + gdt, rsv))
			return -1;
	}
	return 0;
}

/* Zero an old ext2/3/4 filesystem's backup superblocks, before its
 * signatures are wiped (the wipe makes it unreadable).  e2fsck falls back
 * on them when the primary is gone and would bring the old filesystem back
 * over a format stopped midway.  Returns how many were zeroed (0: no old
 * filesystem, or none that can be read), -1 on a write error. */
static int zero_old_backups(struct mkfs *m, int fd)
{
	static const uint8_t zero[EXT4_SUPERBLOCK_SIZE];
	const int flags = E4_OPEN_CATASTROPHIC | E4_OPEN_IGNORE_CSUM | E4_OPEN_FORCE;
	e4_fs *old;
	int n = 0;

	if (m->super_only || m->offset || strncmp(m->probe.type, "ext", 3) ||
	    e4_open(m->device, flags, 0, 0, &old))
		return 0;
	for (e4_group_t g = 1; g < e4_geom(old)->group_count && n >= 0; g++) {
		uint64_t off = e4_group_first_block(old, g) * (uint64_t)e4_geom(old)->block_size;

		if (!e4_group_has_super(old, g))
			continue;
		if (off + sizeof(zero) > m->probe.size)
			break;
		if (pwrite(fd, zero, sizeof(zero), (off_t)off) != (ssize_t)sizeof(zero)) {
			fprintf(stderr, "%s: %s: invalidating the old backup superblocks: %s\n",
				m->prog, m->device, strerror(errno ? errno : EIO));
			n = -1;
		} else {
			n++;
		}
	}
	e4_close(old);
	return n;
}

/* ---- superblock -------------------------------------------------------- */
void mkfs_build_super(struct mkfs *m, struct ext4_super_block *sb)
{
	const struct e4_layout *l = m->l;
	int64_t now = m->now;

	memset(sb, 0, sizeof(*sb));
	/* the features first: the count setters read 64bit from them */
	e4_sb_set_features(sb, E4_FEAT_COMPAT, l->feature_compat);
	e4_sb_set_features(sb, E4_FEAT_INCOMPAT, l->feature_incompat);
	e4_sb_set_features(sb, E4_FEAT_RO_COMPAT, l->feature_ro_compat);
	sb->s_inodes_count = e4_cpu_to_le32(l->inodes_count);
	e4_sb_set_blocks_count(sb, l->blocks_count);
	e4_sb_set_r_blocks_count(sb, l->r_blocks_count);
	e4_sb_set_free_blocks_count(sb, l->free_blocks_count);
	e4_sb_set_free_inodes_count(sb, l->free_inodes_count);
	sb->s_first_data_block = e4_cpu_to_le32(l->first_data_block);
	sb->s_log_block_size = e4_cpu_to_le32(l->log_block_size);
	sb->s_log_cluster_size = e4_cpu_to_le32(l->log_cluster_size);
	sb->s_blocks_per_group = e4_cpu_to_le32(l->blocks_per_group);
	sb->s_clusters_per_group = e4_cpu_to_le32(l->clusters_per_group);
	sb->s_inodes_per_group = e4_cpu_to_le32(l->inodes_per_group);
	e4_sb_set_time(sb, E4_SB_WTIME, now);
	e4_sb_set_time(sb, E4_SB_LASTCHECK, now);
	e4_sb_set_time(sb, E4_SB_MKFS_TIME, now);
	sb->s_max_mnt_count = -1;
	if (m->periodic_fsck) {
		/* the profile's enable_periodic_fsck: 180 days, 20 mounts plus
		 * a UUID-derived spread of up to 19, as the reference does */
		unsigned sum = 0;

		for (int i = 0; i < 16; i++)
			sum += m->uuid[i];
		sb->s_checkinterval = e4_cpu_to_le32(180U * 24 * 3600);
		sb->s_max_mnt_count = e4_cpu_to_le16((uint16_t)(20 + sum % 20));
	}
	sb->s_magic = e4_cpu_to_le16(EXT4_SUPER_MAGIC);
	sb->s_state = e4_cpu_to_le16(EXT4_VALID_FS);
	sb->s_errors = e4_cpu_to_le16((uint16_t)(m->errors ? m->errors : 1));
	sb->s_creator_os = e4_cpu_to_le32((uint32_t)m->creator_os);
	/* revision 0 too has s_first_ino and s_inode_size set (as mke2fs
	 * -r 0 writes them: 11 and 128) */
	sb->s_rev_level = e4_cpu_to_le32(l->rev_level);
	sb->s_first_ino = e4_cpu_to_le32(l->first_ino);
	sb->s_inode_size = e4_cpu_to_le16((uint16_t)l->inode_size);
	memcpy(sb->s_uuid, m->uuid, 16);
	memcpy(sb->s_volume_name, m->label, sizeof(sb->s_volume_name));
	memcpy(sb->s_last_mounted, m->last_mounted, sizeof(sb->s_last_mounted));
	sb->s_reserved_gdt_blocks = e4_cpu_to_le16((uint16_t)l->reserved_gdt_blocks);
	if (l->journal.ino)
		sb->s_journal_inum = e4_cpu_to_le32(EXT4_JOURNAL_INO);
	memcpy(sb->s_hash_seed, m->hash_seed, 16);
	sb->s_def_hash_version = DX_HASH_HALF_MD4;
	if (l->feature_incompat & EXT4_FEATURE_INCOMPAT_64BIT)
		sb->s_desc_size = e4_cpu_to_le16((uint16_t)l->desc_size);
	sb->s_default_mount_opts = e4_cpu_to_le32(m->default_mntopts);
	sb->s_first_meta_bg = e4_cpu_to_le32(l->first_meta_bg);
	if (l->inode_size > EXT4_GOOD_OLD_INODE_SIZE) {
		uint16_t x = EXT4_INODE_FIELD_END(i_projid) - EXT4_GOOD_OLD_INODE_SIZE;

		sb->s_min_extra_isize = e4_cpu_to_le16(x);
		sb->s_want_extra_isize = e4_cpu_to_le16(x);
	}
	sb->s_flags = e4_cpu_to_le32(((char)-1 < 0 ? EXT2_FLAGS_SIGNED_HASH
						    : EXT2_FLAGS_UNSIGNED_HASH) |
				     (m->test_fs ? EXT2_FLAGS_TEST_FILESYS : 0));
	sb->s_raid_stride = e4_cpu_to_le16((uint16_t)l->raid_stride);
	sb->s_raid_stripe_width = e4_cpu_to_le32(l->raid_stripe_width);
	if (l->feature_incompat & EXT4_FEATURE_INCOMPAT_FLEX_BG)
		sb->s_log_groups_per_flex = (uint8_t)l->log_groups_per_flex;
	if (l->feature_ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
		sb->s_checksum_type = EXT4_CRC32C_CHKSUM;
	sb->s_overhead_clusters = e4_cpu_to_le32((uint32_t)l->overhead_clusters);
	if (l->feature_compat & EXT4_FEATURE_COMPAT_SPARSE_SUPER2) {
		sb->s_backup_bgs[0] = e4_cpu_to_le32(l->backup_bgs[0]);
		sb->s_backup_bgs[1] = e4_cpu_to_le32(l->backup_bgs[1]);
	}
	if (l->feature_incompat & EXT4_FEATURE_INCOMPAT_CSUM_SEED)
		sb->s_checksum_seed = e4_cpu_to_le32(e4_crc32c(~0U, m->uuid, 16));
	if (l->orphan.ino)
		sb->s_orphan_file_inum = e4_cpu_to_le32(l->orphan.ino);
}

/* ---- the whole thing ------------------------------------------------------ */
static int open_target(struct mkfs *m, uint64_t need)
{
	int flags = O_RDWR | O_CLOEXEC;
	struct stat st;
	int fd;

	if (m->probe.is_blockdev)
		flags |= O_EXCL;
	else if (m->created)
		flags |= O_CREAT;
	fd = open(m->device, flags, 0666);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot open %s: %s\n", m->prog, m->device, strerror(errno));
		return -1;
	}
	if (!m->probe.is_blockdev && fstat(fd, &st) == 0 && (uint64_t)st.st_size < need &&
	    ftruncate(fd, (off_t)need) < 0) {
		fprintf(stderr, "%s: cannot extend %s to %llu bytes: %s\n", m->prog, m->device,
			(unsigned long long)need, strerror(errno));
		close(fd);
		if (m->created)	/* leave nothing behind that we made */
			unlink(m->device);
		return -1;
	}
	return fd;
}

int mkfs_write(struct mkfs *m)
{
	const struct e4_layout *l = m->l;
	uint64_t bs = l->block_size, fs_bytes = l->blocks_count * bs;
	struct ext4_super_block sb;
	struct e4_bmap *used;
	e4_io *io = NULL;
	e4_io_layer *stats = NULL;
	e4_fs *fs = NULL;
	uint8_t *buf = NULL;
	errcode_t err;
	int fd = -1, ret = -1, touched = 0, nold;

	used = used_clusters(l);
	if (!used) {
		fprintf(stderr, "%s: out of memory\n", m->prog);
		return -1;
	}
	if (check_counts(m, used))
		goto out;
	buf = malloc(bs);
	if (!buf)
		goto out;
	fd = open_target(m, m->offset + fs_bytes);
	if (fd < 0)
		goto out;

	/* 1. the old filesystem goes first: signatures, discard, the old
	 *    primary superblock */
	/* the old backup superblocks before anything else (the signature
	 * wipe flushes): a format stopped at any point after this leaves
	 * nothing e2fsck's fallback to backups would find */
	nold = zero_old_backups(m, fd);
	if (nold < 0)
		goto out;
	if (nold)
		touched = 1;
	/* the probe looked for every signature blkid knows: wipe only when it
	 * found one (a second probe costs as much as the first) */
	if (!m->super_only && m->probe.type[0] && !m->offset) {
		err = e4_probe_wipe(fd);
		if (err && !m->quiet)
			fprintf(stderr, "%s: warning: wiping old signatures: %s\n", m->prog,
				error_message(err));
		touched = 1;
	}
	/* Like mke2fs, nothing is discarded on an empty (or new) target: it
	 * reads as zeros anyway, but its tables are not marked zeroed.  A
	 * file without data is not discarded either (there is nothing to
	 * free), but counts as discarded: the tables read as zeros. */
	if (m->discard && !m->super_only && m->probe.size) {
		uint64_t len = m->probe.is_blockdev || m->offset ? fs_bytes : m->probe.size;

		if (len < fs_bytes)
			len = fs_bytes;
		/* with -E offset=, only the filesystem's own range */
		if (!m->quiet)
			printf("Discarding device blocks: ");
		if (m->probe.all_holes) {
			err = 0;
		} else {
			err = e4_dev_discard(fd, m->probe.is_blockdev, m->offset, len);
			touched = 1;
		}
		if (!err && m->probe.discard_zeroes)
			m->zeroed = 1;
		if (!m->quiet)
			printf(err ? "failed - %s\n" : "done                            \n",
			       error_message(err));
	}
	if (!m->zeroed && !m->super_only && !m->probe.all_holes) {
		uint64_t n = bs > 2048 ? 1 : 2048 / bs;

		if (zero_range(m, fd, 0, n))
			goto out;
		touched = 1;
	}
	if (touched && fsync(fd) < 0 && errno != EINVAL) {
		fprintf(stderr, "%s: %s: flushing: %s\n", m->prog, m->device, strerror(errno));
		goto out;
	}

	/* 2. what must read as zeros */
	if (!m->zeroed && !m->super_only) {
		/* the end of the device (old RAID superblocks), as mke2fs does */
		uint64_t rsv = 65536 / bs ? 65536 / bs : 1, start = l->blocks_count & ~(rsv - 1);

		if (start > rsv)
			start -= rsv;
		if (start > 0 && zero_range(m, fd, start, l->blocks_count - start))
			goto out;
	}
	if (!m->zeroed && !m->super_only && zero_itables(m, fd))
		goto out;
	if (m->zeroed && !m->quiet && !m->super_only)
		printf("Writing inode tables: done                            \n");

	/* 3. metadata */
	mkfs_build_super(m, &sb);
	err = e4_io_open(m->device, E4_IO_RW, &io);
	if (!err && m->offset)
		err = e4_io_set_offset(io, m->offset);
	/* large devices: hundreds of MB of descriptor copies and bitmaps;
	 * let the disk start on them while the rest is written
	 * (bench/mkfs.sh: about 10-20% off at 15 TiB) */
	if (!err)
		e4_io_set_writeback_ahead(io, MKFS_WRITEBACK_AHEAD);
	/* counts the bytes library calls write for us (s_kbytes_written) */
	if (!err)
		err = e4_io_stats_layer(&stats);
	if (!err)
		e4_io_push_layer(io, stats);
	if (err) {
		io_fail(m, "opening", err);
		goto out;
	}
	err = e4_fs_create(io, m->device, &sb, &fs);
	io = NULL;	/* the handle's now (closed by it on error too) */
	if (err) {
		io_fail(m, "creating the filesystem handle", err);
		goto out;
	}
	if (set_descriptors(m, fs))
		goto out;
	if (!m->super_only) {
		if (write_bitmaps(m, fs, used, stats) || write_reserved_inodes(m, fs) ||
		    write_dirs(m, fs, buf) || write_resize(m, fs))
			goto out;
		if (l->journal_dropped && !m->quiet)
			printf("The filesystem is too small for a journal: made without one\n");
		if (l->journal.ino && !m->quiet)
			printf("Creating journal (%llu blocks): ",
			       (unsigned long long)l->journal.blocks);
		fflush(stdout);
		if (write_journal(m, fs, fd, buf))
			goto out;
		if (l->journal.ino && !m->quiet)
			printf("done\n");
		if (write_orphan(m, fs, buf))
			goto out;
		if (!m->zeroed && zero_reserved_gdt_backups(m, fd, fs))
			goto out;
	} else if (l->journal.ino) {
		/* -S: keep the journal where it is; only its backup is needed */
		union e4_inode_buf b;

		if (new_inode(m, fs, EXT4_JOURNAL_INO, &b, EXT4_S_IFREG | 0600, 1,
			      l->journal.blocks * bs, 0, 0) ||
		    map_file(m, fs, EXT4_JOURNAL_INO, &b.inode, &l->journal,
			     (l->feature_incompat & EXT4_FEATURE_INCOMPAT_EXTENTS) != 0))
			goto out;
		e4_sb_jnl_backup_set(e4_super(fs), &b.inode);
	}
	if (!m->quiet)
		printf("Writing superblocks and filesystem accounting information: ");
	fflush(stdout);
	err = e4_gdt_write(fs);
	m->bytes_written += (uint64_t)l->desc_blocks * bs;
	if (err) {
		io_fail(m, "writing the group descriptors", err);
		goto out;
	}
	e4_sb_add_kbytes_written(e4_super(fs), (m->bytes_written + bs + 1023) / 1024);
	err = e4_super_write_backups(fs);
	if (!err)
		err = e4_flush(fs);		/* inode tables; fsync */
	/* 4. last of all, the primary superblock */
	if (!err)
		err = e4_super_write(fs);
	if (!err)
		err = e4_flush(fs);
	if (err) {
		io_fail(m, "writing the superblocks", err);
		goto out;
	}
	if (!m->quiet)
		printf("done\n\n");
	ret = 0;
out:
	if (io)		/* opened, but no handle was made */
		e4_io_close(io);
	if (fs) {
		err = e4_close(fs);
		if (err && !ret) {
			io_fail(m, "closing", err);
			ret = -1;
		}
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	e4_bmap_free(used);
	return ret;
}
