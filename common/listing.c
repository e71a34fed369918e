/*
 * listing.c: named fields printed as aligned text or as one JSON document
 * (see listing.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <json-c/json.h>

#include "listing.h"

#define LISTING_MAX_DEPTH	16

struct listing {
	FILE *out;
	enum listing_format fmt;
	int width;
	int failed;
	/* JSON: the document and the stack of open containers */
	json_object *root;
	json_object *stack[LISTING_MAX_DEPTH];
	int depth;			/* stack[depth - 1] is the innermost */
	/* list being collected (listing_list_*) */
	struct listing_field list_field;	/* strdup'd label and key */
	char *list_text;
	size_t list_len, list_cap;
	json_object *list_arr;
};

listing *listing_new(FILE *out, enum listing_format fmt, int label_width)
{
	listing *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->out = out;
	l->fmt = fmt;
	l->width = label_width;
	if (fmt == LISTING_JSON) {
		l->root = json_object_new_object();
		if (!l->root) {
			free(l);
			return NULL;
		}
		l->stack[0] = l->root;
		l->depth = 1;
	}
	return l;
}

enum listing_format listing_get_format(const listing *l)
{
	return l->fmt;
}

const char *listing_ctime(int64_t sec, char *buf, size_t len)
{
	time_t t = (time_t)sec;
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, len, "%a %b %e %H:%M:%S %Y", &tm))
		snprintf(buf, len, "(time %lld)", (long long)sec);
	return buf;
}

/* JSON: attach v (NULL is JSON null) under f's key, or append it inside
 * an array.  A field without a key outside an array is a caller's error:
 * it fails the listing rather than invent a key. */
static void json_put(listing *l, const struct listing_field *f, json_object *v, int null)
{
	json_object *top = l->stack[l->depth - 1];

	if (!v && !null) {
		l->failed = 1;
		return;
	}
	if (json_object_is_type(top, json_type_array) ? json_object_array_add(top, v) :
	    !f || !f->key || json_object_object_add(top, f->key, v)) {
		json_object_put(v);
		l->failed = 1;
	}
}

/* Text: "Label:" padded to the value column, then the value. */
static void text_line(listing *l, const struct listing_field *f, const char *value)
{
	const char *label = f ? f->label : NULL;
	int n;

	if (!label) {
		fprintf(l->out, "%s\n", value);
		return;
	}
	n = fprintf(l->out, "%s:", label);
	fprintf(l->out, "%*s%s\n", n < l->width ? l->width - n : 1, "", value);
}

void listing_u64(listing *l, const struct listing_field *f, uint64_t v)
{
	char buf[32];

	if (l->fmt == LISTING_JSON) {
		json_put(l, f, json_object_new_uint64(v), 0);
		return;
	}
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	text_line(l, f, buf);
}

void listing_i64(listing *l, const struct listing_field *f, int64_t v)
{
	char buf[32];

	if (l->fmt == LISTING_JSON) {
		json_put(l, f, json_object_new_int64(v), 0);
		return;
	}
	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	text_line(l, f, buf);
}

void listing_hex(listing *l, const struct listing_field *f, uint64_t v, int digits, int upper)
{
	char buf[40];

	if (l->fmt == LISTING_JSON) {
		json_put(l, f, json_object_new_uint64(v), 0);
		return;
	}
	snprintf(buf, sizeof(buf), upper ? "0x%0*llX" : "0x%0*llx", digits,
		 (unsigned long long)v);
	text_line(l, f, buf);
}

/* Length of the well-formed UTF-8 sequence at p (at most n bytes), 0 if
 * there is none (RFC 3629: no overlongs, surrogates or values past
 * U+10FFFF). */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t len;
	unsigned lo = 0x80, hi = 0xBF;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4;
	else
		return 0;
	if (n < len)
		return 0;
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F;
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xBF)
			return 0;
	return len;
}

/* A JSON string from bytes that may not be UTF-8 (labels, paths and
 * names come from the disk as raw bytes): each byte that does not start
 * or continue a well-formed UTF-8 sequence becomes U+FFFD, so the
 * document always parses. */
