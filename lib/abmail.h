#ifndef REGTRACK_ABMAIL_H
#define REGTRACK_ABMAIL_H

#include <stddef.h>

#include "buf.h"
#include "lkptext.h"

/*
 * The result mail of an A/B request in the kernel test robot's form, from
 * typed input (server/abtest/abtest_mail.c gathers it from the database): pure,
 * no I/O. The mail to a request's `notify` and a series' reply in its list
 * thread (server/inbox/inbox_reply.c) share this text.
 *
 * Strings are borrowed for the call; NULL reads as "" unless a field's
 * comment gives NULL a meaning of its own.
 */

/* One comparison row of the request's verdict (server/abtest/abtest.h, abtest_verdict()). */
struct abmail_row {
	int group;	    /* index into abmail_input.groups */
	const char *target; /* the group's target */
	const char *metric;
	const char *change;	     /* "regression", "improvement", "same", ...; NULL: none */
	int monitor;		     /* 1: a monitor's row (never the headline) */
	double hl_pct;		     /* the Hodges-Lehmann shift in %; NAN: none */
	double base_mean, head_mean; /* mean of the side's run means; NAN: none */
	double base_stddev_pct, head_stddev_pct; /* their %stddev; NAN: none */
};

/* One target x testcase of the request. */
struct abmail_group {
	const char *target, *testcase, *kconfig;
	/* the setup's params as the table's axes (name, value as text), in stored order */
	const struct lkp_axis *params;
	size_t nr_params;
	/* the machine its base runs got, as report_machine_text() words it
	 * ("vm-2p - 2 vCPUs pinned, 2G memory, x86_64 qemu guest (tcg) on CPU");
	 * NULL or "": not known, no line */
	const char *machine;
};

/* A note under the setup, of one group (hostfp_note() of its sides' fingerprints). */
struct abmail_note {
	int group; /* index into abmail_input.groups */
	const char *text;
};

/* How to run one data point again (server/abtest/abtest.h, abtest_reproduce_local()). */
struct abmail_command {
	const char *target, *testcase, *side; /* side: "base" or "head" */
	const char *command;		      /* the token-free regtrack-worker line */
	const char *curl;		      /* the service's curl; NULL or "": none */
};

struct abmail_input {
	long long request_id;
	const char *public_url; /* the service's base URL; trailing '/' ignored */
	const char *state;	/* "done", "failed", "cancelled", ... as shown */
	const char *verdict;	/* overall: "regression", "improvement", "no-change", ... */
	const char *fail_reason;
	const char *tree;
	const char *base_ref, *base_sha;
	const char *head_ref, *head_sha; /* head_sha "": not known (a patched head not built) */
	int patches;			 /* 1: the head is base + patches */
	long long nr_patches;
	const char *patch_subject; /* the first patch's subject as submitted */
	const char *patch_id;	   /* the series' patch-id; NULL: none */
	/*
	 * NULL or "": the mail names the change by patch_subject; else by this
	 * (a list series' title: its cover letter's subject after the bracket).
	 */
	const char *series_title;
	const char *const *targets;
	size_t nr_targets;
	const char *compiler;
	long long repeat;	/* runs a side */
	const char *repeat_why; /* why that many; NULL: not said */
	const char *label;
	double alpha; /* of the comparisons (ABTEST_ALPHA) */
	const struct abmail_group *groups;
	size_t nr_groups;
	const struct abmail_row *rows; /* in verdict order: by group, then metric */
	size_t nr_rows;
	const struct abmail_note *notes;
	size_t nr_notes;
	const char *reproduce; /* the curl that queues the request again; "": none */
	const struct abmail_command *reproduce_local;
	size_t nr_reproduce_local;
};

/*
 * Appends the mail's subject line to subject and its body to body:
 *
 *   [regtrack] +12.0% improvement of METRIC on TARGET with your patch "…"
 *
 *   Hello,
 *
 *   we noticed a +12.0% improvement of METRIC on TARGET with your patch
 *   "…". (then the other targets' change of that metric, the setup lines,
 *   the machine of each group ("machine:" lines), a host note per group, the verdict line, an LKP
 * table per group (lib/lkptext.h), the request page, the commands that run it again)
 *
 * The headline is the first non-monitor row whose change is the verdict,
 * else the first non-monitor row. A request not `done` says it could not
 * be tested and why (fail_reason). A headline or other target without an
 * HL shift prints +0.0%. Returns 0, or -1 when a buffer's cap was reached
 * (the text is then cut).
 */
int abmail_render(const struct abmail_input *in, struct buf *subject, struct buf *body)
	__attribute__((warn_unused_result));

#endif
