/*
 * common/shortdev.c: a device shorter than its filesystem, in words
 * (shortdev.h).
 */
#include "shortdev.h"

#include <stdio.h>
#include "e4.h"

const char *short_device_sizes(const char *device, char *buf, size_t len)
{
	uint64_t dev = 0, blocks = 0;
	unsigned bs = 0;

	if (e4_device_short_sizes(device, &dev, &blocks, &bs) || !blocks)
		snprintf(buf, len, "the device holds only %llu bytes, less than an ext2/3/4 "
			 "filesystem needs (its superblock lies at bytes 1024-2047)",
			 (unsigned long long)dev);
	else
		snprintf(buf, len, "the filesystem is %llu blocks of %u bytes (its superblock "
			 "says so), but the device holds only %llu bytes, too few even for its "
			 "group descriptors", (unsigned long long)blocks, bs,
			 (unsigned long long)dev);
	return buf;
}
