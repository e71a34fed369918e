/* recovery.c: see e4.h */
#include "e4_private.h"
