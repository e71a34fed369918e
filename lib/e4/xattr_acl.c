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
