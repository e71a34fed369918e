/*
 * poprepro.c: reproducible e4mkfs -d images (popsize.h says the rule):
 * the times an entry gets and the UUID and hash seed derived from the
 * epoch, the options and the content stream.  File data enters the
 * SHA-256 as its CRC-64 (ECMA-182, reflected: isa-l's crc64_ecma_refl,
 * many GB/s where this SHA-256 does about 100-300 MB/s): a CRC of 64 bits
 * changes with any change of up to 64 consecutive bits, so a file
 * differing in one byte always gives another digest; unrelated contents
 * collide with odds of 2^-64, which is enough for an identifier.
 */
#include <stdlib.h>
#include <string.h>
#include <isa-l/crc64.h>
#include "popsize.h"
#include "sha256.h"

#define REPRO_TAG	"e4kit populate v1"

void pop_repro_times(struct pop_entry *e, int64_t epoch)
{
	struct pop_time t = e->mtime;

	if (t.sec > epoch || (t.sec == epoch && t.nsec)) {
		t.sec = epoch;
		t.nsec = 0;
	}
	e->mtime = e->atime = e->ctime = e->crtime = t;
}

static void put_u64(struct sha256 *h, uint64_t v)
{
	uint8_t b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	sha256_update(h, b, 8);
}

/* bytes with their length first, so that fields cannot run together */
static void put_bytes(struct sha256 *h, const void *p, size_t len)
{
	put_u64(h, len);
	sha256_update(h, p, len);
}

struct repro {
	struct sha256 h;
	int64_t epoch;
	char *buf;
};

static int repro_entry(void *arg, struct pop_src *s, const struct pop_entry *in)
{
	struct repro *r = arg;
	struct pop_entry e = *in;
	const struct pop_time *t[4] = { &e.atime, &e.mtime, &e.ctime, &e.crtime };
	uint64_t crc = 0;

	pop_repro_times(&e, r->epoch);
	put_u64(&r->h, e.index);
	put_u64(&r->h, e.parent);
	put_bytes(&r->h, e.name, e.name_len);
	put_u64(&r->h, (uint64_t)e.type << 32 | e.mode);
	put_u64(&r->h, (uint64_t)e.uid << 32 | e.gid);
	for (int i = 0; i < 4; i++) {
		put_u64(&r->h, (uint64_t)t[i]->sec);
		put_u64(&r->h, t[i]->nsec);
	}
	put_u64(&r->h, (uint64_t)e.rdev_major << 32 | e.rdev_minor);
	put_bytes(&r->h, e.target, e.type == POP_SYMLINK ? e.target_len : 0);
	put_u64(&r->h, e.nxattrs);
	for (uint32_t i = 0; i < e.nxattrs; i++) {
		put_bytes(&r->h, e.xattrs[i].name, strlen(e.xattrs[i].name));
		put_bytes(&r->h, e.xattrs[i].value, e.xattrs[i].len);
	}
	put_u64(&r->h, (uint64_t)e.link_group << 32 | e.nlink);
	put_u64(&r->h, e.size);
	put_u64(&r->h, e.nsegs);
	for (uint32_t i = 0; i < e.nsegs; i++) {
		uint64_t off = e.segs[i].off, left = e.segs[i].len;

		put_u64(&r->h, off);
		put_u64(&r->h, left);
		while (left) {
			size_t k = left > (1u << 20) ? (1u << 20) : (size_t)left;

			if (pop_read(s, in, off, r->buf, k))
				return -1;
			crc = crc64_ecma_refl(crc, (const unsigned char *)r->buf, k);
			off += k;
			left -= k;
		}
	}
	put_u64(&r->h, crc);
	return 0;
}

int pop_repro_ids(struct pop_src *s, int64_t epoch, int nopts, char *const *opts,
		  uint8_t uuid[16], uint8_t hash_seed[16])
{
	struct pop_ops ops = { repro_entry, NULL };
	struct repro r;
	uint8_t d[32];
	int rc;

	r.epoch = epoch;
	r.buf = malloc(1u << 20);
	if (!r.buf)
		return -1;
	sha256_init(&r.h);
	put_bytes(&r.h, REPRO_TAG, sizeof(REPRO_TAG) - 1);
	put_u64(&r.h, (uint64_t)epoch);
	put_u64(&r.h, (uint64_t)nopts);
	for (int i = 0; i < nopts; i++)
		put_bytes(&r.h, opts[i], strlen(opts[i]));
	rc = pop_walk(s, &ops, &r);
	free(r.buf);
	if (rc)
		return -1;
	put_u64(&r.h, pop_count(s));
	sha256_final(&r.h, d);
	memcpy(uuid, d, 16);
	uuid[6] = (uint8_t)((uuid[6] & 0x0f) | 0x80);	/* version 8 */
	uuid[8] = (uint8_t)((uuid[8] & 0x3f) | 0x80);	/* RFC 9562 variant */
	memcpy(hash_seed, d + 16, 16);
	return 0;
}
