"""sql/0034 and server/retention.c: run_values and run_means partitioned by
month; retention summarises the months of raw values older than
retention_raw_days (each row keeps its mean as its one value) while the
series, the compare and detection answer exactly as before."""
import hashlib
import json
import os
import random
import sys
import time
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, result_doc  # noqa: E402

TESTCASE = "retention-test"
METRIC = "vm-scalability.throughput"
OTHER = "vm-scalability.free_time"
N = 12
# commit i's runs were stored AGE[i] days ago: six months of history, then today
AGE = [270, 235, 200, 165, 130, 95, 0, 0, 0, 0, 0, 0]
WAIT_S = 120


def csha(i):
    return hashlib.sha1(("retention-%d" % i).encode()).hexdigest()


def untimed(x):
    """x without the times a detection pass stamps ("at", keys ending in _at)"""
    if isinstance(x, dict):
        return {k: untimed(v) for k, v in x.items() if k != "at" and not k.endswith("_at")}
    if isinstance(x, list):
        return [untimed(v) for v in x]
    return x


def drain(srv):
    deadline = time.monotonic() + WAIT_S
    while srv.psql("SELECT count(*) FROM detect_queue") != "0":
        if time.monotonic() > deadline:
            raise AssertionError("detection queue not drained in %d s" % WAIT_S)
        time.sleep(0.1)


