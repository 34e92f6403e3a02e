"""Change detection off the request path and regression records.

Series are uploaded through POST /api/v1/results (fixed seeds, 1 % noise);
the background thread finds the steps. Tests wait for it by polling the
queue and the API with a timeout, never by a fixed sleep.
"""
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

TESTCASE = "detect-test"
THROUGHPUT = "vm-scalability.throughput"   # higher is better (name pattern)
WIDGETS = "custom.widgets"                 # direction unknown -> kind "change"
NOISE = "custom.noise_only"                # no step at all
WAIT_S = 120


def setUpModule():
    global srv
    srv = Server()


def tearDownModule():
    srv.stop()


def csha(label, i):
    return hashlib.sha1(("%s-%d" % (label, i)).encode()).hexdigest()


def upload(label, params, steps, ncommits=30, runs=3, seed=1, commits=None):
    """Runs of one setup: steps = {metric: (base, step_at, factor)}; each
    run has 2 iterations with 1 % multiplicative noise."""
    rnd = random.Random(seed)
    for i in (commits if commits is not None else range(ncommits)):
        for _ in range(runs):
            metrics = {}
            for name, (base, at, factor) in steps.items():
                level = base * (factor if at is not None and i >= at else 1.0)
                metrics[name] = [level * (1 + rnd.gauss(0, 0.01)) for _ in range(2)]
            doc = result_doc(csha(label, i), testcase=TESTCASE, metrics=metrics,
                             params=params,
                             commit_time="2026-01-01T%02d:%02d:00Z" % (i // 60, i % 60),
                             commit_subject="%s commit %d" % (label, i))
            r = srv.post("/api/v1/results", doc, scope="submit")
            assert r.status == 201, r


def wait_idle():
    """Until the detection queue is empty (every queued setup examined)."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if srv.psql("SELECT count(*) FROM detect_queue") == "0":
            return
        time.sleep(0.1)
    raise AssertionError("detection queue not drained in %d s" % WAIT_S)


def regressions(**q):
    q.setdefault("testcase", TESTCASE)
    r = srv.get("/api/v1/regressions?" + urllib.parse.urlencode(q))
    assert r.status == 200, r
    return r.json()["regressions"]


def of_setup(recs, params):
    return [x for x in recs if x["params"] == params]


def patch(rid, body, scope="admin"):
    return srv.request("PATCH", "/api/v1/regressions/%s" % rid, body=body, scope=scope)


A = {"test": "step-a"}
B = {"test": "step-b"}


class Detection(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # A: throughput -20 % and widgets +15 % at commit 18, a noise-only metric
        upload("A", A, {THROUGHPUT: (1000.0, 18, 0.80), WIDGETS: (50.0, 18, 1.15),
                        NOISE: (300.0, None, 1.0)}, seed=5)
        # B: throughput +20 % at commit 12 (an improvement)
        upload("B", B, {THROUGHPUT: (2000.0, 12, 1.20)}, seed=7)
        wait_idle()

    def a_throughput(self):
        recs = of_setup(regressions(metric=THROUGHPUT), A)
        self.assertEqual(len(recs), 1, recs)
        return recs[0]

    def test_1_step_found_at_the_right_range(self):
        r = self.a_throughput()
        self.assertEqual(r["bad"], {"sha": csha("A", 18), "subject": "A commit 18"})
        self.assertEqual(r["good"], {"sha": csha("A", 17), "subject": "A commit 17"})
        self.assertEqual(r["kind"], "regression")
        self.assertAlmostEqual(r["change_pct"], -20.0, delta=1.5)
        lo, hi = r["ci_pct"]
        self.assertLess(lo, r["change_pct"])
        self.assertGreater(hi, r["change_pct"])
        self.assertLess(hi, -15.0)
        self.assertLess(r["p_value"], 1e-6)
        self.assertEqual(r["verdict"], "different")
        # 3 vs 3 runs at the two commits alone can never be `different` ...
        self.assertEqual(r["pair"]["verdict"], "need-more-runs")
        # ... but 12 commits after the step confirm it (regressions.h rule b)
        self.assertEqual(r["commits_after"], 12)
        self.assertEqual(r["state"], "confirmed")
        self.assertEqual((r["n_before"], r["n_after"]), (18 * 3, 12 * 3))
        self.assertAlmostEqual(r["detector"]["change_pct"], -20.0, delta=1.5)
        for k, v in (("testcase", TESTCASE), ("metric", THROUGHPUT), ("params", A),
                     ("kconfig", "x86_64-defconfig"), ("compiler", "gcc-12"),
                     ("tbox_group", "vm-2p"), ("mode", "wallclock"),
                     ("higher_is_better", True), ("detected", True), ("bisect_id", None)):
            self.assertEqual(r[k], v, k)
        self.assertIn("unit", r)
        self.assertTrue(r["created_at"])

    def test_1_history_of_a_detected_record(self):
        r = srv.get("/api/v1/regressions/%d" % self.a_throughput()["id"]).json()
        self.assertEqual([(h["who"], h["from"], h["to"]) for h in r["history"]],
                         [("detector", None, "new"), ("detector", "new", "confirmed")])
        # confirmed as soon as 5 commits after the step were stored
        self.assertRegex(r["history"][1]["note"],
                         r"^confirmed: the step holds over ([5-9]|1[0-2]) commits after it")

    def test_1_evidence_in_words(self):
        # the record's own numbers, and the detector's noise sigma stored
        r = srv.get("/api/v1/regressions/%d" % self.a_throughput()["id"]).json()
        ev = r["evidence"]
        # 1 % noise on 2 iterations x 3 runs of a level of 1000: one commit's median
        # wobbles by a few units; the step is 200
        self.assertGreater(r["noise_sigma"], 1.0)
        self.assertLess(r["noise_sigma"], 20.0)
        self.assertEqual((ev["commits_after"], ev["shift_pct"], ev["ci_pct"], ev["shift"],
                          ev["noise_sigma"]),
                         (12, r["hl_pct"], r["ci_pct"], r["shift"], r["noise_sigma"]))
        self.assertAlmostEqual(ev["spread_ratio"], abs(r["shift"]) / r["noise_sigma"], places=9)
        self.assertGreater(ev["spread_ratio"], 10)
        ratio = ev["spread_ratio"]
        self.assertEqual(ev["text"], "the 12 tested commits after moved by %+.1f %% [%+.1f, %+.1f], "
                                     "%s \u00d7 the series' own spread"
                         % (r["hl_pct"], r["ci_pct"][0], r["ci_pct"][1],
                            "%.1f" % ratio if ratio < 99.95 else "%.0f" % ratio))
        self.assertTrue(ev["text"].startswith("the 12 tested commits after moved by -"), ev)

    def test_2_noise_only_series_has_no_change(self):
        self.assertEqual(regressions(metric=NOISE), [])
        s = srv.get("/api/v1/series?" + urllib.parse.urlencode(
            {"testcase": TESTCASE, "metric": NOISE})).json()
        self.assertEqual(len(s["series"]), 1)
        self.assertEqual(s["series"][0]["change_points"], [])

    def test_2_improvement(self):
        recs = of_setup(regressions(metric=THROUGHPUT), B)
        self.assertEqual(len(recs), 1, recs)
        r = recs[0]
        self.assertEqual(r["kind"], "improvement")
        self.assertEqual(r["bad"]["sha"], csha("B", 12))
        self.assertEqual(r["good"]["sha"], csha("B", 11))
        self.assertAlmostEqual(r["change_pct"], 20.0, delta=1.5)
        self.assertEqual(regressions(kind="improvement"), [r])

    def test_3_second_metric_grouped_under_the_first(self):
        t = self.a_throughput()
        w = regressions(metric=WIDGETS)
        self.assertEqual(len(w), 1, w)
        w = w[0]
        self.assertEqual(w["kind"], "change")   # unknown direction
        self.assertAlmostEqual(w["change_pct"], 15.0, delta=1.5)
        self.assertEqual((w["good"], w["bad"]), (t["good"], t["bad"]))
        leader = min(t["id"], w["id"])
        self.assertEqual((t["group_id"], w["group_id"]), (leader, leader))
        self.assertEqual((t["group_size"], w["group_size"]), (2, 2))
        full = srv.get("/api/v1/regressions/%d" % w["id"]).json()
        self.assertEqual([m["id"] for m in full["group"]], sorted([t["id"], w["id"]]))
        self.assertEqual({m["metric"] for m in full["group"]}, {THROUGHPUT, WIDGETS})
        # leaders=1: one row per range
        leaders = [x for x in regressions(leaders=1) if x["params"] == A]
        self.assertEqual([x["id"] for x in leaders], [leader])

    def test_4_series_api_shows_the_change_point(self):
        s = srv.get("/api/v1/series?" + urllib.parse.urlencode(
            {"testcase": TESTCASE, "metric": THROUGHPUT, "params": json.dumps(A)})).json()
        self.assertEqual(len(s["series"]), 1)
        ser = s["series"][0]
        self.assertEqual(len(ser["commits"]), 30)
        cps = ser["change_points"]
        self.assertEqual(len(cps), 1, cps)
        cp = cps[0]
        self.assertEqual(cp["index"], 18)
        self.assertEqual(ser["commits"][cp["index"]]["sha"], csha("A", 18))
        self.assertEqual(cp["commit"], csha("A", 18))
        self.assertEqual(cp["regression_id"], self.a_throughput()["id"])
        self.assertAlmostEqual(cp["change_pct"], -20.0, delta=1.5)
        self.assertAlmostEqual(cp["before"], 1000.0, delta=15)
        self.assertAlmostEqual(cp["after"], 800.0, delta=15)
        self.assertLess(cp["p_value"], 1e-3)

    def test_5_patch_changes_state_and_writes_history(self):
        rid = self.a_throughput()["id"]
        r = patch(rid, {"state": "bisecting", "note": "starting a bisect"})
        self.assertEqual(r.status, 200, r)
        got = r.json()
        self.assertEqual(got["state"], "bisecting")
        last = got["history"][-1]
        self.assertEqual((last["from"], last["to"], last["note"]),
                         ("confirmed", "bisecting", "starting a bisect"))
        self.assertTrue(last["who"].startswith("token:admin-"), last)
        self.assertEqual(srv.get("/api/v1/regressions/%d" % rid).json()["state"], "bisecting")
        self.assertEqual([x["id"] for x in of_setup(regressions(state="bisecting"), A)], [rid])
        # a note alone keeps the state and is recorded
        r = patch(rid, {"note": "bisect queued on vm-2p"})
        self.assertEqual(r.status, 200, r)
        last = r.json()["history"][-1]
        self.assertEqual((last["from"], last["to"], last["note"]),
                         ("bisecting", "bisecting", "bisect queued on vm-2p"))
        self.assertEqual(len(r.json()["history"]), 4)

    def test_5_patch_bad_input_names_the_field(self):
        rid = self.a_throughput()["id"]
        before = srv.get("/api/v1/regressions/%d" % rid).json()
        for body, code, detail in (
                ({"state": "closed"}, "invalid_field", "state"),
                ({"state": 3}, "invalid_field", "state"),
                ({"note": 5, "state": "fixed"}, "invalid_field", "note"),
                ({"state": "fixed", "owner": "me"}, "invalid_field", "owner"),
                ({}, "missing_field", "state")):
            r = patch(rid, body)
            self.assertEqual(r.status, 400, (body, r))
            self.assertEqual((r.json()["error"]["code"], r.json()["error"]["detail"]),
                             (code, detail), body)
        r = srv.request("PATCH", "/api/v1/regressions/%d" % rid, raw=b"{", scope="admin")
        self.assertEqual(r.status, 400, r)
        self.assertEqual(patch("abc", {"state": "fixed"}).json()["error"]["detail"], "id")
        self.assertEqual(patch(10 ** 9, {"state": "fixed"}).status, 404)
        self.assertEqual(patch(rid, {"state": "fixed"}, scope="submit").status, 403)
        after = srv.get("/api/v1/regressions/%d" % rid).json()
        self.assertEqual((after["state"], after["history"]), (before["state"], before["history"]))
        # list filters are checked too
        for q, detail in (("state=closed", "state"), ("kind=bad", "kind"), ("limit=0", "limit"),
                          ("limit=x", "limit"), ("leaders=2", "leaders")):
            r = srv.get("/api/v1/regressions?" + q)
            self.assertEqual(r.status, 400, (q, r))
            self.assertEqual(r.json()["error"]["detail"], detail, q)
        self.assertEqual(srv.get("/api/v1/regressions/0").status, 400)
        self.assertEqual(srv.get("/api/v1/regressions/123456789").status, 404)

    def test_6_more_runs_do_not_duplicate(self):
        first = self.a_throughput()
        n = int(srv.psql("SELECT count(*) FROM regressions"))
        # 3 more runs of the commits around the step, and of the newest
        upload("A", A, {THROUGHPUT: (1000.0, 18, 0.80), WIDGETS: (50.0, 18, 1.15),
                        NOISE: (300.0, None, 1.0)}, seed=11, commits=[16, 17, 18, 19, 29])
        wait_idle()
        again = self.a_throughput()
        self.assertEqual(again["id"], first["id"])
        self.assertEqual((again["n_before"], again["n_after"]), (18 * 3 + 6, 12 * 3 + 9))
        # the state a human set survives re-detection
        self.assertEqual(again["state"], first["state"])
        self.assertEqual(int(srv.psql("SELECT count(*) FROM regressions")), n)
        self.assertEqual(len(regressions(metric=WIDGETS)), 1)
        # now 6 vs 6 runs at the two commits: that pair alone is `different`
        self.assertEqual(again["pair"]["verdict"], "different")


class Refinement(unittest.TestCase):
    def test_7_narrower_range_under_a_bisected_record_is_not_new(self):
        """A bisect's own runs fill the gap of a detected range; the narrower
        range found then is the same change, not a second record."""
        params = {"case": "refine"}
        steps = {THROUGHPUT: (1000.0, 33, 0.8)}
        upload("refine", params, steps, commits=range(0, 60, 2))
        # the tree's history, as the bisect module's import leaves it
        srv.psql("UPDATE commits SET topo_order = split_part(subject, ' ', 3)::int "
                 "WHERE subject LIKE 'refine commit %'")
        upload("refine", params, steps, commits=[0])
        wait_idle()
        recs = of_setup(regressions(metric=THROUGHPUT), params)
        self.assertEqual(len(recs), 1, recs)
        self.assertEqual((recs[0]["good"]["sha"], recs[0]["bad"]["sha"]),
                         (csha("refine", 32), csha("refine", 34)))
        self.assertEqual(patch(recs[0]["id"], {"state": "bisecting", "note": "bisect 1"}).status, 200)
        upload("refine", params, steps, commits=[33], seed=2)
        wait_idle()
        srv.psql("UPDATE commits SET topo_order = 33 WHERE sha = '%s'" % csha("refine", 33))
        srv.psql("INSERT INTO detect_queue (setup_id) SELECT DISTINCT setup_id FROM runs r "
                 "JOIN commits c ON c.id = r.commit_id WHERE c.sha = '%s' "
                 "ON CONFLICT DO NOTHING" % csha("refine", 33))
        wait_idle()
        again = of_setup(regressions(metric=THROUGHPUT), params)
        self.assertEqual([x["id"] for x in again], [recs[0]["id"]])
        self.assertEqual(again[0]["state"], "bisecting")


if __name__ == "__main__":
    unittest.main()
