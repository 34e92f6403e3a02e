/*
 * The bisect planner with identical images (plan.h "Identical
 * images"): a probe whose image equals a measured commit's takes its runs,
 * a first bad commit whose image equals its parent's is never named (the
 * change is reported as one of the environment), and good and bad built to
 * one image end at once. Seeded Gaussian noise, no kernels.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/plan.h"
#include "attr.h"

/* xorshift64* and Box-Muller: fixed seeds, the same values on every machine */
static double gauss(uint64_t *s)
{
	double u1, u2;

	*s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
	u1 = ((double)((*s * 2685821657736338717ull) >> 11) + 1) / 9007199254740993.0;
	*s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
	u2 = (double)((*s * 2685821657736338717ull) >> 11) / 9007199254740992.0;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

#define NC 30
#define CULPRIT 12

struct world {
	double v[NC + 1][64]; /* [0] the good end, [j + 1] candidate j */
	size_t n[NC + 1];
	int img[NC + 1]; /* image id as the planner sees it: 0 until built */
	int true_img[NC + 1];
	struct bisect_commit c[NC];
	uint64_t seed;
	long runs, same_image_probes, probes_of_twins;
};

static double level(long j)
{
	return j >= CULPRIT ? 110.0 : 100.0; /* d = 10 sigmas: the search is quick */
}

/*
 * True images: candidates j with j % 3 != 0 are a Documentation/ edit of
 * j - 1 (the same image), except the culprit; the good end is its own.
 */
static void world_init(struct world *w, int use_images)
{
	memset(w, 0, sizeof(*w));
	w->seed = 0x9e3779b97f4a7c15ull;
	w->true_img[0] = 1;
	for (long j = 0; j < NC; j++)
		w->true_img[j + 1] = (j % 3 && j != CULPRIT) ? w->true_img[j] : (int)j + 2;
	if (!use_images)
		for (long j = 0; j <= NC; j++)
			w->true_img[j] = 0;
}

/* a probe: a same-image build takes no runs (the worker does not boot it) */
static void probe(struct world *w, long idx, int runs)
{
	long k = idx + 1;

	if (w->true_img[k] && !w->n[k])
		for (long i = 0; i <= NC; i++)
			if (i != k && w->n[i] && w->img[i] == w->true_img[k]) {
				w->img[k] = w->true_img[k];
				w->same_image_probes++;
				return;
			}
	if (w->img[k] && !w->n[k])
		w->probes_of_twins++; /* a commit whose twin was measured probed again */
	w->img[k] = w->true_img[k];
	for (int r = 0; r < runs && w->n[k] < 64; r++) {
		w->v[k][w->n[k]++] = level(idx) + gauss(&w->seed);
		w->runs++;
	}
}

static void input(struct world *w, struct bisect_input *in, int round)
{
	for (long j = 0; j < NC; j++)
		w->c[j] = (struct bisect_commit){ w->v[j + 1], w->n[j + 1], 0, w->img[j + 1] };
	memset(in, 0, sizeof(*in));
	in->n = NC;
	in->c = w->c;
	in->good = w->v[0];
	in->n_good = w->n[0];
	in->good_image = w->img[0];
	in->round = round;
}

static enum bisect_action run_bisect(struct world *w, struct bisect_decision *out)
{
	struct bisect_opts o;
	struct bisect_input in;
	struct bisect_plan p;
	enum bisect_action a = BISECT_FAILED;

	bisect_opts_init(&o);
	o.k = 3;
	for (int round = 0; round < 40; round++) {
		struct bisect_decision d;

		input(w, &in, round);
		bisect_plan_init(&p, &o);
		bisect_plan_compute(&p, &in);
		bisect_plan_next(&p, &d);
		a = d.action;
		if (a != BISECT_PROBE) {
			*out = d;
			bisect_plan_release(&p);
			return a;
		}
		for (size_t i = 0; i < d.nr_probes; i++)
			probe(w, d.probes[i].idx, d.probes[i].runs);
		bisect_decision_release(&d);
		bisect_plan_release(&p);
	}
	memset(out, 0, sizeof(*out));
	return a;
}

/* same answer, fewer runs: a third of the range is reused, never probed twice */
static void test_same_image_takes_runs(void **state UNUSED)
{
	struct world *with = calloc(1, sizeof(*with)), *without = calloc(1, sizeof(*without));
	struct bisect_decision d1, d0;

	world_init(with, 1);
	world_init(without, 0);
	assert_int_equal(run_bisect(with, &d1), BISECT_DONE);
	assert_int_equal(run_bisect(without, &d0), BISECT_DONE);
	assert_int_equal(d1.first_bad, CULPRIT);
	assert_int_equal(d0.first_bad, CULPRIT);
	print_message("N=%d, culprit %d, 2 in 3 commits identical to their parent: %ld runs "
		      "with image reuse (%ld probes took another commit's runs), %ld without\n",
		      NC, CULPRIT, with->runs, with->same_image_probes, without->runs);
	assert_true(with->same_image_probes > 0);
	assert_int_equal(with->probes_of_twins, 0);
	assert_true(with->runs < without->runs);
	free(with);
	free(without);
}

/*
 * The data say "candidate 3" but candidate 3 built the image of candidate
 * 2: without images the planner names 3; with them it names nothing and
 * reports the change as one of the environment, range 2..3.
 */
static void test_never_names_identical_to_parent(void **state UNUSED)
{
	static double good[10], lo[10], hi[10];
	struct bisect_commit c[10];
	struct bisect_input in;
	struct bisect_opts o;
	struct bisect_plan p;
	struct bisect_decision d;
	uint64_t s = 42;

	for (int i = 0; i < 10; i++) {
		good[i] = 100 + gauss(&s);
		lo[i] = 100 + gauss(&s);
		hi[i] = 110 + gauss(&s);
	}
	for (int j = 0; j < 10; j++)
		c[j] = (struct bisect_commit){ j < 3 ? lo : hi, 10, 0, j + 2 };
	memset(&in, 0, sizeof(in));
	in.n = 10;
	in.c = c;
	in.good = good;
	in.n_good = 10;
	in.good_image = 1;
	in.round = 3;
	bisect_opts_init(&o);
	o.k = 2;

	bisect_plan_init(&p, &o);
	bisect_plan_compute(&p, &in);
	bisect_plan_next(&p, &d);
	assert_int_equal(d.action, BISECT_DONE); /* every image distinct: 3 is named */
	assert_int_equal(d.first_bad, 3);
	bisect_decision_release(&d);
	bisect_plan_release(&p);

	c[3].image = c[2].image; /* 3 is a Documentation/ edit of 2 */
	bisect_plan_init(&p, &o);
	bisect_plan_compute(&p, &in);
	bisect_plan_next(&p, &d);
	assert_true(p.excl[3]);
	assert_true(p.post[3] == 0);
	assert_true(p.excluded_mass > 0.995);
	assert_int_equal(d.action, BISECT_ENVIRONMENT);
	assert_int_equal(d.lo, 3);
	assert_int_equal(d.hi, 3);
	assert_non_null(strstr(d.reason, "identical kernel images (candidates 2..3"));
	assert_string_equal(bisect_action_name(d.action), "environment");
	bisect_decision_release(&d);
	bisect_plan_release(&p);
}

/* good and bad built to one image: no commit can be the cause, no run is asked */
static void test_refs_one_image(void **state UNUSED)
{
	struct bisect_commit c[5];
	struct bisect_input in;
	struct bisect_opts o;
	struct bisect_plan p;
	struct bisect_decision d;

	memset(c, 0, sizeof(c));
	c[4].image = 7;
	memset(&in, 0, sizeof(in));
	in.n = 5;
	in.c = c;
	in.good_image = 7;
	bisect_opts_init(&o);
	bisect_plan_init(&p, &o);
	bisect_plan_compute(&p, &in);
	bisect_plan_next(&p, &d);
	assert_int_equal(d.action, BISECT_ENVIRONMENT);
	assert_int_equal(d.nr_probes, 0);
	assert_int_equal(d.lo, 0);
	assert_int_equal(d.hi, 4);
	bisect_decision_release(&d);
	bisect_plan_release(&p);
}

/* a same-image commit's verdict is its stand-in's, and probes go to the stand-in */
static void test_stand_in(void **state UNUSED)
{
	static double good[10], bad[10];
	struct bisect_commit c[8];
	struct bisect_input in;
	struct bisect_opts o;
	struct bisect_plan p;
	struct bisect_evidence ev;
	struct bisect_decision d;
	uint64_t s = 7;

	for (int i = 0; i < 10; i++) {
		good[i] = 100 + gauss(&s);
		bad[i] = 110 + gauss(&s);
	}
	memset(c, 0, sizeof(c));
	c[7] = (struct bisect_commit){ bad, 10, 0, 9 };
	c[5] = (struct bisect_commit){ bad, 3, 0, 3 };
	c[4] = (struct bisect_commit){ NULL, 0, 0, 3 }; /* built: the image of 5, not run */
	memset(&in, 0, sizeof(in));
	in.n = 8;
	in.c = c;
	in.good = good;
	in.n_good = 10;
	in.good_image = 1;
	in.round = 2;
	bisect_opts_init(&o);
	o.k = 3;
	bisect_plan_init(&p, &o);
	bisect_plan_compute(&p, &in);
	bisect_plan_verdict(&p, 4, &ev);
	assert_true(ev.has_stand_in);
	assert_int_equal(ev.stand_in, 5);
	assert_int_equal(ev.n, 3);
	assert_true(p.excl[5] && !p.excl[4] && !p.excl[6]);
	bisect_plan_next(&p, &d);
	assert_int_equal(d.action, BISECT_PROBE);
	for (size_t i = 0; i < d.nr_probes; i++)
		assert_int_not_equal(d.probes[i].idx, 4);
	bisect_decision_release(&d);
	bisect_plan_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_image_takes_runs),
		cmocka_unit_test(test_never_names_identical_to_parent),
		cmocka_unit_test(test_refs_one_image),
		cmocka_unit_test(test_stand_in),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
