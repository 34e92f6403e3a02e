/*
 * Unit tests of lib/evidence.c: the sentence a regression's page, API
 * record and mail share, exact strings for each part
 * that may be known or not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "attr.h"
#include "buf.h"
#include "evidence.h"

/* the sentence of ev (asserting it fit) into a static buffer */
static const char *text_of(const struct evidence *ev)
{
	static char out[512];
	struct buf b;

	buf_init(&b, 1 << 12);
	assert_int_equal(evidence_text(ev, &b), 0);
	snprintf(out, sizeof(out), "%s", b.data);
	buf_release(&b);
	return out;
}

static void test_the_issues_sentence(void **state UNUSED)
{
	struct evidence ev;

	evidence_init(&ev);
	ev.commits_after = 4;
	ev.shift_pct = -3.1;
	ev.ci_lo_pct = -3.6;
	ev.ci_hi_pct = -2.6;
	ev.shift = -31;		   /* of a level near 1000 */
	ev.noise_sigma = 7.380952; /* 31 / 7.38 = 4.2 */
	assert_float_equal(evidence_spread_ratio(&ev), 4.2, 1e-6);
	assert_string_equal(text_of(&ev),
			    "the 4 tested commits after moved by -3.1 % [-3.6, -2.6], "
			    "4.2 \xc3\x97 the series' own spread");
	/* a rise: signs on every number, the ratio of the shift's size */
	ev.commits_after = 12;
	ev.shift_pct = 20.04;
	ev.ci_lo_pct = 19.6;
	ev.ci_hi_pct = 20.55;
	ev.shift = 400.8;
	ev.noise_sigma = 3.2;
	assert_string_equal(text_of(&ev), "the 12 tested commits after moved by +20.0 % [+19.6, "
					  "+20.6], 125 \xc3\x97 the series' own spread");
	/* a sigma read net of a cycle in the history (detect.h 2c) says so */
	ev.noise_cycle = 12;
	assert_string_equal(text_of(&ev), "the 12 tested commits after moved by +20.0 % [+19.6, "
					  "+20.6], 125 \xc3\x97 the series' own spread net of its "
					  "12-commit cycle");
	ev.noise_sigma = NAN; /* no ratio: no word of the cycle either */
	assert_string_equal(text_of(&ev),
			    "the 12 tested commits after moved by +20.0 % [+19.6, +20.6]");
}

static void test_parts_left_out_when_unknown(void **state UNUSED)
{
	struct evidence ev;

	evidence_init(&ev);
	/* nothing known: nothing said */
	assert_string_equal(text_of(&ev), "");
	ev.commits_after = 1;
	assert_string_equal(text_of(&ev), "");
	/* one commit after, no interval, no noise model (a change at the tip pair) */
	ev.shift_pct = -5.25;
	assert_string_equal(text_of(&ev), "the 1 tested commit after moved by -5.2 %");
	assert_true(isnan(evidence_spread_ratio(&ev)));
	/* one end of the interval is not an interval; a noise sigma of 0 is no scale */
	ev.ci_lo_pct = -6;
	ev.shift = -52.5;
	ev.noise_sigma = 0;
	assert_string_equal(text_of(&ev), "the 1 tested commit after moved by -5.2 %");
	ev.noise_sigma = 10;
	assert_string_equal(text_of(&ev), "the 1 tested commit after moved by -5.2 %, "
					  "5.2 \xc3\x97 the series' own spread");
	/* an infinite size with no levels known is not put in words */
	ev.shift_pct = -INFINITY;
	assert_string_equal(text_of(&ev), "");
}

/* a base of zeros: its % is infinite (stored as unknown), the levels are said */
static void test_base_zero_says_its_levels(void **state UNUSED)
{
	struct evidence ev;

	evidence_init(&ev);
	ev.commits_after = 20;
	ev.before = 0;
	ev.after = 4.98512;
	assert_true(evidence_base_zero(&ev));
	assert_string_equal(text_of(&ev), "the 20 tested commits after moved from 0 to 4.985 "
					  "(the base is 0: no %change)");
	ev.shift_pct = INFINITY; /* the comparison's own figure, unstored */
	ev.ci_lo_pct = 0;
	ev.ci_hi_pct = INFINITY;
	ev.shift = 5;
	ev.noise_sigma = 0.5;
	assert_string_equal(text_of(&ev), "the 20 tested commits after moved from 0 to 4.985 "
					  "(the base is 0: no %change), 10.0 \xc3\x97 the series' "
					  "own spread");
	/* a finite % is said as a % whatever the means; no after level: nothing */
	ev.shift_pct = 12;
	assert_false(evidence_base_zero(&ev));
	ev.shift_pct = NAN;
	ev.after = NAN;
	assert_false(evidence_base_zero(&ev));
	assert_string_equal(text_of(&ev), "");
	/* a level as a person reads it */
	char x[32];

	evidence_level(-0.0, x);
	assert_string_equal(x, "0");
	evidence_level(1234567, x);
	assert_string_equal(x, "1.235e+06");
}

static void test_small_changes_keep_their_digits(void **state UNUSED)
{
	struct evidence ev;

	evidence_init(&ev);
	ev.commits_after = 6;
	ev.shift_pct = -0.3;
	ev.ci_lo_pct = -0.41;
	ev.ci_hi_pct = -0.002; /* rounds to 0: no sign */
	ev.shift = -3;
	ev.noise_sigma = 0.25;
	assert_string_equal(text_of(&ev),
			    "the 6 tested commits after moved by -0.30 % [-0.41, 0.00], "
			    "12.0 \xc3\x97 the series' own spread");
}

static void test_full_buffer_is_an_error(void **state UNUSED)
{
	struct evidence ev;
	struct buf b;

	evidence_init(&ev);
	ev.commits_after = 4;
	ev.shift_pct = -3.1;
	buf_init(&b, 16);
	assert_int_equal(evidence_text(&ev, &b), -1);
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_issues_sentence),
		cmocka_unit_test(test_parts_left_out_when_unknown),
		cmocka_unit_test(test_small_changes_keep_their_digits),
		cmocka_unit_test(test_base_zero_says_its_levels),
		cmocka_unit_test(test_full_buffer_is_an_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
