/*
 * dir_int.h: directory internals shared by the reader (dir.c, htree.c)
 * and the writers (dir_write.c, htree_write.c).  Not installed.
 */
#ifndef E4_DIR_INT_H
#define E4_DIR_INT_H

#include "e4_private.h"

#define E4_DIRENT_HDR		8	/* inode, rec_len, name_len, file_type */
#define E4_DIRENT_TAIL		((unsigned)sizeof(struct ext4_dir_entry_tail))
#define E4_DX_ROOT_COUNT_OFF	0x20	/* "." (12) + ".." (12) + dx_root_info (8) */
#define E4_DX_NODE_COUNT_OFF	8	/* the fake empty entry */
#define E4_DX_MAX_FRAMES	3	/* root + 2 node levels (largedir) */
/* Directory size without largedir (bytes). */
#define E4_DIR_MAX_BYTES	(1ULL << 31)

/* Little-endian stores at any address inside a raw block. */
static inline void e4_put_le16(void *p, uint16_t v)
{
	v = e4_cpu_to_le16(v);
	__builtin_memcpy(p, &v, 2);
}
static inline void e4_put_le32(void *p, uint32_t v)
{
	v = e4_cpu_to_le32(v);
	__builtin_memcpy(p, &v, 4);
}

/* i_blocks of inode += blocks filesystem blocks (negative: fewer). */
static inline errcode_t e4_dirw_blocks_add(e4_fs *fs, struct ext4_inode *inode, int64_t blocks)
{
	return e4_inode_blocks_set(fs, inode, e4_inode_blocks(fs, inode) +
				   (uint64_t)blocks * (fs->geom.block_size / 512));
}

/* Blocks per cluster (1 without bigalloc). */
static inline unsigned e4_dirw_cluster(e4_fs *fs)
{
	return 1u << fs->geom.cluster_bits;
}

/* Minimum record of an entry with a name of name_len bytes (section 8.1). */
static inline unsigned e4_dirent_min_rec(unsigned name_len)
{
	return (E4_DIRENT_HDR + name_len + 3) & ~3u;
}

/* The length of the record at d (block size bs), at least a header's:
 * a walk over unchecked or damaged bytes moves on instead of looping. */
static inline unsigned e4_dirent_rec(const uint8_t *d, unsigned bs)
{
	unsigned r = e4_rec_len_from_disk(e4_get_le16(d + 4), bs);

	return r < E4_DIRENT_HDR ? E4_DIRENT_HDR : r;
}

/* dx entries a root (count_off 0x20) or node (8) block of bs bytes holds,
 * with room for the dx tail when csum is set (section 8.5). */
static inline unsigned e4_dx_limit(unsigned bs, unsigned count_off, int csum)
{
	return (bs - count_off - (csum ? (unsigned)sizeof(struct dx_tail) : 0)) /
	       (unsigned)sizeof(struct dx_entry);
}

/* Index levels below the root the filesystem allows: 1, or 2 with
 * largedir (indirect_levels < this + 1). */
static inline unsigned e4_dx_max_levels(e4_fs *fs)
{
	return e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_LARGEDIR) ? 2 : 1;
}

/* One dx block on the path from the root to a leaf. */
struct e4_dx_frame {
	uint8_t *buf;		/* the block (block_size bytes) */
	uint64_t lblk;		/* its logical block in the directory */
	unsigned off;		/* count offset: 0x20 root, 8 node */
	unsigned count, limit;	/* CPU order */
	unsigned pos;		/* entry followed */
};
static inline uint32_t e4_dx_frame_hash(const struct e4_dx_frame *f, unsigned i)
{
	return i ? e4_get_le32(f->buf + f->off + 8 * i) : 0;
}
static inline uint32_t e4_dx_frame_block(const struct e4_dx_frame *f, unsigned i)
{
	return e4_get_le32(f->buf + f->off + 8 * i + 4);
}

/* The path e4_dx_probe() found: fr[0] the root, fr[levels] the node
 * naming the leaf (fr[k].pos: the last entry whose hash is <= hash). */
