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
	char *list_label;
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

char *listing_key(const char *label, char *buf, size_t len)
{
	size_t n = 0;
	int sep = 0;

	if (!len)
		return buf;
	for (; *label && n + 1 < len; label++) {
		unsigned char c = (unsigned char)*label;

		if (isalnum(c)) {
			if (sep && n && n + 2 < len)
				buf[n++] = '_';
			sep = 0;
			buf[n++] = (char)tolower(c);
		} else {
			sep = 1;
		}
	}
	buf[n] = 0;
	return buf;
}

const char *listing_ctime(int64_t sec, char *buf, size_t len)
{
	time_t t = (time_t)sec;
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, len, "%a %b %e %H:%M:%S %Y", &tm))
		snprintf(buf, len, "(time %lld)", (long long)sec);
	return buf;
}

/* JSON: attach v under label's key (or append inside an array). */
static void json_put(listing *l, const char *label, json_object *v)
{
	json_object *top = l->stack[l->depth - 1];
	char key[128];

	if (!v) {
		l->failed = 1;
		return;
	}
	if (json_object_is_type(top, json_type_array)) {
		if (json_object_array_add(top, v))
			l->failed = 1;
		return;
	}
	listing_key(label ? label : "value", key, sizeof(key));
	if (json_object_object_add(top, key, v))
		l->failed = 1;
}

/* Text: "Label:" padded to the value column, then the value. */
static void text_line(listing *l, const char *label, const char *value)
{
	int n;

	if (!label) {
		fprintf(l->out, "%s\n", value);
		return;
	}
	n = fprintf(l->out, "%s:", label);
	fprintf(l->out, "%*s%s\n", n < l->width ? l->width - n : 1, "", value);
}

void listing_u64(listing *l, const char *label, uint64_t v)
{
	char buf[32];

	if (l->fmt == LISTING_JSON) {
		json_put(l, label, json_object_new_uint64(v));
		return;
	}
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	text_line(l, label, buf);
}

void listing_i64(listing *l, const char *label, int64_t v)
{
	char buf[32];

	if (l->fmt == LISTING_JSON) {
		json_put(l, label, json_object_new_int64(v));
		return;
	}
	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	text_line(l, label, buf);
}

void listing_hex(listing *l, const char *label, uint64_t v, int digits, int upper)
{
	char buf[40];

	if (l->fmt == LISTING_JSON) {
		json_put(l, label, json_object_new_uint64(v));
		return;
	}
	snprintf(buf, sizeof(buf), upper ? "0x%0*llX" : "0x%0*llx", digits,
		 (unsigned long long)v);
	text_line(l, label, buf);
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

void listing_str(listing *l, const char *label, const char *s)
{
	if (l->fmt == LISTING_JSON) {
		json_put(l, label, json_text(s));
		return;
	}
	text_line(l, label, s);
}

/* listing_str() of a printf-formatted value */
static void put_strv(listing *l, const char *label, const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0) {
		l->failed = 1;
		return;
	}
	listing_str(l, label, s);
	free(s);
}

void listing_fmt(listing *l, const char *label, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	put_strv(l, label, fmt, ap);
	va_end(ap);
}

void listing_num_text(listing *l, const char *label, int64_t v, const char *fmt, ...)
{
	va_list ap;

	if (l->fmt == LISTING_JSON) {
		json_put(l, label, json_object_new_int64(v));
		return;
	}
	va_start(ap, fmt);
	put_strv(l, label, fmt, ap);
	va_end(ap);
}

void listing_time(listing *l, const char *label, int64_t sec)
{
	char buf[64];

	if (l->fmt == LISTING_JSON) {
		json_put(l, label, json_object_new_int64(sec));
		return;
	}
	text_line(l, label, listing_ctime(sec, buf, sizeof(buf)));
}

/* ---- lists of words --------------------------------------------------- */
static void list_reset(listing *l)
{
	free(l->list_label);
	free(l->list_text);
	l->list_label = l->list_text = NULL;
	l->list_len = l->list_cap = 0;
	if (l->list_arr)
		json_object_put(l->list_arr);
	l->list_arr = NULL;
}

void listing_list_begin(listing *l, const char *label)
{
	list_reset(l);
	l->list_label = strdup(label ? label : "");
	if (!l->list_label)
		l->failed = 1;
	if (l->fmt == LISTING_JSON) {
		l->list_arr = json_object_new_array();
		if (!l->list_arr)
			l->failed = 1;
	}
}

void listing_list_add(listing *l, const char *word)
{
	size_t wl = strlen(word);

	if (l->fmt == LISTING_JSON) {
		if (l->list_arr && json_object_array_add(l->list_arr, json_text(word)))
			l->failed = 1;
		return;
	}
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

void listing_list_end(listing *l, const char *empty_text)
{
	if (l->fmt == LISTING_JSON) {
		json_put(l, l->list_label, l->list_arr);
		l->list_arr = NULL;	/* now owned by the document */
	} else {
		text_line(l, l->list_label ? l->list_label : "",
			  l->list_len ? l->list_text : (empty_text ? empty_text : ""));
	}
	list_reset(l);
}

/* ---- nesting ---------------------------------------------------------- */
static void open_container(listing *l, const char *key, json_object *c)
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
	json_put(l, key, c);
	json_object_get(c);
	l->stack[l->depth++] = c;
}

void listing_object(listing *l, const char *key)
{
	open_container(l, key, l->fmt == LISTING_JSON ? json_object_new_object() : NULL);
}

void listing_array(listing *l, const char *key)
{
	open_container(l, key, l->fmt == LISTING_JSON ? json_object_new_array() : NULL);
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
