"""A bisect asked for by hand on a regression's range is linked to the regression."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import result_doc, wait_until  # noqa: E402
from fakes import git, git_init, stop_tree_server, tree_server  # noqa: E402


class HandBisect(unittest.TestCase):
    """A bisect asked for by hand on a regression's range is linked to it."""

    @classmethod
    def setUpClass(cls):
        def tree(path):
            git_init(path)
            shas = []
            for i in range(3):
                with open(os.path.join(path, "a.c"), "w") as f:
                    f.write("int a%d;\n" % i)
                git(path, "add", "a.c")
                git(path, "commit", "-q", "-m", "c%d" % i, date="2026-01-01T00:0%d:00Z" % i)
                shas.append(git(path, "rev-parse", "HEAD"))
            return shas
        # the server's default auto_bisect (on)
        cls.tmp, cls.repo, cls.shas, cls.srv = tree_server("regtrack-fhb-", tree,
                                                           auto_bisect=None)
        r = cls.srv.post("/api/v1/trees", {"name": "linux", "url": cls.repo,
                                           "branches": ["master"], "poll_s": 0}, scope="admin")
        assert r.status == 200, r

    @classmethod
    def tearDownClass(cls):
        stop_tree_server(cls.srv, cls.tmp)

    def regression(self, good, bad, state="new"):
        srv = self.srv
        for c, v in ((good, 100.0), (bad, 80.0)):
            r = srv.post("/api/v1/results", result_doc(c, metrics={"vm-scalability.throughput": [v]}),
                         scope="submit")
            self.assertIn(r.status, (200, 201), r)
        return int(srv.psql(
            "INSERT INTO regressions (setup_id, metric_id, good_commit_id, bad_commit_id, kind, "
            "state, change_pct, verdict, n_before, n_after, commits_after, pair_verdict) "
            "SELECT r.setup_id, m.id, g.id, b.id, 'regression', '%s', -20, 'different', "
            "1, 1, 1, 'different' FROM runs r JOIN commits b ON b.id = r.commit_id, commits g, "
            "metrics m WHERE b.sha = '%s' AND g.sha = '%s' AND m.name = "
            "'vm-scalability.throughput' LIMIT 1 RETURNING id" % (state, bad, good)).split()[0])

    def body(self, good, bad, **kw):
        b = {"tree": "linux", "good": good, "bad": bad, "testcase": "vm-scalability",
             "params": {"test": "small-allocs", "nr_task": "100%"}, "kconfig": "x86_64-defconfig",
             "compiler": "gcc-12", "tbox_group": "vm-2p", "metric": "vm-scalability.throughput"}
        b.update(kw)
        return b

    def test_bisect_now(self):
        # the regression page's button: POST /api/v1/regressions/{id}/bisect (admin)
        srv, (c0, c1, c2) = self.srv, self.shas
        rid = self.regression(c0, c1)
        path = "/api/v1/regressions/%d/bisect" % rid
        self.assertEqual(srv.post(path, {}, scope="submit").status, 403)
        r = srv.post(path, {}, scope="admin")
        self.assertEqual(r.status, 201, r)
        self.assertEqual((r.json()["regression_id"], r.json()["state"]), (rid, "queued"), r)
        b = srv.get("/api/v1/bisects/%d" % r.json()["id"]).json()
        self.assertEqual((b["regression_id"], b["metric"], b["testcase"]),
                         (rid, "vm-scalability.throughput", "vm-scalability"), b)
        reg = srv.get("/api/v1/regressions/%d" % rid).json()
        self.assertEqual((reg["state"], reg["bisect_id"]), ("bisecting", r.json()["id"]), reg)
        r = srv.post(path, {}, scope="admin")
        self.assertEqual((r.status, r.json()["error"]["code"]), (409, "conflict"), r)
        self.assertIn("has bisect", r.json()["error"]["message"])
        r = srv.post("/api/v1/regressions/999999/bisect", {}, scope="admin")
        self.assertEqual(r.status, 404, r)

    def test_linked_by_range_and_by_id(self):
        srv, (c0, c1, c2) = self.srv, self.shas
        rid = self.regression(c0, c2)
        r = srv.post("/api/v1/bisects", self.body(c0, c2), scope="submit")
        self.assertEqual(r.status, 201, r)
        self.assertEqual(r.json()["regression_id"], rid, r)
        reg = srv.get("/api/v1/regressions/%d" % rid).json()
        self.assertEqual((reg["state"], reg["bisect_id"]), ("bisecting", r.json()["id"]), reg)
        self.assertIn("bisect %d started by hand" % r.json()["id"],
                      [h.get("note") for h in reg["history"]])
        # the regression has its bisect: naming it again is a conflict; another range links nothing
        r = srv.post("/api/v1/bisects", self.body(c0, c2, regression_id=rid), scope="submit")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (409, "regression_id"), r)
        # (c1, c2): test_auto_bisect's regression, bisected already
        r = srv.post("/api/v1/bisects", self.body(c1, c2), scope="submit")
        self.assertEqual((r.status, r.json()["regression_id"]), (201, None), r)
        r = srv.post("/api/v1/bisects", self.body(c0, c1, regression_id=999999), scope="submit")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (404, "regression_id"), r)

    def test_auto_bisect_is_on_by_default(self):
        # this server's config says nothing of auto_bisect: a confirmed regression is bisected
        srv, (c0, c1, c2) = self.srv, self.shas
        rid = self.regression(c1, c2, state="confirmed")
        reg = wait_until(lambda: (lambda g: g if g.get("bisect_id") else None)(
            srv.get("/api/v1/regressions/%d" % rid).json()), what="auto bisect")
        self.assertEqual(reg["state"], "bisecting", reg)


if __name__ == "__main__":
    unittest.main()
