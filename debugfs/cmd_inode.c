/* cmd_inode.c */
#include "debugfs.h"
