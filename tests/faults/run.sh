#!/usr/bin/env bash
# make check-faults: the long fault scenarios (tests/faults/faults.py), each
# printing its figures. Needs REGTRACK_BIN (and REGTRACK_LOADMIX, the load
# client make check-faults builds). FAULTS="kill-server load" for some.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export REGTRACK_TEST_TMP=${REGTRACK_TEST_TMP:-$(mktemp -d /tmp/regtrack-faults.XXXXXX)}
cleanup() {
	REGTRACK_PGDATA="$REGTRACK_TEST_TMP/pg" "$here/../../deploy/pg-local" stop >/dev/null 2>&1 || true
	rm -rf "$REGTRACK_TEST_TMP"
}
trap cleanup EXIT
timeout 2700 /usr/bin/python3 "$here/faults.py" ${FAULTS:-}
