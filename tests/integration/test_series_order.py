"""GET /api/v1/series orders its points in server/api/series.c (ST_SERIES
reads them unordered, ST_SERIES_COMMITS gives the commits' order): the
answer must be the order of "ORDER BY s.id, c.topo_order NULLS LAST,
c.commit_time NULLS LAST, c.first_seen, c.id, r.id" — two setups, commits
with and without topo_order and commit_time, several runs per commit posted
out of order."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, result_doc, sha  # noqa: E402


def setUpModule():
    global srv
    srv = Server()


def tearDownModule():
    srv.stop()


class SeriesOrder(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # (commit, commit_time or None, params) in posting order; value = posting index
        posts = [("e1", "2026-03-01T00:00:00Z", "p1"), ("e2", "2026-02-01T00:00:00Z", "p1"),
                 ("e3", None, "p1"), ("e1", "2026-03-01T00:00:00Z", "p2"),
                 ("e4", "2026-01-01T00:00:00Z", "p2"), ("e2", "2026-02-01T00:00:00Z", "p1"),
                 ("e5", None, "p1"), ("e3", None, "p1"), ("e6", "2026-04-01T00:00:00Z", "p1"),
                 ("e1", "2026-03-01T00:00:00Z", "p1"), ("e4", "2026-01-01T00:00:00Z", "p2")]
        for i, (c, t, p) in enumerate(posts):
            extra = {"params": {"order": p}}
            if t:
                extra["commit_time"] = t
            d = result_doc(sha(c), testcase="ord", metrics={"ord.m": [float(i)]}, **extra)
            r = srv.post("/api/v1/results", d, scope="submit")
            assert r.status in (200, 201), r
        # the tree's history read for two commits: they come first, by topo_order
        srv.psql("UPDATE commits SET topo_order = 7 WHERE sha = '%s'" % sha("e6"))
        srv.psql("UPDATE commits SET topo_order = 3 WHERE sha = '%s'" % sha("e3"))

    def expected(self):
        """(setup id, sha, run_id, value) in the SQL order of the series."""
        rows = srv.psql(
            "SELECT s.id, c.sha, r.run_id, v.mean FROM run_values v "
            "JOIN metrics m ON m.id = v.metric_id JOIN runs r ON r.id = v.run_id "
            "JOIN setups s ON s.id = r.setup_id JOIN testcases t ON t.id = s.testcase_id "
            "JOIN commits c ON c.id = r.commit_id WHERE m.name = 'ord.m' AND t.name = 'ord' "
            "ORDER BY s.id, c.topo_order NULLS LAST, c.commit_time NULLS LAST, c.first_seen, "
            "c.id, r.id").splitlines()
        return [(int(a), b, c, float(d)) for a, b, c, d in (x.split("|") for x in rows)]

    def test_order_is_the_sql_order(self):
        r = srv.get("/api/v1/series?testcase=ord&metric=ord.m")
        self.assertEqual(r.status, 200, r)
        got = []
        for s in r.json()["series"]:
            shas = [c["sha"] for c in s["commits"]]
            # each commit once per series, in the order of its first point
            self.assertEqual(len(shas), len(set(shas)))
            p = s["points"]
            self.assertEqual(p["commit"], sorted(p["commit"]))
            for ci, rid, val in zip(p["commit"], p["run_id"], p["value"]):
                got.append((s["setup"]["id"], shas[ci], rid, val))
        want = self.expected()
        self.assertEqual(len(want), 11)
        self.assertEqual(got, want)
        # the order spelled out for setup p1: topo-ordered e3 (3) then e6 (7),
        # then by commit time e2 < e1, then e5 (no time, no topo order); runs
        # of a commit in posting order
        p1 = [(c, v) for (sid, c, _, v) in got if sid == got[0][0]]
        self.assertEqual(p1, [(sha("e3"), 2.0), (sha("e3"), 7.0), (sha("e6"), 8.0),
                              (sha("e2"), 1.0), (sha("e2"), 5.0), (sha("e1"), 0.0),
                              (sha("e1"), 9.0), (sha("e5"), 6.0)])

    def test_filter_to_one_setup(self):
        r = srv.get("/api/v1/series?testcase=ord&metric=ord.m&params=%7B%22order%22%3A%22p2%22%7D")
        self.assertEqual(r.status, 200, r)
        (s,) = r.json()["series"]
        self.assertEqual([c["sha"] for c in s["commits"]], [sha("e4"), sha("e1")])
        self.assertEqual([c["commit_time"] for c in s["commits"]],
                         ["2026-01-01T00:00:00Z", "2026-03-01T00:00:00Z"])
        self.assertEqual(s["points"]["commit"], [0, 0, 1])
        self.assertEqual(s["points"]["value"], [4.0, 10.0, 3.0])

    def test_no_points(self):
        r = srv.get("/api/v1/series?testcase=ord&metric=ord.none")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json()["series"], [])


if __name__ == "__main__":
    unittest.main()
