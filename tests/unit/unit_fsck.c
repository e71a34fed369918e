/*
 * unit_fsck.c: what e4fsck's unit tests share (unit_fsck.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unit_fsck.h"

struct unit_images unit_fsck_imgs;
jmp_buf *unit_fsck_stop_at;

void e4fsck_exit(struct e4fsck *ctx)
{
	(void)ctx;
	if (unit_fsck_stop_at)
		longjmp(*unit_fsck_stop_at, 1);
	fail_msg("the run stopped (e4fsck_exit)");
	abort();
}

const char *unit_fsck_ext4_image(const char *tag)
{
	if (unit_images_init(&unit_fsck_imgs, tag))
		return NULL;
	return unit_image_add(&unit_fsck_imgs, "ext4.img", "-t ext4 -b 1024 -g 2048", "8M");
}

int unit_fsck_teardown(void **state)
{
	(void)state;
	unit_images_remove(&unit_fsck_imgs);
	return 0;
}

void unit_fsck_open(struct e4fsck *ctx, const char *image, enum e4fsck_answer a)
{
	if (!unit_fsck_imgs.ok)
		skip();
	memset(ctx, 0, sizeof(*ctx));
	ctx->prog = "e4fsck";
	ctx->device = image;
	ctx->answer = a;
	ctx->read_only = a == ANSWER_NO;
	assert_int_equal(e4_open(image, ctx->read_only ? 0 : E4_OPEN_RW, 0, 0, &ctx->fs), 0);
}

void unit_fsck_close(struct e4fsck *ctx)
{
	assert_int_equal(e4_close(ctx->fs), 0);
	ctx->fs = NULL;
	e4fsck_problem_release(ctx);
}
