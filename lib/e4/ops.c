/*
 * ops.c: namespace operations that make inodes -- create, mkdir, symlink,
 * mknod, link -- and what every operation shares: name checks, the
 * not-clean window, ordering points, parent updates (ops.h; DESIGN.md
 * "Writing safely").  Removal, rename and freeing are in ops_remove.c.
 */
#include "ops_int.h"

#include <string.h>

/* ---- the not-clean window ------------------------------------------------ */
errcode_t e4_ops_begin(e4_fs *fs)
{
	errcode_t err;

	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	if (fs->ops_depth++)
		return 0;
	fs->ops_failed = 0;
	fs->ops_state = fs->sb->s_state;
	/* ordered, not flushed: the device sees it before the first step */
	err = e4_super_mark_unclean_ordered(fs);
	if (err) {
		fs->ops_depth--;
		return err;
	}
	/* every superblock written inside the window says not clean */
	fs->sb->s_state = e4_cpu_to_le16(e4_le16(fs->ops_state) & ~EXT4_VALID_FS);
	return 0;
}

errcode_t e4_ops_end(e4_fs *fs)
{
	if (!fs->ops_depth)
		return E4_ERR_INVALID_ARGUMENT;
	if (--fs->ops_depth)
		return 0;
	if (!fs->ops_failed) {
		fs->sb->s_state = fs->ops_state;
		fs->sb_dirty = 1;
	}
	return e4_flush_primary(fs, 0);
}

errcode_t e4_ops_finish(e4_fs *fs, errcode_t err, int consistent)
{
	errcode_t e2;

	if (err && !consistent)
		fs->ops_failed = 1;
	e2 = e4_ops_end(fs);
	return err ? err : e2;
}

errcode_t e4_ops_barrier(e4_fs *fs)
{
	return e4_order_point_primary(fs, 0);
}

/* ---- shared checks and updates ------------------------------------------- */
errcode_t e4_ops_name_check(const char *name, size_t len)
{
	if (!name || !len)
		return E4_ERR_INVALID_ARGUMENT;
	if (len > EXT4_NAME_LEN)
		return E4_ERR_NAME_TOO_LONG;
	if (memchr(name, '/', len) || memchr(name, '\0', len) ||
	    (name[0] == '.' && (len == 1 || (len == 2 && name[1] == '.'))))
		return E4_ERR_INVALID_ARGUMENT;
	return 0;
}

errcode_t e4_ops_read_dir(e4_fs *fs, e4_ino_t dir, union e4_inode_buf *ib)
{
	errcode_t err = e4_inode_read(fs, dir, ib);

	if (!err && !e4_is_dir(&ib->inode))
		err = E4_ERR_NOT_DIR;
	return err;
}


errcode_t e4_ops_start(e4_fs *fs, const struct e4_op_attr *attr, struct e4_time *now,
		       union e4_inode_buf **ib)
{
	if (!(fs->flags & E4_OPEN_RW))
		return E4_ERR_READ_ONLY;
	*ib = malloc(sizeof(**ib));
	if (!*ib)
		return E4_ERR_NO_MEMORY;
	if (attr && (attr->now.sec || attr->now.nsec))
		*now = attr->now;
	else
		e4_fs_now(fs, now);
	return 0;
}

int e4_ops_insert_wrote(errcode_t err, int inserting)
{
	if (!inserting)
		return 0;
	/* e4_dir_insert() refuses these before writing anything */
	return err != E4_ERR_NO_SPACE && err != E4_ERR_DIR_INDEX_FULL &&
	       err != E4_ERR_FILE_TOO_BIG && err != E4_ERR_EXISTS &&
	       err != E4_ERR_NAME_TOO_LONG && err != E4_ERR_INVALID_ARGUMENT;
}

errcode_t e4_ops_dir_touch(e4_fs *fs, e4_ino_t dir, int links, const struct e4_time *now)
{
	union e4_inode_buf ib;
	errcode_t err = e4_inode_read(fs, dir, &ib);

	if (err)
		return err;
	if (links > 0)
		err = e4_inode_links_inc(fs, &ib.inode);
	else if (links < 0 && e4_le16(ib.inode.i_links_count) == 1)
		err = e4_ops_dir_recount(fs, dir, &ib);
	else if (links < 0)
		e4_inode_links_dec(&ib.inode);
	if (err)
		return err;
	e4_inode_times_set(fs, &ib.inode, E4_T_MTIME | E4_T_CTIME, now);
	return e4_inode_write(fs, dir, &ib);
}

