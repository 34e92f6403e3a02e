"""make bench-scale: regtrack's costs against the size of its history.

A throwaway cluster (tests/integration/harness.py's, under a temporary
directory) is filled with COPY into the project's own schema in the shape
of a lab's results: SCALE_SETUPS setups over 20 testcases, SCALE_METRICS
metrics a run (each testcase its own), one value each for most, three
replicates for 5 % of them, commits over three years, runs stored over the
same three years (so sql/0034's month partitions fill as in production),
30 % of the runs in 10 busy setups. The values are written with their mean
(as the ingest does) and the run_means triggers run on each COPY. At each
size (SCALE_SIZES values, default "1e6 1e7"; 1e8 takes hours and about
15 GB) it prints:

- bytes per stored value: run_values and run_means with their indexes and
  TOAST, over the number of values (the goal: <= 24);
- ingest through POST /api/v1/results (SCALE_INGEST_DOCS documents of
  SCALE_METRICS metrics from 4 threads), values/s;
- series of one metric of a busy setup, compare of two commits of it;
- detection of one appended run (POST to the detection queue drained);
- the overview page's API calls, the regressions page's and a
  regression page's (with its compare: the bisect page's data).

Then, at the largest size, the same figures once more after
`regtrack-server retention --retention-raw-days SCALE_RAW_DAYS` (default
90; 0 leaves it out) dropped the months of raw values older than that
(sql/0039): a lab's history as it is kept, the recent months raw and the
rest as per-run means (run_means). There bytes per value are over every
value the history received (the dropped ones included), and the series,
compare and detection read the older runs from run_means.

Latencies are medians of SCALE_REPS (default 5) after one warm-up. Every
figure goes to bench/scale-results.json.

The fill of 10^8 takes about an hour here: with REGTRACK_TEST_TMP set, the
cluster stays in that directory after the run, and SCALE_RESUME=DBNAME (the
database it filled, named in the log) measures that database again at its
size (unless retention already dropped months of it), then the retention
figures, without filling (the rows of the smaller sizes are then not in the
table).
"""
import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tests", "integration"))
import harness  # noqa: E402

SIZES = [int(float(s)) for s in os.environ.get("SCALE_SIZES", "1e6 1e7").split()]
NSETUPS = int(os.environ.get("SCALE_SETUPS", "2000"))
NMETRICS = int(os.environ.get("SCALE_METRICS", "200"))
NCOMMITS = int(os.environ.get("SCALE_COMMITS", "3000"))
REPS = int(os.environ.get("SCALE_REPS", "5"))
RAW_DAYS = int(os.environ.get("SCALE_RAW_DAYS", "90"))
RESUME = os.environ.get("SCALE_RESUME")
INGEST_DOCS = int(os.environ.get("SCALE_INGEST_DOCS", "200"))
NTESTCASES = 20
HOT = 10  # busy setups
DAYS = 3 * 365
CHUNK_RUNS = 2000  # runs per COPY (one transaction, one run_means trigger)


def log(msg):
    print("bench-scale: " + msg, file=sys.stderr, flush=True)


def psql_copy(srv, sql, data):
    env = dict(srv.cluster.env)
    p = subprocess.run([harness.PG_LOCAL, "psql", "-X", "-q", "-d", srv.dbname, "-c", sql],
                       input=data, env=env, capture_output=True, text=True, timeout=3600)
    if p.returncode:
        raise RuntimeError("COPY failed: %s" % p.stderr)


def psql_long(srv, sql):
    """srv.psql() without its 60 s limit: VACUUM ANALYZE and whole-table sums
    of 10^8 values take minutes"""
    p = subprocess.run([harness.PG_LOCAL, "psql", "-X", "-tAq", "-d", srv.dbname, "-c", sql],
                       env=dict(srv.cluster.env), capture_output=True, text=True, timeout=7200)
    if p.returncode:
        raise RuntimeError("%s: %s" % (sql, p.stderr))
    return p.stdout.strip()


