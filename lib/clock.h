#ifndef REGTRACK_CLOCK_H
#define REGTRACK_CLOCK_H

#include <stdint.h>

/*
 * The monotonic clock (CLOCK_MONOTONIC): for durations, deadlines, backoff
 * and rates, never for dates (it starts at an arbitrary point, typically
 * boot, and does not jump with the wall clock). One reading per call; the
 * three units are the same clock, so values of one unit taken at different
 * times subtract to an elapsed time. clock_gettime(CLOCK_MONOTONIC) cannot
 * fail on Linux; if it ever did, these abort.
 *
 *	int64_t t0 = mono_ns();
 *	...
 *	double ms = mono_ms_since(t0);
 */

/* Now, in nanoseconds. */
int64_t mono_ns(void);
/* Now, in whole milliseconds (truncated). */
int64_t mono_ms(void);
/* Now, in seconds, with the nanoseconds as the fraction. */
double mono_s(void);
/* Milliseconds elapsed since t0_ns (a value of mono_ns()), with the fraction. */
double mono_ms_since(int64_t t0_ns);

#endif
