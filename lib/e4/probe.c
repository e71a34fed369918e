/*
 * probe.c: what is on a target before formatting it (libblkid, sysfs,
 * /proc/self/mountinfo), and the destructive helpers e4mkfs runs before
 * writing: wiping signatures, discarding and zeroing ranges (see e4.h,
 * "probe").
 */
#include "e4_private.h"

#include <blkid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static errcode_t sys_err(void)
{
	return errno ? (errcode_t)errno : EIO;
}

/* Copy what blkid read from the device (a label can hold any bytes):
 * control characters become '?', so that a message stays one line and
 * cannot drive the terminal. */
static void copy_str(char *dst, size_t len, const char *src)
{
	if (!len)
		return;
	snprintf(dst, len, "%s", src ? src : "");
	for (char *c = dst; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
}

/* mountinfo writes a space, tab, newline and backslash in a path as a
 * backslash and three octal digits: undo that, in place. */
static void unescape_mountinfo(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = 0;
}

/* Is block device dev (major:minor) mounted?  Looks at mountinfo's
 * major:minor column.  Fills what, and p's mount_dir and mount_dev. */
static int dev_mounted(dev_t dev, char *what, size_t len, struct e4_probe *p)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[4096];
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned maj, min;
		char mnt[2048];

		if (sscanf(line, "%*u %*u %u:%u %*s %2047s", &maj, &min, mnt) == 3 &&
		    maj == major(dev) && min == minor(dev)) {
			snprintf(what, len, "mounted on %.200s", mnt);
			unescape_mountinfo(mnt);
			/* a longer path is left out: no mount_dir rather than a wrong one */
			if (strlen(mnt) < sizeof(p->mount_dir))
				memcpy(p->mount_dir, mnt, strlen(mnt) + 1);
			p->mount_dev = (uint64_t)dev;
			found = 1;
		}
	}
	fclose(f);
	return found;
}

/* The file a loop device is bound to (LOOP_GET_STATUS64's lo_device and
 * lo_inode: the file itself, whatever path or mount namespace it was
 * attached through).  0 and *file set, or -1 when fd is no bound loop. */
static int loop_backing(int fd, dev_t *fdev, ino_t *fino)
{
	struct loop_info64 li;

	memset(&li, 0, sizeof(li));
	if (ioctl(fd, LOOP_GET_STATUS64, &li) < 0)
		return -1;
	*fdev = (dev_t)li.lo_device;
	*fino = (ino_t)li.lo_inode;
	return 0;
}

