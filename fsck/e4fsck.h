/* fsck/e4fsck.h: being written */
#ifndef E4FSCK_H
#define E4FSCK_H
#endif
