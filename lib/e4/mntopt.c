/*
 * mntopt.c: default mount options (s_default_mount_opts, format doc 3.1)
 * by name, as tune2fs -o and mke2fs.conf's default_mntopts spell them.
 */
#include "e4_private.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
	const char *name;
	uint32_t mask;
} mntopt_names[] = {
	{ "debug", EXT4_DEFM_DEBUG },
	{ "bsdgroups", EXT4_DEFM_BSDGROUPS },
	{ "user_xattr", EXT4_DEFM_XATTR_USER },
	{ "acl", EXT4_DEFM_ACL },
	{ "uid16", EXT4_DEFM_UID16 },
	{ "journal_data", EXT4_DEFM_JMODE_DATA },
	{ "journal_data_ordered", EXT4_DEFM_JMODE_ORDERED },
	{ "journal_data_writeback", EXT4_DEFM_JMODE_WBACK },
	{ "nobarrier", EXT4_DEFM_NOBARRIER },
	{ "block_validity", EXT4_DEFM_BLOCK_VALIDITY },
	{ "discard", EXT4_DEFM_DISCARD },
	{ "nodelalloc", EXT4_DEFM_NODELALLOC },
};

uint32_t e4_mntopt_mask(const char *name)
{
	for (unsigned i = 0; i < sizeof(mntopt_names) / sizeof(mntopt_names[0]); i++)
		if (!strcmp(name, mntopt_names[i].name))
			return mntopt_names[i].mask;
	if (!strncasecmp(name, "MNTOPT_", 7)) {
		char *end;
		long bit = strtol(name + 7, &end, 10);

		if (!*end && end != name + 7 && bit >= 0 && bit < 32)
			return 1U << bit;
	}
	return 0;
}

errcode_t e4_mntopt_edit(uint32_t *opts, const char *edit)
{
	int neg = edit[0] == '^';
	uint32_t m = e4_mntopt_mask(edit + neg);

	if (!m)
		return E4_ERR_INVALID_ARGUMENT;
	if (neg) {
		*opts &= ~m;
	} else {
		if (m & EXT4_DEFM_JMODE)
			*opts &= ~EXT4_DEFM_JMODE;
		*opts |= m;
	}
	return 0;
}
