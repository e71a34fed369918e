/*
 * sha256.h: SHA-256 (FIPS 180-4), for e4mkfs's reproducible UUID and
 * hash seed (mkfs/poprepro.c) and the test drivers' digests.  Not for
 * secrets: no effort against timing channels.
 */
#ifndef E4_SHA256_H
#define E4_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];
	uint64_t bytes;		/* message length so far */
	uint8_t buf[64];	/* a partial block */
};

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *p, size_t len);
/* The 32-byte digest; c must be initialised again before reuse. */
void sha256_final(struct sha256 *c, uint8_t out[32]);

#endif
