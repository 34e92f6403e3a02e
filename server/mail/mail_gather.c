/* Gathers a report's input from the database (mail_gather.h). */
#include "server/mail/mail_gather.h"
#include "server/db/db.h"
#include "server/db/regressions.h"
#include "server/db/series.h"
#include "server/track/gitmirror.h"
#include "server/log.h"
#include "buf.h"
#include "hostfp.h"
#include "stats/compare.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* rows of the mail's comparison table: the bisected metric, then the largest changes */
#define MAX_TABLE_ROWS 30
/* then at most this many perf-profile.* rows, as the 0-day robot's tables end */
#define MAX_PROFILE_ROWS 10
#define PROFILE_PREFIX "perf-profile."

void mail_gather_release(struct mail_gathered *g)
{
	db_mail_regression_free(&g->reg);
	db_mail_bisect_free(&g->bisect);
	db_mail_steps_free(&g->steps);
	free(g->step);
	db_mail_compare_free(&g->table);
	db_mail_compare_free(&g->profile);
	db_story_free(&g->story);
	free(g->also);
	free(g->rows);
	db_mail_machine_free(&g->machine);
	db_mail_files_free(&g->files_rows);
	free(g->files);
	free(g->file_paths);
	for (size_t i = 0; i < g->nr_params; i++)
		free(g->param_vals[i]);
	free(g->param_vals);
	free(g->params);
	json_decref(g->params_json);
	free(g->host_note);
	free(g->author);
	free(g->email);
	free(g->reproduce);
	free(g->local[0]);
	free(g->local[1]);
	free(g->config_url);
	memset(g, 0, sizeof(*g));
}

static int cmp_param(const void *a, const void *b)
{
	return strcmp(((const struct report_param *)a)->name,
		      ((const struct report_param *)b)->name);
}

static void gather_params(struct mail_gathered *g, const char *text)
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
	json_object_foreach (g->params_json, key, v) {
		g->param_vals[g->nr_params] = json_is_string(v) ?
						      xstrdup(json_string_value(v)) :
						      json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
		if (!g->param_vals[g->nr_params])
			g->param_vals[g->nr_params] = xstrdup("");
		g->params[g->nr_params].name = key;
		g->params[g->nr_params].value = g->param_vals[g->nr_params];
		g->nr_params++;
	}
	qsort(g->params, g->nr_params, sizeof(*g->params), cmp_param);
}

/* "Name <email>" (git's form) or a bare name / address. */
static void gather_author(struct mail_gathered *g, const char *author)
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

/*
 * Reads the finished bisect g->in.bisect_id: its first bad commit becomes
 * the culprit, that commit's first parent the table's base (ids for the
 * table query in table_ids[0] = parent, [1] = culprit; 0 = not known), and
 * its steps the short story. A parent the bisect did not run because its
 * kernel image is a tested commit's has no runs of its own: that commit
 * is the table's base instead (table_ids[2], in.table_base_sha; 0 and NULL
 * otherwise). A bisect that is not done (or found no single commit)
 * leaves the regression's range in place.
 */
static int gather_bisect(struct db_conn *c, struct mail_gathered *g, long long table_ids[3],
			 struct err *e)
{
	const struct db_mail_bisect *b = &g->bisect;
	int found = db_mail_bisect(c, g->in.bisect_id, &g->bisect, e);

	if (found < 0)
		return -1;
	if (found) {
		g->in.culprit_sha = b->culprit_sha;
		g->in.culprit_subject = b->culprit_subject;
		free(g->author);
		free(g->email);
		g->author = g->email = NULL;
		gather_author(g, b->culprit_author);
		table_ids[1] = b->culprit_id;
		if (b->parent_id) {
			g->in.parent_sha = b->parent_sha;
			g->in.parent_subject = b->parent_subject;
			table_ids[0] = b->parent_id;
		}
	}
	if (db_mail_bisect_steps(c, g->in.bisect_id, &g->steps, e))
		return -1;
	g->step = xcalloc(g->steps.n ? g->steps.n : 1, sizeof(*g->step));
	for (size_t i = 0; i < g->steps.n; i++) {
		const struct db_mail_step *s = &g->steps.v[i];

		g->step[i].sha = s->sha;
		g->step[i].subject = s->subject;
		g->step[i].verdict = s->verdict;
		g->step[i].mean = s->mean;
		g->step[i].nr_samples = s->nr_samples;
	}
	g->in.steps = g->step;
	g->in.nr_steps = g->steps.n;
	if (found && b->parent_id) {
		int same = db_mail_same_image(c, g->in.bisect_id, b->parent_id, &table_ids[2],
					      g->base_sha, e);

		if (same < 0)
			return -1;
		if (same) {
			g->in.table_base_sha = g->base_sha;
			for (size_t i = 0; i < g->steps.n; i++)
				if (!strcmp(g->steps.v[i].sha, g->base_sha))
					g->in.table_base_subject = g->steps.v[i].subject;
		}
	}
	return 0;
}

