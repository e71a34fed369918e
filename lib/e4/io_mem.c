/*
 * io_mem.c: the memory device behind e4_io_open_mem(): a sparse store of
 * fixed-size pages kept in a sorted index.  A page that was never written
 * reads as zeros, so a device of any size costs only the pages that hold
 * data (a fuzzing input is the few metadata blocks of an image whose zero
 * stretches are not stored).  Stored bytes are bounded by max_bytes; a
 * write that needs a page beyond it fails with ENOSPC.  Writing zeros to a
 * page that does not exist stores nothing.
 */
#include "e4_private.h"
#include "io_mem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MEM_PAGE_SHIFT	12
#define MEM_PAGE	(1u << MEM_PAGE_SHIFT)

struct e4_iomem {
	uint64_t max_bytes;	/* bound on the bytes stored */
	size_t n, cap;		/* pages stored, slots allocated */
	uint64_t *idx;		/* page numbers, ascending */
	uint8_t **page;		/* page[i] holds page idx[i] */
};

errcode_t e4_iomem_new(uint64_t max_bytes, struct e4_iomem **ret)
{
	struct e4_iomem *m = calloc(1, sizeof(*m));

	*ret = NULL;
	if (!m)
		return E4_ERR_NO_MEMORY;
	m->max_bytes = max_bytes;
	*ret = m;
	return 0;
}

void e4_iomem_free(struct e4_iomem *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		free(m->page[i]);
	free(m->idx);
	free(m->page);
	free(m);
}

/* Index of the first stored page >= pg (m->n if none). */
static size_t lower_bound(const struct e4_iomem *m, uint64_t pg)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->idx[mid] < pg)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int all_zero(const uint8_t *p, size_t len)
{
	return !len || (!p[0] && !memcmp(p, p + 1, len - 1));
}

/* Insert an all-zero page pg at position at.  ENOSPC past the bound. */
static errcode_t insert_page(struct e4_iomem *m, size_t at, uint64_t pg)
{
	uint8_t *data;

	if ((uint64_t)(m->n + 1) * MEM_PAGE > m->max_bytes)
		return ENOSPC;
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 16;
		uint64_t *idx = realloc(m->idx, cap * sizeof(*idx));
		uint8_t **page;

		if (!idx)
			return E4_ERR_NO_MEMORY;
		m->idx = idx;
		page = realloc(m->page, cap * sizeof(*page));
		if (!page)
			return E4_ERR_NO_MEMORY;
		m->page = page;
		m->cap = cap;
	}
	data = calloc(1, MEM_PAGE);
	if (!data)
		return E4_ERR_NO_MEMORY;
	memmove(m->idx + at + 1, m->idx + at, (m->n - at) * sizeof(*m->idx));
	memmove(m->page + at + 1, m->page + at, (m->n - at) * sizeof(*m->page));
	m->idx[at] = pg;
	m->page[at] = data;
	m->n++;
	return 0;
}

void e4_iomem_read(const struct e4_iomem *m, uint64_t off, void *buf, size_t len)
{
	uint8_t *p = buf;
	size_t i = lower_bound(m, off >> MEM_PAGE_SHIFT);

	while (len) {
		uint64_t pg = off >> MEM_PAGE_SHIFT;
		size_t in = (size_t)(off & (MEM_PAGE - 1));
		size_t n = MEM_PAGE - in < len ? MEM_PAGE - in : len;

		while (i < m->n && m->idx[i] < pg)
			i++;
		if (i < m->n && m->idx[i] == pg)
			memcpy(p, m->page[i] + in, n);
		else
			memset(p, 0, n);
		p += n;
		off += n;
		len -= n;
	}
}

errcode_t e4_iomem_write(struct e4_iomem *m, uint64_t off, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		uint64_t pg = off >> MEM_PAGE_SHIFT;
		size_t in = (size_t)(off & (MEM_PAGE - 1));
		size_t n = MEM_PAGE - in < len ? MEM_PAGE - in : len;
		size_t i = lower_bound(m, pg);

		if (i == m->n || m->idx[i] != pg) {
			errcode_t err;

			if (all_zero(p, n))
				goto next;	/* it reads as zeros already */
			err = insert_page(m, i, pg);
			if (err)
				return err;
		}
		memcpy(m->page[i] + in, p, n);
next:
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}