class Retention(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = srv = Server()
        rnd = random.Random(34)
        cls.run_ids = []
        # -20 % at commit 8; three replicates of METRIC a run, one of OTHER
        for i in range(N):
            level = 1000.0 * (0.8 if i >= 8 else 1.0)
            for _ in range(2):
                doc = result_doc(csha(i), testcase=TESTCASE,
                                 metrics={METRIC: [level * (1 + rnd.gauss(0, 0.005))
                                                   for _ in range(3)],
                                          OTHER: [50.0 + rnd.random()]},
                                 commit_time="2026-01-01T00:%02d:00Z" % i,
                                 commit_subject="commit %d" % i)
                r = srv.post("/api/v1/results", doc, scope="submit")
                assert r.status == 201, r
                cls.run_ids.append((i, doc["run_id"]))
        drain(srv)
        # the history as if stored over months: moved across partitions by
        # UPDATE (the default partition first, then its month by the pass below)
        for i, age in enumerate(AGE):
            if age:
                srv.psql("UPDATE runs SET received_at = now() - interval '%d days' "
                         "WHERE commit_id = (SELECT id FROM commits WHERE sha = '%s')"
                         % (age, csha(i)))
        srv.psql("UPDATE run_values v SET stored_on = (r.received_at AT TIME ZONE 'UTC')::date "
                 "FROM runs r WHERE r.id = v.run_id "
                 "AND v.stored_on <> (r.received_at AT TIME ZONE 'UTC')::date")
        out = srv.cli("retention").stdout
        assert "months summarised: 0" in out, out
        cls.before = cls.answers(cls)

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def answers(self):
        """The series (with its detection), the compare and the regressions, as JSON."""
        q = urllib.parse.urlencode({"testcase": TESTCASE, "metric": METRIC})
        series = self.srv.get("/api/v1/series?" + q)
        compare = self.srv.get("/api/v1/compare?base=%s&head=%s&testcase=%s"
                               % (csha(0), csha(N - 1), TESTCASE))
        regs = self.srv.get("/api/v1/regressions")
        for r in (series, compare, regs):
            assert r.status == 200, r
        return series.json(), compare.json(), regs.json()["regressions"]

    def partitions(self):
        """{partition: (rows, values)} of run_values"""
        rows = self.srv.psql("SELECT tableoid::regclass, count(*), sum(cardinality(vals)) "
                             "FROM run_values GROUP BY 1 ORDER BY 1").splitlines()
        return {r.split("|")[0]: (int(r.split("|")[1]), int(r.split("|")[2])) for r in rows}

    def test_retention(self):
        srv = self.srv
        before = self.partitions()
        # every run's rows went to its month; none stayed in the default partition
        self.assertNotIn("run_values_default", before)
        self.assertEqual(srv.psql("SELECT count(*) FROM run_means_default"), "0")
        self.assertGreaterEqual(len(before), 7)
        self.assertEqual(sum(n for n, _ in before.values()), N * 2 * 2)
        self.assertEqual(sum(v for _, v in before.values()), N * 2 * 4)
        series0, compare0, regs0 = self.before
        # the step at commit 8 was found (the detection to keep)
        self.assertTrue(any(r.get("metric") == METRIC for r in regs0), regs0)
        mean_before = json.loads(srv.psql(
            "SELECT json_object_agg(run_id || '/' || metric_id, mean::text) FROM run_values"))

        out = srv.cli("--retention-raw-days", "90", "retention").stdout
        old = srv.psql("SELECT count(*) FROM run_values_summarised")
        self.assertIn("months summarised: %s" % old, out)
        after = self.partitions()
        months = srv.psql("SELECT string_agg(to_char(month, 'YYYY\"m\"MM'), ' ' ORDER BY month) "
                          "FROM run_values_summarised").split()
        self.assertGreaterEqual(len(months), 4)
        for name, (rows, vals) in after.items():
            summarised = name[len("run_values_y"):] in months
            # a summarised month keeps every row, each with one value; the others are raw
            self.assertEqual(rows, before[name][0], name)
            if summarised:
                self.assertEqual(vals, rows, name)
            else:
                self.assertEqual(vals, before[name][1], name)
        self.assertLess(sum(v for _, v in after.values()), sum(v for _, v in before.values()))
        # the runs of the last 90 days keep all their replicates
        self.assertEqual(srv.psql(
            "SELECT count(*) FROM run_values v JOIN runs r ON r.id = v.run_id "
            "WHERE r.received_at > now() - interval '80 days' AND cardinality(v.vals) = 3"),
            str((N - 6) * 2))
        # means to the last bit, and run_means untouched
        self.assertEqual(json.loads(srv.psql(
            "SELECT json_object_agg(run_id || '/' || metric_id, mean::text) FROM run_values")),
            mean_before)
        self.assertEqual(srv.psql(
            "SELECT count(*) FROM run_values v WHERE cardinality(v.vals) = 1 "
            "AND v.vals[1] IS DISTINCT FROM v.mean"), "0")
        # a summarised run's page shows its mean as its one value
        i, run_id = self.run_ids[0]
        run = srv.get("/api/v1/runs/" + run_id)
        self.assertEqual(run.status, 200, run)
        mean = float(srv.psql("SELECT v.mean FROM run_values v JOIN runs r ON r.id = v.run_id "
                              "JOIN metrics m ON m.id = v.metric_id WHERE r.run_id = '%s' "
                              "AND m.name = '%s'" % (run_id, METRIC)))
        self.assertEqual(run.json()["metrics"][METRIC], [mean])

        # detection over the whole series again, then every answer as before; its
        # time ("at", whole seconds) must differ from the first one's to show it ran
        time.sleep(1.1)
        srv.psql("INSERT INTO detect_queue (setup_id) SELECT id FROM setups "
                 "ON CONFLICT DO NOTHING")
        drain(srv)
        series1, compare1, regs1 = self.answers()
        self.assertEqual(untimed(series1), untimed(series0))
        self.assertEqual(compare1, compare0)
        self.assertEqual(untimed(regs1), untimed(regs0))
        # the detection ran again on the summarised history
        self.assertNotEqual(series1, series0)

        # a second pass finds nothing more to do
        out = srv.cli("--retention-raw-days", "90", "retention").stdout
        self.assertIn("partitions made: 0, months summarised: 0", out)


if __name__ == "__main__":
    unittest.main()
