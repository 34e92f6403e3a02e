#!/usr/bin/env bash
# Integration tier: a throwaway PostgreSQL cluster, the real server on port
# 0, real HTTP. Needs REGTRACK_BIN (make check-integration sets it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export REGTRACK_TEST_TMP=${REGTRACK_TEST_TMP:-$(mktemp -d /tmp/regtrack-it.XXXXXX)}
cleanup() {
	REGTRACK_PGDATA="$REGTRACK_TEST_TMP/pg" "$here/../../deploy/pg-local" stop >/dev/null 2>&1 || true
	rm -rf "$REGTRACK_TEST_TMP"
}
trap cleanup EXIT
cd "$here"
# Debian's python3 (the one with python3-aiosmtpd), not a pyenv one first on PATH
/usr/bin/python3 -m unittest -v ${TESTS:-$(ls test_*.py | sed 's/\.py$//')}
