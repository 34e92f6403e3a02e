"""Backtests before a lab changes its sensitivity.

A plan carries detector settings ("detect"); detection of the series its
jobs measure uses them. `regtrack-server backtest` and POST
/api/v1/plans/{name}/backtest re-run the detector over the plan's stored
series with its settings and with changed ones, and list what the change
adds and removes, scored against the records' labels, changing nothing.

The history: a local git tree, a plan testing every commit of one push of
40 (one setup, 3 runs each), and a fake worker whose runs hold three steps
at the 20th commit, 0.2 % noise:
  custom.big    -20 %   recorded, confirmed by the detector: a true change
  custom.small   +3 %   recorded, then marked invalid: a false alarm
  custom.tiny  +1.5 %   under the plan's min_change_pct 2: no record
The plan sets min_effect too, so that the figures do not follow the
detector's own default (p_max, window and min_seg are the config's).
"""
import json
import os
import random
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import wait_until  # noqa: E402
from fakes import FakeWorker, git, git_init, stop_tree_server, tree_server  # noqa: E402

WAIT_S = 120
NC = 40      # commits of the push
STEP = 20    # the first bad one, 0-based in the push
STEPS = {"custom.big": (1000.0, 0.80), "custom.small": (500.0, 1.03),
         "custom.tiny": (200.0, 1.015)}
_clock = [0]