int e4_loop_backing_open(int fd)
{
	char path[80], back[4096];
	struct stat st, bst;
	dev_t fdev;
	ino_t fino;
	FILE *f;
	int bfd;

	if (fstat(fd, &st) || !S_ISBLK(st.st_mode) || loop_backing(fd, &fdev, &fino))
		return -1;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/loop/backing_file",
		 major(st.st_rdev), minor(st.st_rdev));
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(back, sizeof(back), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	back[strcspn(back, "\n")] = 0;
	bfd = open(back, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (bfd < 0)
		return -1;
	/* the path as this namespace sees it: the same file, or nothing */
	if (fstat(bfd, &bst) || !S_ISREG(bst.st_mode) || bst.st_dev != fdev ||
	    bst.st_ino != fino) {
		close(bfd);
		return -1;
	}
	return bfd;
}

/* Every loop device bound to the file (fdev, fino) other than the block
 * device skip (0: none): one that is mounted (this namespace's
 * mountinfo) or held open exclusively (mounted in another namespace, a
 * RAID or LVM member) makes the file busy: what says how, naming the
 * loop device.  Returns 1 when busy. */
static int loops_of_file_busy(dev_t fdev, ino_t fino, dev_t skip, char *what, size_t len,
			      struct e4_probe *p)
{
	DIR *d = opendir("/sys/block");
	struct dirent *de;
	int found = 0;

	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		char devpath[300], m[300];
		struct stat dst;
		dev_t bdev;
		ino_t bino;
		int fd, efd;

		if (strncmp(de->d_name, "loop", 4))
			continue;
		snprintf(devpath, sizeof(devpath), "/dev/%.200s", de->d_name);
		if (stat(devpath, &dst) || !S_ISBLK(dst.st_mode) || dst.st_rdev == skip)
			continue;
		fd = open(devpath, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (loop_backing(fd, &bdev, &bino) || bdev != fdev || bino != fino) {
			close(fd);
			continue;
		}
		close(fd);
		if (dev_mounted(dst.st_rdev, m, sizeof(m), p)) {
			snprintf(what, len, "mounted through %.40s %.150s", devpath, m + 8);	/* "on DIR" */
			snprintf(p->loop_dev, sizeof(p->loop_dev), "%.60s", devpath);
			found = 1;
			continue;
		}
		efd = open(devpath, O_RDONLY | O_EXCL | O_NONBLOCK | O_CLOEXEC);
		if (efd < 0 && errno == EBUSY) {
			snprintf(what, len, "held open exclusively through %.40s: mounted in "
				 "another mount namespace, or a RAID or LVM member", devpath);
			found = 1;
		}
		if (efd >= 0)
			close(efd);
	}
	closedir(d);
	return found;
}

static void probe_topology(blkid_probe pr, struct e4_probe *p)
{
	blkid_topology tp = blkid_probe_get_topology(pr);

	if (!tp)
		return;
	p->minimum_io = blkid_topology_get_minimum_io_size(tp);
	p->optimal_io = blkid_topology_get_optimal_io_size(tp);
	p->alignment_offset = blkid_topology_get_alignment_offset(tp);
	p->logical_sector = (unsigned)blkid_topology_get_logical_sector_size(tp);
	p->physical_sector = (unsigned)blkid_topology_get_physical_sector_size(tp);
}

static void probe_signatures(int fd, uint64_t offset, struct e4_probe *p)
{
	blkid_probe pr = blkid_new_probe();
	const char *v;

	if (!pr)
		return;
	if (blkid_probe_set_device(pr, fd, (blkid_loff_t)offset, 0) == 0) {
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE |
						  BLKID_SUBLKS_LABEL | BLKID_SUBLKS_UUID);
		blkid_probe_enable_partitions(pr, 1);
		blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
		if (p->is_blockdev)
			blkid_probe_enable_topology(pr, 1);
		if (blkid_do_fullprobe(pr) == 0) {
			if (blkid_probe_lookup_value(pr, "TYPE", &v, NULL) == 0) {
				copy_str(p->type, sizeof(p->type), v);
				if (blkid_probe_lookup_value(pr, "USAGE", &v, NULL) == 0)
					copy_str(p->usage, sizeof(p->usage), v);
				if (blkid_probe_lookup_value(pr, "LABEL", &v, NULL) == 0)
					copy_str(p->label, sizeof(p->label), v);
				if (blkid_probe_lookup_value(pr, "UUID", &v, NULL) == 0)
					copy_str(p->uuid, sizeof(p->uuid), v);
			} else if (blkid_probe_lookup_value(pr, "PTTYPE", &v, NULL) == 0) {
				copy_str(p->type, sizeof(p->type), v);
				copy_str(p->usage, sizeof(p->usage), "partition table");
			}
		}
		if (p->is_blockdev)
			probe_topology(pr, p);
	}
	blkid_free_probe(pr);
}

errcode_t e4_probe_device(const char *path, struct e4_probe *p)
{
	return e4_probe_device_at(path, 0, p);
}

errcode_t e4_probe_device_at(const char *path, uint64_t offset, struct e4_probe *p)
{
	struct stat st;
	dev_t fdev;
	ino_t fino;
	int fd;

	memset(p, 0, sizeof(*p));
	if (stat(path, &st) < 0)
		return sys_err();
	p->is_blockdev = S_ISBLK(st.st_mode);
	p->is_regular = S_ISREG(st.st_mode);
	if (!p->is_blockdev && !p->is_regular)
		return S_ISDIR(st.st_mode) ? EISDIR : ENOTBLK;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sys_err();
	if (p->is_blockdev) {
		uint64_t bytes = 0;

		if (ioctl(fd, BLKGETSIZE64, &bytes) < 0) {
			errcode_t err = sys_err();

			close(fd);
			return err;
		}
		p->size = bytes;
		if (dev_mounted(st.st_rdev, p->busy_what, sizeof(p->busy_what), p)) {
			p->busy = 1;
		} else {
			/* an exclusive opener (mounted elsewhere, RAID, LVM) */
			int efd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC);

			if (efd < 0 && errno == EBUSY) {
				p->busy = 1;
				copy_str(p->busy_what, sizeof(p->busy_what),
					 "held open exclusively by another user (mounted, or part of a RAID or LVM set)");
			}
			if (efd >= 0)
				close(efd);
		}
		/* a loop device: the other loop devices bound to its file */
		if (!p->busy && !loop_backing(fd, &fdev, &fino))
			p->busy = loops_of_file_busy(fdev, fino, st.st_rdev, p->busy_what,
						     sizeof(p->busy_what), p);
	} else {
		p->size = (uint64_t)st.st_size;
		p->discard_zeroes = 1;
		p->busy = loops_of_file_busy(st.st_dev, st.st_ino, 0, p->busy_what,
					     sizeof(p->busy_what), p);
		/* a fresh sparse image: no data anywhere (where SEEK_DATA is not
		 * supported it reports data at 0, and the probe runs) */
		p->all_holes = !p->size || offset >= p->size ||
			       (lseek(fd, (off_t)offset, SEEK_DATA) < 0 && errno == ENXIO);
	}
	if (p->size > offset && !p->all_holes)
		probe_signatures(fd, offset, p);
	close(fd);
	return 0;
}

