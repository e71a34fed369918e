/* Unit tests for common/optlist.c: the "key[=value],..." walker behind
 * -E, -J and -o. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "optlist.h"

/* walk list into "key=val;key;..." (val "(null)" when absent) */
static void walk(const char *list, char *out, size_t len)
{
	struct optlist o;
	char *k, *v;

	out[0] = 0;
	assert_int_equal(optlist_start(&o, list), 0);
	while (optlist_next(&o, &k, &v)) {
		size_t n = strlen(out);

		snprintf(out + n, len - n, "%s%s%s;", k, v ? "=" : "", v ? v : "");
	}
	optlist_done(&o);
}

static void items_and_values(void **state)
{
	char out[256];

	(void)state;
	walk("stride=16,stripe_width=64,nodiscard", out, sizeof(out));
	assert_string_equal(out, "stride=16;stripe_width=64;nodiscard;");
	/* only the first '=' splits: the value keeps the rest */
	walk("mount_opts=a=b", out, sizeof(out));
	assert_string_equal(out, "mount_opts=a=b;");
	/* an empty value is not a missing one */
	walk("size=", out, sizeof(out));
	assert_string_equal(out, "size=;");
}

static void hyphens_and_empty_items(void **state)
{
	char out[256];

	(void)state;
	/* mke2fs takes stripe-width for stripe_width; values keep hyphens */
	walk("stripe-width=8,hash-alg=half-md4", out, sizeof(out));
	assert_string_equal(out, "stripe_width=8;hash_alg=half-md4;");
	walk(",,test_fs,,^test_fs,", out, sizeof(out));
	assert_string_equal(out, "test_fs;^test_fs;");
	walk("", out, sizeof(out));
	assert_string_equal(out, "");
	walk(NULL, out, sizeof(out));
	assert_string_equal(out, "");
}

static void list_not_modified(void **state)
{
	const char list[] = "a-b=c,d";
	char copy[sizeof(list)], out[64];

	(void)state;
	memcpy(copy, list, sizeof(list));
	walk(copy, out, sizeof(out));
	assert_string_equal(out, "a_b=c;d;");
	assert_memory_equal(copy, list, sizeof(list));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(items_and_values),
		cmocka_unit_test(hyphens_and_empty_items),
		cmocka_unit_test(list_not_modified),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
