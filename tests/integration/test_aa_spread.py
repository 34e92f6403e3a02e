"""Deterministic measurement in the compare API.

In an icount setup the A/A spread measured from the setup's own history
(runs of one commit, runs of commits built to one image) lets a 3-vs-3
comparison decide by compare_deterministic() (lib/stats/compare.h), where
the rank test can never go below p = 0.1 and says need-more-runs. A
wall-clock setup with the same numbers stays with the rank test.
"""
import hashlib
import os
import sys
import time
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, result_doc  # noqa: E402

OPS = "will-it-scale.per_process_ops"   # higher is better (name pattern)
ICOUNT = {"test": "small-allocs", "measure": "icount"}
WALL = {"test": "small-allocs"}

# A/A history: 4 commits x 2 runs, each pair within 0.04 % (0.4 on ~1000)
HISTORY = [(1000.0, 1000.4), (1001.0, 1001.2), (999.0, 999.3), (1000.5, 1000.6)]
BASE = [1000.0, 1000.2, 1000.1]
HEAD_5 = [1050.0, 1050.3, 1050.1]   # +5 %
HEAD_03 = [1003.0, 1003.2, 1003.1]  # +0.3 %


def setUpModule():
    global srv
    srv = Server()


def tearDownModule():
    srv.stop()


def csha(label, i=0):
    return hashlib.sha1(("%s-%d" % (label, i)).encode()).hexdigest()


def post(commit, testcase, params, value, **extra):
    r = srv.post("/api/v1/results", result_doc(commit, testcase=testcase, params=params,
                                               metrics={OPS: [value]}, **extra), scope="submit")
    assert r.status in (200, 201), r


def row(base, head, testcase):
    r = srv.get("/api/v1/compare?base=%s&head=%s&testcase=%s" % (base, head, testcase))
    assert r.status == 200, r
    rows = r.json()["rows"]
    assert len(rows) == 1, rows
    return rows[0]


def setup_history(testcase, params):
    for i, pair in enumerate(HISTORY):
        for v in pair:
            post(csha(testcase + "-hist", i), testcase, params, v)
    base, h5, h03 = csha(testcase + "-base"), csha(testcase + "-h5"), csha(testcase + "-h03")
    for c, vals in ((base, BASE), (h5, HEAD_5), (h03, HEAD_03)):
        for v in vals:
            post(c, testcase, params, v)
    return base, h5, h03


