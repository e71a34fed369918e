/*
 * fields.h: the named fields of the superblock, the group descriptor and
 * the inode, one table per structure (fields.c), and setting a field from
 * its text form as e2fsprogs' debugfs names and parses them (set_super_value,
 * set_block_group, set_inode_field).  Included by e4.h after the types it
 * uses.  Offsets and sizes come from the format doc (sections 2, 4.1, 6.1).
 *
 * A field is a low part (off, size) and an optional high part (hi_off,
 * hi_size) joined into one number (lo | hi << 8 * size); a name ending in
 * "_lo" or "_hi" sets one part alone.  A part lying past the structure's
 * size (32-byte descriptors, 128-byte inodes) does not exist: the field is
 * then its low part, and naming the high part is refused.  Arrays
 * (count > 0) are named "name[i]", 0 <= i < count.
 */
#ifndef E4_FIELDS_H
#define E4_FIELDS_H

enum e4_field_struct { E4_FIELDS_SUPER = 0, E4_FIELDS_GROUP = 1, E4_FIELDS_INODE = 2 };

enum e4_field_type {
	E4_FIELD_UINT = 0,	/* unsigned: decimal, 0x hex, 0 octal */
	E4_FIELD_INT,		/* signed, same notations with an optional '-' */
	E4_FIELD_STRING,	/* bytes, NUL-padded (up to the whole size) */
	E4_FIELD_TIME,		/* seconds: "now", "@N", YYYYMMDD[HH[MM[SS]]] (UTC), N */
	E4_FIELD_UUID,		/* "null"/"clear", "random", "time", or 8-4-4-4-12 hex */
	E4_FIELD_HASHALG,	/* "legacy", "half_md4", "tea", ..._unsigned, "siphash" */
	E4_FIELD_ENCODING,	/* "utf8" (also "utf8-12.1") or a number */
};

#define E4_FIELD_F_CSUM		0x01	/* the structure's own checksum: also "calc" */
#define E4_FIELD_F_TIME_EXTRA	0x02	/* TIME: the high part is an inode's _extra word
					   (epoch bits 0-1, nanoseconds cleared) */

struct e4_field {
	const char *name;		/* e2fsprogs' spelling, without s_/bg_/i_ */
	uint16_t off;			/* byte offset of the low part (array: element 0) */
	uint8_t size;			/* bytes of the low part (array: one element) */
	uint8_t hi_size;		/* bytes of the high part; 0: none */
	uint16_t hi_off;
	uint8_t type;			/* enum e4_field_type */
	uint8_t count;			/* array elements; 0: not an array */
	uint8_t flags;			/* E4_FIELD_F_* */
};

/* The table of structure s, ended by a NULL name. */
const struct e4_field *e4_fields(enum e4_field_struct s);
/* "unsigned integer", "date/time", ... for listings. */
const char *e4_field_type_name(const struct e4_field *f);

/* What a name selects. */
struct e4_field_ref {
	const struct e4_field *field;
	unsigned index;			/* array element */
	int part;			/* 0: both parts, 1: low only, 2: high only */
};
/* Find name (an "s_", "bg_" or "i_" prefix is allowed) in structure s of
 * len bytes (the parts past len do not exist).  E4_ERR_FIELD_UNKNOWN (also
 * "_hi" of a field whose high part does not exist here),
 * E4_ERR_FIELD_INDEX (an array without an index, an index out of range, or
 * an index on a scalar). */
errcode_t e4_field_lookup(enum e4_field_struct s, size_t len, const char *name,
			  struct e4_field_ref *ref);

/* What e4_field_parse_set() needs from its caller. */
struct e4_field_opts {
	int64_t now;			/* seconds, for "now" */
	/* fills uuid (16 bytes) for "random" (time_based 0) or "time" (1);
	 * NULL: those words are refused (E4_ERR_FIELD_VALUE) */
	void (*gen_uuid)(uint8_t uuid[16], int time_based);
};
/* Parse value for ref and store it, little-endian, into buf (the structure
 * image, len bytes).  Nothing is stored on an error: E4_ERR_FIELD_VALUE
 * (not a value of the field's type; "calc" is not handled here),
 * E4_ERR_FIELD_RANGE (out of range for the field: see e4_field_range()). */
errcode_t e4_field_parse_set(const struct e4_field_ref *ref, void *buf, size_t len,
			     const char *value, const struct e4_field_opts *o);
/* The values a numeric field (UINT, INT, TIME, the part ref selects)
 * takes in a structure of len bytes. */
void e4_field_range(const struct e4_field_ref *ref, size_t len, int64_t *min, uint64_t *max);

/* Hash algorithm names (s_def_hash_version, section 8.5): the name of
 * version v ("legacy" .. "siphash"), NULL when unknown; and the lookup
 * (E4_ERR_FIELD_VALUE). */
const char *e4_hash_alg_name(unsigned v);
errcode_t e4_hash_alg_lookup(const char *name, unsigned *v);

/* Set a field of the in-memory superblock / descriptor g of an open
 * filesystem (nothing is written: e4_super_write(), e4_flush_primary()).
 * A descriptor's bg_checksum is recomputed after the change unless the
 * field set is the checksum itself; the checksum field also takes "calc"
 * (recompute; *csum, may be NULL, gets the value).  Errors of
 * e4_field_lookup() and e4_field_parse_set(), E4_ERR_BAD_GROUP_NUM,
 * E4_ERR_READ_ONLY. */
errcode_t e4_super_field_set(e4_fs *fs, const char *name, const char *value,
			     const struct e4_field_opts *o, int *is_csum);
errcode_t e4_group_field_set(e4_fs *fs, e4_group_t g, const char *name, const char *value,
			     const struct e4_field_opts *o, uint32_t *csum);
/* Set a field of inode ino in *ib (inode_size bytes) and write it
 * (e4_inode_write(): its checksum recomputed), unless the field is the
 * checksum: then the value is kept as given (e4_inode_write_as_is()), or
 * with "calc" recomputed (*csum gets it).  Errors as above, and the
 * write's. */
errcode_t e4_inode_field_set(e4_fs *fs, e4_ino_t ino, union e4_inode_buf *ib, const char *name,
			     const char *value, const struct e4_field_opts *o, uint32_t *csum);

/* A time as the TIME fields take it ("now" = now, "@N", YYYYMMDD[HH[MM[SS]]]
 * in UTC, or N seconds) into *t.  E4_ERR_FIELD_VALUE, E4_ERR_FIELD_RANGE. */
errcode_t e4_time_parse(const char *s, int64_t now, int64_t *t);

/* One feature edit of the in-memory superblock through the feature table
 * (feature.c): "name" sets it, "-name" or "^name" clears it (also the
 * FEATURE_Xn form).  Nothing is written (e4_super_write()).
 * E4_ERR_INVALID_ARGUMENT (unknown name), E4_ERR_READ_ONLY. */
errcode_t e4_super_feature_edit(e4_fs *fs, const char *edit);

#endif /* E4_FIELDS_H */
