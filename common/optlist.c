/*
 * optlist.c: walking "key[=value],..." option lists.
 */
#include "optlist.h"

#include <stdlib.h>
#include <string.h>

int optlist_start(struct optlist *o, const char *list)
{
	o->buf = strdup(list ? list : "");
	o->next = o->buf;
	return o->buf ? 0 : -1;
}

int optlist_next(struct optlist *o, char **key, char **val)
{
	while (o->next) {
		char *item = o->next, *comma = strchr(item, ',');
		char *eq;

		o->next = comma ? comma + 1 : NULL;
		if (comma)
			*comma = 0;
		if (!*item)
			continue;
		eq = strchr(item, '=');
		if (eq)
			*eq++ = 0;
		for (char *p = item; *p; p++)
			if (*p == '-')
				*p = '_';
		*key = item;
		*val = eq;
		return 1;
	}
	return 0;
}

void optlist_done(struct optlist *o)
{
	free(o->buf);
	o->buf = o->next = NULL;
}
