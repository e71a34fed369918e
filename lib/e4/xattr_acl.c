/*
 * xattr_acl.c: POSIX ACL values between the form Linux passes through the
 * xattr system calls (system.posix_acl_access / _default as getfattr
 * shows them) and ext4's on-disk form (format doc section 9.5).
 *
 * Linux form: le32 version 2, then 8-byte entries { le16 tag, le16 perm,
 * le32 id }.  ext4 form: le32 version 1, then per entry le16 tag, le16
 * perm and, for ACL_USER (0x02) and ACL_GROUP (0x08) only, le32 id; the
 * other tags (USER_OBJ 0x01, GROUP_OBJ 0x04, MASK 0x10, OTHER 0x20) have
 * no id (4-byte entries).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "e4.h"
#include "dir_int.h"	/* e4_put_le16, e4_put_le32 */

#define ACL_LINUX_VERSION	2
#define ACL_EXT4_VERSION	1

static int acl_tag_known(uint16_t tag)
{
	return tag == 0x01 || tag == 0x02 || tag == 0x04 || tag == 0x08 || tag == 0x10 ||
	       tag == 0x20;
}

static int acl_tag_has_id(uint16_t tag)
{
	return tag == 0x02 || tag == 0x08;
}

errcode_t e4_acl_to_disk(const void *value, size_t len, void **out, size_t *out_len)
{
	const uint8_t *in = value;
	uint8_t *o, *p;
	size_t n, i;

	if (len < 4 || (len - 4) % 8 || in[0] != ACL_LINUX_VERSION || in[1] || in[2] || in[3])
		return E4_ERR_INVALID_ARGUMENT;
	n = (len - 4) / 8;
	o = malloc(4 + n * 8);
	if (!o)
		return E4_ERR_NO_MEMORY;
	p = o;
	p[0] = ACL_EXT4_VERSION;
	p[1] = p[2] = p[3] = 0;
	p += 4;
	for (i = 0; i < n; i++) {
		const uint8_t *e = in + 4 + i * 8;
		uint16_t tag = (uint16_t)(e[0] | e[1] << 8);

		if (!acl_tag_known(tag)) {
			free(o);
			return E4_ERR_INVALID_ARGUMENT;
		}
		memcpy(p, e, acl_tag_has_id(tag) ? 8 : 4);
		p += acl_tag_has_id(tag) ? 8 : 4;
	}
	*out = o;
	*out_len = (size_t)(p - o);
	return 0;
}

/* ---- lists of entries (acl.h): parsed, checked, encoded -------------------- */

static int tag_rank(uint16_t tag)
{
	switch (tag) {
	case E4_ACL_USER_OBJ: return 0;
	case E4_ACL_USER: return 1;
	case E4_ACL_GROUP_OBJ: return 2;
	case E4_ACL_GROUP: return 3;
	case E4_ACL_MASK: return 4;
	case E4_ACL_OTHER: return 5;
	}
	return -1;
}

