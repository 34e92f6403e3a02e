"""Auto-bisect end to end: a regression the detector confirms starts a
bisect by itself, fake workers answer its jobs, and the regression ends
`bisected`, pointing to the bisect that found the first bad commit.

A linear tree of 61 empty commits is made here and registered (the server
mirrors it and orders the commits by its history). Runs are uploaded for
c0..c20 and c40..c60 only (3 runs each, throughput 1000 before the hidden
culprit c31, 950 from it on, noise sd 10 = 1 %), so the detector can only
say "between c20 and c40": the bisect has 20 candidates to narrow. Fake
workers speak the real worker protocol and draw from the same noise model.
"""
import email
import email.policy
import os
import re
import random
import sys
import threading
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import result_doc, wait_until  # noqa: E402
from fakes import FakeWorker, git, git_init, stop_tree_server, tree_server  # noqa: E402

N = 60                 # c0..c60
CULPRIT = 31
GAP = range(21, 40)    # commits without runs before the bisect
METRIC = "vm-scalability.throughput"
TESTCASE = "vm-scalability"
PARAMS = {"test": "auto-bisect", "nr_task": "100%"}
WAIT_S = 120


def commit_time(i):
    return "2026-01-01T02:%02d:%02dZ" % (i // 60, i % 60)


def make_tree(path):
    git_init(path)
    shas = []
    for i in range(N + 1):
        git(path, "commit", "-q", "--allow-empty", "-m", "mm: auto %d" % i, date=commit_time(i))
        shas.append(git(path, "rev-parse", "HEAD"))
    return shas


MACHINE = {"hostname": "lkp-seed", "arch": "x86_64", "cpu_model": "fake", "nr_cpus": 2,
           "memory_mb": 2048, "tbox_group": "vm-2p"}


def value(rng, i):
    return (950.0 if i >= CULPRIT else 1000.0) + rng.gauss(0, 10)


def wait(what, fn):
    return wait_until(fn, timeout=WAIT_S, what=what)


def fake_worker(srv, name, index_of, stop):
    return FakeWorker(srv, name, stop, tree="autotree",
                      values=lambda job, rng: {METRIC: [value(rng, index_of[job["commit"]])]})


class AutoBisect(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.repo, cls.shas, cls.srv = tree_server(
            "regtrack-bisect-auto-", make_tree,
            "detect_poll_ms = 100\nauto_bisect = 1\nauto_bisect_min_pct = 2\n"
            # the sizing: 5 runs a new probe, doubling when undecided
            "bisect_probe_z = 0\nmail_cc = perf@example.org\n")

    @classmethod
    def tearDownClass(cls):
        stop_tree_server(cls.srv, cls.tmp)

    def regressions(self):
        q = urllib.parse.urlencode({"testcase": TESTCASE, "metric": METRIC})
        r = self.srv.get("/api/v1/regressions?" + q)
        self.assertEqual(r.status, 200, r)
        return [x for x in r.json()["regressions"] if x["params"] == PARAMS]

    def test_confirmed_regression_is_bisected_automatically(self):
        srv, shas = self.srv, self.shas
        index_of = {s: i for i, s in enumerate(shas)}
        r = srv.post("/api/v1/trees", {"name": "autotree", "url": self.repo,
                                       "branches": ["master"]}, scope="admin")
        self.assertEqual(r.status, 200, r)
        # the mirror orders the commits by the tree's history
        wait("the mirror", lambda: srv.psql(
            "SELECT count(*) FROM commits WHERE topo_order IS NOT NULL") == str(N + 1))
        rng = random.Random(7)
        for i in range(N + 1):
            if i in GAP:
                continue
            for _ in range(3):
                doc = result_doc(shas[i], testcase=TESTCASE, params=PARAMS, tree="autotree",
                                 machine=MACHINE, metrics={METRIC: [value(rng, i)]},
                                 commit_time=commit_time(i))
                r = srv.post("/api/v1/results", doc, scope="submit")
                self.assertEqual(r.status, 201, r)
        # no worker yet: the detector confirms the step and the bisect starts by itself
        reg = wait("a bisect started for the regression",
                   lambda: next((x for x in self.regressions() if x["bisect_id"]), None))
        self.assertEqual(len(self.regressions()), 1)
        self.assertEqual(reg["kind"], "regression")
        self.assertIn(reg["state"], ("bisecting", "bisected"))
        self.assertEqual((reg["good"]["sha"], reg["bad"]["sha"]), (shas[20], shas[40]))
        self.assertAlmostEqual(reg["change_pct"], -5.0, delta=1.0)
        b = srv.get("/api/v1/bisects/%d" % reg["bisect_id"]).json()
        self.assertEqual((b["regression_id"], b["good"], b["bad"], b["metric"], b["params"]),
                         (reg["id"], shas[20], shas[40], METRIC, PARAMS))
        # the workers come: the bisect runs to its end
        stop = threading.Event()
        workers = [fake_worker(srv, "fake-%d" % i, index_of, stop) for i in range(2)]
        for w in workers:
            w.start()
        try:
            b = wait("the bisect's end", lambda: (lambda x: x if x["state"] not in (
                "queued", "running") else None)(srv.get("/api/v1/bisects/%d" % reg["bisect_id"])
                                                .json()))
            reg = wait("the regression bisected", lambda: next(
                (x for x in self.regressions() if x["state"] == "bisected"), None))
        finally:
            stop.set()
            for w in workers:
                w.join(10)
        self.assertEqual((b["state"], b["outcome"]), ("done", "found"), b.get("reason"))
        self.assertEqual(b["first_bad_commit"]["sha"], shas[CULPRIT])
        self.assertEqual(b["first_bad_commit"]["subject"], "mm: auto %d" % CULPRIT)
        self.assertEqual(b["nr_candidates"], 20)
        self.assertGreaterEqual(b["confidence"], 0.99)
        v = b["verification"]
        self.assertEqual((v["parent"], v["first_bad"], v["verdict"]),
                         (shas[CULPRIT - 1], shas[CULPRIT], "different"))
        # the regression points to the bisect; its history tells the story
        self.assertEqual((reg["bisect_id"], reg["state"]), (b["id"], "bisected"))
        states = [tuple(l.split("|")) for l in srv.psql(
            "SELECT who || '|' || to_state FROM regression_history WHERE regression_id = %d "
            "ORDER BY id" % reg["id"]).splitlines()]
        self.assertIn(("bisect", "bisecting"), states)
        self.assertEqual(states[-1], ("bisect", "bisected"))
        self.assertLess(states.index(("bisect", "bisecting")), len(states) - 1)
        # the report states the change of first bad vs parent (its table's runs,
        # which are the verification's), not the detector's estimate over c20..c40:
        # the size of the verdict, the HL shift; the table keeps LKP's %change
        mail_dir = os.path.join(self.tmp, "mail")
        mail = wait("the report mail", lambda: (lambda f: f[0] if f else None)(
            sorted(os.listdir(mail_dir)) if os.path.isdir(mail_dir) else []))
        with open(os.path.join(mail_dir, mail), "rb") as f:
            parsed = email.message_from_binary_file(f, policy=email.policy.default)
        body = parsed.get_body().get_content()
        row = re.search(r"^ +[0-9.]+ +([-+][0-9.]+)%% +[0-9.]+ +%s$" % re.escape(METRIC), body,
                        re.M)
        self.assertIsNotNone(row, body)
        self.assertAlmostEqual(float(row.group(1)), v["change_pct"], delta=0.051)
        size = "%+.1f" % v["hl_pct"]
        self.assertEqual(parsed["Subject"], "[autotree:master] [mm] %s: %s %s%% regression"
                         % (shas[CULPRIT][:12], METRIC, size))
        self.assertIn("measured a %s%% regression of %s" % (size, METRIC), body)
        # one bisect only, though the bisect's own runs narrow what the detector sees
        self.assertEqual(srv.psql("SELECT count(*) FROM bisects"), "1")
        self.assertGreater(sum(w.jobs for w in workers), 0)

    def test_size_is_the_hl_shift(self):
        # two confirmed records of the same setup (stored by hand, not detected): the
        # older one's means moved 5 % (one failed run) but its HL shift is 1 %, below
        # auto_bisect_min_pct; the newer one's shift is 5 %. Records are taken in id
        # order, so once the newer has its bisect the older was passed over.
        srv, shas = self.srv, self.shas
        setup = srv.psql("SELECT setup_id FROM regressions ORDER BY id LIMIT 1")
        ids = []
        for good, bad, change, hl in ((50, 52, -5.0, -1.0), (54, 56, -1.0, -5.0)):
            ids.append(int(srv.psql(
                "INSERT INTO regressions (setup_id, metric_id, good_commit_id, bad_commit_id, "
                "kind, state, change_pct, hl_pct, direction, verdict, n_before, n_after, "
                "commits_after, pair_verdict, detected) SELECT %s, m.id, g.id, b.id, "
                "'regression', 'confirmed', %s, %s, -1, 'different', 10, 10, 5, "
                "'need-more-runs', false FROM metrics m, commits g, commits b "
                "WHERE m.name = '%s' AND g.sha = '%s' AND b.sha = '%s' RETURNING id"
                % (setup, change, hl, METRIC, shas[good], shas[bad])).split()[0]))
        wait("the bisect of the 5 % shift", lambda: srv.psql(
            "SELECT bisect_id IS NOT NULL FROM regressions WHERE id = %d" % ids[1]) == "t")
        self.assertEqual(srv.psql("SELECT state || '|' || coalesce(bisect_id::text, '-') "
                                  "FROM regressions WHERE id = %d" % ids[0]), "confirmed|-")
        hist = srv.psql("SELECT note FROM regression_history WHERE regression_id = %d "
                        "AND to_state = 'bisecting'" % ids[1])
        self.assertRegex(hist, r"^bisect \d+ started \(-5\.00%\)$")


if __name__ == "__main__":
    unittest.main()
