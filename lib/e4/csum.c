/*
 * csum.c: the CRCs and every per-structure checksum rule
 * (../shared/docs/ext4-format.md section 10).  CRC-32C and the MSB-first
 * CRC-32 come from Intel ISA-L (SIMD); CRC-16 is a small table.
 */
#include "e4_private.h"

#include <isa-l/crc.h>
#include <string.h>

uint32_t e4_crc32c(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	/* ISA-L's crc32_iscsi is the raw update (no inversion) with an int
	 * length. */
	while (len) {
		int n = len > (1u << 30) ? (1 << 30) : (int)len;
		crc = crc32_iscsi((unsigned char *)p, n, crc);
		p += n;
		len -= (size_t)n;
	}
	return crc;
}

uint32_t e4_crc32_be(uint32_t crc, const void *buf, size_t len)
{
	/* ISA-L's crc32_ieee inverts on entry and exit: undo both. */
	return ~crc32_ieee(~crc, (const unsigned char *)buf, (uint64_t)len);
}

static uint16_t crc16_table[256];
static int crc16_ready;

static void crc16_init(void)
{
	for (unsigned i = 0; i < 256; i++) {
		uint16_t c = (uint16_t)i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (uint16_t)((c >> 1) ^ 0xA001) : (uint16_t)(c >> 1);
		crc16_table[i] = c;
	}
	crc16_ready = 1;
}

uint16_t e4_crc16(uint16_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (!crc16_ready)
		crc16_init();
	while (len--)
		crc = (uint16_t)((crc >> 8) ^ crc16_table[(crc ^ *p++) & 0xFF]);
	return crc;
}

uint32_t e4_superblock_csum(const struct ext4_super_block *sb)
{
	return e4_crc32c(~0U, sb, offsetof(struct ext4_super_block, s_checksum));
}

uint32_t e4_csum_seed(e4_fs *fs)
{
	return fs->csum_seed;
}

uint32_t e4_inode_csum_seed(e4_fs *fs, e4_ino_t ino, uint32_t generation)
{
	uint32_t le_ino = e4_cpu_to_le32(ino), le_gen = e4_cpu_to_le32(generation);
	uint32_t c = e4_crc32c(fs->csum_seed, &le_ino, 4);

	return e4_crc32c(c, &le_gen, 4);
}

#define INODE_CSUM_LO_OFF	offsetof(struct ext4_inode, l_i_checksum_lo)
#define INODE_CSUM_HI_OFF	offsetof(struct ext4_inode, i_checksum_hi)

static int inode_has_csum_hi(e4_fs *fs, const struct ext4_inode *inode)
{
	return fs->geom.inode_size > EXT4_GOOD_OLD_INODE_SIZE &&
	       e4_le16(inode->i_extra_isize) >= 4 &&
	       EXT4_GOOD_OLD_INODE_SIZE + (unsigned)e4_le16(inode->i_extra_isize) <= fs->geom.inode_size;
}

uint32_t e4_inode_csum(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode)
{
	const uint8_t *p = (const uint8_t *)inode;
	unsigned isz = fs->geom.inode_size;
	static const uint8_t zero[2];
	uint32_t c;

	c = e4_inode_csum_seed(fs, ino, e4_le32(inode->i_generation));
	c = e4_crc32c(c, p, INODE_CSUM_LO_OFF);
	c = e4_crc32c(c, zero, 2);
	c = e4_crc32c(c, p + INODE_CSUM_LO_OFF + 2,
		      EXT4_GOOD_OLD_INODE_SIZE - INODE_CSUM_LO_OFF - 2);
	if (isz > EXT4_GOOD_OLD_INODE_SIZE) {
		c = e4_crc32c(c, p + EXT4_GOOD_OLD_INODE_SIZE,
			      INODE_CSUM_HI_OFF - EXT4_GOOD_OLD_INODE_SIZE);
		if (inode_has_csum_hi(fs, inode))
			c = e4_crc32c(c, zero, 2);
		else
			c = e4_crc32c(c, p + INODE_CSUM_HI_OFF, 2);
		c = e4_crc32c(c, p + INODE_CSUM_HI_OFF + 2, isz - INODE_CSUM_HI_OFF - 2);
	}
	return c;
}

