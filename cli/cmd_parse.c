/*
 * regtrack parse [--tasks N] [--result --commit SHA [--testcase NAME] ...] TOOL FILE
 * — tool output -> metrics JSON on stdout (lib/parse/parse.h), keys
 * sorted, indented by 2, reals with 15 significant digits. FILE "-" reads
 * stdin. Exit 0 for a parsed document with status "ok", 1 when its status
 * is "failed" (the document is still printed: its errors say why), 2 for
 * usage, an unreadable or too large file (cap 256 MiB) or an unknown tool.
 * --tasks N: will-it-scale's task count for a raw binary's output saved
 * without its command line ("-t N"). --result: instead of the metrics
 * document, a result document (one run, README "Submitting results") that
 * `regtrack submit` takes: a new run_id, the given commit, testcase
 * (default: the tool's name), params, kconfig, compiler, tree, branch and
 * machine (hostname and arch of this host unless given, tbox_group), the
 * parsed metrics; a failed parse writes none (exit 1).
 *
 * Memory: a regular file is read into one buffer of its size, parsed in
 * place (parse_run) and freed before the document is written value by
 * value (parse_result_write): about the input's size plus 8 bytes per
 * value, not a JSON value per number (--result builds the JSON instead).
 */
#include "cli.h"

#include <errno.h>
#include <stddef.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <uuid/uuid.h>

#include "buf.h"
#include "err.h"
#include "parse/parse.h"
#include "xalloc.h"

#define PARSE_INPUT_CAP (256u << 20)

static int parse_usage(void)
{
	const char *const *t = parse_tools();

	fprintf(stderr,
		"usage: regtrack parse [--tasks N] TOOL FILE\n"
		"       regtrack parse --result --commit SHA [--testcase NAME] [--params JSON]\n"
		"                      [--kconfig K] [--compiler C] [--tree T] [--branch B]\n"
		"                      [--tbox-group G] [--hostname H] [--arch A] [--tasks N] TOOL FILE\n"
		"FILE ('-': stdin) is the tool's own output, as it printed it: kv: our cases'\n"
		"'key: value' lines after a first line '# kv'; will-it-scale: runtest.py's csv\n"
		"(tasks,processes,...) or a raw binary's output (its command line with -t N,\n"
		"else --tasks N, else 1 task); vm-scalability: usemem's KB/s and 'usecs to free'\n"
		"lines; unixbench: the Run script's report; stress-ng: --metrics(-brief) table;\n"
		"hackbench: its Time: lines; fio: --output-format=json; time: GNU time -v;\n"
		"kselftest: the runner's TAP; proc-vs-map: run-proc-vs-map.sh --rawdata;\n"
		"perf-stat: perf stat (plain, -x, or -I); perf-profile: perf report (--children\n"
		"or --no-children, folded or tree); lmbench3, sysbench: their reports. Several\n"
		"runs concatenated give one value each. Prints {tool, status: ok|failed, metrics: {NAME: [v, ...]}, errors: [...]}\n"
		"(with --result a result document for 'regtrack submit'); exit 0 ok, 1 failed,\n"
		"2 usage or input error.\n"
		"tools:");
	for (; *t; t++)
		fprintf(stderr, " %s", *t);
	fprintf(stderr, "\n");
	return 2;
}

static int read_all(FILE *f, struct buf *b)
{
	char chunk[65536];
	size_t n;

	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (buf_add(b, chunk, n))
			return -1;
	return ferror(f) ? -1 : 0;
}

/* The whole of f: new (caller frees), NUL-terminated, *len bytes; a
 * regular file in one allocation of its size, else through a buf. */
static char *read_file(FILE *f, size_t *len)
{
	struct buf b = BUF_INIT(PARSE_INPUT_CAP);
	struct stat st;

	if (!fstat(fileno(f), &st) && S_ISREG(st.st_mode) && st.st_size >= 0 &&
	    (unsigned long long)st.st_size <= PARSE_INPUT_CAP) {
		size_t want = (size_t)st.st_size, n;
		char *data = xmalloc(want + 2);

		/* one byte more than the size: a file that grew is noticed */
		n = fread(data, 1, want + 1, f);
		if (!ferror(f) && n <= want) {
			data[n] = '\0';
			*len = n;
			return data;
		}
		/* grew while read: the general path from the start */
		free(data);
		if (ferror(f) || fseek(f, 0, SEEK_SET))
			return NULL;
	}
	if (read_all(f, &b)) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, len);
}

/* the fields of --result, borrowed from argv */
struct result_args {
	const char *commit, *testcase, *params, *kconfig, *compiler, *tree, *branch, *tbox,
		*hostname, *arch;
};

