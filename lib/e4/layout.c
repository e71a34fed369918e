/*
 * layout.c: the geometry mke2fs 1.47.0 chooses, computed without I/O
 * (see e4.h, "layout").
 *
 * The computation follows mke2fs's steps: profile and size class, block
 * size, features, inode count, then the group geometry (with its retries:
 * fewer blocks per group when inodes do not fit, dropping a last group too
 * small for its metadata, switching to meta_bg when the reserved GDT would
 * not fit), the placement of bitmaps and inode tables (flex_bg packing,
 * stride, packed_meta_blocks), and finally the blocks taken by root,
 * lost+found, the resize inode, the journal and the orphan file, all found
 * by first fit as mke2fs's allocator finds them.
 *
 * Used blocks are kept as the superblock/descriptor prefix of each group
 * (computed) plus a bitmap of the blocks taken since (bmap.h, runs
 * backend), so a large filesystem costs memory per group descriptor and
 * per run, not per block.
 *
 * The parts: layout_profile.c (profiles), layout_params.c (parameters),
 * layout_geom.c (group geometry), layout_alloc.c (the allocation model,
 * bitmaps and inode tables), layout_files.c (special files), this file
 * (putting them together).
 */
#include "layout_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- putting it together ---------------------------------------------- */
static void free_file(struct e4_layout_file *f)
{
	free(f->extents);
	free(f->meta);
	f->extents = NULL;
	f->meta = NULL;
}

void e4_layout_free(struct e4_layout *l)
{
	if (!l)
		return;
	free(l->groups);
	free_file(&l->journal);
	free_file(&l->orphan);
	free_file(&l->lpf);
	free(l);
}

static errcode_t lay_out(struct e4_layout *l, const struct e4_layout_opts *o,
			 const struct params *p)
{
	struct ctx c;
	int csum = (l->feature_ro_compat & (EXT4_FEATURE_RO_COMPAT_METADATA_CSUM |
					    EXT4_FEATURE_RO_COMPAT_GDT_CSUM)) != 0;
	uint32_t reserved_inos = l->first_ino;
	uint64_t free_total = 0;
	errcode_t err = 0;

	memset(&c, 0, sizeof(c));
	c.l = l;
	c.blocks = l->blocks_count;
	c.fdb = l->first_data_block;
	c.bpg = l->blocks_per_group;
	c.groups = l->group_count;
	c.cbits = l->cluster_bits;
	c.cmask = (1ULL << c.cbits) - 1;
	l->groups = calloc(c.groups, sizeof(*l->groups));
	if (!l->groups) {
		err = E4_ERR_NO_MEMORY;
		goto out;
	}
	/* used blocks: runs (memory by runs, not by blocks); groups: flat */
	err = e4_bmap_create(E4_BMAP_RUNS, 0, c.blocks, &c.used);
	if (!err)
		err = e4_bmap_create(E4_BMAP_FLAT, 0, c.groups, &c.uninit_cleared);
	if (err)
		goto out;
	e4_lay_set_prefixes(&c);

	/* initial flags and unused counts (as the geometry set-up leaves them) */
	for (uint32_t g = 0; g < c.groups; g++) {
		struct e4_layout_group *gr = &l->groups[g];

		gr->free_inodes = l->inodes_per_group;
		if (csum) {
			uint32_t n = l->inodes_per_group;

			if (g != c.groups - 1)
				gr->flags |= EXT4_BG_BLOCK_UNINIT;
			gr->flags |= EXT4_BG_INODE_UNINIT;
			if (reserved_inos) {
				if (n > reserved_inos) {
					n -= reserved_inos;
					reserved_inos = 0;
				} else {
					reserved_inos -= n;
					n = 0;
				}
			}
			gr->itable_unused = n;
		}
	}

	if ((l->feature_incompat & EXT4_FEATURE_INCOMPAT_FLEX_BG) && p->packed) {
		err = e4_lay_packed_tables(&c);
	} else {
		for (uint32_t g = 0; g < c.groups && !err; g++)
			err = e4_lay_allocate_group_table(&c, g);
	}
	if (err)
		goto out;

	/* overhead: every used cluster now, plus the first data block */
	l->overhead_clusters = 0;
	for (uint32_t g = 0; g < c.groups; g++)
		l->overhead_clusters += ((l->groups[g].blocks + c.cmask) >> c.cbits) -
					e4_lay_group_free(&c, g);
	l->overhead_clusters += c.fdb;

	err = e4_lay_special_files(&c, o, p);
	if (err)
		goto out;

	/* mke2fs takes lost+found's inode with a search that, entering a
	 * group still marked INODE_UNINIT, clears its BLOCK_UNINIT too; it
	 * runs before the reserved inodes are marked, so with few inodes
	 * per group (-N) lost+found's group loses BLOCK_UNINIT even when its
	 * blocks are elsewhere.  Group 0 was entered by the root already. */
	if ((l->first_ino - 1) / l->inodes_per_group > 0)
		e4_lay_clear_uninit(&c, g_first(&c, (l->first_ino - 1) / l->inodes_per_group), 1);

	/* inodes: 1..11 (bad blocks, root, reserved, lost+found), orphan file */
	for (uint32_t ino = 1; ino <= l->first_ino; ino++)
		e4_lay_use_inode(l, ino, ino == EXT4_ROOT_INO || ino == l->first_ino, csum);
	if (l->orphan.ino)
		e4_lay_use_inode(l, l->orphan.ino, 0, csum);

	for (uint32_t g = 0; g < c.groups; g++) {
		struct e4_layout_group *gr = &l->groups[g];

		gr->free_blocks = e4_lay_group_free(&c, g);
		free_total += gr->free_blocks;
		if (e4_bmap_test(c.uninit_cleared, g))
			gr->flags &= ~EXT4_BG_BLOCK_UNINIT;
		if (o->itable_zeroed)
			gr->flags |= EXT4_BG_INODE_ZEROED;
	}
	l->free_blocks_count = free_total << c.cbits;
	l->free_inodes_count = l->inodes_count - l->first_ino - (l->orphan.ino ? 1 : 0);
out:
	e4_bmap_free(c.used);
	e4_bmap_free(c.uninit_cleared);
	return err;
}