struct subdirs {
	e4_fs *fs;
	int filetype;
	uint64_t n;
	errcode_t err;
};

static int count_subdir(const struct e4_dirent *d, void *priv)
{
	struct subdirs *c = priv;
	union e4_inode_buf ib;

	if (c->filetype) {
		c->n += d->file_type == EXT4_FT_DIR;
		return 0;
	}
	c->err = e4_inode_read(c->fs, d->inode, &ib);
	if (c->err)
		return 1;
	c->n += e4_is_dir(&ib.inode);
	return 0;
}

errcode_t e4_ops_dir_recount(e4_fs *fs, e4_ino_t dir, union e4_inode_buf *ib)
{
	struct subdirs c = { fs, e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_FILETYPE), 0, 0 };
	errcode_t err = e4_dir_iterate(fs, dir, E4_DIR_NO_DOTS, count_subdir, &c);

	if (c.err)
		return c.err;
	if (err)
		return err;
	return e4_inode_links_set(fs, &ib->inode, c.n + 2 > 0xFFFFFFFFULL ? 0xFFFFFFFF
									 : (uint32_t)(c.n + 2));
}

/* ---- new inodes ------------------------------------------------------------ */
/* Allocate and initialise a new inode of mode for a child of dir, where
 * the allocator's policy puts it (e4_alloc_inode(): directories spread,
 * other inodes near their parent); marked in use in memory, not
 * written. */
static errcode_t new_inode(e4_fs *fs, e4_ino_t dir, uint16_t mode, const struct e4_op_attr *attr,
			   const struct e4_time *now, e4_ino_t *ino, union e4_inode_buf *ib)
{
	union e4_inode_buf *parent = malloc(sizeof(*parent));
	errcode_t err = parent ? e4_inode_read(fs, dir, parent) : E4_ERR_NO_MEMORY;

	if (!err)
		err = e4_alloc_inode(fs, dir, mode, ino);
	if (err)
		goto out;
	err = e4_inode_init(fs, *ino, mode, attr ? attr->uid : 0, attr ? attr->gid : 0, now,
			    attr ? attr->generation : 0, ib);
	if (err)
		e4_alloc_free_inode(fs, *ino, mode);
	else
		e4_inode_inherit(fs, &parent->inode, &ib->inode);
out:
	free(parent);
	return err;
}

/* Undo new_inode() (and anything its body got): 0 when the filesystem is
 * as before. */
static errcode_t give_back(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib)
{
	int is_dir = e4_is_dir(&ib->inode);
	errcode_t err = e4_inode_truncate_blocks(fs, ino, ib, 0, NULL);

	memset(ib, 0, sizeof(*ib));
	if (!err)
		err = e4_inode_write(fs, ino, ib);
	if (!err)
		err = e4_inode_mark(fs, ino, 0, is_dir, NULL);
	if (!err)
		err = e4_ops_barrier(fs);
	return err;
}

/* The target of a symlink in one data block (a slow symlink). */
static errcode_t symlink_block(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib,
			       const char *target, size_t tlen)
{
	unsigned bs = fs->geom.block_size;
	e4_blk_t blk;
	uint64_t got;
	uint8_t *buf;
	errcode_t err;

	/* where the allocator puts a symlink's block (near its inode) */
	err = e4_alloc_blocks(fs, e4_alloc_goal_for_mode(fs, ino, EXT4_S_IFLNK), 1, 1, &blk, &got);
	if (err)
		return err;
	buf = calloc(1, bs);
	if (buf) {
		memcpy(buf, target, tlen);
		err = e4_io_write_blk(fs->io, blk, 1, buf);
		/* the target on disk before the inode that maps it (the
		 * block cache writes a step's blocks sorted by number) */
		if (!err)
			err = e4_ops_barrier(fs);
	} else {
		err = E4_ERR_NO_MEMORY;
	}
	free(buf);
	if (!err)
		err = e4_map_append_block(fs, ino, ib, 0, blk, 1);
	if (err)	/* not mapped: give_back() would not find it */
		e4_alloc_free_blocks(fs, blk, got);
	return err;
}

