/*
 * bin/regtrack — the user and CI tool. Offline: parse, detect,
 * compare-samples. Online (against a server): submit, compare, bisect, job,
 * regression.
 *
 * Global options before the command: --server URL and --token TOKEN (also
 * --server=URL); they stand for REGTRACK_SERVER and REGTRACK_TOKEN, and the
 * same flags after the command override them.
 */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
};

static const struct command commands[] = {
	{ "parse", cmd_parse,
	  "parse TOOL FILE            tool output -> metrics JSON (--result: a result document)" },
	{ "detect", cmd_detect,
	  "detect FILE                change points of one series (--score DIR: against labels)" },
	{ "compare-samples", cmd_compare_samples,
	  "compare-samples A B        two sample sets -> verdict" },
	{ "submit", cmd_submit, "submit FILE...             upload result documents" },
	{ "compare", cmd_compare, "compare --base SHA --head SHA [filters] [--text] [--gate]" },
	{ "bisect", cmd_bisect, "bisect start|show ID|list   run or read a bisect" },
	{ "test", cmd_test, "test --base REF --head REF|--patches F ...  A/B test a change" },
	{ "job", cmd_job, "job submit|show|list|wait|cancel   queue, follow or cancel a job" },
	{ "regression", cmd_regression,
	  "regression invalid ID --reason TEXT | show ID   mark a false alarm, or show a record" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* the global options: flag -> environment variable */
static const struct {
	const char *flag, *env;
} globals[] = {
	{ "--server", "REGTRACK_SERVER" },
	{ "--token", "REGTRACK_TOKEN" },
};

static int usage(FILE *f)
{
	fprintf(f, "usage: regtrack [--server URL] [--token TOKEN] COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %s\n", commands[i].usage);
	fprintf(f, "\n'regtrack COMMAND --help' shows a command's options.\n"
		   "online commands take --server URL (or REGTRACK_SERVER, default "
		   "http://127.0.0.1:8080) and --token TOKEN (or REGTRACK_TOKEN), before or after "
		   "the command\n"
		   "exit codes: " CLI_EXIT_CODES "\n");
	return 2;
}

int cli_flag_is(const char *arg, const char *flag)
{
	if (strncmp(arg, "--", 2) || strncmp(flag, "--", 2))
		return 0;
	for (arg += 2, flag += 2; *arg && *flag; arg++, flag++)
		if (*arg != *flag && !(strchr("-_", *arg) && strchr("-_", *flag)))
			return 0;
	return !*arg && !*flag;
}

json_t *cli_list_json(const char *list)
{
	json_t *a = json_array();

	if (!*list)
		return a;
	for (;;) {
		const char *end = strchrnul(list, ',');
		json_t *s = json_stringn(list, (size_t)(end - list));

		/* not UTF-8: null, which the server names as not a string */
		json_array_append_new(a, s ? s : json_null());
		if (!*end)
			return a;
		list = end + 1;
	}
}

/* "k=v,k2=v2" into o; a value that reads as a number becomes one */
static int params_kv(json_t *o, const char *s)
{
	char *copy = strdup(s), *save = NULL, *kv;

	if (!copy)
		abort();
	for (kv = strtok_r(copy, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '='), *end;
		double d;

		if (!eq || eq == kv) {
			free(copy);
			return -1;
		}
		*eq++ = '\0';
		d = strtod(eq, &end);
		json_object_set_new(o, kv,
				    *eq && !*end && isfinite(d) ?
					    (d == (double)(json_int_t)d && !strchr(eq, '.') ?
						     json_integer((json_int_t)d) :
						     json_real(d)) :
					    json_string(eq));
	}
	free(copy);
	return 0;
}

int cli_params_add(json_t *params, const char *arg, char *why, size_t n)
{
	json_t *v;

	if (arg[strspn(arg, " \t")] == '{') {
		json_error_t je;

		v = json_loads(arg, 0, &je);
		if (!json_is_object(v)) {
			snprintf(why, n, "--params '%s' is not a JSON object: %s", arg,
				 v ? "another JSON value" : je.text);
			json_decref(v);
			return -1;
		}
	} else {
		v = json_object();
		if (!*arg || params_kv(v, arg)) {
			snprintf(why, n, "--params '%s' is neither k=v,k2=v2 nor a JSON object",
				 arg);
			json_decref(v);
			return -1;
		}
	}
	json_object_update(params, v);
	json_decref(v);
	return 0;
}

int cli_unknown_command(const char *cmd, const char *word, const char *const *names, size_t n)
{
	fprintf(stderr, "regtrack: unknown command '%s%s%s'\n", cmd ? cmd : "", cmd ? " " : "",
		word);
	fprintf(stderr, "%s%s commands: ", cmd ? "regtrack " : "regtrack", cmd ? cmd : "");
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s%s", i ? ", " : "", names[i]);
	fprintf(stderr, " ('regtrack %s%s--help' for more)\n", cmd ? cmd : "", cmd ? " " : "");
	return CLI_EXIT_USAGE;
}

int cli_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return 0;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return 1;
	}
	return 0;
}

/* Takes the global options off the front of argv into the environment; the index of the command. */
static int take_globals(int argc, char **argv)
{
	int i = 1;

	while (i < argc && !strncmp(argv[i], "--", 2) && strcmp(argv[i], "--help")) {
		size_t k, n;
		const char *v = NULL;

		for (k = 0; k < sizeof(globals) / sizeof(globals[0]); k++) {
			n = strlen(globals[k].flag);
			if (!strncmp(argv[i], globals[k].flag, n) &&
			    (!argv[i][n] || argv[i][n] == '='))
				break;
		}
		if (k == sizeof(globals) / sizeof(globals[0]))
			return -i;
		if (argv[i][n] == '=') {
			v = argv[i] + n + 1;
			i++;
		} else if (i + 1 < argc) {
			v = argv[i + 1];
			i += 2;
		} else {
			fprintf(stderr, "regtrack: %s needs a value\n", globals[k].flag);
			return -i;
		}
		setenv(globals[k].env, v, 1);
	}
	return i;
}

int main(int argc, char **argv)
{
	int at = take_globals(argc, argv);

	if (at < 0) {
		fprintf(stderr, "regtrack: unknown option '%s'\n", argv[-at]);
		return usage(stderr);
	}
	if (at >= argc)
		return usage(stderr);
	if (!strcmp(argv[at], "-h") || !strcmp(argv[at], "--help") || !strcmp(argv[at], "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(argv[at], commands[i].name))
			return commands[i].fn(argc - at, argv + at);
	{
		const char *names[NR_COMMANDS];

		for (size_t i = 0; i < NR_COMMANDS; i++)
			names[i] = commands[i].name;
		return cli_unknown_command(NULL, argv[at], names, NR_COMMANDS);
	}
}
