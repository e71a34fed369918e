/*
 * inode_new.c: new inodes and the rules of their fields, in one place
 * (format doc section 6; the kernel's ext4_new_inode, ext4_do_update_inode,
 * ext4_inc_count / ext4_dec_count).  See ops.h.
 */
#include "e4_private.h"

#include <stddef.h>
#include <string.h>
#include <time.h>

void e4_time_now(struct e4_time *t)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	t->sec = ts.tv_sec;
	t->nsec = (uint32_t)ts.tv_nsec;
}

void e4_fs_clock_set(e4_fs *fs, const struct e4_time *t)
{
	fs->clock_set = t != NULL;
	if (t)
		fs->clock = *t;
}

void e4_fs_now(e4_fs *fs, struct e4_time *t)
{
	if (fs->clock_set)
		*t = fs->clock;
	else
		e4_time_now(t);
}

/* The i_extra_isize a new inode gets (ext4_fill_super's s_want_extra_isize). */
static uint16_t want_extra_isize(e4_fs *fs)
{
	unsigned room = fs->geom.inode_size - EXT4_GOOD_OLD_INODE_SIZE;
	unsigned want = EXT4_INODE_FIELD_END(i_projid) - EXT4_GOOD_OLD_INODE_SIZE;

	if (fs->geom.inode_size <= EXT4_GOOD_OLD_INODE_SIZE)
		return 0;
	if (e4_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE)) {
		unsigned w = e4_le16(fs->sb->s_want_extra_isize);
		unsigned m = e4_le16(fs->sb->s_min_extra_isize);

		if (w > want)
			want = w;
		if (m > want)
			want = m;
	}
	return (uint16_t)(want > room ? room : want);
}

/* A generation the way the kernel picks one (random, not 0): a mix of a
 * counter, the clock and the inode number (splitmix64). */
static uint32_t new_generation(e4_ino_t ino)
{
	static uint64_t counter;
	struct timespec ts;
	uint64_t z;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	z = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)ino << 17) ^
	    (++counter * 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	return (uint32_t)z ? (uint32_t)z : 1;
}

errcode_t e4_inode_init(e4_fs *fs, e4_ino_t ino, uint16_t mode, uint32_t uid, uint32_t gid,
			const struct e4_time *now, uint32_t generation, union e4_inode_buf *ib)
{
	struct ext4_inode *inode = &ib->inode;
	uint16_t type = mode & EXT4_S_IFMT;
	struct e4_time t;

	if (!ino || ino > fs->geom.inodes_count || !type)
		return E4_ERR_INVALID_ARGUMENT;
	memset(ib, 0, sizeof(*ib));
	if (now)
		t = *now;
	else
		e4_time_now(&t);
	inode->i_mode = e4_cpu_to_le16(mode);
	e4_inode_owner_set(inode, uid, gid);
	inode->i_links_count = e4_cpu_to_le16(type == EXT4_S_IFDIR ? 2 : 1);
	inode->i_extra_isize = e4_cpu_to_le16(want_extra_isize(fs));
	e4_inode_times_set(fs, inode, E4_T_ATIME | E4_T_CTIME | E4_T_MTIME | E4_T_CRTIME, &t);
	inode->i_generation = e4_cpu_to_le32(generation ? generation : new_generation(ino));
	if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EXTENTS) &&
	    (type == EXT4_S_IFREG || type == EXT4_S_IFDIR || type == EXT4_S_IFLNK)) {
		struct ext4_extent_header *eh = (struct ext4_extent_header *)inode->i_block;

		inode->i_flags = e4_cpu_to_le32(EXT4_EXTENTS_FL);
		eh->eh_magic = e4_cpu_to_le16(EXT4_EXT_MAGIC);
		eh->eh_max = e4_cpu_to_le16((sizeof(inode->i_block) - sizeof(*eh)) /
					    sizeof(struct ext4_extent));
	}
	return 0;
}

#define FIELD(f) offsetof(struct ext4_inode, f), sizeof(((struct ext4_inode *)0)->f)

