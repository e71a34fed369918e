/*
 * list.c: -l, the superblock and journal superblock as dumpe2fs -h shows
 * them, or with --json the same fields as one JSON document (through the
 * shared output layer, common/listing.h and common/superlist.h).  With
 * --json the document goes to t->json_out, the only thing written to the
 * process's standard output (main.c).
 */
#include "tune.h"

#include "listing.h"
#include "superlist.h"

#include <errno.h>

int tune_list(struct tune *t)
{
	listing *l = listing_new(t->json_out ? t->json_out : stdout,
				 t->json ? LISTING_JSON : LISTING_TEXT, 26);
	int rc;

	if (!l) {
		tune_err(t, E4_ERR_NO_MEMORY, "while listing the superblock");
		return 1;
	}
	superlist_super(l, t->fs);
	rc = superlist_journal(l, t->prog, t->fs);
	if (listing_end(l) && !rc) {
		tune_err(t, errno, "while writing the listing to standard output");
		rc = 1;
	}
	return rc;
}
