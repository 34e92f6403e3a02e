/* The reproduce commands and the .config link of a report mail (mail_reproduce.h). */
#include "server/mail/mail_reproduce.h"
#include "server/abtest/abtest.h"
#include "server/db/kconfig.h"
#include "buf.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* curl command for one data point: the same job, one run, at bad_sha */
static char *curl_command(const struct report_input *in, json_t *params, const char *bad_sha,
			  const char *base_url)
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

/* the runs the table has at its head for the report's metric, at least 1 */
static long long head_runs(const struct mail_gathered *g, long long metric_id)
{
	for (size_t i = 0; i < g->table.n; i++)
		if (g->table.v[i].metric_id == metric_id && g->table.v[i].nr_head > 0)
			return (long long)g->table.v[i].nr_head;
	return 1;
}

/* the .config link of commit `at`'s build (in.config_url), when one stored it */
static int config_url(struct db_conn *c, const char *public_url, struct mail_gathered *g,
		      long long regression_id, struct err *e)
{
	struct db_kconfig_ends ends;
	struct db_kconfig_build build = { 0 };
	size_t n = strlen(public_url);
	int found = db_kconfig_regression_ends(c, regression_id, &ends, e);

	if (found > 0)
		found = db_kconfig_pick_job(c, &ends,
					    ends.first_bad.id ? &ends.first_bad : &ends.bad, &build,
					    e);
	while (n && public_url[n - 1] == '/')
		n--;
	if (found > 0 && build.text) {
		g->config_url = xstrfmt("%.*s/api/v1/jobs/%lld/kconfig", (int)n, public_url,
					build.job_id);
		g->in.config_url = g->config_url;
	}
	db_kconfig_build_release(&build);
	db_kconfig_ends_release(&ends);
	return found < 0 ? -1 : 0;
}

int mail_reproduce(struct db_conn *c, const struct config *cfg, struct mail_gathered *g,
		   long long regression_id, long long metric_id, struct err *e)
{
	int bisected = g->in.kind == REPORT_BISECT && g->in.culprit_sha;
	const char *head = bisected ? g->in.culprit_sha : g->in.bad_sha;
	const char *base = bisected ? g->in.parent_sha : g->in.good_sha;
	const char *sides[2] = { head, base };
	const char *labels[2][2] = { { "bad", "good" }, { "first bad commit", "its parent" } };
	json_t *m = json_object_get(g->params_json, "measure");
	const char *measure = json_is_string(m)				  ? json_string_value(m) :
			      g->in.mode && !strcmp(g->in.mode, "icount") ? "icount" :
									    NULL;
	const char *arch = g->story.arch;

	if (!head)
		return 0;
	g->reproduce = curl_command(&g->in, g->params_json, head, cfg->public_url);
	g->in.reproduce = g->reproduce;
	if (!arch)
		arch = g->in.guest_arch;
	for (size_t i = 0; i < 2 && sides[i] && g->in.testcase && g->in.kconfig; i++) {
		char *cmd = abtest_reproduce_command(g->in.kconfig, g->in.testcase, g->params_json,
						     measure, arch, sides[i], 0,
						     head_runs(g, metric_id));

		if (!cmd)
			continue;
		g->local[g->in.nr_reproduce_local] = cmd;
		g->commands[g->in.nr_reproduce_local].label = labels[bisected][i];
		g->commands[g->in.nr_reproduce_local].command = cmd;
		g->in.nr_reproduce_local++;
	}
	g->in.reproduce_local = g->commands;
	return config_url(c, cfg->public_url, g, regression_id, e);
}
