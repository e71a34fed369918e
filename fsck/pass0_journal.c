/* fsck/pass0_journal.c: placeholder, being written */
#include <stddef.h>
