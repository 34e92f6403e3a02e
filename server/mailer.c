#include "server/mailer.h"
#include "server/db/pgval.h"
#include "server/db/db.h"
#include "server/gitmirror.h"
#include "server/http.h"
#include "server/api/args.h"
#include "report.h"
#include "stats/compare.h"
#include "xalloc.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <errno.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uuid/uuid.h>

#include "banned.h"

#define MAX_RCPT 64
#define MAX_ROWS 50
/* rows of the mail's comparison table: the bisected metric, then the largest changes */
#define MAX_TABLE_ROWS 30

struct mailer {
	struct server *srv;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int kicked, stopping;
};

int mailer_check_config(const struct config *cfg, struct err *e)
{
	char addr[256];

	if (strcmp(cfg->smtp_starttls, "none") && strcmp(cfg->smtp_starttls, "try") &&
	    strcmp(cfg->smtp_starttls, "required"))
		return err_set(e, 400, "config_invalid", "smtp_starttls",
			       "'smtp_starttls' must be none, try or required, not '%s'",
			       cfg->smtp_starttls);
	if (report_addr_spec(cfg->mail_from, addr, sizeof(addr)))
		return err_set(e, 400, "config_invalid", "mail_from",
			       "'mail_from' has no valid address: '%s'", cfg->mail_from);
	return 0;
}

/* ---- recipients ----------------------------------------------------- */

struct rcpts {
	char *a[MAX_RCPT];
	size_t n;
};

static void rcpt_add(struct rcpts *r, const char *addr)
{
	if (!report_addr_ok(addr) || r->n == MAX_RCPT)
		return;
	for (size_t i = 0; i < r->n; i++)
		if (!strcasecmp(r->a[i], addr))
			return;
	r->a[r->n++] = xstrdup(addr);
}

static void rcpt_release(struct rcpts *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->a[i]);
	r->n = 0;
}

/* Adds each comma-separated address of list. */
static void rcpt_add_list(struct rcpts *r, const char *list)
{
	char *t = xstrdup(list), *save = NULL;

	for (char *w = strtok_r(t, ", ", &save); w; w = strtok_r(NULL, ", ", &save))
		rcpt_add(r, w);
	free(t);
}

/*
 * 1 when subscription path pattern pat matches file (a path in the tree,
 * as git prints it). Semantics (the API's `paths`):
 *  - a pattern with a glob character (* ? [) is matched with fnmatch(3)
 *    without FNM_PATHNAME, so '*' also crosses '/': "mm*.c" matches
 *    mm/mmap.c and mm/kasan/common.c, "*.h" any header;
 *  - any other pattern is a path prefix on a '/' boundary: "mm/" and "mm"
 *    match mm/mmap.c (but "mm" not mmx/a.c), "mm/mmap.c" matches itself.
 */
int mailer_path_match(const char *pat, const char *file)
{
	size_t n = strlen(pat);

	if (!n)
		return 0;
	if (strpbrk(pat, "*?["))
		return !fnmatch(pat, file, 0);
	if (strncmp(pat, file, n))
		return 0;
	return pat[n - 1] == '/' || file[n] == '\0' || file[n] == '/';
}

/* 1 when one of the newline-separated patterns matches one of files (NULL = unknown). */
static int paths_match(const char *pats, const char *const *files)
{
	char *t, *save = NULL;
	int hit = 0;

	if (!files)
		return 0;
	t = xstrdup(pats);
	for (char *g = strtok_r(t, "\n", &save); g && !hit; g = strtok_r(NULL, "\n", &save))
		for (size_t i = 0; files[i] && !hit; i++)
			hit = mailer_path_match(g, files[i]);
	free(t);
	return hit;
}

static int match_subscriptions(PGconn *c, const char *tree, const char *testcase,
			       const char *metric, const char *const *files, struct rcpts *r,
			       struct err *e)
{
	const char *p[2] = { tree, testcase };
	PGresult *res = db_exec(c, ST_MAIL_SUBS_MATCH, 2, p, e);

	if (!res)
		return -1;
	for (int i = 0; i < PQntuples(res); i++) {
		const char *glob = PQgetvalue(res, i, 1), *paths = PQgetvalue(res, i, 2);

		if (*glob && fnmatch(glob, metric, 0))
			continue;
		if (*paths && !paths_match(paths, files))
			continue;
		rcpt_add(r, PQgetvalue(res, i, 0));
	}
	PQclear(res);
	return 0;
}

/* ---- gathering what a report says ---------------------------------- */

struct gathered {
	PGresult *reg;            /* ST_MAIL_REGRESSION row */
	PGresult *bisect;         /* ST_MAIL_BISECT row: culprit and parent */
	PGresult *steps;          /* ST_MAIL_BISECT_STEPS rows */
	struct report_step *step;
	PGresult *table;          /* ST_MAIL_COMPARE rows */
	struct lkp_row *rows;
	double *pool;             /* the samples of every table row */
	PGresult *machine;        /* ST_MAIL_MACHINE row */
	PGresult *diffstat;       /* ST_MAIL_DIFFSTAT row */
	PGresult *files_res;      /* ST_MAIL_COMMIT_FILES rows */
	struct report_file *files;
	const char **file_paths;  /* NULL-terminated, for paths subscriptions */
	struct report_param *params;
	char **param_vals;
	size_t nr_params;
	json_t *params_json;
	char *author, *email;
	char *reproduce;
	double table_change_pct;  /* the bisected metric's row; NAN when none */
	struct report_input in;
};

