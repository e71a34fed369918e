/* cmd_dir.c */
#include "debugfs.h"
