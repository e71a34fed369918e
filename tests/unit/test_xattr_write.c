/* Unit tests for the xattr writer (xattr_write.c, xattr_area.c,
 * xattr_ea.c; format doc section 9) on small mke2fs images with files
 * f0..f7 (-d): the hashes against what the reference debugfs writes,
 * name parsing, the in-memory inode-body editor, the kernel's placement
 * (inode body first, then the block, values past block size - 56 in EA
 * inodes), blocks freed with their last attribute, shared blocks (an
 * explicit share, a share through opts.share_blk, a shared block changed:
 * copied, the other inode untouched), EA inodes (reference counts, the
 * hash in i_atime, the owner's i_blocks, freed at their last reference,
 * one counted once per shared block), refusals that change nothing,
 * system.data of an inline-data file kept in the inode body, and
 * random set/remove sequences against a model (block entries in the
 * kernel's order after each step).  Each image ends clean for the
 * reference e2fsck -fn.
 * Catches: a shared block changed in place, an EA inode never freed, the
 * block left allocated after its last attribute.
 * Needs mke2fs, debugfs and e2fsck (REF_* or PATH); skipped without. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "e4.h"
#include "e4_private.h"	/* e4_inode_blocks_set() */
#include "unit_images.h"

static struct unit_images imgs;
static const char *img_plain, *img_ea, *img_ea128, *img_rand;
static char srcdir[128];
#define INLINE_TEXT	"f6: a few bytes kept in i_block"

static const char *tool(const char *env, const char *name)
{
	const char *t = getenv(env);

	return t ? t : name;
}

static int setup(void **state)
{
	char opts[256], path[160];

	(void)state;
	e4_init_errors();
	if (unit_images_init(&imgs, "test_xattr_w"))
		return -1;
	snprintf(srcdir, sizeof(srcdir), "%s/src", imgs.dir);
	mkdir(srcdir, 0755);
	for (int i = 0; i < 8; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/f%d", srcdir, i);
		f = fopen(path, "w");
		if (f && i == 6)
			fputs(INLINE_TEXT, f);	/* inline data on img_rand */
		if (f)
			fclose(f);
	}
#define MK(var, name, o, size) \
	snprintf(opts, sizeof(opts), "-t ext4 -N 64 %s -d %s", o, srcdir); \
	var = unit_image_add(&imgs, name, opts, size)
	MK(img_plain, "plain", "-b 1024 -I 256 -O ^has_journal", "2M");
	MK(img_ea, "ea", "-b 1024 -I 256 -O ea_inode,^has_journal", "2M");
	MK(img_ea128, "ea128", "-b 1024 -I 128 -O ea_inode,^has_journal", "2M");
	MK(img_rand, "rand", "-b 1024 -I 256 -O ea_inode,inline_data,^has_journal", "4M");
#undef MK
	return 0;
}

static int teardown(void **state)
{
	char path[160];

	(void)state;
	for (int i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), "%s/f%d", srcdir, i);
		unlink(path);
	}
	rmdir(srcdir);
	return unit_images_remove(&imgs);
}

/* The reference e2fsck -fn finds nothing: exit 0 and only its frame. */
static int ref_clean(const char *img)
{
	char cmd[512], line[512];
	int extra = 0, rc;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "PATH=\"$PATH:/sbin:/usr/sbin\" %s -fn %s 2>&1",
		 tool("REF_E2FSCK", "e2fsck"), img);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p)) {
		if (strncmp(line, "e2fsck ", 7) && strncmp(line, "Pass ", 5) &&
		    !strstr(line, " files (") && strcmp(line, "\n")) {
			fprintf(stderr, "e2fsck: %s", line);
			extra = 1;
		}
	}
	rc = pclose(p);
	return rc == 0 && !extra;
}

/* ---- helpers over an open filesystem --------------------------------- */
static const struct e4_xattr_opts OPTS = { .now = 1700000000, .share_blk = 0 };

static e4_ino_t ino_of(e4_fs *fs, const char *path)
{
	e4_ino_t ino = 0;

	assert_int_equal(e4_namei(fs, EXT4_ROOT_INO, EXT4_ROOT_INO, path, 0, &ino), 0);
	return ino;
}

static errcode_t xset(e4_fs *fs, e4_ino_t ino, const char *full, const void *v, size_t len,
		      const struct e4_xattr_opts *o)
{
	union e4_inode_buf ib;
	const char *suffix;
	size_t slen;
	uint8_t idx;

	assert_int_equal(e4_xattr_name_parse(full, &idx, &suffix, &slen), 0);
	assert_int_equal(e4_inode_read(fs, ino, &ib), 0);
	return e4_xattr_set(fs, ino, &ib, idx, suffix, slen, v, len, o ? o : &OPTS);
}

