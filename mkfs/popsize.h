/*
 * popsize.h: how big a filesystem e4mkfs -d needs for a source
 * (popsize.c), and the reproducibility rule (poprepro.c).
 *
 * Size.  With -d and no size argument on an image file that does not
 * exist yet, the size and the inode count come from the content: data
 * blocks by the data runs (a block touched by a run is counted once;
 * clusters with bigalloc; files of at most 60 bytes none with
 * inline_data), extent tree blocks beyond the inode's 4 extents (or
 * indirect blocks for block-mapped files), directory blocks from the
 * names (leaves filled up to 100 - dir_slack_pct percent, less the
 * largest entry, plus the htree root and index blocks), slow symlinks one
 * block, attributes beyond the inode body one block per block's worth,
 * one inode per entry but the root and later hard links.  The margin
 * (proposed option: -E populate_margin=PERCENT, default 10) is added to
 * both the blocks and the inodes, and the size is the smallest the layout
 * search finds whose free blocks less the reserved ones hold the content
 * with the margin (metadata, journal and reserved blocks come from the
 * layout itself, e4_layout_compute()).
 */
#ifndef E4_POPSIZE_H
#define E4_POPSIZE_H

#include <stdint.h>
#include "e4.h"
#include "popsrc.h"

#define POP_MARGIN_DEFAULT	10	/* percent */
#define POP_MARGIN_MAX		1000

struct pop_fsparams {
	unsigned block_size;	/* bytes */
	unsigned cluster_size;	/* bytes: block_size without bigalloc */
	unsigned inode_size;	/* bytes */
	int extents;		/* files extent-mapped (else block maps) */
	int inline_data;
	int metadata_csum;	/* directory leaves end in a 12-byte tail */
	int dir_index;		/* multi-block directories get an htree */
	unsigned dir_slack_pct;	/* room left in htree leaves (dir_build's) */
};

struct pop_estimate {
	uint64_t data_blocks;	/* regular files' data (whole clusters) */
	uint64_t map_blocks;	/* extent tree / indirect blocks */
	uint64_t dir_blocks;
	uint64_t symlink_blocks;
	uint64_t xattr_blocks;
	uint64_t inodes;	/* root excluded */
	/* the directory being listed (pop_walk order) */
	uint64_t dir_bytes;	/* its entries' records */
	unsigned dir_max_rec;	/* its largest record */
};

void pop_est_init(struct pop_estimate *est);
/* Count entry e (a child of the directory being listed, or the root). */
void pop_est_entry(struct pop_estimate *est, const struct pop_fsparams *p,
		   const struct pop_entry *e);
/* The directory whose children were just counted: its blocks. */
void pop_est_dir_end(struct pop_estimate *est, const struct pop_fsparams *p);
/* Total blocks of content. */
uint64_t pop_est_blocks(const struct pop_estimate *est);
/* Walk source s (no data read) into est.  0 or -1 (pop_error()). */
int pop_estimate(struct pop_src *s, const struct pop_fsparams *p, struct pop_estimate *est);
/* Parse populate_margin's value (a whole percent, 0..POP_MARGIN_MAX). */
int pop_parse_margin(const char *v, unsigned *pct);
/* The smallest size (found by the layout) for est with margin_pct: o is
 * the layout options of the run (size fields ignored; block and inode
 * size taken from p when o leaves them 0).  *blocks: blocks_count;
 * *inodes: an inode count to ask for (-N), or 0 when the ratio gives
 * enough.  0, or an errcode of e4_layout_compute (E4_ERR_FS_TOO_BIG ...). */
errcode_t pop_fit_size(const struct pop_estimate *est, const struct pop_fsparams *p,
		       unsigned margin_pct, const struct e4_layout_opts *o, uint64_t *blocks,
		       uint32_t *inodes);

/*
 * Reproducibility (poprepro.c).  With -d, SOURCE_DATE_EPOCH set and no
 * -U or -E hash_seed=, the UUID and the hash seed are derived from a
 * SHA-256 over: a version tag, the epoch, the options (every argument but
 * the device name and -d's value, in order) and the stream (each entry's
 * fields after pop_repro_times(), its data runs and the CRC-64 of its
 * data).  The UUID is the digest's
 * first 16 bytes with the RFC 9562 version 8 and variant bits, the hash
 * seed its last 16.  The same input gives the same bytes, a different
 * content (one byte of data, a name, an owner, an mtime) another UUID.
 */
struct pop_repro;
/* The times an entry gets in a reproducible build: mtime clamped to the
 * epoch, and atime, ctime and crtime equal to it (they record when the
 * source was read, copied or made, which a rebuild cannot repeat). */
void pop_repro_times(struct pop_entry *e, int64_t epoch);
/* Walk s and derive uuid and hash_seed as above.  0 or -1 (pop_error()). */
int pop_repro_ids(struct pop_src *s, int64_t epoch, int nopts, char *const *opts,
		  uint8_t uuid[16], uint8_t hash_seed[16]);

#endif
