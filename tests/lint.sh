#!/usr/bin/env bash
# Mechanical checks: every project C file includes banned.h (last), no
# tabs/spaces mixups are enforced by .clang-format/.editorconfig instead.
set -eu
cd "$(dirname "$0")/.."
bad=0
for f in $(git ls-files 'lib/*.c' 'lib/**/*.c' 'server/*.c' 'worker/*.c' 'cli/*.c'); do
	if ! grep -q '#include "banned.h"' "$f"; then
		echo "lint: '$f' does not include banned.h" >&2
		bad=1
	fi
done
exit $bad
