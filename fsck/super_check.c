/* fsck/super_check.c: placeholder, being written */
#include <stddef.h>
