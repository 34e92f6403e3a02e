// lib/dtoa.h: shortest round-trip double to text through libdouble-conversion.
// The only C++ in regtrack: a wrapper around the library's converter.
#include "dtoa.h"

#include <double-conversion/double-to-string.h>
#include <double-conversion/utils.h>

#include <cmath>

using double_conversion::DoubleToStringConverter;
using double_conversion::StringBuilder;

namespace
{

// %g's switch points: decimal for exponents -4 .. 16 (17 digits of %.17g)
const DoubleToStringConverter converter(
	DoubleToStringConverter::EMIT_TRAILING_DECIMAL_POINT |
		DoubleToStringConverter::EMIT_TRAILING_ZERO_AFTER_POINT,
	nullptr, nullptr, 'e', -4, 17, 0, 0);

} // namespace

extern "C" size_t dtoa_shortest(double v, char *out)
{
	StringBuilder sb(out, DTOA_BUFSZ);

	out[0] = '\0';
	if (!std::isfinite(v) || !converter.ToShortest(v, &sb))
		return 0;
	size_t n = static_cast<size_t>(sb.position());
	sb.Finalize();
	return n;
}
