"""The read replica (server/replica.h): a hot standby made with
`deploy/pg-local standby` (pg_basebackup -R) streaming from the tests'
cluster, and a server with db_replica pointing at it.

- a lag-tolerant read (GET /api/v1/series) is served by the standby: with
  its replay paused, a run posted after the pause is missing from the
  series until the lag passes db_replica_max_lag, then the series has it
  (read from the primary), and has it again once replay resumes;
- a standby that is stopped changes nothing a user sees: the series is
  whole, every reply 200, /healthz says "down";
- the server never writes to the standby: posts succeed while reads go
  to it, every route that reads from it answers, and the standby's log
  holds no refused write."""
import os
import re
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import PG_LOCAL, Cluster, Server, result_doc, sha, wait_until  # noqa: E402

# long enough for a post and a read on a loaded machine to fall within it
MAX_LAG = 6


def setUpModule():
    global primary, standby_env, standby_data, srv
    primary = Cluster.get()
    standby_data = os.path.join(primary.tmp, "pg-standby")
    standby_env = dict(os.environ, REGTRACK_PGDATA=standby_data,
                       REGTRACK_PGPORT=str(int(primary.port) + 1))
    srv = Server()
    out = subprocess.run([PG_LOCAL, "standby", primary.data], env=standby_env, check=True,
                         capture_output=True, text=True, timeout=300)
    replica = out.stdout.strip().splitlines()[-1].replace("dbname=regtrack",
                                                          "dbname=" + srv.dbname)
    conf = os.path.join(primary.tmp, "server-%s-replica.conf" % srv.dbname)
    with open(conf, "w") as f:
        f.write("auto_bisect = 0\ndb_replica = %s\ndb_replica_max_lag = %d\n"
                % (replica, MAX_LAG))
    srv.stop()
    srv.extra_args = ["--config", conf]
    srv.start()
    wait_until(lambda: health()["replica"]["state"] == "ok", 60, "the replica to be ok")


def tearDownModule():
    srv.stop()
    subprocess.run([PG_LOCAL, "stop"], env=standby_env, timeout=120)


def health():
    r = srv.get("/healthz")
    assert r.status == 200, r
    return r.json()


def standby_sql(sql):
    out = subprocess.run([PG_LOCAL, "psql", "-X", "-tAq", "-d", srv.dbname, "-c", sql],
                         env=standby_env, check=True, capture_output=True, text=True,
                         timeout=60)
    return out.stdout.strip()


def replica_reads():
    r = srv.get("/metrics")
    m = re.search(r'^regtrack_replica_reads_total\{db="replica"\} (\d+)$', r.body, re.M)
    return int(m.group(1))


def post(commit, value):
    r = srv.post("/api/v1/results", result_doc(sha(commit), testcase="rep",
                                               metrics={"rep.m": [value]}), scope="submit")
    assert r.status in (200, 201), r
    return r


def series_values():
    r = srv.get("/api/v1/series?testcase=rep&metric=rep.m", scope="read")
    assert r.status == 200, r
    s = r.json()["series"]
    return sorted(float(v) for x in s for v in x["points"]["value"]) if s else []


class ReplicaTest(unittest.TestCase):
    def test_1_reads_from_standby_and_bypasses_when_behind(self):
        post("a", 10.0)
        # the standby replays it within the bound; served from it
        wait_until(lambda: series_values() == [10.0], 20, "the first run on the replica")
        before = replica_reads()
        self.assertEqual(series_values(), [10.0])
        self.assertGreater(replica_reads(), before)
        self.assertEqual(standby_sql("SELECT pg_is_in_recovery()"), "t")

        standby_sql("SELECT pg_wal_replay_pause()")
        try:
            t0 = time.monotonic()
            post("b", 20.0)  # a write while reads go to the standby: 2xx, on the primary
            self.assertEqual(srv.psql("SELECT count(*) FROM runs"), "2")
            # the standby does not have it yet: the read came from there
            self.assertEqual(series_values(), [10.0])
            # past the bound the standby is bypassed: the fresh row, from the primary
            wait_until(lambda: series_values() == [10.0, 20.0], MAX_LAG + 10,
                       "the primary's answer once the replica lags")
            self.assertGreaterEqual(time.monotonic() - t0, MAX_LAG - 1)
            # the read may leave the standby before the watcher's check says lagging (a
            # check that is late counts as lag: replica.c usable()); the check follows
            wait_until(lambda: health()["replica"]["state"] == "lagging", 10, "healthz: lagging")
            h = health()  # the lag only grows while replay is paused
            self.assertEqual(h["replica"]["state"], "lagging")
            self.assertGreater(h["replica"]["lag_s"], MAX_LAG)
            self.assertEqual(standby_sql("SELECT count(*) FROM runs"), "1")
        finally:
            standby_sql("SELECT pg_wal_replay_resume()")
        wait_until(lambda: health()["replica"]["state"] == "ok", 20, "the replica to catch up")
        before = replica_reads()
        self.assertEqual(series_values(), [10.0, 20.0])
        self.assertGreater(replica_reads(), before)

    def test_2_stopped_standby_changes_nothing_seen(self):
        post("c", 30.0)
        wait_until(lambda: series_values() == [10.0, 20.0, 30.0], 20, "the third run")
        subprocess.run([PG_LOCAL, "stop"], env=standby_env, check=True, timeout=120)
        try:
            # every read right after the stop: whole, 200 (series_values asserts it)
            for _ in range(20):
                self.assertEqual(series_values(), [10.0, 20.0, 30.0])
                r = srv.get("/api/v1/runs", scope="read")
                self.assertEqual(r.status, 200, r)
                self.assertEqual(len(r.json()), 3)
            post("d", 40.0)
            self.assertEqual(series_values(), [10.0, 20.0, 30.0, 40.0])
            wait_until(lambda: health()["replica"]["state"] == "down", 10, "healthz: down")
            self.assertEqual(health()["status"], "ok")
        finally:
            subprocess.run([PG_LOCAL, "start"], env=standby_env, check=True, timeout=120,
                           capture_output=True)
        wait_until(lambda: health()["replica"]["state"] == "ok", 60, "the replica back")
        wait_until(lambda: series_values() == [10.0, 20.0, 30.0, 40.0], 20, "all four runs")

    def test_3_never_writes_to_standby(self):
        # every route that reads from the standby, while it is in use: none may write
        # (the standby would refuse: a 500 here, "read-only transaction" in its log)
        run_id = srv.get("/api/v1/runs", scope="read").json()[0]["run_id"]
        paths = ["/api/v1/runs", "/api/v1/runs/" + run_id,
                 "/api/v1/compare?base=%s&head=%s" % (sha("a"), sha("b")),
                 "/api/v1/machines", "/api/v1/metrics", "/api/v1/testcases", "/api/v1/jobs",
                 "/api/v1/regressions", "/api/v1/regressions/1", "/api/v1/quality",
                 "/api/v1/bisects", "/api/v1/bisects/1"]
        before = replica_reads()
        for path in paths:
            r = srv.get(path, scope="read")
            self.assertIn(r.status, (200, 404), (path, r))
        self.assertEqual(replica_reads() - before, len(paths))
        with open(os.path.join(standby_data, "server.log"), errors="replace") as f:
            log = f.read()
        self.assertNotIn("read-only transaction", log)
        with open(srv.log.name, errors="replace") as f:
            self.assertNotIn("read-only", f.read())


if __name__ == "__main__":
    unittest.main()
