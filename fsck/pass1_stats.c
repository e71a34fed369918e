/*
 * pass1_stats.c: what -v prints after a full check (issue 15), counted
 * from what pass 1 saw: the field set and order of e2fsck's -v summary
 * (inodes and blocks used, non-contiguous files and directories, maps by
 * kind and extent tree depth, bad blocks, large files, then the inodes
 * by type).  Links and the file total come from the directory entries,
 * which this version does not sum up for -v: said as not counted, never
 * estimated.
 */
#include "pass1.h"

#include <stdio.h>

void p1_stats_inode(struct pass1 *p, e4_ino_t ino, const struct ext4_inode *in, int has_map,
		    uint64_t nblocks, int fast_symlink)
{
	struct p1_stats *s = &p->st;
	uint16_t type = e4_le16(in->i_mode) & EXT4_S_IFMT;
	uint32_t fl = e4_le32(in->i_flags);

	if (ino == EXT4_BAD_INO)
		return;
	/* large: any regular inode of 2 GiB or more (the resize inode too,
	 * as the reference counts it) */
	s->large += type == EXT4_S_IFREG && e4_inode_size(in) >= 0x80000000ULL;
	if (ino == EXT4_RESIZE_INO)
		return;
	/* an extent tree's depth (the journal's too); non-contiguous: for a
	 * tree its data, for a block map its indirect blocks as well, and
	 * only a map smaller than a group (a larger one must step over the
	 * group's metadata), as the reference counts them */
	if (has_map && (fl & EXT4_EXTENTS_FL)) {
		const struct ext4_extent_header *h = (const void *)in->i_block;

		if (e4_le16(h->eh_magic) == EXT4_EXT_MAGIC &&
		    e4_le16(h->eh_depth) <= EXT4_MAX_EXTENT_DEPTH)
			s->depth[e4_le16(h->eh_depth)]++;
	}
	if (p->data_frag[!(fl & EXT4_EXTENTS_FL)] && nblocks < p->geo->blocks_per_group) {
		if (type == EXT4_S_IFDIR)
			s->frag_dirs++;
		else
			s->frag_files++;
	}
	/* the other reserved inodes are the filesystem's, not files */
	if (ino != EXT4_ROOT_INO && ino < p->geo->first_ino)
		return;
	if (has_map && !(fl & EXT4_EXTENTS_FL)) {
		s->ind += in->i_block[EXT4_IND_BLOCK] != 0;
		s->dind += in->i_block[EXT4_DIND_BLOCK] != 0;
		s->tind += in->i_block[EXT4_TIND_BLOCK] != 0;
	}
	switch (type) {
	case EXT4_S_IFREG:
		s->regular++;
		break;
	case EXT4_S_IFDIR: s->dirs++; break;
	case EXT4_S_IFCHR: s->chrdev++; break;
	case EXT4_S_IFBLK: s->blkdev++; break;
	case EXT4_S_IFIFO: s->fifos++; break;
	case EXT4_S_IFSOCK: s->sockets++; break;
	case EXT4_S_IFLNK:
		s->symlinks++;
		s->fast_symlinks += fast_symlink;
		break;
	}
}

/* One count: right-aligned, then its label in the singular or plural. */
static void count(uint64_t n, const char *one, const char *many, const char *tail)
{
	printf("%12llu %s%s\n", (unsigned long long)n, n == 1 ? one : many, tail ? tail : "");
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void p1_stats_print(const struct pass1 *p)
{
	const struct p1_stats *s = &p->st;
	const struct ext4_super_block *sb = e4_super(p->fs);
	uint64_t inodes = p->geo->inodes_count, blocks = p->geo->blocks_count;
	uint64_t iused = inodes - e4_le32(sb->s_free_inodes_count);
	uint64_t bused = blocks - e4_sb_free_blocks_count(sb);
	const char *left = " (not counted by this version)";
	char tail[80];
	int last = -1;

	printf("\n");
	snprintf(tail, sizeof(tail), " (%.2f%%, out of %llu)", pct(iused, inodes),
		 (unsigned long long)inodes);
	count(iused, "inode used", "inodes used", tail);
	snprintf(tail, sizeof(tail), " (%.1f%%)", pct(s->frag_files, iused));
	count(s->frag_files, "non-contiguous file", "non-contiguous files", tail);
	snprintf(tail, sizeof(tail), " (%.1f%%)", pct(s->frag_dirs, iused));
	count(s->frag_dirs, "non-contiguous directory", "non-contiguous directories", tail);
	printf("%12s # of inodes with ind/dind/tind blocks: %llu/%llu/%llu\n", "",
	       (unsigned long long)s->ind, (unsigned long long)s->dind,
	       (unsigned long long)s->tind);
	for (int d = 0; d <= EXT4_MAX_EXTENT_DEPTH; d++)
		if (s->depth[d])
			last = d;
	if (last >= 0) {
		printf("%12s Extent depth histogram: ", "");
		for (int d = 0; d <= last; d++)
			printf("%s%llu", d ? "/" : "", (unsigned long long)s->depth[d]);
		printf("\n");
	}
	snprintf(tail, sizeof(tail), " (%.2f%%, out of %llu)", pct(bused, blocks),
		 (unsigned long long)blocks);
	count(bused, "block used", "blocks used", tail);
	count(s->badblocks, "bad block", "bad blocks", NULL);
	count(s->large, "large file", "large files", NULL);
	printf("\n");
	count(s->regular, "regular file", "regular files", NULL);
	count(s->dirs, "directory", "directories", NULL);
	count(s->chrdev, "character device file", "character device files", NULL);
	count(s->blkdev, "block device file", "block device files", NULL);
	count(s->fifos, "fifo", "fifos", NULL);
	printf("%12s links%s\n", "-", left);
	snprintf(tail, sizeof(tail), " (%llu fast symbolic link%s)",
		 (unsigned long long)s->fast_symlinks, s->fast_symlinks == 1 ? "" : "s");
	count(s->symlinks, "symbolic link", "symbolic links", tail);
	count(s->sockets, "socket", "sockets", NULL);
	printf("------------\n");
	printf("%12s files%s\n", "-", left);
}
