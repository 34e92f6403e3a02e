"""make bench: regtrack's performance figures, each beside a baseline
measured in the same run on the same machine, with the ratio.

Run by bench/run.sh (which builds bench/loadgen and bench/detect_bench
first) with Debian's /usr/bin/python3; standard library only. Uses the
integration harness (tests/integration/harness.py): a throwaway PostgreSQL
cluster and the real regtrack-server on port 0.

BENCH_ONLY=ingest,http (a comma-separated subset of ingest, ingest-1 (one
value a metric, both sides), compare, series, http, detect, detect-noise,
realcpd, tip, worker, bisect, profile, kernel, kexec, perf, parse, flame) runs just those steps; the server and its PostgreSQL cluster are
started only when a chosen step needs them (BENCH_ONLY=parse or realcpd starts
neither).

perf (bench/perf_perturb.sh) runs where a warm worker cache is
(REGTRACK_CACHE, default var/cache; BENCH_PERF=1 builds one, BENCH_PERF=0
skips, BENCH_PERF=FILE.json shows a saved output).

Every timed figure is repeated (BENCH_REPS, default 5) with the figure and
its baseline interleaved, so a noisy neighbour hits both; the table shows
the median and the spread (min..max) and the ratio of the medians. Output:
the table on stdout and bench/results.json. Nothing is asserted: a missed
target is marked "MISS" and the exit status is still 0.
"""
import json
import math
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tests", "integration"))
import harness  # noqa: E402

BIN = os.environ.get("REGTRACK_BIN", os.path.join(TOP, "bin"))
harness.BIN = BIN
PROGS = os.environ["BENCH_PROGS"]          # where run.sh built loadgen, detect_bench
LOADGEN = os.path.join(PROGS, "loadgen")
REPS = int(os.environ.get("BENCH_REPS", "5"))
OUT = os.environ.get("BENCH_OUT", os.path.join(TOP, "bench", "results.json"))

NM = 5000          # metrics per document
REPL = 3           # replicates per metric
CLIENTS = 4
DOCS = int(os.environ.get("BENCH_INGEST_DOCS", "24"))   # per repetition

results = []       # rows of the table and of results.json


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run(args, timeout=300, **kw):
    out = subprocess.run([str(a) for a in args], capture_output=True, text=True,
                         timeout=timeout, **kw)
    if out.returncode:
        raise RuntimeError("%s: exit %d: %s" % (args[0], out.returncode, out.stderr[-2000:]))
    return out


def loadgen(*args, timeout=300):
    return json.loads(run([LOADGEN] + list(args), timeout=timeout).stdout)


def summary(xs):
    xs = sorted(xs)
    return {"median": statistics.median(xs), "min": xs[0], "max": xs[-1], "n": len(xs),
            "samples": xs}


def add(name, unit, value, baseline=None, base_name=None, target=None, better="lower",
        note=None, ratio_target=None, ratio_better=None):
    """One figure: value and baseline are summary() dicts (or None)."""
    row = {"name": name, "unit": unit, "value": value, "baseline": baseline,
           "baseline_name": base_name, "target": target, "better": better, "note": note,
           "ratio": None, "ratio_target": ratio_target}
    if value and baseline and baseline["median"]:
        row["ratio"] = value["median"] / baseline["median"]
    miss = []
    if value and target is not None:
        m = value["median"]
        if (better == "lower" and m > target) or (better == "higher" and m < target):
            miss.append("target")
    if row["ratio"] is not None and ratio_target is not None:
        rb = ratio_better or better
        r = row["ratio"]
        if (rb == "lower" and r > ratio_target) or (rb == "higher" and r < ratio_target):
            miss.append("ratio")
    row["miss"] = miss
    results.append(row)
    return row


def skip(name, why):
    results.append({"name": name, "skipped": why})


def conninfo(srv):
    return srv.cluster.base_conninfo.replace("dbname=regtrack", "dbname=" + srv.dbname)


def proc_status(pid, key):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])      # kB
    except OSError:
        return None
    return None


def smaps_rollup(pid):
    """/proc/PID/smaps_rollup as {field: kB} ({} when unreadable)."""
    out = {}
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            for line in f:
                k, _, rest = line.partition(":")
                if rest.strip().endswith("kB"):
                    out[k] = int(rest.split()[0])
    except OSError:
        pass
    return out


# ---- ingest ------------------------------------------------------------------

