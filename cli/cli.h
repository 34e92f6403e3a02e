#ifndef REGTRACK_CLI_H
#define REGTRACK_CLI_H

#include <jansson.h>

/*
 * Subcommands of bin/regtrack. Each takes the arguments after its name
 * (argv[0] is the subcommand) and returns the process exit code (CLI_EXIT_*).
 */
#define CLI_EXIT_OK 0
#define CLI_EXIT_REGRESSION 1 /* compare --gate: a significant regression; job wait: not ok */
#define CLI_EXIT_USAGE 2      /* usage, input or server error */
#define CLI_EXIT_UNDECIDED 3  /* compare --gate could not decide; job wait timed out */
#define CLI_EXIT_CODES                                                                   \
	"0 ok, 1 regression found (gate) or job not ok (job wait), 2 usage or input "    \
	"error, 3 undecided (gate: a row need-more-runs or of unknown direction, or no " \
	"evidence; job wait: timed out)"

int cmd_parse(int argc, char **argv);
int cmd_detect(int argc, char **argv);
int cmd_compare_samples(int argc, char **argv);

struct detect_opts;
/*
 * detect --score PATH (cmd_detect_score.c): the detector with o on each
 * labelled series of PATH (a file, or a directory's *.json and *.txt),
 * scored by lib/stats/cpdscore.h; a table on stdout, or JSON when json.
 * Returns CLI_EXIT_OK or CLI_EXIT_USAGE (input error, said on stderr).
 */
int cmd_detect_score(const char *path, const struct detect_opts *o, int json);

struct detect_series;
/*
 * detect's reasons (cmd_detect_explain.c) for s, run with opts.explain;
 * idvals[id] the commits' ids when the input named them ("ids"), else NULL
 * (a candidate is then named by its group number). cmd_detect_explain():
 * every candidate of s->trace, one line each on stderr ("explain: ...",
 * its sigma's raise where the history raised it) and as the JSON array
 * returned; cmd_detect_none_because(): why no change point was found, the
 * strongest candidate and the rule that dropped it (o: the options behind
 * the rule), one line on stderr and as the object returned. New values,
 * caller decrefs; idvals borrowed.
 */
json_t *cmd_detect_explain(const struct detect_series *s, json_t **idvals);
json_t *cmd_detect_none_because(const struct detect_series *s, const struct detect_opts *o,
				json_t **idvals);
int cmd_submit(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_job(int argc, char **argv);
/* regtrack regression invalid ID --reason TEXT | show ID (cmd_regression.c) */
int cmd_regression(int argc, char **argv);

/*
 * 1 when arg is the long flag `flag`, with '-' and '_' the same after the
 * leading "--" (--tbox-group and --tbox_group).
 */
int cli_flag_is(const char *arg, const char *flag);

/*
 * A flag's comma-separated list ("perf-profile,perf-stat") as a JSON array
 * of its strings, in order, empty ones too ("a," is ["a", ""]); "" is [].
 * Unchecked: the server names a bad element ("monitors[1]"). A piece that
 * is not UTF-8 is null. New, caller decrefs.
 */
json_t *cli_list_json(const char *list);

/*
 * One --params value into the object params (merged: a later key wins, so
 * --params repeated adds up), in either spelling: a value that starts
 * with '{' is a JSON object ('{"nr_task":4,"mode":"thread"}'), any other
 * k=v pairs ("nr_task=4,mode=thread"; a value that reads as a number is
 * one). 0, or -1 with why (a message for the user, n bytes) and params
 * as it was.
 */
int cli_params_add(json_t *params, const char *arg, char *why, size_t n);

/*
 * "regtrack: unknown command 'WORD'" (for a subcommand of cmd, e.g. job:
 * "regtrack: unknown command 'job WORD'") and the one-line list of the
 * commands there are (names[0..n)), on stderr. Returns CLI_EXIT_USAGE.
 * cmd is NULL at the top level.
 */
int cli_unknown_command(const char *cmd, const char *word, const char *const *names, size_t n);

/* 1 when argv[1..argc) asks for help (-h, --help) before a "--". */
int cli_wants_help(int argc, char **argv);
/* regtrack test: an A/B request; exit 3 when it could not be completed (cmd_request.c) */
int cmd_test(int argc, char **argv);

#endif
