/* fsck/main.c: placeholder */
#include <stdio.h>
int main(void)
{
	fputs("not implemented yet\n", stderr);
	return 8;
}
