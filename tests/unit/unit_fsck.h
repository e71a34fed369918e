/*
 * unit_fsck.h: what e4fsck's unit tests (test_pass1, test_pass5,
 * test_check_map) share, in unit_fsck.c: the scratch images, a run's
 * context on an image, and the stop e4fsck_exit() makes.
 */
#ifndef UNIT_FSCK_H
#define UNIT_FSCK_H

#include <setjmp.h>
#include "e4fsck.h"
#include "unit_images.h"

/* The test's scratch images (unit_images.h); unit_fsck_teardown() removes
 * them. */
extern struct unit_images unit_fsck_imgs;
/* Armed by a test that expects a stop (preen): e4fsck_exit() (defined in
 * unit_fsck.c) jumps there; unarmed, a stop fails the test. */
extern jmp_buf *unit_fsck_stop_at;

/* The scratch folder for tag, and the image pass 1 and pass 5 share
 * ("ext4.img": 1 KiB blocks, 4 groups of 2048, metadata_csum, flex_bg):
 * its path (unit_fsck_imgs.ok cleared when mke2fs failed). */
const char *unit_fsck_ext4_image(const char *tag);
/* A cmocka group teardown: the images removed. */
int unit_fsck_teardown(void **state);

/* *ctx zeroed and set for a run in answer mode a on image (read-only
 * for ANSWER_NO), the filesystem opened (asserted); the test skips when
 * the images could not be made. */
void unit_fsck_open(struct e4fsck *ctx, const char *image, enum e4fsck_answer a);
/* Close what unit_fsck_open() opened (asserted) and release the problem
 * engine's tallies. */
void unit_fsck_close(struct e4fsck *ctx);

#endif