/* Store the target of symlink ino in *ib: fast, inline or slow. */
static errcode_t symlink_body(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib,
			      const char *target, size_t tlen)
{
	struct ext4_inode *inode = &ib->inode;
	uint32_t flags = e4_le32(inode->i_flags) & ~(uint32_t)EXT4_EXTENTS_FL;
	errcode_t err;

	if (tlen < sizeof(inode->i_block)) {
		memset(inode->i_block, 0, sizeof(inode->i_block));
		memcpy(inode->i_block, target, tlen);
		inode->i_flags = e4_cpu_to_le32(flags);
		return e4_inode_size_set(fs, inode, tlen);
	}
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_INLINE_DATA) &&
	    fs->geom.inode_size > EXT4_GOOD_OLD_INODE_SIZE) {
		union e4_inode_buf *copy = malloc(sizeof(*copy));

		if (!copy)
			return E4_ERR_NO_MEMORY;
		memcpy(copy, ib, sizeof(*copy));
		memcpy(copy->inode.i_block, target, sizeof(inode->i_block));
		copy->inode.i_flags = e4_cpu_to_le32(flags | EXT4_INLINE_DATA_FL);
		err = e4_xattr_ibody_set(fs, copy, EXT4_XATTR_INDEX_SYSTEM, "data", 4,
					 target + sizeof(inode->i_block),
					 tlen - sizeof(inode->i_block));
		if (!err) {
			memcpy(ib, copy, sizeof(*copy));
			free(copy);
			return e4_inode_size_set(fs, inode, tlen);
		}
		free(copy);
		if (err != E4_ERR_NO_SPACE)
			return err;
	}
	/* slow: the size first (a symlink without blocks and a short size
	 * reads as fast, with no map), the extent root e4_inode_init() made
	 * kept, as the kernel keeps EXTENTS_FL on slow symlinks */
	err = e4_inode_size_set(fs, inode, tlen);
	return err ? err : symlink_block(fs, ino, ib, target, tlen);
}

/* What a new inode holds, by type. */
struct node_spec {
	uint16_t mode;			/* type and permissions */
	const char *target;		/* symlink */
	size_t tlen;
	uint32_t major, minor;		/* devices */
};

/* Write the new inode ino and its contents (blocks first, then the inode). */
static errcode_t node_body(e4_fs *fs, e4_ino_t dir, e4_ino_t ino, union e4_inode_buf *ib,
			   const struct node_spec *sp)
{
	errcode_t err = 0;

	switch (sp->mode & EXT4_S_IFMT) {
	case EXT4_S_IFDIR: {
		unsigned fl = e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_INLINE_DATA)
			      ? E4_DIR_BUILD_INLINE : 0;
		uint16_t links = ib->inode.i_links_count;

		/* e4_dir_build() reads the inode: written first without
		 * links (a deleted inode, a leak, if the process stops
		 * here), counted only once its block is on the disk (the
		 * cache writes a step's blocks sorted by number: the inode
		 * table would go before the block) */
		ib->inode.i_links_count = 0;
		err = e4_inode_write(fs, ino, ib);
		if (!err)
			err = e4_dir_build(fs, ino, dir, NULL, 0, fl, 0);
		if (!err)
			err = e4_inode_read(fs, ino, ib);
		if (!err)
			err = e4_ops_barrier(fs);
		if (!err) {
			ib->inode.i_links_count = links;
			err = e4_inode_write(fs, ino, ib);
		}
		return err;
	}
	case EXT4_S_IFLNK:
		err = symlink_body(fs, ino, ib, sp->target, sp->tlen);
		break;
	case EXT4_S_IFCHR:
	case EXT4_S_IFBLK:
		err = e4_inode_dev_set(&ib->inode, sp->major, sp->minor);
		break;
	}
	return err ? err : e4_inode_write(fs, ino, ib);
}

/* create, mkdir, symlink, mknod: a new inode, then its entry, then the
 * parent. */
