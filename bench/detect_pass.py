"""make bench-detect: the cost of one detection pass of a long series.

One setup of DP_RUNS runs (default 14,000) over DP_COMMITS commits (default
3,000) x DP_METRICS metrics (default 200), the shape of bench/scale.py's
busiest setup at 10^8 values, is written with COPY (run_values; the
run_means triggers run), then copied (CREATE DATABASE ... TEMPLATE) once per
server binary to compare. Each binary's server then takes one appended run
(POST /api/v1/results at the last commit) and detection runs; the time from
the POST to the detection queue drained is the pass. The first pass writes
every record; the later ones (DP_PASSES - 1) find them again. Binaries are
measured in turn, DP_ROUNDS rounds, so a shared machine's load falls on
each alike.

The series have steps (every metric 20 % down halfway, every tenth one 6 %
up at three quarters, every seventh one a 4 % step that comes back 50
commits later), noise of 0.3 % with an outlier now and then, three
replicates for 5 % of the values.

With REGTRACK_TEST_TMP=DIR the cluster and its filled template database
stay in DIR, and a later run of the same size measures again without
filling.

DP_BINS: space-separated directories of regtrack-server binaries (default
the harness's). DP_DUMP=DIR: after the passes each database's regressions,
their history and the explain rows (without ids' and times' noise) go to
DIR/<round>-<binary index>.txt, to check that two binaries store the same.
"""
import json
import os
import random
import statistics
import subprocess
import sys
import time
import uuid

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tests", "integration"))
import harness  # noqa: E402

NCOMMITS = int(os.environ.get("DP_COMMITS", "3000"))
NRUNS = int(os.environ.get("DP_RUNS", "14000"))
NMETRICS = int(os.environ.get("DP_METRICS", "200"))
PASSES = int(os.environ.get("DP_PASSES", "3"))
ROUNDS = int(os.environ.get("DP_ROUNDS", "1"))
BINS = os.environ.get("DP_BINS", harness.BIN).split()
DUMP = os.environ.get("DP_DUMP")
CHUNK = 1000
TC = "dp-tc"


def log(msg):
    print("bench-detect: " + msg, file=sys.stderr, flush=True)


def psql(cluster, db, sql, timeout=3600, data=None):
    p = subprocess.run([harness.PG_LOCAL, "psql", "-X", "-tAq", "-d", db, "-c", sql],
                       input=data, env=dict(cluster.env), capture_output=True, text=True,
                       timeout=timeout)
    if p.returncode:
        raise RuntimeError("%s: %s" % (sql[:80], p.stderr))
    return p.stdout.strip()


def shape(cluster, db):
    psql(cluster, db, """
INSERT INTO testcases (name) VALUES ('%(tc)s');
INSERT INTO metrics (name, unit, higher_is_better)
  SELECT '%(tc)s.m' || g, 'ops', true FROM generate_series(0, %(nm)d - 1) g;
INSERT INTO setups (testcase_id, params, params_key, kconfig, compiler, tbox_group)
  VALUES ((SELECT id FROM testcases WHERE name = '%(tc)s'), '{"n":"0"}', '{"n":"0"}',
          'x86_64-defconfig', 'gcc-12', 'dp-0');
INSERT INTO trees (name) VALUES ('linux');
INSERT INTO commits (sha, tree_id, subject, commit_time)
  SELECT encode(sha256(('dp' || g)::bytea), 'hex')::char(40), 1, 'dp commit ' || g,
         timestamptz '2024-01-01' + g * interval '30000 seconds'
  FROM generate_series(0, %(nc)d - 1) g;
INSERT INTO machines (hostname, arch, tbox_group) VALUES ('dp-host', 'x86_64', 'dp-0');
SELECT regtrack_partition_month(t, (date '2024-01-01' + make_interval(months => g))::date)
  FROM unnest(ARRAY['run_values', 'run_means']) t, generate_series(0, 40) g;
""" % {"tc": TC, "nm": NMETRICS, "nc": NCOMMITS})


def level(m, frac):
    """the true level of metric m at series position frac (0..1)"""
    x = 1000.0 + 10 * m
    if frac > 0.5:
        x *= 0.8
    if m % 10 == 0 and frac > 0.75:
        x *= 1.06
    if m % 7 == 3 and 0.3 < frac <= 0.3 + 50.0 / NCOMMITS:
        x *= 0.96
    return x


def fill(cluster, db):
    rng = random.Random(18)
    setup = int(psql(cluster, db, "SELECT id FROM setups"))
    m0 = int(psql(cluster, db, "SELECT min(id) FROM metrics"))
    commits = [int(x) for x in psql(cluster, db, "SELECT id FROM commits ORDER BY id").split()]
    rid = 0
    while rid < NRUNS:
        n = min(CHUNK, NRUNS - rid)
        runs, vals = [], []
        for k in range(n):
            i = rid + k + 1
            frac = (i - 1) / NRUNS
            commit = commits[min(int(frac * NCOMMITS), NCOMMITS - 1)]
            t = time.gmtime(1704067200 + int(frac * 1000) * 86400 + i % 86400)
            runs.append("%d\t%s\t%d\t%d\t1\tok\t\\\\x00\t%s\n"
                        % (i, uuid.UUID(int=rng.getrandbits(128)), commit, setup,
                           time.strftime("%Y-%m-%d %H:%M:%S+00", t)))
            stored_on = time.strftime("%Y-%m-%d", t)
            cfrac = min(int(frac * NCOMMITS), NCOMMITS - 1) / NCOMMITS
            for m in range(NMETRICS):
                base = level(m, cfrac)
                k3 = 3 if rng.random() < 0.05 else 1
                xs = []
                for _ in range(k3):
                    noise = rng.gauss(0, 0.003)
                    if rng.random() < 0.002:
                        noise += 0.05
                    xs.append(base * (1 + noise))
                vals.append("%d\t%d\t%s\t{%s}\t%r\n" % (
                    i, m0 + m, stored_on, ",".join(repr(x) for x in xs), sum(xs) / k3))
        psql(cluster, db, "COPY runs (id, run_id, commit_id, setup_id, machine_id, status, "
             "doc_sha256, received_at) FROM STDIN", data="".join(runs))
        psql(cluster, db, "COPY run_values (run_id, metric_id, stored_on, vals, mean) "
             "FROM STDIN", data="".join(vals))
        rid += n
    psql(cluster, db, "SELECT setval('runs_id_seq', %d)" % NRUNS)
    psql(cluster, db, "VACUUM ANALYZE")


