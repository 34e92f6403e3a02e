"""sql/0006 and the make-bench fixes: run_values.mean (ingest's binary COPY
and the trigger for other writers), sql/0011 run_means (each run's means in
one row, kept by triggers on run_values), the compare and series answers
built on them, the trees listing."""
import os
import statistics
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, result_doc, sha  # noqa: E402


def setUpModule():
    global srv
    srv = Server()


def tearDownModule():
    srv.stop()


# replicates with awkward binary fractions and a wide range, in a fixed order
VALS = {
    "perf.a": [0.1, 0.2, 0.30000000000000004],
    "perf.b": [1e-300, 2.5e-300],
    "perf.c": [123456789.123, -0.5, 7.0, 1e15 + 1],
    "perf.d": [42.0],
}


def sum_in_order(v):
    s = 0.0
    for x in v:
        s += x
    return s / len(v)


class Mean(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.doc = result_doc(sha("a1"), testcase="perf-mean", metrics=VALS)
        r = srv.post("/api/v1/results", cls.doc, scope="submit")
        assert r.status in (200, 201), r

    def test_ingest_stores_values_and_mean_exactly(self):
        rows = srv.psql(
            "SELECT m.name, v.vals::text, v.mean::text, (SELECT avg(x) FROM unnest(v.vals) x)::text "
            "FROM run_values v JOIN metrics m ON m.id = v.metric_id JOIN runs r ON r.id = v.run_id "
            "WHERE r.run_id = '%s' ORDER BY m.name" % self.doc["run_id"]).splitlines()
        self.assertEqual([r.split("|")[0] for r in rows], sorted(VALS))
        for row in rows:
            name, vals, mean, avg = row.split("|")
            want = VALS[name]
            self.assertEqual([float(x) for x in vals.strip("{}").split(",")], want)
            # the server's mean is PostgreSQL's avg() to the last bit
            self.assertEqual(mean, avg, name)
            self.assertEqual(float(mean), sum_in_order(want), name)

    def test_trigger_fills_mean_of_rows_written_by_sql(self):
        rid = srv.psql("SELECT r.id FROM runs r WHERE r.run_id = '%s'" % self.doc["run_id"])
        mid = srv.psql("INSERT INTO metrics (name) VALUES ('perf.sql') RETURNING id")
        srv.psql("INSERT INTO run_values (run_id, metric_id, vals) VALUES (%s, %s, '{3,4,8}')"
                 % (rid, mid))
        self.assertEqual(srv.psql("SELECT mean FROM run_values WHERE run_id = %s AND metric_id = %s"
                                  % (rid, mid)), "5")
        # a changed vals recomputes it; an empty one leaves no mean
        srv.psql("UPDATE run_values SET vals = '{1,2}' WHERE run_id = %s AND metric_id = %s"
                 % (rid, mid))
        self.assertEqual(srv.psql("SELECT mean FROM run_values WHERE run_id = %s AND metric_id = %s"
                                  % (rid, mid)), "1.5")
        srv.psql("UPDATE run_values SET vals = '{}' WHERE run_id = %s AND metric_id = %s"
                 % (rid, mid))
        self.assertEqual(srv.psql("SELECT mean IS NULL FROM run_values WHERE run_id = %s AND "
                                  "metric_id = %s" % (rid, mid)), "t")
        srv.psql("DELETE FROM run_values WHERE run_id = %s AND metric_id = %s" % (rid, mid))

    def run_means(self, rid):
        """run_means of run rid as {metric name: mean}, checked to be sorted by id."""
        row = srv.psql("SELECT metric_ids::text, means::text FROM run_means WHERE run_id = %s"
                       % rid)
        if not row:
            return None
        ids, means = row.split("|")
        ids = [int(x) for x in ids.strip("{}").split(",") if x]
        means = [float(x) for x in means.strip("{}").split(",") if x]
        self.assertEqual(ids, sorted(set(ids)))
        self.assertEqual(len(ids), len(means))
        names = dict(tuple(line.split("|")) for line in srv.psql(
            "SELECT id, name FROM metrics").splitlines())
        return {names[str(i)]: m for i, m in zip(ids, means)}

    def test_run_means_follow_run_values(self):
        rid = srv.psql("SELECT r.id FROM runs r WHERE r.run_id = '%s'" % self.doc["run_id"])
        # the ingest's COPY: every metric of the document, its mean
        want = {k: sum_in_order(v) for k, v in VALS.items()}
        self.assertEqual(self.run_means(rid), want)
        # rows written by SQL in another statement: the run is recomputed
        mid = srv.psql("INSERT INTO metrics (name) VALUES ('perf.rm') RETURNING id")
        mid2 = srv.psql("INSERT INTO metrics (name) VALUES ('perf.rm2') RETURNING id")
        srv.psql("INSERT INTO run_values (run_id, metric_id, vals) VALUES (%s, %s, '{3,4,8}'), "
                 "(%s, %s, '{}')" % (rid, mid, rid, mid2))
        self.assertEqual(self.run_means(rid), dict(want, **{"perf.rm": 5.0}))
        srv.psql("UPDATE run_values SET vals = '{1,2}' WHERE run_id = %s AND metric_id = %s"
                 % (rid, mid))
        self.assertEqual(self.run_means(rid)["perf.rm"], 1.5)
        # a mean that becomes NULL leaves the list; one that appears joins it
        srv.psql("UPDATE run_values SET vals = '{}' WHERE run_id = %s AND metric_id = %s"
                 % (rid, mid))
        srv.psql("UPDATE run_values SET vals = '{7}' WHERE run_id = %s AND metric_id = %s"
                 % (rid, mid2))
        self.assertEqual(self.run_means(rid), dict(want, **{"perf.rm2": 7.0}))
        srv.psql("DELETE FROM run_values WHERE run_id = %s AND metric_id IN (%s, %s)"
                 % (rid, mid, mid2))
        self.assertEqual(self.run_means(rid), want)

    def test_run_means_of_a_run_without_means_and_a_deleted_run(self):
        doc = result_doc(sha("a2"), testcase="perf-mean-2", metrics={"perf.e": [2.0, 4.0]})
        r = srv.post("/api/v1/results", doc, scope="submit")
        self.assertIn(r.status, (200, 201), r)
        rid = srv.psql("SELECT r.id FROM runs r WHERE r.run_id = '%s'" % doc["run_id"])
        self.assertEqual(self.run_means(rid), {"perf.e": 3.0})
        srv.psql("DELETE FROM run_values WHERE run_id = %s" % rid)
        self.assertIsNone(self.run_means(rid))
        mid = srv.psql("SELECT id FROM metrics WHERE name = 'perf.e'")
        srv.psql("INSERT INTO run_values (run_id, metric_id, vals) VALUES (%s, %s, '{1}')"
                 % (rid, mid))
        self.assertEqual(self.run_means(rid), {"perf.e": 1.0})
        # the run's deletion takes its means along (run_values and run_means cascade)
        srv.psql("DELETE FROM runs WHERE id = %s" % rid)
        self.assertEqual(srv.psql("SELECT count(*) FROM run_means WHERE run_id = %s" % rid), "0")


class CompareAndSeries(unittest.TestCase):
    """Runs' means as the samples: 4 base runs vs 3 head runs."""
    BASE = [[100.0, 101.0, 99.5], [100.5, 100.0, 100.2], [99.0, 99.9, 100.1], [100.3, 100.3, 100.3]]
    HEAD = [[90.0, 91.0], [90.4, 90.2], [89.9, 90.5]]

    @classmethod
    def setUpClass(cls):
        cls.base, cls.head = sha("b1"), sha("b2")
        for c, runs in ((cls.base, cls.BASE), (cls.head, cls.HEAD)):
            for i, v in enumerate(runs):
                d = result_doc(c, testcase="perf-cmp", metrics={"perf.x": v, "perf.y": [float(i)]},
                               commit_time="2026-01-0%dT00:00:00Z" % (1 if c == cls.base else 2))
                r = srv.post("/api/v1/results", d, scope="submit")
                assert r.status in (200, 201), r

    def test_compare_samples_are_run_means(self):
        r = srv.get("/api/v1/compare?base=%s&head=%s&testcase=perf-cmp" % (self.base, self.head))
        self.assertEqual(r.status, 200, r)
        rows = {x["metric"]: x for x in r.json()["rows"]}
        self.assertEqual(sorted(rows), ["perf.x", "perf.y"])
        x = rows["perf.x"]
        self.assertEqual(x["n"], [4, 3])
        a = [statistics.mean(v) for v in self.BASE]
        b = [statistics.mean(v) for v in self.HEAD]
        self.assertAlmostEqual(x["mean"][0], statistics.mean(a), places=9)
        self.assertAlmostEqual(x["mean"][1], statistics.mean(b), places=9)
        self.assertAlmostEqual(x["median"][0], statistics.median(a), places=9)
        self.assertEqual(x["min"], [min(a), min(b)])
        self.assertEqual(x["max"], [max(a), max(b)])
        # every head run below every base run: the smallest exact p of 4 vs 3
        self.assertAlmostEqual(x["p_value"], 2 / 35, places=12)
        self.assertEqual(rows["perf.y"]["n"], [4, 3])
        self.assertEqual(rows["perf.y"]["min"], [0.0, 0.0])
        self.assertEqual(rows["perf.y"]["max"], [3.0, 2.0])
        # a metric prefix narrows the rows before they are aggregated
        r = srv.get("/api/v1/compare?base=%s&head=%s&testcase=perf-cmp&metric=perf.y"
                    % (self.base, self.head))
        self.assertEqual([x["metric"] for x in r.json()["rows"]], ["perf.y"])

    def test_series_values_are_run_means_as_json_numbers(self):
        r = srv.get("/api/v1/series?testcase=perf-cmp&metric=perf.x")
        self.assertEqual(r.status, 200, r)
        doc = r.json()
        self.assertEqual(doc["metric"], "perf.x")
        (s,) = doc["series"]
        self.assertEqual([c["sha"] for c in s["commits"]], [self.base, self.head])
        self.assertEqual(s["commits"][0]["commit_time"], "2026-01-01T00:00:00Z")
        self.assertEqual(s["points"]["commit"], [0, 0, 0, 0, 1, 1, 1])
        self.assertEqual(s["points"]["value"],
                         [sum_in_order(v) for v in self.BASE + self.HEAD])
        self.assertEqual(len(set(s["points"]["run_id"])), 7)
        self.assertEqual(s["change_points"], [])
        # integral means stay JSON reals, as jansson wrote them
        r = srv.get("/api/v1/series?testcase=perf-cmp&metric=perf.y")
        self.assertIn('"value":[0.0,1.0,2.0,3.0,0.0,1.0,2.0]', r.body)

    def test_series_escapes_subjects(self):
        d = result_doc(sha("c3"), testcase="perf-esc", metrics={"perf.z": [1.0]},
                       commit_subject='quote " backslash \\ tab \t nl \n ü')
        self.assertIn(srv.post("/api/v1/results", d, scope="submit").status, (200, 201))
        r = srv.get("/api/v1/series?testcase=perf-esc&metric=perf.z")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json()["series"][0]["commits"][0]["subject"],
                         'quote " backslash \\ tab \t nl \n ü')