void e4_inode_times_set(e4_fs *fs, struct ext4_inode *inode, unsigned which,
			const struct e4_time *t)
{
	uint32_t base, extra;

	e4_time_encode(t->sec, t->nsec, &base, &extra);
	if (which & E4_T_ATIME) {
		inode->i_atime = e4_cpu_to_le32(base);
		if (e4_inode_has_field(fs, inode, FIELD(i_atime_extra)))
			inode->i_atime_extra = e4_cpu_to_le32(extra);
	}
	if (which & E4_T_CTIME) {
		inode->i_ctime = e4_cpu_to_le32(base);
		if (e4_inode_has_field(fs, inode, FIELD(i_ctime_extra)))
			inode->i_ctime_extra = e4_cpu_to_le32(extra);
	}
	if (which & E4_T_MTIME) {
		inode->i_mtime = e4_cpu_to_le32(base);
		if (e4_inode_has_field(fs, inode, FIELD(i_mtime_extra)))
			inode->i_mtime_extra = e4_cpu_to_le32(extra);
	}
	if ((which & E4_T_CRTIME) && e4_inode_has_field(fs, inode, FIELD(i_crtime))) {
		inode->i_crtime = e4_cpu_to_le32(base);
		if (e4_inode_has_field(fs, inode, FIELD(i_crtime_extra)))
			inode->i_crtime_extra = e4_cpu_to_le32(extra);
	}
	if (which & E4_T_DTIME)
		inode->i_dtime = e4_cpu_to_le32((uint32_t)t->sec);
}

errcode_t e4_inode_size_fits(e4_fs *fs, const struct ext4_inode *inode, uint64_t size)
{
	int high = e4_is_reg(inode) ||
		   e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_LARGEDIR);

	if (!high && size > 0xFFFFFFFFULL)
		return E4_ERR_FILE_TOO_BIG;
	if (e4_is_reg(inode) && size > 0x7FFFFFFFULL &&
	    !e4_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_LARGE_FILE) &&
	    e4_le32(fs->sb->s_rev_level) == EXT4_GOOD_OLD_REV)
		return E4_ERR_FILE_TOO_BIG;
	return 0;
}

errcode_t e4_inode_size_set(e4_fs *fs, struct ext4_inode *inode, uint64_t size)
{
	int high = e4_is_reg(inode) ||
		   e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_LARGEDIR);
	errcode_t err = e4_inode_size_fits(fs, inode, size);

	if (err)
		return err;
	if (e4_is_reg(inode) && size > 0x7FFFFFFFULL &&
	    !e4_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_LARGE_FILE)) {
		fs->sb->s_feature_ro_compat = e4_cpu_to_le32(e4_le32(fs->sb->s_feature_ro_compat) |
							     EXT4_FEATURE_RO_COMPAT_LARGE_FILE);
		fs->sb_dirty = 1;
	}
	inode->i_size_lo = e4_cpu_to_le32((uint32_t)size);
	inode->i_size_high = e4_cpu_to_le32(high ? (uint32_t)(size >> 32) : 0);
	return 0;
}

errcode_t e4_inode_links_set(e4_fs *fs, struct ext4_inode *inode, uint32_t links)
{
	if (links > E4_LINK_MAX) {
		if (!e4_is_dir(inode) || !e4_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_DIR_NLINK))
			return E4_ERR_TOO_MANY_LINKS;
		links = 1;
	}
	inode->i_links_count = e4_cpu_to_le16((uint16_t)links);
	return 0;
}

errcode_t e4_inode_links_inc(e4_fs *fs, struct ext4_inode *inode)
{
	uint32_t n = e4_le16(inode->i_links_count);

	if (e4_is_dir(inode) && (n == 1 || n >= E4_LINK_MAX)) {
		if (!e4_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_DIR_NLINK) ||
		    !(e4_le32(inode->i_flags) & EXT4_INDEX_FL))
			return E4_ERR_TOO_MANY_LINKS;
		inode->i_links_count = e4_cpu_to_le16(1);
		return 0;
	}
	if (n >= E4_LINK_MAX)
		return E4_ERR_TOO_MANY_LINKS;
	inode->i_links_count = e4_cpu_to_le16((uint16_t)(n + 1));
	return 0;
}

void e4_inode_links_dec(struct ext4_inode *inode)
{
	uint16_t n = e4_le16(inode->i_links_count);

	if (e4_is_dir(inode) ? n > 2 : n > 0)
		inode->i_links_count = e4_cpu_to_le16((uint16_t)(n - 1));
}