static struct json_object *json_text(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	struct json_object *o;
	size_t n = strlen(s), k = 0;
	char *buf;

	for (size_t i = 0; i < n;) {	/* fast path: already valid */
		size_t len = utf8_len(p + i, n - i);

		if (!len)
			break;
		i += len;
		if (i == n)
			return json_object_new_string(s);
	}
	if (n == 0)
		return json_object_new_string(s);
	buf = malloc(n * 3 + 1);
	if (!buf)
		return NULL;
	for (size_t i = 0; i < n;) {
		size_t len = utf8_len(p + i, n - i);

		if (len) {
			memcpy(buf + k, p + i, len);
			k += len;
			i += len;
		} else {
			memcpy(buf + k, "\xEF\xBF\xBD", 3);
			k += 3;
			i++;
		}
	}
	o = json_object_new_string_len(buf, (int)k);
	free(buf);
	return o;
}

void listing_str(listing *l, const struct listing_field *f, const char *s)
{
	if (l->fmt == LISTING_JSON) {
		json_put(l, f, json_text(s), 0);
		return;
	}
	text_line(l, f, s);
}

/* listing_str() of a printf-formatted value */
static void put_strv(listing *l, const struct listing_field *f, const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0) {
		l->failed = 1;
		return;
	}
	listing_str(l, f, s);
	free(s);
}

void listing_fmt(listing *l, const struct listing_field *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	put_strv(l, f, fmt, ap);
	va_end(ap);
}

void listing_num_text(listing *l, const struct listing_field *f, uint64_t v,
		      const char *fmt, ...)
{
	va_list ap;

	if (l->fmt == LISTING_JSON) {
		json_put(l, f, json_object_new_uint64(v), 0);
		return;
	}
	va_start(ap, fmt);
	put_strv(l, f, fmt, ap);
	va_end(ap);
}

void listing_null(listing *l, const struct listing_field *f, const char *text)
{
	if (l->fmt == LISTING_JSON)
		json_put(l, f, NULL, 1);
	else
		text_line(l, f, text);
}

void listing_bool(listing *l, const struct listing_field *f, int v)
{
	if (l->fmt == LISTING_JSON)
		json_put(l, f, json_object_new_boolean(v != 0), 0);
	else
		text_line(l, f, v ? "yes" : "no");
}

void listing_time(listing *l, const struct listing_field *f, int64_t sec)
{
	char buf[64];

	if (l->fmt == LISTING_JSON) {
		json_put(l, f, json_object_new_int64(sec), 0);
		return;
	}
	text_line(l, f, listing_ctime(sec, buf, sizeof(buf)));
}

/* ---- lists ----------------------------------------------------------- */
static void list_reset(listing *l)
{
	free((char *)l->list_field.label);
	free((char *)l->list_field.key);
	free(l->list_text);
	l->list_field.label = l->list_field.key = NULL;
	l->list_text = NULL;
	l->list_len = l->list_cap = 0;
	if (l->list_arr)
		json_object_put(l->list_arr);
	l->list_arr = NULL;
}

/* strdup of s, NULL staying NULL; a failure marks the listing failed */
static char *dup_or_null(listing *l, const char *s)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		l->failed = 1;
	return d;
}

void listing_list_begin(listing *l, const struct listing_field *f)
{
	list_reset(l);
	if (f) {
		l->list_field.label = dup_or_null(l, f->label);
		l->list_field.key = dup_or_null(l, f->key);
	}
	if (l->fmt == LISTING_JSON) {
		l->list_arr = json_object_new_array();
		if (!l->list_arr)
			l->failed = 1;
	}
}

