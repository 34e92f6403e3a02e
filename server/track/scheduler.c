/* Which commits of a push a plan tests (see scheduler.h). */
#include "server/track/scheduler.h"
#include "server/mail/mailer.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

int scheduler_touches(const struct sched_rule *rule, const struct sched_commit *c)
{
	if (!rule->nr_paths)
		return 1;
	for (size_t f = 0; f < c->nr_files; f++)
		for (size_t p = 0; p < rule->nr_paths; p++)
			if (mailer_path_match(rule->paths[p], c->files[f]))
				return 1;
	return 0;
}

static void add(struct sched_pick **list, size_t *n, size_t index, const char *reason)
{
	*list = xrealloc(*list, (*n + 1) * sizeof(**list));
	(*list)[*n].index = index;
	(*list)[*n].reason = reason;
	(*n)++;
}

void scheduler_plan(const struct sched_rule *rule, const struct sched_commit *commits, size_t n,
		    int first, struct sched_result *out)
{
	struct sched_pick *cand = NULL;
	size_t nc = 0, matched = 0, head, cap;
	int touched = 0, head_picked = 0;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	head = n - 1;
	if (first) {
		add(&out->tested, &out->nr_tested, head, "baseline");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (!scheduler_touches(rule, &commits[i]))
			continue;
		touched = 1;
		matched++;
		if (rule->heads && i == head) {
			add(&cand, &nc, i, "head");
			head_picked = 1;
		} else if (rule->every > 0 && matched % (size_t)rule->every == 0) {
			add(&cand, &nc, i, "every");
		}
	}
	/* the head of a push that touched the paths, though it did not itself */
	if (rule->heads && touched && !head_picked) {
		add(&cand, &nc, head, "head");
		head_picked = 1;
	}
	if (rule->heads && !touched)
		add(&out->skipped, &out->nr_skipped, head, "paths");

	cap = rule->max_per_push > 0 ? (size_t)rule->max_per_push : 1;
	if (nc <= cap) {
		out->tested = cand;
		out->nr_tested = nc;
		return;
	}
	/*
	 * Too many: the head stays; of the others (m, oldest first, the head
	 * being last when picked) k = cap - 1 are kept, the last of each of k
	 * equal slices, so the kept ones spread over the range and the newest
	 * is among them.
	 */
	{
		size_t m = head_picked ? nc - 1 : nc, k = head_picked ? cap - 1 : cap, next = 0;

		for (size_t s = 0; s < k; s++) {
			size_t keep = (s + 1) * m / k - 1;

			for (; next < keep; next++)
				add(&out->skipped, &out->nr_skipped, cand[next].index,
				    "max_per_push");
			add(&out->tested, &out->nr_tested, cand[keep].index, cand[keep].reason);
			next = keep + 1;
		}
		for (; next < m; next++)
			add(&out->skipped, &out->nr_skipped, cand[next].index, "max_per_push");
		if (head_picked)
			add(&out->tested, &out->nr_tested, cand[nc - 1].index, cand[nc - 1].reason);
	}
	free(cand);
}

void scheduler_result_release(struct sched_result *r)
{
	free(r->tested);
	free(r->skipped);
	memset(r, 0, sizeof(*r));
}