void e4_probe_describe(const struct e4_probe *p, char *buf, size_t len)
{
	const char *u = p->usage;
	const char *art;
	char what[96];

	if (!len)
		return;
	buf[0] = 0;
	if (!p->type[0])
		return;
	if (!strcmp(u, "filesystem"))
		snprintf(what, sizeof(what), "%s filesystem", p->type);
	else if (!strcmp(u, "raid"))
		snprintf(what, sizeof(what), "%s RAID member signature", p->type);
	else if (!strcmp(u, "partition table"))
		snprintf(what, sizeof(what), "%s partition table", p->type);
	else if (!strcmp(u, "crypto"))
		snprintf(what, sizeof(what), "%s encrypted volume", p->type);
	else if (u[0])
		snprintf(what, sizeof(what), "%s signature (%s)", p->type, u);
	else
		snprintf(what, sizeof(what), "%s signature", p->type);
	art = strchr("aeiouxAEIOUX", what[0]) ? "an" : "a";	/* "an xfs" */
	if (p->label[0])
		snprintf(buf, len, "%s %s labelled %s", art, what, p->label);
	else
		snprintf(buf, len, "%s %s", art, what);
}

errcode_t e4_probe_wipe(int fd)
{
	blkid_probe pr = blkid_new_probe();
	errcode_t err = 0;
	int rounds = 0;

	if (!pr)
		return E4_ERR_NO_MEMORY;
	if (blkid_probe_set_device(pr, fd, 0, 0)) {
		blkid_free_probe(pr);
		return EINVAL;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_MAGIC | BLKID_SUBLKS_BADCSUM);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
	/* each wipe makes the next probe find the next signature */
	while (rounds++ < 256 && blkid_do_probe(pr) == 0) {
		if (blkid_do_wipe(pr, 0)) {
			err = sys_err();
			break;
		}
	}
	blkid_free_probe(pr);
	return err;
}

errcode_t e4_dev_discard(int fd, int is_blockdev, uint64_t off, uint64_t len)
{
	if (!len)
		return 0;
	if (is_blockdev) {
		uint64_t r[2] = { off, len };

		if (ioctl(fd, BLKDISCARD, &r) < 0)
			return sys_err();
		return 0;
	}
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) < 0)
		return sys_err();
	return 0;
}

errcode_t e4_dev_zero(int fd, int is_blockdev, uint64_t off, uint64_t len)
{
	static const size_t chunk = 1 << 20;
	uint8_t *buf;

	if (!len)
		return 0;
	if (is_blockdev) {
		uint64_t r[2] = { off, len };

		if (ioctl(fd, BLKZEROOUT, &r) == 0)
			return 0;
	} else {
		if (fallocate(fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, (off_t)off,
			      (off_t)len) == 0)
			return 0;
		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
			      (off_t)len) == 0)
			return 0;
	}
	buf = calloc(1, chunk);
	if (!buf)
		return E4_ERR_NO_MEMORY;
	while (len) {
		size_t n = len < chunk ? (size_t)len : chunk;
		ssize_t w = pwrite(fd, buf, n, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			errcode_t err = w < 0 ? sys_err() : E4_ERR_SHORT_WRITE;

			free(buf);
			return err;
		}
		off += (uint64_t)w;
		len -= (uint64_t)w;
	}
	free(buf);
	return 0;
}
