/*
 * regtrack job submit --commit SHA|REF --kconfig K --testcase TC [--tree T]
 *                     [--compiler C] [--params k=v,...|JSON] [--arch A | --tbox-group G]
 *                     [--repeat N] [--priority N] [--max-attempts N]
 *                     [--monitors perf-profile,perf-stat]
 * regtrack job show ID
 * regtrack job list [--state S] [--limit N]
 * regtrack job wait ID [--timeout S] [--interval S]
 * regtrack job cancel ID
 *
 * The fields are those of POST /api/v1/jobs (README "API v1"); show, submit
 * and cancel print the server's JSON, list one line per job. wait follows
 * GET /api/v1/jobs/ID and prints each entry of its phase_history once, as
 * it appears, then how it ended.
 *
 * Exit: 0 ok (wait: the job ended with outcome ok), 1 wait: the job ended
 * otherwise (failed, cancelled, an outcome other than ok), 2 usage or an
 * error answer, 3 wait: --timeout passed first.
 */
#include "cli.h"
#include "clock.h"
#include "http_client.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char usage_text[] =
	"usage: regtrack job submit --commit SHA|REF --kconfig K --testcase TC [--tree T]\n"
	"                           [--compiler C] [--params k=v,...|JSON]\n"
	"                           [--arch A | --tbox-group G]\n"
	"                           [--repeat N] [--priority N] [--max-attempts N]\n"
	"                           [--monitors perf-profile,perf-stat]\n"
	"       regtrack job show ID\n"
	"       regtrack job list [--state queued|leased|done|failed|skipped|cancelled] [--limit N]\n"
	"       regtrack job wait ID [--timeout S] [--interval S]\n"
	"       regtrack job cancel ID\n"
	"  submit: POST /api/v1/jobs (kconfig \"host\": host mode, the running kernel);\n"
	"  --commit: a sha, or with --tree a branch, tag or short sha of the tree's mirror;\n"
	"  --params: k=v,k2=v2 or a JSON object, repeated they add up: the case's params,\n"
	"  and the machine it runs on: accel=kvm|tcg|kexec, vcpus=N, pin=true,\n"
	"  hugepages=2M|1G, numa=host|N, measure=icount (README \"What each mode measures\")\n"
	"  --monitors: what runs beside the case (comma list of perf-profile, perf-stat)\n"
	"  wait: prints each phase as it passes; exit 0 when the job ends ok, 1 when it\n"
	"  ends otherwise (failed, cancelled, build-failed, boot-failed, run-failed),\n"
	"  3 when --timeout (default 0: none) passes first\n"
	"  cancel: a queued job at once, a leased one's worker stops at its next heartbeat\n";

/*
 * flag -> JSON key, type (s string, i integer, j JSON object, l comma list
 * as an array), required
 */
static const struct {
	const char *flag, *key;
	char type;
	int required;
} submit_flags[] = {
	{ "--tree", "tree", 's', 0 },
	{ "--commit", "commit", 's', 1 },
	{ "--kconfig", "kconfig", 's', 1 },
	{ "--compiler", "compiler", 's', 0 },
	{ "--testcase", "testcase", 's', 1 },
	{ "--params", "params", 'j', 0 },
	{ "--arch", "arch", 's', 0 },
	{ "--tbox-group", "tbox_group", 's', 0 },
	{ "--repeat", "repeat", 'i', 0 },
	{ "--priority", "priority", 'i', 0 },
	{ "--max-attempts", "max_attempts", 'i', 0 },
	{ "--monitors", "monitors", 'l', 0 },
};

#define NR_SUBMIT_FLAGS (sizeof(submit_flags) / sizeof(submit_flags[0]))

static int usage(void)
{
	fputs(usage_text, stderr);
	return CLI_EXIT_USAGE;
}

static int parse_long(const char *flag, const char *s, long long lo, long long *out)
{
	char *end;
	long long v = strtoll(s, &end, 10);

	if (!*s || *end || v < lo) {
		fprintf(stderr, "regtrack: job: %s needs an integer >= %lld, not '%s'\n", flag, lo,
			s);
		return -1;
	}
	*out = v;
	return 0;
}

/*
 * GET or POST path; *reply the parsed JSON of a 2xx answer (new, caller
 * decrefs). 0, or CLI_EXIT_USAGE with the error on stderr.
 */
