#ifndef E4DEBUGFS_H
#define E4DEBUGFS_H
#include "e4.h"
#endif
