#ifndef REGTRACK_CLI_H
#define REGTRACK_CLI_H

/*
 * Subcommands of bin/regtrack. Each takes the arguments after its name
 * (argv[0] is the subcommand) and returns the process exit code:
 * 0 ok, 1 regression found where a gate was asked for, 2 usage or input error.
 */
int cmd_parse(int argc, char **argv);
int cmd_detect(int argc, char **argv);
int cmd_compare_samples(int argc, char **argv);
int cmd_submit(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
/* regtrack test: an A/B request; exit 3 when it could not be completed (cmd_request.c) */
int cmd_test(int argc, char **argv);

#endif
