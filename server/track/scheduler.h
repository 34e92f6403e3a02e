#ifndef REGTRACK_SERVER_SCHEDULER_H
#define REGTRACK_SERVER_SCHEDULER_H

#include <stddef.h>

/*
 * Which commits of a push a plan tests: a pure function of the pushed
 * range and the plan's schedule, so the rules are tested without git or a
 * database (tests/unit/test_scheduler.c). The poller (poller.c) reads the
 * range from the mirror, calls scheduler_plan() and writes the jobs of its
 * answer × the plan's matrix.
 *
 * Rules, in order:
 *  - first: the plan's first look at the branch tests the head alone
 *    ("baseline"), whatever the schedule: what follows is compared with it;
 *  - paths (prefix or fnmatch glob, as subscriptions: mailer_path_match):
 *    a commit touches them when one of its files matches one pattern; no
 *    paths = every commit touches them;
 *  - every N > 0: every Nth of the commits that touch the paths, counted
 *    from the oldest of the range ("every");
 *  - heads: the head ("head"), when the push touches the paths at all (a
 *    head carries every change of its push); a push that touches none
 *    records its head as skipped ("paths");
 *  - max_per_push: when more commits are picked, the head stays and the
 *    others are thinned evenly over the range to fit; the rest are
 *    skipped ("max_per_push").
 */

/* One commit of the range, oldest first; the last is the pushed head. */
struct sched_commit {
	const char *sha;	  /* borrowed */
	const char *const *files; /* borrowed; the paths it touched */
	size_t nr_files;
};

/* The schedule of a plan (its "schedule" object). Borrowed strings. */
struct sched_rule {
	int heads;
	long every;		  /* 0: none */
	const char *const *paths; /* NULL / 0: any */
	size_t nr_paths;
	long max_per_push; /* >= 1 */
};

/* One commit picked or skipped: its index in the range and why. */
struct sched_pick {
	size_t index;
	const char *reason; /* static: "baseline", "head", "every", "paths",
			     * "max_per_push" */
};

struct sched_result {
	struct sched_pick *tested; /* new, oldest first; free with scheduler_result_release */
	size_t nr_tested;
	struct sched_pick *skipped; /* new, oldest first */
	size_t nr_skipped;
};

/*
 * Fills out (which the caller releases, also when nothing is picked) with
 * what to test of commits[0..n), the range of one push; first: the plan
 * never looked at this branch before. n = 0 picks nothing.
 */
void scheduler_plan(const struct sched_rule *rule, const struct sched_commit *commits, size_t n,
		    int first, struct sched_result *out);
void scheduler_result_release(struct sched_result *r);

/* 1 when one of c's files matches one of rule's paths (or rule has none). */
int scheduler_touches(const struct sched_rule *rule, const struct sched_commit *c);

#endif
