/* fsck/problem.c: placeholder, being written */
#include <stddef.h>