static errcode_t make_node(e4_fs *fs, e4_ino_t dir, const char *name, size_t len,
			   const struct node_spec *sp, const struct e4_op_attr *attr,
			   e4_ino_t *ret)
{
	union e4_inode_buf *ib = NULL;
	int is_dir = (sp->mode & EXT4_S_IFMT) == EXT4_S_IFDIR, linked = 0, inserting = 0, wrote, unnamed;
	struct e4_time now;
	e4_ino_t ino = 0;
	errcode_t err;

	err = e4_ops_start(fs, attr, &now, &ib);
	if (err)
		return err;
	err = e4_ops_name_check(name, len);
	if (!err)
		err = e4_ops_read_dir(fs, dir, ib);
	if (!err && is_dir)
		err = e4_inode_links_inc(fs, &ib->inode);	/* room for one more? */
	/* the directory takes the name (supported, sound where the insert
	 * reads, the name not there) before an inode is taken: a refusal
	 * leaves nothing to give back (the index's leaves only, not the
	 * whole-directory scan a failed e4_dir_lookup() makes) */
	if (!err)
		err = e4_dir_insert_check(fs, dir, name, len);
	if (!err)
		err = e4_ops_begin(fs);
	if (err)
		goto out;
	/* 0. a directory's parent counts its ".." before it exists (more
	 * links than names is a leak; fewer would free it too early) */
	if (is_dir) {
		err = e4_ops_dir_touch(fs, dir, 1, &now);
		if (!err)
			err = e4_ops_barrier(fs);
		if (err) {
			err = e4_ops_finish(fs, err, 0);
			goto out;
		}
	}
	/* 1. the inode in use and written, with its blocks */
	err = new_inode(fs, dir, sp->mode, attr, &now, &ino, ib);
	if (!err)
		err = node_body(fs, dir, ino, ib, sp);
	if (!err)
		err = e4_ops_barrier(fs);
	/* 2. the entry naming it; 3. the parent's times and links */
	if (!err) {
		inserting = 1;
		err = e4_dir_insert(fs, dir, name, len, ino, e4_mode_file_type(sp->mode));
		linked = !err;
	}
	if (!err)
		err = e4_ops_dir_touch(fs, dir, 0, &now);
	if (!err)
		err = e4_ops_barrier(fs);
	/* an insert that failed part way (a device error: a write-back of an
	 * earlier step failing under it) and left no entry by that name:
	 * nothing names the inode, which is given back (the directory may
	 * be half changed: the filesystem stays marked not clean) */
	wrote = e4_ops_insert_wrote(err, inserting);
	unnamed = !linked && (!wrote || !e4_dir_insert_check(fs, dir, name, len));
	if (err && unnamed && is_dir)	/* the parent's link of step 0 back */
		e4_ops_dir_touch(fs, dir, -1, &now);
	if (err && !ino)	/* no inode: nothing was changed */
		err = e4_ops_finish(fs, err, !is_dir);
	else if (err && unnamed)
		err = e4_ops_finish(fs, err, give_back(fs, ino, ib) == 0 && !wrote);
	else
		err = e4_ops_finish(fs, err, 0);
	if (!err && ret)
		*ret = ino;
out:
	free(ib);
	return err;
}

static uint16_t perm_of(const struct e4_op_attr *attr, uint16_t def)
{
	return attr ? (attr->perm & 07777) : def;
}

errcode_t e4_op_create(e4_fs *fs, e4_ino_t dir, const char *name, size_t len,
		       const struct e4_op_attr *attr, e4_ino_t *ino)
{
	struct node_spec sp = { EXT4_S_IFREG | perm_of(attr, 0644), NULL, 0, 0, 0 };

	return make_node(fs, dir, name, len, &sp, attr, ino);
}

errcode_t e4_op_mkdir(e4_fs *fs, e4_ino_t dir, const char *name, size_t len,
		      const struct e4_op_attr *attr, e4_ino_t *ino)
{
	struct node_spec sp = { EXT4_S_IFDIR | perm_of(attr, 0755), NULL, 0, 0, 0 };

	return make_node(fs, dir, name, len, &sp, attr, ino);
}

errcode_t e4_op_symlink(e4_fs *fs, e4_ino_t dir, const char *name, size_t len,
			const char *target, size_t tlen, const struct e4_op_attr *attr,
			e4_ino_t *ino)
{
	struct node_spec sp = { EXT4_S_IFLNK | perm_of(attr, 0777), target, tlen, 0, 0 };

	if (!target || !tlen || tlen >= fs->geom.block_size || memchr(target, 0, tlen))
		return E4_ERR_INVALID_ARGUMENT;
	return make_node(fs, dir, name, len, &sp, attr, ino);
}

