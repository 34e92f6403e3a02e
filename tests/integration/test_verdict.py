"""Verdicts that never point the wrong way, end to end.

A `different` verdict's size and direction come from the rank test's
Hodges-Lehmann shift, never from the means: one failed run moves the means
(and LKP's %change of a negative base has the opposite sign of the change).
Through the real server: GET /api/v1/compare and the CLI's --gate, and
detection's regression records (kind, size, confirmation). Fixed seeds.
"""
import hashlib
import json
import os
import random
import subprocess
import sys
import time
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import BIN, Server, result_doc, sha  # noqa: E402

OPS = "will-it-scale.per_process_ops"   # higher is better (name pattern)
SCORE = "custom.score"                  # higher is better, negative values
WAIT_S = 120


def setUpModule():
    global srv
    srv = Server()


def tearDownModule():
    srv.stop()


def post(doc):
    r = srv.post("/api/v1/results", doc, scope="submit")
    assert r.status in (200, 201), r


def csha(label, i):
    return hashlib.sha1(("%s-%d" % (label, i)).encode()).hexdigest()


def wait_idle():
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if srv.psql("SELECT count(*) FROM detect_queue") == "0":
            return
        time.sleep(0.1)
    raise AssertionError("detection queue not drained in %d s" % WAIT_S)


def records(testcase, metric):
    r = srv.get("/api/v1/regressions?" + urllib.parse.urlencode(
        {"testcase": testcase, "metric": metric}))
    assert r.status == 200, r
    return r.json()["regressions"]


class CompareOneFailedRun(unittest.TestCase):
    """The issue's sample: base 10 runs near 1000 (sd 5), head 9 runs near
    1010 and one failed run at 10. The means say -8.97 %; the shift +1.0 %."""

    @classmethod
    def setUpClass(cls):
        # seed 1: the shift is +1.06 %, just above the 1 % floor (sd 5 on 1000
        # runs puts the HL estimate of other seeds on either side of it)
        rnd = random.Random(1)
        cls.base, cls.head = sha("1"), sha("2")
        for _ in range(10):
            post(result_doc(cls.base, testcase="verdict-cmp", params={},
                            metrics={OPS: [1000 + rnd.gauss(0, 5)]}))
        for v in [1010 + rnd.gauss(0, 5) for _ in range(9)] + [10.0]:
            post(result_doc(cls.head, testcase="verdict-cmp", params={}, metrics={OPS: [v]}))

    def test_compare_row_is_an_improvement_of_one_percent(self):
        r = srv.get("/api/v1/compare?base=%s&head=%s&testcase=verdict-cmp" % (self.base, self.head))
        self.assertEqual(r.status, 200, r)
        row = r.json()["rows"][0]
        self.assertEqual(row["metric"], OPS)
        self.assertEqual(row["verdict"], "different")
        self.assertEqual(row["change"], "improvement")
        self.assertAlmostEqual(row["hl_pct"], 1.0, delta=0.3)
        self.assertEqual(row["direction"], 1)
        self.assertAlmostEqual(row["shift"], 10.0, delta=3.0)
        self.assertEqual(row["outliers"], [0, 1])
        # LKP's %change of the means stays in the table, as LKP prints it
        self.assertLess(row["change_pct"], -8)
        lo, hi = row["ci_pct"]
        self.assertLess(lo, row["hl_pct"])
        self.assertGreater(hi, row["hl_pct"])
        self.assertGreater(lo, 0)

    def test_gate_does_not_fail_an_improvement(self):
        env = dict(os.environ, REGTRACK_SERVER=srv.url, REGTRACK_TOKEN=srv.tokens["read"])
        for extra in ((), ("--text",)):
            out = subprocess.run([os.path.join(BIN, "regtrack"), "compare", "--base", self.base,
                                  "--head", self.head, "--testcase", "verdict-cmp", "--gate"]
                                 + list(extra), env=env, capture_output=True, text=True,
                                 timeout=60)
            self.assertEqual(out.returncode, 0, (extra, out.stdout, out.stderr))


