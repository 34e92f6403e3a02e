"""Why was this (not) flagged?

Offline: `regtrack detect --explain` on a stored clean -8 % step
(tests/fixtures/detect/step-8pct.txt): every candidate in words and in the
JSON, the step kept; with --min-change 10 the same split dropped, and
none_because naming that rule (not a guess).

Where the noise model was checked against the series' own moves and sigma
raised (lib/stats/detect.h 2a), each candidate says by how much
("noise_raised", and "sigma x2.25: the history moves more than its noise model
allowed" in the words): a sawtooth of deposits that drain away; independent
noise says 1.

Server: the reasons of the last detection of each series are kept
(sql/0023_detect_explain.sql) and sent by GET /api/v1/series as
"detection": a series with a clear step has its step kept at its commit; a
series that only wiggles has its best candidate dropped as "p above p_max";
the sawtooth's, dropped the same way, carries the raise of its sigma; TCPD's
seat belts, a yearly cycle, keep the window read net of it (its "cycle").
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
from harness import BIN, TOP, Server, result_doc, wait_until  # noqa: E402

STEP = os.path.join(TOP, "tests", "fixtures", "detect", "step-8pct.txt")


def sawtooth(seed, n):
    """A balance: periods of 25-35 commits, each starting with a deposit of
    0.8-1.2 from about 7.3 that drains by up to 0.08 on 30 % of its commits,
    to 0.01 (flat runs); test_model_checked_against_history in
    tests/unit/test_detect_trust.c generates the same shape."""
    rnd, x, level = random.Random(seed), [], 7.3
    while len(x) < n:
        period = 25 + int(rnd.random() * 11)
        level += 0.8 + 0.4 * rnd.random()
        for _ in range(period):
            if len(x) >= n:
                break
            if rnd.random() < 0.3:
                level -= 0.08 * rnd.random()
            x.append(round(level * 100) / 100)
        level = 7.2 + 0.2 * rnd.random()
    return x


# sawtooth(2, 64): one window without history; its residuals' neighbouring
# means move 2.25 times what the model read off their lag-2 differences allows
SAW_RAISED = 2.250530
SAW_WORDS = "sigma x2.25: the history moves more than its noise model allowed"


def cli(*args):
    return subprocess.run([os.path.join(BIN, "regtrack")] + list(args), capture_output=True,
                          text=True, timeout=60)


class Offline(unittest.TestCase):
    def test_explain_lists_every_candidate_and_keeps_the_step(self):
        out = cli("detect", "--explain", STEP)
        self.assertEqual(out.returncode, 0, out)
        self.assertEqual(out.stderr.splitlines(), [
            "explain: window [0, 28) split before commit 20: 99.944 -> 91.9495 (-8.00 %), "
            "p 1.48e-05, 21.9 sigma: kept",
            "explain: window [0, 20) split before commit 13: 100.063 -> 99.611 (-0.45 %), "
            "p 0.00735, 1.24 sigma: p above p_max",
            "explain: window [0, 20) split before commit 3 (excursion): 100.038 -> 100.149 "
            "(+0.11 %), p 0.554, 0.304 sigma: p above p_max",
            "explain: window [20, 28) split before commit 24: 91.9015 -> 92.0315 (+0.14 %), "
            "p 1, 0.356 sigma: p above p_max",
            "explain: final estimate [0, 28) split before commit 20: 99.944 -> 91.9495 "
            "(-8.00 %), p 1.48e-05, 21.9 sigma: kept",
        ])
        doc = json.loads(out.stdout)
        self.assertEqual([c["index"] for c in doc["change_points"]], [20])
        self.assertNotIn("none_because", doc)
        ex = doc["explain"]
        self.assertEqual([(c["stage"], c["window"], c["index"], c["excursion"], c["kept"],
                           c["reason"]) for c in ex], [
            ("window", [0, 28], 20, False, True, "kept"),
            ("window", [0, 20], 13, False, False, "p above p_max"),
            ("window", [0, 20], 3, True, False, "p above p_max"),
            ("window", [20, 28], 24, False, False, "p above p_max"),
            ("final", [0, 28], 20, False, True, "kept"),
        ])
        final = ex[-1]
        self.assertEqual((final["before"], final["after"]), (99.944, 91.9495))
        self.assertAlmostEqual(final["change_pct"], -7.998979, places=5)
        self.assertAlmostEqual(final["p_value"], 1.48000148e-5, places=12)
        self.assertAlmostEqual(final["effect"], 21.869071, places=5)
        self.assertAlmostEqual(final["noise_sigma"], 0.365562, places=5)
        # independent noise: sigma as the model read it
        self.assertEqual([c["noise_raised"] for c in ex], [1, 1, 1, 1, 1])
        # without --explain: no array, no lines
        out = cli("detect", STEP)
        self.assertNotIn("explain", json.loads(out.stdout))
        self.assertEqual(out.stderr, "")

    def test_a_step_under_min_change_is_dropped_by_that_rule(self):
        out = cli("detect", "--explain", "--min-change", "10", STEP)
        self.assertEqual(out.returncode, 0, out)
        self.assertEqual(out.stderr.splitlines(), [
            "explain: window [0, 28) split before commit 20: 99.944 -> 91.9495 (-8.00 %), "
            "p 1.48e-05, 21.9 sigma: |%change| below min_change_pct",
            "explain: window [0, 28) split before commit 3 (excursion): 100.038 -> 100.149 "
            "(+0.11 %), p 0.0562, 0.304 sigma: p above p_max",
            "regtrack: detect: no change point: the strongest candidate (window scan, split "
            "before commit 20: median 99.944 -> 91.9495, -8.00 %, p 1.48e-05) was dropped: "
            "|%change| below min_change_pct (-8.00 %, --min-change 10)",
        ])
        doc = json.loads(out.stdout)
        self.assertEqual(doc["change_points"], [])
        best = doc["none_because"]["best_split"]
        self.assertEqual((best["index"], best["window"], best["stage"], best["reason"],
                          best["before"], best["after"]),
                         (20, [0, 28], "window", "|%change| below min_change_pct", 99.944,
                          91.9495))
        self.assertEqual([(c["index"], c["kept"], c["reason"]) for c in doc["explain"]],
                         [(20, False, "|%change| below min_change_pct"),
                          (3, False, "p above p_max")])

    def test_a_raised_sigma_is_named(self):
        p = os.path.join(os.environ.get("REGTRACK_TEST_TMP", "/tmp"), "explain-saw.json")
        with open(p, "w") as f:
            json.dump(sawtooth(2, 64), f)
        out = cli("detect", "--explain", "--min-change", "1", p)
        self.assertEqual(out.returncode, 0, out)
        self.assertEqual(out.stderr.splitlines(), [
            "explain: window [0, 64) split before commit 53: 8.44 -> 8.32 (-1.42 %), "
            "p 0.00368, 3.33 sigma (" + SAW_WORDS + "): p above p_max",
            "explain: window [0, 64) split before commit 35 (excursion): 8.4 -> 8.49 "
            "(+1.07 %), p 1, 2.49 sigma (" + SAW_WORDS + "): p above p_max",
            "regtrack: detect: no change point: the strongest candidate (window scan, split "
            "before commit 53: median 8.44 -> 8.32, -1.42 %, p 0.00368) was dropped: p above "
            "p_max (p 0.00368, --p-max 0.001; " + SAW_WORDS + ")",
        ])
        doc = json.loads(out.stdout)
        self.assertEqual(doc["change_points"], [])
        for c in doc["explain"]:
            self.assertAlmostEqual(c["noise_raised"], SAW_RAISED, places=6)
        best = doc["none_because"]["best_split"]
        self.assertEqual((best["index"], best["reason"]), (53, "p above p_max"))
        self.assertAlmostEqual(best["noise_raised"], SAW_RAISED, places=6)

    def test_ids_name_the_candidates_commits(self):
        with open(STEP) as f:
            vals = [x for x in f.read().splitlines() if x and not x.startswith("#")]
        p = os.path.join(os.environ.get("REGTRACK_TEST_TMP", "/tmp"), "explain-ids.json")
        with open(p, "w") as f:
            json.dump({"values": [float(x) for x in vals],
                       "ids": ["c%02d" % i for i in range(len(vals))]}, f)
        doc = json.loads(cli("detect", "--explain", p).stdout)
        self.assertEqual([(c["index"], c["id"]) for c in doc["explain"] if c["kept"]],
                         [(20, "c20"), (20, "c20")])

    def test_values_beyond_2_63_refused(self):
        # 1e155 and up: the statistics squared past a double, GSL aborted
        # compare-samples (exit 134) and detect printed -inf medians
        tmp = os.environ.get("REGTRACK_TEST_TMP", "/tmp")
        big, small, obj = (os.path.join(tmp, n) for n in ("big.txt", "small.txt", "big.json"))
        with open(big, "w") as f:
            f.write("1e300\n2e300\n3e300\n")
        with open(small, "w") as f:
            f.write("1\n2\n3\n")
        with open(obj, "w") as f:
            json.dump({"values": [1, 2, 3, -1e300], "groups": [0, 1, 2, 3]}, f)
        for args, words in ((["compare-samples", big, small], "line 1: '1e300' is out of range"),
                            (["detect", big], "line 1: '1e300' is out of range"),
                            (["detect", obj], "values[3] is out of range")):
            r = cli(*args)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertIn(words, r.stderr)
            self.assertEqual(r.stdout, "")
        self.assertEqual(cli("compare-samples", small, small).returncode, 0)


TESTCASE = "explain-test"
METRIC = "vm-scalability.throughput"
WAIT_S = 120


def csha(label, i):
    return hashlib.sha1(("explain-%s-%d" % (label, i)).encode()).hexdigest()


class Server_(unittest.TestCase):
    """The reasons of the last detection, kept per series and sent by the series API."""

    @classmethod
    def setUpClass(cls):
        cls.srv = Server()
        rnd = random.Random(11)
        saw = sawtooth(2, 64)
        # TCPD's seat belts: UK road casualties by month, a yearly cycle, the seat-belt
        # law's -17 % at 169 (lib/stats/detect.h 2c)
        with open(os.path.join(TOP, "tests", "fixtures", "realcpd", "tcpd",
                               "seatbelts.json")) as f:
            belts = json.load(f)["values"]
        # "step": -20 % at commit 18 of 30; "wiggle": +-0.5 % around one level; one run
        # each of 64 commits: "saw" the balance above, "gauss" independent noise
        for label, n, runs, value in (
                ("step", 30, 3, lambda i: 1000.0 * (0.8 if i >= 18 else 1.0) *
                 (1 + rnd.gauss(0, 0.01))),
                ("wiggle", 30, 3, lambda i: 1000.0 * (1.005 if i % 6 < 3 else 0.995) *
                 (1 + rnd.gauss(0, 0.01))),
                ("saw", 64, 1, lambda i: saw[i]),
                ("gauss", 64, 1, lambda i: 1000.0 * (1 + rnd.gauss(0, 0.01))),
                ("belts", len(belts), 1, lambda i: float(belts[i]))):
            for i in range(n):
                for _ in range(runs):
                    doc = result_doc(csha(label, i), testcase=TESTCASE,
                                     params={"test": label},
                                     metrics={METRIC: [value(i)]},
                                     commit_time="2026-01-01T%02d:%02d:00Z" % divmod(i, 60),
                                     commit_subject="%s commit %d" % (label, i))
                    r = cls.srv.post("/api/v1/results", doc, scope="submit")
                    assert r.status == 201, r
        deadline = time.monotonic() + WAIT_S
        while cls.srv.psql("SELECT count(*) FROM detect_queue") != "0":
            if time.monotonic() > deadline:
                raise AssertionError("detection queue not drained in %d s" % WAIT_S)
            time.sleep(0.1)

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def detection(self, label, n=30):
        q = urllib.parse.urlencode({"testcase": TESTCASE, "metric": METRIC,
                                    "params": json.dumps({"test": label})})
        r = self.srv.get("/api/v1/series?" + q)
        self.assertEqual(r.status, 200, r)
        (s,) = r.json()["series"]
        self.assertEqual(len(s["commits"]), n)
        return s, s["detection"]

    def test_the_step_is_kept_at_its_commit(self):
        s, d = self.detection("step")
        self.assertEqual(d["n_commits"], 30)
        self.assertRegex(d["at"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        self.assertEqual(d["settings"], {"window": 64, "min_seg": 3, "p_max": 0.001,
                                         "min_change_pct": 1, "min_effect": 0})
        kept = [c for c in d["candidates"] if c["kept"]]
        self.assertEqual([(c["stage"], c["index"], c["commit"], c["good_commit"], c["reason"])
                          for c in kept],
                         [("window", 18, csha("step", 18), csha("step", 17), "kept"),
                          ("final", 18, csha("step", 18), csha("step", 17), "kept")])
        final = kept[1]
        self.assertEqual((final["n_before"], final["n_after"]), (18, 12))
        self.assertAlmostEqual(final["change_pct"], -20.0, delta=1.5)
        self.assertLess(final["p_value"], 1e-6)
        self.assertGreater(final["effect"], 10)
        # the record the same detection made is at that commit too
        self.assertEqual([cp["commit"] for cp in s["change_points"]], [csha("step", 18)])
        # every candidate names its commit, its place in "commits" and a rule in words
        for c in d["candidates"]:
            self.assertEqual(s["commits"][c["index"]]["sha"], c["commit"], c)
            self.assertIn(c["reason"], ("kept", "p above p_max", "|%change| below min_change_pct",
                                        "the medians either side are equal",
                                        "the move is below min_effect noise sigmas"), c)
        self.assertLessEqual(len(d["candidates"]), 50)

    def test_the_wiggle_is_not_flagged_and_says_why(self):
        s, d = self.detection("wiggle")
        self.assertEqual(s["change_points"], [])
        self.assertTrue(d["candidates"], d)
        self.assertFalse([c for c in d["candidates"] if c["kept"]], d)
        best = min(d["candidates"], key=lambda c: c["p_value"])
        self.assertEqual((best["stage"], best["kept"], best["reason"]),
                         ("window", False, "p above p_max"), best)
        self.assertGreater(best["p_value"], 0.001)
        self.assertLess(abs(best["change_pct"]), 2)
        # one window of 30 commits: its strongest candidate is kept, the others not
        self.assertEqual([(c["n_before"] + c["n_after"]) for c in d["candidates"]], [30])

    def test_a_raised_sigma_is_kept_with_the_candidate(self):
        # the sawtooth's candidate is dropped as the wiggle's is, but over a sigma its
        # own moves raised: the stored reasons say so, as `regtrack detect --explain`
        s, d = self.detection("saw", 64)
        self.assertEqual(s["change_points"], [])
        (best,) = [c for c in d["candidates"] if not c["excursion"]]
        self.assertEqual((best["stage"], best["index"], best["commit"], best["kept"],
                          best["reason"]), ("window", 53, csha("saw", 53), False,
                                            "p above p_max"), best)
        self.assertAlmostEqual(best["p_value"], 0.003678558, places=8)
        self.assertAlmostEqual(best["noise_raised"], SAW_RAISED, places=6)
        self.assertAlmostEqual(best["effect"], 3.325903, places=5)
        # independent noise of as many commits: not raised
        _, d = self.detection("gauss", 64)
        self.assertTrue(d["candidates"], d)
        self.assertEqual([c["noise_raised"] for c in d["candidates"]],
                         [1] * len(d["candidates"]))
        _, d = self.detection("step")
        self.assertEqual({c["noise_raised"] for c in d["candidates"]}, {1})

    def test_a_window_read_net_of_a_cycle_says_so(self):
        # as `regtrack detect --explain` on the file: the window [128, 192) read as it is
        # is too weak (p 0.75; tests/unit/test_detect_trust.c test_cycle_read_net); net
        # of the 12-month cycle its history holds, the law's step passes (the stored
        # reasons keep that reading's candidate), and the change point is at 169
        s, d = self.detection("belts", 192)
        self.assertEqual([cp["commit"] for cp in s["change_points"]], [csha("belts", 169)])
        self.assertEqual({c["cycle"] for c in d["candidates"]}, {0, 12})
        net = [c for c in d["candidates"] if c["cycle"]]
        (step,) = [c for c in net if c["kept"] and c["stage"] == "window"]
        self.assertEqual((step["index"], step["commit"], step["n_before"], step["n_after"]),
                         (168, csha("belts", 168), 40, 24), step)
        self.assertLess(step["p_value"], 1e-6)
        # its final estimate's p (4.0e-4) is that of the range net of the cycle too
        final = [c for c in d["candidates"] if c["stage"] == "final" and c["kept"]]
        self.assertEqual([(c["index"], c["cycle"]) for c in final], [(169, 12)])
        self.assertAlmostEqual(final[0]["p_value"], 4.01e-4, delta=0.01e-4)
        # the regression recorded there: its sigma is the series' net of the cycle, and
        # the evidence sentence (page and mail) says so (sql/0040)
        r = self.srv.get("/api/v1/regressions?" + urllib.parse.urlencode(
            {"testcase": TESTCASE, "limit": 500}))
        self.assertEqual(r.status, 200, r)
        recs = r.json()["regressions"]
        (rec,) = [x for x in recs
                  if x["params"] == {"test": "belts"} and x["bad"]["sha"] == csha("belts", 169)]
        self.assertEqual((rec["kind"], rec["noise_cycle"]), ("regression", 12), rec)
        r = self.srv.get("/api/v1/regressions/%d" % rec["id"])
        self.assertEqual(r.status, 200, r)
        ev = r.json()["evidence"]
        self.assertEqual(ev["noise_cycle"], 12)
        self.assertAlmostEqual(ev["noise_sigma"], final[0]["noise_sigma"], places=6)
        self.assertTrue(ev["text"].endswith(
            "\u00d7 the series' own spread net of its 12-commit cycle"), ev["text"])
        # a series without a cycle: 0, and no such words
        (step,) = [x for x in recs if x["params"] == {"test": "step"}]
        self.assertEqual(step["noise_cycle"], 0)
        r = self.srv.get("/api/v1/regressions/%d" % step["id"])
        self.assertEqual(r.json()["evidence"]["noise_cycle"], 0)
        self.assertNotIn("cycle", r.json()["evidence"]["text"])

    def test_a_detection_stored_before_noise_raised_says_null(self):
        # rows written before the server kept the fields: the keys are there, null
        self.srv.psql(
            "UPDATE detect_explain d SET candidates = (SELECT json_agg(x::jsonb - "
            "'noise_raised' - 'cycle') FROM json_array_elements(d.candidates) x) FROM setups s "
            "WHERE s.id = d.setup_id AND s.params->>'test' = 'wiggle'")
        _, d = self.detection("wiggle")
        self.assertTrue(d["candidates"], d)
        self.assertEqual([c["noise_raised"] for c in d["candidates"]],
                         [None] * len(d["candidates"]))
        self.assertEqual([c["cycle"] for c in d["candidates"]], [None] * len(d["candidates"]))
        self.assertEqual([c["reason"] for c in d["candidates"]], ["p above p_max"])

    def test_detection_replaces_the_last(self):
        def upload(commits):
            for i in commits:
                doc = result_doc(csha("again", i), testcase=TESTCASE, params={"test": "again"},
                                 metrics={METRIC: [500.0 + i % 2]},
                                 commit_time="2026-01-02T00:%02d:00Z" % i)
                self.assertEqual(self.srv.post("/api/v1/results", doc, scope="submit").status, 201)

        def rows():
            return self.srv.psql(
                "SELECT n_commits FROM detect_explain d JOIN setups s ON s.id = d.setup_id "
                "WHERE s.params->>'test' = 'again'")

        upload(range(10))
        wait_until(lambda: rows() == "10", timeout=WAIT_S, what="the first detection")
        upload(range(10, 20))
        wait_until(lambda: rows() == "20", timeout=WAIT_S, what="the second detection")
        _, d = self.detection("again", 20)
        self.assertEqual(d["n_commits"], 20)


class RunsWithOtherMetrics(unittest.TestCase):
    """A setup whose runs do not all report the same metrics: detection reads
    each run's metric ids only where they differ from the run before's
    (db/detect_series.c) and puts every mean with its own metric and commit."""

    def test_each_metric_keeps_its_own_runs(self):
        srv = Server()
        self.addCleanup(srv.stop)
        rnd = random.Random(5)
        a, b, c = METRIC, "explain.only-first-run", "explain.from-commit-15"
        for i in range(30):
            for k in range(3):
                m = {a: [(800.0 if i >= 18 else 1000.0) * (1 + rnd.gauss(0, 0.01))]}
                if k == 0:  # one run of each commit: ids [a, b], then [a], [a]
                    m[b] = [(625.0 if i >= 10 else 500.0) * (1 + rnd.gauss(0, 0.01))]
                if i >= 15:
                    m[c] = [50.0 * (1 + rnd.gauss(0, 0.01))]
                doc = result_doc(csha("mixed", i), testcase=TESTCASE, params={"test": "mixed"},
                                 metrics=m, commit_time="2026-01-03T00:%02d:00Z" % i)
                self.assertEqual(srv.post("/api/v1/results", doc, scope="submit").status, 201)
        wait_until(lambda: srv.psql("SELECT count(*) FROM detect_queue") == "0",
                   timeout=WAIT_S, what="detection")
        setup = "(SELECT id FROM setups WHERE params->>'test' = 'mixed')"
        self.assertEqual(srv.psql(
            "SELECT string_agg(m.name || ' ' || d.n_commits, ', ' ORDER BY m.name) "
            "FROM detect_explain d JOIN metrics m ON m.id = d.metric_id "
            "WHERE d.setup_id = " + setup),
            "explain.from-commit-15 15, explain.only-first-run 30, %s 30" % a)
        # the steps where each metric has them, over that metric's own runs:
        # a's 18 commits x 3 runs before and 12 x 3 after, b's 10 x 1 and 20 x 1
        rows = srv.psql(
            "SELECT m.name, cg.sha, cb.sha, r.n_before, r.n_after FROM regressions r "
            "JOIN metrics m ON m.id = r.metric_id JOIN commits cg ON cg.id = r.good_commit_id "
            "JOIN commits cb ON cb.id = r.bad_commit_id WHERE r.detected AND r.setup_id = "
            + setup + " ORDER BY m.name").splitlines()
        self.assertEqual([r.split("|") for r in rows], [
            [b, csha("mixed", 9), csha("mixed", 10), "10", "20"],
            [a, csha("mixed", 17), csha("mixed", 18), "54", "36"],
        ])
