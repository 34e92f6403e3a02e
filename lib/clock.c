#include "clock.h"

#include <stdlib.h>
#include <time.h>

int64_t mono_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		abort();
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t mono_ms(void)
{
	return mono_ns() / 1000000;
}

double mono_s(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		abort();
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double mono_ms_since(int64_t t0_ns)
{
	return (double)(mono_ns() - t0_ns) / 1e6;
}