def resumed(dbname):
    """the server on an existing database of the kept cluster (SCALE_RESUME)"""
    srv = harness.Server.__new__(harness.Server)
    srv.cluster = harness.Cluster.get()
    srv.dbname = dbname
    srv.conninfo = srv.cluster.base_conninfo.replace("dbname=regtrack", "dbname=" + dbname)
    conf = os.path.join(srv.cluster.tmp, "server-%s.conf" % dbname)
    srv.extra_args = ["--config", conf]
    srv.env = dict(os.environ)
    srv.proc = None
    srv.start()
    srv.tokens = {s: srv.token(s) for s in ("read", "submit", "worker", "admin")}
    return srv


def shape(srv):
    """testcases, metrics, setups, commits, one machine; returns nothing"""
    srv.psql("""
INSERT INTO testcases (name) SELECT 'scale-tc' || g FROM generate_series(0, %(nt)d - 1) g;
INSERT INTO metrics (name, unit, higher_is_better)
  SELECT 'scale-tc' || t || '.m' || g, 'ops', true
  FROM generate_series(0, %(nt)d - 1) t, generate_series(0, %(nm)d - 1) g;
INSERT INTO setups (testcase_id, params, params_key, kconfig, compiler, tbox_group)
  SELECT (SELECT id FROM testcases WHERE name = 'scale-tc' || (g %% %(nt)d)),
         jsonb_build_object('n', g::text), '{"n":"' || g || '"}',
         'x86_64-defconfig', 'gcc-12', 'scale-' || (g %% 7)
  FROM generate_series(0, %(ns)d - 1) g;
INSERT INTO trees (name) VALUES ('scale');
INSERT INTO commits (sha, tree_id, subject, commit_time)
  SELECT encode(sha256(('scale' || g)::bytea), 'hex')::char(40), 1, 'scale commit ' || g,
         timestamptz '2024-01-01' + g * interval '%(step)s seconds'
  FROM generate_series(0, %(nc)d - 1) g;
INSERT INTO machines (hostname, arch, tbox_group) VALUES ('scale-host', 'x86_64', 'scale-0');
SELECT regtrack_partition_month(t, (date '2024-01-01' + make_interval(months => g))::date)
  FROM unnest(ARRAY['run_values', 'run_means']) t, generate_series(0, 40) g;
""" % {"nt": NTESTCASES, "nm": NMETRICS, "ns": NSETUPS, "nc": NCOMMITS,
       "step": DAYS * 86400 // NCOMMITS})


def ids(srv, sql):
    return [int(x) for x in srv.psql(sql).split()]


class Filler:
    """Runs and values appended in time order, run by run."""

    def __init__(self, srv):
        self.srv = srv
        self.rng = random.Random(34)
        self.setups = ids(srv, "SELECT id FROM setups ORDER BY id")
        self.tc_of = {s: i % NTESTCASES for i, s in enumerate(self.setups)}
        self.metric0 = {}
        for t in range(NTESTCASES):
            self.metric0[t] = int(srv.psql("SELECT id FROM metrics WHERE name = 'scale-tc%d.m0'"
                                           % t))
        self.commits = ids(srv, "SELECT id FROM commits ORDER BY id")
        self.run_id0 = 0
        self.values = 0
        self.runs = 0

    def total_runs(self, values):
        return int(values / (NMETRICS * 1.1))  # 5 % of metrics with 3 values

    def fill(self, values, horizon_runs):
        """appends runs until `values` values are stored; runs are spread in
        time as if horizon_runs runs made the three years"""
        while self.values < values:
            n = min(CHUNK_RUNS, max(1, self.total_runs(values - self.values)))
            runs, vals = [], []
            first = int(self.srv.psql("SELECT nextval('runs_id_seq')"))
            self.srv.psql("SELECT setval('runs_id_seq', %d)" % (first + n - 1))
            for k in range(n):
                rid = first + k
                i = self.runs + k
                frac = min(i / horizon_runs, 1.0)
                setup = (self.setups[self.rng.randrange(HOT)] if self.rng.random() < 0.3
                         else self.rng.choice(self.setups))
                commit = self.commits[min(int(frac * NCOMMITS), NCOMMITS - 1)]
                day = int(frac * (DAYS - 1))
                t = time.gmtime(1704067200 + day * 86400 + rid % 86400)
                stored_on = time.strftime("%Y-%m-%d", t)
                runs.append("%d\t%s\t%d\t%d\t1\tok\t\\\\x00\t%s\n"
                            % (rid, uuid.UUID(int=self.rng.getrandbits(128)), commit, setup,
                               time.strftime("%Y-%m-%d %H:%M:%S+00", t)))
                m0 = self.metric0[self.tc_of[setup]]
                # the first busy setup's values step down 20 % halfway
                step = 0.8 if (setup == self.setups[0] and frac > 0.5) else 1.0
                for m in range(NMETRICS):
                    base = 1000.0 + 10 * m
                    k3 = 3 if self.rng.random() < 0.05 else 1
                    xs = [base * step * (1 + self.rng.gauss(0, 0.003)) for _ in range(k3)]
                    total = 0.0
                    for x in xs:
                        total += x
                    vals.append("%d\t%d\t%s\t{%s}\t%r\n" % (
                        rid, m0 + m, stored_on, ",".join(repr(x) for x in xs), total / k3))
                    self.values += k3
            psql_copy(self.srv, "COPY runs (id, run_id, commit_id, setup_id, machine_id, status, "
                      "doc_sha256, received_at) FROM STDIN", "".join(runs))
            psql_copy(self.srv, "COPY run_values (run_id, metric_id, stored_on, vals, mean) "
                      "FROM STDIN", "".join(vals))
            self.runs += n


def get_ms(srv, path, reps=REPS):
    """median ms of GET path (after one warm-up), and the last reply"""
    host, port = srv.addr.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=600)
    hdr = {"Authorization": "Bearer " + srv.tokens["read"]}
    times = []
    body = None
    for i in range(reps + 1):
        t0 = time.perf_counter()
        conn.request("GET", path, headers=hdr)
        r = conn.getresponse()
        body = r.read()
        if r.status != 200:
            raise RuntimeError("GET %s: %d %s" % (path, r.status, body[:300]))
        if i:
            times.append((time.perf_counter() - t0) * 1000)
    conn.close()
    return statistics.median(times), json.loads(body)


def ingest(srv, commit_sha):
    """values/s through POST /api/v1/results from 4 threads"""
    tc = "scale-tc1"
    names = ["%s.m%d" % (tc, m) for m in range(NMETRICS)]
    docs = []
    for d in range(INGEST_DOCS):
        doc = harness.result_doc(commit_sha, testcase=tc, params={"n": "1"},
                                 metrics={n: [1000.0 + d + i] for i, n in enumerate(names)})
        doc["machine"]["tbox_group"] = "scale-1"
        docs.append(json.dumps(doc).encode())
    host, port = srv.addr.rsplit(":", 1)
    hdr = {"Authorization": "Bearer " + srv.tokens["submit"],
           "Content-Type": "application/json"}
    errors = []

    def worker(part):
        conn = http.client.HTTPConnection(host, int(port), timeout=600)
        for body in part:
            conn.request("POST", "/api/v1/results", body=body, headers=hdr)
            r = conn.getresponse()
            r.read()
            if r.status not in (200, 201):
                errors.append(r.status)
        conn.close()

    threads = [threading.Thread(target=worker, args=(docs[i::4],)) for i in range(4)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    secs = time.perf_counter() - t0
    if errors:
        raise RuntimeError("ingest: %d errors (%s)" % (len(errors), errors[:3]))
    return INGEST_DOCS * NMETRICS / secs


def detect_one(srv, setup_id, commit_sha):
    """seconds from POST of one run of setup_id to the detection queue drained"""
    tc, params, tbox = srv.psql(
        "SELECT t.name, s.params::text, s.tbox_group FROM setups s "
        "JOIN testcases t ON t.id = s.testcase_id WHERE s.id = %d" % setup_id).split("|")
    doc = harness.result_doc(commit_sha, testcase=tc, params=json.loads(params),
                             metrics={"%s.m%d" % (tc, m): [800.0 + 8 * m]
                                      for m in range(NMETRICS)})
    doc["machine"]["tbox_group"] = tbox
    t0 = time.perf_counter()
    r = srv.post("/api/v1/results", doc, scope="submit")
    if r.status != 201:
        raise RuntimeError("append: %r" % r)
    time.sleep(0.005)
    while srv.psql("SELECT count(*) FROM detect_queue") != "0":
        time.sleep(0.005)
    return time.perf_counter() - t0


def retention(srv, raw_days):
    """drops the months of raw values older than raw_days (the server's own
    pass, run once from the command line); its summary line"""
    out = subprocess.run([os.path.join(harness.BIN, "regtrack-server"), "--retention-raw-days",
                          str(raw_days), "retention"],
                         env=dict(srv.env, REGTRACK_DB=srv.conninfo),
                         capture_output=True, text=True, timeout=1800, check=True)
    return out.stdout.strip()


def measure(srv, filler, size, nvals=None):
    """the figures at this size; nvals: the values the bytes are over (default:
    those in run_values, every value while nothing is dropped)"""
    row = {"values": filler.values, "runs": filler.runs}
    psql_long(srv, "VACUUM ANALYZE runs")
    psql_long(srv, "VACUUM ANALYZE run_values")
    psql_long(srv, "VACUUM ANALYZE run_means")
    nbytes = int(srv.psql("SELECT sum(pg_total_relation_size(c.oid)) FROM pg_inherits i "
                          "JOIN pg_class c ON c.oid = i.inhrelid "
                          "WHERE i.inhparent IN ('run_values'::regclass, 'run_means'::regclass)"))
    if nvals is None:
        nvals = int(psql_long(srv, "SELECT sum(cardinality(vals)) FROM run_values"))
    row["bytes_per_value"] = nbytes / nvals
    row["bytes_per_value_run_values"] = int(srv.psql(
        "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_inherits i JOIN pg_class c "
        "ON c.oid = i.inhrelid WHERE i.inhparent = 'run_values'::regclass")) / nvals
    row["db_bytes_per_value"] = int(srv.psql("SELECT pg_database_size(current_database())")) / nvals
    hot = filler.setups[0]
    tc = "scale-tc%d" % filler.tc_of[hot]
    q = urllib.parse.urlencode({"testcase": tc, "metric": tc + ".m0",
                                "params": json.dumps({"n": "0"}), "tbox_group": "scale-0"})
    row["series_ms"], s = get_ms(srv, "/api/v1/series?" + q)
    row["series_points"] = sum(len(x["points"]["value"]) for x in s["series"])
    shas = srv.psql("SELECT string_agg(c.sha, ' ' ORDER BY c.id) FROM (SELECT DISTINCT r.commit_id "
                    "FROM runs r WHERE r.setup_id = %d ORDER BY 1 DESC LIMIT 2) x "
                    "JOIN commits c ON c.id = x.commit_id" % hot).split()
    a, b = shas[0], shas[-1]
    row["compare_ms"], _ = get_ms(srv, "/api/v1/compare?" + urllib.parse.urlencode(
        {"base": a, "head": b, "testcase": tc}))
    row["ingest_values_s"] = ingest(srv, b)
    row["detect_append_s"] = detect_one(srv, hot, b)
    pages = {}
    for name, path in (("regressions", "/api/v1/regressions"),
                       ("bisects", "/api/v1/bisects"), ("jobs", "/api/v1/jobs"),
                       ("runs", "/api/v1/runs"), ("metrics", "/api/v1/metrics"),
                       ("trees", "/api/v1/trees"), ("testcases", "/api/v1/testcases")):
        pages[name], _ = get_ms(srv, path)
    row["overview_ms"] = sum(pages.values())
    row["overview_calls_ms"] = pages
    row["regressions_page_ms"] = pages["regressions"]
    _, regs = get_ms(srv, "/api/v1/regressions", reps=1)
    regs = regs.get("regressions", [])
    if regs:
        g = regs[0]
        one, reg = get_ms(srv, "/api/v1/regressions/%s" % g["id"])
        good = reg.get("good_commit") or reg.get("base") or a
        bad = reg.get("bad_commit") or reg.get("commit") or b
        if isinstance(good, dict):
            good = good.get("sha", a)
        if isinstance(bad, dict):
            bad = bad.get("sha", b)
        cmp_ms, _ = get_ms(srv, "/api/v1/compare?" + urllib.parse.urlencode(
            {"base": good, "head": bad, "testcase": tc}))
        row["regression_page_ms"] = one
        row["bisect_page_data_ms"] = one + cmp_ms
    else:
        row["regression_page_ms"] = row["bisect_page_data_ms"] = None
    return row


def main():
    srv = resumed(RESUME) if RESUME else harness.Server()
    results = []
    try:
        if not RESUME:
            shape(srv)
        filler = Filler(srv)
        horizon = filler.total_runs(max(SIZES))
        if RESUME:
            # every value the history received: those still raw and those of
            # the months retention dropped (counted when it dropped them)
            dropped = int(srv.psql("SELECT coalesce(sum(nr_vals), 0) FROM run_values_dropped"))
            filler.values = dropped + int(psql_long(
                srv, "SELECT coalesce(sum(cardinality(vals)), 0) FROM run_values"))
            filler.runs = int(srv.psql("SELECT count(*) FROM runs"))
            SIZES[:] = [filler.values]
            log("resumed %s: %d values (%d runs, %d of the values dropped)"
                % (RESUME, filler.values, filler.runs, dropped))
            if not dropped:  # else the retention figures below are this state's
                row = measure(srv, filler, filler.values, nvals=filler.values)
                results.append(row)
                log(json.dumps(row))
        for size in [] if RESUME else sorted(SIZES):
            t0 = time.time()
            before = filler.values
            filler.fill(size, horizon)
            secs = time.time() - t0
            log("filled to %d values (%d runs) in %.0f s" % (filler.values, filler.runs, secs))
            row = measure(srv, filler, size)
            row["copy_values_s"] = (filler.values - before) / secs
            results.append(row)
            log(json.dumps(row))
        if RAW_DAYS > 0:
            t0 = time.time()
            log("retention: " + retention(srv, RAW_DAYS))
            log("retention pass took %.0f s" % (time.time() - t0))
            row = measure(srv, filler, max(SIZES), nvals=filler.values)
            row["raw_days"] = RAW_DAYS
            row["raw_values"] = int(psql_long(srv, "SELECT coalesce(sum(cardinality(vals)), 0) "
                                              "FROM run_values"))
            results.append(row)
            log(json.dumps(row))
    finally:
        srv.stop()
        srv.cluster.stop()
    with open(os.path.join(TOP, "bench", "scale-results.json"), "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")
    cols = [("values", "values", "%d"), ("runs", "runs", "%d"),
            ("  of them still raw (after retention)", "raw_values", "%d"),
            ("bytes/value", "bytes_per_value", "%.1f"),
            ("  run_values only", "bytes_per_value_run_values", "%.1f"),
            ("  whole database", "db_bytes_per_value", "%.1f"),
            ("COPY fill values/s (with triggers)", "copy_values_s", "%.0f"),
            ("ingest values/s (API, 4 threads)", "ingest_values_s", "%.0f"),
            ("series ms", "series_ms", "%.1f"), ("  its points", "series_points", "%d"),
            ("compare ms", "compare_ms", "%.1f"),
            ("detection of an appended run, s", "detect_append_s", "%.2f"),
            ("overview page API calls ms (sum)", "overview_ms", "%.1f"),
            ("regressions page ms", "regressions_page_ms", "%.1f"),
            ("regression page ms", "regression_page_ms", "%.1f"),
            ("bisect page data ms", "bisect_page_data_ms", "%.1f")]
    heads = ["%.0e" % r["values"] if "raw_days" not in r else "%dd raw" % r["raw_days"]
             for r in results]
    print("%-38s" % "" + "".join("%14s" % h for h in heads))
    for label, key, f in cols:
        print("%-38s" % label + "".join(
            "%14s" % (f % r[key] if r.get(key) is not None else "-") for r in results))


if __name__ == "__main__":
    main()