static void gathered_release(struct gathered *g)
{
	PQclear(g->reg);
	PQclear(g->bisect);
	PQclear(g->steps);
	free(g->step);
	PQclear(g->table);
	free(g->rows);
	free(g->pool);
	PQclear(g->machine);
	PQclear(g->diffstat);
	PQclear(g->files_res);
	free(g->files);
	free(g->file_paths);
	for (size_t i = 0; i < g->nr_params; i++)
		free(g->param_vals[i]);
	free(g->param_vals);
	free(g->params);
	json_decref(g->params_json);
	free(g->author);
	free(g->email);
	free(g->reproduce);
	memset(g, 0, sizeof(*g));
}

static const char *col(PGresult *r, int c)
{
	return PQgetisnull(r, 0, c) ? NULL : PQgetvalue(r, 0, c);
}

static double dcol(PGresult *r, int row, int c)
{
	return PQgetisnull(r, row, c) ? NAN : strtod(PQgetvalue(r, row, c), NULL);
}

static int cmp_param(const void *a, const void *b)
{
	return strcmp(((const struct report_param *)a)->name, ((const struct report_param *)b)->name);
}

static void gather_params(struct gathered *g, const char *text)
{
	const char *key;
	json_t *v;
	size_t n;

	g->params_json = text ? json_loads(text, 0, NULL) : NULL;
	if (!json_is_object(g->params_json))
		return;
	n = json_object_size(g->params_json);
	g->params = xcalloc(n ? n : 1, sizeof(*g->params));
	g->param_vals = xcalloc(n ? n : 1, sizeof(*g->param_vals));
	json_object_foreach(g->params_json, key, v) {
		g->param_vals[g->nr_params] = json_is_string(v) ? xstrdup(json_string_value(v))
								: json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
		if (!g->param_vals[g->nr_params])
			g->param_vals[g->nr_params] = xstrdup("");
		g->params[g->nr_params].name = key;
		g->params[g->nr_params].value = g->param_vals[g->nr_params];
		g->nr_params++;
	}
	qsort(g->params, g->nr_params, sizeof(*g->params), cmp_param);
}

/* "Name <email>" (git's form) or a bare name / address. */
static void gather_author(struct gathered *g, const char *author)
{
	const char *lt, *gt;

	if (!author || !*author)
		return;
	lt = strchr(author, '<');
	gt = lt ? strchr(lt, '>') : NULL;
	if (lt && gt) {
		size_t n = (size_t)(lt - author);
		while (n && author[n - 1] == ' ')
			n--;
		g->author = xstrndup(author, n);
		g->email = xstrndup(lt + 1, (size_t)(gt - lt - 1));
	} else if (report_addr_ok(author)) {
		g->email = xstrdup(author);
	} else {
		g->author = xstrdup(author);
	}
}

/* curl command for one data point: the same job, one run, at the first bad commit */
static char *reproduce_command(const struct report_input *in, json_t *params,
			       const char *bad_sha, const char *base_url)
{
	json_t *job = json_object();
	struct buf b = BUF_INIT(0);
	char *text;
	size_t n = strlen(base_url);

	while (n && base_url[n - 1] == '/')
		n--;
	if (in->tree)
		json_object_set_new(job, "tree", json_string(in->tree));
	json_object_set_new(job, "commit", json_string(bad_sha));
	json_object_set_new(job, "testcase", json_string(in->testcase ? in->testcase : ""));
	json_object_set_new(job, "kconfig", json_string(in->kconfig ? in->kconfig : ""));
	if (in->compiler)
		json_object_set_new(job, "compiler", json_string(in->compiler));
	if (in->tbox_group)
		json_object_set_new(job, "tbox_group", json_string(in->tbox_group));
	if (json_is_object(params))
		json_object_set(job, "params", params);
	json_object_set_new(job, "repeat", json_integer(1));
	text = json_dumps(job, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(15));
	json_decref(job);
	if (buf_addstr(&b, "curl -sS -X POST -H \"Authorization: Bearer $REGTRACK_TOKEN\" "
			   "-H 'Content-Type: application/json' -d '"))
		goto out;
	for (const char *s = text ? text : "{}"; *s; s++)
		if (*s == '\'' ? buf_addstr(&b, "'\\''") : buf_addch(&b, *s))
			goto out;
	if (buf_addf(&b, "' %.*s/api/v1/jobs", (int)n, base_url))
		goto out;
out:
	free(text);
	return buf_detach(&b, NULL);
}

