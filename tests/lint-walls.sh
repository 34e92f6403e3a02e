#!/usr/bin/env bash
# The wall between the server's domain rooms and its HTTP side, checked
# on what the compiler reads, not on the #include lines: the include
# closure (gcc -M, system headers too) of every source of the domain
# rooms (server/detect/: change detection and its records; server/track/:
# plans, the tree poller, the git mirrors; server/bisect/: the stepper and
# coordinator; server/jobs/: the lease queue, a job's completion, ingest;
# server/abtest/, server/mail/, server/inbox/) holds no libmicrohttpd
# header (microhttpd.h), nothing under server/http/ and nothing under
# server/api/. Each finding is printed
# as "file: includes HEADER", any finding is exit 1, and so is a source
# that does not preprocess (a rule that cannot run checks nothing), and
# so is a room with no source (a glob that matches nothing).
# Usage: tests/lint-walls.sh [ROOT]  (default: the tree; tests/lint.sh
# plants violations in a scratch ROOT with the same layout)
set -eu
cd "$(dirname "$0")/.."
root=${1:-.}
CC=${CC:-gcc}
# shellcheck disable=SC2206
pkg=($(pkg-config --cflags libmicrohttpd jansson libpq 2>/dev/null || true))
bad=0
cd "$root"
domain=(server/detect/*.c server/track/*.c server/bisect/*.c server/jobs/*.c server/abtest/*.c server/mail/*.c
	server/inbox/*.c)
for f in "${domain[@]}"; do
	if [ ! -f "$f" ]; then
		echo "$root/$f: missing (the wall checks named sources; update tests/lint-walls.sh)"
		bad=1
		continue
	fi
	if ! deps=$($CC -std=c11 -D_GNU_SOURCE -Ilib -I. "${pkg[@]}" -M "$f" 2>&1); then
		printf '%s: does not preprocess:\n%s\n' "$f" "$deps"
		bad=1
		continue
	fi
	for h in $(printf '%s\n' "$deps" | tr ' \\' '\n\n' | grep -E '(^|/)(microhttpd\.h|server/http/[^/]*\.h|server/api/[^/]*\.h)$' | sort -u); do
		echo "$f: includes $h (domain code never includes the HTTP side)"
		bad=1
	done
done
exit $bad
