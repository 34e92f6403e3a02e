/* placeholder until its issue lands: the subcommand reports it is missing */
#include "cli.h"

#include <stdio.h>

#include "banned.h"

int cmd_detect(int argc, char **argv)
{
	fprintf(stderr, "regtrack: '%s' is not built yet\n", argv[0]);
	return 2;
}