/*
 * Reads the finished bisect g->in.bisect_id: its first bad commit becomes
 * the culprit, that commit's first parent the table's base (ids for the
 * table query in table_ids[0] = parent, [1] = culprit), and its steps the
 * short story. A bisect that is not done (or found no single commit)
 * leaves the regression's range in place.
 */
static int gather_bisect(PGconn *c, struct gathered *g, const char *table_ids[2], struct err *e)
{
	char bid[24];
	const char *p[1] = { bid };
	PGresult *r;
	int n;

	snprintf(bid, sizeof(bid), "%lld", g->in.bisect_id);
	r = g->bisect = db_exec(c, ST_MAIL_BISECT, 1, p, e);
	if (!r)
		return -1;
	if (PQntuples(r) == 1) {
		g->in.culprit_sha = PQgetvalue(r, 0, 1);
		g->in.culprit_subject = col(r, 2);
		free(g->author);
		free(g->email);
		g->author = g->email = NULL;
		gather_author(g, col(r, 3));
		table_ids[1] = PQgetvalue(r, 0, 0);
		if (!PQgetisnull(r, 0, 4)) {
			g->in.parent_sha = PQgetvalue(r, 0, 5);
			g->in.parent_subject = col(r, 6);
			table_ids[0] = PQgetvalue(r, 0, 4);
		}
	}
	r = g->steps = db_exec(c, ST_MAIL_BISECT_STEPS, 1, p, e);
	if (!r)
		return -1;
	n = PQntuples(r);
	g->step = xcalloc(n ? (size_t)n : 1, sizeof(*g->step));
	for (int i = 0; i < n; i++) {
		g->step[i].sha = PQgetvalue(r, i, 0);
		g->step[i].subject = PQgetisnull(r, i, 1) ? NULL : PQgetvalue(r, i, 1);
		g->step[i].verdict = PQgetvalue(r, i, 2);
		g->step[i].mean = dcol(r, i, 3);
		g->step[i].nr_samples = (int)strtol(PQgetvalue(r, i, 4), NULL, 10);
	}
	g->in.steps = g->step;
	g->in.nr_steps = (size_t)n;
	return 0;
}

struct table_row {
	int index;                /* row of g->table */
	int bisected;             /* the report's own metric */
	struct compare_result res;
};

/* the bisected metric first, then significant changes by |%change|, largest first */
static int cmp_table_row(const void *x, const void *y)
{
	const struct table_row *a = x, *b = y;
	int da = a->res.verdict == VERDICT_DIFFERENT, db = b->res.verdict == VERDICT_DIFFERENT;
	double ca = fabs(a->res.change_pct), cb = fabs(b->res.change_pct);

	if (a->bisected != b->bisected)
		return b->bisected - a->bisected;
	if (da != db)
		return db - da;
	if (isnan(ca) || isnan(cb))
		return isnan(ca) - isnan(cb);
	if (ca != cb)
		return ca < cb ? 1 : -1;
	return a->index - b->index;
}

/*
 * The comparison table, parent (base) vs first bad commit (head), in the
 * LKP layout: every metric of the setup with runs at both commits, compared
 * as GET /api/v1/compare does (per-run means, lib/stats/compare.h,
 * Benjamini-Hochberg across the rows, alpha 0.01). Shown: the bisected
 * metric, then the metrics with a significant change, largest |%change|
 * first, at most MAX_TABLE_ROWS; the others are counted in nr_rows_omitted.
 */
static int gather_table(PGconn *c, struct gathered *g, const char *setup_id, const char *base,
			const char *head, const char *metric_id, struct err *e)
{
	const char *p[3] = { setup_id, base, head };
	struct compare_opts opts;
	struct table_row *tr;
	size_t n, nvals = 0, shown = 0;
	double *q, *pool;
	struct compare_result **res;

	g->table_change_pct = NAN;
	g->table = db_exec(c, ST_MAIL_COMPARE, 3, p, e);
	if (!g->table)
		return -1;
	n = (size_t)PQntuples(g->table);
	for (size_t i = 0; i < n; i++)
		nvals += pg_float8_array_len(PQgetvalue(g->table, (int)i, 2)) +
			 pg_float8_array_len(PQgetvalue(g->table, (int)i, 3));
	pool = g->pool = xmalloc((nvals ? nvals : 1) * sizeof(double));
	tr = xcalloc(n ? n : 1, sizeof(*tr));
	q = xcalloc(n ? n : 1, sizeof(*q));
	res = xcalloc(n ? n : 1, sizeof(*res));
	compare_opts_init(&opts);
	for (size_t i = 0; i < n; i++) {
		const char *name = PQgetvalue(g->table, (int)i, 1);
		struct compare_opts o = opts;
		double *a = pool, *b;
		size_t na, nb;

		/* sorted: aggregated in no particular order */
		na = pg_float8_array_sorted(PQgetvalue(g->table, (int)i, 2), a);
		b = a + na;
		nb = pg_float8_array_sorted(PQgetvalue(g->table, (int)i, 3), b);
		pool = b + nb;
		o.floor_pct = compare_opts_floor(&opts, name);
		compare_samples(a, na, b, nb, &o, &tr[i].res);
		tr[i].index = (int)i;
		tr[i].bisected = !strcmp(PQgetvalue(g->table, (int)i, 0), metric_id);
		if (tr[i].bisected)
			g->table_change_pct = tr[i].res.change_pct;
		res[i] = &tr[i].res;
	}
	compare_fdr(res, n, opts.alpha, q);
	free(res);
	qsort(tr, n, sizeof(*tr), cmp_table_row);
	g->rows = xcalloc(n ? n : 1, sizeof(*g->rows));
	for (size_t i = 0; i < n && shown < MAX_TABLE_ROWS; i++) {
		struct lkp_row *row = &g->rows[shown];

		if (!tr[i].bisected && tr[i].res.verdict != VERDICT_DIFFERENT)
			break;
		row->metric = PQgetvalue(g->table, tr[i].index, 1);
		row->base_mean = tr[i].res.a.mean;
		row->base_stddev_pct = tr[i].res.a.stddev_pct;
		row->head_mean = tr[i].res.b.mean;
		row->head_stddev_pct = tr[i].res.b.stddev_pct;
		row->change_pct = tr[i].res.change_pct;
		shown++;
	}
	g->in.rows = g->rows;
	g->in.nr_rows = shown;
	g->in.nr_rows_omitted = n - shown;
	free(tr);
	free(q);
	return 0;
}