struct e4_dx_path {
	unsigned levels;	/* the root's indirect_levels */
	int version;		/* effective hash version (signedness applied) */
	uint32_t hash;		/* the name's hash, bit 0 clear */
	struct e4_dx_frame fr[E4_DX_MAX_FRAMES];
	uint8_t *mem;		/* the frames' buffers */
};
/* Read and check the index of directory dir (inode: its inode) from the
 * root down to the node naming the leaf for name's hash.  Every dx block
 * is checked: layout, tail checksum (unless IGNORE_CSUM), count within
 * limit, children inside the directory and not the root, hashes
 * ascending; the root's levels within the filesystem's limit.  Free the
 * path with e4_dx_path_free() (also after an error).
 * E4_ERR_HTREE_CORRUPT, E4_ERR_HTREE_CSUM, E4_ERR_DIR_NO_CSUM_TAIL,
 * E4_ERR_BAD_HASH_VERSION, E4_ERR_NO_MEMORY, read errors. */
errcode_t e4_dx_probe(e4_fs *fs, e4_ino_t dir, const struct ext4_inode *inode,
		      const char *name, size_t len, struct e4_dx_path *p);
void e4_dx_path_free(struct e4_dx_path *p);

/* ---- writing (dir_write.c, htree_write.c, dir_build.c) --------------- */

/* One directory being changed: its inode in memory (written back by
 * e4_dirw_close() when dirty). */
struct e4_dirw {
	e4_fs *fs;
	e4_ino_t ino;
	union e4_inode_buf ib;
	uint32_t gen;		/* i_generation, CPU order */
	unsigned bs;		/* block size, bytes */
	unsigned leaf_end;	/* bytes of a leaf for entries (bs - 12 with csum) */
	uint64_t nblocks;	/* i_size in blocks */
	int filetype;		/* the filetype feature */
	int dirty;		/* the inode changed */
	/* e4_dirw_append(): a block allocated for logical block nblocks,
	 * written by e4_dirw_write(), mapped by e4_dirw_order_new() */
	int pend, pend_fresh;
	e4_blk_t pend_pblk;
};
/* Read dir for writing: E4_ERR_READ_ONLY, E4_ERR_NOT_DIR,
 * E4_ERR_UNSUPPORTED (casefold, encrypt), inode read errors. */
errcode_t e4_dirw_open(e4_fs *fs, e4_ino_t dir, struct e4_dirw *w);
/* e4_dirw_open() on the inode image ib (not read: it may not be on the
 * disk yet; ib NULL: read). */
errcode_t e4_dirw_open_ib(e4_fs *fs, e4_ino_t dir, const union e4_inode_buf *ib,
			  struct e4_dirw *w);
/* Write the inode back if it changed. */
errcode_t e4_dirw_close(struct e4_dirw *w);
/* Read / write logical block lblk (one block). */
errcode_t e4_dirw_read(struct e4_dirw *w, uint64_t lblk, void *buf);
errcode_t e4_dirw_write(struct e4_dirw *w, uint64_t lblk, const void *buf);
/* Allocate a block near the directory's last one for its end: *lblk
 * gets its logical number (nblocks).  It is not mapped yet: the caller
 * fills it, writes it (e4_dirw_write) and calls e4_dirw_order_new(),
 * which maps it (i_size and i_blocks grow) before anything names it.
 * With bigalloc (the kernel's rule) a block whose logical cluster is
 * already mapped takes the next block of that physical cluster, a new
 * logical cluster a new cluster, and i_blocks counts whole clusters.
 * E4_ERR_FILE_TOO_BIG, E4_ERR_NO_SPACE, E4_ERR_EXTENT_HEADER (a cluster
 * mapped out of line), E4_ERR_INVALID_ARGUMENT (one already pending),
 * allocation errors. */
errcode_t e4_dirw_append(struct e4_dirw *w, uint64_t *lblk);
/* Check a leaf block before changing it: its dirent tail and checksum
 * (metadata_csum), then every entry up to leaf_end.  E4_ERR_DIR_CSUM,
 * E4_ERR_DIR_NO_CSUM_TAIL, E4_ERR_BAD_REC_LEN, E4_ERR_DIR_CORRUPT. */
