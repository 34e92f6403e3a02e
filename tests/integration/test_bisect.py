"""Bisect end to end: a real git tree made here (41 empty commits), the real
server (mirror, import, coordinator), and fake workers in threads speaking
the real worker protocol over HTTP. Runs of commits at and after a hidden
culprit are slower (throughput 950 vs 1000, noise sd 10); one commit fails
to build."""
import email
import email.policy
import json
import os
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import BIN  # noqa: E402
from fakes import (FakeWorker, git, git_init, stop_tree_server, tree_server,  # noqa: E402
                   wait_bisect_end)

N_COMMITS = 40          # c1..c40 after the root c0
CULPRIT = 27            # c27 is the first slow commit
BROKEN = 20             # c20 fails to build (the first round probes it with k = 3)
METRIC = "vm-scalability.throughput"


def make_tree(path):
    git_init(path)
    shas = []
    for i in range(N_COMMITS + 1):
        git(path, "commit", "-q", "--allow-empty", "-m", "mm: change %d" % i,
            date="2026-01-01T00:%02d:%02dZ" % (i // 60, i % 60))
        shas.append(git(path, "rev-parse", "HEAD"))
    return shas


def fake_worker(srv, name, index_of, stop):
    """Runs at and after the culprit are 5 % slower (sd 10); c20 fails to build."""
    def values(job, rng):
        i = index_of[job["commit"]]
        return {METRIC: [(950.0 if i >= CULPRIT else 1000.0) + rng.gauss(0, 10)]}

    def fail(job):
        if index_of[job["commit"]] == BROKEN:
            return ("build-failed", "error: implicit declaration of function 'mm_foo'\n")
        return None
    return FakeWorker(srv, name, stop, values, fail=fail)


class Bisect(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp, cls.repo, cls.shas, cls.srv = tree_server(
            "regtrack-bisect-", make_tree, "detect_enabled = 0\nmail_cc = perf@example.org\n")

    @classmethod
    def tearDownClass(cls):
        stop_tree_server(cls.srv, cls.tmp)

    def cli(self, *args):
        return subprocess.run([os.path.join(BIN, "regtrack"), "bisect"] + list(args) +
                              ["--server", self.srv.url, "--token", self.srv.tokens["submit"]],
                              capture_output=True, text=True, timeout=60)

    def test_validation(self):
        srv = self.srv
        body = {"tree": "nope", "good": self.shas[0], "bad": self.shas[1], "testcase": "t",
                "kconfig": "x86_64-defconfig", "metric": METRIC}
        r = srv.post("/api/v1/bisects", body, scope="submit")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (404, "tree"), r)
        r = srv.post("/api/v1/bisects", dict(body, good="abc"), scope="submit")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "good"), r)
        r = srv.post("/api/v1/bisects", dict(body, k=65), scope="submit")
        self.assertEqual((r.status, r.json()["error"]["detail"]), (400, "k"), r)
        r = srv.post("/api/v1/bisects", body, scope="read")
        self.assertEqual(r.status, 403, r)
        self.assertEqual(srv.get("/api/v1/bisects/999999").status, 404)

    def test_finds_culprit_in_parallel_and_skips_broken_build(self):
        srv = self.srv
        shas = self.shas
        index_of = {s: i for i, s in enumerate(shas)}
        r = srv.post("/api/v1/trees", {"name": "demo", "url": self.repo, "branches": ["master"]},
                     scope="admin")
        self.assertEqual(r.status, 200, r)
        stop = threading.Event()
        workers = [fake_worker(srv, "fake-%d" % i, index_of, stop) for i in range(3)]
        for w in workers:
            w.start()
        try:
            # started through the CLI: regtrack bisect start
            out = self.cli("start", "--tree", "demo", "--good", shas[0], "--bad", shas[-1],
                           "--testcase", "vm-scalability", "--params", '{"test": "small-allocs"}',
                           "--kconfig", "x86_64-defconfig", "--compiler", "gcc-12",
                           "--tbox-group", "vm-2p", "--metric", METRIC)
            self.assertEqual(out.returncode, 0, out.stderr)
            bid = json.loads(out.stdout)["id"]
            b = wait_bisect_end(srv, bid, 50)
        finally:
            stop.set()
            for w in workers:
                w.join(10)
        self.assertEqual(b["state"], "done", b.get("reason"))
        self.assertEqual(b["outcome"], "found")
        self.assertEqual(b["first_bad_commit"]["sha"], shas[CULPRIT])
        self.assertEqual(b["first_bad_commit"]["subject"], "mm: change %d" % CULPRIT)
        self.assertEqual(b["first_bad_commit"]["author"], "Dev One <dev@example.org>")
        self.assertGreaterEqual(b["confidence"], 0.99)
        self.assertEqual((b["nr_candidates"], b["nr_range"]), (N_COMMITS, N_COMMITS))
        # the verification: first bad vs its parent, >= 10 runs each, showing the change
        v = b["verification"]
        self.assertEqual((v["parent"], v["first_bad"]), (shas[CULPRIT - 1], shas[CULPRIT]))
        self.assertGreaterEqual(min(v["n"]), 10)
        self.assertEqual(v["verdict"], "different")
        self.assertLess(v["change_pct"], -3)
        # the verdict's size and direction are the HL shift's, the references' the
        # size to reproduce (not the refitted levels')
        self.assertLess(v["hl_pct"], -3)
        self.assertEqual(v["direction"], -1)
        self.assertEqual(v["ref_change_pct"], b["model"]["refs"]["hl_pct"])
        self.assertEqual(b["model"]["refs"]["direction"], -1)
        # started by hand, it reports like an automatic one: a regression record of
        # first bad vs its parent, and the mail names the bisect's culprit and steps
        reg = self.srv.get("/api/v1/regressions/%d" % b["regression_id"]).json()
        self.assertEqual((reg["state"], reg["kind"]), ("bisected", "regression"))
        self.assertEqual((reg["good"]["sha"], reg["bad"]["sha"]), (shas[CULPRIT - 1], shas[CULPRIT]))
        self.assertEqual((reg["hl_pct"], reg["direction"]), (v["hl_pct"], -1))
        mail_dir = os.path.join(self.tmp, "mail")
        deadline = time.time() + 30
        while time.time() < deadline and not (os.path.isdir(mail_dir) and os.listdir(mail_dir)):
            time.sleep(0.2)
        mails = sorted(os.listdir(mail_dir))
        self.assertEqual(len(mails), 1, mails)
        with open(os.path.join(mail_dir, mails[0]), "rb") as f:
            parsed = email.message_from_binary_file(f, policy=email.policy.default)
        msg = parsed.get_body().get_content()
        self.assertEqual(parsed["Subject"], "[demo:master] [mm] %s: %s %.1f%% regression"
                         % (shas[CULPRIT][:12], METRIC, reg["hl_pct"]))
        self.assertIn("#regzbot introduced: %s" % shas[CULPRIT], msg)
        self.assertIn(shas[CULPRIT - 1][:12], msg)  # the table's base: the parent
        self.assertIn("mm: change %d" % BROKEN, msg)  # a step of the story
        # the command to reproduce one data point queues the same job: params included
        cmd = next(l for l in msg.splitlines() if l.strip().startswith("curl "))
        job = json.loads(cmd.split(" -d '", 1)[1].split("' ", 1)[0])
        self.assertEqual((job["commit"], job["testcase"], job["repeat"]), (shas[CULPRIT], "vm-scalability", 1))
        self.assertEqual(job["params"], b["params"])
        # steps: every measured commit of every round, with samples and evidence
        steps = b["steps"]
        self.assertTrue(steps)
        by_commit = {}
        for s in steps:
            by_commit.setdefault(s["commit"], []).append(s)
            self.assertIn(s["verdict"], ("good", "bad", "skip", "unknown"))
            if s["verdict"] != "skip":
                self.assertTrue(s["samples"], s)
                self.assertEqual(s["evidence"]["n"], len(s["samples"]))
        self.assertEqual(by_commit[shas[0]][0]["role"], "good")
        self.assertEqual(by_commit[shas[-1]][0]["role"], "bad")
        self.assertGreaterEqual(len(by_commit[shas[0]][-1]["samples"]), 10)
        # the broken commit was probed, skipped with its outcome, never probed again
        self.assertIn(shas[BROKEN], by_commit)
        broken = by_commit[shas[BROKEN]]
        self.assertEqual([s["verdict"] for s in broken], ["skip"])
        self.assertEqual(broken[0]["evidence"]["outcome"], "build-failed")
        # verdicts agree with the hidden culprit
        for sha, ss in by_commit.items():
            last = ss[-1]["verdict"]
            if last in ("good", "bad"):
                self.assertEqual(last, "bad" if index_of[sha] >= CULPRIT else "good", sha)
        self.assertEqual(by_commit[shas[CULPRIT]][-1]["verdict"], "bad")
        self.assertEqual(by_commit[shas[CULPRIT - 1]][-1]["verdict"], "good")
        # parallel: some round probed more than one commit (k = 3 idle workers)
        per_round = {}
        for s in steps:
            if s["role"] in ("probe", "verify"):
                per_round.setdefault(s["round"], set()).add(s["commit"])
        self.assertGreaterEqual(max(len(c) for c in per_round.values()), 2, per_round)
        # the model is the last round's: its k counts the workers idle at that moment,
        # so one still finishing a job of the round before lowers it (at most 3 here)
        self.assertIn(b["model"]["k"], (1, 2, 3))
        self.assertGreaterEqual(sum(1 for w in workers if w.jobs), 2)
        # cost figures: every job of the bisect is counted, runs are the stored ones
        self.assertEqual(b["jobs_used"], int(srv.psql(
            "SELECT count(*) FROM jobs WHERE bisect_id = %d" % bid)))
        self.assertEqual(b["runs_used"], int(srv.psql(
            "SELECT count(*) FROM runs r JOIN jobs j ON j.id = r.job_id WHERE j.bisect_id = %d"
            % bid)))
        self.assertGreater(b["wall_time_s"], 0)
        # bisect jobs sit below tracking jobs in the queue
        self.assertEqual(srv.psql("SELECT DISTINCT priority FROM jobs WHERE bisect_id = %d" % bid),
                         "-10")
        # the mirror's history ordered the commits
        self.assertEqual(srv.psql(
            "SELECT count(*) FROM commits WHERE topo_order IS NOT NULL AND parents IS NOT NULL"),
            str(N_COMMITS + 1))
        self.assertEqual(srv.psql("SELECT topo_order FROM commits WHERE sha = '%s'" % shas[5]), "6")
        # the list, newest first, without steps
        shown = self.cli("show", str(bid))
        self.assertEqual(shown.returncode, 0, shown.stderr)
        self.assertEqual(json.loads(shown.stdout)["first_bad_commit"]["sha"], shas[CULPRIT])
        self.assertEqual(self.cli("show", "999999").returncode, 2)
        lst = srv.get("/api/v1/bisects").json()
        self.assertEqual(lst[0]["id"], bid)
        self.assertNotIn("steps", lst[0])


if __name__ == "__main__":
    unittest.main()
