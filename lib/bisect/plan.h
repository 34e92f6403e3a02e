#ifndef REGTRACK_BISECT_PLAN_H
#define REGTRACK_BISECT_PLAN_H

#include <stddef.h>

#include "stats/compare.h"

/*
 * The bisect planner: a pure function from what is known about a commit
 * range (per-commit samples, which commits failed to build, the good and
 * bad references) to verdicts and the next probes. No I/O, no clock, no
 * randomness: the same input gives the same plan, so the coordinator can
 * recompute it from the database after a restart.
 *
 * Candidates. c[0..n) are the commits of the range good..bad in history
 * order (oldest first; the server uses the first-parent chain, then a
 * merged side branch's chain followed by the merge: server/bisect/bisect.h), c[n-1]
 * being the bad endpoint itself. The good endpoint is not a candidate; its
 * samples come separately. "First bad" is the index f in [0, n) such that
 * commits before f are good and f onward are bad; f = 0 means the first
 * candidate (whose parent is the good endpoint).
 *
 * Model (a posterior over "which commit is first bad", after Henderson et
 * al., "Flake Aware Culprit Finding", ICST 2023, with a heavy-tailed noise
 * model): every run of a good commit is drawn around mu_g, of a bad commit
 * around mu_b, with noise s. The levels and the noise are robust: the
 * median of each reference and 1.4826 * the pooled MAD around them give a
 * first sigma; mu_g, mu_b are then the means of the runs within 3.5 such
 * sigmas of their reference's median (every run of a side with fewer than
 * 5 runs, too few to tell an outlier) and s the pooled standard deviation of
 * those runs (corrected for the cut; floored at noise_floor_pct of |mu_g|,
 * so identical icount values do not make it 0). The same fit is repeated
 * once on every commit the posterior is sure about (hard assignment EM
 * step) so the midpoint is not left off by the references' own noise. An
 * outlier run (a failed or disturbed machine, x0.7 or x1.3) moves neither
 * the levels nor s, where the earlier mean and pooled SD let 5 % of such
 * runs inflate s threefold.
 * The density of a run is a contaminated normal, phi((x - mu) / s) +
 * outlier_density (standardized units; Tukey 1960, Huber 1981 ch. 4), and
 * one sample x at commit j adds the log likelihood ratio "j is bad" vs
 * "j is good":
 *	llr(x) = log(phi(z_b) + c) - log(phi(z_g) + c),
 *	z_b = (x - mu_b) / s, z_g = (x - mu_g) / s, c = outlier_density
 * Near the levels this is the Gaussian llr (mu_b - mu_g) / s^2 * (x -
 * (mu_g + mu_b) / 2); a run far from both levels carries almost no
 * evidence (llr -> 0), where the Gaussian llr gave it the full clip. With
 * outlier_density = 0 the Gaussian llr is used. Either is clipped to
 * [-llr_clip, +llr_clip]. With S_j the sum over j's samples and a uniform
 * prior over f,
 *	log P(f) = const + sum_{j >= f} S_j
 * (commits j >= f are bad, j < f good). Skipped commits carry no samples
 * and so no evidence: their neighbours decide, as with `git bisect skip`.
 *
 * Rounds. Each round probes up to k commits at the points where the
 * posterior's cumulative P(f <= j) crosses 1/(k+1), ..., k/(k+1) (equal
 * parts of the remaining range when the posterior is flat on it), so N
 * commits take about ceil(log_{k+1} N) rounds. A point landing on a
 * skipped commit moves to the nearest untested neighbour. A commit probed
 * again (its evidence was not decisive) gets as many runs again as it has
 * (doubling) up to max_runs. Once the credible interval of f (mass
 * >= 1 - epsilon) is at most k commits wide, the round probes every commit
 * of it plus the commit before it with verify_runs runs each, which also
 * serves as the verification round.
 *
 * The end. Done when one f holds >= 1 - epsilon of the posterior, f and its
 * parent (f - 1, or the good endpoint) each have >= verify_runs samples,
 * and compare_samples(parent, f) is `different` in the direction of good
 * -> bad with at least half of the reference change (the verification;
 * sizes and directions are the HL shifts of compare.h, hl_pct/direction).
 * The references differ when their own comparison (model.refs) is
 * `different` with |hl_pct| > min_change_pct (deterministic references:
 * refs_separation >= 6), read before and independently of the refit.
 * Ambiguous when the credible interval cannot be split further because
 * every commit that could split it failed to build: the answer is "the
 * first bad commit is one of c[lo..hi]". Failed when the references do not
 * differ, when a commit needed to decide stays undecided at max_runs, or
 * after max_rounds rounds.
 *
 * Deterministic measurement. In icount mode
 * (expect_deterministic) with deterministic references, the A/A spread is
 * measured on the bisect's own runs of one kernel: each reference's runs
 * and the pooled runs of every image measured at two commits or more
 * (model.aa_spread_pct: the largest relative range, over model.aa_runs
 * runs). With at least 6 such runs the verification compares with
 * compare_deterministic() (stats/compare.h: its model and assumption)
 * instead of the rank test, and needs verify_runs_deterministic (3) runs
 * a side instead of verify_runs (10): 3 + 3 runs of disjoint ranges
 * decide where the rank test could never go below p = 0.1. Its "spread
 * over several commits" check reads the shift +- the A/A spread. Never in
 * wall-clock mode: there the rank test alone decides.
 *
 * Identical images. Commits built to the same kernel image
 * (bisect_commit.image, equal non-zero ids; the worker hashes the image of
 * a reproducible build) cannot differ but by the environment, so with
 * every commit after the first bad one bad, f lies in none of (i, j] for
 * two such commits i < j (the good endpoint is index -1): P(f) = 0 there,
 * the posterior renormalized over the rest. A first bad commit whose image
 * equals its parent's is therefore never named. A commit with no runs of
 * its own whose image is known (the worker built it and found the image
 * measured: no boot) takes the runs of the member of its image with the
 * most runs, its stand-in: for its verdict, the verification and the runs
 * it needs; probes for it go to the stand-in, never to itself. Its own
 * log likelihood stays 0, so no run is counted twice. When the
 * unconstrained posterior (before the exclusion) puts >= 1 - epsilon on
 * excluded positions, or nothing is left, the data place the change
 * between identical kernels: the answer is BISECT_ENVIRONMENT (a change of
 * the machine or its environment, not of a commit), with the range.
 */

