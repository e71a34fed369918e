/* debugfs.c */
#include "debugfs.h"
int main(void){return 1;}
