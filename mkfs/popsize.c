/*
 * popsize.c: the content's size for e4mkfs -d and the smallest layout
 * that holds it (popsize.h says the rules).  Estimates err on the large
 * side: no sharing of attribute blocks, no inline directories, files laid
 * out in one run per data run.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "popsize.h"

void pop_est_init(struct pop_estimate *est)
{
	memset(est, 0, sizeof(*est));
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/* Blocks above the 4 extents of the inode: leaves, then index levels. */
static uint64_t extent_tree_blocks(uint64_t extents, unsigned bs)
{
	uint64_t per = (bs - 12) / 12, n = extents, blocks = 0;

	while (n > 4) {
		n = div_up(n, per);
		blocks += n;
	}
	return blocks;
}

/* Indirect blocks of block-mapped files: distinct pointer blocks touched
 * by the runs, in ascending order (last[][] remembers the previous run's). */
struct indir {
	uint64_t last[4][4];
	int any[4][4];
};

static uint64_t indirect_blocks(struct indir *st, uint64_t a, uint64_t b, unsigned bs)
{
	uint64_t p = bs / 4, base = 12, span = p, total = 0;

	for (int r = 1; r <= 3; r++) {
		uint64_t x = a > base ? a : base, y = b < base + span - 1 ? b : base + span - 1;

		if (x <= y) {
			uint64_t unit = 1;

			for (int j = 1; j <= r; j++) {
				uint64_t lo, hi;

				unit *= p;
				lo = (x - base) / unit;
				hi = (y - base) / unit;
				total += hi - lo + 1;
				if (st->any[r][j] && st->last[r][j] == lo)
					total--;
				st->any[r][j] = 1;
				st->last[r][j] = hi;
			}
		}
		base += span;
		if (span > UINT64_MAX / p)
			break;
		span *= p;
	}
	return total;
}

static void count_file(struct pop_estimate *est, const struct pop_fsparams *p,
		       const struct pop_entry *e)
{
	uint64_t bs = p->block_size, per_cl = p->cluster_size > bs ? p->cluster_size / bs : 1;
	uint64_t run_a = 0, run_b = 0, extents = 0, last_cl = UINT64_MAX, clusters = 0;
	struct indir ind;
	int open = 0;

	if (p->inline_data && e->size <= EXT4_MIN_INLINE_DATA_SIZE)
		return;
	memset(&ind, 0, sizeof(ind));
	for (uint32_t i = 0; i <= e->nsegs; i++) {
		uint64_t a = 0, b = 0;

		if (i < e->nsegs) {
			a = e->segs[i].off / bs;
			b = (e->segs[i].off + e->segs[i].len - 1) / bs;
			/* clusters touched, counted once */
			for (uint64_t c = a / per_cl; c <= b / per_cl; c++) {
				if (c == last_cl)
					continue;
				clusters++;
				last_cl = c;
			}
		}
		if (open && i < e->nsegs && a <= run_b + 1) {
			if (b > run_b)
				run_b = b;
			continue;
		}
		if (open) {	/* a run of logical blocks ends */
			extents += div_up(run_b - run_a + 1, EXT_INIT_MAX_LEN);
			if (!p->extents)
				est->map_blocks += indirect_blocks(&ind, run_a, run_b, p->block_size);
		}
		run_a = a;
		run_b = b;
		open = i < e->nsegs;
	}
	est->data_blocks += clusters * per_cl;
	if (p->extents)
		est->map_blocks += extent_tree_blocks(extents, p->block_size);
}

/* Attributes: what does not fit the inode body goes to blocks. */
static void count_xattrs(struct pop_estimate *est, const struct pop_fsparams *p,
			 const struct pop_entry *e)
{
	uint64_t need = 4, room = 0;	/* the 4-byte end marker */

	if (!e->nxattrs)
		return;
	for (uint32_t i = 0; i < e->nxattrs; i++) {
		uint8_t idx;
		const char *suffix;
		size_t slen;

		if (e4_xattr_name_parse(e->xattrs[i].name, &idx, &suffix, &slen))
			slen = strlen(e->xattrs[i].name);	/* refused by the writer */
		need += 16 + ((slen + 3) & ~3ull) + ((e->xattrs[i].len + 3ull) & ~3ull);
	}
	if (p->inode_size > 128 + 32 + 4)
		room = p->inode_size - 128 - 32 - 4;	/* i_extra_isize 32, the magic */
	if (need <= room)
		return;
	est->xattr_blocks += div_up(need, p->block_size - 32);
}

void pop_est_entry(struct pop_estimate *est, const struct pop_fsparams *p,
		   const struct pop_entry *e)
{
	if (e->index) {
		unsigned rec = (8 + e->name_len + 3) & ~3u;

		est->dir_bytes += rec;
		if (rec > est->dir_max_rec)
			est->dir_max_rec = rec;
	}
	if (e->type != POP_DIR && e->link_group != e->index)
		return;		/* a later name of an inode counted already */
	if (e->index)
		est->inodes++;
	count_xattrs(est, p, e);
	if (e->type == POP_REG)
		count_file(est, p, e);
	else if (e->type == POP_SYMLINK && e->target_len >= EXT4_MIN_INLINE_DATA_SIZE)
		est->symlink_blocks += div_up(e->target_len, p->block_size);
}