static long long llcol(PGresult *r, int c)
{
	return PQgetisnull(r, 0, c) ? 0 : strtoll(PQgetvalue(r, 0, c), NULL, 10);
}

/*
 * The test machine of the newest run at the table's head: the host
 * (machines row) and, for a qemu run, the guest the worker describes in
 * runs.extra (worker/execute.c: "guest" {arch, nr_cpus, memory_mb, accel,
 * icount}; documents from before that carry only "accel" and "cpus", and
 * the setup's mode says icount).
 */
static int gather_machine(PGconn *c, struct gathered *g, const char *setup_id, const char *commit_id,
			  struct err *e)
{
	const char *p[2] = { setup_id, commit_id };
	PGresult *r = g->machine = db_exec(c, ST_MAIL_MACHINE, 2, p, e);
	const char *icount;

	if (!r)
		return -1;
	if (PQntuples(r) != 1)
		return 0;
	if (!PQgetisnull(r, 0, 0))
		g->in.machine_arch = PQgetvalue(r, 0, 0);
	if (!PQgetisnull(r, 0, 1))
		g->in.nr_cpus = (long)llcol(r, 1);
	if (!PQgetisnull(r, 0, 2))
		g->in.memory_mb = llcol(r, 2);
	if (!PQgetisnull(r, 0, 3))
		g->in.cpu_model = PQgetvalue(r, 0, 3);
	g->in.accel = col(r, 4);
	g->in.guest_arch = col(r, 5);
	g->in.guest_cpus = (long)(PQgetisnull(r, 0, 6) ? llcol(r, 9) : llcol(r, 6));
	g->in.guest_memory_mb = llcol(r, 7);
	icount = col(r, 8);
	g->in.icount = icount ? !strcmp(icount, "true") : !strcmp(PQgetvalue(r, 0, 10), "icount");
	return 0;
}

/*
 * The culprit's diffstat and files (sql/0007), collected from the tree's
 * mirror now when the bisect could not (a failure leaves them unknown:
 * logged, no paths subscription matches).
 */
static int gather_files(PGconn *c, const struct config *cfg, struct gathered *g,
			const char *commit_id, struct err *e)
{
	const char *p[1] = { commit_id };
	struct err ge;
	int n;

	if (gitmirror_store_diffstat(c, cfg->data_dir, g->in.tree, strtoll(commit_id, NULL, 10),
				     (int)cfg->git_timeout_s, &ge) < 0) {
		if (PQtransactionStatus(c) != PQTRANS_INTRANS) {
			*e = ge;
			return -1;
		}
		fprintf(stderr, "regtrack-server: mail: files of commit %s: %s\n", commit_id,
			ge.message);
	}
	g->diffstat = db_exec(c, ST_MAIL_DIFFSTAT, 1, p, e);
	if (!g->diffstat)
		return -1;
	if (PQntuples(g->diffstat) != 1)
		return 0;
	g->in.has_diffstat = 1;
	g->in.files_changed = llcol(g->diffstat, 0);
	g->in.insertions = llcol(g->diffstat, 1);
	g->in.deletions = llcol(g->diffstat, 2);
	g->files_res = db_exec(c, ST_MAIL_COMMIT_FILES, 1, p, e);
	if (!g->files_res)
		return -1;
	n = PQntuples(g->files_res);
	g->files = xcalloc(n ? (size_t)n : 1, sizeof(*g->files));
	g->file_paths = xcalloc((size_t)n + 1, sizeof(*g->file_paths));
	for (int i = 0; i < n; i++) {
		g->files[i].path = g->file_paths[i] = PQgetvalue(g->files_res, i, 0);
		g->files[i].insertions = strtol(PQgetvalue(g->files_res, i, 1), NULL, 10);
		g->files[i].deletions = strtol(PQgetvalue(g->files_res, i, 2), NULL, 10);
	}
	g->in.files = g->files;
	g->in.nr_files = (size_t)n;
	return 0;
}

