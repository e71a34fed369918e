/* tune/list.c: placeholder, being written */
#include <stddef.h>
