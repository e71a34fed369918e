/*
 * pass4.c: pass 4 of the full check, reference counts (dirpass.h).
 *
 * For every inode in use but the reserved ones (below s_first_ino but
 * the root; the journal, quota and orphan-file inodes; EA inodes, whose
 * references pass 1 counted, unless nothing names them), the entries naming it (p->links' counted,
 * from pass 2 and what pass 3 changed) against its i_links_count:
 *  - named by nothing: an inode holding nothing (a regular file of size
 *    0, no blocks, no attributes) is offered for clearing; anything else
 *    for connection to /lost+found as #ino (never cleared: a default
 *    answer keeps data);
 *  - a directory counted above 65000 (E4_LINK_MAX) stores 1, which needs
 *    dir_nlink (offered when missing);
 *  - counts that differ: i_links_count rewritten (e4_inode_links_set()).
 * A directory whose count was 1 (beyond the limit) and is no longer is
 * set without a question, as the reference does (an indexed directory;
 * not under -n).
 */
#include "pass34.h"

#include <string.h>

/* Inodes pass 4 leaves alone. */
static int skipped(struct pass1 *p, e4_ino_t ino)
{
	struct ext4_super_block *sb = e4_super(p->fs);

	if (ino == EXT4_BAD_INO || (ino > EXT4_ROOT_INO && ino < p->geo->first_ino))
		return 1;
	return ino == e4_le32(sb->s_journal_inum) || ino == e4_le32(sb->s_usr_quota_inum) ||
	       ino == e4_le32(sb->s_grp_quota_inum) || ino == e4_le32(sb->s_prj_quota_inum) ||
	       ino == e4_le32(sb->s_orphan_file_inum);
}

/* Nothing in it: a regular file without size, blocks or attributes. */
static int holds_nothing(const struct ext4_inode *in)
{
	uint16_t mode = e4_le16(in->i_mode);

	return (mode & EXT4_S_IFMT) == EXT4_S_IFREG && !in->i_blocks_lo && !in->i_size_lo &&
	       !in->i_size_high && !in->i_file_acl_lo &&
	       !(e4_le32(in->i_flags) & EXT4_INLINE_DATA_FL);
}

/* Clear an inode holding nothing: released through the library (written
 * deleted, its bit cleared in p->inodes by the hook). */
static errcode_t clear_empty(struct pass1 *p, e4_ino_t ino)
{
	errcode_t err = p34_write_begin(p);

	if (!err)
		err = e4_op_release(p->fs, ino);
	if (!err)
		err = e4_bmap_clear(p->inodes, ino);
	if (!err)
		err = e4_bmap_clear(p->regs, ino);
	if (!err)
		err = links_set_stored(p->links, ino, 0);
	return err;
}

/* Inode ino is named by nothing: *next = 1 when its count is not to be
 * judged (cleared, left unattached, an EA inode). */
static errcode_t unattached(struct pass1 *p, e4_ino_t ino, int *next)
{
	struct problem_ctx pctx = { 0 };
	union e4_inode_buf ib;
	int done, ea;
	errcode_t err;

	*next = 1;
	err = e4_inode_read(p->fs, ino, &ib);
	if (err && err != E4_ERR_INODE_CSUM)
		return err;
	/* an EA inode is named by attribute entries, not directories;
	 * one that nothing names is an unattached inode (as e2fsck) */
	ea = (e4_le32(ib.inode.i_flags) & EXT4_EA_INODE_FL) != 0;
	if (ea && !p1_ea_unnamed(p, ino))
		return 0;
	pctx.ino = ino;
	if (holds_nothing(&ib.inode) && fix_problem(p->ctx, PR_4_ZERO_LEN_INODE, &pctx))
		return clear_empty(p, ino);
	if (p->maps_unsure) {	/* nothing can be allocated (pass34.h) */
		fix_problem(p->ctx, PR_3_CONNECT_MAPS_UNSURE, &pctx);
		return 0;
	}
	if (!fix_problem(p->ctx, PR_4_UNATTACHED_INODE, &pctx))
		return 0;
	if (ea && !p->ctx->read_only) {
		/* named by a directory it is a file: the kernel refuses
		 * EA_INODE_FL on an inode looked up by name */
		ib.inode.i_flags = e4_cpu_to_le32(e4_le32(ib.inode.i_flags) & ~EXT4_EA_INODE_FL);
		err = p34_write_begin(p);
		if (!err)
			err = e4_inode_write(p->fs, ino, &ib);
		if (err)
			return err;
	}
	err = p34_reconnect(p, ino, &done);
	*next = err || !done;
	return err;
}

