"""The alert-quality ledger: GET /api/v1/quality on a
seeded history with known labels, the window and the filters, its 400s,
and the one step that marks a record invalid (API and CLI), after which
the figures move.

Seed: the runs of two setups (tbox_groups vm-2p and vm-4p) go through
POST /api/v1/results; once detection is idle (constant values: it records
nothing), plans p-a and p-b get a done job each whose runs are the
setups' (vm-2p -> p-a, vm-4p -> p-b), and records are stored by hand with
chosen states and detection times (days ago):

  plan p-a / vm-2p   throughput: confirmed 10, fixed 20, invalid 3, invalid 100
                     workload:   new 5, invalid 12, bisected 40
  plan p-b / vm-4p   throughput: reported 2, wontfix 60, new 1
                     workload:   invalid 50
"""
import os
import subprocess
import sys
import time
import unittest
import urllib.parse
from datetime import datetime, timedelta, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import BIN, Server, result_doc, sha  # noqa: E402

TP = "vm-scalability.throughput"
WL = "vm-scalability.workload"
WEEK_DAYS = 7.0

# (plan, tbox_group, metric, state, days ago)
RECORDS = [
    ("p-a", "vm-2p", TP, "confirmed", 10),
    ("p-a", "vm-2p", TP, "fixed", 20),
    ("p-a", "vm-2p", TP, "invalid", 3),
    ("p-a", "vm-2p", TP, "invalid", 100),
    ("p-a", "vm-2p", WL, "new", 5),
    ("p-a", "vm-2p", WL, "invalid", 12),
    ("p-a", "vm-2p", WL, "bisected", 40),
    ("p-b", "vm-4p", TP, "reported", 2),
    ("p-b", "vm-4p", TP, "wontfix", 60),
    ("p-b", "vm-4p", TP, "new", 1),
    ("p-b", "vm-4p", WL, "invalid", 50),
]
NCOMMITS = 6


def setUpModule():
    global srv, ids
    srv = Server()
    for tbox in ("vm-2p", "vm-4p"):
        for i in range(NCOMMITS):
            doc = result_doc(sha("%x" % (i + 1)), metrics={TP: [100.0], WL: [50.0]},
                             commit_time="2026-01-01T00:%02d:00Z" % i)
            doc["machine"] = dict(doc["machine"], hostname="host-" + tbox, tbox_group=tbox)
            r = srv.post("/api/v1/results", doc, scope="submit")
            assert r.status == 201, r
    deadline = time.monotonic() + 120
    while srv.psql("SELECT count(*) FROM detect_queue") != "0":
        assert time.monotonic() < deadline, "detection queue not drained"
        time.sleep(0.1)
    assert srv.psql("SELECT count(*) FROM regressions") == "0"
    srv.psql("INSERT INTO trees (name) VALUES ('linux') ON CONFLICT DO NOTHING")
    for plan, tbox in (("p-a", "vm-2p"), ("p-b", "vm-4p")):
        srv.psql("INSERT INTO plans (name, tree_id, spec, enabled) SELECT '%s', id, '{}', false "
                 "FROM trees WHERE name = 'linux'" % plan)
        # one done job of the plan per setup; the setup's runs become its runs
        srv.psql("WITH s AS (SELECT * FROM setups WHERE tbox_group = '%s'), "
                 "j AS (INSERT INTO jobs (commit_id, testcase_id, params, kconfig, compiler, "
                 "state, plan_id, track_key) SELECT (SELECT min(commit_id) FROM runs "
                 "WHERE setup_id = s.id), s.testcase_id, s.params, s.kconfig, s.compiler, "
                 "'done', p.id, 'quality-test' FROM s, plans p WHERE p.name = '%s' RETURNING id) "
                 "UPDATE runs SET job_id = (SELECT id FROM j) WHERE setup_id = (SELECT id FROM s)"
                 % (tbox, plan))
    ids = {}
    used = {}
    for plan, tbox, metric, state, ago in RECORDS:
        k = used[(tbox, metric)] = used.get((tbox, metric), 0) + 1
        rid = int(srv.psql(
            "INSERT INTO regressions (setup_id, metric_id, good_commit_id, bad_commit_id, kind, "
            "state, verdict, n_before, n_after, commits_after, pair_verdict, detected, created_at) "
            "SELECT s.id, m.id, g.id, b.id, 'regression', '%s', 'different', 5, 5, 3, "
            "'different', true, now() - interval '%d days' FROM setups s, metrics m, commits g, "
            "commits b WHERE s.tbox_group = '%s' AND m.name = '%s' AND g.sha = '%s' "
            "AND b.sha = '%s' RETURNING id"
            % (state, ago, tbox, metric, sha("%x" % k), sha("%x" % (k + 1)))).split()[0])
        ids[(plan, metric, state, ago)] = rid


