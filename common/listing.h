/*
 * listing.h: one output layer for the tools.  A listing is a sequence of
 * named fields, printed either as aligned text or as JSON (through json-c).
 *
 * Text mode prints each field at once, as dumpe2fs does:
 *     "Label:" padded with spaces to label_width columns (at least one
 *     space), then the value, then a newline.
 * JSON mode builds one document and prints it (pretty, one trailing
 * newline) at listing_end().  A field's JSON key is derived from its
 * label by listing_key(): "Filesystem revision #" -> "filesystem_revision".
 * Values keep their type in JSON: listing_u64() gives a number whose text
 * form is exactly what text mode prints; listing_fmt() gives a string equal
 * to the text value.  So a consumer can check JSON against text field by
 * field.
 *
 * Nesting (JSON only; text mode prints nothing for it): listing_object()
 * opens an object, listing_array() an array, listing_close() closes the
 * innermost one.  Inside an array, fields with a NULL label are elements
 * and listing_object(l, NULL) opens an element object.
 *
 * Typical use:
 *     listing *l = listing_new(stdout, json ? LISTING_JSON : LISTING_TEXT, 26);
 *     listing_u64(l, "Inode count", n);
 *     listing_list_begin(l, "Filesystem features");
 *     listing_list_add(l, "has_journal");
 *     listing_list_end(l, "(none)");
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

/* A new listing writing to out.  label_width: text column of the values
 * (26 is dumpe2fs's).  NULL when out of memory. */
listing *listing_new(FILE *out, enum listing_format fmt, int label_width);
/* Close open nestings, print the JSON document (JSON mode), flush and
 * free.  Returns 0, or -1 after an allocation or write error with errno
 * set (ENOMEM, or the write's error). */
int listing_end(listing *l);
enum listing_format listing_get_format(const listing *l);

/* Fields.  label: text label (also the JSON key, see listing_key()). */
void listing_u64(listing *l, const char *label, uint64_t v);	/* "%llu", number */
void listing_i64(listing *l, const char *label, int64_t v);	/* "%lld", number */
/* Text "0x%0*llx" (digits wide; upper selects "0x%0*llX"), JSON number. */
void listing_hex(listing *l, const char *label, uint64_t v, int digits, int upper);
void listing_str(listing *l, const char *label, const char *s);	/* string */
/* printf-formatted text; the JSON value is the same string. */
void listing_fmt(listing *l, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A number with a text decoration ("0 (<none>)"): text is fmt's output,
 * JSON the number v. */
void listing_num_text(listing *l, const char *label, int64_t v, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Seconds since the epoch: text in ctime() form (local time, "Mon Nov 30
 * 06:05:51 2026"), JSON the number. */
void listing_time(listing *l, const char *label, int64_t sec);

/* A list of words: text "Label:  w1 w2 w3" (empty_text when none was
 * added), JSON an array of strings. */
void listing_list_begin(listing *l, const char *label);
void listing_list_add(listing *l, const char *word);
void listing_list_end(listing *l, const char *empty_text);

/* Nesting (see above); key NULL inside an array. */
void listing_object(listing *l, const char *key);
void listing_array(listing *l, const char *key);
void listing_close(listing *l);

/* A free text line (text mode only; JSON mode ignores it). */
void listing_text(listing *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* JSON key of a label: lower case, every run of other characters than
 * letters and digits becomes one '_', none leading or trailing.  Returns
 * buf (truncated to len - 1 characters). */
char *listing_key(const char *label, char *buf, size_t len);

/* ctime()-style text of sec (local time, no newline) into buf (>= 32). */
const char *listing_ctime(int64_t sec, char *buf, size_t len);

#endif /* E4_COMMON_LISTING_H */