static errcode_t xrm(e4_fs *fs, e4_ino_t ino, const char *full)
{
	union e4_inode_buf ib;
	const char *suffix;
	size_t slen;
	uint8_t idx;

	assert_int_equal(e4_xattr_name_parse(full, &idx, &suffix, &slen), 0);
	assert_int_equal(e4_inode_read(fs, ino, &ib), 0);
	return e4_xattr_remove(fs, ino, &ib, idx, suffix, slen, &OPTS);
}

struct where {
	const char *full;
	int found, in_inode;
	uint32_t inum, hash;
};

static int where_cb(e4_fs *fs, const struct e4_xattr *x, void *priv)
{
	struct where *w = priv;
	char name[300];

	(void)fs;
	snprintf(name, sizeof(name), "%s%s", x->prefix, x->name);
	if (strcmp(name, w->full))
		return 0;
	w->found = 1;
	w->in_inode = x->in_inode;
	w->inum = x->value_inum;
	w->hash = x->e_hash;
	return 0;
}

/* 'i' in the inode body, 'b' in the block, 'I'/'B' the same with the
 * value in an EA inode, 0 absent. */
static char where(e4_fs *fs, e4_ino_t ino, const char *full, uint32_t *inum)
{
	struct where w = { full, 0, 0, 0, 0 };

	assert_int_equal(e4_xattr_iterate(fs, ino, NULL, where_cb, &w), 0);
	if (inum)
		*inum = w.inum;
	if (!w.found)
		return 0;
	return w.inum ? (w.in_inode ? 'I' : 'B') : (w.in_inode ? 'i' : 'b');
}

static struct ext4_inode inode_of(e4_fs *fs, e4_ino_t ino)
{
	union e4_inode_buf ib;

	assert_int_equal(e4_inode_read(fs, ino, &ib), 0);
	return ib.inode;
}

static uint32_t refcount_of(e4_fs *fs, e4_blk_t blk)
{
	uint8_t buf[4096];

	assert_int_equal(e4_io_read_blk(e4_fs_io(fs), blk, 1, buf), 0);
	return e4_get_le32(buf + 4);
}

static int block_in_use(e4_fs *fs, e4_blk_t blk)
{
	e4_blk_t f;

	/* the only free run of one block starting exactly at blk is blk */
	return e4_block_find_free(fs, blk, 1, &f) || f != blk;
}

static void close_clean(e4_fs *fs, const char *img)
{
	assert_int_equal(e4_alloc_flush(fs), 0);
	assert_int_equal(e4_close(fs), 0);
	assert_true(ref_clean(img));
}

/* img opened read-write; *a and *b: the inodes of /f0 and /f1.  Skips
 * the test when the images could not be made. */
static e4_fs *open_rw(const char *img, e4_ino_t *a, e4_ino_t *b)
{
	e4_fs *fs = NULL;

	if (!imgs.ok)
		skip();
	assert_int_equal(e4_open(img, E4_OPEN_RW, 0, 0, &fs), 0);
	*a = ino_of(fs, "/f0");
	*b = ino_of(fs, "/f1");
	return fs;
}

