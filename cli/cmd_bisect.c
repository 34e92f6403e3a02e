/*
 * regtrack bisect start --tree T --good SHA --bad SHA --testcase TC --kconfig K --metric M
 *                       [--params k=v,...|JSON] [--compiler C] [--tbox-group G | --arch A]
 *                       [--runs-per-step N] [--ref-runs N] [--k N]
 * regtrack bisect show ID
 * regtrack bisect list
 *
 * Online: --server URL (or REGTRACK_SERVER), --token TOKEN (or REGTRACK_TOKEN).
 * Prints the server's JSON answer; exit 0, or 2 on a usage error (also
 * start without its required flags: nothing is sent) or an error answer
 * (its message on stderr). --tbox_group is the same as --tbox-group.
 */
#include "cli.h"
#include "http_client.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: regtrack bisect start --tree T --good SHA --bad SHA --testcase TC --kconfig K\n"
	"                             --metric M [--params k=v,...|JSON] [--compiler C]\n"
	"                             [--tbox-group G | --arch A] [--runs-per-step N]\n"
	"                             [--ref-runs N] [--k N]\n"
	"       regtrack bisect show ID\n"
	"       regtrack bisect list\n"
	"  start: POST /api/v1/bisects (the first bad commit of good..bad for metric);\n"
	"  show, list: GET /api/v1/bisects[/ID]; the server's JSON on stdout\n";

/* flag -> JSON key, type (s string, i integer, j JSON object), required */
static const struct {
	const char *flag, *key;
	char type;
	int required;
} start_flags[] = {
	{ "--tree", "tree", 's', 1 },
	{ "--good", "good", 's', 1 },
	{ "--bad", "bad", 's', 1 },
	{ "--testcase", "testcase", 's', 1 },
	{ "--params", "params", 'j', 0 },
	{ "--kconfig", "kconfig", 's', 1 },
	{ "--compiler", "compiler", 's', 0 },
	{ "--tbox-group", "tbox_group", 's', 0 },
	{ "--arch", "arch", 's', 0 },
	{ "--metric", "metric", 's', 1 },
	{ "--runs-per-step", "runs_per_step", 'i', 0 },
	{ "--ref-runs", "ref_runs", 'i', 0 },
	{ "--k", "k", 'i', 0 },
};

static int usage(void)
{
	fputs(usage_text, stderr);
	return 2;
}

#define NR_START_FLAGS (sizeof(start_flags) / sizeof(start_flags[0]))

/* prints the answer; 0 on 2xx, 2 otherwise */
static int answer(long status, struct buf *out, struct err *e)
{
	json_t *j;

	if (status < 0) {
		fprintf(stderr, "regtrack: %s\n", e->message);
		return 2;
	}
	j = json_loads(out->data, 0, NULL);
	if (status >= 300) {
		json_t *er = json_object_get(j, "error");
		fprintf(stderr, "regtrack: server answered %ld: %s%s%s\n", status,
			er ? json_string_value(json_object_get(er, "message")) : out->data,
			er ? " " : "", er ? json_string_value(json_object_get(er, "detail")) : "");
		json_decref(j);
		return 2;
	}
	if (j) {
		json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(j);
	} else {
		fputs(out->data, stdout);
	}
	return 0;
}

static int do_start(struct http_client *hc, int argc, char **argv)
{
	json_t *b = json_object();
	struct buf out = BUF_INIT(0);
	struct err e;
	char *text;
	long status;
	int ret;

	for (int i = 0; i < argc; i++) {
		size_t k;
		for (k = 0; k < NR_START_FLAGS; k++)
			if (cli_flag_is(argv[i], start_flags[k].flag))
				break;
		if (k == NR_START_FLAGS || i + 1 >= argc) {
			fprintf(stderr,
				k == NR_START_FLAGS ?
					"regtrack: bisect start: unknown option '%s'\n" :
					"regtrack: bisect start: %s needs a value\n",
				argv[i]);
			json_decref(b);
			return usage();
		}
		i++;
		if (start_flags[k].type == 's') {
			json_object_set_new(b, start_flags[k].key, json_string(argv[i]));
		} else if (start_flags[k].type == 'i') {
			char *end;
			long v = strtol(argv[i], &end, 10);
			if (*end || end == argv[i]) {
				fprintf(stderr, "regtrack: %s needs an integer, not '%s'\n",
					argv[i - 1], argv[i]);
				json_decref(b);
				return 2;
			}
			json_object_set_new(b, start_flags[k].key, json_integer(v));
		} else {
			char why[512];
			json_t *p = json_object_get(b, start_flags[k].key);

			if (!p)
				json_object_set_new(b, start_flags[k].key, p = json_object());
			/* repeated, they add up */
			if (cli_params_add(p, argv[i], why, sizeof(why))) {
				fprintf(stderr, "regtrack: bisect start: %s\n", why);
				json_decref(b);
				return 2;
			}
		}
	}
	for (size_t k = 0; k < NR_START_FLAGS; k++)
		if (start_flags[k].required && !json_object_get(b, start_flags[k].key)) {
			fprintf(stderr, "regtrack: bisect start: %s is required\n",
				start_flags[k].flag);
			json_decref(b);
			return usage();
		}
	text = json_dumps(b, JSON_COMPACT);
	json_decref(b);
	status = http_client_request(hc, "POST", "/api/v1/bisects", text, strlen(text), &out, &e);
	free(text);
	ret = answer(status, &out, &e);
	buf_release(&out);
	return ret;
}

static int do_get(struct http_client *hc, const char *path)
{
	struct buf out = BUF_INIT(0);
	struct err e;
	long status = http_client_request(hc, "GET", path, NULL, 0, &out, &e);
	int ret = answer(status, &out, &e);

	buf_release(&out);
	return ret;
}

int cmd_bisect(int argc, char **argv)
{
	struct http_client hc;
	char path[64];

	http_client_init(&hc, &argc, argv);
	if (cli_wants_help(argc, argv)) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "start"))
		return do_start(&hc, argc - 2, argv + 2);
	if (!strcmp(argv[1], "list") && argc == 2)
		return do_get(&hc, "/api/v1/bisects");
	if (!strcmp(argv[1], "show") && argc == 3) {
		char *end;
		long long id = strtoll(argv[2], &end, 10);
		if (*end || id <= 0) {
			fprintf(stderr, "regtrack: bisect show needs a bisect id, not '%s'\n",
				argv[2]);
			return 2;
		}
		snprintf(path, sizeof(path), "/api/v1/bisects/%lld", id);
		return do_get(&hc, path);
	}
	if (strcmp(argv[1], "list") && strcmp(argv[1], "show"))
		return cli_unknown_command("bisect", argv[1],
					   (const char *const[]){ "start", "show", "list" }, 3);
	return usage();
}
