/*
 * acl.h: POSIX ACLs as lists of entries and their two encodings
 * (xattr_acl.c), included by e4.h after the types it uses (errcode_t).
 * e4_acl_to_disk() (xattr_write.h) converts a whole value without the
 * order checks below.
 *
 * Two encodings of one list of entries (tag, permission bits, id):
 *  - the VFS one, which getxattr/setxattr use for system.posix_acl_access
 *    and system.posix_acl_default: le32 version 2, then 8-byte entries
 *    (le16 e_tag, le16 e_perm, le32 e_id; e_id is 0xFFFFFFFF for the
 *    entries that name nobody);
 *  - ext4's compact on-disk one, stored under name indexes 2 (access) and
 *    3 (default) with an empty name suffix: le32 version 1, then 8-byte
 *    entries for ACL_USER and ACL_GROUP (tag, perm, id) and 4-byte ones
 *    (tag, perm) for the others (Linux fs/ext4/acl.h).
 * Tags (both encodings): 0x01 USER_OBJ, 0x02 USER, 0x04 GROUP_OBJ,
 * 0x08 GROUP, 0x10 MASK, 0x20 OTHER; permissions 4 read, 2 write,
 * 1 execute.  A valid list is in the kernel's order (posix_acl_valid):
 * USER_OBJ, USER..., GROUP_OBJ, GROUP..., MASK (required when a USER or
 * GROUP entry is present), OTHER, each of USER_OBJ, GROUP_OBJ, OTHER once.
 */
#ifndef E4_ACL_H
#define E4_ACL_H

#include <stddef.h>
#include <stdint.h>

#define E4_ACL_USER_OBJ		0x01
#define E4_ACL_USER		0x02
#define E4_ACL_GROUP_OBJ	0x04
#define E4_ACL_GROUP		0x08
#define E4_ACL_MASK		0x10
#define E4_ACL_OTHER		0x20
#define E4_ACL_UNDEFINED_ID	0xFFFFFFFFu
#define E4_ACL_XATTR_VERSION	2	/* the VFS encoding */
#define E4_ACL_EXT4_VERSION	1	/* ext4's compact encoding */
#define E4_ACL_MAX_ENTRIES	8191	/* what fits a 64 KiB value */

struct e4_acl_entry {
	uint16_t tag;		/* E4_ACL_* */
	uint16_t perm;		/* 0..7 */
	uint32_t id;		/* uid or gid for USER/GROUP, else E4_ACL_UNDEFINED_ID */
};

/* Sort entries into the kernel's order: by tag, then by id (in place). */
void e4_acl_sort(struct e4_acl_entry *e, size_t n);
/* 0 when e[0..n) is a valid list (see above; ids of USER and GROUP
 * entries strictly ascending), else E4_ERR_ACL_INVALID. */
errcode_t e4_acl_check(const struct e4_acl_entry *e, size_t n);
/* Parse a VFS-encoded value into e (room for max entries; *n set).
 * E4_ERR_ACL_INVALID for a wrong version or size, an unknown tag or
 * permission bit, more than max entries, or an invalid list. */
errcode_t e4_acl_from_xattr(const void *value, size_t len, struct e4_acl_entry *e, size_t max,
		       size_t *n);
/* Parse ext4's compact encoding likewise. */
errcode_t e4_acl_from_disk(const void *value, size_t len, struct e4_acl_entry *e, size_t max,
		      size_t *n);
/* Bytes of the ext4 encoding of e[0..n). */
size_t e4_acl_disk_size(const struct e4_acl_entry *e, size_t n);
/* Encode e[0..n) (a valid list, else E4_ERR_ACL_INVALID) in ext4's
 * compact encoding into out (room for e4_acl_disk_size() bytes); *len set. */
errcode_t e4_acl_entries_to_disk(const struct e4_acl_entry *e, size_t n, void *out, size_t *len);
/* Encode e[0..n) (valid, else E4_ERR_ACL_INVALID) in the VFS encoding
 * into out (room for 4 + 8 n bytes); *len set. */
errcode_t e4_acl_entries_to_xattr(const struct e4_acl_entry *e, size_t n, void *out, size_t *len);

#endif
