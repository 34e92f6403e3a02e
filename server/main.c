#include <stdio.h>

#include "banned.h"

int main(void)
{
	fputs("regtrack-server: not built yet\n", stderr);
	return 2;
}