struct table_row {
	int index;    /* row of g->table */
	int bisected; /* the report's own metric */
	int profile;  /* a perf-profile.* metric (shown in its own rows, last) */
	struct compare_result res;
};

static int is_profile(const char *name)
{
	return !strncmp(name, PROFILE_PREFIX, strlen(PROFILE_PREFIX));
}

/*
 * The bisected metric first, then significant changes by the size of their
 * verdict (|HL shift|, not the means' %change a failed run can inflate),
 * largest first
 */
static int cmp_table_row(const void *x, const void *y)
{
	const struct table_row *a = x, *b = y;
	int da = a->res.verdict == VERDICT_DIFFERENT, db = b->res.verdict == VERDICT_DIFFERENT;
	double ca = fabs(a->res.hl_pct), cb = fabs(b->res.hl_pct);

	if (a->bisected != b->bisected)
		return b->bisected - a->bisected;
	if (a->profile != b->profile)
		return a->profile - b->profile;
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
 * metric, then the metrics with a significant change, largest |HL shift|
 * first, at most MAX_TABLE_ROWS; the others are counted in nr_rows_omitted.
 * The table's column stays LKP's %change of the means.
 */
static int gather_table(struct db_conn *c, struct mail_gathered *g, long long setup_id,
			long long base, long long head, long long metric_id, struct err *e)
{
	struct compare_opts opts;
	struct table_row *tr;
	size_t n, shown = 0, nr_profile = 0;
	double *q;
	struct compare_result **res;

	g->table_hl_pct = NAN;
	if (db_mail_compare(c, setup_id, base, head, &g->table, e))
		return -1;
	n = g->table.n;
	tr = xcalloc(n ? n : 1, sizeof(*tr));
	q = xcalloc(n ? n : 1, sizeof(*q));
	res = xcalloc(n ? n : 1, sizeof(*res));
	compare_opts_init(&opts);
	for (size_t i = 0; i < n; i++) {
		const struct db_mail_metric *m = &g->table.v[i];
		struct compare_opts o = opts;

		o.floor_pct = compare_opts_floor(&opts, m->name);
		compare_samples(m->base, m->nr_base, m->head, m->nr_head, &o, &tr[i].res);
		tr[i].index = (int)i;
		tr[i].bisected = m->metric_id == metric_id;
		tr[i].profile = !tr[i].bisected && is_profile(m->name);
		nr_profile += (size_t)tr[i].profile;
		res[i] = &tr[i].res;
	}
	compare_fdr(res, n, opts.alpha, q);
	free(res);
	for (size_t i = 0; i < n; i++)
		if (tr[i].bisected) {
			g->table_hl_pct = tr[i].res.hl_pct;
			g->table_direction = tr[i].res.direction;
			g->table_different = tr[i].res.verdict == VERDICT_DIFFERENT;
		}
	qsort(tr, n, sizeof(*tr), cmp_table_row);
	g->rows = xcalloc(n + MAX_PROFILE_ROWS, sizeof(*g->rows));
	for (size_t i = 0; i < n && shown < MAX_TABLE_ROWS; i++) {
		struct lkp_row *row = &g->rows[shown];

		if (tr[i].profile || (!tr[i].bisected && tr[i].res.verdict != VERDICT_DIFFERENT))
			break;
		row->metric = g->table.v[tr[i].index].name;
		row->base_mean = tr[i].res.a.mean;
		row->base_stddev_pct = tr[i].res.a.stddev_pct;
		row->head_mean = tr[i].res.b.mean;
		row->head_stddev_pct = tr[i].res.b.stddev_pct;
		row->change_pct = tr[i].res.change_pct;
		shown++;
	}
	g->in.rows = g->rows;
	g->in.nr_rows = shown;
	/* the perf-profile.* metrics are not "left out": they have their own rows */
	g->in.nr_rows_omitted = n - nr_profile - shown;
	free(tr);
	free(q);
	return 0;
}

/*
 * perf-profile.children.* before perf-profile.self.* (the robot's order),
 * then the largest |%change| first
 */
static int cmp_profile_row(const void *x, const void *y)
{
	const struct table_row *a = x, *b = y;
	double ca = fabs(a->res.change_pct), cb = fabs(b->res.change_pct);

	if (a->profile != b->profile)
		return a->profile - b->profile;
	if (ca != cb)
		return ca < cb ? 1 : -1;
	return a->index - b->index;
}

static int cmp_profile_size(const void *x, const void *y)
{
	const struct table_row *a = x, *b = y;
	double ca = fabs(a->res.change_pct), cb = fabs(b->res.change_pct);

	if (ca != cb)
		return ca < cb ? 1 : -1;
	return a->index - b->index;
}

/*
 * The perf-profile.* rows under the table, as the 0-day robot's reports
 * end theirs: the profiled runs at the table's base and head (the bisect's
 * verification round, first bad commit vs its parent, profiles them;
 * db_mail_profile_compare() finds their setup), every perf-profile.*
 * metric compared as the table's rows are (monitor floor 5 %,
 * Benjamini-Hochberg across these rows), the MAX_PROFILE_ROWS significant
 * ones with the largest |%change| (LKP's %change of the means, the robot's
 * sort key), children rows first, then self rows, each largest first.
 * lkp_render() prints their absolute delta, as LKP does for perf-profile.
 */
static int gather_profile_rows(struct db_conn *c, struct mail_gathered *g, long long setup_id,
			       long long base, long long head, struct err *e)
{
	struct compare_opts opts;
	struct table_row *tr;
	struct compare_result **res;
	size_t n, k = 0;
	double *q;

	if (db_mail_profile_compare(c, setup_id, base, head, &g->profile, e))
		return -1;
	n = g->profile.n;
	if (!n)
		return 0;
	tr = xcalloc(n, sizeof(*tr));
	res = xcalloc(n, sizeof(*res));
	q = xcalloc(n, sizeof(*q));
	compare_opts_init(&opts);
	for (size_t i = 0; i < n; i++) {
		const struct db_mail_metric *m = &g->profile.v[i];
		struct compare_opts o = opts;

		o.floor_pct = compare_opts_floor(&opts, m->name);
		compare_samples(m->base, m->nr_base, m->head, m->nr_head, &o, &tr[i].res);
		tr[i].index = (int)i;
		/* 1 children, 2 self, 3 any other perf-profile.* name */
		tr[i].profile = strstr(m->name, ".children.") ? 1 :
				strstr(m->name, ".self.")     ? 2 :
								3;
		res[i] = &tr[i].res;
	}
	compare_fdr(res, n, opts.alpha, q);
	free(res);
	free(q);
	for (size_t i = 0; i < n; i++)
		if (tr[i].res.verdict == VERDICT_DIFFERENT && isfinite(tr[i].res.change_pct))
			tr[k++] = tr[i];
	qsort(tr, k, sizeof(*tr), cmp_profile_size);
	if (k > MAX_PROFILE_ROWS)
		k = MAX_PROFILE_ROWS;
	qsort(tr, k, sizeof(*tr), cmp_profile_row);
	for (size_t i = 0; i < k; i++) {
		struct lkp_row *row = &g->rows[g->in.nr_rows++];

		row->metric = g->profile.v[tr[i].index].name;
		row->base_mean = tr[i].res.a.mean;
		row->base_stddev_pct = tr[i].res.a.stddev_pct;
		row->head_mean = tr[i].res.b.mean;
		row->head_stddev_pct = tr[i].res.b.stddev_pct;
		row->change_pct = tr[i].res.change_pct;
	}
	free(tr);
	return 0;
}

/*
 * The record's arch and the same change on other arches
 * (db_regression_story(), the rule of the story's also_seen): arch and
 * size of each, the HL shift when it is a number, else the means' %change.
 */
static int gather_also_seen(struct db_conn *c, struct mail_gathered *g, long long regression_id,
			    struct err *e)
{
	if (db_regression_story(c, regression_id, &g->story, e) < 0)
		return -1;
	if (!g->story.nr_also)
		return 0;
	g->also = xcalloc(g->story.nr_also, sizeof(*g->also));
	for (size_t i = 0; i < g->story.nr_also; i++) {
		const struct db_also_seen *row = &g->story.also[i];
		struct report_also_seen *a = &g->also[i];

		a->arch = row->arch;
		a->pct = isfinite(row->hl_pct)	   ? row->hl_pct :
			 isfinite(row->change_pct) ? row->change_pct :
						     NAN;
		a->regression_id = row->regression_id;
	}
	g->in.nr_also_seen = g->story.nr_also;
	g->in.also_seen = g->also;
	return 0;
}

/*
 * The test machine of the newest run at the table's head: the host
 * (machines row) and, for a qemu run, the guest the worker describes in
 * runs.extra (worker/execute.c: "guest" {arch, nr_cpus, memory_mb, accel,
 * icount}; documents from before that carry only "accel" and "cpus", and
 * the setup's mode says icount).
 */
static int gather_machine(struct db_conn *c, struct mail_gathered *g, long long setup_id,
			  long long commit_id, struct err *e)
{
	const struct db_mail_machine *m = &g->machine;
	int found = db_mail_machine(c, setup_id, commit_id, &g->machine, e);

	if (found <= 0)
		return found;
	db_mail_machine_report(m, &g->in);
	return 0;
}

/*
 * The note when the table's two sides (commit ids base and head, in the
 * record's setup) ran on hosts with different fingerprints (lib/hostfp.h,
 * as the compare API's host_fingerprints); none when they agree.
 */
static int gather_host_note(struct db_conn *c, struct mail_gathered *g, long long setup_id,
			    long long base, long long head, struct err *e)
{
	json_t *fb, *fh;

	if (db_compare_fingerprints(c, base, head, &setup_id, 1, &fb, &fh, e))
		return -1;
	g->host_note = hostfp_note(fb, fh);
	g->in.host_note = g->host_note;
	json_decref(fb);
	json_decref(fh);
	return 0;
}

/*
 * The culprit's diffstat and files (sql/0007), collected from the tree's
 * mirror now when the bisect could not (a failure leaves them unknown:
 * logged, no paths subscription matches).
 */
static int gather_files(struct db_conn *c, const struct config *cfg, struct mail_gathered *g,
			long long commit_id, struct err *e)
{
	struct db_mail_diffstat d;
	struct err ge;
	int found;

	if (gitmirror_store_diffstat(c, cfg->data_dir, g->in.tree, commit_id,
				     (int)cfg->git_timeout_s, &ge) < 0) {
		if (!db_in_transaction(c)) {
			*e = ge;
			return -1;
		}
		slog_warn("mail: files of commit %lld: %s", commit_id, ge.message);
	}
	found = db_mail_diffstat(c, commit_id, &d, e);
	if (found <= 0)
		return found;
	g->in.has_diffstat = 1;
	g->in.files_changed = d.files_changed;
	g->in.insertions = d.insertions;
	g->in.deletions = d.deletions;
	if (db_mail_commit_files(c, commit_id, &g->files_rows, e))
		return -1;
	g->files = xcalloc(g->files_rows.n ? g->files_rows.n : 1, sizeof(*g->files));
	g->file_paths = xcalloc(g->files_rows.n + 1, sizeof(*g->file_paths));
	for (size_t i = 0; i < g->files_rows.n; i++) {
		const struct db_mail_file *f = &g->files_rows.v[i];

		g->files[i].path = g->file_paths[i] = f->path;
		g->files[i].insertions = f->insertions;
		g->files[i].deletions = f->deletions;
	}
	g->in.files = g->files;
	g->in.nr_files = g->files_rows.n;
	return 0;
}

/*
 * A bisect's report states the change of the comparison its table shows
 * (first bad commit vs its parent, the verification's runs), not the
 * detector's estimate over the wider range: the size is the bisected row's
 * HL shift (the table's column stays LKP's %change of the means) and, when
 * the row is `different`, the word follows its direction. A row that is not
 * `different` and points the other way than the record says nothing: the
 * record's figures stay.
 */
static void bisect_headline(struct mail_gathered *g, int higher_is_better)
{
	enum change_kind k = change_kind_of(g->table_direction, higher_is_better);
	int known = k == CHANGE_REGRESSION || k == CHANGE_IMPROVEMENT;

	if (!isfinite(g->table_hl_pct))
		return;
	if (g->table_different) {
		if (known)
			g->in.is_regression = k == CHANGE_REGRESSION;
	} else if (known && g->in.is_regression != (k == CHANGE_REGRESSION)) {
		return;
	}
	g->in.change_pct = g->table_hl_pct;
}

int mail_gather(struct db_conn *c, const struct config *cfg, long long regression_id,
		enum report_kind kind, struct mail_gathered *g, struct err *e)
{
	const struct db_mail_regression *r = &g->reg;
	long long table_ids[3] = { 0, 0, 0 }; /* parent, culprit, the parent's stand-in; 0 = none */
	int found;

	memset(g, 0, sizeof(*g));
	found = db_mail_regression(c, regression_id, &g->reg, e);
	if (found < 0)
		return -1;
	if (!found)
		return err_setc(e, ERR_NOT_FOUND, "regression", "regression %lld not found",
				regression_id);
	g->in.kind = kind;
	/* kind and size as the record has them: from the HL shift (sql/0015), the
	 * means' %change only for records stored before it */
	g->in.is_regression = strcmp(r->kind, "improvement") != 0;
	g->in.change_pct = isfinite(r->hl_pct) ? r->hl_pct : r->change_pct;
	/* the record's evidence in words: its own comparison's numbers, as on its page */
	evidence_init(&g->in.evidence);
	g->in.evidence.commits_after = r->commits_after > 0 ? (size_t)r->commits_after : 0;
	g->in.evidence.shift_pct = r->hl_pct;
	g->in.evidence.ci_lo_pct = r->ci_lo_pct;
	g->in.evidence.ci_hi_pct = r->ci_hi_pct;
	g->in.evidence.shift = r->shift;
	g->in.evidence.noise_sigma = r->noise_sigma;
	g->in.evidence.noise_cycle = r->noise_cycle > 0 ? (size_t)r->noise_cycle : 0;
	g->in.evidence.before = r->mean_before;
	g->in.evidence.after = r->mean_after;
	g->in.evidence_p = r->p_value;
	g->in.metric = r->metric;
	g->in.testcase = r->testcase;
	gather_params(g, r->params);
	g->in.params = g->params;
	g->in.nr_params = g->nr_params;
	g->in.kconfig = r->kconfig;
	g->in.compiler = r->compiler;
	g->in.tbox_group = r->tbox_group;
	g->in.mode = r->mode;
	g->in.good_sha = r->good_sha;
	g->in.good_subject = r->good_subject;
	g->in.bad_sha = r->bad_sha;
	g->in.bad_subject = r->bad_subject;
	g->in.tree = *r->tree ? r->tree : "unknown";
	g->in.branch = r->branch;
	g->in.machine_arch = r->machine_arch;
	g->in.nr_cpus = r->nr_cpus;
	g->in.memory_mb = r->memory_mb;
	g->in.cpu_model = r->cpu_model;
	g->in.bisect_id = r->bisect_id;
	if (kind == REPORT_BISECT) {
		/*
		 * The culprit is the bisect's first bad commit and the table's
		 * base its first parent; without a finished bisect (a report
		 * asked for by hand), the regression's own range stands in.
		 */
		g->in.culprit_sha = g->in.bad_sha;
		g->in.culprit_subject = g->in.bad_subject;
		gather_author(g, r->bad_author);
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

	if (gather_table(c, g, r->setup_id,
			 table_ids[2] ? table_ids[2] :
			 table_ids[0] ? table_ids[0] :
					r->good_commit_id,
			 table_ids[1] ? table_ids[1] : r->bad_commit_id, r->metric_id, e) ||
	    gather_profile_rows(c, g, r->setup_id, table_ids[0] ? table_ids[0] : r->good_commit_id,
				table_ids[1] ? table_ids[1] : r->bad_commit_id, e) ||
	    (kind != REPORT_FIXED && gather_also_seen(c, g, regression_id, e)) ||
	    gather_machine(c, g, r->setup_id, table_ids[1] ? table_ids[1] : r->bad_commit_id, e) ||
	    gather_host_note(c, g, r->setup_id,
			     table_ids[2] ? table_ids[2] :
			     table_ids[0] ? table_ids[0] :
					    r->good_commit_id,
			     table_ids[1] ? table_ids[1] : r->bad_commit_id, e))
		return -1;
	if (kind == REPORT_BISECT && g->in.bisect_id > 0)
		bisect_headline(g, r->higher_is_better);
	/*
	 * The culprit's files: the bisect's first bad commit, or the bad end of
	 * a detected range of one commit (its first parent is the good end)
	 */
	if (kind == REPORT_BISECT &&
	    gather_files(c, cfg, g, table_ids[1] ? table_ids[1] : r->bad_commit_id, e))
		return -1;
	if (kind == REPORT_RANGE && g->in.good_sha && r->bad_parent_sha &&
	    !strcmp(r->bad_parent_sha, g->in.good_sha) &&
	    gather_files(c, cfg, g, r->bad_commit_id, e))
		return -1;
	return 0;
}