/* r's metrics as a result document (new), or NULL with a message on stderr */
static json_t *result_doc(const char *tool, const struct parse_result *r,
			  const struct result_args *a)
{
	json_t *m = parse_result_json(r), *doc, *params = NULL, *machine;
	char id[37], host[256];
	struct utsname u;
	uuid_t raw;

	if (a->params) {
		params = json_loads(a->params, 0, NULL);
		if (!json_is_object(params)) {
			fprintf(stderr, "regtrack parse: --params must be a JSON object\n");
			json_decref(params);
			json_decref(m);
			return NULL;
		}
	}
	uuid_generate_random(raw);
	uuid_unparse_lower(raw, id);
	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	machine = json_pack("{s:s, s:s}", "hostname", a->hostname ? a->hostname : host, "arch",
			    a->arch	   ? a->arch :
			    uname(&u) == 0 ? u.machine :
					     "x86_64");
	if (a->tbox)
		json_object_set_new(machine, "tbox_group", json_string(a->tbox));
	doc = json_pack("{s:s, s:s, s:s, s:o, s:s, s:s, s:o, s:s, s:O}", "run_id", id, "commit",
			a->commit, "testcase", a->testcase ? a->testcase : tool, "params",
			params ? params : json_object(), "kconfig",
			a->kconfig ? a->kconfig : "host", "compiler",
			a->compiler ? a->compiler : "gcc-12", "machine", machine, "status", "ok",
			"metrics", json_object_get(m, "metrics"));
	if (a->tree)
		json_object_set_new(doc, "tree", json_string(a->tree));
	if (a->branch)
		json_object_set_new(doc, "branch", json_string(a->branch));
	json_decref(m);
	return doc;
}

int cmd_parse(int argc, char **argv)
{
	static const struct {
		const char *flag;
		size_t off;
	} fields[] = {
		{ "--commit", offsetof(struct result_args, commit) },
		{ "--testcase", offsetof(struct result_args, testcase) },
		{ "--params", offsetof(struct result_args, params) },
		{ "--kconfig", offsetof(struct result_args, kconfig) },
		{ "--compiler", offsetof(struct result_args, compiler) },
		{ "--tree", offsetof(struct result_args, tree) },
		{ "--branch", offsetof(struct result_args, branch) },
		{ "--tbox-group", offsetof(struct result_args, tbox) },
		{ "--tbox_group", offsetof(struct result_args, tbox) },
		{ "--hostname", offsetof(struct result_args, hostname) },
		{ "--arch", offsetof(struct result_args, arch) },
	};
	struct parse_opts opts = { 0 };
	struct result_args ra = { 0 };
	const char *pos[2], *path;
	struct parse_result *r;
	struct err e;
	size_t len, npos = 0;
	char *text;
	FILE *f;
	int rc, result = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		size_t k;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			parse_usage();
			return 0;
		}
		if (!strcmp(a, "--result")) {
			result = 1;
			continue;
		}
		if (!strcmp(a, "--tasks")) {
			char *end;

			if (i + 1 >= argc)
				return parse_usage();
			opts.tasks = strtol(argv[++i], &end, 10);
			if (*end || opts.tasks < 1 || opts.tasks > 10000000) {
				fprintf(stderr,
					"regtrack parse: --tasks must be a task count >= 1\n");
				return 2;
			}
			continue;
		}
		for (k = 0; k < sizeof(fields) / sizeof(fields[0]); k++)
			if (!strcmp(a, fields[k].flag))
				break;
		if (k < sizeof(fields) / sizeof(fields[0])) {
			if (i + 1 >= argc)
				return parse_usage();
			*(const char **)((char *)&ra + fields[k].off) = argv[++i];
			continue;
		}
		if (a[0] == '-' && a[1]) {
			fprintf(stderr, "regtrack parse: unknown option '%s'\n", a);
			return parse_usage();
		}
		if (npos == 2)
			return parse_usage();
		pos[npos++] = a;
	}
	if (npos != 2)
		return parse_usage();
	if (result && !ra.commit) {
		fprintf(stderr, "regtrack parse: --result needs --commit SHA\n");
		return 2;
	}
	if (!result && (ra.commit || ra.testcase || ra.params)) {
		fprintf(stderr, "regtrack parse: --commit, --testcase, ... go with --result\n");
		return 2;
	}
	path = pos[1];
	f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f) {
		fprintf(stderr, "regtrack parse: cannot open '%s': %s\n", path, strerror(errno));
		return 2;
	}
	text = read_file(f, &len);
	if (f != stdin)
		fclose(f);
	if (!text) {
		fprintf(stderr, "regtrack parse: cannot read '%s' (error or larger than %u MiB)\n",
			path, PARSE_INPUT_CAP >> 20);
		return 2;
	}
	err_clear(&e);
	r = parse_run_opts(pos[0], text, len, &opts, &e);
	free(text);
	if (!r) {
		fprintf(stderr, "regtrack parse: %s\n", e.message);
		parse_usage();
		return 2;
	}
	if (result) {
		json_t *doc = NULL;
		char *out = NULL;

		if (parse_result_failed(r)) {
			json_t *m = parse_result_json(r);
			char *why = json_dumps(json_object_get(m, "errors"), 0);

			fprintf(stderr,
				"regtrack parse: '%s' is no %s measurement, no result written: %s\n",
				path, pos[0], why ? why : "");
			free(why);
			json_decref(m);
			parse_result_free(r);
			return 1;
		}
		doc = result_doc(pos[0], r, &ra);
		parse_result_free(r);
		if (!doc)
			return 2;
		out = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(15));
		json_decref(doc);
		rc = !out || puts(out) == EOF || fflush(stdout);
		free(out);
		return rc ? 2 : 0;
	}
	rc = parse_result_write(r, stdout) || fputc('\n', stdout) == EOF || fflush(stdout);
	result = parse_result_failed(r);
	parse_result_free(r);
	return rc ? 2 : result ? 1 : 0;
}
