/*
 * fsck_run.c: e4fsck's main.c with its main renamed, for a target that
 * runs e4fsck_run() beside another tool's code (fuzz_tune.c checks with
 * it what e4tune left).
 */
#define main e4fsck_main
#include "../../fsck/main.c"
#undef main
