/* An A/B request's result mail from typed input; see abmail.h. */
#include "abmail.h"

#include <math.h>
#include <string.h>

#define MAX_TABLE_ROWS 64 /* a group's rows in its table, the rest left out */
#define MAX_AXES 24	  /* the table's axes: 4 of the setup, then the params */

static const char *s(const char *x)
{
	return x ? x : "";
}

/* an HL shift as the sentences print it: a row without one reads +0.0% */
static double pct(double hl)
{
	return isnan(hl) ? 0 : hl;
}

/* the row that names the result: the first of the verdict's kind, else the first primary */
static const struct abmail_row *headline_row(const struct abmail_input *in)
{
	const struct abmail_row *first = NULL;

	for (size_t i = 0; i < in->nr_rows; i++) {
		const struct abmail_row *r = &in->rows[i];

		if (r->monitor)
			continue;
		if (!first)
			first = r;
		if (r->change && !strcmp(r->change, s(in->verdict)))
			return r;
	}
	return first;
}

/* "with your patch \"[PATCH] ...\"" or "with commit SHA12 (REF)" */
static int add_change(struct buf *b, const struct abmail_input *in)
{
	if (in->patches)
		return buf_addf(b, "with your patch%s \"%s\"", in->nr_patches > 1 ? " series" : "",
				in->series_title && *in->series_title ? in->series_title :
									s(in->patch_subject));
	return buf_addf(b, "with commit %.12s (%s)", s(in->head_sha), s(in->head_ref));
}

/* the LKP tables: one per target x testcase, its rows */
static int add_tables(struct buf *b, const struct abmail_input *in)
{
	const char *base = s(in->base_sha), *head = s(in->head_sha);
	int bad = 0;

	for (size_t i = 0; i < in->nr_groups; i++) {
		const struct abmail_group *g = &in->groups[i];
		struct lkp_row lr[MAX_TABLE_ROWS];
		struct lkp_axis ax[MAX_AXES];
		size_t nr = 0, na = 0;

		for (size_t j = 0; j < in->nr_rows && nr < MAX_TABLE_ROWS; j++) {
			const struct abmail_row *r = &in->rows[j];

			if (r->group < 0 || (size_t)r->group != i)
				continue;
			lr[nr++] = (struct lkp_row){ .metric = s(r->metric),
						     .base_mean = r->base_mean,
						     .head_mean = r->head_mean,
						     .base_stddev_pct = r->base_stddev_pct,
						     .head_stddev_pct = r->head_stddev_pct,
						     .change_pct = r->hl_pct };
		}
		ax[na++] = (struct lkp_axis){ "testcase", s(g->testcase) };
		ax[na++] = (struct lkp_axis){ "kconfig", s(g->kconfig) };
		ax[na++] = (struct lkp_axis){ "compiler", s(in->compiler) };
		ax[na++] = (struct lkp_axis){ "target", s(g->target) };
		for (size_t k = 0; k < g->nr_params && na < MAX_AXES; k++)
			ax[na++] = (struct lkp_axis){ s(g->params[k].name), s(g->params[k].value) };
		bad |= buf_addf(b, "\n%s (%s):\n\n", s(g->target), s(g->testcase));
		bad |= nr ? lkp_render(b, ax, na, base, "base", *head ? head : base,
				       in->patches ? "with the patch" : "head", lr, nr) :
			    buf_addstr(b, "  (no runs to compare)\n");
	}
	return bad;
}

/* the first sentence (and the subject line): what changed, of what, with what */
static int add_headline(struct buf *sb, struct buf *b, const struct abmail_input *in,
			const struct abmail_row *head)
{
	const char *state = s(in->state), *verdict = s(in->verdict);
	const char *change = head ? s(head->change) : "";
	int bad = 0;

	bad |= buf_addstr(sb, "[regtrack] ");
	bad |= buf_addstr(b, "Hello,\n\n");
	if (!strcmp(state, "done") && head &&
	    (!strcmp(change, "regression") || !strcmp(change, "improvement"))) {
		bad |= buf_addf(sb, "%+.1f%% %s of %s on %s ", pct(head->hl_pct), change,
				s(head->metric), s(head->target));
		bad |= buf_addf(b, "we noticed a %+.1f%% %s of %s on %s ", pct(head->hl_pct),
				change, s(head->metric), s(head->target));
	} else if (!strcmp(state, "done")) {
		bad |= buf_addf(sb, "%s for %s ", verdict, head ? s(head->metric) : "the test");
		bad |= buf_addf(b, "we noticed %s of %s ",
				!strcmp(verdict, "no-change") ? "no change beyond the floor" :
								"no conclusive change",
				head ? s(head->metric) : "the test");
	} else {
		bad |= buf_addstr(sb, "could not test ");
		bad |= buf_addstr(b, "we could not complete the test ");
	}
	bad |= add_change(sb, in) || add_change(b, in);
	bad |= buf_addstr(b, strcmp(state, "done") ? ":\n\n" : ".\n");
	if (strcmp(state, "done"))
		bad |= buf_addf(b, "  %s\n", s(in->fail_reason));
	/* the other arches' rows of the same metric: both arches in one sentence */
	if (head && !strcmp(state, "done"))
		for (size_t i = 0; i < in->nr_rows; i++) {
			const struct abmail_row *o = &in->rows[i];

			if (o == head || strcmp(s(o->metric), s(head->metric)) ||
			    !strcmp(s(o->target), s(head->target)))
				continue;
			bad |= buf_addf(b, "On %s: %+.1f%% (%s).\n", s(o->target), pct(o->hl_pct),
					s(o->change));
		}
	return bad;
}

