#!/usr/bin/env bash
# Checks of lib/, worker/ and cli/ beside tests/lint-server.sh's of server/;
# each finding is printed as file:line: message, any finding is exit 1.
#  (a) no file of lib/, worker/ or cli/ over 700 lines unless one of its
#      first 30 lines says "Longer than 700 lines because"
#  (b) no history in the C of server/, lib/, worker/ and cli/: a comment does
#      not cite the issue that added the code ("issue 18", "issues 4, 19");
#      what changed and why goes to the commit message and docs/
# Usage: tests/lint-tree.sh [DIR...]  (default: the tree's; tests plant
# violations in a scratch copy and pass its directories)
set -eu
cd "$(dirname "$0")/.."
exec /usr/bin/python3 - "$@" <<'PY'
import os, re, sys

roots = sys.argv[1:] or ["server", "lib", "worker", "cli"]
bad = 0


def report(path, line, msg):
    global bad
    print(f"{path}:{line}: {msg}")
    bad = 1


history = re.compile(r"\bissues? #?[0-9]+", re.I)
for root in roots:
    # server/ has its own size rule (tests/lint-server.sh), with the same words
    size_rule = os.path.basename(os.path.normpath(root)) != "server"
    for d, _, fs in sorted(os.walk(root)):
        for name in sorted(fs):
            if not name.endswith((".c", ".h")):
                continue
            f = os.path.join(d, name)
            with open(f, encoding="utf-8", errors="replace") as fh:
                lines = fh.read().split("\n")
            n = len(lines) - (lines[-1] == "")
            reason = any("Longer than 700 lines because" in l for l in lines[:30])
            if size_rule and n > 700 and not reason:
                report(f, 1, f"{n} lines: split it by job, or say 'Longer than 700 "
                       "lines because ...' in its first 30 lines")
            for i, line in enumerate(lines, 1):
                m = history.search(line)
                if m:
                    report(f, i, f"'{m.group(0)}': history in a comment (say why, "
                           "not when; the issue goes to the commit message)")
sys.exit(bad)
PY
