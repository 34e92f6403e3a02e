/*
 * regtrack regression invalid ID --reason TEXT
 * regtrack regression show ID
 *
 * invalid: POST /api/v1/regressions/ID/invalid {"reason": TEXT} (admin
 * token): the one step to call a regression record a false alarm, the
 * reason kept as its history note (the report mail prints this command);
 * prints "regression ID: FROM -> invalid"; for a record already invalid,
 * that it was already invalid with that reason (the reply's "changed" is
 * false: the server wrote nothing) or that the new reason is kept as a
 * note. show: the record's JSON (GET /api/v1/regressions/ID).
 * Online: --server URL (or REGTRACK_SERVER), --token TOKEN (or
 * REGTRACK_TOKEN). Exit 0, or 2 on a usage error (nothing is sent) or an
 * error answer (its message on stderr).
 */
#include "cli.h"
#include "http_client.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"usage: regtrack regression invalid ID --reason TEXT\n"
	"       regtrack regression show ID\n"
	"  invalid: mark regression ID a false alarm (admin token), the reason kept in its\n"
	"           history; it then counts as one in GET /api/v1/quality\n"
	"  show:    the record as JSON (GET /api/v1/regressions/ID)\n";

static int usage(void)
{
	fputs(usage_text, stderr);
	return CLI_EXIT_USAGE;
}

/* a positive record id, or 0 (message on stderr) */
static long long parse_id(const char *s)
{
	char *end;
	long long id = strtoll(s, &end, 10);

	if (*end || end == s || id <= 0) {
		fprintf(stderr, "regtrack: regression: '%s' is not a regression id\n", s);
		return 0;
	}
	return id;
}

/* the reply as JSON (new), or NULL after saying what went wrong on stderr */
static json_t *request(struct http_client *hc, const char *method, const char *path,
		       const char *body)
{
	struct buf out = BUF_INIT(0);
	struct err e;
	long status = http_client_request(hc, method, path, body, body ? strlen(body) : 0, &out,
					  &e);
	json_t *j = NULL, *er;

	if (status < 0) {
		fprintf(stderr, "regtrack: %s\n", e.message);
	} else {
		j = json_loads(out.data, 0, NULL);
		if (status >= 300 || !j) {
			er = json_object_get(j, "error");
			fprintf(stderr, "regtrack: server answered %ld: %s%s%s\n", status,
				er ? json_string_value(json_object_get(er, "message")) : out.data,
				er ? " " : "",
				er ? json_string_value(json_object_get(er, "detail")) : "");
			json_decref(j);
			j = NULL;
		}
	}
	buf_release(&out);
	return j;
}

static int do_invalid(struct http_client *hc, int argc, char **argv)
{
	const char *reason = NULL, *id_s = NULL, *from;
	json_t *b, *r, *hist, *last;
	long long id;
	char path[64], *text;

	for (int i = 0; i < argc; i++) {
		if (cli_flag_is(argv[i], "--reason") && i + 1 < argc) {
			reason = argv[++i];
		} else if (cli_flag_is(argv[i], "--reason")) {
			fprintf(stderr, "regtrack: regression invalid: --reason needs a value\n");
			return usage();
		} else if (!strncmp(argv[i], "--reason=", 9)) {
			reason = argv[i] + 9;
		} else if (argv[i][0] != '-' && !id_s) {
			id_s = argv[i];
		} else {
			fprintf(stderr, "regtrack: regression invalid: unexpected '%s'\n", argv[i]);
			return usage();
		}
	}
	if (!id_s || !reason) {
		fprintf(stderr, "regtrack: regression invalid: %s is required\n",
			id_s ? "--reason" : "the regression id");
		return usage();
	}
	id = parse_id(id_s);
	if (!id)
		return CLI_EXIT_USAGE;
	b = json_pack("{s:s?}", "reason", reason);
	if (!b) {
		fprintf(stderr, "regtrack: regression invalid: --reason is not UTF-8\n");
		return CLI_EXIT_USAGE;
	}
	text = json_dumps(b, JSON_COMPACT);
	json_decref(b);
	snprintf(path, sizeof(path), "/api/v1/regressions/%lld/invalid", id);
	r = request(hc, "POST", path, text);
	free(text);
	if (!r)
		return CLI_EXIT_USAGE;
	hist = json_object_get(r, "history");
	last = json_array_get(hist, json_array_size(hist) ? json_array_size(hist) - 1 : 0);
	from = json_string_value(json_object_get(last, "from"));
	if (json_is_false(json_object_get(r, "changed")))
		/* the server wrote nothing: the history's last row is an earlier one */
		printf("regression %lld: already invalid with that reason (nothing changed)\n", id);
	else if (from && !strcmp(from, "invalid"))
		printf("regression %lld: already invalid; the new reason is kept as a note\n", id);
	else
		printf("regression %lld: %s -> %s\n", id, from ?: "?",
		       json_string_value(json_object_get(r, "state")) ?: "?");
	json_decref(r);
	return CLI_EXIT_OK;
}

int cmd_regression(int argc, char **argv)
{
	struct http_client hc;
	char path[64];
	long long id;
	json_t *r;

	http_client_init(&hc, &argc, argv);
	if (cli_wants_help(argc, argv)) {
		fputs(usage_text, stdout);
		return CLI_EXIT_OK;
	}
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "invalid"))
		return do_invalid(&hc, argc - 2, argv + 2);
	if (!strcmp(argv[1], "show") && argc == 3) {
		if (!(id = parse_id(argv[2])))
			return CLI_EXIT_USAGE;
		snprintf(path, sizeof(path), "/api/v1/regressions/%lld", id);
		r = request(&hc, "GET", path, NULL);
		if (!r)
			return CLI_EXIT_USAGE;
		json_dumpf(r, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(r);
		return CLI_EXIT_OK;
	}
	if (strcmp(argv[1], "show"))
		return cli_unknown_command("regression", argv[1],
					   (const char *const[]){ "invalid", "show" }, 2);
	return usage();
}