static int named(uint16_t tag)
{
	return tag == E4_ACL_USER || tag == E4_ACL_GROUP;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct e4_acl_entry *x = a, *y = b;
	int rx = tag_rank(x->tag), ry = tag_rank(y->tag);

	if (rx != ry)
		return rx < ry ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

void e4_acl_sort(struct e4_acl_entry *e, size_t n)
{
	if (n > 1)
		qsort(e, n, sizeof(*e), cmp_entry);
}

/* The kernel's order: ranks never decrease, the three object entries
 * exactly once, a mask when named entries exist, named ids ascending. */
errcode_t e4_acl_check(const struct e4_acl_entry *e, size_t n)
{
	unsigned count[6] = { 0 };
	int last = -1;
	size_t i;

	if (n > E4_ACL_MAX_ENTRIES)
		return E4_ERR_ACL_INVALID;
	for (i = 0; i < n; i++) {
		int r = tag_rank(e[i].tag);

		if (r < 0 || r < last || (e[i].perm & ~7u))
			return E4_ERR_ACL_INVALID;
		if (named(e[i].tag) && r == last && e[i].id <= e[i - 1].id)
			return E4_ERR_ACL_INVALID;
		count[r]++;
		last = r;
	}
	if (count[0] != 1 || count[2] != 1 || count[5] != 1 || count[4] > 1)
		return E4_ERR_ACL_INVALID;
	if ((count[1] || count[3]) && !count[4])
		return E4_ERR_ACL_INVALID;
	return 0;
}

errcode_t e4_acl_from_xattr(const void *value, size_t len, struct e4_acl_entry *e, size_t max,
			    size_t *n)
{
	const uint8_t *p = value;
	size_t i, cnt;

	if (len < 4 || (len - 4) % 8 || e4_get_le32(p) != E4_ACL_XATTR_VERSION)
		return E4_ERR_ACL_INVALID;
	cnt = (len - 4) / 8;
	if (cnt > max)
		return E4_ERR_ACL_INVALID;
	for (i = 0; i < cnt; i++) {
		const uint8_t *q = p + 4 + 8 * i;

		e[i].tag = e4_get_le16(q);
		e[i].perm = e4_get_le16(q + 2);
		e[i].id = named(e[i].tag) ? e4_get_le32(q + 4) : E4_ACL_UNDEFINED_ID;
	}
	*n = cnt;
	return e4_acl_check(e, cnt);
}

errcode_t e4_acl_from_disk(const void *value, size_t len, struct e4_acl_entry *e, size_t max,
			   size_t *n)
{
	const uint8_t *p = value;
	size_t off = 4, cnt = 0;

	if (len < 4 || e4_get_le32(p) != E4_ACL_EXT4_VERSION)
		return E4_ERR_ACL_INVALID;
	while (off < len) {
		uint16_t tag;

		if (len - off < 4 || cnt == max)
			return E4_ERR_ACL_INVALID;
		tag = e4_get_le16(p + off);
		e[cnt].tag = tag;
		e[cnt].perm = e4_get_le16(p + off + 2);
		e[cnt].id = E4_ACL_UNDEFINED_ID;
		off += 4;
		if (named(tag)) {
			if (len - off < 4)
				return E4_ERR_ACL_INVALID;
			e[cnt].id = e4_get_le32(p + off);
			off += 4;
		}
		cnt++;
	}
	*n = cnt;
	return e4_acl_check(e, cnt);
}

size_t e4_acl_disk_size(const struct e4_acl_entry *e, size_t n)
{
	size_t i, sz = 4;

	for (i = 0; i < n; i++)
		sz += named(e[i].tag) ? 8 : 4;
	return sz;
}

errcode_t e4_acl_entries_to_disk(const struct e4_acl_entry *e, size_t n, void *out, size_t *len)
{
	uint8_t *p = out;
	size_t i, off = 4;
	errcode_t err = e4_acl_check(e, n);

	if (err)
		return err;
	e4_put_le32(p, E4_ACL_EXT4_VERSION);
	for (i = 0; i < n; i++) {
		e4_put_le16(p + off, e[i].tag);
		e4_put_le16(p + off + 2, e[i].perm);
		off += 4;
		if (named(e[i].tag)) {
			e4_put_le32(p + off, e[i].id);
			off += 4;
		}
	}
	*len = off;
	return 0;
}

errcode_t e4_acl_entries_to_xattr(const struct e4_acl_entry *e, size_t n, void *out, size_t *len)
{
	uint8_t *p = out;
	size_t i;
	errcode_t err = e4_acl_check(e, n);

	if (err)
		return err;
	e4_put_le32(p, E4_ACL_XATTR_VERSION);
	for (i = 0; i < n; i++) {
		uint8_t *q = p + 4 + 8 * i;

		e4_put_le16(q, e[i].tag);
		e4_put_le16(q + 2, e[i].perm);
		e4_put_le32(q + 4, named(e[i].tag) ? e[i].id : E4_ACL_UNDEFINED_ID);
	}
	*len = 4 + 8 * n;
	return 0;
}
