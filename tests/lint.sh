#!/usr/bin/env bash
# Mechanical checks (make lint; make check runs it first):
#   banned   each function of lib/banned.h fails to compile under the flag the
#            Makefile forces into every object (-include lib/banned.h)
set -eu
cd "$(dirname "$0")/.."
CC=${CC:-gcc}
bad=0
fail() { echo "lint: $*" >&2; bad=1; }

# --- banned.h: a banned call is an error, an allowed one is not -------------
banned_flags="-std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror $(sed -n 's/^BANNED_FLAGS *:= *//p' Makefile)"
try_cc() { # C source on stdin -> compiler's exit status
	# shellcheck disable=SC2086
	$CC $banned_flags -x c -c -o /dev/null - 2>/dev/null
}
use() { # one expression -> a translation unit calling it
	printf '%s\n' '#include <stdarg.h>' '#include <stdio.h>' '#include <stdlib.h>' \
		'#include <string.h>' '#include <time.h>' \
		'void f(char *d, const char *s, va_list ap, time_t t);' \
		"void f(char *d, const char *s, va_list ap, time_t t) { (void)d; (void)s; (void)ap; (void)t; (void)($1); }"
}
if ! use 'snprintf(d, 4, "%s", s) + vsnprintf(d, 4, s, ap) + (int)strlen(s) + (gmtime_r(&t, NULL) != NULL)' | try_cc; then
	fail "a file with no banned call does not compile with: $banned_flags"
fi
for call in 'strcpy(d, s)' 'strcat(d, s)' 'strncpy(d, s, 1)' 'sprintf(d, "%s", s)' \
	'vsprintf(d, s, ap)' 'strtok(d, s)' 'atoi(s)' 'atol(s)' 'gmtime(&t)' 'localtime(&t)'; do
	if use "$call" | try_cc; then
		fail "'$call' compiles: lib/banned.h is not forced in (BANNED_FLAGS in the Makefile)"
	fi
done

exit $bad
