/*
 * superlist.h: the superblock and the journal superblock as listing
 * fields, labelled as dumpe2fs -h labels them (common/listing.h).  Each
 * field's JSON key is declared beside its label in superlist.c's row
 * table; JSON values are typed (sizes in bytes, absent values null).
 */
#ifndef E4_COMMON_SUPERLIST_H
#define E4_COMMON_SUPERLIST_H

#include "e4.h"
#include "listing.h"

/* A UUID as dumpe2fs prints it into buf (37 bytes); all zero gives
 * "<none>" when none_if_null is set. */
const char *superlist_uuid(const uint8_t u[16], char *buf, int none_if_null);
/* Every superblock field dumpe2fs -h prints, in its order. */
void superlist_super(listing *l, e4_fs *fs);
/* The internal journal's superblock (a "Journal" object in JSON);
 * nothing without an internal journal.  Returns 1 (after a com_err line
 * naming prog) when it cannot be read, else 0. */
int superlist_journal(listing *l, const char *prog, e4_fs *fs);

#endif