errcode_t e4_dirw_leaf_check(struct e4_dirw *w, const uint8_t *buf);
/* A region of entries buf[start, end) (a leaf, or a part of an inline
 * directory): well-formed records exactly covering it.  E4_ERR_BAD_REC_LEN,
 * E4_ERR_DIR_CORRUPT. */
errcode_t e4_dirw_region_check(struct e4_dirw *w, const uint8_t *buf, unsigned start,
			       unsigned end);
/* Offset of the live entry name in a checked region (and of the entry
 * before it in the region, or UINT_MAX), or -1. */
int e4_dirw_region_find(struct e4_dirw *w, const uint8_t *buf, unsigned start, unsigned end,
			const char *name, size_t len, unsigned *off, unsigned *prev);
/* Put the entry in the first slot of a checked region with room (the
 * kernel's rule, see e4_dir_insert); 1 if placed, 0 if no room.  Tail not
 * set. */
int e4_dirw_region_add(struct e4_dirw *w, uint8_t *buf, unsigned start, unsigned end,
		       const char *name, size_t len, e4_ino_t ino, uint8_t file_type);
static inline int e4_dirw_leaf_find(struct e4_dirw *w, const uint8_t *buf, const char *name,
				    size_t len, unsigned *off, unsigned *prev)
{
	return e4_dirw_region_find(w, buf, 0, w->leaf_end, name, len, off, prev);
}
static inline int e4_dirw_leaf_add(struct e4_dirw *w, uint8_t *buf, const char *name,
				   size_t len, e4_ino_t ino, uint8_t file_type)
{
	return e4_dirw_region_add(w, buf, 0, w->leaf_end, name, len, ino, file_type);
}
/* A leaf of entries ents[0..n) packed in order (the last stretched to
 * leaf_end), with its tail.  E4_ERR_BUFFER_TOO_SMALL. */
errcode_t e4_dirw_leaf_build(struct e4_dirw *w, const struct e4_new_dirent *ents, unsigned n,
			     void *buf);

/* A change to the entry at off of buf (prev: the entry before it in its
 * block or region, or UINT_MAX); dir_write.c's remove and set. */
typedef void (*e4_dirw_change)(struct e4_dirw *w, uint8_t *buf, unsigned off, unsigned prev,
			       void *priv);

/* dir_inline.c (section 8.6): insert into an inline directory as the
 * kernel does: the i_block part, then system.data, then system.data grown
 * to what the inode body holds; *placed = 0 when it still does not fit
 * (then e4_dir_inline_convert()).  E4_ERR_EXISTS, E4_ERR_DIR_CORRUPT,
 * E4_ERR_INLINE_DATA, xattr errors. */
errcode_t e4_dir_inline_insert(struct e4_dirw *w, const char *name, size_t len, e4_ino_t ino,
			       uint8_t file_type, int *placed);
/* Make the inline directory w a one-block directory holding the same
 * entries (e4_dir_build), system.data removed; w is closed (its inode
 * written).  Errors of e4_dir_build() and the xattr writer. */
errcode_t e4_dir_inline_convert(struct e4_dirw *w);
/* The inline directory w's data is sound and name is not in it: 0, or
 * E4_ERR_EXISTS, E4_ERR_INLINE_DATA, reader errors.  Nothing written. */
errcode_t e4_dir_inline_check(struct e4_dirw *w, const char *name, size_t len);
/* Find name in the inline directory w, apply change, store the data back
 * (inode in memory, w->dirty); change NULL: only find it, nothing
 * changed.  E4_ERR_NOT_FOUND. */
errcode_t e4_dir_inline_change(struct e4_dirw *w, const char *name, size_t len,
			       e4_dirw_change change, void *priv);
/* A new inline directory (e4_dir_build with E4_DIR_BUILD_INLINE) when the
 * filesystem has inline_data and the entries fit i_block; *done = 0
 * otherwise (nothing changed). */
