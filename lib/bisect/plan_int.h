#ifndef REGTRACK_BISECT_PLAN_INT_H
#define REGTRACK_BISECT_PLAN_INT_H

/*
 * Shared inside the bisect planner only (lib/bisect/plan.c, the model and
 * the verdicts; lib/bisect/plan_next.c, the next step). Not an API: the
 * public one is plan.h.
 */

#include "bisect/plan.h"

/*
 * The candidate whose runs stand for idx (BISECT_GOOD or 0 <= idx < in->n):
 * idx itself when it has runs or no known image, else the member of its
 * image with the most runs (the earliest of a tie), when one has runs.
 */
long plan_stand_in(const struct bisect_input *in, long idx);

/* The runs that stand for idx (plan_stand_in's), *n of them; borrowed from in. */
const double *plan_samples_of(const struct bisect_input *in, long idx, size_t *n);

/* One hard-assignment EM step of the model over the commits the posterior is sure about. */
void plan_refit(struct bisect_plan *p);

/* p->llr, post, cdf, map, lo and hi from p->model and p->in. */
void plan_posterior(struct bisect_plan *p);

/* 1: the runs of one kernel repeat within a measured tiny spread (icount mode), with evidence. */
int plan_det_mode(const struct bisect_plan *p);

/* The log likelihood ratio that decides a commit: log(1 / epsilon - 1). */
double plan_decisive_llr(const struct bisect_opts *o);

#endif