static void fill(uint8_t *v, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		v[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

/* ---- hashes and names ---------------------------------------------------- */
struct hashes {
	unsigned n, bad;
};

static int hash_cb(e4_fs *fs, const struct e4_xattr *x, void *priv)
{
	struct hashes *h = priv;

	(void)fs;
	h->n++;
	if (x->e_hash != e4_xattr_hash_entry(x->name, x->name_len, x->value, x->value_len, 0))
		h->bad++;
	return 0;
}

/* The reference debugfs writes the block; our hashes must be its. */
static void hashes_as_reference(void **state)
{
	const char *img = img_ea128;
	char cmd[1024];
	struct hashes h = { 0, 0 };
	e4_fs *fs;
	e4_ino_t ino;

	(void)state;
	if (!imgs.ok)
		skip();
	snprintf(cmd, sizeof(cmd),
		 "PATH=\"$PATH:/sbin:/usr/sbin\"; D=%s; $D -w -R 'ea_set /f7 user.abc 1' %s && "
		 "$D -w -R 'ea_set /f7 trusted.Mixed_Case-9 \"a value of 29 bytes, unpadded\"' %s && "
		 "$D -w -R 'ea_set /f7 security.e \"\"' %s >/dev/null 2>&1",
		 tool("REF_DEBUGFS", "debugfs"), img, img, img);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(e4_open(img, 0, 0, 0, &fs), 0);
	ino = ino_of(fs, "/f7");
	assert_int_equal(e4_xattr_iterate(fs, ino, NULL, hash_cb, &h), 0);
	assert_int_equal(h.n, 3);
	assert_int_equal(h.bad, 0);
	/* (e2fsprogs 1.47 leaves h_hash 0: the block hash is compared with
	 * the kernel's in tests/t/lib_xattr_placement.sh) */
	e4_close(fs);
	/* signed and unsigned name bytes agree for ASCII only */
	assert_int_equal(e4_xattr_hash_entry("abc", 3, "xyz", 3, 0),
			 e4_xattr_hash_entry("abc", 3, "xyz", 3, 1));
	assert_int_not_equal(e4_xattr_hash_entry("a\xe9", 2, "", 0, 0),
			     e4_xattr_hash_entry("a\xe9", 2, "", 0, 1));
	/* the value is hashed as zero-padded little-endian words */
	assert_int_equal(e4_xattr_hash_entry("n", 1, "\x01\x00\x00\x00", 4, 0),
			 e4_xattr_hash_entry("n", 1, "\x01", 1, 0));
}

static void name_parse(void **state)
{
	char longname[300];
	const char *s;
	size_t len;
	uint8_t idx;

	(void)state;
	assert_int_equal(e4_xattr_name_parse("user.foo", &idx, &s, &len), 0);
	assert_int_equal(idx, EXT4_XATTR_INDEX_USER);
	assert_int_equal(len, 3);
	assert_string_equal(s, "foo");
	assert_int_equal(e4_xattr_name_parse("system.posix_acl_access", &idx, &s, &len), 0);
	assert_int_equal(idx, EXT4_XATTR_INDEX_POSIX_ACL_ACCESS);
	assert_int_equal(len, 0);
	assert_int_equal(e4_xattr_name_parse("system.posix_acl_accessX", &idx, &s, &len), 0);
	assert_int_equal(idx, EXT4_XATTR_INDEX_SYSTEM);
	assert_string_equal(s, "posix_acl_accessX");
	assert_int_equal(e4_xattr_name_parse("security.selinux", &idx, &s, &len), 0);
	assert_int_equal(idx, EXT4_XATTR_INDEX_SECURITY);
	assert_int_equal(e4_xattr_name_parse("trusted.", &idx, &s, &len), E4_ERR_XATTR_NAME);
	assert_int_equal(e4_xattr_name_parse("foo.bar", &idx, &s, &len), E4_ERR_XATTR_NAME);
	memset(longname, 'x', sizeof(longname));
	memcpy(longname, "user.", 5);
	longname[5 + 256] = '\0';
	assert_int_equal(e4_xattr_name_parse(longname, &idx, &s, &len), E4_ERR_XATTR_NAME);
	longname[5 + 255] = '\0';
	assert_int_equal(e4_xattr_name_parse(longname, &idx, &s, &len), 0);
	assert_int_equal(len, 255);
}

/* The in-memory editor of the inode body (inline data's system.data). */
static void ibody_editor(void **state)
{
	union e4_inode_buf ib;
	uint8_t v[100];
	void *got;
	size_t glen;
	e4_fs *fs;

	(void)state;
	if (!imgs.ok)
		skip();
	assert_int_equal(e4_open(img_plain, 0, 0, 0, &fs), 0);
	memset(&ib, 0, sizeof(ib));		/* i_extra_isize 0: becomes 32 */
	fill(v, sizeof(v), 1);
	assert_int_equal(e4_xattr_ibody_set(fs, &ib, EXT4_XATTR_INDEX_SYSTEM, "data", 4, v, 40), 0);
	assert_int_equal(e4_le16(ib.inode.i_extra_isize), 32);
	assert_int_equal(e4_get_le32(ib.raw + 160), EXT4_XATTR_MAGIC);
	assert_int_equal(e4_xattr_get(fs, 0, &ib.inode, "system.data", &got, &glen), 0);
	assert_int_equal(glen, 40);
	assert_memory_equal(got, v, 40);
	free(got);
	/* 256 - 160 - 4 = 92 bytes: "data" (20) + 40 + terminator 4 = 64 */
	assert_int_equal(e4_xattr_ibody_set(fs, &ib, EXT4_XATTR_INDEX_USER, "x", 1, v, 12),
			 E4_ERR_NO_SPACE);
	assert_int_equal(e4_xattr_ibody_set(fs, &ib, EXT4_XATTR_INDEX_USER, "x", 1, v, 8), 0);
	assert_int_equal(e4_xattr_ibody_set(fs, &ib, EXT4_XATTR_INDEX_SYSTEM, "data", 4, v, 0), 0);
	assert_int_equal(e4_xattr_get(fs, 0, &ib.inode, "system.data", &got, &glen), 0);
	assert_int_equal(glen, 0);
	free(got);
	assert_int_equal(e4_xattr_ibody_set(fs, &ib, EXT4_XATTR_INDEX_USER, "x", 1, NULL, 0), 0);
	assert_int_equal(e4_xattr_ibody_set(fs, &ib, EXT4_XATTR_INDEX_USER, "x", 1, NULL, 0),
			 E4_ERR_XATTR_NOT_FOUND);
	assert_int_equal(e4_xattr_ibody_set(fs, &ib, EXT4_XATTR_INDEX_SYSTEM, "data", 4, NULL, 0), 0);
	assert_int_equal(e4_get_le32(ib.raw + 160), 0);		/* empty: no magic */
	assert_int_equal(e4_xattr_ibody_set(fs, &ib, EXT4_XATTR_INDEX_USER, "", 0, v, 1),
			 E4_ERR_XATTR_NAME);
	e4_close(fs);
}

/* i_blocks as the kernel stores it (ext4_inode_blocks_set): 32 bits, 48
 * with huge_file, then HUGE_FILE_FL and filesystem blocks. */
static void iblocks_setter(void **state)
{
	struct ext4_inode in;
	e4_fs *fs;
	int huge;

	(void)state;
	if (!imgs.ok)
		skip();
	assert_int_equal(e4_open(img_plain, 0, 0, 0, &fs), 0);
	huge = e4_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_HUGE_FILE);
	memset(&in, 0, sizeof(in));
	in.i_flags = e4_cpu_to_le32(EXT4_HUGE_FILE_FL | EXT4_EXTENTS_FL);
	assert_int_equal(e4_inode_blocks_set(fs, &in, 0xFFFFFFFEull), 0);
	assert_int_equal(e4_le32(in.i_flags), EXT4_EXTENTS_FL);	/* flag cleared */
	assert_int_equal(e4_inode_blocks(fs, &in), 0xFFFFFFFEull);
	if (!huge) {
		assert_int_equal(e4_inode_blocks_set(fs, &in, 1ull << 32), E4_ERR_FILE_TOO_BIG);
		e4_close(fs);
		return;
	}
	assert_int_equal(e4_inode_blocks_set(fs, &in, 3ull << 32), 0);
	assert_int_equal(e4_le16(in.l_i_blocks_high), 3);
	assert_int_equal(e4_inode_blocks(fs, &in), 3ull << 32);
	assert_int_equal(e4_inode_blocks_set(fs, &in, 1ull << 48), 0);	/* 1 KiB blocks */
	assert_true(e4_le32(in.i_flags) & EXT4_HUGE_FILE_FL);
	assert_int_equal(e4_inode_blocks(fs, &in), 1ull << 48);
	assert_int_equal(e4_le32(in.i_blocks_lo) | (uint64_t)e4_le16(in.l_i_blocks_high) << 32,
			 1ull << 47);
	assert_int_equal(e4_inode_blocks_set(fs, &in, 1ull << 50), E4_ERR_FILE_TOO_BIG);
	e4_close(fs);
}

/* ---- placement, blocks, sharing ----------------------------------------- */
static void placement_and_blocks(void **state)
{
	uint8_t v[2048];
	struct ext4_inode in;
	e4_blk_t b;
	e4_fs *fs;
	e4_ino_t f0, f1;

	(void)state;
	fs = open_rw(img_plain, &f0, &f1);
	fill(v, sizeof(v), 2);
	/* the inode body first (92 bytes of room), then the block */
	assert_int_equal(xset(fs, f0, "user.small", v, 16, NULL), 0);
	assert_int_equal(where(fs, f0, "user.small", NULL), 'i');
	assert_int_equal(e4_inode_file_acl(fs, (in = inode_of(fs, f0), &in)), 0);
	assert_int_equal(xset(fs, f0, "user.big", v, 200, NULL), 0);
	assert_int_equal(where(fs, f0, "user.big", NULL), 'b');
	in = inode_of(fs, f0);
	b = e4_inode_file_acl(fs, &in);
	assert_true(b && block_in_use(fs, b));
	assert_int_equal(e4_inode_blocks(fs, &in), 2);		/* one 1 KiB block */
	assert_int_equal(refcount_of(fs, b), 1);
	/* a smaller value that fits moves the attribute into the inode */
	assert_int_equal(xset(fs, f0, "user.big", v, 20, NULL), 0);
	assert_int_equal(where(fs, f0, "user.big", NULL), 'i');
	/* the block held nothing else: freed, i_file_acl and i_blocks 0 */
	in = inode_of(fs, f0);
	assert_int_equal(e4_inode_file_acl(fs, &in), 0);
	assert_int_equal(e4_inode_blocks(fs, &in), 0);
	assert_false(block_in_use(fs, b));
	/* setting the same value again writes nothing */
	assert_int_equal(xset(fs, f0, "user.big", v, 20, NULL), 0);
	/* refusals that change nothing */
	assert_int_equal(xset(fs, f1, "user.huge", v, 1100, NULL), E4_ERR_XATTR_NO_ROOM);
	assert_int_equal(where(fs, f1, "user.huge", NULL), 0);
	assert_int_equal(e4_inode_file_acl(fs, (in = inode_of(fs, f1), &in)), 0);
	assert_int_equal(xset(fs, f1, "user.x", v, 65537, NULL), E4_ERR_XATTR_TOO_BIG);
	assert_int_equal(xrm(fs, f1, "user.never"), E4_ERR_XATTR_NOT_FOUND);
	close_clean(fs, img_plain);
	/* read-only: refused */
	assert_int_equal(e4_open(img_plain, 0, 0, 0, &fs), 0);
	assert_int_equal(xset(fs, f1, "user.x", v, 1, NULL), E4_ERR_READ_ONLY);
	e4_close(fs);
}

static void shared_blocks(void **state)
{
	struct e4_xattr_opts share = OPTS;
	uint8_t v[400];
	struct ext4_inode in;
	union e4_inode_buf ib;
	e4_blk_t b, b2;
	e4_fs *fs;
	e4_ino_t a, c, d;

	(void)state;
	if (!imgs.ok)
		skip();
	fill(v, sizeof(v), 3);
	assert_int_equal(e4_open(img_plain, E4_OPEN_RW, 0, 0, &fs), 0);
	a = ino_of(fs, "/f2");
	c = ino_of(fs, "/f3");
	d = ino_of(fs, "/f4");
	assert_int_equal(xset(fs, a, "user.one", v, 150, NULL), 0);
	assert_int_equal(xset(fs, a, "trusted.two", v + 1, 120, NULL), 0);
	in = inode_of(fs, a);
	b = e4_inode_file_acl(fs, &in);
	assert_true(b != 0);
	/* c takes a's block: refcount 2, c charged one block */
	assert_int_equal(e4_inode_read(fs, c, &ib), 0);
	assert_int_equal(e4_xattr_block_share(fs, c, &ib, b, &OPTS), 0);
	assert_int_equal(refcount_of(fs, b), 2);
	in = inode_of(fs, c);
	assert_int_equal(e4_inode_file_acl(fs, &in), b);
	assert_int_equal(e4_inode_blocks(fs, &in), 2);
	assert_int_equal(where(fs, c, "trusted.two", NULL), 'b');
	/* d builds the same set and names a's block: shared, not a new one */
	share.share_blk = b;
	assert_int_equal(xset(fs, d, "user.one", v, 150, &share), 0);
	assert_int_equal(xset(fs, d, "trusted.two", v + 1, 120, &share), 0);
	assert_int_equal(e4_inode_file_acl(fs, (in = inode_of(fs, d), &in)), b);
	assert_int_equal(refcount_of(fs, b), 3);
	/* c changes a block attribute: c gets a copy, a and d keep theirs */
	assert_int_equal(xset(fs, c, "user.one", v + 5, 150, NULL), 0);
	in = inode_of(fs, c);
	b2 = e4_inode_file_acl(fs, &in);
	assert_true(b2 != 0 && b2 != b);
	assert_int_equal(refcount_of(fs, b), 2);
	assert_int_equal(refcount_of(fs, b2), 1);
	{
		void *val;
		size_t len;

		assert_int_equal(e4_xattr_get(fs, a, NULL, "user.one", &val, &len), 0);
		assert_int_equal(len, 150);
		assert_memory_equal(val, v, 150);
		free(val);
		assert_int_equal(e4_xattr_get(fs, c, NULL, "user.one", &val, &len), 0);
		assert_memory_equal(val, v + 5, 150);
		free(val);
	}
	/* a drops everything: the block stays for d (refcount 1) */
	assert_int_equal(e4_inode_read(fs, a, &ib), 0);
	assert_int_equal(e4_xattr_remove_all(fs, a, &ib, &OPTS), 0);
	assert_int_equal(e4_inode_file_acl(fs, &ib.inode), 0);
	assert_int_equal(e4_inode_blocks(fs, &ib.inode), 0);
	assert_int_equal(refcount_of(fs, b), 1);
	assert_true(block_in_use(fs, b));
	/* d's last block attribute removed: the block is freed */
	assert_int_equal(xrm(fs, d, "user.one"), 0);
	assert_int_equal(xrm(fs, d, "trusted.two"), 0);
	assert_false(block_in_use(fs, b));
	/* a share with a name also in the inode body is refused */
	assert_int_equal(xset(fs, a, "user.one", v, 4, NULL), 0);
	assert_int_equal(where(fs, a, "user.one", NULL), 'i');
	assert_int_equal(e4_inode_read(fs, a, &ib), 0);
	assert_int_equal(e4_xattr_block_share(fs, a, &ib, b2, &OPTS), E4_ERR_XATTR_SHARE);
	close_clean(fs, img_plain);
}

/* ---- EA inodes ------------------------------------------------------------ */
static uint64_t ea_refs(const struct ext4_inode *in)
{
	return ((uint64_t)e4_le32(in->i_ctime) << 32) | e4_le32(in->l_i_version);
}

static void ea_inode_values(void **state)
{
	static uint8_t v[20000];
	struct ext4_inode in, ea;
	uint32_t inum, inum2;
	e4_fs *fs;
	e4_ino_t f0, f1;

	(void)state;
	fs = open_rw(img_ea, &f0, &f1);
	fill(v, sizeof(v), 4);
	/* past block size - 56 = 968 bytes: an EA inode, its entry in the inode */
	assert_int_equal(xset(fs, f0, "user.large", v, 8192, NULL), 0);
	assert_int_equal(where(fs, f0, "user.large", &inum), 'I');
	ea = inode_of(fs, inum);
	assert_int_equal(e4_le16(ea.i_mode), EXT4_S_IFREG | 0600);
	assert_true(e4_le32(ea.i_flags) & EXT4_EA_INODE_FL);
	assert_int_equal(e4_inode_size(&ea), 8192);
	assert_int_equal(e4_le16(ea.i_links_count), 1);
	assert_int_equal(ea_refs(&ea), 1);
	assert_int_equal(e4_le32(ea.i_atime), e4_crc32c(e4_csum_seed(fs), v, 8192));
	assert_int_equal(e4_inode_blocks(fs, &ea), 16);
	in = inode_of(fs, f0);
	assert_int_equal(e4_inode_blocks(fs, &in), 16);	/* the value charged to the owner */
	/* 900 bytes leave less than the 128-byte reserve below the values in
	 * the block: an EA inode too; 800 bytes stay in the block */
	assert_int_equal(xset(fs, f1, "user.v900", v, 900, NULL), 0);
	assert_int_equal(where(fs, f1, "user.v900", &inum2), 'I');
	assert_int_equal(xset(fs, f1, "user.v800", v, 800, NULL), 0);
	assert_int_equal(where(fs, f1, "user.v800", NULL), 'b');
	/* a value of 20000 bytes reads back whole */
	assert_int_equal(xset(fs, f1, "user.v900", v, 20000, NULL), 0);
	{
		void *val;
		size_t len;

		assert_int_equal(e4_xattr_get(fs, f1, NULL, "user.v900", &val, &len), 0);
		assert_int_equal(len, 20000);
		assert_memory_equal(val, v, 20000);
		free(val);
	}
	/* the old 900-byte EA inode lost its only reference: freed */
	ea = inode_of(fs, inum2);
	assert_int_equal(e4_le16(ea.i_links_count), 0);
	assert_int_equal(e4_le32(ea.i_dtime), (uint32_t)OPTS.now);
	/* removing the last reference frees the EA inode */
	assert_int_equal(xrm(fs, f0, "user.large"), 0);
	ea = inode_of(fs, inum);
	assert_int_equal(e4_le16(ea.i_links_count), 0);
	assert_int_equal(ea_refs(&ea), 0);
	in = inode_of(fs, f0);
	assert_int_equal(e4_inode_blocks(fs, &in), 0);
	close_clean(fs, img_ea);
}

/* An EA inode named from a shared block counts one reference for the
 * block; a copy of the block is one more. */
static void ea_inode_shared_block(void **state)
{
	static uint8_t v[8192];
	union e4_inode_buf ib;
	struct ext4_inode in;
	uint32_t inum;
	e4_blk_t b;
	e4_fs *fs;
	e4_ino_t f0, f1;
	void *val;
	size_t len;

	(void)state;
	fs = open_rw(img_ea128, &f0, &f1);
	fill(v, sizeof(v), 5);
	assert_int_equal(xset(fs, f0, "user.big", v, 8192, NULL), 0);
	assert_int_equal(where(fs, f0, "user.big", &inum), 'B');	/* no inode room */
	in = inode_of(fs, f0);
	b = e4_inode_file_acl(fs, &in);
	assert_int_equal(e4_inode_read(fs, f1, &ib), 0);
	assert_int_equal(e4_xattr_block_share(fs, f1, &ib, b, &OPTS), 0);
	assert_int_equal((in = inode_of(fs, inum), ea_refs(&in)), 1);
	in = inode_of(fs, f1);
	assert_int_equal(e4_inode_blocks(fs, &in), 2 + 16);	/* block + value */
	assert_int_equal(xset(fs, f1, "user.other", v, 10, NULL), 0);	/* f1 copies */
	in = inode_of(fs, f1);
	assert_true(e4_inode_file_acl(fs, &in) != b);
	assert_int_equal((in = inode_of(fs, inum), ea_refs(&in)), 2);
	assert_int_equal(xrm(fs, f0, "user.big"), 0);		/* f0's block freed */
	assert_false(block_in_use(fs, b));
	assert_int_equal((in = inode_of(fs, inum), ea_refs(&in)), 1);
	assert_int_equal(e4_xattr_get(fs, f1, NULL, "user.big", &val, &len), 0);
	assert_int_equal(len, 8192);
	assert_memory_equal(val, v, 8192);
	free(val);
	assert_int_equal(xrm(fs, f1, "user.big"), 0);
	in = inode_of(fs, inum);
	assert_int_equal(e4_le16(in.i_links_count), 0);
	close_clean(fs, img_ea128);
}

/* ---- random sequences against a model ------------------------------------- */
#define RN	4	/* inodes */
#define RA	6	/* names */
static const char *const rnames[RA] = {
	"user.a", "user.bb", "trusted.ccc", "security.d", "user.e_longer_name", "user.f",
};

struct rmodel {
	size_t len[RN][RA];
	int set[RN][RA];
	unsigned seed[RN][RA];
};

static uint64_t rstate = 12345;

static unsigned rnd(unsigned n)
{
	rstate = rstate * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)((rstate >> 33) % n);
}