class DetectionDirection(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        rnd = random.Random(2323)
        # +2 % at commit 15 (sd 1 on 1000, 3 runs a commit) and one failed run
        # (10) at the step: the after side's mean falls below the before side's
        for i in range(30):
            vals = [(1020.0 if i >= 15 else 1000.0) + rnd.gauss(0, 1) for _ in range(3)]
            if i == 15:
                vals[1] = 10.0
            for v in vals:
                post(result_doc(csha("flip", i), testcase="verdict-flip", params={},
                                metrics={OPS: [v]},
                                commit_time="2026-01-01T00:%02d:00Z" % i,
                                commit_subject="flip commit %d" % i))
        # a negative higher-is-better metric: -60742 -> -50000 is a rise (LKP's
        # %change -17.7 %), -50000 -> -60742 a fall (+21.5 %)
        for label, before, after in (("neg-up", -60742.0, -50000.0),
                                     ("neg-down", -50000.0, -60742.0)):
            for i in range(30):
                for _ in range(3):
                    v = (after if i >= 15 else before) * (1 + rnd.gauss(0, 0.002))
                    post(result_doc(csha(label, i), testcase="verdict-" + label, params={},
                                    metrics={SCORE: [v]},
                                    commit_time="2026-01-02T00:%02d:00Z" % i,
                                    commit_subject="%s commit %d" % (label, i)))
        wait_idle()

    def one(self, testcase, metric):
        recs = records(testcase, metric)
        self.assertEqual(len(recs), 1, recs)
        return recs[0]

    def test_one_failed_run_at_the_step_does_not_flip_the_kind(self):
        r = self.one("verdict-flip", OPS)
        self.assertEqual((r["good"]["sha"], r["bad"]["sha"]), (csha("flip", 14), csha("flip", 15)))
        self.assertEqual(r["verdict"], "different")
        self.assertEqual(r["kind"], "improvement")
        self.assertEqual(r["direction"], 1)
        self.assertAlmostEqual(r["hl_pct"], 2.0, delta=0.3)
        self.assertAlmostEqual(r["shift"], 20.0, delta=3.0)
        self.assertLess(r["change_pct"], 0)   # the means, moved by the failed run
        self.assertEqual(r["outliers"], [0, 1])
        lo, hi = r["ci_pct"]
        self.assertTrue(lo < r["hl_pct"] < hi, r)
        # confirmed by the step in its own direction (rule b); nothing to bisect
        self.assertEqual(r["state"], "confirmed")
        self.assertIsNone(r["bisect_id"])
        # the series' change point says the same
        ser = srv.get("/api/v1/series?" + urllib.parse.urlencode(
            {"testcase": "verdict-flip", "metric": OPS})).json()["series"][0]
        cp, = ser["change_points"]
        self.assertEqual((cp["regression_id"], cp["kind"], cp["direction"]), (r["id"], "improvement", 1))
        self.assertEqual(cp["hl_pct"], r["hl_pct"])
        hist = srv.get("/api/v1/regressions/%d" % r["id"]).json()["history"]
        self.assertRegex(hist[0]["note"], r"^detected improvement of '%s': \+[12]\.\d\d%% .*means -" % OPS)

    def test_negative_values_rising_is_an_improvement(self):
        r = self.one("verdict-neg-up", SCORE)
        self.assertEqual(r["higher_is_better"], True)
        self.assertEqual(r["kind"], "improvement")
        self.assertEqual(r["direction"], 1)
        self.assertAlmostEqual(r["hl_pct"], 17.7, delta=0.5)
        self.assertAlmostEqual(r["change_pct"], -17.7, delta=0.5)   # LKP's signed base

    def test_negative_values_falling_is_a_regression(self):
        r = self.one("verdict-neg-down", SCORE)
        self.assertEqual(r["kind"], "regression")
        self.assertEqual(r["direction"], -1)
        self.assertAlmostEqual(r["hl_pct"], -21.5, delta=0.5)
        self.assertAlmostEqual(r["change_pct"], 21.5, delta=0.5)


if __name__ == "__main__":
    unittest.main()