struct bisect_opts {
	int k;		   /* probes per round, >= 1 (the coordinator: idle matching workers) */
	int runs_per_step; /* least runs of a new probe in noisy mode: 5; more when the
			    * references say the change is small (probe_z), and
			    * max(ref_runs, this) before the noise is known */
	int runs_deterministic;	  /* runs of a new probe when the references have ~zero spread: 2 */
	int ref_runs;		  /* runs of each reference (good, bad): 10 */
	int ref_runs_min;	  /* ... when they have ~zero spread: 3 */
	int expect_deterministic; /* 1: ask ref_runs_min first (icount mode), top up if noisy */
	int verify_runs;	  /* runs of the first bad commit and its parent: 10 */
	int verify_runs_deterministic; /* ... in deterministic measurement (below): 3 */
	int max_runs;		       /* cap of runs on one commit: 40 */
	int max_rounds;		       /* give up after this many rounds: 30 */
	double epsilon;		       /* posterior mass allowed outside the answer: 0.005 */
	double llr_clip;	       /* largest |log likelihood ratio| of one run: 6 */
	double probe_z;		       /* new probes get runs so that a probe mean is this many
					* of its standard errors from the midpoint: 3.0 */
	double det_spread_pct;	       /* references with %stddev <= this are deterministic: 0.2 */
	double noise_floor_pct;	       /* floor of s as % of |mu_g|: 0.1 */
	double min_change_pct;	/* good vs bad must differ by more than this % (HL shift): 1.0 */
	double outlier_density; /* flat floor of the run density, per sigma (see Model): 1e-3;
				 * 0 = Gaussian llr */
};

/* Defaults above. */
void bisect_opts_init(struct bisect_opts *o);

/* One candidate. */
struct bisect_commit {
	const double *samples; /* one value per run (a run's mean over its iterations); borrowed */
	size_t n;
	int skipped; /* 1: its build or boot failed; never probed again */
	int image;   /* 0: its image is unknown; > 0: an image id, equal ids = identical
		      * kernel images (see Identical images above) */
};

struct bisect_input {
	size_t n;		       /* candidates, >= 1 */
	const struct bisect_commit *c; /* c[n-1] is the bad endpoint; borrowed */
	const double *good;	       /* samples of the good endpoint; borrowed */
	size_t n_good;
	int good_skipped, bad_skipped; /* an endpoint failed to build: the bisect fails */
	int round;		       /* rounds already run (0 before the first) */
	int good_image;		       /* the good endpoint's image id (0: unknown) */
};

/* Index of the good endpoint in probes and verdicts. */
#define BISECT_GOOD (-1L)

enum bisect_role { ROLE_REF, ROLE_PROBE, ROLE_VERIFY };
/* "ref", "probe", "verify" (static strings). */
const char *bisect_role_name(enum bisect_role r);

struct bisect_probe {
	long idx; /* candidate index, or BISECT_GOOD */
	int runs; /* runs to add, >= 1 */
	enum bisect_role role;
};

enum bisect_action {
	BISECT_PROBE,	    /* run the probes, then plan again */
	BISECT_DONE,	    /* first_bad found and verified */
	BISECT_AMBIGUOUS,   /* the first bad commit is one of [lo, hi]; all between fail to build */
	BISECT_FAILED,	    /* cannot decide: see reason */
	BISECT_ENVIRONMENT, /* the change lies between identical images [lo, hi]: not a commit */
};
/* "probe", "done", "ambiguous", "failed", "environment" (static strings). */
const char *bisect_action_name(enum bisect_action a);

