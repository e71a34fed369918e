/*
 * dir_expand.c: growing a directory by one empty block (e4debugfs's
 * expand_dir; format doc section 8).  Built on the directory writer's
 * internals (dir_int.h): the block is appended and mapped as an insert
 * would append it, and written with an empty entry and its tail.
 */
#include <stdlib.h>
#include <string.h>

#include "dir_int.h"

errcode_t e4_dir_expand(e4_fs *fs, e4_ino_t dir)
{
	struct e4_dirw w;
	uint64_t lblk;
	uint16_t rec;
	uint8_t *buf;
	errcode_t err;

	err = e4_dirw_open(fs, dir, &w);
	if (err)
		return err;
	if (e4_le32(w.ib.inode.i_flags) & EXT4_INLINE_DATA_FL)
		return e4_dir_inline_convert(&w);	/* closes w */
	if (e4_le32(w.ib.inode.i_flags) & EXT4_INDEX_FL)
		return E4_ERR_UNSUPPORTED;
	err = e4_rec_len_to_disk(w.leaf_end, w.bs, &rec);
	if (err)
		return err;
	buf = calloc(1, w.bs);
	if (!buf)
		return E4_ERR_NO_MEMORY;
	/* one unused entry over the whole leaf, then the tail */
	e4_put_le16(buf + 4, rec);
	e4_dir_leaf_csum_set(fs, dir, w.gen, buf);
	err = e4_dirw_append(&w, &lblk);
	if (!err)
		err = e4_dirw_write(&w, lblk, buf);
	free(buf);
	if (!err)
		err = e4_dirw_close(&w);
	return err;
}