/* Write counted as inode ino's link count. */
static errcode_t set_count(struct pass1 *p, e4_ino_t ino, uint32_t counted)
{
	union e4_inode_buf ib;
	errcode_t err;

	err = e4_inode_read(p->fs, ino, &ib);
	if (err && err != E4_ERR_INODE_CSUM)
		return err;
	err = e4_inode_links_set(p->fs, &ib.inode, counted);
	if (err == E4_ERR_TOO_MANY_LINKS) {	/* a file above 65000: left */
		e4fsck_left(p->ctx);
		return 0;
	}
	if (!err)
		err = p34_write_begin(p);
	if (!err)
		err = e4_inode_write(p->fs, ino, &ib);
	if (!err)
		err = links_set_stored(p->links, ino, e4_le16(ib.inode.i_links_count));
	return err;
}

static errcode_t check_inode(struct pass1 *p, e4_ino_t ino, int *dir_nlink)
{
	struct problem_ctx pctx = { 0 };
	uint32_t stored = links_stored(p->links, ino), counted = links_counted(p->links, ino);
	int isdir, next;
	errcode_t err;

	if (!counted) {
		err = unattached(p, ino, &next);
		if (err || next)
			return err;
		stored = links_stored(p->links, ino);
		counted = links_counted(p->links, ino);
	}
	isdir = dirs_find(&p->dirinfo, ino) != NULL;
	pctx.ino = ino;
	if (isdir && counted > E4_LINK_MAX) {
		pctx.num = counted;
		if (!*dir_nlink && fix_problem(p->ctx, PR_4_DIR_NLINK_FEATURE, &pctx)) {
			struct ext4_super_block *sb = e4_super(p->fs);

			sb->s_feature_ro_compat = e4_cpu_to_le32(e4_le32(sb->s_feature_ro_compat) |
								 EXT4_FEATURE_RO_COMPAT_DIR_NLINK);
			p->ctx->sb_dirty = 1;
			*dir_nlink = 1;
		}
		counted = 1;	/* the kernel's rule, with or without the feature */
	}
	if (counted == stored)
		return 0;
	pctx.num = stored;
	pctx.num2 = counted;
	if (isdir && counted > 1 && stored == 1 && !p->ctx->read_only) {
		union e4_inode_buf ib;

		err = e4_inode_read(p->fs, ino, &ib);
		if (err && err != E4_ERR_INODE_CSUM)
			return err;
		if (e4_le32(ib.inode.i_flags) & EXT4_INDEX_FL)
			return set_count(p, ino, counted);
	}
	if (!fix_problem(p->ctx, PR_4_BAD_REF_COUNT, &pctx))
		return 0;
	return set_count(p, ino, counted);
}

errcode_t e4fsck_pass4(struct e4fsck *ctx, struct pass1 *p)
{
	uint64_t end = (uint64_t)p->geo->inodes_count + 1, ino = 1;
	int dir_nlink = e4_has_ro_compat(p->fs, EXT4_FEATURE_RO_COMPAT_DIR_NLINK);
	errcode_t err = 0;

	fix_problem(ctx, PR_4_PASS_HEADER, NULL);
	while (!err && !e4_bmap_find_first_set(p->inodes, ino, end, &ino)) {
		if (!skipped(p, (e4_ino_t)ino))
			err = check_inode(p, (e4_ino_t)ino, &dir_nlink);
		ino++;
	}
	p34_write_end(p);
	e4fsck_problem_summary(ctx);
	if (err) {
		e4fsck_fail_msg(ctx, err, "in pass 4");
		return err;
	}
	p->ran |= E4FSCK_RAN_PASS4;
	return 0;
}
