/*
 * Thin online clients of the HTTP API:
 *   regtrack submit FILE...      POST each result document (JSON; "-" = stdin)
 *   regtrack compare --base SHA|REF --head SHA|REF [--tree T] [--testcase T] [--metric PREFIX]
 *                    [--text] [--changed] [--gate]
 * submit: exit 0 when every document was stored (or was already), 2 when a
 * file is unreadable or the server rejected one. compare --gate reads the
 * JSON reply's verdicts (also with --text: the text is printed, the JSON
 * fetched for the verdicts and the marks of the significant rows): exit 1
 * when any row is a significant regression, 3 when it cannot decide (the
 * two commits share no setup, every shared row is constant, or a deciding
 * row is need-more-runs: gate() has the rule), with one line on stderr per
 * metric that decided it.
 */
#include "cli.h"
#include "http_client.h"
#include "apiclient.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_error(const char *what, long status, const struct buf *body)
{
	json_t *j = json_loads(body->data, 0, NULL);
	json_t *err = json_object_get(j, "error");

	if (err)
		fprintf(stderr, "regtrack: %s: %ld %s: %s (%s)\n", what, status,
			json_string_value(json_object_get(err, "code")),
			json_string_value(json_object_get(err, "message")),
			json_string_value(json_object_get(err, "detail")));
	else
		fprintf(stderr, "regtrack: %s: HTTP %ld\n", what, status);
	json_decref(j);
}

static const char submit_usage[] =
	"usage: regtrack submit [--server URL] [--token TOKEN] FILE...\n"
	"  POSTs each result document (JSON, one run; '-' reads stdin; '--' ends the options)\n"
	"  to /api/v1/results; the same run_id twice is stored once\n"
	"exit: 0 every document stored (or already), 2 a file unreadable or rejected\n";

int cmd_submit(int argc, char **argv)
{
	struct http_client c;
	int ret = 0, first = 1;

	http_client_init(&c, &argc, argv);
	if (cli_wants_help(argc, argv)) {
		fputs(submit_usage, stdout);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "--"))
		first = 2;
	else
		for (int i = 1; i < argc; i++)
			if (argv[i][0] == '-' && argv[i][1]) {
				fprintf(stderr, "regtrack: submit: unknown option '%s'\n", argv[i]);
				fputs(submit_usage, stderr);
				return 2;
			}
	if (argc <= first) {
		fputs(submit_usage, stderr);
		return 2;
	}
	if (api_client_global_init()) {
		fprintf(stderr, "regtrack: cannot initialise libcurl\n");
		return 2;
	}
	for (int i = first; i < argc; i++) {
		struct buf doc = BUF_INIT(1u << 30), resp = BUF_INIT(1u << 20);
		struct err e;
		long st;

		if (strcmp(argv[i], "-") ? buf_read_file(&doc, argv[i]) : buf_read_fd(&doc, 0)) {
			fprintf(stderr, "regtrack: cannot read '%s'\n", argv[i]);
			ret = 2;
		} else if ((st = http_client_request(&c, "POST", "/api/v1/results", doc.data,
						     doc.len, &resp, &e)) < 0) {
			fprintf(stderr, "regtrack: %s\n", e.message);
			ret = 2;
		} else if (st == 200 || st == 201) {
			printf("%s: %s\n", argv[i], st == 201 ? "stored" : "already stored");
		} else {
			print_error(argv[i], st, &resp);
			ret = 2;
		}
		buf_release(&doc);
		buf_release(&resp);
	}
	api_client_global_cleanup();
	return ret;
}

static int add_arg(struct buf *q, const char *name, const char *value)
{
	char *esc = api_client_escape(value);
	int r = buf_addf(q, "%s%s=%s", q->len ? "&" : "?", name, esc);

	free(esc);
	return r;
}