/* The fitted model; filled by bisect_plan_compute. */
struct bisect_model {
	int ready;		       /* 1 when both references have >= 2 samples (inliers) */
	double mu_good, mu_bad, sigma; /* robust levels and noise, after the refit */
	double separation; /* |mu_b - mu_g| / sigma (d in standard deviations), after the refit */
	double refs_separation;	    /* the same from the references alone, before the refit */
	double change_pct;	    /* 100 * (mu_b - mu_g) / |mu_g| */
	int deterministic;	    /* both references' %stddev <= det_spread_pct */
	int refs_target;	    /* runs each reference should have */
	struct compare_result refs; /* compare_samples(good, bad) */
	double aa_spread_pct;	    /* the A/A spread (Deterministic measurement); NAN: none */
	size_t aa_runs;		    /* runs it was measured on */
};

struct bisect_plan {
	struct bisect_opts opts;
	const struct bisect_input *in; /* borrowed until the next compute or release */
	struct bisect_model model;
	double *llr;	      /* S_j per candidate, n entries; new, owned */
	double *post;	      /* P(f = j), n entries; new, owned */
	double *cdf;	      /* P(f <= j), n entries; new, owned */
	unsigned char *excl;  /* 1: f = j is ruled out by identical images; n entries, owned */
	double excluded_mass; /* unconstrained posterior mass on excluded positions */
	long umap;	      /* argmax of the unconstrained posterior */
	long map;	      /* argmax of post */
	long lo, hi;	      /* shortest interval around map with mass >= 1 - epsilon */
};

/* Zeroes p; release with bisect_plan_release. */
void bisect_plan_init(struct bisect_plan *p, const struct bisect_opts *o);
void bisect_plan_release(struct bisect_plan *p);

/*
 * Fits the model and the posterior to `in` (borrowed until the next call
 * or release). With fewer than 2 samples on a reference the posterior is
 * flat (model.ready = 0).
 */
void bisect_plan_compute(struct bisect_plan *p, const struct bisect_input *in);

struct bisect_decision {
	enum bisect_action action;
	const char *phase;	     /* "refs", "search", "verify" or "end" (static) */
	struct bisect_probe *probes; /* new, owned; free with bisect_decision_release */
	size_t nr_probes;
	long first_bad;	   /* DONE: the index; otherwise the current best guess */
	double confidence; /* posterior mass of first_bad (DONE), of [lo, hi] (AMBIGUOUS) */
	long lo, hi;	   /* AMBIGUOUS, ENVIRONMENT: the candidates left */
	struct compare_result verify; /* DONE: compare_samples(parent, first_bad) */
	char reason[256];	      /* FAILED / AMBIGUOUS: why, in words; otherwise empty */
};

/* What to do next, after bisect_plan_compute. d is overwritten. */
void bisect_plan_next(struct bisect_plan *p, struct bisect_decision *d);
void bisect_decision_release(struct bisect_decision *d);

enum step_verdict { STEP_UNTESTED, STEP_GOOD, STEP_BAD, STEP_SKIP, STEP_UNKNOWN };
/* "untested", "good", "bad", "skip", "unknown" (static strings). */
const char *step_verdict_name(enum step_verdict v);

/* The evidence behind one commit's verdict. */
struct bisect_evidence {
	enum step_verdict verdict;
	size_t n;
	double mean;
	double llr;			       /* S_j: > 0 says bad */
	double p_bad;			       /* posterior P(f <= j): the commit is bad */
	struct compare_result vs_good, vs_bad; /* compare_samples(good refs, j), (bad refs, j) */
	int has_stand_in; /* 1: no runs of its own; n, mean, verdict are those of */
	long stand_in;	  /* ... this commit of the same image (or BISECT_GOOD) */
};

/*
 * The verdict on candidate idx from its own samples: skip when it failed
 * to build, untested without samples, bad when S_j >= log(1/epsilon - 1)
 * and good when S_j <= -that, unknown otherwise (more runs needed). The
 * compare_samples results are recorded beside it as evidence. A commit
 * without runs whose image has a stand-in (see Identical images) gets the
 * stand-in's verdict and samples, has_stand_in and stand_in set.
 */
void bisect_plan_verdict(const struct bisect_plan *p, long idx, struct bisect_evidence *ev);

/*
 * The information bound of a noisy bisect: log2(n) bits are needed, and one
 * run of a commit that is either good or bad, separated by d standard
 * deviations of Gaussian noise, carries at most the capacity of the binary
 * input Gaussian channel with amplitudes +-d/2 (equiprobable inputs):
 *	C(d) = 1 - E_Z[log2(1 + exp(-d (d/2 + Z)))],  Z ~ N(0, 1)
 * (Cover & Thomas, Elements of Information Theory, ch. 9), computed by
 * quadrature. Returns log2(n) / C(d) runs (about 20.5 for n = 1000, d = 2).
 */
double bisect_info_bound(double n, double d);

#endif
