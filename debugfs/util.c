/* util.c */
#include "debugfs.h"
