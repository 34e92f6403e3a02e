/*
 * A/B requests: the commands that run a data point again, and the result
 * mail to `notify` in the kernel test robot's form; see abtest.h.
 */
#include "server/abtest/abtest.h"
#include "server/db/mail.h"
#include "server/db/request_mail.h"
#include "abmail.h"
#include "buf.h"
#include "hostfp.h"
#include "report.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int abtest_shell_word(struct buf *b, const char *s)
{
	int bad = 0;

	if (*s &&
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._,=+-/:%@") ==
		    strlen(s))
		return buf_addstr(b, s);
	bad |= buf_addch(b, '\'');
	for (; *s; s++)
		bad |= *s == '\'' ? buf_addstr(b, "'\\''") : buf_addch(b, *s);
	return bad | buf_addch(b, '\'');
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int abtest_shell_params(struct buf *b, json_t *params)
{
	struct buf w = BUF_INIT(1 << 16);
	const char *k, **keys = xcalloc(json_object_size(params) + 1, sizeof(*keys));
	size_t n = 0;
	json_t *v;
	int bad = 0, first = 1;

	/* by name: the same line whatever order the keys were stored in (jsonb reorders) */
	json_object_foreach (params, k, v)
		keys[n++] = k;
	qsort(keys, n, sizeof(*keys), key_cmp);
	for (size_t i = 0; i < n; i++) {
		char *t;

		k = keys[i];
		v = json_object_get(params, k);
		if (!strcmp(k, "measure"))
			continue;
		t = json_is_string(v) ? xstrdup(json_string_value(v)) :
					json_dumps(v, JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
		bad |= buf_addf(&w, "%s%s=%s", first ? "" : ",", k, t ? t : "");
		free(t);
		first = 0;
	}
	free(keys);
	if (!first)
		bad |= buf_addstr(b, " --params ") || abtest_shell_word(b, w.data);
	buf_release(&w);
	return bad;
}

/* the curl that queues this data point as one job of the service */
static char *curl_job(const char *tree, const char *sha, const struct abtest_setup *g,
		      json_t *params, const char *compiler, const char *public_url)
{
	json_t *job = json_pack("{s:s,s:s,s:s,s:s,s:s,s:O,s:i}", "tree", tree, "commit", sha,
				"testcase", g->testcase, "kconfig", g->kconfig, "compiler",
				compiler, "params", params, "repeat", 1);
	struct buf b = BUF_INIT(1 << 16);
	size_t n = strlen(public_url);
	char *text;
	int bad = 0;

	while (n && public_url[n - 1] == '/')
		n--;
	if (g->tbox_group)
		json_object_set_new(job, "tbox_group", json_string(g->tbox_group));
	else if (g->arch)
		json_object_set_new(job, "arch", json_string(g->arch));
	text = json_dumps(job, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(15));
	json_decref(job);
	bad |= buf_addstr(&b, "curl -sS -X POST -H \"Authorization: Bearer $REGTRACK_TOKEN\" "
			      "-H 'Content-Type: application/json' -d ");
	bad |= abtest_shell_word(&b, text ? text : "{}");
	bad |= buf_addf(&b, " %.*s/api/v1/jobs", (int)n, public_url);
	free(text);
	if (bad) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

char *abtest_reproduce_command(const char *kconfig, const char *testcase, json_t *params,
			       const char *measure, const char *arch, const char *sha, int patches,
			       long long repeat)
{
	struct buf b = BUF_INIT(1 << 16);
	int bad = 0;

	bad |= buf_addstr(&b, "regtrack-worker reproduce --kconfig ") ||
	       abtest_shell_word(&b, kconfig) || buf_addstr(&b, " --testcase ") ||
	       abtest_shell_word(&b, testcase);
	if (json_is_object(params))
		bad |= abtest_shell_params(&b, params);
	if (measure)
		bad |= buf_addstr(&b, " --measure ") || abtest_shell_word(&b, measure);
	if (arch && (!strcmp(arch, "aarch64") || !strcmp(arch, "arm64")))
		bad |= buf_addstr(&b, " --arch aarch64");
	bad |= buf_addstr(&b, " --commit ") || abtest_shell_word(&b, sha);
	if (patches)
		bad |= buf_addstr(&b, " --patches series.mbox");
	bad |= buf_addf(&b, " --repeat %lld", repeat);
	if (bad) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

json_t *abtest_reproduce_local(const struct abtest_setup *groups, size_t nr_groups,
			       const char *tree, const char *compiler, const char *measure,
			       const char *base_sha, const char *head_sha, long long repeat,
			       const char *public_url)
{
	json_t *out = json_array();

	for (size_t i = 0; i < nr_groups; i++) {
		const struct abtest_setup *g = &groups[i];
		json_t *params = json_loads(g->params, 0, NULL);

		for (int head = 0; head < 2; head++) {
			char *cmd = abtest_reproduce_command(g->kconfig, g->testcase, params,
							     measure, g->arch,
							     head && head_sha ? head_sha : base_sha,
							     head && !head_sha, repeat);
			char *curl = NULL;

			/* the service has no job of a patch: the request itself re-runs that side */
			if (!head || head_sha)
				curl = curl_job(tree, head ? head_sha : base_sha, g, params,
						compiler, public_url);
			if (cmd)
				json_array_append_new(out,
						      json_pack("{s:s,s:s,s:s,s:s,s:s?}", "target",
								g->target, "testcase", g->testcase,
								"side", head ? "head" : "base",
								"command", cmd, "curl", curl));
			free(curl);
			free(cmd);
		}
		json_decref(params);
	}
	return out;
}

/* ---- the result mail ------------------------------------------------------ */

/* A group's params as the table's axes: a string as it is, anything else as JSON text. */
struct group_params {
	json_t *obj; /* the parsed object; the axes' names are its keys */
	struct lkp_axis *ax;
	char **vals; /* the axes' values (owned) */
	size_t n;
};

static void params_of(const char *text, struct group_params *p)
{
	const char *k;
	json_t *v;

	memset(p, 0, sizeof(*p));
	p->obj = text ? json_loads(text, 0, NULL) : NULL;
	if (!json_is_object(p->obj) || !json_object_size(p->obj))
		return;
	p->ax = xcalloc(json_object_size(p->obj), sizeof(*p->ax));
	p->vals = xcalloc(json_object_size(p->obj), sizeof(*p->vals));
	json_object_foreach (p->obj, k, v) {
		p->vals[p->n] = json_is_string(v) ? xstrdup(json_string_value(v)) :
						    json_dumps(v, JSON_ENCODE_ANY);
		p->ax[p->n] = (struct lkp_axis){ k, p->vals[p->n] ? p->vals[p->n] : "" };
		p->n++;
	}
}

static void params_release(struct group_params *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->vals[i]);
	free(p->vals);
	free(p->ax);
	json_decref(p->obj);
}

/* The mail's input, its storage owned here: the request's rows, the params' axes, the notes. */
struct gathered {
	struct abmail_input in;
	struct db_request_mail m;
	struct abmail_group *groups;
	struct group_params *params;
	struct abmail_note *notes;
	char **machines; /* each group's machine text (abmail_group.machine), owned; NULL: none */
};

static void gathered_release(struct gathered *g)
{
	for (size_t i = 0; i < g->m.nr_groups; i++) {
		params_release(&g->params[i]);
		if (g->machines)
			free(g->machines[i]);
	}
	free(g->machines);
	for (size_t i = 0; i < g->in.nr_notes; i++)
		free((char *)g->notes[i].text);
	free(g->notes);
	free(g->params);
	free(g->groups);
	db_request_mail_free(&g->m);
}

/*
 * The machine text (report_machine_text()) of the newest ok base run of
 * group grp: a new string, NULL when the group has no such run or nothing
 * is known of its machine; -1 with e on a database error.
 */
static int group_machine(struct db_conn *c, const struct db_request_mail_group *grp, char **out,
			 struct err *e)
{
	struct db_mail_machine mm;
	struct report_input in;
	struct buf b = BUF_INIT(1024);
	int got;

	*out = NULL;
	if (!grp->base_setup_id)
		return 0;
	got = db_mail_machine(c, grp->base_setup_id, grp->base_commit_id, &mm, e);
	if (got <= 0)
		return got;
	memset(&in, 0, sizeof(in));
	in.tbox_group = mm.tbox_group;
	db_mail_machine_report(&mm, &in);
	if (!report_machine_text(&in, &b) && b.len)
		*out = buf_detach(&b, NULL);
	buf_release(&b);
	db_mail_machine_free(&mm);
	return 0;
}

/*
 * Reads what request_id's mail says into g (released by gathered_release()
 * whatever the result): 0, or -1 with e (ERR_NOT_FOUND: no such request).
 */
static int gather(struct db_conn *c, const char *public_url, long long request_id,
		  const char *series_title, struct gathered *g, struct err *e)
{
	struct db_mail_group_fp *fp;
	struct db_request_mail *m = &g->m;
	long nfp;
	size_t nn = 0;

	memset(g, 0, sizeof(*g));
	switch (db_request_mail(c, request_id, m, e)) {
	case -1:
		return -1;
	case 0:
		return err_setc(e, ERR_NOT_FOUND, "id", "no request %lld", request_id);
	}
	g->groups = xcalloc(m->nr_groups + 1, sizeof(*g->groups));
	g->params = xcalloc(m->nr_groups + 1, sizeof(*g->params));
	g->machines = xcalloc(m->nr_groups + 1, sizeof(*g->machines));
	for (size_t i = 0; i < m->nr_groups; i++) {
		params_of(m->groups[i].params, &g->params[i]);
		if (group_machine(c, &m->groups[i], &g->machines[i], e))
			return -1;
		g->groups[i] = (struct abmail_group){ m->groups[i].target,  m->groups[i].testcase,
						      m->groups[i].kconfig, g->params[i].ax,
						      g->params[i].n,	    g->machines[i] };
	}
	/* a group whose sides ran on hosts of different fingerprints: one note each */
	nfp = db_mail_request_fingerprints(c, request_id, &fp, e);
	if (nfp < 0)
		return -1;
	g->notes = xcalloc((size_t)nfp + 1, sizeof(*g->notes));
	for (long k = 0; k < nfp; k++) {
		char *note = hostfp_note(fp[k].base, fp[k].head);

		if (note)
			g->notes[nn++] = (struct abmail_note){ fp[k].group, note };
	}
	db_mail_group_fps_free(fp, nfp);
	g->in = (struct abmail_input){
		.request_id = request_id,
		.public_url = public_url,
		.state = m->state,
		.verdict = m->verdict,
		.fail_reason = m->fail_reason,
		.tree = m->tree,
		.base_ref = m->base_ref,
		.base_sha = m->base_sha,
		.head_ref = m->head_ref,
		.head_sha = m->head_sha,
		.patches = m->patches,
		.nr_patches = m->nr_patches,
		.patch_subject = m->patch_subject,
		.patch_id = m->patch_id,
		.series_title = series_title,
		.targets = m->targets,
		.nr_targets = m->nr_targets,
		.compiler = m->compiler,
		.repeat = m->repeat,
		.repeat_why = m->repeat_why,
		.label = m->label,
		.alpha = ABTEST_ALPHA,
		.groups = g->groups,
		.nr_groups = m->nr_groups,
		.rows = m->rows,
		.nr_rows = m->nr_rows,
		.notes = g->notes,
		.nr_notes = nn,
		.reproduce = m->reproduce,
		.reproduce_local = m->local,
		.nr_reproduce_local = m->nr_local,
	};
	return 0;
}

/* abtest_mail(); need_notify 0: the text whether or not the request has a notify (*to "") */
static int mail_of(struct db_conn *c, const char *public_url, long long request_id,
		   const char *series_title, int need_notify, char **subject, char **body,
		   char **to, struct err *e)
{
	struct buf s = BUF_INIT(1024), b = BUF_INIT(1 << 20);
	struct gathered g;
	const char *notify;
	int bad;

	*subject = *body = *to = NULL;
	if (gather(c, public_url, request_id, series_title, &g, e)) {
		gathered_release(&g);
		return -1;
	}
	bad = abmail_render(&g.in, &s, &b);
	notify = g.m.notify ? g.m.notify : "";
	if (!bad && (*notify || !need_notify)) {
		*subject = xstrdup(s.data);
		*body = buf_detach(&b, NULL);
		*to = xstrdup(notify);
	}
	gathered_release(&g);
	buf_release(&s);
	buf_release(&b);
	if (bad)
		return err_setc(e, ERR_INTERNAL, "body", "the mail of request %lld is too large",
				request_id);
	return *to ? 0 :
		     err_setc(e, ERR_NOT_FOUND, "notify", "request %lld has no notify", request_id);
}

int abtest_mail(struct db_conn *c, const char *public_url, long long request_id, char **subject,
		char **body, char **to, struct err *e)
{
	return mail_of(c, public_url, request_id, NULL, 1, subject, body, to, e);
}

int abtest_mail_text(struct db_conn *c, const char *public_url, long long request_id,
		     const char *series_title, char **subject, char **body, struct err *e)
{
	char *to = NULL;
	int rc = mail_of(c, public_url, request_id, series_title, 0, subject, body, &to, e);

	free(to);
	return rc;
}