/* The entries of ino's block (if any) in the kernel's order: index, name
 * length, name bytes (the kernel's lookup stops at the first larger). */
static void block_sorted(e4_fs *fs, e4_ino_t ino)
{
	struct ext4_inode in = inode_of(fs, ino);
	e4_blk_t b = e4_inode_file_acl(fs, &in);
	uint8_t buf[1024], *prev = NULL;

	if (!b)
		return;
	assert_int_equal(e4_io_read_blk(e4_fs_io(fs), b, 1, buf), 0);
	for (size_t off = 32; e4_get_le32(buf + off); off += EXT4_XATTR_LEN(buf[off])) {
		uint8_t *e = buf + off;

		if (prev)
			assert_true(prev[1] < e[1] || (prev[1] == e[1] && (prev[0] < e[0] ||
				    (prev[0] == e[0] && memcmp(prev + 16, e + 16, e[0]) < 0))));
		prev = e;
	}
}

static void model_check(e4_fs *fs, const e4_ino_t *ino, const struct rmodel *m)
{
	static uint8_t want[20000];

	for (int i = 0; i < RN; i++) {
		for (int k = 0; k < RA; k++) {
			void *val = NULL;
			size_t len = 0;
			errcode_t err = e4_xattr_get(fs, ino[i], NULL, rnames[k], &val, &len);

			if (!m->set[i][k]) {
				assert_int_equal(err, E4_ERR_XATTR_NOT_FOUND);
				continue;
			}
			assert_int_equal(err, 0);
			assert_int_equal(len, m->len[i][k]);
			fill(want, len, m->seed[i][k]);
			assert_memory_equal(val, want, len);
			free(val);
		}
		block_sorted(fs, ino[i]);
	}
}

