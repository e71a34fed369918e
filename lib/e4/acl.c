/*
 * acl.c: POSIX ACL values in the VFS encoding and in ext4's compact
 * on-disk encoding (acl.h says both; format doc section 9.1 for where
 * they are stored).
 */
#include <stdlib.h>
#include <string.h>
#include "e4.h"
#include "dir_int.h"	/* e4_put_le16, e4_put_le32 */

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

errcode_t e4_acl_to_disk(const struct e4_acl_entry *e, size_t n, void *out, size_t *len)
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

errcode_t e4_acl_to_xattr(const struct e4_acl_entry *e, size_t n, void *out, size_t *len)
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
