#!/usr/bin/env bash
# Integration tier: a throwaway PostgreSQL cluster, the real server on port
# 0, real HTTP. Needs REGTRACK_BIN (make check-integration sets it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export REGTRACK_TEST_TMP=${REGTRACK_TEST_TMP:-$(mktemp -d /tmp/regtrack-it.XXXXXX)}
cleanup() {
	rc=$?
	REGTRACK_PGDATA="$REGTRACK_TEST_TMP/pg" "$here/../../deploy/pg-local" stop >/dev/null 2>&1 || true
	if [ $rc -ne 0 ]; then
		# keep the server logs of a failed run
		for f in "$REGTRACK_TEST_TMP"/server-*.log; do
			[ -s "$f" ] && { echo "== $f"; tail -n 40 "$f"; }
		done
	fi
	rm -rf "$REGTRACK_TEST_TMP"
}
trap cleanup EXIT
cd "$here"
# every reply of the tests is recorded; after them, each is validated against docs/openapi.json
export REGTRACK_OPENAPI_LOG=${REGTRACK_OPENAPI_LOG:-$REGTRACK_TEST_TMP/replies.jsonl}
rm -f "$REGTRACK_OPENAPI_LOG"
# Debian's python3 (the one with python3-aiosmtpd), not a pyenv one first on PATH
/usr/bin/python3 -m unittest -v ${TESTS:-$(ls test_*.py | sed 's/\.py$//')}
echo "== the tests' replies against docs/openapi.json"
/usr/bin/python3 test_openapi.py --replies "$REGTRACK_OPENAPI_LOG"