static const char compare_usage[] =
	"usage: regtrack compare --base SHA --head SHA [--tree T] [--testcase T]\n"
	"                        [--metric PREFIX] [--tbox-group G] [--kconfig K]\n"
	"                        [--compiler C] [--params k=v,...|JSON] [--mode M]\n"
	"                        [--alpha A] [--text] [--changed] [--gate]\n"
	"  --base, --head: a sha or a prefix of 7 or more hex digits; with --tree T any ref\n"
	"  (branch, tag, master~2) of that tree, resolved in the server's mirror\n"
	"  --params: k=v,k2=v2 or a JSON object, repeated they add up\n"
	"  the comparison of two commits, per setup and metric, as JSON (GET /api/v1/compare);\n"
	"  --text: LKP's table instead, significant rows marked [regression], [improvement]\n"
	"  or [change] at the end, with \", by A/A spread X % (N runs)\" in an icount setup\n"
	"  whose measured A/A spread decided the row; --changed: significant rows only\n"
	"  --gate: exit 1 on a significant regression, 3 when it cannot decide (no setup\n"
	"  measured at both commits, every such row one constant value, or a test metric\n"
	"  need-more-runs); one line on stderr per metric that decided it (README has the\n"
	"  rule)\n"
	"  (--tbox_group is the same as --tbox-group)\n";

/* "testcase k=v … tbox_group kconfig compiler" of setup id in the reply's setups[] */
static void setup_label(json_t *reply, long long id, char *out, size_t size)
{
	json_t *s;
	size_t i;

	snprintf(out, size, "setup %lld", id);
	json_array_foreach (json_object_get(reply, "setups"), i, s) {
		char *params;

		if (json_integer_value(json_object_get(s, "id")) != id)
			continue;
		params = json_dumps(json_object_get(s, "params"), JSON_COMPACT | JSON_SORT_KEYS);
		snprintf(out, size, "%s %s %s %s %s",
			 json_string_value(json_object_get(s, "testcase")), params ? params : "{}",
			 json_string_value(json_object_get(s, "tbox_group")),
			 json_string_value(json_object_get(s, "kconfig")),
			 json_string_value(json_object_get(s, "compiler")));
		free(params);
		return;
	}
}

static const char *str_of(json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : "";
}

static double num_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/*
 * What decided row, into out: "by A/A spread 0.04 % (11 runs)" for a row of
 * an icount setup decided by its measured A/A spread (by_spread; such rows
 * have no q), else "p 0.0022, q 0.0043" of the rank test. Returns out.
 */
/*
 * why a need-more-runs row is: its p, and where the sides' shares of outlier
 * runs differ (outliers_differ) that part of the runs moved, which more runs
 * would not make one shift; into why (size bytes), returned
 */
static const char *need_more_why(json_t *row, char *why, size_t size)
{
	json_t *o = json_object_get(row, "outliers"), *n = json_object_get(row, "n");

	if (json_is_true(json_object_get(row, "outliers_differ")))
		snprintf(why, size,
			 "p %.2g; part of the runs moved: %lld of %lld head runs are outliers "
			 "against %lld of %lld base runs, not one shift",
			 num_of(row, "p_value"),
			 (long long)json_integer_value(json_array_get(o, 1)),
			 (long long)json_integer_value(json_array_get(n, 1)),
			 (long long)json_integer_value(json_array_get(o, 0)),
			 (long long)json_integer_value(json_array_get(n, 0)));
	else
		snprintf(why, size, "p %.2g", num_of(row, "p_value"));
	return why;
}

static const char *decided_by(json_t *row, char *out, size_t size)
{
	if (json_is_true(json_object_get(row, "by_spread")))
		snprintf(out, size, "by A/A spread %.2g %% (%lld runs)",
			 num_of(row, "aa_spread_pct"),
			 (long long)json_integer_value(json_object_get(row, "aa_runs")));
	else
		snprintf(out, size, "p %.2g, q %.2g", num_of(row, "p_value"),
			 num_of(row, "q_value"));
	return out;
}

/* 1 when row has runs at both commits */
static int row_shared(json_t *row)
{
	json_t *nn = json_object_get(row, "n");

	return json_integer_value(json_array_get(nn, 0)) > 0 &&
	       json_integer_value(json_array_get(nn, 1)) > 0;
}

