/*
 * ops_remove.c: namespace operations that drop names or inodes -- unlink,
 * rmdir, rename -- and freeing an inode (ops.h).  Order (DESIGN.md
 * "Writing safely"): the entry goes first, then the inode is written
 * deleted (links 0, dtime), then its blocks, attributes and bit are
 * released; a stop in between leaves leaks on a filesystem marked not
 * clean, never a name for a freed inode.
 */
#include "ops_int.h"

#include <string.h>

/* ---- freeing ------------------------------------------------------------ */
int e4_ino_reserved(e4_fs *fs, e4_ino_t ino)
{
	return ino < fs->geom.first_ino;
}

static int walk_none(e4_fs *fs, const struct e4_map_extent *ext, void *priv)
{
	(void)fs;
	(void)ext;
	(void)priv;
	return 0;
}

static int xattr_none(e4_fs *fs, const struct e4_xattr *x, void *priv)
{
	(void)fs;
	(void)x;
	(void)priv;
	return 0;
}

/* Whether release() can free inode ino (image *ib) to the end, checked
 * before anything is written: its block map or extent tree walks (tree
 * checksums aside: the release does not hold tree blocks to them) and
 * its attributes read.  The map's or attributes' error otherwise. */
static errcode_t releasable(e4_fs *fs, e4_ino_t ino, const union e4_inode_buf *ib)
{
	errcode_t err = 0;

	if (e4_inode_has_map(fs, &ib->inode)) {
		err = e4_map_iterate(fs, ino, &ib->inode, E4_ITER_META, walk_none, NULL);
		if (err == E4_ERR_EXTENT_CSUM)
			err = 0;
	}
	if (!err)
		err = e4_xattr_iterate(fs, ino, &ib->inode, xattr_none, NULL);
	return err;
}

/* Release the inode ino whose image is *ib (read by the caller). */
static errcode_t release(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib,
			 const struct e4_time *now)
{
	struct e4_xattr_opts xo = { now->sec, 0 };
	int is_dir = e4_is_dir(&ib->inode);
	errcode_t err;

	if (e4_ino_reserved(fs, ino) || ino > fs->geom.inodes_count)
		return E4_ERR_INVALID_ARGUMENT;
	/* 1. deleted on the device: nothing it maps is reachable any more */
	ib->inode.i_links_count = 0;
	e4_inode_times_set(fs, &ib->inode, E4_T_CTIME | E4_T_DTIME, now);
	err = e4_inode_write(fs, ino, ib);
	if (!err)
		err = e4_ops_barrier(fs);
	/* 2. its blocks, attributes, size and bit */
	if (!err)
		err = e4_inode_truncate_blocks(fs, ino, ib, 0, NULL);
	if (!err)
		err = e4_xattr_remove_all(fs, ino, ib, &xo);
	if (!err) {
		ib->inode.i_size_lo = 0;
		ib->inode.i_size_high = 0;
		err = e4_inode_write(fs, ino, ib);
	}
	if (!err)
		err = e4_inode_mark(fs, ino, 0, is_dir, NULL);
	if (!err)
		err = e4_ops_barrier(fs);
	return err;
}

errcode_t e4_op_release(e4_fs *fs, e4_ino_t ino)
{
	union e4_inode_buf *ib;
	struct e4_time now;
	errcode_t err;

	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (e4_ino_reserved(fs, ino) || ino > fs->geom.inodes_count)
		return E4_ERR_INVALID_ARGUMENT;
	ib = malloc(sizeof(*ib));
	if (!ib)
		return E4_ERR_NO_MEMORY;
	e4_fs_now(fs, &now);
	err = e4_inode_read(fs, ino, ib);
	if (!err)
		err = releasable(fs, ino, ib);
	if (!err)
		err = e4_ops_begin(fs);
	if (!err)
		err = e4_ops_finish(fs, release(fs, ino, ib, &now), 0);
	free(ib);
	return err;
}

/* One link less for inode ino (not a directory); freed at 0. */
static errcode_t drop_link(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib,
			   const struct e4_time *now)
{
	e4_inode_links_dec(&ib->inode);
	if (!e4_le16(ib->inode.i_links_count))
		return release(fs, ino, ib, now);
	e4_inode_times_set(fs, &ib->inode, E4_T_CTIME, now);
	return e4_inode_write(fs, ino, ib);
}

/* ---- unlink, rmdir --------------------------------------------------------- */
/* Look name up in directory dir: *ino and its inode image *ib. */
static errcode_t lookup(e4_fs *fs, e4_ino_t dir, const char *name, size_t len, e4_ino_t *ino,
			union e4_inode_buf *ib)
{
	errcode_t err = e4_ops_name_check(name, len);