static void random_model(void **state)
{
	static const size_t sizes[] = { 0, 3, 17, 60, 100, 300, 700, 1000, 3000, 8192, 20000 };
	static uint8_t v[20000];
	struct rmodel m;
	e4_ino_t ino[RN];
	union e4_inode_buf ib;
	e4_fs *fs;

	(void)state;
	if (!imgs.ok)
		skip();
	memset(&m, 0, sizeof(m));
	assert_int_equal(e4_open(img_rand, E4_OPEN_RW, 0, 0, &fs), 0);
	for (int i = 0; i < RN; i++) {
		char p[8];

		snprintf(p, sizeof(p), "/f%d", i);
		ino[i] = ino_of(fs, p);
	}
	for (int step = 0; step < 400; step++) {
		int i = (int)rnd(RN), k = (int)rnd(RA);
		unsigned op = rnd(10);

		if (op < 6) {
			size_t len = sizes[rnd(sizeof(sizes) / sizeof(sizes[0]))];
			unsigned seed = rnd(1000);

			fill(v, len, seed);
			assert_int_equal(xset(fs, ino[i], rnames[k], v, len, NULL), 0);
			m.set[i][k] = 1;
			m.len[i][k] = len;
			m.seed[i][k] = seed;
		} else if (op < 9) {
			assert_int_equal(xrm(fs, ino[i], rnames[k]),
					 m.set[i][k] ? 0 : E4_ERR_XATTR_NOT_FOUND);
			m.set[i][k] = 0;
		} else {
			/* i takes the block of j: i's names become j's block names */
			int j = (int)rnd(RN);
			struct ext4_inode jn = inode_of(fs, ino[j]);
			e4_blk_t b = e4_inode_file_acl(fs, &jn);

			if (i == j || !b)
				continue;
			/* (not e4_xattr_remove_all: the inline data's system.data stays) */
			for (int q = 0; q < RA; q++)
				if (m.set[i][q])
					assert_int_equal(xrm(fs, ino[i], rnames[q]), 0);
			assert_int_equal(e4_inode_read(fs, ino[i], &ib), 0);
			assert_int_equal(e4_xattr_block_share(fs, ino[i], &ib, b, &OPTS), 0);
			for (int q = 0; q < RA; q++) {
				char w = where(fs, ino[j], rnames[q], NULL);

				m.set[i][q] = w == 'b' || w == 'B';
				m.len[i][q] = m.len[j][q];
				m.seed[i][q] = m.seed[j][q];
			}
		}
		model_check(fs, ino, &m);
	}
	close_clean(fs, img_rand);
}

