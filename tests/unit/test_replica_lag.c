/*
 * Unit tests of replica_lag_ms() (server/replica.c): the read replica's
 * lag from the primary's WAL positions, sampled once a second, and the
 * standby's replay position.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "attr.h"
#include "server/replica.h"

/* the primary at 1000, 2000, 3000, 4000 ms: idle, then writes from 2000 on */
static const struct replica_sample s[] = {
	{ 1000, 500 }, { 2000, 500 }, { 3000, 800 }, { 4000, 900 }
};

static void test_caught_up(void **state UNUSED)
{
	/* replayed the newest position: nothing is missing, however old the samples */
	assert_int_equal(replica_lag_ms(s, 4, 900, 4100), 0);
	assert_int_equal(replica_lag_ms(s, 4, 950, 9000), 0);
	/* an idle primary: the position does not move, the standby stays at lag 0 */
	assert_int_equal(replica_lag_ms(s, 2, 500, 60000), 0);
	assert_int_equal(replica_lag_ms(s, 0, 0, 5000), 0);
}

static void test_behind(void **state UNUSED)
{
	/* has 800 of 900: what it lacks was written after the 3000 ms sample */
	assert_int_equal(replica_lag_ms(s, 4, 800, 4100), 1100);
	/* has 500: lacks what came after 2000 ms (the last sample at 500) */
	assert_int_equal(replica_lag_ms(s, 4, 500, 4100), 2100);
	assert_int_equal(replica_lag_ms(s, 4, 799, 4100), 2100);
	/* replay paused: the lag grows with the clock, not with the writes */
	assert_int_equal(replica_lag_ms(s, 4, 500, 10100), 8100);
}

static void test_older_than_samples(void **state UNUSED)
{
	/* behind every sample: at least as old as the oldest one */
	assert_int_equal(replica_lag_ms(s, 4, 100, 4100), 3100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caught_up),
		cmocka_unit_test(test_behind),
		cmocka_unit_test(test_older_than_samples),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
