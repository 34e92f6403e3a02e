/* A/B requests stored: the spec, the reproduce commands, the jobs (see requests.c). */
#include "server/api/requests_int.h"
#include "server/db/requests.h"
#include "server/db/runs.h"
#include "server/jobs/lease.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void requests_submission_release(struct submission *s)
{
	for (size_t i = 0; i < s->nr_groups; i++)
		free(s->groups[i].params);
	free(s->groups);
	free(s->repeat_why);
	json_decref(s->noise);
}

struct abtest_setup *requests_setups(const struct submission *s)
{
	struct abtest_setup *g = xcalloc(s->nr_groups + 1, sizeof(*g));

	for (size_t i = 0; i < s->nr_groups; i++) {
		g[i].target = s->groups[i].target;
		g[i].testcase = s->groups[i].testcase;
		g[i].params = s->groups[i].params;
		g[i].kconfig = s->groups[i].kconfig;
		g[i].tbox_group = s->groups[i].tbox_group;
		g[i].arch = s->groups[i].arch;
	}
	return g;
}

/* the command line that runs this A/B again (against one's own server and workers) */
static json_t *reproduce(const struct submission *s, json_t *b)
{
	struct buf l = BUF_INIT(1 << 16);
	json_t *tcs = json_object_get(b, "testcases"), *targets = json_object_get(b, "targets"), *v;
	size_t i;
	int bad = 0;

	/* every word that came from the submission quoted for a POSIX shell: pasted, it runs nothing */
	bad |= buf_addstr(&l, "regtrack test --tree ") || abtest_shell_word(&l, s->tree);
	bad |= buf_addf(&l, " --base %s ", s->base_sha);
	if (s->head)
		bad |= buf_addf(&l, "--head %s", s->head_sha);
	else
		bad |= buf_addstr(&l, "--patches series.mbox");
	json_array_foreach (tcs, i, v)
		bad |= buf_addstr(&l, " --testcase ") ||
		       abtest_shell_word(&l, json_string_value(json_object_get(v, "testcase"))) ||
		       abtest_shell_params(&l, json_object_get(v, "params"));
	json_array_foreach (targets, i, v)
		bad |= buf_addstr(&l, " --target ") || abtest_shell_word(&l, json_string_value(v));
	if (s->kconfig)
		bad |= buf_addstr(&l, " --kconfig ") || abtest_shell_word(&l, s->kconfig);
	bad |= buf_addstr(&l, " --compiler ") || abtest_shell_word(&l, s->compiler);
	bad |= buf_addf(&l, " --repeat %lld", s->repeat);
	if (!isnan(s->min_change_pct))
		bad |= buf_addf(&l, " --min-change-pct %g", s->min_change_pct);
	if (s->measure)
		bad |= buf_addstr(&l, " --measure ") || abtest_shell_word(&l, s->measure);
	bad |= buf_addstr(&l, " --wait --gate");
	v = json_string(bad ? "" : l.data);
	buf_release(&l);
	return v;
}

/* the normalized submission kept with the request (its spec column) */
static char *spec_text(const struct submission *s, json_t *b, long rounds, const char *public_url)
{
	json_t *spec = json_object(), *groups = json_array();
	char *text;

	for (size_t i = 0; i < s->nr_groups; i++) {
		const struct group *g = &s->groups[i];

		json_array_append_new(groups,
				      json_pack("{s:s,s:s?,s:s?,s:s,s:o,s:s,s:s}", "target",
						g->target, "arch", g->arch, "tbox_group",
						g->tbox_group, "testcase", g->testcase, "params",
						json_loads(g->params, 0, NULL), "kconfig",
						g->kconfig, "capability", g->capability));
	}
	if (json_is_string(json_object_get(b, "plan")))
		json_object_set(spec, "plan", json_object_get(b, "plan"));
	json_object_set(spec, "targets", json_object_get(b, "targets"));
	json_object_set(spec, "testcases", json_object_get(b, "testcases"));
	json_object_set_new(spec, "kconfig", s->kconfig ? json_string(s->kconfig) : json_null());
	json_object_set_new(spec, "compiler", json_string(s->compiler));
	json_object_set_new(spec, "repeat", json_integer(s->repeat));
	json_object_set_new(spec, "rounds", json_integer(rounds));
	if (s->repeat_why) {
		json_object_set_new(spec, "repeat_why", json_string(s->repeat_why));
		json_object_set(spec, "noise", s->noise);
	}
	json_object_set_new(spec, "min_change_pct",
			    isnan(s->min_change_pct) ? json_null() : json_real(s->min_change_pct));
	json_object_set_new(spec, "measure", s->measure ? json_string(s->measure) : json_null());
	json_object_set_new(spec, "monitors", monitors_json(s->monitors));
	json_object_set_new(spec, "groups", groups);
	if (s->patches)
		json_object_set_new(spec, "patch_subject", json_string(s->mbox.subject));
	json_object_set_new(spec, "reproduce", reproduce(s, b));
	{
		struct abtest_setup *g = requests_setups(s);

		json_object_set_new(spec, "reproduce_local",
				    abtest_reproduce_local(g, s->nr_groups, s->tree, s->compiler,
							   s->measure, s->base_sha,
							   s->head ? s->head_sha : NULL, s->repeat,
							   public_url));
		free(g);
	}
	text = json_dumps(spec, JSON_COMPACT | JSON_REAL_PRECISION(15));
	json_decref(spec);
	return text;
}

