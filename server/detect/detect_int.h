/*
 * What the detection module's files share (server/detect/: detect.c, the
 * step detector's records and the thread; detect_tip.c, the reports at the
 * tip; detect_record.c, the record helpers both call, so neither calls into
 * the other but detect.c into detect_tip.c). Internal to the module: nothing
 * but server/detect/detect*.c includes it, and detect.h, for struct
 * detect_setup_stats.
 */
#ifndef REGTRACK_SERVER_DETECT_INT_H
#define REGTRACK_SERVER_DETECT_INT_H

#include "server/detect/aa_history.h"
#include "server/config.h"
#include "server/db/regressions.h"
#include "server/db/series.h"
#include "stats/compare.h"
#include "stats/detect.h"

#include <stddef.h>

struct db_conn;

/* What one detect_setup() call did. */
struct detect_setup_stats {
	size_t series;	    /* metrics examined */
	size_t points;	    /* commits over all series */
	size_t changes;	    /* change points found (= records upserted) */
	size_t created;	    /* of them new records */
	size_t confirmed;   /* records moved new -> confirmed */
	size_t withdrawn;   /* `new` records no longer detected, deleted */
	size_t undetected;  /* other records no longer detected */
	size_t tip_jobs;    /* extra jobs queued for a tip that moved (regressions.h) */
	size_t tip_records; /* of changes, records of a tip confirmed by its extra runs */
};

/* the record ids one detection found (kept; the others are undetected) */
struct kept {
	long long *ids;
	size_t n, alloc;
};

/* One series: per commit (pushed into the detector) its id and its samples. */
struct series {
	long long *commit; /* commits.id per series position */
	size_t *first;	   /* first sample of each position in vals */
	size_t *count;	   /* samples of each position */
	double *vals;	   /* run means */
	size_t n, nvals;
};

/* the tracking job of the tip of one setup's series, looked up once per detect_setup */
struct tip_job {
	long long commit; /* the tip it is for; 0: not looked up yet */
	int got;	  /* 1: job and branch are set (the tip was tested by a plan) */
	long long job;
	char branch[256];
	long long *rec_metric, *rec_id; /* the records whose first bad commit is the tip */
	size_t nrec;
	long long *tipc; /* the commits with extra tip runs (ascending), once per setup */
	size_t ntipc;
	int tipc_read;
};

/*
 * The metrics of the setup with a record past triage (db_regr_triaged_metrics(),
 * read once per detect_setup): only their change points can be covered by
 * such a record, so the others skip the query (one per change point).
 */
struct triaged {
	long long *metric; /* ascending */
	size_t n;
};

/*
 * db_regr_covering() for a change point of metric_id, answered 0 without a
 * query when the metric has no record past triage (t): 1 with *id, 0, -1.
 */
int detect_covering(struct db_conn *c, const struct triaged *t, long long setup_id,
		    long long metric_id, long long good, long long bad, long long *id,
		    struct err *e);

/* the record's kind: a direction (+1 rose, -1 fell) for a metric with hib (1, 0, -1 unknown) */
const char *detect_kind_of(int direction, int hib);

/* samples of series positions [lo, hi) as one borrowed range of vals */
const double *detect_side(const struct series *s, size_t lo, size_t hi, size_t *n);

/* adds a history entry (from -> to, note) to record id; 0 or -1 with e */
int detect_history(struct db_conn *c, long long id, const char *from, const char *to,
		   const char *note, struct err *e);

/*
 * 1 when pct is a %change a person reads in a note: finite and below 1e9
 * (a base of zero gives an infinite HL shift, and LKP's %change over its
 * 1e-100 a hundred digits).
 */
int detect_pct_readable(double pct);

/*
 * pct as a note says it: "%+.2f%%", or, when not detect_pct_readable(), the
 * levels either side, "from 0 to 5 (the base is 0: no %change)" (before,
 * after as evidence_level() writes them). Returns out.
 */
const char *detect_pct_words(double pct, double before, double after, char out[128]);

/* appends id to k's ids */
void detect_kept_add(struct kept *k, long long id);

/*
 * The fields of a record that come from its comparisons: seg, the runs of
 * the segments either side (the record's size and verdict), and pair, the
 * last good commit's runs against the first bad one's (shown beside it).
 */
void detect_upsert_from(struct db_regr_upsert *u, const struct compare_result *seg,
			const struct compare_result *pair);

/*
 * Compares a with b as compare_deterministic() with the setup's A/A spread
 * of the metric from aa (server/detect/aa_history.h; none measured in wall-clock
 * setups: the rank test), the runs of commits before and after (the pair
 * either side of the step) left out of the spread.
 */
void detect_compare_sides(const struct aa_history *aa, long long setup_id, long long metric_id,
			  long long before, long long after, const double *a, size_t na,
			  const double *b, size_t nb, const struct compare_opts *co,
			  struct compare_result *r);

/*
 * Reports at the tip (regressions.h), server/detect/detect_tip.c: check_tip for
 * the newest commit of a plan's branch, check_tip_pairs for the pairs asked
 * for at a tip once their runs are in. check_tip returns 1 when it kept
 * or made the record of the tip's pair, 0 when not, -1 with e;
 * check_tip_pairs (tip_done: check_tip's 1, the tip's pair left out)
 * returns 0 or -1 with e.
 */
int check_tip(struct db_conn *c, long long setup_id, const struct db_detect_point *m,
	      const struct series *s, const struct detect_series *ds, const struct aa_history *aa,
	      const struct config *cfg, const struct triaged *tr, struct tip_job *tj,
	      struct kept *kept, struct detect_setup_stats *st, struct err *e);
int check_tip_pairs(struct db_conn *c, long long setup_id, const struct db_detect_point *m,
		    const struct series *s, const struct detect_series *ds,
		    const struct aa_history *aa, int tip_done, const struct triaged *tr,
		    struct tip_job *tj, struct kept *kept, struct detect_setup_stats *st,
		    struct err *e);

#endif
