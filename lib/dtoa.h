#ifndef REGTRACK_DTOA_H
#define REGTRACK_DTOA_H

/*
 * Shortest round-trip text of a double, for JSON.
 *
 * dtoa_shortest() writes the fewest significant digits that read back
 * (strtod) as exactly v: 0.1 is "0.1", not printf("%.17g")'s
 * "0.10000000000000001". The digits come from Google's double-conversion
 * library (libdouble-conversion, Grisu3 with a bignum fallback; the same
 * algorithm as V8's Number.prototype.toString), so the numbers read the
 * same in the dashboard's JavaScript as in the API's JSON.
 *
 * Layout follows printf's %g switch points so that replies look as they
 * did with "%.17g": decimal notation for 1e-4 <= |v| < 1e17, else an
 * exponent with no '+' and no leading zeros ("1e-5", "1.5e20"); an
 * integral value in decimal notation gets ".0" ("100.0") so that a JSON
 * reader (jansson) still reads a real, not an integer; -0.0 is "-0.0".
 *
 * out must hold DTOA_BUFSZ bytes; it is NUL-terminated. Returns the
 * length (at most DTOA_BUFSZ - 1), or 0 for NaN and infinities (nothing
 * written but the NUL: JSON has no such numbers, callers write null).
 * Thread-safe, no allocation.
 */
#include <stddef.h>

#define DTOA_BUFSZ 32

#ifdef __cplusplus
extern "C" {
#endif

size_t dtoa_shortest(double v, char *out);

#ifdef __cplusplus
}
#endif

#endif