static int call(struct http_client *hc, const char *method, const char *path, const char *body,
		json_t **reply)
{
	struct buf out = BUF_INIT(256u << 20);
	struct err e;
	long st = http_client_request(hc, method, path, body, body ? strlen(body) : 0, &out, &e);
	json_t *j;

	*reply = NULL;
	if (st < 0) {
		fprintf(stderr, "regtrack: %s\n", e.message);
		buf_release(&out);
		return CLI_EXIT_USAGE;
	}
	j = json_loads(out.data, 0, NULL);
	if (st >= 300 || !j) {
		json_t *er = json_object_get(j, "error");
		const char *detail = json_string_value(json_object_get(er, "detail"));

		fprintf(stderr, "regtrack: %s %s: %ld %s%s%s%s\n", method, path, st,
			er ? json_string_value(json_object_get(er, "message")) : out.data,
			detail && *detail ? " (" : "", detail && *detail ? detail : "",
			detail && *detail ? ")" : "");
		json_decref(j);
		buf_release(&out);
		return CLI_EXIT_USAGE;
	}
	buf_release(&out);
	*reply = j;
	return 0;
}

static void print_json(json_t *j)
{
	json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
}

static int do_submit(struct http_client *hc, int argc, char **argv)
{
	json_t *b = json_object(), *reply;
	char *text;
	int ret;

	for (int i = 0; i < argc; i++) {
		size_t k;

		for (k = 0; k < NR_SUBMIT_FLAGS; k++)
			if (cli_flag_is(argv[i], submit_flags[k].flag))
				break;
		if (k == NR_SUBMIT_FLAGS || i + 1 >= argc) {
			fprintf(stderr,
				k == NR_SUBMIT_FLAGS ?
					"regtrack: job submit: unknown option '%s'\n" :
					"regtrack: job submit: %s needs a value\n",
				argv[i]);
			json_decref(b);
			return usage();
		}
		i++;
		if (submit_flags[k].type == 's') {
			json_object_set_new(b, submit_flags[k].key, json_string(argv[i]));
		} else if (submit_flags[k].type == 'i') {
			long long v;

			if (parse_long(submit_flags[k].flag, argv[i], -1000000, &v)) {
				json_decref(b);
				return CLI_EXIT_USAGE;
			}
			json_object_set_new(b, submit_flags[k].key, json_integer(v));
		} else if (submit_flags[k].type == 'l') {
			json_object_set_new(b, submit_flags[k].key, cli_list_json(argv[i]));
		} else {
			char why[512];
			json_t *p = json_object_get(b, submit_flags[k].key);

			if (!p)
				json_object_set_new(b, submit_flags[k].key, p = json_object());
			/* repeated, they add up */
			if (cli_params_add(p, argv[i], why, sizeof(why))) {
				fprintf(stderr, "regtrack: job submit: %s\n", why);
				json_decref(b);
				return CLI_EXIT_USAGE;
			}
		}
	}
	for (size_t k = 0; k < NR_SUBMIT_FLAGS; k++)
		if (submit_flags[k].required && !json_object_get(b, submit_flags[k].key)) {
			fprintf(stderr, "regtrack: job submit: %s is required\n",
				submit_flags[k].flag);
			json_decref(b);
			return usage();
		}
	text = json_dumps(b, JSON_COMPACT);
	json_decref(b);
	ret = call(hc, "POST", "/api/v1/jobs", text, &reply);
	free(text);
	if (!ret)
		print_json(reply);
	json_decref(reply);
	return ret;
}

static const char *str_of(json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : "";
}

static int do_list(struct http_client *hc, int argc, char **argv)
{
	char path[256];
	const char *state = NULL;
	long long limit = 0;
	json_t *reply, *j;
	size_t i;
	int ret;

	for (int k = 0; k < argc; k++) {
		if (!strcmp(argv[k], "--state") && k + 1 < argc) {
			state = argv[++k];
		} else if (!strcmp(argv[k], "--limit") && k + 1 < argc) {
			if (parse_long("--limit", argv[++k], 1, &limit))
				return CLI_EXIT_USAGE;
		} else {
			fprintf(stderr, "regtrack: job list: unknown option '%s'\n", argv[k]);
			return usage();
		}
	}
	if (state && strspn(state, "abcdefghijklmnopqrstuvwxyz") != strlen(state)) {
		fprintf(stderr, "regtrack: job list: no state '%s'\n", state);
		return CLI_EXIT_USAGE;
	}
	snprintf(path, sizeof(path), "/api/v1/jobs%s%s%s", state || limit ? "?" : "",
		 state ? "state=" : "", state ? state : "");
	if (limit)
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "%slimit=%lld",
			 state ? "&" : "", limit);
	ret = call(hc, "GET", path, NULL, &reply);
	if (ret)
		return ret;
	/* one line a job: id, state (outcome), testcase and params, commit, phase, machine */
	json_array_foreach (reply, i, j) {
		char *params = json_dumps(json_object_get(j, "params"),
					  JSON_COMPACT | JSON_SORT_KEYS);
		const char *outcome = str_of(j, "outcome");

		printf("%-6lld %-9s %-12s %s %s %.12s %s %s\n",
		       (long long)json_integer_value(json_object_get(j, "id")), str_of(j, "state"),
		       *outcome ? outcome : "-", str_of(j, "testcase"), params ? params : "{}",
		       str_of(j, "commit"), *str_of(j, "phase") ? str_of(j, "phase") : "-",
		       *str_of(j, "machine") ? str_of(j, "machine") : "-");
		free(params);
	}
	json_decref(reply);
	return 0;
}

