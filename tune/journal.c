/* tune/journal.c: placeholder, being written */
#include <stddef.h>