long long requests_store(struct server *srv, long long token_id, struct db_conn *c,
			 struct submission *s, json_t *b, long long id, struct err *e)
{
	long rounds = s->repeat < MAX_ROUNDS ? (long)s->repeat : MAX_ROUNDS;
	char *spec = spec_text(s, b, rounds, srv->cfg->public_url);
	long long base_id, head_id;
	struct db_request_new q = {
		.tree_id = s->tree_id,
		.base_ref = s->base,
		.base_sha = s->base_sha,
		.head_ref = s->head,
		.head_sha = s->head ? s->head_sha : NULL,
		.patches = s->patches,
		.nr_patches = (long)s->mbox.nr_patches,
		.spec = spec,
		.notify = s->notify,
		.label = s->label,
		.token_id = token_id,
	};

	if (db_begin(c, e))
		goto out;
	base_id = db_commit_upsert(c, s->base_sha, NULL, NULL, s->tree_id, e);
	head_id = base_id;
	if (base_id >= 0 && s->head)
		head_id = db_commit_upsert(c, s->head_sha, NULL, NULL, s->tree_id, e);
	if (base_id < 0 || head_id < 0)
		goto rollback;
	for (size_t i = 0; i < s->nr_groups; i++) {
		s->groups[i].testcase_id = db_testcase_upsert(c, s->groups[i].testcase, e);
		if (s->groups[i].testcase_id < 0)
			goto rollback;
	}
	if (id) {
		int got = db_request_resolved(c, id, q.base_sha, q.head_sha, spec, e);

		if (got <= 0) {
			db_rollback(c);
			id = got; /* 0: cancelled while it resolved */
			goto out;
		}
	} else {
		id = db_request_insert(c, &q, e);
	}
	if (id < 0)
		goto rollback;
	for (long r = 0; r < rounds; r++) {
		long long runs = s->repeat / rounds + (r < s->repeat % rounds);

		for (size_t i = 0; i < s->nr_groups; i++) {
			const struct group *g = &s->groups[i];
			struct db_job_new j = {
				.tree_id = s->tree_id,
				.testcase_id = g->testcase_id,
				.params = g->params,
				.kconfig = g->kconfig,
				.compiler = s->compiler,
				.arch = g->arch,
				.tbox_group = g->tbox_group,
				.capability = g->capability,
				.repeat = runs,
				.priority = REQUEST_PRIORITY,
				.max_attempts = srv->cfg->max_attempts,
				.token_id = token_id,
				.monitors = s->monitors,
			};

			j.commit_id = base_id;
			if (db_request_job_insert(c, &j, id, "base", (int)r, (int)i, e) < 0)
				goto rollback;
			j.commit_id = head_id;
			if (db_request_job_insert(c, &j, id, "head", (int)r, (int)i, e) < 0)
				goto rollback;
		}
	}
	if (db_commit(c, e))
		goto rollback;
	goto out;
rollback:
	db_rollback(c);
	id = -1;
out:
	free(spec);
	return id;
}
