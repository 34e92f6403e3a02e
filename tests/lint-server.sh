#!/usr/bin/env bash
# Structural checks of server/; each finding is printed as
# file:line: message, and any finding makes the exit status 1.
#  (a) the PQgetvalue family (row and column reads) only under server/db/
#  (b) no include cycle among server's modules (a.c and a.h are one
#      module; the graph is built from #include "server/..." lines)
#  (c) no file over 700 lines unless one of its first 30 lines says
#      "Longer than 700 lines because"
#  (d) no "add below" markers
#  (e) the rooms' arrows (docs/ARCHITECTURE.md): server/db/ includes nothing
#      of HTTP (microhttpd.h, server/http/) and nothing of server/api/; only
#      server/api/, server/http/http.c and server/main.c include server/api/
#      headers
#  (f) the store is a type: outside server/db/ no statement id (ST_*), no
#      libpq (a PQ* call or constant, PGconn, PGresult, PGnotify, an
#      #include of libpq or of db/'s own headers db_int.h and stmts.h) and
#      no SQL in a string literal (SELECT, INSERT INTO, UPDATE .. SET,
#      DELETE FROM, COPY, SAVEPOINT, LISTEN, NOTIFY): callers hold a
#      struct db_conn and call db/'s typed functions (server/db/db.h)
#  (g) the HTTP side is a room: outside server/http/, server/api/ and
#      server/main.c no #include of <microhttpd.h> or of a server/http/
#      header, and no libmicrohttpd call or constant (MHD_lookup_connection_value,
#      MHD_add_response_header, MHD_HTTP_HEADER_*, MHD_HTTP_OK, ...): request
#      and reply headers are read and written only there. A pointer to one
#      of its structs (server.h's struct MHD_Daemon *) is no call and passes;
#      so does header text in a string (a mail's curl -H line).
# Usage: tests/lint-server.sh [ROOT]  (default: the tree; tests/lint.sh
# plants violations in a scratch ROOT that holds a server/ of its own)
set -eu
cd "$(dirname "$0")/.."
exec /usr/bin/python3 - "$PWD/tests" "$@" <<'PY'
import os, re, sys

sys.path.insert(0, sys.argv[1])
from lint_cycles import include_cycles  # noqa: E402

if len(sys.argv) > 2:
    os.chdir(sys.argv[2])

ROOT = "server"
files = sorted(
    os.path.join(d, f)
    for d, _, fs in os.walk(ROOT)
    for f in fs
    if f.endswith((".c", ".h"))
)
bad = 0


def report(path, line, msg):
    global bad
    print(f"{path}:{line}: {msg}")
    bad = 1


texts = {}
for f in files:
    with open(f, encoding="utf-8", errors="replace") as fh:
        texts[f] = fh.read().split("\n")

# (a) row reads of libpq outside server/db/
pq = re.compile(r"\bPQ(getvalue|getisnull|getlength|ntuples|nfields|fnumber)\b")
for f in files:
    if f.startswith(os.path.join(ROOT, "db") + os.sep):
        continue
    for i, line in enumerate(texts[f], 1):
        m = pq.search(line)
        if m:
            report(f, i, f"{m.group(0)} outside server/db/ (read rows in a server/db/ function)")

# (b) include cycles between modules (a.c + a.h = module a)
inc = re.compile(r'^\s*#\s*include\s+"(server/[^"]+\.h)"')
edges = {}  # module -> {module: (file, line)}
for f in files:
    mod = os.path.splitext(f)[0]
    edges.setdefault(mod, {})
    for i, line in enumerate(texts[f], 1):
        m = inc.match(line)
        if not m:
            continue
        to = os.path.splitext(m.group(1))[0]
        if to != mod and to not in edges[mod]:
            edges[mod][to] = (f, i)

for cyc in include_cycles(edges):
    for a, b in zip(cyc, cyc[1:]):
        f, i = edges[a][b]
        report(f, i, "include cycle: " + " -> ".join(cyc))

# (c) long files need their reason at the top
for f in files:
    n = len(texts[f]) - (texts[f][-1] == "")
    if n > 700 and not any("Longer than 700 lines because" in l for l in texts[f][:30]):
        report(f, 1, f"{n} lines: split it, or say 'Longer than 700 lines because ...' in its first 30 lines")

# (d) no "add below" markers
for f in files:
    for i, line in enumerate(texts[f], 1):
        if "add below" in line.lower():
            report(f, i, "'add below' marker: keep the list sorted instead")

# (e) rooms
http_inc = re.compile(r'^\s*#\s*include\s+[<"](microhttpd\.h|server/http/[^">]+|server/api/[^">]+)[">]')
api_inc = re.compile(r'^\s*#\s*include\s+"server/api/[^"]+"')
db_dir = os.path.join(ROOT, "db") + os.sep
api_dir = os.path.join(ROOT, "api") + os.sep
http_dir = os.path.join(ROOT, "http") + os.sep
main_c = os.path.join(ROOT, "main.c")
for f in files:
    for i, line in enumerate(texts[f], 1):
        if f.startswith(db_dir) and http_inc.match(line):
            report(f, i, "server/db/ includes the HTTP side or server/api/: the store knows no requests")
        elif (api_inc.match(line) and not f.startswith(api_dir)
              and f not in (os.path.join(http_dir, "http.c"), main_c)):
            report(f, i, "only server/api/, http/http.c and main.c include server/api/ headers")

# (f) the store's walls
store = re.compile(r"\b(ST_[A-Z][A-Z0-9_]*|PQ[a-zA-Z]+|PGconn|PGresult|PGnotify|CONNECTION_OK)\b")
store_inc = re.compile(r'^\s*#\s*include\s+[<"](libpq[^">]*|server/db/db_int\.h|server/db/stmts\.h)[">]')
literal = re.compile(r'"(?:[^"\\\n]|\\.)*"')
sql = re.compile(r"\b(SELECT|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|COPY|SAVEPOINT|LISTEN|NOTIFY)\s")
for f in files:
    if f.startswith(db_dir):
        continue
    for i, line in enumerate(texts[f], 1):
        m = store_inc.match(line) or store.search(line)
        if m:
            report(f, i, f"{m.group(0).strip()} outside server/db/ (call a typed function of server/db/)")
            continue
        for lit in literal.findall(line):
            m = sql.search(lit)
            if m:
                report(f, i, f"SQL ({m.group(1)}) in a string outside server/db/ (move it to server/db/)")
                break

# (g) the HTTP side's room: libmicrohttpd and request/reply headers
mhd_inc = re.compile(r'^\s*#\s*include\s+[<"](microhttpd\.h|server/http/[^">]+)[">]')
# a call (MHD_lowercase) or a constant (MHD_ALL_CAPS: MHD_HTTP_HEADER_*,
# MHD_YES); MHD_Daemon, MHD_Connection and the other struct names are not
mhd_name = re.compile(r"\bMHD_(?:[a-z]\w*|[A-Z0-9_]+\b)")
for f in files:
    if f.startswith((http_dir, api_dir)) or f == main_c:
        continue
    for i, line in enumerate(texts[f], 1):
        m = mhd_inc.match(line)
        name = m.group(1) if m else None
        if not m:
            m = mhd_name.search(literal.sub('""', line))
            name = m.group(0) if m else None
        if name:
            report(f, i, f"{name} outside server/http/, server/api/ and main.c "
                   "(the HTTP side reads and writes headers; pass values, not the request)")

sys.exit(bad)
PY
