/*
 * bin/regtrack — the user and CI tool. Offline: parse, detect,
 * compare-samples. Online (against a server): submit, compare.
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#include "banned.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
};

static const struct command commands[] = {
	{ "parse", cmd_parse, "parse TOOL FILE            tool output -> metrics JSON" },
	{ "detect", cmd_detect, "detect FILE                change points of one series" },
	{ "compare-samples", cmd_compare_samples,
	  "compare-samples A B        two sample sets -> verdict" },
	{ "submit", cmd_submit, "submit FILE...             upload result documents" },
	{ "compare", cmd_compare, "compare --base SHA --head SHA [filters]" },
	{ "bisect", cmd_bisect, "bisect start|show ID|list   run or read a bisect" },
	{ "test", cmd_test, "test --base REF --head REF|--patches F ...  A/B test a change" },
};

static int usage(FILE *f)
{
	fprintf(f, "usage: regtrack COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %s\n", commands[i].usage);
	fprintf(f, "\nonline commands take --server URL (or REGTRACK_SERVER) and "
		   "--token TOKEN (or REGTRACK_TOKEN)\n"
		   "exit codes: 0 ok, 1 regression found (gate), 2 usage or input error\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "regtrack: unknown command '%s'\n", argv[1]);
	return usage(stderr);
}
