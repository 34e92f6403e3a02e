/* placeholder: replaced by the thin HTTP client below in this issue */
#include "cli.h"

#include <stdio.h>

#include "banned.h"

int cmd_submit(int argc, char **argv)
{
	fprintf(stderr, "regtrack: '%s' is not built yet\n", argv[0]);
	return 2;
}

int cmd_compare(int argc, char **argv)
{
	fprintf(stderr, "regtrack: '%s' is not built yet\n", argv[0]);
	return 2;
}
