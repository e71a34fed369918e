/*
 * popsrc_drv: print e4mkfs -d's source stream (mkfs/popsrc.h), one line
 * per entry and one per directory end, for the tests that compare the
 * stream of a directory with that of its tar archive
 * (tests/t/popsrc_routes.sh).
 *
 *   popsrc_drv [--all-times] [--no-sockets] [--no-xattrs] SOURCE
 *   popsrc_drv --estimate [--margin PCT] SOURCE
 *
 * --estimate prints the size estimate (mkfs/popsize.h) for an ext4 of
 * Debian's defaults with 4 KiB blocks and 256-byte inodes: the content's
 * blocks by kind, its inodes, and the blocks count and -N the layout
 * search gives with the margin (default POP_MARGIN_DEFAULT).
 *
 * Entry lines: index, escaped path, type, mode, owner, mtime with
 * nanoseconds (--all-times: atime, ctime, crtime too), device numbers,
 * symlink target, link group and count, size, data runs and the SHA-256
 * of the data read through pop_read, then each attribute as name=hex.
 * --no-sockets leaves sockets out (tar cannot hold them); the indexes
 * printed are then those of the stream still.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "popsize.h"
#include "sha256.h"

static int all_times, no_sockets;
static char *buf;

static void esc(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c <= ' ' || c >= 0x7f || c == '\\' || c == '=')
			printf("\\x%02x", c);
		else
			putchar(c);
	}
}

static void hex(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
}

static void tm(const char *k, struct pop_time t)
{
	printf(" %s=%lld.%09u", k, (long long)t.sec, t.nsec);
}

static int on_entry(void *arg, struct pop_src *s, const struct pop_entry *e)
{
	static const char types[] = "?fdlcbps";
	struct sha256 h;
	uint8_t d[32];

	(void)arg;
	if (no_sockets && e->type == POP_SOCK)
		return 0;
	printf("%u ", e->index);
	esc(*e->path ? e->path : ".", *e->path ? strlen(e->path) : 1);
	printf(" %c mode=%04o uid=%u gid=%u", types[e->type], e->mode, e->uid, e->gid);
	tm("mtime", e->mtime);
	if (all_times) {
		tm("atime", e->atime);
		tm("ctime", e->ctime);
		if (e->has_crtime)
			tm("crtime", e->crtime);
	}
	if (e->type == POP_CHR || e->type == POP_BLK)
		printf(" rdev=%u,%u", e->rdev_major, e->rdev_minor);
	if (e->type == POP_SYMLINK) {
		printf(" target=");
		esc(e->target, e->target_len);
	}
	if (e->type != POP_DIR)
		printf(" group=%u", e->link_group);
	printf(" nlink=%u", e->nlink);
	if (e->type == POP_DIR)
		printf(" children=%u", e->nchildren);
	if (e->type == POP_REG)
		printf(" size=%llu", (unsigned long long)e->size);
	if (e->nsegs) {
		sha256_init(&h);
		printf(" segs=");
		for (uint32_t i = 0; i < e->nsegs; i++) {
			uint64_t off = e->segs[i].off, left = e->segs[i].len;

			printf("%s%llu+%llu", i ? "," : "", (unsigned long long)off,
			       (unsigned long long)left);
			while (left) {
				size_t k = left > (1 << 20) ? (1 << 20) : (size_t)left;

				if (pop_read(s, e, off, buf, k)) {
					fprintf(stderr, "popsrc_drv: %s\n", pop_error(s));
					return 1;
				}
				sha256_update(&h, buf, k);
				off += k;
				left -= k;
			}
		}
		sha256_final(&h, d);
		printf(" data=");
		hex(d, 8);
	}
	for (uint32_t i = 0; i < e->nxattrs; i++) {
		printf(" xattr:%s=", e->xattrs[i].name);
		hex(e->xattrs[i].value, e->xattrs[i].len);
	}
	putchar('\n');
	return 0;
}

static int on_end(void *arg, struct pop_src *s, const struct pop_entry *d)
{
	(void)arg;
	(void)s;
	printf("end %u\n", d->index);
	return 0;
}

static int estimate(struct pop_src *s, unsigned margin)
{
	static const struct pop_fsparams p = {
		.block_size = 4096, .cluster_size = 4096, .inode_size = 256, .extents = 1,
		.inline_data = 0, .metadata_csum = 1, .dir_index = 1, .dir_slack_pct = 0,
	};
	struct pop_estimate est;
	struct e4_layout_opts o;
	uint64_t blocks;
	uint32_t inodes;
	errcode_t err;

	if (pop_estimate(s, &p, &est)) {
		fprintf(stderr, "popsrc_drv: %s\n", pop_error(s));
		return 1;
	}
	printf("data=%llu map=%llu dir=%llu symlink=%llu xattr=%llu total=%llu inodes=%llu\n",
	       (unsigned long long)est.data_blocks, (unsigned long long)est.map_blocks,
	       (unsigned long long)est.dir_blocks, (unsigned long long)est.symlink_blocks,
	       (unsigned long long)est.xattr_blocks, (unsigned long long)pop_est_blocks(&est),
	       (unsigned long long)est.inodes);
	e4_layout_opts_init(&o);
	o.fs_type = "ext4";
	err = pop_fit_size(&est, &p, margin, &o, &blocks, &inodes);
	if (err) {
		fprintf(stderr, "popsrc_drv: no size fits: %s\n", error_message(err));
		return 1;
	}
	printf("margin=%u blocks=%llu inodes=%u\n", margin, (unsigned long long)blocks, inodes);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned margin = POP_MARGIN_DEFAULT;
	int est = 0;
	struct pop_opts o = { .default_time = 0 };
	struct pop_ops ops = { on_entry, on_end };
	struct pop_src *s;
	char err[1100];
	int i, rc;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
		if (!strcmp(argv[i], "--all-times"))
			all_times = 1;
		else if (!strcmp(argv[i], "--no-sockets"))
			no_sockets = 1;
		else if (!strcmp(argv[i], "--no-xattrs"))
			o.no_xattrs = 1;
		else if (!strcmp(argv[i], "--estimate"))
			est = 1;
		else if (!strcmp(argv[i], "--margin") && i + 1 < argc &&
			 !pop_parse_margin(argv[i + 1], &margin))
			i++;
		else
			break;
	}
	if (i + 1 != argc) {
		fprintf(stderr, "usage: popsrc_drv [--all-times] [--no-sockets] [--no-xattrs] SOURCE\n"
			"       popsrc_drv --estimate [--margin PCT] SOURCE\n");
		return 2;
	}
	buf = malloc(1 << 20);
	if (!buf || pop_open(argv[i], &o, &s, err, sizeof(err))) {
		fprintf(stderr, "popsrc_drv: %s\n", buf ? err : "out of memory");
		return 1;
	}
	e4_init_errors();
	rc = est ? estimate(s, margin) : pop_walk(s, &ops, NULL);
	if (rc < 0)
		fprintf(stderr, "popsrc_drv: %s\n", pop_error(s));
	pop_close(s);
	free(buf);
	if (fflush(stdout))
		return 1;
	return rc ? 1 : 0;
}