def commit(repo):
    """One commit (dates fixed and increasing: shas repeat run to run); its sha."""
    _clock[0] += 1
    n = _clock[0]
    with open(os.path.join(repo, "mm.c"), "a") as f:
        f.write("%d\n" % n)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "change %d" % n,
        date="2026-02-01T%02d:%02d:00Z" % (n // 60 % 24, n % 60))
    return git(repo, "rev-parse", "HEAD")


def make_tree(path):
    git_init(path)
    return [commit(path)]


PLAN = {"name": "bt", "tree": "linux", "branches": ["master"],
        "testcases": [{"testcase": "execl", "params": {}}],
        "kconfigs": ["x86_64-defconfig"], "targets": ["vm-2p"], "repeat": 3,
        "schedule": {"heads": True, "every": 1, "paths": [], "max_per_push": 50},
        "detect": {"min_change_pct": 2, "min_effect": 1}}


def snapshot(srv):
    """Every table's row count and the full text of the rows a backtest could touch."""
    tables = srv.psql("SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables "
                      "WHERE schemaname = 'public'").split(",")
    counts = {t: srv.psql("SELECT count(*) FROM %s" % t) for t in tables}
    rows = {t: srv.psql("SELECT md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) "
                        "FROM %s x" % t)
            for t in ("regressions", "regression_history", "runs", "run_values", "jobs",
                      "plans", "detect_queue", "commits", "setups")}
    return counts, rows


class Backtest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.repo, cls.base, cls.srv = tree_server(
            "regtrack-backtest-", make_tree, "poll_tick_ms = 100\ndetect_tip_z = 0\n")
        srv = cls.srv
        r = srv.post("/api/v1/trees", {"name": "linux", "url": cls.repo,
                                       "branches": ["master"], "poll_s": 0}, scope="admin")
        assert r.status == 200, r
        r = srv.post("/api/v1/plans", PLAN, scope="admin")
        assert r.status == 201, r
        cls.plan_reply = r.json()
        cls.shas = []
        index = {}

        def values(job, rng):
            i = index[job["commit"]]
            return {m: [base * (factor if i >= STEP else 1.0) * (1 + rng.gauss(0, 0.002))
                        for _ in range(2)] for m, (base, factor) in STEPS.items()}

        def poll():
            before = srv.psql("SELECT polls FROM trees WHERE name = 'linux'")
            assert srv.post("/api/v1/trees/linux/poll", scope="submit").status == 202
            wait_until(lambda: srv.psql("SELECT polls FROM trees WHERE name = 'linux'")
                       != before, timeout=WAIT_S, what="a poll")

        index[cls.base[-1]] = -1
        poll()                       # the baseline: the head alone
        for i in range(NC):
            cls.shas.append(commit(cls.repo))
            index[cls.shas[-1]] = i
        poll()
        stop = threading.Event()
        worker = FakeWorker(srv, "bt-worker", stop, values, tree="linux")
        worker.start()
        try:
            wait_until(lambda: srv.psql("SELECT count(*) FROM jobs WHERE state = 'done'")
                       == str(NC + 1), timeout=WAIT_S, what="the plan's jobs")
        finally:
            stop.set()
            worker.join(timeout=30)
        wait_until(lambda: srv.psql("SELECT count(*) FROM detect_queue") == "0",
                   timeout=WAIT_S, what="detection")

    @classmethod
    def tearDownClass(cls):
        stop_tree_server(cls.srv, cls.tmp)

    def records(self, metric):
        r = self.srv.get("/api/v1/regressions?testcase=execl&metric=" + metric)
        self.assertEqual(r.status, 200, r)
        return r.json()["regressions"]

    def backtest(self, body, scope="admin"):
        return self.srv.post("/api/v1/plans/bt/backtest", body, scope=scope)

    def test_1_plan_settings_govern_detection(self):
        self.assertEqual(self.plan_reply["detect"], {"min_change_pct": 2, "min_effect": 1})
        self.assertEqual(self.srv.get("/api/v1/plans/bt").json()["detect"],
                         {"min_change_pct": 2, "min_effect": 1})
        big, small = self.records("custom.big"), self.records("custom.small")
        self.assertEqual([(x["good"]["sha"], x["bad"]["sha"], x["state"]) for x in big],
                         [(self.shas[STEP - 1], self.shas[STEP], "confirmed")])
        self.assertEqual([(x["good"]["sha"], x["bad"]["sha"]) for x in small],
                         [(self.shas[STEP - 1], self.shas[STEP])])
        # +1.5 % at 0.2 % noise passes the server's default (1 %) but not the plan's 2 %
        self.assertEqual(self.records("custom.tiny"), [])

    def test_2_backtests_add_and_remove_scored_alerts(self):
        srv = self.srv
        big = self.records("custom.big")[0]
        small = self.records("custom.small")[0]
        r = srv.request("PATCH", "/api/v1/regressions/%d" % small["id"],
                        body={"state": "invalid", "note": "noise"}, scope="admin")
        self.assertEqual(r.status, 200, r)
        before = snapshot(srv)

        # looser: the tiny step is added, with no record
        r = self.backtest({"set": {"min_change_pct": 1}})
        self.assertEqual(r.status, 200, r)
        b = r.json()
        self.assertEqual((b["plan"], b["since"], b["set"]), ("bt", None, {"min_change_pct": 1}))
        self.assertEqual(b["current"]["min_change_pct"], 2)
        self.assertEqual(b["new"]["min_change_pct"], 1)
        self.assertEqual({k: b["current"][k] for k in ("p_max", "window", "min_seg",
                                                       "min_effect")},
                         {"p_max": 0.001, "window": 64, "min_seg": 3, "min_effect": 1})
        # three metric series over the same NC + 1 commits: each commit counted once,
        # and once per series among the points
        self.assertEqual((b["series"], b["commits"], b["points"]), (3, NC + 1, 3 * (NC + 1)))
        self.assertEqual(b["before"], {"alerts": 2, "true": 1, "false": 1, "unjudged": 0,
                                       "unlabelled": 0, "precision": 0.5})
        self.assertEqual(b["after"], {"alerts": 3, "true": 1, "false": 1, "unjudged": 0,
                                      "unlabelled": 1, "precision": 0.5})
        self.assertEqual({k: v for k, v in b["removed"].items() if k != "list"},
                         {"alerts": 0, "true": 0, "false": 0, "unjudged": 0, "unlabelled": 0})
        self.assertEqual(b["removed"]["list"], [])
        self.assertEqual(b["added"]["alerts"], 1)
        self.assertEqual(b["added"]["unlabelled"], 1)
        [a] = b["added"]["list"]
        self.assertEqual((a["metric"], a["good"], a["bad"], a["regression_id"], a["state"],
                          a["label"], a["testcase"], a["params"], a["tbox_group"]),
                         ("custom.tiny", self.shas[STEP - 1], self.shas[STEP], None, None,
                          "unlabelled", "execl", {}, "vm-2p"))
        self.assertAlmostEqual(a["change_pct"], 1.5, delta=0.3)
        self.assertLess(a["p_value"], 0.001)

        # tighter: the false alarm goes, precision 0.5 -> 1
        r = self.backtest({"set": {"min_change_pct": 5}})
        self.assertEqual(r.status, 200, r)
        b = r.json()
        self.assertEqual(b["added"], {"alerts": 0, "true": 0, "false": 0, "unjudged": 0,
                                      "unlabelled": 0, "list": []})
        [a] = b["removed"]["list"]
        self.assertEqual((a["metric"], a["good"], a["bad"], a["regression_id"], a["state"],
                          a["label"]),
                         ("custom.small", self.shas[STEP - 1], self.shas[STEP], small["id"],
                          "invalid", "false"))
        self.assertEqual(b["removed"]["false"], 1)
        self.assertEqual(b["before"]["precision"], 0.5)
        self.assertEqual(b["after"], {"alerts": 1, "true": 1, "false": 0, "unjudged": 0,
                                      "unlabelled": 0, "precision": 1.0})

        # far tighter: the true change goes too, and nothing is judged after
        b = self.backtest({"set": {"min_change_pct": 30, "p_max": 0.0001}}).json()
        self.assertEqual(sorted((a["metric"], a["label"], a["regression_id"])
                                for a in b["removed"]["list"]),
                         [("custom.big", "true", big["id"]),
                          ("custom.small", "false", small["id"])])
        self.assertEqual(b["after"], {"alerts": 0, "true": 0, "false": 0, "unjudged": 0,
                                      "unlabelled": 0, "precision": None})

        # since: alerts whose first bad commit is dated before it do not count
        day = git(self.repo, "log", "-1", "--format=%cI", self.shas[STEP + 1])
        b = self.backtest({"since": day, "set": {"min_change_pct": 5}}).json()
        self.assertEqual((b["before"]["alerts"], b["removed"]["list"]), (0, []))
        self.assertEqual(b["since"][:19], day[:19])
        day = git(self.repo, "log", "-1", "--format=%cI", self.shas[STEP])
        b = self.backtest({"since": day, "set": {"min_change_pct": 5}}).json()
        self.assertEqual((b["before"]["alerts"], len(b["removed"]["list"])), (2, 1))
        b = self.backtest({"since": "2026-02-02"}).json()
        self.assertEqual((b["since"], b["before"]["alerts"]), ("2026-02-02T00:00:00Z", 0))

        # the command line: the same backtest as text, and as the API's JSON
        out = srv.cli("backtest", "--plan", "bt", "--set", "min_change_pct=5")
        lines = out.stdout.splitlines()
        self.assertEqual(lines[0], "backtest of plan 'bt': 3 series over %d commits (%d points: "
                         "a commit once per series)" % (NC + 1, 3 * (NC + 1)))
        self.assertEqual(lines[1:3], ["  current: p_max 0.001, window 64, min_seg 3, "
                                      "min_change_pct 2, min_effect 1",
                                      "  new:     p_max 0.001, window 64, min_seg 3, "
                                      "min_change_pct 5, min_effect 1"])
        self.assertIn("removed (alerted with the current settings only): 1", lines)
        self.assertTrue(any(x.startswith("  custom.small execl {} x86_64-defconfig gcc-12 vm-2p  "
                                         "%s..%s  +" % (self.shas[STEP - 1][:12],
                                                        self.shas[STEP][:12]))
                            and x.endswith("false (regression %d, invalid)" % small["id"])
                            for x in lines), lines)
        self.assertEqual(lines[-2], "before: 2 alerts: 1 true, 1 false, 0 unjudged, "
                                    "0 unlabelled; precision 0.50")
        self.assertEqual(lines[-1], "after:  1 alert: 1 true, 0 false, 0 unjudged, "
                                    "0 unlabelled; precision 1.00")
        out = srv.cli("backtest", "--plan", "bt", "--set", "min_change_pct=5", "--json")
        self.assertEqual(json.loads(out.stdout), self.backtest({"set": {"min_change_pct": 5}})
                         .json())

        # nothing stored changed
        self.assertEqual(snapshot(srv), before)

    def test_3_bad_requests_name_the_field(self):
        srv = self.srv
        for body, status, field in [
                ({"set": {"rho": 1}}, 400, "set.rho"),
                ({"set": {"p_max": 2}}, 400, "set.p_max"),
                ({"set": {"window": 8.5}}, 400, "set.window"),
                ({"set": {"window": 16, "min_seg": 9}}, 400, "set.min_seg"),
                # over the plan's window (64): at most half of it
                ({"set": {"min_seg": 40}}, 400, "set.min_seg"),
                ({"set": {"window": 16}}, 200, None),
                ({"set": {"window": 8, "min_seg": 4}}, 200, None),
                ({"set": "p_max=1"}, 400, "set"),
                ({"since": "yesterday"}, 400, "since"),
                ({"since": "2026-02-30"}, 400, "since"),
                ({"sett": {}}, 400, "sett")]:
            r = self.backtest(body)
            if status == 200:
                self.assertEqual(r.status, 200, body)
                continue
            self.assertEqual((r.status, r.json()["error"]["code"], r.json()["error"]["detail"]),
                             (status, "invalid_field", field), body)
        r = srv.post("/api/v1/plans/nope/backtest", {}, scope="admin")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (404, "name"))
        self.assertEqual(self.backtest({}, scope="submit").status, 403)
        self.assertEqual(srv.post("/api/v1/plans/bt/backtest", {}).status, 401)
        # the same table checks a plan's own settings
        for detect, field in [({"p_max": 2}, "detect.p_max"), ({"foo": 1}, "detect.foo"),
                              ({"min_seg": 40}, "detect.min_seg"),  # the config's window: 64
                              ({"window": 16, "min_seg": 9}, "detect.min_seg"),
                              ({"window": "64"}, "detect.window"), (5, "detect")]:
            r = srv.request("PUT", "/api/v1/plans/bt", body=dict(PLAN, detect=detect),
                            scope="admin")
            self.assertEqual((r.status, r.json()["error"]["detail"]), (400, field), detect)
        self.assertEqual(srv.get("/api/v1/plans/bt").json()["detect"],
                         {"min_change_pct": 2, "min_effect": 1})
        out = srv.cli("backtest", "--plan", "bt", "--set", "foo=1", check=False)
        self.assertEqual(out.returncode, 2, out)
        self.assertIn("set.foo", out.stderr)
        # a value that is no finite decimal number is refused, not dropped from the set
        for arg in ("min_change_pct=nan", "min_change_pct=inf", "min_change_pct=NaN",
                    "p_max=nan", "min_effect=inf", "min_change_pct=0x10", "min_seg=40"):
            out = srv.cli("backtest", "--plan", "bt", "--set", arg, "--json", check=False)
            self.assertEqual((out.returncode, out.stdout), (2, ""), (arg, out))
            self.assertIn("(set.%s)" % arg.split("=")[0], out.stderr)
        # no such plan: the user's input, as `plan apply` of an unknown tree (exit 2)
        out = srv.cli("backtest", "--plan", "nope", check=False)
        self.assertEqual(out.returncode, 2, out)
        self.assertIn("no plan 'nope'", out.stderr)
        out = srv.cli("backtest", "--set", "p_max=0.01", check=False)
        self.assertEqual(out.returncode, 2, out)
        self.assertIn("usage:", out.stderr)
        # a key given twice: which was meant is not guessed (the last one won)
        out = srv.cli("backtest", "--plan", "bt", "--set", "min_change_pct=1", "--set",
                      "min_change_pct=5", check=False)
        self.assertEqual((out.returncode, out.stdout), (2, ""), out)
        self.assertIn("--set min_change_pct is given twice", out.stderr)

    def test_4_min_seg_over_half_the_window_names_the_window(self):
        # the message read the window after its object was freed: "(0 commits)"
        msg = "'%s' is more than half of the window (16 commits)"
        r = self.backtest({"set": {"window": 16, "min_seg": 9}})
        self.assertEqual((r.status, r.json()["error"]["message"]),
                         (400, msg % "set.min_seg"))
        out = self.srv.cli("backtest", "--plan", "bt", "--set", "min_seg=9", "--set",
                           "window=16", check=False)
        self.assertEqual(out.returncode, 2, out)
        self.assertIn(msg % "set.min_seg", out.stderr)
        r = self.srv.request("PUT", "/api/v1/plans/bt",
                             body=dict(PLAN, detect={"window": 16, "min_seg": 9}), scope="admin")
        self.assertEqual((r.status, r.json()["error"]["message"]),
                         (400, msg % "detect.min_seg"))

    def test_5_since_in_the_future_is_refused(self):
        # no alert can be dated from then on: a 200 counting none read as "nothing changes"
        before = snapshot(self.srv)
        for since in ("2999-01-01", "2999-01-01T00:00:00Z",
                      time.strftime("%Y-%m-%dT%H:%M:%S+00:00",
                                    time.gmtime(time.time() + 3600))):
            r = self.backtest({"since": since, "set": {"min_change_pct": 5}})
            self.assertEqual((r.status, r.json()["error"]["code"], r.json()["error"]["detail"]),
                             (400, "invalid_field", "since"), since)
            self.assertEqual(r.json()["error"]["message"],
                             "'since' lies in the future: '%s' (no alert can be dated from "
                             "then on)" % since)
        out = self.srv.cli("backtest", "--plan", "bt", "--since", "2999-01-01", check=False)
        self.assertEqual((out.returncode, out.stdout), (2, ""), out)
        self.assertIn("'since' lies in the future: '2999-01-01'", out.stderr)
        # the offset counts: 3 h ago written at -01:00 is 2 h ago, in the past
        r = self.backtest({"since": time.strftime("%Y-%m-%dT%H:%M:%S-01:00",
                                                  time.gmtime(time.time() - 7200 - 3600))})
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.json()["before"]["alerts"], 0)
        self.assertEqual(snapshot(self.srv), before)


if __name__ == "__main__":
    unittest.main()