def tearDownModule():
    srv.stop()


def quality(**args):
    q = "?" + urllib.parse.urlencode(args) if args else ""
    r = srv.get("/api/v1/quality" + q, scope="read")
    assert r.status == 200, r
    return r.json()


def counts(t, f, u):
    return {"true_changes": t, "false_alarms": f, "unjudged": u, "alerts": t + f + u,
            "precision": t / (t + f) if t + f else None}


def pick(o, **kw):
    return {k: v for k, v in o.items() if k not in kw}


class Ledger(unittest.TestCase):
    def assertCounts(self, o, t, f, u):
        got = {k: o[k] for k in ("true_changes", "false_alarms", "unjudged", "alerts", "precision")}
        want = counts(t, f, u)
        self.assertEqual({k: got[k] for k in want if k != "precision"},
                         {k: want[k] for k in want if k != "precision"}, o)
        if want["precision"] is None:
            self.assertIsNone(got["precision"])
        else:
            self.assertAlmostEqual(got["precision"], want["precision"], places=12)

    def test_1_default_window(self):
        q = quality()
        # 90 days: the invalid of 100 days ago is outside
        self.assertAlmostEqual(q["window"]["days"], 90, places=6)
        self.assertAlmostEqual(q["window"]["weeks"], 90 / WEEK_DAYS, places=6)
        self.assertEqual(len(q["window"]["week_starts"]), 13)
        self.assertEqual(q["labels"], {
            "true_change": ["confirmed", "bisecting", "bisected", "reported", "fixed", "wontfix"],
            "false_alarm": ["invalid"], "unjudged": ["new"]})
        self.assertEqual(q["filters"], {"plan": None, "testcase": None, "metric": None,
                                        "tbox_group": None})
        self.assertCounts(q["overall"], 5, 3, 2)
        self.assertEqual([p["plan"] for p in q["by_plan"]], ["p-a", "p-b"])
        self.assertCounts(q["by_plan"][0], 3, 2, 1)   # precision 0.6
        self.assertCounts(q["by_plan"][1], 2, 1, 1)
        self.assertEqual([m["metric"] for m in q["by_metric"]], [TP, WL])
        self.assertCounts(q["by_metric"][0], 4, 1, 1)  # precision 0.8
        self.assertCounts(q["by_metric"][1], 1, 2, 1)
        self.assertEqual([g["tbox_group"] for g in q["by_tbox_group"]], ["vm-2p", "vm-4p"])
        self.assertCounts(q["by_tbox_group"][0], 3, 2, 1)
        self.assertEqual([t["testcase"] for t in q["by_testcase"]], ["vm-scalability"])
        self.assertCounts(q["by_testcase"][0], 5, 3, 2)
        self.assertEqual([(g["plan"], g["metric"], g["tbox_group"]) for g in q["groups"]],
                         [("p-a", TP, "vm-2p"), ("p-a", WL, "vm-2p"), ("p-b", TP, "vm-4p"),
                          ("p-b", WL, "vm-4p")])
        self.assertCounts(q["groups"][0], 2, 1, 0)
        self.assertCounts(q["groups"][3], 0, 1, 0)   # precision 0 of 1 judged
        fa = {p["plan"]: p for p in q["false_alarms_per_week"]}
        self.assertEqual(list(fa), ["p-a", "p-b"])
        self.assertEqual((fa["p-a"]["false_alarms"], fa["p-a"]["alerts"]), (2, 6))
        self.assertAlmostEqual(fa["p-a"]["per_week"], 2 / (90 / WEEK_DAYS), places=9)
        self.assertAlmostEqual(fa["p-b"]["per_week"], 1 / (90 / WEEK_DAYS), places=9)
        # weeks from since = now - 90 d: 3 days ago is step 12, 12 days ago 11, 50 days ago 5
        self.assertEqual(fa["p-a"]["weekly"], [0] * 11 + [1, 1])
        self.assertEqual(fa["p-b"]["weekly"], [0] * 5 + [1] + [0] * 7)

    def test_2_windows(self):
        q = quality(days=365)
        self.assertCounts(q["overall"], 5, 4, 2)
        self.assertCounts(q["by_plan"][0], 3, 3, 1)
        self.assertAlmostEqual(q["false_alarms_per_week"][0]["per_week"], 3 / (365 / WEEK_DAYS),
                               places=9)
        q = quality(days=7)
        self.assertCounts(q["overall"], 1, 1, 2)
        self.assertEqual(len(q["window"]["week_starts"]), 1)
        self.assertEqual(q["false_alarms_per_week"][0]["weekly"], [1])
        # since a date 30 days back (midnight UTC): 30-31 days, so 40 and more are out
        day = (datetime.now(timezone.utc) - timedelta(days=30)).strftime("%Y-%m-%d")
        q = quality(since=day)
        self.assertEqual(q["window"]["since"], day + "T00:00:00Z")
        self.assertCounts(q["overall"], 3, 2, 2)
        # an RFC 3339 time with an offset: 45 days back (the 40-day record in, 50 out)
        t = (datetime.now(timezone(timedelta(hours=2))) - timedelta(days=45)).replace(microsecond=0)
        q = quality(since=t.isoformat())
        self.assertEqual(q["window"]["since"],
                         t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
        self.assertCounts(q["overall"], 4, 2, 2)

    def test_3_filters(self):
        q = quality(plan="p-b")
        self.assertEqual(q["filters"]["plan"], "p-b")
        self.assertCounts(q["overall"], 2, 1, 1)
        self.assertEqual([p["plan"] for p in q["by_plan"]], ["p-b"])
        q = quality(metric=WL, tbox_group="vm-2p")
        self.assertCounts(q["overall"], 1, 1, 1)
        q = quality(testcase="vm-scalability", metric=TP, days=365)
        self.assertCounts(q["overall"], 4, 2, 1)
        q = quality(plan="no-such-plan")
        self.assertCounts(q["overall"], 0, 0, 0)
        self.assertEqual(q["by_plan"], [])

    def test_4_bad_arguments(self):
        for query, field in (("foo=1", "foo"), ("days=0", "days"), ("days=abc", "days"),
                             ("days=3651", "days"), ("since=2025-13-01", "since"),
                             ("since=2025-02-30", "since"), ("since=yesterday", "since"),
                             ("since=2999-01-01", "since"), ("since=2020-01-01&days=3", "days"),
                             ("plan=", "plan"), ("metric=" + "m" * 201, "metric")):
            r = srv.get("/api/v1/quality?" + query, scope="read")
            self.assertEqual(r.status, 400, (query, r))
            self.assertEqual(r.json()["error"]["detail"], field, (query, r))
            self.assertNotIn("SQL", r.body)

    def test_5_mark_invalid(self):
        rid = ids[("p-b", TP, "new", 1)]
        path = "/api/v1/regressions/%d/invalid" % rid
        for body in (None, {}, {"reason": ""}, {"reason": "  \n"}, {"reason": None}):
            r = srv.post(path, body, scope="admin")
            self.assertEqual(r.status, 400, (body, r))
            self.assertEqual(r.json()["error"]["detail"], "reason", (body, r))
        r = srv.post(path, {"reason": "x", "state": "new"}, scope="admin")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "state"))
        self.assertEqual(srv.post(path, {"reason": "x"}, scope="read").status, 403)
        self.assertEqual(srv.post("/api/v1/regressions/999999/invalid", {"reason": "x"},
                                  scope="admin").status, 404)
        self.assertEqual(srv.psql("SELECT state FROM regressions WHERE id = %d" % rid), "new")
        reason = "a cron job ran beside the benchmark <b>not</b> the kernel"
        r = srv.post(path, {"reason": reason}, scope="admin")
        self.assertEqual(r.status, 200, r)
        rec = r.json()
        self.assertEqual((rec["id"], rec["state"], rec["changed"]), (rid, "invalid", True))
        last = rec["history"][-1]
        self.assertEqual((last["from"], last["to"], last["note"]), ("new", "invalid", reason))
        self.assertRegex(last["who"], r"^token:admin-")
        # the precision moves: p-b 2 true, 2 false; overall 5 true, 4 false, 1 unjudged
        q = quality()
        self.assertCounts(q["overall"], 5, 4, 1)
        self.assertCounts(q["by_plan"][1], 2, 2, 0)
        self.assertAlmostEqual(q["by_plan"][1]["precision"], 0.5, places=12)
        self.assertEqual(q["false_alarms_per_week"][1]["weekly"], [0] * 5 + [1] + [0] * 6 + [1])

        # the mail's command: regtrack regression invalid ID --reason TEXT
        rid = ids[("p-a", WL, "new", 5)]
        cli = [os.path.join(BIN, "regtrack"), "--server", srv.url, "--token",
               srv.tokens["admin"], "regression", "invalid", str(rid)]
        out = subprocess.run(cli, capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 2, out)
        self.assertIn("--reason is required", out.stderr)
        out = subprocess.run(cli + ["--reason"], capture_output=True, text=True, timeout=60)
        self.assertEqual((out.returncode, out.stdout), (2, ""), out)
        self.assertIn("regression invalid: --reason needs a value", out.stderr)
        out = subprocess.run(cli + ["--reason", "the machine was swapping"],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual((out.returncode, out.stdout), (0, "regression %d: new -> invalid\n" % rid),
                         out)
        self.assertEqual(srv.psql("SELECT to_state || '|' || note FROM regression_history "
                                  "WHERE regression_id = %d ORDER BY id DESC LIMIT 1" % rid),
                         "invalid|the machine was swapping")
        rows = "SELECT count(*) FROM regression_history WHERE regression_id = %d" % rid
        n = srv.psql(rows)
        # the same command again: the server writes nothing, and the command says so
        out = subprocess.run(cli + ["--reason", "the machine was swapping"],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual((out.returncode, out.stdout, out.stderr),
                         (0, "regression %d: already invalid with that reason (nothing "
                          "changed)\n" % rid, ""), out)
        self.assertEqual(srv.psql(rows), n)
        # the API's reply says it too
        r = srv.post("/api/v1/regressions/%d/invalid" % rid,
                     {"reason": "the machine was swapping"}, scope="admin")
        self.assertEqual((r.status, r.json()["changed"], r.json()["state"]),
                         (200, False, "invalid"))
        # another reason: kept as a note, not a state change
        out = subprocess.run(cli + ["--reason", "and kswapd ran"],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual((out.returncode, out.stdout),
                         (0, "regression %d: already invalid; the new reason is kept as a "
                          "note\n" % rid), out)
        self.assertEqual(int(srv.psql(rows)), int(n) + 1)
        self.assertEqual(srv.psql("SELECT from_state || '|' || to_state || '|' || note FROM "
                                  "regression_history WHERE regression_id = %d "
                                  "ORDER BY id DESC LIMIT 1" % rid),
                         "invalid|invalid|and kswapd ran")
        out = subprocess.run(cli + ["--reason", ""], capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 2, out)
        self.assertIn("reason", out.stderr)
        q = quality(plan="p-a")
        self.assertCounts(q["overall"], 3, 3, 0)
        self.assertAlmostEqual(q["overall"]["precision"], 0.5, places=12)


if __name__ == "__main__":
    unittest.main()