def server_on(cluster, db, bindir):
    """regtrack-server of bindir on the existing database db"""
    harness.BIN = bindir
    srv = harness.Server.__new__(harness.Server)
    srv.cluster = cluster
    srv.dbname = db
    srv.conninfo = cluster.base_conninfo.replace("dbname=regtrack", "dbname=" + db)
    conf = os.path.join(cluster.tmp, "server-%s.conf" % db)
    with open(conf, "w") as f:
        f.write("auto_bisect = 0\n")
    srv.extra_args = ["--config", conf]
    srv.env = dict(os.environ)
    srv.proc = None
    srv.start()
    srv.tokens = {s: srv.token(s) for s in ("submit",)}
    return srv


def one_pass(srv, sha, k):
    doc = harness.result_doc(sha, testcase=TC, params={"n": "0"},
                             metrics={"%s.m%d" % (TC, m): [level(m, 1.0) * (1 + 0.001 * k)]
                                      for m in range(NMETRICS)})
    doc["machine"]["tbox_group"] = "dp-0"
    doc["machine"]["hostname"] = "dp-host"
    doc["run_id"] = str(uuid.UUID(int=k + 1))
    t0 = time.perf_counter()
    r = srv.post("/api/v1/results", doc, scope="submit")
    if r.status != 201:
        raise RuntimeError("append: %r" % r)
    time.sleep(0.005)
    while srv.psql("SELECT count(*) FROM detect_queue") != "0":
        time.sleep(0.005)
    return time.perf_counter() - t0


DUMP_SQL = """
SELECT 'R', metric_id, good_commit_id, bad_commit_id, kind, state, detected,
  change_pct, ci_lo_pct, ci_hi_pct, p_value, verdict, mean_before, mean_after, n_before,
  n_after, commits_after, pair_change_pct, pair_p_value, pair_verdict, det_before, det_after,
  det_change_pct, det_p_value, hl_pct, shift, direction, outliers_before, outliers_after,
  pair_hl_pct, pair_direction, noise_sigma, environment
FROM regressions ORDER BY metric_id, good_commit_id, bad_commit_id;
SELECT 'H', r.metric_id, r.good_commit_id, r.bad_commit_id, h.who, h.from_state, h.to_state,
  h.note FROM regression_history h JOIN regressions r ON r.id = h.regression_id
ORDER BY r.metric_id, r.good_commit_id, r.bad_commit_id, h.id;
SELECT 'E', metric_id, n_commits, settings, candidates FROM detect_explain ORDER BY metric_id;
"""


def main():
    cluster = harness.Cluster.get()
    tmpl = "dp_tmpl_%d_%d_%d" % (NRUNS, NCOMMITS, NMETRICS)
    try:
        t0 = time.time()
        if psql(cluster, "postgres", "SELECT 1 FROM pg_database WHERE datname = '%s'" % tmpl):
            log("%s: kept from an earlier run (REGTRACK_TEST_TMP)" % tmpl)
        else:
            # the schema: a server's migrations on the template database
            psql(cluster, "postgres", "CREATE DATABASE %s" % tmpl)
            srv = server_on(cluster, tmpl, BINS[0])
            shape(cluster, tmpl)
            srv.stop()
            fill(cluster, tmpl)
            log("filled %d runs x %d metrics in %.0f s" % (NRUNS, NMETRICS, time.time() - t0))
        sha = psql(cluster, tmpl, "SELECT sha FROM commits ORDER BY id DESC LIMIT 1")
        times = {b: [] for b in BINS}
        for rnd in range(ROUNDS):
            for bi, b in enumerate(BINS):
                db = "dp_%d_%d" % (rnd, bi)
                psql(cluster, "postgres", "CREATE DATABASE %s TEMPLATE %s" % (db, tmpl))
                srv = server_on(cluster, db, b)
                ts = [one_pass(srv, sha, k) for k in range(PASSES)]
                srv.stop()
                times[b].append(ts)
                log("round %d %s: passes %s s" % (rnd, b, " ".join("%.2f" % t for t in ts)))
                if DUMP:
                    os.makedirs(DUMP, exist_ok=True)
                    with open(os.path.join(DUMP, "%d-%d.txt" % (rnd, bi)), "w") as f:
                        f.write(psql(cluster, db, DUMP_SQL) + "\n")
                psql(cluster, "postgres", "DROP DATABASE %s" % db)
        for b in BINS:
            first = statistics.median(t[0] for t in times[b])
            later = statistics.median(x for t in times[b] for x in t[1:]) if PASSES > 1 else 0
            print(json.dumps({"bin": b, "runs": NRUNS, "commits": NCOMMITS,
                              "metrics": NMETRICS, "first_pass_s": round(first, 3),
                              "later_pass_s": round(later, 3), "passes": times[b]}))
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