/*
 * The gate over the JSON reply (the rule is README's "compare --gate"):
 *  1. CLI_EXIT_REGRESSION when any row is a significant regression (a
 *     monitor's too), one line each;
 *  2. CLI_EXIT_UNDECIDED when no row has runs at both commits, or every
 *     such row is constant (one value at both: it carries no evidence);
 *  3. the deciding rows are those measured at both commits, not constant,
 *     and of the test's own metrics (monitor rows only when the reply has
 *     no test metric left): CLI_EXIT_UNDECIDED when any of them is
 *     need-more-runs or changed in an unknown direction, one line each and
 *     a last line that counts them;
 *  4. else CLI_EXIT_OK.
 * A drop the comparison could not decide never passes: rows that did
 * decide (or carry nothing) do not outvote one that could not.
 */
static int gate(json_t *reply)
{
	json_t *rows = json_object_get(reply, "rows"), *row;
	size_t i, n = json_array_size(rows), bad = 0, shared = 0, constant = 0, tests = 0;
	size_t deciding = 0, more = 0, unknown = 0, monitors = 0;
	char label[512], why[256], left[160];

	json_array_foreach (rows, i, row) {
		int sh = row_shared(row), cst = json_is_true(json_object_get(row, "constant"));

		shared += sh;
		constant += sh && cst;
		tests += sh && !cst && !json_is_true(json_object_get(row, "monitor"));
		if (!strcmp(str_of(row, "change"), "regression")) {
			setup_label(reply, json_integer_value(json_object_get(row, "setup_id")),
				    label, sizeof(label));
			fprintf(stderr,
				"regtrack: gate: regression: %s %+.1f%% (Hodges-Lehmann shift; "
				"means %+.1f%%; %s; %s)\n",
				str_of(row, "metric"), num_of(row, "hl_pct"),
				num_of(row, "change_pct"), decided_by(row, why, sizeof(why)),
				label);
			bad++;
		}
	}
	if (bad)
		return CLI_EXIT_REGRESSION;
	if (!shared) {
		fputs("regtrack: gate: undecided: no setup was measured at both commits "
		      "(nothing to compare)\n",
		      stderr);
		return CLI_EXIT_UNDECIDED;
	}
	if (constant == shared) {
		fprintf(stderr,
			"regtrack: gate: undecided: every row measured at both commits (%zu) is "
			"one constant value at both: no row carries evidence\n",
			shared);
		return CLI_EXIT_UNDECIDED;
	}
	json_array_foreach (rows, i, row) {
		int nmr = !strcmp(str_of(row, "verdict"), "need-more-runs"),
		    unk = !strcmp(str_of(row, "change"), "unknown");
		json_t *nn = json_object_get(row, "n");

		if (!row_shared(row) || json_is_true(json_object_get(row, "constant")))
			continue;
		if (tests && json_is_true(json_object_get(row, "monitor"))) {
			monitors++;
			continue;
		}
		deciding++;
		if (!nmr && !unk)
			continue;
		setup_label(reply, json_integer_value(json_object_get(row, "setup_id")), label,
			    sizeof(label));
		fprintf(stderr,
			"regtrack: gate: %s: %s %+.1f%% with %lld vs %lld runs (Hodges-Lehmann "
			"shift; means %+.1f%%; %s; %s)\n",
			nmr ? "need-more-runs" : "unknown direction", str_of(row, "metric"),
			num_of(row, "hl_pct"), (long long)json_integer_value(json_array_get(nn, 0)),
			(long long)json_integer_value(json_array_get(nn, 1)),
			num_of(row, "change_pct"),
			nmr ? need_more_why(row, why, sizeof(why)) :
			      decided_by(row, why, sizeof(why)),
			label);
		more += nmr;
		unknown += unk;
	}
	if (!more && !unknown)
		return CLI_EXIT_OK;
	if (more == n) {
		fprintf(stderr,
			"regtrack: gate: undecided: every row (%zu) is need-more-runs: "
			"run more at both commits\n",
			n);
		return CLI_EXIT_UNDECIDED;
	}
	/* what was left out of the deciding rows, and why */
	{
		const size_t count[3] = { constant, monitors, n - shared };
		static const char *const what[3] = { "constant", "monitor",
						     "measured at one commit only" };
		size_t len = 0;

		left[0] = 0;
		for (size_t k = 0; k < 3; k++)
			if (count[k] && len < sizeof(left))
				len += (size_t)snprintf(left + len, sizeof(left) - len, "%s%zu %s",
							len ? ", " : " (left out: ", count[k],
							what[k]);
		if (len && len < sizeof(left))
			snprintf(left + len, sizeof(left) - len, ")");
	}
	fprintf(stderr, "regtrack: gate: undecided: %zu of %zu deciding rows %s%s: %s\n",
		more + unknown, deciding,
		more && unknown ? "need more runs or changed in an unknown direction" :
		more		? "need more runs" :
				  "changed in an unknown direction",
		left, unknown ? "a regression cannot be ruled out" : "run more at both commits");
	return CLI_EXIT_UNDECIDED;
}