errcode_t e4_layout_compute(const struct e4_layout_opts *o, struct e4_layout **ret)
{
	struct e4_layout *l;
	struct e4_profile *own = NULL;
	struct params p;
	errcode_t err;

	*ret = NULL;
	if (o && o->bad_key)
		*o->bad_key = NULL;
	if (!o)
		return E4_ERR_INVALID_ARGUMENT;
	l = calloc(1, sizeof(*l));
	if (!l)
		return E4_ERR_NO_MEMORY;
	if (!o->profile) {
		err = e4_profile_builtin(&own);
		if (err) {
			free(l);
			return err;
		}
	}
	err = e4_lay_settle_params(o, l, &p, o->profile ? o->profile : own);
	e4_profile_free(own);
	if (!err)
		err = e4_lay_geometry(l, &p);
	if (!err && !p.journal)
		l->feature_compat &= ~EXT4_FEATURE_COMPAT_HAS_JOURNAL;
	if (!err && !o->geometry_only) {
		if (l->group_count > E4_LAYOUT_MAX_GROUPS)
			err = E4_ERR_TOO_MANY_GROUPS;
		else
			err = lay_out(l, o, &p);
	}
	if (err) {
		e4_layout_free(l);
		return err;
	}
	if (!o->geometry_only) {
		/* a regular file of 2 GiB or more turns large_file on as the
		 * reference sets its size: the resize inode (its size covers
		 * the double-indirect range) and the journal */
		uint64_t apb = l->block_size / 4, big = 1ULL << 31;

		if ((l->resize_dind_block &&
		     (apb * apb + apb + EXT4_NDIR_BLOCKS) * l->block_size >= big) ||
		    (l->journal.ino && l->journal.blocks * l->block_size >= big) ||
		    (l->orphan.ino && l->orphan.blocks * l->block_size >= big))
			l->feature_ro_compat |= EXT4_FEATURE_RO_COMPAT_LARGE_FILE;
	}
	if (o->geometry_only) {
		if (!e4_layout_default_journal_blocks(l->blocks_count))
			l->feature_compat &= ~EXT4_FEATURE_COMPAT_HAS_JOURNAL;
		l->overhead_clusters = 0;
		l->free_blocks_count = 0;
		l->free_inodes_count = l->inodes_count - l->first_ino;
	}
	*ret = l;
	return 0;
}