errcode_t e4_op_mknod(e4_fs *fs, e4_ino_t dir, const char *name, size_t len, uint16_t type,
		      uint32_t major, uint32_t minor, const struct e4_op_attr *attr,
		      e4_ino_t *ino)
{
	struct node_spec sp = { (uint16_t)(type | perm_of(attr, 0644)), NULL, 0, major, minor };
	union e4_inode_buf probe;

	switch (type) {
	case EXT4_S_IFCHR:
	case EXT4_S_IFBLK:
		if (e4_inode_dev_set(&probe.inode, major, minor))
			return E4_ERR_INVALID_ARGUMENT;
		break;
	case EXT4_S_IFIFO:
	case EXT4_S_IFSOCK:
		sp.major = sp.minor = 0;
		break;
	default:
		return E4_ERR_INVALID_ARGUMENT;
	}
	return make_node(fs, dir, name, len, &sp, attr, ino);
}

/* ---- link -------------------------------------------------------------------- */
errcode_t e4_op_link(e4_fs *fs, e4_ino_t dir, const char *name, size_t len, e4_ino_t ino,
		     unsigned flags)
{
	int count = !(flags & E4_OP_ENTRY_ONLY), linked = 0, inserting = 0;
	union e4_inode_buf *ib;
	struct e4_time now;
	errcode_t err;

	err = e4_ops_start(fs, NULL, &now, &ib);
	if (err)
		return err;
	err = e4_ops_name_check(name, len);
	if (!err)
		err = e4_ops_read_dir(fs, dir, ib);
	if (!err)
		err = e4_inode_read(fs, ino, ib);
	if (err == E4_ERR_INODE_CSUM && !count)
		err = 0;	/* the entry alone: only the type is read */
	if (!err && count) {
		int used = 0;

		err = e4_test_inode(fs, ino, &used);
		if (!err && (!used || !e4_le16(ib->inode.i_links_count)))
			err = E4_ERR_NOT_FOUND;
		if (!err && e4_is_dir(&ib->inode))
			err = E4_ERR_IS_DIR;
		if (!err)
			err = e4_inode_links_inc(fs, &ib->inode);
	}
	if (!err)	/* refused before the count goes up (make_node) */
		err = e4_dir_insert_check(fs, dir, name, len);
	if (!err)
		err = e4_ops_begin(fs);
	if (err)
		goto out;
	/* the count first: a stop leaves one too many, never one too few */
	if (count) {
		e4_inode_times_set(fs, &ib->inode, E4_T_CTIME, &now);
		err = e4_inode_write(fs, ino, ib);
		if (!err)
			err = e4_ops_barrier(fs);
	}
	if (!err) {
		inserting = 1;
		err = e4_dir_insert(fs, dir, name, len, ino, e4_mode_file_type(e4_le16(ib->inode.i_mode)));
		linked = !err;
	}
	if (!err)
		err = e4_ops_dir_touch(fs, dir, 0, &now);
	if (!err)
		err = e4_ops_barrier(fs);
	if (err && count && !linked && !e4_ops_insert_wrote(err, inserting)) {
		errcode_t undo = e4_inode_read(fs, ino, ib);

		e4_inode_links_dec(&ib->inode);
		if (!undo)
			undo = e4_inode_write(fs, ino, ib);
		if (!undo)
			undo = e4_ops_barrier(fs);
		err = e4_ops_finish(fs, err, !undo);
	} else {
		err = e4_ops_finish(fs, err, !count && !linked && !e4_ops_insert_wrote(err, inserting));
	}
out:
	free(ib);
	return err;
}

/* The inode layer's symlink body without a directory entry (e4mkfs -d
 * writes entries in bulk).  See ops.h. */
errcode_t e4_symlink_set(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, const char *target,
			 size_t tlen)
{
	if (!tlen || tlen >= fs->geom.block_size || memchr(target, 0, tlen))
		return E4_ERR_INVALID_ARGUMENT;
	return symlink_body(fs, ino, ib, target, tlen);
}