/*
 * Prints the LKP text with each significant row marked at its end
 * ("[regression]", or "[regression, by A/A spread 0.04 % (11 runs)]" for a
 * row decided by the setup's A/A spread). The text
 * has one table per setup (each opens with a '=' line), rows in the JSON's
 * (setup, metric) order, the metric name last on its line.
 */
static void print_marked(const struct buf *text, json_t *reply)
{
	json_t *rows = json_object_get(reply, "rows");
	long long setup = 0;
	size_t r = 0, nr = json_array_size(rows), table = 0;
	const char *p = text->data, *end = text->data + text->len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *mark = NULL;
		json_t *marked = NULL;

		if (len && p[0] == '=') {
			/* the next table: skip to the first row of the next setup */
			if (table++)
				while (r < nr &&
				       json_integer_value(json_object_get(json_array_get(rows, r),
									  "setup_id")) == setup)
					r++;
			if (r < nr)
				setup = json_integer_value(
					json_object_get(json_array_get(rows, r), "setup_id"));
		} else if (len) {
			const char *t = p + len;

			while (t > p && t[-1] != ' ')
				t--;
			for (size_t k = r; k < nr; k++) {
				json_t *row = json_array_get(rows, k);
				const char *m = str_of(row, "metric");

				if (json_integer_value(json_object_get(row, "setup_id")) != setup)
					break;
				if (strlen(m) == (size_t)(p + len - t) &&
				    !memcmp(m, t, strlen(m))) {
					if (!strcmp(str_of(row, "verdict"), "different")) {
						mark = str_of(row, "change");
						marked = row;
					}
					break;
				}
			}
		}
		fwrite(p, 1, len, stdout);
		if (mark) {
			char why[128];

			printf("  [%s%s%s]",
			       !strcmp(mark, "regression") || !strcmp(mark, "improvement") ?
				       mark :
				       "change",
			       json_is_true(json_object_get(marked, "by_spread")) ? ", " : "",
			       json_is_true(json_object_get(marked, "by_spread")) ?
				       decided_by(marked, why, sizeof(why)) :
				       "");
		}
		if (nl)
			fputc('\n', stdout);
		p += len + (nl ? 1 : 0);
	}
}

/*
 * GET /api/v1/compare with query q (from add_arg), changed=1 and
 * format=text when asked, into resp. 0, or -1 with the error on stderr.
 */
static int compare_get(struct http_client *c, const char *q, int changed, int want_text,
		       struct buf *resp)
{
	struct buf path = BUF_INIT(16384);
	struct err e;
	long st;
	int ret = -1;

	buf_reset(resp);
	if (buf_addf(&path, "/api/v1/compare%s%s%s", q,
		     changed ? (*q ? "&changed=1" : "?changed=1") : "",
		     want_text ? (*q || changed ? "&format=text" : "?format=text") : "")) {
		fputs("regtrack: arguments too long\n", stderr);
	} else if ((st = http_client_request(c, "GET", path.data, NULL, 0, resp, &e)) < 0) {
		fprintf(stderr, "regtrack: %s\n", e.message);
	} else if (st != 200) {
		print_error("compare", st, resp);
	} else {
		ret = 0;
	}
	buf_release(&path);
	return ret;
}

