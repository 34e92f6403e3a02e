#!/usr/bin/env bash
# Worker tier: the real server on a throwaway PostgreSQL cluster and the real
# regtrack-worker in host mode. Needs REGTRACK_BIN (make check-worker sets it)
# and the case binaries in bin/cases (make cases).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
export REGTRACK_BIN=${REGTRACK_BIN:-$top/bin}
export REGTRACK_CASES=${REGTRACK_CASES:-$top/bin/cases}
for p in regtrack-server regtrack-worker; do
	if [[ ! -x "$REGTRACK_BIN/$p" ]]; then
		echo "tests/worker: no '$REGTRACK_BIN/$p' (run make)" >&2
		exit 1
	fi
done
if [[ ! -x "$REGTRACK_CASES/$(uname -m)/small-allocs" ]]; then
	echo "tests/worker: no '$REGTRACK_CASES/$(uname -m)/small-allocs' (run make cases)" >&2
	exit 1
fi
export REGTRACK_TEST_TMP=${REGTRACK_TEST_TMP:-$(mktemp -d /tmp/regtrack-wt.XXXXXX)}
cleanup() {
	REGTRACK_PGDATA="$REGTRACK_TEST_TMP/pg" "$top/deploy/pg-local" stop >/dev/null 2>&1 || true
	rm -rf "$REGTRACK_TEST_TMP"
}
trap cleanup EXIT
cd "$here"
# Debian's python3, not another one first on PATH
/usr/bin/python3 -m unittest -v ${TESTS:-test_worker test_cases_store test_sandbox}
