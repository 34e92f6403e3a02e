/* Simulated bisects (see sim.h). */
#include "bisect/sim.h"
#include "xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rng {
	uint64_t s;
	int have;
	double spare;
};

/* splitmix64 (Steele, Lea, Flood, OOPSLA 2014): every seed, even 0, gives a good stream */
static uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static double rng_unit(struct rng *r)
{
	return ((rng_next(r) >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
}

static double rng_normal(struct rng *r)
{
	double u, v;

	if (r->have) {
		r->have = 0;
		return r->spare;
	}
	u = rng_unit(r);
	v = rng_unit(r);
	r->spare = sqrt(-2 * log(u)) * sin(2 * M_PI * v);
	r->have = 1;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

struct series {
	double *v;
	size_t n, alloc;
};

static void add_runs(struct series *s, struct rng *r, const struct bisect_sim *sim, double mu,
		     int runs)
{
	for (int i = 0; i < runs; i++) {
		double x = mu + sim->sd * rng_normal(r);

		if (sim->outlier_rate > 0 && rng_unit(r) < sim->outlier_rate)
			x *= rng_unit(r) < 0.5 ? sim->outlier_lo : sim->outlier_hi;
		ALLOC_GROW(s->v, s->n + 1, s->alloc);
		s->v[s->n++] = x;
	}
}

int bisect_rounds_bound(long n, int k)
{
	long p = 1;
	int r = 0;

	while (p < n) {
		p *= k + 1;
		r++;
	}
	return r;
}

void bisect_sim_run(const struct bisect_sim *s, const struct bisect_opts *opts,
		    struct bisect_sim_result *res)
{
	struct rng r = { s->seed, 0, 0 };
	struct series good = { NULL, 0, 0 }, *ser = xcalloc(s->n, sizeof(*ser));
	struct bisect_commit *c = xcalloc(s->n, sizeof(*c));
	struct bisect_input in = { 0 };
	struct bisect_plan p;
	struct bisect_decision d;

	memset(res, 0, sizeof(*res));
	res->first_bad = res->lo = res->hi = -1;
	bisect_plan_init(&p, opts);
	in.n = s->n;
	in.c = c;
	for (;;) {
		int new_split = 0;

		for (size_t j = 0; j < s->n; j++) {
			c[j].samples = ser[j].v;
			c[j].n = ser[j].n;
		}
		in.good = good.v;
		in.n_good = good.n;
		in.round = res->rounds;
		bisect_plan_compute(&p, &in);
		bisect_plan_next(&p, &d);
		if (d.action != BISECT_PROBE)
			break;
		res->rounds++;
		for (size_t i = 0; i < d.nr_probes; i++) {
			long j = d.probes[i].idx;
			res->jobs++;
			if (j == BISECT_GOOD) {
				add_runs(&good, &r, s, s->mean, d.probes[i].runs);
				res->runs += d.probes[i].runs;
				res->runs_ref += d.probes[i].runs;
				continue;
			}
			if (d.probes[i].role == ROLE_PROBE)
				new_split = 1;
			if (s->skip && s->skip[j]) {
				c[j].skipped = 1;
				res->skips++;
				continue;
			}
			add_runs(&ser[j], &r, s, s->mean + (j >= s->culprit ? s->d * s->sd : 0),
				 d.probes[i].runs);
			res->runs += d.probes[i].runs;
			if (j == (long)s->n - 1)
				res->runs_ref += d.probes[i].runs;
			else if (d.probes[i].role == ROLE_PROBE)
				res->runs_probe += d.probes[i].runs;
			else
				res->runs_verify += d.probes[i].runs;
		}
		res->search_rounds += new_split;
		bisect_decision_release(&d);
	}
	res->action = d.action;
	res->confidence = d.confidence;
	if (d.action == BISECT_DONE)
		res->first_bad = d.first_bad;
	if (d.action == BISECT_AMBIGUOUS) {
		res->lo = d.lo;
		res->hi = d.hi;
	}
	snprintf(res->reason, sizeof(res->reason), "%s", d.reason);
	bisect_decision_release(&d);
	bisect_plan_release(&p);
	for (size_t j = 0; j < s->n; j++)
		free(ser[j].v);
	free(ser);
	free(c);
	free(good.v);
}
