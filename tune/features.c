/* tune/features.c: placeholder, being written */
#include <stddef.h>
