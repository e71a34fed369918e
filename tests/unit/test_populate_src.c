/* Unit tests for e4mkfs -d's source side: the stream of mkfs/popsrc.c
 * (order, link groups, archives' members and errors), the size estimate
 * and fit of mkfs/popsize.c, the reproducibility rule of mkfs/poprepro.c,
 * common/sha256.c and lib/e4/acl.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <cmocka.h>
#include <archive.h>
#include <archive_entry.h>
#include "popsize.h"
#include "sha256.h"

/* ---- helpers -------------------------------------------------------------- */

static char tmp[256];

static void mk(const char *rel, const char *data)
{
	char p[512];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", tmp, rel);
	if (!data) {
		assert_int_equal(mkdir(p, 0755), 0);
		return;
	}
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, strlen(data)), (ssize_t)strlen(data));
	close(fd);
}

static void settime(const char *rel, int64_t sec)
{
	char p[512];
	struct timespec ts[2] = { { sec, 5 }, { sec, 7 } };

	snprintf(p, sizeof(p), "%s/%s", tmp, rel);
	assert_int_equal(utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW), 0);
}

static void newtmp(void)
{
	strcpy(tmp, "/tmp/e4popsrc.XXXXXX");
	assert_non_null(mkdtemp(tmp));
}

static void rmtmp(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	assert_int_equal(system(cmd), 0);
}

/* The stream as text: "index:path[@group/nlink]" per entry, "|" per
 * directory end. */
struct rec {
	char out[16384];
};

static int rec_entry(void *arg, struct pop_src *s, const struct pop_entry *e)
{
	struct rec *r = arg;
	size_t n = strlen(r->out);

	(void)s;
	snprintf(r->out + n, sizeof(r->out) - n, "%u:%s%s", e->index, e->path,
		 e->type == POP_DIR ? "/ " : "");
	n = strlen(r->out);
	if (e->type != POP_DIR)
		snprintf(r->out + n, sizeof(r->out) - n, "@%u/%u ", e->link_group, e->nlink);
	return 0;
}

static int rec_end(void *arg, struct pop_src *s, const struct pop_entry *d)
{
	struct rec *r = arg;

	size_t n = strlen(r->out);

	(void)s;
	(void)d;
	snprintf(r->out + n, sizeof(r->out) - n, "| ");
	return 0;
}

static void stream(const char *spec, char *out, size_t len)
{
	struct pop_ops ops = { rec_entry, rec_end };
	struct pop_opts o = { .default_time = 777 };
	struct rec r = { "" };
	struct pop_src *s;
	char err[1100];

	if (pop_open(spec, &o, &s, err, sizeof(err)))
		fail_msg("pop_open %s: %s", spec, err);
	assert_int_equal(pop_walk(s, &ops, &r), 0);
	pop_close(s);
	snprintf(out, len, "%s", r.out);
}

/* ---- sha256 --------------------------------------------------------------- */

static void hexcmp(const uint8_t *d, const char *want)
{
	char h[65];

	for (int i = 0; i < 32; i++)
		sprintf(h + 2 * i, "%02x", d[i]);
	assert_string_equal(h, want);
}

