#!/usr/bin/env bash
# Browser tier: installs what it needs (Debian's chromium via
# deploy/install-deps, pinned npm packages from the lock files), then runs
# test.mjs against a real server over a throwaway PostgreSQL cluster.
# Needs REGTRACK_BIN (make check-web sets it). Screenshots: tests/web/artifacts/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
"$top/deploy/install-deps"
npm_ci() {
	# the lock file is the pin: install again only when it changed since
	# the last install in this checkout
	local dir=$1
	if ! cmp -s "$dir/package-lock.json" "$dir/node_modules/.regtrack-installed-lock"; then
		(cd "$dir" && timeout 300 npm ci --no-audit --no-fund --loglevel=error)
		cp "$dir/package-lock.json" "$dir/node_modules/.regtrack-installed-lock"
	fi
}
npm_ci "$top/web"
npm_ci "$here"
# the served copy of uPlot must be the pinned package's
(cd "$top/web" && node tools/vendor.mjs --check)

export REGTRACK_TEST_TMP=${REGTRACK_TEST_TMP:-$(mktemp -d /tmp/regtrack-web.XXXXXX)}
export REGTRACK_PGDATA="$REGTRACK_TEST_TMP/pg" REGTRACK_PGPORT=$((20000 + $$ % 20000))
cleanup() {
	cp "$REGTRACK_TEST_TMP/server.log" "$here/artifacts/" 2>/dev/null || true
	"$top/deploy/pg-local" stop >/dev/null 2>&1 || true
	rm -rf "$REGTRACK_TEST_TMP"
}
trap cleanup EXIT
rm -rf "$here/artifacts"
mkdir -p "$here/artifacts"
cd "$here"
timeout 600 node test.mjs