CLK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids):
    """user+system CPU seconds of these processes (those that still exist)."""
    t = 0
    for pid in pids:
        try:
            with open("/proc/%d/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            t += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return t / CLK


def timed_cpu(srv, fn):
    """fn() while counting the CPU of the server and of PostgreSQL; backends
    that exit during fn (the COPY client's) are counted by cutime of the
    postmaster, so read both."""
    pm = srv.cluster.pids()[0]

    def reaped():
        with open("/proc/%d/stat" % pm) as f:
            x = f.read().rsplit(")", 1)[1].split()
        return (int(x[13]) + int(x[14])) / CLK
    before = {p: cpu_seconds([p]) for p in srv.cluster.pids()}
    r0, s0 = reaped(), cpu_seconds([srv.proc.pid])
    out = fn()
    after = {p: cpu_seconds([p]) for p in srv.cluster.pids()}
    pg = sum(after[p] - before.get(p, 0) for p in after) + reaped() - r0
    return out, cpu_seconds([srv.proc.pid]) - s0, pg

def bench_ingest(srv, repl=REPL):
    """ingest vs COPY with repl values a metric; repl=1 is the common case (LKP's
    stats are one number a run): both sides the same 1-value, NM-metric rows"""
    tc = "bench-ingest" if repl == REPL else "bench-ingest%d" % repl
    tag = "" if repl == REPL else ", %d value a metric" % repl
    log("ingest: %d clients, %d documents of %d metrics x %d values per repetition"
        % (CLIENTS, DOCS, NM, repl))
    tok = srv.tokens["submit"]
    # warm-up: registers the metric names, the setup and the commit
    w = loadgen("ingest", srv.url, tok, CLIENTS, CLIENTS, NM, repl, 1, tc, 1)
    if w["errors"]:
        raise RuntimeError("warm-up ingest failed")
    loadgen("copy", conninfo(srv), CLIENTS, CLIENTS, NM, repl, 1, tc)
    api, copy, api_cpu, copy_cpu, split = [], [], [], [], []
    for rep in range(REPS):
        a, s_cpu, pg_cpu = timed_cpu(srv, lambda: loadgen(
            "ingest", srv.url, tok, CLIENTS, DOCS, NM, repl, 100 + rep, tc, 1))
        if a["errors"]:
            raise RuntimeError("%d ingest errors" % a["errors"])
        c, _, c_pg = timed_cpu(srv, lambda: loadgen(
            "copy", conninfo(srv), CLIENTS, DOCS, NM, repl, 100 + rep, tc))
        api.append(a["values"] / a["seconds"])
        copy.append(c["values"] / c["seconds"])
        # values per CPU-second of server + PostgreSQL: steadier on a shared machine
        api_cpu.append(a["values"] / max(s_cpu + pg_cpu, 1e-3))
        copy_cpu.append(c["values"] / max(c_pg, 1e-3))
        split.append((s_cpu, pg_cpu, c_pg))
    add("ingest POST /api/v1/results" + tag, "values/s", summary(api), summary(copy),
        "COPY into run_values (same rows, 4 conns)", better="higher",
        ratio_target=0.6, ratio_better="higher",
        note="%d clients, %d-metric x %d-value documents" % (CLIENTS, NM, repl))
    sm = statistics.median
    add("ingest, values per CPU-second" + tag, "values/cs", summary(api_cpu), summary(copy_cpu),
        "COPY, PostgreSQL CPU only", better="higher", ratio_target=0.6, ratio_better="higher",
        note="CPU s per repetition: server %.2f + PostgreSQL %.2f vs COPY's PostgreSQL %.2f"
        % (sm([x[0] for x in split]), sm([x[1] for x in split]), sm([x[2] for x in split])))
    hwm = proc_status(srv.proc.pid, "VmHWM")
    return hwm


# ---- compare and series -------------------------------------------------------

SERIES_COMMITS = 20000
SERIES_RUNS = 5        # per commit: 10^5 points

# The server's session settings (server/db/db.c prepare_all: work_mem 64MB).
# The raw-SQL baselines and the statement-alone diagnoses run with them too:
# at PostgreSQL's default 4MB the baseline's sort of 10^5 rows spilled to
# disk ("external merge", 14 MB) where the server's sorts in memory, so the
# baseline was slower than it needs to be.
SESSION_OPTIONS = "-c work_mem=64MB"


def sql_conninfo(srv):
    return "%s options='%s'" % (conninfo(srv), SESSION_OPTIONS)


def settle(srv):
    """After a bulk load: what autovacuum would do a little later (VACUUM
    sets the visibility map and hint bits, ANALYZE the statistics), done now
    so that every repetition meets the same tables, not one still being
    vacuumed in the background."""
    for t in ("commits", "runs", "run_values", "setups", "metrics", "testcases"):
        srv.psql("VACUUM ANALYZE %s" % t)


def load_series(srv):
    """10^5 points of one metric in one setup, written with SQL (fast)."""
    t0 = time.time()
    srv.psql("""
INSERT INTO testcases (name) VALUES ('bench-series');
INSERT INTO metrics (name, unit, higher_is_better) VALUES ('bench.series', 'ops', true);
INSERT INTO setups (testcase_id, params, params_key, kconfig, compiler, tbox_group)
  SELECT id, '{}', '{}', 'x86_64-defconfig', 'gcc-12', 'bench-2p' FROM testcases
  WHERE name = 'bench-series';
INSERT INTO commits (sha, subject, commit_time)
  SELECT md5(i::text) || substr(md5('s' || i), 1, 8), 'bench commit ' || i,
         timestamptz '2026-01-01' + i * interval '1 minute'
  FROM generate_series(1, %d) i;
INSERT INTO runs (run_id, commit_id, setup_id, doc_sha256)
  SELECT md5('run' || c.id || '-' || k)::uuid, c.id, s.id, '\\x00'
  FROM commits c CROSS JOIN generate_series(1, %d) k
  CROSS JOIN (SELECT s.id FROM setups s JOIN testcases t ON t.id = s.testcase_id
              WHERE t.name = 'bench-series') s
  WHERE c.subject LIKE 'bench commit %%';
INSERT INTO run_values (run_id, metric_id, vals)
  SELECT r.id, m.id, ARRAY[1000 + (r.id %% 97), 1001 + (r.id %% 89), 999 + (r.id %% 83)]::float8[]
  FROM runs r JOIN setups s ON s.id = r.setup_id JOIN testcases t ON t.id = s.testcase_id
  CROSS JOIN metrics m WHERE t.name = 'bench-series' AND m.name = 'bench.series';
""" % (SERIES_COMMITS, SERIES_RUNS))
    settle(srv)
    log("series: %d points loaded in %.1f s" % (SERIES_COMMITS * SERIES_RUNS, time.time() - t0))


def time_pair(url, sql_args, reps):
    """Interleaved: REPS x (API GET, raw SQL), each call does `reps` timings."""
    api, raw = [], []
    info = {}
    for _ in range(REPS):
        g = loadgen("get", url, reps)
        if g["status"] != 200:
            raise RuntimeError("GET %s: %d" % (url, g["status"]))
        api.append(statistics.median(g["ms"]))
        s = loadgen(*sql_args[:1], sql_args[1], reps, *sql_args[2:])
        raw.append(statistics.median(s["ms"]))
        info = {"bytes": g["bytes"], "rows": s["rows"]}
    return summary(api), summary(raw), info


def bench_compare(srv):
    tok = srv.tokens["submit"]
    a = loadgen("ingest", srv.url, tok, 2, 12, NM, REPL, 7, "bench-compare", 2)
    if a["errors"]:
        raise RuntimeError("compare data: ingest errors")
    base, head = a["commits"]
    settle(srv)
    url = "%s/api/v1/compare?base=%s&head=%s&testcase=bench-compare" % (srv.url, base, head)
    ids = srv.psql("SELECT string_agg(id::text, ' ' ORDER BY sha = '%s' DESC) FROM commits "
                   "WHERE sha IN ('%s', '%s')" % (base, base, head)).split()
    # the raw query: the same (run, metric, values) rows, straight from the
    # tables by the commits' ids (as the server looks them up first). With
    # the ids behind a subquery on sha the planner cannot tell which commits:
    # here 3 commits, one (the ingest figure's) with 248 of the 260 runs, so
    # it expected 2/3 of run_values and seq-scanned all 1.3 million rows
    # (EXPLAIN ANALYZE: 630 ms where the index path takes 30).
    raw_sql = ("SELECT r.setup_id, v.metric_id, r.commit_id, v.vals FROM runs r "
               "JOIN run_values v ON v.run_id = r.id "
               "WHERE r.commit_id IN ($1::bigint, $2::bigint)")
    api, raw, info = time_pair(url, ["sql", sql_conninfo(srv), raw_sql, ids[0], ids[1]], 5)
    add("compare API (2 commits x 6 runs x 5,000)", "ms", api, raw,
        "raw SQL of the same %d rows" % info["rows"], target=20, ratio_target=2,
        note="%d bytes of JSON" % info["bytes"])
    # the same means as the server reads them since sql/0011: one run_means
    # row per run, in binary
    means_sql = ("SELECT r.setup_id, r.commit_id, m.metric_ids, m.means FROM runs r "
                 "JOIN run_means m ON m.run_id = r.id WHERE r.commit_id IN ($1::bigint, $2::bigint)")
    os.environ["LOADGEN_BINARY"] = "1"
    try:
        rm = [statistics.median(loadgen("sql", sql_conninfo(srv), 5, means_sql, ids[0],
                                        ids[1])["ms"]) for _ in range(3)]
        # diagnosis: the server's own statements (server/db/stmts_*.c) alone
        # the filters after the testcase are left out: loadgen sends them as NULL
        st = [statistics.median(loadgen("stmt", sql_conninfo(srv), 5, "compare", ids[0], ids[1],
                                        "bench-compare")["ms"]) for _ in range(3)]
    finally:
        del os.environ["LOADGEN_BINARY"]
    add("  compare: raw SQL of the 12 run_means rows (binary)", "ms", summary(rm), raw,
        "raw SQL of the 60,000 run_values rows",
        note="the same means, one row per run (sql/0011)")
    add("  compare: the server's SQL (ST_COMPARE) alone", "ms", summary(st),
        raw, "raw SQL", note="diagnosis: API time minus this = the metrics' names "
        "(ST_COMPARE_METRICS), the merge, statistics, JSON and HTTP")
    return base, head


def bench_series(srv):
    load_series(srv)
    url = "%s/api/v1/series?testcase=bench-series&metric=bench.series" % srv.url
    raw_sql = ("SELECT c.sha, r.run_id, v.vals FROM run_values v "
               "JOIN runs r ON r.id = v.run_id JOIN commits c ON c.id = r.commit_id "
               "WHERE v.metric_id = (SELECT id FROM metrics WHERE name = $1) "
               "AND r.setup_id = (SELECT s.id FROM setups s JOIN testcases t "
               "ON t.id = s.testcase_id WHERE t.name = $2) "
               "ORDER BY c.topo_order NULLS LAST, c.commit_time NULLS LAST, c.first_seen, "
               "c.id, r.id")
    api, raw, info = time_pair(url, ["sql", sql_conninfo(srv), raw_sql, "bench.series",
                                     "bench-series"], 2)
    add("series API (10^5 points)", "ms", api, raw, "raw SQL of the same %d rows" % info["rows"],
        target=30, ratio_target=2, note="%d bytes of JSON" % info["bytes"])
    # in binary, as the server reads it (api/series.c, db_query() with binary 1)
    os.environ["LOADGEN_BINARY"] = "1"
    try:
        st = [statistics.median(loadgen("stmt", sql_conninfo(srv), 2, "series", "bench.series",
                                        "bench-series")["ms"]) for _ in range(2)]
    finally:
        del os.environ["LOADGEN_BINARY"]
    add("  series: the server's SQL (ST_SERIES) alone", "ms", summary(st), raw, "raw SQL",
        note="diagnosis: the points, unordered, in binary; API time minus this = the "
        "commits' query (ST_SERIES_COMMITS), the sort in api_series.c, HTTP and JSON")


# ---- change-point detection (bench/detect_bench.c, by the stats engineer) -------

def bench_detect():
    exe = os.path.join(PROGS, "detect_bench")
    if not os.path.exists(exe):
        skip("change-point detection", "bench/detect_bench did not build")
        return
    full, inc, qs, bs, cs, cl = [], [], [], [], [], []
    for _ in range(max(1, REPS // 2)):
        out = run([exe], timeout=300).stdout
        vals = {}
        for line in out.splitlines():
            if ":" not in line:
                continue
            k, _, rest = line.partition(":")
            try:
                vals[k.strip()] = float(rest.split()[0])
            except (ValueError, IndexError):
                pass
        full.append(vals["detect 10,000-point series (%s runs)" % _runs(out)])
        inc.append(vals["append one run, incremental detect"])
        qs.append(vals["baseline qsort of the same values"])
        bs.append(vals["baseline L2 binary segmentation"])
        cs.append(vals.get("compare 2 commits x 6 runs x 5,000"))
        cl.append(vals.get("baseline mean + %stddev only"))
    add("detect, 10^4-point series", "ms", summary(full), summary(bs),
        "L2 binary segmentation (same series)", target=10,
        note="qsort of the values: %.3f ms" % statistics.median(qs))
    add("detect, one appended run (incremental)", "ms", summary(inc), summary(full),
        "full detect of the series", target=1)
    if None not in cs and None not in cl:
        add("  compare: statistics alone (2 x 6 x 5,000)", "ms", summary(cs), summary(cl),
            "mean + %stddev only (as LKP)",
            note="diagnosis, from bench/detect_bench: the compare API's computing part")


def bench_detect_noise():
    """bench/detect_noise.c: false alarms per 1000 points and F1 by noise kind, beside
    L2 binary segmentation (printed as its table)."""
    exe = os.path.join(PROGS, "detect_noise")
    if not os.path.exists(exe):
        skip("detector by noise kind", "bench/detect_noise did not build")
        return
    out = run([exe], timeout=300).stdout
    results.append({"name": "detector by noise kind (bench/detect_noise)", "raw": out.strip()})


# ---- real labelled series (tests/fixtures/realcpd) -----------------------

# TCPDBench's published defaults over the 25 datasets of tests/fixtures/realcpd/tcpd in
# the paper's averages (van den Burg & Williams 2020; the fixtures' README): F1, cover
TCPD_PUBLISHED = [("binseg", .690, .655), ("pelt", .684, .656), ("bocpd", .657, .591),
                  ("amoc", .647, .657), ("zero", .647, .557), ("segneigh", .623, .632),
                  ("cpnp", .602, .510), ("ecp", .596, .511)]


def score_dir(d):
    """regtrack detect --score DIR --json: the CLI's own figures (lib/stats/cpdscore)."""
    return json.loads(run([os.path.join(BIN, "regtrack"), "detect", "--score",
                           os.path.join(TOP, "tests", "fixtures", "realcpd", d), "--json"],
                          timeout=300).stdout)


def bench_realcpd():
    """The default detector on the TCPD benchmark and on Perfherder's triaged series,
    scored as `regtrack detect --score`, beside the published defaults and no detection."""
    t = score_dir("tcpd")
    avg = t["average"]
    lines = ["TCPD: %d datasets in the paper's averages (left out, as the paper: %s)"
             % (avg["n_series"], ", ".join(avg["left_out"])),
             "%-20s %5s %5s %6s %6s   %s" % ("dataset", "n", "pred", "F1", "cover",
                                             "no detection F1 / cover")]
    for x in t["series"]:
        if x["averaged"]:
            lines.append("%-20s %5d %5d %6.3f %6.3f   %.3f / %.3f" % (
                x["name"], x["n"], len(x["predictions"]), x["f1"], x["cover"],
                x["zero_f1"], x["zero_cover"]))
    lines.append("%-20s %11s %6.3f %6.3f   (measured no detection: %.3f / %.3f)" % (
        "regtrack average", "", avg["f1"], avg["cover"], avg["zero_f1"], avg["zero_cover"]))
    lines.append("published defaults, F1 / cover: " + ", ".join(
        "%s %.3f / %.3f" % m for m in TCPD_PUBLISHED))
    best_f1 = max(m[1] for m in TCPD_PUBLISHED)
    best_cover = max(m[2] for m in TCPD_PUBLISHED)
    p = score_dir("perfherder")
    pa, pal = p["average"], p["alerts"]
    lines.append("")
    lines.append("Perfherder: %d series, %d points, %d true changes (TP/FN), %d detections"
                 % (pal["series"], pal["points"], pal["changes"], pal["predictions"]))
    lines.append("  recall within +-%d: %d/%d (%.3f); within +-%d: %d/%d (%.3f)" % (
        p["margin"], pal["found_5"], pal["changes"], pal["recall_5"], p["margin_wide"],
        pal["found_20"], pal["changes"], pal["recall_20"]))
    lines.append("  detections more than %d from every alert: %d, %.2f per 1000 points "
                 "(%d of them at most %d before an alert: the step found before its alert)" % (
                     p["far_distance"], pal["far"], pal["far_per_1000"], pal["far_early"],
                     p["margin_wide"]))
    lines.append("  F1 %.3f (no detection %.3f), cover %.3f (no detection %.3f)" % (
        pa["f1"], pa["zero_f1"], pa["cover"], pa["zero_cover"]))
    results.append({"name": "real labelled series (regtrack detect --score, "
                    "tests/fixtures/realcpd)", "raw": "\n".join(lines)})
    def one(v):
        return summary([v])
    add("TCPD F1, 25 datasets", "F1", one(avg["f1"]), one(best_f1),
        "best published default (binseg)", target=0.72, better="higher")
    add("TCPD cover, 25 datasets", "cover", one(avg["cover"]), one(best_cover),
        "best published default (amoc)", target=0.68, better="higher")
    add("Perfherder recall of true changes, +-5", "recall", one(pal["recall_5"]), None, None,
        target=0.7, better="higher")
    add("Perfherder recall of true changes, +-20", "recall", one(pal["recall_20"]), None, None,
        target=0.8, better="higher")
    add("Perfherder detections far from any alert", "/1000 pts", one(pal["far_per_1000"]),
        None, None, target=2)
    add("Perfherder F1", "F1", one(pa["f1"]), one(pa["zero_f1"]), "no detection",
        target=pa["zero_f1"] + 0.05, better="higher")


def bench_tip():
    """bench/tip_delay.c: tested commits after a step until its regression is recorded
    (confirmed, what the auto-bisect takes), with the tip check vs the detector alone."""
    exe = os.path.join(PROGS, "tip_delay")
    if not os.path.exists(exe):
        skip("reports at the tip", "bench/tip_delay did not build")
        return
    out = run([exe], timeout=300).stdout
    samples = {}
    for line in out.splitlines():
        if line.startswith("samples "):
            name, _, vals = line[len("samples "):].partition(":")
            samples[name] = [float(x) for x in vals.split()]
    for step in ("-2%", "-3%", "-5%", "-10%"):
        tip, alone = samples.get("tip " + step), samples.get("alone_confirmed " + step)
        if tip and alone:
            add("delay to a confirmed record, %s step (tested commits)" % step, "commits",
                summary(tip), summary(alone), "detector alone", target=1,
                note="detector alone records (new) after %g" % statistics.median(
                    samples.get("alone_recorded " + step, [float("nan")])))
    results.append({"name": "reports at the tip (bench/tip_delay)",
                    "raw": "\n".join(x for x in out.splitlines() if not x.startswith("samples"))})


def _runs(out):
    for line in out.splitlines():
        if line.startswith("detect 10,000-point series ("):
            return line.split("(")[1].split()[0]
    return "?"


# ---- HTTP requests/s vs nginx --------------------------------------------------

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wrk(url, secs=3, conns=16):
    out = run(["wrk", "-t2", "-c%d" % conns, "-d%ds" % secs, url], timeout=secs + 30).stdout
    rps = None
    non2xx = 0
    for line in out.splitlines():
        if line.startswith("Requests/sec:"):
            rps = float(line.split()[1])
        if "Non-2xx" in line:
            non2xx = int(line.split()[-1])
    if rps is None or non2xx:
        raise RuntimeError("wrk %s: %s" % (url, out))
    return rps


def start_nginx(tmp):
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not os.path.exists(nginx):
        return None, None
    port = free_port()
    www = os.path.join(tmp, "www")
    os.makedirs(www)
    os.makedirs(os.path.join(tmp, "logs"))
    with open(os.path.join(www, "healthz.json"), "w") as f:
        f.write('{"status":"ok","database":"ok"}')
    os.chmod(tmp, 0o755)
    os.chmod(www, 0o755)
    conf = os.path.join(tmp, "nginx.conf")
    with open(conf, "w") as f:
        f.write("""daemon off;
worker_processes auto;
pid %(t)s/nginx.pid;
error_log %(t)s/logs/error.log warn;
events { worker_connections 1024; }
http {
	access_log off;
	client_body_temp_path %(t)s/body;
	proxy_temp_path %(t)s/proxy;
	fastcgi_temp_path %(t)s/fastcgi;
	keepalive_requests 1000000;
	default_type application/json;
	server {
		listen 127.0.0.1:%(p)d;
		root %(w)s;
	}
}
""" % {"t": tmp, "p": port, "w": www})
    proc = subprocess.Popen([nginx, "-p", tmp, "-c", conf, "-e", os.path.join(tmp, "logs", "error.log")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = "http://127.0.0.1:%d/healthz.json" % port
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, url
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError("nginx: %s" % proc.stderr.read().decode())
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("nginx did not start")


def bench_http(srv, tmp):
    if not shutil.which("wrk"):
        skip("HTTP requests/s", "wrk not installed (apt-get install wrk)")
        return
    proc, nurl = start_nginx(os.path.join(tmp, "nginx"))
    if not proc:
        skip("HTTP requests/s", "nginx not installed (apt-get install nginx-light)")
        return
    try:
        ours = {"/healthz": [], "/api/v1/trees": []}
        base = []
        for _ in range(max(3, REPS // 2 + 1)):
            base.append(wrk(nurl))
            for path in ours:
                ours[path].append(wrk(srv.url + path))
        # the small read endpoint is /api/v1/trees (its reply kept
        # between changes); /healthz asks PostgreSQL on every request (SELECT
        # 1: a health check that answered without the database would tell a
        # load balancer nothing), so it is shown for the cost of that round
        # trip, without the target
        for path, xs in ours.items():
            trees = path == "/api/v1/trees"
            add("HTTP GET %s" % path, "req/s", summary(xs), summary(base),
                "nginx static file (%d B)" % 31, better="higher",
                ratio_target=0.5 if trees else None, ratio_better="higher",
                note="wrk -t2 -c16 -d3s on loopback" + (
                    "" if trees else "; diagnosis: one PostgreSQL round trip per request"))
    finally:
        harness.stop_process(proc)


# ---- worker idle RSS -------------------------------------------------------------

def bench_worker_rss(srv, tmp):
    exe = os.path.join(BIN, "regtrack-worker")
    work = os.path.join(tmp, "worker")
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ, REGTRACK_TOKEN=srv.tokens["worker"])
    p = subprocess.Popen([exe, "run", "--server", srv.url, "--work-dir", work], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    rss = []
    try:
        for _ in range(10):
            time.sleep(0.5)
            if p.poll() is not None:
                break
            rss.append(proc_status(p.pid, "VmRSS"))
        if p.poll() is not None:
            err = p.stderr.read().decode().strip().splitlines()
            skip("worker idle RSS", "regtrack-worker run exited %d: %s"
                 % (p.returncode, err[-1] if err else ""))
            return
        hwm = proc_status(p.pid, "VmHWM")
        roll = smaps_rollup(p.pid)
        anon = proc_status(p.pid, "RssAnon")
    finally:
        harness.stop_process(p, timeout=10)
        p.stderr.close()
    kb = [x for x in rss[2:] if x] or [x for x in rss if x]
    floor, bare = curl_floor("1"), curl_floor("0")
    # RSS counts every page of the shared libraries the process touched (libcurl
    # loads 35 of them); PSS shares those out among the processes mapping them,
    # Private is what this worker alone costs
    add("worker idle RSS (run, no jobs)", "MiB", summary([x / 1024 for x in kb]),
        summary([floor / 1024]) if floor else None,
        "curl_global_init() alone, linked like the worker", target=8,
        note="peak VmHWM %.1f MiB; anonymous %.1f MiB, PSS %.1f MiB, private %.1f MiB; "
        "the libraries mapped without curl_global_init: %.1f MiB"
        % tuple(x / 1024 if x else float("nan") for x in
                (hwm, anon, roll.get("Pss"),
                 (roll.get("Private_Clean", 0) + roll.get("Private_Dirty", 0)) or None, bare)))


def curl_floor(arg):
    """VmRSS in kB of bench/curl_floor ARG after 1 s (None when not built)."""
    exe = os.path.join(PROGS, "curl_floor")
    if not os.path.exists(exe):
        return None
    p = subprocess.Popen([exe, arg], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1)
        return proc_status(p.pid, "VmRSS") if p.poll() is None else None
    finally:
        p.kill()
        p.wait()


# ---- profiles: storage and the profile diff ---------------------------

PROFILE_RUNS = 10          # per side
PROFILE_STACKS = 10000     # distinct stacks per run


def synthetic_folded(rng, syms, slow):
    """One run's folded stacks: PROFILE_STACKS distinct kernel-like stacks of
    depth 6..24 over a symbol pool; `slow` runs spend more in one branch."""
    seen, lines = set(), []
    while len(lines) < PROFILE_STACKS:
        depth = rng.randint(6, 24)
        stack = ["small-allocs", "entry_SYSCALL_64", "do_syscall_64"] + \
            [syms[min(int(rng.expovariate(1 / 150)), len(syms) - 1)] for _ in range(depth - 3)]
        if slow and rng.random() < 0.3:
            stack[3:5] = ["do_mmap", "demo_delay"]
        key = ";".join(stack)
        if key in seen:
            continue
        seen.add(key)
        lines.append("%s %d" % (key, 1 + int(rng.expovariate(1 / 20))))
    return "\n".join(lines) + "\n"


def bench_profile(srv):
    import random
    rng = random.Random(22)
    syms = ["sym_%04d" % i for i in range(3000)]
    base, head = harness.sha("f1"), harness.sha("f2")
    text_bytes = 0
    for i in range(PROFILE_RUNS):
        for commit, slow in ((base, False), (head, True)):
            folded = synthetic_folded(rng, syms, slow)
            text_bytes += len(folded)
            doc = harness.result_doc(commit, testcase="bench-profile",
                                     metrics={"bench.profile": [1.0]}, monitors=["perf-profile"],
                                     profile={"event": "cpu-clock", "folded": folded,
                                              "samples": sum(int(x.rsplit(" ", 1)[1])
                                                             for x in folded.splitlines())})
            r = srv.post("/api/v1/results", doc, scope="submit", timeout=120)
            if r.status != 201:
                raise RuntimeError("profile ingest: %s" % r)
    method, stored, folded_len = srv.psql(
        "SELECT max(pg_column_compression(p.folded)), sum(pg_column_size(p.folded)), "
        "sum(octet_length(p.folded)) FROM run_profiles p JOIN runs r ON r.id = p.run_id "
        "JOIN setups s ON s.id = r.setup_id JOIN testcases t ON t.id = s.testcase_id "
        "WHERE t.name = 'bench-profile'").split("|")
    runs = 2 * PROFILE_RUNS
    add("profile storage per run (pg_column_size)", "KiB",
        summary([int(stored) / runs / 1024]), summary([int(folded_len) / runs / 1024]),
        "its folded text", ratio_target=0.5,
        note="%s; %d stacks a run, %.1f MiB of folded text in %d runs stored in %.1f MiB"
        % (method, PROFILE_STACKS, text_bytes / 2**20, runs, int(stored) / 2**20))
    url = "%s/api/v1/profile-diff?base=%s&head=%s&testcase=bench-profile" % (srv.url, base, head)
    ids = srv.psql("SELECT string_agg(id::text, ' ' ORDER BY sha = '%s' DESC) FROM commits "
                   "WHERE sha IN ('%s', '%s')" % (base, base, head)).split()
    raw_sql = ("SELECT r.commit_id, p.folded FROM runs r JOIN run_profiles p ON p.run_id = r.id "
               "WHERE r.commit_id IN ($1::bigint, $2::bigint)")
    api, raw, info = time_pair(url, ["sql", sql_conninfo(srv), raw_sql, ids[0], ids[1]], 3)
    top = json.loads(srv.get(url.replace(srv.url, "") + "&limit=1").body)["symbols"][0]
    add("profile diff API (2 x %d runs x %d stacks)" % (PROFILE_RUNS, PROFILE_STACKS), "ms", api,
        raw, "raw SQL reading the %d folded texts" % info["rows"], target=2000,
        note="%d bytes of JSON; top symbol %s %+.1f pp, p %.2g"
        % (info["bytes"], top["symbol"], top["children_change"], top["p"]))
    # CPU per diff: steadier than wall time on a shared machine
    srv_cpu, pg_cpu = [], []
    for _ in range(REPS):
        _, s_cpu, p_cpu = timed_cpu(srv, lambda: loadgen("get", url, 2))
        srv_cpu.append(s_cpu / 2 * 1000)
        pg_cpu.append(p_cpu / 2 * 1000)
    add("  profile diff: server CPU per request", "ms", summary(srv_cpu), summary(pg_cpu),
        "PostgreSQL's CPU for it (reading, lz4)", target=1000,
        note="parse and merge of %d x %.1f MiB of folded text, the test of the top 50"
        % (runs, int(folded_len) / runs / 2**20))


# ---- bisect simulation (bench/bisect_sim*, by the bisect engineer) ------------------

def bench_bisect():
    cands = sorted(f for f in os.listdir(os.path.join(TOP, "bench")) if f.startswith("bisect_sim"))
    exe = None
    for f in cands:
        p = os.path.join(PROGS, os.path.splitext(f)[0])
        if f.endswith(".c") and os.path.exists(p):
            exe = [p]
        elif f.endswith(".py"):
            exe = ["/usr/bin/python3", os.path.join(TOP, "bench", f)]
        elif os.access(os.path.join(TOP, "bench", f), os.X_OK) and not f.endswith(".c"):
            exe = [os.path.join(TOP, "bench", f)]
        if exe:
            break
    if not exe:
        skip("bisect simulation", "bench/bisect_sim* not present yet (bisect engineer)")
        return None
    out = run(exe, timeout=120).stdout
    results.append({"name": "bisect simulation", "raw": out.strip()})
    return out


# ---- kernel incremental rebuild (opt-in) ---------------------------------------------

def bench_kernel():
    knob = os.environ.get("BENCH_KERNEL", "")
    if knob.endswith(".json") and os.path.exists(knob):
        # a saved output of bench/kernel_step.sh (it takes minutes): shown, not re-run
        with open(knob) as f:
            d = json.load(f)
        add("kernel bisect step: ccache rebuild", "s", summary([d["incremental_s"]]),
            summary([d["full_s"]]), "full build of the same tree", ratio_target=0.25,
            note="from %s; %s" % (knob, d.get("note")))
        return
    if knob != "1":
        skip("kernel bisect step (ccache rebuild / full build)",
             "opt-in: BENCH_KERNEL=1 (a full build takes ~4-5 min on 2 cores, much more on "
             "a loaded machine), or BENCH_KERNEL=FILE.json, a saved bench/kernel_step.sh output")
        return
    script = os.path.join(TOP, "bench", "kernel_step.sh")
    if not os.path.exists(script):
        skip("kernel bisect step (ccache rebuild / full build)", "bench/kernel_step.sh missing")
        return
    # niced: the full build takes the machine's cores for minutes
    out = subprocess.run(["nice", "-n", "10", script], capture_output=True, text=True,
                         timeout=3600)
    if out.returncode:
        skip("kernel bisect step (ccache rebuild / full build)",
             (out.stderr.strip().splitlines() or ["failed"])[-1])
        return
    d = json.loads(out.stdout)
    add("kernel bisect step: ccache rebuild", "s", summary([d["incremental_s"]]),
        summary([d["full_s"]]), "full build of the same tree", ratio_target=0.25,
        note=d.get("note"))


# ---- the bare-metal (kexec) cycle's overhead, from the kernel tier's last run ----------

def bench_kexec():
    """The kernel tier's step 7 (tests/kernel/kexec_worker.py) times the worker's kexec
    cycle in its VM-as-host from the serial log and keeps it in CACHE/kexec-cycle.json:
    shown here, not re-run (the VM session takes minutes). BENCH_KEXEC=FILE.json for
    another saved one."""
    cache = os.environ.get("REGTRACK_CACHE", os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "regtrack", "kernel-tier"))
    path = os.environ.get("BENCH_KEXEC") or os.path.join(cache, "kexec-cycle.json")
    if not os.path.exists(path):
        skip("kexec cycle overhead", "no %s: run the kernel tier (make check-kernel) first" % path)
        return
    with open(path) as f:
        d = json.load(f)
    note = "from %s (%s, load %.1f, TCG on the tier's machine)" % (path, d.get("at"), d.get("load", 0))
    add("kexec cycle: lease -> case start", "s", summary([d["lease_to_case_start_s"]]),
        summary([d["case_s"]]), "the case itself", note=note)
    if d.get("case_end_to_host_kernel_s") is not None:
        add("kexec cycle: case end -> host kernel back", "s",
            summary([d["case_end_to_host_kernel_s"]]), summary([d["case_s"]]), "the case itself",
            note="the result written, the power-off/reboot, firmware, the worker's kernel; " + note)
    add("kexec cycle: case end -> job completed", "s", summary([d["case_end_to_completion_s"]]),
        summary([d["case_s"]]), "the case itself",
        note="reboot through the firmware, the worker's kernel booted, lease, upload; " + note)
    if d.get("throughput") and d.get("tcg_throughput"):
        # the same case and params (small-allocs, nr_task 1, iterations 20, wall clock) run
        # by the VM-as-host's kexec'd kernel on the machine, and by the tier's plain TCG
        # guest (x86_64-wallclock); the host is itself emulated here, so this is the
        # overhead of the guest layer under TCG, not what bare metal gains over KVM
        add("kexec VM-as-host: small-allocs.throughput", "KB/s", summary([d["throughput"]]),
            summary([d["tcg_throughput"]]), "the same case in a plain TCG guest (wall clock)",
            better="higher", note=note)
    else:
        skip("kexec VM-as-host: small-allocs.throughput",
             "%s has no throughput or tcg_throughput (a tier run before both were kept)" % path)


# ---- perf-profile's perturbation of the case -------------------------------

def bench_perf():
    """bench/perf_perturb.sh: the same icount boot with and without perf-profile."""
    knob = os.environ.get("BENCH_PERF", "")
    cache = os.environ.get("REGTRACK_CACHE", os.path.join(TOP, "var", "cache"))
    warm = os.path.isdir(os.path.join(cache, "worker", "build", "linux-x86_64-tiny-mm-gcc-12"))
    if knob.endswith(".json") and os.path.exists(knob):
        with open(knob) as f:
            d = json.load(f)
        note = "from %s; " % knob
    elif knob == "1" or (warm and knob != "0"):
        out = subprocess.run(["nice", "-n", "10", os.path.join(TOP, "bench", "perf_perturb.sh")],
                             capture_output=True, text=True, timeout=3600)
        if out.returncode:
            skip("perf-profile perturbation", (out.stderr.strip().splitlines() or ["failed"])[-1])
            return
        d = json.loads(out.stdout)
        note = ""
    else:
        skip("perf-profile perturbation",
             "needs a warm worker cache (%s, as tests/kernel/run.sh leaves it), or BENCH_PERF=1 "
             "(builds the kernel and perf: minutes), or BENCH_PERF=FILE.json" % cache)
        return
    on, off = d["on"], d["off"]
    add("perf-profile perturbation: small-allocs throughput under icount", "KB/s",
        summary(on["throughput"]), summary(off["throughput"]), "the same boot without perf",
        better="higher",
        note=note + "%s; ratio = instructions' share left to the case (icount: the guest "
        "clock counts instructions); %s samples, %s folded bytes"
        % (d.get("note"), on["samples"], on["folded_bytes"]))
    add("perf-profile perturbation: wall time of the boot", "s", summary(on["duration_s"]),
        summary(off["duration_s"]), "the same boot without perf",
        note="qemu's wall time, boot to power-off: perf record, perf script and the fold "
        "included; guest clock of the case %s s vs %s s"
        % (on["guest_elapsed_s"], off["guest_elapsed_s"]))


# ---- parser RSS on 50 MiB inputs -----------------------------------------------------

PARSE_MIB = 50
PARSE_REPS = int(os.environ.get("BENCH_PARSE_REPS", "1"))
# tool -> fixtures (tests/fixtures/parse/, or a path from the top) whose bodies are repeated to PARSE_MIB: the
# worst case for memory, every repeat is one more run with all its values
PARSE_INPUTS = [
    ("kv", ["fuzz/corpus/kv/kv-basic.txt"]),
    ("will-it-scale", ["wis-runtest-mmap2-lkp.txt"]),
    ("vm-scalability", ["vms-case-swapin-lkp.txt"]),
    ("unixbench", ["unixbench-partial-index-lkp.txt"]),
    ("stress-ng", ["stress-ng-metrics-brief-memory-class-lkp.txt"]),
    ("hackbench", ["hackbench-lkp.txt"]),
    ("fio", ["fio-json-lkp.json"]),
    ("time", ["fuzz/corpus/time/gnu-time.txt"]),
    ("kselftest", ["kselftest-mm-run_vmtests-lkp.txt"]),
    ("proc-vs-map", ["proc-vs-map-smaps_rollup-arm64-24c.txt"]),
    ("perf-stat", ["perf-stat-x-csv-interval-lkp.csv"]),
    ("perf-profile", ["perf-report-children-folded-lkp.txt"]),
    ("lmbench3", ["lmbench3-mmap-bw-lkp.txt"]),
    ("sysbench", ["sysbench-1.0-cpu.txt"]),
]


# ---- the flame graph in Chromium (tests/web/flame_bench.mjs) -----------

def bench_flame():
    """load -> drawn of the profile diff's flame graph (web/js/flame.js) for 10^5
    distinct stacks a side, beside a uPlot chart of 10^5 points (the series page's
    library) fetched and drawn the same way, in the same Chromium; and the longest
    main-thread task of each (a task over 200 ms is a freeze: input waits longer
    than the 'good' bound of Interaction to Next Paint)."""
    web = os.path.join(TOP, "tests", "web")
    if not os.path.exists("/usr/bin/chromium"):
        skip("flame graph", "no /usr/bin/chromium (deploy/install-deps installs it)")
        return
    if not os.path.exists(os.path.join(web, "node_modules", "playwright-core")):
        run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], timeout=300, cwd=web)
    reps = max(1, min(REPS, 3))     # each repetition loads 2 x 40 MB three times
    env = dict(os.environ, BENCH_REPS=str(reps))
    out = json.loads(run(["node", os.path.join(web, "flame_bench.mjs")], timeout=900, cwd=web,
                         env=env).stdout)
    n = out["stacks"]
    col = lambda k, f: summary([x[f] for x in out[k]])   # noqa: E731
    note = "%d stacks a side (tests/web/flamegen.mjs, seed 22), %d tree nodes, %.1f MB reply; " \
        "%d frames drawn; load average %.1f on %d CPUs at the end" % (
            n, out.get("nodes", 0), out["reply_bytes"] / 1e6, out["frames"], os.getloadavg()[0],
            os.cpu_count())
    add("flame graph load -> drawn (%s stacks)" % fmt_count(n), "ms", col("flame", "drawn_ms"),
        col("uplot", "drawn_ms"), "uPlot chart of %s points, fetched and drawn" % fmt_count(n),
        note=note)
    add("  flame graph: longest task while loading", "ms", col("flame", "longest_task_ms"),
        col("uplot", "longest_task_ms"), "the uPlot chart's", target=200,
        note="freeze = a main-thread task > 200 ms (Long Tasks API; 0 = none over 50 ms)")
    add("  flame graph: fetch + merge alone", "ms", col("parse", "drawn_ms"),
        col("flame", "drawn_ms"), "the whole load -> drawn")
    add("  flame graph: zoom click (layout + draw)", "ms", col("zoom", "ms"), None,
        note="longest task %.0f ms" % max(x["longest_task_ms"] for x in out["zoom"]))
    add("  flame graph: search 'mm' (all nodes + draw)", "ms", col("search", "ms"), None,
        note="longest task %.0f ms" % max(x["longest_task_ms"] for x in out["search"]))


def fmt_count(n):
    return "10^%d" % round(math.log10(n)) if n > 0 and 10 ** round(math.log10(n)) == n else str(n)


def fixture_body(name):
    path = os.path.join(TOP, name) if "/" in name else \
        os.path.join(TOP, "tests", "fixtures", "parse", name)
    with open(path, "rb") as f:
        data = f.read()
    if data.startswith(b"# source:"):
        data = data.split(b"\n", 1)[1] if b"\n" in data else b""
    return data


def child_maxrss(args):
    """Peak RSS (kB) of one run of args (stdout discarded) and its exit status,
    by bench/maxrss: a direct child of this process would count Python's own
    pages (the kernel keeps the largest RSS across exec)."""
    out = run([os.path.join(PROGS, "maxrss")] + args, timeout=300).stdout.split()
    return int(out[0]), int(out[1])


def bench_parse(tmp):
    exe = os.path.join(BIN, "regtrack")
    want = PARSE_MIB << 20
    if not os.access(os.path.join(PROGS, "maxrss"), os.X_OK):
        skip("parse RSS", "bench/maxrss did not build")
        return
    # the floor: the same binary parsing an empty file (libraries, jansson)
    empty = os.path.join(tmp, "empty.txt")
    open(empty, "wb").close()
    for tool, fixtures in PARSE_INPUTS:
        name = "parse RSS %s (%d MiB input)" % (tool, PARSE_MIB)
        try:
            body = b"".join(fixture_body(f) for f in fixtures)
        except OSError as e:
            skip(name, "fixture missing: %s" % e)
            continue
        if not body:
            skip(name, "empty fixture")
            continue
        path = os.path.join(tmp, "parse-%s.txt" % tool)
        with open(path, "wb") as f:
            for _ in range(want // len(body) + 1):
                f.write(body)
        size = os.path.getsize(path)
        # RSS repeats to ~0.1 MiB: one run each unless BENCH_PARSE_REPS says more
        kb, rc = zip(*(child_maxrss([exe, "parse", tool, path]) for _ in range(PARSE_REPS)))
        floor, _ = child_maxrss([exe, "parse", tool, empty])
        os.unlink(path)
        # 1: parsed, status "failed" (a repeated fixture may be): the RSS still counts
        if any(r not in (0, 1) for r in rc):
            skip(name, "regtrack parse exited %d" % max(rc))
            continue
        add(name, "MiB", summary([k / 1024 for k in kb]), summary([size / 2 ** 20]),
            "the input's size", ratio_target=2,
            note="%s repeated; %.1f MiB for an empty file" % ("+".join(fixtures), floor / 1024))


# ---- the table -------------------------------------------------------------------

def fmt(v):
    if v is None:
        return "-"
    a = abs(v)
    if a >= 1e5:
        return "%.3g" % v
    if a >= 100:
        return "%.0f" % v
    if a >= 10:
        return "%.1f" % v
    if a >= 1:
        return "%.2f" % v
    return "%.3f" % v


def fmt_s(s):
    if not s:
        return "-"
    return "%s [%s..%s]" % (fmt(s["median"]), fmt(s["min"]), fmt(s["max"]))


def table():
    lines = []
    w = 42
    lines.append("%-*s %-8s %-26s %-26s %-7s %s" % (w, "figure", "unit", "median [min..max]",
                                                     "baseline median [min..max]", "ratio",
                                                     "target"))
    lines.append("-" * 140)
    for r in results:
        if "skipped" in r:
            lines.append("%-*s skipped: %s" % (w, r["name"], r["skipped"]))
            continue
        if "raw" in r:
            lines.append("%s:" % r["name"])
            lines.extend("    " + x for x in r["raw"].splitlines())
            continue
        tgt = []
        if r["target"] is not None:
            tgt.append("%s %s %s" % ("<=" if r["better"] == "lower" else ">=", fmt(r["target"]),
                                     r["unit"]))
        if r["ratio_target"] is not None:
            rb = "<=" if (r.get("ratio_better") or r["better"]) == "lower" else ">="
            tgt.append("ratio %s %s" % (rb, fmt(r["ratio_target"])))
        mark = "  MISS(%s)" % ",".join(r["miss"]) if r["miss"] else ("  ok" if tgt else "")
        lines.append("%-*s %-8s %-26s %-26s %-7s %s%s" % (
            w, r["name"], r["unit"], fmt_s(r["value"]), fmt_s(r["baseline"]),
            fmt(r["ratio"]) if r["ratio"] is not None else "-", ", ".join(tgt), mark))
        extra = [x for x in (r.get("baseline_name") and "baseline: " + r["baseline_name"],
                             r.get("note")) if x]
        if extra:
            lines.append("%-*s   %s" % (w, "", "; ".join(extra)))
    return "\n".join(lines)


def main():
    t_start = time.time()
    tmp = tempfile.mkdtemp(prefix="regtrack-bench-")
    os.environ.setdefault("REGTRACK_TEST_TMP", os.path.join(tmp, "cluster"))
    os.makedirs(os.environ["REGTRACK_TEST_TMP"], exist_ok=True)
    srv = None
    try:
        only = [x for x in os.environ.get("BENCH_ONLY", "").split(",") if x]
        if not only or set(only) - {"detect", "detect-noise", "realcpd", "tip", "bisect", "kernel", "kexec", "perf", "parse", "flame"}:
            srv = harness.Server()
            log("server %s pid %d, PostgreSQL %s" % (srv.url, srv.proc.pid, srv.cluster.data))
        steps = [("ingest", lambda: bench_ingest(srv)),
                 ("ingest-1", lambda: bench_ingest(srv, 1)),
                 ("compare", lambda: bench_compare(srv)),
                 ("series", lambda: bench_series(srv)),
                 ("http", lambda: bench_http(srv, tmp)),
                 ("detect", bench_detect),
                 ("detect-noise", bench_detect_noise),
                 ("realcpd", bench_realcpd),
                 ("tip", bench_tip),
                 ("worker", lambda: bench_worker_rss(srv, tmp)),
                 ("bisect", bench_bisect),
                 ("profile", lambda: bench_profile(srv)),
                 ("kernel", bench_kernel),
                 ("kexec", bench_kexec),
                 ("perf", bench_perf),
                 ("parse", lambda: bench_parse(tmp)),
                 ("flame", bench_flame)]
        if only:
            steps = [s for s in steps if s[0] in only]
        hwm = None
        for name, fn in steps:
            t0 = time.time()
            try:
                r = fn()
                if name == "ingest":
                    hwm = r
            except Exception as e:          # one broken figure must not hide the others
                skip(name, "error: %s" % str(e).strip().splitlines()[0][:200])
            log("%s: %.1f s" % (name, time.time() - t0))
        hwm_end = proc_status(srv.proc.pid, "VmHWM") if srv else None
        if srv:
            add("server peak RSS (VmHWM) after ingest load", "MiB",
                summary([hwm / 1024]) if hwm else None, None, None,
                note="after all figures: %.1f MiB" % (hwm_end / 1024 if hwm_end else float("nan")))
    finally:
        if srv:
            srv.stop()
            srv.cluster.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    print(table())
    doc = {"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "host": platform.node(), "cpus": os.cpu_count(),
           "load_avg_at_end": os.getloadavg(), "reps": REPS,
           "seconds": round(time.time() - t_start, 1), "figures": results}
    with open(OUT, "w") as f:
        json.dump(doc, f, indent=1)
    print("\n%d figures (%d missed a target) in %.0f s; written to %s"
          % (sum(1 for r in results if "value" in r),
             sum(1 for r in results if r.get("miss")), time.time() - t_start, OUT))


if __name__ == "__main__":
    main()