class Trees(unittest.TestCase):
    def test_commit_counts(self):
        for c in ("d1", "d2", "d3"):
            d = result_doc(sha(c), testcase="perf-trees", tree="perf-tree",
                           metrics={"perf.t": [1.0]})
            self.assertIn(srv.post("/api/v1/results", d, scope="submit").status, (200, 201))
        r = srv.get("/api/v1/trees")
        self.assertEqual(r.status, 200, r)
        trees = {t["name"]: t for t in r.json()}
        self.assertEqual(trees["perf-tree"]["commits"], 3)
        self.assertEqual(srv.psql("SELECT count(*) FROM pg_indexes WHERE indexname = 'commits_tree'"),
                         "1")

    def test_kept_reply_follows_changes(self):
        """The listing is kept in memory between changes (server/api/trees.c): a
        tree posted, or a result that adds a commit, shows in the next GET."""
        before = {t["name"]: t for t in srv.get("/api/v1/trees").json()}
        self.assertNotIn("perf-kept", before)
        r = srv.post("/api/v1/trees", {"name": "perf-kept", "branches": ["master"]},
                     scope="admin")
        self.assertEqual(r.status, 200, r)
        trees = {t["name"]: t for t in srv.get("/api/v1/trees").json()}
        self.assertEqual(trees["perf-kept"]["commits"], 0)
        self.assertEqual(trees["perf-kept"]["branches"], ["master"])
        d = result_doc(sha("ce1"), testcase="perf-trees", tree="perf-kept",
                       metrics={"perf.t": [1.0]})
        self.assertEqual(srv.post("/api/v1/results", d, scope="submit").status, 201)
        trees = {t["name"]: t for t in srv.get("/api/v1/trees").json()}
        self.assertEqual(trees["perf-kept"]["commits"], 1)
        # a repeated GET gives the same bytes (the kept reply)
        self.assertEqual(srv.get("/api/v1/trees").body, srv.get("/api/v1/trees").body)


