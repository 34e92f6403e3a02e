/*
 * regtrack test [--plan P] --tree T --base REF (--head REF | --patches FILE.mbox)
 *               --testcase NAME [--params k=v,...|JSON] [--testcase ...]
 * regtrack test --from-mail FILE.eml --tree T --target T [...] [--dry-run]
 *               --target T [--target ...] [--kconfig K] [--compiler C] [--repeat N]
 *               [--min-change-pct P] [--measure wallclock|icount] [--notify ADDR]
 *               [--monitors perf-profile,perf-stat] [--label L] [--wait] [--gate]
 *               [--timeout S] [--poll S] [--json]
 *
 * Submits an A/B request (POST /api/v1/requests) and, with --wait or
 * --gate, follows it (GET /api/v1/requests/{id} every --poll seconds,
 * default 5), printing progress on stderr and at the end the comparison
 * table (or with --json the request's JSON) on stdout. --plan takes the
 * fields the command line leaves out (tree, testcases, targets, kconfig, ...)
 * from that plan. --params applies
 * to the --testcase before it; --monitors (a comma list) to every job of
 * both sides. Online: --server URL (or REGTRACK_SERVER),
 * --token TOKEN (or REGTRACK_TOKEN).
 *
 * Exit codes: 0 submitted, or done without a regression (without --gate,
 * whatever the verdict); 1 a regression, with --gate; 2 usage or input
 * error (a 4xx answer to the submission, or a ref the server could not
 * resolve: the command waits while the request resolves its refs, even
 * without --wait); 3 the test could not be
 * completed or decided: failed (apply, build, boot or run), cancelled,
 * --timeout passed, the server unreachable, or with --gate an
 * inconclusive verdict, or an improvement beside a row that could not
 * decide (need-more-runs, or an unknown direction: gate_improvement()).
 *
 * --from-mail FILE.eml: a kernel test robot report (lib/robotmail.h) gives
 * the head (its commit), the base (COMMIT^, or the base the mail names),
 * the testcase and params (mapped onto this lab's case; a case it has no
 * mapping for is exit 2 naming it, unless --testcase says what to run) and
 * the label (its Message-ID), for those the command line does not give.
 * --dry-run prints {"request": …, "robot": …} (the request that would be
 * queued, what was read from the mail) and queues nothing: no server needed.
 */
#include "cli.h"
#include "http_client.h"
#include "lkptext.h"
#include "robotmail.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { EXIT_OK = 0, EXIT_REGRESSION = 1, EXIT_USAGE = 2, EXIT_INCOMPLETE = 3 };

#define MAX_MBOX (4 * 1024 * 1024)

static const char usage_text[] =
	"usage: regtrack test [--plan P] --tree T --base REF (--head REF | --patches FILE.mbox)\n"
	"                     --testcase NAME [--params k=v,...|JSON] [--testcase ...]\n"
	"                     --target T [--target ...] [--kconfig K] [--compiler C]\n"
	"                     [--repeat N] [--min-change-pct P] [--measure wallclock|icount]\n"
	"                     [--notify ADDR] [--monitors perf-profile,perf-stat] [--label L]\n"
	"                     [--wait] [--gate] [--timeout S] [--poll S] [--json]\n"
	"       regtrack test --from-mail FILE.eml --tree T --target T [--target ...]\n"
	"                     [--testcase ...] [--kconfig K] [...] [--dry-run]\n"
	"--from-mail: a kernel test robot report gives head (its commit), base (COMMIT^),\n"
	"testcase and params (mapped onto this lab's case) and label; --dry-run prints the\n"
	"request and what the mail says as JSON, without a server\n"
	"--plan P: the plan's tree, testcases, targets, kconfig, compiler, repeat, measure\n"
	"and monitors for those not given here (then --tree, --testcase, --target are optional)\n"
	"--params applies to the --testcase before it (repeated, they add up; k=v,k2=v2 or a\n"
	"JSON object); --monitors\n"
	"(a comma list) runs "
	"perf beside the case in every job of both sides\n"
	"exit: 0 no regression, 1 regression (--gate), 2 usage or input error,\n"
	"      3 could not be completed or decided\n";