int e4_inode_csum_verify(e4_fs *fs, e4_ino_t ino, const struct ext4_inode *inode)
{
	const uint8_t *p = (const uint8_t *)inode;
	uint32_t stored, calc;
	unsigned i;

	if (!fs->geom.metadata_csum)
		return 1;
	for (i = 0; i < fs->geom.inode_size && !p[i]; i++)
		;
	if (i == fs->geom.inode_size)
		return 1;
	calc = e4_inode_csum(fs, ino, inode);
	stored = e4_le16(inode->l_i_checksum_lo);
	if (inode_has_csum_hi(fs, inode))
		stored |= (uint32_t)e4_le16(inode->i_checksum_hi) << 16;
	else
		calc &= 0xFFFF;
	return stored == calc;
}

uint16_t e4_group_desc_csum(e4_fs *fs, e4_group_t g, const void *desc)
{
	const uint8_t *p = desc;
	unsigned size = fs->geom.desc_size;
	uint32_t le_g = e4_cpu_to_le32(g);
	const size_t off = offsetof(struct ext4_group_desc, bg_checksum);

	if (fs->geom.metadata_csum) {
		static const uint8_t zero[2];
		uint32_t c = e4_crc32c(fs->csum_seed, &le_g, 4);
		c = e4_crc32c(c, p, off);
		c = e4_crc32c(c, zero, 2);
		c = e4_crc32c(c, p + off + 2, size - off - 2);
		return (uint16_t)(c & 0xFFFF);
	}
	if (fs->geom.gdt_csum) {
		uint16_t c = e4_crc16(0xFFFF, fs->sb->s_uuid, 16);
		c = e4_crc16(c, &le_g, 4);
		c = e4_crc16(c, p, off);
		if (e4_has_incompat(fs, EXT4_FEATURE_INCOMPAT_64BIT) && size > off + 2)
			c = e4_crc16(c, p + off + 2, size - off - 2);
		return c;
	}
	return 0;
}

uint32_t e4_bitmap_csum(e4_fs *fs, const void *buf, size_t len)
{
	return e4_crc32c(fs->csum_seed, buf, len);
}

uint32_t e4_extent_block_csum(e4_fs *fs, e4_ino_t ino, uint32_t gen, const void *block)
{
	const struct ext4_extent_header *eh = block;
	size_t len = sizeof(*eh) + (size_t)e4_le16(eh->eh_max) * sizeof(struct ext4_extent);

	if (len > fs->geom.block_size - sizeof(struct ext4_extent_tail))
		len = fs->geom.block_size - sizeof(struct ext4_extent_tail);
	return e4_crc32c(e4_inode_csum_seed(fs, ino, gen), block, len);
}

uint32_t e4_dirblock_csum(e4_fs *fs, e4_ino_t ino, uint32_t gen, const void *block)
{
	return e4_crc32c(e4_inode_csum_seed(fs, ino, gen), block,
			 fs->geom.block_size - sizeof(struct ext4_dir_entry_tail));
}

uint32_t e4_dx_csum(e4_fs *fs, e4_ino_t ino, uint32_t gen, const void *block,
		    unsigned count_offset, unsigned count, const struct dx_tail *t)
{
	static const uint8_t zero[4];
	uint32_t c = e4_inode_csum_seed(fs, ino, gen);
	size_t len = count_offset + (size_t)count * sizeof(struct dx_entry);

	if (len > fs->geom.block_size)
		len = fs->geom.block_size;
	c = e4_crc32c(c, block, len);
	c = e4_crc32c(c, &t->dt_reserved, 4);
	return e4_crc32c(c, zero, 4);
}

uint32_t e4_xattr_block_csum(e4_fs *fs, e4_blk_t blk, const void *block)
{
	static const uint8_t zero[4];
	const uint8_t *p = block;
	uint64_t le_blk = e4_cpu_to_le64(blk);
	const size_t off = offsetof(struct ext4_xattr_header, h_checksum);
	uint32_t c = e4_crc32c(fs->csum_seed, &le_blk, 8);

	c = e4_crc32c(c, p, off);
	c = e4_crc32c(c, zero, 4);
	return e4_crc32c(c, p + off + 4, fs->geom.block_size - off - 4);
}

uint32_t e4_jsb_csum(const journal_superblock_t *jsb)
{
	static const uint8_t zero[4];
	const uint8_t *p = (const uint8_t *)jsb;
	const size_t off = offsetof(journal_superblock_t, s_checksum);
	uint32_t c = e4_crc32c(~0U, p, off);

	c = e4_crc32c(c, zero, 4);
	return e4_crc32c(c, p + off + 4, sizeof(*jsb) - off - 4);
}