void e4_inode_owner_set(struct ext4_inode *inode, uint32_t uid, uint32_t gid)
{
	inode->i_uid = e4_cpu_to_le16((uint16_t)uid);
	inode->l_i_uid_high = e4_cpu_to_le16((uint16_t)(uid >> 16));
	inode->i_gid = e4_cpu_to_le16((uint16_t)gid);
	inode->l_i_gid_high = e4_cpu_to_le16((uint16_t)(gid >> 16));
}

void e4_inode_perm_set(struct ext4_inode *inode, uint16_t perm)
{
	uint16_t mode = e4_le16(inode->i_mode);

	inode->i_mode = e4_cpu_to_le16((uint16_t)((mode & EXT4_S_IFMT) | (perm & 07777)));
}

errcode_t e4_inode_dev_set(struct ext4_inode *inode, uint32_t major, uint32_t minor)
{
	if (major >= 4096 || minor >= (1u << 20))
		return E4_ERR_INVALID_ARGUMENT;
	memset(inode->i_block, 0, sizeof(inode->i_block));
	if (major < 256 && minor < 256)
		inode->i_block[0] = e4_cpu_to_le32(major << 8 | minor);
	else
		inode->i_block[1] = e4_cpu_to_le32((minor & 0xff) | major << 8 |
						   (minor & ~0xffu) << 12);
	return 0;
}

void e4_inode_dev_get(const struct ext4_inode *inode, uint32_t *major, uint32_t *minor)
{
	uint32_t old = e4_le32(inode->i_block[0]), v = e4_le32(inode->i_block[1]);

	if (old) {
		*major = (old >> 8) & 0xff;
		*minor = old & 0xff;
	} else {
		*major = (v >> 8) & 0xfff;
		*minor = (v & 0xff) | ((v >> 12) & 0xfff00);
	}
}

uint8_t e4_mode_file_type(uint16_t mode)
{
	switch (mode & EXT4_S_IFMT) {
	case EXT4_S_IFREG: return EXT4_FT_REG_FILE;
	case EXT4_S_IFDIR: return EXT4_FT_DIR;
	case EXT4_S_IFCHR: return EXT4_FT_CHRDEV;
	case EXT4_S_IFBLK: return EXT4_FT_BLKDEV;
	case EXT4_S_IFIFO: return EXT4_FT_FIFO;
	case EXT4_S_IFSOCK: return EXT4_FT_SOCK;
	case EXT4_S_IFLNK: return EXT4_FT_SYMLINK;
	}
	return EXT4_FT_UNKNOWN;
}

errcode_t e4_inode_init_flags(e4_fs *fs, e4_ino_t ino, uint16_t mode, uint32_t uid, uint32_t gid,
			      const struct e4_time *now, uint32_t generation, unsigned flags,
			      union e4_inode_buf *ib)
{
	int as_is = (flags & E4_INODE_INIT_GENERATION) != 0;
	errcode_t err = e4_inode_init(fs, ino, mode, uid, gid, now,
				      as_is && !generation ? 1 : generation, ib);

	if (!err && as_is)
		ib->inode.i_generation = e4_cpu_to_le32(generation);
	return err;
}

void e4_inode_inherit(e4_fs *fs, const struct ext4_inode *parent, struct ext4_inode *child)
{
	uint32_t pf = e4_le32(parent->i_flags), fl = pf & EXT4_FL_INHERITED;
	size_t off = offsetof(struct ext4_inode, i_projid);
	uint16_t type = e4_le16(child->i_mode) & EXT4_S_IFMT;

	if (type == EXT4_S_IFREG)
		fl &= EXT4_REG_FLMASK;
	else if (type != EXT4_S_IFDIR)
		fl &= EXT4_OTHER_FLMASK;
	child->i_flags = e4_cpu_to_le32(e4_le32(child->i_flags) | fl);
	if ((pf & EXT4_PROJINHERIT_FL) &&
	    e4_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_PROJECT) &&
	    e4_inode_has_field(fs, parent, off, sizeof(parent->i_projid)) &&
	    e4_inode_has_field(fs, child, off, sizeof(child->i_projid)))
		child->i_projid = parent->i_projid;
}
