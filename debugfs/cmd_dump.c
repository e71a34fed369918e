/* cmd_dump.c */
#include "debugfs.h"
