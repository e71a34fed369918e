/* cmd_super.c */
#include "debugfs.h"
