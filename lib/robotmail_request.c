/* A robot mail as JSON and as this lab's A/B request (see robotmail.h). */
#include "robotmail.h"
#include "buf.h"

#include <stdio.h>
#include <string.h>

static json_t *str_or_null(const char *s)
{
	return s[0] ? json_string(s) : json_null();
}

json_t *robotmail_json(const struct robotmail *m)
{
	json_t *j = json_object();

	json_object_set_new(j, "layout",
			    json_string(m->layout == ROBOTMAIL_FYI ? "fyi" : "noticed"));
	json_object_set_new(j, "message_id", str_or_null(m->message_id));
	json_object_set_new(j, "subject", str_or_null(m->subject));
	json_object_set_new(j, "commit", str_or_null(m->commit));
	json_object_set_new(j, "commit_subject", str_or_null(m->commit_subject));
	json_object_set_new(j, "repo",
			    json_pack("{s:o,s:o}", "url", str_or_null(m->repo_url), "branch",
				      str_or_null(m->repo_branch)));
	json_object_set_new(j, "base", str_or_null(m->base));
	json_object_set_new(j, "base_repo",
			    m->base_url[0] ? json_pack("{s:s,s:o}", "url", m->base_url, "branch",
						       str_or_null(m->base_branch)) :
					     json_null());
	json_object_set_new(j, "patch_link", str_or_null(m->patch_link));
	json_object_set_new(j, "compared_base", str_or_null(m->compared_base));
	json_object_set_new(j, "testcase", str_or_null(m->testcase));
	json_object_set(j, "params", m->params);
	json_object_set_new(j, "kconfig", str_or_null(m->kconfig));
	json_object_set_new(j, "compiler", str_or_null(m->compiler));
	json_object_set_new(j, "tbox_group", str_or_null(m->tbox_group));
	json_object_set_new(j, "machine", str_or_null(m->machine));
	json_object_set_new(j, "change",
			    m->metric[0] ? json_pack("{s:s,s:s,s:s}", "metric", m->metric, "pct",
						     m->change_pct, "kind", m->change_kind) :
					   json_null());
	return j;
}

/*
 * The robot's cases this lab has one of: the robot's testcase and the
 * value of its `test` param -> the lab's case, a param the robot's test
 * name implies, and the robot's params carried over under their own name
 * (the rest, runtime, cpufreq_governor, ucode, size, belong to the robot's
 * machines and run lengths, not to the case).
 */
static const struct case_map {
	const char *testcase, *test;
	const char *lab_case;
	const char *implied_key, *implied_value;
	const char *carry[3];
} case_maps[] = {
	{ "vm-scalability", "small-allocs", "small-allocs", "mode", "process", { "nr_task" } },
	{ "vm-scalability", "small-allocs-mt", "small-allocs", "mode", "thread", { "nr_task" } },
	{ "unixbench", "execl", "execl", NULL, NULL, { "nr_task" } },
	{ "will-it-scale", "page_fault2", "page-fault", NULL, NULL, { "nr_task", "mode" } },
};

#define NR_MAPS (sizeof(case_maps) / sizeof(case_maps[0]))

static int map_case(const struct robotmail *m, json_t **testcases, struct err *e)
{
	const char *test = json_string_value(json_object_get(m->params, "test"));
	struct buf known = BUF_INIT(4096);
	size_t i;
	int bad = 0;

	for (i = 0; i < NR_MAPS; i++) {
		const struct case_map *c = &case_maps[i];
		json_t *p;

		if (strcmp(c->testcase, m->testcase) || !test || strcmp(c->test, test))
			continue;
		p = json_object();
		if (c->implied_key)
			json_object_set_new(p, c->implied_key, json_string(c->implied_value));
		for (size_t k = 0; k < 3 && c->carry[k]; k++) {
			json_t *v = json_object_get(m->params, c->carry[k]);

			if (v)
				json_object_set(p, c->carry[k], v);
		}
		*testcases = json_pack("[{s:s,s:o}]", "testcase", c->lab_case, "params", p);
		buf_release(&known);
		return 0;
	}
	for (i = 0; i < NR_MAPS; i++)
		bad |= buf_addf(&known, "%s%s %s", i ? ", " : "", case_maps[i].testcase,
				case_maps[i].test);
	err_setc(e, ERR_INVALID_FIELD, "from_mail.testcase",
		 "the robot's testcase '%s'%s%s%s is not one this lab runs (it runs %s; name "
		 "the testcases to run another)",
		 m->testcase, test ? " (test: " : "", test ? test : "", test ? ")" : "",
		 bad ? "..." : known.data);
	buf_release(&known);
	return -1;
}

int robotmail_request(const struct robotmail *m, json_t *req, struct err *e)
{
	if (!json_object_get(req, "testcases")) {
		json_t *tcs;

		if (map_case(m, &tcs, e))
			return -1;
		json_object_set_new(req, "testcases", tcs);
	}
	if (!json_object_get(req, "head") && !json_object_get(req, "patches"))
		json_object_set_new(req, "head", json_string(m->commit));
	if (!json_object_get(req, "base")) {
		char base[48];

		if (m->base[0])
			snprintf(base, sizeof(base), "%s", m->base);
		else
			snprintf(base, sizeof(base), "%s^", m->commit);
		json_object_set_new(req, "base", json_string(base));
	}
	if (!json_object_get(req, "label") && m->message_id[0])
		json_object_set_new(req, "label", json_string(m->message_id));
	return 0;
}