static int gather(PGconn *c, const struct config *cfg, long long regression_id,
		  enum report_kind kind, struct gathered *g, struct err *e)
{
	char rid[24];
	const char *p[1] = { rid };
	PGresult *r;
	const char *table_ids[2] = { NULL, NULL }; /* parent, culprit commit ids */

	memset(g, 0, sizeof(*g));
	snprintf(rid, sizeof(rid), "%lld", regression_id);
	r = g->reg = db_exec(c, ST_MAIL_REGRESSION, 1, p, e);
	if (!r)
		return -1;
	if (PQntuples(r) == 0)
		return err_set(e, 404, "not_found", "regression", "regression %lld not found",
			       regression_id);
	g->in.kind = kind;
	g->in.is_regression = strcmp(PQgetvalue(r, 0, 0), "improvement") != 0;
	g->in.change_pct = dcol(r, 0, 1);
	g->in.metric = col(r, 2);
	g->in.testcase = col(r, 3);
	gather_params(g, col(r, 4));
	g->in.params = g->params;
	g->in.nr_params = g->nr_params;
	g->in.kconfig = col(r, 5);
	g->in.compiler = col(r, 6);
	g->in.tbox_group = col(r, 7);
	g->in.mode = col(r, 8);
	g->in.good_sha = col(r, 9);
	g->in.good_subject = col(r, 10);
	g->in.bad_sha = col(r, 11);
	g->in.bad_subject = col(r, 12);
	g->in.tree = *PQgetvalue(r, 0, 14) ? PQgetvalue(r, 0, 14) : "unknown";
	g->in.branch = col(r, 15);
	g->in.machine_arch = col(r, 16);
	g->in.nr_cpus = PQgetisnull(r, 0, 17) ? 0 : strtol(PQgetvalue(r, 0, 17), NULL, 10);
	g->in.memory_mb = PQgetisnull(r, 0, 18) ? 0 : strtoll(PQgetvalue(r, 0, 18), NULL, 10);
	g->in.cpu_model = col(r, 19);
	g->in.bisect_id = strtoll(PQgetvalue(r, 0, 24), NULL, 10);
	if (kind == REPORT_BISECT) {
		/*
		 * The culprit is the bisect's first bad commit and the table's
		 * base its first parent; without a finished bisect (a report
		 * asked for by hand), the regression's own range stands in.
		 */
		g->in.culprit_sha = g->in.bad_sha;
		g->in.culprit_subject = g->in.bad_subject;
		gather_author(g, col(r, 13));
		g->in.parent_sha = g->in.good_sha;
		g->in.parent_subject = g->in.good_subject;
		if (g->in.bisect_id > 0 && gather_bisect(c, g, table_ids, e))
			return -1;
		g->in.culprit_author = g->author;
		g->in.culprit_email = g->email;
	}
	g->in.regression_id = regression_id;
	g->in.public_url = cfg->public_url;
	g->in.mail_from = cfg->mail_from;

	if (gather_table(c, g, PQgetvalue(r, 0, 20),
			 table_ids[0] ? table_ids[0] : PQgetvalue(r, 0, 21),
			 table_ids[1] ? table_ids[1] : PQgetvalue(r, 0, 22), PQgetvalue(r, 0, 23), e) ||
	    gather_machine(c, g, PQgetvalue(r, 0, 20),
			   table_ids[1] ? table_ids[1] : PQgetvalue(r, 0, 22), e))
		return -1;
	/*
	 * A bisect's report states the change its table shows (first bad commit
	 * vs its parent, the verification's runs), not the detector's estimate
	 * over the wider range, so subject, first line and table agree
	 */
	if (kind == REPORT_BISECT && g->in.bisect_id > 0 && isfinite(g->table_change_pct))
		g->in.change_pct = g->table_change_pct;
	/*
	 * The culprit's files: the bisect's first bad commit, or the bad end of
	 * a detected range of one commit (its first parent is the good end)
	 */
	if (kind == REPORT_BISECT &&
	    gather_files(c, cfg, g, table_ids[1] ? table_ids[1] : PQgetvalue(r, 0, 22), e))
		return -1;
	if (kind == REPORT_RANGE && g->in.good_sha && !PQgetisnull(r, 0, 25) &&
	    !strcmp(PQgetvalue(r, 0, 25), g->in.good_sha) &&
	    gather_files(c, cfg, g, PQgetvalue(r, 0, 22), e))
		return -1;
	if (kind == REPORT_BISECT && g->in.culprit_sha) {
		g->reproduce = reproduce_command(&g->in, g->params_json, g->in.culprit_sha, cfg->public_url);
		g->in.reproduce = g->reproduce;
	} else if (g->in.bad_sha) {
		g->reproduce = reproduce_command(&g->in, g->params_json, g->in.bad_sha, cfg->public_url);
		g->in.reproduce = g->reproduce;
	}
	return 0;
}

