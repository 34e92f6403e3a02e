/*
 * A/B requests: the commands that run a data point again, and the result
 * mail to `notify` in the kernel test robot's form; see abtest.h.
 */
#include "server/abtest/abtest.h"
#include "server/db/mail.h"
#include "server/db/requests.h"
#include "buf.h"
#include "hostfp.h"
#include "lkptext.h"
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

static double num(json_t *a, size_t i)
{
	json_t *v = json_array_get(a, i);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* the row that names the result: the first of the verdict's kind, else the first primary */
static json_t *headline_row(json_t *rows, const char *verdict)
{
	json_t *r, *first = NULL;
	size_t i;

	json_array_foreach (rows, i, r) {
		const char *ch = json_string_value(json_object_get(r, "change"));

		if (json_is_true(json_object_get(r, "monitor")))
			continue;
		if (!first)
			first = r;
		if (ch && !strcmp(ch, verdict))
			return r;
	}
	return first;
}

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

/* "with your patch \"[PATCH] ...\"" or "with commit SHA12 (REF)" */
static int add_change(struct buf *b, json_t *q)
{
	json_t *p = json_object_get(q, "patches"), *h = json_object_get(q, "head");

	if (json_is_object(p))
		return buf_addf(b, "with your patch%s \"%s\"",
				json_integer_value(json_object_get(p, "count")) > 1 ? " series" :
										      "",
				str(p, "subject"));
	return buf_addf(b, "with commit %.12s (%s)", str(h, "sha"), str(h, "ref"));
}

/* the LKP tables: one per target x testcase, its rows */
static int add_tables(struct buf *b, json_t *q, json_t *rows)
{
	json_t *groups = json_object_get(q, "groups"), *g;
	const char *base = str(json_object_get(q, "base"), "sha");
	const char *head = str(json_object_get(q, "head"), "sha");
	size_t i;
	int bad = 0;

	json_array_foreach (groups, i, g) {
		struct lkp_row lr[64];
		struct lkp_axis ax[24];
		size_t nr = 0, na = 0, j;
		json_t *r, *pv;
		const char *k;
		char *pt[24] = { 0 };

		json_array_foreach (rows, j, r) {
			if ((size_t)json_integer_value(json_object_get(r, "group")) != i ||
			    nr == sizeof(lr) / sizeof(lr[0]))
				continue;
			lr[nr].metric = str(r, "metric");
			lr[nr].base_mean = num(json_object_get(r, "mean"), 0);
			lr[nr].head_mean = num(json_object_get(r, "mean"), 1);
			lr[nr].base_stddev_pct = num(json_object_get(r, "stddev_pct"), 0);
			lr[nr].head_stddev_pct = num(json_object_get(r, "stddev_pct"), 1);
			lr[nr].change_pct = json_is_number(json_object_get(r, "hl_pct")) ?
						    json_number_value(
							    json_object_get(r, "hl_pct")) :
						    NAN;
			nr++;
		}
		ax[na++] = (struct lkp_axis){ "testcase", str(g, "testcase") };
		ax[na++] = (struct lkp_axis){ "kconfig", str(g, "kconfig") };
		ax[na++] = (struct lkp_axis){ "compiler", str(q, "compiler") };
		ax[na++] = (struct lkp_axis){ "target", str(g, "target") };
		json_object_foreach (json_object_get(g, "params"), k, pv) {
			if (na == sizeof(ax) / sizeof(ax[0]))
				break;
			pt[na] = json_is_string(pv) ? xstrdup(json_string_value(pv)) :
						      json_dumps(pv, JSON_ENCODE_ANY);
			ax[na] = (struct lkp_axis){ k, pt[na] ? pt[na] : "" };
			na++;
		}
		bad |= buf_addf(b, "\n%s (%s):\n\n", str(g, "target"), str(g, "testcase"));
		bad |= nr ? lkp_render(b, ax, na, base, "base", *head ? head : base,
				       json_is_object(json_object_get(q, "patches")) ?
					       "with the patch" :
					       "head",
				       lr, nr) :
			    buf_addstr(b, "  (no runs to compare)\n");
		for (j = 0; j < na; j++)
			free(pt[j]);
	}
	return bad;
}

/* abtest_mail(); need_notify 0: the text whether or not the request has a notify (*to "") */
static int mail_of(struct db_conn *c, const char *public_url, long long request_id, int need_notify,
		   char **subject, char **body, char **to, struct err *e)
{
	char *text;
	json_t *q, *res, *rows, *head, *rep;
	struct buf s = BUF_INIT(1024), b = BUF_INIT(1 << 20);
	const char *verdict, *state, *change;
	size_t n = strlen(public_url), i;
	int bad = 0;

	*subject = *body = *to = NULL;
	switch (db_request_json(c, request_id, &text, e)) {
	case -1:
		return -1;
	case 0:
		return err_setc(e, ERR_NOT_FOUND, "id", "no request %lld", request_id);
	}
	q = json_loads(text, 0, NULL);
	free(text);
	if (!q)
		return err_setc(e, ERR_INTERNAL, "request", "request %lld: bad JSON", request_id);
	while (n && public_url[n - 1] == '/')
		n--;
	state = str(q, "state");
	verdict = str(q, "verdict");
	res = json_object_get(q, "result");
	rows = json_object_get(res, "rows");
	head = headline_row(rows, verdict);
	change = head ? str(head, "change") : "";

	/* Subject: [regtrack] +12.0% improvement of METRIC with "[PATCH] ..." */
	bad |= buf_addstr(&s, "[regtrack] ");
	bad |= buf_addstr(&b, "Hello,\n\n");
	if (!strcmp(state, "done") && head &&
	    (!strcmp(change, "regression") || !strcmp(change, "improvement"))) {
		double pct = json_number_value(json_object_get(head, "hl_pct"));

		bad |= buf_addf(&s, "%+.1f%% %s of %s on %s ", pct, change, str(head, "metric"),
				str(head, "target"));
		bad |= buf_addf(&b, "we noticed a %+.1f%% %s of %s on %s ", pct, change,
				str(head, "metric"), str(head, "target"));
	} else if (!strcmp(state, "done")) {
		bad |= buf_addf(&s, "%s for %s ", verdict, head ? str(head, "metric") : "the test");
		bad |= buf_addf(&b, "we noticed %s of %s ",
				!strcmp(verdict, "no-change") ? "no change beyond the floor" :
								"no conclusive change",
				head ? str(head, "metric") : "the test");
	} else {
		bad |= buf_addstr(&s, "could not test ");
		bad |= buf_addstr(&b, "we could not complete the test ");
	}
	bad |= add_change(&s, q) || add_change(&b, q);
	bad |= buf_addstr(&b, strcmp(state, "done") ? ":\n\n" : ".\n");
	if (strcmp(state, "done"))
		bad |= buf_addf(&b, "  %s\n", str(q, "fail_reason"));
	/* the other arches' rows of the same metric: both arches in one sentence */
	if (head && !strcmp(state, "done")) {
		json_t *o;

		json_array_foreach (rows, i, o) {
			if (o == head || strcmp(str(o, "metric"), str(head, "metric")) ||
			    !strcmp(str(o, "target"), str(head, "target")))
				continue;
			bad |= buf_addf(&b, "On %s: %+.1f%% (%s).\n", str(o, "target"),
					json_number_value(json_object_get(o, "hl_pct")),
					str(o, "change"));
		}
	}
	bad |= buf_addf(&b, "\n%-10s %s\n", "tree:", str(q, "tree"));
	{
		json_t *bj = json_object_get(q, "base");

		/* a base given as its sha is shown once */
		bad |= strcmp(str(bj, "ref"), str(bj, "sha")) ?
			       buf_addf(&b, "%-10s %s (%s)\n", "base:", str(bj, "ref"),
					str(bj, "sha")) :
			       buf_addf(&b, "%-10s %s\n", "base:", str(bj, "sha"));
	}
	if (json_is_object(json_object_get(q, "patches"))) {
		json_t *pt = json_object_get(q, "patches");

		bad |= buf_addf(&b, "%-10s \"%s\" (%lld patch(es)", "patch:", str(pt, "subject"),
				(long long)json_integer_value(json_object_get(pt, "count")));
		if (json_is_string(json_object_get(pt, "patch_id")))
			bad |= buf_addf(&b, ", patch-id %s", str(pt, "patch_id"));
		bad |= buf_addstr(&b, ")\n");
		if (*str(json_object_get(q, "head"), "sha"))
			bad |= buf_addf(&b, "%-10s %s (git am on base)\n",
					"head:", str(json_object_get(q, "head"), "sha"));
	} else {
		bad |= buf_addf(&b, "%-10s %s (%s)\n",
				"head:", str(json_object_get(q, "head"), "ref"),
				str(json_object_get(q, "head"), "sha"));
	}
	{
		struct buf t = BUF_INIT(4096);
		json_t *v;

		json_array_foreach (json_object_get(q, "targets"), i, v)
			bad |= buf_addf(&t, "%s%s", i ? ", " : "", json_string_value(v));
		bad |= buf_addf(&b, "%-10s %s\n", "targets:", t.data);
		buf_release(&t);
	}
	bad |= buf_addf(&b, "%-10s %s\n", "compiler:", str(q, "compiler"));
	bad |= buf_addf(&b, "%-10s %lld a side%s%s\n",
			"runs:", (long long)json_integer_value(json_object_get(q, "repeat")),
			json_is_string(json_object_get(q, "repeat_why")) ? ": " : "",
			str(q, "repeat_why"));
	if (*str(q, "label"))
		bad |= buf_addf(&b, "%-10s %s\n", "label:", str(q, "label"));
	{
		/* a group whose sides ran on hosts of different fingerprints: one note each */
		struct db_mail_group_fp *fp;
		long nfp = db_mail_request_fingerprints(c, request_id, &fp, e);
		json_t *groups = json_object_get(q, "groups");

		if (nfp < 0) {
			buf_release(&s);
			buf_release(&b);
			json_decref(q);
			return -1;
		}
		for (long k = 0; k < nfp; k++) {
			char *note = hostfp_note(fp[k].base, fp[k].head);
			json_t *g = json_array_get(groups, (size_t)fp[k].group);

			if (!note)
				continue;
			bad |= json_array_size(groups) > 1 ?
				       buf_addf(&b, "%-10s %s (%s): %s\n",
						"note:", str(g, "target"), str(g, "testcase"),
						note) :
				       buf_addf(&b, "%-10s %s\n", "note:", note);
			free(note);
		}
		db_mail_group_fps_free(fp, nfp);
	}
	if (!strcmp(state, "done"))
		bad |= buf_addf(&b,
				"%-10s %s (per target and metric: Mann-Whitney at alpha %g, "
				"%%change the Hodges-Lehmann shift)\n",
				"verdict:", verdict, ABTEST_ALPHA);
	if (json_array_size(rows))
		bad |= add_tables(&b, q, rows);
	bad |= buf_addf(&b, "\nThe request, with every run: %.*s/requests/%lld\n", (int)n,
			public_url, request_id);
	if (*str(q, "reproduce"))
		bad |= buf_addf(&b, "\nTo run the A/B test again in the service:\n\n  %s\n",
				str(q, "reproduce"));
	rep = json_object_get(q, "reproduce_local");
	if (json_array_size(rep)) {
		json_t *x;

		bad |= buf_addstr(&b, "\nTo reproduce a data point on your own machine, inside "
				      "a kernel tree (no server, no token):\n");
		json_array_foreach (rep, i, x) {
			bad |= buf_addf(&b, "\n  # %s %s, %s\n  %s\n", str(x, "target"),
					str(x, "testcase"), str(x, "side"), str(x, "command"));
			if (*str(x, "curl"))
				bad |= buf_addf(&b, "  # or queue it in the service:\n  %s\n",
						str(x, "curl"));
		}
	}
	bad |= buf_addstr(&b, "\nThanks,\nregtrack\n");
	if (!bad && (*str(q, "notify") || !need_notify)) {
		*subject = xstrdup(s.data);
		*body = buf_detach(&b, NULL);
		*to = xstrdup(str(q, "notify"));
	}
	buf_release(&s);
	buf_release(&b);
	json_decref(q);
	if (bad)
		return err_setc(e, ERR_INTERNAL, "body", "the mail of request %lld is too large",
				request_id);
	return *to ? 0 :
		     err_setc(e, ERR_NOT_FOUND, "notify", "request %lld has no notify", request_id);
}

int abtest_mail(struct db_conn *c, const char *public_url, long long request_id, char **subject,
		char **body, char **to, struct err *e)
{
	return mail_of(c, public_url, request_id, 1, subject, body, to, e);
}

int abtest_mail_text(struct db_conn *c, const char *public_url, long long request_id,
		     char **subject, char **body, struct err *e)
{
	char *to = NULL;
	int rc = mail_of(c, public_url, request_id, 0, subject, body, &to, e);

	free(to);
	return rc;
}