/* Text: append word to the list's line. */
static void list_text_add(listing *l, const char *word)
{
	size_t wl = strlen(word);

	if (l->list_len + wl + 2 > l->list_cap) {
		size_t cap = (l->list_len + wl + 2) * 2;
		char *p = realloc(l->list_text, cap);

		if (!p) {
			l->failed = 1;
			return;
		}
		l->list_text = p;
		l->list_cap = cap;
	}
	if (l->list_len)
		l->list_text[l->list_len++] = ' ';
	memcpy(l->list_text + l->list_len, word, wl);
	l->list_len += wl;
	l->list_text[l->list_len] = 0;
}

/* JSON: append v (NULL: null) to the list's array. */
static void list_json_add(listing *l, json_object *v, int null)
{
	if ((!v && !null) || !l->list_arr || json_object_array_add(l->list_arr, v)) {
		json_object_put(v);
		l->failed = 1;
	}
}

void listing_list_add(listing *l, const char *word)
{
	if (l->fmt == LISTING_JSON)
		list_json_add(l, json_text(word), 0);
	else
		list_text_add(l, word);
}

void listing_list_add_u64(listing *l, uint64_t v)
{
	char buf[32];

	if (l->fmt == LISTING_JSON) {
		list_json_add(l, json_object_new_uint64(v), 0);
		return;
	}
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	list_text_add(l, buf);
}

void listing_list_add_null(listing *l, const char *text)
{
	if (l->fmt == LISTING_JSON)
		list_json_add(l, NULL, 1);
	else
		list_text_add(l, text);
}

void listing_list_end(listing *l, const char *empty_text)
{
	if (l->fmt == LISTING_JSON) {
		json_put(l, &l->list_field, l->list_arr, 0);
		l->list_arr = NULL;	/* now owned by the document */
	} else {
		text_line(l, &l->list_field,
			  l->list_len ? l->list_text : (empty_text ? empty_text : ""));
	}
	list_reset(l);
}

/* ---- nesting ---------------------------------------------------------- */
static void open_container(listing *l, const struct listing_field *f, json_object *c)
{
	if (l->fmt != LISTING_JSON) {
		if (c)
			json_object_put(c);
		return;
	}
	if (!c || l->depth >= LISTING_MAX_DEPTH) {
		if (c)
			json_object_put(c);
		l->failed = 1;
		/* keep the nesting balanced: the next close pops nothing */
		if (l->depth < LISTING_MAX_DEPTH) {
			l->stack[l->depth] = l->stack[l->depth - 1];
			l->depth++;
		}
		return;
	}
	json_object_get(c);	/* one reference for the stack */
	json_put(l, f, c, 0);
	l->stack[l->depth++] = c;
}

void listing_object(listing *l, const struct listing_field *f)
{
	open_container(l, f, l->fmt == LISTING_JSON ? json_object_new_object() : NULL);
}

void listing_array(listing *l, const struct listing_field *f)
{
	open_container(l, f, l->fmt == LISTING_JSON ? json_object_new_array() : NULL);
}

void listing_close(listing *l)
{
	if (l->fmt != LISTING_JSON || l->depth <= 1)
		return;
	l->depth--;
	if (l->stack[l->depth] != l->stack[l->depth - 1])
		json_object_put(l->stack[l->depth]);
}

void listing_text(listing *l, const char *fmt, ...)
{
	va_list ap;

	if (l->fmt != LISTING_TEXT)
		return;
	va_start(ap, fmt);
	vfprintf(l->out, fmt, ap);
	va_end(ap);
}

int listing_end(listing *l)
{
	int werr = 0;
	int ret;

	if (!l)
		return -1;
	while (l->depth > 1)
		listing_close(l);
	list_reset(l);
	if (l->fmt == LISTING_JSON) {
		const char *s = json_object_to_json_string_ext(l->root,
				JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
				JSON_C_TO_STRING_NOSLASHESCAPE);

		if (s)
			fprintf(l->out, "%s\n", s);
		else
			l->failed = 1;
		json_object_put(l->root);
	}
	if (fflush(l->out) || ferror(l->out)) {
		werr = errno ? errno : EIO;
		l->failed = 1;
	}
	ret = l->failed ? -1 : 0;
	free(l);
	if (ret)
		errno = werr ? werr : ENOMEM;
	return ret;
}