static int usage(const char *why)
{
	if (why)
		fprintf(stderr, "regtrack test: %s\n", why);
	fputs(usage_text, stderr);
	return EXIT_USAGE;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *data;
	size_t n;

	if (!f)
		return NULL;
	data = malloc(MAX_MBOX + 2);
	if (!data)
		abort();
	n = fread(data, 1, MAX_MBOX + 1, f);
	fclose(f);
	data[n] = '\0';
	*len = n;
	return data;
}

/* the error answer's message on stderr; 2 for a 4xx, 3 otherwise */
static int refused(long status, struct buf *out, struct err *e)
{
	json_t *j, *er;

	if (status < 0) {
		fprintf(stderr, "regtrack test: %s\n", e->message);
		return EXIT_INCOMPLETE;
	}
	j = json_loads(out->data, 0, NULL);
	er = json_object_get(j, "error");
	fprintf(stderr, "regtrack test: server answered %ld: %s (%s)\n", status,
		er ? json_string_value(json_object_get(er, "message")) : out->data,
		er ? json_string_value(json_object_get(er, "detail")) : "");
	json_decref(j);
	return status >= 400 && status < 500 ? EXIT_USAGE : EXIT_INCOMPLETE;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long side_count(json_t *q, const char *side, const char *what)
{
	return (long)json_integer_value(
		json_object_get(json_object_get(json_object_get(q, "progress"), side), what));
}

static double real(json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* a percentage for the table: "-" where there is none (never "nan") */
static void pct_text(double v, const char *fmt, char out[32])
{
	if (isfinite(v))
		snprintf(out, 32, fmt, v);
	else
		snprintf(out, 32, "-");
}

static void print_row(json_t *r)
{
	json_t *mean = json_object_get(r, "mean"), *sd = json_object_get(r, "stddev_pct"),
	       *ci = json_object_get(r, "ci_pct");
	char a[32], b[32], sa[32], sb[32], hl[32], lo[32], hi[32], chg[100];

	lkp_format_number(real(json_array_get(mean, 0)), a);
	lkp_format_number(real(json_array_get(mean, 1)), b);
	pct_text(real(json_array_get(sd, 0)), "%.1f%%", sa);
	pct_text(real(json_array_get(sd, 1)), "%.1f%%", sb);
	pct_text(real(json_object_get(r, "hl_pct")), "%+.1f%%", hl);
	pct_text(real(json_array_get(ci, 0)), "%+.1f", lo);
	pct_text(real(json_array_get(ci, 1)), "%+.1f", hi);
	if (strcmp(hl, "-") && strcmp(lo, "-") && strcmp(hi, "-"))
		snprintf(chg, sizeof(chg), "%s [%s, %s]", hl, lo, hi);
	else
		snprintf(chg, sizeof(chg), "%s", hl);
	printf("%12s %8s %23s %12s %8s  %s  (%s %s: %s, %s)\n", a, sa, chg, b, sb,
	       json_string_value(json_object_get(r, "metric")),
	       json_string_value(json_object_get(r, "target")),
	       json_string_value(json_object_get(r, "testcase")),
	       json_string_value(json_object_get(r, "verdict")),
	       json_string_value(json_object_get(r, "change")));
}

/*
 * The LKP-style table of the rows: base mean %stddev, %change (CI), head mean
 * %stddev, metric. The test's own metrics first; the monitors' rows (perf-stat,
 * perf-profile: hundreds with a profile) after them, only those that differ,
 * with a count of the others (--json has every row).
 */
static void print_table(json_t *q)
{
	json_t *rows = json_object_get(json_object_get(q, "result"), "rows"), *r;
	size_t i, shown = 0, hidden = 0;

	printf("%12s %8s %23s %12s %8s  %s\n", "base", "%stddev", "%change (CI)", "head", "%stddev",
	       "metric");
	json_array_foreach (rows, i, r)
		if (!json_is_true(json_object_get(r, "monitor")))
			print_row(r);
	json_array_foreach (rows, i, r) {
		const char *v = json_string_value(json_object_get(r, "verdict"));

		if (!json_is_true(json_object_get(r, "monitor")))
			continue;
		if (!v || strcmp(v, "different")) {
			hidden++;
			continue;
		}
		if (!shown++)
			printf("monitors, the rows that differ:\n");
		print_row(r);
	}
	if (hidden)
		printf("(%zu monitor row%s that did not differ not shown: --json has them)\n",
		       hidden, hidden == 1 ? "" : "s");
}

/*
 * Request id followed while it resolves its refs (state "resolving"):
 * EXIT_OK with *q its GET reply (new, caller json_decref()s) once queued
 * (or past it: a request with jobs, even one failed since); a request
 * failed before any job is a ref this command was given (EXIT_USAGE) or a
 * fetch that failed on the server (EXIT_INCOMPLETE), said on stderr.
 */
static int resolved(struct http_client *hc, long long id, json_t **q)
{
	char path[64];
	double wait = 0.05;

	snprintf(path, sizeof(path), "/api/v1/requests/%lld", id);
	for (;;) {
		struct buf out = BUF_INIT(0);
		struct err e;
		long status = http_client_request(hc, "GET", path, NULL, 0, &out, &e);
		const char *state;
		int ret;

		if (status != 200) {
			ret = refused(status, &out, &e);
			buf_release(&out);
			return ret == EXIT_USAGE ? EXIT_INCOMPLETE : ret;
		}
		*q = json_loads(out.data, 0, NULL);
		buf_release(&out);
		state = json_string_value(json_object_get(*q, "state"));
		if (!state || strcmp(state, "resolving"))
			break;
		json_decref(*q);
		sleep_s(wait);
		wait = wait < 1 ? wait * 2 : 1;
	}
	if (!json_is_string(json_object_get(*q, "state"))) {
		json_decref(*q);
		fprintf(stderr, "regtrack test: the server's answer has no state\n");
		return EXIT_INCOMPLETE;
	}
	/* a request that failed after its jobs were queued (a run failed before this
	 * poll saw "queued") is followed like any other: not a bad ref of ours */
	if (strcmp(json_string_value(json_object_get(*q, "state")), "failed") ||
	    side_count(*q, "base", "jobs") + side_count(*q, "head", "jobs") > 0)
		return EXIT_OK;
	{
		const char *why = json_string_value(json_object_get(*q, "fail_reason"));
		int ret = why && strstr(why, "fetching tree") ? EXIT_INCOMPLETE : EXIT_USAGE;

		fprintf(stderr, "regtrack test: request %lld failed: %s\n", id, why ? why : "?");
		json_decref(*q);
		return ret;
	}
}

/*
 * The gate over a request whose verdict is an improvement: the request's
 * verdict says `improvement` when one row improved, whatever the others
 * say, but the gate passes no row it could not decide (compare --gate's
 * rule). The deciding rows are those measured at both sides, of the
 * test's own metrics (monitor rows when there are none); EXIT_INCOMPLETE
 * when any is need-more-runs or changed in a direction the metric does
 * not know, one line on stderr each and a count; else EXIT_OK.
 */
static int gate_improvement(json_t *q)
{
	json_t *rows = json_object_get(json_object_get(q, "result"), "rows"), *r;
	size_t i, deciding = 0, undecided = 0;
	int tests = 0;

	json_array_foreach (rows, i, r)
		tests |= !json_is_true(json_object_get(r, "monitor"));
	json_array_foreach (rows, i, r) {
		json_t *n = json_object_get(r, "n");
		const char *v = json_string_value(json_object_get(r, "verdict")),
			   *c = json_string_value(json_object_get(r, "change"));
		int nmr = v && !strcmp(v, "need-more-runs"), unk = c && !strcmp(c, "unknown");

		if (json_integer_value(json_array_get(n, 0)) <= 0 ||
		    json_integer_value(json_array_get(n, 1)) <= 0 ||
		    (tests && json_is_true(json_object_get(r, "monitor"))))
			continue;
		deciding++;
		if (!nmr && !unk)
			continue;
		undecided++;
		fprintf(stderr,
			"regtrack test: gate: %s: %s %+.1f%% with %lld vs %lld runs (Hodges-Lehmann "
			"shift; p %.2g; %s %s)\n",
			nmr ? "need-more-runs" : "unknown direction",
			json_string_value(json_object_get(r, "metric")),
			real(json_object_get(r, "hl_pct")),
			(long long)json_integer_value(json_array_get(n, 0)),
			(long long)json_integer_value(json_array_get(n, 1)),
			real(json_object_get(r, "p_value")),
			json_string_value(json_object_get(r, "target")),
			json_string_value(json_object_get(r, "testcase")));
	}
	if (!undecided)
		return EXIT_OK;
	fprintf(stderr,
		"regtrack test: gate: undecided: %zu of %zu deciding rows need more runs or changed "
		"in an unknown direction: an improvement elsewhere does not pass them\n",
		undecided, deciding);
	return EXIT_INCOMPLETE;
}

/* follows request id to its end; the exit code */
static int follow(struct http_client *hc, long long id, int gate, int as_json, double timeout_s,
		  double poll_s)
{
	char path[64], last[256] = "";
	double t0 = now_s();
	int ret = EXIT_INCOMPLETE;

	snprintf(path, sizeof(path), "/api/v1/requests/%lld", id);
	for (;;) {
		struct buf out = BUF_INIT(0);
		struct err e;
		long status = http_client_request(hc, "GET", path, NULL, 0, &out, &e);
		json_t *q;
		const char *state, *verdict;
		char line[256];

		if (status != 200) {
			ret = refused(status, &out, &e);
			buf_release(&out);
			return ret == EXIT_USAGE ? EXIT_INCOMPLETE : ret;
		}
		q = json_loads(out.data, 0, NULL);
		buf_release(&out);
		state = json_string_value(json_object_get(q, "state"));
		verdict = json_string_value(json_object_get(q, "verdict"));
		if (!state) {
			json_decref(q);
			fprintf(stderr, "regtrack test: the server's answer has no state\n");
			return EXIT_INCOMPLETE;
		}
		snprintf(line, sizeof(line),
			 "request %lld: %s, base %ld/%ld jobs %ld runs, "
			 "head %ld/%ld jobs %ld runs%s%s",
			 id, state, side_count(q, "base", "finished"),
			 side_count(q, "base", "jobs"), side_count(q, "base", "runs"),
			 side_count(q, "head", "finished"), side_count(q, "head", "jobs"),
			 side_count(q, "head", "runs"),
			 json_array_size(json_object_get(q, "waiting_for")) ?
				 ", waiting for a worker: " :
				 "",
			 json_array_size(json_object_get(q, "waiting_for")) ?
				 json_string_value(
					 json_array_get(json_object_get(q, "waiting_for"), 0)) :
				 "");
		if (strcmp(line, last)) {
			fprintf(stderr, "%s\n", line);
			snprintf(last, sizeof(last), "%s", line);
		}
		if (!strcmp(state, "done") || !strcmp(state, "failed") ||
		    !strcmp(state, "cancelled")) {
			if (as_json) {
				json_dumpf(q, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
				fputc('\n', stdout);
			} else if (!strcmp(state, "done")) {
				print_table(q);
			}
			if (!strcmp(state, "done")) {
				if (!as_json) /* the JSON holds the verdict: stdout stays one document */
					printf("verdict: %s\n", verdict ? verdict : "?");
				ret = verdict && !strcmp(verdict, "regression") && gate ?
					      EXIT_REGRESSION :
				      verdict && !strcmp(verdict, "inconclusive") && gate ?
					      EXIT_INCOMPLETE :
				      verdict && !strcmp(verdict, "improvement") && gate ?
					      gate_improvement(q) :
					      EXIT_OK;
			} else {
				const char *why = json_string_value(
					json_object_get(q, "fail_reason"));

				printf("request %lld %s%s%s\n", id, state, why ? ": " : "",
				       why ? why : "");
				ret = EXIT_INCOMPLETE;
			}
			if (!as_json && json_is_string(json_object_get(q, "reproduce")))
				printf("reproduce: %s\n",
				       json_string_value(json_object_get(q, "reproduce")));
			json_decref(q);
			return ret;
		}
		if (timeout_s > 0 && now_s() - t0 >= timeout_s) {
			/* nobody waits for the answer any more: its jobs would only cost workers */
			struct buf cout = BUF_INIT(0);
			char cpath[80];
			long cs;

			snprintf(cpath, sizeof(cpath), "%s/cancel", path);
			cs = http_client_request(hc, "POST", cpath, "{}", 2, &cout, &e);
			buf_release(&cout);
			fprintf(stderr,
				"regtrack test: request %lld timed out after %g s (still %s)%s\n",
				id, timeout_s, state,
				cs == 200 ? "; cancelled" : "; could not cancel it");
			json_decref(q);
			return EXIT_INCOMPLETE;
		}
		json_decref(q);
		sleep_s(poll_s);
	}
}

/*
 * --from-mail: the mail at path fills b (robotmail_request()); *robot: new,
 * what the mail says. 0; 2 with the reason on stderr (*robot NULL when the
 * mail could not be read or is no robot report, set when its case has no
 * mapping here).
 */
static int read_mail(json_t *b, const char *path, json_t **robot)
{
	struct buf text = BUF_INIT(16 * 1024 * 1024);
	struct robotmail m;
	struct err e;

	*robot = NULL;
	if (buf_read_file(&text, path)) {
		fprintf(stderr, "regtrack test: cannot read '%s' (or it is over 16 MiB)\n", path);
		buf_release(&text);
		return EXIT_USAGE;
	}
	if (robotmail_parse(text.data, text.len, &m, &e)) {
		fprintf(stderr, "regtrack test: '%s': %s (%s)\n", path, e.message, e.detail);
		buf_release(&text);
		return EXIT_USAGE;
	}
	buf_release(&text);
	*robot = robotmail_json(&m);
	if (robotmail_request(&m, b, &e)) {
		fprintf(stderr, "regtrack test: '%s': %s\n", path, e.message);
		robotmail_release(&m);
		return EXIT_USAGE;
	}
	robotmail_release(&m);
	return EXIT_OK;
}

/* --dry-run: the request (NULL: none would be queued) and what the mail says, on stdout */
static void print_dry(json_t *request, json_t *robot)
{
	json_t *d = json_pack("{s:O?}", "request", request);

	if (robot)
		json_object_set(d, "robot", robot);
	json_dumpf(d, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
	json_decref(d);
}

int cmd_test(int argc, char **argv)
{
	struct http_client hc;
	json_t *b = json_object(), *tcs = json_array(), *targets = json_array(), *last_tc = NULL;
	int wait = 0, gate = 0, as_json = 0, dry_run = 0, ret;
	double timeout_s = 0, poll_s = 5;
	const char *patches_file = NULL, *mail_file = NULL;
	json_t *robot = NULL;
	struct buf out = BUF_INIT(0);
	struct err e;
	char *text;
	long status;
	long long id;

	http_client_init(&hc, &argc, argv);
	if (cli_wants_help(argc, argv)) {
		fputs(usage_text, stdout);
		json_decref(b);
		json_decref(tcs);
		json_decref(targets);
		return 0;
	}
	json_object_set_new(b, "testcases", tcs);
	json_object_set_new(b, "targets", targets);
	for (int i = 1; i < argc; i++) {
		const char *f = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		static const struct {
			const char *flag, *key;
		} strs[] = {
			{ "--tree", "tree" },	      { "--base", "base" },
			{ "--head", "head" },	      { "--kconfig", "kconfig" },
			{ "--compiler", "compiler" }, { "--measure", "measure" },
			{ "--notify", "notify" },     { "--label", "label" },
			{ "--plan", "plan" },
		};
		size_t k;

		if (!strcmp(f, "--wait")) {
			wait = 1;
			continue;
		}
		if (!strcmp(f, "--gate")) {
			gate = wait = 1;
			continue;
		}
		if (!strcmp(f, "--json")) {
			as_json = 1;
			continue;
		}
		if (!strcmp(f, "--dry-run")) {
			dry_run = 1;
			continue;
		}
		if (!v) {
			json_decref(b);
			return usage(NULL);
		}
		i++;
		for (k = 0; k < sizeof(strs) / sizeof(strs[0]); k++)
			if (!strcmp(f, strs[k].flag))
				break;
		if (k < sizeof(strs) / sizeof(strs[0])) {
			json_object_set_new(b, strs[k].key, json_string(v));
		} else if (!strcmp(f, "--testcase")) {
			last_tc = json_pack("{s:s,s:{}}", "testcase", v, "params");
			json_array_append_new(tcs, last_tc);
		} else if (!strcmp(f, "--params")) {
			char why[512];

			if (!last_tc) {
				json_decref(b);
				return usage("--params follows the --testcase it is for");
			}
			/* a second --params adds to the first (a later key wins) */
			if (cli_params_add(json_object_get(last_tc, "params"), v, why,
					   sizeof(why))) {
				json_decref(b);
				return usage(why);
			}
		} else if (!strcmp(f, "--monitors")) {
			json_object_set_new(b, "monitors", cli_list_json(v));
		} else if (!strcmp(f, "--target")) {
			json_array_append_new(targets, json_string(v));
		} else if (!strcmp(f, "--patches")) {
			patches_file = v;
		} else if (!strcmp(f, "--from-mail")) {
			mail_file = v;
		} else if (!strcmp(f, "--repeat") || !strcmp(f, "--min-change-pct") ||
			   !strcmp(f, "--timeout") || !strcmp(f, "--poll")) {
			char *end;
			double d = strtod(v, &end);

			if (*end || end == v || !isfinite(d) || d < 0) {
				json_decref(b);
				return usage("a number is needed");
			}
			if (!strcmp(f, "--repeat"))
				json_object_set_new(b, "repeat", json_integer((json_int_t)d));
			else if (!strcmp(f, "--min-change-pct"))
				json_object_set_new(b, "min_change_pct", json_real(d));
			else if (!strcmp(f, "--timeout"))
				timeout_s = d;
			else
				poll_s = d > 0.05 ? d : 0.05;
		} else {
			json_decref(b);
			return usage(NULL);
		}
	}
	if (mail_file) {
		if (!json_array_size(tcs)) /* none given: the mail's case, mapped */
			json_object_del(b, "testcases");
		ret = read_mail(b, mail_file, &robot);
		if (ret != EXIT_OK) {
			if (robot && dry_run)
				print_dry(NULL, robot);
			json_decref(robot);
			json_decref(b);
			return ret;
		}
		tcs = json_object_get(b, "testcases");
		if (patches_file) /* the series (from the mail's patch link) on the mail's base */
			json_object_del(b, "head");
		if (!json_object_get(b, "tree") && !json_object_get(b, "plan") && !dry_run) {
			fprintf(stderr,
				"regtrack test: --tree is needed: this lab's tree that holds %s "
				"(the mail's is %s %s)\n",
				json_string_value(json_object_get(robot, "commit")),
				json_string_value(
					json_object_get(json_object_get(robot, "repo"), "url")),
				json_string_value(
					json_object_get(json_object_get(robot, "repo"), "branch")));
			json_decref(robot);
			json_decref(b);
			return EXIT_USAGE;
		}
	}
	if (!json_object_get(b, "head") == !patches_file) {
		json_decref(robot);
		json_decref(b);
		return usage("give --head REF or --patches FILE.mbox");
	}
	if (!json_object_get(b, "base")) {
		json_decref(robot);
		json_decref(b);
		return usage("--base is needed");
	}
	if (!json_object_get(b, "plan") && !dry_run &&
	    (!json_object_get(b, "tree") || !json_array_size(tcs) || !json_array_size(targets))) {
		json_decref(robot);
		json_decref(b);
		return usage("--tree, --testcase and --target are needed (or a --plan that gives "
			     "them)");
	}
	/* what the plan gives, unless the command line gives it */
	if (!json_array_size(tcs))
		json_object_del(b, "testcases");
	if (!json_array_size(targets))
		json_object_del(b, "targets");
	if (patches_file) {
		size_t len;
		char *mbox = slurp(patches_file, &len);

		if (!mbox) {
			fprintf(stderr, "regtrack test: cannot read '%s'\n", patches_file);
			json_decref(robot);
			json_decref(b);
			return EXIT_USAGE;
		}
		json_object_set_new(b, "patches", json_stringn(mbox, len));
		free(mbox);
		if (!json_is_string(json_object_get(b, "patches"))) {
			fprintf(stderr, "regtrack test: '%s' is not UTF-8 text\n", patches_file);
			json_decref(robot);
			json_decref(b);
			return EXIT_USAGE;
		}
	}
	if (dry_run) {
		print_dry(b, robot);
		json_decref(robot);
		json_decref(b);
		return EXIT_OK;
	}
	json_decref(robot);
	text = json_dumps(b, JSON_COMPACT);
	json_decref(b);
	status = http_client_request(&hc, "POST", "/api/v1/requests", text, strlen(text), &out, &e);
	free(text);
	if (status != 202 && status != 201) { /* 201: a server that resolved refs at once */
		ret = refused(status, &out, &e);
		buf_release(&out);
		return ret;
	}
	{
		json_t *j = json_loads(out.data, 0, NULL), *q = NULL;
		const char *url;

		id = (long long)json_integer_value(json_object_get(j, "id"));
		buf_release(&out);
		/* accepted (202): the refs resolve on the server; bad ones are this command's
		 * input. 201: queued already (its reply is the request's) */
		if (status == 202) {
			json_decref(j);
			ret = resolved(&hc, id, &q);
			if (ret != EXIT_OK)
				return ret;
		} else {
			q = j;
		}
		url = json_string_value(json_object_get(q, "url"));
		if (!wait || as_json)
			fprintf(stderr, "request %lld queued: %s\n", id, url ? url : "?");
		if (!wait)
			printf("{\"id\":%lld,\"state\":\"%s\",\"url\":\"%s\"}\n", id,
			       json_is_string(json_object_get(q, "state")) ?
				       json_string_value(json_object_get(q, "state")) :
				       "queued",
			       url ? url : "");
		if (json_is_string(json_object_get(q, "repeat_why")))
			fprintf(stderr, "request %lld: %lld runs a side: %s\n", id,
				(long long)json_integer_value(json_object_get(q, "repeat")),
				json_string_value(json_object_get(q, "repeat_why")));
		json_decref(q);
	}
	if (!wait)
		return EXIT_OK;
	return follow(&hc, id, gate, as_json, timeout_s, poll_s);
}
