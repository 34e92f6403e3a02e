#include <stdio.h>

#include "banned.h"

int main(void)
{
	fputs("regtrack-worker: not built yet\n", stderr);
	return 2;
}
