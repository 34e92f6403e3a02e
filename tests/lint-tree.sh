#!/usr/bin/env bash
# Checks of lib/, worker/ and cli/ beside tests/lint-server.sh's of server/;
# each finding is printed as file:line: message, any finding is exit 1.
#  (a) no file of lib/, worker/ or cli/ over 700 lines unless one of its
#      first 30 lines says "Longer than 700 lines because"
#  (b) no include cycle among the modules of lib/, worker/ and cli/: a.c and
#      a.h are module a, and so is a_x.c or a_x.h beside them (one job split
#      over files with its private header: kernel.c, kernel_build.c,
#      kernel_int.h); #include "x.h" is looked up as the compiler does with
#      the Makefile's -Ilib -I.: the including file's directory, then lib/,
#      then the root; headers outside these trees are leaves
#  (c) no history in the comments of server/, lib/, worker/ and cli/ (the
#      text of /* */ and // comments; string and character literals are
#      not comments: a mail's "If you fix the issue" is not history).
#      A comment does not say when or in which piece of work code came; that
#      goes to the commit message and docs/. Flagged, case-insensitive:
#        issue 18, issues 4, 19, issue #18      an issue's number
#        #18                                    a bare reference: '#' and
#                                               digits after a space, '(',
#                                               '[' or the comment's start
#        this round, last/previous/earlier/     a round or session of work
#        prior round (not "its last round":
#        a bisect's), last/previous/earlier/
#        prior session, session 12
#      Not flagged: RFC 5322, a kernel bugzilla 217465, "CPU#1", "&#39;",
#      an A/B request's "round 0", a bisect's "its last round", a
#      PostgreSQL "this session holds the lock".
# Usage: tests/lint-tree.sh [DIR...]  (default: the tree's; tests plant
# violations in a scratch copy and pass its directories, which share one
# parent: that parent plays the root for include lookups)
set -eu
cd "$(dirname "$0")/.."
exec /usr/bin/python3 - "$@" <<'PY'
import os, re, sys

sys.path.insert(0, "tests")
from lint_cycles import include_cycles  # noqa: E402

roots = sys.argv[1:] or ["server", "lib", "worker", "cli"]
base = os.path.dirname(os.path.normpath(roots[0])) or "."
bad = 0


def report(path, line, msg):
    global bad
    print(f"{path}:{line}: {msg}")
    bad = 1


def comments(text):
    """(line, text) for each line of each /* */ or // comment of C text."""
    out, i, n, line = [], 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j
            body = text[i + 2:j]
            out += [(line + k, l) for k, l in enumerate(body.split("\n"))]
            line += body.count("\n")
            i = j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append((line, text[i + 2:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        else:
            i += 1
    return out


history = [
    re.compile(r"\bissues?\s+#?[0-9]+", re.I),
    re.compile(r"(?:^|(?<=[\s(\[]))#[0-9]+\b"),
    re.compile(r"\bthis\s+round\b|(?<!\bits )\b(?:last|previous|earlier|prior)\s+round\b", re.I),
    re.compile(r"\b(?:last|previous|earlier|prior)\s+session\b|\bsession\s+[0-9]+\b", re.I),
]

files, texts = [], {}
for root in roots:
    for d, _, fs in sorted(os.walk(root)):
        for name in sorted(fs):
            if name.endswith((".c", ".h")):
                f = os.path.join(d, name)
                files.append(f)
                with open(f, encoding="utf-8", errors="replace") as fh:
                    texts[f] = fh.read()

for f in files:
    lines = texts[f].split("\n")
    n = len(lines) - (lines[-1] == "")
    # (a) server/ has its own size rule (tests/lint-server.sh), with the same words
    top = os.path.relpath(f, base).split(os.sep)[0]
    reason = any("Longer than 700 lines because" in l for l in lines[:30])
    if top != "server" and n > 700 and not reason:
        report(f, 1, f"{n} lines: split it by job, or say 'Longer than 700 "
               "lines because ...' in its first 30 lines")
    # (c) history in comments
    for i, text in comments(texts[f]):
        for rule in history:
            m = rule.search(text)
            if m:
                report(f, i, f"'{m.group(0)}': history in a comment (say why, "
                       "not when; that goes to the commit message)")

# (b) include cycles outside server/ (tests/lint-server.sh checks server/'s)
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
known = set(files)


def module(f):
    """a.c, a.h, and a_x.c or a_x.h when a.c or a.h sits beside them: a."""
    stem = os.path.splitext(f)[0]
    head = os.path.join(os.path.dirname(stem), os.path.basename(stem).split("_")[0])
    if head != stem and (head + ".c" in known or head + ".h" in known):
        return head
    return stem


edges = {}  # module -> {module: (file, line)}
for f in files:
    if os.path.relpath(f, base).split(os.sep)[0] == "server":
        continue
    mod = module(f)
    edges.setdefault(mod, {})
    for i, line in enumerate(texts[f].split("\n"), 1):
        m = inc.match(line)
        if not m:
            continue
        for d in (os.path.dirname(f), os.path.join(base, "lib"), base):
            target = os.path.normpath(os.path.join(d, m.group(1)))
            if os.path.isfile(target):
                break
        else:
            continue
        if target not in known:
            continue
        to = module(target)
        if to != mod and to not in edges[mod]:
            edges[mod][to] = (f, i)

for cyc in include_cycles(edges):
    for a, b in zip(cyc, cyc[1:]):
        f, i = edges[a][b]
        report(f, i, "include cycle: " + " -> ".join(os.path.relpath(m, base) for m in cyc))

sys.exit(bad)
PY