int cmd_compare(int argc, char **argv)
{
	static const char *const filters[] = { "base",	     "head",	"testcase", "metric",
					       "tbox_group", "kconfig", "compiler", "params",
					       "mode",	     "alpha",	"tree" };
	struct http_client c;
	struct buf q = BUF_INIT(8192), resp = BUF_INIT(256u << 20);
	int text = 0, changed = 0, want_gate = 0, ret = 0, over = 0, base = 0, head = 0;
	json_t *reply = NULL, *params = json_object();

	http_client_init(&c, &argc, argv);
	if (cli_wants_help(argc, argv)) {
		fputs(compare_usage, stdout);
		json_decref(params);
		return 0;
	}
	if (api_client_global_init()) {
		fprintf(stderr, "regtrack: cannot initialise libcurl\n");
		json_decref(params);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		size_t k;
		char flag[32];

		if (!strcmp(argv[i], "--text")) {
			text = 1;
			continue;
		}
		if (!strcmp(argv[i], "--changed")) {
			changed = 1;
			continue;
		}
		if (!strcmp(argv[i], "--gate")) {
			want_gate = 1;
			continue;
		}
		for (k = 0; k < sizeof(filters) / sizeof(filters[0]); k++) {
			snprintf(flag, sizeof(flag), "--%s", filters[k]);
			if (cli_flag_is(argv[i], flag))
				break;
		}
		if (k == sizeof(filters) / sizeof(filters[0]) || i + 1 >= argc) {
			if (k == sizeof(filters) / sizeof(filters[0]))
				fprintf(stderr, "regtrack: compare: unknown option '%s'\n",
					argv[i]);
			else
				fprintf(stderr, "regtrack: compare: %s needs a value\n", argv[i]);
			fputs(compare_usage, stderr);
			ret = 2;
			goto out;
		}
		base |= k == 0;
		head |= k == 1;
		if (!strcmp(filters[k], "params")) {
			/* k=v or JSON, repeated they add up: one params= of them all */
			char why[512];

			if (cli_params_add(params, argv[++i], why, sizeof(why))) {
				fprintf(stderr, "regtrack: compare: %s\n", why);
				ret = 2;
				goto out;
			}
			continue;
		}
		over |= add_arg(&q, filters[k], argv[++i]);
	}
	if (json_object_size(params)) {
		char *p = json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS);

		over |= add_arg(&q, "params", p);
		free(p);
	}
	if (!base || !head) {
		fprintf(stderr, "regtrack: compare: --%s is required\n", !base ? "base" : "head");
		fputs(compare_usage, stderr);
		ret = 2;
		goto out;
	}
	if (over) {
		fputs("regtrack: arguments too long\n", stderr);
		ret = 2;
		goto out;
	}
	/*
	 * The gate and the text's marks read every row (no changed=1: a gate
	 * over the changed rows alone could not tell "nothing changed" from
	 * "nothing to compare"); the JSON printed and the text are as asked.
	 */
	if (!text) {
		if (compare_get(&c, q.data, changed, 0, &resp))
			goto fail;
		fwrite(resp.data, 1, resp.len, stdout);
	}
	if (want_gate || text) {
		if ((text || changed) && compare_get(&c, q.data, 0, 0, &resp))
			goto fail;
		reply = json_loads(resp.data, 0, NULL);
		if (!reply) {
			fputs("regtrack: compare: the server's reply is not JSON\n", stderr);
			goto fail;
		}
	}
	if (text && !json_array_size(json_object_get(reply, "rows"))) {
		/* the text of no rows is a 404: say what the JSON said */
		fputs("regtrack: compare: no setup was measured at both commits "
		      "(with these filters)\n",
		      stderr);
		if (!want_gate)
			goto fail;
	} else if (text) {
		if (compare_get(&c, q.data, changed, 1, &resp))
			goto fail;
		print_marked(&resp, reply);
	}
	fflush(stdout);
	if (want_gate)
		ret = gate(reply);
	goto out;
fail:
	ret = 2;
out:
	json_decref(params);
	json_decref(reply);
	api_client_global_cleanup();
	buf_release(&q);
	buf_release(&resp);
	return ret;
}