/* ---- one row -------------------------------------------------------- */

static int set_state(PGconn *c, const char *id, const char *state, const char *why,
		     struct err *e)
{
	const char *p[3] = { id, state, why };
	PGresult *r = db_exec(c, ST_OUTBOX_GIVEUP, 3, p, e);

	if (!r)
		return -1;
	PQclear(r);
	return 0;
}

static void new_message_id(const struct config *cfg, char out[200])
{
	char addr[256], u[40];
	const char *at;
	uuid_t id;

	if (report_addr_spec(cfg->mail_from, addr, sizeof(addr)))
		snprintf(addr, sizeof(addr), "regtrack@localhost");
	at = strchr(addr, '@');
	uuid_generate_random(id);
	uuid_unparse_lower(id, u);
	snprintf(out, 200, "<%s@%s>", u, at ? at + 1 : "localhost");
}

/*
 * Renders row `id` and stores the text. Returns 0 rendered, 1 the row was
 * settled without mail (skipped/failed/deferred), -1 with e.
 */
static int render_row(PGconn *c, const struct config *cfg, const char *id, const char *kind,
		      long long regression_id, long long bisect_id, struct err *e)
{
	enum report_kind rk = !strcmp(kind, "bisect") ? REPORT_BISECT
			      : !strcmp(kind, "fixed") ? REPORT_FIXED : REPORT_RANGE;
	char rid[24], root_id[24] = "", msgid[200], in_reply_to[256] = "";
	struct rcpts rc = { { 0 }, 0 };
	struct buf to = BUF_INIT(0);
	struct gathered g;
	struct report rep = { 0 };
	char *orig_subject = NULL;
	PGresult *r;
	int ret = -1;

	if (!regression_id && bisect_id) {
		char bid[24];
		const char *p[1] = { bid };

		snprintf(bid, sizeof(bid), "%lld", bisect_id);
		r = db_exec(c, ST_MAIL_BISECT_REGRESSION, 1, p, e);
		if (!r)
			return -1;
		if (PQntuples(r))
			regression_id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
		PQclear(r);
	}
	if (!regression_id)
		return set_state(c, id, "failed", "no regression for this report", e) ? -1 : 1;
	snprintf(rid, sizeof(rid), "%lld", regression_id);

	/* the thread: the regression's first report before this row */
	{
		const char *p[2] = { rid, id };
		r = db_exec(c, ST_OUTBOX_THREAD_ROOT, 2, p, e);
		if (!r)
			return -1;
		if (PQntuples(r)) {
			if (!*PQgetvalue(r, 0, 1)) {
				/* the first mail is not rendered yet: ours waits */
				PQclear(r);
				r = db_exec(c, ST_OUTBOX_DEFER, 1, (const char *[]){ id }, e);
				if (!r)
					return -1;
				PQclear(r);
				return 1;
			}
			snprintf(root_id, sizeof(root_id), "%s", PQgetvalue(r, 0, 0));
			snprintf(in_reply_to, sizeof(in_reply_to), "%s", PQgetvalue(r, 0, 1));
			orig_subject = xstrdup(PQgetvalue(r, 0, 2));
		}
		PQclear(r);
	}
	if (rk == REPORT_FIXED && !*root_id) {
		free(orig_subject);
		return set_state(c, id, "failed", "regression was never reported", e) ? -1 : 1;
	}
	if (rk == REPORT_FIXED && !cfg->mail_report_fixed) {
		free(orig_subject);
		return set_state(c, id, "skipped", "mail_report_fixed = 0", e) ? -1 : 1;
	}

	if (gather(c, cfg, regression_id, rk, &g, e)) {
		if (e->status == 404)
			ret = set_state(c, id, "failed", e->message, e) ? -1 : 1;
		goto out;
	}
	if (rk == REPORT_BISECT && !g.in.is_regression && !cfg->mail_report_improvements) {
		ret = set_state(c, id, "skipped", "improvement and mail_report_improvements = 0", e)
			      ? -1 : 1;
		goto out;
	}
	g.in.orig_subject = orig_subject;
	if (report_render(&g.in, &rep, e)) {
		ret = set_state(c, id, "failed", e->message, e) ? -1 : 1;
		goto out;
	}
	/* a re-send in an existing thread is a reply too */
	if (rk != REPORT_FIXED && *root_id) {
		char *s = xstrfmt("Re: %s", orig_subject);
		free(rep.subject);
		rep.subject = s;
	}

	if (match_subscriptions(c, g.in.tree, g.in.testcase ? g.in.testcase : "", g.in.metric,
				g.file_paths, &rc, e))
		goto out;
	if (cfg->mail_to_author && g.in.culprit_email)
		rcpt_add(&rc, g.in.culprit_email);
	rcpt_add_list(&rc, cfg->mail_cc);
	if (!rc.n) {
		ret = set_state(c, id, "skipped", "no recipients", e) ? -1 : 1;
		goto out;
	}
	for (size_t i = 0; i < rc.n; i++)
		if ((i && buf_addch(&to, ' ')) || buf_addstr(&to, rc.a[i]))
			goto out;
	new_message_id(cfg, msgid);
	{
		const char *p[8] = { id, rep.subject, rep.body.data, msgid,
				     *in_reply_to ? in_reply_to : NULL, to.data, rid,
				     *root_id ? root_id : NULL };
		r = db_exec(c, ST_OUTBOX_RENDER, 8, p, e);
		if (!r)
			goto out;
		PQclear(r);
	}
	ret = 0;
out:
	gathered_release(&g);
	report_release(&rep);
	rcpt_release(&rc);
	buf_release(&to);
	free(orig_subject);
	return ret;
}