class ConcurrentIngest(unittest.TestCase):
    """POST /api/v1/results runs on the server's pool (http_defer in
    server/http/http.c): many at once all land, each once, and a repeat of each
    is recognised as the same run."""

    def test_parallel_posts(self):
        from concurrent.futures import ThreadPoolExecutor
        docs = [result_doc(sha("fa%d" % (i % 4)), testcase="perf-par",
                           metrics={"perf.p%d" % k: [float(i), float(k)] for k in range(50)})
                for i in range(24)]
        with ThreadPoolExecutor(12) as ex:
            first = list(ex.map(lambda d: srv.post("/api/v1/results", d, scope="submit"), docs))
            again = list(ex.map(lambda d: srv.post("/api/v1/results", d, scope="submit"), docs))
        self.assertEqual([r.status for r in first], [201] * 24, [r.body for r in first][:3])
        self.assertEqual([r.status for r in again], [200] * 24)
        for d, r, r2 in zip(docs, first, again):
            self.assertEqual(r.json(), {"run_id": d["run_id"], "created": True, "metrics": 50,
                                        "values": 100, "values_kept": "raw"})
            self.assertEqual(r2.json(), dict(r.json(), created=False))
        self.assertEqual(srv.psql(
            "SELECT count(*), count(DISTINCT r.run_id), sum(array_length(v.vals, 1)) "
            "FROM runs r JOIN run_values v ON v.run_id = r.id JOIN setups s ON s.id = r.setup_id "
            "JOIN testcases t ON t.id = s.testcase_id WHERE t.name = 'perf-par'"),
            "1200|24|2400")
        # an invalid document comes back from the pool as the one error shape
        bad = dict(docs[0], run_id="not-a-uuid")
        r = srv.post("/api/v1/results", bad, scope="submit")
        self.assertEqual(r.status, 400, r)
        self.assertEqual(r.json()["error"]["code"], "invalid_field")


if __name__ == "__main__":
    unittest.main()
