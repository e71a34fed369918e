/*
 * pass2.c: pass 2 of the full check (dirpass.h): not built yet; it runs
 * nothing and leaves its p->ran bit clear.
 */
#include "dirpass.h"

errcode_t e4fsck_pass2(struct e4fsck *ctx, struct pass1 *p)
{
	(void)ctx;
	(void)p;
	return 0;
}