	if (!err)
		err = e4_ops_read_dir(fs, dir, ib);
	if (!err)	/* by the index alone (a miss is final, as the kernel's) */
		err = e4_dir_lookup_index(fs, dir, name, len, ino, NULL);
	if (!err)
		err = e4_inode_read(fs, *ino, ib);
	return err;
}

/* The entry name of dir removed, dir's times and links (as
 * e4_ops_dir_touch()), on the device before anything is freed. */
static errcode_t entry_out(e4_fs *fs, e4_ino_t dir, const char *name, size_t len, int links,
			   const struct e4_time *now)
{
	errcode_t err = e4_dir_remove(fs, dir, name, len, NULL, NULL);

	if (!err)
		err = e4_ops_dir_touch(fs, dir, links, now);
	return err ? err : e4_ops_barrier(fs);
}

errcode_t e4_op_unlink(e4_fs *fs, e4_ino_t dir, const char *name, size_t len, unsigned flags,
		       e4_ino_t *ret)
{
	union e4_inode_buf *ib;
	struct e4_time now;
	e4_ino_t ino = 0;
	errcode_t err;

	err = e4_ops_start(fs, NULL, &now, &ib);
	if (err)
		return err;
	err = lookup(fs, dir, name, len, &ino, ib);
	if (err == E4_ERR_INODE_CSUM && (flags & E4_OP_ENTRY_ONLY))
		err = 0;		/* the entry alone: the inode is not touched */
	if (!err && !(flags & E4_OP_ENTRY_ONLY) && e4_is_dir(&ib->inode))
		err = E4_ERR_IS_DIR;
	/* the last link: the name stays unless the inode can be freed */
	if (!err && !(flags & E4_OP_ENTRY_ONLY) && e4_le16(ib->inode.i_links_count) <= 1)
		err = releasable(fs, ino, ib);
	if (!err)
		err = e4_ops_begin(fs);
	if (err)
		goto out;
	err = entry_out(fs, dir, name, len, 0, &now);
	if (!err && !(flags & E4_OP_ENTRY_ONLY))
		err = drop_link(fs, ino, ib, &now);
	if (!err)
		err = e4_ops_barrier(fs);
	err = e4_ops_finish(fs, err, 0);
	if (!err && ret)
		*ret = ino;
out:
	free(ib);
	return err;
}

static int any_entry(const struct e4_dirent *d, void *priv)
{
	(void)d;
	(void)priv;
	return 1;
}

/* 0 if directory ino holds nothing but "." and "..", else
 * E4_ERR_DIR_NOT_EMPTY or the walk's error. */
static errcode_t dir_empty(e4_fs *fs, e4_ino_t ino)
{
	errcode_t err = e4_dir_iterate(fs, ino, E4_DIR_NO_DOTS, any_entry, NULL);

	return err == 1 ? E4_ERR_DIR_NOT_EMPTY : err;
}

errcode_t e4_op_rmdir(e4_fs *fs, e4_ino_t dir, const char *name, size_t len)
{
	union e4_inode_buf *ib;
	struct e4_time now;
	e4_ino_t ino = 0;
	errcode_t err;

	err = e4_ops_start(fs, NULL, &now, &ib);
	if (err)
		return err;
	err = lookup(fs, dir, name, len, &ino, ib);
	if (!err && !e4_is_dir(&ib->inode))
		err = E4_ERR_NOT_DIR;
	if (!err && e4_ino_reserved(fs, ino))
		err = E4_ERR_INVALID_ARGUMENT;
	if (!err)
		err = dir_empty(fs, ino);
	if (!err)
		err = releasable(fs, ino, ib);
	if (!err)
		err = e4_ops_begin(fs);
	if (err)
		goto out;
	err = entry_out(fs, dir, name, len, -1, &now);
	if (!err)
		err = release(fs, ino, ib, &now);
	err = e4_ops_finish(fs, err, 0);
out:
	free(ib);
	return err;
}

/* ---- rename ------------------------------------------------------------------ */
/* E4_ERR_INVALID_ARGUMENT if directory dir is src or lies below it. */
static errcode_t not_below(e4_fs *fs, e4_ino_t src, e4_ino_t dir)
{
	e4_ino_t p = dir, up;

	for (unsigned depth = 0; depth < 65536; depth++) {
		errcode_t err;

		if (p == src)
			return E4_ERR_INVALID_ARGUMENT;
		if (p == EXT4_ROOT_INO)
			return 0;
		err = e4_dir_lookup(fs, p, "..", 2, &up, NULL);
		if (err)
			return err;
		p = up;
	}
	return E4_ERR_LOOP;
}

struct rename_ctx {
	e4_ino_t src, tgt;		/* tgt 0: no target */
	union e4_inode_buf sib, tib;
	int src_dir, tgt_dir, moved;	/* moved: a directory changes parent */
};

