/* lib/e4/orphan.c: placeholder, being written */
#include "e4_private.h"
