#include "server/db/pgval.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

double pg_double(const char *s)
{
	return *s ? strtod(s, NULL) : NAN;
}

size_t pg_float8_array_len(const char *s)
{
	size_t n;

	if (s[0] != '{' || s[1] == '}')
		return 0;
	for (n = 1; *s; s++)
		n += *s == ',';
	return n;
}

static int cmp_double_nan_last(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return (a > b) - (a < b);
}

size_t pg_float8_array_sorted(const char *s, double *out)
{
	size_t n = 0;

	if (*s++ != '{')
		return 0;
	while (*s && *s != '}') {
		char *end;

		out[n++] = strtod(s, &end);
		if (end == s) {
			n--;
			break;
		}
		s = *end == ',' ? end + 1 : end;
	}
	pg_sort_doubles(out, n);
	return n;
}

void pg_sort_doubles(double *v, size_t n)
{
	/* a compare sorts thousands of sides of a few runs: insertion sort spares qsort's calls */
	if (n > 32) {
		qsort(v, n, sizeof(double), cmp_double_nan_last);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		double x = v[i];
		size_t j = i;

		for (; j > 0 && cmp_double_nan_last(&v[j - 1], &x) > 0; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static uint32_t be32(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;

	return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
}

long long pg_bin_int8(const char *p)
{
	return (long long)((uint64_t)be32(p) << 32 | be32(p + 4));
}

int pg_bin_int4(const char *p)
{
	return (int)(int32_t)be32(p);
}

/* the header of a 1-D array: element count and the offset of the first element */
static long bin_array_head(const char *p, size_t len, unsigned elem_oid, size_t *off)
{
	uint32_t ndim, nulls;
	long n;

	if (len < 12)
		return -1;
	ndim = be32(p);
	nulls = be32(p + 4);
	if (ndim > 1 || nulls || be32(p + 8) != elem_oid)
		return -1;
	*off = 12;
	if (!ndim)
		return 0;
	if (len < 20)
		return -1;
	n = (long)be32(p + 12);
	*off = 20;
	/* at least the length word of every element */
	if (n < 0 || (size_t)n > (len - 20) / 4)
		return -1;
	return n;
}

long pg_bin_array_len(const char *p, size_t len, unsigned elem_oid)
{
	size_t off;

	return bin_array_head(p, len, elem_oid, &off);
}

/* the elements of size w at p[off..len) into out (raw, big-endian) */
static int bin_array_elems(const char *p, size_t len, size_t off, long n, size_t w,
			   void (*put)(const char *, void *, long), void *out)
{
	for (long i = 0; i < n; i++) {
		if (len - off < 4 + w || be32(p + off) != w)
			return -1;
		put(p + off + 4, out, i);
		off += 4 + w;
	}
	return 0;
}

static void put_int4(const char *p, void *out, long i)
{
	((int *)out)[i] = pg_bin_int4(p);
}

static void put_float8(const char *p, void *out, long i)
{
	uint64_t u = (uint64_t)pg_bin_int8(p);
	double d;

	memcpy(&d, &u, sizeof(d));
	((double *)out)[i] = d;
}

int pg_bin_array_int4(const char *p, size_t len, int *out)
{
	size_t off;
	long n = bin_array_head(p, len, 23, &off);

	return n < 0 ? -1 : bin_array_elems(p, len, off, n, 4, put_int4, out);
}

int pg_bin_array_float8(const char *p, size_t len, double *out)
{
	size_t off;
	long n = bin_array_head(p, len, 701, &off);

	return n < 0 ? -1 : bin_array_elems(p, len, off, n, 8, put_float8, out);
}