/* What rename may do, checked before anything is written. */
static errcode_t rename_check(e4_fs *fs, e4_ino_t odir, const char *oname, size_t olen,
			      e4_ino_t ndir, const char *nname, size_t nlen,
			      struct rename_ctx *c)
{
	errcode_t err = lookup(fs, odir, oname, olen, &c->src, &c->sib);

	if (!err)
		err = e4_ops_name_check(nname, nlen);
	if (!err)
		err = e4_ops_read_dir(fs, ndir, &c->tib);
	if (err)
		return err;
	c->src_dir = e4_is_dir(&c->sib.inode);
	c->moved = c->src_dir && odir != ndir;
	if (c->moved && !(err = not_below(fs, c->src, ndir)))
		err = e4_inode_links_inc(fs, &c->tib.inode);	/* ndir has room */
	if (err)
		return err;
	/* the target by the index alone (e4_dir_insert()'s own test): a
	 * miss costs one leaf, not the whole directory */
	err = e4_dir_lookup_index(fs, ndir, nname, nlen, &c->tgt, NULL);
	if (err == E4_ERR_NOT_FOUND) {
		c->tgt = 0;
		return 0;
	}
	if (!err && c->tgt == c->src)
		return 0;	/* one inode under both names */
	if (!err)
		err = e4_inode_read(fs, c->tgt, &c->tib);
	if (err)
		return err;
	c->tgt_dir = e4_is_dir(&c->tib.inode);
	if (c->src_dir && !c->tgt_dir)
		return E4_ERR_NOT_DIR;
	if (!c->src_dir && c->tgt_dir)
		return E4_ERR_IS_DIR;
	return c->tgt_dir ? dir_empty(fs, c->tgt) : 0;
}

/* The writes of rename, in order: new entry, old entry removed, "..", the
 * replaced target released. */
static errcode_t rename_write(e4_fs *fs, e4_ino_t odir, const char *oname, size_t olen,
			      e4_ino_t ndir, const char *nname, size_t nlen,
			      struct rename_ctx *c, const struct e4_time *now)
{
	uint8_t ft = e4_mode_file_type(e4_le16(c->sib.inode.i_mode));
	errcode_t err;

	if (c->tgt)
		err = e4_dir_set_entry(fs, ndir, nname, nlen, c->src, ft, NULL);
	else
		err = e4_dir_insert(fs, ndir, nname, nlen, c->src, ft);
	if (!err && odir != ndir)
		err = e4_ops_dir_touch(fs, ndir, c->moved && !c->tgt_dir ? 1 : 0, now);
	if (!err)
		err = e4_ops_barrier(fs);
	if (err)
		return err;
	err = e4_dir_remove(fs, odir, oname, olen, NULL, NULL);
	if (!err && c->moved)
		err = e4_dir_set_entry(fs, c->src, "..", 2, ndir, EXT4_FT_DIR, NULL);
	if (!err)	/* a directory replaced in its own parent: one link less */
		err = e4_ops_dir_touch(fs, odir, c->moved || (c->tgt_dir && odir == ndir) ? -1 : 0,
				       now);
	if (!err)
		err = e4_inode_read(fs, c->src, &c->sib);
	if (!err) {
		e4_inode_times_set(fs, &c->sib.inode, E4_T_CTIME, now);
		err = e4_inode_write(fs, c->src, &c->sib);
	}
	if (!err)
		err = e4_ops_barrier(fs);
	if (err || !c->tgt)
		return err;
	if (c->tgt_dir)
		err = release(fs, c->tgt, &c->tib, now);
	else
		err = drop_link(fs, c->tgt, &c->tib, now);
	return err ? err : e4_ops_barrier(fs);
}

errcode_t e4_op_rename(e4_fs *fs, e4_ino_t odir, const char *oname, size_t olen, e4_ino_t ndir,
		       const char *nname, size_t nlen)
{
	struct rename_ctx *c;
	struct e4_time now;
	errcode_t err;

	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	c = calloc(1, sizeof(*c));
	if (!c)
		return E4_ERR_NO_MEMORY;
	e4_fs_now(fs, &now);
	err = rename_check(fs, odir, oname, olen, ndir, nname, nlen, c);
	if (err || c->tgt == c->src ||
	    (odir == ndir && olen == nlen && !memcmp(oname, nname, olen)))
		goto out;	/* refused, or one inode under both names: nothing */
	err = e4_ops_begin(fs);
	if (!err)
		err = e4_ops_finish(fs, rename_write(fs, odir, oname, olen, ndir, nname, nlen, c,
						     &now), 0);
out:
	free(c);
	return err;
}
