/*
 * optlist.h: comma-separated option lists ("key[=value],..."), as the
 * tools' -E, -J and -o options take them (mke2fs/tune2fs spelling).
 */
#ifndef E4KIT_OPTLIST_H
#define E4KIT_OPTLIST_H

struct optlist {
	char *buf;			/* private copy, cut into items */
	char *next;			/* where the next item starts, NULL at the end */
};

/* Start walking list (not modified).  Returns 0, or -1 when out of
 * memory.  Always pair with optlist_done(). */
int optlist_start(struct optlist *o, const char *list);
/* The next non-empty item: *key and *val (the text after the first '=',
 * NULL without one) point into the private copy and stay valid until
 * optlist_done().  In the key, '-' becomes '_' (mke2fs takes both
 * "stripe-width" and "stripe_width").  Returns 1 for an item, 0 at the
 * end. */
int optlist_next(struct optlist *o, char **key, char **val);
void optlist_done(struct optlist *o);

#endif