errcode_t e4_dir_inline_build(struct e4_dirw *w, e4_ino_t parent,
			      const struct e4_new_dirent *ents, size_t n, int *done);

/* htree_write.c: insert into an indexed directory; convert the one-block
 * linear directory whose block 0 (checked) is in blk0, then insert. */
errcode_t e4_dx_insert(struct e4_dirw *w, const char *name, size_t len, e4_ino_t ino,
		       uint8_t file_type);
errcode_t e4_dx_convert_insert(struct e4_dirw *w, const uint8_t *blk0, const char *name,
			       size_t len, e4_ino_t ino, uint8_t file_type);
/* The node p->fr[p->levels] of a path (read from the root down, each
 * frame's pos the entry followed) is full: split the lowest full node
 * whose parent has room, or move the full root's entries into a new node
 * below it (one more level) while the depth allows.  The path is stale
 * afterwards (probe again).  E4_ERR_DIR_INDEX_FULL at the depth limit,
 * E4_ERR_DIR_NO_CSUM_TAIL, append and write errors. */
errcode_t e4_dx_make_room(struct e4_dirw *w, struct e4_dx_path *p);
/* After the block e4_dirw_append() gave is written: it and its bitmap
 * reach the device, then the map naming it (e4_map_append_block(): in the
 * inode, or an indirect or extent block, written now), then the inode
 * with its size, each before what follows (ordering points; DESIGN.md
 * "What a stop may leave": no reference to an unwritten block).  Every
 * writer that appends a block calls it before naming the block.  Without
 * a pending block: the inode is written, ordered.  Map errors (the block
 * is freed again). */
errcode_t e4_dirw_order_new(struct e4_dirw *w);
/* The hash version a new index gets (s_def_hash_version, 0-2), or
 * E4_ERR_BAD_HASH_VERSION; *effective with the signedness applied.  A
 * superblock naming neither signed nor unsigned hashing gets
 * SIGNED_HASH (the one used; written with the superblock). */
errcode_t e4_dx_new_version(e4_fs *fs, int *stored, int *effective);
/* Fill a new dx root (blk: block 0, "." and ".." taken from dot_ino and
 * dotdot_ino with file types) or node: entries 0, limit for the fs. */
void e4_dx_root_init(struct e4_dirw *w, uint8_t *blk, e4_ino_t dot_ino, e4_ino_t dotdot_ino,
		     int hash_version, unsigned levels);
void e4_dx_node_init(struct e4_dirw *w, uint8_t *blk);
/* Put entry i (hash ignored for i == 0) of the dx block whose count sits
 * at count_off. */
void e4_dx_put_entry(uint8_t *blk, unsigned count_off, unsigned i, uint32_t hash, uint32_t block);

/*
 * Map logical block lblk, the first past the last mapped block of inode
 * ino (*ib), to pblk, and count it in i_blocks (with bigalloc: a whole
 * cluster when new_cluster, else nothing).  A thin wrapper over
 * e4_map_set() (map_write.c): either kind of map, missing indirect or
 * tree blocks allocated near pblk and counted in i_blocks; *ib is changed
 * in memory (the caller writes it), tree blocks go through the cache.
 * Errors of e4_map_set().
 */
errcode_t e4_map_append_block(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, uint64_t lblk,
			      e4_blk_t pblk, int new_cluster);
/* Allocate count contiguous blocks at or after goal (marked in use; with
 * bigalloc whole clusters, the first block cluster-aligned). */
errcode_t e4_dirw_alloc(e4_fs *fs, e4_blk_t goal, uint64_t count, e4_blk_t *first);
/* A mapping block for inode: one cluster (one block without bigalloc)
 * near goal, counted in i_blocks; and giving it back. */
errcode_t e4_dirw_meta_alloc(e4_fs *fs, struct ext4_inode *inode, e4_blk_t goal, e4_blk_t *blk);
void e4_dirw_meta_free(e4_fs *fs, struct ext4_inode *inode, e4_blk_t blk);

#endif
