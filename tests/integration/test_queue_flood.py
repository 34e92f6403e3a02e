"""Issue 35 item 4: a queue of 100k jobs for a target no worker has (a
tbox_group nobody registered) leaves leases fast: the lease reads the first
job of each target the machine matches (sql/0030), never the whole queue.
Before, every lease read all 100k (420 ms each on a test machine), and long
polls answered after 17-42 s."""
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, wait_until  # noqa: E402
from fakes import MACHINE  # noqa: E402

FLOOD = 100000


class QueueFlood(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = Server()

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def test_lease_with_100k_unleasable_jobs(self):
        srv = self.srv
        r = srv.post("/api/v1/workers/register",
                     dict(MACHINE, hostname="flood1", tbox_group="vm-2p", capabilities=["host"]),
                     scope="worker")
        self.assertEqual(r.status, 200, r)
        mid = r.json()["machine_id"]
        # 100k jobs at priority 10 for a tbox_group nobody has, then 5 at 0 for this one
        srv.cluster.psql(
            "INSERT INTO commits (sha) VALUES (repeat('f', 40));"
            "INSERT INTO testcases (name) VALUES ('flood') ON CONFLICT DO NOTHING;"
            "INSERT INTO jobs (commit_id, testcase_id, kconfig, compiler, tbox_group, "
            "need_capability, priority) SELECT (SELECT id FROM commits WHERE sha = "
            "repeat('f', 40)), (SELECT id FROM testcases WHERE name = 'flood'), 'host', 'gcc', "
            "'nobody-has-it', 'host', 10 FROM generate_series(1, %d);"
            "INSERT INTO jobs (commit_id, testcase_id, kconfig, compiler, tbox_group, "
            "need_capability, priority) SELECT (SELECT id FROM commits WHERE sha = "
            "repeat('f', 40)), (SELECT id FROM testcases WHERE name = 'flood'), 'host', 'gcc', "
            "'vm-2p', 'host', 0 FROM generate_series(1, 5);"
            "ANALYZE jobs;" % FLOOD, db=srv.dbname)
        def read_and_updated():
            """rows of jobs read (index and sequential scans) and updated, as counted"""
            out = srv.cluster.psql(
                "SELECT coalesce(idx_tup_fetch, 0) + coalesce(seq_tup_read, 0), n_tup_upd "
                "FROM pg_stat_user_tables WHERE relname = 'jobs'", db=srv.dbname)
            return [int(x) for x in out.split("|")]
        before = read_and_updated()
        leased = []
        for _ in range(5):
            r = srv.post("/api/v1/jobs/lease", {"machine_id": mid, "wait_s": 0}, scope="worker")
            self.assertEqual(r.status, 200, r)
            leased.append(r.json()["job"]["tbox_group"])
        self.assertEqual(leased, ["vm-2p"] * 5)
        # nothing left for it
        r = srv.post("/api/v1/jobs/lease", {"machine_id": mid, "wait_s": 0}, scope="worker")
        self.assertEqual(r.status, 204, r)
        # the server's backends report their counts when idle (at most once a second)
        wait_until(lambda: read_and_updated()[1] >= before[1] + 5, timeout=30,
                   what="the leases' statistics")
        read = read_and_updated()[0] - before[0]
        # six leases read a few hundred rows at most (the jobs' own, the lease's
        # skip_images); a scan of the queue in priority order read 100k each
        self.assertLess(read, 5000, read)
        # /healthz and a 1 s long poll answer on time beside the flood
        t0 = time.monotonic()
        self.assertEqual(srv.get("/healthz").status, 200)
        self.assertLess(time.monotonic() - t0, 1.0)
        t0 = time.monotonic()
        r = srv.post("/api/v1/jobs/lease", {"machine_id": mid, "wait_s": 1}, scope="worker")
        self.assertEqual(r.status, 204, r)
        self.assertLess(time.monotonic() - t0, 2.0)


if __name__ == "__main__":
    unittest.main()