/* ---- sending -------------------------------------------------------- */

struct upload {
	const char *data;
	size_t len, pos;
};

static size_t read_cb(char *ptr, size_t size, size_t nmemb, void *userp)
{
	struct upload *u = userp;
	size_t room = size * nmemb, n = u->len - u->pos;

	if (n > room)
		n = room;
	memcpy(ptr, u->data + u->pos, n);
	u->pos += n;
	return n;
}

static int smtp_send(const struct config *cfg, char *const *rcpt, size_t nr, const char *msg,
		     size_t len, struct err *e)
{
	char from[256], errbuf[CURL_ERROR_SIZE] = "", env[300];
	struct curl_slist *list = NULL;
	struct upload u = { msg, len, 0 };
	CURL *curl;
	CURLcode rc;

	if (report_addr_spec(cfg->mail_from, from, sizeof(from)))
		return err_set(e, 400, "config_invalid", "mail_from", "invalid mail_from");
	curl = curl_easy_init();
	if (!curl)
		return err_set(e, 500, "smtp_failed", "", "curl_easy_init failed");
	for (size_t i = 0; i < nr; i++) {
		snprintf(env, sizeof(env), "<%s>", rcpt[i]);
		list = curl_slist_append(list, env);
	}
	snprintf(env, sizeof(env), "<%s>", from);
	curl_easy_setopt(curl, CURLOPT_URL, cfg->smtp_url);
	curl_easy_setopt(curl, CURLOPT_MAIL_FROM, env);
	curl_easy_setopt(curl, CURLOPT_MAIL_RCPT, list);
	curl_easy_setopt(curl, CURLOPT_READFUNCTION, read_cb);
	curl_easy_setopt(curl, CURLOPT_READDATA, &u);
	curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, 120L);
	curl_easy_setopt(curl, CURLOPT_USE_SSL,
			 !strcmp(cfg->smtp_starttls, "required") ? (long)CURLUSESSL_ALL
			 : !strcmp(cfg->smtp_starttls, "try") ? (long)CURLUSESSL_TRY
			 : (long)CURLUSESSL_NONE);
	if (*cfg->smtp_user) {
		curl_easy_setopt(curl, CURLOPT_USERNAME, cfg->smtp_user);
		curl_easy_setopt(curl, CURLOPT_PASSWORD, cfg->smtp_password);
	}
	rc = curl_easy_perform(curl);
	curl_slist_free_all(list);
	curl_easy_cleanup(curl);
	if (rc != CURLE_OK)
		return err_set(e, 502, "smtp_failed", cfg->smtp_url, "%s",
			       *errbuf ? errbuf : curl_easy_strerror(rc));
	return 0;
}

static int write_dry_run(const char *dir, const char *id, const char *msg, size_t len,
			 struct err *e)
{
	char path[4096], tmp[4200];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s.eml", dir, id);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (mkdir(dir, 0755) && errno != EEXIST)
		return err_set(e, 500, "dry_run_failed", dir, "cannot create the dry-run directory: %s",
			       strerror(errno));
	f = fopen(tmp, "wb");
	if (!f)
		return err_set(e, 500, "dry_run_failed", tmp, "cannot create the dry-run file: %s",
			       strerror(errno));
	ok = fwrite(msg, 1, len, f) == len;
	ok = !fflush(f) && !fsync(fileno(f)) && ok;
	ok = !fclose(f) && ok;
	if (!ok || rename(tmp, path)) {
		unlink(tmp);
		return err_set(e, 500, "dry_run_failed", path, "cannot write the dry-run file");
	}
	return 0;
}

/* Composes and sends (or writes) rendered row id; 0 sent, -1 with e. */
static int deliver(PGconn *c, const struct config *cfg, const char *id, const char **state,
		   struct err *e)
{
	const char *p[1] = { id };
	PGresult *r = db_exec(c, ST_OUTBOX_ROW, 1, p, e);
	struct buf msg = BUF_INIT(0);
	struct rcpts rc = { { 0 }, 0 };
	int ret = -1;