/* "AT  PHASE  k=v …" of one phase_history entry */
static void print_phase(long long id, json_t *entry)
{
	const char *k;
	json_t *v;

	printf("job %lld: %s %s", id, str_of(entry, "at"), str_of(entry, "phase"));
	json_object_foreach (entry, k, v) {
		/* an empty message says nothing: "upload progress=1", not "message= progress=1" */
		if (!strcmp(k, "at") || !strcmp(k, "phase") || json_is_null(v) ||
		    (json_is_string(v) && !*json_string_value(v)))
			continue;
		if (json_is_string(v)) {
			printf(" %s=%s", k, json_string_value(v));
		} else {
			char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
			printf(" %s=%s", k, t ? t : "?");
			free(t);
		}
	}
	fputc('\n', stdout);
	fflush(stdout);
}

static int do_wait(struct http_client *hc, long long id, int argc, char **argv)
{
	long long timeout = 0, interval_ms = 1000;
	size_t seen = 0;
	char path[64];
	double t0 = mono_s();

	for (int k = 0; k < argc; k++) {
		long long v;

		if (!strcmp(argv[k], "--timeout") && k + 1 < argc) {
			if (parse_long("--timeout", argv[++k], 0, &timeout))
				return CLI_EXIT_USAGE;
		} else if (!strcmp(argv[k], "--interval") && k + 1 < argc) {
			if (parse_long("--interval", argv[++k], 1, &v))
				return CLI_EXIT_USAGE;
			interval_ms = v * 1000;
		} else {
			fprintf(stderr, "regtrack: job wait: unknown option '%s'\n", argv[k]);
			return usage();
		}
	}
	snprintf(path, sizeof(path), "/api/v1/jobs/%lld", id);
	for (;;) {
		json_t *j, *hist;
		const char *state, *outcome;
		int ret = call(hc, "GET", path, NULL, &j);

		if (ret)
			return ret;
		hist = json_object_get(j, "phase_history");
		for (; seen < json_array_size(hist); seen++)
			print_phase(id, json_array_get(hist, seen));
		state = str_of(j, "state");
		outcome = str_of(j, "outcome");
		if (strcmp(state, "queued") && strcmp(state, "leased")) {
			const char *reason = str_of(j, "fail_reason");
			int ok = !strcmp(state, "done") && !strcmp(outcome, "ok");

			if (ok)
				printf("job %lld: done, ok, %zu run(s)\n", id,
				       json_array_size(json_object_get(j, "runs")));
			else
				printf("job %lld: %s%s%s%s%s\n", id, state, *outcome ? ", " : "",
				       outcome, *reason ? ": " : "", reason);
			json_decref(j);
			return ok ? CLI_EXIT_OK : CLI_EXIT_REGRESSION;
		}
		if (timeout && mono_s() - t0 >= (double)timeout) {
			fprintf(stderr, "regtrack: job wait: job %lld still %s after %lld s\n", id,
				state, timeout);
			json_decref(j);
			return CLI_EXIT_UNDECIDED;
		}
		json_decref(j);
		{
			struct timespec ts = { interval_ms / 1000,
					       (interval_ms % 1000) * 1000000L };
			nanosleep(&ts, NULL);
		}
	}
}

int cmd_job(int argc, char **argv)
{
	struct http_client hc;
	char path[96];
	long long id;
	json_t *reply;
	int ret;

	http_client_init(&hc, &argc, argv);
	if (cli_wants_help(argc, argv)) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "submit"))
		return do_submit(&hc, argc - 2, argv + 2);
	if (!strcmp(argv[1], "list"))
		return do_list(&hc, argc - 2, argv + 2);
	if (strcmp(argv[1], "show") && strcmp(argv[1], "wait") && strcmp(argv[1], "cancel"))
		return cli_unknown_command("job", argv[1],
					   (const char *const[]){ "submit", "show", "list", "wait",
								  "cancel" },
					   5);
	if (argc < 3 || (strcmp(argv[1], "wait") && argc != 3))
		return usage();
	if (parse_long("ID", argv[2], 1, &id))
		return CLI_EXIT_USAGE;
	if (!strcmp(argv[1], "wait"))
		return do_wait(&hc, id, argc - 3, argv + 3);
	if (!strcmp(argv[1], "show")) {
		snprintf(path, sizeof(path), "/api/v1/jobs/%lld", id);
		ret = call(&hc, "GET", path, NULL, &reply);
	} else {
		snprintf(path, sizeof(path), "/api/v1/jobs/%lld/cancel", id);
		ret = call(&hc, "POST", path, "{}", &reply);
	}
	if (!ret)
		print_json(reply);
	json_decref(reply);
	return ret;
}
