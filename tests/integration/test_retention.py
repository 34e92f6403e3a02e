"""sql/0034, sql/0039 and server/retention.c: run_values and run_means
partitioned by month; retention drops the months of raw values older than
retention_raw_days (detached, dropped, their files gone) and every reader
takes those runs from run_means: the series, the compare, detection, the
run page and the runs list answer as before (a dropped run's metric shows
its mean as its one value, and the run says values_kept "mean"; posted again,
the reply counts those means), each run's mean to the bit, and a lookup by run
reads only its own month's partition."""
import hashlib
import json
import os
import random
import subprocess
import sys
import threading
import time
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import PG_LOCAL, Server, result_doc  # noqa: E402

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
        cls.docs = {}
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
                assert (r.json()["values"], r.json()["values_kept"]) == (4, "raw"), r.json()
                cls.run_ids.append((i, doc["run_id"]))
                cls.docs[doc["run_id"]] = doc
        drain(srv)
        # the history as if stored over months: moved across partitions by
        # UPDATE, into months made first (run_values has no default partition;
        # run_means' rows go to its default one, then to their month by the pass)
        srv.psql("SELECT regtrack_partition_month('run_values', x.m) FROM (SELECT DISTINCT "
                 "date_trunc('month', now() AT TIME ZONE 'UTC' - make_interval(days => a))::date "
                 "AS m FROM unnest(ARRAY%s) a) x" % AGE)
        for i, age in enumerate(AGE):
            if age:
                srv.psql("UPDATE runs SET received_at = now() - interval '%d days' "
                         "WHERE commit_id = (SELECT id FROM commits WHERE sha = '%s')"
                         % (age, csha(i)))
        srv.psql("UPDATE run_values v SET stored_on = (r.received_at AT TIME ZONE 'UTC')::date "
                 "FROM runs r WHERE r.id = v.run_id "
                 "AND v.stored_on <> (r.received_at AT TIME ZONE 'UTC')::date")
        out = srv.cli("retention").stdout
        assert "months dropped: 0" in out, out
        cls.before = cls.answers(cls)
        cls.old_run = cls.run_ids[0][1]
        cls.run_before = srv.get("/api/v1/runs/" + cls.old_run).json()
        cls.list_before = srv.get("/api/v1/runs?limit=500").json()

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

    def points(self):
        """{run/metric: [mean as text, values as text]} of every run, through run_points()"""
        return json.loads(self.srv.psql(
            "SELECT json_object_agg(r.id || '/' || p.metric_id, json_build_array(p.mean::text, "
            "p.vals::text)) FROM runs r CROSS JOIN LATERAL run_points(r.id, r.received_at) p"))

    def probed(self, run_id):
        """the partitions a lookup of run run_id's values read (EXPLAIN ANALYZE: the
        ones pruned at run time show "never executed" or are left out)"""
        plan = self.srv.psql(
            "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM runs r "
            "CROSS JOIN LATERAL run_points(r.id, r.received_at) p WHERE r.run_id = '%s'" % run_id)
        scans = [line for line in plan.splitlines() if " on run_values_y" in line
                 or " on run_means_y" in line]
        return sorted(line.split(" on ")[1].split()[0] for line in scans
                      if "never executed" not in line)

    def test_retention(self):
        srv = self.srv
        before = self.partitions()
        # every run's rows went to its month; run_values has no default partition
        self.assertEqual(srv.psql("SELECT to_regclass('run_values_default') IS NULL"), "t")
        self.assertEqual(srv.psql("SELECT count(*) FROM run_means_default"), "0")
        self.assertGreaterEqual(len(before), 7)
        self.assertEqual(sum(n for n, _ in before.values()), N * 2 * 2)
        self.assertEqual(sum(v for _, v in before.values()), N * 2 * 4)
        series0, compare0, regs0 = self.before
        # the step at commit 8 was found (the detection to keep)
        self.assertTrue(any(r.get("metric") == METRIC for r in regs0), regs0)
        mean_before = json.loads(srv.psql(
            "SELECT json_object_agg(run_id || '/' || metric_id, mean::text) FROM run_values"))
        points_before = self.points()
        self.assertEqual({k: m for k, (m, _) in points_before.items()}, mean_before)
        files = dict(line.split("|") for line in srv.psql(
            "SELECT c.relname, pg_relation_filepath(c.oid) FROM pg_inherits i "
            "JOIN pg_class c ON c.oid = i.inhrelid "
            "WHERE i.inhparent = 'run_values'::regclass").splitlines())
        # a raw run's lookup reads its own month of run_values, nothing else
        new_run = self.run_ids[-1][1]
        self.assertEqual(len(self.probed(new_run)), 1, self.probed(new_run))
        self.assertTrue(self.probed(new_run)[0].startswith("run_values_y"))

        # the pass, while a reader holds a transaction open on run_values: the
        # detach waits for it, and meanwhile the series still answers
        reader = subprocess.Popen([PG_LOCAL, "psql", "-X", "-tAq", "-d", srv.dbname],
                                  env=srv.cluster.env, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        reader.stdin.write("BEGIN;\nSELECT count(*) FROM run_values;\n")
        reader.stdin.flush()
        self.assertEqual(reader.stdout.readline().strip(), str(N * 2 * 2))
        done = {}
        pass_ = threading.Thread(target=lambda: done.update(
            out=srv.cli("--retention-raw-days", "90", "retention").stdout))
        pass_.start()
        time.sleep(3)
        t = time.monotonic()
        series_during = self.answers()[0]
        self.assertLess(time.monotonic() - t, 5)
        self.assertTrue(pass_.is_alive())
        self.assertEqual(untimed(series_during), untimed(series0))
        reader.stdin.write("COMMIT;\n")
        reader.stdin.close()
        reader.wait(30)
        reader.stdout.close()
        pass_.join(60)
        out = done["out"]
        dropped = srv.psql("SELECT string_agg(to_char(month, 'YYYY\"m\"MM') || ':' || nr_rows "
                           "|| ':' || nr_vals || ':' || (bytes > 0), ' ' ORDER BY month) "
                           "FROM run_values_dropped").split()
        self.assertIn("months dropped: %d" % len(dropped), out)
        self.assertGreaterEqual(len(dropped), 4)
        after = self.partitions()
        for d in dropped:
            month, rows, vals, has_bytes = d.split(":")
            name = "run_values_y" + month
            # the month's partition and its files are gone; the record says what it held
            self.assertNotIn(name, after)
            self.assertEqual(srv.psql("SELECT to_regclass('%s') IS NULL" % name), "t")
            # (PostgreSQL unlinks a dropped table's first segment at the next
            # checkpoint and truncates it to 0 bytes at once)
            path = os.path.join(srv.cluster.data, files[name])
            self.assertEqual(os.path.getsize(path) if os.path.exists(path) else 0, 0, path)
            self.assertFalse(os.path.exists(path + ".1") or os.path.exists(path + "_fsm"), path)
            self.assertEqual((int(rows), int(vals)), before[name])
            self.assertEqual(has_bytes, "true")
        # the other months are as they were
        self.assertEqual(after, {k: v for k, v in before.items()
                                 if k[len("run_values_y"):] not in
                                 [d.split(":")[0] for d in dropped]})
        # the runs of the last 90 days keep all their replicates
        self.assertEqual(srv.psql(
            "SELECT count(*) FROM run_values v JOIN runs r ON r.id = v.run_id "
            "WHERE r.received_at > now() - interval '80 days' AND cardinality(v.vals) = 3"),
            str((N - 6) * 2))
        # every run's every mean through run_points, to the last bit; a dropped
        # run's metric has its mean as its one value
        points_after = self.points()
        self.assertEqual({k: m for k, (m, _) in points_after.items()}, mean_before)
        nr_dropped = 0
        for k, (m, vals) in points_after.items():
            if vals != points_before[k][1]:
                self.assertEqual(vals, "{%s}" % m, k)
                nr_dropped += 1
        self.assertGreater(nr_dropped, 0)
        # a dropped run's lookup reads its month of run_means, no run_values
        probed = self.probed(self.old_run)
        self.assertEqual(len(probed), 1, probed)
        self.assertTrue(probed[0].startswith("run_means_y"), probed)
        # the run page: a dropped run shows its mean as its one value
        run = srv.get("/api/v1/runs/" + self.old_run)
        self.assertEqual(run.status, 200, run)
        mean = float(mean_before["%s/%s" % (
            srv.psql("SELECT id FROM runs WHERE run_id = '%s'" % self.old_run),
            srv.psql("SELECT id FROM metrics WHERE name = '%s'" % METRIC))])
        self.assertEqual(len(self.run_before["metrics"][METRIC]), 3)
        self.assertEqual(run.json()["metrics"][METRIC], [mean])
        self.assertEqual(run.json()["metrics"][OTHER], self.run_before["metrics"][OTHER])
        # ... and says so: its values are the run's means, dropped when its month was
        self.assertEqual((self.run_before["values_kept"], self.run_before["raw_dropped_at"]),
                         ("raw", None))
        month = srv.psql("SELECT date_trunc('month', received_at AT TIME ZONE 'UTC')::date "
                         "FROM runs WHERE run_id = '%s'" % self.old_run)
        self.assertEqual(run.json()["values_kept"], "mean")
        self.assertEqual(run.json()["raw_dropped_at"], srv.psql(
            "SELECT to_char(dropped_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') "
            "FROM run_values_dropped WHERE month = '%s'" % month))
        self.assertEqual(untimed(dict(run.json(), metrics=None, values_kept=None)),
                         untimed(dict(self.run_before, metrics=None, values_kept=None)))
        new = srv.get("/api/v1/runs/" + self.run_ids[-1][1]).json()
        self.assertEqual((new["values_kept"], new["raw_dropped_at"], len(new["metrics"][METRIC])),
                         ("raw", None, 3))
        # the same document again: nothing stored, and the reply counts what the
        # store holds for it (one mean a metric), not the 4 numbers it carries
        again = srv.post("/api/v1/results", self.docs[self.old_run], scope="submit")
        self.assertEqual(again.status, 200, again)
        self.assertEqual(again.json(), {"run_id": self.old_run, "created": False, "metrics": 2,
                                        "values": 2, "values_kept": "mean"})
        again = srv.post("/api/v1/results", self.docs[self.run_ids[-1][1]], scope="submit")
        self.assertEqual(again.json(), {"run_id": self.run_ids[-1][1], "created": False,
                                        "metrics": 2, "values": 4, "values_kept": "raw"})
        # the runs list (metrics a run) as before
        self.assertEqual(srv.get("/api/v1/runs?limit=500").json(), self.list_before)

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
        # the detection ran again on the history read from run_means
        self.assertNotEqual(series1, series0)

        # a second pass finds nothing more to do
        out = srv.cli("--retention-raw-days", "90", "retention").stdout
        self.assertIn("partitions made: 0, months dropped: 0", out)

        # a pass cut short is finished by the next: a month detached but not
        # dropped is dropped, a month left pending detach is finalized
        srv.psql("SELECT regtrack_partition_month('run_values', '2020-01-01'), "
                 "regtrack_partition_month('run_values', '2020-02-01')")
        srv.psql("INSERT INTO run_values_dropped (month, nr_rows, nr_vals, bytes) "
                 "VALUES ('2020-01-01', 0, 0, 0)")
        srv.psql("ALTER TABLE run_values DETACH PARTITION run_values_y2020m01")
        out = srv.cli("--retention-raw-days", "90", "retention").stdout
        self.assertIn("months dropped: 1", out)
        self.assertEqual(srv.psql("SELECT to_regclass('run_values_y2020m01') IS NULL AND "
                                  "to_regclass('run_values_y2020m02') IS NULL"), "t")
        self.assertEqual(untimed(self.answers()[0]), untimed(series0))


if __name__ == "__main__":
    unittest.main()