	if (!r)
		return -1;
	{
		char *t = xstrdup(PQgetvalue(r, 0, 4)), *save = NULL;
		for (char *w = strtok_r(t, " ", &save); w; w = strtok_r(NULL, " ", &save))
			rcpt_add(&rc, w);
		free(t);
	}
	{
		const char *irt = PQgetisnull(r, 0, 3) ? NULL : PQgetvalue(r, 0, 3);
		struct report_mail m = {
			.from = cfg->mail_from, .to = (const char *const *)rc.a, .nr_to = rc.n,
			.subject = PQgetvalue(r, 0, 0), .message_id = PQgetvalue(r, 0, 2),
			.in_reply_to = irt, .references = irt, .date = time(NULL),
			.body = PQgetvalue(r, 0, 1),
		};
		if (report_compose(&msg, &m, e))
			goto out;
	}
	if (*cfg->mail_dry_run_dir) {
		*state = "dry_run";
		ret = write_dry_run(cfg->mail_dry_run_dir, id, msg.data, msg.len, e);
	} else {
		*state = "sent";
		ret = smtp_send(cfg, rc.a, rc.n, msg.data, msg.len, e);
	}
out:
	PQclear(r);
	buf_release(&msg);
	rcpt_release(&rc);
	return ret;
}

int mailer_run_once(PGconn *c, const struct config *cfg, struct err *e)
{
	char id[24], maxs[24];
	long long regression_id, bisect_id;
	char kind[16];
	int rendered, rc;
	const char *state = "sent";
	PGresult *r;
	struct err se;

	if (db_begin(c, e))
		return -1;
	r = db_exec(c, ST_OUTBOX_CLAIM, 0, NULL, e);
	if (!r)
		goto fail;
	if (PQntuples(r) == 0) {
		PQclear(r);
		db_rollback(c);
		return 0;
	}
	snprintf(id, sizeof(id), "%s", PQgetvalue(r, 0, 0));
	snprintf(kind, sizeof(kind), "%s", PQgetvalue(r, 0, 1));
	regression_id = strtoll(PQgetvalue(r, 0, 2), NULL, 10);
	bisect_id = strtoll(PQgetvalue(r, 0, 3), NULL, 10);
	rendered = PQgetvalue(r, 0, 4)[0] == 't';
	PQclear(r);

	if (!rendered) {
		rc = render_row(c, cfg, id, kind, regression_id, bisect_id, e);
		if (rc < 0)
			goto fail;
		if (rc > 0)
			return db_commit(c, e) ? -1 : 1;
	}
	if (deliver(c, cfg, id, &state, &se)) {
		const char *p[3] = { id, se.message, maxs };

		snprintf(maxs, sizeof(maxs), "%ld", cfg->mail_retry_max_s);
		fprintf(stderr, "regtrack-server: mail %s: %s (will retry)\n", id, se.message);
		r = db_exec(c, ST_OUTBOX_RETRY, 3, p, e);
	} else {
		const char *p[2] = { id, state };
		r = db_exec(c, ST_OUTBOX_DONE, 2, p, e);
	}
	if (!r)
		goto fail;
	PQclear(r);
	return db_commit(c, e) ? -1 : 1;
fail:
	db_rollback(c);
	return -1;
}

/* ---- the thread ----------------------------------------------------- */

static void *mailer_thread(void *arg)
{
	struct mailer *m = arg;
	const struct config *cfg = m->srv->cfg;
	struct err e;

	for (;;) {
		struct timespec ts;
		PGconn *c;

		pthread_mutex_lock(&m->lock);
		if (!m->kicked && !m->stopping) {
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += cfg->mail_poll_ms / 1000;
			ts.tv_nsec += (cfg->mail_poll_ms % 1000) * 1000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&m->cond, &m->lock, &ts);
		}
		m->kicked = 0;
		if (m->stopping) {
			pthread_mutex_unlock(&m->lock);
			break;
		}
		pthread_mutex_unlock(&m->lock);

		c = db_conn(m->srv->db, &e);
		if (!c)
			continue;
		for (int i = 0; i < MAX_ROWS; i++) {
			int rc = mailer_run_once(c, cfg, &e);
			int stop;

			if (rc < 0)
				fprintf(stderr, "regtrack-server: mailer: %s\n", e.message);
			if (rc <= 0)
				break;
			pthread_mutex_lock(&m->lock);
			stop = m->stopping;
			pthread_mutex_unlock(&m->lock);
			if (stop)
				break;
		}
	}
	return NULL;
}

struct mailer *mailer_start(struct server *srv)
{
	struct mailer *m;

	if (!*srv->cfg->smtp_url && !*srv->cfg->mail_dry_run_dir)
		return NULL;
	m = xcalloc(1, sizeof(*m));
	m->srv = srv;
	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->cond, NULL);
	if (pthread_create(&m->thread, NULL, mailer_thread, m)) {
		pthread_mutex_destroy(&m->lock);
		pthread_cond_destroy(&m->cond);
		free(m);
		return NULL;
	}
	return m;
}

void mailer_kick(struct mailer *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->kicked = 1;
	pthread_cond_signal(&m->cond);
	pthread_mutex_unlock(&m->lock);
}

void mailer_stop(struct mailer *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->stopping = 1;
	pthread_cond_signal(&m->cond);
	pthread_mutex_unlock(&m->lock);
	pthread_join(m->thread, NULL);
	pthread_mutex_destroy(&m->lock);
	pthread_cond_destroy(&m->cond);
	free(m);
}