/* tree, base, patch or head, targets, compiler, runs, label, machines, notes, verdict */
static int add_setup(struct buf *b, const struct abmail_input *in)
{
	int bad = 0;

	bad |= buf_addf(b, "\n%-10s %s\n", "tree:", s(in->tree));
	/* a base given as its sha is shown once */
	bad |= strcmp(s(in->base_ref), s(in->base_sha)) ?
		       buf_addf(b, "%-10s %s (%s)\n", "base:", s(in->base_ref), s(in->base_sha)) :
		       buf_addf(b, "%-10s %s\n", "base:", s(in->base_sha));
	if (in->patches) {
		bad |= buf_addf(b, "%-10s \"%s\" (%lld patch(es)", "patch:", s(in->patch_subject),
				in->nr_patches);
		if (in->patch_id)
			bad |= buf_addf(b, ", patch-id %s", in->patch_id);
		bad |= buf_addstr(b, ")\n");
		if (*s(in->head_sha))
			bad |= buf_addf(b, "%-10s %s (git am on base)\n", "head:", in->head_sha);
	} else {
		bad |= buf_addf(b, "%-10s %s (%s)\n", "head:", s(in->head_ref), s(in->head_sha));
	}
	bad |= buf_addf(b, "%-10s ", "targets:");
	for (size_t i = 0; i < in->nr_targets; i++)
		bad |= buf_addf(b, "%s%s", i ? ", " : "", s(in->targets[i]));
	bad |= buf_addf(b, "\n%-10s %s\n", "compiler:", s(in->compiler));
	bad |= buf_addf(b, "%-10s %lld a side%s%s\n", "runs:", in->repeat,
			in->repeat_why ? ": " : "", s(in->repeat_why));
	if (*s(in->label))
		bad |= buf_addf(b, "%-10s %s\n", "label:", in->label);
	/* what each group's runs got: the asked shape is in the table's axes */
	for (size_t i = 0; i < in->nr_groups; i++) {
		const struct abmail_group *g = &in->groups[i];

		if (!*s(g->machine))
			continue;
		bad |= in->nr_groups > 1 ?
			       buf_addf(b, "%-10s %s (%s): %s\n", "machine:", s(g->target),
					s(g->testcase), g->machine) :
			       buf_addf(b, "%-10s %s\n", "machine:", g->machine);
	}
	/* a group whose sides ran on hosts of different fingerprints: one note each */
	for (size_t k = 0; k < in->nr_notes; k++) {
		const struct abmail_note *n = &in->notes[k];
		const struct abmail_group *g = n->group >= 0 && (size_t)n->group < in->nr_groups ?
						       &in->groups[n->group] :
						       NULL;

		bad |= in->nr_groups > 1 ?
			       buf_addf(b, "%-10s %s (%s): %s\n", "note:", g ? s(g->target) : "",
					g ? s(g->testcase) : "", s(n->text)) :
			       buf_addf(b, "%-10s %s\n", "note:", s(n->text));
	}
	if (!strcmp(s(in->state), "done"))
		bad |= buf_addf(b,
				"%-10s %s (per target and metric: Mann-Whitney at alpha %g, "
				"%%change the Hodges-Lehmann shift)\n",
				"verdict:", s(in->verdict), in->alpha);
	return bad;
}

/* the request page and the commands that run it again */
static int add_reproduce(struct buf *b, const struct abmail_input *in)
{
	const char *url = s(in->public_url);
	size_t n = strlen(url);
	int bad = 0;

	while (n && url[n - 1] == '/')
		n--;
	bad |= buf_addf(b, "\nThe request, with every run: %.*s/requests/%lld\n", (int)n, url,
			in->request_id);
	if (*s(in->reproduce))
		bad |= buf_addf(b, "\nTo run the A/B test again in the service:\n\n  %s\n",
				in->reproduce);
	if (in->nr_reproduce_local)
		bad |= buf_addstr(b, "\nTo reproduce a data point on your own machine, inside "
				     "a kernel tree (no server, no token):\n");
	for (size_t i = 0; i < in->nr_reproduce_local; i++) {
		const struct abmail_command *x = &in->reproduce_local[i];

		bad |= buf_addf(b, "\n  # %s %s, %s\n  %s\n", s(x->target), s(x->testcase),
				s(x->side), s(x->command));
		if (*s(x->curl))
			bad |= buf_addf(b, "  # or queue it in the service:\n  %s\n", x->curl);
	}
	return bad;
}

int abmail_render(const struct abmail_input *in, struct buf *subject, struct buf *body)
{
	const struct abmail_row *head = headline_row(in);
	int bad = 0;

	bad |= add_headline(subject, body, in, head);
	bad |= add_setup(body, in);
	if (in->nr_rows)
		bad |= add_tables(body, in);
	bad |= add_reproduce(body, in);
	bad |= buf_addstr(body, "\nThanks,\nregtrack\n");
	return bad ? -1 : 0;
}
