/*
 * alloc.c: changing block and inode usage (format doc sections 4, 5).
 */
#include "e4_private.h"
