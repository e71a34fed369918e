/*
 * online.c: changing a mounted filesystem's superblock through the
 * kernel, never by writing to the device under it (the kernel would write
 * its own copy back, and through a loop device the change to the image
 * file is lost at unmount).  Linux's ioctls on any file of the mount:
 * FS_IOC_SETFSLABEL (5.5), EXT4_IOC_SETFSUUID (6.0), EXT4_IOC_CHECKPOINT
 * (5.13), EXT4_IOC_GET/SET_TUNE_SB_PARAM (6.18).  Their layouts are the
 * kernel's user ABI, restated here (not every libc ships them yet).
 */
#include "e4_private.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

_Static_assert(sizeof(struct e4_tune_sb_params) == 232, "EXT4_IOC_*_TUNE_SB_PARAM layout");
_Static_assert(offsetof(struct e4_tune_sb_params, mount_opts) == 100, "mount_opts offset");

/* struct fsuuid: length, flags, then the UUID bytes (the ioctl number
 * is made with the 8-byte header) */
struct e4_fsuuid_hdr {
	uint32_t fsu_len;
	uint32_t fsu_flags;
};
struct e4_fsuuid16 {
	uint32_t fsu_len;
	uint32_t fsu_flags;
	uint8_t fsu_uuid[16];
};

#define E4_IOC_CHECKPOINT		_IOW('f', 43, uint32_t)
#define E4_IOC_SETFSUUID		_IOW('f', 44, struct e4_fsuuid_hdr)
#define E4_IOC_GET_TUNE_SB_PARAM	_IOR('f', 45, struct e4_tune_sb_params)
#define E4_IOC_SET_TUNE_SB_PARAM	_IOW('f', 46, struct e4_tune_sb_params)
#ifndef FS_IOC_SETFSLABEL
#define FS_IOC_SETFSLABEL		_IOW(0x94, 50, char[256])
#endif

static errcode_t sys_err(void)
{
	return errno ? (errcode_t)errno : EIO;
}

errcode_t e4_online_open(const char *mount_dir, uint64_t dev, int *fd)
{
	struct stat st;
	int f = open(mount_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (f < 0)
		return sys_err();
	/* the directory must be on that device: not a mount stacked over it
	 * or one seen through another namespace */
	if (fstat(f, &st) < 0 || (uint64_t)st.st_dev != dev) {
		close(f);
		return E4_ERR_MOUNT_MISMATCH;
	}
	*fd = f;
	return 0;
}

errcode_t e4_online_get(int fd, struct e4_tune_sb_params *p)
{
	memset(p, 0, sizeof(*p));
	if (ioctl(fd, E4_IOC_GET_TUNE_SB_PARAM, p) < 0)
		return sys_err();
	return 0;
}

errcode_t e4_online_set(int fd, const struct e4_tune_sb_params *p)
{
	struct e4_tune_sb_params c = *p;

	/* the kernel copies mount_opts whatever set_flags says: it must be
	 * the string wanted, NUL-terminated */
	if (memchr(c.mount_opts, 0, sizeof(c.mount_opts)) == NULL)
		return E4_ERR_INVALID_ARGUMENT;
	if (ioctl(fd, E4_IOC_SET_TUNE_SB_PARAM, &c) < 0)
		return sys_err();
	return 0;
}

errcode_t e4_online_set_label(int fd, const char *label)
{
	char buf[256];

	if (strlen(label) > 16)
		return E4_ERR_INVALID_ARGUMENT;
	memset(buf, 0, sizeof(buf));
	memcpy(buf, label, strlen(label));
	if (ioctl(fd, FS_IOC_SETFSLABEL, buf) < 0)
		return sys_err();
	return 0;
}

errcode_t e4_online_set_uuid(int fd, const uint8_t uuid[16])
{
	struct e4_fsuuid16 u;

	u.fsu_len = 16;
	u.fsu_flags = 0;
	memcpy(u.fsu_uuid, uuid, 16);
	if (ioctl(fd, E4_IOC_SETFSUUID, &u) < 0)
		return sys_err();
	return 0;
}

errcode_t e4_online_sync(int fd)
{
	uint32_t flags = 0;

	if (syncfs(fd) < 0)
		return sys_err();
	/* the journal checkpointed: the superblock is in place on the device;
	 * no journal (ENODEV): syncfs wrote it */
	if (ioctl(fd, E4_IOC_CHECKPOINT, &flags) < 0 && errno != ENODEV && errno != ENOTTY)
		return sys_err();
	return 0;
}