/* Attributes added to an inline-data file leave its system.data (the
 * data past i_block) in the inode body and its contents whole. */
static void inline_data_kept(void **state)
{
	uint8_t v[300], buf[100];
	e4_fs *fs;
	e4_file *f;
	e4_ino_t ino, f0;
	size_t got;

	(void)state;
	fs = open_rw(img_rand, &f0, &ino);
	ino = ino_of(fs, "/f6");
	fill(v, sizeof(v), 6);
	assert_true(e4_le32(inode_of(fs, ino).i_flags) & EXT4_INLINE_DATA_FL);
	assert_int_equal(where(fs, ino, "system.data", NULL), 'i');
	for (int k = 0; k < 8; k++) {
		char name[32];

		snprintf(name, sizeof(name), "user.n%d", k);
		assert_int_equal(xset(fs, ino, name, v, 10 + 15 * (size_t)k, NULL), 0);
		assert_int_equal(where(fs, ino, "system.data", NULL), 'i');
	}
	assert_int_equal(where(fs, ino, "user.n0", NULL), 'i');
	assert_int_equal(where(fs, ino, "user.n7", NULL), 'b');	/* no room left */
	assert_int_equal(xrm(fs, ino, "user.n0"), 0);
	assert_int_equal(where(fs, ino, "system.data", NULL), 'i');
	assert_int_equal(e4_file_open(fs, ino, NULL, &f), 0);
	assert_int_equal(e4_file_pread(f, 0, buf, sizeof(buf), &got), 0);
	assert_int_equal(got, strlen(INLINE_TEXT));
	assert_memory_equal(buf, INLINE_TEXT, got);
	e4_file_close(f);
	close_clean(fs, img_rand);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(name_parse),
		cmocka_unit_test(hashes_as_reference),
		cmocka_unit_test(ibody_editor),
		cmocka_unit_test(iblocks_setter),
		cmocka_unit_test(placement_and_blocks),
		cmocka_unit_test(shared_blocks),
		cmocka_unit_test(ea_inode_values),
		cmocka_unit_test(ea_inode_shared_block),
		cmocka_unit_test(random_model),
		cmocka_unit_test(inline_data_kept),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
