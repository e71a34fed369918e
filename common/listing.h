/*
 * listing.h: one output layer for the tools.  A listing is a sequence of
 * fields, printed either as aligned text or as JSON (through json-c).
 *
 * Every field is named by a row, struct listing_field: its text label and
 * its JSON key, declared together (a tool keeps its rows in one table,
 * e.g. common/superlist.c), so renaming a label cannot change the JSON.
 *
 * Text mode prints each field at once, as dumpe2fs does:
 *     "Label:" padded with spaces to label_width columns (at least one
 *     space), then the value, then a newline.
 * JSON mode builds one document and prints it (pretty, one trailing
 * newline) at listing_end().  Values keep their JSON type: counts, sizes
 * (in bytes), block numbers, times (seconds since the epoch) and checksums
 * are numbers, never text with a unit; an absent value is null (where the
 * text says "<none>" or "n/a"); a yes/no is true/false.  listing_u64()
 * gives a number whose text form is exactly what text mode prints;
 * listing_fmt() gives a string equal to the text value.  So a consumer can
 * check JSON against text field by field.
 *
 * Nesting (JSON only; text mode prints nothing for it): listing_object()
 * opens an object, listing_array() an array, listing_close() closes the
 * innermost one.  Inside an array, fields with a NULL row are elements
 * and listing_object(l, NULL) opens an element object.
 *
 * Typical use:
 *     static const struct listing_field rows[] = {
 *             [F_INODES] = { "Inode count", "inode_count" }, ... };
 *     listing *l = listing_new(stdout, json ? LISTING_JSON : LISTING_TEXT, 26);
 *     listing_u64(l, &rows[F_INODES], n);
 *     listing_end(l);
 *
 * Nothing here exits; allocation failures are remembered and reported by
 * listing_end() (-1).
 */
#ifndef E4_COMMON_LISTING_H
#define E4_COMMON_LISTING_H

#include <stdint.h>
#include <stdio.h>

typedef struct listing listing;

enum listing_format { LISTING_TEXT = 0, LISTING_JSON = 1 };

/* A field's name: label for text mode (NULL: the value alone, or nothing
 * for nesting), key for JSON (lower case, [a-z0-9_]; NULL only for array
 * elements). */
struct listing_field {
	const char *label;
	const char *key;
};

/* A row for a JSON-only field (objects and values that text mode prints
 * in its own layout, or not at all). */
#define LISTING_KEY(k)	(&(const struct listing_field){ NULL, (k) })

/* A new listing writing to out.  label_width: text column of the values
 * (26 is dumpe2fs's).  NULL when out of memory. */
listing *listing_new(FILE *out, enum listing_format fmt, int label_width);
/* Close open nestings, print the JSON document (JSON mode), flush and
 * free.  Returns 0, or -1 after an allocation or write error with errno
 * set (ENOMEM, or the write's error). */
int listing_end(listing *l);
enum listing_format listing_get_format(const listing *l);

/* Fields.  f: the field's row (NULL for an element inside an array). */
void listing_u64(listing *l, const struct listing_field *f, uint64_t v);	/* "%llu", number */
void listing_i64(listing *l, const struct listing_field *f, int64_t v);	/* "%lld", number */
/* Text "0x%0*llx" (digits wide; upper selects "0x%0*llX"), JSON number. */
void listing_hex(listing *l, const struct listing_field *f, uint64_t v, int digits, int upper);
void listing_str(listing *l, const struct listing_field *f, const char *s);	/* string */
/* printf-formatted text; the JSON value is the same string. */
void listing_fmt(listing *l, const struct listing_field *f, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A number with a text decoration ("0 (<none>)", "35 MB"): text is fmt's
 * output, JSON the number v (a count, or bytes for a size). */
void listing_num_text(listing *l, const struct listing_field *f, uint64_t v,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* An absent value: text prints text ("<none>", "n/a"), JSON null. */
void listing_null(listing *l, const struct listing_field *f, const char *text);
/* Yes or no: text "yes"/"no", JSON true/false. */
void listing_bool(listing *l, const struct listing_field *f, int v);
/* Seconds since the epoch: text in ctime() form (local time, "Mon Nov 30
 * 06:05:51 2026"), JSON the number. */
void listing_time(listing *l, const struct listing_field *f, int64_t sec);

/* A list: text "Label:  w1 w2 w3" (empty_text when none was added), JSON
 * an array.  listing_list_add() adds a string, listing_list_add_u64() a
 * number (text: decimal), listing_list_add_null() an absent element (text:
 * text). */
void listing_list_begin(listing *l, const struct listing_field *f);
void listing_list_add(listing *l, const char *word);
void listing_list_add_u64(listing *l, uint64_t v);
void listing_list_add_null(listing *l, const char *text);
void listing_list_end(listing *l, const char *empty_text);

/* Nesting (see above); f NULL inside an array. */
void listing_object(listing *l, const struct listing_field *f);
void listing_array(listing *l, const struct listing_field *f);
void listing_close(listing *l);

/* A free text line (text mode only; JSON mode ignores it). */
void listing_text(listing *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ctime()-style text of sec (local time, no newline) into buf (>= 32). */
const char *listing_ctime(int64_t sec, char *buf, size_t len);

#endif /* E4_COMMON_LISTING_H */