static void sha256_vectors(void **state)
{
	struct sha256 c;
	uint8_t d[32];
	static char a[1000000];

	(void)state;
	sha256_init(&c);
	sha256_final(&c, d);
	hexcmp(d, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha256_init(&c);
	sha256_update(&c, "abc", 3);
	sha256_final(&c, d);
	hexcmp(d, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha256_init(&c);
	sha256_update(&c, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56);
	sha256_final(&c, d);
	hexcmp(d, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* a million 'a' in uneven pieces */
	memset(a, 'a', sizeof(a));
	sha256_init(&c);
	for (size_t at = 0, k = 1; at < sizeof(a); at += k, k = k * 7 % 1000 + 1)
		sha256_update(&c, a + at, at + k > sizeof(a) ? sizeof(a) - at : k);
	sha256_final(&c, d);
	hexcmp(d, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* ---- ACL encodings ---------------------------------------------------------- */

static void acl_encodings(void **state)
{
	/* user::rw- user:1000:r-x group::r-- group:55:-w- mask::rwx other::r-- */
	static const uint8_t vfs[] = {
		2, 0, 0, 0,
		0x01, 0, 6, 0, 0xff, 0xff, 0xff, 0xff,
		0x02, 0, 5, 0, 0xe8, 0x03, 0, 0,
		0x04, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
		0x08, 0, 2, 0, 55, 0, 0, 0,
		0x10, 0, 7, 0, 0xff, 0xff, 0xff, 0xff,
		0x20, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,
	};
	static const uint8_t disk[] = {
		1, 0, 0, 0,
		0x01, 0, 6, 0,
		0x02, 0, 5, 0, 0xe8, 0x03, 0, 0,
		0x04, 0, 4, 0,
		0x08, 0, 2, 0, 55, 0, 0, 0,
		0x10, 0, 7, 0,
		0x20, 0, 4, 0,
	};
	struct e4_acl_entry e[16], f[16];
	uint8_t out[256], bad[sizeof(vfs)];
	size_t n, m, len;

	(void)state;
	assert_int_equal(e4_acl_from_xattr(vfs, sizeof(vfs), e, 16, &n), 0);
	assert_int_equal(n, 6);
	assert_int_equal(e4_acl_disk_size(e, n), sizeof(disk));
	assert_int_equal(e4_acl_entries_to_disk(e, n, out, &len), 0);
	assert_int_equal(len, sizeof(disk));
	assert_memory_equal(out, disk, sizeof(disk));
	assert_int_equal(e4_acl_from_disk(disk, sizeof(disk), f, 16, &m), 0);
	assert_int_equal(m, n);
	assert_int_equal(e4_acl_entries_to_xattr(f, m, out, &len), 0);
	assert_int_equal(len, sizeof(vfs));
	assert_memory_equal(out, vfs, sizeof(vfs));
	/* wrong version, odd size, no mask with named entries, out of order,
	 * a permission bit beyond rwx, a truncated disk entry */
	memcpy(bad, vfs, sizeof(vfs));
	bad[0] = 1;
	assert_int_equal(e4_acl_from_xattr(bad, sizeof(bad), e, 16, &n), E4_ERR_ACL_INVALID);
	assert_int_equal(e4_acl_from_xattr(vfs, sizeof(vfs) - 4, e, 16, &n), E4_ERR_ACL_INVALID);
	memcpy(bad, vfs, sizeof(vfs));
	bad[36] = 0x20;		/* the mask becomes a second OTHER */
	assert_int_equal(e4_acl_from_xattr(bad, sizeof(bad), e, 16, &n), E4_ERR_ACL_INVALID);
	assert_int_equal(e4_acl_from_xattr(vfs, sizeof(vfs), e, 16, &n), 0);
	f[0] = e[1];
	f[1] = e[0];
	memcpy(f + 2, e + 2, 4 * sizeof(*e));
	assert_int_equal(e4_acl_check(f, 6), E4_ERR_ACL_INVALID);
	e4_acl_sort(f, 6);
	assert_int_equal(e4_acl_check(f, 6), 0);
	f[6] = f[5];		/* a second named user, id below the first's */
	f[5] = f[4];
	f[4] = f[3];
	f[3] = f[2];
	f[2] = (struct e4_acl_entry){ E4_ACL_USER, 1, 999 };
	assert_int_equal(e4_acl_check(f, 7), E4_ERR_ACL_INVALID);
	e4_acl_sort(f, 7);
	assert_int_equal(e4_acl_check(f, 7), 0);
	memcpy(bad, vfs, sizeof(vfs));
	bad[6] = 8;
	assert_int_equal(e4_acl_from_xattr(bad, sizeof(bad), e, 16, &n), E4_ERR_ACL_INVALID);
	assert_int_equal(e4_acl_from_disk(disk, sizeof(disk) - 2, e, 16, &n), E4_ERR_ACL_INVALID);
}

/* ---- directory source ------------------------------------------------------- */

static void dir_order_and_links(void **state)
{
	char out[4096], p1[512], p2[512];

	(void)state;
	newtmp();
	/* created in an order unrelated to the names */
	mk("z", NULL);
	mk("b", "b");
	mk("a.b", "ab");
	mk("A", "A");
	mk("z/y", "y");
	mk("ab", NULL);
	mk("a", "a");
	mk("ab/k", "k");
	snprintf(p1, sizeof(p1), "%s/a", tmp);
	snprintf(p2, sizeof(p2), "%s/z/x", tmp);
	assert_int_equal(link(p1, p2), 0);
	stream(tmp, out, sizeof(out));
	assert_string_equal(out,
		"0:/ 1:A@1/1 2:a@2/2 3:a.b@3/1 4:ab/ 5:b@5/1 6:z/ | "
		"7:ab/k@7/1 | 8:z/x@2/2 9:z/y@9/1 | ");
	rmtmp();
}

static void expect_error(const char *spec, const char *want);

static void dir_limits(void **state)
{
	char seg[300];
	struct pop_opts o = { 0 };
	struct pop_src *s;
	char err[1100];

	(void)state;
	newtmp();
	memset(seg, 'q', 250);
	seg[250] = 0;
	/* 16 levels of 250 bytes: 4015 bytes, fine; a 17th: 4266 */
	assert_int_equal(chdir(tmp), 0);
	for (int i = 0; i < 16; i++) {
		assert_int_equal(mkdir(seg, 0755), 0);
		assert_int_equal(chdir(seg), 0);
	}
	assert_int_equal(chdir("/"), 0);
	assert_int_equal(pop_open(tmp, &o, &s, err, sizeof(err)), 0);
	pop_close(s);
	assert_int_equal(chdir(tmp), 0);
	for (int i = 0; i < 16; i++)
		assert_int_equal(chdir(seg), 0);
	assert_int_equal(mkdir(seg, 0755), 0);
	assert_int_equal(chdir("/"), 0);
	expect_error(tmp, "a path below it is longer than 4095 bytes");
	rmtmp();
}

static int read_all(void *arg, struct pop_src *s, const struct pop_entry *e)
{
	char buf[64];

	(void)arg;
	for (uint32_t i = 0; i < e->nsegs; i++)
		if (pop_read(s, e, e->segs[i].off, buf, e->segs[i].len > 64 ? 64 :
			     (size_t)e->segs[i].len))
			return -1;
	return 0;
}

/* a file that changes between pop_open and the walk: an error naming it */
static void dir_changed(void **state)
{
	struct pop_ops ops = { read_all, NULL };
	struct pop_opts o = { 0 };
	struct pop_src *s;
	char err[1100], p[600], want[700];

	(void)state;
	for (int how = 0; how < 4; how++) {
		newtmp();
		mk("d", NULL);
		mk("d/f", "12345");
		assert_int_equal(pop_open(tmp, &o, &s, err, sizeof(err)), 0);
		snprintf(p, sizeof(p), "%s/d/f", tmp);
		if (how == 0) {
			mk("d/f", "543210");		/* rewritten, grown */
		} else if (how == 2) {
			usleep(10000);			/* a later ctime */
			mk("d/f", "54321");		/* rewritten, the same size */
		} else if (how == 3) {
			/* an attribute where pop_open found none: the walk that
			 * lists only the attributed entries must notice */
			usleep(10000);
			if (setxattr(p, "user.late", "1", 1, 0)) {
				pop_close(s);
				rmtmp();
				continue;	/* no user.* attributes here */
			}
		} else {
			/* another inode (maybe of the same number) and size: the
			 * directory changed */
			assert_int_equal(unlink(p), 0);
			mk("d/f", "54321");
			p[strlen(p) - 2] = 0;
		}
		assert_int_equal(pop_walk(s, &ops, NULL), -1);
		snprintf(want, sizeof(want), "%s: changed while being read", p);
		if (!strstr(pop_error(s), want))
			fail_msg("'%s' lacks '%s'", pop_error(s), want);
		pop_close(s);
		rmtmp();
	}
}

static int64_t ids_of(const char *spec, int64_t epoch, const char *opt, uint8_t uuid[16])
{
	struct pop_opts o = { .default_time = 0 };
	char *opts[1] = { (char *)opt };
	uint8_t seed[16];
	struct pop_src *s;
	char err[1100];

	if (pop_open(spec, &o, &s, err, sizeof(err)))
		fail_msg("pop_open %s: %s", spec, err);
	assert_int_equal(pop_repro_ids(s, epoch, 1, opts, uuid, seed), 0);
	assert_memory_not_equal(uuid, seed, 16);
	pop_close(s);
	return 0;
}

/* a small tree, created in name order or the reverse, the same times */
static void build(int reverse, const char *gdata)
{
	static const char *const fwd[] = { "d", "d/one", "d/two", "f", "g" };
	static const char *const rev[] = { "g", "f", "d", "d/two", "d/one" };
	const char *const *names = reverse ? rev : fwd;

	newtmp();
	for (int i = 0; i < 5; i++)
		mk(names[i], !strcmp(names[i], "d") ? NULL :
			     !strcmp(names[i], "g") ? gdata : names[i]);
	for (int i = 0; i < 5; i++)
		settime(fwd[4 - i], 1000000000 + i);
	settime(".", 999);
}

static void repro_ids(void **state)
{
	uint8_t u1[16], u2[16], u3[16], u4[16], u5[16];
	char t1[256];

	(void)state;
	build(0, "data g");
	strcpy(t1, tmp);
	ids_of(t1, 1500000000, "-O^metadata_csum", u1);
	build(1, "data g");
	ids_of(tmp, 1500000000, "-O^metadata_csum", u2);
	assert_memory_equal(u1, u2, 16);	/* creation order, inodes: nothing */
	assert_int_equal(u1[6] >> 4, 8);	/* version 8 */
	assert_int_equal(u1[8] >> 6, 2);	/* variant */
	ids_of(tmp, 1500000001, "-O^metadata_csum", u3);
	assert_memory_not_equal(u1, u3, 16);	/* the epoch counts */
	ids_of(tmp, 1500000000, "-O^has_journal", u4);
	assert_memory_not_equal(u1, u4, 16);	/* the options count */
	rmtmp();
	build(1, "data h");			/* one byte */
	ids_of(tmp, 1500000000, "-O^metadata_csum", u5);
	assert_memory_not_equal(u1, u5, 16);
	rmtmp();
	/* the same bytes elsewhere in a sparse file */
	for (int k = 0; k < 2; k++) {
		char p[512];
		int fd;

		build(0, "");
		snprintf(p, sizeof(p), "%s/g", tmp);
		fd = open(p, O_WRONLY);
		assert_int_equal(pwrite(fd, "x", 1, k ? 65536 : 0), 1);
		assert_int_equal(ftruncate(fd, 131072), 0);
		close(fd);
		settime("g", 1000000000);
		ids_of(tmp, 1500000000, "-O^metadata_csum", k ? u5 : u4);
		rmtmp();
	}
	assert_memory_not_equal(u4, u5, 16);
	strcpy(tmp, t1);
	rmtmp();
}

static void repro_times(void **state)
{
	struct pop_entry e = { 0 };

	(void)state;
	e.mtime = (struct pop_time){ 100, 5 };
	e.atime = (struct pop_time){ 300, 0 };
	e.ctime = (struct pop_time){ 50, 0 };
	pop_repro_times(&e, 200);
	assert_int_equal(e.mtime.sec, 100);
	assert_int_equal(e.mtime.nsec, 5);
	assert_int_equal(e.atime.sec, 100);
	assert_int_equal(e.ctime.sec, 100);
	assert_int_equal(e.crtime.nsec, 5);
	e.mtime = (struct pop_time){ 200, 1 };	/* later than the epoch by 1 ns */
	pop_repro_times(&e, 200);
	assert_int_equal(e.mtime.sec, 200);
	assert_int_equal(e.mtime.nsec, 0);
	assert_int_equal(e.atime.nsec, 0);
}

/* ---- archives ----------------------------------------------------------------- */

struct member {
	const char *path;
	int type;		/* AE_IF*; 0: a hard link to link */
	const char *data;
	const char *link;
};

static void mktar(const char *path, const struct member *m)
{
	struct archive *a = archive_write_new();

	assert_non_null(a);
	assert_int_equal(archive_write_set_format_pax_restricted(a), ARCHIVE_OK);
	assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
	for (; m->path; m++) {
		struct archive_entry *e = archive_entry_new();

		archive_entry_set_pathname(e, m->path);
		archive_entry_set_mtime(e, 1234, 0);
		archive_entry_set_filetype(e, m->type ? (unsigned)m->type : AE_IFREG);
		archive_entry_set_perm(e, m->type == AE_IFDIR ? 0700 : 0640);
		if (!m->type)
			archive_entry_set_hardlink(e, m->link);
		else if (m->type == AE_IFLNK)
			archive_entry_set_symlink(e, m->link);
		archive_entry_set_size(e, m->data ? (la_int64_t)strlen(m->data) : 0);
		assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
		if (m->data)
			assert_int_equal(archive_write_data(a, m->data, strlen(m->data)),
					 (la_ssize_t)strlen(m->data));
		archive_entry_free(e);
	}
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
}

static void tar_members(void **state)
{
	static const struct member m[] = {
		{ "./", AE_IFDIR, NULL, NULL },
		{ "./a/b/c", AE_IFREG, "cc", NULL },
		{ "x", AE_IFREG, "old", NULL },
		{ "/h", 0, NULL, "a/b/c" },
		{ "x", AE_IFREG, "new!", NULL },
		{ "a/./l", AE_IFLNK, NULL, "../x" },
		{ "h2", 0, NULL, "h" },		/* a link to a link: the same inode */
		{ NULL, 0, NULL, NULL },
	};
	char path[300], out[4096];

	(void)state;
	newtmp();
	snprintf(path, sizeof(path), "%s/t.tar", tmp);
	mktar(path, m);
	stream(path, out, sizeof(out));
	assert_string_equal(out, "0:/ 1:a/ 2:h@2/3 3:h2@2/3 4:x@4/1 | 5:a/b/ 6:a/l@6/1 | "
			    "7:a/b/c@2/3 | ");
	rmtmp();
}

static int first_dir_check(void *arg, struct pop_src *s, const struct pop_entry *e)
{
	char buf[8];

	(void)arg;
	if (e->index == 1) {	/* a/, implied */
		assert_int_equal(e->mode, 0755);
		assert_int_equal(e->uid, 0);
		assert_int_equal(e->mtime.sec, 777);
	}
	if (e->index == 3) {	/* x: the later member's data */
		assert_int_equal(e->size, 4);
		assert_int_equal(pop_read(s, e, 0, buf, 4), 0);
		assert_memory_equal(buf, "new!", 4);
		assert_int_equal(e->mode, 0640);
	}
	if (e->index == 2) {	/* h: the inode of a/b/c, its data */
		assert_int_equal(e->nsegs, 1);
		assert_int_equal(pop_read(s, e, 0, buf, 2), 0);
		assert_memory_equal(buf, "cc", 2);
		assert_int_not_equal(pop_read(s, e, 1, buf, 2), 0);	/* past its data */
	}
	return 0;
}

static void tar_member_details(void **state)
{
	static const struct member m[] = {
		{ "./a/b/c", AE_IFREG, "cc", NULL },
		{ "x", AE_IFREG, "old", NULL },
		{ "/h", 0, NULL, "a/b/c" },
		{ "x", AE_IFREG, "new!", NULL },
		{ NULL, 0, NULL, NULL },
	};
	struct pop_ops ops = { first_dir_check, NULL };
	struct pop_opts o = { .default_time = 777 };
	char path[300], err[1100];
	struct pop_src *s;

	(void)state;
	newtmp();
	snprintf(path, sizeof(path), "%s/t.tar", tmp);
	mktar(path, m);
	assert_int_equal(pop_open(path, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(pop_walk(s, &ops, NULL), 0);
	assert_int_equal(pop_count(s), 6);		/* root, a, a/b, a/b/c, x, h */
	assert_int_equal(pop_data_bytes(s), 6);	/* "cc" once, "new!" */
	pop_close(s);
	rmtmp();
}

/* one member with an ACL given through libarchive's list (SCHILY.acl.*) */
static void mktar_acl(const char *path, const char *uname)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();

	assert_int_equal(archive_write_set_format_pax(a), ARCHIVE_OK);
	assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
	archive_entry_set_pathname(e, "f");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0640);
	archive_entry_set_size(e, 0);
	archive_entry_acl_add_entry(e, ARCHIVE_ENTRY_ACL_TYPE_ACCESS, ARCHIVE_ENTRY_ACL_READ |
				    ARCHIVE_ENTRY_ACL_EXECUTE, ARCHIVE_ENTRY_ACL_USER,
				    uname ? -1 : 70000, uname);
	archive_entry_acl_add_entry(e, ARCHIVE_ENTRY_ACL_TYPE_ACCESS, ARCHIVE_ENTRY_ACL_READ |
				    ARCHIVE_ENTRY_ACL_WRITE | ARCHIVE_ENTRY_ACL_EXECUTE,
				    ARCHIVE_ENTRY_ACL_MASK, -1, NULL);
	assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
	archive_entry_free(e);
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
}

static int acl_check(void *arg, struct pop_src *s, const struct pop_entry *e)
{
	/* user::rw- user:70000:r-x group::r-- mask::rwx other::---, ext4's */
	static const uint8_t want[] = {
		1, 0, 0, 0, 0x01, 0, 6, 0, 0x02, 0, 5, 0, 0x70, 0x11, 1, 0,
		0x04, 0, 4, 0, 0x10, 0, 7, 0, 0x20, 0, 0, 0,
	};

	(void)s;
	if (e->index != 1)
		return 0;
	*(int *)arg = 1;
	assert_int_equal(e->nxattrs, 1);
	assert_string_equal(e->xattrs[0].name, "system.posix_acl_access");
	assert_int_equal(e->xattrs[0].len, sizeof(want));
	assert_memory_equal(e->xattrs[0].value, want, sizeof(want));
	assert_int_equal(e->mode, 0670);	/* group bits: the mask's */
	return 0;
}

static void tar_acl_list(void **state)
{
	struct pop_ops ops = { acl_check, NULL };
	struct pop_opts o = { 0 };
	char path[300], err[1100];
	struct pop_src *s;
	int seen = 0;

	(void)state;
	newtmp();
	snprintf(path, sizeof(path), "%s/t.tar", tmp);
	mktar_acl(path, NULL);
	assert_int_equal(pop_open(path, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(pop_walk(s, &ops, &seen), 0);
	assert_int_equal(seen, 1);
	pop_close(s);
	mktar_acl(path, "someone");	/* a name, no id: not this host's guess */
	expect_error(path, "member f: system.posix_acl_access: ACL entry for user 'someone' "
		     "has no numeric id");
	rmtmp();
}

static void expect_error(const char *spec, const char *want)
{
	struct pop_opts o = { .default_time = 0 };
	struct pop_src *s = NULL;
	char err[1100];

	assert_int_not_equal(pop_open(spec, &o, &s, err, sizeof(err)), 0);
	assert_null(s);
	if (!strstr(err, want))
		fail_msg("error '%s' lacks '%s'", err, want);
}

static void tar_errors(void **state)
{
	static const struct member dotdot[] = {
		{ "ok", AE_IFREG, "1", NULL },
		{ "a/../../evil", AE_IFREG, "x", NULL },
		{ NULL, 0, NULL, NULL },
	};
	static const struct member notdir[] = {
		{ "f", AE_IFREG, "1", NULL },
		{ "f/g", AE_IFREG, "x", NULL },
		{ NULL, 0, NULL, NULL },
	};
	static const struct member dangling[] = {
		{ "h", 0, NULL, "nowhere" },
		{ NULL, 0, NULL, NULL },
	};
	char path[300], want[400];
	int fd;

	(void)state;
	newtmp();
	snprintf(path, sizeof(path), "%s/t.tar", tmp);
	mktar(path, dotdot);
	snprintf(want, sizeof(want), "%s: member a/../../evil: path with a \"..\"", path);
	expect_error(path, want);
	mktar(path, notdir);
	expect_error(path, "member f/g: f is not a directory");
	mktar(path, dangling);
	expect_error(path, "member h: hard link to nowhere, which is not in the archive");
	/* garbage, and a truncated archive */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "this is not a tar archive, not at all....", 41), 41);
	close(fd);
	expect_error(path, path);
	mktar(path, dotdot);
	assert_int_equal(truncate(path, 700), 0);
	expect_error(path, "t.tar: member ok: ");
	mktar(path, dotdot);			/* the next header cut */
	assert_int_equal(truncate(path, 1300), 0);
	expect_error(path, "t.tar: after member ok: ");
	{	/* a name of 256 bytes; a path of 4096 */
		static char longname[300], longpath[4200];
		const struct member ln[] = {
			{ longname, AE_IFREG, "1", NULL },
			{ NULL, 0, NULL, NULL },
		};
		const struct member lp[] = {
			{ longpath, AE_IFREG, "1", NULL },
			{ NULL, 0, NULL, NULL },
		};

		memset(longname, 'n', 256);
		mktar(path, ln);
		expect_error(path, "a name longer than 255 bytes");
		/* 16 components of 254 bytes (4079 with the slashes), then one of
		 * 16: 4096 bytes */
		for (int i = 0; i < 16; i++) {
			memset(longpath + 255 * i, 'p', 254);
			longpath[255 * i + 254] = '/';
		}
		memset(longpath + 255 * 16, 'r', 16);
		longpath[4096] = 0;
		mktar(path, lp);
		expect_error(path, "path longer than 4095 bytes");
		longpath[4095] = 0;	/* 4095: fine */
		mktar(path, lp);
		stream(path, want, 1);
	}
	snprintf(path, sizeof(path), "%s/missing", tmp);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	expect_error(path, want);
	rmtmp();
}

/* ---- size estimate ------------------------------------------------------------ */

static const struct pop_fsparams P4K = {
	.block_size = 4096, .cluster_size = 4096, .inode_size = 256, .extents = 1,
	.metadata_csum = 1, .dir_index = 1, .dir_slack_pct = 0,
};

static struct pop_entry file(uint32_t idx, const struct pop_seg *segs, uint32_t n, uint64_t size)
{
	struct pop_entry e = { 0 };

	e.index = e.link_group = idx;
	e.type = POP_REG;
	e.name = "f";
	e.name_len = 1;
	e.segs = segs;
	e.nsegs = n;
	e.size = size;
	e.nlink = 1;
	return e;
}

static void estimate_files(void **state)
{
	struct pop_seg one = { 0, 5000 }, far[6], bm[2] = { { 0, 4096 * 13 }, { 4096 * 1036, 1 } };
	struct pop_fsparams p = P4K;
	struct pop_estimate est;
	struct pop_entry e;

	(void)state;
	pop_est_init(&est);
	e = file(1, &one, 1, 5000);
	pop_est_entry(&est, &p, &e);
	assert_int_equal(est.data_blocks, 2);
	assert_int_equal(est.map_blocks, 0);
	assert_int_equal(est.inodes, 1);
	/* six runs far apart: six extents, one leaf block */
	for (int i = 0; i < 6; i++)
		far[i] = (struct pop_seg){ (uint64_t)i * 1048576, 100 };
	pop_est_init(&est);
	e = file(2, far, 6, 6 * 1048576);
	pop_est_entry(&est, &p, &e);
	assert_int_equal(est.data_blocks, 6);
	assert_int_equal(est.map_blocks, 1);
	/* two runs in one block: one block */
	far[1] = (struct pop_seg){ 200, 100 };
	pop_est_init(&est);
	e = file(2, far, 2, 300);
	pop_est_entry(&est, &p, &e);
	assert_int_equal(est.data_blocks, 1);
	/* block map: blocks 0..12 and 1036: an indirect block for 12, the
	 * double-indirect one and its first indirect block for 1036 */
	p.extents = 0;
	pop_est_init(&est);
	e = file(3, bm, 2, 4096 * 1036 + 1);
	pop_est_entry(&est, &p, &e);
	assert_int_equal(est.data_blocks, 14);
	assert_int_equal(est.map_blocks, 3);
	/* two runs under one indirect block: it counts once */
	bm[0] = (struct pop_seg){ 4096 * 20, 4096 };
	bm[1] = (struct pop_seg){ 4096 * 30, 4096 };
	pop_est_init(&est);
	e = file(3, bm, 2, 4096 * 31);
	pop_est_entry(&est, &p, &e);
	assert_int_equal(est.data_blocks, 2);
	assert_int_equal(est.map_blocks, 1);
	/* a later hard link: nothing more */
	e.index = 9;
	pop_est_entry(&est, &p, &e);
	assert_int_equal(est.data_blocks, 2);
	assert_int_equal(est.inodes, 1);
	/* bigalloc: 16-block clusters */
	p = P4K;
	p.cluster_size = 65536;
	pop_est_init(&est);
	e = file(1, &one, 1, 5000);
	pop_est_entry(&est, &p, &e);
	assert_int_equal(est.data_blocks, 16);
	/* inline data */
	p = P4K;
	p.inline_data = 1;
	one.len = 60;
	pop_est_init(&est);
	e = file(1, &one, 1, 60);
	pop_est_entry(&est, &p, &e);
	assert_int_equal(est.data_blocks, 0);
}

static void estimate_other(void **state)
{
	struct pop_estimate est;
	struct pop_entry e = { 0 };
	struct pop_xattr small = { "user.a", (const uint8_t *)"1234", 4 };
	static uint8_t big[3000];
	struct pop_xattr xbig[2] = { { "user.a", big, 3000 }, { "trusted.b", big, 1000 } };
	char name[21];

	(void)state;
	pop_est_init(&est);
	e.type = POP_SYMLINK;
	e.index = e.link_group = 1;
	e.name = "s";
	e.name_len = 1;
	e.target = "x";
	e.target_len = 59;
	pop_est_entry(&est, &P4K, &e);
	assert_int_equal(est.symlink_blocks, 0);	/* fast */
	e.target_len = 60;
	pop_est_entry(&est, &P4K, &e);
	assert_int_equal(est.symlink_blocks, 1);
	e.type = POP_FIFO;
	e.xattrs = &small;
	e.nxattrs = 1;
	pop_est_entry(&est, &P4K, &e);
	assert_int_equal(est.xattr_blocks, 0);		/* in the inode */
	e.xattrs = xbig;
	e.nxattrs = 2;
	pop_est_entry(&est, &P4K, &e);
	assert_int_equal(est.xattr_blocks, 1);		/* 4,044 bytes: one block */
	xbig[1].len = 1100;
	pop_est_entry(&est, &P4K, &e);
	assert_int_equal(est.xattr_blocks, 3);		/* 4,144: more than a block */
	/* a directory of 1000 20-byte names: 28-byte records; leaves of
	 * 4084 bytes less the largest record: 7, and the htree root */
	pop_est_init(&est);
	memset(name, 'n', 20);
	e = (struct pop_entry){ 0 };
	e.type = POP_REG;
	e.name = name;
	e.name_len = 20;
	for (uint32_t i = 1; i <= 1000; i++) {
		e.index = e.link_group = i;
		pop_est_entry(&est, &P4K, &e);
	}
	pop_est_dir_end(&est, &P4K);
	assert_int_equal(est.dir_blocks, 8);
	assert_int_equal(est.inodes, 1000);
	pop_est_dir_end(&est, &P4K);			/* an empty one: a block */
	assert_int_equal(est.dir_blocks, 9);
}

static void fit_size(void **state)
{
	struct pop_estimate est;
	struct e4_layout_opts o;
	struct e4_layout *l;
	uint64_t b10, b50;
	uint32_t ino;

	(void)state;
	pop_est_init(&est);
	est.data_blocks = 10000;
	est.inodes = 30000;		/* more than the ratio gives */
	e4_layout_opts_init(&o);
	o.fs_type = "ext4";
	assert_int_equal(pop_fit_size(&est, &P4K, 10, &o, &b10, &ino), 0);
	assert_true(ino >= 33000);
	o.blocks_count = b10;
	o.block_size = 4096;
	o.inodes_count = ino;
	assert_int_equal(e4_layout_compute(&o, &l), 0);
	assert_true(l->free_blocks_count - l->r_blocks_count >= 11000);
	assert_true(l->free_inodes_count >= 33000);
	e4_layout_free(l);
	/* and not much more: metadata, journal, reserve of a 60 MiB image */
	assert_true(b10 < 11000 * 13 / 10 + 4096 + 8192);
	e4_layout_opts_init(&o);
	o.fs_type = "ext4";
	assert_int_equal(pop_fit_size(&est, &P4K, 50, &o, &b50, &ino), 0);
	assert_true(b50 > b10);
	assert_int_equal(pop_parse_margin("25", &(unsigned){ 0 }), 0);
	assert_int_not_equal(pop_parse_margin("-1", &(unsigned){ 0 }), 0);
	assert_int_not_equal(pop_parse_margin("10%", &(unsigned){ 0 }), 0);
	assert_int_not_equal(pop_parse_margin("1001", &(unsigned){ 0 }), 0);
}

static void estimate_walk(void **state)
{
	struct pop_fsparams p = P4K;
	struct pop_estimate est;
	struct pop_opts o = { 0 };
	struct pop_src *s;
	char err[1100];

	(void)state;
	newtmp();
	mk("d", NULL);
	mk("d/f", "hello");
	mk("g", "");
	assert_int_equal(pop_open(tmp, &o, &s, err, sizeof(err)), 0);
	assert_int_equal(pop_estimate(s, &p, &est), 0);
	assert_int_equal(pop_data_bytes(s), 5);
	assert_int_equal(est.inodes, 3);
	assert_int_equal(est.data_blocks, 1);
	assert_int_equal(est.dir_blocks, 2);		/* the root and d */
	pop_close(s);
	rmtmp();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sha256_vectors),
		cmocka_unit_test(acl_encodings),
		cmocka_unit_test(dir_order_and_links),
		cmocka_unit_test(dir_limits),
		cmocka_unit_test(dir_changed),
		cmocka_unit_test(repro_ids),
		cmocka_unit_test(repro_times),
		cmocka_unit_test(tar_members),
		cmocka_unit_test(tar_member_details),
		cmocka_unit_test(tar_errors),
		cmocka_unit_test(tar_acl_list),
		cmocka_unit_test(estimate_files),
		cmocka_unit_test(estimate_other),
		cmocka_unit_test(fit_size),
		cmocka_unit_test(estimate_walk),
	};

	e4_init_errors();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