class IcountSetup(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.base, cls.h5, cls.h03 = setup_history("aa-icount", ICOUNT)

    def test_five_percent_three_runs_a_side_is_different_by_spread(self):
        w = row(self.base, self.h5, "aa-icount")
        self.assertEqual(w["n"], [3, 3])
        self.assertEqual(w["verdict"], "different")  # the rank test alone: need-more-runs
        self.assertEqual((w["verdict"], w["by_spread"], w["change"]),
                         ("different", True, "improvement"))
        # the history's 8 runs and the other head's 3 (the compared commits'
        # own runs left out); the largest range is 0.4 / 1000.2 = 0.03999 %
        self.assertEqual(w["aa_runs"], 11)
        self.assertAlmostEqual(w["aa_spread_pct"], 0.4 / 1000.2 * 100, places=6)
        self.assertAlmostEqual(w["hl_pct"], 5.0, delta=0.02)
        # the rank test alone could not decide: 3 vs 3 has p >= 0.1
        self.assertAlmostEqual(w["p_value"], 0.1, places=6)
        self.assertIsNone(w["q_value"])  # not in the FDR family: no p-value decided it

    def test_small_shift_is_same_by_spread(self):
        w = row(self.base, self.h03, "aa-icount")
        self.assertEqual(w["verdict"], "same")  # the rank test alone: need-more-runs
        self.assertEqual((w["verdict"], w["by_spread"], w["aa_runs"]), ("same", True, 11))
        self.assertAlmostEqual(w["hl_pct"], 0.3, delta=0.01)


class WallclockSetup(unittest.TestCase):
    """The same numbers in a wall-clock setup: no spread is measured, the rank test decides."""

    @classmethod
    def setUpClass(cls):
        cls.base, cls.h5, cls.h03 = setup_history("aa-wall", WALL)

    def test_rank_test_alone(self):
        for head in (self.h5, self.h03):
            w = row(self.base, head, "aa-wall")
            self.assertEqual((w["verdict"], w["by_spread"], w["aa_spread_pct"], w["aa_runs"]),
                             ("need-more-runs", False, None, 0))


class IdenticalImages(unittest.TestCase):
    """Commits of one image_sha256 are one kernel: 3 pairs of commits with one run
    each make 6 A/A runs; without the images the same runs make none."""

    @classmethod
    def setUpClass(cls):
        for tc, with_image in (("aa-img", True), ("aa-noimg", False)):
            for i, (x, y) in enumerate(HISTORY[:3]):
                img = hashlib.sha256(("img-%d" % i).encode()).hexdigest()
                extra = {"image_sha256": img} if with_image else {}
                post(csha(tc + "-a", i), tc, ICOUNT, x, **extra)
                post(csha(tc + "-b", i), tc, ICOUNT, y, **extra)
            for c, vals in ((csha(tc + "-base"), BASE), (csha(tc + "-h5"), HEAD_5)):
                for v in vals:
                    post(c, tc, ICOUNT, v)

    def test_image_pairs_count_as_one_kernel(self):
        w = row(csha("aa-img-base"), csha("aa-img-h5"), "aa-img")
        self.assertEqual((w["verdict"], w["by_spread"], w["aa_runs"]), ("different", True, 6))
        self.assertAlmostEqual(w["aa_spread_pct"], 0.4 / 1000.2 * 100, places=6)

    def test_single_runs_without_images_are_no_evidence(self):
        w = row(csha("aa-noimg-base"), csha("aa-noimg-h5"), "aa-noimg")
        self.assertEqual((w["verdict"], w["by_spread"], w["aa_spread_pct"], w["aa_runs"]),
                         ("need-more-runs", False, None, 0))


def wait_idle():
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if srv.psql("SELECT count(*) FROM detect_queue") == "0":
            return
        time.sleep(0.1)
    raise AssertionError("detection queue not drained")


class DetectionConfirms(unittest.TestCase):
    """A +5 % step 4 commits before the tip of 50, 2 runs a commit within 0.03 %:
    the step is too short for the detector's own confirmation (5 commits after
    it) and the pair, 2 runs vs 2, is below the rank test's reach; in icount
    mode the pair is `different` by the A/A spread of the other 48 commits (96
    runs) and the record is confirmed. The same series in wall-clock stays new."""

    @classmethod
    def setUpClass(cls):
        for tc, params in (("aa-det-icount", ICOUNT), ("aa-det-wall", WALL)):
            for i in range(50):
                x = (1050.0 if i >= 46 else 1000.0) + 0.1 * (i % 3)
                for v in (x, x + 0.3):
                    post(csha(tc, i), tc, params, v,
                         commit_time="2026-01-03T00:%02d:00Z" % i,
                         commit_subject="%s commit %d" % (tc, i))
        wait_idle()

    def record(self, tc):
        r = srv.get("/api/v1/regressions?" + urllib.parse.urlencode(
            {"testcase": tc, "metric": OPS}))
        self.assertEqual(r.status, 200, r)
        recs = r.json()["regressions"]
        self.assertEqual(len(recs), 1, recs)
        rec = recs[0]
        self.assertEqual((rec["good"]["sha"], rec["bad"]["sha"]), (csha(tc, 45), csha(tc, 46)))
        self.assertEqual(rec["kind"], "improvement")
        return rec

    def test_icount_pair_confirms_by_spread(self):
        rec = self.record("aa-det-icount")
        self.assertEqual(rec["state"], "confirmed")
        self.assertEqual(rec["pair"]["verdict"], "different")
        hist = srv.get("/api/v1/regressions/%d" % rec["id"]).json()["history"]
        self.assertRegex(hist[1]["note"], r"^confirmed: last good vs first bad commit is "
                         r"different \(\+5\.0\d%, 2 vs 2 runs, by the setup's A/A spread\)$")

    def test_wallclock_stays_new(self):
        rec = self.record("aa-det-wall")
        self.assertEqual((rec["state"], rec["pair"]["verdict"]), ("new", "need-more-runs"))


if __name__ == "__main__":
    unittest.main()