void pop_est_dir_end(struct pop_estimate *est, const struct pop_fsparams *p)
{
	uint64_t bs = p->block_size, usable = bs - (p->metadata_csum ? 12 : 0);
	uint64_t bytes = est->dir_bytes + 24;	/* "." and ".." */

	if (bytes <= usable) {
		est->dir_blocks += 1;
	} else if (!p->dir_index) {
		est->dir_blocks += div_up(bytes, usable - est->dir_max_rec);
	} else {
		uint64_t cap = usable * (100 - p->dir_slack_pct) / 100, leaves, root_cap, node_cap;

		if (cap <= est->dir_max_rec + 8)
			cap = est->dir_max_rec + 8;
		leaves = div_up(est->dir_bytes, cap - est->dir_max_rec);
		root_cap = (bs - 32 - (p->metadata_csum ? 8 : 0)) / 8;
		node_cap = (bs - 8 - (p->metadata_csum ? 8 : 0)) / 8;
		est->dir_blocks += 1 + leaves;	/* the root block holds "." and ".." */
		if (leaves > root_cap)
			est->dir_blocks += div_up(leaves, node_cap);
	}
	est->dir_bytes = 0;
	est->dir_max_rec = 0;
}

uint64_t pop_est_blocks(const struct pop_estimate *est)
{
	return est->data_blocks + est->map_blocks + est->dir_blocks + est->symlink_blocks +
	       est->xattr_blocks;
}

struct est_walk {
	struct pop_estimate *est;
	const struct pop_fsparams *p;
};

static int est_entry(void *arg, struct pop_src *s, const struct pop_entry *e)
{
	struct est_walk *w = arg;

	(void)s;
	pop_est_entry(w->est, w->p, e);
	return 0;
}

static int est_dir_end(void *arg, struct pop_src *s, const struct pop_entry *d)
{
	struct est_walk *w = arg;

	(void)s;
	(void)d;
	pop_est_dir_end(w->est, w->p);
	return 0;
}

int pop_estimate(struct pop_src *s, const struct pop_fsparams *p, struct pop_estimate *est)
{
	struct pop_ops ops = { est_entry, est_dir_end };
	struct est_walk w = { est, p };

	pop_est_init(est);
	return pop_walk(s, &ops, &w) ? -1 : 0;
}

int pop_parse_margin(const char *v, unsigned *pct)
{
	char *end;
	unsigned long n;

	if (!v || *v < '0' || *v > '9')
		return -1;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end || n > POP_MARGIN_MAX)
		return -1;
	*pct = (unsigned)n;
	return 0;
}

errcode_t pop_fit_size(const struct pop_estimate *est, const struct pop_fsparams *p,
		       unsigned margin_pct, const struct e4_layout_opts *o, uint64_t *blocks,
		       uint32_t *inodes)
{
	uint64_t need = pop_est_blocks(est), size, want_ino;
	struct e4_layout_opts lo = *o;
	errcode_t err = 0;

	need += div_up(need * margin_pct, 100);
	want_ino = est->inodes + div_up(est->inodes * margin_pct, 100);
	if (!lo.block_size)
		lo.block_size = p->block_size;
	if (!lo.inode_size)
		lo.inode_size = p->inode_size;
	lo.dev_bytes = 0;
	lo.inodes_count = 0;
	size = need + 64;
	for (int round = 0; round < 200; round++) {
		struct e4_layout *l;
		uint64_t avail, free_ino;

		lo.blocks_count = size;
		err = e4_layout_compute(&lo, &l);
		if (err == E4_ERR_FS_TOO_SMALL || err == E4_ERR_TOO_MANY_INODES) {
			size += size / 8 + 64;
			continue;
		}
		if (err)
			return err;
		free_ino = l->free_inodes_count;
		if (free_ino < want_ino && !lo.inodes_count) {
			/* ask for the count: the reserved ones and lost+found too */
			lo.inodes_count = want_ino + (l->inodes_count - l->free_inodes_count);
			e4_layout_free(l);
			continue;
		}
		avail = l->free_blocks_count > l->r_blocks_count ?
			l->free_blocks_count - l->r_blocks_count : 0;
		e4_layout_free(l);
		if (avail >= need && free_ino >= want_ino) {
			*blocks = size;
			*inodes = (uint32_t)lo.inodes_count;
			return 0;
		}
		size += need > avail ? need - avail : 1;
		if (free_ino < want_ino)
			lo.inodes_count += want_ino - free_ino;
	}
	return err ? err : E4_ERR_FS_TOO_BIG;
}
