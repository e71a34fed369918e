/* tune/tune.h: being written */
#ifndef E4TUNE_H
#define E4TUNE_H
#endif
